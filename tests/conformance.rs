//! Resolution conformance suite (`docs/accuracy.md#conformance-suite`).
//!
//! Every case under `tests/fixtures/conformance/<lang>/<case>/` is a tiny repo with an
//! `expected.json` of edges that must exist (`must`) and edges that must not
//! (`must_not`), each `{source, target, relation}` with ids as in `docs/contracts.md#node-ids`.
//! Per language: true positives are `must` edges present, false negatives `must` edges
//! absent, false positives `must_not` edges present; precision = TP/(TP+FP), recall =
//! TP/(TP+FN). An optional `"root"` names the folder of the case the tool is opened in
//! (ids are then relative to it). The table is printed (`cargo test --test conformance -- --nocapture`)
//! and both must be 1.0 for every language.

mod common;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use codegraph_tui::index::{index_repo, Index, IndexOptions};

/// Language folders, in table order.
const LANGUAGES: &[&str] = &[
    "python",
    "typescript",
    "javascript",
    "rust",
    "go",
    "java",
    "c",
    "cpp",
    "csharp",
    "php",
    "ruby",
    "kotlin",
    "bash",
    "lua",
    "swift",
    "scala",
    "dart",
    "elixir",
    "zig",
];

type Key = (String, String, String);

fn suite_root() -> PathBuf {
    common::fixture("conformance")
}

/// Sorted case directories of one language folder.
fn cases_of(lang: &str) -> Vec<PathBuf> {
    let dir = suite_root().join(lang);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    cases
}

fn keys(exp: &serde_json::Value, field: &str, case: &Path) -> Vec<Key> {
    exp[field]
        .as_array()
        .unwrap_or_else(|| panic!("{}: `{field}` is not an array", case.display()))
        .iter()
        .map(|m| {
            let s = |k: &str| {
                m[k].as_str()
                    .unwrap_or_else(|| panic!("{}: `{field}` entry without {k}", case.display()))
                    .to_string()
            };
            let rel = s("relation");
            assert!(
                ["calls", "references", "inherits", "implements", "imports"]
                    .contains(&rel.as_str()),
                "{}: unknown relation {rel}",
                case.display()
            );
            (s("source"), s("target"), rel)
        })
        .collect()
}

/// Why a `must` edge is absent, as far as the graph can say.
fn explain_missing(idx: &Index, (source, target, _): &Key) -> String {
    let mut notes = Vec::new();
    for id in [source, target] {
        if idx.graph.node(id).is_none() {
            notes.push(format!("no node `{id}`"));
        }
    }
    let callee = target
        .rsplit([':', '.'])
        .next()
        .unwrap_or(target.as_str())
        .to_string();
    for u in idx.graph.unresolved_of(source) {
        if *u.name == *callee {
            notes.push(format!(
                "unresolved `{}{}` ({}) at {}:{}",
                u.receiver
                    .as_deref()
                    .map(|r| format!("{r}."))
                    .unwrap_or_default(),
                u.name,
                u.reason.as_str(),
                u.site.line,
                u.site.column
            ));
        }
    }
    let other: Vec<String> = idx
        .graph
        .edges()
        .into_iter()
        .filter(|e| &e.source == source && e.target.ends_with(&callee) && &e.target != target)
        .map(|e| format!("{} -> {}", e.relation.as_str(), e.target))
        .collect();
    if !other.is_empty() {
        notes.push(format!("resolved instead: {}", other.join(", ")));
    }
    if notes.is_empty() {
        String::new()
    } else {
        format!("  [{}]", notes.join("; "))
    }
}

#[derive(Default)]
struct Score {
    cases: usize,
    must: usize,
    must_not: usize,
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Score {
    fn precision(&self) -> f64 {
        if self.tp + self.fp == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        }
    }

    fn recall(&self) -> f64 {
        if self.tp + self.fn_ == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fn_) as f64
        }
    }
}

#[test]
fn conformance_precision_and_recall() {
    let mut scores = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for lang in LANGUAGES {
        let mut score = Score::default();
        for case in cases_of(lang) {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let exp: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(case.join("expected.json"))
                    .unwrap_or_else(|e| panic!("{name}/expected.json: {e}")),
            )
            .unwrap_or_else(|e| panic!("{name}/expected.json: {e}"));
            let must = keys(&exp, "must", &case);
            let must_not = keys(&exp, "must_not", &case);
            // `"root": "shop"`: the tool is opened in that folder of the case (a package
            // folder, a folder below a `go.mod`); ids are relative to it.
            let root = match exp.get("root").and_then(|r| r.as_str()) {
                Some(r) => case.join(r),
                None => case.clone(),
            };
            let idx = index_repo(&root, &IndexOptions::default()).expect("index");
            let edges: BTreeSet<Key> = idx
                .graph
                .edges()
                .into_iter()
                .map(|e| (e.source, e.target, e.relation.as_str().to_string()))
                .collect();
            score.cases += 1;
            score.must += must.len();
            score.must_not += must_not.len();
            for k in &must {
                if edges.contains(k) {
                    score.tp += 1;
                } else {
                    score.fn_ += 1;
                    failures.push(format!(
                        "{lang}/{name}: missing {} {} -> {}{}",
                        k.2,
                        k.0,
                        k.1,
                        explain_missing(&idx, k)
                    ));
                }
            }
            for k in &must_not {
                if edges.contains(k) {
                    score.fp += 1;
                    failures.push(format!("{lang}/{name}: wrong {} {} -> {}", k.2, k.0, k.1));
                }
            }
        }
        scores.push((*lang, score));
    }

    let mut table = String::new();
    table.push_str("| language | cases | must | must_not | precision | recall |\n");
    table.push_str("|---|---:|---:|---:|---:|---:|\n");
    let mut total = Score::default();
    for (lang, s) in &scores {
        let _ = writeln!(
            table,
            "| {lang} | {} | {} | {} | {:.3} | {:.3} |",
            s.cases,
            s.must,
            s.must_not,
            s.precision(),
            s.recall()
        );
        total.cases += s.cases;
        total.must += s.must;
        total.must_not += s.must_not;
        total.tp += s.tp;
        total.fp += s.fp;
        total.fn_ += s.fn_;
    }
    let _ = writeln!(
        table,
        "| **all** | {} | {} | {} | {:.3} | {:.3} |",
        total.cases,
        total.must,
        total.must_not,
        total.precision(),
        total.recall()
    );
    println!("\n{table}");
    if !failures.is_empty() {
        println!("failing edges ({}):", failures.len());
        for f in &failures {
            println!("  {f}");
        }
    }

    for (lang, s) in &scores {
        assert!(s.cases > 0, "{lang}: no cases");
    }
    let below: Vec<String> = scores
        .iter()
        .filter(|(_, s)| s.precision() < 1.0 || s.recall() < 1.0)
        .map(|(lang, s)| {
            format!(
                "{lang} (precision {:.3}, recall {:.3})",
                s.precision(),
                s.recall()
            )
        })
        .collect();
    assert!(
        below.is_empty(),
        "below 1.0: {}\n{}",
        below.join(", "),
        failures.join("\n")
    );
}

/// Every shared resolution case (`../shared/cases/resolution/*`) is in the suite,
/// unchanged, under its own name.
#[test]
fn shared_resolution_cases_are_in_the_suite() {
    let dir = common::shared("cases/resolution");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: ../shared is not present");
        return;
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut problems = Vec::new();
    for name in names {
        let homes: Vec<PathBuf> = LANGUAGES
            .iter()
            .map(|l| suite_root().join(l).join(&name))
            .filter(|p| p.is_dir())
            .collect();
        let [home] = homes.as_slice() else {
            problems.push(format!(
                "{name}: in {} language folders, want 1",
                homes.len()
            ));
            continue;
        };
        let shared_files = files_under(&dir.join(&name));
        let suite_files = files_under(home);
        if shared_files.keys().collect::<Vec<_>>() != suite_files.keys().collect::<Vec<_>>() {
            problems.push(format!("{name}: file lists differ"));
            continue;
        }
        for (rel, text) in &shared_files {
            if suite_files.get(rel) != Some(text) {
                problems.push(format!("{name}: {rel} differs from ../shared"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn files_under(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}
