//! The small Python project the MCP tests run on, shared by tests/mcp.rs and
//! tests/mcp_python.rs.

use std::path::Path;

/// Writes the project (a git repository with one commit):
///
/// ```text
/// app.py          main -> make_order
/// shop/orders.py  make_order -> Order (constructor), Order.label; Order.label -> slugify
/// shop/util.py    slugify, helper
/// shop/other.py   helper (a second one: "helper" is ambiguous)
/// ```
pub fn project(root: &Path) {
    let files = [
        (
            "shop/util.py",
            "def slugify(text):\n    return text.lower().replace(\" \", \"-\")\n\n\n\
             def helper():\n    return 1\n",
        ),
        (
            "shop/orders.py",
            "from shop.util import slugify\n\n\nclass Order:\n    def label(self, name):\n        \
             return slugify(name)\n\n\ndef make_order(name):\n    order = Order()\n    \
             return order.label(name)\n",
        ),
        ("shop/other.py", "def helper():\n    return 2\n"),
        (
            "app.py",
            "from shop.orders import make_order\n\n\ndef main():\n    \
             return make_order(\"first order\")\n",
        ),
    ];
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    super::common::backdate(root);
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(
        root,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "start",
        ],
    );
}

fn git(root: &Path, args: &[&str]) {
    let s = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .status()
        .expect("git runs");
    assert!(s.success(), "git {args:?}");
}
