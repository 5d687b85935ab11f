//! [`CodeGraph::lookup`]: what a SYMBOL argument may be (docs/contracts.md#symbol-arguments) and how it is
//! found from the name indexes the graph keeps, the package roots of `go.mod` and
//! `Cargo.toml` files ([`PackageRoots`](crate::index::project::PackageRoots)) included.

use super::{CodeGraph, Node};
use crate::index::facts::Kind;
use crate::index::lang::{self, PackageManifest};

impl CodeGraph {
    /// Looks up SYMBOL as docs/contracts.md#symbol-arguments says: an exact node id, else an exact qualified
    /// name, else (when SYMBOL contains `.` or `::`) every qualified name that ends with
    /// SYMBOL on a segment boundary (`Flask.dispatch_request` finds
    /// `flask.app.Flask.dispatch_request`, `Config::new` finds `config::Config::new`,
    /// `plumbing.NewHash` finds Go's `src/github.com/go-git/go-git/plumbing.NewHash`),
    /// else an exact bare name; else the same with the separators another language's
    /// users write (`separator_variants`: PHP's `Utils::jsonDecode`, Ruby's
    /// `Rack::Utils.escape`). When none matches, two rules name a definition the way
    /// its language's users do, by what a project file calls its package:
    /// * the crate rule (`lookup_in_crate`): a Rust path that names its crate
    ///   (`tantivy::schema::Schema::builder`, `crate::schema::Schema`), which qualified
    ///   names leave out, is looked up without that first segment among the files of a
    ///   folder named like the crate (`tantivy/` or `tantivy-0.22.1/`; `_` may be written
    ///   `-`) or of the Cargo package of that `[package] name` (`frames::checksum` in
    ///   `crates/wire-frames/` whose `Cargo.toml` names it `frames`);
    /// * the import-path rule (`lookup_go_import`): a Go name qualified by its import path
    ///   (`github.com/go-git/go-git/v5/plumbing.NewHash`), whose module path comes from a
    ///   `go.mod`.
    ///
    /// Returns every match of the first rule that matches (sorted by id); `impl` blocks
    /// are dropped when another kind shares the name. Never a fuzzy match, never a pick
    /// among several. O(log n + matches of the last segment's name), from indices built
    /// with the graph (the package rules add a scan of the package roots per match).
    pub fn lookup(&self, symbol: &str) -> Vec<&Node> {
        let mut found = self.lookup_plain(symbol);
        if found.is_empty() {
            // The separators another language's users write: PHP's `Utils::jsonDecode`
            // and `GuzzleHttp\Utils` for `GuzzleHttp.Utils.jsonDecode`, Ruby's
            // `Rack::Utils.escape` and `Utils#escape` for `Rack::Utils::escape`.
            for v in separator_variants(symbol) {
                found = self.lookup_plain(&v);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        if found.is_empty() {
            if let Some(in_package) = self
                .lookup_in_crate(symbol)
                .or_else(|| self.lookup_go_import(symbol))
            {
                return in_package;
            }
        }
        found
    }

    /// [`lookup`](Self::lookup) without the package rules.
    /// The `impl` blocks of a type: the nodes of kind [`Kind::Impl`] with `ty`'s qualified
    /// name (Rust writes a type's methods in `impl T` and `impl Trait for T` blocks, which
    /// its file contains, not the type), sorted by id. Empty for a language without them.
    pub fn impls_of(&self, ty: &Node) -> Vec<&Node> {
        let mut v: Vec<&Node> = self
            .equal_range(
                &self.by_qualified,
                |n| &n.qualified_name,
                &ty.qualified_name,
            )
            .filter(|n| n.kind == Kind::Impl && n.id != ty.id)
            .collect();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    }

    fn lookup_plain(&self, symbol: &str) -> Vec<&Node> {
        if let Some(n) = self.node(symbol) {
            return vec![n];
        }
        let by_qualified: Vec<&Node> = self
            .equal_range(&self.by_qualified, |n| &n.qualified_name, symbol)
            .collect();
        if !by_qualified.is_empty() {
            return without_shadowed_impls(by_qualified);
        }
        if let Some(last) = last_segment(symbol) {
            if last.is_empty() {
                return Vec::new();
            }
            // A node's bare name is the last segment of its qualified name.
            let by_suffix: Vec<&Node> = self
                .equal_range(&self.by_name, |n| &n.name, last)
                .filter(|n| ends_on_boundary(&n.qualified_name, symbol))
                .collect();
            return without_shadowed_impls(by_suffix);
        }
        without_shadowed_impls(
            self.equal_range(&self.by_name, |n| &n.name, symbol)
                .collect(),
        )
    }

    /// [`lookup`](Self::lookup)'s crate rule: `None` when SYMBOL has no `::` or the rest
    /// of it (looked up once, without this rule) finds nothing in the crate's files. A
    /// file is the crate's when a folder above it is named like the crate, or when its
    /// language's packages are `Cargo.toml` packages ([`PackageManifest::Cargo`], Rust) and
    /// the deepest `Cargo.toml` above it names the crate's package (`-` and `_` alike, as
    /// cargo makes `wire-frames` the crate `wire_frames`).
    fn lookup_in_crate(&self, symbol: &str) -> Option<Vec<&Node>> {
        let (krate, rest) = symbol.split_once("::")?;
        if krate.is_empty() || rest.is_empty() {
            return None;
        }
        let dashed = krate.replace('_', "-");
        // A package folder is the package name, or name-version in a registry; a package
        // name may use `-` where the crate name has `_`.
        let names_crate = |dir: &str| {
            [krate, dashed.as_str()].iter().any(|k| {
                dir == *k
                    || dir
                        .strip_prefix(k)
                        .and_then(|v| v.strip_prefix('-'))
                        .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
            })
        };
        let found: Vec<&Node> = self
            .lookup_plain(rest)
            .into_iter()
            .filter(|n| {
                krate == "crate"
                    || n.file.split('/').rev().skip(1).any(names_crate)
                    || (lang::spec_of(&n.language).packages == PackageManifest::Cargo
                        && self
                            .packages
                            .cargo_package_of(&n.file)
                            .is_some_and(|p| same_crate(p, krate)))
            })
            .collect();
        (!found.is_empty()).then_some(found)
    }

    /// [`lookup`](Self::lookup)'s import-path rule: SYMBOL is `<import path>.<name in the
    /// package>`, the import path starting with the module path of a `go.mod`
    /// (`example.com/tool/pkg.Func`; `example.com/tool.Func` for the package at the
    /// module's root). A Go definition's qualified name starts with its folder instead
    /// (`tool/pkg.Func` when the `go.mod` is in `tool/`): the module path is replaced by
    /// that folder and the result looked up as an exact qualified name among the
    /// definitions of that module (below no deeper `go.mod`) in a language whose packages
    /// `go.mod` names ([`PackageManifest::GoMod`], Go), whose import path must then give
    /// SYMBOL back. Every `go.mod` whose module path starts SYMBOL is tried (nested
    /// modules; two copies of one module stay ambiguous). `None` when nothing matches.
    fn lookup_go_import(&self, symbol: &str) -> Option<Vec<&Node>> {
        let mut found: Vec<&Node> = Vec::new();
        for (module, dir) in self.packages.go_modules() {
            let Some(rest) = symbol.strip_prefix(module) else {
                continue;
            };
            // `/sub/pkg.Name`, or `.Name` in the module's root package.
            let Some(tail) = rest.strip_prefix(['/', '.']) else {
                continue;
            };
            if tail.is_empty() {
                continue;
            }
            let qualified = if dir.is_empty() {
                tail.to_string()
            } else {
                format!("{dir}{rest}")
            };
            found.extend(
                self.equal_range(&self.by_qualified, |n| &n.qualified_name, &qualified)
                    .filter(|n| {
                        lang::spec_of(&n.language).packages == PackageManifest::GoMod
                            && self.packages.go_module_dir_of(&n.file) == Some(dir)
                            && go_import_name(n, module, dir).as_deref() == Some(symbol)
                    }),
            );
        }
        let mut found = without_shadowed_impls(found);
        found.dedup_by(|a, b| a.id == b.id);
        (!found.is_empty()).then_some(found)
    }
}

/// Drops `impl` blocks when another kind shares the name; sorts by id.
fn without_shadowed_impls(mut v: Vec<&Node>) -> Vec<&Node> {
    if v.iter().any(|n| n.kind != Kind::Impl) {
        v.retain(|n| n.kind != Kind::Impl);
    }
    v.sort_by(|a, b| a.id.cmp(&b.id));
    v
}

/// The text after the last `.` or `::` of a qualified SYMBOL; `None` without either.
/// SYMBOL with every separator (`.`, `::`, `\`, `#`) written as `.`, then as `::`, a
/// leading one dropped (PHP's fully qualified `\GuzzleHttp\Utils`); the spellings that
/// differ from SYMBOL, in that order.
fn separator_variants(symbol: &str) -> Vec<String> {
    let s = symbol.trim_start_matches(['\\', '.', '#']);
    let s = s.strip_prefix("::").unwrap_or(s);
    let mut out = Vec::new();
    for sep in [".", "::"] {
        let v = s
            .replace("::", "\u{0}")
            .replace(['\\', '#', '.'], "\u{0}")
            .replace('\u{0}', sep);
        if v != symbol && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

fn last_segment(symbol: &str) -> Option<&str> {
    let dot = symbol.rfind('.').map(|i| i + 1);
    let colons = symbol.rfind("::").map(|i| i + 2);
    dot.max(colons).map(|i| &symbol[i..])
}

/// `qualified` ends with `suffix`, and the suffix starts a segment (the whole name, or
/// right after `.`, `::` or `/`: a Go package is named by its folder path, so
/// `plumbing.NewHash` finds `src/github.com/go-git/go-git/plumbing.NewHash`).
fn ends_on_boundary(qualified: &str, suffix: &str) -> bool {
    match qualified.strip_suffix(suffix) {
        Some(head) => {
            head.is_empty() || head.ends_with('.') || head.ends_with("::") || head.ends_with('/')
        }
        None => false,
    }
}

/// Cargo's crate name for package `package` is `krate` (`wire-frames` is `wire_frames`;
/// either spelling of SYMBOL's first segment is taken).
fn same_crate(package: &str, krate: &str) -> bool {
    package.len() == krate.len()
        && package
            .bytes()
            .zip(krate.bytes())
            .all(|(p, k)| p == k || (matches!(p, b'-' | b'_') && matches!(k, b'-' | b'_')))
}

/// Go node `n`'s name qualified by its import path, for the `go.mod` of `module` in the
/// folder `dir` (`dir/pkg/a.go::Hash.IsZero` → `module/pkg.Hash.IsZero`); `None` when
/// `n` is not below `dir` or its qualified name is not its folder's (docs/contracts.md#node-ids:
/// `<folder>.<in-file name>`, the in-file name alone at the repo root).
fn go_import_name(n: &Node, module: &str, dir: &str) -> Option<String> {
    let folder = n.file.rfind('/').map_or("", |i| &n.file[..i]);
    let in_file = if folder.is_empty() {
        &*n.qualified_name
    } else {
        n.qualified_name.strip_prefix(folder)?.strip_prefix('.')?
    };
    let below = if dir.is_empty() {
        folder
    } else if folder == dir {
        ""
    } else {
        folder.strip_prefix(dir)?.strip_prefix('/')?
    };
    Some(if below.is_empty() {
        format!("{module}.{in_file}")
    } else {
        format!("{module}/{below}.{in_file}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::project::{PackageRoots, ProjectFile};

    /// The package roots of `go.mod` files (module path, folder) and `Cargo.toml` files
    /// (package name, folder).
    fn roots(go: &[(&str, &str)], cargo: &[(&str, &str)]) -> PackageRoots {
        let path = |dir: &str, name: &str| {
            if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            }
        };
        let go = go.iter().map(|&(m, d)| {
            let module = m.to_string();
            (path(d, "go.mod"), ProjectFile::GoMod { module })
        });
        let cargo = cargo.iter().map(|&(p, d)| {
            let package = p.to_string();
            (path(d, "Cargo.toml"), ProjectFile::Cargo { package })
        });
        let projects: Vec<(String, ProjectFile)> = go.chain(cargo).collect();
        PackageRoots::of_projects(projects.iter().map(|(p, f)| (p.as_str(), f)))
    }

    #[test]
    fn other_languages_separators_are_tried_as_dots_and_as_double_colons() {
        assert_eq!(
            separator_variants("Utils::jsonDecode"),
            ["Utils.jsonDecode".to_string()]
        );
        assert_eq!(
            separator_variants("\\GuzzleHttp\\Utils::jsonDecode"),
            [
                "GuzzleHttp.Utils.jsonDecode",
                "GuzzleHttp::Utils::jsonDecode"
            ]
        );
        assert_eq!(
            separator_variants("Rack::Utils.escape"),
            ["Rack.Utils.escape", "Rack::Utils::escape"]
        );
        assert_eq!(
            separator_variants("Utils#escape"),
            ["Utils.escape", "Utils::escape"]
        );
        assert!(separator_variants("plain").is_empty());
    }

    #[test]
    fn last_segment_splits_on_dot_and_double_colon() {
        assert_eq!(
            last_segment("Flask.dispatch_request"),
            Some("dispatch_request")
        );
        assert_eq!(last_segment("a::B.c"), Some("c"));
        assert_eq!(last_segment("a.B::c"), Some("c"));
        assert_eq!(last_segment("Vec::"), Some(""));
        assert_eq!(last_segment("plain"), None);
    }

    #[test]
    fn suffixes_match_on_segment_boundaries_only() {
        let q = "flask.app.Flask.dispatch_request";
        assert!(ends_on_boundary(q, "Flask.dispatch_request"));
        assert!(ends_on_boundary(q, q));
        assert!(!ends_on_boundary(q, "ask.dispatch_request"));
        assert!(ends_on_boundary("config::Config::new", "Config::new"));
        assert!(!ends_on_boundary("config::Config::renew", "Config::new"));
        assert!(!ends_on_boundary("config::MyConfig::new", "Config::new"));
        let go = "src/github.com/go-git/go-git/plumbing.NewHash";
        assert!(ends_on_boundary(go, "plumbing.NewHash"));
        assert!(ends_on_boundary(go, "go-git/plumbing.NewHash"));
        assert!(!ends_on_boundary(go, "bing.NewHash"));
    }

    /// A Rust function node of `file` with qualified name `q`.
    /// The ids `g.lookup(symbol)` gives.
    fn ids_of(g: &CodeGraph, symbol: &str) -> Vec<String> {
        g.lookup(symbol).iter().map(|n| n.id.to_string()).collect()
    }

    fn rust_fn(file: &str, q: &str) -> Node {
        Node {
            id: format!("{file}::{q}").into(),
            kind: Kind::Function,
            name: q.rsplit("::").next().unwrap().into(),
            qualified_name: q.into(),
            file: file.into(),
            start_line: 1,
            end_line: 1,
            language: "rust".into(),
        }
    }

    /// A Rust path with its crate name finds the definition in that crate's folder only.
    #[test]
    fn a_crate_qualified_rust_path_is_found_in_the_crate() {
        let g = CodeGraph::build(
            vec![
                rust_fn(
                    "reg/tantivy-0.22.1/src/schema/schema.rs",
                    "schema::Schema::builder",
                ),
                rust_fn("reg/other_crate/src/schema.rs", "schema::Schema::builder"),
                rust_fn("reg/serde_json-1.0.1/src/de.rs", "de::from_str"),
            ],
            Vec::new(),
            Vec::new(),
        );
        let ids = |s: &str| ids_of(&g, s);
        assert_eq!(
            ids("tantivy::schema::Schema::builder"),
            ["reg/tantivy-0.22.1/src/schema/schema.rs::schema::Schema::builder"]
        );
        assert_eq!(
            ids("other_crate::schema::Schema::builder"),
            ["reg/other_crate/src/schema.rs::schema::Schema::builder"]
        );
        assert_eq!(ids("serde_json::de::from_str").len(), 1);
        assert!(ids("serde::de::from_str").is_empty());
        assert_eq!(ids("crate::schema::Schema::builder").len(), 2);
        assert!(ids("nosuch::schema::Schema::builder").is_empty());
        assert_eq!(ids("schema::Schema::builder").len(), 2);
    }

    /// A Go name qualified by its import path is found through the `go.mod` of its module:
    /// exactly (not a method of a like-named type, not a folder of a nested module), and
    /// two modules of one path stay ambiguous.
    #[test]
    fn a_go_import_path_is_found_through_go_mod() {
        let node = |file: &str, q: &str, kind| Node {
            id: format!(
                "{file}::{}",
                file.rsplit_once('/')
                    .and_then(|(dir, _)| q.strip_prefix(&format!("{dir}.")))
                    .unwrap_or(q)
            )
            .into(),
            kind,
            name: q.rsplit('.').next().unwrap().into(),
            qualified_name: q.into(),
            file: file.into(),
            start_line: 1,
            end_line: 1,
            language: "go".into(),
        };
        let g = CodeGraph::build(
            vec![
                node("src/tool/pkg/a.go", "src/tool/pkg.Func", Kind::Function),
                node(
                    "src/tool/pkg/a.go",
                    "src/tool/pkg.Hash.IsZero",
                    Kind::Method,
                ),
                node("src/tool/main.go", "src/tool.Run", Kind::Function),
                // A method `Func` of a type `pkg` in the root package is not `…/pkg.Func`.
                node("src/tool/b.go", "src/tool.pkg.Func", Kind::Method),
                node("src/tool/sub/c.go", "src/tool/sub.Helper", Kind::Function),
                node("root.go", "Top", Kind::Function),
                node("copy1/d.go", "copy1.Dup", Kind::Function),
                node("copy2/d.go", "copy2.Dup", Kind::Function),
            ],
            Vec::new(),
            Vec::new(),
        )
        .with_packages(roots(
            &[
                ("example.com/tool", "src/tool"),
                ("example.com/other", "src/tool/sub"),
                ("example.com/root", ""),
                ("example.com/dup", "copy1"),
                ("example.com/dup", "copy2"),
            ],
            &[],
        ));
        let ids = |s: &str| ids_of(&g, s);
        assert_eq!(
            ids("example.com/tool/pkg.Func"),
            ["src/tool/pkg/a.go::Func"]
        );
        assert_eq!(
            ids("example.com/tool/pkg.Hash.IsZero"),
            ["src/tool/pkg/a.go::Hash.IsZero"]
        );
        assert_eq!(ids("example.com/tool.Run"), ["src/tool/main.go::Run"]);
        assert_eq!(
            ids("example.com/tool.pkg.Func"),
            ["src/tool/b.go::pkg.Func"]
        );
        assert_eq!(
            ids("example.com/other.Helper"),
            ["src/tool/sub/c.go::Helper"]
        );
        assert!(ids("example.com/tool/sub.Helper").is_empty());
        assert_eq!(ids("example.com/root.Top"), ["root.go::Top"]);
        assert_eq!(ids("example.com/dup.Dup").len(), 2);
        assert!(ids("example.com/tool/pkg.Nope").is_empty());
        assert!(ids("example.com/toolbox/pkg.Func").is_empty());
        // The shorter forms work as before.
        assert_eq!(ids("tool/pkg.Func"), ["src/tool/pkg/a.go::Func"]);
        assert!(CodeGraph::build(Vec::new(), Vec::new(), Vec::new())
            .lookup("example.com/tool/pkg.Func")
            .is_empty());
    }

    /// A Rust path may name its crate by the `[package] name` of its `Cargo.toml`, in a
    /// folder named otherwise; a same-named function of another package is not chosen.
    #[test]
    fn a_crate_is_found_by_its_package_name() {
        let g = CodeGraph::build(
            vec![
                rust_fn("crates/wire-frames/src/lib.rs", "checksum"),
                rust_fn("crates/frames-legacy/src/lib.rs", "checksum"),
                rust_fn("src/main.rs", "checksum"),
            ],
            Vec::new(),
            Vec::new(),
        )
        .with_packages(roots(
            &[],
            &[
                ("frames", "crates/wire-frames"),
                ("frames-legacy", "crates/frames-legacy"),
                ("app", ""),
            ],
        ));
        let ids = |s: &str| ids_of(&g, s);
        assert_eq!(
            ids("frames::checksum"),
            ["crates/wire-frames/src/lib.rs::checksum"]
        );
        assert_eq!(
            ids("frames_legacy::checksum"),
            ["crates/frames-legacy/src/lib.rs::checksum"]
        );
        assert_eq!(ids("app::checksum"), ["src/main.rs::checksum"]);
        // The folder rule still holds.
        assert_eq!(
            ids("wire_frames::checksum"),
            ["crates/wire-frames/src/lib.rs::checksum"]
        );
        assert!(ids("wire::checksum").is_empty());
        assert_eq!(ids("checksum").len(), 3);
    }
}
