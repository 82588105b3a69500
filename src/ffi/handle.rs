//! Opaque handles and their lifecycle, written once (`docs/packaging.md` §2.1–§2.3).
//!
//! A handle is a `Box` behind a typed pointer: `cts_<solver>` holds its last-error slot and the
//! solver's state, and says so by implementing [`Handle`] (with `impl_handle!`). The type
//! parameter makes sure only the right type is ever borrowed or freed. Every exported function
//! of a handle is a call of one function here, which checks the pointers and runs the body
//! inside the panic guard ([`super::guard`]):
//!
//! * lifecycle: `new`, `free`, `clone`, `last_error`;
//! * calls: `with_mut` / `with_ref` (errno-style last error, messages prefixed with the
//!   function's name, see [`Call`]); `read` for the infallible queries (`_num_*`);
//! * parameters: `write_default` (`_parameters_default`), `set_parameters`, `get_struct`
//!   (`_get_parameters`, also the stats of a solve);
//! * results, for a state that declares them (`Results`): `copy_result` (a `(out, len)`
//!   vector), `copy_history` (a `(out, len, count)` history); `copy_vector` and
//!   `copy_matrix` for any vector or matrix of the state.
//!
//! These functions take the raw pointers exactly as C passed them: the handle is NULL or a live
//! handle of this type used by one thread, and every other pointer is NULL or valid for what
//! the exported function's documentation says (the C contract, `docs/c_api.md` §1). They are
//! called only from the exported bodies, which pass that contract on.

use std::ffi::c_char;

use nalgebra::DMatrixView;

use super::guard::{ErrorSlot, guard, guard_value, prefix};
use super::status::{FfiError, cts_status};
use super::view::{copy_out, copy_out_matrix, finite_output, output};

/// An opaque C handle: its last-error slot and its state.
pub trait Handle: Sized {
    /// The state behind the handle.
    type Inner;
    /// A new handle around `inner`, with an empty last error.
    fn wrap(inner: Self::Inner) -> Self;
    /// The slot and the state, borrowed separately.
    fn parts(&mut self) -> (&ErrorSlot, &mut Self::Inner);
    /// The slot and the state, read-only.
    fn parts_ref(&self) -> (&ErrorSlot, &Self::Inner);
}

/// Implements [`Handle`] for a handle struct `{ error: ErrorSlot, inner: $inner }`.
macro_rules! impl_handle {
    ($handle:ty => $inner:ty) => {
        impl $crate::ffi::handle::Handle for $handle {
            type Inner = $inner;
            fn wrap(inner: $inner) -> Self {
                Self { error: $crate::ffi::guard::ErrorSlot::default(), inner }
            }
            fn parts(&mut self) -> (&$crate::ffi::guard::ErrorSlot, &mut $inner) {
                (&self.error, &mut self.inner)
            }
            fn parts_ref(&self) -> (&$crate::ffi::guard::ErrorSlot, &$inner) {
                (&self.error, &self.inner)
            }
        }
    };
}
pub(crate) use impl_handle;

/// What a call does to its handle's last error besides recording its own failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// A call that sets problem data or solves: the last error is cleared when it starts, so it
    /// is "" after it succeeds.
    Starts,
    /// Any other call (getters, parameters, operator registration, ...): a success leaves the
    /// last error as it was.
    Keeps,
}

/// Runs `body` on a mutable handle inside [`guard`]: failures go to the handle's slot, prefixed
/// with `function` (for a NULL handle, to the thread-local channel). See [`Call`].
pub(crate) fn with_mut<H: Handle>(
    handle: *mut H,
    function: &'static str,
    call: Call,
    body: impl FnOnce(&mut H::Inner) -> Result<cts_status, FfiError>,
) -> cts_status {
    // SAFETY: NULL or a live handle used by one thread (the C contract, see the module's doc).
    match unsafe { handle.as_mut() } {
        Some(h) => {
            let (slot, inner) = h.parts();
            if call == Call::Starts {
                slot.clear();
            }
            guard(Some(slot), || body(inner).map_err(|e| prefix(function, e)))
        }
        None => guard(None, || Err(prefix(function, FfiError::null("solver")))),
    }
}

/// As [`with_mut`] for calls that only read the handle (they never clear its last error).
pub(crate) fn with_ref<H: Handle>(
    handle: *const H,
    function: &'static str,
    body: impl FnOnce(&H::Inner) -> Result<cts_status, FfiError>,
) -> cts_status {
    // SAFETY: as in `with_mut`.
    match unsafe { handle.as_ref() } {
        Some(h) => {
            let (slot, inner) = h.parts_ref();
            guard(Some(slot), || body(inner).map_err(|e| prefix(function, e)))
        }
        None => guard(None, || Err(prefix(function, FfiError::null("solver")))),
    }
}

/// An infallible query of a handle (`_num_*`, capacities): `get` of its state, `default` for a
/// NULL handle or a panic.
pub(crate) fn read<H: Handle, T: Copy>(handle: *const H, default: T, get: impl FnOnce(&H::Inner) -> T) -> T {
    // SAFETY: as in `with_mut`.
    guard_value(default, || unsafe { handle.as_ref() }.map_or(default, |h| get(h.parts_ref().1)))
}

/// `cts_<solver>_new`: checks `out`, builds the state with `make` and writes the new handle to
/// `*out` (only on success). Failures go to the thread-local channel, prefixed with `function`.
pub(crate) fn new<H: Handle>(
    out: *mut *mut H,
    function: &'static str,
    make: impl FnOnce() -> Result<H::Inner, FfiError>,
) -> cts_status {
    guard(None, || {
        if out.is_null() {
            return Err(prefix(function, FfiError::null("out")));
        }
        let inner = make().map_err(|e| prefix(function, e))?;
        // SAFETY: non-NULL and writable (the C contract).
        unsafe { *out = Box::into_raw(Box::new(H::wrap(inner))) };
        Ok(cts_status::Ok)
    })
}

/// `cts_<solver>_clone`: as [`new`], the state made by `copy` from the original's.
pub(crate) fn clone<H: Handle>(
    solver: *const H,
    out: *mut *mut H,
    function: &'static str,
    copy: impl FnOnce(&H::Inner) -> Result<H::Inner, FfiError>,
) -> cts_status {
    guard(None, || {
        // SAFETY: NULL or a live handle (the C contract).
        let h = unsafe { solver.as_ref() }.ok_or_else(|| prefix(function, FfiError::null("solver")))?;
        if out.is_null() {
            return Err(prefix(function, FfiError::null("out")));
        }
        let inner = copy(h.parts_ref().1).map_err(|e| prefix(function, e))?;
        // SAFETY: non-NULL and writable (the C contract).
        unsafe { *out = Box::into_raw(Box::new(H::wrap(inner))) };
        Ok(cts_status::Ok)
    })
}

/// `cts_<solver>_free`: frees a handle; NULL is a no-op (a double free is the caller's bug, as
/// documented).
pub(crate) fn free<H: Handle>(handle: *mut H) {
    guard_value((), || {
        if !handle.is_null() {
            // SAFETY: a live handle made by `new` or `clone` for this `H` (the C contract).
            drop(unsafe { Box::from_raw(handle) });
        }
    })
}

/// `cts_<solver>_last_error`: the detail of the handle's last failing call; "" for a NULL
/// handle.
pub(crate) fn last_error<H: Handle>(handle: *const H) -> *const c_char {
    // SAFETY: as in `with_mut`.
    guard_value(c"".as_ptr(), || {
        unsafe { handle.as_ref() }.map_or(c"".as_ptr(), |h| h.parts_ref().0.as_ptr())
    })
}

/// `cts_<solver>_parameters_default`: writes `value()` to `*out`; NULL-safe (does nothing).
pub(crate) fn write_default<T>(out: *mut T, value: impl FnOnce() -> T) {
    guard_value((), || {
        // SAFETY: NULL or a writable struct (the C contract).
        if let Some(out) = unsafe { out.as_mut() } {
            *out = value();
        }
    })
}

/// `cts_<solver>_set_parameters`: converts `*p` (NULL-checked) to the solver's parameters `R`,
/// which validates them, and `set`s them on the handle's state (with `*p` itself, for a state
/// that keeps it). Nothing changes on error; a success keeps the last error.
pub(crate) fn set_parameters<H: Handle, P, R, E>(
    handle: *mut H,
    function: &'static str,
    p: *const P,
    set: impl FnOnce(&mut H::Inner, R, &P) -> Result<(), E>,
) -> cts_status
where
    R: for<'p> TryFrom<&'p P, Error = FfiError>,
    FfiError: From<E>,
{
    with_mut(handle, function, Call::Keeps, |h| {
        // SAFETY: NULL or a readable struct (the C contract).
        let p = unsafe { p.as_ref() }.ok_or_else(|| FfiError::null("p"))?;
        set(h, R::try_from(p)?, p)?;
        Ok(cts_status::Ok)
    })
}

/// A getter of a struct (`_get_parameters`, the stats of a solve): checks `out`, then writes
/// `get` of the handle's state to `*out`. Nothing is written on error.
pub(crate) fn get_struct<H: Handle, T>(
    handle: *const H,
    function: &'static str,
    out: *mut T,
    get: impl FnOnce(&H::Inner) -> Result<T, FfiError>,
) -> cts_status {
    with_ref(handle, function, |h| {
        // SAFETY: NULL or a writable struct (the C contract).
        let out = unsafe { out.as_mut() }.ok_or_else(|| FfiError::null("out"))?;
        *out = get(h)?;
        Ok(cts_status::Ok)
    })
}

/// A handle state whose getters read the results of its last solve.
pub(crate) trait Results {
    /// What the getters read: the solver, which keeps the results of its last solve.
    type Solver;
    /// The solver, or `CTS_STATUS_NO_SOLUTION` when the current problem data has no results.
    fn results(&self) -> Result<&Self::Solver, FfiError>;
}

/// A getter of a result vector (`name` in messages): `get` of the last solve's results, then
/// `(out, len)` checked against its length and every value finite ([`copy_out`]). Nothing is
/// written on error.
pub(crate) fn copy_result<H: Handle>(
    handle: *const H,
    function: &'static str,
    name: &str,
    out: *mut f64,
    len: usize,
    get: impl FnOnce(&<H::Inner as Results>::Solver) -> &[f64],
) -> cts_status
where
    H::Inner: Results,
{
    copy_vector(handle, function, name, out, len, |h| h.results().map(get))
}

/// As [`copy_result`] for a vector `get` takes from the handle's state (and which fails without
/// results).
pub(crate) fn copy_vector<H: Handle>(
    handle: *const H,
    function: &'static str,
    name: &str,
    out: *mut f64,
    len: usize,
    get: impl FnOnce(&H::Inner) -> Result<&[f64], FfiError>,
) -> cts_status {
    with_ref(handle, function, |h| {
        let values = get(h)?;
        // SAFETY: `out` NULL or `len` writable doubles (the C contract).
        unsafe { copy_out(name, out, len, values) }
    })
}

/// A getter of a matrix (`name` in messages): `get` of the handle's state (which fails without
/// results), copied into `(out, ld)` when every value is finite ([`copy_out_matrix`]). Nothing is
/// written on error.
pub(crate) fn copy_matrix<H: Handle>(
    handle: *const H,
    function: &'static str,
    name: &str,
    out: *mut f64,
    ld: usize,
    get: impl FnOnce(&H::Inner) -> Result<DMatrixView<'_, f64>, FfiError>,
) -> cts_status {
    with_ref(handle, function, |h| {
        let values = get(h)?;
        // SAFETY: `out` NULL or a writable buffer of the size `ld` and the shape imply (the C
        // contract).
        unsafe { copy_out_matrix(Some(name), out, ld, &values) }
    })
}

/// A getter of a history of the last solve (`name` in messages): writes `min(len, count)`
/// entries of `get` to `out` (NULL when `len` is 0, to query the length) and the history's
/// length to `*count`.
pub(crate) fn copy_history<H: Handle>(
    handle: *const H,
    function: &'static str,
    name: &str,
    out: *mut f64,
    len: usize,
    count: *mut usize,
    get: impl FnOnce(&<H::Inner as Results>::Solver) -> &[f64],
) -> cts_status
where
    H::Inner: Results,
{
    with_ref(handle, function, |h| {
        if count.is_null() {
            return Err(FfiError::null("count"));
        }
        let history = get(h.results()?);
        let k = len.min(history.len());
        finite_output(name, &history[..k])?;
        // SAFETY: NULL only with len 0, else `len >= k` writable doubles (the C contract).
        let out = unsafe { output("out", out, k, k) }?;
        out.copy_from_slice(&history[..k]);
        // SAFETY: non-NULL and writable (the C contract).
        unsafe { *count = history.len() };
        Ok(cts_status::Ok)
    })
}

/// The usual [`Results::results`]: `results`, or `CTS_STATUS_NO_SOLUTION` when the current
/// problem data has not been solved.
pub(crate) fn solved<T>(results: Option<T>) -> Result<T, FfiError> {
    results.ok_or_else(|| {
        FfiError::new(cts_status::NoSolution, "no solution: solve the current problem data first")
    })
}

/// A count for an `int32_t` field of a C struct (parameters, stats): `x`, or `INT32_MAX` when it
/// does not fit.
pub fn saturating_i32(x: usize) -> i32 {
    i32::try_from(x).unwrap_or(i32::MAX)
}
