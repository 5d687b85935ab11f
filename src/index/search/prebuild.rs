//! Building the search indexes ahead of the first search: what `index` does after the
//! graph (`index --search`, the config key `search_index`), so that a later `search`
//! finds the text index saved for the live snapshot and the chunks' vectors in the
//! cache instead of building them while the user waits.
//!
//! The vectors are the expensive part. The built-in embedder fits and embeds some
//! 11 000 to 23 000 chunks a second, and a run holds every chunk's input and vector at
//! once (`docs/benchmarks.md#search` has the time and peak memory on the fetch.sh Rust
//! tree's 1.36M chunks). An embedding endpoint embeds 1
//! to 5 chunks a second on a CPU model. So [`Prebuild::Auto`], the default, builds the
//! vectors only with the built-in embedder and only up to [`AUTO_VECTOR_CHUNKS`] chunks;
//! [`Prebuild::All`] always does.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::embed::openai::OpenAiConfig;
use super::hybrid::choose_embedder;
use super::text::TextIndex;
use super::vector::{embed_inputs, inputs_and_keys, EmbedStats};
use super::{collect_chunks, SearchChunk, SearchError};
use crate::index::store::SnapshotDigest;
use crate::index::{Index, Progress};

/// Which search indexes `index` builds (`--search`, config `search_index`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Prebuild {
    /// None: the first search builds what its mode needs.
    Off,
    /// The text index only (what `--mode text` and every hybrid query read).
    Text,
    /// The text index, and the vectors when the built-in embedder is the one in use
    /// and the tree has at most [`AUTO_VECTOR_CHUNKS`] chunks.
    #[default]
    Auto,
    /// The text index and the vectors, with whichever embedder is configured.
    All,
}

/// The most chunks [`Prebuild::Auto`] embeds: about 0.45 GB of peak memory at the 2.9 KB
/// per chunk a cold `index --search all` of the fetch.sh Rust tree used (3.9 GB for its
/// 1.36M chunks, graph and text index included, `docs/benchmarks.md#search`), and a few
/// seconds of the built-in embedder.
pub const AUTO_VECTOR_CHUNKS: usize = 150_000;

/// Why `what` builds no vectors for a tree of `chunks` chunks (`None`: it builds them):
/// the endpoint counts as configured when `openai` or the environment sets a base URL.
///
/// Errors: [`SearchError::Embed`] for a malformed embedding setting in the environment.
pub fn vectors_skipped(
    what: Prebuild,
    chunks: usize,
    openai: Option<OpenAiConfig>,
) -> Result<Option<String>, SearchError> {
    let endpoint = || OpenAiConfig::from_env(openai.clone()).map(|c| c.is_some());
    Ok(match what {
        Prebuild::Off => Some("off".into()),
        Prebuild::Text => Some("text only".into()),
        Prebuild::Auto if endpoint()? => {
            Some("an embedding endpoint is configured (the first search embeds)".into())
        }
        Prebuild::Auto if chunks > AUTO_VECTOR_CHUNKS => Some(format!(
            "{chunks} chunks, more than {AUTO_VECTOR_CHUNKS} (the first search embeds; --search all)"
        )),
        _ => None,
    })
}

/// What [`prebuild`] did (`index --json`'s `search` object).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrebuildReport {
    /// Chunks made from the index.
    pub chunks: usize,
    /// `reused` (already current), `updated` (documents of changed files replaced) or
    /// `built` (written anew).
    pub text: String,
    /// Milliseconds making the chunks and bringing the text index up to date.
    pub text_ms: u64,
    /// Vectors: `built` (some embedded in this run), `reused` (all from the cache), or
    /// `skipped: <why>`.
    pub vectors: String,
    /// Vectors computed in this run.
    pub vectors_embedded: usize,
    /// Milliseconds fitting the embedder and embedding (0 when skipped).
    pub vectors_ms: u64,
}

/// Brings the saved search indexes of `idx` up to date in `cache_dir` (its `text/` and
/// `vectors/`, `docs/contracts.md#cache-layout`) as `what` asks, recording `snapshot`
/// with the text index so that later processes answer text queries from it alone.
/// `progress` counts the text index's documents while it is built anew.
///
/// Errors: [`SearchError`] from the text index or the embedder; the previous on-disk
/// indexes are then still in place.
pub fn prebuild(
    idx: &Index,
    snapshot: Option<SnapshotDigest>,
    cache_dir: &Path,
    what: Prebuild,
    openai: Option<OpenAiConfig>,
    progress: Option<&Progress>,
) -> Result<PrebuildReport, SearchError> {
    let mut report = PrebuildReport::default();
    if what == Prebuild::Off {
        report.text = "skipped".into();
        report.vectors = "skipped: off".into();
        return Ok(report);
    }
    let t = Instant::now();
    let (mut chunks, _unreadable) = collect_chunks(idx);
    report.chunks = chunks.len();
    let text =
        TextIndex::open_or_build_with(&chunks, Some(&cache_dir.join("text")), snapshot, progress)?;
    report.text = match (text.reused, text.files_updated) {
        (true, _) => "reused",
        (false, n) if n > 0 => "updated",
        _ => "built",
    }
    .into();
    drop(text);
    report.text_ms = t.elapsed().as_millis() as u64;
    if let Some(why) = vectors_skipped(what, chunks.len(), openai.clone())? {
        report.vectors = format!("skipped: {why}");
        return Ok(report);
    }
    let t = Instant::now();
    let (inputs, keys) = inputs_and_keys(&chunks);
    // The table reads the chunks' places and names only; their texts, which the inputs
    // repeat, would double what a large repository holds while it is embedded.
    chunks.iter_mut().for_each(SearchChunk::clear_texts);
    let (embedder, _fit_reused, fit) = choose_embedder(&inputs, &keys, Some(cache_dir), openai)?;
    let (vi, EmbedStats { embedded, .. }) =
        embed_inputs(&inputs, &keys, embedder.as_ref(), Some(cache_dir))?;
    drop(inputs);
    if let Some(snap) = snapshot {
        super::hybrid::save_table(cache_dir, snap, embedder.as_ref(), fit, &chunks, &vi);
    }
    report.vectors = if embedded > 0 { "built" } else { "reused" }.into();
    report.vectors_embedded = embedded;
    report.vectors_ms = t.elapsed().as_millis() as u64;
    Ok(report)
}
