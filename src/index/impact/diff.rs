//! `impact --diff [REV]`: the changed line ranges of `git diff` (the working tree against
//! `REV`, default `HEAD`, untracked files counted as wholly changed) mapped onto the
//! definitions they touch, and the impact of each plus their union.
//!
//! Line numbers are those of the working tree, which is what the index was built from.
//! A changed line belongs to the innermost definition that contains it; a pure deletion
//! (`+c,0` in the hunk header: lines removed after line `c`) touches the innermost
//! definition that contains both line `c` and line `c + 1`, and is reported at `c + 1`.
//! Changed lines inside no definition (imports, blank lines between functions) are listed
//! per file as `outside`, not guessed onto a symbol.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use super::{Impact, Impactor, LineSource};
use crate::index::facts::Kind;
use crate::index::graph::{CodeGraph, Node};

/// Schema tag of `impact --diff --json`.
pub const DIFF_SCHEMA: &str = "codegraph-tui/impact-diff@1";

/// Why the changes could not be read from git.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// The directory is not inside a git work tree.
    #[error("{} is not inside a git repository; impact --diff compares against git", .0.display())]
    NotARepo(PathBuf),
    /// `git` could not be started (not installed, not on PATH).
    #[error("cannot run git (is it installed and on PATH?): {0}")]
    Spawn(#[source] std::io::Error),
    /// A range (`A..B`) was given: the working tree is compared with one revision.
    #[error("impact --diff compares the working tree with one revision; {0:?} is a range (check out B and give A instead)")]
    Range(String),
    /// The revision starts with `-`: git would read it as an option (`--output=FILE`).
    #[error("{0:?} is not a revision (it starts with '-')")]
    NotARevision(String),
    /// git ran and failed (a bad revision, a repository without commits, ...).
    #[error("`git {args}` failed: {stderr}")]
    Git {
        /// The arguments given to git.
        args: String,
        /// git's message, trimmed.
        stderr: String,
    },
}

/// Changed lines of one file, on the working-tree side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Path relative to the index root, `/`-separated.
    pub path: String,
    /// Changed line ranges, 1-based and inclusive; a pure deletion after line `c` is
    /// `(c, c)` with `deletion` set in [`Hunk`].
    pub hunks: Vec<Hunk>,
    /// `true` for an untracked file: every line is new.
    pub untracked: bool,
}

/// One hunk on the working-tree side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hunk {
    /// First changed line (1-based); for a deletion, the line after which lines went.
    pub start: u32,
    /// Last changed line (inclusive); equals `start` for a deletion.
    pub end: u32,
    /// `true` when lines were only removed here.
    pub deletion: bool,
    /// The revision's side: first line and number of lines removed or rewritten (0 for a
    /// pure addition).
    pub old: [u32; 2],
}

/// A definition touched by the diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Changed {
    /// Node id.
    pub id: String,
    /// Changed line ranges inside it, `[first, last]`, 1-based inclusive, sorted.
    pub lines: Vec<[u32; 2]>,
}

/// Changed lines inside no definition of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outside {
    /// Repo-relative path.
    pub file: String,
    /// Changed line ranges, `[first, last]`, 1-based inclusive, sorted.
    pub lines: Vec<[u32; 2]>,
}

/// The answer of `impact --diff` (`codegraph-tui/impact-diff@1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffImpact {
    /// Always [`DIFF_SCHEMA`].
    pub schema: &'static str,
    /// The revision compared against (`HEAD` by default).
    pub rev: String,
    /// Changed definitions, sorted by id.
    pub changed: Vec<Changed>,
    /// Changed lines outside any definition, by file.
    pub outside: Vec<Outside>,
    /// One impact per changed definition, in the order of `changed`.
    pub impacts: Vec<Impact>,
    /// Definitions of `rev` that the working tree no longer has (deleted, or renamed away),
    /// with the call sites that still call them; sorted by id.
    pub removed: Vec<Removed>,
    /// The combined impact of all changed definitions and of the definitions holding a
    /// call to a removed one (those break with the removal).
    pub union: Impact,
}

/// A definition of the compared revision that the working tree no longer has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Removed {
    /// Its node id in the revision.
    pub id: String,
    /// Its kind.
    pub kind: &'static str,
    /// Its lines in the revision's file, `[first, last]`, 1-based inclusive.
    pub lines: [u32; 2],
    /// Call sites of the working tree that still call its name and resolve to nothing (by
    /// name: a call on a receiver for a removed method, a bare or qualified call for
    /// anything else), sorted; their definitions are in [`Removed::callers`].
    pub sites: Vec<DanglingCall>,
    /// Ids of the definitions (or files, for top-level code) holding those sites.
    pub callers: Vec<String>,
}

/// An unresolved call site that may call a removed definition.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct DanglingCall {
    /// The calling definition's id.
    pub caller: String,
    /// Repo-relative path.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based char column.
    pub column: u32,
    /// Why the resolver made no edge (`ambiguous`, `external`, `not_found`).
    pub reason: &'static str,
}

fn git(root: &Path, args: &[&str]) -> Result<String, DiffError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.quotepath=off"])
        .args(args)
        .output()
        .map_err(DiffError::Spawn)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        if stderr.contains("not a git repository") {
            return Err(DiffError::NotARepo(root.to_path_buf()));
        }
        let hint = if stderr.contains("bad revision 'HEAD'")
            || stderr.contains("ambiguous argument 'HEAD'")
        {
            " (the repository has no commit yet?)"
        } else {
            ""
        };
        let stderr = format!("{stderr}{hint}");
        return Err(DiffError::Git {
            args: args.join(" "),
            stderr,
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Reads the changes of the working tree under `root` against `rev` (default `HEAD`):
/// `git diff --unified=0 --relative REV`, plus untracked files not ignored. Returns them
/// with the diff's text, which [`removed_definitions`] reads too.
///
/// Errors: [`DiffError::NotARepo`] outside a git work tree, [`DiffError::Spawn`] when git
/// cannot run, [`DiffError::Git`] when git fails (unknown revision, no commits yet),
/// [`DiffError::Range`] for `A..B`, [`DiffError::NotARevision`] for a `rev` starting with
/// `-` (git would take it as an option).
pub fn git_changes(root: &Path, rev: Option<&str>) -> Result<(Vec<FileChange>, String), DiffError> {
    let rev = rev.unwrap_or("HEAD");
    if rev.starts_with('-') {
        return Err(DiffError::NotARevision(rev.to_string()));
    }
    if rev.contains("..") {
        // The index is of the working tree, so its lines are the working tree's; a range
        // `A..B` would give B's line numbers to the working tree's definitions.
        return Err(DiffError::Range(rev.to_string()));
    }
    let diff = git_diff(root, rev)?;
    let mut changes = parse_unified(&diff);
    let untracked = git(root, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    for p in untracked.split('\0').filter(|p| !p.is_empty()) {
        changes.push(FileChange {
            path: p.to_string(),
            hunks: Vec::new(),
            untracked: true,
        });
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((changes, diff))
}

/// `git diff --unified=0 --relative REV` of the working tree under `root`.
fn git_diff(root: &Path, rev: &str) -> Result<String, DiffError> {
    git(root, &["rev-parse", "--is-inside-work-tree"])?;
    git(
        root,
        &[
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--unified=0",
            "--relative",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            rev,
            "--",
        ],
    )
}

/// Old-side line ranges (1-based, inclusive) that `git diff --unified=0` output removes
/// or rewrites, by the revision's path (deleted files included; added files have none).
pub fn parse_removed_lines(diff: &str) -> Vec<(String, Vec<[u32; 2]>)> {
    let mut out: Vec<(String, Vec<[u32; 2]>)> = Vec::new();
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            continue;
        } else if let Some(p) = line.strip_prefix("--- ") {
            if let Some(p) = unquote(p).strip_prefix("a/") {
                out.push((p.to_string(), Vec::new()));
            }
        } else if let Some(h) = line.strip_prefix("@@ ") {
            if let (Some(last), Some([start, count])) = (out.last_mut(), hunk_side(h, '-')) {
                if count > 0 {
                    last.1.push([start, start + count - 1]);
                }
            }
        }
    }
    out.retain(|(_, r)| !r.is_empty());
    out
}

/// The definitions of `rev` that `graph` (the working tree's index) no longer has and
/// whose lines `diff` (the text [`git_changes`] gives) removed or rewrote, each with the
/// working tree's unresolved call sites that still call its name. The revision's files
/// are read with `git show` and extracted with the same grammars and queries as the index;
/// a file that cannot be read or parsed is skipped.
pub fn removed_definitions(
    root: &Path,
    rev: Option<&str>,
    diff: &str,
    graph: &CodeGraph,
) -> Vec<Removed> {
    let rev = rev.unwrap_or("HEAD");
    let mut by_name: HashMap<&str, Vec<&crate::index::graph::Unresolved>> = HashMap::new();
    for u in graph.all_unresolved() {
        by_name.entry(&*u.name).or_default().push(u);
    }
    let mut out = Vec::new();
    for (path, ranges) in parse_removed_lines(diff) {
        let Some(spec) = crate::index::lang::for_path(&path) else {
            continue;
        };
        if spec.grammar.is_none() {
            continue;
        }
        let Ok(old) = git(root, &["show", &format!("{rev}:./{path}")]) else {
            continue;
        };
        let text = old.strip_prefix('\u{feff}').unwrap_or(&old);
        let Ok(facts) = crate::index::extract::extract(
            &path,
            spec,
            text,
            String::new(),
            text.len() as u64,
            &Default::default(),
        ) else {
            continue;
        };
        for d in &facts.definitions {
            let hit = ranges
                .iter()
                .any(|r| r[0] <= d.end_line && r[1] >= d.start_line);
            if !hit || graph.node(&d.id).is_some() {
                continue;
            }
            let method = matches!(d.kind, Kind::Method | Kind::Constructor);
            let mut sites: Vec<DanglingCall> = by_name
                .get(&*d.name)
                .into_iter()
                .flatten()
                // A call on `super()`/`base` goes to a base class (for a removed `__init__`,
                // every `super().__init__()` of the repo): not to this definition.
                .filter(|u| {
                    (!method || u.receiver.is_some())
                        && !u
                            .receiver
                            .as_deref()
                            .is_some_and(|r| r.starts_with("super") || r == "base")
                })
                .map(|u| DanglingCall {
                    caller: u.caller.to_string(),
                    file: u.site.file.to_string(),
                    line: u.site.line,
                    column: u.site.column,
                    reason: u.reason.as_str(),
                })
                .collect();
            sites.sort();
            let mut callers: Vec<String> = sites.iter().map(|s| s.caller.clone()).collect();
            callers.dedup();
            out.push(Removed {
                id: d.id.to_string(),
                kind: d.kind.as_str(),
                lines: [d.start_line, d.end_line],
                sites,
                callers,
            });
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// Parses `git diff --unified=0` output into per-file hunks (working-tree side). Deleted
/// files are left out (nothing of them is in the index); binary files have no hunks.
pub fn parse_unified(diff: &str) -> Vec<FileChange> {
    let mut out: Vec<FileChange> = Vec::new();
    let mut current: Option<FileChange> = None;
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            out.extend(current.take().filter(|c| !c.hunks.is_empty()));
        } else if let Some(p) = line.strip_prefix("+++ ") {
            let p = unquote(p);
            current = p.strip_prefix("b/").map(|p| FileChange {
                path: p.to_string(),
                hunks: Vec::new(),
                untracked: false,
            });
        } else if let Some(h) = line.strip_prefix("@@ ") {
            if let (Some(c), Some(hunk)) = (current.as_mut(), parse_hunk(h)) {
                c.hunks.push(hunk);
            }
        }
    }
    out.extend(current.filter(|c| !c.hunks.is_empty()));
    out
}

/// `-a,b +c,d @@ ...` → the working-tree side.
fn parse_hunk(h: &str) -> Option<Hunk> {
    let old = hunk_side(h, '-').unwrap_or([0, 0]);
    let [start, count] = hunk_side(h, '+')?;
    Some(if count == 0 {
        Hunk {
            start,
            end: start,
            deletion: true,
            old,
        }
    } else {
        Hunk {
            start,
            end: start + count - 1,
            deletion: false,
            old,
        }
    })
}

/// One side of a hunk header `-a,b +c,d @@ ...` (`sign` `-` or `+`): `[first line,
/// count]`, the count 1 when omitted.
fn hunk_side(h: &str, sign: char) -> Option<[u32; 2]> {
    let p = h.split(' ').find(|p| p.starts_with(sign))?;
    let mut it = p[1..].splitn(2, ',');
    let start: u32 = it.next()?.parse().ok()?;
    let count: u32 = match it.next() {
        Some(c) => c.parse().ok()?,
        None => 1,
    };
    Some([start, count])
}

/// Undoes git's C-style quoting of unusual paths (`"b/a\tb"`).
fn unquote(p: &str) -> String {
    let Some(inner) = p.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else {
        return p.to_string();
    };
    let mut bytes = Vec::new();
    let mut it = inner.bytes().peekable();
    while let Some(b) = it.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match it.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'r') => bytes.push(b'\r'),
            Some(d @ b'0'..=b'7') => {
                let mut v = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = it.peek() {
                        v = v * 8 + u32::from(n - b'0');
                        it.next();
                    }
                }
                bytes.push(v as u8);
            }
            Some(o) => bytes.push(o),
            None => bytes.push(b'\\'),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Maps changes onto definitions: (changed definitions sorted by id, outside lines by file).
///
/// `removed` ([`removed_definitions`]): a pure deletion whose lines held a removed
/// definition is that removal, reported there; it does not also change the definition
/// around it (deleting a method is not a change of its class).
pub fn changed_symbols(
    graph: &CodeGraph,
    changes: &[FileChange],
    removed: &[Removed],
) -> (Vec<Changed>, Vec<Outside>) {
    let removed_lines = |path: &str, old: [u32; 2]| {
        let (a, b) = (old[0], old[0] + old[1].max(1) - 1);
        removed.iter().any(|r| {
            r.id.split_once("::").is_some_and(|(p, _)| p == path)
                && r.lines[0] <= b
                && r.lines[1] >= a
        })
    };
    let wanted: BTreeSet<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    let mut defs: HashMap<&str, Vec<&Node>> = HashMap::new();
    let mut file_lines: HashMap<&str, u32> = HashMap::new();
    for n in graph.nodes() {
        if !wanted.contains(&*n.file) {
            continue;
        }
        if n.kind == Kind::File {
            file_lines.insert(&*n.file, n.end_line);
        } else {
            defs.entry(&*n.file).or_default().push(n);
        }
    }
    let mut touched: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    let mut outside: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for c in changes {
        let Some(&last) = file_lines.get(c.path.as_str()) else {
            continue; // not indexed (unsupported, ignored or skipped)
        };
        let ds = defs.get(c.path.as_str()).map_or(&[][..], Vec::as_slice);
        let innermost = |a: u32, b: u32| {
            ds.iter()
                .filter(|d| d.start_line <= a && d.end_line >= b)
                .min_by_key(|d| (d.end_line - d.start_line, std::cmp::Reverse(d.start_line)))
        };
        let hunks = if c.untracked {
            vec![Hunk {
                start: 1,
                end: last,
                deletion: false,
                old: [0, 0],
            }]
        } else {
            c.hunks.clone()
        };
        for h in hunks {
            if h.deletion {
                if removed_lines(&c.path, h.old) {
                    continue;
                }
                let at = h.start + 1;
                match innermost(h.start, at) {
                    Some(d) => touched.entry(d.id.to_string()).or_default().insert(at),
                    None => outside.entry(c.path.clone()).or_default().insert(at),
                };
                continue;
            }
            for l in h.start..=h.end.min(last) {
                match innermost(l, l) {
                    Some(d) => touched.entry(d.id.to_string()).or_default().insert(l),
                    None => outside.entry(c.path.clone()).or_default().insert(l),
                };
            }
        }
    }
    let changed = touched
        .into_iter()
        .map(|(id, ls)| Changed {
            id,
            lines: ranges(&ls),
        })
        .collect();
    let outside = outside
        .into_iter()
        .map(|(file, ls)| Outside {
            file,
            lines: ranges(&ls),
        })
        .collect();
    (changed, outside)
}

fn ranges(lines: &BTreeSet<u32>) -> Vec<[u32; 2]> {
    let mut out: Vec<[u32; 2]> = Vec::new();
    for &l in lines {
        match out.last_mut() {
            Some(r) if r[1] + 1 == l => r[1] = l,
            _ => out.push([l, l]),
        }
    }
    out
}

/// The impact of every changed definition and of all of them together, callers followed
/// up to `depth` hops.
///
/// `removed` ([`removed_definitions`]) is reported as given; the definitions holding a
/// call to a removed one join the union's targets.
pub fn diff_impact(
    graph: &CodeGraph,
    rev: &str,
    changes: &[FileChange],
    removed: Vec<Removed>,
    depth: u32,
    lines: &dyn LineSource,
) -> DiffImpact {
    let (changed, outside) = changed_symbols(graph, changes, &removed);
    let asker = Impactor::new(graph);
    let impacts = changed
        .iter()
        .filter_map(|c| asker.impact(&c.id, depth, lines))
        .collect();
    let ids: Vec<String> = changed
        .iter()
        .map(|c| c.id.clone())
        .chain(removed.iter().flat_map(|r| r.callers.iter().cloned()))
        .collect();
    DiffImpact {
        schema: DIFF_SCHEMA,
        rev: rev.to_string(),
        union: asker.impact_union(&ids, depth, lines),
        changed,
        outside,
        impacts,
        removed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hunks_and_skips_deleted_files() {
        let d = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n\
                 @@ -3 +3 @@ fn x\n-a\n+b\n@@ -10,2 +10,0 @@\n-x\n-y\n@@ -20,0 +21,3 @@\n+1\n+2\n+3\n\
                 diff --git a/gone.py b/gone.py\n--- a/gone.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n\
                 diff --git \"a/we\\tird.py\" \"b/we\\tird.py\"\n--- \"a/we\\tird.py\"\n+++ \"b/we\\tird.py\"\n@@ -1 +1,2 @@\n";
        let c = parse_unified(d);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].path, "src/a.rs");
        assert_eq!(
            c[0].hunks,
            [
                Hunk {
                    start: 3,
                    end: 3,
                    deletion: false,
                    old: [3, 1]
                },
                Hunk {
                    start: 10,
                    end: 10,
                    deletion: true,
                    old: [10, 2]
                },
                Hunk {
                    start: 21,
                    end: 23,
                    deletion: false,
                    old: [20, 0]
                },
            ]
        );
        assert_eq!(c[1].path, "we\tird.py");
        assert_eq!(
            c[1].hunks,
            [Hunk {
                start: 1,
                end: 2,
                deletion: false,
                old: [1, 1]
            }]
        );
    }

    #[test]
    fn unquotes_octal_utf8() {
        assert_eq!(unquote("\"b/\\303\\251t\\303\\251.py\""), "b/été.py");
        assert_eq!(unquote("b/plain.py"), "b/plain.py");
    }

    #[test]
    fn ranges_merge_adjacent_lines() {
        let s: BTreeSet<u32> = [1, 2, 3, 7, 9, 10].into();
        assert_eq!(ranges(&s), [[1, 3], [7, 7], [9, 10]]);
    }
}
