//! Call sites and references: the handlers of call captures (a callee name with its
//! receiver, qualifier and argument count) and of names used as values, the per-file table
//! that lets a later match of the same callee replace a poorer one, and the attaching of
//! each call to its enclosing definition.

use std::ops::Range;

use foldhash::HashMap;
use tree_sitter::Node;

use super::defs::enclosing;
use super::nodes::{char_column, list_items, node_text, squash, Captures};
use crate::index::facts::{CallSite, Definition};
use crate::index::lang::token_tree::{self, TokenTreeCache};
use crate::index::lang::{ExtractionRules, Role};

/// A call site before its caller is known: the callee name's start byte (`at`), 1-based
/// line and char column, and what the captures gave.
pub(super) struct RawCall {
    pub(super) at: usize,
    name: String,
    receiver: Option<String>,
    is_new: bool,
    is_path: bool,
    is_reference: bool,
    args: Option<u32>,
    arg_types: Option<Box<[String]>>,
    line: u32,
    column: u32,
}

/// A file's call sites by the start byte of the callee name (`RawCall::at`), a match that
/// knows more replacing an earlier one. The index maps to positions in `calls`, so growing it
/// moves 16-byte entries, not whole calls (rehashing a map of whole calls costs 4% of a
/// Python-tree index's CPU samples).
#[derive(Default)]
pub(super) struct CallTable {
    at: HashMap<usize, u32>,
    pub(super) calls: Vec<RawCall>,
}

impl CallTable {
    pub(super) fn get(&self, at: &usize) -> Option<&RawCall> {
        self.at.get(at).map(|&i| &self.calls[i as usize])
    }

    pub(super) fn get_mut(&mut self, at: &usize) -> Option<&mut RawCall> {
        self.at.get(at).map(|&i| &mut self.calls[i as usize])
    }

    pub(super) fn clear(&mut self) {
        self.at.clear();
        self.calls.clear();
    }

    /// Adds `call`, or replaces the call at the same `at`.
    pub(super) fn insert(&mut self, call: RawCall) {
        match self.at.entry(call.at) {
            std::collections::hash_map::Entry::Occupied(o) => self.calls[*o.get() as usize] = call,
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(self.calls.len() as u32);
                self.calls.push(call);
            }
        }
    }
}

/// A call match (roles `Call` or `CallNew` with `CallName`), keyed by the callee name
/// token; a match with a receiver wins. `false` when the match is not a call; a call
/// whose name lies in `no_calls` (text that is not code) is dropped.
pub(super) fn on_call(
    calls: &mut CallTable,
    m: &Captures<'_, '_>,
    text: &str,
    no_calls: &Range<usize>,
    ext: &ExtractionRules,
    token_cache: &mut TokenTreeCache,
) -> bool {
    let (token_trees, arg_type) = (ext.token_tree_calls, ext.arg_type);
    let self_constructions = ext.self_constructions;
    let find = |r: Role| m.find(r);
    let src = text.as_bytes();
    let call = find(Role::Call)
        .map(|n| (n, false))
        .or_else(|| find(Role::CallNew).map(|n| (n, true)));
    if let (Some((call, is_new)), Some(name)) = (call, find(Role::CallName)) {
        if no_calls.contains(&name.start_byte()) {
            return true;
        }
        let qualifier = find(Role::CallQualifier);
        let mut is_path = qualifier.is_some();
        let mut receiver = find(Role::CallReceiver)
            .or(qualifier)
            .map(|r| squash(node_text(r, text)));
        // A call inside macro arguments (a Rust token tree): its `.` or `::` before the
        // name, which the pattern cannot see, makes it a method or path call.
        if let Some(t) = token_trees.filter(|t| receiver.is_none() && call.kind() == t.node_kind) {
            if let Some((r, path)) =
                token_tree::call_receiver(name, call, src, t.classify, token_cache)
            {
                receiver = Some(squash(&r));
                is_path = path;
            }
        }
        let key = name.start_byte();
        let arg_list = find(Role::CallArgs);
        let args = arg_list.map(|n| list_items(n).count() as u32);
        let arg_types = match (arg_type, arg_list) {
            (Some(read), Some(list)) if args.is_some_and(|n| n > 0) => {
                Some(list_items(list).map(|a| read(a, text)).collect())
            }
            _ => None,
        };
        let better = calls
            .get(&key)
            .is_none_or(|old| old.is_reference || (old.receiver.is_none() && receiver.is_some()));
        // Another pattern of the same call may be the one that counts arguments.
        if let Some(old) = calls.get_mut(&key).filter(|o| !better && o.args.is_none()) {
            old.args = args;
            old.arg_types = arg_types.clone();
        }
        if better {
            let old = calls.get(&key).filter(|_| args.is_none());
            let arg_types = match old {
                Some(o) => o.arg_types.clone(),
                None => arg_types,
            };
            let args = args.or_else(|| old.and_then(|o| o.args));
            let p = name.start_position();
            calls.insert(RawCall {
                at: key,
                name: if self_constructions.contains(&call.kind()) {
                    "this".to_string()
                } else {
                    node_text(name, text).to_string()
                },
                receiver,
                is_new,
                is_path,
                is_reference: false,
                args,
                arg_types,
                line: p.row as u32 + 1,
                column: char_column(text, key, p.column),
            });
        }
        return true;
    }
    false
}

/// A name used as a value (role `Reference`, a callback): kept apart from calls by the
/// flag, and only where no call has the same name token.
pub(super) fn on_reference(
    calls: &mut CallTable,
    name: Node<'_>,
    m: &Captures<'_, '_>,
    text: &str,
    no_calls: &Range<usize>,
) {
    let find = |r: Role| m.find(r);
    let key = name.start_byte();
    if calls.get(&key).is_none() && !no_calls.contains(&key) {
        let p = name.start_position();
        calls.insert(RawCall {
            at: key,
            name: node_text(name, text).to_string(),
            receiver: find(Role::ReferenceReceiver).map(|r| squash(node_text(r, text))),
            is_new: false,
            is_path: false,
            is_reference: true,
            args: None,
            arg_types: None,
            line: p.row as u32 + 1,
            column: char_column(text, key, p.column),
        });
    }
}

/// Gives each call (sorted by name offset) its innermost enclosing definition.
/// `calls` is left empty (its capacity kept).
pub(super) fn attach_calls(defs: &[Definition], calls: &mut Vec<RawCall>) -> Vec<CallSite> {
    let scopes = enclosing(defs, calls.iter().map(|c| c.at as u32));
    calls
        .drain(..)
        .zip(scopes)
        .map(|(c, caller)| CallSite {
            caller,
            name: c.name,
            receiver: c.receiver,
            is_new: c.is_new,
            is_path: c.is_path,
            is_reference: c.is_reference,
            args: c.args,
            arg_types: c.arg_types,
            line: c.line,
            column: c.column,
        })
        .collect()
}
