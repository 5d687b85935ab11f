//! Reconciling an index with the disk (DESIGN sections 2 and 7): walk again, re-read only
//! files whose size or mtime changed (or whose stamp is "racily clean"), re-extract only
//! files whose content hash changed, drop deleted ones, then resolve again over the facts.
//!
//! The result is what a fresh [`index_repo`](super::index_repo) gives: the same walk and
//! the same per-file processing decide every file, reused facts are exactly those a
//! fresh parse of the same bytes yields (the cache is keyed on the engine build and the
//! options), and resolution runs again for every file an edit can affect ([`affected`])
//! over tables built from the whole fact set.
//! `tests/incremental.rs` checks this byte for byte after a scripted series of edits.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

pub mod affected;
mod diff;

use super::source::FsEntry;
use super::{
    assemble, begin_run, finish_with, now_ns, process, Extras, FileStamp, FsSource, Index,
    IndexError, IndexOptions, Outcome, SkipReason,
};

/// A file whose mtime is within this many nanoseconds of the moment the previous index
/// started reading is hashed again (git's racy-clean rule): filesystems stamp mtimes with
/// a coarse clock, so a write in the same tick as the read keeps the old mtime. Two
/// seconds covers FAT's 2 s resolution.
pub const RACY_NS: i64 = 2_000_000_000;

/// What a reconciliation found. Paths are repo-relative and sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Changes {
    /// Files with facts now that had none before.
    pub added: Vec<String>,
    /// Files re-extracted because their content changed.
    pub modified: Vec<String>,
    /// Files with facts before and none now (deleted, now ignored, or now skipped).
    pub removed: Vec<String>,
    /// Files read and hashed because their size, mtime or racy stamp asked for it.
    pub hashed: u64,
    /// Files whose calls were resolved again: the changed files and those that mention a
    /// name they define or define-away, or every file when only a full resolution was
    /// safe (see `affected.rs`). 0 when no facts changed.
    pub resolved: u64,
}

impl Changes {
    /// `true` when no file's facts changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }

    /// Number of files whose facts changed.
    pub fn len(&self) -> usize {
        self.added.len() + self.modified.len() + self.removed.len()
    }
}

/// The outcome of [`reconcile`].
#[derive(Debug)]
pub enum Reconciled {
    /// Nothing differs from the previous index: facts, skips, stamps and walk counts.
    Unchanged,
    /// Something differs. The graph is resolved again when facts changed and reused
    /// when only stamps or skips did.
    Updated(Box<Index>, Changes),
}

/// What happened to one walked file.
enum Step {
    /// Same facts as the previous index's file at this position.
    Same(usize),
    /// Same skip as before (the file is still binary, too large or unreadable).
    SameSkip(SkipReason),
    /// Read and processed again; `true` when the previous index had facts for the path.
    Fresh(Outcome, bool),
}

fn is_racy(stamp: &FileStamp, stamped_at_ns: i64) -> bool {
    stamp.mtime_ns >= stamped_at_ns.saturating_sub(RACY_NS)
}

/// Decides one walked file: reuse by stamp, reuse by content hash, or process.
fn step(
    src: &FsSource,
    e: &FsEntry,
    prev: &Index,
    options: &IndexOptions,
) -> (Step, Option<FileStamp>, bool) {
    let prev_fi = prev
        .files
        .binary_search_by(|f| f.path.as_str().cmp(&e.path))
        .ok();
    let prev_skip = prev
        .skipped
        .binary_search_by(|s| s.0.as_str().cmp(&e.path))
        .ok()
        .map(|i| prev.skipped[i].1);
    let recheck = options
        .recheck
        .as_ref()
        .is_some_and(|r| r.contains(&e.path));
    if let (Some(old), Some(cur), false) = (prev.stamps.get(&e.path), src.stamp(e), recheck) {
        if *old == cur && !is_racy(old, prev.stamped_at_ns) {
            match (prev_fi, prev_skip) {
                (Some(fi), _) => return (Step::Same(fi), Some(cur), false),
                (None, Some(r)) => return (Step::SameSkip(r), Some(cur), false),
                (None, None) => {}
            }
        }
    }
    let (stamp, input) = src.read_stamped(e, options.caps.max_file_bytes);
    let out = match input {
        Ok(input) => {
            if let Some(fi) = prev_fi {
                let hash = blake3::hash(&input.bytes).to_hex();
                if prev.files[fi].content_hash == hash.as_str() {
                    return (Step::Same(fi), stamp, true);
                }
            }
            process(&input, options)
        }
        Err(r) => Outcome::Skipped(e.path.clone(), r),
    };
    (Step::Fresh(out, prev_fi.is_some()), stamp, true)
}

/// Brings `prev` (an index of `root` built with the same `options`, fresh or loaded from
/// the cache) up to date with the disk.
///
/// Errors: as [`index_repo`](super::index_repo) (the root vanished, threads could not
/// start). Per-file problems are counted, as in a fresh index.
pub fn reconcile(
    root: &Path,
    prev: &Index,
    options: &IndexOptions,
) -> Result<Reconciled, IndexError> {
    let (started, src, pool, walked, mut stats) = begin_run(root, options)?;
    let t = Instant::now();
    let stamped_at_ns = now_ns();
    let steps: Vec<(Step, Option<FileStamp>, bool)> = pool.install(|| {
        walked
            .files
            .par_iter()
            .map(|e| {
                let s = step(&src, e, prev, options);
                if let Some(p) = &options.progress {
                    p.done.fetch_add(1, Ordering::Relaxed);
                }
                s
            })
            .collect()
    });
    stats
        .elapsed_ms
        .insert("parse".into(), t.elapsed().as_millis() as u64);

    let mut changes = Changes::default();
    let mut seen = vec![false; prev.files.len()];
    let mut stamps = BTreeMap::new();
    let mut skipped = walked.skipped;
    let mut steps_kept = Vec::with_capacity(steps.len());
    for (e, (st, stamp, hashed)) in walked.files.iter().zip(steps) {
        if let Some(s) = stamp {
            stamps.insert(e.path.clone(), s);
        }
        changes.hashed += u64::from(hashed);
        match &st {
            Step::Same(fi) => seen[*fi] = true,
            Step::SameSkip(r) => skipped.push((e.path.clone(), *r)),
            Step::Fresh(Outcome::Facts(_), had) => {
                if *had {
                    changes.modified.push(e.path.clone());
                } else {
                    changes.added.push(e.path.clone());
                }
            }
            Step::Fresh(Outcome::Skipped(_, _), _) => {}
        }
        steps_kept.push(st);
    }
    for (fi, f) in prev.files.iter().enumerate() {
        let replaced = changes.modified.binary_search(&f.path).is_ok();
        if !seen[fi] && !replaced {
            changes.removed.push(f.path.clone());
        }
    }
    changes.removed.sort();

    let facts_same = changes.is_empty();
    if facts_same {
        for st in &steps_kept {
            if let Step::Fresh(Outcome::Skipped(p, r), _) = st {
                skipped.push((p.clone(), *r));
            }
        }
        skipped.sort_by(|a, b| a.0.cmp(&b.0));
        let walk_same = stats.files_seen == prev.stats.files_seen
            && stats.paths_ignored == prev.stats.paths_ignored;
        if walk_same && skipped == prev.skipped && stamps == prev.stamps && changes.hashed == 0 {
            return Ok(Reconciled::Unchanged);
        }
        let mut index = assemble(
            Some(src.root().to_path_buf()),
            prev.files.clone(),
            prev.graph.clone(),
            stats,
            skipped,
            stamps,
            stamped_at_ns,
            started,
        );
        // Same facts: the resolver's tables still fit.
        index.tables = prev.tables.clone();
        return Ok(Reconciled::Updated(Box::new(index), changes));
    }
    // Same-skips were moved into `skipped` above.
    let t = Instant::now();
    let outcomes: Vec<Outcome> = steps_kept
        .into_iter()
        .filter_map(|st| match st {
            Step::Same(fi) => Some(Outcome::Facts(prev.files[fi].clone())),
            Step::SameSkip(_) => None,
            Step::Fresh(o, _) => Some(o),
        })
        .collect();
    let changed: Vec<&str> = changes
        .added
        .iter()
        .chain(&changes.modified)
        .chain(&changes.removed)
        .map(String::as_str)
        .collect();
    tracing::debug!(
        walk_ms = stats.elapsed_ms.get("walk").copied(),
        stat_ms = stats.elapsed_ms.get("parse").copied(),
        copy_ms = t.elapsed().as_millis() as u64,
        "reconcile: walked, stamped and copied the unchanged facts"
    );
    let mut resolved = 0;
    let index = finish_with(
        &pool,
        Some(src.root().to_path_buf()),
        outcomes,
        stats,
        Extras {
            skipped,
            stamps,
            stamped_at_ns,
            prev: Some(prev),
        },
        started,
        |files| match affected::resolve_incremental(
            &prev.files,
            &prev.graph,
            prev.tables.get().map(|t| &**t),
            files,
            &changed,
        ) {
            Some((res, n)) => {
                resolved = n as u64;
                res
            }
            None => {
                resolved = files.len() as u64;
                super::resolve::resolve(files)
            }
        },
    );
    changes.resolved = resolved;
    Ok(Reconciled::Updated(Box::new(index), changes))
}
