//! Elixir: modules named by their declaration (`defmodule Shop.Cart`, wherever the file
//! is), `alias` binding a short name to a module, `import` and `use` bringing a module's
//! functions into bare calls, remote calls `Mod.f(..)`, the standard library's modules as
//! external names, and ExUnit tests.

use tree_sitter::Node;

use super::{
    ExtractionRules, FileEntry, ImpactRules, ImportSystem, LanguageSpec, LocalShadowing, MainRule,
    NamePattern, ResolutionRules, TestCode,
};
use crate::index::facts::Import;

/// ExUnit's test files (`mix test` runs `test/**/*_test.exs`).
const TEST_FILES: &[NamePattern] = &[NamePattern::Suffix("_test.exs")];

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "elixir",
    extensions: &["ex", "exs"],
    interpreters: &["elixir"],
    grammar: Some(|| tree_sitter_elixir::LANGUAGE.into()),
    tags: include_str!("../../../queries/elixir/tags.scm"),
    highlights: &[tree_sitter_elixir::HIGHLIGHTS_QUERY],
    comment_kinds: &["comment"],
    // `@doc` and `@moduledoc` are attributes, not comments: a `#` comment right above a
    // definition is the only documentation a comment gives.
    doc_prefixes: &["#"],
    expand_import: Some(expand_alias),
    extraction: ExtractionRules {
        // A module's functions are its members: bare calls in it reach them and the
        // functions of the modules it imports.
        modules_hold_methods: true,
        // `defmodule Shop.Cart` declares `Cart` in `Shop`.
        dotted_module_names: true,
        // `def f(0)` and `def f(n)` are clauses of one function.
        adjacent_clauses_merge: true,
        ..ExtractionRules::DEFAULT
    },
    resolution: ResolutionRules {
        imports: ImportSystem::DeclaredModules,
        // A local call is a function of the enclosing module or of a module it imports
        // (Kernel's otherwise: `globals`).
        bare_calls_reach_members: true,
        // `Shop.Cart.total()` names the module by its full name.
        qualified_type_names: true,
        // `Enum.map`, `Phoenix.Controller.json`, `:ets.new`: a module that is not the
        // repository's is a library's or Erlang's.
        unknown_paths_external: true,
        // `__MODULE__.f()` is a call of the enclosing module's `f`.
        self_aliases: &["__MODULE__"],
        // A variable bound to a function (`fun = &f/1`) is called as `fun.()`, never as
        // `fun()`: a local call always names a function.
        local_shadowing: LocalShadowing::Never,
        // Kernel's functions and macros, imported into every module (Elixir 1.17), and
        // ExUnit's, which `use ExUnit.Case` imports.
        globals: &[
            "apply",
            "raise",
            "reraise",
            "throw",
            "exit",
            "inspect",
            "to_string",
            "is_atom",
            "is_binary",
            "is_bitstring",
            "is_boolean",
            "is_float",
            "is_function",
            "is_integer",
            "is_list",
            "is_map",
            "is_map_key",
            "is_nil",
            "is_number",
            "is_pid",
            "is_port",
            "is_reference",
            "is_tuple",
            "is_struct",
            "is_exception",
            "length",
            "hd",
            "tl",
            "elem",
            "put_elem",
            "tuple_size",
            "map_size",
            "byte_size",
            "bit_size",
            "abs",
            "div",
            "rem",
            "round",
            "trunc",
            "max",
            "min",
            "not",
            "node",
            "self",
            "send",
            "spawn",
            "spawn_link",
            "spawn_monitor",
            "make_ref",
            "binary_part",
            "get_in",
            "put_in",
            "update_in",
            "pop_in",
            "get_and_update_in",
            "struct",
            "struct!",
            "then",
            "tap",
            "dbg",
            "sigil_r",
            "sigil_s",
            "sigil_w",
            "sigil_c",
            "sigil_D",
            "sigil_T",
            "sigil_N",
            "sigil_U",
            "match?",
            "binding",
            "function_exported?",
            "macro_exported?",
            "to_charlist",
            "defined?",
            "assert",
            "refute",
            "assert_raise",
            "assert_receive",
            "assert_received",
            "refute_receive",
            "flunk",
            "catch_error",
            "catch_throw",
            "catch_exit",
            "setup",
            "setup_all",
            "test",
            "describe",
            "doctest",
        ],
        test_files: TEST_FILES,
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: TEST_FILES,
        // ExUnit's blocks: a module whose body calls `test` is a test case.
        test_code: TestCode::BlockCalls(&["test", "describe"]),
        // A release or escript starts at a module's `main/1` or an Application's `start/2`,
        // which the VM calls; `mix run` runs a script's top level.
        main: MainRule {
            function: None,
            package: None,
            method: Some("main"),
        },
        file_entry: FileEntry::Never,
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// `alias A.B` (binds `B`), `alias A.B, as: C` (binds `C`) and `alias A.{B, C}` (binds
/// `B` and `C`, each `A.B`, `A.C`), an alias of `__MODULE__.X` dropped (its module is
/// the enclosing one, which calls reach by nesting). Other calls give nothing.
fn expand_alias(stmt: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let text = |n: Node<'_>| n.utf8_text(src).unwrap_or("");
    let is_alias = stmt
        .child_by_field_name("target")
        .is_some_and(|t| text(t) == "alias");
    let Some(args) = stmt.named_child(1).filter(|_| is_alias) else {
        return;
    };
    let Some(first) = args.named_child(0) else {
        return;
    };
    match first.kind() {
        "alias" => {
            // `as: C` is the first pair of the keyword list after the module.
            let alias = args
                .named_child(1)
                .filter(|k| k.kind() == "keywords")
                .and_then(|k| k.named_child(0))
                .filter(|p| {
                    p.child_by_field_name("key")
                        .is_some_and(|k| text(k).trim_end().trim_end_matches(':') == "as")
                })
                .and_then(|p| p.child_by_field_name("value"))
                .filter(|v| v.kind() == "alias")
                .map(|v| text(v).to_string());
            out.push(Import {
                module: text(first).to_string(),
                name: None,
                alias,
                line,
            });
        }
        "dot" => {
            let (Some(left), Some(right)) = (
                first.child_by_field_name("left"),
                first.child_by_field_name("right"),
            ) else {
                return;
            };
            if left.kind() != "alias" || right.kind() != "tuple" {
                return;
            }
            let mut cur = right.walk();
            for m in right
                .named_children(&mut cur)
                .filter(|m| m.kind() == "alias")
            {
                out.push(Import {
                    module: format!("{}.{}", text(left), text(m)),
                    name: None,
                    alias: None,
                    line,
                });
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_bind_short_names() {
        let src = "defmodule A do\n  alias Shop.Util\n  alias Shop.Cart, as: C\n  alias Shop.{Order, Item}\n  import Shop.Helpers\nend\n";
        let got: Vec<(String, Option<String>)> = super::super::expanded_imports(
            tree_sitter_elixir::LANGUAGE.into(),
            &["call"],
            expand_alias,
            src,
        )
        .into_iter()
        .map(|i| (i.module, i.alias))
        .collect();
        let want = [
            ("Shop.Util", None),
            ("Shop.Cart", Some("C")),
            ("Shop.Order", None),
            ("Shop.Item", None),
        ];
        let want: Vec<(String, Option<String>)> = want
            .iter()
            .map(|(m, a)| (m.to_string(), a.map(str::to_string)))
            .collect();
        assert_eq!(got, want);
    }
}
