//! The impact panel: risk, counts, lower-bound and truncation markers, then the callers
//! by depth, the files and the tests among them.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{hint, panel, safe};
use crate::tui::app::{App, Focus};
use crate::tui::impact::{Risk, IMPACT_DEPTH};

pub(super) fn draw(f: &mut Frame, app: &mut App, area: Rect) {
    let (Some(r), Some(snap)) = (app.impact.as_ref(), app.snapshot.as_ref()) else {
        let block = panel(app, Line::from(" Impact "), Focus::Impact);
        let inner = block.inner(area);
        f.render_widget(block, area);
        f.render_widget(hint(app, "what changing the symbol would affect"), inner);
        return;
    };
    let g = &snap.index.graph;
    let t = &app.theme;
    let name = g
        .node(&r.root)
        .map_or(r.root.to_string(), |n| n.name.to_string());
    let block = panel(
        app,
        Line::from(format!(" Impact of {} ", safe(&name))),
        Focus::Impact,
    );
    let inner = block.inner(area);
    let risk_style = match r.risk {
        Risk::Low => t.get("ui.risk.low"),
        Risk::Medium => t.get("ui.risk.medium"),
        Risk::High => t.get("ui.risk.high"),
    };
    let direct = r.by_depth.first().map_or(0, Vec::len);
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("risk {}", r.risk.label()), risk_style),
        Span::styled(
            format!(
                " · {direct} direct, {} transitive callers · {} files · {} tests",
                r.total() - direct,
                r.files.len(),
                r.tests.len()
            ),
            t.get("ui.text"),
        ),
    ])];
    if r.unresolved > 0 {
        lines.push(Line::styled(
            format!(
                "lower bound: {} unresolved calls may add callers",
                r.unresolved
            ),
            t.get("ui.unresolved"),
        ));
    }
    if r.truncated {
        lines.push(Line::styled(
            format!("truncated at depth {IMPACT_DEPTH}: more callers exist"),
            t.get("ui.unresolved"),
        ));
    }
    for (d, ids) in r.by_depth.iter().enumerate() {
        for id in ids {
            let (q, loc) = g.node(id).map_or((id.to_string(), String::new()), |n| {
                if n.kind == crate::index::Kind::File {
                    ("(top level)".to_string(), n.file.to_string())
                } else {
                    (
                        n.qualified_name.to_string(),
                        format!("{}:{}", n.file, n.start_line),
                    )
                }
            });
            lines.push(Line::from(vec![
                Span::styled(format!("d{} ", d + 1), t.get("ui.tier")),
                Span::styled(safe(&q).into_owned(), t.get("ui.text")),
                Span::styled(format!("  {}", safe(&loc)), t.get("ui.path")),
            ]));
        }
    }
    if !r.files.is_empty() {
        lines.push(Line::styled("files:", t.get("ui.title")));
        for file in &r.files {
            lines.push(Line::styled(format!("  {}", safe(file)), t.get("ui.path")));
        }
    }
    if !r.tests.is_empty() {
        lines.push(Line::styled("tests:", t.get("ui.title")));
        for id in &r.tests {
            lines.push(Line::styled(format!("  {}", safe(id)), t.get("ui.text")));
        }
    }
    let h = inner.height as usize;
    let max = lines.len().saturating_sub(h);
    let scroll = r.scroll.min(max);
    if let Some(r) = app.impact.as_mut() {
        r.scroll = scroll;
    }
    f.render_widget(block, area);
    f.render_widget(Paragraph::new(lines).scroll((scroll as u16, 0)), inner);
}
