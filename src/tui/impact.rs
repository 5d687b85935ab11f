//! The impact panel's model: the engine's answer ([`crate::index::impact`]), the same one
//! `codegraph-tui impact SYMBOL` prints (same depth, same test and entry-point rules, same
//! risk thresholds, same lower-bound reasons), laid out as a list of rows the panel
//! scrolls and selects, so the callers stay reachable however many lower-bound reasons
//! there are (one per unresolved name: 20 of them pushed the callers off screen).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use crate::index::impact::{self, FsLines, Impact};
use crate::index::Kind;
use crate::worker::Snapshot;

/// One row of the impact panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImpactRow {
    /// Risk and caller counts.
    Headline,
    /// Files, tests, entry points, depth.
    Counts,
    /// The lower bound in one line: how many reasons and unresolved calls (Enter lists
    /// the reasons).
    LowerBound,
    /// One lower-bound reason (index into the report's reasons), shown when opened.
    Reason(usize),
    /// The walk was cut by its depth or node cap.
    Truncated,
    /// A caller: its distance (1-based hops) and id.
    Caller(u32, String),
    /// A section title (`entry points:`, `files:`, `tests:`).
    Heading(&'static str),
    /// An entry point or test (node id) under its heading.
    Member(String),
    /// A file (repo-relative path) under `files:`.
    File(String),
}

/// The impact shown for the tree's root.
#[derive(Debug, Clone)]
pub struct ImpactView {
    /// The engine's answer for the root, callers followed [`impact::DEFAULT_DEPTH`] hops.
    pub report: Impact,
    /// Unresolved calls (not `external`) whose callee name is the name of the root or of
    /// a caller found: each could be one more caller (the sum of the counts the reasons
    /// give).
    pub maybe_calls: u64,
    /// The lower-bound reasons are listed (Enter on the lower-bound row).
    pub show_reasons: bool,
    /// Selected row (index into [`ImpactView::rows`]).
    pub selected: usize,
    /// First row on screen.
    pub scroll: usize,
}

impl ImpactView {
    /// The impact of changing `root` (a node id of `snap`); source lines for the test and
    /// entry-point rules are read under `repo` (the repository root). `None` when `root` is
    /// not a node.
    pub fn compute(snap: &Snapshot, root: &Arc<str>, repo: &Path) -> Option<ImpactView> {
        let lines = FsLines::new(repo);
        let g = &snap.index.graph;
        let report = impact::impact(g, root, impact::DEFAULT_DEPTH, &lines)?;
        let names: BTreeSet<&str> = std::iter::once(&**root)
            .chain(report.by_depth.iter().flatten().map(String::as_str))
            .filter_map(|id| g.node(id))
            .filter(|n| n.kind != Kind::File)
            .map(|n| &*n.name)
            .collect();
        let by_name = snap.unresolved_by_name();
        let maybe_calls = names
            .iter()
            .map(|n| by_name.get(*n).copied().unwrap_or(0) as u64)
            .sum();
        Some(ImpactView {
            report,
            maybe_calls,
            show_reasons: false,
            selected: 0,
            scroll: 0,
        })
    }

    /// `true` when the calls left unresolved could outnumber the callers found: the
    /// risk computed from the callers found says little, and the headline says so.
    pub fn lower_bound_dominates(&self) -> bool {
        self.report.lower_bound && self.maybe_calls > self.report.caller_count() as u64
    }

    /// The rows, top to bottom.
    pub fn rows(&self) -> Vec<ImpactRow> {
        let r = &self.report;
        let mut out = vec![ImpactRow::Headline, ImpactRow::Counts];
        if !r.lower_bound_reasons.is_empty() {
            out.push(ImpactRow::LowerBound);
            if self.show_reasons {
                out.extend((0..r.lower_bound_reasons.len()).map(ImpactRow::Reason));
            }
        }
        if r.truncated {
            out.push(ImpactRow::Truncated);
        }
        for (d, ids) in r.by_depth.iter().enumerate() {
            out.extend(
                ids.iter()
                    .map(|id| ImpactRow::Caller(d as u32 + 1, id.clone())),
            );
        }
        for (title, items) in [("entry points:", &r.entry_points), ("tests:", &r.tests)] {
            if !items.is_empty() {
                out.push(ImpactRow::Heading(title));
                out.extend(items.iter().cloned().map(ImpactRow::Member));
            }
        }
        if !r.files.is_empty() {
            out.push(ImpactRow::Heading("files:"));
            out.extend(r.files.iter().cloned().map(ImpactRow::File));
        }
        out
    }

    /// Moves the selection by `d` rows, clamped.
    pub fn move_by(&mut self, d: isize) {
        let n = self.rows().len();
        self.selected = (self.selected as isize)
            .saturating_add(d)
            .clamp(0, n.saturating_sub(1) as isize) as usize;
    }
}
