//! End-to-end: the real binary in a real terminal (tmux). Starts the TUI on the python
//! fixture, waits for indexing, types a symbol name, presses Enter, checks the call tree
//! shows a known caller, expands a node, exports the subgraph and checks the JSON, opens
//! the outline and a member's callers from it, goes to a definition from the source
//! panel and back, quits with q and checks the terminal was restored (alternate screen
//! left, cursor shown, mouse released). Also: the type hierarchy on a repository with
//! subclasses; SIGTERM and Ctrl-Z/continue restore the terminal; `copy` has the OSC 52
//! copy and expand-to-depth, `injection` the escape-injection checks.
//!
//! Every session runs on its own tmux server; dropping a [`Session`] (also when an
//! assertion failed) kills that server and any TUI process left under it.
//!
//! Needs tmux (`.ci/run` installs it). Without tmux the tests are skipped with a message,
//! except under CI (`CI` set), where a missing tmux is a failure.

mod common;
#[path = "tui_tmux/copy.rs"]
mod copy;
#[path = "tui_tmux/injection.rs"]
mod injection;
#[path = "tui_tmux/search.rs"]
mod search;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// tmux on a private server socket, so the tests never touch the user's sessions (nor
/// each other's: every session gets its own server).
fn tmux_on(socket: &str) -> Command {
    let mut c = Command::new("tmux");
    c.args(["-L", socket]);
    c
}

/// True while `pid` exists and has not exited (a zombie waiting for its reaper counts
/// as exited: containers often run without an init that reaps orphans).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits up to `limit` for `pid` to exit; true when it did.
fn exits_within(pid: u32, limit: Duration) -> bool {
    let start = Instant::now();
    while alive(pid) {
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

/// Child processes of `pid`.
fn children(pid: &str) -> Vec<u32> {
    let out = Command::new("pgrep").args(["-P", pid]).output();
    out.map(|o| {
        String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    })
    .unwrap_or_default()
}

struct Session {
    name: String,
    socket: String,
}

impl Session {
    /// A detached 100x30 session running the TUI on `repo`; the shell prints the exit
    /// status afterwards so the test can see it.
    fn start(tag: &str, repo: &Path, cwd: &Path, env: &[String]) -> Option<Session> {
        if Command::new("tmux").arg("-V").output().is_err() {
            assert!(
                std::env::var_os("CI").is_none(),
                "tmux is required under CI"
            );
            eprintln!("tmux not found: skipping the end-to-end TUI test");
            return None;
        }
        let name = format!("cgtest-{tag}-{}", std::process::id());
        let socket = name.clone();
        let bin = env!("CARGO_BIN_EXE_codegraph-tui");
        // An interactive shell, so Ctrl-Z gets real job control (a process in an orphaned
        // process group is never stopped by SIGTSTP).
        let ok = tmux_on(&socket)
            .args([
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                "100",
                "-y",
                "30",
                "-c",
            ])
            .arg(cwd)
            .args(["env", "PS1=$ ", "TERM=xterm-256color"])
            .arg(format!("XDG_CACHE_HOME={}", env!("CARGO_TARGET_TMPDIR")))
            .args([
                "CODEGRAPH_CONFIG=/nonexistent/cg.toml",
                "bash",
                "--norc",
                "--noprofile",
                "-i",
            ])
            .status()
            .expect("tmux runs")
            .success();
        assert!(ok, "tmux new-session failed");
        let s = Session { name, socket };
        // Variables go on the command line: tmux may pass its arguments through a shell.
        s.text(&format!(
            "{} '{bin}' '{}'; echo CG_EXIT=$?",
            env.join(" "),
            repo.display()
        ));
        s.keys(&["Enter"]);
        Some(s)
    }

    fn tmux(&self) -> Command {
        tmux_on(&self.socket)
    }

    fn keys(&self, keys: &[&str]) {
        let ok = self
            .tmux()
            .args(["send-keys", "-t", &self.name])
            .args(keys)
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }

    /// Esc alone: a pause after it, so the next key is not read as Alt+key.
    fn escape(&self) {
        self.keys(&["Escape"]);
        std::thread::sleep(Duration::from_millis(300));
    }

    fn text(&self, s: &str) {
        let ok = self
            .tmux()
            .args(["send-keys", "-t", &self.name, "-l", s])
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }

    fn capture(&self) -> String {
        let out = self
            .tmux()
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn flag(&self, f: &str) -> String {
        let out = self
            .tmux()
            .args(["display-message", "-p", "-t", &self.name, f])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Waits until every needle is on screen (30 s at most), returning the screen.
    fn wait_for(&self, needles: &[&str]) -> String {
        let start = Instant::now();
        loop {
            let s = self.capture();
            if needles.iter().all(|n| s.contains(n)) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "timed out waiting for {needles:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The TUI's process id (the child of the pane's shell).
    fn tui_pid(&self) -> u32 {
        let shell = self.flag("#{pane_pid}");
        let kids = children(&shell);
        assert_eq!(
            kids.len(),
            1,
            "expected the TUI alone under the pane's shell"
        );
        kids[0]
    }

    /// After the TUI ended with exit status `code`: the terminal is back to normal.
    fn assert_restored(&self, code: i32) {
        let s = self.wait_for(&[&format!("CG_EXIT={code}")]);
        assert_eq!(
            self.flag("#{alternate_on}"),
            "0",
            "still on the alternate screen:\n{s}"
        );
        assert_eq!(self.flag("#{cursor_flag}"), "1", "cursor left hidden");
        assert_eq!(self.flag("#{mouse_any_flag}"), "0", "mouse left captured");
        assert_eq!(self.flag("#{mouse_all_flag}"), "0", "mouse left captured");
    }
}

impl Drop for Session {
    /// Kills the tmux server, then whatever ran under the pane's shell if it outlives the
    /// hang-up by 3 s (SIGKILL), so a failed test never leaves a TUI behind.
    fn drop(&mut self) {
        let shell = self.flag("#{pane_pid}");
        let left = if shell.is_empty() {
            Vec::new()
        } else {
            children(&shell)
        };
        let _ = self.tmux().arg("kill-server").status();
        for pid in left {
            if !exits_within(pid, Duration::from_secs(3)) {
                eprintln!("process {pid} outlived its tmux server: killing it");
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        }
    }
}

/// A session on the Python fixture (in a temp working directory, kept alive by the
/// guard) once its index is ready; `None` where tmux is missing outside CI.
fn ready_on_python(tag: &str) -> Option<(tempfile::TempDir, Session)> {
    let dir = tempfile::tempdir().unwrap();
    let s = Session::start(tag, &common::fixture("python"), dir.path(), &[])?;
    s.wait_for(&["ready", "Search symbols"]);
    Some((dir, s))
}

#[test]
fn search_enter_expand_export_quit_in_a_real_terminal() {
    let dir = tempfile::tempdir().unwrap();
    // A fake editor that records its arguments.
    let editor = dir.path().join("editor.sh");
    let args_file = dir.path().join("editor-args");
    std::fs::write(
        &editor,
        format!("#!/bin/sh\necho \"$@\" > '{}'\n", args_file.display()),
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let env = [
        format!("EDITOR={}", editor.display()),
        "VISUAL=".to_string(),
        format!("XDG_DATA_HOME={}", dir.path().join("data").display()),
    ];
    let Some(s) = Session::start("main", &common::fixture("python"), dir.path(), &env) else {
        return;
    };
    s.wait_for(&["ready", "38 symbols", "Search symbols"]);
    assert_eq!(s.flag("#{alternate_on}"), "1");
    s.text("render_json");
    s.wait_for(&["> render_json", "fn app.render.render_json"]);
    s.keys(&["Enter"]);
    // Every pane fills in on its own tick: wait for all of them (asserting the source and
    // impact panes at the moment the callers appeared failed on a loaded machine).
    s.wait_for(&[
        "Callers of render_json",
        "list_items [import]",
        "def render_json(data, status=200):",
        "Impact of render_json",
    ]);
    // Expand configure (third caller): build_app calls it.
    s.keys(&["Down", "Down", "Down", "l"]);
    s.wait_for(&["▾ fn configure", "build_app [local]"]);
    // e opens $EDITOR at the call site of configure -> render_json (app/main.py:16),
    // then the TUI comes back.
    s.keys(&["e"]);
    let start = Instant::now();
    while !args_file.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "editor not run:\n{}",
            s.capture()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    s.wait_for(&["Callers of render_json", "? help"]);
    assert_eq!(s.flag("#{alternate_on}"), "1");
    let args = std::fs::read_to_string(&args_file).unwrap();
    assert!(
        args.starts_with("+16 ") && args.trim_end().ends_with("app/main.py"),
        "{args}"
    );
    // Export to the default path: the user data folder (here the test's XDG_DATA_HOME),
    // outside the repository.
    s.keys(&["x"]);
    s.wait_for(&[
        "Export shown subgraph",
        "python-render_json.json",
        "not indexed",
    ]);
    s.keys(&["Enter"]);
    s.wait_for(&["exported"]);
    let out = dir
        .path()
        .join("data/codegraph-tui/exports/python-render_json.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["schema"], "codegraph-tui/subgraph@1");
    assert_eq!(v["root"], "app/render.py::render_json");
    assert_eq!(v["depth"], 2);
    let ids = common::strs(&v["nodes"], "id");
    assert!(ids.contains(&"app/main.py::build_app"), "{ids:?}");
    // Exporting again asks before overwriting.
    s.keys(&["x"]);
    s.wait_for(&["Export shown subgraph"]);
    s.keys(&["Enter"]);
    s.wait_for(&["overwrite"]);
    s.keys(&["n"]);
    s.wait_for(&["Export shown subgraph"]);
    s.escape();
    // The outline of the shown file (app/main.py, where configure is), then Enter on a
    // member shows its callers.
    s.keys(&["o"]);
    s.wait_for(&[
        "Outline of app/main.py",
        "fn build_app :25",
        "configure (outline)",
    ]);
    s.keys(&["G", "Enter"]);
    s.wait_for(&["Callers of main", "history"]);
    // Go to definition: the source panel (Tab from the tree), the cursor down to line 30
    // of app/main.py (`app = build_app()`), onto `build_app`, Enter; Backspace returns.
    s.keys(&["Tab", "Down", "l", "Enter"]);
    s.wait_for(&[
        "build_app: the call's definition",
        "Callers of build_app",
        "build_app (tree) · app/main.py :25",
    ]);
    s.keys(&["BSpace"]);
    s.wait_for(&["Callers of main", "main (tree)"]);
    // Help overlay, then quit.
    s.keys(&["?"]);
    s.wait_for(&[
        "Keys (Esc closes",
        "this help",
        "search symbols (from any other panel)",
    ]);
    s.escape();
    s.keys(&["q"]);
    s.assert_restored(0);
}

/// The type hierarchy (`i`) in a real terminal, on a repository with inheritance (the
/// Python fixture has none): a base class and two subclasses, one overriding a method.
#[test]
fn the_type_hierarchy_in_a_real_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(
        repo.join("shapes.py"),
        "class Shape:\n    def area(self):\n        return 0\n\n    def name(self):\n        return 'shape'\n\n\n\
         class Square(Shape):\n    def area(self):\n        return 4\n\n\n\
         class Blob(Shape):\n    pass\n",
    )
    .unwrap();
    let Some(s) = Session::start("hierarchy", &repo, dir.path(), &[]) else {
        return;
    };
    s.wait_for(&["ready", "Search symbols"]);
    s.text("Shape");
    s.wait_for(&["> Shape", "cl shapes.Shape"]);
    s.keys(&["Enter"]);
    s.wait_for(&["Callers of Shape"]);
    s.keys(&["i"]);
    // Shape itself, then its subtypes by name: Blob plain, Square overriding area.
    s.wait_for(&[
        "Type hierarchy of Shape",
        "● cl Shape (this type)  shapes.py:1",
        "subtypes:",
        "▼ cl Blob  shapes.py:14",
        "▼ cl Square overrides area  shapes.py:9",
    ]);
    // Enter on the last row (Square): its hierarchy, Shape above it as its base.
    s.keys(&["G", "Enter"]);
    s.wait_for(&["Type hierarchy of Square", "▲ cl Shape  shapes.py:1"]);
    // i: back to the tree it came from.
    s.keys(&["i"]);
    s.wait_for(&["Callers of Shape"]);
    s.keys(&["q"]);
    s.assert_restored(0);
}

#[test]
fn sigterm_and_ctrl_z_restore_the_terminal() {
    let Some((_dir, s)) = ready_on_python("signals") else {
        return;
    };
    let pid = s.tui_pid();
    // Ctrl-Z: the terminal is restored while stopped, set up again on continue.
    s.keys(&["C-z"]);
    s.wait_for(&["Stopped"]);
    assert_eq!(
        s.flag("#{alternate_on}"),
        "0",
        "Ctrl-Z kept the alternate screen"
    );
    assert_eq!(s.flag("#{mouse_any_flag}"), "0");
    assert_eq!(s.flag("#{cursor_flag}"), "1");
    s.text("fg");
    s.keys(&["Enter"]);
    s.wait_for(&["Search symbols", "? help"]);
    assert_eq!(s.flag("#{alternate_on}"), "1");
    // Still responsive after resuming.
    s.text("build_app");
    s.wait_for(&["> build_app"]);
    // SIGTERM: restored, and exit status 128 + 15 as for any process SIGTERM ends. (After `fg` the shell runs only the resumed
    // process, not the rest of the command line, so ask the shell for the status.)
    let ok = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    assert!(
        exits_within(pid, Duration::from_secs(10)),
        "SIGTERM did not end the TUI"
    );
    // Type only once the prompt is back (the shell may flush input typed earlier).
    let start = Instant::now();
    while !s.capture().trim_end().ends_with('$') {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no prompt after the TUI ended"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    s.text("echo CG_EXIT=$?");
    s.keys(&["Enter"]);
    s.assert_restored(143);
}

/// Ctrl-Z, then `kill %1` in the shell: bash sends SIGTERM and SIGCONT to the stopped job,
/// which then runs in the background. The TUI must end without touching the terminal (a
/// write would stop it again with SIGTTOU: "Stopped (tty output)" for ever).
#[test]
fn a_suspended_tui_ends_on_kill_from_the_shell() {
    let Some((_dir, s)) = ready_on_python("killz") else {
        return;
    };
    let pid = s.tui_pid();
    s.keys(&["C-z"]);
    s.wait_for(&["Stopped"]);
    std::thread::sleep(Duration::from_millis(300));
    s.text("kill %1");
    s.keys(&["Enter"]);
    assert!(
        exits_within(pid, Duration::from_secs(10)),
        "the suspended TUI did not end after kill %1; screen:\n{}",
        s.capture()
    );
    assert_eq!(s.flag("#{alternate_on}"), "0");
}

/// The terminal goes away under the TUI (the tmux server dies, closing the pty): the TUI
/// must notice and exit, not spin on reads that return EOF (a TUI spinning there
/// would not answer SIGTERM either).
#[test]
fn tui_exits_when_its_terminal_goes_away() {
    let Some((_dir, s)) = ready_on_python("hangup") else {
        return;
    };
    let pid = s.tui_pid();
    let ok = s.tmux().arg("kill-server").status().unwrap();
    assert!(ok.success());
    assert!(
        exits_within(pid, Duration::from_secs(5)),
        "the TUI kept running after its terminal closed"
    );
}

/// Sends `signal` (a `kill` name) to a TUI as soon as its first frame is up (indexing
/// may still run) and checks it ends within 3 s with the terminal restored and exit
/// status `code` (checked by the shell in the pane); the pane's text after.
fn signal_right_after_start(tag: &str, signal: &str, code: i32) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let s = Session::start(tag, &common::fixture("python"), dir.path(), &[])?;
    s.wait_for(&["Search symbols"]);
    let pid = s.tui_pid();
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    assert!(
        exits_within(pid, Duration::from_secs(3)),
        "SIG{signal} did not end the TUI"
    );
    s.assert_restored(code);
    Some(s.capture())
}

/// SIGTERM right after start: restored, exit 143, quickly.
#[test]
fn sigterm_right_after_start_ends_the_tui() {
    signal_right_after_start("term", "TERM", 143);
}

/// SIGQUIT (Ctrl-\\ in a shell, or `kill -QUIT`) ends the TUI like SIGTERM: restored, exit
/// 131. (SIGQUIT's default action ends the process with the terminal left in the TUI's
/// screen.)
#[test]
fn sigquit_right_after_start_ends_the_tui() {
    signal_right_after_start("quit", "QUIT", 131);
}

/// SIGBUS (what reading a memory-mapped cache file that another program truncated
/// raises) ends the TUI with the terminal restored, a message saying why, and status 135.
#[test]
fn sigbus_restores_the_terminal_and_says_why() {
    if let Some(pane) = signal_right_after_start("bus", "BUS", 135) {
        assert!(
            pane.contains("a cache file was cut short while in use"),
            "{pane}"
        );
    }
}

/// CPU seconds (user + system) process `pid` has used so far, from `/proc/<pid>/stat`.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after its ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| f.get(i)?.parse::<f64>().ok())
        .sum();
    ticks / 100.0
}

/// A resize, then a key: the key takes effect at once and the TUI then idles. crossterm
/// reported the resize and forgot the key's readiness when both came in one wake-up, so
/// the loop spun at full CPU with the key unread until another one came (and `q` did not
/// quit).
#[test]
fn a_key_after_a_resize_is_read_at_once_without_spinning() {
    let Some((_dir, s)) = ready_on_python("resize") else {
        return;
    };
    s.text("normalize_path");
    s.wait_for(&["> normalize_path"]);
    s.keys(&["Enter"]);
    s.wait_for(&["Callers of normalize_path"]);
    let pid = s.tui_pid();
    for (x, y) in [("140", "40"), ("90", "28")] {
        let ok = s
            .tmux()
            .args(["resize-window", "-t", &s.name, "-x", x, "-y", y])
            .status()
            .unwrap();
        assert!(ok.success());
        std::thread::sleep(Duration::from_millis(400));
    }
    // `c` switches the tree to callees.
    s.keys(&["c"]);
    s.wait_for(&["Callees of normalize_path"]);
    let before = cpu_seconds(pid);
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu_seconds(pid) - before;
    assert!(used < 0.5, "{used} CPU s in 1 s of idling after the key");
    s.keys(&["q"]);
    s.assert_restored(0);
}
