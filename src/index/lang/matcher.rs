//! The extraction matcher: `tags.scm` patterns (read by [`super::pattern`]) matched at
//! their root nodes during one walk of the tree, instead of tree-sitter's query engine.
//!
//! Why: the query cursor is general (it advances a set of in-progress states over every
//! node under a pattern root and de-duplicates them), and on the Rust corpus it cost about
//! half a bare parse even when started only at root nodes. Here each node's kind id indexes
//! the patterns rooted at that kind, and a pattern is matched by reading the root's
//! children once and checking fields, kinds and anchors directly, descending only into
//! children a step names. A node's children are listed by `children.c` in one pass over
//! tree-sitter's subtrees (what `TreeCursor` lists, at about a third of its cost), and only
//! at nodes where a pattern is rooted: `children.c` also walks the tree to find those,
//! reading each subtree header once (listing the children of every node on the way cost
//! the npm corpus 4% more index CPU: 795K of its 1.26M inner nodes start no pattern).
//!
//! The matches are tree-sitter's, in its order, so the extractor consumes them unchanged:
//! * every distinct way a pattern matches gives one match (two ways with identical
//!   captures give one), with the captures in pattern order;
//! * a step scans its parent's children as tree-sitter's states do: an anchored (`.`) step
//!   gives up at the first named child that does not match, and a step without captures
//!   and without child steps takes the first child that matches, never a later one;
//! * the matches of one root node come ordered as the query cursor finishes them: by the
//!   node the pattern's last step matched (tree order), then pattern index, then the start
//!   of the first capture, then the order the alternatives and children were tried;
//! * text predicates are checked on the captures as tree-sitter's Rust binding does;
//! * a field step that matched a child looks at later children only if the parent's
//!   production names that field again (`commaSep1(field('name', ..))` does, Go's
//!   `field('name', commaSep1(..))` does not): grammar tables the API does not expose, so
//!   `children.c` reads them as the query cursor does (`ts_tree_cursor_current_status`).
//!
//! Patterns the reader does not support run through tree-sitter's query cursor at their
//! root nodes (a `Query` built from their text alone); their matches follow the native
//! ones of the same node. The shipped queries have none (a unit test lists them), so the
//! whole `tags.scm` is never compiled outside tests. (The repeated-field rule above is read
//! from the grammar tables rather than by compiling the pattern alone and asking the query
//! cursor: that compilation costs 7% of a Python index's CPU and a fifth of its page faults.)
//! `extract`'s equivalence tests compare this matcher with the query cursor on every
//! fixture file, match by match.

use streaming_iterator::StreamingIterator;

use tree_sitter::{Language, Node, Query, QueryCapture, QueryCursor};

use super::pattern::{self, KindTest, Outline, Pattern, Predicate, Step};

/// Patterns of one language by root kind, plus the tree-sitter fallback for the rest.
pub struct Matcher {
    patterns: Vec<Pattern>,
    /// `by_kind[kind_id]`: (slot in `patterns`, root alternative), ascending pattern index.
    by_kind: Vec<Vec<(u32, u32)>>,
    /// Patterns left to tree-sitter: (pattern index, reason).
    fallback_patterns: Vec<(usize, String)>,
    fallback: Option<Fallback>,
    /// `rooted[kind_id]` is 1 when a native or fallback pattern may start at that kind:
    /// the nodes the walk stops at.
    rooted: Vec<u8>,
}

/// Capture index in a `Query` compiled from part of the text → capture index of the whole
/// text (whose capture names are `names`). Errors: a name not in `names` (a cutting defect).
fn capture_map(part: &Query, names: &[String]) -> Result<Vec<u32>, String> {
    part.capture_names()
        .iter()
        .map(|n| {
            names
                .iter()
                .position(|m| m == n)
                .map(|i| i as u32)
                .ok_or_else(|| format!("capture @{n} is not in the outline"))
        })
        .collect()
}

/// The unsupported patterns compiled as their own `Query`.
struct Fallback {
    query: Query,
    /// Capture index in `query` → capture index in the full query.
    capture_map: Vec<u32>,
    /// Root kinds of its patterns; `None` when one is a wildcard (then it runs once over
    /// the whole tree).
    roots: Option<Vec<bool>>,
}

impl std::fmt::Debug for Matcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Matcher")
            .field("patterns", &self.patterns.len())
            .field("fallback", &self.fallback_patterns)
            .finish()
    }
}

impl Matcher {
    /// Builds the matcher of query text `source` (outlined by [`pattern::outline`]) for
    /// `language`.
    ///
    /// Errors: when the fallback query for unsupported patterns does not compile, which
    /// means a pattern the reader could not read is not valid either (reported as tree-
    /// sitter's message).
    pub(crate) fn new(
        language: &Language,
        outline: &Outline,
        source: &str,
    ) -> Result<Self, String> {
        let (mut patterns, fallback_patterns) = pattern::read_patterns(language, outline, source);
        let mut by_kind: Vec<Vec<(u32, u32)>> = vec![Vec::new(); language.node_kind_count()];
        for (slot, p) in patterns.iter_mut().enumerate() {
            pattern::finish(p);
            for (alt, root) in p.roots.iter().enumerate() {
                let kinds: Vec<u16> = match root.test {
                    KindTest::Kind(k) => vec![k],
                    KindTest::Named => (0..language.node_kind_count() as u16)
                        .filter(|&k| language.node_kind_is_named(k))
                        .collect(),
                    KindTest::Any => (0..language.node_kind_count() as u16).collect(),
                };
                for k in kinds {
                    if let Some(list) = by_kind.get_mut(k as usize) {
                        list.push((slot as u32, alt as u32));
                    }
                }
            }
        }
        let fallback = if fallback_patterns.is_empty() {
            None
        } else {
            let text: String = fallback_patterns
                .iter()
                .map(|&(i, _)| format!("{}\n", &source[outline.patterns[i].clone()]))
                .collect();
            let fq = Query::new(language, &text).map_err(|e| format!("fallback query: {e}"))?;
            let capture_map =
                capture_map(&fq, &outline.captures).map_err(|e| format!("fallback: {e}"))?;
            let roots = super::roots::root_kinds(&text).map(|names| {
                (0..language.node_kind_count() as u16)
                    .map(|id| {
                        language
                            .node_kind_for_id(id)
                            .is_some_and(|k| names.iter().any(|n| n == k))
                    })
                    .collect()
            });
            Some(Fallback {
                query: fq,
                capture_map,
                roots,
            })
        };
        let rooted = (0..by_kind.len())
            .map(|k| {
                let fallback = fallback.as_ref().is_some_and(|f: &Fallback| {
                    f.roots
                        .as_ref()
                        .is_some_and(|r| r.get(k).copied().unwrap_or(false))
                });
                u8::from(!by_kind[k].is_empty() || fallback)
            })
            .collect();
        Ok(Matcher {
            patterns,
            by_kind,
            fallback_patterns,
            fallback,
            rooted,
        })
    }

    /// Patterns handed to tree-sitter's query cursor: (pattern index, why). Empty for the
    /// shipped queries.
    #[cfg(test)]
    pub(crate) fn fallback_patterns(&self) -> &[(usize, String)] {
        &self.fallback_patterns
    }

    /// Runs every pattern over the tree under `root`, calling `on_match` with each match's
    /// pattern index and captures, in the query cursor's order (see the module docs).
    /// `cursor` serves the fallback patterns.
    pub fn run<'t>(
        &self,
        root: Node<'t>,
        src: &[u8],
        cursor: &mut QueryCursor,
        on_match: &mut dyn FnMut(usize, &[QueryCapture<'t>]),
    ) {
        let mut ctx = Ctx {
            src,
            pool: Vec::new(),
            caps: Vec::new(),
            last: (root, 0),
            found: Vec::new(),
            found_caps: Vec::new(),
            seq: 0,
        };
        // The root, then every node under it in tree order where a pattern may start
        // (`children.c` walks the tree; only those nodes have their children listed).
        if self.rooted_at(root.kind_id()) {
            let kids = self.enter(root, root.kind_id(), &mut ctx, cursor, on_match);
            ctx.pool.push(kids);
        }
        let mut walk = Walk::new(root, &self.rooted);
        let mut batch: Vec<tree_sitter::ffi::TSNode> = Vec::with_capacity(64);
        loop {
            let more = walk.next(&mut batch);
            for &raw in &batch {
                // SAFETY: `raw` was made by `children.c` from a node of `root`'s tree, which
                // is borrowed for `'t` (the same construction as `ts_node_child`).
                let node = unsafe { Node::from_raw(raw) };
                let kids = self.enter(node, node.kind_id(), &mut ctx, cursor, on_match);
                ctx.pool.push(kids);
            }
            if !more {
                break;
            }
        }
        if let Some(f) = self.fallback.as_ref().filter(|f| f.roots.is_none()) {
            f.run(root, src, cursor, None, on_match);
        }
    }

    /// Whether a pattern (native or fallback) may match at a node of kind `kind`.
    fn rooted_at(&self, kind: u16) -> bool {
        self.rooted.get(kind as usize).is_some_and(|&r| r != 0)
    }

    /// Lists `node`'s children and runs the patterns rooted at its kind; returns the list.
    fn enter<'t>(
        &self,
        node: Node<'t>,
        kind: u16,
        ctx: &mut Ctx<'_, 't>,
        cursor: &mut QueryCursor,
        on_match: &mut dyn FnMut(usize, &[QueryCapture<'t>]),
    ) -> Vec<Kid<'t>> {
        let kind = kind as usize;
        let list = self.by_kind.get(kind).filter(|l| !l.is_empty());
        let kids = ctx.children(node);
        if let Some(list) = list {
            self.match_at(node, list, &kids, ctx, on_match);
        }
        if let Some(f) = &self.fallback {
            if f.roots
                .as_ref()
                .is_some_and(|r| r.get(kind).copied().unwrap_or(false))
            {
                f.run(node, ctx.src, cursor, Some(0), on_match);
            }
        }
        kids
    }

    /// All matches of the patterns rooted at `node`'s kind, sorted, then reported.
    fn match_at<'t>(
        &self,
        node: Node<'t>,
        list: &[(u32, u32)],
        kids: &[Kid<'t>],
        ctx: &mut Ctx<'_, 't>,
        on_match: &mut dyn FnMut(usize, &[QueryCapture<'t>]),
    ) {
        ctx.found.clear();
        ctx.found_caps.clear();
        ctx.seq = 0;
        for &(slot, alt) in list {
            let p = &self.patterns[slot as usize];
            let step = &p.roots[alt as usize];
            if step.test == KindTest::Named && (!node.is_named() || node.is_error())
                || step.test == KindTest::Any && node.is_error()
                || !negated_ok(step, node)
            {
                continue;
            }
            ctx.caps.clear();
            ctx.caps.extend(
                step.captures
                    .iter()
                    .map(|&index| QueryCapture { node, index }),
            );
            ctx.last = (node, 0);
            let mut keep = |ctx: &mut Ctx<'_, 't>| record(p, ctx);
            if step.children.is_empty() {
                keep(ctx);
            } else {
                seq(&step.children, kids, 0, 1, ctx, &mut keep);
            }
        }
        if ctx.found.is_empty() {
            return;
        }
        ctx.found.sort_by_key(|f| f.key);
        for f in &ctx.found {
            on_match(f.pattern, &ctx.found_caps[f.caps.clone()]);
        }
    }
}

impl Fallback {
    fn run<'t>(
        &self,
        node: Node<'t>,
        src: &[u8],
        cursor: &mut QueryCursor,
        max_start_depth: Option<u32>,
        on_match: &mut dyn FnMut(usize, &[QueryCapture<'t>]),
    ) {
        cursor.set_max_start_depth(max_start_depth);
        let mut caps = Vec::new();
        let mut matches = cursor.matches(&self.query, node, src);
        while let Some(m) = matches.next() {
            caps.clear();
            caps.extend(m.captures().iter().map(|c| QueryCapture {
                node: c.node,
                index: self.capture_map[c.index as usize],
            }));
            on_match(m.pattern_index, &caps);
        }
        cursor.set_max_start_depth(None);
    }
}

/// A visible child of a node, with what the steps check. Filled in by
/// `codegraph_visible_children` (`children.c`), whose `CgKid` has this layout up to
/// `later_named`, which [`Ctx::children`] fills in.
#[repr(C)]
#[derive(Clone, Copy)]
struct Kid<'t> {
    raw: tree_sitter::ffi::TSNode,
    /// Visible children (`Node::child_count`).
    child_count: u32,
    /// `Node::kind_id`.
    kind: u16,
    /// Field id in the parent, 0 for none (`TreeCursor::field_id`).
    field: u16,
    named: bool,
    error: bool,
    /// A named sibling follows.
    later_named: bool,
    /// The parent's production names `field` again at a later child
    /// (`can_have_later_siblings_with_this_field` of `ts_tree_cursor_current_status`).
    field_repeats: bool,
    tree: std::marker::PhantomData<&'t tree_sitter::Tree>,
}

// `children.c` asserts the same size for its `CgKid`.
const _: () = assert!(std::mem::size_of::<Kid<'static>>() == 48);

impl<'t> Kid<'t> {
    fn node(&self) -> Node<'t> {
        // SAFETY: `raw` was made by `children.c` from a node of a tree borrowed for `'t`
        // (the same construction as `ts_node_child`).
        unsafe { Node::from_raw(self.raw) }
    }
}

/// One subtree whose children the walk is listing: `CgFrame` of `children.c` (its fields
/// are only read and written there).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct Frame([u8; 40]);

/// The state of `children.c`'s walk (`CgWalk`, the same layout).
#[repr(C)]
struct CgWalk {
    tree: *const tree_sitter::ffi::TSTree,
    rooted: *const u8,
    rooted_len: u32,
    depth: u32,
    stack: *mut Frame,
    stack_cap: u32,
}

// `children.c` asserts the same sizes.
const _: () = assert!(std::mem::size_of::<CgWalk>() == 40 && std::mem::size_of::<Frame>() == 40);

/// A walk over the nodes under a root, in tree order, yielding those whose kind is rooted.
/// It owns the walk's stack (one frame per level of nesting, grown as the tree needs).
struct Walk<'t> {
    raw: CgWalk,
    stack: Vec<Frame>,
    tree: std::marker::PhantomData<&'t tree_sitter::Tree>,
}

impl<'t> Walk<'t> {
    /// A walk of the nodes under `root` (not `root` itself); `rooted[kind_id]` != 0 marks
    /// the kinds to yield.
    fn new(root: Node<'t>, rooted: &'t [u8]) -> Walk<'t> {
        let mut stack = vec![Frame([0; 40]); 64];
        let raw_root = root.into_raw();
        let mut raw = CgWalk {
            tree: raw_root.tree,
            rooted: rooted.as_ptr(),
            rooted_len: u32::try_from(rooted.len()).unwrap_or(u32::MAX),
            depth: 0,
            stack: stack.as_mut_ptr(),
            stack_cap: 64,
        };
        // SAFETY: `raw` points at a stack of `stack_cap` (>= 1) frames and at `rooted`,
        // both alive as long as the walk; `raw_root` is a node of a tree borrowed for `'t`.
        unsafe { codegraph_walk_start(&mut raw, raw_root) };
        Walk {
            raw,
            stack,
            tree: std::marker::PhantomData,
        }
    }

    /// Replaces `out`'s contents with the next nodes to yield (up to its capacity, at least
    /// one slot); `false` when the walk is over (`out` holds its last nodes).
    fn next(&mut self, out: &mut Vec<tree_sitter::ffi::TSNode>) -> bool {
        out.clear();
        let cap = u32::try_from(out.capacity().max(1)).unwrap_or(u32::MAX);
        out.reserve(cap as usize);
        loop {
            let mut written = 0u32;
            let have = out.len();
            // SAFETY: `out` has room for `cap - have` more nodes after its `have`; the
            // stack pointer and capacity in `raw` describe `self.stack`.
            let status = unsafe {
                codegraph_walk_next(
                    &mut self.raw,
                    out.as_mut_ptr().add(have),
                    cap - have as u32,
                    &mut written,
                )
            };
            // SAFETY: the walk wrote `written` nodes after the first `have`.
            unsafe { out.set_len(have + written as usize) };
            match status {
                // Over, or `out` is full.
                0 => return false,
                1 => return true,
                // A deeper tree than the stack: double it (the frames move with it) and go
                // on where the walk stopped (with no room left in `out`, the walk says so).
                _ => {
                    self.stack.resize(self.stack.len() * 2, Frame([0; 40]));
                    self.raw.stack = self.stack.as_mut_ptr();
                    self.raw.stack_cap = u32::try_from(self.stack.len()).unwrap_or(u32::MAX);
                }
            }
        }
    }
}

unsafe extern "C" {
    /// Writes up to `cap` visible children of `node` to `out` and returns how many `node`
    /// has (`src/index/lang/children.c`).
    fn codegraph_visible_children(
        node: tree_sitter::ffi::TSNode,
        out: *mut Kid<'_>,
        cap: u32,
    ) -> u32;

    /// Starts `walk` at the nodes under `node` (`children.c`).
    fn codegraph_walk_start(walk: *mut CgWalk, node: tree_sitter::ffi::TSNode);

    /// Writes the next rooted nodes of `walk` (up to `cap`, which may be 0) to `out`;
    /// returns 0 when the walk is over, 1 when `out` is full, 2 when the stack is
    /// (`children.c`).
    fn codegraph_walk_next(
        walk: *mut CgWalk,
        out: *mut tree_sitter::ffi::TSNode,
        cap: u32,
        written: *mut u32,
    ) -> i32;
}

/// A match waiting to be reported: its sort key and captures.
struct Found {
    /// (finish node start byte, its end byte reversed, its depth, pattern index, first
    /// capture's start byte, order found).
    key: (usize, std::cmp::Reverse<usize>, u32, u32, usize, u32),
    pattern: usize,
    caps: std::ops::Range<usize>,
}

struct Ctx<'s, 't> {
    src: &'s [u8],
    /// Spare child lists.
    pool: Vec<Vec<Kid<'t>>>,
    /// Captures of the match in progress.
    caps: Vec<QueryCapture<'t>>,
    /// The node the latest step matched, and its depth under the root.
    last: (Node<'t>, u32),
    found: Vec<Found>,
    found_caps: Vec<QueryCapture<'t>>,
    seq: u32,
}

impl<'t> Ctx<'_, 't> {
    /// The visible children of `node` (hidden nodes flattened, as queries see them).
    fn children(&mut self, node: Node<'t>) -> Vec<Kid<'t>> {
        let mut v = self.pool.pop().unwrap_or_default();
        v.clear();
        let raw = node.into_raw();
        loop {
            let cap = u32::try_from(v.capacity()).unwrap_or(u32::MAX);
            // SAFETY: `out` has room for `cap` kids; the function writes at most `cap`.
            let n = unsafe { codegraph_visible_children(raw, v.as_mut_ptr(), cap) };
            if n <= cap {
                // SAFETY: the first `n` kids were written, each field of a valid value
                // (`named` and `error` are 0 or 1; `later_named` is set below).
                unsafe { v.set_len(n as usize) };
                break;
            }
            v.reserve(n as usize);
        }
        let mut named_after = false;
        for k in v.iter_mut().rev() {
            k.later_named = named_after;
            named_after |= k.named;
        }
        v
    }
}

fn negated_ok(step: &Step, node: Node<'_>) -> bool {
    step.negated.iter().all(|&f| {
        std::num::NonZeroU16::new(f).is_none_or(|f| node.child_by_field_id(f.get()).is_none())
    })
}

/// Matches child steps `steps` against `kids[pos..]` (children at `depth`), calling `k`
/// for every complete assignment.
fn seq<'t>(
    steps: &[Vec<Step>],
    kids: &[Kid<'t>],
    pos: usize,
    depth: u32,
    ctx: &mut Ctx<'_, 't>,
    k: &mut dyn FnMut(&mut Ctx<'_, 't>),
) {
    let Some((alts, rest)) = steps.split_first() else {
        k(ctx);
        return;
    };
    for step in alts {
        for i in pos..kids.len() {
            let kid = &kids[i];
            // tree-sitter's `node_does_match` and `later_sibling_can_match`.
            let mut later = i + 1 < kids.len() && !(step.immediate && kid.named);
            let mut ok = match step.test {
                KindTest::Kind(t) => kid.kind == t,
                KindTest::Named => kid.named && !kid.error,
                KindTest::Any => !kid.error,
            };
            if step.last_child && kid.later_named {
                ok = false;
            }
            if step.field != 0 {
                if kid.field == step.field {
                    // tree-sitter looks further only if the parent's production names the
                    // field again (`commaSep1(field(..))` does, `field(.., commaSep1(..))`
                    // does not).
                    later &= kid.field_repeats;
                } else {
                    ok = false;
                }
            }
            if ok && !negated_ok(step, kid.node()) {
                ok = false;
            }
            if !ok {
                if !later {
                    break;
                }
                continue;
            }
            let mark = ctx.caps.len();
            ctx.caps
                .extend(step.captures.iter().map(|&index| QueryCapture {
                    node: kid.node(),
                    index,
                }));
            let saved = ctx.last;
            ctx.last = (kid.node(), depth);
            if step.children.is_empty() {
                seq(rest, kids, i + 1, depth, ctx, k);
            } else {
                let grand = ctx.children(kid.node());
                seq(
                    &step.children,
                    &grand,
                    0,
                    depth + 1,
                    ctx,
                    &mut |ctx: &mut Ctx<'_, 't>| seq(rest, kids, i + 1, depth, ctx, k),
                );
                ctx.pool.push(grand);
            }
            ctx.last = saved;
            ctx.caps.truncate(mark);
            if !(later && step.enumerate) {
                break;
            }
        }
    }
}

/// Keeps the match now in `ctx.caps` if its predicates hold and it is new.
fn record(p: &Pattern, ctx: &mut Ctx<'_, '_>) {
    if !p.predicates.iter().all(|pr| holds(pr, &ctx.caps, ctx.src)) {
        return;
    }
    let same = |f: &Found| {
        f.pattern == p.index as usize
            && ctx.found_caps[f.caps.clone()].len() == ctx.caps.len()
            && ctx.found_caps[f.caps.clone()]
                .iter()
                .zip(&ctx.caps)
                .all(|(a, b)| a.index == b.index && a.node == b.node)
    };
    if ctx.found.iter().any(same) {
        return;
    }
    let (last, depth) = ctx.last;
    let first = ctx.caps.first().map_or(0, |c| c.node.start_byte());
    let start = ctx.found_caps.len();
    ctx.found_caps.extend_from_slice(&ctx.caps);
    ctx.seq += 1;
    ctx.found.push(Found {
        key: (
            last.start_byte(),
            std::cmp::Reverse(last.end_byte()),
            depth,
            p.index,
            first,
            ctx.seq,
        ),
        pattern: p.index as usize,
        caps: start..ctx.found_caps.len(),
    });
}

/// One text predicate, as `QueryMatch::satisfies_text_predicates` evaluates it.
fn holds(p: &Predicate, caps: &[QueryCapture<'_>], src: &[u8]) -> bool {
    let text = |n: Node<'_>| src.get(n.byte_range()).unwrap_or(&[]);
    let nodes = |i: u32| caps.iter().filter(move |c| c.index == i).map(|c| c.node);
    // `test(node)` for each node: a failure decides when all nodes must match, a success
    // decides when any may; otherwise the predicate holds.
    let quantified = |i: u32, all: bool, positive: bool, test: &dyn Fn(&[u8]) -> bool| {
        for n in nodes(i) {
            let m = test(text(n));
            if m != positive && all {
                return false;
            }
            if m == positive && !all {
                return true;
            }
        }
        true
    };
    match p {
        Predicate::EqString {
            capture,
            text: s,
            positive,
            all,
        } => quantified(*capture, *all, *positive, &|t| t == s.as_bytes()),
        Predicate::Match {
            capture,
            regex,
            positive,
            all,
        } => quantified(*capture, *all, *positive, &|t| regex.is_match(t)),
        Predicate::AnyOf {
            capture,
            values,
            positive,
        } => nodes(*capture).all(|n| values.iter().any(|v| text(n) == v.as_bytes()) == *positive),
        Predicate::EqCapture {
            left,
            right,
            positive,
            all,
        } => {
            let mut a = nodes(*left);
            let mut b = nodes(*right);
            loop {
                match (a.next(), b.next()) {
                    (Some(x), Some(y)) => {
                        let m = text(x) == text(y);
                        if m != *positive && *all {
                            return false;
                        }
                        if m == *positive && !*all {
                            return true;
                        }
                    }
                    (None, None) => return true,
                    _ => return false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `children.c` lists, for every node of every fixture and hostile-input file, exactly
    /// the children `TreeCursor` lists, with the same node, kind, named and error flags,
    /// field id and child count.
    #[test]
    fn children_are_what_a_tree_cursor_lists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = super::super::grammar_files(&root.join("tests/fixtures"));
        files.extend(super::super::grammar_files(&root.join("../shared/cases")));
        assert!(files.len() >= 30, "only {} files", files.len());
        let (mut nodes, mut fields, mut repeats) = (0usize, 0usize, 0usize);
        for (path, _, spec) in files {
            let language = spec.grammar.expect("grammar_files lists parsed files")();
            let Ok(text) = std::fs::read(&path) else {
                continue;
            };
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&language).unwrap();
            let tree = parser.parse(&text, None).unwrap();
            let mut ctx = Ctx {
                src: &text,
                pool: Vec::new(),
                caps: Vec::new(),
                last: (tree.root_node(), 0),
                found: Vec::new(),
                found_caps: Vec::new(),
                seq: 0,
            };
            let mut cursor = tree.walk();
            let mut stack = vec![tree.root_node()];
            while let Some(node) = stack.pop() {
                let kids = ctx.children(node);
                let mut want = Vec::new();
                cursor.reset(node);
                if cursor.goto_first_child() {
                    loop {
                        want.push((cursor.node(), cursor.field_id().map_or(0, |f| f.get())));
                        if !cursor.goto_next_sibling() {
                            break;
                        }
                    }
                }
                let at = format!("{} at {:?}", path.display(), node.start_position());
                assert_eq!(kids.len(), want.len(), "{at}");
                assert_eq!(kids.len(), node.child_count() as usize, "{at}");
                for (k, &(n, field)) in kids.iter().zip(&want) {
                    assert_eq!(k.node(), n, "{at}");
                    assert_eq!(
                        (k.kind, k.named, k.error, k.field, k.child_count as usize),
                        (
                            n.kind_id(),
                            n.is_named(),
                            n.is_error(),
                            field,
                            n.child_count() as usize
                        ),
                        "{at}: {}",
                        n.kind()
                    );
                    nodes += 1;
                    fields += usize::from(field != 0);
                    repeats += usize::from(k.field_repeats);
                    assert!(
                        field != 0 || !k.field_repeats,
                        "{at}: repeats without a field"
                    );
                    stack.push(n);
                }
                ctx.pool.push(kids);
            }
        }
        // Both answers of the repeated-field rule occur (whether each is tree-sitter's is
        // checked match by match against the query cursor in `extract`'s tests).
        assert!(
            nodes > 10_000 && fields > 1_000 && repeats >= 20 && fields - repeats > 1_000,
            "{nodes} nodes, {fields} fields, {repeats} repeating"
        );
    }
}
