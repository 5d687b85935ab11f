//! The body of a chunk table (`super::table` has the layout) handed out in pieces, so
//! the writer can hash it and then write it without holding the whole file: 857 MB for
//! the 1.36M chunks of the fetch.sh Rust tree.

use super::scan::CodeRows;

/// The sections of a table's body as `table::write` lays them out, borrowed from what it
/// gathered.
pub(super) struct Sections<'a> {
    pub(super) view: CodeRows<'a>,
    pub(super) rows: &'a [u8],
    pub(super) refs: &'a [u8],
    pub(super) paths: &'a [(u32, u32, u32, u32, &'a str)],
    pub(super) sorted: &'a [u32],
    pub(super) names: &'a [(u64, u32)],
    pub(super) labels: &'a [u8],
    pub(super) path_strings: &'a [u8],
    pub(super) strings: &'a [u8],
}

impl Sections<'_> {
    /// Hands the body's bytes to `out` in file order and in pieces, each section padded
    /// to 8 bytes of the file (`at` is the body's offset in it): the codes column by
    /// column (column-major), the scales, rows, references, paths and their sorted order,
    /// the name hashes, the labels and the two string sections.
    pub(super) fn emit(
        &self,
        at: usize,
        out: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut o = Pieces {
            off: at,
            buf: Vec::with_capacity(PIECE),
            out,
        };
        let (dim, codes) = (self.view.dim, self.view.codes);
        let n = codes.len().checked_div(dim).unwrap_or(0);
        let mut col = vec![0u8; n];
        for j in 0..dim {
            for (r, c) in col.iter_mut().enumerate() {
                *c = codes[r * dim + j] as u8;
            }
            o.put(&col)?;
        }
        o.pad()?;
        for s in self.view.scales {
            o.put(&s.to_le_bytes())?;
        }
        o.pad()?;
        o.put(self.rows)?;
        o.pad()?;
        o.put(self.refs)?;
        o.pad()?;
        for p in self.paths {
            for x in [p.0, p.1, p.2, p.3] {
                o.put(&x.to_le_bytes())?;
            }
        }
        for s in self.sorted {
            o.put(&s.to_le_bytes())?;
        }
        o.pad()?;
        for (h, r) in self.names {
            o.put(&h.to_le_bytes())?;
            o.put(&r.to_le_bytes())?;
        }
        o.pad()?;
        o.put(self.labels)?;
        o.pad()?;
        o.put(self.path_strings)?;
        o.pad()?;
        o.put(self.strings)?;
        o.flush()
    }
}

/// Bytes at most gathered before [`Pieces`] hands them on.
const PIECE: usize = 1 << 16;

/// Small writes gathered into pieces of up to [`PIECE`] bytes, counting the file offset.
struct Pieces<'o> {
    off: usize,
    buf: Vec<u8>,
    out: &'o mut dyn FnMut(&[u8]) -> std::io::Result<()>,
}

impl Pieces<'_> {
    fn put(&mut self, x: &[u8]) -> std::io::Result<()> {
        self.off += x.len();
        if self.buf.len() + x.len() > PIECE {
            self.flush()?;
        }
        if x.len() >= PIECE {
            (self.out)(x)
        } else {
            self.buf.extend_from_slice(x);
            Ok(())
        }
    }

    /// Zeros up to the next multiple of 8 of the file offset.
    fn pad(&mut self) -> std::io::Result<()> {
        let n = self.off.next_multiple_of(8) - self.off;
        self.put(&[0u8; 8][..n])
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            (self.out)(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}
