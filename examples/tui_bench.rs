//! Key-to-frame latency of the TUI's search panel (`docs/benchmarks.md#tui-latency`).
//!
//! `cargo run --release --example tui_bench -- DIR [QUERY] [ROUNDS]` indexes DIR, loads the
//! snapshot into the real [`App`] (every definition injected into nucleo), then types QUERY
//! (default `parse_config`) one key at a time and deletes it again with Backspace, ROUNDS
//! times (default 5). Each key is handled as the event loop does it: `App::key`, then
//! `App::tick` (nucleo may take up to 10 ms to publish), then one frame drawn on a 120x40
//! `TestBackend`. It prints one JSON line with two latencies per key, p50/p99/max in ms:
//! `next_frame` (key to the frame the loop draws next; the goal is p99 under 16 ms) and
//! `settled` (key to the frame that shows the finished match, when nucleo needed more than
//! one tick). `key_ms`, `tick_ms` and `draw_ms` split `next_frame`; `tick_cpu_ms` and
//! `tick_runqueue_ms` split the tick into the UI thread's own CPU time and its wait for a
//! core (Linux `/proc/thread-self/schedstat`), which tells a slow tick from a busy machine. Before each key the
//! matcher is idle, as between human keystrokes. Threads
//! for indexing: `CODEGRAPH_THREADS` (default 2).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use codegraph_tui::index::{index_repo, IndexOptions};
use codegraph_tui::tui::{panels, App, Theme};
use codegraph_tui::worker::Snapshot;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let query = args.next().unwrap_or_else(|| "parse_config".into());
    let rounds: usize = args.next().map_or(Ok(5), |r| r.parse())?;
    let threads = std::env::var("CODEGRAPH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(2);
    let t = Instant::now();
    let idx = index_repo(
        &root,
        &IndexOptions {
            threads,
            ..IndexOptions::default()
        },
    )?;
    let index_ms = t.elapsed().as_millis();
    let root = idx.root.clone().unwrap_or(root);
    let mut app = App::new(root, Theme::load("dark", None)?);
    let t = Instant::now();
    app.set_snapshot(Arc::new(Snapshot::new(1, idx, Duration::ZERO)));
    app.search.settle();
    let load_ms = t.elapsed().as_millis();
    let symbols = app.search.injected();
    let mut term = Terminal::new(TestBackend::new(120, 40))?;
    app.tick();
    term.draw(|f| panels::draw(f, &mut app))?;

    let mut keys: Vec<KeyCode> = query.chars().map(KeyCode::Char).collect();
    keys.extend(std::iter::repeat_n(
        KeyCode::Backspace,
        query.chars().count(),
    ));
    let (mut next_frame, mut settled) = (Vec::new(), Vec::new());
    let (mut handle, mut draw) = (Vec::new(), Vec::new());
    let (mut key, mut tick) = (Vec::new(), Vec::new());
    let (mut tick_cpu, mut tick_rq) = (Vec::new(), Vec::new());
    let mut last_matched = 0;
    for _ in 0..rounds.max(1) {
        for &k in &keys {
            let t = Instant::now();
            app.key(KeyEvent::new(k, KeyModifiers::NONE));
            key.push(ms(t));
            let k = Instant::now();
            let s0 = schedstat();
            app.tick();
            let s1 = schedstat();
            tick.push(ms(k));
            tick_cpu.push((s1.0 - s0.0) as f64 / 1e6);
            tick_rq.push((s1.1 - s0.1) as f64 / 1e6);
            handle.push(ms(t));
            let d = Instant::now();
            term.draw(|f| panels::draw(f, &mut app))?;
            draw.push(ms(d));
            next_frame.push(ms(t));
            // Later frames until the matcher is done (the loop redraws while busy).
            app.search.settle();
            if app.tick() {
                term.draw(|f| panels::draw(f, &mut app))?;
            }
            settled.push(ms(t));
            if app.search.query == query {
                last_matched = app.search.matched();
            }
        }
    }
    println!(
        "{}",
        serde_json::json!({
            "symbols": symbols,
            "query": query,
            "keys": next_frame.len(),
            "matches_for_query": last_matched,
            "index_ms": index_ms,
            "load_ms": load_ms,
            "next_frame_ms": stats(&mut next_frame),
            "key_and_tick_ms": stats(&mut handle),
            "key_ms": stats(&mut key),
            "tick_ms": stats(&mut tick),
            "tick_cpu_ms": stats(&mut tick_cpu),
            "tick_runqueue_ms": stats(&mut tick_rq),
            "draw_ms": stats(&mut draw),
            "settled_ms": stats(&mut settled),
        })
    );
    Ok(())
}

/// (CPU ns, run-queue wait ns) of this thread, from `/proc/thread-self/schedstat`.
fn schedstat() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let mut it = s.split_whitespace().map(|x| x.parse().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn stats(v: &mut [f64]) -> serde_json::Value {
    v.sort_by(f64::total_cmp);
    let pct = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    serde_json::json!({
        "p50": (pct(0.5) * 100.0).round() / 100.0,
        "p99": (pct(0.99) * 100.0).round() / 100.0,
        "max": (pct(1.0) * 100.0).round() / 100.0,
    })
}
