//! Hostile repositories: special files (FIFO, socket, device node), symlinks to `/` and in
//! a loop, a 5 GB sparse file, a file of 1,000,000 lines, a 100 MB single-line file, names
//! with a newline, `ESC`, invalid UTF-8 and 255 bytes, 200,000 small files, and files that
//! change or vanish while the index reads them. Each is counted and skipped or indexed as
//! `docs/contracts.md#index` states, memory stays bounded, the walk finishes, and the graph
//! of what was indexed equals a fresh `--no-cache` run's.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

fn cg(home: &Path, repo: &Path) -> Command {
    common::isolated(home, repo)
}

/// Runs `c`; returns its stdout and its peak resident set in MiB (`VmHWM` of
/// `/proc/<pid>/status`, read until the process exits: the last read is within a few
/// milliseconds of its end).
fn run_measured(mut c: Command) -> (String, u64) {
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let status_file = format!("/proc/{}/status", child.id());
    // Drained on threads, so a full pipe never stalls the child.
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out_pipe, &mut v).map(|_| v)
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err_pipe, &mut v).map(|_| v)
    });
    let mut hwm_kib = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            if let Some(l) = text.lines().find(|l| l.starts_with("VmHWM:")) {
                let kib = l.split_whitespace().nth(1).and_then(|n| n.parse().ok());
                hwm_kib = hwm_kib.max(kib.unwrap_or(0));
            }
        }
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = out.join().expect("stdout thread").expect("read stdout");
    let err = err.join().expect("stderr thread").expect("read stderr");
    assert!(status.success(), "{c:?}: {}", String::from_utf8_lossy(&err));
    (String::from_utf8(out).expect("UTF-8"), hwm_kib / 1024)
}

fn index_json(home: &Path, repo: &Path) -> (serde_json::Value, u64) {
    let mut c = cg(home, repo);
    c.args(["--no-cache", "index", "--json"]);
    let (out, rss) = run_measured(c);
    (serde_json::from_str(&out).expect("index JSON"), rss)
}

fn write(path: &Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

#[test]
fn special_files_symlinks_huge_files_and_hostile_names_are_counted_and_skipped() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    write(
        &repo.join("app/main.py"),
        b"from app.util import helper\n\ndef main():\n    return helper()\n",
    );
    write(&repo.join("app/util.py"), b"def helper():\n    return 1\n");

    // Special files.
    let fifo = repo.join("app/pipe.py");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo")
        .success());
    let _socket = std::os::unix::net::UnixListener::bind(repo.join("app/sock.py")).expect("bind");
    // A character device (as /dev/null) needs root; without it the case is left out.
    let device = Command::new("mknod")
        .arg(repo.join("app/dev.py"))
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    // Symlinks: to `/`, a loop, a dangling one.
    std::os::unix::fs::symlink("/", repo.join("root_link")).expect("symlink");
    std::os::unix::fs::symlink("loop_b", repo.join("loop_a")).expect("symlink");
    std::os::unix::fs::symlink("loop_a", repo.join("loop_b")).expect("symlink");
    std::os::unix::fs::symlink("gone.py", repo.join("app/dangling.py")).expect("symlink");
    // Huge files: sparse 5 GB, one million lines, 100 MB on one line.
    std::fs::create_dir_all(repo.join("big")).expect("mkdir");
    let sparse = std::fs::File::create(repo.join("big/sparse.py")).expect("sparse");
    sparse.set_len(5 << 30).expect("set_len");
    write(&repo.join("big/million.py"), &b"x = 1\n".repeat(1_000_000));
    write(&repo.join("big/oneline.js"), &vec![b'a'; 100 << 20]);
    // Hostile names, each a small valid Python file with one function.
    let names: Vec<Vec<u8>> = vec![
        b"new\nline.py".to_vec(),
        b"esc\x1b[2Jname.py".to_vec(),
        b"bad\xff\xfeutf8.py".to_vec(),
        [vec![b'n'; 252], b".py".to_vec()].concat(),
    ];
    for (i, n) in names.iter().enumerate() {
        let p = repo.join("names").join(OsStr::from_bytes(n));
        write(
            &p,
            format!("def hostile_{i}():\n    return {i}\n").as_bytes(),
        );
    }

    let started = Instant::now();
    let (v, rss) = index_json(&home, &repo);
    let took = started.elapsed();
    eprintln!("hostile tree: index in {took:?}, peak RSS {rss} MiB");
    let s = &v["stats"];
    assert!(
        took < Duration::from_secs(120),
        "the walk finishes: {took:?}"
    );
    // The 5 GB, 6 MB and 100 MB files are over the 1 MiB cap: skipped unread.
    assert_eq!(s["files_skipped_too_large"], 3, "{s}");
    assert!(
        rss < 600,
        "peak RSS {rss} MiB with a 100 MB and a 5 GB file in the tree"
    );
    // FIFO, socket (and the device node when it could be made).
    assert_eq!(s["files_skipped_special"], 2 + device as u64, "{s}");
    // Symlinks are not followed: `/`, the loop's two ends and the dangling one.
    assert_eq!(s["files_skipped_symlink"], 4, "{s}");
    // app/main.py, app/util.py and three of the hostile names; a name that is not UTF-8
    // cannot be a node id: it is counted unreadable, not dropped.
    assert_eq!(s["files_indexed"], 5, "{s}");
    assert_eq!(s["files_skipped_unreadable"], 1, "{s}");
    assert_eq!(s["definitions"], 5, "{s}");
    assert_eq!(s["edges"]["calls"], 1, "main -> helper: {s}");

    // The hostile names come out of the CLI's text output sanitized: no ESC reaches the
    // terminal.
    let mut c = cg(&home, &repo);
    c.args(["--no-cache", "symbols", "hostile"]);
    let (text, _) = run_measured(c);
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert_eq!(
        text.lines().filter(|l| l.contains("hostile_")).count(),
        3,
        "{text}"
    );
}

#[test]
fn two_hundred_thousand_small_files_are_walked_in_bounded_memory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    const FILES: usize = 200_000;
    for d in 0..(FILES / 1000) {
        let dir = repo.join(format!("pkg{d:03}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        for f in 0..1000 {
            // Most are not source (as generated data in a real tree); every tenth is.
            let (name, text) = if f % 10 == 0 {
                (
                    format!("m{f}.py"),
                    format!("def f{d}_{f}():\n    return {f}\n"),
                )
            } else {
                (format!("d{f}.dat"), String::from("x"))
            };
            std::fs::write(dir.join(name), text).expect("write");
        }
    }
    let started = Instant::now();
    let (v, rss) = index_json(&home, &repo);
    eprintln!(
        "200,000 files: index in {:?}, peak RSS {rss} MiB",
        started.elapsed()
    );
    let s = &v["stats"];
    assert_eq!(s["files_seen"], FILES as u64, "{s}");
    assert_eq!(s["files_indexed"], (FILES / 10) as u64, "{s}");
    assert_eq!(s["definitions"], (FILES / 10) as u64, "{s}");
    assert!(rss < 1024, "peak RSS {rss} MiB for 200,000 files");
}

#[test]
fn files_that_change_or_vanish_while_read_never_fail_the_index() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &repo.join("src"),
    );
    let churn: Vec<PathBuf> = (0..50)
        .map(|i| repo.join(format!("churn/c{i}.py")))
        .collect();
    std::fs::create_dir_all(repo.join("churn")).expect("mkdir");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mutator = {
        let (stop, churn) = (stop.clone(), churn.clone());
        std::thread::spawn(move || {
            let mut round = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for (i, p) in churn.iter().enumerate() {
                    if (round + i as u64).is_multiple_of(3) {
                        let _ = std::fs::remove_file(p);
                    } else {
                        let body =
                            format!("def c{i}_{round}():\n    return {round}\n").repeat(1 + i);
                        let _ = std::fs::write(p, body);
                    }
                }
                round += 1;
            }
        })
    };
    for _ in 0..5 {
        let mut c = cg(&home, &repo);
        c.args(["index", "--json"]);
        let (out, _) = run_measured(c);
        let v: serde_json::Value = serde_json::from_str(&out).expect("index JSON");
        assert!(
            v["stats"]["files_indexed"].as_u64().unwrap_or(0) > 50,
            "{v}"
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    mutator.join().expect("mutator");
    // Once the tree is still, the cache left by those runs answers as a fresh index.
    common::backdate(&repo);
    let graph = |no_cache: bool| {
        let mut c = cg(&home, &repo);
        if no_cache {
            c.arg("--no-cache");
        }
        c.args(["graph", "--json"]);
        run_measured(c).0
    };
    assert!(
        graph(false) == graph(true),
        "the cache after churn differs from --no-cache"
    );
}
