//! Cross-file resolution over all files' facts (never over trees): every call site becomes
//! one edge to exactly one definition, or an [`Unresolved`] reference with its reason.
//!
//! Order of rules (docs/contracts.md#relations-and-tiers, most certain first):
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

mod bases;
mod calls;
mod context;
mod driver;
mod generics;
mod imports;
mod modules;
mod overloads;
mod renumber;
mod tables;
mod types;
mod written;

use std::sync::Arc;

use foldhash::HashMap;

use modules::{ModuleTable, Target};
use tables::RefMap;

use super::facts::{Binding, FileFacts, Import};
use super::graph::{RawEdge, Tier, Unresolved};
use super::lang::{LanguageSpec, NamePattern};

pub(crate) use driver::locate;
pub use driver::{node_offsets, resolve, resolve_selected};
pub use tables::Tables;
pub(crate) use written::{tokens, written_names, WrittenNames};

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

/// The guard of the `unique_name` tier: at least 4 chars and not in `COMMON_NAMES`.
pub fn unique_name_allowed(name: &str) -> bool {
    name.chars().count() >= 4 && !COMMON_NAMES.contains(&name)
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
    /// file → its language's spec, whose [`ResolutionRules`](super::lang::ResolutionRules)
    /// every rule reads and whose family keys the tables.
    specs: Vec<&'static LanguageSpec>,
    /// file → [`is_test_path`] of its path (asked for every candidate of every call).
    is_test: Vec<bool>,
    /// C and C++ `static` free functions of source (non-header) files: internal linkage
    /// (C11 6.2.2), so no other file can call them (see `context::is_internal`).
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

/// Test code by path: `testdata/`, `tests/`, `test/` and `__tests__/` folders, `*.test.*`
/// and `*.spec.*` files in every language, and the file names that `spec` (the file's
/// language) lists as test files (`test_*.py`, `*_test.py`, `*_test.go`).
pub fn is_test_path(path: &str, spec: &LanguageSpec) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let in_dir = |d: &str| path.starts_with(&format!("{d}/")) || path.contains(&format!("/{d}/"));
    NamePattern::any(spec.resolution.test_files, file, spec.extensions)
        || in_dir("testdata")
        || in_dir("tests")
        || in_dir("test")
        || in_dir("__tests__")
        || file.contains(".test.")
        || file.contains(".spec.")
}
