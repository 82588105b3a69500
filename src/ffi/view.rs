//! The one place where raw `(pointer, ld)` pairs from C become validated nalgebra views
//! (`docs/c_api.md` §1.5, "Matrices and vectors"; `docs/packaging.md` §2.6).
//!
//! A matrix argument is `(const double *data, size_t ld)` with its shape implied by sizes the
//! library already knows: column-major, `ld >= max(1, rows)`, a buffer of `ld*(cols-1)+rows`
//! doubles, rows `rows..ld` never read. A pointer may be NULL only where the length is 0.
//! Validation happens once, when the raw parts are captured; turning them back into views is
//! the only `unsafe` step and relies on the borrowing contract.

use nalgebra::{DMatrixView, DVectorView, Dyn, U1};

use super::alloc::{DOUBLE, addressable as fits};
use super::message::{self, Index, null_with_len};
use super::status::{FfiError, cts_status};
use crate::linalg::first_not_finite_at_least;

/// A borrowed column-major matrix, validated.
#[derive(Debug, Clone, Copy)]
pub struct RawMatrix {
    ptr: *const f64,
    rows: usize,
    cols: usize,
    ld: usize,
}

impl RawMatrix {
    /// Validates `(ptr, ld)` for a `rows×cols` matrix named `name`.
    pub fn new(name: &str, ptr: *const f64, ld: usize, rows: usize, cols: usize) -> Result<Self, FfiError> {
        if ld < rows.max(1) {
            return Err(FfiError::new(
                cts_status::InvalidArgument,
                format!(
                    "{name}: ld {ld} < max(1, rows {rows}): the leading dimension must be at least the row count"
                ),
            ));
        }
        let m = Self { ptr, rows, cols, ld };
        let len = m.checked_buffer_len().ok_or_else(|| too_large(name, rows, cols, ld))?;
        if ptr.is_null() && len > 0 {
            return Err(null_with_len(name, len, &format!("doubles ({rows}x{cols}, ld {ld})")));
        }
        Ok(m)
    }

    /// Number of doubles the caller's buffer holds: `ld*(cols-1)+rows`, or 0 when empty; `None`
    /// when that is not addressable.
    fn checked_buffer_len(&self) -> Option<usize> {
        if self.rows == 0 || self.cols == 0 {
            return Some(0);
        }
        let len = self.ld.checked_mul(self.cols - 1)?.checked_add(self.rows)?;
        addressable(len)
    }

    /// Number of doubles the caller's buffer holds (validated at construction).
    pub fn buffer_len(&self) -> usize {
        self.checked_buffer_len().unwrap_or(0)
    }

    /// Checks that every entry (rows `0..rows` of each column) is finite; reports the first one
    /// that is not as `CTS_STATUS_INVALID_ARGUMENT`.
    ///
    /// # Safety
    /// As [`RawMatrix::view`].
    pub unsafe fn check_finite(&self, name: &str) -> Result<(), FfiError> {
        // SAFETY: forwarded contract.
        let m = unsafe { self.view() };
        for (c, column) in m.column_iter().enumerate() {
            if let Some(r) = first_non_finite(column.as_slice()) {
                return Err(message::non_finite_input(name, Index::Matrix(r, c), column[r]));
            }
        }
        Ok(())
    }

    /// The matrix as a view.
    ///
    /// # Safety
    /// The caller's buffer must still be allocated and unchanged (the borrowing rule) and not be
    /// written during `'a`.
    pub unsafe fn view<'a>(&self) -> DMatrixView<'a, f64> {
        let len = self.buffer_len();
        let data: &'a [f64] = if len == 0 {
            &[]
        } else {
            // SAFETY: validated non-NULL with `len` readable doubles, per the contract.
            unsafe { std::slice::from_raw_parts(self.ptr, len) }
        };
        // An empty matrix reads nothing; pick the column stride that satisfies nalgebra's
        // buffer-size check for an empty buffer.
        let cstride = match (self.rows, self.cols) {
            (0, _) => 0,
            (r, 0) => r,
            _ => self.ld,
        };
        DMatrixView::from_slice_with_strides_generic(data, Dyn(self.rows), Dyn(self.cols), U1, Dyn(cstride))
    }
}

/// An element type of the C arrays, named in messages: `double` or `int32_t` (enumerated codes,
/// row indices).
pub trait Element: Copy {
    /// The elements, plural, as messages name them ("doubles").
    const UNIT: &'static str;
}

impl Element for f64 {
    const UNIT: &'static str = "doubles";
}

impl Element for i32 {
    const UNIT: &'static str = "int32_t values";
}

/// A borrowed contiguous array of `T`, validated (its values are validated by the caller).
#[derive(Debug, Clone, Copy)]
pub struct RawSlice<T> {
    ptr: *const T,
    len: usize,
}

/// A borrowed contiguous vector of doubles, validated.
pub type RawVector = RawSlice<f64>;

/// A borrowed contiguous `int32_t` array (enumerated codes, row indices), validated.
pub type RawIntVector = RawSlice<i32>;

impl<T: Element> RawSlice<T> {
    /// Validates an array named `name` of `len` elements.
    pub fn new(name: &str, ptr: *const T, len: usize) -> Result<Self, FfiError> {
        if !fits(len, std::mem::size_of::<T>()) {
            return Err(too_large(name, len, 1, len));
        }
        if ptr.is_null() && len > 0 {
            return Err(null_with_len(name, len, T::UNIT));
        }
        Ok(Self { ptr, len })
    }

    /// Length in elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The array as a slice.
    ///
    /// # Safety
    /// As [`RawMatrix::view`].
    pub unsafe fn slice<'a>(&self) -> &'a [T] {
        if self.len == 0 {
            &[]
        } else {
            // SAFETY: validated non-NULL with `len` readable elements, per the contract.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }
}

impl RawVector {
    /// Checks that every entry is finite (`CTS_STATUS_INVALID_ARGUMENT` naming the first that is
    /// not).
    ///
    /// # Safety
    /// As [`RawMatrix::view`].
    pub unsafe fn check_finite(&self, name: &str) -> Result<(), FfiError> {
        // SAFETY: forwarded contract.
        finite_input(name, unsafe { self.slice() })
    }

    /// The vector as a view.
    ///
    /// # Safety
    /// As [`RawMatrix::view`].
    pub unsafe fn view<'a>(&self) -> DVectorView<'a, f64> {
        // SAFETY: forwarded contract.
        let s = unsafe { self.slice() };
        DVectorView::from_slice(s, s.len())
    }
}

/// `len` doubles fit in one allocation (at most `isize::MAX` bytes), as slices require.
fn addressable(len: usize) -> Option<usize> {
    fits(len, DOUBLE).then_some(len)
}

fn too_large(name: &str, rows: usize, cols: usize, ld: usize) -> FfiError {
    let shape =
        if cols == 1 && ld == rows { format!("{rows} entries") } else { format!("{rows}x{cols} (ld {ld})") };
    FfiError::new(
        cts_status::InvalidArgument,
        format!(
            "{name}: an array of {shape} cannot exist: its buffer would exceed the largest possible allocation, isize::MAX = {} bytes",
            isize::MAX
        ),
    )
}

/// Position of the first value that is not finite ([`first_not_finite_at_least`], vectorized:
/// `position` alone, one branch per value, was 2.7 % of a warm live-loop step on the 50-box pile
/// for the outputs checked after every solve; `docs/performance.md` §3).
fn first_non_finite(values: &[f64]) -> Option<usize> {
    first_not_finite_at_least(values, f64::NEG_INFINITY)
}

/// Checks that every entry of an input is finite (`CTS_STATUS_INVALID_ARGUMENT` naming the
/// first that is not).
pub fn finite_input(name: &str, values: &[f64]) -> Result<(), FfiError> {
    match first_non_finite(values) {
        None => Ok(()),
        Some(i) => Err(message::non_finite_input(name, Index::Vector(i), values[i])),
    }
}

/// Checks that every entry of an output is finite before it is handed to the caller
/// (`CTS_STATUS_NON_FINITE_RESULT` naming the first that is not).
pub fn finite_output(name: &str, values: &[f64]) -> Result<(), FfiError> {
    match first_non_finite(values) {
        None => Ok(()),
        Some(i) => Err(message::non_finite_output(name, Index::Vector(i), values[i])),
    }
}

/// [`finite_output`] of each `(name, values)` in turn: the final check of a solve's outputs,
/// naming the first that is not finite.
pub fn finite_outputs(outputs: &[(&str, &[f64])]) -> Result<(), FfiError> {
    outputs.iter().try_for_each(|&(name, values)| finite_output(name, values))
}

/// As [`finite_output`] for a matrix (the message names the row and column).
pub fn finite_output_matrix(name: &str, m: &DMatrixView<'_, f64>) -> Result<(), FfiError> {
    for (c, column) in m.column_iter().enumerate() {
        if let Some(r) = first_non_finite(column.as_slice()) {
            return Err(message::non_finite_output(name, Index::Matrix(r, c), column[r]));
        }
    }
    Ok(())
}

/// The getters' copy: checks `(out, len)` against `values.len()` and that every value is finite,
/// then copies. Nothing is written on error.
///
/// # Safety
/// `out` must be NULL or point to `len` writable doubles that overlap no input.
pub unsafe fn copy_out(
    name: &str,
    out: *mut f64,
    len: usize,
    values: &[f64],
) -> Result<cts_status, FfiError> {
    // SAFETY: forwarded contract.
    let out = unsafe { output("out", out, len, values.len()) }?;
    finite_output(name, values)?;
    out.copy_from_slice(values);
    Ok(cts_status::Ok)
}

/// The getters' copy of a matrix: checks `(out, ld)` for the shape of `values` and, with a
/// `name`, that every value is finite, then copies the columns (rows `rows..ld` untouched).
/// Nothing is written on error.
///
/// # Safety
/// `out` must be NULL or point to `ld*(cols-1)+rows` writable doubles that overlap no input.
pub unsafe fn copy_out_matrix(
    name: Option<&str>,
    out: *mut f64,
    ld: usize,
    values: &DMatrixView<'_, f64>,
) -> Result<cts_status, FfiError> {
    let (rows, cols) = values.shape();
    // SAFETY: forwarded contract.
    let out = unsafe { output_matrix("out", out, ld, rows, cols) }?;
    if let Some(name) = name {
        finite_output_matrix(name, values)?;
    }
    if rows > 0 {
        for (j, column) in values.column_iter().enumerate() {
            out[j * ld..j * ld + rows].copy_from_slice(column.as_slice());
        }
    }
    Ok(cts_status::Ok)
}

/// Checks an output buffer `(out, len)` that must hold exactly `want` elements and returns it as
/// a slice. Nothing is written here.
///
/// # Safety
/// `out` must be NULL or point to `len` writable doubles that overlap no input.
pub unsafe fn output<'a, T: Element>(
    name: &str,
    out: *mut T,
    len: usize,
    want: usize,
) -> Result<&'a mut [T], FfiError> {
    if len != want {
        return Err(message::length(name, len, want));
    }
    if !fits(len, std::mem::size_of::<T>()) {
        return Err(too_large(name, len, 1, len));
    }
    if want == 0 {
        return Ok(&mut []);
    }
    if out.is_null() {
        return Err(null_with_len(name, len, &format!("writable {}", T::UNIT)));
    }
    // SAFETY: non-NULL with `len` writable elements, per the contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(out, len) })
}

/// Checks a column-major output matrix `(out, ld)` of `rows×cols` and returns its buffer of
/// `ld*(cols-1)+rows` doubles. Nothing is written here.
///
/// # Safety
/// `out` must be NULL or point to that many writable doubles that overlap no input.
pub unsafe fn output_matrix<'a>(
    name: &str,
    out: *mut f64,
    ld: usize,
    rows: usize,
    cols: usize,
) -> Result<&'a mut [f64], FfiError> {
    let m = RawMatrix::new(name, out, ld, rows, cols)?;
    let len = m.buffer_len();
    if len == 0 {
        return Ok(&mut []);
    }
    // SAFETY: validated non-NULL with `len` writable doubles, per the contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(out, len) })
}

/// Validates a borrowed contiguous `int32_t` array named `name` of `len` entries and returns it as
/// a slice (used for enumerated choices such as contact model kinds; the values are validated by
/// the caller).
///
/// # Safety
/// `ptr` must be NULL or point to `len` readable `int32_t`s that stay unchanged during `'a`.
pub unsafe fn int_slice<'a>(name: &str, ptr: *const i32, len: usize) -> Result<&'a [i32], FfiError> {
    // SAFETY: forwarded contract.
    Ok(unsafe { RawIntVector::new(name, ptr, len)?.slice() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_non_finite_sees_every_kind_of_non_finite_value_anywhere() {
        for len in 0..11 {
            let clean: Vec<f64> = (0..len).map(|i| (i as f64 - 4.0) * 1e300).collect();
            assert_eq!(first_non_finite(&clean), None);
            for at in 0..len {
                for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                    let mut x = clean.clone();
                    x[at] = bad;
                    assert_eq!(first_non_finite(&x), Some(at));
                }
            }
        }
        assert_eq!(first_non_finite(&[f64::MAX, -f64::MAX, f64::MIN_POSITIVE, -0.0, 5e-324]), None);
        let e = finite_output("v", &[1.0, f64::INFINITY]).unwrap_err();
        assert_eq!(e.status, cts_status::NonFiniteResult);
        assert!(e.message.starts_with("output v[1] = inf is not finite"), "{}", e.message);
        let e = finite_input("mu", &[f64::NAN]).unwrap_err();
        assert_eq!(e.status, cts_status::InvalidArgument);
        assert!(e.message.starts_with("mu[0] = NaN is not finite"), "{}", e.message);
    }
}
