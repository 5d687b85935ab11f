//! Resolution rules on small in-memory repos (fed through `RawInput`, no disk).

use codegraph_tui::index::{index_inputs, IndexOptions, RawInput};

fn edges(files: &[(&str, &str)]) -> Vec<(String, String, String, String)> {
    let inputs = files
        .iter()
        .map(|(p, t)| RawInput {
            path: p.to_string(),
            bytes: t.as_bytes().to_vec(),
            language: None,
        })
        .collect();
    let idx = index_inputs(inputs, &IndexOptions::default()).unwrap();
    idx.graph
        .edges()
        .into_iter()
        .filter(|e| e.relation.as_str() != "contains")
        .map(|e| {
            let tier = serde_json::to_value(e.resolution)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string();
            (e.source, e.target, e.relation.as_str().to_string(), tier)
        })
        .collect()
}

fn has(e: &[(String, String, String, String)], s: &str, t: &str, rel: &str) -> bool {
    e.iter().any(|x| x.0 == s && x.1 == t && x.2 == rel)
}

#[test]
fn python_package_reexport_through_init() {
    let e = edges(&[
        ("pkg/__init__.py", "from .core import settle\n"),
        ("pkg/core.py", "def settle():\n    return 1\n"),
        (
            "app.py",
            "from pkg import settle\n\ndef main():\n    settle()\n",
        ),
    ]);
    assert!(
        has(&e, "app.py::main", "pkg/core.py::settle", "calls"),
        "{e:?}"
    );
}

#[test]
fn typescript_export_from_and_star() {
    let e = edges(&[
        ("src/lib/a.ts", "export function alpha() { return 1; }\n"),
        ("src/lib/b.ts", "export function beta() { return 2; }\n"),
        (
            "src/lib/index.ts",
            "export { alpha } from './a';\nexport * from './b';\n",
        ),
        (
            "src/app.ts",
            "import { alpha, beta } from './lib';\nexport function run() { alpha(); beta(); }\n",
        ),
    ]);
    assert!(
        has(&e, "src/app.ts::run", "src/lib/a.ts::alpha", "calls"),
        "{e:?}"
    );
    assert!(
        has(&e, "src/app.ts::run", "src/lib/b.ts::beta", "calls"),
        "{e:?}"
    );
}

#[test]
fn callbacks_are_references_and_variables_are_not() {
    let e = edges(&[(
        "jobs.py",
        "def fetch(url):\n    return url\n\nclass Pool:\n    def fetch_all(self, urls, data):\n        run(self.work, urls)\n        return list(map(fetch, data))\n\n    def work(self):\n        pass\n",
    )]);
    assert!(
        has(
            &e,
            "jobs.py::Pool.fetch_all",
            "jobs.py::fetch",
            "references"
        ),
        "{e:?}"
    );
    assert!(
        has(
            &e,
            "jobs.py::Pool.fetch_all",
            "jobs.py::Pool.work",
            "references"
        ),
        "{e:?}"
    );
    assert!(!e
        .iter()
        .any(|x| x.2 == "references" && x.1.ends_with("data")));
}

#[test]
fn declared_types_pick_the_right_method() {
    let e = edges(&[(
        "shop.ts",
        "class Cart { total() { return 1; } }\nclass Invoice { total() { return 2; } }\nexport function pay(c: Cart) { return c.total(); }\nexport function bill() { const i = new Invoice(); return i.total(); }\n",
    )]);
    assert!(
        has(&e, "shop.ts::pay", "shop.ts::Cart.total", "calls"),
        "{e:?}"
    );
    assert!(!has(&e, "shop.ts::pay", "shop.ts::Invoice.total", "calls"));
    assert!(
        has(&e, "shop.ts::bill", "shop.ts::Invoice.total", "calls"),
        "{e:?}"
    );
}

#[test]
fn library_types_make_calls_external_not_guesses() {
    let idx = index_inputs(
        vec![RawInput {
            path: "a.py".into(),
            bytes: b"class Basket:\n    def append_item(self):\n        pass\n\ndef fill(xs: List):\n    xs.append_item()\n".to_vec(),
            language: None,
        }],
        &IndexOptions::default(),
    )
    .unwrap();
    let u: Vec<_> = idx.graph.all_unresolved().collect();
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].reason.as_str(), "external");
}

#[test]
fn typescript_super_calls_private_members_and_call_results() {
    let e = edges(&[
        ("src/base.ts", "export class Store {\n  constructor(public name: string) {}\n  flush(): void {}\n}\n"),
        (
            "src/cache.ts",
            "import { Store } from './base';\nclass Entry { touch() {} }\nexport class Cache extends Store {\n  #entry: Entry;\n  constructor() { super('c'); }\n  #evict() { this.#entry.touch(); }\n  current(): Entry { return this.#entry; }\n  run() { this.#evict(); this.current().touch(); }\n}\n",
        ),
    ]);
    assert!(
        has(
            &e,
            "src/cache.ts::Cache.constructor",
            "src/base.ts::Store.constructor",
            "calls"
        ),
        "{e:?}"
    );
    assert!(
        has(
            &e,
            "src/cache.ts::Cache.run",
            "src/cache.ts::Cache.#evict",
            "calls"
        ),
        "{e:?}"
    );
    assert!(
        has(
            &e,
            "src/cache.ts::Cache.#evict",
            "src/cache.ts::Entry.touch",
            "calls"
        ),
        "{e:?}"
    );
    assert!(
        has(
            &e,
            "src/cache.ts::Cache.run",
            "src/cache.ts::Entry.touch",
            "calls"
        ),
        "{e:?}"
    );
}
