//! A per-thread bump arena for tree-sitter's allocations while one file is parsed and its
//! facts extracted: the syntax tree is then dropped by resetting the arena, not by freeing
//! it node by node.
//!
//! Why: a bare parse of the fetch.sh Rust tree spends about a quarter of its CPU in glibc's
//! `malloc`/`free` and in `ts_tree_delete`, which walks the whole tree to release every
//! subtree (`perf record` of `index --parse-only`: `ts_subtree_release` 9%, `_int_malloc`,
//! `malloc`, `malloc_consolidate`, `_int_free` 13%). Inside a [`Scope`], tree-sitter's
//! `malloc` is a pointer bump, its `free` does nothing, and the tree is forgotten; the
//! scope's end makes the memory reusable for the next file. Subtrees allocated one after
//! another also sit together, which the extraction walk reads in about the same order.
//!
//! How it stays sound:
//! * The allocator ([`install`]) routes by thread and address: outside a scope, and for any
//!   pointer not in this thread's arena, it is libc's `malloc` family, which is what
//!   tree-sitter uses by default; so objects made before it was installed, or outside any
//!   scope, are unaffected.
//! * Nothing tree-sitter allocates inside a scope may outlive it. Each scope parses with
//!   its own `Parser` (a reused parser would keep arena subtrees in its free-list pool) and
//!   its own `QueryCursor`, and forgets its trees ([`Scope::forget`]); objects that persist
//!   across files (compiled queries) are made before the scope starts.
//! * `realloc` of a libc pointer inside a scope stays in libc (a persistent object's array
//!   that grows stays where it can be freed).
//!
//! `index --parse-only`, the benchmark's bare tree-sitter parse, never installs it: the
//! baseline is tree-sitter as a plain user runs it.

use std::cell::{Cell, UnsafeCell};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

unsafe extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn calloc(n: usize, size: usize) -> *mut c_void;
    fn realloc(p: *mut c_void, size: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

/// Bytes of one arena chunk. A Rust file of the fetch.sh corpus (19 KB on average) is
/// parsed within one; the largest (1 MiB, the size cap) take a few dozen.
const CHUNK: usize = 4 << 20;

/// Chunk bytes a thread keeps between files; beyond this a scope's end returns chunks to
/// the system allocator, so one huge file does not hold its memory for the rest of a run.
const KEEP: usize = 32 << 20;

/// Alignment of every block: what glibc's `malloc` gives on 64-bit targets.
const ALIGN: usize = 16;

static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Whether this thread is inside a [`Scope`] (a `const` cell: readable from the
    /// allocator at any time, thread teardown included).
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static ARENA: UnsafeCell<Arena> = const { UnsafeCell::new(Arena::new()) };
}

/// One block of arena memory: `start..start + len`.
#[derive(Clone, Copy)]
struct Block {
    start: *mut u8,
    len: usize,
}

impl Block {
    fn contains(&self, p: *const u8) -> bool {
        p >= self.start as *const u8 && (p as usize) < self.start as usize + self.len
    }

    fn layout(len: usize) -> std::alloc::Layout {
        // `len` is a multiple of ALIGN and far below isize::MAX (a file is capped at MiBs).
        std::alloc::Layout::from_size_align(len, ALIGN).expect("arena block layout")
    }

    fn new(len: usize) -> Block {
        let layout = Block::layout(len);
        // SAFETY: `layout` has a non-zero size.
        let start = unsafe { std::alloc::alloc(layout) };
        if start.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Block { start, len }
    }

    /// # Safety
    /// `self` came from [`Block::new`] and nothing points into it any more.
    unsafe fn release(self) {
        // SAFETY: allocated by `Block::new` with this layout.
        unsafe { std::alloc::dealloc(self.start, Block::layout(self.len)) };
    }
}

struct Arena {
    /// Chunks of [`CHUNK`] bytes; `chunks[..=cur]` are in use by the current scope.
    chunks: Vec<Block>,
    cur: usize,
    /// Next free byte of `chunks[cur]` and its end (null before the first chunk).
    top: *mut u8,
    end: *mut u8,
    /// Start of the latest block, which `realloc` may grow in place and `free` give back.
    last: *mut u8,
    /// Blocks too large for a chunk, released at the scope's end.
    big: Vec<Block>,
    /// High-water mark of bytes handed out in one scope (for `-v` logs and tests).
    used: usize,
    peak: usize,
}

impl Arena {
    const fn new() -> Arena {
        Arena {
            chunks: Vec::new(),
            cur: 0,
            top: std::ptr::null_mut(),
            end: std::ptr::null_mut(),
            last: std::ptr::null_mut(),
            big: Vec::new(),
            used: 0,
            peak: 0,
        }
    }

    fn alloc(&mut self, size: usize) -> *mut u8 {
        let size = size.max(1).next_multiple_of(ALIGN);
        self.used += size;
        if size > CHUNK / 4 {
            let b = Block::new(size);
            self.big.push(b);
            return b.start;
        }
        if size > (self.end as usize).saturating_sub(self.top as usize) {
            // The next chunk (kept from an earlier scope, or new).
            if !self.top.is_null() {
                self.cur += 1;
            }
            if self.cur == self.chunks.len() {
                self.chunks.push(Block::new(CHUNK));
            }
            let c = self.chunks[self.cur];
            self.top = c.start;
            // SAFETY: `CHUNK` bytes from `c.start`.
            self.end = unsafe { c.start.add(c.len) };
        }
        let p = self.top;
        // SAFETY: `p + size <= end` (a fresh chunk holds any size up to CHUNK / 4).
        self.top = unsafe { p.add(size) };
        self.last = p;
        p
    }

    /// The block of this scope's memory that holds `p`, if any.
    fn find(&self, p: *const u8) -> Option<Block> {
        if self.top.is_null() && self.big.is_empty() {
            return None;
        }
        let in_use = &self.chunks[..(self.cur + 1).min(self.chunks.len())];
        in_use
            .iter()
            .rev()
            .chain(self.big.iter())
            .find(|b| b.contains(p))
            .copied()
    }

    /// Whether `p` is in any block this thread holds (in use or kept).
    fn owns(&self, p: *const u8) -> bool {
        self.chunks
            .iter()
            .chain(self.big.iter())
            .any(|b| b.contains(p))
    }

    fn free(&mut self, p: *mut u8) {
        if p == self.last && !p.is_null() {
            // The latest block: give its bytes back to the bump.
            self.used -= self.top as usize - p as usize;
            self.top = p;
            self.last = std::ptr::null_mut();
        }
    }

    fn realloc(&mut self, p: *mut u8, size: usize, holder: Block) -> *mut u8 {
        let size = size.max(1).next_multiple_of(ALIGN);
        if p == self.last && size <= self.end as usize - p as usize {
            self.used = self.used + size - (self.top as usize - p as usize);
            // SAFETY: `p + size <= end`, inside the current chunk.
            self.top = unsafe { p.add(size) };
            return p;
        }
        let q = self.alloc(size);
        // The old size is not recorded: copy what the new block holds, but never past the
        // end of the old block's chunk (bytes after the old block are its neighbours',
        // harmless to copy), nor into the new block when it was bumped from the same
        // chunk: the old block ends at or before the bump pointer `q` was taken from.
        let mut room = holder.start as usize + holder.len - p as usize;
        if holder.contains(q) && q > p {
            room = room.min(q as usize - p as usize);
        }
        // SAFETY: `p..p + room` lies in `holder` and ends at or before `q`; `q` has `size`
        // bytes; so the two ranges do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(p, q, size.min(room)) };
        q
    }

    /// Ends a scope: every block becomes free; chunks beyond [`KEEP`] bytes and big
    /// blocks go back to the system allocator.
    fn reset(&mut self) {
        self.peak = self.peak.max(self.used);
        self.used = 0;
        for b in self.big.drain(..) {
            // SAFETY: the scope that used it has ended.
            unsafe { b.release() };
        }
        let keep = KEEP / CHUNK;
        while self.chunks.len() > keep {
            if let Some(b) = self.chunks.pop() {
                // SAFETY: as above.
                unsafe { b.release() };
            }
        }
        self.cur = 0;
        self.top = std::ptr::null_mut();
        self.end = std::ptr::null_mut();
        self.last = std::ptr::null_mut();
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // Thread exit: no scope is active, so nothing points into the blocks.
        for b in self.chunks.drain(..).chain(self.big.drain(..)) {
            // SAFETY: as above.
            unsafe { b.release() };
        }
    }
}

/// Runs `f` on this thread's arena, or returns `None` during thread teardown.
fn with_arena<R>(f: impl FnOnce(&mut Arena) -> R) -> Option<R> {
    // SAFETY: the arena is only reached through this function, from the allocator
    // callbacks and scope ends of its own thread, none of which re-enter it.
    ARENA.try_with(|a| f(unsafe { &mut *a.get() })).ok()
}

fn active() -> bool {
    ACTIVE.with(Cell::get)
}

unsafe extern "C" fn ts_malloc(size: usize) -> *mut c_void {
    if active() {
        if let Some(p) = with_arena(|a| a.alloc(size)) {
            return p.cast();
        }
    }
    // SAFETY: libc's malloc.
    unsafe { malloc(size) }
}

unsafe extern "C" fn ts_calloc(n: usize, size: usize) -> *mut c_void {
    if active() {
        let Some(total) = n.checked_mul(size) else {
            return std::ptr::null_mut();
        };
        if let Some(p) = with_arena(|a| a.alloc(total)) {
            // SAFETY: `p` has at least `total` bytes.
            unsafe { std::ptr::write_bytes(p, 0, total) };
            return p.cast();
        }
    }
    // SAFETY: libc's calloc.
    unsafe { calloc(n, size) }
}

unsafe extern "C" fn ts_realloc(p: *mut c_void, size: usize) -> *mut c_void {
    if p.is_null() {
        // SAFETY: realloc(NULL, n) is malloc(n).
        return unsafe { ts_malloc(size) };
    }
    if active() {
        let moved = with_arena(|a| a.find(p.cast()).map(|b| a.realloc(p.cast(), size, b)));
        if let Some(Some(q)) = moved {
            return q.cast();
        }
    }
    // SAFETY: `p` is not arena memory, so it came from libc (see the module docs).
    unsafe { realloc(p, size) }
}

unsafe extern "C" fn ts_free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    let arena = with_arena(|a| {
        if active() && a.find(p.cast()).is_some() {
            a.free(p.cast());
            true
        } else {
            // Outside a scope an arena pointer would be a leaked object of an ended scope
            // (a bug): leave it alone rather than hand it to libc.
            a.owns(p.cast())
        }
    });
    if arena != Some(true) {
        // SAFETY: `p` is not arena memory, so it came from libc.
        unsafe { free(p) };
    }
}

/// Installs the arena-aware allocator as tree-sitter's. Call it once, first thing in
/// `main`, before any thread uses tree-sitter (tree-sitter's allocator hooks are plain
/// globals). Without it, [`Scope::enter`] returns `None` and parsing uses tree-sitter's
/// default allocation.
pub fn install() {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    // SAFETY: the four functions form one family (libc's, plus arena blocks that only
    // they hand out and take back); they never return null for a non-zero size (libc's
    // abort in tree-sitter's own wrappers is replaced by `handle_alloc_error` in the
    // arena, and libc's malloc failing is as fatal as before); blocks are 16-byte
    // aligned like glibc's. Called before other threads exist (see above); pointers
    // allocated before this by libc are freed by libc.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc: ts_malloc,
            calloc: ts_calloc,
            realloc: ts_realloc,
            free: ts_free,
        }));
    }
}

/// Whether [`install`] ran.
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// The largest number of bytes one scope of this thread handed out (a diagnostic).
pub fn thread_peak() -> usize {
    with_arena(|a| a.peak.max(a.used)).unwrap_or(0)
}

/// While alive, tree-sitter allocations of this thread come from its arena. Not `Send`.
pub struct Scope {
    _not_send: std::marker::PhantomData<*mut ()>,
}

impl Scope {
    /// Starts a scope, or `None` when the allocator is not installed or this thread is
    /// already in one.
    pub fn enter() -> Option<Scope> {
        if !installed() || active() {
            return None;
        }
        ACTIVE.with(|a| a.set(true));
        Some(Scope {
            _not_send: std::marker::PhantomData,
        })
    }

    /// Drops `value` (a tree-sitter object made in this scope) without running its
    /// destructor: the scope's end frees its memory at once.
    pub fn forget<T>(&self, value: T) {
        std::mem::forget(value);
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.set(false));
        with_arena(Arena::reset);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bump allocation, in-place growth of the latest block, copies that keep contents,
    /// giving back the latest block, big blocks, and a reset that keeps [`KEEP`] bytes.
    #[test]
    fn the_arena_hands_out_aligned_blocks_and_reuses_them_after_a_reset() {
        let mut a = Arena::new();
        let p = a.alloc(10);
        assert_eq!(p as usize % ALIGN, 0);
        // SAFETY: 16 bytes were handed out.
        unsafe { std::ptr::write_bytes(p, 7, 16) };
        let q = a.alloc(24);
        assert_eq!(q as usize, p as usize + 16, "one bump after the other");
        // The latest block grows in place; an older one moves and keeps its bytes.
        let holder = a.find(q).expect("q is arena memory");
        assert_eq!(a.realloc(q, 100, holder), q);
        let holder = a.find(p).expect("p is arena memory");
        let p2 = a.realloc(p, 64, holder);
        assert_ne!(p2, p);
        // SAFETY: `p2` has 64 bytes, the first 16 copied from `p`.
        assert_eq!(unsafe { std::slice::from_raw_parts(p2, 16) }, &[7u8; 16]);
        // Freeing the latest block gives its bytes back.
        let top = a.top;
        a.free(p2);
        assert_eq!(a.top, p2);
        assert!(a.top < top);
        // Growing an older block past the bump pointer copies only up to it: the new
        // block, bumped from the same chunk, is not part of the source.
        let holder = a.find(p).expect("p is arena memory");
        let p3 = a.realloc(p, 4096, holder);
        assert!(
            p3 > p && (p3 as usize) < p as usize + 4096,
            "source and target share a chunk"
        );
        // SAFETY: `p3` has 4096 bytes, the first 16 copied from `p`.
        assert_eq!(unsafe { std::slice::from_raw_parts(p3, 16) }, &[7u8; 16]);
        // A block larger than a quarter chunk is its own allocation; many small ones fill
        // more chunks.
        let big = a.alloc(CHUNK);
        assert!(a.find(big).is_some() && a.big.len() == 1);
        for _ in 0..(3 * CHUNK / 4096) {
            a.alloc(4096);
        }
        assert!(a.chunks.len() >= 3);
        let first = a.chunks[0].start;
        a.reset();
        assert!(a.big.is_empty() && a.chunks.len() <= KEEP / CHUNK);
        assert!(a.peak >= CHUNK * 3);
        assert!(a.find(first).is_none(), "nothing is in use after a reset");
        assert!(a.owns(first), "the first chunk is kept");
        assert_eq!(a.alloc(8), first, "and reused first");
    }
}
