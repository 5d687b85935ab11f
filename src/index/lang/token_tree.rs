//! Calls written inside a macro's arguments, which a grammar leaves as a flat token tree
//! (Rust `println!("{}", v.iter().count())`): the receiver or path before a call's name
//! is read back over the tree's tokens, classed by the language's
//! [`TokenTreeCalls::classify`](super::TokenTreeCalls). Its own module: the reading is the
//! same for every language whose spec asks for it; only the classes of node kinds differ.

use tree_sitter::Node;

/// What `call_receiver` tells apart among a token tree's children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenClass {
    /// A member access: `.`
    Dot,
    /// A path separator: `::`
    Path,
    /// An identifier.
    Identifier,
    /// A keyword that is an operand of a path or receiver (`self`, `super`, `crate`).
    Keyword,
    /// A nested token tree: `(..)`, `[..]` or `{..}`.
    Group,
    /// Anything else.
    Other,
}

impl TokenClass {
    /// A part of a receiver expression between separators.
    fn operand(self) -> bool {
        matches!(
            self,
            TokenClass::Identifier | TokenClass::Keyword | TokenClass::Group
        )
    }
}

/// The tokens of one token tree as (class, start byte), listed once for all the calls
/// written in it: [`call_receiver`] reads back from a call's name over them.
/// (`Node::prev_sibling` finds the parent by searching down from the root, then scans the
/// parent's children: several of them per call cost 2% of a Rust-tree index.)
#[derive(Default)]
pub(crate) struct TokenTreeCache {
    /// `Node::id` of the token tree listed, 0 for none.
    tree: usize,
    tokens: Vec<(TokenClass, usize)>,
}

/// The receiver or path of a call written inside macro arguments, which tree-sitter leaves
/// as a token tree: `name` is the callee identifier of `(token_tree (identifier) @call.name
/// . (token_tree))` and `tree` that token tree (its parent); `classify` gives the class of
/// a child by node kind. After a `.` the call is a method of the expression before it
/// (`v.iter().count()` → `v.iter()`, `false`); after `::` a path call (`wire::encode(1)` →
/// `wire`, `true`). The expression is read back over identifiers, keywords and argument
/// groups joined by `.` and `::`. `None` for a bare call (no `.` or `::` right before it)
/// or when no expression precedes the separator. Without this, `x.len()` inside `println!`
/// was a bare call of `len` and resolved to a free function of that name. `cache` keeps
/// `tree`'s tokens for the next call in the same tree.
pub(crate) fn call_receiver(
    name: Node<'_>,
    tree: Node<'_>,
    src: &[u8],
    classify: fn(&str) -> TokenClass,
    cache: &mut TokenTreeCache,
) -> Option<(String, bool)> {
    if cache.tree != tree.id() {
        cache.tree = tree.id();
        cache.tokens.clear();
        let mut c = tree.walk();
        if c.goto_first_child() {
            loop {
                let n = c.node();
                cache.tokens.push((classify(n.kind()), n.start_byte()));
                if !c.goto_next_sibling() {
                    break;
                }
            }
        }
    }
    let toks = &cache.tokens;
    // Children start at distinct bytes, except empty (missing) ones.
    let at = toks
        .partition_point(|t| t.1 <= name.start_byte())
        .checked_sub(1)?;
    if toks[at] != (TokenClass::Identifier, name.start_byte()) {
        return None;
    }
    let sep = at.checked_sub(1)?;
    let is_path = match toks[sep].0 {
        TokenClass::Dot => false,
        TokenClass::Path => true,
        _ => return None,
    };
    let mut start = sep.checked_sub(1).filter(|&i| toks[i].0.operand())?;
    while let Some(p) = start.checked_sub(1) {
        if toks[start].0 == TokenClass::Group && toks[p].0 == TokenClass::Identifier {
            // The arguments of a call in the chain: `iter()`.
            start = p;
        } else if let Some(before) = matches!(toks[p].0, TokenClass::Dot | TokenClass::Path)
            .then(|| p.checked_sub(1))
            .flatten()
            .filter(|&i| toks[i].0.operand())
        {
            start = before;
        } else {
            break;
        }
    }
    let receiver = std::str::from_utf8(src.get(toks[start].1..toks[sep].1)?).ok()?;
    Some((receiver.to_string(), is_path))
}
