//! `codegraph-tui export SYMBOL [--direction callers|callees|both] [--depth N]
//! [--format json|dot|graphml|mermaid] [-o FILE] [--force]`.
//!
//! Writes the subgraph of [`crate::index::CodeGraph::walk`] in one of the formats of
//! [`crate::index::export`]. Without `-o` (or with `-o -`) it goes to standard output.
//! An existing file is never overwritten unless `--force` is given; a forced write goes
//! to a temporary file beside the target first and is renamed over it, so a reader never
//! sees half a file.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use super::walk;
use crate::index::export::{self, Format};
use crate::index::{CodeGraph, Walk};

/// Which way to walk from SYMBOL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DirectionArg {
    /// Who calls SYMBOL.
    Callers,
    /// What SYMBOL calls.
    Callees,
    /// Both.
    Both,
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Subgraph JSON (`codegraph-tui/subgraph@1`, assets/subgraph.schema.json).
    Json,
    /// Graphviz DOT.
    Dot,
    /// GraphML (XML).
    Graphml,
    /// Mermaid `graph LR`.
    Mermaid,
}

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Node id, qualified name or bare name (exactly one match).
    pub symbol: String,
    /// Which edges to follow from SYMBOL.
    #[arg(long, value_enum, default_value_t = DirectionArg::Both)]
    pub direction: DirectionArg,
    /// Hops to follow (1 = direct only).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub depth: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Json)]
    pub format: FormatArg,
    /// Write to FILE instead of standard output (`-` is standard output).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite FILE if it exists.
    #[arg(long)]
    pub force: bool,
}

pub(super) fn run(a: &ExportArgs, graph: &CodeGraph) -> Result<i32> {
    let node = walk::pick(graph, &a.symbol)?;
    let w = match a.direction {
        DirectionArg::Callers => Walk::Callers,
        DirectionArg::Callees => Walk::Callees,
        DirectionArg::Both => Walk::Both,
    };
    let format = match a.format {
        FormatArg::Json => Format::Json,
        FormatArg::Dot => Format::Dot,
        FormatArg::Graphml => Format::Graphml,
        FormatArg::Mermaid => Format::Mermaid,
    };
    let Some(sub) = graph.walk(&node.id, w, a.depth) else {
        bail!("{} vanished from the graph", node.id);
    };
    let text = export::render(&sub, format);
    match a.output.as_deref() {
        None => stdout(&text)?,
        Some(p) if p == Path::new("-") => stdout(&text)?,
        Some(p) => write_file(p, text.as_bytes(), a.force)?,
    }
    Ok(0)
}

fn stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// Creates `path` with `bytes`. Without `force` an existing path is an error (checked
/// atomically with `create_new`); with it, a temporary sibling is renamed over the path.
///
/// Errors: the file exists (no `force`); with `force`, the path is a directory or not a
/// regular file (a symlink, device or pipe is never replaced); any I/O error, with the path.
pub fn write_file(path: &Path, bytes: &[u8], force: bool) -> Result<()> {
    if !force {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path);
        let mut f = match f {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                bail!("{} exists; pass --force to overwrite it", path.display())
            }
            r => r.with_context(|| format!("creating {}", path.display()))?,
        };
        f.write_all(bytes)
            .with_context(|| format!("writing {}", path.display()))?;
        return Ok(());
    }
    // Renaming over a symlink, device or pipe would replace it (`/dev/stdout`, a link the
    // user meant to write through): only a regular file is replaced.
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.is_dir() {
            bail!("{} is a directory", path.display());
        }
        if !meta.is_file() {
            bail!(
                "{} is not a regular file (a symlink, device or pipe); --force replaces only regular files",
                path.display()
            );
        }
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".into());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("replacing {}", path.display())
    })?;
    Ok(())
}
