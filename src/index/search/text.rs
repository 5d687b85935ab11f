//! Full-text search over chunks: a tantivy index with one document per chunk, the code
//! tokenizer of [`super::tokenize`] and BM25 scoring, with the name and qualified-name
//! fields boosted over doc comments and content.
//!
//! On disk the index is `<cache dir>/text/` (DESIGN section 7) with a `fingerprint` file
//! (BLAKE3 over every chunk's key, metadata and text). An index whose fingerprint
//! matches is opened as is; otherwise a new one is built beside it and swapped in by
//! renames, so a failed build leaves the previous index in place. Without a cache dir the
//! index lives in RAM.

use std::path::{Path, PathBuf};

use tantivy::collector::TopDocs;
use tantivy::query::{AllQuery, BooleanQuery, BoostQuery, Occur, PhraseQuery, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, STORED, STRING,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index as TvIndex, IndexReader, TantivyDocument, Term};

use super::query::Query;
use super::tokenize::{tokenize, CodeTokenizer, CODE_TOKENIZER};
use super::{SearchChunk, SearchError};

/// Field boosts: a query word in the definition's name counts this many times a word
/// in its content.
pub const NAME_BOOST: f32 = 4.0;
/// Boost of the qualified-name field.
pub const QUALIFIED_BOOST: f32 = 2.0;
/// Boost of the doc-comment field.
pub const DOC_BOOST: f32 = 1.5;

/// Bytes of RAM the tantivy writer may use while building.
const WRITER_HEAP_BYTES: usize = 64 * 1024 * 1024;

#[derive(Clone, Copy)]
struct Fields {
    key: Field,
    name: Field,
    qname: Field,
    doc: Field,
    content: Field,
    path: Field,
    lang: Field,
    kind: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let code = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(CODE_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let f = Fields {
        key: b.add_text_field("key", STRING | STORED),
        name: b.add_text_field("name", code.clone()),
        qname: b.add_text_field("qualified_name", code.clone()),
        doc: b.add_text_field("doc", code.clone()),
        content: b.add_text_field("content", code.clone()),
        path: b.add_text_field("path", code),
        lang: b.add_text_field("lang", STRING),
        kind: b.add_text_field("kind", STRING),
    };
    (b.build(), f)
}

/// A BM25 hit: the chunk's key and tantivy's score (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct TextHit {
    /// [`SearchChunk::key`].
    pub key: String,
    /// BM25 score, summed over fields with their boosts.
    pub score: f32,
}

/// A built or opened text index.
pub struct TextIndex {
    index: TvIndex,
    reader: IndexReader,
    fields: Fields,
    location: PathBuf,
    /// `true` when an existing on-disk index was reused.
    pub reused: bool,
}

fn tv_err(path: &Path) -> impl Fn(tantivy::TantivyError) -> SearchError + '_ {
    move |source| SearchError::Tantivy {
        path: path.to_path_buf(),
        source,
    }
}

/// BLAKE3 over everything a document is built from, lowercase hex.
pub fn fingerprint(chunks: &[SearchChunk]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"codegraph-tui text index v1\0");
    for c in chunks {
        for s in [
            &c.key,
            &c.name,
            &c.qualified_name,
            &c.doc,
            &c.text,
            &c.language,
            &c.kind,
        ] {
            h.update(&(s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        }
    }
    h.finalize().to_hex().to_string()
}

impl TextIndex {
    /// Opens the index in `dir` when its fingerprint matches `chunks`, else builds it
    /// there (atomically replacing what was there). `dir = None` builds in RAM.
    ///
    /// Errors: [`SearchError::Io`] or [`SearchError::Tantivy`] naming the directory; the
    /// previous on-disk index is then still in place.
    pub fn open_or_build(
        chunks: &[SearchChunk],
        dir: Option<&Path>,
    ) -> Result<TextIndex, SearchError> {
        let Some(dir) = dir else {
            let (schema, fields) = schema();
            let index = TvIndex::create_in_ram(schema);
            return TextIndex::fill(index, fields, chunks, PathBuf::from("<in memory>"));
        };
        let fp = fingerprint(chunks);
        let fp_file = dir.join("fingerprint");
        if std::fs::read_to_string(&fp_file).ok().as_deref() == Some(fp.as_str()) {
            match TextIndex::open(&dir.join("index")) {
                Ok(t) => return Ok(t),
                Err(e) => tracing::warn!("text index unusable, rebuilding: {e}"),
            }
        }
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| SearchError::Io { path, source }
        };
        let parent = dir.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent).map_err(io(parent))?;
        let tmp = parent.join(format!(".text-build-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(tmp.join("index")).map_err(io(&tmp))?;
        let built = (|| {
            let (schema, fields) = schema();
            let index = TvIndex::create_in_dir(tmp.join("index"), schema)
                .map_err(tv_err(&tmp.join("index")))?;
            drop(TextIndex::fill(index, fields, chunks, tmp.join("index"))?);
            std::fs::write(tmp.join("fingerprint"), &fp).map_err(io(&tmp))
        })();
        if let Err(e) = built {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        let old = parent.join(format!(".text-old-{}", std::process::id()));
        if dir.exists() {
            std::fs::rename(dir, &old).map_err(io(dir))?;
        }
        if let Err(e) = std::fs::rename(&tmp, dir) {
            let _ = std::fs::rename(&old, dir);
            return Err(io(dir)(e));
        }
        let _ = std::fs::remove_dir_all(&old);
        let mut t = TextIndex::open(&dir.join("index"))?;
        t.reused = false;
        Ok(t)
    }

    fn open(path: &Path) -> Result<TextIndex, SearchError> {
        let index = TvIndex::open_in_dir(path).map_err(tv_err(path))?;
        let (expected, fields) = schema();
        if index.schema() != expected {
            return Err(SearchError::Tantivy {
                path: path.to_path_buf(),
                source: tantivy::TantivyError::SchemaError("schema changed".into()),
            });
        }
        register(&index);
        let reader = index.reader().map_err(tv_err(path))?;
        Ok(TextIndex {
            index,
            reader,
            fields,
            location: path.to_path_buf(),
            reused: true,
        })
    }

    fn fill(
        index: TvIndex,
        f: Fields,
        chunks: &[SearchChunk],
        location: PathBuf,
    ) -> Result<TextIndex, SearchError> {
        register(&index);
        let err = tv_err(&location);
        let mut w = index
            .writer_with_num_threads::<TantivyDocument>(1, WRITER_HEAP_BYTES)
            .map_err(&err)?;
        for c in chunks {
            let mut d = TantivyDocument::default();
            d.add_text(f.key, &c.key);
            d.add_text(f.name, &c.name);
            d.add_text(f.qname, &c.qualified_name);
            d.add_text(f.doc, &c.doc);
            d.add_text(f.content, &c.text);
            d.add_text(f.path, &c.path);
            d.add_text(f.lang, &c.language);
            d.add_text(f.kind, &c.kind);
            w.add_document(d).map_err(&err)?;
        }
        w.commit().map_err(&err)?;
        w.wait_merging_threads().map_err(&err)?;
        let reader = index.reader().map_err(&err)?;
        reader.reload().map_err(&err)?;
        drop(err);
        Ok(TextIndex {
            index,
            reader,
            fields: f,
            location,
            reused: false,
        })
    }

    /// Number of documents (chunks) in the index.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// `true` when the index holds no chunk.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The best `limit` chunks for `q` by BM25, best first (ties in index order). Filters
    /// `lang:` and `kind:` are exact, `path:` is a substring of the path. A query without
    /// words or phrases lists the chunks passing the filters (score 1).
    ///
    /// Errors: [`SearchError::Tantivy`] when the index cannot be read.
    pub fn search(&self, q: &Query, limit: usize) -> Result<Vec<TextHit>, SearchError> {
        let f = self.fields;
        let err = tv_err(&self.location);
        let mut clauses: Vec<(Occur, Box<dyn tantivy::query::Query>)> = Vec::new();
        let weighted = [
            (f.name, NAME_BOOST),
            (f.qname, QUALIFIED_BOOST),
            (f.doc, DOC_BOOST),
            (f.content, 1.0),
        ];
        let mut seen = std::collections::HashSet::new();
        let mut ranking: Vec<(Occur, Box<dyn tantivy::query::Query>)> = Vec::new();
        for w in &q.words {
            for t in tokenize(w) {
                if !seen.insert(t.text.clone()) {
                    continue;
                }
                for (field, boost) in weighted {
                    let tq = TermQuery::new(
                        Term::from_field_text(field, &t.text),
                        IndexRecordOption::WithFreqs,
                    );
                    ranking.push((
                        Occur::Should,
                        Box::new(BoostQuery::new(Box::new(tq), boost)),
                    ));
                }
            }
        }
        let has_words = !ranking.is_empty();
        if has_words {
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(ranking))));
        }
        for p in &q.phrases {
            let parts: Vec<String> = tokenize(p)
                .into_iter()
                .filter(|t| !t.whole)
                .map(|t| t.text)
                .collect();
            if parts.is_empty() {
                continue;
            }
            let mut any: Vec<(Occur, Box<dyn tantivy::query::Query>)> = Vec::new();
            for (field, boost) in weighted {
                let inner: Box<dyn tantivy::query::Query> = if parts.len() == 1 {
                    Box::new(TermQuery::new(
                        Term::from_field_text(field, &parts[0]),
                        IndexRecordOption::WithFreqs,
                    ))
                } else {
                    Box::new(PhraseQuery::new(
                        parts
                            .iter()
                            .map(|t| Term::from_field_text(field, t))
                            .collect(),
                    ))
                };
                any.push((Occur::Should, Box::new(BoostQuery::new(inner, boost))));
            }
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(any))));
        }
        if clauses.is_empty() {
            if !q.is_empty() {
                return Ok(Vec::new());
            }
            clauses.push((Occur::Must, Box::new(AllQuery)));
        }
        let one_of = |field: Field, values: &[String]| -> Box<dyn tantivy::query::Query> {
            Box::new(BooleanQuery::new(
                values
                    .iter()
                    .map(|v| {
                        let tq: Box<dyn tantivy::query::Query> = Box::new(TermQuery::new(
                            Term::from_field_text(field, v),
                            IndexRecordOption::Basic,
                        ));
                        (Occur::Should, tq)
                    })
                    .collect(),
            ))
        };
        if !q.langs.is_empty() {
            clauses.push((Occur::Must, one_of(f.lang, &q.langs)));
        }
        if !q.kinds.is_empty() {
            clauses.push((Occur::Must, one_of(f.kind, &q.kinds)));
        }
        for p in &q.paths {
            for t in tokenize(p).into_iter().filter(|t| !t.whole) {
                let tq = TermQuery::new(
                    Term::from_field_text(f.path, &t.text),
                    IndexRecordOption::Basic,
                );
                clauses.push((Occur::Must, Box::new(tq)));
            }
        }
        let query = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        // Over-fetch so the exact `path:` substring check cannot starve the list.
        let fetch = if q.paths.is_empty() {
            limit
        } else {
            limit.saturating_mul(4).max(100)
        };
        let top = searcher
            .search(&query, &TopDocs::with_limit(fetch.max(1)).order_by_score())
            .map_err(&err)?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr).map_err(&err)?;
            let key = doc
                .get_first(f.key)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string();
            if !q.paths.is_empty() {
                let path = key.rsplit_once(':').map(|(p, _)| p).unwrap_or(&key);
                if !q.paths.iter().all(|p| path.contains(p.as_str())) {
                    continue;
                }
            }
            hits.push(TextHit {
                key,
                score: if has_words || !q.phrases.is_empty() {
                    score
                } else {
                    1.0
                },
            });
            if hits.len() == limit {
                break;
            }
        }
        Ok(hits)
    }

    /// Total size in bytes of the index files (0 in RAM).
    pub fn size_bytes(&self) -> u64 {
        dir_size(&self.location)
    }

    /// The tantivy index (for tests and tools).
    pub fn tantivy(&self) -> &TvIndex {
        &self.index
    }
}

fn register(index: &TvIndex) {
    index
        .tokenizers()
        .register(CODE_TOKENIZER, TextAnalyzer::from(CodeTokenizer::default()));
}

/// Sum of file sizes under `path` (0 when it does not exist).
pub(crate) fn dir_size(path: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(path) else {
        return std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            _ => e.metadata().map(|m| m.len()).unwrap_or(0),
        })
        .sum()
}
