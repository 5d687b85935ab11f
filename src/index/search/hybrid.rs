//! Ranking modes and their fusion. `text` is BM25 alone, `semantic` is cosine over the
//! chunk vectors alone, `hybrid` merges both candidate lists (up to [`CANDIDATES`] each,
//! before any truncation) by weighted reciprocal rank fusion,
//! `score = w / (RRF_K + text rank) + 1 / (RRF_K + semantic rank)` with `w` =
//! [`TEXT_WEIGHT`] (Cormack, Clarke and Büttcher, SIGIR 2009), de-duplicated by chunk, a
//! line window's score times [`WINDOW_WEIGHT`], a BM25 hit far above the next one
//! ([`PEAK_RATIO`]) first. In `hybrid`, a chunk whose definition's
//! name, qualified name or id equals the whole query ranks first, and one equal to it
//! ignoring case next. Every hit says where it came from (`text_rank`, `semantic_rank`,
//! 1-based).

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::embed::offline::OfflineEmbedder;
use super::embed::openai::{OpenAiConfig, OpenAiEmbedder};
use super::embed::Embedder;
use super::query::Query;
pub use super::table::ChunkFields;
use super::text::TextIndex;
use super::vector::{embed_inputs, inputs_and_keys, EmbedStats, VectorIndex};
use super::{collect_chunks, SearchChunk, SearchError};
use crate::index::store::SnapshotDigest;
use crate::index::Index;

/// The `k` of reciprocal rank fusion. Chosen with [`TEXT_WEIGHT`] and [`WINDOW_WEIGHT`] by
/// `bench/fusion_eval.py` on twelve searchbench packages (`docs/accuracy.md#fusion`): with
/// the built-in embedder, k = 5 to 7 beat the paper's k = 60 and the earlier k = 10 where
/// one list is much better than the other.
pub const RRF_K: f64 = 5.0;

/// Weight of the BM25 list in the fusion (the vector list has weight 1). Measured on twelve
/// searchbench packages (`docs/accuracy.md#fusion`): 0.7 keeps hybrid ahead of the
/// semantic list on the packages where BM25 is far weaker (more-itertools, toolz,
/// packaging, cachetools: equal weights lost to semantic alone by up to 0.08 MRR@10).
pub const TEXT_WEIGHT: f64 = 0.7;

/// Weight of the BM25 list instead of [`TEXT_WEIGHT`] for a query of at most
/// [`SHORT_QUERY_WORDS`] words: keywords (`register blueprint`) name what the code says,
/// where a sentence describes it. Measured by `bench/fusion_eval.py --name-queries`
/// (each searchbench target queried by the words of its own name) on twelve packages
/// (`docs/accuracy.md#fusion`): with 0.7 hybrid lost to BM25 alone by 0.04 to 0.10
/// MRR@10, with 3 by at most 0.021 (a package of 9 such queries aside); 4 and more gained
/// under 0.01 more there while giving the vector list less say where it finds what the
/// words do not spell. No docstring query of the benchmark has so few words, so those
/// score as before.
pub const SHORT_QUERY_TEXT_WEIGHT: f64 = 3.0;

/// Most words (plain words and the words of quoted phrases, filters not counted) of a
/// query weighted by [`SHORT_QUERY_TEXT_WEIGHT`].
pub const SHORT_QUERY_WORDS: usize = 3;

/// Factor of a line-window chunk's fused score: a window (documentation, configuration,
/// a file without a grammar) ranks below a definition with the same evidence, since a
/// definition is what the graph can follow. Measured with [`RRF_K`]: +0.01 to +0.17
/// MRR@10 where documentation repeats the code's words, none lost elsewhere.
pub const WINDOW_WEIGHT: f64 = 0.5;

/// Added to the fused score of a chunk whose definition's name, qualified name or id
/// equals the whole query: more than any other score (a [`FOLDED_NAME_BONUS`] plus an RRF
/// sum, which is below `(SHORT_QUERY_TEXT_WEIGHT + 1) / (RRF_K + 1)` = 2/3), so it ranks
/// first.
pub const EXACT_NAME_BONUS: f64 = 4.0;

/// Added instead when they are equal only ignoring case (`session` for `Session`): above
/// every RRF sum with a [`PEAK_BONUS`], below an exact match.
pub const FOLDED_NAME_BONUS: f64 = 2.0;

/// A BM25 hit whose score is at least this many times the next BM25 hit's (or the only
/// BM25 hit) is a peak: one chunk holds the query's rare words far more than any other
/// (two uncommon words that meet in one function), and it ranks first in `hybrid`, above
/// every RRF sum, whatever the vector list says. Rank-only fusion buries such a hit under
/// the vector list's flat top when the embedder does not know the words. Chosen by
/// `bench/fusion_eval.py` (`docs/accuracy.md#fusion`): with ratio 10 the twelve
/// searchbench packages' docstring queries score exactly as without the rule, while
/// their name-word queries gain; ratios of 5 and below moved docstring queries too.
pub const PEAK_RATIO: f64 = 10.0;

/// Added to a [`PEAK_RATIO`] peak's fused score: more than any RRF sum (below 2/3, see
/// [`EXACT_NAME_BONUS`]), less than [`FOLDED_NAME_BONUS`], so a definition named like the
/// query still ranks above it.
pub const PEAK_BONUS: f64 = 1.0;

/// Candidates taken from each list before fusion.
pub const CANDIDATES: usize = 1000;

/// How to rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// BM25 over the tantivy index.
    Text,
    /// Cosine similarity of embeddings.
    Semantic,
    /// Reciprocal rank fusion of both, exact name matches first.
    #[default]
    Hybrid,
}

impl Mode {
    /// `text`, `semantic` or `hybrid`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Text => "text",
            Mode::Semantic => "semantic",
            Mode::Hybrid => "hybrid",
        }
    }
}

/// One search hit (`docs/contracts.md#search`). Lines are 1-based and inclusive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Node id of the chunk's definition, or the file's id for a window chunk.
    pub id: String,
    /// Repo-relative path.
    pub path: String,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// Definition kind or `window`.
    pub kind: String,
    /// `text`: BM25; `semantic`: cosine; `hybrid`: the RRF sum, plus
    /// [`EXACT_NAME_BONUS`] for an exact name match or [`FOLDED_NAME_BONUS`] for one
    /// that ignores case, and [`PEAK_BONUS`] for a BM25 peak. Higher is better.
    pub score: f64,
    /// 1-based rank in the BM25 list; `None` when that list did not have the hit.
    pub text_rank: Option<usize>,
    /// 1-based rank in the vector list; `None` when that list did not have the hit.
    pub semantic_rank: Option<usize>,
}

/// What building a [`Searcher`] did: counts for logs and `--stats`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildStats {
    /// Chunks searchable.
    pub chunks: usize,
    /// Files whose text could not be read back (their chunks are absent).
    pub files_unreadable: usize,
    /// `true` when the on-disk text index was reused as is.
    pub text_reused: bool,
    /// Files whose documents were replaced in the on-disk text index.
    pub text_files_updated: usize,
    /// Vectors from the cache.
    pub vectors_cached: usize,
    /// Vectors computed in this run.
    pub vectors_embedded: usize,
    /// Embedder identity, when vectors were built.
    pub embedder: Option<String>,
    /// `true` when the built-in embedder's fit was read from the cache, not fitted again.
    pub embedder_fit_reused: bool,
    /// Bytes of the text index on disk (0 in RAM).
    pub text_index_bytes: u64,
    /// Bytes of the vector cache file (0 without cache).
    pub vector_bytes: u64,
    /// Milliseconds by phase (`chunks`, `text`, `vectors`).
    pub elapsed_ms: HashMap<String, u64>,
}

/// Fused score, text rank, semantic rank of one chunk.
type Fused = (f64, Option<usize>, Option<usize>);

/// Chunks, their text index and (when a mode needs them) their vectors.
pub struct Searcher {
    chunks: Vec<SearchChunk>,
    text: TextIndex,
    vectors: Option<(VectorIndex, Box<dyn Embedder>)>,
    /// Chunks of definitions by lowercased name, qualified name and id.
    by_name: HashMap<String, Vec<usize>>,
    by_key: HashMap<String, usize>,
    /// What building did.
    pub stats: BuildStats,
}

/// What [`choose_embedder`] returns: the embedder, whether a saved fit was reused, and the
/// fit's digest.
pub type ChosenEmbedder = (Box<dyn Embedder>, bool, [u8; 32]);

/// The embedder the configuration asks for: the OpenAI-compatible client when a base URL
/// is set (environment or `config`), else the offline model fitted on the chunks'
/// embedding `inputs` (with their [`super::vector::input_hash`] `keys`, in chunk order).
/// With a `cache_dir` the offline fit is saved there and reused while the inputs and the
/// engine are the same: fitting reads every chunk (about 20 s on 1.3M chunks).
///
/// Returns the embedder, whether a saved fit was reused, and the fit's digest (what a
/// saved [`super::table::ChunkTable`] records; zero for the OpenAI-compatible client).
///
/// Errors: [`SearchError::Embed`] for a malformed setting.
pub fn choose_embedder(
    inputs: &[String],
    keys: &[[u8; 32]],
    cache_dir: Option<&Path>,
    config: Option<OpenAiConfig>,
) -> Result<ChosenEmbedder, SearchError> {
    if let Some(c) = OpenAiConfig::from_env(config)? {
        return Ok((Box::new(OpenAiEmbedder::new(c)?), false, [0; 32]));
    }
    let file = cache_dir.map(fit_file);
    let mut digest = blake3::Hasher::new();
    digest.update(crate::index::store::engine_fingerprint().as_bytes());
    for k in keys {
        digest.update(k);
    }
    let digest = *digest.finalize().as_bytes();
    let saved = cache_dir
        .and_then(saved_fit)
        .filter(|(head, _)| *head == digest)
        .map(|(_, m)| m);
    if let Some(m) = saved {
        tracing::debug!("embedder fit reused");
        return Ok((Box::new(m), true, digest));
    }
    let t = std::time::Instant::now();
    let m = OfflineEmbedder::fit(inputs);
    tracing::debug!(ms = t.elapsed().as_millis() as u64, "embedder fitted");
    if let Some(f) = &file {
        let mut b = digest.to_vec();
        b.extend(m.to_bytes());
        // A fit that cannot be saved is fitted again next time; the search goes on.
        if let Err(e) = super::write_atomic(f, &b) {
            tracing::warn!(error = %e, "could not save the embedder fit");
        }
    }
    Ok((Box::new(m), false, digest))
}

/// Where the built-in embedder's fit is saved under `cache_dir`.
fn fit_file(cache_dir: &Path) -> std::path::PathBuf {
    cache_dir.join("vectors").join("offline-fit.bin")
}

/// The built-in embedder's fit saved under `cache_dir` and the digest it was saved with
/// (of the engine and the chunks' inputs it was fitted on); `None` when missing, short, or
/// failing its checks (logged).
pub fn saved_fit(cache_dir: &Path) -> Option<([u8; 32], OfflineEmbedder)> {
    let f = fit_file(cache_dir);
    let b = crate::index::fsutil::read_regular(&f).ok()?;
    let (head, body) = b.split_at_checked(32)?;
    let m = OfflineEmbedder::from_bytes(body);
    if m.is_none() {
        tracing::warn!(path = %f.display(), "saved embedder fit fails its checks; fitting again");
    }
    Some((head.try_into().ok()?, m?))
}

/// Saves the [`super::table::ChunkTable`] of `chunks` and their vectors `vi` for
/// `snapshot`, made by `embedder` with the fit `fit`. A table that cannot be written is
/// logged and left out: searches then take the building path.
pub fn save_table(
    cache_dir: &Path,
    snapshot: SnapshotDigest,
    embedder: &dyn Embedder,
    fit: [u8; 32],
    chunks: &[SearchChunk],
    vi: &VectorIndex,
) {
    let t = std::time::Instant::now();
    let path = super::table::table_file(cache_dir, &embedder.cache_slot());
    match super::table::write(&path, snapshot, &embedder.id(), fit, chunks, vi) {
        Ok(()) => tracing::debug!(ms = t.elapsed().as_millis() as u64, "chunk table saved"),
        Err(e) => tracing::warn!(error = %e, "could not save the chunk table"),
    }
}

impl Searcher {
    /// Builds (or reopens from `cache_dir`) what `mode` needs over the chunks of `idx`:
    /// always the text index (hybrid's exact-name rule and filters use it too), and the
    /// vectors for `semantic` and `hybrid`, from `embedder` or [`choose_embedder`].
    ///
    /// Errors: [`SearchError`] from the text index, the embedder or the cache; a failure
    /// leaves the previous on-disk index and vectors in place.
    pub fn build(
        idx: &Index,
        mode: Mode,
        cache_dir: Option<&Path>,
        embedder: Option<Box<dyn Embedder>>,
        openai: Option<OpenAiConfig>,
    ) -> Result<Searcher, SearchError> {
        Searcher::build_for(idx, None, mode, cache_dir, embedder, openai, None)
    }

    /// [`build`](Searcher::build) for an index that is the content of the saved
    /// `snapshot` ([`crate::index::session::Session::snapshot`]): the text index records
    /// it, so a later process that finds the tree unchanged answers text queries from the
    /// saved index alone ([`text_hits`]). `progress` counts the text index's documents
    /// while it is built anew ([`TextIndex::open_or_build_with`]).
    ///
    /// Errors: as [`build`](Searcher::build).
    pub fn build_for(
        idx: &Index,
        snapshot: Option<SnapshotDigest>,
        mode: Mode,
        cache_dir: Option<&Path>,
        embedder: Option<Box<dyn Embedder>>,
        openai: Option<OpenAiConfig>,
        progress: Option<&crate::index::Progress>,
    ) -> Result<Searcher, SearchError> {
        let mut stats = BuildStats::default();
        let t = std::time::Instant::now();
        let (chunks, unreadable) = collect_chunks(idx);
        stats
            .elapsed_ms
            .insert("chunks".into(), t.elapsed().as_millis() as u64);
        stats.chunks = chunks.len();
        stats.files_unreadable = unreadable;
        let t = std::time::Instant::now();
        let text_dir = cache_dir.map(|d| d.join("text"));
        let text = TextIndex::open_or_build_with(&chunks, text_dir.as_deref(), snapshot, progress)?;
        if let Some(p) = progress {
            // The text index is done (built, updated or reused): what follows is the
            // vectors, and a progress line should say so.
            let n = chunks.len() as u64;
            p.total.store(n, std::sync::atomic::Ordering::Relaxed);
            p.done.store(n, std::sync::atomic::Ordering::Relaxed);
        }
        stats.text_reused = text.reused;
        stats.text_files_updated = text.files_updated;
        stats.text_index_bytes = text.size_bytes();
        stats
            .elapsed_ms
            .insert("text".into(), t.elapsed().as_millis() as u64);
        let vectors = if mode == Mode::Text {
            None
        } else {
            let t = std::time::Instant::now();
            let (inputs, keys) = inputs_and_keys(&chunks);
            let (e, fit) = match embedder {
                Some(e) => (e, [0; 32]),
                None => {
                    let (e, reused, fit) = choose_embedder(&inputs, &keys, cache_dir, openai)?;
                    stats.embedder_fit_reused = reused;
                    (e, fit)
                }
            };
            let (vi, EmbedStats { cached, embedded }) =
                embed_inputs(&inputs, &keys, e.as_ref(), cache_dir)?;
            if let (Some(d), Some(snap)) = (cache_dir, snapshot) {
                save_table(d, snap, e.as_ref(), fit, &chunks, &vi);
            }
            stats.vectors_cached = cached;
            stats.vectors_embedded = embedded;
            stats.embedder = Some(e.id());
            if let Some(d) = cache_dir {
                stats.vector_bytes =
                    crate::index::fsutil::dir_size(&super::vector::cache_file(d, &e.cache_slot()));
            }
            stats
                .elapsed_ms
                .insert("vectors".into(), t.elapsed().as_millis() as u64);
            Some((vi, e))
        };
        // Ranking reads the chunks' places and names only; a long-lived searcher (the TUI's,
        // the MCP server's) would otherwise keep every chunk's text, which the indexes
        // already hold in their own form (1.2 GB on the 1.36M chunks of the fetch.sh Rust
        // tree).
        let mut chunks = chunks;
        chunks.iter_mut().for_each(SearchChunk::clear_texts);
        // One map, keyed by the lowercased names; an exact match is told apart at query
        // time (a second map cost a second string per name on 1M+ chunks).
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, c) in chunks.iter().enumerate() {
            if c.kind == "window" {
                continue;
            }
            for k in [&c.name, &c.qualified_name, &c.id] {
                let v = by_name.entry(k.to_lowercase()).or_default();
                if v.last() != Some(&i) {
                    v.push(i);
                }
            }
        }
        let by_key = chunks
            .iter()
            .enumerate()
            .map(|(i, c)| (c.key.clone(), i))
            .collect();
        Ok(Searcher {
            by_key,
            chunks,
            text,
            vectors,
            by_name,
            stats,
        })
    }

    /// The searchable chunks, in (path, line) order: their places, kinds and names; their
    /// texts (`text`, `header`, `doc`) are empty once the indexes are built.
    pub fn chunks(&self) -> &[SearchChunk] {
        &self.chunks
    }

    /// The best `limit` hits for `query` in `mode`, best first; ties by chunk order.
    ///
    /// Errors: [`SearchError::Tantivy`] reading the index; [`SearchError::Embed`] when
    /// the query cannot be embedded; [`SearchError::Embed`] with a configuration message
    /// when `mode` needs vectors this searcher was built without.
    pub fn search(&self, query: &str, mode: Mode, limit: usize) -> Result<Vec<Hit>, SearchError> {
        let q = Query::parse(query);
        let text_list: Vec<(usize, f64)> = if mode == Mode::Semantic {
            Vec::new()
        } else {
            self.text
                .search(&q, text_depth(mode, limit))?
                .into_iter()
                .filter_map(|h| {
                    self.by_key
                        .get(h.key.as_str())
                        .map(|&i| (i, f64::from(h.score)))
                })
                .collect()
        };
        let sem_list = if mode == Mode::Text || q.is_empty() {
            Vec::new()
        } else {
            let (vi, e) = self.vectors.as_ref().ok_or_else(|| {
                super::EmbedError::Config("this searcher was built without vectors".into())
            })?;
            semantic_list(vi.view(), self, &q, &e.embed_query(&q.text())?, limit)
        };
        Ok(fuse(self, &q, query, mode, &text_list, &sem_list, limit))
    }
}

impl ChunkMeta for Searcher {
    fn meta(&self, i: usize) -> ChunkFields<'_> {
        let c = &self.chunks[i];
        ChunkFields {
            path: &c.path,
            start_line: c.start_line,
            end_line: c.end_line,
            kind: &c.kind,
            language: &c.language,
            id: &c.id,
            name: &c.name,
            qualified_name: &c.qualified_name,
        }
    }

    fn named(&self, lowercased: &str) -> Vec<usize> {
        self.by_name.get(lowercased).cloned().unwrap_or_default()
    }
}

/// The chunks a ranking is over, by position (chunk order: path, then line): the chunks a
/// [`Searcher`] holds, or the rows of a saved [`super::table::ChunkTable`], which rank
/// alike.
pub trait ChunkMeta: Sync {
    /// Chunk `i`.
    fn meta(&self, i: usize) -> ChunkFields<'_>;
    /// Chunk `i`'s kind ([`ChunkMeta::meta`] may read more than ranking needs).
    fn kind(&self, i: usize) -> &str {
        self.meta(i).kind
    }
    /// Chunk `i`'s path, language and kind, which a query's filters read.
    fn filter_fields(&self, i: usize) -> (&str, &str, &str) {
        let c = self.meta(i);
        (c.path, c.language, c.kind)
    }
    /// Definition chunks whose name, qualified name or id lowercased is `lowercased`,
    /// in chunk order.
    fn named(&self, lowercased: &str) -> Vec<usize>;
}

/// How many BM25 hits a query in `mode` takes: `limit` alone, or [`CANDIDATES`] to fuse.
pub fn text_depth(mode: Mode, limit: usize) -> usize {
    if mode == Mode::Text {
        limit
    } else {
        CANDIDATES
    }
}

/// The vector list of a query: up to `max(CANDIDATES, limit)` chunks the query's filters
/// accept, by similarity of `rows` to the query vector `qv`, best first; a score of 0 or
/// below is no hit (nothing in common: a query of only punctuation embeds to zero).
pub fn semantic_list(
    rows: super::scan::CodeRows<'_>,
    meta: &dyn ChunkMeta,
    q: &Query,
    qv: &[f32],
    limit: usize,
) -> Vec<(usize, f64)> {
    let filtered = !(q.paths.is_empty() && q.langs.is_empty() && q.kinds.is_empty());
    let accept = |i: usize| {
        let (path, language, kind) = meta.filter_fields(i);
        q.accepts(path, language, kind)
    };
    let accept: Option<&(dyn Fn(usize) -> bool + Sync)> =
        if filtered { Some(&accept) } else { None };
    rows.top_k(qv, CANDIDATES.max(limit), accept)
        .into_iter()
        .filter(|&(_, s)| s > 0.0)
        .map(|(i, s)| (i, f64::from(s)))
        .collect()
}

/// The best `limit` hits from a BM25 list and a vector list of chunk positions (best
/// first), ranked as `mode` ranks ([module docs](self)); ties by chunk order.
pub fn fuse(
    meta: &dyn ChunkMeta,
    q: &Query,
    query: &str,
    mode: Mode,
    text_list: &[(usize, f64)],
    sem_list: &[(usize, f64)],
    limit: usize,
) -> Vec<Hit> {
    let mut fused: HashMap<usize, Fused> = HashMap::new();
    let words = q.words.len()
        + q.phrases
            .iter()
            .map(|p| p.split_whitespace().count())
            .sum::<usize>();
    let text_weight = if words <= SHORT_QUERY_WORDS {
        SHORT_QUERY_TEXT_WEIGHT
    } else {
        TEXT_WEIGHT
    };
    for (r, &(i, s)) in text_list.iter().enumerate() {
        let e = fused.entry(i).or_insert((0.0, None, None));
        e.1 = Some(r + 1);
        e.0 += if mode == Mode::Hybrid {
            text_weight / (RRF_K + (r + 1) as f64)
        } else {
            s
        };
    }
    for (r, &(i, s)) in sem_list.iter().enumerate() {
        let e = fused.entry(i).or_insert((0.0, None, None));
        e.2 = Some(r + 1);
        e.0 += if mode == Mode::Hybrid {
            1.0 / (RRF_K + (r + 1) as f64)
        } else {
            s
        };
    }
    if mode == Mode::Hybrid {
        for (&i, e) in fused.iter_mut() {
            if meta.kind(i) == "window" {
                e.0 *= WINDOW_WEIGHT;
            }
        }
        let peak = match text_list {
            [(i, _)] => Some(*i),
            [(i, a), (_, b), ..] if *a >= PEAK_RATIO * b => Some(*i),
            _ => None,
        };
        if let Some(e) = peak.and_then(|i| fused.get_mut(&i)) {
            e.0 += PEAK_BONUS;
        }
        // The query less its filters, so `parse kind:function` still finds `parse`.
        // A quoted name alone (`"echo"`) is that name.
        let whole = match (q.words.is_empty(), q.phrases.as_slice()) {
            (true, [phrase]) => phrase.clone(),
            (_, []) => q.words.join(" "),
            _ => query.trim().to_string(),
        };
        let whole = whole.as_str();
        for i in meta.named(&whole.to_lowercase()) {
            let c = meta.meta(i);
            if q.accepts(c.path, c.language, c.kind) {
                let exact = [c.name, c.qualified_name, c.id].contains(&whole);
                fused.entry(i).or_insert((0.0, None, None)).0 += if exact {
                    EXACT_NAME_BONUS
                } else {
                    FOLDED_NAME_BONUS
                };
            }
        }
    }
    let mut ranked: Vec<(usize, Fused)> = fused.into_iter().collect();
    ranked.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0).then(a.0.cmp(&b.0)));
    ranked.truncate(limit);
    ranked
        .into_iter()
        .map(|(i, (score, tr, sr))| {
            let c = meta.meta(i);
            Hit {
                id: c.id.to_string(),
                path: c.path.to_string(),
                start_line: c.start_line,
                end_line: c.end_line,
                kind: c.kind.to_string(),
                score,
                text_rank: tr,
                semantic_rank: sr,
            }
        })
        .collect()
}

/// The best `limit` hits for `query` in mode `text` from the text index alone, exactly as
/// [`Searcher::search`] ranks them over the chunks the index was built from: BM25 score,
/// ties in chunk order (path, then position in the file). For a saved index opened with
/// [`TextIndex::open_for_snapshot`], which makes no chunk and reads no source.
///
/// Errors: [`SearchError::Tantivy`] reading the index.
pub fn text_hits(text: &TextIndex, query: &str, limit: usize) -> Result<Vec<Hit>, SearchError> {
    let q = Query::parse(query);
    let mut hits: Vec<(Hit, u64)> = text
        .search(&q, limit)?
        .into_iter()
        .enumerate()
        .map(|(r, h)| {
            let (path, start, end) = super::split_key(&h.key).unwrap_or((&h.key, 0, 0));
            let hit = Hit {
                id: h.id,
                path: path.to_string(),
                start_line: start,
                end_line: end,
                kind: h.kind,
                score: f64::from(h.score),
                text_rank: Some(r + 1),
                semantic_rank: None,
            };
            (hit, h.ord)
        })
        .collect();
    hits.sort_by(|a, b| {
        b.0.score
            .total_cmp(&a.0.score)
            .then_with(|| a.0.path.cmp(&b.0.path))
            .then(a.1.cmp(&b.1))
    });
    Ok(hits.into_iter().map(|(h, _)| h).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Functions `f0`, `f1`, ... in one file, none named like the test queries.
    struct Functions(Vec<String>);

    impl ChunkMeta for Functions {
        fn meta(&self, i: usize) -> ChunkFields<'_> {
            ChunkFields {
                path: "a.py",
                start_line: 1 + 10 * i as u32,
                end_line: 9 + 10 * i as u32,
                kind: "function",
                language: "python",
                id: &self.0[i],
                name: &self.0[i][6..],
                qualified_name: &self.0[i][6..],
            }
        }
        fn named(&self, _: &str) -> Vec<usize> {
            Vec::new()
        }
    }

    fn first(query: &str, text: &[(usize, f64)], sem: &[(usize, f64)]) -> String {
        let meta = Functions((0..10).map(|i| format!("a.py::f{i}")).collect());
        let q = Query::parse(query);
        fuse(&meta, &q, query, Mode::Hybrid, text, sem, 3)[0]
            .id
            .clone()
    }

    #[test]
    fn a_short_query_weighs_bm25_above_the_vectors_and_a_sentence_does_not() {
        // BM25 ranks f0 first and f1 second (no peak); the vectors rank f2 first and do
        // not have f0.
        let text = [(0, 12.0), (1, 9.0)];
        let sem = [(2, 0.3), (3, 0.29), (4, 0.28)];
        assert_eq!(first("walrus telephone", &text, &sem), "a.py::f0");
        assert_eq!(
            first("check that the walrus answers the telephone", &text, &sem),
            "a.py::f2"
        );
    }

    #[test]
    fn a_bm25_peak_ranks_first_whatever_the_vectors_say() {
        let sem = [(2, 0.3), (3, 0.29), (4, 0.28)];
        let sentence = "check that the walrus answers the telephone";
        assert_eq!(first(sentence, &[(0, 100.0), (1, 9.0)], &sem), "a.py::f0");
        assert_eq!(first(sentence, &[(0, 10.0)], &sem), "a.py::f0");
        // Ten times the next is the rule's edge: just below it is not a peak.
        assert_eq!(first(sentence, &[(0, 89.0), (1, 9.0)], &sem), "a.py::f2");
    }
}
