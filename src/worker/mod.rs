//! The background worker: it owns all indexing state (DESIGN section 2) and speaks two
//! typed enums, [`IndexCommand`] in and [`IndexEvent`] out, over std `mpsc`.
//!
//! Every run gets a new generation number; every event carries it, so a front end drops
//! answers older than the newest run it has seen (gitui's pattern). Finished runs are
//! published as an immutable [`Arc<Snapshot>`]. The front end never blocks on the worker:
//! it polls with `try_recv` (or waits with a timeout) in its own loop.
//!
//! Room for persistence and watching (issue 5): a cache load would publish a first
//! snapshot before the fresh run ([`IndexEvent::Notice`] carries the cache state), and a
//! watcher sends [`IndexCommand::FilesChanged`]; until incremental updates exist the worker
//! answers it with a full re-index. Commands that arrive during a run are coalesced and
//! served after it, since the engine cannot cancel a run half way.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::index::{self, Index, IndexOptions, Progress, UnresolvedReason};

/// A request to the worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexCommand {
    /// Index the whole repository again.
    Reindex,
    /// These repo-relative paths changed on disk (from a watcher). Served with a full
    /// re-index until incremental updates exist.
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
    /// Unresolved references that are not `external`, counted by callee name: the calls
    /// that might be missing callers of any definition with that name.
    pub unresolved_by_name: HashMap<String, u32>,
    /// How long the run took.
    pub elapsed: Duration,
}

impl Snapshot {
    /// Wraps an index, computing the derived lookups.
    pub fn new(generation: u64, index: Index, elapsed: Duration) -> Snapshot {
        let mut unresolved_by_name: HashMap<String, u32> = HashMap::new();
        for u in index.graph.all_unresolved() {
            if u.reason != UnresolvedReason::External {
                *unresolved_by_name.entry(u.name.clone()).or_insert(0) += 1;
            }
        }
        Snapshot {
            generation,
            index,
            unresolved_by_name,
            elapsed,
        }
    }

    /// The repository root (absolute), when the index came from a directory.
    pub fn root(&self) -> Option<&Path> {
        self.index.root.as_deref()
    }
}

/// Handle of the running worker thread. Dropping it asks the thread to stop and waits.
pub struct Worker {
    commands: Sender<IndexCommand>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the worker thread on `root` and queues a first run at once. Events go to
    /// `sink` (a closure, so the front end can forward them into its own event enum and
    /// wake its loop).
    ///
    /// Errors: the OS refused to start a thread.
    pub fn spawn(
        root: PathBuf,
        options: IndexOptions,
        sink: impl Fn(IndexEvent) + Send + 'static,
    ) -> std::io::Result<Worker> {
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("codegraph-worker".into())
            .spawn(move || run(root, options, rx, sink))?;
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
    ) -> std::io::Result<(Worker, Receiver<IndexEvent>)> {
        let (tx, rx) = mpsc::channel();
        let w = Worker::spawn(root, options, move |e| {
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

/// The worker loop: wait for a command, coalesce what queued up, run, repeat.
fn run(
    root: PathBuf,
    options: IndexOptions,
    commands: Receiver<IndexCommand>,
    sink: impl Fn(IndexEvent),
) {
    let mut generation = 0u64;
    let mut rerun = false;
    loop {
        if !rerun {
            match commands.recv() {
                Ok(IndexCommand::Shutdown) | Err(_) => return,
                Ok(_) => {}
            }
        }
        while let Ok(more) = commands.try_recv() {
            if more == IndexCommand::Shutdown {
                return;
            }
        }
        generation += 1;
        match index_once(&root, &options, generation, &commands, &sink) {
            RunEnd::Shutdown => return,
            RunEnd::Done { rerun: r } => rerun = r,
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
    },
}

/// One full run with progress events every 100 ms. A shutdown that arrives meanwhile
/// drops the run's result.
fn index_once(
    root: &Path,
    options: &IndexOptions,
    generation: u64,
    commands: &Receiver<IndexCommand>,
    sink: &impl Fn(IndexEvent),
) -> RunEnd {
    let progress = Arc::new(Progress::default());
    let mut opts = options.clone();
    opts.progress = Some(progress.clone());
    let started = Instant::now();
    let (done_tx, done_rx) = mpsc::channel();
    let root_owned = root.to_path_buf();
    let spawned = std::thread::Builder::new()
        .name("codegraph-index".into())
        .spawn(move || {
            let _ = done_tx.send(index::index_repo(&root_owned, &opts));
        });
    if let Err(e) = spawned {
        sink(IndexEvent::Failed {
            generation,
            message: format!("cannot start the indexing thread: {e}"),
        });
        return RunEnd::Done { rerun: false };
    }
    tracing::info!(generation, root = %root.display(), "indexing started");
    let mut rerun = false;
    let result = loop {
        let total = progress.total.load(Ordering::Relaxed);
        let done = progress.done.load(Ordering::Relaxed);
        let phase = match (total, done) {
            (0, _) => Phase::Walking,
            (t, d) if d < t => Phase::Parsing,
            _ => Phase::Resolving,
        };
        sink(IndexEvent::Progress {
            generation,
            phase,
            done,
            total,
        });
        match done_rx.recv_timeout(Duration::from_millis(100)) {
            Ok(r) => break Some(r),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break None,
        }
        // Commands that arrive now are served by one more run afterwards (any command
        // but a shutdown means "index again").
        while let Ok(c) = commands.try_recv() {
            if c == IndexCommand::Shutdown {
                return RunEnd::Shutdown;
            }
            rerun = true;
        }
    };
    match result {
        Some(Ok(idx)) => {
            let elapsed = started.elapsed();
            tracing::info!(
                generation,
                files = idx.files.len(),
                ms = elapsed.as_millis() as u64,
                "indexing done"
            );
            let total = idx.stats.files_seen;
            sink(IndexEvent::Progress {
                generation,
                phase: Phase::Idle,
                done: total,
                total,
            });
            sink(IndexEvent::Ready {
                generation,
                snapshot: Arc::new(Snapshot::new(generation, idx, elapsed)),
            });
            sink(IndexEvent::Notice {
                generation,
                message: "cache: in memory (no on-disk index yet)".into(),
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
    RunEnd::Done { rerun }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python")
    }

    #[test]
    fn publishes_progress_then_a_snapshot_with_one_generation() {
        let (w, rx) = Worker::with_channel(fixture(), IndexOptions::default()).unwrap();
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
        w.send(IndexCommand::Reindex);
        let next = loop {
            if let IndexEvent::Ready { generation, .. } =
                rx.recv_timeout(Duration::from_secs(30)).unwrap()
            {
                break generation;
            }
        };
        assert_eq!(next, 2);
    }

    #[test]
    fn a_missing_root_fails_without_panicking() {
        let (_w, rx) =
            Worker::with_channel(PathBuf::from("/nonexistent/cg"), IndexOptions::default())
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
