//! Stamps of saved search files: what a writer records after it built or checked them, so
//! that a later process trusts them without reading every byte again while their names,
//! lengths and modification times are unchanged (`docs/contracts.md#cache-layout`). A
//! damaged byte that changed none of these goes unseen until the files change.

use std::path::Path;
use std::time::UNIX_EPOCH;

/// Nanoseconds since the epoch of a modification time (negative before it).
fn nanos(t: std::time::SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// One file's length and modification time, as text; `None` when it cannot be read.
pub fn of_file(path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    Some(format!("{} {}", m.len(), nanos(m.modified().ok()?)))
}

/// A folder's regular files (writer locks left out: they come and go with no change of
/// the documents): the BLAKE3, as hex, of each one's name, length and modification time
/// in name order. `None` when the folder cannot be listed.
pub fn of_files_in(dir: &Path) -> Option<String> {
    let mut files: Vec<(String, u64, i128)> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let m = e.metadata().ok()?;
            let ns = nanos(m.modified().ok()?);
            let name = e.file_name().to_string_lossy().into_owned();
            (m.is_file() && !name.ends_with(".lock")).then_some((name, m.len(), ns))
        })
        .collect();
    files.sort();
    let mut h = blake3::Hasher::new();
    for (name, len, ns) in &files {
        h.update(name.as_bytes());
        h.update(&[0]);
        h.update(&len.to_le_bytes());
        h.update(&ns.to_le_bytes());
    }
    Some(h.finalize().to_hex().to_string())
}
