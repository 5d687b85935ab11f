//! tree-sitter's allocations from the per-thread arena (`index::arena`), which the binary
//! installs: every fixture's canonical graph is byte-identical to the one made with
//! tree-sitter's default allocator. (One test in its own binary: installing the allocator
//! must not race other tests' tree-sitter use.)

mod common;

fn canonical(idx: &codegraph_tui::index::Index) -> String {
    serde_json::to_string_pretty(&idx.graph.to_canonical_json()).unwrap()
}

#[test]
fn the_arena_changes_no_fact() {
    use codegraph_tui::index::arena;
    let root = common::fixture("");
    // Not installed yet: scopes are off and tree-sitter allocates as by default.
    assert!(arena::Scope::enter().is_none());
    let plain = canonical(&common::index(&root, 2));
    // The threads of that run are idle now: nothing else uses tree-sitter meanwhile.
    arena::install();
    let scope = arena::Scope::enter();
    assert!(scope.is_some(), "installed: a scope starts");
    assert!(arena::Scope::enter().is_none(), "scopes do not nest");
    drop(scope);
    let arena_made = canonical(&common::index(&root, 2));
    assert!(plain.len() > 10_000, "the fixtures give a sizeable graph");
    assert!(plain == arena_made, "the arena changed the graph");
    // Once more on one thread: its kept chunks are reused without changing a fact.
    assert!(canonical(&common::index(&root, 1)) == plain);
}
