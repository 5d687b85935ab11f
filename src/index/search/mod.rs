//! Search over chunks: full text ([`text`], tantivy BM25 with the code tokenizer of
//! [`tokenize`]), meaning ([`embed`] providers and the [`vector`] index) and both merged
//! by reciprocal rank fusion ([`hybrid`]).
//!
//! The unit of search is a [`SearchChunk`]: one chunk of [`crate::index::FileFacts`]
//! with its text read back from `root/path` by line range, plus the metadata of its
//! definition. Everything here is built from a finished [`Index`]; the on-disk parts
//! (tantivy directory, vector cache) live in the repository's cache dir
//! (`docs/contracts.md#cache-layout`) and are replaced atomically, so a failed run leaves the previous ones.

pub mod embed;
pub mod hybrid;
pub mod prebuild;
pub mod query;
pub mod scan;
pub mod stamp;
pub mod table;
mod table_body;
pub mod text;
pub mod tokenize;
pub mod vector;
pub mod warm;

use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::facts::ChunkKind;
use super::{Index, Relation};

pub use embed::{EmbedError, Embedder};
pub use hybrid::{text_hits, Hit, Mode, Searcher};
pub use prebuild::{prebuild, vectors_skipped, Prebuild, PrebuildReport};
pub use query::Query;
pub use text::TextIndex;
pub use vector::VectorIndex;
pub use warm::{ChunkSearcher, SavedSearch};

/// Errors of search building and querying.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The tantivy index could not be built, opened or queried.
    #[error("text index at {path}: {source}")]
    Tantivy {
        /// Index directory (`<in memory>` for RAM indexes).
        path: PathBuf,
        /// tantivy's error.
        source: tantivy::TantivyError,
    },
    /// A cache file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The embedding provider failed; nothing already stored was changed.
    #[error("embedding failed: {0}")]
    Embed(EmbedError),
}

// Not `#[from]`: that would also make the error its source, and anyhow chains would
// print the provider's message twice.
impl From<EmbedError> for SearchError {
    fn from(e: EmbedError) -> Self {
        SearchError::Embed(e)
    }
}

/// One searchable chunk with its text. Lines are 1-based and inclusive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchChunk {
    /// Unique key of the chunk: `<path>:<start_line>-<end_line>`.
    pub key: String,
    /// Node id of the chunk's definition; the file's id (its path) for window chunks.
    pub id: String,
    /// Repo-relative path with `/` separators.
    pub path: String,
    /// Registry name of the language.
    pub language: String,
    /// The definition's kind (`function`, `class`, ...) or `window`.
    pub kind: String,
    /// The definition's own name; empty for windows.
    pub name: String,
    /// The definition's qualified name; empty for windows.
    pub qualified_name: String,
    /// Doc comment or docstring; empty when absent.
    pub doc: String,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// The source lines `start_line..=end_line`.
    pub text: String,
    /// Short graph-aware header, the start of every embedding input: file, language, kind and name, the
    /// enclosing definition, callees and callers by name.
    pub header: String,
}

/// A chunk key ([`SearchChunk::key`], `<path>:<start_line>-<end_line>`) split into its
/// path and lines; `None` when it is not one.
pub fn split_key(key: &str) -> Option<(&str, u32, u32)> {
    let (path, lines) = key.rsplit_once(':')?;
    let (start, end) = lines.split_once('-')?;
    Some((path, start.parse().ok()?, end.parse().ok()?))
}

impl SearchChunk {
    /// Empties `text`, `header` and `doc`, which only the text index and the embedding
    /// inputs read: a holder that needs the chunk's place and names alone lets them go.
    pub fn clear_texts(&mut self) {
        self.text = String::new();
        self.header = String::new();
        self.doc = String::new();
    }

    /// The embedding input: header, a blank line, then the chunk text.
    pub fn embedding_input(&self) -> String {
        format!("{}\n\n{}", self.header, self.text)
    }
}

/// Most callee or caller names listed in a chunk header.
const HEADER_NAMES: usize = 8;

/// Collects the chunks of `idx` with their text, in (path, start line) order. Files that
/// can no longer be read are skipped (their chunks are absent) and counted in the
/// returned number.
pub fn collect_chunks(idx: &Index) -> (Vec<SearchChunk>, usize) {
    let mut calls: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    let mut called_by: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    let edges = idx.graph.edges();
    for e in &edges {
        if !matches!(e.relation, Relation::Calls | Relation::References) {
            continue;
        }
        let name_of = |id: &str| idx.graph.node(id).map(|n| &*n.name);
        if let (Some(s), Some(t)) = (name_of(&e.source), name_of(&e.target)) {
            calls.entry(e.source.as_str()).or_default().insert(t);
            called_by.entry(e.target.as_str()).or_default().insert(s);
        }
    }
    let list = |m: &HashMap<&str, BTreeSet<&str>>, id: &str| -> String {
        m.get(id)
            .map(|s| {
                s.iter()
                    .take(HEADER_NAMES)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    // Files are read and cut on both cores (a large repository has 1M+ chunks); the
    // order stays the files' order.
    let per_file: Vec<Option<Vec<SearchChunk>>> = idx
        .files
        .par_iter()
        .map(|f| {
            let text = match &idx.root {
                Some(root) => match std::fs::read(root.join(&f.path)) {
                    Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                    Err(_) => return None,
                },
                None => return None,
            };
            let mut out = Vec::with_capacity(f.chunks.len());
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let lines: Vec<&str> = text.lines().collect();
            for c in &f.chunks {
                let s = (c.start_line.max(1) as usize - 1).min(lines.len());
                let e = (c.end_line as usize).min(lines.len()).max(s);
                let body = lines[s..e].join("\n");
                let def = c.definition.and_then(|i| f.definitions.get(i as usize));
                let mut chunk = SearchChunk {
                    key: format!("{}:{}-{}", f.path, c.start_line, c.end_line),
                    id: f.path.clone(),
                    path: f.path.clone(),
                    language: f.language.clone(),
                    kind: "window".into(),
                    name: String::new(),
                    qualified_name: String::new(),
                    doc: String::new(),
                    start_line: c.start_line,
                    end_line: c.end_line,
                    text: body,
                    header: String::new(),
                };
                match (c.kind, def) {
                    (ChunkKind::Symbol, Some(d)) => {
                        chunk.id = d.id.to_string();
                        chunk.kind = d.kind.as_str().into();
                        chunk.name = d.name.to_string();
                        chunk.qualified_name = d.qualified_name.to_string();
                        chunk.doc = d.doc().unwrap_or_default().to_string();
                        let within = d
                            .parent
                            .and_then(|p| f.definitions.get(p as usize))
                            .map(|p| &*p.qualified_name)
                            .unwrap_or("");
                        let mut h = format!(
                            "file: {} ({})\n{}: {}",
                            f.path, f.language, chunk.kind, d.qualified_name
                        );
                        if !within.is_empty() {
                            h.push_str(&format!("\nwithin: {within}"));
                        }
                        let c = list(&calls, &d.id);
                        if !c.is_empty() {
                            h.push_str(&format!("\ncalls: {c}"));
                        }
                        let b = list(&called_by, &d.id);
                        if !b.is_empty() {
                            h.push_str(&format!("\ncalled by: {b}"));
                        }
                        chunk.header = h;
                    }
                    _ => {
                        chunk.header = format!(
                            "file: {} ({})\nlines {}-{}",
                            f.path, f.language, c.start_line, c.end_line
                        );
                    }
                }
                out.push(chunk);
            }
            Some(out)
        })
        .collect();
    let unreadable = per_file.iter().filter(|c| c.is_none()).count();
    let out = per_file.into_iter().flatten().flatten().collect();
    (out, unreadable)
}

/// Writes `bytes` to `path` atomically (a sibling temp file, then rename).
///
/// Errors: [`SearchError::Io`] with the path.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SearchError> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] of what `write` writes, through a buffer: a large file (a vector
/// cache of 1M+ rows) is never held whole in memory.
///
/// Errors: [`SearchError::Io`] with the path; the temporary file is removed.
pub(crate) fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), SearchError> {
    let io = |source| SearchError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        // A file or link where the cache's folder belongs (damage) is replaced.
        if std::fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir()) {
            let _ = crate::index::fsutil::remove_any(dir);
        }
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    // So is a folder where the file belongs: a rename cannot replace it.
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        let _ = crate::index::fsutil::remove_any(path);
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|f| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        write(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?;
        Ok(())
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}
