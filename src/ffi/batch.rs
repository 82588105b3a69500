//! Many worlds in one call (`docs/c_api.md` §1.10, issue 31 item 2), written once for every
//! solver that offers a `cts_<solver>_solver_solve_batch`.
//!
//! World `i` of a batch is exactly the single solve of `solvers[i]` with its own arguments: the
//! batch calls that exported function, so its status, last error and results are the single
//! call's, bit for bit, whatever the thread count. What the batch adds is checked before any world
//! runs, on the calling thread:
//!
//! * the call itself: `count` at most [`MAX_WORLDS`] (a count beyond it is refused before any
//!   array is read), the required arrays non-NULL when `count > 0`;
//! * each world: a NULL handle is `CTS_STATUS_NULL_POINTER` for that world only; a handle that
//!   appears more than once is `CTS_STATUS_INVALID_ARGUMENT` for **every** world that names it
//!   (two threads must never share a handle, and no occurrence is privileged), with the detail in
//!   the handle's last error.
//!
//! Duplicates are found without allocating: each handle's state holds a [`BatchMark`], a counter
//! that a first pass raises for every occurrence and a last pass resets to zero. So a batch
//! allocates nothing besides the worker threads it spawns (and the messages of failing worlds).
//!
//! Threads (`docs/c_api.md` §1.10): `num_threads` 0 or 1 runs the worlds in order on the calling
//! thread; more runs them on `min(num_threads, count, MAX_THREADS)` threads (the calling thread
//! and scoped threads spawned for this call, joined before it returns). Workers take the next
//! world from a shared counter, so worlds of different sizes balance; each world touches only
//! its own handle and the caller's read-only arrays, so no order between worlds matters to any
//! result. A thread that cannot be spawned is skipped (the others take its worlds). A panic is
//! caught inside the world's own single solve; a panic anywhere else in a world becomes that
//! world's `CTS_STATUS_PANIC`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::guard::{guard, guard_value, prefix};
use super::handle::Handle;
use super::status::{FfiError, cts_status};

/// The largest `count` a batch accepts (2³² − 1 worlds). Every world needs its own live handle,
/// so no host holds more; a larger count is a caller's bug, refused before any array is read.
pub(crate) const MAX_WORLDS: usize = u32::MAX as usize;

/// The most threads a batch runs, whatever `num_threads` asks.
pub(crate) const MAX_THREADS: usize = 256;

/// Stack of a worker thread: as the usual main thread's, so a world never needs more stack on a
/// worker than in a single call.
const WORKER_STACK: usize = 8 << 20;

/// The status of a world left to run, overwritten by its own status; it would stay only if no
/// worker ran the world.
const TO_RUN: cts_status = cts_status::Panic;

/// How many times a handle occurs in the batch being set up; zero outside a batch call.
#[derive(Debug, Default, Clone, Copy)]
pub struct BatchMark(usize);

/// A handle that can take part in a batch: its state holds a [`BatchMark`].
pub(crate) trait Batched: Handle {
    /// The mark in the handle's state.
    fn mark(inner: &mut Self::Inner) -> &mut BatchMark;
}

/// A pointer or closure shared by the workers of one batch.
///
/// SAFETY of the `Send`/`Sync` impls: the caller's arrays are only read during the call (the C
/// contract), each world's handle is touched by exactly one worker (duplicates never run), and
/// a handle is not tied to a thread (`docs/c_api.md` §1.2: one thread at a time, any thread).
struct Shared<T>(T);
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}

impl<F: Fn()> Shared<F> {
    /// Calls the closure (through `&self`, so a thread captures the whole `Shared`).
    fn call(&self) {
        (self.0)()
    }
}

/// Runs a batch: validates the call (`required` names the per-world arrays that must not be NULL
/// when `count > 0`), sets the statuses of NULL and duplicated handles, then `world(handle, i)`
/// for every other world on up to `num_threads` threads, writing its status to `statuses[i]`.
///
/// Returns `CTS_STATUS_OK` when the call was valid (every `statuses[i]` then says how world `i`
/// ended), or the usage error of the call (nothing read beyond the pointers' NULL-ness, nothing
/// written; the detail goes to `cts_last_error_message`).
///
/// # Safety
/// `solvers` and `statuses` NULL or valid for `count` elements, and every non-NULL handle in
/// `solvers` a live handle of type `H` not used elsewhere during the call (the C contract of the
/// exported function); `world` called with those handles only.
pub(crate) unsafe fn run<H: Batched>(
    function: &'static str,
    solvers: *const *mut H,
    count: usize,
    required: &[(&str, bool)],
    num_threads: usize,
    statuses: *mut cts_status,
    world: impl Fn(*mut H, usize) -> cts_status,
) -> cts_status {
    guard(None, || {
        check_call(count, solvers.is_null(), statuses.is_null(), required)
            .map_err(|e| prefix(function, e))?;
        if count == 0 {
            return Ok(cts_status::Ok);
        }
        // SAFETY: non-NULL and valid for `count` elements (the C contract); read-only here.
        let handles = unsafe { std::slice::from_raw_parts(solvers, count) };
        // SAFETY: as above, writable; no other reference to it exists during the call.
        let out = unsafe { std::slice::from_raw_parts_mut(statuses, count) };
        // SAFETY: the handles are live and used only by this call (forwarded contract).
        let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
            mark_worlds(function, handles, out);
            run_worlds(handles, out, num_threads, &world);
        }));
        // SAFETY: as above; resets every mark even after a panic, so a later batch starts clean.
        unsafe { reset_marks(handles) };
        match outcome {
            Ok(()) => Ok(cts_status::Ok),
            Err(_) => Err(prefix(
                function,
                FfiError::new(cts_status::Panic, "internal panic while running the batch"),
            )),
        }
    })
}

/// The checks of the call itself, before any array is read.
fn check_call(
    count: usize,
    solvers_null: bool,
    statuses_null: bool,
    required: &[(&str, bool)],
) -> Result<(), FfiError> {
    if count > MAX_WORLDS {
        return Err(FfiError::new(
            cts_status::InvalidArgument,
            format!(
                "count = {count} > {MAX_WORLDS}: a batch holds at most 2^32 - 1 worlds, each with its own handle"
            ),
        ));
    }
    if count == 0 {
        return Ok(());
    }
    let arrays = [("solvers", solvers_null), ("statuses", statuses_null)];
    match arrays.iter().chain(required).find(|(_, null)| *null) {
        Some((name, _)) => Err(FfiError::new(
            cts_status::NullPointer,
            format!("{name} is NULL; expected an array of count = {count} elements"),
        )),
        None => Ok(()),
    }
}

/// First pass: counts each handle's occurrences in its mark; second pass: the statuses of NULL
/// and duplicated worlds (duplicates get the detail in their handle's last error). The worlds
/// left to run, a non-NULL handle that occurs once, get [`TO_RUN`]: the workers decide from the
/// statuses alone and never touch a handle they do not run.
///
/// # Safety
/// As [`run`].
unsafe fn mark_worlds<H: Batched>(function: &'static str, handles: &[*mut H], out: &mut [cts_status]) {
    for &h in handles {
        // SAFETY: NULL or live, used by this call only; no other reference to it is alive.
        if let Some(h) = unsafe { h.as_mut() } {
            let mark = H::mark(h.parts().1);
            mark.0 = mark.0.saturating_add(1);
        }
    }
    for (i, (&h, status)) in handles.iter().zip(out.iter_mut()).enumerate() {
        // SAFETY: as above.
        *status = match unsafe { h.as_mut() } {
            None => cts_status::NullPointer,
            Some(h) => {
                let (slot, inner) = h.parts();
                let times = H::mark(inner).0;
                if times > 1 {
                    slot.set(
                        function,
                        &format!(
                            "solvers[{i}]: this handle appears {times} times in the batch; each world needs its own handle (none of its worlds was solved)"
                        ),
                    );
                    cts_status::InvalidArgument
                } else {
                    TO_RUN
                }
            }
        };
    }
}

/// Runs the worlds left by [`mark_worlds`], in order on this thread or on a pool of scoped
/// threads taking worlds from a shared counter.
///
/// # Safety
/// As [`run`].
unsafe fn run_worlds<H: Batched>(
    handles: &[*mut H],
    out: &mut [cts_status],
    num_threads: usize,
    world: &impl Fn(*mut H, usize) -> cts_status,
) {
    let count = handles.len();
    let threads = num_threads.min(count).min(MAX_THREADS);
    // SAFETY (both closures): each index `i` is taken by exactly one worker, which alone reads
    // and writes `out[i]`; a world marked TO_RUN has a handle that occurs once in the batch.
    let one = |i: usize, out: *mut cts_status| unsafe {
        if *out.add(i) == TO_RUN {
            *out.add(i) = guard_value(cts_status::Panic, || world(handles[i], i));
        }
    };
    let out = out.as_mut_ptr();
    if threads <= 1 {
        (0..count).for_each(|i| one(i, out));
        return;
    }
    let next = AtomicUsize::new(0);
    let work = Shared(|| {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= count {
                break;
            }
            one(i, out);
        }
    });
    let work = &work;
    std::thread::scope(|scope| {
        for _ in 1..threads {
            // A thread the system refuses is skipped: the others (at least this one) take its
            // worlds.
            let _ =
                std::thread::Builder::new().stack_size(WORKER_STACK).spawn_scoped(scope, move || work.call());
        }
        work.call();
    });
}

/// Last pass: every mark back to zero.
///
/// # Safety
/// As [`run`].
unsafe fn reset_marks<H: Batched>(handles: &[*mut H]) {
    for &h in handles {
        // SAFETY: as in `mark_worlds`; the workers have been joined.
        if let Some(h) = unsafe { h.as_mut() } {
            *H::mark(h.parts().1) = BatchMark(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_call_is_checked_before_any_array_is_read() {
        let e = check_call(1 << 36, false, false, &[]).unwrap_err();
        assert_eq!(e.status, cts_status::InvalidArgument);
        assert!(e.message.contains("68719476736"), "{}", e.message);
        assert!(check_call(0, true, true, &[("dts", true)]).is_ok());
        let e = check_call(3, false, false, &[("dts", false), ("nvs", true)]).unwrap_err();
        assert_eq!(e.status, cts_status::NullPointer);
        assert!(e.message.starts_with("nvs is NULL"), "{}", e.message);
        let e = check_call(3, false, true, &[]).unwrap_err();
        assert!(e.message.starts_with("statuses is NULL"), "{}", e.message);
    }
}
