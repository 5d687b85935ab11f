//! Layout invariants of the code base, checked on the files themselves: no `.rs` file
//! under `src/` or `tests/` is over 800 lines; no two modules of `src/` import each other,
//! file by file or folder by folder; no language name is matched or compared outside
//! `src/index/lang/`, the module that holds what differs between languages. Each failure
//! names the files. The checks read text (no parser): a path counts as an import when it
//! starts with `crate::`, `super::` or `self::` anywhere outside a comment, the way a
//! reader following the code would go from one module to another.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use regex::Regex;

/// The longest a source file may be, in lines (tests in the same file count).
const MAX_LINES: usize = 800;

/// A source file: its path relative to the repository root (`/`-separated) and its text.
struct File {
    path: String,
    text: String,
}

/// Every `.rs` file under `dir` (relative to the repository root), sorted by path.
fn rs_files(dir: &str) -> Vec<File> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<File>) {
        for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(root).unwrap();
                let path = rel
                    .to_str()
                    .unwrap()
                    .replace(std::path::MAIN_SEPARATOR, "/");
                let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{path}: {e}"));
                out.push(File { path, text });
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    walk(root, &root.join(dir), &mut out);
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// `path: N lines` for each file over [`MAX_LINES`].
fn long_files(files: &[File]) -> Vec<String> {
    files
        .iter()
        .map(|f| (f, f.text.lines().count()))
        .filter(|(_, n)| *n > MAX_LINES)
        .map(|(f, n)| format!("{}: {n} lines", f.path))
        .collect()
}

/// A module's path below the crate root (`["index", "graph"]` for `src/index/graph.rs` or
/// `src/index/graph/mod.rs`; empty for `lib.rs`). `None` for `main.rs`, the binary's root,
/// which is another crate. `rel` is relative to `src/`.
fn module_of(rel: &str) -> Option<Vec<String>> {
    if rel == "main.rs" {
        return None;
    }
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    Some(parts)
}

/// The text of a file as its imports are read: the `#[cfg(test)] mod tests` at its end
/// (a test may use anything) cut off, `//` comments (doc comments and their links too)
/// blanked. Line numbers stay those of the file.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    Regex::new(r"//[^\n]*")
        .unwrap()
        .replace_all(text, "")
        .into_owned()
}

/// The module a `crate::`/`super::`/`self::` path written in module `cur` names: the
/// longest of its prefixes that is a module of `mods` (an item's path names the module
/// that defines it). `None` for any other path.
fn resolve(mods: &BTreeSet<Vec<String>>, cur: &[String], path: &str) -> Option<Vec<String>> {
    let segs: Vec<&str> = path.split("::").collect();
    let (mut full, rest): (Vec<String>, &[&str]) = match segs[0] {
        "crate" => (Vec::new(), &segs[1..]),
        "self" => (cur.to_vec(), &segs[1..]),
        "super" => {
            let mut base = cur.to_vec();
            let supers = segs.iter().take_while(|s| **s == "super").count();
            for _ in 0..supers {
                base.pop();
            }
            (base, &segs[supers..])
        }
        _ => return None,
    };
    full.extend(rest.iter().map(|s| s.to_string()));
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|prefix| mods.contains(prefix))
}

/// The modules each module of `files` (paths relative to the repository root or to `src/`)
/// imports, itself left out:
/// every `crate::`/`super::`/`self::` path in its code, and each item of a
/// `use path::{a, b::c};` group as `path::a`, `path::b`.
fn imports(files: &[(String, String)]) -> BTreeMap<Vec<String>, (String, BTreeSet<Vec<String>>)> {
    let path_re = Regex::new(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)").unwrap();
    let group_re = Regex::new(
        r"(?s)\buse\s+((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};",
    )
    .unwrap();
    let split_re = Regex::new(r"[,\s]+").unwrap();
    let first_re = Regex::new(r"^[A-Za-z_]").unwrap();
    let in_src = |p: &str| module_of(p.strip_prefix("src/").unwrap_or(p));
    let mods: BTreeSet<Vec<String>> = files.iter().filter_map(|(p, _)| in_src(p)).collect();
    let mut deps = BTreeMap::new();
    for (rel, text) in files {
        let Some(m) = in_src(rel) else { continue };
        let code = code_of(text);
        let mut d = BTreeSet::new();
        for g in group_re.captures_iter(&code) {
            for item in split_re.split(&g[2]) {
                let item = item.trim_matches(|c| c == '{' || c == '}' || c == ' ');
                if first_re.is_match(item) {
                    let head = item.split("::").next().unwrap();
                    d.extend(resolve(&mods, &m, &format!("{}::{head}", &g[1])));
                }
            }
        }
        for p in path_re.captures_iter(&code) {
            d.extend(resolve(&mods, &m, &p[1]));
        }
        d.remove(&m);
        deps.insert(m, (rel.clone(), d));
    }
    deps
}

/// Whether one module is the other or holds it.
fn related(a: &[String], b: &[String]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// Pairs of modules that import each other, ancestor and descendant pairs left out: each
/// pair of files as `cycle: A <-> B`, and each pair of sibling folders (or a folder and a
/// sibling file) whose files import each other as `module cycle: a::x <-> a::y (A -> B;
/// C -> D)`, unless it is one pair of files already listed. Paths as in `files`.
fn cycles(files: &[(String, String)]) -> Vec<String> {
    let deps = imports(files);
    let file = |m: &Vec<String>| deps[m].0.clone();
    let mut out = BTreeSet::new();
    for (a, (_, ds)) in &deps {
        for b in ds {
            if !related(a, b) && deps.get(b).is_some_and(|(_, db)| db.contains(a)) {
                let (x, y) = (file(a).min(file(b)), file(a).max(file(b)));
                out.insert(format!("cycle: {x} <-> {y}"));
            }
        }
    }
    // Folder level: an import from a file in one child of the pair's common ancestor to a
    // file in another child counts as an import between those children.
    type Pair = (Vec<String>, Vec<String>);
    let mut edges: BTreeMap<Pair, Vec<(String, String)>> = BTreeMap::new();
    for (a, (fa, ds)) in &deps {
        for b in ds.iter().filter(|b| !related(a, b)) {
            let k = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            edges
                .entry((a[..=k].to_vec(), b[..=k].to_vec()))
                .or_default()
                .push((fa.clone(), file(b)));
        }
    }
    let name = |m: &[String]| m.join("::");
    for ((ca, cb), ex) in &edges {
        let Some(back) = edges.get(&(cb.clone(), ca.clone())) else {
            continue;
        };
        if ca >= cb {
            continue;
        }
        let direct = |m: &Vec<String>| deps.get(m).map(|(f, _)| f.clone());
        let one_file_pair = ex.len() == 1
            && back.len() == 1
            && Some(&ex[0].0) == direct(ca).as_ref()
            && Some(&ex[0].1) == direct(cb).as_ref();
        if !one_file_pair {
            out.insert(format!(
                "module cycle: {} <-> {} (e.g. {} -> {}; {} -> {})",
                name(ca),
                name(cb),
                ex[0].0,
                ex[0].1,
                back[0].0,
                back[0].1
            ));
        }
    }
    out.into_iter().collect()
}

/// The language names the checks look for: the `language` of a file (`Lang::name`) and
/// the resolver's family names.
const LANGUAGES: &[&str] = &[
    "rust",
    "python",
    "go",
    "java",
    "javascript",
    "typescript",
    "tsx",
    "c",
    "cpp",
    "csharp",
    "js",
];

/// `line: code` (1-based, once per line) of each place in `text` (a non-test source file) where a language name is a
/// match pattern (`"go" =>`, `"c" | "cpp"`, `matches!(x, "java")`) or an operand of `==`,
/// `!=` or `.eq(`; a name that is a value (`=> "js"`, `["c", ...]`) is not counted.
fn language_uses(text: &str) -> Vec<String> {
    let code = code_of(text);
    let names = LANGUAGES.join("|");
    let lit = Regex::new(&format!(r#""({names})""#)).unwrap();
    let in_matches = Regex::new(r"matches!\s*\([^;{}]*,\s*$").unwrap();
    let after_chain = Regex::new(r#""\s*\|$"#).unwrap();
    let mut out = Vec::new();
    for m in lit.find_iter(&code) {
        let before = code[..m.start()].trim_end();
        let after = code[m.end()..].trim_start();
        let past_parens = after.trim_start_matches(|c: char| c == ')' || c.is_whitespace());
        let pattern = (past_parens.starts_with('|') && !past_parens.starts_with("||"))
            || past_parens.starts_with("=>")
            || after.starts_with("if ")
            || after_chain.is_match(before)
            || in_matches.is_match(before);
        let compared = before.ends_with("==")
            || before.ends_with("!=")
            || before.ends_with(".eq(")
            || after.starts_with("==")
            || after.starts_with("!=");
        if pattern || compared {
            let line = code[..m.start()].matches('\n').count() + 1;
            let text = code.lines().nth(line - 1).unwrap_or("").trim();
            out.push(format!("{line}: {text}"));
        }
    }
    out.dedup();
    out
}

/// Whether a file of `src/` is test code as a whole (a `tests.rs` module or a file under
/// a `tests/` folder). `path` is relative to the repository root.
fn is_test_file(path: &str) -> bool {
    let mut segs = path.split('/').skip(1);
    path.ends_with("/tests.rs") || segs.any(|s| s == "tests")
}

/// The files of `src/` as (path, text), paths relative to the repository root.
fn src_files() -> Vec<(String, String)> {
    rs_files("src")
        .into_iter()
        .map(|f| (f.path, f.text))
        .collect()
}

#[test]
fn no_source_file_is_over_800_lines() {
    let mut files = rs_files("src");
    files.extend(rs_files("tests"));
    let long = long_files(&files);
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines (split them along their seams):\n  {}",
        long.join("\n  ")
    );
}

#[test]
fn no_two_modules_import_each_other() {
    let found = cycles(&src_files());
    assert!(
        found.is_empty(),
        "modules of src/ that import each other (move the shared item to the module it \
         belongs to, or to a small module both use):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn language_names_are_matched_only_in_the_lang_module() {
    let mut found = Vec::new();
    for (path, text) in src_files() {
        if path.starts_with("src/index/lang/") || is_test_file(&path) {
            continue;
        }
        for at in language_uses(&text) {
            found.push(format!("{path}:{at}"));
        }
    }
    assert!(
        found.is_empty(),
        "language names matched or compared outside src/index/lang/ (a per-language rule \
         belongs to the language's module there):\n  {}",
        found.join("\n  ")
    );
}

/// Lines of the non-test code of the files under `dir` (a path prefix of `src/`) that name
/// one of `words` as a path segment (`ratatui::`, `use std::fs`), as `file:line: text`.
fn uses_under(dir: &str, words: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (path, text) in src_files() {
        if !path.starts_with(dir) || is_test_file(&path) {
            continue;
        }
        for (i, line) in code_of(&text).lines().enumerate() {
            if words.iter().any(|w| names_path(line, w)) {
                found.push(format!("{path}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    found
}

/// Whether `line` holds `word` as a whole path segment followed by `::` or `;`.
fn names_path(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = &line[at + word.len()..];
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && (after.starts_with("::") || after.starts_with(';'))
    })
}

/// ARCHITECTURE.md: "`src/index/` has no terminal code". The engine is a library; the CLI
/// and the TUI are front ends over it.
#[test]
fn the_engine_has_no_terminal_code() {
    let found = uses_under("src/index/", &["ratatui", "crossterm"]);
    assert!(
        found.is_empty(),
        "terminal code in src/index/:\n  {}",
        found.join("\n  ")
    );
}

/// ARCHITECTURE.md: "resolution reads facts, never trees".
#[test]
fn resolution_reads_facts_never_trees() {
    let found = uses_under("src/index/resolve/", &["tree_sitter"]);
    assert!(
        found.is_empty(),
        "syntax trees in src/index/resolve/:\n  {}",
        found.join("\n  ")
    );
}

/// ARCHITECTURE.md: "panels do no I/O": drawing reads state; files are read by the models.
#[test]
fn panels_do_no_io() {
    let found = uses_under("src/tui/panels/", &["fs", "net", "process", "File"]);
    assert!(
        found.is_empty(),
        "I/O in src/tui/panels/:\n  {}",
        found.join("\n  ")
    );
}

/// The checker's own reading of the code, on files made up for the purpose.
mod checker {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn a_cycle_between_two_files_is_found() {
        let found = cycles(&files(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            ("a.rs", "use crate::b::Thing;\n"),
            ("b.rs", "pub fn f() -> super::a::Other { todo!() }\n"),
        ]));
        assert_eq!(found, ["cycle: a.rs <-> b.rs"]);
    }

    #[test]
    fn a_doc_comment_is_not_an_import() {
        let found = cycles(&files(&[
            ("lib.rs", ""),
            ("a.rs", "use crate::b::Thing;\n"),
            (
                "b.rs",
                "/// Made by [`crate::a::make`].\n// see crate::a\npub struct Thing;\n",
            ),
        ]));
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn an_ancestor_pair_is_not_a_cycle() {
        let found = cycles(&files(&[
            ("lib.rs", ""),
            ("a/mod.rs", "mod inner;\nuse self::inner::X;\n"),
            ("a/inner.rs", "use super::Y;\n"),
        ]));
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn each_item_of_a_use_group_is_an_import() {
        let found = cycles(&files(&[
            ("lib.rs", ""),
            (
                "a.rs",
                "use crate::{\n    c::Z,\n    b::{self, Thing},\n};\n",
            ),
            ("b.rs", "use crate::a::X;\n"),
            ("c.rs", ""),
        ]));
        assert_eq!(found, ["cycle: a.rs <-> b.rs"]);
    }

    #[test]
    fn a_test_module_at_the_end_is_not_counted() {
        let found = cycles(&files(&[
            ("lib.rs", ""),
            ("a.rs", "use crate::b::Thing;\n"),
            (
                "b.rs",
                "pub struct Thing;\n\n#[cfg(test)]\nmod tests {\n    use crate::a::X;\n}\n",
            ),
        ]));
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn folders_whose_files_import_each_other_are_a_cycle() {
        let found = cycles(&files(&[
            ("lib.rs", ""),
            ("x/mod.rs", ""),
            ("x/one.rs", "use crate::y::two::T;\n"),
            ("y/mod.rs", ""),
            ("y/two.rs", ""),
            ("y/three.rs", "use crate::x::one::U;\n"),
        ]));
        assert_eq!(
            found,
            ["module cycle: x <-> y (e.g. x/one.rs -> y/two.rs; y/three.rs -> x/one.rs)"]
        );
    }

    #[test]
    fn a_language_match_or_comparison_is_found_and_a_value_is_not() {
        let text = "fn f(l: &str) -> &str {\n    match l {\n        \"javascript\" | \"tsx\" => \"js\",\n        \"go\" => \"go\",\n        _ => l,\n    }\n}\nfn g(l: &str) -> bool {\n    l == \"rust\" || matches!(l, \"c\")\n}\nconst ALL: &[&str] = &[\"python\", \"java\"];\n// l == \"cpp\" in a comment\n";
        let found = language_uses(text);
        assert_eq!(
            found,
            [
                "3: \"javascript\" | \"tsx\" => \"js\",",
                "4: \"go\" => \"go\",",
                "9: l == \"rust\" || matches!(l, \"c\")",
            ]
        );
    }

    #[test]
    fn a_path_segment_is_found_and_a_longer_name_is_not() {
        assert!(names_path("use std::fs;", "fs"));
        assert!(names_path("    let t = std::fs::read(p)?;", "fs"));
        assert!(names_path("use ratatui::text::Line;", "ratatui"));
        assert!(!names_path("let offs = 1; // fs", "fs"));
        assert!(!names_path("use crate::index::fsutil::dir_size;", "fs"));
        assert!(!names_path("let prefs: Vec<u8> = x;", "fs"));
    }

    #[test]
    fn long_files_are_named_with_their_length() {
        let long = File {
            path: "src/big.rs".into(),
            text: "x\n".repeat(MAX_LINES + 1),
        };
        let short = File {
            path: "src/ok.rs".into(),
            text: "x\n".repeat(MAX_LINES),
        };
        assert_eq!(long_files(&[long, short]), ["src/big.rs: 801 lines"]);
    }
}
