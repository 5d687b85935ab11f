//! Running `tags.scm` over one tree: the per-file scratch lists, the dispatch of each
//! match to the capture handler of its role (definitions, calls and references, comments,
//! bindings, imports) in the fixed order that decides which role a match counts as, and
//! the query-cursor reference engine.

use foldhash::HashMap;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, QueryCapture, QueryCursor};

use super::calls::{on_call, on_reference, CallTable};
use super::defs::{doc_stated_types, leading_docs, on_definition, RawDef};
use super::doc_types::DocTypes;
use super::imports::{on_import, Bindings, RawBinding};
use super::nodes::{node_text, Captures};
use super::Engine;
use crate::index::facts::Import;
use crate::index::lang::token_tree::TokenTreeCache;
use crate::index::lang::{CompiledLanguage, Role};

/// A thread's working lists for one file's matches, emptied for each file and kept with
/// their capacity: grown afresh for every file, the list of calls alone took two thirds of
/// the page faults of extraction on the Python tree (`perf record -e page-faults`), each
/// doubling landing on untouched memory.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) defs: Vec<RawDef>,
    /// Definition node id → its entry in `defs`.
    def_index: HashMap<usize, usize>,
    pub(super) calls: CallTable,
}

/// What [`run_query`] returns beside the definitions and calls it leaves in its scratch.
pub(super) type QueryOutput = (Vec<Import>, Option<String>, Vec<RawBinding>, Option<String>);

/// Runs `c`'s patterns over the tree at `root` with `engine` and hands each match to the
/// handler of its role. Definitions and calls are left in `scratch` (emptied first); the
/// rest is returned, imports in statement order and bindings sorted by offset.
pub(super) fn run_query<'t>(
    c: &CompiledLanguage,
    root: Node<'t>,
    text: &str,
    cursor: &mut QueryCursor,
    engine: Engine,
    scratch: &mut Scratch,
) -> QueryOutput {
    scratch.defs.clear();
    scratch.def_index.clear();
    scratch.calls.clear();
    let Scratch {
        defs,
        def_index,
        calls,
    } = scratch;
    let mut imports: Vec<(usize, usize, Import)> = Vec::new();
    let mut default_export: Option<String> = None;
    let mut package: Option<String> = None;
    let mut bindings = Bindings::default();
    let mut comments: Vec<(tree_sitter::Point, usize, std::ops::Range<usize>)> = Vec::new();
    let mut annotations: Vec<(usize, usize)> = Vec::new();
    let src = text.as_bytes();
    let mut token_cache = TokenTreeCache::default();
    let doc_tags = c.spec.extraction.doc_tags;
    let mut doc_types = DocTypes::default();
    // The latest `@no_calls` node's bytes.
    let mut no_calls = 0..0;
    // One match of `tags.scm`: its captures, consumed in the query cursor's match order.
    let mut on_match = |_pattern: usize, caps: &[QueryCapture<'t>]| {
        let m = Captures::new(caps, &c.roles);
        let find = |r: Role| m.find(r);
        // Definitions.
        if let Some((kind, node)) = caps.iter().find_map(|cap| match m.role_of(cap.index) {
            Role::Definition(k) => Some((k, cap.node)),
            _ => None,
        }) {
            on_definition(defs, def_index, kind, node, &m, text, &c.spec.extraction);
            return;
        }
        // Text that is not code (`@no_calls`) comes before the matches inside it (tree
        // order); such nodes do not nest, so the latest one is the only one to check.
        if let Some(n) = find(Role::NoCalls) {
            no_calls = n.byte_range();
            return;
        }
        // Call sites, keyed by the callee name token; a match with a receiver wins.
        if on_call(
            calls,
            &m,
            text,
            &no_calls,
            &c.spec.extraction,
            &mut token_cache,
        ) {
            return;
        }
        // Names used as values (callbacks): kept apart from calls by the flag.
        if let Some(name) = find(Role::Reference) {
            on_reference(calls, name, &m, text, &no_calls);
            return;
        }
        if let Some(n) = find(Role::Comment) {
            // A Rust line comment includes its newline: its last row is the one before.
            let end = n.end_position();
            let end_row = if end.column == 0 && end.row > n.start_position().row {
                end.row - 1
            } else {
                end.row
            };
            comments.push((n.start_position(), end_row, n.byte_range()));
            if let Some(parse) = doc_tags {
                doc_types.on_comment(parse, n, text, &mut imports);
            }
            return;
        }
        if let Some(n) = find(Role::Annotation) {
            annotations.push((n.start_position().row, n.end_position().row));
            return;
        }
        if let Some(n) = find(Role::LocalName) {
            bindings.on_local(c, n, &m, text);
            return;
        }
        if let Some(n) = find(Role::LocalDoc) {
            doc_types.on_name(n, text);
            return;
        }
        if let Some(n) = find(Role::Package) {
            package.get_or_insert_with(|| node_text(n, text).to_string());
            return;
        }
        if let Some(n) = find(Role::ExportDefault) {
            default_export.get_or_insert_with(|| node_text(n, text).to_string());
            return;
        }
        // Imports.
        if let Some(stmt) = find(Role::Import) {
            on_import(&mut imports, c, stmt, &m, text);
        }
    };
    match engine {
        Engine::Matcher => c.matcher.run(root, src, cursor, &mut on_match),
        Engine::QueryCursor => query_cursor_run(c, root, src, cursor, &mut on_match),
    }
    // Leading doc comments for definitions that have no docstring.
    if !comments.is_empty() {
        leading_docs(defs, c.spec, text, comments, &annotations);
        if let Some(parse) = doc_tags {
            doc_stated_types(defs, parse, |at, name, ty, line| {
                bindings.add(at, name, ty, line);
            });
            doc_types.finish(&mut bindings);
        }
    }
    imports.sort_by_key(|(s, k, _)| (*s, *k));
    let mut bindings = bindings.list;
    bindings.sort();
    (
        imports.into_iter().map(|(_, _, i)| i).collect(),
        default_export,
        bindings,
        package,
    )
}

/// The reference engine: tree-sitter's query cursor started at each pattern root (one
/// `TreeCursor` walk finds them, see `lang::roots`) with its start depth limited to that
/// node, or once over the whole tree when a pattern's root is a wildcard.
pub(super) fn query_cursor_run<'t>(
    c: &CompiledLanguage,
    root: Node<'t>,
    src: &[u8],
    cursor: &mut QueryCursor,
    on_match: &mut dyn FnMut(usize, &[QueryCapture<'t>]),
) {
    // `extract_with` reported a query that does not compile before parsing.
    let Ok(query) = c.query() else {
        return;
    };
    let mut starts: Vec<Node<'t>> = Vec::new();
    match c.roots.as_ref() {
        Some(roots) => {
            cursor.set_max_start_depth(Some(0));
            let mut tc = root.walk();
            'walk: loop {
                let n = tc.node();
                if roots.get(n.kind_id() as usize).copied().unwrap_or(false) {
                    starts.push(n);
                }
                if tc.goto_first_child() {
                    continue;
                }
                while !tc.goto_next_sibling() {
                    if !tc.goto_parent() {
                        break 'walk;
                    }
                }
            }
        }
        None => {
            cursor.set_max_start_depth(None);
            starts.push(root);
        }
    }
    for start in starts {
        let mut matches = cursor.matches(query, start, src);
        while let Some(m) = matches.next() {
            on_match(m.pattern_index, m.captures());
        }
    }
    cursor.set_max_start_depth(None);
}
