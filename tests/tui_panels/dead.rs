//! The dead-code view (`D`): the repository's candidates in the tree's place, the lower
//! bound noted per row, Enter goes to one, `D` again brings the tree back.

use codegraph_tui::tui::app::Focus;
use codegraph_tui::tui::lists::ListKind;
use ratatui::crossterm::event::KeyCode;

use super::{focused_render_json, inner_rows, key, screen, snapshot};

#[test]
fn the_dead_code_view_lists_candidates_and_enter_goes_to_one() {
    let mut app = focused_render_json();
    key(&mut app, KeyCode::Char('D'));
    let l = app.list.as_ref().expect("the dead-code view");
    assert_eq!(l.kind, ListKind::Dead);
    assert_eq!(app.focus, Focus::Tree);
    let rows: Vec<(String, String)> = l
        .rows
        .iter()
        .filter_map(|r| r.id.as_deref().map(|id| (id.to_string(), r.note.clone())))
        .collect();
    // `configure.static_root` has no callers but `@router.route` registers it: an entry
    // point, not a candidate.
    let want = [
        ("app/render.py::render_list", ""),
        ("app/store.py::AuditLog.save", "maybe used (2 unresolved)"),
        ("app/store.py::MemoryStore.load", ""),
        (
            "app/store.py::MemoryStore.save",
            "maybe used (2 unresolved)",
        ),
        ("app/store.py::parse_query", ""),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(rows, want);
    assert_eq!(l.rows[0].text, "5 candidates, 2 maybe used");
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Dead-code candidates in the repository"), "{s}");
    snapshot("dead_code_view", s);
    // Enter on the first candidate: its callers (none), the source on it.
    key(&mut app, KeyCode::Enter);
    assert!(app.list.is_none());
    assert_eq!(
        &**app.tree.as_ref().unwrap().root(),
        "app/render.py::render_list"
    );
    // D twice: the view, then the tree again.
    key(&mut app, KeyCode::Char('D'));
    assert!(app.list.is_some());
    key(&mut app, KeyCode::Char('D'));
    assert!(app.list.is_none());
}

/// At 100 columns the list is narrow: the `maybe used` note gives way (shortened, then
/// dropped) before the names' last two segments and the file and line, so the two `save`
/// methods stay told apart and each row still says where it is.
#[test]
fn narrow_dead_code_rows_keep_the_class_and_the_line() {
    let mut app = focused_render_json();
    key(&mut app, KeyCode::Char('D'));
    let s = screen(&mut app, 100, 30);
    let a = app.areas.tree;
    let rows: Vec<String> = inner_rows(&s, a, 0);
    for (name, line) in [("AuditLog.save", 28), ("MemoryStore.save", 9)] {
        let row = rows
            .iter()
            .find(|r| r.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no whole {name} row:\n{s}"));
        assert!(
            row.trim_end().ends_with(&format!("store.py:{line}")),
            "{row:?}\n{s}"
        );
    }
    for r in rows
        .iter()
        .filter(|r| r.contains("me ") || r.contains("fn "))
    {
        assert!(
            r.trim_end()
                .rsplit(':')
                .next()
                .unwrap()
                .parse::<u32>()
                .is_ok(),
            "{r:?}"
        );
    }
}
