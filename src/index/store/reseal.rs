//! Writing a chosen payload into a saved snapshot as if this engine had written it: a
//! valid header, length and BLAKE3 checksum, and the checksum recorded in the manifest.
//! For the fuzzing harness (`crate::fuzzing`) and its regression tests: every load first
//! checks checksums, so random bytes would never reach a decoder; a resealed part does,
//! which is what a hostile cache folder (written by hand, not damaged) can do too.
//! Nothing else calls it.

use std::io::Write;
use std::path::Path;

use super::format::{begin_checked, decode, finish_checked, read_checked, write_value};
use super::{io, Manifest, StoreError};

/// A file of a snapshot, for [`reseal_part`].
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// `manifest.bin`.
    Manifest,
    /// `facts.bin` (sharded).
    Facts,
    /// `nodes.bin` (sharded).
    Nodes,
    /// `edges.bin`.
    Edges,
    /// `unresolved.bin`.
    Unresolved,
    /// `names.bin`.
    Names,
}

impl Part {
    /// Every part, in the order a fuzz input's selector byte counts them.
    pub const ALL: [Part; 6] = [
        Part::Manifest,
        Part::Facts,
        Part::Nodes,
        Part::Edges,
        Part::Unresolved,
        Part::Names,
    ];

    /// The part's file name in a snapshot folder.
    pub fn file(self) -> &'static str {
        match self {
            Part::Manifest => "manifest.bin",
            Part::Facts => "facts.bin",
            Part::Nodes => "nodes.bin",
            Part::Edges => "edges.bin",
            Part::Unresolved => "unresolved.bin",
            Part::Names => "names.bin",
        }
    }
}

/// Replaces `part` of the live snapshot of the cache folder `dir` with `payload` (the
/// bytes after the header), with a header and checksum this engine build accepts, and
/// records the new checksum in the manifest. A manifest payload that decodes gets the
/// live part checksums put in, so the load goes on to the other parts; one that does not
/// is written as given.
///
/// Errors: the snapshot cannot be read or written, as a message.
#[doc(hidden)]
pub fn reseal_part(dir: &Path, part: Part, payload: &[u8]) -> Result<(), String> {
    let name = std::fs::read_to_string(dir.join("CURRENT")).map_err(|e| e.to_string())?;
    let snap = dir.join(name.trim());
    let manifest_path = snap.join("manifest.bin");
    let bytes = read_checked(&manifest_path, None).map_err(|e| e.to_string())?;
    let mut live: Manifest = decode(&bytes, "manifest").map_err(|e| e.to_string())?;
    let written = match part {
        Part::Manifest => match decode::<Manifest>(payload, "manifest") {
            Ok(mut m) => {
                m.parts = live.parts;
                write_value(&manifest_path, &m).map(drop)
            }
            Err(_) => write_raw(&manifest_path, payload).map(drop),
        },
        _ => write_raw(&snap.join(part.file()), payload).and_then(|hash| {
            let slot = match part {
                Part::Facts => &mut live.parts.facts,
                Part::Nodes => &mut live.parts.nodes,
                Part::Edges => &mut live.parts.edges,
                Part::Unresolved => &mut live.parts.unresolved,
                _ => &mut live.parts.names,
            };
            *slot = hash;
            write_value(&manifest_path, &live).map(drop)
        }),
    };
    written.map_err(|e| e.to_string())
}

/// Writes `payload` verbatim as a checked cache file; returns its checksum.
fn write_raw(path: &Path, payload: &[u8]) -> Result<[u8; 32], StoreError> {
    let mut w = begin_checked(path)?;
    w.write_all(payload).map_err(io(path))?;
    finish_checked(path, w)
}
