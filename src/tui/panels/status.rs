//! The status bar: indexing phase and progress bar (or, once the graph is on screen, the
//! search indexes' background build), the last error or message (before the counts,
//! which give way to it), counts, the cache notice, and the help key.

use std::sync::atomic::Ordering;

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{count, fit_spans, safe};
use crate::tui::app::App;
use crate::worker::Phase;

pub(super) fn draw(f: &mut Frame, app: &mut App, area: Rect) {
    let building = app.chunks.building();
    app.chunks
        .drawn(building.is_some() && app.status.phase == Phase::Idle);
    let t = &app.theme;
    let s = &app.status;
    let mut spans = Vec::new();
    if s.phase != Phase::Idle {
        spans.push(Span::styled(
            format!(" indexing: {} ", s.phase.label()),
            t.get("ui.title"),
        ));
        if s.total > 0 {
            let w = 12u64;
            let fill = (s.done * w / s.total.max(1)).min(w) as usize;
            spans.push(Span::styled("█".repeat(fill), t.get("ui.progress")));
            spans.push(Span::styled(
                "░".repeat(w as usize - fill),
                t.get("ui.text.dim"),
            ));
            spans.push(Span::raw(format!(" {}/{} ", s.done, s.total)));
        }
    } else if let Some(b) = building {
        // The search indexes build in the background once the graph is on screen: their
        // step and bar, as indexing's.
        spans.push(Span::styled(" search index: ", t.get("ui.title")));
        let (total, done) = (
            b.progress.total.load(Ordering::Relaxed),
            b.progress.done.load(Ordering::Relaxed),
        );
        if total > 0 && done < total {
            let w = 12u64;
            let fill = (done * w / total.max(1)).min(w) as usize;
            spans.push(Span::styled("█".repeat(fill), t.get("ui.progress")));
            spans.push(Span::styled(
                "░".repeat(w as usize - fill),
                t.get("ui.text.dim"),
            ));
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(
            format!("{} ", crate::tui::chunks::building_step(&b)),
            t.get("ui.text.dim"),
        ));
    } else if app.snapshot.is_some() {
        spans.push(Span::styled(" ready ", t.get("ui.progress")));
    }
    // A message or error (an export written and where, a toggle) is read once and then
    // gone: it comes before the counts, which are always there, and they give way to it.
    // A notice (the cache's state, "up to date") stays until the next one: it follows
    // the counts, as before.
    let mut notice = None;
    if let Some(e) = &s.error {
        spans.push(Span::styled(format!("· {} ", safe(e)), t.get("ui.error")));
    } else if let Some(m) = &s.message {
        spans.push(Span::styled(format!("· {} ", safe(m)), t.get("ui.notice")));
    } else if let Some(n) = &s.notice {
        notice = Some(Span::styled(
            format!("· {} ", safe(n)),
            t.get("ui.text.dim"),
        ));
    }
    if let Some(snap) = &app.snapshot {
        let st = &snap.index.stats;
        spans.push(Span::raw(format!(
            "· {} · {} · {} ",
            count(
                (st.files_indexed + st.files_windowed) as usize,
                "file",
                "files"
            ),
            count(st.definitions as usize, "symbol", "symbols"),
            count(
                st.edges.get("calls").copied().unwrap_or(0) as usize,
                "call",
                "calls"
            )
        )));
        // Files a user would expect in the index but that are not in it (unknown
        // extensions and symlinks are by design, not counted here): `S` lists them.
        let skipped = crate::tui::app::left_out(&snap.index).len();
        if skipped > 0 {
            spans.push(Span::styled(
                format!("· {skipped} skipped (binary, too large or unreadable; S lists) "),
                t.get("ui.text.dim"),
            ));
        }
    }
    spans.extend(notice);
    let help = Span::styled(" ? help ", t.get("ui.help.key"));
    let help_w = help.width() as u16;
    let spans = fit_spans(spans, area.width.saturating_sub(help_w) as usize);
    f.render_widget(
        Paragraph::new(Line::from(spans)).style(t.get("ui.statusbar")),
        Rect {
            width: area.width.saturating_sub(help_w),
            ..area
        },
    );
    f.render_widget(
        Paragraph::new(Line::from(help)).style(t.get("ui.statusbar")),
        Rect {
            x: area.right().saturating_sub(help_w),
            width: help_w.min(area.width),
            ..area
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_too_long_for_the_bar_ends_in_an_ellipsis() {
        let spans = vec![
            Span::raw(" ready "),
            Span::raw("· cache rebuilt: nodes.bin: checksum mismatch (the snapshot was damaged) "),
        ];
        let out = fit_spans(spans.clone(), 30);
        let text: String = out.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, " ready · cache rebuilt: nodes…");
        assert_eq!(out.iter().map(Span::width).sum::<usize>(), 30);
        assert_eq!(
            fit_spans(spans.clone(), 200),
            spans,
            "what fits is left alone"
        );
        let wide = fit_spans(vec![Span::raw("索引索引索引")], 6);
        assert_eq!(
            wide[0].content, "索引…",
            "wide characters are counted as two columns"
        );
    }
}
