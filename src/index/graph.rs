//! The code graph (DESIGN section 4): nodes (files and definitions) and typed, resolved
//! edges over petgraph, with lookup by id, qualified name and bare name, and depth-limited,
//! cycle-safe caller/callee traversal. Serialized canonically: nodes sorted by id, edges by
//! (source, target, relation), so the same input gives byte-identical JSON.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use serde::{Deserialize, Serialize};

use super::facts::Kind;

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
    /// Repo-relative path.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based char column.
    pub column: u32,
}

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
    /// Caller node id.
    pub caller: String,
    /// Callee name as written.
    pub name: String,
    /// Receiver or qualifier text, if any.
    pub receiver: Option<String>,
    /// Call site.
    pub site: Site,
    /// Why no edge was made.
    pub reason: UnresolvedReason,
}

#[derive(Debug, Clone)]
struct EdgeData {
    relation: Relation,
    resolution: Tier,
    /// (line, column) of each site; the file is the source node's file.
    sites: Box<[(u32, u32)]>,
}

/// An edge between node indices as the resolver makes it (node index = position in the
/// node list given to [`CodeGraph::from_parts`]).
#[derive(Debug, Clone)]
pub struct RawEdge {
    /// Source node position.
    pub source: u32,
    /// Target node position.
    pub target: u32,
    /// Relation.
    pub relation: Relation,
    /// Tier.
    pub resolution: Tier,
    /// (line, column) of each site, 1-based, in the source node's file; sorted, unique.
    pub sites: Vec<(u32, u32)>,
}

/// The whole-repo graph.
#[derive(Debug, Default, Clone)]
pub struct CodeGraph {
    graph: StableDiGraph<Node, EdgeData>,
    /// Node id → index (foldhash: this map is filled once per node of the repo).
    by_id: foldhash::HashMap<Arc<str>, NodeIndex>,
    unresolved: BTreeMap<String, Vec<Unresolved>>,
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

/// Which way to walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Follow edges backwards (who calls this).
    Callers,
    /// Follow edges forwards (what this calls).
    Callees,
    /// Both.
    Both,
}

impl Walk {
    fn as_str(self) -> &'static str {
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
    /// edges with an unknown endpoint are dropped; a site's file must be the source's).
    pub fn build(nodes: Vec<Node>, edges: Vec<Edge>, unresolved: Vec<Unresolved>) -> CodeGraph {
        let pos: HashMap<&str, u32> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (&*n.id, i as u32))
            .collect();
        let raw: Vec<RawEdge> = edges
            .iter()
            .filter_map(|e| {
                Some(RawEdge {
                    source: *pos.get(e.source.as_str())?,
                    target: *pos.get(e.target.as_str())?,
                    relation: e.relation,
                    resolution: e.resolution,
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

    /// [`from_parts`](CodeGraph::from_parts) with nodes from an iterator whose length is
    /// known, so a caller can make them one at a time instead of holding a second list of
    /// every node while the graph is built (about 110 MB on a 1.15M-definition repo). The
    /// graph, the id map and the edge list are allocated once at their final size.
    pub fn from_node_iter(
        nodes: impl IntoIterator<Item = Node, IntoIter: ExactSizeIterator>,
        edges: Vec<RawEdge>,
        unresolved: Vec<Unresolved>,
    ) -> CodeGraph {
        let nodes = nodes.into_iter();
        let mut g = CodeGraph {
            graph: StableDiGraph::with_capacity(nodes.len(), edges.len()),
            ..CodeGraph::default()
        };
        g.by_id.reserve(nodes.len());
        let mut ixs = Vec::with_capacity(nodes.len());
        for n in nodes {
            let id = n.id.clone();
            let ix = g.graph.add_node(n);
            g.by_id.insert(id, ix);
            ixs.push(ix);
        }
        for e in edges {
            let (Some(&s), Some(&t)) = (ixs.get(e.source as usize), ixs.get(e.target as usize))
            else {
                continue;
            };
            g.graph.add_edge(
                s,
                t,
                EdgeData {
                    relation: e.relation,
                    resolution: e.resolution,
                    sites: e.sites.into_boxed_slice(),
                },
            );
        }
        for u in unresolved {
            // Look up before inserting: `entry` would copy the caller id for every call.
            match g.unresolved.get_mut(u.caller.as_str()) {
                Some(v) => v.push(u),
                None => {
                    g.unresolved.insert(u.caller.clone(), vec![u]);
                }
            }
        }
        g
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.by_id.get(id).map(|&ix| &self.graph[ix])
    }

    /// All nodes, in no particular order.
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.graph.node_weights()
    }

    /// Unresolved references whose caller is `id`.
    pub fn unresolved_of(&self, id: &str) -> &[Unresolved] {
        self.unresolved.get(id).map_or(&[], Vec::as_slice)
    }

    /// Every unresolved reference, sorted by caller.
    pub fn all_unresolved(&self) -> impl Iterator<Item = &Unresolved> {
        self.unresolved.values().flatten()
    }

    /// Looks up SYMBOL as DESIGN section 5 says: an exact node id, else an exact qualified
    /// name, else an exact bare name. Returns every match of the first rule that matches
    /// (sorted by id); `impl` blocks are dropped when another kind shares the name. Never
    /// a fuzzy match.
    pub fn lookup(&self, symbol: &str) -> Vec<&Node> {
        if let Some(n) = self.node(symbol) {
            return vec![n];
        }
        let pick = |f: &dyn Fn(&Node) -> bool| {
            let mut v: Vec<&Node> = self
                .graph
                .node_weights()
                .filter(|n| n.kind != Kind::File && f(n))
                .collect();
            if v.iter().any(|n| n.kind != Kind::Impl) {
                v.retain(|n| n.kind != Kind::Impl);
            }
            v.sort_by(|a, b| a.id.cmp(&b.id));
            v
        };
        let by_qualified = pick(&|n| &*n.qualified_name == symbol);
        if !by_qualified.is_empty() {
            return by_qualified;
        }
        pick(&|n| &*n.name == symbol)
    }

    fn edge_out(&self, ix: petgraph::stable_graph::EdgeIndex) -> Edge {
        let (s, t) = self.graph.edge_endpoints(ix).expect("edge exists");
        let d = &self.graph[ix];
        Edge {
            source: self.graph[s].id.to_string(),
            target: self.graph[t].id.to_string(),
            relation: d.relation,
            resolution: d.resolution,
            confidence: d.resolution.confidence(),
            sites: d
                .sites
                .iter()
                .map(|&(line, column)| Site {
                    file: self.graph[s].file.to_string(),
                    line,
                    column,
                })
                .collect(),
        }
    }

    /// Breadth-first walk over `calls` and `references` edges from `root`, up to `depth`
    /// hops (cycle-safe: each node is visited once). `None` when `root` is not a node id.
    pub fn walk(&self, root: &str, walk: Walk, depth: u32) -> Option<Subgraph> {
        let &start = self.by_id.get(root)?;
        let mut seen: HashSet<NodeIndex> = HashSet::from([start]);
        let mut edges: HashSet<petgraph::stable_graph::EdgeIndex> = HashSet::new();
        let mut queue = VecDeque::from([(start, 0u32)]);
        let mut truncated = false;
        let dirs: &[Direction] = match walk {
            Walk::Callers => &[Direction::Incoming],
            Walk::Callees => &[Direction::Outgoing],
            Walk::Both => &[Direction::Incoming, Direction::Outgoing],
        };
        while let Some((ix, d)) = queue.pop_front() {
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
        let mut nodes: Vec<Node> = seen.iter().map(|&ix| self.graph[ix].clone()).collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let mut edges: Vec<Edge> = edges.into_iter().map(|e| self.edge_out(e)).collect();
        edges.sort_by(|a, b| {
            (&a.source, &a.target, a.relation).cmp(&(&b.source, &b.target, b.relation))
        });
        let unresolved = self.count_unresolved(&nodes, walk);
        Some(Subgraph {
            schema: "codegraph-tui/subgraph@1",
            root: root.to_string(),
            direction: walk.as_str().to_string(),
            depth,
            nodes,
            edges,
            truncated,
            unresolved,
        })
    }

    /// Unresolved references inside a walk's answer: for callees, those of the nodes
    /// reached (each is a call whose target is unknown); for callers, unresolved calls
    /// anywhere whose name is a reached node's name and that are not `external` (each might
    /// be a missing caller).
    fn count_unresolved(&self, nodes: &[Node], walk: Walk) -> usize {
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
                .filter(|u| {
                    u.reason != UnresolvedReason::External && names.contains(u.name.as_str())
                })
                .count();
        }
        n
    }

    /// The edges of the given relations that end at `id` (`Walk::Callers`: incoming),
    /// start at it (`Walk::Callees`: outgoing) or touch it (`Walk::Both`), in canonical
    /// order. Empty when `id` is not a node. Cost: the node's degree, not the graph's size;
    /// only matching edges are copied out.
    pub fn edges_of(&self, id: &str, walk: Walk, relations: &[Relation]) -> Vec<Edge> {
        let Some(&ix) = self.by_id.get(id) else {
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
        let mut m = BTreeMap::new();
        for e in self.graph.edge_weights() {
            *m.entry(e.relation.as_str().to_string()).or_insert(0) += 1;
        }
        m
    }

    /// The whole graph as canonical JSON (`codegraph-tui/graph@1`): `{schema, nodes,
    /// edges, unresolved}`, sorted, so equal inputs give equal bytes.
    pub fn to_canonical_json(&self) -> serde_json::Value {
        let mut nodes: Vec<&Node> = self.graph.node_weights().collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let unresolved: Vec<&Unresolved> = self.all_unresolved().collect();
        serde_json::json!({
            "schema": "codegraph-tui/graph@1",
            "nodes": nodes,
            "edges": self.edges(),
            "unresolved": unresolved,
        })
    }
}
