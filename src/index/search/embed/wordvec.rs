//! The word tables of the built-in embedder's learned half: one fixed vector per word,
//! trained offline and compiled into the binary (no download, no network).
//!
//! Two tables, `assets/wordvec/query.bin` (words of natural-language queries) and
//! `assets/wordvec/code.bin` (words of code: camelCase and snake_case parts, lowercased),
//! form a neural bag-of-words dual encoder, the NBoW baseline of CodeSearchNet (Husain
//! et al., 2019): a text's vector is the sum of its words' vectors. They were trained by
//! `assets/wordvec/train.py` on 123,912 pairs (first docstring sentence, code words of
//! the documented function or class) from 119 PyPI packages (`assets/wordvec/README.md`
//! lists them and every step), with vendored copies and every searchbench query left out.
//!
//! File format (all integers little-endian): the 8-byte magic `CGWV1\0\0\0`, `u32` word
//! count `n`, `u32` dimensions `d`, `n` `f32` row scales, `n·d` `i8` codes (row-major;
//! value = code · scale), then the `n` words, each ended by `\n`, in row order.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The query-side table compiled into the binary.
static QUERY: &[u8] = include_bytes!("../../../../assets/wordvec/query.bin");
/// The code-side table compiled into the binary.
static CODE: &[u8] = include_bytes!("../../../../assets/wordvec/code.bin");

const MAGIC: &[u8; 8] = b"CGWV1\0\0\0";

/// A parsed word-vector table. Rows are `i8` codes with one `f32` scale each.
pub struct WordVectors {
    dims: usize,
    rows: HashMap<&'static str, u32>,
    scales: Vec<f32>,
    codes: &'static [i8],
    fingerprint: String,
}

impl WordVectors {
    /// Parses a table in the format of the module docs.
    ///
    /// Errors: a message naming what is malformed (magic, sizes, word list).
    pub fn parse(bytes: &'static [u8]) -> Result<WordVectors, String> {
        let head = bytes
            .get(..16)
            .ok_or("word vectors: shorter than the header")?;
        if &head[..8] != MAGIC {
            return Err("word vectors: bad magic".into());
        }
        let n = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes")) as usize;
        let dims = u32::from_le_bytes(head[12..16].try_into().expect("4 bytes")) as usize;
        let scales_end = 16 + 4 * n;
        let codes_end = scales_end + n * dims;
        let words = bytes
            .get(codes_end..)
            .ok_or("word vectors: truncated rows")?;
        let scales = bytes[16..scales_end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        // SAFETY-free reinterpretation: i8 and u8 have the same size and alignment.
        let codes: &'static [i8] = bytemuck_i8(&bytes[scales_end..codes_end]);
        let words = std::str::from_utf8(words).map_err(|_| "word vectors: words not UTF-8")?;
        let rows: HashMap<&'static str, u32> = words
            .split_terminator('\n')
            .enumerate()
            .map(|(i, w)| (w, i as u32))
            .collect();
        if rows.len() != n {
            return Err(format!(
                "word vectors: {} distinct words for {n} rows",
                rows.len()
            ));
        }
        Ok(WordVectors {
            dims,
            rows,
            scales,
            codes,
            fingerprint: blake3::hash(bytes).to_hex()[..12].to_string(),
        })
    }

    /// The query-side table compiled into the binary, parsed once.
    pub fn query_side() -> &'static WordVectors {
        static PARSED: OnceLock<WordVectors> = OnceLock::new();
        PARSED.get_or_init(|| load(QUERY))
    }

    /// The code-side table compiled into the binary, parsed once.
    pub fn code_side() -> &'static WordVectors {
        static PARSED: OnceLock<WordVectors> = OnceLock::new();
        PARSED.get_or_init(|| load(CODE))
    }

    /// Vector length.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Words in the table.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// `true` for a table without words.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// First 12 hex digits of the BLAKE3 hash of the table (part of the embedder id).
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Adds `weight ×` the vector of `word` (lowercase) to `out` (length [`Self::dims`]).
    /// Returns `false`, changing nothing, for a word not in the table.
    pub fn add_to(&self, word: &str, weight: f32, out: &mut [f32]) -> bool {
        let Some(&r) = self.rows.get(word) else {
            return false;
        };
        let r = r as usize;
        let s = self.scales[r] * weight;
        let row = &self.codes[r * self.dims..(r + 1) * self.dims];
        for (o, &c) in out.iter_mut().zip(row) {
            *o += s * c as f32;
        }
        true
    }
}

impl std::fmt::Debug for WordVectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WordVectors")
            .field("words", &self.rows.len())
            .field("dims", &self.dims)
            .field("fingerprint", &self.fingerprint)
            .finish()
    }
}

fn load(builtin: &'static [u8]) -> WordVectors {
    WordVectors::parse(builtin).expect("the built-in word tables are well-formed")
}

fn bytemuck_i8(b: &'static [u8]) -> &'static [i8] {
    // SAFETY: u8 and i8 have identical size, alignment and validity (every bit pattern is
    // a valid i8), and the lifetime is carried over unchanged.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<i8>(), b.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(words: &[&str], rows: &[[f32; 2]]) -> &'static [u8] {
        let mut b = MAGIC.to_vec();
        b.extend((words.len() as u32).to_le_bytes());
        b.extend(2u32.to_le_bytes());
        let scales: Vec<f32> = rows
            .iter()
            .map(|r| r[0].abs().max(r[1].abs()) / 127.0)
            .collect();
        scales.iter().for_each(|s| b.extend(s.to_le_bytes()));
        for (r, s) in rows.iter().zip(&scales) {
            b.extend(r.iter().map(|x| (x / s).round() as i8 as u8));
        }
        words
            .iter()
            .for_each(|w| b.extend(format!("{w}\n").bytes()));
        Box::leak(b.into_boxed_slice())
    }

    #[test]
    fn adds_known_words_and_ignores_others() {
        let t = WordVectors::parse(table(&["open", "close"], &[[1.0, -2.0], [0.5, 0.25]]))
            .expect("well-formed");
        assert_eq!((t.len(), t.dims()), (2, 2));
        let mut v = [0.0f32; 2];
        assert!(t.add_to("open", 2.0, &mut v));
        assert!(t.add_to("close", 1.0, &mut v));
        assert!(!t.add_to("save", 1.0, &mut v));
        assert!(
            (v[0] - 2.5).abs() < 0.05 && (v[1] + 3.75).abs() < 0.05,
            "{v:?}"
        );
    }

    #[test]
    fn malformed_tables_are_errors() {
        let good = table(&["a", "b"], &[[1.0, 0.0], [0.0, 1.0]]);
        let mut bad_magic = good.to_vec();
        bad_magic[0] = b'X';
        let bad_magic: &'static [u8] = Box::leak(bad_magic.into_boxed_slice());
        assert!(WordVectors::parse(bad_magic).unwrap_err().contains("magic"));
        assert!(WordVectors::parse(&good[..10])
            .unwrap_err()
            .contains("header"));
        assert!(WordVectors::parse(&good[..20])
            .unwrap_err()
            .contains("truncated"));
        let missing_word = &good[..good.len() - 2];
        assert!(WordVectors::parse(missing_word)
            .unwrap_err()
            .contains("1 distinct"));
    }

    #[test]
    fn the_built_in_tables_parse() {
        let (q, c) = (WordVectors::query_side(), WordVectors::code_side());
        assert_eq!(q.dims(), c.dims());
        assert!(
            q.len() > 5_000 && c.len() > 20_000,
            "{} {}",
            q.len(),
            c.len()
        );
        assert_ne!(q.fingerprint(), c.fingerprint());
    }
}
