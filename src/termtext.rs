//! Terminal-safe text, shared by both front ends (the CLI's text output and the TUI's
//! panels): text taken from source files, paths or error messages is shown with its
//! control characters escaped, never sent to the terminal as they are. Its own top-level
//! module because `cli` and `tui` both need it and neither may depend on the other for
//! it; the engine (`index`) writes no terminal text and does not use it.

use std::borrow::Cow;

/// Replaces control characters (C0, DEL, C1) and the Unicode bidirectional controls with
/// visible escapes (`\x1b`, `\n`, `\u{202e}`), so text taken from source files or paths
/// can never drive the terminal or reorder what it shows. Borrows `s` when it has none.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `c` must not reach a terminal as it is: a control character (C0, DEL, C1,
/// which start escape sequences, `U+009B` being CSI itself), or a bidirectional
/// formatting character (`U+061C`, `U+200E`, `U+200F`, `U+202A`-`U+202E`,
/// `U+2066`-`U+2069`: the embeddings, overrides and isolates of Unicode UAX #9, which
/// make a terminal show text in another order than it is: "Trojan Source",
/// CVE-2021-42574).
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// Appends the visible escape of `c` (one of [`is_unsafe`]'s characters): `\n`, `\t`,
/// `\r`, `\xHH` for other controls, `\u{HHHH}` for bidirectional controls.
pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_shown_not_sent() {
        assert_eq!(sanitize("a\x1b[2Jb\x07"), "a\\x1b[2Jb\\x07");
        assert_eq!(sanitize("new\nline"), "new\\nline");
        assert_eq!(sanitize("plain ünï"), "plain ünï");
        assert_eq!(sanitize("csi\u{9b}2J"), "csi\\x9b2J");
        assert_eq!(
            sanitize("if admin \u{202e}\u{2066} x \u{2069}\u{200f}"),
            "if admin \\u{202e}\\u{2066} x \\u{2069}\\u{200f}"
        );
        assert!(
            matches!(sanitize("a\u{200d}b"), Cow::Borrowed(_)),
            "a joiner is not bidi"
        );
    }
}
