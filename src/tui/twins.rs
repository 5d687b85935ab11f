//! Generated twins: a library that ships its source next to its build output (`src/a.ts`,
//! `dist/a.js`, `dist/a.cjs`, `dist/a.d.ts`) defines each symbol four times, and the
//! search box listed four rows per symbol. Files are twins when their path is the same
//! once `src/` and the build folders (`lib/`, `esm/`, `cjs/`, `esnext/`, `dist/`, ...)
//! are left out and every extension is taken off the file name; in a group of
//! twins one file is the primary (one outside the build folders, then the one with the
//! fewest extensions, then the first by path). A definition of another file of the group
//! is a twin when the primary defines the same in-file name: the search folds it under
//! the primary's row (shown as `+N`), or lists it when folding is off (F3).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::index::{CodeGraph, Kind};

/// Folder names that hold build output rather than source.
/// (`dist/` and `build/` are also skipped by the walk's default globs; a package that
/// ships `lib/esm/`, `lib/cjs/` and `lib/esnext/` next to `src/`, as blueprint's does, is
/// indexed with them.)
const BUILD_DIRS: &[&str] = &[
    "dist", "build", "lib", "out", "esm", "cjs", "umd", "types", "esnext", "es2015", "es5",
];

/// The twin definitions of a graph and how many each primary definition has.
#[derive(Debug, Default, Clone)]
pub struct Twins {
    /// Ids of definitions that are twins of a primary definition.
    pub folded: HashSet<Arc<str>>,
    /// For each primary definition with twins, how many.
    pub count: HashMap<Arc<str>, u32>,
}

/// The path a file shares with its twins: build folders and `src/` (which build folders
/// mirror) left out, extensions taken off.
fn twin_key(path: &str) -> String {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or("");
    let stem = file.split('.').next().unwrap_or(file);
    let mut key: Vec<&str> = parts
        .into_iter()
        .filter(|d| *d != "src" && !BUILD_DIRS.contains(d))
        .collect();
    key.push(stem);
    key.join("/")
}

/// How much a file looks like the source of its group (lower is more): outside build
/// folders first, then fewer extensions (`a.ts` before `a.d.ts`), then by path.
fn source_rank(path: &str) -> (bool, usize, &str) {
    let built = path.split('/').any(|d| BUILD_DIRS.contains(&d));
    let file = path.rsplit('/').next().unwrap_or(path);
    (built, file.matches('.').count(), path)
}

/// The in-file name of a definition id (`path::Outer.name` → `Outer.name`).
fn in_file(id: &str) -> &str {
    id.split_once("::").map_or(id, |(_, r)| r)
}

impl Twins {
    /// Finds the twins of `g`. Cost: one pass over the file nodes; when some files are
    /// twins, two passes over the definitions.
    pub fn of(g: &CodeGraph) -> Twins {
        let mut groups: HashMap<String, Vec<&str>> = HashMap::new();
        for n in g.nodes().filter(|n| n.kind == Kind::File) {
            groups.entry(twin_key(&n.file)).or_default().push(&n.file);
        }
        // File → the primary file of its group, for the files that are not primaries.
        let mut primary_of: HashMap<&str, &str> = HashMap::new();
        for files in groups.values().filter(|f| f.len() > 1) {
            let primary = files
                .iter()
                .min_by_key(|f| source_rank(f))
                .copied()
                .unwrap_or_default();
            for f in files.iter().filter(|f| **f != primary) {
                primary_of.insert(f, primary);
            }
        }
        let mut out = Twins::default();
        if primary_of.is_empty() {
            return out;
        }
        let primaries: HashSet<&str> = primary_of.values().copied().collect();
        let mut defined: HashMap<(&str, &str), Arc<str>> = HashMap::new();
        for n in g.nodes().filter(|n| n.kind != Kind::File) {
            if primaries.contains(&*n.file) {
                defined
                    .entry((&*n.file, in_file(&n.id)))
                    .or_insert_with(|| n.id.clone());
            }
        }
        for n in g.nodes().filter(|n| n.kind != Kind::File) {
            let Some(p) = primary_of.get(&*n.file) else {
                continue;
            };
            if let Some(primary) = defined.get(&(*p, in_file(&n.id))) {
                out.folded.insert(n.id.clone());
                *out.count.entry(primary.clone()).or_insert(0) += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_folders_and_extensions_make_twins() {
        assert_eq!(twin_key("src/core/parser.ts"), "core/parser");
        assert_eq!(twin_key("dist/core/parser.d.ts"), "core/parser");
        assert_eq!(twin_key("packages/x/dist/parser.cjs"), "packages/x/parser");
        assert!(source_rank("src/a.ts") < source_rank("dist/a.js"));
        assert!(source_rank("dist/a.js") < source_rank("dist/a.d.ts"));
    }
}
