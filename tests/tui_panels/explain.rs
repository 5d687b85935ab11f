//! Enter does what a row means, or says why not: an unresolved row lists its calls (site,
//! name, reason, candidates; Enter on a candidate re-roots), a text window says it has no
//! call tree, Enter while indexing says so; a guessed edge says why it was guessed; a
//! filter that hides children leaves a row saying so.

use std::sync::Arc;
use std::time::Duration;

use codegraph_tui::tui::app::Focus;
use codegraph_tui::tui::tree::Row;
use codegraph_tui::tui::Theme;
use ratatui::crossterm::event::KeyCode;

use super::{app_on, ctrl, key, new_app, python, screen, snapshot, typ};

/// `get` defined in a.py and b.py, called three times from c.py without an import.
fn ambiguous_repo() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("a.py"), "def get():\n    return 1\n").unwrap();
    std::fs::write(repo.join("b.py"), "def get():\n    return 2\n").unwrap();
    std::fs::write(
        repo.join("c.py"),
        "def user():\n    get()\n    x = get()\n    return get()\n",
    )
    .unwrap();
    (tmp, repo)
}

#[test]
fn an_unresolved_row_lists_its_calls_and_candidates_re_root() {
    let (_tmp, repo) = ambiguous_repo();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "a.get");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.tree_rows()[1], Row::Unresolved { node: 0, count: 3 });
    key(&mut app, KeyCode::Down);
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("▸ ? 3 unresolved calls by this name"), "{s}");
    assert!(s.contains("Enter lists these calls"), "{s}");
    // Enter opens the list; it does not re-root on the row's node.
    key(&mut app, KeyCode::Enter);
    assert_eq!(&**app.tree.as_ref().unwrap().root(), "a.py::get");
    let rows = app.tree_rows();
    let calls = rows
        .iter()
        .filter(|r| matches!(r, Row::Call { .. }))
        .count();
    let cands = rows
        .iter()
        .filter(|r| matches!(r, Row::Candidate { .. }))
        .count();
    assert_eq!((calls, cands), (3, 6), "{rows:?}");
    key(&mut app, KeyCode::Down);
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("× get [ambiguous]  c.py:2:5"), "{s}");
    assert!(
        s.contains("? fn get  a.py:1") && s.contains("? fn get  b.py:1"),
        "{s}"
    );
    assert!(
        s.contains("get: ambiguous: several definitions match"),
        "{s}"
    );
    // The source shows the call's site in its caller.
    assert_eq!(app.source.path, "c.py");
    assert_eq!(app.source.sites, vec![(2, 5)]);
    snapshot("unresolved_calls_listed", s);
    // Enter on the call: its caller becomes the root (a possible caller of get).
    // Enter on a candidate: that definition becomes the root.
    let at = app
        .tree_rows()
        .iter()
        .position(|r| matches!(r, Row::Candidate { cand: 1, .. }))
        .unwrap();
    app.tree.as_mut().unwrap().selected = at;
    key(&mut app, KeyCode::Enter);
    assert_eq!(&**app.tree.as_ref().unwrap().root(), "b.py::get");
    key(&mut app, KeyCode::Backspace);
    // Left on the open row closes it.
    let at = app
        .tree_rows()
        .iter()
        .position(|r| matches!(r, Row::Unresolved { .. }))
        .unwrap();
    app.tree.as_mut().unwrap().selected = at;
    key(&mut app, KeyCode::Char('h'));
    assert!(!app
        .tree_rows()
        .iter()
        .any(|r| matches!(r, Row::Call { .. })));
    // Enter on a call row in the callers tree: its caller becomes the root.
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert_eq!(&**app.tree.as_ref().unwrap().root(), "c.py::user");
}

#[test]
fn a_guessed_edge_says_why() {
    let mut app = python();
    typ(&mut app, "main.configure");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('c'));
    let at = app
        .tree_rows()
        .iter()
        .position(|r| match r {
            Row::Node(i) => app.tree.as_ref().unwrap().nodes[*i]
                .id
                .ends_with("add_route"),
            _ => false,
        })
        .unwrap();
    app.tree.as_mut().unwrap().selected = at;
    let s = screen(&mut app, 240, 30);
    assert!(
        s.contains("[unique_name] a guess: the only python definition named add_route"),
        "{s}"
    );
}

#[test]
fn enter_on_a_text_window_or_while_indexing_says_why_not() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let notes: String = (1..=80)
        .map(|i| format!("line {i} of the notes about the flux capacitor\n"))
        .collect();
    std::fs::write(repo.join("notes.txt"), notes).unwrap();
    std::fs::write(repo.join("a.py"), "def f():\n    return 1\n").unwrap();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    ctrl(&mut app, 't');
    typ(&mut app, "flux capacitor");
    app.chunks.settle(Duration::from_secs(30));
    app.tick();
    let hit = app.chunks.selected_hit().expect("a hit").clone();
    assert_eq!(hit.id, "notes.txt");
    key(&mut app, KeyCode::Enter);
    assert!(app.tree.is_none(), "a tree for a text window");
    assert_eq!(app.focus, Focus::Search);
    let msg = app.status.message.clone().unwrap();
    assert!(
        msg.starts_with(&format!(
            "notes.txt:{}-{} is a window of text, not a definition",
            hit.start_line, hit.end_line
        )),
        "{msg}"
    );
    // The source panel shows the window's lines, not the whole file as a definition.
    assert_eq!(app.source.path, "notes.txt");
    assert_eq!(app.source.range, Some((hit.start_line, hit.end_line)));
    // Enter before the first index: it says why nothing opens.
    let mut app = new_app(repo.clone(), Theme::load("dark", None).unwrap());
    typ(&mut app, "f");
    key(&mut app, KeyCode::Enter);
    assert!(app.tree.is_none());
    assert_eq!(
        app.status.message.as_deref(),
        Some("indexing: symbols can be opened when the first pass ends")
    );
    let _ = Arc::new(());
}

/// Hiding test code that is a node's only caller leaves a row saying so, not an expanded
/// node that looks as if nothing calls it.
#[test]
fn a_filter_that_hides_every_child_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    std::fs::write(repo.join("a.py"), "def leaf():\n    return 1\n").unwrap();
    std::fs::write(
        repo.join("tests/test_leaf.py"),
        "from a import leaf\n\n\ndef test_leaf():\n    assert leaf()\n",
    )
    .unwrap();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "leaf");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('t'));
    assert_eq!(app.tree_rows()[1], Row::Hidden { node: 0, count: 1 });
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("· 1 hidden by a filter (t shows)"), "{s}");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert!(app
        .status
        .message
        .as_deref()
        .unwrap()
        .contains("t shows test code"));
}

/// A callees list's unresolved calls that are not `ambiguous` say their own reason: a
/// call into a standard module is `external`, a name missing from a repository module it
/// qualifies is `not_found`; neither has candidates.
#[test]
fn external_and_not_found_calls_say_why_they_are_unresolved() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("a.py"), "def helper():\n    return 1\n").unwrap();
    std::fs::write(
        repo.join("b.py"),
        "import json\nimport a\n\n\ndef user():\n    a.missing()\n    return json.dumps(a.helper())\n",
    )
    .unwrap();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "b.user");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('c'));
    let at = app
        .tree_rows()
        .iter()
        .position(|r| matches!(r, Row::Unresolved { count: 2, .. }))
        .unwrap_or_else(|| panic!("{:?}", app.tree_rows()));
    app.tree.as_mut().unwrap().selected = at;
    let s = screen(&mut app, 160, 30);
    assert!(
        s.contains("▸ ? 2 unresolved calls (targets unknown)"),
        "{s}"
    );
    key(&mut app, KeyCode::Enter);
    let rows = app.tree_rows();
    assert_eq!(
        rows.iter()
            .filter(|r| matches!(r, Row::Candidate { .. }))
            .count(),
        0,
        "{rows:?}"
    );
    let calls: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Row::Call { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(calls.len(), 2, "{rows:?}");
    // In site order: a.missing() on line 6, json.dumps(…) on line 7.
    let want = [
        (
            "× a.missing [not_found]  b.py:6:7",
            "missing: not_found: the qualifier points into the repo, the name is not there",
        ),
        (
            "× json.dumps [external]  b.py:7:17",
            "dumps: external: defined outside the repository",
        ),
    ];
    for (i, (row, detail)) in calls.into_iter().zip(want) {
        app.tree.as_mut().unwrap().selected = i;
        let s = screen(&mut app, 160, 30);
        assert!(s.contains(row), "{row}:\n{s}");
        // The detail line at the panel's foot wraps: read the tree panel's rows as one.
        let a = app.areas.tree;
        let panel: Vec<String> = s
            .lines()
            .skip(a.y as usize + 1)
            .take(a.height as usize - 2)
            .map(|l| {
                let r: String = l
                    .chars()
                    .skip(a.x as usize + 1)
                    .take(a.width as usize - 2)
                    .collect();
                r.trim().to_string()
            })
            .collect();
        assert!(panel.join(" ").contains(detail), "{detail}:\n{s}");
    }
}
