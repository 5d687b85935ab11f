//! Scala: the declared package is the module path, imports of classes, objects and whole
//! packages bound like Java's (`{A, B => C}` selectors, `_` and `*` globs), objects as types
//! whose members `Obj.f()` names, ScalaTest blocks and `main`.

use tree_sitter::Node;

use super::{
    source_root_package, ExtractionRules, ImpactRules, ImportSystem, LanguageSpec, LocalShadowing,
    MainRule, NamePattern, ResolutionRules, TestCode,
};
use crate::index::facts::Import;

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "scala",
    extensions: &["scala", "sc"],
    interpreters: &["scala"],
    grammar: Some(|| tree_sitter_scala::LANGUAGE.into()),
    tags: include_str!("../../../queries/scala/tags.scm"),
    highlights: &[tree_sitter_scala::HIGHLIGHTS_QUERY],
    comment_kinds: &["comment", "block_comment"],
    doc_prefixes: &["/**"],
    // `def this(..)`: an auxiliary constructor.
    constructor_names: &["this"],
    module_path,
    expand_import: Some(expand_import),
    extraction: ExtractionRules {
        declared_package_separator: Some("."),
        ..ExtractionRules::DEFAULT
    },
    resolution: ResolutionRules {
        imports: ImportSystem::ClassPackages,
        // A bare call in a class, trait or object is a member of it or of its supertypes
        // first (SLS 2, "Identifiers, Names and Scopes": members are in scope in the
        // template body).
        bare_calls_reach_members: true,
        // The files of a package see each other's names; sbt's folders follow packages.
        same_directory_package: true,
        // A parameter or local of a function type (`f: Int => Int`) is what a later
        // `f(x)` calls.
        local_shadowing: LocalShadowing::FromBindingLine,
        // `scala.Predef` and the `scala` package, imported into every file.
        globals: &[
            "println",
            "print",
            "printf",
            "require",
            "assert",
            "assume",
            "identity",
            "implicitly",
            "locally",
            "classOf",
            "summon",
            "List",
            "Seq",
            "Vector",
            "Map",
            "Set",
            "Some",
            "Option",
            "Left",
            "Right",
            "Array",
            "Nil",
            "None",
            "StringBuilder",
            "BigInt",
            "BigDecimal",
            "Iterator",
            "Range",
            "Try",
            "Success",
            "Failure",
            "Future",
            "IllegalArgumentException",
            "IllegalStateException",
            "UnsupportedOperationException",
            "RuntimeException",
            "Exception",
        ],
        predeclared_types: &[
            "String", "Int", "Long", "Double", "Float", "Boolean", "Char", "Byte", "Short", "Unit",
            "Any", "AnyRef", "List", "Seq", "Vector", "Map", "Set", "Option", "Array",
        ],
        test_files: &[
            NamePattern::Suffix("Test.scala"),
            NamePattern::Suffix("Tests.scala"),
            NamePattern::Suffix("Spec.scala"),
            NamePattern::Suffix("Suite.scala"),
        ],
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: &[
            NamePattern::Suffix("Test.scala"),
            NamePattern::Suffix("Tests.scala"),
            NamePattern::Suffix("Spec.scala"),
            NamePattern::Suffix("Suite.scala"),
        ],
        // ScalaTest's styles register tests by calls in the class body: FunSuite `test`,
        // FunSpec `describe`/`it`, FlatSpec and WordSpec `should`/`in`, and MUnit `test`.
        test_code: TestCode::BlockCalls(&["test", "describe", "it", "property"]),
        // `def main(args: Array[String])` of an object.
        main: MainRule {
            method: Some("main"),
            ..MainRule::DEFAULT
        },
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// The package of a file that declares none: the folders after the last `scala/` or
/// `java/` folder below `src` (sbt's `src/main/scala`), else the last `src/`, else the
/// root. A declared `package` replaces it (`declared_package_separator`).
fn module_path(path: &str) -> Vec<String> {
    source_root_package(path, &["scala", "java"])
}

/// An `import` clause: `import a.b.C` binds `C` of package `a.b`, `import a.b.{C, D => E}`
/// (or Scala 3's `D as E`) `C` and `D` as `E`, `import a.b._` and `a.b.*` every name of
/// `a.b`. A selector renamed to `_` hides a name and binds nothing.
fn expand_import(stmt: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let text = |n: Node<'_>| n.utf8_text(src).ok().map(str::to_string);
    let mut path: Vec<String> = Vec::new();
    let mut names: Vec<(String, Option<String>)> = Vec::new();
    let mut cur = stmt.walk();
    for child in stmt.children(&mut cur) {
        match child.kind() {
            "identifier" | "operator_identifier" => path.extend(text(child)),
            "namespace_wildcard" => names.push(("*".to_string(), None)),
            "as_renamed_identifier" | "arrow_renamed_identifier" => {
                names.extend(renamed(child, src))
            }
            "namespace_selectors" => {
                let mut c2 = child.walk();
                for sel in child.named_children(&mut c2) {
                    match sel.kind() {
                        "identifier" | "operator_identifier" => {
                            names.extend(text(sel).map(|n| (n, None)))
                        }
                        "namespace_wildcard" => names.push(("*".to_string(), None)),
                        "as_renamed_identifier" | "arrow_renamed_identifier" => {
                            names.extend(renamed(sel, src))
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    if names.is_empty() {
        let Some(last) = path.pop() else { return };
        names.push((last, None));
    }
    let module = path.join(".");
    for (name, alias) in names {
        if alias.as_deref() == Some("_") {
            continue;
        }
        out.push(Import {
            module: module.clone(),
            name: Some(name),
            alias,
            line,
        });
    }
}

/// `D => E` or `D as E`: the name and its alias.
fn renamed(n: Node<'_>, src: &[u8]) -> Option<(String, Option<String>)> {
    let name = n.child_by_field_name("name")?.utf8_text(src).ok()?;
    let alias = n
        .child_by_field_name("alias")
        .and_then(|a| a.utf8_text(src).ok());
    Some((name.to_string(), alias.map(str::to_string)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_follow_sbt_layouts() {
        assert_eq!(module_path("src/main/scala/a/b/C.scala"), vec!["a", "b"]);
        assert_eq!(module_path("C.scala"), Vec::<String>::new());
    }

    #[test]
    fn imports_bind_selectors_aliases_and_globs() {
        let src = "import a.b.C\nimport a.b.{D, E => F, G => _}\nimport a.b._\nimport a.c.H as I\n";
        let out = super::super::expanded_imports(
            tree_sitter_scala::LANGUAGE.into(),
            &["import_declaration"],
            expand_import,
            src,
        );
        let got = super::super::import_triples(&out);
        assert_eq!(
            got,
            vec![
                ("a.b", Some("C"), None),
                ("a.b", Some("D"), None),
                ("a.b", Some("E"), Some("F")),
                ("a.b", Some("*"), None),
                ("a.c", Some("H"), Some("I")),
            ]
        );
    }
}
