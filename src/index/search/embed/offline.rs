//! The built-in offline embedder: no network, no model download.
//!
//! Technique (measured on the searchbench, README "Search quality"): every text becomes
//! a bag of terms (code-tokenizer parts, lowercased, light suffix stemming, English and
//! code stop words dropped) weighted by `(1 + ln tf) · idf`, with document frequencies
//! learned from the repository's own chunks by [`OfflineEmbedder::fit`].
//!
//! * The lexical part hashes each term to [`NONZEROS`] signed coordinates of a
//!   [`DIMENSIONS`]-wide vector (feature hashing).
//! * The context part gives each term the sum of the normalised lexical vectors of the
//!   chunks it occurs in (random indexing over the chunk–term matrix): terms that share
//!   chunks get similar context vectors, so a query can meet code through words it does
//!   not contain (`url` near `endpoint`, `cookie` near `header`).
//!
//! A vector is `normalize(LEXICAL_WEIGHT · lexical + (1 − LEXICAL_WEIGHT) · context)`,
//! both parts normalised first. The model's identity ([`Embedder::id`]) includes a hash
//! of its learned statistics, so vectors of an older fit are never mixed in.

use std::collections::HashMap;

use super::{normalize, EmbedError, Embedder};
use crate::index::search::tokenize::tokenize;

/// Vector length.
pub const DIMENSIONS: usize = 256;
/// Signed coordinates per hashed term.
pub const NONZEROS: usize = 4;
/// Share of the lexical part in the final vector (the rest is the context part).
pub const LEXICAL_WEIGHT: f32 = 0.5;
/// Terms kept in the learned vocabulary (most frequent by document frequency).
pub const MAX_VOCABULARY: usize = 60_000;

const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "if", "in",
    "into", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were",
    "will", "with", "self", "this", "none", "null", "nil", "true", "false", "let", "var", "const",
    "def", "fn", "func", "pub", "return", "returns", "given", "which",
];

/// Light stemming: plural and `-ing`/`-ed` endings, then a final `e`, so `parse`,
/// `parses`, `parsed` and `parsing` meet. Stems stay at least 3 chars.
pub fn stem(w: &str) -> String {
    fn cut(s: &mut String, suffix: &str, min_stem: usize) -> bool {
        if s.len() >= suffix.len() + min_stem && s.ends_with(suffix) {
            s.truncate(s.len() - suffix.len());
            true
        } else {
            false
        }
    }
    let mut s = w.to_string();
    if cut(&mut s, "ies", 3) {
        s.push('i');
    } else if s.ends_with("sses") {
        s.truncate(s.len() - 2);
    } else if cut(&mut s, "ing", 4) || cut(&mut s, "ed", 3) || cut(&mut s, "es", 3) {
    } else if !(s.ends_with("ss") || s.ends_with("us") || s.ends_with("is")) {
        cut(&mut s, "s", 3);
    }
    if s.len() > 3 && s.ends_with('e') {
        s.pop();
    }
    s
}

/// The weighted terms of a text: stemmed parts with their counts.
pub fn terms(text: &str) -> HashMap<String, u32> {
    let mut m = HashMap::new();
    for t in tokenize(text) {
        if t.whole || t.text.len() < 2 || t.text.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if STOP.contains(&t.text.as_str()) {
            continue;
        }
        *m.entry(stem(&t.text)).or_insert(0) += 1;
    }
    m
}

fn hash_term(t: &str) -> [(usize, f32); NONZEROS] {
    let h = blake3::hash(t.as_bytes());
    let b = h.as_bytes();
    let mut out = [(0usize, 0f32); NONZEROS];
    for (k, slot) in out.iter_mut().enumerate() {
        let x = u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]);
        let sign = if x & 1 == 0 { 1.0 } else { -1.0 };
        *slot = (((x >> 1) as usize) % DIMENSIONS, sign);
    }
    out
}

/// The fitted offline model.
pub struct OfflineEmbedder {
    idf: HashMap<String, f32>,
    context: HashMap<String, Vec<f32>>,
    default_idf: f32,
    fingerprint: String,
}

impl OfflineEmbedder {
    /// Learns document frequencies and context vectors from `texts` (the chunks'
    /// embedding inputs). Cost: one pass to count, one pass adding each chunk's lexical
    /// vector to its terms' context vectors (chunks × distinct terms × [`DIMENSIONS`]).
    pub fn fit(texts: &[String]) -> OfflineEmbedder {
        let docs: Vec<HashMap<String, u32>> = texts.iter().map(|t| terms(t)).collect();
        let mut df: HashMap<&str, u32> = HashMap::new();
        for d in &docs {
            for t in d.keys() {
                *df.entry(t.as_str()).or_insert(0) += 1;
            }
        }
        let n = docs.len().max(1) as f32;
        let mut vocab: Vec<(&str, u32)> = df.into_iter().collect();
        vocab.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        vocab.truncate(MAX_VOCABULARY);
        let idf: HashMap<String, f32> = vocab
            .iter()
            .map(|&(t, c)| (t.to_string(), ((n + 1.0) / (c as f32 + 0.5)).ln().max(0.01)))
            .collect();
        let default_idf = ((n + 1.0) / 0.5).ln();
        let mut fp = blake3::Hasher::new();
        fp.update(format!("offline-v1 {DIMENSIONS} {NONZEROS} {LEXICAL_WEIGHT}").as_bytes());
        let mut sorted: Vec<(&String, &f32)> = idf.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        for (t, w) in sorted {
            fp.update(t.as_bytes());
            fp.update(&w.to_le_bytes());
        }
        let mut m = OfflineEmbedder {
            idf,
            context: HashMap::new(),
            default_idf,
            fingerprint: fp.finalize().to_hex()[..16].to_string(),
        };
        let mut context: HashMap<String, Vec<f32>> = HashMap::new();
        for d in &docs {
            let lex = m.lexical(d);
            for t in d.keys() {
                if !m.idf.contains_key(t) {
                    continue;
                }
                let c = context
                    .entry(t.clone())
                    .or_insert_with(|| vec![0.0; DIMENSIONS]);
                c.iter_mut().zip(&lex).for_each(|(a, b)| *a += b);
            }
        }
        for v in context.values_mut() {
            normalize(v);
        }
        m.context = context;
        m
    }

    fn weight(&self, term: &str, tf: u32) -> f32 {
        (1.0 + (tf as f32).ln()) * self.idf.get(term).copied().unwrap_or(self.default_idf)
    }

    fn lexical(&self, d: &HashMap<String, u32>) -> Vec<f32> {
        let mut v = vec![0.0; DIMENSIONS];
        for (t, &tf) in d {
            let w = self.weight(t, tf);
            for (i, s) in hash_term(t) {
                v[i] += s * w;
            }
        }
        normalize(&mut v);
        v
    }

    fn vector(&self, text: &str) -> Vec<f32> {
        let d = terms(text);
        let lex = self.lexical(&d);
        let mut ctx = vec![0.0; DIMENSIONS];
        for (t, &tf) in &d {
            if let Some(c) = self.context.get(t) {
                let w = self.weight(t, tf);
                ctx.iter_mut().zip(c).for_each(|(a, b)| *a += w * b);
            }
        }
        normalize(&mut ctx);
        let mut v: Vec<f32> = lex
            .iter()
            .zip(&ctx)
            .map(|(l, c)| LEXICAL_WEIGHT * l + (1.0 - LEXICAL_WEIGHT) * c)
            .collect();
        normalize(&mut v);
        v
    }
}

impl Embedder for OfflineEmbedder {
    fn id(&self) -> String {
        format!("offline-ri-{DIMENSIONS}-{}", self.fingerprint)
    }

    fn cache_slot(&self) -> String {
        format!("offline-ri-{DIMENSIONS}")
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_meet() {
        for w in ["parse", "parses", "parsed", "parsing"] {
            assert_eq!(stem(w), "pars", "{w}");
        }
        assert_eq!(stem("cookies"), stem("cookie"));
        assert_eq!(stem("requests"), "request");
        assert_eq!(stem("string"), "string");
        assert_eq!(stem("class"), "class");
    }

    #[test]
    fn related_texts_are_closer() {
        let docs: Vec<String> = [
            "def set_cookie(response, name, value): header = cookie_header(name)",
            "def cookie_header(name): return 'Set-Cookie: ' + name",
            "def add(a, b): return a + b",
            "def sum_all(xs): total = add(xs[0], xs[1])",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let m = OfflineEmbedder::fit(&docs);
        let v = m.embed(&docs).expect("offline never fails");
        let q = m.embed_query("set a cookie").expect("offline never fails");
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        assert!(dot(&q, &v[0]) > dot(&q, &v[2]));
        assert!(dot(&q, &v[1]) > dot(&q, &v[3]));
        assert!((dot(&v[0], &v[0]) - 1.0).abs() < 1e-4);
    }
}
