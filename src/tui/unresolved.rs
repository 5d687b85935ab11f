//! The calls behind a call-tree node's `? N unresolved` row, listed when it is opened:
//! each call's site, callee name, receiver and reason (`ambiguous`, `external`,
//! `not_found`), and for an ambiguous call the definitions it could mean (Enter on one
//! makes it the root). Also the sentence that says why a `unique_name` edge was guessed.
//! Its own module because it reads the graph's unresolved calls, which the tree itself
//! only counts.

use std::sync::Arc;

use crate::index::graph::Site;
use crate::index::{CodeGraph, Kind, Node, UnresolvedReason, Walk};

/// At most this many calls are listed under one node (the header says how many there
/// are): a common name has thousands of unresolved calls, and a list that long is read
/// through `codegraph-tui graph --json`, not scrolled.
pub const MAX_LISTED: usize = 200;

/// At most this many candidates are listed under one ambiguous call.
pub const MAX_CANDIDATES: usize = 8;

/// One unresolved call as the tree lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnresolvedCall {
    /// The definition (or file, for top-level code) that makes the call.
    pub caller: Arc<str>,
    /// The callee name as written.
    pub name: Arc<str>,
    /// The receiver or qualifier as written (`self.store` in `self.store.get()`).
    pub receiver: Option<Arc<str>>,
    /// Where the call is (1-based line, char column).
    pub site: Site,
    /// Why no edge was made.
    pub reason: UnresolvedReason,
    /// For an ambiguous call: the definitions of that name in the caller's language (ids,
    /// at most [`MAX_CANDIDATES`]); empty otherwise.
    pub candidates: Vec<Arc<str>>,
}

/// The calls a node's unresolved row stands for, in site order, at most [`MAX_LISTED`],
/// and how many there are. Callers: the calls anywhere whose callee name is the node's
/// name and whose reason is not `external` (each could be one more caller). Callees:
/// the node's own unresolved calls. Cost: callers scan every unresolved call once (0.1 s
/// for the 550K of the fetch.sh corpus), done only when the row is opened.
pub fn calls_of(g: &CodeGraph, id: &str, dir: Walk) -> (Vec<UnresolvedCall>, usize) {
    let mut found: Vec<&crate::index::Unresolved> = match dir {
        Walk::Callees => g.unresolved_of(id).iter().collect(),
        _ => {
            let Some(n) = g.node(id).filter(|n| n.kind != Kind::File) else {
                return (Vec::new(), 0);
            };
            g.all_unresolved()
                .filter(|u| u.reason != UnresolvedReason::External && u.name == n.name)
                .collect()
        }
    };
    found.sort_by(|a, b| a.site.cmp(&b.site).then_with(|| a.name.cmp(&b.name)));
    let total = found.len();
    let calls = found
        .into_iter()
        .take(MAX_LISTED)
        .map(|u| UnresolvedCall {
            caller: u.caller.clone(),
            name: u.name.clone(),
            receiver: u.receiver.clone(),
            site: u.site.clone(),
            reason: u.reason,
            candidates: if u.reason == UnresolvedReason::Ambiguous {
                candidates(g, &u.caller, &u.name)
            } else {
                Vec::new()
            },
        })
        .collect();
    (calls, total)
}

/// The definitions named `name` in the language of `caller`, by id.
fn candidates(g: &CodeGraph, caller: &str, name: &str) -> Vec<Arc<str>> {
    let language = g.node(caller).map(|n| n.language.clone());
    g.lookup(name)
        .into_iter()
        .filter(|n| n.kind != Kind::File && &*n.name == name)
        .filter(|n| language.as_ref().is_none_or(|l| *l == n.language))
        .take(MAX_CANDIDATES)
        .map(|n| n.id.clone())
        .collect()
}

/// What a reason means, in a few words, for the row and the detail line.
pub fn reason_text(r: UnresolvedReason) -> &'static str {
    match r {
        UnresolvedReason::Ambiguous => "ambiguous: several definitions match",
        UnresolvedReason::External => "external: defined outside the repository",
        UnresolvedReason::NotFound => {
            "not_found: the qualifier points into the repo, the name is not there"
        }
    }
}

/// Why the edge to `callee` (a `unique_name` edge) was guessed: the resolution rule, as
/// `docs/contracts.md#relations-and-tiers` states it, with the callee's name and language.
pub fn unique_name_why(callee: &Node) -> String {
    format!(
        "[unique_name] a guess: the only {} definition named {} in the repo; no scope, \
         import or qualifier resolved the call; the name passed the guards (4+ chars, not \
         a common name)",
        callee.language, callee.name
    )
}
