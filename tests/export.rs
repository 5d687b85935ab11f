//! Exports parse back: JSON against `assets/subgraph.schema.json`, GraphML with an XML
//! parser, DOT through Graphviz (`dot -Tsvg`, where installed: `.ci/run` installs it),
//! Mermaid with a small reader of the lines we write. Labels with quotes, angle brackets,
//! backslashes, ampersands, `#`, backquotes and non-ASCII must come back unchanged.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use codegraph_tui::index::export::{render, Format};
use codegraph_tui::index::graph::{Edge, Node, Site, Subgraph, Tier};
use codegraph_tui::index::{CodeGraph, Kind, Relation, Walk};

/// A graph whose ids and names hold every character the formats escape.
fn hostile() -> CodeGraph {
    let file = "src/we\"ird <dir>/a\\b & c.py";
    let node = |name: &str, line: u32| Node {
        id: format!("{file}::{name}").as_str().into(),
        kind: Kind::Function,
        name: name.rsplit('.').next().unwrap_or(name).into(),
        qualified_name: format!("pkg.{name}").as_str().into(),
        file: file.into(),
        start_line: line,
        end_line: line + 1,
        language: "python".into(),
    };
    let names = [
        "plain",
        "quote\"d",
        "angle<T>",
        "back\\slash\\",
        "amp&amp;x",
        "hash#35;`tick`",
        "ünï_cødé_名前",
        "pipe|brace{}[x]",
        "ctl\u{1b}[2J\u{7}",
    ];
    let nodes: Vec<Node> = names
        .iter()
        .enumerate()
        .map(|(i, n)| node(n, 10 * i as u32 + 1))
        .collect();
    let mut edges = Vec::new();
    for w in nodes.windows(2) {
        edges.push(Edge {
            source: w[0].id.to_string(),
            target: w[1].id.to_string(),
            relation: if &*w[1].name == "plain" {
                Relation::References
            } else {
                Relation::Calls
            },
            resolution: Tier::Import,
            confidence: Tier::Import.confidence(),
            sites: vec![Site {
                file: file.into(),
                line: w[0].start_line,
                column: 5,
            }],
        });
    }
    // a callback reference back to the start
    edges.push(Edge {
        source: nodes[7].id.to_string(),
        target: nodes[0].id.to_string(),
        relation: Relation::References,
        resolution: Tier::Local,
        confidence: Tier::Local.confidence(),
        sites: vec![],
    });
    CodeGraph::build(nodes, edges, vec![])
}

/// What the text formats show for a control character (`\x1b`), as the terminal does.
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\t' => "\\t".to_string(),
            '\r' => "\\r".to_string(),
            c if c.is_control() => format!("\\x{:02x}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

fn subgraphs() -> Vec<Subgraph> {
    let g = hostile();
    let root = g
        .nodes()
        .find(|n| &*n.name == "plain")
        .unwrap()
        .id
        .to_string();
    let mut out = vec![g.walk(&root, Walk::Both, 10).unwrap()];
    let idx = common::index(&common::fixture("rust"), 2);
    for (id, w) in [
        ("src/inventory.rs::round_cents", Walk::Callers),
        ("src/lib.rs::run_report", Walk::Callees),
        ("src/report.rs::render_path", Walk::Both),
    ] {
        out.push(idx.graph.walk(id, w, 3).expect(id));
    }
    out
}

#[test]
fn json_export_is_the_walk_and_passes_the_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/subgraph.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    for sub in subgraphs() {
        let text = render(&sub, Format::Json);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", sub.root);
        assert_eq!(v, serde_json::to_value(&sub).unwrap());
        assert_eq!(v["nodes"].as_array().unwrap().len(), sub.nodes.len());
    }
    // The schema rejects what the contract forbids.
    let mut bad = serde_json::to_value(&subgraphs()[0]).unwrap();
    bad["edges"][0]["relation"] = "likes".into();
    assert!(!validator.is_valid(&bad));
    let mut bad = serde_json::to_value(&subgraphs()[0]).unwrap();
    bad["nodes"][0]["start_line"] = 0.into();
    assert!(!validator.is_valid(&bad));
}

#[test]
fn graphml_parses_back_to_the_same_graph() {
    for sub in subgraphs() {
        let text = render(&sub, Format::Graphml);
        let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
        let ns = "http://graphml.graphdrawing.org/xmlns";
        let rootel = doc.root_element();
        assert!(rootel.has_tag_name((ns, "graphml")));
        let keys: BTreeMap<&str, &str> = rootel
            .children()
            .filter(|n| n.has_tag_name((ns, "key")))
            .map(|k| {
                (
                    k.attribute("id").unwrap(),
                    k.attribute("attr.name").unwrap(),
                )
            })
            .collect();
        let data = |n: roxmltree::Node| -> BTreeMap<String, String> {
            n.children()
                .filter(|c| c.has_tag_name((ns, "data")))
                .map(|d| {
                    (
                        keys[d.attribute("key").unwrap()].to_string(),
                        d.text().unwrap_or("").to_string(),
                    )
                })
                .collect()
        };
        let graph = rootel
            .children()
            .find(|n| n.has_tag_name((ns, "graph")))
            .unwrap();
        assert_eq!(graph.attribute("edgedefault"), Some("directed"));
        assert_eq!(data(graph)["root"], sub.root);
        let nodes: Vec<_> = graph
            .children()
            .filter(|n| n.has_tag_name((ns, "node")))
            .collect();
        assert_eq!(nodes.len(), sub.nodes.len());
        for (x, n) in nodes.iter().zip(&sub.nodes) {
            assert_eq!(x.attribute("id"), Some(visible(&n.id).as_str()));
            let d = data(*x);
            assert_eq!(d["qualified_name"], visible(&n.qualified_name));
            assert_eq!(d["name"], visible(&n.name));
            assert_eq!(d["file"], *n.file);
            assert_eq!(d["start_line"], n.start_line.to_string());
            assert_eq!(d["kind"], n.kind.as_str());
        }
        let edges: Vec<_> = graph
            .children()
            .filter(|n| n.has_tag_name((ns, "edge")))
            .collect();
        assert_eq!(edges.len(), sub.edges.len());
        for (x, e) in edges.iter().zip(&sub.edges) {
            assert_eq!(x.attribute("source"), Some(visible(&e.source).as_str()));
            assert_eq!(x.attribute("target"), Some(visible(&e.target).as_str()));
            let d = data(*x);
            assert_eq!(d["relation"], e.relation.as_str());
            let sites: Vec<Site> = serde_json::from_str(&d["sites"]).unwrap();
            assert_eq!(sites, e.sites);
            assert_eq!(d["confidence"].parse::<f64>().unwrap(), e.confidence);
        }
    }
}

/// Undoes Mermaid entity codes (`#quot;`, `#35;`, ...), as Mermaid does before drawing.
fn mermaid_unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after.find(';').expect("entity ends with ;");
        let ent = &after[..end];
        out.push(match ent {
            "quot" => '"',
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            n => char::from_u32(n.parse().expect("numeric entity")).unwrap(),
        });
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn mermaid_reads_back_labels_and_edges() {
    for sub in subgraphs() {
        let text = render(&sub, Format::Mermaid);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("graph LR"));
        let mut labels = Vec::new();
        let mut edges = 0;
        for l in lines {
            let l = l.trim();
            if l.starts_with("%%") || l.starts_with("classDef") || l.starts_with("class ") {
                continue;
            }
            if let Some((id, rest)) = l.split_once("[\"") {
                assert_eq!(id, format!("n{}", labels.len()));
                let body = rest.strip_suffix("\"]").expect("label closes");
                assert!(!body.contains('"'), "raw quote in {body}");
                let (a, b) = body.split_once("<br/>").unwrap();
                labels.push((mermaid_unescape(a), mermaid_unescape(b)));
            } else {
                let parts: Vec<&str> = l.split_whitespace().collect();
                assert!(
                    parts.len() >= 3
                        && (parts[1].starts_with("-->") || parts[1].starts_with("-.->")),
                    "unexpected line {l:?}"
                );
                edges += 1;
            }
        }
        let want: Vec<(String, String)> = sub
            .nodes
            .iter()
            .map(|n| {
                (
                    visible(&n.qualified_name),
                    format!("{}:{}", n.file, n.start_line),
                )
            })
            .collect();
        assert_eq!(labels, want);
        assert_eq!(edges, sub.edges.len());
    }
}

#[test]
fn dot_renders_with_graphviz_and_labels_survive() {
    if Command::new("dot").arg("-V").output().is_err() {
        eprintln!("SKIP: graphviz `dot` is not installed (.ci/run installs it)");
        return;
    }
    for sub in subgraphs() {
        let text = render(&sub, Format::Dot);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.dot");
        std::fs::write(&p, &text).unwrap();
        let out = Command::new("dot").arg("-Tsvg").arg(&p).output().unwrap();
        assert!(
            out.status.success(),
            "dot failed: {}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
        let svg = String::from_utf8(out.stdout).unwrap();
        let opts = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        };
        let doc = roxmltree::Document::parse_with_options(&svg, opts).expect("SVG is XML");
        let mut shown: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for g in doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("node"))
        {
            let title = g
                .descendants()
                .find(|n| n.has_tag_name("title"))
                .and_then(|t| t.text())
                .unwrap()
                .to_string();
            let texts = g
                .descendants()
                .filter(|n| n.has_tag_name("text"))
                .map(|t| t.text().unwrap_or("").to_string())
                .collect();
            shown.insert(title, texts);
        }
        assert_eq!(shown.len(), sub.nodes.len());
        for (i, n) in sub.nodes.iter().enumerate() {
            assert_eq!(
                shown[&format!("n{i}")],
                vec![
                    visible(&n.qualified_name),
                    format!("{}:{}", n.file, n.start_line)
                ],
                "label of {}",
                n.id
            );
        }
        let edges = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("edge"))
            .count();
        assert_eq!(edges, sub.edges.len());
    }
}

fn cg() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("codegraph-tui").unwrap();
    c.env(
        "CODEGRAPH_CONFIG",
        "/nonexistent/codegraph-test-config.toml",
    );
    // Caches of test runs stay under target/, never in the user's cache folder.
    c.env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
    c
}

#[test]
fn cli_export_writes_each_format_and_never_overwrites_without_force() {
    let root = common::fixture("rust");
    let dir = tempfile::tempdir().unwrap();
    let json_stdout = cg()
        .arg("-C")
        .arg(&root)
        .args([
            "export",
            "run_report",
            "--direction",
            "callees",
            "--depth",
            "2",
        ])
        .output()
        .unwrap();
    assert!(json_stdout.status.success());
    let walked = cg()
        .arg("-C")
        .arg(&root)
        .args(["callees", "run_report", "--depth", "2", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        json_stdout.stdout, walked.stdout,
        "export --format json is the callees --json subgraph"
    );
    for f in Format::ALL {
        let out = dir.path().join(format!("g.{}", f.extension()));
        let run = |force: bool| {
            let mut c = cg();
            c.arg("-C").arg(&root).args([
                "export",
                "src/lib.rs::run_report",
                "--format",
                f.as_str(),
                "-o",
            ]);
            c.arg(&out);
            if force {
                c.arg("--force");
            }
            c.output().unwrap()
        };
        assert!(run(false).status.success());
        let first = std::fs::read_to_string(&out).unwrap();
        assert!(!first.is_empty());
        std::fs::write(&out, "keep me").unwrap();
        let again = run(false);
        assert_eq!(again.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
        assert!(run(true).status.success());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), first);
    }
    let bad = cg()
        .arg("-C")
        .arg(&root)
        .args(["export", "run_report", "--format", "svg"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn force_never_replaces_a_symlink_or_a_device() {
    let root = common::fixture("rust");
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("real.json");
    std::fs::write(&target, "keep me").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = dir.path().join("pipe.json");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for path in [&link, &fifo] {
        let out = cg()
            .arg("-C")
            .arg(&root)
            .args(["export", "src/lib.rs::run_report", "--force", "-o"])
            .arg(path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
    }
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

/// `--direction both` is the callers and the callees of the root, not a walk that turns
/// around: the other callees of `save_item`'s callers (`validate`, `render_json`) are not in
/// it (a walk that turned around would make "both" twice the size of callers plus
/// callees).
#[test]
fn both_directions_are_callers_plus_callees() {
    let idx = codegraph_tui::index::index_repo(
        &common::fixture("python"),
        &codegraph_tui::index::IndexOptions::default(),
    )
    .unwrap();
    let g = &idx.graph;
    let root = "app/store.py::save_item";
    let ids = |w: Walk| -> std::collections::BTreeSet<String> {
        g.walk(root, w, 2)
            .unwrap()
            .nodes
            .iter()
            .map(|n| n.id.to_string())
            .collect()
    };
    let both = ids(Walk::Both);
    let union: std::collections::BTreeSet<String> = ids(Walk::Callers)
        .union(&ids(Walk::Callees))
        .cloned()
        .collect();
    assert_eq!(both, union);
    let sub = g.walk(root, Walk::Both, 2).unwrap();
    assert_eq!(sub.direction, "both");
    let edges = |w: Walk| g.walk(root, w, 2).unwrap().edges.len();
    assert_eq!(sub.edges.len(), edges(Walk::Callers) + edges(Walk::Callees));
}
