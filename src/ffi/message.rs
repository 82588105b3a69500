//! The one place where the C ABI's messages are worded and its numbers formatted
//! (`docs/c_api.md` §1.3, "Status codes and error messages").
//!
//! Every message of a failing call names the function (added by the handle wrappers of
//! [`super::guard`]), the argument, the value and what was expected: "cts_tamsi_solver_solve_with_guess:
//! v_guess has length 3; the solver has nv = 2". Numbers are written with [`g`]: short, and
//! exact (they parse back to the same double), in exponent form for very large or very small
//! magnitudes, so no message prints a 309-digit number.

use std::fmt;

use super::status::{FfiError, cts_status};

/// A double formatted for a message: the shortest text that parses back to the same value,
/// plain for magnitudes in [1e-4, 1e15) and in exponent form otherwise (`1.7976931348623157e308`,
/// `1e-200`), `NaN`, `inf`, `-inf`, `0`, `-0`. Like C's `%g` in switching to exponent form, unlike
/// it in never rounding.
#[derive(Clone, Copy)]
pub struct G(pub f64);

impl fmt::Display for G {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let a = x.abs();
        if x.is_nan() {
            f.write_str("NaN")
        } else if a == 0.0 || !x.is_finite() || (1e-4..1e15).contains(&a) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

/// Shorthand for [`G`].
pub fn g(x: f64) -> G {
    G(x)
}

/// A byte count for a message: "512 B", "12.5 MiB", "64 GiB".
pub fn bytes(n: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{} {}", g((value * 100.0).round() / 100.0), UNITS[unit])
}

/// `name` is NULL although its length is `len` (> 0).
pub fn null_with_len(name: &str, len: usize, unit: &str) -> FfiError {
    FfiError::new(
        cts_status::NullPointer,
        format!(
            "{name} is NULL, but it must point to {len} {unit} (NULL is allowed only when that count is 0)"
        ),
    )
}

/// A length mismatch: "`name` has length `got`, expected `want`" (`want` may be a formula, e.g.
/// "nv = 2").
pub fn length(name: &str, got: usize, want: impl fmt::Display) -> FfiError {
    FfiError::new(cts_status::DimensionMismatch, format!("{name} has length {got}, expected {want}"))
}

/// A shape mismatch of a solver's argument: "`what` is RxC, expected RxC" or, for vectors,
/// "`what` has length n, expected m".
pub fn shape(what: &str, got: (usize, usize), want: (usize, usize)) -> FfiError {
    if got.1 == 1 && want.1 == 1 {
        length(what, got.0, want.0)
    } else {
        FfiError::new(
            cts_status::DimensionMismatch,
            format!("{what} is {}x{}, expected {}x{}", got.0, got.1, want.0, want.1),
        )
    }
}

/// A scalar outside its domain: "`name` = `value` is outside its domain: expected `expected`".
pub fn domain(name: &str, value: impl fmt::Display, expected: &str) -> FfiError {
    FfiError::new(
        cts_status::InvalidArgument,
        format!("{name} = {value} is outside its domain: expected {expected}"),
    )
}

/// A code that is none of the accepted enumerators.
pub fn code(name: &str, value: i32, expected: &str) -> FfiError {
    FfiError::new(cts_status::InvalidArgument, format!("{name} = {value} is not {expected}"))
}

/// A 0/1 flag given as an `int32_t`.
pub fn flag(name: &str, value: i32) -> Result<bool, FfiError> {
    match value {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(code(name, value, "0 or 1")),
    }
}

/// Where a non-finite entry was found: a vector index or a (row, column) of a matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Index {
    /// Entry `i` of a vector.
    Vector(usize),
    /// Entry (row, column) of a column-major matrix.
    Matrix(usize, usize),
}

impl Index {
    /// The index of a solver error's offending entry: `at` in a matrix, or `at.0` in a vector.
    pub fn at(at: (usize, usize), matrix: bool) -> Self {
        if matrix { Index::Matrix(at.0, at.1) } else { Index::Vector(at.0) }
    }
}

impl fmt::Display for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Index::Vector(i) => write!(f, "[{i}]"),
            Index::Matrix(r, c) => write!(f, "[{r}, {c}] (row {r}, column {c})"),
        }
    }
}

/// A non-finite input entry: `INVALID_ARGUMENT`, "`name[i]` = NaN is not finite: expected finite
/// data".
pub fn non_finite_input(name: &str, at: Index, value: f64) -> FfiError {
    FfiError::new(
        cts_status::InvalidArgument,
        format!(
            "{name}{at} = {} is not finite: expected finite data (NaN and infinities are rejected)",
            g(value)
        ),
    )
}

/// An input entry outside its domain, as a solver reports it: "`what[i]` = -1 is outside its
/// domain: expected `expected`".
pub fn invalid_entry(what: &str, at: Index, value: f64, expected: &str) -> FfiError {
    FfiError::new(
        cts_status::InvalidArgument,
        format!("{what}{at} = {} is outside its domain: expected {expected}", g(value)),
    )
}

/// An input entry outside its sign domain: "`name[i]` = -1 is negative: expected >= 0".
pub fn negative_input(name: &str, at: Index, value: f64, meaning: &str) -> FfiError {
    FfiError::new(
        cts_status::InvalidArgument,
        format!("{name}{at} = {} is outside its domain: expected finite and >= 0 ({meaning})", g(value)),
    )
}

/// A non-finite output entry: `CTS_STATUS_NON_FINITE_RESULT`, "the result overflowed or is
/// undefined".
pub fn non_finite_output(name: &str, at: Index, value: f64) -> FfiError {
    FfiError::new(
        cts_status::NonFiniteResult,
        format!(
            "output {name}{at} = {} is not finite (the computation overflowed or is undefined for this \
             data; scale the problem or check its data)",
            g(value)
        ),
    )
}
