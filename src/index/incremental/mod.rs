//! Reconciling an index with the disk (`docs/ARCHITECTURE.md`, "`src/index/incremental/`";
//! the stored stamps, `docs/contracts.md#cache-layout`): walk again, re-read only
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
    assemble, begin_run, finish_with, fs_source, now_ns, pool, process, Extras, FileStamp,
    FsSource, Index, IndexError, IndexOptions, IndexStats, Outcome, SkipReason,
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
    /// `true` when only the paths a watcher reported were looked at ([`reconcile`]'s fast
    /// path), not the whole tree: [`walk_matches`] should follow when the watcher is idle,
    /// and a full reconciliation if it fails, to count what watchers do not report (files
    /// of unknown type appearing, ignored paths).
    pub reported_only: bool,
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

/// Whether a file whose stamp is now `cur` can be taken as unchanged without reading it:
/// the same stamp as `old`, recorded by a read that began at `stamped_at_ns`, and not
/// racily clean.
fn stamp_holds(old: &FileStamp, cur: &FileStamp, stamped_at_ns: i64) -> bool {
    old == cur && !is_racy(old, stamped_at_ns)
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
        if stamp_holds(old, &cur, prev.stamped_at_ns) {
            match (prev_fi, prev_skip) {
                (Some(fi), _) => return (Step::Same(fi), Some(cur), false),
                (None, Some(r)) => return (Step::SameSkip(r), Some(cur), false),
                (None, None) => {}
            }
        }
    }
    let (stamp, step) =
        super::with_read(src, e, options.caps.max_file_bytes, |input| match input {
            Ok(input) => {
                if let Some(fi) = prev_fi {
                    let hash = blake3::hash(&input.bytes).to_hex();
                    if prev.files[fi].content_hash == hash.as_str() {
                        return Step::Same(fi);
                    }
                }
                Step::Fresh(process(input, options), prev_fi.is_some())
            }
            Err(r) => Step::Fresh(Outcome::Skipped(e.path.clone(), r), prev_fi.is_some()),
        });
    (step, stamp, true)
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
    if let Some(r) = reconcile_reported(root, prev, options)? {
        return Ok(r);
    }
    let (started, src, pool, walked, stats) = begin_run(root, options)?;
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
    let run = Run::new((started, t), src, pool, stats, stamped_at_ns, true);
    Ok(conclude(run, prev, &walked.files, steps, walked.skipped))
}

/// Whether a walk of `root` comes out as `prev`'s did: the same counts (files seen, paths
/// ignored) and the same paths, each indexed or skipped as before (walk skips with the
/// same reason). No file is stat'ed or read. The check that follows an update made from a
/// watcher's report alone ([`Changes::reported_only`]): when it fails, a full
/// [`reconcile`] brings in what the watcher did not report.
///
/// Errors: as [`index_repo`](super::index_repo).
pub fn walk_matches(root: &Path, prev: &Index, options: &IndexOptions) -> Result<bool, IndexError> {
    let (_, _, _, walked, stats) = begin_run(root, options)?;
    if !same_walk_counts(&stats, &prev.stats) {
        return Ok(false);
    }
    let mut was: Vec<&str> = prev
        .files
        .iter()
        .map(|f| f.path.as_str())
        .chain(prev.skipped.iter().map(|(p, _)| p.as_str()))
        .collect();
    let mut now: Vec<&str> = walked
        .files
        .iter()
        .map(|e| e.path.as_str())
        .chain(walked.skipped.iter().map(|(p, _)| p.as_str()))
        .collect();
    was.sort_unstable();
    now.sort_unstable();
    Ok(was == now && same_walk_skips(&walked.skipped, &prev.skipped))
}

/// The walk's counts (files seen, paths ignored) are the recorded ones.
fn same_walk_counts(now: &IndexStats, was: &IndexStats) -> bool {
    now.files_seen == was.files_seen && now.paths_ignored == was.paths_ignored
}

/// Every path the walk skipped is recorded as skipped for the same reason (`was` sorted
/// by path).
fn same_walk_skips(now: &[(String, SkipReason)], was: &[(String, SkipReason)]) -> bool {
    now.iter().all(|(p, r)| {
        was.binary_search_by(|s| s.0.as_str().cmp(p))
            .is_ok_and(|i| was[i].1 == *r)
    })
}

/// Whether the tree under `root` is still as the snapshot `s` records it: the same walk
/// (counts, paths, walk-time skips) and every file's size and mtime as stamped, none of
/// them "racily clean" (see [`RACY_NS`]). Nothing is read. `false` whenever a
/// [`reconcile`] could find something to do, so the caller then loads and reconciles; a
/// `true` lets a command that needs no more than the counts answer from the manifest.
///
/// Errors: as [`index_repo`](super::index_repo).
pub fn unchanged_since(
    root: &Path,
    s: &super::store::Summary,
    options: &IndexOptions,
) -> Result<bool, IndexError> {
    if options.recheck.is_some() {
        return Ok(false);
    }
    let (_, src, pool, walked, stats) = begin_run(root, options)?;
    if !same_walk_counts(&stats, &s.stats) || walked.files.len() != s.stamps.len() {
        return Ok(false);
    }
    // Every walked file has its unchanged stamp: with as many stamps as files, the stamped
    // paths are the walked ones.
    let stamps_hold = pool.install(|| {
        walked.files.par_iter().all(|e| {
            let old = match s.stamps.binary_search_by(|(p, _)| p.as_str().cmp(&e.path)) {
                Ok(i) => &s.stamps[i].1,
                Err(_) => return false,
            };
            src.stamp(e)
                .is_some_and(|cur| stamp_holds(old, &cur, s.stamped_at_ns))
        })
    });
    if !stamps_hold {
        return Ok(false);
    }
    // The skips: the walk's own, with the same reasons, plus the stamped files skipped when
    // read (binary, too large), which stay skipped while their stamps hold.
    let read_skips = walked
        .files
        .iter()
        .filter(|e| {
            s.skipped
                .binary_search_by(|(p, _)| p.as_str().cmp(&e.path))
                .is_ok()
        })
        .count();
    Ok(s.skipped.len() == walked.skipped.len() + read_skips
        && same_walk_skips(&walked.skipped, &s.skipped))
}

impl Run {
    /// A run begun at `times.0` whose files were decided from `times.1` on (recorded as
    /// the "parse" phase in `stats`).
    fn new(
        times: (Instant, Instant),
        src: FsSource,
        pool: rayon::ThreadPool,
        mut stats: IndexStats,
        stamped_at_ns: i64,
        walked: bool,
    ) -> Run {
        stats
            .elapsed_ms
            .insert("parse".into(), times.1.elapsed().as_millis() as u64);
        Run {
            started: times.0,
            src,
            pool,
            stats,
            stamped_at_ns,
            walked,
        }
    }
}

/// A reconciliation in progress: what [`conclude`] needs besides the steps.
struct Run {
    started: Instant,
    src: FsSource,
    pool: rayon::ThreadPool,
    /// The walk's counts (files seen, paths ignored) and timings.
    stats: IndexStats,
    stamped_at_ns: i64,
    walked: bool,
}

/// The fast path of [`reconcile`] for a watcher's report (`options.recheck`): when every
/// reported path is a file the previous index read (indexed, windowed, binary or too
/// large: it has a stamp) and is still a regular file, and no ignore file is among them,
/// the walk can only come out as before. So the previous walk is replayed (its files and
/// skips), only the reported files are read again, and the rest of the reconciliation
/// runs unchanged: on the Rust tree of the fetch.sh corpus this saves the walk and stat of
/// 13K paths (about 70 ms) of a one-file update. `None` when the fast path does not apply
/// (a new, deleted or renamed path, a folder, an ignore file): then the tree is walked.
///
/// What a watcher does not report (files of unknown type, ignored paths) changes no facts
/// but may change the walk's counts: the caller checks the walk afterwards
/// ([`Changes::reported_only`] is `true`; see [`walk_matches`]).
fn reconcile_reported(
    root: &Path,
    prev: &Index,
    options: &IndexOptions,
) -> Result<Option<Reconciled>, IndexError> {
    let Some(reported) = options.recheck.as_deref().filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    let ignore_file = |p: &str| {
        let name = p.rsplit('/').next().unwrap_or(p);
        name == ".gitignore" || name == ".ignore"
    };
    if reported
        .iter()
        .any(|p| !prev.stamps.contains_key(p) || ignore_file(p))
    {
        return Ok(None);
    }
    let started = Instant::now();
    let src = fs_source(root, options)?;
    if prev.root.as_deref() != Some(src.root()) {
        return Ok(None);
    }
    let regular =
        |p: &str| std::fs::symlink_metadata(src.root().join(p)).is_ok_and(|m| m.is_file());
    if !reported.iter().all(|p| regular(p)) {
        return Ok(None);
    }
    let pool = pool(options.threads)?;
    // The previous walk: its files are the stamped paths (sorted: a `BTreeMap`), its own
    // skips (unknown type, links, unreadable) the skips without a stamp.
    let files: Vec<FsEntry> = prev
        .stamps
        .keys()
        .map(|p| FsEntry {
            path: p.clone(),
            abs: src.root().join(p),
        })
        .collect();
    let walk_skips: Vec<(String, SkipReason)> = prev
        .skipped
        .iter()
        .filter(|(p, _)| !prev.stamps.contains_key(p))
        .cloned()
        .collect();
    let t = Instant::now();
    let steps: Option<Vec<(Step, Option<FileStamp>, bool)>> = pool.install(|| {
        files
            .par_iter()
            .map(|e| {
                if reported.contains(&e.path) {
                    return Some(step(&src, e, prev, options));
                }
                let stamp = prev.stamps.get(&e.path).copied();
                let st = match prev
                    .files
                    .binary_search_by(|f| f.path.as_str().cmp(&e.path))
                {
                    Ok(fi) => Step::Same(fi),
                    Err(_) => {
                        let i = prev
                            .skipped
                            .binary_search_by(|s| s.0.as_str().cmp(&e.path))
                            .ok()?;
                        Step::SameSkip(prev.skipped[i].1)
                    }
                };
                Some((st, stamp, false))
            })
            .collect()
    });
    // A stamped path with neither facts nor a skip: not an index this replays; walk.
    let Some(steps) = steps else {
        return Ok(None);
    };
    let mut stats = IndexStats {
        files_seen: prev.stats.files_seen,
        paths_ignored: prev.stats.paths_ignored,
        ..IndexStats::default()
    };
    stats.elapsed_ms.insert("walk".into(), 0);
    // The previous reading's moment: files it stamped near it stay "racy".
    let run = Run::new((started, t), src, pool, stats, prev.stamped_at_ns, false);
    Ok(Some(conclude(run, prev, &files, steps, walk_skips)))
}

/// The rest of a reconciliation once every walked file has its [`Step`]: what changed,
/// then the new index (resolved again where facts changed).
fn conclude(
    run: Run,
    prev: &Index,
    walked_files: &[FsEntry],
    steps: Vec<(Step, Option<FileStamp>, bool)>,
    walk_skips: Vec<(String, SkipReason)>,
) -> Reconciled {
    let Run {
        started,
        src,
        pool,
        stats,
        stamped_at_ns,
        walked,
    } = run;
    let mut changes = Changes {
        reported_only: !walked,
        ..Changes::default()
    };
    let mut seen = vec![false; prev.files.len()];
    let mut stamps = BTreeMap::new();
    let mut skipped = walk_skips;
    let mut steps_kept = Vec::with_capacity(steps.len());
    // A file hashed again because its stamp was racily clean: saving only helps when the
    // new read time makes its stamp trustworthy (a file dated in the future stays racy,
    // and saving a whole snapshot at every run for it would be waste).
    let mut clears_racy = false;
    for (e, (st, stamp, hashed)) in walked_files.iter().zip(steps) {
        if let Some(s) = stamp {
            clears_racy |= hashed && is_racy(&s, prev.stamped_at_ns) && !is_racy(&s, stamped_at_ns);
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
        if same_walk_counts(&stats, &prev.stats)
            && skipped == prev.skipped
            && stamps == prev.stamps
            && !clears_racy
        {
            return Reconciled::Unchanged;
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
        return Reconciled::Updated(Box::new(index), changes);
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
        |files, enclosing| match affected::resolve_incremental(
            &prev.files,
            &prev.graph,
            prev.tables.get().map(|t| &**t),
            files,
            enclosing,
            &changed,
        ) {
            Some((res, n)) => {
                resolved = n as u64;
                res
            }
            None => {
                resolved = files.len() as u64;
                super::resolve::resolve(files, enclosing)
            }
        },
    );
    changes.resolved = resolved;
    Reconciled::Updated(Box::new(index), changes)
}
