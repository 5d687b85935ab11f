//! The source view model: the file of the shown symbol, read and highlighted once when
//! the symbol changes (never while drawing), with the definition's line range and the
//! call sites to mark. A small cache keeps recently shown files.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use ratatui::text::Line;

use super::highlight;
use super::theme::Theme;

/// Files kept highlighted in memory.
const CACHE_FILES: usize = 16;

/// Largest file read for display, in bytes.
const MAX_SOURCE_BYTES: u64 = 8 * 1024 * 1024;

/// What the source panel shows.
#[derive(Debug, Clone, Default)]
pub struct SourceView {
    /// Repo-relative path shown ("" when nothing is).
    pub path: String,
    /// Highlighted lines.
    pub lines: Arc<Vec<Line<'static>>>,
    /// The definition's range, 1-based inclusive.
    pub range: Option<(u32, u32)>,
    /// Call sites to mark: (1-based line, 1-based char column).
    pub sites: Vec<(u32, u32)>,
    /// First line on screen, 0-based.
    pub scroll: usize,
    /// Why the file could not be shown, if it could not.
    pub error: Option<String>,
    /// The file on disk is not the one indexed (its content hash differs): the marked
    /// lines come from the index and may be off until the next update.
    pub changed_on_disk: bool,
    /// The shown symbol's name and the panel whose selection it is (`search` or `tree`),
    /// for the title: the source, the tree and the impact panel can each show another
    /// symbol, and the titles say which.
    pub shows: Option<(String, &'static str)>,
    /// Text lines of the panel at its last draw (0 before the first): a change is a
    /// resize, after which the focus line is brought back on screen.
    pub drawn_height: usize,
}

impl SourceView {
    /// The line `e` opens the editor at: the first call site, else the definition's start.
    pub fn focus_line(&self) -> u32 {
        self.sites
            .first()
            .map(|s| s.0)
            .or(self.range.map(|r| r.0))
            .unwrap_or(1)
    }

    /// Scrolls so `line` (1-based) sits a few lines below the top of a `height`-line view.
    pub fn center_on(&mut self, line: u32, height: usize) {
        let margin = (height / 4).max(1);
        self.scroll = (line as usize).saturating_sub(1).saturating_sub(margin);
        self.clamp(height);
    }

    /// Keeps the scroll inside the file.
    pub fn clamp(&mut self, height: usize) {
        let max = self.lines.len().saturating_sub(height.max(1));
        self.scroll = self.scroll.min(max);
    }
}

/// Highlighted files by path.
#[derive(Debug, Default)]
pub struct SourceCache {
    files: HashMap<String, Shown>,
    order: Vec<String>,
}

/// One file as read for the panel.
#[derive(Debug, Clone)]
pub struct Shown {
    /// Highlighted lines.
    pub lines: Arc<Vec<Line<'static>>>,
    /// BLAKE3 of the bytes read (hex), as the index's `content_hash`: when they differ the
    /// file changed on disk since it was indexed, and the graph's lines may not match.
    pub content_hash: String,
    /// Size and modification time when read: a cached file whose stat differs is read
    /// again (without a watcher nothing else tells the panel the file changed).
    stat: (u64, Option<std::time::SystemTime>),
}

impl SourceCache {
    /// The highlighted lines of `path` (repo-relative) under `root`: from the cache while
    /// the file's size and modification time are the ones read, else read again.
    ///
    /// Errors: the file is missing, unreadable or too large (message for the panel).
    pub fn get(
        &mut self,
        root: &Path,
        path: &str,
        language: &str,
        theme: &Theme,
    ) -> Result<Shown, String> {
        let full = root.join(path);
        let meta = std::fs::metadata(&full).map_err(|e| format!("cannot read: {e}"))?;
        let stat = (meta.len(), meta.modified().ok());
        if let Some(l) = self.files.get(path).filter(|l| l.stat == stat) {
            return Ok(l.clone());
        }
        if self.files.remove(path).is_some() {
            self.order.retain(|p| p != path);
        }
        if meta.len() > MAX_SOURCE_BYTES {
            return Err(format!("too large to show ({} bytes)", meta.len()));
        }
        let bytes = std::fs::read(&full).map_err(|e| format!("cannot read: {e}"))?;
        let content_hash = blake3::hash(&bytes).to_hex().to_string();
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let lines = Arc::new(highlight::highlight(language, text, theme));
        if self.order.len() >= CACHE_FILES {
            let old = self.order.remove(0);
            self.files.remove(&old);
        }
        self.order.push(path.to_string());
        let shown = Shown {
            lines,
            content_hash,
            stat,
        };
        self.files.insert(path.to_string(), shown.clone());
        Ok(shown)
    }

    /// Forgets every file (after a re-index, files may have changed).
    pub fn clear(&mut self) {
        self.files.clear();
        self.order.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shown file edited on disk (no watcher) is read again, not served from the cache;
    /// an unchanged one is served from it.
    #[test]
    fn a_file_changed_on_disk_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let theme = Theme::load("dark", None).unwrap();
        let mut cache = SourceCache::default();
        std::fs::write(dir.path().join("a.py"), "def f():\n    pass\n").unwrap();
        let first = cache.get(dir.path(), "a.py", "python", &theme).unwrap();
        assert_eq!(first.lines.len(), 2);
        let again = cache.get(dir.path(), "a.py", "python", &theme).unwrap();
        assert!(Arc::ptr_eq(&first.lines, &again.lines), "unchanged: cached");
        std::fs::write(dir.path().join("a.py"), "# x\ndef f():\n    pass\n").unwrap();
        let edited = cache.get(dir.path(), "a.py", "python", &theme).unwrap();
        assert_eq!(edited.lines.len(), 3);
        assert_ne!(edited.content_hash, first.content_hash);
        assert_eq!(cache.order, vec!["a.py".to_string()]);
    }
}
