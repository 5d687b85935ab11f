//! The [`Snapshot`] the worker publishes: an immutable finished index plus the lookups
//! the UI reads on every keystroke, made once on the worker thread. Its own module
//! because the front ends read it, while the rest of the worker is the loop that makes it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::index::store::SnapshotDigest;
use crate::index::{Index, UnresolvedReason};

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
    /// The cache folder this instance may write search indexes into
    /// ([`Session::writable_dir`](crate::index::session::Session::writable_dir)): the
    /// TUI's text, semantic and hybrid search reopen the saved text index and vectors there
    /// and bring them up to date, as `search` does. `None` without a cache, or when
    /// another instance holds it (its searches are built in memory).
    pub search_dir: Option<PathBuf>,
    /// The cache folder, whether this instance may write it or not: the saved search
    /// indexes of the snapshot as saved are read from it
    /// ([`SavedSearch`](crate::index::search::SavedSearch)), also by an instance another
    /// one holds the lock against. `None` without a cache.
    pub cache_dir: Option<PathBuf>,
    /// The saved snapshot this index is the content of, once known: at once for a
    /// cached index loaded unchanged, after the worker's save for a new one (published
    /// before it is saved), never for an index not saved. Search indexes built from it
    /// record it, so a later process that finds the tree unchanged answers text queries
    /// from the saved text index alone. Shared with [`with_facts`](Snapshot::with_facts).
    saved: Arc<OnceLock<SnapshotDigest>>,
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
    pub(super) fn graph_alone(generation: u64, index: Index, elapsed: Duration) -> Snapshot {
        Snapshot {
            generation,
            index,
            unresolved_by_name: Arc::default(),
            elapsed,
            graph_only: true,
            search_dir: None,
            cache_dir: None,
            saved: Arc::default(),
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
            search_dir: self.search_dir.clone(),
            cache_dir: self.cache_dir.clone(),
            saved: self.saved.clone(),
        }
    }

    /// This snapshot with [`search_dir`](Snapshot::search_dir) (the cache folder when
    /// this instance may write it) and [`cache_dir`](Snapshot::cache_dir) (the cache
    /// folder) set.
    pub fn searching_in(self, writable: Option<&Path>, cache: Option<&Path>) -> Snapshot {
        Snapshot {
            search_dir: writable.map(Path::to_path_buf),
            cache_dir: cache.map(Path::to_path_buf),
            ..self
        }
    }

    /// The saved snapshot this index is the content of, when known
    /// ([`saved`](Snapshot#structfield.saved)).
    pub fn saved_as(&self) -> Option<SnapshotDigest> {
        self.saved.get().copied()
    }

    /// Records that this index was saved (or loaded) as `digest`; `None` records nothing.
    /// A second call keeps the first digest (an index is saved once).
    pub(crate) fn mark_saved(&self, digest: Option<SnapshotDigest>) {
        if let Some(d) = digest {
            let _ = self.saved.set(d);
        }
    }

    /// The repository root (absolute), when the index came from a directory.
    pub fn root(&self) -> Option<&Path> {
        self.index.root.as_deref()
    }
}
