//! Application state and the one place it changes: [`App::handle`] takes an [`AppEvent`]
//! (a key, a mouse event, a worker event), turns keys into [`Action`]s through the keymap
//! and applies them. Drawing (`panels/`) reads this state; nothing here touches the
//! terminal. Work the terminal must do (run `$EDITOR`, suspend) is left in
//! [`App::pending`] for the event loop, and requests for the worker in [`App::outbox`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ratatui::crossterm::event::{Event, KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::chunks::{ChunkSearch, SearchMode};
use super::impact::ImpactView;
use super::keymap::{map_key, Action, KeyMeaning};
use super::search::SymbolSearch;
use super::source::{SourceCache, SourceView};
use super::theme::Theme;
use super::tree::{CallTree, Filters, Row};
use crate::index::Walk;
use crate::worker::{IndexCommand, IndexEvent, Phase, Snapshot};

/// How long one [`App::tick`] waits for the symbol matcher, in milliseconds. A match that
/// finishes within it is drawn in the frame right after the key; a longer one (a short
/// pattern over a million symbols takes 100 ms or more on two cores) is drawn when the
/// matcher wakes the loop, and the frame after the key shows the query as typed over the
/// previous matches, marked "matching…". 4 ms keeps key-to-frame well inside one 60 Hz
/// frame (16.7 ms) with room for drawing; README "Latency" has the measurement.
pub const MATCH_WAIT_MS: u64 = 4;

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
}

/// The whole UI state.
pub struct App {
    /// Repository root (absolute).
    pub root: PathBuf,
    /// Colours.
    pub theme: Theme,
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
    /// Call-tree filters.
    pub filters: Filters,
    /// Roots visited (id and direction) and the position in that list.
    pub history: Vec<(Arc<str>, Walk)>,
    /// Index of the current root in [`App::history`].
    pub history_pos: usize,
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
            snapshot: None,
            generation: 0,
            focus: Focus::Search,
            overlay: Overlay::None,
            search: SymbolSearch::new(),
            mode: SearchMode::Symbols,
            chunks: ChunkSearch::new(),
            tree: None,
            filters: Filters::default(),
            history: Vec::new(),
            history_pos: 0,
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
        changed || self.search.busy() || self.chunks.busy()
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
        match map_key(k, self.in_input(), in_tree) {
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
        self.sync_source(true);
    }

    /// The selected row as (arena node, whether it is the node's unresolved-count row).
    fn selected_row(&self) -> Option<(usize, bool)> {
        let rows = self.tree_rows();
        let t = self.tree.as_ref()?;
        match rows.get(t.selected.min(rows.len().saturating_sub(1)))? {
            Row::Node(i) => Some((*i, false)),
            Row::Unresolved { node, .. } => Some((*node, true)),
        }
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
        self.history
            .truncate(self.history.len().min(self.history_pos + 1));
        if self.history.last() != Some(&(id.clone(), dir)) {
            self.history.push((id.clone(), dir));
        }
        self.history_pos = self.history.len() - 1;
        self.show_root(id, dir);
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

    fn page(&self) -> isize {
        let h = match self.focus {
            Focus::Search => self.areas.search.height.saturating_sub(3),
            Focus::Tree => self.areas.tree.height.saturating_sub(2),
            Focus::Source => self.areas.source.height.saturating_sub(2),
            Focus::Impact => self.areas.impact.height.saturating_sub(2),
        };
        h.max(1) as isize
    }

    /// Applies one action.
    pub fn apply(&mut self, a: Action) {
        self.status.message = None;
        if self.overlay != Overlay::None && self.overlay_action(a) {
            return;
        }
        match a {
            Action::Quit => self.quit = true,
            Action::Escape => {
                if self.focus == Focus::Search {
                    self.focus = Focus::Tree;
                }
            }
            Action::FocusNext => self.focus = self.focus.step(1),
            Action::FocusPrev => self.focus = self.focus.step(-1),
            Action::FocusSearch => self.focus = Focus::Search,
            Action::ToggleHelp => self.overlay = Overlay::Help(0),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-self.page()),
            Action::PageDown => self.move_by(self.page()),
            Action::Top => self.move_by(-(isize::MAX / 2)),
            Action::Bottom => self.move_by(isize::MAX / 2),
            Action::Expand => self.expand(true),
            Action::Collapse => self.expand(false),
            Action::Activate => self.activate(),
            Action::Back => self.history_step(-1),
            Action::Forward => self.history_step(1),
            Action::ToggleDirection => {
                if let Some(t) = &self.tree {
                    let dir = match t.direction {
                        Walk::Callers => Walk::Callees,
                        _ => Walk::Callers,
                    };
                    let root = t.root().clone();
                    if let Some(h) = self.history.get_mut(self.history_pos) {
                        h.1 = dir;
                    }
                    self.show_root(root, dir);
                }
            }
            Action::ToggleTests => {
                let keep = self.selected_row();
                self.filters.hide_tests = !self.filters.hide_tests;
                self.status.message = Some(
                    if self.filters.hide_tests {
                        "test code hidden"
                    } else {
                        "test code shown"
                    }
                    .into(),
                );
                // The same symbol stays selected (or its nearest shown ancestor).
                self.select(keep);
                self.sync_source(true);
            }
            Action::ToggleUniqueName => {
                let keep = self.selected_row();
                self.filters.hide_unique_name = !self.filters.hide_unique_name;
                self.status.message = Some(
                    if self.filters.hide_unique_name {
                        "unique_name edges hidden"
                    } else {
                        "unique_name edges shown"
                    }
                    .into(),
                );
                self.select(keep);
                self.sync_source(true);
            }
            Action::CycleSearchMode => {
                self.mode = self.mode.next();
                self.focus = Focus::Search;
                if let Some(m) = self.mode.engine() {
                    self.chunks.query(&self.search.query, m);
                }
                self.status.message = Some(format!("search mode:{}", self.mode.title()));
                self.sync_source(false);
            }
            Action::OpenEditor => {
                if !self.source.path.is_empty() {
                    self.pending = Some(External::Editor {
                        path: self.root.join(&self.source.path),
                        line: self.source.focus_line(),
                    });
                }
            }
            Action::Export => match &self.tree {
                // A root gone after re-indexing keeps its row, but there is no graph to
                // export under it.
                Some(t)
                    if self
                        .snapshot
                        .as_ref()
                        .is_some_and(|s| s.index.graph.node(t.root()).is_none()) =>
                {
                    self.status.message = Some(format!("nothing to export: {} is gone", t.root()));
                }
                Some(t) => {
                    let name = self
                        .snapshot
                        .as_ref()
                        .and_then(|s| s.index.graph.node(t.root()))
                        .map_or("graph".to_string(), |n| file_safe(&n.name));
                    self.overlay = Overlay::ExportPrompt(format!("./codegraph-{name}.json"));
                }
                None => self.status.message = Some("nothing to export: pick a symbol first".into()),
            },
            Action::Reindex => {
                self.outbox.push(IndexCommand::Reindex);
                // A notice, so the worker's answer ("up to date", "updated") replaces it.
                self.status.message = None;
                self.status.notice = Some("re-indexing".into());
            }
            Action::Suspend => self.pending = Some(External::Suspend),
            Action::DeleteChar => self.edit_query(|q| {
                q.pop();
            }),
            Action::DeleteWord => self.edit_query(|q| {
                let t = q.trim_end().len();
                q.truncate(t);
                let cut = q
                    .rfind(|c: char| !c.is_alphanumeric() && c != '_')
                    .map_or(0, |i| i + 1);
                q.truncate(cut);
            }),
            Action::ClearInput => self.edit_query(String::clear),
        }
        self.sync_source(false);
    }

    /// Actions while an overlay is open; `true` when consumed.
    fn overlay_action(&mut self, a: Action) -> bool {
        match (&mut self.overlay, a) {
            (Overlay::Help(s), Action::Down) => *s += 1,
            (Overlay::Help(s), Action::Up) => *s = s.saturating_sub(1),
            (Overlay::Help(s), Action::PageDown) => *s += 10,
            (Overlay::Help(s), Action::PageUp) => *s = s.saturating_sub(10),
            (Overlay::Help(_), Action::Suspend) => return false,
            (Overlay::Help(_), _) => self.overlay = Overlay::None,
            (Overlay::ExportPrompt(p), Action::Activate) => {
                let p = p.clone();
                self.export(&p, false);
            }
            (Overlay::ExportPrompt(p), Action::DeleteChar) => {
                p.pop();
            }
            (Overlay::ExportPrompt(p), Action::ClearInput) => p.clear(),
            (Overlay::ExportPrompt(_), Action::Escape) => {
                self.overlay = Overlay::None;
                self.status.message = Some("export cancelled".into());
            }
            (Overlay::ConfirmOverwrite(p), Action::Escape) => {
                self.overlay = Overlay::ExportPrompt(p.clone());
            }
            (_, Action::Quit) => return false,
            _ => {}
        }
        true
    }

    fn insert(&mut self, c: char) {
        match &mut self.overlay {
            Overlay::ExportPrompt(p) => p.push(c),
            Overlay::ConfirmOverwrite(p) => {
                let p = p.clone();
                match c {
                    'y' | 'Y' => self.export(&p, true),
                    'n' | 'N' => self.overlay = Overlay::ExportPrompt(p),
                    _ => {}
                }
            }
            Overlay::Help(_) => self.overlay = Overlay::None,
            Overlay::None => {
                self.edit_query(|q| q.push(c));
                self.sync_source(false);
            }
        }
    }

    fn edit_query(&mut self, f: impl FnOnce(&mut String)) {
        if let Overlay::ExportPrompt(p) = &mut self.overlay {
            f(p);
            return;
        }
        let mut q = self.search.query.clone();
        f(&mut q);
        if q != self.search.query {
            if let Some(m) = self.mode.engine() {
                self.chunks.query(&q, m);
            }
            self.search.set_query(q);
        }
    }

    fn move_by(&mut self, d: isize) {
        match self.focus {
            Focus::Search if self.mode == SearchMode::Symbols => self.search.move_by(d),
            Focus::Search => self.chunks.move_by(d),
            Focus::Tree => {
                let n = self.tree_rows().len();
                if let Some(t) = &mut self.tree {
                    t.selected = (t.selected as isize)
                        .saturating_add(d)
                        .clamp(0, n.saturating_sub(1) as isize)
                        as usize;
                }
            }
            Focus::Source => {
                let h = self.areas.source.height.saturating_sub(2) as usize;
                self.source.scroll =
                    (self.source.scroll as isize).saturating_add(d).max(0) as usize;
                self.source.clamp(h);
            }
            Focus::Impact => {
                if let Some(i) = &mut self.impact {
                    i.scroll = (i.scroll as isize).saturating_add(d).max(0) as usize;
                }
            }
        }
    }

    fn clamp_tree(&mut self) {
        let n = self.tree_rows().len();
        if let Some(t) = &mut self.tree {
            t.selected = t.selected.min(n.saturating_sub(1));
        }
    }

    fn expand(&mut self, open: bool) {
        if self.focus != Focus::Tree {
            return;
        }
        let (Some(i), Some(snap)) = (self.selected_tree_node(), self.snapshot.clone()) else {
            return;
        };
        let filters = self.filters;
        let Some(t) = &mut self.tree else { return };
        if open {
            if t.nodes[i].cycle {
                self.status.message = Some("cycle: this symbol is already above".into());
            } else if t.nodes[i].expanded {
                // Already open: step onto the first child, like a file tree.
                if t.nodes[i].children.as_ref().is_some_and(|c| !c.is_empty()) {
                    t.selected += 1;
                }
            } else {
                t.expand(&snap, i);
            }
        } else if t.nodes[i].expanded && i != 0 {
            t.nodes[i].expanded = false;
        } else if let Some(p) = t.nodes[i].parent {
            let rows = t.rows(&snap, filters);
            if let Some(r) = rows.iter().position(|r| *r == Row::Node(p)) {
                t.selected = r;
            }
        }
        self.clamp_tree();
    }

    fn activate(&mut self) {
        match self.focus {
            Focus::Search => {
                let known = |id: &Arc<str>| {
                    self.snapshot
                        .as_ref()
                        .is_some_and(|s| s.index.graph.node(id).is_some())
                };
                // Enter can come before the matcher has caught up with the last keys.
                if self.mode == SearchMode::Symbols {
                    self.search.finish_matching();
                }
                match self.search_selection().filter(known) {
                    Some(id) => {
                        self.focus_symbol(id, Walk::Callers);
                        self.focus = Focus::Tree;
                    }
                    None => self.status.message = Some("no symbol matches the query".into()),
                }
            }
            Focus::Tree => {
                if let (Some(i), Some(t)) = (self.selected_tree_node(), &self.tree) {
                    if i != 0 {
                        let (id, dir) = (t.nodes[i].id.clone(), t.direction);
                        self.focus_symbol(id, dir);
                    }
                }
            }
            Focus::Source | Focus::Impact => {}
        }
    }

    fn history_step(&mut self, d: isize) {
        let to = self.history_pos as isize + d;
        if to < 0 || to as usize >= self.history.len() {
            self.status.message = Some(if d < 0 {
                "no earlier root".into()
            } else {
                "no later root".into()
            });
            return;
        }
        self.history_pos = to as usize;
        let (id, dir) = self.history[self.history_pos].clone();
        self.show_root(id, dir);
    }

    /// Writes the shown subgraph (root, direction, depth as on screen) to `path` as
    /// subgraph JSON; without `overwrite`, an existing file opens the confirmation.
    pub fn export(&mut self, path: &str, overwrite: bool) {
        let (Some(t), Some(snap)) = (&self.tree, &self.snapshot) else {
            self.overlay = Overlay::None;
            return;
        };
        let rows = t.rows(snap, self.filters);
        let sub = t.visible_subgraph(snap, &rows, self.filters);
        let mut json = match serde_json::to_vec_pretty(&sub) {
            Ok(j) => j,
            Err(e) => {
                self.status.error = Some(format!("export: {e}"));
                return;
            }
        };
        json.push(b'\n');
        let p = Path::new(path);
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true);
        if overwrite {
            opts.create(true).truncate(true);
        } else {
            opts.create_new(true);
        }
        let r = opts
            .open(p)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &json));
        match r {
            Ok(()) => {
                self.overlay = Overlay::None;
                let shown = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
                self.status.message = Some(format!(
                    "exported {} nodes, {} edges to {}",
                    sub.nodes.len(),
                    sub.edges.len(),
                    shown.display()
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                self.overlay = Overlay::ConfirmOverwrite(path.to_string());
            }
            Err(e) => {
                self.overlay = Overlay::ExportPrompt(path.to_string());
                self.status.error = Some(format!("cannot write {path}: {e}"));
            }
        }
    }

    /// The node id selected in the search results of the current mode (a chunk hit's id
    /// is its definition, or its file for a line-window chunk).
    pub fn search_selection(&self) -> Option<Arc<str>> {
        match self.mode {
            SearchMode::Symbols => self.search.selected_symbol().map(|s| s.id.clone()),
            _ => self.chunks.selected_hit().map(|h| Arc::from(h.id.as_str())),
        }
    }

    /// Points the source view at the current symbol: the selected search result while
    /// the search has focus, else the selected call-tree node. `recenter` forces scrolling
    /// to it even when the file did not change. While the symbol matcher is still running the top match is about to change again,
    /// so reading and highlighting its file would only delay the next frame (hundreds of
    /// milliseconds for a large file, with a million symbols): the view is marked stale
    /// and follows at the first tick after matching ends.
    pub fn sync_source(&mut self, recenter: bool) {
        let Some(snap) = self.snapshot.clone() else {
            return;
        };
        if !recenter
            && self.focus == Focus::Search
            && self.mode == SearchMode::Symbols
            && self.search.matching()
        {
            self.source_stale = true;
            return;
        }
        let g = &snap.index.graph;
        let (id, sites): (Option<Arc<str>>, Vec<(u32, u32)>) = match self.focus {
            Focus::Search if self.tree.is_none() || !self.search.query.is_empty() => {
                (self.search_selection(), Vec::new())
            }
            _ => match (self.selected_tree_node(), &self.tree) {
                (Some(i), Some(t)) => {
                    let n = &t.nodes[i];
                    let sites = n.via.as_ref().map_or(Vec::new(), |v| {
                        v.sites.iter().map(|s| (s.line, s.column)).collect()
                    });
                    (Some(n.id.clone()), sites)
                }
                _ => (None, Vec::new()),
            },
        };
        let Some(node) = id.as_deref().and_then(|id| g.node(id)) else {
            // Nothing selected (the query matches nothing): showing the last match's file
            // would present a symbol the list no longer holds.
            if self.focus == Focus::Search && !self.source.path.is_empty() {
                self.source = SourceView::default();
            }
            return;
        };
        let range = Some((node.start_line, node.end_line));
        // Sites are in the caller's file: show them only when that is the shown file.
        let sites: Vec<(u32, u32)> = match self.tree.as_ref().map(|t| t.direction) {
            Some(Walk::Callees) => Vec::new(),
            _ => sites,
        };
        let same = self.source.path == *node.file && self.source.range == range;
        if same && self.source.sites == sites && !recenter {
            return;
        }
        if self.source.path != *node.file {
            match self
                .sources
                .get(&self.root, &node.file, &node.language, &self.theme)
            {
                Ok(shown) => {
                    self.source.changed_on_disk = changed_on_disk(&snap, &node.file, &shown);
                    self.source.lines = shown.lines;
                    self.source.error = None;
                }
                Err(e) => {
                    self.source.lines = Arc::new(Vec::new());
                    self.source.error = Some(e);
                    self.source.changed_on_disk = false;
                }
            }
            self.source.path = node.file.to_string();
        }
        self.source.range = range;
        self.source.sites = sites;
        let h = (self.areas.source.height.saturating_sub(2) as usize).max(10);
        let line = self.source.focus_line();
        self.source.center_on(line, h);
    }

    /// Whether the file the source panel shows differs from what the snapshot indexed
    /// (false when nothing is shown, it cannot be read, or the facts are not loaded).
    fn source_changed_on_disk(&mut self) -> bool {
        let (Some(snap), false) = (self.snapshot.clone(), self.source.path.is_empty()) else {
            return false;
        };
        let path = self.source.path.clone();
        let Some(language) = snap.index.graph.node(&path).map(|n| n.language.clone()) else {
            return false;
        };
        self.sources
            .get(&self.root, &path, &language, &self.theme)
            .is_ok_and(|shown| changed_on_disk(&snap, &path, &shown))
    }

    /// Applies a mouse event: a click focuses the panel under it and selects the row; the
    /// wheel scrolls the panel under the pointer.
    pub fn mouse(&mut self, m: MouseEvent) {
        if self.overlay != Overlay::None {
            if matches!(m.kind, MouseEventKind::Down(_)) {
                if let Overlay::Help(_) = self.overlay {
                    self.overlay = Overlay::None;
                }
            }
            return;
        }
        let pos = Position::new(m.column, m.row);
        let a = self.areas;
        let Some((panel, area)) = [
            (Focus::Search, a.search),
            (Focus::Tree, a.tree),
            (Focus::Source, a.source),
            (Focus::Impact, a.impact),
        ]
        .into_iter()
        .find(|(_, r)| r.contains(pos)) else {
            return;
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let d = if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                };
                let keep = self.focus;
                self.focus = panel;
                self.move_by(d);
                self.focus = keep;
                self.sync_source(false);
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = panel;
                let inner_row = m.row.saturating_sub(area.y + 1) as usize;
                match panel {
                    Focus::Search if inner_row >= 1 && self.mode == SearchMode::Symbols => {
                        let target = self.search.offset + inner_row - 1;
                        if target < self.search.matched() {
                            self.search.selected = target;
                        }
                    }
                    Focus::Search if inner_row >= 1 => {
                        let target = self.chunks.offset + inner_row - 1;
                        if target < self.chunks.hits.len() {
                            self.chunks.selected = target;
                        }
                    }
                    Focus::Tree => {
                        let n = self.tree_rows().len();
                        if let Some(t) = &mut self.tree {
                            let target = t.offset + inner_row;
                            if target < n {
                                t.selected = target;
                            }
                        }
                    }
                    _ => {}
                }
                self.sync_source(false);
            }
            _ => {}
        }
    }
}

/// A file-name-safe version of a symbol name.
fn file_safe(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "symbol".into()
    } else {
        s
    }
}

/// Whether `shown` (file `path` as read now) differs from what `snap` indexed of it, by
/// content hash; false when the snapshot has no facts of it (a graph served alone).
fn changed_on_disk(snap: &Snapshot, path: &str, shown: &crate::tui::source::Shown) -> bool {
    snap.index
        .files
        .binary_search_by(|f| f.path.as_str().cmp(path))
        .is_ok_and(|i| snap.index.files[i].content_hash != shown.content_hash)
}
