//! Fuzzy scores of every definition against a query, computed once per distinct string.
//!
//! A definition's fuzzy score is the better of its bare name's and its qualified name's
//! (`crate::index::symbol::search`). Names repeat across a large repository: the 1.17M
//! definitions of the fetch.sh Rust tree have 236K distinct names and 626K distinct
//! qualified names (`clone` alone is 13.8K of them). So the graph keeps, made on first
//! use from its sorted name indexes (no hashing), each distinct string once, copied into
//! one contiguous buffer (scattered, each string a separate allocation, the scan waited on
//! memory more than it scored), with the set of ASCII letters and digits it holds and
//! where its run of definitions starts in the sorted index. A query scores each distinct
//! string once, skips a string that lacks a letter or digit the query needs (every
//! positive atom of a nucleo pattern, whatever its kind, matches only a haystack holding
//! all of its characters), and touches only the definitions of the strings that matched.

use nucleo_matcher::pattern::Pattern;
use nucleo_matcher::{Config, Matcher, Utf32Str};
use petgraph::graph::NodeIndex;

use super::{CodeGraph, Node};

/// The distinct strings of one sorted name index, in its order.
#[derive(Debug, Clone, Default)]
struct Strings {
    /// Every distinct string, one after another.
    text: String,
    /// One per distinct string, in order.
    entries: Vec<Entry>,
}

/// A distinct string: bytes `at..at + len` of [`Strings::text`], its [`char_set`], and the
/// position in the sorted index of the first definition holding it (its run ends where
/// the next entry's starts).
#[derive(Debug, Clone, Copy)]
struct Entry {
    at: usize,
    len: u32,
    run: u32,
    set: u64,
}

/// The distinct names and qualified names of a graph's definitions (see the module
/// documentation).
#[derive(Debug, Clone, Default)]
pub(super) struct NameTable {
    names: Strings,
    quals: Strings,
}

/// Every character class a string may hold: what a string with a character this set
/// cannot describe gets, so it is never skipped.
const ANY: u64 = u64::MAX;

/// The set of ASCII letters (case folded) and digits in `s`, one bit each; bit 36 for
/// `_`, bit 37 for `:` and `.`. [`ANY`] for a string with other characters than ASCII:
/// nucleo's normalization matches `é` for `e`, which this set does not model.
fn char_set(s: &str) -> u64 {
    let mut m = 0u64;
    for b in s.bytes() {
        m |= match b {
            b'a'..=b'z' => 1 << (b - b'a'),
            b'A'..=b'Z' => 1 << (b - b'A'),
            b'0'..=b'9' => 1 << (26 + b - b'0'),
            b'_' => 1 << 36,
            b':' | b'.' => 1 << 37,
            0x80.. => return ANY,
            _ => 0,
        };
    }
    m
}

/// The characters every string must hold to match `pattern`: those of its positive
/// atoms' needles that [`char_set`] describes (other characters add nothing).
fn needed(pattern: &Pattern) -> u64 {
    let mut m = 0u64;
    for atom in pattern.atoms.iter().filter(|a| !a.negative) {
        let text: String = atom.needle_text().chars().collect();
        let set = char_set(&text.replace(|c: char| !c.is_ascii(), ""));
        m |= set;
    }
    m
}

/// The distinct strings of `sorted` (node indices sorted by `key`).
fn distinct(graph: &CodeGraph, sorted: &[NodeIndex], key: fn(&Node) -> &str) -> Strings {
    let mut out = Strings::default();
    let mut last: Option<&str> = None;
    for (pos, &ix) in sorted.iter().enumerate() {
        let s = key(&graph.nodes[ix]);
        if last != Some(s) {
            out.entries.push(Entry {
                at: out.text.len(),
                len: s.len() as u32,
                run: pos as u32,
                set: char_set(s),
            });
            out.text.push_str(s);
            last = Some(s);
        }
    }
    out
}

/// The definitions of the strings of `strings` that `pattern` matches, as (node index,
/// score) pairs; `need` is the pattern's [`needed`] set.
fn matches(
    strings: &Strings,
    sorted: &[NodeIndex],
    pattern: &Pattern,
    need: u64,
) -> Vec<(u32, u32)> {
    use rayon::prelude::*;
    let hit: Vec<(usize, u32)> = strings
        .entries
        .par_iter()
        .enumerate()
        .filter(|(_, e)| e.set & need == need)
        .map_init(
            || (Matcher::new(Config::DEFAULT), Vec::new()),
            |(matcher, buf), (i, e)| {
                let s = &strings.text[e.at..e.at + e.len as usize];
                // A set other than ANY is of a string of ASCII only.
                let haystack = if e.set == ANY {
                    Utf32Str::new(s, buf)
                } else {
                    Utf32Str::Ascii(s.as_bytes())
                };
                pattern.score(haystack, matcher).map(|score| (i, score))
            },
        )
        .flatten()
        .collect();
    let mut out = Vec::new();
    for (i, score) in hit {
        let start = strings.entries[i].run as usize;
        let end = strings
            .entries
            .get(i + 1)
            .map_or(sorted.len(), |e| e.run as usize);
        out.extend(
            sorted[start..end]
                .iter()
                .map(|ix| (ix.index() as u32, score)),
        );
    }
    out
}

impl CodeGraph {
    fn name_table(&self) -> &NameTable {
        self.name_table.get_or_init(|| NameTable {
            names: distinct(self, &self.by_name, |n| &n.name),
            quals: distinct(self, &self.by_qualified, |n| &n.qualified_name),
        })
    }

    /// Every definition (no file nodes) that `pattern` matches, with the better of its
    /// name's and its qualified name's nucleo score, in no particular order. Cost: one
    /// score per distinct string that holds the pattern's characters, on every thread,
    /// then the definitions of the strings that matched; the first call builds the table
    /// (one pass over the sorted name indexes).
    pub fn fuzzy_matches(&self, pattern: &Pattern) -> Vec<(&Node, u32)> {
        let t = self.name_table();
        let need = needed(pattern);
        let mut all = matches(&t.names, &self.by_name, pattern, need);
        all.extend(matches(&t.quals, &self.by_qualified, pattern, need));
        // A definition whose name and qualified name both matched: the better score.
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        all.dedup_by_key(|m| m.0);
        all.into_iter()
            .map(|(ix, score)| (&self.nodes[NodeIndex::new(ix as usize)], score))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::facts::Kind;
    use nucleo_matcher::pattern::{CaseMatching, Normalization};

    fn node(file: &str, qualified: &str, kind: Kind) -> Node {
        let name = qualified.rsplit(['.', ':']).next().unwrap_or(qualified);
        Node {
            id: if kind == Kind::File {
                file.into()
            } else {
                format!("{file}::{qualified}").into()
            },
            kind,
            name: if kind == Kind::File { file } else { name }.into(),
            qualified_name: qualified.into(),
            file: file.into(),
            start_line: 1,
            end_line: 2,
            language: "python".into(),
        }
    }

    /// The table gives every definition exactly the score that scoring its two strings
    /// directly gives, for queries of every atom kind, with repeated and non-ASCII names.
    #[test]
    fn scores_equal_scoring_every_definition_directly() {
        let mut nodes = Vec::new();
        for (f, quals) in [
            (
                "a.py",
                &[
                    "Counter.count",
                    "Counter",
                    "count",
                    "café",
                    "Parser.parse_args",
                ][..],
            ),
            (
                "b.py",
                &["Counter.count", "count_ones", "Iter.count", "décompte"][..],
            ),
            ("c.py", &["clone", "Thing.clone", "C0unt", "x_y.z"][..]),
        ] {
            nodes.push(node(f, f, Kind::File));
            for q in quals {
                let kind = if q.contains('.') {
                    Kind::Method
                } else {
                    Kind::Function
                };
                nodes.push(node(f, q, kind));
            }
        }
        let g = CodeGraph::build(nodes.clone(), Vec::new(), Vec::new());
        for query in [
            "count",
            "cnt",
            "Count",
            "^cou",
            "unt$",
            "'ount",
            "count !Iter",
            "e",
            "ca",
            "x_y",
            "0",
            "zzz",
        ] {
            let p = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
            let mut got: Vec<(String, u32)> = g
                .fuzzy_matches(&p)
                .into_iter()
                .map(|(n, s)| (n.id.to_string(), s))
                .collect();
            got.sort();
            let mut m = Matcher::new(Config::DEFAULT);
            let mut buf = Vec::new();
            let mut want: Vec<(String, u32)> = nodes
                .iter()
                .filter(|n| n.kind != Kind::File)
                .filter_map(|n| {
                    let a = p.score(Utf32Str::new(&n.name, &mut buf), &mut m);
                    let b = p.score(Utf32Str::new(&n.qualified_name, &mut buf), &mut m);
                    a.max(b).map(|s| (n.id.to_string(), s))
                })
                .collect();
            want.sort();
            assert_eq!(got, want, "query {query:?}");
        }
    }

    #[test]
    fn char_sets_fold_case_and_give_up_on_other_scripts() {
        assert_eq!(char_set("Ab"), char_set("aB"));
        assert_eq!(char_set("a_1"), 1 | (1 << 36) | (1 << 27));
        assert_eq!(char_set("café"), ANY);
        let p = Pattern::parse("cnt !zz ^Fo", CaseMatching::Smart, Normalization::Smart);
        assert_eq!(needed(&p), char_set("cntfo"));
    }
}
