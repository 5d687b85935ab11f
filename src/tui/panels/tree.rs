//! The call-tree panel: one row per node, indented by depth, with an expander, the kind,
//! the qualified name, the edge's resolution tier (guessed `unique_name` edges dimmed),
//! the location, cycle markers and the unresolved count under expanded nodes.

use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{cut_name, fit_row, follow, hint, kind_marker, panel, safe};
use crate::index::Node;
use crate::index::{Relation, Tier, Walk};
use crate::tui::app::{App, Focus};
use crate::tui::tree::{Row, TreeNode};

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
