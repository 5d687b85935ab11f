//! What a SYMBOL argument names, for every front end: [`pick`] resolves it to exactly one
//! node (`docs/contracts.md#symbol-arguments`) or says why not with the candidates and their
//! ids ([`SymbolError`]), never a silent fuzzy substitute; [`search`] is the fuzzy ranking
//! of `symbols` (nucleo's matcher over names and qualified names, the definitions the
//! query names exactly first). The CLI and the MCP server call the same functions, so an
//! agent and a shell user get the same answers and the same errors.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use serde::Serialize;

use super::{CodeGraph, Kind, Node};
use crate::termtext::sanitize;

/// Why SYMBOL could not be used: blank, or it did not name exactly one node.
#[derive(Debug, Clone)]
pub enum PickError {
    /// An empty or all-blank SYMBOL: not a name that matches nothing (suggestions for it
    /// would be arbitrary).
    Empty,
    /// No node or several nodes match.
    Symbol(SymbolError),
}

impl std::fmt::Display for PickError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PickError::Empty => write!(
                f,
                "empty SYMBOL: give a name, a qualified name or a node id"
            ),
            PickError::Symbol(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PickError {}

/// Why SYMBOL did not name exactly one node. Its `Display` is the CLI's message (the
/// candidates one per line); with `--json` the CLI prints it as `{"error": ...}`, and the
/// MCP server returns it as a tool error.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SymbolError {
    /// The SYMBOL as given.
    pub symbol: String,
    /// `not_found` or `ambiguous`.
    pub reason: &'static str,
    /// Ambiguous: every matching node. Not found: empty.
    pub candidates: Vec<Candidate>,
    /// Not found: the closest fuzzy matches, never used in its place. Ambiguous: empty.
    pub similar: Vec<Candidate>,
}

/// A node named in a [`SymbolError`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct Candidate {
    /// Node id.
    pub id: String,
    /// Node kind (`function`, `method`, ...).
    pub kind: &'static str,
    /// Repo-relative file.
    pub file: String,
    /// First line of the definition, 1-based.
    pub start_line: u32,
}

impl Candidate {
    /// The candidate entry of `n`.
    pub fn of(n: &Node) -> Candidate {
        Candidate {
            id: n.id.to_string(),
            kind: n.kind.as_str(),
            file: n.file.to_string(),
            start_line: n.start_line,
        }
    }
}

impl std::fmt::Display for SymbolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let symbol = sanitize(&self.symbol);
        if self.reason == "ambiguous" {
            write!(
                f,
                "{:?} matches {} symbols; use one of these ids:",
                symbol.as_ref(),
                self.candidates.len()
            )?;
            for c in &self.candidates {
                write!(
                    f,
                    "\n  {}  ({}, {}:{})",
                    sanitize(&c.id),
                    c.kind,
                    sanitize(&c.file),
                    c.start_line
                )?;
            }
            return Ok(());
        }
        write!(f, "no symbol matches {:?}", symbol.as_ref())?;
        if !self.similar.is_empty() {
            write!(f, "; similar names (not used):")?;
            for c in &self.similar {
                write!(f, "\n  {}  ({})", sanitize(&c.id), c.kind)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for SymbolError {}

/// Up to `n` definitions a mistyped `symbol` may have meant, best first: names equal to
/// it ignoring case, then names within 2 edits of it (Damerau-Levenshtein, ignoring
/// case; `echoo` for `echo`), then nucleo's fuzzy matches of the lowercased query. Each
/// node once.
fn similar<'a>(graph: &'a CodeGraph, symbol: &str, n: usize) -> Vec<&'a Node> {
    let want = symbol.to_lowercase();
    // The last segment of a qualified name is what gets mistyped most.
    let last = want.rsplit(['.', ':']).next().unwrap_or(&want);
    let mut close: Vec<(usize, &Node)> = graph
        .nodes()
        .filter(|n| n.kind != Kind::File)
        .filter_map(|node| {
            let name = node.name.to_lowercase();
            if name == last {
                return Some((0, node));
            }
            if last.chars().count() < 3 || name.len().abs_diff(last.len()) > 2 {
                return None;
            }
            let d = strsim::damerau_levenshtein(&name, last);
            (d <= 2).then_some((d, node))
        })
        .collect();
    close.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id)));
    let mut out: Vec<&Node> = Vec::new();
    for node in close
        .into_iter()
        .map(|(_, n)| n)
        .chain(search(graph, &want, n).into_iter().map(|h| h.node))
    {
        if out.len() == n {
            break;
        }
        if !out.iter().any(|o| o.id == node.id) {
            out.push(node);
        }
    }
    out
}

/// Resolves SYMBOL to exactly one node ([`crate::index::CodeGraph::lookup`]: id,
/// qualified name, qualified-name suffix, bare name, then a Rust path by crate folder or
/// Cargo package name, or a Go name by import path).
///
/// Errors: [`PickError::Empty`] for an empty (or all-blank) SYMBOL; a [`SymbolError`]:
/// no match (with suggestions, labelled as such: names equal ignoring case, within two
/// edits, then fuzzy matches) or several matches (all listed with ids).
pub fn pick<'a>(graph: &'a CodeGraph, symbol: &str) -> Result<&'a Node, PickError> {
    if symbol.trim().is_empty() {
        return Err(PickError::Empty);
    }
    let found = graph.lookup(symbol);
    if let [one] = found[..] {
        return Ok(one);
    }
    let err = if found.is_empty() {
        SymbolError {
            symbol: symbol.to_string(),
            reason: "not_found",
            candidates: Vec::new(),
            similar: similar(graph, symbol, 5)
                .into_iter()
                .map(Candidate::of)
                .collect(),
        }
    } else {
        SymbolError {
            symbol: symbol.to_string(),
            reason: "ambiguous",
            candidates: found.into_iter().map(Candidate::of).collect(),
            similar: Vec::new(),
        }
    };
    Err(PickError::Symbol(err))
}

/// One hit: the node and nucleo's score (higher is better).
#[derive(Debug, Serialize)]
pub struct Hit<'a> {
    /// The node's fields.
    #[serde(flatten)]
    pub node: &'a Node,
    /// nucleo score.
    pub score: u32,
}

/// Ranks every definition node against `query`; best first, ties broken by id. First
/// come the definitions the query names exactly
/// ([`crate::index::CodeGraph::pinned_matches`]): nucleo alone scores `FlaskTask` and
/// `Flask` the same for `Flask`.
pub fn search<'a>(graph: &'a CodeGraph, query: &str, limit: usize) -> Vec<Hit<'a>> {
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    // Pinned nodes are known by address: the lookup and the fuzzy matches hand out
    // references into the same node store. A comparison by id string inside the sort
    // took most of the time on the Rust tree's 100K+ hits of a common word.
    let pinned = graph.pinned_matches(query);
    let is_pinned = |n: &Node| pinned.iter().any(|p| std::ptr::eq(*p, n));
    // Scored once per distinct name on every thread (`CodeGraph::fuzzy_matches`), then
    // only the best `limit` sorted: a sort of every hit would come on top.
    let mut keyed: Vec<(bool, u32, &'a Node)> = graph
        .fuzzy_matches(&pattern)
        .into_iter()
        .map(|(node, score)| (!pinned.is_empty() && is_pinned(node), score, node))
        .collect();
    let matched: Vec<&Node> = keyed.iter().filter(|k| k.0).map(|k| k.2).collect();
    for &n in &pinned {
        if !matched.iter().any(|m| std::ptr::eq(*m, n)) {
            keyed.push((true, 0, n));
        }
    }
    let order = |x: &(bool, u32, &Node), y: &(bool, u32, &Node)| {
        y.0.cmp(&x.0)
            .then_with(|| y.1.cmp(&x.1))
            .then_with(|| x.2.id.cmp(&y.2.id))
    };
    // The order is total (ids are unique): the best `limit` are the same whichever way
    // they are picked.
    if keyed.len() > limit && limit > 0 {
        keyed.select_nth_unstable_by(limit - 1, order);
    }
    keyed.truncate(limit);
    keyed.sort_by(order);
    keyed
        .into_iter()
        .map(|(_, score, node)| Hit { node, score })
        .collect()
}
