//! Per-language fixture repos: every `must` edge exists and no `must_not` edge does.

mod common;

fn assert_fixture(name: &str) {
    let failures = common::check_expected(&common::fixture(name));
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
}

#[test]
fn rust_fixture_edges() {
    assert_fixture("rust");
}

#[test]
fn python_fixture_edges() {
    assert_fixture("python");
}

#[test]
fn javascript_fixture_edges() {
    assert_fixture("javascript");
}

#[test]
fn typescript_and_tsx_fixture_edges() {
    assert_fixture("typescript");
}

#[test]
fn go_fixture_edges() {
    assert_fixture("go");
}

#[test]
fn multi_language_fixture_edges() {
    assert_fixture("multi");
}

/// Every shared resolution case (`../shared/cases/resolution/*`).
#[test]
fn shared_resolution_cases() {
    let dir = common::shared("cases/resolution");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: ../shared is not present");
        return;
    };
    let mut cases: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    cases.sort();
    assert!(cases.len() >= 5);
    for case in cases {
        let root = common::shared(&format!("cases/resolution/{case}"));
        if !root.exists() {
            eprintln!("skipping {case}: ../shared is not present");
            continue;
        }
        let failures = common::check_expected(&root);
        assert!(failures.is_empty(), "{case}:\n{}", failures.join("\n"));
    }
}

#[test]
fn c_cpp_csharp_fixture_edges() {
    assert_fixture("clike");
}
