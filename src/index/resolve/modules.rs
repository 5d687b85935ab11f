//! Where an import specifier points: a repo file (or Go package directory), or outside
//! the repository. One table and one function per [`ImportSystem`] (the module system a
//! language's spec picks); all work on repo-relative paths.

use foldhash::HashMap;
use std::sync::Arc;

use crate::index::facts::FileFacts;
use crate::index::lang::{self, ImportSystem};
use crate::index::project::{Enclosing, ProjectFile};

/// `tsconfig` `paths`: pattern → substitutions.
type TsPaths = Vec<(String, Vec<String>)>;

/// Module tables built once over all files.
#[derive(Debug, Default)]
pub(crate) struct ModuleTable {
    /// `path` → file index.
    pub by_path: HashMap<String, u32>,
    /// File index → path.
    paths: Vec<String>,
    /// File name (last path segment) → file indices.
    by_file_name: HashMap<String, Vec<u32>>,
    /// Python: dotted module path, from every source root that can hold it → file
    /// indices, best root first.
    py: HashMap<String, Vec<u32>>,
    /// Rust: [`rs_key`] of (crate source root, `a::b`) → file index; crate root `""` is
    /// the repo's own.
    rs: HashMap<String, u32>,
    /// Rust: crate name (from the folder holding `src/`) → crate source root.
    rs_crates: HashMap<String, String>,
    /// Go: package directory → file indices.
    go_dirs: HashMap<String, Vec<u32>>,
    /// Java: dotted package → file indices.
    java: HashMap<String, Vec<u32>>,
    /// `tsconfig.json`/`jsconfig.json` by directory: (dir, file index).
    tsconfigs: HashMap<String, u32>,
    /// C#: namespace (dotted, as declared) → files declaring it.
    cs_namespaces: HashMap<String, Vec<u32>>,
    /// C++: namespace (`a::b`, as declared) → files declaring it.
    cpp_namespaces: HashMap<String, Vec<u32>>,
    /// `go.mod` module path → its directory.
    go_modules: Vec<(String, String)>,
    /// `package.json` folder → file index of that `package.json`.
    js_packages: Vec<(String, u32)>,
    /// What the folders around the root say about it (kept so that a rebuild of these
    /// tables for an edit sees the same).
    pub(crate) enclosing: Enclosing,
}

/// Where a specifier led.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// These repo files (one for most languages; a Go package has several).
    Files(Vec<u32>),
    /// Outside the repository.
    External,
}

/// `src/` root of a Rust file: the path up to and including the last `src/` component.
pub(crate) fn crate_root(path: &str) -> String {
    crate_root_of(path).to_string()
}

/// [`crate_root`] as a slice of `path`.
fn crate_root_of(path: &str) -> &str {
    match path.rfind("src/") {
        Some(i) if i == 0 || path.as_bytes()[i - 1] == b'/' => &path[..i + 4],
        _ => "",
    }
}

/// Writes into `key` the key of [`ModuleTable`]'s Rust modules: the crate source root, a
/// NUL (never in a path), then the module path joined by `::`. One string, so a lookup
/// builds no pair of strings (the Rust tree's resolution asks this table millions of
/// times).
fn rs_key<'a>(key: &mut String, root: &str, module: impl IntoIterator<Item = &'a str>) {
    key.clear();
    key.push_str(root);
    key.push('\0');
    for (i, m) in module.into_iter().enumerate() {
        if i > 0 {
            key.push_str("::");
        }
        key.push_str(m);
    }
}

/// `tokio-1.40.0/src/` → `tokio`; `crates/my-lib/src/` → `my_lib`.
fn crate_name(root: &str) -> Option<String> {
    let dir = root.trim_end_matches("src/").trim_end_matches('/');
    let name = dir.rsplit('/').next()?;
    if name.is_empty() {
        return None;
    }
    let base = match name.rfind('-') {
        Some(i) if name[i + 1..].starts_with(|c: char| c.is_ascii_digit()) => &name[..i],
        _ => name,
    };
    Some(base.replace('-', "_"))
}

fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Joins a relative specifier onto a directory, resolving `.` and `..`; `None` when it
/// climbs above the root.
pub(crate) fn join_relative(dir: &str, spec: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in spec.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

impl ModuleTable {
    /// The tables of `files`, with what the folders around the root say (`enclosing`).
    pub(crate) fn build(files: &[Arc<FileFacts>], enclosing: &Enclosing) -> ModuleTable {
        let mut t = ModuleTable {
            enclosing: enclosing.clone(),
            ..ModuleTable::default()
        };
        for (i, f) in files.iter().enumerate() {
            let i = i as u32;
            t.by_path.insert(f.path.clone(), i);
            t.paths.push(f.path.clone());
            let file_name = f.path.rsplit('/').next().unwrap_or(&f.path);
            t.by_file_name
                .entry(file_name.to_string())
                .or_default()
                .push(i);
            match &f.project {
                Some(ProjectFile::TsConfig { .. }) => {
                    let name = f.path.rsplit('/').next().unwrap_or("");
                    if name == "tsconfig.json" || name == "jsconfig.json" {
                        t.tsconfigs.entry(dir_of(&f.path).to_string()).or_insert(i);
                    }
                }
                Some(ProjectFile::PackageJson { .. }) => {
                    t.js_packages.push((dir_of(&f.path).to_string(), i));
                }
                Some(ProjectFile::GoMod { module }) => t
                    .go_modules
                    .push((module.clone(), dir_of(&f.path).to_string())),
                Some(ProjectFile::Cargo { package }) => {
                    let dir = dir_of(&f.path);
                    let root = if dir.is_empty() {
                        "src/".to_string()
                    } else {
                        format!("{dir}/src/")
                    };
                    t.rs_crates.insert(package.replace('-', "_"), root);
                }
                None => {}
            }
            match lang::spec_of(&f.language).resolution.imports {
                ImportSystem::CrateModules => {
                    let root = crate_root(&f.path);
                    if let Some(name) = crate_name(&root) {
                        t.rs_crates.entry(name).or_insert_with(|| root.clone());
                    }
                    let mut key = String::new();
                    rs_key(&mut key, &root, f.module_path.iter().map(String::as_str));
                    // `src/lib.rs` and `src/main.rs` are both a crate root: the library's
                    // is the one paths name (`crate::f` in its modules, `lib::f` after
                    // `mod lib;` in main.rs), so main.rs never replaces it.
                    if file_name == "main.rs" && f.module_path.is_empty() {
                        t.rs.entry(key).or_insert(i);
                    } else {
                        t.rs.insert(key, i);
                    }
                }
                ImportSystem::ImportPaths => t
                    .go_dirs
                    .entry(dir_of(&f.path).to_string())
                    .or_default()
                    .push(i),
                system @ (ImportSystem::Includes | ImportSystem::Namespaces) => {
                    let map = if system == ImportSystem::Includes {
                        &mut t.cpp_namespaces
                    } else {
                        &mut t.cs_namespaces
                    };
                    for d in f
                        .definitions
                        .iter()
                        .filter(|d| d.kind == crate::index::facts::Kind::Namespace)
                    {
                        let v = map.entry(d.qualified_name.to_string()).or_default();
                        if v.last() != Some(&i) {
                            v.push(i);
                        }
                    }
                }
                ImportSystem::ClassPackages => {
                    t.java.entry(f.module_path.join(".")).or_default().push(i)
                }
                ImportSystem::DottedModules
                | ImportSystem::FileSpecifiers
                | ImportSystem::DeclaredModules
                | ImportSystem::None => {}
            }
        }
        // Python's dotted modules: a directory holding `__init__.py` is a package. A module
        // is importable as the dotted path from any directory that is not inside a package
        // (a source root: the repo root, `src/`, a tests folder); the shallowest such root
        // wins.
        let dotted = |f: &FileFacts| {
            lang::spec_of(&f.language).resolution.imports == ImportSystem::DottedModules
        };
        let packages: std::collections::HashSet<&str> = files
            .iter()
            .filter(|f| dotted(f) && (f.path.ends_with("/__init__.py") || f.path == "__init__.py"))
            .map(|f| dir_of(&f.path))
            .collect();
        // A root that is itself a package (it holds `__init__.py`) is importable by its
        // folder's name too: `shop.utils.text` from inside `shop/` names `utils/text.py`.
        let root_package = enclosing
            .python_package
            .as_deref()
            .filter(|_| packages.contains(""));
        let mut py: HashMap<String, Vec<(usize, bool, u32)>> = HashMap::default();
        for (i, f) in files.iter().enumerate().filter(|(_, f)| dotted(f)) {
            let dirs: Vec<&str> = f.path.split('/').collect();
            let (dirs, file) = dirs.split_at(dirs.len() - 1);
            let stem = file[0].split('.').next().unwrap_or("");
            let stub = f.path.ends_with(".pyi");
            for r in 0..=dirs.len() {
                if r > 0 && packages.contains(dirs[..r].join("/").as_str()) {
                    continue;
                }
                let mut segs: Vec<&str> = dirs[r..].to_vec();
                if stem != "__init__" {
                    segs.push(stem);
                }
                if let Some(name) = root_package.filter(|_| r == 0) {
                    let key = std::iter::once(name).chain(segs.iter().copied());
                    py.entry(key.collect::<Vec<_>>().join("."))
                        .or_default()
                        .push((r, stub, i as u32));
                }
                if segs.is_empty() {
                    continue;
                }
                py.entry(segs.join("."))
                    .or_default()
                    .push((r, stub, i as u32));
            }
        }
        // A tree opened inside a Go module, below its `go.mod`: the root's import path is
        // that module's path and the folders between, so the root is a module of its own
        // for imports (its packages by path, the rest of the module outside the tree).
        if let Some(path) = &enclosing.go_import_path {
            if !t.go_modules.iter().any(|(_, dir)| dir.is_empty()) {
                t.go_modules.push((path.clone(), String::new()));
            }
        }
        for (k, mut v) in py {
            v.sort();
            t.py.insert(k, v.into_iter().map(|(_, _, i)| i).collect());
        }
        t
    }

    /// A dotted module `spec` ([`ImportSystem::DottedModules`], Python: `a.b`, `.x`,
    /// `..a.b`, `.`) imported from `from_file`.
    pub(crate) fn dotted_module(
        &self,
        files: &[Arc<FileFacts>],
        from_file: u32,
        spec: &str,
    ) -> Target {
        let dots = spec.len() - spec.trim_start_matches('.').len();
        let rest = &spec[dots..];
        if dots == 0 {
            // The best root's module (a `.py` before its `.pyi` stub).
            return match self.py.get(rest).and_then(|v| v.first()) {
                Some(&i) => Target::Files(vec![i]),
                None => Target::External,
            };
        }
        // Relative: from the importing file's package directory, one level up per extra dot.
        let mut dir: Vec<&str> = files[from_file as usize].path.split('/').collect();
        dir.pop();
        for _ in 1..dots {
            if dir.pop().is_none() {
                return Target::External;
            }
        }
        let base = dir.join("/");
        let sub = rest.replace('.', "/");
        let joined = match (base.is_empty(), sub.is_empty()) {
            (true, _) => sub,
            (false, true) => base,
            (false, false) => format!("{base}/{sub}"),
        };
        let cands = [
            format!("{joined}.py"),
            format!("{joined}/__init__.py"),
            format!("{joined}.pyi"),
            format!("{joined}/__init__.pyi"),
        ];
        for c in cands {
            if let Some(&i) = self.by_path.get(c.trim_start_matches('/')) {
                return Target::Files(vec![i]);
            }
        }
        Target::Files(Vec::new())
    }

    /// A file specifier ([`ImportSystem::FileSpecifiers`], JS/TS) imported from
    /// `from_path`: relative ones are resolved on disk layout with extension and `index`
    /// inference (Node and TypeScript rules); bare ones through the nearest
    /// `tsconfig.json`/`jsconfig.json` (`paths`, then `baseUrl`), else they are packages,
    /// outside the repo.
    pub(crate) fn file_specifier(
        &self,
        files: &[Arc<FileFacts>],
        from_path: &str,
        spec: &str,
    ) -> Target {
        if spec.starts_with('#') {
            return match self.subpath_import(files, from_path, spec) {
                Some(i) => Target::Files(vec![i]),
                None => Target::External,
            };
        }
        if !(spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == "..") {
            return match self
                .ts_paths(files, from_path, spec)
                .or_else(|| self.own_package(files, from_path, spec))
            {
                Some(i) => Target::Files(vec![i]),
                None => Target::External,
            };
        }
        let Some(base) = join_relative(dir_of(from_path), spec) else {
            return Target::External;
        };
        match self.js_file(from_path, &base) {
            Some(i) => Target::Files(vec![i]),
            None => Target::Files(Vec::new()),
        }
    }

    /// A bare specifier through the nearest tsconfig (TypeScript's module resolution:
    /// `paths` patterns with one `*`, relative to `baseUrl` or the config's directory, then
    /// `baseUrl` itself; `extends` followed up to 5 levels, the child's settings winning).
    fn ts_paths(&self, files: &[Arc<FileFacts>], from_path: &str, spec: &str) -> Option<u32> {
        let mut dir = dir_of(from_path);
        let cfg = loop {
            if let Some(&i) = self.tsconfigs.get(dir) {
                break i;
            }
            if dir.is_empty() {
                return None;
            }
            dir = dir_of(dir);
        };
        let mut base_url: Option<String> = None;
        let mut paths: Option<(String, &TsPaths)> = None;
        let mut cur = Some(cfg);
        for _ in 0..5 {
            let Some(ci) = cur else { break };
            let f = &files[ci as usize];
            let cdir = dir_of(&f.path);
            let Some(ProjectFile::TsConfig {
                base_url: b,
                paths: p,
                extends,
            }) = &f.project
            else {
                break;
            };
            if base_url.is_none() {
                base_url = b.as_ref().and_then(|b| join_relative(cdir, b));
            }
            if paths.is_none() && !p.is_empty() {
                paths = Some((cdir.to_string(), p));
            }
            cur = extends
                .as_ref()
                .and_then(|e| join_relative(cdir, e))
                .and_then(|e| {
                    let e = if e.ends_with(".json") {
                        e
                    } else {
                        format!("{e}.json")
                    };
                    self.by_path.get(&e).copied()
                });
        }
        if let Some((pdir, paths)) = paths {
            let root = base_url.clone().unwrap_or(pdir);
            for (pattern, subs) in paths {
                let star = match pattern.split_once('*') {
                    Some((pre, post))
                        if spec.starts_with(pre)
                            && spec.ends_with(post)
                            && spec.len() >= pre.len() + post.len() =>
                    {
                        &spec[pre.len()..spec.len() - post.len()]
                    }
                    None if pattern == spec => "",
                    _ => continue,
                };
                for s in subs {
                    if let Some(i) = join_relative(&root, &s.replacen('*', star, 1))
                        .and_then(|p| self.js_file(from_path, &p))
                    {
                        return Some(i);
                    }
                }
            }
        }
        base_url
            .and_then(|b| join_relative(&b, spec))
            .and_then(|p| self.js_file(from_path, &p))
    }

    /// The deepest `package.json` folder at or above `from_path` (the root's is `""`), with
    /// the index of its file: (folder, file index).
    fn nearest_js_package(&self, from_path: &str) -> Option<&(String, u32)> {
        self.js_packages
            .iter()
            .filter(|(d, _)| {
                d.is_empty()
                    || from_path
                        .strip_prefix(d.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            })
            .max_by_key(|(d, _)| d.len())
    }

    /// A `#` specifier (Node's subpath imports, private to a package: `#internal/x`)
    /// through the `imports` of the nearest `package.json` above the importer, else of the
    /// one above the root ([`Enclosing::js_package`]); an exact key or a `*` pattern.
    fn subpath_import(&self, files: &[Arc<FileFacts>], from_path: &str, spec: &str) -> Option<u32> {
        let nearest = self.nearest_js_package(from_path);
        // (the package folder, repo-relative; its imports; the root's path below it).
        let (dir, imports, below) = match nearest {
            Some((d, pj)) => match &files[*pj as usize].project {
                Some(ProjectFile::PackageJson { imports, .. }) => (d.as_str(), imports, ""),
                _ => return None,
            },
            None => {
                let (below, imports) = self.enclosing.js_package.as_ref()?;
                ("", imports, below.as_str())
            }
        };
        let mut cands: Vec<String> = Vec::new();
        for (k, target) in imports {
            if k == spec {
                cands.push(target.clone());
            } else if let Some((pre, post)) = k.split_once('*') {
                if let Some(star) = spec.strip_prefix(pre).and_then(|r| r.strip_suffix(post)) {
                    cands.push(target.replacen('*', star, 1));
                }
            }
        }
        cands.iter().find_map(|c| {
            let rel = c.trim_start_matches("./");
            // A target above the root's folder is outside the repository.
            let rel = match below {
                "" => rel,
                b => rel.strip_prefix(b)?.strip_prefix('/')?,
            };
            join_relative(dir, rel).and_then(|p| self.js_file(from_path, &p))
        })
    }

    /// A bare specifier that names the package holding `from_path` by its own name (Node's
    /// self-reference: `@trpc/server/http` inside `@trpc/server`), through the nearest
    /// `package.json` above the importer: the `exports` entry of that subpath (a `*`
    /// pattern included), else the folder path itself. An entry naming built output that
    /// is not in the tree (`./dist/esm/http.js`) names the source it is built from
    /// (`src/http.ts`, TypeScript's `rootDir` → `outDir` layout) when that exists.
    fn own_package(&self, files: &[Arc<FileFacts>], from_path: &str, spec: &str) -> Option<u32> {
        let (dir, pj) = self.nearest_js_package(from_path)?;
        let Some(ProjectFile::PackageJson { name, entries, .. }) = &files[*pj as usize].project
        else {
            return None;
        };
        if name.is_empty() {
            return None;
        }
        let sub = if spec == name {
            ".".to_string()
        } else {
            format!(
                ".{}",
                spec.strip_prefix(name.as_str())?
                    .strip_prefix('/')
                    .map(|r| format!("/{r}"))?
            )
        };
        let mut cands: Vec<String> = Vec::new();
        for (k, target) in entries {
            if *k == sub {
                cands.push(target.clone());
            } else if let Some((pre, post)) = k.split_once('*') {
                if let Some(star) = sub.strip_prefix(pre).and_then(|r| r.strip_suffix(post)) {
                    cands.push(target.replacen('*', star, 1));
                }
            }
        }
        if sub != "." {
            cands.push(sub.clone());
        }
        for c in &cands {
            let Some(p) = join_relative(dir, c) else {
                continue;
            };
            if let Some(i) = self.js_file(from_path, &p) {
                return Some(i);
            }
        }
        // Built output → its source: the build folders dropped, under `src/`.
        const BUILD_DIRS: &[&str] = &["dist", "lib", "build", "out", "esm", "cjs", "types"];
        for c in &cands {
            let rel = c.trim_start_matches("./");
            let segs: Vec<&str> = rel.split('/').collect();
            let skip = segs.iter().take_while(|s| BUILD_DIRS.contains(s)).count();
            if skip == 0 || skip == segs.len() {
                continue;
            }
            let rest = segs[skip..].join("/");
            let rest = rest.strip_suffix(".d.ts").unwrap_or(&rest);
            if let Some(i) =
                join_relative(dir, &format!("src/{rest}")).and_then(|p| self.js_file(from_path, &p))
            {
                return Some(i);
            }
        }
        None
    }

    /// The file a JS/TS module path names, trying extensions and `index` files; a `.js`
    /// specifier may name a `.ts` source (TypeScript's ESM convention). From a JavaScript
    /// importer (`from` ends in `.js`, `.jsx`, `.mjs` or `.cjs`) JavaScript files come
    /// first: that is the code that runs (a package's `lib/x.js` beside its `lib/x.d.ts`).
    /// A `.d.ts` declaration comes last: it has no bodies, so it is the target only when
    /// no source of that name exists.
    pub(crate) fn js_file(&self, from: &str, base: &str) -> Option<u32> {
        const TS_FIRST: &[&str] = &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "d.ts"];
        const JS_FIRST: &[&str] = &["js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "d.ts"];
        let from_js = [".js", ".jsx", ".mjs", ".cjs"]
            .iter()
            .any(|e| from.ends_with(e));
        let exts = if from_js { JS_FIRST } else { TS_FIRST };
        if let Some(&i) = self.by_path.get(base) {
            return Some(i);
        }
        let stem = base
            .strip_suffix(".js")
            .or_else(|| base.strip_suffix(".mjs"))
            .or_else(|| base.strip_suffix(".cjs"))
            .or_else(|| base.strip_suffix(".jsx"))
            .unwrap_or(base);
        for e in exts {
            if let Some(&i) = self.by_path.get(&format!("{stem}.{e}")) {
                return Some(i);
            }
        }
        for e in exts {
            if let Some(&i) = self.by_path.get(&format!("{base}/index.{e}")) {
                return Some(i);
            }
        }
        None
    }

    /// Files declaring a namespace that `using Ns;` names ([`ImportSystem::Namespaces`],
    /// C#); empty when none does.
    pub(crate) fn namespace_files(&self, ns: &str) -> &[u32] {
        self.cs_namespaces.get(ns).map_or(&[], Vec::as_slice)
    }

    /// Files declaring a namespace that `using namespace a::b;` names
    /// ([`ImportSystem::Includes`], C++); empty when none does.
    pub(crate) fn using_namespace(&self, ns: &str) -> &[u32] {
        self.cpp_namespaces.get(ns).map_or(&[], Vec::as_slice)
    }

    /// `#include "spec"` from `from_path`: relative to the includer, then to the repo root,
    /// then the only file whose path ends with `/spec`. The header comes with its sibling
    /// source files of the same stem (`x.h` → `x.c`, `x.cpp`), where definitions live.
    pub(crate) fn include(&self, from_path: &str, spec: &str) -> Target {
        let mut hit = join_relative(dir_of(from_path), spec)
            .and_then(|p| self.by_path.get(&p).copied())
            .or_else(|| self.by_path.get(spec).copied());
        if hit.is_none() {
            let suffix = format!("/{spec}");
            let name = spec.rsplit('/').next().unwrap_or(spec);
            let mut found = self
                .by_file_name
                .get(name)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&i| self.paths[i as usize].ends_with(&suffix));
            hit = match (found.next(), found.next()) {
                (Some(i), None) => Some(i),
                _ => None,
            };
        }
        let Some(h) = hit else {
            return Target::External;
        };
        let path = self.paths[h as usize].as_str();
        let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
        let mut out = vec![h];
        for ext in ["c", "cc", "cpp", "cxx", "c++"] {
            if let Some(&i) = self.by_path.get(&format!("{stem}.{ext}")) {
                out.push(i);
            }
        }
        Target::Files(out)
    }

    /// Files of a dotted package ([`ImportSystem::ClassPackages`], Java); empty when the
    /// package is not in the repo.
    pub(crate) fn class_package(&self, package: &str) -> &[u32] {
        self.java.get(package).map_or(&[], Vec::as_slice)
    }

    /// An import path ([`ImportSystem::ImportPaths`], Go): through a `go.mod` module path
    /// when one prefixes it; a remote path (dotted first element) in a repository with a
    /// root `go.mod` otherwise only as a directory at exactly that path; else the package
    /// directory whose path is the longest suffix of it.
    pub(crate) fn import_path(&self, spec: &str) -> Target {
        for (module, dir) in &self.go_modules {
            let rest = if spec == module {
                Some("")
            } else {
                spec.strip_prefix(module.as_str())
                    .and_then(|r| r.strip_prefix('/'))
            };
            if let Some(rest) = rest {
                let d = match (dir.is_empty(), rest.is_empty()) {
                    (true, _) => rest.to_string(),
                    (false, true) => dir.clone(),
                    (false, false) => format!("{dir}/{rest}"),
                };
                return match self.go_dirs.get(&d) {
                    Some(v) => Target::Files(v.clone()),
                    None => Target::Files(Vec::new()),
                };
            }
        }
        // In a repository that is a Go module (a `go.mod` at its root), a remote import
        // path (first element with a dot, as `github.com/pkg/errors`) that no `go.mod`
        // prefixes belongs to another module: only a directory at exactly that path is
        // it, never a local folder that merely shares its last name. Without a root
        // `go.mod` (a tree opened inside a module, or a GOPATH layout) the suffix rule
        // below is all there is.
        let remote = spec.split('/').next().is_some_and(|e| e.contains('.'));
        if remote && self.go_modules.iter().any(|(_, dir)| dir.is_empty()) {
            return match self.go_dirs.get(spec) {
                Some(files) => Target::Files(files.clone()),
                None => Target::External,
            };
        }
        // The longest package directory that is `spec` itself or a `/`-separated suffix of
        // it. Suffixes are tried longest first, so the first hit is the longest match: one
        // map lookup per path segment instead of a scan of every directory per import.
        let suffixes =
            std::iter::once(spec).chain(spec.match_indices('/').map(|(i, _)| &spec[i + 1..]));
        for dir in suffixes {
            if dir.is_empty() {
                continue;
            }
            if let Some(files) = self.go_dirs.get(dir) {
                return Target::Files(files.clone());
            }
        }
        Target::External
    }

    /// A crate module path ([`ImportSystem::CrateModules`], Rust: segments, possibly
    /// starting with `crate`, `self`, `super` or a crate name) from a file; returns the
    /// file of the longest prefix that is a module and how many segments that consumed.
    pub(crate) fn crate_module(
        &self,
        files: &[Arc<FileFacts>],
        from_file: u32,
        segs: &[&str],
    ) -> Option<(Target, usize)> {
        let f = &files[from_file as usize];
        let root = crate_root_of(&f.path);
        let module = || f.module_path.iter().map(String::as_str);
        let mut key = String::new();
        let (crate_root, mut depth, skip): (&str, usize, usize) = match segs.first().copied() {
            Some("crate") => (root, 0, 1),
            Some("self") => (root, f.module_path.len(), 1),
            Some("super") => {
                let mut k = 0;
                while segs.get(k) == Some(&"super") {
                    k += 1;
                }
                (root, f.module_path.len().saturating_sub(k), k)
            }
            Some(first) => {
                if let Some(r) = self.rs_crates.get(first) {
                    (r.as_str(), 0, 1)
                } else {
                    // A child module of the current one (`mod util;` then `util::f()`).
                    rs_key(&mut key, root, module().chain([first]));
                    if self.rs.contains_key(key.as_str()) {
                        (root, f.module_path.len(), 0)
                    } else if first == "lib" && f.module_path.is_empty() {
                        // `mod lib;` in main.rs: the library's root (see `build`).
                        (root, 0, 1)
                    } else {
                        return None;
                    }
                }
            }
            None => return None,
        };
        // The base module is the first `depth` segments of this file's module path.
        rs_key(&mut key, crate_root, module().take(depth));
        let mut found = self.rs.get(key.as_str()).map(|&i| (i, skip));
        for (k, s) in segs.iter().enumerate().skip(skip) {
            if depth > 0 {
                key.push_str("::");
            }
            key.push_str(s);
            depth += 1;
            match self.rs.get(key.as_str()) {
                Some(&i) => found = Some((i, k + 1)),
                None => break,
            }
        }
        found.map(|(i, used)| (Target::Files(vec![i]), used))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_names_drop_versions() {
        assert_eq!(crate_name("tokio-1.40.0/src/").as_deref(), Some("tokio"));
        assert_eq!(crate_name("crates/my-lib/src/").as_deref(), Some("my_lib"));
        assert_eq!(crate_name("src/"), None);
        assert_eq!(crate_root("a/src/b.rs"), "a/src/");
        assert_eq!(crate_root("src/lib.rs"), "src/");
        assert_eq!(crate_root("build.rs"), "");
    }

    #[test]
    fn relative_joins() {
        assert_eq!(
            join_relative("src/app", "../lib/x").as_deref(),
            Some("src/lib/x")
        );
        assert_eq!(join_relative("", "../x"), None);
    }
}
