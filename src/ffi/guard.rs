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
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::status::{FfiError, cts_status};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// The detail of a handle's last failing call; `""` when none.
#[derive(Debug, Default)]
pub struct ErrorSlot(RefCell<CString>);

impl ErrorSlot {
    /// Records `message` (interior NULs are replaced).
    pub fn set(&self, message: &str) {
        *self.0.borrow_mut() = to_cstring(message);
    }

    /// Forgets the last message (allocates nothing when there is none).
    pub fn clear(&self) {
        let mut s = self.0.borrow_mut();
        if !s.as_bytes().is_empty() {
            *s = CString::default();
        }
    }

    /// The message, valid until the next call that changes the slot.
    pub fn as_ptr(&self) -> *const c_char {
        self.0.borrow().as_ptr()
    }
}

fn to_cstring(message: &str) -> CString {
    CString::new(message.replace('\0', "\u{FFFD}")).unwrap_or_default()
}

/// Records `message` in the thread-local channel.
fn set_thread_error(message: &str) {
    LAST_ERROR.with(|e| *e.borrow_mut() = to_cstring(message));
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
/// `e.message` and returns `e.status`, a panic records its message and returns
/// `CTS_STATUS_PANIC`. `slot` is the handle's error slot, or `None` for the thread-local channel.
pub fn guard(slot: Option<&ErrorSlot>, body: impl FnOnce() -> Result<cts_status, FfiError>) -> cts_status {
    let (status, message) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(status)) => (status, None),
        Ok(Err(e)) => (e.status, Some(e.message)),
        Err(payload) => (cts_status::Panic, Some(panic_message(payload.as_ref()))),
    };
    match (slot, message) {
        (Some(slot), Some(m)) => slot.set(&m),
        (None, Some(m)) => set_thread_error(&m),
        (_, None) => {}
    }
    status
}

/// Prefixes a message with the exported function's name.
pub fn prefix(function: &str, e: FfiError) -> FfiError {
    FfiError { status: e.status, message: format!("{function}: {}", e.message) }
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
    guard_value(c"".as_ptr(), || LAST_ERROR.with(|e| e.borrow().as_ptr()))
}
