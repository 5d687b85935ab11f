//! `codegraph-tui search QUERY | --batch FILE [--mode text|semantic|hybrid] [--limit N]
//! [--json]`: full-text, semantic or hybrid search over chunks (`docs/contracts.md#command-line`, `#search`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;

use super::{output, Cli};
use crate::config::Config;
use crate::index::search::hybrid::BuildStats;
use crate::index::search::{Hit, Mode, Query, SavedSearch, Searcher};

/// Arguments of `search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Query: words, "quoted phrases", path:, lang:, kind: filters.
    #[arg(required_unless_present = "batch", conflicts_with = "batch")]
    pub query: Option<String>,
    /// Read one query per line from FILE (`-` for stdin) and print one result per line.
    #[arg(long, value_name = "FILE")]
    pub batch: Option<PathBuf>,
    /// Ranking: BM25 text, embedding similarity, or both fused.
    #[arg(long, value_enum, default_value_t = Mode::Hybrid)]
    pub mode: Mode,
    /// Most hits per query.
    #[arg(long, default_value_t = 20, value_parser = super::positive)]
    pub limit: usize,
    /// Print `{"query", "mode", "hits": [...]}` per query.
    #[arg(long)]
    pub json: bool,
    /// Print build counts and query latency (p50, p99) to stderr, as JSON.
    #[arg(long)]
    pub stats: bool,
    /// Benchmark: time the vector scan over N random vectors (256 and 384 dimensions),
    /// compare it with the plain f32 scan, print JSON, and exit (QUERY is ignored).
    #[arg(long, hide = true, value_name = "N")]
    pub bench_vectors: Option<usize>,
}

pub(super) fn run(cli: &Cli, a: &SearchArgs, root: &Path, config: &Config) -> Result<i32> {
    let color = output::use_color(cli.color);
    if let Some(n) = a.bench_vectors {
        for dim in [256, 384] {
            let b = crate::index::search::scan::bench_top_k(n, dim, 60);
            output::print_json(&serde_json::json!({
                "vectors": n, "dimensions": dim, "k": 1000,
                "latency_ms": {"p50": b.p50, "p99": b.p99, "f32_scan_p50": b.f32_p50},
                "agreement_with_f32_scan": {
                    "top10_identical": b.top10_same, "top1000_overlap": b.top1000_overlap,
                },
            }))?;
        }
        return Ok(0);
    }
    let queries: Vec<String> = match (&a.query, &a.batch) {
        (Some(q), None) => {
            // An empty query would list every chunk in index order: never what was meant.
            let parsed = Query::parse(q);
            if parsed == Query::default() {
                bail!(
                    "empty query: give words, a \"quoted phrase\" or a filter (path:, lang:, kind:)"
                );
            }
            if parsed.is_empty() && a.mode == Mode::Semantic {
                bail!(
                    "a query of filters only has nothing to embed in mode semantic: add words, \
                     or use --mode text or hybrid to list what passes the filters"
                );
            }
            vec![q.clone()]
        }
        (None, Some(f)) => read_batch(f)?,
        _ => bail!("give either QUERY or --batch FILE"),
    };
    if let Some((saved, stats, source_bytes)) = saved_indexes(cli, root, config, a.mode) {
        let answer = |q: &str| {
            saved
                .search(q, a.mode, a.limit)
                .map_err(anyhow::Error::from)
        };
        let status = answer_all(a, &queries, answer, color, &stats, source_bytes)?;
        std::mem::forget(saved);
        return Ok(status);
    }
    let (idx, session) = super::open_index(cli, root, config, a.json || a.batch.is_some())?;
    let searcher = Searcher::build_for(
        &idx,
        session.snapshot(),
        a.mode,
        session.writable_dir(),
        None,
        config.embedding.clone(),
        None,
    )
    .context("building the search index")?;
    let answer = |q: &str| {
        searcher
            .search(q, a.mode, a.limit)
            .map_err(anyhow::Error::from)
    };
    let status = answer_all(a, &queries, answer, color, &searcher.stats, idx.stats.bytes)?;
    // The process ends now: freeing the index and chunks piece by piece is wasted time.
    std::mem::forget((idx, searcher));
    Ok(status)
}

/// The saved indexes `mode` needs when the tree is as the live snapshot has it and they
/// were built from that snapshot, with build counts and the snapshot's source bytes: a
/// warm search then reads the manifest, stats the tree and opens the indexes, and neither
/// loads the snapshot nor makes a chunk. `None` otherwise (the caller builds).
fn saved_indexes(
    cli: &Cli,
    root: &Path,
    config: &Config,
    mode: Mode,
) -> Option<(SavedSearch, BuildStats, u64)> {
    let t = Instant::now();
    // Reading only: a running TUI or watcher holding the lock is no reason to wait.
    let mut session =
        crate::index::session::Session::open_for_command(super::session_dir(cli, root).as_deref());
    let (digest, index_stats) = session.unchanged_snapshot(root, &config.index_options())?;
    let dir = session.dir()?;
    let mut stats = BuildStats {
        text_reused: true,
        ..BuildStats::default()
    };
    let saved = SavedSearch::open(dir, digest, mode, config.embedding.clone())?;
    stats.chunks = saved.len();
    (stats.vector_bytes, stats.text_index_bytes) = saved.size_bytes();
    if saved.has_vectors() {
        stats.vectors_cached = saved.len();
        stats.embedder = saved.embedder_id();
        stats.embedder_fit_reused = true;
    }
    stats
        .elapsed_ms
        .insert("open".into(), t.elapsed().as_millis() as u64);
    tracing::info!(
        ms = t.elapsed().as_millis() as u64,
        mode = mode.as_str(),
        "saved search indexes of the live snapshot"
    );
    Some((saved, stats, index_stats.bytes))
}

/// Answers every query with `answer` and prints the hits, then `--stats`; exit status 1
/// when a single query has no hit.
///
/// Errors: `answer`'s, or writing the output.
fn answer_all(
    a: &SearchArgs,
    queries: &[String],
    answer: impl Fn(&str) -> Result<Vec<Hit>>,
    color: bool,
    build: &BuildStats,
    source_bytes: u64,
) -> Result<i32> {
    let mut latencies = Vec::with_capacity(queries.len());
    let mut any = false;
    for (n, q) in queries.iter().enumerate() {
        let t = Instant::now();
        // A blank line of a batch has no words to rank by: it gets an empty answer line.
        let hits = if q.trim().is_empty() {
            Vec::new()
        } else {
            if a.mode == Mode::Semantic && Query::parse(q).is_empty() {
                // Its answer line stays (one per input line); stderr says why it is empty.
                eprintln!(
                    "codegraph-tui: line {}: filters only, nothing to embed in mode semantic",
                    n + 1
                );
            }
            answer(q)?
        };
        latencies.push(t.elapsed().as_secs_f64() * 1000.0);
        any |= !hits.is_empty();
        print_hits(q, a, &hits, color)?;
    }
    if a.stats {
        latencies.sort_by(f64::total_cmp);
        let pct = |p: f64| {
            latencies
                .get(((latencies.len() as f64 - 1.0) * p).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        eprintln!(
            "{}",
            serde_json::json!({
                "build": build,
                "source_bytes": source_bytes,
                "queries": latencies.len(),
                "latency_ms": {"p50": pct(0.5), "p99": pct(0.99)},
            })
        );
    }
    if !any && a.batch.is_none() {
        // Exit status 1 as grep's; say why on stderr, stdout stays the (empty) answer.
        eprintln!(
            "codegraph-tui: no hits for {:?} in mode {}",
            queries[0],
            a.mode.as_str()
        );
        return Ok(1);
    }
    Ok(0)
}

/// The queries of a batch file (`-` for stdin), one per line. A line that is not UTF-8
/// is read with U+FFFD for its bad bytes (so it still gets its answer line); a trailing
/// `\r` is dropped.
///
/// Errors: the file cannot be opened or read.
fn read_batch(f: &Path) -> Result<Vec<String>> {
    let mut bytes = Vec::new();
    if f == Path::new("-") {
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("reading queries from stdin")?;
    } else {
        std::fs::File::open(f)
            .with_context(|| format!("opening {}", f.display()))?
            .read_to_end(&mut bytes)
            .with_context(|| format!("reading {}", f.display()))?;
    }
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
    }
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    Ok(bytes
        .split(|&b| b == b'\n')
        .map(|l| String::from_utf8_lossy(l.strip_suffix(b"\r").unwrap_or(l)).into_owned())
        .collect())
}

/// Prints one query's hits: JSON, or one line per hit, coloured as `symbols` colours
/// (kind cyan, id bold, location dim) when `color`.
fn print_hits(query: &str, a: &SearchArgs, hits: &[Hit], color: bool) -> Result<()> {
    if a.json {
        return output::print_json(&serde_json::json!({
            "query": query,
            "mode": a.mode.as_str(),
            "hits": hits,
        }));
    }
    let mut lines = Vec::with_capacity(hits.len() + 1);
    if a.batch.is_some() {
        lines.push(format!("# {}", output::sanitize(query)));
    }
    for h in hits {
        let rank = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
        lines.push(format!(
            "{} {}  {}  {:.4} (text {}, semantic {})",
            output::paint(&format!("{:<11}", h.kind), "36", color),
            output::paint(&output::sanitize(&h.id), "1", color),
            output::paint(
                &format!(
                    "{}:{}-{}",
                    output::sanitize(&h.path),
                    h.start_line,
                    h.end_line
                ),
                "2",
                color
            ),
            h.score,
            rank(h.text_rank),
            rank(h.semantic_rank)
        ));
    }
    output::print_lines(&lines)
}
