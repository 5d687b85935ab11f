//! The hostile inputs of `../shared/cases/bad-inputs`: each ends as `expected.json` says
//! (indexed, windowed, skipped with its reason, or ignored), nothing panics or hangs, and
//! the neighbours are still indexed with their edges.

mod common;

use std::process::Command;

use codegraph_tui::index::facts::FileMode;
use codegraph_tui::index::SkipReason;

#[test]
fn bad_inputs_end_as_expected() {
    let case = common::shared("cases/bad-inputs");
    if !case.exists() {
        eprintln!("skipping: ../shared is not present");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("bad");
    let st = Command::new("bash")
        .arg(case.join("make.sh"))
        .arg(&repo)
        .status()
        .expect("run make.sh");
    assert!(st.success());
    let idx = common::index(&repo, 2);
    let exp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
            .unwrap();
    let edges: Vec<(String, String)> = idx
        .graph
        .edges()
        .into_iter()
        .map(|e| (e.source, e.target))
        .collect();
    let mut failures = Vec::new();
    for c in exp["cases"].as_array().unwrap() {
        let path = c["path"].as_str().unwrap();
        let outcome = c["outcome"].as_str().unwrap();
        let facts = idx.files.iter().find(|f| f.path == path);
        let skipped = idx.skipped.iter().find(|(p, _)| p == path).map(|(_, r)| *r);
        let ok = match outcome {
            "indexed" => facts.is_some_and(|f| f.mode == FileMode::Parsed),
            "windowed" => {
                facts.is_some_and(|f| f.mode == FileMode::Windowed && !f.chunks.is_empty())
            }
            "skipped:binary" => skipped == Some(SkipReason::Binary),
            "skipped:too_large" => skipped == Some(SkipReason::TooLarge),
            o if o.starts_with("ignored") => facts.is_none() && skipped.is_none(),
            // not a file / not a regular file / symlinks: never indexed, never fatal.
            _ => facts.is_none(),
        };
        if !ok {
            failures.push(format!(
                "{path:?}: expected {outcome}, got facts={:?} skipped={skipped:?}",
                facts.map(|f| f.mode)
            ));
        }
        for name in c["definitions"].as_array().into_iter().flatten() {
            let name = name.as_str().unwrap();
            if !facts.is_some_and(|f| f.definitions.iter().any(|d| &*d.name == name)) {
                failures.push(format!("{path:?}: definition {name} not found"));
            }
        }
        for e in c["edges"].as_array().into_iter().flatten() {
            let pair = (
                e[0].as_str().unwrap().to_string(),
                e[1].as_str().unwrap().to_string(),
            );
            if !edges.contains(&pair) {
                failures.push(format!("{path:?}: edge {pair:?} missing"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let s = &idx.stats;
    assert!(s.paths_ignored >= 1, "ignored_dir counted");
    assert!(
        s.files_skipped_symlink >= 3,
        "three symlinks counted: {s:?}"
    );
    assert_eq!(s.files_skipped_special, 1, "the FIFO counted");
    // BOM and CRLF: columns are not shifted and no CR reaches names or signatures.
    let bom = idx
        .files
        .iter()
        .find(|f| f.path == "py/bom_crlf.py")
        .unwrap();
    let call = &bom.calls[0];
    assert_eq!(
        (call.name.as_str(), call.line, call.column),
        ("with_bom", 5, 12)
    );
    assert!(bom
        .definitions
        .iter()
        .all(|d| !d.signature.contains('\r') && !d.name.contains('\r')));
    assert_eq!(bom.definitions[0].start_line, 1);
}

#[test]
fn a_file_name_that_is_not_utf8_is_counted_not_dropped() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("r");
    std::fs::create_dir_all(repo.join("pkg")).unwrap();
    std::fs::write(repo.join("pkg/good.py"), "def good():\n    return 1\n").unwrap();
    let bad = repo.join(std::ffi::OsStr::from_bytes(b"pkg/bad\xff.py"));
    std::fs::write(&bad, "def hidden():\n    return 2\n").unwrap();
    let idx = common::index(&repo, 2);
    assert_eq!(idx.stats.files_seen, 2);
    assert_eq!(idx.stats.files_indexed, 1);
    assert_eq!(idx.stats.files_skipped_unreadable, 1, "{:?}", idx.skipped);
    assert_eq!(
        idx.skipped,
        vec![("pkg/bad\u{fffd}.py".to_string(), SkipReason::Unreadable)]
    );
    assert!(idx.graph.node("pkg/good.py::good").is_some());
}
