//! Syntax tree → [`FileFacts`], driven by the language's `queries/<lang>/tags.scm`.
//!
//! One pass of the language's pattern matcher over the tree (`lang::matcher`: the
//! `tags.scm` patterns compiled to steps over kind and field ids, matched at their root
//! nodes during a single walk of the tree) yields every definition, call site and import
//! (capture vocabulary in `queries/README.md`). The matcher replaced tree-sitter's query
//! cursor, which cost half a bare parse, and gives the same matches in the same order, so
//! the consumer below is engine-agnostic; the query cursor stays as the reference engine
//! ([`extract_with_query_cursor`]) that tests compare it with, fact for fact and match for
//! match. The rest is generic: definitions are nested by
//! byte range (so closures and lambdas, which are not definitions, never own a call),
//! kinds are adjusted (`function` in a class → `method`), ids get `#n` suffixes for
//! duplicates, and leading doc comments are collected. Nothing here recurses over the
//! tree, so deeply nested input cannot overflow the stack (the matcher recurses only as
//! deep as a pattern is).

use std::sync::Arc;

use foldhash::{HashMap, HashSet};

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Parser, QueryCapture, QueryCursor, Tree};

use super::chunk::{self, ChunkOptions};
use super::facts::{
    BaseRef, Binding, CallSite, DefDetails, Definition, FileFacts, FileMode, Import, Kind,
};
use super::lang::{self, CompiledLanguage, LanguageSpec, Role};
use super::lines::LineIndex;

/// 1-based char column of byte `byte` given the tree-sitter point's byte column.
fn char_column(text: &str, byte: usize, byte_col: usize) -> u32 {
    let start = byte.saturating_sub(byte_col);
    text.get(start..byte)
        .map_or(byte_col, |s| s.chars().count()) as u32
        + 1
}

fn node_text<'a>(n: Node<'_>, text: &'a str) -> &'a str {
    text.get(n.byte_range()).unwrap_or("")
}

/// Cuts `s` to at most `max` chars.
fn cap_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// `pkg.Base[T]`, `crate::a::Foo<T>`, `&'a mut Foo`, `*const Foo` → (`Foo`-like last
/// segment, qualifier). References, pointers, lifetimes, `mut`, `dyn` and `const` in front
/// are dropped; a slice, array or tuple type (`&'a [T]`) keeps its whole text (`[T]`).
fn split_type_name(raw: &str) -> (String, Option<String>) {
    // Most names are a plain identifier, which the rules below leave as it is.
    if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return (raw.to_string(), None);
    }
    let mut s = raw.trim();
    loop {
        let before = s;
        s = s.trim_start_matches(['&', '*']).trim_start();
        if let Some(rest) = s.strip_prefix('\'') {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            s = rest[end..].trim_start();
        }
        for kw in ["mut ", "dyn ", "const "] {
            if let Some(rest) = s.strip_prefix(kw) {
                s = rest.trim_start();
            }
        }
        if s == before {
            break;
        }
    }
    if s.starts_with(['[', '(']) {
        return (s.to_string(), None);
    }
    let cut = s.find(['<', '[', '(']).map_or(s, |i| &s[..i]).trim();
    let (qual, name) = match cut.rfind("::") {
        Some(i) => (Some(&cut[..i]), &cut[i + 2..]),
        None => match cut.rfind('.') {
            Some(i) => (Some(&cut[..i]), &cut[i + 1..]),
            None => (None, cut),
        },
    };
    let qual = qual.filter(|q| !q.is_empty()).map(str::to_string);
    (name.trim().to_string(), qual)
}

/// Collapses whitespace runs to one space and caps at 200 chars.
fn squash(s: &str) -> String {
    // Most texts (a receiver `self.items`, a name) are short and have no whitespace to
    // collapse: copied as they are, without splitting and joining.
    let b = s.as_bytes();
    if b.len() <= 200
        && b.first() != Some(&b' ')
        && b.last() != Some(&b' ')
        && !b.windows(2).any(|w| w == b"  ")
        // `split_whitespace`'s whitespace (Unicode White_Space), which unlike
        // `is_ascii_whitespace` includes the vertical tab.
        && b.iter()
            .all(|&c| c.is_ascii() && (c == b' ' || !char::from(c).is_whitespace()))
    {
        return s.to_string();
    }
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    cap_chars(&joined, 200)
}

#[derive(Default)]
struct RawDef {
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
}

struct RawCall {
    at: usize,
    name: String,
    receiver: Option<String>,
    is_new: bool,
    is_path: bool,
    is_reference: bool,
    args: Option<u32>,
    line: u32,
    column: u32,
}

/// The items of a parameter or argument list: its named children that are not comments
/// or attributes.
fn list_items(list: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    let mut cursor = list.walk();
    let items: Vec<Node<'_>> = list
        .named_children(&mut cursor)
        .filter(|n| {
            !matches!(
                n.kind(),
                "comment" | "attribute_list" | "attribute_declaration"
            )
        })
        .collect();
    items.into_iter()
}

/// The exact parameter count of a parameter list; `None` when a parameter has a default
/// (`int n = 0`) or the list is variadic (`...`, C# `params`).
fn exact_arity(list: Node<'_>, text: &str) -> Option<u32> {
    let mut n = 0;
    for p in list_items(list) {
        let t = node_text(p, text);
        if t == "void" {
            continue;
        }
        if t.contains('=') || t.contains("...") || t.starts_with("params ") {
            return None;
        }
        n += 1;
    }
    if node_text(list, text).contains("...") {
        return None;
    }
    Some(n)
}

thread_local! {
    static PARSER: std::cell::RefCell<Parser> = std::cell::RefCell::new(Parser::new());
    static CURSOR: std::cell::RefCell<QueryCursor> = std::cell::RefCell::new(QueryCursor::new());
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// A thread's working lists for one file's matches, emptied for each file and kept with
/// their capacity: grown afresh for every file, the list of calls alone took two thirds of
/// the page faults of extraction on the Python tree (`perf record -e page-faults`), each
/// doubling landing on untouched memory.
#[derive(Default)]
struct Scratch {
    defs: Vec<RawDef>,
    /// Definition node id → its entry in `defs`.
    def_index: HashMap<usize, usize>,
    calls: CallTable,
}

/// Facts of a file that is only windowed (no grammar, or minified text).
pub fn windowed_facts(
    path: &str,
    spec: &LanguageSpec,
    text: &str,
    hash: String,
    bytes: u64,
    chunking: &ChunkOptions,
) -> FileFacts {
    let lines = LineIndex::new(text);
    let n = lines.line_count(text);
    let chunks = chunk::build(&[], text, &lines, n, chunking);
    FileFacts {
        path: path.to_string(),
        language: spec.name.to_string(),
        content_hash: hash,
        bytes,
        lines: n,
        mode: FileMode::Windowed,
        parse_errors: false,
        module_path: (spec.module_path)(path),
        definitions: Vec::new(),
        calls: Vec::new(),
        imports: Vec::new(),
        default_export: None,
        package: None,
        bindings: Vec::new(),
        project: super::project::parse(path, text),
        chunks,
    }
}

/// Parses `text` once and extracts its facts.
///
/// Errors: a message when the grammar's query does not compile (a build defect) or the
/// parser gives up (it returns no tree); the caller counts the file as unreadable.
pub fn extract(
    path: &str,
    spec: &'static LanguageSpec,
    text: &str,
    hash: String,
    bytes: u64,
    chunking: &ChunkOptions,
) -> Result<FileFacts, String> {
    extract_with(path, spec, text, hash, bytes, chunking, Engine::Matcher)
}

/// [`extract`] with tree-sitter's query cursor in place of the pattern matcher: the
/// reference the matcher is tested against (same facts, byte for byte), kept callable for
/// such checks. Errors as [`extract`].
#[doc(hidden)]
pub fn extract_with_query_cursor(
    path: &str,
    spec: &'static LanguageSpec,
    text: &str,
    hash: String,
    bytes: u64,
    chunking: &ChunkOptions,
) -> Result<FileFacts, String> {
    extract_with(path, spec, text, hash, bytes, chunking, Engine::QueryCursor)
}

/// Which engine runs `tags.scm` over a tree. Both give the same matches in the same order;
/// the query cursor is kept as the reference the matcher is tested against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Engine {
    /// [`lang::CompiledLanguage`]'s pattern matcher, in one tree walk (the default).
    Matcher,
    /// tree-sitter's `QueryCursor`, started at each pattern root (the reference).
    QueryCursor,
}

/// Nesting levels of `cfg_*!` blocks unwrapped (tokio nests two or three).
const MAX_MACRO_UNWRAP: usize = 4;

fn extract_with(
    path: &str,
    spec: &'static LanguageSpec,
    text: &str,
    hash: String,
    bytes: u64,
    chunking: &ChunkOptions,
    engine: Engine,
) -> Result<FileFacts, String> {
    let compiled = lang::compiled(spec)?;
    if engine == Engine::QueryCursor {
        // The reference engine needs the whole query compiled; its error is reported here.
        compiled.query()?;
    }
    let mut parser = FileParser::new();
    let mut tree = parser.parse(&compiled.language, text)?;
    // Rust items inside item-level `cfg_*! { ... }` blocks (tokio wraps much of its API in
    // them) are token trees to the grammar: the wrapper is blanked out and the file parsed
    // again, so they are items at the very same bytes, lines and columns.
    let mut unwrapped: Option<String> = None;
    // (A byte search first: most files have no such block.)
    if spec.name == "rust" && text.contains("cfg_") {
        for _ in 0..MAX_MACRO_UNWRAP {
            let cur = unwrapped.as_deref().unwrap_or(text);
            let Some(u) = lang::unwrap_cfg_blocks(tree.root_node(), cur) else {
                break;
            };
            let t = parser.parse(&compiled.language, &u)?;
            // A block that was not items after all makes errors the wrapped file did not
            // have: keep the file as it was, rather than lose what follows the block.
            if t.root_node().has_error() && !tree.root_node().has_error() {
                parser.dispose(t);
                break;
            }
            parser.dispose(std::mem::replace(&mut tree, t));
            unwrapped = Some(u);
        }
    }
    let text = unwrapped.as_deref().unwrap_or(text);
    let lines = LineIndex::new(text);
    let root = tree.root_node();
    let parse_errors = root.has_error();
    let module_path = (spec.module_path)(path);
    let (mut definitions, mut calls, imports, default_export, raw_bindings, package) = SCRATCH
        .with(|s| {
            let s = &mut *s.borrow_mut();
            // A cursor of the file's own in the arena (its arrays would outlive the scope).
            let (imports, default_export, raw_bindings, package) = if parser.in_arena() {
                run_query(compiled, root, text, &mut QueryCursor::new(), engine, s)
            } else {
                CURSOR.with(|c| run_query(compiled, root, text, &mut c.borrow_mut(), engine, s))
            };
            let definitions = build_definitions(path, spec, text, &module_path, &mut s.defs);
            s.calls.calls.sort_by_key(|c| c.at);
            let calls = attach_calls(&definitions, &mut s.calls.calls);
            (
                definitions,
                calls,
                imports,
                default_export,
                raw_bindings,
                package,
            )
        });
    let bindings = attach_bindings(&definitions, raw_bindings);
    calls.sort_by_key(|c| (c.line, c.column));
    // Ranges were needed for nesting; keep them for chunking and the source view.
    let n = lines.line_count(text);
    let chunks = chunk::build(&definitions, text, &lines, n, chunking);
    for d in &mut definitions {
        d.signature = cap_chars(lines.line(text, d.start_line).trim(), 240);
    }
    parser.dispose(tree);
    Ok(FileFacts {
        path: path.to_string(),
        language: spec.name.to_string(),
        content_hash: hash,
        bytes,
        lines: n,
        mode: FileMode::Parsed,
        parse_errors,
        module_path,
        definitions,
        calls,
        imports,
        default_export,
        package,
        bindings,
        project: None,
        chunks,
    })
}

/// What [`run_query`] returns beside the definitions and calls it leaves in its scratch.
type QueryOutput = (Vec<Import>, Option<String>, Vec<RawBinding>, Option<String>);

/// A typed name before its scope is known: (byte offset, name, type name, 1-based line).
type RawBinding = (usize, String, String, u32);

/// A file's call sites by the start byte of the callee name (`RawCall::at`), a match that
/// knows more replacing an earlier one. The index maps to positions in `calls`, so growing it
/// moves 16-byte entries, not whole calls (the rehashing of a map of calls was 4% of a
/// Python-tree index's CPU samples).
#[derive(Default)]
struct CallTable {
    at: HashMap<usize, u32>,
    calls: Vec<RawCall>,
}

impl CallTable {
    fn get(&self, at: &usize) -> Option<&RawCall> {
        self.at.get(at).map(|&i| &self.calls[i as usize])
    }

    fn get_mut(&mut self, at: &usize) -> Option<&mut RawCall> {
        self.at.get(at).map(|&i| &mut self.calls[i as usize])
    }

    fn clear(&mut self) {
        self.at.clear();
        self.calls.clear();
    }

    /// Adds `call`, or replaces the call at the same `at`.
    fn insert(&mut self, call: RawCall) {
        match self.at.entry(call.at) {
            std::collections::hash_map::Entry::Occupied(o) => self.calls[*o.get() as usize] = call,
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(self.calls.len() as u32);
                self.calls.push(call);
            }
        }
    }
}

fn run_query<'t>(
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
    let mut bindings: Vec<RawBinding> = Vec::new();
    // Name token offset → the latest entry of `bindings` at that offset; `same_at[i]`, the
    // entry before `i` at its offset (one binding per (offset, name): a chain, not a
    // key that copies the name).
    let mut binding_at: HashMap<usize, usize> = HashMap::default();
    let mut same_at: Vec<usize> = Vec::new();
    let mut comments: Vec<(tree_sitter::Point, usize, std::ops::Range<usize>)> = Vec::new();
    let mut annotations: Vec<(usize, usize)> = Vec::new();
    let src = text.as_bytes();
    let mut macro_tokens = lang::rust::MacroTokens::default();
    // The latest `@no_calls` node's bytes.
    let mut no_calls = 0..0;
    // One match of `tags.scm`: its captures, consumed in the query cursor's match order.
    let mut on_match = |_pattern: usize, caps: &[QueryCapture<'t>]| {
        let role_of = |i: u32| c.roles[i as usize];
        let find = |r: Role| {
            caps.iter()
                .find(|cap| role_of(cap.index) == r)
                .map(|cap| cap.node)
        };
        // Definitions.
        if let Some((kind, node)) = caps.iter().find_map(|cap| match role_of(cap.index) {
            Role::Definition(k) => Some((k, cap.node)),
            _ => None,
        }) {
            let idx = *def_index.entry(node.id()).or_insert_with(|| {
                // A namespace without a body (C# file-scoped `namespace A.B;`) scopes
                // the rest of its file: it ends where its parent (the file) ends.
                // (`parent()` searches down from the root: asked only of such a namespace,
                // not of the 1.17M definitions of the Rust tree.)
                let scope = if kind == Kind::Namespace && node.child_by_field_name("body").is_none()
                {
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
                        split_type_name(node_text(n, text)).0
                    };
                    d.name = Some((name, n.start_position().row as u32 + 1));
                }
            }
            if d.container.is_none() {
                d.container = find(Role::Container).map(|n| split_type_name(node_text(n, text)).0);
            }
            if d.returns.is_none() {
                d.returns = find(Role::Returns).map(|n| split_type_name(node_text(n, text)).0);
            }
            d.accessor |= find(Role::Accessor).is_some();
            if d.self_name.is_none() {
                d.self_name = find(Role::SelfName).map(|n| node_text(n, text).to_string());
            }
            if d.arity.is_none() {
                d.arity = find(Role::Params).and_then(|n| exact_arity(n, text));
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
            return;
        }
        // Text that is not code (`@no_calls`) comes before the matches inside it (tree
        // order); such nodes do not nest, so the latest one is the only one to check.
        if let Some(n) = find(Role::NoCalls) {
            no_calls = n.byte_range();
            return;
        }
        // Call sites, keyed by the callee name token; a match with a receiver wins.
        let call = find(Role::Call)
            .map(|n| (n, false))
            .or_else(|| find(Role::CallNew).map(|n| (n, true)));
        if let (Some((call, is_new)), Some(name)) = (call, find(Role::CallName)) {
            if no_calls.contains(&name.start_byte()) {
                return;
            }
            let qualifier = find(Role::CallQualifier);
            let mut is_path = qualifier.is_some();
            let mut receiver = find(Role::CallReceiver)
                .or(qualifier)
                .map(|r| squash(node_text(r, text)));
            // A Rust call inside macro arguments (a token tree): its `.` or `::` before
            // the name, which the pattern cannot see, makes it a method or path call.
            if receiver.is_none() && call.kind() == "token_tree" {
                if let Some((r, path)) =
                    lang::rust::macro_call_receiver(name, call, src, &mut macro_tokens)
                {
                    receiver = Some(squash(&r));
                    is_path = path;
                }
            }
            let key = name.start_byte();
            let args = find(Role::CallArgs).map(|n| list_items(n).count() as u32);
            let better = calls.get(&key).is_none_or(|old| {
                old.is_reference || (old.receiver.is_none() && receiver.is_some())
            });
            // Another pattern of the same call may be the one that counts arguments.
            if let Some(old) = calls.get_mut(&key).filter(|o| !better && o.args.is_none()) {
                old.args = args;
            }
            if better {
                let args = args.or_else(|| calls.get(&key).and_then(|o| o.args));
                let p = name.start_position();
                calls.insert(RawCall {
                    at: key,
                    name: node_text(name, text).to_string(),
                    receiver,
                    is_new,
                    is_path,
                    is_reference: false,
                    args,
                    line: p.row as u32 + 1,
                    column: char_column(text, key, p.column),
                });
            }
            return;
        }
        // Names used as values (callbacks): kept apart from calls by the flag.
        if let Some(name) = find(Role::Reference) {
            let key = name.start_byte();
            if calls.get(&key).is_none() && !no_calls.contains(&key) {
                let p = name.start_position();
                calls.insert(RawCall {
                    at: key,
                    name: node_text(name, text).to_string(),
                    receiver: find(Role::ReferenceReceiver).map(|r| squash(node_text(r, text))),
                    is_new: false,
                    is_path: false,
                    is_reference: true,
                    args: None,
                    line: p.row as u32 + 1,
                    column: char_column(text, key, p.column),
                });
            }
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
            return;
        }
        if let Some(n) = find(Role::Annotation) {
            annotations.push((n.start_position().row, n.end_position().row));
            return;
        }
        if let Some(n) = find(Role::LocalName) {
            // Keep a dotted qualifier (`types.Type`, `ns.Foo`): its import decides
            // whether the type is the repo's or a library's. A name captured without
            // a type (a Python parameter or assignment) is bound with an empty type.
            let type_name = match find(Role::LocalType) {
                Some(t) => {
                    let (type_name, qual) = split_type_name(node_text(t, text));
                    match qual {
                        Some(q) if !q.contains("::") && !type_name.is_empty() => {
                            format!("{q}.{type_name}")
                        }
                        // A Rust module path (`crate::disk::Conn`), dotted the same way.
                        Some(q) if c.spec.name == "rust" && !type_name.is_empty() => {
                            format!("{}.{type_name}", q.replace("::", "."))
                        }
                        _ if type_name.is_empty() => return,
                        _ => type_name,
                    }
                }
                None => String::new(),
            };
            let name = squash(node_text(n, text));
            // One binding per name token; a typed capture of it wins over an untyped one.
            let at = n.start_byte();
            let mut same = binding_at.get(&at).copied();
            while let Some(i) = same.filter(|&i| bindings[i].1 != name) {
                same = (same_at[i] != usize::MAX).then_some(same_at[i]);
            }
            match same {
                Some(i) => {
                    if bindings[i].2.is_empty() {
                        bindings[i].2 = type_name;
                    }
                }
                None => {
                    same_at.push(binding_at.insert(at, bindings.len()).unwrap_or(usize::MAX));
                    bindings.push((
                        n.start_byte(),
                        name,
                        type_name,
                        n.start_position().row as u32 + 1,
                    ));
                }
            }
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
            let line = stmt.start_position().row as u32 + 1;
            let module = find(Role::ImportModule);
            if let Some(module) = module {
                let clean = |n: Node<'_>| {
                    node_text(n, text)
                        .trim_matches(['"', '\'', '`'])
                        .to_string()
                };
                let name = find(Role::ImportName).map(|n| node_text(n, text).to_string());
                let default = find(Role::ImportDefault);
                let glob = find(Role::ImportGlob);
                let alias = find(Role::ImportAlias)
                    .or(default)
                    .map(|n| node_text(n, text).to_string());
                let name = if glob.is_some() {
                    Some("*".to_string())
                } else if default.is_some() {
                    Some("default".to_string())
                } else {
                    name
                };
                let key_node = find(Role::ImportName)
                    .or(default)
                    .or(find(Role::ImportAlias))
                    .unwrap_or(module);
                let imp = Import {
                    module: clean(module),
                    name,
                    alias,
                    line,
                };
                let key = (stmt.start_byte(), key_node.start_byte());
                match imports.iter_mut().find(|(s, k, _)| (*s, *k) == key) {
                    Some((_, _, old)) if old.alias.is_none() => *old = imp,
                    Some(_) => {}
                    None => imports.push((key.0, key.1, imp)),
                }
            } else if let Some(hook) = c.spec.expand_import {
                let key = (stmt.start_byte(), stmt.start_byte());
                if !imports.iter().any(|(s, k, _)| (*s, *k) == key) {
                    let mut out = Vec::new();
                    hook(stmt, src, line, &mut out);
                    for (i, imp) in out.into_iter().enumerate() {
                        imports.push((key.0, key.1 + i, imp));
                    }
                }
            }
        }
    };
    match engine {
        Engine::Matcher => c.matcher.run(root, src, cursor, &mut on_match),
        Engine::QueryCursor => query_cursor_run(c, root, src, cursor, &mut on_match),
    }
    // Leading doc comments for definitions that have no docstring.
    if !comments.is_empty() {
        let docs = LeadingDocs::new(c.spec, text, comments, &annotations);
        for d in defs.iter_mut().filter(|d| d.doc.is_none()) {
            d.doc = docs.above(d.start_line as usize - 1);
        }
    }
    imports.sort_by_key(|(s, k, _)| (*s, *k));
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
fn query_cursor_run<'t>(
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
                let l = ["///", "//!", "//", "/**", "/*", "*"]
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

/// The file's definitions from the matches' `raw` ones (those without a name dropped),
/// nested by their byte ranges; `raw` is left empty, its capacity kept.
fn build_definitions(
    path: &str,
    spec: &LanguageSpec,
    text: &str,
    module_path: &[String],
    raw: &mut Vec<RawDef>,
) -> Vec<Definition> {
    raw.retain(|d| d.name.as_ref().is_some_and(|(n, _)| !n.is_empty()));
    raw.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
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
        if kind == Kind::Function
            && (parent_kind.is_some_and(Kind::is_type_container) || d.container.is_some())
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
            }
            .boxed(),
        });
        chains.push(in_file_name);
        stack.push(out.len() - 1);
    }
    out
}

/// The innermost definition containing each byte offset (offsets sorted ascending).
fn enclosing(defs: &[Definition], offsets: impl Iterator<Item = u32>) -> Vec<Option<u32>> {
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

/// Gives each call (sorted by name offset) its innermost enclosing definition.
/// `calls` is left empty (its capacity kept).
fn attach_calls(defs: &[Definition], calls: &mut Vec<RawCall>) -> Vec<CallSite> {
    let scopes = enclosing(defs, calls.iter().map(|c| c.at as u32));
    calls
        .drain(..)
        .zip(scopes)
        .map(|(c, caller)| CallSite {
            caller,
            name: c.name,
            receiver: c.receiver,
            is_new: c.is_new,
            is_path: c.is_path,
            is_reference: c.is_reference,
            args: c.args,
            line: c.line,
            column: c.column,
        })
        .collect()
}

/// Gives each binding (sorted by offset) its innermost enclosing definition.
fn attach_bindings(defs: &[Definition], raw: Vec<RawBinding>) -> Vec<Binding> {
    let scopes = enclosing(defs, raw.iter().map(|b| b.0 as u32));
    raw.into_iter()
        .zip(scopes)
        .map(|((_, name, type_name, line), scope)| Binding {
            scope,
            name,
            type_name,
            line,
        })
        .collect()
}

/// Parses `text` and drops the tree: the benchmark baseline, by the same [`FileParser`]
/// as [`extract`] (with the arena only when installed: `index --parse-only --arena`).
/// `false` when the parser gives up or the grammar cannot load.
pub fn parse_only(spec: &'static LanguageSpec, text: &str) -> bool {
    let Ok(compiled) = lang::compiled(spec) else {
        return false;
    };
    let mut parser = FileParser::new();
    match parser.parse(&compiled.language, text) {
        Ok(tree) => {
            parser.dispose(tree);
            true
        }
        Err(_) => false,
    }
}

/// How one file is parsed. With the arena installed (`super::arena`), tree-sitter's
/// allocations for the file come from the thread's arena: the file has its own parser (a
/// reused one would keep arena nodes in its pool) and its trees are forgotten, not freed
/// node by node. Without it, the thread's parser is reused and trees are dropped.
struct FileParser {
    // Dropped before `scope`: the parser's memory is the scope's.
    own: Option<Parser>,
    scope: Option<super::arena::Scope>,
}

impl FileParser {
    fn new() -> FileParser {
        FileParser {
            own: None,
            scope: super::arena::Scope::enter(),
        }
    }

    fn in_arena(&self) -> bool {
        self.scope.is_some()
    }

    /// Errors: the grammar does not load, or the parser returns no tree.
    fn parse(&mut self, language: &tree_sitter::Language, text: &str) -> Result<Tree, String> {
        let run = |p: &mut Parser| {
            p.set_language(language)
                .map_err(|e| format!("grammar: {e}"))?;
            p.parse(text, None)
                .ok_or_else(|| "parser returned no tree".to_string())
        };
        match self.scope {
            Some(_) => run(self.own.get_or_insert_with(Parser::new)),
            None => PARSER.with(|p| run(&mut p.borrow_mut())),
        }
    }

    /// Drops a tree this parser made.
    fn dispose(&self, tree: Tree) {
        match &self.scope {
            Some(scope) => scope.forget(tree),
            None => drop(tree),
        }
    }
}

/// Test helper: the facts of `text` as the file `path` (language from the extension),
/// with default chunk options. Panics on an unknown extension or a failed parse.
#[cfg(test)]
pub(crate) fn facts_for_test(path: &str, text: &str) -> FileFacts {
    let spec = lang::for_path(path).expect("a known extension");
    extract(
        path,
        spec,
        text,
        String::new(),
        text.len() as u64,
        &ChunkOptions::default(),
    )
    .expect("extracts")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `squash`'s copy-as-is path gives what splitting and joining gives, whitespace of
    /// every kind included (a vertical tab between tokens once came through unchanged).
    #[test]
    fn squash_collapses_every_kind_of_whitespace() {
        let slow = |s: &str| cap_chars(&s.split_whitespace().collect::<Vec<_>>().join(" "), 200);
        let long = "x".repeat(250);
        for s in [
            "self.items",
            "a b",
            "a  b",
            " a",
            "a ",
            "a.\x0Bb",
            "\x0Bfoo",
            "a\tb",
            "a\nb",
            "a\x0Cb",
            "a\rb",
            "a\u{a0}b",
            "a\u{3000}b",
            "é b",
            "",
            " ",
            long.as_str(),
        ] {
            assert_eq!(squash(s), slow(s), "{s:?}");
        }
        assert_eq!(squash("a.\x0Bb"), "a. b");
    }

    fn facts(path: &str, text: &str) -> FileFacts {
        facts_for_test(path, text)
    }

    /// Items in item-level `cfg_*! { }` blocks, nested too and inside an `impl`, are
    /// indexed at their own lines and columns; other item macros are left alone.
    #[test]
    fn rust_items_inside_cfg_blocks_are_indexed_in_place() {
        let src = "cfg_net! {\n    pub struct TcpStream { fd: u32 }\n    impl TcpStream {\n        pub fn connect() -> TcpStream { helper() }\n        cfg_unix! {\n            pub fn raw(&self) -> u32 { self.fd }\n        }\n    }\n}\nlazy_static! {\n    static ref X: u32 = make();\n}\nfn helper() -> TcpStream { TcpStream::connect() }\n";
        let f = facts_for_test("src/lib.rs", src);
        let at = |q: &str| {
            let d = f
                .definitions
                .iter()
                .find(|d| &*d.qualified_name == q)
                .unwrap_or_else(|| panic!("{q} missing: {:?}", f.definitions));
            (d.kind, d.start_line, d.end_line, d.signature.clone())
        };
        assert_eq!(
            at("TcpStream::connect"),
            (
                Kind::Method,
                4,
                4,
                "pub fn connect() -> TcpStream { helper() }".into()
            )
        );
        assert_eq!(at("TcpStream::raw").1, 6);
        assert_eq!(at("TcpStream").0, Kind::Struct);
        assert_eq!(at("helper").1, 13);
        assert!(!f.definitions.iter().any(|d| &*d.name == "X"));
        // `cfg_if!` has its own syntax: left alone.
        let g = facts_for_test(
            "src/lib.rs",
            "cfg_if! {\n    if #[cfg(unix)] {\n        fn a() {}\n    }\n}\n",
        );
        assert!(g.definitions.is_empty(), "{:?}", g.definitions);
        // Nor a block that is not items (tokio's `cfg_metrics_variant!`): what follows it
        // keeps its place in the impl.
        let h = facts_for_test(
            "src/lib.rs",
            "struct S;\nimpl S {\n    cfg_variant! {\n        stable: { fn v(&self) {} },\n        unstable: { fn v(&self) {} }\n    }\n    pub fn after(&self) { self.v(); }\n}\nfn last() {}\n",
        );
        let after = h.definitions.iter().find(|d| &*d.name == "after").unwrap();
        assert_eq!(
            (after.kind, &*after.qualified_name),
            (Kind::Method, "S::after")
        );
        assert!(h.definitions.iter().any(|d| &*d.name == "last"));
        let call = f.calls.iter().find(|c| c.name == "helper").unwrap();
        assert_eq!((call.line, call.column), (4, 41));
    }

    #[test]
    fn type_names_drop_references_lifetimes_and_generics() {
        let split = |s: &str| split_type_name(s);
        assert_eq!(split("&'a mut Ser"), ("Ser".into(), None));
        assert_eq!(split("&'a [T]"), ("[T]".into(), None));
        assert_eq!(split("&'static str"), ("str".into(), None));
        assert_eq!(split("&mut Foo"), ("Foo".into(), None));
        assert_eq!(split("*const Foo"), ("Foo".into(), None));
        assert_eq!(split("&'a dyn Write"), ("Write".into(), None));
        assert_eq!(
            split("crate::a::Foo<'a, T>"),
            ("Foo".into(), Some("crate::a".into()))
        );
        assert_eq!(split("pkg.Base[T]"), ("Base".into(), Some("pkg".into())));
        assert_eq!(split("*Node"), ("Node".into(), None));
    }

    fn def<'a>(f: &'a FileFacts, id: &str) -> &'a Definition {
        f.definitions
            .iter()
            .find(|d| &*d.id == id)
            .unwrap_or_else(|| panic!("no {id} in {:#?}", f.definitions))
    }

    #[test]
    fn rust_definitions_docs_and_kinds() {
        let src = "/// Adds.\n/// Twice.\n#[inline]\npub fn add(a: u32) -> u32 { a }\n\n// plain comment\nfn plain() {}\n\nstruct Calc;\nimpl Calc {\n    /** Block doc. */\n    fn add(&self) { add(1); self.add(); }\n}\nimpl std::fmt::Display for Calc {\n    fn fmt(&self) {}\n}\n";
        let f = facts("src/math.rs", src);
        let add = def(&f, "src/math.rs::add");
        assert_eq!(
            (add.kind, add.start_line, add.end_line),
            (Kind::Function, 4, 4)
        );
        assert_eq!(add.doc(), Some("Adds.\nTwice."));
        assert_eq!(&*add.qualified_name, "math::add");
        assert_eq!(add.signature, "pub fn add(a: u32) -> u32 { a }");
        assert_eq!(
            def(&f, "src/math.rs::plain").doc(),
            None,
            "a plain // comment is not documentation"
        );
        assert_eq!(def(&f, "src/math.rs::Calc#2").kind, Kind::Impl);
        let m = def(&f, "src/math.rs::Calc::add");
        assert_eq!((m.kind, m.doc()), (Kind::Method, Some("Block doc.")));
        let display = def(&f, "src/math.rs::Calc#3");
        assert_eq!(display.bases()[0].name, "Display");
        assert!(display.bases()[0].implements);
        assert_eq!(def(&f, "src/math.rs::Calc::fmt").kind, Kind::Method);
        let calls: Vec<(&str, Option<&str>, u32, u32)> = f
            .calls
            .iter()
            .map(|c| (c.name.as_str(), c.receiver.as_deref(), c.line, c.column))
            .collect();
        assert_eq!(
            calls,
            vec![("add", None, 12, 21), ("add", Some("self"), 12, 34)]
        );
        let caller = f.calls[0]
            .caller
            .map(|i| f.definitions[i as usize].id.as_ref());
        assert_eq!(caller, Some("src/math.rs::Calc::add"));
    }

    #[test]
    fn python_untyped_locals_are_bound_and_a_typed_capture_wins() {
        let src = "def run(a, b=1, *rest, **kw):\n    x = Repo()\n    y, z = pair()\n    for item in rest:\n        pass\n    n: int = 0\n";
        let f = facts("app/jobs.py", src);
        let mut got: Vec<(&str, &str)> = f
            .bindings
            .iter()
            .map(|b| (b.name.as_str(), b.type_name.as_str()))
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                ("a", ""),
                ("b", ""),
                ("item", ""),
                ("kw", ""),
                ("n", "int"),
                ("rest", ""),
                ("x", "Repo"),
                ("y", ""),
                ("z", "")
            ]
        );
        let run = f
            .definitions
            .iter()
            .position(|d| &*d.name == "run")
            .unwrap() as u32;
        assert!(f.bindings.iter().all(|b| b.scope == Some(run)));
    }

    #[test]
    fn python_docstrings_constructors_and_lambdas() {
        let src = "class Ledger(Base):\n    \"\"\"Books.\n\n    More.\n    \"\"\"\n    def __init__(self, db):\n        self.db = db\n\n    def settle(self):\n        return list(map(lambda x: helper(x), []))\n";
        let f = facts("app/service.py", src);
        let c = def(&f, "app/service.py::Ledger");
        assert_eq!((c.kind, c.doc()), (Kind::Class, Some("Books.\n\nMore.")));
        assert_eq!(c.bases()[0].name, "Base");
        assert_eq!(&*c.qualified_name, "app.service.Ledger");
        assert_eq!(
            def(&f, "app/service.py::Ledger.__init__").kind,
            Kind::Constructor
        );
        let helper = f.calls.iter().find(|c| c.name == "helper").unwrap();
        assert_eq!(
            &*f.definitions[helper.caller.unwrap() as usize].id,
            "app/service.py::Ledger.settle"
        );
    }

    #[test]
    fn javascript_jsdoc_on_exports_and_imports() {
        let src = "import a, { b as c } from './x';\nconst d = require('./y');\n/** Renders. */\nexport default function render() { return c(); }\nexport const f = () => new Thing();\n";
        let f = facts("src/r.js", src);
        assert_eq!(def(&f, "src/r.js::render").doc(), Some("Renders."));
        assert_eq!(f.default_export.as_deref(), Some("render"));
        let imports: Vec<(&str, Option<&str>, Option<&str>)> = f
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.name.as_deref(), i.alias.as_deref()))
            .collect();
        assert_eq!(
            imports,
            vec![
                ("./x", Some("default"), Some("a")),
                ("./x", Some("b"), Some("c")),
                ("./y", Some("default"), Some("d"))
            ]
        );
        let new = f.calls.iter().find(|c| c.name == "Thing").unwrap();
        assert!(new.is_new);
        assert_eq!(
            &*f.definitions[new.caller.unwrap() as usize].id,
            "src/r.js::f"
        );
    }

    #[test]
    fn go_methods_and_receivers() {
        let src = "package store\n\n// Memory keeps items.\ntype Memory struct{ Base }\n\n// Len counts.\nfunc (m *Memory) Len() int { return m.size() }\n";
        let f = facts("store/memory.go", src);
        let len = def(&f, "store/memory.go::Memory.Len");
        assert_eq!(
            (len.kind, len.doc(), len.self_name()),
            (Kind::Method, Some("Len counts."), Some("m"))
        );
        assert_eq!(&*len.qualified_name, "store.Memory.Len");
        assert_eq!(def(&f, "store/memory.go::Memory").bases()[0].name, "Base");
    }

    #[test]
    fn duplicate_ids_get_suffixes_in_source_order() {
        let f = facts("a.py", "def f():\n    pass\n\ndef f():\n    pass\n");
        let ids: Vec<&str> = f.definitions.iter().map(|d| &*d.id).collect();
        assert_eq!(ids, vec!["a.py::f", "a.py::f#2"]);
    }
}

#[cfg(test)]
mod engine_equivalence_tests {
    use super::*;

    /// (pattern index, captures as (capture index, node start, end, kind)) of each match.
    type Matches = Vec<(usize, Vec<(u32, usize, usize, u16)>)>;

    /// The matches of both engines over `text`.
    fn both(spec: &'static LanguageSpec, text: &str) -> (Matches, Matches) {
        let c = lang::compiled(spec).unwrap();
        let mut parser = Parser::new();
        parser.set_language(&c.language).unwrap();
        let tree = parser.parse(text, None).unwrap();
        let mut cursor = QueryCursor::new();
        let mut run = |engine: Engine| {
            let mut out: Matches = Vec::new();
            let mut on_match = |p: usize, caps: &[QueryCapture<'_>]| {
                let caps = caps
                    .iter()
                    .map(|c| {
                        (
                            c.index,
                            c.node.start_byte(),
                            c.node.end_byte(),
                            c.node.kind_id(),
                        )
                    })
                    .collect();
                out.push((p, caps));
            };
            let src = text.as_bytes();
            match engine {
                Engine::Matcher => c
                    .matcher
                    .run(tree.root_node(), src, &mut cursor, &mut on_match),
                Engine::QueryCursor => {
                    query_cursor_run(c, tree.root_node(), src, &mut cursor, &mut on_match)
                }
            }
            out
        };
        (run(Engine::Matcher), run(Engine::QueryCursor))
    }

    /// The first difference of two match lists, for a failure message.
    fn first_difference(a: &Matches, b: &Matches) -> String {
        let i = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        format!(
            "{} vs {} matches; first difference at #{i}: matcher {:?}, query cursor {:?}",
            a.len(),
            b.len(),
            a.get(i),
            b.get(i)
        )
    }

    /// The matcher gives exactly the query cursor's matches (pattern, captures, order) and
    /// therefore the same facts, on every fixture file.
    #[test]
    fn matcher_equals_query_cursor_on_fixtures() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let files = lang::grammar_files(&dir);
        assert!(files.len() >= 30, "only {} files", files.len());
        for (p, rel, spec) in files {
            let text = std::fs::read_to_string(&p).unwrap();
            let (a, b) = both(spec, &text);
            assert!(a == b, "{rel}: {}", first_difference(&a, &b));
            let o = ChunkOptions::default();
            let fa = extract_with(&rel, spec, &text, String::new(), 0, &o, Engine::Matcher);
            let fb = extract_with(&rel, spec, &text, String::new(), 0, &o, Engine::QueryCursor);
            assert_eq!(fa.unwrap(), fb.unwrap(), "{rel}");
        }
    }

    /// Cases where tree-sitter's choices are subtle, match by match: a field repeated
    /// inside the field's own repetition (Go `field('name', commaSep1(..))`: only the first
    /// name matches) or in a repetition of the field (`commaSep1(field('name', ..))`: every
    /// name matches), anchors, anonymous nodes and predicates.
    #[test]
    fn matcher_equals_query_cursor_on_subtle_cases() {
        let cases: &[(&str, &str)] = &[
            (
                "go",
                "package a\nconst white, black = 0, -1\nvar x, y int\nfunc f(a, b int, c *T) {}\n",
            ),
            (
                "python",
                "from m import a, b as c\nimport x, y\ndef f(p, q=1):\n    \"\"\"Doc.\"\"\"\n    self.v = V()\n",
            ),
            (
                "rust",
                "fn f() { assert_eq!(g(x), s.len()); format!(\"{}\", a.b(c)); }\n",
            ),
            (
                "javascript",
                "const r = require('./a'), { b, c: d } = require('./e');\nexport default f;\nexport * from './z';\n",
            ),
            (
                "java",
                "class A { Runnable r = this::run; Object o = Map.Entry::getKey; }\n",
            ),
        ];
        for (name, text) in cases {
            let spec = lang::by_name(name).unwrap();
            let (a, b) = both(spec, text);
            assert!(!b.is_empty(), "{name}: no matches");
            assert!(a == b, "{name}: {}", first_difference(&a, &b));
        }
    }

    /// The same comparison over any tree: `CG_EQUIV_DIR=~/.cache/codegraph-corpus cargo
    /// test --release --lib matcher_equals_query_cursor_on_dir -- --ignored --nocapture`.
    #[test]
    #[ignore = "needs CG_EQUIV_DIR"]
    fn matcher_equals_query_cursor_on_dir() {
        let dir = std::path::PathBuf::from(std::env::var("CG_EQUIV_DIR").expect("CG_EQUIV_DIR"));
        let (mut files, mut matches, mut differ) = (0, 0, Vec::new());
        for (p, rel, spec) in lang::grammar_files(&dir) {
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            if text.len() > 2_000_000 {
                continue;
            }
            let (a, b) = both(spec, &text);
            files += 1;
            matches += b.len();
            if a != b {
                eprintln!("{rel}: {}", first_difference(&a, &b));
                differ.push(rel);
            }
        }
        eprintln!("{files} files, {matches} matches, {} differ", differ.len());
        assert!(differ.is_empty(), "{differ:?}");
    }

    /// No shipped pattern needs tree-sitter's query cursor at run time.
    #[test]
    fn no_pattern_falls_back_to_the_query_cursor() {
        for spec in lang::LANGUAGES.iter().filter(|l| l.grammar.is_some()) {
            let c = lang::compiled(spec).unwrap();
            assert_eq!(c.matcher.fallback_patterns(), &[], "{}", spec.name);
        }
    }
}
