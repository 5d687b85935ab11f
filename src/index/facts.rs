//! The per-file facts one parse produces: definitions, call sites, imports and chunks.
//!
//! [`FileFacts`] is the unit of caching and of incremental update (`docs/ARCHITECTURE.md`, "Bird's-eye
//! view"): a
//! changed file is re-extracted alone and resolution then runs over facts, never over
//! syntax trees. Every line number here is 1-based and inclusive; every column is a
//! 1-based count of Unicode scalar values (chars) from the start of the line, with a
//! UTF-8 byte-order mark not counted.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Kind of a graph node (`docs/contracts.md#nodes`). Serialized in snake_case (`type_alias`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A source file; its id is the repo-relative path.
    File,
    /// A module declared in source (`mod x {}` in Rust).
    Module,
    /// A namespace (C++, C#, TypeScript `namespace`).
    Namespace,
    /// A class.
    Class,
    /// A struct (Rust, Go, C).
    Struct,
    /// An enum.
    Enum,
    /// A trait (Rust).
    Trait,
    /// An interface (TypeScript, Go, Java).
    Interface,
    /// A Rust `impl` block; named by its self type.
    Impl,
    /// A free function.
    Function,
    /// A function defined inside a class-like container.
    Method,
    /// A constructor (`__init__`, JS/TS `constructor`).
    Constructor,
    /// A named constant or static.
    Constant,
    /// A type alias.
    TypeAlias,
}

impl Kind {
    /// All kinds, in declaration order.
    pub const ALL: [Kind; 14] = [
        Kind::File,
        Kind::Module,
        Kind::Namespace,
        Kind::Class,
        Kind::Struct,
        Kind::Enum,
        Kind::Trait,
        Kind::Interface,
        Kind::Impl,
        Kind::Function,
        Kind::Method,
        Kind::Constructor,
        Kind::Constant,
        Kind::TypeAlias,
    ];

    /// The snake_case name used in JSON and in `queries/*/tags.scm` captures.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Module => "module",
            Kind::Namespace => "namespace",
            Kind::Class => "class",
            Kind::Struct => "struct",
            Kind::Enum => "enum",
            Kind::Trait => "trait",
            Kind::Interface => "interface",
            Kind::Impl => "impl",
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Constructor => "constructor",
            Kind::Constant => "constant",
            Kind::TypeAlias => "type_alias",
        }
    }

    /// Parses the snake_case name; `None` for anything else.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Kinds that can be called (targets of `calls` edges other than constructions).
    pub fn is_callable(self) -> bool {
        matches!(self, Kind::Function | Kind::Method | Kind::Constructor)
    }

    /// Kinds whose members are methods (a `function` nested in one becomes a `method`).
    pub fn is_type_container(self) -> bool {
        matches!(
            self,
            Kind::Class | Kind::Struct | Kind::Enum | Kind::Trait | Kind::Interface | Kind::Impl
        )
    }

    /// Kinds a call by name can construct (`Foo()` in Python, `new Foo()` in JS).
    pub fn is_constructible(self) -> bool {
        matches!(self, Kind::Class | Kind::Struct)
    }
}

/// How a file was processed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileMode {
    /// Parsed with its grammar: definitions, calls and imports extracted.
    Parsed,
    /// Only line-window chunks (no grammar for the language, or minified/generated text).
    Windowed,
}

/// A base type named in a definition's header (`class A(B)`, `impl T for S`, `extends`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaseRef {
    /// Last path segment of the base's name, generics stripped (`Base` for `pkg.Base[T]`).
    pub name: String,
    /// Qualifier written before the name (`pkg` for `pkg.Base`), if any.
    pub qualifier: Option<String>,
    /// `true` for an implemented interface or trait, `false` for an inherited base.
    pub implements: bool,
    /// 1-based line of the base's name.
    pub line: u32,
    /// 1-based char column of the base's name.
    pub column: u32,
}

/// The empty string every deserialized [`Definition`] holds in its id and names until the
/// cache puts them back: one `Arc` per thread, not an allocation per field (3.5M of them
/// on the fetch.sh Rust tree) nor one counter that every thread contends for.
fn no_name() -> Arc<str> {
    thread_local! {
        static EMPTY: Arc<str> = Arc::from("");
    }
    EMPTY.with(Arc::clone)
}

/// One definition found in a file.
///
/// Its serde form (the cache's `facts.bin`) leaves out `id`, `name` and `qualified_name`,
/// which deserialize empty: the cache keeps them once, with the graph's nodes
/// (`nodes.bin`), which is all a warm command that answers from the graph reads, and puts
/// them back into the facts on a full load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    /// Node id: `<path>::<in-file name>`, plus `#2`, `#3` for later duplicates
    /// (`docs/contracts.md#node-ids`). Shared with the graph node (hence `Arc`).
    #[serde(skip, default = "no_name")]
    pub id: Arc<str>,
    /// Node kind.
    pub kind: Kind,
    /// The definition's own name (last segment), generics stripped.
    #[serde(skip, default = "no_name")]
    pub name: Arc<str>,
    /// Language-level full name: module path (where the language has one) plus the chain
    /// of enclosing definitions.
    #[serde(skip, default = "no_name")]
    pub qualified_name: Arc<str>,
    /// Index (into [`FileFacts::definitions`]) of the enclosing definition, if any.
    pub parent: Option<u32>,
    /// 1-based first line (inclusive).
    pub start_line: u32,
    /// 1-based last line (inclusive).
    pub end_line: u32,
    /// 1-based line of the name token.
    pub name_line: u32,
    /// Byte offset of the definition's start in the (BOM-stripped) text.
    pub start_byte: u32,
    /// Byte offset one past the definition's end.
    pub end_byte: u32,
    /// The first line of the definition, whitespace-trimmed, at most 240 chars.
    pub signature: String,
    /// What few definitions have (doc, bases, return type, ...), out of line; `None`
    /// when all of it is absent. Read it through the accessors ([`Definition::doc`], ...).
    pub details: Option<Box<DefDetails>>,
    /// The number of parameters where the query captures them (`@params`, C# and C++) and
    /// every call passes exactly that many; `None` when unknown or when a parameter has a
    /// default or is variadic. Picks among overloads by the call's argument count.
    #[serde(default)]
    pub arity: Option<u32>,
}

/// The parts of a [`Definition`] that most definitions lack: on the fetch.sh corpus about
/// one definition in ten has any (1.2M definitions; 49K docs, 55K with bases, 63K return
/// types, 6K containers), so keeping them out of line saves about 110 bytes on each of
/// the others.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefDetails {
    /// Explicit container for a definition written outside its type (a Go method's
    /// receiver type); `None` when the container is the enclosing definition.
    pub container: Option<String>,
    /// Doc comment or docstring, markers stripped; `None` when absent.
    pub doc: Option<String>,
    /// Bases and implemented interfaces written in the definition's header.
    pub bases: Vec<BaseRef>,
    /// The declared return type's name (last segment, generics stripped), when the
    /// source writes one: used to type `x = make()` receivers. `Self` is kept as written.
    pub returns: Option<String>,
    /// The name a method gives its own instance where the language lets it choose (a Go
    /// receiver such as `m` in `func (m *Memory) Len()`); `self`/`this` are implied elsewhere.
    pub self_name: Option<String>,
    /// A getter or setter (JS `get x()` / `set x(v)`, a Python `@property` and its
    /// `.setter`): used as a property, so never the target of a call.
    pub accessor: bool,
    /// The declared type of each parameter (last segment, generics dropped, `[]` kept:
    /// `String`, `int`, `Node[]`), where the language's spec reads them
    /// ([`ExtractionRules::param_type`](crate::index::lang::ExtractionRules::param_type));
    /// empty when unknown (a variadic list, another language). Picks among overloads of
    /// one parameter count by the arguments' types.
    pub params: Vec<String>,
}

impl DefDetails {
    /// `None` when every part is absent, else the boxed details.
    pub fn boxed(self) -> Option<Box<DefDetails>> {
        (self != DefDetails::default()).then(|| Box::new(self))
    }
}

impl Definition {
    /// See [`DefDetails::container`].
    pub fn container(&self) -> Option<&str> {
        self.details.as_ref()?.container.as_deref()
    }

    /// See [`DefDetails::doc`].
    pub fn doc(&self) -> Option<&str> {
        self.details.as_ref()?.doc.as_deref()
    }

    /// See [`DefDetails::bases`]; empty when none are written.
    pub fn bases(&self) -> &[BaseRef] {
        self.details.as_ref().map_or(&[], |d| &d.bases)
    }

    /// See [`DefDetails::params`].
    pub fn param_types(&self) -> &[String] {
        self.details.as_ref().map_or(&[], |d| &d.params)
    }

    /// See [`DefDetails::returns`].
    pub fn returns(&self) -> Option<&str> {
        self.details.as_ref()?.returns.as_deref()
    }

    /// See [`DefDetails::accessor`].
    pub fn is_accessor(&self) -> bool {
        self.details.as_ref().is_some_and(|d| d.accessor)
    }

    /// See [`DefDetails::self_name`].
    pub fn self_name(&self) -> Option<&str> {
        self.details.as_ref()?.self_name.as_deref()
    }

    /// The chain of enclosing definitions in this file joined by the language separator
    /// (the id without its path and `#n` suffix): `Calculator::add`, `Ledger.settle`.
    pub fn in_file_name(&self) -> &str {
        let rest = self.id.split_once("::").map_or(&*self.id, |(_, r)| r);
        match rest.rfind('#') {
            Some(i) if rest[i + 1..].chars().all(|c| c.is_ascii_digit()) && i + 1 < rest.len() => {
                &rest[..i]
            }
            _ => rest,
        }
    }
}

/// One call site (or `new` expression) found in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallSite {
    /// Index (into [`FileFacts::definitions`]) of the nearest named enclosing definition;
    /// `None` for a top-level call, which belongs to the file node. Calls inside anonymous
    /// closures, arrow functions and lambdas belong to the nearest named definition.
    pub caller: Option<u32>,
    /// The callee's name as written (last segment).
    pub name: String,
    /// Receiver or path qualifier text (`self`, `this`, `Foo`, `mod::sub`, `a.b()`), with
    /// whitespace collapsed and at most 200 chars; `None` for a bare call.
    pub receiver: Option<String>,
    /// `true` for a construction (`new Foo()`).
    pub is_new: bool,
    /// `true` when the receiver is a path qualifier that cannot be a value (Rust `a::b`),
    /// so it is never typed as a variable.
    pub is_path: bool,
    /// `true` when the name is not called here but used as a value (a callback argument,
    /// an assignment, a return): it gives a `references` edge when it names a function.
    pub is_reference: bool,
    /// The number of arguments written, where the query captures them (`@call.args`);
    /// `None` otherwise.
    #[serde(default)]
    pub args: Option<u32>,
    /// What each argument's syntax says of its type, where the language's spec reads it
    /// ([`ExtractionRules::arg_type`](crate::index::lang::ExtractionRules::arg_type)):
    /// a type name (`String`, `int`, `null`, `this`, `Foo` for `new Foo()`), `=x` for a
    /// plain name `x` (typed from its binding), a call as written (`m.getName()`, typed by
    /// its target's declared return type), empty when unknown. `None`: not read.
    #[serde(default)]
    pub arg_types: Option<Box<[String]>>,
    /// 1-based line of the callee name token.
    pub line: u32,
    /// 1-based char column of the callee name token.
    pub column: u32,
}

/// The mark in front of a type name that only a doc comment states (JSDoc `@type`,
/// `@param`, `@returns`): resolution reads such a type as unknown, not as a library's,
/// when the repo defines no type of that name (a `@typedef` object shape, a DOM type), so a
/// doc comment never hides a call that was resolvable without it.
pub const DOC_TYPE: char = '?';

/// The mark in front of [`Binding::type_name`] for a module-level alias: `=attrib` for
/// `ib = attrib`.
pub const ALIAS: char = '=';

/// The mark in front of [`Binding::type_name`] for a generic type parameter or a value of
/// a trait-bounded type: `^Read+a.Seek` for `R: Read + a::Seek` (each bound a type name as
/// elsewhere, a path dotted, `+` between them), `^` alone for a parameter without bounds
/// (which still hides a same-named type). `impl Read` and `dyn Read` values are `^Read`.
pub const BOUND: char = '^';

/// One import binding (a statement importing several names yields several bindings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// Module specifier as written, quotes removed: `./util`, `..pkg.mod`, `crate::a::b`,
    /// `github.com/x/y`.
    pub module: String,
    /// The imported member (`f` in `from m import f`); `None` when the module itself is
    /// bound; `"*"` for a glob import; `"default"` for a JS default import.
    pub name: Option<String>,
    /// Local name when it differs from the natural one (`as` aliases, namespace imports).
    pub alias: Option<String>,
    /// 1-based line of the import statement.
    pub line: u32,
}

impl Import {
    /// The local name this binding introduces: the alias, else the member name, else the
    /// last segment of the module path. `None` for globs.
    pub fn local_name(&self) -> Option<&str> {
        if let Some(a) = &self.alias {
            return Some(a);
        }
        match self.name.as_deref() {
            Some("*") => None,
            Some(n) => Some(n),
            None => self
                .module
                .rsplit(['/', '.', ':'])
                .find(|s| !s.is_empty())
                .map(|s| s.trim_end_matches(".js")),
        }
    }
}

/// A name whose type the source states or implies: a local or parameter with a declared
/// type (`x: Foo`, `Foo x`), a variable bound to a construction (`x = Foo()`,
/// `const x = new Foo()`, `let x = Foo::new()`, `x := &Foo{}`), or a field (`self.x =
/// Foo()`, `private Foo x;`). Used to type the receivers of later calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// Index of the innermost definition holding the binding (a function for locals and
    /// parameters, a class or struct for fields); `None` at top level.
    pub scope: Option<u32>,
    /// The bound name as written: `x`, or `self.x` / `this.x` for an assigned field.
    pub name: String,
    /// The type's name, last segment, generics stripped (`Foo` for `pkg.Foo[T]`); empty
    /// when the source binds the name without saying its type (an unannotated Python
    /// parameter or assignment target), which still shadows outer definitions. A type only
    /// a doc comment states starts with [`DOC_TYPE`]; a module-level alias (`ib = attrib`)
    /// is [`ALIAS`] and the aliased name; a generic parameter or a trait-typed value is
    /// [`BOUND`] and its bounds; a name bound to a call's result is the call as written
    /// (`c.File(p)`, typed by what it calls).
    pub type_name: String,
    /// 1-based line of the binding.
    pub line: u32,
}

/// Whether a chunk covers a definition or a window of lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKind {
    /// The text of one definition (or a container's header when the container is split).
    Symbol,
    /// An overlapping window of lines outside any definition.
    Window,
}

/// A search chunk: a line range of one file. Text is read from the source when needed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Symbol or window.
    pub kind: ChunkKind,
    /// Index of the definition for symbol chunks.
    pub definition: Option<u32>,
    /// 1-based first line (inclusive).
    pub start_line: u32,
    /// 1-based last line (inclusive).
    pub end_line: u32,
}

/// Everything one parse of one file yields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// Repo-relative path with `/` separators.
    pub path: String,
    /// Registry name of the language (`rust`, `python`, `markdown`, ...).
    pub language: String,
    /// BLAKE3 hash of the raw bytes, lowercase hex.
    pub content_hash: String,
    /// Size of the raw bytes.
    pub bytes: u64,
    /// Number of lines (a final line without a newline counts).
    pub lines: u32,
    /// Parsed or windowed.
    pub mode: FileMode,
    /// `true` when the syntax tree held ERROR or MISSING nodes (extraction still ran).
    pub parse_errors: bool,
    /// Language module path of the file (`["pkg", "mod"]`), empty where none applies.
    pub module_path: Vec<String>,
    /// Definitions in source order (by start byte, outer before inner).
    pub definitions: Vec<Definition>,
    /// Call sites in source order.
    pub calls: Vec<CallSite>,
    /// Import bindings in source order.
    pub imports: Vec<Import>,
    /// Name of the file's default export (`export default function render`, CommonJS
    /// `module.exports = Parser`), if any.
    pub default_export: Option<String>,
    /// The package the file declares (Go `package x`, Java `package a.b`), if any.
    pub package: Option<String>,
    /// Typed names, in source order.
    pub bindings: Vec<Binding>,
    /// What this file says about module resolution, when it is a project file
    /// (`tsconfig.json`, `go.mod`, `Cargo.toml`).
    pub project: Option<super::project::ProjectFile>,
    /// Search chunks in source order.
    pub chunks: Vec<Chunk>,
}
