//! Watching a repository for changes: a `notify` watcher behind `notify-debouncer-mini`
//! (about 200 ms of quiet per burst), whose events are filtered by the repository's
//! ignore rules and handed on as repo-relative paths.
//!
//! Editors' save patterns (write a temporary file then rename it over the original;
//! delete then create) and bursts such as `git checkout` arrive as one debounced batch;
//! the consumer coalesces batches that arrive while it is busy. Temporary and hidden
//! files, ignored paths and the cache folder (which may sit inside the root when the
//! root is a home folder) never trigger an update.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ignore::gitignore::Gitignore;
use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher};
use notify_debouncer_mini::{new_debouncer_opt, Config, DebounceEventResult, Debouncer};

use crate::index::source::{FsSource, WalkOptions};

/// Quiet time that ends a burst of events.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

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

/// A running watcher; dropping it stops watching.
pub struct RepoWatcher {
    _debouncer: Debouncer<ChangeWatcher>,
}

/// notify's watcher without the events of reading: inotify also reports opening and
/// closing (`IN_OPEN`, `IN_CLOSE_NOWRITE`) of files and folders, and each
/// reconciliation opens every folder of the repository, so a watcher that passed them on
/// woke itself about ten times a second for ever (found by a fresh-eyes test). Closing a
/// file that was written stays: it ends an in-place save.
pub struct ChangeWatcher(notify::RecommendedWatcher);

/// `true` for the events that can change what the index holds.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

impl Watcher for ChangeWatcher {
    fn new<F: notify::EventHandler>(
        mut handler: F,
        config: notify::Config,
    ) -> notify::Result<ChangeWatcher> {
        let inner = notify::RecommendedWatcher::new(
            move |e: notify::Result<notify::Event>| match &e {
                Ok(ev) if !is_change(&ev.kind) => {}
                _ => handler.handle_event(e),
            },
            config,
        )?;
        Ok(ChangeWatcher(inner))
    }

    fn watch(&mut self, path: &Path, mode: RecursiveMode) -> notify::Result<()> {
        self.0.watch(path, mode)
    }

    fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
        self.0.unwatch(path)
    }

    fn kind() -> notify::WatcherKind {
        notify::RecommendedWatcher::kind()
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
        let known = crate::index::lang::for_path(&rel).is_some();
        let relevant = match meta {
            _ if ignore_file => true,
            Some(m) if m.is_dir() => true,
            Some(_) => known,
            // Gone: a source file, or perhaps a folder (no extension).
            None => known || !name.contains('.'),
        };
        relevant.then_some(rel)
    }
}

/// Starts watching `root` (recursively). `on_change` gets each debounced batch of
/// relevant repo-relative paths (sorted, unique, never empty), on notify's thread.
///
/// Errors: [`WatchError`] when the OS refuses (the message says why; for the inotify
/// limit, raise `fs.inotify.max_user_watches`).
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
    let config = Config::default().with_timeout(DEBOUNCE);
    let handler = move |res: DebounceEventResult| match res {
        Ok(events) => {
            let mut paths: Vec<String> = events
                .iter()
                .filter_map(|e| filter.relevant(&e.path))
                .collect();
            paths.sort();
            paths.dedup();
            if !paths.is_empty() {
                tracing::debug!(n = paths.len(), "watch: changed paths");
                on_change(paths);
            }
        }
        Err(e) => tracing::warn!("watch error: {e}"),
    };
    let mut debouncer =
        new_debouncer_opt::<_, ChangeWatcher>(config, handler).map_err(notify_err)?;
    debouncer
        .watcher()
        .watch(src.root(), RecursiveMode::Recursive)
        .map_err(notify_err)?;
    tracing::info!(root = %src.root().display(), "watching");
    Ok(RepoWatcher {
        _debouncer: debouncer,
    })
}
