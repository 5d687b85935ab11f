//! Impact analysis (`docs/contracts.md#impact1`): "what breaks if I change this?", answered
//! from real edges with its limits stated.
//!
//! For a target node, [`impact`] walks callers breadth-first over `calls` and `references`
//! edges (cycle-safe: every node is reached once, at its shortest distance; the depth and
//! node caps of [`CodeGraph::walk`]) and reports the direct callers, every caller grouped by distance, the files
//! touched, the tests and entry points among them (rules in [`recognize`]), and a
//! [`Risk`] level from the thresholds of [`RISK_RULE`]. It never guesses: when unresolved
//! call sites could be more callers, or dynamic dispatch could reach the target, the answer
//! says `lower_bound` with the reasons; when a depth or size cap cut it, `truncated`.
//! [`impact_union`] combines several targets (the changed symbols of a `git diff`, see
//! [`diff`]) as one multi-source walk.
//!
//! The engine reads source lines only to recognise attributes the facts do not keep
//! (`#[test]`, `@Test`, `pub`, `export`); that reading goes through a [`LineSource`], so
//! callers without files on disk pass [`NoLines`] and get the path and name rules only.

pub mod diff;
pub mod recognize;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::facts::Kind;
use super::graph::{CodeGraph, Node, Relation, UnresolvedReason, MAX_SUBGRAPH_NODES};

/// Schema tag of an impact answer.
pub const IMPACT_SCHEMA: &str = "codegraph-tui/impact@1";

/// Caller hops followed when the user does not say (`impact --depth`, the TUI's panel).
pub const DEFAULT_DEPTH: u32 = 5;

/// Callers (distinct nodes reached, the target excluded) from which the risk is `high`.
pub const HIGH_CALLERS: usize = 20;
/// Distinct files (the target's included) from which the risk is `high`.
pub const HIGH_FILES: usize = 6;
/// Callers from which the risk is at least `medium`.
pub const MEDIUM_CALLERS: usize = 5;
/// Files from which the risk is at least `medium`.
pub const MEDIUM_FILES: usize = 3;

/// The risk thresholds as printed in every answer. They are this project's own heuristic,
/// documented rather than measured, so a reader can check a verdict by hand: the size of
/// the caller set and its spread over files, plus whether a public entry point is reached.
pub const RISK_RULE: &str = "high: >= 20 callers or >= 6 files; medium: >= 5 callers, \
>= 3 files or any entry point reached; else low (callers = distinct nodes reached within \
the depth, target excluded; files include the target's)";

/// Risk level of a change (thresholds in [`RISK_RULE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    /// Few callers in few files, no entry point.
    Low,
    /// A handful of callers or files, or an entry point.
    Medium,
    /// Many callers or many files.
    High,
}

impl Risk {
    /// Applies [`RISK_RULE`].
    pub fn assess(callers: usize, files: usize, entry_points: usize) -> Risk {
        if callers >= HIGH_CALLERS || files >= HIGH_FILES {
            Risk::High
        } else if callers >= MEDIUM_CALLERS || files >= MEDIUM_FILES || entry_points > 0 {
            Risk::Medium
        } else {
            Risk::Low
        }
    }

    /// `low`, `medium` or `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }
}

/// One impact answer (`codegraph-tui/impact@1`, the JSON of `impact --json`). Every list
/// is sorted and de-duplicated, so equal inputs give equal bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Impact {
    /// Always [`IMPACT_SCHEMA`].
    pub schema: &'static str,
    /// The target node id; `null` for a union of several targets.
    pub root: Option<String>,
    /// Every target node id (one for a single target).
    pub roots: Vec<String>,
    /// Depth limit used, in call hops (1 = direct callers only).
    pub depth: u32,
    /// Ids of the callers at distance 1 (same as `by_depth[0]`).
    pub direct_callers: Vec<String>,
    /// Ids of the callers at distance 1, 2, ... (index `i` holds distance `i + 1`); a
    /// caller appears once, at its shortest distance. Targets never appear here.
    pub by_depth: Vec<Vec<String>>,
    /// Repo-relative paths of the files of the targets and of every caller.
    pub files: Vec<String>,
    /// Ids of the test files and test functions among the targets and callers.
    pub tests: Vec<String>,
    /// Ids of the entry points among the targets and callers (`main`, public API, file
    /// top-level code), tests excluded.
    pub entry_points: Vec<String>,
    /// Risk level from [`RISK_RULE`].
    pub risk: Risk,
    /// The thresholds applied ([`RISK_RULE`]).
    pub risk_rule: &'static str,
    /// `true` when the real impact may be larger than this answer (see the reasons).
    pub lower_bound: bool,
    /// Why the answer is a lower bound, one sentence each; empty when it is not.
    pub lower_bound_reasons: Vec<String>,
    /// `true` when the depth limit or the node cap of [`CodeGraph::walk`] cut the answer.
    pub truncated: bool,
}

impl Impact {
    /// Number of distinct callers (all depths).
    pub fn caller_count(&self) -> usize {
        self.by_depth.iter().map(Vec::len).sum()
    }
}

/// The text of one source file with its line starts: one allocation per file, lines
/// borrowed on demand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLines {
    text: String,
    starts: Vec<usize>,
}

impl SourceLines {
    /// Splits `text` at `\n` (a `\r` before it is dropped from the line).
    pub fn new(text: String) -> SourceLines {
        // Counted first (a loop the compiler vectorises), so the index is allocated once:
        // growing it would be a fifth of an impact question on large generated files.
        let newlines = text.bytes().filter(|&b| b == b'\n').count();
        let mut starts = Vec::with_capacity(newlines + 1);
        starts.push(0);
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        if starts.last() == Some(&text.len()) && starts.len() > 1 {
            starts.pop();
        }
        SourceLines { text, starts }
    }

    /// Number of lines (a final line without `\n` counts).
    pub fn len(&self) -> usize {
        if self.text.is_empty() {
            0
        } else {
            self.starts.len()
        }
    }

    /// `true` for an empty file.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Line `i` (0-based), without its line end.
    pub fn get(&self, i: usize) -> Option<&str> {
        if i >= self.len() {
            return None;
        }
        let end = self.starts.get(i + 1).copied().unwrap_or(self.text.len());
        let l = &self.text[self.starts[i]..end];
        let l = l.strip_suffix('\n').unwrap_or(l);
        Some(l.strip_suffix('\r').unwrap_or(l))
    }

    /// Every line, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// Where source lines come from, for the attribute rules of [`recognize`].
pub trait LineSource {
    /// The lines of a repo-relative file; `None` when unreadable.
    fn lines(&self, path: &str) -> Option<Arc<SourceLines>>;
}

/// A [`LineSource`] with no files: only the path and name rules apply.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoLines;

impl LineSource for NoLines {
    fn lines(&self, _: &str) -> Option<Arc<SourceLines>> {
        None
    }
}

/// A [`LineSource`] that reads files under a root directory once each, caching them.
/// Paths that would leave the root (`..`, absolute) are refused; invalid UTF-8 is
/// replaced (U+FFFD).
#[derive(Debug)]
pub struct FsLines {
    root: PathBuf,
    cache: Mutex<HashMap<String, Option<Arc<SourceLines>>>>,
}

impl FsLines {
    /// Reads files under `root` (the index root).
    pub fn new(root: impl Into<PathBuf>) -> FsLines {
        FsLines {
            root: root.into(),
            cache: Mutex::new(HashMap::new()),
        }
    }
}

impl LineSource for FsLines {
    fn lines(&self, path: &str) -> Option<Arc<SourceLines>> {
        let Ok(mut cache) = self.cache.lock() else {
            return None;
        };
        if let Some(v) = cache.get(path) {
            return v.clone();
        }
        let safe = !path.starts_with('/') && !path.split('/').any(|s| s == "..");
        let read = safe
            .then(|| std::fs::read(self.root.join(path)).ok())
            .flatten()
            .map(|b| {
                let text = String::from_utf8(b)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                Arc::new(SourceLines::new(text))
            });
        cache.insert(path.to_string(), read.clone());
        read
    }
}

/// The impact of changing `target` (a node id), callers followed up to `depth` hops.
/// `None` when `target` is not a node of `graph`. Builds an [`Impactor`] for this one
/// question; keep an [`Impactor`] to ask several.
pub fn impact(
    graph: &CodeGraph,
    target: &str,
    depth: u32,
    lines: &dyn LineSource,
) -> Option<Impact> {
    Impactor::new(graph).impact(target, depth, lines)
}

/// The combined impact of several targets (see [`Impactor::impact_union`]).
pub fn impact_union(
    graph: &CodeGraph,
    targets: &[String],
    depth: u32,
    lines: &dyn LineSource,
) -> Impact {
    Impactor::new(graph).impact_union(targets, depth, lines)
}

/// Impact questions over one graph. The unresolved call sites that could be callers come
/// from the graph's index of them by callee name
/// ([`CodeGraph::maybe_callers_named`], built once per graph), so each question costs the
/// size of its answer, not of the repository.
#[derive(Debug)]
pub struct Impactor<'g> {
    graph: &'g CodeGraph,
}

impl<'g> Impactor<'g> {
    /// Questions over `graph`.
    pub fn new(graph: &'g CodeGraph) -> Impactor<'g> {
        Impactor { graph }
    }

    /// The impact of changing `target` (a node id), callers followed up to `depth` hops.
    /// `None` when `target` is not a node.
    pub fn impact(&self, target: &str, depth: u32, lines: &dyn LineSource) -> Option<Impact> {
        let reach = self.reach(target, depth)?;
        Some(self.assemble(&[target.to_string()], depth, vec![reach], lines))
    }

    /// The combined impact of several targets: one multi-source walk, so a caller's
    /// distance is its shortest distance to any target, and targets are never listed as
    /// callers. Unknown ids are skipped; `root` is `null` unless exactly one target is known.
    pub fn impact_union(&self, targets: &[String], depth: u32, lines: &dyn LineSource) -> Impact {
        let mut roots: Vec<String> = targets
            .iter()
            .filter(|t| self.graph.node(t).is_some())
            .cloned()
            .collect();
        roots.sort();
        roots.dedup();
        let reaches = roots.iter().filter_map(|r| self.reach(r, depth)).collect();
        self.assemble(&roots, depth, reaches, lines)
    }

    /// Breadth-first over incoming `calls` and `references` edges, each node once at its
    /// shortest distance (cycle-safe), with the cuts of [`CodeGraph::walk`]: `truncated`
    /// when a node at the depth limit has unvisited callers, or when more than
    /// [`MAX_SUBGRAPH_NODES`] nodes would be reached.
    fn reach(&self, target: &str, depth: u32) -> Option<Reach> {
        let (reached, truncated) = self.graph.callers_within(
            target,
            depth,
            &[Relation::Calls, Relation::References],
            MAX_SUBGRAPH_NODES,
        )?;
        let dist = reached
            .into_iter()
            .map(|(n, d)| (n.id.to_string(), d))
            .collect();
        Some(Reach { dist, truncated })
    }

    fn assemble(
        &self,
        roots: &[String],
        depth: u32,
        reaches: Vec<Reach>,
        lines: &dyn LineSource,
    ) -> Impact {
        let graph = self.graph;
        let root_set: BTreeSet<&str> = roots.iter().map(String::as_str).collect();
        let mut dist: BTreeMap<String, u32> = BTreeMap::new();
        let mut truncated = false;
        for r in reaches {
            truncated |= r.truncated;
            for (id, d) in r.dist {
                if root_set.contains(id.as_str()) {
                    continue;
                }
                let e = dist.entry(id).or_insert(d);
                *e = (*e).min(d);
            }
        }
        let mut by_depth: Vec<Vec<String>> = Vec::new();
        for (id, d) in &dist {
            let i = (*d as usize).saturating_sub(1);
            if by_depth.len() <= i {
                by_depth.resize(i + 1, Vec::new());
            }
            by_depth[i].push(id.clone());
        }
        let involved: Vec<&Node> = roots
            .iter()
            .chain(dist.keys())
            .filter_map(|id| graph.node(id))
            .collect();
        let files: BTreeSet<String> = involved.iter().map(|n| n.file.to_string()).collect();
        let mut tests = BTreeSet::new();
        let mut entry_points = BTreeSet::new();
        for n in &involved {
            if recognize::is_test(graph, n, lines) {
                tests.insert(n.id.to_string());
            } else if recognize::is_entry_point(graph, n, lines) {
                entry_points.insert(n.id.to_string());
            }
        }
        let mut reasons = self.unresolved_reasons(&involved);
        for r in roots {
            if let Some(n) = graph.node(r) {
                reasons.extend(recognize::dynamic_dispatch(graph, n, lines));
            }
        }
        let risk = Risk::assess(dist.len(), files.len(), entry_points.len());
        Impact {
            schema: IMPACT_SCHEMA,
            root: (roots.len() == 1).then(|| roots[0].clone()),
            roots: roots.to_vec(),
            depth,
            direct_callers: by_depth.first().cloned().unwrap_or_default(),
            by_depth,
            files: files.into_iter().collect(),
            tests: tests.into_iter().collect(),
            entry_points: entry_points.into_iter().collect(),
            risk,
            risk_rule: RISK_RULE,
            lower_bound: !reasons.is_empty(),
            lower_bound_reasons: reasons,
            truncated,
        }
    }

    /// One reason per (callee name, reason) for unresolved call sites anywhere in the
    /// repo whose callee name is the name of a node the traversal reached (targets
    /// included) and whose reason is `ambiguous` or `not_found`: each could be one more
    /// caller. `external` references name things outside the repo and cannot be callers.
    fn unresolved_reasons(&self, involved: &[&Node]) -> Vec<String> {
        let names: BTreeSet<&str> = involved
            .iter()
            .filter(|n| n.kind != Kind::File)
            .map(|n| &*n.name)
            .collect();
        // The first site (by file, then line and column as numbers) of each group is kept
        // as a reference and formatted once: common names (`new`, `get`) have thousands of
        // unresolved sites.
        type First<'u> = (&'u str, u32, u32);
        let mut groups: BTreeMap<(&str, UnresolvedReason), (usize, First<'_>)> = BTreeMap::new();
        for name in names {
            for u in self.graph.maybe_callers_named(name) {
                let site = (&*u.site.file, u.site.line, u.site.column);
                let g = groups.entry((&*u.name, u.reason)).or_insert((0, site));
                g.0 += 1;
                if site < g.1 {
                    g.1 = site;
                }
            }
        }
        groups
            .into_iter()
            .map(|((name, reason), (count, (file, line, column)))| {
                let first = format!("{file}:{line}:{column}");
                let what = match reason {
                    UnresolvedReason::Ambiguous => "ambiguous (several definitions match)",
                    _ => "not found (the qualifier points into the repo)",
                };
                let s = if count == 1 { "" } else { "s" };
                format!(
                    "{count} unresolved call site{s} named {name:?} could be more callers: \
                     {what}; first at {first}"
                )
            })
            .collect()
    }
}

/// Callers of one target with their distances.
struct Reach {
    dist: BTreeMap<String, u32>,
    truncated: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::graph::{Edge, Site, Tier, Unresolved};

    fn node(id: &str, kind: Kind) -> Node {
        let (file, name) = id.split_once("::").unwrap_or((id, id));
        Node {
            id: id.into(),
            kind,
            name: name.rsplit('.').next().unwrap_or(name).into(),
            qualified_name: name.into(),
            file: file.into(),
            start_line: 1,
            end_line: 2,
            language: "python".into(),
        }
    }

    fn edge(s: &str, t: &str, relation: Relation) -> Edge {
        Edge {
            source: s.into(),
            target: t.into(),
            relation,
            resolution: Tier::Local,
            confidence: Tier::Local.confidence(),
            sites: vec![Site {
                file: "a.py".into(),
                line: 1,
                column: 1,
            }],
        }
    }

    /// a <- b <- c <- b (cycle), a <-ref- cb (a callback reference), c <- tests/t.py::test_c.
    fn graph() -> CodeGraph {
        let f = Kind::Function;
        CodeGraph::build(
            vec![
                node("a.py::a", f),
                node("a.py::b", f),
                node("b.py::c", f),
                node("b.py::cb", f),
                node("tests/t.py::test_c", f),
                node("c.py::far", f),
            ],
            vec![
                edge("a.py::b", "a.py::a", Relation::Calls),
                edge("b.py::c", "a.py::b", Relation::Calls),
                edge("a.py::b", "b.py::c", Relation::Calls),
                edge("b.py::cb", "a.py::a", Relation::References),
                edge("tests/t.py::test_c", "b.py::c", Relation::Calls),
                edge("c.py::far", "tests/t.py::test_c", Relation::Calls),
            ],
            vec![Unresolved {
                caller: "c.py::far".into(),
                name: "b".into(),
                receiver: None,
                site: Site {
                    file: "c.py".into(),
                    line: 3,
                    column: 5,
                },
                reason: UnresolvedReason::Ambiguous,
            }],
        )
    }

    #[test]
    fn callers_by_depth_through_a_cycle_and_a_reference() {
        let i = impact(&graph(), "a.py::a", 10, &NoLines).unwrap();
        assert_eq!(i.direct_callers, ["a.py::b", "b.py::cb"]);
        assert_eq!(
            i.by_depth,
            vec![
                vec!["a.py::b".to_string(), "b.py::cb".into()],
                vec!["b.py::c".into()],
                vec!["tests/t.py::test_c".into()],
                vec!["c.py::far".into()],
            ]
        );
        assert_eq!(i.files, ["a.py", "b.py", "c.py", "tests/t.py"]);
        assert_eq!(i.tests, ["tests/t.py::test_c"]);
        assert!(!i.truncated);
        assert!(i.lower_bound, "an ambiguous call named b exists");
        assert_eq!(i.lower_bound_reasons.len(), 1);
        assert!(i.lower_bound_reasons[0].contains("c.py:3:5"));
        assert_eq!(i.risk, Risk::Medium, "4 files");
    }

    #[test]
    fn depth_cap_sets_truncated() {
        let i = impact(&graph(), "a.py::a", 1, &NoLines).unwrap();
        assert_eq!(i.by_depth.len(), 1);
        assert!(i.truncated);
        assert!(
            i.lower_bound,
            "the ambiguous call named b could call a.py::b"
        );
    }

    #[test]
    fn union_takes_shortest_distance_and_drops_targets() {
        let g = graph();
        let u = impact_union(&g, &["a.py::a".into(), "b.py::c".into()], 10, &NoLines);
        assert_eq!(u.root, None);
        assert_eq!(u.roots, ["a.py::a", "b.py::c"]);
        assert_eq!(
            u.by_depth,
            vec![
                vec![
                    "a.py::b".to_string(),
                    "b.py::cb".into(),
                    "tests/t.py::test_c".into()
                ],
                vec!["c.py::far".into()],
            ]
        );
        assert!(impact(&g, "nope", 3, &NoLines).is_none());
    }

    #[test]
    fn source_lines_split_like_lines() {
        for t in ["", "a", "a\n", "a\r\nb", "a\n\nb\n", "\n"] {
            let l = SourceLines::new(t.to_string());
            let want: Vec<&str> = t.lines().collect();
            assert_eq!(l.iter().collect::<Vec<_>>(), want, "{t:?}");
            assert_eq!(l.len(), want.len(), "{t:?}");
        }
    }

    #[test]
    fn risk_thresholds() {
        assert_eq!(Risk::assess(0, 1, 0), Risk::Low);
        assert_eq!(Risk::assess(4, 2, 0), Risk::Low);
        assert_eq!(Risk::assess(5, 1, 0), Risk::Medium);
        assert_eq!(Risk::assess(1, 3, 0), Risk::Medium);
        assert_eq!(Risk::assess(1, 1, 1), Risk::Medium);
        assert_eq!(Risk::assess(20, 1, 0), Risk::High);
        assert_eq!(Risk::assess(0, 6, 0), Risk::High);
    }
}
