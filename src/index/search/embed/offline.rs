//! The built-in offline embedder: no network, no model download.
//!
//! Technique (measured on the searchbench, `docs/accuracy.md#search-quality`): a vector of
//! [`DIMENSIONS`] + [`WordVectors`]' dimensions, two halves, each unit length. A chunk's
//! halves weigh the same; a query's learned half weighs [`QUERY_LEARNED_WEIGHT`] times its
//! lexical half, so a cosine ranks as `lexical + 3 · learned`.
//!
//! * **Lexical half.** A text becomes a bag of terms (code-tokenizer parts, lowercased,
//!   light suffix stemming so `parse`, `parses` and `parsing` meet, English and code stop
//!   words dropped), each weighted by `boost · (1 + ln tf)` in a chunk and by
//!   `(1 + ln tf) · idf` in a query, with document frequencies learned from the
//!   repository's own chunks by [`OfflineEmbedder::fit`] (SMART's lnc.ltc weighting,
//!   Salton and Buckley 1988). A chunk's vector depends on its own text alone, so an
//!   edit re-embeds only the chunks it changed; on the searchbench this matched idf on
//!   both sides in hybrid mode (mean MRR@10 0.486 against 0.487 over six packages) and
//!   lost 0.011 in semantic mode alone.
//!   The boost reads the graph-aware header of the embedding input: the definition's own
//!   name line counts [`NAME_WEIGHT`], the callee and caller lists [`NEIGHBOUR_WEIGHT`].
//!   Terms are hashed to [`NONZEROS`] signed coordinates (feature hashing).
//! * **Learned half.** A neural bag-of-words dual encoder (the NBoW baseline of
//!   CodeSearchNet, Husain et al. 2019) trained offline on 124k docstring/code pairs of
//!   public PyPI packages ([`super::wordvec`]): a query is the sum of its words'
//!   query-side vectors, a chunk the sum of its words' code-side vectors, the name line's
//!   words counted [`CODE_NAME_WEIGHT`] times. It matches meaning the letters do not
//!   share (`remove an entry` and `discard`, `del`), which BM25 cannot.
//!
//! Context vectors learned from the repository's own co-occurrences (random indexing)
//! and word vectors distilled from multilingual-e5-small (Model2Vec-style) were tried
//! and lost to this on the searchbench, so they are not used. The model's identity
//! ([`Embedder::id`]) includes a hash of its learned statistics and of the word tables,
//! so vectors of an older fit are never mixed in.

use std::collections::HashMap;

use rayon::prelude::*;

use super::wordvec::WordVectors;
use super::{normalize, EmbedError, Embedder};

use crate::index::search::tokenize::tokenize;

/// Vector length.
pub const DIMENSIONS: usize = 256;
/// Signed coordinates per hashed term.
pub const NONZEROS: usize = 2;
/// Terms kept in the learned vocabulary (most frequent by document frequency).
pub const MAX_VOCABULARY: usize = 200_000;

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

/// Occurrences of a term in a text and the largest boost of the places it occurs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TermCount {
    /// Occurrences.
    pub tf: u32,
    /// Largest boost among its occurrences (1, [`NAME_WEIGHT`] or [`NEIGHBOUR_WEIGHT`]).
    pub boost: f32,
}

/// Weight of a term in the definition's name line of the header.
pub const NAME_WEIGHT: f32 = 10.0;
/// Weight of a term in the header's callee and caller lists.
pub const NEIGHBOUR_WEIGHT: f32 = 0.5;

/// How many times a word of the definition's name line counts in the learned half (as
/// in training, `assets/wordvec/train.py`).
pub const CODE_NAME_WEIGHT: f32 = 2.0;

/// Weight of a query's learned half against its lexical half (each unit length before
/// weighting), so a query's cosine with a chunk ranks as `lexical + 3 · learned`. Chosen on
/// the searchbench (`docs/accuracy.md#search-quality`) over flask, requests, click and three
/// packages outside the training data (werkzeug, jinja2, boltons): 1, 2, 2.5, 3, 5 and
/// 100 gave hybrid MRR@10 means of 0.470, 0.483, 0.484, 0.487, 0.485 and 0.471 (semantic
/// mode alone: 0.445 at 1, 0.458 at 2, 0.450 at 3). The lexical half repeats what BM25 already
/// sees, so weighting the learned half higher helps the fusion most. Chunk vectors are
/// unchanged: this is applied to queries only.
pub const QUERY_LEARNED_WEIGHT: f32 = 3.0;

/// The terms of a text. In an embedding input (header starting `file: `, a blank line,
/// the chunk), the definition's name line of the header (`function: Outer.name`) gets
/// [`NAME_WEIGHT`], the `calls:` and `called by:` lines [`NEIGHBOUR_WEIGHT`], the rest 1.
pub fn terms(text: &str) -> HashMap<String, TermCount> {
    bags(text).0
}

/// Stemmed terms and the raw words (lowercased, unstemmed) they came from, weighted as
/// in [`terms`].
pub fn bags(text: &str) -> (Bags, Bags) {
    let mut m = (HashMap::new(), HashMap::new());
    let (header, body) = match text.split_once("\n\n") {
        Some((h, b)) if h.starts_with("file: ") => (h, b),
        _ => ("", text),
    };
    for line in header.lines() {
        let w = if line.starts_with("calls: ") || line.starts_with("called by: ") {
            NEIGHBOUR_WEIGHT
        } else if line.starts_with("file: ")
            || line.starts_with("within: ")
            || line.starts_with("lines ")
        {
            1.0
        } else {
            NAME_WEIGHT
        };
        add_terms(&mut m, line, w);
    }
    add_terms(&mut m, body, 1.0);
    m
}

/// Term (or word) to its count and boost.
pub type Bags = HashMap<String, TermCount>;

fn add_terms(m: &mut (Bags, Bags), text: &str, boost: f32) {
    for t in tokenize(text) {
        if t.whole || t.text.len() < 2 || t.text.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if STOP.contains(&t.text.as_str()) {
            continue;
        }
        for (map, key) in [(&mut m.0, stem(&t.text)), (&mut m.1, t.text)] {
            let e = map.entry(key).or_default();
            e.tf += 1;
            e.boost = e.boost.max(boost);
        }
    }
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

/// Adds the counts of `b` into `a`.
fn merge(mut a: HashMap<String, u32>, b: HashMap<String, u32>) -> HashMap<String, u32> {
    for (k, v) in b {
        *a.entry(k).or_insert(0) += v;
    }
    a
}

/// First bytes of a saved fit ([`OfflineEmbedder::to_bytes`]).
const FIT_MAGIC: &[u8; 8] = b"CGTFIT02";

/// A saved fit: `S` is `&str` when writing, `String` when reading (same encoding).
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedFit<S> {
    fingerprint: S,
    default_idf: f32,
    idf: Vec<(S, f32)>,
}

/// The fitted offline model: document frequencies of the repository's terms.
pub struct OfflineEmbedder {
    idf: HashMap<String, f32>,
    default_idf: f32,
    fingerprint: String,
}

impl OfflineEmbedder {
    /// Learns inverse document frequencies from `texts` (the chunks' embedding inputs),
    /// keeping the [`MAX_VOCABULARY`] most frequent terms; unseen terms get the idf of a
    /// term seen once.
    pub fn fit(texts: &[String]) -> OfflineEmbedder {
        let df: HashMap<String, u32> = texts
            .par_iter()
            .fold(HashMap::new, |mut df: HashMap<String, u32>, t| {
                for term in terms(t).into_keys() {
                    *df.entry(term).or_insert(0) += 1;
                }
                df
            })
            .reduce(HashMap::new, |a, b| {
                if a.len() < b.len() {
                    merge(b, a)
                } else {
                    merge(a, b)
                }
            });
        let n = texts.len().max(1) as f32;
        let mut vocab: Vec<(String, u32)> = df.into_iter().collect();
        vocab.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        vocab.truncate(MAX_VOCABULARY);
        let idf_of = |c: f32| ((n + 1.0) / (c + 0.5)).ln().max(0.01);
        let mut fp = blake3::Hasher::new();
        fp.update(
            format!("offline-v2 {DIMENSIONS} {NONZEROS} {NAME_WEIGHT} {NEIGHBOUR_WEIGHT}")
                .as_bytes(),
        );
        for (t, c) in &vocab {
            fp.update(t.as_bytes());
            fp.update(&c.to_le_bytes());
        }
        OfflineEmbedder {
            idf: vocab
                .into_iter()
                .map(|(t, c)| (t, idf_of(c as f32)))
                .collect(),
            default_idf: idf_of(1.0),
            fingerprint: fp.finalize().to_hex()[..16].to_string(),
        }
    }

    /// The fitted statistics as bytes, for [`OfflineEmbedder::from_bytes`]: `CGTFIT02`,
    /// then the fingerprint, the default idf and every (term, idf) in term order as
    /// postcard (the cache's encoding, `crate::index::store`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut idf: Vec<(&str, f32)> = self.idf.iter().map(|(t, v)| (t.as_str(), *v)).collect();
        idf.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let fit = SavedFit {
            fingerprint: self.fingerprint.as_str(),
            default_idf: self.default_idf,
            idf,
        };
        let mut b = FIT_MAGIC.to_vec();
        // Encoding into memory cannot fail; an empty payload would only be refitted.
        b.extend(postcard::to_allocvec(&fit).unwrap_or_default());
        b
    }

    /// Reads what [`OfflineEmbedder::to_bytes`] wrote; `None` for anything else
    /// (truncated, garbled, trailing bytes, another format).
    pub fn from_bytes(b: &[u8]) -> Option<OfflineEmbedder> {
        let body = b.strip_prefix(FIT_MAGIC.as_slice())?;
        let (fit, rest): (SavedFit<String>, _) = postcard::take_from_bytes(body).ok()?;
        if !rest.is_empty() {
            return None;
        }
        Some(OfflineEmbedder {
            idf: fit.idf.into_iter().collect(),
            default_idf: fit.default_idf,
            fingerprint: fit.fingerprint,
        })
    }

    fn vector(&self, text: &str) -> Vec<f32> {
        self.vector_of(text, false)
    }

    /// The vector of `text`: a chunk's embedding input, or (`query`) a search query,
    /// whose learned half reads the query-side word table.
    fn vector_of(&self, text: &str, query: bool) -> Vec<f32> {
        // Summed in term order, not the maps' (random) order: the same text then gets the
        // same bits in every process, and a query's `i8` codes (`search::scan`) with them.
        let sorted = |b: Bags| {
            let mut v: Vec<(String, TermCount)> = b.into_iter().collect();
            v.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            v
        };
        let (stems, words) = bags(text);
        let (stems, words) = (sorted(stems), sorted(words));
        let mut v = vec![0.0; DIMENSIONS];
        for (t, c) in stems {
            // A query term no chunk contains could only match by a hash collision.
            // Document frequencies weigh the query only (SMART lnc.ltc): a chunk's vector
            // then depends on its own text alone, so an edit elsewhere never changes it.
            let idf = if query {
                match self.idf.get(&t) {
                    Some(&idf) => idf,
                    // A query term no chunk contains could only match by a hash collision.
                    None => continue,
                }
            } else {
                1.0
            };
            let w = c.boost * (1.0 + (c.tf.max(1) as f32).ln()) * idf;
            for (i, s) in hash_term(&t) {
                v[i] += s * w;
            }
        }
        normalize(&mut v);
        let wv = if query {
            WordVectors::query_side()
        } else {
            WordVectors::code_side()
        };
        let mut learned = vec![0.0; wv.dims()];
        for (t, c) in words {
            // The callee and caller lists were not part of the training pairs.
            if c.boost < 1.0 {
                continue;
            }
            let w = if !query && c.boost >= NAME_WEIGHT {
                CODE_NAME_WEIGHT
            } else {
                1.0
            };
            wv.add_to(&t, w, &mut learned);
        }
        normalize(&mut learned);
        if query {
            learned.iter_mut().for_each(|x| *x *= QUERY_LEARNED_WEIGHT);
        }
        v.extend(learned);
        normalize(&mut v);
        v
    }
}

impl Embedder for OfflineEmbedder {
    /// Names what chunk vectors depend on: the hashing, the weights and the word tables,
    /// not the fit (which weighs queries only), so cached vectors outlive an edit.
    fn id(&self) -> String {
        format!(
            "offline-nbow-lnc-{DIMENSIONS}-{NONZEROS}-{NAME_WEIGHT}-{NEIGHBOUR_WEIGHT}-{CODE_NAME_WEIGHT}-{}-{}",
            WordVectors::query_side().fingerprint(),
            WordVectors::code_side().fingerprint()
        )
    }

    fn cache_slot(&self) -> String {
        "offline".to_string()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.par_iter().map(|t| self.vector(t)).collect())
    }

    /// The query less English function words ([`crate::index::search::query`]), as BM25
    /// sees it; its learned half reads the query-side word table.
    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let q = crate::index::search::query::Query::parse(query);
        Ok(self.vector_of(&q.ranking_words().join(" "), true))
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
    fn a_saved_fit_reads_back_the_same_and_damage_is_refused() {
        let docs: Vec<String> = ["def parse(x): return x", "def render(page): page.draw()"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let m = OfflineEmbedder::fit(&docs);
        let b = m.to_bytes();
        let back = OfflineEmbedder::from_bytes(&b).expect("reads back");
        assert_eq!(back.id(), m.id());
        // The same up to the order of float sums (terms come out of a hash map).
        let close = |a: &[f32], b: &[f32]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
        };
        for (a, b) in back
            .embed(&docs)
            .expect("offline")
            .iter()
            .zip(&m.embed(&docs).expect("offline"))
        {
            assert!(close(a, b));
        }
        let q = |e: &OfflineEmbedder| e.embed_query("render a page").expect("offline");
        assert!(close(&q(&back), &q(&m)));
        assert!(q(&m).iter().any(|x| *x != 0.0));
        assert!(OfflineEmbedder::from_bytes(&b[..b.len() - 1]).is_none());
        let mut longer = b.clone();
        longer.push(0);
        assert!(OfflineEmbedder::from_bytes(&longer).is_none());
        assert!(OfflineEmbedder::from_bytes(b"CGTFIT01\xff\xff\xff\xff").is_none());
        assert!(OfflineEmbedder::from_bytes(b"").is_none());
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

    #[test]
    fn the_learned_half_matches_meaning_without_shared_letters() {
        // No query word occurs in either chunk, so the lexical half scores both 0; only
        // the learned word tables can tell the chunk that deletes from the one that
        // draws.
        let docs: Vec<String> = [
            "def discard(self, key):\n    del self._data[key]",
            "def paint(self, canvas):\n    canvas.draw(self.shape, self.color)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let m = OfflineEmbedder::fit(&docs);
        let v = m.embed(&docs).expect("offline never fails");
        let q = m
            .embed_query("remove an entry")
            .expect("offline never fails");
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let lexical = |a: &[f32], b: &[f32]| dot(&a[..DIMENSIONS], &b[..DIMENSIONS]);
        assert_eq!(lexical(&q, &v[0]), 0.0);
        assert_eq!(lexical(&q, &v[1]), 0.0);
        assert!(
            dot(&q, &v[0]) > dot(&q, &v[1]) + 0.05,
            "{} vs {}",
            dot(&q, &v[0]),
            dot(&q, &v[1])
        );
    }
}
