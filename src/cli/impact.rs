//! `codegraph-tui impact SYMBOL [--depth N] [--json]` and `impact --diff [REV]`.
//!
//! The engine is [`crate::index::impact`]; this file picks the symbol (exactly one match,
//! `docs/contracts.md#symbol-arguments`), runs `git diff` for `--diff`, and prints the answer as
//! `codegraph-tui/impact@1` JSON or as sanitized text with the risk rule, lower-bound
//! reasons and truncation always shown.

use std::path::Path;

use anyhow::{bail, Result};
use clap::Args;

use super::{output, walk};
use crate::index::impact::{self, diff, FsLines, Impact};
use crate::index::CodeGraph;

/// Arguments of `impact`.
#[derive(Debug, Args)]
pub struct ImpactArgs {
    /// Node id, qualified name or bare name (exactly one match). Not with --diff.
    #[arg(required_unless_present = "diff", conflicts_with = "diff")]
    pub symbol: Option<String>,
    /// Caller hops to follow (1 = direct callers only).
    #[arg(long, default_value_t = impact::DEFAULT_DEPTH, value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub depth: u32,
    /// Impact of the changes in the working tree against REV (default HEAD), from
    /// `git diff`; untracked files count as new.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "HEAD")]
    pub diff: Option<String>,
    /// Print JSON (`codegraph-tui/impact@1`; with --diff `codegraph-tui/impact-diff@1`).
    #[arg(long)]
    pub json: bool,
}

/// Runs `impact`; `color` paints the text form as `callers`/`callees` do (ids bold, places
/// and notes dim, the risk in red, yellow or green).
pub(super) fn run(a: &ImpactArgs, graph: &CodeGraph, root: &Path, color: bool) -> Result<i32> {
    let lines = FsLines::new(root.to_path_buf());
    if let Some(rev) = &a.diff {
        let (changes, diff_text) = diff::git_changes(root, Some(rev))?;
        let removed = diff::removed_definitions(root, Some(rev), &diff_text, graph);
        let d = diff::diff_impact(graph, rev, &changes, removed, a.depth, &lines);
        if a.json {
            output::print_json(&d)?;
            return Ok(0);
        }
        let mut out = Vec::new();
        if d.changed.is_empty() && d.removed.is_empty() {
            out.push(format!(
                "no indexed definition changed against {}",
                output::sanitize(rev)
            ));
        }
        for (c, i) in d.changed.iter().zip(&d.impacts) {
            out.push(format!(
                "== changed {}  (lines {})",
                output::paint(&output::sanitize(&c.id), "1", color),
                spans(&c.lines)
            ));
            out.extend(
                describe(i, graph, color)
                    .into_iter()
                    .map(|l| format!("   {l}")),
            );
        }
        for r in &d.removed {
            out.push(format!(
                "== removed {}  ({}, lines {}-{} in {}): {} call site{} still call{} it",
                output::paint(&output::sanitize(&r.id), "1", color),
                r.kind,
                r.lines[0],
                r.lines[1],
                output::sanitize(rev),
                r.sites.len(),
                if r.sites.len() == 1 { "" } else { "s" },
                if r.sites.len() == 1 { "s" } else { "" },
            ));
            out.extend(r.sites.iter().map(|c| {
                format!(
                    "   {}  {}",
                    output::sanitize(&c.caller),
                    output::paint(
                        &format!(
                            "at {}:{}:{} ({})",
                            output::sanitize(&c.file),
                            c.line,
                            c.column,
                            c.reason
                        ),
                        "2",
                        color
                    )
                )
            }));
        }
        for o in &d.outside {
            out.push(format!(
                "changed outside any definition: {} lines {}",
                output::sanitize(&o.file),
                spans(&o.lines)
            ));
        }
        let callers_of_removed: usize = d.removed.iter().map(|r| r.callers.len()).sum();
        if d.changed.len() + callers_of_removed > 1 {
            out.push(if d.removed.is_empty() {
                format!("== union of {} changed definitions", d.changed.len())
            } else {
                format!(
                    "== union of {} changed definitions and the callers of {} removed ones",
                    d.changed.len(),
                    d.removed.len()
                )
            });
            out.extend(
                describe(&d.union, graph, color)
                    .into_iter()
                    .map(|l| format!("   {l}")),
            );
        }
        output::print_lines(&out)?;
        return Ok(0);
    }
    let Some(symbol) = &a.symbol else {
        bail!("impact needs a SYMBOL or --diff");
    };
    let node = walk::pick(graph, symbol)?;
    let Some(i) = impact::impact(graph, &node.id, a.depth, &lines) else {
        bail!("{} vanished from the graph", node.id);
    };
    if a.json {
        output::print_json(&i)?;
    } else {
        output::print_lines(&describe(&i, graph, color))?;
    }
    Ok(0)
}

fn spans(lines: &[[u32; 2]]) -> String {
    lines
        .iter()
        .map(|[a, b]| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The text form: every section, every flag, sanitized; painted when `color`.
fn describe(i: &Impact, graph: &CodeGraph, color: bool) -> Vec<String> {
    let s = |x: &str| output::sanitize(x).into_owned();
    let bold = |x: &str| output::paint(&s(x), "1", color);
    let dim = |x: String| output::paint(&x, "2", color);
    let label = |id: &str| match graph.node(id) {
        Some(n) => format!(
            "{}  {}",
            bold(id),
            dim(format!(
                "({}, {}:{})",
                n.kind.as_str(),
                s(&n.file),
                n.start_line
            ))
        ),
        None => bold(id),
    };
    let mut out = Vec::new();
    match &i.root {
        Some(r) => out.push(format!("impact of {}", label(r))),
        None => out.push(format!("impact of {} definitions", i.roots.len())),
    }
    out.push(format!(
        "callers: {} within depth {} ({} direct)",
        i.caller_count(),
        i.depth,
        i.direct_callers.len()
    ));
    for (d, ids) in i.by_depth.iter().enumerate() {
        out.push(format!("depth {}:", d + 1));
        out.extend(ids.iter().map(|id| format!("  {}", label(id))));
    }
    out.push(format!("files ({}):", i.files.len()));
    out.extend(i.files.iter().map(|f| format!("  {}", s(f))));
    out.push(format!("tests ({}):", i.tests.len()));
    out.extend(i.tests.iter().map(|t| format!("  {}", s(t))));
    if i.tests.is_empty() {
        out.push("  none: no test reaches this within the depth".into());
    }
    out.push(format!("entry points ({}):", i.entry_points.len()));
    out.extend(i.entry_points.iter().map(|t| format!("  {}", s(t))));
    let risk_code = match i.risk {
        impact::Risk::High => "31",
        impact::Risk::Medium => "33",
        impact::Risk::Low => "32",
    };
    out.push(format!(
        "risk: {}",
        output::paint(i.risk.as_str(), risk_code, color)
    ));
    out.push(dim(format!("  rule: {}", i.risk_rule)));
    if i.lower_bound {
        out.push("lower bound: yes, the real impact may be larger:".into());
        const SHOWN: usize = 10;
        out.extend(
            i.lower_bound_reasons
                .iter()
                .take(SHOWN)
                .map(|r| format!("  - {}", s(r))),
        );
        if i.lower_bound_reasons.len() > SHOWN {
            out.push(format!(
                "  ... and {} more (all of them in --json)",
                i.lower_bound_reasons.len() - SHOWN
            ));
        }
    } else {
        out.push("lower bound: no (no unresolved call could add a caller)".into());
    }
    out.push(if i.truncated {
        format!(
            "truncated: yes, callers exist beyond depth {} or the node cap",
            i.depth
        )
    } else {
        "truncated: no".into()
    });
    out
}
