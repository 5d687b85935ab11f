//! JavaScript, TypeScript and TSX: ES modules are files, so there is no language module
//! path; everything else is in the queries.

use super::{no_module_path, LanguageSpec};

const COMMENTS: &[&str] = &["comment"];
const DOC: &[&str] = &["/**"];
const CTORS: &[&str] = &["constructor"];

pub(super) const JAVASCRIPT: LanguageSpec = LanguageSpec {
    name: "javascript",
    extensions: &["js", "jsx", "mjs", "cjs"],
    grammar: Some(|| tree_sitter_javascript::LANGUAGE.into()),
    tags: include_str!("../../../queries/javascript/tags.scm"),
    separator: ".",
    comment_kinds: COMMENTS,
    doc_prefixes: DOC,
    constructor_names: CTORS,
    type_named_constructors: false,
    module_path: no_module_path,
    expand_import: None,
};

pub(super) const TYPESCRIPT: LanguageSpec = LanguageSpec {
    name: "typescript",
    extensions: &["ts", "mts", "cts"],
    grammar: Some(|| tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
    tags: include_str!("../../../queries/typescript/tags.scm"),
    ..JAVASCRIPT
};

pub(super) const TSX: LanguageSpec = LanguageSpec {
    name: "tsx",
    extensions: &["tsx"],
    grammar: Some(|| tree_sitter_typescript::LANGUAGE_TSX.into()),
    tags: include_str!("../../../queries/tsx/tags.scm"),
    ..JAVASCRIPT
};
