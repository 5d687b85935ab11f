//! Small wording helpers shared by the key handlers (`app/`) and the drawing code
//! (`panels/`), kept apart so neither has to import the other.

/// `n` and the noun, singular for one (`1 file`, `2 files`, `0 files`).
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
