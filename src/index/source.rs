//! Reading sources: [`RawInput`] (the unit the indexer takes), [`FsSource`] (a parallel,
//! ignore-aware directory walk) and the checks every input passes before parsing (size
//! cap, binary sniff, UTF-8, BOM, minified-text detection).
//!
//! Ignore model, in order of precedence (the `ignore` crate's, as in ripgrep): the repo's
//! `.gitignore` files (nested and parent ones, with or without a `.git` directory),
//! `.ignore` files, hidden paths, then this project's default globs ([`DEFAULT_IGNORES`])
//! and the operator's globs (config file, `CODEGRAPH_IGNORE_GLOBS`), both in gitignore
//! syntax. Symbolic links are never followed (so nothing outside the root is read and a
//! link loop cannot hang the walk); they are counted. FIFOs, sockets and devices are
//! counted and never opened.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{WalkBuilder, WalkState};

use super::IndexError;

/// Globs (gitignore syntax) skipped in every repository: build output, dependency and
/// virtual-environment folders, caches. Source: the folders ripgrep users most often add
/// to `.ignore`, and the defaults of codanna and CodeGraph.
pub const DEFAULT_IGNORES: &[&str] = &[
    "target/",
    "node_modules/",
    ".git/",
    "dist/",
    "build/",
    "vendor/",
    ".venv/",
    "venv/",
    ".tox/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".next/",
    ".nuxt/",
    ".turbo/",
    ".cache/",
    "__pycache__/",
    "bower_components/",
    "coverage/",
    "*.pyc",
];

/// One input to the indexer: a repo-relative path and its raw bytes.
#[derive(Debug, Clone)]
pub struct RawInput {
    /// Repo-relative path with `/` separators; it becomes the file node's id.
    pub path: String,
    /// The file's bytes as read (BOM and line endings untouched).
    pub bytes: Vec<u8>,
    /// A language registry name that overrides detection by extension.
    pub language: Option<String>,
}

/// Why an input was not indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum SkipReason {
    /// NUL byte in the first 8 KiB, or not valid UTF-8.
    Binary,
    /// Larger than the byte cap.
    TooLarge,
    /// No language for the extension.
    Unsupported,
    /// An I/O error while reading.
    Unreadable,
    /// A symbolic link (never followed).
    Symlink,
    /// A FIFO, socket or device: never opened.
    Special,
}

/// Limits applied to every input.
#[derive(Debug, Clone)]
pub struct Caps {
    /// Files larger than this many bytes are skipped (`too_large`). Default 1 MiB.
    pub max_file_bytes: u64,
    /// A file whose longest line has at least this many bytes, and looks like code packed
    /// onto few lines (see [`looks_minified`]), is windowed instead of parsed. Default 1000.
    pub long_line_bytes: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            max_file_bytes: 1 << 20,
            long_line_bytes: 1000,
        }
    }
}

/// Text that passed the checks: BOM stripped, valid UTF-8.
#[derive(Debug)]
pub struct Prepared<'a> {
    /// The text without a leading UTF-8 BOM.
    pub text: &'a str,
    /// `true` when the text looks minified or generated: it gets window chunks only.
    pub minified: bool,
}

/// Applies the caps and sniffing rules to raw bytes.
///
/// Errors: [`SkipReason::TooLarge`] over `caps.max_file_bytes`; [`SkipReason::Binary`] when
/// a NUL byte occurs in the first 8 KiB (git's and ripgrep's rule) or the bytes are not
/// UTF-8 after an optional BOM.
pub fn prepare<'a>(path: &str, bytes: &'a [u8], caps: &Caps) -> Result<Prepared<'a>, SkipReason> {
    if bytes.len() as u64 > caps.max_file_bytes {
        return Err(SkipReason::TooLarge);
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(SkipReason::Binary);
    }
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let text = std::str::from_utf8(body).map_err(|_| SkipReason::Binary)?;
    let minified = looks_minified(path, text, caps.long_line_bytes);
    Ok(Prepared { text, minified })
}

/// Minified or generated code: a `.min.` file name, or text of which at least half the
/// bytes sit on packed lines: lines of at least `long_line` bytes on which statement and
/// block separators (`;`, `{`, `}`) occur at least once per 60 bytes (packed statements,
/// not one long string or identifier). A long data line (a table, a literal list: commas
/// between values) is not packed code: a hand-written file with one is parsed, however
/// much of the file the data takes (a Go `[]byte{0x00, ...}` beside two functions).
pub fn looks_minified(path: &str, text: &str, long_line: usize) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    if file.contains(".min.") {
        return true;
    }
    if text.len() < long_line {
        return false;
    }
    let packed: usize = text
        .split('\n')
        .filter(|l| l.len() >= long_line)
        .filter(|l| {
            let seps = l
                .bytes()
                .filter(|b| matches!(b, b';' | b'{' | b'}'))
                .count();
            seps * 60 >= l.len()
        })
        .map(str::len)
        .sum();
    packed * 2 >= text.len()
}

/// Options of a filesystem walk.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// Extra gitignore-syntax globs from the operator (config file, environment).
    pub ignore_globs: Vec<String>,
    /// Walker threads; 0 lets the `ignore` crate choose.
    pub threads: usize,
}

/// Size, modification time and status-change time of a file when it was read: what
/// reconciliation compares before it hashes content (`docs/contracts.md#cache-layout`). Any of them moved
/// and the file is read again, as git does with its index's stat data (`core.trustctime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch (negative before it; 0 when
    /// the platform gives none).
    pub mtime_ns: i64,
    /// Status-change time (Unix `ctime`), nanoseconds since the Unix epoch; 0 elsewhere.
    /// It moves when the mtime does and also on a change of permissions or owner, a
    /// rename or a replacement by another file: a file made readable again, or swapped
    /// with another of the same size and mtime, is noticed.
    pub ctime_ns: i64,
}

impl FileStamp {
    /// The stamp of `meta`.
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .map(|t| match t.duration_since(std::time::UNIX_EPOCH) {
                Ok(d) => d.as_nanos() as i64,
                Err(e) => -(e.duration().as_nanos() as i64),
            })
            .unwrap_or(0);
        #[cfg(unix)]
        let ctime_ns = {
            use std::os::unix::fs::MetadataExt;
            meta.ctime()
                .saturating_mul(1_000_000_000)
                .saturating_add(meta.ctime_nsec())
        };
        #[cfg(not(unix))]
        let ctime_ns = 0;
        FileStamp {
            size: meta.len(),
            mtime_ns,
            ctime_ns,
        }
    }
}

/// A regular file found by the walk, not yet read.
#[derive(Debug, Clone)]
pub struct FsEntry {
    /// Repo-relative path with `/` separators.
    pub path: String,
    /// Absolute path for reading.
    pub abs: PathBuf,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct WalkResult {
    /// Regular files with a known language, sorted by path.
    pub files: Vec<FsEntry>,
    /// Every non-directory entry the walk yielded (files, links, special files).
    pub files_seen: u64,
    /// Paths excluded by ignore rules (an ignored directory counts once).
    pub paths_ignored: u64,
    /// Entries skipped without reading, by reason.
    pub skipped: Vec<(String, SkipReason)>,
}

/// A repository on disk, read through an ignore-aware parallel walk.
#[derive(Debug, Clone)]
pub struct FsSource {
    root: PathBuf,
    options: WalkOptions,
}

impl FsSource {
    /// A source rooted at `root` (made absolute and canonical).
    ///
    /// Errors: [`IndexError::Root`] when the root does not exist, is not a directory or
    /// cannot be listed.
    pub fn new(root: &Path, options: WalkOptions) -> Result<FsSource, IndexError> {
        let root = root.canonicalize().map_err(|e| IndexError::Root {
            path: root.to_path_buf(),
            error: e,
        })?;
        if !root.is_dir() {
            return Err(IndexError::Root {
                path: root,
                error: std::io::Error::other("not a directory"),
            });
        }
        // A root that cannot be listed would give an empty index, not an error.
        if let Err(error) = std::fs::read_dir(&root) {
            return Err(IndexError::Root { path: root, error });
        }
        Ok(FsSource { root, options })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn matcher(&self) -> Gitignore {
        let mut b = GitignoreBuilder::new(&self.root);
        for g in DEFAULT_IGNORES
            .iter()
            .copied()
            .chain(self.options.ignore_globs.iter().map(String::as_str))
        {
            if let Err(e) = b.add_line(None, g) {
                tracing::warn!("ignoring bad ignore glob {g:?}: {e}");
            }
        }
        b.build().unwrap_or_else(|_| Gitignore::empty())
    }

    /// The ignore rules for single paths (a watcher's events): the default and operator
    /// globs plus the root's `.gitignore` and `.ignore`. Nested ignore files are not read
    /// here; a path they exclude costs one needless reconciliation, never a wrong index,
    /// since the reconciliation walk applies every rule.
    pub fn path_matcher(&self) -> Gitignore {
        let mut b = GitignoreBuilder::new(&self.root);
        for f in [".gitignore", ".ignore"] {
            let p = self.root.join(f);
            if p.is_file() {
                if let Some(e) = b.add(&p) {
                    tracing::debug!("{}: {e}", p.display());
                }
            }
        }
        for g in DEFAULT_IGNORES
            .iter()
            .copied()
            .chain(self.options.ignore_globs.iter().map(String::as_str))
        {
            let _ = b.add_line(None, g);
        }
        b.build().unwrap_or_else(|_| Gitignore::empty())
    }

    /// Walks the tree in parallel. Never fails as a whole: unreadable directories are
    /// logged and counted as ignored paths.
    pub fn walk(&self) -> WalkResult {
        let matcher = Arc::new(self.matcher());
        let filter_matcher = matcher.clone();
        let mut builder = WalkBuilder::new(&self.root);
        builder
            .follow_links(false)
            .require_git(false)
            .threads(super::capped_threads(self.options.threads))
            .filter_entry(move |e| {
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                !filter_matcher.matched(e.path(), is_dir).is_ignore()
            });
        let children = AtomicU64::new(0);
        let yielded = AtomicU64::new(0);
        let out = Mutex::new(WalkResult::default());
        let root = self.root.clone();
        builder.build_parallel().run(|| {
            Box::new(|res| {
                let entry = match res {
                    Ok(e) => e,
                    Err(err) => {
                        tracing::debug!("walk error: {err}");
                        // A directory that cannot be listed counts once as unreadable.
                        if let Some(rel) = error_path(&err).and_then(|p| relative_lossy(&root, p)) {
                            let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
                            o.files_seen += 1;
                            o.skipped.push((rel, SkipReason::Unreadable));
                        }
                        return WalkState::Continue;
                    }
                };
                let Some(ft) = entry.file_type() else {
                    return WalkState::Continue;
                };
                if entry.depth() > 0 {
                    yielded.fetch_add(1, Ordering::Relaxed);
                }
                if ft.is_dir() {
                    if let Ok(rd) = std::fs::read_dir(entry.path()) {
                        children.fetch_add(rd.count() as u64, Ordering::Relaxed);
                    }
                    return WalkState::Continue;
                }
                let Some(rel) = relative(&root, entry.path()) else {
                    // A name that is not valid Unicode: counted as unreadable under its
                    // lossy name (U+FFFD for the bad bytes), never silently dropped.
                    if let Some(rel) = relative_lossy(&root, entry.path()) {
                        tracing::debug!(path = %rel, "skipped: file name is not UTF-8");
                        let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
                        o.files_seen += 1;
                        o.skipped.push((rel, SkipReason::Unreadable));
                    }
                    return WalkState::Continue;
                };
                let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
                o.files_seen += 1;
                if ft.is_symlink() {
                    tracing::debug!(path = %rel, "skipped: symlink (not followed)");
                    o.skipped.push((rel, SkipReason::Symlink));
                } else if !ft.is_file() {
                    tracing::debug!(path = %rel, "skipped: not a regular file");
                    o.skipped.push((rel, SkipReason::Special));
                } else if super::lang::for_path(&rel).is_none()
                    && script_language(&rel, entry.path()).is_none()
                {
                    tracing::debug!(path = %rel, "skipped: unsupported extension");
                    o.skipped.push((rel, SkipReason::Unsupported));
                } else {
                    o.files.push(FsEntry {
                        path: rel,
                        abs: entry.into_path(),
                    });
                }
                WalkState::Continue
            })
        });
        let mut out = out.into_inner().unwrap_or_else(|p| p.into_inner());
        out.paths_ignored = children
            .load(Ordering::Relaxed)
            .saturating_sub(yielded.load(Ordering::Relaxed));
        out.files.sort_by(|a, b| a.path.cmp(&b.path));
        out.skipped.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Reads one walked file into a [`RawInput`]. Files over `max_bytes` are not read.
    ///
    /// Errors: [`SkipReason::TooLarge`] from the file's metadata; [`SkipReason::Unreadable`]
    /// on any I/O error (logged at debug with the error).
    pub fn read(&self, entry: &FsEntry, max_bytes: u64) -> Result<RawInput, SkipReason> {
        self.read_stamped(entry, max_bytes).1
    }

    /// As [`read`](FsSource::read), also giving the file's [`FileStamp`] (taken before the
    /// bytes are read, so a write racing the read shows as a changed stamp next time);
    /// `None` when the file could not even be stat'ed.
    pub fn read_stamped(
        &self,
        entry: &FsEntry,
        max_bytes: u64,
    ) -> (Option<FileStamp>, Result<RawInput, SkipReason>) {
        self.read_stamped_into(entry, max_bytes, Vec::new())
    }

    /// As [`read_stamped`](FsSource::read_stamped), reading into `buf`'s allocation (its
    /// contents are replaced): a caller that hands back the last input's bytes reads every
    /// file into memory that is already mapped and in cache. On an error `buf` is dropped.
    pub fn read_stamped_into(
        &self,
        entry: &FsEntry,
        max_bytes: u64,
        mut buf: Vec<u8>,
    ) -> (Option<FileStamp>, Result<RawInput, SkipReason>) {
        let meta = match std::fs::symlink_metadata(&entry.abs) {
            Ok(m) => m,
            Err(e) => {
                tracing::debug!(path = %entry.path, "unreadable: {e}");
                return (None, Err(SkipReason::Unreadable));
            }
        };
        if !meta.is_file() {
            return (None, Err(SkipReason::Special));
        }
        let stamp = FileStamp::of(&meta);
        if meta.len() > max_bytes {
            return (Some(stamp), Err(SkipReason::TooLarge));
        }
        buf.clear();
        let read = std::fs::File::open(&entry.abs)
            .and_then(|mut f| {
                use std::io::Read;
                // One more byte than the length: the read that finds the end needs no
                // growth.
                buf.try_reserve_exact(meta.len() as usize + 1)?;
                f.read_to_end(&mut buf)
            })
            .map_err(|e| {
                tracing::debug!(path = %entry.path, "unreadable: {e}");
                SkipReason::Unreadable
            })
            .map(|_| RawInput {
                // An extension-less script is of the language its `#!` line names.
                language: (super::lang::for_path(&entry.path).is_none()
                    && no_extension(&entry.path))
                .then(|| super::lang::for_shebang(&buf))
                .flatten()
                .map(|spec| spec.name.to_string()),
                path: entry.path.clone(),
                bytes: buf,
            });
        (Some(stamp), read)
    }

    /// The current [`FileStamp`] of a walked file; `None` when it cannot be stat'ed or is
    /// no longer a regular file.
    pub fn stamp(&self, entry: &FsEntry) -> Option<FileStamp> {
        std::fs::symlink_metadata(&entry.abs)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| FileStamp::of(&m))
    }
}

/// The path an error of the walk is about, if it names one.
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

/// [`relative`] with invalid Unicode replaced by U+FFFD, for counting and logging paths
/// that cannot be indexed; `None` outside the root.
fn relative_lossy(root: &Path, p: &Path) -> Option<String> {
    let rel = p.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// Repo-relative path with `/` separators; `None` for a path outside the root or one that
/// is not valid Unicode (such names are counted as unreadable by the caller).
fn relative(root: &Path, p: &Path) -> Option<String> {
    let rel = p.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// The language of a file the extension does not name: an extension-less script whose
/// `#!` line names an interpreter (`rel` the repo-relative path, `abs` the file to read).
/// The walk indexes such a file, so the watcher reports its changes.
pub(crate) fn script_language(rel: &str, abs: &Path) -> Option<&'static super::lang::LanguageSpec> {
    if super::lang::for_path(rel).is_some() || !no_extension(rel) {
        return None;
    }
    shebang_language(abs)
}

/// Whether a path's file name has no extension (no `.` after its first character), the
/// only files whose language a `#!` line decides.
fn no_extension(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    !file.get(1..).is_some_and(|rest| rest.contains('.'))
}

/// The language the `#!` line of the file at `abs` names, reading its first 256 bytes.
fn shebang_language(abs: &Path) -> Option<&'static super::lang::LanguageSpec> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let mut f = std::fs::File::open(abs).ok()?;
    let n = f.read(&mut head).ok()?;
    super::lang::for_shebang(&head[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_rules() {
        let caps = Caps::default();
        assert_eq!(
            prepare("a.rs", b"fn a(){}\0", &caps).unwrap_err(),
            SkipReason::Binary
        );
        assert_eq!(
            prepare("a.py", b"x = '\xe9'", &caps).unwrap_err(),
            SkipReason::Binary
        );
        let p = prepare("a.py", b"\xef\xbb\xbfdef f(): pass", &caps).unwrap();
        assert_eq!(p.text, "def f(): pass");
        let small = Caps {
            max_file_bytes: 4,
            ..Caps::default()
        };
        assert_eq!(
            prepare("a.py", b"12345", &small).unwrap_err(),
            SkipReason::TooLarge
        );
    }

    #[test]
    fn minified_needs_packed_separators() {
        let packed = "function a(){return 1};".repeat(100);
        assert!(looks_minified("a.js", &packed, 1000));
        let ident = format!("pub fn {}() {{}}", "a".repeat(5000));
        assert!(!looks_minified("a.rs", &ident, 1000));
        assert!(looks_minified("x/app.min.js", "var a;", 1000));
        // A bundle: one packed line and a source map comment.
        let bundle = format!("{packed}\n//# sourceMappingURL=a.js.map\n");
        assert!(looks_minified("dist/a.js", &bundle, 1000));
        // Hand-written code with one long data line is parsed.
        let defs: String = (0..300)
            .map(|i| format!("def f{i}(x):\n    return x + {i}\n"))
            .collect();
        let table = format!("TABLE = [{}]\n", "1, 2, 3, 4, ".repeat(250));
        assert!(table.len() > 1000);
        assert!(!looks_minified("a.py", &format!("{table}{defs}"), 1000));
        // ...even when the data line is most of the file (its definitions are still what
        // the file has to say); packed statements that are most of it are minified.
        assert!(!looks_minified(
            "a.py",
            &format!("{table}def f(x):\n    return x\n"),
            1000
        ));
        let bytes = format!("var data = []byte{{{}}}\n", "0x00, ".repeat(2000));
        assert!(!looks_minified(
            "assets.go",
            &format!("{bytes}func Load() {{}}\n"),
            1000
        ));
        assert!(looks_minified(
            "a.js",
            &format!("{packed}\nfunction f(x) {{ return x }}\n"),
            1000
        ));
    }
}
