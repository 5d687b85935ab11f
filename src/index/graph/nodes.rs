//! The nodes of a graph: one chunk per file, shared between graphs that hold the file
//! unchanged, each decoded from a [`ChunkSource`] the first time it is read. Its own
//! module because the position table and the lazy decoding are below the graph's API.

use std::sync::Arc;

use petgraph::stable_graph::NodeIndex;

use super::{ChunkSource, Node, NodeChunk};
use crate::index::facts::Kind;

/// The nodes of a graph: chunks (see [`NodeChunk`]) and, per node position, where it is.
/// Indexed by `NodeIndex` like the graph it belongs to. A chunk not yet decoded is
/// decoded from `source` the first time any of its nodes is asked for.
#[derive(Debug, Default, Clone)]
pub(super) struct NodeStore {
    /// Each chunk, decoded, or to be decoded from `source`.
    pub(super) chunks: Vec<std::sync::OnceLock<NodeChunk>>,
    source: Option<Arc<dyn ChunkSource>>,
    /// (chunk, index in it) of each node position.
    at: Vec<(u32, u32)>,
}

impl NodeStore {
    pub(super) fn new(chunks: Vec<NodeChunk>) -> NodeStore {
        let n = chunks.iter().map(|c| c.len()).sum();
        let mut at = Vec::with_capacity(n);
        for (c, chunk) in chunks.iter().enumerate() {
            at.extend((0..chunk.len() as u32).map(|l| (c as u32, l)));
        }
        let chunks = chunks.into_iter().map(std::sync::OnceLock::from).collect();
        NodeStore {
            chunks,
            source: None,
            at,
        }
    }

    /// A store whose chunks are all decoded from `source` when first needed.
    pub(super) fn lazy(source: Arc<dyn ChunkSource>) -> NodeStore {
        let count = source.chunk_count();
        let n: usize = (0..count).map(|c| source.nodes_in(c) as usize).sum();
        let mut at = Vec::with_capacity(n);
        for c in 0..count {
            at.extend((0..source.nodes_in(c)).map(|l| (c as u32, l)));
        }
        NodeStore {
            chunks: vec![std::sync::OnceLock::new(); count],
            source: Some(source),
            at,
        }
    }

    /// Nodes in chunks that start at each file node (the engine's order: a file's nodes
    /// are one chunk); nodes before the first file node make a chunk of their own.
    pub(super) fn from_nodes(nodes: impl IntoIterator<Item = Node>) -> NodeStore {
        let mut chunks: Vec<NodeChunk> = Vec::new();
        let mut run: Vec<Node> = Vec::new();
        for n in nodes {
            if n.kind == Kind::File && !run.is_empty() {
                chunks.push(std::mem::take(&mut run).into());
            }
            run.push(n);
        }
        if !run.is_empty() {
            chunks.push(run.into());
        }
        NodeStore::new(chunks)
    }

    pub(super) fn len(&self) -> usize {
        self.at.len()
    }

    /// Chunk `c`, decoded now if it was not yet.
    pub(super) fn chunk(&self, c: usize) -> &NodeChunk {
        self.chunks[c].get_or_init(|| match &self.source {
            Some(source) => source.decode(c),
            // Every slot of a store without a source is filled when it is made.
            None => Arc::from(Vec::new()),
        })
    }

    /// Every chunk, decoded (in parallel) where it was not yet.
    pub(super) fn all_chunks(&self) -> Vec<NodeChunk> {
        use rayon::prelude::*;
        (0..self.chunks.len())
            .into_par_iter()
            .map(|c| self.chunk(c).clone())
            .collect()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Node> {
        (0..self.chunks.len()).flat_map(|c| self.chunk(c).iter())
    }

    /// Whether each node position holds a file node; from the positions alone (no chunk
    /// decoded) when the chunks come from a source, whose chunks start with their file.
    pub(super) fn file_flags(&self) -> Vec<bool> {
        match self.source {
            Some(_) => self.at.iter().map(|&(_, l)| l == 0).collect(),
            None => self.iter().map(|n| n.kind == Kind::File).collect(),
        }
    }
}

/// Every node of a [`NodeStore`] by position, one pointer each: what the sorts of many
/// nodes index (a store lookup goes through its position table and a chunk; the name
/// sorts of a cold Rust-tree index took 610 ms that way, 530 ms through this, `-v`).
pub(super) struct NodeRefs<'a>(Vec<&'a Node>);

impl<'a> NodeRefs<'a> {
    pub(super) fn of(store: &'a NodeStore) -> NodeRefs<'a> {
        NodeRefs(store.iter().collect())
    }
}

impl std::ops::Index<NodeIndex> for NodeRefs<'_> {
    type Output = Node;
    fn index(&self, ix: NodeIndex) -> &Node {
        self.0[ix.index()]
    }
}

impl std::ops::Index<NodeIndex> for NodeStore {
    type Output = Node;
    fn index(&self, ix: NodeIndex) -> &Node {
        let (c, l) = self.at[ix.index()];
        &self.chunk(c as usize)[l as usize]
    }
}
