//! `completions` and `man`: text generated from the clap definitions of [`super::Cli`],
//! as ripgrep and bat ship theirs, so a package or a user's shell set-up never falls out
//! of step with the options. Its own module because, unlike every other subcommand, these
//! need no repository, config, index or cache: they only print.

use anyhow::{bail, Result};
use clap::{Args, CommandFactory};

use super::{output, Cli};

/// `completions SHELL`: the completion script for SHELL on stdout.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// `man [COMMAND]`: a man page (roff) on stdout.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (`callers` prints codegraph-tui-callers(1));
    /// without it, the main page codegraph-tui(1), which lists the subcommands.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Prints the completion script of `a.shell` for the `codegraph-tui` binary.
///
/// Errors: writing stdout failed (a closed pipe is not an error).
pub fn completions(a: &CompletionsArgs) -> Result<i32> {
    let mut cmd = Cli::command();
    let name = cmd.get_name().to_string();
    // Into a buffer first: clap_complete panics when its writer fails (`| head`).
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, name, &mut script);
    output::print_bytes(&script)?;
    Ok(0)
}

/// Prints the man page of the binary, or of subcommand `a.command`.
///
/// Errors: `a.command` names no subcommand; writing stdout failed (a closed pipe is not an
/// error).
pub fn man(a: &ManArgs) -> Result<i32> {
    // clap's implicit `help` subcommand is no page of its own (`--help` is listed under
    // every page's options).
    let mut cmd = Cli::command().disable_help_subcommand(true);
    // Gives each subcommand its page name (`codegraph-tui-callers`) and the usage line
    // of its synopsis (`codegraph-tui callers`).
    cmd.build();
    let page = match &a.command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
                bail!("no subcommand {name:?}: give one of {}", names.join(", "));
            }
        },
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff)?;
    output::print_bytes(&roff)?;
    Ok(0)
}
