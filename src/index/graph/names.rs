//! The graph's name indexes (nodes by id, definitions by name and by qualified name) and
//! the sorts that make them: a radix sort on 8-byte windows of the key, ties broken by id
//! rank. Its own module because the sorts are the costliest part of a graph build and have
//! nothing to do with the graph's structure.

use petgraph::stable_graph::NodeIndex;
use serde::{Deserialize, Serialize};

use super::nodes::{NodeRefs, NodeStore};
use super::{Node, NodeChunk};
use crate::index::facts::Kind;

/// A graph's name indexes as node positions (insertion order, as in
/// [`RawEdge`](super::RawEdge)), so a cache can store them and a load skips the three sorts
/// of every node by string (on a 1.15M-definition repo those sorts are about 40% of a warm
/// start's CPU, `perf`). Built by [`CodeGraph::name_order`](super::CodeGraph::name_order),
/// given back to [`CodeGraph::from_parts_ordered`](super::CodeGraph::from_parts_ordered).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameOrder {
    /// For each node position, its rank in id order.
    pub id_rank: Vec<u32>,
    /// Definition positions (no file nodes) sorted by bare name, then id.
    pub by_name: Vec<u32>,
    /// Definition positions (no file nodes) sorted by qualified name, then id.
    pub by_qualified: Vec<u32>,
}

/// Bytes `at..at + 8` of `s`, big-endian, zero-padded past its end. For two strings whose
/// padded bytes before `at` are equal, a smaller window means a smaller string, so a sort
/// compares these integers first and the strings only on a tie.
fn window8(s: &str, at: usize) -> u64 {
    let rest = s.as_bytes().get(at..).unwrap_or_default();
    if let Some(w) = rest.first_chunk::<8>() {
        // Most windows are whole: one load, not a variable-length copy (a `memcpy` call
        // would be 1% of a Rust-tree index).
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
pub(super) fn name_indexes(
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
    /// The name indexes that [`CodeGraph::from_chunks`](super::CodeGraph::from_chunks)
    /// would make for these nodes, made from the nodes alone: a full index sorts them while
    /// resolution runs, then builds the graph with
    /// [`CodeGraph::from_chunks_ordered`](super::CodeGraph::from_chunks_ordered).
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
pub(super) fn ranks(by_id: &[NodeIndex], bound: usize) -> Vec<u32> {
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

#[cfg(test)]
mod tests {
    use super::super::CodeGraph;
    use super::*;

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
