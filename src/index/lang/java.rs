//! Java: the package from the source layout (`src/main/java/org/post/Mailbox.java` →
//! `org.post`), the class name being the file's own definitions; and the rules of Java's
//! packages, constructors, JUnit tests and `public` API.

use super::{
    split_path, ImpactRules, ImportSystem, LanguageSpec, MainRule, NamePattern, NewCalls,
    PublicApi, ResolutionRules, TestCode,
};

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "java",
    extensions: &["java"],
    grammar: Some(|| tree_sitter_java::LANGUAGE.into()),
    tags: include_str!("../../../queries/java/tags.scm"),
    highlights: &[tree_sitter_java::HIGHLIGHTS_QUERY],
    comment_kinds: &["line_comment", "block_comment"],
    doc_prefixes: &["/**"],
    module_path,
    resolution: ResolutionRules {
        imports: ImportSystem::ClassPackages,
        new_calls: NewCalls::OnlyDeclaredConstructor,
        bare_calls_reach_members: true,
        same_directory_package: true,
        exact_arity: true,
        explicit_constructor_calls: true,
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        // Maven Surefire's default includes.
        test_files: &[
            NamePattern::Suffix("Test.java"),
            NamePattern::Suffix("Tests.java"),
        ],
        // JUnit 4 and 5.
        test_code: TestCode::Annotations(&[
            "@Test",
            "@ParameterizedTest",
            "@RepeatedTest",
            "@TestFactory",
            "@TestTemplate",
        ]),
        main: MainRule {
            method: Some("main"),
            ..MainRule::DEFAULT
        },
        public_api: PublicApi::Modifier("public"),
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// The package path: the directories after the source root. The root is the last `java/`
/// directory under `src/main`, `src/test` or `src` (Maven and Gradle layouts), else the last
/// `src/`, else the repository root.
fn module_path(path: &str) -> Vec<String> {
    let (dirs, _) = split_path(path);
    let start = dirs
        .iter()
        .rposition(|d| *d == "java")
        .filter(|&i| i > 0 && dirs[..i].contains(&"src"))
        .or_else(|| dirs.iter().rposition(|d| *d == "src"))
        .map_or(0, |i| i + 1);
    dirs[start..].iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_follow_maven_layout() {
        assert_eq!(
            module_path("src/main/java/org/post/Mailbox.java"),
            vec!["org", "post"]
        );
        assert_eq!(module_path("lib/src/org/x/A.java"), vec!["org", "x"]);
        assert_eq!(module_path("A.java"), Vec::<String>::new());
    }
}
