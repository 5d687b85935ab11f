//! Which files write which name: the index an incremental update looks a touched name up
//! in to find the files an edit can affect. It is one of the resolver's
//! [`Tables`](super::Tables), so it is built and carried across edits with them.

use std::sync::Arc;

use foldhash::HashSet;
use rayon::prelude::*;

use super::renumber::{merge_renumbered, renumbered};
use crate::index::facts::{FileFacts, Kind};

/// Identifier-like tokens of `text` (split at anything but letters, digits and `_`).
pub(crate) fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
}

/// Every name file `f` writes, as the selection matches them against the touched names:
/// callee names whole, and the words of receivers, imports, bases, containers, return
/// types, declared types, an impl's type and (with a relative import) its own path.
pub(crate) fn written_names(f: &FileFacts) -> impl Iterator<Item = &str> {
    let calls = f.calls.iter().flat_map(|c| {
        std::iter::once(c.name.as_str()).chain(c.receiver.as_deref().into_iter().flat_map(tokens))
    });
    let imports = f.imports.iter().flat_map(|i| {
        tokens(&i.module)
            .chain(i.name.as_deref().into_iter().flat_map(tokens))
            .chain(i.alias.as_deref().into_iter().flat_map(tokens))
    });
    let defs = f.definitions.iter().flat_map(|d| {
        let bases = d.bases().iter().flat_map(|b| {
            std::iter::once(b.name.as_str())
                .chain(b.qualifier.as_deref().into_iter().flat_map(tokens))
        });
        bases
            .chain(d.container().into_iter().flat_map(tokens))
            .chain(d.returns().into_iter().flat_map(tokens))
            // `impl Trait for Type` resolves `Type` (its name) for the source of its
            // `implements` edge.
            .chain(
                (d.kind == Kind::Impl)
                    .then_some(&*d.name)
                    .into_iter()
                    .flat_map(tokens),
            )
    });
    let bindings = f.bindings.iter().flat_map(|b| tokens(&b.type_name));
    // A relative import (`from . import x`, `import "./"`) names the file's own folders:
    // the package's `__init__.py` or `index.js` there decides it.
    let relative = f.imports.iter().any(|i| i.module.starts_with('.'));
    let own = relative
        .then_some(f.path.as_str())
        .into_iter()
        .flat_map(tokens);
    calls.chain(imports).chain(defs).chain(bindings).chain(own)
}

/// Which files write which name ([`written_names`]), by name hash: what the selection
/// looks up instead of scanning every file's names (45 ms of a one-file update on the
/// Rust tree of the fetch.sh corpus). A hash collision only selects a file too many,
/// which is resolved again to the same edges. Kept with the resolver's tables, valid for
/// the file list they were made for, and carried across an edit by renumbering and merging
/// (linear, 1-2M entries on the Rust tree).
#[derive(Debug, Clone, Default)]
pub(crate) struct WrittenNames {
    /// (name hash, file index), sorted, unique.
    pairs: Vec<(u64, u32)>,
}

fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x7772_6974_7465_6e21).hash_one(name)
}

impl WrittenNames {
    /// The index of `files`.
    pub(crate) fn build(files: &[Arc<FileFacts>]) -> WrittenNames {
        let all: Vec<u32> = (0..files.len() as u32).collect();
        WrittenNames {
            pairs: Self::pairs(files, &all),
        }
    }

    /// The sorted pairs of files `which` (indices into `files`).
    fn pairs(files: &[Arc<FileFacts>], which: &[u32]) -> Vec<(u64, u32)> {
        let mut v: Vec<(u64, u32)> = which
            .par_iter()
            .flat_map_iter(|&fi| {
                let mut hs: Vec<u64> = written_names(&files[fi as usize]).map(name_hash).collect();
                hs.sort_unstable();
                hs.dedup();
                hs.into_iter().map(move |h| (h, fi))
            })
            .collect();
        v.par_sort_unstable();
        v
    }

    /// Files that write a name in `names`, as a flag per file index (below `n_files`).
    pub(crate) fn writers(&self, names: &HashSet<&str>, n_files: usize) -> Vec<bool> {
        let mut out = vec![false; n_files];
        for name in names {
            let h = name_hash(name);
            let from = self.pairs.partition_point(|p| p.0 < h);
            for &(_, fi) in self.pairs[from..].iter().take_while(|p| p.0 == h) {
                if let Some(f) = out.get_mut(fi as usize) {
                    *f = true;
                }
            }
        }
        out
    }

    /// This index carried to `files`: `old_to_new[i]` is old file `i`'s new index
    /// (`u32::MAX`: changed or gone, its pairs go), `fresh` the new indices of the changed
    /// and added files, whose pairs are merged in. The map must be increasing where
    /// defined (both lists sorted by path), so carried pairs stay sorted.
    pub(crate) fn update(
        &self,
        files: &[Arc<FileFacts>],
        old_to_new: &[u32],
        fresh: &[u32],
    ) -> WrittenNames {
        let add = Self::pairs(files, fresh);
        let mut pairs = Vec::with_capacity(self.pairs.len() + add.len());
        merge_renumbered(
            self.pairs.iter().copied(),
            |(h, fi)| renumbered(old_to_new, fi).map(|n| (h, n)),
            add,
            |a, b| a < b,
            |p| pairs.push(p),
        );
        WrittenNames { pairs }
    }
}
