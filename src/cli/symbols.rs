//! `codegraph-tui symbols QUERY [--limit N] [--json]`: fuzzy symbol search with nucleo's
//! matcher over names and qualified names (the better score wins; ties by id). The
//! definitions the query names exactly come first, as in the TUI's search box
//! ([`crate::index::CodeGraph::pinned_matches`]).

use anyhow::Result;
use clap::Args;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use serde::Serialize;

use super::output;
use crate::index::{CodeGraph, Kind, Node};

/// Arguments of `symbols`.
#[derive(Debug, Args)]
pub struct SymbolsArgs {
    /// Fuzzy query (smart case; spaces separate words that must all match).
    pub query: String,
    /// Most hits to print.
    #[arg(long, default_value_t = 20, value_parser = super::positive)]
    pub limit: usize,
    /// Print JSON: `{"query", "hits": [node fields + "score"]}`.
    #[arg(long)]
    pub json: bool,
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
    use rayon::prelude::*;
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    // Scored on every thread, then only the best `limit` sorted: on the 1.17M
    // definitions of the fetch.sh Rust tree the scan takes 0.22 s on one thread, and a
    // sort of every hit would come on top.
    let mut hits: Vec<Hit<'a>> = graph
        .par_nodes()
        .filter(|n| n.kind != Kind::File)
        .map_init(
            || (Matcher::new(Config::DEFAULT), Vec::new()),
            |(matcher, buf), n| {
                let a = pattern.score(Utf32Str::new(&n.name, buf), matcher);
                let b = pattern.score(Utf32Str::new(&n.qualified_name, buf), matcher);
                a.max(b).map(|score| Hit { node: n, score })
            },
        )
        .flatten()
        .collect();
    let mut pinned: Vec<&str> = Vec::new();
    for n in graph.pinned_matches(query) {
        if !hits.iter().any(|h| h.node.id == n.id) {
            hits.push(Hit { node: n, score: 0 });
        }
        pinned.push(&n.id);
    }
    let is_pinned = |h: &Hit| pinned.contains(&&*h.node.id);
    let order = |x: &Hit, y: &Hit| {
        is_pinned(y)
            .cmp(&is_pinned(x))
            .then_with(|| y.score.cmp(&x.score))
            .then_with(|| x.node.id.cmp(&y.node.id))
    };
    // The order is total (ids are unique): the best `limit` are the same whichever way
    // they are picked.
    if hits.len() > limit && limit > 0 {
        hits.select_nth_unstable_by(limit - 1, order);
    }
    hits.truncate(limit);
    hits.sort_by(order);
    hits
}

pub(super) fn run(a: &SymbolsArgs, graph: &CodeGraph, color: bool) -> Result<i32> {
    if a.query.trim().is_empty() {
        anyhow::bail!("empty query: give a name or part of one");
    }
    let hits = search(graph, &a.query, a.limit);
    if a.json {
        output::print_json(&serde_json::json!({"query": a.query, "hits": hits}))?;
    } else {
        let lines: Vec<String> = hits
            .iter()
            .map(|h| {
                // A qualified name other nodes share (`@overload` stubs, a function defined
                // twice, two projects' copies) names none of them: the id does.
                let id = if graph.lookup(&h.node.qualified_name).len() > 1 {
                    format!("  id {}", output::sanitize(&h.node.id))
                } else {
                    String::new()
                };
                format!(
                    "{} {}  {}{}",
                    output::paint(&format!("{:<11}", h.node.kind.as_str()), "36", color),
                    output::paint(&output::sanitize(&h.node.qualified_name), "1", color),
                    output::paint(
                        &format!("{}:{}", output::sanitize(&h.node.file), h.node.start_line),
                        "2",
                        color
                    ),
                    output::paint(&id, "2", color)
                )
            })
            .collect();
        output::print_lines(&lines)?;
    }
    if hits.is_empty() {
        // Exit status 1 as grep's; say why on stderr, stdout stays the (empty) answer.
        eprintln!(
            "codegraph-tui: no symbol matches {:?}",
            output::sanitize(&a.query)
        );
        return Ok(1);
    }
    Ok(0)
}
