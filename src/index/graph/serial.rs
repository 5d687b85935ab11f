//! The graph in the forms the on-disk cache stores: edges between node positions and the
//! name indexes as positions, serialized in place (a save copies neither), and back.
//! Its own module because these forms exist for the cache, not for answers.

use petgraph::stable_graph::NodeIndex;
use serde::Serialize;

use super::{CodeGraph, NameOrder, RawEdge, Relation, Tier, Unresolved};

impl CodeGraph {
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
