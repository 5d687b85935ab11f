//! Drawing. Every panel renders from [`App`] state and does no I/O; the only state a
//! draw writes back is layout (panel areas for the mouse, scroll offsets that keep the
//! selection on screen). Text from the repository (names, paths, source lines) goes
//! through [`safe`] or the highlighter, so control characters are shown, never sent.

mod fit;
mod help;
mod impact;
mod lists;
mod outline;
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

pub use self::fit::{
    cut_name, fit_line, fit_noted_row, fit_path, fit_row, fit_spans, keeps_name_and_file, min_path,
    Fitted,
};
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
        // Nothing of a build shows here: no redraw is due for its progress.
        app.chunks.drawn(app.chunks.building().is_some());
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
        help_page: app.areas.help_page,
    };
    search::draw(f, app, search_area);
    if app.list.is_some() {
        lists::draw(f, app, tree_area);
    } else if app.outline.is_some() {
        outline::draw(f, app, tree_area);
    } else {
        tree::draw(f, app, tree_area);
    }
    source::draw(f, app, source_area);
    impact::draw(f, app, impact_area);
    status::draw(f, app, status_area);
    match app.overlay.clone() {
        Overlay::None => {}
        Overlay::Help(scroll) => help::draw_help(f, app, scroll),
        Overlay::Skipped(scroll) => help::draw_skipped(f, app, scroll),
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

pub use super::words::count;

/// The selection's place in a list, for a panel's bottom title: ` row 120/904 `
/// (1-based), empty for an empty list.
pub fn position(selected: usize, len: usize) -> String {
    if len == 0 {
        String::new()
    } else {
        format!(" row {}/{len} ", selected.min(len - 1) + 1)
    }
}

/// How a title names a node: its in-file name (`BaseCommand.__call__`: the container
/// tells two `__call__` apart), or the file name for a file node.
pub fn title_name(n: &crate::index::Node) -> String {
    match n.kind {
        Kind::File => n.file.rsplit('/').next().unwrap_or(&n.file).to_string(),
        _ => n.id.split_once("::").map_or(&*n.id, |(_, r)| r).to_string(),
    }
}
