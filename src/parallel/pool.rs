//! The worker pool of a solver object and the disjoint parts its participants write
//! (`docs/performance.md` §8).

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Largest number of threads a pool runs (the caller's included); the C ABI refuses more.
pub const MAX_THREADS: usize = 256;

/// How long an idle worker spins before it sleeps. The phases of one solve follow each other
/// within microseconds, so a spinning worker picks the next one up at once; between solves it
/// sleeps and costs nothing.
const WORKER_SPIN: Duration = Duration::from_micros(100);
/// How long the caller spins for the workers of a run before it yields its core in turns.
const CALLER_SPIN: Duration = Duration::from_micros(50);

/// The job of one run: called once per chunk index.
type Job = dyn Fn(usize) + Sync;

/// The closed bit of [`Shared::gate`] and the mask of its count of workers inside.
const CLOSED: u64 = 1 << 31;
const INSIDE: u64 = CLOSED - 1;

/// A job pointer with its lifetime erased (see [`WorkerPool::run`] for why that is sound).
#[derive(Clone, Copy)]
struct JobPtr(*const Job);

// SAFETY: the pointee is `Sync`, so calling it from another thread is allowed; the pointer is
// only dereferenced while the run that stored it waits (see `WorkerPool::run`).
unsafe impl Send for JobPtr {}

/// What the caller and the workers share.
struct Shared {
    /// The current run's job.
    job: Mutex<Option<JobPtr>>,
    /// Incremented once per run (and at shutdown): a worker joins each epoch at most once.
    epoch: AtomicUsize,
    /// The current run's gate: its epoch (low 32 bits) in the high half, [`CLOSED`], and the number
    /// of workers inside the run in the low bits. A worker enters only while the gate is open for
    /// the epoch it saw; the caller closes it once every chunk is claimed and waits only for the
    /// workers inside.
    gate: AtomicU64,
    /// The current run's chunk count and next unclaimed chunk.
    chunks: AtomicUsize,
    next: AtomicUsize,
    /// Workers asleep on `wake`.
    sleeping: AtomicUsize,
    park: Mutex<()>,
    wake: Condvar,
    shutdown: AtomicBool,
    /// A worker's share of the last run panicked.
    panicked: AtomicBool,
    /// A run is in progress (a second, concurrent or nested, run goes sequential).
    busy: AtomicBool,
    /// Workers that have started.
    started: AtomicUsize,
}

/// Locks `m`, ignoring poisoning (nothing panics while holding these locks).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fixed team of threads: the caller of [`run`](Self::run) and `threads − 1` workers started
/// once, when the pool is created. A run splits a job into chunks that the caller and the workers
/// claim one at a time (an atomic counter), so the chunks go to whoever is running: on a busy
/// machine a worker that the scheduler has not started leaves its share to the others instead of
/// holding the run up. A run allocates nothing. Workers spin briefly between runs, then sleep.
/// Dropping the pool stops and joins its workers.
///
/// One run at a time: a solver object is used by one thread at a time, and a run started while
/// another is in progress (from a job, or from a second thread) calls every chunk on its own
/// thread instead. The workers are internal; nothing of a solve is visible from them outside a
/// run.
pub struct WorkerPool {
    threads: usize,
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl fmt::Debug for WorkerPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkerPool").field("threads", &self.threads).finish()
    }
}

/// A pool that could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    /// More threads than [`MAX_THREADS`].
    #[error("{0} threads requested; at most {MAX_THREADS}")]
    TooMany(usize),
    /// The operating system refused a thread (or its bookkeeping could not be allocated).
    #[error("cannot start worker thread {0}")]
    Spawn(usize),
}

impl WorkerPool {
    /// A pool of `threads` participants (the caller included; 0 counts as 1), starting
    /// `threads − 1` worker threads. On failure the threads already started are joined.
    pub fn new(threads: usize) -> Result<Self, PoolError> {
        Self::with_thread_start(threads, || {})
    }

    /// [`new`](Self::new), with `thread_start` called once on every participant before the pool
    /// is returned: on each worker thread before it takes any run, and on the calling thread.
    /// It grows per-thread state that a run would otherwise grow inside a solve (faer's
    /// product buffers: `docs/performance.md` §8), so that runs allocate nothing whichever
    /// thread takes which chunk. A panic in it is caught and ignored.
    pub fn with_thread_start(threads: usize, thread_start: fn()) -> Result<Self, PoolError> {
        if threads > MAX_THREADS {
            return Err(PoolError::TooMany(threads));
        }
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            job: Mutex::new(None),
            epoch: AtomicUsize::new(0),
            gate: AtomicU64::new(0),
            chunks: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
            sleeping: AtomicUsize::new(0),
            park: Mutex::new(()),
            wake: Condvar::new(),
            shutdown: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
            busy: AtomicBool::new(false),
            started: AtomicUsize::new(0),
        });
        let mut pool = Self { threads, shared, workers: Vec::new() };
        pool.workers.try_reserve_exact(threads - 1).map_err(|_| PoolError::Spawn(1))?;
        for index in 1..threads {
            let shared = Arc::clone(&pool.shared);
            let spawned =
                std::thread::Builder::new().name(format!("contact-solvers-{index}")).spawn(move || {
                    let _ = catch_unwind(thread_start);
                    worker(&shared)
                });
            match spawned {
                Ok(handle) => pool.workers.push(handle),
                // `pool` is dropped here: the started workers are joined.
                Err(_) => return Err(PoolError::Spawn(index)),
            }
        }
        // Wait until every worker runs: a thread's start-up (the runtime allocates for it) then
        // belongs to the pool's creation, never to a later solve that a late worker joins.
        let _ = catch_unwind(thread_start);
        while pool.shared.started.load(Ordering::Acquire) < threads - 1 {
            std::thread::yield_now();
        }
        Ok(pool)
    }

    /// Number of participants of a run (the caller's thread included).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Calls `f(c)` once for every chunk `c` in `0..chunks`, each on whichever thread claims it
    /// (the caller's included); returns when every call has returned. Which thread runs a chunk
    /// varies from run to run, so a chunk's result must not depend on it. A panic in any call is
    /// raised again here, after all calls have ended.
    pub fn run(&self, chunks: usize, f: &(dyn Fn(usize) + Sync)) {
        let s = &*self.shared;
        if self.workers.is_empty() || chunks <= 1 || s.busy.swap(true, Ordering::Acquire) {
            for c in 0..chunks {
                f(c);
            }
            return;
        }
        let ptr: *const (dyn Fn(usize) + Sync + '_) = f;
        // SAFETY: only the lifetime of the trait object is erased (same layout). A worker calls
        // the job only after entering the gate of this run and before leaving it, and this
        // function does not return (nor unwind: the caller's share runs under `catch_unwind`)
        // before the gate is closed and empty, so every call happens while `f` is borrowed.
        let ptr: *const Job = unsafe { std::mem::transmute(ptr) };
        *lock(&s.job) = Some(JobPtr(ptr));
        s.chunks.store(chunks, Ordering::Relaxed);
        s.next.store(0, Ordering::Relaxed);
        let epoch = s.epoch.load(Ordering::Relaxed).wrapping_add(1);
        // Opens the gate for this epoch (release: the job and the counters above), then announces it.
        s.gate.store(u64::from(epoch as u32) << 32, Ordering::SeqCst);
        s.epoch.store(epoch, Ordering::SeqCst);
        if s.sleeping.load(Ordering::SeqCst) > 0 {
            let _guard = lock(&s.park);
            s.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| claim_chunks(s, f)));
        // Every chunk is claimed: late workers stay out; wait for the ones inside (acquire: their
        // writes are visible after this).
        s.gate.fetch_or(CLOSED, Ordering::SeqCst);
        let start = Instant::now();
        let mut spins = 0u32;
        while s.gate.load(Ordering::Acquire) & INSIDE != 0 {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && start.elapsed() > CALLER_SPIN {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        *lock(&s.job) = None;
        s.busy.store(false, Ordering::Release);
        if let Err(payload) = mine {
            resume_unwind(payload);
        }
        if s.panicked.swap(false, Ordering::Relaxed) {
            panic!("a worker thread of the solver's pool panicked");
        }
    }
}

/// Claims chunks of the current run and calls `f` on each until none is left.
fn claim_chunks(s: &Shared, f: &(dyn Fn(usize) + Sync + '_)) {
    let chunks = s.chunks.load(Ordering::Relaxed);
    loop {
        let c = s.next.fetch_add(1, Ordering::Relaxed);
        if c >= chunks {
            return;
        }
        f(c);
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        let s = &*self.shared;
        s.shutdown.store(true, Ordering::SeqCst);
        s.epoch.fetch_add(1, Ordering::SeqCst);
        {
            let _guard = lock(&s.park);
            s.wake.notify_all();
        }
        for handle in self.workers.drain(..) {
            // A worker catches the panics of its jobs, so it ends normally.
            let _ = handle.join();
        }
    }
}

/// A worker's loop: wait for a new epoch, enter its run if it is still open, claim chunks,
/// leave.
fn worker(s: &Shared) {
    s.started.fetch_add(1, Ordering::Release);
    let mut seen = 0;
    loop {
        seen = wait_for_epoch(s, seen);
        if s.shutdown.load(Ordering::SeqCst) {
            return;
        }
        let mut gate = s.gate.load(Ordering::Acquire);
        let entered = loop {
            if (gate >> 32) as u32 != seen as u32 || gate & CLOSED != 0 {
                break false;
            }
            match s.gate.compare_exchange_weak(gate, gate + 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break true,
                Err(now) => gate = now,
            }
        };
        if !entered {
            continue;
        }
        let job = *lock(&s.job);
        if let Some(job) = job {
            // SAFETY: see `WorkerPool::run`: the job outlives this call because the run waits
            // until every worker inside the gate has left it, below.
            let result = catch_unwind(AssertUnwindSafe(|| claim_chunks(s, unsafe { &*job.0 })));
            if result.is_err() {
                s.panicked.store(true, Ordering::Relaxed);
            }
        }
        s.gate.fetch_sub(1, Ordering::Release);
    }
}

/// Spins, then sleeps, until `epoch` differs from `seen`; returns the new epoch.
fn wait_for_epoch(s: &Shared, seen: usize) -> usize {
    let start = Instant::now();
    let mut spins = 0u32;
    loop {
        let e = s.epoch.load(Ordering::Acquire);
        if e != seen {
            return e;
        }
        spins = spins.wrapping_add(1);
        if !spins.is_multiple_of(64) || start.elapsed() < WORKER_SPIN {
            std::hint::spin_loop();
            continue;
        }
        // Sleep. `sleeping` is raised before `epoch` is read again, and the runner raises `epoch`
        // before it reads `sleeping` (both sequentially consistent): either this thread sees the
        // new epoch or the runner sees a sleeper and notifies under the lock.
        let mut guard = lock(&s.park);
        s.sleeping.fetch_add(1, Ordering::SeqCst);
        while s.epoch.load(Ordering::SeqCst) == seen {
            guard = s.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        s.sleeping.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The pool a solver object owns: none until a solve asks for 2 or more threads, then created
/// once and kept across solves; re-created only when the thread count changes, dropped (its
/// threads joined) when the count goes back to 0 or 1 and with the solver. A clone starts
/// without a pool.
#[derive(Debug, Default)]
pub struct PoolSlot {
    pool: Option<WorkerPool>,
}

impl Clone for PoolSlot {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PoolSlot {
    /// The pool for `threads` participants, `None` for 0 or 1 (sequential), created with
    /// `thread_start` ([`WorkerPool::with_thread_start`]). When a worker thread cannot be started
    /// the solve runs sequentially, with the same results.
    pub fn get(&mut self, threads: usize, thread_start: fn()) -> Option<&WorkerPool> {
        let threads = threads.min(MAX_THREADS);
        if threads <= 1 {
            self.pool = None;
            return None;
        }
        if self.pool.as_ref().map(WorkerPool::threads) != Some(threads) {
            // The old threads are joined before the new ones start.
            self.pool = None;
            self.pool = WorkerPool::with_thread_start(threads, thread_start).ok();
        }
        self.pool.as_ref()
    }
}

/// One mutable slice that the participants of a run write in parts, each part handed out at most
/// once: what [`Parts`] and [`Owned`] share (their parts differ in shape).
struct SharedSlice<'a, T> {
    ptr: *mut T,
    scale: usize,
    taken: [AtomicU64; MAX_THREADS / 64],
    /// A slice of a [`Claims`] group and its member index: its parts are handed out with the
    /// group's claims (`taken` unused).
    group: Option<(&'a Claims, u32)>,
    _slice: PhantomData<&'a mut [T]>,
}

// SAFETY: `Parts` and `Owned` hand out disjoint `&mut [T]` of it (each part at most once), which
// may go to other threads when `T: Send`.
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}
// SAFETY: as above; it owns the mutable borrow of the slice.
unsafe impl<T: Send> Send for SharedSlice<'_, T> {}

impl<'a, T> SharedSlice<'a, T> {
    fn new(slice: &'a mut [T], scale: usize, claims: Option<&'a Claims>) -> Self {
        let group = claims.map(|c| (c, c.member()));
        Self { ptr: slice.as_mut_ptr(), scale, taken: Default::default(), group, _slice: PhantomData }
    }

    /// Records that part `p` is handed out; panics when it was before.
    fn take_once(&self, p: usize) {
        assert!(self.group.is_none(), "a part of a claimed slice is taken with its claim");
        let bit = 1u64 << (p % 64);
        let before = self.taken[p / 64].fetch_or(bit, Ordering::Relaxed);
        assert!(before & bit == 0, "part {p} taken twice");
    }

    /// Records that the part of `claim` is handed out; panics when it was before, or when this
    /// slice is not of the claim's group. Returns the part.
    fn take_claimed(&self, claim: &Claim<'_>) -> usize {
        let (claims, member) = self.group.expect("a claim takes the parts of its group's slices only");
        assert!(std::ptr::eq(claims, claim.claims), "a claim of another group");
        let bit = 1u32 << member;
        let before = claim.members.get();
        assert!(before & bit == 0, "part {} taken twice", claim.part);
        claim.members.set(before | bit);
        claim.part
    }
}

/// Parts of several slices that the participants of a run take together: one atomic claim of part
/// p ([`Claims::take`]) for all of them, after which the holder of the claim takes part p of each
/// slice of the group once ([`Parts::take_with`], [`Owned::take_with`]) with no further shared
/// write. [`Parts::take`] marks each slice's part in that slice's own word, a cache line that the
/// threads of the run all write: TAMSI's fused iteration took ten parts per chunk that way, about
/// 100 atomic operations per Newton iteration on lines that go from one core to the other
/// (`docs/performance.md` §8, "The 2-thread critical path, second pass"). At most 32 slices
/// per group.
pub struct Claims {
    taken: [AtomicU64; MAX_THREADS / 64],
    members: AtomicU32,
}

impl Default for Claims {
    fn default() -> Self {
        Self::new()
    }
}

impl Claims {
    /// A group without slices, no part claimed.
    pub fn new() -> Self {
        Self { taken: Default::default(), members: AtomicU32::new(0) }
    }

    /// The claim of part `p` of every slice of the group; panics when it was taken before or
    /// `p` ≥ [`MAX_THREADS`].
    pub fn take(&self, p: usize) -> Claim<'_> {
        assert!(p < MAX_THREADS, "part {p}");
        let bit = 1u64 << (p % 64);
        let before = self.taken[p / 64].fetch_or(bit, Ordering::Relaxed);
        assert!(before & bit == 0, "part {p} claimed twice");
        Claim { claims: self, part: p, members: Cell::new(0) }
    }

    /// A new slice's index in the group.
    fn member(&self) -> u32 {
        let m = self.members.fetch_add(1, Ordering::Relaxed);
        assert!(m < 32, "at most 32 slices per group");
        m
    }
}

/// Part p of the slices of a [`Claims`] group, to one holder: each slice's part is taken from it
/// once (not `Sync`: one thread takes at a time).
pub struct Claim<'c> {
    claims: &'c Claims,
    part: usize,
    /// The group's slices whose part was taken.
    members: Cell<u32>,
}

impl Claim<'_> {
    /// The claimed part's index.
    pub fn part(&self) -> usize {
        self.part
    }
}

/// A mutable slice cut into consecutive parts that the participants of a run take by index, each
/// part at most once: part p is `slice[bounds[p]·scale..bounds[p + 1]·scale]`.
pub struct Parts<'a, T> {
    slice: SharedSlice<'a, T>,
    bounds: &'a [usize],
}

impl<'a, T> Parts<'a, T> {
    /// Cuts `slice` at `bounds` (nondecreasing, at most [`MAX_THREADS`] parts) times `scale`
    /// (entries per item: 2 for two values per contact). Panics when the bounds do not fit.
    pub fn new(slice: &'a mut [T], bounds: &'a [usize], scale: usize) -> Self {
        assert!((1..=MAX_THREADS + 1).contains(&bounds.len()), "1 to {MAX_THREADS} parts");
        assert!(bounds.windows(2).all(|w| w[0] <= w[1]), "nondecreasing bounds");
        let end = bounds[bounds.len() - 1].checked_mul(scale);
        assert!(end.is_some_and(|e| e <= slice.len()), "bounds within the slice");
        Self { slice: SharedSlice::new(slice, scale, None), bounds }
    }

    /// [`new`](Self::new), the parts handed out with the claims of `claims`
    /// ([`take_with`](Self::take_with)) instead of [`take`](Self::take).
    pub fn claimed(slice: &'a mut [T], bounds: &'a [usize], scale: usize, claims: &'a Claims) -> Self {
        let mut parts = Self::new(slice, bounds, scale);
        parts.slice.group = Some((claims, claims.member()));
        parts
    }

    /// The part of `claim`; panics when it was taken before, does not exist or the slice is not
    /// of the claim's group.
    #[allow(clippy::mut_from_ref)] // each part is handed out once (checked), so no two alias
    pub fn take_with(&self, claim: &Claim<'_>) -> &mut [T] {
        let p = claim.part;
        assert!(p + 1 < self.bounds.len(), "part {p} of {}", self.bounds.len() - 1);
        self.slice.take_claimed(claim);
        let scale = self.slice.scale;
        let (a, b) = (self.bounds[p] * scale, self.bounds[p + 1] * scale);
        // SAFETY: as in `take`: the bounds fit (checked in `new`), and part p of this slice is
        // handed out once, to the one holder of its group's claim p (`Claims::take`), which
        // takes each slice once (`SharedSlice::take_claimed`).
        unsafe { std::slice::from_raw_parts_mut(self.slice.ptr.add(a), b - a) }
    }

    /// Part `p`; panics when it was taken before or does not exist.
    #[allow(clippy::mut_from_ref)] // each part is handed out once (checked), so no two alias
    pub fn take(&self, p: usize) -> &mut [T] {
        assert!(p + 1 < self.bounds.len(), "part {p} of {}", self.bounds.len() - 1);
        self.slice.take_once(p);
        let scale = self.slice.scale;
        let (a, b) = (self.bounds[p] * scale, self.bounds[p + 1] * scale);
        // SAFETY: `a <= b <= slice.len()` (checked in `new`); the parts of different indices are
        // disjoint (nondecreasing bounds) and each is handed out once; the slice stays mutably
        // borrowed by `self` for `'a`.
        unsafe { std::slice::from_raw_parts_mut(self.slice.ptr.add(a), b - a) }
    }
}

/// A mutable slice whose items (`scale` entries each) belong to the parts named by `owner`
/// (item i to part `owner[i]`; `u32::MAX`: to none), scattered anywhere in the slice: the
/// participants of a run write the items of their part in place, where [`Parts`] needs each
/// part consecutive (TAMSI's fused iteration writes its islands' contacts in contact order and
/// their trees' entries of Δv in dof order, `docs/performance.md` §8).
pub struct Owned<'a, T> {
    slice: SharedSlice<'a, T>,
    owner: &'a [u32],
}

impl<'a, T> Owned<'a, T> {
    /// `slice` with item i at `slice[i·scale..(i + 1)·scale]` owned by part `owner[i]`. Panics
    /// when the items do not fit.
    pub fn new(slice: &'a mut [T], owner: &'a [u32], scale: usize) -> Self {
        let end = owner.len().checked_mul(scale);
        assert!(end.is_some_and(|e| e <= slice.len()), "items within the slice");
        Self { slice: SharedSlice::new(slice, scale, None), owner }
    }

    /// [`new`](Self::new), the parts handed out with the claims of `claims`
    /// ([`take_with`](Self::take_with)) instead of [`take`](Self::take).
    pub fn claimed(slice: &'a mut [T], owner: &'a [u32], scale: usize, claims: &'a Claims) -> Self {
        let end = owner.len().checked_mul(scale);
        assert!(end.is_some_and(|e| e <= slice.len()), "items within the slice");
        Self { slice: SharedSlice::new(slice, scale, Some(claims)), owner }
    }

    /// The writer of the part of `claim`; panics when it was taken before or the slice is not of
    /// the claim's group.
    pub fn take_with(&self, claim: &Claim<'_>) -> OwnedPart<'_, T> {
        let p = self.slice.take_claimed(claim);
        let (ptr, scale) = (self.slice.ptr, self.slice.scale);
        OwnedPart { ptr, owner: self.owner, scale, part: p as u32, _slice: PhantomData }
    }

    /// The writer of part `p`; panics when it was taken before or `p` ≥ [`MAX_THREADS`].
    pub fn take(&self, p: usize) -> OwnedPart<'_, T> {
        assert!(p < MAX_THREADS, "part {p}");
        self.slice.take_once(p);
        let (ptr, scale) = (self.slice.ptr, self.slice.scale);
        OwnedPart { ptr, owner: self.owner, scale, part: p as u32, _slice: PhantomData }
    }
}

/// The items of one part of an [`Owned`] slice, one borrow at a time.
pub struct OwnedPart<'s, T> {
    ptr: *mut T,
    owner: &'s [u32],
    scale: usize,
    part: u32,
    _slice: PhantomData<&'s mut [T]>,
}

impl<T> OwnedPart<'_, T> {
    /// The entries of item `i`, which must belong to this part (panics otherwise).
    #[inline(always)]
    pub fn item(&mut self, i: usize) -> &mut [T] {
        assert!(self.owner.get(i) == Some(&self.part), "item {i} not of part {}", self.part);
        // SAFETY: the item lies within the slice (checked in `Owned::new` and by `get` above)
        // and belongs to this part, as in `items`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(i * self.scale), self.scale) }
    }

    /// The entries of items `range`, which must all belong to this part (panics otherwise).
    #[inline(always)]
    pub fn items(&mut self, range: std::ops::Range<usize>) -> &mut [T] {
        let owned = self.owner.get(range.clone()).is_some_and(|o| o.iter().all(|&o| o == self.part));
        assert!(owned, "items {range:?} not all of part {}", self.part);
        // SAFETY: the items lie within the slice (checked in `Owned::new` and by `get` above) and
        // belong to this part, which exists once (`Owned::take`); the borrow of `self` keeps two
        // borrows of one part from overlapping; the slice stays mutably borrowed for `'s`.
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.add(range.start * self.scale), range.len() * self.scale)
        }
    }
}

/// The number of chunks a phase on `threads` threads is cut into: 2 per thread (at most
/// [`MAX_THREADS`]), so that a thread that runs late leaves work to the others; not more, since
/// every chunk costs a claim and its parts' checks on cache lines the threads share.
pub fn chunk_count(threads: usize) -> usize {
    (2 * threads).clamp(1, MAX_THREADS)
}

/// Cuts items `0..n` of weights `weight(i) ≥ 0` into `out.len() − 1` consecutive parts of about
/// equal total weight: `out[0] = 0`, `out[last] = n`, nondecreasing. An item goes to the part
/// its weight's midpoint falls in.
pub fn balanced_cuts(n: usize, weight: impl Fn(usize) -> f64, out: &mut [usize]) {
    let parts = out.len().saturating_sub(1);
    if parts == 0 {
        return;
    }
    let total: f64 = (0..n).map(&weight).sum();
    out[0] = 0;
    let (mut acc, mut i) = (0.0, 0);
    for (p, cut) in out.iter_mut().enumerate().take(parts).skip(1) {
        let target = total * p as f64 / parts as f64;
        while i < n && acc + 0.5 * weight(i) < target {
            acc += weight(i);
            i += 1;
        }
        *cut = i;
    }
    out[parts] = n;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chunk_runs_once_per_run_and_writes_its_part() {
        let pool = WorkerPool::new(4).unwrap();
        assert_eq!(pool.threads(), 4);
        let mut out = vec![0usize; 40];
        let bounds = [0, 7, 20, 21, 40];
        for round in 1..=50 {
            let parts = Parts::new(&mut out, &bounds, 1);
            pool.run(4, &|p| {
                for x in parts.take(p) {
                    *x = round * 10 + p;
                }
            });
            for (p, w) in bounds.windows(2).enumerate() {
                assert!(out[w[0]..w[1]].iter().all(|&x| x == round * 10 + p), "round {round}");
            }
        }
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller_and_the_pool_still_works() {
        let pool = WorkerPool::new(3).unwrap();
        let hit = std::panic::catch_unwind(AssertUnwindSafe(|| {
            pool.run(3, &|c| assert!(c != 2, "chunk 2 fails"));
        }));
        assert!(hit.is_err());
        let count = AtomicUsize::new(0);
        pool.run(7, &|_| {
            count.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(count.load(Ordering::Relaxed), 7);
        // A run from inside a run calls every chunk on its own thread.
        let nested = AtomicUsize::new(0);
        pool.run(3, &|_| {
            pool.run(3, &|_| {
                nested.fetch_add(1, Ordering::Relaxed);
            })
        });
        assert_eq!(nested.load(Ordering::Relaxed), 9);
    }

    #[test]
    fn every_chunk_runs_once_in_every_run() {
        let pool = WorkerPool::new(2).unwrap();
        let done: Vec<AtomicUsize> = (0..64).map(|_| AtomicUsize::new(0)).collect();
        for _ in 0..20 {
            pool.run(64, &|c| {
                done[c].fetch_add(1, Ordering::Relaxed);
            });
        }
        assert!(done.iter().all(|d| d.load(Ordering::Relaxed) == 20));
    }

    #[test]
    fn dropping_the_pool_ends_its_threads_also_when_they_sleep() {
        let pool = WorkerPool::new(3).unwrap();
        let weak = Arc::downgrade(&pool.shared);
        // Idle workers go to sleep after their spin (give a loaded machine a few seconds).
        let start = Instant::now();
        while pool.shared.sleeping.load(Ordering::SeqCst) < 2 && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(WORKER_SPIN);
        }
        assert_eq!(pool.shared.sleeping.load(Ordering::SeqCst), 2, "idle workers sleep");
        drop(pool);
        // Every worker held the shared state: all have returned.
        assert!(weak.upgrade().is_none());
        assert_eq!(WorkerPool::new(MAX_THREADS + 1).unwrap_err(), PoolError::TooMany(257));
    }

    #[test]
    fn slot_creates_once_and_recreates_on_a_new_count() {
        let mut slot = PoolSlot::default();
        assert!(slot.get(1, || {}).is_none());
        let first = Arc::as_ptr(&slot.get(2, || {}).unwrap().shared);
        assert_eq!(Arc::as_ptr(&slot.get(2, || {}).unwrap().shared), first);
        assert_eq!(slot.get(3, || {}).unwrap().threads(), 3);
        assert!(slot.get(0, || {}).is_none() && slot.pool.is_none());
        assert!(slot.clone().pool.is_none());
    }

    #[test]
    fn thread_start_runs_once_on_every_participant_before_the_pool_is_returned() {
        static STARTS: AtomicUsize = AtomicUsize::new(0);
        thread_local! {
            static STARTED_HERE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        }
        fn start() {
            STARTS.fetch_add(1, Ordering::SeqCst);
            STARTED_HERE.with(|c| c.set(c.get() + 1));
        }
        let pool = WorkerPool::with_thread_start(3, start).unwrap();
        assert_eq!(STARTS.load(Ordering::SeqCst), 3, "the caller and two workers");
        assert_eq!(STARTED_HERE.with(|c| c.get()), 1, "once on the calling thread");
        // Every chunk, on whichever thread runs it, finds the start done there.
        let all_started = AtomicBool::new(true);
        pool.run(64, &|_| {
            if STARTED_HERE.with(|c| c.get()) != 1 {
                all_started.store(false, Ordering::SeqCst);
            }
        });
        assert!(all_started.load(Ordering::SeqCst));
        // A panicking start is ignored: the pool still starts and runs.
        fn panics() {
            panic!("thread start");
        }
        let pool = WorkerPool::with_thread_start(2, panics).unwrap();
        let n = AtomicUsize::new(0);
        pool.run(8, &|_| {
            n.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(n.load(Ordering::SeqCst), 8);
    }

    #[test]
    #[should_panic(expected = "taken twice")]
    fn a_part_is_handed_out_once() {
        let mut v = [0.0; 4];
        let parts = Parts::new(&mut v, &[0, 1, 2], 2);
        assert_eq!(parts.take(1).len(), 2);
        parts.take(1);
    }

    #[test]
    fn owned_items_go_to_their_parts_only() {
        let pool = WorkerPool::new(3).unwrap();
        let owner = [2, 0, 1, 0, u32::MAX, 2];
        let mut v = [0.0; 12];
        for round in 1..=20 {
            let owned = Owned::new(&mut v, &owner, 2);
            pool.run(3, &|p| {
                let mut part = owned.take(p);
                for i in (0..owner.len()).filter(|&i| owner[i] == p as u32) {
                    part.items(i..i + 1).fill((round * 10 + p) as f64);
                }
            });
            for (i, &o) in owner.iter().enumerate() {
                let want = if o == u32::MAX { 0.0 } else { (round * 10 + o as usize) as f64 };
                assert_eq!(v[2 * i..2 * i + 2], [want, want], "round {round} item {i}");
            }
        }
        let owned = Owned::new(&mut v, &owner, 2);
        let mut part = owned.take(0);
        assert_eq!(part.items(3..4).len(), 2);
        assert_eq!(part.item(1), [200.0, 200.0], "item 1 of part 0, last written in round 20");
        let foreign = std::panic::catch_unwind(AssertUnwindSafe(|| {
            owned.take(1).items(0..1);
        }));
        assert!(foreign.is_err(), "an item of another part is refused");
        let again = std::panic::catch_unwind(AssertUnwindSafe(|| {
            owned.take(0);
        }));
        assert!(again.is_err(), "a part is handed out once");
        let beyond = std::panic::catch_unwind(AssertUnwindSafe(|| {
            owned.take(2).items(5..7);
        }));
        assert!(beyond.is_err(), "items past the end are refused");
    }

    #[test]
    fn claimed_parts_go_to_the_holder_of_the_claim_once() {
        let pool = WorkerPool::new(3).unwrap();
        let bounds = [0, 2, 5, 6];
        let owner = [1, 0, 2, 0, u32::MAX];
        let (mut a, mut b) = ([0.0; 6], [0.0; 5]);
        for round in 1..=20 {
            let claims = Claims::new();
            let pa = Parts::claimed(&mut a, &bounds, 1, &claims);
            let ob = Owned::claimed(&mut b, &owner, 1, &claims);
            pool.run(3, &|p| {
                let claim = claims.take(p);
                assert_eq!(claim.part(), p);
                pa.take_with(&claim).fill((round * 10 + p) as f64);
                let mut w = ob.take_with(&claim);
                for i in (0..owner.len()).filter(|&i| owner[i] == p as u32) {
                    w.item(i)[0] = (round * 10 + p) as f64;
                }
            });
            for (p, w) in bounds.windows(2).enumerate() {
                assert!(a[w[0]..w[1]].iter().all(|&x| x == (round * 10 + p) as f64), "round {round}");
            }
            for (i, &o) in owner.iter().enumerate() {
                let want = if o == u32::MAX { 0.0 } else { (round * 10 + o as usize) as f64 };
                assert_eq!(b[i], want, "round {round} item {i}");
            }
        }
        let fails = |f: &dyn Fn()| std::panic::catch_unwind(AssertUnwindSafe(f)).is_err();
        let (claims, other) = (Claims::new(), Claims::new());
        let pa = Parts::claimed(&mut a, &bounds, 1, &claims);
        let claim = claims.take(1);
        assert_eq!(pa.take_with(&claim).len(), 3);
        assert!(
            fails(&|| {
                let _ = claims.take(1);
            }),
            "a part is claimed once"
        );
        assert!(
            fails(&|| {
                let _ = pa.take_with(&claim);
            }),
            "a slice's part is taken once per claim"
        );
        assert!(
            fails(&|| {
                let _ = pa.take(0);
            }),
            "a claimed slice is taken with claims only"
        );
        assert!(
            fails(&|| {
                let _ = pa.take_with(&other.take(0));
            }),
            "a claim of another group is refused"
        );
        assert!(
            fails(&|| {
                let _ = pa.take_with(&claims.take(3));
            }),
            "a part past the bounds is refused"
        );
        let ob = Owned::new(&mut b, &owner, 1);
        assert!(
            fails(&|| {
                let _ = ob.take_with(&claims.take(0));
            }),
            "an unclaimed slice refuses claims"
        );
    }

    #[test]
    fn cuts_balance_the_weights() {
        let mut out = [0; 4];
        balanced_cuts(6, |i| [1.0, 1.0, 1.0, 1.0, 1.0, 1.0][i], &mut out);
        assert_eq!(out, [0, 2, 4, 6]);
        let mut out = [0; 3];
        balanced_cuts(4, |i| [10.0, 1.0, 1.0, 8.0][i], &mut out);
        assert_eq!(out, [0, 1, 4]);
        balanced_cuts(0, |_| 1.0, &mut out);
        assert_eq!(out, [0, 0, 0]);
    }
}

#[cfg(test)]
mod latency {
    use super::*;

    /// Prints the time per run of a trivial 4-chunk job on 2 threads (run by hand:
    /// `cargo test --lib latency -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn time_per_run() {
        let pool = WorkerPool::new(2).unwrap();
        let hits = AtomicUsize::new(0);
        for _ in 0..3 {
            let start = Instant::now();
            for _ in 0..20_000 {
                pool.run(4, &|_| {
                    hits.fetch_add(1, Ordering::Relaxed);
                });
            }
            eprintln!("{:.2} us per run", start.elapsed().as_secs_f64() / 20_000.0 * 1e6);
        }
    }
}
