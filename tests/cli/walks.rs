//! The walks' text output: the lower bound of calls left out, and each node expanded at its
//! shortest distance from the root.

use super::{cg, common};

#[test]
fn the_lower_bound_counts_only_calls_that_could_add_within_the_depth() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.py"),
        "def top():\n    mid()\n    zzz_missing_one()\n\n\
         def mid():\n    yyy_missing_two()\n",
    )
    .unwrap();
    let unresolved = |depth: &str| {
        let v: serde_json::Value = common::json_of(
            cg().arg("-C")
                .arg(dir.path())
                .args([
                    "--no-cache",
                    "callees",
                    "m.py::top",
                    "--json",
                    "--depth",
                    depth,
                ])
                .output()
                .unwrap(),
        );
        v["unresolved"].as_u64().unwrap()
    };
    // Depth 1: `mid` is a leaf; its unresolved call would only add at depth 2.
    assert_eq!(unresolved("1"), 1);
    assert_eq!(unresolved("2"), 2);
}

/// The text tree has at most `--depth` levels, each node expanded where it is nearest the
/// root: `mid` is met first under `a_first` (depth 2) but is a direct callee (depth 1), so
/// `leaf` is listed under the depth-1 `mid`, never at a third level.
#[test]
fn the_text_tree_expands_each_node_at_its_shortest_distance() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.py"),
        "def leaf():\n    pass\n\ndef mid():\n    leaf()\n\n\
         def a_first():\n    mid()\n\ndef top():\n    a_first()\n    mid()\n",
    )
    .unwrap();
    let out = cg()
        .arg("-C")
        .arg(dir.path())
        .args([
            "--no-cache",
            "--color",
            "never",
            "callees",
            "m.py::top",
            "--depth",
            "2",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<(usize, &str)> = text
        .lines()
        .map(|l| {
            let indent = l.len() - l.trim_start().len();
            (indent / 2, l.trim_start().split(' ').next().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        lines,
        [
            (0, "m.top"),
            (1, "m.a_first"),
            (2, "m.mid"),
            (1, "m.mid"),
            (2, "m.leaf")
        ],
        "{text}"
    );
    assert!(
        text.lines().nth(2).unwrap().ends_with("(see below)"),
        "{text}"
    );
}
