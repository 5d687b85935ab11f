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
    /// The cursor: (1-based line, 1-based char column), set on the focus line's first
    /// word when the shown symbol changes; go to definition reads the word under it and
    /// `e` opens the editor at its line.
    pub cursor: Option<(u32, u32)>,
}

impl SourceView {
    /// The line `e` opens the editor at: the cursor's, else [`focus_line`](Self::focus_line).
    pub fn editor_line(&self) -> u32 {
        self.cursor.map_or_else(|| self.focus_line(), |c| c.0)
    }

    /// The text of 1-based line `line` (empty past the end).
    pub fn line_text(&self, line: u32) -> String {
        (line as usize)
            .checked_sub(1)
            .and_then(|i| self.lines.get(i))
            .map_or(String::new(), |l| {
                l.spans.iter().map(|s| s.content.as_ref()).collect()
            })
    }

    /// The identifier at (or, on a non-identifier character, right after) 1-based char
    /// column `col` of line `line`, as (its 1-based start column, its text); `None`
    /// when the rest of the line has none.
    pub fn word_at(&self, line: u32, col: u32) -> Option<(u32, String)> {
        let chars: Vec<char> = self.line_text(line).chars().collect();
        let mut i = (col as usize).saturating_sub(1).min(chars.len());
        while i > 0 && i < chars.len() && is_ident(chars[i]) && is_ident(chars[i - 1]) {
            i -= 1;
        }
        while i < chars.len() && !is_ident(chars[i]) {
            i += 1;
        }
        let end = (i..chars.len())
            .find(|&j| !is_ident(chars[j]))
            .unwrap_or(chars.len());
        (i < end).then(|| (i as u32 + 1, chars[i..end].iter().collect()))
    }

    /// Puts the cursor on the first word of the focus line.
    pub fn cursor_home(&mut self) {
        let line = self.focus_line();
        let col = self.word_at(line, 1).map_or(1, |w| w.0);
        self.cursor = Some((line, col));
    }

    /// Moves the cursor `d` lines (clamped to the file), onto the word at its column or
    /// the next one, and scrolls so it stays inside a `height`-line view.
    pub fn cursor_lines(&mut self, d: isize, height: usize) {
        let (line, col) = self.cursor.unwrap_or((self.focus_line(), 1));
        let last = self.lines.len().max(1) as isize;
        let line = (line as isize).saturating_add(d).clamp(1, last) as u32;
        let col = self.word_at(line, col).map_or(col, |w| w.0);
        self.cursor = Some((line, col));
        let at = line as usize - 1;
        if at < self.scroll {
            self.scroll = at;
        } else if at >= self.scroll + height.max(1) {
            self.scroll = at + 1 - height.max(1);
        }
        self.clamp(height);
    }

    /// Moves the cursor to the next (`forward`) or previous word of its line; it stays
    /// where it is at either end.
    pub fn cursor_word(&mut self, forward: bool) {
        let Some((line, col)) = self.cursor else {
            self.cursor_home();
            return;
        };
        let Some((start, word)) = self.word_at(line, col) else {
            return;
        };
        let next = if forward {
            self.word_at(line, start + word.chars().count() as u32)
        } else {
            (1..start)
                .rev()
                .filter_map(|c| self.word_at(line, c))
                .find(|w| w.0 < start)
        };
        if let Some((c, _)) = next {
            self.cursor = Some((line, c));
        }
    }

    /// The line `e` opens the editor at without a cursor: the first call site, else the
    /// definition's start.
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

/// Whether `c` can be part of an identifier (letters, digits, `_`, `$`).
fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
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

#[cfg(test)]
mod cursor_tests {
    use super::*;

    fn view(lines: &[&str]) -> SourceView {
        SourceView {
            lines: Arc::new(lines.iter().map(|l| Line::from(l.to_string())).collect()),
            range: Some((1, lines.len() as u32)),
            ..SourceView::default()
        }
    }

    #[test]
    fn words_under_and_after_the_cursor() {
        let v = view(&["    return self.parse(text)"]);
        assert_eq!(v.word_at(1, 1), Some((5, "return".into())));
        assert_eq!(v.word_at(1, 8), Some((5, "return".into())));
        assert_eq!(v.word_at(1, 16), Some((17, "parse".into())));
        assert_eq!(v.word_at(1, 21), Some((17, "parse".into())));
        assert_eq!(v.word_at(1, 28), None);
    }

    #[test]
    fn the_cursor_moves_by_word_and_line_and_keeps_on_screen() {
        let mut v = view(&["def f(x):", "    return g(x)", "", "y = f(1)"]);
        v.cursor_home();
        assert_eq!(v.cursor, Some((1, 1)));
        v.cursor_word(true);
        assert_eq!(v.cursor, Some((1, 5)));
        v.cursor_word(true);
        assert_eq!(v.cursor, Some((1, 7)));
        v.cursor_word(true);
        assert_eq!(v.cursor, Some((1, 7)), "stays at the last word");
        v.cursor_word(false);
        assert_eq!(v.cursor, Some((1, 5)));
        v.cursor_lines(1, 2);
        assert_eq!(v.cursor, Some((2, 5)));
        v.cursor_lines(2, 2);
        assert_eq!(v.cursor, Some((4, 5)));
        assert_eq!(v.scroll, 2, "line 4 is on a 2-line screen");
        v.cursor_lines(9, 2);
        assert_eq!(v.cursor, Some((4, 5)), "clamped to the last line");
        assert_eq!(v.editor_line(), 4);
    }
}
