//! The vector index: an exact cosine top-k scan over unit-length `f32` vectors kept in
//! one contiguous row-major matrix, and the on-disk vector cache keyed by the BLAKE3
//! hash of each embedding input.
//!
//! Why an exact scan: at 200k chunks × 256 dimensions one query is 51 M multiply-adds,
//! measured in README "Search quality" well under the 50 ms budget on this machine, with
//! no approximation, no build time and no extra dependency.
//!
//! Cache file `<cache dir>/vectors/<16 hex of BLAKE3(embedder cache slot)>.bin`: magic
//! `CGTVEC02`, the embedder id's length (u32 LE) and UTF-8 bytes, dimension (u32 LE),
//! count (u64 LE), then per vector its 32-byte input hash and `dimension` little-endian
//! f32. A file written by another embedder id (an older fit of the offline model) is
//! ignored and replaced, so one slot never grows stale copies. A file that fails these checks is ignored (and
//! rebuilt); a new file replaces the old one atomically, only after every embedding of
//! the run succeeded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::embed::{normalize, Embedder};
use super::{write_atomic, SearchChunk, SearchError};

const MAGIC: &[u8; 8] = b"CGTVEC02";

/// Inputs per embedder call in [`embed_chunks`]; progress is saved between calls.
const CHECKPOINT_INPUTS: usize = 128;

/// Least time between two progress saves of [`embed_chunks`].
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// Rows per parallel work item of the scan.
const SCAN_BLOCK_ROWS: usize = 4096;

/// Cached vectors by input hash.
pub type CachedVectors = HashMap<[u8; 32], Vec<f32>>;

/// Unit-length vectors in one matrix; row `i` belongs to chunk `i`.
#[derive(Debug, Clone, Default)]
pub struct VectorIndex {
    dim: usize,
    data: Vec<f32>,
}

impl VectorIndex {
    /// An index over `vectors` (each normalised here). All must have the same length.
    ///
    /// Panics: never; a vector of another length is stored as zeros (it matches nothing).
    pub fn new(vectors: Vec<Vec<f32>>) -> VectorIndex {
        let dim = vectors.first().map_or(0, Vec::len);
        let mut data = Vec::with_capacity(dim * vectors.len());
        for mut v in vectors {
            if v.len() != dim {
                v = vec![0.0; dim];
            }
            normalize(&mut v);
            data.extend_from_slice(&v);
        }
        VectorIndex { dim, data }
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Vector length.
    pub fn dimensions(&self) -> usize {
        self.dim
    }

    /// The `k` rows most similar to `query` by cosine (the query is normalised here),
    /// best first as `(row, cosine)`; ties by row. Empty when the query's length differs.
    pub fn top_k(&self, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        if query.len() != self.dim || self.dim == 0 || k == 0 {
            return Vec::new();
        }
        let mut q = query.to_vec();
        normalize(&mut q);
        // Rows are scored in parallel blocks on the global rayon pool.
        let scores: Vec<f32> = self
            .data
            .par_chunks(self.dim * SCAN_BLOCK_ROWS)
            .flat_map_iter(|block| block.chunks_exact(self.dim).map(|r| dot(r, &q)))
            .collect();
        let mut idx: Vec<usize> = (0..scores.len()).collect();
        let cmp = |a: &usize, b: &usize| scores[*b].total_cmp(&scores[*a]).then(a.cmp(b));
        if k < idx.len() {
            idx.select_nth_unstable_by(k, cmp);
            idx.truncate(k);
        }
        idx.sort_by(cmp);
        idx.into_iter().map(|i| (i, scores[i])).collect()
    }
}

/// Dot product, written in 8 lanes so the compiler vectorises it.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, ra) = a.split_at(a.len() - a.len() % 8);
    let (cb, rb) = b.split_at(ca.len());
    for (x, y) in ca.chunks_exact(8).zip(cb.chunks_exact(8)) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    acc.iter().sum::<f32>() + ra.iter().zip(rb).map(|(x, y)| x * y).sum::<f32>()
}

/// Latency of [`VectorIndex::top_k`] (k = 1000) over `n` deterministic pseudo-random
/// vectors of `dim` dimensions: (p50, p99) in milliseconds over `queries` queries.
pub fn bench_top_k(n: usize, dim: usize, queries: usize) -> (f64, f64) {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut rng = move || {
        // xorshift64*
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let vectors: Vec<Vec<f32>> = (0..n).map(|_| (0..dim).map(|_| rng()).collect()).collect();
    let index = VectorIndex::new(vectors);
    let mut ms: Vec<f64> = (0..queries.max(1))
        .map(|_| {
            let q: Vec<f32> = (0..dim).map(|_| rng()).collect();
            let t = std::time::Instant::now();
            let top = index.top_k(&q, 1000);
            let elapsed = t.elapsed().as_secs_f64() * 1000.0;
            debug_assert!(top.windows(2).all(|w| w[0].1 >= w[1].1));
            elapsed
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    (at(0.5), at(0.99))
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
    // Only a regular file: a FIFO would block, a link to a device might never end.
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        tracing::warn!(path = %path.display(), "vector cache is not a regular file; ignored");
        return None;
    }
    let b = std::fs::read(path).ok()?;
    if b.len() < 12 || &b[..8] != MAGIC {
        return None;
    }
    let id_len = u32::from_le_bytes(b[8..12].try_into().ok()?) as usize;
    let id_end = 12usize.checked_add(id_len)?;
    if b.get(12..id_end)? != embedder_id.as_bytes() {
        return None;
    }
    let head = id_end + 12;
    let dim = u32::from_le_bytes(b.get(id_end..id_end + 4)?.try_into().ok()?) as usize;
    let count = u64::from_le_bytes(b.get(id_end + 4..head)?.try_into().ok()?) as usize;
    let rec = 32 + 4 * dim;
    if dim == 0 || b.len() != head.checked_add(count.checked_mul(rec)?)? {
        tracing::warn!(path = %path.display(), "vector cache fails its checks; ignored");
        return None;
    }
    let mut m = HashMap::with_capacity(count);
    for r in b[head..].chunks_exact(rec) {
        let key: [u8; 32] = r[..32].try_into().ok()?;
        let v = r[32..]
            .chunks_exact(4)
            .map(|x| f32::from_le_bytes([x[0], x[1], x[2], x[3]]))
            .collect();
        m.insert(key, v);
    }
    Some((dim, m))
}

/// Writes a cache file atomically.
///
/// Errors: [`SearchError::Io`] with the path.
pub fn save_cache(
    path: &Path,
    embedder_id: &str,
    dim: usize,
    entries: &[([u8; 32], &[f32])],
) -> Result<(), SearchError> {
    let mut b = Vec::with_capacity(32 + embedder_id.len() + entries.len() * (32 + 4 * dim));
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&(embedder_id.len() as u32).to_le_bytes());
    b.extend_from_slice(embedder_id.as_bytes());
    b.extend_from_slice(&(dim as u32).to_le_bytes());
    b.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (k, v) in entries {
        b.extend_from_slice(k);
        for x in v.iter() {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    write_atomic(path, &b)
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
    embed_chunks_saving_every(chunks, embedder, cache_dir, CHECKPOINT_EVERY)
}

/// [`embed_chunks`] with the least time between progress saves as a parameter.
fn embed_chunks_saving_every(
    chunks: &[SearchChunk],
    embedder: &dyn Embedder,
    cache_dir: Option<&Path>,
    checkpoint_every: std::time::Duration,
) -> Result<(VectorIndex, EmbedStats), SearchError> {
    let id = embedder.id();
    let file = cache_dir.map(|d| cache_file(d, &embedder.cache_slot()));
    let (mut dim, mut cache) = file
        .as_deref()
        .and_then(|f| load_cache(f, &id))
        .unwrap_or((0, HashMap::new()));
    let inputs: Vec<String> = chunks.iter().map(SearchChunk::embedding_input).collect();
    let keys: Vec<[u8; 32]> = inputs.iter().map(|s| input_hash(s)).collect();
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
            cache.insert(keys[i], v);
        }
        tracing::info!(embedded, total = missing.len(), "embedding chunks");
        if let Some(f) = &file {
            if embedded < missing.len() && last_save.elapsed() >= checkpoint_every {
                let entries: Vec<([u8; 32], &[f32])> = cache
                    .iter()
                    .filter(|(_, v)| v.len() == dim)
                    .map(|(k, v)| (*k, v.as_slice()))
                    .collect();
                save_cache(f, &id, dim, &entries)?;
                last_save = std::time::Instant::now();
            }
        }
    }
    let stats = EmbedStats {
        cached: chunks.len() - missing.len(),
        embedded,
    };
    // Vectors of another length (a model that changed its dimension) are dropped.
    cache.retain(|_, v| v.len() == dim);
    let rows: Vec<Vec<f32>> = keys
        .iter()
        .map(|k| cache.get(k).cloned().unwrap_or_else(|| vec![0.0; dim]))
        .collect();
    if let Some(f) = &file {
        let current: std::collections::HashSet<&[u8; 32]> = keys.iter().collect();
        if stats.embedded > 0 || cache.len() != current.len() {
            let mut uniq = std::collections::HashSet::new();
            let entries: Vec<([u8; 32], &[f32])> = keys
                .iter()
                .filter(|k| uniq.insert(**k))
                .filter_map(|k| cache.get(k).map(|v| (*k, v.as_slice())))
                .collect();
            save_cache(f, &id, dim, &entries)?;
        }
    }
    Ok((VectorIndex::new(rows), stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_is_exact_and_ordered() {
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
        assert!(embed_chunks_saving_every(&chunks, &failing, Some(dir.path()), zero).is_err());
        let file = cache_file(dir.path(), "failing-on");
        let (_, saved) = load_cache(&file, "failing-on").expect("progress saved");
        assert_eq!(saved.len(), CHECKPOINT_INPUTS, "the first part");
        let working = FailingOn {
            fail_on: usize::MAX,
            calls: Default::default(),
        };
        let (vi, st) = embed_chunks_saving_every(&chunks, &working, Some(dir.path()), zero)
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
        save_cache(&p, "model-a", 3, &[(k, &[1.0, 2.0, 3.0][..])]).expect("save");
        let (dim, m) = load_cache(&p, "model-a").expect("load");
        assert_eq!((dim, m[&k].clone()), (3, vec![1.0, 2.0, 3.0]));
        assert!(load_cache(&p, "model-b").is_none());
        let mut b = std::fs::read(&p).expect("read");
        b.pop();
        std::fs::write(&p, b).expect("write");
        assert!(load_cache(&p, "model-a").is_none());
    }
}
