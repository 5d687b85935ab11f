//! `codegraph-tui index --watch`: keep the index (and its cache) up to date and print one
//! line per update: `update N: +added ~modified -removed files, E edges, T ms` (or one
//! JSON object per update with `--json`). When the OS cannot watch the repository, it
//! says so on stderr and polls instead (a reconciliation every 2 s: a walk and a stat per
//! file, no reads unless something changed). The cache is written once the watcher has
//! been quiet for a second, so a save never delays an update.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::output;
use crate::config::Config;
use crate::index::incremental::Changes;
use crate::index::session::{Session, SAVE_QUIET};
use crate::index::Index;
use crate::worker::watch;

/// Poll period when watching is impossible.
const POLL: Duration = Duration::from_secs(2);

pub(super) fn run(
    root: &Path,
    config: &Config,
    mut idx: Index,
    mut session: Session,
    json: bool,
) -> Result<i32> {
    let mut opts = config.index_options();
    let (tx, rx) = mpsc::channel::<Vec<String>>();
    let watcher = watch::watch(root, session.report.dir.as_deref(), &opts.walk, move |p| {
        let _ = tx.send(p);
    });
    let poll = match &watcher {
        Ok(_) => None,
        Err(e) => {
            eprintln!(
                "codegraph-tui: {}; polling every {} s instead",
                output::sanitize(&e.to_string()),
                POLL.as_secs()
            );
            Some(POLL)
        }
    };
    let mut update = 0u64;
    // Made before the first event, not during the first update.
    idx.prepare_updates();
    // An update that read only the reported paths is followed by a walk of the whole tree
    // (see `Changes::reported_only`), and by a reconciliation if the walk differs, which
    // prints a line only if facts changed.
    let mut follow_up = false;
    // The index in hand has not been saved yet.
    let mut unsaved = false;
    let save = |session: &mut Session, idx: &Index, opts: &crate::index::IndexOptions| {
        session.save(idx, opts);
        // The old index and the save's buffers are freed: give their pages back, or the
        // resident size grows with every edit.
        crate::index::release_free_memory();
    };
    loop {
        // The reported paths are hashed even if their size and mtime did not move.
        let mut reported = std::collections::BTreeSet::new();
        let checking = std::mem::take(&mut follow_up);
        match poll {
            _ if checking => {}
            Some(p) => {
                if std::mem::take(&mut unsaved) {
                    save(&mut session, &idx, &opts);
                }
                std::thread::sleep(p)
            }
            None if unsaved => match rx.recv_timeout(SAVE_QUIET) {
                Ok(p) => reported.extend(p),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    unsaved = false;
                    save(&mut session, &idx, &opts);
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    save(&mut session, &idx, &opts);
                    return Ok(0);
                }
            },
            None => match rx.recv() {
                Ok(p) => reported.extend(p),
                Err(_) => return Ok(0),
            },
        }
        // Coalesce what arrived meanwhile: a burst is one update.
        while let Ok(p) = rx.try_recv() {
            reported.extend(p);
        }
        let walk_check = checking && reported.is_empty();
        opts.recheck = Some(std::sync::Arc::new(reported));
        let t = Instant::now();
        let next = if walk_check {
            session.refresh_after_report(root, &opts, &idx)?
        } else {
            session.refresh_unsaved(root, &opts, Some(&idx))?
        };
        let Some((next, changes)) = next else {
            continue;
        };
        let old = std::mem::replace(&mut idx, next);
        follow_up = changes.reported_only;
        if !changes.is_empty() {
            update += 1;
            print_update(update, &idx, &changes, t.elapsed().as_millis() as u64, json)?;
        }
        let t = Instant::now();
        drop(old);
        tracing::debug!(
            ms = t.elapsed().as_millis() as u64,
            "previous index dropped"
        );
        // Served first, saved once the watcher is quiet (or at once when polling).
        unsaved = true;
        idx.prepare_updates();
    }
}

fn print_update(n: u64, idx: &Index, c: &Changes, ms: u64, json: bool) -> Result<()> {
    if json {
        output::print_json(&serde_json::json!({
            "update": n,
            "added": c.added,
            "modified": c.modified,
            "removed": c.removed,
            "resolved_files": c.resolved,
            "files": idx.files.len(),
            "edges": idx.graph.edge_count(),
            "elapsed_ms": ms,
        }))
    } else {
        output::print_lines(&[format!(
            "update {n}: +{} ~{} -{} files, {} edges, {ms} ms",
            c.added.len(),
            c.modified.len(),
            c.removed.len(),
            idx.graph.edge_count()
        )])
    }
}
