//! Replays the fuzzers' findings: every file under `tests/fixtures/fuzz/<target>/` goes
//! through the entry point the fuzz target `<target>` calls (`codegraph_tui::fuzzing`), the
//! input that once crashed, hung or overflowed it, so the fix stays (`fuzz/README.md`
//! says how a crash becomes a file here). Each input must finish without a panic and
//! within 2 s, the fuzzing limit for an input under 64 KiB. The template seeds of the
//! cache harness are checked to load, so a harness that no longer reaches the decoders
//! fails here rather than fuzzing nothing.

use std::path::Path;
use std::time::{Duration, Instant};

use codegraph_tui::fuzzing;

/// Runs `f` on every file of `tests/fixtures/fuzz/<target>/`; returns how many.
fn replay(target: &str, f: impl Fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    let mut files: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd.flatten().map(|e| e.path()).collect(),
        Err(_) => return 0,
    };
    files.sort();
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        let t = Instant::now();
        f(&bytes);
        let took = t.elapsed();
        assert!(
            took < Duration::from_secs(2),
            "{}: {took:?}, over the 2 s limit",
            p.display()
        );
    }
    files.len()
}

#[test]
fn extraction_findings_replay() {
    replay("extract", fuzzing::extract);
}

#[test]
fn snapshot_findings_replay() {
    replay("snapshot", |b| {
        fuzzing::snapshot(b);
    });
}

#[test]
fn search_file_findings_replay() {
    replay("search_files", fuzzing::search_files);
}

#[test]
fn text_index_findings_replay() {
    replay("text_index", fuzzing::text_index);
}

#[test]
fn mcp_findings_replay() {
    replay("mcp", fuzzing::mcp);
}

#[test]
fn parser_findings_replay() {
    replay("parsers", fuzzing::parsers);
}

/// The cache harness reaches the decoders: each part of the template resealed as it was
/// loads, and a part replaced by bytes that do not decode is refused (not trusted).
#[test]
fn the_snapshot_harness_loads_its_template_and_refuses_garbage() {
    let seeds = fuzzing::snapshot_seeds();
    assert_eq!(seeds.len(), 6, "one seed per snapshot part");
    for s in &seeds {
        assert!(fuzzing::snapshot(s), "template part {} does not load", s[0]);
    }
    for part in 0..6u8 {
        assert!(
            !fuzzing::snapshot(&[part, 0xff, 0xff, 0xff]),
            "part {part} of three 0xff bytes was trusted"
        );
    }
}

/// The MCP harness serves its seeds (a call of every tool, hostile paths, malformed
/// messages) within the fuzzing limit each, so a harness that no longer reaches the
/// server's tools fails here rather than fuzzing nothing.
#[test]
fn the_mcp_harness_serves_its_seeds() {
    let seeds = fuzzing::mcp_seeds();
    assert!(seeds.len() >= 20, "{} seeds", seeds.len());
    // The first session starts the server and indexes its repository.
    fuzzing::mcp(b"");
    for s in &seeds {
        let t = Instant::now();
        fuzzing::mcp(s);
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{:?}: {:?}",
            String::from_utf8_lossy(s),
            t.elapsed()
        );
    }
}
