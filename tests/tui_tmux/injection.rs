//! Terminal escape injection: a repository whose file names and contents carry OSC 52
//! (clipboard write), OSC 8 (links), OSC 0 (window title), CSI cursor movement and screen
//! clears, the C1 control CSI (`U+009B`) and bidi overrides (`U+202E`). Shown in every TUI
//! surface (search list, call tree, source, impact, status, help, export prompt), none of
//! it may reach the terminal: tmux, the terminal here, keeps no clipboard buffer, no
//! title, and draws the escapes as visible text.

use super::Session;

/// Payloads as they sit in the file: each would do something if it reached a terminal.
const OSC52: &str = "\x1b]52;c;cHduZWQ=\x07";
const OSC8: &str = "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\";
const TITLE: &str = "\x1b]0;pwned-title\x07";
const CURSOR: &str = "\x1b[5A\x1b[2J\x1b[H";

#[test]
fn escapes_in_names_and_sources_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let body = format!(
        "\"\"\"{TITLE} {OSC8} {CURSOR} \u{9b}31m red \u{202e}desrever\"\"\"\n\n\
         def evil_target():\n    \"\"\"{OSC52} clipboard\"\"\"\n    return 1\n\n\n\
         def evil_caller():\n    return evil_target()\n"
    );
    // The file name itself carries an OSC 52 and a bidi override.
    let name = format!("evil{OSC52}\u{202e}yp.py");
    std::fs::write(repo.join(&name), &body).unwrap();
    let env = [format!(
        "XDG_DATA_HOME={}",
        dir.path().join("data").display()
    )];
    let Some(s) = Session::start("inject", &repo, dir.path(), &env) else {
        return;
    };
    // tmux honours OSC 52 from the pane only when set-clipboard is on.
    let _ = s
        .tmux()
        .args(["set-option", "-g", "set-clipboard", "on"])
        .status();
    s.wait_for(&["ready", "Search symbols"]);
    s.text("evil_target");
    // Every surface is captured; the file name shows escaped in the search list.
    let mut screens = vec![s.wait_for(&["evil_target", "\\x1b]52;c;cHduZWQ=\\x07"])];
    s.keys(&["Enter"]);
    let tree = s.wait_for(&[
        "Callers of evil_target",
        "Impact of evil_target",
        "evil_caller",
    ]);
    // The source shows the function's docstring payload as text.
    assert!(
        tree.contains("\\x1b]52;c;cHduZWQ=\\x07 clipboard"),
        "{tree}"
    );
    screens.push(tree);
    s.keys(&["?"]);
    screens.push(s.wait_for(&["help"]));
    s.escape();
    s.keys(&["x"]);
    screens.push(s.wait_for(&["Export"]));
    s.escape();
    // The copy keys show the id (escaped) and, without the opt-in, copy nothing.
    s.keys(&["y"]);
    screens.push(s.wait_for(&["clipboard_osc52"]));
    for screen in &screens {
        // A bidi override drawn raw would sit in a cell; an escape sequence would have been
        // acted on, which the checks below see.
        assert!(
            !screen.contains('\u{202e}') && !screen.contains('\u{1b}'),
            "{screen}"
        );
    }
    // The terminal state: no clipboard buffer, no title, screen not cleared or moved.
    let buffers = s.tmux().args(["list-buffers"]).output().unwrap();
    assert!(
        buffers.stdout.is_empty(),
        "a clipboard write reached tmux: {}",
        String::from_utf8_lossy(&buffers.stdout)
    );
    let title = s.flag("#{pane_title}");
    assert!(
        !title.contains("pwned"),
        "the window title was set: {title}"
    );
    let screen = s.capture();
    assert!(screen.contains("Callers of evil_target"), "{screen}");
    s.keys(&["q"]);
    s.assert_restored(0);
    // The CLI's text output: the same names and payloads, escaped.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph-tui"))
        .env("CODEGRAPH_CONFIG", "/nonexistent/cg.toml")
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .arg("-C")
        .arg(&repo)
        .args(["callers", "evil_target"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("evil_caller") && text.contains("\\x1b]52"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
}
