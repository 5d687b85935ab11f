//! The impact panel: the risk headline and counts, the lower bound in one line (Enter
//! lists its reasons), then the callers by depth, the entry points, tests and files among
//! them: a scrolled list with a selection, where Enter on a caller re-roots on it.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{count, cut_name, fit_row, follow, hint, panel, safe};
use crate::index::impact::Risk;
use crate::index::{CodeGraph, Kind};
use crate::tui::app::{App, Focus};
use crate::tui::impact::ImpactRow;
use crate::tui::theme::Theme;

pub(super) fn draw(f: &mut Frame, app: &mut App, area: Rect) {
    let (true, Some(snap)) = (app.impact.is_some(), app.snapshot.clone()) else {
        let block = panel(app, Line::from(" Impact "), Focus::Impact);
        let inner = block.inner(area);
        f.render_widget(block, area);
        f.render_widget(hint(app, "what changing the symbol would affect"), inner);
        return;
    };
    let h = area.height.saturating_sub(2) as usize;
    let rows = {
        let v = app.impact.as_mut().expect("impact");
        let rows = v.rows();
        v.selected = v.selected.min(rows.len().saturating_sub(1));
        follow(v.selected, &mut v.scroll, h);
        rows
    };
    let g = &snap.index.graph;
    let Some(v) = app.impact.as_ref() else { return };
    let r = &v.report;
    let root = r.root.as_deref().unwrap_or_default();
    let name = g.node(root).map_or(root.to_string(), super::title_name);
    let title = super::fit_line(
        Line::from(format!(" Impact of {} ", safe(&name))),
        (area.width as usize).saturating_sub(16),
    );
    let block = panel(app, title, Focus::Impact)
        .title_bottom(Line::from(super::position(v.selected, rows.len())).right_aligned());
    let inner = block.inner(area);
    f.render_widget(block, area);
    let t = &app.theme;
    let width = inner.width as usize;
    let mut lines = Vec::with_capacity(h);
    for (i, row) in rows.iter().enumerate().skip(v.scroll).take(h) {
        let mut line = match row {
            ImpactRow::Headline => headline(v, t, width),
            ImpactRow::Counts => {
                let files = count(r.files.len(), "file", "files");
                let tests = count(r.tests.len(), "test", "tests");
                let entries = count(r.entry_points.len(), "entry point", "entry points");
                let long = format!("{files} · {tests} · {entries} · depth {}", r.depth);
                // The depth is the query's own setting: dropped first when narrow.
                let text = if long.chars().count() <= width {
                    long
                } else {
                    format!("{files} · {tests} · {entries}")
                };
                Line::styled(text, t.get("ui.text"))
            }
            ImpactRow::LowerBound => {
                let n = r.lower_bound_reasons.len();
                let calls = if v.maybe_calls > 0 {
                    format!(
                        ", {}",
                        count(
                            v.maybe_calls as usize,
                            "unresolved call",
                            "unresolved calls"
                        )
                    )
                } else {
                    String::new()
                };
                let mark = if v.show_reasons { "▾" } else { "▸" };
                Line::styled(
                    format!(
                        "{mark} lower bound: {}{calls}",
                        count(n, "reason", "reasons")
                    ),
                    t.get("ui.unresolved"),
                )
            }
            ImpactRow::Reason(k) => Line::styled(
                format!("  {}", safe(&r.lower_bound_reasons[*k])),
                t.get("ui.unresolved"),
            ),
            ImpactRow::Truncated => Line::styled(
                format!(
                    "truncated: callers exist beyond depth {} or the node cap",
                    r.depth
                ),
                t.get("ui.unresolved"),
            ),
            ImpactRow::Caller(d, id) => symbol_line(g, t, &format!("d{d} "), id, width),
            ImpactRow::Heading(title) => Line::styled(*title, t.get("ui.title")),
            ImpactRow::Member(id) => symbol_line(g, t, "  ", id, width),
            ImpactRow::File(path) => Line::styled(format!("  {}", safe(path)), t.get("ui.path")),
        };
        line = super::fit_line(line, width);
        if i == v.selected {
            line = line.patch_style(t.get("ui.selection"));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// Risk and caller counts, in the longest form that fits `width` columns (the counts are
/// worded shorter before anything is cut). When the unresolved calls that could be callers
/// outnumber the callers found, the risk level (computed from the callers found) is not
/// the headline's message: it says the answer is a lower bound first.
fn headline<'a>(v: &crate::tui::impact::ImpactView, t: &Theme, width: usize) -> Line<'a> {
    let r = &v.report;
    let direct = r.direct_callers.len();
    let found = r.caller_count();
    let transitive = found - direct;
    let (lead, lead_style, forms): (String, _, Vec<(String, String)>) = if v.lower_bound_dominates()
    {
        let maybe = v.maybe_calls as usize;
        (
            "risk unknown".to_string(),
            t.get("ui.unresolved"),
            vec![
                (
                    format!(" · {found} found"),
                    format!(
                        " · {} may add callers",
                        count(maybe, "unresolved call", "unresolved calls")
                    ),
                ),
                (
                    format!(" · {found} found"),
                    format!(" · {} may add", count(maybe, "unresolved", "unresolved")),
                ),
                (
                    format!(" · {found} found"),
                    format!(", +{maybe} unresolved"),
                ),
                (format!(" · {found}"), format!(" +{maybe}?")),
            ],
        )
    } else {
        let style = match r.risk {
            Risk::Low => t.get("ui.risk.low"),
            Risk::Medium => t.get("ui.risk.medium"),
            Risk::High => t.get("ui.risk.high"),
        };
        let callers = if transitive == 1 { "caller" } else { "callers" };
        (
            format!("risk {}", r.risk.as_str()),
            style,
            vec![
                (
                    format!(" · {direct} direct, {transitive} transitive {callers}"),
                    String::new(),
                ),
                (
                    format!(" · {direct} direct, {transitive} transitive"),
                    String::new(),
                ),
                (format!(" · {direct} direct +{transitive}"), String::new()),
                (format!(" · {direct}+{transitive}"), String::new()),
            ],
        )
    };
    let used = lead.chars().count();
    let last = forms.len() - 1;
    let (text, warn) = forms
        .into_iter()
        .enumerate()
        .find(|(i, (a, b))| *i == last || used + a.chars().count() + b.chars().count() <= width)
        .map(|(_, f)| f)
        .unwrap_or_default();
    Line::from(vec![
        Span::styled(lead, lead_style),
        Span::styled(text, t.get("ui.text")),
        Span::styled(warn, t.get("ui.unresolved")),
    ])
}

/// A node's row: `lead`, its qualified name and `path:line`, cut by `fit_row`.
fn symbol_line<'a>(g: &CodeGraph, t: &Theme, lead: &str, id: &str, width: usize) -> Line<'a> {
    let Some(n) = g.node(id) else {
        return Line::styled(format!("{lead}{}", safe(id)), t.get("ui.text"));
    };
    let (q, tail) = if n.kind == Kind::File {
        ("(top level)".to_string(), String::new())
    } else {
        (
            safe(&n.qualified_name).into_owned(),
            format!(":{}", n.start_line),
        )
    };
    let fitted = fit_row(width, lead.chars().count(), &q, &safe(&n.file), &tail);
    Line::from(vec![
        Span::styled(lead.to_string(), t.get("ui.tier")),
        Span::styled(cut_name(&q, &fitted), t.get("ui.text")),
        Span::styled(fitted.place, t.get("ui.path")),
    ])
}
