//! Go to definition from the source panel: the cursor moves by line and word, Enter on a
//! call follows the graph's edge of that call site, a name with several definitions lists
//! them, Back returns, `e` opens the editor at the cursor's line.

use codegraph_tui::tui::app::{External, Focus};
use codegraph_tui::tui::lists::ListKind;
use ratatui::crossterm::event::KeyCode;

use super::{draw, key, python, screen, snapshot, typ};

/// Router.dispatch focused, then the source panel (Tab from the tree).
fn in_dispatch_source() -> codegraph_tui::tui::App {
    let mut app = python();
    typ(&mut app, "Router.dispatch");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Source);
    app
}

/// The source panel's highlighted word (the cursor's, drawn in the selection colours)
/// and its line number, read from a `w`×`h` screen.
fn cursor_on_screen(app: &mut codegraph_tui::tui::App, w: u16, h: u16) -> Option<(u32, String)> {
    let sel = app.theme.get("ui.selection").bg;
    let t = draw(app, w, h);
    let buf = t.backend().buffer();
    let a = app.areas.source;
    for y in a.y + 1..a.y + a.height - 1 {
        let row: Vec<_> = (a.x + 1..a.x + a.width - 1).map(|x| &buf[(x, y)]).collect();
        let word: String = row
            .iter()
            .filter(|c| sel.is_some() && c.bg == sel.unwrap())
            .map(|c| c.symbol())
            .collect();
        if !word.is_empty() {
            let line: String = row
                .iter()
                .map(|c| c.symbol())
                .take_while(|s| *s != "▌")
                .collect();
            return Some((line.trim().parse().ok()?, word));
        }
    }
    None
}

#[test]
fn enter_on_a_call_goes_to_its_definition_and_back_returns() {
    let mut app = in_dispatch_source();
    // Drawn once, as the app draws before it reads a key: the panel knows its height.
    screen(&mut app, 120, 30);
    // The cursor starts on the definition's first word.
    assert_eq!(app.source.cursor, Some((40, 5)));
    key(&mut app, KeyCode::Down);
    assert_eq!(app.source.cursor, Some((41, 9)), "onto `segments`");
    key(&mut app, KeyCode::Char('l'));
    assert_eq!(app.source.cursor, Some((41, 20)), "onto `split_path`");
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("segments = split_path(request"), "{s}");
    assert_eq!(
        cursor_on_screen(&mut app, 120, 30),
        Some((41, "split_path".to_string()))
    );
    snapshot("goto_cursor_on_split_path", s);
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        &**app.tree.as_ref().unwrap().root(),
        "app/router.py::split_path"
    );
    assert_eq!(app.focus, Focus::Source, "the source keeps the keyboard");
    assert_eq!(app.source.range, Some((57, 58)));
    assert_eq!(app.source.cursor, Some((57, 1)));
    let msg = app.status.message.clone().unwrap();
    assert!(msg.contains("split_path: the call's definition"), "{msg}");
    assert_eq!(
        cursor_on_screen(&mut app, 120, 30),
        Some((57, "def".to_string()))
    );
    snapshot("goto_after_jump_to_split_path", screen(&mut app, 120, 30));
    // `e` opens the editor at the cursor's line.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char('e'));
    match app.pending.take() {
        Some(External::Editor { path, line }) => {
            assert!(path.ends_with("app/router.py"), "{path:?}");
            assert_eq!(line, 58);
        }
        other => panic!("{other:?}"),
    }
    // Back: the previous root again.
    key(&mut app, KeyCode::Backspace);
    assert_eq!(
        &**app.tree.as_ref().unwrap().root(),
        "app/router.py::Router.dispatch"
    );
    assert_eq!(app.source.range, Some((40, 46)));
}

#[test]
fn a_name_with_several_definitions_lists_them_and_enter_goes_to_one() {
    let mut app = in_dispatch_source();
    // Up to line 26, `def __init__(self, prefix="")`; the column moved on to the
    // indented words on the way (`return` of line 38), so the cursor is on `__init__`.
    for _ in 0..14 {
        key(&mut app, KeyCode::Up);
    }
    assert_eq!(app.source.cursor, Some((26, 9)));
    key(&mut app, KeyCode::Char('w'));
    key(&mut app, KeyCode::Char('b'));
    assert_eq!(app.source.cursor, Some((26, 9)));
    key(&mut app, KeyCode::Enter);
    let l = app.list.as_ref().expect("the candidates");
    assert_eq!(l.kind, ListKind::Definitions);
    let ids: Vec<String> = l
        .rows
        .iter()
        .filter_map(|r| r.id.as_deref().map(String::from))
        .collect();
    assert!(ids.len() >= 2, "{ids:?}");
    assert!(
        ids.iter().any(|i| i == "app/router.py::Router.__init__"),
        "{ids:?}"
    );
    assert!(
        ids.iter().any(|i| i == "app/router.py::Route.__init__"),
        "{ids:?}"
    );
    assert_eq!(app.focus, Focus::Tree);
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Definitions of __init__"), "{s}");
    snapshot("goto_definitions_list", s);
    let first = ids[0].clone();
    key(&mut app, KeyCode::Enter);
    assert!(app.list.is_none());
    assert_eq!(&**app.tree.as_ref().unwrap().root(), first);
    assert_eq!(app.focus, Focus::Source);
}

#[test]
fn a_name_without_a_definition_says_so() {
    let mut app = in_dispatch_source();
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char('l'));
    key(&mut app, KeyCode::Char('l'));
    // `request`, a parameter: no definition in the index.
    assert_eq!(app.source.cursor, Some((41, 31)));
    key(&mut app, KeyCode::Enter);
    let msg = app.status.message.clone().unwrap();
    assert!(msg.contains("no definition named request"), "{msg}");
    assert_eq!(
        &**app.tree.as_ref().unwrap().root(),
        "app/router.py::Router.dispatch"
    );
}
