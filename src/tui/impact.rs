//! The impact panel's model: the engine's answer ([`crate::index::impact`]), the same one
//! `codegraph-tui impact SYMBOL` prints (same depth, same test and entry-point rules, same
//! risk thresholds, same lower-bound reasons), plus the panel's scroll position.

use std::path::Path;
use std::sync::Arc;

use crate::index::impact::{self, FsLines, Impact};
use crate::worker::Snapshot;

/// The impact shown for the tree's root.
#[derive(Debug, Clone)]
pub struct ImpactView {
    /// The engine's answer for the root, callers followed [`impact::DEFAULT_DEPTH`] hops.
    pub report: Impact,
    /// First line of the panel's list on screen.
    pub scroll: usize,
}

impl ImpactView {
    /// The impact of changing `root` (a node id of `snap`); source lines for the test and
    /// entry-point rules are read under `repo` (the repository root). `None` when `root` is
    /// not a node.
    pub fn compute(snap: &Snapshot, root: &Arc<str>, repo: &Path) -> Option<ImpactView> {
        let lines = FsLines::new(repo);
        let report = impact::impact(&snap.index.graph, root, impact::DEFAULT_DEPTH, &lines)?;
        Some(ImpactView { report, scroll: 0 })
    }
}
