//! The calls without an edge, grouped by caller: the map a graph keeps, grouped on first
//! use when a cache load gives an [`UnresolvedSource`], and the graph's queries over it.
//! Its own module because these calls are kept and shared apart from the graph's edges.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use super::{CodeGraph, Unresolved, UnresolvedReason};

/// Unresolved calls grouped by caller, as [`CodeGraph`] keeps them; made apart from the
/// graph so a cache load can group them while the graph is built.
#[derive(Debug, Default)]
pub struct UnresolvedMap(BTreeMap<Arc<str>, CallerCalls>);

/// One caller's unresolved calls, shared: an incremental update carries an unaffected
/// caller's calls into the new graph by reference, not one by one (376K calls of 95K
/// callers on the fetch.sh Rust tree).
pub(crate) type CallerCalls = Arc<[Unresolved]>;

impl UnresolvedMap {
    /// Groups `calls` by caller, keeping their order within a caller.
    pub(crate) fn from_calls(calls: Vec<Unresolved>) -> UnresolvedMap {
        let mut map: BTreeMap<Arc<str>, Vec<Unresolved>> = BTreeMap::new();
        if calls.is_sorted_by(|a, b| a.caller <= b.caller) {
            // The usual case (a resolution's list and a cache's are sorted by caller): the
            // map is built in bulk from the runs of one caller, not by 550K inserts of
            // string keys (about 90 ms of a one-file update on the Rust tree, `-v`).
            // Each run is moved once, into its shared slice (an exact-size collect), not
            // pushed into a growing list first and copied from it.
            let mut lens: Vec<(Arc<str>, usize)> = Vec::new();
            for u in &calls {
                match lens.last_mut() {
                    Some((caller, n)) if *caller == u.caller => *n += 1,
                    _ => lens.push((u.caller.clone(), 1)),
                }
            }
            let mut calls = calls.into_iter();
            return UnresolvedMap(
                lens.into_iter()
                    .map(|(c, n)| (c, calls.by_ref().take(n).collect()))
                    .collect(),
            );
        }
        for u in calls {
            // Look up before inserting: `entry` would copy the caller id for every call.
            match map.get_mut(&*u.caller) {
                Some(v) => v.push(u),
                None => {
                    map.insert(u.caller.clone(), vec![u]);
                }
            }
        }
        UnresolvedMap(map.into_iter().map(|(c, v)| (c, v.into())).collect())
    }

    /// Whole callers' `groups`, sorted by caller, each caller once.
    pub(crate) fn from_groups(groups: Vec<(Arc<str>, CallerCalls)>) -> UnresolvedMap {
        debug_assert!(
            groups.windows(2).all(|w| w[0].0 < w[1].0),
            "groups out of order"
        );
        UnresolvedMap(groups.into_iter().collect())
    }

    /// These calls and whole callers' `groups` (sorted by caller; no caller in both).
    pub(crate) fn with_groups(self, groups: Vec<(Arc<str>, CallerCalls)>) -> UnresolvedMap {
        if groups.is_empty() {
            return self;
        }
        let mut all: Vec<(Arc<str>, CallerCalls)> = self.0.into_iter().chain(groups).collect();
        // Two sorted runs: one merge. Then a bulk build from sorted pairs.
        all.sort_by(|a, b| a.0.cmp(&b.0));
        debug_assert!(all.windows(2).all(|w| w[0].0 != w[1].0), "a caller in both");
        UnresolvedMap(all.into_iter().collect())
    }
}

/// The undecoded unresolved calls of a graph loaded from a cache, grouped on first use
/// (see [`ChunkSource`](super::ChunkSource)): a walk or a look-up that never asks for them does not pay for
/// the 550K calls of a large repo.
pub trait UnresolvedSource: Send + Sync + std::fmt::Debug {
    /// The calls grouped by caller.
    fn group(&self) -> UnresolvedMap;
}

/// A graph's unresolved calls by caller: grouped, or to be grouped from `source` on first
/// use (see [`UnresolvedSource`]).
#[derive(Debug, Default, Clone)]
pub(super) struct Unresolveds {
    grouped: OnceLock<BTreeMap<Arc<str>, CallerCalls>>,
    source: Option<Arc<dyn UnresolvedSource>>,
    /// The calls that may be callers, by callee name (see
    /// [`CodeGraph::maybe_callers_named`]), made on first use.
    by_name: OnceLock<MaybeCallers>,
}

/// Unresolved calls that are not `external`, by callee name: each as its caller's shared
/// list and the call's position in it, so the index borrows nothing and copies no call.
type MaybeCallers = HashMap<Arc<str>, Vec<(CallerCalls, u32)>>;

impl CodeGraph {
    /// This graph with its unresolved calls grouped from `source` when first needed,
    /// instead of those it had.
    pub fn with_unresolved_source(mut self, source: Arc<dyn UnresolvedSource>) -> CodeGraph {
        self.unresolved = Unresolveds {
            source: Some(source),
            ..Unresolveds::default()
        };
        self
    }

    /// The unresolved calls by caller, grouped now if they were not yet.
    pub(super) fn unresolved_map(&self) -> &BTreeMap<Arc<str>, CallerCalls> {
        self.unresolved
            .grouped
            .get_or_init(|| match &self.unresolved.source {
                Some(source) => source.group().0,
                None => BTreeMap::new(),
            })
    }

    /// Replaces the unresolved calls with `m` (each caller a node of the graph).
    pub(crate) fn set_unresolved(&mut self, m: UnresolvedMap) {
        self.unresolved = Unresolveds {
            grouped: OnceLock::from(m.0),
            ..Unresolveds::default()
        };
    }

    /// Unresolved references whose caller is `id`.
    pub fn unresolved_of(&self, id: &str) -> &[Unresolved] {
        self.unresolved_map().get(id).map_or(&[], |v| v)
    }

    /// Every unresolved reference, sorted by caller.
    pub fn all_unresolved(&self) -> impl Iterator<Item = &Unresolved> {
        self.unresolved_map().values().flat_map(|v| v.iter())
    }

    /// Unresolved references by caller (sorted), each caller's shared.
    pub(crate) fn unresolved_groups(&self) -> impl Iterator<Item = (&Arc<str>, &CallerCalls)> {
        self.unresolved_map().iter()
    }

    /// How many callers have unresolved references.
    pub fn unresolved_callers(&self) -> usize {
        self.unresolved_map().len()
    }

    /// How many unresolved references there are (`all_unresolved().count()`, by caller).
    pub fn unresolved_count(&self) -> usize {
        self.unresolved_map().values().map(|v| v.len()).sum()
    }

    /// The unresolved calls of callee name `name` that may be calls of a definition so
    /// named: every reason but `external` (a call resolved outside the repository), in
    /// caller order. What a callers walk counts as possibly missing callers and what
    /// impact lists as its lower bound. The first call builds the index of every name
    /// (one pass over the unresolved calls, 550K on the fetch.sh Rust tree); each call
    /// after it costs the size of its answer.
    pub fn maybe_callers_named(&self, name: &str) -> impl Iterator<Item = &Unresolved> {
        let index = self.unresolved.by_name.get_or_init(|| {
            let mut m: MaybeCallers = HashMap::new();
            for calls in self.unresolved_map().values() {
                for (i, u) in calls.iter().enumerate() {
                    if u.reason != UnresolvedReason::External {
                        // Look up before inserting: `entry` would take a key per call.
                        match m.get_mut(&*u.name) {
                            Some(v) => v.push((calls.clone(), i as u32)),
                            None => {
                                m.insert(u.name.clone(), vec![(calls.clone(), i as u32)]);
                            }
                        }
                    }
                }
            }
            m
        });
        index
            .get(name)
            .into_iter()
            .flatten()
            .map(|(calls, i)| &calls[*i as usize])
    }
}
