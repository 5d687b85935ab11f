//! Incremental resolution: after an edit, resolve again only the files whose edges the
//! edit can change, and carry every other file's edges over from the previous graph.
//!
//! The resolver decides a file's outgoing edges from the names that file writes (callee
//! names, receivers and qualifiers, imported modules and names, bases, declared types)
//! looked up in tables built from every file's definitions, exports and module paths.
//! So an edit can change file F's edges only if F writes a name that a changed file
//! defines, exports, imports or is named by (its stem, folders, module path, package),
//! before or after the edit, or the name of a type with such a name among its bases
//! (overloads are picked by subtyping). Those files ("affected") are resolved again against tables
//! built from all facts; the rest keep their edges, renumbered to the new node positions
//! (a monotone map, so the per-file edge order is kept). A project file (tsconfig,
//! go.mod, Cargo.toml) among the changes, or any inconsistency found while carrying
//! edges over, falls back to resolving everything.
//!
//! [`VERIFY`] (or `CODEGRAPH_VERIFY_INCREMENTAL=1`) resolves everything as well and
//! panics when the two differ: a debugging aid the test suite turns on.

// foldhash, not std's SipHash: the selection scan hashes every name every file writes.
use foldhash::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use rayon::prelude::*;

use super::diff::{edit_touches, offered};
use crate::index::facts::{FileFacts, ALIAS};
use crate::index::graph::{CodeGraph, RawEdge};
use crate::index::project::Enclosing;
use crate::index::resolve::{
    self, locate, node_offsets, tokens, written_names, Resolution, Tables, WrittenNames,
};

/// 0: read `CODEGRAPH_VERIFY_INCREMENTAL` on first use; 1: off; 2: on.
pub static VERIFY: AtomicU8 = AtomicU8::new(0);

fn verify() -> bool {
    match VERIFY.load(Ordering::Relaxed) {
        0 => {
            let on = std::env::var_os("CODEGRAPH_VERIFY_INCREMENTAL").is_some_and(|v| v == "1");
            VERIFY.store(if on { 2 } else { 1 }, Ordering::Relaxed);
            on
        }
        v => v == 2,
    }
}

/// Adds to `touched` the aliases under which a file passes a touched name on (`export {
/// formatCents as money } from "./money"`, `from .a import f as g`, `pub use a::f as g`,
/// `export { default as money }` of a touched file, a module-level `s = attrs`): their
/// importers write the alias, not the name. Followed to a fixed point (alias chains).
fn follow_aliases<'a>(files: &'a [Arc<FileFacts>], touched: &mut HashSet<&'a str>) {
    // The aliasing imports, found once (a few thousand of 58K imports on the Rust tree).
    let aliased: Vec<(&str, &str, &str)> = files
        .iter()
        .flat_map(|f| &f.imports)
        .filter_map(|i| Some((i.name.as_deref()?, i.alias.as_deref()?, i.module.as_str())))
        .collect();
    // Module-level aliases (`s = attributes = attrs`): importers of `s` reach `attrs`.
    let assigned: Vec<(&str, &str)> = files
        .iter()
        .flat_map(|f| &f.bindings)
        .filter(|b| b.scope.is_none())
        .filter_map(|b| Some((b.name.as_str(), b.type_name.strip_prefix(ALIAS)?)))
        .collect();
    loop {
        let before = touched.len();
        for &(alias, name) in &assigned {
            if tokens(name).any(|t| touched.contains(t)) {
                touched.extend(tokens(alias));
            }
        }
        for &(name, alias, module) in &aliased {
            let passes = if name == "default" {
                tokens(module).any(|t| touched.contains(t))
            } else {
                tokens(name).any(|t| touched.contains(t))
            };
            if passes {
                touched.extend(tokens(alias));
            }
        }
        if touched.len() == before {
            return;
        }
    }
}

/// Adds to `touched` the names of the types that have a touched type among their bases,
/// to a fixed point (`class Leaf extends Node`: an edit of `Node` touches `Leaf`). A file
/// that writes only `Leaf` can still depend on `Node`: Java picks among overloads by
/// whether an argument's type is a subtype of a parameter's (`show(Node)` for a `Leaf`).
fn follow_subtypes<'a>(files: &'a [Arc<FileFacts>], touched: &mut HashSet<&'a str>) {
    let typed: Vec<(&str, Vec<&str>)> = files
        .iter()
        .flat_map(|f| &f.definitions)
        .filter_map(|d| {
            let bases = &d.details.as_ref()?.bases;
            (!bases.is_empty()).then(|| (&*d.name, bases.iter().map(|b| b.name.as_str()).collect()))
        })
        .collect();
    loop {
        let before = touched.len();
        for (name, bases) in &typed {
            if !touched.contains(name)
                && bases.iter().any(|b| tokens(b).any(|t| touched.contains(t)))
            {
                touched.insert(name);
            }
        }
        if touched.len() == before {
            return;
        }
    }
}

/// `true` when file `f` writes any name in `touched`.
fn mentions(f: &FileFacts, touched: &HashSet<&str>) -> bool {
    written_names(f).any(|n| touched.contains(n))
}

fn by_path(list: &[Arc<FileFacts>]) -> HashMap<&str, usize> {
    list.iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect()
}

/// For each local node index of `old` (0: the file node, then its definitions), the index
/// of the node with the same id in `new`, `None` when `new` has none.
fn local_moves(old: &FileFacts, new: &FileFacts) -> Vec<Option<u32>> {
    let at: HashMap<&str, u32> = new
        .definitions
        .iter()
        .enumerate()
        .map(|(i, d)| (&*d.id, i as u32 + 1))
        .collect();
    std::iter::once(Some(0))
        .chain(old.definitions.iter().map(|d| at.get(&*d.id).copied()))
        .collect()
}

/// What a file of the previous index became, for carrying its edges over.
struct OldFile<'a> {
    path: &'a str,
    /// Its index in the new file list; `None` when it was removed.
    new: Option<usize>,
    /// Added, modified or removed.
    changed: bool,
    /// For a modified file, old local node index → new one ([`local_moves`]).
    moves: Option<&'a [Option<u32>]>,
}

/// Per modified file, old local node index → new one ([`local_moves`]).
type Moves<'a> = HashMap<&'a str, Vec<Option<u32>>>;

/// Which files of `files` to resolve again after the files in `changed` changed relative
/// to `prev_files` (the changed files themselves and every file that writes a name the
/// edit touches), and for each modified file the map of [`local_moves`]. `None` when
/// only a full resolution is safe (a project file changed).
fn select<'a>(
    prev_files: &'a [Arc<FileFacts>],
    files: &'a [Arc<FileFacts>],
    changed: &HashSet<&'a str>,
    written: Option<&WrittenNames>,
) -> Option<(Vec<bool>, Moves<'a>)> {
    let prev_at = by_path(prev_files);
    let new_at = by_path(files);
    let mut touched: HashSet<&str> = HashSet::default();
    // Modified files: old local node index → new one, by definition id.
    let mut moved = Moves::default();
    for &p in changed {
        let old = prev_at.get(p).map(|&i| &prev_files[i]);
        let new = new_at.get(p).map(|&i| &files[i]);
        if old.is_some_and(|f| f.project.is_some()) || new.is_some_and(|f| f.project.is_some()) {
            return None;
        }
        match (old, new) {
            (Some(old), Some(new)) => {
                edit_touches(old, new, &mut touched);
                moved.insert(p, local_moves(old, new));
            }
            (old, new) => {
                for f in old.into_iter().chain(new) {
                    offered(f, &mut touched);
                }
            }
        }
    }
    follow_aliases(files, &mut touched);
    follow_subtypes(files, &mut touched);
    let Some(written) = written else {
        let selected = files
            .par_iter()
            .map(|f| changed.contains(f.path.as_str()) || mentions(f, &touched))
            .collect();
        return Some((selected, moved));
    };
    // The previous files that write a touched name; an unchanged file is the same in the
    // new list (a changed or added one is selected anyway).
    let writers = written.writers(&touched, prev_files.len());
    let selected = files
        .iter()
        .map(|f| {
            let p = f.path.as_str();
            changed.contains(p) || prev_at.get(p).is_some_and(|&i| writers[i])
        })
        .collect();
    Some((selected, moved))
}

/// Carried edges in file order, and each file's run: (new file index, length).
type Carried = (Vec<RawEdge>, Vec<(usize, usize)>);

/// The edges of the unaffected files of the previous graph, renumbered to the new node
/// positions (`remap`), in file order, and each file's run as (new file index, length).
/// `None` when only a full resolution is safe (see the comments).
fn carry_edges(
    prev_graph: &CodeGraph,
    prev_offsets: &[u32],
    old_files: &[OldFile],
    selected: &[bool],
    new_offsets: &[u32],
    remap: &(impl Fn(u32) -> Option<u32> + Sync),
) -> Option<Carried> {
    // A full resolution sorts each file's edges by (source, target, relation) and the
    // renumbering keeps that order, except where definitions of a modified file moved
    // past each other: a file's run is sorted again where needed (keys are unique within
    // a file).
    let key = |e: &RawEdge| (e.source, e.target, e.relation);
    let sort_run = |run: &mut [RawEdge]| {
        if !run.is_sorted_by_key(key) {
            run.sort_unstable_by_key(key);
        }
    };
    let mut edges: Vec<RawEdge> = Vec::with_capacity(prev_graph.edge_count());
    let mut runs: Vec<(usize, usize)> = Vec::new();
    // Each edge goes with the file that produced it (its origin), which is the file of its
    // source except for an `impl Trait for Type` whose type lies in another file. Edges
    // come grouped by origin, in file order: the origin's file is looked up once per run.
    let mut origin_file: Option<(u32, usize)> = None;
    // The new file whose carried edges are being written, and where its run starts.
    let mut run: Option<(usize, usize)> = None;
    for e in prev_graph.edge_refs() {
        let pfi = match origin_file {
            Some((o, pfi)) if o == e.origin => pfi,
            _ => {
                let (pfi, _) = locate(prev_offsets, e.origin)?;
                origin_file = Some((e.origin, pfi));
                pfi
            }
        };
        let of = &old_files[pfi];
        if of.changed {
            // A changed file is resolved again (or is gone): its old edges go.
            continue;
        }
        let Some(fi) = of.new else {
            tracing::debug!(
                from = of.path,
                "full resolution: an unchanged file has no place in the new index"
            );
            return None;
        };
        if selected[fi] {
            continue;
        }
        match run {
            Some((cur, _)) if cur == fi => {}
            Some((cur, _)) if cur > fi => {
                tracing::debug!("full resolution: the previous edges are not in file order");
                return None;
            }
            _ => {
                if let Some((cur, from)) = run {
                    sort_run(&mut edges[from..]);
                    runs.push((cur, edges.len() - from));
                }
                run = Some((fi, edges.len()));
            }
        }
        // An unaffected file's edge from or to a removed file, or a definition a modified
        // file no longer has, means the rule above missed a dependency: resolve
        // everything rather than guess. Ends in a modified file that still has their
        // definition follow it (by id) to its new place.
        let (Some(source), Some(target)) = (remap(e.source), remap(e.target)) else {
            tracing::debug!(
                from = of.path,
                "full resolution: an unaffected file has an edge to or from a node that is gone"
            );
            return None;
        };
        edges.push(RawEdge {
            source,
            target,
            relation: e.relation,
            resolution: e.resolution,
            origin: new_offsets[fi],
            sites: e.sites.to_vec(),
        });
    }
    if let Some((cur, from)) = run {
        sort_run(&mut edges[from..]);
        runs.push((cur, edges.len() - from));
    }
    Some((edges, runs))
}

/// The resolution of `files` (the new fact set, sorted by path) after the files in
/// `changed_paths` changed (added, modified or removed) relative to `prev_files`, whose
/// resolved graph is `prev_graph`, and the number of files resolved again. `None` when
/// only a full resolution is safe.
pub(crate) fn resolve_incremental(
    prev_files: &[Arc<FileFacts>],
    prev_graph: &CodeGraph,
    prev_tables: Option<&Tables>,
    files: &[Arc<FileFacts>],
    enclosing: &Enclosing,
    changed_paths: &[&str],
) -> Option<(Resolution, usize)> {
    // Tables made for other surroundings of the root (a `go.mod` appeared above it) have
    // other module tables: made afresh.
    let prev_tables = prev_tables.filter(|t| t.enclosing() == enclosing);
    let t = std::time::Instant::now();
    let changed: HashSet<&str> = changed_paths.iter().copied().collect();
    let new_at = by_path(files);
    let (selected, moved) = select(prev_files, files, &changed, prev_tables.map(|t| &t.written))?;
    let affected = selected.iter().filter(|&&s| s).count();
    tracing::debug!(
        affected,
        files = files.len(),
        select_ms = t.elapsed().as_millis() as u64,
        "incremental resolution"
    );
    let t = std::time::Instant::now();

    // Carry over the edges of unaffected files, renumbered. What each old file became is
    // looked up once here, not by path for every edge (1.3M on the Rust tree: the
    // lookups by path were most of a one-file update's 600 ms carry, `-v`).
    let prev_offsets = node_offsets(prev_files);
    let new_offsets = node_offsets(files);
    let old_files: Vec<OldFile> = prev_files
        .iter()
        .map(|f| {
            let p = f.path.as_str();
            OldFile {
                path: p,
                new: new_at.get(p).copied(),
                changed: changed.contains(p),
                moves: moved.get(p).map(Vec::as_slice),
            }
        })
        .collect();
    // Old node position → new one (`u32::MAX`: gone), one table instead of two binary
    // searches per edge.
    let prev_nodes = prev_offsets.last().map_or(0, |&o| {
        o as usize + 1 + prev_files.last().map_or(0, |f| f.definitions.len())
    });
    let mut new_pos = vec![u32::MAX; prev_nodes];
    for (pfi, of) in old_files.iter().enumerate() {
        let Some(nfi) = of.new else { continue };
        let base = prev_offsets[pfi] as usize;
        for local in 0..1 + prev_files[pfi].definitions.len() {
            let to = match of.moves {
                Some(m) => match m.get(local) {
                    Some(&Some(to)) => to,
                    _ => continue,
                },
                None if of.changed => continue,
                None => local as u32,
            };
            new_pos[base + local] = new_offsets[nfi] + to;
        }
    }
    let remap = |pos: u32| {
        new_pos
            .get(pos as usize)
            .copied()
            .filter(|&p| p != u32::MAX)
    };
    // The unaffected files' edges are carried over (renumbered) while the affected files
    // are resolved on the other thread, against the previous update's tables carried over
    // (renumbered and merged), or made once.
    let carry_ms = t.elapsed().as_millis() as u64;
    let t = std::time::Instant::now();
    let (carried, (tables, fresh, tables_ms, resolve_ms)) = rayon::join(
        || {
            carry_edges(
                prev_graph,
                &prev_offsets,
                &old_files,
                &selected,
                &new_offsets,
                &remap,
            )
        },
        || {
            let t = std::time::Instant::now();
            let tables = Arc::new(match prev_tables {
                Some(prev) => {
                    // Each old file's new index (`u32::MAX`: changed or gone), and the
                    // changed and added files, which the tables take in afresh.
                    let old_to_new: Vec<u32> = old_files
                        .iter()
                        .map(|of| match of.new {
                            Some(n) if !of.changed => n as u32,
                            _ => u32::MAX,
                        })
                        .collect();
                    let fresh: Vec<u32> = (0..files.len() as u32)
                        .filter(|&fi| changed.contains(files[fi as usize].path.as_str()))
                        .collect();
                    prev.update(prev_files, files, &old_to_new, &fresh)
                }
                None => Tables::build(files, enclosing),
            });
            let tables_ms = t.elapsed().as_millis() as u64;
            let fresh = resolve::resolve_selected(files, &selected, &tables);
            (tables, fresh, tables_ms, t.elapsed().as_millis() as u64)
        },
    );
    let (carried, runs) = carried?;
    // Every file's edges in file order: the affected files' fresh ones, the others' carried.
    let mut edges: Vec<RawEdge> =
        Vec::with_capacity(carried.len() + fresh.iter().map(|(_, e, _)| e.len()).sum::<usize>());
    let mut unresolved = Vec::new();
    let mut fresh = fresh.into_iter().peekable();
    let mut carried = carried.into_iter();
    let mut runs = runs.into_iter().peekable();
    for fi in 0..files.len() {
        if let Some((_, e, u)) = fresh.next_if(|(f, _, _)| *f as usize == fi) {
            edges.extend(e);
            unresolved.extend(u);
        } else if let Some((_, len)) = runs.next_if(|&(f, _)| f == fi) {
            edges.extend(carried.by_ref().take(len));
        }
    }
    tracing::debug!(
        carry_ms = carry_ms + t.elapsed().as_millis() as u64,
        tables_ms,
        tables_carried = prev_tables.is_some(),
        resolve_ms,
        "incremental resolution: affected files resolved, edges carried over"
    );
    // Unresolved calls of unaffected files (a call's site is in its caller's file), by
    // caller: each caller's calls are carried whole, shared with the previous graph. The
    // decision is looked up once per run of callers that share a site file (the same
    // `Arc`).
    let mut last: Option<(&Arc<str>, bool)> = None;
    let carried_unresolved = prev_graph
        .unresolved_groups()
        .filter(|(_, calls)| {
            let Some(file) = calls.first().map(|u| &u.site.file) else {
                return false;
            };
            match last {
                Some((f, keep)) if Arc::ptr_eq(f, file) => keep,
                _ => {
                    let keep = new_at
                        .get(&**file)
                        .is_some_and(|&fi| !selected[fi] && !changed.contains(&**file));
                    last = Some((file, keep));
                    keep
                }
            }
        })
        .map(|(caller, calls)| (caller.clone(), calls.clone()))
        .collect();
    unresolved.sort();
    let out = Resolution {
        edges,
        unresolved,
        tables: Some(tables),
        carried_unresolved,
    };
    if verify() {
        let full = resolve::resolve(files, enclosing);
        let mut all = out.unresolved.clone();
        all.extend(
            out.carried_unresolved
                .iter()
                .flat_map(|(_, c)| c.iter().cloned()),
        );
        all.sort();
        if full.edges != out.edges || full.unresolved != all {
            let first_edge = full
                .edges
                .iter()
                .zip(&out.edges)
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("full {a:?} vs incremental {b:?}"));
            panic!(
                "incremental resolution differs from a full one ({} vs {} edges, {} vs {} \
                 unresolved; first difference: {first_edge:?}; changed: {changed_paths:?})",
                full.edges.len(),
                out.edges.len(),
                full.unresolved.len(),
                all.len()
            );
        }
    }
    Some((out, affected))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::extract;
    use crate::index::facts::Kind;

    fn facts(path: &str, text: &str) -> Arc<FileFacts> {
        Arc::new(extract::facts_for_test(path, text))
    }

    /// The paths [`select`] picks when `edited` replaces its namesake in `before`.
    fn selected(before: &[Arc<FileFacts>], edited: Arc<FileFacts>) -> Vec<String> {
        let after: Vec<Arc<FileFacts>> = before
            .iter()
            .map(|f| {
                if f.path == edited.path {
                    edited.clone()
                } else {
                    f.clone()
                }
            })
            .collect();
        let changed = [edited.path.as_str()].into_iter().collect();
        let (sel, _) = select(before, &after, &changed, None).unwrap();
        // The index of written names selects exactly what the scan does.
        let written = WrittenNames::build(before);
        let (indexed, _) = select(before, &after, &changed, Some(&written)).unwrap();
        assert_eq!(indexed, sel, "selection by the name index");
        after
            .iter()
            .zip(sel)
            .filter(|(_, s)| *s)
            .map(|(f, _)| f.path.clone())
            .collect()
    }

    /// `impl Marker for Square {}` in one file resolves `Square`, defined in another, for
    /// the source of its `implements` edge; with no method, no import and no call, the
    /// impl's own name is the only place the file writes `Square`. So an edit that
    /// touches `Square` selects the impl's file, and one that does not leaves it alone.
    #[test]
    fn an_impl_is_resolved_again_when_its_type_name_is_touched() {
        let before = vec![
            facts("src/a_type.rs", "pub struct Square;\n"),
            facts(
                "src/m_main.rs",
                "pub fn run() -> u32 { helper() }\npub fn helper() -> u32 { 1 }\n",
            ),
            facts(
                "src/z_impl.rs",
                "pub trait Marker {}\nimpl Marker for Square {}\n",
            ),
        ];
        assert!(before[2]
            .definitions
            .iter()
            .any(|d| d.kind == Kind::Impl && &*d.name == "Square"));
        // The type renamed: the impl must find out that `Square` is gone.
        let renamed = facts("src/a_type.rs", "pub struct Squares;\n");
        assert_eq!(
            selected(&before, renamed),
            ["src/a_type.rs", "src/z_impl.rs"]
        );
        // A second `Square` elsewhere makes the impl's type ambiguous.
        let twin = facts("src/m_main.rs", "pub struct Square;\npub fn run() {}\n");
        assert_eq!(selected(&before, twin), ["src/m_main.rs", "src/z_impl.rs"]);
        // A function added beside the type touches no name the impl writes.
        let appended = facts("src/a_type.rs", "pub struct Square;\npub fn side() {}\n");
        assert_eq!(selected(&before, appended), ["src/a_type.rs"]);
        // The impl's file edited: itself alone (nothing else writes its names).
        let reimpl = facts(
            "src/z_impl.rs",
            "pub trait Marker {}\nimpl Marker for Square {}\nfn f() {}\n",
        );
        assert_eq!(selected(&before, reimpl), ["src/z_impl.rs"]);
    }
}
