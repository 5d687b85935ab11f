//! A cache on a full disk and on a read-only file system: the save fails with one clear
//! reason, nothing half-written stays behind, the previous snapshot stays the one in use,
//! answers stay those of `--no-cache`, and the next save with room succeeds.
//!
//! The cache lives on a small tmpfs mounted by the test, which needs root (CI runs as
//! root). Elsewhere the test says why it did not run and passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;

/// A tmpfs mounted for the test's life.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).expect("mkdir");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }

    fn remount(&self, mode: &str) {
        let s = Command::new("mount")
            .args(["-o", &format!("remount,{mode}")])
            .arg(&self.0)
            .status()
            .expect("mount");
        assert!(s.success(), "remount {mode}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// The binary with the cache on the tmpfs (`<home>/cache`).
fn cg(home: &Path, repo: &Path) -> Command {
    common::isolated(home, repo)
}

fn run(mut c: Command) -> String {
    let out = c.output().expect("run codegraph-tui");
    assert!(
        out.status.success(),
        "{c:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn index(home: &Path, repo: &Path) -> serde_json::Value {
    let mut c = cg(home, repo);
    c.args(["index", "--json"]);
    serde_json::from_str(&run(c)).expect("index JSON")
}

fn graph(home: &Path, repo: &Path, no_cache: bool) -> String {
    let mut c = cg(home, repo);
    if no_cache {
        c.arg("--no-cache");
    }
    c.args(["graph", "--json"]);
    run(c)
}

/// The name in `CURRENT` and whether any temporary snapshot folder is left.
fn cache_state(dir: &Path) -> (String, Vec<String>) {
    let current = std::fs::read_to_string(dir.join("CURRENT")).unwrap_or_default();
    let leftovers = std::fs::read_dir(dir)
        .expect("cache dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    (current, leftovers)
}

/// Fills the file system at `at` with one file until a write fails.
fn fill(at: &Path) -> PathBuf {
    use std::io::Write;
    let path = at.join("filler");
    let mut f = std::fs::File::create(&path).expect("filler");
    let block = vec![0u8; 64 << 10];
    while f.write_all(&block).is_ok() {}
    let small = [0u8; 512];
    while f.write_all(&small).is_ok() {}
    let _ = f.sync_all();
    path
}

fn edit(repo: &Path, n: usize) {
    let f = repo.join("py/app/store.py");
    let mut text = std::fs::read_to_string(&f).expect("store.py");
    text.push_str(&format!(
        "\n\ndef added_{n}():\n    return save_item(None)\n"
    ));
    std::fs::write(&f, text).expect("edit");
}

#[test]
fn a_full_or_read_only_cache_fails_the_save_cleanly_and_keeps_the_last_snapshot() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let Some(fs) = Tmpfs::mount(&tmp.path().join("cache"), "16m") else {
        eprintln!("disk_full: not run: mounting a tmpfs needs root");
        return;
    };
    let home = tmp.path().to_path_buf();
    let cache = fs.0.clone();
    let repo = tmp.path().join("repo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &repo.join("src"),
    );
    common::copy_dir(&common::fixture("python"), &repo.join("py"));
    common::backdate(&repo);

    // With room: saved.
    let first = index(&home, &repo);
    assert_eq!(first["cache"]["saved"], true, "{first}");
    let dir = PathBuf::from(first["cache_dir"].as_str().expect("cache_dir"));
    let (saved_snapshot, _) = cache_state(&dir);
    assert!(!saved_snapshot.is_empty());

    // Full: the save fails with one clear reason; the old snapshot stays current.
    edit(&repo, 1);
    let filler = fill(&cache);
    let full = index(&home, &repo);
    assert_eq!(full["cache"]["saved"], false, "{full}");
    let reason = full["cache"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("cannot save") && reason.contains("No space left"),
        "{reason}"
    );
    assert_eq!(
        cache_state(&dir),
        (saved_snapshot.clone(), vec![]),
        "nothing half-written"
    );
    assert_eq!(
        graph(&home, &repo, false),
        graph(&home, &repo, true),
        "answers on a full disk"
    );

    // Room again: the next save succeeds and is the new current snapshot.
    std::fs::remove_file(filler).expect("free the disk");
    edit(&repo, 2);
    let again = index(&home, &repo);
    assert_eq!(again["cache"]["saved"], true, "{again}");
    let (next_snapshot, leftovers) = cache_state(&dir);
    assert!(next_snapshot != saved_snapshot && leftovers.is_empty());
    assert_eq!(graph(&home, &repo, false), graph(&home, &repo, true));

    // Read-only: the same, with the file system's reason.
    fs.remount("ro");
    edit(&repo, 3);
    let ro = index(&home, &repo);
    assert_eq!(ro["cache"]["saved"], false, "{ro}");
    let reason = ro["cache"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("Read-only file system"), "{reason}");
    assert_eq!(
        graph(&home, &repo, false),
        graph(&home, &repo, true),
        "answers read-only"
    );
    fs.remount("rw");
    let rw = index(&home, &repo);
    assert_eq!(rw["cache"]["saved"], true, "{rw}");
    assert_eq!(cache_state(&dir).1, Vec::<String>::new());
}
