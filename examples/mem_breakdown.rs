//! Where an index's memory goes, by part: an estimate of heap bytes (each allocation
//! rounded up as glibc's malloc does: 8 bytes of header, 16-byte steps, 32 at least) for
//! the facts of every file and the graph's unresolved calls, to choose what to shrink.
//!
//! `cargo build --release --examples && target/release/examples/mem_breakdown DIR`
//! (`CODEGRAPH_THREADS` as for `index`). Prints one line per part: items, MiB.

use std::collections::BTreeMap;
use std::mem::size_of;

use codegraph_tui::index::facts::{CallSite, Definition};
use codegraph_tui::index::{index_repo, IndexOptions};

/// Bytes malloc gives for a request of `n` (0: no allocation).
fn heap(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (n + 8).div_ceil(16).max(2) * 16
    }
}

fn opt(s: Option<&str>) -> usize {
    s.map_or(0, |s| heap(s.len()))
}

fn main() {
    let root = std::env::args().nth(1).expect("usage: mem_breakdown DIR");
    let idx = index_repo(std::path::Path::new(&root), &IndexOptions::default()).expect("index");
    let mut parts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut add = |k: &'static str, n: usize, b: usize| {
        let e = parts.entry(k).or_default();
        e.0 += n;
        e.1 += b;
    };
    for f in &idx.files {
        add(
            "definitions (structs)",
            f.definitions.len(),
            heap(f.definitions.capacity() * size_of::<Definition>()),
        );
        for d in &f.definitions {
            add("definition ids", 1, heap(d.id.len() + 16));
            add("definition names", 1, heap(d.name.len() + 16));
            add("qualified names", 1, heap(d.qualified_name.len() + 16));
            add("signatures", 1, heap(d.signature.len()));
            if let Some(x) = &d.details {
                let b = heap(size_of::<codegraph_tui::index::facts::DefDetails>())
                    + opt(x.container.as_deref())
                    + opt(x.doc.as_deref())
                    + opt(x.returns.as_deref())
                    + opt(x.self_name.as_deref())
                    + heap(x.bases.capacity() * 64)
                    + x.bases.iter().map(|b| heap(b.name.len())).sum::<usize>();
                add("definition details", 1, b);
            }
        }
        add(
            "call sites (structs)",
            f.calls.len(),
            heap(f.calls.capacity() * size_of::<CallSite>()),
        );
        for c in &f.calls {
            add(
                "call site strings",
                1,
                heap(c.name.len()) + opt(c.receiver.as_deref()),
            );
        }
        add("chunks", f.chunks.len(), heap(f.chunks.capacity() * 16));
        add("imports", f.imports.len(), heap(f.imports.capacity() * 80));
        add(
            "bindings",
            f.bindings.len(),
            heap(f.bindings.capacity() * 64),
        );
    }
    let mut total = 0;
    for (k, (n, b)) in &parts {
        println!("{k:24} {n:>9} {:>8.1} MiB", *b as f64 / 1048576.0);
        total += b;
    }
    println!(
        "facts total              {:>18.1} MiB",
        total as f64 / 1048576.0
    );
    let unresolved: Vec<_> = idx.graph.all_unresolved().collect();
    let b: usize = unresolved
        .iter()
        .map(|u| {
            size_of::<codegraph_tui::index::Unresolved>()
                + heap(u.name.len())
                + opt(u.receiver.as_deref())
        })
        .sum();
    println!(
        "unresolved calls         {:>9} {:>8.1} MiB",
        unresolved.len(),
        b as f64 / 1048576.0
    );
    println!(
        "sizes: Definition {} B, CallSite {} B, graph Node {} B",
        size_of::<Definition>(),
        size_of::<CallSite>(),
        size_of::<codegraph_tui::index::Node>()
    );
}
