//! A clean end on SIGBUS. Snapshot files are memory-mapped and read in place (see
//! `index::store`); if another program truncates one while a process has it mapped,
//! reading the lost pages raises SIGBUS, which would kill the process with the terminal
//! still in raw mode and on the alternate screen (truncating `nodes.bin` in the first
//! 30 ms of a warm start is enough). The tool itself never changes a
//! snapshot file after writing it.
//!
//! The handler restores the terminal when the TUI had set it up, says what happened on
//! stderr and exits with status 135 (128 + SIGBUS, what a shell reports for a process the
//! signal killed). It only makes system calls (write, tcsetattr, _exit), which are
//! async-signal-safe (POSIX).
//!
//! Also panics caught on purpose ([`catch_quietly`]): a library that trusts the bytes of
//! a damaged cache file may panic reading it; the caller turns that into an error and
//! rebuilds, and the panic is logged rather than printed over a terminal.

use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use rustix::termios::{OptionalActions, Termios};

/// The terminal's attributes before the TUI changed them (read from stdout, which the TUI
/// requires to be the terminal).
static TERMINAL: OnceLock<Termios> = OnceLock::new();
/// The TUI has the terminal in raw mode on the alternate screen.
static TUI_ACTIVE: AtomicBool = AtomicBool::new(false);

/// What the handler prints.
const MESSAGE: &[u8] =
    b"\ncodegraph-tui: a cache file was cut short while in use (SIGBUS): another \
program changed the index cache. Nothing was written; run the command again (a damaged \
cache is rebuilt).\n";

/// Leaves mouse capture (the modes crossterm's `EnableMouseCapture` sets), shows the
/// cursor and leaves the alternate screen.
const LEAVE: &[u8] = b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?25h\x1b[?1049l";

/// Installs the SIGBUS handler (once, first thing in `main`).
///
/// Errors: the OS refused the handler (the process then dies on SIGBUS as before).
pub fn install() -> std::io::Result<()> {
    // SAFETY: the handler makes only async-signal-safe system calls and reads statics that
    // are set before it can see them (an atomic flag, a `OnceLock` read without waiting).
    unsafe { signal_hook::low_level::register(signal_hook::consts::SIGBUS, on_bus) }.map(|_| ())
}

/// Records the terminal's attributes before the TUI sets raw mode, so the handler can
/// put them back; the TUI is active until [`tui_left`].
pub fn tui_entered() {
    if TERMINAL.get().is_none() {
        if let Ok(attrs) = rustix::termios::tcgetattr(std::io::stdout()) {
            let _ = TERMINAL.set(attrs);
        }
    }
    TUI_ACTIVE.store(true, Ordering::SeqCst);
}

/// The TUI gave the terminal back: the handler leaves it alone.
pub fn tui_left() {
    TUI_ACTIVE.store(false, Ordering::SeqCst);
}

fn on_bus() {
    // SAFETY: file descriptors 1 and 2 stay open for the life of the process (a write to
    // a closed one fails, nothing else).
    let (stdout, stderr) = unsafe { (BorrowedFd::borrow_raw(1), BorrowedFd::borrow_raw(2)) };
    if TUI_ACTIVE.load(Ordering::SeqCst) {
        let _ = rustix::io::write(stdout, LEAVE);
        if let Some(attrs) = TERMINAL.get() {
            let _ = rustix::termios::tcsetattr(stdout, OptionalActions::Now, attrs);
        }
    }
    let _ = rustix::io::write(stderr, MESSAGE);
    signal_hook::low_level::exit(135);
}

thread_local! {
    /// This thread runs inside [`catch_quietly`].
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`; a panic inside it is caught and returned as its message. With
/// [`install_panic_hook`] in place the panic is logged, not printed.
///
/// Errors: the panic's message.
pub fn catch_quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let was = QUIET.with(|q| q.replace(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    r.map_err(|p| {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into())
    })
}

/// `true` while the current thread runs inside [`catch_quietly`].
pub fn quiet() -> bool {
    QUIET.with(|q| q.get())
}

/// Installs the process's panic hook (once, first thing in `main`): a panic that
/// [`catch_quietly`] catches is logged; any other goes to the previous hook (Rust's,
/// which prints it).
pub fn install_panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if quiet() {
            tracing::warn!("caught: {info}");
        } else {
            prev(info);
        }
    }));
}
