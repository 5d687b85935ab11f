//! Syntax tree → [`FileFacts`], driven by the language's `queries/<lang>/tags.scm`.
//!
//! One pass of the language's pattern matcher over the tree (`lang::matcher`: the
//! `tags.scm` patterns compiled to steps over kind and field ids, matched at their root
//! nodes during a single walk of the tree) yields every definition, call site and import
//! (capture vocabulary in `queries/README.md`). The matcher gives the same matches in the
//! same order as tree-sitter's query cursor, which costs half a bare parse, so the
//! consumer of the matches is engine-agnostic; the query cursor is kept as the reference
//! engine ([`extract_with_query_cursor`]) that tests compare the matcher with, fact for
//! fact and match for match. The rest is generic: definitions are nested by
//! byte range (so closures and lambdas, which are not definitions, never own a call),
//! kinds are adjusted (`function` in a class → `method`), ids get `#n` suffixes for
//! duplicates, and leading doc comments are collected. Nothing here recurses over the
//! tree, so deeply nested input cannot overflow the stack (the matcher recurses only as
//! deep as a pattern is).
//!
//! Layout: this module is the per-file driver (parse, unwrap Rust `cfg_*!` blocks, run the
//! patterns, assemble [`FileFacts`]) with the parser and its arena use. `matches` runs the
//! patterns and hands each match to the capture handlers of `defs` (definitions, doc
//! comments, nesting), `calls` (call sites and references) and `imports` (imports and
//! bindings); `nodes` holds what they all read from a captured node.

mod calls;
mod defs;
mod doc_types;
mod imports;
mod matches;
mod nodes;

use tree_sitter::{Parser, QueryCursor, Tree};

use self::calls::attach_calls;
use self::defs::build_definitions;
use self::imports::attach_bindings;
use self::matches::{run_query, Scratch};
use self::nodes::cap_chars;
use super::chunk::{self, ChunkOptions};
use super::facts::{FileFacts, FileMode};
use super::lang::{self, LanguageSpec};
use super::lines::LineIndex;

thread_local! {
    static PARSER: std::cell::RefCell<Parser> = std::cell::RefCell::new(Parser::new());
    static CURSOR: std::cell::RefCell<QueryCursor> = std::cell::RefCell::new(QueryCursor::new());
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
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

/// Nesting levels of wrappers unwrapped by a [`Reparse`](lang::Reparse) (tokio nests its
/// `cfg_*!` blocks two or three deep).
const MAX_REPARSES: usize = 4;

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
    // Items inside wrappers the grammar sees as tokens (Rust's item-level `cfg_*! { ... }`
    // blocks: tokio wraps much of its API in them) are items once the wrapper is blanked
    // out and the file parsed again, at the very same bytes, lines and columns.
    let mut unwrapped: Option<String> = None;
    // (A byte search first: most files have no such block.)
    if let Some(reparse) = spec.extraction.reparse.filter(|r| text.contains(r.trigger)) {
        for _ in 0..MAX_REPARSES {
            let cur = unwrapped.as_deref().unwrap_or(text);
            let Some(u) = (reparse.unwrap)(tree.root_node(), cur) else {
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
    let mut module_path = (spec.module_path)(path);
    let (mut definitions, mut calls, imports, default_export, raw_bindings, package) = SCRATCH
        .with(|s| {
            let s = &mut *s.borrow_mut();
            // A cursor of the file's own in the arena (its arrays would outlive the scope).
            let (imports, default_export, raw_bindings, package) = if parser.in_arena() {
                run_query(compiled, root, text, &mut QueryCursor::new(), engine, s)
            } else {
                CURSOR.with(|c| run_query(compiled, root, text, &mut c.borrow_mut(), engine, s))
            };
            // A package the file declares, where the language names modules so
            // (PHP `namespace App\Models;`), is its module path whatever the folders.
            if let (Some(sep), Some(p)) = (spec.extraction.declared_package_separator, &package) {
                module_path = p
                    .split(sep)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
            }
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

/// Parses `text` and drops the tree: the benchmark baseline, by the same `FileParser`
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
mod engine_tests;
#[cfg(test)]
mod tests;
