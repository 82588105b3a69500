//! The counting global allocator of the `*_alloc` tests ("no allocation inside a solve once the
//! workspace has grown"). A test crate installs it with
//! `#[global_allocator] static GLOBAL: Counting = Counting;` and measures with
//! [`allocations_during`].
//!
//! Only the calling thread's allocations count, and only while [`allocations_during`] runs its
//! closure: libtest's own threads and tests running in parallel allocate too (on a loaded machine
//! sometimes inside a counted solve), so a process-wide counter would see them. The worker threads
//! of the solvers' pools (`num_threads` ≥ 2, named `contact-solvers-<n>`) count too in
//! [`allocations_with_workers_during`]: the tests that use pools hold [`POOL_TESTS`], so no other
//! pool works then.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::LocalKey;

/// Held by the tests whose solvers have worker pools, one at a time: their measurements count
/// every pool worker's allocations.
pub static POOL_TESTS: Mutex<()> = Mutex::new(());

/// Measurements in progress, and the pool workers' allocations while one is.
static MEASURING: AtomicUsize = AtomicUsize::new(0);
static WORKER_COUNT: AtomicUsize = AtomicUsize::new(0);

/// Forwards to the system allocator; counts `alloc`, `alloc_zeroed` and `realloc` calls.
pub struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    /// 0: not known yet, 1: a pool worker, 2: another thread, 3: being found out.
    static ROLE: Cell<u8> = const { Cell::new(0) };
}

/// Whether this thread is a worker of a solver's pool (its name, read once per thread; an
/// allocation while the name is read counts as another thread's).
fn is_pool_worker() -> bool {
    ROLE.try_with(|r| match r.get() {
        1 => true,
        0 => {
            r.set(3);
            let worker = std::thread::current().name().is_some_and(|n| n.starts_with("contact-solvers-"));
            r.set(if worker { 1 } else { 2 });
            worker
        }
        _ => false,
    })
    .unwrap_or(false)
}

fn record() {
    // `try_with`: allocations during thread teardown find the thread-locals gone.
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            COUNT.with(|n| n.set(n.get() + 1));
        }
    });
    if MEASURING.load(Ordering::Relaxed) > 0 && is_pool_worker() {
        WORKER_COUNT.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocations `f` makes on this thread (the other threads' are not counted).
pub fn allocations_during(f: impl FnOnce()) -> usize {
    count_during(&COUNTING, &COUNT, f)
}

/// What `count` gains while `f` runs with `counting` on (this thread's thread-locals; the
/// measurement of `allocations_during` and of `counting_fma`).
pub fn count_during(
    counting: &'static LocalKey<Cell<bool>>,
    count: &'static LocalKey<Cell<usize>>,
    f: impl FnOnce(),
) -> usize {
    let before = count.with(Cell::get);
    let was = counting.with(|c| c.replace(true));
    f();
    counting.with(|c| c.set(was));
    count.with(Cell::get) - before
}

/// Allocations `f` makes on this thread and on the solvers' pool workers. Call it holding
/// [`POOL_TESTS`], so that no other test's pool works meanwhile.
pub fn allocations_with_workers_during(f: impl FnOnce()) -> usize {
    MEASURING.fetch_add(1, Ordering::SeqCst);
    let workers_before = WORKER_COUNT.load(Ordering::SeqCst);
    let own = allocations_during(f);
    let workers = WORKER_COUNT.load(Ordering::SeqCst) - workers_before;
    MEASURING.fetch_sub(1, Ordering::SeqCst);
    own + workers
}
