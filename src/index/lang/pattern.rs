//! `tags.scm` patterns read into trees of steps that the matcher (`lang::matcher`) matches
//! directly.
//!
//! Each top-level pattern of the query is cut out of the source by [`outline`], which
//! numbers patterns and captures as tree-sitter's `Query` does (patterns in text order,
//! captures by first appearance; a test checks both against a compiled `Query` for every
//! shipped language), tokenized with the reader of [`super::roots`], and resolved against
//! the grammar: node kinds become kind ids (`Language::id_for_node_kind`), field names
//! field ids, capture names capture indices. No `Query` is compiled for this: tree-sitter's
//! analysis of a whole `tags.scm` took about 280 ms of CPU per run on the npm corpus (the
//! TypeScript and TSX grammars), a tenth of the index.
//!
//! The subset read is what tree-sitter's query language offers minus quantifiers (`?`,
//! `*`, `+`), sibling sequences and supertypes, none of which the shipped queries use:
//! named and anonymous nodes, `(_)` and `_`, fields, negated fields (`!f`), alternations,
//! `.` anchors, several captures on one node, and the text predicates `#eq?`, `#match?`,
//! `#any-of?` with their `not-` and `any-` forms. A pattern outside it is reported with the
//! reason and left to tree-sitter's query cursor (see `Matcher` in `lang::matcher`).

use std::ops::Range;

use regex::bytes::Regex;

use tree_sitter::Language;

use super::roots::tokenize;

/// What a step's node must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KindTest {
    /// This (public) kind id: a named node `(identifier)` or an anonymous one `"."`.
    Kind(u16),
    /// `(_)`: any named node but `ERROR`.
    Named,
    /// `_`: any node but `ERROR`.
    Any,
}

/// One node of a pattern, with everything tree-sitter checks on it.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub test: KindTest,
    /// Field the node must sit in within its parent (0: any).
    pub field: u16,
    /// Fields the node must not have (`!name`).
    pub negated: Vec<u16>,
    /// `.` before the step: no named sibling may be skipped to reach it.
    pub immediate: bool,
    /// `.` after the step: the node must be its parent's last named child.
    pub last_child: bool,
    /// Capture indices of the `Query`, in the order written.
    pub captures: Vec<u32>,
    /// Whether tree-sitter keeps looking at later siblings after this step matched one
    /// (it splits its state when the step or a child step captures, or has child steps).
    pub enumerate: bool,
    /// Child steps, in sibling order; each is a list of alternatives.
    pub children: Vec<Vec<Step>>,
}

/// A text predicate on captured nodes (semantics of tree-sitter's Rust binding).
#[derive(Debug, Clone)]
pub(crate) enum Predicate {
    /// `#eq?` family against a literal.
    EqString {
        capture: u32,
        text: String,
        positive: bool,
        all: bool,
    },
    /// `#eq?` family between two captures.
    EqCapture {
        left: u32,
        right: u32,
        positive: bool,
        all: bool,
    },
    /// `#match?` family.
    Match {
        capture: u32,
        regex: Regex,
        positive: bool,
        all: bool,
    },
    /// `#any-of?` / `#not-any-of?`.
    AnyOf {
        capture: u32,
        values: Vec<String>,
        positive: bool,
    },
}

/// One top-level pattern: its alternative roots (one unless the pattern is `[...]`).
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    /// The pattern's index in the compiled `Query`.
    pub index: u32,
    pub roots: Vec<Step>,
    pub predicates: Vec<Predicate>,
}

/// The top-level patterns of a query text and its capture names, numbered as a compiled
/// tree-sitter `Query` numbers them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outline {
    /// Byte range of each top-level pattern in the text (from its opening bracket to the
    /// end of its last capture or quantifier), in text order: index = pattern index.
    pub patterns: Vec<Range<usize>>,
    /// Capture names without `@`, in order of first appearance: index = capture index.
    pub captures: Vec<String>,
}

/// Outlines query `source`: where each top-level pattern starts and ends, and the capture
/// names. A top-level `(`, `[`, string or `_` starts a pattern; captures, quantifiers and
/// anchors at depth 0 belong to the pattern before them. Unbalanced text gives what it can;
/// the reader or the fallback query then reports the error.
pub(crate) fn outline(source: &str) -> Outline {
    let base = source.as_ptr() as usize;
    let mut patterns: Vec<Range<usize>> = Vec::new();
    let mut captures: Vec<String> = Vec::new();
    let mut depth = 0usize;
    for tok in tokenize(source) {
        let at = tok.as_ptr() as usize - base;
        let end = at + tok.len();
        let starts = depth == 0 && (tok == "(" || tok == "[" || tok == "_" || tok.starts_with('"'));
        match tok {
            "(" | "[" => depth += 1,
            ")" | "]" => depth = depth.saturating_sub(1),
            _ => {}
        }
        if let Some(name) = tok.strip_prefix('@') {
            if !captures.iter().any(|c| c == name) {
                captures.push(name.to_string());
            }
        }
        if starts {
            patterns.push(at..end);
        } else if let Some(last) = patterns.last_mut() {
            last.end = end;
        }
    }
    Outline { patterns, captures }
}

/// Reads every pattern of query `source` (outlined by [`outline`]). Returns the patterns
/// read and, for the others, (pattern index, why it cannot be read).
pub(crate) fn read_patterns(
    language: &Language,
    outline: &Outline,
    source: &str,
) -> (Vec<Pattern>, Vec<(usize, String)>) {
    let mut ok = Vec::new();
    let mut unsupported = Vec::new();
    for (i, range) in outline.patterns.iter().enumerate() {
        let text = source.get(range.clone()).unwrap_or("");
        let mut r = Reader {
            toks: tokenize(text),
            at: 0,
            language,
            captures: &outline.captures,
            predicates: Vec::new(),
        };
        match r.top(i as u32) {
            Ok(p) => ok.push(p),
            Err(why) => unsupported.push((i, why)),
        }
    }
    (ok, unsupported)
}

struct Reader<'a> {
    toks: Vec<&'a str>,
    at: usize,
    language: &'a Language,
    captures: &'a [String],
    predicates: Vec<Predicate>,
}

type Read<T> = Result<T, String>;

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.at).copied()
    }

    fn next(&mut self) -> Read<&'a str> {
        let t = self.peek().ok_or("unexpected end of pattern")?;
        self.at += 1;
        Ok(t)
    }

    fn expect(&mut self, tok: &str) -> Read<()> {
        match self.next()? {
            t if t == tok => Ok(()),
            t => Err(format!("expected {tok}, found {t}")),
        }
    }

    /// A whole top-level pattern, a grouping `((node) @cap (#pred ...))` included.
    fn top(&mut self, index: u32) -> Read<Pattern> {
        let roots = if self.peek() == Some("(")
            && self
                .toks
                .get(self.at + 1)
                .is_some_and(|t| *t == "(" || *t == "[")
        {
            // Grouping: one pattern and predicates.
            self.at += 1;
            let mut roots = None;
            while self.peek() != Some(")") {
                if self.is_predicate() {
                    self.predicate()?;
                } else if roots.is_none() {
                    roots = Some(self.element()?);
                } else {
                    return Err("a sequence of sibling patterns".into());
                }
            }
            self.expect(")")?;
            let roots = roots.ok_or("an empty group")?;
            self.suffix(roots)?
        } else {
            self.element()?
        };
        if let Some(t) = self.peek() {
            return Err(format!("unexpected {t} after the pattern"));
        }
        Ok(Pattern {
            index,
            roots,
            predicates: std::mem::take(&mut self.predicates),
        })
    }

    fn is_predicate(&self) -> bool {
        self.peek() == Some("(")
            && self
                .toks
                .get(self.at + 1)
                .is_some_and(|t| t.starts_with('#'))
    }

    /// One element (node, string, wildcard or alternation) with its captures: the list of
    /// its alternatives.
    fn element(&mut self) -> Read<Vec<Step>> {
        let t = self.next()?;
        let alts = match t {
            "[" => {
                let mut alts = Vec::new();
                while self.peek() != Some("]") {
                    if self.is_predicate() {
                        self.predicate()?;
                        continue;
                    }
                    alts.extend(self.element()?);
                }
                self.expect("]")?;
                if alts.is_empty() {
                    return Err("an empty alternation".into());
                }
                alts
            }
            "(" => vec![self.node()?],
            "_" => vec![self.leaf(KindTest::Any)],
            s if s.starts_with('"') => {
                let id = self.language.id_for_node_kind(&unquote(s), false);
                if id == 0 {
                    return Err(format!("unknown anonymous node {s}"));
                }
                vec![self.leaf(KindTest::Kind(id))]
            }
            t => return Err(format!("unexpected {t}")),
        };
        self.suffix(alts)
    }

    /// Captures after an element, added to each alternative; quantifiers are refused.
    fn suffix(&mut self, mut alts: Vec<Step>) -> Read<Vec<Step>> {
        while let Some(t) = self.peek() {
            if let Some(name) = t.strip_prefix('@') {
                let id = self.capture_id(name)?;
                for a in &mut alts {
                    a.captures.push(id);
                }
                self.at += 1;
            } else if matches!(t, "?" | "*" | "+") {
                return Err(format!("quantifier {t}"));
            } else {
                break;
            }
        }
        Ok(alts)
    }

    fn leaf(&self, test: KindTest) -> Step {
        Step {
            test,
            field: 0,
            negated: Vec::new(),
            immediate: false,
            last_child: false,
            captures: Vec::new(),
            enumerate: false,
            children: Vec::new(),
        }
    }

    /// The inside of `( ... )` after the opening bracket.
    fn node(&mut self) -> Read<Step> {
        let name = self.next()?;
        let test = match name {
            "_" => KindTest::Named,
            n if n.starts_with('#') => return Err(format!("predicate {n} in place of a node")),
            "MISSING" | "ERROR" => return Err(format!("({name}) nodes")),
            n if n.contains('/') => return Err(format!("supertype path {n}")),
            n => {
                let id = self.language.id_for_node_kind(n, true);
                if id == 0 || self.language.node_kind_is_supertype(id) {
                    return Err(format!("node kind {n} is unknown or a supertype"));
                }
                KindTest::Kind(id)
            }
        };
        let mut step = self.leaf(test);
        let mut immediate = false;
        loop {
            let Some(t) = self.peek() else {
                return Err("unclosed node".into());
            };
            if t == ")" {
                self.at += 1;
                if immediate {
                    // A trailing anchor: the last child step is the last named child.
                    match step.children.last_mut() {
                        Some(alts) => alts.iter_mut().for_each(|a| a.last_child = true),
                        None => return Err("an anchor in a node without children".into()),
                    }
                }
                break;
            }
            if t == "." {
                if immediate {
                    return Err("two anchors in a row".into());
                }
                immediate = true;
                self.at += 1;
                continue;
            }
            if let Some(f) = t.strip_prefix('!') {
                step.negated.push(self.field_id(f)?);
                self.at += 1;
                continue;
            }
            if self.is_predicate() {
                self.predicate()?;
                continue;
            }
            let field = match t.strip_suffix(':') {
                Some(f) => {
                    self.at += 1;
                    self.field_id(f)?
                }
                None => 0,
            };
            let prev_is_anonymous_wildcard = step
                .children
                .last()
                .is_some_and(|alts| alts.iter().any(|a| a.test == KindTest::Any));
            if immediate && prev_is_anonymous_wildcard {
                // tree-sitter lets `_ .` skip no anonymous node either: not modelled.
                return Err("an anchor after `_`".into());
            }
            let mut alts = self.element()?;
            for a in &mut alts {
                if field != 0 {
                    if a.field != 0 {
                        return Err("a field on a field".into());
                    }
                    a.field = field;
                }
                a.immediate |= immediate;
            }
            immediate = false;
            step.children.push(alts);
        }
        Ok(step)
    }

    fn field_id(&self, name: &str) -> Read<u16> {
        self.language
            .field_id_for_name(name)
            .map(|f| f.get())
            .ok_or_else(|| format!("unknown field {name}"))
    }

    fn capture_id(&self, name: &str) -> Read<u32> {
        self.captures
            .iter()
            .position(|n| n == name)
            .map(|i| i as u32)
            .ok_or_else(|| format!("unknown capture @{name}"))
    }

    /// `(#name? args...)`.
    fn predicate(&mut self) -> Read<()> {
        self.expect("(")?;
        let op = self.next()?;
        let mut args = Vec::new();
        while self.peek() != Some(")") {
            let t = self.next()?;
            args.push(match t.strip_prefix('@') {
                Some(c) => Arg::Capture(self.capture_id(c)?),
                None if t.starts_with('"') => Arg::Text(unquote(t)),
                None if t == "(" || t == "[" => return Err("a nested predicate argument".into()),
                None => Arg::Text(t.to_string()),
            });
        }
        self.expect(")")?;
        let op = op.trim_start_matches('#');
        let positive = !op.contains("not-");
        let all = !op.starts_with("any-") || op == "any-of?";
        let pred = match (op, args.as_slice()) {
            (
                "eq?" | "not-eq?" | "any-eq?" | "any-not-eq?",
                [Arg::Capture(left), Arg::Capture(right)],
            ) => Predicate::EqCapture {
                left: *left,
                right: *right,
                positive,
                all,
            },
            ("eq?" | "not-eq?" | "any-eq?" | "any-not-eq?", [Arg::Capture(c), Arg::Text(s)]) => {
                Predicate::EqString {
                    capture: *c,
                    text: s.clone(),
                    positive,
                    all,
                }
            }
            (
                "match?" | "not-match?" | "any-match?" | "any-not-match?",
                [Arg::Capture(c), Arg::Text(s)],
            ) => Predicate::Match {
                capture: *c,
                regex: Regex::new(s).map_err(|e| format!("regex {s}: {e}"))?,
                positive,
                all,
            },
            ("any-of?" | "not-any-of?", [Arg::Capture(c), rest @ ..]) => Predicate::AnyOf {
                capture: *c,
                values: rest
                    .iter()
                    .map(|a| match a {
                        Arg::Text(s) => Ok(s.clone()),
                        Arg::Capture(_) => Err("a capture in #any-of?".to_string()),
                    })
                    .collect::<Read<_>>()?,
                positive,
            },
            _ => return Err(format!("predicate #{op} with these arguments")),
        };
        self.predicates.push(pred);
        Ok(())
    }
}

enum Arg {
    Capture(u32),
    Text(String),
}

/// A query string literal without its quotes, escapes resolved as tree-sitter does
/// (`\n`, `\r`, `\t`, `\0`; any other escaped char stands for itself).
fn unquote(s: &str) -> String {
    let inner = s
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('0') => out.push('\0'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// Sets [`Step::enumerate`] on every step of `p`, as tree-sitter decides to split a state
/// (`contains_captures` or a child step; the grammar analysis that can mark a child step
/// as guaranteed is not reproduced, so a step with uncaptured children always enumerates).
pub(crate) fn finish(p: &mut Pattern) {
    fn walk(s: &mut Step) -> bool {
        let mut captures = !s.captures.is_empty();
        for alts in &mut s.children {
            for a in alts {
                captures |= walk(a);
            }
        }
        s.enumerate = captures || !s.children.is_empty();
        captures
    }
    for r in &mut p.roots {
        walk(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquote_resolves_escapes() {
        assert_eq!(unquote(r#""^\\(""#), r"^\(");
        assert_eq!(unquote(r#""a\"b\n""#), "a\"b\n");
    }
}
