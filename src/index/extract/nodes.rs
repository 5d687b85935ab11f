//! What a captured node says: a match's captures by role, a node's text and 1-based char
//! column, and the normalizing of names, types and parameter lists that every capture
//! handler shares. The lowest module of extraction: it uses none of its siblings.

use tree_sitter::{Node, QueryCapture};

use crate::index::lang::Role;

/// One match of `tags.scm`: its captures in pattern order, read by role.
pub(super) struct Captures<'a, 't> {
    /// The match's captures, in pattern order.
    pub(super) caps: &'a [QueryCapture<'t>],
    /// Capture index → role (`CompiledLanguage::roles`).
    roles: &'a [Role],
}

impl<'a, 't> Captures<'a, 't> {
    pub(super) fn new(caps: &'a [QueryCapture<'t>], roles: &'a [Role]) -> Self {
        Captures { caps, roles }
    }

    /// The role of capture index `i`.
    pub(super) fn role_of(&self, i: u32) -> Role {
        self.roles[i as usize]
    }

    /// The node of the first capture with role `r`.
    pub(super) fn find(&self, r: Role) -> Option<Node<'t>> {
        self.caps
            .iter()
            .find(|cap| self.role_of(cap.index) == r)
            .map(|cap| cap.node)
    }
}

/// 1-based char column of byte `byte` given the tree-sitter point's byte column.
pub(super) fn char_column(text: &str, byte: usize, byte_col: usize) -> u32 {
    let start = byte.saturating_sub(byte_col);
    text.get(start..byte)
        .map_or(byte_col, |s| s.chars().count()) as u32
        + 1
}

/// The source text of `n`; empty when its byte range does not fall on char boundaries.
pub(super) fn node_text<'a>(n: Node<'_>, text: &'a str) -> &'a str {
    text.get(n.byte_range()).unwrap_or("")
}

/// Cuts `s` to at most `max` chars.
pub(super) fn cap_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// `pkg.Base[T]`, `crate::a::Foo<T>`, `&'a mut Foo`, `*const Foo` → (`Foo`-like last
/// segment, qualifier). References, pointers, lifetimes, `mut`, `dyn` and `const` in front
/// are dropped; a slice, array or tuple type (`&'a [T]`) keeps its whole text (`[T]`).
pub(super) fn split_type_name(raw: &str) -> (String, Option<String>) {
    // Most names are a plain identifier, which the rules below leave as it is.
    if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return (raw.to_string(), None);
    }
    let mut s = raw.trim();
    loop {
        let before = s;
        s = s.trim_start_matches(['&', '*']).trim_start();
        if let Some(rest) = s.strip_prefix('\'') {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            s = rest[end..].trim_start();
        }
        for kw in ["mut ", "dyn ", "const "] {
            if let Some(rest) = s.strip_prefix(kw) {
                s = rest.trim_start();
            }
        }
        if s == before {
            break;
        }
    }
    if s.starts_with(['[', '(']) {
        return (s.to_string(), None);
    }
    let cut = s.find(['<', '[', '(']).map_or(s, |i| &s[..i]).trim();
    let (qual, name) = match cut.rfind("::") {
        Some(i) => (Some(&cut[..i]), &cut[i + 2..]),
        None => match cut.rfind('.') {
            Some(i) => (Some(&cut[..i]), &cut[i + 1..]),
            None => (None, cut),
        },
    };
    let qual = qual.filter(|q| !q.is_empty()).map(str::to_string);
    (name.trim().to_string(), qual)
}

/// Collapses whitespace runs to one space and caps at 200 chars.
pub(super) fn squash(s: &str) -> String {
    // Most texts (a receiver `self.items`, a name) are short and have no whitespace to
    // collapse: copied as they are, without splitting and joining.
    let b = s.as_bytes();
    if b.len() <= 200
        && b.first() != Some(&b' ')
        && b.last() != Some(&b' ')
        && !b.windows(2).any(|w| w == b"  ")
        // `split_whitespace`'s whitespace (Unicode White_Space), which unlike
        // `is_ascii_whitespace` includes the vertical tab.
        && b.iter()
            .all(|&c| c.is_ascii() && (c == b' ' || !char::from(c).is_whitespace()))
    {
        return s.to_string();
    }
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    cap_chars(&joined, 200)
}

/// The items of a parameter or argument list: its named children that are not comments
/// or attributes.
pub(super) fn list_items(list: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    let mut cursor = list.walk();
    let items: Vec<Node<'_>> = list
        .named_children(&mut cursor)
        .filter(|n| {
            // `comment`, and Java's `line_comment` and `block_comment`
            !n.kind().ends_with("comment")
                && !matches!(n.kind(), "attribute_list" | "attribute_declaration")
        })
        .collect();
    items.into_iter()
}

/// The exact parameter count of a parameter list; `None` when a parameter has a default
/// (`int n = 0`) or the list is variadic (`...`, C# `params`).
pub(super) fn exact_arity(list: Node<'_>, text: &str) -> Option<u32> {
    let mut n = 0;
    for p in list_items(list) {
        let t = node_text(p, text);
        if t == "void" {
            continue;
        }
        if t.contains('=') || t.contains("...") || t.starts_with("params ") {
            return None;
        }
        n += 1;
    }
    if node_text(list, text).contains("...") {
        return None;
    }
    Some(n)
}
