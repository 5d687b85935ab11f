//! The engine: sources in, [`FileFacts`] per file, a resolved [`CodeGraph`] out.
//!
//! Entry points: [`index_repo`] (walk a directory with [`FsSource`]), [`index_inputs`] (all
//! [`RawInput`]s up front) and the streaming [`Indexer`] (`push` inputs as they come, then
//! `finish`). All three parse each file exactly once, on a rayon pool of
//! [`IndexOptions::threads`] threads, keep only facts (trees are dropped after extraction),
//! and give byte-identical canonical output whatever the thread count.

pub mod arena;
mod assemble;
pub mod chunk;
pub mod dead;
pub mod export;
pub mod extract;
pub mod facts;
pub(crate) mod fsutil;
pub mod graph;
pub mod impact;
pub mod incremental;
pub mod lang;
mod lines;
pub mod paths;
pub mod project;
pub mod resolve;
pub mod search;
pub mod session;
pub mod source;
pub mod store;
pub mod symbol;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub use chunk::ChunkOptions;
pub use facts::{FileFacts, Kind};
pub use graph::{
    CodeGraph, Edge, NameOrder, Node, NodeChunk, Relation, Subgraph, Tier, Unresolved,
    UnresolvedReason, Walk,
};
pub use source::{Caps, FileStamp, FsSource, RawInput, SkipReason, WalkOptions};

pub(crate) use assemble::{assemble, finish, finish_with, Extras};

/// Errors of the engine. Per-file problems are never errors: they are counted in
/// [`IndexStats`] and the file is skipped.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The repository root cannot be used.
    #[error("cannot index {path}: {error}")]
    Root {
        /// The root as given.
        path: PathBuf,
        /// The underlying error: in the message, and not also a `source()`, so a report
        /// of the whole chain (`{:#}`) says it once.
        error: std::io::Error,
    },
    /// The worker thread pool could not be created.
    #[error("cannot start {threads} indexing threads: {message}")]
    Threads {
        /// Requested threads.
        threads: usize,
        /// rayon's message.
        message: String,
    },
}

/// Options of one indexing run.
#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    /// Worker threads; 0 means one per core. At most [`MAX_THREADS_PER_CORE`] per core are
    /// started, whatever is asked.
    pub threads: usize,
    /// Size cap and minified-text rule.
    pub caps: Caps,
    /// Chunk sizes.
    pub chunking: ChunkOptions,
    /// Walk options (operator ignore globs).
    pub walk: WalkOptions,
    /// Counters a front end can poll to draw progress.
    pub progress: Option<Arc<Progress>>,
    /// Repo-relative paths a reconciliation reads and hashes even when their size and
    /// mtime match the snapshot's: the paths a watcher reported, since an edit can keep
    /// both (same length, within the file system's timestamp granularity, or `touch -r`).
    /// Not part of the options fingerprint.
    pub recheck: Option<Arc<std::collections::BTreeSet<String>>>,
}

/// Progress of a run: files to read and files done. Updated with relaxed atomics; a
/// reader sees monotone values.
#[derive(Debug, Default)]
pub struct Progress {
    /// Files found by the walk (0 until the walk ends).
    pub total: AtomicU64,
    /// Files processed so far.
    pub done: AtomicU64,
}

/// Counts of one run (`index --json`, `docs/contracts.md#index`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct IndexStats {
    /// Non-directory entries the walk yielded (0 for inputs given directly).
    pub files_seen: u64,
    /// Files parsed with a grammar (definitions, calls and imports extracted).
    pub files_indexed: u64,
    /// Files with line-window chunks only (no grammar, or minified).
    pub files_windowed: u64,
    /// Paths excluded by ignore rules (an ignored directory counts once).
    pub paths_ignored: u64,
    /// NUL in the first 8 KiB, or not UTF-8.
    pub files_skipped_binary: u64,
    /// Over the byte cap.
    pub files_skipped_too_large: u64,
    /// Unknown extension.
    pub files_skipped_unsupported: u64,
    /// I/O error while reading, or the parser gave up.
    pub files_skipped_unreadable: u64,
    /// Symbolic links (never followed).
    pub files_skipped_symlink: u64,
    /// FIFOs, sockets and devices (never opened).
    pub files_skipped_special: u64,
    /// Parsed files whose tree had syntax errors (their facts are still used).
    pub files_with_parse_errors: u64,
    /// Lines in indexed and windowed files.
    pub lines: u64,
    /// Bytes of indexed and windowed files.
    pub bytes: u64,
    /// Definitions (graph nodes other than files).
    pub definitions: u64,
    /// Search chunks.
    pub chunks: u64,
    /// Call sites found.
    pub call_sites: u64,
    /// Names used as values (possible callbacks) found.
    pub references: u64,
    /// Import bindings found.
    pub imports: u64,
    /// Edges by relation name.
    pub edges: BTreeMap<String, u64>,
    /// Unresolved references by reason.
    pub unresolved: BTreeMap<String, u64>,
    /// Files indexed or windowed, by language.
    pub languages: BTreeMap<String, u64>,
    /// Wall time by phase (`walk`, `parse`, `resolve`, `total`), milliseconds.
    pub elapsed_ms: BTreeMap<String, u64>,
}

impl IndexStats {
    fn count_skip(&mut self, reason: SkipReason) {
        match reason {
            SkipReason::Binary => self.files_skipped_binary += 1,
            SkipReason::TooLarge => self.files_skipped_too_large += 1,
            SkipReason::Unsupported => self.files_skipped_unsupported += 1,
            SkipReason::Unreadable => self.files_skipped_unreadable += 1,
            SkipReason::Symlink => self.files_skipped_symlink += 1,
            SkipReason::Special => self.files_skipped_special += 1,
        }
    }
}

/// A finished index: per-file facts (sorted by path), the graph and the counts.
#[derive(Debug, Clone)]
pub struct Index {
    /// Canonical root for filesystem runs.
    pub root: Option<PathBuf>,
    /// Facts of every indexed or windowed file, sorted by path.
    pub files: Vec<Arc<FileFacts>>,
    /// The resolved graph.
    pub graph: Arc<CodeGraph>,
    /// Counts.
    pub stats: IndexStats,
    /// Skipped paths with their reasons, sorted by path.
    pub skipped: Vec<(String, SkipReason)>,
    /// Size and mtime of every file that was read or stat'ed for reading (indexed,
    /// windowed, binary, too large), by path: what [`incremental::reconcile`] compares.
    /// Empty for inputs not read from a directory.
    pub stamps: BTreeMap<String, FileStamp>,
    /// When reading started, nanoseconds since the Unix epoch: a file whose mtime is
    /// within [`incremental::RACY_NS`] of it is hashed again on the next reconciliation
    /// (git's "racily clean" rule), since a write in the same clock tick keeps its mtime.
    pub stamped_at_ns: i64,
    /// The incremental resolver's tables for `files`, once an update or
    /// [`Index::prepare_updates`] has made them (not cached on disk).
    pub(crate) tables: std::sync::OnceLock<Arc<resolve::Tables>>,
}

impl Index {
    /// Makes what incremental updates reuse (the resolver's [`resolve::Tables`], about
    /// 0.4 s and 40 MB on the 1.16M definitions of the fetch.sh Rust tree), if not made
    /// yet, so the first update after a start does not pay for it. Watchers call it while
    /// idle; it is never needed for answers.
    pub fn prepare_updates(&self) {
        let t = Instant::now();
        let mut made = false;
        self.tables.get_or_init(|| {
            made = true;
            let enclosing = self
                .root
                .as_deref()
                .map(project::Enclosing::of_root)
                .unwrap_or_default();
            Arc::new(resolve::Tables::build(&self.files, &enclosing))
        });
        if made {
            tracing::debug!(ms = t.elapsed().as_millis() as u64, "resolver tables made");
        }
    }
}

/// The outcome of processing one input.
pub(crate) enum Outcome {
    Facts(Arc<FileFacts>),
    Skipped(String, SkipReason),
}

/// Sniffs, parses and extracts one input. Never panics on bad input; every failure is a
/// [`SkipReason`].
pub(crate) fn process(input: &RawInput, o: &IndexOptions) -> Outcome {
    let spec = match input.language.as_deref() {
        Some(name) => lang::by_name(name),
        None => lang::for_path(&input.path),
    };
    let Some(spec) = spec else {
        tracing::debug!(path = %input.path, "skipped: unsupported");
        return Outcome::Skipped(input.path.clone(), SkipReason::Unsupported);
    };
    let prepared = match source::prepare(&input.path, &input.bytes, &o.caps) {
        Ok(p) => p,
        Err(r) => {
            tracing::debug!(path = %input.path, reason = ?r, "skipped");
            return Outcome::Skipped(input.path.clone(), r);
        }
    };
    // A `.h` header is C or C++ by its content (C++ projects often use `.h` too).
    let spec = match input.language.as_deref() {
        None => lang::refine_by_content(spec, &input.path, prepared.text),
        Some(_) => spec,
    };
    let hash = blake3::hash(&input.bytes).to_hex().to_string();
    let bytes = input.bytes.len() as u64;
    if spec.grammar.is_none() || prepared.minified {
        let f = extract::windowed_facts(&input.path, spec, prepared.text, hash, bytes, &o.chunking);
        return Outcome::Facts(Arc::new(f));
    }
    match extract::extract(&input.path, spec, prepared.text, hash, bytes, &o.chunking) {
        Ok(f) => Outcome::Facts(Arc::new(f)),
        Err(e) => {
            tracing::warn!(path = %input.path, "extraction failed: {e}");
            Outcome::Skipped(input.path.clone(), SkipReason::Unreadable)
        }
    }
}

thread_local! {
    /// This thread's buffer for file bytes, handed from one read to the next.
    static READ_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Reads walked file `e` (as [`FsSource::read_stamped`]) into this thread's reused buffer
/// and gives the input, or why it was not read, to `f`. Reading each file into fresh
/// memory costs a page fault per 4 KiB and cold caches: on the Python tree 12% of an
/// index's CPU samples are then in the read (`perf`, `_copy_to_iter`), against 9% for the
/// bare parse, which frees each buffer before the next read.
pub(crate) fn with_read<T>(
    src: &FsSource,
    e: &source::FsEntry,
    max_bytes: u64,
    f: impl FnOnce(Result<&RawInput, SkipReason>) -> T,
) -> (Option<source::FileStamp>, T) {
    let buf = READ_BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
    match src.read_stamped_into(e, max_bytes, buf) {
        (stamp, Ok(input)) => {
            let out = f(Ok(&input));
            READ_BUFFER.with(|b| *b.borrow_mut() = input.bytes);
            (stamp, out)
        }
        (stamp, Err(r)) => (stamp, f(Err(r))),
    }
}

pub(crate) fn pool(threads: usize) -> Result<rayon::ThreadPool, IndexError> {
    let threads = capped_threads(threads);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("codegraph-index-{i}"))
        .build()
        .map_err(|e| IndexError::Threads {
            threads,
            message: e.to_string(),
        })
}

/// The worker threads used for a request of `threads` (0 = one per core, left to rayon
/// and `ignore`): at most [`MAX_THREADS_PER_CORE`] per core. The work is CPU-bound, so
/// more only cost stacks and start-up (100 000 requested took minutes to index 4 files).
pub(crate) fn capped_threads(threads: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let max = MAX_THREADS_PER_CORE * cores;
    if threads > max {
        tracing::debug!(requested = threads, used = max, "thread count capped");
        max
    } else {
        threads
    }
}

/// See `capped_threads`.
pub const MAX_THREADS_PER_CORE: usize = 4;

/// Nanoseconds since the Unix epoch now (0 if the clock is before it).
pub(crate) fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// Indexes inputs given up front, in parallel.
///
/// Errors: only [`IndexError::Threads`]; bad inputs are counted, never fatal.
pub fn index_inputs(inputs: Vec<RawInput>, options: &IndexOptions) -> Result<Index, IndexError> {
    let started = Instant::now();
    let pool = pool(options.threads)?;
    let outcomes: Vec<Outcome> =
        pool.install(|| inputs.par_iter().map(|i| process(i, options)).collect());
    let mut stats = IndexStats::default();
    stats
        .elapsed_ms
        .insert("parse".into(), started.elapsed().as_millis() as u64);
    Ok(finish(
        &pool,
        None,
        outcomes,
        stats,
        Extras::default(),
        started,
    ))
}

/// The source of `root` walked as `options` say (their threads included).
///
/// Errors: [`IndexError::Root`] when `root` is not a readable directory.
pub(crate) fn fs_source(root: &Path, options: &IndexOptions) -> Result<FsSource, IndexError> {
    FsSource::new(
        root,
        WalkOptions {
            threads: options.threads,
            ..options.walk.clone()
        },
    )
}

/// The walk and the thread pool shared by [`index_repo`] and [`parse_only`], so the
/// benchmark baseline walks exactly as indexing does.
pub(crate) fn walk_with_pool(
    root: &Path,
    options: &IndexOptions,
) -> Result<(FsSource, rayon::ThreadPool, source::WalkResult), IndexError> {
    let src = fs_source(root, options)?;
    let pool = pool(options.threads)?;
    let walked = src.walk();
    Ok((src, pool, walked))
}

/// The start of a run over a directory, shared by [`index_repo`] and
/// [`incremental::reconcile`]: the walk, the pool, the walk's counts and the progress total.
#[allow(clippy::type_complexity)]
pub(crate) fn begin_run(
    root: &Path,
    options: &IndexOptions,
) -> Result<
    (
        Instant,
        FsSource,
        rayon::ThreadPool,
        source::WalkResult,
        IndexStats,
    ),
    IndexError,
> {
    let started = Instant::now();
    let (src, pool, walked) = walk_with_pool(root, options)?;
    let mut stats = IndexStats {
        files_seen: walked.files_seen,
        paths_ignored: walked.paths_ignored,
        ..IndexStats::default()
    };
    stats
        .elapsed_ms
        .insert("walk".into(), started.elapsed().as_millis() as u64);
    if let Some(p) = &options.progress {
        p.total.store(walked.files.len() as u64, Ordering::Relaxed);
    }
    Ok((started, src, pool, walked, stats))
}

/// Walks `root` with [`FsSource`] and indexes every supported file, reading and parsing in
/// parallel.
///
/// Errors: [`IndexError::Root`] when `root` is not a readable directory;
/// [`IndexError::Threads`] when the pool cannot start.
pub fn index_repo(root: &Path, options: &IndexOptions) -> Result<Index, IndexError> {
    let (started, src, pool, walked, mut stats) = begin_run(root, options)?;
    let t = Instant::now();
    let stamped_at_ns = now_ns();
    let read: Vec<(Outcome, Option<FileStamp>)> = pool.install(|| {
        walked
            .files
            .par_iter()
            .map(|e| {
                let (stamp, out) =
                    with_read(&src, e, options.caps.max_file_bytes, |input| match input {
                        Ok(input) => process(input, options),
                        Err(r) => Outcome::Skipped(e.path.clone(), r),
                    });
                if let Some(p) = &options.progress {
                    p.done.fetch_add(1, Ordering::Relaxed);
                }
                (out, stamp)
            })
            .collect()
    });
    stats
        .elapsed_ms
        .insert("parse".into(), t.elapsed().as_millis() as u64);
    let mut stamps = BTreeMap::new();
    let mut outcomes = Vec::with_capacity(read.len());
    for (e, (out, stamp)) in walked.files.iter().zip(read) {
        if let Some(s) = stamp {
            stamps.insert(e.path.clone(), s);
        }
        outcomes.push(out);
    }
    Ok(finish(
        &pool,
        Some(src.root().to_path_buf()),
        outcomes,
        stats,
        Extras {
            skipped: walked.skipped,
            stamps,
            stamped_at_ns,
            prev: None,
        },
        started,
    ))
}

/// Parses every supported file under `root` with the same walk, reads and threads as
/// [`index_repo`] but no extraction: the baseline of the "index time / bare parse time"
/// benchmark. Returns (files parsed, bytes parsed).
///
/// Errors: as [`index_repo`].
pub fn parse_only(root: &Path, options: &IndexOptions) -> Result<(u64, u64), IndexError> {
    let (src, pool, walked) = walk_with_pool(root, options)?;
    let counts: Vec<(u64, u64)> = pool.install(|| {
        walked
            .files
            .par_iter()
            .map(|e| {
                with_read(&src, e, options.caps.max_file_bytes, |input| {
                    parse_only_input(input, options)
                })
                .1
            })
            .collect()
    });
    Ok(counts
        .into_iter()
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)))
}

/// [`parse_only`] of one read file: (1, its bytes) if it was parsed, else (0, 0).
fn parse_only_input(input: Result<&RawInput, SkipReason>, options: &IndexOptions) -> (u64, u64) {
    let Ok(input) = input else {
        return (0, 0);
    };
    // The language `process` gives the file: a `#!` script's is in `input.language`.
    let spec = match input.language.as_deref() {
        Some(name) => lang::by_name(name),
        None => lang::for_path(&input.path),
    };
    let Some(spec) = spec else {
        return (0, 0);
    };
    let Ok(p) = source::prepare(&input.path, &input.bytes, &options.caps) else {
        return (0, 0);
    };
    let spec = lang::refine_by_content(spec, &input.path, p.text);
    if spec.grammar.is_none() || p.minified {
        return (0, 0);
    }
    match extract::parse_only(spec, p.text) {
        true => (1, input.bytes.len() as u64),
        false => (0, 0),
    }
}

/// Streaming indexer: [`push`](Indexer::push) inputs as they arrive (each is processed at
/// once on the pool), then [`finish`](Indexer::finish) to resolve.
pub struct Indexer {
    options: Arc<IndexOptions>,
    pool: rayon::ThreadPool,
    tx: mpsc::Sender<Outcome>,
    rx: mpsc::Receiver<Outcome>,
    started: Instant,
}

impl Indexer {
    /// A new indexer with its own pool.
    ///
    /// Errors: [`IndexError::Threads`].
    pub fn new(options: IndexOptions) -> Result<Indexer, IndexError> {
        let (tx, rx) = mpsc::channel();
        Ok(Indexer {
            pool: pool(options.threads)?,
            options: Arc::new(options),
            tx,
            rx,
            started: Instant::now(),
        })
    }

    /// Queues one input; it is sniffed, parsed and extracted on the pool.
    pub fn push(&self, input: RawInput) {
        let tx = self.tx.clone();
        let o = self.options.clone();
        self.pool.spawn(move || {
            let _ = tx.send(process(&input, &o));
        });
    }

    /// Waits for every pushed input, then resolves and returns the index.
    pub fn finish(self) -> Index {
        let Indexer {
            tx,
            rx,
            started,
            pool,
            ..
        } = self;
        drop(tx);
        let outcomes: Vec<Outcome> = rx.iter().collect();
        let mut stats = IndexStats::default();
        stats
            .elapsed_ms
            .insert("parse".into(), started.elapsed().as_millis() as u64);
        finish(&pool, None, outcomes, stats, Extras::default(), started)
    }
}

/// Hands the allocator's free memory back to the OS: glibc's `malloc_trim(0)` (Linux with
/// glibc; nothing elsewhere), which returns every free page of every arena, not only the
/// top of the main heap as `free` does on its own.
///
/// Why: a long-running process (`index --watch`, the TUI) builds each new index on the
/// pool's threads while the previous one is alive, then frees the previous one. glibc keeps
/// what those threads freed in their arenas, and the next index lands in other pages, so
/// without the trim the resident size grows by about a third of the index per edit (npm
/// tree: 88 MB after the start, 331 MB after 8 edits; `bench/watch_rss.py`) while the live
/// heap stays the same. Call it after an old index is dropped; on a large heap it takes a
/// few milliseconds to tens of milliseconds, so not on a path someone waits on. A full
/// index also calls it once between resolution and the graph build (in `finish`), where it
/// lowers the peak of a 1.2M-definition corpus by 145 MiB for 15-56 ms.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> std::os::raw::c_int;
        }
        let t = Instant::now();
        // SAFETY: `malloc_trim` takes no pointer and only walks glibc's own arenas, each
        // under its lock; it is safe to call from any thread at any time.
        let released = unsafe { malloc_trim(0) };
        tracing::debug!(
            released,
            ms = t.elapsed().as_millis() as u64,
            rss_mib = ?rss_mib(),
            "free memory handed back to the OS"
        );
    }
}

/// Resident set size of this process and its peak so far, in MiB (`VmRSS` and `VmHWM` of
/// `/proc/self/status`, Linux; 0 elsewhere), for debug logs of where memory goes by phase.
pub(crate) fn rss_mib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map_or(0, |kib| kib / 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
