//! The watcher and the worker: a saved file becomes a new snapshot, a warm start serves the
//! cached graph before its facts, a reported edit is read alone and matches a walk, and
//! reading the tree never wakes the watcher.

use std::path::Path;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use codegraph_tui::index::{index_repo, Index};
use codegraph_tui::worker::{IndexEvent, Setup, Worker};

use super::{canonical, common, opts, scratch, warm_open};

fn wait_ready(rx: &Receiver<IndexEvent>, until: impl Fn(&Index) -> bool) -> Index {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(IndexEvent::Ready { snapshot, .. }) if until(&snapshot.index) => {
                return snapshot.index.clone()
            }
            Ok(IndexEvent::Failed { message, .. }) => panic!("{message}"),
            Ok(_) => {}
            Err(e) => panic!("no matching snapshot: {e}"),
        }
    }
}

#[test]
fn the_watcher_turns_a_saved_file_into_a_new_snapshot() {
    let (_tmp, repo, cache) = scratch("python");
    let setup = Setup {
        cache_dir: Some(cache.clone()),
        watch: true,
    };
    let (worker, rx) = Worker::with_channel(repo.clone(), opts(), setup).unwrap();
    wait_ready(&rx, |i| i.graph.node("app/main.py::build_app").is_some());
    // The first run is done: give the watcher a moment to be registered.
    std::thread::sleep(Duration::from_millis(300));
    // An editor's save: write a temporary file, then rename it over the target.
    let tmp = repo.join("app/.handlers.py.swp");
    std::fs::write(&tmp, "def watched_fn():\n    return 1\n").unwrap();
    std::fs::rename(&tmp, repo.join("app/watched.py")).unwrap();
    let idx = wait_ready(&rx, |i| {
        i.graph.node("app/watched.py::watched_fn").is_some()
    });
    assert!(idx.graph.node("app/main.py::build_app").is_some());
    // Ignored paths never trigger an update.
    std::fs::create_dir_all(repo.join("node_modules/x")).unwrap();
    std::fs::write(repo.join("node_modules/x/i.js"), "function f() {}\n").unwrap();
    std::fs::remove_file(repo.join("app/watched.py")).unwrap();
    let idx = wait_ready(&rx, |i| {
        i.graph.node("app/watched.py::watched_fn").is_none()
    });
    assert!(idx
        .files
        .iter()
        .all(|f| !f.path.starts_with("node_modules")));
    drop(worker);

    // The next start serves the saved snapshot at once (generation 1).
    let setup = Setup {
        cache_dir: Some(cache.clone()),
        watch: false,
    };
    let (_w, rx) = Worker::with_channel(repo.clone(), opts(), setup).unwrap();
    match rx.recv_timeout(Duration::from_secs(30)).unwrap() {
        IndexEvent::Ready {
            generation,
            snapshot,
        } => {
            assert_eq!(generation, 1);
            assert!(snapshot
                .index
                .graph
                .node("app/watched.py::watched_fn")
                .is_none());
            assert!(snapshot
                .index
                .graph
                .node("app/main.py::build_app")
                .is_some());
        }
        other => panic!("expected the cached snapshot first, got {other:?}"),
    }
}

/// A warm start with nothing changed shows the cached graph before the facts are decoded:
/// a graph-only snapshot (no facts), then, in the same generation, the full snapshot of
/// the very same graph (shared, not loaded twice), then no other snapshot.
#[test]
fn a_warm_start_serves_the_graph_then_the_same_graph_with_its_facts() {
    let (_tmp, repo, cache) = scratch("python");
    let (saved, _) = warm_open(&repo, &cache);
    let setup = Setup {
        cache_dir: Some(cache.clone()),
        watch: false,
    };
    let (_w, rx) = Worker::with_channel(repo.clone(), opts(), setup).unwrap();
    let mut ready = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(30)).unwrap() {
            IndexEvent::Ready {
                generation,
                snapshot,
            } => ready.push((generation, snapshot)),
            // The reconciliation that follows found nothing to do.
            IndexEvent::Notice { generation: 2, .. } => break,
            IndexEvent::Failed { message, .. } => panic!("{message}"),
            _ => {}
        }
    }
    assert_eq!(
        ready.len(),
        2,
        "the graph, then the full snapshot; nothing else"
    );
    let ((g1, graph), (g2, full)) = (&ready[0], &ready[1]);
    assert_eq!((*g1, *g2), (1, 1));
    assert!(graph.graph_only && graph.index.files.is_empty());
    assert!(!full.graph_only);
    assert!(std::sync::Arc::ptr_eq(
        &graph.index.graph,
        &full.index.graph
    ));
    assert_eq!(full.index.files, saved.files);
    assert_eq!(canonical(&full.index), canonical(&saved));
    assert_eq!(graph.index.stats.files_indexed, saved.stats.files_indexed);
}

/// Rewrites `path` with `text` (the same length as before) and puts its mtime back, so
/// size and mtime both match the snapshot's stamp.
fn rewrite_keeping_stamp(path: &Path, text: &str) {
    let before = std::fs::metadata(path).unwrap();
    assert_eq!(before.len(), text.len() as u64, "same length");
    std::fs::write(path, text).unwrap();
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    drop(f);
    let after = std::fs::metadata(path).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
}

#[test]
fn an_edit_that_keeps_size_and_mtime_is_seen_when_the_watcher_reports_it() {
    use codegraph_tui::index::incremental::{reconcile, Reconciled};
    let (_tmp, repo, cache) = scratch("python");
    let file = repo.join("app/same.py");
    std::fs::write(&file, "def alpha_fn():\n    return 1\n").unwrap();
    common::backdate(&repo);

    // The engine alone: size and mtime restored, but the status-change time moved with the
    // write, so a reconciliation reads the file again (git's `core.trustctime`)...
    let prev = index_repo(&repo, &opts()).unwrap();
    assert!(prev.graph.node("app/same.py::alpha_fn").is_some());
    rewrite_keeping_stamp(&file, "def omega_fn():\n    return 1\n");
    match reconcile(&repo, &prev, &opts()).unwrap() {
        Reconciled::Updated(idx, changes) => {
            assert_eq!(changes.modified, vec!["app/same.py".to_string()]);
            assert!(idx.graph.node("app/same.py::omega_fn").is_some());
        }
        Reconciled::Unchanged => panic!("the ctime moved: the new content was missed"),
    }
    // ... and one told to recheck a path reads it whatever its stamp says.
    let mut o = opts();
    o.recheck = Some(std::sync::Arc::new(
        ["app/same.py".to_string()].into_iter().collect(),
    ));
    match reconcile(&repo, &prev, &o).unwrap() {
        Reconciled::Updated(idx, changes) => {
            assert_eq!(changes.modified, vec!["app/same.py".to_string()]);
            assert!(idx.graph.node("app/same.py::omega_fn").is_some());
            assert!(idx.graph.node("app/same.py::alpha_fn").is_none());
        }
        Reconciled::Unchanged => panic!("the rechecked file's new content was missed"),
    }

    // The watcher passes the paths it saw, so the same kind of edit reaches the graph.
    std::fs::write(&file, "def alpha_fn():\n    return 1\n").unwrap();
    common::backdate(&repo);
    let setup = Setup {
        cache_dir: Some(cache),
        watch: true,
    };
    let (_worker, rx) = Worker::with_channel(repo.clone(), opts(), setup).unwrap();
    wait_ready(&rx, |i| i.graph.node("app/same.py::alpha_fn").is_some());
    std::thread::sleep(Duration::from_millis(300));
    rewrite_keeping_stamp(&file, "def omega_fn():\n    return 1\n");
    let idx = wait_ready(&rx, |i| i.graph.node("app/same.py::omega_fn").is_some());
    assert!(idx.graph.node("app/same.py::alpha_fn").is_none());
}

/// Reading the repository (what every reconciliation does: open each folder, read each
/// file) never wakes the watcher; writing does. inotify reports opens and closes too,
/// and passed on they would make the TUI re-index itself about ten times a second.
#[test]
fn reading_the_repository_never_wakes_the_watcher() {
    let (_tmp, repo, cache) = scratch("python");
    let (tx, rx) = std::sync::mpsc::channel();
    let _w = codegraph_tui::worker::watch::watch(&repo, Some(&cache), &opts().walk, move |p| {
        let _ = tx.send(p);
    })
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..3 {
        index_repo(&repo, &opts()).unwrap();
    }
    if let Ok(paths) = rx.recv_timeout(Duration::from_millis(1000)) {
        panic!("reading woke the watcher: {paths:?}");
    }
    std::fs::write(repo.join("app/added.py"), "def added():\n    return 1\n").unwrap();
    let paths = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("a write wakes the watcher");
    assert!(paths.contains(&"app/added.py".to_string()), "{paths:?}");
}

/// The counts and lists of two indexes of the same tree, timings aside.
fn assert_same_index(a: &Index, b: &Index, what: &str) {
    assert_eq!(canonical(a), canonical(b), "{what}: graph");
    assert_eq!(a.graph.name_order(), b.graph.name_order(), "{what}: names");
    let (mut sa, mut sb) = (a.stats.clone(), b.stats.clone());
    sa.elapsed_ms.clear();
    sb.elapsed_ms.clear();
    assert_eq!(sa, sb, "{what}: counts");
    assert_eq!(a.skipped, b.skipped, "{what}: skips");
    assert_eq!(a.stamps, b.stamps, "{what}: stamps");
}

/// A watcher's report of edited files is reconciled by reading those files alone (no
/// walk); the result is what a walk gives, and the follow-up walk it asks for picks up
/// what watchers do not report (a file of unknown type). A report with a new or deleted
/// path walks.
#[test]
fn a_reported_edit_is_read_alone_and_matches_a_walk() {
    use codegraph_tui::index::incremental::{reconcile, walk_matches, Reconciled};
    let (_tmp, repo, _cache) = scratch("multi");
    let prev = index_repo(&repo, &opts()).unwrap();
    let reported = |paths: &[&str]| {
        let mut o = opts();
        o.recheck = Some(std::sync::Arc::new(
            paths.iter().map(|p| p.to_string()).collect(),
        ));
        o
    };
    let updated = |r: Reconciled| match r {
        Reconciled::Updated(idx, changes) => (*idx, changes),
        Reconciled::Unchanged => panic!("a change was missed"),
    };

    // An edit of a known file, and a file no watcher reports.
    let loader = repo.join("scripts/loader.py");
    let mut text = std::fs::read_to_string(&loader).unwrap();
    text.push_str("\n\ndef reported_helper():\n    return load_rows()\n");
    std::fs::write(&loader, text).unwrap();
    std::fs::write(repo.join("notes.xyz"), "not code\n").unwrap();
    let (fast, changes) =
        updated(reconcile(&repo, &prev, &reported(&["scripts/loader.py"])).unwrap());
    assert!(changes.reported_only, "the reported file alone was read");
    assert_eq!(changes.modified, ["scripts/loader.py"]);
    assert!(fast
        .graph
        .node("scripts/loader.py::reported_helper")
        .is_some());
    let (walked, changes) = updated(reconcile(&repo, &prev, &opts()).unwrap());
    assert!(!changes.reported_only);
    assert_eq!(canonical(&fast), canonical(&walked), "same graph as a walk");
    assert_eq!(fast.graph.name_order(), walked.graph.name_order());
    // The follow-up walk sees the unreported file; a reconciliation counts it, facts stay.
    assert!(!walk_matches(&repo, &fast, &opts()).unwrap());
    let (checked, changes) = updated(reconcile(&repo, &fast, &opts()).unwrap());
    assert!(walk_matches(&repo, &checked, &opts()).unwrap());
    assert!(changes.is_empty() && !changes.reported_only, "{changes:?}");
    assert_same_index(&checked, &walked, "after the follow-up");
    assert_same_index(&checked, &index_repo(&repo, &opts()).unwrap(), "fresh");

    // A second reported edit on top of the first (the resolver's tables carried over).
    let chart = repo.join("web/chart.ts");
    let mut text = std::fs::read_to_string(&chart).unwrap();
    text.push_str("\nexport function reportedChart(): number { return 1; }\n");
    std::fs::write(&chart, text).unwrap();
    let (fast2, changes) =
        updated(reconcile(&repo, &checked, &reported(&["web/chart.ts"])).unwrap());
    assert!(changes.reported_only);
    assert!(
        walk_matches(&repo, &fast2, &opts()).unwrap(),
        "nothing unreported"
    );
    assert_same_index(&fast2, &index_repo(&repo, &opts()).unwrap(), "second edit");

    // New and deleted paths are not replayed: the tree is walked.
    std::fs::write(
        repo.join("scripts/extra_new.py"),
        "def brand_new():\n    pass\n",
    )
    .unwrap();
    let (added, changes) =
        updated(reconcile(&repo, &fast2, &reported(&["scripts/extra_new.py"])).unwrap());
    assert!(!changes.reported_only);
    assert_eq!(changes.added, ["scripts/extra_new.py"]);
    std::fs::remove_file(repo.join("scripts/report.py")).unwrap();
    let (removed, changes) =
        updated(reconcile(&repo, &added, &reported(&["scripts/report.py"])).unwrap());
    assert!(!changes.reported_only);
    assert_eq!(changes.removed, ["scripts/report.py"]);
    assert_same_index(
        &removed,
        &index_repo(&repo, &opts()).unwrap(),
        "after the walks",
    );
}
