//! End-to-end runs of the real binary: the command-line contract of
//! `docs/contracts.md#command-line` and `#json-output`.
//!
//! This file holds the `cg` command and the output-contract tests (`index`, `graph`,
//! `callers` JSON, warm answers); the others are in `cli/` by topic: `names` (how a
//! symbol is named), `usage` (options and refusals) and `walks` (the text trees).

mod common;

#[path = "cli/names.rs"]
mod names;
#[path = "cli/usage.rs"]
mod usage;
#[path = "cli/walks.rs"]
mod walks;

use assert_cmd::Command;

fn cg() -> Command {
    let mut c = Command::cargo_bin("codegraph-tui").unwrap();
    c.env(
        "CODEGRAPH_CONFIG",
        "/nonexistent/codegraph-test-config.toml",
    );
    // Caches of test runs stay under target/, never in the user's cache folder.
    c.env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
    c
}

#[test]
fn index_json_has_the_contract_fields() {
    let out = cg()
        .args(["-C"])
        .arg(common::fixture("multi"))
        .args(["index", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["root"].as_str().unwrap().ends_with("multi"));
    assert!(v["cache_dir"].is_string());
    let s = &v["stats"];
    for k in [
        "files_seen",
        "files_indexed",
        "files_windowed",
        "paths_ignored",
        "files_skipped_binary",
        "files_skipped_too_large",
        "files_skipped_unsupported",
        "files_skipped_unreadable",
        "files_with_parse_errors",
        "definitions",
        "chunks",
        "call_sites",
    ] {
        assert!(s[k].is_u64(), "stats.{k} missing");
    }
    for k in ["edges", "unresolved", "elapsed_ms"] {
        assert!(s[k].is_object(), "stats.{k} missing");
    }
    assert_eq!(s["files_indexed"], 8);
    assert_eq!(
        s["files_windowed"], 4,
        "README.md, config.toml, data.json, expected.json"
    );
    assert!(
        out.stderr.is_empty(),
        "no progress bar when stderr is not a terminal"
    );
}

#[test]
fn graph_json_is_byte_identical_across_runs() {
    let run = || {
        cg().arg("-C")
            .arg(common::fixture("rust"))
            .args(["graph", "--json"])
            .output()
            .unwrap()
            .stdout
    };
    let a = run();
    assert!(a.len() > 1000);
    assert_eq!(a, run());
}

/// A warm graph command answers from the snapshot's graph alone (the facts are not
/// decoded, `cached graph loaded` in the log) and answers exactly as a fresh index does;
/// after an edit it answers from the updated index.
#[test]
fn a_warm_graph_command_answers_as_a_fresh_index() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::copy_dir(&common::fixture("python"), &repo);
    common::backdate(&repo);
    let (cache, state) = (tmp.path().join("cache"), tmp.path().join("state"));
    let run = |cached: bool, args: &[&str]| {
        let mut c = cg();
        c.env("XDG_CACHE_HOME", &cache)
            .env("XDG_STATE_HOME", &state)
            .arg("-v")
            .arg("-C")
            .arg(&repo);
        if !cached {
            c.arg("--no-cache");
        }
        let out = c.args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        out.stdout
    };
    let log = || {
        let dir = state.join("codegraph-tui/logs");
        std::fs::read_dir(&dir)
            .map(|d| {
                d.flatten()
                    .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                    .collect::<String>()
            })
            .unwrap_or_default()
    };
    run(true, &["index"]);
    let commands: &[&[&str]] = &[
        &["graph", "--json"],
        &["callers", "app/store.py::MemoryStore.allocate_id", "--json"],
        &["callees", "MemoryStore", "--depth", "3", "--json"],
        &["symbols", "store", "--json"],
        &["impact", "app/store.py::MemoryStore.allocate_id", "--json"],
        &["export", "MemoryStore", "--format", "json"],
    ];
    for args in commands {
        let before = log().matches("cached graph loaded").count();
        let warm = run(true, args);
        assert_eq!(
            log().matches("cached graph loaded").count(),
            before + 1,
            "{args:?}: not answered from the snapshot's graph"
        );
        assert_eq!(
            String::from_utf8_lossy(&warm),
            String::from_utf8_lossy(&run(false, args)),
            "{args:?}"
        );
    }
    std::fs::write(
        repo.join("app/store.py"),
        std::fs::read_to_string(repo.join("app/store.py")).unwrap()
            + "\n\ndef late_helper():\n    return MemoryStore().allocate_id()\n",
    )
    .unwrap();
    let before = log().matches("cached graph loaded").count();
    let args = ["callers", "app/store.py::MemoryStore.allocate_id", "--json"];
    let warm = run(true, &args);
    assert_eq!(log().matches("cached graph loaded").count(), before);
    assert!(String::from_utf8_lossy(&warm).contains("late_helper"));
    assert_eq!(warm, run(false, &args));
}

#[test]
fn callers_json_is_a_subgraph() {
    let v: serde_json::Value = common::json_of(
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args([
                "callers",
                "app/store.py::MemoryStore.allocate_id",
                "--depth",
                "2",
                "--json",
            ])
            .output()
            .unwrap(),
    );
    assert_eq!(v["schema"], "codegraph-tui/subgraph@1");
    assert_eq!(v["root"], "app/store.py::MemoryStore.allocate_id");
    assert_eq!(v["direction"], "callers");
    assert_eq!(v["depth"], 2);
    let edges = v["edges"].as_array().unwrap();
    assert!(!edges.is_empty());
    for e in edges {
        assert_eq!(e["relation"], "calls");
        assert!(e["sites"][0]["line"].as_u64().unwrap() >= 1);
    }
    assert!(v["truncated"].is_boolean());
    assert!(v["unresolved"].is_u64());
}

/// SYMBOL in a language's own spelling: PHP's `Class::method` and `\Namespace\Class`
/// for a graph that writes `Namespace.Class.method`, Ruby's `Module::Class.method` for
/// `Module::Class::method`.
#[test]
fn symbols_in_php_and_ruby_spelling_are_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Utils.php"),
        "<?php\nnamespace Shop;\n\nclass Utils {\n    public static function jsonDecode($s) { return $s; }\n}\n\n\
         function run() { return Utils::jsonDecode('1'); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("utils.rb"),
        "module Rack\n  module Utils\n    def self.escape(s)\n      s\n    end\n  end\nend\n\n\
         def go\n  Rack::Utils.escape('x')\nend\n",
    )
    .unwrap();
    for (symbol, id) in [
        ("Utils::jsonDecode", "Utils.php::Utils.jsonDecode"),
        ("\\Shop\\Utils::jsonDecode", "Utils.php::Utils.jsonDecode"),
        ("Rack::Utils.escape", "utils.rb::Rack::Utils::escape"),
    ] {
        let out = cg()
            .arg("-C")
            .arg(dir.path())
            .args(["--no-cache", "callers", "--json", symbol])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{symbol}: {out:?}");
        assert!(text.contains(id), "{symbol}: {text}");
    }
}

/// A negative depth is a value out of range, said as such (not clap's advice to pass it
/// after `--`, which would fail the same way).
#[test]
fn a_negative_depth_is_refused_as_out_of_range() {
    let out = cg()
        .arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "callers", "render_json", "--depth", "-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value '-1' for '--depth"), "{err}");
    assert!(!err.contains("use '-- -1'"), "{err}");
}
