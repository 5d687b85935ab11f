//! The background worker: it owns all indexing state (`docs/ARCHITECTURE.md`, "`src/worker/`") and speaks two
//! typed enums, [`IndexCommand`] in and [`IndexEvent`] out, over std `mpsc`.
//!
//! Every run gets a new generation number; every event carries it, so a front end drops
//! answers older than the newest run it has seen (gitui's pattern). Finished runs are
//! published as an immutable [`Arc<Snapshot>`]. The front end never blocks on the worker:
//! it polls with `try_recv` (or waits with a timeout) in its own loop.
//!
//! Persistence and watching (`docs/contracts.md#cache-layout`): with a cache folder the worker first
//! publishes the cached snapshot (generation 1, with an [`IndexEvent::Notice`] saying so,
//! or saying once why the cache was rebuilt), then reconciles it with the disk and
//! publishes again only if something changed. The [`watch`] module sends
//! [`IndexCommand::FilesChanged`] batches; each is served by a reconciliation. Commands
//! that arrive during a run are coalesced and served by one run after it, since the
//! engine cannot cancel a run half way.
//!
//! This file holds the protocol types, the [`Worker`] handle and the worker loop; one
//! run is in `job`, the published [`Snapshot`] in `snapshot`.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::index::session::{Session, SAVE_QUIET};
use crate::index::{self, IndexOptions};

mod job;
mod snapshot;
pub mod watch;

use job::{Job, RunEnd};
pub use snapshot::Snapshot;

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
        // fetch.sh Rust tree about 0.23 s from start against about 1 s for all of it,
        // `docs/benchmarks.md#tui-start`); the full snapshot of the same graph follows in
        // the same generation.
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
                let dir = s.writable_dir().map(std::path::Path::to_path_buf);
                let cache = s.dir().map(std::path::Path::to_path_buf);
                let saved = s.snapshot();
                facts.map(|idx| {
                    let full = graph
                        .with_facts(idx, started.elapsed())
                        .searching_in(dir.as_deref(), cache.as_deref());
                    full.mark_saved(saved);
                    full
                })
            }
            None => {
                let snap = s.load(&root, &options).map(|idx| {
                    generation += 1;
                    Snapshot::new(generation, idx, started.elapsed())
                });
                snap.map(|n| {
                    let n = n.searching_in(s.writable_dir(), s.dir());
                    n.mark_saved(s.snapshot());
                    n
                })
            }
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
                snap.mark_saved(s.snapshot());
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

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
