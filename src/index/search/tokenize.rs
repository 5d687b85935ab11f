//! The code-aware tokenizer shared by the text index and the offline embedder.
//!
//! An identifier (a run of letters, digits and `_`, with `-` kept between two
//! alphanumerics for kebab-case) is split into parts at `_` and `-`, at camelCase and
//! PascalCase boundaries (`HTTPServer` → `http`, `server`) and between letters and
//! digits (`utf8` → `utf`, `8`). Every part is lowercased. The whole identifier,
//! lowercased, is kept too, at the position of its first part, so `parseHttpRequest`,
//! `parse http request` and `parse_http_request` all meet on the parts while an exact
//! identifier still matches its own rarer token. Parts get consecutive positions so
//! quoted phrases match across identifier shapes.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// One token: lowercased text, position (0-based, in tokens), byte range in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeToken {
    /// Lowercased text.
    pub text: String,
    /// Token position; the whole identifier shares the position of its first part.
    pub position: usize,
    /// Byte offset of the token's start in the input.
    pub from: usize,
    /// Byte offset one past the token's end.
    pub to: usize,
    /// `true` for the whole-identifier token of a multi-part identifier.
    pub whole: bool,
}

/// Identifiers longer than this many bytes are not split nor kept (minified noise).
const MAX_IDENT_BYTES: usize = 120;

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Tokenizes `text` as described in the module docs, in order of position.
pub fn tokenize(text: &str) -> Vec<CodeToken> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut i = 0usize;
    while i < text.len() {
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        if !is_ident_char(c) {
            i += c.len_utf8();
            continue;
        }
        // Extend the identifier; a '-' joins two alphanumeric runs (kebab-case).
        let start = i;
        let mut end = i;
        let mut it = text[i..].char_indices().peekable();
        while let Some((off, ch)) = it.next() {
            let at = i + off;
            if is_ident_char(ch) {
                end = at + ch.len_utf8();
            } else if ch == '-'
                && end == at
                && at > start
                && text[start..at]
                    .chars()
                    .last()
                    .is_some_and(char::is_alphanumeric)
                && it.peek().is_some_and(|(_, n)| n.is_alphabetic())
            {
                continue;
            } else {
                break;
            }
        }
        i = end.max(start + c.len_utf8());
        let ident = &text[start..end];
        if ident.len() > MAX_IDENT_BYTES {
            continue;
        }
        let parts = split_identifier(ident);
        if parts.is_empty() {
            continue;
        }
        if parts.len() > 1 || parts[0] != (0, ident.len()) {
            out.push(CodeToken {
                text: ident.to_lowercase(),
                position: pos,
                from: start,
                to: end,
                whole: true,
            });
        }
        for (a, b) in parts {
            out.push(CodeToken {
                text: text[start + a..start + b].to_lowercase(),
                position: pos,
                from: start + a,
                to: start + b,
                whole: false,
            });
            pos += 1;
        }
    }
    out
}

/// Splits one identifier into part byte ranges (relative to `ident`): at `_` and `-`,
/// lower→Upper, the last capital of an acronym before a lowercase letter, and at
/// letter↔digit changes.
pub fn split_identifier(ident: &str) -> Vec<(usize, usize)> {
    #[derive(PartialEq, Clone, Copy)]
    enum C {
        Lower,
        Upper,
        Digit,
        Other,
    }
    let class = |c: char| {
        if c.is_numeric() {
            C::Digit
        } else if c.is_uppercase() {
            C::Upper
        } else if c.is_alphabetic() {
            C::Lower
        } else {
            C::Other
        }
    };
    let chars: Vec<(usize, char)> = ident.char_indices().collect();
    let mut parts = Vec::new();
    let mut start: Option<usize> = None;
    for k in 0..chars.len() {
        let (off, ch) = chars[k];
        let cl = class(ch);
        if ch == '_' || ch == '-' {
            if let Some(s) = start.take() {
                parts.push((s, off));
            }
            continue;
        }
        if let Some(s) = start {
            let prev = class(chars[k - 1].1);
            let next = chars.get(k + 1).map(|&(_, n)| class(n));
            let boundary = (prev == C::Lower && cl == C::Upper)
                || (prev == C::Upper && cl == C::Upper && next == Some(C::Lower))
                || ((prev == C::Digit) != (cl == C::Digit) && prev != C::Other);
            if boundary {
                parts.push((s, off));
                start = Some(off);
            }
        } else {
            start = Some(off);
        }
    }
    if let Some(s) = start {
        parts.push((s, ident.len()));
    }
    parts
}

/// The code tokenizer as a tantivy [`Tokenizer`]; registered under [`CODE_TOKENIZER`].
#[derive(Clone, Default)]
pub struct CodeTokenizer {
    tokens: Vec<Token>,
}

/// Name under which [`CodeTokenizer`] is registered in the tantivy index.
pub const CODE_TOKENIZER: &str = "code";

/// Token stream over the precomputed tokens of one text.
pub struct CodeTokenStream<'a> {
    tokens: &'a mut Vec<Token>,
    next: usize,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        self.tokens.clear();
        for t in tokenize(text) {
            self.tokens.push(Token {
                offset_from: t.from,
                offset_to: t.to,
                position: t.position,
                text: t.text,
                position_length: 1,
            });
        }
        CodeTokenStream {
            tokens: &mut self.tokens,
            next: 0,
        }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }
    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn camel_pascal_snake_kebab_digits() {
        assert_eq!(
            texts("parseHttpRequest"),
            ["parsehttprequest", "parse", "http", "request"]
        );
        assert_eq!(texts("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(
            texts("parse_http_request"),
            ["parse_http_request", "parse", "http", "request"]
        );
        assert_eq!(texts("max-age"), ["max-age", "max", "age"]);
        assert_eq!(texts("utf8Decode"), ["utf8decode", "utf", "8", "decode"]);
        assert_eq!(texts("sha256"), ["sha256", "sha", "256"]);
        assert_eq!(texts("__init__"), ["__init__", "init"]);
        assert_eq!(
            texts("XMLHttpRequest2"),
            ["xmlhttprequest2", "xml", "http", "request", "2"]
        );
        assert_eq!(texts("word"), ["word"]);
    }

    #[test]
    fn punctuation_and_subtraction() {
        assert_eq!(
            texts("self.fooBar(x)"),
            ["self", "foobar", "foo", "bar", "x"]
        );
        // `a - 1` and `a-1` are not kebab identifiers: '-' joins letters only.
        assert_eq!(texts("a-1"), ["a", "1"]);
        assert_eq!(
            texts("Ünïcode_Straße"),
            ["ünïcode_straße", "ünïcode", "straße"]
        );
    }

    #[test]
    fn positions_let_phrases_match_across_shapes() {
        let t = tokenize("fn parseHttpRequest() {}");
        let parts: Vec<(usize, &str)> = t
            .iter()
            .filter(|t| !t.whole)
            .map(|t| (t.position, t.text.as_str()))
            .collect();
        assert_eq!(
            parts,
            [(0, "fn"), (1, "parse"), (2, "http"), (3, "request")]
        );
        let whole = t.iter().find(|t| t.whole).expect("whole token");
        assert_eq!(
            (
                whole.position,
                &text_at("fn parseHttpRequest() {}", whole)[..]
            ),
            (1, "parseHttpRequest")
        );
    }

    fn text_at(s: &str, t: &CodeToken) -> String {
        s[t.from..t.to].to_string()
    }

    #[test]
    fn long_identifiers_are_dropped() {
        let long = "a".repeat(200);
        assert!(tokenize(&long).is_empty());
    }
}
