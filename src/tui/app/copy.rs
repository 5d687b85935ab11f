//! `y` and `Y`: the selected symbol's id or `path:line`, written to the status bar and,
//! only when the `clipboard_osc52` setting opts in, left in [`App::clipboard`] for the
//! event loop to send as an OSC 52 sequence. Its own module because it reads the selection
//! of every panel, and because it is the one place the UI may set the clipboard: nothing
//! read from a file ever reaches the terminal except through here, base64-encoded.

use base64::Engine as _;

use super::{App, Focus};
use crate::index::Walk;
use crate::tui::impact::ImpactRow;
use crate::tui::outline::Outline;
use crate::tui::tree::Row;

/// The OSC 52 sequence that sets the terminal's clipboard selection (`c`) to `text`: the
/// base64 (RFC 4648, padded) of its UTF-8 bytes between `ESC ] 52 ; c ;` and `BEL`, so no
/// byte of the text reaches the terminal as itself (a path with an escape in it cannot
/// end the sequence early).
pub fn osc52(text: &str) -> String {
    format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

impl App {
    /// What `y` (`location` false: the node id) or `Y` (`location` true: `path:line`,
    /// 1-based) copies from the focused panel: the search selection, the selected row of
    /// the tree or of the view in its place (a callers row's line is its call site, as
    /// the row shows), the definition around the source cursor (the file when there is
    /// none) with the cursor's line, or the impact panel's selected caller, member or
    /// file. `None` when nothing is selected.
    pub fn copy_target(&self, location: bool) -> Option<String> {
        let g = &self.snapshot.as_ref()?.index.graph;
        let place = |id: &str, line: Option<u32>| -> Option<String> {
            let n = g.node(id)?;
            Some(if location {
                format!("{}:{}", n.file, line.unwrap_or(n.start_line))
            } else {
                id.to_string()
            })
        };
        match self.focus {
            Focus::Search | Focus::Tree => {
                let id = self.shown_symbol()?;
                // A callers row shows the line of its call site: `Y` copies that line.
                let in_tree =
                    self.focus == Focus::Tree && self.list.is_none() && self.outline.is_none();
                let site = self
                    .tree
                    .as_ref()
                    .filter(|t| in_tree && t.direction == Walk::Callers)
                    .and_then(|t| match self.selected_tree_row()? {
                        Row::Node(i) => t.nodes[i].via.as_ref()?.sites.first().cloned(),
                        _ => None,
                    });
                match site {
                    Some(s) if location => Some(format!("{}:{}", s.file, s.line)),
                    _ => place(&id, None),
                }
            }
            Focus::Source => {
                if self.source.path.is_empty() {
                    return None;
                }
                let line = self.source.editor_line();
                if location {
                    return Some(format!("{}:{line}", self.source.path));
                }
                // The innermost definition around the cursor: the outline lists a file's
                // definitions with containers before their members.
                let inner = Outline::of(g, &self.source.path).and_then(|o| {
                    o.rows
                        .iter()
                        .filter(|r| {
                            g.node(&r.id)
                                .is_some_and(|n| n.start_line <= line && line <= n.end_line)
                        })
                        .max_by_key(|r| r.depth)
                        .map(|r| r.id.to_string())
                });
                Some(inner.unwrap_or_else(|| self.source.path.clone()))
            }
            Focus::Impact => {
                let v = self.impact.as_ref()?;
                match v.rows().get(v.selected)? {
                    ImpactRow::Caller(_, id) | ImpactRow::Member(id) => place(id, None),
                    ImpactRow::File(path) => Some(path.clone()),
                    _ => None,
                }
            }
        }
    }

    /// `y` / `Y`: the target in the status bar, and for the event loop to copy when the
    /// setting allows.
    pub(super) fn copy(&mut self, location: bool) {
        let Some(text) = self.copy_target(location) else {
            self.status.message = Some("nothing selected to copy".into());
            return;
        };
        self.status.message = Some(if self.settings.osc52 {
            format!("copied {text}")
        } else {
            format!("{text} (clipboard_osc52 = true in the config copies it)")
        });
        if self.settings.osc52 {
            self.clipboard = Some(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_is_the_base64_of_the_text_between_the_sequence_marks() {
        assert_eq!(osc52("a.py::f"), "\x1b]52;c;YS5weTo6Zg==\x07");
        // An escape in a path is encoded, never sent as itself.
        let s = osc52("x\x1b]52;c;Zm9v\x07.py");
        assert_eq!(s.matches('\x1b').count(), 1);
        assert_eq!(s.matches('\x07').count(), 1);
    }
}
