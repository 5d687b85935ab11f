//! The source panel: the highlighted file with line numbers, the definition's lines
//! marked in the gutter and background, call sites marked and underlined, and the
//! cursor's word in the selection colours while the panel has focus.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{fit_line, hint, panel, safe};
use crate::tui::app::{App, Focus};

pub(super) fn draw(f: &mut Frame, app: &mut App, area: Rect) {
    // After a resize the focus line (first call site, else the definition's start) may
    // have left the screen (a 45-line panel shrunk to 14): bring it back.
    let h = area.height.saturating_sub(2) as usize;
    let src = &mut app.source;
    if src.drawn_height != h {
        let focus = src.focus_line() as usize;
        if src.drawn_height != 0 && (focus <= src.scroll || focus > src.scroll + h) {
            src.center_on(focus as u32, h);
        }
        src.drawn_height = h;
    }
    let s = &app.source;
    // The "changed on disk" mark on the right; the title gives way to it.
    let stale = if s.changed_on_disk && !s.path.is_empty() {
        " changed since indexed, `r` re-reads "
    } else {
        ""
    };
    let title = if s.path.is_empty() {
        " Source ".to_string()
    } else {
        let mut who = s.shows.as_ref().map_or(String::new(), |(name, from)| {
            format!("{} ({from}) · ", safe(name))
        });
        let range = s.range.map_or(String::new(), |(a, b)| format!(" :{a}-{b}"));
        // Room on the top border (the corners and the right title's share taken off). The
        // path gives way (its start first), then the symbol's name; the range stays whole.
        let room = (area.width as usize).saturating_sub(3 + stale.chars().count());
        if 2 + who.chars().count() + 1 + range.chars().count() > room {
            who.clear();
        }
        let budget = room
            .saturating_sub(2 + who.chars().count() + range.chars().count())
            .max(1);
        format!(" {who}{}{range} ", super::fit_path(&safe(&s.path), budget))
    };
    let room = (area.width as usize).saturating_sub(2 + stale.chars().count() + 1);
    let block = panel(app, fit_line(Line::from(title), room), Focus::Source)
        .title_top(Line::from(stale).right_aligned());
    let inner = block.inner(area);
    f.render_widget(block, area);
    if let Some(e) = &s.error {
        f.render_widget(hint(app, e), inner);
        return;
    }
    if s.path.is_empty() {
        f.render_widget(hint(app, "the selected symbol's source shows here"), inner);
        return;
    }
    let h = inner.height as usize;
    let t = &app.theme;
    let width = s.lines.len().max(1).to_string().len();
    let cursor = s.cursor.filter(|_| app.focus == Focus::Source);
    let mut out = Vec::with_capacity(h);
    for (i, l) in s.lines.iter().enumerate().skip(s.scroll).take(h) {
        let no = i as u32 + 1;
        let in_def = s.range.is_some_and(|(a, b)| no >= a && no <= b);
        let site_cols: Vec<u32> = s
            .sites
            .iter()
            .filter(|(line, _)| *line == no)
            .map(|(_, c)| *c)
            .collect();
        let marker = if !site_cols.is_empty() {
            Span::styled("●", t.get("ui.callsite"))
        } else if in_def {
            Span::styled("▌", t.get("ui.gutter.definition"))
        } else {
            Span::raw(" ")
        };
        let num_style = if in_def {
            t.get("ui.gutter.definition")
        } else {
            t.get("ui.gutter")
        };
        let mut spans = vec![
            Span::styled(format!("{no:>width$}"), num_style),
            marker,
            Span::raw(" "),
        ];
        let mut body = mark_sites(l, &site_cols, t.get("ui.callsite"));
        // The cursor's word, while the panel has the keyboard (go to definition reads it).
        if let Some((_, col)) = cursor.filter(|c| c.0 == no) {
            body = mark_sites(&Line::from(body), &[col], t.get("ui.selection"));
        }
        spans.extend(body);
        let mut line = Line::from(spans);
        if in_def {
            line = line.patch_style(t.get("ui.definition"));
        }
        out.push(line);
    }
    f.render_widget(Paragraph::new(out), inner);
}

/// Copies a line's spans, patching `style` onto the identifier that starts at each
/// 1-based char column in `cols`.
fn mark_sites(l: &Line<'static>, cols: &[u32], style: Style) -> Vec<Span<'static>> {
    if cols.is_empty() {
        return l.spans.clone();
    }
    let mut out = Vec::new();
    let mut col = 1u32;
    let mut marking = false;
    for sp in &l.spans {
        let mut run = String::new();
        let mut run_marked = false;
        for c in sp.content.chars() {
            if cols.contains(&col) {
                marking = true;
            } else if marking && !(c.is_alphanumeric() || c == '_') {
                marking = false;
            }
            if marking != run_marked && !run.is_empty() {
                let st = if run_marked {
                    sp.style.patch(style)
                } else {
                    sp.style
                };
                out.push(Span::styled(std::mem::take(&mut run), st));
            }
            run_marked = marking;
            run.push(c);
            col += 1;
        }
        if !run.is_empty() {
            let st = if run_marked {
                sp.style.patch(style)
            } else {
                sp.style
            };
            out.push(Span::styled(run, st));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_identifier_at_a_site_column_is_marked() {
        let l = Line::from(vec![Span::raw("    x = "), Span::raw("foo(bar)")]);
        let st = Style::new().add_modifier(ratatui::style::Modifier::UNDERLINED);
        let spans = mark_sites(&l, &[9], st);
        let marked: String = spans
            .iter()
            .filter(|s| s.style == st)
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(marked, "foo");
        let all: String = spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(all, "    x = foo(bar)");
    }
}
