//! A warm text `search` answers from the saved text index of the live snapshot without
//! loading the snapshot or making a chunk, and its answers are exactly a fresh index's
//! (ties in chunk order included); a change to the tree or a damaged index sends it back
//! to building. `index` builds those indexes with the graph, so the first search reads
//! them.

mod common;

use std::path::Path;

/// Queries with filters, a phrase, and words that tie across files and within one.
const QUERIES: &[u8] = b"dumps\nrender json\ntwin_helper\ntwin_helper path:pkg/\n\
kind:function twin\n\"allocate id\"\nlang:python store\nqqqqxyzzy\n";

/// Runs `search --mode text --json --stats --batch` (with `--no-cache` when `fresh`) and
/// returns stdout and the `--stats` object.
fn run(home: &Path, repo: &Path, fresh: bool) -> (String, serde_json::Value) {
    let batch = home.join("q.txt");
    std::fs::write(&batch, QUERIES).expect("write");
    let mut c = common::isolated(home, repo);
    if fresh {
        c.arg("--no-cache");
    }
    common::stats_of(
        c.args(["search", "--mode", "text", "--json", "--stats", "--batch"])
            .arg(&batch)
            .output()
            .expect("run"),
    )
}

/// Whether the run made the chunks (built or checked the index) rather than answering
/// from the saved index alone.
fn made_chunks(stats: &serde_json::Value) -> bool {
    stats["build"]["elapsed_ms"].get("chunks").is_some()
}

#[test]
fn a_warm_text_search_answers_from_the_saved_index_as_a_fresh_one_does() {
    let home = tempfile::tempdir().expect("tempdir");
    let repo = home.path().join("repo");
    common::copy_dir(&common::fixture("python"), &repo);
    // The same function in three files and twice in one: equal BM25 scores, ranked in
    // chunk order (path, then place in the file), not in the index's key order, which
    // puts `b.py:10-11` before `b.py:2-3`.
    let twin = "def twin_helper():\n    return 1\n";
    std::fs::create_dir_all(repo.join("pkg")).expect("mkdir");
    std::fs::write(repo.join("pkg/a.py"), twin).expect("write");
    std::fs::write(
        repo.join("pkg/b.py"),
        format!("{twin}\n\nclass K:\n    pass\n\n\n\n{twin}"),
    )
    .expect("write");
    std::fs::write(repo.join("c.py"), twin).expect("write");
    common::backdate(&repo);

    let (fresh, _) = run(home.path(), &repo, true);
    let (first, stats) = run(home.path(), &repo, false);
    assert!(made_chunks(&stats), "nothing saved yet: {stats}");
    assert_eq!(first, fresh);
    let (warm, stats) = run(home.path(), &repo, false);
    assert!(
        !made_chunks(&stats),
        "answered from the saved index: {stats}"
    );
    assert_eq!(stats["build"]["text_reused"], true);
    assert_eq!(warm, fresh, "the saved index answers as a fresh one");
    let twins: serde_json::Value =
        serde_json::from_str(warm.lines().nth(2).expect("third answer")).expect("json");
    let at: Vec<String> = twins["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter(|h| {
            h["id"]
                .as_str()
                .is_some_and(|i| i.contains("::twin_helper"))
        })
        .map(|h| format!("{}:{}", h["path"].as_str().unwrap(), h["start_line"]))
        .collect();
    assert_eq!(at, ["c.py:1", "pkg/a.py:1", "pkg/b.py:1", "pkg/b.py:10"]);

    // An edit: the snapshot is stale, so the index is brought up to date first.
    std::fs::write(
        repo.join("c.py"),
        "def twin_helper():\n    return 2\n\ndef dumps_more():\n    pass\n",
    )
    .expect("write");
    common::backdate(&repo);
    let (fresh, _) = run(home.path(), &repo, true);
    let (updated, stats) = run(home.path(), &repo, false);
    assert!(made_chunks(&stats), "the tree changed: {stats}");
    assert!(updated.contains("c.py::dumps_more"), "{updated}");
    // An index updated in place scores within a fraction of a percent of a fresh one
    // (`search::text`); the saved index answers exactly as it did when updated.
    let (warm, stats) = run(home.path(), &repo, false);
    assert!(!made_chunks(&stats), "{stats}");
    assert_eq!(warm, updated);

    // A damaged segment file is not trusted: rebuilt, and the answers stay right.
    let text = std::fs::read_dir(home.path().join("cache/codegraph-tui"))
        .expect("cache")
        .map(|e| e.expect("entry").path().join("text/index"))
        .find(|p| p.is_dir())
        .expect("a saved text index");
    let segment = std::fs::read_dir(&text)
        .expect("index dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .expect("a segment's postings");
    let mut bytes = std::fs::read(&segment).expect("read");
    bytes[0] ^= 0xff;
    std::fs::write(&segment, bytes).expect("write");
    let (repaired, stats) = run(home.path(), &repo, false);
    assert!(made_chunks(&stats), "{stats}");
    assert_eq!(repaired, fresh);
    let (warm, stats) = run(home.path(), &repo, false);
    assert!(!made_chunks(&stats), "{stats}");
    assert_eq!(warm, fresh);
}

/// Queries for the semantic and hybrid modes: exact and case-folded names (the name
/// bonus), filters, a phrase, words found only in a window (the README), and none.
const MEANING_QUERIES: &[u8] = b"dumps\nrender json\nDUMPS\ntwin_helper path:pkg/\n\
kind:function twin\n\"allocate id\"\nlang:python store\nwhat the project does\nqqqqxyzzy\n";

/// `search --mode MODE --json --stats --batch` over [`MEANING_QUERIES`]; stdout and the
/// `--stats` object.
fn run_mode(home: &Path, repo: &Path, mode: &str, fresh: bool) -> (String, serde_json::Value) {
    let batch = home.join("m.txt");
    std::fs::write(&batch, MEANING_QUERIES).expect("write");
    let mut c = common::isolated(home, repo);
    if fresh {
        c.arg("--no-cache");
    }
    common::stats_of(
        c.args(["search", "--mode", mode, "--json", "--stats", "--batch"])
            .arg(&batch)
            .output()
            .expect("run"),
    )
}

/// Asserts that two outputs of [`run_mode`] have the same answers, hit for hit, with
/// scores within 1e-6.
fn assert_same_answers(a: &str, b: &str, what: &str) {
    let parse = |out: &str| -> Vec<serde_json::Value> {
        out.lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect()
    };
    let (a, b) = (parse(a), parse(b));
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(&b) {
        let (hx, hy) = (
            x["hits"].as_array().expect("hits"),
            y["hits"].as_array().expect("hits"),
        );
        assert_eq!(hx.len(), hy.len(), "{what}: {x} vs {y}");
        for (p, q) in hx.iter().zip(hy) {
            let (mut p, mut q) = (p.clone(), q.clone());
            let (sp, sq) = (p["score"].take(), q["score"].take());
            assert_eq!(p, q, "{what}: query {}", x["query"]);
            let d = (sp.as_f64().expect("score") - sq.as_f64().expect("score")).abs();
            assert!(d < 1e-6, "{what}: {sp} vs {sq}");
        }
    }
}

/// After `index`, semantic and hybrid searches answer from the saved chunk table, text
/// index and embedder fit, with no chunk made and no vector decoded, and their answers
/// are exactly those of a searcher built from scratch; an edit or a damaged table sends
/// them back to building, and the next search is warm again.
#[test]
fn a_warm_hybrid_search_answers_from_the_saved_table_as_a_fresh_one_does() {
    let home = tempfile::tempdir().expect("tempdir");
    let repo = home.path().join("repo");
    common::copy_dir(&common::fixture("python"), &repo);
    std::fs::create_dir_all(repo.join("pkg")).expect("mkdir");
    std::fs::write(repo.join("pkg/a.py"), "def twin_helper():\n    return 1\n").expect("write");
    std::fs::write(
        repo.join("README.md"),
        "# Store\n\nWhat the project does: it renders json.\n",
    )
    .expect("write");
    common::backdate(&repo);
    index(home.path(), &repo, &[]);
    for mode in ["hybrid", "semantic"] {
        let (fresh, _) = run_mode(home.path(), &repo, mode, true);
        let (warm, stats) = run_mode(home.path(), &repo, mode, false);
        assert!(
            !made_chunks(&stats),
            "{mode}: answered from the table: {stats}"
        );
        assert_eq!(stats["build"]["embedder_fit_reused"], true, "{stats}");
        // A fit read back from its file can round the query vector's last bit
        // differently from one made in memory: scores agree to 1e-6, ranks exactly.
        assert_same_answers(&warm, &fresh, mode);
        assert!(warm.contains("::dumps"), "{warm}");
    }

    // An edit: the snapshot is stale, so this search builds (and saves a new table).
    std::fs::write(
        repo.join("pkg/a.py"),
        "def twin_helper():\n    return 2\n\ndef dumps_all():\n    pass\n",
    )
    .expect("write");
    common::backdate(&repo);
    let (fresh, _) = run_mode(home.path(), &repo, "hybrid", true);
    let (updated, stats) = run_mode(home.path(), &repo, "hybrid", false);
    assert!(made_chunks(&stats), "the tree changed: {stats}");
    assert_eq!(updated, fresh);
    assert!(updated.contains("pkg/a.py::dumps_all"), "{updated}");
    let (warm, stats) = run_mode(home.path(), &repo, "hybrid", false);
    assert!(!made_chunks(&stats), "the new table: {stats}");
    assert_eq!(warm, fresh);

    // A damaged table header is refused: the search builds, answers right, and saves a
    // good table again.
    let table = std::fs::read_dir(home.path().join("cache/codegraph-tui"))
        .expect("cache")
        .flat_map(|e| {
            std::fs::read_dir(e.expect("entry").path().join("vectors"))
                .into_iter()
                .flatten()
        })
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "table"))
        .expect("a saved chunk table");
    // So is a table whose body changed after it was written (its stamp no longer holds,
    // so the body's checksum is read).
    let good = std::fs::read(&table).expect("read");
    for at in [110, good.len() / 2] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x01;
        std::fs::write(&table, &bytes).expect("write");
        let (repaired, stats) = run_mode(home.path(), &repo, "hybrid", false);
        assert!(made_chunks(&stats), "byte {at}: {stats}");
        assert_eq!(repaired, fresh);
        let (warm, stats) = run_mode(home.path(), &repo, "hybrid", false);
        assert!(!made_chunks(&stats), "{stats}");
        assert_eq!(warm, fresh);
    }
}

/// Damage tantivy does not survive on its own (a flipped byte in a fast-field file's
/// header makes it slice out of bounds when it opens the segment) sends text and hybrid
/// searches back to building: the same answers, exit status 0, no panic printed, and a
/// warm index again afterwards. With the file's time put back, the stamp the writer
/// recorded still holds and the checksums are not read: the damage is then met inside
/// tantivy, caught and rebuilt all the same.
#[test]
fn a_damaged_text_index_is_rebuilt_even_where_tantivy_would_panic() {
    let home = tempfile::tempdir().expect("tempdir");
    let repo = home.path().join("repo");
    common::copy_dir(&common::fixture("python"), &repo);
    common::backdate(&repo);
    index(home.path(), &repo, &[]);
    let (fresh, _) = run(home.path(), &repo, true);
    let text = std::fs::read_dir(home.path().join("cache/codegraph-tui"))
        .expect("cache")
        .map(|e| e.expect("entry").path().join("text/index"))
        .find(|p| p.is_dir())
        .expect("a saved text index");
    for (ext, at, keep_time) in [("fast", 8, false), ("fast", 16, true), ("fast", 8, true)] {
        let file = std::fs::read_dir(&text)
            .expect("index dir")
            .map(|e| e.expect("entry").path())
            .find(|p| p.extension().is_some_and(|e| e == ext))
            .expect("a segment file");
        let time = std::fs::metadata(&file)
            .and_then(|m| m.modified())
            .expect("mtime");
        let mut bytes = std::fs::read(&file).expect("read");
        bytes[at] ^= 0x01;
        std::fs::write(&file, bytes).expect("write");
        if keep_time {
            let f = std::fs::File::options()
                .write(true)
                .open(&file)
                .expect("open");
            f.set_modified(time).expect("set mtime");
        }
        let what = format!("{ext} byte {at}, time kept: {keep_time}");
        let out = common::isolated(home.path(), &repo)
            .args(["search", "--mode", "hybrid", "--json", "render json"])
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{what}: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("render_json"),
            "{what}"
        );
        let (repaired, stats) = run(home.path(), &repo, false);
        assert_eq!(repaired, fresh, "{what}");
        assert!(!made_chunks(&stats), "{what}: warm again: {stats}");
    }
}

/// Runs `index --json` with `extra` arguments and returns its `search` object.
fn index(home: &Path, repo: &Path, extra: &[&str]) -> serde_json::Value {
    let out = common::isolated(home, repo)
        .args(["index", "--json"])
        .args(extra)
        .output()
        .expect("run");
    common::json_of(out)["search"].clone()
}

/// `search --json --stats QUERY` in `mode`; the `--stats` object.
fn search_stats(home: &Path, repo: &Path, mode: &str) -> serde_json::Value {
    let out = common::isolated(home, repo)
        .args(["search", "--json", "--stats", "--mode", mode, "render json"])
        .output()
        .expect("run");
    common::stats_of(out).1
}

/// `index` builds the search indexes with the graph (the default `auto`: the text index,
/// and the vectors with the built-in embedder on a small tree), so the first text search
/// answers from the saved index and the first hybrid search embeds nothing; an `index`
/// with nothing changed builds nothing; `--search off` and `--search text` build less.
#[test]
fn index_builds_the_search_indexes_the_first_search_reads() {
    let home = tempfile::tempdir().expect("tempdir");
    let repo = home.path().join("repo");
    common::copy_dir(&common::fixture("python"), &repo);
    common::backdate(&repo);

    let built = index(home.path(), &repo, &[]);
    assert_eq!(built["text"], "built", "{built}");
    assert_eq!(built["vectors"], "built", "{built}");
    let chunks = built["chunks"].as_u64().expect("chunks");
    assert!(chunks > 0, "{built}");
    assert!(built["vectors_embedded"].as_u64().unwrap() > 0, "{built}");

    let text = search_stats(home.path(), &repo, "text");
    assert!(!made_chunks(&text), "answered from the saved index: {text}");
    let hybrid = search_stats(home.path(), &repo, "hybrid");
    assert_eq!(hybrid["build"]["vectors_embedded"], 0, "{hybrid}");
    assert_eq!(hybrid["build"]["vectors_cached"], chunks, "{hybrid}");
    assert_eq!(hybrid["build"]["embedder_fit_reused"], true, "{hybrid}");

    // Nothing changed: nothing to build, so no search object.
    assert!(index(home.path(), &repo, &[]).is_null());

    // An edit: the text index is updated per changed file; `text` leaves the vectors.
    std::fs::write(repo.join("extra.py"), "def render_more():\n    return 1\n").expect("write");
    common::backdate(&repo);
    let updated = index(home.path(), &repo, &["--search", "text"]);
    assert_eq!(updated["text"], "updated", "{updated}");
    assert_eq!(updated["vectors"], "skipped: text only", "{updated}");
    // Nothing changed since, but the vectors are behind the text index: `all` (and
    // `auto` on a tree this small) builds them, then has nothing left to build.
    let caught_up = index(home.path(), &repo, &["--search", "all"]);
    assert_eq!(caught_up["text"], "reused", "{caught_up}");
    assert_eq!(caught_up["vectors"], "built", "{caught_up}");
    assert!(index(home.path(), &repo, &["--search", "all"]).is_null());

    // `off` builds nothing: the next text search builds the text index itself.
    let other = tempfile::tempdir().expect("tempdir");
    let off = index(other.path(), &repo, &["--search", "off"]);
    assert_eq!(off["text"], "skipped", "{off}");
    let text = search_stats(other.path(), &repo, "text");
    assert!(made_chunks(&text), "nothing was saved: {text}");
}
