//! Expand to depth (`*`, a count before it) and copy (`y`, `Y`): how far `*` opens a
//! subtree, the row budget that keeps a hub function from flooding the tree, and what the
//! copy keys put in the status bar and, only when opted in, in the clipboard.

use codegraph_tui::tui::app::{Focus, Settings};
use codegraph_tui::tui::tree::{Row, EXPAND_BUDGET};
use codegraph_tui::tui::{App, Theme};
use ratatui::crossterm::event::KeyCode;

use super::{app_on, focused_render_json, key, screen, snapshot, typ};

/// A Python repository: a chain `f0 <- f1 <- ... <- f6` (each calls the one before), and
/// `hub` called by `fan` functions, each called by `fan` more.
fn generated(fan: usize) -> (tempfile::TempDir, App) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let mut chain = String::from("def f0():\n    return 0\n");
    for i in 1..7 {
        chain.push_str(&format!("\n\ndef f{i}():\n    return f{}()\n", i - 1));
    }
    std::fs::write(repo.join("chain.py"), chain).unwrap();
    let mut hub = String::from("def hub():\n    return 0\n");
    for i in 0..fan {
        hub.push_str(&format!("\n\ndef mid_{i}():\n    return hub()\n"));
        for j in 0..fan {
            hub.push_str(&format!("\n\ndef top_{i}_{j}():\n    return mid_{i}()\n"));
        }
    }
    std::fs::write(repo.join("hub.py"), hub).unwrap();
    let app = app_on(&repo, Theme::load("dark", None).unwrap());
    (tmp, app)
}

fn focus(app: &mut App, query: &str) {
    typ(app, query);
    key(app, KeyCode::Enter);
    assert_eq!(app.focus, Focus::Tree);
}

/// The arena depths of the open nodes and of the deepest row.
fn open_depths(app: &App) -> (Vec<u32>, u32) {
    let t = app.tree.as_ref().unwrap();
    let rows = app.tree_rows();
    let mut open: Vec<u32> = rows
        .iter()
        .filter_map(|r| match r {
            Row::Node(i) if t.nodes[*i].expanded => Some(t.nodes[*i].depth),
            _ => None,
        })
        .collect();
    open.dedup();
    let deepest = rows
        .iter()
        .filter_map(|r| match r {
            Row::Node(i) => Some(t.nodes[*i].depth),
            _ => None,
        })
        .max()
        .unwrap();
    (open, deepest)
}

#[test]
fn star_opens_the_settings_depth_and_a_count_before_it_sets_another() {
    let (_tmp, mut app) = generated(2);
    focus(&mut app, "chain.f0");
    assert_eq!(open_depths(&app), (vec![0], 1), "one level at first");
    key(&mut app, KeyCode::Char('*'));
    // Three levels below the root: f1, f2, f3 shown, f3 left closed.
    assert_eq!(open_depths(&app), (vec![0, 1, 2], 3));
    let msg = app.status.message.clone().unwrap();
    assert_eq!(msg, "expanded 3 levels, 3 nodes");
    snapshot("expand_star_chain", screen(&mut app, 100, 20));
    // On the root again with a count: 5 levels, f1..f5, then the count is used up.
    key(&mut app, KeyCode::Char('5'));
    assert_eq!(app.status.message.as_deref(), Some("5: * expands 5 levels"));
    key(&mut app, KeyCode::Char('*'));
    assert_eq!(open_depths(&app).1, 5);
    // f6 is the last: 9 levels open all there are and say so.
    key(&mut app, KeyCode::Char('9'));
    key(&mut app, KeyCode::Char('*'));
    assert_eq!(open_depths(&app).1, 6);
    assert_eq!(
        app.status.message.as_deref(),
        Some("expanded all 6 levels there are, 6 nodes")
    );
    // A count is for the action right after it: a move in between drops it.
    let mut app2 = generated(2).1;
    app2.settings = Settings {
        expand_depth: 1,
        ..Settings::default()
    };
    focus(&mut app2, "chain.f0");
    key(&mut app2, KeyCode::Char('4'));
    key(&mut app2, KeyCode::Char('j'));
    key(&mut app2, KeyCode::Char('k'));
    key(&mut app2, KeyCode::Char('*'));
    assert_eq!(
        open_depths(&app2).1,
        1,
        "the setting's depth, not the count"
    );
    // One level, one node: singular.
    assert_eq!(
        app2.status.message.as_deref(),
        Some("expanded 1 level, 1 node")
    );
    key(&mut app2, KeyCode::Char('1'));
    assert_eq!(app2.status.message.as_deref(), Some("1: * expands 1 level"));
    // f5 has one caller, f6, which has none: the one level there is.
    let mut app3 = generated(2).1;
    focus(&mut app3, "chain.f5");
    key(&mut app3, KeyCode::Char('3'));
    key(&mut app3, KeyCode::Char('*'));
    assert_eq!(
        app3.status.message.as_deref(),
        Some("expanded the one level there is, 1 node")
    );
}

#[test]
fn a_hub_stops_at_the_row_budget_breadth_first_and_says_how_many_stay_closed() {
    // 50 callers of hub, 50 callers of each: the second level alone is 2 500 rows.
    let fan = 50;
    let (_tmp, mut app) = generated(fan);
    focus(&mut app, "hub.hub");
    key(&mut app, KeyCode::Char('*'));
    let t = app.tree.as_ref().unwrap();
    let rows = app.tree_rows();
    let nodes = rows.iter().filter(|r| matches!(r, Row::Node(_))).count();
    assert!(nodes <= EXPAND_BUDGET + 1, "{nodes} rows");
    // Breadth first: every level-1 caller that opened shows all its callers, and the
    // ones left are the last in the level, closed.
    let opened = t.nodes[0]
        .children
        .as_ref()
        .unwrap()
        .iter()
        .filter(|&&k| t.nodes[k].expanded)
        .count();
    assert_eq!(opened, (EXPAND_BUDGET - fan) / fan, "mids opened");
    assert_eq!(nodes, 1 + fan + opened * fan);
    let left = fan - opened;
    let msg = app.status.message.clone().unwrap();
    assert_eq!(
        msg,
        format!(
            "expanded 1 of 3 levels fully, {} nodes; {left} more left closed \
             (budget {EXPAND_BUDGET} rows; Right opens one)",
            fan + opened * fan
        )
    );
    let s = screen(&mut app, 140, 24);
    assert!(s.contains("more left closed"), "{s}");
}

#[test]
fn star_outside_a_symbol_row_or_on_another_view_says_why() {
    let mut app = focused_render_json();
    key(&mut app, KeyCode::Char('o'));
    key(&mut app, KeyCode::Char('*'));
    assert!(
        app.status
            .message
            .as_deref()
            .unwrap()
            .contains("expands the call tree"),
        "{:?}",
        app.status.message
    );
}

#[test]
fn y_and_capital_y_show_the_id_and_call_site_and_copy_only_when_opted_in() {
    let mut app = focused_render_json();
    key(&mut app, KeyCode::Char('j'));
    let (id, site) = {
        let t = app.tree.as_ref().unwrap();
        let Some(Row::Node(i)) = app.selected_tree_row() else {
            panic!("a caller row")
        };
        let n = &t.nodes[i];
        let s = n.via.as_ref().unwrap().sites[0].clone();
        (n.id.to_string(), format!("{}:{}", s.file, s.line))
    };
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(
        app.status.message.as_deref(),
        Some(format!("{id} (clipboard_osc52 = true in the config copies it)").as_str())
    );
    assert_eq!(app.clipboard, None, "no clipboard without the opt-in");
    app.settings.osc52 = true;
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(app.status.message, Some(format!("copied {id}")));
    assert_eq!(app.clipboard.take(), Some(id.clone()));
    key(&mut app, KeyCode::Char('Y'));
    assert_eq!(app.clipboard.take(), Some(site.clone()));
    assert!(site.starts_with("app/") && site.contains(".py:"), "{site}");
    // The source panel: the cursor's line, and the definition around it.
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Source);
    key(&mut app, KeyCode::Char('Y'));
    let loc = app.clipboard.take().unwrap();
    assert_eq!(
        loc,
        format!("{}:{}", app.source.path, app.source.editor_line())
    );
    key(&mut app, KeyCode::Char('y'));
    let around = app.clipboard.take().unwrap();
    assert!(
        around.starts_with(&format!("{}::", app.source.path)),
        "{around}"
    );
    // The search box types `y`; nothing is copied from there but by the panels.
    key(&mut app, KeyCode::Char('/'));
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(app.clipboard, None);
    assert!(app.search.query.ends_with('y'));
}
