//! Generic type parameters and trait-typed values: a receiver whose type is a parameter
//! bounded by traits (`fn f<R: Read>(r: &R)`, `where R: Read`, a field `read: R` of a
//! struct generic over `R`) or an `impl Trait` / `dyn Trait` value calls a method one of
//! those traits declares. rustc resolves such a call to the trait's method, never to one
//! implementing type's (the Reference, "Method call expressions"); a same-named repo type
//! (an `impl<A: Automaton> Automaton for &A` block is named `A`) is not the parameter.

use super::types::Typed;
use super::{Ctx, DefRef};
use crate::index::facts::{Kind, BOUND};

impl<'a> Ctx<'a> {
    /// The bounds of the generic parameter `name` in scope at `scope` of file `fi` (the
    /// innermost definition declaring it: a function's parameters hide its `impl`'s), with
    /// the file they are written in; `None` when no enclosing definition declares `name`.
    pub(super) fn generic_bounds(
        &self,
        fi: u32,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(u32, Vec<&'a str>)> {
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let f = &self.files[fi as usize];
        let mut cur = scope;
        while let Some(s) = cur {
            let mut found = false;
            let mut bounds: Vec<&'a str> = Vec::new();
            for b in self
                .typed_by(fi, name)
                .filter(|b| b.scope == Some(s) && b.name == name)
            {
                if let Some(list) = b.type_name.strip_prefix(BOUND) {
                    found = true;
                    bounds.extend(list.split('+').filter(|t| !t.is_empty()));
                }
            }
            if found {
                bounds.sort_unstable();
                bounds.dedup();
                return Some((fi, bounds));
            }
            cur = f.definitions.get(s as usize)?.parent;
        }
        None
    }

    /// The type of a value bounded by `bounds` (type names written in file `fi`): the one
    /// repo trait among them, several repo traits, or outside the repo when every bound is
    /// a library's (`T: Clone`: no repo method answers `t.m()`).
    pub(super) fn bound_type(&self, fi: u32, bounds: &[&str]) -> Typed {
        let mut traits: Vec<DefRef> = Vec::new();
        let mut unknown = false;
        for b in bounds {
            match self.classify(fi, b) {
                Typed::Def(t) if self.def(t).kind == Kind::Trait => traits.push(t),
                Typed::External => {}
                _ => unknown = true,
            }
        }
        traits.sort_unstable();
        traits.dedup();
        match traits.as_slice() {
            [] if unknown => Typed::Unknown,
            [] => Typed::External,
            [t] => Typed::Def(*t),
            _ => Typed::Traits(traits),
        }
    }

    /// A value's type from the bindings of one name in one scope (`types`, as written):
    /// `Some` when they say it is trait-bounded (an `impl Trait` value, or a type that is a
    /// generic parameter in scope at `scope`), `None` to type it as a plain type name.
    pub(super) fn generic_binding_type(
        &self,
        fi: u32,
        scope: Option<u32>,
        types: &[&str],
    ) -> Option<Typed> {
        if types.iter().any(|t| t.starts_with(BOUND)) {
            if !types.iter().all(|t| t.starts_with(BOUND)) {
                return Some(Typed::Unknown);
            }
            let mut bounds: Vec<&str> = types
                .iter()
                .flat_map(|t| t[BOUND.len_utf8()..].split('+'))
                .filter(|t| !t.is_empty())
                .collect();
            bounds.sort_unstable();
            bounds.dedup();
            return Some(self.bound_type(fi, &bounds));
        }
        match types {
            [t] => self
                .generic_bounds(fi, scope, t)
                .map(|(bf, bs)| self.bound_type(bf, &bs)),
            _ => None,
        }
    }

    /// The type of field `field` of type definition `t` when the field's declared type is
    /// one of `t`'s generic parameters (`struct Deserializer<R> { read: R }`): the bounds
    /// the calling code puts on that parameter (`impl<R: Read> Deserializer<R>`, from
    /// `caller` in file `fi`), else those of `t`'s own declaration; `None` when the field
    /// is no generic parameter.
    pub(super) fn generic_field_type(
        &self,
        fi: u32,
        caller: Option<u32>,
        t: DefRef,
        field: &str,
    ) -> Option<Typed> {
        let types = self.own_field_types(t, field);
        let [ty] = types.as_slice() else {
            return None;
        };
        let (own_file, own) = self.generic_bounds(t.0, Some(t.1), ty)?;
        Some(match self.generic_bounds(fi, caller, ty) {
            Some((bf, bs)) => self.bound_type(bf, &bs),
            None => self.bound_type(own_file, &own),
        })
    }

    /// Members named `name` of any of the traits `traits` (a value bounded by several).
    pub(super) fn members_of_traits(
        &self,
        traits: &[DefRef],
        name: &str,
        args: Option<u32>,
    ) -> Vec<DefRef> {
        let mut out: Vec<DefRef> = traits
            .iter()
            .flat_map(|&t| self.members_of_def_fit(t, name, 0, args))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}
