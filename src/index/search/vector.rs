//! The vector index: the chunks' unit-length vectors as `i8` codes, scanned by
//! [`super::scan`] (which says why codes alone and how close their scores are to the
//! cosine); and the on-disk vector cache keyed by the BLAKE3 hash of each embedding input.
//! Memory: 1 byte per dimension per chunk and a scale. `docs/benchmarks.md#search` has the
//! latency.
//!
//! Cache file `<cache dir>/vectors/<16 hex of BLAKE3(embedder cache slot)>.bin`: magic
//! [`CACHE_MAGIC`], the embedder id's length (u32 LE) and UTF-8 bytes, dimension (u32 LE),
//! count (u64 LE), the BLAKE3 checksum of the rest of the file (everything before it and
//! the records after it), then per vector its 32-byte input hash, its scale (f32 LE) and
//! `dimension` `i8` codes: the embedder's vector normalised and quantised
//! (`scan::quantize_into`) when it was embedded, exactly the row the index holds, so the cache
//! takes a quarter of the `f32` vectors' memory and disk and loading it is a copy. A file
//! written by another embedder id (an older fit of the offline model) is ignored and
//! replaced, so one slot never grows stale copies. A file that fails these checks (its
//! length, its checksum: a flipped byte would otherwise change a score silently) is
//! ignored, logged and rebuilt; a new file replaces the old one atomically.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::embed::normalize;
use super::embed::Embedder;
use super::scan::{quantize_into, quantize_rows, CodeRows};
use super::{write_atomic_with, SearchChunk, SearchError};

/// First bytes of a vector cache file (the module docs give the layout).
pub const CACHE_MAGIC: &[u8; 8] = b"CGTVEC04";

/// Inputs per embedder call in [`embed_chunks`]; progress is saved between calls.
const CHECKPOINT_INPUTS: usize = 128;

/// Least time between two progress saves of [`embed_chunks`].
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// A cached vector: the embedder's output normalised and quantised (`scan::quantize_into`),
/// the row a [`VectorIndex`] holds for it.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedRow {
    /// `x ≈ code · scale`; 0 for a zero vector.
    pub scale: f32,
    /// One code per dimension.
    pub codes: Box<[i8]>,
}

impl CachedRow {
    /// The row of an embedder's vector `v` (normalised here, then quantised).
    pub fn of(mut v: Vec<f32>) -> CachedRow {
        normalize(&mut v);
        let mut codes = vec![0i8; v.len()].into_boxed_slice();
        let scale = quantize_into(&v, &mut codes);
        CachedRow { scale, codes }
    }
}

/// Cached vectors by input hash.
pub type CachedVectors = HashMap<[u8; 32], CachedRow>;

/// Unit-length vectors as `i8` codes with one scale each ([`super::scan`]); row `i`
/// belongs to chunk `i`.
#[derive(Debug, Clone, Default)]
pub struct VectorIndex {
    dim: usize,
    /// `round(x / max|x| * 127)` per component, row-major.
    codes: Vec<i8>,
    /// Per row `max|x| / 127`: `x ≈ code * scale`.
    scales: Vec<f32>,
}

impl VectorIndex {
    /// An index over `vectors` (each normalised here, then quantised; the `f32` rows are
    /// not kept). All must have the same length.
    ///
    /// Panics: never; a vector of another length is stored as zeros (it matches nothing).
    pub fn new(vectors: Vec<Vec<f32>>) -> VectorIndex {
        let (dim, codes, scales) = quantize_rows(vectors);
        VectorIndex { dim, codes, scales }
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Vector length.
    pub fn dimensions(&self) -> usize {
        self.dim
    }

    /// The rows as the scan reads them.
    pub fn view(&self) -> CodeRows<'_> {
        CodeRows::row_major(self.dim, &self.codes, &self.scales)
    }

    /// The `k` rows most similar to `query`, best first as `(row, score)`; ties by row
    /// ([`CodeRows::top_k`], which says how close the score is to the cosine). Empty
    /// when the query's length differs.
    pub fn top_k(&self, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        self.view().top_k(query, k, None)
    }
}

/// BLAKE3 of an embedding input: the cache key of its vector.
pub fn input_hash(input: &str) -> [u8; 32] {
    *blake3::hash(input.as_bytes()).as_bytes()
}

/// Path of the cache file of an embedder's cache slot under `cache_dir`.
pub fn cache_file(cache_dir: &Path, cache_slot: &str) -> PathBuf {
    let h = blake3::hash(cache_slot.as_bytes()).to_hex();
    cache_dir.join("vectors").join(format!("{}.bin", &h[..16]))
}

/// Reads a cache file written for `embedder_id`; `None` when missing, written by
/// another embedder, or failing its checks.
pub fn load_cache(path: &Path, embedder_id: &str) -> Option<(usize, CachedVectors)> {
    let b = match crate::index::fsutil::read_regular(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(path = %path.display(), "vector cache unreadable ({e}); ignored");
            return None;
        }
    };
    if b.len() < 12 || &b[..8] != CACHE_MAGIC {
        return None;
    }
    let id_len = u32::from_le_bytes(b[8..12].try_into().ok()?) as usize;
    let id_end = 12usize.checked_add(id_len)?;
    if b.get(12..id_end)? != embedder_id.as_bytes() {
        return None;
    }
    let sum_at = id_end + 12;
    let head = sum_at + 32;
    let dim = u32::from_le_bytes(b.get(id_end..id_end + 4)?.try_into().ok()?) as usize;
    let count = u64::from_le_bytes(b.get(id_end + 4..sum_at)?.try_into().ok()?) as usize;
    let rec = 32 + 4 + dim;
    if dim == 0 || b.len() != head.checked_add(count.checked_mul(rec)?)? {
        tracing::warn!(path = %path.display(), "vector cache fails its checks; ignored");
        return None;
    }
    if b[sum_at..head] != checksum(&b[..sum_at], &b[head..]) {
        tracing::warn!(path = %path.display(), "vector cache damaged (checksum); rebuilding");
        return None;
    }
    // Decoded on both cores: a large repository's cache holds 1M+ rows.
    let m: CachedVectors = b[head..]
        .par_chunks_exact(rec)
        .map(|r| {
            let mut key = [0u8; 32];
            key.copy_from_slice(&r[..32]);
            let scale = f32::from_le_bytes([r[32], r[33], r[34], r[35]]);
            let codes = r[36..].iter().map(|&c| c as i8).collect();
            (key, CachedRow { scale, codes })
        })
        .collect();
    Some((dim, m))
}

/// Writes a cache file atomically.
///
/// Errors: [`SearchError::Io`] with the path.
pub fn save_cache(
    path: &Path,
    embedder_id: &str,
    dim: usize,
    entries: &[([u8; 32], &CachedRow)],
) -> Result<(), SearchError> {
    let mut head = Vec::with_capacity(64 + embedder_id.len());
    head.extend_from_slice(CACHE_MAGIC);
    head.extend_from_slice(&(embedder_id.len() as u32).to_le_bytes());
    head.extend_from_slice(embedder_id.as_bytes());
    head.extend_from_slice(&(dim as u32).to_le_bytes());
    head.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    // Records are hashed, then written, one at a time: the file (570 MB for the 1.36M
    // chunks of the fetch.sh Rust tree) is never built in memory beside the cache.
    let record = |k: &[u8; 32], row: &CachedRow, buf: &mut Vec<u8>| {
        buf.clear();
        buf.extend_from_slice(k);
        buf.extend_from_slice(&row.scale.to_le_bytes());
        buf.extend(row.codes.iter().map(|&c| c as u8));
    };
    let mut h = blake3::Hasher::new();
    h.update(&head);
    let mut buf = Vec::with_capacity(36 + dim);
    for (k, row) in entries {
        record(k, row, &mut buf);
        h.update(&buf);
    }
    let sum = *h.finalize().as_bytes();
    write_atomic_with(path, |w| {
        w.write_all(&head)?;
        w.write_all(&sum)?;
        for (k, row) in entries {
            record(k, row, &mut buf);
            w.write_all(&buf)?;
        }
        Ok(())
    })
}

/// The BLAKE3 checksum a cache file stores: of its header before the checksum, then its
/// records.
fn checksum(head: &[u8], records: &[u8]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(head);
    h.update_rayon(records);
    *h.finalize().as_bytes()
}

/// What [`embed_chunks`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EmbedStats {
    /// Vectors taken from the cache.
    pub cached: usize,
    /// Vectors computed by the embedder in this run.
    pub embedded: usize,
}

/// Vectors for every chunk (row `i` for `chunks[i]`): cached ones by input hash, the
/// others from `embedder`. With a cache dir, the cache file is rewritten to hold exactly
/// the current chunks' vectors, but only after every embedding succeeded.
///
/// Errors: [`SearchError::Embed`] when the embedder fails (the cache file is untouched,
/// so nothing already indexed is lost); [`SearchError::Io`] when the cache cannot be
/// written.
pub fn embed_chunks(
    chunks: &[SearchChunk],
    embedder: &dyn Embedder,
    cache_dir: Option<&Path>,
) -> Result<(VectorIndex, EmbedStats), SearchError> {
    let (inputs, keys) = inputs_and_keys(chunks);
    embed_inputs_saving_every(&inputs, &keys, embedder, cache_dir, CHECKPOINT_EVERY)
}

/// The embedding input of every chunk ([`SearchChunk::embedding_input`]) and its
/// [`input_hash`], in chunk order.
pub fn inputs_and_keys(chunks: &[SearchChunk]) -> (Vec<String>, Vec<[u8; 32]>) {
    let inputs: Vec<String> = chunks
        .par_iter()
        .map(SearchChunk::embedding_input)
        .collect();
    let keys = inputs.par_iter().map(|s| input_hash(s)).collect();
    (inputs, keys)
}

/// [`embed_chunks`] over inputs and keys already made by [`inputs_and_keys`] (building a
/// searcher makes them once for the embedder's fit and for the vectors).
///
/// Errors: as [`embed_chunks`].
pub fn embed_inputs(
    inputs: &[String],
    keys: &[[u8; 32]],
    embedder: &dyn Embedder,
    cache_dir: Option<&Path>,
) -> Result<(VectorIndex, EmbedStats), SearchError> {
    embed_inputs_saving_every(inputs, keys, embedder, cache_dir, CHECKPOINT_EVERY)
}

/// [`embed_inputs`] with the least time between progress saves as a parameter.
fn embed_inputs_saving_every(
    inputs: &[String],
    keys: &[[u8; 32]],
    embedder: &dyn Embedder,
    cache_dir: Option<&Path>,
    checkpoint_every: std::time::Duration,
) -> Result<(VectorIndex, EmbedStats), SearchError> {
    let id = embedder.id();
    let file = cache_dir.map(|d| cache_file(d, &embedder.cache_slot()));
    let t = std::time::Instant::now();
    let (mut dim, mut cache) = file
        .as_deref()
        .and_then(|f| load_cache(f, &id))
        .unwrap_or((0, HashMap::new()));
    tracing::debug!(
        ms = t.elapsed().as_millis() as u64,
        vectors = cache.len(),
        "vector cache read"
    );
    let mut missing: Vec<usize> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, k) in keys.iter().enumerate() {
        if !cache.contains_key(k) && seen.insert(*k) {
            missing.push(i);
        }
    }
    // Embedded in parts; on a long run (a CPU model takes minutes) the vectors so far
    // are saved now and then, so a run cut short resumes instead of starting over. A
    // save only adds vectors: nothing indexed before is lost if a later part fails.
    let mut embedded = 0;
    let mut last_save = std::time::Instant::now();
    for part in missing.chunks(CHECKPOINT_INPUTS) {
        let todo: Vec<String> = part.iter().map(|&i| inputs[i].clone()).collect();
        let fresh = embedder.embed(&todo)?;
        embedded += fresh.len();
        for (&i, v) in part.iter().zip(fresh) {
            if dim == 0 {
                dim = v.len();
            }
            cache.insert(keys[i], CachedRow::of(v));
        }
        tracing::info!(embedded, total = missing.len(), "embedding chunks");
        if let Some(f) = &file {
            if embedded < missing.len() && last_save.elapsed() >= checkpoint_every {
                let entries: Vec<([u8; 32], &CachedRow)> = cache
                    .iter()
                    .filter(|(_, v)| v.codes.len() == dim)
                    .map(|(k, v)| (*k, v))
                    .collect();
                save_cache(f, &id, dim, &entries)?;
                last_save = std::time::Instant::now();
            }
        }
    }
    let stats = EmbedStats {
        cached: inputs.len() - missing.len(),
        embedded,
    };
    // Vectors of another length (a model that changed its dimension) are dropped.
    cache.retain(|_, v| v.codes.len() == dim);
    if let Some(f) = &file {
        let current: std::collections::HashSet<&[u8; 32]> = keys.iter().collect();
        if stats.embedded > 0 || cache.len() != current.len() {
            let mut uniq = std::collections::HashSet::new();
            let entries: Vec<([u8; 32], &CachedRow)> = keys
                .iter()
                .filter(|k| uniq.insert(**k))
                .filter_map(|k| cache.get(k).map(|v| (*k, v)))
                .collect();
            save_cache(f, &id, dim, &entries)?;
        }
    }
    // The rows move out of the cache as they are copied into the index (two copies of
    // every row at once would be the peak of a large repository); a chunk whose input
    // repeats an earlier one copies that row.
    let t = std::time::Instant::now();
    let mut first: HashMap<[u8; 32], usize> = HashMap::new();
    let mut codes = vec![0i8; dim * keys.len()];
    let mut scales = vec![0f32; keys.len()];
    for (i, k) in keys.iter().enumerate() {
        if let Some(row) = cache.remove(k) {
            first.insert(*k, i);
            codes[i * dim..(i + 1) * dim].copy_from_slice(&row.codes);
            scales[i] = row.scale;
        } else if let Some(&j) = first.get(k) {
            codes.copy_within(j * dim..(j + 1) * dim, i * dim);
            scales[i] = scales[j];
        }
    }
    drop(cache);
    let vi = VectorIndex { dim, codes, scales };
    tracing::debug!(ms = t.elapsed().as_millis() as u64, "vector index built");
    Ok((vi, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn embed_chunks_saving_every_test(
        chunks: &[SearchChunk],
        embedder: &dyn Embedder,
        cache_dir: Option<&Path>,
        every: std::time::Duration,
    ) -> Result<(VectorIndex, EmbedStats), SearchError> {
        let (inputs, keys) = inputs_and_keys(chunks);
        embed_inputs_saving_every(&inputs, &keys, embedder, cache_dir, every)
    }

    #[test]
    fn top_k_is_ordered_best_first() {
        let ix = VectorIndex::new(vec![
            vec![1.0, 0.0],
            vec![0.0, 1.0],
            vec![0.7, 0.7],
            vec![-1.0, 0.0],
        ]);
        let top = ix.top_k(&[2.0, 0.1], 3);
        let rows: Vec<usize> = top.iter().map(|t| t.0).collect();
        assert_eq!(rows, [0, 2, 1]);
        assert!((top[0].1 - 0.99875).abs() < 1e-3);
        assert!(ix.top_k(&[1.0, 0.0, 0.0], 3).is_empty());
    }

    /// Embeds each text as `[len, 1]`; fails on call number `fail_on` (0-based).
    struct FailingOn {
        fail_on: usize,
        calls: std::sync::atomic::AtomicUsize,
    }

    impl Embedder for FailingOn {
        fn id(&self) -> String {
            "failing-on".into()
        }
        fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, super::super::EmbedError> {
            let n = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if n == self.fail_on {
                return Err(super::super::EmbedError::Config("down".into()));
            }
            Ok(texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect())
        }
    }

    fn chunk(i: usize) -> SearchChunk {
        SearchChunk {
            key: format!("a.py:{i}-{i}"),
            id: format!("a.py::f{i}"),
            path: "a.py".into(),
            language: "python".into(),
            kind: "function".into(),
            name: format!("f{i}"),
            qualified_name: format!("a.f{i}"),
            doc: String::new(),
            start_line: i as u32,
            end_line: i as u32,
            text: format!("def f{i}(): pass"),
            header: String::new(),
        }
    }

    #[test]
    fn a_run_cut_short_keeps_the_parts_it_finished() {
        let dir = tempfile::tempdir().expect("tempdir");
        let chunks: Vec<SearchChunk> = (0..CHECKPOINT_INPUTS + 10).map(chunk).collect();
        let failing = FailingOn {
            fail_on: 1,
            calls: Default::default(),
        };
        let zero = std::time::Duration::ZERO;
        assert!(embed_chunks_saving_every_test(&chunks, &failing, Some(dir.path()), zero).is_err());
        let file = cache_file(dir.path(), "failing-on");
        let (_, saved) = load_cache(&file, "failing-on").expect("progress saved");
        assert_eq!(saved.len(), CHECKPOINT_INPUTS, "the first part");
        let working = FailingOn {
            fail_on: usize::MAX,
            calls: Default::default(),
        };
        let (vi, st) = embed_chunks_saving_every_test(&chunks, &working, Some(dir.path()), zero)
            .expect("resumed run");
        assert_eq!(
            (st.cached, st.embedded, vi.len()),
            (CHECKPOINT_INPUTS, 10, chunks.len())
        );
    }

    #[test]
    fn cache_round_trip_and_corruption() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("v.bin");
        let k = input_hash("x");
        let row = CachedRow::of(vec![1.0, 2.0, 3.0]);
        assert_eq!(&*row.codes, &[42, 85, 127]);
        save_cache(&p, "model-a", 3, &[(k, &row)]).expect("save");
        let (dim, m) = load_cache(&p, "model-a").expect("load");
        assert_eq!((dim, &m[&k]), (3, &row));
        assert!(load_cache(&p, "model-b").is_none());
        let good = std::fs::read(&p).expect("read");
        let mut b = good.clone();
        b.pop();
        std::fs::write(&p, b).expect("write");
        assert!(load_cache(&p, "model-a").is_none());
        // A flipped byte anywhere (a vector's value, its key, the checksum) is refused:
        // the length alone would let a changed score through.
        for at in [good.len() - 3, good.len() - 14, good.len() - 40, 20] {
            let mut b = good.clone();
            b[at] ^= 0x10;
            std::fs::write(&p, &b).expect("write");
            assert!(load_cache(&p, "model-a").is_none(), "byte {at} flipped");
        }
        std::fs::write(&p, &good).expect("write");
        assert!(load_cache(&p, "model-a").is_some());
    }
}
