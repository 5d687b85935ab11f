//! Terminal-safe text, shared by both front ends (the CLI's text output and the TUI's
//! panels): text taken from source files, paths or error messages is shown with its
//! control characters escaped, never sent to the terminal as they are. Its own top-level
//! module because `cli` and `tui` both need it and neither may depend on the other for
//! it; the engine (`index`) writes no terminal text and does not use it.

use std::borrow::Cow;

/// Replaces control characters (C0, DEL, C1) with visible escapes (`\x1b`, `\n`), so text
/// taken from source files or paths can never drive the terminal. Borrows `s` when it has
/// none.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_shown_not_sent() {
        assert_eq!(sanitize("a\x1b[2Jb\x07"), "a\\x1b[2Jb\\x07");
        assert_eq!(sanitize("new\nline"), "new\\nline");
        assert_eq!(sanitize("plain ünï"), "plain ünï");
    }
}
