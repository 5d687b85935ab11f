//! How a command line names a symbol: an unknown name is an error with suggestions, an
//! ambiguous one lists its candidates, a qualified-name suffix, a Go import path or a Cargo
//! package name names it, cold, from the cache and fresh alike.

use predicates::prelude::*;

use super::{cg, common};

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
