//! Scalar helpers with C++ semantics (`docs/tamsi.md` §9).
//!
//! Rust's `f64::max`/`f64::min` return the non-NaN operand in either position; C++'s
//! `std::max(a, b) = (a < b) ? b : a` and `std::min(a, b) = (b < a) ? b : a` return `a` whenever
//! the comparison is false. Reference implementations written in C++ rely on the latter, e.g. to
//! make `max(0, NaN)` equal 0 or to let `min(alpha, NaN)` keep `alpha`.

/// C++ `std::max(a, b)`: `(a < b) ? b : a`. A NaN `a` is returned as is; a NaN `b` yields `a`.
#[inline]
pub fn cxx_max(a: f64, b: f64) -> f64 {
    if a < b { b } else { a }
}

/// C++ `std::min(a, b)`: `(b < a) ? b : a`. A NaN `a` is returned as is; a NaN `b` yields `a`.
#[inline]
pub fn cxx_min(a: f64, b: f64) -> f64 {
    if b < a { b } else { a }
}

/// Positive part `(x)₊ = std::max(0, x)`: `x` only if `0 < x`, so a NaN becomes 0.
#[inline]
pub fn positive_part(x: f64) -> f64 {
    cxx_max(0.0, x)
}

/// Step function with `H(0) = 1`: 1 if `x ≥ 0`, else 0 (also 0 for NaN).
#[inline]
pub fn step(x: f64) -> f64 {
    if x >= 0.0 { 1.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_semantics_follow_cxx() {
        assert!(cxx_max(f64::NAN, 1.0).is_nan());
        assert_eq!(cxx_max(1.0, f64::NAN), 1.0);
        assert!(cxx_min(f64::NAN, 1.0).is_nan());
        assert_eq!(cxx_min(1.0, f64::NAN), 1.0);
        assert_eq!(positive_part(f64::NAN), 0.0);
        assert_eq!(positive_part(-2.0), 0.0);
        assert_eq!(positive_part(2.0), 2.0);
        assert_eq!(step(0.0), 1.0);
        assert_eq!(step(-0.0), 1.0);
        assert_eq!(step(-1e-300), 0.0);
        assert_eq!(step(f64::NAN), 0.0);
    }
}
