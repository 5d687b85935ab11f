//! `codegraph-tui [PATH]` with no subcommand: picks the theme (`--color never` and
//! `NO_COLOR` give monochrome) and starts the terminal UI on the repository.

use std::path::Path;

use anyhow::Result;

use super::{Cli, ColorChoice};
use crate::config::Config;
use crate::tui::{self, Theme, TuiOptions};

/// Runs the TUI; returns the exit code.
///
/// Errors: an unknown or malformed theme, no terminal, or terminal setup failure.
pub(super) fn run(cli: &Cli, root: &Path, config: &Config) -> Result<i32> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let theme = match cli.color {
        ColorChoice::Never => Theme::monochrome(),
        ColorChoice::Auto if no_color => Theme::monochrome(),
        _ => {
            let dir = crate::config::config_path().and_then(|p| p.parent().map(Path::to_path_buf));
            Theme::load(config.theme.as_deref().unwrap_or("dark"), dir.as_deref())?
        }
    };
    let code = tui::run(TuiOptions {
        root: root.to_path_buf(),
        index: config.index_options(),
        theme,
        settings: settings(config),
        setup: crate::worker::Setup {
            cache_dir: if cli.no_cache {
                None
            } else {
                crate::config::cache_dir(root)
            },
            watch: !cli.no_watch,
        },
    })?;
    Ok(code)
}

/// The TUI settings of `config`; `tree_expand_depth` is clamped to 1-9 (a count key goes
/// no higher).
fn settings(config: &Config) -> tui::app::Settings {
    let d = tui::app::Settings::default();
    tui::app::Settings {
        expand_depth: config
            .tree_expand_depth
            .map_or(d.expand_depth, |n| n.clamp(1, 9)),
        osc52: config.clipboard_osc52.unwrap_or(d.osc52),
        search_prebuild: config.search_index.unwrap_or(d.search_prebuild),
    }
}
