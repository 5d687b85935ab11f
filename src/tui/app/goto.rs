//! Go to definition from the source panel: the word under the cursor becomes a node,
//! through the graph's edges whose call site is on the cursor's line (the resolver's
//! answer for that call), else a lookup of the word as a symbol name. One definition is
//! focused (recorded in the history, so Back returns); several are listed to pick from.

use std::sync::Arc;

use super::{App, Focus};
use crate::index::{CodeGraph, Kind, Node, Relation, Walk};
use crate::tui::lists::{ListKind, SymbolList};

impl App {
    /// Enter in the source panel: jumps to the definition of the word under the cursor,
    /// lists the candidates when the name has several, or says why it cannot.
    pub(super) fn goto_definition(&mut self) {
        let Some(snap) = self.snapshot.clone() else {
            self.status.message = Some("indexing: definitions can be found when it ends".into());
            return;
        };
        let Some((line, col)) = self.source.cursor else {
            self.status.message = Some("no source shown: pick a symbol first".into());
            return;
        };
        let Some((start, word)) = self.source.word_at(line, col) else {
            self.status.message = Some(format!("no name under the cursor on line {line}"));
            return;
        };
        let g = &snap.index.graph;
        if let Some(id) = site_target(g, &self.source.path, line, start, &word) {
            self.jump(id, format!("{word}: the call's definition (line {line})"));
            return;
        }
        let found: Vec<&Node> = g
            .lookup(&word)
            .into_iter()
            .filter(|n| n.kind != Kind::File)
            .collect();
        match found.as_slice() {
            [] => {
                self.status.message = Some(format!(
                    "no definition named {word} in the index (a built-in, a library's, or a local)"
                ))
            }
            [one] => {
                let id = one.id.clone();
                self.jump(id, format!("{word}: its one definition by name"));
            }
            many => {
                let n = many.len();
                self.outline = None;
                self.list = SymbolList::of(
                    g,
                    ListKind::Definitions,
                    &word,
                    &crate::index::impact::NoLines,
                );
                self.focus = Focus::Tree;
                self.status.message = Some(format!(
                    "{n} definitions named {word}: Enter goes to one, Esc back"
                ));
                self.sync_source(true);
            }
        }
    }

    /// Focuses `id` (history recorded) with the source panel keeping the keyboard.
    fn jump(&mut self, id: Arc<str>, why: String) {
        self.outline = None;
        self.list = None;
        self.focus_symbol(id, Walk::Callers);
        self.focus = Focus::Source;
        self.status.message = Some(format!("{why} · Backspace returns"));
    }
}

/// The target of an edge made by a call or reference on 1-based line `line` of `path`:
/// among the edges of the definitions enclosing that line, those with a site on it; the
/// one whose site starts at column `start` (the word's) and whose target is named `word`,
/// else one whose target is named `word`, else the one whose site starts at `start`.
fn site_target(g: &CodeGraph, path: &str, line: u32, start: u32, word: &str) -> Option<Arc<str>> {
    let mut on_line: Vec<(u32, Arc<str>)> = Vec::new();
    let mut stack: Vec<Arc<str>> = vec![Arc::from(path)];
    while let Some(id) = stack.pop() {
        let relations = [
            Relation::Contains,
            Relation::Calls,
            Relation::References,
            Relation::Inherits,
            Relation::Implements,
        ];
        for e in g.edges_of(&id, Walk::Callees, &relations) {
            if *e.source != *id {
                continue;
            }
            if e.relation == Relation::Contains {
                if let Some(n) = g.node(&e.target) {
                    if n.start_line <= line && line <= n.end_line {
                        stack.push(n.id.clone());
                    }
                }
                continue;
            }
            for s in e
                .sites
                .iter()
                .filter(|s| *s.file == *path && s.line == line)
            {
                if let Some(n) = g.node(&e.target) {
                    on_line.push((s.column, n.id.clone()));
                }
            }
        }
    }
    on_line.sort();
    on_line.dedup();
    let named = |id: &Arc<str>| g.node(id).is_some_and(|n| *n.name == *word);
    if let Some((_, id)) = on_line.iter().find(|(c, id)| *c == start && named(id)) {
        return Some(id.clone());
    }
    if let Some((_, id)) = on_line.iter().find(|(_, id)| named(id)) {
        return Some(id.clone());
    }
    if let Some((_, id)) = on_line.iter().find(|(c, _)| *c == start) {
        return Some(id.clone());
    }
    None
}
