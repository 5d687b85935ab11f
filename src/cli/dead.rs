//! `codegraph-tui dead [--json] [--limit N] [--path P]`: dead-code candidates.
//!
//! The engine is [`crate::index::dead`]; this file prints its answer as
//! `codegraph-tui/dead@1` JSON or as sanitized text, one candidate a line, the lower
//! bound (`maybe used`) said on each line it applies to.

use std::path::Path;

use anyhow::Result;
use clap::Args;

use super::output;
use crate::index::dead::dead_code;
use crate::index::impact::FsLines;
use crate::index::CodeGraph;

/// Arguments of `dead`.
#[derive(Debug, Args)]
pub struct DeadArgs {
    /// Print JSON (`codegraph-tui/dead@1`).
    #[arg(long)]
    pub json: bool,
    /// List at most N candidates (sorted by id).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
    /// Only definitions in files whose repo-relative path starts with P.
    #[arg(long, value_name = "P")]
    pub path: Option<String>,
}

/// Runs `dead`.
pub(super) fn run(a: &DeadArgs, graph: &CodeGraph, root: &Path, color: bool) -> Result<i32> {
    let lines = FsLines::new(root.to_path_buf());
    let limit = usize::try_from(a.limit).unwrap_or(usize::MAX);
    let d = dead_code(graph, &lines, a.path.as_deref(), limit);
    if a.json {
        output::print_json(&d)?;
        return Ok(0);
    }
    let mut out = vec![format!(
        "{} dead-code candidate{} ({} with no unresolved call of their name; the others \
         are maybe used)",
        d.total,
        if d.total == 1 { "" } else { "s" },
        d.certain
    )];
    for c in &d.candidates {
        let maybe = if c.maybe_used {
            format!(
                "  maybe used: {} unresolved call{} of its name",
                c.unresolved_calls,
                if c.unresolved_calls == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        };
        out.push(format!(
            "{} {}  {}:{}{}",
            c.kind,
            output::paint(&output::sanitize(&c.id), "1", color),
            output::sanitize(&c.file),
            c.line,
            output::paint(&maybe, "2", color)
        ));
    }
    if d.truncated {
        out.push(format!(
            "… {} more (--limit {})",
            d.total - d.candidates.len(),
            a.limit
        ));
    }
    output::print_lines(&out)?;
    Ok(0)
}
