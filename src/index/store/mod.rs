//! The on-disk index of one repository (`docs/contracts.md#cache-layout`): versioned, atomic, checked.
//!
//! A cache folder (`config::cache_dir`: `<user cache dir>/codegraph-tui/<repo>-<hash>/`,
//! never inside the repository) holds:
//!
//! ```text
//! lock                    advisory lock held by the one writer (std `File::try_lock`)
//! CURRENT                 name of the live snapshot folder, replaced atomically
//! snap-<id>/manifest.bin  engine and options fingerprints, root, per-file size, mtime
//!                         (the content hash is in the facts), skips, counts, the
//!                         graph's package roots (`go.mod`, `Cargo.toml` folders)
//! snap-<id>/facts.bin     every FileFacts, in shards that decode in parallel, without
//!                         the definitions' ids and names (nodes.bin has them)
//! snap-<id>/nodes.bin     the graph's nodes, per file (shards as in facts.bin): what a
//!                         command that answers from the graph alone reads instead of
//!                         the facts (`Store::load_graph`)
//! snap-<id>/edges.bin     the resolved edges (CodeGraph::to_raw_parts)
//! snap-<id>/unresolved.bin  the unresolved calls
//! snap-<id>/names.bin     the graph's name indexes (CodeGraph::name_order), so a load
//!                         does not sort every node by id, name and qualified name again
//! text/  vectors/         the search indexes (owned by `search`, self-checking)
//! ```
//!
//! Every `.bin` file is `MAGIC`, the engine fingerprint, the payload length (u64 LE) and
//! the payload's BLAKE3 hash, then the payload (postcard). A save writes a new snapshot
//! folder (each file fsynced), renames it into place, then replaces `CURRENT` (temporary
//! file, fsync, rename, fsync of the folder) and only then deletes older snapshots: a
//! crash at any moment leaves `CURRENT` naming a complete snapshot, the old or the new.
//! `facts.bin` and `nodes.bin` are memory-mapped and decoded in place. A load checks
//! every header, length and hash it reads, the fingerprints and the root; any
//! mismatch is a [`LoadError`] and the caller rebuilds (never a panic, never a partly
//! trusted cache).
//!
//! The engine fingerprint (`build.rs`) hashes every source file of `src/index/` and every
//! query, so a cache written by another build of the extractor or resolver is rebuilt.
//!
//! This module holds the [`Store`] (lock, save, load entry points), the manifest and the
//! fingerprints; the rest is in submodules: `format` (the checked file format), `shards`
//! (the sharded `facts.bin` and `nodes.bin`), `nodes` (`nodes.bin`'s records and their
//! lazy decoding), `unresolved` (`unresolved.bin`), `load` (a snapshot read back) and
//! `reseal` (a chosen payload written as a valid part, for the fuzzing harness).

mod format;
mod load;
mod nodes;
mod reseal;
mod shards;
mod unresolved;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use self::format::{decode, part_error, read_checked, sync_dir, verify_checked, write_value};
use self::load::{put_names_back, read_facts, read_graph};
use self::nodes::{file_chunks_of, ShardNodes};
#[doc(hidden)]
pub use self::reseal::{reseal_part, Part};
use self::shards::{shard_ranges, write_shards};
use self::unresolved::UnresolvedRows;
use super::fsutil::{dir_size, read_regular, remove_any};
use super::project::PackageRoots;
use super::{CodeGraph, FileFacts, FileStamp, Index, IndexOptions, IndexStats, SkipReason};

/// Bumped when the layout of this module's files changes.
pub const SCHEMA_VERSION: u32 = 4;

/// The engine fingerprint: schema version, crate version and the hash of the engine's
/// sources and queries from `build.rs`.
pub fn engine_fingerprint() -> String {
    format!(
        "s{SCHEMA_VERSION}-v{}-{}",
        env!("CARGO_PKG_VERSION"),
        env!("CODEGRAPH_ENGINE_HASH")
    )
}

/// Fingerprint of the options that change what is extracted (size cap, minified rule,
/// chunk sizes, ignore globs); the thread count does not count. A cache written with
/// other options is rebuilt.
pub fn options_fingerprint(o: &IndexOptions) -> String {
    let text = format!(
        "{}|{}|{:?}|{:?}",
        o.caps.max_file_bytes, o.caps.long_line_bytes, o.chunking, o.walk.ignore_globs
    );
    blake3::hash(text.as_bytes()).to_hex()[..16].to_string()
}

/// Errors writing or clearing the cache. Reading never errors: see [`LoadError`].
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A filesystem operation failed.
    #[error("cache {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Serialising failed (a bug, not a disk problem).
    #[error("cache encoding: {0}")]
    Encode(String),
    /// This instance does not hold the lock.
    #[error("cache {0} is locked by another instance (read-only here)")]
    ReadOnly(PathBuf),
}

/// Why a cached index was not used. The caller indexes from scratch and, for the last
/// two, shows the reason once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// No snapshot has been saved yet.
    #[error("no cache yet")]
    Missing,
    /// Written by another engine build, with other options or for another root.
    #[error("cache from {0}; rebuilding")]
    Stale(String),
    /// Truncated, garbled or incomplete.
    #[error("cache damaged ({0}); rebuilding")]
    Corrupt(String),
}

/// The manifest of one snapshot.
#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    options: String,
    root: PathBuf,
    files: u64,
    nodes: u64,
    stats: IndexStats,
    skipped: Vec<(String, SkipReason)>,
    stamps: Vec<(String, FileStamp)>,
    stamped_at_ns: i64,
    /// The BLAKE3 checksum of each other file of the snapshot, as written: a file from
    /// another snapshot (a cache folder pieced together from two copies) is refused even
    /// though its own checksum holds.
    parts: Parts,
    /// The graph's package roots ([`CodeGraph::packages`]): a few entries, read with the
    /// manifest so a graph-only load has them.
    packages: PackageRoots,
}

/// The payload checksums of a snapshot's files besides the manifest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Parts {
    facts: [u8; 32],
    nodes: [u8; 32],
    edges: [u8; 32],
    unresolved: [u8; 32],
    names: [u8; 32],
}

/// The identity of a saved snapshot's content: BLAKE3 over the engine and options
/// fingerprints and the checksums of the snapshot's parts. Snapshots with equal digests
/// hold the same facts and graph, whoever saved them and when. The text index records
/// the digest of the snapshot its documents are the chunks of, so a later process that
/// finds the tree unchanged answers from it without reading any chunk back
/// ([`crate::index::search::text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SnapshotDigest(pub [u8; 32]);

impl SnapshotDigest {
    /// The digest as 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        blake3::Hash::from_bytes(self.0).to_hex().to_string()
    }
}

impl Manifest {
    fn digest(&self) -> SnapshotDigest {
        let mut h = blake3::Hasher::new();
        for s in [engine_fingerprint().as_str(), self.options.as_str()] {
            h.update(&(s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        }
        let p = &self.parts;
        for part in [&p.facts, &p.nodes, &p.edges, &p.unresolved, &p.names] {
            h.update(part);
        }
        SnapshotDigest(*h.finalize().as_bytes())
    }
}

/// A snapshot's record of the tree, from its manifest ([`Store::summary`]). Paths are
/// repo-relative; `skipped` and `stamps` are sorted by path.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The counts of the index as saved.
    pub stats: IndexStats,
    /// Skipped paths with their reasons (as [`Index::skipped`]).
    pub skipped: Vec<(String, SkipReason)>,
    /// Size and mtime of every file read or stat'ed for reading (as [`Index::stamps`]).
    pub stamps: Vec<(String, FileStamp)>,
    /// When reading started, nanoseconds since the Unix epoch (as [`Index::stamped_at_ns`]).
    pub stamped_at_ns: i64,
    /// The snapshot folder.
    snap: PathBuf,
    /// Its files' checksums, from the manifest.
    parts: Parts,
    /// Files and graph nodes, from the manifest.
    files: u64,
    nodes: u64,
    /// The graph's package roots, from the manifest.
    packages: PackageRoots,
    /// The snapshot's identity.
    digest: SnapshotDigest,
}

impl Summary {
    /// The identity of the snapshot's content.
    pub fn digest(&self) -> SnapshotDigest {
        self.digest
    }
}

/// One repository's cache folder, opened as the writer or read-only.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    /// The locked lock file when this instance is the writer.
    lock: Option<File>,
    /// The lock file locked again after the folder or its lock file was removed while this
    /// instance was the writer (see [`Store::hold_lock`]).
    relocked: std::sync::Mutex<Option<File>>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl Store {
    /// Opens (creating it) the cache folder `dir` and takes the writer's lock; when another
    /// process holds it, the store is read-only ([`Store::is_writer`] is `false`). With
    /// `patient`, a held lock is tried again for up to 200 ms first, for a holder that is
    /// just going away (an instance exiting, or a child process between fork and exec
    /// sharing the lock); without, one try (a reader that only may write does not wait
    /// behind a running TUI on every run).
    ///
    /// Errors: [`StoreError::Io`] when the folder or its lock file cannot be created.
    pub fn open(dir: &Path, patient: bool) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let lock_path = dir.join("lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock_path)
            .map_err(io(&lock_path))?;
        let mut attempt = file.try_lock();
        for _ in 0..if patient { 10 } else { 0 } {
            if !matches!(attempt, Err(std::fs::TryLockError::WouldBlock)) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            attempt = file.try_lock();
        }
        let lock = match attempt {
            Ok(()) => Some(file),
            Err(std::fs::TryLockError::WouldBlock) => {
                tracing::info!(dir = %dir.display(), "cache locked by another instance: read-only");
                None
            }
            Err(std::fs::TryLockError::Error(e)) => {
                // Locks unsupported (some network filesystems): write anyway, as the
                // atomic snapshot swap keeps readers safe; two writers only waste work.
                tracing::warn!(dir = %dir.display(), "cannot lock the cache ({e}); writing unlocked");
                Some(file)
            }
        };
        Ok(Store {
            dir: dir.to_path_buf(),
            lock,
            relocked: std::sync::Mutex::new(None),
        })
    }

    /// Checks, before a write, that this writer still holds the folder's lock. If the
    /// folder or its lock file was removed since (by hand, while a TUI or watcher runs),
    /// the lock is on a file no other instance can see: a new one is created and locked,
    /// so that an instance started after the save finds it held and opens read-only
    /// (without this, two writers can save at the same moment).
    ///
    /// Errors: [`StoreError::ReadOnly`] when this instance is not the writer, or another
    /// instance locked the new lock file first (this one then never writes again);
    /// [`StoreError::Io`] when the folder or lock file cannot be made.
    fn hold_lock(&self) -> Result<(), StoreError> {
        let Some(held) = &self.lock else {
            return Err(StoreError::ReadOnly(self.dir.clone()));
        };
        let path = self.dir.join("lock");
        let is_lock_file = |f: &File| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                match (f.metadata(), std::fs::metadata(&path)) {
                    (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
                    _ => false,
                }
            }
            #[cfg(not(unix))]
            {
                let _ = f;
                path.exists()
            }
        };
        if is_lock_file(held) {
            return Ok(());
        }
        let mut relocked = self.relocked.lock().unwrap_or_else(|p| p.into_inner());
        if relocked.as_ref().is_some_and(is_lock_file) {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(io(&path))?;
        match file.try_lock() {
            Ok(()) => {
                tracing::warn!(dir = %self.dir.display(), "the cache's lock file was removed: locked a new one");
                *relocked = Some(file);
                Ok(())
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                tracing::warn!(dir = %self.dir.display(), "the cache's lock file was removed and another instance holds the new one: not writing");
                Err(StoreError::ReadOnly(self.dir.clone()))
            }
            // Locks unsupported: as `open` does, write unlocked.
            Err(std::fs::TryLockError::Error(_)) => Ok(()),
        }
    }

    /// The cache folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `true` when this instance holds the lock and may write.
    pub fn is_writer(&self) -> bool {
        self.lock.is_some()
    }

    fn current(&self) -> Result<PathBuf, LoadError> {
        let name = match read_regular(&self.dir.join("CURRENT")) {
            Ok(n) => String::from_utf8_lossy(&n).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(LoadError::Missing),
            Err(e) => return Err(LoadError::Corrupt(format!("CURRENT: {e}"))),
        };
        let name = name.trim();
        if !name.starts_with("snap-") || name.contains(['/', '\\']) || name.contains("..") {
            return Err(LoadError::Corrupt(format!("CURRENT names {name:?}")));
        }
        let snap = self.dir.join(name);
        if !snap.is_dir() {
            // Said as such: "manifest.bin: No such file" would blame a file of a folder
            // that is not there.
            return Err(LoadError::Corrupt(format!(
                "CURRENT names {name:?}, which is not a snapshot folder"
            )));
        }
        Ok(snap)
    }

    /// The live snapshot's folder and manifest, when it was written for `root` with
    /// `options`.
    ///
    /// Errors: as [`load`](Store::load), for the manifest.
    fn manifest(
        &self,
        root: &Path,
        options: &IndexOptions,
    ) -> Result<(PathBuf, Manifest), LoadError> {
        let snap = self.current()?;
        let manifest: Manifest =
            decode(&read_checked(&snap.join("manifest.bin"), None)?, "manifest")?;
        if manifest.options != options_fingerprint(options) {
            return Err(LoadError::Stale("other index options".into()));
        }
        if manifest.root != root {
            return Err(LoadError::Stale(format!(
                "another root ({})",
                manifest.root.display()
            )));
        }
        Ok((snap, manifest))
    }

    /// Loads the live snapshot for `root` (canonical) written with `options`.
    ///
    /// Errors: [`LoadError::Missing`] when nothing was saved; [`LoadError::Stale`] for
    /// another engine build, other options or another root; [`LoadError::Corrupt`] for
    /// any damage (the reason names the file).
    pub fn load(&self, root: &Path, options: &IndexOptions) -> Result<Index, LoadError> {
        self.load_current(root, options).map(|(index, _)| index)
    }

    /// [`load`](Store::load), also returning the loaded snapshot's identity.
    ///
    /// Errors: as [`load`](Store::load).
    pub fn load_current(
        &self,
        root: &Path,
        options: &IndexOptions,
    ) -> Result<(Index, SnapshotDigest), LoadError> {
        let started = std::time::Instant::now();
        let (snap, manifest) = self.manifest(root, options)?;
        let digest = manifest.digest();
        let counts = (manifest.files, manifest.nodes);
        let (graph, files) = read_graph(&snap, &manifest.parts, counts, true)?;
        let graph = graph.with_packages(manifest.packages);
        let mut stats = manifest.stats;
        stats.elapsed_ms.clear();
        stats
            .elapsed_ms
            .insert("load".into(), started.elapsed().as_millis() as u64);
        let index = Index {
            root: Some(manifest.root),
            files,
            graph: Arc::new(graph),
            stats,
            skipped: manifest.skipped,
            stamps: manifest.stamps.into_iter().collect(),
            stamped_at_ns: manifest.stamped_at_ns,
            tables: std::sync::OnceLock::new(),
        };
        Ok((index, digest))
    }

    /// The graph of the snapshot `summary` describes, without the facts it was resolved
    /// from (`facts.bin` is not read): for commands that answer from the graph alone once
    /// `incremental::unchanged_since` has found the tree as
    /// saved. Nodes are decoded and unresolved calls grouped on first use: on the fetch.sh
    /// Rust tree the graph is ready in about 0.19 s, against about 0.68 s for a full load
    /// (`-v`, the "load: graph" lines of a warm command and of `index --watch`).
    ///
    /// Errors: [`LoadError::Corrupt`] for any damage, as [`load`](Store::load) reports it.
    pub fn load_graph(&self, summary: &Summary) -> Result<CodeGraph, LoadError> {
        let counts = (summary.files, summary.nodes);
        let (graph, _) = read_graph(&summary.snap, &summary.parts, counts, false)?;
        Ok(graph.with_packages(summary.packages.clone()))
    }

    /// The facts of the snapshot `summary` describes, for `graph`, the graph
    /// [`load_graph`](Store::load_graph) gave from it: its definitions' ids and names are
    /// the graph's nodes' own (shared, as after an index).
    ///
    /// Errors: [`LoadError::Corrupt`] for any damage, or facts that do not fit `graph`.
    pub fn load_facts(
        &self,
        summary: &Summary,
        graph: &CodeGraph,
    ) -> Result<Vec<Arc<FileFacts>>, LoadError> {
        let t = std::time::Instant::now();
        let mut files = read_facts(&summary.snap.join("facts.bin"), &summary.parts.facts)
            .map_err(part_error)?;
        // The graph has as many chunks as the manifest has files (`load_graph` checked).
        put_names_back(&mut files, &graph.chunks())?;
        tracing::debug!(
            ms = t.elapsed().as_millis() as u64,
            "load: facts for the graph"
        );
        Ok(files)
    }

    /// What the live snapshot for `root` (canonical) written with `options` records about
    /// the tree, from its manifest alone: enough to tell whether anything changed since
    /// (`incremental::unchanged_since`) and to
    /// answer `index`. Nothing else is read; [`verify`](Store::verify) checks the rest.
    ///
    /// Errors: as [`load`](Store::load), for the manifest.
    pub fn summary(&self, root: &Path, options: &IndexOptions) -> Result<Summary, LoadError> {
        let (snap, manifest) = self.manifest(root, options)?;
        Ok(Summary {
            digest: manifest.digest(),
            stats: manifest.stats,
            skipped: manifest.skipped,
            stamps: manifest.stamps,
            stamped_at_ns: manifest.stamped_at_ns,
            snap,
            parts: manifest.parts,
            files: manifest.files,
            nodes: manifest.nodes,
            packages: manifest.packages,
        })
    }

    /// Checks the header, length and BLAKE3 checksum of every file of the snapshot
    /// `summary` came from, decoding nothing: a snapshot that passes loads (its files were
    /// written and checked by this engine build). About 0.1 s for the 380 MB snapshot of
    /// the fetch.sh Rust tree on two threads, against 0.6 s to decode it.
    ///
    /// Errors: [`LoadError::Corrupt`] naming the damaged file, [`LoadError::Stale`] for
    /// another engine build.
    pub fn verify(&self, summary: &Summary) -> Result<(), LoadError> {
        let p = &summary.parts;
        let files = [
            ("facts.bin", &p.facts),
            ("nodes.bin", &p.nodes),
            ("edges.bin", &p.edges),
            ("unresolved.bin", &p.unresolved),
            ("names.bin", &p.names),
        ];
        files.par_iter().try_for_each(|(name, expect)| {
            verify_checked(&summary.snap.join(name), expect).map_err(part_error)
        })
    }

    /// Saves `index` (built with `options`) as the new live snapshot, atomically.
    ///
    /// Errors: [`StoreError::ReadOnly`] when another instance holds the lock;
    /// [`StoreError::Io`] for a disk problem (the previous snapshot stays live).
    pub fn save(
        &self,
        index: &Index,
        options: &IndexOptions,
    ) -> Result<SnapshotDigest, StoreError> {
        self.hold_lock()?;
        let root = index
            .root
            .clone()
            .ok_or_else(|| StoreError::Encode("only indexes of a directory are cached".into()))?;
        tracing::debug!(rss_mib = ?super::rss_mib(), "saving the cache");
        let manifest = Manifest {
            options: options_fingerprint(options),
            root,
            files: index.files.len() as u64,
            nodes: index.graph.node_count() as u64,
            stats: index.stats.clone(),
            skipped: index.skipped.clone(),
            stamps: index.stamps.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            stamped_at_ns: index.stamped_at_ns,
            // Filled in once the other files are written.
            parts: Parts::default(),
            packages: index.graph.packages().clone(),
        };
        // Time, process and a per-process counter: never the name of a live snapshot.
        static SAVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = format!("snap-{:x}-{}-{n}", super::now_ns(), std::process::id());
        let tmp = self.dir.join(format!(".{id}.tmp"));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
        // Every file is encoded straight into the disk writer, read in place from the
        // index: a save holds no encoded copy of any part (the parts besides the facts
        // are 45 MB on the fetch.sh corpus, in buffers that would double as they grew).
        let written = (|| {
            let shards = shard_ranges(&index.files);
            let chunks = file_chunks_of(index)?;
            let (facts, rest) = rayon::join(
                || {
                    let facts = shards.iter().map(|r| &index.files[r.clone()]).collect();
                    write_shards(&tmp.join("facts.bin"), facts)
                },
                || -> Result<_, StoreError> {
                    let nodes = shards
                        .iter()
                        .map(|r| ShardNodes(&chunks[r.clone()]))
                        .collect();
                    Ok((
                        write_shards(&tmp.join("nodes.bin"), nodes)?,
                        write_value(&tmp.join("edges.bin"), &index.graph.raw_edges_ser())?,
                        write_value(&tmp.join("unresolved.bin"), &UnresolvedRows(&index.graph))?,
                        write_value(&tmp.join("names.bin"), &index.graph.name_order_ser())?,
                    ))
                },
            );
            let (nodes, edges, unresolved, names) = rest?;
            let manifest = Manifest {
                parts: Parts {
                    facts: facts?,
                    nodes,
                    edges,
                    unresolved,
                    names,
                },
                ..manifest
            };
            write_value(&tmp.join("manifest.bin"), &manifest)?;
            sync_dir(&tmp)?;
            Ok(manifest.digest())
        })();
        let digest = match written {
            Ok(d) => d,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(e);
            }
        };
        let snap = self.dir.join(&id);
        std::fs::rename(&tmp, &snap).map_err(io(&snap))?;
        let cur_tmp = self.dir.join(".CURRENT.tmp");
        (|| {
            let mut f = File::create(&cur_tmp)?;
            f.write_all(id.as_bytes())?;
            f.sync_all()
        })()
        .map_err(io(&cur_tmp))?;
        let cur = self.dir.join("CURRENT");
        // A folder where `CURRENT` belongs (damage) would refuse every rename onto it.
        if std::fs::symlink_metadata(&cur).is_ok_and(|m| m.is_dir()) {
            remove_any(&cur).map_err(io(&cur))?;
        }
        std::fs::rename(&cur_tmp, &cur).map_err(io(&cur))?;
        sync_dir(&self.dir)?;
        self.collect_garbage(&id);
        tracing::debug!(rss_mib = ?super::rss_mib(), "cache saved");
        Ok(digest)
    }

    /// Deletes snapshot folders other than `keep` (and leftovers of interrupted saves).
    fn collect_garbage(&self, keep: &str) {
        let Ok(rd) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let stale_snap = name.starts_with("snap-") && name != keep;
            let stale_tmp = name.starts_with(".snap-") && name.ends_with(".tmp");
            if stale_snap || stale_tmp {
                if let Err(err) = std::fs::remove_dir_all(e.path()) {
                    tracing::debug!(path = %e.path().display(), "cannot remove: {err}");
                }
            }
        }
    }

    /// Discards everything cached for this repository (`index --rebuild`): snapshots and
    /// the search indexes. The lock file stays.
    ///
    /// Errors: [`StoreError::ReadOnly`] when another instance holds the lock;
    /// [`StoreError::Io`] when something cannot be removed.
    pub fn clear(&self) -> Result<(), StoreError> {
        if !self.is_writer() {
            return Err(StoreError::ReadOnly(self.dir.clone()));
        }
        let cur = self.dir.join("CURRENT");
        // A folder in its place too (a damaged cache): `--rebuild` must clear it.
        remove_any(&cur).map_err(io(&cur))?;
        self.collect_garbage("");
        for sub in ["text", "vectors"] {
            let p = self.dir.join(sub);
            // Whatever is there: a folder, or a file or link in a folder's place.
            remove_any(&p).map_err(io(&p))?;
        }
        Ok(())
    }

    /// Bytes on disk of the live snapshot plus the search indexes.
    pub fn size_bytes(&self) -> u64 {
        let snap = self.current().map(|p| dir_size(&p)).unwrap_or(0);
        snap + dir_size(&self.dir.join("text")) + dir_size(&self.dir.join("vectors"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose folder was removed locks a new lock file before it writes, so an
    /// instance opened after finds it held; if another instance locked it first, the old
    /// writer no longer writes.
    #[test]
    fn a_writer_whose_folder_was_removed_locks_it_again_or_stops_writing() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("c");
        let first = Store::open(&cache, false).unwrap();
        assert!(first.is_writer());
        std::fs::remove_dir_all(&cache).unwrap();
        first.hold_lock().unwrap();
        assert!(cache.join("lock").is_file());
        assert!(!Store::open(&cache, false).unwrap().is_writer());
        first.hold_lock().unwrap();

        std::fs::remove_dir_all(&cache).unwrap();
        let second = Store::open(&cache, false).unwrap();
        assert!(
            second.is_writer(),
            "the folder was gone: the newcomer writes"
        );
        assert!(matches!(first.hold_lock(), Err(StoreError::ReadOnly(_))));
        assert!(second.hold_lock().is_ok());
    }

    /// A second store on a locked folder is read-only; only a patient one waits (for a
    /// holder about to exit) before settling for that.
    #[test]
    fn only_a_patient_store_waits_for_a_held_lock() {
        let dir = tempfile::tempdir().unwrap();
        let writer = Store::open(dir.path(), false).unwrap();
        assert!(writer.is_writer());
        let t = std::time::Instant::now();
        let quick = Store::open(dir.path(), false).unwrap();
        let quick_took = t.elapsed();
        let t = std::time::Instant::now();
        let patient = Store::open(dir.path(), true).unwrap();
        let patient_took = t.elapsed();
        assert!(!quick.is_writer() && !patient.is_writer());
        assert!(patient_took >= std::time::Duration::from_millis(200));
        assert!(
            quick_took < std::time::Duration::from_millis(150),
            "{quick_took:?}"
        );
        drop(writer);
        assert!(Store::open(dir.path(), false).unwrap().is_writer());
    }
}
