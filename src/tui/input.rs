//! Waiting for terminal input without handing a dead terminal to crossterm.
//!
//! crossterm's reader loops on `read(2)` until it has an event; when the terminal is gone
//! (the tmux server or the terminal emulator closed the pty) `read` returns EOF or EIO
//! for ever and that loop spins inside `event::poll`, so the UI loop never runs again:
//! signal flags go unchecked and the process busy-loops. So the UI loop waits here
//! first, with `poll(2)` on the same terminal and on a self-pipe that the terminating
//! signals and SIGWINCH write to, and only asks crossterm to read when the terminal has
//! input and has not hung up. A [`Watchdog`] thread is the backstop for the narrow race
//! where the terminal hangs up between that check and crossterm's read.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};

/// What [`InputWait::wait`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ready {
    /// The terminal has bytes to read: crossterm may read them.
    Input,
    /// A signal arrived (terminating, SIGCONT or SIGWINCH) or a [`InputWait::waker`] was
    /// called; the caller checks its flags and redraws.
    Signal,
    /// Nothing happened within the timeout.
    Timeout,
    /// The terminal hung up or the descriptor is invalid: nothing more will come.
    Gone,
}

/// The terminal crossterm reads from (stdin when it is a terminal, else `/dev/tty`, as
/// crossterm chooses) plus the read end of the signal self-pipe.
pub struct InputWait {
    tty: OwnedFd,
    wake: UnixStream,
    /// The write end of the self-pipe, kept for [`InputWait::waker`].
    write: UnixStream,
}

impl InputWait {
    /// Opens the terminal and registers the self-pipe for `signals`.
    ///
    /// Errors: no terminal to read from, or the pipe or handlers cannot be set up.
    pub fn new(signals: &[i32]) -> io::Result<InputWait> {
        let tty = terminal_fd()?;
        let (wake, write) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        write.set_nonblocking(true)?;
        for &s in signals {
            signal_hook::low_level::pipe::register(s, write.try_clone()?)?;
        }
        Ok(InputWait { tty, wake, write })
    }

    /// A function any thread may call to end the current [`InputWait::wait`] early (it
    /// then returns [`Ready::Signal`]): the symbol matcher calls it when it has published
    /// results, so they are drawn at once rather than at the next timeout. A full pipe
    /// already holds a pending wake-up, so a failed write is ignored.
    ///
    /// Errors: the pipe's descriptor cannot be duplicated.
    pub fn waker(&self) -> io::Result<impl Fn() + Send + Sync + 'static> {
        let write = self.write.try_clone()?;
        Ok(move || {
            let _ = (&write).write(&[1]);
        })
    }

    /// Waits until the terminal has input, hangs up, a signal arrives, or `timeout`.
    /// A hang-up wins over pending input: after it, reads would only return EOF/EIO.
    ///
    /// Errors: `poll(2)` failed for another reason than an interrupting signal.
    pub fn wait(&mut self, timeout: Duration) -> io::Result<Ready> {
        let ts = Timespec::try_from(timeout).unwrap_or(Timespec {
            tv_sec: 1,
            tv_nsec: 0,
        });
        let mut fds = [
            PollFd::new(&self.tty, PollFlags::IN),
            PollFd::new(&self.wake, PollFlags::IN),
        ];
        match poll(&mut fds, Some(&ts)) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => return Ok(Ready::Signal),
            Err(e) => return Err(e.into()),
        }
        let tty = fds[0].revents();
        let wake = fds[1].revents();
        if tty.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL) {
            return Ok(Ready::Gone);
        }
        if wake.contains(PollFlags::IN) {
            let mut buf = [0u8; 64];
            while matches!((&self.wake).read(&mut buf), Ok(n) if n > 0) {}
            return Ok(Ready::Signal);
        }
        if tty.contains(PollFlags::IN) {
            return Ok(Ready::Input);
        }
        Ok(Ready::Timeout)
    }
}

impl InputWait {
    /// Makes crossterm see input it has lost track of. crossterm waits on the terminal with
    /// edge-triggered epoll (mio), and when one wake-up reports both a resize and input it
    /// returns the resize and forgets the input's readiness: the bytes then stay unread
    /// until the next key, while [`wait`](InputWait::wait) (level-triggered) keeps saying
    /// [`Ready::Input`]. Setting the terminal's attributes to what they are wakes its
    /// readers (Linux's `n_tty_set_termios`), which epoll reports as a new edge.
    ///
    /// Errors: the terminal's attributes cannot be read or set.
    pub fn nudge(&self) -> io::Result<()> {
        let attrs = rustix::termios::tcgetattr(&self.tty)?;
        rustix::termios::tcsetattr(&self.tty, rustix::termios::OptionalActions::Now, &attrs)?;
        Ok(())
    }
}

/// True when the terminal behind `fd` has hung up (a zero-timeout `poll(2)`).
fn hung_up(fd: &OwnedFd) -> bool {
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    match poll(&mut fds, Some(&Timespec::default())) {
        Ok(_) => fds[0]
            .revents()
            .intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL),
        Err(_) => false,
    }
}

/// `true` when this process's group is the terminal's foreground group, so writing to the
/// terminal or changing its mode will not stop the process with `SIGTTOU`. After Ctrl-Z
/// and `kill %1` the shell continues the process in the background to let it end: the
/// terminal must then be left alone (it is the shell's again). `true` when it cannot be
/// told (no terminal).
pub fn in_foreground() -> bool {
    let Ok(tty) = terminal_fd() else {
        return true;
    };
    match rustix::termios::tcgetpgrp(&tty) {
        Ok(pg) => pg == rustix::process::getpgrp(),
        Err(_) => true,
    }
}

/// The descriptor crossterm reads events from, duplicated.
fn terminal_fd() -> io::Result<OwnedFd> {
    if io::stdin().is_terminal() {
        io::stdin().as_fd().try_clone_to_owned()
    } else {
        Ok(File::open("/dev/tty")?.into())
    }
}

/// Backstop thread: once a terminating signal was seen (the `term` flag) or the terminal
/// hung up, the UI loop has `grace` to return; if it has not (stuck in a read that
/// cannot end), the watchdog restores what it can of the terminal and exits the process
/// with status 1. It stands still while `paused` is set (an `$EDITOR` owns the terminal).
pub struct Watchdog {
    /// Set while an external program runs in the foreground.
    pub paused: Arc<AtomicBool>,
}

impl Watchdog {
    /// Starts the thread. `term` is the flag the signal handlers set; the watchdog sets
    /// it too when the terminal hangs up, so the UI loop sees one reason to stop.
    ///
    /// Errors: no terminal, or the OS refused a thread.
    pub fn spawn(term: Arc<AtomicBool>, grace: Duration) -> io::Result<Watchdog> {
        let tty = terminal_fd()?;
        let paused = Arc::new(AtomicBool::new(false));
        let p = paused.clone();
        std::thread::Builder::new()
            .name("codegraph-watchdog".into())
            .spawn(move || {
                let mut since: Option<Instant> = None;
                loop {
                    std::thread::sleep(Duration::from_millis(200));
                    if p.load(Ordering::Relaxed) {
                        since = None;
                        continue;
                    }
                    if hung_up(&tty) {
                        term.store(true, Ordering::Relaxed);
                    }
                    if !term.load(Ordering::Relaxed) {
                        continue;
                    }
                    let t = *since.get_or_insert_with(Instant::now);
                    if t.elapsed() >= grace {
                        tracing::warn!("the UI loop did not stop after a signal or hang-up");
                        super::leave_terminal();
                        std::process::exit(1);
                    }
                }
            })?;
        Ok(Watchdog { paused })
    }
}
