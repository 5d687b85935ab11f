//! The source panel following the selection: which symbol is current (the search result
//! or the call-tree node), reading and highlighting its file through the cache, call-site
//! marks, and the "changed on disk" mark. Its own module because it is the one part of
//! the state that reads files.

use std::sync::Arc;

use super::{App, Focus};
use crate::index::Walk;
use crate::tui::chunks::SearchMode;
use crate::tui::source::{Shown, SourceView};
use crate::tui::tree::Row;
use crate::worker::Snapshot;

impl App {
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
            // A row of the hierarchy or references: its node, the reference's site marked.
            _ if self.list.is_some() => {
                match self.list.as_ref().and_then(|l| l.rows.get(l.selected)) {
                    Some(r) => (r.id.clone(), r.site.iter().map(|s| (s.1, s.2)).collect()),
                    None => (None, Vec::new()),
                }
            }
            _ if self.outline.is_some() => (
                self.outline.as_ref().and_then(|o| o.selected_id().cloned()),
                Vec::new(),
            ),
            _ => match (self.selected_tree_row(), &self.tree) {
                // An unresolved call: its caller, with the call's site marked.
                (Some(Row::Call { node, call }), Some(t)) => {
                    match t.nodes[node].unresolved.as_ref().map(|u| &u.0[call]) {
                        Some(c) => (Some(c.caller.clone()), vec![(c.site.line, c.site.column)]),
                        None => (None, Vec::new()),
                    }
                }
                // A candidate of an ambiguous call: its definition.
                (Some(Row::Candidate { node, call, cand }), Some(t)) => (
                    t.nodes[node]
                        .unresolved
                        .as_ref()
                        .map(|u| u.0[call].candidates[cand].clone()),
                    Vec::new(),
                ),
                (Some(row), Some(t)) => {
                    let n = &t.nodes[row.node()];
                    let sites = n.via.as_ref().map_or(Vec::new(), |v| {
                        v.sites.iter().map(|s| (s.line, s.column)).collect()
                    });
                    (Some(n.id.clone()), sites)
                }
                _ => (None, Vec::new()),
            },
        };
        let call_row = matches!(self.selected_tree_row(), Some(Row::Call { .. }))
            && self.focus != Focus::Search;
        let Some(node) = id.as_deref().and_then(|id| g.node(id)) else {
            // Nothing selected (the query matches nothing): showing the last match's file
            // would present a symbol the list no longer holds.
            if self.focus == Focus::Search && !self.source.path.is_empty() {
                self.source = SourceView::default();
            }
            return;
        };
        // A text hit shows its chunk's lines (a line window is not the whole file).
        let hit = (self.focus == Focus::Search && self.mode != SearchMode::Symbols)
            .then(|| self.chunks.selected_hit())
            .flatten();
        let range = match hit {
            Some(h) => Some((h.start_line, h.end_line)),
            None => Some((node.start_line, node.end_line)),
        };
        // Sites are in the caller's file: show them only when that is the shown file.
        let sites: Vec<(u32, u32)> = match self.tree.as_ref().map(|t| t.direction) {
            Some(Walk::Callees) if !call_row => Vec::new(),
            _ => sites,
        };
        // Which symbol, and from which panel: the source follows the search selection or
        // the tree's, which need not be the tree's root the impact panel is about.
        self.source.shows = Some((
            match node.kind {
                crate::index::Kind::File => "(top level)".into(),
                // The in-file name (`BaseCommand.__call__`), as the other titles.
                _ => node
                    .id
                    .split_once("::")
                    .map_or(&*node.id, |(_, r)| r)
                    .to_string(),
            },
            if self.focus == Focus::Search && (self.tree.is_none() || !self.search.query.is_empty())
            {
                "search"
            } else if let Some(l) = &self.list {
                match l.kind {
                    crate::tui::lists::ListKind::Hierarchy => "hierarchy",
                    crate::tui::lists::ListKind::References => "references",
                    crate::tui::lists::ListKind::Definitions => "definitions",
                    crate::tui::lists::ListKind::Dead => "dead code",
                }
            } else if self.outline.is_some() {
                "outline"
            } else {
                "tree"
            },
        ));
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
        self.source.cursor_home();
    }

    /// Whether the file the source panel shows differs from what the snapshot indexed
    /// (false when nothing is shown, it cannot be read, or the facts are not loaded).
    pub(super) fn source_changed_on_disk(&mut self) -> bool {
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
}

/// Whether `shown` (file `path` as read now) differs from what `snap` indexed of it, by
/// content hash; false when the snapshot has no facts of it (a graph served alone).
fn changed_on_disk(snap: &Snapshot, path: &str, shown: &Shown) -> bool {
    snap.index
        .files
        .binary_search_by(|f| f.path.as_str().cmp(path))
        .is_ok_and(|i| snap.index.files[i].content_hash != shown.content_hash)
}
