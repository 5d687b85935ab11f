//! Syntax highlighting of the one file the source panel shows, with tree-sitter-highlight
//! and the grammar crates' own `highlights.scm` (the language's spec lists which), styled
//! through the [`Theme`] by capture name. The indexer keeps no syntax trees, so the shown
//! file is parsed again here; no other file is ever parsed by the UI.
//!
//! Output lines are terminal-safe: tabs become spaces and every other control character
//! is shown as an escape (`\x1b`) in the `ui.error` style, never sent raw.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

use super::theme::Theme;
use crate::index::lang;

/// Files larger than this many bytes are shown without highlighting.
pub const MAX_HIGHLIGHT_BYTES: usize = 2 * 1024 * 1024;

/// Spaces a tab expands to.
const TAB: &str = "    ";

/// The highlight query of a language (registry name): its spec's
/// [`highlights`](lang::LanguageSpec::highlights) texts joined by line breaks; `None` when
/// it has none.
fn query_source(language: &str) -> Option<String> {
    let parts = lang::by_name(language)?.highlights;
    (!parts.is_empty()).then(|| parts.join("\n"))
}

type Configs = Mutex<HashMap<String, Option<&'static HighlightConfiguration>>>;

/// The configuration of a language, built once and leaked (one per language per process).
fn config(language: &str) -> Option<&'static HighlightConfiguration> {
    static CONFIGS: OnceLock<Configs> = OnceLock::new();
    let map = CONFIGS.get_or_init(Default::default);
    let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = map.get(language) {
        return *c;
    }
    let built = (|| {
        let grammar = lang::by_name(language)?.grammar?;
        let query = query_source(language)?;
        match HighlightConfiguration::new(grammar(), language, &query, "", "") {
            Ok(mut c) => {
                let names: Vec<String> = c
                    .query
                    .capture_names()
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                c.configure(&names);
                Some(&*Box::leak(Box::new(c)))
            }
            Err(e) => {
                tracing::warn!(language, "highlight query does not compile: {e}");
                None
            }
        }
    })();
    map.insert(language.to_string(), built);
    built
}

/// Highlights `text` (the whole file) as `language`; plain lines when the language has no
/// highlight query, the file is too large or highlighting fails. One [`Line`] per source
/// line, without line numbers.
pub fn highlight(language: &str, text: &str, theme: &Theme) -> Vec<Line<'static>> {
    let base = theme.get("ui.text");
    let plain = || text.lines().map(|l| safe_line(l, base, theme)).collect();
    if text.len() > MAX_HIGHLIGHT_BYTES || theme.monochrome {
        return plain();
    }
    let Some(cfg) = config(language) else {
        return plain();
    };
    let names = cfg.query.capture_names();
    let styles: Vec<Style> = names
        .iter()
        .map(|n| base.patch(theme.lookup(n).unwrap_or_default()))
        .collect();
    let mut hl = Highlighter::new();
    let Ok(events) = hl.highlight(cfg, text.as_bytes(), None, None, |_| None) else {
        return plain();
    };
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut cur: Vec<Span<'static>> = Vec::new();
    let mut stack: Vec<Style> = Vec::new();
    for ev in events {
        match ev {
            Ok(HighlightEvent::HighlightStart(h)) => {
                stack.push(styles.get(h.0).copied().unwrap_or(base))
            }
            Ok(HighlightEvent::HighlightEnd) => {
                stack.pop();
            }
            Ok(HighlightEvent::Source { start, end }) => {
                let style = stack.last().copied().unwrap_or(base);
                let Some(chunk) = text.get(start..end) else {
                    continue;
                };
                let mut parts = chunk.split('\n').peekable();
                while let Some(part) = parts.next() {
                    let part = part.strip_suffix('\r').unwrap_or(part);
                    if !part.is_empty() {
                        push_safe(&mut cur, part, style, theme);
                    }
                    if parts.peek().is_some() {
                        lines.push(Line::from(std::mem::take(&mut cur)));
                    }
                }
            }
            Err(_) => return plain(),
        }
    }
    if !cur.is_empty() {
        lines.push(Line::from(cur));
    }
    lines
}

/// One plain line, made terminal-safe.
fn safe_line(l: &str, style: Style, theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    push_safe(&mut spans, l.strip_suffix('\r').unwrap_or(l), style, theme);
    Line::from(spans)
}

/// Appends `text` as spans: tabs expanded, control characters shown as escapes.
pub fn push_safe(out: &mut Vec<Span<'static>>, text: &str, style: Style, theme: &Theme) {
    let mut run = String::new();
    for c in text.chars() {
        if c == '\t' {
            run.push_str(TAB);
        } else if crate::termtext::is_unsafe(c) {
            if !run.is_empty() {
                out.push(Span::styled(std::mem::take(&mut run), style));
            }
            let mut shown = String::new();
            crate::termtext::push_escaped(&mut shown, c);
            out.push(Span::styled(shown, theme.get("ui.error")));
        } else {
            run.push(c);
        }
    }
    if !run.is_empty() {
        out.push(Span::styled(run, style));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn every_parsed_language_has_a_compiling_highlight_query() {
        for l in lang::LANGUAGES.iter().filter(|l| l.grammar.is_some()) {
            assert!(config(l.name).is_some(), "{}", l.name);
        }
    }

    #[test]
    fn python_keywords_get_the_keyword_style_and_lines_are_kept() {
        let t = Theme::load("dark", None).unwrap();
        let lines = highlight("python", "def f(x):\n    return x\n", &t);
        assert_eq!(lines.len(), 2);
        assert_eq!(text_of(&lines[0]), "def f(x):");
        let def = lines[0].spans.iter().find(|s| s.content == "def").unwrap();
        assert_eq!(def.style.fg, t.get("keyword").fg);
    }

    #[test]
    fn escapes_are_shown_not_sent() {
        let t = Theme::load("dark", None).unwrap();
        let lines = highlight("python", "x = '\x1b[2J\u{202e}'\t# \x07\u{9b}\n", &t);
        let s = text_of(&lines[0]);
        assert!(!s.chars().any(crate::termtext::is_unsafe), "{s:?}");
        assert!(s.contains("\\x1b[2J") && s.contains("\\x07"), "{s}");
        assert!(s.contains("\\u{202e}") && s.contains("\\x9b"), "{s}");
    }
}
