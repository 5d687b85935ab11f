//! The driver: resolves every file (or a selection against kept tables) one file per
//! rayon task, and lays out the node positions edges are written in.

use std::sync::Arc;

use rayon::prelude::*;

use super::modules::Target;
use super::tables::Tables;
use super::{Bound, Ctx, DefRef, Resolution};
use crate::index::facts::{FileFacts, Import, Kind};
use crate::index::graph::{RawEdge, Relation, Site, Tier, Unresolved};
use crate::index::lang::ImportSystem;
use crate::index::project::Enclosing;

/// Position of each file's node in the graph's node list: files in order, each file node
/// followed by its definitions (the order of `file_chunk` in the engine).
pub fn node_offsets(files: &[Arc<FileFacts>]) -> Vec<u32> {
    let mut out = Vec::with_capacity(files.len());
    let mut at = 0u32;
    for f in files {
        out.push(at);
        at += 1 + f.definitions.len() as u32;
    }
    out
}

/// Node position → (file index, local node index: 0 the file node, then its definitions)
/// for a node list laid out by `offsets` ([`node_offsets`]); `None` before the first.
pub(crate) fn locate(offsets: &[u32], pos: u32) -> Option<(usize, u32)> {
    let fi = offsets.partition_point(|&o| o <= pos).checked_sub(1)?;
    Some((fi, pos - offsets[fi]))
}

type EdgeKey = (u32, u32, Relation);

/// An edge [`resolve_file`] found: its key, tier and call site (none for containment).
type Found = (EdgeKey, Tier, Option<(u32, u32)>);

/// Resolves every file's calls, imports, bases and containment into edges, one file per
/// task on the current rayon pool. Edges are listed by the file that produced them (their
/// [`RawEdge::origin`]), in file order, each file's sorted by (source, target, relation)
/// and de-duplicated on its own; an edge's source lies in that file except for the
/// `implements` edge of `impl Trait for Type`, which starts at `Type`'s node. `enclosing`:
/// what the folders around the root say about it ([`Enclosing::of_root`]; the default for
/// a source with no root).
pub fn resolve(files: &[Arc<FileFacts>], enclosing: &Enclosing) -> Resolution {
    let ctx = Ctx::build(files, enclosing);
    tracing::debug!(rss_mib = ?crate::index::rss_mib(), "resolution tables built");
    let offsets = node_offsets(files);
    let per_file: Vec<(Vec<RawEdge>, Vec<Unresolved>)> = (0..files.len())
        .into_par_iter()
        .map(|fi| resolve_file(&ctx, &offsets, fi as u32))
        .collect();
    // The tables are done with: freed before the lists below are made, not after.
    drop(ctx);
    tracing::debug!(rss_mib = ?crate::index::rss_mib(), "every file resolved");
    // Sized once: these lists are the largest things resolution makes (1.3M edges and
    // 376K unresolved calls on the Rust corpus), and growing them by doubling leaves slack.
    let (n_edges, n_unresolved) = per_file
        .iter()
        .fold((0, 0), |(a, b), (e, u)| (a + e.len(), b + u.len()));
    let mut edges = Vec::with_capacity(n_edges);
    let mut unresolved = Vec::with_capacity(n_unresolved);
    for (e, u) in per_file {
        edges.extend(e);
        unresolved.extend(u);
    }
    // Equal elements are equal in every field, so the parallel sort's order is the same.
    unresolved.par_sort_unstable();
    Resolution {
        edges,
        unresolved,
        tables: None,
        carried_unresolved: Vec::new(),
    }
}

/// Resolves only the files with `selected[fi]`, against `tables` (the [`Tables`] of
/// `files`): per selected file (in file order) its index, its edges (node positions as in
/// [`node_offsets`]) and its unresolved calls; exactly what [`resolve`] gives for those
/// files. Incremental updates use it for the files an edit can affect.
pub fn resolve_selected(
    files: &[Arc<FileFacts>],
    selected: &[bool],
    tables: &Tables,
) -> Vec<(u32, Vec<RawEdge>, Vec<Unresolved>)> {
    let ctx = Ctx::build_with(files, tables);
    let offsets = node_offsets(files);
    (0..files.len())
        .into_par_iter()
        .filter(|&fi| selected.get(fi).copied().unwrap_or(false))
        .map(|fi| {
            let (e, u) = resolve_file(&ctx, &offsets, fi as u32);
            (fi as u32, e, u)
        })
        .collect()
}

fn resolve_file(ctx: &Ctx<'_>, offsets: &[u32], fi: u32) -> (Vec<RawEdge>, Vec<Unresolved>) {
    let files = ctx.files;
    let f = &files[fi as usize];
    let node = |r: DefRef| offsets[r.0 as usize] + 1 + r.1;
    let file_node = offsets[fi as usize];
    // Every (edge, tier, site) found, grouped by edge at the end: a sort of one list, not
    // a map entry (and a site list) made per edge as it is found.
    let mut found: Vec<Found> = Vec::new();
    let mut add = |s: u32, t: u32, rel: Relation, tier: Tier, site: Option<(u32, u32)>| {
        found.push(((s, t, rel), tier, site));
    };
    let mut unresolved = Vec::new();
    // One copy of the path for every unresolved call of the file.
    let file_path: std::sync::Arc<str> = f.path.as_str().into();
    // Containment and bases.
    for (di, d) in f.definitions.iter().enumerate() {
        let me = node((fi, di as u32));
        // `impl Trait for Type`: the type implements the trait (the impl block when the
        // type is not in the repo).
        let base_source = if d.kind == Kind::Impl {
            ctx.resolve_base(fi, &d.name).map_or(me, |(t, _)| node(t))
        } else {
            me
        };
        let parent = match d.parent {
            Some(p) => node((fi, p)),
            None => match Ctx::container_name(f, d).and_then(|c| {
                f.definitions
                    .iter()
                    .position(|t| t.parent.is_none() && &*t.name == c && t.kind.is_type_container())
            }) {
                Some(t) => node((fi, t as u32)),
                None => file_node,
            },
        };
        add(parent, me, Relation::Contains, Tier::Syntax, None);
        for b in d.bases() {
            if let Some((t, tier)) = ctx.resolve_base_ref(fi, &b.name, b.qualifier.as_deref()) {
                if t != (fi, di as u32) {
                    // A base that is an interface is implemented, not inherited (C# lists
                    // both kinds in one base list).
                    let target_is_interface =
                        ctx.def(t).kind == Kind::Interface && d.kind != Kind::Interface;
                    let rel = if b.implements || target_is_interface {
                        Relation::Implements
                    } else {
                        Relation::Inherits
                    };
                    add(base_source, node(t), rel, tier, Some((b.line, b.column)));
                }
            }
        }
    }
    // Imports (file → file).
    for imp in &f.imports {
        // In C and C++ only `#include` names a file; `using namespace` does not.
        if ctx.rules(fi).imports == ImportSystem::Includes
            && !matches!(ctx.modules.include(&f.path, &imp.module), Target::Files(ref v) if !v.is_empty())
        {
            continue;
        }
        // The edge goes to the module the statement names (a re-exporting index file
        // included), not to where a re-exported name is finally defined.
        let whole = Import {
            name: None,
            ..imp.clone()
        };
        // A name that is itself a module (`from pkg import mod`) points at that module.
        let mut targets: Vec<u32> = match ctx.bind(fi, imp) {
            Bound::Module(m) => m,
            named => match ctx.bind(fi, &whole) {
                Bound::Module(m) => m,
                _ => match named {
                    Bound::Defs(d) => d.iter().map(|r| r.0).collect(),
                    _ => Vec::new(),
                },
            },
        };
        targets.sort();
        targets.dedup();
        for t in targets.into_iter().filter(|&t| t != fi) {
            add(
                file_node,
                offsets[t as usize],
                Relation::Imports,
                Tier::Import,
                Some((imp.line, 1)),
            );
        }
    }
    // Calls and references.
    for c in &f.calls {
        let caller = c.caller.map_or(file_node, |d| node((fi, d)));
        let resolved = ctx.resolve_call(fi, c);
        if c.is_reference {
            // A value use names a function only when a certain tier finds one; anything
            // else is a plain variable, neither an edge nor an unresolved call.
            if let Ok((t, tier)) = resolved {
                let kind = ctx.def(t).kind;
                let value =
                    kind.is_callable() || (ctx.rules(fi).classes_are_values && kind == Kind::Class);
                if tier != Tier::UniqueName && value {
                    add(
                        caller,
                        node(t),
                        Relation::References,
                        tier,
                        Some((c.line, c.column)),
                    );
                }
            }
            continue;
        }
        match resolved {
            // Go: a call expression whose callee is a type is a conversion (`Celsius(x)`,
            // `pkg.Name(s)`; Go spec, "Conversions"), not a call: no code of the type runs,
            // so it is neither a `calls` edge nor an unresolved call. Receiver typing still
            // reads the type from such a receiver (`HashSlice(a).Len()`).
            Ok((t, _))
                if ctx.rules(fi).type_calls_are_conversions && !ctx.def(t).kind.is_callable() => {}
            Ok((t, tier)) => add(
                caller,
                node(t),
                Relation::Calls,
                tier,
                Some((c.line, c.column)),
            ),
            Err(reason) => unresolved.push(Unresolved {
                caller: c.caller.map_or_else(
                    || file_path.clone(),
                    |d| f.definitions[d as usize].id.clone(),
                ),
                name: c.name.as_str().into(),
                receiver: c.receiver.as_deref().map(Into::into),
                site: Site {
                    file: file_path.clone(),
                    line: c.line,
                    column: c.column,
                },
                reason,
            }),
        }
    }
    // By edge, then site: each edge's best (lowest) tier and its distinct sites in order.
    found.sort_unstable_by_key(|&(key, _, site)| (key, site));
    let mut edges: Vec<RawEdge> = Vec::new();
    for ((source, target, relation), tier, site) in found {
        match edges.last_mut() {
            Some(e) if (e.source, e.target, e.relation) == (source, target, relation) => {
                e.resolution = e.resolution.min(tier);
                if let Some(site) = site.filter(|s| e.sites.last() != Some(s)) {
                    e.sites.push(site);
                }
            }
            _ => edges.push(RawEdge {
                source,
                target,
                relation,
                resolution: tier,
                origin: file_node,
                sites: site.into_iter().collect(),
            }),
        }
    }
    (edges, unresolved)
}
