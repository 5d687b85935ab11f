//! Python: module path from the file path (`pkg/mod.py` → `pkg.mod`, `__init__` dropped);
//! and the rules of Python's import system, scoping, pytest tests and package API.

use super::{
    split_path, Dispatch, FileEntry, Hooks, ImpactRules, ImportSystem, LanguageSpec,
    LocalShadowing, NamePattern, PublicApi, ResolutionRules, TestCode,
};

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "python",
    extensions: &["py", "pyi"],
    grammar: Some(|| tree_sitter_python::LANGUAGE.into()),
    tags: include_str!("../../../queries/python/tags.scm"),
    highlights: &[tree_sitter_python::HIGHLIGHTS_QUERY],
    constructor_names: &["__init__"],
    module_path,
    folder_module_stems: &["__init__"],
    resolution: ResolutionRules {
        imports: ImportSystem::DottedModules,
        test_files: &[
            NamePattern::PrefixSuffix("test_", ".py"),
            NamePattern::Suffix("_test.py"),
        ],
        stub_files: &[NamePattern::Suffix(".pyi")],
        later_definition_wins: true,
        local_shadowing: LocalShadowing::WholeFunction,
        guess_untyped_methods: true,
        classes_are_values: true,
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        // pytest's defaults (`python_files`, and its `conftest.py` fixtures).
        test_files: &[
            NamePattern::PrefixSuffix("test_", ".py"),
            NamePattern::Suffix("_test.py"),
            NamePattern::Exact("conftest.py"),
        ],
        test_code: TestCode::NamePrefixes {
            callables: "test",
            classes: "Test",
        },
        file_entry: FileEntry::GuardLine(&["if__name__==\"__main__\"", "if__name__=='__main__'"]),
        public_api: PublicApi::PackageReexports {
            init_file: "__init__.py",
        },
        dispatch: Dispatch::DuckTyping,
        package_file: Some("__init__.py"),
        implicit_names: &[NamePattern::PrefixSuffix("__", "__")],
        hooks: Hooks {
            by_file: &[(NamePattern::Exact("conf.py"), &["setup"])],
            member_decorator: Some("@"),
            // The standard library's decorators that return a wrapper or mark a
            // declaration (functools, contextlib, typing, abc, dataclasses, enum) and the
            // property accessors.
            wrappers: &[
                "wraps",
                "cache",
                "lru_cache",
                "cached_property",
                "total_ordering",
                "singledispatch",
                "singledispatchmethod",
                "contextmanager",
                "asynccontextmanager",
                "overload",
                "final",
                "override",
                "no_type_check",
                "runtime_checkable",
                "abstractmethod",
                "dataclass",
                "unique",
                "setter",
                "getter",
                "deleter",
            ],
        },
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
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
