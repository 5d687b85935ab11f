//! Definitions: the handler of definition captures, their leading doc comments and
//! docstrings, and the nesting of a file's raw definitions by byte range into
//! [`Definition`]s with kinds adjusted and ids made unique. Calls and bindings find their
//! enclosing definition here ([`enclosing`]).

use std::sync::Arc;

use foldhash::{HashMap, HashSet};
use tree_sitter::Node;

use super::nodes::{
    cap_chars, char_column, exact_arity, list_items, node_text, split_type_name, squash, Captures,
};
use crate::index::facts::{BaseRef, DefDetails, Definition, Kind};
use crate::index::lang::{ExtractionRules, LanguageSpec, Role};

/// A definition as its matches describe it, before nesting: byte range, 1-based lines,
/// and what the captures gave (a name with its 1-based line, container, docs, bases, ...).
#[derive(Default)]
pub(super) struct RawDef {
    kind: Option<Kind>,
    start: usize,
    end: usize,
    start_line: u32,
    end_line: u32,
    name: Option<(String, u32)>,
    container: Option<String>,
    self_name: Option<String>,
    returns: Option<String>,
    doc: Option<String>,
    bases: Vec<BaseRef>,
    arity: Option<u32>,
    accessor: bool,
    params: Vec<String>,
}

/// A definition capture of `kind` on `node`: the file's entry for the node (made on its
/// first match) takes what this match adds (name, container, return type, parameters,
/// docstring, bases); a value an earlier match gave is kept.
pub(super) fn on_definition(
    defs: &mut Vec<RawDef>,
    def_index: &mut HashMap<usize, usize>,
    kind: Kind,
    node: Node<'_>,
    m: &Captures<'_, '_>,
    text: &str,
    ext: &ExtractionRules,
) {
    let param_type = ext.param_type;
    let (caps, role_of, find) = (m.caps, |i: u32| m.role_of(i), |r: Role| m.find(r));
    let idx = *def_index.entry(node.id()).or_insert_with(|| {
        // A namespace without a body (C# file-scoped `namespace A.B;`) scopes
        // the rest of its file: it ends where its parent (the file) ends.
        // (`parent()` searches down from the root: asked only of such a namespace,
        // not of the 1.17M definitions of the Rust tree.)
        let scope = if kind == Kind::Namespace && node.child_by_field_name("body").is_none() {
            node.parent().unwrap_or(node)
        } else {
            node
        };
        defs.push(RawDef {
            kind: Some(kind),
            start: node.start_byte(),
            end: scope.end_byte(),
            start_line: node.start_position().row as u32 + 1,
            // A file ending in a newline ends at column 0 of the next row.
            end_line: match scope.end_position() {
                e if e.column == 0 && e.row > node.start_position().row => e.row as u32,
                e => e.row as u32 + 1,
            },
            ..RawDef::default()
        });
        defs.len() - 1
    });
    let d = &mut defs[idx];
    if d.name.is_none() {
        if let Some(n) = find(Role::Name) {
            // A namespace keeps its qualified name (`App.Models`, `a::b`).
            let name = if kind == Kind::Namespace {
                squash(node_text(n, text))
            } else {
                let (name, qualifier) = split_type_name(node_text(n, text));
                // `defmodule Shop.Cart`: `Cart` declared in `Shop`.
                if kind == Kind::Module && ext.dotted_module_names && d.container.is_none() {
                    d.container = qualifier.filter(|q| !q.contains("::"));
                }
                name
            };
            d.name = Some((name, n.start_position().row as u32 + 1));
        }
    }
    if d.container.is_none() {
        d.container = find(Role::Container).map(|n| split_type_name(node_text(n, text)).0);
    }
    if d.returns.is_none() {
        // A dotted qualifier is kept (`reflect.Value`, `object.Commit`): its import decides
        // whether the type is the repo's, as for typed names.
        d.returns = find(Role::Returns).map(|n| match split_type_name(node_text(n, text)) {
            (name, Some(q)) if !q.contains("::") && !name.is_empty() => format!("{q}.{name}"),
            (name, _) => name,
        });
    }
    d.accessor |= find(Role::Accessor).is_some();
    if d.self_name.is_none() {
        d.self_name = find(Role::SelfName).map(|n| node_text(n, text).to_string());
    }
    if d.arity.is_none() {
        d.arity = find(Role::Params).and_then(|n| exact_arity(n, text));
    }
    if let (Some(read), Some(list), true) = (param_type, find(Role::Params), d.params.is_empty()) {
        let types: Option<Vec<String>> = list_items(list).map(|p| read(p, text)).collect();
        d.params = types.unwrap_or_default();
    }
    if d.doc.is_none() {
        d.doc = find(Role::Doc).map(|n| clean_docstring(node_text(n, text)));
    }
    for cap in caps {
        let implements = match role_of(cap.index) {
            Role::Base => false,
            Role::Implements => true,
            _ => continue,
        };
        let (name, qualifier) = split_type_name(node_text(cap.node, text));
        let p = cap.node.start_position();
        let b = BaseRef {
            name,
            qualifier,
            implements,
            line: p.row as u32 + 1,
            column: char_column(text, cap.node.start_byte(), p.column),
        };
        if !b.name.is_empty() && !d.bases.contains(&b) {
            d.bases.push(b);
        }
    }
}

/// Gives each definition of `defs` without a docstring the doc comments right above it:
/// `comments` as (start point, 0-based end row, byte range), `annotations` as 0-based
/// (first, last) rows of attributes and decorators, which may stand in between.
pub(super) fn leading_docs(
    defs: &mut [RawDef],
    spec: &LanguageSpec,
    text: &str,
    comments: Vec<(tree_sitter::Point, usize, std::ops::Range<usize>)>,
    annotations: &[(usize, usize)],
) {
    let docs = LeadingDocs::new(spec, text, comments, annotations);
    for d in defs.iter_mut().filter(|d| d.doc.is_none()) {
        d.doc = docs.above(d.start_line as usize - 1);
    }
}

/// What the doc comments of `defs` state about types (`parse`, the language's
/// [`doc_tags`](crate::index::lang::ExtractionRules::doc_tags)): a return type the
/// definition does not declare, and parameter types, each handed to `bind` as (byte
/// offset inside the definition, name, type, 1-based line), marked as doc-stated.
pub(super) fn doc_stated_types(
    defs: &mut [RawDef],
    parse: fn(&str, u32) -> crate::index::lang::DocTags,
    mut bind: impl FnMut(usize, String, String, u32),
) {
    use crate::index::facts::DOC_TYPE;
    for d in defs.iter_mut() {
        let Some(doc) = d.doc.as_deref().filter(|t| t.contains('@')) else {
            continue;
        };
        let tags = parse(doc, d.start_line);
        if d.returns.is_none() {
            d.returns = tags.returns.map(|t| format!("{DOC_TYPE}{t}"));
        }
        for (name, ty) in tags.params {
            bind(d.start, name, format!("{DOC_TYPE}{ty}"), d.start_line);
        }
    }
}

/// Comments and annotation rows of one file, for finding the documentation right above a
/// definition by rows alone (no tree walk: `prev_sibling` is linear in the sibling count).
struct LeadingDocs<'a> {
    spec: &'a LanguageSpec,
    text: &'a str,
    /// Comment ending on a row → (start row, byte range). A comment that does not start its
    /// line (a trailing comment after code) is left out.
    by_end_row: HashMap<usize, (usize, std::ops::Range<usize>)>,
    /// Rows covered by attributes or decorators (`#[derive]`, `@Injectable()`), skipped.
    annotated: HashSet<usize>,
}

impl<'a> LeadingDocs<'a> {
    fn new(
        spec: &'a LanguageSpec,
        text: &'a str,
        comments: Vec<(tree_sitter::Point, usize, std::ops::Range<usize>)>,
        annotations: &[(usize, usize)],
    ) -> Self {
        let mut by_end_row = HashMap::default();
        for (start, end_row, range) in comments {
            let line_start = range.start - start.column;
            let starts_line = text
                .get(line_start..range.start)
                .is_some_and(|p| p.trim().is_empty());
            if starts_line {
                by_end_row.insert(end_row, (start.row, range));
            }
        }
        let annotated = annotations.iter().flat_map(|&(a, b)| a..=b).collect();
        LeadingDocs {
            spec,
            text,
            by_end_row,
            annotated,
        }
    }

    /// The documentation ending on the row just above 0-based row `row`.
    fn above(&self, row: usize) -> Option<String> {
        let mut parts: Vec<&str> = Vec::new();
        let mut r = row;
        while r > 0 && parts.len() < 200 {
            r -= 1;
            if self.annotated.contains(&r) {
                continue;
            }
            let Some((start_row, range)) = self.by_end_row.get(&r) else {
                break;
            };
            let t = self.text[range.clone()].trim_end();
            let is_doc = self.spec.doc_prefixes.is_empty()
                || self.spec.doc_prefixes.iter().any(|p| t.starts_with(p));
            if !is_doc {
                break;
            }
            parts.push(t);
            r = *start_row;
        }
        if parts.is_empty() {
            return None;
        }
        parts.reverse();
        let mut out = String::new();
        for p in parts {
            for line in p.lines() {
                let l = line.trim().trim_end_matches("*/");
                // `#` and `--` last: Ruby, PHP, shell and Lua line comments, never the
                // `# Examples` heading of a Rust doc line, whose `///` is taken first.
                let l = ["///", "//!", "//", "/**", "/*", "*", "#", "---", "--"]
                    .iter()
                    .find_map(|m| l.strip_prefix(m))
                    .unwrap_or(l);
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(l.strip_prefix(' ').unwrap_or(l).trim_end());
            }
        }
        let out = out.trim();
        (!out.is_empty()).then(|| cap_chars(out, 2000))
    }
}

/// A Python docstring without its prefix, quotes and common indentation.
fn clean_docstring(raw: &str) -> String {
    let s = raw.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
    let s = ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| s.strip_prefix(q).and_then(|x| x.strip_suffix(q)))
        .unwrap_or(s);
    let lines: Vec<&str> = s.lines().map(|l| l.trim_end()).collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let body: Vec<&str> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.trim()
            } else {
                l.get(indent..).unwrap_or(l.trim())
            }
        })
        .collect();
    cap_chars(body.join("\n").trim(), 2000)
}

/// Adjacent functions of one name in one scope as one definition, the first's range
/// extended over the later clauses ([`ExtractionRules::adjacent_clauses_merge`]); `raw` is
/// sorted by start, outer first, and stays so.
fn merge_clauses(raw: &mut Vec<RawDef>) {
    let mut out: Vec<RawDef> = Vec::with_capacity(raw.len());
    // Indices in `out` of the definitions enclosing the current one.
    let mut stack: Vec<usize> = Vec::new();
    for d in raw.drain(..) {
        // The last definition to end before `d` at `d`'s own depth: its previous sibling.
        let mut prev = None;
        while let Some(&top) = stack.last() {
            if out[top].end > d.start {
                break;
            }
            prev = stack.pop();
        }
        let same = |p: &RawDef| {
            p.kind == Some(Kind::Function)
                && d.kind == Some(Kind::Function)
                && p.container == d.container
                && p.name.as_ref().map(|n| &n.0) == d.name.as_ref().map(|n| &n.0)
        };
        if let Some(p) = prev.filter(|&p| same(&out[p])) {
            out[p].end = d.end;
            out[p].end_line = d.end_line;
            stack.push(p);
            continue;
        }
        stack.push(out.len());
        out.push(d);
    }
    *raw = out;
}

/// The file's definitions from the matches' `raw` ones (those without a name dropped),
/// nested by their byte ranges; `raw` is left empty, its capacity kept.
pub(super) fn build_definitions(
    path: &str,
    spec: &LanguageSpec,
    text: &str,
    module_path: &[String],
    raw: &mut Vec<RawDef>,
) -> Vec<Definition> {
    raw.retain(|d| d.name.as_ref().is_some_and(|(n, _)| !n.is_empty()));
    raw.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    if spec.extraction.adjacent_clauses_merge {
        merge_clauses(raw);
    }
    let sep = spec.separator;
    let mut out: Vec<Definition> = Vec::with_capacity(raw.len());
    // In-file names (`Calculator::add`), shared by `chains`, `seen` and, where the language
    // has no module path, `qualified_name`: one allocation each instead of a String per use.
    let mut chains: Vec<Arc<str>> = Vec::with_capacity(raw.len());
    let mut stack: Vec<usize> = Vec::new();
    let mut seen: HashMap<Arc<str>, u32> = HashMap::default();
    let module_prefix = (!module_path.is_empty()).then(|| module_path.join(sep));
    let mut buf = String::new();
    for d in raw.drain(..) {
        while stack
            .last()
            .is_some_and(|&i| out[i].end_byte as usize <= d.start)
        {
            stack.pop();
        }
        // A definition written outside its type (`void Foo::bar() {}`, Go methods) keeps
        // its real enclosing definition (a namespace) as parent; the container names it.
        let parent = stack.last().copied();
        let (name, name_line) = d.name.unwrap_or_default();
        let mut kind = d.kind.unwrap_or(Kind::Function);
        let parent_kind = parent.map(|p| out[p].kind);
        let holds_methods = |k: Kind| {
            k.is_type_container() || (k == Kind::Module && spec.extraction.modules_hold_methods)
        };
        if kind == Kind::Function
            && (parent_kind.is_some_and(holds_methods) || d.container.is_some())
        {
            kind = Kind::Method;
        }
        if kind == Kind::Method && spec.constructor_names.contains(&name.as_str()) {
            kind = Kind::Constructor;
        }
        // C++: a member function named like its class (`Parser::Parser`) constructs it.
        if kind == Kind::Method
            && spec.type_named_constructors
            && (d.container.as_deref() == Some(name.as_str())
                || (d.container.is_none() && parent.is_some_and(|p| *out[p].name == *name)))
        {
            kind = Kind::Constructor;
        }
        // `<parent chain><sep><container><sep><name>`, parts present only when they exist.
        buf.clear();
        if let Some(p) = parent {
            buf.push_str(&chains[p]);
            buf.push_str(sep);
        }
        if let Some(c) = &d.container {
            buf.push_str(c);
            buf.push_str(sep);
        }
        buf.push_str(&name);
        let in_file_name: Arc<str> = Arc::from(buf.as_str());
        let qualified_name: Arc<str> = match &module_prefix {
            None => in_file_name.clone(),
            Some(m) => {
                buf.clear();
                buf.push_str(m);
                buf.push_str(sep);
                buf.push_str(&in_file_name);
                Arc::from(buf.as_str())
            }
        };
        let count = seen.entry(in_file_name.clone()).or_insert(0);
        *count += 1;
        buf.clear();
        buf.push_str(path);
        buf.push_str("::");
        buf.push_str(&in_file_name);
        if *count > 1 {
            use std::fmt::Write;
            let _ = write!(buf, "#{count}");
        }
        let id: Arc<str> = Arc::from(buf.as_str());
        let _ = text;
        out.push(Definition {
            id,
            kind,
            name: name.into(),
            qualified_name,
            parent: parent.map(|p| p as u32),
            start_line: d.start_line,
            end_line: d.end_line,
            name_line,
            start_byte: d.start as u32,
            end_byte: d.end as u32,
            signature: String::new(),
            arity: d.arity,
            details: DefDetails {
                container: d.container,
                doc: d.doc,
                bases: d.bases,
                returns: d.returns,
                self_name: d.self_name,
                accessor: d.accessor,
                params: d.params,
            }
            .boxed(),
        });
        chains.push(in_file_name);
        stack.push(out.len() - 1);
    }
    out
}

/// The innermost definition containing each byte offset (offsets sorted ascending).
pub(super) fn enclosing(
    defs: &[Definition],
    offsets: impl Iterator<Item = u32>,
) -> Vec<Option<u32>> {
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by(|&a, &b| {
        defs[a]
            .start_byte
            .cmp(&defs[b].start_byte)
            .then(defs[b].end_byte.cmp(&defs[a].end_byte))
    });
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for at in offsets {
        while next < order.len() && defs[order[next]].start_byte <= at {
            let d = order[next];
            while stack
                .last()
                .is_some_and(|&s| defs[s].end_byte <= defs[d].start_byte)
            {
                stack.pop();
            }
            stack.push(d);
            next += 1;
        }
        while stack.last().is_some_and(|&s| defs[s].end_byte <= at) {
            stack.pop();
        }
        out.push(stack.last().map(|&s| s as u32));
    }
    out
}
