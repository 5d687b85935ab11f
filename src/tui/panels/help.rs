//! Overlays: the `?` help (generated from the keymap table, so it lists every key that
//! works) and the export path prompt with its overwrite confirmation.

use ratatui::layout::Position;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::{centered, safe};
use crate::tui::app::{left_out, skip_reason, App, Overlay};
use crate::tui::keymap::{Scope, BINDINGS};

pub(super) fn draw_help(f: &mut Frame, app: &mut App, scroll: usize) {
    let t = &app.theme;
    let mut lines = vec![
        Line::styled(
            format!("repository: {}", safe(&app.root.display().to_string())),
            t.get("ui.text"),
        ),
        Line::styled(
            format!(
                "index cache: {}",
                crate::config::cache_dir(&app.root)
                    .map_or("none".into(), |p| safe(&p.display().to_string())
                        .into_owned())
            ),
            t.get("ui.text.dim"),
        ),
        Line::raw(""),
    ];
    for b in BINDINGS {
        let scope = match b.scope {
            Scope::Global => "",
            Scope::Panels => "",
            Scope::Input => " (in inputs)",
            Scope::Tree => " (call tree)",
            Scope::Source => "",
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:>16}  ", b.label), t.get("ui.help.key")),
            Span::styled(format!("{}{scope}", b.help), t.get("ui.text")),
        ]));
    }
    lines.push(Line::raw(""));
    for l in [
        "tree: ▸ closed  ▾ open  · no more  ↻ cycle (not expanded again)",
        "tiers: [local] [import] [qualified] most to least certain;",
        "       [unique_name] a guess (dimmed); [ref …] used as a value, not called",
        "? N unresolved: calls no edge was made for: the tree is a lower bound;",
        "       Enter lists them (× call [reason] site, ? candidate: Enter re-roots)",
        "· N hidden by a filter: t or u shows them",
        "history i/n: the root's place among the roots visited ([ and ] step)",
        "mouse: click selects, wheel scrolls",
    ] {
        lines.push(Line::styled(l, t.get("ui.text.dim")));
    }
    let scroll = draw_scrolled(
        f,
        app,
        lines,
        " Keys (Esc closes, j/k PgDn G scroll) ",
        scroll,
    );
    app.overlay = Overlay::Help(scroll);
}

/// The files left out of the index, one per line with its reason.
pub(super) fn draw_skipped(f: &mut Frame, app: &mut App, scroll: usize) {
    let Some(snap) = app.snapshot.clone() else {
        return;
    };
    let t = &app.theme;
    let list = left_out(&snap.index);
    let mut lines = vec![
        Line::styled(
            format!(
                "{} left out of the index (`index --json` counts them too):",
                super::count(list.len(), "file", "files")
            ),
            t.get("ui.text"),
        ),
        Line::raw(""),
    ];
    for (path, reason) in list {
        lines.push(Line::from(vec![
            Span::styled(safe(path).into_owned(), t.get("ui.path")),
            Span::styled(format!("  {}", skip_reason(*reason)), t.get("ui.text.dim")),
        ]));
    }
    let scroll = draw_scrolled(
        f,
        app,
        lines,
        " Skipped files (Esc closes, j/k scroll) ",
        scroll,
    );
    app.overlay = Overlay::Skipped(scroll);
}

/// Draws `lines` in a centred bordered box as wide as its widest line (at least 76
/// columns, at most the screen), scrolled by `scroll` lines clamped to the text; returns
/// the clamped scroll and leaves the page height in the app's areas (PgUp/PgDn step).
fn draw_scrolled(
    f: &mut Frame,
    app: &mut App,
    lines: Vec<Line<'static>>,
    title: &str,
    scroll: usize,
) -> usize {
    let t = &app.theme;
    // As wide as the widest line (the border adds 2), so nothing is cut where it fits.
    let width = lines.iter().map(Line::width).max().unwrap_or(0) as u16 + 2;
    let area = centered(f.area(), width.max(76), f.area().height.saturating_sub(2));
    let inner_h = area.height.saturating_sub(2) as usize;
    let scroll = scroll.min(lines.len().saturating_sub(inner_h));
    f.render_widget(Clear, area);
    f.render_widget(
        Paragraph::new(lines)
            .scroll((scroll as u16, 0))
            .style(t.get("ui.help"))
            .block(
                Block::bordered()
                    .title(title.to_string())
                    .border_style(t.get("ui.border.focus")),
            ),
        area,
    );
    app.areas.help_page = inner_h;
    scroll
}

pub(super) fn draw_prompt(f: &mut Frame, app: &App, path: &str, confirm: Option<()>) {
    let t = &app.theme;
    let area = centered(f.area(), 70, 5);
    let inside = app.inside_repo(std::path::Path::new(path));
    let block = Block::bordered().border_style(t.get("ui.border.focus"));
    let inner = block.inner(area);
    // One column stays free for the cursor after the path.
    let room = usize::from(inner.width).saturating_sub(1);
    let (title, body, hint) = match confirm {
        None if inside => (
            " Export shown subgraph as JSON ",
            tail_fit("> ", &safe(path), "", room),
            "inside the repository: it would be indexed · Enter writes · Esc cancels",
        ),
        None => (
            " Export shown subgraph as JSON ",
            tail_fit("> ", &safe(path), "", room),
            "outside the repository: not indexed · Enter writes · Esc cancels",
        ),
        Some(()) => (
            " File exists ",
            tail_fit("overwrite ", &safe(path), "? ", room),
            "y overwrites · n edits the path · Esc edits the path",
        ),
    };
    f.render_widget(Clear, area);
    let block = block.title(title);
    f.render_widget(
        Paragraph::new(vec![
            Line::styled(body.clone(), t.get("ui.text")),
            Line::raw(""),
            Line::styled(hint, t.get("ui.text.dim")),
        ])
        .style(t.get("ui.help"))
        .block(block),
        area,
    );
    let x = inner.x + Span::raw(body.as_str()).width() as u16;
    f.set_cursor_position(Position::new(
        x.min(inner.right().saturating_sub(1)),
        inner.y,
    ));
}

/// `prefix`, `text` and `suffix` in at most `room` columns: when they do not fit, the start
/// of `text` gives way to one `…`, so the end of a long path, where the prompt's cursor
/// types, stays on screen.
fn tail_fit(prefix: &str, text: &str, suffix: &str, room: usize) -> String {
    let width = |s: &str| Span::raw(s).width();
    let whole = format!("{prefix}{text}{suffix}");
    if width(&whole) <= room {
        return whole;
    }
    let mut budget = room.saturating_sub(width(prefix) + width(suffix) + 1);
    let mut kept: Vec<char> = Vec::new();
    for ch in text.chars().rev() {
        let w = width(ch.encode_utf8(&mut [0; 4]));
        if w > budget {
            break;
        }
        budget -= w;
        kept.push(ch);
    }
    let tail: String = kept.into_iter().rev().collect();
    format!("{prefix}…{tail}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::tail_fit;

    #[test]
    fn a_long_prompt_path_keeps_its_end() {
        assert_eq!(tail_fit("> ", "/tmp/a.json", "", 40), "> /tmp/a.json");
        let cut = tail_fit("> ", "/home/user/exports/repository-symbol.json", "", 20);
        assert_eq!(cut, "> …itory-symbol.json");
        assert_eq!(cut.chars().count(), 20);
        assert_eq!(
            tail_fit("overwrite ", "/a/bb/ccc.json", "? ", 20),
            "overwrite …cc.json? "
        );
    }
}
