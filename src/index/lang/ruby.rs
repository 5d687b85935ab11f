//! Ruby: classes and modules nest into `::` names (`Shop::Billing::Invoice::finalize`),
//! `def self.x` and `class << self` methods belong to their class, `require` and
//! `require_relative` load files, constants resolve by name through the nesting, and
//! the rules of Ruby's implicit `self`, `@ivars`, `Foo.new`, mixins, RSpec and minitest
//! files and script guards.

use tree_sitter::Node;

use super::{
    Dispatch, ExtractionRules, FileEntry, ImpactRules, ImportSystem, LanguageSpec, LocalShadowing,
    MainRule, NamePattern, NewCalls, ResolutionRules, TestCode,
};
use crate::index::facts::Import;

/// minitest's and RSpec's file names (`test_*.rb`, `*_test.rb`, `*_spec.rb`).
const TEST_FILES: &[NamePattern] = &[
    NamePattern::PrefixSuffix("test_", ".rb"),
    NamePattern::Suffix("_test.rb"),
    NamePattern::Suffix("_spec.rb"),
];

pub(super) const SPEC: LanguageSpec = LanguageSpec {
    name: "ruby",
    extensions: &["rb", "rake", "gemspec", "ru"],
    file_names: &["Rakefile", "Gemfile", "Guardfile", "Vagrantfile"],
    interpreters: &["ruby", "jruby", "truffleruby"],
    grammar: Some(|| tree_sitter_ruby::LANGUAGE.into()),
    tags: include_str!("../../../queries/ruby/tags.scm"),
    highlights: &[tree_sitter_ruby::HIGHLIGHTS_QUERY],
    separator: "::",
    comment_kinds: &["comment"],
    // RDoc and YARD read every `#` comment right above a definition.
    doc_prefixes: &[],
    constructor_names: &["initialize"],
    expand_import: Some(expand_require),
    extraction: ExtractionRules {
        modules_hold_methods: true,
        ..ExtractionRules::DEFAULT
    },
    resolution: ResolutionRules {
        // `require` loads a file whose constants and methods every later line sees.
        imports: ImportSystem::Includes,
        // `Foo.new(..)` runs `initialize`.
        new_calls: NewCalls::OnlyDeclaredConstructor,
        // `Shop::Util.run`: the constant path, read as `Shop.Util`.
        member_access_separators: &["::"],
        // `Shop::Util.run`: the type the constant path names; a constant that names
        // none of the repository's (`JSON.parse`) is a library's.
        qualified_type_names: true,
        unknown_paths_external: true,
        nesting_scopes_constants: true,
        constructor_method: Some("new"),
        instance_variable_sigil: Some('@'),
        // A bare call in a method is a call on `self`: a method of the class, its
        // superclasses and the modules it includes.
        bare_calls_reach_members: true,
        // A name assigned anywhere in a method is a local of the whole method, so a bare
        // `result` after `result = ..` reads the variable.
        local_shadowing: LocalShadowing::WholeFunction,
        // No guess for a method called on a value of unknown type: methods that
        // `attr_accessor`, `Struct.new` or `define_method` make are no definitions, so
        // the repo's only `def` of a name is often another class's (`env.value`,
        // `tzinfo.name` on real code).
        classes_are_values: true,
        // Kernel and Module methods every object and class body has: a bare call of one is
        // Ruby's own, whatever the repository defines.
        globals: &[
            "puts",
            "print",
            "p",
            "pp",
            "require",
            "require_relative",
            "load",
            "raise",
            "fail",
            "format",
            "sprintf",
            "printf",
            "loop",
            "lambda",
            "proc",
            "catch",
            "throw",
            "sleep",
            "rand",
            "srand",
            "exit",
            "abort",
            "at_exit",
            "binding",
            "block_given?",
            "caller",
            "eval",
            "instance_eval",
            "class_eval",
            "module_eval",
            "instance_variable_get",
            "instance_variable_set",
            "send",
            "__send__",
            "public_send",
            "respond_to?",
            "method",
            "define_method",
            "attr_accessor",
            "attr_reader",
            "attr_writer",
            "include",
            "extend",
            "prepend",
            "private",
            "public",
            "protected",
            "module_function",
            "private_constant",
            "freeze",
            "frozen?",
            "dup",
            "clone",
            "tap",
            "then",
            "yield_self",
            "is_a?",
            "kind_of?",
            "instance_of?",
            "nil?",
            "Integer",
            "Float",
            "String",
            "Array",
            "Hash",
            "Rational",
            "Complex",
            "gets",
            "warn",
            "system",
            "spawn",
            "open",
            "select",
        ],
        // Core classes' methods: called on a value of unknown type they are the core's,
        // never guessed to be the repo's only method of that name.
        platform_methods: &[
            "each",
            "each_with_index",
            "each_with_object",
            "map",
            "flat_map",
            "select",
            "reject",
            "filter",
            "filter_map",
            "find",
            "detect",
            "inject",
            "reduce",
            "sum",
            "count",
            "min",
            "max",
            "min_by",
            "max_by",
            "sort",
            "sort_by",
            "group_by",
            "partition",
            "zip",
            "uniq",
            "compact",
            "flatten",
            "first",
            "last",
            "take",
            "drop",
            "include?",
            "empty?",
            "any?",
            "all?",
            "none?",
            "size",
            "length",
            "keys",
            "values",
            "key?",
            "fetch",
            "dig",
            "merge",
            "merge!",
            "delete",
            "push",
            "pop",
            "shift",
            "unshift",
            "concat",
            "join",
            "split",
            "strip",
            "chomp",
            "gsub",
            "sub",
            "start_with?",
            "end_with?",
            "downcase",
            "upcase",
            "to_s",
            "to_sym",
            "to_i",
            "to_f",
            "to_a",
            "to_h",
            "to_proc",
            "inspect",
            "call",
            "freeze",
            "dup",
            "tap",
            "then",
            "is_a?",
            "nil?",
            "respond_to?",
            "send",
            "public_send",
            "hash",
            "eql?",
            "equal?",
            "close",
            "read",
            "write",
            "puts",
            "new",
            "class",
            "singleton_class",
            "superclass",
            "ancestors",
            "object_id",
            "instance_variables",
            "define_singleton_method",
            "extend",
            "instance_variable_get",
        ],
        test_files: TEST_FILES,
        ..ResolutionRules::DEFAULT
    },
    impact: ImpactRules {
        test_files: TEST_FILES,
        // minitest runs the `test_*` methods of a `Minitest::Test` subclass.
        test_code: TestCode::NamePrefixes {
            callables: "test_",
            classes: "Test",
        },
        main: MainRule {
            function: None,
            package: None,
            method: None,
        },
        // A script's body runs under `if __FILE__ == $0` (or `$PROGRAM_NAME`).
        file_entry: FileEntry::GuardLine(&[
            "if__FILE__==$0",
            "if$0==__FILE__",
            "if__FILE__==$PROGRAM_NAME",
            "if$PROGRAM_NAME==__FILE__",
        ]),
        dispatch: Dispatch::DuckTyping,
        // Hooks Ruby calls itself (`method_missing`, `respond_to_missing?`, `inherited`,
        // `included`, `to_s`, `<=>`).
        implicit_names: &[
            NamePattern::Exact("method_missing"),
            NamePattern::Exact("respond_to_missing?"),
            NamePattern::Exact("inherited"),
            NamePattern::Exact("included"),
            NamePattern::Exact("extended"),
            NamePattern::Exact("to_s"),
            NamePattern::Exact("<=>"),
            NamePattern::Exact("each"),
        ],
        ..ImpactRules::DEFAULT
    },
    ..LanguageSpec::DEFAULT
};

/// The file a `require`, `require_relative` or `load` call names, as a glob import of
/// it: `require_relative 'lib/x'` is `./lib/x.rb` next to the requiring file, `require
/// 'shop/cart'` is `shop/cart.rb` on the load path (found as an `#include` is: the
/// repository root, else the only file whose path ends so: `lib/shop/cart.rb`). A path
/// computed at run time has no import.
fn expand_require(stmt: Node<'_>, src: &[u8], line: u32, out: &mut Vec<Import>) {
    let Some(method) = stmt.child_by_field_name("method") else {
        return;
    };
    let Some(arg) = stmt
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
    else {
        return;
    };
    if arg.kind() != "string" || arg.named_child_count() != 1 {
        return;
    }
    let Some(path) = arg
        .named_child(0)
        .filter(|c| c.kind() == "string_content")
        .and_then(|c| c.utf8_text(src).ok())
    else {
        return;
    };
    let relative = method.utf8_text(src).ok() == Some("require_relative");
    let file = if path.ends_with(".rb") {
        path.to_string()
    } else {
        format!("{path}.rb")
    };
    let module = if relative && !file.starts_with('.') {
        format!("./{file}")
    } else {
        file
    };
    out.push(Import {
        module,
        name: Some("*".to_string()),
        alias: None,
        line,
    });
}
