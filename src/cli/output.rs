//! Output helpers: canonical JSON to stdout, lines of text, colour. Terminal-safe text
//! is [`crate::termtext`]'s, re-exported here so every subcommand finds its output
//! helpers in one place.

use std::io::Write;

use anyhow::Result;

pub use crate::termtext::sanitize;

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

/// Writes bytes to stdout as they are, ignoring a closed pipe.
pub fn print_bytes(bytes: &[u8]) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
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
