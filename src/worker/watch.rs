//! Watching a repository for changes: a `notify` watcher whose events are filtered by the
//! repository's ignore rules, gathered into bursts by [`Burst`] and handed on as
//! repo-relative paths.
//!
//! A burst ends after a quiet time that depends on what is still in flight: [`SETTLE`]
//! (50 ms) once every file written in it has been closed (inotify's `IN_CLOSE_WRITE`: the
//! writer is done), [`DEBOUNCE`] (200 ms) while one is still open or where the platform
//! does not report closes; a burst that never goes quiet is handed on after [`MAX_WAIT`].
//! So a saved file is served 50 ms after the save instead of 200 ms, and editors' save
//! patterns (write a temporary file then rename it over the original; delete then
//! create) and bursts such as `git checkout` (files written back to back, well under
//! 50 ms apart) still arrive as one batch; the consumer coalesces batches that arrive while
//! it is busy. Temporary and hidden files, ignored paths and the cache folder (which may
//! sit inside the root when the root is a home folder) never trigger an update, nor
//! delay one.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use ignore::gitignore::Gitignore;
use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind, RenameMode};
use notify::{EventKind, RecursiveMode, Watcher};

use crate::index::source::{FsSource, WalkOptions};

/// Quiet time that ends a burst while a file written in it is still open (or on a
/// platform that does not report closes): long enough that an editor's save of several
/// writes, or a `git checkout`, makes one update, short enough that the update still
/// follows the save within a fraction of a second.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// Quiet time that ends a burst once every file written in it has been closed.
pub const SETTLE: Duration = Duration::from_millis(50);

/// Longest a change waits for its burst to go quiet (a file rewritten without pause).
pub const MAX_WAIT: Duration = Duration::from_secs(2);

/// Why a repository cannot be watched (the caller falls back to reconciling on demand).
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The root cannot be used.
    #[error("cannot watch {0}: not a readable directory")]
    Root(PathBuf),
    /// The OS refused (inotify watch limit, unsupported or network filesystem).
    #[error("cannot watch {path}: {message}")]
    Notify {
        /// The root.
        path: PathBuf,
        /// notify's message (for the inotify limit it names `max_user_watches`).
        message: String,
    },
}

/// A running watcher; dropping it stops watching (and, soon after, its burst thread).
pub struct RepoWatcher {
    _watcher: notify::RecommendedWatcher,
}

/// `true` for the events that can change what the index holds. inotify also reports
/// opening and closing (`IN_OPEN`, `IN_CLOSE_NOWRITE`) of files and folders, and each
/// reconciliation opens every folder of the repository, so a watcher that passed them on
/// would wake itself about ten times a second for ever. Closing a
/// file that was written stays: it ends an in-place save.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// The relevant paths of one burst of events and what is still being written.
#[derive(Debug, Default)]
pub struct Burst {
    /// Repo-relative paths seen in the burst.
    paths: BTreeSet<String>,
    /// Paths created or written and not closed (nor removed or moved away) since.
    open: HashSet<String>,
    /// When the burst's first and last events arrived.
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Burst {
    /// Records an event of `kind` on the repo-relative path `rel`, arrived at `now`.
    pub fn add(&mut self, kind: &EventKind, rel: String, now: Instant) {
        match kind {
            EventKind::Create(CreateKind::File | CreateKind::Any)
            | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any) => {
                self.open.insert(rel.clone());
            }
            EventKind::Access(AccessKind::Close(AccessMode::Write))
            | EventKind::Remove(_)
            | EventKind::Modify(ModifyKind::Name(RenameMode::From)) => {
                self.open.remove(&rel);
            }
            _ => {}
        }
        self.paths.insert(rel);
        self.first.get_or_insert(now);
        self.last = Some(now);
    }

    /// When the burst should be handed on if nothing else arrives: `SETTLE` after the last
    /// event when nothing is open, else `DEBOUNCE`, and never later than `MAX_WAIT` after
    /// the first. `None` when the burst is empty.
    pub fn deadline(&self) -> Option<Instant> {
        let (first, last) = (self.first?, self.last?);
        let quiet = if self.open.is_empty() {
            SETTLE
        } else {
            DEBOUNCE
        };
        Some((last + quiet).min(first + MAX_WAIT))
    }

    /// The burst's paths (sorted, unique); the burst starts over empty.
    pub fn take(&mut self) -> Vec<String> {
        let paths = std::mem::take(&mut self.paths).into_iter().collect();
        *self = Burst::default();
        paths
    }
}

impl std::fmt::Debug for RepoWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RepoWatcher")
    }
}

/// The filter that decides which event paths matter.
struct Filter {
    root: PathBuf,
    cache_dir: Option<PathBuf>,
    matcher: Gitignore,
}

impl Filter {
    /// The repo-relative path (`/`-separated) of an event that may change the index.
    fn relevant(&self, abs: &Path) -> Option<String> {
        if let Some(c) = &self.cache_dir {
            if abs.starts_with(c) {
                return None;
            }
        }
        let rel = abs.strip_prefix(&self.root).ok()?;
        if rel.as_os_str().is_empty() {
            // The root itself: a rescan request (the event queue overflowed).
            return Some(".".into());
        }
        let mut parts = Vec::new();
        for c in rel.components() {
            let s = c.as_os_str().to_str()?;
            parts.push(s);
        }
        let name = *parts.last()?;
        let ignore_file = name == ".gitignore" || name == ".ignore";
        // Hidden paths are skipped by the walk; so are editors' backup and swap files.
        if !ignore_file && (parts.iter().any(|p| p.starts_with('.')) || name.ends_with('~')) {
            return None;
        }
        let meta = std::fs::symlink_metadata(abs).ok();
        let is_dir = meta.as_ref().is_some_and(|m| m.is_dir());
        if self
            .matcher
            .matched_path_or_any_parents(rel, is_dir)
            .is_ignore()
        {
            return None;
        }
        let rel = parts.join("/");
        let known = crate::index::lang::for_path(&rel).is_some()
            || crate::index::source::script_language(&rel, abs).is_some();
        let relevant = match meta {
            _ if ignore_file => true,
            Some(m) if m.is_dir() => true,
            Some(_) => known,
            // Gone: a source file, or a folder whose files the index may hold (folders
            // are named anything: `attrs-23.2.0`, `v1.2`). A gone file of another type
            // costs one reconciliation that finds nothing.
            None => true,
        };
        relevant.then_some(rel)
    }
}

/// Starts watching `root` (recursively). `on_change` gets each burst of relevant
/// repo-relative paths (sorted, unique, never empty; see [`Burst`]), on the watcher's burst
/// thread.
///
/// Errors: [`WatchError`] when the OS refuses (the message says why; for the inotify
/// limit, raise `fs.inotify.max_user_watches`), or the burst thread cannot start.
pub fn watch(
    root: &Path,
    cache_dir: Option<&Path>,
    walk: &WalkOptions,
    on_change: impl Fn(Vec<String>) + Send + 'static,
) -> Result<RepoWatcher, WatchError> {
    let src =
        FsSource::new(root, walk.clone()).map_err(|_| WatchError::Root(root.to_path_buf()))?;
    let filter = Filter {
        root: src.root().to_path_buf(),
        cache_dir: cache_dir.map(|c| c.canonicalize().unwrap_or_else(|_| c.to_path_buf())),
        matcher: src.path_matcher(),
    };
    let notify_err = |e: notify::Error| WatchError::Notify {
        path: root.to_path_buf(),
        message: e.to_string(),
    };
    let (tx, rx) = mpsc::channel::<notify::Event>();
    let mut watcher = notify::RecommendedWatcher::new(
        move |e: notify::Result<notify::Event>| match e {
            Ok(ev) if is_change(&ev.kind) || ev.need_rescan() => {
                let _ = tx.send(ev);
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("watch error: {e}"),
        },
        notify::Config::default(),
    )
    .map_err(notify_err)?;
    std::thread::Builder::new()
        .name("codegraph-watch".into())
        .spawn(move || {
            let mut burst = Burst::default();
            loop {
                // Checked before receiving, so a flood of events cannot hold a burst back
                // past its deadline.
                if burst.deadline().is_some_and(|d| Instant::now() >= d) {
                    let paths = burst.take();
                    tracing::debug!(n = paths.len(), "watch: changed paths");
                    on_change(paths);
                }
                let got = match burst.deadline() {
                    None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
                };
                match got {
                    Ok(ev) => {
                        let now = Instant::now();
                        if ev.need_rescan() {
                            burst.add(&EventKind::Any, ".".into(), now);
                        }
                        for p in &ev.paths {
                            if let Some(rel) = filter.relevant(p) {
                                burst.add(&ev.kind, rel, now);
                            }
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    // The watcher was dropped.
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
        })
        .map_err(|e| WatchError::Notify {
            path: root.to_path_buf(),
            message: format!("cannot start the watch thread: {e}"),
        })?;
    watcher
        .watch(src.root(), RecursiveMode::Recursive)
        .map_err(notify_err)?;
    tracing::info!(root = %src.root().display(), "watching");
    Ok(RepoWatcher { _watcher: watcher })
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{DataChange, RemoveKind};

    const WRITE: EventKind = EventKind::Modify(ModifyKind::Data(DataChange::Any));
    const CLOSE: EventKind = EventKind::Access(AccessKind::Close(AccessMode::Write));

    #[test]
    fn a_closed_write_settles_sooner_than_an_open_one() {
        let t0 = Instant::now();
        let mut b = Burst::default();
        assert_eq!(b.deadline(), None);
        b.add(&WRITE, "a.py".into(), t0);
        // Still being written: the full debounce.
        assert_eq!(b.deadline(), Some(t0 + DEBOUNCE));
        let t1 = t0 + Duration::from_millis(5);
        b.add(&CLOSE, "a.py".into(), t1);
        assert_eq!(b.deadline(), Some(t1 + SETTLE));
        // Another file of the burst opened and not closed yet: wait again.
        let t2 = t1 + Duration::from_millis(5);
        b.add(&EventKind::Create(CreateKind::File), "b.py".into(), t2);
        assert_eq!(b.deadline(), Some(t2 + DEBOUNCE));
        // Removed before being closed: nothing is open any more.
        b.add(&EventKind::Remove(RemoveKind::File), "b.py".into(), t2);
        assert_eq!(b.deadline(), Some(t2 + SETTLE));
        assert_eq!(b.take(), vec!["a.py".to_string(), "b.py".to_string()]);
        assert_eq!(b.deadline(), None);
    }

    #[test]
    fn a_burst_that_never_goes_quiet_is_handed_on_after_max_wait() {
        let t0 = Instant::now();
        let mut b = Burst::default();
        let mut t = t0;
        while t < t0 + MAX_WAIT * 2 {
            b.add(&WRITE, "gen.rs".into(), t);
            t += Duration::from_millis(10);
        }
        assert_eq!(b.deadline(), Some(t0 + MAX_WAIT));
    }

    /// From the write to the batch: a closed write is handed on after about `SETTLE`, not
    /// `DEBOUNCE` (the best of three, so a busy machine's scheduling does not decide).
    #[test]
    fn a_saved_file_is_handed_on_before_the_full_debounce() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = watch(&root, None, &WalkOptions::default(), move |p| {
            let _ = tx.send((Instant::now(), p));
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let mut best = Duration::MAX;
        for i in 0..3 {
            let t = Instant::now();
            std::fs::write(root.join(format!("f{i}.py")), "def f():\n    return 1\n").unwrap();
            let (at, paths) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
            assert_eq!(paths, vec![format!("f{i}.py")]);
            best = best.min(at - t);
            std::thread::sleep(Duration::from_millis(300));
        }
        assert!(best >= SETTLE, "{best:?}");
        assert!(best < DEBOUNCE, "{best:?}");
    }

    /// A folder whose name has a dot (`attrs-23.2.0`, `v1.2`) moved out of the tree is
    /// reported: the index may hold its files (it was dropped as "a file of unknown type").
    #[test]
    fn a_dotted_folder_moved_away_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("lib-1.2")).unwrap();
        std::fs::write(root.join("lib-1.2/a.py"), "def f():\n    return 1\n").unwrap();
        let root = root.canonicalize().unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = watch(&root, None, &WalkOptions::default(), move |p| {
            let _ = tx.send(p);
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        std::fs::rename(root.join("lib-1.2"), dir.path().join("moved")).unwrap();
        let paths = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(paths.iter().any(|p| p == "lib-1.2"), "{paths:?}");
    }
}
