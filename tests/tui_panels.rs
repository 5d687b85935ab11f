//! The TUI in-process: each panel drawn on ratatui's `TestBackend` and snapshotted with
//! insta, and scenario tests that feed keys to the app and check state and screen
//! (search, expand, re-root, back/forward, callees, filters, export, sizes, safety).
//!
//! This file holds the helpers and the tests with insta snapshots (their `.snap` files in
//! `snapshots/` keep this binary's name); the scenario tests are in `tui_panels/` by
//! topic: `search` (the search box), `tree` (the call tree), `display` (what any screen
//! shows), `dead` (the dead-code view), `expand` (expand to depth, copy), `explain` (what Enter does on each kind of row), `goto` (go to definition from the source), `impact` (the impact list),
//! `lists` (type hierarchy, references), `outline` (the outline view), `rows` (rows cut to a panel's width) and `updates` (new snapshots while the app
//! runs).

mod common;

#[path = "tui_panels/dead.rs"]
mod dead;
#[path = "tui_panels/display.rs"]
mod display;
#[path = "tui_panels/expand.rs"]
mod expand;
#[path = "tui_panels/explain.rs"]
mod explain;
#[path = "tui_panels/goto.rs"]
mod goto;
#[path = "tui_panels/impact.rs"]
mod impact;
#[path = "tui_panels/lists.rs"]
mod lists;
#[path = "tui_panels/outline.rs"]
mod outline;
#[path = "tui_panels/rows.rs"]
mod rows;
#[path = "tui_panels/search.rs"]
mod search;
#[path = "tui_panels/tree.rs"]
mod tree;
#[path = "tui_panels/updates.rs"]
mod updates;

use std::sync::Arc;
use std::time::Duration;

use codegraph_tui::index::Walk;
use codegraph_tui::tui::app::{Focus, Overlay};
use codegraph_tui::tui::panels;
use codegraph_tui::tui::{App, Theme};
use codegraph_tui::worker::Snapshot;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Modifier;
use ratatui::Terminal;

/// A new app on `root` with no snapshot yet, and no background search-index build: the
/// panels' pictures stay the same whatever that build's timing
/// (`search::the_search_index_builds_in_the_background` tests the build).
fn new_app(root: std::path::PathBuf, theme: Theme) -> App {
    let mut app = App::new(root, theme);
    app.settings.search_prebuild = codegraph_tui::index::search::Prebuild::Off;
    app
}

/// The app on an index of `root`, its snapshot installed ([`new_app`]).
fn app_on(root: &std::path::Path, theme: Theme) -> App {
    let idx = common::index(root, 2);
    let root = idx.root.clone().expect("root");
    let mut app = new_app(root, theme);
    app.set_snapshot(Arc::new(Snapshot::new(1, idx, Duration::ZERO)));
    app.search.settle();
    app.tick();
    app
}

/// The app on a copy of the Python fixture that a test may edit: (guard, repo, app).
fn python_copy() -> (tempfile::TempDir, std::path::PathBuf, App) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::copy_dir(&common::fixture("python"), &repo);
    let app = app_on(&repo, Theme::load("dark", None).unwrap());
    (tmp, repo, app)
}

/// A new index of `repo` handed to `app`, as the worker publishes one after an edit.
fn reindex(app: &mut App, repo: &std::path::Path, generation: u64) {
    app.set_snapshot(Arc::new(Snapshot::new(
        generation,
        common::index(repo, 2),
        Duration::ZERO,
    )));
}

fn python() -> App {
    app_on(
        &common::fixture("python"),
        Theme::load("dark", None).unwrap(),
    )
}

fn key(app: &mut App, code: KeyCode) {
    app.key(KeyEvent::new(code, KeyModifiers::NONE));
    app.search.settle();
    app.tick();
}

fn ctrl(app: &mut App, c: char) {
    app.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
}

fn typ(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn draw(app: &mut App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| panels::draw(f, app)).unwrap();
    t
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let t = draw(app, w, h);
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// The text inside a panel's border: the rows of `area` below its top border (and
/// `skip` more), each cut to the columns inside the side borders.
fn inner_rows(screen: &str, area: ratatui::layout::Rect, skip: usize) -> Vec<String> {
    let (x0, y0) = (area.x as usize + 1, area.y as usize + 1 + skip);
    let (x1, y1) = (
        (area.x + area.width) as usize - 1,
        (area.y + area.height) as usize - 1,
    );
    screen
        .lines()
        .skip(y0)
        .take(y1.saturating_sub(y0))
        .map(|l| l.chars().skip(x0).take(x1 - x0).collect::<String>())
        .collect()
}

/// A snapshot taken in a topic module, filed like this file's (`snapshots/tui_panels__NAME`).
fn snapshot(name: &str, screen: String) {
    insta::assert_snapshot!(name, screen);
}

/// Search "render_json", Enter: the call tree shows its callers.
fn focused_render_json() -> App {
    let mut app = python();
    typ(&mut app, "render_json");
    key(&mut app, KeyCode::Enter);
    app
}

#[test]
fn search_panel_ranks_and_marks_matches() {
    let mut app = python();
    typ(&mut app, "rndr");
    assert!(app.search.matched() >= 3, "{}", app.search.matched());
    let first = app.search.get(0).unwrap().qualified_name.to_string();
    assert!(first.starts_with("app.render.render_"), "{first}");
    insta::assert_snapshot!("search_rndr", screen(&mut app, 100, 30));
    // Matched chars carry the match style (underlined in the dark theme).
    let t = draw(&mut app, 100, 30);
    let buf = t.backend().buffer();
    let row: Vec<_> = (0..45).map(|x| &buf[(x, 2)]).collect();
    let marked: String = row
        .iter()
        .filter(|c| c.modifier.contains(Modifier::UNDERLINED))
        .map(|c| c.symbol())
        .collect();
    assert_eq!(marked, "rndr");
}

#[test]
fn enter_shows_callers_with_tiers_source_and_impact() {
    let mut app = focused_render_json();
    assert_eq!(app.focus, Focus::Tree);
    let s = screen(&mut app, 100, 30);
    assert!(s.contains("Callers of render_json"), "{s}");
    assert!(s.contains("list_items [import]"), "{s}");
    assert!(s.contains("configure [qualified]"), "{s}");
    assert!(s.contains("def render_json(data, status=200):"), "{s}");
    assert!(s.contains("Impact of render_json"), "{s}");
    insta::assert_snapshot!("callers_render_json", s);
}

#[test]
fn expand_reroot_back_forward_and_callees() {
    let mut app = focused_render_json();
    // Select configure (third child) and expand it: build_app calls it.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char('l'));
    let s = screen(&mut app, 100, 30);
    assert!(s.contains("▾ fn configure"), "{s}");
    assert!(s.contains("    ▸ fn build_app"), "{s}");
    insta::assert_snapshot!("expanded_configure", s);
    // The source follows the selection and marks the call site.
    assert_eq!(app.source.path, "app/main.py");
    assert!(!app.source.sites.is_empty());
    // Re-root on configure, back, forward.
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        &**app.tree.as_ref().unwrap().root(),
        "app/main.py::configure"
    );
    assert_eq!(app.history.len(), 2);
    key(&mut app, KeyCode::Backspace);
    assert_eq!(
        &**app.tree.as_ref().unwrap().root(),
        "app/render.py::render_json"
    );
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(
        &**app.tree.as_ref().unwrap().root(),
        "app/main.py::configure"
    );
    // Callees of configure.
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.tree.as_ref().unwrap().direction, Walk::Callees);
    let s = screen(&mut app, 100, 30);
    assert!(s.contains("Callees of configure"), "{s}");
    assert!(s.contains("create_item [import]"), "{s}");
    assert!(s.contains("add_route [unique_name]"), "{s}");
    insta::assert_snapshot!("callees_configure", s);
    // h goes back to the root row.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char('h'));
    assert_eq!(app.tree.as_ref().unwrap().selected, 0);
}

#[test]
fn export_writes_subgraph_json_and_asks_before_overwriting() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    let mut app = focused_render_json();
    key(&mut app, KeyCode::Char('x'));
    // The default is outside the repository (in the user data folder), so the watcher
    // never indexes an export; the prompt says so, and warns for a path inside it.
    let default = codegraph_tui::config::export_dir()
        .unwrap()
        .join("python-render_json.json");
    assert_eq!(
        app.overlay,
        Overlay::ExportPrompt(default.display().to_string())
    );
    assert!(!default.starts_with(&app.root), "{}", default.display());
    assert!(screen(&mut app, 100, 30).contains("outside the repository: not indexed"));
    ctrl(&mut app, 'u');
    let inside = app.root.join("graph.json").display().to_string();
    typ(&mut app, &inside);
    assert!(screen(&mut app, 100, 30).contains("inside the repository: it would be indexed"));
    ctrl(&mut app, 'u');
    typ(&mut app, "/exports/callers.json");
    insta::assert_snapshot!("export_prompt", screen(&mut app, 100, 30));
    ctrl(&mut app, 'u');
    typ(&mut app, path.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.overlay, Overlay::None);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(v["schema"], "codegraph-tui/subgraph@1");
    assert_eq!(v["root"], "app/render.py::render_json");
    assert_eq!(v["direction"], "callers");
    assert_eq!(v["depth"], 1);
    let ids = common::strs(&v["nodes"], "id");
    assert!(ids.contains(&"app/handlers.py::list_items"), "{ids:?}");
    assert!(app.status.message.as_deref().unwrap().contains("out.json"));
    // Again: the file exists, so the app asks; n goes back to the prompt, y overwrites.
    std::fs::write(&path, "keep").unwrap();
    key(&mut app, KeyCode::Char('x'));
    ctrl(&mut app, 'u');
    typ(&mut app, path.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    assert!(matches!(app.overlay, Overlay::ConfirmOverwrite(_)));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep");
    key(&mut app, KeyCode::Char('n'));
    assert!(matches!(app.overlay, Overlay::ExportPrompt(_)));
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(app.overlay, Overlay::None);
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("subgraph@1"));
}

#[test]
fn works_at_80x24_and_says_when_too_small() {
    let mut app = focused_render_json();
    let s = screen(&mut app, 80, 24);
    assert!(s.contains("Callers of render_json"), "{s}");
    assert!(s.contains("? help"), "{s}");
    insta::assert_snapshot!("render_json_80x24", s);
    let small = screen(&mut app, 50, 12);
    assert!(small.contains("terminal too small: 50x12"), "{small}");
}
