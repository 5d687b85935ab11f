//! Kotlin: the declared package is the module path (`package okio` whatever the folders),
//! imports of classes, top-level functions and whole packages bound like Java's, and the
//! rules of Kotlin's members (companion objects are the class's, extension functions the
//! receiver type's), JUnit tests and `main`.

use tree_sitter::Node;

use super::{
    source_root_package, ExtractionRules, ImpactRules, ImportSystem, LanguageSpec, LocalShadowing,
    MainRule, NamePattern, ResolutionRules, TestCode,
};
use crate::index::facts::Import;

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "kotlin",
    extensions: &["kt", "kts"],
    interpreters: &["kotlin"],
    grammar: Some(|| tree_sitter_kotlin_ng::LANGUAGE.into()),
    tags: include_str!("../../../queries/kotlin/tags.scm"),
    // The grammar crate ships no highlight query: this one uses the standard captures.
    highlights: &[include_str!("../../../queries/kotlin/highlights.scm")],
    comment_kinds: &["line_comment", "block_comment"],
    doc_prefixes: &["/**"],
    module_path,
    expand_import: Some(expand_import),
    extraction: ExtractionRules {
        declared_package_separator: Some("."),
        ..ExtractionRules::DEFAULT
    },
    resolution: ResolutionRules {
        imports: ImportSystem::ClassPackages,
        // A bare call in a class is a member of the class or its supertypes first, then a
        // top-level function (Kotlin spec, "Call without an explicit receiver").
        bare_calls_reach_members: true,
        // The files of a package see each other's top-level names without imports; the
        // folders follow the packages in Gradle layouts.
        same_directory_package: true,
        // A parameter or local of a function type (`handler: () -> Unit`) is what a
        // later `handler()` calls, not a function of that name elsewhere.
        local_shadowing: LocalShadowing::FromBindingLine,
        expect_modifier: Some("expect"),
        extensions_of_library_types: true,
        string_literal_type: Some("String"),
        // The names every Kotlin file imports implicitly (`kotlin.*`, `kotlin.collections.*`,
        // `kotlin.io.*`, ...): a bare call of one is the standard library's.
        globals: &[
            "println",
            "print",
            "require",
            "requireNotNull",
            "check",
            "checkNotNull",
            "error",
            "TODO",
            "listOf",
            "mutableListOf",
            "arrayListOf",
            "setOf",
            "mutableSetOf",
            "mapOf",
            "mutableMapOf",
            "hashMapOf",
            "emptyList",
            "emptyMap",
            "emptySet",
            "arrayOf",
            "intArrayOf",
            "byteArrayOf",
            "lazy",
            "run",
            "with",
            "apply",
            "also",
            "let",
            "takeIf",
            "repeat",
            "maxOf",
            "minOf",
            "assert",
            "synchronized",
            "buildString",
            "buildList",
            "Pair",
            "Triple",
            "String",
            "StringBuilder",
            "IllegalArgumentException",
            "IllegalStateException",
            "UnsupportedOperationException",
            "IndexOutOfBoundsException",
            "Exception",
            "RuntimeException",
            "NullPointerException",
            "AssertionError",
        ],
        test_files: &[
            NamePattern::Suffix("Test.kt"),
            NamePattern::Suffix("Tests.kt"),
        ],
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: &[
            NamePattern::Suffix("Test.kt"),
            NamePattern::Suffix("Tests.kt"),
        ],
        // JUnit 4 and 5, and kotlin.test's `@Test`.
        test_code: TestCode::Annotations(&[
            "@Test",
            "@ParameterizedTest",
            "@RepeatedTest",
            "@TestFactory",
            "@BeforeTest",
            "@AfterTest",
        ]),
        main: MainRule::DEFAULT,
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// The package of a file that declares none: the folders after the source root, the last
/// `kotlin/` or `java/` folder below `src` (Gradle's `src/main/kotlin`, multiplatform
/// `src/commonMain/kotlin`), else the last `src/`, else the root. A declared `package`
/// replaces it (`declared_package_separator`).
fn module_path(path: &str) -> Vec<String> {
    source_root_package(path, &["kotlin", "java"])
}

/// An `import` header: `import a.b.C` binds `C` of package `a.b`, `import a.b.C as D`
/// binds it as `D`, `import a.b.*` every name of package `a.b`. A class's member
/// (`import a.b.C.member`) is package `a.b.C`, which the import system reads as a class
/// of package `a.b`.
fn expand_import(stmt: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let mut cur = stmt.walk();
    let mut path = None;
    let mut alias = None;
    for child in stmt.children(&mut cur) {
        match child.kind() {
            "qualified_identifier" | "identifier" if path.is_none() => {
                path = child.utf8_text(src).ok();
            }
            "identifier" => alias = child.utf8_text(src).ok().map(str::to_string),
            _ => {}
        }
    }
    let Some(path) = path.map(|p| p.split_whitespace().collect::<String>()) else {
        return;
    };
    let glob = stmt
        .utf8_text(src)
        .is_ok_and(|t| t.trim_end().ends_with('*'));
    let (module, name) = match (glob, path.rsplit_once('.')) {
        (true, _) => (path.clone(), "*".to_string()),
        (false, Some((m, n))) => (m.to_string(), n.to_string()),
        (false, None) => (String::new(), path.clone()),
    };
    out.push(Import {
        module,
        name: Some(name),
        alias,
        line,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_follow_gradle_layouts() {
        assert_eq!(
            module_path("okio/src/commonMain/kotlin/okio/Buffer.kt"),
            vec!["okio"]
        );
        assert_eq!(module_path("src/main/kotlin/a/b/C.kt"), vec!["a", "b"]);
        assert_eq!(module_path("C.kt"), Vec::<String>::new());
    }

    #[test]
    fn imports_bind_classes_aliases_and_globs() {
        let src = "import a.b.C\nimport a.b.D as E\nimport a.b.*\n";
        let out = super::super::expanded_imports(
            tree_sitter_kotlin_ng::LANGUAGE.into(),
            &["import"],
            expand_import,
            src,
        );
        let got = super::super::import_triples(&out);
        assert_eq!(
            got,
            vec![
                ("a.b", Some("C"), None),
                ("a.b", Some("D"), Some("E")),
                ("a.b", Some("*"), None)
            ]
        );
    }
}
