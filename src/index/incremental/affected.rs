//! Incremental resolution: after an edit, resolve again only the files whose edges the
//! edit can change, and carry every other file's edges over from the previous graph.
//!
//! The resolver decides a file's outgoing edges from the names that file writes (callee
//! names, receivers and qualifiers, imported modules and names, bases, declared types)
//! looked up in tables built from every file's definitions, exports and module paths.
//! So an edit can change file F's edges only if F writes a name that a changed file
//! defines, exports, imports or is named by (its stem, folders, module path, package),
//! before or after the edit. Those files ("affected") are resolved again against tables
//! built from all facts; the rest keep their edges, renumbered to the new node positions
//! (a monotone map, so the per-file edge order is kept). A project file (tsconfig,
//! go.mod, Cargo.toml) among the changes, or any inconsistency found while carrying
//! edges over, falls back to resolving everything.
//!
//! [`VERIFY`] (or `CODEGRAPH_VERIFY_INCREMENTAL=1`) resolves everything as well and
//! panics when the two differ: a debugging aid the test suite turns on.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, Ordering};

use crate::index::facts::{FileFacts, Kind};
use crate::index::graph::{CodeGraph, RawEdge, Unresolved};
use crate::index::resolve::{self, node_offsets, Resolution};

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

/// Identifier-like tokens of `text` (split at anything but letters, digits and `_`).
pub(super) fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
}

/// Receiver words that name no type (never worth offering).
pub(super) const SELF_WORDS: &[&str] = &["self", "this", "cls", "super", "Self"];

/// The names other files reach a file by: its stem and folder (what module paths and
/// import specifiers end with), the last word of its module path, its package.
/// Deliberately not the whole path or module path: `src` or `github` would touch every
/// file.
pub(super) fn named_by<'a>(f: &'a FileFacts, out: &mut HashSet<&'a str>) {
    let mut parts = f.path.rsplit('/');
    if let Some(file) = parts.next() {
        let stem = file.split('.').next().unwrap_or(file);
        // A package's `__init__.py`, `mod.rs` or `index.js` is named by its folder.
        if !matches!(stem, "__init__" | "mod" | "index") {
            out.insert(stem);
        }
    }
    if let Some(dir) = parts.next() {
        out.extend(tokens(dir));
    }
    // The last word only: a Go module path is one `github.com/x/y/pkg` element.
    if let Some(m) = f.module_path.last().and_then(|m| tokens(m).last()) {
        out.insert(m);
    }
    if let Some(p) = f.package.as_deref().and_then(|p| tokens(p).last()) {
        out.insert(p);
    }
}

/// Every name a file offers to others: what it defines or re-exports, and the names it is
/// reached by ([`named_by`]).
pub(super) fn offered<'a>(f: &'a FileFacts, out: &mut HashSet<&'a str>) {
    named_by(f, out);
    for d in &f.definitions {
        out.insert(&d.name);
        if let Some(c) = d.container() {
            out.extend(tokens(c));
        }
        for b in d.bases() {
            out.insert(&b.name);
        }
    }
    // Re-exports: a name imported here may be imported from here elsewhere.
    for i in &f.imports {
        for n in [&i.name, &i.alias].into_iter().flatten() {
            out.extend(tokens(n));
        }
    }
    // Fields (`self.x = ..`, a typed field of a class or struct) type receivers in other
    // files, which then write the field's name; locals and parameters stay in the file.
    for b in &f.bindings {
        let in_type = b
            .scope
            .and_then(|i| f.definitions.get(i as usize))
            .is_some_and(|d| {
                matches!(
                    d.kind,
                    Kind::Class
                        | Kind::Struct
                        | Kind::Interface
                        | Kind::Trait
                        | Kind::Impl
                        | Kind::Enum
                )
            });
        if in_type || b.name.contains('.') {
            out.extend(tokens(&b.name).filter(|t| !SELF_WORDS.contains(t)));
        }
    }
    if let Some(e) = &f.default_export {
        out.extend(tokens(e));
    }
}

/// Adds to `touched` the aliases under which a file passes a touched name on (`export {
/// formatCents as money } from "./money"`, `from .a import f as g`, `pub use a::f as g`,
/// `export { default as money }` of a touched file): their importers write the alias, not
/// the name. Followed to a fixed point (alias chains).
fn follow_aliases<'a>(files: &'a [FileFacts], touched: &mut HashSet<&'a str>) {
    loop {
        let before = touched.len();
        for i in files.iter().flat_map(|f| &f.imports) {
            let (Some(name), Some(alias)) = (i.name.as_deref(), i.alias.as_deref()) else {
                continue;
            };
            let passes = if name == "default" {
                tokens(&i.module).any(|t| touched.contains(t))
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

/// `impl Trait for Type` makes its `implements` edge start at `Type`'s node, which may lie
/// in another file than the impl, while edges are carried over and resolved again by the
/// file they start in. So the files of an impl and of the types it may name must be
/// resolved again together: per impl'd name, when any file that has an impl of that name
/// or a type of that name is selected or changed, all of them are selected (to a fixed
/// point, since a newly selected file may couple others).
fn couple_impls(
    prev_files: &[FileFacts],
    files: &[FileFacts],
    changed: &HashSet<&str>,
    selected: &mut [bool],
) {
    let impls = |f: &'_ FileFacts| {
        f.definitions
            .iter()
            .filter(|d| d.kind == Kind::Impl)
            .map(|d| d.name.to_string())
            .collect::<Vec<_>>()
    };
    let impl_names: HashSet<String> = files.iter().flat_map(impls).collect();
    if impl_names.is_empty() {
        return;
    }
    // Impl'd name → files with an impl or a type-like definition of that name.
    let mut group: HashMap<&str, Vec<usize>> = HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        let mut names: Vec<&str> = f
            .definitions
            .iter()
            .filter(|d| {
                d.kind == Kind::Impl || d.kind.is_type_container() || d.kind == Kind::TypeAlias
            })
            .map(|d| &*d.name)
            .filter(|n| impl_names.contains(*n))
            .collect();
        names.sort_unstable();
        names.dedup();
        for n in names {
            group.entry(n).or_default().push(fi);
        }
    }
    // Names a changed file had or has: their groups are resolved again whole.
    let mut hot: HashSet<&str> = HashSet::new();
    for f in prev_files.iter().chain(files) {
        if changed.contains(f.path.as_str()) {
            hot.extend(f.definitions.iter().map(|d| &*d.name));
        }
    }
    loop {
        let mut more = false;
        for (n, fs) in &group {
            if hot.contains(n) || fs.iter().any(|&fi| selected[fi]) {
                for &fi in fs {
                    more |= !std::mem::replace(&mut selected[fi], true);
                }
            }
        }
        if !more {
            return;
        }
    }
}

/// `true` when file `f` writes any name in `touched`.
fn mentions(f: &FileFacts, touched: &HashSet<&str>) -> bool {
    let hit = |s: &str| tokens(s).any(|t| touched.contains(t));
    f.calls
        .iter()
        .any(|c| touched.contains(c.name.as_str()) || c.receiver.as_deref().is_some_and(hit))
        || f.imports.iter().any(|i| {
            hit(&i.module)
                || i.name.as_deref().is_some_and(hit)
                || i.alias.as_deref().is_some_and(hit)
        })
        || f.definitions.iter().any(|d| {
            d.bases().iter().any(|b| {
                touched.contains(b.name.as_str()) || b.qualifier.as_deref().is_some_and(hit)
            }) || d.container().is_some_and(hit)
                || d.returns().is_some_and(hit)
        })
        || f.bindings.iter().any(|b| hit(&b.type_name))
        // A relative import (`from . import x`, `import "./"`) names the file's own
        // folders: the package's `__init__.py` or `index.js` there decides it.
        || (f.imports.iter().any(|i| i.module.starts_with('.')) && hit(&f.path))
}

fn by_path(list: &[FileFacts]) -> HashMap<&str, usize> {
    list.iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect()
}

/// Position → (file index, local node index) for a node list laid out by `offsets`.
fn locate(offsets: &[u32], pos: u32) -> Option<(usize, u32)> {
    let fi = offsets.partition_point(|&o| o <= pos).checked_sub(1)?;
    Some((fi, pos - offsets[fi]))
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

/// The resolution of `files` (the new fact set, sorted by path) after the files in
/// `changed_paths` changed (added, modified or removed) relative to `prev_files`, whose
/// resolved graph is `prev_graph`, and the number of files resolved again. `None` when
/// only a full resolution is safe.
pub(crate) fn resolve_incremental(
    prev_files: &[FileFacts],
    prev_graph: &CodeGraph,
    files: &[FileFacts],
    changed_paths: &[&str],
) -> Option<(Resolution, usize)> {
    let t = std::time::Instant::now();
    let changed: HashSet<&str> = changed_paths.iter().copied().collect();
    let prev_at = by_path(prev_files);
    let new_at = by_path(files);
    let mut touched: HashSet<&str> = HashSet::new();
    // Modified files: old local node index → new one, by definition id.
    let mut moved: HashMap<&str, Vec<Option<u32>>> = HashMap::new();
    for p in &changed {
        let old = prev_at.get(p).map(|&i| &prev_files[i]);
        let new = new_at.get(p).map(|&i| &files[i]);
        if old.is_some_and(|f| f.project.is_some()) || new.is_some_and(|f| f.project.is_some()) {
            return None;
        }
        match (old, new) {
            (Some(old), Some(new)) => {
                super::diff::edit_touches(old, new, &mut touched);
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
    let selected: Vec<bool> = files
        .iter()
        .map(|f| changed.contains(f.path.as_str()) || mentions(f, &touched))
        .collect();
    let mut selected = selected;
    couple_impls(prev_files, files, &changed, &mut selected);
    let affected = selected.iter().filter(|&&s| s).count();
    tracing::debug!(
        affected,
        files = files.len(),
        select_ms = t.elapsed().as_millis() as u64,
        "incremental resolution"
    );
    let t = std::time::Instant::now();

    // Carry over the edges of unaffected files, renumbered.
    let prev_offsets = node_offsets(prev_files);
    let new_offsets = node_offsets(files);
    let (prev_edges, prev_unresolved) = prev_graph.to_raw_parts();
    let remap = |pos: u32| -> Option<(usize, u32)> {
        let (pfi, local) = locate(&prev_offsets, pos)?;
        let path = prev_files[pfi].path.as_str();
        let local = match moved.get(path) {
            Some(m) => (*m.get(local as usize)?)?,
            None if changed.contains(path) => return None,
            None => local,
        };
        let nfi = *new_at.get(path)?;
        Some((nfi, new_offsets[nfi] + local))
    };
    let mut kept: Vec<Vec<RawEdge>> = vec![Vec::new(); files.len()];
    for e in prev_edges {
        let (pfi, local) = locate(&prev_offsets, e.source)?;
        let path = prev_files[pfi].path.as_str();
        if changed.contains(path) {
            // A changed file is resolved again (or is gone): its old edges go.
            continue;
        }
        let Some(&src_fi) = new_at.get(path) else {
            tracing::debug!(
                from = path,
                "full resolution: an unchanged file has no place in the new index"
            );
            return None;
        };
        let src = new_offsets[src_fi] + local;
        if selected[src_fi] {
            continue;
        }
        // An unaffected file's edge into a removed file, or to a definition a modified
        // file no longer has, means the rule above missed a dependency: resolve
        // everything rather than guess. Edges to definitions a modified file still has
        // follow them (by id) to their new place.
        let Some((_, tgt)) = remap(e.target) else {
            tracing::debug!(
                from = files[src_fi].path,
                "full resolution: an unaffected file has an edge to a node that is gone"
            );
            return None;
        };
        kept[src_fi].push(RawEdge {
            source: src,
            target: tgt,
            ..e
        });
    }
    let carry_ms = t.elapsed().as_millis() as u64;
    let t = std::time::Instant::now();
    let fresh = resolve::resolve_selected(files, &selected);
    tracing::debug!(
        carry_ms,
        resolve_ms = t.elapsed().as_millis() as u64,
        "incremental resolution: edges carried over, affected files resolved"
    );
    let mut fresh_by_file: HashMap<u32, (Vec<RawEdge>, Vec<Unresolved>)> =
        fresh.into_iter().map(|(fi, e, u)| (fi, (e, u))).collect();
    let mut edges = Vec::new();
    let mut unresolved = Vec::new();
    for (fi, kept_edges) in kept.into_iter().enumerate() {
        if selected[fi] {
            let (e, u) = fresh_by_file.remove(&(fi as u32))?;
            edges.extend(e);
            unresolved.extend(u);
        } else {
            edges.extend(kept_edges);
        }
    }
    // Unresolved calls of unaffected files (a call's site is in its caller's file).
    unresolved.extend(prev_unresolved.into_iter().filter(|u| {
        new_at
            .get(&*u.site.file)
            .is_some_and(|&fi| !selected[fi] && !changed.contains(&*u.site.file))
    }));
    unresolved.sort();
    let out = Resolution { edges, unresolved };
    if verify() {
        let full = resolve::resolve(files);
        if full.edges != out.edges || full.unresolved != out.unresolved {
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
                out.unresolved.len()
            );
        }
    }
    Some((out, affected))
}
