//! Building the resolution context ([`Ctx`]) over the definition tables, and the lookups
//! every rule shares: a file's own names and bindings, members of a type (with its
//! bases), namespaces in scope, and the narrowing of several candidates.

use std::sync::Arc;

use foldhash::HashMap;

use super::modules::{self, ModuleTable, Target};
use super::tables::{is_typeish, key_in, Keyed, RefMap, Tables};
use super::{is_test_path, Ctx, DefRef, FileMaps};
use crate::index::facts::{Binding, CallSite, Definition, FileFacts, Import, Kind};
use crate::index::lang::{self, ImportSystem, LanguageSpec, NamePattern, ResolutionRules};
use crate::index::project::Enclosing;

/// Each file's language spec, by file index.
fn specs_of(files: &[Arc<FileFacts>]) -> Vec<&'static LanguageSpec> {
    files.iter().map(|f| lang::spec_of(&f.language)).collect()
}

impl<'a> Ctx<'a> {
    pub(super) fn def(&self, r: DefRef) -> &'a Definition {
        &self.files[r.0 as usize].definitions[r.1 as usize]
    }

    /// The family of file `file`'s language: the first half of every table key (files of
    /// one family see each other's definitions).
    pub(super) fn fam(&self, file: u32) -> &'static str {
        self.specs[file as usize].family()
    }

    /// The resolution rules of file `file`'s language.
    pub(super) fn rules(&self, file: u32) -> &'static ResolutionRules {
        &self.specs[file as usize].resolution
    }

    /// The container name a definition is a member of (parent's name, or the explicit
    /// container of a Go method).
    pub(super) fn container_name(f: &'a FileFacts, d: &'a Definition) -> Option<&'a str> {
        if let Some(c) = d.container() {
            return Some(c);
        }
        let p = &f.definitions[d.parent? as usize];
        is_typeish(p.kind).then_some(&*p.name)
    }

    pub(super) fn build(files: &'a [Arc<FileFacts>], enclosing: &Enclosing) -> Ctx<'a> {
        // Every definition with its key and reference, in (file, definition) order (the
        // spec looked up once per file).
        let specs = specs_of(files);
        let specs_ref = &specs;
        let keyed = move |k: Keyed| {
            files.iter().enumerate().flat_map(move |(fi, f)| {
                let spec = specs_ref[fi];
                f.definitions.iter().enumerate().filter_map(move |(di, d)| {
                    Some((key_in(k, spec, f, d)?, (fi as u32, di as u32)))
                })
            })
        };
        let n_defs = files.iter().map(|f| f.definitions.len()).sum();
        // The module table too is made beside the name maps, not after them.
        let (by_name, ((members, types), modules)) = rayon::join(
            || RefMap::build(n_defs, keyed(Keyed::Name)),
            || {
                rayon::join(
                    || {
                        rayon::join(
                            || RefMap::build(0, keyed(Keyed::Container)),
                            || RefMap::build(0, keyed(Keyed::Type)),
                        )
                    },
                    || ModuleTable::build(files, enclosing),
                )
            },
        );
        Ctx::with_tables(files, specs, Arc::new(modules), by_name, members, types)
    }

    /// The context over `tables` (the [`Tables`] of `files`) instead of hash maps built
    /// from every definition.
    pub(super) fn build_with(files: &'a [Arc<FileFacts>], tables: &'a Tables) -> Ctx<'a> {
        let sorted = |table, keyed| RefMap::Sorted {
            table,
            files,
            keyed,
        };
        Ctx::with_tables(
            files,
            specs_of(files),
            tables.modules.clone(),
            sorted(&tables.by_name, Keyed::Name),
            sorted(&tables.members, Keyed::Container),
            sorted(&tables.types, Keyed::Type),
        )
    }

    fn with_tables(
        files: &'a [Arc<FileFacts>],
        specs: Vec<&'static LanguageSpec>,
        modules: Arc<ModuleTable>,
        by_name: RefMap<'a>,
        members: RefMap<'a>,
        types: RefMap<'a>,
    ) -> Ctx<'a> {
        let mut internal = foldhash::HashSet::default();
        for (fi, f) in files.iter().enumerate() {
            let rules = &specs[fi].resolution;
            let word = match (rules.file_local_statics, rules.file_local_modifier) {
                (true, _) => "static",
                (false, Some(word)) => word,
                (false, None) => continue,
            };
            for (di, d) in f.definitions.iter().enumerate() {
                if is_internal(f, d, rules.header_extensions, word) {
                    internal.insert((fi as u32, di as u32));
                }
            }
        }
        Ctx {
            files,
            modules,
            by_name,
            members,
            types,
            local: (0..files.len())
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            is_test: files
                .iter()
                .zip(&specs)
                .map(|(f, spec)| is_test_path(&f.path, spec))
                .collect(),
            specs,
            internal,
            factory: Default::default(),
        }
    }

    /// File `fi`'s name maps (made on first use).
    pub(super) fn local(&self, fi: u32) -> &FileMaps<'a> {
        self.local[fi as usize].get_or_init(|| {
            let files = self.files;
            let f = &files[fi as usize];
            let rules = self.rules(fi);
            let mut b: HashMap<&str, Vec<&Import>> = HashMap::default();
            for imp in &f.imports {
                if let Some(n) = top_package_binding(rules, imp).or(imp.local_name()) {
                    b.entry(n).or_default().push(imp);
                }
                // Go binds an import under the imported package's declared name, which
                // may differ from the last path segment (`package httpx` in `httputil/`).
                if rules.imports == ImportSystem::ImportPaths && imp.alias.is_none() {
                    if let Target::Files(v) = self.modules.import_path(&imp.module) {
                        if let Some(pkg) = v
                            .first()
                            .and_then(|&t| files[t as usize].package.as_deref())
                        {
                            if Some(pkg) != imp.local_name() {
                                b.entry(pkg).or_default().push(imp);
                            }
                        }
                    }
                }
            }
            let mut typed: HashMap<&str, Vec<&Binding>> = HashMap::default();
            let mut bound: foldhash::HashMap<(u32, &str), u32> = Default::default();
            for b in &f.bindings {
                if !b.type_name.is_empty() {
                    typed.entry(binding_key(&b.name)).or_default().push(b);
                }
                if let Some(s) = b.scope {
                    let first = bound.entry((s, b.name.as_str())).or_insert(b.line);
                    *first = (*first).min(b.line);
                }
            }
            FileMaps {
                bindings: b,
                typed,
                bound,
                imports_bound: (0..f.imports.len())
                    .map(|_| std::sync::OnceLock::new())
                    .collect(),
                import_targets: (0..f.imports.len())
                    .map(|_| std::sync::OnceLock::new())
                    .collect(),
                bases: Default::default(),
            }
        })
    }

    /// Definitions named `name` in file `fi` that a bare name can reach (not methods),
    /// top-level first.
    pub(super) fn free_in_file(&self, fi: u32, name: &str) -> Vec<DefRef> {
        let f = &self.files[fi as usize];
        let all = self.by_name.get(&(self.fam(fi), name)).unwrap_or_default();
        // `by_name` lists are sorted by (file, definition) (built in that order): the
        // file's own entries are one run, found by binary search instead of a scan.
        let from = all.partition_point(|r| r.0 < fi);
        let to = from + all[from..].partition_point(|r| r.0 == fi);
        all[from..to]
            .iter()
            .copied()
            .filter(|&r| {
                let d = self.def(r);
                !matches!(d.kind, Kind::Method | Kind::Constructor | Kind::Impl)
                    && d.parent
                        .is_none_or(|p| !f.definitions[p as usize].kind.is_type_container())
            })
            .collect()
    }

    /// Whether `r` is defined inside a function or method body (a nested function, an
    /// arrow function bound to a local name): a bare name reaches it only from inside
    /// that body (JS, Python and Rust scoping alike), never from another function.
    pub(super) fn in_callable(&self, r: DefRef) -> bool {
        let defs = &self.files[r.0 as usize].definitions;
        let mut p = defs[r.1 as usize].parent;
        while let Some(i) = p {
            let d = &defs[i as usize];
            if d.kind.is_callable() {
                return true;
            }
            p = d.parent;
        }
        false
    }

    pub(super) fn top_level_in(&self, files: &[u32], name: &str) -> Vec<DefRef> {
        let mut v = Vec::new();
        for &fi in files {
            v.extend(self.free_in_file(fi, name).into_iter().filter(|&r| {
                // Top level, or directly inside a namespace (C#, C++); never a C `static`
                // function, which only its own file sees (and reaches as `local`).
                !self.internal.contains(&r)
                    && self.def(r).parent.is_none_or(|p| {
                        self.files[r.0 as usize].definitions[p as usize].kind == Kind::Namespace
                    })
            }));
        }
        v
    }

    /// Members named `name` of types named `ty` in the caller's family, narrowed to the
    /// caller's file, then its crate/package directory, when that leaves exactly one.
    pub(super) fn member(&self, fi: u32, ty: &str, name: &str) -> Vec<DefRef> {
        let all: Vec<DefRef> = self
            .members
            .refs(&(self.fam(fi), ty))
            .filter(|&r| &*self.def(r).name == name)
            .collect();
        self.narrow(fi, all)
    }

    /// `self.name` inside type `ty`: its own members, then along its bases (depth ≤ 4).
    /// `args`: the argument count of the call, where that count decides
    /// ([`Ctx::exact_args`]): members of another parameter count are left out, and a type
    /// none of whose own members fits passes the lookup to its bases.
    pub(super) fn member_with_bases(
        &self,
        fi: u32,
        ty: &str,
        name: &str,
        depth: u32,
        args: Option<u32>,
    ) -> Vec<DefRef> {
        if let Some((t, _)) = self.resolve_base(fi, ty) {
            return self.members_of_def_fit(t, name, depth, args);
        }
        let mut own = self.member(fi, ty, name);
        // C# and C++: a type that no namespace in scope declares is not this one (`ty`
        // naming a namespace itself, `ns::f`, is a qualified name: always in scope).
        own.retain(|&r| {
            let d = self.def(r);
            let in_namespace = d.container().is_none()
                && d.parent.is_some_and(|p| {
                    self.files[r.0 as usize].definitions[p as usize].kind == Kind::Namespace
                });
            in_namespace || self.sees_namespace(fi, self.namespace_of(r))
        });
        own.retain(|&r| self.fits(r, args));
        if !own.is_empty() || depth > 4 {
            return own;
        }
        let mut out = Vec::new();
        for &t in self.types.get(&(self.fam(fi), ty)).into_iter().flatten() {
            if !self.narrow(fi, vec![t]).contains(&t) {
                continue;
            }
            for b in self.def(t).bases() {
                if b.name != ty {
                    out.extend(self.member_with_bases(t.0, &b.name, name, depth + 1, args));
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Whether member `r` sits in an `impl` block whose type, read from the block's own
    /// file, is another definition than `t` (`impl Default for Config` in `syntax.rs` is
    /// `syntax::Config`'s, not `dense::Config`'s).
    fn impl_of_other(&self, r: DefRef, t: DefRef) -> bool {
        self.def(r)
            .parent
            .is_some_and(|p| self.names_other((r.0, p), t))
    }

    /// Whether `impl` block `o` names another type than `t` from its own file.
    fn names_other(&self, o: DefRef, t: DefRef) -> bool {
        let d = self.def(o);
        d.kind == Kind::Impl
            && self
                .resolve_base(o.0, &d.name)
                .is_some_and(|(named, _)| named != t)
    }

    /// Members named `name` of the type definition `t` (nested in it, in its `impl`
    /// blocks or written outside its body in its crate or package), then along the bases
    /// of the type and of its `impl` blocks, each base resolved from the file naming it.
    pub(super) fn members_of_def(&self, t: DefRef, name: &str, depth: u32) -> Vec<DefRef> {
        self.members_of_def_fit(t, name, depth, None)
    }

    /// [`Ctx::members_of_def`] of a call passing `args` arguments (see
    /// [`Ctx::member_with_bases_fit`]).
    pub(super) fn members_of_def_fit(
        &self,
        t: DefRef,
        name: &str,
        depth: u32,
        args: Option<u32>,
    ) -> Vec<DefRef> {
        let td = self.def(t);
        let fam = self.fam(t.0);
        let cands: Vec<DefRef> = self
            .members
            .refs(&(fam, &*td.name))
            .filter(|&r| &*self.def(r).name == name && !self.impl_of_other(r, t))
            .collect();
        let nested: Vec<DefRef> = cands
            .iter()
            .copied()
            .filter(|r| r.0 == t.0 && self.def(*r).parent == Some(t.1))
            .collect();
        let own = if nested.is_empty() {
            // C++ members defined outside the class (`Parser::parse`) live in the class's
            // namespace: `json::Parser::parse` is not `xml::Parser`'s.
            let cands = if self.rules(t.0).out_of_class_members {
                let ns = normalize_ns(self.namespace_of(t));
                cands
                    .into_iter()
                    .filter(|&r| normalize_ns(self.namespace_of(r)) == ns)
                    .collect()
            } else {
                cands
            };
            self.narrow(t.0, cands)
        } else {
            nested
        };
        let own: Vec<DefRef> = own.into_iter().filter(|&r| self.fits(r, args)).collect();
        if !own.is_empty() || depth > 4 {
            return own;
        }
        // The type and its impl blocks (Rust `impl Trait for T`) carry the bases.
        let mut carriers = vec![t];
        for &o in self.types.get(&(fam, &*td.name)).into_iter().flatten() {
            if o != t
                && self.def(o).kind == Kind::Impl
                && !self.names_other(o, t)
                && self.narrow(t.0, vec![o, t]).len() == 2
            {
                carriers.push(o);
            }
        }
        let mut out = Vec::new();
        for c in carriers {
            for b in self.def(c).bases() {
                if let Some((bt, _)) = self.resolve_base_ref(c.0, &b.name, b.qualifier.as_deref()) {
                    if bt != t {
                        out.extend(self.members_of_def_fit(bt, name, depth + 1, args));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Typed names of file `fi` whose key (see [`binding_key`]) is `binding_key(name)`.
    pub(super) fn typed_by(&self, fi: u32, name: &str) -> impl Iterator<Item = &'a Binding> + '_ {
        self.local(fi)
            .typed
            .get(binding_key(name))
            .into_iter()
            .flatten()
            .copied()
    }

    /// Whether `name` is bound (a parameter, a local) directly in the function or method
    /// `scope` of file `fi`; class bodies do not count, their names are not in scope in
    /// the methods (Python) or are fields reached through `self`/`this`.
    pub(super) fn is_local(&self, fi: u32, scope: Option<u32>, name: &str) -> bool {
        scope.is_some_and(|s| {
            self.files[fi as usize].definitions[s as usize]
                .kind
                .is_callable()
                && self.local(fi).bound.contains_key(&(s, name))
        })
    }

    /// Narrows candidates the way the languages themselves decide, when that leaves fewer:
    /// a non-test caller never reaches test code (`_test.go`, `testdata/`, `tests/`,
    /// `*.test.ts`, `test_*.py`); a stub gives way to its module (a Python `.pyi` to its
    /// `.py`: [`ResolutionRules::stub_files`]); and where a later definition of the same
    /// name replaces an earlier one ([`ResolutionRules::later_definition_wins`]: Python and
    /// JS/TS `@overload` stubs, TypeScript overload signatures, `if/else` twins), the last
    /// one in the file wins.
    pub(super) fn pick(&self, fi: u32, mut v: Vec<DefRef>) -> Vec<DefRef> {
        if v.len() <= 1 {
            return v;
        }
        let path_of = |r: &DefRef| self.files[r.0 as usize].path.as_str();
        if !self.is_test[fi as usize] {
            let non_test: Vec<DefRef> = v
                .iter()
                .copied()
                .filter(|r| !self.is_test[r.0 as usize])
                .collect();
            if !non_test.is_empty() {
                v = non_test;
            }
        }
        let is_stub = |r: &DefRef| {
            let spec = self.specs[r.0 as usize];
            let path = path_of(r);
            let file = path.rsplit('/').next().unwrap_or(path);
            NamePattern::any(spec.resolution.stub_files, file, spec.extensions)
        };
        let non_stub: Vec<DefRef> = v.iter().copied().filter(|r| !is_stub(r)).collect();
        if !non_stub.is_empty() {
            v = non_stub;
        }
        // Kotlin multiplatform: an `expect` declaration (or a member of an `expect` class)
        // and the `actual`s of the other source sets are one API, named by the `expect`.
        if let Some(word) = self.rules(v[0].0).expect_modifier.filter(|_| v.len() > 1) {
            let expected = |r: &DefRef| {
                let f = &self.files[r.0 as usize];
                let mut cur = Some(r.1);
                while let Some(i) = cur {
                    let d = &f.definitions[i as usize];
                    if d.signature.split_whitespace().any(|w| w == word) {
                        return true;
                    }
                    cur = d.parent;
                }
                false
            };
            let declared: Vec<DefRef> = v.iter().copied().filter(expected).collect();
            if !declared.is_empty() {
                v = declared;
            }
        }
        if v.len() > 1 && self.rules(v[0].0).later_definition_wins {
            let first = self.def(v[0]).in_file_name();
            if v.iter()
                .all(|r| r.0 == v[0].0 && self.def(*r).in_file_name() == first)
            {
                let last = *v.iter().max_by_key(|r| r.1).expect("non-empty");
                return vec![last];
            }
        }
        v
    }

    /// Overloads narrowed by the call's argument count, when the call and the candidates
    /// say it (C# and C++): the candidates whose parameter count is unknown or equal to it,
    /// if that leaves fewer but not none. Same-count overloads are told apart by the
    /// arguments' types where both are known ([`Ctx::by_arg_types`]), else stay ambiguous.
    /// `fi`: the calling file.
    pub(super) fn by_arity(&self, fi: u32, c: &CallSite, v: Vec<DefRef>) -> Vec<DefRef> {
        // Where the count decides (Java), a candidate of another count is never the
        // target, even the only one.
        if let Some(args) = v.first().and_then(|r| self.exact_args(r.0, c)) {
            let fit = v
                .into_iter()
                .filter(|&r| self.fits(r, Some(args)))
                .collect();
            return self.by_arg_types(fi, c, fit);
        }
        let Some(args) = c.args.filter(|_| v.len() > 1) else {
            return v;
        };
        let fit: Vec<DefRef> = v
            .iter()
            .copied()
            .filter(|&r| self.def(r).arity.is_none_or(|a| a == args))
            .collect();
        if fit.is_empty() {
            v
        } else {
            fit
        }
    }

    /// The call's argument count when file `fi`'s language picks overloads by it exactly
    /// ([`ResolutionRules::exact_arity`]), else `None`.
    pub(super) fn exact_args(&self, fi: u32, c: &CallSite) -> Option<u32> {
        c.args.filter(|_| self.rules(fi).exact_arity)
    }

    /// Whether definition `r` can take `args` arguments: its exact parameter count is
    /// unknown (varargs, not captured) or equal; always when `args` is `None`.
    pub(super) fn fits(&self, r: DefRef, args: Option<u32>) -> bool {
        args.is_none_or(|n| self.def(r).arity.is_none_or(|a| a == n))
    }

    /// The nearest enclosing type definition of a caller.
    pub(super) fn enclosing_type_def(&self, fi: u32, caller: Option<u32>) -> Option<DefRef> {
        let f = &self.files[fi as usize];
        let mut cur = caller;
        while let Some(i) = cur {
            let d = &f.definitions[i as usize];
            if d.kind.is_type_container() {
                return Some((fi, i));
            }
            cur = d.parent;
        }
        None
    }

    /// The constructors type definition `t` declares in its body.
    pub(super) fn declared_constructors(&self, t: DefRef) -> Vec<DefRef> {
        self.files[t.0 as usize]
            .definitions
            .iter()
            .enumerate()
            .filter(|(_, d)| d.parent == Some(t.1) && d.kind == Kind::Constructor)
            .map(|(i, _)| (t.0, i as u32))
            .collect()
    }

    /// The nearest enclosing type of a caller: (type name).
    pub(super) fn enclosing_type(&self, fi: u32, caller: Option<u32>) -> Option<&'a str> {
        let f = &self.files[fi as usize];
        let modules = self.specs[fi as usize].extraction.modules_hold_methods;
        let mut cur = caller;
        while let Some(i) = cur {
            let d = &f.definitions[i as usize];
            if d.kind.is_type_container() || (modules && d.kind == Kind::Module) {
                return Some(&d.name);
            }
            if let Some(c) = d.container() {
                return Some(c);
            }
            cur = d.parent;
        }
        None
    }

    /// The qualified name of the namespace a definition is declared in (`App.Models`,
    /// `a::b`); `""` for the global namespace.
    pub(super) fn namespace_of(&self, r: DefRef) -> &'a str {
        let f = &self.files[r.0 as usize];
        let mut cur = f.definitions[r.1 as usize].parent;
        while let Some(i) = cur {
            let d = &f.definitions[i as usize];
            if d.kind == Kind::Namespace {
                return &d.qualified_name;
            }
            cur = d.parent;
        }
        ""
    }

    /// Whether code in file `fi` can name a namespace's members without a qualifier, in a
    /// language whose namespaces need a `using` ([`ResolutionRules::namespaces_need_using`],
    /// C# and C++): the global namespace, a namespace the file declares or encloses code in
    /// (and each namespace around it), or one a `using` directive of the file brings in
    /// (C# spec 14.5 "Using directives"; C++ [namespace.udir]). Other languages: always.
    pub(super) fn sees_namespace(&self, fi: u32, ns: &str) -> bool {
        let f = &self.files[fi as usize];
        if ns.is_empty() || !self.rules(fi).namespaces_need_using {
            return true;
        }
        f.definitions.iter().any(|d| {
            d.kind == Kind::Namespace && {
                let own = normalize_ns(&d.qualified_name);
                let ns = normalize_ns(ns);
                own == ns || own.starts_with(&format!("{ns}."))
            }
        }) || f
            .imports
            .iter()
            .any(|i| i.name.as_deref() == Some("*") && same_ns(&i.module, ns))
    }

    /// Type definitions named by a qualified name (`json::Parser`, `Acme.Text.Util`):
    /// those whose qualified name ends with `q` then `name`, C++ and C# only.
    pub(super) fn qualified_type(&self, fi: u32, q: &str, name: &str) -> Vec<DefRef> {
        let want = format!("{}.{name}", normalize_ns(q));
        self.types
            .refs(&(self.fam(fi), name))
            .filter(|&r| {
                let d = self.def(r);
                let qn = normalize_ns(&d.qualified_name);
                d.kind != Kind::Impl
                    && d.kind != Kind::Namespace
                    && (qn == want || qn.ends_with(&format!(".{want}")))
            })
            .collect()
    }

    /// Of `cands`, the one that a constant named `name` written in definition `caller` of
    /// file `fi` names through the lexical nesting (Ruby's `Module.nesting`): `Request`
    /// inside `module Sinatra; class Base` is `Sinatra::Base::Request`, else
    /// `Sinatra::Request`, else the top-level `Request`. `None` when no level of the
    /// nesting has exactly one of them.
    pub(super) fn through_nesting(
        &self,
        fi: u32,
        caller: Option<u32>,
        name: &str,
        cands: &[DefRef],
    ) -> Option<DefRef> {
        let f = &self.files[fi as usize];
        let own = caller.map(|c| normalize_ns(&f.definitions[c as usize].qualified_name));
        let mut prefix = own.as_deref().unwrap_or("");
        let qualified: Vec<(DefRef, String)> = cands
            .iter()
            .map(|&r| (r, normalize_ns(&self.def(r).qualified_name)))
            .collect();
        loop {
            let want = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}.{name}")
            };
            let mut hits = qualified.iter().filter(|(_, q)| *q == want);
            if let (Some((r, _)), None) = (hits.next(), hits.next()) {
                return Some(*r);
            }
            if prefix.is_empty() {
                return None;
            }
            prefix = prefix.rfind('.').map_or("", |i| &prefix[..i]);
        }
    }

    /// Narrows candidates to the caller's file, then its directory tree, then (with a
    /// crate module tree, [`ImportSystem::CrateModules`]) its crate, whichever first leaves
    /// exactly one; otherwise returns them all.
    pub(super) fn narrow(&self, fi: u32, all: Vec<DefRef>) -> Vec<DefRef> {
        let files = self.files;
        if all.len() <= 1 {
            return all;
        }
        let same: Vec<DefRef> = all.iter().copied().filter(|r| r.0 == fi).collect();
        if !same.is_empty() {
            return same;
        }
        let path = &files[fi as usize].path;
        let dir = path.rfind('/').map_or("", |i| &path[..=i]);
        let in_dir = |r: &DefRef| {
            let p = &files[r.0 as usize].path;
            p.starts_with(dir) && !p[dir.len()..].contains('/')
        };
        let same_dir: Vec<DefRef> = all.iter().copied().filter(in_dir).collect();
        if same_dir.len() == 1 {
            return same_dir;
        }
        if self.rules(fi).imports == ImportSystem::CrateModules {
            let root = modules::crate_root(path);
            if !root.is_empty() {
                let near: Vec<DefRef> = all
                    .iter()
                    .copied()
                    .filter(|r| files[r.0 as usize].path.starts_with(&root))
                    .collect();
                if near.len() == 1 {
                    return near;
                }
            }
        }
        all
    }
}

/// With dotted modules ([`ImportSystem::DottedModules`]), `import a.b.c` (no alias) binds
/// the top-level package `a`, not `c` (Python's language reference, "The import
/// statement"): the name it binds, else `None`.
pub(super) fn top_package_binding<'i>(rules: &ResolutionRules, imp: &'i Import) -> Option<&'i str> {
    if rules.imports != ImportSystem::DottedModules || imp.name.is_some() || imp.alias.is_some() {
        return None;
    }
    imp.module
        .split_once('.')
        .map(|(top, _)| top)
        .filter(|t| !t.is_empty())
}

/// A typed name's lookup key: `self.x` and `this.x` share the key `x` with a field `x`.
fn binding_key(name: &str) -> &str {
    name.strip_prefix("self.")
        .or_else(|| name.strip_prefix("this."))
        .unwrap_or(name)
}

/// A namespace name with `.` as its only separator (`a::b` → `a.b`).
fn normalize_ns(ns: &str) -> String {
    ns.replace("::", ".")
}

/// Whether two namespace names are the same, whatever their separator.
pub(super) fn same_ns(a: &str, b: &str) -> bool {
    normalize_ns(a) == normalize_ns(b)
}

/// Whether a definition has internal linkage, in a language with file-local functions
/// ([`ResolutionRules::file_local_statics`], C and C++; [`ResolutionRules::file_local_modifier`],
/// Lua): a free function (not a method, not nested in a type) whose header line says
/// `word` (`static`, `local`) before its name, in a source file. A `static` function in a
/// header (an extension in `headers`) is compiled into every file that includes it, so it
/// stays visible to them.
fn is_internal(f: &FileFacts, d: &Definition, headers: &[&str], word: &str) -> bool {
    let ext = f.path.rsplit_once('.').map_or("", |(_, e)| e);
    if d.kind != Kind::Function
        || d.container().is_some()
        || headers.contains(&ext.to_ascii_lowercase().as_str())
        || d.parent
            .is_some_and(|p| f.definitions[p as usize].kind.is_type_container())
    {
        return false;
    }
    let sig = d.signature.as_str();
    let head = sig.find(&*d.name).map_or(sig, |i| &sig[..i]);
    head.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == word)
}

/// The directory part of a repo-relative path (`""` at the root).
pub(super) fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}
