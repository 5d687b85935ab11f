//! Cross-file resolution over all files' facts (never over trees): every call site becomes
//! one edge to exactly one definition, or an [`Unresolved`] reference with its reason.
//!
//! Order of rules (DESIGN section 4, most certain first):
//! 1. `local`: a definition of that name in the caller's own scope chain or file (methods
//!    excluded for bare calls: rustc, CPython and JS never resolve a bare name to a method);
//!    in Go, the caller's package.
//! 2. `import`: a name bound by an import of the caller's file, followed to its module.
//! 3. `qualified`: a receiver or path qualifier: `self`/`this`/`Self` to the enclosing
//!    type's members (then its bases), a module path, or a type name (`Foo::new`).
//! 4. `unique_name`: the only definition of that name in the repo, same language family,
//!    with the guard of [`unique_name_allowed`].
//!
//! A name bound to a module outside the repo is `external` and never falls through to a
//! guess. Several candidates that nothing narrows give `ambiguous`.

mod modules;
mod written;

use std::sync::Arc;

use foldhash::HashMap;

use modules::{ModuleTable, Target};
pub(crate) use written::{tokens, written_names, WrittenNames};

use super::facts::{Binding, CallSite, Definition, FileFacts, Import, Kind};
use rayon::prelude::*;

use super::graph::{RawEdge, Relation, Site, Tier, Unresolved, UnresolvedReason};

type DefRef = (u32, u32);

/// Names too common to resolve by repo-wide uniqueness: short names and the method names
/// every standard library has. (Source: the most frequent callee names in the fetch.sh
/// corpus whose in-repo definition was usually not the target.)
const COMMON_NAMES: &[&str] = &[
    "new", "get", "set", "run", "init", "main", "call", "apply", "bind", "push", "pop", "len",
    "add", "remove", "update", "close", "open", "read", "write", "start", "stop", "send", "next",
    "clone", "from", "into", "parse", "load", "save", "test", "map", "filter", "reduce", "find",
    "insert", "delete", "clear", "keys", "values", "items", "append", "extend", "join", "split",
    "format", "print", "log", "error", "warn", "info", "debug", "emit", "then", "catch", "resolve",
    "reject", "create", "build", "default", "hash", "eq", "cmp", "fmt", "drop", "poll", "wait",
    "flush", "lock", "spawn", "handle", "process", "execute", "render", "toString", "valueOf",
    "equals", "hashCode", "compare", "contains", "is_empty", "isEmpty", "size", "length", "copy",
    "reset", "dispose", "close", "connect", "listen", "match", "replace", "encode", "decode",
];

/// Global objects of ECMAScript, Node.js and browsers: a call on one of them (when the name
/// is not bound in the file) leaves the repository.
const JS_GLOBALS: &[&str] = &[
    "JSON",
    "Math",
    "Object",
    "Array",
    "Promise",
    "console",
    "process",
    "window",
    "document",
    "Number",
    "String",
    "Boolean",
    "Date",
    "Reflect",
    "Symbol",
    "Intl",
    "Buffer",
    "globalThis",
    "navigator",
    "Error",
    "Map",
    "Set",
    "WeakMap",
    "WeakSet",
    "RegExp",
    "BigInt",
    "Atomics",
    "Proxy",
    "URL",
    "crypto",
    "performance",
    "location",
    "history",
    "localStorage",
    "sessionStorage",
    "require",
    "module",
    "exports",
];

fn fam_is_js(f: &FileFacts) -> bool {
    family(&f.language) == "js"
}

/// Methods of the web platform and of ECMAScript's built-in prototypes (DOM Standard:
/// `Node`, `Element`, `EventTarget`, `Document`; HTML: canvas, forms; ECMA-262: `Array`,
/// `String`, `Object`, `Date`, `Number`): a JS call of one of these on a receiver of unknown
/// type is more likely the platform's than a repo method's, so it is never guessed (on
/// the npm tree, DOM `svg.setAttribute(...)` calls were linked to three.js's
/// `BufferGeometry.setAttribute`).
const JS_PLATFORM_METHODS: &[&str] = &[
    "setAttribute",
    "getAttribute",
    "removeAttribute",
    "hasAttribute",
    "toggleAttribute",
    "setAttributeNS",
    "getAttributeNS",
    "addEventListener",
    "removeEventListener",
    "dispatchEvent",
    "appendChild",
    "removeChild",
    "insertBefore",
    "replaceChild",
    "replaceChildren",
    "replaceWith",
    "cloneNode",
    "contains",
    "querySelector",
    "querySelectorAll",
    "getElementById",
    "getElementsByClassName",
    "getElementsByTagName",
    "createElement",
    "createElementNS",
    "createTextNode",
    "createDocumentFragment",
    "getContext",
    "getBoundingClientRect",
    "getClientRects",
    "scrollIntoView",
    "scrollTo",
    "focus",
    "blur",
    "click",
    "closest",
    "matches",
    "prepend",
    "before",
    "after",
    "insertAdjacentHTML",
    "insertAdjacentElement",
    "requestPointerLock",
    "requestFullscreen",
    "setPointerCapture",
    "releasePointerCapture",
    "preventDefault",
    "stopPropagation",
    "stopImmediatePropagation",
    "toDataURL",
    "toBlob",
    "drawImage",
    "fillRect",
    "clearRect",
    "strokeRect",
    "fillText",
    "measureText",
    "beginPath",
    "closePath",
    "moveTo",
    "lineTo",
    "arc",
    "stroke",
    "fill",
    "getImageData",
    "putImageData",
    "checkValidity",
    "submit",
    "forEach",
    "indexOf",
    "lastIndexOf",
    "includes",
    "slice",
    "splice",
    "concat",
    "some",
    "every",
    "sort",
    "reverse",
    "shift",
    "unshift",
    "flatMap",
    "findIndex",
    "substring",
    "substr",
    "toLowerCase",
    "toUpperCase",
    "trim",
    "trimStart",
    "trimEnd",
    "startsWith",
    "endsWith",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "padStart",
    "padEnd",
    "repeat",
    "hasOwnProperty",
    "isPrototypeOf",
    "toFixed",
    "toPrecision",
    "getTime",
    "toISOString",
    "toJSON",
    "localeCompare",
    "normalize",
];

/// The guard of the `unique_name` tier: at least 4 chars and not in `COMMON_NAMES`.
pub fn unique_name_allowed(name: &str) -> bool {
    name.chars().count() >= 4 && !COMMON_NAMES.contains(&name)
}

/// Languages that see each other's definitions (JS and TS import each other).
fn family(lang: &str) -> &str {
    match lang {
        "javascript" | "typescript" | "tsx" => "js",
        "c" | "cpp" => "c",
        l => l,
    }
}

/// The result of resolution.
#[derive(Debug, Default)]
pub struct Resolution {
    /// Edges of every relation between node positions (see [`node_offsets`]).
    pub edges: Vec<RawEdge>,
    /// Calls without an edge, sorted.
    pub unresolved: Vec<Unresolved>,
    /// The incremental resolver's tables for these files, when it made them (kept for the
    /// next update).
    pub tables: Option<Arc<Tables>>,
    /// Unresolved calls besides `unresolved`: whole callers' calls carried over from the
    /// previous graph by an incremental update (sorted by caller, shared); empty after a
    /// full resolution.
    pub carried_unresolved: Vec<(Arc<str>, crate::index::graph::CallerCalls)>,
}

/// Go's predeclared types (the Go spec, "Predeclared identifiers"): a value of one is
/// never of a repo type.
const GO_PREDECLARED_TYPES: &[&str] = &[
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

/// What a receiver's type is known to be.
enum Typed {
    /// A type defined in the repo, by name: looked up from the file of the call.
    Repo(String),
    /// The repo type definition the name resolved to in the file that wrote it (a
    /// parameter's `b.Encoder`, a factory's return type in its own file): a same-named type
    /// of the calling file is not it.
    Def(DefRef),
    /// A type defined nowhere in the repo.
    External,
    /// Not known.
    Unknown,
}

/// The constructed type of an inline construction receiver: `Foo(db)`, `new Foo()`,
/// `pkg.Foo()`, `Foo::new(..)`, `Foo { .. }` → `Foo`. `None` for anything else.
fn inline_constructor(recv: &str) -> Option<&str> {
    let r = recv.strip_prefix("new ").unwrap_or(recv).trim();
    let head = if let Some(i) = r.find("::new(") {
        &r[..i]
    } else if let Some(i) = r.find(['(', '{']) {
        if !(r.ends_with(')') || r.ends_with('}')) {
            return None;
        }
        r[..i].trim_end()
    } else {
        return None;
    };
    let name = head.rsplit(['.', ':']).next()?;
    let ok = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        && head
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == ':');
    ok.then_some(name)
}

/// Python `import a.b.c` (no alias) binds the top-level package `a`, not `c` (language
/// reference, "The import statement"): the name it binds, else `None`.
fn python_package_binding<'i>(fam: &str, imp: &'i Import) -> Option<&'i str> {
    if fam != "python" || imp.name.is_some() || imp.alias.is_some() {
        return None;
    }
    imp.module
        .split_once('.')
        .map(|(top, _)| top)
        .filter(|t| !t.is_empty())
}

/// A typed name's lookup key: `self.x` and `this.x` share the key `x` with a field `x`.
fn binding_key(name: &str) -> &str {
    name.strip_prefix("self.")
        .or_else(|| name.strip_prefix("this."))
        .unwrap_or(name)
}

/// Byte index of the `(` matching the end of `s` (which had its final `)` removed).
fn matching_open_paren(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 0 => return Some(i),
            '(' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// What an import binding leads to.
#[derive(Clone)]
enum Bound {
    Defs(Vec<DefRef>),
    Module(Vec<u32>),
    External,
    NotFound,
}

struct Ctx<'a> {
    files: &'a [Arc<FileFacts>],
    modules: Arc<ModuleTable>,
    /// (family, name) → definitions, sorted by (file, definition).
    by_name: RefMap<'a>,
    /// (family, container name) → member definitions.
    members: RefMap<'a>,
    /// (family, type name) → type-like definitions (class, struct, trait, impl, ...).
    types: RefMap<'a>,
    /// file → its name maps, made on first use (an incremental update reads a few files').
    local: Vec<std::sync::OnceLock<FileMaps<'a>>>,
    /// file → [`is_test_path`] of its path (asked for every candidate of every call).
    is_test: Vec<bool>,
    /// C and C++ `static` free functions of source (non-header) files: internal linkage
    /// (C11 6.2.2), so no other file can call them (see [`is_internal`]).
    internal: foldhash::HashSet<DefRef>,
    /// [`Ctx::factory_return`]'s answers by (family, name).
    factory: std::sync::Mutex<FactoryReturns>,
}

/// (family, name) → the one return type of the callables of that name, if one.
type FactoryReturns = foldhash::HashMap<(String, String), Option<Arc<str>>>;

/// One file's names, for lookups from its calls.
struct FileMaps<'a> {
    /// Local name → import bindings.
    bindings: HashMap<&'a str, Vec<&'a Import>>,
    /// Typed names by key (the name, `self.`/`this.` stripped), so receiver typing never
    /// scans a file's bindings.
    typed: HashMap<&'a str, Vec<&'a Binding>>,
    /// (definition, name) of every name bound inside a definition, typed or not
    /// (parameters, locals) → the first 1-based line binding it: what shadows outer
    /// definitions of that name (from that line on, in Go).
    bound: foldhash::HashMap<(u32, &'a str), u32>,
    /// [`Ctx::bind`]'s answer for each of the file's imports (by position), once asked:
    /// every call of an imported name asks it again (resolving a Rust `use` path was 2%
    /// of a Rust-tree index, `perf`).
    imports_bound: Vec<std::sync::OnceLock<Bound>>,
    /// The files each of the file's Python or JS import specifiers names
    /// ([`Ctx::import_target`]), once asked, by import position: a re-export is followed
    /// from every file that looks a name up through it, and each time its relative path
    /// was joined and probed again (a fifth of a Python-tree resolution's `exported_in`,
    /// `perf`).
    import_targets: Vec<std::sync::OnceLock<Target>>,
    /// [`Ctx::resolve_base`]'s answers in this file, by type name, once asked: every
    /// `self.m()` of a Python class asks for the class again.
    bases: std::sync::Mutex<foldhash::HashMap<String, Option<(DefRef, Tier)>>>,
}

/// A (family, name) key of [`RefMap`].
type RefKey<'a> = (&'a str, &'a str);

/// Key → definitions in (file, definition) order. Two forms with the same answers:
/// * `Hashed`, for a full resolution: one flat list with a range per key in a hash map
///   keyed by borrowed names (a `Vec` per key cost about 90 bytes a definition, 1.2M keys
///   on the fetch.sh corpus, nearly all with one definition; this costs about 50);
/// * `Sorted`, for incremental resolution: a [`SortedRefs`] kept between updates, searched
///   by key hash.
enum RefMap<'a> {
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
enum Keyed {
    /// (family, name): every definition.
    Name,
    /// (family, container name): members of a type or namespace ([`Ctx::container_name`]).
    Container,
    /// (family, name) of type-like definitions (class, struct, trait, impl, module, ...).
    Type,
}

/// The key `d` (of file `f`) is filed under in table `keyed`, if any.
fn key_of<'f>(keyed: Keyed, f: &'f FileFacts, d: &'f Definition) -> Option<RefKey<'f>> {
    key_in(keyed, family(&f.language), f, d)
}

/// [`key_of`] with the file's family (`family(&f.language)`) given.
#[inline]
fn key_in<'f>(
    keyed: Keyed,
    fam: &'f str,
    f: &'f FileFacts,
    d: &'f Definition,
) -> Option<RefKey<'f>> {
    match keyed {
        Keyed::Name => Some((fam, &d.name)),
        Keyed::Container => Some((fam, Ctx::container_name(f, d)?)),
        // A Go `type T float64` declares a named type with its own method set (Go spec,
        // "Type definitions"), so it types receivers like a struct does.
        Keyed::Type => (is_typeish(d.kind) || (fam == "go" && d.kind == Kind::TypeAlias))
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
/// [`Index`](super::Index)).
#[derive(Debug, Clone, Default)]
pub struct Tables {
    by_name: SortedRefs,
    members: SortedRefs,
    types: SortedRefs,
    /// Which files write which name, for selecting the files an edit affects.
    pub(crate) written: WrittenNames,
    /// The module tables (paths, crates, packages, namespaces), kept while an edit changes
    /// nothing they are made of.
    modules: Arc<ModuleTable>,
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
                f.definitions.iter().enumerate().filter_map(move |(di, d)| {
                    key_of(keyed, f, d).map(|k| (key_hash(k), (fi, di as u32)))
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

/// Old file `fi`'s new index under `old_to_new` (see [`Tables::update`]), `None` when it
/// is gone or changed.
pub(crate) fn renumbered(old_to_new: &[u32], fi: u32) -> Option<u32> {
    old_to_new
        .get(fi as usize)
        .copied()
        .filter(|&n| n != u32::MAX)
}

/// The merge of an index carried across an edit: `old` (sorted) with each item renumbered
/// (`renumber`; `None` drops it, and renumbering must keep the order), and `add` (sorted),
/// handed to `push` in order: an item `a` of `add` goes before an item `b` of `old` when
/// `before(a, b)`. Linear; what [`SortedRefs`] and the written-names index do after each
/// edit.
pub(crate) fn merge_renumbered<T: Copy>(
    old: impl Iterator<Item = T>,
    renumber: impl Fn(T) -> Option<T>,
    add: Vec<T>,
    before: impl Fn(&T, &T) -> bool,
    mut push: impl FnMut(T),
) {
    let mut add = add.into_iter().peekable();
    for e in old.filter_map(renumber) {
        while let Some(a) = add.next_if(|a| before(a, &e)) {
            push(a);
        }
        push(e);
    }
    add.for_each(push);
}

impl Tables {
    /// The tables of `files`.
    pub(crate) fn build(files: &[Arc<FileFacts>]) -> Tables {
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
            modules: Arc::new(ModuleTable::build(files)),
        }
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
            Arc::new(ModuleTable::build(files))
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
    fn build(keys: usize, items: impl Iterator<Item = (RefKey<'a>, DefRef)>) -> RefMap<'a> {
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
    fn get(&self, k: &RefKey<'_>) -> Option<&[DefRef]> {
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
    fn refs(&self, k: &RefKey<'_>) -> impl Iterator<Item = DefRef> + '_ {
        self.get(k).unwrap_or_default().iter().copied()
    }

    fn contains_key(&self, k: &RefKey<'_>) -> bool {
        self.get(k).is_some()
    }
}

fn is_typeish(k: Kind) -> bool {
    k.is_type_container() || matches!(k, Kind::Module | Kind::Namespace)
}

impl<'a> Ctx<'a> {
    fn def(&self, r: DefRef) -> &'a Definition {
        &self.files[r.0 as usize].definitions[r.1 as usize]
    }

    fn fam(&self, file: u32) -> &'a str {
        family(&self.files[file as usize].language)
    }

    /// The container name a definition is a member of (parent's name, or the explicit
    /// container of a Go method).
    fn container_name(f: &'a FileFacts, d: &'a Definition) -> Option<&'a str> {
        if let Some(c) = d.container() {
            return Some(c);
        }
        let p = &f.definitions[d.parent? as usize];
        is_typeish(p.kind).then_some(&*p.name)
    }

    fn build(files: &'a [Arc<FileFacts>]) -> Ctx<'a> {
        // Every definition with its key and reference, in (file, definition) order (the
        // family computed once per file).
        let keyed = move |k: Keyed| {
            files.iter().enumerate().flat_map(move |(fi, f)| {
                let fam = family(&f.language);
                f.definitions.iter().enumerate().filter_map(move |(di, d)| {
                    Some((key_in(k, fam, f, d)?, (fi as u32, di as u32)))
                })
            })
        };
        let n_defs = files.iter().map(|f| f.definitions.len()).sum();
        // The module table too is made beside the name maps, not after them.
        let (by_name, ((members, types), modules)) = rayon::join(
            || RefMap::build(n_defs, keyed(Keyed::Name)),
            || {
                rayon::join(
                    || {
                        rayon::join(
                            || RefMap::build(0, keyed(Keyed::Container)),
                            || RefMap::build(0, keyed(Keyed::Type)),
                        )
                    },
                    || ModuleTable::build(files),
                )
            },
        );
        Ctx::with_tables(files, Arc::new(modules), by_name, members, types)
    }

    /// The context over `tables` (the [`Tables`] of `files`) instead of hash maps built
    /// from every definition.
    fn build_with(files: &'a [Arc<FileFacts>], tables: &'a Tables) -> Ctx<'a> {
        let sorted = |table, keyed| RefMap::Sorted {
            table,
            files,
            keyed,
        };
        Ctx::with_tables(
            files,
            tables.modules.clone(),
            sorted(&tables.by_name, Keyed::Name),
            sorted(&tables.members, Keyed::Container),
            sorted(&tables.types, Keyed::Type),
        )
    }

    fn with_tables(
        files: &'a [Arc<FileFacts>],
        modules: Arc<ModuleTable>,
        by_name: RefMap<'a>,
        members: RefMap<'a>,
        types: RefMap<'a>,
    ) -> Ctx<'a> {
        let mut internal = foldhash::HashSet::default();
        for (fi, f) in files.iter().enumerate() {
            if family(&f.language) != "c" {
                continue;
            }
            for (di, d) in f.definitions.iter().enumerate() {
                if is_internal(f, d) {
                    internal.insert((fi as u32, di as u32));
                }
            }
        }
        Ctx {
            files,
            modules,
            by_name,
            members,
            types,
            local: (0..files.len())
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            is_test: files.iter().map(|f| is_test_path(&f.path)).collect(),
            internal,
            factory: Default::default(),
        }
    }

    /// File `fi`'s name maps (made on first use).
    fn local(&self, fi: u32) -> &FileMaps<'a> {
        self.local[fi as usize].get_or_init(|| {
            let files = self.files;
            let f = &files[fi as usize];
            let fam = family(&f.language);
            let mut b: HashMap<&str, Vec<&Import>> = HashMap::default();
            for imp in &f.imports {
                if let Some(n) = python_package_binding(fam, imp).or(imp.local_name()) {
                    b.entry(n).or_default().push(imp);
                }
                // Go binds an import under the imported package's declared name, which
                // may differ from the last path segment (`package httpx` in `httputil/`).
                if fam == "go" && imp.alias.is_none() {
                    if let Target::Files(v) = self.modules.go(&imp.module) {
                        if let Some(pkg) = v
                            .first()
                            .and_then(|&t| files[t as usize].package.as_deref())
                        {
                            if Some(pkg) != imp.local_name() {
                                b.entry(pkg).or_default().push(imp);
                            }
                        }
                    }
                }
            }
            let mut typed: HashMap<&str, Vec<&Binding>> = HashMap::default();
            let mut bound: foldhash::HashMap<(u32, &str), u32> = Default::default();
            for b in &f.bindings {
                if !b.type_name.is_empty() {
                    typed.entry(binding_key(&b.name)).or_default().push(b);
                }
                if let Some(s) = b.scope {
                    let first = bound.entry((s, b.name.as_str())).or_insert(b.line);
                    *first = (*first).min(b.line);
                }
            }
            FileMaps {
                bindings: b,
                typed,
                bound,
                imports_bound: (0..f.imports.len())
                    .map(|_| std::sync::OnceLock::new())
                    .collect(),
                import_targets: (0..f.imports.len())
                    .map(|_| std::sync::OnceLock::new())
                    .collect(),
                bases: Default::default(),
            }
        })
    }

    /// Definitions named `name` in file `fi` that a bare name can reach (not methods),
    /// top-level first.
    fn free_in_file(&self, fi: u32, name: &str) -> Vec<DefRef> {
        let f = &self.files[fi as usize];
        let all = self
            .by_name
            .get(&(family(&f.language), name))
            .unwrap_or_default();
        // `by_name` lists are sorted by (file, definition) (built in that order): the
        // file's own entries are one run, found by binary search instead of a scan.
        let from = all.partition_point(|r| r.0 < fi);
        let to = from + all[from..].partition_point(|r| r.0 == fi);
        all[from..to]
            .iter()
            .copied()
            .filter(|&r| {
                let d = self.def(r);
                !matches!(d.kind, Kind::Method | Kind::Constructor | Kind::Impl)
                    && d.parent
                        .is_none_or(|p| !f.definitions[p as usize].kind.is_type_container())
            })
            .collect()
    }

    /// Whether `r` is defined inside a function or method body (a nested function, an
    /// arrow function bound to a local name): a bare name reaches it only from inside
    /// that body (JS, Python and Rust scoping alike), never from another function.
    fn in_callable(&self, r: DefRef) -> bool {
        let defs = &self.files[r.0 as usize].definitions;
        let mut p = defs[r.1 as usize].parent;
        while let Some(i) = p {
            let d = &defs[i as usize];
            if d.kind.is_callable() {
                return true;
            }
            p = d.parent;
        }
        false
    }

    fn top_level_in(&self, files: &[u32], name: &str) -> Vec<DefRef> {
        let mut v = Vec::new();
        for &fi in files {
            v.extend(self.free_in_file(fi, name).into_iter().filter(|&r| {
                // Top level, or directly inside a namespace (C#, C++); never a C `static`
                // function, which only its own file sees (and reaches as `local`).
                !self.internal.contains(&r)
                    && self.def(r).parent.is_none_or(|p| {
                        self.files[r.0 as usize].definitions[p as usize].kind == Kind::Namespace
                    })
            }));
        }
        v
    }

    /// Top-level definitions named `name` in `files`, else what those files re-export
    /// under that name (`from .a import f` in an `__init__.py`, `export { f } from './a'`,
    /// `export * from './a'`), followed up to 4 files deep.
    fn exported_in(&self, files: &[u32], name: &str, depth: u32) -> Vec<DefRef> {
        let direct = self.top_level_in(files, name);
        if !direct.is_empty() || depth >= 4 {
            return direct;
        }
        let mut out = Vec::new();
        for &fi in files {
            for imp in self.local(fi).bindings.get(name).into_iter().flatten() {
                match self.bind_depth(fi, imp, depth + 1) {
                    Bound::Defs(d) => out.extend(d),
                    // Rust `pub use task::spawn;` where `task::spawn` is also a (private)
                    // module: a name sought as a definition is the module's own item of
                    // that name (tokio: `mod spawn; pub use spawn::spawn;`).
                    Bound::Module(m) if self.fam(fi) == "rust" => {
                        out.extend(self.exported_in(&m, name, depth + 1));
                    }
                    _ => {}
                }
            }
            // Globs are followed for Python and JS (`from .a import *`, `export * from`),
            // not for Rust: windows-sys nests `pub use` globs so widely that following them
            // 4 levels deep for every path call did not finish on the Rust tree.
            if out.is_empty() && self.fam(fi) != "rust" {
                for imp in self.files[fi as usize]
                    .imports
                    .iter()
                    .filter(|i| i.name.as_deref() == Some("*"))
                {
                    let whole = Import {
                        name: None,
                        ..imp.clone()
                    };
                    if let Bound::Module(m) = self.bind_depth(fi, &whole, depth + 1) {
                        out.extend(self.exported_in(&m, name, depth + 1));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The position of `imp` among file `fi`'s imports when it is one of them (the same
    /// object, not an equal copy).
    fn own_import(&self, fi: u32, imp: &Import) -> Option<usize> {
        let imports = &self.files[fi as usize].imports;
        let at = (imp as *const Import as usize).wrapping_sub(imports.as_ptr() as usize)
            / std::mem::size_of::<Import>().max(1);
        imports
            .get(at)
            .is_some_and(|i| std::ptr::eq(i, imp))
            .then_some(at)
    }

    /// What import `imp` of file `fi` binds (definitions or a module); the answer for one
    /// of the file's own imports is kept ([`FileMaps::imports_bound`]).
    fn bind(&self, fi: u32, imp: &Import) -> Bound {
        let Some(at) = self.own_import(fi, imp) else {
            return self.bind_depth(fi, imp, 0);
        };
        let own = &self.files[fi as usize].imports[at];
        let cell = &self.local(fi).imports_bound[at];
        if let Some(b) = cell.get() {
            return b.clone();
        }
        // Not `get_or_init`: a binding's resolution never asks for itself (re-exports go
        // through `bind_depth` at depth 1 and more), but a `set` cannot deadlock if it did.
        let b = self.bind_depth(fi, own, 0);
        let _ = cell.set(b.clone());
        b
    }

    /// The files a Python or JS import of file `fi` names (its module specifier resolved).
    /// It depends on the specifier alone, so it is kept ([`FileMaps::import_targets`]) for
    /// the file's first import of that specifier, which also serves a copy of an import
    /// (the whole-module `Import` that glob re-exports and import edges make).
    fn import_target(&self, fi: u32, imp: &Import) -> Target {
        let f = &self.files[fi as usize];
        let compute = || match family(&f.language) {
            "python" => self.modules.python(self.files, fi, &imp.module),
            _ => self.modules.javascript(self.files, &f.path, &imp.module),
        };
        let at = self
            .own_import(fi, imp)
            .or_else(|| f.imports.iter().position(|i| i.module == imp.module));
        match at {
            Some(at) => self.local(fi).import_targets[at]
                .get_or_init(compute)
                .clone(),
            None => compute(),
        }
    }

    fn bind_depth(&self, fi: u32, imp: &Import, depth: u32) -> Bound {
        let f = &self.files[fi as usize];
        match family(&f.language) {
            "python" => match self.import_target(fi, imp) {
                Target::External => Bound::External,
                Target::Files(v) if v.is_empty() => Bound::NotFound,
                Target::Files(v) => match imp.name.as_deref() {
                    None => Bound::Module(v),
                    Some(n) => {
                        let defs = self.exported_in(&v, n, depth);
                        if !defs.is_empty() {
                            return Bound::Defs(defs);
                        }
                        let sub = if imp.module.ends_with('.') {
                            format!("{}{n}", imp.module)
                        } else {
                            format!("{}.{n}", imp.module)
                        };
                        match self.modules.python(self.files, fi, &sub) {
                            Target::Files(s) if !s.is_empty() => Bound::Module(s),
                            _ => Bound::NotFound,
                        }
                    }
                },
            },
            "js" => match self.import_target(fi, imp) {
                Target::External => Bound::External,
                Target::Files(v) if v.is_empty() => Bound::NotFound,
                Target::Files(v) => match imp.name.as_deref() {
                    None => Bound::Module(v),
                    // The module's default export (`export default f`, CommonJS
                    // `module.exports = f`); without one, the module object itself.
                    Some("default") => {
                        let exported: Option<&str> = v
                            .iter()
                            .find_map(|&t| self.files[t as usize].default_export.as_deref());
                        let defs = exported
                            .map(|e| self.exported_in(&v, e, depth))
                            .unwrap_or_default();
                        if defs.is_empty() {
                            Bound::Module(v)
                        } else {
                            Bound::Defs(defs)
                        }
                    }
                    Some(n) => {
                        let defs = self.exported_in(&v, n, depth);
                        if !defs.is_empty() {
                            return Bound::Defs(defs);
                        }
                        // `export * as n from './x'`: the name is a re-exported module.
                        for &t in &v {
                            for imp2 in self.local(t).bindings.get(n).into_iter().flatten() {
                                if depth < 4 {
                                    if let Bound::Module(m) = self.bind_depth(t, imp2, depth + 1) {
                                        return Bound::Module(m);
                                    }
                                }
                            }
                        }
                        Bound::NotFound
                    }
                },
            },
            "java" => {
                let n = imp.name.as_deref();
                let pkg = self.modules.java_package(&imp.module);
                match n {
                    None | Some("*") if !pkg.is_empty() => Bound::Module(pkg.to_vec()),
                    Some(n) if !pkg.is_empty() => {
                        let defs = self.top_level_in(pkg, n);
                        if defs.is_empty() {
                            Bound::NotFound
                        } else {
                            Bound::Defs(defs)
                        }
                    }
                    _ => {
                        // `import static pkg.Class.member` or a nested class.
                        let Some((package, class)) = imp.module.rsplit_once('.') else {
                            return Bound::External;
                        };
                        let files = self.modules.java_package(package);
                        if files.is_empty() {
                            return Bound::External;
                        }
                        let m: Vec<DefRef> = match n {
                            Some(n) if n != "*" => self
                                .member(files[0], class, n)
                                .into_iter()
                                .filter(|r| files.contains(&r.0))
                                .collect(),
                            _ => Vec::new(),
                        };
                        if m.is_empty() {
                            Bound::NotFound
                        } else {
                            Bound::Defs(m)
                        }
                    }
                }
            }
            // `#include "x.h"`, else a C++ `using namespace ns;` (the namespace's files)
            // or `using ns::f;` (the namespace's `f`).
            "c" => match self.modules.include(&f.path, &imp.module) {
                Target::Files(v) if !v.is_empty() => Bound::Module(v),
                _ => {
                    let files = self.modules.cpp_namespace(&imp.module);
                    match imp.name.as_deref() {
                        _ if files.is_empty() => Bound::External,
                        None | Some("*") => Bound::Module(files.to_vec()),
                        Some(n) => {
                            let defs: Vec<DefRef> = self
                                .top_level_in(files, n)
                                .into_iter()
                                .filter(|&r| same_ns(self.namespace_of(r), &imp.module))
                                .collect();
                            if defs.is_empty() {
                                Bound::NotFound
                            } else {
                                Bound::Defs(defs)
                            }
                        }
                    }
                }
            },
            "csharp" => match self.modules.csharp_namespace(&imp.module) {
                v if !v.is_empty() => Bound::Module(v.to_vec()),
                _ => Bound::External,
            },
            "go" => match self.modules.go(&imp.module) {
                Target::Files(v) if !v.is_empty() => Bound::Module(v),
                _ => Bound::External,
            },
            "rust" => {
                let mut segs: Vec<&str> =
                    imp.module.split("::").filter(|s| !s.is_empty()).collect();
                if let Some(n) = imp.name.as_deref() {
                    segs.push(n);
                }
                match self.modules.rust(self.files, fi, &segs) {
                    None => Bound::External,
                    Some((Target::Files(v), used)) if used == segs.len() => Bound::Module(v),
                    Some((Target::Files(v), used)) if used + 1 == segs.len() => {
                        let n = segs[used];
                        let mut defs: Vec<DefRef> = v
                            .iter()
                            .flat_map(|&fi| self.free_in_file(fi, n))
                            .filter(|&r| {
                                self.def(r).parent.is_none() || self.def(r).kind == Kind::Module
                            })
                            .collect();
                        if defs.is_empty() {
                            // A name the module re-exports (`pub use other::launch;`).
                            defs = self.exported_in(&v, n, depth + 1);
                        }
                        if defs.is_empty() {
                            Bound::NotFound
                        } else {
                            Bound::Defs(defs)
                        }
                    }
                    Some(_) => Bound::NotFound,
                }
            }
            _ => Bound::NotFound,
        }
    }

    /// Members named `name` of types named `ty` in the caller's family, narrowed to the
    /// caller's file, then its crate/package directory, when that leaves exactly one.
    fn member(&self, fi: u32, ty: &str, name: &str) -> Vec<DefRef> {
        let all: Vec<DefRef> = self
            .members
            .refs(&(self.fam(fi), ty))
            .filter(|&r| &*self.def(r).name == name)
            .collect();
        narrow(self.files, fi, all)
    }

    /// `self.name` inside type `ty`: its own members, then along its bases (depth ≤ 4).
    fn member_with_bases(&self, fi: u32, ty: &str, name: &str, depth: u32) -> Vec<DefRef> {
        if let Some((t, _)) = self.resolve_base(fi, ty) {
            return self.members_of_def(t, name, depth);
        }
        let mut own = self.member(fi, ty, name);
        // C# and C++: a type that no namespace in scope declares is not this one (`ty`
        // naming a namespace itself, `ns::f`, is a qualified name: always in scope).
        own.retain(|&r| {
            let d = self.def(r);
            let in_namespace = d.container().is_none()
                && d.parent.is_some_and(|p| {
                    self.files[r.0 as usize].definitions[p as usize].kind == Kind::Namespace
                });
            in_namespace || self.sees_namespace(fi, self.namespace_of(r))
        });
        if !own.is_empty() || depth > 4 {
            return own;
        }
        let mut out = Vec::new();
        for &t in self.types.get(&(self.fam(fi), ty)).into_iter().flatten() {
            if !narrow(self.files, fi, vec![t]).contains(&t) {
                continue;
            }
            for b in self.def(t).bases() {
                if b.name != ty {
                    out.extend(self.member_with_bases(t.0, &b.name, name, depth + 1));
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Members named `name` of the type definition `t` (nested in it, in its `impl`
    /// blocks or written outside its body in its crate or package), then along the bases
    /// of the type and of its `impl` blocks, each base resolved from the file naming it.
    fn members_of_def(&self, t: DefRef, name: &str, depth: u32) -> Vec<DefRef> {
        let td = self.def(t);
        let fam = self.fam(t.0);
        let cands: Vec<DefRef> = self
            .members
            .refs(&(fam, &*td.name))
            .filter(|&r| &*self.def(r).name == name)
            .collect();
        let nested: Vec<DefRef> = cands
            .iter()
            .copied()
            .filter(|r| r.0 == t.0 && self.def(*r).parent == Some(t.1))
            .collect();
        let own = if nested.is_empty() {
            // C++ members defined outside the class (`Parser::parse`) live in the class's
            // namespace: `json::Parser::parse` is not `xml::Parser`'s.
            let cands = if fam == "c" {
                let ns = normalize_ns(self.namespace_of(t));
                cands
                    .into_iter()
                    .filter(|&r| normalize_ns(self.namespace_of(r)) == ns)
                    .collect()
            } else {
                cands
            };
            narrow(self.files, t.0, cands)
        } else {
            nested
        };
        if !own.is_empty() || depth > 4 {
            return own;
        }
        // The type and its impl blocks (Rust `impl Trait for T`) carry the bases.
        let mut carriers = vec![t];
        for &o in self.types.get(&(fam, &*td.name)).into_iter().flatten() {
            if o != t
                && self.def(o).kind == Kind::Impl
                && narrow(self.files, t.0, vec![o, t]).len() == 2
            {
                carriers.push(o);
            }
        }
        let mut out = Vec::new();
        for c in carriers {
            for b in self.def(c).bases() {
                if let Some((bt, _)) = self.resolve_base_ref(c.0, &b.name, b.qualifier.as_deref()) {
                    if bt != t {
                        out.extend(self.members_of_def(bt, name, depth + 1));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Typed names of file `fi` whose key (see [`binding_key`]) is `binding_key(name)`.
    fn typed_by(&self, fi: u32, name: &str) -> impl Iterator<Item = &'a Binding> + '_ {
        self.local(fi)
            .typed
            .get(binding_key(name))
            .into_iter()
            .flatten()
            .copied()
    }

    /// Whether `name` is bound (a parameter, a local) directly in the function or method
    /// `scope` of file `fi`; class bodies do not count, their names are not in scope in
    /// the methods (Python) or are fields reached through `self`/`this`.
    fn is_local(&self, fi: u32, scope: Option<u32>, name: &str) -> bool {
        scope.is_some_and(|s| {
            self.files[fi as usize].definitions[s as usize]
                .kind
                .is_callable()
                && self.local(fi).bound.contains_key(&(s, name))
        })
    }

    /// Narrows candidates the way the languages themselves decide, when that leaves fewer:
    /// a non-test caller never reaches test code (`_test.go`, `testdata/`, `tests/`,
    /// `*.test.ts`, `test_*.py`); a `.pyi` stub gives way to its `.py` module; and in
    /// Python and JS/TS, where a later definition of the same name replaces an earlier one
    /// (`@overload` stubs, TypeScript overload signatures, `if/else` twins), the last one
    /// in the file wins.
    fn pick(&self, fi: u32, mut v: Vec<DefRef>) -> Vec<DefRef> {
        if v.len() <= 1 {
            return v;
        }
        let path_of = |r: &DefRef| self.files[r.0 as usize].path.as_str();
        if !self.is_test[fi as usize] {
            let non_test: Vec<DefRef> = v
                .iter()
                .copied()
                .filter(|r| !self.is_test[r.0 as usize])
                .collect();
            if !non_test.is_empty() {
                v = non_test;
            }
        }
        let non_stub: Vec<DefRef> = v
            .iter()
            .copied()
            .filter(|r| !path_of(r).ends_with(".pyi"))
            .collect();
        if !non_stub.is_empty() {
            v = non_stub;
        }
        if v.len() > 1 && matches!(self.fam(v[0].0), "python" | "js") {
            let first = self.def(v[0]).in_file_name();
            if v.iter()
                .all(|r| r.0 == v[0].0 && self.def(*r).in_file_name() == first)
            {
                let last = *v.iter().max_by_key(|r| r.1).expect("non-empty");
                return vec![last];
            }
        }
        v
    }

    /// Overloads narrowed by the call's argument count, when the call and the candidates
    /// say it (C# and C++): the candidates whose parameter count is unknown or equal to it,
    /// if that leaves fewer but not none. Same-count overloads stay ambiguous.
    fn by_arity(&self, c: &CallSite, v: Vec<DefRef>) -> Vec<DefRef> {
        let Some(args) = c.args.filter(|_| v.len() > 1) else {
            return v;
        };
        let fit: Vec<DefRef> = v
            .iter()
            .copied()
            .filter(|&r| self.def(r).arity.is_none_or(|a| a == args))
            .collect();
        if fit.is_empty() {
            v
        } else {
            fit
        }
    }

    /// The nearest enclosing type of a caller: (type name).
    fn enclosing_type(&self, fi: u32, caller: Option<u32>) -> Option<&'a str> {
        let f = &self.files[fi as usize];
        let mut cur = caller;
        while let Some(i) = cur {
            let d = &f.definitions[i as usize];
            if d.kind.is_type_container() {
                return Some(&d.name);
            }
            if let Some(c) = d.container() {
                return Some(c);
            }
            cur = d.parent;
        }
        None
    }

    /// The qualified name of the namespace a definition is declared in (`App.Models`,
    /// `a::b`); `""` for the global namespace.
    fn namespace_of(&self, r: DefRef) -> &'a str {
        let f = &self.files[r.0 as usize];
        let mut cur = f.definitions[r.1 as usize].parent;
        while let Some(i) = cur {
            let d = &f.definitions[i as usize];
            if d.kind == Kind::Namespace {
                return &d.qualified_name;
            }
            cur = d.parent;
        }
        ""
    }

    /// Whether code in file `fi` can name a C# or C++ namespace's members without a
    /// qualifier: the global namespace, a namespace the file declares or encloses code in
    /// (and each namespace around it), or one a `using` directive of the file brings in
    /// (C# spec 14.5 "Using directives"; C++ [namespace.udir]). Other languages: always.
    fn sees_namespace(&self, fi: u32, ns: &str) -> bool {
        let f = &self.files[fi as usize];
        if ns.is_empty() || !matches!(f.language.as_str(), "csharp" | "cpp" | "c") {
            return true;
        }
        f.definitions.iter().any(|d| {
            d.kind == Kind::Namespace && {
                let own = normalize_ns(&d.qualified_name);
                let ns = normalize_ns(ns);
                own == ns || own.starts_with(&format!("{ns}."))
            }
        }) || f
            .imports
            .iter()
            .any(|i| i.name.as_deref() == Some("*") && same_ns(&i.module, ns))
    }

    /// Type definitions named by a qualified name (`json::Parser`, `Acme.Text.Util`):
    /// those whose qualified name ends with `q` then `name`, C++ and C# only.
    fn qualified_type(&self, fi: u32, q: &str, name: &str) -> Vec<DefRef> {
        let want = format!("{}.{name}", normalize_ns(q));
        self.types
            .refs(&(self.fam(fi), name))
            .filter(|&r| {
                let d = self.def(r);
                let qn = normalize_ns(&d.qualified_name);
                d.kind != Kind::Impl
                    && d.kind != Kind::Namespace
                    && (qn == want || qn.ends_with(&format!(".{want}")))
            })
            .collect()
    }

    fn resolve_call(&self, fi: u32, c: &CallSite) -> Result<(DefRef, Tier), UnresolvedReason> {
        let (t, tier) = match c.receiver.as_deref() {
            None => self.resolve_bare(fi, c),
            Some(r) => self.resolve_qualified(fi, c, r),
        }?;
        let lang = self.files[fi as usize].language.as_str();
        // Go compiles `_test.go` files only into the package's test binary (`go help
        // test`): code outside them can never call what they define.
        let go_test = |i: u32| self.files[i as usize].path.ends_with("_test.go");
        if lang == "go" && go_test(t.0) && !go_test(fi) {
            return Err(UnresolvedReason::NotFound);
        }
        // Java and C#: `new Foo(..)` runs Foo's constructor; when the class declares exactly
        // one, that is the target (javac's answer), else the class.
        if c.is_new && lang == "cpp" && self.def(t).kind.is_constructible() {
            // C++: the constructors may be defined outside the class, in another file.
            let name = &*self.def(t).name;
            let ctors: Vec<DefRef> = self
                .members_of_def(t, name, 0)
                .into_iter()
                .filter(|&r| self.def(r).kind == Kind::Constructor)
                .collect();
            if let [only] = ctors.as_slice() {
                return Ok((*only, tier));
            }
        }
        if c.is_new && matches!(lang, "java" | "csharp") && self.def(t).kind.is_constructible() {
            let ctors: Vec<u32> = self.files[t.0 as usize]
                .definitions
                .iter()
                .enumerate()
                .filter(|(_, d)| d.parent == Some(t.1) && d.kind == Kind::Constructor)
                .map(|(i, _)| i as u32)
                .collect();
            if let [only] = ctors.as_slice() {
                return Ok(((t.0, *only), tier));
            }
        }
        Ok((t, tier))
    }

    fn resolve_bare(&self, fi: u32, c: &CallSite) -> Result<(DefRef, Tier), UnresolvedReason> {
        let f = &self.files[fi as usize];
        let name = c.name.as_str();
        // `super(...)`: the base class's constructor (the class when it declares none).
        if name == "super" && self.fam(fi) == "js" {
            let ty = self
                .enclosing_type(fi, c.caller)
                .ok_or(UnresolvedReason::NotFound)?;
            let (t, _) = self
                .resolve_base(fi, ty)
                .ok_or(UnresolvedReason::NotFound)?;
            let base = self
                .def(t)
                .bases()
                .iter()
                .find(|b| !b.implements)
                .ok_or(UnresolvedReason::NotFound)?;
            let Some((bt, tier)) =
                self.resolve_base_ref(t.0, &base.name, base.qualifier.as_deref())
            else {
                return Err(UnresolvedReason::External);
            };
            let ctor = self.members_of_def(bt, "constructor", 0);
            return Ok((
                ctor.first().copied().unwrap_or(bt),
                tier.max(Tier::Qualified),
            ));
        }
        // Java has no free functions: a bare call is a method of the enclosing class (or
        // of its bases), else a static import.
        if matches!(f.language.as_str(), "java" | "csharp" | "cpp") && !c.is_new {
            if let Some(ty) = self.enclosing_type(fi, c.caller) {
                let m = self.by_arity(c, self.member_with_bases(fi, ty, name, 0));
                match m.len() {
                    1 => return Ok((m[0], Tier::Local)),
                    0 => {}
                    _ => return Err(UnresolvedReason::Ambiguous),
                }
            }
        }
        // 1. local: the caller's own nested scopes first, then the file. A function that
        // binds the name as a parameter or local variable (`def test(httpbin):
        // httpbin("get")`) calls that value: no definition is the target (its runtime
        // value is unknown), and outer definitions of the name are hidden.
        let local = self.free_in_file(fi, name);
        let mut scope = c.caller;
        while let Some(s) = scope {
            let inner: Vec<DefRef> = local
                .iter()
                .copied()
                .filter(|&r| self.def(r).parent == Some(s))
                .collect();
            if inner.len() == 1 {
                return Ok((inner[0], Tier::Local));
            }
            // Python: a name bound anywhere in a function is local to all of it. Go: a
            // parameter or `:=` local of that name (`helper := func() ..`) bound on an
            // earlier line is what the call calls; Go scopes a local to the rest of its
            // block, which the facts do not record, so a same-named package function
            // called after that block is missed rather than a local taken for it. (Rust and
            // JS `let` are left to the tiers below; Java and C# keep methods and variables
            // apart.)
            let local_value = match f.language.as_str() {
                "python" => self.is_local(fi, Some(s), name),
                // Bound on an earlier line: `tableSize := tableSize(n)` still calls the
                // function (a `:=` local is in scope after its statement).
                "go" => self
                    .local(fi)
                    .bound
                    .get(&(s, name))
                    .is_some_and(|&first| first < c.line),
                _ => false,
            };
            if inner.is_empty() && local_value {
                return Err(UnresolvedReason::NotFound);
            }
            scope = f.definitions[s as usize].parent;
        }
        if !local.is_empty() {
            let top: Vec<DefRef> = self.pick(
                fi,
                local
                    .iter()
                    .copied()
                    .filter(|&r| self.def(r).parent.is_none())
                    .collect(),
            );
            match top.len() {
                1 => return Ok((top[0], Tier::Local)),
                // Nested in a namespace or an object, not in another function's body
                // (whose names only that body sees: the scopes above): else the
                // imports decide.
                0 => {
                    let visible: Vec<DefRef> = local
                        .iter()
                        .copied()
                        .filter(|&r| !self.in_callable(r))
                        .collect();
                    match visible.len() {
                        0 => {}
                        1 => return Ok((visible[0], Tier::Local)),
                        _ => return Err(UnresolvedReason::Ambiguous),
                    }
                }
                _ => return Err(UnresolvedReason::Ambiguous),
            }
        }
        // 2. import bindings.
        if let Some(imps) = self.local(fi).bindings.get(name) {
            for imp in imps {
                match self.bind(fi, imp) {
                    Bound::Defs(d) if self.pick(fi, d.clone()).len() == 1 => {
                        return Ok((self.pick(fi, d)[0], Tier::Import))
                    }
                    Bound::Defs(_) => return Err(UnresolvedReason::Ambiguous),
                    Bound::External => return Err(UnresolvedReason::External),
                    Bound::Module(_) | Bound::NotFound => {}
                }
            }
            return Err(UnresolvedReason::NotFound);
        }
        // Glob imports. C and C++: every `#include` and `using namespace` together, and
        // only what is visible unqualified (a namespace's function needs the caller to be
        // in it or to use it), so the order of includes never decides.
        let c_family = self.fam(fi) == "c";
        let mut seen: Vec<DefRef> = Vec::new();
        for imp in f.imports.iter().filter(|i| i.name.as_deref() == Some("*")) {
            let whole = Import {
                name: None,
                ..(*imp).clone()
            };
            if let Bound::Module(files) = self.bind(fi, &whole) {
                let d = self.top_level_in(&files, name);
                if c_family {
                    seen.extend(
                        d.into_iter()
                            .filter(|&r| self.sees_namespace(fi, self.namespace_of(r))),
                    );
                } else if d.len() == 1 {
                    return Ok((d[0], Tier::Import));
                }
            }
        }
        if c_family {
            seen.sort();
            seen.dedup();
            if let [only] = seen.as_slice() {
                return Ok((*only, Tier::Import));
            }
        }
        // Go and Java: the caller's package (same directory); C#: the same namespace.
        if f.language == "go" || f.language == "java" {
            let dir = f.path.rfind('/').map_or("", |i| &f.path[..i]);
            let pkg: Vec<DefRef> = self
                .by_name
                .refs(&(f.language.as_str(), name))
                .filter(|&r| {
                    let p = &self.files[r.0 as usize].path;
                    p.rfind('/').map_or("", |i| &p[..i]) == dir && self.def(r).kind != Kind::Method
                })
                .collect();
            match pkg.len() {
                1 => return Ok((pkg[0], Tier::Local)),
                0 => {}
                _ => return Err(UnresolvedReason::Ambiguous),
            }
        }
        // 4. guarded repo-wide unique name; never for a JS global (`Number(x)`, `Map()`,
        // `require()`) that the file does not define or import: the bare name is the
        // platform's, even when some other file of the repo defines a class of that name
        // (three.js's transpiler has a `Number` class: 52 wrong guesses on the npm tree).
        if fam_is_js(f) && JS_GLOBALS.contains(&name) {
            return Err(UnresolvedReason::External);
        }
        let cands: Vec<DefRef> = self
            .by_name
            .refs(&(self.fam(fi), name))
            .filter(|&r| {
                let d = self.def(r);
                (d.kind.is_callable() && d.kind != Kind::Method || d.kind.is_constructible())
                    && !self.in_callable(r)
                    && (r.0 == fi || !self.internal.contains(&r))
                    && self.sees_namespace(fi, self.namespace_of(r))
            })
            .collect();
        // Go: an unqualified name is a local, the package's (tried above), a builtin or a
        // dot import's, never another package's (the Go spec, "Declarations and scope"); a
        // guess linked closures and parameters named like an unexported function elsewhere
        // (`check(c)` in go-git to x/tools' `check`). Not found when another package has
        // such a candidate (the call is to a closure or parameter), else external (a
        // builtin, `len(x)`).
        if f.language == "go" {
            return Err(if cands.is_empty() {
                UnresolvedReason::External
            } else {
                UnresolvedReason::NotFound
            });
        }
        let cands = self.pick(fi, cands);
        match cands.len() {
            0 => Err(UnresolvedReason::External),
            1 if unique_name_allowed(name) => Ok((cands[0], Tier::UniqueName)),
            _ => Err(UnresolvedReason::Ambiguous),
        }
    }

    fn resolve_qualified(
        &self,
        fi: u32,
        c: &CallSite,
        recv: &str,
    ) -> Result<(DefRef, Tier), UnresolvedReason> {
        self.resolve_qualified_depth(fi, c, recv, 0)
    }

    fn resolve_qualified_depth(
        &self,
        fi: u32,
        c: &CallSite,
        recv: &str,
        depth: u32,
    ) -> Result<(DefRef, Tier), UnresolvedReason> {
        let f = &self.files[fi as usize];
        let name = c.name.as_str();
        // A getter or setter is read or written, never called: `a.name()` on a typed `a`
        // calls what the property returns, not the property.
        let one = |mut v: Vec<DefRef>, tier: Tier| {
            v.retain(|r| !self.def(*r).is_accessor());
            match self.by_arity(c, self.pick(fi, v)).as_slice() {
                [only] => Ok((*only, tier)),
                [] => Err(UnresolvedReason::NotFound),
                _ => Err(UnresolvedReason::Ambiguous),
            }
        };
        // A method's own instance under a chosen name (Go receivers) acts as `self`.
        // The calling definition, never its own guess through another object.
        let caller = c.caller.map(|d| (fi, d));
        let own = c.caller.and_then(|i| f.definitions[i as usize].self_name());
        let owned;
        let normalized;
        // C and C++ `p->f`, `ns::T`: one separator for the steps below.
        let recv = if self.fam(fi) == "c" && (recv.contains("->") || recv.contains("::")) {
            normalized = recv.replace("->", ".").replace("::", ".");
            normalized.as_str()
        } else {
            recv
        };
        let recv = match own {
            Some(o) if o == recv => "self",
            Some(o) if recv.strip_prefix(o).is_some_and(|r| r.starts_with('.')) => {
                owned = format!("self{}", &recv[o.len()..]);
                owned.as_str()
            }
            _ => recv,
        };
        // A receiver whose type the source states: `x: Foo`, `x = Foo()`, `Foo(db).run()`,
        // `self.repo` with `self.repo = Repo()`, a Java/TS field.
        let typed = if c.is_path {
            Typed::Unknown
        } else {
            self.receiver_type_depth(fi, c.caller, recv, depth)
        };
        let typed_member = |m: Vec<DefRef>| match m.len() {
            0 => Err(UnresolvedReason::NotFound),
            _ => one(m, Tier::Qualified),
        };
        match typed {
            Typed::Def(t) => return typed_member(self.members_of_def(t, name, 0)),
            Typed::Repo(ty) => return typed_member(self.member_with_bases(fi, &ty, name, 0)),
            Typed::External => return Err(UnresolvedReason::External),
            Typed::Unknown => {}
        }
        // self / this / Self / cls / super (a Rust path `super::f` is a module path).
        let recv_kw = if c.is_path && recv != "Self" {
            ""
        } else if recv == "base" && f.language == "csharp" {
            // C# `base.M()` is Java's `super.m()`.
            "super"
        } else {
            recv
        };
        match recv_kw {
            "self" | "this" | "Self" | "cls" => {
                if let Some(ty) = self.enclosing_type(fi, c.caller) {
                    return one(self.member_with_bases(fi, ty, name, 0), Tier::Qualified);
                }
                if recv == "this" {
                    return self.method_fallback(fi, name, None);
                }
                return Err(UnresolvedReason::NotFound);
            }
            "super" | "super()" => {
                let ty = self
                    .enclosing_type(fi, c.caller)
                    .ok_or(UnresolvedReason::NotFound)?;
                let mut out = Vec::new();
                for &t in self
                    .types
                    .get(&(self.fam(fi), ty))
                    .into_iter()
                    .flatten()
                    .filter(|t| t.0 == fi)
                {
                    // Each base as written, qualifier included (`werkzeug.test.EnvironBuilder`
                    // is external even when the class itself is also `EnvironBuilder`), and
                    // never the class itself.
                    for b in self.def(t).bases() {
                        if let Some((bt, _)) =
                            self.resolve_base_ref(fi, &b.name, b.qualifier.as_deref())
                        {
                            if bt != t {
                                out.extend(self.members_of_def(bt, name, 1));
                            }
                        }
                    }
                }
                out.sort();
                out.dedup();
                return match out.len() {
                    0 => Err(UnresolvedReason::External),
                    _ => one(out, Tier::Qualified),
                };
            }
            _ => {}
        }
        let is_path = recv
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.' || ch == ':' || ch == '$');
        if !is_path {
            return self.method_fallback(fi, name, caller);
        }
        let sep = if f.language == "rust" { "::" } else { "." };
        let segs: Vec<&str> = recv.split(sep).filter(|s| !s.is_empty()).collect();
        let Some(&first) = segs.first() else {
            return self.method_fallback(fi, name, caller);
        };
        // Rust module paths (`crate::a::f`, `util::f`, `other_crate::m::f`).
        if f.language == "rust" {
            if let Some((Target::Files(v), used)) = self.modules.rust(self.files, fi, &segs) {
                if used == segs.len() {
                    // What the module defines, else what it re-exports (`pub use
                    // task::spawn;` in tokio's lib.rs is what `tokio::spawn` calls).
                    return one(self.exported_in(&v, name, 0), Tier::Qualified);
                }
                // `module::Type::method`
                if used + 1 == segs.len() {
                    let ty = segs[used];
                    let m: Vec<DefRef> = self
                        .member(v[0], ty, name)
                        .into_iter()
                        .filter(|r| v.contains(&r.0))
                        .collect();
                    return one(m, Tier::Qualified);
                }
            }
        }
        // C++ and C#: a qualified type (`json::Parser::parse`, `Acme.Text.Util.Helper`).
        if segs.len() > 1 && matches!(self.fam(fi), "c" | "csharp") {
            let (q, ty) = segs.split_at(segs.len() - 1);
            if let [t] = self.qualified_type(fi, &q.join("."), ty[0]).as_slice() {
                return one(self.members_of_def(*t, name, 0), Tier::Qualified);
            }
        }
        // A name bound by an import.
        if let Some(imps) = self.local(fi).bindings.get(first) {
            for imp in imps {
                match self.bind(fi, imp) {
                    Bound::External => return Err(UnresolvedReason::External),
                    Bound::Module(files) => {
                        // `import a.b` bound `a`: the walk starts at the package `a`.
                        let (mut files, base) = match python_package_binding(self.fam(fi), imp)
                            .map(|top| (top, self.modules.python(self.files, fi, top)))
                        {
                            Some((top, Target::Files(v))) if !v.is_empty() => (v, top),
                            _ => (files, imp.module.as_str()),
                        };
                        let mut k = 1;
                        // Python `pkg.mod.f()`: walk submodules.
                        while k < segs.len() && f.language == "python" {
                            let sub = format!("{base}.{}", segs[1..=k].join("."));
                            match self.modules.python(self.files, fi, &sub) {
                                Target::Files(s) if !s.is_empty() => files = s,
                                _ => break,
                            }
                            k += 1;
                        }
                        if k == segs.len() {
                            let tier = if segs.len() == 1 {
                                Tier::Import
                            } else {
                                Tier::Qualified
                            };
                            return one(self.exported_in(&files, name, 0), tier);
                        }
                        // `mod.Type.method`
                        let ty = segs[segs.len() - 1];
                        let m: Vec<DefRef> = self
                            .member(fi, ty, name)
                            .into_iter()
                            .filter(|r| files.contains(&r.0))
                            .collect();
                        return one(m, Tier::Qualified);
                    }
                    Bound::Defs(defs) => {
                        let ty = segs[segs.len() - 1];
                        let m: Vec<DefRef> = defs
                            .iter()
                            .flat_map(|&d| self.member_with_bases(d.0, ty, name, 0))
                            .collect();
                        if !m.is_empty() || segs.len() == 1 {
                            return one(m, Tier::Qualified);
                        }
                    }
                    Bound::NotFound => {}
                }
            }
        }
        // Python `import a.b` binds `a`: `a.b.f()` with the module written in full.
        if f.language == "python" && segs.len() > 1 {
            if let Some(imp) = f
                .imports
                .iter()
                .find(|i| i.name.is_none() && i.alias.is_none() && i.module == recv)
            {
                return match self.bind(fi, imp) {
                    Bound::Module(files) => one(self.top_level_in(&files, name), Tier::Qualified),
                    Bound::External => Err(UnresolvedReason::External),
                    _ => Err(UnresolvedReason::NotFound),
                };
            }
        }
        // A type name (`Foo::new()`, `Foo.create()`), the last segment of the qualifier.
        let ty = *segs.last().unwrap_or(&first);
        let ty = if ty == "Self" {
            self.enclosing_type(fi, c.caller).unwrap_or(ty)
        } else {
            ty
        };
        // In Go an unqualified type name is visible only in its own package (directory):
        // elsewhere `val.Referrers()` is a call on a variable that shares a type's name.
        let go_type_elsewhere = f.language == "go"
            && segs.len() == 1
            && !self.types.get(&(self.fam(fi), ty)).is_some_and(|v| {
                v.iter()
                    .any(|r| dir_of(&self.files[r.0 as usize].path) == dir_of(&f.path))
            });
        if !go_type_elsewhere && self.types.contains_key(&(self.fam(fi), ty)) {
            let m = self.member_with_bases(fi, ty, name, 0);
            if !m.is_empty() {
                return one(m, Tier::Qualified);
            }
            // A type whose member is not in the repo (derived or inherited from a library).
            return Err(UnresolvedReason::NotFound);
        }
        // CommonJS: `exports.f()` / `module.exports.f()` inside a module calls its own
        // export (`exports.f = function ...`).
        if fam_is_js(f) && (recv == "exports" || recv == "module.exports") {
            return one(self.top_level_in(&[fi], name), Tier::Local);
        }
        // ECMAScript, Node and browser globals (`JSON.stringify`, `console.log`).
        if fam_is_js(f) && segs.len() == 1 && JS_GLOBALS.contains(&first) {
            return Err(UnresolvedReason::External);
        }
        // A Rust path that is not a repo module, type or import (`HashMap::new`,
        // `std::mem::take`) comes from a library.
        if f.language == "rust" && recv.contains(|ch: char| ch == ':' || ch.is_uppercase()) {
            return Err(UnresolvedReason::External);
        }
        self.method_fallback(fi, name, caller)
    }

    /// The type of a receiver expression, from inline constructions and typed bindings.
    /// The type of a receiver expression: an inline construction (`Foo(db)`, `new Foo()`,
    /// `Foo::new(..)`), a call whose target declares a return type (`this.getSubject()`,
    /// `store.NewMemory()`), or a chain `head.f.g` typed from the head (a binding, `self`)
    /// through the declared types of each field.
    fn receiver_type_depth(&self, fi: u32, caller: Option<u32>, recv: &str, depth: u32) -> Typed {
        if depth > 4 {
            return Typed::Unknown;
        }
        if let Some(ty) = inline_constructor(recv) {
            // A dotted head is classified whole, so its qualifier decides (`pkg.Foo(x)` is
            // the package's type; `t.Field(i)` in Go is a method call on a value).
            let head = recv.strip_prefix("new ").unwrap_or(recv).trim();
            let dotted = head
                .find(['(', '{'])
                .map(|i| head[..i].trim_end())
                .filter(|h| h.contains('.') && !h.contains("::"));
            let typed = match dotted {
                Some(h) if !recv.starts_with("new ") => self.classify(fi, h),
                _ => self.classify(fi, ty),
            };
            match typed {
                Typed::Repo(t) if self.is_constructible(fi, &t) => return Typed::Repo(t),
                Typed::Def(t) if self.def(t).kind.is_constructible() => return Typed::Def(t),
                // Not a construction: typed below as a call result.
                _ if recv.ends_with(')') => {}
                _ => return Typed::Unknown,
            }
        }
        // A call result: resolve the call, then its declared return type.
        if let Some(inner) = recv.strip_suffix(')') {
            let Some(open) = matching_open_paren(inner) else {
                return Typed::Unknown;
            };
            let callee = &inner[..open];
            let (qual, name) = match callee.rfind('.') {
                Some(i) => (Some(&callee[..i]), &callee[i + 1..]),
                None => (None, callee),
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '#' || c == '$')
            {
                return Typed::Unknown;
            }
            let site = CallSite {
                caller,
                name: name.to_string(),
                receiver: qual.map(str::to_string),
                is_new: false,
                is_path: false,
                is_reference: false,
                args: None,
                line: 0,
                column: 0,
            };
            let target = match qual {
                None => self.resolve_bare(fi, &site),
                Some(q) => self.resolve_qualified_depth(fi, &site, q, depth + 1),
            };
            return match target {
                // A call of a type yields that type (a Go conversion `Meters(2)`, a class
                // called by name).
                Ok((t, _)) if !self.def(t).kind.is_callable() => {
                    let d = self.def(t);
                    if is_typeish(d.kind) || (self.fam(t.0) == "go" && d.kind == Kind::TypeAlias) {
                        Typed::Def(t)
                    } else {
                        Typed::Unknown
                    }
                }
                Ok((t, _)) => self
                    .returns_of(t)
                    .map_or(Typed::Unknown, |r| self.classify_depth(t.0, &r, 1)),
                Err(_) => Typed::Unknown,
            };
        }
        if recv.contains(['(', '[', ' ', '<']) {
            return Typed::Unknown;
        }
        let segs: Vec<&str> = recv.split('.').collect();
        // The head: `self`/`this` (the owner type), or a binding in scope.
        let (mut ty, rest): (Typed, &[&str]) = match segs[0] {
            "self" | "this" if segs.len() > 1 => {
                let Some(owner) = self.enclosing_type(fi, caller) else {
                    return Typed::Unknown;
                };
                // Fields assigned in the owner's methods (`self.x = Foo()`).
                let f = &self.files[fi as usize];
                let assigned = format!("{}.{}", segs[0], segs[1]);
                let _ = f;
                let types: Vec<&str> = self
                    .typed_by(fi, &assigned)
                    .filter(|b| {
                        b.name == assigned
                            && b.scope
                                .is_some_and(|s| self.enclosing_type(fi, Some(s)) == Some(owner))
                    })
                    .map(|b| b.type_name.as_str())
                    .collect();
                if types.is_empty() {
                    (Typed::Repo(owner.to_string()), &segs[1..])
                } else {
                    (self.unify(fi, types), &segs[2..])
                }
            }
            head => (self.binding_type(fi, caller, head), &segs[1..]),
        };
        for field in rest {
            ty = match ty {
                Typed::Repo(t) => self.field_type(fi, &t, field),
                Typed::Def(t) => self.field_type_of(t, field),
                other => return other,
            };
        }
        ty
    }

    /// The declared return type of a callable (`Self` → its enclosing type).
    fn returns_of(&self, t: DefRef) -> Option<String> {
        let d = self.def(t);
        let r = d.returns()?;
        if r == "Self" {
            let p = self.files[t.0 as usize]
                .definitions
                .get(d.parent? as usize)?;
            return Some(p.name.to_string());
        }
        Some(r.to_string())
    }

    /// The type bound to a plain name in the innermost scope that binds it (locals,
    /// parameters, fields of enclosing classes, the file's top level).
    fn binding_type(&self, fi: u32, caller: Option<u32>, name: &str) -> Typed {
        if !name
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '$')
        {
            return Typed::Unknown;
        }
        let f = &self.files[fi as usize];
        let mut scope = caller;
        loop {
            let _ = f;
            let types: Vec<&str> = self
                .typed_by(fi, name)
                .filter(|b| b.scope == scope && b.name == name)
                .map(|b| b.type_name.as_str())
                .collect();
            if !types.is_empty() {
                return self.unify(fi, types);
            }
            if self.is_local(fi, scope, name) {
                // A parameter or local without a stated type hides any outer binding.
                return Typed::Unknown;
            }
            match scope {
                Some(s) => scope = f.definitions[s as usize].parent,
                // C++ `void Mailbox::deliver() { pending_->seal(); }`: a member function
                // defined outside its class sees the class's fields.
                None if self.fam(fi) == "c" => {
                    return match self.enclosing_type(fi, caller) {
                        Some(owner) => self.field_type(fi, owner, name),
                        None => Typed::Unknown,
                    };
                }
                None => return Typed::Unknown,
            }
        }
    }

    /// The declared type of field `field` of type `ty`: a field declaration in the type's
    /// body, a `self.field = ...` / `this.field = ...` assignment in its methods, or a
    /// constructor parameter of that name (TypeScript parameter properties, and the
    /// `self.x = x` idiom).
    fn field_type(&self, fi: u32, ty: &str, field: &str) -> Typed {
        match self.resolve_base(fi, ty) {
            Some((t, _)) => self.field_type_of(t, field),
            None => Typed::Unknown,
        }
    }

    /// [`Ctx::field_type`] of the type definition `t`.
    fn field_type_of(&self, t: DefRef, field: &str) -> Typed {
        let tf = &self.files[t.0 as usize];
        let inside = |s: Option<u32>| {
            let mut cur = s;
            while let Some(i) = cur {
                if i == t.1 {
                    return true;
                }
                cur = tf.definitions[i as usize].parent;
            }
            false
        };
        let self_name = |b: &str| {
            b.strip_prefix("self.")
                .or_else(|| b.strip_prefix("this."))
                .is_some_and(|r| r == field)
        };
        let mut types: Vec<&str> = self
            .typed_by(t.0, field)
            .filter(|b| {
                (b.scope == Some(t.1) && b.name == field) || (inside(b.scope) && self_name(&b.name))
            })
            .map(|b| b.type_name.as_str())
            .collect();
        if types.is_empty() {
            types = self
                .typed_by(t.0, field)
                .filter(|b| {
                    b.name == field
                        && b.scope.is_some_and(|s| {
                            let d = &tf.definitions[s as usize];
                            d.kind == Kind::Constructor && d.parent == Some(t.1)
                        })
                })
                .map(|b| b.type_name.as_str())
                .collect();
        }
        self.unify(t.0, types)
    }

    /// One type for a set of bindings of the same name; disagreeing bindings are unknown.
    fn unify(&self, fi: u32, mut types: Vec<&str>) -> Typed {
        types.sort_unstable();
        types.dedup();
        match types.as_slice() {
            [t] => self.classify(fi, t),
            _ => Typed::Unknown,
        }
    }

    /// A repo type, a name defined nowhere in the repo (a library or builtin type), or a
    /// name that is not a type here (a factory function: its return type is unknown).
    fn classify(&self, fi: u32, ty: &str) -> Typed {
        self.classify_depth(fi, ty, 0)
    }

    fn classify_depth(&self, fi: u32, ty: &str, depth: u32) -> Typed {
        // A repo type is resolved here, in the file that names it: the caller asking
        // for its members may be in another file, with another type of that name.
        match self.classify_name(fi, ty, depth) {
            Typed::Repo(name) => match self.resolve_base(fi, &name) {
                Some((t, _)) => Typed::Def(t),
                None => Typed::Repo(name),
            },
            other => other,
        }
    }

    /// [`Ctx::classify_depth`] before a repo type's name is resolved to its definition.
    fn classify_name(&self, fi: u32, ty: &str, depth: u32) -> Typed {
        let fam = self.fam(fi);
        // `pkg.Type`: the qualifier's import decides (see `resolve_base_ref`).
        if let Some((q, name)) = ty.rsplit_once('.') {
            let first = q.split('.').next().unwrap_or(q);
            if let Some(imps) = self.local(fi).bindings.get(first) {
                return match self.resolve_base_ref(fi, name, Some(q)) {
                    Some((t, _)) => Typed::Def(t),
                    // A factory of the imported package (`x := store.NewMemory()`): its
                    // declared return type.
                    None if depth == 0 && q == first => {
                        let mut rets: Vec<(u32, String)> = Vec::new();
                        for imp in imps {
                            match self.bind(fi, imp) {
                                Bound::External => return Typed::External,
                                Bound::Module(files) => {
                                    for r in self.top_level_in(&files, name) {
                                        if self.def(r).kind.is_callable() {
                                            rets.extend(self.returns_of(r).map(|t| (r.0, t)));
                                        }
                                    }
                                }
                                _ => {}
                            }
                        }
                        rets.sort();
                        rets.dedup();
                        match rets.as_slice() {
                            [(tf, t)] => self.classify_depth(*tf, t, 1),
                            _ => Typed::Unknown,
                        }
                    }
                    None => {
                        let external = self.local(fi).bindings[first]
                            .iter()
                            .any(|imp| matches!(self.bind(fi, imp), Bound::External));
                        if external {
                            Typed::External
                        } else {
                            Typed::Unknown
                        }
                    }
                };
            }
            // Rust `disk::Conn` (bound as `disk.Conn`): the module path from this file.
            if fam == "rust" {
                let segs: Vec<&str> = q.split('.').collect();
                if let Some((Target::Files(v), used)) = self.modules.rust(self.files, fi, &segs) {
                    if used == segs.len() {
                        let t: Vec<DefRef> = self
                            .types
                            .refs(&(fam, name))
                            .filter(|r| v.contains(&r.0) && self.def(*r).kind != Kind::Impl)
                            .collect();
                        if let [t] = t.as_slice() {
                            return Typed::Def(*t);
                        }
                    }
                }
            }
            // Go qualifies a name only by a package (Go spec, "Qualified identifiers"): an
            // unbound qualifier is a value, and `v.Name` is its field or method, not a type.
            if fam == "go" {
                return Typed::Unknown;
            }
            // C++ and C#: a namespace-qualified type (`json::Parser`) keeps its qualifier.
            if matches!(fam, "c" | "csharp") && self.qualified_type(fi, q, name).len() == 1 {
                return Typed::Repo(ty.to_string());
            }
            return self.classify_depth(fi, name, depth);
        }
        // A factory function whose declared return type names a repo type
        // (`func NewMemory() *Memory`, `def make() -> Foo`, `fn new() -> Self`).
        if depth == 0 && !self.types.contains_key(&(fam, ty)) {
            if let Some(r) = self.factory_return(fam, ty) {
                return self.classify_depth(fi, &r, 1);
            }
        }
        if self
            .types
            .get(&(fam, ty))
            .is_some_and(|v| v.iter().any(|&r| self.def(r).kind != Kind::Module))
        {
            Typed::Repo(ty.to_string())
        } else if fam == "go" && GO_PREDECLARED_TYPES.contains(&ty) {
            // `Err error`: `e.Err.Error()` is the interface's method, no repo type's.
            Typed::External
        } else if self.by_name.contains_key(&(fam, ty))
            || ty.chars().next().is_some_and(char::is_lowercase)
        {
            // A function's name (`x = make()`: its return type is unknown), or a lowercase
            // builtin whose methods we cannot list.
            Typed::Unknown
        } else {
            Typed::External
        }
    }

    /// The one return type that every callable named `name` (family `fam`) declares
    /// (`Self` read as its type), `None` when none or several. The same for every file,
    /// so it is worked out once per name: a name such as `new` has thousands of
    /// definitions, and listing their return types at every `let x = new()`-like binding
    /// was a third of the Rust tree's resolution CPU (`perf`).
    fn factory_return(&self, fam: &str, name: &str) -> Option<Arc<str>> {
        let key = (fam.to_string(), name.to_string());
        if let Some(r) = self.factory.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return r;
        }
        let mut rets: Vec<&str> = self
            .by_name
            .get(&(fam, name))
            .into_iter()
            .flatten()
            .filter(|&&r| self.def(r).kind.is_callable())
            .filter_map(|&r| {
                let d = self.def(r);
                let ret = d.returns()?;
                if ret == "Self" {
                    let f = &self.files[r.0 as usize];
                    return Some(&*f.definitions[d.parent? as usize].name);
                }
                Some(ret)
            })
            .collect();
        rets.sort_unstable();
        rets.dedup();
        let found = match rets.as_slice() {
            [r] => Some(Arc::from(*r)),
            _ => None,
        };
        if let Ok(mut m) = self.factory.lock() {
            m.insert(key, found.clone());
        }
        found
    }

    fn is_constructible(&self, fi: u32, ty: &str) -> bool {
        self.types
            .get(&(self.fam(fi), ty))
            .is_some_and(|v| v.iter().any(|&r| self.def(r).kind.is_constructible()))
    }

    /// A method call on a receiver of unknown type: the only method of that name in the
    /// repo (same family, guarded); several is `ambiguous`, none is `external`. `caller`,
    /// the calling definition when the receiver is another object than `this`, is never
    /// the guess (`external` when it is the only such method; several stay `ambiguous`,
    /// never narrowed to the others): a method calling its own name on another object
    /// delegates to a wrapped object (`def readlines(self): return
    /// self._input.readlines()`, click's `EchoingStdin` around a `BinaryIO`), which a guess
    /// turned into a false recursion (Python tree: 4 such call edges; npm: 31; `stats.edges.calls`
    /// of `codegraph-tui -C <tree> --no-cache index --json` before and after this rule).
    fn method_fallback(
        &self,
        fi: u32,
        name: &str,
        caller: Option<DefRef>,
    ) -> Result<(DefRef, Tier), UnresolvedReason> {
        let fam = self.fam(fi);
        let is_method = |r: &DefRef| matches!(self.def(*r).kind, Kind::Method | Kind::Constructor);
        let all = self.by_name.get(&(fam, name)).unwrap_or_default();
        // In statically typed languages the receiver's type decides; when we could not
        // type it, a repo method that merely shares the name is more often wrong than right
        // (measured against go/types and javac: unique-name precision 0.57 on x/tools), so
        // no guess is made. Python and JavaScript keep the guarded guess.
        let lang = self.files[fi as usize].language.as_str();
        let guess = matches!(fam, "python" | "js")
            && lang != "typescript"
            && lang != "tsx"
            && !(fam == "js" && JS_PLATFORM_METHODS.contains(&name));
        if !guess || !unique_name_allowed(name) {
            return Err(if all.iter().any(is_method) {
                UnresolvedReason::Ambiguous
            } else {
                UnresolvedReason::External
            });
        }
        // A getter or setter is read as a property: `x.context(..)` calls what some other
        // object's `context` method is, never `get context()` (17 guesses on the npm tree
        // went to three.js getters). A class defined inside a function is unknown to other
        // files (flask's `client.head("/")` went to a test function's local view class).
        let cands = self.pick(
            fi,
            all.iter()
                .copied()
                .filter(|r| {
                    is_method(r)
                        && !self.def(*r).is_accessor()
                        && (r.0 == fi || !self.in_callable(*r))
                })
                .collect(),
        );
        match cands.len() {
            0 => Err(UnresolvedReason::External),
            1 if Some(cands[0]) == caller => Err(UnresolvedReason::External),
            1 => Ok((cands[0], Tier::UniqueName)),
            _ => Err(UnresolvedReason::Ambiguous),
        }
    }

    /// A type written with a qualifier (`io.Writer`, `types.Type`, `ns.Foo`): the
    /// qualifier's import decides. Bound to a module outside the repo: `None` (the type is
    /// external, never a same-named repo type); bound to repo files: the type among them;
    /// not bound: the plain name (Rust paths, nested names).
    fn resolve_base_ref(
        &self,
        fi: u32,
        name: &str,
        qualifier: Option<&str>,
    ) -> Option<(DefRef, Tier)> {
        let Some(q) = qualifier else {
            return self.resolve_base(fi, name);
        };
        let first = q.split(['.', ':']).next().unwrap_or(q);
        // C++ `class C : public geo::Shape`, C# `: Acme.Models.Base`: the namespace decides.
        if matches!(self.fam(fi), "c" | "csharp") {
            if let [t] = self.qualified_type(fi, q, name).as_slice() {
                return Some((*t, Tier::Qualified));
            }
        }
        let Some(imps) = self.local(fi).bindings.get(first) else {
            return self.resolve_base(fi, name);
        };
        for imp in imps {
            // `import a.b` bound `a`: the qualifier is a module path from the package `a`;
            // so is `a.b` after a plain `import a` (`requests.cookies.RequestsCookieJar`).
            let dotted = python_package_binding(self.fam(fi), imp).is_some()
                || (self.fam(fi) == "python"
                    && imp.name.is_none()
                    && imp.alias.is_none()
                    && q.contains('.'));
            let bound = match dotted {
                true => match self.modules.python(self.files, fi, q) {
                    Target::Files(v) if !v.is_empty() => Bound::Module(v),
                    _ => self.bind(fi, imp),
                },
                false => self.bind(fi, imp),
            };
            match bound {
                Bound::External => return None,
                Bound::Module(files) => {
                    let mut v: Vec<DefRef> = self
                        .types
                        .refs(&(self.fam(fi), name))
                        .filter(|r| files.contains(&r.0) && self.def(*r).kind != Kind::Impl)
                        .collect();
                    if v.is_empty() {
                        // A type the module re-exports (`click.Option`: `from .core import
                        // Option` in click's `__init__.py`).
                        v = self
                            .exported_in(&files, name, 0)
                            .into_iter()
                            .filter(|&r| is_typeish(self.def(r).kind))
                            .collect();
                    }
                    return (v.len() == 1).then(|| (v[0], Tier::Import));
                }
                _ => {}
            }
        }
        self.resolve_base(fi, name)
    }

    /// A base type named in a definition header: same file, import, then unique type name.
    fn resolve_base(&self, fi: u32, name: &str) -> Option<(DefRef, Tier)> {
        let bases = &self.local(fi).bases;
        let lock = || {
            bases
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(&known) = lock().get(name) {
            return known;
        }
        // Not held while resolving: the answer may ask for other names of this file.
        let answer = self.resolve_base_uncached(fi, name);
        lock().insert(name.to_string(), answer);
        answer
    }

    /// [`Ctx::resolve_base`] worked out.
    fn resolve_base_uncached(&self, fi: u32, name: &str) -> Option<(DefRef, Tier)> {
        let fam = self.fam(fi);
        // A qualified type from [`Ctx::classify`] (`json.Parser`, C++ and C#).
        if let Some((q, n)) = name
            .rsplit_once('.')
            .filter(|_| matches!(fam, "c" | "csharp"))
        {
            return match self.qualified_type(fi, q, n).as_slice() {
                [t] => Some((*t, Tier::Qualified)),
                _ => None,
            };
        }
        // An import alias (`from .sansio.blueprints import Blueprint as SansioBlueprint`)
        // names a type no definition is named after: the bindings are asked first then.
        let types = self.types.get(&(fam, name)).unwrap_or_default();
        let here: Vec<DefRef> = types
            .iter()
            .copied()
            .filter(|r| r.0 == fi && self.def(*r).kind != Kind::Impl)
            .collect();
        if here.len() == 1 {
            return Some((here[0], Tier::Local));
        }
        if let Some(imps) = self.local(fi).bindings.get(name) {
            for imp in imps {
                if let Bound::Defs(d) = self.bind(fi, imp) {
                    if d.len() == 1 && (!types.is_empty() || is_typeish(self.def(d[0]).kind)) {
                        return Some((d[0], Tier::Import));
                    }
                }
            }
        }
        if types.is_empty() {
            return None;
        }
        let all: Vec<DefRef> = types
            .iter()
            .copied()
            .filter(|r| {
                self.def(*r).kind != Kind::Impl && self.sees_namespace(fi, self.namespace_of(*r))
            })
            .collect();
        // Glob imports (`import org.util.*;`, `using App.Models;`, `from m import *`).
        let f = &self.files[fi as usize];
        for imp in f.imports.iter().filter(|i| i.name.as_deref() == Some("*")) {
            if let Bound::Module(files) = self.bind(
                fi,
                &Import {
                    name: None,
                    ..imp.clone()
                },
            ) {
                let v: Vec<DefRef> = all
                    .iter()
                    .copied()
                    .filter(|r| files.contains(&r.0))
                    .collect();
                if v.len() == 1 {
                    return Some((v[0], Tier::Import));
                }
            }
        }
        // The same package (directory), then the crate. In Java and Go a type of the same
        // package is in scope without an import (JLS 6.3, the Go spec's package block):
        // found there, it is `local` even when no other type has its name (`class B
        // extends A` beside `A.java`, too short a name for a guess).
        let near = narrow(self.files, fi, all.clone());
        let same_package = matches!(fam, "java" | "go")
            && near.len() == 1
            && dir_of(&self.files[near[0].0 as usize].path)
                == dir_of(&self.files[fi as usize].path);
        if near.len() == 1 && (all.len() > 1 || same_package) {
            return Some((near[0], Tier::Local));
        }
        (all.len() == 1 && (unique_name_allowed(name) || all[0].0 == fi))
            .then(|| (all[0], Tier::UniqueName))
    }
}

/// Test code by path: Go `_test.go` and `testdata/`, `tests/`/`test/`/`__tests__/` folders,
/// `test_*.py`, `*_test.py`, `*.test.*` and `*.spec.*` files.
pub fn is_test_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let in_dir = |d: &str| path.starts_with(&format!("{d}/")) || path.contains(&format!("/{d}/"));
    file.ends_with("_test.go")
        || in_dir("testdata")
        || in_dir("tests")
        || in_dir("test")
        || in_dir("__tests__")
        || (file.starts_with("test_") && file.ends_with(".py"))
        || file.ends_with("_test.py")
        || file.contains(".test.")
        || file.contains(".spec.")
}

/// A namespace name with `.` as its only separator (`a::b` → `a.b`).
fn normalize_ns(ns: &str) -> String {
    ns.replace("::", ".")
}

/// Whether two namespace names are the same, whatever their separator.
fn same_ns(a: &str, b: &str) -> bool {
    normalize_ns(a) == normalize_ns(b)
}

/// Whether a C or C++ definition has internal linkage: a free function (not a method, not
/// nested in a type) whose header line says `static` before its name, in a source file.
/// A `static` function in a header is compiled into every file that includes it, so it
/// stays visible to them.
fn is_internal(f: &FileFacts, d: &Definition) -> bool {
    const HEADERS: &[&str] = &["h", "hh", "hpp", "hxx", "h++", "ipp", "inl"];
    let ext = f.path.rsplit_once('.').map_or("", |(_, e)| e);
    if d.kind != Kind::Function
        || d.container().is_some()
        || HEADERS.contains(&ext.to_ascii_lowercase().as_str())
        || d.parent
            .is_some_and(|p| f.definitions[p as usize].kind.is_type_container())
    {
        return false;
    }
    let sig = d.signature.as_str();
    let head = sig.find(&*d.name).map_or(sig, |i| &sig[..i]);
    head.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == "static")
}

/// The directory part of a repo-relative path (`""` at the root).
fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Narrows candidates to the caller's file, then its directory tree (crate or package),
/// whichever first leaves exactly one; otherwise returns them all.
fn narrow(files: &[Arc<FileFacts>], fi: u32, all: Vec<DefRef>) -> Vec<DefRef> {
    if all.len() <= 1 {
        return all;
    }
    let same: Vec<DefRef> = all.iter().copied().filter(|r| r.0 == fi).collect();
    if !same.is_empty() {
        return same;
    }
    let path = &files[fi as usize].path;
    let dir = path.rfind('/').map_or("", |i| &path[..=i]);
    let in_dir = |r: &DefRef| {
        let p = &files[r.0 as usize].path;
        p.starts_with(dir) && !p[dir.len()..].contains('/')
    };
    let same_dir: Vec<DefRef> = all.iter().copied().filter(in_dir).collect();
    if same_dir.len() == 1 {
        return same_dir;
    }
    let root = modules::rust_crate_root(path);
    if files[fi as usize].language == "rust" && !root.is_empty() {
        let near: Vec<DefRef> = all
            .iter()
            .copied()
            .filter(|r| files[r.0 as usize].path.starts_with(&root))
            .collect();
        if near.len() == 1 {
            return near;
        }
    }
    all
}

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
/// `implements` edge of `impl Trait for Type`, which starts at `Type`'s node.
pub fn resolve(files: &[Arc<FileFacts>]) -> Resolution {
    let ctx = Ctx::build(files);
    tracing::debug!(rss_mib = ?super::rss_mib(), "resolution tables built");
    let offsets = node_offsets(files);
    let per_file: Vec<(Vec<RawEdge>, Vec<Unresolved>)> = (0..files.len())
        .into_par_iter()
        .map(|fi| resolve_file(&ctx, &offsets, fi as u32))
        .collect();
    // The tables are done with: freed before the lists below are made, not after.
    drop(ctx);
    tracing::debug!(rss_mib = ?super::rss_mib(), "every file resolved");
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
        if ctx.fam(fi) == "c"
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
                if tier != Tier::UniqueName && ctx.def(t).kind.is_callable() {
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
            Ok((t, _)) if f.language == "go" && !ctx.def(t).kind.is_callable() => {}
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
