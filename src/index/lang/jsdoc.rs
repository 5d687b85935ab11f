//! JSDoc: the types a JavaScript doc comment states (`@type`, `@param`, `@returns`) and the
//! type imports it makes (`@import`, `@typedef {import("./x").Y} Z`). The TypeScript
//! compiler reads these in `.js` files as it reads annotations in `.ts` files
//! (TypeScript handbook, "JSDoc Reference"), so a receiver typed only by JSDoc is as
//! typed as an annotated one. Kept to the forms whose meaning is a single named type: a
//! union with `null`/`undefined`, generics, arrays, functions and object shapes give no
//! receiver type.

use super::spec::DocTags;
use crate::index::facts::Import;

/// The tags of one doc comment (`text` is the comment, `/** ... */` included or not),
/// its import lines on 1-based `line`.
pub(super) fn parse(text: &str, line: u32) -> DocTags {
    let mut out = DocTags::default();
    let mut templates: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('@') {
        rest = &rest[i + 1..];
        let tag_end = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        let tag = &rest[..tag_end];
        let after = &rest[tag_end..];
        match tag {
            "type" | "param" | "arg" | "argument" | "returns" | "return" | "typedef" => {
                let Some((ty, tail)) = braced(after) else {
                    continue;
                };
                match tag {
                    "type" => out.type_name = out.type_name.take().or(simple_type(ty)),
                    "returns" | "return" => {
                        out.returns = out.returns.take().or(simple_type(ty));
                    }
                    "typedef" => {
                        // `@typedef {import("./x").Y} Z`: `Z` names the module's `Y`.
                        if let (Some((module, name)), Some(alias)) =
                            (import_type(ty), first_word(tail))
                        {
                            out.imports.push(Import {
                                module,
                                name: Some(name),
                                alias: (alias != name_of(ty)).then(|| alias.to_string()),
                                line,
                            });
                        }
                    }
                    _ => {
                        let tail = tail.trim_start().trim_start_matches('[');
                        // `@param {T} opts.x` types a property, not the parameter.
                        let name = first_word(tail)
                            .filter(|w| !tail.trim_start()[w.len()..].starts_with('.'));
                        if let (Some(t), Some(n)) = (simple_type(ty), name) {
                            out.params.push((n.to_string(), t));
                        }
                    }
                }
            }
            "template" => {
                // `@template T`, `@template {Base} T, U`.
                let tail = braced(after).map_or(after, |(_, t)| t);
                let names = tail.lines().next().unwrap_or("");
                templates.extend(
                    names
                        .split(',')
                        .filter_map(|n| first_word(n.trim_start()))
                        .filter(|n| !n.is_empty()),
                );
            }
            "import" => import_line(after, line, &mut out.imports),
            _ => {}
        }
    }
    // A template parameter is no type of the repo's, whatever its name.
    let is_template = |t: &str| templates.contains(&t);
    out.params.retain(|(_, t)| !is_template(t));
    if out.type_name.as_deref().is_some_and(is_template) {
        out.type_name = None;
    }
    if out.returns.as_deref().is_some_and(is_template) {
        out.returns = None;
    }
    // `import("./x").Y` in a `@type`/`@param`: the type `Y` of module `./x`.
    for t in out
        .params
        .iter_mut()
        .map(|(_, t)| t)
        .chain(out.type_name.as_mut())
        .chain(out.returns.as_mut())
    {
        if let Some((module, name)) = import_type(t) {
            out.imports.push(Import {
                module,
                name: Some(name.clone()),
                alias: None,
                line,
            });
            *t = name;
        }
    }
    out
}

/// The text inside the `{...}` that `s` starts with (after blanks), braces balanced, and
/// what follows it.
fn braced(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start_matches([' ', '\t']);
    let body = s.strip_prefix('{')?;
    let mut depth = 1u32;
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((&body[..i], &body[i + 1..]));
                }
            }
            '\n' if depth > 8 => return None,
            _ => {}
        }
    }
    None
}

/// The identifier `s` starts with (after blanks), `None` when it starts with none.
fn first_word(s: &str) -> Option<&str> {
    let s = s.trim_start_matches([' ', '\t']);
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(s.len());
    let w = &s[..end];
    (!w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit())).then_some(w)
}

/// The named type a JSDoc type expression denotes: `Foo`, `ns.Foo`, `Foo<T>` (→ `Foo`),
/// `?Foo`, `Foo=`, `Foo | null`, `(Foo)`, `import("./x").Foo` (kept whole, see
/// [`import_type`]); `None` for anything else (unions of types, arrays, functions, object
/// shapes, literals).
fn simple_type(ty: &str) -> Option<String> {
    let mut t = ty.trim();
    t = t
        .trim_start_matches(['?', '!'])
        .trim_end_matches('=')
        .trim();
    while let Some(inner) = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        t = inner.trim();
    }
    let parts = split_top(t, '|');
    let named: Vec<&str> = parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !matches!(*p, "null" | "undefined" | "void"))
        .collect();
    let [one] = named.as_slice() else {
        return None;
    };
    let one = one.trim_start_matches(['?', '!']).trim();
    if import_type(one).is_some() {
        return Some(one.to_string());
    }
    // Generic arguments are dropped: `Map<K, V>` is a `Map`.
    let head = match one.find('<') {
        Some(i) if one.ends_with('>') => &one[..i],
        Some(_) => return None,
        None => one,
    };
    let ok = !head.is_empty()
        && head.split('.').all(|s| {
            s.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
                && s.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        });
    ok.then(|| head.to_string())
}

/// `s` split at top-level `sep` (outside brackets, parentheses, braces and quotes).
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut quote) = (0i32, 0, None);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '<' | '(' | '[' | '{') => depth += 1,
            (None, '>' | ')' | ']' | '}') => depth -= 1,
            (None, _) if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// `import("./x").Y` → (`./x`, `Y`); `None` for any other text.
fn import_type(t: &str) -> Option<(String, String)> {
    let rest = t.trim().strip_prefix("import(")?;
    let q = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let rest = &rest[1..];
    let end = rest.find(q)?;
    let module = &rest[..end];
    let name = rest[end + 1..]
        .trim_start()
        .strip_prefix(')')?
        .strip_prefix('.')?;
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    (ok && !module.is_empty()).then(|| (module.to_string(), name.to_string()))
}

/// The last segment of a type name (`import("./x").Y` → `Y`).
fn name_of(t: &str) -> &str {
    t.rsplit('.').next().unwrap_or(t)
}

/// One `@import ... from "m"` tag (its text after `@import`): `{ A, B as C }`,
/// `* as N`, or a default `D`.
fn import_line(after: &str, line: u32, out: &mut Vec<Import>) {
    // The tag ends at the comment's end or the next tag.
    let end = after.find(['@']).unwrap_or(after.len());
    let s = after[..end].trim_end().trim_end_matches("*/");
    let Some(from) = s.rfind("from") else {
        return;
    };
    let (clause, spec) = (s[..from].trim(), s[from + 4..].trim());
    let q = match spec.chars().next() {
        Some(c @ ('"' | '\'')) => c,
        _ => return,
    };
    let Some(module) = spec[1..].split(q).next().filter(|m| !m.is_empty()) else {
        return;
    };
    let clean = |t: &str| t.trim().trim_start_matches('*').trim().to_string();
    if let Some(list) = clause.strip_prefix('{').and_then(|c| c.strip_suffix('}')) {
        for item in list.split(',') {
            let item = clean(item);
            let (name, alias) = match item.split_once(" as ") {
                Some((n, a)) => (n.trim().to_string(), Some(a.trim().to_string())),
                None => (item, None),
            };
            if first_word(&name).is_some_and(|w| w == name) {
                out.push(Import {
                    module: module.to_string(),
                    name: Some(name),
                    alias,
                    line,
                });
            }
        }
    } else if let Some(ns) = clause.strip_prefix('*') {
        if let Some(alias) = ns.trim().strip_prefix("as").and_then(first_word) {
            out.push(Import {
                module: module.to_string(),
                name: None,
                alias: Some(alias.to_string()),
                line,
            });
        }
    } else if let Some(d) = first_word(clause).filter(|d| *d == clause) {
        out.push(Import {
            module: module.to_string(),
            name: Some("default".to_string()),
            alias: Some(d.to_string()),
            line,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_returns_and_type() {
        let t = parse(
            "/**\n * @param {Parser} parser\n * @param {null | Scope} [scope]\n * @param {string[]} names\n * @returns {Token}\n */",
            1,
        );
        assert_eq!(
            t.params,
            vec![
                ("parser".to_string(), "Parser".to_string()),
                ("scope".to_string(), "Scope".to_string())
            ]
        );
        assert_eq!(t.returns.as_deref(), Some("Token"));
        assert_eq!(
            parse("/** @type {Map<K, V>} */", 1).type_name.as_deref(),
            Some("Map")
        );
        assert_eq!(parse("/** @type {A | B} */", 1).type_name, None);
        assert_eq!(
            parse("/** @type {AST.Node} */", 1).type_name.as_deref(),
            Some("AST.Node")
        );
    }

    #[test]
    fn templates_are_not_types() {
        let t = parse("/** @template T\n @param {T} x\n @returns {T} */", 1);
        assert!(t.params.is_empty() && t.returns.is_none());
    }

    #[test]
    fn imports() {
        let t = parse("/** @import { A, B as C } from './x.js' */", 3);
        let got: Vec<_> = t
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.name.as_deref(),
                    i.alias.as_deref(),
                    i.line,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("./x.js", Some("A"), None, 3),
                ("./x.js", Some("B"), Some("C"), 3)
            ]
        );
        let t = parse("/** @typedef {import('./y').Y} Z */", 1);
        assert_eq!(t.imports[0].name.as_deref(), Some("Y"));
        assert_eq!(t.imports[0].alias.as_deref(), Some("Z"));
        let t = parse("/** @param {import(\"./y\").Y} y */", 1);
        assert_eq!(t.params, vec![("y".to_string(), "Y".to_string())]);
        assert_eq!(t.imports[0].module, "./y");
    }
}
