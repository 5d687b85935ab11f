//! `nodes.bin`: each file's graph nodes in a compact record (definition ids without the
//! file's `<path>::` prefix), mapped on load and decoded one file at a time when the graph
//! first reads it ([`ChunkSource`]). Its own module because the record, its shape-only
//! reader and the mapped source belong together and to nothing else.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::shards::read_sharded;
use super::{LoadError, StoreError};
use crate::index::graph::{ChunkSource, Node, NodeChunk};
use crate::index::Index;

/// The graph's node chunks of `index`, one per file in file order (as every engine graph
/// has them, see [`NodeChunk`]), checked against the files.
///
/// Errors: [`StoreError::Encode`] when a chunk is not its file's (an engine defect).
pub(super) fn file_chunks_of(index: &Index) -> Result<Vec<NodeChunk>, StoreError> {
    let chunks = index.graph.chunks();
    if chunks.len() != index.files.len() {
        return Err(StoreError::Encode(format!(
            "the graph has {} node chunks for {} files",
            chunks.len(),
            index.files.len()
        )));
    }
    for (i, (c, f)) in chunks.iter().zip(&index.files).enumerate() {
        let fits = c.len() == 1 + f.definitions.len()
            && c.first().is_some_and(|n| *n.id == *f.path)
            && c[1..].iter().zip(&f.definitions).all(|(n, d)| n.id == d.id);
        if !fits {
            return Err(StoreError::Encode(format!(
                "the graph's node chunk {i} is not its file's"
            )));
        }
    }
    Ok(chunks)
}

/// The nodes of the files of one shard, serialized as a `Vec<FileNodes>`.
pub(super) struct ShardNodes<'a>(pub(super) &'a [NodeChunk]);

impl Serialize for ShardNodes<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for chunk in self.0 {
            seq.serialize_element(&FileNodes::of(chunk))?;
        }
        seq.end()
    }
}

/// One file's graph nodes as `nodes.bin` stores them: the file node's own fields, then
/// each definition's. The ids of a file's definitions all start with `<path>::`
/// (`docs/contracts.md#node-ids`); the prefix is not stored (on the fetch.sh Rust tree, whose paths run to
/// 100 characters, that is most of each id).
#[derive(Serialize, Deserialize)]
struct FileNodes<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow)]
    language: Cow<'a, str>,
    end_line: u32,
    #[serde(borrow)]
    definitions: Vec<DefinitionNode<'a>>,
}

/// A definition's graph node as [`FileNodes`] stores it.
#[derive(Serialize, Deserialize)]
struct DefinitionNode<'a> {
    /// The id after `<path>::`, or the whole id when `whole` (never, for the engine's ids).
    #[serde(borrow)]
    id: Cow<'a, str>,
    whole: bool,
    kind: crate::index::Kind,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    qualified_name: Cow<'a, str>,
    start_line: u32,
    end_line: u32,
}

impl<'a> FileNodes<'a> {
    /// The record of `chunk` (a file node, then its definitions' nodes), borrowing it.
    fn of(chunk: &'a [Node]) -> FileNodes<'a> {
        let Some((file, defs)) = chunk.split_first() else {
            return FileNodes {
                path: Cow::Borrowed(""),
                language: Cow::Borrowed(""),
                end_line: 0,
                definitions: Vec::new(),
            };
        };
        FileNodes {
            path: Cow::Borrowed(&file.id),
            language: Cow::Borrowed(&file.language),
            end_line: file.end_line,
            definitions: defs
                .iter()
                .map(|n| {
                    let tail =
                        n.id.strip_prefix(&*file.id)
                            .and_then(|t| t.strip_prefix("::"));
                    DefinitionNode {
                        id: Cow::Borrowed(tail.unwrap_or(&n.id)),
                        whole: tail.is_none(),
                        kind: n.kind,
                        name: Cow::Borrowed(&n.name),
                        qualified_name: Cow::Borrowed(&n.qualified_name),
                        start_line: n.start_line,
                        end_line: n.end_line,
                    }
                })
                .collect(),
        }
    }

    /// The nodes of the file, as [`file_chunk`](crate::index::assemble::file_chunk) makes them.
    fn chunk(&self) -> NodeChunk {
        let mut id = String::new();
        let path: Arc<str> = Arc::from(&*self.path);
        let language: Arc<str> = Arc::from(&*self.language);
        let file_node = Node {
            id: path.clone(),
            kind: crate::index::Kind::File,
            name: self.path.rsplit('/').next().unwrap_or(&self.path).into(),
            qualified_name: path.clone(),
            file: path.clone(),
            start_line: 1,
            end_line: self.end_line,
            language: language.clone(),
        };
        std::iter::once(file_node)
            .chain(self.definitions.iter().map(|d| {
                id.clear();
                if !d.whole {
                    id.push_str(&self.path);
                    id.push_str("::");
                }
                id.push_str(&d.id);
                Node {
                    id: Arc::from(id.as_str()),
                    kind: d.kind,
                    name: Arc::from(&*d.name),
                    qualified_name: Arc::from(&*d.qualified_name),
                    file: path.clone(),
                    start_line: d.start_line,
                    end_line: d.end_line,
                    language: language.clone(),
                }
            }))
            .collect()
    }
}

/// `nodes.bin` (checked against `expect`) mapped, each file's record found, its node
/// chunk to be decoded when the graph first needs it (see [`ChunkSource`]).
pub(super) fn map_nodes(path: &Path, expect: &[u8; 32]) -> Result<MappedNodes, LoadError> {
    let (files, map) = read_sharded(path, expect, true, |b, at| {
        // A shard is a `Vec<FileNodes>`: its length (a varint, as postcard writes every
        // length), then the records back to back. Each is read as its shape alone to find
        // where it ends (strings skipped, not checked: the checksum has vouched for the
        // bytes; decoding a 110 MB `nodes.bin` with its strings checked would take 117 ms
        // of a 194 ms graph load, `-v`).
        let bad = |why: String| LoadError::Corrupt(format!("nodes: {why}"));
        let (count, mut rest) =
            postcard::take_from_bytes::<u64>(b).map_err(|e| bad(e.to_string()))?;
        let mut files = Vec::new();
        for _ in 0..count {
            let from = at + (b.len() - rest.len());
            let (f, after) = postcard::take_from_bytes::<FileNodesShape<'_>>(rest)
                .map_err(|e| bad(e.to_string()))?;
            rest = after;
            let to = at + (b.len() - rest.len());
            files.push(MappedFile {
                bytes: from..to,
                nodes: 1 + f.definitions.0,
            });
        }
        if !rest.is_empty() {
            return Err(bad(format!("{} bytes after the last file", rest.len())));
        }
        Ok(files)
    })?;
    Ok(MappedNodes {
        map: map.ok_or_else(|| LoadError::Corrupt("nodes: not mapped".into()))?,
        files,
    })
}

/// A [`FileNodes`] record read for its extent and definition count alone: the same
/// fields in the same order, strings as bytes (not checked as UTF-8), definitions counted
/// (and refused if one claims to be a file node), nothing allocated.
#[derive(Deserialize)]
#[allow(dead_code)] // Read for their extent; only the count is used.
struct FileNodesShape<'a> {
    path: &'a [u8],
    language: &'a [u8],
    end_line: u32,
    definitions: DefinitionCount,
}

/// A [`DefinitionNode`] read for its extent alone (see [`FileNodesShape`]).
#[derive(Deserialize)]
#[allow(dead_code)]
struct DefinitionShape<'a> {
    id: &'a [u8],
    whole: bool,
    kind: crate::index::Kind,
    name: &'a [u8],
    qualified_name: &'a [u8],
    start_line: u32,
    end_line: u32,
}

/// How many definitions a [`FileNodesShape`] holds.
struct DefinitionCount(u32);

impl<'de> Deserialize<'de> for DefinitionCount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Counter;
        impl<'de> serde::de::Visitor<'de> for Counter {
            type Value = DefinitionCount;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence of definition nodes")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<DefinitionCount, A::Error> {
                let mut n = 0u32;
                while let Some(d) = seq.next_element::<DefinitionShape<'de>>()? {
                    if d.kind == crate::index::Kind::File {
                        return Err(serde::de::Error::custom(
                            "a file node among the definitions",
                        ));
                    }
                    n += 1;
                }
                Ok(DefinitionCount(n))
            }
        }
        d.deserialize_seq(Counter)
    }
}

/// Where one file's [`FileNodes`] record lies in a mapped `nodes.bin`.
#[derive(Debug)]
pub(super) struct MappedFile {
    /// Byte range of the record in the mapping.
    bytes: std::ops::Range<usize>,
    /// Nodes it makes: the file node and one per definition.
    pub(super) nodes: u32,
}

/// A mapped `nodes.bin` whose records were checked to decode (see [`map_nodes`]): the
/// node source of a graph loaded from the cache.
#[derive(Debug)]
pub(super) struct MappedNodes {
    map: memmap2::Mmap,
    pub(super) files: Vec<MappedFile>,
}

impl ChunkSource for MappedNodes {
    fn chunk_count(&self) -> usize {
        self.files.len()
    }

    fn nodes_in(&self, i: usize) -> u32 {
        self.files[i].nodes
    }

    fn decode(&self, i: usize) -> NodeChunk {
        let f = &self.files[i];
        match postcard::from_bytes::<FileNodes<'_>>(&self.map[f.bytes.clone()]) {
            Ok(nodes) if 1 + nodes.definitions.len() == f.nodes as usize => nodes.chunk(),
            // Checked when mapped: only a file changed on disk since gets here.
            _ => {
                tracing::error!(file = i, "nodes.bin changed since it was loaded");
                damaged_chunk(i, f.nodes)
            }
        }
    }
}

/// `n` placeholder nodes for chunk `i` of a `nodes.bin` that no longer decodes (see
/// [`ChunkSource::decode`]): a file node, then definitions `<path>::<damaged #k>`.
fn damaged_chunk(i: usize, n: u32) -> NodeChunk {
    let path: Arc<str> = Arc::from(format!("<damaged cache chunk {i}>"));
    let none: Arc<str> = Arc::from("");
    (0..n)
        .map(|k| {
            let id: Arc<str> = if k == 0 {
                path.clone()
            } else {
                Arc::from(format!("{path}::<damaged #{k}>"))
            };
            Node {
                id: id.clone(),
                kind: if k == 0 {
                    crate::index::Kind::File
                } else {
                    crate::index::Kind::Function
                },
                name: id.clone(),
                qualified_name: id,
                file: path.clone(),
                start_line: 1,
                end_line: 1,
                language: none.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::fs::File;

    use super::super::format::decode_all;
    use super::super::shards::write_shards;
    use super::*;

    /// A file's nodes survive `nodes.bin`'s encoding field for field, ids with the file's
    /// `<path>::` prefix (stored without it) and without (stored whole) alike.
    #[test]
    fn a_files_nodes_round_trip_with_and_without_the_path_prefix() {
        let path: Arc<str> = "src/a.rs".into();
        let lang: Arc<str> = "rust".into();
        let node = |id: &str, kind, name: &str, qn: &str, lines: (u32, u32)| Node {
            id: id.into(),
            kind,
            name: name.into(),
            qualified_name: qn.into(),
            file: path.clone(),
            start_line: lines.0,
            end_line: lines.1,
            language: lang.clone(),
        };
        let chunk: NodeChunk = vec![
            node(
                "src/a.rs",
                crate::index::Kind::File,
                "a.rs",
                "src/a.rs",
                (1, 40),
            ),
            node(
                "src/a.rs::Foo::bar",
                crate::index::Kind::Method,
                "bar",
                "a::Foo::bar",
                (3, 9),
            ),
            node(
                "src/a.rs::f#2",
                crate::index::Kind::Function,
                "f",
                "a::f",
                (10, 12),
            ),
            node(
                "elsewhere::g",
                crate::index::Kind::Function,
                "g",
                "g",
                (13, 14),
            ),
            node(
                "src/a.rsx::h",
                crate::index::Kind::Function,
                "h",
                "h",
                (15, 16),
            ),
        ]
        .into();
        let bytes = postcard::to_allocvec(&ShardNodes(std::slice::from_ref(&chunk))).unwrap();
        let files: Vec<FileNodes<'_>> = decode_all(&bytes, "nodes").unwrap();
        let whole: Vec<bool> = files[0].definitions.iter().map(|d| d.whole).collect();
        assert_eq!(whole, [false, false, true, true]);
        let back = files[0].chunk();
        assert_eq!(back.len(), chunk.len());
        for (a, b) in back.iter().zip(chunk.iter()) {
            assert_eq!(a, b);
        }
    }

    /// `nodes.bin` mapped for a lazy graph: the chunk decoded on demand is the one saved;
    /// a definition claiming to be a file node is refused when mapped; a record that no
    /// longer decodes (the file changed after mapping) gives as many placeholder nodes as
    /// were counted, never a panic.
    #[test]
    fn mapped_nodes_decode_each_file_on_demand_and_survive_damage() {
        let path: Arc<str> = "src/a.rs".into();
        let lang: Arc<str> = "rust".into();
        let node = |id: &str, kind| Node {
            id: id.into(),
            kind,
            name: id.rsplit("::").next().unwrap().into(),
            qualified_name: id.into(),
            file: path.clone(),
            start_line: 1,
            end_line: 2,
            language: lang.clone(),
        };
        let file = Node {
            name: "a.rs".into(),
            ..node("src/a.rs", crate::index::Kind::File)
        };
        let chunk: NodeChunk = vec![
            file.clone(),
            node("src/a.rs::f", crate::index::Kind::Function),
            node("src/a.rs::g", crate::index::Kind::Function),
        ]
        .into();
        let b: Arc<str> = "src/b.rs".into();
        let other: NodeChunk = vec![Node {
            id: b.clone(),
            name: "b.rs".into(),
            qualified_name: b.clone(),
            file: b,
            ..file.clone()
        }]
        .into();
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("nodes.bin");
        let both = [chunk.clone(), other.clone()];
        let shards = vec![ShardNodes(&both[..1]), ShardNodes(&both[1..])];
        let hash = write_shards(&bin, shards).unwrap();
        let mapped = map_nodes(&bin, &hash).unwrap();
        assert_eq!(
            (mapped.chunk_count(), mapped.nodes_in(0), mapped.nodes_in(1)),
            (2, 3, 1)
        );
        assert_eq!(&*mapped.decode(1), &*other);
        assert_eq!(&*mapped.decode(0), &*chunk);

        let bad: NodeChunk =
            vec![file.clone(), node("src/a.rs::h", crate::index::Kind::File)].into();
        let hash = write_shards(&bin, vec![ShardNodes(std::slice::from_ref(&bad))]).unwrap();
        let err = map_nodes(&bin, &hash).unwrap_err();
        assert!(format!("{err:?}").contains("nodes: "), "{err:?}");

        std::fs::write(dir.path().join("garbage"), [0xffu8; 64]).unwrap();
        let garbage = File::open(dir.path().join("garbage")).unwrap();
        let damaged = MappedNodes {
            map: unsafe { memmap2::Mmap::map(&garbage) }.unwrap(),
            files: vec![MappedFile {
                bytes: 0..64,
                nodes: 3,
            }],
        };
        let placeholders = damaged.decode(0);
        assert_eq!(placeholders.len(), 3);
        assert_eq!(placeholders[0].kind, crate::index::Kind::File);
        assert!(placeholders[1].id.starts_with(&*placeholders[0].id));
    }
}
