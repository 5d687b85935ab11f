//! Import binding: what an import statement of a file binds (definitions, a module's
//! files, something outside the repo), by the module system of the file's language
//! ([`ImportSystem`]), following re-exports a few files deep.

use super::context::same_ns;
use super::modules::Target;
use super::{Bound, Ctx, DefRef};
use crate::index::facts::{Import, Kind, ALIAS};
use crate::index::lang::ImportSystem;

impl<'a> Ctx<'a> {
    /// Top-level definitions named `name` in `files`, else what those files re-export
    /// under that name (`from .a import f` in an `__init__.py`, `export { f } from './a'`,
    /// `export * from './a'`), followed up to 4 files deep.
    pub(super) fn exported_in(&self, files: &[u32], name: &str, depth: u32) -> Vec<DefRef> {
        let direct = self.top_level_in(files, name);
        if !direct.is_empty() || depth >= 4 {
            return direct;
        }
        let mut out = Vec::new();
        for &fi in files {
            for imp in self.local(fi).bindings.get(name).into_iter().flatten() {
                match self.bind_depth(fi, imp, depth + 1) {
                    Bound::Defs(d) => out.extend(d),
                    // Rust `pub use task::spawn;` where `task::spawn` is also a (private)
                    // module: a name sought as a definition is the module's own item of
                    // that name (tokio: `mod spawn; pub use spawn::spawn;`).
                    Bound::Module(m) if self.rules(fi).imports == ImportSystem::CrateModules => {
                        out.extend(self.exported_in(&m, name, depth + 1));
                    }
                    _ => {}
                }
            }
            // A module-level alias (`ib = attr = attrib`): what the aliased name is.
            if out.is_empty() {
                let aliased: Vec<&str> = self
                    .typed_by(fi, name)
                    .filter(|b| b.scope.is_none() && b.name == name)
                    .filter_map(|b| b.type_name.strip_prefix(ALIAS))
                    .filter(|a| *a != name)
                    .collect();
                for a in aliased {
                    out.extend(self.exported_in(&[fi], a, depth + 1));
                }
            }
            // Globs are followed for Python and JS (`from .a import *`, `export * from`),
            // not for Rust: windows-sys nests `pub use` globs so widely that following them
            // 4 levels deep for every path call did not finish on the Rust tree.
            if out.is_empty() && self.rules(fi).follow_glob_reexports {
                for imp in self.files[fi as usize]
                    .imports
                    .iter()
                    .filter(|i| i.name.as_deref() == Some("*"))
                {
                    let whole = Import {
                        name: None,
                        ..imp.clone()
                    };
                    if let Bound::Module(m) = self.bind_depth(fi, &whole, depth + 1) {
                        out.extend(self.exported_in(&m, name, depth + 1));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// A crate module path (`segs`) whose first segment a `use` of file `fi` binds to a
    /// repo module (`use crate::nfa::thompson::backtrack;`, then `backtrack::Config`):
    /// the files of its longest module prefix and how many of `segs` that consumed;
    /// `None` when the first segment binds no repo module.
    pub(super) fn used_module_path(&self, fi: u32, segs: &[&str]) -> Option<(Vec<u32>, usize)> {
        let first = *segs.first()?;
        for imp in self.local(fi).bindings.get(first)? {
            let Bound::Module(files) = self.bind(fi, imp) else {
                continue;
            };
            let mut full: Vec<&str> = imp.module.split("::").filter(|s| !s.is_empty()).collect();
            full.extend(imp.name.as_deref());
            let base = full.len();
            full.extend(&segs[1..]);
            return match self.modules.crate_module(self.files, fi, &full) {
                Some((Target::Files(v), used)) if used >= base => Some((v, used + 1 - base)),
                _ => Some((files, 1)),
            };
        }
        None
    }

    /// The position of `imp` among file `fi`'s imports when it is one of them (the same
    /// object, not an equal copy).
    fn own_import(&self, fi: u32, imp: &Import) -> Option<usize> {
        let imports = &self.files[fi as usize].imports;
        let at = (imp as *const Import as usize).wrapping_sub(imports.as_ptr() as usize)
            / std::mem::size_of::<Import>().max(1);
        imports
            .get(at)
            .is_some_and(|i| std::ptr::eq(i, imp))
            .then_some(at)
    }

    /// What import `imp` of file `fi` binds (definitions or a module); the answer for one
    /// of the file's own imports is kept
    /// ([`FileMaps::imports_bound`](super::FileMaps::imports_bound)).
    pub(super) fn bind(&self, fi: u32, imp: &Import) -> Bound {
        let Some(at) = self.own_import(fi, imp) else {
            return self.bind_depth(fi, imp, 0);
        };
        let own = &self.files[fi as usize].imports[at];
        let cell = &self.local(fi).imports_bound[at];
        if let Some(b) = cell.get() {
            return b.clone();
        }
        // Not `get_or_init`: a binding's resolution never asks for itself (re-exports go
        // through `bind_depth` at depth 1 and more), but a `set` cannot deadlock if it did.
        let b = self.bind_depth(fi, own, 0);
        let _ = cell.set(b.clone());
        b
    }

    /// The files a Python or JS import of file `fi` names (its module specifier resolved).
    /// It depends on the specifier alone, so it is kept
    /// ([`FileMaps::import_targets`](super::FileMaps::import_targets)) for the file's first
    /// import of that specifier, which also serves a copy of an import (the whole-module
    /// `Import` that glob re-exports and import edges make).
    fn import_target(&self, fi: u32, imp: &Import) -> Target {
        let f = &self.files[fi as usize];
        let compute = || match self.rules(fi).imports {
            ImportSystem::DottedModules => self.modules.dotted_module(self.files, fi, &imp.module),
            _ => self
                .modules
                .file_specifier(self.files, &f.path, &imp.module),
        };
        let at = self
            .own_import(fi, imp)
            .or_else(|| f.imports.iter().position(|i| i.module == imp.module));
        match at {
            Some(at) => self.local(fi).import_targets[at]
                .get_or_init(compute)
                .clone(),
            None => compute(),
        }
    }

    fn bind_depth(&self, fi: u32, imp: &Import, depth: u32) -> Bound {
        let f = &self.files[fi as usize];
        match self.rules(fi).imports {
            ImportSystem::DottedModules => match self.import_target(fi, imp) {
                Target::External => Bound::External,
                Target::Files(v) if v.is_empty() => Bound::NotFound,
                Target::Files(v) => match imp.name.as_deref() {
                    None => Bound::Module(v),
                    Some(n) => {
                        let defs = self.exported_in(&v, n, depth);
                        if !defs.is_empty() {
                            return Bound::Defs(defs);
                        }
                        let sub = if imp.module.ends_with('.') {
                            format!("{}{n}", imp.module)
                        } else {
                            format!("{}.{n}", imp.module)
                        };
                        match self.modules.dotted_module(self.files, fi, &sub) {
                            Target::Files(s) if !s.is_empty() => Bound::Module(s),
                            _ => Bound::NotFound,
                        }
                    }
                },
            },
            ImportSystem::FileSpecifiers => match self.import_target(fi, imp) {
                Target::External => Bound::External,
                Target::Files(v) if v.is_empty() => Bound::NotFound,
                Target::Files(v) => match imp.name.as_deref() {
                    None => Bound::Module(v),
                    // The module's default export (`export default f`, CommonJS
                    // `module.exports = f`); without one, the module object itself.
                    Some("default") => {
                        let exported: Option<&str> = v
                            .iter()
                            .find_map(|&t| self.files[t as usize].default_export.as_deref());
                        let defs = exported
                            .map(|e| self.exported_in(&v, e, depth))
                            .unwrap_or_default();
                        if defs.is_empty() {
                            Bound::Module(v)
                        } else {
                            Bound::Defs(defs)
                        }
                    }
                    Some(n) => {
                        let defs = self.exported_in(&v, n, depth);
                        if !defs.is_empty() {
                            return Bound::Defs(defs);
                        }
                        // `export * as n from './x'`: the name is a re-exported module.
                        for &t in &v {
                            for imp2 in self.local(t).bindings.get(n).into_iter().flatten() {
                                if depth < 4 {
                                    if let Bound::Module(m) = self.bind_depth(t, imp2, depth + 1) {
                                        return Bound::Module(m);
                                    }
                                }
                            }
                        }
                        Bound::NotFound
                    }
                },
            },
            // A file a PHP `require` names (the hook writes it with a `/`, which no
            // package name has): the file, as an `#include` finds it.
            ImportSystem::ClassPackages if imp.module.contains('/') => {
                match self.modules.include(&f.path, &imp.module) {
                    Target::Files(v) if !v.is_empty() => Bound::Module(v),
                    _ => Bound::External,
                }
            }
            ImportSystem::ClassPackages => {
                let n = imp.name.as_deref();
                let pkg = self.modules.class_package(&imp.module);
                match n {
                    None | Some("*") if !pkg.is_empty() => Bound::Module(pkg.to_vec()),
                    Some(n) if !pkg.is_empty() => {
                        let defs = self.top_level_in(pkg, n);
                        if defs.is_empty() {
                            Bound::NotFound
                        } else {
                            Bound::Defs(defs)
                        }
                    }
                    _ => {
                        // `import static pkg.Class.member` or a nested class.
                        let Some((package, class)) = imp.module.rsplit_once('.') else {
                            return Bound::External;
                        };
                        let files = self.modules.class_package(package);
                        if files.is_empty() {
                            return Bound::External;
                        }
                        let m: Vec<DefRef> = match n {
                            Some(n) if n != "*" => self
                                .member(files[0], class, n)
                                .into_iter()
                                .filter(|r| files.contains(&r.0))
                                .collect(),
                            _ => Vec::new(),
                        };
                        if m.is_empty() {
                            Bound::NotFound
                        } else {
                            Bound::Defs(m)
                        }
                    }
                }
            }
            // `#include "x.h"`, else a C++ `using namespace ns;` (the namespace's files)
            // or `using ns::f;` (the namespace's `f`).
            ImportSystem::Includes => match self.modules.include(&f.path, &imp.module) {
                // Lua `local m = require "a.b"`: the table the file returns
                // (`default_export`), else the file.
                Target::Files(v) if !v.is_empty() && imp.name.as_deref() == Some("default") => {
                    let exported = v
                        .iter()
                        .find_map(|&t| self.files[t as usize].default_export.as_deref());
                    match exported.map(|e| self.top_level_in(&v, e)) {
                        Some(d) if !d.is_empty() => Bound::Defs(d),
                        _ => Bound::Module(v),
                    }
                }
                Target::Files(v) if !v.is_empty() => Bound::Module(v),
                _ => {
                    let files = self.modules.using_namespace(&imp.module);
                    match imp.name.as_deref() {
                        _ if files.is_empty() => Bound::External,
                        None | Some("*") => Bound::Module(files.to_vec()),
                        Some(n) => {
                            let defs: Vec<DefRef> = self
                                .top_level_in(files, n)
                                .into_iter()
                                .filter(|&r| same_ns(self.namespace_of(r), &imp.module))
                                .collect();
                            if defs.is_empty() {
                                Bound::NotFound
                            } else {
                                Bound::Defs(defs)
                            }
                        }
                    }
                }
            },
            ImportSystem::Namespaces => match self.modules.namespace_files(&imp.module) {
                v if !v.is_empty() => Bound::Module(v.to_vec()),
                _ => Bound::External,
            },
            ImportSystem::ImportPaths => match self.modules.import_path(&imp.module) {
                Target::Files(v) if !v.is_empty() => Bound::Module(v),
                _ => Bound::External,
            },
            ImportSystem::CrateModules => {
                let mut segs: Vec<&str> =
                    imp.module.split("::").filter(|s| !s.is_empty()).collect();
                if let Some(n) = imp.name.as_deref() {
                    segs.push(n);
                }
                match self.modules.crate_module(self.files, fi, &segs) {
                    None => Bound::External,
                    Some((Target::Files(v), used)) if used == segs.len() => Bound::Module(v),
                    Some((Target::Files(v), used)) if used + 1 == segs.len() => {
                        let n = segs[used];
                        let mut defs: Vec<DefRef> = v
                            .iter()
                            .flat_map(|&fi| self.free_in_file(fi, n))
                            .filter(|&r| {
                                self.def(r).parent.is_none() || self.def(r).kind == Kind::Module
                            })
                            .collect();
                        if defs.is_empty() {
                            // A name the module re-exports (`pub use other::launch;`).
                            defs = self.exported_in(&v, n, depth + 1);
                        }
                        if defs.is_empty() {
                            Bound::NotFound
                        } else {
                            Bound::Defs(defs)
                        }
                    }
                    Some(_) => Bound::NotFound,
                }
            }
            // Elixir `alias Shop.Cart`: the module declared so, else a library's.
            ImportSystem::DeclaredModules => match self.modules_named(fi, &imp.module) {
                d if d.is_empty() => Bound::External,
                d => Bound::Defs(d),
            },
            ImportSystem::None => Bound::NotFound,
        }
    }

    /// The modules (and other types) whose qualified name is exactly `path`, in file
    /// `fi`'s family ([`ImportSystem::DeclaredModules`]).
    fn modules_named(&self, fi: u32, path: &str) -> Vec<DefRef> {
        let last = path.rsplit('.').next().unwrap_or(path);
        self.types
            .refs(&(self.fam(fi), last))
            .filter(|&r| {
                let d = self.def(r);
                d.kind != Kind::Impl && *d.qualified_name == *path
            })
            .collect()
    }

    /// The modules a module path written in definition `caller` of file `fi` names, with
    /// declared modules ([`ImportSystem::DeclaredModules`], Elixir): through the file's
    /// `alias` of its first segment (`C.total()` after `alias Shop.Cart, as: C`), else the
    /// module of that name nested in the caller's modules, innermost first (`Inner` in
    /// `Shop.Cart` is `Shop.Cart.Inner`), else the one of exactly that name. Empty: no
    /// module of the repository.
    pub(super) fn declared_module(&self, fi: u32, caller: Option<u32>, path: &str) -> Vec<DefRef> {
        let (first, rest) = path
            .split_once('.')
            .map_or((path, None), |(a, b)| (a, Some(b)));
        if let Some(imp) = self.local(fi).bindings.get(first).and_then(|v| v.first()) {
            let full = match rest {
                Some(r) => format!("{}.{r}", imp.module),
                None => imp.module.clone(),
            };
            return self.modules_named(fi, &full);
        }
        let f = &self.files[fi as usize];
        let mut scope = caller;
        while let Some(s) = scope {
            let d = &f.definitions[s as usize];
            if d.kind == Kind::Module {
                let m = self.modules_named(fi, &format!("{}.{path}", d.qualified_name));
                if !m.is_empty() {
                    return m;
                }
            }
            scope = d.parent;
        }
        self.modules_named(fi, path)
    }
}
