//! What the screen shows whatever the state: the help overlay, monochrome, control
//! characters from files, the status bar's skip count, and a resize.

use codegraph_tui::tui::app::Overlay;
use codegraph_tui::tui::keymap::{Scope, BINDINGS};
use codegraph_tui::tui::Theme;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Modifier;

use super::{app_on, common, draw, key, python, screen, snapshot, typ};

#[test]
fn help_lists_every_binding() {
    let mut app = python();
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('?'));
    assert!(matches!(app.overlay, Overlay::Help(_)));
    let s = screen(&mut app, 100, 60);
    for b in BINDINGS {
        assert!(s.contains(b.label), "help lacks {}", b.label);
        assert!(s.contains(b.help), "help lacks {}", b.help);
        let _ = b.scope == Scope::Global;
    }
    // Every line whole where the screen is wide enough: the overlay is not narrower than
    // the legend's lines.
    for legend in [
        "tiers: [local] [import] [qualified] most to least certain;",
        "[unique_name] a guess (dimmed); [ref …] used as a value, not called",
    ] {
        assert!(s.contains(legend), "help cuts {legend:?}:\n{s}");
    }
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn monochrome_still_shows_the_selection() {
    let mut app = app_on(&common::fixture("python"), Theme::monochrome());
    typ(&mut app, "render_json");
    key(&mut app, KeyCode::Enter);
    let t = draw(&mut app, 100, 30);
    let buf = t.backend().buffer();
    let area = app.areas.tree;
    let sel = &buf[(area.x + 3, area.y + 1)];
    assert!(sel.modifier.contains(Modifier::REVERSED), "{sel:?}");
    let colours = buf
        .content()
        .iter()
        .any(|c| !matches!(c.fg, ratatui::style::Color::Reset));
    assert!(!colours, "monochrome drew a colour");
}

#[test]
fn control_characters_from_files_and_names_are_shown_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("evil.py"),
        "def evil():\n    return '\x1b[2J\x1b]0;pwned\x07'\n\ndef caller():\n    evil()\n",
    )
    .unwrap();
    let mut app = app_on(dir.path(), Theme::load("dark", None).unwrap());
    typ(&mut app, "evil");
    key(&mut app, KeyCode::Enter);
    let s = screen(&mut app, 100, 30);
    assert!(!s.contains('\x1b') && !s.contains('\x07'), "{s:?}");
    assert!(s.contains("\\x1b[2J"), "{s}");
    assert!(s.contains("caller"), "{s}");
}

#[test]
fn the_status_bar_counts_files_left_out_of_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture("python");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::write(dir.path().join("blob.py"), b"def f():\n\x00\x01\x02 pass\n").unwrap();
    std::fs::write(dir.path().join("latin1.py"), b"s = '\xe9t\xe9'\n").unwrap();
    let mut app = app_on(dir.path(), Theme::load("dark", None).unwrap());
    let s = screen(&mut app, 160, 30);
    let status = s.lines().last().unwrap();
    assert!(status.contains("· 2 skipped"), "{status}");
    // Nothing left out: nothing said.
    let mut app = python();
    let s = screen(&mut app, 160, 30);
    assert!(!s.lines().last().unwrap().contains("skipped"), "{s}");
}

/// Shrinking the terminal keeps the shown definition on screen in the source panel (it
/// stayed scrolled for the tall panel, with the definition below the new bottom).
#[test]
fn a_resize_keeps_the_definition_in_the_source_panel() {
    let mut app = python();
    // Drawn tall first, so the definition is placed for the tall panel.
    screen(&mut app, 160, 45);
    typ(&mut app, "parse_query");
    key(&mut app, KeyCode::Enter);
    let tall = screen(&mut app, 160, 45);
    assert!(tall.contains("def parse_query"), "{tall}");
    let short = screen(&mut app, 60, 16);
    assert!(short.contains("def parse_query"), "{short}");
}

/// `S` lists the files left out of the index with the reason of each.
#[test]
fn the_skipped_files_are_listed_with_their_reasons() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ok.py"), "def f():\n    pass\n").unwrap();
    std::fs::write(dir.path().join("blob.py"), b"def f():\n\x00\x01\x02 pass\n").unwrap();
    let mut app = app_on(dir.path(), Theme::load("dark", None).unwrap());
    let s = screen(&mut app, 160, 30);
    assert!(s.contains("· 1 skipped"), "{s}");
    assert!(s.contains("1 file · 1 symbol · 0 calls"), "{s}");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('S'));
    assert_eq!(app.overlay, Overlay::Skipped(0));
    let s = screen(&mut app, 160, 30);
    assert!(s.contains("1 file left out of the index"), "{s}");
    assert!(
        s.contains("blob.py  binary (a NUL byte, or not UTF-8)"),
        "{s}"
    );
    snapshot("skipped_files_overlay", screen(&mut app, 100, 24));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, Overlay::None);
    // Nothing left out: the key says so.
    let mut app = python();
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('S'));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(
        app.status.message.as_deref(),
        Some("no file was left out of the index")
    );
}

/// A message (here where an export went) is shown whole: the counts give way to it.
#[test]
fn a_status_message_wins_over_the_counts() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("a-rather-long-folder-name/for-the-exports");
    std::fs::create_dir_all(&deep).unwrap();
    let out = deep.join("callers-of-render-json.json");
    let mut app = super::focused_render_json();
    app.export(out.to_str().unwrap(), false);
    let msg = app.status.message.clone().unwrap();
    assert!(msg.starts_with("exported ") && msg.ends_with("callers-of-render-json.json"));
    let width = (msg.chars().count() + 20) as u16;
    let s = screen(&mut app, width.max(100), 30);
    let status = s.lines().last().unwrap();
    assert!(status.contains(&msg), "{status}");
}

/// The help scrolls with every movement key (PgDn, G, g) and closes with Esc.
#[test]
fn help_scrolls_with_page_keys_and_g() {
    let mut app = python();
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('?'));
    screen(&mut app, 100, 24);
    key(&mut app, KeyCode::PageDown);
    let Overlay::Help(after_page) = app.overlay else {
        panic!("PgDn closed the help")
    };
    assert!(after_page > 1, "{after_page}");
    key(&mut app, KeyCode::Char('G'));
    screen(&mut app, 100, 24);
    let Overlay::Help(bottom) = app.overlay else {
        panic!("G closed the help")
    };
    let s = screen(&mut app, 100, 24);
    assert!(s.contains("mouse: click selects"), "the end is shown: {s}");
    // One step up from the bottom moves (the scroll was clamped to the text).
    key(&mut app, KeyCode::Up);
    assert_eq!(app.overlay, Overlay::Help(bottom - 1));
    key(&mut app, KeyCode::Char('g'));
    assert_eq!(app.overlay, Overlay::Help(0));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, Overlay::None);
}

/// The source panel follows the selection (of the search or the tree), which need not be
/// the tree's root the impact panel shows: its title names the symbol and the panel.
#[test]
fn each_panel_says_which_symbol_it_shows() {
    let mut app = super::focused_render_json();
    for k in [
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Char('l'),
        KeyCode::Down,
    ] {
        key(&mut app, k);
    }
    let s = screen(&mut app, 140, 30);
    assert!(s.contains("Callers of render_json"), "{s}");
    assert!(s.contains("Impact of render_json"), "{s}");
    assert!(s.contains("build_app (tree) · app/main.py :25-26"), "{s}");
    key(&mut app, KeyCode::Char('/'));
    super::ctrl(&mut app, 'u');
    typ(&mut app, "parse_query");
    let s = screen(&mut app, 140, 30);
    assert!(s.contains("parse_query (search) · app/router.py"), "{s}");
    assert!(s.contains("Impact of render_json"), "{s}");
}

/// Long lists say where the selection is: `row 120/904` in the search, the tree, the
/// impact list.
#[test]
fn long_lists_show_the_selected_row_position() {
    let dir = tempfile::tempdir().unwrap();
    let mut src = String::from("def leaf():\n    return 1\n\n");
    for i in 0..40 {
        src.push_str(&format!("def caller_{i:02}():\n    return leaf()\n\n"));
    }
    std::fs::write(dir.path().join("a.py"), src).unwrap();
    let mut app = app_on(dir.path(), Theme::load("dark", None).unwrap());
    typ(&mut app, "caller");
    for _ in 0..5 {
        key(&mut app, KeyCode::Down);
    }
    assert!(screen(&mut app, 100, 30).contains("row 6/40"));
    super::ctrl(&mut app, 'u');
    typ(&mut app, "leaf");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('G'));
    let n = app.tree_rows().len();
    assert_eq!(n, 41);
    assert!(screen(&mut app, 100, 30).contains("row 41/41"));
}

/// A narrow source panel cuts the path in its title, not the definition's line range.
#[test]
fn the_source_title_keeps_its_range_when_narrow() {
    let mut app = python();
    screen(&mut app, 160, 45);
    typ(&mut app, "parse_query");
    key(&mut app, KeyCode::Enter);
    let s = screen(&mut app, 60, 16);
    let top = s.lines().next().unwrap();
    assert!(top.contains(":65-73"), "{top}");
    assert!(s.contains("def parse_query"), "{s}");
}

/// A lasting notice (the cache's state) follows the counts: they stay on screen.
#[test]
fn a_cache_notice_does_not_push_the_counts_off() {
    let mut app = python();
    app.status.notice = Some(
        "up to date (checked in 9 ms); cache read-only (another instance holds the lock)".into(),
    );
    let s = screen(&mut app, 100, 30);
    let status = s.lines().last().unwrap();
    assert!(
        status.contains("7 files · 38 symbols · 35 calls"),
        "{status}"
    );
    assert!(status.contains("up to date"), "{status}");
}
