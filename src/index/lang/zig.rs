//! Zig: containers (`const S = struct { .. }`) as namespaces of their functions, a file
//! as the struct `@import("x.zig")` gives, receivers typed by declarations, parameters,
//! fields and what `T.init(..)` returns, the standard library as external, `test` blocks.

use tree_sitter::Node;

use super::{
    ImpactRules, ImportSystem, LanguageSpec, LocalShadowing, NamePattern, ResolutionRules, TestCode,
};
use crate::index::facts::Import;

/// The primitive types (the Zig language reference, "Primitive Types"): a value of one is
/// never of a repo type.
const PRIMITIVE_TYPES: &[&str] = &[
    "i8",
    "u8",
    "i16",
    "u16",
    "i32",
    "u32",
    "i64",
    "u64",
    "i128",
    "u128",
    "isize",
    "usize",
    "c_char",
    "c_short",
    "c_ushort",
    "c_int",
    "c_uint",
    "c_long",
    "c_ulong",
    "c_longlong",
    "c_ulonglong",
    "c_longdouble",
    "f16",
    "f32",
    "f64",
    "f80",
    "f128",
    "bool",
    "anyopaque",
    "void",
    "noreturn",
    "type",
    "anyerror",
    "comptime_int",
    "comptime_float",
    "anytype",
];

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "zig",
    extensions: &["zig"],
    grammar: Some(|| tree_sitter_zig::LANGUAGE.into()),
    tags: include_str!("../../../queries/zig/tags.scm"),
    highlights: &[tree_sitter_zig::HIGHLIGHTS_QUERY],
    comment_kinds: &["comment"],
    // `///` documents the declaration below, `//!` the file.
    doc_prefixes: &["///"],
    expand_import: Some(expand_import),
    resolution: ResolutionRules {
        // `@import("x.zig")` names a file relative to the importing one; a name without
        // `.zig` (`std`, `builtin`, a package of build.zig) is outside the repository.
        imports: ImportSystem::FileSpecifiers,
        predeclared_types: PRIMITIVE_TYPES,
        // A parameter or local is what a later call of its name calls (a function
        // pointer), never a function of that name elsewhere.
        local_shadowing: LocalShadowing::FromBindingLine,
        // A bare call in a container's function is one of the container's declarations
        // first: Zig resolves an identifier through the enclosing containers' scopes.
        bare_calls_reach_members: true,
        test_files: &[NamePattern::Suffix("_test.zig")],
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: &[NamePattern::Suffix("_test.zig")],
        // `test "name" { .. }`: a definition whose first line starts with `test`.
        test_code: TestCode::Annotations(&["test"]),
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// `const x = @import("x.zig")` (binds the file's struct as `x`: the one its `const X =
/// @This();` names, else the file's declarations), `const T = @import("x.zig").T`
/// (binds its `T`) and `usingnamespace @import("x.zig")` (its declarations, as a glob).
/// A name without a `.zig` suffix is a module of the build (`std`, a package): kept as
/// written, outside the repository.
fn expand_import(stmt: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let text = |n: Node<'_>| n.utf8_text(src).unwrap_or("");
    let mut cur = stmt.walk();
    let kids: Vec<Node<'_>> = stmt.named_children(&mut cur).collect();
    let (local, value) = match stmt.kind() {
        "variable_declaration" => match kids.as_slice() {
            [name, value, ..] if name.kind() == "identifier" => (Some(text(*name)), *value),
            _ => return,
        },
        "using_namespace_declaration" => match kids.first() {
            Some(v) => (None, *v),
            None => return,
        },
        _ => return,
    };
    // `const mem = std.mem;`, `const Allocator = std.mem.Allocator;`: `std` and `builtin`
    // are the names every file gives the standard library and the build's options
    // (`@import("std")`, `@import("builtin")`), so what they hold is outside the repo.
    if value.kind() == "field_expression" {
        let mut root = value;
        while let Some(o) = root
            .child_by_field_name("object")
            .filter(|_| root.kind() == "field_expression")
        {
            root = o;
        }
        let (Some(local), Some(member)) = (local, value.child_by_field_name("member")) else {
            return;
        };
        if root.kind() == "identifier" && matches!(text(root), "std" | "builtin") {
            out.push(Import {
                module: text(root).to_string(),
                name: Some(text(member).to_string()),
                alias: (text(member) != local).then(|| local.to_string()),
                line,
            });
            return;
        }
    }
    let (call, member) = match value.kind() {
        "builtin_function" => (value, None),
        "field_expression" => match (
            value.child_by_field_name("object"),
            value.child_by_field_name("member"),
        ) {
            (Some(o), Some(m)) if o.kind() == "builtin_function" => (o, Some(text(m))),
            _ => return,
        },
        _ => return,
    };
    let is_import = call.named_child(0).is_some_and(|b| text(b) == "@import");
    let spec = call
        .named_child(1)
        .and_then(|a| a.named_child(0))
        .filter(|s| s.kind() == "string")
        .and_then(|s| s.named_child(0))
        .map(text);
    let (true, Some(spec)) = (is_import, spec) else {
        return;
    };
    let module = if spec.ends_with(".zig") && !spec.starts_with(['.', '/']) {
        format!("./{spec}")
    } else {
        spec.to_string()
    };
    let (name, alias) = match (local, member) {
        (None, _) => (Some("*".to_string()), None),
        (Some(l), None) => (Some("default".to_string()), Some(l.to_string())),
        (Some(l), Some(m)) => (Some(m.to_string()), (l != m).then(|| l.to_string())),
    };
    out.push(Import {
        module,
        name,
        alias,
        line,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_bind_files_members_and_globs() {
        let src = "const std = @import(\"std\");\nconst util = @import(\"util.zig\");\nconst Stack = @import(\"ds/stack.zig\").Stack;\npub usingnamespace @import(\"../extra.zig\");\nconst x = 1;\nconst mem = std.mem;\nconst Node = Ast.Node;\n";
        let got: Vec<(String, Option<String>, Option<String>)> = super::super::expanded_imports(
            tree_sitter_zig::LANGUAGE.into(),
            &["variable_declaration", "using_namespace_declaration"],
            expand_import,
            src,
        )
        .into_iter()
        .map(|i| (i.module, i.name, i.alias))
        .collect();
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            got,
            vec![
                ("std".to_string(), s("default"), s("std")),
                ("./util.zig".to_string(), s("default"), s("util")),
                ("./ds/stack.zig".to_string(), s("Stack"), None),
                ("../extra.zig".to_string(), s("*"), None),
                ("std".to_string(), s("mem"), None),
            ]
        );
    }
}
