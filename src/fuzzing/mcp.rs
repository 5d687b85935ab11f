//! The MCP harness: a server on a small repository, started once per process, and each
//! input run as one protocol session against it (`crate::mcp::session`): the input is the
//! client's bytes after the handshake, so its lines are requests, notifications, answers
//! or garbage, as a misbehaving agent would send them.
//!
//! Beyond "no panic, no hang", every session is checked for what the server promises
//! (`docs/contracts.md#mcp`): every line it writes is one JSON-RPC 2.0 message, it still
//! answers a `ping` after the input (nothing the client sent ended it), and nothing from
//! outside the repository root reaches the client. For the last, a file beside the root
//! holds a marker made afresh by each process, so an input cannot contain it, and the
//! root holds symbolic links to that file and its folder: `source`, `outline` and
//! `search` must refuse or skip all of them.

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use super::snapshot::FIXTURE;
use super::work_dir;
use crate::index::IndexOptions;
use crate::mcp::session::InProcess;
use crate::mcp::McpOptions;
use crate::worker::Setup;

/// The running server and the marker of the file outside its root.
struct Harness {
    server: InProcess,
    secret: String,
}

/// A marker no input can know: from the process id and a randomly keyed hash.
fn fresh_secret() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    format!("CG-OUTSIDE-{:016x}{:08x}", h.finish(), std::process::id())
}

/// Runs `git` in `dir` quietly; whether it succeeded.
fn git(dir: &Path, args: &[&str]) -> bool {
    std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=fuzz", "-c", "user.email=fuzz@localhost"])
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn harness() -> &'static Harness {
    static H: OnceLock<Harness> = OnceLock::new();
    H.get_or_init(|| {
        let dir = work_dir("mcp");
        let root = dir.join("repo");
        for (path, text) in FIXTURE {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap_or(&root)).expect("harness folder");
            std::fs::write(&p, text).expect("harness file");
        }
        let secret = fresh_secret();
        let outside = dir.join("outside");
        std::fs::create_dir_all(&outside).expect("harness folder");
        std::fs::write(outside.join("secret.txt"), format!("{secret}\n")).expect("harness file");
        let _ = std::os::unix::fs::symlink(&outside, root.join("out"));
        let _ = std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("secret.txt"));
        // A repository with one commit and one change since, so `impact` with `diff`
        // reaches git; without git that argument answers with an error, also fine.
        if git(&root, &["init", "-q"]) && git(&root, &["add", "-A"]) {
            git(&root, &["commit", "-q", "-m", "fixture"]);
            let _ = std::fs::write(
                root.join("util.py"),
                format!("{}\n\ndef extra():\n    return parse([])\n", FIXTURE[1].1),
            );
        }
        let root = root.canonicalize().expect("harness root");
        let options = McpOptions {
            root,
            index: IndexOptions {
                threads: 1,
                ..IndexOptions::default()
            },
            setup: Setup {
                cache_dir: Some(dir.join("cache")),
                watch: false,
            },
            embedding: None,
        };
        let server = InProcess::start(options).expect("the harness server starts");
        assert!(
            server.ready(Duration::from_secs(60)),
            "the harness server indexed nothing in 60 s"
        );
        Harness { server, secret }
    })
}

/// One MCP session: `data` is what the client sends after the handshake (see the module
/// documentation for what is checked). Panics on a broken promise.
pub fn mcp(data: &[u8]) {
    let h = harness();
    let lines = h
        .server
        .session(data, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    for line in &lines {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("the server wrote a line that is not JSON ({e}): {line:?}"));
        assert_eq!(
            v.get("jsonrpc").and_then(Value::as_str),
            Some("2.0"),
            "not a JSON-RPC 2.0 message: {line:?}"
        );
        assert!(
            !line.contains(&h.secret),
            "a file outside the repository root reached the client: {line:?}"
        );
    }
}

/// Seeds for [`mcp`]: a call of every tool with typical arguments, the hostile paths the
/// contract names, and malformed messages of each JSON-RPC error class.
pub fn mcp_seeds() -> Vec<Vec<u8>> {
    let call = |name: &str, args: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
        )
    };
    let mut seeds = vec![
        call(
            "search",
            r#"{"query":"parse args","mode":"text","limit":5}"#,
        ),
        call(
            "search",
            r#"{"query":"helper","mode":"hybrid","path":"src/","lang":"rust","kind":"function"}"#,
        ),
        call("symbols", r#"{"query":"helper","limit":3}"#),
        call("callers", r#"{"symbol":"parse","depth":2}"#),
        call("callees", r#"{"symbol":"App.run","depth":1,"limit":2}"#),
        call("impact", r#"{"symbol":"Base.helper","depth":3}"#),
        call("impact", r#"{"diff":""}"#),
        call("impact", r#"{"diff":"HEAD~1"}"#),
        call("path", r#"{"from":"main","to":"parse","max":5}"#),
        call("source", r#"{"symbol":"add","context":2}"#),
        call("outline", r#"{"path":"app.py"}"#),
        call("outline", r#"{"path":""}"#),
        call("status", "{}"),
        call("source", r#"{"symbol":"../outside/secret.txt"}"#),
        call("outline", r#"{"path":"../outside/secret.txt"}"#),
        call("outline", r#"{"path":"out/secret.txt"}"#),
        call("outline", r#"{"path":"secret.txt"}"#),
        call("outline", r#"{"path":"/etc/passwd"}"#),
        call("callers", r#"{"symbol":"helper"}"#),
        call("nope", "{}"),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}"#.to_string(),
        r#"[{"jsonrpc":"2.0","id":4,"method":"ping"}]"#.to_string(),
        r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
            .to_string(),
        "{not json".to_string(),
    ];
    // Two calls in flight at once.
    let status = seeds[12].replace(r#""id":1"#, r#""id":"second""#);
    seeds.push(format!("{}\n{status}", seeds[3]));
    seeds.into_iter().map(String::into_bytes).collect()
}
