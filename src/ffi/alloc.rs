//! Workspace sizes that come from the caller, checked before anything is allocated for them
//! (`docs/c_api.md` §1.4, "Never crash the host").
//!
//! Rust aborts the process when an allocation fails. Every call whose workspace grows with a
//! caller's size therefore first computes that size with overflow checks and **probes** it: a
//! `try_reserve` of the whole amount, released at once. A size that cannot exist (its product
//! overflows, or it exceeds `isize::MAX` bytes) is `CTS_STATUS_INVALID_ARGUMENT`; a size the
//! system refuses now is `CTS_STATUS_ALLOCATION_FAILED`; both messages name the size. A probe
//! that succeeded is remembered (`probed`), so repeated calls of one size probe once.

use super::message::bytes;
use super::status::{FfiError, cts_status};

/// Size of one `double`.
pub const DOUBLE: usize = std::mem::size_of::<f64>();

/// The largest allocation Rust can make, in bytes (`isize::MAX`).
pub const MAX_BYTES: usize = isize::MAX as usize;

/// `count` elements of `elem` bytes can exist in one allocation.
pub fn addressable(count: usize, elem: usize) -> bool {
    count.checked_mul(elem).is_some_and(|b| b <= MAX_BYTES)
}

/// A workspace that cannot exist: `what` (e.g. "the workspace of nv = 4294967296 (4·nv²
/// doubles)") exceeds the largest possible allocation. `limit` says which sizes would fit.
pub fn too_large(what: &str, limit: &str) -> FfiError {
    FfiError::new(
        cts_status::InvalidArgument,
        format!(
            "{what} is too large: it exceeds the largest possible allocation of isize::MAX = {MAX_BYTES} bytes; {limit}"
        ),
    )
}

/// The system refused `count` elements of `elem` bytes for `what`.
pub fn failed(what: &str, count: usize, elem: usize) -> FfiError {
    let total = count as u128 * elem as u128;
    FfiError::new(
        cts_status::AllocationFailed,
        format!(
            "{what}: allocating {count} elements of {elem} bytes ({}) failed; nothing was changed",
            bytes(total)
        ),
    )
}

/// The system refused `len` entries for `what`, as a solver reports it.
pub fn entries_failed(what: &str, len: usize) -> FfiError {
    FfiError::new(
        cts_status::AllocationFailed,
        format!("{what}: allocating {len} entries failed; nothing was changed"),
    )
}

/// Probes that `count` doubles (`None`: the size computation overflowed) can be allocated now,
/// unless a probe of at least that many bytes already succeeded (`*probed`, updated). On failure
/// `what()` names the workspace and `limit` words the sizes that would fit (built only then: a
/// probe that passes allocates nothing but itself, and a repeated one nothing at all).
pub fn probe_doubles(
    count: Option<usize>,
    probed: &mut usize,
    what: impl FnOnce() -> String,
    limit: &str,
) -> Result<(), FfiError> {
    probe(count, DOUBLE, probed, what, limit)
}

/// As [`probe_doubles`] for elements of `elem` bytes.
pub fn probe(
    count: Option<usize>,
    elem: usize,
    probed: &mut usize,
    what: impl FnOnce() -> String,
    limit: &str,
) -> Result<(), FfiError> {
    let Some(count) = count.filter(|&c| addressable(c, elem)) else {
        return Err(too_large(&what(), limit));
    };
    let want = count * elem;
    if want <= *probed {
        return Ok(());
    }
    let mut buffer: Vec<u8> = Vec::new();
    if buffer.try_reserve_exact(want).is_err() {
        return Err(failed(&what(), count, elem));
    }
    *probed = want;
    Ok(())
}

/// Grows `v` to hold at least `len` elements (capacity only), reporting failure instead of
/// aborting.
pub fn try_reserve<T>(v: &mut Vec<T>, len: usize, what: &str) -> Result<(), FfiError> {
    if !addressable(len, std::mem::size_of::<T>().max(1)) {
        return Err(too_large(what, "use fewer entries"));
    }
    v.try_reserve(len.saturating_sub(v.len())).map_err(|_| failed(what, len, std::mem::size_of::<T>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_is_invalid_and_success_is_remembered() {
        let mut probed = 0;
        let w = || "w".to_string();
        let e = probe_doubles(None, &mut probed, w, "n <= 3").unwrap_err();
        assert_eq!(e.status, cts_status::InvalidArgument);
        assert!(e.message.contains("isize::MAX") && e.message.contains("n <= 3"), "{}", e.message);
        let e = probe_doubles(Some(usize::MAX / 4), &mut probed, w, "").unwrap_err();
        assert_eq!(e.status, cts_status::InvalidArgument);
        assert_eq!(probed, 0);
        probe_doubles(Some(100), &mut probed, w, "").unwrap();
        assert_eq!(probed, 800);
        probe_doubles(Some(10), &mut probed, w, "").unwrap();
        assert_eq!(probed, 800);
    }

    #[test]
    fn failure_names_the_size() {
        let e = failed("the workspace", 1 << 30, 8);
        assert_eq!(e.status, cts_status::AllocationFailed);
        assert!(e.message.contains("1073741824 elements of 8 bytes (8 GiB)"), "{}", e.message);
    }
}
