//! The outline panel (in the call tree's place): the shown file's definitions in source
//! order, indented by nesting, each with its kind, name, first line and caller count.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{count, cut_name, fit_row, follow, kind_marker, panel, position, safe};
use crate::tui::app::{App, Focus};

pub(super) fn draw(f: &mut Frame, app: &mut App, area: Rect) {
    let Some(o) = app.outline.as_ref() else {
        return;
    };
    let title = super::fit_line(
        Line::from(format!(" Outline of {} ", safe(&o.file))),
        (area.width as usize).saturating_sub(4),
    );
    let block = panel(app, title, Focus::Tree)
        .title_bottom(Line::from(" o: back to the tree · Enter: callers "))
        .title_bottom(Line::from(position(o.selected, o.rows.len())).right_aligned());
    let inner = block.inner(area);
    f.render_widget(block, area);
    let h = inner.height as usize;
    let Some(o) = app.outline.as_mut() else {
        return;
    };
    follow(o.selected, &mut o.offset, h);
    let (o, t) = (app.outline.as_ref().expect("outline"), &app.theme);
    if o.rows.is_empty() {
        f.render_widget(
            super::hint(app, "no definitions in this file (top-level code only)"),
            inner,
        );
        return;
    }
    let mut lines = Vec::with_capacity(h);
    for (i, r) in o.rows.iter().enumerate().skip(o.offset).take(h) {
        let indent = "  ".repeat(r.depth as usize);
        let callers = format!("  {}", count(r.callers, "caller", "callers"));
        let name = safe(&r.name);
        let fixed = indent.chars().count() + 3 + callers.chars().count();
        let fitted = fit_row(
            inner.width as usize,
            fixed,
            &name,
            "",
            &format!(":{}", r.line),
        );
        let mut line = Line::from(vec![
            Span::raw(indent),
            Span::styled(format!("{} ", kind_marker(r.kind)), t.get("ui.kind")),
            Span::styled(cut_name(&name, &fitted), t.get("ui.text")),
            Span::styled(fitted.place.replacen("  ", " ", 1), t.get("ui.path")),
            Span::styled(
                callers,
                if r.callers == 0 {
                    t.get("ui.text.dim")
                } else {
                    t.get("ui.tier")
                },
            ),
        ]);
        if i == o.selected {
            line = line.patch_style(t.get("ui.selection"));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}
