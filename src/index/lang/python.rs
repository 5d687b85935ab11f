//! Python: module path from the file path (`pkg/mod.py` → `pkg.mod`, `__init__` dropped).

use super::{split_path, LanguageSpec};

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "python",
    extensions: &["py", "pyi"],
    grammar: Some(|| tree_sitter_python::LANGUAGE.into()),
    tags: include_str!("../../../queries/python/tags.scm"),
    separator: ".",
    comment_kinds: &[],
    doc_prefixes: &[],
    constructor_names: &["__init__"],
    type_named_constructors: false,
    module_path,
    expand_import: None,
};

/// `pkg/sub/mod.py` → `pkg.sub.mod`; `pkg/__init__.py` → `pkg`; a leading `src/` or `lib/`
/// layout directory is dropped (the common `src` layout of PyPA's packaging guide).
fn module_path(path: &str) -> Vec<String> {
    let (dirs, stem) = split_path(path);
    let skip = usize::from(matches!(dirs.first(), Some(&"src") | Some(&"lib")));
    let mut out: Vec<String> = dirs[skip..].iter().map(|s| s.to_string()).collect();
    if stem != "__init__" {
        out.push(stem.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_drop_init_and_src() {
        assert_eq!(module_path("app/service.py"), vec!["app", "service"]);
        assert_eq!(module_path("app/__init__.py"), vec!["app"]);
        assert_eq!(module_path("src/pkg/m.py"), vec!["pkg", "m"]);
    }
}
