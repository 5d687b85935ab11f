//! Vector index latency at scale (issue 4: under 50 ms at 200k chunks). Ignored by
//! default; run optimised with
//! `cargo test --release --test search_bench -- --ignored --nocapture`, or without a
//! test build: `codegraph-tui search --bench-vectors 200000 x` (release binary).

use codegraph_tui::index::search::vector::bench_top_k;

#[test]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
fn vector_top_k_at_200k_chunks() {
    for dim in [256, 384] {
        let (p50, p99) = bench_top_k(200_000, dim, 60);
        println!("vector top-1000 over 200000 x {dim}: p50 {p50:.1} ms, p99 {p99:.1} ms");
        if !cfg!(debug_assertions) {
            assert!(p50 < 50.0, "p50 {p50:.1} ms over the 50 ms budget");
        }
    }
}

#[test]
fn bench_helper_runs_small() {
    let (p50, p99) = bench_top_k(2000, 16, 3);
    assert!(p50 >= 0.0 && p99 >= p50);
}
