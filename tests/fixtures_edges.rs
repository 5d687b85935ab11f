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

/// The shared resolution cases this engine covers so far (the others need receiver typing,
/// tsconfig paths and Java: issue 3).
#[test]
fn shared_resolution_cases() {
    for case in ["rust-free-fn-vs-method", "ts-callback-in-timer"] {
        let root = common::shared(&format!("cases/resolution/{case}"));
        if !root.exists() {
            eprintln!("skipping {case}: ../shared is not present");
            continue;
        }
        let failures = common::check_expected(&root);
        assert!(failures.is_empty(), "{case}:\n{}", failures.join("\n"));
    }
}
