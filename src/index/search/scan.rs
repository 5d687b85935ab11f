//! The vector scan: a top-k by cosine over unit-length vectors stored as `i8` codes with
//! one scale per vector, the same for the vectors a process holds
//! (the vector index in memory) and for the memory-mapped ones of a saved chunk table
//! ([`super::table::ChunkTable`]).
//!
//! Why `i8` codes alone: at 1.36M chunks × 320 dimensions the `f32` rows are 1.7 GB, the
//! codes 435 MB; the integer dot product vectorises (16 lanes, `i16` products summed in
//! `i32`; AVX2 when the CPU has it, chosen at run time), and a saved table is then small
//! enough to map and scan per query. The score of a row is the dot product of its
//! dequantised codes with the dequantised query, which differs from the `f32` cosine by
//! at most `s_a/2 · ‖q‖₁ + s_q/2 · ‖â‖₁` (scales `s`, `x = code · s + e`, `|e_i| ≤ s/2`):
//! under 0.01 for the built-in embedder's vectors, so only rows that nearly tie can trade
//! places. `docs/benchmarks.md#search` has the latency and the agreement with an `f32`
//! scan; `docs/accuracy.md#search-quality` the ranking quality.

use rayon::prelude::*;

use super::embed::normalize;

/// Rows per parallel work item of the scan.
pub(crate) const SCAN_BLOCK_ROWS: usize = 4096;

/// Quantises `v` to `i8` codes written to `out` (same length); returns the scale
/// (`v ≈ code * scale`), 0 for a zero or non-finite vector (codes 0).
pub(crate) fn quantize_into(v: &[f32], out: &mut [i8]) -> f32 {
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
pub(crate) fn quantize(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let at = out.len();
    out.resize(at + v.len(), 0);
    quantize_into(v, &mut out[at..])
}

/// Normalises each of `vectors` and quantises it ([`quantize_into`]): the dimension, the
/// codes row-major and one scale per row. A vector of another length than the first
/// becomes zeros (it matches nothing).
pub(crate) fn quantize_rows(vectors: Vec<Vec<f32>>) -> (usize, Vec<i8>, Vec<f32>) {
    let n = vectors.len();
    let dim = vectors.first().map_or(0, Vec::len);
    let mut codes = vec![0i8; dim * n];
    let mut scales = vec![0f32; n];
    if dim > 0 {
        // Rows are independent: both cores share a large repository's 1M+ rows.
        vectors
            .into_par_iter()
            .zip(codes.par_chunks_mut(dim))
            .zip(scales.par_iter_mut())
            .for_each(|((mut v, codes), scale)| {
                if v.len() != dim {
                    return;
                }
                normalize(&mut v);
                *scale = quantize_into(&v, codes);
            });
    }
    (dim, codes, scales)
}

/// `dim`-long rows of `i8` codes with one scale per row (`x ≈ code · scale`).
#[derive(Clone, Copy)]
pub struct CodeRows<'a> {
    /// Vector length.
    pub dim: usize,
    /// The codes: row-major (row `i` is `codes[i * dim..(i + 1) * dim]`) or, with
    /// `by_column`, column-major (component `j` of every row is
    /// `codes[j * rows..(j + 1) * rows]`).
    pub codes: &'a [i8],
    /// One scale per row.
    pub scales: &'a [f32],
    /// Column-major codes. A query of the built-in embedder has few nonzero codes in its
    /// lexical half (a few terms, each hashed to two components), and a column whose
    /// query code is 0 adds nothing: the scan then reads about a quarter of the codes,
    /// which is what makes a memory-mapped table fast to scan.
    pub by_column: bool,
    /// The file `codes` are mapped from and the codes' byte offset in it, when they are:
    /// a column-major scan then reads its pieces with positioned reads into a buffer it
    /// reuses, not through the map, because every page a map touches stays in the
    /// process's memory (and the kernel maps whole large folios at a touch: on a 1.36M-row
    /// table the scan's columns took 180 MB at once). `codes` is read where a read fails.
    pub file: Option<(&'a std::fs::File, u64)>,
}

/// Rows of one piece of a column-major scan: 16 blocks, 64 KiB per column.
const PIECE_ROWS: usize = 16 * SCAN_BLOCK_ROWS;

impl<'a> CodeRows<'a> {
    /// Row-major codes held in memory.
    pub fn row_major(dim: usize, codes: &'a [i8], scales: &'a [f32]) -> CodeRows<'a> {
        CodeRows {
            dim,
            codes,
            scales,
            by_column: false,
            file: None,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// `true` without rows.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// The `k` rows most similar to `query` (normalised here) among those `accept`
    /// takes, best first as `(row, score)` with the score of the module docs; ties by row.
    /// Empty when the query's length differs from the rows'.
    pub fn top_k(
        &self,
        query: &[f32],
        k: usize,
        accept: Option<&(dyn Fn(usize) -> bool + Sync)>,
    ) -> Vec<(usize, f32)> {
        let dim = self.dim;
        if query.len() != dim || dim == 0 || k == 0 || self.codes.len() < dim * self.len() {
            return Vec::new();
        }
        let mut q = query.to_vec();
        normalize(&mut q);
        let mut qc = Vec::with_capacity(dim);
        let sq = quantize(&q, &mut qc);
        let dot = dot_i8_fn();
        let qc = qc.as_slice();
        if self.by_column {
            return self.top_k_by_column(qc, sq, k, accept);
        }
        // Each block keeps its own best k, so the merge sorts at most blocks × k rows.
        let best: Vec<(f32, u32)> = self.codes[..dim * self.len()]
            .par_chunks(dim * SCAN_BLOCK_ROWS)
            .enumerate()
            .flat_map_iter(|(b, block)| {
                let first = b * SCAN_BLOCK_ROWS;
                let mut scored: Vec<(f32, u32)> = block
                    .chunks_exact(dim)
                    .enumerate()
                    .filter(|&(i, _)| accept.is_none_or(|f| f(first + i)))
                    .map(|(i, r)| {
                        let row = first + i;
                        (dot(r, qc) as f32 * self.scales[row] * sq, row as u32)
                    })
                    .collect();
                keep_best(&mut scored, k);
                scored
            })
            .collect();
        finish(best, k)
    }
}

/// Best first: higher score, then lower row.
fn better(a: &(f32, u32), b: &(f32, u32)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

/// Keeps the best `k` of `v` (in no order).
fn keep_best(v: &mut Vec<(f32, u32)>, k: usize) {
    if v.len() > k {
        v.select_nth_unstable_by(k - 1, better);
        v.truncate(k);
    }
}

/// The best `k` of the kept candidates, best first, as `(row, score)`.
fn finish(mut best: Vec<(f32, u32)>, k: usize) -> Vec<(usize, f32)> {
    keep_best(&mut best, k);
    best.sort_unstable_by(better);
    best.into_iter().map(|(s, r)| (r as usize, s)).collect()
}

impl CodeRows<'_> {
    /// [`CodeRows::top_k`] over column-major codes, with the query's codes `qc` and
    /// scale `sq`. The integer sums are exact, so every score is bit for bit the one the
    /// row-major scan computes.
    fn top_k_by_column(
        &self,
        qc: &[i8],
        sq: f32,
        k: usize,
        accept: Option<&(dyn Fn(usize) -> bool + Sync)>,
    ) -> Vec<(usize, f32)> {
        let n = self.len();
        let columns: Vec<(usize, i32)> = qc
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .map(|(j, &c)| (j, i32::from(c)))
            .collect();
        // Rows `first..end` of the piece that starts at row `at` (one slice per column).
        let scan_block = |pieces: &[&[i8]], at: usize, first: usize, end: usize| {
            let mut acc = vec![0i32; end - first];
            for (piece, &(_, c)) in pieces.iter().zip(&columns) {
                let col = &piece[first - at..end - at];
                for (a, &x) in acc.iter_mut().zip(col) {
                    *a += c * i32::from(x);
                }
            }
            let mut scored: Vec<(f32, u32)> = acc
                .into_iter()
                .enumerate()
                .map(|(i, a)| (first + i, a))
                .filter(|&(row, _)| accept.is_none_or(|f| f(row)))
                .map(|(row, a)| (a as f32 * self.scales[row] * sq, row as u32))
                .collect();
            keep_best(&mut scored, k);
            scored
        };
        let best: Vec<(f32, u32)> = (0..n.div_ceil(PIECE_ROWS))
            .into_par_iter()
            .flat_map_iter(|big| {
                let (first, end) = (big * PIECE_ROWS, ((big + 1) * PIECE_ROWS).min(n));
                let len = end - first;
                let read = self.file.and_then(|(f, at)| {
                    use std::os::unix::fs::FileExt;
                    let mut buf = vec![0u8; columns.len() * len];
                    for (piece, &(j, _)) in buf.chunks_exact_mut(len.max(1)).zip(&columns) {
                        f.read_exact_at(piece, at + (j * n + first) as u64).ok()?;
                    }
                    Some(buf)
                });
                let pieces: Vec<&[i8]> = match &read {
                    // SAFETY: `i8` and `u8` have the same size and alignment.
                    Some(buf) => buf
                        .chunks_exact(len.max(1))
                        .map(|p| unsafe {
                            std::slice::from_raw_parts(p.as_ptr().cast::<i8>(), p.len())
                        })
                        .collect(),
                    None => columns
                        .iter()
                        .map(|&(j, _)| &self.codes[j * n + first..j * n + end])
                        .collect(),
                };
                let mut kept: Vec<(f32, u32)> = (first..end)
                    .step_by(SCAN_BLOCK_ROWS)
                    .flat_map(|b| scan_block(&pieces, first, b, (b + SCAN_BLOCK_ROWS).min(end)))
                    .collect();
                keep_best(&mut kept, k);
                kept
            })
            .collect();
        finish(best, k)
    }
}

/// Codes row-major `rows × dim` as column-major (`dim × rows`), for [`CodeRows::by_column`].
pub fn transpose(codes: &[i8], dim: usize) -> Vec<i8> {
    if dim == 0 {
        return Vec::new();
    }
    let n = codes.len() / dim;
    let mut out = vec![0i8; n * dim];
    out.par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(j, col)| {
            for (r, c) in col.iter_mut().enumerate() {
                *c = codes[r * dim + j];
            }
        });
    out
}

/// Dot product, written in 8 lanes so the compiler vectorises it.
pub(crate) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
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

/// The `k` rows of `rows` (unit length) with the largest `f32` cosine to `query`, best
/// first; ties by row: the reference [`CodeRows::top_k`] is measured against.
pub fn top_k_f32(rows: &[Vec<f32>], query: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut q = query.to_vec();
    normalize(&mut q);
    let scores: Vec<f32> = rows
        .par_iter()
        .map(|r| {
            if r.len() == q.len() {
                dot_f32(r, &q)
            } else {
                0.0
            }
        })
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

/// What [`bench_top_k`] measured. Latencies in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ScanBench {
    /// Median latency of [`CodeRows::top_k`] (k = 1000).
    pub p50: f64,
    /// 99th percentile of the same.
    pub p99: f64,
    /// Median latency of the plain `f32` scan, [`top_k_f32`].
    pub f32_p50: f64,
    /// Share of the checked queries whose top 10 (rows, in order) equal the `f32` scan's.
    pub top10_same: f64,
    /// Mean share of the `f32` scan's top 1000 rows that the quantised scan also returns.
    pub top1000_overlap: f64,
}

/// Latency of [`CodeRows::top_k`] (k = 1000) over `n` deterministic pseudo-random
/// vectors of `dim` dimensions and `queries` queries, and its agreement with
/// [`top_k_f32`] (timed on at most 10 of the queries).
pub fn bench_top_k(n: usize, dim: usize, queries: usize) -> ScanBench {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut rng = move || {
        // xorshift64*
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let mut vectors: Vec<Vec<f32>> = (0..n).map(|_| (0..dim).map(|_| rng()).collect()).collect();
    vectors.iter_mut().for_each(|v| normalize(v));
    let (dim, codes, scales) = quantize_rows(vectors.clone());
    let index = CodeRows::row_major(dim, &codes, &scales);
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
        let top = index.top_k(&q, 1000, None);
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        if i < 10 {
            let t = std::time::Instant::now();
            let exact = top_k_f32(&vectors, &q, 1000);
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Deterministic rows around a common centre: near-duplicates, so the quantisation
    /// error matters.
    fn clustered(n: usize, dim: usize) -> (Vec<Vec<f32>>, Vec<f32>, impl FnMut() -> f32) {
        let mut x = 12345u64;
        let mut rng = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let base: Vec<f32> = (0..dim).map(|_| rng()).collect();
        let mut rows: Vec<Vec<f32>> = (0..n)
            .map(|i| {
                let noise = if i % 3 == 0 { 0.05 } else { 1.0 };
                base.iter().map(|b| b + noise * rng()).collect()
            })
            .collect();
        rows.iter_mut().for_each(|v| normalize(v));
        (rows, base, rng)
    }

    #[test]
    fn the_quantised_scan_stays_within_its_bound_of_the_f32_scan() {
        // Two blocks and a part, so the per-block selection and the merge both count.
        let (rows, base, mut rng) = clustered(SCAN_BLOCK_ROWS + 3000, 48);
        let (dim, codes, scales) = quantize_rows(rows.clone());
        let ix = CodeRows::row_major(dim, &codes, &scales);
        for _ in 0..5 {
            let q: Vec<f32> = base.iter().map(|b| b + 0.3 * rng()).collect();
            for k in [1, 50, 700] {
                let fast = ix.top_k(&q, k, None);
                let exact = top_k_f32(&rows, &q, k);
                assert_eq!(fast.len(), k);
                assert!(fast.windows(2).all(|w| w[0].1 >= w[1].1), "best first");
                // Each returned score is within the bound of its row's cosine, and the
                // k-th score within twice the bound of the exact k-th: nothing far
                // better was left out.
                let cos = |r: usize| {
                    let mut qn = q.clone();
                    normalize(&mut qn);
                    dot_f32(&rows[r], &qn)
                };
                for &(r, s) in &fast {
                    assert!((s - cos(r)).abs() < 0.01, "row {r}: {s} vs {}", cos(r));
                }
                assert!((fast[k - 1].1 - exact[k - 1].1).abs() < 0.02);
            }
        }
    }

    #[test]
    fn the_column_major_scan_gives_the_row_major_scores_bit_for_bit() {
        // Past one piece, so the pieces and their merge count too.
        let (rows, base, mut rng) = clustered(PIECE_ROWS + 777, 40);
        let (dim, codes, scales) = quantize_rows(rows);
        let view = CodeRows::row_major(dim, &codes, &scales);
        let by_column = transpose(view.codes, view.dim);
        let cols = CodeRows {
            codes: &by_column,
            by_column: true,
            ..view
        };
        let odd = |r: usize| !r.is_multiple_of(2);
        for _ in 0..4 {
            // A sparse query too: most columns are then skipped.
            let mut q: Vec<f32> = base.iter().map(|b| b + 0.3 * rng()).collect();
            for k in [1, 30, 900] {
                assert_eq!(cols.top_k(&q, k, None), view.top_k(&q, k, None), "k = {k}");
                assert_eq!(cols.top_k(&q, k, Some(&odd)), view.top_k(&q, k, Some(&odd)));
            }
            q.iter_mut().skip(3).for_each(|x| *x = 0.0);
            assert_eq!(cols.top_k(&q, 50, None), view.top_k(&q, 50, None), "sparse");
        }
    }

    #[test]
    fn accept_filters_before_the_top_k() {
        let (rows, base, _) = clustered(100, 16);
        let (dim, codes, scales) = quantize_rows(rows);
        let ix = CodeRows::row_major(dim, &codes, &scales);
        let even = |r: usize| r.is_multiple_of(2);
        let top = ix.top_k(&base, 10, Some(&even));
        assert_eq!(top.len(), 10);
        assert!(top.iter().all(|&(r, _)| r.is_multiple_of(2)));
        let all = ix.top_k(&base, 100, None);
        let firsts: Vec<usize> = all
            .iter()
            .map(|x| x.0)
            .filter(|r| r.is_multiple_of(2))
            .take(10)
            .collect();
        assert_eq!(top.iter().map(|x| x.0).collect::<Vec<_>>(), firsts);
        assert!(
            ix.top_k(&[1.0, 0.0, 0.0], 3, None).is_empty(),
            "another length"
        );
    }
}
