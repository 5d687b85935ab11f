//! `codegraph-tui symbols QUERY [--limit N] [--json]`: fuzzy symbol search with nucleo's
//! matcher over names and qualified names (the better score wins; ties by id). The
//! definitions the query names exactly come first, as in the TUI's search box
//! ([`crate::index::CodeGraph::pinned_matches`]); the ranking is
//! [`crate::index::symbol::search`], which the MCP server's `symbols` tool calls too.

use super::output;
use crate::index::symbol::search;
use crate::index::CodeGraph;
use anyhow::Result;
use clap::Args;

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
