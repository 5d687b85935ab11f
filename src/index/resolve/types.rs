//! Receiver typing: what type a receiver expression, binding or field is known to have
//! (a repo type, one outside the repo, or unknown), from constructions, declared types,
//! return types and fields.

use std::sync::Arc;

use super::modules::Target;
use super::tables::is_typeish;
use super::{Bound, Ctx, DefRef};
use crate::index::facts::{CallSite, Kind, ALIAS, DOC_TYPE};
use crate::index::lang::ImportSystem;

/// What a receiver's type is known to be.
pub(super) enum Typed {
    /// A type defined in the repo, by name: looked up from the file of the call.
    Repo(String),
    /// The repo type definition the name resolved to in the file that wrote it (a
    /// parameter's `b.Encoder`, a factory's return type in its own file): a same-named type
    /// of the calling file is not it.
    Def(DefRef),
    /// A value bounded by several repo traits (`T: Read + Seek`): a method one of them
    /// declares.
    Traits(Vec<DefRef>),
    /// A type defined nowhere in the repo.
    External,
    /// A library type the repo declares extension functions of
    /// ([`ResolutionRules::extensions_of_library_types`](crate::index::lang::ResolutionRules)):
    /// a call on it is that extension when one has the name, else `external`.
    Extended(String),
    /// Not known.
    Unknown,
}

/// Whether `recv` is one string literal (`"abc"`, `"a \"quoted\" word"`), not an
/// expression that starts with one (`"abc".encodeUtf8()`).
fn is_string_literal(recv: &str) -> bool {
    let Some(inner) = recv.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
        return false;
    };
    let mut escaped = false;
    for c in inner.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return false,
            _ => escaped = false,
        }
    }
    !escaped
}

/// The constructed type of an inline construction receiver: `Foo(db)`, `new Foo()`,
/// `pkg.Foo()`, `Foo::new(..)`, `Foo { .. }` → `Foo`. `None` for anything else.
fn inline_constructor(recv: &str) -> Option<&str> {
    let r = recv.strip_prefix("new ").unwrap_or(recv).trim();
    let head = if let Some(i) = r.find("::new(") {
        &r[..i]
    } else if let Some(i) = r.find(['(', '{']) {
        if !(r.ends_with(')') || r.ends_with('}')) {
            return None;
        }
        r[..i].trim_end()
    } else {
        return None;
    };
    let name = head.rsplit(['.', ':']).next()?;
    let ok = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        && head
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == ':');
    ok.then_some(name)
}

/// `s` without its turbofish generic arguments (`::<...>`, brackets balanced); `s` itself,
/// not copied, when it has none.
pub(super) fn strip_turbofish(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains("::<") {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("::<") {
        out.push_str(&rest[..i]);
        let mut depth = 0i32;
        let mut end = rest.len();
        for (j, c) in rest[i + 2..].char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 2 + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Byte index of the `(` matching the end of `s` (which had its final `)` removed).
fn matching_open_paren(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 0 => return Some(i),
            '(' => depth -= 1,
            _ => {}
        }
    }
    None
}

impl<'a> Ctx<'a> {
    /// The type of a receiver expression, from inline constructions and typed bindings.
    /// The type of a receiver expression: an inline construction (`Foo(db)`, `new Foo()`,
    /// `Foo::new(..)`), a call whose target declares a return type (`this.getSubject()`,
    /// `store.NewMemory()`), or a chain `head.f.g` typed from the head (a binding, `self`)
    /// through the declared types of each field.
    pub(super) fn receiver_type_depth(
        &self,
        fi: u32,
        caller: Option<u32>,
        recv: &str,
        depth: u32,
    ) -> Typed {
        if depth > 4 {
            return Typed::Unknown;
        }
        // `"abc".encodeUtf8()`: a string literal is of the language's string type.
        if is_string_literal(recv) {
            if let Some(t) = self.rules(fi).string_literal_type {
                return self.classify(fi, t);
            }
        }
        // A turbofish names generic arguments, not another type: `Thing::<()>::new()` is
        // typed as `Thing::new()`.
        let unfished = strip_turbofish(recv);
        let recv = &*unfished;
        // Ruby `Cart.new(2).total`, `Shop.Cart.new.total`: an instance of the class.
        if let Some(ctor) = self.rules(fi).constructor_method {
            let callee = match recv.strip_suffix(')') {
                Some(inner) => matching_open_paren(inner).map(|open| &inner[..open]),
                None => Some(recv),
            };
            let class = callee
                .and_then(|c| c.strip_suffix(ctor))
                .and_then(|c| c.strip_suffix('.'))
                .filter(|c| {
                    c.starts_with(char::is_uppercase)
                        && c.chars()
                            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.')
                });
            if let Some(class) = class {
                return self.classify(fi, class);
            }
        }
        if let Some(ty) = inline_constructor(recv) {
            // A dotted head is classified whole, so its qualifier decides (`pkg.Foo(x)` is
            // the package's type; `t.Field(i)` in Go is a method call on a value).
            let head = recv.strip_prefix("new ").unwrap_or(recv).trim();
            let dotted = head
                .find(['(', '{'])
                .map(|i| head[..i].trim_end())
                .filter(|h| h.contains('.') && !h.contains("::"));
            // A path (`backtrack::Config::new()`): the module path decides, as for a
            // declared `backtrack::Config`, never another file's `Config`.
            let path = recv
                .find("::new(")
                .map(|i| &recv[..i])
                .filter(|p| p.contains("::"));
            let typed = match (dotted, path) {
                (Some(h), _) if !recv.starts_with("new ") => self.classify(fi, h),
                (_, Some(p)) => self.classify(fi, &p.replace("::", ".")),
                _ => self.classify(fi, ty),
            };
            match typed {
                Typed::Repo(t) if self.is_constructible(fi, &t) => return Typed::Repo(t),
                Typed::Def(t) if self.def(t).kind.is_constructible() => return Typed::Def(t),
                // Not a construction: typed below as a call result.
                _ if recv.ends_with(')') => {}
                _ => return Typed::Unknown,
            }
        }
        // A call result: resolve the call, then its declared return type.
        if recv.ends_with(')') {
            return match self.call_target(fi, caller, recv, depth) {
                // A call of a type yields that type (a Go conversion `Meters(2)`, a class
                // called by name).
                Some(t) if !self.def(t).kind.is_callable() => {
                    let d = self.def(t);
                    if is_typeish(d.kind)
                        || (self.rules(t.0).named_types_have_methods && d.kind == Kind::TypeAlias)
                    {
                        Typed::Def(t)
                    } else {
                        Typed::Unknown
                    }
                }
                // A return type that is the callee's generic parameter (`fn get<T: Tr>() ->
                // T`) is a value of its bounds.
                Some(t) => self.returns_of(t).map_or(Typed::Unknown, |r| {
                    match self.generic_bounds(t.0, Some(t.1), &r) {
                        Some((bf, bs)) => self.bound_type(bf, &bs),
                        None => self.classify_depth(t.0, &r, 1),
                    }
                }),
                None => Typed::Unknown,
            };
        }
        if recv.contains(['(', '[', ' ', '<']) {
            return Typed::Unknown;
        }
        let segs: Vec<&str> = recv.split('.').collect();
        // The head: `self`/`this` (the owner type), or a binding in scope.
        let (mut ty, rest): (Typed, &[&str]) = match segs[0] {
            "self" | "this" if segs.len() > 1 => {
                let Some(owner) = self.enclosing_type(fi, caller) else {
                    return Typed::Unknown;
                };
                // Fields assigned in the owner's methods (`self.x = Foo()`).
                let f = &self.files[fi as usize];
                let assigned = format!("{}.{}", segs[0], segs[1]);
                let _ = f;
                let types: Vec<&str> = self
                    .typed_by(fi, &assigned)
                    .filter(|b| {
                        b.name == assigned
                            && b.scope
                                .is_some_and(|s| self.enclosing_type(fi, Some(s)) == Some(owner))
                    })
                    .map(|b| b.type_name.as_str())
                    .collect();
                if types.is_empty() {
                    (Typed::Repo(owner.to_string()), &segs[1..])
                } else {
                    (self.unify(fi, types), &segs[2..])
                }
            }
            head => (self.binding_type(fi, caller, head, depth), &segs[1..]),
        };
        for field in rest {
            let def = match ty {
                Typed::Repo(t) => self.resolve_base(fi, &t).map(|(d, _)| d),
                Typed::Def(t) => Some(t),
                Typed::Traits(_) => return Typed::Unknown,
                other => return other,
            };
            let Some(def) = def else {
                return Typed::Unknown;
            };
            ty = match self.generic_field_type(fi, caller, def, field) {
                Some(generic) => generic,
                None => self.field_type_of(def, field),
            };
        }
        ty
    }

    /// What the call written as `call` (`f(x)`, `a.b.m(x)`, ending in its `)`) resolves
    /// to from `caller` in file `fi`, without its arguments' count: `None` when the text is
    /// no such call or the call resolves to nothing.
    pub(super) fn call_target(
        &self,
        fi: u32,
        caller: Option<u32>,
        call: &str,
        depth: u32,
    ) -> Option<DefRef> {
        let inner = call.strip_suffix(')')?;
        let open = matching_open_paren(inner)?;
        let callee = &inner[..open];
        let (qual, name) = match callee.rfind('.') {
            Some(i) => (Some(&callee[..i]), &callee[i + 1..]),
            None => (None, callee),
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '#' || c == '$')
        {
            return None;
        }
        let site = CallSite {
            caller,
            name: name.to_string(),
            receiver: qual.map(str::to_string),
            is_new: false,
            is_path: false,
            is_reference: false,
            args: None,
            arg_types: None,
            line: 0,
            column: 0,
        };
        let target = match qual {
            None => self.resolve_bare(fi, &site),
            Some(q) => self.resolve_qualified_depth(fi, &site, q, depth + 1),
        };
        target.ok().map(|(t, _)| t)
    }

    /// The declared return type of a callable (`Self` → its enclosing type).
    pub(super) fn returns_of(&self, t: DefRef) -> Option<String> {
        let d = self.def(t);
        let r = d.returns()?;
        if r == "Self" {
            let p = self.files[t.0 as usize]
                .definitions
                .get(d.parent? as usize)?;
            return Some(p.name.to_string());
        }
        Some(r.to_string())
    }

    /// The type bound to a plain name in the innermost scope that binds it (locals,
    /// parameters, fields of enclosing classes, the file's top level).
    fn binding_type(&self, fi: u32, caller: Option<u32>, name: &str, depth: u32) -> Typed {
        if !name
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '$')
        {
            return Typed::Unknown;
        }
        let f = &self.files[fi as usize];
        let mut scope = caller;
        loop {
            let _ = f;
            let types: Vec<&str> = self
                .typed_by(fi, name)
                .filter(|b| b.scope == scope && b.name == name)
                .map(|b| b.type_name.as_str())
                .collect();
            // `let s = Self::new()`: the enclosing type.
            if types.contains(&"Self") {
                return match self.enclosing_type(fi, caller) {
                    Some(owner) if types.iter().all(|t| *t == "Self") => self.classify(fi, owner),
                    _ => Typed::Unknown,
                };
            }
            // An alias of a module-level name has no type of its own here.
            if types.iter().any(|t| t.starts_with(ALIAS)) {
                return Typed::Unknown;
            }
            // A name bound to a call's result (`f, err := c.File(p)`): the call's type,
            // when no binding of the name states one (`let b = b.freeze()` shadows a `b`
            // whose type is known).
            let is_call = |t: &&str| t.ends_with(')');
            let mut types = types;
            if types.iter().any(|t| !is_call(t)) {
                types.retain(|t| !is_call(t));
            } else if let [call] = types.as_slice() {
                return self.receiver_type_depth(fi, scope, call, depth + 1);
            }
            if !types.is_empty() {
                if let Some(bounded) = self.generic_binding_type(fi, scope, &types) {
                    return bounded;
                }
                return self.unify(fi, types);
            }
            if self.is_local(fi, scope, name) {
                // A parameter or local without a stated type hides any outer binding.
                return Typed::Unknown;
            }
            match scope {
                // Java: fields a class inherits are in scope in its methods like its own
                // (JLS 8.2 "Class Members").
                Some(s)
                    if self.rules(fi).bare_calls_reach_members
                        && f.definitions[s as usize].kind.is_type_container() =>
                {
                    match self.inherited_field_type((fi, s), name, 0) {
                        Typed::Unknown => scope = f.definitions[s as usize].parent,
                        known => return known,
                    }
                }
                Some(s) => scope = f.definitions[s as usize].parent,
                // C++ `void Mailbox::deliver() { pending_->seal(); }`: a member function
                // defined outside its class sees the class's fields.
                None if self.rules(fi).out_of_class_members => {
                    return match self.enclosing_type(fi, caller) {
                        Some(owner) => self.field_type(fi, owner, name),
                        None => Typed::Unknown,
                    };
                }
                None => return Typed::Unknown,
            }
        }
    }

    /// The declared type of field `field` of type `ty`: a field declaration in the type's
    /// body, a `self.field = ...` / `this.field = ...` assignment in its methods, or a
    /// constructor parameter of that name (TypeScript parameter properties, and the
    /// `self.x = x` idiom).
    fn field_type(&self, fi: u32, ty: &str, field: &str) -> Typed {
        match self.resolve_base(fi, ty) {
            Some((t, _)) => self.field_type_of(t, field),
            None => Typed::Unknown,
        }
    }

    /// [`Ctx::field_type`] of the type definition `t`: its own field, else one it
    /// inherits from a base (each base resolved from the file naming it; depth ≤ 4).
    fn field_type_of(&self, t: DefRef, field: &str) -> Typed {
        match self.own_field_type(t, field) {
            Typed::Unknown => self.inherited_field_type(t, field, 0),
            known => known,
        }
    }

    /// The declared type of a field that type definition `t` inherits from its bases.
    fn inherited_field_type(&self, t: DefRef, field: &str, depth: u32) -> Typed {
        if depth > 4 {
            return Typed::Unknown;
        }
        for b in self.def(t).bases() {
            let Some((bt, _)) = self.resolve_base_ref(t.0, &b.name, b.qualifier.as_deref()) else {
                continue;
            };
            if bt == t {
                continue;
            }
            match self.own_field_type(bt, field) {
                Typed::Unknown => {}
                known => return known,
            }
            match self.inherited_field_type(bt, field, depth + 1) {
                Typed::Unknown => {}
                known => return known,
            }
        }
        Typed::Unknown
    }

    /// The declared type of a field that type definition `t` itself declares or assigns.
    fn own_field_type(&self, t: DefRef, field: &str) -> Typed {
        self.unify(t.0, self.own_field_types(t, field))
    }

    /// The declared types of field `field` of type definition `t`, as written: its own
    /// declarations and assignments, else the constructor parameters of that name.
    pub(super) fn own_field_types(&self, t: DefRef, field: &str) -> Vec<&'a str> {
        let tf = &self.files[t.0 as usize];
        let inside = |s: Option<u32>| {
            let mut cur = s;
            while let Some(i) = cur {
                if i == t.1 {
                    return true;
                }
                cur = tf.definitions[i as usize].parent;
            }
            false
        };
        let self_name = |b: &str| {
            b.strip_prefix("self.")
                .or_else(|| b.strip_prefix("this."))
                .is_some_and(|r| r == field)
        };
        let mut types: Vec<&str> = self
            .typed_by(t.0, field)
            .filter(|b| {
                (b.scope == Some(t.1) && b.name == field) || (inside(b.scope) && self_name(&b.name))
            })
            .map(|b| b.type_name.as_str())
            .collect();
        if types.is_empty() {
            types = self
                .typed_by(t.0, field)
                .filter(|b| {
                    b.name == field
                        && b.scope.is_some_and(|s| {
                            let d = &tf.definitions[s as usize];
                            d.kind == Kind::Constructor && d.parent == Some(t.1)
                        })
                })
                .map(|b| b.type_name.as_str())
                .collect();
        }
        types
    }

    /// One type for a set of bindings of the same name; disagreeing bindings are unknown.
    fn unify(&self, fi: u32, mut types: Vec<&str>) -> Typed {
        types.sort_unstable();
        types.dedup();
        match types.as_slice() {
            [t] => self.classify(fi, t),
            _ => Typed::Unknown,
        }
    }

    /// A repo type, a name defined nowhere in the repo (a library or builtin type), or a
    /// name that is not a type here (a factory function: its return type is unknown).
    pub(super) fn classify(&self, fi: u32, ty: &str) -> Typed {
        self.classify_depth(fi, ty, 0)
    }

    fn classify_depth(&self, fi: u32, ty: &str, depth: u32) -> Typed {
        // A type only a doc comment states is no evidence that the receiver is a library's.
        if let Some(ty) = ty.strip_prefix(DOC_TYPE) {
            return match self.classify_depth(fi, ty, depth) {
                Typed::External => Typed::Unknown,
                known => known,
            };
        }
        // A repo type is resolved here, in the file that names it: the caller asking
        // for its members may be in another file, with another type of that name.
        match self.classify_name(fi, ty, depth) {
            Typed::Repo(name) => match self.resolve_base(fi, &name) {
                Some((t, _)) => Typed::Def(t),
                None => Typed::Repo(name),
            },
            other => other,
        }
    }

    /// [`Ctx::classify_depth`] before a repo type's name is resolved to its definition.
    /// The one type (no `impl` block) named `name` among the files `files` of family
    /// `fam`; `None` for none or several.
    fn type_in_files(&self, fam: &str, name: &str, files: &[u32]) -> Option<DefRef> {
        let mut t = self
            .types
            .refs(&(fam, name))
            .filter(|r| files.contains(&r.0) && self.def(*r).kind != Kind::Impl);
        let first = t.next()?;
        t.next().is_none().then_some(first)
    }

    fn classify_name(&self, fi: u32, ty: &str, depth: u32) -> Typed {
        match self.classify_repo_name(fi, ty, depth) {
            Typed::External
                if self.rules(fi).extensions_of_library_types
                    && self.members.refs(&(self.fam(fi), ty)).next().is_some() =>
            {
                Typed::Extended(ty.to_string())
            }
            t => t,
        }
    }

    fn classify_repo_name(&self, fi: u32, ty: &str, depth: u32) -> Typed {
        let fam = self.fam(fi);
        let rules = self.rules(fi);
        if rules.primitive_types.contains(&ty) {
            return Typed::External;
        }
        // `pkg.Type`: the qualifier's import decides (see `resolve_base_ref`).
        if let Some((q, name)) = ty.rsplit_once('.') {
            let first = q.split('.').next().unwrap_or(q);
            // Rust `dfa::dense::Config` with `use crate::dfa;`: the module path through the
            // `use` (a one-segment qualifier is the import's, below).
            if rules.imports == ImportSystem::CrateModules && q.contains('.') {
                let segs: Vec<&str> = q.split('.').collect();
                if let Some((v, used)) = self.used_module_path(fi, &segs) {
                    if used == segs.len() {
                        return match self.type_in_files(fam, name, &v) {
                            Some(t) => Typed::Def(t),
                            None => Typed::Unknown,
                        };
                    }
                }
            }
            if let Some(imps) = self.local(fi).bindings.get(first) {
                return match self.resolve_base_ref(fi, name, Some(q)) {
                    Some((t, _)) => Typed::Def(t),
                    // A factory of the imported package (`x := store.NewMemory()`): its
                    // declared return type.
                    None if depth == 0 && q == first => {
                        let mut rets: Vec<(u32, String)> = Vec::new();
                        for imp in imps {
                            match self.bind(fi, imp) {
                                Bound::External => return Typed::External,
                                Bound::Module(files) => {
                                    for r in self.top_level_in(&files, name) {
                                        if self.def(r).kind.is_callable() {
                                            rets.extend(self.returns_of(r).map(|t| (r.0, t)));
                                        }
                                    }
                                }
                                _ => {}
                            }
                        }
                        rets.sort();
                        rets.dedup();
                        match rets.as_slice() {
                            [(tf, t)] => self.classify_depth(*tf, t, 1),
                            _ => Typed::Unknown,
                        }
                    }
                    None => {
                        let external = self.local(fi).bindings[first]
                            .iter()
                            .any(|imp| matches!(self.bind(fi, imp), Bound::External));
                        if external {
                            Typed::External
                        } else {
                            Typed::Unknown
                        }
                    }
                };
            }
            // Rust `disk::Conn` (bound as `disk.Conn`): the module path from this file.
            if rules.imports == ImportSystem::CrateModules {
                let segs: Vec<&str> = q.split('.').collect();
                if let Some((Target::Files(v), used)) =
                    self.modules.crate_module(self.files, fi, &segs)
                {
                    if used == segs.len() {
                        if let Some(t) = self.type_in_files(fam, name, &v) {
                            return Typed::Def(t);
                        }
                    }
                }
            }
            // Go qualifies a name only by a package (Go spec, "Qualified identifiers"): an
            // unbound qualifier is a value, and `v.Name` is its field or method, not a type.
            if rules.only_packages_qualify {
                return Typed::Unknown;
            }
            // C++ and C#: a namespace-qualified type (`json::Parser`) keeps its qualifier.
            if rules.qualified_type_names && self.qualified_type(fi, q, name).len() == 1 {
                return Typed::Repo(ty.to_string());
            }
            // `Outer.Inner` (Java's `Connection.Request`, a nested class): the type nested
            // in the qualifier's type, never a same-named type of another scope (the
            // enclosing file's own `Request`).
            if depth < 4 {
                match self.classify_depth(fi, q, depth + 1) {
                    Typed::Def(outer) => {
                        return match self.nested_types(outer, name).as_slice() {
                            [t] => Typed::Def(*t),
                            _ => Typed::Unknown,
                        };
                    }
                    // `Map.Entry`: nested in a library type, so a library type too.
                    Typed::External if !q.contains('.') => return Typed::External,
                    _ => {}
                }
            }
            return self.classify_depth(fi, name, depth);
        }
        // A type imported under another name (`use App\Log\Logger as Log;`, `from m
        // import Foo as F`): the type the import binds.
        if let Some(imps) = self.local(fi).bindings.get(ty) {
            for imp in imps.iter().filter(|i| i.alias.as_deref() == Some(ty)) {
                if let Bound::Defs(d) = self.bind(fi, imp) {
                    let types: Vec<DefRef> = d
                        .into_iter()
                        .filter(|&r| self.def(r).kind.is_type_container())
                        .collect();
                    if let [t] = types.as_slice() {
                        return Typed::Def(*t);
                    }
                }
            }
        }
        // A factory function whose declared return type names a repo type
        // (`func NewMemory() *Memory`, `def make() -> Foo`, `fn new() -> Self`).
        if depth == 0 && !self.types.contains_key(&(fam, ty)) {
            if let Some(r) = self.factory_return(fam, ty) {
                return self.classify_depth(fi, &r, 1);
            }
        }
        let repo_named = self
            .types
            .get(&(fam, ty))
            .is_some_and(|v| v.iter().any(|&r| self.def(r).kind != Kind::Module));
        // An import alias of a repo type (`import { Cache as Store }`, JSDoc's `@typedef
        // {import("./c").Cache} Store`) names a type no definition is named after.
        if !repo_named && self.local(fi).bindings.contains_key(ty) {
            if let Some((t, _)) = self.resolve_base(fi, ty) {
                return Typed::Def(t);
            }
        }
        if repo_named {
            Typed::Repo(ty.to_string())
        } else if rules.predeclared_types.contains(&ty) {
            // `Err error`: `e.Err.Error()` is the interface's method, no repo type's.
            Typed::External
        } else if self.by_name.contains_key(&(fam, ty))
            || ty.chars().next().is_some_and(char::is_lowercase)
        {
            // A function's name (`x = make()`: its return type is unknown), or a lowercase
            // builtin whose methods we cannot list.
            Typed::Unknown
        } else {
            Typed::External
        }
    }

    /// The one return type that every callable named `name` (family `fam`) declares
    /// (`Self` read as its type), `None` when none or several. The same for every file,
    /// so it is worked out once per name: a name such as `new` has thousands of
    /// definitions, and listing their return types at every `let x = new()`-like binding
    /// was a third of the Rust tree's resolution CPU (`perf`).
    fn factory_return(&self, fam: &str, name: &str) -> Option<Arc<str>> {
        let key = (fam.to_string(), name.to_string());
        if let Some(r) = self.factory.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return r;
        }
        let mut rets: Vec<&str> = self
            .by_name
            .get(&(fam, name))
            .into_iter()
            .flatten()
            .filter(|&&r| self.def(r).kind.is_callable())
            .filter_map(|&r| {
                let d = self.def(r);
                let ret = d.returns()?;
                if ret == "Self" {
                    let f = &self.files[r.0 as usize];
                    return Some(&*f.definitions[d.parent? as usize].name);
                }
                Some(ret)
            })
            .collect();
        rets.sort_unstable();
        rets.dedup();
        let found = match rets.as_slice() {
            [r] => Some(Arc::from(*r)),
            _ => None,
        };
        if let Ok(mut m) = self.factory.lock() {
            m.insert(key, found.clone());
        }
        found
    }

    pub(super) fn is_constructible(&self, fi: u32, ty: &str) -> bool {
        self.types
            .get(&(self.fam(fi), ty))
            .is_some_and(|v| v.iter().any(|&r| self.def(r).kind.is_constructible()))
    }
}

#[cfg(test)]
mod tests {
    use super::is_string_literal;

    #[test]
    fn a_string_literal_receiver_is_one_literal_whole() {
        for lit in [r#""abc""#, r#""""#, r#""a \"b\" c""#, r#""x\\""#] {
            assert!(is_string_literal(lit), "{lit}");
        }
        for not in [r#""abc".trim()"#, r#""a" + "b""#, "abc", r#"""#, r#""x\""#] {
            assert!(!is_string_literal(not), "{not}");
        }
    }
}
