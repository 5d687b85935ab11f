//! The search box: typing, focus keys, the text/semantic/hybrid modes, the matcher's wake-up,
//! an exact name pinned first, and no stale match opened or shown.

use std::sync::Arc;
use std::time::Duration;

use codegraph_tui::tui::app::Focus;
use codegraph_tui::tui::Theme;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{app_on, ctrl, key, python, screen, snapshot, typ};

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

/// Ctrl-t cycles the search box through text, semantic and hybrid search (the CLI's
/// `search --mode`), answered off the UI thread; Enter focuses the hit's definition.
#[test]
fn search_mode_switch_text_semantic_hybrid_and_back() {
    use codegraph_tui::tui::chunks::SearchMode;
    let mut app = python();
    ctrl(&mut app, 't');
    assert_eq!(app.mode, SearchMode::Text);
    assert_eq!(app.status.message.as_deref(), Some("search mode: text"));
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
        s.contains("function render_json  app/render.py:6-11  "),
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
    // The mode's name alone (it once read "search mode: Search semantic").
    assert_eq!(app.status.message.as_deref(), Some("search mode: semantic"));
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
        s.contains("Search hybrid") && s.contains("render_json  …/render.py:6-11  "),
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

/// A library shipping `src/` and its build output: each symbol once, its copies folded
/// (`+N`), F3 lists them; a word with `/` or a file extension filters by path.
#[test]
fn path_words_filter_by_path_and_generated_twins_fold() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    for d in ["src/core", "lib/esm/core", "lib/cjs/core", "src/util"] {
        std::fs::create_dir_all(repo.join(d)).unwrap();
    }
    let class = "export class Parser {\n  parse(text) {\n    return text;\n  }\n}\n";
    std::fs::write(repo.join("src/core/parser.ts"), class).unwrap();
    std::fs::write(repo.join("lib/esm/core/parser.js"), class).unwrap();
    std::fs::write(repo.join("lib/cjs/core/parser.cjs"), class).unwrap();
    std::fs::write(
        repo.join("src/util/schemas.ts"),
        "export function validateSchema(x) {\n  return x;\n}\nexport class Parser {}\n",
    )
    .unwrap();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    let ids = |app: &codegraph_tui::tui::App| -> Vec<String> {
        (0..app.search.matched())
            .map(|i| app.search.get(i).unwrap().id.to_string())
            .collect()
    };
    typ(&mut app, "parse");
    let all = ids(&app);
    assert!(
        all.contains(&"src/core/parser.ts::Parser.parse".to_string()),
        "{all:?}"
    );
    assert!(
        !all.iter().any(|i| i.starts_with("lib/")),
        "twins listed: {all:?}"
    );
    let s = screen(&mut app, 120, 30);
    assert_eq!(
        app.search.get(0).unwrap().twins,
        2,
        "{:?}",
        app.search.get(0)
    );
    assert!(s.contains("Parser.parse +2"), "{s}");
    snapshot("search_twins_folded", s);
    // F3 lists the copies.
    key(&mut app, KeyCode::F(3));
    app.search.settle();
    let listed = ids(&app);
    assert!(
        listed.contains(&"lib/cjs/core/parser.cjs::Parser.parse".to_string()),
        "{listed:?}"
    );
    key(&mut app, KeyCode::F(3));
    app.search.settle();
    // A path word: only symbols under src/core (the lib copies' paths do not match).
    ctrl(&mut app, 'u');
    typ(&mut app, "src/core Parser");
    let found = ids(&app);
    assert!(!found.is_empty(), "{found:?}");
    assert!(
        found.iter().all(|i| i.starts_with("src/core/")),
        "{found:?}"
    );
    // A file name with its extension: that file's symbols.
    ctrl(&mut app, 'u');
    typ(&mut app, "schemas.ts");
    let found = ids(&app);
    assert!(
        found.contains(&"src/util/schemas.ts::validateSchema".to_string()),
        "{found:?}"
    );
    assert!(
        found.iter().all(|i| i.starts_with("src/util/schemas.ts")),
        "{found:?}"
    );
    // Name and path together; the exact name is pinned only within the path.
    ctrl(&mut app, 'u');
    typ(&mut app, "Parser schemas.ts");
    assert_eq!(
        ids(&app).first().map(String::as_str),
        Some("src/util/schemas.ts::Parser")
    );
}

/// A mode change clears the previous mode's hits at once (text hits never show under the
/// semantic title), and while the search thread builds the index the panel says what it
/// builds and for how long, not a bare "searching…".
#[test]
fn a_mode_change_clears_the_hits_and_the_build_shows_a_progress_line() {
    use codegraph_tui::tui::chunks::SearchMode;
    let dir = tempfile::tempdir().unwrap();
    let src: String = (0..8_000)
        .map(|i| format!("def handler_{i}(request):\n    return render(request, {i})\n\n\n"))
        .collect();
    std::fs::write(dir.path().join("views.py"), src).unwrap();
    let mut app = app_on(dir.path(), Theme::load("dark", None).unwrap());
    ctrl(&mut app, 't');
    typ(&mut app, "handler_17");
    app.chunks.settle(Duration::from_secs(60));
    app.tick();
    assert_eq!(app.mode, SearchMode::Text);
    assert!(!app.chunks.hits.is_empty());
    ctrl(&mut app, 't');
    assert_eq!(app.mode, SearchMode::Semantic);
    assert!(app.chunks.hits.is_empty(), "the text hits are gone at once");
    // The vectors of 8 000 chunks take a while: the progress line shows meanwhile.
    let start = std::time::Instant::now();
    let mut seen = None;
    while app.chunks.busy() && start.elapsed() < Duration::from_secs(60) {
        app.tick();
        if app.chunks.building().is_some() {
            seen = Some(screen(&mut app, 120, 30));
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let s = seen.expect("the build was seen");
    assert!(
        s.contains("(once per") && s.contains("Search semantic") && s.contains(" building… "),
        "{s}"
    );
    assert!(!s.contains("handler_17  views.py"), "{s}");
    app.chunks.settle(Duration::from_secs(60));
    app.tick();
    assert!(app.chunks.building().is_none());
    assert!(!app.chunks.hits.is_empty());
    assert!(app.chunks.hits.iter().all(|h| h.text_rank.is_none()));
}

/// The text mode's title counts its hits, singular for one (it read ` 1 hits `).
#[test]
fn one_text_hit_is_counted_as_one_hit() {
    use codegraph_tui::tui::chunks::SearchMode;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.py"),
        "def unmistakable_name():\n    return 1\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("b.py"), "def other():\n    return 2\n").unwrap();
    let mut app = app_on(dir.path(), Theme::load("dark", None).unwrap());
    ctrl(&mut app, 't');
    typ(&mut app, "unmistakable_name");
    app.chunks.settle(Duration::from_secs(30));
    app.tick();
    assert_eq!(app.mode, SearchMode::Text);
    assert_eq!(app.chunks.hits.len(), 1, "{:?}", app.chunks.hits);
    let s = screen(&mut app, 120, 30);
    assert!(s.contains(" 1 hit "), "{s}");
    assert!(!s.contains(" 1 hits "), "{s}");
}

/// Once the first full snapshot is on screen the search thread builds the text index and
/// the vectors in the background (the default `search_index = "auto"` on a small tree),
/// with its step in the status bar; the first hybrid query then answers with no build.
#[test]
fn the_search_index_builds_in_the_background() {
    use codegraph_tui::tui::chunks::SearchMode;
    let dir = tempfile::tempdir().unwrap();
    let src: String = (0..8_000)
        .map(|i| format!("def handler_{i}(request):\n    return render(request, {i})\n\n\n"))
        .collect();
    std::fs::write(dir.path().join("views.py"), src).unwrap();
    let idx = crate::common::index(dir.path(), 2);
    let root = idx.root.clone().expect("root");
    let mut app = codegraph_tui::tui::App::new(root, Theme::load("dark", None).unwrap());
    assert_eq!(
        app.settings.search_prebuild,
        codegraph_tui::index::search::Prebuild::Auto
    );
    app.set_snapshot(Arc::new(codegraph_tui::worker::Snapshot::new(
        1,
        idx,
        Duration::ZERO,
    )));
    assert_eq!(app.mode, SearchMode::Symbols);
    let start = std::time::Instant::now();
    let mut status = None;
    while app.chunks.ready().is_none() && start.elapsed() < Duration::from_secs(120) {
        if status.is_none() && app.chunks.building().is_some() {
            let s = screen(&mut app, 140, 30);
            if s.lines()
                .last()
                .is_some_and(|l| l.contains(" search index: "))
            {
                status = s.lines().last().map(str::to_string);
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(app.chunks.ready(), Some(true), "built with the vectors");
    let line = status.expect("the status bar showed the build");
    assert!(line.contains('…') && line.contains(" s "), "{line}");
    // The last frame shows a build that has ended: a redraw is due, and none after it.
    assert!(app.chunks.progress_due());
    let s = screen(&mut app, 140, 30);
    assert!(s.lines().last().unwrap().contains(" ready "), "{s}");
    assert!(!app.chunks.progress_due());
    // Hybrid now: answered without building anything.
    ctrl(&mut app, 't');
    ctrl(&mut app, 't');
    ctrl(&mut app, 't');
    assert_eq!(app.mode, SearchMode::Hybrid);
    typ(&mut app, "handler_17");
    assert!(app.chunks.building().is_none());
    app.chunks.settle(Duration::from_secs(60));
    assert!(app.chunks.building().is_none());
    app.tick();
    assert!(!app.chunks.hits.is_empty());
    assert!(app.chunks.hits.iter().any(|h| h.semantic_rank.is_some()));
}
