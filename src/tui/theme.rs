//! Colour themes: TOML files keyed by tree-sitter highlight capture names plus `ui.*`
//! keys (helix's scheme). Three are embedded in the binary (`dark`, the default, `light`
//! and `gruvbox`); a file `<config dir>/themes/<name>.toml` overrides keys of the embedded
//! theme of that name (or defines a new one). `--color never` and `NO_COLOR` give
//! [`Theme::monochrome`], which keeps selection and focus visible with reverse video and
//! bold instead of colour.

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;

use anyhow::{Context, Result};
use ratatui::style::{Color, Modifier, Style};

/// Names of the embedded themes, default first.
pub const BUILTIN: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    ("gruvbox", include_str!("../../themes/gruvbox.toml")),
];

/// A resolved theme: style by key. Lookups of dotted keys fall back to shorter prefixes.
#[derive(Debug, Clone, Default)]
pub struct Theme {
    /// Name as given.
    pub name: String,
    styles: HashMap<String, Style>,
    /// `true` for the monochrome theme (no colour at all).
    pub monochrome: bool,
}

impl Theme {
    /// Loads theme `name`: the embedded file, then the user's override from
    /// `config_dir/themes/<name>.toml` merged over it (user keys win, palette included).
    ///
    /// Errors: no embedded or user theme of that name, or a malformed file (path named).
    pub fn load(name: &str, config_dir: Option<&Path>) -> Result<Theme> {
        let embedded = BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t);
        let mut doc: toml::Table = match embedded {
            Some(t) => toml::from_str(t).with_context(|| format!("embedded theme {name}"))?,
            None => toml::Table::new(),
        };
        let user = config_dir.map(|d| d.join("themes").join(format!("{name}.toml")));
        let mut found = embedded.is_some();
        let user = user.filter(|p| p.is_file());
        if let Some(p) = &user {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            let over: toml::Table =
                toml::from_str(&text).with_context(|| format!("parsing {}", p.display()))?;
            merge(&mut doc, over);
            found = true;
        }
        if !found {
            let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
            anyhow::bail!("no theme named {name:?} (built in: {})", names.join(", "));
        }
        // A bad key is most likely in the user's file: name it, so the error can be acted on.
        Theme::from_table(name, &doc).with_context(|| match &user {
            Some(p) => format!("theme {name:?} (built in, overridden by {})", p.display()),
            None => format!("theme {name:?} (built in)"),
        })
    }

    /// Builds a theme from a parsed TOML document (`[palette]` and `[theme]` tables).
    ///
    /// Errors: an unknown colour or modifier, with the key named.
    pub fn from_table(name: &str, doc: &toml::Table) -> Result<Theme> {
        let palette: HashMap<String, Color> = match doc.get("palette") {
            Some(toml::Value::Table(t)) => t
                .iter()
                .map(|(k, v)| {
                    let s = v.as_str().unwrap_or_default();
                    Color::from_str(s)
                        .map(|c| (k.clone(), c))
                        .map_err(|_| anyhow::anyhow!("palette.{k}: bad colour {s:?}"))
                })
                .collect::<Result<_>>()?,
            _ => HashMap::new(),
        };
        let colour = |key: &str, s: &str| -> Result<Color> {
            palette
                .get(s)
                .copied()
                .or_else(|| Color::from_str(s).ok())
                .ok_or_else(|| anyhow::anyhow!("{key}: unknown colour {s:?}"))
        };
        let mut styles = HashMap::new();
        if let Some(toml::Value::Table(t)) = doc.get("theme") {
            for (k, v) in t {
                let style = match v {
                    toml::Value::String(s) => Style::new().fg(colour(k, s)?),
                    toml::Value::Table(t) => {
                        let mut st = Style::new();
                        if let Some(s) = t.get("fg").and_then(|v| v.as_str()) {
                            st = st.fg(colour(k, s)?);
                        }
                        if let Some(s) = t.get("bg").and_then(|v| v.as_str()) {
                            st = st.bg(colour(k, s)?);
                        }
                        if let Some(toml::Value::Array(ms)) = t.get("modifiers") {
                            for m in ms {
                                st = st.add_modifier(modifier(k, m.as_str().unwrap_or(""))?);
                            }
                        }
                        st
                    }
                    _ => anyhow::bail!("{k}: expected a colour or a table"),
                };
                styles.insert(k.clone(), style);
            }
        }
        Ok(Theme {
            name: name.to_string(),
            styles,
            monochrome: false,
        })
    }

    /// The colourless theme: selection reversed, focus and matches bold or underlined,
    /// everything else the terminal's own colours.
    pub fn monochrome() -> Theme {
        let b = Style::new().add_modifier(Modifier::BOLD);
        let entries = [
            ("ui.border.focus", b),
            ("ui.title", b),
            (
                "ui.selection",
                Style::new().add_modifier(Modifier::REVERSED),
            ),
            (
                "ui.match",
                Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            ),
            ("ui.gutter.definition", b),
            (
                "ui.callsite",
                Style::new().add_modifier(Modifier::UNDERLINED),
            ),
            ("ui.error", b),
            ("ui.help.key", b),
            ("ui.risk.high", b),
            (
                "ui.statusbar",
                Style::new().add_modifier(Modifier::REVERSED),
            ),
        ];
        Theme {
            name: "monochrome".into(),
            styles: entries
                .into_iter()
                .map(|(k, s)| (k.to_string(), s))
                .collect(),
            monochrome: true,
        }
    }

    /// Style of `key`, falling back through dotted prefixes (`function.method.builtin` →
    /// `function.method` → `function`); the default style when none is set.
    pub fn get(&self, key: &str) -> Style {
        let mut k = key;
        loop {
            if let Some(s) = self.styles.get(k) {
                return *s;
            }
            match k.rfind('.') {
                Some(i) => k = &k[..i],
                None => return Style::new(),
            }
        }
    }

    /// Like [`Theme::get`] but `None` when no prefix of `key` is set (for highlight
    /// captures the theme does not colour).
    pub fn lookup(&self, key: &str) -> Option<Style> {
        let mut k = key;
        loop {
            if let Some(s) = self.styles.get(k) {
                return Some(*s);
            }
            k = &k[..k.rfind('.')?];
        }
    }
}

fn modifier(key: &str, m: &str) -> Result<Modifier> {
    Ok(match m {
        "bold" => Modifier::BOLD,
        "dim" => Modifier::DIM,
        "italic" => Modifier::ITALIC,
        "underlined" => Modifier::UNDERLINED,
        "reversed" => Modifier::REVERSED,
        "crossed_out" => Modifier::CROSSED_OUT,
        _ => anyhow::bail!("{key}: unknown modifier {m:?}"),
    })
}

/// Deep merge: tables merge key by key, anything else is replaced.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_theme_parses_and_colours_the_keys_the_ui_uses() {
        for (name, _) in BUILTIN {
            let t = Theme::load(name, None).unwrap();
            for key in [
                "ui.selection",
                "ui.match",
                "ui.border.focus",
                "keyword",
                "string",
            ] {
                assert_ne!(t.get(key), Style::new(), "{name}: {key}");
            }
        }
    }

    #[test]
    fn dotted_keys_fall_back_to_prefixes() {
        let t = Theme::load("dark", None).unwrap();
        assert_eq!(t.get("function.method.call"), t.get("function"));
        assert!(t.lookup("nonexistent.capture").is_none());
    }

    #[test]
    fn a_user_file_overrides_keys_and_palette() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("themes")).unwrap();
        std::fs::write(
            dir.path().join("themes/dark.toml"),
            "[palette]\nblue = \"#000001\"\n[theme]\nstring = \"#ff0000\"\n",
        )
        .unwrap();
        let t = Theme::load("dark", Some(dir.path())).unwrap();
        assert_eq!(t.get("string").fg, Some(Color::Rgb(255, 0, 0)));
        assert_eq!(t.get("function").fg, Some(Color::Rgb(0, 0, 1)));
        assert!(Theme::load("nope", Some(dir.path())).is_err());
    }

    #[test]
    fn a_bad_colour_in_a_user_file_names_the_file_and_the_key() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("themes")).unwrap();
        let file = dir.path().join("themes/light.toml");
        std::fs::write(&file, "[theme]\nstring = \"#zz0000\"\n").unwrap();
        let e = format!("{:#}", Theme::load("light", Some(dir.path())).unwrap_err());
        assert!(e.contains(&file.display().to_string()), "{e}");
        assert!(e.contains("string"), "{e}");
    }

    #[test]
    fn monochrome_has_no_colour_but_shows_selection() {
        let t = Theme::monochrome();
        assert!(t
            .get("ui.selection")
            .add_modifier
            .contains(Modifier::REVERSED));
        assert_eq!(t.get("keyword").fg, None);
    }
}
