//! `codegraph-tui mcp` end to end: the real binary started as a child process and spoken to
//! over its stdio by the official Rust SDK's client (rmcp), on a small Python project whose
//! call graph is known, in a private cache. Covers the handshake, every tool's answer, the
//! errors that must not end the server, an edit followed by the changed answer, and a
//! second instance on the same repository. The raw protocol (malformed lines, stdin
//! closed, SIGTERM) is in `tests/mcp/raw.rs`.

mod common;
#[path = "mcp/project.rs"]
mod project;
#[path = "mcp/raw.rs"]
mod raw;

pub use project::project;

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};

type Client = RunningService<RoleClient, ()>;

/// Starts `codegraph-tui mcp` on `repo` with the cache under `home` and connects the SDK's
/// client to it (the handshake included).
pub async fn start(home: &Path, repo: &Path) -> Client {
    let mut cmd = common::isolated(home, repo);
    cmd.arg("mcp");
    let transport = TokioChildProcess::new(tokio::process::Command::from(cmd)).expect("spawn");
    ().serve(transport).await.expect("MCP handshake")
}

/// Calls tool `name`; a protocol error is returned as such.
pub async fn try_call(c: &Client, name: &str, args: Value) -> Result<CallToolResult, ServiceError> {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    c.call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
        .await
}

/// Calls tool `name` and returns its result (which may be a tool error).
pub async fn call(c: &Client, name: &str, args: Value) -> CallToolResult {
    try_call(c, name, args)
        .await
        .unwrap_or_else(|e| panic!("{name}: protocol error {e}"))
}

/// The text content of a result.
pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// The `structuredContent` of a successful result.
pub fn ok(name: &str, r: CallToolResult) -> Value {
    assert_ne!(r.is_error, Some(true), "{name} failed: {}", text(&r));
    r.structured_content.expect("structuredContent")
}

/// The message of a tool error.
pub fn tool_error(r: &CallToolResult) -> String {
    assert_eq!(
        r.is_error,
        Some(true),
        "expected a tool error, got {}",
        text(r)
    );
    text(r)
}

/// Polls `status` until the server serves a current snapshot; returns it.
pub async fn ready(c: &Client) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let s = ok("status", call(c, "status", json!({})).await);
        if s["result"]["state"] == "ready" {
            return s;
        }
        assert!(Instant::now() < deadline, "not ready after 120 s: {s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The ids of the nodes of a subgraph answer other than its root.
fn others(answer: &Value) -> Vec<String> {
    let r = &answer["result"];
    let mut v: Vec<String> = r["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .filter(|id| *id != r["root"].as_str().unwrap())
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn the_handshake_names_the_server_and_lists_every_tool_with_its_schemas() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    project(repo.path());
    let c = start(home.path(), repo.path()).await;
    let info = c.peer_info().expect("initialize result");
    let server = info.server_info.clone().expect("serverInfo");
    assert_eq!(server.name, "codegraph-tui");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    let instructions = info.instructions.clone().unwrap_or_default();
    for tool in ["outline", "symbols", "callers", "impact", "search"] {
        assert!(instructions.contains(tool), "instructions name {tool}");
    }
    let tools = c.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert_eq!(
        names,
        [
            "search", "symbols", "callers", "callees", "impact", "path", "source", "outline",
            "status"
        ]
    );
    let args = |name: &str| -> Vec<String> {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        assert_eq!(t.input_schema["type"], "object", "{name}");
        assert_eq!(t.input_schema["additionalProperties"], false, "{name}");
        let out = t.output_schema.as_ref().expect("outputSchema");
        assert_eq!(out["type"], "object");
        assert!(out["properties"]["result"].is_object(), "{name}");
        assert_eq!(
            t.annotations.as_ref().and_then(|a| a.read_only_hint),
            Some(true),
            "{name}: {t:?}"
        );
        let mut a: Vec<String> = t
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        a.sort();
        a
    };
    assert_eq!(
        args("search"),
        ["kind", "lang", "limit", "mode", "path", "query"]
    );
    assert_eq!(args("symbols"), ["limit", "query"]);
    assert_eq!(args("callers"), ["depth", "limit", "symbol"]);
    assert_eq!(args("callees"), ["depth", "limit", "symbol"]);
    assert_eq!(args("impact"), ["depth", "diff", "limit", "symbol"]);
    assert_eq!(args("path"), ["depth", "from", "max", "to"]);
    assert_eq!(args("source"), ["context", "symbol"]);
    assert_eq!(args("outline"), ["limit", "path"]);
    assert!(args("status").is_empty());
    // The schema's bounds are the ones the tools enforce.
    let callers = &tools
        .iter()
        .find(|t| t.name == "callers")
        .unwrap()
        .input_schema;
    let prop = |p: &str, k: &str| callers["properties"][p][k].as_u64();
    assert_eq!(prop("depth", "minimum"), Some(1), "{callers:?}");
    assert_eq!(prop("limit", "minimum"), Some(1), "{callers:?}");
    assert_eq!(prop("limit", "maximum"), Some(5000), "{callers:?}");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn every_tool_answers_from_the_newest_snapshot() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    project(repo.path());
    let c = start(home.path(), repo.path()).await;
    let status = ready(&c).await;
    let counts = &status["result"]["counts"];
    assert_eq!(counts["files_indexed"], 4, "{status}");
    assert_eq!(status["result"]["languages"]["python"], 4, "{status}");
    assert_eq!(status["result"]["watching"]["working"], true, "{status}");
    assert_eq!(status["result"]["cache"]["read_only"], false, "{status}");

    let s = ok(
        "symbols",
        call(&c, "symbols", json!({"query": "slugfy"})).await,
    );
    assert_eq!(s["result"]["hits"][0]["id"], "shop/util.py::slugify", "{s}");
    assert_eq!(s["snapshot"]["stale"], false);
    let generation = s["snapshot"]["generation"].as_u64().unwrap();
    assert!(generation >= 1);
    assert!(s["snapshot"]["indexed_at"].as_str().unwrap().ends_with('Z'));

    // Depth 1 by default: the direct caller only, and `truncated` says more lie beyond.
    let r = call(&c, "callers", json!({"symbol": "slugify"})).await;
    let rendered = text(&r);
    let a = ok("callers", r);
    assert_eq!(a["result"]["schema"], "codegraph-tui/subgraph@1");
    assert_eq!(a["result"]["root"], "shop/util.py::slugify");
    assert_eq!(others(&a), ["shop/orders.py::Order.label"]);
    assert_eq!(a["result"]["edges"][0]["sites"][0]["line"], 6);
    assert!(rendered.contains("shop/orders.py::Order.label -> shop/util.py::slugify"));
    // The text rendering carries the same facts in far fewer characters than the JSON.
    assert!(rendered.len() * 2 < a.to_string().len(), "{rendered}");
    let deep = ok(
        "callers",
        call(&c, "callers", json!({"symbol": "slugify", "depth": 3})).await,
    );
    assert_eq!(
        others(&deep),
        [
            "app.py::main",
            "shop/orders.py::Order.label",
            "shop/orders.py::make_order"
        ]
    );
    // A limit keeps the nodes nearest the root and says how many it left out.
    let cut = ok(
        "callers",
        call(
            &c,
            "callers",
            json!({"symbol": "slugify", "depth": 3, "limit": 2}),
        )
        .await,
    );
    assert_eq!(others(&cut), ["shop/orders.py::Order.label"]);
    assert_eq!(cut["truncated"], true);
    assert_eq!(cut["omitted"]["nodes"], 2);

    let e = ok(
        "callees",
        call(&c, "callees", json!({"symbol": "make_order"})).await,
    );
    assert!(
        others(&e).contains(&"shop/orders.py::Order.label".to_string()),
        "{e}"
    );

    let i = ok(
        "impact",
        call(&c, "impact", json!({"symbol": "slugify"})).await,
    );
    assert_eq!(i["result"]["schema"], "codegraph-tui/impact@1");
    assert_eq!(
        i["result"]["direct_callers"],
        json!(["shop/orders.py::Order.label"])
    );
    assert_eq!(i["result"]["by_depth"].as_array().unwrap().len(), 3, "{i}");

    let p = ok(
        "path",
        call(&c, "path", json!({"from": "main", "to": "slugify"})).await,
    );
    assert_eq!(p["result"]["length"], 3);
    assert_eq!(
        p["result"]["paths"][0],
        json!([
            "app.py::main",
            "shop/orders.py::make_order",
            "shop/orders.py::Order.label",
            "shop/util.py::slugify"
        ])
    );

    let src = ok(
        "source",
        call(&c, "source", json!({"symbol": "slugify"})).await,
    );
    assert_eq!(
        src["result"]["text"],
        "def slugify(text):\n    return text.lower().replace(\" \", \"-\")\n"
    );
    assert_eq!(src["result"]["lines"], json!([1, 2]));
    assert_eq!(src["result"]["file"], "shop/util.py");
    let ctx = ok(
        "source",
        call(&c, "source", json!({"symbol": "Order.label", "context": 1})).await,
    );
    assert_eq!(ctx["result"]["lines"], json!([4, 7]));

    let o = ok(
        "outline",
        call(&c, "outline", json!({"path": "shop/orders.py"})).await,
    );
    let defs: Vec<(String, u64, u64)> = o["result"]["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_string(),
                d["depth"].as_u64().unwrap(),
                d["callers"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        defs,
        [
            ("Order".to_string(), 0, 1),
            ("label".to_string(), 1, 1),
            ("make_order".to_string(), 0, 1)
        ],
        "{o}"
    );
    assert_eq!(
        o["result"]["definitions"][1]["signature"],
        "def label(self, name):"
    );
    let root = ok("outline", call(&c, "outline", json!({"path": ""})).await);
    let entries: Vec<(&str, &str, u64)> = root["result"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap(),
                e["type"].as_str().unwrap(),
                e["files"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(entries, [("shop", "folder", 3), ("app.py", "file", 1)]);
    let top: Vec<&str> = root["result"]["entries"][0]["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    // The three most-called definitions of the folder (ties by id).
    assert_eq!(
        top,
        [
            "shop/orders.py::Order",
            "shop/orders.py::Order.label",
            "shop/orders.py::make_order"
        ],
        "{root}"
    );

    let hits = ok(
        "search",
        call(
            &c,
            "search",
            json!({"query": "lower replace", "mode": "text"}),
        )
        .await,
    );
    assert_eq!(hits["result"]["mode"], "text");
    assert_eq!(
        hits["result"]["hits"][0]["id"], "shop/util.py::slugify",
        "{hits}"
    );
    let filtered = ok(
        "search",
        call(
            &c,
            "search",
            json!({"query": "helper", "mode": "text", "path": "shop/other"}),
        )
        .await,
    );
    let paths: Vec<&str> = filtered["result"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["shop/other.py"], "{filtered}");

    // The working tree against HEAD: one changed definition, with its callers.
    std::fs::write(
        repo.path().join("shop/util.py"),
        "def slugify(text):\n    return text.strip().lower().replace(\" \", \"-\")\n\n\n\
         def helper():\n    return 1\n",
    )
    .unwrap();
    let d = ok("impact", call(&c, "impact", json!({"diff": ""})).await);
    assert_eq!(d["result"]["schema"], "codegraph-tui/impact-diff@1", "{d}");
    let changed: Vec<&str> = d["result"]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(changed, ["shop/util.py::slugify"], "{d}");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_calls_are_errors_that_do_not_end_the_server() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    project(repo.path());
    std::os::unix::fs::symlink("/etc", repo.path().join("escape")).unwrap();
    let c = start(home.path(), repo.path()).await;
    ready(&c).await;

    let r = call(&c, "callers", json!({"symbol": "helper"})).await;
    let msg = tool_error(&r);
    assert!(
        msg.contains("shop/util.py::helper") && msg.contains("shop/other.py::helper"),
        "{msg}"
    );
    let e = r.structured_content.expect("structured error");
    assert_eq!(e["error"]["reason"], "ambiguous");
    assert_eq!(e["error"]["candidates"].as_array().unwrap().len(), 2);

    let nf = call(&c, "source", json!({"symbol": "slugifyy"})).await;
    assert!(tool_error(&nf).contains("slugifyy"));
    assert_eq!(
        nf.structured_content.unwrap()["error"]["similar"][0]["id"],
        "shop/util.py::slugify"
    );

    for (tool, args, says) in [
        ("callers", json!({}), "missing field `symbol`"),
        (
            "callers",
            json!({"symbol": "slugify", "dept": 2}),
            "unknown field `dept`",
        ),
        (
            "callers",
            json!({"symbol": "slugify", "depth": 0}),
            "depth must be at least 1",
        ),
        (
            "symbols",
            json!({"query": "x", "limit": 0}),
            "limit must be at least 1",
        ),
        (
            "search",
            json!({"query": "x", "mode": "fuzzy"}),
            "unknown variant `fuzzy`",
        ),
        ("impact", json!({}), "a symbol or a diff"),
        ("outline", json!({"path": "../"}), "outside the repository"),
        ("outline", json!({"path": "/etc"}), "is absolute"),
        (
            "outline",
            json!({"path": "escape"}),
            "leads outside the repository",
        ),
        (
            "outline",
            json!({"path": "shop/../../x"}),
            "outside the repository",
        ),
        (
            "outline",
            json!({"path": "nothing/here.py"}),
            "cannot be opened",
        ),
    ] {
        let r = call(&c, tool, args.clone()).await;
        let msg = tool_error(&r);
        assert!(msg.contains(says), "{tool} {args}: {msg}");
    }
    match try_call(&c, "no_such_tool", json!({})).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32602);
            assert!(e.message.contains("no_such_tool"));
        }
        other => panic!("an unknown tool is a protocol error: {other:?}"),
    }
    // Still serving.
    assert_eq!(ready(&c).await["result"]["state"], "ready");
    c.cancel().await.unwrap();
}

/// Polls `callers` of `symbol` until `want(ids)`; returns the answer.
async fn callers_until(c: &Client, symbol: &str, want: impl Fn(&[String]) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let a = ok(
            "callers",
            call(c, "callers", json!({"symbol": symbol})).await,
        );
        if want(&others(&a)) {
            return a;
        }
        assert!(Instant::now() < deadline, "callers never changed: {a}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

const REPORT: &str =
    "from shop.util import slugify\n\n\ndef report():\n    return slugify(\"x\")\n";

#[tokio::test]
async fn an_edit_saved_on_disk_changes_the_next_answers() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    project(repo.path());
    let c = start(home.path(), repo.path()).await;
    let before = ready(&c).await["result"]["generation"].as_u64().unwrap();
    // A search index exists before the edit, so the search below is one after an update.
    let words = json!({"query": "report slugify", "mode": "text"});
    ok("search", call(&c, "search", words.clone()).await);

    std::fs::write(repo.path().join("report.py"), REPORT).unwrap();
    let has = |ids: &[String]| ids.iter().any(|i| i == "report.py::report");
    let a = callers_until(&c, "slugify", has).await;
    let generation = a["snapshot"]["generation"].as_u64().unwrap();
    assert!(generation > before);
    // A small tree's index is rebuilt before the search answers: the new function is
    // found, from the snapshot that has it, not stale.
    let found = ok("search", call(&c, "search", words).await);
    assert_eq!(
        found["result"]["hits"][0]["id"], "report.py::report",
        "{found}"
    );
    assert_eq!(found["snapshot"]["generation"], generation, "{found}");
    assert_eq!(found["snapshot"]["stale"], false, "{found}");

    std::fs::remove_file(repo.path().join("report.py")).unwrap();
    callers_until(&c, "slugify", |ids| !has(ids)).await;
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_second_instance_reads_the_snapshots_the_first_saves() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    project(repo.path());
    let writer = start(home.path(), repo.path()).await;
    ready(&writer).await;
    let reader = start(home.path(), repo.path()).await;
    let s = ready(&reader).await;
    assert_eq!(s["result"]["cache"]["read_only"], true, "{s}");
    assert_eq!(
        others(&ok(
            "callers",
            call(&reader, "callers", json!({"symbol": "slugify"})).await
        )),
        ["shop/orders.py::Order.label"]
    );

    std::fs::write(repo.path().join("report.py"), REPORT).unwrap();
    let has = |ids: &[String]| ids.iter().any(|i| i == "report.py::report");
    callers_until(&writer, "slugify", has).await;
    callers_until(&reader, "slugify", has).await;
    let w = ok("status", call(&writer, "status", json!({})).await);
    assert_eq!(w["result"]["cache"]["read_only"], false, "{w}");
    reader.cancel().await.unwrap();
    writer.cancel().await.unwrap();
}
