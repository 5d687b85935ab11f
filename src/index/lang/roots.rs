//! The node kinds at which a query's patterns start ("roots"), read from the query text,
//! and the query tokenizer that the pattern reader (`lang::pattern`) shares.
//!
//! Running a tree-sitter query cursor over a whole tree costs about half a parse on the
//! fetch.sh Rust corpus, whatever the patterns, because it checks every node against every
//! in-progress state. The reference engine (`extract_with_query_cursor`) and the matcher's
//! fallback for unsupported patterns therefore walk the tree once with a `TreeCursor` and
//! run the query only at nodes whose kind starts some pattern, with the cursor's start depth
//! limited to that node. Even so the cursor cost half a parse, so extraction proper uses
//! the matcher (`lang::matcher`), which needs no root list (it indexes its own patterns
//! by kind id).
//! A root the reader cannot name (a wildcard) makes the query run over the whole tree.

/// Root node kinds of every top-level pattern in `source`, or `None` when some pattern's
/// root is a wildcard or cannot be read.
pub(crate) fn root_kinds(source: &str) -> Option<Vec<String>> {
    let toks = tokenize(source);
    let mut roots = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match toks[i] {
            "(" | "[" => {
                let end = matching(&toks, i)?;
                pattern_roots(&toks[i..=end], &mut roots)?;
                i = end + 1;
            }
            _ => i += 1, // captures and quantifiers after a top-level pattern
        }
    }
    roots.sort();
    roots.dedup();
    Some(roots)
}

/// Roots of one top-level pattern `toks` (starting with `(` or `[`).
fn pattern_roots(toks: &[&str], out: &mut Vec<String>) -> Option<()> {
    if toks[0] == "[" {
        // Alternation: each alternative is a pattern.
        let mut i = 1;
        while i < toks.len() - 1 {
            match toks[i] {
                "(" | "[" => {
                    let end = i + matching(&toks[i..], 0)?;
                    pattern_roots(&toks[i..=end], out)?;
                    i = end + 1;
                }
                t if t.starts_with('"') => return None, // an anonymous-node root
                _ => i += 1,
            }
        }
        return Some(());
    }
    let head = *toks.get(1)?;
    if head == "(" || head == "[" {
        // Grouping: `((node ...) @cap (#pred ...))`: the roots are the grouped patterns
        // that are not predicates.
        let mut i = 1;
        while i < toks.len() - 1 {
            if toks[i] == "(" || toks[i] == "[" {
                let end = i + matching(&toks[i..], 0)?;
                if !toks.get(i + 1).is_some_and(|t| t.starts_with('#')) {
                    pattern_roots(&toks[i..=end], out)?;
                }
                i = end + 1;
            } else {
                i += 1;
            }
        }
        return Some(());
    }
    if head == "_" || head.starts_with('"') || head.starts_with('#') {
        return None;
    }
    out.push(head.to_string());
    Some(())
}

/// Index of the bracket closing the one at `open`.
fn matching(toks: &[&str], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match *t {
            "(" | "[" => depth += 1,
            ")" | "]" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits query text into brackets, strings (quotes kept) and words (`name`, `field:`,
/// `!field`, `@capture`, `#pred?`, `.`, `_`); drops `;` comments.
pub(crate) fn tokenize(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b';' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if matches!(c, b'(' | b')' | b'[' | b']') {
            out.push(&s[i..i + 1]);
            i += 1;
        } else if c == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.push(&s[start..i]);
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else {
            let start = i;
            while i < b.len()
                && !b[i].is_ascii_whitespace()
                && !matches!(b[i], b'(' | b')' | b'[' | b']' | b'"' | b';')
            {
                i += 1;
            }
            out.push(&s[start..i]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_roots_through_groups_alternations_and_predicates() {
        let q = r#"
            ; comment (not_a_root)
            (function_item name: (identifier) @name) @definition.function
            [(line_comment) (block_comment)] @comment
            ((token_tree (identifier) @call.name . (token_tree) @_args) @call
              (#match? @_args "^\\("))
            (export_statement "default" value: (identifier) @x)
        "#;
        assert_eq!(
            root_kinds(q).unwrap(),
            vec![
                "block_comment",
                "export_statement",
                "function_item",
                "line_comment",
                "token_tree"
            ]
        );
        assert_eq!(root_kinds("(_ (identifier) @x)"), None);
    }
}
