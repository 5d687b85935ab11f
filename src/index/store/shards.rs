//! Sharded cache files (`facts.bin`, `nodes.bin`): a shard count, then each shard's
//! length and postcard bytes, so shards are encoded and decoded in parallel. Reading maps
//! the file and decodes the shards in place, a batch at a time. Its own module because the
//! facts and the nodes share it while the other parts are single values.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use super::format::{
    begin_checked, check_header, encode_into, file_label, finish_checked, open_regular,
};
use super::{io, LoadError, StoreError};
use crate::index::FileFacts;

/// Files per facts shard (shards are encoded and decoded in parallel).
const SHARD_FILES: usize = 256;

/// Source bytes per facts shard at most (a shard holds at least one file): the facts of
/// 256 generated files (windows-sys) can encode to tens of MiB, and a save holds a few
/// shards in memory at a time.
const SHARD_SOURCE_BYTES: u64 = 4 << 20;

/// The files of each shard of `facts.bin` and `nodes.bin` (shards are encoded and
/// decoded in parallel): up to [`SHARD_FILES`] files and [`SHARD_SOURCE_BYTES`] of source.
pub(super) fn shard_ranges(files: &[Arc<FileFacts>]) -> Vec<std::ops::Range<usize>> {
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
/// into the file: no encoded shard is ever in memory (a batch of them in flight would add
/// about 100 MiB to a save's peak on the fetch.sh corpus, where a shard of generated
/// windows-sys files encodes to tens of MiB).
pub(super) fn write_shards<T: Serialize + Sync>(
    path: &Path,
    shards: Vec<T>,
) -> Result<[u8; 32], StoreError> {
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

/// Reads a sharded cache file (see [`write_shards`]; checked against `expect`), decoding
/// each shard with `shard` (given its bytes and where they start in the mapping) on the
/// current pool; the items of all shards in order, and the mapping when `keep`.
///
/// The file is mapped into memory, not read: the shards are decoded where they lie, a
/// batch of up to [`BATCH_BYTES`] at a time, each batch hashed first and released from
/// the mapping after, so a load holds neither a copy of the encoded payload (342 MB on the
/// fetch.sh Rust tree) nor more than a batch of it mapped. Copying it through read buffers
/// would be about a fifth of a warm graph load's CPU (`perf`: the kernel's copy, the buffers'
/// zeroing and their page faults). The checksum covers the whole payload and speaks
/// first: a damaged file is reported as such, never as the decoding error it causes.
/// When `keep`, nothing is released: the caller decodes from the mapping later.
pub(super) fn read_sharded<T: Send>(
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
