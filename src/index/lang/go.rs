//! Go: the package is the directory, so the module path is the directory path.

use super::{split_path, LanguageSpec};

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "go",
    extensions: &["go"],
    grammar: Some(|| tree_sitter_go::LANGUAGE.into()),
    tags: include_str!("../../../queries/go/tags.scm"),
    separator: ".",
    comment_kinds: &["comment"],
    doc_prefixes: &[],
    constructor_names: &[],
    type_named_constructors: false,
    module_path,
    expand_import: None,
};

/// `internal/server/http.go` → `["internal/server"]` (one segment: Go names a package by
/// its import path, whose separator is `/`); files at the root → `[]`.
fn module_path(path: &str) -> Vec<String> {
    let (dirs, _) = split_path(path);
    if dirs.is_empty() {
        Vec::new()
    } else {
        vec![dirs.join("/")]
    }
}
