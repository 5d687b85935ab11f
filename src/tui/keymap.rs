//! Keys to [`Action`]s: one table ([`BINDINGS`]) that both the event loop and the `?` help
//! overlay read, so the help always lists exactly the keys that work. Keys follow vim and
//! less habits; every action also has a plain key (arrows, Enter, Esc).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// A user intent. Panels never act on keys directly: keys become actions, the app applies
/// actions to its state, then everything is drawn again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the program (restoring the terminal).
    Quit,
    /// Focus the next panel (search → call tree → source → impact).
    FocusNext,
    /// Focus the previous panel.
    FocusPrev,
    /// Focus the search box from any other panel.
    FocusSearch,
    /// Show or hide the help overlay.
    ToggleHelp,
    /// Leave a text input or close an overlay.
    Escape,
    /// Move the selection (or scroll) up one line.
    Up,
    /// Move the selection (or scroll) down one line.
    Down,
    /// Up one page.
    PageUp,
    /// Down one page.
    PageDown,
    /// To the first line.
    Top,
    /// To the last line.
    Bottom,
    /// Expand the selected call-tree node (lazy: neighbours are computed now).
    Expand,
    /// Collapse the selected node, or go to its parent.
    Collapse,
    /// Expand the selected call-tree node's subtree that many levels down (the count typed
    /// before, else the `tree_expand_depth` setting), within a row budget.
    ExpandDepth,
    /// A count (1-9) for the next [`Action::ExpandDepth`], as vim takes a count before a
    /// command.
    Count(u8),
    /// Show the selected symbol's id in the status bar (and copy it to the clipboard when
    /// the `clipboard_osc52` setting allows).
    CopyId,
    /// Show the selected symbol's `path:line` in the status bar (and copy it, as
    /// [`Action::CopyId`]).
    CopyLocation,
    /// Search: focus the selected symbol. Call tree: re-root on the selected node.
    Activate,
    /// Previous root in the history.
    Back,
    /// Next root in the history.
    Forward,
    /// Switch the call tree between callers and callees.
    ToggleDirection,
    /// Show the outline of the current file in the call tree's place, or the tree again.
    ToggleOutline,
    /// Show the type hierarchy (base types, subtypes) of the shown symbol in the call
    /// tree's place, or the tree again.
    ToggleHierarchy,
    /// Show the references (uses as a value, imports naming it) of the shown symbol in
    /// the call tree's place, or the tree again.
    ToggleReferences,
    /// Source panel: the cursor to the previous word of its line.
    WordLeft,
    /// Source panel: the cursor to the next word of its line.
    WordRight,
    /// Show the repository's dead-code candidates in the call tree's place, or the tree
    /// again.
    ToggleDead,
    /// Hide or show test code in the call tree.
    ToggleTests,
    /// Hide or show `unique_name` (guessed) edges in the call tree.
    ToggleUniqueName,
    /// Cycle the search box through symbols, text, semantic and hybrid search.
    CycleSearchMode,
    /// Fold generated twins (a symbol's `.js`, `.cjs`, `.d.ts` copies) under one row, or
    /// list them all.
    ToggleTwins,
    /// Open `$EDITOR` at the shown line.
    OpenEditor,
    /// Export the shown subgraph as JSON (opens the path prompt).
    Export,
    /// Reconcile with the disk now: re-read changed files (the watcher does it on its own
    /// unless watching is impossible or off).
    Reindex,
    /// List the files left out of the index (binary, too large, unreadable) and why.
    ListSkipped,
    /// Suspend to the shell (Ctrl-Z); the terminal is restored and set up again on `fg`.
    Suspend,
    /// Delete the character before the cursor in a text input.
    DeleteChar,
    /// Delete the word before the cursor in a text input.
    DeleteWord,
    /// Clear a text input.
    ClearInput,
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere, text inputs included.
    Global,
    /// Everywhere except a text input (letters type there).
    Panels,
    /// Only in a text input (the search box or a prompt).
    Input,
    /// Only in the call tree.
    Tree,
    /// Only in the source panel.
    Source,
}

/// One key binding: keys (any of them), where it applies, what it does, its help text.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The keys, as (code, modifiers).
    pub keys: &'static [(KeyCode, KeyModifiers)],
    /// How the help overlay writes the keys.
    pub label: &'static str,
    /// Where it applies.
    pub scope: Scope,
    /// The action.
    pub action: Action,
    /// One line of help.
    pub help: &'static str,
}

const N: KeyModifiers = KeyModifiers::NONE;
const C: KeyModifiers = KeyModifiers::CONTROL;
const S: KeyModifiers = KeyModifiers::SHIFT;

const fn b(
    keys: &'static [(KeyCode, KeyModifiers)],
    label: &'static str,
    scope: Scope,
    action: Action,
    help: &'static str,
) -> Binding {
    Binding {
        keys,
        label,
        scope,
        action,
        help,
    }
}

use Action as A;
use KeyCode as K;
use Scope as Sc;

/// Every binding, in the order the help overlay lists them. Printable characters typed in
/// a text input that no `Input`/`Global` binding claims are inserted as text.
pub const BINDINGS: &[Binding] = &[
    b(&[(K::Char('c'), C)], "Ctrl-c", Sc::Global, A::Quit, "quit"),
    b(
        &[(K::Char('q'), N)],
        "q",
        Sc::Panels,
        A::Quit,
        "quit (Esc first in a text input)",
    ),
    b(
        &[(K::Char('?'), N), (K::Char('?'), S)],
        "?",
        Sc::Panels,
        A::ToggleHelp,
        "this help",
    ),
    b(
        &[(K::F(1), N)],
        "F1",
        Sc::Global,
        A::ToggleHelp,
        "this help, from the search box too",
    ),
    b(
        &[(K::Char('/'), N)],
        "/",
        Sc::Panels,
        A::FocusSearch,
        "search symbols (from any other panel)",
    ),
    b(
        &[(K::Char('t'), C), (K::F(2), N)],
        "Ctrl-t F2",
        Sc::Global,
        A::CycleSearchMode,
        "search mode: symbols, text, semantic, hybrid",
    ),
    b(
        &[(K::F(3), N)],
        "F3",
        Sc::Global,
        A::ToggleTwins,
        "search: fold/list generated twins (.js, .cjs, .d.ts copies)",
    ),
    b(
        &[(K::Tab, N)],
        "Tab",
        Sc::Global,
        A::FocusNext,
        "next panel",
    ),
    b(
        &[(K::BackTab, N), (K::BackTab, S)],
        "Shift-Tab",
        Sc::Global,
        A::FocusPrev,
        "previous panel",
    ),
    b(
        &[(K::Esc, N)],
        "Esc",
        Sc::Global,
        A::Escape,
        "leave the input / close the overlay",
    ),
    b(
        &[(K::Up, N), (K::Char('p'), C)],
        "Up Ctrl-p",
        Sc::Global,
        A::Up,
        "move up",
    ),
    b(
        &[(K::Down, N), (K::Char('n'), C)],
        "Down Ctrl-n",
        Sc::Global,
        A::Down,
        "move down",
    ),
    b(&[(K::Char('k'), N)], "k", Sc::Panels, A::Up, "move up"),
    b(&[(K::Char('j'), N)], "j", Sc::Panels, A::Down, "move down"),
    b(
        &[(K::PageUp, N), (K::Char('b'), C)],
        "PgUp Ctrl-b",
        Sc::Global,
        A::PageUp,
        "page up",
    ),
    b(
        &[(K::PageDown, N), (K::Char('f'), C)],
        "PgDn Ctrl-f",
        Sc::Global,
        A::PageDown,
        "page down",
    ),
    b(
        &[(K::Char('g'), N), (K::Home, N)],
        "g Home",
        Sc::Panels,
        A::Top,
        "first line",
    ),
    b(
        &[(K::Char('G'), N), (K::Char('G'), S), (K::End, N)],
        "G End",
        Sc::Panels,
        A::Bottom,
        "last line",
    ),
    b(
        &[(K::Enter, N)],
        "Enter",
        Sc::Global,
        A::Activate,
        "search: focus symbol; tree: re-root; source: go to definition",
    ),
    b(
        &[(K::Right, N), (K::Char('l'), N)],
        "Right l",
        Sc::Tree,
        A::Expand,
        "expand node",
    ),
    b(
        &[(K::Left, N), (K::Char('h'), N)],
        "Left h",
        Sc::Tree,
        A::Collapse,
        "collapse node / go to parent",
    ),
    b(
        &[(K::Char('*'), N), (K::Char('*'), S)],
        "*",
        Sc::Tree,
        A::ExpandDepth,
        "expand the subtree: tree_expand_depth levels (3), a count first for more (2*)",
    ),
    b(
        &[
            (K::Char('1'), N),
            (K::Char('2'), N),
            (K::Char('3'), N),
            (K::Char('4'), N),
            (K::Char('5'), N),
            (K::Char('6'), N),
            (K::Char('7'), N),
            (K::Char('8'), N),
            (K::Char('9'), N),
        ],
        "1-9",
        Sc::Tree,
        A::Count(0),
        "count for the next * (levels to expand)",
    ),
    b(
        &[(K::Left, N), (K::Char('h'), N), (K::Char('b'), N)],
        "Left h b",
        Sc::Source,
        A::WordLeft,
        "source: cursor to the previous word (Up/Down/j/k: line)",
    ),
    b(
        &[(K::Right, N), (K::Char('l'), N), (K::Char('w'), N)],
        "Right l w",
        Sc::Source,
        A::WordRight,
        "source: cursor to the next word",
    ),
    b(
        &[(K::Backspace, N), (K::Char('['), N), (K::Char('o'), C)],
        "Bksp [ Ctrl-o",
        Sc::Panels,
        A::Back,
        "back in root history",
    ),
    b(
        &[(K::Char(']'), N)],
        "]",
        Sc::Panels,
        A::Forward,
        "forward in root history",
    ),
    b(
        &[(K::Char('c'), N)],
        "c",
        Sc::Panels,
        A::ToggleDirection,
        "call tree: callers <-> callees",
    ),
    b(
        &[(K::Char('o'), N)],
        "o",
        Sc::Panels,
        A::ToggleOutline,
        "outline of the shown file (Enter: callers of a member) / back to the tree",
    ),
    b(
        &[(K::Char('i'), N)],
        "i",
        Sc::Panels,
        A::ToggleHierarchy,
        "type hierarchy: base types and subtypes (Enter: that type's) / back",
    ),
    b(
        &[(K::Char('R'), N), (K::Char('R'), S)],
        "R",
        Sc::Panels,
        A::ToggleReferences,
        "references: used as a value, imports naming it (Enter: callers) / back",
    ),
    b(
        &[(K::Char('D'), N), (K::Char('D'), S)],
        "D",
        Sc::Panels,
        A::ToggleDead,
        "dead-code candidates (no callers, not API; Enter: go to it) / back",
    ),
    b(
        &[(K::Char('t'), N)],
        "t",
        Sc::Panels,
        A::ToggleTests,
        "call tree: hide/show test code",
    ),
    b(
        &[(K::Char('u'), N)],
        "u",
        Sc::Panels,
        A::ToggleUniqueName,
        "call tree: hide/show unique_name (guessed) edges",
    ),
    b(
        &[(K::Char('e'), N)],
        "e",
        Sc::Panels,
        A::OpenEditor,
        "open $EDITOR at the shown line (source: the cursor's)",
    ),
    b(
        &[(K::Char('y'), N)],
        "y",
        Sc::Panels,
        A::CopyId,
        "copy the selected id (status bar; clipboard if clipboard_osc52)",
    ),
    b(
        &[(K::Char('Y'), N), (K::Char('Y'), S)],
        "Y",
        Sc::Panels,
        A::CopyLocation,
        "copy the selected path:line (status bar; clipboard if clipboard_osc52)",
    ),
    b(
        &[(K::Char('x'), N)],
        "x",
        Sc::Panels,
        A::Export,
        "export the shown subgraph as JSON",
    ),
    b(
        &[(K::Char('r'), N), (K::F(5), N)],
        "r F5",
        Sc::Panels,
        A::Reindex,
        "re-read changed files now (reconcile with the disk)",
    ),
    b(
        &[(K::Char('S'), N), (K::Char('S'), S)],
        "S",
        Sc::Panels,
        A::ListSkipped,
        "list the files left out of the index, and why",
    ),
    b(
        &[(K::Char('z'), C)],
        "Ctrl-z",
        Sc::Global,
        A::Suspend,
        "suspend to the shell (fg resumes)",
    ),
    b(
        &[(K::Backspace, N)],
        "Bksp",
        Sc::Input,
        A::DeleteChar,
        "delete a character",
    ),
    b(
        &[(K::Char('w'), C), (K::Backspace, C)],
        "Ctrl-w",
        Sc::Input,
        A::DeleteWord,
        "delete a word",
    ),
    b(
        &[(K::Char('u'), C)],
        "Ctrl-u",
        Sc::Input,
        A::ClearInput,
        "clear the input",
    ),
];

/// What a key means: an action, text to insert, or nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMeaning {
    /// A bound action.
    Action(Action),
    /// A printable character for the focused text input.
    Insert(char),
}

/// Maps a key event. `in_input` says a text input has focus; `in_tree` that the call tree
/// has, `in_source` the source panel. Key releases (kitty protocol) are ignored.
pub fn map_key(
    key: KeyEvent,
    in_input: bool,
    in_tree: bool,
    in_source: bool,
) -> Option<KeyMeaning> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let mods = key.modifiers - KeyModifiers::SHIFT;
    let applies = |s: Scope| match s {
        Scope::Global => true,
        Scope::Panels => !in_input,
        Scope::Input => in_input,
        Scope::Tree => in_tree && !in_input,
        Scope::Source => in_source && !in_input,
    };
    // Input-scoped keys first, so Backspace deletes in an input and goes back elsewhere.
    let ordered = BINDINGS
        .iter()
        .filter(|b| b.scope == Scope::Input)
        .chain(BINDINGS.iter().filter(|b| b.scope != Scope::Input));
    for b in ordered {
        if !applies(b.scope) {
            continue;
        }
        let hit = b.keys.iter().any(|&(code, m)| {
            code == key.code && (m == key.modifiers || (m - KeyModifiers::SHIFT) == mods)
        });
        if hit {
            // One binding for the nine digits: the action carries the one pressed.
            if let (Action::Count(_), KeyCode::Char(c)) = (b.action, key.code) {
                return c
                    .to_digit(10)
                    .map(|d| KeyMeaning::Action(Action::Count(d as u8)));
            }
            return Some(KeyMeaning::Action(b.action));
        }
    }
    if in_input {
        if let KeyCode::Char(c) = key.code {
            if !mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) && !c.is_control() {
                return Some(KeyMeaning::Insert(c));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, m)
    }

    #[test]
    fn letters_type_in_inputs_and_act_in_panels() {
        let q = k(K::Char('q'), N);
        assert_eq!(
            map_key(q, true, false, false),
            Some(KeyMeaning::Insert('q'))
        );
        assert_eq!(
            map_key(q, false, false, false),
            Some(KeyMeaning::Action(A::Quit))
        );
        let l = k(K::Char('l'), N);
        assert_eq!(
            map_key(l, false, true, false),
            Some(KeyMeaning::Action(A::Expand))
        );
        assert_eq!(map_key(l, false, false, false), None);
        assert_eq!(
            map_key(k(K::Char('4'), N), false, true, false),
            Some(KeyMeaning::Action(A::Count(4)))
        );
        assert_eq!(
            map_key(k(K::Char('4'), N), true, false, false),
            Some(KeyMeaning::Insert('4')),
            "digits type in the search box"
        );
        assert_eq!(
            map_key(l, false, false, true),
            Some(KeyMeaning::Action(A::WordRight))
        );
    }

    #[test]
    fn backspace_deletes_in_inputs_and_goes_back_elsewhere() {
        let bs = k(K::Backspace, N);
        assert_eq!(
            map_key(bs, true, false, false),
            Some(KeyMeaning::Action(A::DeleteChar))
        );
        assert_eq!(
            map_key(bs, false, true, false),
            Some(KeyMeaning::Action(A::Back))
        );
    }

    #[test]
    fn shifted_letters_and_question_mark_work_with_or_without_shift_reported() {
        assert_eq!(
            map_key(k(K::Char('G'), S), false, false, false),
            Some(KeyMeaning::Action(A::Bottom))
        );
        assert_eq!(
            map_key(k(K::Char('?'), S), false, false, false),
            Some(KeyMeaning::Action(A::ToggleHelp))
        );
        assert_eq!(
            map_key(k(K::Char('?'), S), true, false, false),
            Some(KeyMeaning::Insert('?'))
        );
        // F1 types nothing, so it opens the help from the search box too (the focus
        // at start).
        assert_eq!(
            map_key(k(K::F(1), N), true, false, false),
            Some(KeyMeaning::Action(A::ToggleHelp))
        );
    }
}
