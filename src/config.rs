//! `config.toml` in the user config dir (from `directories`), then environment overrides.
//!
//! Keys (all optional):
//! ```toml
//! ignore_globs = ["generated/", "*.pb.go"]   # gitignore syntax, added to the defaults
//! max_file_bytes = 1048576                   # per-file cap; larger files are skipped
//! threads = 0                                # 0 = one per core; at most 4 per core
//! window_lines = 40                          # line-window chunk size
//! window_step = 30                           # line-window step (overlap = lines - step)
//! theme = "dark"                             # TUI theme: dark, light, gruvbox or a file
//!                                            # <config dir>/themes/<name>.toml
//! tree_expand_depth = 3                      # TUI: levels `*` expands (1-9)
//! clipboard_osc52 = false                    # TUI: `y`/`Y` also copy with OSC 52
//! search_index = "auto"                      # what `index` builds for search: off, text,
//!                                            # auto (text; vectors up to 150k chunks), all
//! [embedding]                                # optional: an OpenAI-compatible endpoint
//! base_url = "http://127.0.0.1:11434/v1"     # switches semantic search to it
//! model = "nomic-embed-text"
//! ```
//! Environment: `CODEGRAPH_CONFIG` (path of the file), `CODEGRAPH_IGNORE_GLOBS` (comma or
//! newline separated, added to the file's), `CODEGRAPH_MAX_FILE_BYTES`, `CODEGRAPH_THREADS`,
//! `CODEGRAPH_THEME`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::index::search::embed::openai::OpenAiConfig;
use crate::index::IndexOptions;

/// The parsed configuration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Extra ignore globs (gitignore syntax).
    pub ignore_globs: Vec<String>,
    /// Per-file byte cap.
    pub max_file_bytes: Option<u64>,
    /// Worker threads (0 = one per core; at most 4 per core are started).
    pub threads: Option<usize>,
    /// Lines per window chunk.
    pub window_lines: Option<u32>,
    /// Lines between window starts.
    pub window_step: Option<u32>,
    /// OpenAI-compatible embedding endpoint (`[embedding]` table: `base_url`, `model`,
    /// `dimensions`, `timeout_secs`, `max_retries`, `max_input_chars`, `batch_size`,
    /// `backoff_ms`, `query_prefix`, `passage_prefix`, `input_type`); the API key comes
    /// only from `OPENAI_API_KEY`.
    pub embedding: Option<OpenAiConfig>,
    /// TUI colour theme name.
    pub theme: Option<String>,
    /// Levels the TUI's `*` expands a call-tree node without a count (1-9; default 3).
    pub tree_expand_depth: Option<u32>,
    /// The TUI's `y`/`Y` also set the terminal's clipboard with an OSC 52 sequence
    /// (default false: the copy is only shown in the status bar).
    pub clipboard_osc52: Option<bool>,
    /// Which search indexes `index` builds after the graph: `off`, `text`, `auto`
    /// (default: the text index, and the vectors with the built-in embedder up to
    /// 150,000 chunks) or `all` ([`crate::index::search::Prebuild`]).
    pub search_index: Option<crate::index::search::Prebuild>,
}

fn dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "codegraph-tui")
}

/// Path of the config file: `CODEGRAPH_CONFIG`, else `<config dir>/config.toml`.
pub fn config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CODEGRAPH_CONFIG") {
        return Some(PathBuf::from(p));
    }
    dirs().map(|d| d.config_dir().join("config.toml"))
}

/// Directory for log files: the state dir where the platform has one, else the cache dir.
pub fn log_dir() -> Option<PathBuf> {
    let d = dirs()?;
    Some(d.state_dir().unwrap_or(d.cache_dir()).join("logs"))
}

/// Where the TUI's `x` writes exports by default: `<data dir>/exports` (on Linux
/// `$XDG_DATA_HOME/codegraph-tui/exports`, else `~/.local/share/codegraph-tui/exports`).
/// Outside every repository, so an export is never walked, watched and indexed as part of
/// the repository it describes; not the cache folder, which `index --rebuild` deletes.
pub fn export_dir() -> Option<PathBuf> {
    dirs().map(|d| d.data_dir().join("exports"))
}

/// The cache folder of one repository (`docs/contracts.md#cache-layout`):
/// `<cache dir>/<repo name>-<first 16 hex of BLAKE3(canonical root)>`.
pub fn cache_dir(root: &Path) -> Option<PathBuf> {
    let d = dirs()?;
    let name = root.file_name().and_then(|n| n.to_str()).unwrap_or("root");
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let hash = blake3::hash(root.to_string_lossy().as_bytes()).to_hex();
    Some(d.cache_dir().join(format!("{safe}-{}", &hash[..16])))
}

impl Config {
    /// Loads the file (a missing file is an empty config) and applies the environment.
    ///
    /// Errors: an unreadable or malformed file, or a malformed number in the environment,
    /// with the path or variable named.
    pub fn load() -> Result<Config> {
        let mut c = match config_path() {
            Some(p) if p.exists() => {
                let text = std::fs::read_to_string(&p)
                    .with_context(|| format!("reading {}", p.display()))?;
                toml::from_str(&text).with_context(|| format!("parsing {}", p.display()))?
            }
            _ => Config::default(),
        };
        if let Ok(v) = std::env::var("CODEGRAPH_IGNORE_GLOBS") {
            c.ignore_globs.extend(
                v.split([',', '\n'])
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
        }
        if let Ok(v) = std::env::var("CODEGRAPH_MAX_FILE_BYTES") {
            c.max_file_bytes = Some(
                v.trim()
                    .parse()
                    .context("CODEGRAPH_MAX_FILE_BYTES must be a number of bytes")?,
            );
        }
        if let Ok(v) = std::env::var("CODEGRAPH_THEME") {
            if !v.trim().is_empty() {
                c.theme = Some(v.trim().to_string());
            }
        }
        if let Ok(v) = std::env::var("CODEGRAPH_THREADS") {
            c.threads = Some(
                v.trim()
                    .parse()
                    .context("CODEGRAPH_THREADS must be a number")?,
            );
        }
        Ok(c)
    }

    /// The engine options this config gives.
    pub fn index_options(&self) -> IndexOptions {
        let mut o = IndexOptions::default();
        o.walk.ignore_globs = self.ignore_globs.clone();
        if let Some(m) = self.max_file_bytes {
            o.caps.max_file_bytes = m;
        }
        o.threads = self.threads.unwrap_or(0);
        if let Some(w) = self.window_lines {
            o.chunking.window_lines = w.max(1);
        }
        if let Some(s) = self.window_step {
            o.chunking.window_step = s.max(1);
        }
        o
    }
}
