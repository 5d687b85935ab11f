//! `codegraph-tui path FROM TO [--depth N] [--max K] [--json]`: the shortest call paths
//! from one symbol to another (engine: [`crate::index::paths`]).
//!
//! Exit status 0 when a path exists, 1 when there is none within the depth (the JSON is
//! still printed, with `"length": null`), 2 on errors, like `grep`.

use anyhow::{bail, Result};
use clap::Args;

use super::{output, walk};
use crate::index::paths::{self, DEFAULT_MAX_PATHS, DEFAULT_PATH_DEPTH};
use crate::index::CodeGraph;

/// Arguments of `path`.
#[derive(Debug, Args)]
pub struct PathArgs {
    /// The caller end: node id, qualified name or bare name (exactly one match).
    pub from: String,
    /// The callee end: node id, qualified name or bare name (exactly one match).
    pub to: String,
    /// Longest path searched, in call hops.
    #[arg(long, default_value_t = DEFAULT_PATH_DEPTH, value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub depth: u32,
    /// Most distinct shortest paths listed.
    #[arg(long, default_value_t = DEFAULT_MAX_PATHS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100))]
    pub max: usize,
    /// Print JSON (`codegraph-tui/paths@1`).
    #[arg(long)]
    pub json: bool,
}

pub(super) fn run(a: &PathArgs, graph: &CodeGraph) -> Result<i32> {
    let from = walk::pick(graph, &a.from)?;
    let to = walk::pick(graph, &a.to)?;
    let Some(p) = paths::shortest_paths(graph, &from.id, &to.id, a.depth, a.max) else {
        bail!("{} or {} vanished from the graph", from.id, to.id);
    };
    let code = if p.length.is_some() { 0 } else { 1 };
    if a.json {
        output::print_json(&p)?;
        return Ok(code);
    }
    let s = |x: &str| output::sanitize(x).into_owned();
    let mut out = Vec::new();
    match p.length {
        None => {
            out.push(format!(
                "no call path from {} to {} within depth {}",
                s(&p.from),
                s(&p.to),
                p.depth
            ));
            if p.truncated {
                out.push("(the search was cut by the node cap: a path may exist beyond it)".into());
            }
            let back = paths::shortest_paths(graph, &to.id, &from.id, a.depth, 1);
            if let Some(len) = back.and_then(|b| b.length) {
                out.push(format!(
                    "(the other way round, {} reaches {} in {len} hops: try `path {} {}`)",
                    s(&p.to),
                    s(&p.from),
                    s(&a.to),
                    s(&a.from)
                ));
            }
        }
        Some(len) => {
            let n = p.paths.len();
            out.push(format!(
                "{n}{} shortest path{} from {} to {} ({len} hop{}):",
                if p.more { "+" } else { "" },
                if n == 1 { "" } else { "s" },
                s(&p.from),
                s(&p.to),
                if len == 1 { "" } else { "s" }
            ));
            for path in &p.paths {
                let ids: Vec<String> = path.iter().map(|id| s(id)).collect();
                out.push(format!("  {}", ids.join(" -> ")));
            }
            if p.more {
                out.push(format!(
                    "(more paths of the same length exist; --max {})",
                    a.max * 2
                ));
            }
        }
    }
    output::print_lines(&out)?;
    Ok(code)
}
