//! The shape of a language's description: [`LanguageSpec`] and the extraction hooks it
//! carries ([`ExtractionRules`]). Its own module so the registry (`lang/mod.rs`) stays a
//! list of languages and the per-language files read as data: each fills a
//! `LanguageSpec` and writes `..LanguageSpec::DEFAULT` for the rest.
//!
//! The rule groups for resolution and for impact analysis are in `resolution_rules.rs`
//! and `impact_rules.rs`; the engine reads them from the spec of the file it works on and
//! never compares a language's name.

use tree_sitter::Node;

use super::impact_rules::ImpactRules;
use super::resolution_rules::ResolutionRules;
use super::token_tree::TokenClass;
use crate::index::facts::Import;

/// Expands an import node into bindings: (statement node, source bytes, 1-based line, out).
pub type ImportHook = fn(Node<'_>, &[u8], u32, &mut Vec<Import>);

/// Static description of one language: everything the engine knows about it.
pub struct LanguageSpec {
    /// Registry name, used in JSON (`rust`, `python`, `javascript`, `typescript`, `tsx`,
    /// `go`, `java`, `c`, `cpp`, `csharp`, and the window-only `markdown`, `toml`, ...).
    pub name: &'static str,
    /// The group of languages whose files see each other's definitions: two files
    /// resolve to each other's definitions only when their families are equal (JavaScript,
    /// TypeScript and TSX import each other: `js`; C and C++ share headers: `c`). `None`:
    /// the language alone. An opaque key: read it through [`LanguageSpec::family`], never
    /// compare it with a language's name.
    pub family: Option<&'static str>,
    /// File extensions without the dot, lowercase.
    pub extensions: &'static [&'static str],
    /// Whole file names (the last path segment, exact case) that are of this language
    /// whatever their extension (`go.mod`); looked up before extensions.
    pub file_names: &'static [&'static str],
    /// Interpreters that run a file of this language from its `#!` line (`ruby` in
    /// `#!/usr/bin/env ruby`, `php` in `#!/usr/bin/php`): an extension-less file whose
    /// first line names one is of this language ([`super::for_shebang`]).
    pub interpreters: &'static [&'static str],
    /// The tree-sitter grammar; `None` for window-only languages.
    pub grammar: Option<fn() -> tree_sitter::Language>,
    /// Source of the extraction query (`queries/<name>/tags.scm`); empty when no grammar.
    pub tags: &'static str,
    /// The syntax-highlighting query of the source panel: these texts joined by a line
    /// break, each a `highlights.scm` of a grammar crate (TypeScript's own query, then the
    /// JavaScript one it builds on). Empty: the file is shown unhighlighted.
    pub highlights: &'static [&'static str],
    /// For a file this spec was picked for by its extension, the language its content
    /// says it is instead, if another: `(repo-relative path, text)` → that language (a C
    /// `.h` header holding C++ is C++). `None`: the extension decides.
    pub refine_by_content: Option<fn(&str, &str) -> Option<&'static LanguageSpec>>,
    /// The project file that names this language's packages, for looking a definition up
    /// by the name its users write (`CodeGraph::lookup`).
    pub packages: PackageManifest,
    /// Separator of the in-file name chain and of qualified names (`::` or `.`).
    pub separator: &'static str,
    /// Node kinds that are comments (for leading doc comments).
    pub comment_kinds: &'static [&'static str],
    /// Prefixes that mark a leading comment as documentation (`///`, `/**`); empty means
    /// every adjacent leading comment is documentation (Go).
    pub doc_prefixes: &'static [&'static str],
    /// Method names that are constructors (`__init__`, `constructor`).
    pub constructor_names: &'static [&'static str],
    /// Whether a method named like its class (or its explicit container) is a constructor
    /// (C++ `Parser::Parser(...)`).
    pub type_named_constructors: bool,
    /// The language's module path for a repo-relative file path (`a/b.py` → `["a", "b"]`).
    pub module_path: fn(&str) -> Vec<String>,
    /// File stems that make a file its folder's own module, so other files name it by the
    /// folder, not the stem (Python `__init__`, Rust `mod`, JavaScript `index`).
    pub folder_module_stems: &'static [&'static str],
    /// Expands an `@import` node that has no `@import.*` sub-captures (Rust `use` trees).
    pub expand_import: Option<ImportHook>,
    /// What extraction does beyond the query for this language.
    pub extraction: ExtractionRules,
    /// How calls, imports and type names of this language resolve.
    pub resolution: ResolutionRules,
    /// Which definitions are tests, entry points and dynamically dispatched.
    pub impact: ImpactRules,
}

fn no_module_path(_: &str) -> Vec<String> {
    Vec::new()
}

impl LanguageSpec {
    /// What a language has unless its spec says otherwise: no name, no grammar (its files
    /// are indexed as line windows for search only), `.` as separator, no module path and
    /// the default of every rule group. A spec lists the fields that differ, then
    /// `..LanguageSpec::DEFAULT`.
    pub const DEFAULT: LanguageSpec = LanguageSpec {
        name: "",
        family: None,
        extensions: &[],
        file_names: &[],
        interpreters: &[],
        grammar: None,
        tags: "",
        highlights: &[],
        refine_by_content: None,
        packages: PackageManifest::None,
        separator: ".",
        comment_kinds: &[],
        doc_prefixes: &[],
        constructor_names: &[],
        type_named_constructors: false,
        module_path: no_module_path,
        folder_module_stems: &[],
        expand_import: None,
        extraction: ExtractionRules::DEFAULT,
        resolution: ResolutionRules::DEFAULT,
        impact: ImpactRules::DEFAULT,
    };

    /// The family key (see [`LanguageSpec::family`]'s field doc): the declared family, else
    /// the language's own name. Equal keys: the languages resolve to each other.
    pub fn family(&self) -> &'static str {
        self.family.unwrap_or(self.name)
    }
}

impl std::fmt::Debug for LanguageSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanguageSpec")
            .field("name", &self.name)
            .finish()
    }
}

/// The project file that names a language's packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageManifest {
    /// None: definitions are found by their qualified names only.
    None,
    /// `Cargo.toml`: a file belongs to the package its nearest `Cargo.toml` names (`[package]
    /// name`), which is the crate a path's first segment names (`frames::checksum` in
    /// `crates/wire-frames/`). Rust.
    Cargo,
    /// `go.mod`: definitions are also named by the import path of their package, the
    /// module path of the nearest `go.mod` then the folders below it
    /// (`github.com/go-git/go-git/v5/plumbing.NewHash`). Go.
    GoMod,
}

/// What extraction does beyond running the query, for one language.
#[derive(Debug, Clone, Copy)]
pub struct ExtractionRules {
    /// Wrappers around items that the grammar parses as opaque tokens: when the text
    /// contains [`Reparse::trigger`], [`Reparse::unwrap`] blanks them out and the file is
    /// parsed again (Rust `cfg_*! { items }` blocks). `None`: one parse.
    pub reparse: Option<Reparse>,
    /// Calls written inside a macro's token tree, where the grammar leaves the `.` or `::`
    /// before a callee as loose tokens (Rust `println!("{}", x.len())`). `None`: a call
    /// matched inside any node is taken as the query gives it.
    pub token_tree_calls: Option<TokenTreeCalls>,
    /// Whether a local's declared type qualified with `::` (`crate::disk::Conn`, a Rust
    /// module path) is kept, dotted (`crate.disk.Conn`), so its import decides the type.
    /// `false`: only `.`-qualified types keep their qualifier.
    pub path_qualified_types: bool,
    /// The separator of a declared package (`@package`) when the declaration, not the
    /// file's folders, names the file's module: its module path (and so the prefix of
    /// its qualified names and the package its imports name) is the declared package
    /// split at this separator (PHP `namespace App\Models;` with `\`). `None`: the
    /// spec's `module_path` of the file path decides.
    pub declared_package_separator: Option<&'static str>,
    /// Whether a module holds methods as a class does (Ruby: a module's `def`s are
    /// mixed into the classes that include it): a function defined in a module is a
    /// method of it, and code in it has the module as its enclosing type (`self`, bare
    /// calls). `false`: a module's functions are free functions (Rust `mod`).
    pub modules_hold_methods: bool,
    /// Whether a module declared by a dotted name (`defmodule Shop.Cart`) is the last
    /// segment declared in the module the others name: its name is `Cart`, its container
    /// `Shop`, so its qualified name is `Shop.Cart` and a nested module's
    /// `Shop.Cart.Inner` (Elixir). `false`: the qualifier is dropped from the name.
    pub dotted_module_names: bool,
    /// Whether adjacent definitions of one name in one scope are clauses of one function
    /// (Elixir `def f(0)` then `def f(n)`, whatever their arity): the first stands for
    /// all, its range extended over the last. `false`: each is a definition.
    pub adjacent_clauses_merge: bool,
    /// The types a doc comment states ([`DocTags`] of its text and 1-based line): JSDoc's
    /// `@type`, `@param`, `@returns` and `@import`, which type receivers where the code
    /// has no annotations. `None`: doc comments state no types.
    pub doc_tags: Option<fn(&str, u32) -> DocTags>,
    /// The type an argument expression's syntax states (a literal's type, `new Foo()` →
    /// `Foo`, a cast's type), `=x` for a plain name `x`, a call as written (ending in `)`,
    /// typed by what it calls), empty when unknown: with
    /// [`ExtractionRules::param_type`], it picks among overloads of one parameter count.
    /// `None`: arguments are only counted.
    pub arg_type: Option<fn(Node<'_>, &str) -> String>,
    /// The declared type of one parameter node of a `@params` list (last segment,
    /// generics dropped, `[]` kept); `None` for a parameter whose type it cannot say (a
    /// variadic one), which leaves the whole list unknown. `None`: parameters are only
    /// counted.
    pub param_type: Option<fn(Node<'_>, &str) -> Option<String>>,
    /// Call node kinds that construct the type enclosing them, whatever their name token
    /// says (a Java enum constant with arguments, `GET(false)`, calls its enum's
    /// constructor, JLS 8.9.1): such a call is read as `this(...)`.
    pub self_constructions: &'static [&'static str],
}

/// What one doc comment states about types ([`ExtractionRules::doc_tags`]). Type names
/// are as written (`Foo`, `ns.Foo`), generics dropped.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DocTags {
    /// The type of the declaration below the comment (`/** @type {Foo} */ let x`), or of
    /// the value after it (a cast `/** @type {Foo} */ (v)`).
    pub type_name: Option<String>,
    /// (parameter name, type) of the function below the comment.
    pub params: Vec<(String, String)>,
    /// The declared return type of the function below the comment.
    pub returns: Option<String>,
    /// Type imports the comment makes (`@import { A } from "./a"`), bound in its file like
    /// import statements.
    pub imports: Vec<Import>,
}

impl ExtractionRules {
    /// One parse, calls as matched, only dotted type qualifiers.
    pub const DEFAULT: ExtractionRules = ExtractionRules {
        reparse: None,
        token_tree_calls: None,
        path_qualified_types: false,
        declared_package_separator: None,
        modules_hold_methods: false,
        dotted_module_names: false,
        adjacent_clauses_merge: false,
        doc_tags: None,
        arg_type: None,
        param_type: None,
        self_constructions: &[],
    };
}

/// A second parse of a file with some wrappers blanked out ([`ExtractionRules::reparse`]).
#[derive(Debug, Clone, Copy)]
pub struct Reparse {
    /// A byte string without which the file has no such wrapper (a cheap test first:
    /// `cfg_`).
    pub trigger: &'static str,
    /// `(root of the parsed tree, its text)` → the text with every wrapper blanked (same
    /// length, lines and columns), `None` when the tree has none. Applied again to the
    /// result a bounded number of times, for nested wrappers.
    pub unwrap: fn(Node<'_>, &str) -> Option<String>,
}

/// Calls inside a macro's token tree ([`ExtractionRules::token_tree_calls`]): the receiver
/// of such a call is read back from its name over the tree's tokens
/// (`token_tree::call_receiver`).
#[derive(Debug, Clone, Copy)]
pub struct TokenTreeCalls {
    /// The node kind of a token tree (`token_tree`): a call matched as one of its children
    /// gets its receiver from the tokens before its name.
    pub node_kind: &'static str,
    /// The class of a token tree's child by node kind (`.`, `::`, an identifier, `self`, a
    /// nested tree, other).
    pub classify: fn(&str) -> TokenClass,
}
