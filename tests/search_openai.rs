//! The OpenAI-compatible embeddings client against a real HTTP/1.1 server on loopback,
//! started by each test: success, 429 then success, 5xx until retries run out, a
//! timeout, malformed JSON, the wrong number of vectors, the wrong dimension; hostile
//! servers (a body that stalls half-way, a body without end, a connection closed
//! early, an HTML page with 200); and a failed run that leaves the cached vectors intact.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use codegraph_tui::index::search::embed::openai::{body_limit, OpenAiConfig, OpenAiEmbedder};
use codegraph_tui::index::search::embed::{EmbedError, Embedder};
use codegraph_tui::index::search::vector::{cache_file, embed_chunks};
use codegraph_tui::index::search::{SearchChunk, SearchError};

/// What the server does with one request.
#[derive(Clone)]
enum Reply {
    /// 200 with one vector of `dim` per input: `[input index, input chars, 1, ...]`.
    Vectors { dim: usize },
    /// 200 with one vector too few.
    TooFew { dim: usize },
    /// A status with a body (and `Retry-After: 0` for 429).
    Status(u16, &'static str),
    /// 200 with this raw body.
    Raw(&'static str),
    /// Waits, then answers like `Vectors`.
    Slow(Duration, usize),
    /// Sends the headers and half the body of a `Vectors` answer, then waits this long
    /// before the rest.
    StallMidBody(Duration),
    /// 200 with `Content-Length: 1000000000`, then writes until the client hangs up,
    /// adding each byte written to the counter.
    Endless(Arc<AtomicU64>),
    /// Sends the headers and a part of the body, then closes the connection.
    CloseEarly,
    /// 200 with an HTML page, as a proxy or captive portal answers.
    Html,
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    authorization: Option<String>,
    inputs: Vec<String>,
    model: String,
    input_type: Option<String>,
}

struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// Serves `script` in order (the last entry repeats), one connection per request, for at
/// most `script.len() + 8` requests, then stops by itself.
fn serve(script: Vec<Reply>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    thread::spawn(move || {
        for n in 0..script.len() + 8 {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let reply = script[n.min(script.len() - 1)].clone();
            let log = log.clone();
            thread::spawn(move || handle(stream, reply, log));
        }
    });
    Server { url, seen }
}

fn handle(mut stream: TcpStream, reply: Reply, log: Arc<Mutex<Vec<Seen>>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut len = 0usize;
    let mut auth = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
            if k.eq_ignore_ascii_case("authorization") {
                auth = Some(v.trim().to_string());
            }
        }
    }
    let mut body = vec![0; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let req: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let inputs: Vec<String> = req["input"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    log.lock().expect("lock").push(Seen {
        authorization: auth,
        inputs: inputs.clone(),
        model: req["model"].as_str().unwrap_or_default().to_string(),
        input_type: req["input_type"].as_str().map(String::from),
    });
    let vectors = |n: usize, dim: usize| {
        let data: Vec<serde_json::Value> = inputs
            .iter()
            .take(n)
            .enumerate()
            .rev() // out of order on purpose: the client must sort by `index`
            .map(|(i, s)| {
                let mut v = vec![1.0f32; dim];
                v[0] = i as f32;
                v[1] = s.chars().count() as f32;
                serde_json::json!({"object": "embedding", "index": i, "embedding": v})
            })
            .collect();
        serde_json::json!({"object": "list", "data": data, "model": "m"}).to_string()
    };
    let (status, extra, text) = match reply {
        Reply::Vectors { dim } => (200, "", vectors(inputs.len(), dim)),
        Reply::TooFew { dim } => (200, "", vectors(inputs.len().saturating_sub(1), dim)),
        Reply::Status(s, b) => (
            s,
            if s == 429 { "Retry-After: 0\r\n" } else { "" },
            b.to_string(),
        ),
        Reply::Raw(b) => (200, "", b.to_string()),
        Reply::Slow(d, dim) => {
            thread::sleep(d);
            (200, "", vectors(inputs.len(), dim))
        }
        Reply::StallMidBody(d) => {
            let text = vectors(inputs.len(), 4);
            let (a, b) = text.split_at(text.len() / 2);
            head(&mut stream, "application/json", text.len());
            let _ = stream.write_all(a.as_bytes());
            let _ = stream.flush();
            thread::sleep(d);
            let _ = stream.write_all(b.as_bytes());
            return;
        }
        Reply::Endless(written) => {
            head(&mut stream, "application/json", 1_000_000_000);
            let _ = stream.write_all(br#"{"data": [{"embedding": ["#);
            let block = "0.5, ".repeat(13_000);
            let mut total = 0u64;
            while total < 1_000_000_000 && stream.write_all(block.as_bytes()).is_ok() {
                total += block.len() as u64;
                written.store(total, Ordering::Relaxed);
            }
            return;
        }
        Reply::CloseEarly => {
            let text = vectors(inputs.len(), 4);
            head(&mut stream, "application/json", text.len());
            let _ = stream.write_all(&text.as_bytes()[..text.len() / 3]);
            let _ = stream.flush();
            let _ = stream.shutdown(std::net::Shutdown::Both);
            return;
        }
        Reply::Html => {
            let page = "<!DOCTYPE html><html><head><title>Sign in</title></head><body>Welcome to the hotel network</body></html>";
            head(&mut stream, "text/html; charset=utf-8", page.len());
            let _ = stream.write_all(page.as_bytes());
            return;
        }
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = stream.flush();
}

/// Writes a 200 status line and headers announcing `len` bytes of `content_type`.
fn head(stream: &mut TcpStream, content_type: &str, len: usize) {
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
    );
}

fn config(url: &str) -> OpenAiConfig {
    OpenAiConfig {
        base_url: url.to_string(),
        api_key: Some("sk-secret-test-key".into()),
        model: "test-model".into(),
        dimensions: None,
        timeout_secs: 5.0,
        max_retries: 2,
        max_input_chars: 1000,
        batch_size: 2,
        backoff_ms: 5,
        ..OpenAiConfig::default()
    }
}

fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("text number {i}")).collect()
}

fn assert_no_key(e: &EmbedError) {
    let s = format!("{e} {e:?}");
    assert!(
        !s.contains("sk-secret"),
        "the key leaked into an error: {s}"
    );
}

#[test]
fn success_batches_in_order_with_bearer_key() {
    let s = serve(vec![Reply::Vectors { dim: 4 }]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let v = e.embed(&texts(5)).expect("embeddings");
    assert_eq!(v.len(), 5);
    // Each batch has 2 inputs; the vector's first component is its index in its batch.
    let firsts: Vec<f32> = v.iter().map(|x| x[0]).collect();
    assert_eq!(firsts, [0.0, 1.0, 0.0, 1.0, 0.0]);
    assert!(v.iter().all(|x| x.len() == 4));
    let seen = s.seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 3, "5 inputs in batches of 2");
    assert!(seen
        .iter()
        .all(|r| r.authorization.as_deref() == Some("Bearer sk-secret-test-key")));
    assert!(seen.iter().all(|r| r.model == "test-model"));
    assert!(
        seen.iter().all(|r| r.input_type.is_none()),
        "off by default"
    );
    assert_eq!(seen[2].inputs, ["text number 4"]);
    assert!(!format!("{:?}", config(&s.url)).contains("sk-secret"));
}

#[test]
fn inputs_are_cut_keeping_the_header() {
    let s = serve(vec![Reply::Vectors { dim: 3 }]);
    let mut c = config(&s.url);
    c.max_input_chars = 12;
    let e = OpenAiEmbedder::new(c).expect("client");
    let input = "file: a.rs\n\nfn long_body() { lots of code here }".to_string();
    let v = e.embed(&[input]).expect("embeddings");
    assert_eq!(v[0][1], 12.0, "the server saw 12 chars");
    assert_eq!(s.seen.lock().expect("lock")[0].inputs, ["file: a.rs\n\n"]);
}

#[test]
fn rate_limited_then_success() {
    let s = serve(vec![
        Reply::Status(429, r#"{"error":"slow down"}"#),
        Reply::Vectors { dim: 3 },
    ]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let v = e.embed(&texts(2)).expect("succeeds on the retry");
    assert_eq!(v.len(), 2);
    assert_eq!(s.seen.lock().expect("lock").len(), 2);
}

#[test]
fn server_errors_until_retries_run_out() {
    let s = serve(vec![Reply::Status(503, "overloaded")]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let err = e.embed(&texts(1)).expect_err("must fail");
    assert_no_key(&err);
    match &err {
        EmbedError::RetriesExhausted { attempts, last } => {
            assert_eq!(*attempts, 3);
            assert!(
                matches!(**last, EmbedError::Status { status: 503, .. }),
                "{last}"
            );
        }
        other => panic!("unexpected error {other}"),
    }
    assert!(err.to_string().contains("503") && err.to_string().contains("overloaded"));
    assert_eq!(s.seen.lock().expect("lock").len(), 3, "1 try + 2 retries");
}

#[test]
fn client_errors_are_not_retried() {
    let s = serve(vec![Reply::Status(401, r#"{"error":"bad key"}"#)]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let err = e.embed(&texts(1)).expect_err("must fail");
    assert!(
        matches!(err, EmbedError::Status { status: 401, .. }),
        "{err}"
    );
    assert_eq!(s.seen.lock().expect("lock").len(), 1);
}

/// Embeds one text against a server giving `reply`, with `timeout_secs` and one retry;
/// asserts it ends in two timeouts within `within`, and returns the error.
fn times_out_twice(reply: Reply, timeout_secs: f64, within: Duration) -> EmbedError {
    let s = serve(vec![reply]);
    let mut c = config(&s.url);
    c.timeout_secs = timeout_secs;
    c.max_retries = 1;
    let e = OpenAiEmbedder::new(c).expect("client");
    let t = std::time::Instant::now();
    let err = e.embed(&texts(1)).expect_err("must time out");
    assert!(t.elapsed() < within, "{:?}", t.elapsed());
    match &err {
        EmbedError::RetriesExhausted { attempts: 2, last } => {
            assert!(matches!(**last, EmbedError::Timeout { .. }), "{last}");
        }
        other => panic!("unexpected error {other}"),
    }
    err
}

#[test]
fn timeout() {
    let err = times_out_twice(
        Reply::Slow(Duration::from_millis(1500), 3),
        0.2,
        Duration::from_millis(1400),
    );
    assert!(
        err.to_string().contains("did not answer within 0.2 s"),
        "{err}"
    );
}

#[test]
fn a_batch_that_times_out_is_split_and_later_batches_stay_small() {
    // The first request (4 inputs) is too slow; every later one answers at once.
    let s = serve(vec![
        Reply::Slow(Duration::from_millis(1500), 3),
        Reply::Vectors { dim: 3 },
    ]);
    let mut c = config(&s.url);
    c.timeout_secs = 0.4;
    c.batch_size = 4;
    c.max_retries = 0;
    let e = OpenAiEmbedder::new(c).expect("client");
    let v = e.embed(&texts(4)).expect("succeeds in smaller batches");
    let firsts: Vec<f32> = v.iter().map(|x| x[0]).collect();
    assert_eq!(firsts, [0.0, 1.0, 0.0, 1.0], "two batches of 2, in order");
    let v = e.embed(&texts(3)).expect("second call");
    assert_eq!(v.len(), 3);
    let sizes: Vec<usize> = s
        .seen
        .lock()
        .expect("lock")
        .iter()
        .map(|r| r.inputs.len())
        .collect();
    assert_eq!(sizes, [4, 2, 2, 2, 1], "the halved size is kept");
}

#[test]
fn query_and_passage_prefixes_and_input_type() {
    let s = serve(vec![Reply::Vectors { dim: 3 }]);
    let mut c = config(&s.url);
    c.query_prefix = "query: ".into();
    c.passage_prefix = "passage: ".into();
    c.input_type = true;
    c.max_input_chars = 12;
    let plain = OpenAiEmbedder::new(config(&s.url)).expect("client").id();
    let e = OpenAiEmbedder::new(c).expect("client");
    assert_ne!(e.id(), plain, "prefixed vectors must not share a cache");
    e.embed(&["def parse(): pass".to_string()])
        .expect("passage");
    e.embed_query("parse a url").expect("query");
    let seen = s.seen.lock().expect("lock").clone();
    assert_eq!(
        seen[0].inputs,
        ["passage: def"],
        "prefix counted in the cut"
    );
    assert_eq!(seen[0].input_type.as_deref(), Some("document"));
    assert_eq!(seen[1].inputs, ["query: parse"]);
    assert_eq!(seen[1].input_type.as_deref(), Some("query"));
}

#[test]
fn malformed_json() {
    let s = serve(vec![Reply::Raw(r#"{"data": [{"embedding": "oops"}]"#)]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let err = e.embed(&texts(1)).expect_err("must fail");
    assert!(matches!(err, EmbedError::Malformed { .. }), "{err}");
    assert!(err.to_string().contains("malformed JSON"));
    assert_eq!(s.seen.lock().expect("lock").len(), 1, "not retried");
}

#[test]
fn wrong_number_of_vectors() {
    let s = serve(vec![Reply::TooFew { dim: 3 }]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let err = e.embed(&texts(2)).expect_err("must fail");
    assert!(
        matches!(
            err,
            EmbedError::Count {
                expected: 2,
                got: 1,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("returned 1 vectors for 2 inputs"));
}

#[test]
fn wrong_dimension() {
    let s = serve(vec![Reply::Vectors { dim: 3 }]);
    let mut c = config(&s.url);
    c.dimensions = Some(8);
    let e = OpenAiEmbedder::new(c).expect("client");
    let err = e.embed(&texts(1)).expect_err("must fail");
    assert!(
        matches!(
            err,
            EmbedError::Dimension {
                expected: 8,
                got: 3,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_body_that_stalls_half_way_times_out() {
    times_out_twice(
        Reply::StallMidBody(Duration::from_secs(3)),
        0.3,
        Duration::from_secs(2),
    );
}

#[test]
fn a_body_without_end_is_cut_at_the_limit_and_not_retried() {
    let written = Arc::new(AtomicU64::new(0));
    let s = serve(vec![Reply::Endless(written.clone())]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let t = std::time::Instant::now();
    let err = e.embed(&texts(2)).expect_err("must fail");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let limit = body_limit(2);
    match &err {
        EmbedError::TooLarge {
            limit_bytes,
            inputs: 2,
            ..
        } => assert_eq!(*limit_bytes, limit),
        other => panic!("unexpected error {other}"),
    }
    assert!(
        err.to_string()
            .contains(&format!("answered more than {limit} bytes for 2 inputs")),
        "{err}"
    );
    assert_eq!(s.seen.lock().expect("lock").len(), 1, "not retried");
    // The client hung up after the limit: the server got no further than the limit
    // and what the two sockets' buffers hold, far from the gigabyte it announced.
    thread::sleep(Duration::from_millis(200));
    let sent = written.load(Ordering::Relaxed);
    assert!(sent >= limit, "the server wrote only {sent} bytes");
    assert!(
        sent < limit + (32 << 20),
        "the client read on: {sent} bytes"
    );
}

#[test]
fn a_connection_closed_early_is_retried_then_reported() {
    let s = serve(vec![Reply::CloseEarly]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let err = e.embed(&texts(2)).expect_err("must fail");
    match &err {
        EmbedError::RetriesExhausted { attempts: 3, last } => {
            assert!(matches!(**last, EmbedError::Transport { .. }), "{last}");
        }
        other => panic!("unexpected error {other}"),
    }
    assert!(err.to_string().contains("cannot reach"), "{err}");
    assert_eq!(s.seen.lock().expect("lock").len(), 3);
    assert_no_key(&err);
}

#[test]
fn an_html_page_with_200_is_named_as_such() {
    let s = serve(vec![Reply::Html]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let err = e.embed(&texts(1)).expect_err("must fail");
    assert!(matches!(err, EmbedError::Malformed { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("got text/html"), "{msg}");
    assert!(msg.contains("<!DOCTYPE html>"), "{msg}");
    assert!(msg.contains("is the base URL right?"), "{msg}");
    assert_eq!(s.seen.lock().expect("lock").len(), 1, "not retried");
}

fn chunk(i: usize, text: &str) -> SearchChunk {
    SearchChunk {
        key: format!("a.py:{i}-{i}"),
        id: format!("a.py::f{i}"),
        path: "a.py".into(),
        language: "python".into(),
        kind: "function".into(),
        name: format!("f{i}"),
        qualified_name: format!("a.f{i}"),
        doc: String::new(),
        start_line: i as u32,
        end_line: i as u32,
        text: text.into(),
        header: format!("file: a.py (python)\nfunction: a.f{i}"),
    }
}

#[test]
fn a_failed_run_keeps_what_was_indexed_and_unchanged_chunks_are_not_resent() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The first request succeeds, every later one fails.
    let s = serve(vec![Reply::Vectors { dim: 4 }, Reply::Status(500, "boom")]);
    let e = OpenAiEmbedder::new(config(&s.url)).expect("client");
    let first = vec![chunk(1, "def f1(): pass"), chunk(2, "def f2(): pass")];
    let (vi, st) = embed_chunks(&first, &e, Some(dir.path())).expect("first run");
    assert_eq!((vi.len(), st.embedded, st.cached), (2, 2, 0));
    let (_, st) = embed_chunks(&first, &e, Some(dir.path())).expect("second run");
    assert_eq!(
        (st.embedded, st.cached),
        (0, 2),
        "unchanged chunks are never sent again"
    );
    assert_eq!(s.seen.lock().expect("lock").len(), 1);
    let file = cache_file(dir.path(), &e.cache_slot());
    let before = std::fs::read(&file).expect("cache written");

    let second = vec![chunk(1, "def f1(): pass"), chunk(3, "def f3(): return 3")];
    let err = embed_chunks(&second, &e, Some(dir.path())).expect_err("must fail");
    assert!(
        matches!(err, SearchError::Embed(EmbedError::RetriesExhausted { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("HTTP 500"), "{err}");
    assert_eq!(
        std::fs::read(&file).expect("still there"),
        before,
        "cache untouched"
    );
    let seen = s.seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 4, "1 good request, then 1 try + 2 retries");
    assert_eq!(seen[1].inputs.len(), 1, "only the new chunk was sent");
    // The earlier vectors still serve the earlier chunks.
    let (_, st) = embed_chunks(&first, &e, Some(dir.path())).expect("cached run");
    assert_eq!((st.embedded, st.cached), (0, 2));
}
