//! Which nodes are tests, which are entry points, and which methods dynamic dispatch can
//! reach: the per-language rules of issue 7.
//!
//! The facts do not keep attributes, visibility or decorators, so the rules that need them
//! read the definition's header from the source through a [`LineSource`]: the definition's
//! first line plus the attribute, annotation and comment lines right above it (at most
//! [`HEADER_LINES_ABOVE`]). Without lines only the path and name rules apply.

use super::LineSource;
use crate::index::facts::Kind;
use crate::index::graph::{CodeGraph, Node, Relation, Walk};
use crate::index::lang;

/// How many attribute/annotation/comment lines above a definition are read.
pub const HEADER_LINES_ABOVE: usize = 12;

/// Directory names whose files are tests (`tests/` in Rust and Python, `test/` and
/// `src/test/java`, `__tests__/` and `spec/` in JavaScript).
const TEST_DIRS: &[&str] = &["tests", "test", "__tests__", "spec"];

/// Extensions of the JavaScript family, for `*.test.*` and `*.spec.*`.
const JS_EXTS: &[&str] = &["js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"];

/// `true` when the path alone marks a test file: a directory in `TEST_DIRS`, or a file
/// name `test_*.py`, `*_test.py`, `conftest.py` (pytest's defaults), `*_test.go` (go test),
/// `*.test.<js|ts...>`, `*.spec.<js|ts...>` (Jest, Vitest, Mocha), `*Test.java`,
/// `*Tests.java` (Maven Surefire's defaults), `*Test.cs`, `*Tests.cs`.
pub fn is_test_path(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or("");
    if parts.iter().any(|d| TEST_DIRS.contains(d)) {
        return true;
    }
    if (file.starts_with("test_") && file.ends_with(".py"))
        || file.ends_with("_test.py")
        || file == "conftest.py"
        || file.ends_with("_test.go")
        || file.ends_with("Test.java")
        || file.ends_with("Tests.java")
        || file.ends_with("Test.cs")
        || file.ends_with("Tests.cs")
    {
        return true;
    }
    // `name.test.ts`: a stem, the marker, the extension (`test.ts` alone is not one)
    let dots: Vec<&str> = file.split('.').collect();
    dots.len() >= 3
        && !dots[0].is_empty()
        && matches!(dots[dots.len() - 2], "test" | "spec")
        && JS_EXTS.contains(&dots[dots.len() - 1])
}

/// `true` when `node` is a test file or test code:
/// * its path passes [`is_test_path`];
/// * Rust: an attribute `#[test]`, `#[<path>::test]` (tokio, async-std), `#[rstest]`,
///   `#[test_case]`, `#[bench]`, `#[quickcheck]`, `#[proptest]` above it, or an enclosing
///   `mod tests`/`mod test` or `#[cfg(test)]` module;
/// * Python: a function or method named `test*` (pytest's default `python_functions`), or
///   a class named `Test*` (its `python_classes`);
/// * Java: `@Test`, `@ParameterizedTest`, `@RepeatedTest`, `@TestFactory`,
///   `@TestTemplate` above it (JUnit 4 and 5);
/// * C#: `[Test]`, `[TestCase]` (NUnit), `[Fact]`, `[Theory]` (xUnit), `[TestMethod]`
///   (MSTest) above it;
/// * JavaScript/TypeScript: it calls `describe`, `it`, `test` or `suite` (Jest, Mocha,
///   Vitest blocks; top-level blocks belong to the file node).
pub fn is_test(graph: &CodeGraph, node: &Node, lines: &dyn LineSource) -> bool {
    if is_test_path(&node.file) {
        return true;
    }
    match &*node.language {
        "rust" => {
            if node.kind == Kind::File {
                return false;
            }
            if header(node, lines).iter().any(|l| rust_test_attr(l)) {
                return true;
            }
            ancestors(graph, node).iter().any(|a| {
                a.kind == Kind::Module
                    && (matches!(&*a.name, "tests" | "test")
                        || header(a, lines)
                            .iter()
                            .any(|l| l.replace(' ', "").starts_with("#[cfg(test)]")))
            })
        }
        "python" => match node.kind {
            Kind::Function | Kind::Method => node.name.starts_with("test"),
            Kind::Class => node.name.starts_with("Test"),
            _ => false,
        },
        "java" => header(node, lines).iter().any(|l| {
            let t = l.trim_start();
            [
                "@Test",
                "@ParameterizedTest",
                "@RepeatedTest",
                "@TestFactory",
                "@TestTemplate",
            ]
            .iter()
            .any(|a| {
                t.strip_prefix(a)
                    .is_some_and(|rest| rest.is_empty() || !rest.starts_with(char::is_alphanumeric))
            })
        }),
        "csharp" => header(node, lines).iter().any(|l| {
            let t = l.trim_start();
            ["[Test", "[Fact", "[Theory", "[TestMethod", "[TestCase"]
                .iter()
                .any(|a| {
                    t.strip_prefix(a)
                        .is_some_and(|rest| rest.starts_with([']', '(', ',']))
                })
        }),
        "javascript" | "typescript" | "tsx" => {
            const BLOCKS: &[&str] = &["describe", "it", "test", "suite"];
            graph.unresolved_of(&node.id).iter().any(|u| {
                match u.receiver.as_deref() {
                    None => BLOCKS.contains(&&*u.name),
                    // `it.each(...)`, `describe.only(...)`
                    Some(r) => BLOCKS.contains(&r),
                }
            })
        }
        _ => false,
    }
}

fn rust_test_attr(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("#[") else {
        return false;
    };
    let path: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    path == "test"
        || path.ends_with("::test")
        || matches!(
            path.as_str(),
            "rstest" | "test_case" | "bench" | "quickcheck" | "proptest"
        )
}

/// `true` when `node` (not a test; the caller checks) is an entry point:
/// * a function named `main` (Go: only in `package main`), a Java method `main`, a C#
///   method `Main`;
/// * a file node of a Python script (`if __name__ == "__main__":`) or of
///   JavaScript/TypeScript (its top-level code runs when the file is loaded);
/// * public API: Rust items declared `pub` (every enclosing module too; trait methods of
///   a `pub trait`), not in `src/main.rs`, `src/bin/` or `build.rs`; Go exported names
///   (capitalised, receiver type too) outside `package main` and `internal/`; Python
///   module-level names the package's `__init__.py` re-exports (an import line or a
///   quoted name in `__all__`; every name of an `__init__.py`), and their methods without
///   a leading `_` (dunders allowed); Java and C# members declared `public` (or declared
///   in a public interface) whose enclosing types are all `public`; JavaScript/TypeScript
///   definitions declared with `export`, and non-private methods of exported classes.
///   C and C++ have only the `main` rule.
pub fn is_entry_point(graph: &CodeGraph, node: &Node, lines: &dyn LineSource) -> bool {
    let lang = &*node.language;
    if node.kind == Kind::Function && &*node.name == "main" {
        return lang != "go" || go_package(node, lines).as_deref() == Some("main");
    }
    if node.kind == Kind::Method
        && ((lang == "java" && &*node.name == "main")
            || (lang == "csharp" && &*node.name == "Main"))
    {
        return true;
    }
    if node.kind == Kind::File {
        return match lang {
            "python" => lines.lines(&node.file).is_some_and(|ls| {
                ls.iter().any(|l| {
                    let l = l.replace(' ', "");
                    l.starts_with("if__name__==\"__main__\"")
                        || l.starts_with("if__name__=='__main__'")
                })
            }),
            "javascript" | "typescript" | "tsx" => true,
            _ => false,
        };
    }
    match lang {
        "rust" => {
            let f = &*node.file;
            if f == "build.rs" || f.ends_with("src/main.rs") || f.contains("src/bin/") {
                return false;
            }
            let chain = ancestors(graph, node);
            let declared_pub =
                |n: &Node| first_line(n, lines).is_some_and(|l| l.starts_with("pub "));
            let in_pub_trait = chain
                .first()
                .is_some_and(|p| p.kind == Kind::Trait && declared_pub(p));
            (declared_pub(node) || in_pub_trait)
                && chain
                    .iter()
                    .filter(|a| a.kind == Kind::Module)
                    .all(|m| declared_pub(m))
        }
        "go" => {
            let upper = |s: &str| s.starts_with(|c: char| c.is_uppercase());
            let chain = in_file_chain(node);
            !node.file.split('/').any(|d| d == "internal")
                && chain.iter().all(|s| upper(s))
                && go_package(node, lines).as_deref() != Some("main")
        }
        "python" => {
            let private =
                |s: &str| s.starts_with('_') && !(s.starts_with("__") && s.ends_with("__"));
            let chain = ancestors(graph, node);
            // the outermost definition must be re-exported by the package
            let top = chain.last().copied().unwrap_or(node);
            !private(&node.name)
                && chain
                    .iter()
                    .all(|a| a.kind == Kind::Class && !private(&a.name))
                && python_reexported(top, lines)
        }
        "java" | "csharp" => {
            let public = |n: &Node| header(n, lines).iter().any(|l| has_word(l, "public"));
            let chain = ancestors(graph, node);
            let in_interface = chain
                .first()
                .is_some_and(|p| p.kind == Kind::Interface && public(p));
            (public(node) || in_interface) && chain.iter().all(|a| public(a))
        }
        "javascript" | "typescript" | "tsx" => {
            let exported = |n: &Node| {
                first_line(n, lines)
                    .is_some_and(|l| l.starts_with("export ") || l.starts_with("module.exports"))
            };
            if exported(node) {
                return true;
            }
            let private = node.name.starts_with('#')
                || node.name.starts_with('_')
                || first_line(node, lines)
                    .is_some_and(|l| l.starts_with("private ") || l.starts_with("protected "));
            matches!(node.kind, Kind::Method | Kind::Constructor)
                && !private
                && ancestors(graph, node)
                    .first()
                    .is_some_and(|c| c.kind == Kind::Class && exported(c))
        }
        _ => false,
    }
}

/// A reason when `node` is a method that dynamic dispatch can reach, so calls the graph
/// does not show may reach it: a trait or interface method; a method of a type that
/// inherits, is inherited from or implements (edges in the graph), or of a Rust
/// `impl Trait for Type` block; any Go method (interfaces are satisfied implicitly); any
/// Python or JavaScript/TypeScript method (a receiver of unknown type may be any object).
/// `None` for free functions, constructors and Rust inherent methods.
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
    match &*node.language {
        "go" => Some(format!(
            "{} is a Go method: interfaces are satisfied implicitly, so a call through any \
             interface with this method may reach it",
            node.id
        )),
        "python" | "javascript" | "typescript" | "tsx" => Some(format!(
            "{} is a {} method: a call on a receiver of unknown type may reach it \
             (duck typing)",
            node.id, node.language
        )),
        _ => None,
    }
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

/// `true` when a top-level Python definition is public API: defined in a package's
/// `__init__.py`, or named there in an import line or as a quoted string (`__all__`).
fn python_reexported(top: &Node, lines: &dyn LineSource) -> bool {
    let (dir, file) = top.file.rsplit_once('/').unwrap_or(("", &*top.file));
    if file == "__init__.py" {
        return true;
    }
    let init = if dir.is_empty() {
        "__init__.py".to_string()
    } else {
        format!("{dir}/__init__.py")
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

/// The Go package clause of the node's file.
fn go_package(node: &Node, lines: &dyn LineSource) -> Option<String> {
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
