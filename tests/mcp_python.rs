//! `codegraph-tui mcp` spoken to by the official Python SDK (`mcp` on PyPI), the client
//! most agents' MCP hosts are built on: `tests/mcp_client.py` initializes, lists the
//! tools, waits for the index and calls `callers` and `outline`; the SDK checks every
//! `structuredContent` against the tool's `outputSchema` on the way. This test checks the
//! values it reports.
//!
//! The SDK lives in a venv at `$HOME/.cache/codegraph-ci/mcp-venv` (`.ci/run` makes it);
//! when that venv is absent or half made, this test makes it (PyPI must be reachable).

mod common;
#[path = "mcp/project.rs"]
mod project;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The SDK release the test is written against (its 2.x API: snake_case fields).
const SDK: &str = "mcp==2.3.0";
/// Written into the venv last, by `.ci/run` and by [`venv_python`].
const DONE: &str = "codegraph-installed";

fn venv_python() -> PathBuf {
    let home = std::env::var_os("HOME").expect("HOME is not set: cannot place the mcp venv");
    let venv = Path::new(&home).join(".cache/codegraph-ci/mcp-venv");
    let python = venv.join("bin/python");
    if venv.join(DONE).is_file() {
        return python;
    }
    let _ = std::fs::remove_dir_all(&venv);
    let run = |cmd: &mut Command, what: &str| {
        let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            out.status.success(),
            "{what} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&venv),
        "python3 -m venv (on Debian/Ubuntu install python3-venv)",
    );
    run(
        Command::new(venv.join("bin/pip")).args(["install", "--quiet", SDK]),
        "pip install mcp (needs PyPI)",
    );
    std::fs::write(venv.join(DONE), SDK).expect("mark the venv finished");
    python
}

#[test]
fn the_python_sdk_initializes_lists_and_calls_callers_and_outline() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    project::project(repo.path());
    let out = Command::new(venv_python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_codegraph-tui"))
        .arg(repo.path())
        .args(["slugify", "shop/orders.py"])
        .env(
            "CODEGRAPH_CONFIG",
            "/nonexistent/codegraph-test-config.toml",
        )
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .output()
        .expect("run tests/mcp_client.py");
    assert!(
        out.status.success(),
        "the client failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(r["server"]["name"], "codegraph-tui");
    assert_eq!(r["server"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(r["protocol"].as_str().unwrap() >= "2025-06-18", "{r}");
    assert_eq!(
        r["tools"],
        serde_json::json!([
            "callees", "callers", "impact", "outline", "path", "search", "source", "status",
            "symbols"
        ])
    );
    let callers = &r["callers"]["result"];
    assert_eq!(callers["root"], "shop/util.py::slugify");
    let ids: Vec<&str> = callers["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["shop/orders.py::Order.label", "shop/util.py::slugify"]
    );
    assert!(r["callers_text"]
        .as_str()
        .unwrap()
        .contains("shop/orders.py::Order.label -> shop/util.py::slugify"));
    let names: Vec<&str> = r["outline"]["result"]["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Order", "label", "make_order"]);
}
