//! The on-disk index of one repository (DESIGN section 7): versioned, atomic, checked.
//!
//! A cache folder (`config::cache_dir`: `<user cache dir>/codegraph-tui/<repo>-<hash>/`,
//! never inside the repository) holds:
//!
//! ```text
//! lock                    advisory lock held by the one writer (std `File::try_lock`)
//! CURRENT                 name of the live snapshot folder, replaced atomically
//! snap-<id>/manifest.bin  engine and options fingerprints, root, per-file size, mtime
//!                         (the content hash is in the facts), skips, counts
//! snap-<id>/facts.bin     every FileFacts, in shards that decode in parallel
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
//! A load checks every header, length and hash, the fingerprints and the root; any
//! mismatch is a [`LoadError`] and the caller rebuilds (never a panic, never a partly
//! trusted cache).
//!
//! The engine fingerprint (`build.rs`) hashes every source file of `src/index/` and every
//! query, so a cache written by another build of the extractor or resolver is rebuilt.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::graph::{NameOrder, RawEdge};
use super::{graph_nodes, CodeGraph, FileFacts, FileStamp, Index, IndexOptions, IndexStats};
use super::{SkipReason, Unresolved};

/// Bumped when the layout of this module's files changes.
pub const SCHEMA_VERSION: u32 = 1;

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
}

/// An unresolved call as stored: the caller as a node position, the site's file only
/// when it is not the caller's (it always is today; the field keeps the format honest).
/// Strings are borrowed from the graph when saving (`Cow`), owned when loading.
#[derive(Debug, Serialize, Deserialize)]
struct UnresolvedRow<'a> {
    caller: u32,
    name: std::borrow::Cow<'a, str>,
    receiver: Option<std::borrow::Cow<'a, str>>,
    file: Option<std::borrow::Cow<'a, str>>,
    line: u32,
    column: u32,
    reason: super::UnresolvedReason,
}

/// Every unresolved call of a graph, serialized as a `Vec<UnresolvedRow>` straight from
/// the graph (no row list is built: 550K rows on the fetch.sh corpus).
struct UnresolvedRows<'a>(&'a super::CodeGraph);

impl Serialize for UnresolvedRows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let g = self.0;
        let mut seq = s.serialize_seq(Some(g.all_unresolved().count()))?;
        for u in g.all_unresolved() {
            let (caller, file) = g.position_of(&u.caller).ok_or_else(|| {
                S::Error::custom(format!("unresolved call of unknown node {}", u.caller))
            })?;
            seq.serialize_element(&UnresolvedRow {
                caller,
                name: (&*u.name).into(),
                receiver: u.receiver.as_deref().map(Into::into),
                file: (&*u.site.file != file).then(|| (&*u.site.file).into()),
                line: u.site.line,
                column: u.site.column,
                reason: u.reason,
            })?;
        }
        seq.end()
    }
}

/// One repository's cache folder, opened as the writer or read-only.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    /// The locked lock file when this instance is the writer.
    lock: Option<File>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl Store {
    /// Opens (creating it) the cache folder `dir` and takes the writer's lock; when another
    /// process holds it, the store is read-only ([`Store::is_writer`] is `false`).
    ///
    /// Errors: [`StoreError::Io`] when the folder or its lock file cannot be created.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let lock_path = dir.join("lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock_path)
            .map_err(io(&lock_path))?;
        // A holder that is just going away (an instance exiting, or a child process
        // between fork and exec sharing the lock) gets a moment before we settle for
        // read-only.
        let mut attempt = file.try_lock();
        for _ in 0..10 {
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
        })
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
        Ok(self.dir.join(name))
    }

    /// Loads the live snapshot for `root` (canonical) written with `options`.
    ///
    /// Errors: [`LoadError::Missing`] when nothing was saved; [`LoadError::Stale`] for
    /// another engine build, other options or another root; [`LoadError::Corrupt`] for
    /// any damage (the reason names the file).
    pub fn load(&self, root: &Path, options: &IndexOptions) -> Result<Index, LoadError> {
        let started = std::time::Instant::now();
        let snap = self.current()?;
        let manifest: Manifest = decode(&read_checked(&snap.join("manifest.bin"))?, "manifest")?;
        if manifest.options != options_fingerprint(options) {
            return Err(LoadError::Stale("other index options".into()));
        }
        if manifest.root != root {
            return Err(LoadError::Stale(format!(
                "another root ({})",
                manifest.root.display()
            )));
        }
        let ((facts, edges), (unresolved, names)) = rayon::join(
            || {
                rayon::join(
                    || read_facts(&snap.join("facts.bin")),
                    || {
                        read_checked(&snap.join("edges.bin"))
                            .and_then(|b| decode::<Vec<RawEdge>>(&b, "edges"))
                    },
                )
            },
            || {
                rayon::join(
                    || {
                        read_checked(&snap.join("unresolved.bin"))
                            .and_then(|b| decode::<Vec<UnresolvedRow>>(&b, "unresolved"))
                    },
                    || {
                        read_checked(&snap.join("names.bin"))
                            .and_then(|b| decode::<NameOrder>(&b, "names"))
                    },
                )
            },
        );
        let (files, edges, unresolved, names) = (facts?, edges?, unresolved?, names?);
        if files.len() as u64 != manifest.files {
            return Err(LoadError::Corrupt(format!(
                "facts: {} files, manifest says {}",
                files.len(),
                manifest.files
            )));
        }
        let nodes: Vec<super::Node> = graph_nodes(&files).collect();
        if nodes.len() as u64 != manifest.nodes {
            return Err(LoadError::Corrupt(
                "node count differs from manifest".into(),
            ));
        }
        let n = nodes.len() as u32;
        if edges.iter().any(|e| e.source >= n || e.target >= n) {
            return Err(LoadError::Corrupt("edge to a missing node".into()));
        }
        let mut calls = Vec::with_capacity(unresolved.len());
        for r in unresolved {
            let caller = nodes
                .get(r.caller as usize)
                .ok_or_else(|| LoadError::Corrupt("unresolved call of a missing node".into()))?;
            calls.push(Unresolved {
                caller: caller.id.clone(),
                name: r.name.into_owned(),
                receiver: r.receiver.map(std::borrow::Cow::into_owned),
                site: super::graph::Site {
                    file: r
                        .file
                        .map_or_else(|| caller.file.clone(), |f| std::sync::Arc::from(&*f)),
                    line: r.line,
                    column: r.column,
                },
                reason: r.reason,
            });
        }
        let graph = CodeGraph::from_parts_ordered(nodes, edges, calls, names)
            .map_err(|e| LoadError::Corrupt(format!("names.bin: {e}")))?;
        let mut stats = manifest.stats;
        stats.elapsed_ms.clear();
        stats
            .elapsed_ms
            .insert("load".into(), started.elapsed().as_millis() as u64);
        Ok(Index {
            root: Some(manifest.root),
            files,
            graph,
            stats,
            skipped: manifest.skipped,
            stamps: manifest.stamps.into_iter().collect(),
            stamped_at_ns: manifest.stamped_at_ns,
        })
    }

    /// Saves `index` (built with `options`) as the new live snapshot, atomically.
    ///
    /// Errors: [`StoreError::ReadOnly`] when another instance holds the lock;
    /// [`StoreError::Io`] for a disk problem (the previous snapshot stays live).
    pub fn save(&self, index: &Index, options: &IndexOptions) -> Result<(), StoreError> {
        if !self.is_writer() {
            return Err(StoreError::ReadOnly(self.dir.clone()));
        }
        let root = index
            .root
            .clone()
            .ok_or_else(|| StoreError::Encode("only indexes of a directory are cached".into()))?;
        tracing::debug!(rss_mib = ?super::rss_mib(), "saving the cache");
        let edges = index.graph.raw_edges_ser();
        let unresolved = UnresolvedRows(&index.graph);
        let manifest = Manifest {
            options: options_fingerprint(options),
            root,
            files: index.files.len() as u64,
            nodes: index.graph.node_count() as u64,
            stats: index.stats.clone(),
            skipped: index.skipped.clone(),
            stamps: index.stamps.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            stamped_at_ns: index.stamped_at_ns,
        };
        // Time, process and a per-process counter: never the name of a live snapshot.
        static SAVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = format!("snap-{:x}-{}-{n}", super::now_ns(), std::process::id());
        let tmp = self.dir.join(format!(".{id}.tmp"));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
        let written = (|| {
            let (facts, rest) = rayon::join(
                || write_facts(&tmp.join("facts.bin"), &index.files),
                || -> Result<_, StoreError> {
                    Ok((
                        enc(&manifest)?,
                        enc(&edges)?,
                        enc(&unresolved)?,
                        enc(&index.graph.name_order())?,
                    ))
                },
            );
            let (m, e, u, names) = rest?;
            facts?;
            write_checked(&tmp.join("edges.bin"), &e)?;
            write_checked(&tmp.join("unresolved.bin"), &u)?;
            write_checked(&tmp.join("names.bin"), &names)?;
            write_checked(&tmp.join("manifest.bin"), &m)?;
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
        match std::fs::remove_file(&cur) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&cur)(e)),
        }
        self.collect_garbage("");
        for sub in ["text", "vectors"] {
            let p = self.dir.join(sub);
            match std::fs::remove_dir_all(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(&p)(e)),
            }
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

fn enc<T: Serialize>(v: &T) -> Result<Vec<u8>, StoreError> {
    postcard::to_stdvec(v).map_err(|e| StoreError::Encode(e.to_string()))
}

fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8], what: &str) -> Result<T, LoadError> {
    postcard::from_bytes(bytes).map_err(|e| LoadError::Corrupt(format!("{what}: {e}")))
}

/// Header: magic, engine fingerprint (length-prefixed), payload length, BLAKE3.
fn write_checked(path: &Path, payload: &[u8]) -> Result<(), StoreError> {
    let mut f = File::create(path).map_err(io(path))?;
    let (mut head, _) = header_prefix();
    head.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    head.extend_from_slice(blake3::hash(payload).as_bytes());
    (|| {
        f.write_all(&head)?;
        f.write_all(payload)?;
        f.sync_all()
    })()
    .map_err(io(path))
}

/// The header up to the payload length (magic, then the engine fingerprint prefixed by its
/// length) and the offset where the length goes; the length and checksum follow.
fn header_prefix() -> (Vec<u8>, u64) {
    let engine = engine_fingerprint();
    let mut head = Vec::with_capacity(8 + 2 + engine.len() + 8 + 32);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&(engine.len() as u16).to_le_bytes());
    head.extend_from_slice(engine.as_bytes());
    let at = head.len() as u64;
    (head, at)
}

/// Starts a [`write_checked`] file whose payload is not known yet: writes the header with
/// a zero length and checksum and returns the writer and the offset of the length, to be
/// filled in when the payload is complete.
fn begin_checked(path: &Path) -> Result<(std::io::BufWriter<File>, u64), StoreError> {
    let mut f = std::io::BufWriter::new(File::create(path).map_err(io(path))?);
    let (mut head, at) = header_prefix();
    head.extend_from_slice(&[0u8; 8 + 32]);
    f.write_all(&head).map_err(io(path))?;
    Ok((f, at))
}

/// Reads a cache file only when it is a regular file (not a symlink, FIFO or device:
/// those could block or never end), and never more than its size when opened.
fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
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

/// Reads a file written by [`write_checked`] and returns its verified payload.
fn read_checked(path: &Path) -> Result<Vec<u8>, LoadError> {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let bytes = read_regular(path).map_err(|e| LoadError::Corrupt(format!("{name}: {e}")))?;
    let bad = |why: &str| LoadError::Corrupt(format!("{name}: {why}"));
    if bytes.len() < 10 || &bytes[..8] != MAGIC {
        return Err(bad("not a cache file"));
    }
    let elen = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let engine = bytes
        .get(10..10 + elen)
        .ok_or_else(|| bad("truncated header"))?;
    if engine != engine_fingerprint().as_bytes() {
        return Err(LoadError::Stale(format!(
            "another engine build ({})",
            String::from_utf8_lossy(engine)
        )));
    }
    let at = 10 + elen;
    let len = bytes
        .get(at..at + 8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        .ok_or_else(|| bad("truncated header"))?;
    let hash: [u8; 32] = bytes
        .get(at + 8..at + 40)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| bad("truncated header"))?;
    let mut payload = bytes;
    payload.drain(..at + 40);
    if payload.len() as u64 != len {
        return Err(bad("truncated"));
    }
    if *blake3::hash(&payload).as_bytes() != hash {
        return Err(bad("checksum mismatch"));
    }
    Ok(payload)
}

/// Writes `files` as a [`write_checked`] file whose payload is the shard count (u32 LE),
/// then per shard its length (u64 LE) and the postcard bytes of a `Vec<FileFacts>` of up
/// to [`SHARD_FILES`] files and [`SHARD_SOURCE_BYTES`] of source. Shards are encoded in parallel a few at a time and written as
/// they come, so the encoded facts are never all in memory (360 MiB on the fetch.sh
/// corpus); the header's length and checksum are filled in at the end.
fn write_facts(path: &Path, files: &[FileFacts]) -> Result<(), StoreError> {
    use std::io::{Seek, SeekFrom};
    let mut shards: Vec<&[FileFacts]> = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    for (i, f) in files.iter().enumerate() {
        if i > start && (i - start == SHARD_FILES || bytes + f.bytes > SHARD_SOURCE_BYTES) {
            shards.push(&files[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += f.bytes;
    }
    if start < files.len() {
        shards.push(&files[start..]);
    }
    let (mut f, at) = begin_checked(path)?;
    let mut hasher = blake3::Hasher::new();
    let mut len = 0u64;
    let mut put = |f: &mut std::io::BufWriter<File>, bytes: &[u8]| {
        hasher.update(bytes);
        len += bytes.len() as u64;
        f.write_all(bytes).map_err(io(path))
    };
    put(&mut f, &(shards.len() as u32).to_le_bytes())?;
    for batch in shards.chunks(2 * rayon::current_num_threads().max(1)) {
        let encoded: Vec<Vec<u8>> = batch.par_iter().map(enc).collect::<Result<_, _>>()?;
        for e in &encoded {
            put(&mut f, &(e.len() as u64).to_le_bytes())?;
            put(&mut f, e)?;
        }
    }
    let hash = hasher.finalize();
    let mut file = f.into_inner().map_err(|e| io(path)(e.into_error()))?;
    (|| {
        file.seek(SeekFrom::Start(at))?;
        file.write_all(&len.to_le_bytes())?;
        file.write_all(hash.as_bytes())?;
        file.sync_all()
    })()
    .map_err(io(path))
}

fn read_facts(path: &Path) -> Result<Vec<FileFacts>, LoadError> {
    let payload = read_checked(path)?;
    let bad = |why: &str| LoadError::Corrupt(format!("facts.bin: {why}"));
    let count = payload
        .get(..4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
        .ok_or_else(|| bad("truncated"))? as usize;
    let mut spans = Vec::with_capacity(count);
    let mut at = 4usize;
    for _ in 0..count {
        let len = payload
            .get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .ok_or_else(|| bad("truncated shard table"))? as usize;
        at += 8;
        let end = at.checked_add(len).filter(|&e| e <= payload.len());
        let end = end.ok_or_else(|| bad("shard past the end"))?;
        spans.push((at, end));
        at = end;
    }
    let shards: Vec<Vec<FileFacts>> = spans
        .par_iter()
        .map(|&(s, e)| decode(&payload[s..e], "facts"))
        .collect::<Result<_, _>>()?;
    Ok(shards.into_iter().flatten().collect())
}

fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    // Opening a directory read-only and fsyncing it persists the renames in it (POSIX);
    // platforms that refuse it lose only durability, not atomicity.
    match File::open(dir).and_then(|d| d.sync_all()) {
        Ok(()) => Ok(()),
        Err(e) if cfg!(unix) => Err(io(dir)(e)),
        Err(_) => Ok(()),
    }
}
