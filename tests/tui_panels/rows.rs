//! Rows that never lie: cut to a panel's width, a row keeps its line number and the last
//! two segments of its name (the path and the module side give way first), in the call
//! tree, the search results, the text hits and the impact list (the list views' rows are
//! in `dead` and `lists`).

use codegraph_tui::tui::Theme;
use ratatui::crossterm::event::KeyCode;

use super::{app_on, ctrl, inner_rows, key, screen, typ};

/// A repository with long paths and qualified names, definitions far down their files,
/// and two handler classes whose `__call__` methods both call `serve`.
pub(super) fn deep_repo() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let dir = repo.join("framework/contrib/staticfiles");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(repo.join("framework/__init__.py"), "").unwrap();
    std::fs::write(repo.join("framework/contrib/__init__.py"), "").unwrap();
    std::fs::write(dir.join("__init__.py"), "").unwrap();
    let pad = "#\n".repeat(280);
    std::fs::write(
        dir.join("serving_utilities.py"),
        format!("{pad}def serve_the_static_file_response(request):\n    return request\n"),
    )
    .unwrap();
    let mut handlers = String::from(
        "from framework.contrib.staticfiles.serving_utilities import serve_the_static_file_response\n",
    );
    handlers.push_str(&pad);
    for class in [
        "StaticFilesHandlerMixin",
        "StaticFilesHandler",
        "ASGIStaticFilesHandler",
    ] {
        handlers.push_str(&format!(
            "class {class}:\n    def __call__(self, request):\n        return serve_the_static_file_response(request)\n\n"
        ));
    }
    std::fs::write(dir.join("handlers.py"), handlers).unwrap();
    (tmp, repo)
}

#[test]
fn cut_caller_rows_keep_their_call_lines_and_tell_siblings_apart() {
    let (_tmp, repo) = deep_repo();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "serve_the_static_file_response");
    key(&mut app, KeyCode::Enter);
    // The three callers call at lines 284, 288 and 292 of handlers.py.
    let want = [":284", ":288", ":292"];
    for (w, h) in [(140, 40), (120, 40), (100, 30), (80, 24)] {
        let s = screen(&mut app, w, h);
        let a = app.areas.tree;
        let rows = inner_rows(&s, a, 0);
        let callers: Vec<&String> = rows.iter().filter(|r| r.contains("me ")).collect();
        assert_eq!(callers.len(), 3, "{w}x{h}:\n{s}");
        for (row, line) in callers.iter().zip(want) {
            assert!(row.trim_end().ends_with(line), "{w}x{h}: {row:?}\n{s}");
            assert!(row.contains("__call__"), "{w}x{h}: {row:?}");
        }
        if w < 100 {
            continue;
        }
        // Each shows its own class: the rows differ before the place.
        let names: Vec<&str> = callers
            .iter()
            .map(|r| r.split("  ").find(|p| p.contains("__call__")).unwrap())
            .collect();
        assert!(
            names[0] != names[1] && names[1] != names[2] && names[0] != names[2],
            "{w}x{h}: {names:?}"
        );
        if w >= 140 {
            for (n, class) in names.iter().zip([
                "StaticFilesHandlerMixin",
                "StaticFilesHandler",
                "ASGIStaticFilesHandler",
            ]) {
                assert!(n.contains(&format!("{class}.__call__")), "{w}x{h}: {n}");
            }
        }
    }
}

#[test]
fn cut_search_and_text_rows_keep_their_lines_and_ranges() {
    let (_tmp, repo) = deep_repo();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "__call__");
    for w in [140, 100, 80] {
        let s = screen(&mut app, w, 30);
        let a = app.areas.search;
        let rows = inner_rows(&s, a, 1);
        let hits: Vec<&String> = rows.iter().filter(|r| r.contains("__call__")).collect();
        assert_eq!(hits.len(), 3, "{w}:\n{s}");
        for r in &hits {
            let r = r.trim_end();
            assert!(
                r.ends_with(":283") || r.ends_with(":287") || r.ends_with(":291"),
                "{w}: {r:?}"
            );
            assert!(r.contains(".__call__"), "{w}: {r:?}");
        }
    }
    // Text hits: the range and score stay whole.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('/'));
    ctrl(&mut app, 'u');
    ctrl(&mut app, 't');
    typ(&mut app, "serve_the_static_file_response");
    app.chunks.settle(std::time::Duration::from_secs(30));
    app.tick();
    let s = screen(&mut app, 80, 30);
    let a = app.areas.search;
    let rows = inner_rows(&s, a, 1);
    let def = rows
        .iter()
        .find(|r| r.starts_with("function") && r.contains(":281-282"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(def.contains(":281-282  "), "{def:?}\n{s}");
}

/// The impact list's caller rows at 80×24: each keeps its class and method
/// (`StaticFilesHandler.__call__`) and its definition line, the module side and the path
/// giving way.
#[test]
fn cut_impact_rows_keep_the_class_method_and_line() {
    let (_tmp, repo) = deep_repo();
    let mut app = app_on(&repo, Theme::load("dark", None).unwrap());
    typ(&mut app, "serve_the_static_file_response");
    key(&mut app, KeyCode::Enter);
    let s = screen(&mut app, 80, 24);
    let a = app.areas.impact;
    let rows = inner_rows(&s, a, 0);
    let d1: Vec<&str> = rows
        .iter()
        .map(|r| r.trim_end())
        .filter(|r| r.starts_with("d1 "))
        .collect();
    assert_eq!(d1.len(), 3, "{s}");
    let want = [
        ("ASGIStaticFilesHandler.__call__", ":291"),
        ("StaticFilesHandler.__call__", ":287"),
        ("StaticFilesHandlerMixin.__call__", ":283"),
    ];
    for (class_method, line) in want {
        let row = d1
            .iter()
            .find(|r| r.ends_with(line))
            .unwrap_or_else(|| panic!("no d1 row ending {line}:\n{s}"));
        // The class whole: the module side before it is cut (`…`) or whole (`.`).
        let whole = ["…", "."]
            .iter()
            .any(|before| row.contains(&format!("{before}{class_method} ")));
        assert!(whole, "{row:?}\n{s}");
    }
}
