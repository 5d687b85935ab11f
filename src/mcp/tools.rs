//! The tool handlers: each parses its arguments, takes the newest snapshot from the
//! resident state, asks the engine the same question the CLI asks (the same functions:
//! [`symbol::pick`], [`symbol::search`], [`CodeGraph::walk`], [`impact::impact`],
//! [`diff::diff_impact`], [`paths::shortest_paths`], [`Searcher::search`]) and returns the
//! CLI's JSON document with its compact text rendering, cut at the tool's `limit`.
//!
//! Handlers are synchronous and run on the runtime's blocking pool; none holds a lock
//! while it computes. `source` and `outline`, the two that read repository files, are in
//! [`super::files`].
//!
//! [`Searcher::search`]: crate::index::search::Searcher::search

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use rmcp::model::JsonObject;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::render;
use super::schema::{self, ImpactArgs, PathArgs, SearchArgs, SearchMode, SymbolsArgs, WalkArgs};
use super::state::{rfc3339, Resident, Served};
use crate::index::impact::{self, diff, FsLines, Impact};
use crate::index::paths;
use crate::index::search::{Mode, Query};
use crate::index::symbol::{self, PickError};
use crate::index::{CodeGraph, Node, Subgraph, Walk};

/// A tool's answer: the CLI's document, its text rendering, the snapshot it came from and
/// what the limit cut.
#[derive(Debug)]
pub struct Answer {
    /// The document (`structuredContent.result`).
    pub result: Value,
    /// The compact text rendering of the same facts.
    pub text: String,
    /// The snapshot that answered (`None` only for `status` before the first one).
    pub served: Option<Served>,
    /// An update is running or the answer came from an older snapshot than the newest.
    pub stale: bool,
    /// The limit cut the result.
    pub truncated: bool,
    /// Per list, how many entries the limit left out.
    pub omitted: BTreeMap<&'static str, usize>,
}

/// A tool error (`isError: true`): the text an agent reads and the CLI's
/// `{"error": {...}}` object.
#[derive(Debug)]
pub struct ToolError {
    /// The message (candidates one per line for a symbol error).
    pub text: String,
    /// `{"error": {"message", ...}}`.
    pub structured: Value,
}

impl ToolError {
    /// An error with a message only.
    pub fn msg(text: impl Into<String>) -> ToolError {
        let text = text.into();
        ToolError {
            structured: json!({"error": {"message": text}}),
            text,
        }
    }
}

impl From<PickError> for ToolError {
    fn from(e: PickError) -> Self {
        match e {
            PickError::Empty => ToolError::msg(e.to_string()),
            PickError::Symbol(se) => {
                let text = se.to_string();
                let mut v = serde_json::to_value(&se).unwrap_or_else(|_| json!({}));
                v["message"] = Value::String(text.clone());
                ToolError {
                    text,
                    structured: json!({ "error": v }),
                }
            }
        }
    }
}

/// A tool's outcome.
pub type Outcome = Result<Answer, ToolError>;

/// The arguments of tool `name`. Arguments that do not fit the input schema are a tool
/// error the agent can correct (MCP 2025-11-25: input validation errors are tool
/// execution errors), not a protocol error.
pub fn parse<T: DeserializeOwned>(name: &str, args: JsonObject) -> Result<T, ToolError> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| ToolError::msg(format!("invalid arguments for {name}: {e}")))
}

/// `n`, or `default`, checked to be within 1..=[`schema::MAX_LIMIT`].
pub fn limit(name: &str, n: Option<usize>, default: usize) -> Result<usize, ToolError> {
    match n.unwrap_or(default) {
        0 => Err(ToolError::msg(format!("{name} must be at least 1"))),
        n if n > schema::MAX_LIMIT => Err(ToolError::msg(format!(
            "{name} is at most {}",
            schema::MAX_LIMIT
        ))),
        n => Ok(n),
    }
}

/// A depth of at least 1 (0 is refused, as by the CLI).
fn depth(d: Option<u32>, default: u32) -> Result<u32, ToolError> {
    match d.unwrap_or(default) {
        0 => Err(ToolError::msg("depth must be at least 1")),
        d => Ok(d),
    }
}

/// How long a tool call waits for the first snapshot before it answers "still
/// indexing": a warm start publishes the cached snapshot within about 0.1 s of the
/// handshake, which an agent's first call should not be refused for; a cold first index
/// takes longer, and then the call says so after this wait.
const FIRST_SNAPSHOT_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Waits up to [`FIRST_SNAPSHOT_WAIT`] for the first snapshot (with its facts, when
/// `full`); returns at once once there is one, or when indexing failed.
pub fn await_first(state: &Resident, full: bool) {
    let t = std::time::Instant::now();
    let ready = |s: &Resident| {
        if full {
            s.full().is_some()
        } else {
            s.served().is_some()
        }
    };
    while !ready(state) && state.notes().failed.is_none() && t.elapsed() < FIRST_SNAPSHOT_WAIT {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The newest snapshot, or the "still indexing" error with the progress.
pub fn current(state: &Resident) -> Result<Served, ToolError> {
    await_first(state, false);
    if let Some(s) = state.served() {
        return Ok(s);
    }
    Err(still_indexing(state))
}

/// The error of a tool that needs a snapshot before there is one.
pub fn still_indexing(state: &Resident) -> ToolError {
    let notes = state.notes();
    if let Some(failed) = notes.failed {
        return ToolError::msg(format!("indexing failed: {failed}"));
    }
    let indexing = indexing(state);
    let text = match state.running() {
        Some(r) if r.total > 0 => format!(
            "still indexing ({}, {} of {} files); try again shortly",
            r.phase.label(),
            r.done,
            r.total
        ),
        Some(r) => format!("still indexing ({}); try again shortly", r.phase.label()),
        None => "still indexing (starting); try again shortly".to_string(),
    };
    ToolError {
        structured: json!({"error": {"message": text, "indexing": indexing}}),
        text,
    }
}

/// `{phase, done, total}` of the run under way (`starting` before the first event).
pub fn indexing(state: &Resident) -> Value {
    match state.running() {
        Some(r) => json!({"phase": r.phase.label(), "done": r.done, "total": r.total}),
        None => json!({"phase": "walking", "done": 0, "total": 0}),
    }
}

/// An answer from `served`, stale while a run is under way.
fn answer(state: &Resident, served: Served, result: Value, text: String) -> Answer {
    Answer {
        result,
        text,
        stale: state.running().is_some(),
        served: Some(served),
        truncated: false,
        omitted: BTreeMap::new(),
    }
}

/// The `snapshot` object of an answer.
pub fn snapshot_json(a: &Answer, state: &Resident) -> Option<Value> {
    let s = a.served.as_ref()?;
    let mut v = json!({
        "generation": s.snapshot.generation,
        "indexed_at": rfc3339(s.indexed_at),
        "stale": a.stale,
    });
    if state.running().is_some() {
        v["indexing"] = indexing(state);
    }
    Some(v)
}

pub fn search(state: &Arc<Resident>, a: SearchArgs) -> Outcome {
    let limit = limit("limit", a.limit, schema::DEFAULT_HITS)?;
    let mut q = a.query.clone();
    for (key, value) in [("path", &a.path), ("lang", &a.lang), ("kind", &a.kind)] {
        if let Some(v) = value.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            q.push_str(&format!(" {key}:\"{}\"", v.replace('"', "")));
        }
    }
    let mode = match a.mode {
        SearchMode::Text => Mode::Text,
        SearchMode::Semantic => Mode::Semantic,
        SearchMode::Hybrid => Mode::Hybrid,
    };
    let parsed = Query::parse(&q);
    if parsed == Query::default() {
        return Err(ToolError::msg(
            "empty query: give words, a \"quoted phrase\" or a filter (path, lang, kind)",
        ));
    }
    if parsed.is_empty() && mode == Mode::Semantic {
        return Err(ToolError::msg(
            "a query of filters only has nothing to embed in mode semantic: add words, or use \
             mode text or hybrid",
        ));
    }
    await_first(state, true);
    let built = match state.searcher(mode) {
        Ok(Some(b)) => b,
        Ok(None) if state.served().is_some() => {
            return Err(ToolError::msg(
                "the search index needs the snapshot's facts, still loading; try again shortly",
            ))
        }
        Ok(None) => return Err(still_indexing(state)),
        Err(e) => return Err(ToolError::msg(e)),
    };
    let mut hits = built
        .searcher
        .search(&q, mode, limit + 1)
        .map_err(|e| ToolError::msg(format!("search failed: {e}")))?;
    let more = hits.len() > limit;
    hits.truncate(limit);
    let text = render::search(&q, mode.as_str(), &hits, more);
    let result = json!({"query": q, "mode": mode.as_str(), "hits": hits});
    let newest = state.full().map(|s| s.snapshot.generation);
    let mut out = answer(state, built.served.clone(), result, text);
    out.stale |= newest != Some(built.served.snapshot.generation);
    out.truncated = more;
    Ok(out)
}

pub fn symbols(state: &Arc<Resident>, a: SymbolsArgs) -> Outcome {
    if a.query.trim().is_empty() {
        return Err(ToolError::msg("empty query: give a name or part of one"));
    }
    let limit = limit("limit", a.limit, schema::DEFAULT_HITS)?;
    let served = current(state)?;
    let graph = &served.snapshot.index.graph;
    let mut hits = symbol::search(graph, &a.query, limit + 1);
    let more = hits.len() > limit;
    hits.truncate(limit);
    let text = render::symbols(&a.query, &hits, more);
    let result = json!({"query": a.query, "hits": hits});
    let mut out = answer(state, served.clone(), result, text);
    out.truncated = more;
    Ok(out)
}

pub fn walk(state: &Arc<Resident>, a: WalkArgs, walk: Walk) -> Outcome {
    let depth = depth(a.depth, 1)?;
    let limit = limit("limit", a.limit, schema::DEFAULT_NODES)?;
    let served = current(state)?;
    let graph: &CodeGraph = &served.snapshot.index.graph;
    let node = symbol::pick(graph, &a.symbol)?;
    let Some(mut sub) = graph.walk(&node.id, walk, depth) else {
        return Err(ToolError::msg(format!(
            "{} vanished from the graph",
            node.id
        )));
    };
    let cut = cut_subgraph(&mut sub, walk, limit);
    let text = render::subgraph(&sub, walk, cut);
    let result = serde_json::to_value(&sub).unwrap_or(Value::Null);
    let mut out = answer(state, served.clone(), result, text);
    if cut > 0 {
        out.truncated = true;
        out.omitted.insert("nodes", cut);
    }
    Ok(out)
}

/// Keeps the `limit` nodes nearest the root (breadth first; ties by id) and the edges
/// between them; marks the subgraph truncated when that cut anything. Returns how many
/// nodes were left out.
fn cut_subgraph(sub: &mut Subgraph, walk: Walk, limit: usize) -> usize {
    if sub.nodes.len() <= limit {
        return 0;
    }
    let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
    for e in &sub.edges {
        let (from, to) = if walk == Walk::Callers {
            (e.target.as_str(), e.source.as_str())
        } else {
            (e.source.as_str(), e.target.as_str())
        };
        next.entry(from).or_default().push(to);
    }
    let mut dist: HashMap<&str, usize> = HashMap::from([(sub.root.as_str(), 0)]);
    let mut queue = VecDeque::from([sub.root.as_str()]);
    while let Some(id) = queue.pop_front() {
        let d = dist[id];
        for &n in next.get(id).into_iter().flatten() {
            if !dist.contains_key(n) {
                dist.insert(n, d + 1);
                queue.push_back(n);
            }
        }
    }
    let mut order: Vec<(usize, &str)> = sub
        .nodes
        .iter()
        .map(|n| (dist.get(&*n.id).copied().unwrap_or(usize::MAX), &*n.id))
        .collect();
    order.sort_unstable();
    let keep: std::collections::HashSet<String> = order
        .iter()
        .take(limit)
        .map(|(_, id)| id.to_string())
        .collect();
    let before = sub.nodes.len();
    sub.nodes.retain(|n| keep.contains(&*n.id));
    sub.edges
        .retain(|e| keep.contains(&e.source) && keep.contains(&e.target));
    sub.truncated = true;
    before - sub.nodes.len()
}

pub fn impact_tool(state: &Arc<Resident>, a: ImpactArgs) -> Outcome {
    let depth = depth(a.depth, impact::DEFAULT_DEPTH)?;
    let limit = limit("limit", a.limit, schema::DEFAULT_IMPACT_IDS)?;
    let served = current(state)?;
    let graph: &CodeGraph = &served.snapshot.index.graph;
    let lines = FsLines::new(state.root().to_path_buf());
    let mut omitted = BTreeMap::new();
    let (result, text) = match (&a.symbol, &a.diff) {
        (Some(_), Some(_)) => {
            return Err(ToolError::msg("give either symbol or diff, not both"));
        }
        (None, None) => return Err(ToolError::msg("impact needs a symbol or a diff")),
        (Some(symbol), None) => {
            let node = symbol::pick(graph, symbol)?;
            let Some(mut i) = impact::impact(graph, &node.id, depth, &lines) else {
                return Err(ToolError::msg(format!(
                    "{} vanished from the graph",
                    node.id
                )));
            };
            cut_impact(&mut i, limit, &mut omitted);
            let text = render::impact(&i, graph);
            (serde_json::to_value(&i).unwrap_or(Value::Null), text)
        }
        (None, Some(rev)) => {
            let rev = if rev.trim().is_empty() {
                "HEAD"
            } else {
                rev.trim()
            };
            let (changes, diff_text) = diff::git_changes(state.root(), Some(rev))
                .map_err(|e| ToolError::msg(e.to_string()))?;
            let removed = diff::removed_definitions(state.root(), Some(rev), &diff_text, graph);
            let mut d = diff::diff_impact(graph, rev, &changes, removed, depth, &lines);
            let cut = |n: usize, what: &'static str, omitted: &mut BTreeMap<&str, usize>| {
                if n > limit {
                    *omitted.entry(what).or_insert(0) += n - limit;
                }
            };
            cut(d.changed.len(), "changed", &mut omitted);
            d.changed.truncate(limit);
            d.impacts.truncate(limit);
            cut(d.removed.len(), "removed", &mut omitted);
            d.removed.truncate(limit);
            cut(d.outside.len(), "outside", &mut omitted);
            d.outside.truncate(limit);
            for i in &mut d.impacts {
                cut_impact(i, limit, &mut omitted);
            }
            cut_impact(&mut d.union, limit, &mut omitted);
            let text = render::diff_impact(&d, graph);
            (serde_json::to_value(&d).unwrap_or(Value::Null), text)
        }
    };
    let mut out = answer(state, served.clone(), result, text);
    out.truncated = !omitted.is_empty();
    out.omitted = omitted;
    Ok(out)
}

/// Cuts each list of `i` at `limit` ids (`by_depth` as one list, the nearest depths
/// kept), counting what was left out in `omitted`.
fn cut_impact(i: &mut Impact, limit: usize, omitted: &mut BTreeMap<&'static str, usize>) {
    let mut cut = |v: &mut Vec<String>, what: &'static str| {
        if v.len() > limit {
            *omitted.entry(what).or_insert(0) += v.len() - limit;
            v.truncate(limit);
        }
    };
    cut(&mut i.direct_callers, "direct_callers");
    cut(&mut i.files, "files");
    cut(&mut i.tests, "tests");
    cut(&mut i.entry_points, "entry_points");
    cut(&mut i.lower_bound_reasons, "lower_bound_reasons");
    let mut room = limit;
    let mut left = 0;
    for ids in &mut i.by_depth {
        let keep = ids.len().min(room);
        left += ids.len() - keep;
        ids.truncate(keep);
        room -= keep;
    }
    i.by_depth.retain(|ids| !ids.is_empty());
    if left > 0 {
        *omitted.entry("callers").or_insert(0) += left;
    }
    if !omitted.is_empty() {
        i.truncated = true;
    }
}

pub fn path(state: &Arc<Resident>, a: PathArgs) -> Outcome {
    let depth = depth(a.depth, paths::DEFAULT_PATH_DEPTH)?;
    let max = a.max.unwrap_or(paths::DEFAULT_MAX_PATHS);
    if !(1..=100).contains(&max) {
        return Err(ToolError::msg("max must be between 1 and 100"));
    }
    let served = current(state)?;
    let graph: &CodeGraph = &served.snapshot.index.graph;
    let from: &Node = symbol::pick(graph, &a.from)?;
    let to: &Node = symbol::pick(graph, &a.to)?;
    let Some(p) = paths::shortest_paths(graph, &from.id, &to.id, depth, max) else {
        return Err(ToolError::msg(format!(
            "{} or {} vanished from the graph",
            from.id, to.id
        )));
    };
    let text = render::paths(&p);
    let result = serde_json::to_value(&p).unwrap_or(Value::Null);
    Ok(answer(state, served.clone(), result, text))
}

/// As [`answer`], for the handlers of [`super::files`].
pub fn answer_from(state: &Resident, served: Served, result: Value, text: String) -> Answer {
    answer(state, served, result, text)
}
