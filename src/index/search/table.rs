//! The saved chunk table: every chunk's metadata and `i8`-coded vector in one
//! memory-mapped file, so a later process answers semantic and hybrid queries without
//! loading the snapshot, re-reading any source or decoding the vector cache
//! ([`super::warm`]). It is written beside the vector cache when a search index is built
//! for a saved snapshot, and is valid only for that snapshot and that embedder (and, for
//! the built-in one, that fit).
//!
//! File `<cache dir>/vectors/<16 hex of BLAKE3(embedder cache slot)>.table`, all integers
//! little-endian, every section starting at a multiple of 8 bytes:
//!
//! * Header: magic `CGTTAB03`; the BLAKE3 of the rest of the header (32 bytes); the
//!   snapshot digest (32); the embedder fit digest (32, zero for a provider without a
//!   fit); dimension (u32), embedder id length (u32); row count, path count, name count,
//!   string bytes, path string bytes and label bytes (u64 each); the BLAKE3 of the body
//!   (32); the embedder id (UTF-8).
//! * Codes: `dimension × count` `i8`, column-major (all rows' first component, then all
//!   second ones, ...: [`super::scan::CodeRows::by_column`]). Scales: `count` `f32`
//!   ([`super::scan`]).
//! * Rows, 16 bytes each in chunk order: path index, first and last line (1-based; u32
//!   each), kind and language (u8 indexes into the labels), 2 bytes of padding.
//! * Names of the rows, 24 bytes each in chunk order: `(offset, length)` into the strings
//!   of node id, name and qualified name (u32 each).
//! * Paths, 16 bytes each: offset and length into the path strings, first row and row
//!   count (u32 each); then the path indexes sorted by path (u32 each).
//! * The name lookup, 12 bytes each, sorted: the first 8 bytes of BLAKE3 of a lowercased
//!   name, qualified name or id of a definition's chunk (u64), and its row (u32).
//! * Labels: the kinds and languages, each a length byte and UTF-8.
//! * Path strings, then strings: UTF-8.
//!
//! What a query reads at random (the rows of its candidates, the paths a text hit is
//! looked up by) sits in small dense sections, and the strings of a row are read only for
//! the hits shown: every page a map touches stays in the process's memory, and the kernel
//! maps pages around each one touched.
//!
//! Opening checks the header (its checksum, the snapshot, the sizes against the file's
//! length), and the body's checksum only when the file's length or modification time is
//! not what the writer recorded in `<table>.checked` after writing it: reading the whole
//! body per query would cost more than the query. Every offset read from the body is
//! bounds-checked as well, so damage that went unseen gives wrong text, never a crash.

use std::path::{Path, PathBuf};

use super::scan::CodeRows;
use super::vector::VectorIndex;
use super::{write_atomic, SearchChunk, SearchError};
use crate::index::store::SnapshotDigest;

const MAGIC: &[u8; 8] = b"CGTTAB03";
const ROW_BYTES: usize = 16;
const REF_BYTES: usize = 24;
const PATH_BYTES: usize = 16;
const NAME_BYTES: usize = 12;
/// Header bytes before the embedder id.
const FIXED_HEAD: usize = 192;
/// Where the body's checksum sits in the header.
const BODY_SUM: std::ops::Range<usize> = 160..192;

/// Path of the table of an embedder's cache slot under `cache_dir`.
pub fn table_file(cache_dir: &Path, cache_slot: &str) -> PathBuf {
    super::vector::cache_file(cache_dir, cache_slot).with_extension("table")
}

/// Where the writer records the stamp of the table it wrote.
fn checked_file(table: &Path) -> PathBuf {
    table.with_extension("table.checked")
}

/// The hash a name is looked up by.
fn name_hash(lowercased: &str) -> u64 {
    let h = blake3::hash(lowercased.as_bytes());
    u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"))
}

fn pad8(b: &mut Vec<u8>) {
    b.resize(b.len().next_multiple_of(8), 0);
}

/// Byte ranges of the sections, from the counts of a header.
#[derive(Debug, Clone, Copy)]
struct Layout {
    codes: usize,
    scales: usize,
    rows: usize,
    refs: usize,
    paths: usize,
    sorted: usize,
    names: usize,
    labels: usize,
    path_strings: usize,
    strings: usize,
    end: usize,
}

/// The counts a header gives.
#[derive(Debug, Clone, Copy)]
struct Counts {
    dim: usize,
    rows: usize,
    paths: usize,
    names: usize,
    strings: usize,
    path_strings: usize,
    labels: usize,
}

impl Layout {
    fn of(body: usize, c: Counts) -> Option<Layout> {
        let up = |x: usize| x.checked_next_multiple_of(8);
        let after = |at: usize, n: usize, size: usize| up(at.checked_add(n.checked_mul(size)?)?);
        let codes = body;
        let scales = after(codes, c.rows, c.dim)?;
        let rows = after(scales, c.rows, 4)?;
        let refs = after(rows, c.rows, ROW_BYTES)?;
        let paths = after(refs, c.rows, REF_BYTES)?;
        let sorted = paths.checked_add(c.paths.checked_mul(PATH_BYTES)?)?;
        let names = after(sorted, c.paths, 4)?;
        let labels = after(names, c.names, NAME_BYTES)?;
        let path_strings = after(labels, c.labels, 1)?;
        let strings = after(path_strings, c.path_strings, 1)?;
        Some(Layout {
            codes,
            scales,
            rows,
            refs,
            paths,
            sorted,
            names,
            labels,
            path_strings,
            strings,
            end: strings.checked_add(c.strings)?,
        })
    }
}

/// What ranking needs of a chunk, and a hit shows: a row of the table, or a
/// [`SearchChunk`] held in memory. Lines are 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkFields<'a> {
    /// Repo-relative path.
    pub path: &'a str,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// Definition kind or `window`.
    pub kind: &'a str,
    /// Registry name of the language.
    pub language: &'a str,
    /// Node id ([`SearchChunk::id`]).
    pub id: &'a str,
    /// The definition's name; empty for windows.
    pub name: &'a str,
    /// The definition's qualified name; empty for windows.
    pub qualified_name: &'a str,
}

/// An opened table ([module docs](self)).
pub struct ChunkTable {
    map: memmap2::Mmap,
    /// The file mapped, for the scan's positioned reads ([`CodeRows::file`]).
    file: std::fs::File,
    lay: Layout,
    dim: usize,
    count: usize,
    n_paths: usize,
    n_names: usize,
    /// Kinds and languages, by their index in a row.
    labels: Vec<String>,
    /// The embedder the vectors are of ([`super::Embedder::id`]).
    pub embedder_id: String,
    /// The built-in embedder's fit digest the vectors were made with; zero otherwise.
    pub fit: [u8; 32],
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map_or(0, |x| u32::from_le_bytes(x.try_into().expect("4 bytes")))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .map_or(0, |x| u64::from_le_bytes(x.try_into().expect("8 bytes")))
}

impl ChunkTable {
    /// Opens the table at `path` when it was written for `snapshot`; `None` when it is
    /// missing, of another snapshot, or fails the header checks (then the caller builds).
    pub fn open(path: &Path, snapshot: SnapshotDigest) -> Option<ChunkTable> {
        // The codes and scales are read in place as `i8` and `f32`.
        if cfg!(target_endian = "big") {
            return None;
        }
        let file = std::fs::File::open(path).ok()?;
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        // SAFETY: the file is replaced by rename, never written in place, so the mapped
        // bytes do not change under the reader.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        let b = &map[..];
        if b.len() < FIXED_HEAD || &b[..8] != MAGIC || b[40..72] != snapshot.0 {
            return None;
        }
        let dim = u32_at(b, 104) as usize;
        let id_len = u32_at(b, 108) as usize;
        let body = (FIXED_HEAD + id_len).next_multiple_of(8);
        if b.len() < body || *blake3::hash(&b[40..body]).as_bytes() != b[8..40] {
            tracing::warn!(path = %path.display(), "chunk table header fails its checks; ignored");
            return None;
        }
        let n = |at: usize| usize::try_from(u64_at(b, at)).ok();
        let counts = Counts {
            dim,
            rows: n(112)?,
            paths: n(120)?,
            names: n(128)?,
            strings: n(136)?,
            path_strings: n(144)?,
            labels: n(152)?,
        };
        let (count, n_paths, n_names) = (counts.rows, counts.paths, counts.names);
        let lay = Layout::of(body, counts)?;
        if lay.end != b.len() {
            tracing::warn!(path = %path.display(), "chunk table has the wrong length; ignored");
            return None;
        }
        let embedder_id = std::str::from_utf8(&b[FIXED_HEAD..FIXED_HEAD + id_len])
            .ok()?
            .to_string();
        let fit = b[72..104].try_into().ok()?;
        let mut labels = Vec::new();
        let mut at = lay.labels;
        while at < lay.labels + counts.labels {
            let len = usize::from(b[at]);
            let s = b.get(at + 1..at + 1 + len)?;
            labels.push(String::from_utf8_lossy(s).into_owned());
            at += 1 + len;
        }
        let _ = map.advise(memmap2::Advice::Random);
        let t = ChunkTable {
            file,
            lay,
            labels,
            dim,
            count,
            n_paths,
            n_names,
            embedder_id,
            fit,
            map,
        };
        let recorded = std::fs::read_to_string(checked_file(path)).ok();
        if (recorded.is_none() || recorded != super::stamp::of_file(path)) && !t.body_intact() {
            tracing::warn!(path = %path.display(), "chunk table fails its checksum; ignored");
            return None;
        }
        Some(t)
    }

    /// `true` when the body matches the checksum the header records (reads all of it).
    pub fn body_intact(&self) -> bool {
        let b = &self.map[..];
        *blake3::Hasher::new()
            .update_rayon(&b[self.lay.codes..])
            .finalize()
            .as_bytes()
            == b[BODY_SUM]
    }

    /// Bytes of the file.
    pub fn size_bytes(&self) -> u64 {
        self.map.len() as u64
    }

    /// Number of rows (chunks).
    pub fn len(&self) -> usize {
        self.count
    }

    /// `true` without rows.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The vectors as the scan reads them.
    pub fn codes(&self) -> CodeRows<'_> {
        let b = &self.map[..];
        let codes = &b[self.lay.codes..self.lay.codes + self.count * self.dim];
        // SAFETY: `i8` and `u8` have the same size and alignment.
        let codes = unsafe { std::slice::from_raw_parts(codes.as_ptr().cast::<i8>(), codes.len()) };
        // SAFETY: any 4 bytes are a valid f32; `align_to` puts only aligned ones in the
        // middle slice, and the section starts at a multiple of 8 in a page-aligned map.
        let (head, scales, _) =
            unsafe { b[self.lay.scales..self.lay.scales + 4 * self.count].align_to::<f32>() };
        let scales = if head.is_empty() && scales.len() == self.count {
            scales
        } else {
            &[]
        };
        CodeRows {
            dim: self.dim,
            codes,
            scales,
            by_column: true,
            file: Some((&self.file, self.lay.codes as u64)),
        }
    }

    /// The UTF-8 at `off..off + len` of the section at `base..limit`; empty when out of
    /// bounds or not UTF-8.
    fn str_in(&self, base: usize, limit: usize, off: u32, len: u32) -> &str {
        let s = base + off as usize;
        let e = s + len as usize;
        self.map
            .get(s..e)
            .filter(|_| e <= limit)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    fn path_entry(&self, p: usize) -> (&str, usize, usize) {
        let at = self.lay.paths + p.min(self.n_paths) * PATH_BYTES;
        let b = &self.map[..];
        if p >= self.n_paths {
            return ("", 0, 0);
        }
        (
            self.str_in(
                self.lay.path_strings,
                self.lay.strings,
                u32_at(b, at),
                u32_at(b, at + 4),
            ),
            u32_at(b, at + 8) as usize,
            u32_at(b, at + 12) as usize,
        )
    }

    fn label(&self, i: u8) -> &str {
        self.labels.get(usize::from(i)).map_or("", String::as_str)
    }

    /// Path index, lines, kind and language index of row `i` (zeros past the end).
    fn fixed(&self, i: usize) -> (usize, u32, u32, u8, u8) {
        if i >= self.count {
            return (usize::MAX, 0, 0, u8::MAX, u8::MAX);
        }
        let b = &self.map[..];
        let at = self.lay.rows + i * ROW_BYTES;
        (
            u32_at(b, at) as usize,
            u32_at(b, at + 4),
            u32_at(b, at + 8),
            b[at + 12],
            b[at + 13],
        )
    }

    /// Row `i`'s kind, read from the dense rows alone.
    pub fn kind(&self, i: usize) -> &str {
        self.label(self.fixed(i).3)
    }

    /// Row `i`'s path, language and kind: what a query's filters read.
    pub fn filter_fields(&self, i: usize) -> (&str, &str, &str) {
        let (p, _, _, kind, lang) = self.fixed(i);
        (self.path_entry(p).0, self.label(lang), self.label(kind))
    }

    /// Row `i`; a row past the end reads as empty strings and line 0.
    pub fn row(&self, i: usize) -> ChunkFields<'_> {
        let (p, start_line, end_line, kind, lang) = self.fixed(i);
        let b = &self.map[..];
        let at = self.lay.refs + i.min(self.count) * REF_BYTES;
        let s = |k: usize| {
            if i >= self.count {
                return "";
            }
            let (off, len) = (u32_at(b, at + k), u32_at(b, at + k + 4));
            self.str_in(self.lay.strings, self.lay.end, off, len)
        };
        ChunkFields {
            path: self.path_entry(p).0,
            start_line,
            end_line,
            kind: self.label(kind),
            language: self.label(lang),
            id: s(0),
            name: s(8),
            qualified_name: s(16),
        }
    }

    /// The row of the `ord`-th (0-based) chunk of `path`, when that chunk spans
    /// `start..=end` (a text index hit's key and position).
    pub fn row_of(&self, path: &str, ord: usize, start: u32, end: u32) -> Option<usize> {
        let b = &self.map[..];
        let sorted = |k: usize| u32_at(b, self.lay.sorted + 4 * k) as usize;
        let (mut lo, mut hi) = (0, self.n_paths);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let p = sorted(mid);
            match self.path_entry(p).0.cmp(path) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let (_, first, rows) = self.path_entry(p);
                    let r = first + ord;
                    let (_, s, e, _, _) = (ord < rows && r < self.count).then(|| self.fixed(r))?;
                    return (s == start && e == end).then_some(r);
                }
            }
        }
        None
    }

    /// Rows of definition chunks whose name, qualified name or id, lowercased, is
    /// `lowercased` (a hash match confirmed on the row's strings), in row order.
    pub fn named(&self, lowercased: &str) -> Vec<usize> {
        let b = &self.map[..];
        let h = name_hash(lowercased);
        let entry = |k: usize| {
            let at = self.lay.names + k * NAME_BYTES;
            (u64_at(b, at), u32_at(b, at + 8) as usize)
        };
        let (mut lo, mut hi) = (0, self.n_names);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if entry(mid).0 < h {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut out = Vec::new();
        while lo < self.n_names && entry(lo).0 == h {
            let r = entry(lo).1;
            let row = self.row(r);
            if [row.name, row.qualified_name, row.id]
                .iter()
                .any(|k| k.to_lowercase() == lowercased)
                && out.last() != Some(&r)
            {
                out.push(r);
            }
            lo += 1;
        }
        out
    }
}

/// A strings section being written.
#[derive(Default)]
struct Strings {
    bytes: Vec<u8>,
    /// Past what 32-bit offsets address.
    too_big: bool,
}

impl Strings {
    /// Appends `s`; its `(offset, length)`.
    fn add(&mut self, s: &str) -> (u32, u32) {
        let off = self.bytes.len();
        if off + s.len() > u32::MAX as usize {
            self.too_big = true;
            return (0, 0);
        }
        self.bytes.extend_from_slice(s.as_bytes());
        (off as u32, s.len() as u32)
    }
}

/// Writes the table of `chunks` and their `vectors` (row `i` for chunk `i`, chunks in
/// path order) for `snapshot` to `path`, atomically, unless a table for the same
/// snapshot, embedder and fit that passes [`ChunkTable::open`]'s checks is already there.
///
/// Errors: [`SearchError::Io`] writing; a table that would pass what its 32-bit offsets
/// address (4 GiB of strings, 255 kinds and languages) is not written (logged, `Ok`), and
/// searches take the building path.
pub fn write(
    path: &Path,
    snapshot: SnapshotDigest,
    embedder_id: &str,
    fit: [u8; 32],
    chunks: &[SearchChunk],
    vectors: &VectorIndex,
) -> Result<(), SearchError> {
    if let Some(t) = ChunkTable::open(path, snapshot) {
        if t.embedder_id == embedder_id && t.fit == fit && t.len() == chunks.len() {
            return Ok(());
        }
    }
    if vectors.len() != chunks.len() {
        return Ok(());
    }
    let view = vectors.view();
    let mut strings = Strings::default();
    let mut path_strings = Strings::default();
    let mut labels: Vec<String> = Vec::new();
    let mut paths: Vec<(u32, u32, u32, u32, &str)> = Vec::new();
    let mut rows = Vec::with_capacity(chunks.len() * ROW_BYTES);
    let mut refs = Vec::with_capacity(chunks.len() * REF_BYTES);
    let mut names: Vec<(u64, u32)> = Vec::new();
    let mut too_many_labels = false;
    for (i, c) in chunks.iter().enumerate() {
        if paths.last().is_none_or(|p| p.4 != c.path) {
            let (o, l) = path_strings.add(&c.path);
            paths.push((o, l, i as u32, 0, &c.path));
        }
        let p = paths.len() - 1;
        paths[p].3 += 1;
        let mut index_of = |s: &str| match labels.iter().position(|l| l == s) {
            Some(k) => k as u8,
            None if labels.len() < usize::from(u8::MAX) && s.len() <= 255 => {
                labels.push(s.to_string());
                (labels.len() - 1) as u8
            }
            None => {
                too_many_labels = true;
                0
            }
        };
        let (kind, lang) = (index_of(&c.kind), index_of(&c.language));
        for x in [p as u32, c.start_line, c.end_line] {
            rows.extend_from_slice(&x.to_le_bytes());
        }
        rows.extend_from_slice(&[kind, lang, 0, 0]);
        for (o, l) in [
            strings.add(&c.id),
            strings.add(&c.name),
            strings.add(&c.qualified_name),
        ] {
            refs.extend_from_slice(&o.to_le_bytes());
            refs.extend_from_slice(&l.to_le_bytes());
        }
        if c.kind != "window" {
            let mut hs = [&c.name, &c.qualified_name, &c.id].map(|k| name_hash(&k.to_lowercase()));
            hs.sort_unstable();
            let mut prev = None;
            for h in hs {
                if prev != Some(h) {
                    names.push((h, i as u32));
                }
                prev = Some(h);
            }
        }
    }
    if strings.too_big
        || path_strings.too_big
        || too_many_labels
        || chunks.len() > u32::MAX as usize
    {
        tracing::warn!(path = %path.display(), "chunk table past what its offsets address; not saved");
        return Ok(());
    }
    let mut label_bytes = Vec::new();
    for l in &labels {
        label_bytes.push(l.len() as u8);
        label_bytes.extend_from_slice(l.as_bytes());
    }
    names.sort_unstable();
    let mut sorted: Vec<u32> = (0..paths.len() as u32).collect();
    sorted.sort_by(|&a, &b| paths[a as usize].4.cmp(paths[b as usize].4));
    let mut b: Vec<u8> = Vec::with_capacity(FIXED_HEAD + embedder_id.len() + 8);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&[0u8; 32]);
    b.extend_from_slice(&snapshot.0);
    b.extend_from_slice(&fit);
    b.extend_from_slice(&(view.dim as u32).to_le_bytes());
    b.extend_from_slice(&(embedder_id.len() as u32).to_le_bytes());
    for n in [
        chunks.len(),
        paths.len(),
        names.len(),
        strings.bytes.len(),
        path_strings.bytes.len(),
        label_bytes.len(),
    ] {
        b.extend_from_slice(&(n as u64).to_le_bytes());
    }
    b.extend_from_slice(&[0u8; 32]);
    debug_assert_eq!(b.len(), FIXED_HEAD);
    b.extend_from_slice(embedder_id.as_bytes());
    pad8(&mut b);
    let sections = super::table_body::Sections {
        view,
        rows: &rows,
        refs: &refs,
        paths: &paths,
        sorted: &sorted,
        names: &names,
        labels: &label_bytes,
        path_strings: &path_strings.bytes,
        strings: &strings.bytes,
    };
    // The body is made twice, once into its checksum and once into the file, rather than
    // held whole (857 MB for the 1.36M chunks of the fetch.sh Rust tree).
    let mut h = blake3::Hasher::new();
    sections
        .emit(b.len(), &mut |x| {
            h.update(x);
            Ok(())
        })
        .expect("hashing does not fail");
    b[BODY_SUM].copy_from_slice(h.finalize().as_bytes());
    let head = *blake3::hash(&b[40..]).as_bytes();
    b[8..40].copy_from_slice(&head);
    super::write_atomic_with(path, |w| {
        w.write_all(&b)?;
        sections.emit(b.len(), &mut |x| w.write_all(x))
    })?;
    // Without the stamp, readers check the body themselves: correct, only slower.
    if let Some(stamp) = super::stamp::of_file(path) {
        let _ = write_atomic(&checked_file(path), stamp.as_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(path: &str, line: u32, kind: &str, name: &str) -> SearchChunk {
        SearchChunk {
            key: format!("{path}:{line}-{}", line + 1),
            id: if name.is_empty() {
                path.into()
            } else {
                format!("{path}::{name}")
            },
            path: path.into(),
            language: if path.ends_with(".rs") {
                "rust"
            } else {
                "python"
            }
            .into(),
            kind: kind.into(),
            name: name.into(),
            qualified_name: name.into(),
            doc: String::new(),
            start_line: line,
            end_line: line + 1,
            text: String::new(),
            header: String::new(),
        }
    }

    #[test]
    fn a_written_table_reads_back_row_for_row() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.table");
        let chunks = vec![
            chunk("b.py", 1, "function", "Load"),
            chunk("b.py", 5, "window", ""),
            chunk("a.rs", 3, "struct", "Store"),
            chunk("a.rs", 9, "function", "load"),
        ];
        let vi = VectorIndex::new(vec![
            vec![1.0, 0.0],
            vec![0.0, 1.0],
            vec![0.6, 0.8],
            vec![-1.0, 0.0],
        ]);
        let snap = SnapshotDigest([7; 32]);
        write(&path, snap, "model", [3; 32], &chunks, &vi).expect("write");
        assert!(
            ChunkTable::open(&path, SnapshotDigest([8; 32])).is_none(),
            "another snapshot"
        );
        let t = ChunkTable::open(&path, snap).expect("open");
        assert_eq!(
            (t.len(), t.embedder_id.as_str(), t.fit),
            (4, "model", [3; 32])
        );
        for (i, c) in chunks.iter().enumerate() {
            let r = t.row(i);
            assert_eq!(
                (
                    r.path,
                    r.start_line,
                    r.end_line,
                    r.kind,
                    r.language,
                    r.id,
                    r.name
                ),
                (
                    &*c.path,
                    c.start_line,
                    c.end_line,
                    &*c.kind,
                    &*c.language,
                    &*c.id,
                    &*c.name
                )
            );
            assert_eq!(t.kind(i), c.kind);
            assert_eq!(t.filter_fields(i), (&*c.path, &*c.language, &*c.kind));
        }
        assert_eq!(t.row(9).path, "", "past the end");
        // Paths are looked up in sorted order though rows are in chunk order.
        assert_eq!(t.row_of("a.rs", 1, 9, 10), Some(3));
        assert_eq!(t.row_of("b.py", 0, 1, 2), Some(0));
        assert_eq!(t.row_of("b.py", 0, 2, 3), None, "other lines");
        assert_eq!(t.row_of("c.py", 0, 1, 2), None);
        assert_eq!(t.named("load"), [0, 3], "case folded; windows have no name");
        assert!(t.named("nothing").is_empty());
        // The scan over the mapped column-major codes ranks as the one in memory.
        assert_eq!(
            t.codes().top_k(&[1.0, 0.1], 4, None),
            vi.top_k(&[1.0, 0.1], 4)
        );
    }
}
