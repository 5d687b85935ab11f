//! [`ImpactRules`]: which of a language's definitions are tests, which are entry points
//! and which methods dynamic dispatch can reach, as data that
//! `impact::recognize` reads from the spec of a node's language. Each rule that needs more
//! than a name reads the definition's header lines (its first line and the attribute,
//! annotation and comment lines above it).

use super::names::NamePattern;

/// How impact analysis recognises a language's tests, entry points and dispatch.
#[derive(Debug, Clone, Copy)]
pub struct ImpactRules {
    /// File names (the last path segment) that make a whole file test code, besides the
    /// test folders every language shares (`tests/`, `test/`, `__tests__/`, `spec/`).
    pub test_files: &'static [NamePattern],
    /// How test code inside other files is recognised.
    pub test_code: TestCode,
    /// The program's entry function or method.
    pub main: MainRule,
    /// When a file node is itself an entry point (its top-level code runs).
    pub file_entry: FileEntry,
    /// Which definitions are public API, reachable from outside the repository.
    pub public_api: PublicApi,
    /// Which methods a call the graph does not show may reach.
    pub dispatch: Dispatch,
    /// The file that makes a folder an importable package (Python's `__init__.py`); a
    /// `test` folder that is such a package inside another one, with no test function, is
    /// library code (a framework's own test client), not tests.
    pub package_file: Option<&'static str>,
    /// Names of definitions the runtime calls by itself (Python's `__dunder__` methods),
    /// never dead code for want of a caller in the graph.
    pub implicit_names: &'static [NamePattern],
    /// Definitions a framework calls by itself, found by its conventions: entry points.
    pub hooks: Hooks,
    /// The word that makes an `impl` block a trait implementation when its first line has
    /// it (`for`: `impl Display for Size`; Rust). Its methods are the trait's: code calls
    /// them through the trait (a library's trait, `Drop`, `fmt::Display`, or a call the
    /// graph files under the trait's own method), so dead code never lists them.
    pub trait_impl_word: Option<&'static str>,
}

impl ImpactRules {
    /// No test rules, a free function `main` as the only entry point, no public API and
    /// dispatch only through declared hierarchies.
    pub const DEFAULT: ImpactRules = ImpactRules {
        test_files: &[],
        test_code: TestCode::None,
        main: MainRule::DEFAULT,
        file_entry: FileEntry::Never,
        public_api: PublicApi::None,
        dispatch: Dispatch::Declared,
        package_file: None,
        implicit_names: &[],
        hooks: Hooks::NONE,
        trait_impl_word: None,
    };
}

/// Definitions a framework or tool calls by itself ([`ImpactRules::hooks`]): no caller in
/// the repository, yet in use.
#[derive(Debug, Clone, Copy)]
pub struct Hooks {
    /// Module-level functions a tool looks up by name in a file of a given name (the last
    /// path segment): `(file, function names)`. Sphinx calls `setup(app)` of a
    /// documentation project's `conf.py` (Sphinx docs, "Configuration": a `setup` function
    /// there makes the project its own extension).
    pub by_file: &'static [(NamePattern, &'static [&'static str])],
    /// Decorators that register a definition with an object that calls it later
    /// (`@app.route("/")`, `@bp.before_app_request`, `@celery.task`, `@click.command()`):
    /// a header line that starts with this mark and a dotted name of two or more parts,
    /// the last of which is not one of [`Hooks::wrappers`]. `None`: no such rule.
    pub member_decorator: Option<&'static str>,
    /// Last parts of dotted decorators that wrap or describe the definition rather than
    /// register it (`@functools.wraps(f)`, `@functools.cache`, `@typing.overload`,
    /// `@contextlib.contextmanager`, `@x.setter`): the definition is used only if called.
    pub wrappers: &'static [&'static str],
}

impl Hooks {
    /// No hooks.
    pub const NONE: Hooks = Hooks {
        by_file: &[],
        member_decorator: None,
        wrappers: &[],
    };
}

/// How test code inside a file is recognised ([`ImpactRules::test_code`]).
#[derive(Debug, Clone, Copy)]
pub enum TestCode {
    /// Only by its file's path.
    None,
    /// Attributes with a path (Rust): a header line `#[<path>..]` whose path is one of
    /// `names` or ends with `::` and `path_tail` (`#[test]`, `#[tokio::test]`,
    /// `#[rstest]`), or an enclosing module named one of `modules` or with a header line
    /// that, spaces removed, starts with `module_mark` (`#[cfg(test)]`). File nodes are
    /// never test code by this rule.
    AttributePaths {
        /// Attribute paths that mark a test.
        names: &'static [&'static str],
        /// The last path segment that marks a test whatever the crate before it.
        path_tail: &'static str,
        /// Names of modules whose contents are tests.
        modules: &'static [&'static str],
        /// The attribute (spaces removed) that makes a module's contents tests.
        module_mark: &'static str,
    },
    /// Name prefixes (pytest's default `python_functions` and `python_classes`): a
    /// function or method whose name starts with `callables`, a class whose name starts
    /// with `classes`.
    NamePrefixes {
        /// Prefix of test functions and methods (`test`).
        callables: &'static str,
        /// Prefix of test classes (`Test`).
        classes: &'static str,
    },
    /// Annotations (JUnit 4 and 5): a header line that starts with one of these, followed
    /// by the end of the line or a character that is not alphanumeric (`@Test`,
    /// `@ParameterizedTest(..)`, not `@Testable`).
    Annotations(&'static [&'static str]),
    /// Bracketed attributes (NUnit, xUnit, MSTest): a header line that starts with one of
    /// these, followed by `]`, `(` or `,` (`[Test]`, `[TestCase(1)]`, `[Fact, Trait(..)]`).
    BracketedAttributes(&'static [&'static str]),
    /// Test blocks (Jest, Mocha, Vitest): a definition that calls one of these bare or as
    /// the receiver of the call (`describe(..)`, `it.each(..)`); top-level blocks belong
    /// to the file node.
    BlockCalls(&'static [&'static str]),
}

/// The entry function or method of a program ([`ImpactRules::main`]).
#[derive(Debug, Clone, Copy)]
pub struct MainRule {
    /// The name of a free function that is an entry point (`main`).
    pub function: Option<&'static str>,
    /// When set, that function is an entry point only in a file whose package clause
    /// (`package <name>` line) names this package (Go: `package main`).
    pub package: Option<&'static str>,
    /// The name of a method that is an entry point (Java `main`, C# `Main`).
    pub method: Option<&'static str>,
}

impl MainRule {
    /// A free function named `main`, in any package; no entry method.
    pub const DEFAULT: MainRule = MainRule {
        function: Some("main"),
        package: None,
        method: None,
    };
}

/// When a file node is an entry point ([`ImpactRules::file_entry`]).
#[derive(Debug, Clone, Copy)]
pub enum FileEntry {
    /// Never.
    Never,
    /// Always: its top-level code runs when the file is loaded (JavaScript/TypeScript).
    Always,
    /// When one of its lines, spaces removed, starts with one of these (a Python script's
    /// `if __name__ == "__main__":`).
    GuardLine(&'static [&'static str]),
}

/// Which definitions are public API ([`ImpactRules::public_api`]).
#[derive(Debug, Clone, Copy)]
pub enum PublicApi {
    /// None: only the entry-point rules apply (C, C++).
    None,
    /// Items declared public by a visibility prefix (Rust `pub `): the first line starts
    /// with `prefix` (or the item is a method of a trait declared so), every enclosing
    /// module is declared so too, and the file is not in `binaries` (a path pattern: a
    /// binary target's code is no library's API).
    VisibilityPrefix {
        /// The prefix that declares an item public (`pub `).
        prefix: &'static str,
        /// Paths of files that belong to binaries, not the library.
        binaries: &'static [NamePattern],
    },
    /// Exported identifiers (Go): every name of the in-file chain (the receiver type too)
    /// starts with an upper-case letter, the file is not below a folder named
    /// `internal_folder`, and its package is not `main_package`.
    Capitalized {
        /// The folder name whose packages only their parent tree may import (`internal`).
        internal_folder: &'static str,
        /// The package of programs, which nothing imports (`main`).
        main_package: &'static str,
    },
    /// Package re-exports (Python): a module-level name that the package's `init_file`
    /// (in the same folder) names in an import line or as a quoted string (`__all__`), or
    /// any name of the `init_file` itself; and their methods. A name starting with `_` is
    /// private (dunders, `__x__`, excepted), and so is everything in a private class.
    PackageReexports {
        /// The file that makes a folder a package and lists its API (`__init__.py`).
        init_file: &'static str,
    },
    /// A modifier word (Java, C#): the header says `modifier` (or the member is declared
    /// in an interface that is), and every enclosing type's header says it too.
    Modifier(&'static str),
    /// Export statements (JavaScript/TypeScript): the first line starts with one of
    /// `exported`; and methods and constructors of an exported class, except those named
    /// with one of `private_names` or declared with one of `private_modifiers`.
    Exports {
        /// First-line prefixes that export a definition (`export `, `module.exports`).
        exported: &'static [&'static str],
        /// Name prefixes of private members (`#`, `_`).
        private_names: &'static [&'static str],
        /// First-line prefixes of private members (`private `, `protected `).
        private_modifiers: &'static [&'static str],
    },
}

/// Which methods a call the graph does not show may reach ([`ImpactRules::dispatch`]),
/// besides the methods of traits and interfaces and of types in an inheritance or
/// implementation hierarchy, which every language has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch {
    /// Only those.
    Declared,
    /// Any method: interfaces are satisfied implicitly, so a call through any interface
    /// with the method may reach it (Go).
    ImplicitInterfaces,
    /// Any method: a call on a receiver of unknown type may reach it (duck typing: Python,
    /// JavaScript/TypeScript).
    DuckTyping,
}
