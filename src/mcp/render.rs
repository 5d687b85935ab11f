//! The compact text renderings of the tools' answers: the facts of the JSON document
//! (ids, kinds, lines, tiers, sites, counts, flags) without its keys and quoting, about a
//! third of its tokens, for models that read only a result's text. Ids carry the file
//! (`path::name`), so a row names its file once. Nothing here reads state; every function
//! turns one answer into lines.

use std::fmt::Write;
use std::sync::Arc;

use serde_json::Value;

use crate::index::impact::diff::DiffImpact;
use crate::index::impact::Impact;
use crate::index::paths::Paths;
use crate::index::search::Hit;
use crate::index::symbol::Hit as SymbolHit;
use crate::index::{CodeGraph, Edge, Subgraph, Tier, Walk};

fn tier(t: Tier) -> &'static str {
    match t {
        Tier::Syntax => "syntax",
        Tier::Local => "local",
        Tier::Import => "import",
        Tier::Qualified => "qualified",
        Tier::UniqueName => "unique_name",
    }
}

/// `a-b` or `a` for a one-line span.
fn span(a: u32, b: u32) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}-{b}")
    }
}

/// The sites of an edge, `file:line` for the first and `,line` for the others of the same
/// file.
fn sites(e: &Edge) -> String {
    let mut out = String::new();
    let mut last: Option<&str> = None;
    for s in &e.sites {
        if last == Some(&*s.file) {
            let _ = write!(out, ",{}", s.line);
        } else {
            if last.is_some() {
                out.push(' ');
            }
            let _ = write!(out, "{}:{}", s.file, s.line);
            last = Some(&s.file);
        }
    }
    out
}

/// `callers` / `callees`: a header, the nodes, then one line per edge.
pub fn subgraph(sub: &Subgraph, walk: Walk, cut: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} of {} (depth {}): {} nodes, {} edges",
        walk.as_str(),
        sub.root,
        sub.depth,
        sub.nodes.len(),
        sub.edges.len()
    );
    out.push_str("nodes (id kind lines):\n");
    for n in &sub.nodes {
        let _ = writeln!(
            out,
            "  {} {} {}",
            n.id,
            n.kind.as_str(),
            span(n.start_line, n.end_line)
        );
    }
    out.push_str("edges (caller -> callee relation tier sites):\n");
    for e in &sub.edges {
        let _ = writeln!(
            out,
            "  {} -> {} {} {} {}",
            e.source,
            e.target,
            e.relation.as_str(),
            tier(e.resolution),
            sites(e)
        );
    }
    if cut > 0 {
        let _ = writeln!(
            out,
            "truncated: {cut} more nodes left out by the limit (nearest kept)"
        );
    } else if sub.truncated {
        let _ = writeln!(
            out,
            "truncated: more {} beyond depth {}",
            walk.as_str(),
            sub.depth
        );
    }
    if sub.unresolved > 0 {
        let _ = writeln!(
            out,
            "unresolved: {} call sites could add to this (a lower bound)",
            sub.unresolved
        );
    }
    out
}

/// `search` hits, one per line.
pub fn search(query: &str, mode: &str, hits: &[Hit], more: bool) -> String {
    let mut out = format!("search {query:?} ({mode}): {} hits\n", hits.len());
    let rank = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
    for h in hits {
        let _ = writeln!(
            out,
            "  {} {} {}:{} score {:.4} (text {}, semantic {})",
            h.id,
            h.kind,
            h.path,
            span(h.start_line, h.end_line),
            h.score,
            rank(h.text_rank),
            rank(h.semantic_rank)
        );
    }
    if more {
        out.push_str("truncated: more hits exist (raise limit)\n");
    }
    out
}

/// `symbols` hits, one per line.
pub fn symbols(query: &str, hits: &[SymbolHit], more: bool) -> String {
    let mut out = format!(
        "symbols {query:?}: {} hits (id kind lines score)\n",
        hits.len()
    );
    for h in hits {
        let _ = writeln!(
            out,
            "  {} {} {} {}",
            h.node.id,
            h.node.kind.as_str(),
            span(h.node.start_line, h.node.end_line),
            h.score
        );
    }
    if more {
        out.push_str("truncated: more matches exist (raise limit)\n");
    }
    out
}

/// One impact@1, indented by `pad`.
fn impact_lines(i: &Impact, graph: &CodeGraph, pad: &str, out: &mut String) {
    let label = |id: &str| match graph.node(id) {
        Some(n) => format!("{id} {}", n.kind.as_str()),
        None => id.to_string(),
    };
    match &i.root {
        Some(r) => {
            let _ = writeln!(out, "{pad}impact of {}", label(r));
        }
        None => {
            let _ = writeln!(out, "{pad}impact of {} definitions", i.roots.len());
        }
    }
    let _ = writeln!(
        out,
        "{pad}callers: {} within depth {} ({} direct)",
        i.caller_count(),
        i.depth,
        i.direct_callers.len()
    );
    for (d, ids) in i.by_depth.iter().enumerate() {
        let _ = writeln!(out, "{pad}depth {}: {}", d + 1, ids.join(" "));
    }
    let _ = writeln!(out, "{pad}files ({}): {}", i.files.len(), i.files.join(" "));
    let _ = writeln!(out, "{pad}tests ({}): {}", i.tests.len(), i.tests.join(" "));
    let _ = writeln!(
        out,
        "{pad}entry points ({}): {}",
        i.entry_points.len(),
        i.entry_points.join(" ")
    );
    let _ = writeln!(out, "{pad}risk: {} ({})", i.risk.as_str(), i.risk_rule);
    if i.lower_bound {
        let _ = writeln!(out, "{pad}lower bound: yes");
        for r in &i.lower_bound_reasons {
            let _ = writeln!(out, "{pad}  - {r}");
        }
    } else {
        let _ = writeln!(out, "{pad}lower bound: no");
    }
    let _ = writeln!(
        out,
        "{pad}truncated: {}",
        if i.truncated { "yes" } else { "no" }
    );
}

/// `impact` of a symbol.
pub fn impact(i: &Impact, graph: &CodeGraph) -> String {
    let mut out = String::new();
    impact_lines(i, graph, "", &mut out);
    out
}

/// `impact` of a diff.
pub fn diff_impact(d: &DiffImpact, graph: &CodeGraph) -> String {
    let mut out = String::new();
    if d.changed.is_empty() && d.removed.is_empty() {
        let _ = writeln!(out, "no indexed definition changed against {}", d.rev);
    }
    for (c, i) in d.changed.iter().zip(&d.impacts) {
        let lines: Vec<String> = c.lines.iter().map(|[a, b]| span(*a, *b)).collect();
        let _ = writeln!(out, "changed {} (lines {})", c.id, lines.join(", "));
        impact_lines(i, graph, "  ", &mut out);
    }
    for r in &d.removed {
        let _ = writeln!(
            out,
            "removed {} ({}, lines {} in {}): {} call sites still call it",
            r.id,
            r.kind,
            span(r.lines[0], r.lines[1]),
            d.rev,
            r.sites.len()
        );
        for s in &r.sites {
            let _ = writeln!(
                out,
                "  {} at {}:{}:{} ({})",
                s.caller, s.file, s.line, s.column, s.reason
            );
        }
    }
    for o in &d.outside {
        let lines: Vec<String> = o.lines.iter().map(|[a, b]| span(*a, *b)).collect();
        let _ = writeln!(
            out,
            "changed outside any definition: {} lines {}",
            o.file,
            lines.join(", ")
        );
    }
    if d.changed.len() + d.removed.len() > 1 {
        out.push_str("union:\n");
        impact_lines(&d.union, graph, "  ", &mut out);
    }
    out
}

/// `path`.
pub fn paths(p: &Paths) -> String {
    let mut out = String::new();
    match p.length {
        None => {
            let _ = writeln!(
                out,
                "no call path from {} to {} within depth {}",
                p.from, p.to, p.depth
            );
        }
        Some(len) => {
            let _ = writeln!(
                out,
                "{}{} shortest paths from {} to {} ({len} hops):",
                p.paths.len(),
                if p.more { "+" } else { "" },
                p.from,
                p.to
            );
            for path in &p.paths {
                let _ = writeln!(out, "  {}", path.join(" -> "));
            }
        }
    }
    if p.more {
        out.push_str("more paths of the same length exist (raise max)\n");
    }
    if p.truncated {
        out.push_str("truncated: the node cap cut the search\n");
    }
    out
}

/// `source`: a header line, then the text as it is in the file.
pub fn source(
    id: &str,
    file: &str,
    first: usize,
    last: usize,
    body: &str,
    changed: Option<bool>,
    left_out: usize,
) -> String {
    let mut out = format!("{id} {file}:{first}-{last}\n");
    if changed == Some(true) {
        out.push_str("(the file changed since the snapshot: lines may have moved)\n");
    }
    out.push_str(body);
    if left_out > 0 {
        let _ = writeln!(out, "truncated: {left_out} more lines left out");
    }
    out
}

/// `outline` of a file.
pub fn outline_file(
    path: &str,
    language: &str,
    lines: Option<u32>,
    rows: &[Row],
    total: usize,
) -> String {
    let mut out = format!("{path} ({language}");
    if let Some(l) = lines {
        let _ = write!(out, ", {l} lines");
    }
    let _ = writeln!(
        out,
        "): {total} definitions (kind name lines callers/callees: signature)"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{}{} {} {} {}/{}: {}",
            "  ".repeat(r.depth as usize + 1),
            r.kind,
            r.name,
            span(r.lines[0], r.lines[1]),
            r.callers,
            r.callees,
            r.signature
        );
    }
    if total > rows.len() {
        let _ = writeln!(out, "truncated: {} more definitions", total - rows.len());
    }
    out
}

/// `outline` of a folder.
pub fn outline_folder(
    path: &str,
    files: usize,
    defs: usize,
    entries: &[&Entry],
    total: usize,
) -> String {
    let name = if path.is_empty() { "." } else { path };
    let mut out = format!(
        "{name}/: {files} files, {defs} definitions (entry files defs; most called: id callers)\n"
    );
    for e in entries {
        let top: Vec<String> = e.top.iter().map(|(id, _, n)| format!("{id} {n}")).collect();
        let _ = writeln!(
            out,
            "  {}{} {} {}{}{}",
            e.path,
            if e.folder { "/" } else { "" },
            e.files,
            e.definitions,
            if top.is_empty() { "" } else { "; " },
            top.join(", ")
        );
    }
    if total > entries.len() {
        let _ = writeln!(out, "truncated: {} more entries", total - entries.len());
    }
    out
}

/// `status`: the JSON's fields as `key: value` lines (it is small).
pub fn status(v: &Value) -> String {
    let mut out = String::new();
    if let Some(o) = v.as_object() {
        for (k, val) in o {
            let s = match val {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let _ = writeln!(out, "{k}: {s}");
        }
    }
    out
}

/// One definition of a file outline.
pub struct Row {
    /// Node id.
    pub id: Arc<str>,
    /// Kind name.
    pub kind: &'static str,
    /// Own name.
    pub name: Arc<str>,
    /// Nesting under the file: 0 top level.
    pub depth: u32,
    /// 1-based first and last line.
    pub lines: [u32; 2],
    /// The first line, trimmed.
    pub signature: String,
    /// Distinct callers and callees over `calls` and `references`.
    pub callers: usize,
    /// See `callers`.
    pub callees: usize,
}

/// One entry of a folder outline.
pub struct Entry {
    /// Repo-relative path of the file or sub-folder.
    pub path: String,
    /// A sub-folder.
    pub folder: bool,
    /// Indexed files in it (1 for a file).
    pub files: usize,
    /// Definitions in it.
    pub definitions: usize,
    /// Its most-called definitions: (id, kind, callers), most callers first.
    pub top: Vec<(Arc<str>, &'static str, usize)>,
}
