//! The pattern matcher against tree-sitter's query cursor: the same matches in the same
//! order, and the same facts, on fixtures, subtle cases and (on request) any tree.

use tree_sitter::QueryCapture;

use super::matches::query_cursor_run;
use super::*;

/// (pattern index, captures as (capture index, node start, end, kind)) of each match.
type Matches = Vec<(usize, Vec<(u32, usize, usize, u16)>)>;

/// The matches of both engines over `text`.
fn both(spec: &'static LanguageSpec, text: &str) -> (Matches, Matches) {
    let c = lang::compiled(spec).unwrap();
    let mut parser = Parser::new();
    parser.set_language(&c.language).unwrap();
    let tree = parser.parse(text, None).unwrap();
    let mut cursor = QueryCursor::new();
    let mut run = |engine: Engine| {
        let mut out: Matches = Vec::new();
        let mut on_match = |p: usize, caps: &[QueryCapture<'_>]| {
            let caps = caps
                .iter()
                .map(|c| {
                    (
                        c.index,
                        c.node.start_byte(),
                        c.node.end_byte(),
                        c.node.kind_id(),
                    )
                })
                .collect();
            out.push((p, caps));
        };
        let src = text.as_bytes();
        match engine {
            Engine::Matcher => c
                .matcher
                .run(tree.root_node(), src, &mut cursor, &mut on_match),
            Engine::QueryCursor => {
                query_cursor_run(c, tree.root_node(), src, &mut cursor, &mut on_match)
            }
        }
        out
    };
    (run(Engine::Matcher), run(Engine::QueryCursor))
}

/// The first difference of two match lists, for a failure message.
fn first_difference(a: &Matches, b: &Matches) -> String {
    let i = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    format!(
        "{} vs {} matches; first difference at #{i}: matcher {:?}, query cursor {:?}",
        a.len(),
        b.len(),
        a.get(i),
        b.get(i)
    )
}

/// The matcher gives exactly the query cursor's matches (pattern, captures, order) and
/// therefore the same facts, on every fixture file.
#[test]
fn matcher_equals_query_cursor_on_fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let files = lang::grammar_files(&dir);
    assert!(files.len() >= 30, "only {} files", files.len());
    for (p, rel, spec) in files {
        let text = std::fs::read_to_string(&p).unwrap();
        let (a, b) = both(spec, &text);
        assert!(a == b, "{rel}: {}", first_difference(&a, &b));
        let o = ChunkOptions::default();
        let fa = extract_with(&rel, spec, &text, String::new(), 0, &o, Engine::Matcher);
        let fb = extract_with(&rel, spec, &text, String::new(), 0, &o, Engine::QueryCursor);
        assert_eq!(fa.unwrap(), fb.unwrap(), "{rel}");
    }
}

/// Cases where tree-sitter's choices are subtle, match by match: a field repeated
/// inside the field's own repetition (Go `field('name', commaSep1(..))`: only the first
/// name matches) or in a repetition of the field (`commaSep1(field('name', ..))`: every
/// name matches), anchors, anonymous nodes and predicates.
#[test]
fn matcher_equals_query_cursor_on_subtle_cases() {
    let cases: &[(&str, &str)] = &[
        (
            "go",
            "package a\nconst white, black = 0, -1\nvar x, y int\nfunc f(a, b int, c *T) {}\n",
        ),
        (
            "python",
            "from m import a, b as c\nimport x, y\ndef f(p, q=1):\n    \"\"\"Doc.\"\"\"\n    self.v = V()\n",
        ),
        (
            "rust",
            "fn f() { assert_eq!(g(x), s.len()); format!(\"{}\", a.b(c)); }\n",
        ),
        (
            "javascript",
            "const r = require('./a'), { b, c: d } = require('./e');\nexport default f;\nexport * from './z';\n",
        ),
        (
            "java",
            "class A { Runnable r = this::run; Object o = Map.Entry::getKey; }\n",
        ),
    ];
    for (name, text) in cases {
        let spec = lang::by_name(name).unwrap();
        let (a, b) = both(spec, text);
        assert!(!b.is_empty(), "{name}: no matches");
        assert!(a == b, "{name}: {}", first_difference(&a, &b));
    }
}

/// The same comparison over any tree: `CG_EQUIV_DIR=~/.cache/codegraph-corpus cargo
/// test --release --lib matcher_equals_query_cursor_on_dir -- --ignored --nocapture`.
#[test]
#[ignore = "needs CG_EQUIV_DIR"]
fn matcher_equals_query_cursor_on_dir() {
    let dir = std::path::PathBuf::from(std::env::var("CG_EQUIV_DIR").expect("CG_EQUIV_DIR"));
    let (mut files, mut matches, mut differ) = (0, 0, Vec::new());
    for (p, rel, spec) in lang::grammar_files(&dir) {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        if text.len() > 2_000_000 {
            continue;
        }
        let (a, b) = both(spec, &text);
        files += 1;
        matches += b.len();
        if a != b {
            eprintln!("{rel}: {}", first_difference(&a, &b));
            differ.push(rel);
        }
    }
    eprintln!("{files} files, {matches} matches, {} differ", differ.len());
    assert!(differ.is_empty(), "{differ:?}");
}

/// No shipped pattern needs tree-sitter's query cursor at run time.
#[test]
fn no_pattern_falls_back_to_the_query_cursor() {
    for spec in lang::LANGUAGES.iter().filter(|l| l.grammar.is_some()) {
        let c = lang::compiled(spec).unwrap();
        assert_eq!(c.matcher.fallback_patterns(), &[], "{}", spec.name);
    }
}
