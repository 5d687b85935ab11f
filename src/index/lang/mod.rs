//! The language registry: every language the engine knows, one [`LanguageSpec`] each,
//! listed in [`LANGUAGES`]; which file maps to which language; and the extraction query of
//! each (`queries/<lang>/tags.scm`, embedded at build time) compiled once.
//!
//! A spec carries everything the engine knows about its language (see [`LanguageSpec`]):
//! grammar, queries, family, module paths, the hooks a query cannot express, and the rule
//! groups for extraction, resolution and impact analysis. Code outside this module reads
//! those fields and never compares a language's name. Adding a language means a grammar
//! crate, `queries/<lang>/tags.scm`, a file here with its spec, and one line in
//! [`LANGUAGES`]. Languages without a grammar are indexed as line windows for search only.

mod bash;
mod clike;
mod dart;
mod elixir;
mod go;
mod impact_rules;
mod java;
mod javascript;
mod jsdoc;
mod kotlin;
mod lua;
mod matcher;
mod names;
mod pattern;
mod php;
mod python;
mod resolution_rules;
mod roots;
mod ruby;
mod rust;
mod scala;
mod spec;
mod swift;
pub(crate) mod token_tree;
mod zig;

pub use impact_rules::{Dispatch, FileEntry, Hooks, ImpactRules, MainRule, PublicApi, TestCode};
pub use names::NamePattern;
pub use resolution_rules::{ImportSystem, LocalShadowing, NewCalls, ResolutionRules};
pub use spec::{
    DocTags, ExtractionRules, ImportHook, LanguageSpec, PackageManifest, Reparse, TokenTreeCalls,
};
pub use token_tree::TokenClass;

use std::sync::OnceLock;

use tree_sitter::Query;

use super::facts::Kind;

/// Window-only language entry.
const fn windowed(name: &'static str, extensions: &'static [&'static str]) -> LanguageSpec {
    LanguageSpec {
        name,
        extensions,
        ..LanguageSpec::DEFAULT
    }
}

/// Every language the indexer knows, parsed ones first.
pub static LANGUAGES: &[LanguageSpec] = &[
    rust::SPEC,
    python::SPEC,
    javascript::JAVASCRIPT,
    javascript::TYPESCRIPT,
    javascript::TSX,
    go::SPEC,
    java::SPEC,
    clike::C,
    clike::CPP,
    clike::CSHARP,
    php::SPEC,
    ruby::SPEC,
    kotlin::SPEC,
    bash::SPEC,
    lua::SPEC,
    swift::SPEC,
    scala::SPEC,
    dart::SPEC,
    elixir::SPEC,
    zig::SPEC,
    windowed("markdown", &["md", "markdown", "mdx"]),
    windowed("toml", &["toml"]),
    LanguageSpec {
        file_names: &["go.mod"],
        ..windowed("gomod", &[])
    },
    windowed("yaml", &["yaml", "yml"]),
    windowed("json", &["json", "jsonc"]),
    windowed("text", &["txt", "rst", "adoc"]),
];

/// The `queries/<folder>/tags.scm` files that are no language's own, by folder name, for
/// `; inherits:` lines (a language's own query is inherited by its registry name). `ecma`
/// holds the captures JavaScript, TypeScript and TSX share.
static SHARED_QUERIES: &[(&str, &str)] =
    &[("ecma", include_str!("../../../queries/ecma/tags.scm"))];

/// Looks a language up by registry name.
pub fn by_name(name: &str) -> Option<&'static LanguageSpec> {
    LANGUAGES.iter().find(|l| l.name == name)
}

/// The spec of a registry name, or [`LanguageSpec::DEFAULT`] (no grammar, no rules) for a
/// name no language has: for code that reads a file's or node's rules by its language.
pub fn spec_of(name: &str) -> &'static LanguageSpec {
    static DEFAULT: LanguageSpec = LanguageSpec::DEFAULT;
    by_name(name).unwrap_or(&DEFAULT)
}

/// Picks the language for a path by its file name ([`LanguageSpec::file_names`]), else by
/// its extension (case-insensitive); `None` if unknown.
pub fn for_path(path: &str) -> Option<&'static LanguageSpec> {
    let file = path.rsplit('/').next().unwrap_or(path);
    if let Some(spec) = LANGUAGES.iter().find(|l| l.file_names.contains(&file)) {
        return Some(spec);
    }
    let (_, ext) = file.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    LANGUAGES
        .iter()
        .find(|l| l.extensions.contains(&ext.as_str()))
}

/// The language a `#!` first line names by its interpreter ([`LanguageSpec::interpreters`]):
/// the program's file name (`/usr/bin/php`), or the first word after `env` and its options
/// (`/usr/bin/env -S ruby -w`); a version suffix is ignored (`php8.2`, `ruby3`). `None`
/// when `head` starts with no `#!` or names no known interpreter.
pub fn for_shebang(head: &[u8]) -> Option<&'static LanguageSpec> {
    let line = head.strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let program = words.next()?.rsplit('/').next()?;
    let program = if program == "env" {
        words.find(|w| !w.starts_with('-') && !w.contains('='))?
    } else {
        program
    };
    let name = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    LANGUAGES.iter().find(|l| l.interpreters.contains(&name))
}

/// The language of a file whose extension is shared: the spec's
/// [`LanguageSpec::refine_by_content`] answer for `path` and `text` (a `.h` header holding
/// C++ is C++), else `spec` unchanged.
pub fn refine_by_content(
    spec: &'static LanguageSpec,
    path: &str,
    text: &str,
) -> &'static LanguageSpec {
    spec.refine_by_content
        .and_then(|refine| refine(path, text))
        .unwrap_or(spec)
}

/// A compiled extraction query with its capture indices looked up once.
pub struct CompiledLanguage {
    /// The language spec.
    pub spec: &'static LanguageSpec,
    /// The grammar.
    pub language: tree_sitter::Language,
    /// The `tags.scm` text, `; inherits:` lines expanded.
    pub source: String,
    /// `source` compiled by tree-sitter, on first [`CompiledLanguage::query`] call.
    query: OnceLock<Result<Query, String>>,
    /// What each capture index means (capture indices numbered as tree-sitter numbers
    /// them, see `pattern::outline`).
    pub roles: Vec<Role>,
    /// `roots[kind_id]` is true when some pattern starts at that node kind; `None` when a
    /// pattern's root is a wildcard (then the query runs over the whole tree).
    pub roots: Option<Vec<bool>>,
    /// The patterns of `query` compiled for direct matching (see [`matcher`]).
    pub(crate) matcher: matcher::Matcher,
}

/// Meaning of a capture name in `tags.scm` (documented in `queries/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `@definition.<kind>`.
    Definition(Kind),
    /// `@name`.
    Name,
    /// `@container`.
    Container,
    /// `@doc`.
    Doc,
    /// `@base`.
    Base,
    /// `@implements`.
    Implements,
    /// `@call`.
    Call,
    /// `@call.new`.
    CallNew,
    /// `@call.name`.
    CallName,
    /// `@call.receiver`.
    CallReceiver,
    /// `@call.qualifier`.
    CallQualifier,
    /// `@reference`.
    Reference,
    /// `@reference.receiver`.
    ReferenceReceiver,
    /// `@import`.
    Import,
    /// `@import.module`.
    ImportModule,
    /// `@import.name`.
    ImportName,
    /// `@import.alias`.
    ImportAlias,
    /// `@import.default`.
    ImportDefault,
    /// `@import.glob`.
    ImportGlob,
    /// `@export.default`.
    ExportDefault,
    /// `@self`.
    SelfName,
    /// `@accessor`: the definition is a getter or setter (JS `get x()`, a Python
    /// `@property`), read and written as a property, never called.
    Accessor,
    /// `@returns`.
    Returns,
    /// `@params`.
    Params,
    /// `@call.args`.
    CallArgs,
    /// `@package`.
    Package,
    /// `@comment`.
    Comment,
    /// `@annotation`.
    Annotation,
    /// `@no_calls`: a node whose text is not code that runs (a Rust attribute's token tree:
    /// `#[cfg(all(unix))]`), so call and reference matches inside it are dropped.
    NoCalls,
    /// `@local.name`.
    LocalName,
    /// `@local.type`.
    LocalType,
    /// `@local.value`: the call expression whose result a `@local.name` is bound to
    /// (`f, err := c.File(p)`), typed by the declared return type of what it calls.
    LocalValue,
    /// `@local.alias`: the name a module-level `@local.name` is another name for (`ib =
    /// attrib`): an import of the alias reaches what it names.
    LocalAlias,
    /// `@local.bound`: the trait bounds of a generic type parameter a `@local.name` names
    /// (`T: Read + Clone`, `where T: Read`), or the trait of the `impl Trait` / `dyn Trait`
    /// type a `@local.name` value has: the name is typed as one of those traits.
    LocalBound,
    /// `@local.doc`: a name whose type a doc comment may state (the language's
    /// [`ExtractionRules::doc_tags`]).
    LocalDoc,
    /// `@_helper` captures used only by predicates.
    Ignore,
}

impl Role {
    /// Parses a capture name; `None` for a name outside the vocabulary.
    pub fn parse(name: &str) -> Option<Role> {
        if let Some(kind) = name.strip_prefix("definition.") {
            return Kind::parse(kind).map(Role::Definition);
        }
        Some(match name {
            "name" => Role::Name,
            "container" => Role::Container,
            "doc" => Role::Doc,
            "base" => Role::Base,
            "implements" => Role::Implements,
            "call" => Role::Call,
            "call.new" => Role::CallNew,
            "call.name" => Role::CallName,
            "call.receiver" => Role::CallReceiver,
            "call.qualifier" => Role::CallQualifier,
            "reference" => Role::Reference,
            "reference.receiver" => Role::ReferenceReceiver,
            "import" => Role::Import,
            "import.module" => Role::ImportModule,
            "import.name" => Role::ImportName,
            "import.alias" => Role::ImportAlias,
            "import.default" => Role::ImportDefault,
            "import.glob" => Role::ImportGlob,
            "export.default" => Role::ExportDefault,
            "self" => Role::SelfName,
            "accessor" => Role::Accessor,
            "returns" => Role::Returns,
            "params" => Role::Params,
            "call.args" => Role::CallArgs,
            "package" => Role::Package,
            "comment" => Role::Comment,
            "annotation" => Role::Annotation,
            "no_calls" => Role::NoCalls,
            "local.name" => Role::LocalName,
            "local.type" => Role::LocalType,
            "local.doc" => Role::LocalDoc,
            "local.value" => Role::LocalValue,
            "local.alias" => Role::LocalAlias,
            "local.bound" => Role::LocalBound,
            n if n.starts_with('_') => Role::Ignore,
            _ => return None,
        })
    }
}

/// The compiled grammar and query for a language, built on first use and then shared.
///
/// Errors: a query that does not compile against its grammar is a build defect; it is
/// returned as a message (tests compile every query, so a release never ships one).
pub fn compiled(spec: &'static LanguageSpec) -> Result<&'static CompiledLanguage, String> {
    static CACHE: OnceLock<Vec<OnceLock<Result<CompiledLanguage, String>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| LANGUAGES.iter().map(|_| OnceLock::new()).collect());
    let idx = LANGUAGES
        .iter()
        .position(|l| std::ptr::eq(l, spec))
        .ok_or_else(|| format!("language {} is not registered", spec.name))?;
    cache[idx]
        .get_or_init(|| {
            let grammar = spec
                .grammar
                .ok_or_else(|| format!("{} has no grammar", spec.name))?;
            let language = grammar();
            let source = query_source(spec, 0)?;
            // No `Query` here: the matcher reads the patterns itself, and tree-sitter's
            // analysis of a whole query costs up to a tenth of an index (see `pattern`).
            let outline = pattern::outline(&source);
            let roles = outline
                .captures
                .iter()
                .map(|n| {
                    Role::parse(n).ok_or_else(|| {
                        format!("queries/{}/tags.scm: unknown capture @{n}", spec.name)
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let roots = roots::root_kinds(&source).map(|names| {
                (0..language.node_kind_count() as u16)
                    .map(|id| {
                        language.node_kind_is_named(id)
                            && language
                                .node_kind_for_id(id)
                                .is_some_and(|k| names.iter().any(|n| n == k))
                    })
                    .collect()
            });
            let matcher = matcher::Matcher::new(&language, &outline, &source)
                .map_err(|e| format!("queries/{}/tags.scm: {e}", spec.name))?;
            Ok(CompiledLanguage {
                spec,
                language,
                source,
                query: OnceLock::new(),
                roles,
                roots,
                matcher,
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

impl CompiledLanguage {
    /// The whole `tags.scm` compiled by tree-sitter (on first call), for the reference
    /// engine that the matcher is tested against.
    ///
    /// Errors: tree-sitter's message when the query does not compile (a build defect that
    /// the tests catch).
    pub fn query(&self) -> Result<&Query, String> {
        self.query
            .get_or_init(|| {
                Query::new(&self.language, &self.source)
                    .map_err(|e| format!("queries/{}/tags.scm: {e}", self.spec.name))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// The query text of a language with its `; inherits: <lang>` lines expanded (first line
/// only, comma-separated names, depth-limited against cycles).
fn query_source(spec: &LanguageSpec, depth: u32) -> Result<String, String> {
    if depth > 4 {
        return Err(format!("queries/{}/tags.scm: inherits cycle", spec.name));
    }
    let mut out = String::new();
    if let Some(rest) = spec
        .tags
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("; inherits:"))
    {
        for parent in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let text = by_name(parent)
                .map(|l| l.tags)
                .filter(|t| !t.is_empty())
                .or_else(|| {
                    SHARED_QUERIES
                        .iter()
                        .find(|(n, _)| *n == parent)
                        .map(|(_, t)| *t)
                })
                .ok_or_else(|| {
                    format!("queries/{}/tags.scm inherits unknown {parent}", spec.name)
                })?;
            let parent_spec = LanguageSpec {
                name: parent,
                tags: text,
                ..windowed("", &[])
            };
            out.push_str(&query_source(&parent_spec, depth + 1)?);
            out.push('\n');
        }
    }
    out.push_str(spec.tags);
    Ok(out)
}

/// The package path of a file in a JVM-style source tree: the directories after the
/// source root, which is the last directory named one of `roots` below a `src/` (Maven,
/// Gradle and sbt: `src/main/java`, `src/commonMain/kotlin`, `src/main/scala`), else the
/// last `src/`, else the repository root.
fn source_root_package(path: &str, roots: &[&str]) -> Vec<String> {
    let (dirs, _) = split_path(path);
    let start = dirs
        .iter()
        .rposition(|d| roots.contains(d))
        .filter(|&i| i > 0 && dirs[..i].contains(&"src"))
        .or_else(|| dirs.iter().rposition(|d| *d == "src"))
        .map_or(0, |i| i + 1);
    dirs[start..].iter().map(|s| s.to_string()).collect()
}

/// Splits a path into its directory segments and the file stem.
fn split_path(path: &str) -> (Vec<&str>, &str) {
    let mut segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let file = segs.pop().unwrap_or("");
    let stem = file.split('.').next().unwrap_or(file);
    (segs, stem)
}

/// What a spec's `expand_import` makes of `src` parsed with `grammar`: it is called, as the
/// engine calls it, on every node whose kind is one of `kinds` (the `@import` patterns of
/// the language's tags query), in document order. For the languages' own tests.
#[cfg(test)]
pub(crate) fn expanded_imports(
    grammar: tree_sitter::Language,
    kinds: &[&str],
    expand: fn(tree_sitter::Node<'_>, &[u8], u32, &mut Vec<crate::index::facts::Import>),
    src: &str,
) -> Vec<crate::index::facts::Import> {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&grammar).unwrap();
    let tree = p.parse(src, None).unwrap();
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if kinds.contains(&n.kind()) {
            expand(n, src.as_bytes(), 1, &mut out);
        }
        let mut cur = n.walk();
        let kids: Vec<_> = n.named_children(&mut cur).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// `(module, name, alias)` of each import, borrowed: what the languages' import tests
/// compare.
#[cfg(test)]
pub(crate) fn import_triples(
    imports: &[crate::index::facts::Import],
) -> Vec<(&str, Option<&str>, Option<&str>)> {
    imports
        .iter()
        .map(|i| (i.module.as_str(), i.name.as_deref(), i.alias.as_deref()))
        .collect()
}

/// Every file under `dir` that a grammar parses: (path, path relative to `dir` with `/`,
/// language), in relative-path order. For tests that run over fixture folders.
#[cfg(test)]
pub(crate) fn grammar_files(
    dir: &std::path::Path,
) -> Vec<(std::path::PathBuf, String, &'static LanguageSpec)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if let Some(spec) = for_path(&rel).filter(|s| s.grammar.is_some()) {
                out.push((p, rel, spec));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles() {
        for spec in LANGUAGES.iter().filter(|l| l.grammar.is_some()) {
            if let Err(e) = compiled(spec).and_then(|c| c.query().map(|_| ())) {
                panic!("{e}");
            }
        }
    }

    /// The matcher numbers patterns and captures from the text alone ([`pattern::outline`]);
    /// a compiled `Query` of every shipped `tags.scm` must agree on both.
    #[test]
    fn outline_numbers_patterns_and_captures_as_tree_sitter() {
        for spec in LANGUAGES.iter().filter(|l| l.grammar.is_some()) {
            let c = compiled(spec).unwrap();
            let query = c.query().unwrap();
            let outline = pattern::outline(&c.source);
            let starts: Vec<usize> = (0..query.pattern_count())
                .map(|i| query.start_byte_for_pattern(i))
                .collect();
            let ours: Vec<usize> = outline.patterns.iter().map(|r| r.start).collect();
            assert_eq!(ours, starts, "{}: pattern starts", spec.name);
            for (i, r) in outline.patterns.iter().enumerate() {
                // tree-sitter's range runs on over comments up to the next pattern.
                let theirs =
                    &c.source[query.start_byte_for_pattern(i)..query.end_byte_for_pattern(i)];
                let rest = theirs.strip_prefix(&c.source[r.clone()]);
                assert!(
                    rest.is_some_and(|rest| roots::tokenize(rest).is_empty()),
                    "{} pattern {i}: {theirs:?}",
                    spec.name
                );
            }
            assert_eq!(
                outline.captures,
                query.capture_names(),
                "{}: captures",
                spec.name
            );
        }
    }

    #[test]
    fn outline_splits_top_level_patterns() {
        let q = "; c (x)\n(a (b) @x) @y\n((c) @z (#eq? @z \"(\"))\n[(d) (e)] @x\n\"+\" @w\n";
        let o = pattern::outline(q);
        let texts: Vec<&str> = o.patterns.iter().map(|r| &q[r.clone()]).collect();
        assert_eq!(
            texts,
            [
                "(a (b) @x) @y",
                "((c) @z (#eq? @z \"(\"))",
                "[(d) (e)] @x",
                "\"+\" @w"
            ]
        );
        assert_eq!(o.captures, ["x", "y", "z", "w"]);
    }

    #[test]
    fn extensions_map_to_languages() {
        assert_eq!(for_path("a/b.rs").map(|l| l.name), Some("rust"));
        assert_eq!(for_path("x.PY").map(|l| l.name), Some("python"));
        assert_eq!(for_path("w/app.min.js").map(|l| l.name), Some("javascript"));
        assert_eq!(for_path("w/a.d.ts").map(|l| l.name), Some("typescript"));
        assert_eq!(for_path("w/a.tsx").map(|l| l.name), Some("tsx"));
        assert_eq!(for_path("README.md").map(|l| l.name), Some("markdown"));
        assert_eq!(for_path("Makefile").map(|l| l.name), None);
        assert_eq!(for_path("a/go.mod").map(|l| l.name), Some("gomod"));
        assert_eq!(for_path("a/GO.MOD").map(|l| l.name), None);
        assert_eq!(for_path("a.exe").map(|l| l.name), None);
    }

    #[test]
    fn shebang_lines_name_interpreters() {
        let of = |h: &str| for_shebang(h.as_bytes()).map(|l| l.name);
        assert_eq!(of("#!/usr/bin/env ruby\nputs 1\n"), Some("ruby"));
        assert_eq!(of("#!/usr/bin/ruby3.2 -w\n"), Some("ruby"));
        assert_eq!(of("#!/usr/bin/env -S php -d x=1\n"), Some("php"));
        assert_eq!(of("#! /usr/local/bin/php8.2\n"), Some("php"));
        assert_eq!(of("#!/bin/false\n"), None);
        assert_eq!(of("ruby\n"), None);
        assert_eq!(for_path("bin/rails").map(|l| l.name), None);
        assert_eq!(for_path("Rakefile").map(|l| l.name), Some("ruby"));
        assert_eq!(for_path("src/A.php").map(|l| l.name), Some("php"));
    }

    #[test]
    fn families_group_the_languages_that_see_each_other() {
        let family = |n: &str| by_name(n).unwrap().family();
        for n in ["javascript", "typescript", "tsx"] {
            assert_eq!(family(n), "js", "{n}");
        }
        assert_eq!(family("c"), "c");
        assert_eq!(family("cpp"), "c");
        for n in ["rust", "python", "go", "java", "csharp", "markdown"] {
            assert_eq!(family(n), n);
        }
        assert_eq!(spec_of("no such language").name, "");
    }

    #[test]
    fn headers_with_cpp_content_are_cpp() {
        let c = for_path("x.h").unwrap();
        assert_eq!(refine_by_content(c, "x.h", "int f(void);\n").name, "c");
        assert_eq!(
            refine_by_content(c, "a/x.h", "#pragma once\nnamespace a {\nclass B {};\n}\n").name,
            "cpp"
        );
        assert_eq!(refine_by_content(c, "x.c", "class X {};\n").name, "c");
    }
}
