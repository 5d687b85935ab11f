//! The code graph (`docs/contracts.md#nodes`, `#relations-and-tiers`): nodes (files and definitions) and typed, resolved
//! edges over petgraph, with lookup by id, qualified name, qualified-name suffix and bare
//! name (indexed once when the graph is built, so a lookup is O(log n)), and depth-limited,
//! cycle-safe caller/callee traversal. Serialized canonically: nodes sorted by id, edges by
//! (source, target, relation), so the same input gives byte-identical JSON.
//!
//! This module holds the graph's types and its read access; the rest is in submodules:
//! `build` (the constructors, a fresh sort or a name order given or merged), `names` (the
//! name indexes and their sorts), `nodes` (node chunks, decoded on first use), `unresolved`
//! (the calls without an edge, by caller), `walk` (traversals and edge queries), `serial`
//! (the forms the cache stores) and `lookup` (the rules of SYMBOL arguments).

mod build;
mod fuzzy;
mod lookup;
mod names;
mod nodes;
mod serial;
mod unresolved;
mod walk;

use std::sync::Arc;

use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use serde::{Deserialize, Serialize};

use self::nodes::NodeStore;
use self::unresolved::Unresolveds;
use super::facts::Kind;
use super::project::PackageRoots;

pub use self::names::NameOrder;
pub(crate) use self::unresolved::CallerCalls;
pub use self::unresolved::{UnresolvedMap, UnresolvedSource};

/// Edge relation (`docs/contracts.md#relations-and-tiers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// File or container → member.
    Contains,
    /// Caller → callee.
    Calls,
    /// A function passed or stored as a value.
    References,
    /// File → imported file.
    Imports,
    /// Type → base type.
    Inherits,
    /// Type (or impl block) → implemented interface or trait.
    Implements,
}

impl Relation {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Contains => "contains",
            Relation::Calls => "calls",
            Relation::References => "references",
            Relation::Imports => "imports",
            Relation::Inherits => "inherits",
            Relation::Implements => "implements",
        }
    }
}

/// How an edge's target was found, most certain first (`docs/contracts.md#relations-and-tiers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// A structural fact of the syntax (containment).
    Syntax,
    /// Same scope, file or package.
    Local,
    /// Through an import binding.
    Import,
    /// Through a receiver or path qualifier (`self`/`this` included).
    Qualified,
    /// The only definition of that name in the repo, same language (guarded).
    UniqueName,
}

impl Tier {
    /// Fixed confidence of the tier, in [0, 1]. Chosen so that sorting by confidence
    /// keeps the tier order; `unique_name` is a guess and says so.
    pub fn confidence(self) -> f64 {
        match self {
            Tier::Syntax => 1.0,
            Tier::Local => 0.95,
            Tier::Import => 0.9,
            Tier::Qualified => 0.85,
            Tier::UniqueName => 0.5,
        }
    }
}

/// Why a call produced no edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnresolvedReason {
    /// Several definitions match and nothing narrows them to one.
    Ambiguous,
    /// The name comes from outside the repository (an external import, a library or
    /// builtin name defined nowhere in the repo).
    External,
    /// The qualifier or import points into the repo but the member is not defined there.
    NotFound,
}

impl UnresolvedReason {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            UnresolvedReason::Ambiguous => "ambiguous",
            UnresolvedReason::External => "external",
            UnresolvedReason::NotFound => "not_found",
        }
    }
}

/// A call site (or import line) that produced an edge. Line and column are 1-based; the
/// column counts chars.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Site {
    /// Repo-relative path (shared by every site of a file: a graph of a large repo holds
    /// hundreds of thousands).
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
    /// 1-based char column.
    pub column: u32,
}

/// At most this many exact matches are pinned by [`CodeGraph::pinned_matches`].
pub const MAX_PINNED: usize = 20;

/// A graph node (`docs/contracts.md#nodes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// Node id (`path` or `path::in-file name[#n]`).
    pub id: Arc<str>,
    /// Kind.
    pub kind: Kind,
    /// Own name (the file name for file nodes).
    pub name: Arc<str>,
    /// Language-level full name.
    pub qualified_name: Arc<str>,
    /// Repo-relative path.
    pub file: Arc<str>,
    /// 1-based first line.
    pub start_line: u32,
    /// 1-based last line (inclusive).
    pub end_line: u32,
    /// Registry name of the language.
    pub language: Arc<str>,
}

/// A resolved edge (`docs/contracts.md#relations-and-tiers`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// Source node id.
    pub source: String,
    /// Target node id.
    pub target: String,
    /// Relation.
    pub relation: Relation,
    /// How the target was found.
    pub resolution: Tier,
    /// The tier's fixed confidence.
    pub confidence: f64,
    /// Sites that produced the edge, sorted.
    pub sites: Vec<Site>,
}

/// A call that produced no edge, kept on its caller so answers can say how complete they are.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Unresolved {
    /// Caller node id (shared with the caller's node: copied, the ids of the 550K unresolved
    /// calls on the fetch.sh corpus would take 80 MiB).
    pub caller: Arc<str>,
    /// Callee name as written (shared: an incremental update copies every unaffected
    /// file's unresolved calls, 376K on the fetch.sh Rust tree, into the new graph).
    pub name: Arc<str>,
    /// Receiver or qualifier text, if any (shared, as `name`).
    pub receiver: Option<Arc<str>>,
    /// Call site.
    pub site: Site,
    /// Why no edge was made.
    pub reason: UnresolvedReason,
}

#[derive(Debug, Clone)]
struct EdgeData {
    relation: Relation,
    resolution: Tier,
    /// Position of the file node of the file whose facts produced the edge (see
    /// [`RawEdge::origin`]); fits in what was padding, so it costs no memory.
    origin: u32,
    /// (line, column) of each site; the file is the origin's file.
    sites: Box<[(u32, u32)]>,
}

/// An edge between node indices as the resolver makes it (node index = position in the
/// node list given to [`CodeGraph::from_parts`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawEdge {
    /// Source node position.
    pub source: u32,
    /// Target node position.
    pub target: u32,
    /// Relation.
    pub relation: Relation,
    /// Tier.
    pub resolution: Tier,
    /// Position of the file node of the file whose facts produced the edge. It is the
    /// source's file except for Rust's `impl Trait for Type`, whose `implements` edge
    /// starts at `Type`'s node, possibly in another file. Incremental resolution carries
    /// an edge over, or drops it, with this file, and a full resolution lists edges
    /// grouped by it (file order), so the two give the same list.
    pub origin: u32,
    /// (line, column) of each site, 1-based, in the origin's file; sorted, unique.
    pub sites: Vec<(u32, u32)>,
}

/// One file's nodes: its file node, then its definitions (the engine's order), shared
/// between the graphs that hold the file unchanged: an incremental update carries a file's
/// nodes by sharing its chunk, not by copying 1.16M nodes and their `Arc`s (on the
/// fetch.sh Rust tree making them would be most of an update's graph build, `perf`).
pub type NodeChunk = Arc<[Node]>;

/// Where the chunks of a graph loaded from a cache come from until they are first
/// needed: each chunk is decoded from the cache's bytes on first access (see
/// [`CodeGraph::from_source_ordered`]), so a warm start serves the graph before it has
/// made the 1.17M nodes of a large repo (on the fetch.sh Rust tree, making them is about
/// half of a warm graph load's wall time and most of its heap, `-v` and `/usr/bin/time`).
pub trait ChunkSource: Send + Sync + std::fmt::Debug {
    /// How many chunks there are.
    fn chunk_count(&self) -> usize;
    /// How many nodes chunk `i` holds (`i < chunk_count()`); its first is a file node, the others
    /// are definitions (never file nodes).
    fn nodes_in(&self, i: usize) -> u32;
    /// Chunk `i` (`i < chunk_count()`), exactly [`nodes_in(i)`](Self::nodes_in) nodes. A source
    /// checks its bytes when it is made, so this cannot fail on a cache as written; if the
    /// bytes changed since, it logs the damage and gives placeholder nodes (ids
    /// `<path>::<damaged #n>`) rather than panic.
    fn decode(&self, i: usize) -> NodeChunk;
}

/// The whole-repo graph.
#[derive(Debug, Default, Clone)]
pub struct CodeGraph {
    /// The structure: node `i` of `graph` is node position `i` of `nodes`.
    graph: StableDiGraph<(), EdgeData>,
    nodes: NodeStore,
    /// Every node sorted by id (ids are unique): lookups by id are binary searches. A hash
    /// map would cost about 50 MiB more on the fetch.sh corpus (1.2M nodes) and a warm
    /// start would have to fill it; this is the inverse of `id_rank`, so a cache load gets
    /// it in O(n).
    by_id: Vec<NodeIndex>,
    /// Definitions (no file nodes) sorted by bare name, then id.
    by_name: Vec<NodeIndex>,
    /// Definitions (no file nodes) sorted by qualified name, then id.
    by_qualified: Vec<NodeIndex>,
    /// Position of each node (by `NodeIndex::index`) in id order, so walks can order
    /// neighbours by id with integer comparisons.
    id_rank: Vec<u32>,
    unresolved: Unresolveds,
    /// The folders `go.mod` and `Cargo.toml` files make packages of: only for the lookup
    /// rules that name a definition by Go import path or Cargo package name; not part of
    /// the canonical graph.
    packages: Arc<PackageRoots>,
    /// The distinct names of the definitions, for fuzzy matching (`fuzzy`), made on
    /// first use.
    name_table: std::sync::OnceLock<fuzzy::NameTable>,
}

/// A depth-limited neighbourhood of one node, in the schema of `docs/contracts.md#subgraph1`.
#[derive(Debug, Clone, Serialize)]
pub struct Subgraph {
    /// Always `codegraph-tui/subgraph@1`.
    pub schema: &'static str,
    /// Root node id.
    pub root: String,
    /// `callers`, `callees` or `both`.
    pub direction: String,
    /// Depth limit used.
    pub depth: u32,
    /// Nodes, sorted by id.
    pub nodes: Vec<Node>,
    /// Edges, sorted by (source, target, relation).
    pub edges: Vec<Edge>,
    /// `true` when the depth or the size cap cut the answer.
    pub truncated: bool,
    /// Unresolved references of the callers (for callees) or of all nodes reached (for
    /// callers) whose callee name equals a reached node's name: the answer is a lower bound
    /// by at least this many call sites.
    pub unresolved: usize,
}

/// Schema tag of a [`Subgraph`] (`docs/contracts.md#subgraph1`).
pub const SUBGRAPH_SCHEMA: &str = "codegraph-tui/subgraph@1";

/// Which way to walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Follow edges backwards (who calls this).
    Callers,
    /// Follow edges forwards (what this calls).
    Callees,
    /// Callers and callees of the root: the union of the two walks, not one walk that
    /// turns around (a caller's other callees are not in it).
    Both,
}

impl Walk {
    /// `callers`, `callees` or `both` (the subgraph schema's `direction`).
    pub fn as_str(self) -> &'static str {
        match self {
            Walk::Callers => "callers",
            Walk::Callees => "callees",
            Walk::Both => "both",
        }
    }
}

/// Largest number of nodes a subgraph answer holds before it is cut (`truncated: true`).
pub const MAX_SUBGRAPH_NODES: usize = 5000;

impl CodeGraph {
    /// The `i`-th chunk of nodes (for an engine's graph, file `i`'s: see [`NodeChunk`]).
    pub fn chunk(&self, i: usize) -> Option<&NodeChunk> {
        (i < self.nodes.chunks.len()).then(|| self.nodes.chunk(i))
    }

    /// Every chunk of nodes, in order (for an engine's graph, one per file: see
    /// [`NodeChunk`]); those not decoded yet (see [`ChunkSource`]) are decoded now, on
    /// every thread of the pool.
    pub fn chunks(&self) -> Vec<NodeChunk> {
        self.nodes.all_chunks()
    }

    /// Decodes whatever a graph loaded from a cache has not decoded yet (its node chunks
    /// and its unresolved calls, see [`ChunkSource`]), so later reads do not wait for it:
    /// for a thread in the background while the graph is already being served.
    pub fn decode_all(&self) {
        self.unresolved_map();
        drop(self.nodes.all_chunks());
    }

    /// This graph with `packages` as its package roots (the index sets them from its facts,
    /// a cache load from the manifest; a graph built otherwise has none, and the lookup
    /// rules that need them find nothing).
    pub fn with_packages(mut self, packages: PackageRoots) -> CodeGraph {
        self.packages = Arc::new(packages);
        self
    }

    /// The package roots given by [`with_packages`](Self::with_packages).
    pub fn packages(&self) -> &PackageRoots {
        &self.packages
    }

    /// The nodes of a sorted index whose `key` equals `wanted`, in id order.
    fn equal_range<'a>(
        &'a self,
        sorted: &'a [NodeIndex],
        key: fn(&Node) -> &str,
        wanted: &str,
    ) -> impl Iterator<Item = &'a Node> + 'a {
        let lo = sorted.partition_point(|&ix| key(&self.nodes[ix]) < wanted);
        let len = sorted[lo..].partition_point(|&ix| key(&self.nodes[ix]) == wanted);
        sorted[lo..lo + len].iter().map(|&ix| &self.nodes[ix])
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of definitions (the nodes that are not file nodes), read from the name
    /// index: no node is read.
    pub fn definition_count(&self) -> usize {
        self.by_name.len()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.ix_of(id).map(|ix| &self.nodes[ix])
    }

    /// The index of the node with this id (a binary search over `by_id`).
    fn ix_of(&self, id: &str) -> Option<NodeIndex> {
        self.by_id
            .binary_search_by(|&ix| (*self.nodes[ix].id).cmp(id))
            .ok()
            .map(|i| self.by_id[i])
    }

    /// All nodes, in no particular order.
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter()
    }

    /// All nodes in id order (the name index the graph keeps: no sort).
    pub fn nodes_by_id(&self) -> impl Iterator<Item = &Node> {
        self.by_id.iter().map(|&ix| &self.nodes[ix])
    }

    /// All nodes as a parallel iterator (rayon), in no particular order: for scans of
    /// every node, such as fuzzy name matching over the 1.17M definitions of a large repo.
    pub fn par_nodes(&self) -> impl rayon::iter::ParallelIterator<Item = &Node> {
        use rayon::prelude::*;
        (0..self.nodes.chunks.len())
            .into_par_iter()
            .flat_map_iter(|c| self.nodes.chunk(c).iter())
    }

    /// The definitions a one-word `query` names exactly ([`CodeGraph::lookup`], file nodes
    /// left out), to list above fuzzy matches (the TUI's search box, `symbols`); empty for
    /// an empty or several-word query, or when more than [`MAX_PINNED`] match (a name
    /// such as `new` gains nothing from pinning). Fuzzy ranking alone put
    /// `CodeGraph::walk` 22nd for `walk`, and scores `FlaskTask` and `Flask` alike for
    /// `Flask`.
    pub fn pinned_matches(&self, query: &str) -> Vec<&Node> {
        let q = query.trim();
        if q.is_empty() || q.contains(char::is_whitespace) {
            return Vec::new();
        }
        let found: Vec<&Node> = self
            .lookup(q)
            .into_iter()
            .filter(|n| n.kind != Kind::File)
            .collect();
        if found.len() <= MAX_PINNED {
            found
        } else {
            Vec::new()
        }
    }

    /// The whole graph as canonical JSON (`codegraph-tui/graph@1`): `{schema, nodes,
    /// edges, unresolved}`, sorted, so equal inputs give equal bytes.
    pub fn to_canonical_json(&self) -> serde_json::Value {
        // Id order, which the graph keeps (a sort here would take 0.47 s on 1.17M nodes).
        let nodes: Vec<&Node> = self.nodes_by_id().collect();
        let unresolved: Vec<&Unresolved> = self.all_unresolved().collect();
        serde_json::json!({
            "schema": "codegraph-tui/graph@1",
            "nodes": nodes,
            "edges": self.edges(),
            "unresolved": unresolved,
        })
    }
}
