//! Build script: fingerprints the engine's sources so an on-disk index written by a
//! different engine is never trusted (see `src/index/store/`).
//!
//! `CODEGRAPH_ENGINE_HASH` is a 64-bit FNV-1a hash (hex) over the relative path and bytes of
//! every file under `src/index/` and `queries/`, in path order. Any change to extraction,
//! resolution or the fact types changes it; the cost is one cache rebuild.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let mut all = Vec::new();
    for d in ["src/index", "queries"] {
        println!("cargo:rerun-if-changed={d}");
        files(Path::new(d), &mut all);
    }
    all.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for p in &all {
        feed(p.to_string_lossy().as_bytes());
        feed(&std::fs::read(p).unwrap_or_default());
    }
    println!("cargo:rustc-env=CODEGRAPH_ENGINE_HASH={h:016x}");
    build_children();
}

/// Compiles `src/index/lang/children.c`, which reads tree-sitter's internal headers: those
/// of the very tree-sitter crate this build links (its build script reports its `include`
/// folder as `DEP_TREE_SITTER_INCLUDE`; the internal headers are in the `src` folder beside
/// it), with the flags tree-sitter's own build uses.
fn build_children() {
    let include = PathBuf::from(
        std::env::var("DEP_TREE_SITTER_INCLUDE")
            .expect("tree-sitter's build script reports its include folder"),
    );
    let src = include.parent().map(|p| p.join("src")).unwrap_or_default();
    println!("cargo:rerun-if-env-changed=DEP_TREE_SITTER_INCLUDE");
    cc::Build::new()
        .std("c11")
        .include(&src)
        .include(&include)
        .define("_POSIX_C_SOURCE", "200112L")
        .define("_DEFAULT_SOURCE", None)
        .flag_if_supported("-fvisibility=hidden")
        .warnings(false)
        .file("src/index/lang/children.c")
        .compile("codegraph-children");
}
