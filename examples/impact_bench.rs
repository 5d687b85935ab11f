//! Impact benchmark (`docs/benchmarks.md#impact`): indexes a tree, takes the functions with
//! the most direct callers and times [`impact`] on each at a given depth.
//!
//! `cargo run --release --example impact_bench -- DIR [DEPTH] [TOP]` prints one JSON line
//! per target: `prepare_ms`, the one-time cost per graph (the index of unresolved calls by
//! name that the first question builds), and the median wall
//! time of 7 questions (`IMPACT_BENCH_RUNS`) in milliseconds (each run with a fresh
//! [`FsLines`], so source headers are read again; the OS page cache is warm), and the sizes
//! of the answer; `no_lines_ms` is the same answer without reading sources (path and name
//! rules only) and `walk_ms` the bare caller walk. Threads for indexing: `CODEGRAPH_THREADS` (default 2).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use codegraph_tui::index::impact::{FsLines, Impactor, NoLines};
use codegraph_tui::index::{index_repo, IndexOptions, Relation, Walk};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let depth: u32 = args.next().map_or(Ok(5), |d| d.parse())?;
    let top: usize = args.next().map_or(Ok(3), |d| d.parse())?;
    let threads = std::env::var("CODEGRAPH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(2);
    let t = Instant::now();
    let idx = index_repo(
        &root,
        &IndexOptions {
            threads,
            ..IndexOptions::default()
        },
    )?;
    let index_ms = t.elapsed().as_millis();
    let mut callers: HashMap<String, usize> = HashMap::new();
    for e in idx.graph.edges() {
        if e.relation == Relation::Calls && e.source != e.target {
            *callers.entry(e.target).or_default() += 1;
        }
    }
    let mut ranked: Vec<(String, usize)> = callers.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let src_root = idx.root.clone().unwrap_or(root.clone());
    // IMPACT_BENCH_RUNS=500 makes the questions dominate a profile (perf record).
    let runs: usize = std::env::var("IMPACT_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    // Prepared once per graph, as a front end keeps it per snapshot.
    let t = Instant::now();
    let asker = Impactor::new(&idx.graph);
    // The graph's index of unresolved calls by name, built at the first question.
    let _ = idx.graph.maybe_callers_named("").count();
    let prepare_ms = t.elapsed().as_secs_f64() * 1000.0;
    for (id, direct) in ranked.into_iter().take(top) {
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..runs.max(1) {
            let lines = FsLines::new(&src_root);
            let t = Instant::now();
            last = asker.impact(&id, depth, &lines);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        // The same without reading sources (path and name rules only), and the bare walk.
        let median = |f: &dyn Fn()| {
            let mut v: Vec<f64> = (0..7)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed().as_secs_f64() * 1000.0
                })
                .collect();
            v.sort_by(f64::total_cmp);
            (v[3] * 100.0).round() / 100.0
        };
        let no_lines_ms = median(&|| {
            asker.impact(&id, depth, &NoLines);
        });
        let walk_ms = median(&|| {
            idx.graph.walk(&id, Walk::Callers, depth);
        });
        let Some(i) = last else { continue };
        println!(
            "{}",
            serde_json::json!({
                "tree": root.display().to_string(),
                "nodes": idx.graph.node_count(),
                "edges": idx.graph.edge_count(),
                "index_ms": index_ms,
                "prepare_ms": (prepare_ms * 100.0).round() / 100.0,
                "target": id,
                "direct_callers": direct,
                "depth": depth,
                "median_ms": (times[times.len() / 2] * 100.0).round() / 100.0,
                "max_ms": (times[times.len() - 1] * 100.0).round() / 100.0,
                "no_lines_ms": no_lines_ms,
                "walk_ms": walk_ms,
                "callers": i.caller_count(),
                "by_depth": i.by_depth.iter().map(Vec::len).collect::<Vec<_>>(),
                "files": i.files.len(),
                "tests": i.tests.len(),
                "entry_points": i.entry_points.len(),
                "risk": i.risk.as_str(),
                "lower_bound_reasons": i.lower_bound_reasons.len(),
                "truncated": i.truncated,
            })
        );
    }
    Ok(())
}
