//! Carrying an index across an edit: old file indices renumbered to new ones and merged
//! with the entries of the changed files. Shared by the definition tables and the
//! written-names index, which both live on between incremental updates.

/// Old file `fi`'s new index under `old_to_new` (see
/// [`Tables::update`](super::Tables::update)), `None` when it is gone or changed.
pub(super) fn renumbered(old_to_new: &[u32], fi: u32) -> Option<u32> {
    old_to_new
        .get(fi as usize)
        .copied()
        .filter(|&n| n != u32::MAX)
}

/// The merge of an index carried across an edit: `old` (sorted) with each item renumbered
/// (`renumber`; `None` drops it, and renumbering must keep the order), and `add` (sorted),
/// handed to `push` in order: an item `a` of `add` goes before an item `b` of `old` when
/// `before(a, b)`. Linear; what the sorted definition tables and the written-names index
/// do after each edit.
pub(super) fn merge_renumbered<T: Copy>(
    old: impl Iterator<Item = T>,
    renumber: impl Fn(T) -> Option<T>,
    add: Vec<T>,
    before: impl Fn(&T, &T) -> bool,
    mut push: impl FnMut(T),
) {
    let mut add = add.into_iter().peekable();
    for e in old.filter_map(renumber) {
        while let Some(a) = add.next_if(|a| before(a, &e)) {
            push(a);
        }
        push(e);
    }
    add.for_each(push);
}
