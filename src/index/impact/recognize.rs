//! Which nodes are tests, which are entry points, and which methods dynamic dispatch can
//! reach: the rules, each language's written as data in its spec
//! ([`ImpactRules`](lang::ImpactRules)) and applied here.
//!
//! The facts do not keep attributes, visibility or decorators, so the rules that need them
//! read the definition's header from the source through a [`LineSource`]: the definition's
//! first line plus the attribute, annotation and comment lines right above it (at most
//! [`HEADER_LINES_ABOVE`]). Without lines only the path and name rules apply.

use super::LineSource;
use crate::index::facts::Kind;
use crate::index::graph::{CodeGraph, Node, Relation, Walk};
use crate::index::lang::{self, Dispatch, FileEntry, NamePattern, PublicApi, TestCode};

/// How many attribute/annotation/comment lines above a definition are read.
pub const HEADER_LINES_ABOVE: usize = 12;

/// Directory names whose files are tests in every language (`tests/` in Rust and Python,
/// `test/` and `src/test/java`, `__tests__/` and `spec/` in JavaScript).
const TEST_DIRS: &[&str] = &["tests", "test", "__tests__", "spec"];

/// `true` when the path alone marks a test file: a directory in `TEST_DIRS`, or a file
/// name that the language of the file (by its extension) lists in its
/// [`ImpactRules::test_files`](lang::ImpactRules) (`test_*.py`, `conftest.py`,
/// `*_test.go`, `*.test.ts`, `*Test.java`, ...).
pub fn is_test_path(path: &str) -> bool {
    test_path(path) != PathTest::No
}

/// What marks a path as a test file, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathTest {
    /// Nothing.
    No,
    /// A folder in `TEST_DIRS` only.
    Folder,
    /// The file name, by its language's [`ImpactRules::test_files`](lang::ImpactRules).
    FileName,
}

fn test_path(path: &str) -> PathTest {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or("");
    if lang::for_path(file)
        .is_some_and(|spec| NamePattern::any(spec.impact.test_files, file, spec.extensions))
    {
        PathTest::FileName
    } else if parts.iter().any(|d| TEST_DIRS.contains(d)) {
        PathTest::Folder
    } else {
        PathTest::No
    }
}

/// `true` when the file at `path` is library code although a test folder or a test name
/// in it could make it look like tests: a file outside test paths imports it (library code
/// depends on it, as a framework's own test client: `flask/testing.py`, `src/pkg/test/`
/// imported by `src/pkg/app.py`), or it lies in a folder named `test` that is itself a
/// package inside a package (both hold the language's
/// [`ImpactRules::package_file`](lang::ImpactRules), Python's `__init__.py`) and defines
/// no test function (`django/test/client.py`). Test file names (`test_*.py`,
/// `*_test.go`, `*.spec.ts`) are never library code; `tests/` and `src/test/java` only
/// when non-test code imports them.
pub fn is_library_file(graph: &CodeGraph, path: &str) -> bool {
    let imported = graph
        .edges_of(path, Walk::Callers, &[Relation::Imports])
        .iter()
        .any(|e| e.source != path && !is_test_path(&e.source));
    imported || package_test_folder(graph, path)
}

/// The second rule of [`is_library_file`]: a file in an importable `test` package with no
/// test function.
fn package_test_folder(graph: &CodeGraph, path: &str) -> bool {
    let Some(spec) = lang::for_path(path) else {
        return false;
    };
    let Some(package_file) = spec.impact.package_file else {
        return false;
    };
    let dirs: Vec<&str> = path.split('/').collect();
    let Some(at) = dirs[..dirs.len() - 1].iter().rposition(|d| *d == "test") else {
        return false;
    };
    if at == 0 || dirs[..at].iter().any(|d| TEST_DIRS.contains(d)) {
        return false;
    }
    let folder = dirs[..=at].join("/");
    let parent = dirs[..at].join("/");
    let packages = [folder, parent]
        .iter()
        .all(|d| graph.node(&format!("{d}/{package_file}")).is_some());
    let TestCode::NamePrefixes { callables, .. } = spec.impact.test_code else {
        return packages;
    };
    packages && !defines_callable(graph, path, callables, 3)
}

/// `true` when a function or method whose name starts with `prefix` is defined in `id`
/// (a file or definition), down to `depth` levels of nesting.
fn defines_callable(graph: &CodeGraph, id: &str, prefix: &str, depth: u32) -> bool {
    depth > 0
        && graph
            .edges_of(id, Walk::Callees, &[Relation::Contains])
            .iter()
            .any(|e| {
                graph.node(&e.target).is_some_and(|n| {
                    (matches!(n.kind, Kind::Function | Kind::Method) && n.name.starts_with(prefix))
                        || defines_callable(graph, &n.id, prefix, depth - 1)
                })
            })
}

/// `true` when `node` is a test file or test code: its file name is a test file name
/// ([`is_test_path`]), or it lies in a test folder and is not [library
/// code](is_library_file), or its language's [`TestCode`] rule marks it (Rust test
/// attributes and `#[cfg(test)]` modules, pytest names outside library files, JUnit
/// annotations, NUnit/xUnit/MSTest attributes, Jest and Mocha blocks; see each language's
/// spec).
pub fn is_test(graph: &CodeGraph, node: &Node, lines: &dyn LineSource) -> bool {
    match test_path(&node.file) {
        PathTest::FileName => return true,
        PathTest::Folder if !is_library_file(graph, &node.file) => return true,
        _ => {}
    }
    match lang::spec_of(&node.language).impact.test_code {
        TestCode::None => false,
        TestCode::AttributePaths {
            names,
            path_tail,
            modules,
            module_mark,
        } => {
            if node.kind == Kind::File {
                return false;
            }
            if header(node, lines)
                .iter()
                .any(|l| test_attribute(l, names, path_tail))
            {
                return true;
            }
            ancestors(graph, node).iter().any(|a| {
                a.kind == Kind::Module
                    && (modules.contains(&&*a.name)
                        || header(a, lines)
                            .iter()
                            .any(|l| l.replace(' ', "").starts_with(module_mark)))
            })
        }
        // pytest collects only from test files, so a test-named definition of library
        // code (`Flask.test_client`) is no test.
        TestCode::NamePrefixes { callables, classes } => {
            !is_library_file(graph, &node.file)
                && match node.kind {
                    Kind::Function | Kind::Method => node.name.starts_with(callables),
                    Kind::Class => node.name.starts_with(classes),
                    _ => false,
                }
        }
        TestCode::Annotations(marks) => header(node, lines).iter().any(|l| {
            let t = l.trim_start();
            marks.iter().any(|a| {
                t.strip_prefix(a)
                    .is_some_and(|rest| rest.is_empty() || !rest.starts_with(char::is_alphanumeric))
            })
        }),
        TestCode::BracketedAttributes(marks) => header(node, lines).iter().any(|l| {
            let t = l.trim_start();
            marks.iter().any(|a| {
                t.strip_prefix(a)
                    .is_some_and(|rest| rest.starts_with([']', '(', ',']))
            })
        }),
        TestCode::BlockCalls(blocks) => graph.unresolved_of(&node.id).iter().any(|u| {
            match u.receiver.as_deref() {
                None => blocks.contains(&&*u.name),
                // `it.each(...)`, `describe.only(...)`
                Some(r) => blocks.contains(&r),
            }
        }),
    }
}

/// Whether `line` is an attribute `#[<path>..]` whose path is one of `names` or ends with
/// `::` and `tail` ([`TestCode::AttributePaths`]).
fn test_attribute(line: &str, names: &[&str], tail: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("#[") else {
        return false;
    };
    let path: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    names.contains(&path.as_str())
        || path
            .strip_suffix(tail)
            .is_some_and(|head| head.ends_with("::"))
}

/// `true` when `node` (not a test; the caller checks) is an entry point, by the rules of
/// its language's spec ([`ImpactRules`](lang::ImpactRules)):
/// * its [`MainRule`](lang::MainRule): a free function named `main` (Go: only in `package main`), a Java
///   method `main`, a C# method `Main`;
/// * its [`FileEntry`]: a file node of a Python script (`if __name__ == "__main__":`) or
///   of JavaScript/TypeScript (its top-level code runs when the file is loaded);
/// * its [`PublicApi`]: Rust items declared `pub` (every enclosing module too; trait
///   methods of a `pub trait`), not in `src/main.rs`, `src/bin/` or `build.rs`; Go
///   exported names (capitalised, receiver type too) outside `package main` and
///   `internal/`; Python module-level names the package's `__init__.py` re-exports (an
///   import line or a quoted name in `__all__`; every name of an `__init__.py`), and their
///   methods without a leading `_` (dunders allowed); Java and C# members declared
///   `public` (or declared in a public interface) whose enclosing types are all `public`;
///   JavaScript/TypeScript definitions declared with `export`, and non-private methods of
///   exported classes. C and C++ have only the `main` rule;
/// * its [`Hooks`](lang::Hooks): a function a framework calls by itself, by its file's name
///   (Sphinx's `setup` in `conf.py`) or registered by a decorator that is a member of an
///   object (`@app.route("/")`, `@bp.before_request`; Python).
pub fn is_entry_point(graph: &CodeGraph, node: &Node, lines: &dyn LineSource) -> bool {
    let rules = &lang::spec_of(&node.language).impact;
    let main = rules.main;
    if node.kind == Kind::Function && main.function == Some(&*node.name) {
        return main
            .package
            .is_none_or(|p| package_clause(node, lines).as_deref() == Some(p));
    }
    if node.kind == Kind::Method && main.method == Some(&*node.name) {
        return true;
    }
    if node.kind == Kind::File {
        return match rules.file_entry {
            FileEntry::Never => false,
            FileEntry::Always => true,
            FileEntry::GuardLine(guards) => lines.lines(&node.file).is_some_and(|ls| {
                ls.iter().any(|l| {
                    let l = l.replace(' ', "");
                    guards.iter().any(|g| l.starts_with(g))
                })
            }),
        };
    }
    if is_hook(graph, node, &rules.hooks, lines) {
        return true;
    }
    match rules.public_api {
        PublicApi::None => false,
        PublicApi::VisibilityPrefix { prefix, binaries } => {
            if NamePattern::any(binaries, &node.file, &[]) {
                return false;
            }
            let chain = ancestors(graph, node);
            let declared_pub =
                |n: &Node| first_line(n, lines).is_some_and(|l| l.starts_with(prefix));
            let in_pub_trait = chain
                .first()
                .is_some_and(|p| p.kind == Kind::Trait && declared_pub(p));
            (declared_pub(node) || in_pub_trait)
                && chain
                    .iter()
                    .filter(|a| a.kind == Kind::Module)
                    .all(|m| declared_pub(m))
        }
        PublicApi::Capitalized {
            internal_folder,
            main_package,
        } => {
            let upper = |s: &str| s.starts_with(|c: char| c.is_uppercase());
            let chain = in_file_chain(node);
            !node.file.split('/').any(|d| d == internal_folder)
                && chain.iter().all(|s| upper(s))
                && package_clause(node, lines).as_deref() != Some(main_package)
        }
        PublicApi::PackageReexports { init_file } => {
            let private =
                |s: &str| s.starts_with('_') && !(s.starts_with("__") && s.ends_with("__"));
            let chain = ancestors(graph, node);
            // the outermost definition must be re-exported by the package
            let top = chain.last().copied().unwrap_or(node);
            !private(&node.name)
                && chain
                    .iter()
                    .all(|a| a.kind == Kind::Class && !private(&a.name))
                && package_reexports(top, init_file, lines)
        }
        PublicApi::Modifier(word) => {
            let public = |n: &Node| header(n, lines).iter().any(|l| has_word(l, word));
            let chain = ancestors(graph, node);
            let in_interface = chain
                .first()
                .is_some_and(|p| p.kind == Kind::Interface && public(p));
            (public(node) || in_interface) && chain.iter().all(|a| public(a))
        }
        PublicApi::Exports {
            exported,
            private_names,
            private_modifiers,
        } => {
            let is_exported = |n: &Node| {
                first_line(n, lines).is_some_and(|l| exported.iter().any(|e| l.starts_with(e)))
            };
            if is_exported(node) {
                return true;
            }
            let private = private_names.iter().any(|p| node.name.starts_with(p))
                || first_line(node, lines)
                    .is_some_and(|l| private_modifiers.iter().any(|m| l.starts_with(m)));
            matches!(node.kind, Kind::Method | Kind::Constructor)
                && !private
                && ancestors(graph, node)
                    .first()
                    .is_some_and(|c| c.kind == Kind::Class && is_exported(c))
        }
    }
}

/// A reason when `node` is a method that dynamic dispatch can reach, so calls the graph
/// does not show may reach it: a trait or interface method; a method of a type that
/// inherits, is inherited from or implements (edges in the graph), or of a Rust
/// `impl Trait for Type` block; and by its language's [`Dispatch`], any Go method
/// (interfaces are satisfied implicitly) or any Python or JavaScript/TypeScript method (a
/// receiver of unknown type may be any object). `None` for free functions, constructors
/// and Rust inherent methods.
pub fn dynamic_dispatch(graph: &CodeGraph, node: &Node, lines: &dyn LineSource) -> Option<String> {
    if node.kind != Kind::Method {
        return None;
    }
    let parent = ancestors(graph, node).into_iter().next();
    if let Some(p) = parent {
        if matches!(p.kind, Kind::Trait | Kind::Interface) {
            return Some(format!(
                "{} is declared in {} {}: calls through it may dispatch to any \
                 implementation, and calls to implementations may not show here",
                node.id,
                p.kind.as_str(),
                p.qualified_name
            ));
        }
        let hierarchy = !graph
            .edges_of(
                &p.id,
                Walk::Both,
                &[Relation::Inherits, Relation::Implements],
            )
            .is_empty();
        let trait_impl =
            p.kind == Kind::Impl && first_line(p, lines).is_some_and(|l| l.contains(" for "));
        if hierarchy || trait_impl {
            return Some(format!(
                "{} is a method of {}, which takes part in inheritance or implements a \
                 trait/interface: calls on a base type or trait object may dispatch to it",
                node.id, p.qualified_name
            ));
        }
    }
    match lang::spec_of(&node.language).impact.dispatch {
        Dispatch::ImplicitInterfaces => Some(format!(
            "{} is a Go method: interfaces are satisfied implicitly, so a call through any \
             interface with this method may reach it",
            node.id
        )),
        Dispatch::DuckTyping => Some(format!(
            "{} is a {} method: a call on a receiver of unknown type may reach it \
             (duck typing)",
            node.id, node.language
        )),
        Dispatch::Declared => None,
    }
}

/// `true` when `node` is a method of a trait implementation by its language's
/// [`ImpactRules::trait_impl_word`](lang::ImpactRules): its container is an `impl` block
/// whose first line has that word (`impl Display for Size`).
pub fn implements_trait(graph: &CodeGraph, node: &Node, lines: &dyn LineSource) -> bool {
    let Some(word) = lang::spec_of(&node.language).impact.trait_impl_word else {
        return false;
    };
    node.kind == Kind::Method
        && graph
            .container(&node.id)
            .filter(|c| c.kind == Kind::Impl)
            .and_then(|c| first_line(c, lines))
            .is_some_and(|l| has_word(&l, word))
}

/// Whether `node` is a framework hook by `hooks` (see [`is_entry_point`]).
fn is_hook(graph: &CodeGraph, node: &Node, hooks: &lang::Hooks, lines: &dyn LineSource) -> bool {
    let file_name = node.file.rsplit('/').next().unwrap_or(&node.file);
    if node.kind == Kind::Function
        && hooks
            .by_file
            .iter()
            .any(|(f, names)| f.matches(file_name, &[]) && names.contains(&&*node.name))
        && ancestors(graph, node).is_empty()
    {
        return true;
    }
    let Some(mark) = hooks.member_decorator else {
        return false;
    };
    // The header's first line is the definition's own; the decorators are above it.
    header(node, lines)
        .iter()
        .skip(1)
        .any(|l| registering_decorator(l, mark, hooks.wrappers))
}

/// Whether `line` is `<mark><a>.<b>[...]` (two or more dotted parts, then anything) and
/// its last part is not one of `wrappers` ([`lang::Hooks::member_decorator`]).
fn registering_decorator(line: &str, mark: &str, wrappers: &[&str]) -> bool {
    let Some(rest) = line.strip_prefix(mark) else {
        return false;
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    let parts: Vec<&str> = name.split('.').collect();
    parts.len() >= 2
        && parts.iter().all(|p| !p.is_empty())
        && parts.last().is_some_and(|last| !wrappers.contains(last))
}

/// Enclosing definitions, innermost first, through `contains` edges (file nodes excluded).
pub fn ancestors<'g>(graph: &'g CodeGraph, node: &Node) -> Vec<&'g Node> {
    let mut out: Vec<&'g Node> = Vec::new();
    let mut cur = graph.container(&node.id);
    while out.len() < 64 {
        match cur.filter(|p| p.kind != Kind::File) {
            Some(p) => {
                out.push(p);
                cur = graph.container(&p.id);
            }
            None => break,
        }
    }
    out
}

/// `true` when a top-level definition is its package's public API
/// ([`PublicApi::PackageReexports`]): defined in the package's `init_file` (Python's
/// `__init__.py`), or named there in an import line or as a quoted string (`__all__`).
fn package_reexports(top: &Node, init_file: &str, lines: &dyn LineSource) -> bool {
    let (dir, file) = top.file.rsplit_once('/').unwrap_or(("", &*top.file));
    if file == init_file {
        return true;
    }
    let init = if dir.is_empty() {
        init_file.to_string()
    } else {
        format!("{dir}/{init_file}")
    };
    let Some(ls) = lines.lines(&init) else {
        return false;
    };
    let name = &*top.name;
    let (dq, sq) = (format!("\"{name}\""), format!("'{name}'"));
    let found = ls
        .iter()
        .any(|l| (l.contains("import") && has_word(l, name)) || l.contains(&dq) || l.contains(&sq));
    found
}

/// `true` when `w` occurs in `line` with no identifier character on either side.
fn has_word(line: &str, w: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(w).any(|(i, _)| {
        !line[..i].chars().next_back().is_some_and(ident)
            && !line[i + w.len()..].chars().next().is_some_and(ident)
    })
}

/// The in-file name chain of a node (`["Calculator", "add"]`), `#n` suffix dropped.
fn in_file_chain(node: &Node) -> Vec<&str> {
    let Some(rest) = node
        .id
        .strip_prefix(&*node.file)
        .and_then(|r| r.strip_prefix("::"))
    else {
        return Vec::new();
    };
    let rest = match rest.rsplit_once('#') {
        Some((head, n)) if n.chars().all(|c| c.is_ascii_digit()) => head,
        _ => rest,
    };
    let sep = lang::by_name(&node.language).map_or(".", |s| s.separator);
    rest.split(sep).collect()
}

/// The definition's first line, trimmed; `None` when the file cannot be read.
fn first_line(node: &Node, lines: &dyn LineSource) -> Option<String> {
    let ls = lines.lines(&node.file)?;
    ls.get((node.start_line as usize).checked_sub(1)?)
        .map(|l| l.trim().to_string())
}

/// The definition's first line and the attribute, annotation and comment lines right
/// above it, nearest first.
fn header(node: &Node, lines: &dyn LineSource) -> Vec<String> {
    let Some(ls) = lines.lines(&node.file) else {
        return Vec::new();
    };
    let start = (node.start_line as usize).saturating_sub(1);
    let mut out = Vec::new();
    if let Some(l) = ls.get(start) {
        out.push(l.trim().to_string());
    }
    for i in (start.saturating_sub(HEADER_LINES_ABOVE)..start).rev() {
        let t = ls.get(i).unwrap_or("").trim();
        let decoration = ["#[", "#![", "@", "//", "/*", "*", ")]", "]", "["]
            .iter()
            .any(|p| t.starts_with(p));
        if !decoration {
            break;
        }
        out.push(t.to_string());
    }
    out
}

/// The package clause of the node's file: the first line that starts with `package `
/// (Go).
fn package_clause(node: &Node, lines: &dyn LineSource) -> Option<String> {
    let ls = lines.lines(&node.file)?;
    let package = ls
        .iter()
        .find_map(|l| l.trim().strip_prefix("package "))
        .map(|p| p.trim().to_string());
    package
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_decorators_register_and_wrappers_do_not() {
        let w = &["wraps", "overload", "setter"][..];
        for l in [
            "@app.route(\"/\")",
            "@bp.before_app_request",
            "@app.cli.command(\"init-db\")",
        ] {
            assert!(registering_decorator(l, "@", w), "{l}");
        }
        for l in [
            "@functools.wraps(f)",
            "@t.overload",
            "@name.setter",
            "@staticmethod",
            "@setupmethod",
            "def f():",
            "@.x",
        ] {
            assert!(!registering_decorator(l, "@", w), "{l}");
        }
    }

    #[test]
    fn test_paths_per_language() {
        for p in [
            "tests/cli.rs",
            "pkg/tests/x.py",
            "test_core.py",
            "pkg/core_test.py",
            "conftest.py",
            "store/file_test.go",
            "web/a.test.ts",
            "web/a.spec.jsx",
            "src/test/java/org/x/MailboxTest.java",
            "src/__tests__/a.js",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in [
            "src/testing.rs",
            "pkg/contest.py",
            "latest.go",
            "web/test.ts",
            "web/a.test.md",
            "src/attest/x.py",
        ] {
            assert!(!is_test_path(p), "{p}");
        }
    }

    #[test]
    fn rust_test_attributes() {
        let lang::TestCode::AttributePaths {
            names, path_tail, ..
        } = lang::spec_of("rust").impact.test_code
        else {
            panic!("Rust marks tests by attributes");
        };
        let rust_test_attr = |l: &str| test_attribute(l, names, path_tail);
        for l in [
            "#[test]",
            "#[tokio::test(flavor = \"x\")]",
            "#[rstest]",
            "  #[test_case(1)]",
        ] {
            assert!(rust_test_attr(l), "{l}");
        }
        for l in [
            "#[testing]",
            "#[derive(Debug)]",
            "#[cfg(test)]",
            "// #[test]",
        ] {
            assert!(!rust_test_attr(l), "{l}");
        }
    }
}
