//! `dead --json` on small repositories written by the test, in Python and TypeScript:
//! the exact candidates (no callers or references, not a test, entry point, public API,
//! constructor or dunder), the lower bound where an unresolved call of the name exists,
//! `--path` and `--limit`.

use std::path::Path;

use assert_cmd::Command;
use serde_json::{json, Value};

fn cg() -> Command {
    let mut c = Command::cargo_bin("codegraph-tui").unwrap();
    c.env(
        "CODEGRAPH_CONFIG",
        "/nonexistent/codegraph-test-config.toml",
    );
    c.env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
    c.env_remove("GIT_DIR").env_remove("GIT_WORK_TREE");
    c
}

fn dead(root: &Path, args: &[&str]) -> Value {
    let out = cg()
        .arg("-C")
        .arg(root)
        .args(["dead", "--json", "--no-cache"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn write_repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// (id, maybe_used) of each candidate.
fn ids(v: &Value) -> Vec<(String, bool)> {
    v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["maybe_used"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn s(id: &str, maybe: bool) -> (String, bool) {
    (id.to_string(), maybe)
}

#[test]
fn python_dead_and_live_definitions() {
    let dir = write_repo(&[
        ("app/__init__.py", "from .api import serve\n"),
        (
            "app/api.py",
            "def serve():\n    return helper()\n\n\ndef helper():\n    return 1\n\n\n\
             def unused():\n    return 2\n\n\ndef parse_later():\n    return 3\n\n\n\
             class Box:\n    def __init__(self):\n        self.n = 0\n\n    def lid(self):\n        return self.n\n",
        ),
        (
            "main.py",
            "from app.api import serve\n\n\ndef run(thing):\n    return thing.parse_later()\n\n\n\
             if __name__ == \"__main__\":\n    run(serve())\n",
        ),
        (
            "tests/test_api.py",
            "from app.api import helper\n\n\ndef test_helper():\n    assert helper() == 1\n\n\n\
             def fixture_only():\n    return 0\n",
        ),
    ]);
    let v = dead(dir.path(), &[]);
    assert_eq!(v["schema"], "codegraph-tui/dead@1");
    // serve is re-exported by the package, helper called, run called from the script's
    // guard, __init__ called by the runtime, the tests are tests.
    assert_eq!(
        ids(&v),
        [
            s("app/api.py::Box", false),
            s("app/api.py::Box.lid", false),
            s("app/api.py::parse_later", true),
            s("app/api.py::unused", false),
        ]
    );
    assert_eq!(v["total"], 4);
    assert_eq!(v["certain"], 3);
    assert_eq!(v["candidates"][2]["unresolved_calls"], 1);
    assert_eq!(v["candidates"][3]["line"], 9);
    let v = dead(dir.path(), &["--limit", "1"]);
    assert_eq!(ids(&v), [s("app/api.py::Box", false)]);
    assert_eq!(v["truncated"], json!(true));
    assert_eq!(v["total"], 4);
    let v = dead(dir.path(), &["--path", "main.py"]);
    assert_eq!(ids(&v), Vec::<(String, bool)>::new());
}

#[test]
fn typescript_dead_and_live_definitions() {
    let dir = write_repo(&[
        (
            "src/index.ts",
            "export function api(): number {\n  return inner();\n}\n\n\
             function inner(): number {\n  return 1;\n}\n\n\
             function lonely(): number {\n  return 2;\n}\n\n\
             class Hidden {\n  run(): number {\n    return 1;\n  }\n}\n\n\
             export class Shown {\n  go(): number {\n    return 3;\n  }\n}\n",
        ),
        (
            "src/util.ts",
            "import { api } from \"./index\";\n\nexport const twice = () => api() * 2;\n\n\
             function neverCalled(): void {}\n",
        ),
        (
            "src/util.test.ts",
            "import { api } from \"./index\";\n\nfunction helperInTest(): number {\n  return api();\n}\n",
        ),
    ]);
    let v = dead(dir.path(), &[]);
    // api and Shown (and Shown.go) are exported, inner is called, the test file is tests.
    assert_eq!(
        ids(&v),
        [
            s("src/index.ts::Hidden", false),
            s("src/index.ts::Hidden.run", false),
            s("src/index.ts::lonely", false),
            s("src/util.ts::neverCalled", false),
        ]
    );
    let v = dead(dir.path(), &["--path", "src/util"]);
    assert_eq!(ids(&v), [s("src/util.ts::neverCalled", false)]);
}

#[test]
fn text_output_says_which_are_maybe_used() {
    let dir = write_repo(&[(
        "lib.py",
        "def gone():\n    return 1\n\n\ndef run(x):\n    return x.gone()\n",
    )]);
    let out = cg()
        .arg("-C")
        .arg(dir.path())
        .args(["dead", "--no-cache", "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("2 dead-code candidates (1 with no"),
        "{text}"
    );
    assert!(
        text.contains("function lib.py::gone  lib.py:1  maybe used: 1 unresolved call of its name"),
        "{text}"
    );
    assert!(text.contains("function lib.py::run  lib.py:5\n"), "{text}");
}

/// Classes used as values (an argument, a keyword argument, an assignment, a generic
/// instantiated through a subscript) are in use; a framework's hooks (Sphinx's `setup` in
/// `conf.py`, handlers registered by `@app.route` and `@bp.before_request`) are entry
/// points; wrapping decorators (`@functools.cache`) and a `setup` outside `conf.py`
/// register nothing.
#[test]
fn python_classes_as_values_and_framework_hooks_are_not_dead() {
    let dir = write_repo(&[
        (
            "pkg/ctx.py",
            "class Globals:\n    pass\n\n\nclass Provider:\n    pass\n\n\n\
             class Handler:\n    pass\n\n\nclass Attr:\n    def __init__(self, name, get=None):\n        self.name = name\n\n\n\
             class Unused:\n    pass\n",
        ),
        (
            "pkg/app.py",
            "from .ctx import Attr, Globals, Handler, Provider\n\n\n\
             def register(kind):\n    return kind\n\n\n\
             class App:\n    globals_class = Globals\n    testing = Attr[bool](\"TESTING\", get=int)\n\n\
             \x20   def __init__(self):\n        self.provider = build(factory=Provider)\n        register(Handler)\n\n\n\
             def build(factory):\n    return factory()\n",
        ),
        (
            "web/views.py",
            "import functools\n\nfrom flask import Blueprint\n\nbp = Blueprint(\"v\", __name__)\n\n\n\
             @bp.route(\"/\")\ndef index():\n    return \"hi\"\n\n\n\
             @bp.before_app_request\ndef load_user():\n    return None\n\n\n\
             @functools.cache\ndef cached_unused():\n    return 1\n\n\n\
             def setup(app):\n    return app\n",
        ),
        ("docs/conf.py", "project = \"x\"\n\n\ndef setup(app):\n    app.add_role(\"gh\", None)\n"),
    ]);
    let v = dead(dir.path(), &[]);
    let got: Vec<String> = ids(&v).into_iter().map(|(id, _)| id).collect();
    assert_eq!(
        got,
        [
            "pkg/app.py::App",
            "pkg/ctx.py::Unused",
            "web/views.py::cached_unused",
            "web/views.py::setup",
        ],
        "{v:#}"
    );
}

/// Rust: a function used as a struct field's value, a `let` value or an array element is
/// in use; the methods of a trait implementation (`impl Drop for Size`) are the trait's,
/// called through it; an inherent method and a function nothing names stay dead.
#[test]
fn rust_values_in_fields_and_trait_impl_methods_are_not_dead() {
    let dir = write_repo(&[
        (
            "src/main.rs",
            "struct Hooks {\n    free: fn(u8),\n}\n\nfn release(_: u8) {}\n\nfn later(_: u8) {}\n\n\
             fn first(_: u8) {}\n\nfn unused() {}\n\nstruct Size(u8);\n\n\
             impl Drop for Size {\n    fn drop(&mut self) {}\n}\n\n\
             impl Size {\n    fn unused_method(&self) {}\n}\n\n\
             fn main() {\n    let h = Hooks { free: release };\n    let f = later;\n    let all = [first];\n\
             \x20   (h.free)(1);\n    f(2);\n    all[0](3);\n    let _s = Size(1);\n}\n",
        ),
    ]);
    let v = dead(dir.path(), &[]);
    let got: Vec<String> = ids(&v).into_iter().map(|(id, _)| id).collect();
    for live in ["release", "later", "first", "Size::drop", "main"] {
        assert!(
            !got.contains(&format!("src/main.rs::{live}")),
            "{live} listed: {v:#}"
        );
    }
    for dead in ["Size::unused_method", "unused"] {
        assert!(
            got.contains(&format!("src/main.rs::{dead}")),
            "{dead}: {v:#}"
        );
    }
}

/// A type is used when something outside it uses one of its members: a class reached
/// only through its static methods, a nested class only through its constructor. A type
/// nothing touches, and a member nobody calls, stay candidates.
#[test]
fn java_types_used_through_their_members_are_not_dead() {
    let dir = write_repo(&[
        (
            "a/Util.java",
            "package a;\n\nfinal class Util {\n    static int parse(String s) { return 1; }\n\n\
             \x20   static final class Inner {\n        Inner(int x) {}\n    }\n\n\
             \x20   static Inner make() { return new Inner(parse(\"1\")); }\n}\n",
        ),
        (
            "a/Main.java",
            "package a;\n\nclass Main {\n    public static void main(String[] args) {\n\
             \x20       Util.parse(\"x\");\n    }\n}\n",
        ),
        (
            "a/Unused.java",
            "package a;\n\nclass Unused {\n    void m() {}\n}\n",
        ),
    ]);
    let v = dead(dir.path(), &[]);
    assert_eq!(
        ids(&v),
        [
            s("a/Unused.java::Unused", false),
            s("a/Unused.java::Unused.m", false),
            s("a/Util.java::Util.make", false),
        ],
        "{v}"
    );
}
