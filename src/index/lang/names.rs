//! [`NamePattern`]: a rule on a file name or path, the form in which a language's spec
//! writes which files are tests or binaries (`test_*.py`, `*_test.go`, `src/bin/`). Its own
//! module because both the resolution and the impact rule groups use it.

/// A rule on a file name (its last path segment) or on a whole repo-relative path. Every
/// comparison is exact: case matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamePattern {
    /// The whole text is this (`conftest.py`).
    Exact(&'static str),
    /// The text ends with this (`_test.go`).
    Suffix(&'static str),
    /// The text contains this (`src/bin/`).
    Contains(&'static str),
    /// The text starts with the first and ends with the second (`test_` … `.py`).
    PrefixSuffix(&'static str, &'static str),
    /// `<stem>.<marker>.<extension>`: three or more `.`-separated parts, a non-empty first,
    /// one of these markers second to last and one of the language's extensions last
    /// (`app.test.ts`, `a.spec.jsx`; `test.ts` is not one).
    Marker(&'static [&'static str]),
}

impl NamePattern {
    /// Whether `text` matches; `extensions` are those [`NamePattern::Marker`] accepts (the
    /// language's own).
    pub fn matches(self, text: &str, extensions: &[&str]) -> bool {
        match self {
            NamePattern::Exact(s) => text == s,
            NamePattern::Suffix(s) => text.ends_with(s),
            NamePattern::Contains(s) => text.contains(s),
            NamePattern::PrefixSuffix(p, s) => text.starts_with(p) && text.ends_with(s),
            NamePattern::Marker(markers) => {
                let parts: Vec<&str> = text.split('.').collect();
                parts.len() >= 3
                    && !parts[0].is_empty()
                    && markers.contains(&parts[parts.len() - 2])
                    && extensions.contains(&parts[parts.len() - 1])
            }
        }
    }

    /// Whether any of `patterns` matches `text` (see [`NamePattern::matches`]).
    pub fn any(patterns: &[NamePattern], text: &str, extensions: &[&str]) -> bool {
        patterns.iter().any(|p| p.matches(text, extensions))
    }
}

#[cfg(test)]
mod tests {
    use super::NamePattern::*;

    #[test]
    fn patterns_match_exactly() {
        let ts = &["ts"][..];
        assert!(Exact("conftest.py").matches("conftest.py", ts));
        assert!(!Exact("conftest.py").matches("xconftest.py", ts));
        assert!(Suffix("_test.go").matches("a_test.go", ts));
        assert!(!Suffix("_test.go").matches("a_test.GO", ts));
        assert!(Contains("src/bin/").matches("x/src/bin/a.rs", ts));
        assert!(PrefixSuffix("test_", ".py").matches("test_a.py", ts));
        assert!(!PrefixSuffix("test_", ".py").matches("test_a.pyi", ts));
        let marker = Marker(&["test", "spec"]);
        assert!(marker.matches("a.test.ts", ts));
        assert!(marker.matches("a.b.spec.ts", ts));
        assert!(!marker.matches("test.ts", ts));
        assert!(!marker.matches(".test.ts", ts));
        assert!(!marker.matches("a.test.md", ts));
        assert!(!marker.matches("a.test.TS", ts));
    }
}
