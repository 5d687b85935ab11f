//! An index kept in step with the disk and the on-disk cache: what the CLI and the worker
//! use instead of calling [`index_repo`] directly.
//!
//! [`Session::load`] serves the cached snapshot (or says why there is none);
//! [`Session::refresh`] reconciles it with the disk (or indexes from scratch) and saves
//! the result when something changed and this instance holds the cache's lock.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::incremental::{reconcile, unchanged_since, walk_matches, Changes, Reconciled};
use super::store::{LoadError, SnapshotDigest, Store, Summary};
use super::{index_repo, CodeGraph, Index, IndexError, IndexOptions, IndexStats};

/// How long a watcher waits without a change before it saves an updated index (`index
/// --watch` and the TUI): a save (about 0.6 s on the Rust tree of the fetch.sh corpus) then
/// never delays the next update, and a burst of edits is saved once.
pub const SAVE_QUIET: std::time::Duration = std::time::Duration::from_secs(1);

/// Where the index came from this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheState {
    /// `--no-cache`, or no cache folder can be used: everything in memory.
    Off,
    /// No snapshot existed: indexed from scratch (and saved).
    Cold,
    /// The cached snapshot was loaded and reconciled with the disk.
    Warm,
    /// A snapshot existed but was not trusted (other engine build, other options,
    /// damaged) or `--rebuild` discarded it: indexed from scratch.
    Rebuilt,
}

/// What the cache did, for `index --json` and the TUI's status bar.
#[derive(Debug, Clone, Serialize)]
pub struct CacheReport {
    /// The repository's cache folder; `None` when caching is off.
    pub dir: Option<PathBuf>,
    /// Where the index came from.
    pub state: CacheState,
    /// Why the snapshot was not used or the cache is unavailable; `None` when all is well.
    pub reason: Option<String>,
    /// Another instance holds the lock: this one reads the cache and never writes it.
    pub read_only: bool,
    /// Time to load the snapshot, milliseconds.
    pub load_ms: Option<u64>,
    /// A snapshot was written by the last refresh.
    pub saved: bool,
}

/// The graph of a cached index loaded ahead of its facts ([`Session::load_graph`]).
#[derive(Debug)]
pub struct GraphOnly {
    /// The repository root (canonical).
    pub root: PathBuf,
    /// The graph, as the full index will share it.
    pub graph: Arc<CodeGraph>,
    summary: Summary,
}

impl GraphOnly {
    /// The index as far as it is loaded: everything but the facts (`files` is empty).
    pub fn index(&self) -> Index {
        let mut stats = self.summary.stats.clone();
        stats.elapsed_ms.clear();
        Index {
            root: Some(self.root.clone()),
            files: Vec::new(),
            graph: self.graph.clone(),
            stats,
            skipped: self.summary.skipped.clone(),
            stamps: self.summary.stamps.iter().cloned().collect(),
            stamped_at_ns: self.summary.stamped_at_ns,
            tables: std::sync::OnceLock::new(),
        }
    }
}

/// One repository's index source: an optional [`Store`] plus what happened so far.
#[derive(Debug)]
pub struct Session {
    store: Option<Store>,
    /// The saved snapshot the index this session last loaded, reconciled or saved holds.
    snapshot: Option<SnapshotDigest>,
    /// What the cache did.
    pub report: CacheReport,
}

impl Session {
    /// Opens the cache folder `dir` (`None`: in memory only). A folder that cannot be
    /// created or locked leaves the session in memory with the reason in the report.
    pub fn open(dir: Option<&Path>) -> Session {
        Session::open_with(dir, true)
    }

    /// [`open`](Session::open) for a command that answers and ends: when another instance
    /// (a TUI, a watcher) holds the cache's lock, it settles for read-only at once instead
    /// of waiting up to 200 ms for the lock (see [`Store::open`]); it would only have
    /// saved what that instance saves anyway.
    pub fn open_for_command(dir: Option<&Path>) -> Session {
        Session::open_with(dir, false)
    }

    fn open_with(dir: Option<&Path>, patient: bool) -> Session {
        let mut report = CacheReport {
            dir: dir.map(Path::to_path_buf),
            state: CacheState::Off,
            reason: None,
            read_only: false,
            load_ms: None,
            saved: false,
        };
        let store = match dir.map(|d| Store::open(d, patient)) {
            None => None,
            Some(Ok(s)) => {
                report.read_only = !s.is_writer();
                report.state = CacheState::Cold;
                Some(s)
            }
            Some(Err(e)) => {
                tracing::warn!("cache unavailable, indexing in memory: {e}");
                report.reason = Some(format!("cache unavailable ({e}); in memory"));
                None
            }
        };
        Session {
            store,
            snapshot: None,
            report,
        }
    }

    /// Discards the cached snapshot and search indexes (`index --rebuild`).
    ///
    /// Errors: the cache is locked by another instance, or cannot be removed.
    pub fn clear(&mut self) -> Result<(), super::store::StoreError> {
        if let Some(s) = &self.store {
            s.clear()?;
            self.report.state = CacheState::Rebuilt;
            self.report.reason = Some("--rebuild".into());
        }
        Ok(())
    }

    /// The cached index of `root`, when there is a trustworthy one. A stale or damaged
    /// cache is logged, noted in the report and ignored (the next save replaces it).
    pub fn load(&mut self, root: &Path, options: &IndexOptions) -> Option<Index> {
        let store = self.store.as_ref()?;
        let t = std::time::Instant::now();
        match store.load_current(root, options) {
            Ok((idx, digest)) => {
                self.snapshot = Some(digest);
                self.report.state = CacheState::Warm;
                self.report.load_ms = Some(t.elapsed().as_millis() as u64);
                tracing::info!(files = idx.files.len(), ms = ?self.report.load_ms, "cache loaded");
                Some(idx)
            }
            Err(LoadError::Missing) => None,
            Err(e) => {
                tracing::warn!(dir = %store.dir().display(), "{e}");
                self.report.state = CacheState::Rebuilt;
                self.report.reason = Some(e.to_string());
                None
            }
        }
    }

    /// The store and the live snapshot's summary when the snapshot is of `root` as it is
    /// on disk ([`unchanged_since`]: nothing changed, nothing racily clean).
    fn unchanged(&self, root: &Path, options: &IndexOptions) -> Option<(&Store, Summary)> {
        let store = self.store.as_ref()?;
        let summary = store.summary(root, options).ok()?;
        unchanged_since(root, &summary, options)
            .unwrap_or(false)
            .then_some((store, summary))
    }

    /// The counts of the cached index of `root` when the tree has not changed since it
    /// was saved, answered without decoding it: the manifest is read, the tree walked and
    /// stat'ed ([`unchanged_since`]), and every file of the snapshot checked against its
    /// checksum ([`Store::verify`]). `None` when there is no usable snapshot or anything
    /// may have changed: the caller then [`load`](Session::load)s and
    /// [`refresh`](Session::refresh)es, which report why. On the fetch.sh Rust tree (1.17M
    /// definitions) this answers `index` in 0.10 s; loading the graph as well takes
    /// about 0.23 s ([`load_graph`](Session::load_graph)).
    pub fn unchanged_stats(&mut self, root: &Path, options: &IndexOptions) -> Option<IndexStats> {
        let t = std::time::Instant::now();
        let (store, summary) = self.unchanged(root, options)?;
        if let Err(e) = store.verify(&summary) {
            tracing::debug!("snapshot check failed, loading it to say why: {e}");
            return None;
        }
        let ms = t.elapsed().as_millis() as u64;
        tracing::info!(ms, "cache checked: nothing changed");
        self.report.state = CacheState::Warm;
        self.report.load_ms = Some(ms);
        self.snapshot = Some(summary.digest());
        let mut stats = summary.stats;
        stats.elapsed_ms.clear();
        stats.elapsed_ms.insert("load".into(), ms);
        Some(stats)
    }

    /// The graph of the cached index of `root` when the tree has not changed since it was
    /// saved, decoded without the facts it was resolved from ([`Store::load_graph`]): for
    /// commands that answer from the graph alone, and for a front end to show before the
    /// facts follow ([`load_facts`](Session::load_facts)). `None` when there is no usable
    /// snapshot or anything may have changed: the caller then [`load`](Session::load)s
    /// and [`refresh`](Session::refresh)es, which bring the index up to date and report
    /// why.
    pub fn load_graph(&mut self, root: &Path, options: &IndexOptions) -> Option<GraphOnly> {
        let t = std::time::Instant::now();
        let (store, summary) = self.unchanged(root, options)?;
        let graph = store
            .load_graph(&summary)
            .inspect_err(|e| tracing::debug!("graph load failed, loading it all to say why: {e}"))
            .ok()?;
        let ms = t.elapsed().as_millis() as u64;
        tracing::info!(ms, "cached graph loaded: nothing changed");
        self.snapshot = Some(summary.digest());
        self.report.state = CacheState::Warm;
        self.report.load_ms = Some(ms);
        Some(GraphOnly {
            root: root.to_path_buf(),
            graph: Arc::new(graph),
            summary,
        })
    }

    /// The whole cached index of which `first` is the graph (the facts decoded and joined
    /// to it; the graph is shared, not copied). `None` when the facts are damaged: logged
    /// and noted in the report (the caller then indexes afresh).
    pub fn load_facts(&mut self, first: &GraphOnly) -> Option<Index> {
        let store = self.store.as_ref()?;
        let t = std::time::Instant::now();
        match store.load_facts(&first.summary, &first.graph) {
            Ok(files) => {
                let mut index = first.index();
                index.files = files;
                tracing::info!(
                    files = index.files.len(),
                    ms = t.elapsed().as_millis() as u64,
                    "cache loaded: facts"
                );
                Some(index)
            }
            Err(e) => {
                tracing::warn!(dir = %store.dir().display(), "{e}");
                self.report.state = CacheState::Rebuilt;
                self.report.reason = Some(e.to_string());
                None
            }
        }
    }

    /// Brings `prev` up to date with the disk (or, without `prev`, indexes `root` from
    /// scratch) and saves a changed result. `Ok(None)`: nothing changed.
    ///
    /// Errors: as [`index_repo`]. A failed save is logged and noted in the report, never
    /// an error: the index in memory is still right.
    pub fn refresh(
        &mut self,
        root: &Path,
        options: &IndexOptions,
        prev: Option<&Index>,
    ) -> Result<Option<(Index, Changes)>, IndexError> {
        let out = self.refresh_unsaved(root, options, prev)?;
        if let Some((idx, _)) = &out {
            self.save(idx, options);
        }
        Ok(out)
    }

    /// The check that follows an update made from a watcher's report alone
    /// ([`Changes::reported_only`]): `Ok(None)` when a walk finds the tree as `prev` has it
    /// (nothing is read), else [`refresh_unsaved`](Session::refresh_unsaved) (with
    /// `options.recheck` empty, a full reconciliation).
    ///
    /// Errors: as [`index_repo`].
    pub fn refresh_after_report(
        &mut self,
        root: &Path,
        options: &IndexOptions,
        prev: &Index,
    ) -> Result<Option<(Index, Changes)>, IndexError> {
        if walk_matches(root, prev, options)? {
            return Ok(None);
        }
        self.refresh_unsaved(root, options, Some(prev))
    }

    /// As [`refresh`](Session::refresh) without the save, for callers that serve the new
    /// index first and [`save`](Session::save) it afterwards.
    ///
    /// Errors: as [`index_repo`].
    pub fn refresh_unsaved(
        &mut self,
        root: &Path,
        options: &IndexOptions,
        prev: Option<&Index>,
    ) -> Result<Option<(Index, Changes)>, IndexError> {
        self.report.saved = false;
        let (idx, changes) = match prev {
            Some(p) => match reconcile(root, p, options)? {
                Reconciled::Unchanged => return Ok(None),
                Reconciled::Updated(idx, ch) => {
                    self.snapshot = None;
                    (*idx, ch)
                }
            },
            None => {
                let idx = index_repo(root, options)?;
                self.snapshot = None;
                let added = idx.files.iter().map(|f| f.path.clone()).collect();
                (
                    idx,
                    Changes {
                        added,
                        ..Changes::default()
                    },
                )
            }
        };
        Ok(Some((idx, changes)))
    }

    /// Writes `idx` when this instance may; failures are logged and reported.
    pub fn save(&mut self, idx: &Index, options: &IndexOptions) {
        self.report.saved = false;
        self.snapshot = None;
        let Some(store) = &self.store else { return };
        if !store.is_writer() {
            return;
        }
        let t = std::time::Instant::now();
        match store.save(idx, options) {
            Ok(digest) => {
                self.snapshot = Some(digest);
                self.report.saved = true;
                tracing::info!(ms = t.elapsed().as_millis() as u64, "cache saved");
            }
            Err(e) => {
                tracing::warn!("cannot save the cache: {e}");
                self.report.reason = Some(format!("cannot save the cache: {e}"));
            }
        }
    }

    /// The saved snapshot whose content is the index this session last loaded ([`load`],
    /// [`load_graph`]), brought up to date ([`refresh`]) or saved: what a search index
    /// built from that index may record as its source ([`crate::index::search::text`]).
    /// `None` when that index was not saved (caching off, read-only, a failed save, or an
    /// update not saved yet).
    ///
    /// [`load`]: Session::load
    /// [`load_graph`]: Session::load_graph
    /// [`refresh`]: Session::refresh
    pub fn snapshot(&self) -> Option<SnapshotDigest> {
        self.snapshot
    }

    /// The identity of the live snapshot of `root` when the tree has not changed since
    /// it was saved, with its counts, reading only the manifest and stat'ing the tree
    /// ([`unchanged_since`]); nothing else of the snapshot is read or checked. `None` as
    /// for [`load_graph`](Session::load_graph).
    pub fn unchanged_snapshot(
        &mut self,
        root: &Path,
        options: &IndexOptions,
    ) -> Option<(SnapshotDigest, IndexStats)> {
        let t = std::time::Instant::now();
        let (_, summary) = self.unchanged(root, options)?;
        let ms = t.elapsed().as_millis() as u64;
        tracing::info!(ms, "cache manifest checked: nothing changed");
        self.report.state = CacheState::Warm;
        self.report.load_ms = Some(ms);
        self.snapshot = Some(summary.digest());
        Some((summary.digest(), summary.stats))
    }

    /// The cache folder, read-only or not; `None` when caching is off.
    pub fn dir(&self) -> Option<&Path> {
        self.store.as_ref().map(|s| s.dir())
    }

    /// The cache folder when this instance may write search indexes into it: `None`
    /// when caching is off or another instance holds the lock.
    pub fn writable_dir(&self) -> Option<&Path> {
        self.store
            .as_ref()
            .filter(|s| s.is_writer())
            .map(|s| s.dir())
    }

    /// Bytes on disk of the cache (snapshot and search indexes); 0 when off.
    pub fn size_bytes(&self) -> u64 {
        self.store.as_ref().map_or(0, Store::size_bytes)
    }
}
