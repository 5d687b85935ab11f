//! Type names written in definition headers and declarations (bases, `impl` types,
//! qualified types): which repo type a name denotes from a file, kept per file and name.

use super::context::{dir_of, top_package_binding};
use super::modules::Target;
use super::tables::is_typeish;
use super::{unique_name_allowed, Bound, Ctx, DefRef};
use crate::index::facts::{Import, Kind};
use crate::index::graph::Tier;
use crate::index::lang::ImportSystem;

impl<'a> Ctx<'a> {
    /// A type written with a qualifier (`io.Writer`, `types.Type`, `ns.Foo`): the
    /// qualifier's import decides. Bound to a module outside the repo: `None` (the type is
    /// external, never a same-named repo type); bound to repo files: the type among them;
    /// not bound: the plain name (Rust paths, nested names).
    pub(super) fn resolve_base_ref(
        &self,
        fi: u32,
        name: &str,
        qualifier: Option<&str>,
    ) -> Option<(DefRef, Tier)> {
        let Some(q) = qualifier else {
            return self.resolve_base(fi, name);
        };
        let first = q.split(['.', ':']).next().unwrap_or(q);
        // C++ `class C : public geo::Shape`, C# `: Acme.Models.Base`: the namespace decides.
        let rules = self.rules(fi);
        if rules.qualified_type_names {
            if let [t] = self.qualified_type(fi, q, name).as_slice() {
                return Some((*t, Tier::Qualified));
            }
        }
        let Some(imps) = self.local(fi).bindings.get(first) else {
            // `Outer.Inner` with `Outer` a type in scope without an import (same package).
            if q == first {
                if let Some((outer, tier)) = self.resolve_base(fi, q) {
                    return match self.nested_types(outer, name).as_slice() {
                        [t] => Some((*t, tier)),
                        _ => None,
                    };
                }
            }
            return self.resolve_base(fi, name);
        };
        for imp in imps {
            // `import a.b` bound `a`: the qualifier is a module path from the package `a`;
            // so is `a.b` after a plain `import a` (`requests.cookies.RequestsCookieJar`).
            let dotted = top_package_binding(rules, imp).is_some()
                || (rules.imports == ImportSystem::DottedModules
                    && imp.name.is_none()
                    && imp.alias.is_none()
                    && q.contains('.'));
            let bound = match dotted {
                true => match self.modules.dotted_module(self.files, fi, q) {
                    Target::Files(v) if !v.is_empty() => Bound::Module(v),
                    _ => self.bind(fi, imp),
                },
                false => self.bind(fi, imp),
            };
            match bound {
                Bound::External => return None,
                Bound::Module(files) => {
                    let mut v: Vec<DefRef> = self
                        .types
                        .refs(&(self.fam(fi), name))
                        .filter(|r| files.contains(&r.0) && self.def(*r).kind != Kind::Impl)
                        .collect();
                    if v.is_empty() {
                        // A type the module re-exports (`click.Option`: `from .core import
                        // Option` in click's `__init__.py`).
                        v = self
                            .exported_in(&files, name, 0)
                            .into_iter()
                            .filter(|&r| is_typeish(self.def(r).kind))
                            .collect();
                    }
                    return (v.len() == 1).then(|| (v[0], Tier::Import));
                }
                // `Outer.Inner` with `Outer` an imported type (Java `import a.Connection;`
                // then `Connection.Request`): the type nested in it, never a same-named
                // type of this file.
                Bound::Defs(defs) if q == first => {
                    let nested: Vec<DefRef> = defs
                        .iter()
                        .filter(|&&d| is_typeish(self.def(d).kind))
                        .flat_map(|&d| self.nested_types(d, name))
                        .collect();
                    if defs.iter().any(|&d| is_typeish(self.def(d).kind)) {
                        return (nested.len() == 1).then(|| (nested[0], Tier::Import));
                    }
                }
                _ => {}
            }
        }
        self.resolve_base(fi, name)
    }

    /// The types named `name` declared directly in type definition `t`'s body.
    pub(super) fn nested_types(&self, t: DefRef, name: &str) -> Vec<DefRef> {
        self.files[t.0 as usize]
            .definitions
            .iter()
            .enumerate()
            .filter(|(_, d)| d.parent == Some(t.1) && is_typeish(d.kind) && &*d.name == name)
            .map(|(i, _)| (t.0, i as u32))
            .collect()
    }

    /// A base type named in a definition header: same file, import, then unique type name.
    pub(super) fn resolve_base(&self, fi: u32, name: &str) -> Option<(DefRef, Tier)> {
        let bases = &self.local(fi).bases;
        let lock = || {
            bases
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(&known) = lock().get(name) {
            return known;
        }
        // Not held while resolving: the answer may ask for other names of this file.
        let answer = self.resolve_base_uncached(fi, name);
        lock().insert(name.to_string(), answer);
        answer
    }

    /// [`Ctx::resolve_base`] worked out.
    fn resolve_base_uncached(&self, fi: u32, name: &str) -> Option<(DefRef, Tier)> {
        let fam = self.fam(fi);
        let rules = self.rules(fi);
        // A qualified type from [`Ctx::classify`] (`json.Parser`, C++ and C#).
        if let Some((q, n)) = name.rsplit_once('.').filter(|_| rules.qualified_type_names) {
            return match self.qualified_type(fi, q, n).as_slice() {
                [t] => Some((*t, Tier::Qualified)),
                _ => None,
            };
        }
        // An import alias (`from .sansio.blueprints import Blueprint as SansioBlueprint`)
        // names a type no definition is named after: the bindings are asked first then.
        let types = self.types.get(&(fam, name)).unwrap_or_default();
        let here: Vec<DefRef> = types
            .iter()
            .copied()
            .filter(|r| r.0 == fi && self.def(*r).kind != Kind::Impl)
            .collect();
        if here.len() == 1 {
            return Some((here[0], Tier::Local));
        }
        if let Some(imps) = self.local(fi).bindings.get(name) {
            for imp in imps {
                if let Bound::Defs(d) = self.bind(fi, imp) {
                    if d.len() == 1 && (!types.is_empty() || is_typeish(self.def(d[0]).kind)) {
                        return Some((d[0], Tier::Import));
                    }
                }
            }
        }
        if types.is_empty() {
            return None;
        }
        let all: Vec<DefRef> = types
            .iter()
            .copied()
            .filter(|r| {
                self.def(*r).kind != Kind::Impl && self.sees_namespace(fi, self.namespace_of(*r))
            })
            .collect();
        // Glob imports (`import org.util.*;`, `using App.Models;`, `from m import *`).
        let f = &self.files[fi as usize];
        for imp in f.imports.iter().filter(|i| i.name.as_deref() == Some("*")) {
            if let Bound::Module(files) = self.bind(
                fi,
                &Import {
                    name: None,
                    ..imp.clone()
                },
            ) {
                let v: Vec<DefRef> = all
                    .iter()
                    .copied()
                    .filter(|r| files.contains(&r.0))
                    .collect();
                if v.len() == 1 {
                    return Some((v[0], Tier::Import));
                }
            }
        }
        // The same package (directory), then the crate. In Java and Go a type of the same
        // package is in scope without an import (JLS 6.3, the Go spec's package block):
        // found there, it is `local` even when no other type has its name (`class B
        // extends A` beside `A.java`, too short a name for a guess).
        let near = self.narrow(fi, all.clone());
        let same_package = rules.same_directory_package
            && near.len() == 1
            && dir_of(&self.files[near[0].0 as usize].path)
                == dir_of(&self.files[fi as usize].path);
        if near.len() == 1 && (all.len() > 1 || same_package) {
            return Some((near[0], Tier::Local));
        }
        (all.len() == 1 && (unique_name_allowed(name) || all[0].0 == fi))
            .then(|| (all[0], Tier::UniqueName))
    }
}
