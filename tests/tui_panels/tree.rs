//! The call tree: cycles, the filters, the mouse, and export of exactly the rows shown.

use codegraph_tui::tui::app::{Focus, Overlay};
use codegraph_tui::tui::{App, Theme};
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

use super::{app_on, ctrl, draw, focused_render_json, key, python, screen, typ};

#[test]
fn recursion_is_marked_as_a_cycle_and_not_expanded() {
    let mut app = python();
    typ(&mut app, "router.parse_query");
    assert_eq!(
        &*app.search.get(0).unwrap().id,
        "app/router.py::parse_query"
    );
    key(&mut app, KeyCode::Enter);
    let s = screen(&mut app, 100, 30);
    assert!(s.contains("↻ fn parse_query [local] cycle"), "{s}");
    let t = app.tree.as_ref().unwrap();
    let cyc = t.nodes.iter().position(|n| n.cycle).unwrap();
    let before = t.nodes.len();
    let row = app
        .tree_rows()
        .iter()
        .position(|r| *r == codegraph_tui::tui::tree::Row::Node(cyc))
        .unwrap();
    app.tree.as_mut().unwrap().selected = row;
    key(&mut app, KeyCode::Char('l'));
    assert_eq!(app.tree.as_ref().unwrap().nodes.len(), before);
    assert!(app.status.message.as_deref().unwrap().contains("cycle"));
}

#[test]
fn filters_hide_tests_and_unique_name_edges() {
    let mut app = python();
    typ(&mut app, "main.configure");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('c'));
    let rows = app.tree_rows().len();
    assert!(screen(&mut app, 100, 30).contains("[unique_name]"));
    key(&mut app, KeyCode::Char('u'));
    assert!(app.filters.hide_unique_name);
    let s = screen(&mut app, 100, 30);
    assert!(s.contains("[-guessed]"), "{s}");
    assert!(!s.contains("[unique_name]"), "{s}");
    assert!(app.tree_rows().len() < rows);
    key(&mut app, KeyCode::Char('u'));
    assert_eq!(app.tree_rows().len(), rows);
    // The python fixture has no test code: hiding tests changes nothing but the title.
    key(&mut app, KeyCode::Char('t'));
    assert!(app.filters.hide_tests);
    assert!(screen(&mut app, 100, 30).contains("[-tests]"));
    assert_eq!(app.tree_rows().len(), rows);
}

#[test]
fn mouse_click_selects_and_wheel_scrolls() {
    use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut app = focused_render_json();
    draw(&mut app, 100, 30);
    let a = app.areas.tree;
    app.mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: a.x + 5,
        row: a.y + 3,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.tree.as_ref().unwrap().selected, 2);
    let s = app.areas.source;
    let before = app.source.scroll;
    app.mouse(MouseEvent {
        kind: MouseEventKind::ScrollUp,
        column: s.x + 5,
        row: s.y + 3,
        modifiers: KeyModifiers::NONE,
    });
    assert!(
        app.source.scroll + 3 == before,
        "{} {} {}",
        before,
        app.source.scroll,
        app.source.lines.len()
    );
    assert_eq!(app.focus, Focus::Tree);
}

/// `x` exports what the tree shows: the nodes of the visible rows (collapsed branches and
/// filtered rows left out), one edge per row to its parent, and the unresolved count the
/// "?" rows show; `truncated` says the graph holds more.
#[test]
fn export_holds_exactly_the_rows_on_screen() {
    use codegraph_tui::tui::tree::Row;
    let dir = tempfile::tempdir().unwrap();
    // The callees of configure: one reached by a unique-name guess, which `u` hides.
    let mut app = python();
    typ(&mut app, "configure");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('c'));
    // Expand the first callee, leave the others collapsed.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char('l'));
    let export = |app: &mut App, name: &str| -> serde_json::Value {
        let path = dir.path().join(name);
        key(app, KeyCode::Char('x'));
        ctrl(app, 'u');
        typ(app, path.to_str().unwrap());
        key(app, KeyCode::Enter);
        assert_eq!(app.overlay, Overlay::None);
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
    };
    for (name, toggle) in [("all.json", None), ("no-unique.json", Some('u'))] {
        if let Some(c) = toggle {
            key(&mut app, KeyCode::Char(c));
        }
        let rows = app.tree_rows();
        let tree = app.tree.as_ref().unwrap();
        let mut shown: Vec<String> = rows
            .iter()
            .filter_map(|r| match r {
                Row::Node(i) => Some(tree.nodes[*i].id.to_string()),
                _ => None,
            })
            .collect();
        let node_rows = shown.len();
        shown.sort();
        shown.dedup();
        let unresolved: u32 = rows
            .iter()
            .map(|r| match r {
                Row::Unresolved { count, .. } => *count,
                _ => 0,
            })
            .sum();
        let v = export(&mut app, name);
        let ids: Vec<String> = v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids, shown, "{name}: exported nodes are the rows on screen");
        let edges = v["edges"].as_array().unwrap();
        assert_eq!(edges.len(), node_rows - 1, "{name}: one edge per row");
        for e in edges {
            assert!(shown.contains(&e["source"].as_str().unwrap().to_string()));
            assert!(shown.contains(&e["target"].as_str().unwrap().to_string()));
        }
        assert_eq!(v["unresolved"], unresolved as u64, "{name}");
        assert_eq!(v["direction"], "callees");
        assert_eq!(v["root"], "app/main.py::configure");
    }
    // The filter hid at least one row, so the two exports differ.
    let all: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("all.json")).unwrap()).unwrap();
    let filtered: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("no-unique.json")).unwrap()).unwrap();
    assert!(
        filtered["nodes"].as_array().unwrap().len() < all["nodes"].as_array().unwrap().len(),
        "the unique-name filter hid nothing: the test does not test it"
    );
}

#[test]
fn a_filter_toggle_keeps_the_selected_symbol() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    std::fs::write(repo.join("a.py"), "def leaf():\n    return 1\n").unwrap();
    for (file, caller) in [
        ("b.py", "def other():\n    return leaf()\n"),
        (
            "tests/test_leaf.py",
            "def test_leaf():\n    assert leaf()\n",
        ),
        ("z.py", "def zed():\n    return leaf()\n"),
    ] {
        std::fs::write(repo.join(file), format!("from a import leaf\n\n\n{caller}")).unwrap();
    }
    let theme = Theme::load("dark", None).unwrap();
    let mut app = app_on(&repo, theme);
    typ(&mut app, "leaf");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Tab);
    let selected = |app: &App| {
        app.selected_tree_node()
            .map(|i| app.tree.as_ref().unwrap().nodes[i].id.to_string())
    };
    let select = |app: &mut App, id: &str| {
        let rows = app.tree_rows();
        let t = app.tree.as_mut().unwrap();
        t.selected = rows
            .iter()
            .position(
                |r| matches!(r, codegraph_tui::tui::tree::Row::Node(i) if &*t.nodes[*i].id == id),
            )
            .unwrap();
    };
    select(&mut app, "z.py::zed");
    for _ in 0..2 {
        key(&mut app, KeyCode::Char('t'));
        assert_eq!(
            selected(&app).as_deref(),
            Some("z.py::zed"),
            "rows moved under it"
        );
    }
    assert!(app.source.path.ends_with("z.py"), "{}", app.source.path);
    // The selected row hidden: its nearest shown ancestor, the root.
    select(&mut app, "tests/test_leaf.py::test_leaf");
    key(&mut app, KeyCode::Char('t'));
    assert_eq!(selected(&app).as_deref(), Some("a.py::leaf"));
}

/// Back and forward bring a visited root's tree back as it was left: its expanded nodes
/// and its selection, also after a new snapshot arrived in between.
#[test]
fn back_and_forward_restore_expanded_nodes_and_the_selection() {
    let (_tmp, repo, mut app) = super::python_copy();
    typ(&mut app, "render_json");
    key(&mut app, KeyCode::Enter);
    // Expand configure (third caller) and select build_app under it.
    for k in [
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Char('l'),
    ] {
        key(&mut app, k);
    }
    key(&mut app, KeyCode::Down);
    let selected = |app: &App| {
        app.selected_tree_node()
            .map(|i| app.tree.as_ref().unwrap().nodes[i].id.to_string())
    };
    assert_eq!(selected(&app).as_deref(), Some("app/main.py::build_app"));
    // The rows (id, expanded) and the selected row.
    let state = |app: &App| {
        let t = app.tree.as_ref().unwrap();
        let rows: Vec<(String, bool)> = app
            .tree_rows()
            .iter()
            .filter_map(|r| match r {
                codegraph_tui::tui::tree::Row::Node(i) => {
                    Some((t.nodes[*i].id.to_string(), t.nodes[*i].expanded))
                }
                _ => None,
            })
            .collect();
        (rows, t.selected)
    };
    let before = state(&app);
    assert!(screen(&mut app, 100, 30).contains("▾ fn configure"));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        &**app.tree.as_ref().unwrap().root(),
        "app/main.py::build_app"
    );
    // Expand something in the second tree too.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char('l'));
    let second = state(&app);
    key(&mut app, KeyCode::Backspace);
    assert_eq!(selected(&app).as_deref(), Some("app/main.py::build_app"));
    assert_eq!(state(&app), before, "the tree came back changed");
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(state(&app), second);
    // A new snapshot in between: the tree is carried over to it.
    super::reindex(&mut app, &repo, 2);
    key(&mut app, KeyCode::Backspace);
    assert_eq!(selected(&app).as_deref(), Some("app/main.py::build_app"));
    assert_eq!(state(&app), before);
}

/// `t` hides what the impact panel counts as tests, by the same rules: a library's
/// `testing/` helpers are code, not tests.
#[test]
fn the_test_filter_agrees_with_the_impact_test_count() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("pkg/testing")).unwrap();
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    std::fs::write(repo.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(repo.join("pkg/core.py"), "def leaf():\n    return 1\n").unwrap();
    std::fs::write(repo.join("pkg/testing/__init__.py"), "").unwrap();
    std::fs::write(
        repo.join("pkg/testing/helpers.py"),
        "from pkg.core import leaf\n\n\ndef assert_leaf():\n    assert leaf()\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("tests/test_core.py"),
        "from pkg.core import leaf\n\n\ndef test_leaf():\n    assert leaf()\n",
    )
    .unwrap();
    let theme = Theme::load("dark", None).unwrap();
    let mut app = app_on(&repo, theme);
    typ(&mut app, "core.leaf");
    key(&mut app, KeyCode::Enter);
    let tests = app.impact.as_ref().unwrap().report.tests.clone();
    assert_eq!(
        tests,
        vec!["tests/test_core.py::test_leaf".to_string()],
        "{tests:?}"
    );
    key(&mut app, KeyCode::Char('t'));
    let t = app.tree.as_ref().unwrap();
    let shown: Vec<&str> = app
        .tree_rows()
        .iter()
        .filter_map(|r| match r {
            codegraph_tui::tui::tree::Row::Node(i) => Some(&*t.nodes[*i].id),
            _ => None,
        })
        .collect();
    assert_eq!(
        shown,
        vec!["pkg/core.py::leaf", "pkg/testing/helpers.py::assert_leaf"]
    );
}
