//! The call-tree panel: one row per node, indented by depth, with an expander, the kind,
//! the qualified name, the edge's resolution tier (guessed `unique_name` edges dimmed),
//! the location, cycle markers and the unresolved count under expanded nodes.

use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{follow, hint, kind_marker, panel, safe};
use crate::index::{Relation, Tier, Walk};
use crate::tui::app::{App, Focus};
use crate::tui::tree::Row;

/// The label of a resolution tier as JSON writes it.
pub fn tier_label(t: Tier) -> &'static str {
    match t {
        Tier::Syntax => "syntax",
        Tier::Local => "local",
        Tier::Import => "import",
        Tier::Qualified => "qualified",
        Tier::UniqueName => "unique_name",
    }
}

pub(super) fn draw(f: &mut Frame, app: &mut App, area: Rect) {
    let rows = app.tree_rows();
    let (Some(snap), Some(tree)) = (app.snapshot.clone(), app.tree.as_ref()) else {
        let block = panel(app, Line::from(" Call tree "), Focus::Tree);
        let inner = block.inner(area);
        f.render_widget(block, area);
        f.render_widget(
            hint(
                app,
                "type a name in the search box, Enter shows its callers",
            ),
            inner,
        );
        return;
    };
    let g = &snap.index.graph;
    let root_name = g
        .node(tree.root())
        .map_or(tree.root().to_string(), |n| n.name.to_string());
    let dir = match tree.direction {
        Walk::Callees => "Callees",
        _ => "Callers",
    };
    let mut title = format!(" {dir} of {} ", safe(&root_name));
    if app.filters.hide_tests {
        title.push_str("[-tests] ");
    }
    if app.filters.hide_unique_name {
        title.push_str("[-guessed] ");
    }
    let hist = format!(" {}/{} ", app.history_pos + 1, app.history.len());
    let block =
        panel(app, Line::from(title), Focus::Tree).title_top(Line::from(hist).right_aligned());
    let inner = block.inner(area);
    f.render_widget(block, area);
    let h = inner.height as usize;
    let Some(tree) = app.tree.as_mut() else {
        return;
    };
    tree.selected = tree.selected.min(rows.len().saturating_sub(1));
    follow(tree.selected, &mut tree.offset, h);
    let t = &app.theme;
    let mut lines = Vec::new();
    for (ri, row) in rows.iter().enumerate().skip(tree.offset).take(h) {
        let mut line = match *row {
            Row::Node(i) => {
                let n = &tree.nodes[i];
                let node = g.node(&n.id);
                let indent = "  ".repeat(n.depth as usize);
                let expander = if n.cycle {
                    "↻ "
                } else if n.expanded {
                    if n.children.as_ref().is_some_and(|c| c.is_empty()) {
                        "· "
                    } else {
                        "▾ "
                    }
                } else {
                    "▸ "
                };
                let guessed = n
                    .via
                    .as_ref()
                    .is_some_and(|v| v.resolution == Tier::UniqueName);
                let base = if guessed {
                    t.get("ui.tier.unique_name")
                } else {
                    t.get("ui.text")
                };
                let mut spans = vec![
                    Span::raw(indent),
                    Span::styled(expander, t.get("ui.text.dim")),
                ];
                match node {
                    Some(node) => {
                        spans.push(Span::styled(
                            format!("{} ", kind_marker(node.kind)),
                            if guessed { base } else { t.get("ui.kind") },
                        ));
                        // The in-file name (`Router.dispatch`): short, and the path follows.
                        let label = match node.kind {
                            crate::index::Kind::File => "(top level)",
                            _ => node.id.split_once("::").map_or(&*node.id, |(_, r)| r),
                        };
                        // The name gives way to the place (see `min_path`): what follows it
                        // is the tier, the cycle mark and at least part of the place.
                        let used: usize = spans.iter().map(Span::width).sum();
                        let tier = n.via.as_ref().map_or(0, |v| {
                            tier_label(v.resolution).len()
                                + 3
                                + if v.relation == Relation::References {
                                    4
                                } else {
                                    0
                                }
                        });
                        let place = node.file.chars().count() + 8;
                        let keep = tier
                            + if n.cycle { 6 } else { 0 }
                            + place.min(super::min_path(inner.width));
                        let room = (inner.width as usize).saturating_sub(used + keep).max(8);
                        let label = safe(label);
                        let len = label.chars().count();
                        let own = label
                            .rsplit(['.', ':'])
                            .next()
                            .map_or(len, |o| o.chars().count());
                        let label = match super::name_cut(len, own, room) {
                            0 => label.into_owned(),
                            skip => format!("…{}", label.chars().skip(skip).collect::<String>()),
                        };
                        spans.push(Span::styled(
                            label,
                            if i == 0 {
                                base.add_modifier(Modifier::BOLD)
                            } else {
                                base
                            },
                        ));
                    }
                    None => spans.push(Span::styled(safe(&n.id).into_owned(), base)),
                }
                if let Some(v) = &n.via {
                    let rel = if v.relation == Relation::References {
                        "ref "
                    } else {
                        ""
                    };
                    spans.push(Span::styled(
                        format!(" [{rel}{}]", tier_label(v.resolution)),
                        if guessed { base } else { t.get("ui.tier") },
                    ));
                }
                if n.cycle {
                    spans.push(Span::styled(" cycle", t.get("ui.cycle")));
                }
                if let Some(node) = node {
                    let line_no = n
                        .via
                        .as_ref()
                        .filter(|_| tree.direction == Walk::Callers)
                        .and_then(|v| v.sites.first())
                        .map_or(node.start_line, |s| s.line);
                    let used: usize = spans.iter().map(Span::width).sum();
                    let tail = format!(":{line_no}");
                    let budget = (inner.width as usize).saturating_sub(used + 2 + tail.len());
                    spans.push(Span::styled(
                        format!("  {}{tail}", super::fit_path(&safe(&node.file), budget)),
                        t.get("ui.path"),
                    ));
                }
                Line::from(spans)
            }
            Row::Unresolved { node, count } => {
                let n = &tree.nodes[node];
                let what = match tree.direction {
                    Walk::Callees => "unresolved calls (targets unknown)",
                    _ => "unresolved calls by this name (maybe more callers)",
                };
                Line::from(vec![
                    Span::raw("  ".repeat(n.depth as usize + 1)),
                    Span::styled(format!("? {count} {what}"), t.get("ui.unresolved")),
                ])
            }
        };
        if ri == tree.selected {
            line = line.patch_style(t.get("ui.selection"));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}
