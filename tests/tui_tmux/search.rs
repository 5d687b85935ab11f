//! The TUI's background search-index build leaves a text index the command line reuses.

use super::{common, Session};

/// The TUI builds the text index in the background once the graph is on screen and
/// records the saved snapshot with it: after quitting, `search --mode text` on the same
/// tree answers from that index alone, making no chunk.
#[test]
fn the_tuis_background_build_serves_the_next_text_search() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    common::copy_dir(&common::fixture("python"), &repo);
    common::backdate(&repo);
    let cache = dir.path().join("cache");
    let env = [format!("XDG_CACHE_HOME={}", cache.display())];
    let Some(s) = Session::start("prebuild", &repo, dir.path(), &env) else {
        return;
    };
    s.wait_for(&["ready", "38 symbols", "Search symbols"]);
    // "ready" comes back once the background build is done.
    let start = std::time::Instant::now();
    while s.capture().contains("search index:") {
        assert!(start.elapsed().as_secs() < 60, "{}", s.capture());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    s.escape();
    s.keys(&["q"]);
    s.assert_restored(0);
    let out = common::isolated(dir.path(), &repo)
        .env("XDG_CACHE_HOME", &cache)
        .args([
            "search",
            "--mode",
            "text",
            "--json",
            "--stats",
            "render json",
        ])
        .output()
        .expect("run");
    let (stdout, stats) = common::stats_of(out);
    assert!(stdout.contains("render_json"), "{stdout}");
    assert_eq!(stats["build"]["text_reused"], true, "{stats}");
    assert!(
        stats["build"]["elapsed_ms"].get("chunks").is_none(),
        "answered from the TUI's saved index: {stats}"
    );
}

/// An indexed copy of the Python fixture: (its temp dir, the repo, the cache folder).
fn indexed_fixture() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    common::copy_dir(&common::fixture("python"), &repo);
    common::backdate(&repo);
    let cache = dir.path().join("cache");
    let out = common::isolated(dir.path(), &repo)
        .env("XDG_CACHE_HOME", &cache)
        .args(["index", "--json"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    (dir, repo, cache)
}

/// Starts the TUI on `repo` with `cache`, asks the hybrid mode for `render json`, quits,
/// and returns the TUI's log; `None` without tmux.
fn hybrid_query_log(
    tag: &str,
    dir: &std::path::Path,
    repo: &std::path::Path,
    cache: &std::path::Path,
) -> Option<String> {
    let state = dir.join(format!("state-{tag}"));
    let env = [
        format!("XDG_CACHE_HOME={}", cache.display()),
        format!("XDG_STATE_HOME={}", state.display()),
    ];
    let s = Session::start(tag, repo, dir, &env)?;
    s.wait_for(&["38 symbols", "Search symbols"]);
    // Symbols, text, semantic, hybrid.
    for _ in 0..3 {
        s.keys(&["C-t"]);
    }
    s.wait_for(&["hybrid"]);
    s.text("render json");
    s.wait_for(&["render_json"]);
    assert!(!s.capture().contains("search index:"), "{}", s.capture());
    s.escape();
    s.keys(&["q"]);
    s.assert_restored(0);
    Some(
        std::fs::read_dir(state.join("codegraph-tui/logs"))
            .expect("log dir")
            .map(|e| std::fs::read_to_string(e.expect("entry").path()).unwrap_or_default())
            .collect(),
    )
}

/// The log shows the hybrid query answered from the saved indexes, nothing built.
fn assert_served_from_saved(logs: &str) {
    assert!(
        logs.contains("chunk search ready from the saved indexes"),
        "{logs}"
    );
    assert!(
        !logs.contains("chunk search ready chunks="),
        "nothing built: {logs}"
    );
}

/// After `index` (which saves the text index, the chunk table and the embedder's fit for
/// the snapshot), a TUI started on the unchanged tree answers its first hybrid query from
/// those saved indexes: nothing is built, and the log says so.
#[test]
fn a_warm_tui_answers_hybrid_from_the_saved_indexes() {
    let (dir, repo, cache) = indexed_fixture();
    if let Some(logs) = hybrid_query_log("savedhybrid", dir.path(), &repo, &cache) {
        assert_served_from_saved(&logs);
    }
}

/// A TUI that finds the cache locked by another instance (here `index --watch`) reads it
/// without writing, and answers its first hybrid query from the saved indexes all the
/// same: nothing is built in memory.
#[test]
fn a_read_only_tui_answers_hybrid_from_the_saved_indexes() {
    let (dir, repo, cache) = indexed_fixture();
    /// Ends the watcher however the test ends.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let watcher = common::isolated(dir.path(), &repo)
        .env("XDG_CACHE_HOME", &cache)
        .env("XDG_STATE_HOME", dir.path().join("watch-state"))
        .args(["index", "--watch"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(Killed)
        .expect("watcher");
    // The watcher holds the lock once it has checked the tree.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let logs = hybrid_query_log("readonlyhybrid", dir.path(), &repo, &cache);
    drop(watcher);
    if let Some(logs) = logs {
        assert!(
            logs.contains("cache locked by another instance: read-only"),
            "{logs}"
        );
        assert_served_from_saved(&logs);
    }
}
