//! Drawing. Every panel renders from [`App`] state and does no I/O; the only state a
//! draw writes back is layout (panel areas for the mouse, scroll offsets that keep the
//! selection on screen). Text from the repository (names, paths, source lines) goes
//! through [`safe`] or the highlighter, so control characters are shown, never sent.

mod help;
mod impact;
mod search;
mod source;
mod status;
mod tree;

use std::borrow::Cow;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::app::{Areas, Focus, Overlay};
use super::App;
use crate::index::Kind;

/// Smallest usable terminal (columns, rows); below it the UI says so instead of drawing.
pub const MIN_SIZE: (u16, u16) = (60, 16);

/// Draws one frame.
pub fn draw(f: &mut Frame, app: &mut App) {
    let area = f.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        let msg = format!(
            "terminal too small: {}x{}, codegraph-tui needs at least {}x{} (q quits)",
            area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
        );
        f.render_widget(
            Paragraph::new(msg).wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    let [main, status_area] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(area);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Fill(1)]).areas(main);
    let search_h = (left.height * 2 / 5).max(6);
    let [search_area, tree_area] =
        Layout::vertical([Constraint::Length(search_h), Constraint::Fill(1)]).areas(left);
    let impact_h = (right.height / 3).max(6);
    let [source_area, impact_area] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(impact_h)]).areas(right);
    app.areas = Areas {
        search: search_area,
        tree: tree_area,
        source: source_area,
        impact: impact_area,
    };
    search::draw(f, app, search_area);
    tree::draw(f, app, tree_area);
    source::draw(f, app, source_area);
    impact::draw(f, app, impact_area);
    status::draw(f, app, status_area);
    match app.overlay.clone() {
        Overlay::None => {}
        Overlay::Help(scroll) => help::draw_help(f, app, scroll),
        Overlay::ExportPrompt(p) => help::draw_prompt(f, app, &p, None),
        Overlay::ConfirmOverwrite(p) => help::draw_prompt(f, app, &p, Some(())),
    }
}

/// A panel frame: rounded border, the title, the focus colour when focused.
fn panel<'a>(app: &App, title: Line<'a>, which: Focus) -> Block<'a> {
    let focused = app.focus == which && app.overlay == Overlay::None;
    let border = if focused {
        app.theme.get("ui.border.focus")
    } else {
        app.theme.get("ui.border")
    };
    let title_style = if focused {
        app.theme.get("ui.border.focus")
    } else {
        app.theme.get("ui.title")
    };
    Block::bordered()
        .border_type(if focused {
            ratatui::widgets::BorderType::Thick
        } else {
            ratatui::widgets::BorderType::Rounded
        })
        .border_style(border)
        .title(title.style(title_style))
}

/// Terminal-safe text: control characters shown as escapes.
pub fn safe(s: &str) -> Cow<'_, str> {
    crate::termtext::sanitize(s)
}

/// Columns a symbol or caller row of a panel `width` columns wide keeps for its file and
/// line when its name is long (the name is cut first): enough for `…/file_name.rs:1234`
/// (24), at most a third of the panel.
pub fn min_path(width: u16) -> usize {
    24.min(width as usize / 3)
}

/// How many leading chars of a `total`-char name to drop (then shown as `…`) so that it
/// fits `room` columns, cut at its start and never into its own last segment of `own`
/// chars (the definition's name, what tells rows apart): 0 when it fits.
pub fn name_cut(total: usize, own: usize, room: usize) -> usize {
    let room = if own < total {
        room.max(own + 1)
    } else {
        room.max(total)
    };
    if total > room {
        total - (room - 1)
    } else {
        0
    }
}

/// `path` (already [`safe`]) in at most `budget` chars: whole when it fits, else its last
/// components after `…/` (the file name and as many folders above it as fit), or the start
/// of the file name before `…` when even that is too long. A long path is cut at the
/// start, not the end: in a deep tree the end is what tells rows apart
/// (`…/examples/basic.rs`).
pub fn fit_path(path: &str, budget: usize) -> String {
    let len = path.chars().count();
    if len <= budget {
        return path.to_string();
    }
    let mut start = None;
    for (i, _) in path.match_indices('/') {
        if path[i..].chars().count() < budget {
            start = Some(i);
            break;
        }
    }
    match start {
        Some(i) => format!("…{}", &path[i..]),
        None => {
            let name = path.rsplit('/').next().unwrap_or(path);
            if name.chars().count() <= budget {
                return name.to_string();
            }
            let head: String = name.chars().take(budget.saturating_sub(1)).collect();
            format!("{head}…")
        }
    }
}

/// A two-letter marker for a node kind.
pub fn kind_marker(k: Kind) -> &'static str {
    match k {
        Kind::File => "fi",
        Kind::Module => "mo",
        Kind::Namespace => "ns",
        Kind::Class => "cl",
        Kind::Struct => "st",
        Kind::Enum => "en",
        Kind::Trait => "tr",
        Kind::Interface => "if",
        Kind::Impl => "im",
        Kind::Function => "fn",
        Kind::Method => "me",
        Kind::Constructor => "ct",
        Kind::Constant => "co",
        Kind::TypeAlias => "ty",
    }
}

/// Keeps `selected` within `offset..offset + height` by moving `offset`.
fn follow(selected: usize, offset: &mut usize, height: usize) {
    if height == 0 {
        return;
    }
    if selected < *offset {
        *offset = selected;
    } else if selected >= *offset + height {
        *offset = selected + 1 - height;
    }
}

/// A centered rectangle of at most `w`x`h` inside `r`.
fn centered(r: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(r.width);
    let h = h.min(r.height);
    Rect::new(r.x + (r.width - w) / 2, r.y + (r.height - h) / 2, w, h)
}

/// A dim one-line hint inside an empty panel.
fn hint<'a>(app: &App, text: &'a str) -> Paragraph<'a> {
    Paragraph::new(Line::styled(text, app.theme.get("ui.text.dim")))
        .style(Style::new())
        .wrap(ratatui::widgets::Wrap { trim: true })
}

#[cfg(test)]
mod tests {
    use super::fit_path;

    #[test]
    fn long_paths_keep_their_end() {
        let p =
            "registry/src/index.crates.io-1949cf8c6b5b557f/tantivy-0.22.1/examples/basic_search.rs";
        assert_eq!(fit_path(p, 200), p);
        assert_eq!(fit_path(p, 41), "…/tantivy-0.22.1/examples/basic_search.rs");
        assert_eq!(fit_path(p, 40), "…/examples/basic_search.rs");
        assert_eq!(fit_path(p, 30), "…/examples/basic_search.rs");
        assert_eq!(fit_path(p, 10), "basic_sea…");
        assert_eq!(fit_path("app/handlers.py", 11), "handlers.py");
        assert!(fit_path(p, 40).chars().count() <= 40);
        assert_eq!(fit_path("a/b.rs", 3), "b.…");
        assert_eq!(fit_path("é/üx.rs", 4), "üx.…");
        assert_eq!(fit_path("é/üx.rs", 0), "…");
    }
}
