//! The impact panel: risk, counts, the lower-bound reasons and truncation, then the
//! callers by depth, the entry points, files and tests among them (the engine's answer,
//! as `impact SYMBOL` prints it).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{hint, panel, safe};
use crate::index::impact::Risk;
use crate::tui::app::{App, Focus};

pub(super) fn draw(f: &mut Frame, app: &mut App, area: Rect) {
    let (Some(v), Some(snap)) = (app.impact.as_ref(), app.snapshot.as_ref()) else {
        let block = panel(app, Line::from(" Impact "), Focus::Impact);
        let inner = block.inner(area);
        f.render_widget(block, area);
        f.render_widget(hint(app, "what changing the symbol would affect"), inner);
        return;
    };
    let g = &snap.index.graph;
    let t = &app.theme;
    let r = &v.report;
    let root = r.root.as_deref().unwrap_or_default();
    let name = g
        .node(root)
        .map_or(root.to_string(), |n| n.name.to_string());
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
    let direct = r.direct_callers.len();
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("risk {}", r.risk.as_str()), risk_style),
            Span::styled(
                format!(
                    " · {direct} direct, {} transitive callers",
                    r.caller_count() - direct
                ),
                t.get("ui.text"),
            ),
        ]),
        Line::styled(
            format!(
                "{} files · {} tests · {} entry points · depth {}",
                r.files.len(),
                r.tests.len(),
                r.entry_points.len(),
                r.depth
            ),
            t.get("ui.text"),
        ),
    ];
    for reason in &r.lower_bound_reasons {
        lines.push(Line::styled(
            format!("lower bound: {}", safe(reason)),
            t.get("ui.unresolved"),
        ));
    }
    if r.truncated {
        lines.push(Line::styled(
            format!(
                "truncated: callers exist beyond depth {} or the node cap",
                r.depth
            ),
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
    for (title, items) in [
        ("entry points:", &r.entry_points),
        ("files:", &r.files),
        ("tests:", &r.tests),
    ] {
        if !items.is_empty() {
            lines.push(Line::styled(title, t.get("ui.title")));
            for item in items {
                lines.push(Line::styled(format!("  {}", safe(item)), t.get("ui.path")));
            }
        }
    }
    let h = inner.height as usize;
    let max = lines.len().saturating_sub(h);
    let scroll = v.scroll.min(max);
    if let Some(v) = app.impact.as_mut() {
        v.scroll = scroll;
    }
    f.render_widget(block, area);
    f.render_widget(Paragraph::new(lines).scroll((scroll as u16, 0)), inner);
}
