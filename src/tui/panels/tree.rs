//! The call-tree panel: one row per node, indented by depth, with an expander, the kind,
//! the qualified name, the edge's resolution tier (guessed `unique_name` edges dimmed),
//! the location, cycle markers and the unresolved count under expanded nodes.

use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{cut_name, fit_line, fit_row, follow, hint, kind_marker, panel, safe};
use crate::index::Node;
use crate::index::{Relation, Tier, Walk};
use crate::tui::app::{App, Focus};
use crate::tui::tree::{Row, TreeNode};
use crate::tui::unresolved::{reason_text, unique_name_why};

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
        .map_or(tree.root().to_string(), super::title_name);
    let dir = match tree.direction {
        Walk::Callees => "Callees",
        _ => "Callers",
    };
    let title = format!(" {dir} of {} ", safe(&root_name));
    let (at, of) = (app.history_pos + 1, app.history.len());
    let mut hist = format!(" history {at}/{of} ");
    if title.chars().count() + hist.chars().count() + 3 > area.width as usize {
        // Narrow: the root's name before the label (the help explains the counter).
        hist = format!(" {at}/{of} ");
    }
    // Callers rows show where they call (a line in the caller's file), callees rows where
    // the callee is defined: the same `path:line` column means two things, so it is named.
    let mut legend = match tree.direction {
        Walk::Callees => " :line = definition ".to_string(),
        _ => " :line = call site ".to_string(),
    };
    if app.filters.hide_tests {
        legend.push_str("[-tests] ");
    }
    if app.filters.hide_unique_name {
        legend.push_str("[-guessed] ");
    }
    let pos = super::position(tree.selected, rows.len());
    let legend = super::fit_line(
        Line::from(legend),
        (area.width as usize).saturating_sub(2 + pos.chars().count() + 1),
    );
    // The title gives way to the history counter (both on the top border), ending in `…`.
    let room = (area.width as usize).saturating_sub(2 + hist.chars().count() + 1);
    let title = super::fit_line(Line::from(title), room);
    let block = panel(app, title, Focus::Tree)
        .title_top(Line::from(hist).right_aligned())
        .title_bottom(legend)
        .title_bottom(Line::from(pos).right_aligned());
    let inner = block.inner(area);
    f.render_widget(block, area);
    let detail = app
        .selected_tree_row()
        .and_then(|r| detail(app, &snap.index.graph, r));
    // The detail, when the selected row has one, takes the panel's last one or two lines
    // (wrapped; cut with `…` beyond two).
    let detail_h = detail.as_ref().map_or(0, |d| {
        d.chars()
            .count()
            .div_ceil((inner.width as usize).max(1))
            .clamp(1, 2)
    });
    let h = (inner.height as usize).saturating_sub(detail_h);
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
                let mut place = None;
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
                        // Laid out with the tier, the cycle mark and the place (see
                        // `fit_row`): the path and the qualifier give way, the line never.
                        let used: usize = spans.iter().map(Span::width).sum();
                        let tags = n.via.as_ref().map_or(0, |v| {
                            tier_label(v.resolution).len()
                                + 3
                                + if v.relation == Relation::References {
                                    4
                                } else {
                                    0
                                }
                        }) + if n.cycle { 6 } else { 0 };
                        let label = safe(label);
                        let fitted = fit_row(
                            inner.width as usize,
                            used + tags,
                            &label,
                            &safe(&node.file),
                            &format!(":{}", line_of(n, node, tree.direction)),
                        );
                        spans.push(Span::styled(
                            cut_name(&label, &fitted),
                            if i == 0 {
                                base.add_modifier(Modifier::BOLD)
                            } else {
                                base
                            },
                        ));
                        place = Some(fitted.place);
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
                if let Some(place) = place {
                    spans.push(Span::styled(place, t.get("ui.path")));
                }
                Line::from(spans)
            }
            Row::Unresolved { node, count } => {
                let n = &tree.nodes[node];
                let calls = if count == 1 { "call" } else { "calls" };
                let what = match tree.direction {
                    Walk::Callees => format!("unresolved {calls} (targets unknown)"),
                    _ => format!("unresolved {calls} by this name (maybe more callers)"),
                };
                let (mark, listed) = match &n.unresolved {
                    Some((l, total)) if l.len() < *total => {
                        ("▾ ", format!(", first {} listed", l.len()))
                    }
                    Some(_) => ("▾ ", String::new()),
                    None => ("▸ ", String::new()),
                };
                let text = format!("{mark}? {count} {what}{listed}");
                fit_line(
                    Line::from(vec![
                        Span::raw("  ".repeat(n.depth as usize + 1)),
                        Span::styled(text, t.get("ui.unresolved")),
                    ]),
                    inner.width as usize,
                )
            }
            Row::Call { node, call } => {
                let n = &tree.nodes[node];
                let c = &n.unresolved.as_ref().expect("open").0[call];
                let lead = "  ".repeat(n.depth as usize + 2);
                let written = match &c.receiver {
                    Some(r) => format!("{}.{}", safe(r), safe(&c.name)),
                    None => safe(&c.name).into_owned(),
                };
                let tag = format!(" [{}]", c.reason.as_str());
                let fitted = fit_row(
                    inner.width as usize,
                    lead.chars().count() + 2 + tag.chars().count(),
                    &written,
                    &safe(&c.site.file),
                    &format!(":{}:{}", c.site.line, c.site.column),
                );
                Line::from(vec![
                    Span::raw(lead),
                    Span::styled("× ", t.get("ui.unresolved")),
                    Span::styled(cut_name(&written, &fitted), t.get("ui.text")),
                    Span::styled(tag, t.get("ui.unresolved")),
                    Span::styled(fitted.place, t.get("ui.path")),
                ])
            }
            Row::Candidate { node, call, cand } => {
                let n = &tree.nodes[node];
                let id = &n.unresolved.as_ref().expect("open").0[call].candidates[cand];
                let lead = "  ".repeat(n.depth as usize + 3);
                match g.node(id) {
                    Some(c) => {
                        let label = safe(c.id.split_once("::").map_or(&*c.id, |(_, r)| r));
                        let fitted = fit_row(
                            inner.width as usize,
                            lead.chars().count() + 5,
                            &label,
                            &safe(&c.file),
                            &format!(":{}", c.start_line),
                        );
                        Line::from(vec![
                            Span::raw(lead),
                            Span::styled("? ", t.get("ui.text.dim")),
                            Span::styled(format!("{} ", kind_marker(c.kind)), t.get("ui.kind")),
                            Span::styled(cut_name(&label, &fitted), t.get("ui.text")),
                            Span::styled(fitted.place, t.get("ui.path")),
                        ])
                    }
                    None => Line::from(format!("{lead}? {}", safe(id))),
                }
            }
            Row::Hidden { node, count } => {
                let n = &tree.nodes[node];
                let what = match (app.filters.hide_tests, app.filters.hide_unique_name) {
                    (true, true) => "t, u show",
                    (true, false) => "t shows",
                    _ => "u shows",
                };
                fit_line(
                    Line::styled(
                        format!(
                            "{}· {count} hidden by a filter ({what})",
                            "  ".repeat(n.depth as usize + 1)
                        ),
                        t.get("ui.text.dim"),
                    ),
                    inner.width as usize,
                )
            }
        };
        if ri == tree.selected {
            line = line.patch_style(t.get("ui.selection"));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
    if let Some(d) = detail {
        let dh = detail_h as u16;
        let y = inner.y + inner.height.saturating_sub(dh);
        let text = fit_line(
            Line::styled(d, app.theme.get("ui.text.dim")),
            inner.width as usize * 2 - 2,
        );
        f.render_widget(
            Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: true }),
            Rect {
                y,
                height: dh.min(inner.height),
                ..inner
            },
        );
    }
}

/// The line a tree row shows: for callers the first call site (in the caller's file),
/// for callees and the root the definition's first line. The panel's bottom title says
/// which.
fn line_of(n: &TreeNode, node: &Node, dir: Walk) -> u32 {
    n.via
        .as_ref()
        .filter(|_| dir == Walk::Callers)
        .and_then(|v| v.sites.first())
        .map_or(node.start_line, |s| s.line)
}

/// What the selected row needs said that its columns cannot hold: why a `unique_name`
/// edge was guessed, what an unresolved call's reason means, what Enter does on an
/// unresolved row.
fn detail(app: &App, g: &crate::index::CodeGraph, row: Row) -> Option<String> {
    let tree = app.tree.as_ref()?;
    match row {
        Row::Node(i) => {
            let n = &tree.nodes[i];
            let guessed = n.via.as_ref()?.resolution == Tier::UniqueName;
            // The callee of the guessed edge: the row's node for callees, the parent
            // (the tree's node the row calls) for callers.
            let callee = match tree.direction {
                Walk::Callees => g.node(&n.id)?,
                _ => g.node(&tree.nodes[n.parent?].id)?,
            };
            guessed.then(|| unique_name_why(callee))
        }
        Row::Unresolved { node, .. } if tree.nodes[node].unresolved.is_none() => {
            Some("Enter lists these calls: site, name, why unresolved, candidates".into())
        }
        Row::Call { node, call } => {
            let c = &tree.nodes[node].unresolved.as_ref()?.0[call];
            let more = match c.candidates.len() {
                0 => String::new(),
                n => format!(" · {n} candidates below, Enter on one re-roots"),
            };
            Some(format!(
                "{}: {}{more}",
                safe(&c.name),
                reason_text(c.reason)
            ))
        }
        _ => None,
    }
}
