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
