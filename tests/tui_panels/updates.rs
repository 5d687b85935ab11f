//! New snapshots arriving while the app runs (as the worker publishes them): the graph before
//! its facts, an edited file re-read, the tree and selection kept, a changed file marked.

use std::sync::Arc;
use std::time::Duration;

use codegraph_tui::tui::app::Focus;
use codegraph_tui::tui::{App, Theme};
use codegraph_tui::worker::Snapshot;
use ratatui::crossterm::event::KeyCode;

use super::{common, key, new_app, python_copy, reindex, screen, typ};

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
    let mut app = new_app(root.clone(), Theme::load("dark", None).unwrap());
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
    let mut app = new_app(root, Theme::load("dark", None).unwrap());
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
                r => format!("{:?}", r),
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

/// The full snapshot the worker publishes (not yet its facts-less first one).
fn ready(rx: &std::sync::mpsc::Receiver<codegraph_tui::worker::IndexEvent>) -> Arc<Snapshot> {
    use codegraph_tui::worker::IndexEvent;
    loop {
        match rx
            .recv_timeout(Duration::from_secs(60))
            .expect("worker answers")
        {
            IndexEvent::Ready { snapshot, .. } if !snapshot.graph_only => return snapshot,
            IndexEvent::Failed { message, .. } => panic!("{message}"),
            _ => {}
        }
    }
}

/// Text search in the TUI answers from the index saved in the cache folder, as the CLI's
/// `search` does: the writer's snapshots name the folder and the first query writes the
/// text index there; a second instance (read-only: the first holds the lock) builds in
/// memory and writes nothing.
#[test]
fn text_search_uses_the_saved_index_of_the_writer_only() {
    use codegraph_tui::index::search::Mode;
    use codegraph_tui::tui::chunks::ChunkSearch;
    use codegraph_tui::worker::{Setup, Worker};
    let cache = tempfile::tempdir().unwrap();
    let setup = || Setup {
        cache_dir: Some(cache.path().to_path_buf()),
        watch: false,
    };
    let opts = codegraph_tui::index::IndexOptions::default;
    let (_writer, rx) = Worker::with_channel(common::fixture("python"), opts(), setup()).unwrap();
    let snap = ready(&rx);
    assert_eq!(snap.search_dir.as_deref(), Some(cache.path()));
    let (_reader, rx2) = Worker::with_channel(common::fixture("python"), opts(), setup()).unwrap();
    let other = ready(&rx2);
    assert_eq!(
        other.search_dir, None,
        "a read-only instance writes no index"
    );
    let mut reading = ChunkSearch::new();
    reading.load(&other);
    reading.query("render_json", Mode::Text);
    reading.settle(Duration::from_secs(60));
    assert!(!reading.hits.is_empty(), "{:?}", reading.error);
    assert!(
        !cache.path().join("text").exists(),
        "the reader wrote the index"
    );
    let mut writing = ChunkSearch::new();
    writing.load(&snap);
    writing.query("render_json", Mode::Text);
    writing.settle(Duration::from_secs(60));
    assert_eq!(writing.hits[0].id, "app/render.py::render_json");
    let saved = std::fs::read_dir(cache.path().join("text"))
        .unwrap()
        .count();
    assert!(saved > 0, "no text index saved in the cache");
}
