//! The graph's constructors: from nodes and edges (name indexes sorted), from a saved
//! [`NameOrder`] (a cache load), and from a previous graph whose name indexes are merged
//! (an incremental update). Its own module because every way in ends in the same
//! unindexed graph and differs only in how its name indexes are made.

use std::collections::HashMap;
use std::sync::Arc;

use petgraph::stable_graph::{NodeIndex, StableDiGraph};

use super::names::{name_indexes, ranks};
use super::nodes::{NodeRefs, NodeStore};
use super::{
    CallerCalls, ChunkSource, CodeGraph, Edge, EdgeData, NameOrder, Node, NodeChunk, RawEdge,
    Unresolved, UnresolvedMap,
};
use crate::index::facts::Kind;

impl CodeGraph {
    /// Builds the graph from nodes, edges and unresolved references (ids must be unique;
    /// edges with an unknown endpoint are dropped). An edge's origin is the file node of
    /// its first site's file (a file node's id is its path); without sites, or when that
    /// file has no node, the source itself, so its sites read as in the source's file.
    /// All sites of an edge must be in one file.
    pub fn build(nodes: Vec<Node>, edges: Vec<Edge>, unresolved: Vec<Unresolved>) -> CodeGraph {
        let pos: HashMap<&str, u32> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (&*n.id, i as u32))
            .collect();
        let raw: Vec<RawEdge> = edges
            .iter()
            .filter_map(|e| {
                let source = *pos.get(e.source.as_str())?;
                let file = e
                    .sites
                    .first()
                    .map_or(&*nodes[source as usize].file, |s| &*s.file);
                Some(RawEdge {
                    source,
                    target: *pos.get(e.target.as_str())?,
                    relation: e.relation,
                    resolution: e.resolution,
                    origin: pos.get(file).copied().unwrap_or(source),
                    sites: e.sites.iter().map(|s| (s.line, s.column)).collect(),
                })
            })
            .collect();
        drop(pos);
        CodeGraph::from_parts(nodes, raw, unresolved)
    }

    /// Builds the graph from nodes and index-based edges (the resolver's form).
    pub fn from_parts(
        nodes: Vec<Node>,
        edges: Vec<RawEdge>,
        unresolved: Vec<Unresolved>,
    ) -> CodeGraph {
        CodeGraph::from_node_iter(nodes, edges, unresolved)
    }

    /// [`from_parts`](CodeGraph::from_parts) with nodes from an iterator (kept in chunks
    /// that start at each file node, see [`NodeChunk`]).
    pub fn from_node_iter(
        nodes: impl IntoIterator<Item = Node>,
        edges: Vec<RawEdge>,
        unresolved: Vec<Unresolved>,
    ) -> CodeGraph {
        CodeGraph::from_store(NodeStore::from_nodes(nodes), edges, unresolved)
    }

    /// [`from_parts`](CodeGraph::from_parts) with the nodes given as chunks, in order (the
    /// engine gives one per file; node positions count through them).
    pub fn from_chunks(
        chunks: Vec<NodeChunk>,
        edges: Vec<RawEdge>,
        unresolved: Vec<Unresolved>,
    ) -> CodeGraph {
        CodeGraph::from_store(NodeStore::new(chunks), edges, unresolved)
    }

    fn from_store(nodes: NodeStore, edges: Vec<RawEdge>, unresolved: Vec<Unresolved>) -> CodeGraph {
        let (mut g, ixs) = CodeGraph::unindexed(nodes, edges, unresolved, Vec::new());
        g.index_names(ixs);
        g
    }

    /// The graph of a cache load: nodes decoded from `nodes` when first needed, edges and
    /// name indexes given (as in [`from_parts_ordered`](Self::from_parts_ordered)), no
    /// unresolved calls (see [`with_unresolved_source`](Self::with_unresolved_source)).
    /// Serves the same answers as [`from_chunks_ordered`](Self::from_chunks_ordered) with
    /// the decoded chunks.
    ///
    /// Errors: as `from_parts_ordered`.
    pub fn from_source_ordered(
        nodes: Arc<dyn ChunkSource>,
        edges: Vec<RawEdge>,
        order: NameOrder,
    ) -> Result<CodeGraph, String> {
        CodeGraph::ordered(NodeStore::lazy(nodes), edges, Vec::new(), order)
    }

    /// [`from_parts`](CodeGraph::from_parts) with the name indexes taken from `order`
    /// (saved from a graph with the same nodes) instead of sorted again.
    ///
    /// Errors: `order` does not fit the nodes (a length differs, a position is out of
    /// range or repeated, a file node is listed as a definition); the message says which.
    /// It is not checked that the order is sorted: a cache guards that with its checksum.
    pub fn from_parts_ordered(
        nodes: impl IntoIterator<Item = Node>,
        edges: Vec<RawEdge>,
        unresolved: Vec<Unresolved>,
        order: NameOrder,
    ) -> Result<CodeGraph, String> {
        CodeGraph::ordered(NodeStore::from_nodes(nodes), edges, unresolved, order)
    }

    /// [`from_parts_ordered`](Self::from_parts_ordered) with the nodes given as chunks.
    ///
    /// Errors: as `from_parts_ordered`.
    pub fn from_chunks_ordered(
        chunks: Vec<NodeChunk>,
        edges: Vec<RawEdge>,
        unresolved: Vec<Unresolved>,
        order: NameOrder,
    ) -> Result<CodeGraph, String> {
        CodeGraph::ordered(NodeStore::new(chunks), edges, unresolved, order)
    }

    fn ordered(
        nodes: NodeStore,
        edges: Vec<RawEdge>,
        unresolved: Vec<Unresolved>,
        order: NameOrder,
    ) -> Result<CodeGraph, String> {
        let (mut g, ixs) = CodeGraph::unindexed(nodes, edges, unresolved, Vec::new());
        let n = ixs.len();
        // Read in node order once: a lookup per entry below would be a random access into the
        // chunks for each of 2.3M entries on the Rust tree (`perf`).
        let is_file = g.nodes.file_flags();
        let defs = is_file.iter().filter(|&&f| !f).count();
        let permutation = |v: &[u32], len: usize, what: &str, defs_only: bool| {
            if v.len() != len {
                return Err(format!("{what}: {} entries for {len}", v.len()));
            }
            let mut seen = vec![false; n];
            for &p in v {
                let p = p as usize;
                if p >= n || std::mem::replace(&mut seen[p], true) {
                    return Err(format!("{what}: position {p} out of range or repeated"));
                }
                if defs_only && is_file[p] {
                    return Err(format!("{what}: a file node among definitions"));
                }
            }
            Ok(())
        };
        permutation(&order.id_rank, n, "id ranks", false)?;
        permutation(&order.by_name, defs, "names", true)?;
        permutation(&order.by_qualified, defs, "qualified names", true)?;
        let ix = |v: Vec<u32>| v.into_iter().map(|p| NodeIndex::new(p as usize)).collect();
        let mut by_id = vec![NodeIndex::new(0); order.id_rank.len()];
        for (pos, &rank) in order.id_rank.iter().enumerate() {
            by_id[rank as usize] = NodeIndex::new(pos);
        }
        g.by_id = by_id;
        g.id_rank = order.id_rank;
        g.by_name = ix(order.by_name);
        g.by_qualified = ix(order.by_qualified);
        Ok(g)
    }

    /// [`from_chunks`](CodeGraph::from_chunks) for a new version of `prev`: the name
    /// indexes are `prev`'s with the nodes that were carried over kept in place and the
    /// others merged in, instead of three sorts of every node by string (on a
    /// 1.15M-definition repo the sorts took about 1 s of a one-file update, `-v`). An
    /// unchanged file's chunk is best `prev`'s own ([`chunk`](Self::chunk)), shared.
    ///
    /// `edges` and `unresolved` are a resolution's (edges between positions of the new
    /// node list, calls without an edge); `carried_unresolved` are whole callers' calls
    /// carried over from `prev` (sorted by caller, no caller also in `unresolved`).
    /// `carried[p]` is the position in the new node list of `prev`'s node at position `p`,
    /// or `u32::MAX` when that node is not carried over. A carried node must have the same
    /// id, name and qualified name in both graphs (the caller maps the nodes of a file
    /// whose facts are shared, unchanged, between the two indexes); then the result is the
    /// one `from_node_iter` gives, since every key ends with the unique id.
    pub fn from_chunks_after(
        chunks: Vec<NodeChunk>,
        edges: Vec<RawEdge>,
        unresolved: Vec<Unresolved>,
        carried_unresolved: Vec<(Arc<str>, CallerCalls)>,
        prev: &CodeGraph,
        carried: &[u32],
    ) -> CodeGraph {
        let (mut g, ixs) = CodeGraph::unindexed(
            NodeStore::new(chunks),
            edges,
            unresolved,
            carried_unresolved,
        );
        let n = ixs.len();
        let mut fresh = vec![true; n];
        for &c in carried {
            if let Some(f) = fresh.get_mut(c as usize) {
                *f = false;
            }
        }
        // Few nodes are looked at here (the fresh ones, binary searches): no `NodeRefs`.
        let graph = &g.nodes;
        let fresh: Vec<NodeIndex> = (0..n).filter(|&p| fresh[p]).map(NodeIndex::new).collect();
        let fresh_defs: Vec<NodeIndex> = fresh
            .iter()
            .copied()
            .filter(|&ix| graph[ix].kind != Kind::File)
            .collect();
        // `prev`'s order with the carried nodes renumbered (still sorted: their keys are
        // unchanged) and `add` (sorted) inserted at its binary-searched places.
        let merge = |old: &[NodeIndex], mut add: Vec<NodeIndex>, key: fn(&Node) -> (&str, &str)| {
            add.sort_unstable_by(|&a, &b| key(&graph[a]).cmp(&key(&graph[b])));
            let old: Vec<NodeIndex> = old
                .iter()
                .filter_map(|ix| carried.get(ix.index()))
                .filter(|&&c| (c as usize) < n)
                .map(|&c| NodeIndex::new(c as usize))
                .collect();
            let mut out = Vec::with_capacity(old.len() + add.len());
            let mut at = 0;
            for a in add {
                let k = key(&graph[a]);
                let upto = at + old[at..].partition_point(|&o| key(&graph[o]) < k);
                out.extend_from_slice(&old[at..upto]);
                out.push(a);
                at = upto;
            }
            out.extend_from_slice(&old[at..]);
            out
        };
        let (by_id, (by_name, by_qualified)) = rayon::join(
            || merge(&prev.by_id, fresh, |n| (&n.id, "")),
            || {
                rayon::join(
                    || merge(&prev.by_name, fresh_defs.clone(), |n| (&n.name, &n.id)),
                    || {
                        merge(&prev.by_qualified, fresh_defs.clone(), |n| {
                            (&n.qualified_name, &n.id)
                        })
                    },
                )
            },
        );
        if by_id.len() != n {
            // A carried position repeated: the caller broke the contract. Sort instead.
            debug_assert!(false, "a carried position repeated");
            g.index_names(ixs);
            return g;
        }
        g.id_rank = ranks(&by_id, n);
        g.by_id = by_id;
        g.by_name = by_name;
        g.by_qualified = by_qualified;
        g
    }

    /// The graph without its name indexes, and the node indexes in insertion order.
    fn unindexed(
        nodes: NodeStore,
        edges: Vec<RawEdge>,
        unresolved: Vec<Unresolved>,
        carried: Vec<(Arc<str>, CallerCalls)>,
    ) -> (CodeGraph, Vec<NodeIndex>) {
        let n = nodes.len();
        let mut g = CodeGraph {
            graph: StableDiGraph::with_capacity(n, edges.len()),
            nodes,
            ..CodeGraph::default()
        };
        // The unresolved calls are grouped by caller on another thread meanwhile.
        let (ixs, calls) = rayon::join(
            || {
                (0..n)
                    .map(|_| g.graph.add_node(()))
                    .collect::<Vec<NodeIndex>>()
            },
            || UnresolvedMap::from_calls(unresolved).with_groups(carried),
        );
        for e in edges {
            let (Some(&s), Some(&t)) = (ixs.get(e.source as usize), ixs.get(e.target as usize))
            else {
                continue;
            };
            if e.origin as usize >= ixs.len() {
                continue;
            }
            g.graph.add_edge(
                s,
                t,
                EdgeData {
                    relation: e.relation,
                    resolution: e.resolution,
                    origin: e.origin,
                    sites: e.sites.into_boxed_slice(),
                },
            );
        }
        g.set_unresolved(calls);
        (g, ixs)
    }

    /// Fills the name indexes (`by_id`, `id_rank`, `by_name`, `by_qualified`) from the
    /// nodes `ixs`.
    fn index_names(&mut self, ixs: Vec<NodeIndex>) {
        let (by_id, id_rank, by_name, by_qualified) = name_indexes(&NodeRefs::of(&self.nodes), ixs);
        self.id_rank = id_rank;
        self.by_id = by_id;
        self.by_name = by_name;
        self.by_qualified = by_qualified;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Relation, Tier, Walk};
    use super::*;

    /// A source that records which chunks it was asked to decode.
    #[derive(Debug)]
    struct Counting {
        chunks: Vec<NodeChunk>,
        decoded: std::sync::Mutex<Vec<usize>>,
    }

    impl ChunkSource for Counting {
        fn chunk_count(&self) -> usize {
            self.chunks.len()
        }
        fn nodes_in(&self, i: usize) -> u32 {
            self.chunks[i].len() as u32
        }
        fn decode(&self, i: usize) -> NodeChunk {
            self.decoded.lock().unwrap().push(i);
            self.chunks[i].clone()
        }
    }

    /// A graph whose nodes come from a [`ChunkSource`] decodes only the files its answers
    /// read, each once however many threads ask, and answers exactly as the graph of the
    /// same chunks made at once.
    #[test]
    fn a_lazy_graph_decodes_only_what_it_reads_and_answers_alike() {
        let node = |file: &Arc<str>, name: &str, kind| Node {
            id: if kind == Kind::File {
                file.clone()
            } else {
                format!("{file}::{name}").into()
            },
            kind,
            name: name.into(),
            qualified_name: name.into(),
            file: file.clone(),
            start_line: 1,
            end_line: 3,
            language: "rust".into(),
        };
        // 32 files of one function each; function i calls function i + 1.
        let chunks: Vec<NodeChunk> = (0..32)
            .map(|i| {
                let file: Arc<str> = format!("src/f{i:02}.rs").into();
                vec![
                    node(&file, &format!("f{i:02}.rs"), Kind::File),
                    node(&file, &format!("run{i:02}"), Kind::Function),
                ]
                .into()
            })
            .collect();
        let edge = |source: u32, target: u32, relation, resolution| RawEdge {
            source,
            target,
            relation,
            resolution,
            origin: source - source % 2,
            sites: if relation == Relation::Calls {
                vec![(2, 5)]
            } else {
                Vec::new()
            },
        };
        let mut edges: Vec<RawEdge> = (0..32)
            .map(|i| edge(2 * i, 2 * i + 1, Relation::Contains, Tier::Syntax))
            .collect();
        edges
            .extend((0..31).map(|i| edge(2 * i + 1, 2 * i + 3, Relation::Calls, Tier::UniqueName)));
        let eager = CodeGraph::from_chunks(chunks.clone(), edges.clone(), Vec::new());
        let source = Arc::new(Counting {
            chunks,
            decoded: Default::default(),
        });
        let lazy =
            CodeGraph::from_source_ordered(source.clone(), edges, eager.name_order()).unwrap();
        assert!(
            source.decoded.lock().unwrap().is_empty(),
            "nothing read yet"
        );
        assert_eq!(lazy.definition_count(), 32);

        let callees = |g: &CodeGraph| {
            serde_json::to_value(g.walk("src/f07.rs::run07", Walk::Callees, 2)).unwrap()
        };
        assert_eq!(callees(&lazy), callees(&eager));
        assert!(callees(&eager).to_string().contains("src/f09.rs::run09"));
        let read = source.decoded.lock().unwrap().len();
        assert!(read < 16, "a walk of 3 nodes decoded {read} of 32 files");

        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| lazy.decode_all());
            }
        });
        let mut decoded = source.decoded.lock().unwrap().clone();
        decoded.sort_unstable();
        assert_eq!(
            decoded,
            (0..32).collect::<Vec<_>>(),
            "each file decoded once"
        );
        assert_eq!(lazy.to_canonical_json(), eager.to_canonical_json());
    }
}
