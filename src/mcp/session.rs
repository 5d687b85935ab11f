//! The server without a process around it: one resident state, and protocol sessions over
//! in-memory pipes through the same stdio filter and handler as `codegraph-tui mcp`. The
//! MCP fuzz target (`crate::fuzzing::mcp`) runs each input as a session here, so the
//! engine's coverage feedback sees the line checks, the SDK's request handling, argument
//! parsing and every tool, and a finding replays in `cargo test` through the same code.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::state::Resident;
use super::{schema, stdio, McpOptions, Server};

/// The id of the request that ends a session: [`InProcess::session`] reads the server's
/// lines until the answer to this `ping`.
pub const END_ID: &str = "codegraph-session-end";

/// Bytes each in-memory pipe buffers; larger messages pass in several writes.
const PIPE: usize = 1 << 20;

/// A resident server state with its own runtime, serving sessions one at a time.
pub struct InProcess {
    rt: tokio::runtime::Runtime,
    server: Server,
}

impl InProcess {
    /// Starts the worker on `options.root`, as `serve` does, on a runtime with the
    /// blocking pool the tool calls run on.
    ///
    /// Errors: the worker thread or the runtime cannot start.
    pub fn start(options: McpOptions) -> anyhow::Result<InProcess> {
        let state = Resident::start(
            options.root,
            options.index,
            options.setup,
            options.embedding,
        )
        .context("starting the worker")?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the runtime")?;
        let server = Server {
            state,
            tools: Arc::new(schema::tools()),
        };
        Ok(InProcess { rt, server })
    }

    /// Waits up to `timeout` for the first published snapshot whose reconciliation has
    /// finished; `true` when there is one.
    pub fn ready(&self, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        let state: &Arc<Resident> = &self.server.state;
        while Instant::now() < end {
            if state.served().is_some() && state.running().is_none() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// One MCP client connection: the client's `initialize` and
    /// `notifications/initialized`, then `input` as the client's bytes (a newline added
    /// when it lacks one), then a `ping` with id [`END_ID`]. Returns every line the server
    /// wrote, in order, until it has answered that ping and every request id of `input` (of
    /// a line that is a JSON object with a string `method` and an `id` that is a string or
    /// an integer; tool calls run concurrently, so their answers may come after the
    /// ping's). An id sent again while in flight is awaited once: MCP forbids reusing an id
    /// on one connection, and the SDK answers only one of the two. The connection's pipes
    /// are then closed and its tasks ended.
    ///
    /// Errors: the server closed its output before answering them all (it would have
    /// ended a real client's connection), or `timeout` passed first.
    pub fn session(&self, input: &[u8], timeout: Duration) -> Result<Vec<String>, String> {
        let server = self.server.clone();
        let mut pending = requests(input);
        pending.push(id_key(&serde_json::Value::from(END_ID)).unwrap_or_default());
        pending.sort();
        pending.dedup();
        self.rt.block_on(async move {
            let (mut to_server, server_in) = tokio::io::duplex(PIPE);
            let (server_out, from_server) = tokio::io::duplex(PIPE);
            let transport = stdio::filtered(server_in, server_out);
            let serving = tokio::spawn(async move {
                if let Ok(running) = server.serve(transport).await {
                    let _ = running.waiting().await;
                }
            });
            let handshake = concat!(
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"#,
                r#""protocolVersion":"2025-06-18","capabilities":{},"#,
                r#""clientInfo":{"name":"codegraph-session","version":"1"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "\n"
            );
            let end = format!(r#"{{"jsonrpc":"2.0","id":"{END_ID}","method":"ping"}}"#);
            let mut client = Vec::with_capacity(handshake.len() + input.len() + end.len() + 2);
            client.extend_from_slice(handshake.as_bytes());
            client.extend_from_slice(input);
            if !input.ends_with(b"\n") {
                client.push(b'\n');
            }
            client.extend_from_slice(end.as_bytes());
            client.push(b'\n');
            // Written while the answers are read: a session whose answers fill the pipe
            // would otherwise block both sides.
            let write = async move {
                let _ = to_server.write_all(&client).await;
                to_server
            };
            let read = async move {
                let mut lines = BufReader::new(from_server);
                let mut out = Vec::new();
                let mut line = String::new();
                loop {
                    line.clear();
                    match lines.read_line(&mut line).await {
                        Ok(0) | Err(_) => {
                            return Err(format!(
                            "the server closed its output after {} lines, with requests unanswered",
                            out.len()
                        ))
                        }
                        Ok(_) => {}
                    }
                    if let Some(k) = answered(&line) {
                        if let Some(i) = pending.iter().position(|p| *p == k) {
                            pending.swap_remove(i);
                        }
                    }
                    out.push(std::mem::take(&mut line));
                    if pending.is_empty() {
                        return Ok(out);
                    }
                }
            };
            let both = async { tokio::join!(write, read) };
            let result = match tokio::time::timeout(timeout, both).await {
                Ok((to_server, out)) => {
                    // Closing the client's side is the server's end of input.
                    drop(to_server);
                    out
                }
                Err(_) => Err(format!("requests unanswered after {timeout:?}")),
            };
            let _ = tokio::time::timeout(Duration::from_secs(5), serving).await;
            result
        })
    }
}

/// A request id as compared here: `s:` and the string, or `n:` and the integer. `None`
/// for any other id (the server may refuse those without echoing them).
fn id_key(id: &serde_json::Value) -> Option<String> {
    match id {
        serde_json::Value::String(s) => Some(format!("s:{s}")),
        serde_json::Value::Number(n) => n.as_i64().map(|i| format!("n:{i}")),
        _ => None,
    }
}

/// The ids of the requests among `input`'s lines, in order.
fn requests(input: &[u8]) -> Vec<String> {
    input
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<serde_json::Value>(line).ok())
        .filter(|v| v.get("method").is_some_and(serde_json::Value::is_string))
        .filter_map(|v| v.get("id").and_then(id_key))
        .collect()
}

/// The id of the request `line` answers (a result or an error), if any.
fn answered(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    if v.get("result").is_none() && v.get("error").is_none() {
        return None;
    }
    v.get("id").and_then(id_key)
}
