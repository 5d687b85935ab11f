//! The vector index: an exact cosine top-k over unit-length vectors, scanned as `i8`
//! codes (one scale per vector) with a bound on the quantisation error, then the few rows
//! the bound cannot settle rescored with their `f32` vectors; and the on-disk vector cache
//! keyed by the BLAKE3 hash of each embedding input.
//!
//! Why: at 200k chunks × 256 dimensions the plain `f32` scan reads 205 MB per query and
//! took 98 ms (p50) on this machine under load; `i8` codes are a quarter of that, and the
//! integer dot product vectorises (16 lanes, `i16` products summed in `i32`; AVX2 when the
//! CPU has it, chosen at run time). The error bound makes the result the `f32` scan's
//! exactly (same rows, order and scores; [`VectorIndex::top_k`] says how), with no
//! approximate index, no build time and no extra dependency. Memory: 5 bytes per
//! dimension per chunk (the `f32` rows stay for the rescoring).
//! `docs/benchmarks.md#search` has the latency.
//!
//! Cache file `<cache dir>/vectors/<16 hex of BLAKE3(embedder cache slot)>.bin`: magic
//! `CGTVEC03`, the embedder id's length (u32 LE) and UTF-8 bytes, dimension (u32 LE),
//! count (u64 LE), the BLAKE3 checksum of the rest of the file (everything before it and
//! the records after it), then per vector its 32-byte input hash and `dimension`
//! little-endian f32 (as the embedder returned them; quantised when loaded). A file
//! written by another embedder id (an older fit of the offline model) is ignored and
//! replaced, so one slot never grows stale copies. A file that fails these checks (its
//! length, its checksum: a flipped byte would otherwise change a score silently) is
//! ignored, logged and rebuilt; a new file replaces the old one atomically.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::embed::{normalize, Embedder};
use super::{write_atomic, SearchChunk, SearchError};

const MAGIC: &[u8; 8] = b"CGTVEC03";

/// Inputs per embedder call in [`embed_chunks`]; progress is saved between calls.
const CHECKPOINT_INPUTS: usize = 128;

/// Least time between two progress saves of [`embed_chunks`].
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// Rows per parallel work item of the scan.
const SCAN_BLOCK_ROWS: usize = 4096;

/// Cached vectors by input hash.
pub type CachedVectors = HashMap<[u8; 32], Vec<f32>>;

/// Unit-length vectors in one matrix, in `f32` and as `i8` codes; row `i` belongs to
/// chunk `i`.
#[derive(Debug, Clone, Default)]
pub struct VectorIndex {
    dim: usize,
    /// Unit rows, row-major.
    data: Vec<f32>,
    /// `round(x / max|x| * 127)` per component, row-major.
    codes: Vec<i8>,
    /// Per row `max|x| / 127`: `x ≈ code * scale`.
    scales: Vec<f32>,
    /// Per row the L1 norm of the dequantised codes, `scale * Σ|code|`.
    l1: Vec<f32>,
}

/// Quantises `v` to `i8` codes written to `out` (same length); returns the scale
/// (`v ≈ code * scale`), 0 for a zero or non-finite vector (codes 0).
fn quantize_into(v: &[f32], out: &mut [i8]) -> f32 {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        out.fill(0);
        return 0.0;
    }
    let s = 127.0 / max;
    for (o, x) in out.iter_mut().zip(v) {
        *o = (x * s).round().clamp(-127.0, 127.0) as i8;
    }
    max / 127.0
}

/// [`quantize_into`] appending the codes to `out`.
fn quantize(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let at = out.len();
    out.resize(at + v.len(), 0);
    quantize_into(v, &mut out[at..])
}

impl VectorIndex {
    /// An index over `vectors` (each normalised here). All must have the same length.
    ///
    /// Panics: never; a vector of another length is stored as zeros (it matches nothing).
    pub fn new(vectors: Vec<Vec<f32>>) -> VectorIndex {
        let n = vectors.len();
        let dim = vectors.first().map_or(0, Vec::len);
        let mut data = vec![0f32; dim * n];
        let mut codes = vec![0i8; dim * n];
        let mut scales = vec![0f32; n];
        let mut l1 = vec![0f32; n];
        if dim > 0 {
            // Rows are independent: both cores share a large repository's 1M+ rows.
            vectors
                .into_par_iter()
                .zip(data.par_chunks_mut(dim))
                .zip(codes.par_chunks_mut(dim))
                .zip(scales.par_iter_mut().zip(l1.par_iter_mut()))
                .for_each(|(((mut v, data), codes), (scale, l1))| {
                    if v.len() != dim {
                        return;
                    }
                    normalize(&mut v);
                    let s = quantize_into(&v, codes);
                    let sum: u32 = codes.iter().map(|c| u32::from(c.unsigned_abs())).sum();
                    *scale = s;
                    *l1 = s * sum as f32;
                    data.copy_from_slice(&v);
                });
        }
        VectorIndex {
            dim,
            data,
            codes,
            scales,
            l1,
        }
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

    /// The `k` rows most similar to `query` by cosine (the query is normalised here),
    /// best first as `(row, cosine)`; ties by row. Empty when the query's length differs.
    ///
    /// The same rows, order and scores as [`VectorIndex::top_k_f32`], found faster: every
    /// row is scored with its `i8` codes together with a bound on the quantisation error
    /// (below), which gives each row an interval `[lower, upper]` holding its exact
    /// cosine. With `L` the `k`-th largest lower end, `k` rows have an exact cosine ≥ `L`,
    /// so every row of the exact top `k` has an upper end ≥ `L`; only those rows are
    /// rescored with the `f32` vectors.
    ///
    /// The bound: with `x = x̂ + e`, `|e_i| ≤ s_x / 2` for row `a` and query `q` (scales
    /// `s_a`, `s_q`), `|a·q − â·q̂| ≤ s_a/2 · ‖q‖₁ + s_q/2 · ‖â‖₁`.
    pub fn top_k(&self, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        if query.len() != self.dim || self.dim == 0 || k == 0 {
            return Vec::new();
        }
        let mut q = query.to_vec();
        normalize(&mut q);
        let mut qc = Vec::with_capacity(self.dim);
        let sq = quantize(&q, &mut qc);
        let q_l1: f32 = q.iter().map(|x| x.abs()).sum();
        // f32 rounding of the sums themselves, far above its real size.
        const SLACK: f32 = 1e-4;
        let dot = dot_i8_fn();
        let qc = qc.as_slice();
        // (lower, upper) per row.
        let bounds: Vec<(f32, f32)> = self
            .codes
            .par_chunks(self.dim * SCAN_BLOCK_ROWS)
            .enumerate()
            .flat_map_iter(|(b, block)| {
                let first = b * SCAN_BLOCK_ROWS;
                block.chunks_exact(self.dim).enumerate().map(move |(i, r)| {
                    let row = first + i;
                    let sa = self.scales[row];
                    let approx = dot(r, qc) as f32 * sa * sq;
                    let err = sa / 2.0 * q_l1 + sq / 2.0 * self.l1[row] + SLACK;
                    (approx - err, approx + err)
                })
            })
            .collect();
        let floor = if k < bounds.len() {
            let mut lower: Vec<f32> = bounds.iter().map(|b| b.0).collect();
            let (_, kth, _) = lower.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
            *kth
        } else {
            f32::NEG_INFINITY
        };
        let mut exact: Vec<(f32, u32)> = bounds
            .iter()
            .enumerate()
            .filter(|(_, b)| b.1 >= floor)
            .map(|(row, _)| (dot_f32(self.row(row), &q), row as u32))
            .collect();
        exact.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        exact.truncate(k);
        exact.into_iter().map(|(s, r)| (r as usize, s)).collect()
    }

    /// [`VectorIndex::top_k`] by a plain `f32` scan of every row: the reference the
    /// quantised scan is measured against.
    pub fn top_k_f32(&self, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        if query.len() != self.dim || self.dim == 0 || k == 0 {
            return Vec::new();
        }
        let mut q = query.to_vec();
        normalize(&mut q);
        let scores: Vec<f32> = self
            .data
            .par_chunks(self.dim * SCAN_BLOCK_ROWS)
            .flat_map_iter(|block| block.chunks_exact(self.dim).map(|r| dot_f32(r, &q)))
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

    fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }
}

/// Dot product, written in 8 lanes so the compiler vectorises it.
fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
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

/// Integer dot product of `i8` codes, in 16 lanes of `i16` products summed in `i32`
/// (no overflow: |code| ≤ 127, so a lane reaches 2³¹ only past 130 000 dimensions), a
/// shape the compiler turns into `pmaddwd`.
#[inline(always)]
fn dot_i8_portable(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    let (ca, ra) = a.split_at(a.len() - a.len() % 16);
    let (cb, rb) = b.split_at(ca.len());
    for (x, y) in ca.chunks_exact(16).zip(cb.chunks_exact(16)) {
        for l in 0..16 {
            acc[l] += i32::from(i16::from(x[l]) * i16::from(y[l]));
        }
    }
    acc.iter().sum::<i32>()
        + ra.iter()
            .zip(rb)
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum::<i32>()
}

/// [`dot_i8_portable`] compiled for AVX2.
///
/// Safety: the caller checks that the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    dot_i8_portable(a, b)
}

/// The fastest `i8` dot product this CPU runs.
fn dot_i8_fn() -> fn(&[i8], &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return |a, b| {
            // SAFETY: AVX2 was detected on this CPU just above.
            unsafe { dot_i8_avx2(a, b) }
        };
    }
    dot_i8_portable
}

/// What [`bench_top_k`] measured. Latencies in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ScanBench {
    /// Median latency of [`VectorIndex::top_k`] (k = 1000).
    pub p50: f64,
    /// 99th percentile of the same.
    pub p99: f64,
    /// Median latency of the plain `f32` scan, [`VectorIndex::top_k_f32`].
    pub f32_p50: f64,
    /// Share of the checked queries whose top 10 (rows, in order) equal the `f32` scan's.
    pub top10_same: f64,
    /// Mean share of the `f32` scan's top 1000 rows that the quantised scan also returns.
    pub top1000_overlap: f64,
}

/// Latency of [`VectorIndex::top_k`] (k = 1000) over `n` deterministic pseudo-random
/// vectors of `dim` dimensions and `queries` queries, and its agreement with
/// [`VectorIndex::top_k_f32`] (timed on at most 10 of the queries).
pub fn bench_top_k(n: usize, dim: usize, queries: usize) -> ScanBench {
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
    let pct = |ms: &mut Vec<f64>, p: f64| {
        ms.sort_by(f64::total_cmp);
        ms[((ms.len() - 1) as f64 * p).round() as usize]
    };
    let (mut ms, mut f32_ms) = (Vec::new(), Vec::new());
    let (mut same, mut overlap) = (0usize, 0f64);
    let queries = queries.max(1);
    for i in 0..queries {
        let q: Vec<f32> = (0..dim).map(|_| rng()).collect();
        let t = std::time::Instant::now();
        let top = index.top_k(&q, 1000);
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        debug_assert!(top.windows(2).all(|w| w[0].1 >= w[1].1));
        if i < 10 {
            let t = std::time::Instant::now();
            let exact = index.top_k_f32(&q, 1000);
            f32_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            let rows = |v: &[(usize, f32)], m: usize| -> Vec<usize> {
                v.iter().take(m).map(|x| x.0).collect()
            };
            same += usize::from(rows(&top, 10) == rows(&exact, 10));
            let set: std::collections::HashSet<usize> = rows(&top, 1000).into_iter().collect();
            overlap += exact.iter().filter(|x| set.contains(&x.0)).count() as f64
                / exact.len().max(1) as f64;
        }
    }
    let checked = f32_ms.len() as f64;
    ScanBench {
        p50: pct(&mut ms, 0.5),
        p99: pct(&mut ms, 0.99),
        f32_p50: pct(&mut f32_ms, 0.5),
        top10_same: same as f64 / checked,
        top1000_overlap: overlap / checked,
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
    if b.len() < 12 || &b[..8] != MAGIC {
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
    let rec = 32 + 4 * dim;
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
            let v = r[32..]
                .chunks_exact(4)
                .map(|x| f32::from_le_bytes([x[0], x[1], x[2], x[3]]))
                .collect();
            (key, v)
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
    entries: &[([u8; 32], &[f32])],
) -> Result<(), SearchError> {
    let mut b = Vec::with_capacity(32 + embedder_id.len() + entries.len() * (32 + 4 * dim));
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&(embedder_id.len() as u32).to_le_bytes());
    b.extend_from_slice(embedder_id.as_bytes());
    b.extend_from_slice(&(dim as u32).to_le_bytes());
    b.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let sum_at = b.len();
    b.extend_from_slice(&[0u8; 32]);
    for (k, v) in entries {
        b.extend_from_slice(k);
        for x in v.iter() {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    let sum = checksum(&b[..sum_at], &b[sum_at + 32..]);
    b[sum_at..sum_at + 32].copy_from_slice(&sum);
    write_atomic(path, &b)
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
        cached: inputs.len() - missing.len(),
        embedded,
    };
    // Vectors of another length (a model that changed its dimension) are dropped.
    cache.retain(|_, v| v.len() == dim);
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
    // The rows move out of the cache (a second copy of every vector would be the peak of
    // a large repository); a chunk whose input repeats an earlier one copies that row.
    let mut first: HashMap<[u8; 32], usize> = HashMap::new();
    let mut rows: Vec<Vec<f32>> = Vec::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        let row = match cache.remove(k) {
            Some(v) => {
                first.insert(*k, i);
                v
            }
            None => first
                .get(k)
                .map_or_else(|| vec![0.0; dim], |&j| rows[j].clone()),
        };
        rows.push(row);
    }
    drop(cache);
    let t = std::time::Instant::now();
    let vi = VectorIndex::new(rows);
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
    fn i8_dot_matches_the_naive_sum_at_any_length() {
        let a: Vec<i8> = (0..67).map(|i| ((i * 37) % 255 - 127) as i8).collect();
        let b: Vec<i8> = (0..67).map(|i| ((i * 91 + 5) % 255 - 127) as i8).collect();
        for n in [0, 1, 15, 16, 17, 64, 67] {
            let naive: i32 = (0..n).map(|i| i32::from(a[i]) * i32::from(b[i])).sum();
            assert_eq!(dot_i8_portable(&a[..n], &b[..n]), naive, "length {n}");
            assert_eq!(dot_i8_fn()(&a[..n], &b[..n]), naive, "length {n}");
        }
        let max = vec![-127i8; 384];
        assert_eq!(dot_i8_fn()(&max, &max), 384 * 127 * 127);
    }

    #[test]
    fn quantised_codes_reconstruct_the_vector() {
        let v = [0.5f32, -0.25, 0.125, 0.0, -0.5];
        let mut codes = Vec::new();
        let s = quantize(&v, &mut codes);
        assert_eq!(codes, [127, -64, 32, 0, -127]);
        for (c, x) in codes.iter().zip(v) {
            assert!((f32::from(*c) * s - x).abs() <= s / 2.0 + 1e-6);
        }
        let mut zero = Vec::new();
        assert_eq!(quantize(&[0.0, 0.0], &mut zero), 0.0);
        assert_eq!(zero, [0, 0]);
    }

    #[test]
    fn quantised_scan_ranks_like_the_f32_scan() {
        // 3 000 rows over two blocks; near-duplicates make the quantisation error matter.
        let mut x = 12345u64;
        let mut rng = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let base: Vec<f32> = (0..48).map(|_| rng()).collect();
        let rows: Vec<Vec<f32>> = (0..SCAN_BLOCK_ROWS + 3000)
            .map(|i| {
                let noise = if i % 3 == 0 { 0.05 } else { 1.0 };
                base.iter().map(|b| b + noise * rng()).collect()
            })
            .collect();
        let ix = VectorIndex::new(rows);
        for _ in 0..5 {
            let q: Vec<f32> = base.iter().map(|b| b + 0.3 * rng()).collect();
            for k in [1, 50, 700] {
                let fast = ix.top_k(&q, k);
                let exact = ix.top_k_f32(&q, k);
                assert_eq!(fast, exact, "same rows, order and scores (k = {k})");
            }
        }
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
