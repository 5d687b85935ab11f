//! Overlays: the `?` help (generated from the keymap table, so it lists every key that
//! works) and the export path prompt with its overwrite confirmation.

use ratatui::layout::Position;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::{centered, safe};
use crate::tui::app::App;
use crate::tui::keymap::{Scope, BINDINGS};

pub(super) fn draw_help(f: &mut Frame, app: &App, scroll: usize) {
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
        "? N unresolved: calls no edge was made for: the tree is a lower bound",
        "history i/n: the root's place among the roots visited ([ and ] step)",
        "mouse: click selects, wheel scrolls",
    ] {
        lines.push(Line::styled(l, t.get("ui.text.dim")));
    }
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
                    .title(" Keys (Esc closes, j/k scroll) ")
                    .border_style(t.get("ui.border.focus")),
            ),
        area,
    );
}

pub(super) fn draw_prompt(f: &mut Frame, app: &App, path: &str, confirm: Option<()>) {
    let t = &app.theme;
    let area = centered(f.area(), 70, 5);
    let (title, body, hint) = match confirm {
        None => (
            " Export shown subgraph as JSON ",
            format!("> {}", safe(path)),
            "Enter writes · Esc cancels · Ctrl-u clears",
        ),
        Some(()) => (
            " File exists ",
            format!("overwrite {}? ", safe(path)),
            "y overwrites · n edits the path · Esc edits the path",
        ),
    };
    f.render_widget(Clear, area);
    let block = Block::bordered()
        .title(title)
        .border_style(t.get("ui.border.focus"));
    let inner = block.inner(area);
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
    let x = inner.x + body.chars().count() as u16;
    f.set_cursor_position(Position::new(
        x.min(inner.right().saturating_sub(1)),
        inner.y,
    ));
}
