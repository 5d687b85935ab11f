//! Bash (and POSIX `sh`): functions, the commands that call them, `source`/`.` of a file
//! as an include (its functions are visible to the lines after it), and the rules of
//! shell scripts: a script's top level runs, `main "$@"` is its entry, shunit2-style
//! `test*` functions and `*_test.sh` files are tests.

use tree_sitter::Node;

use super::{
    FileEntry, ImpactRules, ImportSystem, LanguageSpec, NamePattern, ResolutionRules, TestCode,
};
use crate::index::facts::Import;

/// Test scripts by name (`test_*.sh`, `*_test.sh`).
const TEST_FILES: &[NamePattern] = &[
    NamePattern::PrefixSuffix("test_", ".sh"),
    NamePattern::Suffix("_test.sh"),
];

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "bash",
    extensions: &["sh", "bash"],
    interpreters: &["bash", "sh", "dash", "ksh"],
    grammar: Some(|| tree_sitter_bash::LANGUAGE.into()),
    tags: include_str!("../../../queries/bash/tags.scm"),
    highlights: &[tree_sitter_bash::HIGHLIGHT_QUERY],
    comment_kinds: &["comment"],
    // Every `#` comment right above a function documents it (no doc-comment syntax).
    doc_prefixes: &[],
    expand_import: Some(expand_source),
    resolution: ResolutionRules {
        // `source lib.sh` reads the file into the shell: its functions are defined for
        // every later line, as an `#include` is.
        imports: ImportSystem::Includes,
        test_files: TEST_FILES,
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: TEST_FILES,
        // shunit2 runs every function whose name starts with `test`.
        test_code: TestCode::NamePrefixes {
            callables: "test",
            classes: "Test",
        },
        // A script's top level runs when it is executed or sourced.
        file_entry: FileEntry::Always,
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// The file a `source` or `.` command names, as a glob import of it: a literal path
/// (`source ./lib/util.sh`, `. 'common.sh'`), or the literal tail after the script's own
/// folder (`"$(dirname "$0")/lib/util.sh"`, `"${BASH_SOURCE%/*}/util.sh"`, `"$DIR/x.sh"`),
/// which is relative to the sourcing file. A path that is computed whole (`source
/// "$CONFIG"`) has no import.
fn expand_source(stmt: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let Some(arg) = stmt.child_by_field_name("argument") else {
        return;
    };
    let text = |n: Node<'_>| n.utf8_text(src).unwrap_or("");
    let path = match arg.kind() {
        "word" => text(arg).to_string(),
        "raw_string" => text(arg).trim_matches('\'').to_string(),
        "string" => {
            let mut cur = arg.walk();
            let parts: Vec<Node<'_>> = arg.named_children(&mut cur).collect();
            match parts.as_slice() {
                [only] if only.kind() == "string_content" => text(*only).to_string(),
                // An expansion of the script's folder, then the literal rest.
                [_, .., last]
                    if last.kind() == "string_content" && text(*last).starts_with('/') =>
                {
                    format!(".{}", text(*last))
                }
                _ => return,
            }
        }
        "concatenation" => {
            let mut cur = arg.walk();
            let last = arg.named_children(&mut cur).last();
            match last {
                Some(l) if l.kind() == "word" && text(l).starts_with('/') => {
                    format!(".{}", text(l))
                }
                _ => return,
            }
        }
        _ => return,
    };
    if path.is_empty() || path.contains('$') {
        return;
    }
    out.push(Import {
        module: path,
        name: Some("*".to_string()),
        alias: None,
        line,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sourced_paths_become_includes() {
        let src = "source ./lib/util.sh\n. \"$(dirname \"$0\")/common.sh\"\nsource \"${BASH_SOURCE%/*}/more.sh\"\nsource \"$CONFIG\"\n. 'x.sh'\n";
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_bash::LANGUAGE.into()).unwrap();
        let tree = p.parse(src, None).unwrap();
        let root = tree.root_node();
        let mut out = Vec::new();
        let mut cur = root.walk();
        for n in root.named_children(&mut cur) {
            expand_source(n, src.as_bytes(), 1, &mut out);
        }
        let got: Vec<&str> = out.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(
            got,
            vec!["./lib/util.sh", "./common.sh", "./more.sh", "x.sh"]
        );
    }
}
