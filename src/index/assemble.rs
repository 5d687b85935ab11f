//! The last phase of every run: the facts of all files in, sorted, resolved, turned into
//! the graph (name indexes sorted, or merged from the index an update starts from) and
//! counted, out an [`Index`]. Its own module because full indexes, streaming indexes and
//! incremental updates all end here, whatever read their files.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::{
    facts, graph, project, release_free_memory, resolve, rss_mib, CodeGraph, FileFacts, FileStamp,
    Index, IndexStats, Kind, Node, NodeChunk, Outcome, SkipReason, UnresolvedReason,
};

/// What reading produced besides facts: skips found by the walk, file stamps and when
/// reading started.
#[derive(Default)]
pub(crate) struct Extras<'p> {
    pub(crate) skipped: Vec<(String, SkipReason)>,
    pub(crate) stamps: BTreeMap<String, FileStamp>,
    pub(crate) stamped_at_ns: i64,
    /// The index this run updates, if any: the graph's name indexes are merged from its
    /// ([`CodeGraph::from_chunks_after`]) instead of sorted again.
    pub(crate) prev: Option<&'p Index>,
}

/// Resolves facts into the graph and fills the counts.
pub(crate) fn finish(
    pool: &rayon::ThreadPool,
    root: Option<PathBuf>,
    outcomes: Vec<Outcome>,
    stats: IndexStats,
    extras: Extras<'_>,
    started: Instant,
) -> Index {
    finish_with(
        pool,
        root,
        outcomes,
        stats,
        extras,
        started,
        |files, enclosing| {
            let res = resolve::resolve(files, enclosing);
            // What resolution freed (its tables, each file's lists) is scattered free pages in
            // the allocator's arenas that the graph's large allocations cannot reuse: handed
            // back first, or the graph is built on top of them (a cold index of the fetch.sh
            // corpus then peaks 145 MiB higher). The trim takes 56 ms there; incremental
            // updates skip it.
            release_free_memory();
            res
        },
    )
}

/// As [`finish`] with the resolution computed by `resolver` over the sorted facts and what
/// the folders around the root say about it.
pub(crate) fn finish_with(
    pool: &rayon::ThreadPool,
    root: Option<PathBuf>,
    outcomes: Vec<Outcome>,
    stats: IndexStats,
    extras: Extras<'_>,
    started: Instant,
    resolver: impl FnOnce(&[Arc<FileFacts>], &project::Enclosing) -> resolve::Resolution + Send,
) -> Index {
    let Extras {
        mut skipped,
        stamps,
        stamped_at_ns,
        prev,
    } = extras;
    let mut files = Vec::with_capacity(outcomes.len());
    for o in outcomes {
        match o {
            Outcome::Facts(f) => files.push(f),
            Outcome::Skipped(p, r) => skipped.push((p, r)),
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    tracing::debug!(rss_mib = ?rss_mib(), "facts of every file");
    let t = Instant::now();
    let paths = file_paths(&files);
    let enclosing = root
        .as_deref()
        .map(project::Enclosing::of_root)
        .unwrap_or_default();
    let tables_of = |res: &mut resolve::Resolution| {
        res.tables
            .take()
            .map_or_else(std::sync::OnceLock::new, std::sync::OnceLock::from)
    };
    let (tables, graph, resolved_ms) = match prev {
        Some(p) => {
            let mut res = pool.install(|| resolver(&files, &enclosing));
            let resolved_ms = t.elapsed().as_millis() as u64;
            tracing::debug!(rss_mib = ?rss_mib(), "resolved");
            let shared = shared_files(&p.files, &files);
            let chunks = pool.install(|| graph_chunks_after(&files, &paths, &shared, &p.graph));
            let carried = carried_positions(&p.files, &files, &shared);
            let tables = tables_of(&mut res);
            let graph = CodeGraph::from_chunks_after(
                chunks,
                res.edges,
                res.unresolved,
                res.carried_unresolved,
                &p.graph,
                &carried,
            );
            (tables, graph, resolved_ms)
        }
        // A full index makes the graph's nodes and sorts their names while resolution
        // runs (after resolution, the sorts would add 0.3 s to a cold Rust-tree index, `-v`).
        None => pool.install(|| {
            let (mut res, (chunks, order)) = rayon::join(
                || resolver(&files, &enclosing),
                || {
                    let chunks = graph_chunks(&files, &paths);
                    let order = graph::NameOrder::of_chunks(&chunks);
                    (chunks, order)
                },
            );
            let resolved_ms = t.elapsed().as_millis() as u64;
            tracing::debug!(rss_mib = ?rss_mib(), "resolved");
            let tables = tables_of(&mut res);
            let graph = CodeGraph::from_chunks_ordered(chunks, res.edges, res.unresolved, order)
                .expect("the name order was made from these nodes");
            (tables, graph, resolved_ms)
        }),
    };
    // What `go.mod` and `Cargo.toml` files say, for lookups by import path or package name.
    let graph = graph.with_packages(project::PackageRoots::of(&files));
    tracing::debug!(
        rss_mib = ?rss_mib(),
        resolve_ms = resolved_ms,
        graph_ms = t.elapsed().as_millis() as u64 - resolved_ms,
        "resolved and built the graph"
    );
    let mut stats = stats;
    stats
        .elapsed_ms
        .insert("resolve".into(), t.elapsed().as_millis() as u64);
    let index = assemble(
        root,
        files,
        Arc::new(graph),
        stats,
        skipped,
        stamps,
        stamped_at_ns,
        started,
    );
    tracing::debug!(rss_mib = ?rss_mib(), "index assembled");
    Index { tables, ..index }
}

/// Each file's path as the `Arc` its graph nodes share (the file node's id, qualified name
/// and file; every definition's file): what [`file_chunk`] and [`graph_chunks`] take.
pub(crate) fn file_paths(files: &[Arc<FileFacts>]) -> Vec<Arc<str>> {
    files.iter().map(|f| Arc::from(f.path.as_str())).collect()
}

/// For each file of `prev_files`, its index in `files` when its facts are shared (the same
/// `Arc`: carried over unchanged, so the same nodes). Both lists are sorted by path, as
/// [`Index::files`] is.
fn shared_files(prev_files: &[Arc<FileFacts>], files: &[Arc<FileFacts>]) -> Vec<Option<usize>> {
    let mut j = 0;
    prev_files
        .iter()
        .map(|f| {
            while j < files.len() && files[j].path < f.path {
                j += 1;
            }
            files.get(j).is_some_and(|g| Arc::ptr_eq(f, g)).then_some(j)
        })
        .collect()
}

/// For each node position of `prev_files`' graph, its position in the graph of `files`
/// when its file is shared ([`shared_files`]), else `u32::MAX`: the input of
/// [`CodeGraph::from_chunks_after`].
fn carried_positions(
    prev_files: &[Arc<FileFacts>],
    files: &[Arc<FileFacts>],
    shared: &[Option<usize>],
) -> Vec<u32> {
    let offsets = resolve::node_offsets(files);
    let mut out = Vec::with_capacity(prev_files.iter().map(|f| 1 + f.definitions.len()).sum());
    for (f, &to) in prev_files.iter().zip(shared) {
        let count = 1 + f.definitions.len() as u32;
        match to {
            Some(j) => out.extend(offsets[j]..offsets[j] + count),
            None => out.extend(std::iter::repeat_n(u32::MAX, count as usize)),
        }
    }
    out
}

/// Fills the counts derived from facts, graph and skips, and builds the [`Index`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn assemble(
    root: Option<PathBuf>,
    files: Vec<Arc<FileFacts>>,
    graph: Arc<CodeGraph>,
    mut stats: IndexStats,
    mut skipped: Vec<(String, SkipReason)>,
    stamps: BTreeMap<String, FileStamp>,
    stamped_at_ns: i64,
    started: Instant,
) -> Index {
    skipped.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, r) in &skipped {
        stats.count_skip(*r);
    }
    // The graph's counts on two threads while the files are counted here (1.3M edges and
    // 376K unresolved calls on the Rust tree: 25 ms in a row).
    let tally = |graph: &CodeGraph| {
        // Per reason first, not a string key per call.
        let mut by_reason: Vec<(UnresolvedReason, u64)> = Vec::new();
        for u in graph.all_unresolved() {
            match by_reason.iter_mut().find(|(r, _)| *r == u.reason) {
                Some((_, n)) => *n += 1,
                None => by_reason.push((u.reason, 1)),
            }
        }
        by_reason
    };
    let ((edges, by_reason), ()) = rayon::join(
        || rayon::join(|| graph.edge_counts(), || tally(&graph)),
        || {
            for f in &files {
                match f.mode {
                    facts::FileMode::Parsed => stats.files_indexed += 1,
                    facts::FileMode::Windowed => stats.files_windowed += 1,
                }
                stats.files_with_parse_errors += u64::from(f.parse_errors);
                stats.lines += u64::from(f.lines);
                stats.bytes += f.bytes;
                stats.definitions += f.definitions.len() as u64;
                stats.chunks += f.chunks.len() as u64;
                let references = f.calls.iter().filter(|c| c.is_reference).count() as u64;
                stats.call_sites += f.calls.len() as u64 - references;
                stats.references += references;
                stats.imports += f.imports.len() as u64;
                match stats.languages.get_mut(&f.language) {
                    Some(n) => *n += 1,
                    None => {
                        stats.languages.insert(f.language.clone(), 1);
                    }
                }
            }
        },
    );
    stats.edges = edges;
    for (r, n) in by_reason {
        *stats.unresolved.entry(r.as_str().to_string()).or_insert(0) += n;
    }
    stats
        .elapsed_ms
        .insert("total".into(), started.elapsed().as_millis() as u64);
    Index {
        root,
        files,
        graph,
        stats,
        skipped,
        stamps,
        stamped_at_ns,
        tables: std::sync::OnceLock::new(),
    }
}

/// File `f`'s graph nodes: its file node, then one node per definition (the engine's
/// order, which node positions count through); `path` is its [`file_paths`] entry.
pub(crate) fn file_chunk(f: &FileFacts, path: &Arc<str>) -> NodeChunk {
    let language: Arc<str> = f.language.as_str().into();
    let file_name = f.path.rsplit('/').next().unwrap_or(&f.path);
    let file_node = Node {
        id: path.clone(),
        kind: Kind::File,
        name: file_name.into(),
        qualified_name: path.clone(),
        file: path.clone(),
        start_line: 1,
        end_line: f.lines.max(1),
        language: language.clone(),
    };
    std::iter::once(file_node)
        .chain(f.definitions.iter().map(|d| Node {
            id: d.id.clone(),
            kind: d.kind,
            name: d.name.clone(),
            qualified_name: d.qualified_name.clone(),
            file: path.clone(),
            start_line: d.start_line,
            end_line: d.end_line,
            language: language.clone(),
        }))
        .collect()
}

/// Every file's [`file_chunk`], made in parallel on the current pool; `paths` is
/// [`file_paths`] of `files`.
pub(crate) fn graph_chunks(files: &[Arc<FileFacts>], paths: &[Arc<str>]) -> Vec<NodeChunk> {
    files
        .par_iter()
        .zip(paths)
        .map(|(f, p)| file_chunk(f, p))
        .collect()
}

/// [`graph_chunks`] for an update of the index whose graph is `prev`: a file whose facts
/// are shared with it (`shared`, see [`shared_files`]) shares its chunk too; the others'
/// are made.
fn graph_chunks_after(
    files: &[Arc<FileFacts>],
    paths: &[Arc<str>],
    shared: &[Option<usize>],
    prev: &CodeGraph,
) -> Vec<NodeChunk> {
    let mut carried: Vec<Option<&NodeChunk>> = vec![None; files.len()];
    for (old, &new) in shared.iter().enumerate() {
        if let Some(j) = new {
            carried[j] = prev
                .chunk(old)
                .filter(|c| c.first().is_some_and(|n| *n.id == *files[j].path));
        }
    }
    files
        .par_iter()
        .zip(paths)
        .zip(carried)
        .map(|((f, p), c)| c.cloned().unwrap_or_else(|| file_chunk(f, p)))
        .collect()
}
