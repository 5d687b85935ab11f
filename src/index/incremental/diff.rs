//! The names an edit of one file touches for the other files: those whose facts, as other
//! files' resolution reads them, differ between the file's old and new facts.
//!
//! `affected` re-resolves every file that writes a touched name. Taking
//! every name a changed file offers made an appended function re-resolve every file that
//! calls any function the edited file defines (1 473 of 4 026 files for one edit in the
//! npm tree, 3 609 of 9 273 in the Rust one). Other files' resolution reads a file's
//! facts through tables keyed by name (definitions by name, members by container, types
//! by name) and through the definitions found there (kind, enclosing definitions, bases,
//! return type, signature), never through its calls, line numbers, byte offsets or doc
//! comments (`resolve/` reads those only for the file being resolved). So a name is
//! touched when the list, in source order, of the definitions or typed fields filed
//! under it differs, compared without those positions; then, inside the file, every name
//! whose definition or field leads to a touched name (a base, a return type, a field's
//! type, an enclosing definition, the default export) is touched too, as the file-wide
//! rule touched it. Whatever is read file-wide (imports and re-exports, module path,
//! package, default export, language, namespaces, which the module table is built from)
//! falls back to every name the file offers, old and new.

// foldhash, not std's SipHash: the selection scan hashes every name every file writes.
use foldhash::{HashMap, HashSet};

use crate::index::facts::{Binding, Definition, FileFacts, Kind};
use crate::index::lang;
use crate::index::resolve::tokens;

/// An enclosing definition as a definition's view records it.
type Ancestor<'a> = (&'a str, Kind, &'a str, &'a str, Option<&'a str>);

/// A definition as other files' resolution sees it: everything but its position (lines,
/// byte offsets, index in the file) and its doc comment, with the chain of enclosing
/// definitions (id, kind, name, qualified name, explicit container) instead of the
/// parent's index.
#[derive(Debug, PartialEq, Eq)]
struct DefView<'a> {
    id: &'a str,
    kind: Kind,
    name: &'a str,
    qualified_name: &'a str,
    signature: &'a str,
    arity: Option<u32>,
    container: Option<&'a str>,
    returns: Option<&'a str>,
    self_name: Option<&'a str>,
    /// (name, qualifier, implements) of each base; their sites are the file's own.
    bases: Vec<(&'a str, Option<&'a str>, bool)>,
    ancestors: Vec<Ancestor<'a>>,
}

/// A typed name another file can read (see [`cross_file`]): name, type, and the chain of
/// enclosing definitions of its scope (id, kind).
type BindingView<'a> = (&'a str, &'a str, Vec<(&'a str, Kind)>);

fn ancestors(f: &FileFacts, mut parent: Option<u32>) -> Vec<&Definition> {
    let mut out = Vec::new();
    while let Some(p) = parent.and_then(|p| f.definitions.get(p as usize)) {
        out.push(p);
        parent = p.parent;
    }
    out
}

fn def_view<'a>(f: &'a FileFacts, d: &'a Definition) -> DefView<'a> {
    DefView {
        id: &d.id,
        kind: d.kind,
        name: &d.name,
        qualified_name: &d.qualified_name,
        signature: &d.signature,
        arity: d.arity,
        container: d.container(),
        returns: d.returns(),
        self_name: d.self_name(),
        bases: d
            .bases()
            .iter()
            .map(|b| (b.name.as_str(), b.qualifier.as_deref(), b.implements))
            .collect(),
        ancestors: ancestors(f, d.parent)
            .into_iter()
            .map(|a| (&*a.id, a.kind, &*a.name, &*a.qualified_name, a.container()))
            .collect(),
    }
}

/// The names a definition is filed under in the resolver's tables: its name, its
/// explicit container's words, its enclosing definition's name, its bases' names.
fn def_names<'a>(f: &'a FileFacts, d: &'a Definition) -> Vec<&'a str> {
    let mut v = vec![&*d.name];
    v.extend(d.container().into_iter().flat_map(tokens));
    if let Some(p) = d.parent.and_then(|p| f.definitions.get(p as usize)) {
        v.push(&p.name);
    }
    v.extend(d.bases().iter().map(|b| b.name.as_str()));
    v
}

/// The names a definition's resolution in another file leads on to: its bases (names and
/// qualifiers), return type, explicit container and enclosing definitions.
fn def_leads_to<'a>(f: &'a FileFacts, d: &'a Definition) -> Vec<&'a str> {
    let mut v: Vec<&str> = Vec::new();
    for b in d.bases() {
        v.push(&b.name);
        v.extend(b.qualifier.as_deref().into_iter().flat_map(tokens));
    }
    v.extend(d.returns().into_iter().flat_map(tokens));
    v.extend(d.container().into_iter().flat_map(tokens));
    v.extend(ancestors(f, d.parent).into_iter().map(|a| &*a.name));
    v
}

/// Whether another file can read this binding: `resolve/` types a receiver `x.field` in
/// file G through the bindings of the type's file that are scoped in the type, written
/// `self.field`/`this.field` inside it, or are constructor parameters. Locals and
/// parameters of other functions and methods are read only by their own file.
fn cross_file(f: &FileFacts, b: &Binding) -> bool {
    b.name.contains('.')
        || b.scope
            .and_then(|s| f.definitions.get(s as usize))
            .is_none_or(|d| !d.kind.is_callable() || d.kind == Kind::Constructor)
}

fn binding_view<'a>(f: &'a FileFacts, b: &'a Binding) -> BindingView<'a> {
    let mut chain: Vec<(&str, Kind)> = Vec::new();
    if let Some(s) = b.scope.and_then(|s| f.definitions.get(s as usize)) {
        chain.push((&s.id, s.kind));
        chain.extend(ancestors(f, s.parent).into_iter().map(|a| (&*a.id, a.kind)));
    }
    (&b.name, &b.type_name, chain)
}

fn binding_names(b: &Binding) -> impl Iterator<Item = &str> {
    tokens(&b.name).filter(|t| !SELF_WORDS.contains(t))
}

/// What is read of a file as a whole: everything but definitions, fields, calls and
/// positions. Namespaces and modules are definitions the module table is built from.
fn same_file_wide(old: &FileFacts, new: &FileFacts) -> bool {
    fn imports(f: &FileFacts) -> Vec<(&str, Option<&str>, Option<&str>)> {
        f.imports
            .iter()
            .map(|i| (i.module.as_str(), i.name.as_deref(), i.alias.as_deref()))
            .collect()
    }
    fn namespaces(f: &FileFacts) -> Vec<DefView<'_>> {
        f.definitions
            .iter()
            .filter(|d| matches!(d.kind, Kind::Namespace | Kind::Module))
            .map(|d| def_view(f, d))
            .collect()
    }
    old.path == new.path
        && old.language == new.language
        && old.mode == new.mode
        && old.module_path == new.module_path
        && old.package == new.package
        && old.default_export == new.default_export
        && old.project.is_none()
        && new.project.is_none()
        && imports(old) == imports(new)
        && namespaces(old) == namespaces(new)
}

/// Per name, the views filed under it in source order: definitions then fields.
#[derive(Debug, Default, PartialEq, Eq)]
struct Filed<'a> {
    defs: HashMap<&'a str, Vec<DefView<'a>>>,
    fields: HashMap<&'a str, Vec<BindingView<'a>>>,
}

fn filed(f: &FileFacts) -> Filed<'_> {
    let mut out = Filed::default();
    for d in &f.definitions {
        for n in def_names(f, d) {
            out.defs.entry(n).or_default().push(def_view(f, d));
        }
    }
    for b in f.bindings.iter().filter(|b| cross_file(f, b)) {
        for n in binding_names(b) {
            out.fields.entry(n).or_default().push(binding_view(f, b));
        }
    }
    out
}

/// Adds to `out` the names whose lists differ between `old` and `new`.
fn differing<'a, V: PartialEq>(
    old: &HashMap<&'a str, Vec<V>>,
    new: &HashMap<&'a str, Vec<V>>,
    out: &mut HashSet<&'a str>,
) {
    for (&k, v) in old {
        if new.get(k) != Some(v) {
            out.insert(k);
        }
    }
    for &k in new.keys() {
        if !old.contains_key(k) {
            out.insert(k);
        }
    }
}

/// Receiver words that name no type (never worth offering).
const SELF_WORDS: &[&str] = &["self", "this", "cls", "super", "Self"];

/// The names other files reach a file by: its stem and folder (what module paths and
/// import specifiers end with), the last word of its module path, its package.
/// Deliberately not the whole path or module path: `src` or `github` would touch every
/// file.
fn named_by<'a>(f: &'a FileFacts, out: &mut HashSet<&'a str>) {
    let mut parts = f.path.rsplit('/');
    if let Some(file) = parts.next() {
        let stem = file.split('.').next().unwrap_or(file);
        // A package's `__init__.py`, `mod.rs` or `index.js` is named by its folder (a stem
        // that any language makes its folder's module).
        if !lang::LANGUAGES
            .iter()
            .any(|l| l.folder_module_stems.contains(&stem))
        {
            out.insert(stem);
        }
    }
    if let Some(dir) = parts.next() {
        out.extend(tokens(dir));
    }
    // The last word only: a Go module path is one `github.com/x/y/pkg` element.
    if let Some(m) = f.module_path.last().and_then(|m| tokens(m).last()) {
        out.insert(m);
    }
    if let Some(p) = f.package.as_deref().and_then(|p| tokens(p).last()) {
        out.insert(p);
    }
}

/// Every name a file offers to others: what it defines or re-exports, and the names it is
/// reached by ([`named_by`]).
pub(super) fn offered<'a>(f: &'a FileFacts, out: &mut HashSet<&'a str>) {
    named_by(f, out);
    for d in &f.definitions {
        out.insert(&d.name);
        if let Some(c) = d.container() {
            out.extend(tokens(c));
        }
        for b in d.bases() {
            out.insert(&b.name);
        }
    }
    // Re-exports: a name imported here may be imported from here elsewhere.
    for i in &f.imports {
        for n in [&i.name, &i.alias].into_iter().flatten() {
            out.extend(tokens(n));
        }
    }
    // Fields (`self.x = ..`, a typed field of a class or struct) type receivers in other
    // files, which then write the field's name; locals and parameters stay in the file.
    for b in &f.bindings {
        let in_type = b
            .scope
            .and_then(|i| f.definitions.get(i as usize))
            .is_some_and(|d| {
                matches!(
                    d.kind,
                    Kind::Class
                        | Kind::Struct
                        | Kind::Interface
                        | Kind::Trait
                        | Kind::Impl
                        | Kind::Enum
                )
            });
        if in_type || b.name.contains('.') {
            out.extend(tokens(&b.name).filter(|t| !SELF_WORDS.contains(t)));
        }
    }
    if let Some(e) = &f.default_export {
        out.extend(tokens(e));
    }
}

/// Adds to `out` every name the edit from `old` to `new` (the same path) touches for the
/// other files' resolution (see the module doc).
pub(super) fn edit_touches<'a>(old: &'a FileFacts, new: &'a FileFacts, out: &mut HashSet<&'a str>) {
    if !same_file_wide(old, new) {
        offered(old, out);
        offered(new, out);
        return;
    }
    let mut touched: HashSet<&'a str> = HashSet::default();
    let (fo, fnew) = (filed(old), filed(new));
    differing(&fo.defs, &fnew.defs, &mut touched);
    differing(&fo.fields, &fnew.fields, &mut touched);
    // Inside the file: what leads to a touched name is touched (to a fixed point).
    fn hit<'n>(touched: &HashSet<&str>, mut names: impl Iterator<Item = &'n str>) -> bool {
        names.any(|n| touched.contains(n))
    }
    loop {
        let before = touched.len();
        for f in [old, new] {
            for d in &f.definitions {
                if hit(&touched, def_leads_to(f, d).into_iter()) {
                    touched.extend(def_names(f, d));
                }
            }
            for b in f.bindings.iter().filter(|b| cross_file(f, b)) {
                if hit(&touched, tokens(&b.type_name)) {
                    touched.extend(binding_names(b));
                }
            }
            // `export default X` is imported under another name: X's file is named.
            if f.default_export
                .as_deref()
                .is_some_and(|e| hit(&touched, tokens(e)))
            {
                named_by(f, &mut touched);
            }
        }
        if touched.len() == before {
            break;
        }
    }
    out.extend(touched);
}
