//! The MCP server's stdio below the SDK: newline-delimited JSON-RPC written and read by
//! hand, for what a well-behaved client never sends (lines that are not JSON, batches, a
//! `tools/call` without a tool name) and for how the process ends (stdin closed, SIGTERM).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Raw {
    fn start(home: &std::path::Path, repo: &std::path::Path) -> Raw {
        let mut cmd = super::common::isolated(home, repo);
        let mut child = cmd
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Raw {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        let w = self.stdin.as_mut().unwrap();
        w.write_all(line.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }

    /// The next line of stdout, which must be one JSON-RPC message.
    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line {line:?}: {e}"))
    }

    fn initialize(&mut self) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}})
            .to_string(),
        );
        let r = self.recv();
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r
    }

    fn call(&mut self, id: u64, name: &str, args: Value) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": name, "arguments": args}})
            .to_string(),
        );
        self.recv()
    }

    /// Waits up to `secs` for the process to end; its exit code.
    fn wait(&mut self, secs: u64) -> Option<i32> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit within {secs} s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn malformed_lines_get_json_rpc_errors_and_closing_stdin_ends_the_server() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    super::project(repo.path());
    let mut s = Raw::start(home.path(), repo.path());
    let init = s.initialize();
    assert_eq!(init["id"], 0);
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "codegraph-tui");

    for (line, id, code) in [
        ("this is not json", Value::Null, -32700),
        (r#"{"jsonrpc":"2.0","id":1,"method""#, Value::Null, -32700),
        (
            r#"[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#,
            Value::Null,
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"nam":"status"}}"#,
            json!(3),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"no/such/method"}"#,
            json!(4),
            -32601,
        ),
    ] {
        s.send(line);
        let r = s.recv();
        assert_eq!(r["id"], id, "{line}: {r}");
        assert_eq!(r["error"]["code"], code, "{line}: {r}");
    }
    // Bytes that are not UTF-8 are a parse error too.
    let w = s.stdin.as_mut().unwrap();
    w.write_all(b"\xff\xfe{}\n").unwrap();
    w.flush().unwrap();
    assert_eq!(s.recv()["error"]["code"], -32700);

    s.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    let list = s.recv();
    assert_eq!(list["id"], 5);
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 9);
    let status = s.call(6, "status", json!({}));
    assert_eq!(status["id"], 6);
    assert_eq!(status["result"]["isError"], false, "{status}");

    s.stdin = None;
    assert_eq!(s.wait(20), Some(0));
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut s.stdout, &mut rest).unwrap();
    assert_eq!(rest, "", "nothing but answers on stdout");
}

#[test]
fn sigterm_ends_the_server_with_status_zero() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    super::project(repo.path());
    let mut s = Raw::start(home.path(), repo.path());
    s.initialize();
    assert_eq!(s.call(1, "status", json!({}))["id"], 1);
    let pid = rustix::process::Pid::from_child(&s.child);
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    assert_eq!(s.wait(20), Some(0));
}

#[test]
fn the_handshake_and_tool_list_do_not_wait_for_the_first_index() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    // Enough code that the first index takes seconds in a test build, never milliseconds.
    for d in 0..40 {
        let dir = repo.path().join(format!("pkg{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            let mut text = String::new();
            for n in 0..30 {
                text.push_str(&format!(
                    "def f{n}(x):\n    return f{}(x) + g{n}(x)\n\n",
                    (n + 1) % 30
                ));
            }
            std::fs::write(dir.join(format!("m{f}.py")), text).unwrap();
        }
    }
    let mut s = Raw::start(home.path(), repo.path());
    let t = Instant::now();
    let init = s.initialize();
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    s.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(s.recv()["result"]["tools"].as_array().unwrap().len(), 9);
    let status = s.call(2, "status", json!({}));
    let waited = t.elapsed();
    let st = &status["result"]["structuredContent"]["result"];
    assert_eq!(
        st["state"], "indexing",
        "answered after {waited:?}: {status}"
    );
    assert!(st["indexing"]["phase"].is_string(), "{status}");
    // A graph tool says it is still indexing, as a tool error with the progress.
    let early = s.call(3, "callers", json!({"symbol": "pkg0/m0.py::f1"}));
    let r = &early["result"];
    if r["isError"] == true {
        let t = r["content"][0]["text"].as_str().unwrap();
        assert!(t.starts_with("still indexing"), "{early}");
        assert!(r["structuredContent"]["error"]["indexing"]["phase"].is_string());
    }
    s.stdin = None;
    assert_eq!(s.wait(60), Some(0));
}

/// On a repository indexed before, the first tool calls, sent right after the handshake,
/// answer from the cached snapshot instead of refusing with "still indexing" (the cached
/// snapshot is published a moment after the server starts, and a call waits for it).
#[test]
fn the_first_calls_on_a_warm_cache_answer_rather_than_refuse() {
    let home = tempfile::tempdir().unwrap();
    let repo = home.path().join("repo");
    super::common::copy_dir(&super::common::fixture("python"), &repo);
    super::common::backdate(&repo);
    let out = super::common::isolated(home.path(), &repo)
        .args(["index", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut s = Raw::start(home.path(), &repo);
    s.initialize();
    let callers = s.call(1, "callers", json!({"symbol": "render_json"}));
    assert_ne!(callers["result"]["isError"], true, "{callers}");
    let hits = s.call(2, "search", json!({"query": "render json", "mode": "text"}));
    assert_ne!(hits["result"]["isError"], true, "{hits}");
    assert!(hits.to_string().contains("render_json"), "{hits}");
    s.stdin = None;
    assert_eq!(s.wait(60), Some(0));
}
