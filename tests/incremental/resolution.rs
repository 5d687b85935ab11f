//! Incremental resolution: an edit re-resolves only the files it can affect, and the result
//! equals a full resolution on every conformance case and through every edit of a
//! cross-file `impl`.

use std::path::{Path, PathBuf};

use codegraph_tui::index::{index_repo, Index};

use super::{canonical, common, opts, scratch, verify_incremental, warm_open};

/// Source files of a repo (not expected.json), sorted.
fn source_files(repo: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![repo.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "expected.json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Reconciles `prev` with the disk (incremental resolution, checked against a full one
/// by [`VERIFY`]) and compares the graph with a fresh index.
fn step_matches_fresh(case: &Path, repo: &Path, what: &str, prev: Index) -> Index {
    use codegraph_tui::index::incremental::{reconcile, Reconciled};
    let next = match reconcile(repo, &prev, &opts()).unwrap() {
        Reconciled::Unchanged => prev,
        Reconciled::Updated(i, _) => *i,
    };
    let fresh = index_repo(repo, &opts()).unwrap();
    assert_eq!(
        canonical(&next),
        canonical(&fresh),
        "{}: {what}",
        case.display()
    );
    assert_eq!(
        next.graph.name_order(),
        fresh.graph.name_order(),
        "{}: {what}: name indexes",
        case.display()
    );
    next
}

#[test]
fn incremental_resolution_matches_a_full_one_on_every_conformance_case() {
    verify_incremental();
    let root = common::fixture("conformance");
    let mut cases = 0;
    for lang in std::fs::read_dir(&root).unwrap() {
        for case in std::fs::read_dir(lang.unwrap().path()).unwrap() {
            let case = case.unwrap().path();
            cases += 1;
            let tmp = tempfile::tempdir().unwrap();
            let repo = tmp.path().join("repo");
            common::copy_dir(&case, &repo);
            let repo = repo.canonicalize().unwrap();
            let mut idx = index_repo(&repo, &opts()).unwrap();
            for file in source_files(&repo) {
                let rel = file
                    .strip_prefix(&repo)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let text = std::fs::read(&file).unwrap();
                // Delete it, then bring it back.
                std::fs::remove_file(&file).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("delete {rel}"), idx);
                std::fs::write(&file, &text).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("restore {rel}"), idx);
                // Rename its first definition everywhere in the file.
                let first = idx
                    .files
                    .iter()
                    .find(|f| f.path == rel)
                    .and_then(|f| f.definitions.first())
                    .map(|d| d.name.to_string());
                // Every line moved down one: the same definitions at other positions.
                let mut shifted = b"\n".to_vec();
                shifted.extend_from_slice(&text);
                std::fs::write(&file, &shifted).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("shift {rel}"), idx);
                std::fs::write(&file, &text).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("unshift {rel}"), idx);
                if let Some(name) = first {
                    // The first mention renamed alone (usually the definition itself).
                    let s = String::from_utf8_lossy(&text).replacen(&name, &format!("{name}Zq"), 1);
                    std::fs::write(&file, s).unwrap();
                    idx = step_matches_fresh(
                        &case,
                        &repo,
                        &format!("rename once {name} in {rel}"),
                        idx,
                    );
                    std::fs::write(&file, &text).unwrap();
                    idx = step_matches_fresh(&case, &repo, &format!("unrename once {rel}"), idx);
                    let s = String::from_utf8_lossy(&text).replace(&name, &format!("{name}Zq"));
                    std::fs::write(&file, s).unwrap();
                    idx = step_matches_fresh(&case, &repo, &format!("rename {name} in {rel}"), idx);
                    std::fs::write(&file, &text).unwrap();
                    idx = step_matches_fresh(&case, &repo, &format!("unrename {rel}"), idx);
                }
                // A copy elsewhere: every name defined twice.
                let ext = file.extension().map(|e| e.to_string_lossy().into_owned());
                let copy = repo.join(format!("zz_copy.{}", ext.unwrap_or_default()));
                std::fs::write(&copy, &text).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("copy of {rel}"), idx);
                std::fs::remove_file(&copy).unwrap();
                idx = step_matches_fresh(&case, &repo, &format!("remove copy of {rel}"), idx);
            }
        }
    }
    assert!(cases >= 80, "{cases} cases");
}

/// An edit to a file with calls re-resolves that file and the files that mention its
/// names, not the whole repository, and gives what a fresh index gives.
#[test]
fn an_edit_re_resolves_only_the_files_it_can_affect() {
    verify_incremental();
    let (_tmp, repo, cache) = scratch("python");
    let (prev, mut s) = warm_open(&repo, &cache);
    let total = prev.files.len() as u64;
    let path = repo.join("app/render.py");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        "\n\ndef render_twice(rows):\n    return render_text(rows) + render_list(rows)\n",
    );
    std::fs::write(&path, text).unwrap();
    let (idx, changes) = s.refresh(&repo, &opts(), Some(&prev)).unwrap().unwrap();
    assert_eq!(changes.modified, vec!["app/render.py".to_string()]);
    assert!(
        changes.resolved >= 1 && changes.resolved < total,
        "resolved {} of {total} files: the incremental path was not taken",
        changes.resolved
    );
    let fresh = index_repo(&repo, &opts()).unwrap();
    assert_eq!(canonical(&idx), canonical(&fresh));
}

/// A function appended to a file that others call re-resolves that file alone: no other
/// file can write the new name, and nothing they read of the file changed (its other
/// definitions only moved or kept their place), so the files calling its other functions
/// are not resolved again.
#[test]
fn an_appended_function_re_resolves_only_its_own_file() {
    verify_incremental();
    let (_tmp, repo, cache) = scratch("python");
    let (prev, mut s) = warm_open(&repo, &cache);
    let path = repo.join("app/render.py");
    let text = std::fs::read_to_string(&path).unwrap();
    // Callers of render.py's functions elsewhere: a coarser rule (every caller of an
    // edited file) would resolve these again.
    let callers = prev
        .files
        .iter()
        .filter(|f| f.path != "app/render.py")
        .filter(|f| f.calls.iter().any(|c| c.name.starts_with("render_")))
        .count();
    assert!(callers >= 1, "the fixture has callers of render.py");
    // At the top, so every definition of the file moves down two lines.
    std::fs::write(&path, format!("def appended_fn():\n    return 1\n{text}")).unwrap();
    let (idx, changes) = s.refresh(&repo, &opts(), Some(&prev)).unwrap().unwrap();
    assert_eq!(changes.modified, vec!["app/render.py".to_string()]);
    assert_eq!(changes.resolved, 1);
    let fresh = index_repo(&repo, &opts()).unwrap();
    assert_eq!(canonical(&idx), canonical(&fresh));
    // Renaming a called function re-resolves its callers (their calls now fail).
    let renamed = std::fs::read_to_string(&path).unwrap().replacen(
        "def render_text(",
        "def render_text_v2(",
        1,
    );
    std::fs::write(&path, renamed).unwrap();
    let (idx2, changes) = s.refresh(&repo, &opts(), Some(&idx)).unwrap().unwrap();
    assert!(changes.resolved > 1, "resolved {}", changes.resolved);
    let fresh = index_repo(&repo, &opts()).unwrap();
    assert_eq!(canonical(&idx2), canonical(&fresh));
}

/// Reconciles `prev` with the disk (incremental resolution, checked against a full one,
/// edge order included, by `VERIFY`), compares the graph with a fresh index and gives the
/// new index with the number of files resolved again.
fn reconcile_matches_fresh(repo: &Path, what: &str, prev: Index) -> (Index, u64) {
    use codegraph_tui::index::incremental::{reconcile, Reconciled};
    let (next, resolved) = match reconcile(repo, &prev, &opts()).unwrap() {
        Reconciled::Unchanged => (prev, 0),
        Reconciled::Updated(i, c) => (*i, c.resolved),
    };
    let fresh = index_repo(repo, &opts()).unwrap();
    assert_eq!(canonical(&next), canonical(&fresh), "{what}");
    assert_eq!(
        next.graph.name_order(),
        fresh.graph.name_order(),
        "{what}: name indexes"
    );
    (next, resolved)
}

/// The files of the `implements` edges from `source` to `target` in `idx`'s graph, one
/// entry per edge: the file of each edge's sites.
fn implements_sites(idx: &Index, source: &str, target: &str) -> Vec<String> {
    idx.graph
        .edges()
        .iter()
        .filter(|e| e.source == source && e.target == target && e.relation.as_str() == "implements")
        .map(|e| {
            let files: Vec<&str> = e.sites.iter().map(|s| &*s.file).collect();
            assert_eq!(files.len(), 1, "{e:?}");
            files[0].to_string()
        })
        .collect()
}

/// Rust's `impl Trait for Type` with the type in another file makes an `implements` edge
/// that starts at the type's node but is produced by (and has its site in) the impl's
/// file: an incremental update must carry it over with the impl's file, not with the file
/// it starts in, and report its site in the impl's file alone. Edits of either file, of a
/// file between them, copies and a rename, each checked against a full resolution.
#[test]
fn an_impl_in_another_file_than_its_type_survives_every_edit() {
    verify_incremental();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let src = repo.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let write = |rel: &str, text: &str| std::fs::write(repo.join(rel), text).unwrap();
    write(
        "Cargo.toml",
        "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        "src/lib.rs",
        "pub mod a_type;\npub mod m_middle;\npub mod shape;\npub mod z_impl;\n",
    );
    let a_type = "pub struct Square {\n    pub side: f64,\n}\n\nimpl Square {\n    pub fn new(side: f64) -> Square {\n        Square { side }\n    }\n}\n";
    write("src/a_type.rs", a_type);
    write(
        "src/shape.rs",
        "pub trait Area {\n    fn area(&self) -> f64;\n}\n\npub trait Marker {}\n",
    );
    let middle =
        "use crate::a_type::Square;\n\npub fn make() -> Square {\n    Square::new(2.0)\n}\n";
    write("src/m_middle.rs", middle);
    let z_impl = "use crate::a_type::Square;\nuse crate::shape::{Area, Marker};\n\nimpl Area for Square {\n    fn area(&self) -> f64 {\n        self.side * self.side\n    }\n}\n\nimpl Marker for Square {}\n";
    write("src/z_impl.rs", z_impl);
    common::backdate(&repo);
    let repo = repo.canonicalize().unwrap();
    let (sq, area) = ("src/a_type.rs::Square", "src/shape.rs::Area");

    let idx = index_repo(&repo, &opts()).unwrap();
    assert_eq!(implements_sites(&idx, sq, area), ["src/z_impl.rs"]);
    assert_eq!(
        implements_sites(&idx, sq, "src/shape.rs::Marker"),
        ["src/z_impl.rs"]
    );

    // A file between the two edited: both carried over, the impl's edges in its slot.
    write(
        "src/m_middle.rs",
        &format!("{middle}\npub fn more() -> u32 {{\n    1\n}}\n"),
    );
    let (idx, resolved) = reconcile_matches_fresh(&repo, "append to m_middle.rs", idx);
    assert_eq!(resolved, 1, "only m_middle.rs is resolved again");
    assert_eq!(implements_sites(&idx, sq, area), ["src/z_impl.rs"]);

    // The type's file: a definition before `Square` moves it; the carried edge follows.
    write(
        "src/a_type.rs",
        &format!("\npub struct Circle;\n\n{a_type}"),
    );
    let (idx, resolved) = reconcile_matches_fresh(&repo, "a struct before Square", idx);
    assert_eq!(resolved, 1, "the impl's file does not write `Circle`");
    assert_eq!(implements_sites(&idx, sq, area), ["src/z_impl.rs"]);
    write("src/a_type.rs", a_type);
    let (idx, _) = reconcile_matches_fresh(&repo, "restore a_type.rs", idx);

    // Copies of either file, then removed again.
    write("src/zz_copy.rs", z_impl);
    let (idx, _) = reconcile_matches_fresh(&repo, "copy of z_impl.rs", idx);
    assert_eq!(
        implements_sites(&idx, sq, area),
        ["src/z_impl.rs", "src/zz_copy.rs"]
    );
    std::fs::remove_file(repo.join("src/zz_copy.rs")).unwrap();
    let (idx, _) = reconcile_matches_fresh(&repo, "remove the copy of z_impl.rs", idx);
    write("src/b_copy.rs", a_type);
    let (idx, _) = reconcile_matches_fresh(&repo, "copy of a_type.rs", idx);
    std::fs::remove_file(repo.join("src/b_copy.rs")).unwrap();
    let (idx, _) = reconcile_matches_fresh(&repo, "remove the copy of a_type.rs", idx);

    // The impl's file renamed to a place before the middle file, then changed.
    std::fs::rename(repo.join("src/z_impl.rs"), repo.join("src/c_impl.rs")).unwrap();
    let (idx, _) = reconcile_matches_fresh(&repo, "rename z_impl.rs to c_impl.rs", idx);
    assert_eq!(implements_sites(&idx, sq, area), ["src/c_impl.rs"]);
    write(
        "src/c_impl.rs",
        &z_impl.replace("impl Marker for Square {}\n", ""),
    );
    let (idx, _) = reconcile_matches_fresh(&repo, "drop impl Marker", idx);
    assert!(implements_sites(&idx, sq, "src/shape.rs::Marker").is_empty());
    write("src/c_impl.rs", z_impl);
    let (idx, _) = reconcile_matches_fresh(&repo, "restore impl Marker", idx);

    // The type renamed away and back, then its file deleted and restored.
    write("src/a_type.rs", &a_type.replace("Square", "Tile"));
    let (idx, _) = reconcile_matches_fresh(&repo, "rename Square to Tile", idx);
    assert!(implements_sites(&idx, sq, area).is_empty());
    write("src/a_type.rs", a_type);
    let (idx, _) = reconcile_matches_fresh(&repo, "rename Tile to Square", idx);
    assert_eq!(implements_sites(&idx, sq, area), ["src/c_impl.rs"]);
    std::fs::remove_file(repo.join("src/a_type.rs")).unwrap();
    let (idx, _) = reconcile_matches_fresh(&repo, "delete a_type.rs", idx);
    write("src/a_type.rs", a_type);
    let (idx, _) = reconcile_matches_fresh(&repo, "restore a_type.rs", idx);
    assert_eq!(implements_sites(&idx, sq, area), ["src/c_impl.rs"]);
}
