//! The call-tree model: callers (or callees) of a root symbol, expanded lazily one level
//! at a time from [`CodeGraph::walk`] with depth 1, so a huge graph costs only what is
//! on screen. A node that already appears among its own ancestors is a cycle: it is marked
//! and never expanded again. Filters (test code, `unique_name` edges) apply when rows are
//! listed, so toggling them needs no recomputation.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::index::graph::{Site, SUBGRAPH_SCHEMA};
use crate::index::impact::{recognize, NoLines};
use crate::index::{CodeGraph, Edge, Node, Relation, Subgraph, Tier, Walk};
use crate::tui::unresolved::{calls_of, UnresolvedCall};
use crate::worker::Snapshot;

/// The edge that led from a tree node's parent to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Via {
    /// `calls` or `references`.
    pub relation: Relation,
    /// Resolution tier.
    pub resolution: Tier,
    /// Call sites (in the caller's file), sorted.
    pub sites: Vec<Site>,
}

/// One node of the tree (arena-allocated).
#[derive(Debug, Clone)]
pub struct TreeNode {
    /// Graph node id.
    pub id: Arc<str>,
    /// The edge from the parent (`None` for the root).
    pub via: Option<Via>,
    /// 0 for the root.
    pub depth: u32,
    /// Arena index of the parent.
    pub parent: Option<usize>,
    /// Arena indices of the children, once computed.
    pub children: Option<Vec<usize>>,
    /// Children shown.
    pub expanded: bool,
    /// The id appears among the ancestors: not expandable.
    pub cycle: bool,
    /// The calls behind the node's unresolved row, with how many there are, while that
    /// row is open (see [`crate::tui::unresolved::calls_of`]).
    pub unresolved: Option<(Vec<UnresolvedCall>, usize)>,
}

/// A visible row of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// A tree node (arena index).
    Node(usize),
    /// Under an expanded node: how many unresolved references could add to its children.
    Unresolved {
        /// Arena index of the node.
        node: usize,
        /// The count.
        count: u32,
    },
    /// Under an open unresolved row: one of the calls (index into the node's list).
    Call {
        /// Arena index of the node.
        node: usize,
        /// Index of the call in [`TreeNode::unresolved`].
        call: usize,
    },
    /// Under an ambiguous call: one definition it could mean.
    Candidate {
        /// Arena index of the node.
        node: usize,
        /// Index of the call in [`TreeNode::unresolved`].
        call: usize,
        /// Index into the call's candidates.
        cand: usize,
    },
    /// Under an expanded node whose children a filter hides: how many are hidden.
    Hidden {
        /// Arena index of the node.
        node: usize,
        /// How many children the filters hide.
        count: usize,
    },
}

impl Row {
    /// The arena node a row belongs to (its own node, or the node it is listed under).
    pub fn node(&self) -> usize {
        match *self {
            Row::Node(i)
            | Row::Unresolved { node: i, .. }
            | Row::Call { node: i, .. }
            | Row::Candidate { node: i, .. }
            | Row::Hidden { node: i, .. } => i,
        }
    }
}

/// The call tree of one root.
#[derive(Debug, Clone)]
pub struct CallTree {
    /// Callers or callees.
    pub direction: Walk,
    /// Arena; index 0 is the root.
    pub nodes: Vec<TreeNode>,
    /// Selected row.
    pub selected: usize,
    /// First row on screen.
    pub offset: usize,
}

/// What one [`CallTree::expand_to`] opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Expanded {
    /// Levels below the node opened in full (fewer than asked when the subtree ends
    /// sooner or the budget ran out).
    pub levels: u32,
    /// Child rows under the opened nodes (filters not applied).
    pub rows: usize,
    /// Nodes left closed because the row budget ran out (0: the walk was complete).
    pub left_closed: usize,
}

/// The row budget of one expand-to-depth (`*`): enough for three full levels of a
/// function with a dozen callers a level, few enough that listing the rows again on every
/// key and frame stays cheap.
pub const EXPAND_BUDGET: usize = 2_000;

/// Row filters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Filters {
    /// Hide nodes in test code.
    pub hide_tests: bool,
    /// Hide edges resolved only by a repo-wide unique name.
    pub hide_unique_name: bool,
}

/// `true` when a node is test code by the rules `impact` counts tests with
/// ([`recognize::is_test`]: test folders, the language's test file names and test code
/// names), without reading source lines (rows are listed while drawing): the `t` filter
/// and the impact panel's test count agree.
pub fn is_test(g: &CodeGraph, n: &Node) -> bool {
    recognize::is_test(g, n, &NoLines)
}

impl CallTree {
    /// A tree rooted at `root`, expanded one level.
    pub fn new(snap: &Snapshot, root: Arc<str>, direction: Walk) -> CallTree {
        let mut t = CallTree {
            direction,
            nodes: vec![TreeNode {
                id: root,
                via: None,
                depth: 0,
                parent: None,
                children: None,
                expanded: false,
                cycle: false,
                unresolved: None,
            }],
            selected: 0,
            offset: 0,
        };
        t.expand(snap, 0);
        t
    }

    /// The root's id.
    pub fn root(&self) -> &Arc<str> {
        &self.nodes[0].id
    }

    /// Expands arena node `i`, computing its children on first use. Cycles stay closed.
    pub fn expand(&mut self, snap: &Snapshot, i: usize) {
        if self.nodes[i].cycle {
            return;
        }
        if self.nodes[i].children.is_none() {
            let kids = neighbours(&snap.index.graph, &self.nodes[i].id, self.direction);
            let depth = self.nodes[i].depth + 1;
            let mut ids = Vec::with_capacity(kids.len());
            for (id, via) in kids {
                let cycle = self.has_ancestor(i, &id);
                ids.push(self.nodes.len());
                self.nodes.push(TreeNode {
                    id,
                    via: Some(via),
                    depth,
                    parent: Some(i),
                    children: None,
                    expanded: false,
                    cycle,
                    unresolved: None,
                });
            }
            self.nodes[i].children = Some(ids);
        }
        self.nodes[i].expanded = true;
    }

    /// Expands arena node `i` and its descendants `levels` levels down (`*`), breadth
    /// first, so the nearer levels are complete before a farther one starts. At most
    /// `budget` child rows are opened in all: a node whose children would pass it is left
    /// closed, and so is every node after it, so a hub function (thousands of callers a
    /// level) costs `budget` rows, not its whole subtree. Cycles stay closed.
    pub fn expand_to(&mut self, snap: &Snapshot, i: usize, levels: u32, budget: usize) -> Expanded {
        let mut out = Expanded::default();
        let mut frontier = vec![i];
        for level in 0..levels {
            let mut next = Vec::new();
            for (k, &j) in frontier.iter().enumerate() {
                if self.nodes[j].cycle {
                    continue;
                }
                let first = self.nodes[j].children.is_none();
                if first {
                    // Children computed, not shown: what a node costs is known before it opens.
                    self.expand(snap, j);
                    self.nodes[j].expanded = false;
                }
                let kids = self.nodes[j].children.as_deref().unwrap_or_default();
                if out.rows + kids.len() > budget && j != i {
                    out.left_closed = frontier[k..]
                        .iter()
                        .filter(|&&n| !self.nodes[n].cycle)
                        .count();
                    return out;
                }
                out.rows += kids.len();
                next.extend_from_slice(kids);
                self.nodes[j].expanded = true;
            }
            if next.is_empty() {
                break;
            }
            out.levels = level + 1;
            frontier = next;
        }
        out
    }

    /// The ids from the root down to arena node `i`.
    pub fn path(&self, mut i: usize) -> Vec<Arc<str>> {
        let mut out = vec![self.nodes[i].id.clone()];
        while let Some(p) = self.nodes[i].parent {
            out.push(self.nodes[p].id.clone());
            i = p;
        }
        out.reverse();
        out
    }

    /// This tree on another snapshot (after re-indexing): the same root and direction,
    /// every node that was expanded expanded again where it still exists (a node is found
    /// by its path of ids from the root), the scroll offset kept. Also returns the arena
    /// index, in the new tree, of the node at arena index `keep` of this one (the
    /// selection), or of its deepest ancestor that is still there.
    pub fn carried_to(&self, snap: &Snapshot, keep: Option<usize>) -> (CallTree, usize) {
        let expanded: std::collections::HashSet<Vec<Arc<str>>> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].expanded)
            .map(|i| self.path(i))
            .collect();
        let mut t = CallTree::new(snap, self.root().clone(), self.direction);
        t.offset = self.offset;
        t.nodes[0].expanded = self.nodes[0].expanded;
        let mut stack = vec![(0usize, vec![self.root().clone()])];
        while let Some((j, path)) = stack.pop() {
            if !expanded.contains(&path) {
                continue;
            }
            t.expand(snap, j);
            for &k in t.nodes[j].children.iter().flatten() {
                let mut p = path.clone();
                p.push(t.nodes[k].id.clone());
                stack.push((k, p));
            }
        }
        let mut at = 0;
        if let Some(keep) = keep.filter(|&k| k < self.nodes.len()) {
            for id in self.path(keep).iter().skip(1) {
                let next = t.nodes[at]
                    .children
                    .iter()
                    .flatten()
                    .copied()
                    .find(|&k| t.nodes[k].id == *id);
                match next {
                    Some(k) => at = k,
                    None => break,
                }
            }
        }
        (t, at)
    }

    /// `true` when `id` is node `i` or one of its ancestors.
    fn has_ancestor(&self, mut i: usize, id: &str) -> bool {
        loop {
            if &*self.nodes[i].id == id {
                return true;
            }
            match self.nodes[i].parent {
                Some(p) => i = p,
                None => return false,
            }
        }
    }

    /// Unresolved references that could add children to node `i`: for callers, the
    /// non-external unresolved calls with the node's name; for callees, the node's own
    /// unresolved calls.
    pub fn unresolved_count(&self, snap: &Snapshot, i: usize) -> u32 {
        let id = &self.nodes[i].id;
        match self.direction {
            Walk::Callees => snap.index.graph.unresolved_of(id).len() as u32,
            _ => snap
                .index
                .graph
                .node(id)
                .and_then(|n| snap.unresolved_by_name().get(&*n.name).copied())
                .unwrap_or(0),
        }
    }

    /// Opens or closes the list of calls under node `i`'s unresolved row.
    pub fn toggle_unresolved(&mut self, snap: &Snapshot, i: usize) {
        let n = &mut self.nodes[i];
        n.unresolved = match n.unresolved.take() {
            Some(_) => None,
            None => Some(calls_of(&snap.index.graph, &n.id, self.direction)),
        };
    }

    /// The visible rows, depth first, filters applied (the root is always shown).
    pub fn rows(&self, snap: &Snapshot, f: Filters) -> Vec<Row> {
        let mut out = Vec::new();
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            out.push(Row::Node(i));
            let n = &self.nodes[i];
            if !n.expanded {
                continue;
            }
            let count = self.unresolved_count(snap, i);
            if count > 0 {
                // Right under the node, before its children (which the stack pops later).
                out.push(Row::Unresolved { node: i, count });
                for (call, c) in n.unresolved.iter().flat_map(|u| u.0.iter().enumerate()) {
                    out.push(Row::Call { node: i, call });
                    out.extend((0..c.candidates.len()).map(|cand| Row::Candidate {
                        node: i,
                        call,
                        cand,
                    }));
                }
            }
            if let Some(kids) = &n.children {
                let mut hidden = 0;
                for &k in kids.iter().rev() {
                    if self.visible(snap, k, f) {
                        stack.push(k);
                    } else {
                        hidden += 1;
                    }
                }
                // A filter that hides every child must not leave the node looking like
                // one without callers.
                if hidden > 0 {
                    out.push(Row::Hidden {
                        node: i,
                        count: hidden,
                    });
                }
            }
        }
        out
    }

    fn visible(&self, snap: &Snapshot, i: usize, f: Filters) -> bool {
        let n = &self.nodes[i];
        if f.hide_unique_name
            && n.via
                .as_ref()
                .is_some_and(|v| v.resolution == Tier::UniqueName)
        {
            return false;
        }
        if f.hide_tests {
            if let Some(node) = snap.index.graph.node(&n.id) {
                if is_test(&snap.index.graph, node) {
                    return false;
                }
            }
        }
        true
    }

    /// What the visible `rows` show, as a subgraph (the export of `x`): the nodes of the
    /// rows, the edge from each row to its parent row (callers point at the node they
    /// call, callees are pointed at), `unresolved` = the sum of the "? N unresolved" rows,
    /// and `truncated` when the graph holds more neighbours of a shown node than are
    /// shown (a collapsed node that has some, or children hidden by a filter).
    pub fn visible_subgraph(&self, snap: &Snapshot, rows: &[Row], f: Filters) -> Subgraph {
        let g = &snap.index.graph;
        let mut nodes: BTreeMap<&str, Node> = BTreeMap::new();
        let mut edges: BTreeMap<(String, String, Relation), Edge> = BTreeMap::new();
        let (mut unresolved, mut truncated) = (0usize, false);
        for r in rows {
            let i = match *r {
                Row::Node(i) => i,
                Row::Unresolved { count, .. } => {
                    unresolved += count as usize;
                    continue;
                }
                Row::Call { .. } | Row::Candidate { .. } | Row::Hidden { .. } => continue,
            };
            let n = &self.nodes[i];
            if let Some(node) = g.node(&n.id) {
                nodes.entry(&n.id).or_insert_with(|| node.clone());
            }
            if !n.cycle {
                truncated |= match (&n.children, n.expanded) {
                    (Some(kids), true) => kids.iter().any(|&k| !self.visible(snap, k, f)),
                    (Some(kids), false) => !kids.is_empty(),
                    // Only whether it has any: the node's degree, not a walk (a walk also
                    // counts the repo's unresolved calls; per row of a 5 000-row export that
                    // froze the UI for over a minute on the Rust corpus).
                    (None, _) => !g
                        .edges_of(
                            &n.id,
                            self.direction,
                            &[Relation::Calls, Relation::References],
                        )
                        .is_empty(),
                };
            }
            let (Some(p), Some(via)) = (n.parent, &n.via) else {
                continue;
            };
            let parent = self.nodes[p].id.to_string();
            let (source, target) = match self.direction {
                Walk::Callees => (parent, n.id.to_string()),
                _ => (n.id.to_string(), parent),
            };
            edges
                .entry((source.clone(), target.clone(), via.relation))
                .or_insert_with(|| Edge {
                    source,
                    target,
                    relation: via.relation,
                    resolution: via.resolution,
                    confidence: via.resolution.confidence(),
                    sites: via.sites.clone(),
                });
        }
        Subgraph {
            schema: SUBGRAPH_SCHEMA,
            root: self.nodes[0].id.to_string(),
            direction: self.direction.as_str().to_string(),
            depth: self.shown_depth(rows),
            nodes: nodes.into_values().collect(),
            edges: edges.into_values().collect(),
            truncated,
            unresolved,
        }
    }

    /// Deepest level among the visible rows (at least 1): the depth an export uses.
    pub fn shown_depth(&self, rows: &[Row]) -> u32 {
        rows.iter()
            .filter_map(|r| match r {
                Row::Node(i) => Some(self.nodes[*i].depth),
                _ => None,
            })
            .max()
            .unwrap_or(0)
            .max(1)
    }
}

/// Direct callers (or callees) of `id` over `calls` and `references` edges, sorted by
/// file and line, each with the edge that links them.
pub fn neighbours(g: &CodeGraph, id: &str, dir: Walk) -> Vec<(Arc<str>, Via)> {
    // Every direct edge, not a depth-1 walk: a walk stops at its node cap, so a node with
    // more than 5 000 callers showed 5 000 and exported `truncated: false`.
    let edges = g.edges_of(id, dir, &[Relation::Calls, Relation::References]);
    // (id, edge, sort key: file and line)
    type Entry = (Arc<str>, Via, (Arc<str>, u32));
    let mut out: Vec<Entry> = Vec::new();
    for e in edges {
        let other = match dir {
            Walk::Callees => (e.source == id).then_some(&e.target),
            _ => (e.target == id).then_some(&e.source),
        };
        let Some(other) = other else { continue };
        let Some(n) = g.node(other) else { continue };
        out.push((
            n.id.clone(),
            Via {
                relation: e.relation,
                resolution: e.resolution,
                sites: e.sites,
            },
            (n.file.clone(), n.start_line),
        ));
    }
    out.sort_by(|a, b| a.2.cmp(&b.2).then_with(|| a.0.cmp(&b.0)));
    out.into_iter().map(|(id, v, _)| (id, v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::facts::Kind;

    fn node(id: &str) -> Node {
        Node {
            id: id.into(),
            kind: Kind::Function,
            name: id.rsplit("::").next().unwrap().into(),
            qualified_name: id.into(),
            file: "a.rs".into(),
            start_line: 1,
            end_line: 1,
            language: "rust".into(),
        }
    }

    /// A node with more callers than a walk's node cap lists every one of them: the tree
    /// once showed 5 000 of 5 001 and its export said `truncated: false`.
    #[test]
    fn every_direct_caller_is_listed_past_the_walk_cap() {
        let many = crate::index::graph::MAX_SUBGRAPH_NODES + 1;
        let mut nodes = vec![node("a.rs::target")];
        let mut edges = Vec::new();
        for i in 0..many {
            let id = format!("a.rs::caller_{i:05}");
            nodes.push(node(&id));
            edges.push(Edge {
                source: id,
                target: "a.rs::target".into(),
                relation: Relation::Calls,
                resolution: Tier::Local,
                confidence: Tier::Local.confidence(),
                sites: vec![Site {
                    file: "a.rs".into(),
                    line: 2,
                    column: 1,
                }],
            });
        }
        let g = CodeGraph::build(nodes, edges, Vec::new());
        let kids = neighbours(&g, "a.rs::target", Walk::Callers);
        assert_eq!(kids.len(), many);
        assert_eq!(&*kids[0].0, "a.rs::caller_00000");
        assert!(neighbours(&g, "a.rs::target", Walk::Callees).is_empty());
    }
}
