//! Error channels and the panic guard (`docs/packaging.md` §2.2–§2.3).
//!
//! Every exported body runs inside [`guard`]: a panic never unwinds into C; it becomes
//! `CTS_STATUS_PANIC` with its message recorded. Details go to the handle's own slot
//! ([`ErrorSlot`]); when there is no handle (a constructor, a NULL handle), to the thread-local
//! secondary channel read by [`cts_last_error_message`].
//!
//! The slot is errno-style: a successful call leaves it alone (a getter after a failed solve
//! does not wipe the solve's detail); only a failing call replaces it, and a call that sets new
//! problem data or solves clears it when it starts ([`Call::Starts`]). Every solver's exported
//! functions go through the handle functions of [`super::handle`] (`with_mut`, `with_ref`, the
//! lifecycle), which also prefix messages with the function's name ([`prefix`]).
//!
//! [`Call::Starts`]: super::handle::Call::Starts

use std::any::Any;
use std::cell::RefCell;
use std::ffi::c_char;
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::status::{FfiError, cts_status, recycle_message};

thread_local! {
    static LAST_ERROR: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The detail of a handle's last failing call; `""` when none. NUL-terminated bytes in grow-only
/// storage: recording a message allocates only when it is longer than every one before.
#[derive(Debug, Default)]
pub struct ErrorSlot(RefCell<Vec<u8>>);

impl ErrorSlot {
    /// Records `function: message` (just `message` when `function` is empty; interior NULs are
    /// replaced).
    pub fn set(&self, function: &str, message: &str) {
        write_c_message(&mut self.0.borrow_mut(), function, message);
    }

    /// Forgets the last message (allocates nothing; the storage stays).
    pub fn clear(&self) {
        self.0.borrow_mut().clear();
    }

    /// The message, valid until the next call that changes the slot.
    pub fn as_ptr(&self) -> *const c_char {
        c_message(&self.0.borrow())
    }
}

/// `buf` as a C string: `""` when empty, else its bytes (which end with a NUL).
fn c_message(buf: &[u8]) -> *const c_char {
    if buf.is_empty() { c"".as_ptr() } else { buf.as_ptr().cast() }
}

/// Writes `function: message` and a NUL into `buf` (reusing its storage), each interior NUL
/// replaced by U+FFFD so C reads the whole message.
fn write_c_message(buf: &mut Vec<u8>, function: &str, message: &str) {
    buf.clear();
    let mut text = |s: &str| {
        for (k, part) in s.split('\0').enumerate() {
            if k > 0 {
                buf.extend_from_slice("\u{FFFD}".as_bytes());
            }
            buf.extend_from_slice(part.as_bytes());
        }
    };
    if !function.is_empty() {
        text(function);
        text(": ");
    }
    text(message);
    buf.push(0);
}

/// Records `function: message` in the thread-local channel.
fn set_thread_error(function: &str, message: &str) {
    // `try_with`: a call during thread teardown finds the channel gone and records nothing.
    let _ = LAST_ERROR.try_with(|e| write_c_message(&mut e.borrow_mut(), function, message));
}

/// Text of a panic payload.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("internal panic: {detail}")
}

/// Runs a fallible exported body: `Ok(s)` returns `s` (recording nothing), `Err(e)` records
/// `e.function: e.message` and returns `e.status`, a panic records its message and returns
/// `CTS_STATUS_PANIC`. `slot` is the handle's error slot, or `None` for the thread-local channel.
pub fn guard(slot: Option<&ErrorSlot>, body: impl FnOnce() -> Result<cts_status, FfiError>) -> cts_status {
    let (status, function, message) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(status)) => return status,
        Ok(Err(e)) => (e.status, e.function, e.message),
        Err(payload) => (cts_status::Panic, "", panic_message(payload.as_ref())),
    };
    match slot {
        Some(slot) => slot.set(function, &message),
        None => set_thread_error(function, &message),
    }
    recycle_message(message);
    status
}

/// Names the exported function a failure happened in (written before its message when it is
/// recorded; an error already named keeps both names, the outer first).
pub fn prefix(function: &'static str, mut e: FfiError) -> FfiError {
    if !e.function.is_empty() {
        e.message = format!("{}: {}", e.function, e.message);
    }
    e.function = function;
    e
}

/// Runs an infallible exported body, returning `default` if it panics.
pub fn guard_value<T>(default: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(default)
}

/// Detail of the last failure on this thread that had no handle to record it in: a constructor
/// (`cts_*_new`, `cts_*_clone`) or a call with a NULL handle. `""` when none. Valid until the
/// next such failure on this thread; never NULL, never to be freed. The per-handle
/// `cts_*_last_error` is the primary channel.
#[unsafe(no_mangle)]
pub extern "C" fn cts_last_error_message() -> *const c_char {
    guard_value(c"".as_ptr(), || LAST_ERROR.with(|e| c_message(&e.borrow())))
}
