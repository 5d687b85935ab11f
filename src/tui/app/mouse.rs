//! Mouse input: a click focuses the panel under it and selects the row, the wheel
//! scrolls. Its own module because it hit-tests against the last frame's [`Areas`] (the
//! one place the state looks at screen geometry).
//!
//! [`Areas`]: super::Areas

use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use super::{App, Focus, Overlay};
use crate::tui::chunks::SearchMode;

impl App {
    /// Applies a mouse event: a click focuses the panel under it and selects the row; the
    /// wheel scrolls the panel under the pointer.
    pub fn mouse(&mut self, m: MouseEvent) {
        if self.overlay != Overlay::None {
            if matches!(m.kind, MouseEventKind::Down(_))
                && matches!(self.overlay, Overlay::Help(_) | Overlay::Skipped(_))
            {
                self.overlay = Overlay::None;
            }
            return;
        }
        let pos = Position::new(m.column, m.row);
        let a = self.areas;
        let Some((panel, area)) = [
            (Focus::Search, a.search),
            (Focus::Tree, a.tree),
            (Focus::Source, a.source),
            (Focus::Impact, a.impact),
        ]
        .into_iter()
        .find(|(_, r)| r.contains(pos)) else {
            return;
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let d = if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                };
                if panel == Focus::Source {
                    // The wheel scrolls the view; the cursor stays where it is.
                    let h = self.areas.source.height.saturating_sub(2) as usize;
                    self.source.scroll =
                        (self.source.scroll as isize).saturating_add(d).max(0) as usize;
                    self.source.clamp(h);
                } else {
                    let keep = self.focus;
                    self.focus = panel;
                    self.move_by(d);
                    self.focus = keep;
                }
                self.sync_source(false);
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = panel;
                let inner_row = m.row.saturating_sub(area.y + 1) as usize;
                match panel {
                    Focus::Search if inner_row >= 1 && self.mode == SearchMode::Symbols => {
                        let target = self.search.offset + inner_row - 1;
                        if target < self.search.matched() {
                            self.search.selected = target;
                        }
                    }
                    Focus::Search if inner_row >= 1 => {
                        let target = self.chunks.offset + inner_row - 1;
                        if target < self.chunks.hits.len() {
                            self.chunks.selected = target;
                        }
                    }
                    // The view in the tree's place, when one is shown.
                    Focus::Tree if self.list.is_some() => {
                        if let Some(l) = &mut self.list {
                            let target = l.offset + inner_row;
                            if target < l.rows.len() {
                                l.selected = target;
                            }
                        }
                    }
                    Focus::Tree if self.outline.is_some() => {
                        if let Some(o) = &mut self.outline {
                            let target = o.offset + inner_row;
                            if target < o.rows.len() {
                                o.selected = target;
                            }
                        }
                    }
                    Focus::Impact => {
                        if let Some(v) = &mut self.impact {
                            let target = v.scroll + inner_row;
                            if target < v.rows().len() {
                                v.selected = target;
                            }
                        }
                    }
                    Focus::Tree => {
                        let n = self.tree_rows().len();
                        if let Some(t) = &mut self.tree {
                            let target = t.offset + inner_row;
                            if target < n {
                                t.selected = target;
                            }
                        }
                    }
                    _ => {}
                }
                self.sync_source(false);
            }
            _ => {}
        }
    }
}
