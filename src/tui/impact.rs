//! A first impact model (until the engine's `index/impact.rs` lands): from
//! [`CodeGraph::walk`] over callers, the direct and transitive callers grouped by depth,
//! the files they live in, the tests among them, a risk level, and whether the answer is
//! a lower bound (unresolved references) or was truncated (depth or size cap).

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use crate::index::{Kind, Walk};
use crate::worker::Snapshot;

use super::tree::is_test;

/// How far the impact walk goes.
pub const IMPACT_DEPTH: u32 = 6;

/// A coarse risk level from the number of transitive callers and files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Risk {
    /// Few callers, few files.
    Low,
    /// A handful of callers or files.
    Medium,
    /// Many callers or files.
    High,
}

impl Risk {
    /// Lowercase label.
    pub fn label(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }
}

/// The impact of changing one symbol.
#[derive(Debug, Clone)]
pub struct ImpactReport {
    /// The symbol's id.
    pub root: Arc<str>,
    /// Callers by depth: `by_depth[0]` are the direct callers (ids, sorted).
    pub by_depth: Vec<Vec<Arc<str>>>,
    /// Files holding any caller (sorted), the root's own file excluded.
    pub files: Vec<Arc<str>>,
    /// Callers that are test code (sorted).
    pub tests: Vec<Arc<str>>,
    /// The risk level.
    pub risk: Risk,
    /// Unresolved references that might be more callers: the answer is a lower bound
    /// when this is above 0.
    pub unresolved: usize,
    /// The depth or size cap cut the walk.
    pub truncated: bool,
    /// Selected line of the panel's list (for scrolling).
    pub scroll: usize,
}

impl ImpactReport {
    /// Computes the report for `root`; `None` when it is not a node.
    pub fn compute(snap: &Snapshot, root: &str) -> Option<ImpactReport> {
        let g = &snap.index.graph;
        let sub = g.walk(root, Walk::Callers, IMPACT_DEPTH)?;
        let mut callers_of: HashMap<&str, Vec<&str>> = HashMap::new();
        for e in &sub.edges {
            callers_of
                .entry(e.target.as_str())
                .or_default()
                .push(e.source.as_str());
        }
        let mut depth: HashMap<&str, usize> = HashMap::from([(root, 0)]);
        let mut queue = VecDeque::from([root]);
        while let Some(id) = queue.pop_front() {
            let d = depth[id];
            for &c in callers_of.get(id).map_or(&[][..], Vec::as_slice) {
                if !depth.contains_key(c) {
                    depth.insert(c, d + 1);
                    queue.push_back(c);
                }
            }
        }
        let max = depth.values().copied().max().unwrap_or(0);
        let mut by_depth: Vec<Vec<Arc<str>>> = vec![Vec::new(); max];
        let mut files = BTreeSet::new();
        let mut tests = Vec::new();
        let root_file = g.node(root).map(|n| n.file.clone());
        for n in &sub.nodes {
            let Some(&d) = depth.get(&*n.id) else {
                continue;
            };
            if d == 0 {
                continue;
            }
            by_depth[d - 1].push(n.id.clone());
            if Some(&n.file) != root_file.as_ref() {
                files.insert(n.file.clone());
            }
            if n.kind != Kind::File && is_test(n) {
                tests.push(n.id.clone());
            }
        }
        for v in &mut by_depth {
            v.sort();
        }
        tests.sort();
        let total: usize = by_depth.iter().map(Vec::len).sum();
        let risk = match (total, files.len()) {
            (t, f) if t > 20 || f > 8 => Risk::High,
            (t, f) if t > 4 || f > 2 => Risk::Medium,
            _ => Risk::Low,
        };
        Some(ImpactReport {
            root: Arc::from(root),
            by_depth,
            files: files.into_iter().collect(),
            tests,
            risk,
            unresolved: sub.unresolved,
            truncated: sub.truncated,
            scroll: 0,
        })
    }

    /// Direct callers plus transitive ones.
    pub fn total(&self) -> usize {
        self.by_depth.iter().map(Vec::len).sum()
    }
}
