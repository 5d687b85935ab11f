//! The code graph (DESIGN section 4): nodes (files and definitions) and typed, resolved
//! edges over petgraph, with lookup by id, qualified name, qualified-name suffix and bare
//! name (indexed once when the graph is built, so a lookup is O(log n)), and depth-limited,
//! cycle-safe caller/callee traversal. Serialized canonically: nodes sorted by id, edges by
//! (source, target, relation), so the same input gives byte-identical JSON. The lookup
//! rules of SYMBOL arguments are in `graph/lookup.rs`.

mod lookup;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use serde::{Deserialize, Serialize};

use super::facts::Kind;
use super::project::PackageRoots;
use super::resolve::Resolution;

/// Edge relation (DESIGN section 4).
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

/// How an edge's target was found, most certain first (DESIGN section 4).
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

/// A graph node (DESIGN section 4).
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

/// A resolved edge (DESIGN section 4).
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
    /// Caller node id (shared with the caller's node: 550K unresolved calls on the fetch.sh
    /// corpus held 80 MiB of copied ids).
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

/// A graph's name indexes as node positions (insertion order, as in [`RawEdge`]), so a
/// cache can store them and a load skips the three sorts of every node by string (on a
/// 1.15M-definition repo those sorts were about 40% of a warm start's CPU, `perf`).
/// Built by [`CodeGraph::name_order`], given back to [`CodeGraph::from_parts_ordered`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameOrder {
    /// For each node position, its rank in id order.
    pub id_rank: Vec<u32>,
    /// Definition positions (no file nodes) sorted by bare name, then id.
    pub by_name: Vec<u32>,
    /// Definition positions (no file nodes) sorted by qualified name, then id.
    pub by_qualified: Vec<u32>,
}

/// Unresolved calls grouped by caller, as [`CodeGraph`] keeps them; made apart from the
/// graph so a cache load can group them while the graph is built.
#[derive(Debug, Default)]
pub struct UnresolvedMap(BTreeMap<Arc<str>, CallerCalls>);

/// One caller's unresolved calls, shared: an incremental update carries an unaffected
/// caller's calls into the new graph by reference (376K calls of 95K callers on the
/// fetch.sh Rust tree were copied one by one).
pub(crate) type CallerCalls = Arc<[Unresolved]>;

impl UnresolvedMap {
    /// Groups `calls` by caller, keeping their order within a caller.
    pub(crate) fn from_calls(calls: Vec<Unresolved>) -> UnresolvedMap {
        let mut map: BTreeMap<Arc<str>, Vec<Unresolved>> = BTreeMap::new();
        if calls.is_sorted_by(|a, b| a.caller <= b.caller) {
            // The usual case (a resolution's list and a cache's are sorted by caller): the
            // map is built in bulk from the runs of one caller, not by 550K inserts of
            // string keys (about 90 ms of a one-file update on the Rust tree, `-v`).
            // Each run is moved once, into its shared slice (an exact-size collect), not
            // pushed into a growing list first and copied from it.
            let mut lens: Vec<(Arc<str>, usize)> = Vec::new();
            for u in &calls {
                match lens.last_mut() {
                    Some((caller, n)) if *caller == u.caller => *n += 1,
                    _ => lens.push((u.caller.clone(), 1)),
                }
            }
            let mut calls = calls.into_iter();
            return UnresolvedMap(
                lens.into_iter()
                    .map(|(c, n)| (c, calls.by_ref().take(n).collect()))
                    .collect(),
            );
        }
        for u in calls {
            // Look up before inserting: `entry` would copy the caller id for every call.
            match map.get_mut(&*u.caller) {
                Some(v) => v.push(u),
                None => {
                    map.insert(u.caller.clone(), vec![u]);
                }
            }
        }
        UnresolvedMap(map.into_iter().map(|(c, v)| (c, v.into())).collect())
    }

    /// Whole callers' `groups`, sorted by caller, each caller once.
    pub(crate) fn from_groups(groups: Vec<(Arc<str>, CallerCalls)>) -> UnresolvedMap {
        debug_assert!(
            groups.windows(2).all(|w| w[0].0 < w[1].0),
            "groups out of order"
        );
        UnresolvedMap(groups.into_iter().collect())
    }

    /// These calls and whole callers' `groups` (sorted by caller; no caller in both).
    pub(crate) fn with_groups(self, groups: Vec<(Arc<str>, CallerCalls)>) -> UnresolvedMap {
        if groups.is_empty() {
            return self;
        }
        let mut all: Vec<(Arc<str>, CallerCalls)> = self.0.into_iter().chain(groups).collect();
        // Two sorted runs: one merge. Then a bulk build from sorted pairs.
        all.sort_by(|a, b| a.0.cmp(&b.0));
        debug_assert!(all.windows(2).all(|w| w[0].0 != w[1].0), "a caller in both");
        UnresolvedMap(all.into_iter().collect())
    }
}

/// One file's nodes: its file node, then its definitions (the engine's order), shared
/// between the graphs that hold the file unchanged: an incremental update carries a file's
/// nodes by sharing its chunk, not by copying 1.16M nodes and their `Arc`s (on the
/// fetch.sh Rust tree making them was most of an update's graph build, `perf`).
pub type NodeChunk = Arc<[Node]>;

/// Where the chunks of a graph loaded from a cache come from until they are first
/// needed: each chunk is decoded from the cache's bytes on first access (see
/// [`CodeGraph::from_source_ordered`]), so a warm start serves the graph before it has
/// made the 1.17M nodes of a large repo (on the fetch.sh Rust tree, making them was about
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

/// The undecoded unresolved calls of a graph loaded from a cache, grouped on first use
/// (see [`ChunkSource`]): a walk or a look-up that never asks for them does not pay for
/// the 550K calls of a large repo.
pub trait UnresolvedSource: Send + Sync + std::fmt::Debug {
    /// The calls grouped by caller.
    fn group(&self) -> UnresolvedMap;
}

/// The nodes of a graph: chunks (see [`NodeChunk`]) and, per node position, where it is.
/// Indexed by `NodeIndex` like the graph it belongs to. A chunk not yet decoded is
/// decoded from `source` the first time any of its nodes is asked for.
#[derive(Debug, Default, Clone)]
struct NodeStore {
    /// Each chunk, decoded, or to be decoded from `source`.
    chunks: Vec<std::sync::OnceLock<NodeChunk>>,
    source: Option<Arc<dyn ChunkSource>>,
    /// (chunk, index in it) of each node position.
    at: Vec<(u32, u32)>,
}

impl NodeStore {
    fn new(chunks: Vec<NodeChunk>) -> NodeStore {
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
    fn lazy(source: Arc<dyn ChunkSource>) -> NodeStore {
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
    fn from_nodes(nodes: impl IntoIterator<Item = Node>) -> NodeStore {
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

    fn len(&self) -> usize {
        self.at.len()
    }

    /// Chunk `c`, decoded now if it was not yet.
    fn chunk(&self, c: usize) -> &NodeChunk {
        self.chunks[c].get_or_init(|| match &self.source {
            Some(source) => source.decode(c),
            // Every slot of a store without a source is filled when it is made.
            None => Arc::from(Vec::new()),
        })
    }

    /// Every chunk, decoded (in parallel) where it was not yet.
    fn all_chunks(&self) -> Vec<NodeChunk> {
        use rayon::prelude::*;
        (0..self.chunks.len())
            .into_par_iter()
            .map(|c| self.chunk(c).clone())
            .collect()
    }

    fn iter(&self) -> impl Iterator<Item = &Node> {
        (0..self.chunks.len()).flat_map(|c| self.chunk(c).iter())
    }

    /// Whether each node position holds a file node; from the positions alone (no chunk
    /// decoded) when the chunks come from a source, whose chunks start with their file.
    fn file_flags(&self) -> Vec<bool> {
        match self.source {
            Some(_) => self.at.iter().map(|&(_, l)| l == 0).collect(),
            None => self.iter().map(|n| n.kind == Kind::File).collect(),
        }
    }
}

/// Every node of a [`NodeStore`] by position, one pointer each: what the sorts of many
/// nodes index (a store lookup goes through its position table and a chunk; the name
/// sorts of a cold Rust-tree index took 610 ms that way, 530 ms through this, `-v`).
struct NodeRefs<'a>(Vec<&'a Node>);

impl<'a> NodeRefs<'a> {
    fn of(store: &'a NodeStore) -> NodeRefs<'a> {
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

/// The whole-repo graph.
#[derive(Debug, Default, Clone)]
pub struct CodeGraph {
    /// The structure: node `i` of `graph` is node position `i` of `nodes`.
    graph: StableDiGraph<(), EdgeData>,
    nodes: NodeStore,
    /// Every node sorted by id (ids are unique): lookups by id are binary searches. A hash
    /// map cost about 50 MiB more on the fetch.sh corpus (1.2M nodes) and a warm start
    /// had to fill it; this is the inverse of `id_rank`, so a cache load gets it in O(n).
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
}

/// A graph's unresolved calls by caller: grouped, or to be grouped from `source` on first
/// use (see [`UnresolvedSource`]).
#[derive(Debug, Default, Clone)]
struct Unresolveds {
    grouped: std::sync::OnceLock<BTreeMap<Arc<str>, CallerCalls>>,
    source: Option<Arc<dyn UnresolvedSource>>,
}

/// Bytes `at..at + 8` of `s`, big-endian, zero-padded past its end. For two strings whose
/// padded bytes before `at` are equal, a smaller window means a smaller string, so a sort
/// compares these integers first and the strings only on a tie.
fn window8(s: &str, at: usize) -> u64 {
    let rest = s.as_bytes().get(at..).unwrap_or_default();
    if let Some(w) = rest.first_chunk::<8>() {
        // Most windows are whole: one load, not a variable-length copy (a `memcpy` call
        // was 1% of a Rust-tree index).
        return u64::from_be_bytes(*w);
    }
    let mut b = [0u8; 8];
    b[..rest.len()].copy_from_slice(rest);
    u64::from_be_bytes(b)
}

/// `ixs` sorted by (`key`, id), the id standing as its rank in id order (`id_rank`, by
/// `NodeIndex::index`), so ties on the key are broken by integer comparison, not by
/// comparing ids that share their whole path. A most-significant-digit radix sort with
/// 8-byte digits of the key, each digit beside its node, so most comparisons touch neither
/// the node nor its strings (the two name sorts of a 1.16M-definition repo took 700 ms
/// comparing strings through the graph, `-v`; qualified names share long module prefixes,
/// and 2% of a Rust-tree index went to comparing the ids of same-named definitions). Runs
/// still tied after [`RADIX_LEVELS`] digits are sorted by the whole key; runs whose keys
/// all end within the digits are equal and sorted by rank alone.
fn sorted_by_key(
    graph: &NodeRefs<'_>,
    ixs: &[NodeIndex],
    id_rank: &[u32],
    key: fn(&Node) -> &str,
) -> Vec<NodeIndex> {
    use rayon::prelude::*;
    let mut keyed: Vec<(u64, u32, NodeIndex)> = ixs
        .par_iter()
        .map(|&ix| (window8(key(&graph[ix]), 0), id_rank[ix.index()], ix))
        .collect();
    keyed.par_sort_unstable_by_key(|e| e.0);
    keyed
        .par_chunk_by_mut(|a, b| a.0 == b.0)
        .for_each(|run| sort_tied(graph, run, key, 8, RADIX_LEVELS - 1));
    keyed.into_iter().map(|(_, _, ix)| ix).collect()
}

/// 8-byte digits [`sorted_by_key`] looks at before it compares whole keys.
const RADIX_LEVELS: usize = 6;

/// Orders `run` (digit, id rank, node), whose keys agree on every digit before byte `at`
/// (padded).
fn sort_tied(
    graph: &NodeRefs<'_>,
    run: &mut [(u64, u32, NodeIndex)],
    key: fn(&Node) -> &str,
    at: usize,
    levels: usize,
) {
    if run.len() < 2 {
        return;
    }
    if run.iter().all(|e| key(&graph[e.2]).len() <= at) {
        // Equal padded prefixes and no byte beyond them: equal keys (padding is zeros,
        // but a key's own NUL bytes count, so compare lengths too).
        run.sort_unstable_by_key(|e| (key(&graph[e.2]).len(), e.1));
        return;
    }
    if levels == 0 {
        run.sort_unstable_by(|a, b| (key(&graph[a.2]), a.1).cmp(&(key(&graph[b.2]), b.1)));
        return;
    }
    for e in run.iter_mut() {
        e.0 = window8(key(&graph[e.2]), at);
    }
    run.sort_unstable_by_key(|e| e.0);
    for tied in run.chunk_by_mut(|a, b| a.0 == b.0) {
        sort_tied(graph, tied, key, at + 8, levels - 1);
    }
}

/// The name indexes of nodes `ixs` of `graph`: (by id, each node's rank in it, definitions
/// by name, definitions by qualified name); see [`NameOrder`].
fn name_indexes(
    graph: &NodeRefs<'_>,
    mut ixs: Vec<NodeIndex>,
) -> (Vec<NodeIndex>, Vec<u32>, Vec<NodeIndex>, Vec<NodeIndex>) {
    let by_id = sorted_by_id(graph, &ixs);
    let bound = ixs.iter().map(|i| i.index() + 1).max().unwrap_or(0);
    let id_rank = ranks(&by_id, bound);
    ixs.retain(|&ix| graph[ix].kind != Kind::File);
    let (by_name, by_qualified) = rayon::join(
        || sorted_by_key(graph, &ixs, &id_rank, |n| &n.name),
        || sorted_by_key(graph, &ixs, &id_rank, |n| &n.qualified_name),
    );
    debug_assert!(
        by_name.is_sorted_by_key(|&ix| (&graph[ix].name, &graph[ix].id))
            && by_qualified.is_sorted_by_key(|&ix| (&graph[ix].qualified_name, &graph[ix].id))
            && by_id.is_sorted_by_key(|&ix| &graph[ix].id),
        "a name index is out of order"
    );
    (by_id, id_rank, by_name, by_qualified)
}

impl NameOrder {
    /// The name indexes that [`CodeGraph::from_chunks`] would make for these nodes, made
    /// from the nodes alone: a full index sorts them while resolution runs, then builds
    /// the graph with [`CodeGraph::from_chunks_ordered`].
    pub fn of_chunks(chunks: &[NodeChunk]) -> NameOrder {
        let store = NodeStore::new(chunks.to_vec());
        let ixs = (0..store.len()).map(NodeIndex::new).collect();
        let (_, id_rank, by_name, by_qualified) = name_indexes(&NodeRefs::of(&store), ixs);
        let pos = |v: Vec<NodeIndex>| v.into_iter().map(|ix| ix.index() as u32).collect();
        NameOrder {
            id_rank,
            by_name: pos(by_name),
            by_qualified: pos(by_qualified),
        }
    }
}

/// For each node (by `NodeIndex::index`, below `bound`), its position in `by_id`.
fn ranks(by_id: &[NodeIndex], bound: usize) -> Vec<u32> {
    let mut rank = vec![0u32; bound];
    for (r, ix) in by_id.iter().enumerate() {
        rank[ix.index()] = r as u32;
    }
    rank
}

/// `ixs` sorted by id. Ids share long prefixes (the path), so [`sorted_by_key`]'s prefixes
/// would not help; but an engine's nodes come file by file, in path order, each file node
/// (id: the path) first and its definitions (`path::name`) after it. Sorting each file's
/// run leaves the whole sorted, unless a path followed by a char below `:` is another
/// path (`a.rs` and `a.rs.bak`), which a check finds and a full sort then fixes.
fn sorted_by_id(graph: &NodeRefs<'_>, ixs: &[NodeIndex]) -> Vec<NodeIndex> {
    use rayon::prelude::*;
    let by_id = |a: &NodeIndex, b: &NodeIndex| graph[*a].id.cmp(&graph[*b].id);
    let mut v = ixs.to_vec();
    v.par_chunk_by_mut(|_, b| graph[*b].kind != Kind::File)
        .for_each(|run| run.sort_unstable_by(by_id));
    if !v.is_sorted_by(|a, b| by_id(a, b).is_le()) {
        v.par_sort_unstable_by(by_id);
    }
    v
}

/// A depth-limited neighbourhood of one node, in the subgraph schema of DESIGN section 5.
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

/// Schema tag of a [`Subgraph`] (DESIGN section 5).
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

    /// This graph with its unresolved calls grouped from `source` when first needed,
    /// instead of those it had.
    pub fn with_unresolved_source(mut self, source: Arc<dyn UnresolvedSource>) -> CodeGraph {
        self.unresolved = Unresolveds {
            grouped: std::sync::OnceLock::new(),
            source: Some(source),
        };
        self
    }

    /// The unresolved calls by caller, grouped now if they were not yet.
    fn unresolved_map(&self) -> &BTreeMap<Arc<str>, CallerCalls> {
        self.unresolved
            .grouped
            .get_or_init(|| match &self.unresolved.source {
                Some(source) => source.group().0,
                None => BTreeMap::new(),
            })
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
        // Read in node order once: a lookup per entry below was a random access into the
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
    /// The edges and unresolved calls are `resolution`'s (its carried caller groups
    /// included). `carried[p]` is the position in the new node list of `prev`'s node at position `p`,
    /// or `u32::MAX` when that node is not carried over. A carried node must have the same
    /// id, name and qualified name in both graphs (the caller maps the nodes of a file
    /// whose facts are shared, unchanged, between the two indexes); then the result is the
    /// one `from_node_iter` gives, since every key ends with the unique id.
    pub fn from_chunks_after(
        chunks: Vec<NodeChunk>,
        resolution: Resolution,
        prev: &CodeGraph,
        carried: &[u32],
    ) -> CodeGraph {
        let Resolution {
            edges,
            unresolved,
            carried_unresolved,
            ..
        } = resolution;
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

    /// The name indexes as node positions, for [`from_parts_ordered`](Self::from_parts_ordered).
    pub fn name_order(&self) -> NameOrder {
        let pos = |v: &[NodeIndex]| v.iter().map(|ix| ix.index() as u32).collect();
        NameOrder {
            id_rank: self.id_rank.clone(),
            by_name: pos(&self.by_name),
            by_qualified: pos(&self.by_qualified),
        }
    }

    /// The name indexes of [`name_order`](Self::name_order), serialized as a [`NameOrder`]
    /// would be but read in place: a cache save copies no index (3 × 1.2M positions on the
    /// fetch.sh corpus).
    pub fn name_order_ser(&self) -> impl Serialize + '_ {
        NameOrderSer(self)
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

    /// Replaces the unresolved calls with `m` (each caller a node of the graph).
    pub(crate) fn set_unresolved(&mut self, m: UnresolvedMap) {
        self.unresolved = Unresolveds {
            grouped: std::sync::OnceLock::from(m.0),
            source: None,
        };
    }

    /// The edges and unresolved calls back in [`from_parts`](CodeGraph::from_parts) form:
    /// edges between node positions (insertion order; the graph never removes nodes), in
    /// insertion order, and the unresolved calls grouped by caller. `from_parts` with the
    /// same node list rebuilds an identical graph; the on-disk cache stores this.
    pub fn to_raw_parts(&self) -> (Vec<RawEdge>, Vec<Unresolved>) {
        let unresolved = self.all_unresolved().cloned().collect();
        (self.raw_edges(), unresolved)
    }

    /// The edges of [`to_raw_parts`](CodeGraph::to_raw_parts), serialized as a
    /// `Vec<RawEdge>` would be but read in place: a cache save of a large graph then
    /// copies no edge (1.44M edges on the fetch.sh corpus).
    pub fn raw_edges_ser(&self) -> impl Serialize + '_ {
        RawEdgesSer(self)
    }

    /// The node position (see [`RawEdge`]) and file of the node with this id.
    pub fn position_of(&self, id: &str) -> Option<(u32, &str)> {
        let ix = self.ix_of(id)?;
        Some((ix.index() as u32, &*self.nodes[ix].file))
    }

    /// The edges of [`to_raw_parts`](CodeGraph::to_raw_parts) alone.
    pub fn raw_edges(&self) -> Vec<RawEdge> {
        self.edge_refs()
            .map(|e| RawEdge {
                source: e.source,
                target: e.target,
                relation: e.relation,
                resolution: e.resolution,
                origin: e.origin,
                sites: e.sites.to_vec(),
            })
            .collect()
    }

    /// Every edge between node positions, in insertion order, its sites borrowed.
    pub(crate) fn edge_refs(&self) -> impl Iterator<Item = RawEdgeRef<'_>> {
        self.graph.edge_indices().filter_map(|e| {
            let (s, t) = self.graph.edge_endpoints(e)?;
            let d = &self.graph[e];
            Some(RawEdgeRef {
                source: s.index() as u32,
                target: t.index() as u32,
                relation: d.relation,
                resolution: d.resolution,
                origin: d.origin,
                sites: &d.sites,
            })
        })
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

    /// Unresolved references whose caller is `id`.
    pub fn unresolved_of(&self, id: &str) -> &[Unresolved] {
        self.unresolved_map().get(id).map_or(&[], |v| v)
    }

    /// Every unresolved reference, sorted by caller.
    pub fn all_unresolved(&self) -> impl Iterator<Item = &Unresolved> {
        self.unresolved_map().values().flat_map(|v| v.iter())
    }

    /// Unresolved references by caller (sorted), each caller's shared.
    pub(crate) fn unresolved_groups(&self) -> impl Iterator<Item = (&Arc<str>, &CallerCalls)> {
        self.unresolved_map().iter()
    }

    /// How many callers have unresolved references.
    pub fn unresolved_callers(&self) -> usize {
        self.unresolved_map().len()
    }

    /// How many unresolved references there are (`all_unresolved().count()`, by caller).
    pub fn unresolved_count(&self) -> usize {
        self.unresolved_map().values().map(|v| v.len()).sum()
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
            n += self
                .all_unresolved()
                .filter(|u| u.reason != UnresolvedReason::External && names.contains(&*u.name))
                .count();
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
        // Tallied per relation first: a string key per edge (1.3M on the Rust tree) was
        // most of an update's stats.
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

    /// The whole graph as canonical JSON (`codegraph-tui/graph@1`): `{schema, nodes,
    /// edges, unresolved}`, sorted, so equal inputs give equal bytes.
    pub fn to_canonical_json(&self) -> serde_json::Value {
        // Id order, which the graph keeps (a sort here was 0.47 s on 1.17M nodes).
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

#[cfg(test)]
mod tests {
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

    /// shared prefixes (past every radix digit), keys that are prefixes of others, NUL and
    /// non-ASCII bytes, equal keys told apart by id; and file runs out of path order.
    #[test]
    fn name_indexes_match_a_plain_sort() {
        let long = "windows_sys::Win32::Foundation::Security::Cryptography::Certificates::";
        let names = [
            format!("{long}CERT_B"),
            format!("{long}CERT_A"),
            format!("{long}CERT"),
            long.to_string(),
            "a".into(),
            "a\0".into(),
            "a\0\0b".into(),
            "ab".into(),
            "new".into(),
            "new".into(),
            "éa".into(),
            "z".into(),
            String::new(),
        ];
        let mut nodes = Vec::new();
        // Files out of path order for ids: `x.rs::…` sorts after `x.rs.bak`.
        for (f, file) in ["x.rs", "x.rs.bak", "b.rs"].iter().enumerate() {
            nodes.push(Node {
                id: (*file).into(),
                kind: Kind::File,
                name: (*file).into(),
                qualified_name: (*file).into(),
                file: (*file).into(),
                start_line: 1,
                end_line: 1,
                language: "rust".into(),
            });
            for (i, n) in names.iter().enumerate() {
                nodes.push(Node {
                    id: format!("{file}::{n}#{i}").into(),
                    kind: Kind::Function,
                    name: n.as_str().into(),
                    qualified_name: format!("{}{n}", &long[..(i * 7 + f) % long.len()]).into(),
                    file: (*file).into(),
                    start_line: 1,
                    end_line: 1,
                    language: "rust".into(),
                });
            }
        }
        let g = CodeGraph::build(nodes.clone(), Vec::new(), Vec::new());
        let order = g.name_order();
        let plain = |key: fn(&Node) -> (&str, &str), defs_only: bool| {
            let mut v: Vec<u32> = (0..nodes.len() as u32)
                .filter(|&p| !defs_only || nodes[p as usize].kind != Kind::File)
                .collect();
            v.sort_by(|&a, &b| key(&nodes[a as usize]).cmp(&key(&nodes[b as usize])));
            v
        };
        assert_eq!(order.by_name, plain(|n| (&n.name, &n.id), true));
        assert_eq!(
            order.by_qualified,
            plain(|n| (&n.qualified_name, &n.id), true)
        );
        let by_id = plain(|n| (&n.id, ""), false);
        let mut ranks = vec![0u32; nodes.len()];
        for (rank, &p) in by_id.iter().enumerate() {
            ranks[p as usize] = rank as u32;
        }
        assert_eq!(order.id_rank, ranks);
    }
}

/// See [`CodeGraph::raw_edges_ser`].
struct RawEdgesSer<'a>(&'a CodeGraph);

/// One edge as [`RawEdge`] serializes, its sites borrowed.
#[derive(Serialize)]
pub(crate) struct RawEdgeRef<'a> {
    pub(crate) source: u32,
    pub(crate) target: u32,
    pub(crate) relation: Relation,
    pub(crate) resolution: Tier,
    pub(crate) origin: u32,
    pub(crate) sites: &'a [(u32, u32)],
}

impl Serialize for RawEdgesSer<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.graph.edge_count()))?;
        for e in self.0.edge_refs() {
            seq.serialize_element(&e)?;
        }
        seq.end()
    }
}

/// See [`CodeGraph::name_order_ser`].
struct NameOrderSer<'a>(&'a CodeGraph);

/// Node indexes serialized as a `Vec<u32>` of their positions.
struct Positions<'a>(&'a [NodeIndex]);

impl Serialize for Positions<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|ix| ix.index() as u32))
    }
}

impl Serialize for NameOrderSer<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let g = self.0;
        let mut order = s.serialize_struct("NameOrder", 3)?;
        order.serialize_field("id_rank", &g.id_rank)?;
        order.serialize_field("by_name", &Positions(&g.by_name))?;
        order.serialize_field("by_qualified", &Positions(&g.by_qualified))?;
        order.end()
    }
}
