//! The cache harness: a template repository and its saved snapshot, built once per
//! process, copied afresh for every input, with one part replaced by the input (resealed
//! by [`reseal_part`], so the decoders see it, not the checksum that would refuse it), then
//! read back every way the commands read a cache.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{scratch_lock, work_dir};
use crate::index::graph::Walk;
use crate::index::store::{reseal_part, Part, Store};
use crate::index::{index_repo, CodeGraph, Index, IndexOptions};

/// The template repository: small files of three languages with definitions, calls
/// across files, imports, a class hierarchy and calls that stay unresolved, so every
/// part of a snapshot has records.
pub(crate) static FIXTURE: &[(&str, &str)] = &[
    (
        "app.py",
        "import util\nfrom util import Base\n\n\nclass App(Base):\n    \"\"\"The app.\"\"\"\n\n    def run(self, argv):\n        util.parse(argv)\n        self.helper()\n        missing_call(argv)\n\n    def helper(self):\n        return len([])\n\n\ndef main():\n    App().run([])\n",
    ),
    (
        "util.py",
        "class Base:\n    def helper(self):\n        pass\n\n\ndef parse(argv):\n    return [a for a in argv if a]\n",
    ),
    (
        "src/lib.rs",
        "//! A crate.\nmod inner;\n\n/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    inner::twice(a) + b\n}\n\npub struct S;\n\nimpl S {\n    pub fn go(&self) -> i32 {\n        add(1, 2) + unknown::thing()\n    }\n}\n",
    ),
    (
        "src/inner.rs",
        "pub fn twice(x: i32) -> i32 {\n    x * 2\n}\n",
    ),
    (
        "main.go",
        "package main\n\nimport \"fmt\"\n\ntype T struct{}\n\nfunc (t T) Run() { fmt.Println(helper()) }\n\nfunc helper() int { return 1 }\n\nfunc main() { T{}.Run() }\n",
    ),
];

/// The template: the repository's canonical root, the options it was indexed with, its
/// index, and every file of its cache folder (relative path, bytes; the lock file left out).
pub(crate) struct Template {
    /// Where the scratch copies go.
    dir: PathBuf,
    /// The repository's canonical root.
    pub(crate) root: PathBuf,
    /// The options it was indexed and saved with.
    pub(crate) options: IndexOptions,
    /// Its index.
    pub(crate) index: Index,
    /// The cache folder's files.
    files: Vec<(PathBuf, Vec<u8>)>,
}

/// The template, built on first use.
pub(crate) fn template() -> &'static Template {
    static T: OnceLock<Template> = OnceLock::new();
    T.get_or_init(|| {
        let dir = work_dir("snapshot");
        let root = dir.join("repo");
        for (path, text) in FIXTURE {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap_or(&root)).expect("template folder");
            std::fs::write(&p, text).expect("template file");
        }
        let root = root.canonicalize().expect("template root");
        let options = IndexOptions {
            threads: 1,
            ..IndexOptions::default()
        };
        let index = index_repo(&root, &options).expect("template index");
        let cache = dir.join("template-cache");
        let store = Store::open(&cache, false).expect("template cache");
        store.save(&index, &options).expect("template save");
        drop(store);
        let mut files = Vec::new();
        collect(&cache, &cache, &mut files);
        Template {
            dir,
            root,
            options,
            index,
            files,
        }
    })
}

fn collect(base: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(base, &p, out);
        } else if e.file_name() != "lock" {
            let rel = p.strip_prefix(base).unwrap_or(&p).to_path_buf();
            out.push((rel, std::fs::read(&p).expect("template cache file")));
        }
    }
}

/// Seeds for [`snapshot`]: for each part of [`Part::ALL`], its selector byte and the
/// template's own payload of that part (the bytes after the header), so the fuzzer starts
/// from inputs that load.
pub fn snapshot_seeds() -> Vec<Vec<u8>> {
    let t = template();
    let mut seeds = Vec::new();
    for (i, part) in Part::ALL.iter().enumerate() {
        let Some((_, bytes)) = t.files.iter().find(|(p, _)| p.ends_with(part.file())) else {
            continue;
        };
        // Header: magic (8), fingerprint length (u16 LE) and bytes, length (8), BLAKE3 (32).
        let fp = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        let head = 10 + fp + 8 + 32;
        let mut seed = vec![i as u8];
        seed.extend_from_slice(&bytes[head..]);
        seeds.push(seed);
    }
    seeds
}

/// One hostile snapshot: `data[0]` picks the part of [`Part::ALL`], the rest is its
/// payload. The template's cache is copied, the part replaced and resealed, and the
/// snapshot read as the commands read one: the manifest (`summary`), the checksums
/// (`verify`), the graph alone (`load_graph`, every lazily decoded node and unresolved
/// call forced), the facts for that graph (`load_facts`), and a full load followed by
/// what an update and a search prepare from it. Every load may refuse the snapshot; none
/// may panic, and what loads must be usable. Returns whether the full load accepted it.
pub fn snapshot(data: &[u8]) -> bool {
    let Some((&pick, payload)) = data.split_first() else {
        return false;
    };
    let part = Part::ALL[pick as usize % Part::ALL.len()];
    let t = template();
    let _scratch = scratch_lock();
    let cache = t.dir.join("cache");
    let _ = std::fs::remove_dir_all(&cache);
    for (rel, bytes) in &t.files {
        let p = cache.join(rel);
        let _ = std::fs::create_dir_all(p.parent().unwrap_or(&cache));
        std::fs::write(&p, bytes).expect("scratch cache file");
    }
    reseal_part(&cache, part, payload).expect("reseal a part of the template");
    let store = Store::open(&cache, false).expect("scratch cache");
    if let Ok(summary) = store.summary(&t.root, &t.options) {
        let _ = store.verify(&summary);
        if let Ok(graph) = store.load_graph(&summary) {
            use_graph(&graph);
            let _ = store.load_facts(&summary, &graph);
        }
    }
    let Ok(index) = store.load(&t.root, &t.options) else {
        return false;
    };
    use_graph(&index.graph);
    index.prepare_updates();
    let _ = crate::index::search::collect_chunks(&index);
    true
}

/// Reads all of `graph` the way the views and commands do: every node decoded, the
/// canonical JSON (nodes, edges, unresolved calls), and per node its walks, lookups by
/// name, container and unresolved calls.
fn use_graph(graph: &CodeGraph) {
    graph.decode_all();
    let _ = graph.to_canonical_json();
    let _ = (graph.edge_counts(), graph.unresolved_count());
    let _ = graph.unresolved_callers();
    for n in graph.nodes().take(64) {
        let _ = graph.walk(&n.id, Walk::Both, 3);
        let _ = graph.lookup(&n.name);
        let _ = graph.lookup(&n.qualified_name);
        let _ = graph.container(&n.id);
        let _ = graph.unresolved_of(&n.id);
        let _ = graph.pinned_matches(&n.name);
    }
}
