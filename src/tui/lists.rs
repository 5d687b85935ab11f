//! Two views of a symbol shown in the call tree's place, both lists of nodes: the type
//! hierarchy (`i`: the base types above a class, trait or interface and its subtypes
//! below, over the graph's `inherits` and `implements` edges, subtypes' methods that
//! override one of the type's marked) and the references (`R`: the definitions that use
//! the symbol as a value, over `references` edges, and the imports of its file whose
//! statement names it or a type holding it, over `imports` edges, each at its site). Enter on a row of the hierarchy shows that
//! type's hierarchy; on a reference, that definition's callers.

use std::collections::HashSet;
use std::sync::Arc;

use crate::index::dead::dead_code;
use crate::index::impact::{LineSource, SourceLines};
use crate::index::{CodeGraph, Kind, Node, Relation, Walk};

/// How deep the hierarchy is followed each way (cycle-safe; a deeper one is cut).
pub const MAX_HIERARCHY_DEPTH: u32 = 12;

/// Which view a [`SymbolList`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// Base types and subtypes.
    Hierarchy,
    /// Uses as a value and imports.
    References,
    /// The definitions a name in the source panel may mean (go to definition found
    /// several): the list's root is the name, not a node id.
    Definitions,
    /// The repository's dead-code candidates ([`crate::index::dead`]); made by
    /// [`SymbolList::dead`], since its rules read declarations from the files.
    Dead,
}

/// One row of a [`SymbolList`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRow {
    /// Indentation level.
    pub depth: u32,
    /// The node of the row (`None` for a heading).
    pub id: Option<Arc<str>>,
    /// A heading's text, or the marker before a node (`▲` base, `▼` subtype, ...).
    pub text: String,
    /// What follows the node's name (`overrides dispatch, route`, `[import]`).
    pub note: String,
    /// Shorter forms of `note`, longest first (`maybe used` for `maybe used (27
    /// unresolved)`): a narrow panel draws the longest that leaves the name's last two
    /// segments and the file name whole, or no note at all, since a cut name or place
    /// makes siblings identical.
    pub short: Vec<String>,
    /// The site of a reference or an import: (file, 1-based line, 1-based char column);
    /// `None` for a row that stands for a definition (its first line is the node's).
    pub site: Option<(Arc<str>, u32, u32)>,
}

impl ListRow {
    fn heading(text: impl Into<String>) -> ListRow {
        ListRow {
            depth: 0,
            id: None,
            text: text.into(),
            note: String::new(),
            short: Vec::new(),
            site: None,
        }
    }

    fn node(depth: u32, mark: &str, n: &Node, note: String) -> ListRow {
        ListRow {
            depth,
            id: Some(n.id.clone()),
            text: mark.to_string(),
            note,
            short: Vec::new(),
            site: None,
        }
    }

    fn shortened(mut self, short: Vec<String>) -> ListRow {
        self.short = short;
        self
    }
}

/// A list view of one symbol and the selection in it.
#[derive(Debug, Clone)]
pub struct SymbolList {
    /// Which view.
    pub kind: ListKind,
    /// The symbol it is about.
    pub root: Arc<str>,
    /// The rows.
    pub rows: Vec<ListRow>,
    /// Selected row.
    pub selected: usize,
    /// First row on screen.
    pub offset: usize,
}

impl SymbolList {
    /// The selected row's node, if it has one.
    pub fn selected_id(&self) -> Option<&Arc<str>> {
        self.rows.get(self.selected).and_then(|r| r.id.as_ref())
    }

    /// Moves the selection by `d` rows, clamped.
    pub fn move_by(&mut self, d: isize) {
        let n = self.rows.len();
        self.selected = (self.selected as isize)
            .saturating_add(d)
            .clamp(0, n.saturating_sub(1) as isize) as usize;
    }

    /// The list of `kind` for `id` on `g` (`None` when `id` is not a node). The hierarchy
    /// of a member (a method) is its container's. `lines` reads the import statements
    /// of the references view (an import that names other definitions is not listed).
    pub fn of(
        g: &CodeGraph,
        kind: ListKind,
        id: &str,
        lines: &dyn LineSource,
    ) -> Option<SymbolList> {
        match kind {
            ListKind::Hierarchy => hierarchy(g, id),
            ListKind::References => references(g, id, lines),
            ListKind::Definitions => Some(definitions(g, id)),
            ListKind::Dead => None,
        }
    }
}

impl SymbolList {
    /// The dead-code candidates of `g` ([`dead_code`], at most [`MAX_DEAD_ROWS`]) under a
    /// heading with their counts, each row noting `maybe used` where unresolved calls of
    /// its name exist. `lines` feeds the rules that read declarations.
    pub fn dead(g: &CodeGraph, lines: &dyn LineSource) -> SymbolList {
        let d = dead_code(g, lines, None, MAX_DEAD_ROWS);
        let mut rows = vec![ListRow::heading(format!(
            "{} candidate{}, {} maybe used{}",
            d.total,
            if d.total == 1 { "" } else { "s" },
            d.total - d.certain,
            if d.truncated {
                format!(" (first {MAX_DEAD_ROWS} listed)")
            } else {
                String::new()
            }
        ))];
        for c in &d.candidates {
            if let Some(n) = g.node(&c.id) {
                let row = if c.maybe_used {
                    let note = format!("maybe used ({} unresolved)", c.unresolved_calls);
                    ListRow::node(1, "", n, note).shortened(vec!["maybe used".into()])
                } else {
                    ListRow::node(1, "", n, String::new())
                };
                rows.push(row);
            }
        }
        SymbolList {
            kind: ListKind::Dead,
            root: "the repository".into(),
            selected: usize::from(rows.len() > 1),
            rows,
            offset: 0,
        }
    }
}

/// Rows of the dead-code view at most (`dead --limit` lists more).
pub const MAX_DEAD_ROWS: usize = 2000;

/// Whether a node is a type the hierarchy is about.
fn is_type(k: Kind) -> bool {
    matches!(
        k,
        Kind::Class | Kind::Struct | Kind::Enum | Kind::Trait | Kind::Interface | Kind::TypeAlias
    )
}

/// Nodes one `inherits`/`implements` hop away from `id` (`Walk::Callees`: its bases,
/// `Walk::Callers`: its subtypes), by name.
fn step<'g>(g: &'g CodeGraph, id: &str, dir: Walk) -> Vec<&'g Node> {
    let mut out: Vec<&Node> = g
        .edges_of(id, dir, &[Relation::Inherits, Relation::Implements])
        .into_iter()
        .filter_map(|e| match dir {
            Walk::Callees => (e.source == id).then(|| g.node(&e.target)),
            _ => (e.target == id).then(|| g.node(&e.source)),
        })
        .flatten()
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
    out.dedup_by(|a, b| a.id == b.id);
    out
}

/// The names of the methods a type defines (its members, those of the `impl` blocks it
/// contains, and those of its `impl` blocks elsewhere, [`CodeGraph::impls_of`]).
fn method_names(g: &CodeGraph, id: &str) -> HashSet<Arc<str>> {
    let mut out = HashSet::new();
    let mut stack = vec![Arc::<str>::from(id)];
    if let Some(n) = g.node(id) {
        stack.extend(g.impls_of(n).into_iter().map(|i| i.id.clone()));
    }
    while let Some(c) = stack.pop() {
        for e in g.edges_of(&c, Walk::Callees, &[Relation::Contains]) {
            if e.source != *c {
                continue;
            }
            let Some(m) = g.node(&e.target) else { continue };
            match m.kind {
                Kind::Method | Kind::Function | Kind::Constructor => {
                    out.insert(m.name.clone());
                }
                Kind::Impl => stack.push(m.id.clone()),
                _ => {}
            }
        }
    }
    out
}

/// Appends the types reached from `root` over `inherits`/`implements` edges in direction
/// `walk` (`Callees`: base types, `Callers`: subtypes), depth first with each type's own
/// under it, to `MAX_HIERARCHY_DEPTH`; a type met again is listed once more as "(seen
/// above)" and not walked again. `note` gives the other rows' note and its shorter
/// forms ([`ListRow::short`]). With none, one
/// "(none in the repository)" row.
fn walk_hierarchy<'g>(
    g: &'g CodeGraph,
    root: &'g Node,
    walk: Walk,
    marker: &'static str,
    rows: &mut Vec<ListRow>,
    note: impl Fn(&Node) -> (String, Vec<String>),
) {
    let mut seen: HashSet<Arc<str>> = HashSet::from([root.id.clone()]);
    let mut stack: Vec<(&Node, u32)> = step(g, &root.id, walk)
        .into_iter()
        .rev()
        .map(|n| (n, 1))
        .collect();
    let mut any = false;
    while let Some((n, d)) = stack.pop() {
        any = true;
        let again = !seen.insert(n.id.clone());
        let (text, short) = if again {
            ("(seen above)".to_string(), Vec::new())
        } else {
            note(n)
        };
        rows.push(ListRow::node(d, marker, n, text).shortened(short));
        if !again && d < MAX_HIERARCHY_DEPTH {
            stack.extend(step(g, &n.id, walk).into_iter().rev().map(|b| (b, d + 1)));
        }
    }
    if !any {
        rows.push(ListRow::heading("  (none in the repository)"));
    }
}

fn hierarchy(g: &CodeGraph, id: &str) -> Option<SymbolList> {
    let mut root = g.node(id)?;
    if !is_type(root.kind) {
        root = g.container(id).filter(|c| is_type(c.kind)).unwrap_or(root);
    }
    let mut rows = vec![ListRow::heading("base types:")];
    // Bases, nearest first, each one's own bases under it.
    walk_hierarchy(g, root, Walk::Callees, "▲", &mut rows, |_| {
        (String::new(), Vec::new())
    });
    rows.push(ListRow::node(0, "●", root, "(this type)".into()));
    rows.push(ListRow::heading("subtypes:"));
    // The methods a subtype may override: the root's and its bases'.
    let mut inherited = method_names(g, &root.id);
    for r in &rows {
        if let Some(b) = r.id.as_ref().filter(|b| **b != root.id) {
            inherited.extend(method_names(g, b));
        }
    }
    walk_hierarchy(g, root, Walk::Callers, "▼", &mut rows, |n| {
        let mut over: Vec<Arc<str>> = method_names(g, &n.id)
            .into_iter()
            .filter(|m| inherited.contains(m))
            .collect();
        over.sort();
        match over.len() {
            0 => (String::new(), Vec::new()),
            1 => (format!("overrides {}", over[0]), vec!["overrides".into()]),
            n => (
                format!("overrides {}", over.join(", ")),
                vec![
                    format!("overrides {}, +{}", over[0], n - 1),
                    "overrides".into(),
                ],
            ),
        }
    });
    let selected = rows
        .iter()
        .position(|r| r.id.as_ref() == Some(&root.id))
        .unwrap_or(0);
    Some(SymbolList {
        kind: ListKind::Hierarchy,
        root: root.id.clone(),
        rows,
        selected,
        offset: 0,
    })
}

fn references(g: &CodeGraph, id: &str, lines: &dyn LineSource) -> Option<SymbolList> {
    let n = g.node(id)?;
    let mut rows = vec![ListRow::heading(
        "used as a value (passed, stored; not called):",
    )];
    let mut refs: Vec<ListRow> = Vec::new();
    for e in g.edges_of(id, Walk::Callers, &[Relation::References]) {
        if e.target != id {
            continue;
        }
        let Some(src) = g.node(&e.source) else {
            continue;
        };
        for s in &e.sites {
            let mut row = ListRow::node(1, "→", src, format!("[{}]", tier_name(e.resolution)));
            row.site = Some((s.file.clone(), s.line, s.column));
            refs.push(row);
        }
    }
    if refs.is_empty() {
        rows.push(ListRow::heading("  (none found)"));
    }
    rows.extend(refs);
    // An import edge is file → file; the statement at its site says which names it
    // binds. Only those naming the symbol (or a type that holds it) are its imports.
    let names = imported_names(g, n);
    rows.push(ListRow::heading(format!(
        "imports naming {}:",
        names.last().map_or(&*n.name, |s| s.as_str())
    )));
    let mut imports: Vec<ListRow> = Vec::new();
    let mut others = 0usize;
    for e in g.edges_of(&n.file, Walk::Callers, &[Relation::Imports]) {
        if *e.target != *n.file {
            continue;
        }
        let Some(src) = g.node(&e.source) else {
            continue;
        };
        for s in &e.sites {
            let text = lines
                .lines(&s.file)
                .map(|l| import_statement(&l, s.line))
                .unwrap_or_default();
            if !names.iter().any(|name| names_word(&text, name)) {
                others += 1;
                continue;
            }
            let mut row = ListRow::node(1, "⇠", src, String::new());
            row.site = Some((s.file.clone(), s.line, s.column));
            imports.push(row);
        }
    }
    if imports.is_empty() {
        rows.push(ListRow::heading("  (none found)"));
    }
    rows.extend(imports);
    if others > 0 {
        rows.push(ListRow::heading(format!(
            "{others} other import{} of {}:",
            if others == 1 { "" } else { "s" },
            n.file
        )));
        rows.push(ListRow::heading(
            "  other names, or the whole module (may use it)",
        ));
    }
    let selected = rows.iter().position(|r| r.id.is_some()).unwrap_or(0);
    Some(SymbolList {
        kind: ListKind::References,
        root: n.id.clone(),
        rows,
        selected,
        offset: 0,
    })
}

/// The names an import of `n` may bind: its own and those of the definitions holding it
/// (`Mid` for the method `Mid.handle`), innermost first. Cycle-safe.
fn imported_names(g: &CodeGraph, n: &Node) -> Vec<String> {
    let mut names = vec![n.name.to_string()];
    let mut at = n.id.clone();
    for _ in 0..MAX_HIERARCHY_DEPTH {
        let parent = g
            .edges_of(&at, Walk::Callers, &[Relation::Contains])
            .into_iter()
            .find(|e| *e.target == *at)
            .and_then(|e| g.node(&e.source));
        match parent {
            Some(p) if p.kind != Kind::File && !names.iter().any(|x| **x == *p.name) => {
                names.push(p.name.to_string());
                at = p.id.clone();
            }
            _ => break,
        }
    }
    names
}

/// The import statement that starts at 1-based `line`: that line and the following ones
/// while a bracket it opened is still open or the line is continued (`\\`, a trailing
/// comma), at most [`MAX_IMPORT_LINES`] lines.
fn import_statement(lines: &SourceLines, line: u32) -> String {
    let mut text = String::new();
    let mut depth = 0i32;
    let first = line.saturating_sub(1) as usize;
    for l in (first..first + MAX_IMPORT_LINES).filter_map(|i| lines.get(i)) {
        text.push_str(l);
        text.push('\n');
        for c in l.chars() {
            match c {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => depth -= 1,
                _ => {}
            }
        }
        let t = l.trim_end();
        if depth <= 0 && !t.ends_with('\\') && !t.ends_with(',') {
            break;
        }
    }
    text
}

/// The most lines one import statement is read over (a long `from m import (...)`).
const MAX_IMPORT_LINES: usize = 64;

/// `true` when `word` occurs in `text` with no identifier character on either side.
fn names_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + word.len()..].chars().next().is_some_and(ident)
    })
}

/// The JSON name of a tier, for a reference row's tag.
fn tier_name(t: crate::index::Tier) -> &'static str {
    use crate::index::Tier as T;
    match t {
        T::Syntax => "syntax",
        T::Local => "local",
        T::Import => "import",
        T::Qualified => "qualified",
        T::UniqueName => "unique_name",
    }
}

/// The definitions named `name` ([`CodeGraph::lookup`], files left out), one row each,
/// under a heading with their count.
fn definitions(g: &CodeGraph, name: &str) -> SymbolList {
    let found: Vec<&Node> = g
        .lookup(name)
        .into_iter()
        .filter(|n| n.kind != Kind::File)
        .collect();
    let mut rows = vec![ListRow::heading(format!(
        "{} definition{} named {name}",
        found.len(),
        if found.len() == 1 { "" } else { "s" }
    ))];
    rows.extend(found.iter().map(|n| ListRow::node(1, "", n, String::new())));
    SymbolList {
        kind: ListKind::Definitions,
        root: name.into(),
        selected: usize::from(rows.len() > 1),
        rows,
        offset: 0,
    }
}
