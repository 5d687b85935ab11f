//! Crash consistency: `index` (cold and incremental), `index --watch` and `search` are
//! killed with SIGKILL at moments spread over their whole run (walk, parse, resolve, the
//! snapshot save, the text-index commit); after every kill the next run must answer exactly
//! as an index built in memory (`--no-cache`) does. A kill may cost the work of the killed
//! run, never a cache that is trusted and wrong (`docs/contracts.md#cache-layout`: every
//! write goes to a new folder, `CURRENT` is swapped last).
//!
//! The moments are chosen by time: each phase's duration is measured once on this machine
//! (the debug build, the repository's own source as the tree), then kills are spread evenly
//! over 0..1.2 × that duration. A kill that comes after the process exited is not counted;
//! the test asserts that enough of them landed inside each run.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

/// Kills per phase (cold index, incremental index, watch, search): 60 in all.
const KILLS: usize = 15;

fn cg(home: &Path, repo: &Path) -> Command {
    let mut c = common::isolated(home, repo);
    c.env("CODEGRAPH_THREADS", "2");
    c
}

fn stdout_of(mut c: Command) -> String {
    let out = c.output().expect("run codegraph-tui");
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        c,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The canonical graph and a text search, from the cache (whatever the killed run left).
fn answers(home: &Path, repo: &Path, cached: bool) -> (String, Vec<(String, f64)>) {
    let flag: &[&str] = if cached { &[] } else { &["--no-cache"] };
    let mut g = cg(home, repo);
    g.args(flag).args(["graph", "--json"]);
    let mut s = cg(home, repo);
    s.args(flag)
        .args(["search", "--mode", "text", "--limit", "20", "--json"])
        .arg("snapshot save atomic");
    (stdout_of(g), hits_of(&stdout_of(s)))
}

/// `search --json` reduced to each hit's id and lines, with its score apart.
fn hits_of(json: &str) -> Vec<(String, f64)> {
    let v: serde_json::Value = serde_json::from_str(json).expect("search JSON");
    v["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| {
            let key = format!("{} {}-{}", h["id"], h["start_line"], h["end_line"]);
            (key, h["score"].as_f64().expect("score"))
        })
        .collect()
}

/// Runs `c` to its end and returns how long it took.
fn time_run(mut c: Command) -> Duration {
    let t = Instant::now();
    let out = c.stdout(Stdio::null()).output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    t.elapsed()
}

/// Starts `c`, kills it with SIGKILL after `after`; true when the kill landed (the process
/// was still running).
fn kill_after(mut c: Command, after: Duration) -> bool {
    let mut child: Child = c
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let deadline = Instant::now() + after;
    loop {
        if let Some(_status) = child.try_wait().expect("wait") {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(1)));
    }
    // `Child::kill` sends SIGKILL on Unix.
    let landed = child.try_wait().expect("wait").is_none() && child.kill().is_ok();
    let _ = child.wait();
    landed
}

/// The `i`-th of `KILLS` moments spread over 0..1.2 × `span`.
fn moment(i: usize, span: Duration) -> Duration {
    span.mul_f64(1.2 * (i as f64 + 0.5) / KILLS as f64)
}

/// A scratch repository: this crate's own `src/` (real Rust code, about a hundred files)
/// and the Python and TypeScript fixtures, backdated so stamps are trusted.
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("repo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &repo.join("src"),
    );
    common::copy_dir(&common::fixture("python"), &repo.join("py"));
    common::copy_dir(&common::fixture("typescript"), &repo.join("ts"));
    common::backdate(&repo);
    (tmp, repo)
}

/// Changes a few files (one edited, one added, one deleted) so the next run is incremental.
fn edit(repo: &Path, round: usize) {
    let lib = repo.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).expect("lib.rs");
    text.push_str(&format!(
        "\n/// Added by the crash test.\npub fn crash_round_{round}() {{ crash_helper_{round}(); }}\nfn crash_helper_{round}() {{}}\n"
    ));
    std::fs::write(&lib, text).expect("write lib.rs");
    std::fs::write(
        repo.join(format!("py/crash_{round}.py")),
        format!("def crash_{round}():\n    return crash_{round}()\n"),
    )
    .expect("add a file");
    let _ = std::fs::remove_file(repo.join(format!("py/crash_{}.py", round.wrapping_sub(1))));
}

fn assert_consistent(home: &Path, repo: &Path, what: &str) {
    let expected = answers(home, repo, false);
    let got = answers(home, repo, true);
    assert!(
        got.0 == expected.0,
        "{what}: the graph from the cache differs from --no-cache"
    );
    same_hits(&got.1, &expected.1, what);
}

/// `got` holds the hits of `expected` in the same order, each scored within 1%; two hits
/// whose scores are that close may trade places, and a hit scored within 1% of the last
/// one may fall off the end (an index updated in place does not score exactly as a fresh
/// one: tantivy estimates a merged segment's token count from its 1-byte field norms).
fn same_hits(got: &[(String, f64)], expected: &[(String, f64)], what: &str) {
    let near = |a: f64, b: f64| (a - b).abs() <= 0.01 * a.abs().max(b.abs());
    let floor = |h: &[(String, f64)]| h.last().map_or(0.0, |(_, s)| *s);
    let find = |h: &[(String, f64)], k: &str| h.iter().position(|(key, _)| key == k);
    for (list, other, name) in [(expected, got, "from the cache"), (got, expected, "fresh")] {
        for (k, s) in list {
            match find(other, k) {
                Some(i) => assert!(
                    near(*s, other[i].1),
                    "{what}: score of {k}: {s} against {}",
                    other[i].1
                ),
                None => assert!(
                    near(*s, floor(list)) || near(*s, floor(other)),
                    "{what}: {k} ({s}) is missing {name}: {got:?} against {expected:?}"
                ),
            }
        }
    }
    for w in got.windows(2) {
        if let (Some(a), Some(b)) = (find(expected, &w[0].0), find(expected, &w[1].0)) {
            assert!(
                a < b || near(w[0].1, w[1].1),
                "{what}: search from the cache ranks {} above {}: {got:?} against {expected:?}",
                w[0].0,
                w[1].0
            );
        }
    }
}

/// Runs `args` three times to time it (each after `before(0)`), then `KILLS` times, the `i`-th after
/// `before(i + 1)` and killed at the `i`-th moment of that span, checking the cache after each
/// kill; at least half the kills must land inside a run.
fn kill_series(home: &Path, repo: &Path, what: &str, args: &[&str], before: impl Fn(usize)) {
    // The fastest of three runs: a probe slowed by a busy machine would put most moments
    // after the runs it times.
    let span = (0..3)
        .map(|_| {
            before(0);
            let mut probe = cg(home, repo);
            probe.args(args);
            time_run(probe)
        })
        .min()
        .expect("three runs");
    let mut landed = 0;
    for i in 0..KILLS {
        before(i + 1);
        let mut c = cg(home, repo);
        c.args(args);
        landed += kill_after(c, moment(i, span)) as usize;
        assert_consistent(
            home,
            repo,
            &format!("{what} killed at {:?}", moment(i, span)),
        );
    }
    assert!(
        landed >= KILLS / 2,
        "only {landed} of {KILLS} {what} kills landed"
    );
}

#[test]
fn a_kill_at_any_moment_never_leaves_a_trusted_wrong_cache() {
    let (tmp, repo) = scratch();
    let home = tmp.path().join("home");

    // Cold index: each kill starts from an empty cache.
    let clear = || {
        let _ = std::fs::remove_dir_all(home.join("cache"));
    };
    kill_series(&home, &repo, "cold index", &["index", "--json"], |_| {
        clear()
    });

    // Incremental index after edits: the cache holds the previous snapshot.
    kill_series(
        &home,
        &repo,
        "incremental index",
        &["index", "--json"],
        |i| edit(&repo, i),
    );

    // `index --watch`: killed while it absorbs an edit and, a quiet second later
    // (`SAVE_QUIET`), saves it.
    for i in 0..KILLS {
        let mut c = cg(&home, &repo);
        c.args(["index", "--watch"]);
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(out).map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        // The warm start, then an edit; its update line says it was absorbed.
        std::thread::sleep(Duration::from_millis(500));
        edit(&repo, 100 + i);
        let line = rx.recv_timeout(Duration::from_secs(30));
        assert!(line.is_ok(), "index --watch printed no update for an edit");
        std::thread::sleep(moment(i, Duration::from_millis(1500)));
        assert!(
            child.try_wait().expect("wait").is_none(),
            "a watcher runs until killed"
        );
        child.kill().expect("SIGKILL");
        let _ = child.wait();
        assert_consistent(&home, &repo, &format!("index --watch killed (round {i})"));
    }

    // `search`: killed while it builds and commits the text index.
    let search = ["search", "--mode", "text", "--json", "parse"];
    kill_series(&home, &repo, "search", &search, |_| clear());
}
