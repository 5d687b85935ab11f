//! Swift: every file of a module sees the others without imports (SwiftPM's
//! `Sources/<Target>/`), types and their `extension` blocks, protocols, receivers typed by
//! annotations and constructions, XCTest's `test*` methods and `@main`'s `main`.

use super::{
    split_path, ImpactRules, LanguageSpec, LocalShadowing, MainRule, NamePattern, NewCalls,
    PublicApi, ResolutionRules, TestCode,
};

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "swift",
    extensions: &["swift"],
    interpreters: &["swift"],
    grammar: Some(|| tree_sitter_swift::LANGUAGE.into()),
    tags: include_str!("../../../queries/swift/tags.scm"),
    highlights: &[tree_sitter_swift::HIGHLIGHTS_QUERY],
    comment_kinds: &["comment", "multiline_comment"],
    doc_prefixes: &["///", "/**"],
    // `Foo(..)` runs `Foo`'s `init`.
    constructor_names: &["init"],
    module_path,
    resolution: ResolutionRules {
        // A bare call in a type is a member of the type or its supertypes first, then a
        // global function (Swift's unqualified lookup starts in the innermost type).
        bare_calls_reach_members: true,
        // `Mailer(host:)` runs the type's `init` when it declares one.
        new_calls: NewCalls::OnlyDeclaredConstructor,
        // The files of one folder are one module's (a target folder is one module);
        // subfolders of a target are reached by the repo-wide name tiers.
        same_directory_package: true,
        // A closure parameter or local (`handler: () -> Void`) is what a later
        // `handler()` calls, not a function of that name elsewhere.
        local_shadowing: LocalShadowing::FromBindingLine,
        // The standard library's and Foundation's global functions and common types: a bare
        // call of one is the platform's.
        globals: &[
            "print",
            "debugPrint",
            "dump",
            "fatalError",
            "precondition",
            "preconditionFailure",
            "assert",
            "assertionFailure",
            "min",
            "max",
            "abs",
            "zip",
            "stride",
            "type",
            "repeatElement",
            "sequence",
            "swap",
            "withExtendedLifetime",
            "withUnsafePointer",
            "withUnsafeMutablePointer",
            "withUnsafeBytes",
            "withUnsafeMutableBytes",
            "withCheckedContinuation",
            "withCheckedThrowingContinuation",
            "withTaskGroup",
            "withThrowingTaskGroup",
            "numericCast",
            "unsafeBitCast",
            "autoreleasepool",
            "String",
            "Int",
            "UInt",
            "Int8",
            "Int16",
            "Int32",
            "Int64",
            "UInt8",
            "UInt16",
            "UInt32",
            "UInt64",
            "Double",
            "Float",
            "Bool",
            "Character",
            "Array",
            "Dictionary",
            "Set",
            "Optional",
            "Result",
            "Data",
            "Date",
            "URL",
            "UUID",
            "Task",
            "NSError",
            "NSLock",
            "DispatchQueue",
            "DecodingError",
            "EncodingError",
            "NotificationCenter",
            "JSONDecoder",
            "JSONEncoder",
            "JSONSerialization",
            "FileManager",
            "UserDefaults",
            "Bundle",
            "ProcessInfo",
            "XCTAssert",
            "XCTAssertEqual",
            "XCTAssertNotEqual",
            "XCTAssertTrue",
            "XCTAssertFalse",
            "XCTAssertNil",
            "XCTAssertNotNil",
            "XCTAssertThrowsError",
            "XCTAssertNoThrow",
            "XCTFail",
            "XCTUnwrap",
        ],
        // Values of these are the standard library's, so their methods are `external`.
        predeclared_types: &[
            "String",
            "Substring",
            "Int",
            "UInt",
            "Double",
            "Float",
            "Bool",
            "Character",
            "Array",
            "Dictionary",
            "Set",
            "Data",
            "Date",
            "URL",
        ],
        test_files: &[NamePattern::Suffix("Tests.swift")],
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        // SwiftPM's `Tests/<Target>Tests/` holds `*Tests.swift` files.
        test_files: &[
            NamePattern::Suffix("Tests.swift"),
            NamePattern::Suffix("Test.swift"),
        ],
        // XCTest runs the `test*` methods of `XCTestCase` subclasses.
        test_code: TestCode::NamePrefixes {
            callables: "test",
            classes: "Test",
        },
        // `@main struct App { static func main() }`, or a free `main`.
        main: MainRule {
            method: Some("main"),
            ..MainRule::DEFAULT
        },
        public_api: PublicApi::Modifier("public"),
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// The module of a file: the target folder after SwiftPM's `Sources/` or `Tests/`
/// (`Sources/Net/HTTP/Client.swift` → `Net`), else the file's folders.
fn module_path(path: &str) -> Vec<String> {
    let (dirs, _) = split_path(path);
    match dirs.iter().rposition(|d| *d == "Sources" || *d == "Tests") {
        Some(i) if i + 1 < dirs.len() => vec![dirs[i + 1].to_string()],
        _ => dirs.iter().map(|s| s.to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_swiftpm_targets() {
        assert_eq!(module_path("Sources/Net/HTTP/Client.swift"), vec!["Net"]);
        assert_eq!(
            module_path("Tests/NetTests/ClientTests.swift"),
            vec!["NetTests"]
        );
        assert_eq!(module_path("App/View.swift"), vec!["App"]);
        assert_eq!(module_path("main.swift"), Vec::<String>::new());
    }
}
