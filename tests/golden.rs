//! The canonical graph JSON: a golden snapshot of the multi-language fixture, and the same
//! bytes whatever the thread count.

mod common;

use codegraph_tui::index::{index_inputs, IndexOptions, RawInput};

fn canonical(idx: &codegraph_tui::index::Index) -> String {
    serde_json::to_string_pretty(&idx.graph.to_canonical_json()).unwrap()
}

#[test]
fn multi_fixture_graph_matches_golden() {
    let idx = common::index(&common::fixture("multi"), 2);
    insta::assert_snapshot!("multi_graph", canonical(&idx));
}

#[test]
fn one_and_four_threads_give_identical_bytes() {
    let root = common::fixture("");
    let one = canonical(&common::index(&root, 1));
    let four = canonical(&common::index(&root, 4));
    assert!(
        one.len() > 10_000,
        "the whole fixtures tree should give a sizeable graph"
    );
    assert!(one == four, "graph JSON differs between 1 and 4 threads");
}

#[test]
fn streaming_indexer_equals_batch() {
    let root = common::fixture("python");
    let mut inputs = Vec::new();
    for e in walk(&root) {
        let rel = e
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        inputs.push(RawInput {
            path: rel,
            bytes: std::fs::read(&e).unwrap(),
            language: None,
        });
    }
    let batch = index_inputs(inputs.clone(), &IndexOptions::default()).unwrap();
    let streaming = codegraph_tui::index::Indexer::new(IndexOptions {
        threads: 3,
        ..IndexOptions::default()
    })
    .unwrap();
    for i in inputs.into_iter().rev() {
        streaming.push(i);
    }
    let streamed = streaming.finish();
    assert_eq!(canonical(&batch), canonical(&streamed));
    assert!(batch.stats.definitions > 10);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn language_override_and_unknown_extension() {
    let inputs = vec![
        RawInput {
            path: "script".into(),
            bytes: b"def hello():\n    return world()\n\ndef world():\n    return 1\n".to_vec(),
            language: Some("python".into()),
        },
        RawInput {
            path: "notes.xyz".into(),
            bytes: b"anything".to_vec(),
            language: None,
        },
    ];
    let idx = index_inputs(inputs, &IndexOptions::default()).unwrap();
    assert_eq!(idx.stats.files_indexed, 1);
    assert_eq!(idx.stats.files_skipped_unsupported, 1);
    let e = idx
        .graph
        .edges()
        .into_iter()
        .find(|e| e.source == "script::hello")
        .expect("edge from hello");
    assert_eq!(e.target, "script::world");
    assert_eq!(e.sites[0].line, 2);
    assert_eq!(e.sites[0].column, 12);
}
