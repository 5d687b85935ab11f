//! Imports and bindings: the handlers of import statements (one [`Import`] per imported
//! name, or the language's `expand_import` hook), of typed local names (parameters,
//! variables, fields), and the attaching of each binding to its enclosing definition.

use foldhash::HashMap;
use tree_sitter::Node;

use super::defs::enclosing;
use super::nodes::{node_text, split_type_name, squash, Captures};
use crate::index::facts::{Binding, Definition, Import, ALIAS, BOUND};
use crate::index::lang::{CompiledLanguage, Role};

/// A typed name before its scope is known: (byte offset, name, type name, 1-based line).
pub(super) type RawBinding = (usize, String, String, u32);

/// The bindings of one file's matches, one per (name token, name).
#[derive(Default)]
pub(super) struct Bindings {
    /// The bindings in match order.
    pub(super) list: Vec<RawBinding>,
    /// Name token offset → the latest entry of `list` at that offset.
    at: HashMap<usize, usize>,
    /// `same_at[i]`: the entry before `i` at its offset, `usize::MAX` for none (one binding
    /// per (offset, name): a chain, not a key that copies the name).
    same_at: Vec<usize>,
}

impl Bindings {
    /// A local name (role `LocalName`) on `n`, typed by the match's `LocalType` capture
    /// (empty without one); a typed capture of a name token wins over an untyped one.
    pub(super) fn on_local(
        &mut self,
        c: &CompiledLanguage,
        n: Node<'_>,
        m: &Captures<'_, '_>,
        text: &str,
    ) {
        let find = |r: Role| m.find(r);
        if let Some(b) = find(Role::LocalBound) {
            // The bound may be captured on the whole parameter (`T: Read`, `T`), which
            // begins with the name.
            let mut raw = node_text(b, text);
            if b.start_byte() == n.start_byte() {
                raw = &raw[(n.end_byte() - n.start_byte()).min(raw.len())..];
            }
            let bounds = bound_names(c, raw);
            let name = squash(node_text(n, text));
            let type_name = format!("{BOUND}{bounds}");
            self.add(
                n.start_byte(),
                name,
                type_name,
                n.start_position().row as u32 + 1,
            );
            return;
        }
        // Keep a dotted qualifier (`types.Type`, `ns.Foo`): its import decides
        // whether the type is the repo's or a library's. A name captured without
        // a type (a Python parameter or assignment) is bound with an empty type.
        let type_name = match find(Role::LocalType) {
            Some(t) => {
                let mut raw = node_text(t, text).trim();
                // A union with `null`/`undefined`/`None` (`Foo | null`, `Foo | None`) is its
                // one named type; a union of two named types types nothing.
                if raw.contains('|') && !raw.contains(['<', '(', '[', '{']) {
                    let named: Vec<&str> = raw
                        .split('|')
                        .map(str::trim)
                        .filter(|p| !matches!(*p, "null" | "undefined" | "None" | "void"))
                        .collect();
                    match named.as_slice() {
                        [one] => raw = one,
                        _ => return,
                    }
                }
                let (mut type_name, qual) = split_type_name(raw);
                // An array (`Node[] nodes`, `int[][] m`) is no value of its element type:
                // its brackets are kept, so it types no receiver as the element type and
                // tells `f(int[])` from `f(int)`.
                // (Empty brackets only: `list[int]` is a Python generic.)
                if raw.ends_with("[]") && !raw.starts_with(['[', '(', '&', '*']) {
                    type_name.push_str(&"[]".repeat(raw.matches("[]").count()));
                }
                match qualified(c, type_name, qual) {
                    Some(t) => t,
                    None => return,
                }
            }
            // A call's result: the call as written, typed at resolution by what it calls.
            None => match find(Role::LocalValue).map(|v| squash(node_text(v, text))) {
                Some(call) if call.ends_with(')') && call.len() < 200 => call,
                // An alias: the aliased name after the mark.
                _ => match find(Role::LocalAlias) {
                    Some(a) => format!("{ALIAS}{}", node_text(a, text)),
                    None => String::new(),
                },
            },
        };
        let mut name = squash(node_text(n, text));
        // Ruby `@repo`: bound as the field `self.repo` (see `instance_variable_sigil`).
        if let Some(field) = c
            .spec
            .resolution
            .instance_variable_sigil
            .and_then(|sigil| name.strip_prefix(sigil))
        {
            name = format!("self.{field}");
        }
        self.add(
            n.start_byte(),
            name,
            type_name,
            n.start_position().row as u32 + 1,
        );
    }

    /// Binds `name` (its token at byte `at`, on 1-based `line`) to `type_name`; one binding
    /// per name token, where a typed one wins over an untyped one and a trait-bounded one
    /// over any other.
    pub(super) fn add(&mut self, at: usize, name: String, type_name: String, line: u32) {
        let Bindings {
            list: bindings,
            at: binding_at,
            same_at,
        } = self;
        let mut same = binding_at.get(&at).copied();
        while let Some(i) = same.filter(|&i| bindings[i].1 != name) {
            same = (same_at[i] != usize::MAX).then_some(same_at[i]);
        }
        match same {
            Some(i) => {
                // A trait bound says more than the box around it (`Box<dyn Read>`).
                let bounded = type_name.starts_with(BOUND) && !bindings[i].2.starts_with(BOUND);
                if bindings[i].2.is_empty() || bounded {
                    bindings[i].2 = type_name;
                }
            }
            None => {
                same_at.push(binding_at.insert(at, bindings.len()).unwrap_or(usize::MAX));
                bindings.push((at, name, type_name, line));
            }
        }
    }
}

/// A type name and its qualifier as a binding states them: `q.Name` (a path dotted where
/// the language qualifies types by paths, `crate::disk::Conn` → `crate.disk.Conn`), or
/// `None` for no name.
fn qualified(c: &CompiledLanguage, type_name: String, qual: Option<String>) -> Option<String> {
    match qual {
        _ if type_name.is_empty() => None,
        Some(q) if !q.contains("::") => Some(format!("{q}.{type_name}")),
        Some(q) if c.spec.extraction.path_qualified_types => {
            Some(format!("{}.{type_name}", q.replace("::", ".")))
        }
        _ => Some(type_name),
    }
}

/// The bound traits of `raw`, a bounds list as written (`: Read<'de> + ?Sized + 'a`,
/// `Iterator<Item = u8> + Send`, `for<'a> Visitor<'a>`, empty), as type names joined by `+`:
/// `Read+Send`. Lifetimes, `?Sized`-like relaxed bounds and parenthesised `Fn(..)` sugar
/// are no traits whose methods the repo declares, and are left out.
fn bound_names(c: &CompiledLanguage, raw: &str) -> String {
    let raw = raw.trim().trim_start_matches(':');
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, ch) in raw.char_indices() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            '+' if depth == 0 => {
                parts.push(&raw[start..i]);
                start = i + 1;
            }
            // A default (`T: Read = File`) is no bound.
            '=' if depth == 0 => {
                parts.push(&raw[start..i]);
                start = raw.len();
                break;
            }
            _ => {}
        }
    }
    parts.push(raw.get(start..).unwrap_or(""));
    let mut out: Vec<String> = Vec::new();
    for p in parts {
        let mut p = p.trim();
        if let Some(rest) = p.strip_prefix("for<").and_then(|r| r.split_once('>')) {
            p = rest.1.trim();
        }
        if p.is_empty() || p.starts_with(['?', '\'', '(']) || p.contains('(') {
            continue;
        }
        let (name, qual) = split_type_name(p);
        if let Some(t) = qualified(c, name, qual) {
            out.push(t);
        }
    }
    out.join("+")
}

/// An import statement (role `Import`) on `stmt`: one [`Import`] per imported name, keyed
/// by (statement start, name token start), where a later match replaces an entry without
/// an alias; a statement the patterns give no module goes to the language's
/// `expand_import` hook, once.
pub(super) fn on_import(
    imports: &mut Vec<(usize, usize, Import)>,
    c: &CompiledLanguage,
    stmt: Node<'_>,
    m: &Captures<'_, '_>,
    text: &str,
) {
    let find = |r: Role| m.find(r);
    let src = text.as_bytes();
    let line = stmt.start_position().row as u32 + 1;
    let module = find(Role::ImportModule);
    if let Some(module) = module {
        let clean = |n: Node<'_>| {
            node_text(n, text)
                .trim_matches(['"', '\'', '`'])
                .to_string()
        };
        let name = find(Role::ImportName).map(|n| node_text(n, text).to_string());
        let default = find(Role::ImportDefault);
        let glob = find(Role::ImportGlob);
        let alias = find(Role::ImportAlias)
            .or(default)
            .map(|n| node_text(n, text).to_string());
        let name = if glob.is_some() {
            Some("*".to_string())
        } else if default.is_some() {
            Some("default".to_string())
        } else {
            name
        };
        let key_node = find(Role::ImportName)
            .or(default)
            .or(find(Role::ImportAlias))
            .unwrap_or(module);
        let imp = Import {
            module: clean(module),
            name,
            alias,
            line,
        };
        let key = (stmt.start_byte(), key_node.start_byte());
        match imports.iter_mut().find(|(s, k, _)| (*s, *k) == key) {
            Some((_, _, old)) if old.alias.is_none() => *old = imp,
            Some(_) => {}
            None => imports.push((key.0, key.1, imp)),
        }
    } else if let Some(hook) = c.spec.expand_import {
        let key = (stmt.start_byte(), stmt.start_byte());
        if !imports.iter().any(|(s, k, _)| (*s, *k) == key) {
            let mut out = Vec::new();
            hook(stmt, src, line, &mut out);
            for (i, imp) in out.into_iter().enumerate() {
                imports.push((key.0, key.1 + i, imp));
            }
        }
    }
}

/// Gives each binding (sorted by offset) its innermost enclosing definition.
pub(super) fn attach_bindings(defs: &[Definition], raw: Vec<RawBinding>) -> Vec<Binding> {
    let scopes = enclosing(defs, raw.iter().map(|b| b.0 as u32));
    raw.into_iter()
        .zip(scopes)
        .map(|((_, name, type_name, line), scope)| Binding {
            scope,
            name,
            type_name,
            line,
        })
        .collect()
}
