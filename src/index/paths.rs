//! Shortest call paths from one symbol to another (`path FROM TO`,
//! `docs/contracts.md#paths1`).
//!
//! A breadth-first walk over `calls` and `references` edges from FROM
//! ([`CodeGraph::walk`] with [`Walk::Callees`]) gives every node's distance; the shortest
//! paths to TO are then read backwards over the edges that go one step closer, in sorted
//! order, so the same graph always gives the same paths. At most `max` paths are listed;
//! `more` says whether others of the same length exist.

use std::collections::{BTreeMap, HashMap, VecDeque};

use serde::Serialize;

use super::graph::{CodeGraph, Relation, Walk};

/// Schema tag of `path --json`.
pub const PATHS_SCHEMA: &str = "codegraph-tui/paths@1";

/// Default depth limit of `path`, in call hops.
pub const DEFAULT_PATH_DEPTH: u32 = 10;

/// Default number of distinct shortest paths listed.
pub const DEFAULT_MAX_PATHS: usize = 5;

/// The answer of `path FROM TO` (`codegraph-tui/paths@1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Paths {
    /// Always [`PATHS_SCHEMA`].
    pub schema: &'static str,
    /// Start node id (the caller end).
    pub from: String,
    /// End node id (the callee end).
    pub to: String,
    /// Depth limit used, in hops.
    pub depth: u32,
    /// Hops of the shortest path; `null` when there is none within `depth`.
    pub length: Option<u32>,
    /// Shortest paths, each the node ids from `from` to `to`, in lexicographic order.
    pub paths: Vec<Vec<String>>,
    /// `true` when more shortest paths exist than are listed.
    pub more: bool,
    /// `true` when the walk's node cap cut the search (a path may exist beyond it).
    pub truncated: bool,
}

/// Up to `max` distinct shortest call paths from `from` to `to` within `depth` hops.
/// `None` when either id is not a node.
pub fn shortest_paths(
    graph: &CodeGraph,
    from: &str,
    to: &str,
    depth: u32,
    max: usize,
) -> Option<Paths> {
    graph.node(to)?;
    let sub = graph.walk(from, Walk::Callees, depth)?;
    let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
    for e in &sub.edges {
        if matches!(e.relation, Relation::Calls | Relation::References) {
            next.entry(e.source.as_str())
                .or_default()
                .push(e.target.as_str());
        }
    }
    let mut dist: BTreeMap<&str, u32> = BTreeMap::from([(from, 0)]);
    let mut queue = VecDeque::from([from]);
    while let Some(id) = queue.pop_front() {
        let d = dist[id];
        for &t in next.get(id).map_or(&[][..], Vec::as_slice) {
            if !dist.contains_key(t) {
                dist.insert(t, d + 1);
                queue.push_back(t);
            }
        }
    }
    let mut answer = Paths {
        schema: PATHS_SCHEMA,
        from: from.to_string(),
        to: to.to_string(),
        depth,
        length: dist.get(to).copied(),
        paths: Vec::new(),
        more: false,
        truncated: false,
    };
    let Some(&len) = dist.get(to) else {
        // Only the node cap, not the depth limit, can hide a path that is within depth.
        answer.truncated = sub.truncated && sub.nodes.len() >= super::graph::MAX_SUBGRAPH_NODES;
        return Some(answer);
    };
    // Predecessors one step closer to `from`, sorted so paths come out in order.
    let mut prev: HashMap<&str, Vec<&str>> = HashMap::new();
    for (&s, ts) in &next {
        for &t in ts {
            if let (Some(&ds), Some(&dt)) = (dist.get(s), dist.get(t)) {
                if ds + 1 == dt {
                    prev.entry(t).or_default().push(s);
                }
            }
        }
    }
    for v in prev.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    // Depth-first from `to` backwards; every branch ends at `from` (distances shrink).
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut stack: Vec<Vec<&str>> = vec![vec![to]];
    while let Some(path) = stack.pop() {
        let head = *path.last().unwrap_or(&to);
        if path.len() as u32 == len + 1 {
            if found.len() == max {
                answer.more = true;
                break;
            }
            found.push(path.iter().rev().map(|s| s.to_string()).collect());
            continue;
        }
        for &p in prev.get(head).map_or(&[][..], Vec::as_slice).iter().rev() {
            let mut q = path.clone();
            q.push(p);
            stack.push(q);
        }
    }
    found.sort();
    answer.paths = found;
    Some(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::facts::Kind;
    use crate::index::graph::{Edge, Node, Tier};

    fn g(edges: &[(&str, &str)]) -> CodeGraph {
        let mut ids: Vec<&str> = edges.iter().flat_map(|(a, b)| [*a, *b]).collect();
        ids.sort();
        ids.dedup();
        let nodes = ids
            .iter()
            .map(|id| Node {
                id: (*id).into(),
                kind: Kind::Function,
                name: (*id).into(),
                qualified_name: (*id).into(),
                file: "f.py".into(),
                start_line: 1,
                end_line: 1,
                language: "python".into(),
            })
            .collect();
        let edges = edges
            .iter()
            .map(|(a, b)| Edge {
                source: a.to_string(),
                target: b.to_string(),
                relation: Relation::Calls,
                resolution: Tier::Local,
                confidence: 0.95,
                sites: vec![],
            })
            .collect();
        CodeGraph::build(nodes, edges, vec![])
    }

    #[test]
    fn lists_every_shortest_path_in_order() {
        let graph = g(&[
            ("a", "b"),
            ("a", "c"),
            ("b", "d"),
            ("c", "d"),
            ("d", "a"),
            ("a", "e"),
            ("e", "f"),
            ("f", "d"),
        ]);
        let p = shortest_paths(&graph, "a", "d", 10, 5).unwrap();
        assert_eq!(p.length, Some(2));
        assert_eq!(p.paths, vec![vec!["a", "b", "d"], vec!["a", "c", "d"]]);
        assert!(!p.more);
        let p = shortest_paths(&graph, "a", "d", 10, 1).unwrap();
        assert_eq!(p.paths, vec![vec!["a", "b", "d"]]);
        assert!(p.more);
    }

    #[test]
    fn no_path_within_depth() {
        let graph = g(&[("a", "b"), ("b", "c"), ("c", "d")]);
        let p = shortest_paths(&graph, "a", "d", 2, 5).unwrap();
        assert_eq!(p.length, None);
        assert!(p.paths.is_empty());
        assert_eq!(
            shortest_paths(&graph, "a", "d", 3, 5).unwrap().length,
            Some(3)
        );
        assert_eq!(shortest_paths(&graph, "d", "a", 9, 5).unwrap().length, None);
        let same = shortest_paths(&graph, "b", "b", 3, 5).unwrap();
        assert_eq!(same.paths, vec![vec!["b"]]);
        assert!(shortest_paths(&graph, "a", "zz", 3, 5).is_none());
    }
}
