//! Options and refusals: colour, empty or punctuation-only queries, a zero limit or depth,
//! two roots, and a log file that cannot be created.

use predicates::prelude::*;

use super::{cg, common};

#[test]
fn color_always_paints_and_never_does_not() {
    let run = |c: &str| {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--color", c, "symbols", "save_item"])
            .output()
            .unwrap()
            .stdout
    };
    assert!(run("always").contains(&0x1b));
    assert!(!run("never").contains(&0x1b));
    // auto: stdout is a pipe here, so no colour.
    assert!(!run("auto").contains(&0x1b));
    // search's text output too.
    let search = |c: &str| {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", "--color", c, "search", "save item"])
            .output()
            .unwrap()
            .stdout
    };
    assert!(search("always").contains(&0x1b));
    assert!(!search("never").contains(&0x1b));
    // Every text answer about a symbol takes the flag, impact's too.
    for cmd in ["callers", "callees", "impact"] {
        let out = |c: &str| {
            let o = cg()
                .arg("-C")
                .arg(common::fixture("python"))
                .args(["--no-cache", "--color", c, cmd, "save_item"])
                .output()
                .unwrap();
            assert!(o.status.success(), "{cmd}: {o:?}");
            o.stdout
        };
        assert!(out("always").contains(&0x1b), "{cmd} --color always");
        assert!(!out("never").contains(&0x1b), "{cmd} --color never");
    }
}

#[test]
fn an_empty_search_query_is_an_error_not_a_listing() {
    for q in ["", "   "] {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", "search", q])
            .assert()
            .failure()
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("empty query"));
    }
    // A filter alone is a query: it lists what passes it.
    cg().arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "search", "path:app/render"])
        .assert()
        .success()
        .stdout(predicate::str::contains("app/render.py"));
    // With --json the error is an object on stdout too.
    let out = cg()
        .arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "search", "  ", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert!(v["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("empty query")));
    // In a batch such a line keeps its (empty) answer line and stderr says why.
    let out = cg()
        .arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "search", "--mode", "semantic", "--batch", "-"])
        .write_stdin("render json\nlang:python\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).matches("# ").count(),
        2
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2: filters only"));
    // In semantic mode there is nothing to embed: a usage error that says what to do.
    cg().arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "search", "--mode", "semantic", "lang:python"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("filters only"));
}

#[test]
fn a_limit_of_zero_is_a_usage_error() {
    for cmd in ["search", "symbols"] {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", cmd, "render", "--limit", "0"])
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("at least 1"));
    }
}

#[test]
fn a_log_file_that_cannot_be_created_does_not_stop_a_command() {
    let state = tempfile::tempdir().unwrap();
    // A directory where today's log file would go: the file cannot be created.
    let logs = state.path().join("codegraph-tui/logs");
    for days in 0..2 {
        let t = std::time::SystemTime::now() + std::time::Duration::from_secs(86_400 * days);
        let secs = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
        std::fs::create_dir_all(logs.join(format!("codegraph-tui.log.{y:04}-{m:02}-{d:02}")))
            .unwrap();
    }
    cg().env("XDG_STATE_HOME", state.path())
        .arg("-C")
        .arg(common::fixture("python"))
        .args(["--no-cache", "symbols", "render_json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("render_json"))
        .stderr(predicate::str::contains("panicked").not());
}

/// (year, month, day) of a count of days since 1970-01-01 (H. Hinnant's civil_from_days).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[test]
fn a_query_of_only_punctuation_finds_nothing_in_any_mode() {
    for mode in ["text", "semantic", "hybrid"] {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .args(["--no-cache", "search", "!!!", "--mode", mode])
            .assert()
            .code(1)
            .stdout(predicate::str::is_empty());
    }
}

/// `--depth 0` is refused alike by every command that walks (`callers`, `callees`,
/// `export`, `impact` and `path`).
#[test]
fn depth_zero_is_refused_by_every_walk() {
    for args in [
        &["callers", "save_item", "--depth", "0"][..],
        &["callees", "save_item", "--depth", "0"],
        &["impact", "save_item", "--depth", "0"],
        &["export", "save_item", "--depth", "0"],
    ] {
        cg().arg("-C")
            .arg(common::fixture("python"))
            .arg("--no-cache")
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("0 is not in 1.."));
    }
}

/// `-C A index B` (or `-C A B` for the TUI) names two repositories: an error naming both,
/// never a silent choice; the same one twice is fine.
#[test]
fn two_different_roots_are_an_error() {
    let (a, b) = (common::fixture("python"), common::fixture("go"));
    for args in [vec!["index", "--json"], vec![]] {
        let mut c = cg();
        c.arg("-C").arg(&a);
        if args.is_empty() {
            c.arg(&b);
        } else {
            c.args(&args).arg(&b);
        }
        c.assert()
            .failure()
            .stderr(predicate::str::contains("give one of them"));
    }
    cg().arg("-C")
        .arg(&a)
        .args(["index", "--json"])
        .arg(&a)
        .assert()
        .success();
}
