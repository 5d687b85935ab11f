//! `completions` and `man`: generated from the clap definitions, printed on stdout, and
//! run without a repository, a config, an index or a cache.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// Every subcommand a completion script and the main man page must name.
const SUBCOMMANDS: [&str; 11] = [
    "index",
    "graph",
    "symbols",
    "search",
    "callers",
    "callees",
    "impact",
    "path",
    "export",
    "completions",
    "man",
];

/// A scratch home outside any repository: the working directory of the run, and its
/// config, cache, state and data folders, which must stay empty.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        for d in ["work", "cache", "state", "config", "data"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
        }
        Home { dir }
    }

    fn path(&self, d: &str) -> PathBuf {
        self.dir.path().join(d)
    }

    /// `codegraph-tui ARGS` in `work/`, with every per-user folder in the scratch home.
    fn run(&self, args: &[&str]) -> Output {
        Command::cargo_bin("codegraph-tui")
            .unwrap()
            .current_dir(self.path("work"))
            .env("HOME", self.dir.path())
            .env("XDG_CACHE_HOME", self.path("cache"))
            .env("XDG_STATE_HOME", self.path("state"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_DATA_HOME", self.path("data"))
            .env(
                "CODEGRAPH_CONFIG",
                "/nonexistent/codegraph-test-config.toml",
            )
            .args(args)
            .output()
            .unwrap()
    }

    /// Nothing was written: no cache, no log, nothing in the working directory.
    fn assert_untouched(&self) {
        for d in ["work", "cache", "state", "config", "data"] {
            let left: Vec<_> = std::fs::read_dir(self.path(d)).unwrap().collect();
            assert!(left.is_empty(), "{d}/ was written to: {left:?}");
        }
    }
}

/// stdout of a successful run with nothing on stderr.
fn stdout(out: Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn each_shell_script_names_the_subcommands() {
    let home = Home::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(home.run(&["completions", shell]));
        assert!(!script.trim().is_empty(), "{shell}: empty script");
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell}: {sub} not named");
        }
        // The subcommands' own options are completed too.
        assert!(script.contains("--depth"), "{shell}: callers --depth");
    }
    home.assert_untouched();
}

#[test]
fn the_bash_script_parses() {
    let home = Home::new();
    let script = stdout(home.run(&["completions", "bash"]));
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &script).unwrap();
    let check = std::process::Command::new("bash")
        .arg("-n")
        .arg(file.path())
        .output()
        .expect("bash runs");
    assert!(
        check.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&check.stderr)
    );
    // `complete -F` registers it for the binary's name.
    assert!(script.contains("codegraph-tui"));
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let home = Home::new();
    let out = home.run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bash"));
}

#[test]
fn needs_no_repository() {
    // `-C` naming no directory fails every other subcommand; these only print.
    let home = Home::new();
    for args in [
        &["-C", "/nonexistent/cg", "completions", "bash"][..],
        &["-C", "/nonexistent/cg", "man"][..],
    ] {
        assert!(!stdout(home.run(args)).is_empty(), "{args:?}");
    }
    home.assert_untouched();
}

#[test]
fn the_man_page_lists_the_subcommands() {
    let home = Home::new();
    let page = stdout(home.run(&["man"]));
    assert!(page.contains(".TH"), "no title line");
    assert!(page.contains("codegraph\\-tui"), "no name");
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("codegraph\\-tui\\-{sub}(1)")),
            "{sub}"
        );
    }
    // clap's `help` subcommand gets no page.
    assert!(!page.contains("codegraph\\-tui\\-help"));
    render(&page, "main page");
    home.assert_untouched();
}

#[test]
fn a_subcommand_has_its_own_page() {
    let home = Home::new();
    let page = stdout(home.run(&["man", "callers"]));
    assert!(page.contains(".TH"), "no title line");
    assert!(page.contains("codegraph\\-tui\\-callers"), "no name");
    assert!(page.contains("\\-\\-depth"), "no options");
    render(&page, "callers page");
    let out = home.run(&["man", "nosuch"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nosuch") && err.contains("callers"), "{err}");
}

/// Renders `page` with groff (all warnings on, any warning fails), else with man; skipped
/// only when neither is installed, as on a minimal container (both come with man-db).
fn render(page: &str, what: &str) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), page).unwrap();
    if let Some(out) = run_tool("groff", &["-man", "-Tutf8", "-ww", "-z"], file.path()) {
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "groff on the {what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    if let Some(out) = run_tool("man", &["-l"], file.path()) {
        assert!(
            out.status.success(),
            "man on the {what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "man printed nothing for the {what}");
        return;
    }
    eprintln!("neither groff nor man is installed: the {what} was not rendered");
}

/// `tool ARGS FILE`, or `None` when `tool` is not installed.
fn run_tool(tool: &str, args: &[&str], file: &Path) -> Option<Output> {
    match std::process::Command::new(tool)
        .args(args)
        .arg(file)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "80")
        .output()
    {
        Ok(out) => Some(out),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("{tool}: {e}"),
    }
}
