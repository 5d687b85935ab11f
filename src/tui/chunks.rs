//! The search box's other modes: full-text (BM25), semantic and hybrid search over code
//! chunks, the engine's [`Searcher`] as `codegraph-tui search --mode` uses it.
//!
//! The UI thread never builds an index nor runs a query: one thread per snapshot builds
//! the [`Searcher`] the first time a chunk mode is used, or in the background as soon as
//! the first full snapshot of the TUI's run is on screen ([`ChunkSearch::prewarm`]) (text only
//! first; again with vectors when semantic or hybrid is asked for), from the index and
//! vectors saved in the
//! cache folder when this instance may write there ([`Snapshot::search_dir`]: only the
//! files that changed are indexed and embedded again), then answers queries newest-first
//! (queries that queued up meanwhile are skipped). Every answer carries the sequence
//! number of its query, and answers older than the newest query are dropped (gitui's
//! generation pattern), so fast typing never shows stale hits over fresh ones.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::index::search::{
    vectors_skipped, ChunkSearcher, Hit, Mode, Prebuild, SavedSearch, Searcher,
};
use crate::index::Progress;
use crate::worker::Snapshot;

/// What the search box searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchMode {
    /// Fuzzy symbol names (nucleo), the default.
    #[default]
    Symbols,
    /// BM25 over chunk text.
    Text,
    /// Embedding similarity.
    Semantic,
    /// Both, fused (reciprocal rank fusion), exact names first.
    Hybrid,
}

impl SearchMode {
    /// The next mode, in the order symbols → text → semantic → hybrid → symbols.
    pub fn next(self) -> SearchMode {
        match self {
            SearchMode::Symbols => SearchMode::Text,
            SearchMode::Text => SearchMode::Semantic,
            SearchMode::Semantic => SearchMode::Hybrid,
            SearchMode::Hybrid => SearchMode::Symbols,
        }
    }

    /// The engine's mode, `None` for symbol search.
    pub fn engine(self) -> Option<Mode> {
        match self {
            SearchMode::Symbols => None,
            SearchMode::Text => Some(Mode::Text),
            SearchMode::Semantic => Some(Mode::Semantic),
            SearchMode::Hybrid => Some(Mode::Hybrid),
        }
    }

    /// The mode's name: `symbols`, `text`, `semantic` or `hybrid`.
    pub fn name(self) -> &'static str {
        match self {
            SearchMode::Symbols => "symbols",
            SearchMode::Text => "text",
            SearchMode::Semantic => "semantic",
            SearchMode::Hybrid => "hybrid",
        }
    }

    /// The panel title.
    pub fn title(self) -> &'static str {
        match self {
            SearchMode::Symbols => " Search symbols ",
            SearchMode::Text => " Search text ",
            SearchMode::Semantic => " Search semantic ",
            SearchMode::Hybrid => " Search hybrid ",
        }
    }
}

/// Held while a search thread builds (or reopens and updates) a [`Searcher`].
static BUILDS: Mutex<()> = Mutex::new(());

/// Most hits kept per query.
pub const HIT_LIMIT: usize = 200;

/// How often a build's progress line is drawn again: its clock shows tenths of a second,
/// and drawing more often would take time from the build on a busy machine.
pub const PROGRESS_REDRAW: Duration = Duration::from_millis(200);

/// How long a background build waits for the worker to save the snapshot it builds from
/// (a save takes 0.6 s on the fetch.sh Rust tree): past it, it builds without recording
/// the snapshot, and the first `search` of another process records it.
const SAVE_WAIT: Duration = Duration::from_secs(5);

struct Job {
    seq: u64,
    query: String,
    mode: Mode,
    /// Build what `mode` needs and answer nothing (a background build before any query).
    warm: bool,
}

struct Answer {
    seq: u64,
    hits: Result<Vec<Hit>, String>,
}

/// What the search thread is building, and since when: the progress line the panel shows
/// while the first query of a mode waits for its index, and the status bar while it
/// builds in the background.
#[derive(Debug, Clone)]
pub struct Building {
    /// `true` when the vectors are built too (semantic and hybrid), not the text index
    /// alone.
    pub vectors: bool,
    /// When the build started.
    pub since: Instant,
    /// The text index's documents: `total` chunks once they are read back from the
    /// files (0 before), `done` written so far (both stay 0 when the saved index is
    /// reused or updated per file).
    pub progress: Arc<Progress>,
}

/// Chunk search state for the current snapshot: the newest hits and the selection.
pub struct ChunkSearch {
    /// Hits of the newest answered query, best first.
    pub hits: Vec<Hit>,
    /// Selected hit (0 = best).
    pub selected: usize,
    /// First hit row on screen.
    pub offset: usize,
    /// The last error (index build or query), shown instead of hits.
    pub error: Option<String>,
    jobs: Option<Sender<Job>>,
    answers: Option<Receiver<Answer>>,
    snapshot: Option<Arc<Snapshot>>,
    /// Sequence number of the newest query sent.
    sent: u64,
    /// Sequence number of the newest answer taken.
    answered: u64,
    /// The mode of the newest query, and the sequence number of the first query in it:
    /// answers to queries before it are another mode's, never shown.
    mode: Option<(Mode, u64)>,
    /// Set by the search thread while it builds an index.
    building: Arc<Mutex<Option<Building>>>,
    /// Set by the search thread once it holds a searcher: `Some(true)` with vectors.
    ready: Arc<Mutex<Option<bool>>>,
    /// A background build was asked for since the TUI started ([`ChunkSearch::prewarm`]).
    pub prewarmed: bool,
    /// When a frame showing a build's progress was last drawn (`None`: the last frame
    /// showed none), for [`ChunkSearch::progress_due`].
    progress_drawn: Option<Instant>,
}

impl std::fmt::Debug for ChunkSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkSearch")
            .field("hits", &self.hits.len())
            .field("sent", &self.sent)
            .field("answered", &self.answered)
            .finish_non_exhaustive()
    }
}

impl Default for ChunkSearch {
    fn default() -> Self {
        ChunkSearch::new()
    }
}

impl ChunkSearch {
    /// No snapshot yet: queries are remembered only as the newest sequence number.
    pub fn new() -> ChunkSearch {
        ChunkSearch {
            hits: Vec::new(),
            selected: 0,
            offset: 0,
            error: None,
            jobs: None,
            answers: None,
            snapshot: None,
            sent: 0,
            answered: 0,
            mode: None,
            building: Arc::default(),
            ready: Arc::default(),
            prewarmed: false,
            progress_drawn: None,
        }
    }

    /// `true` when the screen should be drawn again for a build's progress: when the
    /// last frame ([`drawn`](ChunkSearch::drawn)) showed no build and one runs, every
    /// [`PROGRESS_REDRAW`] while it runs, and when the frame shows a build that has ended
    /// (a background build answers nothing that would make the loop draw).
    pub fn progress_due(&self) -> bool {
        match (self.building().is_some(), self.progress_drawn) {
            (true, Some(t)) => t.elapsed() >= PROGRESS_REDRAW,
            (true, None) | (false, Some(_)) => true,
            (false, None) => false,
        }
    }

    /// Records what the frame just drawn shows: a build's progress or none.
    pub fn drawn(&mut self, showing_build: bool) {
        self.progress_drawn = showing_build.then(Instant::now);
    }

    /// Starts building, in the background, what `what` asks for a tree of `chunks`
    /// chunks (the rule of [`prebuild()`](crate::index::search::prebuild()): the text
    /// index, and the vectors where [`vectors_skipped`] says none), so the first query of
    /// a chunk mode finds it built. Nothing without a snapshot or with [`Prebuild::Off`].
    pub fn prewarm(&mut self, what: Prebuild, chunks: u64) {
        self.prewarmed = true;
        if what == Prebuild::Off {
            return;
        }
        let vectors = matches!(vectors_skipped(what, chunks as usize, None), Ok(None));
        if !self.start() {
            return;
        }
        let job = Job {
            seq: self.sent,
            query: String::new(),
            mode: if vectors { Mode::Hybrid } else { Mode::Text },
            warm: true,
        };
        if let Some(j) = &self.jobs {
            let _ = j.send(job);
        }
    }

    /// `Some(vectors)` once the search thread of this snapshot holds its indexes (with
    /// the vectors, or the text index alone); `None` before.
    pub fn ready(&self) -> Option<bool> {
        *self.ready.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts the search thread of the snapshot unless it runs; `false` without one.
    fn start(&mut self) -> bool {
        if self.jobs.is_none() {
            let Some(snap) = self.snapshot.clone() else {
                return false;
            };
            let (jobs, answers) = spawn(snap, self.building.clone(), self.ready.clone());
            self.jobs = jobs;
            self.answers = Some(answers);
        }
        self.jobs.is_some()
    }

    /// What the search thread is building now, if it is (the first query of a snapshot,
    /// or the first semantic or hybrid one, waits for it).
    pub fn building(&self) -> Option<Building> {
        self.building
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Switches to a new snapshot: the old search thread ends when its queue closes; the
    /// new one starts at the next query.
    pub fn load(&mut self, snap: &Arc<Snapshot>) {
        self.jobs = None;
        self.answers = None;
        self.snapshot = Some(snap.clone());
        // The old thread may still be building; its progress is not this snapshot's.
        self.building = Arc::default();
        self.ready = Arc::default();
        self.hits.clear();
        self.error = None;
        self.selected = 0;
        self.offset = 0;
        self.answered = self.sent;
    }

    /// `true` while a query has been sent and not answered.
    pub fn busy(&self) -> bool {
        self.answered < self.sent
    }

    /// Sends `query` to the search thread (starting it on first use). An empty query
    /// clears the hits at once.
    pub fn query(&mut self, query: &str, mode: Mode) {
        self.sent += 1;
        self.selected = 0;
        self.offset = 0;
        if self.mode.is_none_or(|(m, _)| m != mode) {
            // Another mode's hits would show under this mode's title until its answer.
            self.mode = Some((mode, self.sent));
            self.hits.clear();
            self.error = None;
        }
        if query.trim().is_empty() {
            self.hits.clear();
            self.error = None;
            self.answered = self.sent;
            return;
        }
        if self.snapshot.is_none() {
            self.answered = self.sent;
            return;
        }
        self.start();
        let job = Job {
            seq: self.sent,
            query: query.to_string(),
            mode,
            warm: false,
        };
        let sent = self.jobs.as_ref().is_some_and(|j| j.send(job).is_ok());
        if !sent {
            self.error = Some("the search thread could not start".into());
            self.answered = self.sent;
        }
    }

    /// Takes answers that arrived; returns `true` when the hits changed.
    pub fn poll(&mut self) -> bool {
        let Some(rx) = &self.answers else {
            return false;
        };
        let mut changed = false;
        loop {
            match rx.try_recv() {
                Ok(a) => {
                    let first_of_mode = self.mode.map_or(0, |(_, seq)| seq);
                    if a.seq < self.answered || a.seq < first_of_mode {
                        continue;
                    }
                    self.answered = a.seq;
                    match a.hits {
                        Ok(h) => {
                            self.hits = h;
                            self.error = None;
                        }
                        Err(e) => {
                            self.hits.clear();
                            self.error = Some(e);
                        }
                    }
                    self.selected = self.selected.min(self.hits.len().saturating_sub(1));
                    changed = true;
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    if self.busy() {
                        self.error = Some("the search thread stopped".into());
                        self.answered = self.sent;
                        changed = true;
                    }
                    break;
                }
            }
        }
        changed
    }

    /// Waits until the newest query is answered (at most `limit`); tests and scripts.
    pub fn settle(&mut self, limit: Duration) {
        let start = Instant::now();
        while self.busy() && start.elapsed() < limit {
            if !self.poll() {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    /// The selected hit.
    pub fn selected_hit(&self) -> Option<&Hit> {
        self.hits.get(self.selected)
    }

    /// Moves the selection by `delta` rows, clamped to the hits.
    pub fn move_by(&mut self, delta: isize) {
        let n = self.hits.len();
        self.selected = if n == 0 {
            0
        } else {
            (self.selected as isize + delta).clamp(0, n as isize - 1) as usize
        };
    }
}

/// The progress line of a build: `search index: ` and [`building_step`].
pub fn building_line(b: &Building) -> String {
    format!("search index: {}", building_step(b))
}

/// A build's step and for how long it has run, to a tenth of a second (`reading chunks…
/// 0.4 s`, `text index 1024/4811 chunks… 1.2 s`, `embedding the chunks… 3.0 s`).
pub fn building_step(b: &Building) -> String {
    let (total, done) = (
        b.progress.total.load(Ordering::Relaxed),
        b.progress.done.load(Ordering::Relaxed),
    );
    let step = match (total, b.vectors) {
        (0, _) => "reading chunks".to_string(),
        (t, _) if done < t => format!("text index {done}/{t} chunks"),
        (_, true) => "embedding the chunks".to_string(),
        (_, false) => "saving the text index".to_string(),
    };
    format!("{step}… {:.1} s", b.since.elapsed().as_secs_f64())
}

/// Starts the thread that owns the [`Searcher`] of `snap`.
fn spawn(
    snap: Arc<Snapshot>,
    building: Arc<Mutex<Option<Building>>>,
    ready: Arc<Mutex<Option<bool>>>,
) -> (Option<Sender<Job>>, Receiver<Answer>) {
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let (ans_tx, ans_rx) = mpsc::channel::<Answer>();
    let spawned = std::thread::Builder::new()
        .name("codegraph-chunk-search".into())
        .spawn(move || serve(&snap, &job_rx, &ans_tx, &building, &ready));
    (spawned.ok().map(|_| job_tx), ans_rx)
}

fn serve(
    snap: &Snapshot,
    jobs: &Receiver<Job>,
    answers: &Sender<Answer>,
    building: &Mutex<Option<Building>>,
    ready: &Mutex<Option<bool>>,
) {
    let set = |b: Option<Building>| *building.lock().unwrap_or_else(|p| p.into_inner()) = b;
    let mut searcher: Option<(ChunkSearcher, bool)> = None;
    while let Ok(mut job) = jobs.recv() {
        // Only the newest query matters.
        while let Ok(newer) = jobs.try_recv() {
            job = newer;
        }
        let vectors = job.mode != Mode::Text;
        if searcher.as_ref().is_none_or(|(_, v)| vectors && !v) {
            let build_mode = if vectors { Mode::Hybrid } else { Mode::Text };
            // The snapshot as saved, with its search indexes saved for it (by `index`, an
            // earlier run, or the instance that holds the cache's lock when this one only
            // reads it): they answer at once, with nothing built.
            let saved = snap
                .cache_dir
                .as_deref()
                .zip(snap.saved_as())
                .and_then(|(d, s)| SavedSearch::open(d, s, build_mode, None));
            if let Some(s) = saved {
                tracing::info!(
                    chunks = s.len(),
                    vectors,
                    "chunk search ready from the saved indexes"
                );
                searcher = Some((ChunkSearcher::Saved(s), vectors));
                *ready.lock().unwrap_or_else(|p| p.into_inner()) = Some(vectors);
            }
        }
        if searcher.as_ref().is_none_or(|(_, v)| vectors && !v) {
            let build_mode = if vectors { Mode::Hybrid } else { Mode::Text };
            if job.warm && snap.search_dir.is_some() {
                // A new index is published before the worker saves it: a background
                // build waits a little for the save, so the saved text index records the
                // snapshot it holds and later processes can answer from it alone.
                let since = Instant::now();
                while snap.saved_as().is_none() && since.elapsed() < SAVE_WAIT {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            let t = Instant::now();
            let progress = Arc::new(Progress::default());
            set(Some(Building {
                vectors,
                since: t,
                progress: progress.clone(),
            }));
            // One build at a time in the process: the thread of the snapshot before this
            // one may still be writing the saved index, and a second writer of the same
            // folder would fail on its lock.
            let built = {
                let _one = BUILDS.lock().unwrap_or_else(|p| p.into_inner());
                Searcher::build_for(
                    &snap.index,
                    snap.saved_as(),
                    build_mode,
                    snap.search_dir.as_deref(),
                    None,
                    None,
                    Some(&progress),
                )
            };
            set(None);
            match built {
                Ok(s) => {
                    tracing::info!(
                        chunks = s.stats.chunks,
                        vectors,
                        ms = t.elapsed().as_millis() as u64,
                        "chunk search ready"
                    );
                    searcher = Some((ChunkSearcher::Built(s), vectors));
                    *ready.lock().unwrap_or_else(|p| p.into_inner()) = Some(vectors);
                }
                Err(e) if job.warm => {
                    // Nobody asked yet: the first query builds again and says why.
                    tracing::warn!("background search index build failed: {e}");
                    continue;
                }
                Err(e) => {
                    let hits = Err(format!("building the search index failed: {e}"));
                    if answers.send(Answer { seq: job.seq, hits }).is_err() {
                        return;
                    }
                    continue;
                }
            }
        }
        let Some((s, _)) = &searcher else { continue };
        if job.warm {
            continue;
        }
        let hits = s
            .search(&job.query, job.mode, HIT_LIMIT)
            .map_err(|e| format!("search failed: {e}"));
        if answers.send(Answer { seq: job.seq, hits }).is_err() {
            return;
        }
    }
}
