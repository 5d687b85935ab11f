//! Overloads of one parameter count told apart by the arguments' types, where the
//! language's spec reads both (Java: [`CallSite::arg_types`] and
//! [`DefDetails::params`](crate::index::facts::DefDetails::params)). The rules are Java's
//! (JLS 15.12.2): a candidate some argument cannot be passed to is dropped; of those left,
//! the ones applicable without boxing come first (phase 1 before phase 2), and the most
//! specific one is chosen. Nothing is guessed: where the candidates differ at an argument
//! whose type is unknown, or no single one is most specific, they all stay (`ambiguous`).

use super::types::Typed;
use super::{Bound, Ctx, DefRef};
use crate::index::facts::{CallSite, Kind};
use crate::index::graph::Tier;

/// What an argument or a parameter type is, as far as the rules below need.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ty {
    /// A primitive type (`int`, `boolean`, ...).
    Prim(&'static str),
    /// `java.lang.String` (final: its only supertypes are [`STRING_SUPERTYPES`]).
    Str,
    /// The `null` literal.
    Null,
    /// `Object`.
    Object,
    /// A type defined in the repo.
    Repo(DefRef),
    /// A type defined outside the repo (or a type variable), by name.
    Ext(String),
    /// An array type, by its written name (`Node[]`).
    Array(String),
    /// Not known.
    Unknown,
}

const PRIMITIVES: &[&str] = &[
    "boolean", "byte", "short", "char", "int", "long", "float", "double",
];

/// The supertypes of `String` besides `Object` (its declaration in `java.lang`).
const STRING_SUPERTYPES: &[&str] = &[
    "CharSequence",
    "Comparable",
    "Serializable",
    "Constable",
    "ConstantDesc",
];

/// The box of each primitive (JLS 5.1.7).
const BOXES: &[(&str, &str)] = &[
    ("boolean", "Boolean"),
    ("byte", "Byte"),
    ("short", "Short"),
    ("char", "Character"),
    ("int", "Integer"),
    ("long", "Long"),
    ("float", "Float"),
    ("double", "Double"),
];

/// The supertypes of the boxes besides `Object`.
const BOX_SUPERTYPES: &[&str] = &["Number", "Comparable", "Serializable", "Constable"];

/// Primitive widening (JLS 5.1.2): `from` converts to `to` without a cast.
fn widens(from: &str, to: &str) -> bool {
    let order = |t: &str| match t {
        "byte" => Some(0),
        "short" | "char" => Some(1),
        "int" => Some(2),
        "long" => Some(3),
        "float" => Some(4),
        "double" => Some(5),
        _ => None,
    };
    if from == to {
        return true;
    }
    match (order(from), order(to)) {
        // `char` widens to `int` and up, never to `short`; `byte` and `short` never to `char`.
        (Some(a), Some(b)) => a < b && to != "char" && !(from == "char" && to == "short"),
        _ => false,
    }
}

/// A type name that is probably a type variable (`T`, `K`, `E2`): short and capitals.
fn type_variable_like(n: &str) -> bool {
    n.len() <= 2 && n.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

/// How an argument fits a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// Same type.
    Exact,
    /// By subtyping or primitive widening (phase 1).
    Sub,
    /// Only by boxing or unboxing (phase 2).
    Boxing,
    /// The types say nothing (an unknown or outside type on either side).
    Maybe,
    /// Cannot be passed.
    No,
}

impl<'a> Ctx<'a> {
    /// `v` (overloads of one parameter count) narrowed by the types of `c`'s arguments,
    /// `fi` the calling file; `v` itself when the types do not decide.
    pub(super) fn by_arg_types(&self, fi: u32, c: &CallSite, v: Vec<DefRef>) -> Vec<DefRef> {
        let Some(hints) = c.arg_types.as_deref().filter(|_| !v.is_empty()) else {
            return v;
        };
        if v.iter()
            .any(|&r| self.def(r).param_types().len() != hints.len())
        {
            return v;
        }
        if let [only] = v.as_slice() {
            // The one candidate of the nearest type cannot take the arguments: the target
            // is an overload it inherits, which the candidates do not hold. (Arguments
            // that are calls are not resolved for this check.)
            let params = self.def(*only).param_types();
            let cannot = hints.iter().zip(params).any(|(h, p)| {
                !h.ends_with(')')
                    && self.fit(&self.arg_ty(fi, c, h), &self.param_ty(only.0, p)) == Fit::No
            });
            if cannot && !self.all_overloads(&v, &c.name, hints.len()) {
                return Vec::new();
            }
            return v;
        }
        if !self.all_overloads(&v, &c.name, hints.len()) {
            return v;
        }
        // Only where the candidates' parameter types differ does an argument's type
        // matter (elsewhere it fits all of them or none), so only there is it worked out.
        let differ_at = |k: usize| {
            let first = &self.def(v[0]).param_types()[k];
            v.iter().any(|&r| self.def(r).param_types()[k] != *first)
        };
        let args: Vec<Ty> = hints
            .iter()
            .enumerate()
            .map(|(k, h)| {
                if differ_at(k) {
                    self.arg_ty(fi, c, h)
                } else {
                    Ty::Unknown
                }
            })
            .collect();
        let params: Vec<Vec<Ty>> = v
            .iter()
            .map(|&r| {
                self.def(r)
                    .param_types()
                    .iter()
                    .map(|p| self.param_ty(r.0, p))
                    .collect()
            })
            .collect();
        let fits: Vec<Vec<Fit>> = params
            .iter()
            .map(|ps| args.iter().zip(ps).map(|(a, p)| self.fit(a, p)).collect())
            .collect();
        let mut left: Vec<usize> = (0..v.len())
            .filter(|&i| !fits[i].contains(&Fit::No))
            .collect();
        if left.is_empty() {
            return v;
        }
        if left.len() > 1 {
            // The positions where the candidates left differ; there the argument's type
            // must be known.
            let differ: Vec<usize> = (0..args.len())
                .filter(|&k| {
                    let first = &self.def(v[left[0]]).param_types()[k];
                    left.iter()
                        .any(|&i| self.def(v[i]).param_types()[k] != *first)
                })
                .collect();
            if differ.iter().any(|&k| args[k] == Ty::Unknown) {
                return left.iter().map(|&i| v[i]).collect();
            }
            // A candidate declaring exactly the arguments' static types where they differ
            // is applicable in phase 1 and more specific than any other applicable one.
            let exact: Vec<usize> = left
                .iter()
                .copied()
                .filter(|&i| differ.iter().all(|&k| fits[i][k] == Fit::Exact))
                .collect();
            if let [one] = exact.as_slice() {
                return vec![v[*one]];
            }
            if differ
                .iter()
                .any(|&k| fits_have(&fits, &left, k, Fit::Maybe))
            {
                return left.iter().map(|&i| v[i]).collect();
            }
            // Phase 1 (no boxing) before phase 2.
            let strict: Vec<usize> = left
                .iter()
                .copied()
                .filter(|&i| !fits[i].contains(&Fit::Boxing))
                .collect();
            if !strict.is_empty() {
                left = strict;
            }
            // The most specific: its parameter types are subtypes of every other's.
            let best: Vec<usize> = left
                .iter()
                .copied()
                .filter(|&i| {
                    left.iter().all(|&j| {
                        i == j
                            || params[i]
                                .iter()
                                .zip(&params[j])
                                .all(|(a, b)| self.at_least_as_specific(a, b))
                    })
                })
                .collect();
            if let [one] = best.as_slice() {
                left = vec![*one];
            }
        }
        left.iter().map(|&i| v[i]).collect()
    }

    /// Whether `v` holds every method named `name` with `n` parameters that the types
    /// declaring `v` inherit: the candidates are found in the nearest type that declares
    /// the name, while Java chooses among the inherited overloads too (JLS 8.4.9).
    fn all_overloads(&self, v: &[DefRef], name: &str, n: usize) -> bool {
        let mut stack: Vec<(DefRef, u32)> = Vec::new();
        for &r in v {
            if let Some(p) = self.def(r).parent {
                stack.push(((r.0, p), 0));
            }
        }
        let mut seen: Vec<DefRef> = Vec::new();
        while let Some((t, depth)) = stack.pop() {
            if depth > 8 || seen.contains(&t) {
                continue;
            }
            seen.push(t);
            // A base's method that a candidate overrides (the same parameter types) is
            // that candidate, not another overload.
            let overridden = |d: &crate::index::facts::Definition| {
                v.iter()
                    .any(|&r| self.def(r).param_types() == d.param_types())
            };
            let td = self.def(t);
            let missing = self.members.refs(&(self.fam(t.0), &*td.name)).any(|r| {
                let d = self.def(r);
                r.0 == t.0
                    && d.parent == Some(t.1)
                    && &*d.name == name
                    && d.kind.is_callable()
                    && d.arity.is_none_or(|a| a as usize == n)
                    && !v.contains(&r)
                    && (d.param_types().is_empty() || !overridden(d))
            });
            if missing {
                return false;
            }
            for b in self.def(t).bases() {
                if let Some((bt, _)) = self.resolve_base_ref(t.0, &b.name, b.qualifier.as_deref()) {
                    stack.push((bt, depth + 1));
                }
            }
        }
        true
    }

    /// An argument hint ([`CallSite::arg_types`]) read in the calling file.
    fn arg_ty(&self, fi: u32, c: &CallSite, hint: &str) -> Ty {
        if hint.is_empty() {
            return Ty::Unknown;
        }
        if hint == "null" {
            return Ty::Null;
        }
        if hint == "this" {
            return self
                .enclosing_type_def(fi, c.caller)
                .map_or(Ty::Unknown, Ty::Repo);
        }
        // `Feature.UNWRAP_ROOT_VALUE`: a constant of that type when the type is an enum.
        if let Some(ty) = hint.strip_prefix('^') {
            return match self.type_ty(fi, ty) {
                Ty::Repo(d) if self.def(d).kind == Kind::Enum => Ty::Repo(d),
                _ => Ty::Unknown,
            };
        }
        // A call's result: the declared return type of what it resolves to, read in the
        // file declaring it.
        if hint.ends_with(')') {
            return match self.call_target(fi, c.caller, hint, 1) {
                Some(t) if self.def(t).kind.is_callable() => match self.returns_of(t) {
                    Some(r) if !r.starts_with(crate::index::facts::DOC_TYPE) => {
                        self.type_ty(t.0, &r)
                    }
                    _ => Ty::Unknown,
                },
                _ => Ty::Unknown,
            };
        }
        let ty = match hint.strip_prefix('=') {
            Some(name) => match self.declared_type(fi, c.caller, name) {
                Some(t) => t,
                None => return Ty::Unknown,
            },
            None => hint,
        };
        self.type_ty(fi, ty)
    }

    /// A parameter type written in file `fi`.
    fn param_ty(&self, fi: u32, p: &str) -> Ty {
        self.type_ty(fi, p)
    }

    /// A type name as written in file `fi`.
    fn type_ty(&self, fi: u32, t: &str) -> Ty {
        if let Some(p) = PRIMITIVES.iter().find(|p| **p == t) {
            return Ty::Prim(p);
        }
        match t {
            "String" => return Ty::Str,
            "Object" => return Ty::Object,
            _ => {}
        }
        if t.ends_with("[]") {
            return Ty::Array(t.to_string());
        }
        // `Outer.Inner`, `pkg.Type`: the qualifier decides.
        if t.contains('.') {
            return match self.classify(fi, t) {
                Typed::Def(d) => Ty::Repo(d),
                Typed::External | Typed::Extended(_) => Ty::Ext(t.to_string()),
                Typed::Repo(_) | Typed::Traits(_) | Typed::Unknown => Ty::Unknown,
            };
        }
        // The file's import of the name decides; then its own, same-package and glob
        // imported types. A type found only by its name being unique in the repo may be
        // a same-named outside one: unknown.
        if let Some(imps) = self.local(fi).bindings.get(t) {
            for imp in imps {
                match self.bind(fi, imp) {
                    Bound::External => return Ty::Ext(t.to_string()),
                    Bound::Defs(d) if d.len() == 1 => return Ty::Repo(d[0]),
                    _ => {}
                }
            }
        }
        match self.resolve_base(fi, t) {
            Some((d, tier)) if tier != Tier::UniqueName => Ty::Repo(d),
            _ if type_variable_like(t) || BOXES.iter().any(|(_, b)| *b == t) => {
                Ty::Ext(t.to_string())
            }
            Some(_) => Ty::Unknown,
            None if self.types.contains_key(&(self.fam(fi), t)) => Ty::Unknown,
            None => Ty::Ext(t.to_string()),
        }
    }

    /// The declared type of a plain name in the innermost scope binding it (a local, a
    /// parameter, a field of an enclosing class), as written.
    fn declared_type(&self, fi: u32, caller: Option<u32>, name: &str) -> Option<&'a str> {
        let f = &self.files[fi as usize];
        let mut scope = caller;
        loop {
            let mut types = self
                .typed_by(fi, name)
                .filter(|b| b.scope == scope && b.name == name)
                .map(|b| b.type_name.as_str());
            if let Some(t) = types.next() {
                return types.all(|u| u == t).then_some(t);
            }
            if self.is_local(fi, scope, name) {
                return None;
            }
            scope = f.definitions[scope? as usize].parent;
            scope?;
        }
    }

    /// How an argument of type `a` fits a parameter of type `p`.
    fn fit(&self, a: &Ty, p: &Ty) -> Fit {
        use Ty::*;
        match (a, p) {
            (Unknown, _) | (_, Unknown) => Fit::Maybe,
            (Null, Prim(_)) => Fit::No,
            (Null, _) => Fit::Sub,
            (Prim(x), Prim(y)) if x == y => Fit::Exact,
            (Prim(x), Prim(y)) if widens(x, y) => Fit::Sub,
            (Prim(_), Prim(_)) => Fit::No,
            (Prim(_), Object) => Fit::Boxing,
            (Prim(x), Ext(n)) => {
                let own_box = BOXES.iter().any(|(pr, b)| pr == x && b == n);
                if own_box || BOX_SUPERTYPES.contains(&n.as_str()) || type_variable_like(n) {
                    Fit::Boxing
                } else {
                    Fit::No
                }
            }
            (Prim(_), _) => Fit::No,
            (Str, Str) => Fit::Exact,
            (Str, Object) => Fit::Sub,
            (Str, Ext(n)) if STRING_SUPERTYPES.contains(&n.as_str()) || type_variable_like(n) => {
                Fit::Sub
            }
            (Str, _) => Fit::No,
            (Repo(x), Repo(y)) if x == y => Fit::Exact,
            (Repo(x), Repo(y)) => {
                if self.is_subtype(*x, *y, 0) {
                    Fit::Sub
                } else {
                    Fit::No
                }
            }
            (Repo(_), Object) => Fit::Sub,
            // A repo type may implement an outside interface.
            (Repo(_), Ext(n)) if BOXES.iter().all(|(_, b)| b != n) => Fit::Maybe,
            (Repo(_), _) => Fit::No,
            (Ext(n), Prim(p)) => {
                if BOXES.iter().any(|(pr, b)| pr == p && b == n) {
                    Fit::Boxing
                } else if type_variable_like(n) {
                    Fit::Maybe
                } else {
                    Fit::No
                }
            }
            (Ext(n), Ext(m)) if n == m => Fit::Exact,
            (Ext(_), Ext(_)) => Fit::Maybe,
            (Ext(_), Object) => Fit::Sub,
            // An outside type is never a repo type's subtype, nor `String`'s (final).
            (Ext(n), Str | Repo(_) | Array(_)) if !type_variable_like(n) => Fit::No,
            (Ext(_), _) => Fit::Maybe,
            (Array(x), Array(y)) if x == y => Fit::Exact,
            // Arrays of primitives convert to no other array type (JLS 5.1.9 covers
            // reference arrays only).
            (Array(x), Array(y)) if primitive_array(x) || primitive_array(y) => Fit::No,
            (Array(_), Array(_)) => Fit::Maybe,
            (Array(_), Object) => Fit::Sub,
            (Array(_), Ext(n)) if type_variable_like(n) => Fit::Maybe,
            (Array(_), _) => Fit::No,
            (Object, Object) => Fit::Exact,
            // Only a type variable takes an `Object` without a cast.
            (Object, Ext(n)) if type_variable_like(n) => Fit::Maybe,
            (Object, _) => Fit::No,
        }
    }

    /// Whether repo type `t` has `u` among its bases, transitively (depth ≤ 8).
    fn is_subtype(&self, t: DefRef, u: DefRef, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        self.def(t).bases().iter().any(|b| {
            match self.resolve_base_ref(t.0, &b.name, b.qualifier.as_deref()) {
                Some((bt, _)) if bt == u => true,
                Some((bt, _)) if bt != t => self.is_subtype(bt, u, depth + 1),
                _ => false,
            }
        })
    }

    /// Whether parameter type `a` is at least as specific as `b` (JLS 15.12.2.5: `a` is a
    /// subtype of `b`, or widens to it).
    fn at_least_as_specific(&self, a: &Ty, b: &Ty) -> bool {
        use Ty::*;
        match (a, b) {
            _ if a == b => true,
            (Prim(x), Prim(y)) => widens(x, y),
            (Prim(_), _) | (_, Prim(_)) => false,
            (_, Object) => true,
            (Str, Ext(n)) => STRING_SUPERTYPES.contains(&n.as_str()),
            (Repo(x), Repo(y)) => self.is_subtype(*x, *y, 0),
            _ => false,
        }
    }
}

/// Whether an array type's element type is a primitive (`int[]`, not `int[][]`).
fn primitive_array(t: &str) -> bool {
    t.strip_suffix("[]")
        .is_some_and(|e| PRIMITIVES.contains(&e))
}

/// Whether some candidate of `left` fits argument `k` only as [`Fit::Maybe`] (`f`).
fn fits_have(fits: &[Vec<Fit>], left: &[usize], k: usize, f: Fit) -> bool {
    left.iter().any(|&i| fits[i][k] == f)
}
