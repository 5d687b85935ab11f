//! The outline (`o`): the shown file's definitions in source order, nested, with kinds,
//! lines and caller counts; the source follows the selection; Enter shows a member's
//! callers in the tree.

use codegraph_tui::tui::app::Focus;
use ratatui::crossterm::event::KeyCode;

use super::{key, python, screen, snapshot, typ};

#[test]
fn the_outline_lists_the_file_and_enter_shows_a_members_callers() {
    let mut app = python();
    typ(&mut app, "Router.dispatch");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('o'));
    assert_eq!(app.focus, Focus::Tree);
    let o = app.outline.as_ref().expect("outline");
    assert_eq!(&*o.file, "app/router.py");
    let names: Vec<(u32, &str, u32)> = o.rows.iter().map(|r| (r.depth, &*r.name, r.line)).collect();
    assert_eq!(
        &names[..6],
        &[
            (0, "Route", 4),
            (1, "__init__", 5),
            (1, "matches", 10),
            (1, "bind", 15),
            (0, "Router", 25),
            (1, "__init__", 26),
        ],
        "{names:?}"
    );
    assert!(names.contains(&(2, "decorator", 35)), "{names:?}");
    assert_eq!(names.last(), Some(&(0, "parse_query", 65)));
    // The shown symbol is selected.
    assert_eq!(
        &**o.selected_id().unwrap(),
        "app/router.py::Router.dispatch"
    );
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Outline of app/router.py"), "{s}");
    assert!(s.contains("me dispatch :40"), "{s}");
    assert!(
        s.contains("Router.dispatch (outline) · app/router.py :40-46"),
        "{s}"
    );
    snapshot("outline_router", s);
    // The source follows the outline's selection.
    // G: the last row, parse_query, whose definition is lines 65-73 of router.py.
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(app.source.path, "app/router.py");
    assert_eq!(app.source.range, Some((65, 73)));
    assert!(screen(&mut app, 120, 30).contains("parse_query (outline)"));
    // Enter: the member's callers, in the tree again.
    key(&mut app, KeyCode::Enter);
    assert!(app.outline.is_none());
    assert_eq!(
        &**app.tree.as_ref().unwrap().root(),
        "app/router.py::parse_query"
    );
    assert!(screen(&mut app, 120, 30).contains("Callers of parse_query"));
    // o and o again: back to the same tree.
    key(&mut app, KeyCode::Char('o'));
    assert!(app.outline.is_some());
    key(&mut app, KeyCode::Char('o'));
    assert!(app.outline.is_none());
    assert!(screen(&mut app, 120, 30).contains("Callers of parse_query"));
}

/// A click in the outline selects its row (not the hidden tree's).
#[test]
fn a_click_selects_an_outline_row() {
    use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let mut app = python();
    typ(&mut app, "Router.dispatch");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('o'));
    screen(&mut app, 120, 30);
    let a = app.areas.tree;
    app.mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: a.x + 4,
        row: a.y + 1,
        modifiers: KeyModifiers::NONE,
    });
    let o = app.outline.as_ref().unwrap();
    assert_eq!(o.selected, o.offset);
    assert_eq!(
        app.source.shows.as_ref().map(|s| s.0.as_str()),
        Some(&*o.rows[o.selected].name)
    );
}
