//! What each keymap [`Action`] does to the [`App`], typed characters included: focus and
//! movement, expanding the call tree, history, toggles, the export prompt and the export
//! itself. Its own module because it is the bulk of the state changes and reads best as
//! one list next to the keymap.

use std::path::Path;
use std::sync::Arc;

use super::{App, External, Focus, Overlay};
use crate::index::Walk;
use crate::tui::chunks::SearchMode;
use crate::tui::impact::ImpactRow;
use crate::tui::keymap::Action;
use crate::tui::lists::ListKind;
use crate::worker::IndexCommand;

impl App {
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
        // A count is for the action right after it.
        let count = self.count.take();
        match a {
            Action::Quit => self.quit = true,
            Action::Escape => {
                if self.focus == Focus::Search {
                    self.focus = Focus::Tree;
                } else if self
                    .list
                    .as_ref()
                    .is_some_and(|l| l.kind == ListKind::Definitions)
                {
                    // The candidates of a go to definition: back to the source.
                    self.list = None;
                    self.focus = Focus::Source;
                    self.sync_source(true);
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
            Action::ExpandDepth => self.expand_depth(count),
            Action::Count(d) => {
                self.count = Some(d);
                let levels = crate::tui::words::count(d as usize, "level", "levels");
                self.status.message = Some(format!("{d}: * expands {levels}"));
            }
            Action::CopyId => self.copy(false),
            Action::CopyLocation => self.copy(true),
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
            Action::WordLeft => self.source.cursor_word(false),
            Action::WordRight => self.source.cursor_word(true),
            Action::ToggleOutline => self.toggle_outline(),
            Action::ToggleHierarchy => self.toggle_list(ListKind::Hierarchy),
            Action::ToggleReferences => self.toggle_list(ListKind::References),
            Action::ToggleDead => self.toggle_dead(),
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
                self.status.message = Some(format!("search mode: {}", self.mode.name()));
                self.sync_source(false);
            }
            Action::ToggleTwins => {
                self.search.fold_twins = !self.search.fold_twins;
                if let Some(snap) = self.snapshot.clone() {
                    self.search.load(&snap);
                }
                self.status.message = Some(
                    if self.search.fold_twins {
                        "generated twins folded under one row (+N)"
                    } else {
                        "generated twins listed"
                    }
                    .into(),
                );
            }
            Action::OpenEditor => {
                if !self.source.path.is_empty() {
                    self.pending = Some(External::Editor {
                        path: self.root.join(&self.source.path),
                        line: self.source.editor_line(),
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
                    self.overlay = Overlay::ExportPrompt(self.default_export(&name));
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
            Action::ListSkipped => match &self.snapshot {
                Some(s) if super::left_out(&s.index).is_empty() => {
                    self.status.message = Some("no file was left out of the index".into())
                }
                Some(_) => self.overlay = Overlay::Skipped(0),
                None => self.status.message = Some("indexing: the list comes when it ends".into()),
            },
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
            // The scrolled overlays: every movement key scrolls (the draw clamps the
            // scroll to the text), Suspend suspends, any other key closes.
            (Overlay::Help(s) | Overlay::Skipped(s), Action::Down) => *s = s.saturating_add(1),
            (Overlay::Help(s) | Overlay::Skipped(s), Action::Up) => *s = s.saturating_sub(1),
            (Overlay::Help(s) | Overlay::Skipped(s), Action::PageDown) => {
                *s = s.saturating_add(self.areas.help_page.max(1))
            }
            (Overlay::Help(s) | Overlay::Skipped(s), Action::PageUp) => {
                *s = s.saturating_sub(self.areas.help_page.max(1))
            }
            (Overlay::Help(s) | Overlay::Skipped(s), Action::Top) => *s = 0,
            (Overlay::Help(s) | Overlay::Skipped(s), Action::Bottom) => *s = usize::MAX / 2,
            (Overlay::Help(_) | Overlay::Skipped(_), Action::Suspend) => return false,
            (Overlay::Help(_) | Overlay::Skipped(_), _) => self.overlay = Overlay::None,
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

    pub(super) fn insert(&mut self, c: char) {
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
            Overlay::Help(_) | Overlay::Skipped(_) => self.overlay = Overlay::None,
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

    pub(super) fn move_by(&mut self, d: isize) {
        match self.focus {
            Focus::Search if self.mode == SearchMode::Symbols => self.search.move_by(d),
            Focus::Search => self.chunks.move_by(d),
            Focus::Tree if self.list.is_some() => {
                if let Some(l) = &mut self.list {
                    l.move_by(d);
                }
            }
            Focus::Tree if self.outline.is_some() => {
                if let Some(o) = &mut self.outline {
                    o.move_by(d);
                }
            }
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
                self.source.cursor_lines(d, h);
            }
            Focus::Impact => {
                if let Some(i) = &mut self.impact {
                    i.move_by(d);
                }
            }
        }
    }

    pub(super) fn clamp_tree(&mut self) {
        let n = self.tree_rows().len();
        if let Some(t) = &mut self.tree {
            t.selected = t.selected.min(n.saturating_sub(1));
        }
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
                if self.snapshot.is_none() {
                    self.status.message =
                        Some("indexing: symbols can be opened when the first pass ends".into());
                    return;
                }
                match self.search_selection().filter(known) {
                    Some(id) if self.is_text_window(&id) => {
                        // A line window of a file without definitions (a document, or
                        // top-level code): it has no callers; its lines are on screen.
                        let (a, b) = self
                            .chunks
                            .selected_hit()
                            .map_or((0, 0), |h| (h.start_line, h.end_line));
                        self.status.message = Some(format!(
                            "{id}:{a}-{b} is a window of text, not a definition: no call tree \
                             (its lines are in the source panel)"
                        ));
                    }
                    Some(id) => {
                        self.focus_symbol(id, Walk::Callers);
                        self.focus = Focus::Tree;
                    }
                    None => self.status.message = Some("no symbol matches the query".into()),
                }
            }
            Focus::Tree => self.activate_tree(),
            Focus::Impact => self.activate_impact(),
            Focus::Source => self.goto_definition(),
        }
    }

    /// Enter in the impact panel: a caller, entry point or test becomes the root (callers
    /// first); the lower-bound row lists or hides its reasons; other rows say why not.
    fn activate_impact(&mut self) {
        let Some(v) = &mut self.impact else { return };
        let row = v.rows().get(v.selected).cloned();
        match row {
            Some(ImpactRow::LowerBound) => v.show_reasons = !v.show_reasons,
            Some(ImpactRow::Caller(_, id) | ImpactRow::Member(id)) => {
                self.focus_symbol(Arc::from(id), Walk::Callers);
                self.focus = Focus::Tree;
            }
            Some(ImpactRow::File(path)) => {
                self.status.message = Some(format!(
                    "{path} is a file: Enter on a caller in it makes that caller the root"
                ))
            }
            _ => {
                self.status.message =
                    Some("Enter on a caller, entry point or test makes it the root".into())
            }
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
        self.save_tree();
        self.history_pos = to as usize;
        self.restore_root(self.history_pos);
    }

    /// The export prompt's first path: `<export dir>/<repo>-<symbol>.json`, outside the
    /// repository (see [`crate::config::export_dir`]); the system's temporary folder when
    /// there is no home folder.
    fn default_export(&self, name: &str) -> String {
        let dir = crate::config::export_dir().unwrap_or_else(std::env::temp_dir);
        let repo = self
            .root
            .file_name()
            .map_or("repo".into(), |n| file_safe(&n.to_string_lossy()));
        dir.join(format!("{repo}-{name}.json"))
            .display()
            .to_string()
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
        // The default folder is made on first use; a folder typed by hand must exist.
        if let (Some(parent), Some(dir)) = (p.parent(), crate::config::export_dir()) {
            if parent == dir {
                let _ = std::fs::create_dir_all(parent);
            }
        }
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
                let inside = if self.inside_repo(&shown) {
                    " (inside the repository: it will be indexed with it)"
                } else {
                    ""
                };
                self.status.message = Some(format!(
                    "exported {}, {} to {}{inside}",
                    crate::tui::words::count(sub.nodes.len(), "node", "nodes"),
                    crate::tui::words::count(sub.edges.len(), "edge", "edges"),
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
}

impl App {
    /// Whether `path` (absolute, or relative to the working directory) is under the
    /// repository root, where the walk and the watcher would index it. Lexical (the root
    /// is canonical; a path through a symlink into the repository is not seen), so the
    /// export prompt can ask it while drawing.
    pub fn inside_repo(&self, path: &Path) -> bool {
        std::path::absolute(path).is_ok_and(|abs| abs.starts_with(&self.root))
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
