//! The command line (`docs/contracts.md#command-line`): clap definitions and dispatch, one file per
//! subcommand. Every subcommand runs the same engine calls as the TUI; `--json` output is
//! the only thing written to stdout, and text output is sanitized (control characters from
//! source files are shown escaped, never sent to the terminal).

mod dead;
mod export;
mod generate;
mod impact;
mod index_cmd;
mod mcp;
mod output;
mod path;
mod progress;
mod search;
mod symbols;
mod tui_launch;
mod walk;
mod watch;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use std::io::IsTerminal;

use crate::config::{self, Config};
use crate::index::session::Session;
use crate::index::{self, CodeGraph, Index};

/// When to use colour in text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// codegraph-tui: understand a repository's code structure: symbols, callers, callees.
#[derive(Debug, Parser)]
#[command(name = "codegraph-tui", version, about, long_about = None)]
pub struct Cli {
    /// Repository root (default: the enclosing git root, else the current directory).
    #[arg(short = 'C', long = "repo", global = true, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// Index in memory only: read no cache and write none.
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// TUI and `mcp`: do not watch the repository for changes (the TUI's r reconciles on
    /// demand).
    #[arg(long, global = true)]
    pub no_watch: bool,
    /// Colour in text output.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// More detail in the log file (repeat for trace).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Subcommand; without one the TUI opens.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Repository to open in the TUI.
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build the index and print its counts.
    Index(index_cmd::IndexArgs),
    /// Print the whole canonical graph.
    Graph {
        /// Print JSON (the only format so far).
        #[arg(long)]
        json: bool,
    },
    /// Fuzzy search for symbols by name or qualified name.
    Symbols(symbols::SymbolsArgs),
    /// Full-text, semantic or hybrid search over code chunks.
    Search(search::SearchArgs),
    /// Who calls SYMBOL (transitively, up to --depth).
    Callers(walk::WalkArgs),
    /// What SYMBOL calls (transitively, up to --depth).
    Callees(walk::WalkArgs),
    /// What a change to SYMBOL (or, with --diff, to the working tree) would impact:
    /// callers by depth, files, tests, entry points, risk.
    Impact(impact::ImpactArgs),
    /// Dead-code candidates: definitions with no callers or references that are no entry
    /// point, public API or test (a lower bound where unresolved calls of the name exist).
    Dead(dead::DeadArgs),
    /// The shortest call paths from FROM to TO.
    Path(path::PathArgs),
    /// Write the subgraph around SYMBOL as JSON, DOT, GraphML or Mermaid.
    Export(export::ExportArgs),
    /// Serve the repository to coding agents over MCP (Model Context Protocol) on stdio.
    Mcp(mcp::McpArgs),
    /// Print the completion script for SHELL on stdout (needs no repository).
    Completions(generate::CompletionsArgs),
    /// Print the man page (roff) on stdout, or COMMAND's page (needs no repository).
    Man(generate::ManArgs),
}

impl Cli {
    /// `index --parse-only` (without `--arena`): the benchmark's bare tree-sitter parse,
    /// which must run tree-sitter as a plain user would (its default allocator; see
    /// `index::arena`).
    pub fn bare_parse(&self) -> bool {
        matches!(&self.command, Some(Command::Index(a)) if a.parse_only && !a.arena)
    }

    /// `completions` or `man`: output generated from these definitions alone, which reads
    /// no repository, config or cache and writes no log.
    pub fn generates(&self) -> bool {
        matches!(
            &self.command,
            Some(Command::Completions(_) | Command::Man(_))
        )
    }
}

/// Runs the parsed command line; returns the process exit code.
///
/// Errors: anything that should end the process with a message on stderr.
pub fn run(cli: Cli) -> Result<i32> {
    let json = match &cli.command {
        Some(Command::Callers(a) | Command::Callees(a)) => a.json,
        Some(Command::Impact(a)) => a.json,
        Some(Command::Dead(a)) => a.json,
        Some(Command::Path(a)) => a.json,
        Some(Command::Search(a)) => a.json,
        Some(Command::Symbols(a)) => a.json,
        Some(Command::Index(a)) => a.json,
        Some(Command::Graph { .. }) => true,
        _ => false,
    };
    let r = run_command(&cli);
    // With --json an error is also an object on stdout, so scripts need not parse
    // stderr; the exit status stays 2. A SYMBOL that names no node or several gives
    // `{"error": {"symbol", "reason", "candidates", "similar", "message"}}`, any other
    // error `{"error": {"message"}}`.
    if let (true, Err(e)) = (json, &r) {
        let v = match e.downcast_ref::<walk::SymbolError>() {
            Some(se) => {
                let mut v = serde_json::to_value(se)?;
                v["message"] = serde_json::Value::String(se.to_string());
                v
            }
            None => serde_json::json!({ "message": format!("{e:#}") }),
        };
        output::print_json(&serde_json::json!({ "error": v }))?;
    }
    r
}

fn run_command(cli: &Cli) -> Result<i32> {
    match &cli.command {
        Some(Command::Completions(a)) => return generate::completions(a),
        Some(Command::Man(a)) => return generate::man(a),
        _ => {}
    }
    let root = repo_root(cli.repo.as_deref().or(cli.path.as_deref()))?;
    if let (Some(_), Some(p)) = (&cli.repo, &cli.path) {
        path_root(cli, &root, p)?;
    }
    let config = Config::load()?;
    match &cli.command {
        None => tui_launch::run(cli, &root, &config),
        Some(Command::Index(a)) => index_cmd::run(cli, a, &root, &config),
        Some(Command::Graph { json: _ }) => {
            let graph = build(cli, &root, &config, false)?;
            output::print_json(&graph.to_canonical_json())?;
            Ok(0)
        }
        Some(Command::Symbols(a)) => symbols::run(
            a,
            build(cli, &root, &config, false)?,
            output::use_color(cli.color),
        ),
        Some(Command::Callers(a)) => walk::run(
            a,
            build(cli, &root, &config, false)?,
            index::Walk::Callers,
            output::use_color(cli.color),
        ),
        Some(Command::Callees(a)) => walk::run(
            a,
            build(cli, &root, &config, false)?,
            index::Walk::Callees,
            output::use_color(cli.color),
        ),
        Some(Command::Search(a)) => search::run(cli, a, &root, &config),
        Some(Command::Impact(a)) => impact::run(
            a,
            build(cli, &root, &config, false)?,
            &root,
            output::use_color(cli.color),
        ),
        Some(Command::Dead(a)) => dead::run(
            a,
            build(cli, &root, &config, false)?,
            &root,
            output::use_color(cli.color),
        ),
        Some(Command::Path(a)) => path::run(a, build(cli, &root, &config, false)?),
        Some(Command::Export(a)) => export::run(a, build(cli, &root, &config, false)?),
        Some(Command::Mcp(a)) => mcp::run(cli, a, &root, &config),
        Some(Command::Completions(_) | Command::Man(_)) => {
            unreachable!("served before the repository is looked up")
        }
    }
}

/// Parses a count that must be at least 1 (`--limit`): `--limit 0` would print nothing
/// and exit as if nothing matched, which hides the mistake.
///
/// Errors: not a number, or 0.
pub fn positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The root a command's PATH argument names: `root` (what `-C` named) when both name the
/// same directory.
///
/// Errors: PATH is not a readable directory ([`repo_root`]), or `-C` was given and names
/// another one.
pub(super) fn path_root(cli: &Cli, root: &Path, path: &Path) -> Result<PathBuf> {
    let path = repo_root(Some(path))?;
    if cli.repo.is_some() && path != root {
        bail!(
            "-C names {} but PATH names {}: give one of them",
            root.display(),
            path.display()
        );
    }
    Ok(path)
}

/// The repository root: the given path, else the enclosing git root of the current
/// directory, else the current directory.
///
/// Errors: the path does not exist, is not a directory or cannot be listed.
pub fn repo_root(given: Option<&Path>) -> Result<PathBuf> {
    let start = match given {
        Some(p) => p.to_path_buf(),
        None => std::env::current_dir().context("reading the current directory")?,
    };
    let start = start
        .canonicalize()
        .with_context(|| format!("{} does not exist", start.display()))?;
    if !start.is_dir() {
        bail!("{} is not a directory", start.display());
    }
    // A directory that cannot be listed would index as an empty repository.
    std::fs::read_dir(&start).with_context(|| format!("{} cannot be listed", start.display()))?;
    if given.is_some() {
        return Ok(start);
    }
    let mut cur = start.as_path();
    loop {
        if cur.join(".git").exists() {
            return Ok(cur.to_path_buf());
        }
        match cur.parent() {
            Some(p) => cur = p,
            None => return Ok(start),
        }
    }
}

/// The graph of `root`, always in step with the disk: when the cached snapshot is of the
/// tree as it is, its graph alone (the facts behind it are not decoded, see
/// [`Session::load_graph`]); else the snapshot reconciled with the files (or a fresh
/// index, saved for next time), drawing a progress bar on stderr when it is a terminal
/// and `quiet` is false.
///
/// The graph is leaked on purpose: the process ends right after the command, and freeing
/// a large graph piece by piece took a fifth of a warm run on the Rust corpus.
pub(crate) fn build(
    cli: &Cli,
    root: &Path,
    config: &Config,
    quiet: bool,
) -> Result<&'static CodeGraph> {
    // A graph command does not wait for the lock a running TUI or watcher holds.
    let mut session = Session::open_for_command(session_dir(cli, root).as_deref());
    if let Some(first) = session.load_graph(root, &config.index_options()) {
        return Ok(Box::leak(Box::new(first.graph)));
    }
    let idx = open_index_in(&mut session, root, config, quiet)?;
    Ok(&Box::leak(Box::new(idx)).graph)
}

/// As [`build`], also returning the [`Session`] (what the cache did, where search indexes
/// may be written).
pub(crate) fn open_index(
    cli: &Cli,
    root: &Path,
    config: &Config,
    quiet: bool,
) -> Result<(Index, Session)> {
    let mut session = open_session(cli, root);
    let idx = open_index_in(&mut session, root, config, quiet)?;
    Ok((idx, session))
}

/// The cache session of `root` (in memory with `--no-cache`).
pub(crate) fn open_session(cli: &Cli, root: &Path) -> Session {
    Session::open(session_dir(cli, root).as_deref())
}

/// The cache folder of `root`, `None` with `--no-cache`.
pub(crate) fn session_dir(cli: &Cli, root: &Path) -> Option<std::path::PathBuf> {
    if cli.no_cache {
        None
    } else {
        config::cache_dir(root)
    }
}

/// [`open_index`] with a session already open.
pub(crate) fn open_index_in(
    session: &mut Session,
    root: &Path,
    config: &Config,
    quiet: bool,
) -> Result<Index> {
    let mut opts = config.index_options();
    let prev = session.load(root, &opts);
    if let Some(reason) = &session.report.reason {
        if !quiet && std::io::stderr().is_terminal() {
            eprintln!("codegraph-tui: {}", output::sanitize(reason));
        }
    }
    let bar = (!quiet).then(progress::Bar::start).flatten();
    if let Some(b) = &bar {
        opts.progress = Some(b.counters());
    }
    let fresh = session.refresh(root, &opts, prev.as_ref());
    drop(bar);
    let idx = match (fresh?, prev) {
        (Some((idx, _)), _) => idx,
        (None, Some(prev)) => prev,
        (None, None) => unreachable!("a refresh without a previous index always indexes"),
    };
    Ok(idx)
}
