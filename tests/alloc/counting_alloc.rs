//! The counting global allocator of the `*_alloc` tests ("no allocation inside a solve once the
//! workspace has grown"). A test crate installs it with
//! `#[global_allocator] static GLOBAL: Counting = Counting;` and measures with
//! [`allocations_during`].
//!
//! Only the calling thread's allocations count, and only while [`allocations_during`] runs its
//! closure: libtest's own threads and tests running in parallel allocate too (on a loaded machine
//! sometimes inside a counted solve), so a process-wide counter would see them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Forwards to the system allocator; counts `alloc`, `alloc_zeroed` and `realloc` calls.
pub struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn record() {
    // `try_with`: allocations during thread teardown find the thread-locals gone.
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            COUNT.with(|n| n.set(n.get() + 1));
        }
    });
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
    let before = COUNT.with(Cell::get);
    let was = COUNTING.with(|c| c.replace(true));
    f();
    COUNTING.with(|c| c.set(was));
    COUNT.with(Cell::get) - before
}
