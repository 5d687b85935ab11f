//! Impact, paths and `impact --diff` on `tests/fixtures/impact` (see its README.md): exact
//! expected sets, a cycle, a callback reference and a lambda callback, test callers (pytest, `#[test]`, `mod tests`,
//! `*.test.js`, `describe`/`it`), an ambiguous call that makes the answer a lower bound,
//! and a git repository made by the test for `--diff`.

mod common;

use std::path::Path;
use std::process::Command as Proc;

use assert_cmd::Command;
use codegraph_tui::index::impact::{impact, FsLines, Risk};
use codegraph_tui::index::paths::shortest_paths;
use serde_json::{json, Value};

fn cg() -> Command {
    let mut c = Command::cargo_bin("codegraph-tui").unwrap();
    c.env(
        "CODEGRAPH_CONFIG",
        "/nonexistent/codegraph-test-config.toml",
    );
    // Caches of test runs stay under target/, never in the user's cache folder.
    c.env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
    c.env_remove("GIT_DIR").env_remove("GIT_WORK_TREE");
    c
}

fn run_json(root: &Path, args: &[&str]) -> (Value, i32) {
    let out = cg().arg("-C").arg(root).args(args).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: stdout {:?} stderr {:?}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code().unwrap_or(-1))
}

#[test]
fn python_target_through_a_cycle_with_a_test_and_an_ambiguous_call() {
    let root = common::fixture("impact");
    let (v, code) = run_json(&root, &["impact", "pkg/core.py::tokenize", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(v["schema"], "codegraph-tui/impact@1");
    assert_eq!(v["root"], "pkg/core.py::tokenize");
    assert_eq!(v["depth"], 5);
    assert_eq!(v["direct_callers"], json!(["pkg/core.py::parse"]));
    assert_eq!(
        v["by_depth"],
        json!([
            ["pkg/core.py::parse"],
            [
                "pkg/core.py::evaluate",
                "tests/test_core.py::test_parse_upper"
            ],
            // expand is reached through the evaluate <-> expand cycle, once; the lambda
            // passed by apply_callbacks calls evaluate; evaluate_all passes evaluate to
            // map (a `references` edge)
            [
                "pkg/cli.py::apply_callbacks",
                "pkg/cli.py::evaluate_all",
                "pkg/cli.py::main",
                "pkg/core.py::expand"
            ],
            ["pkg/cli.py"]
        ])
    );
    assert_eq!(
        v["files"],
        json!(["pkg/cli.py", "pkg/core.py", "tests/test_core.py"])
    );
    assert_eq!(v["tests"], json!(["tests/test_core.py::test_parse_upper"]));
    // main by name, the script guard of pkg/cli.py, parse re-exported by pkg/__init__.py
    assert_eq!(
        v["entry_points"],
        json!(["pkg/cli.py", "pkg/cli.py::main", "pkg/core.py::parse"])
    );
    assert_eq!(v["risk"], "medium");
    assert!(v["risk_rule"].as_str().unwrap().contains(">= 20 callers"));
    assert_eq!(v["lower_bound"], true);
    let reasons = v["lower_bound_reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    let r = reasons[0].as_str().unwrap();
    assert!(r.contains("\"tokenize\"") && r.contains("ambiguous") && r.contains("pkg/cli.py:7:"));
    assert_eq!(v["truncated"], false);

    let (v, _) = run_json(
        &root,
        &["impact", "pkg/core.py::tokenize", "--depth", "2", "--json"],
    );
    assert_eq!(v["truncated"], true, "evaluate has callers beyond depth 2");
    assert_eq!(v["by_depth"].as_array().unwrap().len(), 2);
}

#[test]
fn rust_tests_by_attribute_and_module_and_pub_entry_points() {
    let root = common::fixture("impact");
    let idx = common::index(&root, 2);
    let lines = FsLines::new(&root);
    let i = impact(&idx.graph, "src/lib.rs::checksum", 5, &lines).unwrap();
    assert_eq!(
        i.by_depth,
        vec![
            vec!["src/lib.rs::digest".to_string()],
            vec![
                "src/lib.rs::Sealer::seal_twice".into(),
                "src/lib.rs::digest_is_stable".into(),
                "src/lib.rs::seal".into(),
                "src/lib.rs::tests::seal_matches_digest".into(),
            ],
            vec!["src/main.rs::main".into()],
        ]
    );
    assert_eq!(
        i.tests,
        [
            "src/lib.rs::digest_is_stable",
            "src/lib.rs::tests::seal_matches_digest"
        ]
    );
    // digest is private; seal_twice is `pub fn` in an inherent impl
    assert_eq!(
        i.entry_points,
        [
            "src/lib.rs::Sealer::seal_twice",
            "src/lib.rs::checksum",
            "src/lib.rs::seal",
            "src/main.rs::main"
        ]
    );
    assert_eq!(i.files, ["src/lib.rs", "src/main.rs"]);
    assert!(!i.lower_bound, "{:?}", i.lower_bound_reasons);
    assert!(!i.truncated);
    assert_eq!(i.risk, Risk::Medium);

    // an inherent Rust method: no dynamic dispatch
    let i = impact(&idx.graph, "src/lib.rs::Sealer::seal_twice", 5, &lines).unwrap();
    assert!(i.by_depth.is_empty() && !i.lower_bound && i.risk == Risk::Medium);
}

#[test]
fn methods_reachable_by_dynamic_dispatch_are_a_lower_bound() {
    let root = common::fixture("impact");
    let idx = common::index(&root, 2);
    let i = impact(
        &idx.graph,
        "pkg/core.py::Shape.area",
        5,
        &FsLines::new(&root),
    )
    .unwrap();
    assert_eq!(
        i.by_depth,
        vec![vec!["pkg/core.py::Shape.describe".to_string()]]
    );
    assert!(i.lower_bound);
    assert_eq!(i.lower_bound_reasons.len(), 1);
    assert!(i.lower_bound_reasons[0].contains("duck typing"));
    assert_eq!(i.risk, Risk::Low);
}

#[test]
fn javascript_tests_by_file_name_and_describe_blocks() {
    let root = common::fixture("impact");
    let idx = common::index(&root, 2);
    let i = impact(&idx.graph, "web/format.js::pad", 5, &FsLines::new(&root)).unwrap();
    assert_eq!(
        i.by_depth,
        vec![
            vec![
                "web/format.js::table".to_string(),
                "web/format.js::unusedHelper".into(),
                "web/selfcheck.js".into(),
            ],
            vec!["web/format.test.js".into()],
        ]
    );
    assert_eq!(i.tests, ["web/format.test.js", "web/selfcheck.js"]);
    assert_eq!(
        i.entry_points,
        ["web/format.js::pad", "web/format.js::table"]
    );
}

#[test]
fn impact_text_shows_rule_bound_and_truncation() {
    let out = cg()
        .arg("-C")
        .arg(common::fixture("impact"))
        .args(["impact", "pkg/core.py::tokenize", "--depth", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let t = String::from_utf8(out.stdout).unwrap();
    for want in [
        "impact of pkg/core.py::tokenize",
        "depth 1:",
        "risk: ",
        "rule: high: >= 20 callers",
        "lower bound: yes",
        "truncated: yes",
    ] {
        assert!(t.contains(want), "{want:?} missing in\n{t}");
    }
    let out = cg()
        .arg("-C")
        .arg(common::fixture("impact"))
        .args(["impact", "tokenize"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "two tokenize definitions");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pkg/legacy.py::tokenize") && err.contains("pkg/core.py::tokenize"));
}

#[test]
fn shortest_paths_and_no_path() {
    let root = common::fixture("impact");
    let idx = common::index(&root, 2);
    let p = shortest_paths(
        &idx.graph,
        "src/main.rs::main",
        "src/lib.rs::checksum",
        10,
        5,
    )
    .unwrap();
    assert_eq!(p.length, Some(3));
    assert_eq!(
        p.paths,
        vec![vec![
            "src/main.rs::main",
            "src/lib.rs::seal",
            "src/lib.rs::digest",
            "src/lib.rs::checksum"
        ]]
    );
    let (v, code) = run_json(
        &root,
        &[
            "path",
            "pkg/cli.py::main",
            "pkg/core.py::tokenize",
            "--json",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(v["schema"], "codegraph-tui/paths@1");
    assert_eq!(v["length"], 3);
    assert_eq!(
        v["paths"],
        json!([[
            "pkg/cli.py::main",
            "pkg/core.py::evaluate",
            "pkg/core.py::parse",
            "pkg/core.py::tokenize"
        ]])
    );
    let (v, code) = run_json(
        &root,
        &[
            "path",
            "pkg/cli.py::main",
            "pkg/core.py::tokenize",
            "--depth",
            "2",
            "--json",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(v["length"], Value::Null);
    let out = cg()
        .arg("-C")
        .arg(&root)
        .args(["path", "pkg/core.py::tokenize", "pkg/cli.py::main"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let t = String::from_utf8(out.stdout).unwrap();
    assert!(
        t.contains("no call path from pkg/core.py::tokenize to pkg/cli.py::main within depth 10")
    );
    assert!(t.contains("the other way round"), "{t}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = Proc::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=codegraph test",
            "-c",
            "user.email=test@codegraph.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// A git repository holding the impact fixture, committed once.
fn fixture_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    copy_tree(&common::fixture("impact"), repo);
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "fixture"]);
    dir
}

#[test]
fn diff_maps_changed_lines_to_symbols_and_unions_their_impact() {
    let dir = fixture_repo();
    let repo = dir.path();

    // Nothing changed yet.
    let (v, code) = run_json(repo, &["impact", "--diff", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(v["schema"], "codegraph-tui/impact-diff@1");
    assert_eq!(v["changed"], json!([]));
    assert_eq!(v["union"]["by_depth"], json!([]));

    // Edit the body of tokenize (line 5) and of Shape.describe (line 27), delete a line
    // inside expand, touch an import (outside any definition), add an untracked file.
    let core = repo.join("pkg/core.py");
    let text = std::fs::read_to_string(&core).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    assert_eq!(lines[4], "    return text.split()");
    lines[4] = "    return text.split(\" \")".into();
    assert!(lines[26].contains("self.area()"));
    lines[26] = "        return \"area: %d\" % self.area()".into();
    assert_eq!(lines[18], "    return evaluate(node, depth + 1)");
    lines.insert(18, "    depth = max(depth, 0)".into());
    std::fs::write(&core, lines.join("\n") + "\n").unwrap();
    git(repo, &["add", "pkg/core.py"]);
    git(repo, &["commit", "-q", "-m", "add a line to expand"]);
    let text = std::fs::read_to_string(&core).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines.remove(18); // a pure deletion inside expand, against HEAD
    std::fs::write(&core, lines.join("\n") + "\n").unwrap();
    let cli = repo.join("pkg/cli.py");
    let t = std::fs::read_to_string(&cli).unwrap();
    std::fs::write(
        &cli,
        t.replace(
            "from .core import evaluate",
            "from .core import evaluate  # noqa",
        ),
    )
    .unwrap();
    std::fs::write(
        repo.join("pkg/extra.py"),
        "from .core import parse\n\n\ndef fresh():\n    return parse(\"x\")\n",
    )
    .unwrap();

    let (v, code) = run_json(repo, &["impact", "--diff", "--json"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["rev"], "HEAD");
    // tokenize and describe were committed in the second commit, so against HEAD only the
    // deletion in expand, the import line and the untracked file remain.
    assert_eq!(
        v["changed"],
        json!([
            {"id": "pkg/core.py::expand", "lines": [[19, 19]]},
            {"id": "pkg/extra.py::fresh", "lines": [[4, 5]]}
        ])
    );
    assert_eq!(
        v["outside"],
        json!([{"file": "pkg/cli.py", "lines": [[3, 3]]}, {"file": "pkg/extra.py", "lines": [[1, 3]]}])
    );
    assert_eq!(v["impacts"].as_array().unwrap().len(), 2);
    assert_eq!(v["impacts"][0]["root"], "pkg/core.py::expand");
    assert_eq!(v["impacts"][1]["root"], "pkg/extra.py::fresh");
    assert_eq!(v["impacts"][1]["by_depth"], json!([]));

    // Against the first commit.
    let first = {
        let out = Proc::new("git")
            .arg("-C")
            .arg(repo)
            .args(["rev-list", "--max-parents=0", "HEAD"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let (v, _) = run_json(repo, &["impact", "--diff", &first, "--json"]);
    let ids = common::strs(&v["changed"], "id");
    // expand's line was added, then deleted again: no change against the first commit.
    assert_eq!(
        ids,
        [
            "pkg/core.py::Shape.describe",
            "pkg/core.py::tokenize",
            "pkg/extra.py::fresh"
        ]
    );
    let u = &v["union"];
    assert_eq!(u["root"], Value::Null);
    assert_eq!(u["roots"].as_array().unwrap().len(), 3);
    // Targets never appear as callers: fresh calls parse but is itself a target.
    assert_eq!(u["by_depth"][0], json!(["pkg/core.py::parse"]));
    assert_eq!(
        u["by_depth"][1],
        json!([
            "pkg/core.py::evaluate",
            "tests/test_core.py::test_parse_upper"
        ])
    );
    assert_eq!(
        u["lower_bound"], true,
        "ambiguous tokenize and a Python method"
    );
    assert_eq!(u["lower_bound_reasons"].as_array().unwrap().len(), 2);

    // Text form names every changed symbol and the union.
    let out = cg()
        .arg("-C")
        .arg(repo)
        .args(["impact", "--diff", &first])
        .output()
        .unwrap();
    let t = String::from_utf8(out.stdout).unwrap();
    assert!(
        t.contains("== changed pkg/core.py::tokenize  (lines 5)"),
        "{t}"
    );
    assert!(t.contains("== union of 3 changed definitions"), "{t}");

    // A bad revision is git's error, not a panic.
    let out = cg()
        .arg("-C")
        .arg(repo)
        .args(["impact", "--diff", "no-such-rev"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-rev"));
}

/// A definition deleted from the working tree is reported with the call sites that still
/// call it, and its callers join the union (they break with it), not only "changed
/// outside any definition".
#[test]
fn diff_reports_a_deleted_function_and_who_still_calls_it() {
    let dir = fixture_repo();
    let repo = dir.path();
    let core = repo.join("pkg/core.py");
    let text = std::fs::read_to_string(&core).unwrap();
    let without = text.replace(
        "def expand(node, depth):\n    return evaluate(node, depth + 1)\n\n\n",
        "",
    );
    assert_ne!(without, text);
    std::fs::write(&core, without).unwrap();

    let (v, code) = run_json(repo, &["impact", "--diff", "--json"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["changed"], json!([]), "{v}");
    assert_eq!(
        v["removed"],
        json!([{
            "id": "pkg/core.py::expand",
            "kind": "function",
            "lines": [18, 19],
            "sites": [{
                "caller": "pkg/core.py::evaluate",
                "file": "pkg/core.py",
                "line": 15,
                "column": 12,
                "reason": "external"
            }],
            "callers": ["pkg/core.py::evaluate"]
        }])
    );
    assert_eq!(v["union"]["roots"], json!(["pkg/core.py::evaluate"]));
    let text = String::from_utf8(
        cg().arg("-C")
            .arg(repo)
            .args(["impact", "--diff"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        text.contains("== removed pkg/core.py::expand  (function, lines 18-19 in HEAD): 1 call site still calls it"),
        "{text}"
    );

    // A deleted method is that removal, not a change of its class; a `super()` call of the
    // same name elsewhere is not one of its sites.
    std::fs::write(&core, text_of_head(repo, "pkg/core.py")).unwrap();
    let sub = "from .core import Shape\n\n\nclass Square(Shape):\n    def area(self):\n        return super().area() + 1\n";
    std::fs::write(repo.join("pkg/square.py"), sub).unwrap();
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "square"]);
    let text = std::fs::read_to_string(&core).unwrap();
    let without = text.replace("    def area(self):\n        return 0\n\n", "");
    assert_ne!(without, text);
    std::fs::write(&core, without).unwrap();
    let (v, code) = run_json(repo, &["impact", "--diff", "--json"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["changed"], json!([]), "{v}");
    assert_eq!(v["removed"][0]["id"], "pkg/core.py::Shape.area", "{v}");
    assert_eq!(
        v["removed"][0]["callers"],
        json!(["pkg/core.py::Shape.describe"]),
        "{v}"
    );

    // A range would give the working tree another revision's line numbers: refused.
    cg().arg("-C")
        .arg(repo)
        .args(["impact", "--diff", "HEAD~1..HEAD"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("is a range"));

    // A revision starting with '-' would be a git option (`--output=FILE` writes a file and
    // leaves the diff empty): refused, and no file is written.
    let out = repo.join("diff-output");
    cg().arg("-C")
        .arg(repo)
        .arg("impact")
        .arg(format!("--diff=--output={}", out.display()))
        .assert()
        .failure()
        .stderr(predicates::str::contains("is not a revision"));
    assert!(!out.exists());
}

fn text_of_head(repo: &Path, path: &str) -> String {
    let out = Proc::new("git")
        .arg("-C")
        .arg(repo)
        .args(["show", &format!("HEAD:{path}")])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn diff_outside_a_git_repository_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "def f():\n    return 1\n").unwrap();
    let out = cg()
        .arg("-C")
        .arg(dir.path())
        .args(["impact", "--diff"])
        .env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not inside a git repository"), "{err}");
}

#[test]
fn java_tests_by_annotation_and_public_entry_points() {
    let root = common::fixture("impact");
    let idx = common::index(&root, 2);
    let i = impact(
        &idx.graph,
        "java/org/demo/Box.java::Box.wrap",
        5,
        &FsLines::new(&root),
    )
    .unwrap();
    assert_eq!(
        i.by_depth,
        vec![
            vec![
                "java/org/demo/Box.java::Box.twice".to_string(),
                "java/org/demo/BoxCheck.java::BoxCheck.wrapsOnce".into(),
            ],
            vec!["java/org/demo/Box.java::Box.main".into()],
        ]
    );
    // @Test outside any test directory; twice is package-private
    assert_eq!(i.tests, ["java/org/demo/BoxCheck.java::BoxCheck.wrapsOnce"]);
    assert_eq!(
        i.entry_points,
        [
            "java/org/demo/Box.java::Box.main",
            "java/org/demo/Box.java::Box.wrap"
        ]
    );
    assert!(!i.lower_bound);
}

/// Writes `files` (path, text) under a new temporary directory.
fn write_repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

#[test]
fn a_frameworks_own_test_client_is_library_code_not_tests() {
    let dir = write_repo(&[
        (
            "webfw/__init__.py",
            "from .app import App, run\nfrom .testing import client_get\n",
        ),
        (
            "webfw/app.py",
            "def run():\n    return 1\n\n\nclass App:\n    def test_client(self):\n        return run()\n",
        ),
        // library code that non-test code (the package's __init__.py) imports
        (
            "webfw/testing.py",
            "from .app import run\n\n\ndef client_get():\n    return run()\n",
        ),
        // a `test` package inside the package, with no test function
        ("webfw/test/__init__.py", ""),
        (
            "webfw/test/client.py",
            "from ..app import run\n\n\nclass TestClient:\n    def open(self):\n        return run()\n",
        ),
        // real tests: a test file name inside the package, and the tests/ folder
        (
            "webfw/test/test_client.py",
            "from ..app import run\n\n\ndef test_open():\n    assert run() == 1\n",
        ),
        (
            "tests/test_app.py",
            "from webfw.app import run\n\n\ndef test_run():\n    assert run() == 1\n",
        ),
        (
            "tests/helpers.py",
            "from webfw.app import run\n\n\ndef make():\n    return run()\n",
        ),
    ]);
    let (v, code) = run_json(
        dir.path(),
        &["impact", "webfw/app.py::run", "--json", "--no-cache"],
    );
    assert_eq!(code, 0);
    assert_eq!(
        v["direct_callers"],
        json!([
            "tests/helpers.py::make",
            "tests/test_app.py::test_run",
            "webfw/app.py::App.test_client",
            "webfw/test/client.py::TestClient.open",
            "webfw/test/test_client.py::test_open",
            "webfw/testing.py::client_get"
        ])
    );
    assert_eq!(
        v["tests"],
        json!([
            "tests/helpers.py::make",
            "tests/test_app.py::test_run",
            "webfw/test/test_client.py::test_open"
        ])
    );
}
