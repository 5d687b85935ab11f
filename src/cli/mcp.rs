//! `codegraph-tui mcp [PATH]`: serve the repository to coding agents over the Model
//! Context Protocol on stdio (`docs/contracts.md#mcp`). This file only turns the command
//! line into [`crate::mcp::McpOptions`]; the server is [`crate::mcp`].

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::Cli;
use crate::config::Config;

/// Arguments of `mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Repository to serve (default: the enclosing git root, else the current directory).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
}

/// Runs the server until stdin closes or SIGTERM; exit status 0.
///
/// Errors: PATH is not a readable directory, or the server cannot start.
pub(super) fn run(cli: &Cli, a: &McpArgs, root: &Path, config: &Config) -> Result<i32> {
    let root = match &a.path {
        Some(p) => super::path_root(cli, root, p)?,
        None => root.to_path_buf(),
    };
    crate::mcp::serve(crate::mcp::McpOptions {
        root: root.clone(),
        index: config.index_options(),
        setup: crate::worker::Setup {
            cache_dir: if cli.no_cache {
                None
            } else {
                crate::config::cache_dir(&root)
            },
            watch: !cli.no_watch,
        },
        embedding: config.embedding.clone(),
    })?;
    Ok(0)
}
