//! PHP: namespaces as packages (`namespace App\Models;` is the file's module path, so
//! `App.Models.User.save` is a method's qualified name), `use` imports of classes,
//! functions and constants bound like Java's class imports, `require`/`include` naming
//! files, and the rules of PHP's `$this`, `self::`, `static::`, `parent::`, PHPUnit
//! tests and top-level scripts.

use tree_sitter::Node;

use super::{
    Dispatch, ExtractionRules, FileEntry, ImpactRules, ImportSystem, LanguageSpec, NamePattern,
    NewCalls, ResolutionRules, TestCode,
};
use crate::index::facts::Import;

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "php",
    extensions: &["php", "phtml", "php8", "php7", "phps"],
    interpreters: &["php"],
    // The full grammar, text outside `<?php` tags included: templates mix HTML and code.
    grammar: Some(|| tree_sitter_php::LANGUAGE_PHP.into()),
    tags: include_str!("../../../queries/php/tags.scm"),
    highlights: &[tree_sitter_php::HIGHLIGHTS_QUERY],
    comment_kinds: &["comment"],
    doc_prefixes: &["/**"],
    constructor_names: &["__construct"],
    expand_import: Some(expand_import),
    extraction: ExtractionRules {
        declared_package_separator: Some("\\"),
        ..ExtractionRules::DEFAULT
    },
    resolution: ResolutionRules {
        imports: ImportSystem::ClassPackages,
        new_calls: NewCalls::OnlyDeclaredConstructor,
        // `parent::__construct()`, `parent::save()`.
        super_aliases: &["parent"],
        self_aliases: &["static"],
        variable_sigil: Some('$'),
        // `$this->repo->find()`, `Foo::bar()`, `\App\Util\Helper::boot()`.
        member_access_separators: &["->", "::", "\\"],
        // `\App\Other\Config::boot()`: the class the qualified name names.
        qualified_type_names: true,
        // PSR-4 puts one namespace in one folder: its classes and functions are in scope
        // unqualified there (PHP resolves an unqualified class name in the current
        // namespace first).
        same_directory_package: true,
        bare_names_in_package_or_global: true,
        // Parameters and properties are often untyped in PHP code: a method called on such a
        // value may be guessed to be the repo's only method of that name, as for Python.
        guess_untyped_methods: true,
        // Methods of the core's interfaces and classes (`Throwable`, `DateTimeInterface`,
        // `Iterator`, `ArrayAccess`, `Countable`, `JsonSerializable`, PDO): on a value of
        // unknown type they are the core's, never a guess at the repo's only method of
        // that name (`$e->getMessage()` of a caught exception).
        platform_methods: PLATFORM_METHODS,
        test_files: &[NamePattern::Suffix("Test.php")],
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        // PHPUnit's default suffix.
        test_files: &[NamePattern::Suffix("Test.php")],
        // PHPUnit runs public methods named `test*` of a `TestCase`.
        test_code: TestCode::NamePrefixes {
            callables: "test",
            classes: "Test",
        },
        main: super::MainRule {
            function: None,
            package: None,
            method: None,
        },
        // A PHP file's top-level code runs when the file is requested or included.
        file_entry: FileEntry::Always,
        dispatch: Dispatch::DuckTyping,
        // Magic methods the engine calls itself (`__construct`, `__toString`, `__get`).
        implicit_names: &[NamePattern::PrefixSuffix("__", "")],
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// See [`ResolutionRules::platform_methods`] in [`SPEC`].
#[rustfmt::skip]
const PLATFORM_METHODS: &[&str] = &[
    "getMessage", "getCode", "getPrevious", "getFile", "getLine", "getTrace",
    "getTraceAsString", "format", "getTimestamp", "setTimestamp", "getTimezone",
    "setTimezone", "modify", "setDate", "setTime", "diff", "add", "sub", "current", "key",
    "next", "rewind", "valid", "offsetGet", "offsetSet", "offsetExists", "offsetUnset",
    "count", "getIterator", "jsonSerialize", "query", "prepare", "execute", "fetch",
    "fetchAll", "fetchColumn", "bindValue", "bindParam", "beginTransaction", "commit",
    "rollBack", "lastInsertId", "attach", "detach", "contains", "__invoke", "__toString",
];

/// The imports of a `use` declaration or a `require`/`include` expression.
///
/// `use A\B\C;` binds class `C` of namespace `A\B` (module `A.B`, name `C`), `use A\B\C as
/// D;` binds it as `D`, `use function A\f;` and `use const A\X;` bind a function or a
/// constant the same way, and `use A\{B, C\D};` joins the group's prefix with each
/// clause. `require 'lib/x.php'` (and `require_once`, `include`, `include_once`) names a
/// file: the string's text, made relative (`./x.php`) when it has no `/`, so the import
/// system reads it as a path; `__DIR__ . '/x.php'` is the string after `__DIR__`.
fn expand_import(stmt: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let text = |n: Node<'_>| n.utf8_text(src).unwrap_or("");
    match stmt.kind() {
        "namespace_use_declaration" => {
            let mut prefix = String::new();
            let mut cur = stmt.walk();
            for child in stmt.named_children(&mut cur) {
                match child.kind() {
                    "namespace_name" => prefix = dotted(text(child)),
                    "namespace_use_clause" => use_clause(child, &prefix, src, line, out),
                    "namespace_use_group" => {
                        let mut c2 = child.walk();
                        for clause in child.named_children(&mut c2) {
                            if clause.kind() == "namespace_use_clause" {
                                use_clause(clause, &prefix, src, line, out);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        "require_expression"
        | "require_once_expression"
        | "include_expression"
        | "include_once_expression" => {
            let Some(path) = required_path(stmt, src) else {
                return;
            };
            let module = if path.contains('/') {
                path.to_string()
            } else {
                format!("./{path}")
            };
            out.push(Import {
                module,
                name: Some("*".to_string()),
                alias: None,
                line,
            });
        }
        _ => {}
    }
}

/// One clause of a `use` declaration under the group's `prefix` (dotted, maybe empty).
fn use_clause(clause: Node<'_>, prefix: &str, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let text = |n: Node<'_>| n.utf8_text(src).unwrap_or("");
    let alias = clause
        .child_by_field_name("alias")
        .map(|a| text(a).to_string());
    let mut cur = clause.walk();
    let Some(path) = clause
        .named_children(&mut cur)
        .find(|n| matches!(n.kind(), "qualified_name" | "name"))
        .filter(|n| Some(*n) != clause.child_by_field_name("alias"))
    else {
        return;
    };
    let full = match (prefix.is_empty(), dotted(text(path))) {
        (true, p) => p,
        (false, p) => format!("{prefix}.{p}"),
    };
    let (module, name) = match full.rsplit_once('.') {
        Some((m, n)) => (m.to_string(), n.to_string()),
        // `use Foo;`: a class of the global namespace.
        None => (String::new(), full),
    };
    out.push(Import {
        module,
        name: Some(name),
        alias,
        line,
    });
}

/// `A\B\C` (or `\A\B\C`) → `A.B.C`: the package path the module table keys.
fn dotted(name: &str) -> String {
    name.trim_start_matches('\\').replace('\\', ".")
}

/// The file a `require` names: a string literal, or the string concatenated after
/// `__DIR__` / `dirname(__FILE__)` (relative to the requiring file). `None` for a path
/// computed otherwise, which no lookup can follow.
fn required_path<'s>(stmt: Node<'_>, src: &'s [u8]) -> Option<&'s str> {
    let arg = stmt.named_child(0)?;
    let string = match arg.kind() {
        "string" | "encapsed_string" => arg,
        "binary_expression" => arg.child_by_field_name("right")?,
        "parenthesized_expression" => return None,
        _ => return None,
    };
    if !matches!(string.kind(), "string" | "encapsed_string") || string.named_child_count() != 1 {
        return None;
    }
    let content = string.named_child(0)?;
    if content.kind() != "string_content" {
        return None;
    }
    let path = content.utf8_text(src).ok()?;
    let path = path.strip_prefix('/').unwrap_or(path);
    (!path.is_empty()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imports(src: &str) -> Vec<(String, Option<String>, Option<String>)> {
        let out = super::super::expanded_imports(
            tree_sitter_php::LANGUAGE_PHP.into(),
            &[
                "namespace_use_declaration",
                "require_expression",
                "require_once_expression",
                "include_expression",
                "include_once_expression",
            ],
            expand_import,
            src,
        );
        let mut v: Vec<_> = out
            .into_iter()
            .map(|i| (i.module, i.name, i.alias))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn use_and_require_become_imports() {
        let got = imports(
            "<?php\nuse App\\Util\\Helper;\nuse App\\Log\\Logger as Log;\nuse function App\\f;\n\
             use App\\C\\{A, B\\D};\nrequire_once __DIR__ . '/lib/x.php';\ninclude 'y.php';\n\
             require $path;\n",
        );
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            got,
            vec![
                ("./y.php".to_string(), s("*"), None),
                ("App".to_string(), s("f"), None),
                ("App.C".to_string(), s("A"), None),
                ("App.C.B".to_string(), s("D"), None),
                ("App.Log".to_string(), s("Logger"), s("Log")),
                ("App.Util".to_string(), s("Helper"), None),
                ("lib/x.php".to_string(), s("*"), None),
            ]
        );
    }
}
