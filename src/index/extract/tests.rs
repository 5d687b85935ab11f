//! Unit tests of extraction: facts of small sources per language, name and text helpers.

use super::nodes::{split_type_name, squash};
use super::*;
use crate::index::facts::{Definition, Kind};

/// `squash`'s copy-as-is path gives what splitting and joining gives, whitespace of
/// every kind included (a vertical tab between tokens is collapsed like a space).
#[test]
fn squash_collapses_every_kind_of_whitespace() {
    let slow = |s: &str| cap_chars(&s.split_whitespace().collect::<Vec<_>>().join(" "), 200);
    let long = "x".repeat(250);
    for s in [
        "self.items",
        "a b",
        "a  b",
        " a",
        "a ",
        "a.\x0Bb",
        "\x0Bfoo",
        "a\tb",
        "a\nb",
        "a\x0Cb",
        "a\rb",
        "a\u{a0}b",
        "a\u{3000}b",
        "é b",
        "",
        " ",
        long.as_str(),
    ] {
        assert_eq!(squash(s), slow(s), "{s:?}");
    }
    assert_eq!(squash("a.\x0Bb"), "a. b");
}

fn facts(path: &str, text: &str) -> FileFacts {
    facts_for_test(path, text)
}

/// Items in item-level `cfg_*! { }` blocks, nested too and inside an `impl`, are
/// indexed at their own lines and columns; other item macros are left alone.
#[test]
fn rust_items_inside_cfg_blocks_are_indexed_in_place() {
    let src = "cfg_net! {\n    pub struct TcpStream { fd: u32 }\n    impl TcpStream {\n        pub fn connect() -> TcpStream { helper() }\n        cfg_unix! {\n            pub fn raw(&self) -> u32 { self.fd }\n        }\n    }\n}\nlazy_static! {\n    static ref X: u32 = make();\n}\nfn helper() -> TcpStream { TcpStream::connect() }\n";
    let f = facts_for_test("src/lib.rs", src);
    let at = |q: &str| {
        let d = f
            .definitions
            .iter()
            .find(|d| &*d.qualified_name == q)
            .unwrap_or_else(|| panic!("{q} missing: {:?}", f.definitions));
        (d.kind, d.start_line, d.end_line, d.signature.clone())
    };
    assert_eq!(
        at("TcpStream::connect"),
        (
            Kind::Method,
            4,
            4,
            "pub fn connect() -> TcpStream { helper() }".into()
        )
    );
    assert_eq!(at("TcpStream::raw").1, 6);
    assert_eq!(at("TcpStream").0, Kind::Struct);
    assert_eq!(at("helper").1, 13);
    assert!(!f.definitions.iter().any(|d| &*d.name == "X"));
    // `cfg_if!` has its own syntax: left alone.
    let g = facts_for_test(
        "src/lib.rs",
        "cfg_if! {\n    if #[cfg(unix)] {\n        fn a() {}\n    }\n}\n",
    );
    assert!(g.definitions.is_empty(), "{:?}", g.definitions);
    // Nor a block that is not items (tokio's `cfg_metrics_variant!`): what follows it
    // keeps its place in the impl.
    let h = facts_for_test(
        "src/lib.rs",
        "struct S;\nimpl S {\n    cfg_variant! {\n        stable: { fn v(&self) {} },\n        unstable: { fn v(&self) {} }\n    }\n    pub fn after(&self) { self.v(); }\n}\nfn last() {}\n",
    );
    let after = h.definitions.iter().find(|d| &*d.name == "after").unwrap();
    assert_eq!(
        (after.kind, &*after.qualified_name),
        (Kind::Method, "S::after")
    );
    assert!(h.definitions.iter().any(|d| &*d.name == "last"));
    let call = f.calls.iter().find(|c| c.name == "helper").unwrap();
    assert_eq!((call.line, call.column), (4, 41));
}

#[test]
fn type_names_drop_references_lifetimes_and_generics() {
    let split = |s: &str| split_type_name(s);
    assert_eq!(split("&'a mut Ser"), ("Ser".into(), None));
    assert_eq!(split("&'a [T]"), ("[T]".into(), None));
    assert_eq!(split("&'static str"), ("str".into(), None));
    assert_eq!(split("&mut Foo"), ("Foo".into(), None));
    assert_eq!(split("*const Foo"), ("Foo".into(), None));
    assert_eq!(split("&'a dyn Write"), ("Write".into(), None));
    assert_eq!(
        split("crate::a::Foo<'a, T>"),
        ("Foo".into(), Some("crate::a".into()))
    );
    assert_eq!(split("pkg.Base[T]"), ("Base".into(), Some("pkg".into())));
    assert_eq!(split("*Node"), ("Node".into(), None));
}

fn def<'a>(f: &'a FileFacts, id: &str) -> &'a Definition {
    f.definitions
        .iter()
        .find(|d| &*d.id == id)
        .unwrap_or_else(|| panic!("no {id} in {:#?}", f.definitions))
}

#[test]
fn rust_definitions_docs_and_kinds() {
    let src = "/// Adds.\n/// Twice.\n#[inline]\npub fn add(a: u32) -> u32 { a }\n\n// plain comment\nfn plain() {}\n\nstruct Calc;\nimpl Calc {\n    /** Block doc. */\n    fn add(&self) { add(1); self.add(); }\n}\nimpl std::fmt::Display for Calc {\n    fn fmt(&self) {}\n}\n";
    let f = facts("src/math.rs", src);
    let add = def(&f, "src/math.rs::add");
    assert_eq!(
        (add.kind, add.start_line, add.end_line),
        (Kind::Function, 4, 4)
    );
    assert_eq!(add.doc(), Some("Adds.\nTwice."));
    assert_eq!(&*add.qualified_name, "math::add");
    assert_eq!(add.signature, "pub fn add(a: u32) -> u32 { a }");
    assert_eq!(
        def(&f, "src/math.rs::plain").doc(),
        None,
        "a plain // comment is not documentation"
    );
    assert_eq!(def(&f, "src/math.rs::Calc#2").kind, Kind::Impl);
    let m = def(&f, "src/math.rs::Calc::add");
    assert_eq!((m.kind, m.doc()), (Kind::Method, Some("Block doc.")));
    let display = def(&f, "src/math.rs::Calc#3");
    assert_eq!(display.bases()[0].name, "Display");
    assert!(display.bases()[0].implements);
    assert_eq!(def(&f, "src/math.rs::Calc::fmt").kind, Kind::Method);
    let calls: Vec<(&str, Option<&str>, u32, u32)> = f
        .calls
        .iter()
        .map(|c| (c.name.as_str(), c.receiver.as_deref(), c.line, c.column))
        .collect();
    assert_eq!(
        calls,
        vec![("add", None, 12, 21), ("add", Some("self"), 12, 34)]
    );
    let caller = f.calls[0]
        .caller
        .map(|i| f.definitions[i as usize].id.as_ref());
    assert_eq!(caller, Some("src/math.rs::Calc::add"));
}

#[test]
fn python_untyped_locals_are_bound_and_a_typed_capture_wins() {
    let src = "def run(a, b=1, *rest, **kw):\n    x = Repo()\n    y, z = pair()\n    for item in rest:\n        pass\n    n: int = 0\n";
    let f = facts("app/jobs.py", src);
    let mut got: Vec<(&str, &str)> = f
        .bindings
        .iter()
        .map(|b| (b.name.as_str(), b.type_name.as_str()))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("a", ""),
            ("b", ""),
            ("item", ""),
            ("kw", ""),
            ("n", "int"),
            ("rest", ""),
            ("x", "Repo"),
            ("y", ""),
            ("z", "")
        ]
    );
    let run = f
        .definitions
        .iter()
        .position(|d| &*d.name == "run")
        .unwrap() as u32;
    assert!(f.bindings.iter().all(|b| b.scope == Some(run)));
}

#[test]
fn python_docstrings_constructors_and_lambdas() {
    let src = "class Ledger(Base):\n    \"\"\"Books.\n\n    More.\n    \"\"\"\n    def __init__(self, db):\n        self.db = db\n\n    def settle(self):\n        return list(map(lambda x: helper(x), []))\n";
    let f = facts("app/service.py", src);
    let c = def(&f, "app/service.py::Ledger");
    assert_eq!((c.kind, c.doc()), (Kind::Class, Some("Books.\n\nMore.")));
    assert_eq!(c.bases()[0].name, "Base");
    assert_eq!(&*c.qualified_name, "app.service.Ledger");
    assert_eq!(
        def(&f, "app/service.py::Ledger.__init__").kind,
        Kind::Constructor
    );
    let helper = f.calls.iter().find(|c| c.name == "helper").unwrap();
    assert_eq!(
        &*f.definitions[helper.caller.unwrap() as usize].id,
        "app/service.py::Ledger.settle"
    );
}

#[test]
fn javascript_jsdoc_on_exports_and_imports() {
    let src = "import a, { b as c } from './x';\nconst d = require('./y');\n/** Renders. */\nexport default function render() { return c(); }\nexport const f = () => new Thing();\n";
    let f = facts("src/r.js", src);
    assert_eq!(def(&f, "src/r.js::render").doc(), Some("Renders."));
    assert_eq!(f.default_export.as_deref(), Some("render"));
    let imports: Vec<(&str, Option<&str>, Option<&str>)> = f
        .imports
        .iter()
        .map(|i| (i.module.as_str(), i.name.as_deref(), i.alias.as_deref()))
        .collect();
    assert_eq!(
        imports,
        vec![
            ("./x", Some("default"), Some("a")),
            ("./x", Some("b"), Some("c")),
            ("./y", Some("default"), Some("d"))
        ]
    );
    let new = f.calls.iter().find(|c| c.name == "Thing").unwrap();
    assert!(new.is_new);
    assert_eq!(
        &*f.definitions[new.caller.unwrap() as usize].id,
        "src/r.js::f"
    );
}

#[test]
fn go_methods_and_receivers() {
    let src = "package store\n\n// Memory keeps items.\ntype Memory struct{ Base }\n\n// Len counts.\nfunc (m *Memory) Len() int { return m.size() }\n";
    let f = facts("store/memory.go", src);
    let len = def(&f, "store/memory.go::Memory.Len");
    assert_eq!(
        (len.kind, len.doc(), len.self_name()),
        (Kind::Method, Some("Len counts."), Some("m"))
    );
    assert_eq!(&*len.qualified_name, "store.Memory.Len");
    assert_eq!(def(&f, "store/memory.go::Memory").bases()[0].name, "Base");
}

#[test]
fn duplicate_ids_get_suffixes_in_source_order() {
    let f = facts("a.py", "def f():\n    pass\n\ndef f():\n    pass\n");
    let ids: Vec<&str> = f.definitions.iter().map(|d| &*d.id).collect();
    assert_eq!(ids, vec!["a.py::f", "a.py::f#2"]);
}

#[test]
fn php_namespaces_qualify_and_receivers_keep_their_sigils() {
    let src = "<?php\nnamespace App\\Models;\n\nuse App\\Util\\Helper as H;\n\n/** A user. */\nclass User extends Model implements \\JsonSerializable\n{\n    use Greets;\n    private Repo $repo;\n    public function __construct() { parent::__construct(); }\n    public function save(H $h): void { $this->repo->put(); static::boot(); $h->run(); }\n}\nfunction helper() {}\n";
    let f = facts("src/Models/User.php", src);
    let user = def(&f, "src/Models/User.php::User");
    assert_eq!(&*user.qualified_name, "App.Models.User");
    assert_eq!(user.doc(), Some("A user."));
    let bases: Vec<(&str, bool)> = user
        .bases()
        .iter()
        .map(|b| (b.name.as_str(), b.implements))
        .collect();
    assert!(bases.contains(&("Model", false)) && bases.contains(&("Greets", false)));
    assert!(bases.contains(&("JsonSerializable", true)));
    assert_eq!(
        def(&f, "src/Models/User.php::User.__construct").kind,
        Kind::Constructor
    );
    assert_eq!(def(&f, "src/Models/User.php::helper").kind, Kind::Function);
    let calls: Vec<(&str, Option<&str>)> = f
        .calls
        .iter()
        .map(|c| (c.name.as_str(), c.receiver.as_deref()))
        .collect();
    assert!(calls.contains(&("__construct", Some("parent"))));
    assert!(calls.contains(&("put", Some("$this->repo"))));
    assert!(calls.contains(&("boot", Some("static"))));
    assert_eq!(
        (f.imports[0].module.as_str(), f.imports[0].name.as_deref()),
        ("App.Util", Some("Helper"))
    );
    assert_eq!(f.imports[0].alias.as_deref(), Some("H"));
}

#[test]
fn ruby_nesting_singleton_methods_and_mixins() {
    let src = "require_relative 'lib/base'\n\nmodule Shop\n  # An invoice.\n  class Invoice < Base::Record\n    include Comparable\n    attr_accessor :total\n    def initialize(total)\n      @repo = Repo.new\n    end\n    def self.build = new(1)\n    def finalize\n      helper\n      @repo.find(1)\n    end\n  end\nend\n";
    let f = facts("lib/shop/invoice.rb", src);
    let inv = def(&f, "lib/shop/invoice.rb::Shop::Invoice");
    assert_eq!((inv.kind, inv.doc()), (Kind::Class, Some("An invoice.")));
    let bases: Vec<&str> = inv.bases().iter().map(|b| b.name.as_str()).collect();
    assert!(
        bases.contains(&"Record") && bases.contains(&"Comparable"),
        "{bases:?}"
    );
    assert_eq!(def(&f, "lib/shop/invoice.rb::Shop").kind, Kind::Module);
    assert_eq!(
        def(&f, "lib/shop/invoice.rb::Shop::Invoice::initialize").kind,
        Kind::Constructor
    );
    assert_eq!(
        def(&f, "lib/shop/invoice.rb::Shop::Invoice::build").kind,
        Kind::Method
    );
    assert!(
        !f.definitions.iter().any(|d| &*d.name == "total"),
        "attr_accessor defines no method of the repository's"
    );
    let calls: Vec<(&str, Option<&str>, bool)> = f
        .calls
        .iter()
        .map(|c| (c.name.as_str(), c.receiver.as_deref(), c.is_new))
        .collect();
    assert!(calls.contains(&("Repo", None, true)), "{calls:?}");
    assert!(calls.contains(&("helper", None, false)));
    assert!(calls.contains(&("find", Some("@repo"), false)));
    assert_eq!(f.imports[0].module, "./lib/base.rb");
}

#[test]
fn kotlin_packages_companions_and_extension_functions() {
    let src = "package okio\n\nimport okio.internal.commonRead as read\n\n/** A buffer. */\nclass Buffer : Source, Cloneable {\n    companion object {\n        fun of(): Buffer = Buffer()\n    }\n    fun size(): Long = 0\n}\n\ninterface Source\n\nfun Buffer.readUtf8(): String { size(); return \"\" }\n";
    let f = facts("okio/src/commonMain/kotlin/okio/Buffer.kt", src);
    let buffer = def(&f, "okio/src/commonMain/kotlin/okio/Buffer.kt::Buffer");
    assert_eq!(
        (&*buffer.qualified_name, buffer.doc()),
        ("okio.Buffer", Some("A buffer."))
    );
    assert!(buffer.bases().iter().all(|b| b.implements));
    assert_eq!(
        def(&f, "okio/src/commonMain/kotlin/okio/Buffer.kt::Buffer.of").kind,
        Kind::Method,
        "a companion object's function is the class's"
    );
    assert_eq!(
        def(&f, "okio/src/commonMain/kotlin/okio/Buffer.kt::Source").kind,
        Kind::Interface
    );
    let ext = def(
        &f,
        "okio/src/commonMain/kotlin/okio/Buffer.kt::Buffer.readUtf8",
    );
    assert_eq!((ext.kind, ext.container()), (Kind::Method, Some("Buffer")));
    assert_eq!(
        (f.imports[0].module.as_str(), f.imports[0].alias.as_deref()),
        ("okio.internal", Some("read"))
    );
}

#[test]
fn swift_types_extensions_and_initializers() {
    let src = "/// A buffer.\nfinal class Buffer: Source, Equatable {\n    init(size: Int) {}\n    func size() -> Int { return 0 }\n}\n\nprotocol Source {}\n\nextension Buffer {\n    func readLine() -> String { size(); return \"\" }\n}\n";
    let f = facts("Sources/IO/Buffer.swift", src);
    let buffer = def(&f, "Sources/IO/Buffer.swift::Buffer");
    assert_eq!(
        (buffer.kind, buffer.doc()),
        (Kind::Class, Some("A buffer."))
    );
    assert_eq!(buffer.bases().len(), 2);
    assert_eq!(
        def(&f, "Sources/IO/Buffer.swift::Buffer.init").kind,
        Kind::Constructor
    );
    assert_eq!(
        def(&f, "Sources/IO/Buffer.swift::Source").kind,
        Kind::Interface
    );
    let ext = def(&f, "Sources/IO/Buffer.swift::Buffer.readLine");
    assert_eq!(
        (ext.kind, ext.container()),
        (Kind::Method, Some("Buffer")),
        "an extension's method is its type's"
    );
}

#[test]
fn scala_packages_objects_and_mixins() {
    let src = "package org.geo\n\ntrait Named\n\n/** A square. */\ncase class Square(side: Double) extends Shape with Named {\n  def area(): Double = side * side\n}\n\nobject Square {\n  def unit(): Square = new Square(1)\n}\n";
    let f = facts("src/main/scala/org/geo/Square.scala", src);
    let square = def(&f, "src/main/scala/org/geo/Square.scala::Square");
    assert_eq!(
        (&*square.qualified_name, square.doc()),
        ("org.geo.Square", Some("A square."))
    );
    assert_eq!(square.bases().len(), 2);
    assert_eq!(
        def(&f, "src/main/scala/org/geo/Square.scala::Named").kind,
        Kind::Interface
    );
    assert_eq!(
        def(&f, "src/main/scala/org/geo/Square.scala::Square.unit").kind,
        Kind::Method,
        "a companion object's def is a member under the name it shares with its class"
    );
}

#[test]
fn dart_classes_mixins_and_constructors() {
    let src = "import 'package:shop/src/cart.dart' as cart;\n\n/// A square.\nclass Square extends Shape with Named implements Sized {\n  Square(this.side);\n  Square.unit() : side = 1;\n  final double side;\n  double area() => side * side;\n}\n\nmixin Named {}\n";
    let f = facts("lib/shapes.dart", src);
    let square = def(&f, "lib/shapes.dart::Square");
    assert_eq!(
        (square.kind, square.doc()),
        (Kind::Class, Some("A square."))
    );
    assert_eq!(square.bases().len(), 3);
    assert_eq!(
        def(&f, "lib/shapes.dart::Square.Square").kind,
        Kind::Constructor
    );
    assert_eq!(def(&f, "lib/shapes.dart::Square.unit").kind, Kind::Method);
    assert_eq!(
        (f.imports[0].module.as_str(), f.imports[0].alias.as_deref()),
        ("lib/src/cart.dart", Some("cart"))
    );
}

#[test]
fn elixir_modules_clauses_and_calls() {
    let src = "# The cart.\ndefmodule Shop.Cart do\n  @moduledoc \"Carts.\"\n  import Shop.Helpers\n  alias Shop.Util, as: U\n\n  def total(items), do: items |> Enum.map(&price/1) |> sum()\n\n  defp sum([]), do: 0\n  defp sum([h | t]) when is_integer(h), do: h + sum(t)\n\n  defmodule Line do\n    def new(item), do: U.round(item)\n  end\nend\n";
    let f = facts("lib/shop/cart.ex", src);
    let cart = def(&f, "lib/shop/cart.ex::Shop.Cart");
    assert_eq!(
        (cart.kind, &*cart.name, &*cart.qualified_name, cart.doc()),
        (Kind::Module, "Cart", "Shop.Cart", Some("The cart."))
    );
    assert_eq!(cart.bases().len(), 1, "`import Shop.Helpers` is a base");
    let sum = def(&f, "lib/shop/cart.ex::Shop.Cart.sum");
    assert_eq!(
        (sum.kind, sum.start_line, sum.end_line),
        (Kind::Method, 9, 10),
        "two clauses, one function"
    );
    assert!(f.definitions.iter().all(|d| !d.id.ends_with("#2")));
    assert_eq!(
        &*def(&f, "lib/shop/cart.ex::Shop.Cart.Line.new").qualified_name,
        "Shop.Cart.Line.new"
    );
    let calls: Vec<(&str, Option<&str>)> = f
        .calls
        .iter()
        .filter(|c| !c.is_reference)
        .map(|c| (c.name.as_str(), c.receiver.as_deref()))
        .collect();
    assert_eq!(
        calls,
        vec![
            ("map", Some("Enum")),
            ("sum", None),
            ("sum", None),
            ("round", Some("U"))
        ],
        "no call of a head, its guard, an attribute or `import`"
    );
    assert!(f.calls.iter().any(|c| c.is_reference && c.name == "price"));
    assert_eq!(
        (f.imports[0].module.as_str(), f.imports[0].alias.as_deref()),
        ("Shop.Util", Some("U"))
    );
}

#[test]
fn zig_containers_file_structs_and_tests() {
    let src = "const std = @import(\"std\");\nconst Stack = @This();\n\nitems: []i32,\n\n/// Makes one.\npub fn init() Stack {\n    return .{ .items = &.{} };\n}\n\npub const Iter = struct {\n    pub fn next(self: *Iter) ?i32 {\n        _ = self;\n        return null;\n    }\n};\n\ntest \"init makes one\" {\n    const s = Stack.init();\n    std.debug.print(\"{any}\", .{s});\n}\n";
    let f = facts("src/Stack.zig", src);
    let stack = def(&f, "src/Stack.zig::Stack");
    assert_eq!(
        (stack.kind, stack.start_line, stack.end_line),
        (Kind::Struct, 1, 21),
        "a file with `@This()` is its struct"
    );
    let init = def(&f, "src/Stack.zig::Stack.init");
    assert_eq!(
        (init.kind, init.doc(), init.returns()),
        (Kind::Method, Some("Makes one."), Some("Stack"))
    );
    assert_eq!(def(&f, "src/Stack.zig::Stack.Iter.next").kind, Kind::Method);
    def(&f, "src/Stack.zig::Stack.init makes one");
    assert_eq!(f.default_export.as_deref(), Some("Stack"));
    let calls: Vec<(&str, Option<&str>)> = f
        .calls
        .iter()
        .map(|c| (c.name.as_str(), c.receiver.as_deref()))
        .collect();
    assert_eq!(
        calls,
        vec![("init", Some("Stack")), ("print", Some("std.debug"))]
    );
}
