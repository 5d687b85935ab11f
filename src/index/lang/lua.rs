//! Lua: tables as modules (`local M = {}` holds the `function M.f()` and `M:m()` defined
//! after it, and `return M` is what `require` gives), `require("a.b")` naming `a/b.lua`,
//! and the rules of Lua's `self`, its standard library's globals, busted specs and
//! scripts.

use tree_sitter::Node;

use super::{
    FileEntry, ImpactRules, ImportSystem, LanguageSpec, LocalShadowing, MainRule, NamePattern,
    ResolutionRules, TestCode,
};
use crate::index::facts::Import;

/// busted's and the usual test file names.
const TEST_FILES: &[NamePattern] = &[
    NamePattern::Suffix("_spec.lua"),
    NamePattern::Suffix("_test.lua"),
    NamePattern::PrefixSuffix("test_", ".lua"),
];

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "lua",
    extensions: &["lua"],
    interpreters: &["lua", "luajit"],
    grammar: Some(|| tree_sitter_lua::LANGUAGE.into()),
    tags: include_str!("../../../queries/lua/tags.scm"),
    highlights: &[tree_sitter_lua::HIGHLIGHTS_QUERY],
    comment_kinds: &["comment"],
    // LDoc reads `---` comments.
    doc_prefixes: &["---"],
    expand_import: Some(expand_require),
    resolution: ResolutionRules {
        // `require` loads a file once; the module is the table it returns, bound to the
        // local the call is assigned to.
        imports: ImportSystem::Includes,
        // A local (a parameter, `local f = ..`) is what a later `f()` calls.
        local_shadowing: LocalShadowing::FromBindingLine,
        // `local function f` is a local of its chunk: no other file calls it by name.
        file_local_modifier: Some("local"),
        // The standard library's global functions and tables (Lua 5.1 to 5.4).
        globals: &[
            "print",
            "pairs",
            "ipairs",
            "type",
            "tostring",
            "tonumber",
            "error",
            "assert",
            "pcall",
            "xpcall",
            "select",
            "setmetatable",
            "getmetatable",
            "rawget",
            "rawset",
            "rawequal",
            "rawlen",
            "next",
            "unpack",
            "load",
            "loadstring",
            "loadfile",
            "dofile",
            "require",
            "collectgarbage",
            "module",
            "setfenv",
            "getfenv",
            "string",
            "table",
            "math",
            "os",
            "io",
            "coroutine",
            "utf8",
            "debug",
            "package",
        ],
        test_files: TEST_FILES,
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: TEST_FILES,
        // busted's blocks.
        test_code: TestCode::BlockCalls(&["describe", "it", "insulate", "expose", "pending"]),
        main: MainRule {
            function: None,
            package: None,
            method: None,
        },
        // A script's chunk runs when it is loaded.
        file_entry: FileEntry::Always,
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// `local m = require("a.b")` (or `require "a.b"`, `require 'a.b'`): the file `a/b.lua`
/// (found as an `#include` is: next to the requiring file, at the root, else the only
/// file whose path ends so), whose returned table is bound as `m`. A module named at run
/// time has no import.
fn expand_require(stmt: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let text = |n: Node<'_>| n.utf8_text(src).unwrap_or("");
    let Some(assign) = stmt.named_child(0) else {
        return;
    };
    let (Some(vars), Some(values)) = (assign.named_child(0), assign.named_child(1)) else {
        return;
    };
    let (Some(local), Some(call)) = (vars.named_child(0), values.named_child(0)) else {
        return;
    };
    let Some(arg) = call
        .child_by_field_name("arguments")
        .and_then(|a| {
            if a.kind() == "string" {
                Some(a)
            } else {
                a.named_child(0)
            }
        })
        .filter(|a| a.kind() == "string")
    else {
        return;
    };
    let Some(content) = arg.child_by_field_name("content") else {
        return;
    };
    let name = text(content);
    if name.is_empty() || name.contains(['/', '\\']) {
        return;
    }
    out.push(Import {
        module: format!("{}.lua", name.replace('.', "/")),
        name: Some("default".to_string()),
        alias: Some(text(local).to_string()),
        line,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requires_bind_the_returned_table() {
        let src = "local util = require(\"app.util\")\nlocal json = require 'cjson'\nlocal x = require(name)\n";
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_lua::LANGUAGE.into()).unwrap();
        let tree = p.parse(src, None).unwrap();
        let root = tree.root_node();
        let mut out = Vec::new();
        let mut cur = root.walk();
        for n in root.named_children(&mut cur) {
            let decl = if n.kind() == "variable_declaration" {
                n
            } else {
                continue;
            };
            expand_require(decl, src.as_bytes(), 1, &mut out);
        }
        let got: Vec<(&str, Option<&str>)> = out
            .iter()
            .map(|i| (i.module.as_str(), i.alias.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![("app/util.lua", Some("util")), ("cjson.lua", Some("json"))]
        );
    }
}
