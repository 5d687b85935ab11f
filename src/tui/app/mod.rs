//! Application state and the one place it changes: [`App::handle`] takes an [`AppEvent`]
//! (a key, a mouse event, a worker event), turns keys into [`Action`]s through the keymap
//! and applies them. Drawing (`panels/`) reads this state; nothing here touches the
//! terminal. Work the terminal must do (run `$EDITOR`, suspend) is left in
//! [`App::pending`] for the event loop, and requests for the worker in [`App::outbox`].
//!
//! This file holds the state types, the event entry points and the worker's side
//! (snapshots in, the call tree carried over); what an action does is in `actions`, the
//! mouse in `mouse`, the call tree's row-by-row keys in `tree_keys`, and the source panel
//! following the selection in `source_sync`.
//!
//! [`Action`]: super::keymap::Action

mod actions;
mod copy;
mod goto;
mod mouse;
mod source_sync;
mod tree_keys;

use std::path::PathBuf;
use std::sync::Arc;

use ratatui::crossterm::event::{Event, KeyEvent};
use ratatui::layout::Rect;

use super::chunks::{ChunkSearch, SearchMode};
use super::impact::ImpactView;
use super::keymap::{map_key, KeyMeaning};
use super::lists::SymbolList;
use super::outline::Outline;
use super::search::SymbolSearch;
use super::source::{SourceCache, SourceView};
use super::theme::Theme;
use super::tree::{CallTree, Filters, Row};
use crate::index::Walk;
use crate::worker::{IndexCommand, IndexEvent, Phase, Snapshot};

pub use copy::osc52;

/// How long one [`App::tick`] waits for the symbol matcher, in milliseconds. A match that
/// finishes within it is drawn in the frame right after the key; a longer one (a short
/// pattern over a million symbols takes 100 ms or more on two cores) is drawn when the
/// matcher wakes the loop, and the frame after the key shows the query as typed over the
/// previous matches, marked "matching…". 4 ms keeps key-to-frame well inside one 60 Hz
/// frame (16.7 ms) with room for drawing; `docs/benchmarks.md#tui-latency` has the
/// measurement.
pub const MATCH_WAIT_MS: u64 = 4;

/// The TUI's settings from the config file (`docs/contracts.md#configuration-file`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Levels `*` expands without a count before it (`tree_expand_depth`, 3).
    pub expand_depth: u32,
    /// `y` and `Y` also set the terminal's clipboard with OSC 52 (`clipboard_osc52`,
    /// off: a program writing to the clipboard unasked is what terminal-injection attacks
    /// use, so it is the user's choice).
    pub osc52: bool,
    /// What the search thread builds in the background once the first full snapshot is
    /// on screen (`search_index`, auto), before any text, semantic or hybrid query.
    pub search_prebuild: crate::index::search::Prebuild,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            expand_depth: 3,
            osc52: false,
            search_prebuild: crate::index::search::Prebuild::Auto,
        }
    }
}

/// One event of the loop.
#[derive(Debug, Clone)]
pub enum AppEvent {
    /// Terminal input (keys, mouse, resize).
    Input(Event),
    /// A worker notification.
    Index(IndexEvent),
}

/// The panel with keyboard focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The search box and its results.
    Search,
    /// The call tree.
    Tree,
    /// The source view.
    Source,
    /// The impact panel.
    Impact,
}

impl Focus {
    const ORDER: [Focus; 4] = [Focus::Search, Focus::Tree, Focus::Source, Focus::Impact];

    fn step(self, by: isize) -> Focus {
        let i = Focus::ORDER.iter().position(|f| *f == self).unwrap_or(0) as isize;
        Focus::ORDER[(i + by).rem_euclid(4) as usize]
    }
}

/// A modal layer over the panels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    /// None: keys go to the panels.
    None,
    /// The key help (scrolled by this many lines).
    Help(usize),
    /// The export path prompt.
    ExportPrompt(String),
    /// The export path exists: overwrite?
    ConfirmOverwrite(String),
    /// The files left out of the index and why (scrolled by this many lines).
    Skipped(usize),
}

/// The files of `index` left out that a user would expect in it, with their reasons:
/// binary, too large, unreadable, special (a FIFO or device). Unknown extensions and
/// symbolic links are left out by design and not listed.
pub fn left_out(index: &crate::index::Index) -> Vec<&(String, crate::index::SkipReason)> {
    use crate::index::SkipReason as R;
    index
        .skipped
        .iter()
        .filter(|(_, r)| matches!(r, R::Binary | R::TooLarge | R::Unreadable | R::Special))
        .collect()
}

/// Why a file was left out, as the skipped-files list says it.
pub fn skip_reason(r: crate::index::SkipReason) -> &'static str {
    use crate::index::SkipReason as R;
    match r {
        R::Binary => "binary (a NUL byte, or not UTF-8)",
        R::TooLarge => "too large (over the size cap, max_file_bytes)",
        R::Unsupported => "no language for the extension",
        R::Unreadable => "unreadable (an I/O error, or the parser gave up)",
        R::Symlink => "a symbolic link (never followed)",
        R::Special => "a FIFO, socket or device (never opened)",
    }
}

/// Something only the event loop can do, because it owns the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum External {
    /// Run `$VISUAL`/`$EDITOR` on a file at a 1-based line, then redraw.
    Editor {
        /// Absolute path.
        path: PathBuf,
        /// 1-based line.
        line: u32,
    },
    /// Stop the process (SIGTSTP) with the terminal restored; set it up again on resume.
    Suspend,
}

/// What the status bar shows.
#[derive(Debug, Clone)]
pub struct Status {
    /// The worker's phase.
    pub phase: Phase,
    /// Files processed in the current run.
    pub done: u64,
    /// Files found by the walk (0 while walking).
    pub total: u64,
    /// Cache state and similar notices.
    pub notice: Option<String>,
    /// The last error (sanitized when drawn).
    pub error: Option<String>,
    /// The last message (export written, toggles).
    pub message: Option<String>,
}

/// Screen areas of the last frame, for mouse hit-testing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Areas {
    /// Search panel.
    pub search: Rect,
    /// Call tree panel.
    pub tree: Rect,
    /// Source panel.
    pub source: Rect,
    /// Impact panel.
    pub impact: Rect,
    /// Text lines of the open scrolled overlay (help, skipped files): a page for PgUp/PgDn.
    pub help_page: usize,
}

/// The whole UI state.
pub struct App {
    /// Repository root (absolute).
    pub root: PathBuf,
    /// Colours.
    pub theme: Theme,
    /// Settings from the config file.
    pub settings: Settings,
    /// The text `y`/`Y` copied, for the event loop to send as OSC 52 (set only when
    /// [`Settings::osc52`] allows).
    pub clipboard: Option<String>,
    /// A count typed before `*` (1-9), until the next action.
    count: Option<u8>,
    /// The newest snapshot, once the first run finished.
    pub snapshot: Option<Arc<Snapshot>>,
    /// Newest worker generation seen; older events are dropped.
    pub generation: u64,
    /// Keyboard focus.
    pub focus: Focus,
    /// Modal layer.
    pub overlay: Overlay,
    /// Symbol search.
    pub search: SymbolSearch,
    /// What the search box searches (Ctrl-t cycles).
    pub mode: SearchMode,
    /// Text, semantic and hybrid search (the modes other than symbols).
    pub chunks: ChunkSearch,
    /// The call tree of the focused symbol.
    pub tree: Option<CallTree>,
    /// The outline of a file, shown in the call tree's place while set (`o`).
    pub outline: Option<Outline>,
    /// The type hierarchy or the references of a symbol, shown in the call tree's place
    /// while set (`i`, `R`).
    pub list: Option<SymbolList>,
    /// Call-tree filters.
    pub filters: Filters,
    /// Roots visited (id and direction) and the position in that list.
    pub history: Vec<(Arc<str>, Walk)>,
    /// Index of the current root in [`App::history`].
    pub history_pos: usize,
    /// The tree of each history entry as it was left (expanded nodes, selection, scroll)
    /// with the generation of the snapshot it was made on; `None` until it is left.
    history_trees: Vec<Option<(u64, CallTree)>>,
    /// The source panel.
    pub source: SourceView,
    sources: SourceCache,
    /// The impact of the tree's root.
    pub impact: Option<ImpactView>,
    /// Status bar.
    pub status: Status,
    /// Set by the quit action.
    pub quit: bool,
    /// Work for the event loop.
    pub pending: Option<External>,
    /// Commands for the worker.
    pub outbox: Vec<IndexCommand>,
    /// Last frame's areas.
    pub areas: Areas,
    /// Matcher used to find matched character positions for drawing.
    pub matcher: nucleo::Matcher,
    /// The source view waits for the symbol matcher to finish (see [`App::sync_source`]).
    source_stale: bool,
    /// A poll changed what is listed: the source panel is to follow the selection.
    source_due: bool,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("root", &self.root)
            .field("focus", &self.focus)
            .field("overlay", &self.overlay)
            .finish_non_exhaustive()
    }
}

impl App {
    /// A fresh UI for `root`, with the search box focused and no snapshot yet.
    pub fn new(root: PathBuf, theme: Theme) -> App {
        App {
            root,
            theme,
            settings: Settings::default(),
            clipboard: None,
            count: None,
            snapshot: None,
            generation: 0,
            focus: Focus::Search,
            overlay: Overlay::None,
            search: SymbolSearch::new(),
            mode: SearchMode::Symbols,
            chunks: ChunkSearch::new(),
            tree: None,
            outline: None,
            list: None,
            filters: Filters::default(),
            history: Vec::new(),
            history_pos: 0,
            history_trees: Vec::new(),
            source: SourceView::default(),
            sources: SourceCache::default(),
            impact: None,
            status: Status {
                phase: Phase::Walking,
                done: 0,
                total: 0,
                notice: None,
                error: None,
                message: None,
            },
            quit: false,
            pending: None,
            outbox: Vec::new(),
            areas: Areas::default(),
            matcher: nucleo::Matcher::new(nucleo::Config::DEFAULT),
            source_stale: false,
            source_due: false,
        }
    }

    /// Lets the search publish new matches; returns `true` when something to draw
    /// changed (the source view follows the selected match).
    pub fn tick(&mut self) -> bool {
        let busy = self.poll();
        self.sync_due_source();
        busy
    }

    /// [`tick`](App::tick) without reading the source the new selection needs: the event
    /// loop draws the new list first and reads it after ([`sync_due_source`]), so a
    /// large file's highlighting (about 100 ms for a few thousand lines) does not hold
    /// up the frame (a warm start's first frame with the graph waited for it in a third of
    /// the runs, `-v`).
    ///
    /// [`sync_due_source`]: App::sync_due_source
    pub fn poll(&mut self) -> bool {
        let changed = self.search.tick(MATCH_WAIT_MS) | self.chunks.poll();
        self.source_due |= changed || (self.source_stale && !self.search.matching());
        changed || self.search.busy() || self.chunks.busy() || self.chunks.progress_due()
    }

    /// Shows the source of the selection if a [`poll`](App::poll) found it may have
    /// changed; `true` when it did that (the screen needs drawing).
    pub fn sync_due_source(&mut self) -> bool {
        if !std::mem::take(&mut self.source_due) {
            return false;
        }
        self.source_stale = false;
        self.sync_source(false);
        true
    }

    /// `true` when a text input has the keyboard.
    pub fn in_input(&self) -> bool {
        matches!(
            self.overlay,
            Overlay::ExportPrompt(_) | Overlay::ConfirmOverwrite(_)
        ) || (self.overlay == Overlay::None && self.focus == Focus::Search)
    }

    /// Applies one event.
    pub fn handle(&mut self, ev: AppEvent) {
        match ev {
            AppEvent::Input(Event::Key(k)) => self.key(k),
            AppEvent::Input(Event::Mouse(m)) => self.mouse(m),
            AppEvent::Input(_) => {}
            AppEvent::Index(e) => self.index_event(e),
        }
    }

    /// Applies one key.
    pub fn key(&mut self, k: KeyEvent) {
        let in_tree = self.focus == Focus::Tree && self.overlay == Overlay::None;
        let in_source = self.focus == Focus::Source && self.overlay == Overlay::None;
        match map_key(k, self.in_input(), in_tree, in_source) {
            Some(KeyMeaning::Action(a)) => self.apply(a),
            Some(KeyMeaning::Insert(c)) => self.insert(c),
            None => {}
        }
    }

    /// Applies a worker event, dropping those of older runs.
    pub fn index_event(&mut self, e: IndexEvent) {
        if e.generation() < self.generation {
            return;
        }
        self.generation = e.generation();
        match e {
            IndexEvent::Progress {
                phase, done, total, ..
            } => {
                self.status.phase = phase;
                self.status.done = done;
                self.status.total = total;
            }
            IndexEvent::Ready { snapshot, .. } => self.set_snapshot(snapshot),
            IndexEvent::Failed { message, .. } => {
                self.status.phase = Phase::Idle;
                self.status.error = Some(format!("indexing failed: {message}"));
            }
            IndexEvent::Notice { message, .. } => self.status.notice = Some(message),
        }
    }

    /// Installs a finished snapshot: search is re-fed, the tree and impact recomputed for
    /// the same root (if it still exists).
    pub fn set_snapshot(&mut self, snap: Arc<Snapshot>) {
        self.status.phase = Phase::Idle;
        // A new snapshot ends what the previous one's errors said (a root gone after
        // re-indexing, a failed run); this one's are set below.
        self.status.error = None;
        // Text search reads the facts: a graph served alone leaves it to the full snapshot.
        if !snap.graph_only {
            self.chunks.load(&snap);
            if let Some(m) = self.mode.engine() {
                self.chunks.query(&self.search.query, m);
            } else if !self.chunks.prewarmed {
                // Once per run of the TUI, so that the first text or hybrid query does not wait
                // for its index; later snapshots build at their first query, as an edit
                // changes few files and the saved indexes are updated per file.
                self.chunks
                    .prewarm(self.settings.search_prebuild, snap.index.stats.chunks);
            }
        }
        if self
            .snapshot
            .as_ref()
            .is_some_and(|old| Arc::ptr_eq(&old.index.graph, &snap.index.graph))
        {
            // The facts of the graph on screen (a cached graph is served first): nothing
            // is fed to the search again, the tree, source and impact stay as they are;
            // only the source's "changed on disk" mark, which compares with the facts.
            self.search.keep(&snap);
            self.snapshot = Some(snap);
            self.source.changed_on_disk = self.source_changed_on_disk();
            return;
        }
        self.search.load(&snap);
        // The shown file may have changed on disk: read again, not only the other files.
        self.sources.clear();
        self.source = SourceView::default();
        // A toggle's or a cycle's message is about the old tree: the update's notice shows.
        self.status.message = None;
        // The selection, found while the old snapshot is still the one the rows come from.
        let keep = self.selected_row();
        self.snapshot = Some(snap.clone());
        if let Some(t) = &self.tree {
            let (root, dir) = (t.root().clone(), t.direction);
            if snap.index.graph.node(&root).is_some() {
                // Expanded nodes stay expanded and the selection stays on its node: an
                // edit saved elsewhere must not fold the tree the user was walking.
                let (tree, at) = t.carried_to(&snap, keep.map(|k| k.0));
                self.tree = Some(tree);
                self.select(Some((at, keep.is_some_and(|k| k.1))));
                self.impact = ImpactView::compute(&snap, &root, &self.root);
            } else {
                self.status.error = Some(format!("{root} is gone after re-indexing"));
                // Its row stays, as `]` to a gone root shows it: when the symbol comes
                // back (the file restored), the next update brings its tree back.
                self.tree = Some(CallTree::new(&snap, root, dir));
                self.impact = None;
            }
        }
        if let Some(l) = &self.list {
            let keep = l.selected;
            let lines = crate::index::impact::FsLines::new(self.root.clone());
            let fresh = match l.kind {
                super::lists::ListKind::Dead => Some(SymbolList::dead(&snap.index.graph, &lines)),
                _ => SymbolList::of(&snap.index.graph, l.kind, &l.root, &lines),
            };
            self.list = fresh.map(|mut n| {
                n.selected = keep.min(n.rows.len().saturating_sub(1));
                n
            });
        }
        if let Some(o) = &self.outline {
            let keep = o.selected_id().cloned();
            self.outline = Outline::of(&snap.index.graph, &o.file).map(|mut n| {
                if let Some(id) = keep {
                    n.select(&id);
                }
                n
            });
        }
        self.sync_source(true);
    }

    /// The selected row as (arena node, whether it is the node's unresolved-count row).
    fn selected_row(&self) -> Option<(usize, bool)> {
        selected_of(self.tree.as_ref()?, self.snapshot.as_ref()?, self.filters)
    }

    /// Selects the row of arena node `keep.0` (its unresolved-count row when `keep.1` and
    /// the row is shown); when the node is filtered out, its nearest shown ancestor.
    fn select(&mut self, keep: Option<(usize, bool)>) {
        let rows = self.tree_rows();
        let Some(t) = &mut self.tree else { return };
        let Some((mut i, unresolved)) = keep.filter(|k| k.0 < t.nodes.len()) else {
            t.selected = t.selected.min(rows.len().saturating_sub(1));
            return;
        };
        if unresolved {
            if let Some(r) = rows
                .iter()
                .position(|r| matches!(r, Row::Unresolved { node, .. } if *node == i))
            {
                t.selected = r;
                return;
            }
        }
        loop {
            if let Some(r) = rows.iter().position(|r| *r == Row::Node(i)) {
                t.selected = r;
                return;
            }
            match t.nodes[i].parent {
                Some(p) => i = p,
                None => {
                    t.selected = 0;
                    return;
                }
            }
        }
    }

    /// Makes `id` the root of the call tree (callers first), recording it in the history.
    pub fn focus_symbol(&mut self, id: Arc<str>, dir: Walk) {
        self.save_tree();
        self.history
            .truncate(self.history.len().min(self.history_pos + 1));
        if self.history.last() != Some(&(id.clone(), dir)) {
            self.history.push((id.clone(), dir));
        }
        self.history_trees.resize(self.history.len(), None);
        self.history_pos = self.history.len() - 1;
        self.show_root(id, dir);
    }

    /// Keeps the tree on screen with its history entry, for back and forward to bring
    /// back as it was left.
    fn save_tree(&mut self) {
        let (Some(t), Some(s)) = (&self.tree, &self.snapshot) else {
            return;
        };
        self.history_trees.resize(self.history.len(), None);
        if let Some(slot) = self.history_trees.get_mut(self.history_pos) {
            *slot = Some((s.generation, t.clone()));
        }
    }

    /// Shows history entry `pos` (`history_pos` already set): its tree as it was left,
    /// expanded nodes and selection included (carried over to a newer snapshot if one came
    /// since), or a fresh tree when it was never left or its direction changed.
    fn restore_root(&mut self, pos: usize) {
        let (id, dir) = self.history[pos].clone();
        let saved = self.history_trees.get_mut(pos).and_then(Option::take);
        let Some(snap) = self.snapshot.clone() else {
            return;
        };
        match saved {
            Some((generation, t)) if *t.root() == id && t.direction == dir => {
                if generation == snap.generation {
                    self.tree = Some(t);
                } else {
                    let keep = selected_of(&t, &snap, self.filters);
                    let (tree, at) = t.carried_to(&snap, keep.map(|k| k.0));
                    self.tree = Some(tree);
                    self.select(Some((at, keep.is_some_and(|k| k.1))));
                }
                self.impact = ImpactView::compute(&snap, &id, &self.root);
                self.sync_source(true);
            }
            _ => self.show_root(id, dir),
        }
    }

    fn show_root(&mut self, id: Arc<str>, dir: Walk) {
        let Some(snap) = self.snapshot.clone() else {
            return;
        };
        self.tree = Some(CallTree::new(&snap, id.clone(), dir));
        self.impact = ImpactView::compute(&snap, &id, &self.root);
        self.sync_source(true);
    }

    /// The visible call-tree rows (empty without a tree or snapshot).
    pub fn tree_rows(&self) -> Vec<Row> {
        match (&self.tree, &self.snapshot) {
            (Some(t), Some(s)) => t.rows(s, self.filters),
            _ => Vec::new(),
        }
    }

    /// Arena index of the selected tree node (an unresolved row selects its node).
    pub fn selected_tree_node(&self) -> Option<usize> {
        self.selected_row().map(|(i, _)| i)
    }

    /// The node id selected in the search results of the current mode (a chunk hit's id
    /// is its definition, or its file for a line-window chunk).
    pub fn search_selection(&self) -> Option<Arc<str>> {
        match self.mode {
            SearchMode::Symbols => self.search.selected_symbol().map(|s| s.id.clone()),
            _ => self.chunks.selected_hit().map(|h| Arc::from(h.id.as_str())),
        }
    }
}

/// The selected row of `t` as (arena node, whether it is the node's unresolved-count row).
fn selected_of(t: &CallTree, snap: &Snapshot, filters: Filters) -> Option<(usize, bool)> {
    let rows = t.rows(snap, filters);
    match rows.get(t.selected.min(rows.len().saturating_sub(1)))? {
        Row::Node(i) | Row::Hidden { node: i, .. } => Some((*i, false)),
        r => Some((r.node(), true)),
    }
}
