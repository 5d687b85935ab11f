//! `codegraph-tui callers|callees SYMBOL [--depth N] [--json]`.
//!
//! SYMBOL is a node id, a qualified name or a bare name; exactly one node must match
//! (`docs/contracts.md#symbol-arguments`). No match or several is an error listing candidates with their ids,
//! never a silent fuzzy substitute.

use std::collections::{HashMap, HashSet};

use anyhow::{bail, Result};
use clap::Args;

use super::{output, symbols};
use crate::index::{CodeGraph, Edge, Kind, Node, Walk};

/// Arguments of `callers` and `callees`.
#[derive(Debug, Args)]
pub struct WalkArgs {
    /// Node id, qualified name or bare name.
    pub symbol: String,
    /// Hops to follow (1 = direct only; 0 is refused, as by `impact` and `path`).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: u32,
    /// Print the subgraph JSON (schema `codegraph-tui/subgraph@1`).
    #[arg(long)]
    pub json: bool,
}

/// Why SYMBOL did not name exactly one node. Its `Display` is the CLI's message (the
/// candidates one per line); with `--json` the CLI prints it as `{"error": ...}` (see
/// [`super::run`]).
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
    fn of(n: &Node) -> Candidate {
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
        let symbol = output::sanitize(&self.symbol);
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
                    output::sanitize(&c.id),
                    c.kind,
                    output::sanitize(&c.file),
                    c.start_line
                )?;
            }
            return Ok(());
        }
        write!(f, "no symbol matches {:?}", symbol.as_ref())?;
        if !self.similar.is_empty() {
            write!(f, "; similar names (not used):")?;
            for c in &self.similar {
                write!(f, "\n  {}  ({})", output::sanitize(&c.id), c.kind)?;
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
        .chain(symbols::search(graph, &want, n).into_iter().map(|h| h.node))
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
/// Errors: an empty (or all-blank) SYMBOL; a [`SymbolError`]: no match (with
/// suggestions, labelled as such: names equal ignoring case, within two edits, then fuzzy
/// matches) or several matches (all listed with ids).
pub fn pick<'a>(graph: &'a CodeGraph, symbol: &str) -> Result<&'a Node> {
    if symbol.trim().is_empty() {
        // Not a name that matches nothing: suggestions for it would be arbitrary.
        bail!("empty SYMBOL: give a name, a qualified name or a node id");
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
    Err(err.into())
}

pub(super) fn run(a: &WalkArgs, graph: &CodeGraph, walk: Walk, color: bool) -> Result<i32> {
    let node = pick(graph, &a.symbol)?;
    let Some(sub) = graph.walk(&node.id, walk, a.depth) else {
        bail!("{} vanished from the graph", node.id);
    };
    if a.json {
        output::print_json(&sub)?;
        return Ok(0);
    }
    let mut lines = tree_lines(&sub.root, &sub.nodes, &sub.edges, walk, a.depth, color);
    if sub.truncated {
        lines.push(format!("(truncated at depth {}: more {walk:?} exist)", a.depth).to_lowercase());
    }
    if sub.unresolved > 0 {
        lines.push(format!(
            "({} unresolved call sites could add to this: it is a lower bound)",
            sub.unresolved
        ));
    }
    output::print_lines(&lines)?;
    Ok(0)
}

/// An indented tree of at most `max_depth` levels under the root: each node's callers
/// (callees) listed under it once, where the node is nearest the root (its depth in the
/// JSON answer); its other occurrences are marked "(see above)" or "(see below)".
fn tree_lines<'a>(
    root: &'a str,
    nodes: &'a [Node],
    edges: &'a [Edge],
    walk: Walk,
    max_depth: u32,
    color: bool,
) -> Vec<String> {
    let by_id: HashMap<&str, &Node> = nodes.iter().map(|n| (&*n.id, n)).collect();
    let mut next: HashMap<&str, Vec<&Edge>> = HashMap::new();
    for e in edges {
        let from = if walk == Walk::Callers {
            e.target.as_str()
        } else {
            e.source.as_str()
        };
        next.entry(from).or_default().push(e);
    }
    let other = |e: &'a Edge| far_end(e, walk);
    // Shortest distance from the root (breadth first): where each node is expanded.
    let mut dist: HashMap<&str, usize> = HashMap::from([(root, 0)]);
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(id) = queue.pop_front() {
        let d = dist[id];
        for e in next.get(id).into_iter().flatten() {
            if let std::collections::hash_map::Entry::Vacant(v) = dist.entry(other(e)) {
                v.insert(d + 1);
                queue.push_back(other(e));
            }
        }
    }
    let mut out = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<(&str, usize, Option<&Edge>)> = vec![(root, 0, None)];
    while let Some((id, depth, via)) = stack.pop() {
        let n = by_id.get(id);
        let label = n.map_or(id.to_string(), |n| {
            format!("{} ({}:{})", n.qualified_name, n.file, n.start_line)
        });
        let how = via.map_or(String::new(), |e| {
            let site = e
                .sites
                .first()
                .map_or(String::new(), |s| format!(" at {}:{}", s.file, s.line));
            format!("  [{}{site}]", e.resolution_label())
        });
        let expand = dist.get(id) == Some(&depth) && seen.insert(id);
        let marker = match (expand, seen.contains(id)) {
            (true, _) => "",
            (false, true) => "  (see above)",
            (false, false) => "  (see below)",
        };
        // unique_name edges are guesses: dimmed, like the TUI shows them.
        let guess = via.is_some_and(|e| e.resolution == crate::index::Tier::UniqueName);
        out.push(format!(
            "{}{}{}{}",
            "  ".repeat(depth),
            output::paint(
                &output::sanitize(&label),
                if guess { "2" } else { "1" },
                color
            ),
            output::paint(&output::sanitize(&how), "2", color),
            marker
        ));
        if !expand || depth >= max_depth as usize {
            continue;
        }
        if let Some(es) = next.get(id) {
            for e in es.iter().rev() {
                stack.push((other(e), depth + 1, Some(e)));
            }
        }
    }
    out
}

/// The end of `e` a walk moves to: the caller when walking callers, else the callee.
fn far_end(e: &Edge, walk: Walk) -> &str {
    if walk == Walk::Callers {
        e.source.as_str()
    } else {
        e.target.as_str()
    }
}

trait Label {
    fn resolution_label(&self) -> String;
}

impl Label for Edge {
    fn resolution_label(&self) -> String {
        format!(
            "{} {}",
            self.relation.as_str(),
            serde_json::to_value(self.resolution)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        )
    }
}
