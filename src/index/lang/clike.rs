//! C, C++ and C#: no module path from the file layout (C and C++ scope names by
//! namespace definitions, which are definitions of their own; C# namespaces likewise).
//! A function declared in a header and defined in a source file is one node, the
//! definition: the queries capture definitions with bodies only, and `#include "x.h"`
//! binds the header and its sibling source file (`x.c`, `x.cpp`, ...). A `static` function
//! of a source file is visible to that file only; a `.h` header holding C++ is parsed as
//! C++ ([`super::refine_by_content`]); C++ `using namespace ns;` / `using ns::f;` and C#
//! `using` bring a namespace's names into scope, and nothing else does.

use super::{no_module_path, LanguageSpec};

pub(super) const C: LanguageSpec = LanguageSpec {
    name: "c",
    extensions: &["c", "h"],
    grammar: Some(|| tree_sitter_c::LANGUAGE.into()),
    tags: include_str!("../../../queries/c/tags.scm"),
    separator: "::",
    comment_kinds: &["comment"],
    doc_prefixes: &["/**", "///", "/*!", "//!"],
    constructor_names: &[],
    type_named_constructors: false,
    module_path: no_module_path,
    expand_import: None,
};

pub(super) const CPP: LanguageSpec = LanguageSpec {
    name: "cpp",
    extensions: &["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp"],
    grammar: Some(|| tree_sitter_cpp::LANGUAGE.into()),
    tags: include_str!("../../../queries/cpp/tags.scm"),
    type_named_constructors: true,
    ..C
};

pub(super) const CSHARP: LanguageSpec = LanguageSpec {
    name: "csharp",
    extensions: &["cs"],
    grammar: Some(|| tree_sitter_c_sharp::LANGUAGE.into()),
    tags: include_str!("../../../queries/csharp/tags.scm"),
    separator: ".",
    doc_prefixes: &["///", "/**"],
    ..C
};
