//! The symbol search model: nucleo (helix's picker engine) fed through its [`Injector`]
//! from a background thread as a snapshot's symbols arrive, so the first matches show
//! while the rest are still being added. The query's words match the qualified name
//! (which ends with the name), except words that name a path (`src/core`, `schemas.ts`),
//! which match the file's path in a second column. Generated twins of a symbol (its
//! `.js`, `.cjs`, `.d.ts` copies) are folded under it (`twins`). Drawing is in `panels/search.rs`; matched character positions are
//! computed there only for the rows on screen.

use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use nucleo::pattern::{CaseMatching, Normalization};
use nucleo::{Config, Injector, Nucleo};

use crate::index::Kind;
use crate::tui::twins::Twins;
use crate::worker::Snapshot;

/// One searchable symbol (a definition node), cheap to clone (shared strings).
#[derive(Debug, Clone)]
pub struct Symbol {
    /// Node id.
    pub id: Arc<str>,
    /// Own name.
    pub name: Arc<str>,
    /// Qualified name (the matched text).
    pub qualified_name: Arc<str>,
    /// Kind.
    pub kind: Kind,
    /// Repo-relative path.
    pub file: Arc<str>,
    /// 1-based first line.
    pub line: u32,
    /// How many generated twins of it are folded under its row (see [`crate::tui::twins`]).
    pub twins: u32,
}

/// Search state: the input, nucleo, the selection.
pub struct SymbolSearch {
    /// The query as typed.
    pub query: String,
    nucleo: Nucleo<Symbol>,
    feeder: Option<JoinHandle<()>>,
    /// Index of the selected match (0 = best).
    pub selected: usize,
    /// First match row on screen.
    pub offset: usize,
    /// Symbols the current snapshot holds (the injector's goal).
    pub expected: usize,
    /// nucleo was still matching at the last tick (or a new pattern was set since).
    matching: bool,
    /// Called by nucleo's threads when a match finished that a tick had to leave running
    /// (set once by the event loop; see [`SymbolSearch::set_waker`]).
    waker: Arc<OnceLock<Waker>>,
    /// The snapshot whose symbols are loaded (for exact-name look-ups).
    snapshot: Option<Arc<Snapshot>>,
    /// Exact matches of the query (see [`SymbolSearch::set_query`]), shown first.
    pinned: Vec<Symbol>,
    /// Positions in nucleo's ranking (among its first [`PIN_SCAN`]) of the pinned
    /// symbols, sorted, so they are not listed twice.
    pinned_at: Vec<u32>,
    /// The query's name part and path part as last given to nucleo's two columns.
    parts: (String, String),
    /// Generated twins are folded under their primary's row (F3 lists them).
    pub fold_twins: bool,
    /// The twins of the loaded snapshot, found by the feeding thread.
    twins: Arc<OnceLock<Twins>>,
    /// Scores the pinned symbols' paths against the path part of the query.
    path_matcher: nucleo::Matcher,
}

pub use crate::index::graph::MAX_PINNED;

/// How deep in nucleo's ranking pinned symbols are looked for (and hidden); one found
/// deeper is listed again there.
const PIN_SCAN: u32 = 2000;

fn symbol_of(n: &crate::index::Node) -> Symbol {
    Symbol {
        id: n.id.clone(),
        name: n.name.clone(),
        qualified_name: n.qualified_name.clone(),
        kind: n.kind,
        file: n.file.clone(),
        line: n.start_line,
        twins: 0,
    }
}

/// Whether a query word is about the path, not the name: it holds a `/`, or ends in a
/// file extension a language of the registry claims (`schemas.ts`, `.py`), as helix's
/// picker and fzf take such words.
pub fn is_path_token(word: &str) -> bool {
    word.contains('/') || crate::index::lang::for_path(word).is_some()
}

/// `query` split into the words matched against the qualified name and those matched
/// against the file's path ([`is_path_token`]), each part joined by spaces.
pub fn split_query(query: &str) -> (String, String) {
    let (mut name, mut path) = (Vec::new(), Vec::new());
    for w in query.split_whitespace() {
        if is_path_token(w) {
            path.push(w);
        } else {
            name.push(w);
        }
    }
    (name.join(" "), path.join(" "))
}

/// Threads nucleo matches on: one fewer than the cores (at least one), so the UI thread
/// keeps a core while a short pattern is matched against a million symbols: a UI thread
/// that shares the cores with busy matcher threads waits in the run queue for most of a
/// frame after each key (`examples/tui_bench.rs` reports the UI thread's CPU and
/// run-queue time per tick; `docs/benchmarks.md#tui-latency` has the numbers).
fn matcher_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
}

/// A function that wakes the event loop from another thread.
pub type Waker = Box<dyn Fn() + Send + Sync>;

impl std::fmt::Debug for SymbolSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymbolSearch")
            .field("query", &self.query)
            .field("selected", &self.selected)
            .finish()
    }
}

impl Default for SymbolSearch {
    fn default() -> Self {
        SymbolSearch::new()
    }
}

impl SymbolSearch {
    /// An empty search with its own matcher threads.
    pub fn new() -> SymbolSearch {
        let waker: Arc<OnceLock<Waker>> = Arc::default();
        let notify = {
            let waker = waker.clone();
            Arc::new(move || {
                if let Some(w) = waker.get() {
                    w();
                }
            })
        };
        // Two columns: the qualified name, and the file's path (the path words of a query).
        let nucleo = Nucleo::new(Config::DEFAULT, notify, Some(matcher_threads()), 2);
        SymbolSearch {
            waker,
            query: String::new(),
            nucleo,
            feeder: None,
            selected: 0,
            offset: 0,
            expected: 0,
            matching: false,
            snapshot: None,
            pinned: Vec::new(),
            pinned_at: Vec::new(),
            parts: (String::new(), String::new()),
            fold_twins: true,
            twins: Arc::default(),
            path_matcher: nucleo::Matcher::new(Config::DEFAULT.match_paths()),
        }
    }

    /// Sets the function nucleo calls (from its own threads) when it has results that the
    /// last [`SymbolSearch::tick`] did not wait for, so the loop can draw them at once.
    /// Only the first call takes effect.
    pub fn set_waker(&self, w: Waker) {
        let _ = self.waker.set(w);
    }

    /// Takes `snap` in place of the snapshot being searched when both have the same graph
    /// (the same `Arc`): the items fed stay, nothing is matched again.
    pub fn keep(&mut self, snap: &Arc<Snapshot>) {
        self.snapshot = Some(snap.clone());
    }

    /// Replaces the items with the snapshot's definitions, injected from a thread (items
    /// of an older snapshot still being injected go to a disconnected store and vanish).
    pub fn load(&mut self, snap: &Arc<Snapshot>) {
        self.nucleo.restart(true);
        self.snapshot = Some(snap.clone());
        let injector: Injector<Symbol> = self.nucleo.injector();
        let snap = snap.clone();
        // Counted without reading a node: a cached graph decodes its nodes on first use.
        self.expected = snap.index.graph.definition_count();
        self.twins = Arc::default();
        let twins_out = self.twins.clone();
        let fold = self.fold_twins;
        let spawned = std::thread::Builder::new()
            .name("codegraph-search-feed".into())
            .spawn(move || {
                // Id order, so equal scores rank the same on every run. The graph keeps
                // it: collecting and sorting the 1.17M definitions of the fetch.sh Rust
                // tree here would take 471 ms before the first name is fed, reading the
                // graph's order takes 16 ms.
                let twins = twins_out.get_or_init(|| Twins::of(&snap.index.graph));
                let nodes = snap
                    .index
                    .graph
                    .nodes_by_id()
                    .filter(|n| n.kind != Kind::File)
                    .filter(|n| !fold || !twins.folded.contains(&n.id));
                for n in nodes {
                    let mut sym = symbol_of(n);
                    if fold {
                        sym.twins = twins.count.get(&n.id).copied().unwrap_or(0);
                    }
                    injector.push(sym, |s, cols| {
                        cols[0] = s.qualified_name.as_ref().into();
                        cols[1] = s.file.as_ref().into();
                    });
                }
            });
        self.feeder = spawned.ok();
        self.pin();
        self.selected = 0;
        self.offset = 0;
    }

    /// Pins the exact matches of the query ([`crate::index::CodeGraph::pinned_matches`],
    /// the same rule as `symbols`).
    fn pin(&mut self) {
        self.pinned.clear();
        self.pinned_at.clear();
        let Some(snap) = &self.snapshot else { return };
        let (name, path) = split_query(&self.query);
        let twins = self.twins.get().filter(|_| self.fold_twins);
        let pattern = self.nucleo.pattern.column_pattern(1);
        let matcher = &mut self.path_matcher;
        let mut buf = Vec::new();
        self.pinned = snap
            .index
            .graph
            .pinned_matches(&name)
            .into_iter()
            .filter(|n| twins.is_none_or(|t| !t.folded.contains(&n.id)))
            // The path words filter pinned symbols as they filter nucleo's matches.
            .filter(|n| {
                path.is_empty()
                    || pattern
                        .score(nucleo::Utf32Str::new(&n.file, &mut buf), matcher)
                        .is_some()
            })
            .map(|n| {
                let mut s = symbol_of(n);
                s.twins = twins.and_then(|t| t.count.get(&n.id).copied()).unwrap_or(0);
                s
            })
            .collect();
        self.locate_pinned();
    }

    /// Finds the pinned symbols in nucleo's current ranking (its first [`PIN_SCAN`]).
    fn locate_pinned(&mut self) {
        self.pinned_at.clear();
        if self.pinned.is_empty() {
            return;
        }
        let snap = self.nucleo.snapshot();
        let end = snap.matched_item_count().min(PIN_SCAN);
        for (i, it) in snap.matched_items(0..end).enumerate() {
            if self.pinned.iter().any(|p| Arc::ptr_eq(&p.id, &it.data.id)) {
                self.pinned_at.push(i as u32);
            }
        }
    }

    /// Sets the query text (smart case; a prefix extension re-matches only prior hits).
    pub fn set_query(&mut self, q: String) {
        let (name, path) = split_query(&q);
        for (col, new, old) in [(0, &name, &self.parts.0), (1, &path, &self.parts.1)] {
            if new != old {
                let append = new.starts_with(old.as_str());
                self.nucleo.pattern.reparse(
                    col,
                    new,
                    CaseMatching::Smart,
                    Normalization::Smart,
                    append,
                );
            }
        }
        self.parts = (name, path);
        self.query = q;
        self.matching = true;
        self.pin();
        self.selected = 0;
        self.offset = 0;
    }

    /// Lets the matcher publish new results (waits at most `ms` milliseconds). Returns
    /// `true` when the visible results changed.
    pub fn tick(&mut self, ms: u64) -> bool {
        let status = self.nucleo.tick(ms);
        self.matching = status.running;
        if status.changed {
            self.locate_pinned();
        }
        status.changed
    }

    /// `true` while nucleo has not finished matching the current pattern: the
    /// selection may still move.
    pub fn matching(&self) -> bool {
        self.matching
    }

    /// `true` while symbols are still being injected or matched.
    pub fn busy(&self) -> bool {
        self.feeder.as_ref().is_some_and(|f| !f.is_finished())
    }

    /// Waits until nucleo has matched the current query against the symbols injected so
    /// far (not for injection): what Enter opens must be a match of the query as typed,
    /// not of an earlier one still on screen.
    pub fn finish_matching(&mut self) {
        while self.nucleo.tick(50).running {}
        self.matching = false;
        self.locate_pinned();
    }

    /// Waits for injection and matching to finish (tests and scripted runs).
    pub fn settle(&mut self) {
        if let Some(f) = self.feeder.take() {
            let _ = f.join();
        }
        self.finish_matching();
    }

    /// Number of matches (rows): the pinned exact matches and nucleo's matches, each once.
    pub fn matched(&self) -> usize {
        self.pinned.len() + self.nucleo.snapshot().matched_item_count() as usize
            - self.pinned_at.len()
    }

    /// Number of symbols injected so far.
    pub fn injected(&self) -> usize {
        self.nucleo.snapshot().item_count() as usize
    }

    /// The match at rank `i` (0 = best): the pinned exact matches first, then nucleo's
    /// ranking without them.
    pub fn get(&self, i: usize) -> Option<&Symbol> {
        if let Some(p) = self.pinned.get(i) {
            return Some(p);
        }
        let mut n = (i - self.pinned.len()) as u32;
        for &p in &self.pinned_at {
            if p <= n {
                n += 1;
            } else {
                break;
            }
        }
        self.nucleo.snapshot().get_matched_item(n).map(|it| it.data)
    }

    /// The selected match.
    pub fn selected_symbol(&self) -> Option<&Symbol> {
        self.get(self.selected)
    }

    /// Char positions in `text` matched by the query (sorted, unique), for highlighting.
    pub fn indices(&self, text: &str, matcher: &mut nucleo::Matcher) -> Vec<u32> {
        let mut buf = Vec::new();
        let mut out = Vec::new();
        let hay = nucleo::Utf32Str::new(text, &mut buf);
        self.nucleo
            .pattern
            .column_pattern(0)
            .indices(hay, matcher, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Moves the selection by `delta` rows, clamped to the matches.
    pub fn move_by(&mut self, delta: isize) {
        let n = self.matched();
        if n == 0 {
            self.selected = 0;
            return;
        }
        self.selected = (self.selected as isize + delta).clamp(0, n as isize - 1) as usize;
    }
}
