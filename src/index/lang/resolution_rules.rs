//! [`ResolutionRules`]: how a language's calls, imports and type names resolve, as data the
//! resolver reads from the spec of the file it works on. Each field names the effect it
//! has and the language rule it encodes; [`ImportSystem`] names how imports bind modules,
//! a strategy several languages may share.

use super::names::NamePattern;

/// How a language's names resolve. Every rule is off (or empty) in
/// [`ResolutionRules::DEFAULT`]; a language turns on what its semantics say.
#[derive(Debug, Clone, Copy)]
pub struct ResolutionRules {
    /// How an import statement binds a module, and the module tables that serve it.
    pub imports: ImportSystem,
    /// Global objects of the platform: a bare call of one, or a call on one, that the file
    /// neither defines nor imports leaves the repository (`external`), even when another
    /// file defines a class of that name (ECMAScript, Node.js and browser globals:
    /// `JSON`, `Number`, `require`).
    pub globals: &'static [&'static str],
    /// Methods of the platform's built-in objects: a call of one on a receiver of unknown
    /// type is never guessed to be a repo method of that name (the DOM's `setAttribute`,
    /// ECMAScript's `Array.prototype.forEach`).
    pub platform_methods: &'static [&'static str],
    /// Predeclared type names: a value of one is never of a repo type, so its methods are
    /// `external` (Go's `error`, `string`; the Go spec, "Predeclared identifiers").
    pub predeclared_types: &'static [&'static str],
    /// Primitive types whose inherent methods the repo cannot see (Rust's `f32`, `u64`,
    /// `str`): a call on one (`f32::from_bits(u)`, `n.to_bits()` with `n: f32`) is the
    /// library's, even where a repo trait implemented for the type has a method of that
    /// name, since inherent methods are looked up first (the Rust Reference, "Method call
    /// expressions").
    pub primitive_types: &'static [&'static str],
    /// Receivers that name the file's own module: `exports.f()` calls the file's
    /// top-level `f` (CommonJS `exports`, `module.exports`).
    pub own_module_objects: &'static [&'static str],
    /// Receiver words that mean `super` (C# `base.M()`, PHP `parent::m()`); `super` and
    /// `super()` always do.
    pub super_aliases: &'static [&'static str],
    /// Receiver words that mean the enclosing type, besides `self`, `this`, `Self` and
    /// `cls` (PHP `static::make()`, late static binding: the class the method runs in,
    /// which the graph takes as the class that declares the caller).
    pub self_aliases: &'static [&'static str],
    /// The sigil every variable name starts with (PHP `$`), dropped from each segment of
    /// a receiver so `$this->repo` reads as `this.repo` and `$log` as the parameter `log`
    /// whose type the query binds.
    pub variable_sigil: Option<char>,
    /// The sigil of an instance variable (Ruby `@repo`): such a receiver is the field
    /// `self.repo`, and a name the query binds as `@repo` is bound as `self.repo`, so
    /// `@repo = Repo.new` in `initialize` types `@repo.find` in every method of the class.
    pub instance_variable_sigil: Option<char>,
    /// The separator of a path receiver's segments (`::` in Rust's `a::b::f()`; `.`
    /// elsewhere, after [`ResolutionRules::member_access_separators`] are rewritten).
    pub path_separator: &'static str,
    /// Separators that a receiver may use besides `.`, read as `.` before resolving it
    /// (C and C++ `p->f()`, `ns::T::f()`).
    pub member_access_separators: &'static [&'static str],
    /// File names of test code that non-test code never calls: a non-test caller's
    /// candidates in such files are dropped when others remain (pytest's `test_*.py`,
    /// `*_test.py`; Go's `_test.go`). Test folders and `*.test.*`/`*.spec.*` names count
    /// for every language.
    pub test_files: &'static [NamePattern],
    /// File names of stubs, declarations without bodies that give way to the module they
    /// describe when both are candidates (Python `.pyi`).
    pub stub_files: &'static [NamePattern],
    /// Whether files matching [`ResolutionRules::test_files`] are compiled only into the
    /// test binary, so code outside them can never call what they define (Go: `go help
    /// test`).
    pub test_files_compiled_apart: bool,
    /// Whether a type alias definition declares a named type with its own method set, so
    /// it types receivers like a struct (Go `type T float64`; the Go spec, "Type
    /// definitions").
    pub named_types_have_methods: bool,
    /// Whether a `static` free function of a source file has internal linkage: only its
    /// own file can call it (C11 6.2.2). A `static` function in a header (an extension in
    /// [`ResolutionRules::header_extensions`]) is compiled into every includer, so it
    /// stays visible.
    pub file_local_statics: bool,
    /// The modifier that makes a free function visible to its own file only, in a language
    /// other than C's (Lua `local function f`: a local of the chunk, which another file
    /// never calls by name). `None`: only [`ResolutionRules::file_local_statics`] applies.
    pub file_local_modifier: Option<&'static str>,
    /// Extensions (lowercase, no dot) of header files, for
    /// [`ResolutionRules::file_local_statics`].
    pub header_extensions: &'static [&'static str],
    /// Whether a name sought among a module's definitions is also followed through the
    /// module's glob re-exports (Python `from .a import *`, JS `export * from './a'`).
    /// `false` for Rust: windows-sys nests `pub use` globs so widely that following them
    /// for every path call does not finish.
    pub follow_glob_reexports: bool,
    /// Whether member functions may be defined outside their class (`void
    /// Parser::parse() {..}`, C++): such a member belongs to the class of the namespace
    /// it is written in, and its body sees the class's fields as bare names.
    pub out_of_class_members: bool,
    /// Whether a later definition of a name in a file replaces an earlier one, so among
    /// same-named candidates of one file the last wins (Python and JavaScript/TypeScript:
    /// `@overload` stubs, overload signatures, `if`/`else` twins).
    pub later_definition_wins: bool,
    /// Whether a namespace's members are visible unqualified only to code inside that
    /// namespace or in a file with a `using` directive for it (C# spec 14.5 "Using
    /// directives"; C++ [namespace.udir]). `false`: namespaces never hide a definition.
    pub namespaces_need_using: bool,
    /// Whether a qualifier may be a namespace path naming a type by its qualified name
    /// (`json::Parser::parse`, `Acme.Text.Util.Helper`; C++ and C#).
    pub qualified_type_names: bool,
    /// What `new Foo(..)` resolves to.
    pub new_calls: NewCalls,
    /// Whether a class named as a value (`factory = Widget`, `register(Widget)`,
    /// `cls=Widget`) is a `references` edge to it: classes are objects that code passes
    /// around and calls later (Python, JavaScript). Elsewhere a type's name in an argument
    /// is a type use (Go `new(T)`), and only functions and methods used as values are.
    pub classes_are_values: bool,
    /// Whether a bare `super(..)` call runs the base class's constructor (the class when it
    /// declares none; JavaScript/TypeScript `super(...)` in a constructor).
    pub bare_super_calls_base_constructor: bool,
    /// Whether a bare call inside a class is first a method of that class or of its bases
    /// (Java and C# have no free functions; a C++ member function calls siblings bare).
    pub bare_calls_reach_members: bool,
    /// Which bound local values (parameters, locals) hide definitions of the same name from
    /// a bare call.
    pub local_shadowing: LocalShadowing,
    /// Whether the files of one directory are one package whose top-level names and types
    /// are in scope without an import (Go's package block; Java's package, JLS 6.3):
    /// found there, a name resolves as `local`.
    pub same_directory_package: bool,
    /// Whether an unqualified name is only ever a local, the package's, a builtin or a dot
    /// import's, never another package's: no repo-wide guess for a bare call, and a type
    /// name used as a receiver outside its package is a variable (Go spec, "Declarations
    /// and scope").
    pub bare_names_in_package: bool,
    /// Whether an unqualified function name is only ever the caller's package's or the
    /// global (empty) package's, never another package's: no repo-wide guess among files
    /// that declare another package (PHP, "Name resolution rules": an unqualified function
    /// is looked up in the current namespace, then the global one).
    pub bare_names_in_package_or_global: bool,
    /// The modifier of a declaration whose implementations other source sets give (Kotlin
    /// multiplatform `expect`, with an `actual` per platform): among same-named
    /// candidates, those declared so (or members of a type declared so) are the target,
    /// since the call compiles against the declaration whatever platform runs it.
    pub expect_modifier: Option<&'static str>,
    /// The class method that constructs an instance (Ruby `new`): a receiver
    /// `Cart.new(..)` is a `Cart`, so `Cart.new(2).total` calls `Cart`'s `total`.
    pub constructor_method: Option<&'static str>,
    /// Whether a constant (a type, or a class named in a call) that several definitions
    /// share is the one the lexical nesting of the caller names (Ruby's constant lookup:
    /// `Request` inside `module Sinatra` is `Sinatra::Request`, not `Rack::Request`).
    pub nesting_scopes_constants: bool,
    /// Whether only an imported package can qualify a type name, so an unbound qualifier
    /// is a value and `v.Name` its field or method (Go spec, "Qualified identifiers").
    pub only_packages_qualify: bool,
    /// Whether a path receiver (with `::` or an upper-case letter) that is no repo module,
    /// type or import names a library (`HashMap::new`, `std::mem::take` in Rust).
    pub unknown_paths_external: bool,
    /// Whether a call expression whose callee is a type is a conversion, no code of the
    /// type running: neither a `calls` edge nor an unresolved call (Go `Celsius(x)`; Go
    /// spec, "Conversions").
    pub type_calls_are_conversions: bool,
    /// Whether a method call on a receiver of unknown type may be guessed to be the only
    /// repo method of that name (dynamically typed Python and JavaScript; statically typed
    /// languages decide by the receiver's type, and a guess there is more often wrong).
    pub guess_untyped_methods: bool,
    /// Whether a callable whose parameter count is known (`@params`, no varargs) is
    /// applicable only to a call passing exactly that many arguments, inherited overloads
    /// included: a candidate of another count is never the target, and when none of a
    /// type's own methods of that name fits, its bases' are looked up (Java, JLS 15.12.2.1
    /// "potentially applicable" methods are the members of the type, inherited ones
    /// included; C++ hides a base's overloads behind a derived name, so it keeps this off).
    pub exact_arity: bool,
    /// Whether `this(..)` and `super(..)` written as a statement call a constructor: one of
    /// the class's own, or of its base class (the base class itself when it declares none,
    /// its implicit default constructor), picked by the argument count (Java, JLS 8.8.7.1
    /// "Explicit Constructor Invocations").
    pub explicit_constructor_calls: bool,
    /// Whether a function declared with a receiver type outside that type (Kotlin's
    /// `fun String.encodeUtf8()`, "Extensions" in the Kotlin reference) is a member of the
    /// type even when the type is the library's: a call on a value of that type reaches the
    /// repo's extension of that name, and any other method stays `external`.
    pub extensions_of_library_types: bool,
    /// The type of a string literal receiver (`"abc".encodeUtf8()`), or `None` when the
    /// language types no literal receivers.
    pub string_literal_type: Option<&'static str>,
}

impl ResolutionRules {
    /// No import system, no platform names, `.` paths, glob re-exports followed, `new`
    /// resolving to the class, and every other rule off.
    pub const DEFAULT: ResolutionRules = ResolutionRules {
        imports: ImportSystem::None,
        globals: &[],
        platform_methods: &[],
        predeclared_types: &[],
        primitive_types: &[],
        own_module_objects: &[],
        super_aliases: &[],
        self_aliases: &[],
        variable_sigil: None,
        instance_variable_sigil: None,
        path_separator: ".",
        member_access_separators: &[],
        test_files: &[],
        stub_files: &[],
        test_files_compiled_apart: false,
        named_types_have_methods: false,
        file_local_statics: false,
        file_local_modifier: None,
        header_extensions: &[],
        follow_glob_reexports: true,
        out_of_class_members: false,
        later_definition_wins: false,
        namespaces_need_using: false,
        qualified_type_names: false,
        new_calls: NewCalls::Class,
        classes_are_values: false,
        bare_super_calls_base_constructor: false,
        bare_calls_reach_members: false,
        local_shadowing: LocalShadowing::Never,
        same_directory_package: false,
        bare_names_in_package: false,
        bare_names_in_package_or_global: false,
        nesting_scopes_constants: false,
        constructor_method: None,
        expect_modifier: None,
        only_packages_qualify: false,
        unknown_paths_external: false,
        type_calls_are_conversions: false,
        guess_untyped_methods: false,
        exact_arity: false,
        explicit_constructor_calls: false,
        extensions_of_library_types: false,
        string_literal_type: None,
    };
}

/// How an import statement binds a module: which specifiers name which repo files, and
/// the binding rules that come with that module system. A language picks the system its
/// imports follow; a new language with the same semantics picks the same one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportSystem {
    /// Imports bind nothing (window-only languages).
    None,
    /// Dotted module paths over package directories (Python): `a.b` is `a/b.py` or
    /// `a/b/__init__.py` under a source root, leading dots are relative to the importer's
    /// package; `import a.b` (no alias) binds the top package `a`, a qualifier `a.b.f`
    /// walks submodules, and `from m import n` may name the submodule `m.n`.
    DottedModules,
    /// File specifiers (ES modules and CommonJS): relative paths with extension and
    /// `index` inference, bare specifiers through the nearest `tsconfig.json` /
    /// `jsconfig.json` else a package outside the repo; `default` is the module's default
    /// export, `export * as n` re-exports a module as a name.
    FileSpecifiers,
    /// Classes in dotted packages (Java): `import pkg.Class`, `import pkg.*` (the
    /// package's files), `import static pkg.Class.member`; a package is the files whose
    /// module path is that package. A specifier with a `/` is a file path (PHP `require
    /// 'lib/x.php'`), found as [`ImportSystem::Includes`] finds a header.
    ClassPackages,
    /// Textual inclusion (C, C++; Ruby's `require`, which loads a file whose constants
    /// and methods every later line sees): `#include "x.h"` names the header and its sibling
    /// source files, `using namespace ns;` / `using ns::f;` name a namespace's files or
    /// one of its names. Only includes make import edges, and a bare name is looked up
    /// through every include and `using` together, visible names only, so the order of
    /// includes never decides.
    Includes,
    /// Namespaces (C#): `using Ns;` names the files that declare namespace `Ns`.
    Namespaces,
    /// Import paths of package directories (Go): through the `go.mod` module path that
    /// prefixes it, else the longest directory suffix; an import binds the package's
    /// declared name (`package httpx` in `httputil/`) besides the last path segment.
    ImportPaths,
    /// A crate's module tree from the file layout (Rust): `use` paths and path receivers
    /// start at `crate`, `self`, `super`, a child module or a crate name (a folder holding
    /// `src/`, a `Cargo.toml` package); `pub use m::m` re-exports the module's item named
    /// like it; candidates narrow to the caller's crate.
    CrateModules,
    /// Modules named by their declaration wherever their file is (Elixir `defmodule
    /// Shop.Cart`): an import names a module by its full name (`alias Shop.Cart` binds
    /// `Cart`, `as: C` binds `C`), and a module path receiver (`Shop.Cart.total()`) is the
    /// module of exactly that qualified name, one nested in the caller's modules
    /// (`Inner` inside `Shop.Cart` is `Shop.Cart.Inner`), or, when the repo has none, a
    /// library's.
    DeclaredModules,
}

/// What `new Foo(..)` resolves to ([`ResolutionRules::new_calls`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewCalls {
    /// The class (or whatever `Foo` resolves to).
    Class,
    /// The constructor the class body declares when it declares exactly one, else the
    /// class (javac's answer; Java, C#).
    OnlyDeclaredConstructor,
    /// The class's only constructor wherever it is defined, in the class body or outside
    /// it in another file (C++ `Parser::Parser() {..}`), else the class.
    OnlyConstructor,
}

/// Which local values hide same-named definitions from a bare call
/// ([`ResolutionRules::local_shadowing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalShadowing {
    /// None decide: the resolution tiers do (Rust and JS `let`; Java and C# keep methods
    /// and variables apart).
    Never,
    /// A name bound anywhere in a function is local to all of it (Python).
    WholeFunction,
    /// A name bound on an earlier line of the function (a parameter, a `:=` local) is what
    /// a later call calls: `tableSize := tableSize(n)` still calls the function (Go scopes
    /// a local to the rest of its block, which the facts do not record).
    FromBindingLine,
}
