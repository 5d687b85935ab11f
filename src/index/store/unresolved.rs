//! `unresolved.bin`: the graph's unresolved calls by caller, written straight from the
//! graph and grouped again on a load's first use ([`UnresolvedSource`]). Its own module
//! because its rows and their two directions are the format of that one file.

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::LoadError;
use crate::index::graph::{CallerCalls, Site, UnresolvedMap, UnresolvedSource};
use crate::index::{CodeGraph, Unresolved, UnresolvedReason};

/// One caller's unresolved calls as `unresolved.bin` stores them: the caller's node
/// position and id, its file (as the length of the id's prefix that is the path, which it
/// is for every id the engine makes, `docs/contracts.md#node-ids`; or whole), then the
/// calls. With the id stored, a load groups the calls without decoding the caller's node
/// (see [`UnresolvedSource`]); without it, on the fetch.sh corpus, every file's nodes would
/// be decoded before any walk could count what it might be missing. Strings are borrowed
/// (`Cow`): from the graph when saving, from the file's bytes when loading.
#[derive(Debug, Serialize, Deserialize)]
struct CallerRow<'a> {
    caller: u32,
    #[serde(borrow)]
    id: Cow<'a, str>,
    /// The caller's file is `id[..path_len]` when `file` is `None`.
    path_len: u32,
    #[serde(borrow)]
    file: Option<Cow<'a, str>>,
    #[serde(borrow)]
    calls: Vec<CallRow<'a>>,
}

/// An unresolved call as stored in its caller's [`CallerRow`]: the site's file only when
/// it is not the caller's (it always is today; the field keeps the format honest).
#[derive(Debug, Serialize, Deserialize)]
struct CallRow<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    receiver: Option<Cow<'a, str>>,
    #[serde(borrow)]
    file: Option<Cow<'a, str>>,
    line: u32,
    column: u32,
    reason: UnresolvedReason,
}

/// Every unresolved call of a graph by caller, serialized as a `Vec<CallerRow>` straight
/// from the graph (no row list is built: 550K calls of 95K callers on the fetch.sh corpus).
pub(super) struct UnresolvedRows<'a>(pub(super) &'a CodeGraph);

impl Serialize for UnresolvedRows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let g = self.0;
        let groups = g.unresolved_groups();
        let mut seq = s.serialize_seq(Some(g.unresolved_callers()))?;
        for (caller, calls) in groups {
            let (pos, file) = g.position_of(caller).ok_or_else(|| {
                S::Error::custom(format!("unresolved call of unknown node {caller}"))
            })?;
            let prefix = caller.starts_with(file);
            seq.serialize_element(&CallerRow {
                caller: pos,
                id: Cow::Borrowed(caller),
                path_len: if prefix { file.len() as u32 } else { 0 },
                file: (!prefix).then_some(Cow::Borrowed(file)),
                calls: calls
                    .iter()
                    .map(|u| CallRow {
                        name: (&*u.name).into(),
                        receiver: u.receiver.as_deref().map(Into::into),
                        file: (&*u.site.file != file).then(|| (&*u.site.file).into()),
                        line: u.site.line,
                        column: u.site.column,
                        reason: u.reason,
                    })
                    .collect(),
            })?;
        }
        seq.end()
    }
}

/// The unresolved call a stored row describes, made by `caller` in the file `path`.
fn unresolved_of_row(r: CallRow<'_>, caller: &Arc<str>, path: &Arc<str>) -> Unresolved {
    Unresolved {
        caller: caller.clone(),
        name: Arc::from(&*r.name),
        receiver: r.receiver.map(|r| Arc::from(&*r)),
        site: Site {
            file: r.file.map_or_else(|| path.clone(), |f| Arc::from(&*f)),
            line: r.line,
            column: r.column,
        },
        reason: r.reason,
    }
}

/// The rows of `unresolved.bin`, checked, grouped by caller when the graph first needs
/// them (see [`UnresolvedSource`]).
#[derive(Debug)]
pub(super) struct UnresolvedBytes(Vec<u8>);

impl UnresolvedBytes {
    /// Calls `f` with each caller's row of the payload in order, its strings borrowed,
    /// until `f` fails.
    ///
    /// Errors: `f`'s, or [`LoadError::Corrupt`] for a row that does not decode or bytes
    /// after the last.
    fn for_each_caller<'a>(
        &'a self,
        mut f: impl FnMut(CallerRow<'a>) -> Result<(), LoadError>,
    ) -> Result<(), LoadError> {
        let bad = |why: String| LoadError::Corrupt(format!("unresolved: {why}"));
        let (count, mut rest) =
            postcard::take_from_bytes::<u64>(&self.0).map_err(|e| bad(e.to_string()))?;
        for _ in 0..count {
            let (row, after) =
                postcard::take_from_bytes::<CallerRow<'_>>(rest).map_err(|e| bad(e.to_string()))?;
            rest = after;
            f(row)?;
        }
        if !rest.is_empty() {
            return Err(bad(format!("{} bytes after the last row", rest.len())));
        }
        Ok(())
    }

    /// Checks that every row decodes, its caller is one of `nodes` node positions, its
    /// path lies within its id, and the callers' ids strictly increase (as a save writes
    /// them): the grouping relies on that order, and a caller listed twice would have the
    /// calls of one row silently replaced by the other's.
    pub(super) fn check(bytes: Vec<u8>, nodes: u32) -> Result<UnresolvedBytes, LoadError> {
        let u = UnresolvedBytes(bytes);
        let mut last: Option<Cow<'_, str>> = None;
        let checked = u.for_each_caller(|row| {
            if last.as_deref().is_some_and(|l| l >= &*row.id) {
                return Err(LoadError::Corrupt(
                    "unresolved: callers out of order".into(),
                ));
            }
            if row.caller >= nodes {
                return Err(LoadError::Corrupt(
                    "unresolved call of a missing node".into(),
                ));
            }
            if row.file.is_none() && !row.id.is_char_boundary(row.path_len as usize) {
                return Err(LoadError::Corrupt(format!(
                    "unresolved: the path of {} is not a prefix of it",
                    row.id
                )));
            }
            last = Some(row.id);
            Ok(())
        });
        drop(last);
        checked.map(|()| u)
    }
}

impl UnresolvedSource for UnresolvedBytes {
    fn group(&self) -> UnresolvedMap {
        let mut groups: Vec<(Arc<str>, CallerCalls)> = Vec::new();
        // Callers come sorted by id, so one file's callers follow each other: its path is
        // made once for them.
        let mut path: Arc<str> = Arc::from("");
        // Checked when loaded: only a file changed on disk since fails here.
        let _ = self.for_each_caller(|row| {
            let file = match &row.file {
                Some(f) => f,
                None => row.id.get(..row.path_len as usize).unwrap_or_default(),
            };
            if *path != *file {
                path = Arc::from(file);
            }
            let caller: Arc<str> = Arc::from(&*row.id);
            let calls = row
                .calls
                .into_iter()
                .map(|r| unresolved_of_row(r, &caller, &path))
                .collect();
            groups.push((caller, calls));
            Ok(())
        });
        UnresolvedMap::from_groups(groups)
    }
}
