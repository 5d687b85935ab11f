//! The terminal UI (`docs/ARCHITECTURE.md`, "`src/tui/`"): one event loop over terminal input, worker events
//! and a tick. Keys become [`keymap::Action`]s, [`App`] applies them, `panels` draws.
//! The [`crate::worker`] indexes in the background; the loop never blocks on it.
//!
//! The terminal is always restored: on quit, on panic (ratatui's hook, chained with one
//! that also releases the mouse), on SIGTERM/SIGHUP/SIGINT/SIGQUIT/SIGUSR1/SIGUSR2 (flags checked every loop
//! turn; they also wake the loop through [`input::InputWait`]'s self-pipe), when the
//! terminal goes away (hang-up seen by `poll(2)` before crossterm reads; a
//! [`input::Watchdog`] ends the process if the loop is stuck anyway), around Ctrl-Z (restored, SIGTSTP raised, set up again on resume) and around
//! `$EDITOR`. Logs go to a file (see `main.rs`), never to the terminal.

pub mod app;
pub mod chunks;
pub mod highlight;
pub mod impact;
pub mod input;
pub mod keymap;
pub mod lists;
pub mod outline;
pub mod panels;
pub mod search;
pub mod source;
pub mod theme;
pub mod tree;
pub mod twins;
pub mod unresolved;
pub mod words;

use std::io::{stdout, IsTerminal, Stdout};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::crossterm::{cursor, execute};
use ratatui::Terminal;

pub use app::{App, AppEvent};
pub use theme::Theme;

use crate::index::IndexOptions;
use crate::worker::{IndexEvent, Worker};

/// What the TUI needs to start.
#[derive(Debug)]
pub struct TuiOptions {
    /// Repository root (absolute).
    pub root: PathBuf,
    /// Engine options (from the config file and environment).
    pub index: IndexOptions,
    /// The colour theme (or [`Theme::monochrome`]).
    pub theme: Theme,
    /// Cache folder and watching for the worker.
    pub setup: crate::worker::Setup,
    /// Settings from the config file (expand depth, OSC 52 copy).
    pub settings: app::Settings,
}

type Term = Terminal<CrosstermBackend<Stdout>>;

/// Signals that end or refresh the UI, set by signal-hook handlers, and the wait on
/// terminal input that those signals interrupt.
struct Signals {
    term: Arc<AtomicBool>,
    /// The number of the last terminating signal (0: none, or the terminal hung up).
    signo: Arc<AtomicUsize>,
    cont: Arc<AtomicBool>,
    input: input::InputWait,
    watchdog: input::Watchdog,
}

impl Signals {
    fn register() -> Result<Signals> {
        use signal_hook::consts::{
            SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH,
        };
        let term = Arc::new(AtomicBool::new(false));
        let cont = Arc::new(AtomicBool::new(false));
        let signo = Arc::new(AtomicUsize::new(0));
        // Every signal whose default action ends the process and that a user may send.
        let ending = [SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2];
        for s in ending {
            signal_hook::flag::register_usize(s, signo.clone(), s as usize)
                .context("installing signal handlers")?;
            signal_hook::flag::register(s, term.clone()).context("installing signal handlers")?;
        }
        signal_hook::flag::register(SIGCONT, cont.clone()).context("installing SIGCONT")?;
        let input = input::InputWait::new(&[ending.as_slice(), &[SIGCONT, SIGWINCH]].concat())
            .context("watching the terminal")?;
        let watchdog = input::Watchdog::spawn(term.clone(), Duration::from_secs(2))
            .context("starting the watchdog thread")?;
        Ok(Signals {
            term,
            signo,
            cont,
            input,
            watchdog,
        })
    }
}

/// Leaves raw mode and the alternate screen, releases the mouse, shows the cursor.
/// Safe to call more than once.
pub fn leave_terminal() {
    if !input::in_foreground() {
        // In the background (continued by `kill` after Ctrl-Z): the terminal was left
        // before stopping, and touching it now would only stop us again (SIGTTOU).
        return;
    }
    let _ = execute!(stdout(), DisableMouseCapture, cursor::Show);
    let _ = disable_raw_mode();
    let _ = execute!(stdout(), LeaveAlternateScreen);
}

fn enter_terminal(t: &mut Term) -> Result<()> {
    enable_raw_mode()?;
    execute!(stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    t.clear()?;
    Ok(())
}

/// Runs the TUI until the user quits or a terminating signal arrives.
///
/// Returns the process exit status, the shell's convention: 0 when the user quit, 128 plus
/// the signal's number when a terminating signal ended it (143 for SIGTERM, 130 for
/// SIGINT), 129 (SIGHUP's) when the terminal went away.
///
/// Errors: stdout is not a terminal, or the terminal cannot be set up.
pub fn run(opts: TuiOptions) -> Result<i32> {
    if !stdout().is_terminal() {
        bail!(
            "the terminal UI needs a terminal on stdout; use a subcommand for scripts (see --help)"
        );
    }
    let started = crate::started();
    let mut signals = Signals::register()?;
    let (tx, rx) = mpsc::channel::<IndexEvent>();
    // The loop is woken for each event, so a snapshot is drawn as it arrives, not at the
    // next tick (up to 50 ms later; a warm start's graph waited 13-53 ms, `-v`).
    let wake = signals.input.waker().ok();
    let worker = Worker::start(opts.root.clone(), opts.index, opts.setup, move |e| {
        let _ = tx.send(e);
        if let Some(wake) = &wake {
            wake();
        }
    })
    .context("starting the indexing thread")?;
    let mut app = App::new(opts.root, opts.theme);
    app.settings = opts.settings;
    match signals.input.waker() {
        Ok(w) => app.search.set_waker(Box::new(w)),
        // Without it, results still show at the next tick (at most 50 ms later).
        Err(e) => tracing::warn!("no wake-up pipe for the symbol matcher: {e}"),
    }
    crate::fatal::tui_entered();
    let mut terminal = ratatui::try_init().context("setting up the terminal")?;
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A caught panic, or one that ends only a background thread (whose loss the UI
        // reports), leaves the terminal to the UI; printing it would draw over the screen.
        if crate::fatal::quiet() || std::thread::current().name() != Some("main") {
            tracing::error!("a thread panicked: {info}");
            return;
        }
        leave_terminal();
        prev(info);
    }));
    let _ = execute!(stdout(), EnableMouseCapture);
    tracing::info!(root = %app.root.display(), "tui started");
    let r = event_loop(started, &mut terminal, &mut app, &rx, &worker, &mut signals);
    leave_terminal();
    crate::fatal::tui_left();
    drop(worker);
    tracing::info!("tui ended");
    r
}

fn event_loop(
    started: Instant,
    terminal: &mut Term,
    app: &mut App,
    rx: &mpsc::Receiver<IndexEvent>,
    worker: &Worker,
    signals: &mut Signals,
) -> Result<i32> {
    let mut dirty = true;
    // When the last input batch arrived: the next frame's delay after it is logged (debug
    // level, `-v`) as `input_to_frame_us`, the real TUI's counterpart of the figures in
    // `docs/benchmarks.md#tui-latency`.
    let mut input_at: Option<Instant> = None;
    let mut first_frame = true;
    // The first frame drawn with a snapshot: from start to a usable screen.
    let mut snapshot_drawn = false;
    loop {
        while let Ok(e) = rx.try_recv() {
            app.handle(AppEvent::Index(e));
            dirty = true;
        }
        if app.poll() {
            dirty = true;
        }
        for c in app.outbox.drain(..) {
            worker.send(c);
        }
        if signals.term.load(Ordering::Relaxed) {
            // No signal number: the watchdog saw the terminal hang up.
            let signo = match signals.signo.load(Ordering::Relaxed) {
                0 => signal_hook::consts::SIGHUP as usize,
                n => n,
            };
            tracing::info!(signo, "terminating signal: restoring the terminal");
            return Ok(128 + signo as i32);
        }
        if signals.cont.swap(false, Ordering::Relaxed) {
            // Resumed after an external stop: the shell may have reset the terminal.
            enter_terminal(terminal)?;
            dirty = true;
        }
        if dirty {
            terminal.draw(|f| panels::draw(f, app))?;
            dirty = false;
            if let Some(t) = input_at.take() {
                tracing::debug!(
                    input_to_frame_us = t.elapsed().as_micros() as u64,
                    matched = app.search.matched(),
                    "frame"
                );
            }
            if first_frame {
                first_frame = false;
                tracing::info!(
                    since_start_ms = started.elapsed().as_millis() as u64,
                    "first frame"
                );
            }
            if !snapshot_drawn {
                if let Some(snap) = &app.snapshot {
                    snapshot_drawn = true;
                    tracing::info!(
                        since_start_ms = started.elapsed().as_millis() as u64,
                        graph_only = snap.graph_only,
                        "first snapshot drawn"
                    );
                }
            }
        }
        if let Some(text) = app.clipboard.take() {
            // Only `y`/`Y` with `clipboard_osc52` set put text here, base64-encoded in
            // the sequence (see `app::osc52`).
            use std::io::Write as _;
            let out = terminal.backend_mut();
            out.write_all(app::osc52(&text).as_bytes())?;
            out.flush()?;
        }
        // Read after the frame that shows the new list, then drawn without waiting.
        if app.sync_due_source() {
            dirty = true;
        }
        if app.quit {
            return Ok(0);
        }
        if let Some(p) = app.pending.take() {
            signals.watchdog.paused.store(true, Ordering::Relaxed);
            let r = external(terminal, app, p);
            signals.watchdog.paused.store(false, Ordering::Relaxed);
            r?;
            signals.cont.store(false, Ordering::Relaxed);
            dirty = true;
            continue;
        }
        let busy = app.status.phase != crate::worker::Phase::Idle || app.search.busy();
        let wait = Duration::from_millis(match (dirty, busy) {
            (true, _) => 0,
            (false, true) => 50,
            (false, false) => 250,
        });
        match signals.input.wait(wait)? {
            input::Ready::Gone => {
                tracing::info!("the terminal hung up: exiting");
                return Ok(128 + signal_hook::consts::SIGHUP);
            }
            // A resize needs no event (the next draw reads the new size), but crossterm's
            // own resize signal is taken now, before a key can arrive with it (see
            // `InputWait::nudge`).
            input::Ready::Signal => {
                drain_events(app)?;
                dirty = true;
            }
            input::Ready::Timeout => {}
            input::Ready::Input => {
                input_at = Some(Instant::now());
                if drain_events(app)? == 0 {
                    // Readable, yet crossterm reports nothing: it lost the input's edge.
                    // Without this the loop would spin until the next key.
                    if let Err(e) = signals.input.nudge() {
                        tracing::debug!("cannot nudge the terminal: {e}");
                    }
                    drain_events(app)?;
                }
                dirty = true;
            }
        }
    }
}

/// Hands every event crossterm has queued to the app, without waiting (fast typing and
/// wheel bursts are taken before the next draw); returns how many.
///
/// Errors: reading the terminal failed.
fn drain_events(app: &mut App) -> Result<usize> {
    let mut n = 0;
    while event::poll(Duration::ZERO)? {
        app.handle(AppEvent::Input(event::read()?));
        n += 1;
    }
    Ok(n)
}

/// Runs what only the loop can: `$EDITOR`, suspension.
fn external(terminal: &mut Term, app: &mut App, p: app::External) -> Result<()> {
    leave_terminal();
    match p {
        app::External::Editor { path, line } => {
            let editor = std::env::var("VISUAL")
                .ok()
                .filter(|s| !s.trim().is_empty())
                .or_else(|| {
                    std::env::var("EDITOR")
                        .ok()
                        .filter(|s| !s.trim().is_empty())
                })
                .unwrap_or_else(|| "vi".into());
            let mut parts = editor.split_whitespace();
            let prog = parts.next().unwrap_or("vi");
            let status = std::process::Command::new(prog)
                .args(parts)
                .arg(format!("+{line}"))
                .arg(&path)
                .status();
            match status {
                Ok(s) if s.success() => {}
                Ok(s) => app.status.error = Some(format!("{prog} exited with {s}")),
                Err(e) => app.status.error = Some(format!("cannot run {prog}: {e}")),
            }
        }
        app::External::Suspend => {
            let _ = signal_hook::low_level::raise(signal_hook::consts::SIGTSTP);
            if !input::in_foreground() {
                // Continued in the background (`kill %1`, `bg`): not our terminal now. The
                // loop ends on a terminating signal; otherwise the next draw stops us
                // until `fg`, whose SIGCONT re-enters the terminal.
                return Ok(());
            }
        }
    }
    enter_terminal(terminal)
}
