//! `codegraph-tui callers|callees SYMBOL [--depth N] [--json]`.
//!
//! SYMBOL is a node id, a qualified name or a bare name; exactly one node must match
//! (`docs/contracts.md#symbol-arguments`). No match or several is an error listing candidates with their ids,
//! never a silent fuzzy substitute.

use std::collections::{HashMap, HashSet};

use anyhow::{bail, Result};
use clap::Args;

use super::output;
use crate::index::symbol::PickError;
use crate::index::{CodeGraph, Edge, Node, Walk};

/// Arguments of `callers` and `callees`.
#[derive(Debug, Args)]
pub struct WalkArgs {
    /// Node id, qualified name or bare name.
    pub symbol: String,
    /// Hops to follow (1 = direct only; 0 is refused, as by `impact` and `path`).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub depth: u32,
    /// Print the subgraph JSON (schema `codegraph-tui/subgraph@1`).
    #[arg(long)]
    pub json: bool,
}

pub use crate::index::symbol::SymbolError;

/// Resolves SYMBOL to exactly one node ([`crate::index::symbol::pick`]).
///
/// Errors: an empty (or all-blank) SYMBOL; a [`SymbolError`] (no match, with
/// suggestions, or several matches, all listed with ids), which [`super::run`] prints as
/// `{"error": ...}` with `--json`.
pub fn pick<'a>(graph: &'a CodeGraph, symbol: &str) -> Result<&'a Node> {
    match crate::index::symbol::pick(graph, symbol) {
        Ok(n) => Ok(n),
        Err(PickError::Empty) => bail!("{}", PickError::Empty),
        Err(PickError::Symbol(e)) => Err(e.into()),
    }
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
