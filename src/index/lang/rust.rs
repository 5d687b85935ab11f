//! Rust: module path from the file layout (`src/a/b.rs` → `a::b`), `use` tree expansion,
//! the `cfg_*! { items }` blocks parsed again as items, calls inside macro arguments, and
//! the rules of Rust's module system, tests (`#[test]`) and public API (`pub`).

use tree_sitter::Node;

use super::token_tree::TokenClass;
use super::{
    split_path, ExtractionRules, ImpactRules, ImportSystem, LanguageSpec, NamePattern,
    PackageManifest, PublicApi, Reparse, ResolutionRules, TestCode, TokenTreeCalls,
};
use crate::index::facts::Import;

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "rust",
    extensions: &["rs"],
    grammar: Some(|| tree_sitter_rust::LANGUAGE.into()),
    tags: include_str!("../../../queries/rust/tags.scm"),
    highlights: &[tree_sitter_rust::HIGHLIGHTS_QUERY],
    packages: PackageManifest::Cargo,
    separator: "::",
    comment_kinds: &["line_comment", "block_comment"],
    doc_prefixes: &["///", "/**"],
    module_path,
    folder_module_stems: &["mod"],
    expand_import: Some(expand_use),
    extraction: ExtractionRules {
        reparse: Some(Reparse {
            trigger: "cfg_",
            unwrap: unwrap_cfg_blocks,
        }),
        token_tree_calls: Some(TokenTreeCalls {
            node_kind: "token_tree",
            classify: token_class,
        }),
        path_qualified_types: true,
        ..ExtractionRules::DEFAULT
    },
    resolution: ResolutionRules {
        imports: ImportSystem::CrateModules,
        path_separator: "::",
        follow_glob_reexports: false,
        unknown_paths_external: true,
        primitive_types: &[
            "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
            "i64", "i128", "isize", "f32", "f64",
        ],
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_code: TestCode::AttributePaths {
            names: &[
                "test",
                "rstest",
                "test_case",
                "bench",
                "quickcheck",
                "proptest",
            ],
            path_tail: "test",
            modules: &["tests", "test"],
            module_mark: "#[cfg(test)]",
        },
        public_api: PublicApi::VisibilityPrefix {
            prefix: "pub ",
            binaries: &[
                NamePattern::Exact("build.rs"),
                NamePattern::Suffix("src/main.rs"),
                NamePattern::Contains("src/bin/"),
            ],
        },
        trait_impl_word: Some("for"),
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// `src/lib.rs` and `src/main.rs` are the crate root; `src/a/mod.rs` is `a`; `src/a/b.rs`
/// is `a::b`. Paths are taken after the last `src` directory (the crate's source root).
fn module_path(path: &str) -> Vec<String> {
    let (dirs, stem) = split_path(path);
    let start = dirs.iter().rposition(|d| *d == "src").map_or(0, |i| i + 1);
    let mut out: Vec<String> = dirs[start..].iter().map(|s| s.to_string()).collect();
    let at_root = start > 0 && out.is_empty();
    if !(stem == "mod" || (at_root && (stem == "lib" || stem == "main"))) {
        out.push(stem.to_string());
    }
    out
}

/// Expands a `use_declaration` into one [`Import`] per leaf: `use a::{b, c::d as e, f::*}`
/// gives `a::b`, `a::c::d as e` and `a::f::*`. `module` holds the path up to the leaf and
/// `name` the leaf (`self` leaves bind the module itself).
fn expand_use(node: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    if let Some(arg) = node.child_by_field_name("argument") {
        walk(arg, src, String::new(), line, out, 0);
    }
}

/// The class of a macro token tree's child by its node kind.
fn token_class(kind: &str) -> TokenClass {
    match kind {
        "." => TokenClass::Dot,
        "::" => TokenClass::Path,
        "identifier" => TokenClass::Identifier,
        "self" | "super" | "crate" => TokenClass::Keyword,
        "token_tree" => TokenClass::Group,
        _ => TokenClass::Other,
    }
}

fn text<'a>(n: Node<'_>, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[n.byte_range()]).unwrap_or("")
}

fn join(prefix: &str, tail: &str) -> String {
    match (prefix.is_empty(), tail.is_empty()) {
        (true, _) => tail.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{tail}"),
    }
}

fn push_path(full: &str, alias: Option<String>, line: u32, out: &mut Vec<Import>) {
    let (module, name) = match full.rsplit_once("::") {
        Some((m, n)) => (m.to_string(), n.to_string()),
        None => (String::new(), full.to_string()),
    };
    if name == "self" {
        out.push(Import {
            module,
            name: None,
            alias,
            line,
        });
    } else {
        out.push(Import {
            module,
            name: Some(name),
            alias,
            line,
        });
    }
}

fn walk(n: Node<'_>, src: &[u8], prefix: String, line: u32, out: &mut Vec<Import>, depth: u32) {
    if depth > 32 {
        return;
    }
    match n.kind() {
        "scoped_use_list" => {
            let path = n
                .child_by_field_name("path")
                .map(|p| text(p, src))
                .unwrap_or("");
            let prefix = join(&prefix, path);
            if let Some(list) = n.child_by_field_name("list") {
                walk(list, src, prefix, line, out, depth + 1);
            }
        }
        "use_list" => {
            let mut c = n.walk();
            for child in n.named_children(&mut c) {
                walk(child, src, prefix.clone(), line, out, depth + 1);
            }
        }
        "use_as_clause" => {
            let path = n
                .child_by_field_name("path")
                .map(|p| text(p, src))
                .unwrap_or("");
            let alias = n
                .child_by_field_name("alias")
                .map(|a| text(a, src).to_string());
            push_path(&join(&prefix, path), alias, line, out);
        }
        "use_wildcard" => {
            let inner = text(n, src).trim_end_matches('*').trim_end_matches("::");
            out.push(Import {
                module: join(&prefix, inner),
                name: Some("*".into()),
                alias: None,
                line,
            });
        }
        "identifier" | "scoped_identifier" | "self" | "crate" | "super" => {
            push_path(&join(&prefix, text(n, src)), None, line, out);
        }
        _ => {}
    }
}

/// `true` when `body` (a macro's braces' contents) begins as Rust items do: an attribute,
/// a doc or other comment, a visibility or an item keyword, or nothing. tokio's
/// `cfg_metrics_variant! { stable: { .. }, unstable: { .. } }` begins with a label and is
/// not items.
fn starts_with_item(body: &str) -> bool {
    let t = body.trim_start();
    if t.is_empty() || t.starts_with("#[") || t.starts_with("//") || t.starts_with("/*") {
        return true;
    }
    let word: String = t
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    matches!(
        word.as_str(),
        "pub"
            | "fn"
            | "struct"
            | "enum"
            | "union"
            | "trait"
            | "impl"
            | "mod"
            | "use"
            | "const"
            | "static"
            | "type"
            | "async"
            | "unsafe"
            | "extern"
            | "macro_rules"
    ) || (t[word.len()..].trim_start().starts_with('!') && !word.is_empty())
}

/// `text` with the wrapper of every item-level `cfg_*! { ... }` block blanked out (the
/// macro's name, `!` and both braces become spaces; line breaks stay), so its items parse
/// as items at the same bytes, lines and columns; `None` when `root` has no such block.
///
/// Item level: directly in a file, a `mod` body, or an `impl` or `trait` body. Only macros
/// named `cfg_*` are unwrapped: by the convention of tokio and futures they take items and
/// emit them unchanged under a `#[cfg]`. `cfg_if!` (`if #[cfg(..)] { .. } else { .. }`) and
/// other item macros (`lazy_static!`, `bitflags!`, `macro_rules!`) have their own syntax
/// and are left alone.
fn unwrap_cfg_blocks(root: Node<'_>, text: &str) -> Option<String> {
    let mut blanks: Vec<std::ops::Range<usize>> = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            match child.kind() {
                "macro_invocation" => {
                    let is_cfg = child
                        .child_by_field_name("macro")
                        .filter(|m| m.kind() == "identifier")
                        .and_then(|m| text.get(m.byte_range()))
                        .is_some_and(|name| name.starts_with("cfg_") && name != "cfg_if");
                    let body = child
                        .named_child(child.named_child_count().saturating_sub(1) as u32)
                        .filter(|b| b.kind() == "token_tree");
                    if let (true, Some(body)) = (is_cfg, body) {
                        let (open, close) = (body.start_byte(), body.end_byte());
                        if text.as_bytes().get(open) == Some(&b'{')
                            && close > open
                            && text.as_bytes().get(close - 1) == Some(&b'}')
                            && starts_with_item(&text[open + 1..close - 1])
                        {
                            blanks.push(child.start_byte()..open + 1);
                            blanks.push(close - 1..close);
                        }
                    }
                }
                "mod_item" | "impl_item" | "trait_item" => {
                    if let Some(b) = child.child_by_field_name("body") {
                        stack.push(b);
                    }
                }
                _ => {}
            }
        }
    }
    if blanks.is_empty() {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    for r in blanks {
        for b in &mut bytes[r] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only ASCII bytes of the wrapper (name, `!`, whitespace, braces) became spaces; a
    // multi-byte char there (a comment between name and brace) is blanked whole.
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_follow_the_crate_layout() {
        assert_eq!(module_path("src/lib.rs"), Vec::<String>::new());
        assert_eq!(module_path("src/math.rs"), vec!["math"]);
        assert_eq!(module_path("src/a/mod.rs"), vec!["a"]);
        assert_eq!(module_path("crates/x/src/a/b.rs"), vec!["a", "b"]);
        assert_eq!(module_path("build.rs"), vec!["build"]);
    }
}
