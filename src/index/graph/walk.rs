//! Traversals of the graph: depth-limited, cycle-safe walks to callers and callees, the
//! edges of one node, its container, and every edge in canonical order. Its own module
//! because the walks are the graph's answers, apart from how it is built or stored.

use std::collections::{BTreeMap, HashSet, VecDeque};

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use super::Kind;
use super::{
    CodeGraph, Edge, Node, Relation, Site, Subgraph, Walk, MAX_SUBGRAPH_NODES, SUBGRAPH_SCHEMA,
};

impl CodeGraph {
    fn edge_out(&self, ix: petgraph::stable_graph::EdgeIndex) -> Edge {
        let (s, t) = self.graph.edge_endpoints(ix).expect("edge exists");
        let d = &self.graph[ix];
        let site_file = &self.nodes[NodeIndex::new(d.origin as usize)].file;
        Edge {
            source: self.nodes[s].id.to_string(),
            target: self.nodes[t].id.to_string(),
            relation: d.relation,
            resolution: d.resolution,
            confidence: d.resolution.confidence(),
            sites: d
                .sites
                .iter()
                .map(|&(line, column)| Site {
                    file: site_file.clone(),
                    line,
                    column,
                })
                .collect(),
        }
    }

    /// Breadth-first walk over `calls` and `references` edges from `root`, up to `depth`
    /// hops (cycle-safe: each node is visited once). `None` when `root` is not a node id.
    pub fn walk(&self, root: &str, walk: Walk, depth: u32) -> Option<Subgraph> {
        if walk == Walk::Both {
            let (up, down) = (
                self.walk(root, Walk::Callers, depth)?,
                self.walk(root, Walk::Callees, depth)?,
            );
            let mut nodes = up.nodes;
            nodes.extend(down.nodes);
            nodes.sort_by(|a, b| a.id.cmp(&b.id));
            nodes.dedup_by(|a, b| a.id == b.id);
            let mut edges = up.edges;
            edges.extend(down.edges);
            fn key(e: &Edge) -> (&str, &str, Relation) {
                (&e.source, &e.target, e.relation)
            }
            edges.sort_by(|a, b| key(a).cmp(&key(b)));
            edges.dedup_by(|a, b| key(a) == key(b));
            return Some(Subgraph {
                direction: walk.as_str().to_string(),
                nodes,
                edges,
                truncated: up.truncated || down.truncated,
                unresolved: up.unresolved + down.unresolved,
                ..up
            });
        }
        let start = self.ix_of(root)?;
        let mut seen: HashSet<NodeIndex> = HashSet::from([start]);
        let mut edges: HashSet<petgraph::stable_graph::EdgeIndex> = HashSet::new();
        let mut queue = VecDeque::from([(start, 0u32)]);
        let mut truncated = false;
        // Nodes whose neighbours were followed (depth below the limit): only their
        // unresolved calls could add to this answer.
        let mut expanded: Vec<NodeIndex> = Vec::new();
        let dirs: &[Direction] = match walk {
            Walk::Callers => &[Direction::Incoming],
            Walk::Callees => &[Direction::Outgoing],
            Walk::Both => &[Direction::Incoming, Direction::Outgoing],
        };
        while let Some((ix, d)) = queue.pop_front() {
            if d < depth {
                expanded.push(ix);
            }
            for &dir in dirs {
                for e in self.graph.edges_directed(ix, dir) {
                    if !matches!(e.weight().relation, Relation::Calls | Relation::References) {
                        continue;
                    }
                    let other = if dir == Direction::Incoming {
                        e.source()
                    } else {
                        e.target()
                    };
                    if d >= depth {
                        if !seen.contains(&other) {
                            truncated = true;
                        }
                        continue;
                    }
                    edges.insert(e.id());
                    if seen.insert(other) {
                        if seen.len() > MAX_SUBGRAPH_NODES {
                            truncated = true;
                            seen.remove(&other);
                            edges.remove(&e.id());
                            continue;
                        }
                        queue.push_back((other, d + 1));
                    }
                }
            }
        }
        let mut nodes: Vec<Node> = seen.iter().map(|&ix| self.nodes[ix].clone()).collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let mut edges: Vec<Edge> = edges.into_iter().map(|e| self.edge_out(e)).collect();
        edges.sort_by(|a, b| {
            (&a.source, &a.target, a.relation).cmp(&(&b.source, &b.target, b.relation))
        });
        // Every expanded node is in `seen` (only nodes over the cap are dropped, and those
        // were never queued).
        let expanded: Vec<&Node> = expanded.into_iter().map(|ix| &self.nodes[ix]).collect();
        let unresolved = self.count_unresolved(&expanded, walk);
        Some(Subgraph {
            schema: SUBGRAPH_SCHEMA,
            root: root.to_string(),
            direction: walk.as_str().to_string(),
            depth,
            nodes,
            edges,
            truncated,
            unresolved,
        })
    }

    /// Unresolved references that could add to a walk's answer, over `nodes`, the nodes
    /// whose neighbours the walk followed (those at the depth limit are left out: what
    /// they would add lies beyond it). For callees, the unresolved calls those nodes make;
    /// for callers, unresolved calls anywhere whose name is one of theirs and that are not
    /// `external` (each might be a missing caller).
    fn count_unresolved(&self, nodes: &[&Node], walk: Walk) -> usize {
        let mut n = 0;
        if matches!(walk, Walk::Callees | Walk::Both) {
            n += nodes
                .iter()
                .map(|x| self.unresolved_of(&x.id).len())
                .sum::<usize>();
        }
        if matches!(walk, Walk::Callers | Walk::Both) {
            let names: HashSet<&str> = nodes
                .iter()
                .filter(|x| x.kind != Kind::File)
                .map(|x| &*x.name)
                .collect();
            n += names
                .iter()
                .map(|name| self.maybe_callers_named(name).count())
                .sum::<usize>();
        }
        n
    }

    /// The edges of the given relations that end at `id` (`Walk::Callers`: incoming),
    /// start at it (`Walk::Callees`: outgoing) or touch it (`Walk::Both`), in canonical
    /// order. Empty when `id` is not a node. Cost: the node's degree, not the graph's size;
    /// only matching edges are copied out.
    pub fn edges_of(&self, id: &str, walk: Walk, relations: &[Relation]) -> Vec<Edge> {
        let Some(ix) = self.ix_of(id) else {
            return Vec::new();
        };
        let dirs: &[Direction] = match walk {
            Walk::Callers => &[Direction::Incoming],
            Walk::Callees => &[Direction::Outgoing],
            Walk::Both => &[Direction::Incoming, Direction::Outgoing],
        };
        let mut v: Vec<Edge> = dirs
            .iter()
            .flat_map(|&d| self.graph.edges_directed(ix, d))
            .filter(|e| relations.contains(&e.weight().relation))
            .map(|e| e.id())
            .collect::<HashSet<_>>()
            .into_iter()
            .map(|e| self.edge_out(e))
            .collect();
        v.sort_by(|a, b| {
            (&a.source, &a.target, a.relation).cmp(&(&b.source, &b.target, b.relation))
        });
        v
    }

    /// How many distinct nodes reach `id` (`Walk::Callers`) or are reached from it
    /// (`Walk::Callees`; `Walk::Both`: either) over edges of the given relations, without
    /// materialising edges: the counts of an outline row. 0 when `id` is not a node.
    pub fn neighbour_count(&self, id: &str, walk: Walk, relations: &[Relation]) -> usize {
        let Some(ix) = self.ix_of(id) else {
            return 0;
        };
        let dirs: &[Direction] = match walk {
            Walk::Callers => &[Direction::Incoming],
            Walk::Callees => &[Direction::Outgoing],
            Walk::Both => &[Direction::Incoming, Direction::Outgoing],
        };
        let mut others: Vec<NodeIndex> = dirs
            .iter()
            .flat_map(|&d| self.graph.edges_directed(ix, d))
            .filter(|e| relations.contains(&e.weight().relation))
            .map(|e| {
                if e.source() == ix {
                    e.target()
                } else {
                    e.source()
                }
            })
            .collect();
        others.sort_unstable();
        others.dedup();
        others.len()
    }

    /// The definition or file that contains `id` (its incoming `contains` edge), without
    /// materialising edges. `None` for a file node or an unknown id.
    pub fn container(&self, id: &str) -> Option<&Node> {
        let ix = self.ix_of(id)?;
        self.graph
            .edges_directed(ix, Direction::Incoming)
            .filter(|e| e.weight().relation == Relation::Contains)
            .map(|e| &self.nodes[e.source()])
            .min_by(|a, b| a.id.cmp(&b.id))
    }

    /// Callers of `root` breadth-first over incoming edges whose relation is in
    /// `relations`, up to `depth` hops: each node once, at its shortest distance
    /// (cycle-safe), the callers of one node taken in id order. No node is added once
    /// `cap` nodes (the root included) were reached. Returns the reached nodes with their
    /// distances (1-based hops) in visit order, and `truncated`: a node at the depth limit
    /// has unvisited callers, or the cap cut the walk. `None` when `root` is not a node id.
    /// Works on node indices (no edge is materialised), so the cost is the edges touched.
    pub fn callers_within(
        &self,
        root: &str,
        depth: u32,
        relations: &[Relation],
        cap: usize,
    ) -> Option<(Vec<(&Node, u32)>, bool)> {
        let start = self.ix_of(root)?;
        let mut seen: HashSet<NodeIndex> = HashSet::from([start]);
        let mut out = Vec::new();
        let mut queue = VecDeque::from([(start, 0u32)]);
        let mut truncated = false;
        let mut sources: Vec<NodeIndex> = Vec::new();
        while let Some((ix, d)) = queue.pop_front() {
            sources.clear();
            sources.extend(
                self.graph
                    .edges_directed(ix, Direction::Incoming)
                    .filter(|e| relations.contains(&e.weight().relation))
                    .map(|e| e.source()),
            );
            if d >= depth {
                truncated |= sources.iter().any(|s| !seen.contains(s));
                continue;
            }
            sources.sort_unstable_by_key(|&s| self.id_rank[s.index()]);
            sources.dedup();
            for &s in &sources {
                if seen.contains(&s) {
                    continue;
                }
                if seen.len() >= cap {
                    truncated = true;
                    continue;
                }
                seen.insert(s);
                out.push((&self.nodes[s], d + 1));
                queue.push_back((s, d + 1));
            }
        }
        Some((out, truncated))
    }

    /// Every edge, canonical order.
    pub fn edges(&self) -> Vec<Edge> {
        let mut v: Vec<Edge> = self
            .graph
            .edge_indices()
            .map(|e| self.edge_out(e))
            .collect();
        v.sort_by(|a, b| {
            (&a.source, &a.target, a.relation).cmp(&(&b.source, &b.target, b.relation))
        });
        v
    }

    /// Edge counts by relation name.
    pub fn edge_counts(&self) -> BTreeMap<String, u64> {
        // Tallied per relation first: a string key per edge (1.3M on the Rust tree) would
        // be most of an update's stats.
        let mut tally: Vec<(Relation, u64)> = Vec::new();
        for e in self.graph.edge_weights() {
            match tally.iter_mut().find(|(r, _)| *r == e.relation) {
                Some((_, n)) => *n += 1,
                None => tally.push((e.relation, 1)),
            }
        }
        tally
            .into_iter()
            .map(|(r, n)| (r.as_str().to_string(), n))
            .collect()
    }
}
