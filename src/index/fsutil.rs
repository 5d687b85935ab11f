//! Small filesystem helpers the cache and the search indexes both use: removing whatever
//! is at a path, reading a regular file only, the size of a folder. Its own module so that
//! neither `store` nor `search` owns what the other needs.

use std::fs::File;
use std::path::Path;

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

/// Sum of file sizes under `path` (0 when it does not exist).
pub(crate) fn dir_size(path: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(path) else {
        return std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            _ => e.metadata().map(|m| m.len()).unwrap_or(0),
        })
        .sum()
}
