//! Entry points of the coverage-guided fuzz targets (`fuzz/`, see `fuzz/README.md`) and of
//! the regression tests that replay their findings (`tests/fuzz_regressions.rs`): each
//! takes the raw bytes of one input and runs them through the library as a hostile file,
//! cache or setting would be run, panicking only where the library itself would. They
//! live in the library, not in `fuzz/`, so that `cargo test` replays a finding through
//! exactly the code the fuzzer ran. Hidden from the docs: not an API.
//!
//! Inputs choose what they exercise by their first byte (modulo the number of choices),
//! so one target covers a family (every language, every snapshot part) and the engine's
//! coverage feedback keeps each choice's own paths apart. `snapshot` holds the cache
//! harness, whose template snapshot is built once per process.

mod mcp;
mod snapshot;
mod stores;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::index::extract::{extract as extract_facts, extract_with_query_cursor};
use crate::index::lang::{self, LANGUAGES};
use crate::index::search::Query;
use crate::index::source::prepare;
use crate::index::{index_inputs, IndexOptions, RawInput};

pub use self::mcp::{mcp, mcp_seeds};
pub use self::snapshot::{snapshot, snapshot_seeds};
pub use self::stores::{search_files, search_files_seeds, text_index, text_index_seeds};

/// The repo-relative paths the extraction target picks from: every file name and
/// extension of every language in [`LANGUAGES`], then the project files
/// `crate::index::project` reads, so every grammar, every windowed language and every
/// project-file parser gets inputs.
pub fn extraction_paths() -> &'static [String] {
    static PATHS: OnceLock<Vec<String>> = OnceLock::new();
    PATHS.get_or_init(|| {
        let mut paths = Vec::new();
        for spec in LANGUAGES {
            paths.extend(spec.file_names.iter().map(|n| format!("src/{n}")));
            paths.extend(spec.extensions.iter().map(|e| format!("src/f.{e}")));
        }
        for project in ["Cargo.toml", "package.json", "tsconfig.json", "go.mod"] {
            paths.push(project.to_string());
        }
        paths.dedup();
        paths
    })
}

/// Extraction of one file: `data[0]` picks the path in [`extraction_paths`] (so the
/// language), the rest is the file's bytes. The file goes through [`index_inputs`] (the
/// checks of `source::prepare`, the language's grammar, the pattern matcher with the C
/// child walker, chunking, resolution); a file that is parsed is also extracted with
/// tree-sitter's query cursor, and the two engines must give the same facts.
pub fn extract(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let paths = extraction_paths();
    let path = &paths[pick as usize % paths.len()];
    let options = IndexOptions {
        threads: 1,
        ..IndexOptions::default()
    };
    let input = RawInput {
        path: path.clone(),
        bytes: body.to_vec(),
        language: None,
    };
    let index = index_inputs(vec![input], &options).expect("a one-thread pool starts");
    let _ = index.graph.to_canonical_json();
    let Ok(prepared) = prepare(path, body, &options.caps) else {
        return;
    };
    let Some(spec) = lang::for_path(path) else {
        return;
    };
    let spec = lang::refine_by_content(spec, path, prepared.text);
    if prepared.minified || spec.grammar.is_none() {
        return;
    }
    let text = prepared.text;
    let hash = String::new();
    let bytes = body.len() as u64;
    let chunking = &options.chunking;
    let matcher = extract_facts(path, spec, text, hash.clone(), bytes, chunking);
    let cursor = extract_with_query_cursor(path, spec, text, hash, bytes, chunking);
    match (matcher, cursor) {
        (Ok(a), Ok(b)) => assert!(a == b, "the matcher and the query cursor disagree"),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("one engine failed: {:?} / {:?}", a.err(), b.err()),
    }
}

/// The search query parser and the text search it drives: the input (lossy UTF-8) is
/// parsed, its filters applied, and searched in an in-memory text index of the template
/// repository.
pub fn query(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let q = Query::parse(&text);
    let _ = (q.text(), q.ranking_words(), q.is_empty());
    let _ = q.accepts("src/app.py", "python", "function");
    let _ = stores::memory_text_index().search(&q, 20);
}

/// A config file: parsed as `config.toml` is, turned into engine options, its ignore
/// globs compiled and matched, and a small file indexed with its chunking options (one
/// thread whatever it says: the thread count is not the input under test).
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(cfg) = toml::from_str::<crate::config::Config>(text) else {
        return;
    };
    let mut options = cfg.index_options();
    options.threads = 1;
    let _scratch = scratch_lock();
    let dir = work_dir("config");
    if let Ok(src) = crate::index::FsSource::new(&dir, options.walk.clone()) {
        let m = src.path_matcher();
        let _ = m.matched_path_or_any_parents(dir.join("src/a.rs"), false);
    }
    let input = RawInput {
        path: "src/a.py".into(),
        bytes: snapshot::FIXTURE[0].1.as_bytes().to_vec(),
        language: None,
    };
    let _ = index_inputs(vec![input], &options);
}

/// A user theme: written as `themes/<name>.toml` in a config folder and loaded over the
/// built-in theme `data[0]` picks (so merged with it), then every style looked up.
pub fn theme(data: &[u8]) {
    use crate::tui::theme::{Theme, BUILTIN};
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let name = BUILTIN[pick as usize % BUILTIN.len()].0;
    let _scratch = scratch_lock();
    let dir = work_dir("theme");
    let themes = dir.join("themes");
    let _ = std::fs::create_dir_all(&themes);
    if std::fs::write(themes.join(format!("{name}.toml")), body).is_err() {
        return;
    }
    if let Ok(t) = Theme::load(name, Some(&dir)) {
        for key in [
            "title",
            "selected",
            "border",
            "status",
            "kind.function",
            "missing",
        ] {
            let _ = (t.get(key), t.lookup(key));
        }
    }
}

/// The parsers of text settings and queries in one target: `data[0]` picks [`query`],
/// [`config`] or [`theme`] (which gets the rest, its own first byte included).
pub fn parsers(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    match pick % 3 {
        0 => query(body),
        1 => config(body),
        _ => theme(body),
    }
}

/// Held while an entry point uses its scratch folder: the regression tests call the
/// entry points from parallel test threads of one process, which would otherwise write
/// over each other's copies. Poison is ignored: a finding's panic must not fail the next.
pub(crate) fn scratch_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// A scratch folder of this process for target `what`, created once; folders of earlier
/// processes that are gone (a fuzzer restarts its target every few thousand inputs) are
/// removed first. Under `/dev/shm` when there is one, so the per-input writes stay in RAM.
pub(crate) fn work_dir(what: &str) -> PathBuf {
    static DIRS: std::sync::Mutex<Vec<(String, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let mut dirs = DIRS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, d)) = dirs.iter().find(|(w, _)| w == what) {
        return d.clone();
    }
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let prefix = format!("codegraph-fuzz-{what}-");
    if let Ok(rd) = std::fs::read_dir(&base) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let gone = name
                .strip_prefix(&prefix)
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
            if gone {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let dir = base.join(format!("{prefix}{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder for the fuzz harness");
    let dir = dir.canonicalize().unwrap_or(dir);
    dirs.push((what.to_string(), dir.clone()));
    dir
}
