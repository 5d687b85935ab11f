//! The definition tables every rule looks names up in: definitions by (family, name), by
//! container and by type name, as hash maps for a full resolution ([`RefMap`]) or as
//! sorted lists an incremental update keeps and carries across edits ([`SortedRefs`],
//! [`Tables`]).

use std::sync::Arc;

use foldhash::HashMap;
use rayon::prelude::*;

use super::modules::ModuleTable;
use super::renumber::{merge_renumbered, renumbered};
use super::written::WrittenNames;
use super::{Ctx, DefRef};
use crate::index::facts::{Definition, FileFacts, Kind};
use crate::index::lang::{self, LanguageSpec};
use crate::index::project::Enclosing;

/// A (family, name) key of [`RefMap`].
type RefKey<'a> = (&'a str, &'a str);

/// Key → definitions in (file, definition) order. Two forms with the same answers:
/// * `Hashed`, for a full resolution: one flat list with a range per key in a hash map
///   keyed by borrowed names (a `Vec` per key cost about 90 bytes a definition, 1.2M keys
///   on the fetch.sh corpus, nearly all with one definition; this costs about 50);
/// * `Sorted`, for incremental resolution: a [`SortedRefs`] kept between updates, searched
///   by key hash.
pub(super) enum RefMap<'a> {
    Hashed {
        ranges: HashMap<RefKey<'a>, (u32, u32)>,
        refs: Vec<DefRef>,
    },
    Sorted {
        table: &'a SortedRefs,
        files: &'a [Arc<FileFacts>],
        keyed: Keyed,
    },
}

/// Which key a table files a definition under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keyed {
    /// (family, name): every definition.
    Name,
    /// (family, container name): members of a type or namespace ([`Ctx::container_name`]).
    Container,
    /// (family, name) of type-like definitions (class, struct, trait, impl, module, ...).
    Type,
}

/// The key `d` (of file `f`) is filed under in table `keyed`, if any.
fn key_of<'f>(keyed: Keyed, f: &'f FileFacts, d: &'f Definition) -> Option<RefKey<'f>> {
    key_in(keyed, lang::spec_of(&f.language), f, d)
}

/// [`key_of`] with the file's language spec given (looked up once per file).
#[inline]
pub(super) fn key_in<'f>(
    keyed: Keyed,
    spec: &'static LanguageSpec,
    f: &'f FileFacts,
    d: &'f Definition,
) -> Option<RefKey<'f>> {
    let fam = spec.family();
    match keyed {
        Keyed::Name => Some((fam, &d.name)),
        Keyed::Container => Some((fam, Ctx::container_name(f, d)?)),
        // A Go `type T float64` declares a named type with its own method set (Go spec,
        // "Type definitions"), so it types receivers like a struct does.
        Keyed::Type => (is_typeish(d.kind)
            || (spec.resolution.named_types_have_methods && d.kind == Kind::TypeAlias))
            .then_some((fam, &*d.name)),
    }
}

/// A key's hash for [`SortedRefs`] (fixed seed: equal keys hash equally in every table).
fn key_hash(k: RefKey<'_>) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x6367_7472_6566_7321).hash_one(k)
}

/// The definitions of a set of files filed under one kind of key ([`Keyed`]), sorted by
/// (key hash, key, file, definition); it holds no names, so it outlives the facts it was
/// built from and is carried across an edit by renumbering and merging (linear), where the
/// hash-map form is rebuilt over every definition (about 300 ms of a one-file update on
/// the Rust tree of the fetch.sh corpus, `-v`).
#[derive(Debug, Clone, Default)]
pub(crate) struct SortedRefs {
    hashes: Vec<u64>,
    refs: Vec<DefRef>,
}

/// The incremental resolver's tables (`SortedRefs` by name, container and type name),
/// valid for the file list they were built or updated for (kept with it in an
/// [`Index`](crate::index::Index)).
#[derive(Debug, Clone, Default)]
pub struct Tables {
    pub(super) by_name: SortedRefs,
    pub(super) members: SortedRefs,
    pub(super) types: SortedRefs,
    /// Which files write which name, for selecting the files an edit affects.
    pub(crate) written: WrittenNames,
    /// The module tables (paths, crates, packages, namespaces), kept while an edit changes
    /// nothing they are made of.
    pub(super) modules: Arc<ModuleTable>,
}

/// What [`ModuleTable::build`] reads of a file besides its path.
fn module_facts(
    f: &FileFacts,
) -> (
    &str,
    &[String],
    Option<&crate::index::project::ProjectFile>,
    Vec<&str>,
) {
    let namespaces = f
        .definitions
        .iter()
        .filter(|d| d.kind == Kind::Namespace)
        .map(|d| &*d.qualified_name)
        .collect();
    (&f.language, &f.module_path, f.project.as_ref(), namespaces)
}

impl SortedRefs {
    fn key<'f>(files: &'f [Arc<FileFacts>], keyed: Keyed, r: DefRef) -> Option<RefKey<'f>> {
        let f = &files[r.0 as usize];
        key_of(keyed, f, &f.definitions[r.1 as usize])
    }

    fn order(
        files: &[Arc<FileFacts>],
        keyed: Keyed,
        a: (u64, DefRef),
        b: (u64, DefRef),
    ) -> std::cmp::Ordering {
        a.0.cmp(&b.0)
            .then_with(|| Self::key(files, keyed, a.1).cmp(&Self::key(files, keyed, b.1)))
            .then(a.1.cmp(&b.1))
    }

    /// The entries of files `which` (indices into `files`), sorted.
    fn entries(files: &[Arc<FileFacts>], keyed: Keyed, which: &[u32]) -> Vec<(u64, DefRef)> {
        let mut v: Vec<(u64, DefRef)> = which
            .par_iter()
            .flat_map_iter(|&fi| {
                let f = &files[fi as usize];
                let spec = lang::spec_of(&f.language);
                f.definitions.iter().enumerate().filter_map(move |(di, d)| {
                    key_in(keyed, spec, f, d).map(|k| (key_hash(k), (fi, di as u32)))
                })
            })
            .collect();
        v.par_sort_unstable_by(|&a, &b| Self::order(files, keyed, a, b));
        v
    }

    fn build(files: &[Arc<FileFacts>], keyed: Keyed) -> SortedRefs {
        let all: Vec<u32> = (0..files.len() as u32).collect();
        let (hashes, refs) = Self::entries(files, keyed, &all).into_iter().unzip();
        SortedRefs { hashes, refs }
    }

    /// This table (for the previous file list) carried to `files`: `old_to_new[fi]` is an
    /// old file's new index (`u32::MAX`: changed or removed, its entries go), `fresh` the
    /// new indices of the changed and added files, whose entries are merged in. The map
    /// must be increasing where defined (both lists sorted by path), so carried entries
    /// stay in order.
    fn update(
        &self,
        files: &[Arc<FileFacts>],
        keyed: Keyed,
        old_to_new: &[u32],
        fresh: &[u32],
    ) -> SortedRefs {
        let add = Self::entries(files, keyed, fresh);
        let mut out = SortedRefs {
            hashes: Vec::with_capacity(self.hashes.len() + add.len()),
            refs: Vec::with_capacity(self.refs.len() + add.len()),
        };
        let old = self.hashes.iter().zip(&self.refs).map(|(&h, &r)| (h, r));
        merge_renumbered(
            old,
            |(h, (fi, di))| renumbered(old_to_new, fi).map(|n| (h, (n, di))),
            add,
            |a, b| Self::order(files, keyed, *a, *b).is_le(),
            |(h, r)| {
                out.hashes.push(h);
                out.refs.push(r);
            },
        );
        out
    }

    /// The definitions under `k`, in (file, definition) order.
    fn get<'s>(&'s self, files: &[Arc<FileFacts>], keyed: Keyed, k: &RefKey<'_>) -> &'s [DefRef] {
        let h = key_hash(*k);
        let lo = self.hashes.partition_point(|&x| x < h);
        let hi = lo + self.hashes[lo..].partition_point(|&x| x == h);
        // Within one hash, entries are sorted by key: usually all have `k`.
        let run = &self.refs[lo..hi];
        let key = |r: DefRef| Self::key(files, keyed, r);
        let a = run.partition_point(|&r| key(r) < Some(*k));
        let b = a + run[a..].partition_point(|&r| key(r) == Some(*k));
        &run[a..b]
    }
}

impl Tables {
    /// The tables of `files`.
    pub(crate) fn build(files: &[Arc<FileFacts>], enclosing: &Enclosing) -> Tables {
        let (((by_name, members), types), written) = rayon::join(
            || {
                rayon::join(
                    || {
                        rayon::join(
                            || SortedRefs::build(files, Keyed::Name),
                            || SortedRefs::build(files, Keyed::Container),
                        )
                    },
                    || SortedRefs::build(files, Keyed::Type),
                )
            },
            || WrittenNames::build(files),
        );
        Tables {
            by_name,
            members,
            types,
            written,
            modules: Arc::new(ModuleTable::build(files, enclosing)),
        }
    }

    /// What the folders around the root said when these tables were made.
    pub(crate) fn enclosing(&self) -> &Enclosing {
        &self.modules.enclosing
    }

    /// These tables (built for `prev_files`) carried to `files`: `old_to_new[i]` is old
    /// file `i`'s index in `files` (`u32::MAX`: changed or removed), `fresh` the indices of
    /// the changed and added files. Both lists sorted by path, so the map is increasing.
    pub(crate) fn update(
        &self,
        prev_files: &[Arc<FileFacts>],
        files: &[Arc<FileFacts>],
        old_to_new: &[u32],
        fresh: &[u32],
    ) -> Tables {
        let (((by_name, members), types), written) = rayon::join(
            || {
                rayon::join(
                    || {
                        rayon::join(
                            || self.by_name.update(files, Keyed::Name, old_to_new, fresh),
                            || {
                                self.members
                                    .update(files, Keyed::Container, old_to_new, fresh)
                            },
                        )
                    },
                    || self.types.update(files, Keyed::Type, old_to_new, fresh),
                )
            },
            || self.written.update(files, old_to_new, fresh),
        );
        // The module tables stay when the file list is the same and no changed file
        // changed what they are made of.
        let same_modules = prev_files.len() == files.len()
            && prev_files.iter().zip(files).all(|(a, b)| {
                a.path == b.path && (Arc::ptr_eq(a, b) || module_facts(a) == module_facts(b))
            });
        let modules = if same_modules {
            self.modules.clone()
        } else {
            Arc::new(ModuleTable::build(files, &self.modules.enclosing))
        };
        Tables {
            by_name,
            members,
            types,
            written,
            modules,
        }
    }
}

impl<'a> RefMap<'a> {
    /// Builds the map from `items`, in (file, definition) order. `keys` is the expected
    /// number of keys at most (0 when unknown), so the table is not grown step by step.
    /// One hash lookup per item: each key gets a dense number on first sight, and a
    /// counting sort by that number places the references.
    pub(super) fn build(
        keys: usize,
        items: impl Iterator<Item = (RefKey<'a>, DefRef)>,
    ) -> RefMap<'a> {
        let mut ranges: HashMap<RefKey<'a>, (u32, u32)> =
            HashMap::with_capacity_and_hasher(keys, Default::default());
        // (key number, reference) per item; per key number, its count.
        let mut numbered: Vec<(u32, DefRef)> = Vec::with_capacity(keys);
        let mut counts: Vec<u32> = Vec::with_capacity(keys);
        for (k, d) in items {
            let next = counts.len() as u32;
            let n = ranges.entry(k).or_insert((next, 0)).0;
            if n == next {
                counts.push(0);
            }
            counts[n as usize] += 1;
            numbered.push((n, d));
        }
        // Start of each key's range, then place every reference (stable: item order).
        let mut start = Vec::with_capacity(counts.len());
        let mut at = 0u32;
        for &c in &counts {
            start.push(at);
            at += c;
        }
        let mut cursor = start.clone();
        let mut refs = vec![(0u32, 0u32); numbered.len()];
        for (n, d) in numbered {
            let c = &mut cursor[n as usize];
            refs[*c as usize] = d;
            *c += 1;
        }
        for r in ranges.values_mut() {
            let n = r.0 as usize;
            *r = (start[n], start[n] + counts[n]);
        }
        RefMap::Hashed { ranges, refs }
    }

    /// The definitions under `k`, in (file, definition) order.
    pub(super) fn get(&self, k: &RefKey<'_>) -> Option<&[DefRef]> {
        match self {
            RefMap::Hashed { ranges, refs } => {
                let &(a, b) = ranges.get(k)?;
                Some(&refs[a as usize..b as usize])
            }
            RefMap::Sorted {
                table,
                files,
                keyed,
            } => Some(table.get(files, *keyed, k)).filter(|v| !v.is_empty()),
        }
    }

    /// The definitions under `k` (none when absent), in (file, definition) order.
    pub(super) fn refs(&self, k: &RefKey<'_>) -> impl Iterator<Item = DefRef> + '_ {
        self.get(k).unwrap_or_default().iter().copied()
    }

    pub(super) fn contains_key(&self, k: &RefKey<'_>) -> bool {
        self.get(k).is_some()
    }
}

pub(super) fn is_typeish(k: Kind) -> bool {
    k.is_type_container() || matches!(k, Kind::Module | Kind::Namespace)
}
