//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use codegraph_tui::index::{index_repo, Index, IndexOptions};

/// `tests/fixtures/<name>`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// `../shared/<rel>` next to the project (present on developer machines and in CI).
pub fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

/// A command running the real binary on `repo` with no config file and its own cache
/// (`<home>/cache`) and log (`<home>/state`) folders, stdin closed.
pub fn isolated(home: &Path, repo: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph-tui"));
    c.env(
        "CODEGRAPH_CONFIG",
        "/nonexistent/codegraph-test-config.toml",
    )
    .env("XDG_CACHE_HOME", home.join("cache"))
    .env("XDG_STATE_HOME", home.join("state"))
    .arg("-C")
    .arg(repo)
    .stdin(std::process::Stdio::null());
    c
}

/// Sets every file's mtime under `dir` an hour back, so a cache trusts their stamps (a
/// file written just before a save is not trusted by its stamp alone).
pub fn backdate(dir: &Path) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            backdate(&e.path());
        } else {
            let f = std::fs::File::options().write(true).open(e.path()).unwrap();
            f.set_modified(old).unwrap();
        }
    }
}

/// Copies the tree `from` to `to` (folders and regular files).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let dest = to.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).expect("copy");
        }
    }
}

pub fn index(root: &Path, threads: usize) -> Index {
    let opts = IndexOptions {
        threads,
        ..IndexOptions::default()
    };
    index_repo(root, &opts).expect("index")
}

/// Checks an `expected.json` (`{"must": [...], "must_not": [...]}` of
/// `{source, target, relation}`) against the graph; returns every failure.
pub fn check_expected(root: &Path) -> Vec<String> {
    let idx = index(root, 2);
    let exp: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("expected.json")).expect("expected.json"),
    )
    .expect("json");
    let edges: BTreeSet<(String, String, String)> = idx
        .graph
        .edges()
        .into_iter()
        .map(|e| (e.source, e.target, e.relation.as_str().to_string()))
        .collect();
    let key = |m: &serde_json::Value| {
        (
            m["source"].as_str().unwrap().to_string(),
            m["target"].as_str().unwrap().to_string(),
            m["relation"].as_str().unwrap().to_string(),
        )
    };
    let mut failures = Vec::new();
    for m in exp["must"].as_array().unwrap() {
        if !edges.contains(&key(m)) {
            failures.push(format!("missing {:?}", key(m)));
        }
    }
    for m in exp["must_not"].as_array().unwrap() {
        if edges.contains(&key(m)) {
            failures.push(format!("wrong edge {:?}", key(m)));
        }
    }
    failures
}

/// The JSON a command printed on stdout, after asserting it succeeded (stderr shown if not).
pub fn json_of(out: std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The `--stats` object a command printed: the last line of its stderr that is JSON, after
/// asserting it succeeded (stderr shown if not), with its stdout.
pub fn stats_of(out: std::process::Output) -> (String, serde_json::Value) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stats = stderr
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .unwrap_or_else(|| panic!("no --stats line in {stderr}"));
    (String::from_utf8_lossy(&out.stdout).into_owned(), stats)
}

/// The `key` field, a string, of each element of the JSON array `list` (a subgraph's node
/// ids: `strs(&v["nodes"], "id")`). Panics when `list` is not an array of such objects.
pub fn strs<'a>(list: &'a serde_json::Value, key: &str) -> Vec<&'a str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|x| x[key].as_str().unwrap())
        .collect()
}
