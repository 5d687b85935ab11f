//! `codegraph-tui index [PATH] [--json] [--rebuild] [--watch] [--search WHAT]`: build (or
//! bring up to date) the index and the search indexes and print their counts; with
//! `--watch`, keep the index up to date and print one line per update.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;

use super::progress;
use super::watch;
use super::{output, Cli};
use crate::config::Config;
use crate::index::search::{
    prebuild, vectors_skipped, Mode, Prebuild, PrebuildReport, SavedSearch, TextIndex,
};
use crate::index::session::Session;
use crate::index::{self, IndexStats};

/// Arguments of `index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Repository root (same as -C).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Print `{"root", "cache_dir", "cache", "stats"}` as JSON.
    #[arg(long)]
    pub json: bool,
    /// Discard the cached index of this repository and index from scratch.
    #[arg(long)]
    pub rebuild: bool,
    /// Keep watching the repository: one line (or, with --json, one JSON object) per
    /// update, until interrupted.
    #[arg(long)]
    pub watch: bool,
    /// Search indexes to build after the graph, so the first search does not wait:
    /// `off`, `text`, `auto` (the text index, and the vectors with the built-in embedder
    /// up to 150,000 chunks) or `all`. Default: the config's `search_index`, else auto.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub search: Option<Prebuild>,
    /// Benchmark baseline: walk, read and parse with tree-sitter only (no extraction).
    #[arg(long, hide = true)]
    pub parse_only: bool,
    /// With --parse-only: parse with the allocation arena `index` uses (`index::arena`),
    /// not tree-sitter's default allocator.
    #[arg(long, hide = true, requires = "parse_only")]
    pub arena: bool,
}

pub(super) fn run(cli: &Cli, a: &IndexArgs, root: &Path, config: &Config) -> Result<i32> {
    let root = match &a.path {
        Some(p) => super::path_root(cli, root, p)?,
        None => root.to_path_buf(),
    };
    if a.parse_only {
        let t = std::time::Instant::now();
        let (files, bytes) = index::parse_only(&root, &config.index_options())?;
        let ms = t.elapsed().as_millis();
        output::print_json(
            &serde_json::json!({"files_parsed": files, "bytes": bytes, "elapsed_ms": ms}),
        )?;
        return Ok(0);
    }
    let what = a.search.or(config.search_index).unwrap_or_default();
    let mut session = super::open_session(cli, &root);
    if a.rebuild {
        session.clear().context("discarding the cache")?;
    } else if !a.watch {
        // Nothing changed: the counts are the manifest's, the snapshot is checked but not
        // decoded (0.14 s instead of about 1 s on a tree of 1.17M definitions). The text
        // index is checked the way a warm search opens it (metadata and checksums).
        if let Some(stats) = session.unchanged_stats(&root, &config.index_options()) {
            if search_indexes_current(&session, what, stats.chunks, config) {
                print(a, &root, &stats, &session, None)?;
                return Ok(0);
            }
        }
    }
    let idx = super::open_index_in(&mut session, &root, config, a.json)?;
    let search = build_search(&idx, &session, what, config, a.json);
    print(a, &root, &idx.stats, &session, search.as_ref())?;
    if a.watch {
        return watch::run(&root, config, idx, session, a.json);
    }
    // The process ends now: freeing a large index piece by piece is wasted time.
    std::mem::forget(idx);
    Ok(0)
}

/// `true` when `index` has nothing to build for search: `what` is off, the cache is not
/// this instance's to write, or the saved indexes `what` asks for of a tree of `chunks`
/// chunks hold the live snapshot's: the text index, and the chunk table with its embedder
/// when the vectors are not skipped ([`vectors_skipped`]; a malformed embedding setting
/// counts as not current, so the build says what is wrong).
fn search_indexes_current(session: &Session, what: Prebuild, chunks: u64, config: &Config) -> bool {
    let (Some(dir), Some(digest)) = (session.writable_dir(), session.snapshot()) else {
        return true;
    };
    if what == Prebuild::Off {
        return true;
    }
    if TextIndex::open_for_snapshot(&dir.join("text"), digest).is_none() {
        return false;
    }
    let openai = config.embedding.clone();
    match vectors_skipped(what, chunks as usize, openai.clone()) {
        Ok(Some(_)) => true,
        Ok(None) => SavedSearch::open(dir, digest, Mode::Semantic, openai).is_some(),
        Err(_) => false,
    }
}

/// Builds the search indexes `what` asks for into the cache, with a bar on stderr when it
/// is a terminal and `quiet` is false. A failure is said on stderr and leaves the graph
/// (already saved) and the previous search indexes as they were: `None`. `None` too when
/// the cache is off or read-only (another instance writes it).
fn build_search(
    idx: &index::Index,
    session: &Session,
    what: Prebuild,
    config: &Config,
    quiet: bool,
) -> Option<PrebuildReport> {
    let dir = session.writable_dir()?;
    let bar = if quiet {
        None
    } else {
        progress::Bar::start_as("text index", "chunks", "text index: reading chunks…")
    };
    let counters = bar.as_ref().map(|b| b.counters());
    let r = prebuild(
        idx,
        session.snapshot(),
        dir,
        what,
        config.embedding.clone(),
        counters.as_deref(),
    );
    drop(bar);
    match r {
        Ok(r) => Some(r),
        Err(e) => {
            eprintln!(
                "codegraph-tui: the search index was not built (the first search builds it): {}",
                output::sanitize(&format!("{e:#}"))
            );
            None
        }
    }
}

/// Prints the answer of `index`: `{"root", "cache_dir", "cache", "stats", "search"}` with
/// `--json` (`search`: what was built for search, null when nothing was), else the
/// summary lines, the cache line and the search line.
fn print(
    a: &IndexArgs,
    root: &Path,
    stats: &IndexStats,
    session: &Session,
    search: Option<&PrebuildReport>,
) -> Result<()> {
    if a.json {
        output::print_json(&serde_json::json!({
            "root": root,
            "cache_dir": session.report.dir,
            "cache": session.report,
            "stats": stats,
            "search": search,
        }))
    } else {
        let mut lines = summary(root, stats);
        lines.push(cache_line(session));
        if let Some(s) = search {
            lines.push(search_line(s));
        }
        output::print_lines(&lines)
    }
}

/// `search: text index built (48723 chunks, 1234 ms); vectors built (48723 embedded,
/// 2345 ms)`.
fn search_line(s: &PrebuildReport) -> String {
    let vectors = if s.vectors.starts_with("skipped") {
        format!("vectors {}", s.vectors)
    } else {
        format!(
            "vectors {} ({} embedded, {} ms)",
            s.vectors, s.vectors_embedded, s.vectors_ms
        )
    };
    if s.text == "skipped" {
        // `--search off` (or `search_index = "off"`): nothing was read or counted.
        return "search: not built (search index off)".to_string();
    }
    format!(
        "search: text index {} ({} chunks, {} ms); {vectors}",
        s.text, s.chunks, s.text_ms
    )
}

fn cache_line(session: &Session) -> String {
    let r = &session.report;
    let mut s = match &r.dir {
        None => "cache: off (in memory)".to_string(),
        Some(d) => format!(
            "cache: {} ({}, {:.1} MB{})",
            output::sanitize(&d.display().to_string()),
            serde_json::to_value(r.state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            session.size_bytes() as f64 / 1e6,
            if r.read_only {
                ", read-only: another instance holds the lock"
            } else {
                ""
            },
        ),
    };
    if let Some(reason) = &r.reason {
        s.push_str(&format!("; {}", output::sanitize(reason)));
    }
    s
}

fn summary(root: &Path, s: &IndexStats) -> Vec<String> {
    let join = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let join = |m| match join(m) {
        j if j.is_empty() => "none".to_string(),
        j => j,
    };
    let skipped = s.files_skipped_binary
        + s.files_skipped_too_large
        + s.files_skipped_unsupported
        + s.files_skipped_unreadable
        + s.files_skipped_symlink
        + s.files_skipped_special;
    vec![
        format!("indexed {}", output::sanitize(&root.display().to_string())),
        format!(
            "files: {} parsed, {} windowed, {} with parse errors, {} skipped (binary {}, too large {}, unsupported {}, unreadable {}, symlink {}, special {}), {} paths ignored",
            s.files_indexed,
            s.files_windowed,
            s.files_with_parse_errors,
            skipped,
            s.files_skipped_binary,
            s.files_skipped_too_large,
            s.files_skipped_unsupported,
            s.files_skipped_unreadable,
            s.files_skipped_symlink,
            s.files_skipped_special,
            s.paths_ignored
        ),
        format!("languages: {}", join(&s.languages)),
        format!("definitions {}, call sites {}, imports {}, chunks {}", s.definitions, s.call_sites, s.imports, s.chunks),
        format!("edges: {}", join(&s.edges)),
        format!("unresolved: {}", join(&s.unresolved)),
        format!("time (ms): {}", join(&s.elapsed_ms)),
    ]
}
