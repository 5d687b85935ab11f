//! Project files that change how imports resolve: `tsconfig.json`/`jsconfig.json`
//! (`baseUrl`, `paths`, `extends`), `go.mod` (the module path), `Cargo.toml` (the crate
//! name) and `package.json` (the name and entry points a package imports itself by). Read
//! from the text the indexer already has; a malformed file is logged and
//! ignored (the imports it would have resolved stay `external`). The `go.mod` and
//! `Cargo.toml` folders are also kept with the graph ([`PackageRoots`]) for SYMBOL lookup
//! by Go import path or Cargo package name. [`Enclosing`] is what the folders around the
//! root say about it (a root that is itself a Python package, a root below a `go.mod`),
//! read from the disk once per run.

use serde::{Deserialize, Serialize};

/// What a project file says about module resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectFile {
    /// `tsconfig*.json` / `jsconfig.json` `compilerOptions`.
    TsConfig {
        /// `baseUrl`, relative to the config's directory.
        base_url: Option<String>,
        /// `paths`: pattern (`@lib/*`) → substitutions (`src/lib/*`), in file order.
        paths: Vec<(String, Vec<String>)>,
        /// `extends`: another config, relative to this one's directory (or a package name).
        extends: Option<String>,
    },
    /// `go.mod`: the `module` path.
    GoMod {
        /// Module path (`example.com/shortener`).
        module: String,
    },
    /// `Cargo.toml`: `[package] name`.
    Cargo {
        /// Crate name as written (`my-lib`).
        package: String,
    },
    /// `package.json`: the name the package's own files may import it by (Node's
    /// "self-referencing a package using its name") and the files its entry points name.
    PackageJson {
        /// `name` as written (`@trpc/server`).
        name: String,
        /// Subpath (`.`, `./store`, `./internal/*`) → the file it names, relative to the
        /// package folder (`./dist/index.js`): each `exports` entry with the first
        /// condition of [`EXPORT_CONDITIONS`] it has, else `.` from `module`, `main` or
        /// `types`, in file order of those fields.
        entries: Vec<(String, String)>,
        /// `imports`: Node's subpath imports, private to the package (`#internal`,
        /// `#util/*`) → the file each names, relative to the package folder, chosen by
        /// the same conditions as `entries`.
        #[serde(default)]
        imports: Vec<(String, String)>,
    },
}

/// The `exports` conditions read, most preferred first: a source or runtime file before
/// a type declaration, which has no bodies.
pub const EXPORT_CONDITIONS: &[&str] = &[
    "source", "import", "module", "default", "require", "node", "browser", "worker", "types",
];

/// Parses `text` when `path`'s file name is a known project file; `None` otherwise or
/// when the file is malformed (logged at debug).
pub fn parse(path: &str, text: &str) -> Option<ProjectFile> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let parsed = if (name.starts_with("tsconfig") || name.starts_with("jsconfig"))
        && name.ends_with(".json")
    {
        parse_tsconfig(text)
    } else if name == "go.mod" {
        // `module <path>`, the path maybe quoted, maybe followed by a `//` comment
        // (`go help go.mod`: "comments start with //").
        text.lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("module")
                    .filter(|r| r.starts_with([' ', '\t']))
            })
            .map(|m| ProjectFile::GoMod {
                module: m
                    .split("//")
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .trim_matches('"')
                    .to_string(),
            })
    } else if name == "Cargo.toml" {
        parse_cargo(text)
    } else if name == "package.json" {
        parse_package_json(text)
    } else {
        return None;
    };
    if parsed.is_none() {
        tracing::debug!(path, "project file not understood; ignored");
    }
    parsed
}

/// The folders that project files make packages of, for naming definitions the way their
/// language's users do ([`CodeGraph::lookup`](super::CodeGraph::lookup)): a Go import path
/// starts with the module path of a `go.mod`, a Rust path with the `[package] name` of a
/// `Cargo.toml`. Made from the [`ProjectFile`]s the indexer already parsed (one reading of
/// each file, shared with import resolution); nothing here changes the graph. Folders are
/// repo-relative, `/`-separated, `""` for the root.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageRoots {
    /// `go.mod` module path and the folder holding it, sorted.
    go: Vec<(String, String)>,
    /// `Cargo.toml` package name (as written, `wire-frames`) and the folder holding it,
    /// sorted.
    cargo: Vec<(String, String)>,
}

impl PackageRoots {
    /// The package roots of `files`' `go.mod` and `Cargo.toml` files (their parsed
    /// [`FileFacts::project`](super::FileFacts::project)).
    pub fn of(files: &[std::sync::Arc<super::FileFacts>]) -> PackageRoots {
        Self::of_projects(
            files
                .iter()
                .filter_map(|f| Some((f.path.as_str(), f.project.as_ref()?))),
        )
    }

    /// The package roots of `(repo-relative path, parsed project file)` pairs.
    pub(crate) fn of_projects<'a>(
        projects: impl Iterator<Item = (&'a str, &'a ProjectFile)>,
    ) -> PackageRoots {
        let mut roots = PackageRoots::default();
        for (path, project) in projects {
            let dir = path.rfind('/').map_or("", |i| &path[..i]).to_string();
            match project {
                ProjectFile::GoMod { module } => roots.go.push((module.clone(), dir)),
                ProjectFile::Cargo { package } => roots.cargo.push((package.clone(), dir)),
                ProjectFile::TsConfig { .. } | ProjectFile::PackageJson { .. } => {}
            }
        }
        roots.go.sort();
        roots.cargo.sort();
        roots
    }

    /// `(module path, folder)` of every `go.mod`, sorted.
    pub fn go_modules(&self) -> impl Iterator<Item = (&str, &str)> {
        self.go.iter().map(|(m, d)| (m.as_str(), d.as_str()))
    }

    /// The folder of the `go.mod` whose module holds `file` (the deepest folder with a
    /// `go.mod` above it, as the go tool decides); `None` outside every module.
    pub fn go_module_dir_of(&self, file: &str) -> Option<&str> {
        deepest_above(self.go.iter().map(|(_, d)| d.as_str()), file)
    }

    /// The `[package] name` of the Cargo package that holds `file` (the deepest folder
    /// with a `Cargo.toml` naming a package above it), as written; `None` outside every
    /// package.
    pub fn cargo_package_of(&self, file: &str) -> Option<&str> {
        let dir = deepest_above(self.cargo.iter().map(|(_, d)| d.as_str()), file)?;
        self.cargo
            .iter()
            .find(|(_, d)| d == dir)
            .map(|(p, _)| p.as_str())
    }
}

/// What the folders around the indexed root say about it when the root is opened below
/// the top of its package (a user runs the tool inside `shop/`, the package folder of a
/// project, or in a folder of a Go module): the name the root's own files import it by.
/// Read from the disk once per run ([`Enclosing::of_root`]); an in-memory source has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Enclosing {
    /// Python: the root's folder name when the root holds `__init__.py`. The root is then
    /// itself a package, so `from shop.utils.text import slugify` in `shop/orders.py`
    /// names the root's `utils/text.py` (the folder name is the package name: Python's
    /// import system finds a package as a folder of that name on `sys.path`).
    pub python_package: Option<String>,
    /// Go: the import path of the root folder when the root has no `go.mod` and a folder
    /// above it does: that module's path and the folders between, `/`-joined (`go help
    /// gopath-get`: a package's import path is its module path and its folder in the
    /// module).
    pub go_import_path: Option<String>,
    /// JavaScript: when the root has no `package.json` and a folder above it does (the
    /// tool opened in a package's `src/`), the root's folder path from that package folder
    /// (`src`) and the `package.json`'s subpath imports (`#compiler/builders`), which the
    /// package's files use whatever their folder (Node's "subpath imports").
    pub js_package: Option<(String, Vec<(String, String)>)>,
}

/// How many folders above the root are searched for a `go.mod`.
const GO_MOD_SEARCH_DEPTH: usize = 8;

impl Enclosing {
    /// What the folders of `root` (canonical) and above it say. A folder that cannot be
    /// read counts as having no such file.
    pub fn of_root(root: &std::path::Path) -> Enclosing {
        let python_package = root
            .join("__init__.py")
            .is_file()
            .then(|| root.file_name().and_then(|n| n.to_str()).map(String::from))
            .flatten()
            .filter(|n| is_identifier(n));
        let mut go_import_path = None;
        if !root.join("go.mod").exists() {
            let mut between: Vec<&str> = Vec::new();
            let mut dir = root;
            for _ in 0..GO_MOD_SEARCH_DEPTH {
                let Some(name) = dir.file_name().and_then(|n| n.to_str()) else {
                    break;
                };
                let Some(parent) = dir.parent() else { break };
                between.push(name);
                let go_mod = parent.join("go.mod");
                if go_mod.is_file() {
                    let text = super::fsutil::read_regular(&go_mod)
                        .ok()
                        .and_then(|b| String::from_utf8(b).ok());
                    if let Some(ProjectFile::GoMod { module }) =
                        text.and_then(|t| parse("go.mod", &t))
                    {
                        between.reverse();
                        go_import_path = Some(format!("{module}/{}", between.join("/")));
                    }
                    break;
                }
                dir = parent;
            }
        }
        Enclosing {
            python_package,
            go_import_path,
            js_package: js_package_above(root),
        }
    }
}

/// [`Enclosing::js_package`] of `root`: the nearest `package.json` above a root that has
/// none, when it has subpath imports.
fn js_package_above(root: &std::path::Path) -> Option<(String, Vec<(String, String)>)> {
    if root.join("package.json").exists() {
        return None;
    }
    let mut between: Vec<&str> = Vec::new();
    let mut dir = root;
    for _ in 0..GO_MOD_SEARCH_DEPTH {
        let name = dir.file_name().and_then(|n| n.to_str())?;
        let parent = dir.parent()?;
        between.push(name);
        let pj = parent.join("package.json");
        if pj.is_file() {
            let text = super::fsutil::read_regular(&pj)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())?;
            let Some(ProjectFile::PackageJson { imports, .. }) = parse("package.json", &text)
            else {
                return None;
            };
            between.reverse();
            return (!imports.is_empty()).then(|| (between.join("/"), imports));
        }
        dir = parent;
    }
    None
}

/// A Python identifier of ASCII letters, digits and `_`, not starting with a digit (a
/// folder named `flask-3.0.3` is no importable package).
fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The longest of `dirs` that is an ancestor folder of `file` (`""` is every file's).
fn deepest_above<'a>(dirs: impl Iterator<Item = &'a str>, file: &str) -> Option<&'a str> {
    dirs.filter(|d| {
        d.is_empty()
            || file
                .strip_prefix(d)
                .is_some_and(|rest| rest.starts_with('/'))
    })
    .max_by_key(|d| d.len())
}

fn parse_cargo(text: &str) -> Option<ProjectFile> {
    let v: toml::Table = toml::from_str(text).ok()?;
    let package = v.get("package")?.get("name")?.as_str()?.to_string();
    Some(ProjectFile::Cargo { package })
}

fn parse_package_json(text: &str) -> Option<ProjectFile> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let imports: Vec<(String, String)> = match v.get("imports") {
        Some(serde_json::Value::Object(m)) => m
            .iter()
            .filter(|(k, _)| k.starts_with('#'))
            .filter_map(|(k, x)| Some((k.clone(), pick(x, 0)?)))
            .collect(),
        _ => Vec::new(),
    };
    // A package without a name (an application's) still has subpath imports.
    let name = match v.get("name").and_then(|n| n.as_str()) {
        Some(n) => n.to_string(),
        None if !imports.is_empty() => String::new(),
        None => return None,
    };
    // A condition object's chosen file: the first preferred condition that leads to one
    // (conditions nest: `{"import": {"types": .., "default": ..}}`).
    fn pick(v: &serde_json::Value, depth: u32) -> Option<String> {
        match v {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Object(m) if depth < 4 => EXPORT_CONDITIONS
                .iter()
                .find_map(|c| m.get(*c).and_then(|x| pick(x, depth + 1))),
            serde_json::Value::Array(a) => a.iter().find_map(|x| pick(x, depth + 1)),
            _ => None,
        }
    }
    let mut entries = Vec::new();
    match v.get("exports") {
        // A map of subpaths (`{".": .., "./x": ..}`) or the conditions of `.` alone.
        Some(serde_json::Value::Object(m)) if m.keys().all(|k| k.starts_with('.')) => {
            for (k, x) in m {
                if let Some(f) = pick(x, 0) {
                    entries.push((k.clone(), f));
                }
            }
        }
        Some(x) => {
            if let Some(f) = pick(x, 0) {
                entries.push((".".to_string(), f));
            }
        }
        None => {}
    }
    if !entries.iter().any(|(k, _)| k == ".") {
        if let Some(f) = ["module", "main", "types", "typings"]
            .iter()
            .find_map(|k| v.get(*k).and_then(|x| x.as_str()))
        {
            entries.push((".".to_string(), f.to_string()));
        }
    }
    Some(ProjectFile::PackageJson {
        name,
        entries,
        imports,
    })
}

fn parse_tsconfig(text: &str) -> Option<ProjectFile> {
    let v: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).ok()?;
    let co = v.get("compilerOptions");
    let base_url = co
        .and_then(|c| c.get("baseUrl"))
        .and_then(|b| b.as_str())
        .map(String::from);
    let paths = co
        .and_then(|c| c.get("paths"))
        .and_then(|p| p.as_object())
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let subs = v
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect();
                    (k.clone(), subs)
                })
                .collect()
        })
        .unwrap_or_default();
    let extends = v.get("extends").and_then(|e| e.as_str()).map(String::from);
    Some(ProjectFile::TsConfig {
        base_url,
        paths,
        extends,
    })
}

/// JSON with comments and trailing commas (what `tsc` accepts) → JSON.
fn strip_jsonc(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut start = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                out.push_str(&s[start..i]);
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                start = i;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                out.push_str(&s[start..i]);
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                start = i.min(b.len());
            }
            _ => i += 1,
        }
    }
    out.push_str(&s[start.min(s.len())..]);
    // Trailing commas before `}` or `]`.
    let mut clean = String::with_capacity(out.len());
    let chars: Vec<char> = out.chars().collect();
    let mut in_str = false;
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if c == '"' && (k == 0 || chars[k - 1] != '\\') {
            in_str = !in_str;
        }
        if c == ',' && !in_str {
            let next = chars[k + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                k += 1;
                continue;
            }
        }
        clean.push(c);
        k += 1;
    }
    clean
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsconfig_with_comments_and_trailing_commas() {
        let t = r#"{
            // comment
            "extends": "./base.json",
            "compilerOptions": { /* c */ "baseUrl": ".", "paths": { "@lib/*": ["src/lib/*",], }, },
        }"#;
        assert_eq!(
            parse("tsconfig.json", t),
            Some(ProjectFile::TsConfig {
                base_url: Some(".".into()),
                paths: vec![("@lib/*".into(), vec!["src/lib/*".into()])],
                extends: Some("./base.json".into()),
            })
        );
    }

    #[test]
    fn go_mod_and_cargo() {
        assert_eq!(
            parse("x/go.mod", "module example.com/short\n\ngo 1.21\n"),
            Some(ProjectFile::GoMod {
                module: "example.com/short".into()
            })
        );
        // A trailing comment, a quoted path, a tab, a comment line first.
        for text in [
            "module example.com/short // the tool\n",
            "module \"example.com/short\"\n",
            "// header\nmodule\texample.com/short\n",
        ] {
            assert_eq!(
                parse("x/go.mod", text),
                Some(ProjectFile::GoMod {
                    module: "example.com/short".into()
                }),
                "{text:?}"
            );
        }
        assert_eq!(
            parse("Cargo.toml", "[package]\nname = \"my-lib\"\n"),
            Some(ProjectFile::Cargo {
                package: "my-lib".into()
            })
        );
        assert_eq!(parse("Cargo.toml", "[workspace]\n"), None);
        assert_eq!(
            parse(
                "package.json",
                r#"{"name": "@a/b", "main": "lib/x.js",
                    "exports": {".": {"types": "./t.d.ts", "import": {"default": "./m.js"}},
                                "./s/*": "./dist/s/*.js", "./package.json": "./package.json"}}"#
            ),
            Some(ProjectFile::PackageJson {
                name: "@a/b".into(),
                entries: vec![
                    (".".into(), "./m.js".into()),
                    ("./package.json".into(), "./package.json".into()),
                    ("./s/*".into(), "./dist/s/*.js".into()),
                ],
                imports: vec![],
            })
        );
        assert_eq!(
            parse("package.json", r#"{"name": "x", "main": "lib/x.js"}"#),
            Some(ProjectFile::PackageJson {
                name: "x".into(),
                entries: vec![(".".into(), "lib/x.js".into())],
                imports: vec![],
            })
        );
        assert_eq!(
            parse(
                "package.json",
                r##"{"imports": {"#b": "./src/b.js", "#c/*": {"types": "./t.d.ts", "default": "./src/c/*.js"}}}"##
            ),
            Some(ProjectFile::PackageJson {
                name: String::new(),
                entries: vec![],
                imports: vec![
                    ("#b".into(), "./src/b.js".into()),
                    ("#c/*".into(), "./src/c/*.js".into())
                ],
            })
        );
        assert_eq!(parse("data.json", "{}"), None);
    }

    /// A root below a `go.mod` gets the import path of its folder; a root holding
    /// `__init__.py` is the package its folder names, when that name is an identifier.
    #[test]
    fn enclosing_module_and_package_of_a_root() {
        let tmp = tempfile::tempdir().unwrap();
        let m = tmp.path().join("m");
        let root = m.join("svc/api");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(m.join("go.mod"), "module example.com/m\n").unwrap();
        std::fs::write(root.join("__init__.py"), "").unwrap();
        let e = Enclosing::of_root(&root);
        assert_eq!(e.go_import_path.as_deref(), Some("example.com/m/svc/api"));
        assert_eq!(e.python_package.as_deref(), Some("api"));
        // The module's own folder has its go.mod inside: nothing above counts.
        assert_eq!(Enclosing::of_root(&m).go_import_path, None);
        let versioned = tmp.path().join("flask-3.0.3");
        std::fs::create_dir_all(&versioned).unwrap();
        std::fs::write(versioned.join("__init__.py"), "").unwrap();
        assert_eq!(Enclosing::of_root(&versioned), Enclosing::default());
    }

    /// Each file belongs to the deepest `go.mod` or `Cargo.toml` folder above it.
    #[test]
    fn package_roots_own_the_files_below_them() {
        let files = [
            ("go.mod", "module example.com/tool\n"),
            ("sub/go.mod", "module example.com/other\n"),
            ("Cargo.toml", "[package]\nname = \"app\"\n"),
            (
                "crates/wire-frames/Cargo.toml",
                "[package]\nname = \"frames\"\n",
            ),
            ("crates/Cargo.toml", "[workspace]\n"),
            ("tsconfig.json", "{}"),
        ];
        let parsed: Vec<(&str, ProjectFile)> = files
            .iter()
            .filter_map(|&(path, text)| Some((path, parse(path, text)?)))
            .collect();
        let roots = PackageRoots::of_projects(parsed.iter().map(|(p, f)| (*p, f)));
        assert_eq!(
            roots.go_modules().collect::<Vec<_>>(),
            [("example.com/other", "sub"), ("example.com/tool", "")]
        );
        assert_eq!(roots.go_module_dir_of("pkg/a.go"), Some(""));
        assert_eq!(roots.go_module_dir_of("sub/x/a.go"), Some("sub"));
        assert_eq!(roots.go_module_dir_of("subway/a.go"), Some(""));
        assert_eq!(
            roots.cargo_package_of("crates/wire-frames/src/lib.rs"),
            Some("frames")
        );
        assert_eq!(
            roots.cargo_package_of("crates/other/src/lib.rs"),
            Some("app")
        );
        assert_eq!(PackageRoots::default().cargo_package_of("src/lib.rs"), None);
    }
}
