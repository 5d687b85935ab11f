//! Vector scan latency at scale: the median query must take under 50 ms at 200k chunks
//! (measured numbers in `docs/benchmarks.md#search`). Ignored by default; run optimised
//! with `cargo test --release --test search_bench -- --ignored --nocapture`, or without a
//! test build: `codegraph-tui search --bench-vectors 200000 x` (release binary).

use codegraph_tui::index::search::scan::bench_top_k;

#[test]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
fn vector_top_k_at_200k_chunks() {
    for dim in [256, 384] {
        let b = bench_top_k(200_000, dim, 60);
        println!("vector top-1000 over 200000 x {dim}: {b:?}");
        if !cfg!(debug_assertions) {
            assert!(b.p50 < 50.0, "p50 {:.1} ms over the 50 ms budget", b.p50);
        }
        // Random vectors nearly tie at the top (their cosines cluster near 0), where the
        // codes' error can swap neighbours; the rows found stay the same.
        assert!(
            b.top1000_overlap >= 0.98,
            "the top 1000 differ from the f32 scan's: {b:?}"
        );
    }
}

#[test]
fn bench_helper_runs_small() {
    let b = bench_top_k(2000, 16, 3);
    assert!(b.p50 >= 0.0 && b.p99 >= b.p50);
    // 16 dimensions quantise coarsely; the rows found are still the f32 scan's.
    assert!(b.top1000_overlap >= 0.99, "{b:?}");
    assert!(b.top10_same >= 0.5, "{b:?}");
}
