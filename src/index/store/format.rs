//! The checked file format every `.bin` file of a snapshot uses: `MAGIC`, the engine
//! fingerprint, the payload length and its BLAKE3 hash, then the payload. Writing streams
//! the payload through a hashing writer; reading checks header, length and checksum before
//! anything is decoded. Its own module because it knows nothing of what the payloads hold.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{engine_fingerprint, io, LoadError, StoreError};

/// First bytes of every cache file.
const MAGIC: &[u8; 8] = b"CGTIDX\x00\x01";

pub(super) fn decode<T: for<'de> Deserialize<'de>>(
    bytes: &[u8],
    what: &str,
) -> Result<T, LoadError> {
    postcard::from_bytes(bytes).map_err(|e| LoadError::Corrupt(format!("{what}: {e}")))
}

/// The payload of a cache file on its way to disk: counted and hashed as it passes.
/// It sits below a `BufWriter`, so the hasher sees large blocks, not postcard's bytes.
pub(super) struct Payload {
    file: File,
    /// Offset of the header's payload length (see [`header_prefix`]).
    at: u64,
    hasher: blake3::Hasher,
    /// Payload bytes written so far.
    pub(super) len: u64,
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
pub(super) fn begin_checked(path: &Path) -> Result<std::io::BufWriter<Payload>, StoreError> {
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
pub(super) fn encode_into<T: Serialize + ?Sized>(
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
pub(super) fn finish_checked(
    path: &Path,
    w: std::io::BufWriter<Payload>,
) -> Result<[u8; 32], StoreError> {
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
pub(super) fn write_value<T: Serialize + ?Sized>(
    path: &Path,
    value: &T,
) -> Result<[u8; 32], StoreError> {
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
pub(super) fn open_regular(path: &Path) -> Result<(File, u64), LoadError> {
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
pub(super) fn check_header(
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
pub(super) fn part_error(e: LoadError) -> LoadError {
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
pub(super) fn read_part(path: &Path, expect: &[u8; 32]) -> Result<Vec<u8>, LoadError> {
    read_checked(path, Some(expect)).map_err(part_error)
}

/// A cache file's name, for error messages.
pub(super) fn file_label(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Reads a cache file (see [`begin_checked`] and [`open_checked`], which `expect` goes
/// to) and returns its verified payload.
pub(super) fn read_checked(path: &Path, expect: Option<&[u8; 32]>) -> Result<Vec<u8>, LoadError> {
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
pub(super) fn verify_checked(path: &Path, expect: &[u8; 32]) -> Result<(), LoadError> {
    use std::io::Read;
    let (mut r, hash) = open_checked(path, Some(expect))?;
    let name = file_label(path);
    let bad = |why: &str| LoadError::Corrupt(format!("{name}: {why}"));
    let mut hasher = blake3::Hasher::new();
    // No bigger than the payload: zeroing 8 MiB blocks for small files would be a quarter
    // of a warm `index` of a small tree (`perf`).
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

/// `bytes` decoded as one `T`, every byte used.
pub(super) fn decode_all<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    what: &str,
) -> Result<T, LoadError> {
    let bad = |why: String| LoadError::Corrupt(format!("{what}: {why}"));
    let (v, rest) = postcard::take_from_bytes(bytes).map_err(|e| bad(e.to_string()))?;
    if !rest.is_empty() {
        return Err(bad(format!("{} bytes after the value", rest.len())));
    }
    Ok(v)
}

pub(super) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
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
