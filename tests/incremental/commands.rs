//! The cache seen from the command line: `index --json` reports the cache state and
//! rebuilds on request; `index --watch` prints one line per update.

use std::path::Path;
use std::time::Duration;

use super::{common, scratch};

fn cg(cache_home: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph-tui"));
    c.env(
        "CODEGRAPH_CONFIG",
        "/nonexistent/codegraph-test-config.toml",
    )
    .env("XDG_CACHE_HOME", cache_home);
    c
}

fn index_json(cache_home: &Path, repo: &Path, extra: &[&str]) -> serde_json::Value {
    common::json_of(
        cg(cache_home)
            .arg("-C")
            .arg(repo)
            .args(extra)
            .args(["index", "--json"])
            .output()
            .unwrap(),
    )
}

#[test]
fn cli_reports_the_cache_state_and_rebuilds_on_request() {
    let (tmp, repo, _) = scratch("python");
    let home = tmp.path().join("xdg");
    let first = index_json(&home, &repo, &[]);
    assert_eq!(first["cache"]["state"], "cold");
    assert_eq!(first["cache"]["saved"], true);
    let dir = first["cache_dir"].as_str().unwrap().to_string();
    assert!(dir.starts_with(home.to_str().unwrap()), "{dir}");
    assert!(
        !dir.starts_with(repo.to_str().unwrap()),
        "never inside the repo"
    );
    let second = index_json(&home, &repo, &[]);
    assert_eq!(second["cache"]["state"], "warm");
    assert_eq!(
        second["cache"]["saved"], false,
        "nothing changed, nothing written"
    );
    assert_eq!(
        second["stats"]["definitions"],
        first["stats"]["definitions"]
    );
    let rebuilt = cg(&home)
        .arg("-C")
        .arg(&repo)
        .args(["index", "--rebuild", "--json"])
        .output()
        .unwrap();
    let rebuilt: serde_json::Value = serde_json::from_slice(&rebuilt.stdout).unwrap();
    assert_eq!(rebuilt["cache"]["state"], "rebuilt");
    let off = index_json(&home, &repo, &["--no-cache"]);
    assert_eq!(off["cache"]["state"], "off");
    assert_eq!(off["cache_dir"], serde_json::Value::Null);

    // A damaged cache: the command still answers right, and says why on the JSON.
    let cur = std::fs::read_to_string(Path::new(&dir).join("CURRENT")).unwrap();
    std::fs::write(Path::new(&dir).join(cur.trim()).join("facts.bin"), b"junk").unwrap();
    let damaged = index_json(&home, &repo, &[]);
    assert_eq!(damaged["cache"]["state"], "rebuilt");
    assert!(damaged["cache"]["reason"]
        .as_str()
        .unwrap()
        .contains("damaged"));
    assert_eq!(
        damaged["stats"]["definitions"],
        first["stats"]["definitions"]
    );

    // Every command answers from the reconciled index: an edit shows up at once.
    std::fs::write(repo.join("app/late.py"), "def late_fn():\n    return 1\n").unwrap();
    let out = cg(&home)
        .arg("-C")
        .arg(&repo)
        .args(["symbols", "late_fn", "--json"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("app/late.py::late_fn"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn index_watch_prints_one_line_per_update() {
    use std::io::BufRead;
    let (tmp, repo, _) = scratch("python");
    let home = tmp.path().join("xdg");
    let mut child = cg(&home)
        .arg("-C")
        .arg(&repo)
        .args(["index", "--watch", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let stdout = child.stdout.take().unwrap();
    let _guard = Kill(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    let first: serde_json::Value =
        serde_json::from_str(&rx.recv_timeout(Duration::from_secs(60)).unwrap()).unwrap();
    assert!(first["stats"]["definitions"].as_u64().unwrap() > 0);
    std::thread::sleep(Duration::from_millis(500));
    // A burst of writes to several files is one update.
    for i in 0..5 {
        std::fs::write(
            repo.join(format!("app/burst{i}.py")),
            format!("def burst_{i}():\n    return {i}\n"),
        )
        .unwrap();
    }
    let line = rx.recv_timeout(Duration::from_secs(30)).unwrap();
    let upd: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(upd["update"], 1, "{line}");
    let added: Vec<&str> = upd["added"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(
        added,
        (0..5)
            .map(|i| format!("app/burst{i}.py"))
            .collect::<Vec<_>>(),
        "{line}"
    );
    std::fs::remove_file(repo.join("app/burst0.py")).unwrap();
    let line = rx.recv_timeout(Duration::from_secs(30)).unwrap();
    let upd: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(upd["update"], 2, "{line}");
    assert_eq!(upd["removed"], serde_json::json!(["app/burst0.py"]));
}
