//! Search chunks: one per definition, with a container over the size cap reduced to its
//! header (its members have chunks of their own), and overlapping line windows over the
//! regions no top-level definition covers (all of a windowed file). Lines are 1-based and
//! inclusive, as in the graph.

use super::facts::{Chunk, ChunkKind, Definition, Kind};
use super::lines::LineIndex;

/// Chunking limits.
#[derive(Debug, Clone)]
pub struct ChunkOptions {
    /// A container (class, impl, ...) longer than this many lines is split: its chunk keeps
    /// only the lines before its first member. Default 200.
    pub max_container_lines: u32,
    /// Lines per window. Default 40.
    pub window_lines: u32,
    /// Lines between window starts (window_lines − step lines overlap). Default 30.
    pub window_step: u32,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            max_container_lines: 200,
            window_lines: 40,
            window_step: 30,
        }
    }
}

/// Builds the chunks of a file from its definitions (empty for windowed files).
pub(crate) fn build(
    defs: &[Definition],
    text: &str,
    lines: &LineIndex,
    n_lines: u32,
    o: &ChunkOptions,
) -> Vec<Chunk> {
    let mut out = Vec::new();
    for (i, d) in defs.iter().enumerate() {
        let len = d.end_line - d.start_line + 1;
        let is_container =
            !d.kind.is_callable() && d.kind != Kind::Constant && d.kind != Kind::TypeAlias;
        let end = if is_container && len > o.max_container_lines {
            let first_member = defs.iter().skip(i + 1).find(|m| m.parent == Some(i as u32));
            match first_member {
                Some(m) if m.start_line > d.start_line => m.start_line - 1,
                _ => d.start_line,
            }
        } else {
            d.end_line
        };
        out.push(Chunk {
            kind: ChunkKind::Symbol,
            definition: Some(i as u32),
            start_line: d.start_line,
            end_line: end,
        });
    }
    // Gaps between top-level definitions get windows.
    let mut covered: Vec<(u32, u32)> = defs
        .iter()
        .filter(|d| d.parent.is_none())
        .map(|d| (d.start_line, d.end_line))
        .collect();
    covered.sort();
    let mut line = 1;
    let mut gaps = Vec::new();
    for (s, e) in covered {
        if s > line {
            gaps.push((line, s - 1));
        }
        line = line.max(e + 1);
    }
    if line <= n_lines {
        gaps.push((line, n_lines));
    }
    let step = o.window_step.max(1);
    let size = o.window_lines.max(1);
    for (a, b) in gaps {
        if !(a..=b).any(|l| !lines.line(text, l).trim().is_empty()) {
            continue;
        }
        let mut s = a;
        loop {
            let e = (s + size - 1).min(b);
            out.push(Chunk {
                kind: ChunkKind::Window,
                definition: None,
                start_line: s,
                end_line: e,
            });
            if e >= b {
                break;
            }
            s += step;
        }
    }
    out.sort_by_key(|c| (c.start_line, c.end_line, c.kind == ChunkKind::Window));
    // Kept for the whole run (1.3M chunks on the Rust corpus): no growth slack.
    out.shrink_to_fit();
    out
}
