//! The type hierarchy (`i`) and the references (`R`) in the call tree's place.

use codegraph_tui::tui::app::Focus;
use codegraph_tui::tui::Theme;
use ratatui::crossterm::event::KeyCode;

use super::{app_on, ctrl, inner_rows, key, screen, snapshot, typ};

/// `Base` ← `Mid` ← `Leaf`, `Base` ← `Other`; `callback` passed as a value in b.py;
/// b.py to e.py import a.py, two of them naming `callback`.
fn repo() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(
        repo.join("a.py"),
        "class Base:\n    def handle(self):\n        pass\n\n    def close(self):\n        pass\n\n\n\
         class Mid(Base):\n    def handle(self):\n        pass\n\n\n\
         class Leaf(Mid):\n    def close(self):\n        pass\n\n    def extra(self):\n        pass\n\n\n\
         class Other(Base):\n    pass\n\n\n\
         def callback(event):\n    return event\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("b.py"),
        "from a import callback\n\n\ndef register(handlers):\n    handlers.append(callback)\n",
    )
    .unwrap();
    // Imports of a.py: one naming only another class, one of the whole module, one
    // naming callback on a later line of a parenthesised list.
    std::fs::write(repo.join("c.py"), "from a import Base\n\nBase()\n").unwrap();
    std::fs::write(repo.join("d.py"), "import a\n\na.Other()\n").unwrap();
    std::fs::write(
        repo.join("e.py"),
        "from a import (\n    Other,\n    callback,\n)\n\nOther()\n",
    )
    .unwrap();
    (tmp, repo)
}

#[test]
fn the_type_hierarchy_shows_bases_subtypes_and_overrides() {
    let (_tmp, repo) = repo();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "Mid.handle");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('i'));
    assert_eq!(app.focus, Focus::Tree);
    let l = app.list.as_ref().expect("hierarchy");
    assert_eq!(&*l.root, "a.py::Mid", "a method's hierarchy is its class's");
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Type hierarchy of Mid"), "{s}");
    assert!(s.contains("▲ cl Base  a.py:1"), "{s}");
    assert!(s.contains("● cl Mid (this type)  a.py:9"), "{s}");
    assert!(s.contains("▼ cl Leaf overrides close  a.py:14"), "{s}");
    assert!(s.contains("Mid (hierarchy) · a.py"), "{s}");
    snapshot("hierarchy_mid", s);
    // Enter on Base: its hierarchy, with Leaf under Mid and Other beside it.
    let base = app
        .list
        .as_ref()
        .unwrap()
        .rows
        .iter()
        .position(|r| r.id.as_deref() == Some("a.py::Base"))
        .unwrap();
    app.list.as_mut().unwrap().selected = base;
    key(&mut app, KeyCode::Enter);
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Type hierarchy of Base"), "{s}");
    assert!(s.contains("  ▼ cl Mid overrides handle  a.py:9"), "{s}");
    assert!(s.contains("    ▼ cl Leaf overrides close  a.py:14"), "{s}");
    assert!(s.contains("  ▼ cl Other  a.py:22"), "{s}");
    // i again: the tree.
    key(&mut app, KeyCode::Char('i'));
    assert!(app.list.is_none());
    assert!(screen(&mut app, 120, 30).contains("Callers of Mid.handle"));
}

#[test]
fn references_list_uses_as_a_value_and_imports() {
    let (_tmp, repo) = repo();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "callback");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('R'));
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("References to callback"), "{s}");
    assert!(s.contains("→ fn register [import]  b.py:5"), "{s}");
    assert!(s.contains("imports naming callback:"), "{s}");
    assert!(s.contains("⇠ fi (top level)  b.py:1"), "{s}");
    assert!(s.contains("⇠ fi (top level)  e.py:1"), "{s}");
    assert!(!s.contains("c.py") && !s.contains("d.py"), "{s}");
    assert!(
        s.contains("2 other imports of a.py:") && s.contains("other names, or the whole module"),
        "{s}"
    );
    snapshot("references_callback", s);
    // The source shows the reference's site.
    assert_eq!(app.source.path, "b.py");
    assert_eq!(app.source.sites.first().map(|s| s.0), Some(5));
    // Enter: the referencing definition's callers.
    key(&mut app, KeyCode::Enter);
    assert!(app.list.is_none());
    assert_eq!(&**app.tree.as_ref().unwrap().root(), "b.py::register");
}

/// A method is imported through its class: `Base.handle`'s imports are those naming `Base`.
#[test]
fn references_of_a_method_list_the_imports_of_its_class() {
    let (_tmp, repo) = repo();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "Base.handle");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('R'));
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("References to Base.handle"), "{s}");
    assert!(s.contains("imports naming Base:"), "{s}");
    assert!(s.contains("⇠ fi (top level)  c.py:1"), "{s}");
    assert!(!s.contains("b.py:1") && !s.contains("e.py:1"), "{s}");
    assert!(s.contains("3 other imports of a.py:"), "{s}");
}

/// Two subclasses overriding three methods each, in a deep path: at 100 columns the long
/// `overrides …` note is shortened before the class names or their file and line are cut.
#[test]
fn a_long_overrides_note_gives_way_to_the_names_and_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let dir = repo.join("framework/contrib/handlers");
    std::fs::create_dir_all(&dir).unwrap();
    let methods = ["handle_request", "close_connection", "finish_response"];
    let body: String = methods
        .iter()
        .map(|m| format!("    def {m}(self):\n        pass\n\n"))
        .collect();
    std::fs::write(
        dir.join("requests.py"),
        format!(
            "class RequestHandlerBase:\n{body}\n\
             class StaticFilesRequestHandler(RequestHandlerBase):\n{body}\n\
             class MediaFilesRequestHandler(RequestHandlerBase):\n{body}"
        ),
    )
    .unwrap();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "RequestHandlerBase");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('i'));
    let l = app.list.as_ref().expect("hierarchy");
    let full = "overrides close_connection, finish_response, handle_request";
    assert_eq!(l.rows.iter().filter(|r| r.note == full).count(), 2);
    for w in [140, 100] {
        let s = screen(&mut app, w, 30);
        let a = app.areas.tree;
        let rows: Vec<String> = inner_rows(&s, a, 0);
        // The subclasses start at lines 12 and 23 (after the base's three methods).
        for (class, line) in [
            ("StaticFilesRequestHandler", 12),
            ("MediaFilesRequestHandler", 23),
        ] {
            let row = rows
                .iter()
                .find(|r| r.contains(&format!("▼ cl {class} ")))
                .unwrap_or_else(|| panic!("{w}: no whole {class} row:\n{s}"));
            let row = row.trim_end();
            assert!(row.ends_with(&format!(":{line}")), "{w}: {row:?}\n{s}");
            // With room for the class, the file name and a short note, all three show;
            // narrower, the note goes first.
            if w == 140 {
                assert!(
                    row.contains(&format!("{class} overrides  ")),
                    "{row:?}\n{s}"
                );
                assert!(
                    row.ends_with(&format!("requests.py:{line}")),
                    "{row:?}\n{s}"
                );
            }
        }
    }
}

/// A trait or interface's subtypes over `implements` edges, one Rust tree and one
/// TypeScript tree: the implementing types listed under it with the methods they define
/// for it marked as overrides.
#[test]
fn the_hierarchy_of_a_trait_or_interface_lists_its_implementations() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("src/lib.rs"),
        "pub trait Shape {\n    fn area(&self) -> f64;\n}\n\n\
         pub struct Circle {\n    r: f64,\n}\n\n\
         impl Shape for Circle {\n    fn area(&self) -> f64 {\n        self.r * self.r\n    }\n}\n\n\
         pub struct Unit;\n\n\
         impl Shape for Unit {\n    fn area(&self) -> f64 {\n        1.0\n    }\n}\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("src/view.ts"),
        "export interface Widget {\n  draw(): void;\n}\n\n\
         export class Button implements Widget {\n  draw(): void {}\n  click(): void {}\n}\n",
    )
    .unwrap();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "Shape");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('i'));
    let l = app.list.as_ref().expect("hierarchy");
    assert_eq!(&*l.root, "src/lib.rs::Shape");
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Type hierarchy of Shape"), "{s}");
    assert!(
        s.contains("▼ st Circle overrides area  src/lib.rs:5"),
        "{s}"
    );
    assert!(s.contains("▼ st Unit overrides area  src/lib.rs:15"), "{s}");
    key(&mut app, KeyCode::Char('i'));
    key(&mut app, KeyCode::Char('/'));
    ctrl(&mut app, 'u');
    typ(&mut app, "Widget");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('i'));
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Type hierarchy of Widget"), "{s}");
    assert!(
        s.contains("▼ cl Button overrides draw  src/view.ts:5"),
        "{s}"
    );
}
