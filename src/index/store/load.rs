//! Reading a snapshot back: its parts decoded in parallel into a graph (nodes mapped,
//! unresolved calls grouped on first use) and, for a full load, the facts with their
//! definitions' ids and names put back from the nodes. Its own module because it is the
//! one place that knows how the parts fit together again.

use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::format::{decode, decode_all, part_error, read_part};
use super::nodes::map_nodes;
use super::shards::read_sharded;
use super::unresolved::UnresolvedBytes;
use super::{LoadError, Parts};
use crate::index::graph::{NameOrder, NodeChunk, RawEdge};
use crate::index::{CodeGraph, FileFacts};

/// Every file's facts from `facts.bin` (checked against `expect`), in file order; their
/// definitions' ids and names are left empty (see [`Definition`](crate::index::facts::Definition)).
pub(super) fn read_facts(path: &Path, expect: &[u8; 32]) -> Result<Vec<Arc<FileFacts>>, LoadError> {
    let (files, _) = read_sharded(path, expect, false, |b, _| {
        let files = decode_all::<Vec<Arc<FileFacts>>>(b, "facts")?;
        match files.iter().find(|f| !references_hold(f)) {
            Some(f) => Err(LoadError::Corrupt(format!(
                "facts of {}: an index past its definitions",
                f.path
            ))),
            None => Ok(files),
        }
    })?;
    Ok(files)
}

/// Whether every index a file's facts hold into its own definitions points at one: a
/// parent before its child (definitions are in source order, outer before inner, so a
/// parent chain always ends), a call's caller, a binding's scope and a chunk's
/// definition inside the list. Resolution and the views index with them unchecked (an
/// index past the end panics the resolver); a checksum proves only that the bytes are
/// whole, not that this engine wrote them (`tests/fixtures/fuzz/snapshot/`).
fn references_hold(f: &FileFacts) -> bool {
    let n = f.definitions.len();
    let inside = |i: Option<u32>| i.is_none_or(|i| (i as usize) < n);
    f.definitions
        .iter()
        .enumerate()
        .all(|(i, d)| d.parent.is_none_or(|p| (p as usize) < i))
        && f.calls.iter().all(|c| inside(c.caller))
        && f.bindings.iter().all(|b| inside(b.scope))
        && f.chunks.iter().all(|c| inside(c.definition))
}

/// A `Vec<RawEdge>` as postcard wrote it, decoded into a vector of the length its prefix
/// gives (no more than the bytes could hold): serde's decoder grows a vector from a
/// capped guess, which for the 1.44M edges of the fetch.sh corpus means copying 58 MB
/// through a dozen reallocations (`perf`: about a third of decoding the edges).
///
/// Errors: [`LoadError::Corrupt`] for bytes that do not decode, or bytes after the last.
fn decode_edges(bytes: &[u8]) -> Result<Vec<RawEdge>, LoadError> {
    let bad = |why: String| LoadError::Corrupt(format!("edges: {why}"));
    let (count, mut rest) =
        postcard::take_from_bytes::<u64>(bytes).map_err(|e| bad(e.to_string()))?;
    // An edge takes at least 5 bytes (two positions, relation, tier, origin).
    let count = usize::try_from(count)
        .ok()
        .filter(|&c| c <= rest.len() / 5)
        .ok_or_else(|| bad("more edges than bytes".into()))?;
    let mut edges = Vec::with_capacity(count);
    for _ in 0..count {
        let (e, after) =
            postcard::take_from_bytes::<RawEdge>(rest).map_err(|e| bad(e.to_string()))?;
        edges.push(e);
        rest = after;
    }
    if !rest.is_empty() {
        return Err(bad(format!("{} bytes after the last edge", rest.len())));
    }
    Ok(edges)
}

/// Puts each definition's id and names back from its graph node (`facts.bin` leaves them
/// out: `nodes.bin` holds them), so facts and graph share the same strings as after an
/// index. `chunks` are the graph's, one per file.
///
/// Errors: [`LoadError::Corrupt`] when a file's definitions and nodes do not match up.
pub(super) fn put_names_back(
    files: &mut [Arc<FileFacts>],
    chunks: &[NodeChunk],
) -> Result<(), LoadError> {
    if files.len() != chunks.len() {
        return Err(LoadError::Corrupt(
            "facts and nodes of a different file count".into(),
        ));
    }
    files.par_iter_mut().zip(chunks).try_for_each(|(f, chunk)| {
        let path = f.path.clone();
        let bad = || LoadError::Corrupt(format!("facts and nodes of {path} differ"));
        let facts = Arc::get_mut(f).ok_or_else(bad)?;
        if chunk.len() != 1 + facts.definitions.len() || *chunk[0].id != *facts.path {
            return Err(bad());
        }
        for (d, n) in facts.definitions.iter_mut().zip(&chunk[1..]) {
            if d.kind != n.kind || d.start_line != n.start_line || d.end_line != n.end_line {
                return Err(bad());
            }
            put_back(&mut d.id, &n.id);
            put_back(&mut d.name, &n.name);
            put_back(&mut d.qualified_name, &n.qualified_name);
        }
        Ok(())
    })
}

/// Sets `slot` (a deserialized definition's empty placeholder) to `value`. The
/// placeholders are clones of one empty `Arc` per decoding thread (see
/// [`Definition`](crate::index::facts::Definition)): they are forgotten, not dropped, so that
/// 3.5M decrements on the Rust tree do not contend for its counter (which only ever grows):
/// 130-190 ms of a full load down to about 25 (`-v`).
fn put_back(slot: &mut Arc<str>, value: &Arc<str>) {
    let old = std::mem::replace(slot, value.clone());
    if old.is_empty() {
        std::mem::forget(old);
    }
}

/// The graph of the snapshot in `snap` whose manifest lists `parts` and counts
/// `(files, nodes)`, with every file's facts when `with_facts` (else none: `facts.bin`
/// is not read). The graph decodes its nodes and groups its unresolved calls on first use
/// (see [`ChunkSource`](crate::index::graph::ChunkSource),
/// [`UnresolvedSource`](crate::index::graph::UnresolvedSource)); a full load
/// (`with_facts`) does both at once, since the update that follows reads them all.
///
/// Errors: [`LoadError::Corrupt`] for any damage (the reason names the file).
pub(super) fn read_graph(
    snap: &Path,
    parts: &Parts,
    (files, nodes): (u64, u64),
    with_facts: bool,
) -> Result<(CodeGraph, Vec<Arc<FileFacts>>), LoadError> {
    let started = std::time::Instant::now();
    let ((facts, mapped), (edges, (unresolved, names))) = rayon::join(
        || {
            rayon::join(
                || {
                    with_facts
                        .then(|| {
                            read_facts(&snap.join("facts.bin"), &parts.facts).map_err(part_error)
                        })
                        .transpose()
                },
                || map_nodes(&snap.join("nodes.bin"), &parts.nodes).map_err(part_error),
            )
        },
        || {
            rayon::join(
                || read_part(&snap.join("edges.bin"), &parts.edges).and_then(|b| decode_edges(&b)),
                || {
                    rayon::join(
                        || read_part(&snap.join("unresolved.bin"), &parts.unresolved),
                        || {
                            read_part(&snap.join("names.bin"), &parts.names)
                                .and_then(|b| decode::<NameOrder>(&b, "names"))
                        },
                    )
                },
            )
        },
    );
    let (facts, mapped, edges, unresolved, names) = (facts?, mapped?, edges?, unresolved?, names?);
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "load: decoded");
    if mapped.files.len() as u64 != files {
        return Err(LoadError::Corrupt(format!(
            "nodes: {} files, manifest says {files}",
            mapped.files.len()
        )));
    }
    let n: u64 = mapped.files.iter().map(|f| u64::from(f.nodes)).sum();
    if n != nodes {
        return Err(LoadError::Corrupt(
            "node count differs from manifest".into(),
        ));
    }
    let n = n as u32;
    if edges.iter().any(|e| e.source >= n || e.target >= n) {
        return Err(LoadError::Corrupt("edge to a missing node".into()));
    }
    let (graph, unresolved) = rayon::join(
        || CodeGraph::from_source_ordered(Arc::new(mapped), edges, names),
        || UnresolvedBytes::check(unresolved, n),
    );
    let graph = graph.map_err(|e| LoadError::Corrupt(format!("names.bin: {e}")))?;
    let graph = graph.with_unresolved_source(Arc::new(unresolved?));
    let facts = match facts {
        // A full load is for an update, which reads every node and unresolved call: all
        // are decoded now, beside each other, rather than in the first update (left to
        // the first edit, grouping the unresolved calls would take about 80 ms of its update
        // on the Rust tree).
        Some(mut facts) => {
            let chunks = graph.chunks();
            let (put, ()) = rayon::join(
                || put_names_back(&mut facts, &chunks),
                || graph.decode_all(),
            );
            put?;
            facts
        }
        None => Vec::new(),
    };
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "load: graph");
    Ok((graph, facts))
}
