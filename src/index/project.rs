//! Project files that change how imports resolve: `tsconfig.json`/`jsconfig.json`
//! (`baseUrl`, `paths`, `extends`), `go.mod` (the module path) and `Cargo.toml` (the crate
//! name). Read from the text the indexer already has; a malformed file is logged and
//! ignored (the imports it would have resolved stay `external`).

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
}

/// Parses `text` when `path`'s file name is a known project file; `None` otherwise or
/// when the file is malformed (logged at debug).
pub fn parse(path: &str, text: &str) -> Option<ProjectFile> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let parsed = if (name.starts_with("tsconfig") || name.starts_with("jsconfig"))
        && name.ends_with(".json")
    {
        parse_tsconfig(text)
    } else if name == "go.mod" {
        text.lines()
            .find_map(|l| l.trim().strip_prefix("module "))
            .map(|m| ProjectFile::GoMod {
                module: m.trim().trim_matches('"').to_string(),
            })
    } else if name == "Cargo.toml" {
        parse_cargo(text)
    } else {
        return None;
    };
    if parsed.is_none() {
        tracing::debug!(path, "project file not understood; ignored");
    }
    parsed
}

fn parse_cargo(text: &str) -> Option<ProjectFile> {
    let v: toml::Table = toml::from_str(text).ok()?;
    let package = v.get("package")?.get("name")?.as_str()?.to_string();
    Some(ProjectFile::Cargo { package })
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
        assert_eq!(
            parse("Cargo.toml", "[package]\nname = \"my-lib\"\n"),
            Some(ProjectFile::Cargo {
                package: "my-lib".into()
            })
        );
        assert_eq!(parse("Cargo.toml", "[workspace]\n"), None);
        assert_eq!(parse("data.json", "{}"), None);
    }
}
