//! Copy in a real terminal: with `clipboard_osc52 = true`, `y` and `Y` set tmux's
//! clipboard (tmux keeps an OSC 52 write as a paste buffer) to exactly the selected id and
//! `path:line`; without the setting, the same keys set nothing. Also `*` opening a
//! subtree three levels down on the real binary.

use super::Session;

/// tmux's paste buffers, newest first (`list-buffers` prints one a line).
fn buffers(s: &Session) -> Vec<String> {
    let out = s
        .tmux()
        .args(["list-buffers", "-F", "#{buffer_sample}"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// A session on the Python fixture with the config file `config` (TOML text), tmux
/// honouring OSC 52, the callers of render_json shown.
fn on_render_json(tag: &str, config: &str) -> Option<(tempfile::TempDir, Session)> {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("cg.toml");
    std::fs::write(&cfg, config).unwrap();
    let env = [format!("CODEGRAPH_CONFIG={}", cfg.display())];
    let s = Session::start(tag, &super::common::fixture("python"), dir.path(), &env)?;
    // tmux honours OSC 52 from the pane only when set-clipboard is on.
    let _ = s
        .tmux()
        .args(["set-option", "-g", "set-clipboard", "on"])
        .status();
    s.wait_for(&["ready", "Search symbols"]);
    s.text("render_json");
    s.wait_for(&["> render_json"]);
    s.keys(&["Enter"]);
    s.wait_for(&["Callers of render_json", "list_items [import]"]);
    Some((dir, s))
}

#[test]
fn y_copies_the_id_and_capital_y_the_call_site_through_osc52_when_opted_in() {
    let Some((_dir, s)) = on_render_json("copy", "clipboard_osc52 = true\n") else {
        return;
    };
    s.keys(&["y"]);
    s.wait_for(&["copied app/render.py::render_json"]);
    assert_eq!(buffers(&s), ["app/render.py::render_json"]);
    // The first caller's row: its call site, as the row shows it.
    s.keys(&["Down", "Y"]);
    let screen = s.wait_for(&["copied app/handlers.py:"]);
    let newest = buffers(&s).remove(0);
    assert!(
        newest.starts_with("app/handlers.py:") && screen.contains(&format!("copied {newest}")),
        "{newest}\n{screen}"
    );
    // `*` on the root: three levels of callers, the status says how many nodes.
    s.keys(&["g", "*"]);
    s.wait_for(&["expanded", "build_app [local]"]);
    s.keys(&["q"]);
    s.assert_restored(0);
}

#[test]
fn without_the_setting_y_shows_the_id_and_sets_no_clipboard() {
    let Some((_dir, s)) = on_render_json("nocopy", "") else {
        return;
    };
    s.keys(&["y"]);
    s.wait_for(&["app/render.py::render_json (clipboard_osc52"]);
    s.keys(&["Y"]);
    s.wait_for(&["app/render.py:6 (clipboard_osc52"]);
    assert!(buffers(&s).is_empty(), "{:?}", buffers(&s));
    s.keys(&["q"]);
    s.assert_restored(0);
}
