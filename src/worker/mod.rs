//! The background worker: it owns all indexing state (DESIGN section 2) and speaks two
//! typed enums, [`IndexCommand`] in and [`IndexEvent`] out, over std `mpsc`.
//!
//! Every run gets a new generation number; every event carries it, so a front end drops
//! answers older than the newest run it has seen (gitui's pattern). Finished runs are
//! published as an immutable [`Arc<Snapshot>`]. The front end never blocks on the worker:
//! it polls with `try_recv` (or waits with a timeout) in its own loop.
//!
//! Persistence and watching (DESIGN section 7): with a cache folder the worker first
//! publishes the cached snapshot (generation 1, with an [`IndexEvent::Notice`] saying so,
//! or saying once why the cache was rebuilt), then reconciles it with the disk and
//! publishes again only if something changed. The [`watch`] module sends
//! [`IndexCommand::FilesChanged`] batches; each is served by a reconciliation. Commands
//! that arrive during a run are coalesced and served by one run after it, since the
//! engine cannot cancel a run half way.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use std::sync::Mutex;

use crate::index::incremental::Changes;
use crate::index::session::{Session, SAVE_QUIET};
use crate::index::{self, Index, IndexOptions, Progress, UnresolvedReason};

pub mod watch;

/// A request to the worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexCommand {
    /// Reconcile with the disk (a full index when there is no snapshot yet).
    Reindex,
    /// These repo-relative paths changed on disk (from the watcher). Served with a
    /// reconciliation, which re-reads only files whose stamp changed.
    FilesChanged(Vec<String>),
    /// Stop the worker after the current run.
    Shutdown,
}

/// What phase a run is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Walking the directory tree (the file count is not known yet).
    Walking,
    /// Reading, parsing and extracting files.
    Parsing,
    /// Resolving calls over all facts and building the graph.
    Resolving,
    /// Nothing running; the last snapshot is current.
    Idle,
}

impl Phase {
    /// A short lowercase label for the status bar.
    pub fn label(self) -> &'static str {
        match self {
            Phase::Walking => "walking",
            Phase::Parsing => "parsing",
            Phase::Resolving => "resolving",
            Phase::Idle => "ready",
        }
    }
}

/// A notification from the worker. `generation` numbers runs from 1, in order.
#[derive(Debug, Clone)]
pub enum IndexEvent {
    /// A run started or advanced. `done`/`total` count files (`total` is 0 while walking).
    Progress {
        /// Run number.
        generation: u64,
        /// Current phase.
        phase: Phase,
        /// Files processed.
        done: u64,
        /// Files found by the walk.
        total: u64,
    },
    /// A run finished; this snapshot replaces every older one.
    Ready {
        /// Run number.
        generation: u64,
        /// The finished index.
        snapshot: Arc<Snapshot>,
    },
    /// A run failed as a whole (the root vanished, threads could not start).
    Failed {
        /// Run number.
        generation: u64,
        /// Human-readable reason (not yet sanitized).
        message: String,
    },
    /// Something the user should know that is not an error (cache state, fallbacks).
    Notice {
        /// Run number it concerns.
        generation: u64,
        /// The text.
        message: String,
    },
}

impl IndexEvent {
    /// The run number the event belongs to.
    pub fn generation(&self) -> u64 {
        match self {
            IndexEvent::Progress { generation, .. }
            | IndexEvent::Ready { generation, .. }
            | IndexEvent::Failed { generation, .. }
            | IndexEvent::Notice { generation, .. } => *generation,
        }
    }
}

/// An immutable, finished index plus lookups the UI needs often, computed once on the
/// worker thread so the UI never scans the whole graph on a keystroke.
#[derive(Debug)]
pub struct Snapshot {
    /// The run that produced it.
    pub generation: u64,
    /// The engine's answer.
    pub index: Index,
    /// Unresolved references that are not `external`, counted by callee name (see
    /// [`unresolved_by_name`](Snapshot::unresolved_by_name)); counted when the snapshot is
    /// made, or for a cached graph served alone by the worker right after serving it.
    unresolved_by_name: Arc<OnceLock<HashMap<Arc<str>, u32>>>,
    /// How long the run took.
    pub elapsed: Duration,
    /// The index's graph alone (a cached one, served before its facts are decoded):
    /// `index.files` is empty and a full snapshot of the same graph follows in the same
    /// generation. What needs the facts (text search, the "changed on disk" mark) waits
    /// for it.
    pub graph_only: bool,
}

impl Snapshot {
    /// Wraps an index, computing the derived lookups.
    pub fn new(generation: u64, index: Index, elapsed: Duration) -> Snapshot {
        let snap = Snapshot::graph_alone(generation, index, elapsed);
        snap.unresolved_by_name();
        Snapshot {
            graph_only: false,
            ..snap
        }
    }

    /// A cached graph served alone ([`graph_only`](Snapshot::graph_only)), its derived
    /// lookups left for the worker to make after serving it (they read every unresolved
    /// call, which a cache load decodes on first use).
    fn graph_alone(generation: u64, index: Index, elapsed: Duration) -> Snapshot {
        Snapshot {
            generation,
            index,
            unresolved_by_name: Arc::default(),
            elapsed,
            graph_only: true,
        }
    }

    /// Unresolved references that are not `external`, counted by callee name: the calls
    /// that might be missing callers of any definition with that name. Counted on first
    /// use if they were not yet (only a graph served alone leaves them to then).
    pub fn unresolved_by_name(&self) -> &HashMap<Arc<str>, u32> {
        self.unresolved_by_name.get_or_init(|| {
            let mut by_name: HashMap<Arc<str>, u32> = HashMap::new();
            for u in self.index.graph.all_unresolved() {
                if u.reason != UnresolvedReason::External {
                    *by_name.entry(u.name.clone()).or_insert(0) += 1;
                }
            }
            by_name
        })
    }

    /// The full snapshot of which `self` is the graph alone ([`graph_only`]): `index` is
    /// the same graph with its facts, so the derived lookups are shared, not made again.
    ///
    /// [`graph_only`]: Snapshot::graph_only
    pub fn with_facts(&self, index: Index, elapsed: Duration) -> Snapshot {
        Snapshot {
            generation: self.generation,
            index,
            unresolved_by_name: self.unresolved_by_name.clone(),
            elapsed,
            graph_only: false,
        }
    }

    /// The repository root (absolute), when the index came from a directory.
    pub fn root(&self) -> Option<&Path> {
        self.index.root.as_deref()
    }
}

/// What a worker does besides indexing: cache and watching.
#[derive(Debug, Clone, Default)]
pub struct Setup {
    /// The repository's cache folder (`config::cache_dir`); `None` keeps everything in
    /// memory (`--no-cache`).
    pub cache_dir: Option<PathBuf>,
    /// Watch the repository and reconcile on every change.
    pub watch: bool,
}

/// Handle of the running worker thread. Dropping it asks the thread to stop and waits.
pub struct Worker {
    commands: Sender<IndexCommand>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the worker thread on `root` without cache or watcher and queues a first run
    /// at once. Events go to `sink` (a closure, so the front end can forward them into its
    /// own event enum and wake its loop).
    ///
    /// Errors: the OS refused to start a thread.
    pub fn spawn(
        root: PathBuf,
        options: IndexOptions,
        sink: impl Fn(IndexEvent) + Send + 'static,
    ) -> std::io::Result<Worker> {
        Worker::start(root, options, Setup::default(), sink)
    }

    /// Starts the worker thread: it loads the cached snapshot (published at once as the
    /// first generation), reconciles it with the disk (the next generation, published only
    /// when something changed), then, with `setup.watch`, follows the watcher's batches.
    ///
    /// Errors: the OS refused to start a thread.
    pub fn start(
        root: PathBuf,
        options: IndexOptions,
        setup: Setup,
        sink: impl Fn(IndexEvent) + Send + 'static,
    ) -> std::io::Result<Worker> {
        let (tx, rx) = mpsc::channel();
        let watch_tx = tx.clone();
        let thread = std::thread::Builder::new()
            .name("codegraph-worker".into())
            .spawn(move || run(root, options, setup, watch_tx, rx, sink))?;
        tx.send(IndexCommand::Reindex).ok();
        Ok(Worker {
            commands: tx,
            thread: Some(thread),
        })
    }

    /// Queues a command; ignored when the worker has stopped.
    pub fn send(&self, command: IndexCommand) {
        let _ = self.commands.send(command);
    }

    /// A worker whose events go to an `mpsc` channel; convenient for tests and scripts.
    ///
    /// Errors: as [`Worker::spawn`].
    pub fn with_channel(
        root: PathBuf,
        options: IndexOptions,
        setup: Setup,
    ) -> std::io::Result<(Worker, Receiver<IndexEvent>)> {
        let (tx, rx) = mpsc::channel();
        let w = Worker::start(root, options, setup, move |e| {
            let _ = tx.send(e);
        })?;
        Ok((w, rx))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.commands.send(IndexCommand::Shutdown);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The worker loop: serve the cache, then wait for a command, coalesce what queued up,
/// reconcile, repeat.
fn run(
    root: PathBuf,
    options: IndexOptions,
    setup: Setup,
    self_tx: Sender<IndexCommand>,
    commands: Receiver<IndexCommand>,
    sink: impl Fn(IndexEvent),
) {
    let mut generation = 0u64;
    let session = Session::open(setup.cache_dir.as_deref());
    // Another instance holds the cache's lock: fixed for this worker's life.
    let read_only = session.report.read_only;
    let session = Arc::new(Mutex::new(session));
    let mut current: Option<Arc<Snapshot>> = None;
    {
        let started = Instant::now();
        let mut s = session.lock().unwrap_or_else(|p| p.into_inner());
        // With nothing changed, the graph is shown before the facts are decoded (on the
        // fetch.sh Rust tree about 0.23 s from start against about 1 s for all of it, see
        // README); the full snapshot of the same graph follows in the same generation.
        let loaded = match s.load_graph(&root, &options) {
            Some(first) => {
                generation += 1;
                let graph = Snapshot::graph_alone(generation, first.index(), started.elapsed());
                let graph = Arc::new(graph);
                tracing::info!(
                    generation,
                    ms = started.elapsed().as_millis() as u64,
                    "cached graph served"
                );
                sink(IndexEvent::Ready {
                    generation,
                    snapshot: graph.clone(),
                });
                // What the graph has not decoded yet and what the snapshot derives from it,
                // beside the facts being read: the screen waits for none of it.
                let session: &mut Session = &mut s;
                let ((), facts) = rayon::join(
                    || {
                        graph.index.graph.decode_all();
                        graph.unresolved_by_name();
                        tracing::debug!(
                            ms = started.elapsed().as_millis() as u64,
                            "cached graph decoded"
                        );
                    },
                    || session.load_facts(&first),
                );
                facts.map(|idx| graph.with_facts(idx, started.elapsed()))
            }
            None => s.load(&root, &options).map(|idx| {
                generation += 1;
                Snapshot::new(generation, idx, started.elapsed())
            }),
        };
        if let Some(snap) = loaded {
            let files = snap.index.files.len();
            let snap = Arc::new(snap);
            tracing::info!(
                generation,
                files,
                ms = started.elapsed().as_millis() as u64,
                "cached snapshot served"
            );
            current = Some(snap.clone());
            sink(IndexEvent::Ready {
                generation,
                snapshot: snap,
            });
            let ro = if s.report.read_only {
                "; read-only: another instance holds the lock"
            } else {
                ""
            };
            sink(IndexEvent::Notice {
                generation,
                message: format!(
                    "cache: loaded {files} files in {} ms{ro}; checking for changes",
                    started.elapsed().as_millis()
                ),
            });
        } else if let Some(reason) = &s.report.reason {
            sink(IndexEvent::Notice {
                generation: generation + 1,
                message: format!("cache: {reason}"),
            });
        }
    }
    let _watcher = if setup.watch {
        let tx = self_tx.clone();
        let cache = setup.cache_dir.clone();
        match watch::watch(&root, cache.as_deref(), &options.walk, move |paths| {
            let _ = tx.send(IndexCommand::FilesChanged(paths));
        }) {
            Ok(w) => Some(w),
            Err(e) => {
                sink(IndexEvent::Notice {
                    generation: generation + 1,
                    message: format!("{e}; press r to reconcile with the disk"),
                });
                None
            }
        }
    } else {
        None
    };
    drop(self_tx);
    let mut rerun = false;
    // The next run only checks the whole tree after a run that read the watcher's paths
    // alone: it reports nothing unless something changed.
    let mut quiet = false;
    // The thread of the last finished run, possibly still saving the cache: a shutdown
    // waits for it so the next start finds the newest snapshot.
    let mut saving: Option<JoinHandle<()>> = None;
    let finish_saving = |h: Option<JoinHandle<()>>| {
        if let Some(h) = h {
            let _ = h.join();
        }
    };
    // An update's snapshot, published and not saved yet: saved once no command has come for
    // `SAVE_QUIET`, so a save (0.6 s on the Rust tree of the fetch.sh corpus) never delays
    // the next update, and a burst of edits is saved once.
    let mut unsaved: Option<Arc<Snapshot>> = None;
    let save_later = |snap: Arc<Snapshot>, previous: Option<JoinHandle<()>>| {
        finish_saving(previous);
        let session = session.clone();
        let options = options.clone();
        std::thread::Builder::new()
            .name("codegraph-save".into())
            .spawn(move || {
                let mut s = session.lock().unwrap_or_else(|p| p.into_inner());
                s.save(&snap.index, &options);
                drop(snap);
                index::release_free_memory();
            })
            .ok()
    };
    // Paths the watcher reported since the last run: hashed even if their stamp is the same.
    let mut reported = std::collections::BTreeSet::new();
    loop {
        if !rerun {
            let command = match &unsaved {
                Some(_) => match commands.recv_timeout(SAVE_QUIET) {
                    Ok(c) => Some(c),
                    Err(RecvTimeoutError::Timeout) => {
                        saving = unsaved
                            .take()
                            .and_then(|snap| save_later(snap, saving.take()));
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => None,
                },
                None => commands.recv().ok(),
            };
            match command {
                Some(IndexCommand::Shutdown) | None => {
                    let last = unsaved
                        .take()
                        .and_then(|snap| save_later(snap, saving.take()));
                    return finish_saving(last.or(saving));
                }
                Some(IndexCommand::FilesChanged(p)) => reported.extend(p),
                Some(IndexCommand::Reindex) => {}
            }
        }
        while let Ok(more) = commands.try_recv() {
            match more {
                IndexCommand::Shutdown => {
                    let last = unsaved
                        .take()
                        .and_then(|snap| save_later(snap, saving.take()));
                    return finish_saving(last.or(saving));
                }
                IndexCommand::FilesChanged(p) => reported.extend(p),
                IndexCommand::Reindex => {}
            }
            quiet = false;
        }
        generation += 1;
        let job = Job {
            root: &root,
            options: &options,
            session: &session,
            prev: current.clone(),
            read_only,
            quiet: quiet && reported.is_empty(),
            recheck: std::mem::take(&mut reported),
        };
        match job.run(generation, &commands, &sink) {
            RunEnd::Shutdown => return,
            RunEnd::Done {
                rerun: r,
                follow_up,
                snapshot,
                save_deferred,
                thread,
                reported: more,
            } => {
                reported = more;
                finish_saving(saving.take());
                saving = thread;
                rerun = r || follow_up;
                quiet = follow_up && !r;
                if snapshot.is_some() {
                    // A newer snapshot supersedes an unsaved one.
                    unsaved = if save_deferred {
                        snapshot.clone()
                    } else {
                        None
                    };
                    current = snapshot;
                }
            }
        }
    }
}

/// How a run ended.
enum RunEnd {
    /// A shutdown arrived during the run.
    Shutdown,
    /// The run finished; `rerun` when other commands arrived meanwhile.
    Done {
        /// Run again at once.
        rerun: bool,
        /// The run read only the paths the watcher reported: check the whole tree next
        /// ([`Changes::reported_only`]).
        follow_up: bool,
        /// The new snapshot, when the run published one.
        snapshot: Option<Arc<Snapshot>>,
        /// The snapshot is for the worker loop to save (an update), not saved by the run.
        save_deferred: bool,
        /// The run's thread (it may still be saving the cache).
        thread: Option<JoinHandle<()>>,
        /// Paths the watcher reported during the run, for the next run.
        reported: std::collections::BTreeSet<String>,
    },
}

/// One reconciliation (or, without a previous snapshot, a full index).
struct Job<'a> {
    root: &'a Path,
    options: &'a IndexOptions,
    session: &'a Arc<Mutex<Session>>,
    prev: Option<Arc<Snapshot>>,
    /// The cache is read-only (another instance holds its lock).
    read_only: bool,
    /// Paths the watcher reported ([`IndexOptions::recheck`]).
    recheck: std::collections::BTreeSet<String>,
    /// A follow-up check: no progress and no "up to date" notice unless something changed.
    quiet: bool,
}

type JobResult = Result<Option<(Arc<Snapshot>, Changes)>, index::IndexError>;

impl Job<'_> {
    /// Appended to every status notice while the cache is read-only, so the status bar keeps
    /// saying that changes are not being saved.
    fn read_only_note(&self) -> &'static str {
        if self.read_only {
            "; cache read-only (another instance holds the lock)"
        } else {
            ""
        }
    }

    /// Runs on its own thread with progress events every 100 ms. A shutdown that arrives
    /// meanwhile drops the result.
    fn run(
        self,
        generation: u64,
        commands: &Receiver<IndexCommand>,
        sink: &impl Fn(IndexEvent),
    ) -> RunEnd {
        let progress = Arc::new(Progress::default());
        let mut opts = self.options.clone();
        opts.progress = Some(progress.clone());
        opts.recheck = Some(Arc::new(self.recheck.clone()));
        let started = Instant::now();
        let (done_tx, done_rx) = mpsc::channel::<JobResult>();
        let root_owned = self.root.to_path_buf();
        let session = self.session.clone();
        let prev = self.prev.clone();
        let quiet = self.quiet;
        // An update's snapshot is saved by the worker loop when it is idle; the first
        // index is saved here (its notice says whether the cache was saved).
        let save_deferred = prev.is_some();
        let spawned = std::thread::Builder::new()
            .name("codegraph-index".into())
            .spawn(move || {
                let mut s = session.lock().unwrap_or_else(|p| p.into_inner());
                let r = match prev.as_ref().map(|p| &p.index) {
                    // A follow-up check reconciles only if the walk differs.
                    Some(p) if quiet => s.refresh_after_report(&root_owned, &opts, p),
                    prev_index => s.refresh_unsaved(&root_owned, &opts, prev_index),
                };
                let r = r.map(|o| {
                    o.map(|(idx, ch)| {
                        let snap = Snapshot::new(generation, idx, started.elapsed());
                        (Arc::new(snap), ch)
                    })
                });
                let snap = match &r {
                    Ok(Some((snap, _))) => Some(snap.clone()),
                    _ => None,
                };
                let _ = done_tx.send(r);
                if snap.is_none() {
                    // Nothing changed: the snapshot served stays; make its update tables.
                    if let Some(p) = &prev {
                        p.index.prepare_updates();
                    }
                }
                // The previous snapshot is the UI's to drop now (it switches on `Ready`).
                drop(prev);
                // Published first, saved after (the lock keeps the next run waiting).
                if let Some(snap) = snap {
                    if !save_deferred {
                        s.save(&snap.index, &opts);
                    }
                    // The next update's tables, made while the user reads.
                    snap.index.prepare_updates();
                    // The previous index (unless the UI still holds it) and the save's
                    // buffers are free: hand their pages back to the OS.
                    drop(snap);
                    index::release_free_memory();
                }
            });
        let thread = match spawned {
            Ok(t) => t,
            Err(e) => {
                sink(IndexEvent::Failed {
                    generation,
                    message: format!("cannot start the indexing thread: {e}"),
                });
                return RunEnd::Done {
                    rerun: false,
                    follow_up: false,
                    snapshot: None,
                    save_deferred: false,
                    thread: None,
                    reported: self.recheck,
                };
            }
        };
        tracing::info!(generation, root = %self.root.display(), "reconciling");
        let mut rerun = false;
        let mut reported = std::collections::BTreeSet::new();
        let result = loop {
            let total = progress.total.load(Ordering::Relaxed);
            let done = progress.done.load(Ordering::Relaxed);
            let phase = match (total, done) {
                (0, _) => Phase::Walking,
                (t, d) if d < t => Phase::Parsing,
                _ => Phase::Resolving,
            };
            if !self.quiet {
                sink(IndexEvent::Progress {
                    generation,
                    phase,
                    done,
                    total,
                });
            }
            match done_rx.recv_timeout(Duration::from_millis(100)) {
                Ok(r) => break Some(r),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break None,
            }
            // Commands that arrive now are served by one more run afterwards (any command
            // but a shutdown means "reconcile again").
            while let Ok(c) = commands.try_recv() {
                match c {
                    IndexCommand::Shutdown => return RunEnd::Shutdown,
                    IndexCommand::FilesChanged(p) => reported.extend(p),
                    IndexCommand::Reindex => {}
                }
                rerun = true;
            }
        };
        let idle = |total: u64| {
            sink(IndexEvent::Progress {
                generation,
                phase: Phase::Idle,
                done: total,
                total,
            })
        };
        let mut snapshot = None;
        let mut follow_up = false;
        match result {
            Some(Ok(Some((snap, changes)))) => {
                follow_up = changes.reported_only;
                let elapsed = started.elapsed();
                let ms = elapsed.as_millis() as u64;
                let files = snap.index.files.len();
                if self.prev.is_some() {
                    tracing::info!(
                        generation,
                        files,
                        changed = changes.len(),
                        ms,
                        "index updated"
                    );
                } else {
                    tracing::info!(generation, files, ms, "indexing done");
                }
                idle(snap.index.stats.files_seen);
                snapshot = Some(snap.clone());
                sink(IndexEvent::Ready {
                    generation,
                    snapshot: snap,
                });
                let message = if self.prev.is_some() && changes.is_empty() {
                    // Files read again (new stamps, racily clean ones) whose content and
                    // the walk came out as before: nothing to report as changed.
                    format!(
                        "no source file changed ({} read again, {} ms){}",
                        changes.hashed,
                        elapsed.as_millis(),
                        self.read_only_note()
                    )
                } else if self.prev.is_some() {
                    format!(
                        "updated: +{} ~{} -{} files in {} ms{}",
                        changes.added.len(),
                        changes.modified.len(),
                        changes.removed.len(),
                        elapsed.as_millis(),
                        self.read_only_note()
                    )
                } else {
                    let s = self.session.lock().unwrap_or_else(|p| p.into_inner());
                    match &s.report.dir {
                        None => format!("indexed in {} ms (in memory)", elapsed.as_millis()),
                        Some(_) if s.report.saved => match &s.report.reason {
                            Some(r) => format!("{r}: indexed in {} ms", elapsed.as_millis()),
                            None => format!("indexed in {} ms; cache saved", elapsed.as_millis()),
                        },
                        Some(_) if s.report.read_only => format!(
                            "indexed in {} ms; cache read-only (another instance holds the lock)",
                            elapsed.as_millis()
                        ),
                        Some(_) => format!(
                            "indexed in {} ms; {}",
                            elapsed.as_millis(),
                            s.report.reason.as_deref().unwrap_or("cache not saved")
                        ),
                    }
                };
                sink(IndexEvent::Notice {
                    generation,
                    message,
                });
            }
            Some(Ok(None)) if self.quiet => {}
            Some(Ok(None)) => {
                idle(self.prev.as_ref().map_or(0, |p| p.index.stats.files_seen));
                sink(IndexEvent::Notice {
                    generation,
                    message: format!(
                        "up to date (checked in {} ms){}",
                        started.elapsed().as_millis(),
                        self.read_only_note()
                    ),
                });
            }
            Some(Err(e)) => sink(IndexEvent::Failed {
                generation,
                message: e.to_string(),
            }),
            None => sink(IndexEvent::Failed {
                generation,
                message: "the indexing thread panicked (see the log)".into(),
            }),
        }
        RunEnd::Done {
            rerun,
            follow_up,
            snapshot,
            save_deferred,
            thread: Some(thread),
            reported,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python")
    }

    #[test]
    fn publishes_progress_then_a_snapshot_with_one_generation() {
        let (w, rx) =
            Worker::with_channel(fixture(), IndexOptions::default(), Setup::default()).unwrap();
        let mut saw_progress = false;
        let snap = loop {
            match rx
                .recv_timeout(Duration::from_secs(30))
                .expect("worker answers")
            {
                IndexEvent::Progress { generation, .. } => {
                    assert_eq!(generation, 1);
                    saw_progress = true;
                }
                IndexEvent::Ready {
                    generation,
                    snapshot,
                } => {
                    assert_eq!(generation, 1);
                    break snapshot;
                }
                IndexEvent::Failed { message, .. } => panic!("{message}"),
                IndexEvent::Notice { .. } => {}
            }
        };
        assert!(saw_progress);
        assert!(snap.index.graph.node("app/main.py::build_app").is_some());
        // Nothing changed on disk: the next run reconciles, says so, and publishes no
        // new snapshot.
        w.send(IndexCommand::Reindex);
        let (next, message) = loop {
            match rx.recv_timeout(Duration::from_secs(30)).unwrap() {
                IndexEvent::Notice {
                    generation,
                    message,
                } if generation == 2 => break (generation, message),
                IndexEvent::Ready { .. } => panic!("nothing changed: no new snapshot"),
                _ => {}
            }
        };
        assert_eq!(next, 2);
        assert!(message.starts_with("up to date"), "{message}");
    }

    /// The next notice of `generation`.
    fn notice(rx: &mpsc::Receiver<IndexEvent>, generation: u64) -> String {
        loop {
            match rx.recv_timeout(Duration::from_secs(30)).unwrap() {
                IndexEvent::Notice {
                    generation: g,
                    message,
                } if g == generation => return message,
                IndexEvent::Failed { message, .. } => panic!("{message}"),
                _ => {}
            }
        }
    }

    #[test]
    fn every_notice_of_a_read_only_instance_says_so() {
        let cache = tempfile::tempdir().unwrap();
        let setup = || Setup {
            cache_dir: Some(cache.path().to_path_buf()),
            watch: false,
        };
        let (_first, rx1) =
            Worker::with_channel(fixture(), IndexOptions::default(), setup()).unwrap();
        let first = notice(&rx1, 1);
        assert!(!first.contains("read-only"), "{first}");
        // The first worker keeps the cache's lock: the second reads the cache only.
        let (second, rx2) =
            Worker::with_channel(fixture(), IndexOptions::default(), setup()).unwrap();
        for generation in 1..=2 {
            let m = notice(&rx2, generation);
            assert!(m.contains("read-only"), "generation {generation}: {m}");
            if generation == 1 {
                second.send(IndexCommand::Reindex);
            }
        }
    }

    #[test]
    fn a_missing_root_fails_without_panicking() {
        let (_w, rx) = Worker::with_channel(
            PathBuf::from("/nonexistent/cg"),
            IndexOptions::default(),
            Setup::default(),
        )
        .unwrap();
        let failed = loop {
            match rx.recv_timeout(Duration::from_secs(30)).unwrap() {
                IndexEvent::Failed { message, .. } => break message,
                IndexEvent::Ready { .. } => panic!("no snapshot expected"),
                _ => {}
            }
        };
        assert!(failed.contains("/nonexistent/cg"), "{failed}");
    }
}
