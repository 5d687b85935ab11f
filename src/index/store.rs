//! The on-disk index of one repository (DESIGN section 7): versioned, atomic, checked.
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

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::graph::{
    ChunkSource, NameOrder, Node, NodeChunk, RawEdge, UnresolvedMap, UnresolvedSource,
};
use super::project::PackageRoots;
use super::{CodeGraph, FileFacts, FileStamp, Index, IndexOptions, IndexStats};
use super::{SkipReason, Unresolved};

/// Bumped when the layout of this module's files changes.
pub const SCHEMA_VERSION: u32 = 4;

/// First bytes of every cache file.
const MAGIC: &[u8; 8] = b"CGTIDX\x00\x01";

/// Files per facts shard (shards are encoded and decoded in parallel).
const SHARD_FILES: usize = 256;

/// Source bytes per facts shard at most (a shard holds at least one file): the facts of
/// 256 generated files (windows-sys) can encode to tens of MiB, and a save holds a few
/// shards in memory at a time.
const SHARD_SOURCE_BYTES: u64 = 4 << 20;

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
}

/// One caller's unresolved calls as `unresolved.bin` stores them: the caller's node
/// position and id, its file (as the length of the id's prefix that is the path, which it
/// is for every id the engine makes, DESIGN section 4; or whole), then the calls. With the
/// id stored, a load groups the calls without decoding the caller's node (see
/// [`UnresolvedSource`]): on the fetch.sh corpus that was every file's nodes, before any
/// walk could count what it might be missing. Strings are borrowed (`Cow`): from the
/// graph when saving, from the file's bytes when loading.
#[derive(Debug, Serialize, Deserialize)]
struct CallerRow<'a> {
    caller: u32,
    #[serde(borrow)]
    id: Cow<'a, str>,
    /// The caller's file is `id[..path_len]` when `file` is `None`.
    path_len: u32,
    #[serde(borrow)]
    file: Option<Cow<'a, str>>,
    #[serde(borrow)]
    calls: Vec<CallRow<'a>>,
}

/// An unresolved call as stored in its caller's [`CallerRow`]: the site's file only when
/// it is not the caller's (it always is today; the field keeps the format honest).
#[derive(Debug, Serialize, Deserialize)]
struct CallRow<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    receiver: Option<Cow<'a, str>>,
    #[serde(borrow)]
    file: Option<Cow<'a, str>>,
    line: u32,
    column: u32,
    reason: super::UnresolvedReason,
}

/// Every unresolved call of a graph by caller, serialized as a `Vec<CallerRow>` straight
/// from the graph (no row list is built: 550K calls of 95K callers on the fetch.sh corpus).
struct UnresolvedRows<'a>(&'a super::CodeGraph);

impl Serialize for UnresolvedRows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let g = self.0;
        let groups = g.unresolved_groups();
        let mut seq = s.serialize_seq(Some(g.unresolved_callers()))?;
        for (caller, calls) in groups {
            let (pos, file) = g.position_of(caller).ok_or_else(|| {
                S::Error::custom(format!("unresolved call of unknown node {caller}"))
            })?;
            let prefix = caller.starts_with(file);
            seq.serialize_element(&CallerRow {
                caller: pos,
                id: Cow::Borrowed(caller),
                path_len: if prefix { file.len() as u32 } else { 0 },
                file: (!prefix).then_some(Cow::Borrowed(file)),
                calls: calls
                    .iter()
                    .map(|u| CallRow {
                        name: (&*u.name).into(),
                        receiver: u.receiver.as_deref().map(Into::into),
                        file: (&*u.site.file != file).then(|| (&*u.site.file).into()),
                        line: u.site.line,
                        column: u.site.column,
                        reason: u.reason,
                    })
                    .collect(),
            })?;
        }
        seq.end()
    }
}

/// The unresolved call a stored row describes, made by `caller` in the file `path`.
fn unresolved_of_row(r: CallRow<'_>, caller: &Arc<str>, path: &Arc<str>) -> Unresolved {
    Unresolved {
        caller: caller.clone(),
        name: Arc::from(&*r.name),
        receiver: r.receiver.map(|r| Arc::from(&*r)),
        site: super::graph::Site {
            file: r.file.map_or_else(|| path.clone(), |f| Arc::from(&*f)),
            line: r.line,
            column: r.column,
        },
        reason: r.reason,
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
    /// so that an instance started after the save finds it held and opens read-only (a
    /// fresh-eyes test had two writers saving at the same moment that way).
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
            // Said as such: "manifest.bin: No such file" blamed a file of a folder that
            // is not there (fresh-eyes report).
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
        let started = std::time::Instant::now();
        let (snap, manifest) = self.manifest(root, options)?;
        let counts = (manifest.files, manifest.nodes);
        let (graph, files) = read_graph(&snap, &manifest.parts, counts, true)?;
        let graph = graph.with_packages(manifest.packages);
        let mut stats = manifest.stats;
        stats.elapsed_ms.clear();
        stats
            .elapsed_ms
            .insert("load".into(), started.elapsed().as_millis() as u64);
        Ok(Index {
            root: Some(manifest.root),
            files,
            graph: Arc::new(graph),
            stats,
            skipped: manifest.skipped,
            stamps: manifest.stamps.into_iter().collect(),
            stamped_at_ns: manifest.stamped_at_ns,
            tables: std::sync::OnceLock::new(),
        })
    }

    /// The graph of the snapshot `summary` describes, without the facts it was resolved
    /// from (`facts.bin` is not read): for commands that answer from the graph alone once
    /// [`unchanged_since`](super::incremental::unchanged_since) has found the tree as
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
    /// ([`incremental::unchanged_since`](super::incremental::unchanged_since)) and to
    /// answer `index`. Nothing else is read; [`verify`](Store::verify) checks the rest.
    ///
    /// Errors: as [`load`](Store::load), for the manifest.
    pub fn summary(&self, root: &Path, options: &IndexOptions) -> Result<Summary, LoadError> {
        let (snap, manifest) = self.manifest(root, options)?;
        Ok(Summary {
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
    pub fn save(&self, index: &Index, options: &IndexOptions) -> Result<(), StoreError> {
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
        // were 45 MB on the fetch.sh corpus, in buffers that doubled as they grew).
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
            sync_dir(&tmp)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
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
        Ok(())
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
        use super::search::text::dir_size;
        let snap = self.current().map(|p| dir_size(&p)).unwrap_or(0);
        snap + dir_size(&self.dir.join("text")) + dir_size(&self.dir.join("vectors"))
    }
}

fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8], what: &str) -> Result<T, LoadError> {
    postcard::from_bytes(bytes).map_err(|e| LoadError::Corrupt(format!("{what}: {e}")))
}

/// The payload of a cache file on its way to disk: counted and hashed as it passes.
/// It sits below a `BufWriter`, so the hasher sees large blocks, not postcard's bytes.
struct Payload {
    file: File,
    /// Offset of the header's payload length (see [`header_prefix`]).
    at: u64,
    hasher: blake3::Hasher,
    len: u64,
    /// The first write error: postcard reports any as "buffer full", this keeps the cause.
    error: Option<std::io::Error>,
}

impl Write for Payload {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.file.write(buf) {
            Ok(n) => {
                self.hasher.update(&buf[..n]);
                self.len += n as u64;
                Ok(n)
            }
            Err(e) => {
                let copy = std::io::Error::new(e.kind(), e.to_string());
                self.error.get_or_insert(e);
                Err(copy)
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Bytes a [`Payload`]'s writer gathers before each write to the file.
const WRITE_BUFFER: usize = 256 << 10;

/// Starts a cache file: the header with a zero length and checksum, then a writer for the
/// payload; [`finish_checked`] fills in the length and checksum.
fn begin_checked(path: &Path) -> Result<std::io::BufWriter<Payload>, StoreError> {
    let mut file = File::create(path).map_err(io(path))?;
    let (mut head, at) = header_prefix();
    head.extend_from_slice(&[0u8; 8 + 32]);
    file.write_all(&head).map_err(io(path))?;
    let payload = Payload {
        file,
        at,
        hasher: blake3::Hasher::new(),
        len: 0,
        error: None,
    };
    Ok(std::io::BufWriter::with_capacity(WRITE_BUFFER, payload))
}

/// Encodes `value` (postcard) into `w` without an intermediate buffer.
fn encode_into<T: Serialize + ?Sized>(
    path: &Path,
    w: &mut std::io::BufWriter<Payload>,
    value: &T,
) -> Result<(), StoreError> {
    match postcard::to_io(value, &mut *w) {
        Ok(_) => Ok(()),
        Err(e) => Err(match w.get_mut().error.take() {
            Some(source) => io(path)(source),
            None => StoreError::Encode(e.to_string()),
        }),
    }
}

/// Flushes the payload, writes its length and checksum into the header and syncs the file.
fn finish_checked(path: &Path, w: std::io::BufWriter<Payload>) -> Result<[u8; 32], StoreError> {
    use std::io::{Seek, SeekFrom};
    let Payload {
        mut file,
        at,
        hasher,
        len,
        ..
    } = w.into_inner().map_err(|e| io(path)(e.into_error()))?;
    let hash = *hasher.finalize().as_bytes();
    (|| {
        file.seek(SeekFrom::Start(at))?;
        file.write_all(&len.to_le_bytes())?;
        file.write_all(&hash)?;
        file.sync_all()
    })()
    .map_err(io(path))?;
    Ok(hash)
}

/// Writes `value` (postcard) as a cache file, encoding it straight into the file; returns
/// the payload's checksum.
fn write_value<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<[u8; 32], StoreError> {
    let mut w = begin_checked(path)?;
    encode_into(path, &mut w, value)?;
    finish_checked(path, w)
}

/// The header up to the payload length (magic, then the engine fingerprint prefixed by its
/// length) and the offset where the length goes; the length (u64 LE) and the payload's
/// BLAKE3 follow, then the payload.
fn header_prefix() -> (Vec<u8>, u64) {
    let engine = engine_fingerprint();
    let mut head = Vec::with_capacity(8 + 2 + engine.len() + 8 + 32);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&(engine.len() as u16).to_le_bytes());
    head.extend_from_slice(engine.as_bytes());
    let at = head.len() as u64;
    (head, at)
}

/// Removes `path` whatever it is: a folder with its contents, a file or a link (not
/// followed). Nothing there is not an error.
pub(crate) fn remove_any(path: &Path) -> std::io::Result<()> {
    let r = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    };
    match r {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        r => r,
    }
}

/// Reads a cache file only when it is a regular file (not a symlink, FIFO or device:
/// those could block or never end), and never more than its size when opened.
pub(crate) fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let f = File::open(path)?;
    let len = f.metadata()?.len();
    let mut out = Vec::with_capacity(len as usize);
    f.take(len).read_to_end(&mut out)?;
    Ok(out)
}

/// A cache file opened for reading: its header read and checked (see [`check_header`]),
/// positioned at the payload. Returns the reader, limited to the payload, and the
/// payload's checksum.
fn open_checked(
    path: &Path,
    expect: Option<&[u8; 32]>,
) -> Result<(std::io::Take<std::io::BufReader<File>>, [u8; 32]), LoadError> {
    use std::io::Read;
    let (file, size) = open_regular(path)?;
    let mut r = std::io::BufReader::with_capacity(READ_BUFFER, file);
    let (head, hash) = check_header(&mut r, size, path, expect)?;
    Ok((r.take(size - head), hash))
}

/// Opens a cache file when it is a regular file (a symlink, FIFO or device could block or
/// never end); with its size.
fn open_regular(path: &Path) -> Result<(File, u64), LoadError> {
    let name = file_label(path);
    let failed = |e: std::io::Error| LoadError::Corrupt(format!("{name}: {e}"));
    let meta = std::fs::symlink_metadata(path).map_err(failed)?;
    if !meta.is_file() {
        return Err(failed(std::io::Error::other("not a regular file")));
    }
    let file = File::open(path).map_err(failed)?;
    let size = file.metadata().map_err(failed)?.len();
    Ok((file, size))
}

/// Reads and checks the header of the cache file `path` (of `size` bytes) from `r`:
/// magic, engine fingerprint, a payload length that matches the size, and with `expect`
/// the payload checksum the manifest recorded for it. Returns the header's length in
/// bytes and the payload's checksum.
fn check_header(
    r: &mut impl std::io::Read,
    size: u64,
    path: &Path,
    expect: Option<&[u8; 32]>,
) -> Result<(u64, [u8; 32]), LoadError> {
    let name = file_label(path);
    let bad = |why: &str| LoadError::Corrupt(format!("{name}: {why}"));
    let mut magic = [0u8; 10];
    if r.read_exact(&mut magic).is_err() || &magic[..8] != MAGIC {
        return Err(bad("not a cache file"));
    }
    let mut engine = vec![0u8; u16::from_le_bytes([magic[8], magic[9]]) as usize];
    r.read_exact(&mut engine)
        .map_err(|_| bad("truncated header"))?;
    if engine != engine_fingerprint().as_bytes() {
        return Err(match std::str::from_utf8(&engine) {
            Ok(other) if looks_like_fingerprint(other) => {
                LoadError::Stale(format!("another engine build ({other})"))
            }
            _ => bad("garbled header"),
        });
    }
    let mut rest = [0u8; 8 + 32];
    r.read_exact(&mut rest)
        .map_err(|_| bad("truncated header"))?;
    let (len, hash) = rest.split_at(8);
    let len = u64::from_le_bytes(len.try_into().unwrap_or([0; 8]));
    let hash: [u8; 32] = hash.try_into().unwrap_or([0; 32]);
    let head = (magic.len() + engine.len() + rest.len()) as u64;
    match head.checked_add(len) {
        Some(want) if want == size => {}
        Some(want) if want < size => return Err(bad("longer than its header says")),
        _ => return Err(bad("truncated")),
    }
    // Its own checksum may hold while the manifest lists another file.
    if expect.is_some_and(|e| *e != hash) {
        return Err(bad("from another snapshot than its manifest"));
    }
    Ok((head, hash))
}

/// Whether `s` has the shape of an [`engine_fingerprint`] (`s1-v0.1.0-` and 16 hex
/// digits): a header whose fingerprint does not is damaged, not from another build.
fn looks_like_fingerprint(s: &str) -> bool {
    let Some((head, hash)) = s.rsplit_once('-') else {
        return false;
    };
    s.starts_with('s')
        && head.contains("-v")
        && hash.len() == 16
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
        && head.bytes().all(|b| b.is_ascii_graphic())
}

/// A part of a snapshot (any file but the manifest) that is not of this engine build
/// while its manifest is: damage, not another build.
fn part_error(e: LoadError) -> LoadError {
    match e {
        LoadError::Stale(why) => {
            LoadError::Corrupt(format!("a part of the snapshot is not: {why}"))
        }
        e => e,
    }
}

/// Bytes a cache file's reader gathers per read.
const READ_BUFFER: usize = 256 << 10;

/// [`read_checked`] of a snapshot file whose checksum the manifest recorded as `expect`.
fn read_part(path: &Path, expect: &[u8; 32]) -> Result<Vec<u8>, LoadError> {
    read_checked(path, Some(expect)).map_err(part_error)
}

/// A cache file's name, for error messages.
fn file_label(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Reads a cache file (see [`begin_checked`] and [`open_checked`], which `expect` goes
/// to) and returns its verified payload.
fn read_checked(path: &Path, expect: Option<&[u8; 32]>) -> Result<Vec<u8>, LoadError> {
    use std::io::Read;
    let (mut r, hash) = open_checked(path, expect)?;
    let name = file_label(path);
    let bad = |why: &str| LoadError::Corrupt(format!("{name}: {why}"));
    // The length is the file's size less the header (checked above).
    let len = r.limit();
    let mut payload = Vec::with_capacity(len as usize);
    r.read_to_end(&mut payload)
        .map_err(|e| bad(&e.to_string()))?;
    if payload.len() as u64 != len {
        return Err(bad("truncated"));
    }
    if *blake3::hash(&payload).as_bytes() != hash {
        return Err(bad("checksum mismatch"));
    }
    Ok(payload)
}

/// Checks a cache file's header and its payload's checksum without keeping the payload:
/// read a block at a time, each block hashed on every thread.
fn verify_checked(path: &Path, expect: &[u8; 32]) -> Result<(), LoadError> {
    use std::io::Read;
    let (mut r, hash) = open_checked(path, Some(expect))?;
    let name = file_label(path);
    let bad = |why: &str| LoadError::Corrupt(format!("{name}: {why}"));
    let mut hasher = blake3::Hasher::new();
    // No bigger than the payload: zeroing 8 MiB blocks for small files was a quarter of a
    // warm `index` of a small tree (`perf`).
    let mut block = vec![0u8; VERIFY_BLOCK.min(r.limit() as usize)];
    loop {
        let mut filled = 0;
        while filled < block.len() {
            match r.read(&mut block[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(bad(&e.to_string())),
            }
        }
        if filled == 0 {
            break;
        }
        hasher.update_rayon(&block[..filled]);
    }
    if r.limit() != 0 {
        return Err(bad("truncated"));
    }
    if *hasher.finalize().as_bytes() != hash {
        return Err(bad("checksum mismatch"));
    }
    Ok(())
}

/// Bytes [`verify_checked`] hashes at a time: large enough for BLAKE3 to spread over
/// threads, small enough not to matter beside the index.
const VERIFY_BLOCK: usize = 8 << 20;

/// The files of each shard of `facts.bin` and `nodes.bin` (shards are encoded and
/// decoded in parallel): up to [`SHARD_FILES`] files and [`SHARD_SOURCE_BYTES`] of source.
fn shard_ranges(files: &[Arc<FileFacts>]) -> Vec<std::ops::Range<usize>> {
    let mut shards = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    for (i, f) in files.iter().enumerate() {
        if i > start && (i - start == SHARD_FILES || bytes + f.bytes > SHARD_SOURCE_BYTES) {
            shards.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += f.bytes;
    }
    if start < files.len() {
        shards.push(start..files.len());
    }
    shards
}

/// Writes `shards` as a cache file whose payload is the shard count (u32 LE), then per
/// shard its length (u64 LE) and its postcard bytes. The shards' lengths are counted
/// first, in parallel and without allocating, so each shard is then encoded straight
/// into the file: no encoded shard is ever in memory (a batch of them in flight added
/// about 100 MiB to a save's peak on the fetch.sh corpus, where a shard of generated
/// windows-sys files encodes to tens of MiB).
fn write_shards<T: Serialize + Sync>(path: &Path, shards: Vec<T>) -> Result<[u8; 32], StoreError> {
    let sizes: Vec<usize> = shards
        .par_iter()
        .map(postcard::experimental::serialized_size)
        .collect::<Result<_, _>>()
        .map_err(|e| StoreError::Encode(e.to_string()))?;
    let mut w = begin_checked(path)?;
    w.write_all(&(shards.len() as u32).to_le_bytes())
        .map_err(io(path))?;
    for (shard, &size) in shards.iter().zip(&sizes) {
        w.write_all(&(size as u64).to_le_bytes())
            .map_err(io(path))?;
        let before = w.get_ref().len + w.buffer().len() as u64;
        encode_into(path, &mut w, shard)?;
        let wrote = w.get_ref().len + w.buffer().len() as u64 - before;
        if wrote != size as u64 {
            return Err(StoreError::Encode(format!(
                "a shard of {} encoded to {wrote} bytes, {size} counted",
                file_label(path)
            )));
        }
    }
    finish_checked(path, w)
}

/// The graph's node chunks of `index`, one per file in file order (as every engine graph
/// has them, see [`NodeChunk`]), checked against the files.
///
/// Errors: [`StoreError::Encode`] when a chunk is not its file's (an engine defect).
fn file_chunks_of(index: &Index) -> Result<Vec<NodeChunk>, StoreError> {
    let chunks = index.graph.chunks();
    if chunks.len() != index.files.len() {
        return Err(StoreError::Encode(format!(
            "the graph has {} node chunks for {} files",
            chunks.len(),
            index.files.len()
        )));
    }
    for (i, (c, f)) in chunks.iter().zip(&index.files).enumerate() {
        let fits = c.len() == 1 + f.definitions.len()
            && c.first().is_some_and(|n| *n.id == *f.path)
            && c[1..].iter().zip(&f.definitions).all(|(n, d)| n.id == d.id);
        if !fits {
            return Err(StoreError::Encode(format!(
                "the graph's node chunk {i} is not its file's"
            )));
        }
    }
    Ok(chunks)
}

/// The nodes of the files of one shard, serialized as a `Vec<FileNodes>`.
struct ShardNodes<'a>(&'a [NodeChunk]);

impl Serialize for ShardNodes<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for chunk in self.0 {
            seq.serialize_element(&FileNodes::of(chunk))?;
        }
        seq.end()
    }
}

/// One file's graph nodes as `nodes.bin` stores them: the file node's own fields, then
/// each definition's. The ids of a file's definitions all start with `<path>::` (DESIGN
/// section 4); the prefix is not stored (on the fetch.sh Rust tree, whose paths run to
/// 100 characters, that is most of each id).
#[derive(Serialize, Deserialize)]
struct FileNodes<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow)]
    language: Cow<'a, str>,
    end_line: u32,
    #[serde(borrow)]
    definitions: Vec<DefinitionNode<'a>>,
}

/// A definition's graph node as [`FileNodes`] stores it.
#[derive(Serialize, Deserialize)]
struct DefinitionNode<'a> {
    /// The id after `<path>::`, or the whole id when `whole` (never, for the engine's ids).
    #[serde(borrow)]
    id: Cow<'a, str>,
    whole: bool,
    kind: super::Kind,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    qualified_name: Cow<'a, str>,
    start_line: u32,
    end_line: u32,
}

impl<'a> FileNodes<'a> {
    /// The record of `chunk` (a file node, then its definitions' nodes), borrowing it.
    fn of(chunk: &'a [Node]) -> FileNodes<'a> {
        let Some((file, defs)) = chunk.split_first() else {
            return FileNodes {
                path: Cow::Borrowed(""),
                language: Cow::Borrowed(""),
                end_line: 0,
                definitions: Vec::new(),
            };
        };
        FileNodes {
            path: Cow::Borrowed(&file.id),
            language: Cow::Borrowed(&file.language),
            end_line: file.end_line,
            definitions: defs
                .iter()
                .map(|n| {
                    let tail =
                        n.id.strip_prefix(&*file.id)
                            .and_then(|t| t.strip_prefix("::"));
                    DefinitionNode {
                        id: Cow::Borrowed(tail.unwrap_or(&n.id)),
                        whole: tail.is_none(),
                        kind: n.kind,
                        name: Cow::Borrowed(&n.name),
                        qualified_name: Cow::Borrowed(&n.qualified_name),
                        start_line: n.start_line,
                        end_line: n.end_line,
                    }
                })
                .collect(),
        }
    }

    /// The nodes of the file, as [`file_chunk`](super::file_chunk) makes them.
    fn chunk(&self) -> NodeChunk {
        let mut id = String::new();
        let path: Arc<str> = Arc::from(&*self.path);
        let language: Arc<str> = Arc::from(&*self.language);
        let file_node = Node {
            id: path.clone(),
            kind: super::Kind::File,
            name: self.path.rsplit('/').next().unwrap_or(&self.path).into(),
            qualified_name: path.clone(),
            file: path.clone(),
            start_line: 1,
            end_line: self.end_line,
            language: language.clone(),
        };
        std::iter::once(file_node)
            .chain(self.definitions.iter().map(|d| {
                id.clear();
                if !d.whole {
                    id.push_str(&self.path);
                    id.push_str("::");
                }
                id.push_str(&d.id);
                Node {
                    id: Arc::from(id.as_str()),
                    kind: d.kind,
                    name: Arc::from(&*d.name),
                    qualified_name: Arc::from(&*d.qualified_name),
                    file: path.clone(),
                    start_line: d.start_line,
                    end_line: d.end_line,
                    language: language.clone(),
                }
            }))
            .collect()
    }
}

/// `nodes.bin` (checked against `expect`) mapped, each file's record found, its node
/// chunk to be decoded when the graph first needs it (see [`ChunkSource`]).
fn map_nodes(path: &Path, expect: &[u8; 32]) -> Result<MappedNodes, LoadError> {
    let (files, map) = read_sharded(path, expect, true, |b, at| {
        // A shard is a `Vec<FileNodes>`: its length (a varint, as postcard writes every
        // length), then the records back to back. Each is read as its shape alone to find
        // where it ends (strings skipped, not checked: the checksum has vouched for the
        // bytes; decoding a 110 MB `nodes.bin` with its strings checked was 117 ms of a
        // 194 ms graph load, `-v`).
        let bad = |why: String| LoadError::Corrupt(format!("nodes: {why}"));
        let (count, mut rest) =
            postcard::take_from_bytes::<u64>(b).map_err(|e| bad(e.to_string()))?;
        let mut files = Vec::new();
        for _ in 0..count {
            let from = at + (b.len() - rest.len());
            let (f, after) = postcard::take_from_bytes::<FileNodesShape<'_>>(rest)
                .map_err(|e| bad(e.to_string()))?;
            rest = after;
            let to = at + (b.len() - rest.len());
            files.push(MappedFile {
                bytes: from..to,
                nodes: 1 + f.definitions.0,
            });
        }
        if !rest.is_empty() {
            return Err(bad(format!("{} bytes after the last file", rest.len())));
        }
        Ok(files)
    })?;
    Ok(MappedNodes {
        map: map.ok_or_else(|| LoadError::Corrupt("nodes: not mapped".into()))?,
        files,
    })
}

/// A [`FileNodes`] record read for its extent and definition count alone: the same
/// fields in the same order, strings as bytes (not checked as UTF-8), definitions counted
/// (and refused if one claims to be a file node), nothing allocated.
#[derive(Deserialize)]
#[allow(dead_code)] // Read for their extent; only the count is used.
struct FileNodesShape<'a> {
    path: &'a [u8],
    language: &'a [u8],
    end_line: u32,
    definitions: DefinitionCount,
}

/// A [`DefinitionNode`] read for its extent alone (see [`FileNodesShape`]).
#[derive(Deserialize)]
#[allow(dead_code)]
struct DefinitionShape<'a> {
    id: &'a [u8],
    whole: bool,
    kind: super::Kind,
    name: &'a [u8],
    qualified_name: &'a [u8],
    start_line: u32,
    end_line: u32,
}

/// How many definitions a [`FileNodesShape`] holds.
struct DefinitionCount(u32);

impl<'de> Deserialize<'de> for DefinitionCount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Counter;
        impl<'de> serde::de::Visitor<'de> for Counter {
            type Value = DefinitionCount;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence of definition nodes")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<DefinitionCount, A::Error> {
                let mut n = 0u32;
                while let Some(d) = seq.next_element::<DefinitionShape<'de>>()? {
                    if d.kind == super::Kind::File {
                        return Err(serde::de::Error::custom(
                            "a file node among the definitions",
                        ));
                    }
                    n += 1;
                }
                Ok(DefinitionCount(n))
            }
        }
        d.deserialize_seq(Counter)
    }
}

/// Where one file's [`FileNodes`] record lies in a mapped `nodes.bin`.
#[derive(Debug)]
struct MappedFile {
    /// Byte range of the record in the mapping.
    bytes: std::ops::Range<usize>,
    /// Nodes it makes: the file node and one per definition.
    nodes: u32,
}

/// A mapped `nodes.bin` whose records were checked to decode (see [`map_nodes`]): the
/// node source of a graph loaded from the cache.
#[derive(Debug)]
struct MappedNodes {
    map: memmap2::Mmap,
    files: Vec<MappedFile>,
}

impl ChunkSource for MappedNodes {
    fn chunk_count(&self) -> usize {
        self.files.len()
    }

    fn nodes_in(&self, i: usize) -> u32 {
        self.files[i].nodes
    }

    fn decode(&self, i: usize) -> NodeChunk {
        let f = &self.files[i];
        match postcard::from_bytes::<FileNodes<'_>>(&self.map[f.bytes.clone()]) {
            Ok(nodes) if 1 + nodes.definitions.len() == f.nodes as usize => nodes.chunk(),
            // Checked when mapped: only a file changed on disk since gets here.
            _ => {
                tracing::error!(file = i, "nodes.bin changed since it was loaded");
                damaged_chunk(i, f.nodes)
            }
        }
    }
}

/// `n` placeholder nodes for chunk `i` of a `nodes.bin` that no longer decodes (see
/// [`ChunkSource::decode`]): a file node, then definitions `<path>::<damaged #k>`.
fn damaged_chunk(i: usize, n: u32) -> NodeChunk {
    let path: Arc<str> = Arc::from(format!("<damaged cache chunk {i}>"));
    let none: Arc<str> = Arc::from("");
    (0..n)
        .map(|k| {
            let id: Arc<str> = if k == 0 {
                path.clone()
            } else {
                Arc::from(format!("{path}::<damaged #{k}>"))
            };
            Node {
                id: id.clone(),
                kind: if k == 0 {
                    super::Kind::File
                } else {
                    super::Kind::Function
                },
                name: id.clone(),
                qualified_name: id,
                file: path.clone(),
                start_line: 1,
                end_line: 1,
                language: none.clone(),
            }
        })
        .collect()
}

/// The rows of `unresolved.bin`, checked, grouped by caller when the graph first needs
/// them (see [`UnresolvedSource`]).
#[derive(Debug)]
struct UnresolvedBytes(Vec<u8>);

impl UnresolvedBytes {
    /// Calls `f` with each caller's row of the payload in order, its strings borrowed,
    /// until `f` fails.
    ///
    /// Errors: `f`'s, or [`LoadError::Corrupt`] for a row that does not decode or bytes
    /// after the last.
    fn for_each_caller<'a>(
        &'a self,
        mut f: impl FnMut(CallerRow<'a>) -> Result<(), LoadError>,
    ) -> Result<(), LoadError> {
        let bad = |why: String| LoadError::Corrupt(format!("unresolved: {why}"));
        let (count, mut rest) =
            postcard::take_from_bytes::<u64>(&self.0).map_err(|e| bad(e.to_string()))?;
        for _ in 0..count {
            let (row, after) =
                postcard::take_from_bytes::<CallerRow<'_>>(rest).map_err(|e| bad(e.to_string()))?;
            rest = after;
            f(row)?;
        }
        if !rest.is_empty() {
            return Err(bad(format!("{} bytes after the last row", rest.len())));
        }
        Ok(())
    }

    /// Checks that every row decodes, its caller is one of `nodes` node positions and its
    /// path lies within its id.
    fn check(bytes: Vec<u8>, nodes: u32) -> Result<UnresolvedBytes, LoadError> {
        let u = UnresolvedBytes(bytes);
        u.for_each_caller(|row| {
            if row.caller >= nodes {
                return Err(LoadError::Corrupt(
                    "unresolved call of a missing node".into(),
                ));
            }
            if row.file.is_none() && !row.id.is_char_boundary(row.path_len as usize) {
                return Err(LoadError::Corrupt(format!(
                    "unresolved: the path of {} is not a prefix of it",
                    row.id
                )));
            }
            Ok(())
        })?;
        Ok(u)
    }
}

impl UnresolvedSource for UnresolvedBytes {
    fn group(&self) -> UnresolvedMap {
        let mut groups: Vec<(Arc<str>, super::graph::CallerCalls)> = Vec::new();
        // Callers come sorted by id, so one file's callers follow each other: its path is
        // made once for them.
        let mut path: Arc<str> = Arc::from("");
        // Checked when loaded: only a file changed on disk since fails here.
        let _ = self.for_each_caller(|row| {
            let file = match &row.file {
                Some(f) => f,
                None => row.id.get(..row.path_len as usize).unwrap_or_default(),
            };
            if *path != *file {
                path = Arc::from(file);
            }
            let caller: Arc<str> = Arc::from(&*row.id);
            let calls = row
                .calls
                .into_iter()
                .map(|r| unresolved_of_row(r, &caller, &path))
                .collect();
            groups.push((caller, calls));
            Ok(())
        });
        UnresolvedMap::from_groups(groups)
    }
}

/// Every file's facts from `facts.bin` (checked against `expect`), in file order; their
/// definitions' ids and names are left empty (see [`Definition`](super::facts::Definition)).
fn read_facts(path: &Path, expect: &[u8; 32]) -> Result<Vec<Arc<FileFacts>>, LoadError> {
    let (files, _) = read_sharded(path, expect, false, |b, _| {
        decode_all::<Vec<Arc<FileFacts>>>(b, "facts")
    })?;
    Ok(files)
}

/// A `Vec<RawEdge>` as postcard wrote it, decoded into a vector of the length its prefix
/// gives (no more than the bytes could hold): serde's decoder grows a vector from a
/// capped guess, which for the 1.44M edges of the fetch.sh corpus meant copying 58 MB
/// through a dozen reallocations (`perf`: about a third of decoding the edges).
///
/// Errors: [`LoadError::Corrupt`] for bytes that do not decode, or bytes after the last.
fn decode_edges(bytes: &[u8]) -> Result<Vec<RawEdge>, LoadError> {
    let bad = |why: String| LoadError::Corrupt(format!("edges: {why}"));
    let (count, mut rest) =
        postcard::take_from_bytes::<u64>(bytes).map_err(|e| bad(e.to_string()))?;
    // An edge takes at least 5 bytes (two positions, relation, tier, origin).
    let count = usize::try_from(count)
        .ok()
        .filter(|&c| c <= rest.len() / 5)
        .ok_or_else(|| bad("more edges than bytes".into()))?;
    let mut edges = Vec::with_capacity(count);
    for _ in 0..count {
        let (e, after) =
            postcard::take_from_bytes::<RawEdge>(rest).map_err(|e| bad(e.to_string()))?;
        edges.push(e);
        rest = after;
    }
    if !rest.is_empty() {
        return Err(bad(format!("{} bytes after the last edge", rest.len())));
    }
    Ok(edges)
}

/// `bytes` decoded as one `T`, every byte used.
fn decode_all<'de, T: Deserialize<'de>>(bytes: &'de [u8], what: &str) -> Result<T, LoadError> {
    let bad = |why: String| LoadError::Corrupt(format!("{what}: {why}"));
    let (v, rest) = postcard::take_from_bytes(bytes).map_err(|e| bad(e.to_string()))?;
    if !rest.is_empty() {
        return Err(bad(format!("{} bytes after the value", rest.len())));
    }
    Ok(v)
}

/// Puts each definition's id and names back from its graph node (`facts.bin` leaves them
/// out: `nodes.bin` holds them), so facts and graph share the same strings as after an
/// index. `chunks` are the graph's, one per file.
///
/// Errors: [`LoadError::Corrupt`] when a file's definitions and nodes do not match up.
fn put_names_back(files: &mut [Arc<FileFacts>], chunks: &[NodeChunk]) -> Result<(), LoadError> {
    if files.len() != chunks.len() {
        return Err(LoadError::Corrupt(
            "facts and nodes of a different file count".into(),
        ));
    }
    files.par_iter_mut().zip(chunks).try_for_each(|(f, chunk)| {
        let path = f.path.clone();
        let bad = || LoadError::Corrupt(format!("facts and nodes of {path} differ"));
        let facts = Arc::get_mut(f).ok_or_else(bad)?;
        if chunk.len() != 1 + facts.definitions.len() || *chunk[0].id != *facts.path {
            return Err(bad());
        }
        for (d, n) in facts.definitions.iter_mut().zip(&chunk[1..]) {
            if d.kind != n.kind || d.start_line != n.start_line || d.end_line != n.end_line {
                return Err(bad());
            }
            put_back(&mut d.id, &n.id);
            put_back(&mut d.name, &n.name);
            put_back(&mut d.qualified_name, &n.qualified_name);
        }
        Ok(())
    })
}

/// Sets `slot` (a deserialized definition's empty placeholder) to `value`. The
/// placeholders are clones of one empty `Arc` per decoding thread (see
/// [`Definition`](super::facts::Definition)): they are forgotten, not dropped, so that
/// 3.5M decrements on the Rust tree do not contend for its counter (which only ever grows):
/// 130-190 ms of a full load down to about 25 (`-v`).
fn put_back(slot: &mut Arc<str>, value: &Arc<str>) {
    let old = std::mem::replace(slot, value.clone());
    if old.is_empty() {
        std::mem::forget(old);
    }
}

/// The graph of the snapshot in `snap` whose manifest lists `parts` and counts
/// `(files, nodes)`, with every file's facts when `with_facts` (else none: `facts.bin`
/// is not read). The graph decodes its nodes and groups its unresolved calls on first use
/// (see [`ChunkSource`], [`UnresolvedSource`]); a full load (`with_facts`) does both at
/// once, since the update that follows reads them all.
///
/// Errors: [`LoadError::Corrupt`] for any damage (the reason names the file).
fn read_graph(
    snap: &Path,
    parts: &Parts,
    (files, nodes): (u64, u64),
    with_facts: bool,
) -> Result<(CodeGraph, Vec<Arc<FileFacts>>), LoadError> {
    let started = std::time::Instant::now();
    let ((facts, mapped), (edges, (unresolved, names))) = rayon::join(
        || {
            rayon::join(
                || {
                    with_facts
                        .then(|| {
                            read_facts(&snap.join("facts.bin"), &parts.facts).map_err(part_error)
                        })
                        .transpose()
                },
                || map_nodes(&snap.join("nodes.bin"), &parts.nodes).map_err(part_error),
            )
        },
        || {
            rayon::join(
                || read_part(&snap.join("edges.bin"), &parts.edges).and_then(|b| decode_edges(&b)),
                || {
                    rayon::join(
                        || read_part(&snap.join("unresolved.bin"), &parts.unresolved),
                        || {
                            read_part(&snap.join("names.bin"), &parts.names)
                                .and_then(|b| decode::<NameOrder>(&b, "names"))
                        },
                    )
                },
            )
        },
    );
    let (facts, mapped, edges, unresolved, names) = (facts?, mapped?, edges?, unresolved?, names?);
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "load: decoded");
    if mapped.files.len() as u64 != files {
        return Err(LoadError::Corrupt(format!(
            "nodes: {} files, manifest says {files}",
            mapped.files.len()
        )));
    }
    let n: u64 = mapped.files.iter().map(|f| u64::from(f.nodes)).sum();
    if n != nodes {
        return Err(LoadError::Corrupt(
            "node count differs from manifest".into(),
        ));
    }
    let n = n as u32;
    if edges.iter().any(|e| e.source >= n || e.target >= n) {
        return Err(LoadError::Corrupt("edge to a missing node".into()));
    }
    let (graph, unresolved) = rayon::join(
        || CodeGraph::from_source_ordered(Arc::new(mapped), edges, names),
        || UnresolvedBytes::check(unresolved, n),
    );
    let graph = graph.map_err(|e| LoadError::Corrupt(format!("names.bin: {e}")))?;
    let graph = graph.with_unresolved_source(Arc::new(unresolved?));
    let facts = match facts {
        // A full load is for an update, which reads every node and unresolved call: all
        // are decoded now, beside each other, rather than in the first update (the
        // unresolved calls took about 80 ms of the first edit's update on the Rust tree).
        Some(mut facts) => {
            let chunks = graph.chunks();
            let (put, ()) = rayon::join(
                || put_names_back(&mut facts, &chunks),
                || graph.decode_all(),
            );
            put?;
            facts
        }
        None => Vec::new(),
    };
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "load: graph");
    Ok((graph, facts))
}

/// Reads a sharded cache file (see [`write_shards`]; checked against `expect`), decoding
/// each shard with `shard` (given its bytes and where they start in the mapping) on the
/// current pool; the items of all shards in order, and the mapping when `keep`.
///
/// The file is mapped into memory, not read: the shards are decoded where they lie, a
/// batch of up to [`BATCH_BYTES`] at a time, each batch hashed first and released from
/// the mapping after, so a load holds neither a copy of the encoded payload (342 MB on the
/// fetch.sh Rust tree) nor more than a batch of it mapped. Copying it through read buffers
/// was about a fifth of a warm graph load's CPU (`perf`: the kernel's copy, the buffers'
/// zeroing and their page faults). The checksum covers the whole payload and speaks
/// first: a damaged file is reported as such, never as the decoding error it causes.
/// When `keep`, nothing is released: the caller decodes from the mapping later.
fn read_sharded<T: Send>(
    path: &Path,
    expect: &[u8; 32],
    keep: bool,
    shard: impl Fn(&[u8], usize) -> Result<Vec<T>, LoadError> + Sync,
) -> Result<(Vec<T>, Option<memmap2::Mmap>), LoadError> {
    let name = file_label(path);
    let bad = |why: &str| LoadError::Corrupt(format!("{name}: {why}"));
    let (file, size) = open_regular(path)?;
    // SAFETY: snapshot files are written once under a temporary name and never modified
    // after the rename that publishes them (a later save writes a new folder; removal
    // only unlinks, which leaves a mapping intact).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| bad(&e.to_string()))?;
    if map.len() as u64 != size {
        return Err(bad("changed while opened"));
    }
    let mut head_reader: &[u8] = &map;
    let (head, hash) = check_header(&mut head_reader, size, path, Some(expect))?;
    let payload = &map[head as usize..];
    let _ = map.advise(memmap2::Advice::Sequential);
    let mut hasher = blake3::Hasher::new();
    // Releases `payload[from..end]` from the mapping once hashed and decoded.
    let release = |from: usize, end: usize| {
        if keep {
            return;
        }
        // SAFETY: a read-only private file mapping: released pages read back from the file.
        let _ = unsafe {
            map.unchecked_advise_range(
                memmap2::UncheckedAdvice::DontNeed,
                head as usize + from,
                end - from,
            )
        };
    };
    let mut hashed = 0usize;
    let mut files = Vec::new();
    let decoded = (|| -> Result<(), LoadError> {
        let count = payload.get(..4).ok_or_else(|| bad("truncated"))?;
        let mut left = u32::from_le_bytes(count.try_into().unwrap_or_default()) as usize;
        let mut at = 4usize;
        while left > 0 {
            // The next batch: shards up to BATCH_BYTES (at least one).
            let mut batch: Vec<(&[u8], usize)> = Vec::new();
            let mut bytes = 0usize;
            while left > 0 && (batch.is_empty() || bytes < BATCH_BYTES) {
                let len = payload
                    .get(at..at + 8)
                    .ok_or_else(|| bad("truncated shard table"))?;
                let len = u64::from_le_bytes(len.try_into().unwrap_or_default());
                let start = at + 8;
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|l| start.checked_add(l))
                    .filter(|&e| e <= payload.len())
                    .ok_or_else(|| bad("shard past the end"))?;
                batch.push((&payload[start..end], head as usize + start));
                bytes += end - start;
                at = end;
                left -= 1;
            }
            hasher.update_rayon(&payload[hashed..at]);
            let shards = batch
                .par_iter()
                .map(|&(b, at)| shard(b, at))
                .collect::<Result<Vec<_>, _>>();
            release(hashed, at);
            hashed = at;
            files.extend(shards?.into_iter().flatten());
        }
        if at != payload.len() {
            return Err(bad("bytes after the last shard"));
        }
        Ok(())
    })();
    // Whatever went wrong, the checksum of the whole payload speaks first.
    hasher.update_rayon(&payload[hashed..]);
    release(hashed, payload.len());
    if *hasher.finalize().as_bytes() != hash {
        return Err(bad("checksum mismatch"));
    }
    decoded?;
    Ok((files, keep.then_some(map)))
}

/// Encoded facts decoded per batch at most (a batch holds at least one shard).
const BATCH_BYTES: usize = 32 << 20;

fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    // Opening a directory read-only and fsyncing it persists the renames in it (POSIX);
    // platforms that refuse it lose only durability, not atomicity.
    match File::open(dir).and_then(|d| d.sync_all()) {
        Ok(()) => Ok(()),
        Err(e) if cfg!(unix) => Err(io(dir)(e)),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's nodes survive `nodes.bin`'s encoding field for field, ids with the file's
    /// `<path>::` prefix (stored without it) and without (stored whole) alike.
    #[test]
    fn a_files_nodes_round_trip_with_and_without_the_path_prefix() {
        let path: Arc<str> = "src/a.rs".into();
        let lang: Arc<str> = "rust".into();
        let node = |id: &str, kind, name: &str, qn: &str, lines: (u32, u32)| Node {
            id: id.into(),
            kind,
            name: name.into(),
            qualified_name: qn.into(),
            file: path.clone(),
            start_line: lines.0,
            end_line: lines.1,
            language: lang.clone(),
        };
        let chunk: NodeChunk = vec![
            node(
                "src/a.rs",
                super::super::Kind::File,
                "a.rs",
                "src/a.rs",
                (1, 40),
            ),
            node(
                "src/a.rs::Foo::bar",
                super::super::Kind::Method,
                "bar",
                "a::Foo::bar",
                (3, 9),
            ),
            node(
                "src/a.rs::f#2",
                super::super::Kind::Function,
                "f",
                "a::f",
                (10, 12),
            ),
            node(
                "elsewhere::g",
                super::super::Kind::Function,
                "g",
                "g",
                (13, 14),
            ),
            node(
                "src/a.rsx::h",
                super::super::Kind::Function,
                "h",
                "h",
                (15, 16),
            ),
        ]
        .into();
        let bytes = postcard::to_allocvec(&ShardNodes(std::slice::from_ref(&chunk))).unwrap();
        let files: Vec<FileNodes<'_>> = decode_all(&bytes, "nodes").unwrap();
        let whole: Vec<bool> = files[0].definitions.iter().map(|d| d.whole).collect();
        assert_eq!(whole, [false, false, true, true]);
        let back = files[0].chunk();
        assert_eq!(back.len(), chunk.len());
        for (a, b) in back.iter().zip(chunk.iter()) {
            assert_eq!(a, b);
        }
    }

    /// `nodes.bin` mapped for a lazy graph: the chunk decoded on demand is the one saved;
    /// a definition claiming to be a file node is refused when mapped; a record that no
    /// longer decodes (the file changed after mapping) gives as many placeholder nodes as
    /// were counted, never a panic.
    #[test]
    fn mapped_nodes_decode_each_file_on_demand_and_survive_damage() {
        let path: Arc<str> = "src/a.rs".into();
        let lang: Arc<str> = "rust".into();
        let node = |id: &str, kind| Node {
            id: id.into(),
            kind,
            name: id.rsplit("::").next().unwrap().into(),
            qualified_name: id.into(),
            file: path.clone(),
            start_line: 1,
            end_line: 2,
            language: lang.clone(),
        };
        let file = Node {
            name: "a.rs".into(),
            ..node("src/a.rs", super::super::Kind::File)
        };
        let chunk: NodeChunk = vec![
            file.clone(),
            node("src/a.rs::f", super::super::Kind::Function),
            node("src/a.rs::g", super::super::Kind::Function),
        ]
        .into();
        let b: Arc<str> = "src/b.rs".into();
        let other: NodeChunk = vec![Node {
            id: b.clone(),
            name: "b.rs".into(),
            qualified_name: b.clone(),
            file: b,
            ..file.clone()
        }]
        .into();
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("nodes.bin");
        let both = [chunk.clone(), other.clone()];
        let shards = vec![ShardNodes(&both[..1]), ShardNodes(&both[1..])];
        let hash = write_shards(&bin, shards).unwrap();
        let mapped = map_nodes(&bin, &hash).unwrap();
        assert_eq!(
            (mapped.chunk_count(), mapped.nodes_in(0), mapped.nodes_in(1)),
            (2, 3, 1)
        );
        assert_eq!(&*mapped.decode(1), &*other);
        assert_eq!(&*mapped.decode(0), &*chunk);

        let bad: NodeChunk =
            vec![file.clone(), node("src/a.rs::h", super::super::Kind::File)].into();
        let hash = write_shards(&bin, vec![ShardNodes(std::slice::from_ref(&bad))]).unwrap();
        let err = map_nodes(&bin, &hash).unwrap_err();
        assert!(format!("{err:?}").contains("nodes: "), "{err:?}");

        std::fs::write(dir.path().join("garbage"), [0xffu8; 64]).unwrap();
        let garbage = File::open(dir.path().join("garbage")).unwrap();
        let damaged = MappedNodes {
            map: unsafe { memmap2::Mmap::map(&garbage) }.unwrap(),
            files: vec![MappedFile {
                bytes: 0..64,
                nodes: 3,
            }],
        };
        let placeholders = damaged.decode(0);
        assert_eq!(placeholders.len(), 3);
        assert_eq!(placeholders[0].kind, super::super::Kind::File);
        assert!(placeholders[1].id.starts_with(&*placeholders[0].id));
    }

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

    #[test]
    fn a_fingerprint_is_told_from_a_garbled_header() {
        let ours = engine_fingerprint();
        assert!(looks_like_fingerprint(&ours));
        assert!(looks_like_fingerprint("s1-v0.2.0-00112233aabbccdd"));
        // One byte more or less read (a flipped length byte), or text that is not one.
        assert!(!looks_like_fingerprint(&format!("{ours}\u{fffd}")));
        assert!(!looks_like_fingerprint(&ours[..ours.len() - 1]));
        assert!(!looks_like_fingerprint("not a cache"));
        assert!(!looks_like_fingerprint("s1-v\u{1}-00112233aabbccdd"));
    }
}
