//! Opaque handles: a `Box<T>` behind a typed pointer (`docs/packaging.md` §2.1). The type
//! parameter makes sure only the right type is ever borrowed or freed.

use super::status::FfiError;

/// Moves `value` to the heap and gives C its pointer.
pub fn into_raw<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Borrows a handle.
///
/// # Safety
/// `ptr` must be NULL or come from [`into_raw`] for this `T` and not be freed yet, and the
/// handle must not be used by another thread at the same time (the documented contract).
pub unsafe fn handle_ref<'a, T>(ptr: *const T, name: &str) -> Result<&'a T, FfiError> {
    // SAFETY: per the function's contract.
    unsafe { ptr.as_ref() }.ok_or_else(|| FfiError::null(name))
}

/// Borrows a handle mutably.
///
/// # Safety
/// As [`handle_ref`], and no other reference to the handle is alive.
pub unsafe fn handle_mut<'a, T>(ptr: *mut T, name: &str) -> Result<&'a mut T, FfiError> {
    // SAFETY: per the function's contract.
    unsafe { ptr.as_mut() }.ok_or_else(|| FfiError::null(name))
}

/// Frees a handle; NULL is a no-op.
///
/// # Safety
/// `ptr` must be NULL or come from [`into_raw`] for this `T` and not be freed yet (a double
/// free is the caller's bug, as documented).
pub unsafe fn free<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: per the function's contract.
        drop(unsafe { Box::from_raw(ptr) });
    }
}
