//! Harnesses for the search indexes' files in a cache folder: the vector cache, the saved
//! embedder fit and the text index's commit metadata, each written into a scratch cache
//! folder and opened by the code a search runs. Checksums that would refuse random bytes
//! are computed here over the input, so the decoding behind them is what gets fuzzed.

use std::sync::OnceLock;

use super::snapshot::template;
use super::{scratch_lock, work_dir};
use crate::index::search::embed::offline::OfflineEmbedder;
use crate::index::search::hybrid::choose_embedder;
use crate::index::search::vector::{cache_file, embed_inputs, inputs_and_keys};
use crate::index::search::{collect_chunks, Embedder, Query, SearchChunk, TextIndex};

/// The template repository's search chunks, made once.
fn chunks() -> &'static [SearchChunk] {
    static C: OnceLock<Vec<SearchChunk>> = OnceLock::new();
    C.get_or_init(|| collect_chunks(&template().index).0)
}

/// The template's text index in RAM, for the query target.
pub(crate) fn memory_text_index() -> &'static TextIndex {
    static T: OnceLock<TextIndex> = OnceLock::new();
    T.get_or_init(|| TextIndex::open_or_build(chunks(), None, None).expect("in-memory text index"))
}

/// The search indexes' own files: `data[0]` picks the vector cache or the saved embedder
/// fit, the rest is the file (see `vectors` and `fit` below for what the harness adds).
pub fn search_files(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let _ = chunks();
    let _scratch = scratch_lock();
    match pick % 2 {
        0 => vectors(body),
        _ => fit(body),
    }
}

/// A vector cache file: magic and the offline embedder's id are put before `body`
/// (dimension u32 LE, count u64 LE, 32 bytes where the checksum goes, the records), the
/// checksum is computed over it as `save_cache` does, and the template's chunks are
/// embedded with that cache (cached rows used by input hash, the others embedded, all
/// quantised into a vector index), then searched.
fn vectors(body: &[u8]) {
    let t = template();
    let embedder = OfflineEmbedder::fit(&inputs_and_keys(chunks()).0);
    let id = embedder.id();
    let mut file = crate::index::search::vector::CACHE_MAGIC.to_vec();
    file.extend_from_slice(&(id.len() as u32).to_le_bytes());
    file.extend_from_slice(id.as_bytes());
    let sum_at = file.len() + 12;
    file.extend_from_slice(body);
    if file.len() >= sum_at + 32 {
        let mut h = blake3::Hasher::new();
        h.update(&file[..sum_at]);
        h.update(&file[sum_at + 32..]);
        let sum = *h.finalize().as_bytes();
        file[sum_at..sum_at + 32].copy_from_slice(&sum);
    }
    let dir = work_dir("vectors");
    let path = cache_file(&dir, &embedder.cache_slot());
    let _ = std::fs::create_dir_all(path.parent().unwrap_or(&dir));
    if std::fs::write(&path, &file).is_err() {
        return;
    }
    let (inputs, keys) = inputs_and_keys(chunks());
    if let Ok((index, _)) = embed_inputs(&inputs, &keys, &embedder, Some(&dir)) {
        if let Ok(q) = embedder.embed_query("parse the arguments") {
            let _ = (index.top_k(&q, 10), index.top_k(&q, 1000));
        }
    }
    let _ = t;
}

/// A saved embedder fit (`vectors/offline-fit.bin`): the digest `choose_embedder` expects
/// for the template's chunks is put before `body` (the fit as `OfflineEmbedder::to_bytes`
/// writes it), then the embedder is chosen from that cache folder and embeds every chunk
/// and a query.
fn fit(body: &[u8]) {
    let (inputs, keys) = inputs_and_keys(chunks());
    let mut digest = blake3::Hasher::new();
    digest.update(crate::index::store::engine_fingerprint().as_bytes());
    for k in &keys {
        digest.update(k);
    }
    let mut file = digest.finalize().as_bytes().to_vec();
    file.extend_from_slice(body);
    let dir = work_dir("fit");
    let _ = std::fs::create_dir_all(dir.join("vectors"));
    if std::fs::write(dir.join("vectors").join("offline-fit.bin"), &file).is_err() {
        return;
    }
    let Ok((embedder, _, _)) = choose_embedder(&inputs, &keys, Some(&dir), None) else {
        return;
    };
    let _ = embedder.embed(&inputs);
    let _ = embedder.embed_query("parse the arguments");
}

/// Seeds for [`search_files`]: the template's own vector cache (after the id) and saved
/// fit (after the digest), each behind its selector byte.
pub fn search_files_seeds() -> Vec<Vec<u8>> {
    let (inputs, keys) = inputs_and_keys(chunks());
    let embedder = OfflineEmbedder::fit(&inputs);
    let _scratch = scratch_lock();
    let dir = work_dir("seeds");
    let _ = std::fs::remove_dir_all(dir.join("vectors"));
    let mut seeds = Vec::new();
    if embed_inputs(&inputs, &keys, &embedder, Some(&dir)).is_ok() {
        if let Ok(b) = std::fs::read(cache_file(&dir, &embedder.cache_slot())) {
            let skip = 12 + embedder.id().len();
            let mut s = vec![0u8];
            s.extend_from_slice(&b[skip..]);
            seeds.push(s);
        }
    }
    let mut s = vec![1u8];
    s.extend_from_slice(&embedder.to_bytes());
    seeds.push(s);
    seeds
}

/// The text index's commit metadata: `data[0]` picks `meta.json` (tantivy's list of
/// segments, with this crate's file map as the commit payload) or `.managed.json`
/// (tantivy's list of the files it owns), the rest replaces that file in a copy of the
/// template's on-disk text index, which is then opened as a search opens it (used as is,
/// updated, or rebuilt and swapped in) and searched.
pub fn text_index(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let files = text_template();
    let _scratch = scratch_lock();
    let dir = work_dir("text").join("text");
    let _ = std::fs::remove_dir_all(&dir);
    for (name, bytes) in files {
        let p = dir.join("index").join(name);
        let _ = std::fs::create_dir_all(dir.join("index"));
        if std::fs::write(&p, bytes).is_err() {
            return;
        }
    }
    let name = if pick % 2 == 0 {
        "meta.json"
    } else {
        ".managed.json"
    };
    if std::fs::write(dir.join("index").join(name), body).is_err() {
        return;
    }
    if let Ok(t) = TextIndex::open_or_build(chunks(), Some(&dir), None) {
        let _ = t.search(&Query::parse("parse helper"), 10);
    }
}

/// The files of the template's on-disk text index (name, bytes), built once.
fn text_template() -> &'static [(String, Vec<u8>)] {
    static F: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    F.get_or_init(|| {
        let dir = work_dir("text-template").join("text");
        let _ = std::fs::remove_dir_all(&dir);
        drop(TextIndex::open_or_build(chunks(), Some(&dir), None).expect("template text index"));
        let mut files = Vec::new();
        for e in std::fs::read_dir(dir.join("index"))
            .expect("text index folder")
            .flatten()
        {
            if e.path().is_file() && e.file_name() != ".tantivy-writer.lock" {
                let name = e.file_name().to_string_lossy().into_owned();
                files.push((name, std::fs::read(e.path()).expect("text index file")));
            }
        }
        files
    })
}

/// Seeds for [`text_index`]: the template's `meta.json` and `.managed.json`.
pub fn text_index_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, name) in ["meta.json", ".managed.json"].iter().enumerate() {
        if let Some((_, b)) = text_template().iter().find(|(n, _)| n == name) {
            let mut s = vec![i as u8];
            s.extend_from_slice(b);
            seeds.push(s);
        }
    }
    seeds
}
