//! End-to-end runs of the real binary: the command-line contract of DESIGN section 5.

mod common;

use assert_cmd::Command;
use predicates::prelude::*;

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

#[test]
fn unknown_symbol_is_an_error_with_suggestions_never_a_substitute() {
    cg().arg("-C")
        .arg(common::fixture("python"))
        .args(["callers", "MemStore.allocate"])
        .assert()
        .failure()
        .stdout(predicate::str::is_empty())
        .stderr(
            predicate::str::contains("no symbol matches").and(predicate::str::contains("not used")),
        );
    // A wrong case or a typo suggests the name meant, first (never uses it).
    for typo in ["DUMPS", "dumpz", "dupms"] {
        let out = cg()
            .arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", "callers", typo, "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["error"]["reason"], "not_found", "{typo}: {v}");
        assert_eq!(
            v["error"]["similar"][0]["id"], "app/store.py::dumps",
            "{typo}: {v}"
        );
    }
}

#[test]
fn ambiguous_symbol_lists_every_candidate_id() {
    // `parse` is defined in two JS modules of the fixture.
    let out = cg()
        .arg("-C")
        .arg(common::fixture("javascript"))
        .args(["callees", "parse"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\n  src/parser.js::parse") && err.contains("\n  src/util.js::parse"),
        "{err}"
    );
}

/// Runs `args` on the lookup fixture; (exit status, stdout JSON or Null, stderr).
fn on_lookup_fixture(args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = cg()
        .arg("-C")
        .arg(common::fixture("lookup"))
        .args(args)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code().unwrap(),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_unique_qualified_name_suffix_names_the_symbol() {
    // `Flask.dispatch_request` is the tail of `flask.app.Flask.dispatch_request`.
    let (code, v, err) = on_lookup_fixture(&["callers", "Flask.dispatch_request", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["root"], "flask/app.py::Flask.dispatch_request");
    let edges: Vec<(&str, &str)> = v["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["source"].as_str().unwrap(), e["target"].as_str().unwrap()))
        .collect();
    assert_eq!(
        edges,
        [(
            "flask/app.py::Flask.full_dispatch_request",
            "flask/app.py::Flask.dispatch_request"
        )]
    );
    // Longer suffixes and the full qualified name name the same node.
    for q in [
        "app.Flask.dispatch_request",
        "flask.app.Flask.dispatch_request",
    ] {
        let (code, v, err) = on_lookup_fixture(&["callers", q, "--json"]);
        assert_eq!(code, 0, "{q}: {err}");
        assert_eq!(v["root"], "flask/app.py::Flask.dispatch_request", "{q}");
    }
    // `::` separates segments too (Rust).
    let v: serde_json::Value = common::json_of(
        cg().arg("-C")
            .arg(common::fixture("rust"))
            .args(["callees", "Config::new", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(v["root"], "src/config.rs::Config::new");
}

#[test]
fn a_suffix_matches_only_on_segment_boundaries() {
    // `ask.dispatch_request` is a string suffix but not a segment suffix.
    let (code, v, err) = on_lookup_fixture(&["callers", "ask.dispatch_request", "--json"]);
    assert_eq!(code, 2);
    assert!(err.contains("no symbol matches"), "{err}");
    assert_eq!(v["error"]["reason"], "not_found");
    assert_eq!(v["error"]["candidates"], serde_json::json!([]));
}

#[test]
fn an_ambiguous_suffix_lists_the_candidates_in_text_and_json() {
    let (code, v, err) = on_lookup_fixture(&["callers", "Cart.total"]);
    assert_eq!(code, 2);
    assert_eq!(
        v,
        serde_json::Value::Null,
        "text mode prints nothing on stdout"
    );
    assert!(err.contains("\"Cart.total\" matches 2 symbols"), "{err}");
    assert!(
        err.contains("\n  legacy/cart.py::Cart.total  (method, legacy/cart.py:2)")
            && err.contains("\n  shop/cart.py::Cart.total  (method, shop/cart.py:2)"),
        "{err}"
    );
    let (code, v, _) = on_lookup_fixture(&["impact", "cart.Cart.total", "--json"]);
    assert_eq!(code, 2);
    let e = &v["error"];
    assert_eq!(e["symbol"], "cart.Cart.total");
    assert_eq!(e["reason"], "ambiguous");
    assert_eq!(
        e["candidates"],
        serde_json::json!([
            {"id": "legacy/cart.py::Cart.total", "kind": "method", "file": "legacy/cart.py", "start_line": 2},
            {"id": "shop/cart.py::Cart.total", "kind": "method", "file": "shop/cart.py", "start_line": 2}
        ])
    );
    assert!(e["message"]
        .as_str()
        .unwrap()
        .contains("use one of these ids"));
    // One more segment picks one.
    let (code, v, err) = on_lookup_fixture(&["callers", "shop.cart.Cart.total", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["root"], "shop/cart.py::Cart.total");
    let ids = common::strs(&v["nodes"], "id");
    assert_eq!(ids, ["main.py::checkout", "shop/cart.py::Cart.total"]);
}

#[test]
fn symbols_fuzzy_search_ranks_the_exact_name_first() {
    let out = cg()
        .arg("-C")
        .arg(common::fixture("rust"))
        .args(["symbols", "total_value", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &v["hits"][0];
    assert_eq!(first["name"], "total_value", "{v}");
    // An exact name comes before names that merely contain it (nucleo scores
    // `Router.route` and `Route` alike for `route`), as in the TUI's search box.
    for (q, want) in [
        ("route", "route"),
        ("Route", "Route"),
        ("Router.route", "route"),
    ] {
        let out = cg()
            .arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", "symbols", q, "--json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["hits"][0]["name"], want, "{q}: {v}");
    }
    // An empty query is a usage error; no match says so on stderr.
    cg().arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "symbols", " "])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("empty query"));
    cg().arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "symbols", "zzqqxx"])
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("no symbol matches"));
}

#[test]
fn color_always_paints_and_never_does_not() {
    let run = |c: &str| {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--color", c, "symbols", "save_item"])
            .output()
            .unwrap()
            .stdout
    };
    assert!(run("always").contains(&0x1b));
    assert!(!run("never").contains(&0x1b));
    // auto: stdout is a pipe here, so no colour.
    assert!(!run("auto").contains(&0x1b));
    // search's text output too.
    let search = |c: &str| {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", "--color", c, "search", "save item"])
            .output()
            .unwrap()
            .stdout
    };
    assert!(search("always").contains(&0x1b));
    assert!(!search("never").contains(&0x1b));
    // Every text answer about a symbol takes the flag (impact used to ignore it).
    for cmd in ["callers", "callees", "impact"] {
        let out = |c: &str| {
            let o = cg()
                .arg("-C")
                .arg(common::fixture("python"))
                .args(["--no-cache", "--color", c, cmd, "save_item"])
                .output()
                .unwrap();
            assert!(o.status.success(), "{cmd}: {o:?}");
            o.stdout
        };
        assert!(out("always").contains(&0x1b), "{cmd} --color always");
        assert!(!out("never").contains(&0x1b), "{cmd} --color never");
    }
}

#[test]
fn an_empty_search_query_is_an_error_not_a_listing() {
    for q in ["", "   "] {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", "search", q])
            .assert()
            .failure()
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("empty query"));
    }
    // A filter alone is a query: it lists what passes it.
    cg().arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "search", "path:app/render"])
        .assert()
        .success()
        .stdout(predicate::str::contains("app/render.py"));
    // With --json the error is an object on stdout too.
    let out = cg()
        .arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "search", "  ", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert!(v["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("empty query")));
    // In a batch such a line keeps its (empty) answer line and stderr says why.
    let out = cg()
        .arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "search", "--mode", "semantic", "--batch", "-"])
        .write_stdin("render json\nlang:python\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).matches("# ").count(),
        2
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2: filters only"));
    // In semantic mode there is nothing to embed: a usage error that says what to do.
    cg().arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "search", "--mode", "semantic", "lang:python"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("filters only"));
}

#[test]
fn a_limit_of_zero_is_a_usage_error() {
    for cmd in ["search", "symbols"] {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", cmd, "render", "--limit", "0"])
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("at least 1"));
    }
}

#[test]
fn a_log_file_that_cannot_be_created_does_not_stop_a_command() {
    let state = tempfile::tempdir().unwrap();
    // A directory where today's log file would go: the file cannot be created.
    let logs = state.path().join("codegraph-tui/logs");
    for days in 0..2 {
        let t = std::time::SystemTime::now() + std::time::Duration::from_secs(86_400 * days);
        let secs = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
        std::fs::create_dir_all(logs.join(format!("codegraph-tui.log.{y:04}-{m:02}-{d:02}")))
            .unwrap();
    }
    cg().env("XDG_STATE_HOME", state.path())
        .arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "symbols", "render_json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("render_json"))
        .stderr(predicate::str::contains("panicked").not());
}

/// (year, month, day) of a count of days since 1970-01-01 (H. Hinnant's civil_from_days).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[test]
fn a_query_of_only_punctuation_finds_nothing_in_any_mode() {
    for mode in ["text", "semantic", "hybrid"] {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", "search", "!!!", "--mode", mode])
            .assert()
            .code(1)
            .stdout(predicate::str::is_empty());
    }
}

#[test]
fn the_lower_bound_counts_only_calls_that_could_add_within_the_depth() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.py"),
        "def top():\n    mid()\n    zzz_missing_one()\n\n\
         def mid():\n    yyy_missing_two()\n",
    )
    .unwrap();
    let unresolved = |depth: &str| {
        let v: serde_json::Value = common::json_of(
            cg().arg("-C")
                .arg(dir.path())
                .args([
                    "--no-cache",
                    "callees",
                    "m.py::top",
                    "--json",
                    "--depth",
                    depth,
                ])
                .output()
                .unwrap(),
        );
        v["unresolved"].as_u64().unwrap()
    };
    // Depth 1: `mid` is a leaf; its unresolved call would only add at depth 2.
    assert_eq!(unresolved("1"), 1);
    assert_eq!(unresolved("2"), 2);
}

/// `symbols` text names a definition whose qualified name others share (`@overload`
/// stubs) by its id, the one form `callers` takes for it; a unique name gets no id.
#[test]
fn symbols_text_shows_the_id_of_a_shared_qualified_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.py"),
        "import typing\n\n@typing.overload\ndef get(x: int) -> int: ...\n\n\
         @typing.overload\ndef get(x: str) -> str: ...\n\ndef get(x):\n    return x\n\n\
         def getter_only():\n    return get(1)\n",
    )
    .unwrap();
    let out = cg()
        .arg("-C")
        .arg(dir.path())
        .args(["--no-cache", "--color", "never", "symbols", "get"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let ids: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" m.get "))
        .map(|l| l.rsplit("  id ").next().unwrap())
        .collect();
    assert_eq!(ids, ["m.py::get", "m.py::get#2", "m.py::get#3"], "{text}");
    let unique = text.lines().find(|l| l.contains("m.getter_only")).unwrap();
    assert!(!unique.contains("  id "), "{text}");
    // The id shown is one `callers` accepts.
    cg().arg("-C")
        .arg(dir.path())
        .args(["--no-cache", "callers", "m.py::get#3"])
        .assert()
        .success()
        .stdout(predicate::str::contains("m.getter_only"));
}

/// The text tree has at most `--depth` levels, each node expanded where it is nearest the
/// root: `mid` is met first under `a_first` (depth 2) but is a direct callee (depth 1), so
/// `leaf` is listed under the depth-1 `mid`, never at a third level (a fresh-eyes run found
/// Flask's `_get_exc_class_and_code` four levels down for `--depth 3`).
#[test]
fn the_text_tree_expands_each_node_at_its_shortest_distance() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.py"),
        "def leaf():\n    pass\n\ndef mid():\n    leaf()\n\n\
         def a_first():\n    mid()\n\ndef top():\n    a_first()\n    mid()\n",
    )
    .unwrap();
    let out = cg()
        .arg("-C")
        .arg(dir.path())
        .args([
            "--no-cache",
            "--color",
            "never",
            "callees",
            "m.py::top",
            "--depth",
            "2",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<(usize, &str)> = text
        .lines()
        .map(|l| {
            let indent = l.len() - l.trim_start().len();
            (indent / 2, l.trim_start().split(' ').next().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        lines,
        [
            (0, "m.top"),
            (1, "m.a_first"),
            (2, "m.mid"),
            (1, "m.mid"),
            (2, "m.leaf")
        ],
        "{text}"
    );
    assert!(
        text.lines().nth(2).unwrap().ends_with("(see below)"),
        "{text}"
    );
}

/// `--depth 0` is refused alike by every command that walks (it was accepted by `callers`,
/// `callees` and `export`, refused by `impact` and `path`).
#[test]
fn depth_zero_is_refused_by_every_walk() {
    for args in [
        &["callers", "save_item", "--depth", "0"][..],
        &["callees", "save_item", "--depth", "0"],
        &["impact", "save_item", "--depth", "0"],
        &["export", "save_item", "--depth", "0"],
    ] {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .arg("--no-cache")
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("0 is not in 1.."));
    }
}

/// `-C A index B` (or `-C A B` for the TUI) names two repositories: an error naming both,
/// never a silent choice; the same one twice is fine.
#[test]
fn two_different_roots_are_an_error() {
    let (a, b) = (common::fixture("python"), common::fixture("go"));
    for args in [vec!["index", "--json"], vec![]] {
        let mut c = cg();
        c.arg("-C").arg(&a);
        if args.is_empty() {
            c.arg(&b);
        } else {
            c.args(&args).arg(&b);
        }
        c.assert()
            .failure()
            .stderr(predicate::str::contains("give one of them"));
    }
    cg().arg("-C")
        .arg(&a)
        .args(["index", "--json"])
        .arg(&a)
        .assert()
        .success();
}

/// Writes `files` (repo-relative path, text) into a fresh repository under `tmp`, dated an
/// hour back so a cache trusts their stamps.
fn write_repo(tmp: &std::path::Path, files: &[(&str, &str)]) -> std::path::PathBuf {
    let repo = tmp.join("repo");
    for (path, text) in files {
        let p = repo.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    common::backdate(&repo);
    repo
}

/// Runs `args` on `repo` with a cache under `tmp`: a cold run (which indexes and saves),
/// then a warm one answered from the cached graph alone, then one with `--no-cache`; all
/// three must print the same. (exit status, stdout JSON or Null, stderr) of the last.
fn cold_warm_fresh(
    tmp: &std::path::Path,
    repo: &std::path::Path,
    args: &[&str],
) -> (i32, serde_json::Value, String) {
    let (cache, state) = (tmp.join("cache"), tmp.join("state"));
    let run = |extra: &[&str]| {
        cg().env("XDG_CACHE_HOME", &cache)
            .env("XDG_STATE_HOME", &state)
            .arg("-C")
            .arg(repo)
            .args(extra)
            .args(args)
            .output()
            .unwrap()
    };
    let loaded = || -> usize {
        std::fs::read_dir(state.join("codegraph-tui/logs"))
            .map(|d| {
                d.flatten()
                    .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                    .map(|log| log.matches("cached graph loaded").count())
                    .sum()
            })
            .unwrap_or(0)
    };
    let cold = run(&[]);
    let before = loaded();
    let warm = run(&["-v"]);
    assert_eq!(
        loaded(),
        before + 1,
        "{args:?}: the warm run did not answer from the cached graph"
    );
    let fresh = run(&["--no-cache"]);
    for out in [&cold, &warm] {
        assert_eq!(out.status.code(), fresh.status.code(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&fresh.stdout),
            "{args:?}"
        );
    }
    (
        fresh.status.code().unwrap(),
        serde_json::from_slice(&fresh.stdout).unwrap_or(serde_json::Value::Null),
        String::from_utf8_lossy(&fresh.stderr).into_owned(),
    )
}

/// The JSON answer of `args` run by [`cold_warm_fresh`], which must succeed.
fn answered(tmp: &std::path::Path, repo: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let (code, v, err) = cold_warm_fresh(tmp, repo, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    v
}

/// The `error` object of `args` run by [`cold_warm_fresh`], which must be refused
/// (exit status 2).
fn refused(tmp: &std::path::Path, repo: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let (code, v, _) = cold_warm_fresh(tmp, repo, args);
    assert_eq!(code, 2, "{args:?}");
    v["error"].clone()
}

/// A Go name qualified by its import path (the `go.mod` module path, then the folder
/// below it) names the definition, cold, from the cache and fresh; the folder-path
/// suffix still does, and a bare name defined twice stays ambiguous.
#[test]
fn a_go_import_path_names_the_symbol() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = write_repo(
        tmp.path(),
        &[
            ("go.mod", "module example.com/acme/tool\n\ngo 1.21\n"),
            (
                "pkg/func.go",
                "package pkg\n\nfunc Func() int {\n\treturn helper()\n}\n\nfunc helper() int {\n\treturn 1\n}\n",
            ),
            (
                "other/func.go",
                "package other\n\nfunc Func() int {\n\treturn 2\n}\n",
            ),
            (
                "main.go",
                "package main\n\nimport \"example.com/acme/tool/pkg\"\n\nfunc main() {\n\tpkg.Func()\n}\n",
            ),
        ],
    );
    let v = answered(
        tmp.path(),
        &repo,
        &["callers", "example.com/acme/tool/pkg.Func", "--json"],
    );
    assert_eq!(v["root"], "pkg/func.go::Func");
    let edges: Vec<(&str, &str)> = v["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["source"].as_str().unwrap(), e["target"].as_str().unwrap()))
        .collect();
    assert_eq!(edges, [("main.go::main", "pkg/func.go::Func")]);
    // The module's root package, and the shorter forms that worked before.
    let v = answered(
        tmp.path(),
        &repo,
        &["callees", "example.com/acme/tool.main", "--json"],
    );
    assert_eq!(v["root"], "main.go::main");
    for short in ["pkg.Func", "pkg/func.go::Func"] {
        let v = answered(tmp.path(), &repo, &["callers", short, "--json"]);
        assert_eq!(v["root"], "pkg/func.go::Func", "{short}");
    }
    let error = refused(tmp.path(), &repo, &["callers", "Func", "--json"]);
    assert_eq!(error["reason"], "ambiguous");
    // Another module path, or a package the module does not have, names nothing.
    for wrong in [
        "example.com/acme/toolbox/pkg.Func",
        "example.com/acme/tool/nopkg.Func",
    ] {
        let error = refused(tmp.path(), &repo, &["callers", wrong, "--json"]);
        assert_eq!(error["reason"], "not_found", "{wrong}");
    }
    // An empty SYMBOL is an error of its own, not a name with arbitrary suggestions.
    for empty in ["", "  "] {
        let error = refused(tmp.path(), &repo, &["callers", empty, "--json"]);
        assert!(error["reason"].is_null(), "{empty:?}: {error}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("empty SYMBOL"), "{empty:?}: {error}");
    }
}

/// A Rust path names its crate by the `[package] name` of its `Cargo.toml` even when the
/// folder is named otherwise (`crates/wire-frames/` holds the package `frames`); a
/// same-named function of another crate is not chosen.
#[test]
fn a_cargo_package_name_names_the_crate() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = write_repo(
        tmp.path(),
        &[
            ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
            (
                "crates/wire-frames/Cargo.toml",
                "[package]\nname = \"frames\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            (
                "crates/wire-frames/src/lib.rs",
                "pub fn checksum(b: &[u8]) -> u32 {\n    b.len() as u32\n}\n\npub fn encode(b: &[u8]) -> u32 {\n    checksum(b)\n}\n",
            ),
            (
                "crates/frames-legacy/Cargo.toml",
                "[package]\nname = \"frames-legacy\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            (
                "crates/frames-legacy/src/lib.rs",
                "pub fn checksum(b: &[u8]) -> u32 {\n    0\n}\n\npub fn old_encode(b: &[u8]) -> u32 {\n    checksum(b)\n}\n",
            ),
        ],
    );
    let v = answered(
        tmp.path(),
        &repo,
        &["callers", "frames::checksum", "--json"],
    );
    assert_eq!(v["root"], "crates/wire-frames/src/lib.rs::checksum");
    let ids = common::strs(&v["nodes"], "id");
    assert_eq!(
        ids,
        [
            "crates/wire-frames/src/lib.rs::checksum",
            "crates/wire-frames/src/lib.rs::encode"
        ]
    );
    let v = answered(
        tmp.path(),
        &repo,
        &["callers", "frames_legacy::checksum", "--json"],
    );
    assert_eq!(v["root"], "crates/frames-legacy/src/lib.rs::checksum");
    // The bare name stays ambiguous, listing both.
    let error = refused(tmp.path(), &repo, &["callers", "checksum", "--json"]);
    let candidates = common::strs(&error["candidates"], "id");
    assert_eq!(
        candidates,
        [
            "crates/frames-legacy/src/lib.rs::checksum",
            "crates/wire-frames/src/lib.rs::checksum"
        ]
    );
}
