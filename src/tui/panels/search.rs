//! The search panel: the query line and the ranked symbols, matched characters marked;
//! in the text, semantic and hybrid modes the ranked chunk hits instead.

use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{follow, hint, kind_marker, panel, safe};
use crate::tui::app::{App, Focus, Overlay};
use crate::tui::chunks::SearchMode;

pub(super) fn draw(f: &mut Frame, app: &mut App, area: Rect) {
    let counts = if app.mode != SearchMode::Symbols {
        if let Some(b) = app.chunks.building().filter(|_| app.chunks.busy()) {
            // Short: the title beside it names the mode; the list's hint says what is built.
            format!(" building… {:.1} s ", b.since.elapsed().as_secs_f64())
        } else if app.chunks.busy() {
            " searching… ".to_string()
        } else {
            format!(" {} ", super::count(app.chunks.hits.len(), "hit", "hits"))
        }
    } else if app.snapshot.is_some() {
        format!(
            " {}{}/{} ",
            if app.search.matching() {
                "matching… "
            } else {
                ""
            },
            app.search.matched(),
            app.search.injected().max(app.search.expected)
        )
    } else {
        String::new()
    };
    let (sel, len) = match app.mode {
        SearchMode::Symbols => (app.search.selected, app.search.matched()),
        _ => (app.chunks.selected, app.chunks.hits.len()),
    };
    let block = panel(app, Line::from(app.mode.title()), Focus::Search)
        .title_top(Line::from(counts).right_aligned())
        .title_bottom(Line::from(super::position(sel, len)).right_aligned());
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.height == 0 {
        return;
    }
    let t = &app.theme;
    // The end of the query, where typing happens, stays in view: a query longer than the
    // box shows `…` and its last chars (one column is left for the cursor).
    let text = safe(&app.search.query);
    let room = (inner.width as usize).saturating_sub(3).max(1);
    let len = text.chars().count();
    let shown: String = if len > room {
        std::iter::once('…')
            .chain(text.chars().skip(len - room + 1))
            .collect()
    } else {
        text.into_owned()
    };
    let shown_len = shown.chars().count();
    let query = Line::from(vec![
        Span::styled("> ", t.get("ui.title")),
        Span::styled(shown, t.get("ui.text")),
    ]);
    f.render_widget(Paragraph::new(query), Rect { height: 1, ..inner });
    if app.focus == Focus::Search && app.overlay == Overlay::None {
        let x = inner.x + 2 + shown_len as u16;
        f.set_cursor_position(Position::new(
            x.min(inner.right().saturating_sub(1)),
            inner.y,
        ));
    }
    let list = Rect {
        y: inner.y + 1,
        height: inner.height - 1,
        ..inner
    };
    if app.snapshot.is_none() {
        f.render_widget(
            hint(app, "indexing… symbols appear when the first pass ends"),
            list,
        );
        return;
    }
    if app.mode != SearchMode::Symbols {
        draw_hits(f, app, list);
        return;
    }
    let h = list.height as usize;
    let sel = app.search.selected;
    follow(sel, &mut app.search.offset, h);
    let mut lines = Vec::with_capacity(h);
    for i in app.search.offset..app.search.offset + h {
        let Some(sym) = app.search.get(i).cloned() else {
            break;
        };
        let hits = app.search.indices(&sym.qualified_name, &mut app.matcher);
        let t = &app.theme;
        let name_start = sym.qualified_name.chars().count()
            - sym
                .name
                .chars()
                .count()
                .min(sym.qualified_name.chars().count());
        let mut spans = vec![Span::styled(
            format!("{} ", kind_marker(sym.kind)),
            t.get("ui.kind"),
        )];
        // The path and the module side of the name give way, the line never (`fit_row`).
        let qn = safe(&sym.qualified_name);
        // Folded generated twins (`+3`: its .js, .cjs and .d.ts copies).
        let twins = if sym.twins > 0 {
            format!(" +{}", sym.twins)
        } else {
            String::new()
        };
        let fitted = super::fit_row(
            list.width as usize,
            3 + twins.chars().count(),
            &qn,
            &safe(&sym.file),
            &format!(":{}", sym.line),
        );
        for (ci, c) in sym.qualified_name.chars().enumerate() {
            if fitted.ellipsis_at(ci) {
                spans.push(Span::styled("…", t.get("ui.text")));
            }
            if !fitted.shows(ci) {
                continue;
            }
            let mut st = if ci >= name_start {
                t.get("ui.text")
                    .add_modifier(ratatui::style::Modifier::BOLD)
            } else {
                t.get("ui.text")
            };
            if hits.binary_search(&(ci as u32)).is_ok() {
                st = st.patch(t.get("ui.match"));
            }
            let s = safe(c.encode_utf8(&mut [0; 4])).into_owned();
            spans.push(Span::styled(s, st));
        }
        if !twins.is_empty() {
            spans.push(Span::styled(twins, t.get("ui.text.dim")));
        }
        spans.push(Span::styled(fitted.place, t.get("ui.path")));
        let mut line = Line::from(spans);
        if i == sel {
            line = line.patch_style(t.get("ui.selection"));
        }
        lines.push(line);
    }
    if lines.is_empty() {
        let msg = if app.search.busy() {
            "matching…"
        } else {
            "no symbol matches"
        };
        f.render_widget(hint(app, msg), list);
        return;
    }
    f.render_widget(Paragraph::new(lines), list);
}

/// Chunk hits: kind, id, `:start-end`, score (and the ranks in both lists in hybrid mode).
fn draw_hits(f: &mut Frame, app: &mut App, list: Rect) {
    let h = list.height as usize;
    let sel = app.chunks.selected;
    follow(sel, &mut app.chunks.offset, h);
    let t = &app.theme;
    let mut lines = Vec::with_capacity(h);
    for (i, hit) in app
        .chunks
        .hits
        .iter()
        .enumerate()
        .skip(app.chunks.offset)
        .take(h)
    {
        // Hybrid: the hit's rank in the text (t) and semantic (s) lists, `-` when absent.
        let ranks = match (app.mode, hit.text_rank, hit.semantic_rank) {
            (SearchMode::Hybrid, t, s) => format!(
                " t{} s{}",
                t.map_or("-".into(), |r| r.to_string()),
                s.map_or("-".into(), |r| r.to_string())
            ),
            _ => String::new(),
        };
        // The in-file name, then the path and the range with the score, laid out as the
        // symbol rows are (`fit_row`): a range cut at the edge (`:29` for 290-301) would
        // be a wrong one. A line-window chunk (the id is its file) shows the file name.
        let (path, name) = hit.id.split_once("::").unwrap_or((
            hit.id.as_str(),
            hit.id.rsplit('/').next().unwrap_or(&hit.id),
        ));
        let name = safe(name);
        let tail = format!(
            ":{}-{}  {:.3}{ranks}",
            hit.start_line, hit.end_line, hit.score
        );
        let kind = format!("{:<8} ", safe(&hit.kind));
        let fixed = kind.chars().count();
        let fitted = super::fit_row(list.width as usize, fixed, &name, &safe(path), &tail);
        let mut line = Line::from(vec![
            Span::styled(kind, t.get("ui.kind")),
            Span::styled(super::cut_name(&name, &fitted), t.get("ui.text")),
            Span::styled(fitted.place, t.get("ui.path")),
        ]);
        if i == sel {
            line = line.patch_style(t.get("ui.selection"));
        }
        lines.push(line);
    }
    if lines.is_empty() {
        let msg = match (
            &app.chunks.error,
            app.chunks.busy(),
            app.search.query.is_empty(),
        ) {
            (Some(e), _, _) => e.clone(),
            (None, true, _) => match app.chunks.building() {
                Some(b) => format!(
                    "{} (once per snapshot; the query runs when it is done)",
                    crate::tui::chunks::building_line(&b)
                ),
                None => "searching…".to_string(),
            },
            (None, false, true) => "type words to search the code".to_string(),
            (None, false, false) => "no chunk matches".to_string(),
        };
        f.render_widget(hint(app, &msg), list);
        return;
    }
    f.render_widget(Paragraph::new(lines), list);
}
