//! The stdio transport: newline-delimited JSON-RPC messages on stdin and stdout (MCP,
//! "Transports", stdio), with a check of each incoming line before the SDK sees it.
//!
//! The SDK drops a line that is not JSON without a word, and answers a `tools/call` whose
//! `params` lack a tool name as "method not found". JSON-RPC 2.0 (section 5.1) gives both
//! their own errors, which a client can act on: `-32700` (parse error, `id` null),
//! `-32600` (invalid request: not an object, no `method`, `jsonrpc` not `"2.0"`, what the
//! SDK cannot decode, such as a key given twice; batches,
//! which MCP 2025-06-18 removed) and `-32602` (invalid params). So every line is read
//! here; a bad one is answered here, a good one is passed on unchanged to the SDK through
//! an in-memory pipe, and the SDK's output and these answers go to stdout as whole lines
//! from one writer, so they never interleave.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Size of each in-memory pipe between this filter and the SDK, in bytes. A message
/// larger than this passes through in several writes.
const PIPE: usize = 256 * 1024;

/// The transport the SDK serves on: the reader of checked incoming lines and the writer
/// of its outgoing ones. The tasks that move bytes between them and `input`/`output`
/// run on the current runtime; they end when `input` ends (the SDK then reads EOF and
/// stops) or `output` fails.
pub fn filtered<R, W>(input: R, output: W) -> (tokio::io::DuplexStream, tokio::io::DuplexStream)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sdk_in, mut to_sdk) = tokio::io::duplex(PIPE);
    let (from_sdk, sdk_out) = tokio::io::duplex(PIPE);
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();

    let answers = tx.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(input);
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match lines.read_until(b'\n', &mut bytes).await {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!("mcp: stdin: {e}");
                    break;
                }
            }
            let Ok(line) = std::str::from_utf8(&bytes) else {
                let _ = answers.send(error(Value::Null, -32700, "parse error: not UTF-8"));
                continue;
            };
            if line.trim().is_empty() {
                continue;
            }
            match check(line) {
                Ok(()) => {
                    if to_sdk.write_all(line.as_bytes()).await.is_err() {
                        break;
                    }
                    if !line.ends_with('\n') && to_sdk.write_all(b"\n").await.is_err() {
                        break;
                    }
                }
                Err(answer) => {
                    let _ = answers.send(answer);
                }
            }
        }
        // Dropping the pipe's writer is the SDK's EOF.
        drop(to_sdk);
    });

    tokio::spawn(async move {
        let mut lines = BufReader::new(from_sdk);
        let mut line = String::new();
        while matches!(lines.read_line(&mut line).await, Ok(n) if n > 0) {
            if tx.send(std::mem::take(&mut line)).is_err() {
                break;
            }
        }
    });

    tokio::spawn(async move {
        let mut output = output;
        while let Some(mut line) = rx.recv().await {
            if !line.ends_with('\n') {
                line.push('\n');
            }
            if output.write_all(line.as_bytes()).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });

    (sdk_in, sdk_out)
}

/// `Ok` for a line the SDK should see, else the error response to send for it (one
/// line of JSON, no newline).
fn check(line: &str) -> Result<(), String> {
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return Err(error(Value::Null, -32700, &format!("parse error: {e}"))),
    };
    let Some(o) = v.as_object() else {
        let what = if v.is_array() {
            "a batch: MCP takes one message per line"
        } else {
            "not a JSON object"
        };
        return Err(error(
            Value::Null,
            -32600,
            &format!("invalid request: {what}"),
        ));
    };
    // Only requests carry an id that can be answered; a bad notification or response is
    // left to the SDK, which ignores what it cannot use.
    let id = match o.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        Some(Value::Null) | None => return Ok(()),
        Some(_) => {
            return Err(error(
                Value::Null,
                -32600,
                "invalid request: id must be a string or a number",
            ))
        }
    };
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(error(
            id,
            -32600,
            "invalid request: jsonrpc must be \"2.0\"",
        ));
    }
    let Some(method) = o.get("method") else {
        // A response to a request of the server's: the SDK's.
        return Ok(());
    };
    let Some(method) = method.as_str() else {
        return Err(error(
            id,
            -32600,
            "invalid request: method must be a string",
        ));
    };
    if method == "tools/call" {
        let params = o.get("params");
        if !params
            .and_then(|p| p.get("name"))
            .is_some_and(Value::is_string)
        {
            return Err(error(
                id,
                -32602,
                "invalid params: tools/call needs params.name, a tool name from tools/list",
            ));
        }
        if let Some(args) = params.and_then(|p| p.get("arguments")) {
            if !args.is_object() && !args.is_null() {
                return Err(error(
                    id,
                    -32602,
                    "invalid params: tools/call's params.arguments must be an object",
                ));
            }
        }
    }
    // What the SDK cannot decode (a key given twice, `params` or `_meta` not an object)
    // it refuses without the request's id, which leaves the client waiting for an answer.
    if let Err(e) = serde_json::from_str::<rmcp::model::ClientJsonRpcMessage>(line) {
        return Err(error(id, -32600, &format!("invalid request: {e}")));
    }
    Ok(())
}

/// A JSON-RPC error response.
fn error(id: Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &str) -> Option<(Value, i64)> {
        check(line).err().map(|e| {
            let v: Value = serde_json::from_str(&e).unwrap();
            (v["id"].clone(), v["error"]["code"].as_i64().unwrap())
        })
    }

    #[test]
    fn good_messages_pass_and_bad_ones_get_their_json_rpc_code() {
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            None
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"status"}}"#),
            None
        );
        assert_eq!(code("not json"), Some((Value::Null, -32700)));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1"#),
            Some((Value::Null, -32700))
        );
        assert_eq!(code("[1,2]"), Some((Value::Null, -32600)));
        assert_eq!(code("42"), Some((Value::Null, -32600)));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":4,"method":"tools/list"}"#),
            Some((json!(4), -32600))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":"a","method":7}"#),
            Some((json!("a"), -32600))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"nam":"x"}}"#),
            Some((json!(6), -32602))
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#
            ),
            Some((json!(7), -32602))
        );
    }

    #[test]
    fn a_repeated_key_is_answered_with_the_requests_id() {
        // The SDK refuses these without echoing the id (found by the `mcp` fuzz target).
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"ping","id":1}"#),
            Some((json!(1), -32600))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":2,"method":"x","method":"tools/list"}"#),
            Some((json!(2), -32600))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":"src/"}"#),
            Some((json!(4), -32600))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":5}}"#),
            Some((json!(5), -32600))
        );
        // What the SDK answers itself passes: an unknown method (-32601 with the id), a
        // tool's arguments with a repeated key (the last value counts), params null.
        for good in [
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/s/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"status","arguments":{"a":1,"a":2}}}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/list","params":null}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
        ] {
            assert_eq!(code(good), None, "{good}");
        }
    }
}
