//! The on-disk cache and incremental updates (`docs/contracts.md#cache-layout`): after any sequence of
//! edits the reconciled index equals a fresh one byte for byte (graph and search); a
//! damaged, stale or foreign cache is rebuilt, never trusted; a second instance is
//! read-only; the watcher turns a saved file into a new snapshot.
//!
//! This file holds the helpers every part uses and the scripted-edit tests; the other
//! tests are in `incremental/` by topic: `trust` (which caches are used), `watch` (the
//! watcher and the worker), `commands` (the cache from the command line) and `resolution`
//! (what an edit resolves again). One test binary for all: each binary links the library.

mod common;

#[path = "incremental/commands.rs"]
mod commands;
#[path = "incremental/resolution.rs"]
mod resolution;
#[path = "incremental/trust.rs"]
mod trust;
#[path = "incremental/watch.rs"]
mod watch;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use codegraph_tui::index::search::{Mode, Searcher};
use codegraph_tui::index::session::{CacheState, Session};
use codegraph_tui::index::{index_repo, Index, IndexOptions};

fn opts() -> IndexOptions {
    IndexOptions {
        threads: 2,
        ..IndexOptions::default()
    }
}

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
