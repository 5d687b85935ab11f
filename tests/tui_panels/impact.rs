//! The impact panel as a list: the lower bound in one line with its counts, the callers
//! reachable (scrolled, selectable, Enter re-roots), the headline when unresolved calls
//! could outnumber the callers found.

use codegraph_tui::tui::app::Focus;
use codegraph_tui::tui::impact::ImpactRow;
use codegraph_tui::tui::Theme;
use ratatui::crossterm::event::KeyCode;

use super::{app_on, key, screen, snapshot, typ};

/// `leaf` with 20 callers `f00`..`f19`, each name defined twice and called ambiguously
/// once: 20 lower-bound reasons.
fn many_reasons() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let mut a = String::from("def leaf():\n    return 1\n\n");
    let mut b = String::new();
    let mut c = String::from("def user():\n");
    for i in 0..20 {
        a.push_str(&format!("def f{i:02}():\n    return leaf()\n\n"));
        b.push_str(&format!("def f{i:02}():\n    return 2\n\n"));
        c.push_str(&format!("    f{i:02}()\n"));
    }
    std::fs::write(repo.join("a.py"), a).unwrap();
    std::fs::write(repo.join("b.py"), b).unwrap();
    std::fs::write(repo.join("c.py"), c).unwrap();
    (tmp, repo)
}

#[test]
fn the_lower_bound_is_one_line_and_the_callers_stay_reachable() {
    let (_tmp, repo) = many_reasons();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "a.leaf");
    key(&mut app, KeyCode::Enter);
    assert_eq!(&**app.tree.as_ref().unwrap().root(), "a.py::leaf");
    let v = app.impact.as_ref().unwrap();
    assert_eq!(v.report.lower_bound_reasons.len(), 20);
    let s = screen(&mut app, 100, 30);
    assert!(
        s.contains("▸ lower bound: 20 reasons, 20 unresolved calls"),
        "{s}"
    );
    assert!(!s.contains("could be more c"), "reasons listed: {s}");
    assert!(s.contains("d1 a.f00  a.py:4"), "callers pushed off: {s}");
    let line = s.lines().find(|l| l.contains("risk ")).expect("headline");
    assert!(line.contains("20 direct") && !line.contains('…'), "{s}");
    snapshot("impact_lower_bound_summary", s);
    // Focus the impact panel: the lower-bound row opens and closes its reasons.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Impact);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    let s = screen(&mut app, 100, 30);
    assert!(s.contains("▾ lower bound"), "{s}");
    assert!(s.contains("could be more c"), "{s}");
    key(&mut app, KeyCode::Enter);
    assert!(!screen(&mut app, 100, 30).contains("could be more c"));
    // The list scrolls to its end and says where the selection is.
    key(&mut app, KeyCode::Char('G'));
    let rows = app.impact.as_ref().unwrap().rows();
    let s = screen(&mut app, 100, 30);
    assert!(s.contains(&format!("row {0}/{0}", rows.len())), "{s}");
    assert!(
        s.contains("  b.py") || s.contains("  c.py") || s.contains("  a.py"),
        "{s}"
    );
    // Enter on a caller makes it the root.
    let at = rows
        .iter()
        .position(|r| matches!(r, ImpactRow::Caller(1, id) if id == "a.py::f07"))
        .unwrap();
    app.impact.as_mut().unwrap().selected = at;
    key(&mut app, KeyCode::Enter);
    assert_eq!(&**app.tree.as_ref().unwrap().root(), "a.py::f07");
    assert_eq!(app.focus, Focus::Tree);
    assert!(screen(&mut app, 100, 30).contains("Callers of f07"));
}

/// No caller found but hundreds of unresolved calls of the name: the headline does not
/// read as a safe "risk low".
#[test]
fn the_headline_says_unknown_when_unresolved_calls_dominate() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("a.py"), "def get():\n    return 1\n").unwrap();
    std::fs::write(repo.join("b.py"), "def get():\n    return 2\n").unwrap();
    let calls: String = (0..30).map(|_| "    get()\n").collect();
    std::fs::write(repo.join("c.py"), format!("def user():\n{calls}")).unwrap();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "a.get");
    key(&mut app, KeyCode::Enter);
    let v = app.impact.as_ref().unwrap();
    assert_eq!(v.report.caller_count(), 0);
    assert_eq!(v.maybe_calls, 30);
    let s = screen(&mut app, 120, 30);
    assert!(
        s.contains("risk unknown · 0 found · 30 unresolved calls may add callers"),
        "{s}"
    );
    assert!(!s.contains("risk low ·"), "{s}");
    // Narrower (the screenshots' 110 columns): a shorter wording, never a cut count.
    let s = screen(&mut app, 110, 32);
    let line = s
        .lines()
        .find(|l| l.contains("risk unknown"))
        .expect("headline");
    assert!(
        line.contains("0 found") && line.contains("30 unresolved"),
        "{s}"
    );
    assert!(!line.contains('…'), "{s}");
}
