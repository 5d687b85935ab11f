//! The call rules: one call site to one definition, or the reason there is none. Bare
//! calls go local, import, package, then unique name; calls with a receiver or
//! qualifier go through `self`/`this`, module paths, type names and the receiver's
//! type, with the guarded method-name guess last.

use super::context::{dir_of, top_package_binding};
use super::modules::Target;
use super::tables::is_typeish;
use super::types::{strip_turbofish, Typed};
use super::{unique_name_allowed, Bound, Ctx, DefRef};
use crate::index::facts::{CallSite, Import, Kind};
use crate::index::graph::{Tier, UnresolvedReason};
use crate::index::lang::{ImportSystem, LocalShadowing, NamePattern, NewCalls};

impl<'a> Ctx<'a> {
    pub(super) fn resolve_call(
        &self,
        fi: u32,
        c: &CallSite,
    ) -> Result<(DefRef, Tier), UnresolvedReason> {
        let (t, tier) = match c.receiver.as_deref() {
            None => self.resolve_bare(fi, c),
            Some(r) => self.resolve_qualified(fi, c, r),
        }?;
        let spec = self.specs[fi as usize];
        let rules = &spec.resolution;
        // Go compiles `_test.go` files only into the package's test binary (`go help
        // test`): code outside them can never call what they define.
        if rules.test_files_compiled_apart {
            let test_file = |i: u32| {
                let path = &self.files[i as usize].path;
                let file = path.rsplit('/').next().unwrap_or(path);
                NamePattern::any(rules.test_files, file, spec.extensions)
            };
            if test_file(t.0) && !test_file(fi) {
                return Err(UnresolvedReason::NotFound);
            }
        }
        // `new Foo(..)` runs Foo's constructor; when the class has exactly one, that is the
        // target (javac's answer), else the class.
        if c.is_new
            && rules.new_calls == NewCalls::OnlyConstructor
            && self.def(t).kind.is_constructible()
        {
            // C++: the constructors may be defined outside the class, in another file.
            let name = &*self.def(t).name;
            let ctors: Vec<DefRef> = self
                .members_of_def(t, name, 0)
                .into_iter()
                .filter(|&r| self.def(r).kind == Kind::Constructor)
                .collect();
            if let [only] = ctors.as_slice() {
                return Ok((*only, tier));
            }
        }
        // The declared constructor the argument count picks; the class itself only when it
        // declares none (its implicit default constructor). Where the count decides
        // (Java), several that fit stay `ambiguous` rather than an edge to the class.
        if c.is_new
            && rules.new_calls == NewCalls::OnlyDeclaredConstructor
            && self.def(t).kind.is_constructible()
        {
            let declared = self.declared_constructors(t);
            let fit = self.by_arity(fi, c, declared.clone());
            match fit.as_slice() {
                [only] => return Ok((*only, tier)),
                [] if rules.exact_arity && !declared.is_empty() => {
                    return Err(UnresolvedReason::NotFound)
                }
                [_, _, ..] if rules.exact_arity => return Err(UnresolvedReason::Ambiguous),
                _ => {}
            }
        }
        Ok((t, tier))
    }

    pub(super) fn resolve_bare(
        &self,
        fi: u32,
        c: &CallSite,
    ) -> Result<(DefRef, Tier), UnresolvedReason> {
        let f = &self.files[fi as usize];
        let name = c.name.as_str();
        // `super(...)`: the base class's constructor (the class when it declares none).
        let rules = self.rules(fi);
        if name == "super" && rules.bare_super_calls_base_constructor {
            let ty = self
                .enclosing_type(fi, c.caller)
                .ok_or(UnresolvedReason::NotFound)?;
            let (t, _) = self
                .resolve_base(fi, ty)
                .ok_or(UnresolvedReason::NotFound)?;
            let base = self
                .def(t)
                .bases()
                .iter()
                .find(|b| !b.implements)
                .ok_or(UnresolvedReason::NotFound)?;
            let Some((bt, tier)) =
                self.resolve_base_ref(t.0, &base.name, base.qualifier.as_deref())
            else {
                return Err(UnresolvedReason::External);
            };
            let ctor = self.members_of_def(bt, "constructor", 0);
            return Ok((
                ctor.first().copied().unwrap_or(bt),
                tier.max(Tier::Qualified),
            ));
        }
        // `this(..)` / `super(..)` in a constructor: a constructor of the own class or of
        // the base class, by argument count; a class declaring none has the implicit one.
        if rules.explicit_constructor_calls && (name == "this" || name == "super") {
            let own = self
                .enclosing_type_def(fi, c.caller)
                .ok_or(UnresolvedReason::NotFound)?;
            let (ty, tier) = if name == "this" {
                (own, Tier::Local)
            } else {
                let base = self
                    .def(own)
                    .bases()
                    .iter()
                    .find(|b| !b.implements)
                    .ok_or(UnresolvedReason::External)?;
                let (bt, tier) = self
                    .resolve_base_ref(fi, &base.name, base.qualifier.as_deref())
                    .ok_or(UnresolvedReason::External)?;
                (bt, tier.max(Tier::Qualified))
            };
            let declared = self.declared_constructors(ty);
            if declared.is_empty() {
                return Ok((ty, tier));
            }
            return match self.by_arity(fi, c, declared).as_slice() {
                [only] => Ok((*only, tier)),
                [] => Err(UnresolvedReason::NotFound),
                _ => Err(UnresolvedReason::Ambiguous),
            };
        }
        // Java has no free functions: a bare call is a method of the enclosing class (or
        // of its bases), else a static import.
        if rules.bare_calls_reach_members && !c.is_new {
            // Ruby: a bare name that the method assigns is its local variable, not a call
            // on `self` (`header = ..; header`).
            if rules.local_shadowing == LocalShadowing::WholeFunction
                && self.is_local(fi, c.caller, name)
            {
                return Err(UnresolvedReason::NotFound);
            }
            if let Some(ty) = self.enclosing_type(fi, c.caller) {
                let m = self.by_arity(
                    fi,
                    c,
                    self.member_with_bases(fi, ty, name, 0, self.exact_args(fi, c)),
                );
                match m.len() {
                    1 => return Ok((m[0], Tier::Local)),
                    0 => {}
                    _ => return Err(UnresolvedReason::Ambiguous),
                }
            }
        }
        // 1. local: the caller's own nested scopes first, then the file. A function that
        // binds the name as a parameter or local variable (`def test(httpbin):
        // httpbin("get")`) calls that value: no definition is the target (its runtime
        // value is unknown), and outer definitions of the name are hidden.
        let local = self.free_in_file(fi, name);
        let mut scope = c.caller;
        while let Some(s) = scope {
            let inner: Vec<DefRef> = local
                .iter()
                .copied()
                .filter(|&r| self.def(r).parent == Some(s))
                .collect();
            if inner.len() == 1 {
                return Ok((inner[0], Tier::Local));
            }
            // Python: a name bound anywhere in a function is local to all of it. Go: a
            // parameter or `:=` local of that name (`helper := func() ..`) bound on an
            // earlier line is what the call calls; Go scopes a local to the rest of its
            // block, which the facts do not record, so a same-named package function
            // called after that block is missed rather than a local taken for it. (Rust and
            // JS `let` are left to the tiers below; Java and C# keep methods and variables
            // apart.)
            let local_value = match rules.local_shadowing {
                LocalShadowing::WholeFunction => self.is_local(fi, Some(s), name),
                // Bound on an earlier line: `tableSize := tableSize(n)` still calls the
                // function (a `:=` local is in scope after its statement).
                LocalShadowing::FromBindingLine => self
                    .local(fi)
                    .bound
                    .get(&(s, name))
                    .is_some_and(|&first| first < c.line),
                LocalShadowing::Never => false,
            };
            if inner.is_empty() && local_value {
                return Err(UnresolvedReason::NotFound);
            }
            scope = f.definitions[s as usize].parent;
        }
        if !local.is_empty() {
            let top: Vec<DefRef> = self.pick(
                fi,
                local
                    .iter()
                    .copied()
                    .filter(|&r| self.def(r).parent.is_none())
                    .collect(),
            );
            match top.len() {
                1 => return Ok((top[0], Tier::Local)),
                // Nested in a namespace or an object, not in another function's body
                // (whose names only that body sees: the scopes above): else the
                // imports decide.
                0 => {
                    let visible: Vec<DefRef> = local
                        .iter()
                        .copied()
                        .filter(|&r| !self.in_callable(r))
                        .collect();
                    match visible.len() {
                        0 => {}
                        1 => return Ok((visible[0], Tier::Local)),
                        _ => return Err(UnresolvedReason::Ambiguous),
                    }
                }
                _ => return Err(UnresolvedReason::Ambiguous),
            }
        }
        // 2. import bindings.
        if let Some(imps) = self.local(fi).bindings.get(name) {
            for imp in imps {
                match self.bind(fi, imp) {
                    Bound::Defs(d) if self.pick(fi, d.clone()).len() == 1 => {
                        return Ok((self.pick(fi, d)[0], Tier::Import))
                    }
                    Bound::Defs(_) => return Err(UnresolvedReason::Ambiguous),
                    Bound::External => return Err(UnresolvedReason::External),
                    Bound::Module(_) | Bound::NotFound => {}
                }
            }
            return Err(UnresolvedReason::NotFound);
        }
        // Glob imports. C and C++: every `#include` and `using namespace` together, and
        // only what is visible unqualified (a namespace's function needs the caller to be
        // in it or to use it), so the order of includes never decides.
        let c_family = rules.imports == ImportSystem::Includes;
        let mut seen: Vec<DefRef> = Vec::new();
        for imp in f.imports.iter().filter(|i| i.name.as_deref() == Some("*")) {
            let whole = Import {
                name: None,
                ..(*imp).clone()
            };
            if let Bound::Module(files) = self.bind(fi, &whole) {
                let d = self.top_level_in(&files, name);
                if c_family {
                    seen.extend(
                        d.into_iter()
                            .filter(|&r| self.sees_namespace(fi, self.namespace_of(r))),
                    );
                } else if d.len() == 1 {
                    return Ok((d[0], Tier::Import));
                }
            }
        }
        if c_family {
            seen.sort();
            seen.dedup();
            if let [only] = seen.as_slice() {
                return Ok((*only, Tier::Import));
            }
        }
        // Go and Java: the caller's package (same directory).
        if rules.same_directory_package {
            let dir = f.path.rfind('/').map_or("", |i| &f.path[..i]);
            let pkg: Vec<DefRef> = self
                .by_name
                .refs(&(self.fam(fi), name))
                .filter(|&r| {
                    let p = &self.files[r.0 as usize].path;
                    // a constructor is named like its class: `new Foo()` names the class
                    p.rfind('/').map_or("", |i| &p[..i]) == dir
                        && !matches!(self.def(r).kind, Kind::Method | Kind::Constructor)
                })
                .collect();
            match pkg.len() {
                1 => return Ok((pkg[0], Tier::Local)),
                0 => {}
                _ => return Err(UnresolvedReason::Ambiguous),
            }
        }
        // 4. guarded repo-wide unique name; never for a JS global (`Number(x)`, `Map()`,
        // `require()`) that the file does not define or import: the bare name is the
        // platform's, even when some other file of the repo defines a class of that name
        // (three.js's transpiler has a `Number` class: 52 wrong guesses on the npm tree).
        if rules.globals.contains(&name) {
            return Err(UnresolvedReason::External);
        }
        let cands: Vec<DefRef> = self
            .by_name
            .refs(&(self.fam(fi), name))
            .filter(|&r| {
                let d = self.def(r);
                (d.kind.is_callable() && d.kind != Kind::Method || d.kind.is_constructible())
                    && !self.in_callable(r)
                    && (r.0 == fi || !self.internal.contains(&r))
                    && self.sees_namespace(fi, self.namespace_of(r))
                    && (!rules.bare_names_in_package_or_global || {
                        let m = &self.files[r.0 as usize].module_path;
                        m.is_empty() || *m == f.module_path
                    })
            })
            .collect();
        // Go: an unqualified name is a local, the package's (tried above), a builtin or a
        // dot import's, never another package's (the Go spec, "Declarations and scope"); a
        // guess linked closures and parameters named like an unexported function elsewhere
        // (`check(c)` in go-git to x/tools' `check`). Not found when another package has
        // such a candidate (the call is to a closure or parameter), else external (a
        // builtin, `len(x)`).
        if rules.bare_names_in_package {
            return Err(if cands.is_empty() {
                UnresolvedReason::External
            } else {
                UnresolvedReason::NotFound
            });
        }
        let cands = self.pick(fi, cands);
        if cands.len() > 1 && rules.nesting_scopes_constants {
            if let Some(r) = self.through_nesting(fi, c.caller, name, &cands) {
                return Ok((r, Tier::Qualified));
            }
        }
        match cands.len() {
            0 => Err(UnresolvedReason::External),
            1 if unique_name_allowed(name) => Ok((cands[0], Tier::UniqueName)),
            _ => Err(UnresolvedReason::Ambiguous),
        }
    }

    fn resolve_qualified(
        &self,
        fi: u32,
        c: &CallSite,
        recv: &str,
    ) -> Result<(DefRef, Tier), UnresolvedReason> {
        self.resolve_qualified_depth(fi, c, recv, 0)
    }

    pub(super) fn resolve_qualified_depth(
        &self,
        fi: u32,
        c: &CallSite,
        recv: &str,
        depth: u32,
    ) -> Result<(DefRef, Tier), UnresolvedReason> {
        let f = &self.files[fi as usize];
        let rules = self.rules(fi);
        let name = c.name.as_str();
        let args = self.exact_args(fi, c);
        // A getter or setter is read or written, never called: `a.name()` on a typed `a`
        // calls what the property returns, not the property.
        let one = |mut v: Vec<DefRef>, tier: Tier| {
            v.retain(|r| !self.def(*r).is_accessor());
            match self.by_arity(fi, c, self.pick(fi, v)).as_slice() {
                [only] => Ok((*only, tier)),
                [] => Err(UnresolvedReason::NotFound),
                _ => Err(UnresolvedReason::Ambiguous),
            }
        };
        // A method's own instance under a chosen name (Go receivers) acts as `self`.
        // The calling definition, never its own guess through another object.
        let caller = c.caller.map(|d| (fi, d));
        let own = c.caller.and_then(|i| f.definitions[i as usize].self_name());
        let owned;
        let normalized;
        // A turbofish (`Thing::<()>::new`) names generic arguments, not a path segment.
        let unfished = strip_turbofish(recv);
        let recv = &*unfished;
        // C and C++ `p->f`, `ns::T`: one separator for the steps below.
        let seps = rules.member_access_separators;
        let recv = if seps.iter().any(|s| recv.contains(s)) {
            normalized = seps.iter().fold(recv.to_string(), |r, s| r.replace(s, "."));
            normalized.as_str()
        } else {
            recv
        };
        // PHP `$this.repo`: the sigil is no part of the names the query binds.
        let unsigiled;
        let recv = match rules.variable_sigil {
            Some(sigil) if recv.contains(sigil) => {
                unsigiled = recv.replace(sigil, "");
                unsigiled.as_str()
            }
            _ => recv,
        };
        // Ruby `@repo.find`: the instance's field.
        let field;
        let recv = match rules.instance_variable_sigil {
            Some(sigil) if recv.starts_with(sigil) => {
                field = format!("self.{}", &recv[sigil.len_utf8()..]);
                field.as_str()
            }
            _ => recv,
        };
        let recv = match own {
            Some(o) if o == recv => "self",
            Some(o) if recv.strip_prefix(o).is_some_and(|r| r.starts_with('.')) => {
                owned = format!("self{}", &recv[o.len()..]);
                owned.as_str()
            }
            _ => recv,
        };
        // A receiver whose type the source states: `x: Foo`, `x = Foo()`, `Foo(db).run()`,
        // `self.repo` with `self.repo = Repo()`, a Java/TS field.
        let typed = if c.is_path {
            Typed::Unknown
        } else {
            self.receiver_type_depth(fi, c.caller, recv, depth)
        };
        let typed_member = |m: Vec<DefRef>| match m.len() {
            0 => Err(UnresolvedReason::NotFound),
            _ => one(m, Tier::Qualified),
        };
        match typed {
            Typed::Def(t) => return typed_member(self.members_of_def_fit(t, name, 0, args)),
            Typed::Repo(ty) => return typed_member(self.member_with_bases(fi, &ty, name, 0, args)),
            Typed::Traits(ts) => return typed_member(self.members_of_traits(&ts, name, args)),
            Typed::External => return Err(UnresolvedReason::External),
            Typed::Extended(ty) => {
                let mut m = self.member(fi, &ty, name);
                m.retain(|&r| self.fits(r, args));
                return match m.len() {
                    0 => Err(UnresolvedReason::External),
                    _ => one(m, Tier::Qualified),
                };
            }
            Typed::Unknown => {}
        }
        // self / this / Self / cls / super (a Rust path `super::f` is a module path).
        let recv_kw = if c.is_path && recv != "Self" {
            ""
        } else if rules.super_aliases.contains(&recv) {
            // C# `base.M()` is Java's `super.m()`.
            "super"
        } else if rules.self_aliases.contains(&recv) {
            "self"
        } else {
            recv
        };
        match recv_kw {
            "self" | "this" | "Self" | "cls" => {
                if let Some(ty) = self.enclosing_type(fi, c.caller) {
                    return one(
                        self.member_with_bases(fi, ty, name, 0, args),
                        Tier::Qualified,
                    );
                }
                if recv == "this" {
                    return self.method_fallback(fi, name, None);
                }
                return Err(UnresolvedReason::NotFound);
            }
            "super" | "super()" => {
                let ty = self
                    .enclosing_type(fi, c.caller)
                    .ok_or(UnresolvedReason::NotFound)?;
                let mut out = Vec::new();
                for &t in self
                    .types
                    .get(&(self.fam(fi), ty))
                    .into_iter()
                    .flatten()
                    .filter(|t| t.0 == fi)
                {
                    // Each base as written, qualifier included (`werkzeug.test.EnvironBuilder`
                    // is external even when the class itself is also `EnvironBuilder`), and
                    // never the class itself.
                    for b in self.def(t).bases() {
                        if let Some((bt, _)) =
                            self.resolve_base_ref(fi, &b.name, b.qualifier.as_deref())
                        {
                            if bt != t {
                                out.extend(self.members_of_def_fit(bt, name, 1, args));
                            }
                        }
                    }
                }
                out.sort();
                out.dedup();
                return match out.len() {
                    0 => Err(UnresolvedReason::External),
                    _ => one(out, Tier::Qualified),
                };
            }
            _ => {}
        }
        let is_path = recv
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.' || ch == ':' || ch == '$');
        if !is_path {
            return self.method_fallback(fi, name, caller);
        }
        let segs: Vec<&str> = recv
            .split(rules.path_separator)
            .filter(|s| !s.is_empty())
            .collect();
        let Some(&first) = segs.first() else {
            return self.method_fallback(fi, name, caller);
        };
        // A generic parameter (`R::byte_offset(self)`, `T::default()`): its bounds' method.
        if segs.len() == 1 {
            if let Some((bf, bounds)) = self.generic_bounds(fi, c.caller, first) {
                return match self.bound_type(bf, &bounds) {
                    Typed::Def(t) => typed_member(self.members_of_def_fit(t, name, 0, args)),
                    Typed::Traits(ts) => typed_member(self.members_of_traits(&ts, name, args)),
                    Typed::Unknown => Err(UnresolvedReason::NotFound),
                    _ => Err(UnresolvedReason::External),
                };
            }
        }
        // Rust module paths (`crate::a::f`, `util::f`, `other_crate::m::f`).
        if rules.imports == ImportSystem::CrateModules {
            // A path through a module a `use` binds (`backtrack::Config::new` after `use
            // crate::nfa::thompson::backtrack;`), past its first segment.
            let found = match self.modules.crate_module(self.files, fi, &segs) {
                Some((Target::Files(v), used)) => Some((v, used)),
                _ => self
                    .used_module_path(fi, &segs)
                    .filter(|(_, used)| *used > 1),
            };
            if let Some((v, used)) = found {
                if used == segs.len() {
                    // What the module defines, else what it re-exports (`pub use
                    // task::spawn;` in tokio's lib.rs is what `tokio::spawn` calls).
                    return one(self.exported_in(&v, name, 0), Tier::Qualified);
                }
                // `module::Type::method`
                if used + 1 == segs.len() {
                    let ty = segs[used];
                    let m: Vec<DefRef> = self
                        .member(v[0], ty, name)
                        .into_iter()
                        .filter(|r| v.contains(&r.0))
                        .collect();
                    return one(m, Tier::Qualified);
                }
            }
        }
        // Elixir: a module path names a module of the repo by its declared name, else a
        // library's; a function the module lacks but one of its bases may inject (`use
        // Ecto.Repo` gives `Repo.all`) is a library's too.
        if rules.imports == ImportSystem::DeclaredModules && first.starts_with(char::is_uppercase) {
            let mods = self.declared_module(fi, c.caller, recv);
            let m: Vec<DefRef> = mods
                .iter()
                .flat_map(|&t| self.members_of_def_fit(t, name, 0, args))
                .collect();
            if m.is_empty() && mods.iter().all(|&t| self.def(t).bases().is_empty()) {
                return Err(if mods.is_empty() {
                    UnresolvedReason::External
                } else {
                    UnresolvedReason::NotFound
                });
            }
            if m.is_empty() {
                return Err(UnresolvedReason::External);
            }
            return one(m, Tier::Qualified);
        }
        // C++ and C#: a qualified type (`json::Parser::parse`, `Acme.Text.Util.Helper`).
        if segs.len() > 1 && rules.qualified_type_names {
            let (q, ty) = segs.split_at(segs.len() - 1);
            if let [t] = self.qualified_type(fi, &q.join("."), ty[0]).as_slice() {
                return one(self.members_of_def(*t, name, 0), Tier::Qualified);
            }
        }
        // A name bound by an import.
        if let Some(imps) = self.local(fi).bindings.get(first) {
            for imp in imps {
                match self.bind(fi, imp) {
                    Bound::External => return Err(UnresolvedReason::External),
                    Bound::Module(files) => {
                        // `import a.b` bound `a`: the walk starts at the package `a`.
                        let (mut files, base) = match top_package_binding(rules, imp)
                            .map(|top| (top, self.modules.dotted_module(self.files, fi, top)))
                        {
                            Some((top, Target::Files(v))) if !v.is_empty() => (v, top),
                            _ => (files, imp.module.as_str()),
                        };
                        let mut k = 1;
                        // Python `pkg.mod.f()`: walk submodules.
                        while k < segs.len() && rules.imports == ImportSystem::DottedModules {
                            let sub = format!("{base}.{}", segs[1..=k].join("."));
                            match self.modules.dotted_module(self.files, fi, &sub) {
                                Target::Files(s) if !s.is_empty() => files = s,
                                _ => break,
                            }
                            k += 1;
                        }
                        if k == segs.len() {
                            let tier = if segs.len() == 1 {
                                Tier::Import
                            } else {
                                Tier::Qualified
                            };
                            return one(self.exported_in(&files, name, 0), tier);
                        }
                        // `mod.Type.method`: the module's members (narrowed among them,
                        // never first to a same-named type of the calling file).
                        let ty = segs[segs.len() - 1];
                        let m: Vec<DefRef> = self
                            .members
                            .refs(&(self.fam(fi), ty))
                            .filter(|r| files.contains(&r.0) && &*self.def(*r).name == name)
                            .collect();
                        return one(self.narrow(fi, m), Tier::Qualified);
                    }
                    Bound::Defs(defs) => {
                        let ty = segs[segs.len() - 1];
                        // An alias (`use App\Log\Logger as Log;`, `from m import A as B`,
                        // Lua's `local u = require "util"` of a module table) names the
                        // imported type itself, whose own name differs.
                        let m: Vec<DefRef> = defs
                            .iter()
                            .flat_map(|&d| {
                                let own = self.def(d);
                                if segs.len() == 1 && *own.name != *ty && is_typeish(own.kind) {
                                    self.members_of_def_fit(d, name, 0, args)
                                } else {
                                    self.member_with_bases(d.0, ty, name, 0, args)
                                }
                            })
                            .collect();
                        if !m.is_empty() || segs.len() == 1 {
                            return one(m, Tier::Qualified);
                        }
                    }
                    Bound::NotFound => {}
                }
            }
        }
        // Python `import a.b` binds `a`: `a.b.f()` with the module written in full.
        if rules.imports == ImportSystem::DottedModules && segs.len() > 1 {
            if let Some(imp) = f
                .imports
                .iter()
                .find(|i| i.name.is_none() && i.alias.is_none() && i.module == recv)
            {
                return match self.bind(fi, imp) {
                    Bound::Module(files) => one(self.top_level_in(&files, name), Tier::Qualified),
                    Bound::External => Err(UnresolvedReason::External),
                    _ => Err(UnresolvedReason::NotFound),
                };
            }
        }
        // A type name (`Foo::new()`, `Foo.create()`), the last segment of the qualifier.
        let ty = *segs.last().unwrap_or(&first);
        if segs.len() == 1 && rules.primitive_types.contains(&ty) {
            return Err(UnresolvedReason::External);
        }
        let ty = if ty == "Self" {
            self.enclosing_type(fi, c.caller).unwrap_or(ty)
        } else {
            ty
        };
        // In Go an unqualified type name is visible only in its own package (directory):
        // elsewhere `val.Referrers()` is a call on a variable that shares a type's name.
        let go_type_elsewhere = rules.bare_names_in_package
            && segs.len() == 1
            && !self.types.get(&(self.fam(fi), ty)).is_some_and(|v| {
                v.iter()
                    .any(|r| dir_of(&self.files[r.0 as usize].path) == dir_of(&f.path))
            });
        // Ruby: `Request.build` inside `module Sinatra` is `Sinatra::Request`'s.
        if segs.len() == 1 && rules.nesting_scopes_constants {
            let types: Vec<DefRef> = self
                .types
                .refs(&(self.fam(fi), ty))
                .filter(|&r| self.def(r).kind != Kind::Impl)
                .collect();
            if types.len() > 1 {
                if let Some(t) = self.through_nesting(fi, c.caller, ty, &types) {
                    return one(self.members_of_def_fit(t, name, 0, args), Tier::Qualified);
                }
            }
        }
        if !go_type_elsewhere && self.types.contains_key(&(self.fam(fi), ty)) {
            let m = self.member_with_bases(fi, ty, name, 0, args);
            if !m.is_empty() {
                return one(m, Tier::Qualified);
            }
            // A type whose member is not in the repo (derived or inherited from a library).
            return Err(UnresolvedReason::NotFound);
        }
        // CommonJS: `exports.f()` / `module.exports.f()` inside a module calls its own
        // export (`exports.f = function ...`).
        if rules.own_module_objects.contains(&recv) {
            return one(self.top_level_in(&[fi], name), Tier::Local);
        }
        // ECMAScript, Node and browser globals (`JSON.stringify`, `console.log`).
        if segs.len() == 1 && rules.globals.contains(&first) {
            return Err(UnresolvedReason::External);
        }
        // A Rust path that is not a repo module, type or import (`HashMap::new`,
        // `std::mem::take`) comes from a library.
        if rules.unknown_paths_external && recv.contains(|ch: char| ch == ':' || ch.is_uppercase())
        {
            return Err(UnresolvedReason::External);
        }
        self.method_fallback(fi, name, caller)
    }

    /// A method call on a receiver of unknown type: the only method of that name in the
    /// repo (same family, guarded); several is `ambiguous`, none is `external`. `caller`,
    /// the calling definition when the receiver is another object than `this`, is never
    /// the guess (`external` when it is the only such method; several stay `ambiguous`,
    /// never narrowed to the others): a method calling its own name on another object
    /// delegates to a wrapped object (`def readlines(self): return
    /// self._input.readlines()`, click's `EchoingStdin` around a `BinaryIO`), which a guess
    /// turned into a false recursion (Python tree: 4 such call edges; npm: 31; `stats.edges.calls`
    /// of `codegraph-tui -C <tree> --no-cache index --json` before and after this rule).
    fn method_fallback(
        &self,
        fi: u32,
        name: &str,
        caller: Option<DefRef>,
    ) -> Result<(DefRef, Tier), UnresolvedReason> {
        let fam = self.fam(fi);
        let is_method = |r: &DefRef| matches!(self.def(*r).kind, Kind::Method | Kind::Constructor);
        let all = self.by_name.get(&(fam, name)).unwrap_or_default();
        // In statically typed languages the receiver's type decides; when we could not
        // type it, a repo method that merely shares the name is more often wrong than right
        // (measured against go/types and javac: unique-name precision 0.57 on x/tools), so
        // no guess is made. Python and JavaScript keep the guarded guess.
        let rules = self.rules(fi);
        let guess = rules.guess_untyped_methods && !rules.platform_methods.contains(&name);
        if !guess || !unique_name_allowed(name) {
            return Err(if all.iter().any(is_method) {
                UnresolvedReason::Ambiguous
            } else {
                UnresolvedReason::External
            });
        }
        // A getter or setter is read as a property: `x.context(..)` calls what some other
        // object's `context` method is, never `get context()` (17 guesses on the npm tree
        // went to three.js getters). A class defined inside a function is unknown to other
        // files (flask's `client.head("/")` went to a test function's local view class).
        let cands = self.pick(
            fi,
            all.iter()
                .copied()
                .filter(|r| {
                    is_method(r)
                        && !self.def(*r).is_accessor()
                        && (r.0 == fi || !self.in_callable(*r))
                })
                .collect(),
        );
        match cands.len() {
            0 => Err(UnresolvedReason::External),
            1 if Some(cands[0]) == caller => Err(UnresolvedReason::External),
            1 => Ok((cands[0], Tier::UniqueName)),
            _ => Err(UnresolvedReason::Ambiguous),
        }
    }
}
