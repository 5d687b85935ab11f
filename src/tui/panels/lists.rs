//! The type hierarchy and the references, drawn in the call tree's place: headings, and
//! one row per node with its marker (`▲` base, `▼` subtype, `→` used as a value, `⇠`
//! imports), kind, name, note (`overrides …`, the tier) and place. The note is the first
//! to give way in a narrow panel ([`fit_noted_row`]).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{cut_name, fit_line, fit_noted_row, follow, kind_marker, panel, position, safe};
use crate::index::Kind;
use crate::tui::app::{App, Focus};
use crate::tui::lists::ListKind;

pub(super) fn draw(f: &mut Frame, app: &mut App, area: Rect) {
    let (Some(l), Some(snap)) = (app.list.as_ref(), app.snapshot.clone()) else {
        return;
    };
    let g = &snap.index.graph;
    let name = g
        .node(&l.root)
        .map_or(l.root.to_string(), super::title_name);
    let (what, back) = match l.kind {
        ListKind::Hierarchy => (
            "Type hierarchy of",
            " i: back to the tree · Enter: its hierarchy ",
        ),
        ListKind::References => ("References to", " R: back to the tree · Enter: callers "),
        ListKind::Definitions => ("Definitions of", " Esc: back · Enter: go to it "),
        ListKind::Dead => (
            "Dead-code candidates in",
            " D: back to the tree · Enter: go to it ",
        ),
    };
    let title = fit_line(
        Line::from(format!(" {what} {} ", safe(&name))),
        (area.width as usize).saturating_sub(4),
    );
    let block = panel(app, title, Focus::Tree)
        .title_bottom(Line::from(back))
        .title_bottom(Line::from(position(l.selected, l.rows.len())).right_aligned());
    let inner = block.inner(area);
    f.render_widget(block, area);
    let h = inner.height as usize;
    if let Some(l) = app.list.as_mut() {
        follow(l.selected, &mut l.offset, h);
    }
    let (Some(l), t) = (app.list.as_ref(), &app.theme) else {
        return;
    };
    let width = inner.width as usize;
    let mut lines = Vec::with_capacity(h);
    for (i, r) in l.rows.iter().enumerate().skip(l.offset).take(h) {
        let indent = "  ".repeat(r.depth as usize);
        let mut line = match r.id.as_ref().and_then(|id| g.node(id)) {
            None => fit_line(
                Line::styled(format!("{indent}{}", safe(&r.text)), t.get("ui.title")),
                width,
            ),
            Some(n) => {
                let label = match n.kind {
                    Kind::File => "(top level)".to_string(),
                    _ => safe(n.id.split_once("::").map_or(&*n.id, |(_, r)| r)).into_owned(),
                };
                let (file, line) = match &r.site {
                    Some((file, line, _)) => (file.clone(), *line),
                    None => (n.file.clone(), n.start_line),
                };
                let lead = format!("{indent}{} {} ", r.text, kind_marker(n.kind));
                let note = safe(&r.note);
                let short: Vec<_> = r.short.iter().map(|s| safe(s)).collect();
                let notes: Vec<&str> = std::iter::once(&*note)
                    .chain(short.iter().map(|s| &**s))
                    .collect();
                let (note, fitted) = fit_noted_row(
                    width,
                    lead.chars().count(),
                    &notes,
                    &label,
                    &safe(&file),
                    &format!(":{line}"),
                );
                let note = if note.is_empty() {
                    String::new()
                } else {
                    format!(" {note}")
                };
                Line::from(vec![
                    Span::styled(lead, t.get("ui.kind")),
                    Span::styled(cut_name(&label, &fitted), t.get("ui.text")),
                    Span::styled(note, t.get("ui.tier")),
                    Span::styled(fitted.place, t.get("ui.path")),
                ])
            }
        };
        if i == l.selected {
            line = line.patch_style(t.get("ui.selection"));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}
