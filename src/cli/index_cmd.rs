//! `codegraph-tui index [PATH] [--json]`: build the index and print its counts.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::{output, Cli};
use crate::config::{self, Config};
use crate::index::{self, IndexStats};

/// Arguments of `index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Repository root (same as -C).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Print `{"root", "cache_dir", "stats"}` as JSON.
    #[arg(long)]
    pub json: bool,
    /// Benchmark baseline: walk, read and parse with tree-sitter only (no extraction).
    #[arg(long, hide = true)]
    pub parse_only: bool,
}

pub(super) fn run(cli: &Cli, a: &IndexArgs, root: &Path, config: &Config) -> Result<i32> {
    let root = match &a.path {
        Some(p) => super::repo_root(Some(p))?,
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
    let idx = super::build(&root, config, false)?;
    let cache_dir = if cli.no_cache {
        None
    } else {
        config::cache_dir(&root)
    };
    if a.json {
        output::print_json(&serde_json::json!({
            "root": root,
            "cache_dir": cache_dir,
            "stats": idx.stats,
        }))?;
    } else {
        output::print_lines(&summary(&root, &idx.stats))?;
    }
    Ok(0)
}

fn summary(root: &Path, s: &IndexStats) -> Vec<String> {
    let join = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
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
