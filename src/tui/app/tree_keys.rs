//! What the call tree does with Right/Left and Enter, row by row: a node expands,
//! collapses or becomes the root; an unresolved row opens its list of calls; a call
//! re-roots on its caller, a candidate on the definition it names; a row a filter hides
//! says which key shows it; the outline (`o`), the type hierarchy (`i`) and the references
//! (`R`) take the tree's place, and Enter on their rows does what each view means. Its own module because each kind of row means something else.

use std::sync::Arc;

use super::{App, Focus};
use crate::index::{Kind, Walk};
use crate::tui::lists::{ListKind, SymbolList};
use crate::tui::outline::Outline;
use crate::tui::tree::Row;
use crate::tui::words;
use crate::worker::Snapshot;

impl App {
    /// The selected call-tree row.
    pub fn selected_tree_row(&self) -> Option<Row> {
        let rows = self.tree_rows();
        let t = self.tree.as_ref()?;
        rows.get(t.selected.min(rows.len().saturating_sub(1)))
            .copied()
    }

    /// `true` when `id` is a file node: what a text hit names when its chunk is a line
    /// window (a document, or a file's top-level code), not a definition.
    pub(super) fn is_text_window(&self, id: &str) -> bool {
        self.mode != crate::tui::chunks::SearchMode::Symbols
            && self
                .snapshot
                .as_ref()
                .and_then(|s| s.index.graph.node(id))
                .is_some_and(|n| n.kind == Kind::File)
    }

    /// The symbol the views in the tree's place are about: the search selection while
    /// the search has focus, else the selected row of the outline, list or tree.
    pub(super) fn shown_symbol(&self) -> Option<Arc<str>> {
        match self.focus {
            Focus::Search => self.search_selection(),
            _ => self
                .list
                .as_ref()
                .and_then(|l| l.selected_id().cloned())
                .or_else(|| self.outline.as_ref().and_then(|o| o.selected_id().cloned()))
                .or_else(|| {
                    self.selected_tree_node()
                        .and_then(|i| self.tree.as_ref().map(|t| t.nodes[i].id.clone()))
                }),
        }
    }

    /// `i` and `R`: the type hierarchy or the references of the shown symbol in the tree's
    /// place, or the tree again (the same key closes it; the other key switches).
    pub(super) fn toggle_list(&mut self, kind: ListKind) {
        let Some(snap) = self.close_list_or_snapshot(kind) else {
            return;
        };
        let Some(id) = self.shown_symbol() else {
            self.status.message = Some("pick a symbol first".into());
            return;
        };
        let lines = crate::index::impact::FsLines::new(self.root.clone());
        match SymbolList::of(&snap.index.graph, kind, &id, &lines) {
            Some(l) => {
                self.outline = None;
                self.list = Some(l);
                self.focus = Focus::Tree;
                self.sync_source(true);
            }
            None => self.status.message = Some(format!("{id} is not in the graph")),
        }
    }

    /// `D`: the dead-code candidates in the tree's place, or the tree again.
    pub(super) fn toggle_dead(&mut self) {
        let Some(snap) = self.close_list_or_snapshot(ListKind::Dead) else {
            return;
        };
        let lines = crate::index::impact::FsLines::new(self.root.clone());
        self.outline = None;
        self.list = Some(SymbolList::dead(&snap.index.graph, &lines));
        self.focus = Focus::Tree;
        self.sync_source(true);
    }

    /// The shared start of a list view's key: closes the view when `kind` is the one shown
    /// (`None`), says so while there is no snapshot yet (`None`), else the snapshot to build
    /// the view from.
    fn close_list_or_snapshot(&mut self, kind: ListKind) -> Option<Arc<Snapshot>> {
        if self.list.as_ref().is_some_and(|l| l.kind == kind) {
            self.list = None;
            self.sync_source(true);
            return None;
        }
        if self.snapshot.is_none() {
            self.status.message = Some("indexing: the view comes when it ends".into());
        }
        self.snapshot.clone()
    }

    /// `o`: the outline of the shown file in the tree's place (the shown symbol selected),
    /// or the tree again.
    pub(super) fn toggle_outline(&mut self) {
        if self.outline.take().is_some() {
            self.sync_source(true);
            return;
        }
        let Some(snap) = self.snapshot.clone() else {
            self.status.message = Some("indexing: the outline comes when it ends".into());
            return;
        };
        let g = &snap.index.graph;
        let file = if !self.source.path.is_empty() {
            Some(self.source.path.clone())
        } else {
            self.tree
                .as_ref()
                .and_then(|t| g.node(t.root()))
                .map(|n| n.file.to_string())
        };
        let Some(mut o) = file.and_then(|f| Outline::of(g, &f)) else {
            self.status.message = Some("no file to outline: pick a symbol first".into());
            return;
        };
        if let Some(id) = self.shown_symbol() {
            o.select(&id);
        }
        self.list = None;
        self.outline = Some(o);
        self.focus = Focus::Tree;
        self.sync_source(true);
    }

    /// Right (`open`) or Left on the selected row.
    pub(super) fn expand(&mut self, open: bool) {
        if self.focus != Focus::Tree || self.outline.is_some() || self.list.is_some() {
            return;
        }
        let (Some(row), Some(snap)) = (self.selected_tree_row(), self.snapshot.clone()) else {
            return;
        };
        let filters = self.filters;
        let Some(t) = &mut self.tree else { return };
        let go_to = |t: &mut crate::tui::tree::CallTree, target: Row| {
            if let Some(r) = t.rows(&snap, filters).iter().position(|r| *r == target) {
                t.selected = r;
            }
        };
        match row {
            Row::Unresolved { node, .. } => {
                if open != t.nodes[node].unresolved.is_some() {
                    t.toggle_unresolved(&snap, node);
                } else if !open {
                    go_to(t, Row::Node(node));
                }
            }
            Row::Call { node, .. } | Row::Candidate { node, .. } if !open => {
                let count = t.unresolved_count(&snap, node);
                go_to(t, Row::Unresolved { node, count });
            }
            Row::Hidden { node, .. } if !open => go_to(t, Row::Node(node)),
            Row::Node(i) if open => {
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
            }
            Row::Node(i) => {
                if t.nodes[i].expanded && i != 0 {
                    t.nodes[i].expanded = false;
                } else if let Some(p) = t.nodes[i].parent {
                    go_to(t, Row::Node(p));
                }
            }
            _ => {}
        }
        self.clamp_tree();
    }

    /// `*`: the selected node's subtree expanded `count` levels (else the setting's), within
    /// [`EXPAND_BUDGET`] rows; the status bar says how far it went and how many nodes the
    /// budget left closed.
    ///
    /// [`EXPAND_BUDGET`]: crate::tui::tree::EXPAND_BUDGET
    pub(super) fn expand_depth(&mut self, count: Option<u8>) {
        if self.outline.is_some() || self.list.is_some() {
            self.status.message =
                Some("* expands the call tree: its view's key shows the tree again".into());
            return;
        }
        let (Some(row), Some(snap)) = (self.selected_tree_row(), self.snapshot.clone()) else {
            return;
        };
        let levels = count.map_or(self.settings.expand_depth, u32::from).max(1);
        let Some(t) = &mut self.tree else { return };
        let Row::Node(i) = row else {
            self.status.message = Some("* expands a symbol's row".into());
            return;
        };
        if t.nodes[i].cycle {
            self.status.message = Some("cycle: this symbol is already above".into());
            return;
        }
        let budget = crate::tui::tree::EXPAND_BUDGET;
        let e = t.expand_to(&snap, i, levels, budget);
        let nodes = words::count(e.rows, "node", "nodes");
        self.status.message = Some(if e.rows == 0 {
            "nothing below this node to expand".to_string()
        } else if e.left_closed > 0 {
            format!(
                "expanded {} of {} fully, {nodes}; {} more left closed \
                 (budget {budget} rows; Right opens one)",
                e.levels,
                words::count(levels as usize, "level", "levels"),
                e.left_closed
            )
        } else if e.levels < levels {
            match e.levels {
                1 => format!("expanded the one level there is, {nodes}"),
                n => format!("expanded all {n} levels there are, {nodes}"),
            }
        } else {
            format!(
                "expanded {}, {nodes}",
                words::count(levels as usize, "level", "levels")
            )
        });
        self.clamp_tree();
    }

    /// Enter on the selected row: each kind of row does what it means, or says why not.
    pub(super) fn activate_tree(&mut self) {
        if let Some(l) = &self.list {
            let Some(id) = l.selected_id().cloned() else {
                self.status.message = Some("a heading: Enter on a row below it".into());
                return;
            };
            match l.kind {
                // Another type of the hierarchy: its own hierarchy.
                ListKind::Hierarchy => {
                    if let Some(snap) = self.snapshot.clone() {
                        self.list = SymbolList::of(
                            &snap.index.graph,
                            ListKind::Hierarchy,
                            &id,
                            &crate::index::impact::NoLines,
                        );
                        self.sync_source(true);
                    }
                }
                // A reference or an import: that definition's (or file's) callers.
                ListKind::References => {
                    self.list = None;
                    self.focus_symbol(id, Walk::Callers);
                }
                // A definition the name may mean, or a dead-code candidate: go there.
                ListKind::Definitions | ListKind::Dead => {
                    self.list = None;
                    self.focus_symbol(id, Walk::Callers);
                    self.focus = Focus::Source;
                }
            }
            return;
        }
        if let Some(o) = &self.outline {
            // A member of the outline: its callers, in the tree again.
            if let Some(id) = o.selected_id().cloned() {
                self.outline = None;
                self.focus_symbol(id, Walk::Callers);
            }
            return;
        }
        let (Some(row), Some(snap)) = (self.selected_tree_row(), self.snapshot.clone()) else {
            return;
        };
        let Some(t) = &mut self.tree else { return };
        let dir = t.direction;
        match row {
            Row::Node(0) => {
                self.status.message = Some("this is the root: Enter on a row below re-roots".into())
            }
            Row::Node(i) => {
                let id = t.nodes[i].id.clone();
                self.focus_symbol(id, dir);
            }
            Row::Unresolved { node, .. } => {
                t.toggle_unresolved(&snap, node);
                self.clamp_tree();
            }
            Row::Call { node, call } => {
                let c = t.nodes[node].unresolved.as_ref().map(|u| u.0[call].clone());
                let Some(c) = c else { return };
                match dir {
                    Walk::Callees if c.candidates.is_empty() => {
                        self.status.message = Some(format!(
                            "{}: the target is not known ({})",
                            c.name,
                            crate::tui::unresolved::reason_text(c.reason)
                        ))
                    }
                    Walk::Callees => {
                        self.status.message =
                            Some("Enter on a candidate below makes it the root".into())
                    }
                    _ if snap.index.graph.node(&c.caller).is_some() => {
                        self.focus_symbol(Arc::clone(&c.caller), dir)
                    }
                    _ => self.status.message = Some(format!("{} is not in the graph", c.caller)),
                }
            }
            Row::Candidate { node, call, cand } => {
                let id = t.nodes[node]
                    .unresolved
                    .as_ref()
                    .map(|u| u.0[call].candidates[cand].clone());
                if let Some(id) = id {
                    self.focus_symbol(id, dir);
                }
            }
            Row::Hidden { .. } => {
                self.status.message = Some(
                    "hidden by a filter: t shows test code, u shows guessed (unique_name) edges"
                        .into(),
                )
            }
        }
    }
}
