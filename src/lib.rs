//! codegraph-tui: a code-structure browser for any repository.
//!
//! Module map (the data flow is in `docs/ARCHITECTURE.md`, the contracts other programs
//! rely on in `docs/contracts.md`):
//! * [`index`]: the engine. Reads sources, parses each file once with tree-sitter,
//!   extracts definitions, call sites, imports and chunks ([`index::facts::FileFacts`]),
//!   resolves calls across files and builds the [`index::graph::CodeGraph`]. No terminal code.
//! * [`cli`]: the command-line front end (clap), one file per subcommand.
//! * [`termtext`]: terminal-safe text (control characters escaped), for both front ends.
//! * [`config`]: `config.toml` in the user config dir plus environment overrides.
//! * [`worker`]: the background thread that owns indexing and publishes snapshots.
//! * [`tui`]: the terminal UI (ratatui), a front end over the worker's snapshots.
//! * [`mcp`]: `codegraph-tui mcp`, a Model Context Protocol server over the worker's
//!   snapshots, for coding agents.
//! * `fuzzing` (hidden): the fuzz targets' entry points, shared with their regression
//!   tests (`fuzz/README.md`).
#![warn(missing_docs)]

pub mod cli;
pub mod config;
pub mod fatal;
#[doc(hidden)]
pub mod fuzzing;
pub mod index;
pub mod mcp;
pub mod termtext;
pub mod tui;
pub mod worker;

/// The instant of the first call, which `main` makes before anything else: what start-up
/// times (the TUI's "first frame" and "snapshot drawn" log lines) are measured from.
pub fn started() -> std::time::Instant {
    static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *STARTED.get_or_init(std::time::Instant::now)
}
