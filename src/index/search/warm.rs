//! Searches answered from the saved indexes alone: the text index and the chunk table
//! of the live snapshot, and the embedder they were made with. A process that finds the
//! tree unchanged opens these (a few file headers and maps) instead of loading the
//! snapshot, reading every chunk back from the source and decoding the vector cache, and
//! ranks exactly as a [`Searcher`](super::Searcher) built over the same snapshot
//! (`tests/search_saved.rs` compares them).

use std::path::Path;

use super::embed::openai::{OpenAiConfig, OpenAiEmbedder};
use super::embed::Embedder;
use super::hybrid::{
    fuse, semantic_list, text_depth, text_hits, ChunkFields, ChunkMeta, Hit, Mode,
};
use super::query::Query;
use super::table::{table_file, ChunkTable};
use super::text::TextIndex;
use super::SearchError;
use crate::index::store::SnapshotDigest;

impl ChunkMeta for ChunkTable {
    fn meta(&self, i: usize) -> ChunkFields<'_> {
        self.row(i)
    }

    fn kind(&self, i: usize) -> &str {
        ChunkTable::kind(self, i)
    }

    fn filter_fields(&self, i: usize) -> (&str, &str, &str) {
        ChunkTable::filter_fields(self, i)
    }

    fn named(&self, lowercased: &str) -> Vec<usize> {
        ChunkTable::named(self, lowercased)
    }
}

/// The saved text index, chunk table and embedder of one snapshot, as far as the mode
/// it was opened for needs them.
pub struct SavedSearch {
    text: Option<TextIndex>,
    vectors: Option<(ChunkTable, Box<dyn Embedder>)>,
}

/// The embedder the configuration asks for, as it was saved: the OpenAI-compatible client
/// (no fit, digest zero) or the built-in model's saved fit from `cache_dir` with its
/// digest. `None` when the built-in model has no readable fit there.
fn saved_embedder(
    cache_dir: &Path,
    openai: Option<OpenAiConfig>,
) -> Option<(Box<dyn Embedder>, [u8; 32])> {
    if let Some(c) = OpenAiConfig::from_env(openai).ok()? {
        return Some((Box::new(OpenAiEmbedder::new(c).ok()?), [0; 32]));
    }
    let (head, m) = super::hybrid::saved_fit(cache_dir)?;
    Some((Box::new(m), head))
}

impl SavedSearch {
    /// What `mode` needs from `cache_dir` for the saved `snapshot`: the text index for
    /// `text`; the chunk table and the embedder its vectors were made with for
    /// `semantic`; all three for `hybrid`. `None` when any is missing or of another
    /// snapshot, embedder or fit: the caller builds a [`Searcher`](super::Searcher).
    pub fn open(
        cache_dir: &Path,
        snapshot: SnapshotDigest,
        mode: Mode,
        openai: Option<OpenAiConfig>,
    ) -> Option<SavedSearch> {
        let vectors = if mode == Mode::Text {
            None
        } else {
            let (embedder, fit) = saved_embedder(cache_dir, openai)?;
            let table = ChunkTable::open(&table_file(cache_dir, &embedder.cache_slot()), snapshot)?;
            if table.embedder_id != embedder.id() || table.fit != fit {
                return None;
            }
            Some((table, embedder))
        };
        let text = if mode == Mode::Semantic {
            None
        } else {
            let t = TextIndex::open_for_snapshot(&cache_dir.join("text"), snapshot)?;
            // The table and the index must hold the same chunks, or a text hit would map
            // to another row.
            if vectors
                .as_ref()
                .is_some_and(|(v, _)| t.len() != v.len() as u64)
            {
                return None;
            }
            Some(t)
        };
        Some(SavedSearch { text, vectors })
    }

    /// `true` when opened with the vectors (for `semantic` or `hybrid`).
    pub fn has_vectors(&self) -> bool {
        self.vectors.is_some()
    }

    /// The embedder's identity ([`Embedder::id`]), when opened with the vectors.
    pub fn embedder_id(&self) -> Option<String> {
        self.vectors.as_ref().map(|(_, e)| e.id())
    }

    /// Chunks searchable.
    pub fn len(&self) -> usize {
        match (&self.vectors, &self.text) {
            (Some((t, _)), _) => t.len(),
            (None, Some(t)) => t.len() as usize,
            (None, None) => 0,
        }
    }

    /// `true` without chunks.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the chunk table and of the text index, 0 for one not opened.
    pub fn size_bytes(&self) -> (u64, u64) {
        (
            self.vectors.as_ref().map_or(0, |(t, _)| t.size_bytes()),
            self.text.as_ref().map_or(0, TextIndex::size_bytes),
        )
    }

    /// The best `limit` hits for `query` in `mode`, as [`Searcher::search`] ranks them
    /// (`mode` is the one this was opened for, or one that needs less of it); mode
    /// `text` without vectors ranks by [`text_hits`], which ranks alike.
    ///
    /// Errors: [`SearchError::Tantivy`] reading the index; [`SearchError::Embed`] when
    /// the query cannot be embedded.
    ///
    /// [`Searcher::search`]: super::Searcher::search
    pub fn search(&self, query: &str, mode: Mode, limit: usize) -> Result<Vec<Hit>, SearchError> {
        let Some((table, embedder)) = &self.vectors else {
            return match (&self.text, mode) {
                (Some(text), Mode::Text) => text_hits(text, query, limit),
                _ => Err(super::EmbedError::Config(
                    "these saved indexes were opened without vectors".into(),
                )
                .into()),
            };
        };
        let q = Query::parse(query);
        let text_list: Vec<(usize, f64)> = match (&self.text, mode) {
            (_, Mode::Semantic) | (None, _) => Vec::new(),
            (Some(text), _) => text
                .search(&q, text_depth(mode, limit))?
                .into_iter()
                .filter_map(|h| {
                    let (path, start, end) = super::split_key(&h.key)?;
                    let row = table.row_of(path, usize::try_from(h.ord).ok()?, start, end)?;
                    Some((row, f64::from(h.score)))
                })
                .collect(),
        };
        let sem_list = if mode == Mode::Text || q.is_empty() {
            Vec::new()
        } else {
            let qv = embedder.embed_query(&q.text())?;
            semantic_list(table.codes(), table, &q, &qv, limit)
        };
        Ok(fuse(table, &q, query, mode, &text_list, &sem_list, limit))
    }
}

/// What answers chunk queries: a [`Searcher`](super::Searcher) built in this process, or
/// the saved indexes of a saved snapshot ([`SavedSearch`]), which rank alike.
pub enum ChunkSearcher {
    /// Built from the index in memory.
    Built(super::Searcher),
    /// Opened from the cache.
    Saved(SavedSearch),
}

impl ChunkSearcher {
    /// The best `limit` hits for `query` in `mode` ([`Searcher::search`]).
    ///
    /// Errors: as [`Searcher::search`].
    ///
    /// [`Searcher::search`]: super::Searcher::search
    pub fn search(&self, query: &str, mode: Mode, limit: usize) -> Result<Vec<Hit>, SearchError> {
        match self {
            ChunkSearcher::Built(s) => s.search(query, mode, limit),
            ChunkSearcher::Saved(s) => s.search(query, mode, limit),
        }
    }

    /// Chunks searchable.
    pub fn len(&self) -> usize {
        match self {
            ChunkSearcher::Built(s) => s.stats.chunks,
            ChunkSearcher::Saved(s) => s.len(),
        }
    }

    /// `true` without chunks.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
