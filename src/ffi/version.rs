//! Library and ABI versions (`docs/packaging.md` §2.5).

use std::ffi::{CStr, c_char};

const VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
    Ok(v) => v,
    Err(_) => panic!("crate version with an interior NUL"),
};

const fn parse_u32(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut v = 0u32;
    let mut i = 0;
    while i < b.len() {
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

/// The ABI version: while the crate is 0.x, its minor version, which is also the SONAME's of
/// an installed library (`libcontact_solvers.so.0.<minor>`); any change of a struct or
/// signature bumps it.
pub const ABI_VERSION: u32 = parse_u32(env!("CARGO_PKG_VERSION_MINOR"));

/// The library version, e.g. `"0.2.0"` (static, never NULL, not to be freed). Equals the
/// header's `CTS_VERSION_MAJOR.CTS_VERSION_MINOR.CTS_VERSION_PATCH` when header and library
/// match.
#[unsafe(no_mangle)]
pub extern "C" fn cts_version() -> *const c_char {
    VERSION.as_ptr()
}

/// The ABI version of the loaded library. A host built against this header checks
/// `cts_abi_version() == CTS_ABI_VERSION` at start-up.
#[unsafe(no_mangle)]
pub extern "C" fn cts_abi_version() -> u32 {
    ABI_VERSION
}
