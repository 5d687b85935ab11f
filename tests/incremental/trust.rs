//! A cache is used only when it is whole and matches the tree and the options: a damaged,
//! stale, foreign or half-written snapshot is rebuilt, never trusted; a saved part is
//! checked on load; a second instance reads and writes nothing.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use codegraph_tui::index::session::{CacheState, Session};
use codegraph_tui::index::{index_repo, IndexOptions};

use super::{canonical, common, opts, scratch, warm_open};

fn snapshot_dir(cache: &Path) -> PathBuf {
    let cur = std::fs::read_to_string(cache.join("CURRENT")).unwrap();
    cache.join(cur.trim())
}

#[test]
fn a_damaged_cache_is_rebuilt_never_trusted() {
    let (_tmp, repo, cache) = scratch("python");
    let fresh = canonical(&index_repo(&repo, &opts()).unwrap());
    type Damage = fn(&Path);
    let damages: &[(&str, Damage)] = &[
        ("truncated facts", |c| {
            let p = snapshot_dir(c).join("facts.bin");
            let len = std::fs::metadata(&p).unwrap().len();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_len(len / 2).unwrap();
        }),
        ("flipped byte in edges", |c| {
            let p = snapshot_dir(c).join("edges.bin");
            let mut b = std::fs::read(&p).unwrap();
            let i = b.len() - 3;
            b[i] ^= 0x5a;
            std::fs::write(&p, b).unwrap();
        }),
        // Facts are read and decoded a batch at a time: the checksum still guards all.
        ("flipped byte in facts", |c| {
            let p = snapshot_dir(c).join("facts.bin");
            let mut b = std::fs::read(&p).unwrap();
            let i = b.len() / 2;
            b[i] ^= 0x5a;
            std::fs::write(&p, b).unwrap();
        }),
        ("garbage manifest", |c| {
            std::fs::write(snapshot_dir(c).join("manifest.bin"), b"not a cache").unwrap();
        }),
        ("missing piece", |c| {
            std::fs::remove_file(snapshot_dir(c).join("unresolved.bin")).unwrap();
        }),
        ("missing name indexes", |c| {
            std::fs::remove_file(snapshot_dir(c).join("names.bin")).unwrap();
        }),
        ("CURRENT names nothing", |c| {
            std::fs::write(c.join("CURRENT"), "snap-gone").unwrap();
        }),
        ("CURRENT escapes", |c| {
            std::fs::write(c.join("CURRENT"), "../../etc").unwrap();
        }),
        // Every save must still replace it (a rename onto a folder fails).
        ("CURRENT is a folder", |c| {
            std::fs::remove_file(c.join("CURRENT")).unwrap();
            std::fs::create_dir(c.join("CURRENT")).unwrap();
        }),
        // The fingerprint's length byte: a garbled header, not another build.
        ("flipped byte in a header", |c| {
            let p = snapshot_dir(c).join("facts.bin");
            let mut b = std::fs::read(&p).unwrap();
            b[8] ^= 1;
            std::fs::write(&p, b).unwrap();
        }),
        // Neither may block or read without end.
        ("a FIFO instead of facts", |c| {
            let p = snapshot_dir(c).join("facts.bin");
            std::fs::remove_file(&p).unwrap();
            let ok = std::process::Command::new("mkfifo")
                .arg(&p)
                .status()
                .unwrap();
            assert!(ok.success());
        }),
        ("a symlink to an endless device", |c| {
            let p = snapshot_dir(c).join("edges.bin");
            std::fs::remove_file(&p).unwrap();
            std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
        }),
    ];
    for (what, damage) in damages {
        warm_open(&repo, &cache);
        damage(&cache);
        let mut s = Session::open(Some(&cache));
        assert!(s.load(&repo, &opts()).is_none(), "{what}: not trusted");
        assert_eq!(s.report.state, CacheState::Rebuilt, "{what}");
        let reason = s.report.reason.clone().unwrap_or_default();
        assert!(reason.contains("damaged"), "{what}: {reason}");
        let (idx, _) = s.refresh(&repo, &opts(), None).unwrap().unwrap();
        assert_eq!(canonical(&idx), fresh, "{what}: rebuilt index is right");
        assert!(
            s.report.saved,
            "{what}: the rebuild replaced the damaged cache: {:?}",
            s.report
        );
        let mut again = Session::open(Some(&cache));
        assert!(again.load(&repo, &opts()).is_some(), "{what}: usable again");
    }
}

#[test]
fn unchanged_stats_answer_only_for_a_tree_as_saved() {
    let (_tmp, repo, cache) = scratch("python");
    let check = |what: &str, expect: bool| {
        let mut s = Session::open(Some(&cache));
        let got = s.unchanged_stats(&repo, &opts());
        assert_eq!(got.is_some(), expect, "{what}");
        if let Some(stats) = got {
            assert_eq!(s.report.state, CacheState::Warm, "{what}");
            let mut fresh = index_repo(&repo, &opts()).unwrap().stats;
            let mut stats = stats;
            fresh.elapsed_ms.clear();
            stats.elapsed_ms.clear();
            assert_eq!(
                serde_json::to_value(&stats).unwrap(),
                serde_json::to_value(&fresh).unwrap(),
                "{what}: the manifest's counts are a fresh index's"
            );
        }
    };
    check("no cache yet", false);
    warm_open(&repo, &cache);
    check("as saved", true);
    let old = SystemTime::now() - Duration::from_secs(1800);
    type Change = fn(&Path, SystemTime);
    let changes: &[(&str, Change)] = &[
        ("same size, other mtime", |r, old| {
            let p = r.join("app/store.py");
            let mut b = std::fs::read(&p).unwrap();
            b[0] = if b[0] == b'#' { b' ' } else { b'#' };
            std::fs::write(&p, b).unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(old).unwrap();
        }),
        ("a new source file", |r, _| {
            std::fs::write(r.join("app/late.py"), "def late():\n    pass\n").unwrap();
        }),
        ("a new file the walk skips", |r, _| {
            std::fs::write(r.join("notes.unknownext"), "x").unwrap();
        }),
        ("a deleted file", |r, _| {
            std::fs::remove_file(r.join("app/late.py")).unwrap();
        }),
        // Size and mtime as they were: only the status-change time moves (a file made
        // readable again is noticed so).
        ("permissions changed", |r, _| {
            use std::os::unix::fs::PermissionsExt;
            let p = r.join("app/store.py");
            let mode = std::fs::metadata(&p).unwrap().permissions().mode();
            std::thread::sleep(Duration::from_millis(20));
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode ^ 0o040)).unwrap();
        }),
    ];
    for (what, change) in changes {
        change(&repo, old);
        check(what, false);
        warm_open(&repo, &cache);
        // A file written within RACY_NS of the save is not trusted by its stamp.
        check(
            &format!("{what}, saved again"),
            !what.contains("source file"),
        );
        common::backdate(&repo);
        warm_open(&repo, &cache);
        check(&format!("{what}, backdated and saved"), true);
    }
    // A damaged snapshot is never answered from: the load says why.
    let p = snapshot_dir(&cache).join("facts.bin");
    let mut b = std::fs::read(&p).unwrap();
    let i = b.len() / 2;
    b[i] ^= 0x5a;
    std::fs::write(&p, b).unwrap();
    check("damaged facts", false);
    let mut s = Session::open(Some(&cache));
    assert!(s.load(&repo, &opts()).is_none());
    assert_eq!(s.report.state, CacheState::Rebuilt);
}

/// The graph-only load (`Session::load_graph`, what `callers`, `symbols` and the other
/// graph commands use on a warm start) reads the graph's parts of the snapshot, not the
/// facts: it must give the very graph a full load gives (and a full load the very index
/// that was saved), and never answer for a changed tree or a damaged snapshot.
#[test]
fn the_graph_alone_loads_as_the_full_index_has_it() {
    for fixture in ["multi", "typescript", "go", "rust", "python", "javascript"] {
        let (_tmp, repo, cache) = scratch(fixture);
        let (idx, _) = warm_open(&repo, &cache);
        let want = canonical(&idx);
        let mut s = Session::open(Some(&cache));
        let first = s
            .load_graph(&repo, &opts())
            .unwrap_or_else(|| panic!("{fixture}: no graph from a snapshot of the tree as it is"));
        assert_eq!(s.report.state, CacheState::Warm, "{fixture}");
        assert!(first.index().files.is_empty());
        // The facts joined to that graph afterwards (what the TUI's worker does): the
        // index saved, the graph shared.
        let staged = s.load_facts(&first).expect("facts");
        assert!(std::sync::Arc::ptr_eq(&staged.graph, &first.graph));
        assert_eq!(
            staged.files, idx.files,
            "{fixture}: facts loaded after the graph"
        );
        assert_eq!(staged.stamps, idx.stamps, "{fixture}");
        assert_eq!(canonical(&staged), want, "{fixture}");
        let graph = &first.graph;
        assert_eq!(
            serde_json::to_string_pretty(&graph.to_canonical_json()).unwrap(),
            want,
            "{fixture}: the graph-only load differs from the index saved"
        );
        assert!(graph.unresolved_count() > 0 || idx.graph.unresolved_count() == 0);
        // The full load: the facts come back whole (their definitions' ids and names are
        // stored with the nodes and put back), sharing the graph's strings.
        let full = Session::open(Some(&cache))
            .load(&repo, &opts())
            .unwrap_or_else(|| panic!("{fixture}: no full load"));
        assert_eq!(
            full.files, idx.files,
            "{fixture}: the facts differ after a load"
        );
        assert_eq!(canonical(&full), want, "{fixture}");
        let d = full.files.iter().find_map(|f| f.definitions.first());
        let d = d.unwrap_or_else(|| panic!("{fixture}: no definitions"));
        let n = full.graph.node(&d.id).unwrap();
        assert!(std::sync::Arc::ptr_eq(&d.id, &n.id) && std::sync::Arc::ptr_eq(&d.name, &n.name));
    }
    let (_tmp, repo, cache) = scratch("python");
    warm_open(&repo, &cache);
    std::fs::write(repo.join("app/late.py"), "def late():\n    return 1\n").unwrap();
    assert!(
        Session::open(Some(&cache))
            .load_graph(&repo, &opts())
            .is_none(),
        "a changed tree is never answered from the snapshot's graph"
    );
    warm_open(&repo, &cache);
    common::backdate(&repo);
    warm_open(&repo, &cache);
    assert!(Session::open(Some(&cache))
        .load_graph(&repo, &opts())
        .is_some());
    // Damaged facts: the graph alone still stands (its parts hold); a full load refuses.
    let damage = |name: &str| {
        let p = snapshot_dir(&cache).join(name);
        let mut b = std::fs::read(&p).unwrap();
        let i = b.len() / 2;
        b[i] ^= 0x5a;
        std::fs::write(&p, b).unwrap();
    };
    damage("facts.bin");
    assert!(Session::open(Some(&cache)).load(&repo, &opts()).is_none());
    assert!(Session::open(Some(&cache))
        .load_graph(&repo, &opts())
        .is_some());
    damage("nodes.bin");
    assert!(
        Session::open(Some(&cache))
            .load_graph(&repo, &opts())
            .is_none(),
        "a damaged snapshot is never answered from"
    );
}

#[test]
fn a_part_from_another_snapshot_is_not_trusted() {
    let (_tmp, repo, cache) = scratch("python");
    warm_open(&repo, &cache);
    let old = snapshot_dir(&cache);
    let kept = cache.join("old-edges.bin");
    std::fs::copy(old.join("edges.bin"), &kept).unwrap();
    std::fs::write(repo.join("app/late.py"), "def late():\n    return 1\n").unwrap();
    warm_open(&repo, &cache);
    let new = snapshot_dir(&cache);
    assert_ne!(old, new);
    // Each file's own checksum holds; the manifest does not list this one.
    std::fs::copy(&kept, new.join("edges.bin")).unwrap();
    let mut s = Session::open(Some(&cache));
    assert!(
        s.unchanged_stats(&repo, &opts()).is_none(),
        "answered from a pieced cache"
    );
    assert!(s.load(&repo, &opts()).is_none());
    let reason = s.report.reason.clone().unwrap_or_default();
    assert!(
        reason.contains("damaged") && reason.contains("another snapshot"),
        "{reason}"
    );
}

#[test]
fn a_file_dated_in_the_future_is_hashed_but_not_saved_again_and_again() {
    let (_tmp, repo, cache) = scratch("python");
    warm_open(&repo, &cache);
    let p = repo.join("app/store.py");
    let f = std::fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(86_400))
        .unwrap();
    let (_, s) = warm_open(&repo, &cache);
    assert!(s.report.saved, "the new stamp is saved");
    let mut s = Session::open(Some(&cache));
    let prev = s.load(&repo, &opts()).unwrap();
    // Racily clean for a day: hashed at every reconciliation, same content, no save.
    assert!(s.refresh(&repo, &opts(), Some(&prev)).unwrap().is_none());
    assert!(!s.report.saved);
}

#[test]
fn other_options_or_a_leftover_of_a_crashed_save_are_handled() {
    let (_tmp, repo, cache) = scratch("python");
    warm_open(&repo, &cache);
    let other = IndexOptions {
        caps: codegraph_tui::index::Caps {
            max_file_bytes: 4096,
            ..Default::default()
        },
        ..opts()
    };
    let mut s = Session::open(Some(&cache));
    assert!(s.load(&repo, &other).is_none());
    assert_eq!(s.report.state, CacheState::Rebuilt);
    assert!(s.report.reason.as_deref().unwrap_or("").contains("options"));
    drop(s);

    // A crash in the middle of a save leaves a temporary folder and CURRENT.tmp: the
    // live snapshot is still the old one, and the next save clears the leftovers.
    std::fs::create_dir_all(cache.join(".snap-dead-1.tmp")).unwrap();
    std::fs::write(cache.join(".snap-dead-1.tmp/facts.bin"), b"partial").unwrap();
    std::fs::write(cache.join(".CURRENT.tmp"), "snap-dead-1").unwrap();
    let mut s = Session::open(Some(&cache));
    assert!(s.load(&repo, &opts()).is_some(), "old snapshot still live");
    drop(s);
    std::fs::write(repo.join("app/new.py"), "def fresh():\n    pass\n").unwrap();
    let (_, s) = warm_open(&repo, &cache);
    assert!(s.report.saved);
    assert!(
        !cache.join(".snap-dead-1.tmp").exists(),
        "leftover collected"
    );
    let snaps = std::fs::read_dir(&cache)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("snap-")
        })
        .count();
    assert_eq!(snaps, 1, "only the live snapshot is kept");
}

#[test]
fn a_second_instance_opens_read_only_and_writes_nothing() {
    let (_tmp, repo, cache) = scratch("python");
    let mut writer = Session::open(Some(&cache));
    assert!(!writer.report.read_only);
    let (idx, _) = writer.refresh(&repo, &opts(), None).unwrap().unwrap();
    let current = std::fs::read_to_string(cache.join("CURRENT")).unwrap();

    let mut reader = Session::open(Some(&cache));
    assert!(reader.report.read_only, "the lock is held by the first");
    assert!(reader.writable_dir().is_none());
    let loaded = reader.load(&repo, &opts()).expect("reads the cache");
    assert_eq!(canonical(&loaded), canonical(&idx));
    std::fs::write(repo.join("app/more.py"), "def more():\n    pass\n").unwrap();
    let (updated, _) = reader
        .refresh(&repo, &opts(), Some(&loaded))
        .unwrap()
        .expect("sees the change");
    assert!(updated.graph.node("app/more.py::more").is_some());
    assert!(!reader.report.saved);
    assert_eq!(
        std::fs::read_to_string(cache.join("CURRENT")).unwrap(),
        current,
        "the read-only instance did not write"
    );
    drop(writer);
    let third = Session::open(Some(&cache));
    assert!(
        !third.report.read_only,
        "the lock is released with the writer"
    );
}

/// The name indexes a cache stores give the graph the lookups a fresh sort gives, and an
/// order that does not fit the nodes is refused (the load then rebuilds).
#[test]
fn a_saved_name_order_rebuilds_the_same_lookups_and_a_wrong_one_is_refused() {
    use codegraph_tui::index::graph::CodeGraph;
    let (_tmp, repo, _cache) = scratch("python");
    let idx = index_repo(&repo, &opts()).unwrap();
    let g = &idx.graph;
    let nodes: Vec<_> = g.nodes().cloned().collect();
    let (edges, unresolved) = g.to_raw_parts();
    let order = g.name_order();
    let build =
        |o| CodeGraph::from_parts_ordered(nodes.clone(), edges.clone(), unresolved.clone(), o);
    let h = build(order.clone()).unwrap();
    let sorted = CodeGraph::from_parts(nodes.clone(), edges.clone(), unresolved.clone());
    assert_eq!(h.name_order(), sorted.name_order());
    // What a save writes in place is what the owned order encodes to.
    assert_eq!(
        postcard::to_stdvec(&g.name_order_ser()).unwrap(),
        postcard::to_stdvec(&order).unwrap()
    );
    assert_eq!(
        postcard::to_stdvec(&g.raw_edges_ser()).unwrap(),
        postcard::to_stdvec(&edges).unwrap()
    );
    assert_eq!(h.to_canonical_json(), g.to_canonical_json());
    for n in g.nodes() {
        for q in [&*n.name, &*n.qualified_name, &*n.id] {
            let ids = |g: &CodeGraph| -> Vec<String> {
                g.lookup(q).iter().map(|n| n.id.to_string()).collect()
            };
            assert_eq!(ids(&h), ids(g), "lookup {q}");
        }
    }
    let file_pos = nodes
        .iter()
        .position(|n| n.kind == codegraph_tui::index::Kind::File)
        .unwrap() as u32;
    type Spoil = fn(&mut codegraph_tui::index::graph::NameOrder, u32);
    let spoils: &[(&str, Spoil)] = &[
        ("short", |o, _| {
            o.by_name.pop();
        }),
        ("repeated", |o, _| o.by_qualified[0] = o.by_qualified[1]),
        ("out of range", |o, _| o.id_rank[0] = u32::MAX),
        ("a file among definitions", |o, f| o.by_name[0] = f),
    ];
    for (what, spoil) in spoils {
        let mut o = order.clone();
        spoil(&mut o, file_pos);
        assert!(build(o).is_err(), "{what} accepted");
    }
}
