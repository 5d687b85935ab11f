//! The server's resident state: the worker that owns the index (the same one the TUI runs,
//! with the cache and the watcher), the newest snapshot it published with the time it
//! arrived, the progress of the run under way, what its notices said about the cache and
//! the watcher, and the search index of a snapshot, kept for the process's life.
//!
//! Every tool call reads the newest published `Arc<Snapshot>` from one cell under a short
//! lock and answers from it without holding the lock, so answers never wait for a run and
//! a run never waits for an answer (`docs/ARCHITECTURE.md`, "`src/mcp/`").

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use crate::index::search::embed::openai::OpenAiConfig;
use crate::index::search::{ChunkSearcher, Mode, SavedSearch, Searcher};
use crate::index::IndexOptions;
use crate::worker::{IndexEvent, Phase, Setup, Snapshot, Worker};

/// A snapshot as the server serves it: the worker's [`Snapshot`] and when it was
/// published here.
#[derive(Debug, Clone)]
pub struct Served {
    /// The snapshot.
    pub snapshot: Arc<Snapshot>,
    /// When the worker published it (wall clock).
    pub indexed_at: SystemTime,
}

/// The run under way, as its last progress event said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Running {
    /// The run's generation.
    pub generation: u64,
    /// Its phase.
    pub phase: Phase,
    /// Files processed.
    pub done: u64,
    /// Files the walk found (0 while walking).
    pub total: u64,
}

/// What the worker said that is not a snapshot: the run under way, the last notice and
/// failure, whether the cache is read-only and whether watching works.
#[derive(Debug, Default)]
struct Status {
    /// The newest snapshot, `None` until the first run (or the cache) published one.
    served: Option<Served>,
    /// The newest snapshot with its facts (a cached graph is first served alone,
    /// `Snapshot::graph_only`; search and signatures need the facts).
    full: Option<Served>,
    /// The run under way; `None` when the worker is idle.
    running: Option<Running>,
    /// The last notice (cache state, what the last run did).
    notice: Option<String>,
    /// The last failure of a run as a whole.
    failed: Option<String>,
    /// Another instance holds the cache's lock: this one reads the cache and keeps its
    /// updates in memory.
    read_only: bool,
    /// Why the watcher could not start; `None` while it runs (or was not asked for).
    watch_error: Option<String>,
}

/// A built search index and the snapshot it was built from.
#[derive(Clone)]
pub struct BuiltSearch {
    /// The snapshot searched.
    pub served: Served,
    /// The index.
    pub searcher: Arc<ChunkSearcher>,
    /// Whether it holds vectors (semantic and hybrid modes), not only the text index.
    pub vectors: bool,
    /// How long the build took; [`Duration::MAX`] for saved indexes opened from the
    /// cache, whose build time is unknown (a rebuild for a newer snapshot then runs in
    /// the background while they answer).
    pub took: Duration,
}

/// A search index older than the newest snapshot whose build took at most this long is
/// rebuilt before the search answers (the answer is of the newest snapshot); a slower
/// one is rebuilt in the background while the old one answers, marked stale. 1 s keeps
/// a search on a tree of some thousand files current (0.36 s on the python corpus tree)
/// and never makes an agent wait a minute (the fetch.sh Rust tree).
const SYNC_REBUILD: Duration = Duration::from_secs(1);

#[derive(Default)]
struct SearchCell {
    built: Option<BuiltSearch>,
    /// A background rebuild is under way.
    building: bool,
}

/// Everything the tool handlers share.
pub struct Resident {
    /// The repository root (canonical).
    pub root: PathBuf,
    /// Whether the worker was asked to watch the repository.
    pub watching: bool,
    /// The cache folder, `None` in memory (`--no-cache`).
    pub cache_dir: Option<PathBuf>,
    status: Mutex<Status>,
    search: Mutex<SearchCell>,
    /// Serializes search index builds, so concurrent calls build once.
    build: Mutex<()>,
    /// The OpenAI-compatible embeddings endpoint, when configured.
    embedding: Option<OpenAiConfig>,
    worker: Mutex<Option<Worker>>,
}

/// Locks `m`, taking the value of a poisoned lock (a panicking handler leaves no half
/// update: every update is one assignment).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Resident {
    /// Starts the worker on `root` (cached snapshot first, then a reconciliation, then the
    /// watcher with `setup.watch`). Returns at once: nothing is read before the worker
    /// thread runs, so the protocol handshake never waits for an index.
    ///
    /// Errors: the OS refused to start the worker thread.
    pub fn start(
        root: PathBuf,
        options: IndexOptions,
        setup: Setup,
        embedding: Option<OpenAiConfig>,
    ) -> std::io::Result<Arc<Resident>> {
        let resident = Arc::new(Resident {
            root: root.clone(),
            watching: setup.watch,
            cache_dir: setup.cache_dir.clone(),
            status: Mutex::default(),
            search: Mutex::default(),
            build: Mutex::new(()),
            embedding,
            worker: Mutex::new(None),
        });
        // The sink holds the state weakly: the state owns the worker, whose drop joins the
        // thread that calls the sink.
        let weak = Arc::downgrade(&resident);
        let worker = Worker::start(root, options, setup, move |event| {
            if let Some(r) = weak.upgrade() {
                r.on_event(event);
            }
        })?;
        *lock(&resident.worker) = Some(worker);
        Ok(resident)
    }

    /// Stops the worker: the run under way ends, an unsaved snapshot is saved (each save
    /// is atomic), and the threads are joined.
    pub fn shutdown(&self) {
        let worker = lock(&self.worker).take();
        drop(worker);
    }

    fn on_event(self: &Arc<Self>, event: IndexEvent) {
        let mut s = lock(&self.status);
        match event {
            IndexEvent::Progress {
                generation,
                phase,
                done,
                total,
            } => {
                s.running = (phase != Phase::Idle).then_some(Running {
                    generation,
                    phase,
                    done,
                    total,
                });
            }
            IndexEvent::Ready {
                generation,
                snapshot,
            } => {
                tracing::info!(
                    generation,
                    graph_only = snapshot.graph_only,
                    "mcp: snapshot"
                );
                let served = Served {
                    snapshot,
                    indexed_at: SystemTime::now(),
                };
                if s.running.is_some_and(|r| r.generation <= generation) {
                    s.running = None;
                }
                s.failed = None;
                let full = !served.snapshot.graph_only;
                s.served = Some(served.clone());
                if full {
                    // The search index follows at the next search, not here: on the
                    // fetch.sh Rust tree a rebuild takes about a minute of CPU, which after
                    // every edit would compete with the next update for an agent that
                    // edits more often than it searches.
                    s.full = Some(served);
                }
            }
            IndexEvent::Failed {
                generation,
                message,
            } => {
                if s.running.is_some_and(|r| r.generation <= generation) {
                    s.running = None;
                }
                s.failed = Some(message);
            }
            IndexEvent::Notice {
                generation,
                message,
            } => {
                // The worker says "read-only" in every notice of an instance whose cache
                // another holds, and ends the watcher's failure with the way to reconcile
                // by hand (`src/worker/mod.rs`).
                if message.contains("read-only") {
                    s.read_only = true;
                }
                if self.watching && message.contains("reconcile with the disk") {
                    let why = message.split("; press r").next().unwrap_or(&message);
                    s.watch_error = Some(why.to_string());
                } else {
                    s.notice = Some(message);
                }
                if s.running.is_some_and(|r| r.generation <= generation) {
                    s.running = None;
                }
            }
        }
    }

    /// The newest snapshot, `None` before the first.
    pub fn served(&self) -> Option<Served> {
        lock(&self.status).served.clone()
    }

    /// The newest snapshot with its facts, `None` before the first.
    pub fn full(&self) -> Option<Served> {
        lock(&self.status).full.clone()
    }

    /// The run under way, `None` when idle.
    pub fn running(&self) -> Option<Running> {
        lock(&self.status).running
    }

    /// The last notice, failure, read-only state and watcher error.
    pub fn notes(&self) -> Notes {
        let s = lock(&self.status);
        Notes {
            notice: s.notice.clone(),
            failed: s.failed.clone(),
            read_only: s.read_only,
            watch_error: s.watch_error.clone(),
        }
    }

    /// The search index for `mode`: of the newest snapshot with facts when built; else,
    /// when one of an older snapshot exists, rebuilt now if its build took at most
    /// [`SYNC_REBUILD`], or that older one while a rebuild runs in the background (the
    /// answer says which snapshot it searched); else built now (the first search pays).
    ///
    /// Errors: no snapshot with facts yet (`Ok(None)`), or the build failed.
    pub fn searcher(self: &Arc<Self>, mode: Mode) -> Result<Option<BuiltSearch>, String> {
        let vectors = mode != Mode::Text;
        let Some(newest) = self.full() else {
            return Ok(None);
        };
        let usable = |b: &BuiltSearch| b.vectors || !vectors;
        let ready = lock(&self.search).built.clone().filter(usable);
        if let Some(b) = ready {
            if b.served.snapshot.generation == newest.snapshot.generation {
                return Ok(Some(b));
            }
            if b.took > SYNC_REBUILD {
                self.refresh_search();
                return Ok(Some(b));
            }
            let _one = lock(&self.build);
            let current = lock(&self.search).built.clone().filter(|c| {
                usable(c) && c.served.snapshot.generation == newest.snapshot.generation
            });
            let fresh = match current {
                Some(c) => c,
                None => {
                    let c = self.build_for(&newest, b.vectors)?;
                    lock(&self.search).built = Some(c.clone());
                    c
                }
            };
            return Ok(Some(fresh));
        }
        let built = {
            let _one = lock(&self.build);
            // Built by another call while this one waited? (Bound first: a lock taken in
            // the `match` scrutinee would be held through the arms, which lock it again.)
            let waited = lock(&self.search).built.clone().filter(usable);
            match waited {
                Some(b) => b,
                None => {
                    let b = self.build_for(&newest, vectors)?;
                    lock(&self.search).built = Some(b.clone());
                    b
                }
            }
        };
        // A snapshot published during the build is searched from the next call on.
        self.refresh_search();
        Ok(Some(built))
    }

    fn build_for(&self, served: &Served, vectors: bool) -> Result<BuiltSearch, String> {
        let t = Instant::now();
        let mode = if vectors { Mode::Hybrid } else { Mode::Text };
        // The writer keeps the text index and the embedder's fit in the cache folder, as
        // `search` does, so a restart reuses them; a read-only instance keeps them in
        // memory (only the lock holder writes the cache).
        let dir = if self.notes().read_only {
            None
        } else {
            self.cache_dir.clone()
        };
        // The snapshot as saved, with search indexes saved for it (by `index`, a TUI or
        // an earlier server): read-only instances may read them too.
        let saved = self
            .cache_dir
            .as_deref()
            .zip(served.snapshot.saved_as())
            .and_then(|(d, s)| SavedSearch::open(d, s, mode, self.embedding.clone()));
        if let Some(s) = saved {
            tracing::info!(
                generation = served.snapshot.generation,
                chunks = s.len(),
                vectors,
                ms = t.elapsed().as_millis() as u64,
                "mcp: search index opened from the cache"
            );
            return Ok(BuiltSearch {
                served: served.clone(),
                searcher: Arc::new(ChunkSearcher::Saved(s)),
                vectors,
                took: Duration::MAX,
            });
        }
        let searcher = Searcher::build_for(
            &served.snapshot.index,
            served.snapshot.saved_as(),
            mode,
            dir.as_deref(),
            None,
            self.embedding.clone(),
            None,
        )
        .map_err(|e| format!("building the search index failed: {e}"))?;
        tracing::info!(
            generation = served.snapshot.generation,
            chunks = searcher.stats.chunks,
            vectors,
            ms = t.elapsed().as_millis() as u64,
            "mcp: search index built"
        );
        Ok(BuiltSearch {
            served: served.clone(),
            searcher: Arc::new(ChunkSearcher::Built(searcher)),
            vectors,
            took: t.elapsed(),
        })
    }

    /// At a search: rebuild the search index in the background if one was built and is
    /// older than the newest snapshot with facts, until it is of the newest. One rebuild
    /// at a time.
    fn refresh_search(self: &Arc<Self>) {
        {
            let mut cell = lock(&self.search);
            if cell.built.is_none() || cell.building {
                return;
            }
            cell.building = true;
        }
        let me = self.clone();
        let spawned = std::thread::Builder::new()
            .name("codegraph-mcp-search".into())
            .spawn(move || loop {
                // Decided and, when there is nothing to do, ended under the cell's lock: a
                // snapshot published meanwhile finds `building` false and starts a new
                // rebuild (its `Ready` updates the snapshot before it takes this lock).
                let target = {
                    let mut cell = lock(&me.search);
                    let newest = me.full();
                    match (&cell.built, newest) {
                        (Some(b), Some(n))
                            if b.served.snapshot.generation != n.snapshot.generation =>
                        {
                            Some((n, b.vectors))
                        }
                        _ => {
                            cell.building = false;
                            None
                        }
                    }
                };
                let Some((newest, vectors)) = target else {
                    break;
                };
                let _one = lock(&me.build);
                match me.build_for(&newest, vectors) {
                    Ok(b) => lock(&me.search).built = Some(b),
                    Err(e) => {
                        tracing::warn!("mcp: {e}");
                        lock(&me.search).building = false;
                        break;
                    }
                }
            });
        if spawned.is_err() {
            lock(&self.search).building = false;
        }
    }

    /// The repository root as given to the worker.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// What [`Resident::notes`] returns.
#[derive(Debug, Clone, Default)]
pub struct Notes {
    /// The last notice of the worker.
    pub notice: Option<String>,
    /// The last failure of a run.
    pub failed: Option<String>,
    /// The cache is read-only here (another instance writes it).
    pub read_only: bool,
    /// Why the watcher could not start.
    pub watch_error: Option<String>,
}

/// `t` as an RFC 3339 UTC timestamp with milliseconds (`2026-01-31T09:05:00.250Z`).
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// The proleptic Gregorian date of `days` since 1970-01-01: eras of 400 years (146 097
/// days) starting on March 1st, so the leap day is the last of a year.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let at = |s: u64, ms: u64| {
            rfc3339(SystemTime::UNIX_EPOCH + Duration::from_secs(s) + Duration::from_millis(ms))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day of a century divisible by 400), 12:34:56.789.
        assert_eq!(at(951_827_696, 789), "2000-02-29T12:34:56.789Z");
        // 2024-12-31T23:59:59Z.
        assert_eq!(at(1_735_689_599, 0), "2024-12-31T23:59:59.000Z");
        assert_eq!(at(1_735_689_600, 0), "2025-01-01T00:00:00.000Z");
    }
}
