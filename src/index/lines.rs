//! Line starts of a file's text: 1-based line numbers and the text of one line, shared by
//! extraction (signatures) and chunking (blank-window checks). Its own module so that
//! neither of the two has to import the other for it.

/// Byte offsets of line starts, for 1-based lines and char columns.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// Number of lines; a final line without a newline counts, an empty text has 0.
    pub(crate) fn line_count(&self, text: &str) -> u32 {
        let n = self.starts.len() - usize::from(text.is_empty() || text.ends_with('\n'));
        n as u32
    }

    /// The text of 1-based line `line`, without its line ending.
    pub(crate) fn line<'a>(&self, text: &'a str, line: u32) -> &'a str {
        let i = (line as usize).saturating_sub(1);
        let Some(&s) = self.starts.get(i) else {
            return "";
        };
        let e = self.starts.get(i + 1).map_or(text.len(), |&e| e);
        text[s..e].trim_end_matches(['\n', '\r'])
    }
}
