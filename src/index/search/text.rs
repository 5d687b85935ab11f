//! Full-text search over chunks: a tantivy index with one document per chunk, the code
//! tokenizer of [`super::tokenize`] and BM25 scoring, with the name and qualified-name
//! fields boosted over doc comments and content.
//!
//! On disk the index is `<cache dir>/text/index/` (`docs/contracts.md#cache-layout`). Its last commit's
//! payload maps every file to a fingerprint of that file's chunks (BLAKE3 over each
//! chunk's key, metadata and text), so the map and the documents change in one atomic
//! tantivy commit. Opening compares the map with the current chunks: equal, the index is
//! used as is; some files differ, their documents are deleted by path and added again,
//! then the segments are merged so deleted documents leave BM25's document frequencies
//! (the merged segment's token count is tantivy's estimate from the 1-byte field norms, so
//! scores can differ from a fresh index's by a fraction of a percent); no usable map, a new
//! index is built beside the old one
//! and swapped in by renames, so a failed build leaves the previous index in place.
//! Without a cache dir the index lives in RAM.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use tantivy::collector::TopDocs;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, Occur, PhraseQuery, TermQuery, TermSetQuery,
};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, STORED, STRING,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index as TvIndex, IndexReader, TantivyDocument, Term};

use super::query::Query;
use super::tokenize::{tokenize, CodeTokenizer, CODE_TOKENIZER};
use super::{SearchChunk, SearchError};
use crate::index::store::SnapshotDigest;
use crate::index::Progress;

/// Whether the index in `dir/index` may be trusted: its files are as they were when a
/// writer last checked them (the stamp in `dir/checked`), or they pass tantivy's
/// checksums now. Checking reads every byte (about 90 ms and the whole index in memory on
/// a 250 MB index), so it is done once per change of the files, not per process; a
/// damaged byte that changed no length or time goes unseen until the files change.
fn checked(dir: &Path, index: &TvIndex) -> bool {
    let stamp = super::stamp::of_files_in(&dir.join("index"));
    if stamp.is_some() && std::fs::read_to_string(dir.join("checked")).ok() == stamp {
        return true;
    }
    matches!(index.validate_checksum(), Ok(ref bad) if bad.is_empty())
}

/// Runs `f` on tantivy, turning a panic into an error: tantivy trusts the bytes it reads
/// (a damaged fast-field header makes it slice out of bounds), and a damaged cache must
/// be rebuilt, never crash the process.
fn guarded<T>(
    location: &Path,
    f: impl FnOnce() -> Result<T, SearchError>,
) -> Result<T, SearchError> {
    crate::fatal::catch_quietly(f).unwrap_or_else(|panic| {
        Err(SearchError::Tantivy {
            path: location.to_path_buf(),
            source: tantivy::TantivyError::InternalError(format!("damaged index: {panic}")),
        })
    })
}

/// Records that the index in `dir/index` was just built or checked ([`checked`]); a
/// stamp that cannot be written only means the next process checks again.
fn mark_checked(dir: &Path, t: TextIndex) -> TextIndex {
    if let Some(stamp) = super::stamp::of_files_in(&dir.join("index")) {
        // An index reused as is keeps its stamp: no write on every warm open.
        if std::fs::read_to_string(dir.join("checked")).ok().as_ref() != Some(&stamp) {
            let _ = super::write_atomic(&dir.join("checked"), stamp.as_bytes());
        }
    }
    t
}

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
    /// The chunk's path as one raw term: what an update deletes by.
    file: Field,
    /// Stored only: the chunk's definition id ([`SearchChunk::id`]).
    id: Field,
    /// Stored only: the chunk's position among its file's chunks (0-based), so hits
    /// answered from the index alone tie in chunk order as [`super::Searcher`]'s do.
    ord: Field,
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
        kind: b.add_text_field("kind", STRING | STORED),
        file: b.add_text_field("file", STRING),
        id: b.add_text_field("id", STORED),
        ord: b.add_u64_field("ord", STORED),
    };
    (b.build(), f)
}

/// The tantivy document of one chunk, the `ord`-th (0-based) of its file.
fn document(f: Fields, c: &SearchChunk, ord: u64) -> TantivyDocument {
    let mut d = TantivyDocument::default();
    d.add_text(f.key, &c.key);
    d.add_text(f.name, &c.name);
    d.add_text(f.qname, &c.qualified_name);
    d.add_text(f.doc, &c.doc);
    d.add_text(f.content, &c.text);
    d.add_text(f.path, &c.path);
    d.add_text(f.lang, &c.language);
    d.add_text(f.kind, &c.kind);
    d.add_text(f.file, &c.path);
    d.add_text(f.id, &c.id);
    d.add_u64(f.ord, ord);
    d
}

/// Each chunk with its position among its file's chunks (`chunks` in path order).
fn with_ords(chunks: &[SearchChunk]) -> impl Iterator<Item = (&SearchChunk, u64)> {
    let mut prev: Option<&str> = None;
    let mut ord = 0;
    chunks.iter().map(move |c| {
        ord = if prev == Some(c.path.as_str()) {
            ord + 1
        } else {
            0
        };
        prev = Some(c.path.as_str());
        (c, ord)
    })
}

/// A BM25 hit: the chunk's key, what the index stores of it, and tantivy's score
/// (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct TextHit {
    /// [`SearchChunk::key`]: `<path>:<start_line>-<end_line>`.
    pub key: String,
    /// [`SearchChunk::id`].
    pub id: String,
    /// [`SearchChunk::kind`].
    pub kind: String,
    /// The chunk's position among its file's chunks, 0-based.
    pub ord: u64,
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
    /// Files whose documents were replaced in an existing on-disk index (0 when it was
    /// reused as is or built anew).
    pub files_updated: usize,
}

/// Version tag of the commit payload.
const PAYLOAD_VERSION: u32 = 1;

/// The commit payload: the file fingerprints the index holds and, when known, the saved
/// snapshot whose chunks its documents are.
#[derive(serde::Serialize, serde::Deserialize)]
struct Payload {
    version: u32,
    files: BTreeMap<String, String>,
    /// [`SnapshotDigest::to_hex`]; absent when the documents were made from an index that
    /// was not saved.
    #[serde(default)]
    snapshot: Option<String>,
}

/// Per file (path), BLAKE3 over everything its chunks' documents are built from.
pub fn file_fingerprints(chunks: &[SearchChunk]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut i = 0;
    while i < chunks.len() {
        let path = &chunks[i].path;
        let mut h = blake3::Hasher::new();
        while i < chunks.len() && &chunks[i].path == path {
            let c = &chunks[i];
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
            i += 1;
        }
        out.insert(path.clone(), h.finalize().to_hex().to_string());
    }
    out
}

fn tv_err(path: &Path) -> impl Fn(tantivy::TantivyError) -> SearchError + '_ {
    move |source| SearchError::Tantivy {
        path: path.to_path_buf(),
        source,
    }
}

impl TextIndex {
    /// Opens the index in `dir` and brings it to `chunks`: as is when every file's
    /// fingerprint matches, by replacing the documents of changed files otherwise, or by
    /// building it anew (atomically replacing what was there) when it is missing or
    /// unusable. `dir = None` builds in RAM. `chunks` must be in path order.
    ///
    /// Errors: [`SearchError::Io`] or [`SearchError::Tantivy`] naming the directory; the
    /// previous on-disk index is then still in place.
    ///
    /// `snapshot` is the saved snapshot `chunks` were made from, when they were: recorded
    /// with the documents so that [`open_for_snapshot`](TextIndex::open_for_snapshot)
    /// can trust them later. Any change of documents records it (or its absence); an
    /// index reused as is keeps what it recorded unless `snapshot` names one.
    pub fn open_or_build(
        chunks: &[SearchChunk],
        dir: Option<&Path>,
        snapshot: Option<SnapshotDigest>,
    ) -> Result<TextIndex, SearchError> {
        TextIndex::open_or_build_with(chunks, dir, snapshot, None)
    }

    /// [`open_or_build`](TextIndex::open_or_build) counting into `progress` while it
    /// builds anew: `total` is set to the number of chunks, `done` to the documents
    /// written so far (an index reused or updated per file counts nothing).
    ///
    /// Errors: as [`open_or_build`](TextIndex::open_or_build).
    pub fn open_or_build_with(
        chunks: &[SearchChunk],
        dir: Option<&Path>,
        snapshot: Option<SnapshotDigest>,
        progress: Option<&Progress>,
    ) -> Result<TextIndex, SearchError> {
        let snapshot = snapshot.map(|d| d.to_hex());
        let Some(dir) = dir else {
            let (schema, fields) = schema();
            let index = TvIndex::create_in_ram(schema);
            return TextIndex::fill(
                index,
                fields,
                chunks,
                PathBuf::from("<in memory>"),
                None,
                progress,
            );
        };
        let want = file_fingerprints(chunks);
        let index_dir = dir.join("index");
        // Every segment file ends with a CRC32 (tantivy's footer): a damaged byte would
        // otherwise surface as a panic or a wrong hit deep inside a search. Checked
        // before a reader opens the segments, which is where damage panics first.
        let opened = TextIndex::open_index(&index_dir).and_then(|ix| {
            if checked(dir, &ix) {
                TextIndex::with_reader(ix, &index_dir).map(Some)
            } else {
                Ok(None)
            }
        });
        match opened {
            Ok(None) => {
                tracing::warn!("text index fails its checksums, rebuilding");
            }
            Ok(Some(mut t)) => match t.payload() {
                Some(have) if have.files == want => {
                    if snapshot.is_some() && have.snapshot != snapshot {
                        match t.commit_payload(&want, snapshot.clone()) {
                            Ok(()) => return Ok(mark_checked(dir, t)),
                            Err(e) => tracing::warn!("text index update failed, rebuilding: {e}"),
                        }
                    } else {
                        return Ok(mark_checked(dir, t));
                    }
                }
                Some(have) => match t.update(chunks, &have.files, &want, snapshot.clone()) {
                    Ok(n) => {
                        t.reused = false;
                        t.files_updated = n;
                        return Ok(mark_checked(dir, t));
                    }
                    Err(e) => tracing::warn!("text index update failed, rebuilding: {e}"),
                },
                None => tracing::info!("text index without a file map, rebuilding"),
            },
            Err(e) if index_dir.exists() => {
                tracing::warn!("text index unusable, rebuilding: {e}")
            }
            Err(_) => {}
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
            let payload = Payload {
                version: PAYLOAD_VERSION,
                files: want,
                snapshot,
            };
            drop(TextIndex::fill(
                index,
                fields,
                chunks,
                tmp.join("index"),
                Some(&payload),
                progress,
            )?);
            Ok::<(), SearchError>(())
        })();
        if let Err(e) = built {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        let old = parent.join(format!(".text-old-{}", std::process::id()));
        if std::fs::symlink_metadata(dir).is_ok() {
            std::fs::rename(dir, &old).map_err(io(dir))?;
        }
        if let Err(e) = std::fs::rename(&tmp, dir) {
            let _ = std::fs::rename(&old, dir);
            return Err(io(dir)(e));
        }
        // A leftover that cannot be removed now is removed by the next build.
        let _ = crate::index::fsutil::remove_any(&old);
        let mut t = TextIndex::open(&dir.join("index"))?;
        t.reused = false;
        Ok(mark_checked(dir, t))
    }

    /// The saved text index in `dir` when its documents are the chunks of `snapshot`
    /// and its files pass their checksums: what a process that found the tree as
    /// `snapshot` has it searches without making any chunk (`None`: build as usual with
    /// [`open_or_build`](TextIndex::open_or_build)). Reads only tantivy's metadata and
    /// the segment files' checksums.
    pub fn open_for_snapshot(dir: &Path, snapshot: SnapshotDigest) -> Option<TextIndex> {
        let path = dir.join("index");
        let ix = TextIndex::open_index(&path).ok()?;
        let metas = ix.load_metas().ok()?;
        let p: Payload = serde_json::from_str(metas.payload.as_deref()?).ok()?;
        if p.version != PAYLOAD_VERSION || p.snapshot != Some(snapshot.to_hex()) {
            return None;
        }
        // As in `open_or_build`: a damaged byte must not become a wrong hit.
        if !checked(dir, &ix) {
            tracing::warn!("text index fails its checksums, rebuilding");
            return None;
        }
        TextIndex::with_reader(ix, &path)
            .inspect_err(|e| tracing::warn!("text index unusable, rebuilding: {e}"))
            .ok()
    }

    /// The payload of the last commit; `None` when absent, unreadable or of another
    /// version.
    fn payload(&self) -> Option<Payload> {
        let metas = self.index.load_metas().ok()?;
        let p: Payload = serde_json::from_str(metas.payload.as_deref()?).ok()?;
        (p.version == PAYLOAD_VERSION).then_some(p)
    }

    /// Commits no document change, only a new payload.
    fn commit_payload(
        &mut self,
        files: &BTreeMap<String, String>,
        snapshot: Option<String>,
    ) -> Result<(), SearchError> {
        let err = tv_err(&self.location);
        let mut w = self
            .index
            .writer_with_num_threads::<TantivyDocument>(1, WRITER_HEAP_BYTES)
            .map_err(&err)?;
        let payload = encode_payload(files, snapshot, &self.location)?;
        let mut prepared = w.prepare_commit().map_err(&err)?;
        prepared.set_payload(&payload);
        prepared.commit().map_err(&err)?;
        w.wait_merging_threads().map_err(&err)?;
        self.reader.reload().map_err(&err)
    }

    /// Replaces the documents of every file whose fingerprint differs between `have`
    /// (in the index) and `want` (in `chunks`), commits with the new map, then merges
    /// all segments so BM25 statistics no longer count deleted documents. Returns the
    /// number of files replaced, added or removed.
    fn update(
        &mut self,
        chunks: &[SearchChunk],
        have: &BTreeMap<String, String>,
        want: &BTreeMap<String, String>,
        snapshot: Option<String>,
    ) -> Result<usize, SearchError> {
        let f = self.fields;
        let err = tv_err(&self.location);
        let mut w = self
            .index
            .writer_with_num_threads::<TantivyDocument>(1, WRITER_HEAP_BYTES)
            .map_err(&err)?;
        let mut changed = 0;
        for (path, h) in have {
            if want.get(path) != Some(h) {
                w.delete_term(Term::from_field_text(f.file, path));
                changed += 1;
            }
        }
        for (c, ord) in with_ords(chunks) {
            if have.get(&c.path) != want.get(&c.path) {
                w.add_document(document(f, c, ord)).map_err(&err)?;
            }
        }
        changed += want.keys().filter(|p| !have.contains_key(*p)).count();
        let payload = encode_payload(want, snapshot, &self.location)?;
        let mut prepared = w.prepare_commit().map_err(&err)?;
        prepared.set_payload(&payload);
        prepared.commit().map_err(&err)?;
        let ids = self.index.searchable_segment_ids().map_err(&err)?;
        if ids.len() > 1 {
            w.merge(&ids).wait().map_err(&err)?;
        } else if let Some(id) = ids.first() {
            // One segment with deletes: merging it alone drops them.
            let metas = self.index.searchable_segment_metas().map_err(&err)?;
            if metas.iter().any(|m| m.has_deletes()) {
                w.merge(&[*id]).wait().map_err(&err)?;
            }
        }
        w.wait_merging_threads().map_err(&err)?;
        self.reader.reload().map_err(&err)?;
        Ok(changed)
    }

    /// The tantivy index at `path` with this schema, its tokenizer registered, no segment
    /// opened yet.
    fn open_index(path: &Path) -> Result<TvIndex, SearchError> {
        let index = guarded(path, || TvIndex::open_in_dir(path).map_err(tv_err(path)))?;
        let (expected, _) = schema();
        if index.schema() != expected {
            return Err(SearchError::Tantivy {
                path: path.to_path_buf(),
                source: tantivy::TantivyError::SchemaError("schema changed".into()),
            });
        }
        register(&index);
        Ok(index)
    }

    fn open(path: &Path) -> Result<TextIndex, SearchError> {
        TextIndex::with_reader(TextIndex::open_index(path)?, path)
    }

    /// `index` with its segments opened for reading.
    fn with_reader(index: TvIndex, path: &Path) -> Result<TextIndex, SearchError> {
        let (_, fields) = schema();
        let reader = guarded(path, || index.reader().map_err(tv_err(path)))?;
        Ok(TextIndex {
            index,
            reader,
            fields,
            location: path.to_path_buf(),
            reused: true,
            files_updated: 0,
        })
    }

    /// Adds every chunk to a new index and commits, with the file map as the commit's
    /// payload when given (on disk).
    fn fill(
        index: TvIndex,
        f: Fields,
        chunks: &[SearchChunk],
        location: PathBuf,
        payload: Option<&Payload>,
        progress: Option<&Progress>,
    ) -> Result<TextIndex, SearchError> {
        register(&index);
        let err = tv_err(&location);
        let mut w = index
            .writer_with_num_threads::<TantivyDocument>(1, WRITER_HEAP_BYTES)
            .map_err(&err)?;
        if let Some(p) = progress {
            p.total.store(chunks.len() as u64, Ordering::Relaxed);
            p.done.store(0, Ordering::Relaxed);
        }
        for (i, (c, ord)) in with_ords(chunks).enumerate() {
            w.add_document(document(f, c, ord)).map_err(&err)?;
            // Every 1024 documents: a counter update per document would be measurable
            // against tantivy's own per-document cost on a million chunks.
            if i % 1024 == 1023 {
                if let Some(p) = progress {
                    p.done.store(i as u64 + 1, Ordering::Relaxed);
                }
            }
        }
        if let Some(p) = progress {
            p.done.store(chunks.len() as u64, Ordering::Relaxed);
        }
        let mut prepared = w.prepare_commit().map_err(&err)?;
        if let Some(p) = payload {
            prepared.set_payload(&encode_payload(&p.files, p.snapshot.clone(), &location)?);
        }
        prepared.commit().map_err(&err)?;
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
            files_updated: 0,
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

    /// The best `limit` chunks for `q` by BM25, best first (ties by key). Filters
    /// `lang:` and `kind:` are exact, `path:` is a substring of the path. A query without
    /// words or phrases lists the chunks passing the filters (score 1).
    ///
    /// Errors: [`SearchError::Tantivy`] when the index cannot be read.
    pub fn search(&self, q: &Query, limit: usize) -> Result<Vec<TextHit>, SearchError> {
        guarded(&self.location, || self.search_unguarded(q, limit))
    }

    fn search_unguarded(&self, q: &Query, limit: usize) -> Result<Vec<TextHit>, SearchError> {
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
        for w in q.ranking_words() {
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
        let searcher = self.reader.searcher();
        if !q.paths.is_empty() {
            // `path:` is a substring of the path (as in the semantic list): the paths that
            // contain every one, read from the raw `file` terms, become an exact set.
            let mut files = std::collections::BTreeSet::new();
            for seg in searcher.segment_readers() {
                let inv = seg.inverted_index(f.file).map_err(&err)?;
                let mut terms = inv.terms().stream().map_err(|e| SearchError::Io {
                    path: self.location.clone(),
                    source: e,
                })?;
                while terms.advance() {
                    if let Ok(path) = std::str::from_utf8(terms.key()) {
                        if q.paths.iter().all(|p| path.contains(p.as_str())) {
                            files.insert(path.to_string());
                        }
                    }
                }
            }
            if files.is_empty() {
                return Ok(Vec::new());
            }
            let set = TermSetQuery::new(files.iter().map(|p| Term::from_field_text(f.file, p)));
            clauses.push((Occur::Must, Box::new(set)));
        }
        let query = BooleanQuery::new(clauses);
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
            let text = |field| {
                doc.get_first(field)
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string()
            };
            let key = text(f.key);
            if !q.paths.is_empty() {
                let path = key.rsplit_once(':').map(|(p, _)| p).unwrap_or(&key);
                if !q.paths.iter().all(|p| path.contains(p.as_str())) {
                    continue;
                }
            }
            hits.push(TextHit {
                id: text(f.id),
                kind: text(f.kind),
                ord: doc.get_first(f.ord).and_then(|v| v.as_u64()).unwrap_or(0),
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
        // Equal scores in key order, not document order: an index updated in place holds
        // re-added documents last, and must rank exactly as a fresh one.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
        Ok(hits)
    }

    /// Total size in bytes of the index files (0 in RAM).
    pub fn size_bytes(&self) -> u64 {
        crate::index::fsutil::dir_size(&self.location)
    }

    /// The tantivy index (for tests and tools).
    pub fn tantivy(&self) -> &TvIndex {
        &self.index
    }
}

/// The payload as committed.
///
/// Errors: [`SearchError::Tantivy`] naming `location` (serialising cannot fail for these
/// types; the error keeps it from being a panic).
fn encode_payload(
    files: &BTreeMap<String, String>,
    snapshot: Option<String>,
    location: &Path,
) -> Result<String, SearchError> {
    #[derive(serde::Serialize)]
    struct Borrowed<'a> {
        version: u32,
        files: &'a BTreeMap<String, String>,
        snapshot: Option<String>,
    }
    serde_json::to_string(&Borrowed {
        version: PAYLOAD_VERSION,
        files,
        snapshot,
    })
    .map_err(|e| SearchError::Tantivy {
        path: location.to_path_buf(),
        source: tantivy::TantivyError::InternalError(e.to_string()),
    })
}

fn register(index: &TvIndex) {
    index
        .tokenizers()
        .register(CODE_TOKENIZER, TextAnalyzer::from(CodeTokenizer::default()));
}
