//! Java: the package from the source layout (`src/main/java/org/post/Mailbox.java` →
//! `org.post`), the class name being the file's own definitions; and the rules of Java's
//! packages, constructors, JUnit tests and `public` API.

use tree_sitter::Node;

use super::{
    source_root_package, ExtractionRules, ImpactRules, ImportSystem, LanguageSpec, MainRule,
    NamePattern, NewCalls, PublicApi, ResolutionRules, TestCode,
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
    extraction: ExtractionRules {
        arg_type: Some(arg_type),
        param_type: Some(param_type),
        self_constructions: &["enum_constant"],
        ..ExtractionRules::DEFAULT
    },
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

/// What an argument expression's syntax says of its type (JLS 15.8.1 for literals, 15.9
/// `new`, 15.16 casts, 15.18.1 string concatenation): a type name, `=x` for a plain name,
/// a method invocation as written (typed by its declared return type), empty when
/// unknown.
fn arg_type(n: Node<'_>, text: &str) -> String {
    let t = |n: Node<'_>| text.get(n.byte_range()).unwrap_or("");
    let literal = |n: Node<'_>| -> Option<&'static str> {
        Some(match n.kind() {
            "string_literal" | "text_block" => "String",
            "character_literal" => "char",
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => {
                if t(n).ends_with(['l', 'L']) {
                    "long"
                } else {
                    "int"
                }
            }
            "decimal_floating_point_literal" | "hex_floating_point_literal" => {
                if t(n).ends_with(['f', 'F']) {
                    "float"
                } else {
                    "double"
                }
            }
            "true" | "false" => "boolean",
            "null_literal" => "null",
            _ => return None,
        })
    };
    if let Some(l) = literal(n) {
        return l.to_string();
    }
    match n.kind() {
        "this" => "this".to_string(),
        "identifier" => format!("={}", t(n)),
        // A call: typed at resolution by what it calls (its text, ending in `)`).
        "method_invocation" if t(n).len() <= 200 && !t(n).contains('\n') => t(n).to_string(),
        "object_creation_expression" | "cast_expression" => n
            .child_by_field_name("type")
            .map(|ty| type_name(t(ty)))
            .unwrap_or_default(),
        "array_creation_expression" => match (
            n.child_by_field_name("type"),
            n.child_by_field_name("dimensions"),
        ) {
            (Some(ty), Some(d)) => format!(
                "{}{}",
                type_name(t(ty)),
                "[]".repeat(t(d).matches('[').count())
            ),
            _ => String::new(),
        },
        // `"a" + x` is a String whatever `x` is.
        "binary_expression" => {
            let is_plus = n
                .child_by_field_name("operator")
                .is_some_and(|o| o.kind() == "+");
            let string_side = [
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            ]
            .into_iter()
            .flatten()
            .any(|s| matches!(s.kind(), "string_literal" | "text_block"));
            if is_plus && string_side {
                "String".to_string()
            } else {
                String::new()
            }
        }
        _ => String::new(),
    }
}

/// The declared type of a `formal_parameter`; `None` for a variadic (`spread_parameter`)
/// or receiver parameter.
fn param_type(n: Node<'_>, text: &str) -> Option<String> {
    if n.kind() != "formal_parameter" {
        return None;
    }
    let ty = n.child_by_field_name("type")?;
    let mut name = type_name(text.get(ty.byte_range())?);
    // `String names[]`: the dimensions written after the name.
    if let Some(d) = n.child_by_field_name("dimensions") {
        name.push_str(&"[]".repeat(text.get(d.byte_range()).unwrap_or("").matches('[').count()));
    }
    (!name.is_empty()).then_some(name)
}

/// A type as written → its name with generics and annotations dropped and array
/// brackets kept: `List<String>` → `List`, `Map.Entry<K, V>[]` → `Map.Entry[]` (the
/// qualifier decides which type it is).
fn type_name(raw: &str) -> String {
    // Type annotations (`@Nullable String`) are words starting with `@`.
    if raw.contains('@') {
        let words: Vec<&str> = raw
            .split_whitespace()
            .filter(|w| !w.starts_with('@'))
            .collect();
        return type_name(&words.join(" "));
    }
    let mut out = String::new();
    let mut depth = 0u32;
    for c in raw.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    let dims = out.matches("[]").count();
    let base = out.trim_end_matches("[]");
    format!("{base}{}", "[]".repeat(dims))
}

/// The package path: the directories after the source root. The root is the last `java/`
/// directory under `src/main`, `src/test` or `src` (Maven and Gradle layouts), else the last
/// `src/`, else the repository root.
fn module_path(path: &str) -> Vec<String> {
    source_root_package(path, &["java"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_drop_generics_and_qualifiers() {
        assert_eq!(type_name("List<String>"), "List");
        assert_eq!(type_name("Map.Entry<K, V>[]"), "Map.Entry[]");
        assert_eq!(type_name("int[][]"), "int[][]");
        assert_eq!(type_name("@Nullable String"), "String");
    }

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
