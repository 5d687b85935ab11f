//! Go: the package is the directory, so the module path is the directory path; and the
//! rules of Go's package scope, predeclared types, conversions, tests (`_test.go`) and
//! exported names.

use super::{
    split_path, Dispatch, ImpactRules, ImportSystem, LanguageSpec, LocalShadowing, MainRule,
    NamePattern, PackageManifest, PublicApi, ResolutionRules,
};

/// Go's predeclared types (the Go spec, "Predeclared identifiers"): a value of one is
/// never of a repo type.
const PREDECLARED_TYPES: &[&str] = &[
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

/// `go test` compiles these files only into the package's test binary.
const TEST_FILES: &[NamePattern] = &[NamePattern::Suffix("_test.go")];

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "go",
    extensions: &["go"],
    grammar: Some(|| tree_sitter_go::LANGUAGE.into()),
    tags: include_str!("../../../queries/go/tags.scm"),
    highlights: &[tree_sitter_go::HIGHLIGHTS_QUERY],
    packages: PackageManifest::GoMod,
    comment_kinds: &["comment"],
    module_path,
    resolution: ResolutionRules {
        imports: ImportSystem::ImportPaths,
        predeclared_types: PREDECLARED_TYPES,
        test_files: TEST_FILES,
        test_files_compiled_apart: true,
        named_types_have_methods: true,
        local_shadowing: LocalShadowing::FromBindingLine,
        same_directory_package: true,
        bare_names_in_package: true,
        only_packages_qualify: true,
        type_calls_are_conversions: true,
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: TEST_FILES,
        main: MainRule {
            package: Some("main"),
            ..MainRule::DEFAULT
        },
        public_api: PublicApi::Capitalized {
            internal_folder: "internal",
            main_package: "main",
        },
        dispatch: Dispatch::ImplicitInterfaces,
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
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
