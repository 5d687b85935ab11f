//! Search over the fixture repos: BM25 finds identifiers in any shape, filters restrict,
//! phrases match across identifier shapes, hybrid puts exact names first and reports
//! provenance, and the on-disk text index is reused when nothing changed.

mod common;

use codegraph_tui::index::search::hybrid::{EXACT_NAME_BONUS, FOLDED_NAME_BONUS};
use codegraph_tui::index::search::{Hit, Mode, Searcher};

fn searcher(name: &str, mode: Mode) -> Searcher {
    let idx = common::index(&common::fixture(name), 2);
    Searcher::build(&idx, mode, None, None, None).expect("searcher")
}

fn ids(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.id.as_str()).collect()
}

#[test]
fn text_finds_identifiers_in_any_shape() {
    let s = searcher("python", Mode::Text);
    for q in ["allocate_id", "allocateId", "AllocateId", "allocate id"] {
        let hits = s.search(q, Mode::Text, 5).expect("search");
        assert_eq!(
            hits.first().map(|h| h.id.as_str()),
            Some("app/store.py::MemoryStore.allocate_id"),
            "query {q:?}: {:?}",
            ids(&hits)
        );
        assert_eq!(hits[0].text_rank, Some(1));
        assert_eq!(hits[0].semantic_rank, None);
    }
}

#[test]
fn filters_and_phrases() {
    let s = searcher("multi", Mode::Text);
    let all = s.search("parse", Mode::Text, 50).expect("search");
    assert!(!all.is_empty());
    let py = s.search("lang:python", Mode::Text, 100).expect("search");
    assert!(
        !py.is_empty() && py.iter().all(|h| h.path.ends_with(".py")),
        "{:?}",
        ids(&py)
    );
    let windows = s.search("kind:window", Mode::Text, 100).expect("search");
    assert!(windows.iter().all(|h| h.kind == "window"));
    assert!(windows.iter().any(|h| h.path == "README.md"));
    let web = s.search("path:web/", Mode::Text, 100).expect("search");
    assert!(!web.is_empty() && web.iter().all(|h| h.path.starts_with("web/")));
    // `path:` is a substring, also one that cuts a word of the path.
    let part = s.search("path:eb/", Mode::Text, 100).expect("search");
    assert_eq!(ids(&part), ids(&web));
    let cut = s
        .search("chart path:ashbo", Mode::Text, 100)
        .expect("search");
    assert!(
        !cut.is_empty() && cut.iter().all(|h| h.path == "web/dashboard.ts"),
        "{:?}",
        ids(&cut)
    );
    assert!(s
        .search("path:zzzz", Mode::Text, 10)
        .expect("search")
        .is_empty());

    let r = searcher("rust", Mode::Text);
    let hits = r
        .search("\"parse config\" path:storage/", Mode::Text, 5)
        .expect("search");
    assert_eq!(
        hits.first().map(|h| h.id.as_str()),
        Some("src/storage/codec.rs::parse_config"),
        "{:?}",
        ids(&hits)
    );
    assert!(r
        .search("\"config parse zzz\"", Mode::Text, 5)
        .expect("search")
        .is_empty());
}

#[test]
fn hybrid_exact_name_first_with_provenance() {
    let s = searcher("python", Mode::Hybrid);
    let hits = s.search("dumps", Mode::Hybrid, 10).expect("search");
    assert_eq!(hits[0].id, "app/store.py::dumps", "{:?}", ids(&hits));
    assert!(hits[0].score > EXACT_NAME_BONUS, "exact name bonus");
    let filtered = s
        .search("dumps kind:function", Mode::Hybrid, 3)
        .expect("search");
    assert_eq!(filtered[0].id, "app/store.py::dumps");
    assert!(
        filtered[0].score > EXACT_NAME_BONUS,
        "exact name bonus with a filter"
    );
    assert!(hits[0].text_rank.is_some());
    assert!(hits.iter().any(|h| h.semantic_rank.is_some()));
    let mut keys: Vec<(String, u32)> = hits
        .iter()
        .map(|h| (h.path.clone(), h.start_line))
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), hits.len(), "de-duplicated by chunk");
    // Scores are non-increasing.
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));

    // A quoted name is the same name.
    let hits = s.search("\"dumps\"", Mode::Hybrid, 3).expect("search");
    assert_eq!(hits[0].id, "app/store.py::dumps", "{:?}", ids(&hits));
    assert!(
        hits[0].score > EXACT_NAME_BONUS,
        "exact name bonus for a quoted name"
    );

    // Ignoring case a name still ranks first, below what matches exactly: `route` is
    // a function and `Route` a class in the fixture.
    let hits = s.search("DUMPS", Mode::Hybrid, 3).expect("search");
    assert_eq!(hits[0].id, "app/store.py::dumps", "{:?}", ids(&hits));
    assert!(
        hits[0].score > FOLDED_NAME_BONUS && hits[0].score < EXACT_NAME_BONUS,
        "{}",
        hits[0].score
    );
    for (q, exact) in [("route", "route"), ("Route", "Route")] {
        let hits = s.search(q, Mode::Hybrid, 5).expect("search");
        let names: Vec<&str> = hits
            .iter()
            .take(2)
            .map(|h| h.id.rsplit("::").next().unwrap_or(""))
            .map(|n| n.rsplit('.').next().unwrap_or(n))
            .collect();
        assert_eq!(names.first(), Some(&exact), "{q}: {:?}", ids(&hits));
        assert!(hits[0].score > EXACT_NAME_BONUS, "{q}: exact bonus");
        assert!(
            hits[1].score > FOLDED_NAME_BONUS && hits[1].score < EXACT_NAME_BONUS,
            "{q}: folded bonus second: {:?}",
            ids(&hits)
        );
    }
}

#[test]
fn semantic_ranks_related_code() {
    let s = searcher("python", Mode::Semantic);
    let hits = s
        .search("render a json response kind:function", Mode::Semantic, 5)
        .expect("search");
    assert_eq!(
        hits.first().map(|h| h.id.as_str()),
        Some("app/render.py::render_json"),
        "{:?}",
        ids(&hits)
    );
    assert!(hits
        .iter()
        .all(|h| h.text_rank.is_none() && h.semantic_rank.is_some()));
}

#[test]
fn on_disk_index_is_reused_until_the_code_changes() {
    let repo = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        repo.path().join("a.py"),
        "def alpha_beta():\n    return 1\n",
    )
    .expect("write");
    let build = || {
        let idx = common::index(repo.path(), 1);
        Searcher::build(&idx, Mode::Hybrid, Some(cache.path()), None, None).expect("searcher")
    };
    let first = build();
    assert!(!first.stats.text_reused);
    assert!(first.stats.text_index_bytes > 0);
    assert_eq!(first.stats.vectors_embedded, 1);
    let second = build();
    assert!(second.stats.text_reused);
    assert_eq!(
        (second.stats.vectors_embedded, second.stats.vectors_cached),
        (0, 1)
    );
    assert_eq!(
        second.search("alphaBeta", Mode::Text, 3).expect("search")[0].id,
        "a.py::alpha_beta"
    );
    std::fs::write(repo.path().join("a.py"), "def gamma():\n    return 2\n").expect("write");
    std::fs::write(
        repo.path().join("b.py"),
        "def other():
    return 3
",
    )
    .expect("write");
    let third = build();
    assert!(!third.stats.text_reused);
    assert_eq!(
        third.stats.text_files_updated, 2,
        "a.py replaced and b.py added in place, not a rebuild"
    );
    assert_eq!(
        third.search("alphaBeta", Mode::Text, 3).expect("search"),
        Vec::new(),
        "the old document of a.py is gone"
    );
    assert_eq!(
        third.search("gamma", Mode::Hybrid, 3).expect("search")[0].id,
        "a.py::gamma"
    );
    assert!(third
        .search("alpha", Mode::Text, 3)
        .expect("search")
        .is_empty());
}

#[test]
fn the_embedder_fit_is_saved_reused_and_fitted_again_when_damaged_or_stale() {
    let repo = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        repo.path().join("a.py"),
        "def remove_entry(table, key):\n    del table[key]\n\ndef draw_shape(canvas):\n    canvas.paint()\n",
    )
    .expect("write");
    let build = || {
        let idx = common::index(repo.path(), 1);
        Searcher::build(&idx, Mode::Hybrid, Some(cache.path()), None, None).expect("searcher")
    };
    let top = |s: &Searcher| s.search("delete a key", Mode::Semantic, 2).expect("search");
    let first = build();
    assert!(!first.stats.embedder_fit_reused);
    let fit = cache.path().join("vectors").join("offline-fit.bin");
    assert!(fit.is_file(), "the fit is saved");
    let second = build();
    assert!(second.stats.embedder_fit_reused);
    assert_eq!(second.stats.embedder, first.stats.embedder);
    assert_eq!(second.stats.vectors_cached, first.stats.vectors_embedded);
    let ids = |h: Vec<codegraph_tui::index::search::Hit>| -> Vec<String> {
        h.into_iter().map(|h| h.id).collect()
    };
    assert_eq!(ids(top(&second)), ids(top(&first)));
    assert_eq!(ids(top(&first))[0], "a.py::remove_entry");

    // Damage: fitted again, same model, nothing lost; the next run reuses the new save.
    let len = std::fs::metadata(&fit).expect("fit").len();
    let mut b = std::fs::read(&fit).expect("fit");
    b.truncate(len as usize - 3);
    std::fs::write(&fit, &b).expect("truncate");
    let third = build();
    assert!(!third.stats.embedder_fit_reused);
    assert_eq!(third.stats.embedder, first.stats.embedder);
    assert_eq!(
        third.stats.vectors_embedded, 0,
        "cached vectors still match"
    );
    assert_eq!(ids(top(&third)), ids(top(&first)));
    assert!(build().stats.embedder_fit_reused);

    // Changed code: the saved fit is for other inputs, so it is fitted again; the fit
    // weighs queries only, so every vector of an unchanged chunk is reused.
    std::fs::write(
        repo.path().join("b.py"),
        "def paint_all(canvas):\n    canvas.paint()\n",
    )
    .expect("write");
    let fourth = build();
    assert!(!fourth.stats.embedder_fit_reused);
    assert_eq!(fourth.stats.embedder, first.stats.embedder);
    assert_eq!(fourth.stats.vectors_cached, first.stats.vectors_embedded);
    assert_eq!(
        fourth.stats.vectors_embedded,
        fourth.stats.chunks - first.stats.chunks,
        "only the new file's chunks"
    );
}

#[test]
fn a_damaged_search_cache_is_rebuilt_and_answers_as_a_fresh_one() {
    let (_tmp, repo) = {
        let tmp = tempfile::tempdir().expect("tempdir");
        let repo = tmp.path().join("repo");
        common::copy_dir(&common::fixture("python"), &repo);
        (tmp, repo)
    };
    let cache = tempfile::tempdir().expect("tempdir");
    let idx = common::index(&repo, 1);
    let build =
        || Searcher::build(&idx, Mode::Hybrid, Some(cache.path()), None, None).expect("searcher");
    let fresh = Searcher::build(&idx, Mode::Hybrid, None, None, None).expect("searcher");
    let queries = ["render json", "dumps", "allocate id", "route"];
    let answers = |s: &Searcher| -> Vec<Vec<String>> {
        queries
            .iter()
            .map(|q| {
                s.search(q, Mode::Text, 10)
                    .expect("search")
                    .into_iter()
                    .map(|h| h.id)
                    .collect()
            })
            .collect()
    };
    let want = answers(&fresh);
    assert_eq!(answers(&build()), want);
    assert!(build().stats.text_reused);

    // Bytes flipped inside the postings (`.idx`): tantivy opens it without complaint and
    // would decode garbage (wrong hits, or a panic in its varint decoder).
    let index_dir = cache.path().join("text").join("index");
    let mut flipped = 0;
    for e in std::fs::read_dir(&index_dir).expect("index dir") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "idx") {
            let mut b = std::fs::read(&p).expect("read");
            for i in (100..b.len().saturating_sub(64)).step_by(100) {
                b[i] ^= 0xa5;
                flipped += 1;
            }
            // Written beside and renamed over: a mapping of the old file that tantivy
            // may still hold (its directory caches them) must not see it truncated,
            // which is a SIGBUS, not damage a cache load could report.
            let tmp = p.with_extension("damaged");
            std::fs::write(&tmp, &b).expect("write");
            std::fs::rename(&tmp, &p).expect("rename");
        }
    }
    assert!(flipped >= 3, "bytes flipped: {flipped}");
    let s = build();
    assert!(!s.stats.text_reused, "damage is seen and the index rebuilt");
    assert_eq!(answers(&s), want);
    assert!(build().stats.text_reused);

    // A file where the vectors folder belongs, then a folder where the vector file
    // belongs: both replaced, never an error.
    let vectors = cache.path().join("vectors");
    std::fs::remove_dir_all(&vectors).expect("rm");
    std::fs::write(&vectors, "garbage").expect("write");
    let s = build();
    assert!(s.stats.vectors_embedded > 0);
    assert!(vectors.is_dir());
    let bin = std::fs::read_dir(&vectors)
        .expect("vectors")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == "bin") && !p.ends_with("offline-fit.bin"))
        .expect("vector file");
    std::fs::remove_file(&bin).expect("rm");
    std::fs::create_dir(&bin).expect("mkdir");
    let s = build();
    assert!(s.stats.vectors_embedded > 0);
    assert!(bin.is_file());
    assert_eq!(build().stats.vectors_embedded, 0);
    let leftovers: Vec<_> = std::fs::read_dir(cache.path())
        .expect("cache")
        .map(|e| e.expect("entry").file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn cli_json_and_batch_follow_the_contract() {
    let root = common::fixture("python");
    let out = assert_cmd::Command::cargo_bin("codegraph-tui")
        .expect("binary")
        .args(["-C"])
        .arg(&root)
        .args([
            "--no-cache",
            "search",
            "allocate_id",
            "--json",
            "--limit",
            "3",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["query"], "allocate_id");
    assert_eq!(v["mode"], "hybrid");
    let hit = &v["hits"][0];
    let mut keys: Vec<&str> = hit
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "end_line",
            "id",
            "kind",
            "path",
            "score",
            "semantic_rank",
            "start_line",
            "text_rank"
        ]
    );
    assert_eq!(hit["id"], "app/store.py::MemoryStore.allocate_id");
    assert_eq!(hit["text_rank"], 1);

    let lines = text_batch(&root, b"dumps\nqqqqxyzzy\nrender json\n");
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["query"], "qqqqxyzzy");
    assert_eq!(lines[1]["hits"].as_array().map(Vec::len), Some(0));
    assert_eq!(lines[2]["mode"], "text");
    assert!(lines[2]["hits"][0]["semantic_rank"].is_null());
}

#[test]
fn no_hits_exits_1_and_says_so() {
    let root = common::fixture("python");
    let out = assert_cmd::Command::cargo_bin("codegraph-tui")
        .expect("binary")
        .arg("-C")
        .arg(&root)
        .args(["--no-cache", "search", "--mode", "text", "qqqqxyzzy"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "codegraph-tui: no hits for \"qqqqxyzzy\" in mode text"
    );
}

#[test]
fn batch_answers_blank_and_non_utf8_lines_without_stopping() {
    // Line 2 is blank, line 3 has a Latin-1 byte, line 4 ends in CRLF.
    let lines = text_batch(
        &common::fixture("python"),
        b"dumps\n\nrender \xe9 json\r\nallocate_id\r\n",
    );
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[1]["query"], "");
    assert_eq!(lines[1]["hits"].as_array().map(Vec::len), Some(0));
    assert_eq!(lines[2]["query"], "render \u{fffd} json");
    assert!(!lines[2]["hits"].as_array().expect("hits").is_empty());
    assert_eq!(lines[3]["query"], "allocate_id");
    assert_eq!(
        lines[3]["hits"][0]["id"],
        "app/store.py::MemoryStore.allocate_id"
    );
}

/// Runs `search --mode text --json --batch FILE` over `root` with `queries` as the
/// file's bytes, asserts success, and returns one JSON object per output line.
fn text_batch(root: &std::path::Path, queries: &[u8]) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    let batch = dir.path().join("q.txt");
    std::fs::write(&batch, queries).expect("write");
    let out = assert_cmd::Command::cargo_bin("codegraph-tui")
        .expect("binary")
        .arg("-C")
        .arg(root)
        .args([
            "--no-cache",
            "search",
            "--mode",
            "text",
            "--json",
            "--batch",
        ])
        .arg(&batch)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}
