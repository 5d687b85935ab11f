//! Entry point: parse the command line, set up file logging, dispatch. No logic here.

use clap::Parser;

/// mimalloc instead of the system allocator, without transparent huge pages (`no_thp`).
/// On the fetch.sh Rust tree (`/usr/bin/time`, 2 threads): a cold `index` took 30.0 CPU
/// seconds with glibc's malloc, 30.2 with mimalloc on huge pages (3.4 s of it in the kernel,
/// zeroing huge pages) and 27.3 with mimalloc on 4 KiB pages; a warm `symbols` query (the
/// snapshot decoded into 1.1 GB of heap) 1.29 s, 0.86 s and 1.06 s.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use codegraph_tui::cli::{self, Cli};
use codegraph_tui::termtext::sanitize;

fn main() {
    codegraph_tui::started();
    // Without it a cache file truncated under us ends the process mid-screen.
    let _ = codegraph_tui::fatal::install();
    codegraph_tui::fatal::install_panic_hook();
    let cli = Cli::parse();
    // Before any thread uses tree-sitter. The benchmark's bare parse keeps tree-sitter's
    // default allocator.
    if !cli.bare_parse() {
        codegraph_tui::index::arena::install();
    }
    // A completion script is printed by every shell start-up that sources it: no log.
    let guard = if cli.generates() {
        None
    } else {
        init_logging(cli.verbose)
    };
    let code = match cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            // Sanitize line by line: the message's own newlines (candidate lists) stay.
            let msg = format!("{e:#}");
            let lines: Vec<String> = msg.lines().map(|l| sanitize(l).into_owned()).collect();
            eprintln!("error: {}", lines.join("\n"));
            2
        }
    };
    // `exit` runs no destructor: without this the log's last lines (a save's) would be lost.
    drop(guard);
    std::process::exit(code);
}

/// Logs go to `<state dir>/logs/codegraph-tui.log` (daily files), never to the terminal.
/// `-v` is debug, `-vv` trace; `RUST_LOG` overrides. No log when the dir or the file cannot
/// be made.
fn init_logging(verbose: u8) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    let dir = codegraph_tui::config::log_dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    // `rolling::daily` panics when the file cannot be created (a directory in its place,
    // no write permission); the builder reports it, and the command runs without a log.
    let appender = tracing_appender::rolling::RollingFileAppender::builder()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("codegraph-tui.log")
        .build(dir)
        .ok()?;
    // A small queue: the default 128K-line one is allocated and touched up front, about
    // 1.3 ms of every run (a warm `index` of a small tree takes 11 ms). Not lossy: a full
    // queue makes the logging thread wait rather than drop `-v` lines.
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(8192)
        .lossy(false)
        .finish(appender);
    let level = match verbose {
        0 => "info",
        1 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("codegraph_tui={level}")));
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(guard)
}
