//! One run of the worker: a reconciliation with the disk (or, without a previous
//! snapshot, a full index) on its own thread, with progress events every 100 ms, the
//! commands that arrive meanwhile collected for the next run, and the notice that says
//! what the run did. Its own module because the worker loop only decides when to run and
//! what to do with the result.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{IndexCommand, IndexEvent, Phase, Snapshot};
use crate::index::incremental::Changes;
use crate::index::session::Session;
use crate::index::{self, IndexOptions, Progress};

/// How a run ended.
pub(super) enum RunEnd {
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
        reported: BTreeSet<String>,
    },
}

/// One reconciliation (or, without a previous snapshot, a full index).
pub(super) struct Job<'a> {
    pub(super) root: &'a Path,
    pub(super) options: &'a IndexOptions,
    pub(super) session: &'a Arc<Mutex<Session>>,
    pub(super) prev: Option<Arc<Snapshot>>,
    /// The cache is read-only (another instance holds its lock).
    pub(super) read_only: bool,
    /// Paths the watcher reported ([`IndexOptions::recheck`]).
    pub(super) recheck: BTreeSet<String>,
    /// A follow-up check: no progress and no "up to date" notice unless something changed.
    pub(super) quiet: bool,
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
    pub(super) fn run(
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
                let dir = s.writable_dir().map(std::path::Path::to_path_buf);
                let cache = s.dir().map(std::path::Path::to_path_buf);
                let r = r.map(|o| {
                    o.map(|(idx, ch)| {
                        let snap = Snapshot::new(generation, idx, started.elapsed())
                            .searching_in(dir.as_deref(), cache.as_deref());
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
                        snap.mark_saved(s.snapshot());
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
        let mut reported = BTreeSet::new();
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
