//! The on-disk cache and incremental updates (DESIGN section 7): after any sequence of
//! edits the reconciled index equals a fresh one byte for byte (graph and search); a
//! damaged, stale or foreign cache is rebuilt, never trusted; a second instance is
//! read-only; the watcher turns a saved file into a new snapshot.

mod common;

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant, SystemTime};

use codegraph_tui::index::search::{Mode, Searcher};
use codegraph_tui::index::session::{CacheState, Session};
use codegraph_tui::index::{index_repo, Index, IndexOptions};
use codegraph_tui::worker::{IndexEvent, Setup, Worker};

fn opts() -> IndexOptions {
    IndexOptions {
        threads: 2,
        ..IndexOptions::default()
    }
}

/// Sets every file's mtime an hour back, so stamps are not "racily clean" and the
/// stamp comparison (not only the content hash) decides.
/// Every incremental resolution in these tests is checked against a full one (a
/// mismatch panics).
fn verify_incremental() {
    codegraph_tui::index::incremental::affected::VERIFY
        .store(2, std::sync::atomic::Ordering::Relaxed);
}

/// A copy of fixture `name` under a temp dir: (guard, canonical repo root, cache dir).
fn scratch(name: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    verify_incremental();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::copy_dir(&common::fixture(name), &repo);
    common::backdate(&repo);
    let repo = repo.canonicalize().unwrap();
    let cache = tmp.path().join("cache");
    (tmp, repo, cache)
}

/// What a new process does: open the cache, load, reconcile (or index), save.
fn warm_open(repo: &Path, cache: &Path) -> (Index, Session) {
    let mut s = Session::open(Some(cache));
    let prev = s.load(repo, &opts());
    let fresh = s.refresh(repo, &opts(), prev.as_ref()).expect("refresh");
    let idx = match (fresh, prev) {
        (Some((i, _)), _) => i,
        (None, Some(p)) => p,
        (None, None) => panic!("no index"),
    };
    (idx, s)
}

fn canonical(idx: &Index) -> String {
    serde_json::to_string_pretty(&idx.graph.to_canonical_json()).unwrap()
}

const QUERIES: &[&str] = &[
    "load rows",
    "parse",
    "render chart",
    "summary",
    "export csv",
    "lang:python flatten",
    "extra helper",
];

/// Search results of `idx` as comparable text (ids, lines, ranks, scores).
fn search_dump(idx: &Index, cache: Option<&Path>) -> String {
    let mut out = String::new();
    for mode in [Mode::Text, Mode::Hybrid] {
        let s = Searcher::build(idx, mode, cache, None, None).expect("searcher");
        if cache.is_some() && cache.is_some_and(|c| c.join("text/index/meta.json").exists()) {
            out.push_str(&format!(
                "text index: reused {} or updated {}\n",
                s.stats.text_reused,
                s.stats.text_files_updated > 0
            ));
        }
        for q in QUERIES {
            for h in s.search(q, mode, 10).expect("search") {
                out.push_str(&format!(
                    "{mode:?} {q} {} {}-{} {:?} {:?} {:.6}\n",
                    h.id, h.start_line, h.end_line, h.text_rank, h.semantic_rank, h.score
                ));
            }
        }
    }
    out
}

/// Reconciled (through a fresh process's path: load the cache, reconcile, save) against
/// a fresh index of the same tree.
fn assert_same_as_fresh(step: &str, repo: &Path, cache: &Path) {
    let (warm, session) = warm_open(repo, cache);
    assert_eq!(session.report.state, CacheState::Warm, "{step}: cache used");
    let fresh = index_repo(repo, &opts()).unwrap();
    assert_eq!(canonical(&warm), canonical(&fresh), "{step}: graph");
    assert_eq!(
        warm.graph.name_order(),
        fresh.graph.name_order(),
        "{step}: name indexes"
    );
    let mut ws = warm.stats.clone();
    let mut fs = fresh.stats.clone();
    ws.elapsed_ms.clear();
    fs.elapsed_ms.clear();
    assert_eq!(ws, fs, "{step}: counts");
    assert_eq!(warm.skipped, fresh.skipped, "{step}: skips");
    assert_eq!(
        warm.files
            .iter()
            .map(|f| &f.content_hash)
            .collect::<Vec<_>>(),
        fresh
            .files
            .iter()
            .map(|f| &f.content_hash)
            .collect::<Vec<_>>(),
        "{step}: files"
    );
    let warm_dump = search_dump(&warm, session.writable_dir());
    let (status, warm_hits): (Vec<&str>, Vec<&str>) = warm_dump
        .lines()
        .partition(|l| l.starts_with("text index:"));
    if step != "nothing changed" {
        // Never rebuilt from scratch after the first build: reused, or updated in place.
        assert!(
            status.iter().all(|l| l.contains("true")),
            "{step}: text index rebuilt instead of updated: {status:?}"
        );
    }
    assert_eq!(
        warm_hits.join("\n") + "\n",
        search_dump(&fresh, None),
        "{step}: search"
    );
}

#[test]
fn scripted_edits_give_exactly_what_a_fresh_index_gives() {
    let (_tmp, repo, cache) = scratch("multi");
    let (first, s) = warm_open(&repo, &cache);
    assert_eq!(s.report.state, CacheState::Cold);
    assert!(s.report.saved, "first index saved");
    assert!(first.graph.node("scripts/loader.py::load_rows").is_some());
    assert_same_as_fresh("nothing changed", &repo, &cache);

    // Add a file that imports another.
    std::fs::write(
        repo.join("scripts/extra.py"),
        "from scripts.loader import load_rows\n\n\ndef extra_helper():\n    return load_rows(\"x\")\n",
    )
    .unwrap();
    assert_same_as_fresh("add", &repo, &cache);
    let (idx, _) = warm_open(&repo, &cache);
    assert!(
        idx.graph.node("scripts/extra.py::extra_helper").is_some(),
        "the added definition is in the graph"
    );

    // Change a file that others import: its function is renamed, callers lose the edge.
    let loader = repo.join("scripts/loader.py");
    let text = std::fs::read_to_string(&loader).unwrap();
    std::fs::write(&loader, text.replace("def load_rows(", "def read_rows(")).unwrap();
    assert_same_as_fresh("change an imported file", &repo, &cache);
    let (idx, _) = warm_open(&repo, &cache);
    assert!(idx.graph.node("scripts/loader.py::load_rows").is_none());
    assert!(idx.graph.node("scripts/loader.py::read_rows").is_some());

    // Same size, written right after the last index (same mtime tick possible): the racy
    // rule hashes it again.
    let text = std::fs::read_to_string(&loader).unwrap();
    std::fs::write(&loader, text.replace("def read_rows(", "def load_rows(")).unwrap();
    assert_same_as_fresh("same-size edit at once", &repo, &cache);

    // Delete a file another imports.
    std::fs::remove_file(repo.join("web/chart.ts")).unwrap();
    assert_same_as_fresh("delete", &repo, &cache);

    // Rename.
    std::fs::rename(
        repo.join("scripts/report.py"),
        repo.join("scripts/summary.py"),
    )
    .unwrap();
    assert_same_as_fresh("rename", &repo, &cache);

    // Touch without a change: the stamp differs, the content hash does not.
    let f = std::fs::File::options()
        .write(true)
        .open(repo.join("src/lib.rs"))
        .unwrap();
    f.set_modified(SystemTime::now()).unwrap();
    drop(f);
    assert_same_as_fresh("touch", &repo, &cache);

    // A file turns binary, then an ignore file excludes a folder.
    std::fs::write(repo.join("src/stats.rs"), b"\x00\x01binary").unwrap();
    assert_same_as_fresh("now binary", &repo, &cache);
    std::fs::write(repo.join(".gitignore"), "tools/\n").unwrap();
    assert_same_as_fresh("newly ignored", &repo, &cache);
    let (idx, _) = warm_open(&repo, &cache);
    assert!(idx.files.iter().all(|f| !f.path.starts_with("tools/")));
}

#[test]
fn a_warm_start_with_nothing_changed_reuses_everything() {
    let (_tmp, repo, cache) = scratch("python");
    let (a, _) = warm_open(&repo, &cache);
    let mut s = Session::open(Some(&cache));
    let prev = s.load(&repo, &opts()).expect("cache loads");
    assert_eq!(canonical(&prev), canonical(&a));
    assert!(
        s.refresh(&repo, &opts(), Some(&prev)).unwrap().is_none(),
        "nothing changed: no re-read, no re-resolve, no save"
    );
}

fn snapshot_dir(cache: &Path) -> PathBuf {
    let cur = std::fs::read_to_string(cache.join("CURRENT")).unwrap();
    cache.join(cur.trim())
}

#[test]
fn a_damaged_cache_is_rebuilt_never_trusted() {
    let (_tmp, repo, cache) = scratch("python");
    let fresh = canonical(&index_repo(&repo, &opts()).unwrap());
    type Damage = fn(&Path);
    let damages: &[(&str, Damage)] = &[
        ("truncated facts", |c| {
            let p = snapshot_dir(c).join("facts.bin");
            let len = std::fs::metadata(&p).unwrap().len();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_len(len / 2).unwrap();
        }),
        ("flipped byte in edges", |c| {
            let p = snapshot_dir(c).join("edges.bin");
            let mut b = std::fs::read(&p).unwrap();
            let i = b.len() - 3;
            b[i] ^= 0x5a;
            std::fs::write(&p, b).unwrap();
        }),
        // Facts are read and decoded a batch at a time: the checksum still guards all.
        ("flipped byte in facts", |c| {
            let p = snapshot_dir(c).join("facts.bin");
            let mut b = std::fs::read(&p).unwrap();
            let i = b.len() / 2;
            b[i] ^= 0x5a;
            std::fs::write(&p, b).unwrap();
        }),
        ("garbage manifest", |c| {
            std::fs::write(snapshot_dir(c).join("manifest.bin"), b"not a cache").unwrap();
        }),
        ("missing piece", |c| {
            std::fs::remove_file(snapshot_dir(c).join("unresolved.bin")).unwrap();
        }),
        ("missing name indexes", |c| {
            std::fs::remove_file(snapshot_dir(c).join("names.bin")).unwrap();
        }),
        ("CURRENT names nothing", |c| {
            std::fs::write(c.join("CURRENT"), "snap-gone").unwrap();
        }),
        ("CURRENT escapes", |c| {
            std::fs::write(c.join("CURRENT"), "../../etc").unwrap();
        }),
        // Every save must still replace it (a rename onto a folder fails).
        ("CURRENT is a folder", |c| {
            std::fs::remove_file(c.join("CURRENT")).unwrap();
            std::fs::create_dir(c.join("CURRENT")).unwrap();
        }),
        // The fingerprint's length byte: a garbled header, not another build.
        ("flipped byte in a header", |c| {
            let p = snapshot_dir(c).join("facts.bin");
            let mut b = std::fs::read(&p).unwrap();
            b[8] ^= 1;
            std::fs::write(&p, b).unwrap();
        }),
        // Neither may block or read without end.
        ("a FIFO instead of facts", |c| {
            let p = snapshot_dir(c).join("facts.bin");
            std::fs::remove_file(&p).unwrap();
            let ok = std::process::Command::new("mkfifo")
                .arg(&p)
                .status()
                .unwrap();
            assert!(ok.success());
        }),
        ("a symlink to an endless device", |c| {
            let p = snapshot_dir(c).join("edges.bin");
            std::fs::remove_file(&p).unwrap();
            std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
        }),
    ];
    for (what, damage) in damages {
        warm_open(&repo, &cache);
        damage(&cache);
        let mut s = Session::open(Some(&cache));
        assert!(s.load(&repo, &opts()).is_none(), "{what}: not trusted");
        assert_eq!(s.report.state, CacheState::Rebuilt, "{what}");
        let reason = s.report.reason.clone().unwrap_or_default();
        assert!(reason.contains("damaged"), "{what}: {reason}");
        let (idx, _) = s.refresh(&repo, &opts(), None).unwrap().unwrap();
        assert_eq!(canonical(&idx), fresh, "{what}: rebuilt index is right");
        assert!(
            s.report.saved,
            "{what}: the rebuild replaced the damaged cache: {:?}",
            s.report
        );
        let mut again = Session::open(Some(&cache));
        assert!(again.load(&repo, &opts()).is_some(), "{what}: usable again");
    }
}

#[test]
fn unchanged_stats_answer_only_for_a_tree_as_saved() {
    let (_tmp, repo, cache) = scratch("python");
    let check = |what: &str, expect: bool| {
        let mut s = Session::open(Some(&cache));
        let got = s.unchanged_stats(&repo, &opts());
        assert_eq!(got.is_some(), expect, "{what}");
        if let Some(stats) = got {
            assert_eq!(s.report.state, CacheState::Warm, "{what}");
            let mut fresh = index_repo(&repo, &opts()).unwrap().stats;
            let mut stats = stats;
            fresh.elapsed_ms.clear();
            stats.elapsed_ms.clear();
            assert_eq!(
                serde_json::to_value(&stats).unwrap(),
                serde_json::to_value(&fresh).unwrap(),
                "{what}: the manifest's counts are a fresh index's"
            );
        }
    };
    check("no cache yet", false);
    warm_open(&repo, &cache);
    check("as saved", true);
    let old = SystemTime::now() - Duration::from_secs(1800);
    type Change = fn(&Path, SystemTime);
    let changes: &[(&str, Change)] = &[
        ("same size, other mtime", |r, old| {
            let p = r.join("app/store.py");
            let mut b = std::fs::read(&p).unwrap();
            b[0] = if b[0] == b'#' { b' ' } else { b'#' };
            std::fs::write(&p, b).unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(old).unwrap();
        }),
        ("a new source file", |r, _| {
            std::fs::write(r.join("app/late.py"), "def late():\n    pass\n").unwrap();
        }),
        ("a new file the walk skips", |r, _| {
            std::fs::write(r.join("notes.unknownext"), "x").unwrap();
        }),
        ("a deleted file", |r, _| {
            std::fs::remove_file(r.join("app/late.py")).unwrap();
        }),
        // Size and mtime as they were: only the status-change time moves (a file made
        // readable again is noticed so).
        ("permissions changed", |r, _| {
            use std::os::unix::fs::PermissionsExt;
            let p = r.join("app/store.py");
            let mode = std::fs::metadata(&p).unwrap().permissions().mode();
            std::thread::sleep(Duration::from_millis(20));
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode ^ 0o040)).unwrap();
        }),
    ];
    for (what, change) in changes {
        change(&repo, old);
        check(what, false);
        warm_open(&repo, &cache);
        // A file written within RACY_NS of the save is not trusted by its stamp.
        check(
            &format!("{what}, saved again"),
            !what.contains("source file"),
        );
        common::backdate(&repo);
        warm_open(&repo, &cache);
        check(&format!("{what}, backdated and saved"), true);
    }
    // A damaged snapshot is never answered from: the load says why.
    let p = snapshot_dir(&cache).join("facts.bin");
    let mut b = std::fs::read(&p).unwrap();
    let i = b.len() / 2;
    b[i] ^= 0x5a;
    std::fs::write(&p, b).unwrap();
    check("damaged facts", false);
    let mut s = Session::open(Some(&cache));
    assert!(s.load(&repo, &opts()).is_none());
    assert_eq!(s.report.state, CacheState::Rebuilt);
}

/// The graph-only load (`Session::load_graph`, what `callers`, `symbols` and the other
/// graph commands use on a warm start) reads the graph's parts of the snapshot, not the
/// facts: it must give the very graph a full load gives (and a full load the very index
/// that was saved), and never answer for a changed tree or a damaged snapshot.
#[test]
fn the_graph_alone_loads_as_the_full_index_has_it() {
    for fixture in ["multi", "typescript", "go", "rust", "python", "javascript"] {
        let (_tmp, repo, cache) = scratch(fixture);
        let (idx, _) = warm_open(&repo, &cache);
        let want = canonical(&idx);
        let mut s = Session::open(Some(&cache));
        let first = s
            .load_graph(&repo, &opts())
            .unwrap_or_else(|| panic!("{fixture}: no graph from a snapshot of the tree as it is"));
        assert_eq!(s.report.state, CacheState::Warm, "{fixture}");
        assert!(first.index().files.is_empty());
        // The facts joined to that graph afterwards (what the TUI's worker does): the
        // index saved, the graph shared.
        let staged = s.load_facts(&first).expect("facts");
        assert!(std::sync::Arc::ptr_eq(&staged.graph, &first.graph));
        assert_eq!(
            staged.files, idx.files,
            "{fixture}: facts loaded after the graph"
        );
        assert_eq!(staged.stamps, idx.stamps, "{fixture}");
        assert_eq!(canonical(&staged), want, "{fixture}");
        let graph = &first.graph;
        assert_eq!(
            serde_json::to_string_pretty(&graph.to_canonical_json()).unwrap(),
            want,
            "{fixture}: the graph-only load differs from the index saved"
        );
        assert!(graph.unresolved_count() > 0 || idx.graph.unresolved_count() == 0);
        // The full load: the facts come back whole (their definitions' ids and names are
        // stored with the nodes and put back), sharing the graph's strings.
        let full = Session::open(Some(&cache))
            .load(&repo, &opts())
            .unwrap_or_else(|| panic!("{fixture}: no full load"));
        assert_eq!(
            full.files, idx.files,
            "{fixture}: the facts differ after a load"
        );
        assert_eq!(canonical(&full), want, "{fixture}");
        let d = full.files.iter().find_map(|f| f.definitions.first());
        let d = d.unwrap_or_else(|| panic!("{fixture}: no definitions"));
        let n = full.graph.node(&d.id).unwrap();
        assert!(std::sync::Arc::ptr_eq(&d.id, &n.id) && std::sync::Arc::ptr_eq(&d.name, &n.name));
    }
    let (_tmp, repo, cache) = scratch("python");
    warm_open(&repo, &cache);
    std::fs::write(repo.join("app/late.py"), "def late():\n    return 1\n").unwrap();
    assert!(
        Session::open(Some(&cache))
            .load_graph(&repo, &opts())
            .is_none(),
        "a changed tree is never answered from the snapshot's graph"
    );
    warm_open(&repo, &cache);
    common::backdate(&repo);
    warm_open(&repo, &cache);
    assert!(Session::open(Some(&cache))
        .load_graph(&repo, &opts())
        .is_some());
    // Damaged facts: the graph alone still stands (its parts hold); a full load refuses.
    let damage = |name: &str| {
        let p = snapshot_dir(&cache).join(name);
        let mut b = std::fs::read(&p).unwrap();
        let i = b.len() / 2;
        b[i] ^= 0x5a;
        std::fs::write(&p, b).unwrap();
    };
    damage("facts.bin");
    assert!(Session::open(Some(&cache)).load(&repo, &opts()).is_none());
    assert!(Session::open(Some(&cache))
        .load_graph(&repo, &opts())
        .is_some());
    damage("nodes.bin");
    assert!(
        Session::open(Some(&cache))
            .load_graph(&repo, &opts())
            .is_none(),
        "a damaged snapshot is never answered from"
    );
}

#[test]
fn a_part_from_another_snapshot_is_not_trusted() {
    let (_tmp, repo, cache) = scratch("python");
    warm_open(&repo, &cache);
    let old = snapshot_dir(&cache);
    let kept = cache.join("old-edges.bin");
    std::fs::copy(old.join("edges.bin"), &kept).unwrap();
    std::fs::write(repo.join("app/late.py"), "def late():\n    return 1\n").unwrap();
    warm_open(&repo, &cache);
    let new = snapshot_dir(&cache);
    assert_ne!(old, new);
    // Each file's own checksum holds; the manifest does not list this one.
    std::fs::copy(&kept, new.join("edges.bin")).unwrap();
    let mut s = Session::open(Some(&cache));
    assert!(
        s.unchanged_stats(&repo, &opts()).is_none(),
        "answered from a pieced cache"
    );
    assert!(s.load(&repo, &opts()).is_none());
    let reason = s.report.reason.clone().unwrap_or_default();
    assert!(
        reason.contains("damaged") && reason.contains("another snapshot"),
        "{reason}"
    );
}

#[test]
fn a_file_dated_in_the_future_is_hashed_but_not_saved_again_and_again() {
    let (_tmp, repo, cache) = scratch("python");
    warm_open(&repo, &cache);
    let p = repo.join("app/store.py");
    let f = std::fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(86_400))
        .unwrap();
    let (_, s) = warm_open(&repo, &cache);
    assert!(s.report.saved, "the new stamp is saved");
    let mut s = Session::open(Some(&cache));
    let prev = s.load(&repo, &opts()).unwrap();
    // Racily clean for a day: hashed at every reconciliation, same content, no save.
    assert!(s.refresh(&repo, &opts(), Some(&prev)).unwrap().is_none());
    assert!(!s.report.saved);
}

#[test]
fn other_options_or_a_leftover_of_a_crashed_save_are_handled() {
    let (_tmp, repo, cache) = scratch("python");
    warm_open(&repo, &cache);
    let other = IndexOptions {
        caps: codegraph_tui::index::Caps {
            max_file_bytes: 4096,
            ..Default::default()
        },
        ..opts()
    };
    let mut s = Session::open(Some(&cache));
    assert!(s.load(&repo, &other).is_none());
    assert_eq!(s.report.state, CacheState::Rebuilt);
    assert!(s.report.reason.as_deref().unwrap_or("").contains("options"));
    drop(s);

    // A crash in the middle of a save leaves a temporary folder and CURRENT.tmp: the
    // live snapshot is still the old one, and the next save clears the leftovers.
    std::fs::create_dir_all(cache.join(".snap-dead-1.tmp")).unwrap();
    std::fs::write(cache.join(".snap-dead-1.tmp/facts.bin"), b"partial").unwrap();
    std::fs::write(cache.join(".CURRENT.tmp"), "snap-dead-1").unwrap();
    let mut s = Session::open(Some(&cache));
    assert!(s.load(&repo, &opts()).is_some(), "old snapshot still live");
    drop(s);
    std::fs::write(repo.join("app/new.py"), "def fresh():\n    pass\n").unwrap();
    let (_, s) = warm_open(&repo, &cache);
    assert!(s.report.saved);
    assert!(
        !cache.join(".snap-dead-1.tmp").exists(),
        "leftover collected"
    );
    let snaps = std::fs::read_dir(&cache)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("snap-")
        })
        .count();
    assert_eq!(snaps, 1, "only the live snapshot is kept");
}

#[test]
fn a_second_instance_opens_read_only_and_writes_nothing() {
    let (_tmp, repo, cache) = scratch("python");
    let mut writer = Session::open(Some(&cache));
    assert!(!writer.report.read_only);
    let (idx, _) = writer.refresh(&repo, &opts(), None).unwrap().unwrap();
    let current = std::fs::read_to_string(cache.join("CURRENT")).unwrap();

    let mut reader = Session::open(Some(&cache));
    assert!(reader.report.read_only, "the lock is held by the first");
    assert!(reader.writable_dir().is_none());
    let loaded = reader.load(&repo, &opts()).expect("reads the cache");
    assert_eq!(canonical(&loaded), canonical(&idx));
    std::fs::write(repo.join("app/more.py"), "def more():\n    pass\n").unwrap();
    let (updated, _) = reader
        .refresh(&repo, &opts(), Some(&loaded))
        .unwrap()
        .expect("sees the change");
    assert!(updated.graph.node("app/more.py::more").is_some());
    assert!(!reader.report.saved);
    assert_eq!(
        std::fs::read_to_string(cache.join("CURRENT")).unwrap(),
        current,
        "the read-only instance did not write"
    );
    drop(writer);
    let third = Session::open(Some(&cache));
    assert!(
        !third.report.read_only,
        "the lock is released with the writer"
    );
}

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

fn cg(cache_home: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph-tui"));
    c.env(
        "CODEGRAPH_CONFIG",
        "/nonexistent/codegraph-test-config.toml",
    )
    .env("XDG_CACHE_HOME", cache_home);
    c
}

fn index_json(cache_home: &Path, repo: &Path, extra: &[&str]) -> serde_json::Value {
    common::json_of(
        cg(cache_home)
            .arg("-C")
            .arg(repo)
            .args(extra)
            .args(["index", "--json"])
            .output()
            .unwrap(),
    )
}

#[test]
fn cli_reports_the_cache_state_and_rebuilds_on_request() {
    let (tmp, repo, _) = scratch("python");
    let home = tmp.path().join("xdg");
    let first = index_json(&home, &repo, &[]);
    assert_eq!(first["cache"]["state"], "cold");
    assert_eq!(first["cache"]["saved"], true);
    let dir = first["cache_dir"].as_str().unwrap().to_string();
    assert!(dir.starts_with(home.to_str().unwrap()), "{dir}");
    assert!(
        !dir.starts_with(repo.to_str().unwrap()),
        "never inside the repo"
    );
    let second = index_json(&home, &repo, &[]);
    assert_eq!(second["cache"]["state"], "warm");
    assert_eq!(
        second["cache"]["saved"], false,
        "nothing changed, nothing written"
    );
    assert_eq!(
        second["stats"]["definitions"],
        first["stats"]["definitions"]
    );
    let rebuilt = cg(&home)
        .arg("-C")
        .arg(&repo)
        .args(["index", "--rebuild", "--json"])
        .output()
        .unwrap();
    let rebuilt: serde_json::Value = serde_json::from_slice(&rebuilt.stdout).unwrap();
    assert_eq!(rebuilt["cache"]["state"], "rebuilt");
    let off = index_json(&home, &repo, &["--no-cache"]);
    assert_eq!(off["cache"]["state"], "off");
    assert_eq!(off["cache_dir"], serde_json::Value::Null);

    // A damaged cache: the command still answers right, and says why on the JSON.
    let cur = std::fs::read_to_string(Path::new(&dir).join("CURRENT")).unwrap();
    std::fs::write(Path::new(&dir).join(cur.trim()).join("facts.bin"), b"junk").unwrap();
    let damaged = index_json(&home, &repo, &[]);
    assert_eq!(damaged["cache"]["state"], "rebuilt");
    assert!(damaged["cache"]["reason"]
        .as_str()
        .unwrap()
        .contains("damaged"));
    assert_eq!(
        damaged["stats"]["definitions"],
        first["stats"]["definitions"]
    );

    // Every command answers from the reconciled index: an edit shows up at once.
    std::fs::write(repo.join("app/late.py"), "def late_fn():\n    return 1\n").unwrap();
    let out = cg(&home)
        .arg("-C")
        .arg(&repo)
        .args(["symbols", "late_fn", "--json"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("app/late.py::late_fn"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn index_watch_prints_one_line_per_update() {
    use std::io::BufRead;
    let (tmp, repo, _) = scratch("python");
    let home = tmp.path().join("xdg");
    let mut child = cg(&home)
        .arg("-C")
        .arg(&repo)
        .args(["index", "--watch", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let stdout = child.stdout.take().unwrap();
    let _guard = Kill(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    let first: serde_json::Value =
        serde_json::from_str(&rx.recv_timeout(Duration::from_secs(60)).unwrap()).unwrap();
    assert!(first["stats"]["definitions"].as_u64().unwrap() > 0);
    std::thread::sleep(Duration::from_millis(500));
    // A burst of writes to several files is one update.
    for i in 0..5 {
        std::fs::write(
            repo.join(format!("app/burst{i}.py")),
            format!("def burst_{i}():\n    return {i}\n"),
        )
        .unwrap();
    }
    let line = rx.recv_timeout(Duration::from_secs(30)).unwrap();
    let upd: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(upd["update"], 1, "{line}");
    let added: Vec<&str> = upd["added"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(
        added,
        (0..5)
            .map(|i| format!("app/burst{i}.py"))
            .collect::<Vec<_>>(),
        "{line}"
    );
    std::fs::remove_file(repo.join("app/burst0.py")).unwrap();
    let line = rx.recv_timeout(Duration::from_secs(30)).unwrap();
    let upd: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(upd["update"], 2, "{line}");
    assert_eq!(upd["removed"], serde_json::json!(["app/burst0.py"]));
}

/// Source files of a repo (not expected.json), sorted.
fn source_files(repo: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![repo.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "expected.json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Reconciles `prev` with the disk (incremental resolution, checked against a full one
/// by [`VERIFY`]) and compares the graph with a fresh index.
fn step_matches_fresh(case: &Path, repo: &Path, what: &str, prev: Index) -> Index {
    use codegraph_tui::index::incremental::{reconcile, Reconciled};
    let next = match reconcile(repo, &prev, &opts()).unwrap() {
        Reconciled::Unchanged => prev,
        Reconciled::Updated(i, _) => *i,
    };
    let fresh = index_repo(repo, &opts()).unwrap();
    assert_eq!(
        canonical(&next),
        canonical(&fresh),
        "{}: {what}",
        case.display()
    );
    assert_eq!(
        next.graph.name_order(),
        fresh.graph.name_order(),
        "{}: {what}: name indexes",
        case.display()
    );
    next
}

#[test]
fn incremental_resolution_matches_a_full_one_on_every_conformance_case() {
    verify_incremental();
    let root = common::fixture("conformance");
    let mut cases = 0;
    for lang in std::fs::read_dir(&root).unwrap() {
        for case in std::fs::read_dir(lang.unwrap().path()).unwrap() {
            let case = case.unwrap().path();
            cases += 1;
            let tmp = tempfile::tempdir().unwrap();
            let repo = tmp.path().join("repo");
            common::copy_dir(&case, &repo);
            let repo = repo.canonicalize().unwrap();
            let mut idx = index_repo(&repo, &opts()).unwrap();
            for file in source_files(&repo) {
                let rel = file
                    .strip_prefix(&repo)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let text = std::fs::read(&file).unwrap();
                // Delete it, then bring it back.
                std::fs::remove_file(&file).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("delete {rel}"), idx);
                std::fs::write(&file, &text).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("restore {rel}"), idx);
                // Rename its first definition everywhere in the file.
                let first = idx
                    .files
                    .iter()
                    .find(|f| f.path == rel)
                    .and_then(|f| f.definitions.first())
                    .map(|d| d.name.to_string());
                // Every line moved down one: the same definitions at other positions.
                let mut shifted = b"\n".to_vec();
                shifted.extend_from_slice(&text);
                std::fs::write(&file, &shifted).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("shift {rel}"), idx);
                std::fs::write(&file, &text).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("unshift {rel}"), idx);
                if let Some(name) = first {
                    // The first mention renamed alone (usually the definition itself).
                    let s = String::from_utf8_lossy(&text).replacen(&name, &format!("{name}Zq"), 1);
                    std::fs::write(&file, s).unwrap();
                    idx = step_matches_fresh(
                        &case,
                        &repo,
                        &format!("rename once {name} in {rel}"),
                        idx,
                    );
                    std::fs::write(&file, &text).unwrap();
                    idx = step_matches_fresh(&case, &repo, &format!("unrename once {rel}"), idx);
                    let s = String::from_utf8_lossy(&text).replace(&name, &format!("{name}Zq"));
                    std::fs::write(&file, s).unwrap();
                    idx = step_matches_fresh(&case, &repo, &format!("rename {name} in {rel}"), idx);
                    std::fs::write(&file, &text).unwrap();
                    idx = step_matches_fresh(&case, &repo, &format!("unrename {rel}"), idx);
                }
                // A copy elsewhere: every name defined twice.
                let ext = file.extension().map(|e| e.to_string_lossy().into_owned());
                let copy = repo.join(format!("zz_copy.{}", ext.unwrap_or_default()));
                std::fs::write(&copy, &text).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("copy of {rel}"), idx);
                std::fs::remove_file(&copy).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("remove copy of {rel}"), idx);
            }
        }
    }
    assert!(cases >= 80, "{cases} cases");
}

/// The name indexes a cache stores give the graph the lookups a fresh sort gives, and an
/// order that does not fit the nodes is refused (the load then rebuilds).
#[test]
fn a_saved_name_order_rebuilds_the_same_lookups_and_a_wrong_one_is_refused() {
    use codegraph_tui::index::graph::CodeGraph;
    let (_tmp, repo, _cache) = scratch("python");
    let idx = index_repo(&repo, &opts()).unwrap();
    let g = &idx.graph;
    let nodes: Vec<_> = g.nodes().cloned().collect();
    let (edges, unresolved) = g.to_raw_parts();
    let order = g.name_order();
    let build =
        |o| CodeGraph::from_parts_ordered(nodes.clone(), edges.clone(), unresolved.clone(), o);
    let h = build(order.clone()).unwrap();
    let sorted = CodeGraph::from_parts(nodes.clone(), edges.clone(), unresolved.clone());
    assert_eq!(h.name_order(), sorted.name_order());
    // What a save writes in place is what the owned order encodes to.
    assert_eq!(
        postcard::to_stdvec(&g.name_order_ser()).unwrap(),
        postcard::to_stdvec(&order).unwrap()
    );
    assert_eq!(
        postcard::to_stdvec(&g.raw_edges_ser()).unwrap(),
        postcard::to_stdvec(&edges).unwrap()
    );
    assert_eq!(h.to_canonical_json(), g.to_canonical_json());
    for n in g.nodes() {
        for q in [&*n.name, &*n.qualified_name, &*n.id] {
            let ids = |g: &CodeGraph| -> Vec<String> {
                g.lookup(q).iter().map(|n| n.id.to_string()).collect()
            };
            assert_eq!(ids(&h), ids(g), "lookup {q}");
        }
    }
    let file_pos = nodes
        .iter()
        .position(|n| n.kind == codegraph_tui::index::Kind::File)
        .unwrap() as u32;
    type Spoil = fn(&mut codegraph_tui::index::graph::NameOrder, u32);
    let spoils: &[(&str, Spoil)] = &[
        ("short", |o, _| {
            o.by_name.pop();
        }),
        ("repeated", |o, _| o.by_qualified[0] = o.by_qualified[1]),
        ("out of range", |o, _| o.id_rank[0] = u32::MAX),
        ("a file among definitions", |o, f| o.by_name[0] = f),
    ];
    for (what, spoil) in spoils {
        let mut o = order.clone();
        spoil(&mut o, file_pos);
        assert!(build(o).is_err(), "{what} accepted");
    }
}

/// An edit to a file with calls re-resolves that file and the files that mention its
/// names, not the whole repository, and gives what a fresh index gives.
#[test]
fn an_edit_re_resolves_only_the_files_it_can_affect() {
    verify_incremental();
    let (_tmp, repo, cache) = scratch("python");
    let (prev, mut s) = warm_open(&repo, &cache);
    let total = prev.files.len() as u64;
    let path = repo.join("app/render.py");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        "\n\ndef render_twice(rows):\n    return render_text(rows) + render_list(rows)\n",
    );
    std::fs::write(&path, text).unwrap();
    let (idx, changes) = s.refresh(&repo, &opts(), Some(&prev)).unwrap().unwrap();
    assert_eq!(changes.modified, vec!["app/render.py".to_string()]);
    assert!(
        changes.resolved >= 1 && changes.resolved < total,
        "resolved {} of {total} files: the incremental path was not taken",
        changes.resolved
    );
    let fresh = index_repo(&repo, &opts()).unwrap();
    assert_eq!(canonical(&idx), canonical(&fresh));
}

/// A function appended to a file that others call re-resolves that file alone: no other
/// file can write the new name, and nothing they read of the file changed (its other
/// definitions only moved or kept their place). Before, every file calling any function
/// of the edited file was resolved again.
#[test]
fn an_appended_function_re_resolves_only_its_own_file() {
    verify_incremental();
    let (_tmp, repo, cache) = scratch("python");
    let (prev, mut s) = warm_open(&repo, &cache);
    let path = repo.join("app/render.py");
    let text = std::fs::read_to_string(&path).unwrap();
    // Callers of render.py's functions elsewhere: what the old rule re-resolved.
    let callers = prev
        .files
        .iter()
        .filter(|f| f.path != "app/render.py")
        .filter(|f| f.calls.iter().any(|c| c.name.starts_with("render_")))
        .count();
    assert!(callers >= 1, "the fixture has callers of render.py");
    // At the top, so every definition of the file moves down two lines.
    std::fs::write(&path, format!("def appended_fn():\n    return 1\n{text}")).unwrap();
    let (idx, changes) = s.refresh(&repo, &opts(), Some(&prev)).unwrap().unwrap();
    assert_eq!(changes.modified, vec!["app/render.py".to_string()]);
    assert_eq!(changes.resolved, 1);
    let fresh = index_repo(&repo, &opts()).unwrap();
    assert_eq!(canonical(&idx), canonical(&fresh));
    // Renaming a called function re-resolves its callers (their calls now fail).
    let renamed = std::fs::read_to_string(&path).unwrap().replacen(
        "def render_text(",
        "def render_text_v2(",
        1,
    );
    std::fs::write(&path, renamed).unwrap();
    let (idx2, changes) = s.refresh(&repo, &opts(), Some(&idx)).unwrap().unwrap();
    assert!(changes.resolved > 1, "resolved {}", changes.resolved);
    let fresh = index_repo(&repo, &opts()).unwrap();
    assert_eq!(canonical(&idx2), canonical(&fresh));
}

/// Reading the repository (what every reconciliation does: open each folder, read each
/// file) never wakes the watcher; writing does. inotify reports opens and closes too,
/// and passing them on made the TUI re-index itself about ten times a second.
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

/// Reconciles `prev` with the disk (incremental resolution, checked against a full one,
/// edge order included, by `VERIFY`), compares the graph with a fresh index and gives the
/// new index with the number of files resolved again.
fn reconcile_matches_fresh(repo: &Path, what: &str, prev: Index) -> (Index, u64) {
    use codegraph_tui::index::incremental::{reconcile, Reconciled};
    let (next, resolved) = match reconcile(repo, &prev, &opts()).unwrap() {
        Reconciled::Unchanged => (prev, 0),
        Reconciled::Updated(i, c) => (*i, c.resolved),
    };
    let fresh = index_repo(repo, &opts()).unwrap();
    assert_eq!(canonical(&next), canonical(&fresh), "{what}");
    assert_eq!(
        next.graph.name_order(),
        fresh.graph.name_order(),
        "{what}: name indexes"
    );
    (next, resolved)
}

/// The files of the `implements` edges from `source` to `target` in `idx`'s graph, one
/// entry per edge: the file of each edge's sites.
fn implements_sites(idx: &Index, source: &str, target: &str) -> Vec<String> {
    idx.graph
        .edges()
        .iter()
        .filter(|e| e.source == source && e.target == target && e.relation.as_str() == "implements")
        .map(|e| {
            let files: Vec<&str> = e.sites.iter().map(|s| &*s.file).collect();
            assert_eq!(files.len(), 1, "{e:?}");
            files[0].to_string()
        })
        .collect()
}

/// Rust's `impl Trait for Type` with the type in another file makes an `implements` edge
/// that starts at the type's node but is produced by (and has its site in) the impl's
/// file. Incremental updates carried such edges over with the file they start in, so the
/// edge list differed from a full resolution (found by `verify_incremental.py` on Rust
/// crates); its site was also reported in the type's file. Edits of either file, of a file
/// between them, copies and a rename, each checked against a full resolution.
#[test]
fn an_impl_in_another_file_than_its_type_survives_every_edit() {
    verify_incremental();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let src = repo.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let write = |rel: &str, text: &str| std::fs::write(repo.join(rel), text).unwrap();
    write(
        "Cargo.toml",
        "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        "src/lib.rs",
        "pub mod a_type;\npub mod m_middle;\npub mod shape;\npub mod z_impl;\n",
    );
    let a_type = "pub struct Square {\n    pub side: f64,\n}\n\nimpl Square {\n    pub fn new(side: f64) -> Square {\n        Square { side }\n    }\n}\n";
    write("src/a_type.rs", a_type);
    write(
        "src/shape.rs",
        "pub trait Area {\n    fn area(&self) -> f64;\n}\n\npub trait Marker {}\n",
    );
    let middle =
        "use crate::a_type::Square;\n\npub fn make() -> Square {\n    Square::new(2.0)\n}\n";
    write("src/m_middle.rs", middle);
    let z_impl = "use crate::a_type::Square;\nuse crate::shape::{Area, Marker};\n\nimpl Area for Square {\n    fn area(&self) -> f64 {\n        self.side * self.side\n    }\n}\n\nimpl Marker for Square {}\n";
    write("src/z_impl.rs", z_impl);
    common::backdate(&repo);
    let repo = repo.canonicalize().unwrap();
    let (sq, area) = ("src/a_type.rs::Square", "src/shape.rs::Area");

    let idx = index_repo(&repo, &opts()).unwrap();
    assert_eq!(implements_sites(&idx, sq, area), ["src/z_impl.rs"]);
    assert_eq!(
        implements_sites(&idx, sq, "src/shape.rs::Marker"),
        ["src/z_impl.rs"]
    );

    // A file between the two edited: both carried over, the impl's edges in its slot.
    write(
        "src/m_middle.rs",
        &format!("{middle}\npub fn more() -> u32 {{\n    1\n}}\n"),
    );
    let (idx, resolved) = reconcile_matches_fresh(&repo, "append to m_middle.rs", idx);
    assert_eq!(resolved, 1, "only m_middle.rs is resolved again");
    assert_eq!(implements_sites(&idx, sq, area), ["src/z_impl.rs"]);

    // The type's file: a definition before `Square` moves it; the carried edge follows.
    write(
        "src/a_type.rs",
        &format!("\npub struct Circle;\n\n{a_type}"),
    );
    let (idx, resolved) = reconcile_matches_fresh(&repo, "a struct before Square", idx);
    assert_eq!(resolved, 1, "the impl's file does not write `Circle`");
    assert_eq!(implements_sites(&idx, sq, area), ["src/z_impl.rs"]);
    write("src/a_type.rs", a_type);
    let (idx, _) = reconcile_matches_fresh(&repo, "restore a_type.rs", idx);

    // Copies of either file, then removed again.
    write("src/zz_copy.rs", z_impl);
    let (idx, _) = reconcile_matches_fresh(&repo, "copy of z_impl.rs", idx);
    assert_eq!(
        implements_sites(&idx, sq, area),
        ["src/z_impl.rs", "src/zz_copy.rs"]
    );
    std::fs::remove_file(repo.join("src/zz_copy.rs")).unwrap();
    let (idx, _) = reconcile_matches_fresh(&repo, "remove the copy of z_impl.rs", idx);
    write("src/b_copy.rs", a_type);
    let (idx, _) = reconcile_matches_fresh(&repo, "copy of a_type.rs", idx);
    std::fs::remove_file(repo.join("src/b_copy.rs")).unwrap();
    let (idx, _) = reconcile_matches_fresh(&repo, "remove the copy of a_type.rs", idx);

    // The impl's file renamed to a place before the middle file, then changed.
    std::fs::rename(repo.join("src/z_impl.rs"), repo.join("src/c_impl.rs")).unwrap();
    let (idx, _) = reconcile_matches_fresh(&repo, "rename z_impl.rs to c_impl.rs", idx);
    assert_eq!(implements_sites(&idx, sq, area), ["src/c_impl.rs"]);
    write(
        "src/c_impl.rs",
        &z_impl.replace("impl Marker for Square {}\n", ""),
    );
    let (idx, _) = reconcile_matches_fresh(&repo, "drop impl Marker", idx);
    assert!(implements_sites(&idx, sq, "src/shape.rs::Marker").is_empty());
    write("src/c_impl.rs", z_impl);
    let (idx, _) = reconcile_matches_fresh(&repo, "restore impl Marker", idx);

    // The type renamed away and back, then its file deleted and restored.
    write("src/a_type.rs", &a_type.replace("Square", "Tile"));
    let (idx, _) = reconcile_matches_fresh(&repo, "rename Square to Tile", idx);
    assert!(implements_sites(&idx, sq, area).is_empty());
    write("src/a_type.rs", a_type);
    let (idx, _) = reconcile_matches_fresh(&repo, "rename Tile to Square", idx);
    assert_eq!(implements_sites(&idx, sq, area), ["src/c_impl.rs"]);
    std::fs::remove_file(repo.join("src/a_type.rs")).unwrap();
    let (idx, _) = reconcile_matches_fresh(&repo, "delete a_type.rs", idx);
    write("src/a_type.rs", a_type);
    let (idx, _) = reconcile_matches_fresh(&repo, "restore a_type.rs", idx);
    assert_eq!(implements_sites(&idx, sq, area), ["src/c_impl.rs"]);
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
