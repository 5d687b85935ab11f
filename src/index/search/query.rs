//! The search query syntax: plain words, `"quoted phrases"`, and `path:`, `lang:`,
//! `kind:` filters (a filter's value may be quoted too). Filters restrict, words and
//! phrases rank.

/// English function words that carry no meaning for lexical ranking. A short list (the
/// common core of the SMART and NLTK lists), lowercase; measured on the searchbench
/// (`docs/accuracy.md#search-quality`), where natural-language queries such as "Return the value of
/// the header" matched every chunk with a variable `a` or a comment with "the".
pub const STOP_WORDS: &[&str] = &[
    "a", "all", "also", "an", "and", "any", "are", "as", "at", "be", "but", "by", "can", "do",
    "does", "each", "for", "from", "given", "had", "has", "have", "if", "in", "into", "is", "it",
    "its", "may", "no", "not", "of", "on", "one", "only", "or", "other", "should", "so", "such",
    "than", "that", "the", "their", "then", "there", "these", "this", "those", "to", "use", "used",
    "was", "were", "when", "whether", "which", "will", "with", "would",
];

/// `true` when `word`, lowercased and without surrounding punctuation, is in
/// [`STOP_WORDS`].
pub fn is_stop_word(word: &str) -> bool {
    let w = word
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    STOP_WORDS.binary_search(&w.as_str()).is_ok()
}

/// A parsed query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// Plain words, in order, as written.
    pub words: Vec<String>,
    /// Quoted phrases, as written without the quotes.
    pub phrases: Vec<String>,
    /// `path:` values: the hit's path must contain each one (a substring, `/` separated).
    pub paths: Vec<String>,
    /// `lang:` values: the hit's language must be one of them (lowercase registry names).
    pub langs: Vec<String>,
    /// `kind:` values: the hit's kind must be one of them (`function`, `window`, ...).
    pub kinds: Vec<String>,
}

impl Query {
    /// Parses `input`. Never fails: an unclosed quote runs to the end; an empty filter
    /// value is ignored.
    pub fn parse(input: &str) -> Query {
        let mut q = Query::default();
        let mut rest = input.trim();
        while !rest.is_empty() {
            // `path:"a b"`: a filter whose value is quoted.
            if let Some((slot, n)) =
                filter_prefix(rest).filter(|&(_, n)| rest[n..].starts_with('"'))
            {
                let (v, _, after) = next_item(&rest[n..]);
                rest = after.trim_start();
                q.push_filter(slot, v);
                continue;
            }
            let (raw, quoted, after) = next_item(rest);
            rest = after.trim_start();
            if quoted {
                if !raw.trim().is_empty() {
                    q.phrases.push(raw.trim().to_string());
                }
                continue;
            }
            match filter_prefix(raw) {
                Some((slot, n)) => q.push_filter(slot, &raw[n..]),
                None => q.words.push(raw.to_string()),
            }
        }
        q
    }

    fn push_filter(&mut self, slot: usize, value: &str) {
        if value.is_empty() {
            return;
        }
        match slot {
            0 => self.paths.push(value.to_string()),
            1 => self.langs.push(value.to_lowercase()),
            _ => self.kinds.push(value.to_lowercase()),
        }
    }

    /// `true` when nothing ranks (no words and no phrases).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.phrases.is_empty()
    }

    /// The ranking text: words and phrases joined by spaces (what embedders see).
    pub fn text(&self) -> String {
        let mut parts: Vec<&str> = self.words.iter().map(String::as_str).collect();
        parts.extend(self.phrases.iter().map(String::as_str));
        parts.join(" ")
    }

    /// The words that rank by their letters (BM25, the offline embedder): [`Query::words`]
    /// less English function words ([`STOP_WORDS`]), or all of them when every word is
    /// one (so `the` alone still searches). A real language model gets the whole text.
    pub fn ranking_words(&self) -> Vec<&str> {
        let kept: Vec<&str> = self
            .words
            .iter()
            .map(String::as_str)
            .filter(|w| !is_stop_word(w))
            .collect();
        if kept.is_empty() {
            self.words.iter().map(String::as_str).collect()
        } else {
            kept
        }
    }

    /// `true` when a hit with these attributes passes every filter.
    pub fn accepts(&self, path: &str, lang: &str, kind: &str) -> bool {
        self.paths.iter().all(|p| path.contains(p.as_str()))
            && (self.langs.is_empty() || self.langs.iter().any(|l| l == lang))
            && (self.kinds.is_empty() || self.kinds.iter().any(|k| k == kind))
    }
}

/// The filter slot (0 path, 1 lang, 2 kind) and prefix length when `s` starts with one.
fn filter_prefix(s: &str) -> Option<(usize, usize)> {
    ["path:", "lang:", "kind:"]
        .iter()
        .position(|p| s.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p)))
        .map(|slot| (slot, 5))
}

/// Splits off the next item: a quoted string (without quotes) or a run up to whitespace.
/// Returns (item, was quoted, rest).
fn next_item(s: &str) -> (&str, bool, &str) {
    if let Some(body) = s.strip_prefix('"') {
        return match body.find('"') {
            Some(end) => (&body[..end], true, &body[end + 1..]),
            None => (body, true, ""),
        };
    }
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (&s[..end], false, &s[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_phrases_filters() {
        let q = Query::parse(r#"parse "http request" path:src/net lang:Rust kind:function x"#);
        assert_eq!(q.words, ["parse", "x"]);
        assert_eq!(q.phrases, ["http request"]);
        assert_eq!(q.paths, ["src/net"]);
        assert_eq!(q.langs, ["rust"]);
        assert_eq!(q.kinds, ["function"]);
        assert!(q.accepts("src/net/http.rs", "rust", "function"));
        assert!(!q.accepts("src/cli.rs", "rust", "function"));
        assert!(!q.accepts("src/net/a.py", "python", "function"));
    }

    #[test]
    fn stop_words_leave_the_meaningful_words() {
        assert!(
            STOP_WORDS.windows(2).all(|w| w[0] < w[1]),
            "sorted for binary search"
        );
        let q = Query::parse("Return the value of a Header, if any. path:src");
        assert_eq!(q.ranking_words(), ["Return", "value", "Header,"]);
        assert_eq!(Query::parse("the of").ranking_words(), ["the", "of"]);
        assert!(is_stop_word("The") && is_stop_word("(if") && !is_stop_word("theme"));
    }

    #[test]
    fn quoted_filter_value_and_unclosed_quote() {
        let q = Query::parse(r#"path:"my dir" "open end"#);
        assert_eq!(q.paths, ["my dir"]);
        assert_eq!(q.phrases, ["open end"]);
        assert!(Query::parse("path: lang:").is_empty());
    }
}
