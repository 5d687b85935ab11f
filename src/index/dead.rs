//! Dead-code candidates: definitions nothing in the graph uses. A definition is a
//! candidate when no `calls`, `references`, `inherits` or `implements` edge ends at it
//! (for a type: nor at a member of it from outside, nor an `imports` edge),
//! it is not a test, an entry point or public API by its language's impact rules
//! ([`recognize`]: `main`, a script's guard, `pub`, exported or capitalised names, a
//! package's re-exports, `public` members), it is no constructor and its name is not one
//! the runtime calls by itself ([`ImpactRules::implicit_names`](crate::index::lang::ImpactRules):
//! Python's `__dunder__` methods) and it is no method of a trait implementation
//! ([`recognize::implements_trait`]: Rust's `impl Trait for Type`). A candidate whose name has unresolved calls somewhere
//! (any reason) is a lower bound: marked `maybe_used`, with their count.
//! The rule per language is in `docs/contracts.md#dead`.

use std::collections::HashMap;

use serde::Serialize;

use crate::index::facts::Kind;
use crate::index::graph::{CodeGraph, Node, Relation, Walk};
use crate::index::impact::{recognize, LineSource};
use crate::index::lang::{self, NamePattern};

/// Schema id of `dead --json`.
pub const DEAD_SCHEMA: &str = "codegraph-tui/dead@1";

/// Relations whose incoming edge makes a definition used.
const USES: [Relation; 4] = [
    Relation::Calls,
    Relation::References,
    Relation::Inherits,
    Relation::Implements,
];

/// One dead-code candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeadCandidate {
    /// Node id.
    pub id: String,
    /// Kind (`function`, `method`, `class`, ...).
    pub kind: &'static str,
    /// Repo-relative path.
    pub file: String,
    /// 1-based first line.
    pub line: u32,
    /// Unresolved calls anywhere of its name (any reason): each may be a use the graph
    /// does not show.
    pub unresolved_calls: usize,
    /// `unresolved_calls > 0`: the candidate is a lower bound, maybe used.
    pub maybe_used: bool,
}

/// The answer of `dead`.
#[derive(Debug, Clone, Serialize)]
pub struct Dead {
    /// [`DEAD_SCHEMA`].
    pub schema: &'static str,
    /// Candidates counted before the limit.
    pub total: usize,
    /// Of them, those with no unresolved call of their name.
    pub certain: usize,
    /// The candidates, sorted by id, at most the limit.
    pub candidates: Vec<DeadCandidate>,
    /// The limit cut the list.
    pub truncated: bool,
}

/// Kinds that can be dead (files, modules, namespaces and `impl` blocks are containers,
/// constants are read, not called, and their reads make no edge).
fn can_be_dead(k: Kind) -> bool {
    matches!(
        k,
        Kind::Function
            | Kind::Method
            | Kind::Class
            | Kind::Struct
            | Kind::Enum
            | Kind::Trait
            | Kind::Interface
            | Kind::TypeAlias
    )
}

/// Whether anything uses `n`: an edge of [`USES`] from elsewhere ends at it; for a type
/// (class, struct, enum, trait, interface), also an `imports` edge (Zig's
/// `@import("x.zig")` of a file that is its struct), or a use from outside the type of
/// one of its members (`DataUtil.read(..)` uses `DataUtil`, `new Inner(..)` reaches
/// `Inner` through its constructor), or a member that is a test or an entry point (the
/// runtime loads the type to run it: Java's `Main.main`).
fn used(graph: &CodeGraph, n: &Node, lines: &dyn LineSource) -> bool {
    let from_elsewhere = |id: &str, outside: &dyn Fn(&str) -> bool| {
        graph
            .edges_of(id, Walk::Callers, &USES)
            .iter()
            .any(|e| *e.target == *id && outside(&e.source))
    };
    if from_elsewhere(&n.id, &|s| s != &*n.id) {
        return true;
    }
    if !matches!(
        n.kind,
        Kind::Class | Kind::Struct | Kind::Enum | Kind::Trait | Kind::Interface
    ) {
        return false;
    }
    if graph
        .edges_of(&n.id, Walk::Callers, &[Relation::Imports])
        .iter()
        .any(|e| *e.target == *n.id)
    {
        return true;
    }
    let members: Vec<String> = graph
        .edges_of(&n.id, Walk::Callees, &[Relation::Contains])
        .iter()
        .filter(|e| *e.source == *n.id)
        .map(|e| e.target.to_string())
        .collect();
    let inside = |s: &str| s == &*n.id || members.iter().any(|m| m == s);
    members.iter().any(|m| {
        from_elsewhere(m, &|s| !inside(s))
            || graph.node(m).is_some_and(|c| {
                recognize::is_entry_point(graph, c, lines) || recognize::is_test(graph, c, lines)
            })
    })
}

/// The dead-code candidates of `graph` whose file starts with `path` (all when `None`),
/// sorted by id, at most `limit`. `lines` feeds the rules that read declarations
/// (visibility, exports, decorators).
pub fn dead_code(
    graph: &CodeGraph,
    lines: &dyn LineSource,
    path: Option<&str>,
    limit: usize,
) -> Dead {
    let mut unresolved: HashMap<&str, usize> = HashMap::new();
    // Every reason counts: a call `x.name()` on a receiver of unknown type is filed
    // `external`, yet may reach the repository's `name`.
    for u in graph.all_unresolved() {
        *unresolved.entry(&*u.name).or_default() += 1;
    }
    let mut found: Vec<&Node> = graph
        .nodes()
        .filter(|n| can_be_dead(n.kind))
        .filter(|n| path.is_none_or(|p| n.file.starts_with(p)))
        .filter(|n| {
            let spec = lang::spec_of(&n.language);
            !NamePattern::any(spec.impact.implicit_names, &n.name, &[])
        })
        .filter(|n| !used(graph, n, lines))
        .filter(|n| !recognize::is_test(graph, n, lines))
        .filter(|n| !recognize::is_entry_point(graph, n, lines))
        .filter(|n| !recognize::implements_trait(graph, n, lines))
        .collect();
    found.sort_by(|a, b| a.id.cmp(&b.id));
    let total = found.len();
    let candidates: Vec<DeadCandidate> = found
        .iter()
        .map(|n| {
            let calls = unresolved.get(&*n.name).copied().unwrap_or(0);
            DeadCandidate {
                id: n.id.to_string(),
                kind: n.kind.as_str(),
                file: n.file.to_string(),
                line: n.start_line,
                unresolved_calls: calls,
                maybe_used: calls > 0,
            }
        })
        .collect();
    let certain = candidates.iter().filter(|c| !c.maybe_used).count();
    let truncated = candidates.len() > limit;
    Dead {
        schema: DEAD_SCHEMA,
        total,
        certain,
        candidates: candidates.into_iter().take(limit).collect(),
        truncated,
    }
}
