//! The TUI in-process: each panel drawn on ratatui's `TestBackend` and snapshotted with
//! insta, and scenario tests that feed keys to the app and check state and screen
//! (search, expand, re-root, back/forward, callees, filters, export, sizes, safety).

mod common;

use std::sync::Arc;
use std::time::Duration;

use codegraph_tui::index::Walk;
use codegraph_tui::tui::app::{Focus, Overlay};
use codegraph_tui::tui::keymap::{Scope, BINDINGS};
use codegraph_tui::tui::panels;
use codegraph_tui::tui::{App, Theme};
use codegraph_tui::worker::Snapshot;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Modifier;
use ratatui::Terminal;

fn app_on(root: &std::path::Path, theme: Theme) -> App {
    let idx = common::index(root, 2);
    let root = idx.root.clone().expect("root");
    let mut app = App::new(root, theme);
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

/// A warm start shows the cached graph before its facts (`Snapshot::graph_only`): the
/// search, the call tree and the status bar work on it, and the full snapshot of the same
/// graph that follows changes none of what is on screen (nothing is fed to the search
/// again) while text search, which reads the facts, starts only with it.
#[test]
fn a_graph_served_before_its_facts_is_usable_and_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::copy_dir(&common::fixture("python"), &repo);
    let idx = common::index(&repo, 2);
    let root = idx.root.clone().expect("root");
    let again = idx.clone();
    let mut alone = idx.clone();
    alone.files.clear();
    let mut first = Snapshot::new(1, alone, Duration::ZERO);
    first.graph_only = true;
    let first = Arc::new(first);
    let mut app = App::new(root.clone(), Theme::load("dark", None).unwrap());
    app.set_snapshot(first.clone());
    app.search.settle();
    app.tick();
    typ(&mut app, "render_json");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Focus::Tree);
    let files = idx.stats.files_indexed + idx.stats.files_windowed;
    let before = screen(&mut app, 100, 30);
    assert!(before.contains("Callers of render_json"), "{before}");
    assert!(before.contains(&format!("{files} files")), "{before}");
    let matched = app.search.matched();
    assert!(matched > 0);
    app.set_snapshot(Arc::new(first.with_facts(again, Duration::ZERO)));
    // No settle: a search fed again would have no matches until it finished.
    app.tick();
    assert_eq!(app.search.matched(), matched);
    assert_eq!(screen(&mut app, 100, 30), before);
    // A file edited after it was indexed is marked once the facts (its hash) are known.
    let edited = repo.join("app/render.py");
    let text = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(&edited, text + "\n# edited\n").unwrap();
    let mut app = App::new(root, Theme::load("dark", None).unwrap());
    app.set_snapshot(first.clone());
    app.search.settle();
    app.tick();
    typ(&mut app, "render_json");
    key(&mut app, KeyCode::Enter);
    assert!(!screen(&mut app, 100, 30).contains("changed since indexed"));
    app.set_snapshot(Arc::new(first.with_facts(idx, Duration::ZERO)));
    app.tick();
    let after = screen(&mut app, 100, 30);
    assert!(after.contains("changed since indexed"), "{after}");
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
fn export_writes_subgraph_json_and_asks_before_overwriting() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    let mut app = focused_render_json();
    key(&mut app, KeyCode::Char('x'));
    assert_eq!(
        app.overlay,
        Overlay::ExportPrompt("./codegraph-render_json.json".into())
    );
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
    // Every line whole where the screen is wide enough (the overlay was 76 columns wide
    // and cut the legend's lines).
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
fn works_at_80x24_and_says_when_too_small() {
    let mut app = focused_render_json();
    let s = screen(&mut app, 80, 24);
    assert!(s.contains("Callers of render_json"), "{s}");
    assert!(s.contains("? help"), "{s}");
    insta::assert_snapshot!("render_json_80x24", s);
    let small = screen(&mut app, 50, 12);
    assert!(small.contains("terminal too small: 50x12"), "{small}");
}

#[test]
fn keys_in_the_search_box_type_and_q_quits_only_outside_it() {
    let mut app = python();
    typ(&mut app, "q");
    assert!(!app.quit);
    assert_eq!(app.search.query, "q");
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Focus::Tree);
    key(&mut app, KeyCode::Char('/'));
    assert_eq!(app.focus, Focus::Search);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Tree);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Source);
    key(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
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

/// Ctrl-t cycles the search box through text, semantic and hybrid search (the CLI's
/// `search --mode`), answered off the UI thread; Enter focuses the hit's definition.
#[test]
fn search_mode_switch_text_semantic_hybrid_and_back() {
    use codegraph_tui::tui::chunks::SearchMode;
    let mut app = python();
    ctrl(&mut app, 't');
    assert_eq!(app.mode, SearchMode::Text);
    typ(&mut app, "render_json");
    app.chunks.settle(Duration::from_secs(30));
    app.tick();
    assert_eq!(app.chunks.error, None);
    let ids: Vec<&str> = app.chunks.hits.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids.first(), Some(&"app/render.py::render_json"), "{ids:?}");
    assert!(app.chunks.hits.iter().all(|h| h.semantic_rank.is_none()));
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Search text"), "{s}");
    assert!(
        s.contains("function app/render.py::render_json:6-11  "),
        "{s}"
    );
    // Enter: the hit's definition becomes the call tree's root.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Focus::Tree);
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Callers of render_json"), "{s}");
    // Semantic: the same query again, ranked by embeddings only.
    ctrl(&mut app, 't');
    assert_eq!((app.mode, app.focus), (SearchMode::Semantic, Focus::Search));
    app.chunks.settle(Duration::from_secs(30));
    app.tick();
    assert_eq!(app.chunks.error, None);
    assert!(!app.chunks.hits.is_empty());
    assert!(app.chunks.hits.iter().all(|h| h.text_rank.is_none()));
    assert!(screen(&mut app, 120, 30).contains("Search semantic"));
    // Hybrid: the exact name first, with both ranks shown.
    ctrl(&mut app, 't');
    assert_eq!(app.mode, SearchMode::Hybrid);
    app.chunks.settle(Duration::from_secs(30));
    app.tick();
    let top = &app.chunks.hits[0];
    assert_eq!(top.id, "app/render.py::render_json");
    assert!(
        top.text_rank.is_some() && top.semantic_rank.is_some(),
        "{top:?}"
    );
    let s = screen(&mut app, 120, 30);
    assert!(
        s.contains("Search hybrid") && s.contains("render.py::render_json:6-11"),
        "{s}"
    );
    // Back to symbols: nucleo's list again.
    ctrl(&mut app, 't');
    assert_eq!(app.mode, SearchMode::Symbols);
    let s = screen(&mut app, 120, 30);
    assert!(
        s.contains("Search symbols") && s.contains("app.render.render_json"),
        "{s}"
    );
}

/// A match the tick did not wait for wakes the event loop when it is published: the
/// waker is called from nucleo's thread, and the next tick shows the finished match.
#[test]
fn matcher_wakes_the_loop_when_a_long_match_finishes() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tui-waker");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src: String = (0..20_000)
        .map(|i| format!("def handler_{i}(x):\n    return x\n"))
        .collect();
    std::fs::write(dir.join("many.py"), src).unwrap();
    let mut app = app_on(&dir, Theme::load("dark", None).unwrap());
    assert_eq!(app.search.matched(), 20_000);
    let wakes = Arc::new(AtomicUsize::new(0));
    let w = wakes.clone();
    app.search.set_waker(Box::new(move || {
        w.fetch_add(1, Ordering::SeqCst);
    }));
    // A tick that does not wait leaves the match running (retried in the unlikely case
    // the matcher finished 20 000 items before the tick looked).
    let mut left_running = false;
    for q in ["h9", "hd9", "hdl9", "hdlr9", "handler_19"] {
        app.search.set_query(q.to_string());
        if app.search.tick(0) {
            continue;
        }
        if app.search.matching() {
            left_running = true;
            break;
        }
    }
    assert!(left_running, "every match finished before a zero-wait tick");
    let t = std::time::Instant::now();
    while wakes.load(Ordering::SeqCst) == 0 {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the matcher never called the waker"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    app.search.settle();
    assert!(!app.search.matching());
    let best = app.search.get(0).expect("a match").name.to_string();
    assert!(best.starts_with("handler_"), "{best}");
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
                Row::Unresolved { .. } => None,
            })
            .collect();
        let node_rows = shown.len();
        shown.sort();
        shown.dedup();
        let unresolved: u32 = rows
            .iter()
            .map(|r| match r {
                Row::Unresolved { count, .. } => *count,
                Row::Node(_) => 0,
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

/// An exact name ranks first, once: fuzzy ranking alone prefers short qualified names
/// that start with the query (`walk.go`) over the method named exactly `walk`.
#[test]
fn an_exact_name_is_pinned_above_fuzzy_matches_and_listed_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("walk.py"),
        "def go():\n    pass\n\ndef gone():\n    pass\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("graph.py"),
        "class CodeGraph:\n    def walk(self):\n        pass\n",
    )
    .unwrap();
    let mut app = app_on(dir.path(), Theme::load("dark", None).unwrap());
    typ(&mut app, "walk");
    let ids: Vec<String> = (0..app.search.matched())
        .map(|i| app.search.get(i).unwrap().id.to_string())
        .collect();
    assert_eq!(ids[0], "graph.py::CodeGraph.walk", "{ids:?}");
    assert_eq!(
        ids.iter().filter(|i| i.ends_with("CodeGraph.walk")).count(),
        1,
        "{ids:?}"
    );
    assert!(ids.contains(&"walk.py::go".to_string()), "{ids:?}");
    // A qualified-name suffix pins too; a fuzzy-only query pins nothing.
    key(&mut app, KeyCode::Esc);
    app.search.set_query("CodeGraph.walk".into());
    app.search.settle();
    assert_eq!(&*app.search.get(0).unwrap().id, "graph.py::CodeGraph.walk");
}

#[test]
fn a_query_that_matches_nothing_clears_the_source_panel() {
    let mut app = python();
    typ(&mut app, "render_json");
    assert!(!app.source.path.is_empty(), "a match shows its file");
    let shown = app.source.path.clone();
    typ(&mut app, "zzqqxx");
    assert_eq!(app.search.matched(), 0);
    assert!(
        app.source.path.is_empty(),
        "still showing {}",
        app.source.path
    );
    let s = screen(&mut app, 100, 30);
    assert!(!s.contains(&shown), "{s}");
    assert!(s.contains("the selected symbol's source shows here"), "{s}");
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

#[test]
fn enter_before_the_matcher_catches_up_opens_nothing_stale() {
    let mut app = python();
    typ(&mut app, "render_json");
    assert!(app.search.matched() > 0);
    // Keys and Enter in one burst, with no tick in between (fast typing, a paste).
    for c in "qqzz".chars() {
        app.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert!(app.tree.is_none(), "opened a match of an earlier query");
    assert_eq!(app.focus, Focus::Search);
    assert_eq!(app.search.matched(), 0);
}

/// A new snapshot shows the shown file as it is now on disk (the panel read it again, not
/// the copy it had), and ends a "gone after re-indexing" error once the root is back.
#[test]
fn a_new_snapshot_rereads_the_shown_file_and_clears_an_old_error() {
    let (_tmp, repo, mut app) = python_copy();
    typ(&mut app, "render_json");
    key(&mut app, KeyCode::Enter);
    let shown = app.source.path.clone();
    assert!(!shown.is_empty());
    let text = |app: &App| {
        app.source
            .lines
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(!text(&app).contains("EDITED_MARKER"));
    // The file edited on disk, then a new snapshot (as the worker publishes).
    let file = repo.join(&shown);
    let mut body = std::fs::read_to_string(&file).unwrap();
    body.push_str("\n# EDITED_MARKER\n");
    std::fs::write(&file, &body).unwrap();
    reindex(&mut app, &repo, 2);
    assert_eq!(app.source.path, shown);
    assert!(
        text(&app).contains("EDITED_MARKER"),
        "the panel kept the old text"
    );

    // The tree's root renamed away: the error says so; renamed back: it goes.
    let renamed = body.replace("def render_json(", "def render_json_gone(");
    std::fs::write(&file, &renamed).unwrap();
    reindex(&mut app, &repo, 3);
    let error = app.status.error.clone().unwrap_or_default();
    assert!(error.contains("is gone after re-indexing"), "{error:?}");
    // Its row stays (nothing under it), so that restoring the file brings the tree back.
    let rows_of = |app: &App| {
        app.tree
            .as_ref()
            .map(|t| (t.root().to_string(), app.tree_rows().len()))
    };
    let gone = rows_of(&app).expect("a placeholder tree");
    assert_eq!(gone.1, 1, "only the root's row");
    app.focus = codegraph_tui::tui::app::Focus::Tree;
    key(&mut app, KeyCode::Char('x'));
    let said = app.status.message.clone().unwrap_or_default();
    assert!(said.contains("nothing to export"), "{said:?}");
    std::fs::write(&file, &body).unwrap();
    reindex(&mut app, &repo, 4);
    assert_eq!(app.status.error, None);
    let back = rows_of(&app).unwrap();
    assert_eq!(back.0, gone.0);
    assert!(back.1 > 1, "its callers are back: {back:?}");
}

#[test]
fn a_new_snapshot_keeps_the_tree_expanded_and_the_selection() {
    use codegraph_tui::tui::tree::Row;
    let (_tmp, repo, mut app) = python_copy();
    typ(&mut app, "normalize_path");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.tree.as_ref().map(|t| &**t.root()),
        Some("app/router.py::normalize_path")
    );
    // Expand `join` (a caller) and its caller `Router.add_route`, then select the
    // decorator that calls it.
    let find = |app: &App, id: &str| {
        let t = app.tree.as_ref().unwrap();
        (0..t.nodes.len()).find(|&i| &*t.nodes[i].id == id).unwrap()
    };
    let snap = app.snapshot.clone().unwrap();
    let join = find(&app, "app/router.py::join");
    app.tree.as_mut().unwrap().expand(&snap, join);
    let add = find(&app, "app/router.py::Router.add_route");
    app.tree.as_mut().unwrap().expand(&snap, add);
    let deco = find(&app, "app/router.py::Router.route.decorator");
    let rows = app.tree_rows();
    let at = rows.iter().position(|r| *r == Row::Node(deco)).unwrap();
    app.tree.as_mut().unwrap().selected = at;
    let shown = |app: &App| -> Vec<String> {
        let t = app.tree.as_ref().unwrap();
        app.tree_rows()
            .iter()
            .map(|r| match r {
                Row::Node(i) => t.path(*i).join(" < "),
                Row::Unresolved { node, count } => format!("{} ?{count}", t.nodes[*node].id),
            })
            .collect()
    };
    let before = shown(&app);
    assert!(
        before
            .iter()
            .any(|r| r.ends_with("Router.add_route < app/router.py::Router.route.decorator")),
        "{before:#?}"
    );
    // An edit elsewhere, as the worker publishes it: the same rows, the same selection.
    let render = repo.join("app/render.py");
    let mut body = std::fs::read_to_string(&render).unwrap();
    body.push_str("\n\ndef added_elsewhere():\n    return 1\n");
    std::fs::write(&render, &body).unwrap();
    reindex(&mut app, &repo, 2);
    assert_eq!(shown(&app), before, "the tree was folded or changed");
    assert_eq!(
        app.selected_tree_node()
            .map(|i| app.tree.as_ref().unwrap().nodes[i].id.to_string()),
        Some("app/router.py::Router.route.decorator".to_string())
    );
    // The selected call removed: the selection falls back to the row above it in the path.
    let router = repo.join("app/router.py");
    let text = std::fs::read_to_string(&router).unwrap();
    let cut = text.replace("self.add_route(", "print(");
    assert_ne!(cut, text, "the fixture calls add_route from the decorator");
    std::fs::write(&router, cut).unwrap();
    reindex(&mut app, &repo, 3);
    let after = shown(&app);
    assert!(
        !after.iter().any(|r| r.contains("Router.route.decorator")),
        "{after:#?}"
    );
    assert!(
        after
            .iter()
            .any(|r| r.ends_with("join < app/router.py::Router.add_route")),
        "still expanded: {after:#?}"
    );
    assert_eq!(
        app.selected_tree_node()
            .map(|i| app.tree.as_ref().unwrap().nodes[i].id.to_string()),
        Some("app/router.py::Router.add_route".to_string())
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

#[test]
fn a_file_changed_since_indexing_is_marked_in_the_source_panel() {
    let (_tmp, repo, mut app) = python_copy();
    // Edited after the index was made, before anything re-indexed (as with --no-watch).
    let file = repo.join("app/render.py");
    let body = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("# a new first line\n{body}")).unwrap();
    typ(&mut app, "render_json");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.source.path, "app/render.py");
    assert!(app.source.changed_on_disk);
    assert!(screen(&mut app, 160, 40).contains("changed since indexed"));
    // Re-indexed: the marks fit the file again.
    reindex(&mut app, &repo, 2);
    assert_eq!(app.source.path, "app/render.py");
    assert!(!app.source.changed_on_disk);
    assert!(!screen(&mut app, 160, 40).contains("changed since indexed"));
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

/// A query longer than the search box shows its end (where typing happens) after `…`,
/// not its start.
#[test]
fn a_long_query_shows_its_end() {
    let mut app = python();
    let query = format!("{}tail_end", "x".repeat(300));
    typ(&mut app, &query);
    let s = screen(&mut app, 100, 30);
    let line = s.lines().find(|l| l.contains("> ")).expect("a query line");
    assert!(line.contains("> …") && line.contains("tail_end"), "{line}");
}
