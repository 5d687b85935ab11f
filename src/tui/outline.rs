//! The outline of one file: its definitions in source order, each indented under the
//! class, impl or module that contains it (the graph's `contains` edges), with its kind,
//! first line and how many callers it has. Shown in the call tree's place (`o`); Enter on
//! a member makes it the root of the call tree.

use std::sync::Arc;

use crate::index::{CodeGraph, Kind, Relation, Walk};

/// One definition of the outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineRow {
    /// Node id.
    pub id: Arc<str>,
    /// Nesting: 0 for a top-level definition, 1 for a member of one, ...
    pub depth: u32,
    /// Kind.
    pub kind: Kind,
    /// Own name.
    pub name: Arc<str>,
    /// 1-based first line.
    pub line: u32,
    /// Distinct callers over `calls` and `references` edges.
    pub callers: usize,
}

/// The outline of a file and the selection in it.
#[derive(Debug, Clone)]
pub struct Outline {
    /// Repo-relative path of the file.
    pub file: Arc<str>,
    /// Its definitions, in source order (a container before its members).
    pub rows: Vec<OutlineRow>,
    /// Selected row.
    pub selected: usize,
    /// First row on screen.
    pub offset: usize,
}

impl Outline {
    /// The outline of `file` (a file node id, which is its path). `None` when the graph
    /// has no such file. Cost: one `contains` walk over the file's definitions and each
    /// definition's incoming edges.
    pub fn of(g: &CodeGraph, file: &str) -> Option<Outline> {
        let f = g.node(file).filter(|n| n.kind == Kind::File)?;
        let mut rows = Vec::new();
        let mut stack: Vec<(Arc<str>, u32)> = members(g, &f.id)
            .into_iter()
            .rev()
            .map(|id| (id, 0))
            .collect();
        while let Some((id, depth)) = stack.pop() {
            let Some(n) = g.node(&id) else { continue };
            let mut callers: Vec<String> = g
                .edges_of(&id, Walk::Callers, &[Relation::Calls, Relation::References])
                .into_iter()
                .map(|e| e.source)
                .collect();
            callers.sort_unstable();
            callers.dedup();
            rows.push(OutlineRow {
                id: n.id.clone(),
                depth,
                kind: n.kind,
                name: n.name.clone(),
                line: n.start_line,
                callers: callers.len(),
            });
            stack.extend(members(g, &id).into_iter().rev().map(|m| (m, depth + 1)));
        }
        Some(Outline {
            file: f.id.clone(),
            rows,
            selected: 0,
            offset: 0,
        })
    }

    /// The selected definition's id.
    pub fn selected_id(&self) -> Option<&Arc<str>> {
        self.rows.get(self.selected).map(|r| &r.id)
    }

    /// Moves the selection by `d` rows, clamped.
    pub fn move_by(&mut self, d: isize) {
        let n = self.rows.len();
        self.selected = (self.selected as isize)
            .saturating_add(d)
            .clamp(0, n.saturating_sub(1) as isize) as usize;
    }

    /// Selects the row of `id`, if it is in the outline.
    pub fn select(&mut self, id: &str) {
        if let Some(i) = self.rows.iter().position(|r| &*r.id == id) {
            self.selected = i;
        }
    }
}

/// The definitions `id` contains directly, by first line.
fn members(g: &CodeGraph, id: &str) -> Vec<Arc<str>> {
    let mut m: Vec<(u32, Arc<str>)> = g
        .edges_of(id, Walk::Callees, &[Relation::Contains])
        .into_iter()
        .filter(|e| e.source == id)
        .filter_map(|e| g.node(&e.target).map(|n| (n.start_line, n.id.clone())))
        .collect();
    m.sort();
    m.into_iter().map(|(_, id)| id).collect()
}
