//! Dart: a library imports files by URI (`'src/cart.dart'` beside the importer,
//! `package:shop/src/cart.dart` under the package's `lib/`), whose public names it then
//! sees; classes with their superclass, mixins and interfaces; constructors named like the
//! class; `package:test` blocks and `main`.

use tree_sitter::Node;

use super::{
    split_path, ImpactRules, ImportSystem, LanguageSpec, LocalShadowing, MainRule, NamePattern,
    NewCalls, ResolutionRules, TestCode,
};
use crate::index::facts::Import;

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "dart",
    extensions: &["dart"],
    interpreters: &["dart"],
    grammar: Some(|| tree_sitter_dart::LANGUAGE.into()),
    tags: include_str!("../../../queries/dart/tags.scm"),
    highlights: &[tree_sitter_dart::HIGHLIGHTS_QUERY],
    comment_kinds: &["comment", "documentation_comment"],
    doc_prefixes: &["///", "/**"],
    // `A(..)` in class `A` is its constructor.
    type_named_constructors: true,
    module_path,
    expand_import: Some(expand_import),
    resolution: ResolutionRules {
        // An imported file's top-level names are in scope; its path is read as an
        // `#include` is (beside the importer, else the one file ending with it).
        imports: ImportSystem::Includes,
        // A bare call in a class is a member of it or of its supertypes first (Dart's
        // lexical then inherited scope).
        bare_calls_reach_members: true,
        // `A(..)` and `new A(..)` run the class's only unnamed constructor.
        new_calls: NewCalls::OnlyDeclaredConstructor,
        // A parameter or local holding a function (`void Function() handler`) is what a
        // later `handler()` calls.
        local_shadowing: LocalShadowing::FromBindingLine,
        // `dart:core`, imported into every library, and `package:test`'s matchers.
        globals: &[
            "print",
            "identical",
            "identityHashCode",
            "List",
            "Map",
            "Set",
            "String",
            "StringBuffer",
            "int",
            "double",
            "num",
            "Iterable",
            "Future",
            "Stream",
            "Duration",
            "DateTime",
            "Uri",
            "RegExp",
            "Object",
            "Exception",
            "Error",
            "StateError",
            "ArgumentError",
            "RangeError",
            "FormatException",
            "UnimplementedError",
            "UnsupportedError",
            "expect",
            "isTrue",
            "isFalse",
            "equals",
            "throwsA",
        ],
        predeclared_types: &[
            "String", "int", "double", "num", "bool", "List", "Map", "Set", "Iterable", "Object",
            "dynamic", "Future", "Stream",
        ],
        test_files: &[NamePattern::Suffix("_test.dart")],
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: &[NamePattern::Suffix("_test.dart")],
        // `package:test` and `flutter_test` register tests by calls.
        test_code: TestCode::BlockCalls(&["test", "group", "testWidgets", "setUp", "tearDown"]),
        main: MainRule::DEFAULT,
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// The folders of the file: a library is named by its path.
fn module_path(path: &str) -> Vec<String> {
    split_path(path).0.iter().map(|s| s.to_string()).collect()
}

/// An `import` directive: `'a/b.dart'` (a path from the importer's folder) or
/// `package:<pkg>/a/b.dart` (the package's `lib/a/b.dart`), with its `as` prefix if any.
/// `dart:` libraries name no file, so they stay outside the repository.
fn expand_import(stmt: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let Some(uri) = stmt
        .child_by_field_name("uri")
        .and_then(|u| u.utf8_text(src).ok())
    else {
        return;
    };
    let uri = uri.trim().trim_matches(|c| c == '\'' || c == '"');
    let module = match uri.strip_prefix("package:") {
        Some(rest) => match rest.split_once('/') {
            Some((_, path)) => format!("lib/{path}"),
            None => return,
        },
        None => uri.to_string(),
    };
    let alias = stmt
        .child_by_field_name("alias")
        .and_then(|a| a.utf8_text(src).ok())
        .map(str::to_string);
    out.push(Import {
        module,
        name: if alias.is_some() {
            None
        } else {
            Some("*".to_string())
        },
        alias,
        line,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_name_files_and_prefixes() {
        let src = "import 'package:shop/src/cart.dart' as cart show Cart;\nimport 'src/util.dart';\nimport 'dart:async';\n";
        let out = super::super::expanded_imports(
            tree_sitter_dart::LANGUAGE.into(),
            &["import_specification"],
            expand_import,
            src,
        );
        let got = super::super::import_triples(&out);
        assert_eq!(
            got,
            vec![
                ("lib/src/cart.dart", None, Some("cart")),
                ("src/util.dart", Some("*"), None),
                ("dart:async", Some("*"), None),
            ]
        );
    }
}
