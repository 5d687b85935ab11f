//! Output helpers: canonical JSON to stdout and terminal-safe text.

use std::borrow::Cow;
use std::io::Write;

use anyhow::Result;

/// Replaces control characters (C0, DEL, C1) with visible escapes (`\x1b`, `\n`), so text
/// taken from source files or paths can never drive the terminal.
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

/// Whether text output is coloured: `always`, `never`, or for `auto` when stdout is a
/// terminal and `NO_COLOR` is unset or empty (no-color.org).
pub fn use_color(choice: super::ColorChoice) -> bool {
    use std::io::IsTerminal;
    match choice {
        super::ColorChoice::Always => true,
        super::ColorChoice::Never => false,
        super::ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

/// `text` in an ANSI SGR colour (`code` such as `"36"` for cyan, `"2"` for dim) when
/// `on`; the text must already be sanitized.
pub fn paint(text: &str, code: &str, on: bool) -> String {
    if on && !text.is_empty() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Writes a JSON value and a newline to stdout. serde_json escapes control characters,
/// so JSON output is terminal-safe too. A closed pipe (`| head`) is not an error.
pub fn print_json<T: serde::Serialize>(v: &T) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let r = serde_json::to_writer(&mut out, v)
        .map_err(std::io::Error::from)
        .and_then(|_| out.write_all(b"\n"))
        .and_then(|_| out.flush());
    match r {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// Writes lines of text to stdout, ignoring a closed pipe.
pub fn print_lines(lines: &[String]) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for l in lines {
        if let Err(e) = writeln!(out, "{l}") {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            return Err(e.into());
        }
    }
    match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
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
    }
}
