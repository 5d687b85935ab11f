//! C, C++ and C#: no module path from the file layout (C and C++ scope names by
//! namespace definitions, which are definitions of their own; C# namespaces likewise).
//! A function declared in a header and defined in a source file is one node, the
//! definition: the queries capture definitions with bodies only, and `#include "x.h"`
//! binds the header and its sibling source file (`x.c`, `x.cpp`, ...). A `static` function
//! of a source file is visible to that file only; a `.h` header holding C++ is parsed as
//! C++ ([`header_language`]); C++ `using namespace ns;` / `using ns::f;` and C#
//! `using` bring a namespace's names into scope, and nothing else does.

use super::{
    by_name, ImpactRules, ImportSystem, LanguageSpec, MainRule, NamePattern, NewCalls, PublicApi,
    ResolutionRules, TestCode,
};

const COMMENTS: &[&str] = &["comment"];

pub(super) const C: LanguageSpec = LanguageSpec {
    name: "c",
    family: Some("c"),
    extensions: &["c", "h"],
    grammar: Some(|| tree_sitter_c::LANGUAGE.into()),
    tags: include_str!("../../../queries/c/tags.scm"),
    highlights: &[tree_sitter_c::HIGHLIGHT_QUERY],
    refine_by_content: Some(header_language),
    separator: "::",
    comment_kinds: COMMENTS,
    doc_prefixes: &["/**", "///", "/*!", "//!"],
    resolution: ResolutionRules {
        imports: ImportSystem::Includes,
        member_access_separators: &["->", "::"],
        file_local_statics: true,
        header_extensions: &["h", "hh", "hpp", "hxx", "h++", "ipp", "inl"],
        out_of_class_members: true,
        namespaces_need_using: true,
        qualified_type_names: true,
        ..ResolutionRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

pub(super) const CPP: LanguageSpec = LanguageSpec {
    name: "cpp",
    extensions: &["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp"],
    grammar: Some(|| tree_sitter_cpp::LANGUAGE.into()),
    tags: include_str!("../../../queries/cpp/tags.scm"),
    highlights: &[
        tree_sitter_cpp::HIGHLIGHT_QUERY,
        tree_sitter_c::HIGHLIGHT_QUERY,
    ],
    refine_by_content: None,
    type_named_constructors: true,
    resolution: ResolutionRules {
        new_calls: NewCalls::OnlyConstructor,
        bare_calls_reach_members: true,
        ..C.resolution
    },
    ..C
};

pub(super) const CSHARP: LanguageSpec = LanguageSpec {
    name: "csharp",
    extensions: &["cs"],
    grammar: Some(|| tree_sitter_c_sharp::LANGUAGE.into()),
    tags: include_str!("../../../queries/csharp/tags.scm"),
    highlights: &[tree_sitter_c_sharp::HIGHLIGHTS_QUERY],
    comment_kinds: COMMENTS,
    doc_prefixes: &["///", "/**"],
    resolution: ResolutionRules {
        imports: ImportSystem::Namespaces,
        super_aliases: &["base"],
        namespaces_need_using: true,
        qualified_type_names: true,
        new_calls: NewCalls::OnlyDeclaredConstructor,
        bare_calls_reach_members: true,
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: &[
            NamePattern::Suffix("Test.cs"),
            NamePattern::Suffix("Tests.cs"),
        ],
        // NUnit, xUnit and MSTest.
        test_code: TestCode::BracketedAttributes(&[
            "[Test",
            "[Fact",
            "[Theory",
            "[TestMethod",
            "[TestCase",
        ]),
        main: MainRule {
            method: Some("Main"),
            ..MainRule::DEFAULT
        },
        public_api: PublicApi::Modifier("public"),
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// A `.h` header holding C++ (a `class`, `namespace`, `template` or access specifier at
/// the start of a line) is C++; any other file stays C (`None`).
fn header_language(path: &str, text: &str) -> Option<&'static LanguageSpec> {
    if !path.to_ascii_lowercase().ends_with(".h") {
        return None;
    }
    let cpp = text.lines().any(|l| {
        let l = l.trim_start();
        [
            "class ",
            "namespace ",
            "template<",
            "template <",
            "using namespace ",
        ]
        .iter()
        .any(|k| l.starts_with(k))
            || ["public:", "private:", "protected:"]
                .iter()
                .any(|k| l.starts_with(k))
    });
    if cpp {
        by_name("cpp")
    } else {
        None
    }
}
