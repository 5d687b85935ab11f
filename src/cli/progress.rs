//! A progress bar on stderr while indexing or building the text index, only when stderr
//! is a terminal (scripts and `--json` consumers see nothing extra). Redrawn every 100 ms
//! from the engine's counters; the line is cleared when the bar is dropped.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::index::Progress;

/// A running bar; dropping it stops and clears it.
pub(crate) struct Bar {
    counters: Arc<Progress>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Bar {
    /// Starts the indexing bar, or `None` when stderr is not a terminal.
    pub(crate) fn start() -> Option<Bar> {
        Bar::start_as("indexing", "files", "indexing: walking…")
    }

    /// Starts a bar `LABEL [###---] done/total UNIT`, showing `waiting` while the total
    /// is 0; `None` when stderr is not a terminal.
    pub(crate) fn start_as(
        label: &'static str,
        unit: &'static str,
        waiting: &'static str,
    ) -> Option<Bar> {
        if !std::io::stderr().is_terminal() {
            return None;
        }
        let counters = Arc::new(Progress::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (counters.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("codegraph-progress".into())
            .spawn(move || {
                while !s.load(Ordering::Relaxed) {
                    let total = c.total.load(Ordering::Relaxed);
                    let done = c.done.load(Ordering::Relaxed);
                    let line = if total == 0 {
                        waiting.to_string()
                    } else {
                        let width = 30u64;
                        let filled = (done * width / total.max(1)).min(width) as usize;
                        format!(
                            "{label} [{}{}] {done}/{total} {unit}",
                            "#".repeat(filled),
                            "-".repeat(width as usize - filled)
                        )
                    };
                    let mut e = std::io::stderr().lock();
                    let _ = write!(e, "\r\x1b[2K{line}");
                    let _ = e.flush();
                    drop(e);
                    std::thread::sleep(Duration::from_millis(100));
                }
                let _ = write!(std::io::stderr(), "\r\x1b[2K");
            })
            .ok()?;
        Some(Bar {
            counters,
            stop,
            thread: Some(thread),
        })
    }

    /// The counters to hand to the engine.
    pub(crate) fn counters(&self) -> Arc<Progress> {
        self.counters.clone()
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
