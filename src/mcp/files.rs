//! The tools that read the repository's files (`source`, `outline`) and `status`.
//!
//! Every path they open is confined to the repository root: a repo-relative path with no
//! `..` and no root or drive prefix, joined to the root, canonicalized (which resolves
//! symlinks) and checked to lie under the canonical root ([`confine`]). A symlink that
//! leads out of the root, an absolute path or `../..` is refused with an error that says
//! so. File text is returned as text (invalid UTF-8 replaced), never interpreted.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};

use super::render::{self, Entry, Row};
use super::schema::{self, OutlineArgs, SourceArgs};
use super::state::{rfc3339, Resident, Served};
use super::tools::{self, answer_from, Answer, Outcome, ToolError};
use crate::index::facts::FileFacts;
use crate::index::symbol;
use crate::index::{CodeGraph, Kind, Relation, Walk};

/// The relations an outline counts as calls (the TUI's outline counts the same).
const CALLS: &[Relation] = &[Relation::Calls, Relation::References];

/// `rel` (repo-relative, `/`-separated) as a path under `root`, canonical.
///
/// Errors: an absolute path, a `..` component, a path that does not exist, or one that
/// leads out of the root once symlinks are resolved.
pub fn confine(root: &Path, rel: &str) -> Result<PathBuf, ToolError> {
    let p = Path::new(rel);
    for c in p.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => {
                return Err(ToolError::msg(format!(
                    "{rel:?} is outside the repository: paths may not contain \"..\""
                )))
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(ToolError::msg(format!(
                    "{rel:?} is absolute: give a path relative to the repository root"
                )))
            }
        }
    }
    let root = root
        .canonicalize()
        .map_err(|e| ToolError::msg(format!("the repository root cannot be read: {e}")))?;
    let full = root.join(p);
    let canon = full
        .canonicalize()
        .map_err(|e| ToolError::msg(format!("{rel:?} cannot be opened: {e}")))?;
    if !canon.starts_with(&root) {
        return Err(ToolError::msg(format!(
            "{rel:?} leads outside the repository (a symbolic link to {}): refused",
            canon.display()
        )));
    }
    Ok(canon)
}

/// `rel` cleaned to the graph's form: `/`-separated, no `.` components, no trailing `/`;
/// `""` for the root.
fn normal(rel: &str) -> String {
    rel.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// The facts of file `path` when the snapshot has them.
fn facts_of<'a>(served: &'a Served, path: &str) -> Option<&'a Arc<FileFacts>> {
    let files = &served.snapshot.index.files;
    files
        .binary_search_by(|f| f.path.as_str().cmp(path))
        .ok()
        .map(|i| &files[i])
}

/// `source`: the definition's lines plus `context` lines around, from the file as it is
/// now.
pub fn source(state: &Arc<Resident>, a: SourceArgs) -> Outcome {
    let served = tools::current(state)?;
    let graph: &CodeGraph = &served.snapshot.index.graph;
    let node = symbol::pick(graph, &a.symbol)?;
    let path = confine(state.root(), &node.file)?;
    let bytes = std::fs::read(&path)
        .map_err(|e| ToolError::msg(format!("{} cannot be read: {e}", node.file)))?;
    let changed = facts_of(&served, &node.file)
        .map(|f| blake3::hash(&bytes).to_hex().as_str() != f.content_hash);
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let context = a.context.unwrap_or(0) as usize;
    let first = (node.start_line as usize).saturating_sub(context).max(1);
    let mut last = (node.end_line as usize + context).min(lines.len());
    let mut left_out = 0;
    if last + 1 > first + schema::MAX_SOURCE_LINES {
        left_out = last + 1 - first - schema::MAX_SOURCE_LINES;
        last = first + schema::MAX_SOURCE_LINES - 1;
    }
    let body = if first <= last {
        let mut s = lines[first - 1..last].join("\n");
        s.push('\n');
        s
    } else {
        String::new()
    };
    let rendered = render::source(&node.id, &node.file, first, last, &body, changed, left_out);
    let result = json!({
        "id": node.id, "kind": node.kind.as_str(), "qualified_name": node.qualified_name,
        "file": node.file, "start_line": node.start_line, "end_line": node.end_line,
        "lines": [first, last], "text": body, "changed_on_disk": changed.unwrap_or(false),
    });
    let mut out = answer_from(state, served.clone(), result, rendered);
    if left_out > 0 {
        out.truncated = true;
        out.omitted.insert("lines", left_out);
    }
    Ok(out)
}

/// `outline`: a file's definitions, or a folder's entries.
pub fn outline(state: &Arc<Resident>, a: OutlineArgs) -> Outcome {
    let limit = tools::limit("limit", a.limit, schema::DEFAULT_OUTLINE)?;
    let served = tools::current(state)?;
    // Confined as given (an absolute path is refused, not read as relative), then
    // cleaned to the graph's form.
    let given = if a.path.trim().is_empty() {
        "."
    } else {
        a.path.as_str()
    };
    let disk = confine(state.root(), given)?;
    let rel = normal(&a.path);
    let graph: &CodeGraph = &served.snapshot.index.graph;
    if disk.is_file() {
        let Some(file) = graph.node(&rel).filter(|n| n.kind == Kind::File) else {
            return Err(ToolError::msg(format!(
                "{rel:?} is not indexed (an ignored, skipped or new file; `status` counts skips)"
            )));
        };
        let mut rows = file_rows(graph, &file.id);
        let total = rows.len();
        rows.truncate(limit);
        fill_signatures(&served, &disk, &rel, &mut rows);
        let lines = facts_of(&served, &rel).map(|f| f.lines);
        let text = render::outline_file(&rel, &file.language, lines, &rows, total);
        let defs: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({"id": r.id, "kind": r.kind, "name": r.name, "depth": r.depth,
                       "start_line": r.lines[0], "end_line": r.lines[1],
                       "signature": r.signature, "callers": r.callers, "callees": r.callees})
            })
            .collect();
        let mut result = json!({"path": rel, "type": "file", "language": file.language,
                                "definitions": defs});
        if let Some(l) = lines {
            result["lines"] = json!(l);
        }
        let mut out = answer_from(state, served.clone(), result, text);
        if total > rows.len() {
            out.truncated = true;
            out.omitted.insert("definitions", total - rows.len());
        }
        return Ok(out);
    }
    let (entries, files, defs) = folder_entries(graph, &rel);
    if files == 0 {
        return Err(ToolError::msg(format!(
            "no indexed file under {:?}",
            if rel.is_empty() { "." } else { &rel }
        )));
    }
    let total = entries.len();
    let shown: Vec<&Entry> = entries.iter().take(limit).collect();
    let text = render::outline_folder(&rel, files, defs, &shown, total);
    let list: Vec<Value> = shown
        .iter()
        .map(|e| {
            let top: Vec<Value> = e
                .top
                .iter()
                .map(|(id, kind, callers)| json!({"id": id, "kind": kind, "callers": callers}))
                .collect();
            json!({"path": e.path, "type": if e.folder { "folder" } else { "file" },
                   "files": e.files, "definitions": e.definitions, "top": top})
        })
        .collect();
    let result = json!({"path": rel, "type": "folder", "files": files,
                        "definitions_total": defs, "entries": list});
    let mut out = answer_from(state, served.clone(), result, text);
    if total > shown.len() {
        out.truncated = true;
        out.omitted.insert("entries", total - shown.len());
    }
    Ok(out)
}

/// The definitions of file `file` in source order, each after its container (a
/// depth-first walk over `contains` edges, members by first line).
fn file_rows(g: &CodeGraph, file: &str) -> Vec<Row> {
    let members = |id: &str| {
        let mut m: Vec<(u32, Arc<str>)> = g
            .edges_of(id, Walk::Callees, &[Relation::Contains])
            .into_iter()
            .filter_map(|e| g.node(&e.target).map(|n| (n.start_line, n.id.clone())))
            .collect();
        m.sort();
        m.into_iter().map(|(_, id)| id).collect::<Vec<_>>()
    };
    let mut rows = Vec::new();
    let mut stack: Vec<(Arc<str>, u32)> =
        members(file).into_iter().rev().map(|id| (id, 0)).collect();
    while let Some((id, depth)) = stack.pop() {
        let Some(n) = g.node(&id) else { continue };
        rows.push(Row {
            id: n.id.clone(),
            kind: n.kind.as_str(),
            name: n.name.clone(),
            depth,
            lines: [n.start_line, n.end_line],
            signature: String::new(),
            callers: g.neighbour_count(&id, Walk::Callers, CALLS),
            callees: g.neighbour_count(&id, Walk::Callees, CALLS),
        });
        stack.extend(members(&id).into_iter().rev().map(|m| (m, depth + 1)));
    }
    rows
}

/// Signatures from the snapshot's facts, else the definition's first line read from the
/// file (a cached graph served before its facts).
fn fill_signatures(served: &Served, disk: &Path, rel: &str, rows: &mut [Row]) {
    if let Some(f) = facts_of(served, rel) {
        let by_id: std::collections::HashMap<&str, &str> = f
            .definitions
            .iter()
            .map(|d| (&*d.id, d.signature.as_str()))
            .collect();
        for r in rows.iter_mut() {
            r.signature = by_id.get(&*r.id).copied().unwrap_or_default().to_string();
        }
        return;
    }
    let Ok(bytes) = std::fs::read(disk) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    for r in rows.iter_mut() {
        if let Some(l) = lines.get(r.lines[0] as usize - 1) {
            r.signature = l.trim().chars().take(240).collect();
        }
    }
}

/// Most-called definitions listed per folder entry.
const TOP: usize = 3;

/// The entries directly under folder `rel` (`""` the root), sub-folders first then files,
/// each by path; and the folder's file and definition counts.
fn folder_entries(g: &CodeGraph, rel: &str) -> (Vec<Entry>, usize, usize) {
    let prefix = if rel.is_empty() {
        String::new()
    } else {
        format!("{rel}/")
    };
    let mut entries: BTreeMap<(bool, String), Entry> = BTreeMap::new();
    let (mut files, mut defs) = (0, 0);
    for n in g.nodes() {
        let Some(rest) = n.file.strip_prefix(prefix.as_str()) else {
            continue;
        };
        let (name, folder) = match rest.split_once('/') {
            Some((dir, _)) => (dir, true),
            None => (rest, false),
        };
        let e = entries
            .entry((!folder, format!("{prefix}{name}")))
            .or_insert_with(|| Entry {
                path: format!("{prefix}{name}"),
                folder,
                files: 0,
                definitions: 0,
                top: Vec::new(),
            });
        if n.kind == Kind::File {
            e.files += 1;
            files += 1;
            continue;
        }
        e.definitions += 1;
        defs += 1;
        let callers = g.neighbour_count(&n.id, Walk::Callers, CALLS);
        if callers == 0 {
            continue;
        }
        let worse = |t: &(Arc<str>, &str, usize)| (std::cmp::Reverse(t.2), t.0.clone());
        let item = (n.id.clone(), n.kind.as_str(), callers);
        if e.top.len() < TOP || worse(&item) < worse(e.top.last().unwrap_or(&item)) {
            e.top.push(item);
            e.top.sort_by_key(worse);
            e.top.truncate(TOP);
        }
    }
    (entries.into_values().collect(), files, defs)
}

/// `status`: what is indexed, how current it is, the cache and the watcher.
pub fn status(state: &Arc<Resident>) -> Answer {
    let served = state.served();
    let notes = state.notes();
    let running = state.running();
    let st = match (&served, running, &notes.failed) {
        (None, _, Some(_)) => "failed",
        (None, _, None) => "indexing",
        (Some(_), Some(_), _) => "updating",
        (Some(_), None, _) => "ready",
    };
    let mut result = json!({
        "root": state.root().display().to_string(),
        "state": st,
        "cache": {
            "dir": state.cache_dir.as_ref().map(|d| d.display().to_string()),
            "read_only": notes.read_only,
            "note": notes.notice,
        },
        "watching": {
            "enabled": state.watching,
            "working": state.watching && notes.watch_error.is_none(),
            "error": notes.watch_error,
        },
        "last_update": served.as_ref().map(|s| rfc3339(s.indexed_at)),
    });
    if running.is_some() || served.is_none() {
        result["indexing"] = tools::indexing(state);
    }
    if let Some(f) = &notes.failed {
        result["error"] = json!(f);
    }
    if let Some(s) = &served {
        let idx = &s.snapshot.index;
        let stats = &idx.stats;
        result["generation"] = json!(s.snapshot.generation);
        result["counts"] = json!({
            "files_indexed": stats.files_indexed, "files_windowed": stats.files_windowed,
            "files_skipped": stats.files_skipped_binary + stats.files_skipped_too_large
                + stats.files_skipped_unsupported + stats.files_skipped_unreadable
                + stats.files_skipped_symlink + stats.files_skipped_special,
            "definitions": idx.graph.definition_count(), "edges": idx.graph.edge_count(),
            "edges_by_relation": idx.graph.edge_counts(),
            "call_sites": stats.call_sites, "lines": stats.lines,
            "unresolved_total": idx.graph.unresolved_count(),
        });
        result["languages"] = json!(stats.languages);
        result["unresolved"] = json!(stats.unresolved);
    }
    let text = render::status(&result);
    Answer {
        result,
        text,
        stale: running.is_some(),
        served,
        truncated: false,
        omitted: BTreeMap::new(),
    }
}
