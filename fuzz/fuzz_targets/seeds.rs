//! Writes the starting corpus of every target into `OUT/<target>/`: for `extract`, every
//! file under the SRC folders (under 64 KiB) behind the selector byte of its path's
//! language; for `parsers`, sample queries, the built-in themes and config files; for the
//! cache targets and `mcp`, the harness's own seeds (`codegraph_tui::fuzzing::*_seeds`).
//! Usage: `seeds OUT [SRC...]` (`fuzz/run.sh` passes `tests/fixtures` and
//! `../shared/cases`).

use std::path::{Path, PathBuf};

use codegraph_tui::fuzzing;

fn main() {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().unwrap_or_else(|| "corpus".into()));
    let srcs: Vec<PathBuf> = args.map(PathBuf::from).collect();

    let mut files = Vec::new();
    for s in &srcs {
        walk(s, &mut files);
    }
    let paths = fuzzing::extraction_paths();
    let mut extract = Vec::new();
    for f in &files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let ext = name.rsplit_once('.').map(|(_, e)| format!("f.{e}"));
        let pick = paths.iter().position(|p| {
            let last = p.rsplit('/').next().unwrap_or(p);
            last == name || ext.as_deref() == Some(last)
        });
        if let (Some(i), Ok(bytes)) = (pick, std::fs::read(f)) {
            if bytes.len() < 64 << 10 {
                let mut s = vec![i as u8];
                s.extend_from_slice(&bytes);
                extract.push(s);
            }
        }
    }

    let mut parsers: Vec<Vec<u8>> = [
        "parse args",
        "\"exact phrase\" path:src/ lang:rust kind:function",
        "path:\"a b\" kind:method helper",
        "lang:python lang:go Base::helper",
        "the of and",
    ]
    .iter()
    .map(|q| [&[0u8][..], q.as_bytes()].concat())
    .collect();
    parsers.push(b"\x01ignore_globs = [\"*.gen.rs\", \"vendor/**\"]\nmax_file_bytes = 100000\nthreads = 2\nwindow_lines = 30\nwindow_step = 15\ntheme = \"light\"\n".to_vec());
    for (i, (_, text)) in codegraph_tui::tui::theme::BUILTIN.iter().enumerate() {
        parsers.push([&[2u8, i as u8][..], text.as_bytes()].concat());
    }

    let sets = [
        ("extract", extract),
        ("parsers", parsers),
        ("snapshot", fuzzing::snapshot_seeds()),
        ("search_files", fuzzing::search_files_seeds()),
        ("text_index", fuzzing::text_index_seeds()),
        ("mcp", fuzzing::mcp_seeds()),
    ];
    for (target, seeds) in sets {
        let d = out.join(target);
        std::fs::create_dir_all(&d).expect("seed folder");
        for (i, s) in seeds.iter().enumerate() {
            std::fs::write(d.join(format!("seed-{i:04}")), s).expect("seed file");
        }
        println!("{target}: {} seeds", seeds.len());
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        // Not followed: the hostile-input cases hold symlink loops and FIFOs.
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            walk(&p, out);
        } else if meta.is_file() {
            out.push(p);
        }
    }
}
