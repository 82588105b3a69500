//! Row kinds (`docs/baraff.md` §1) and their two encodings: a Rust enum per row, or the C
//! layer's `int32_t` kind codes plus per-row parameter arrays.

use super::BaraffError;

/// [`RowKind::Bilateral`] as a C code.
pub const ROW_BILATERAL: i32 = 0;
/// [`RowKind::Normal`] as a C code.
pub const ROW_NORMAL: i32 = 1;
/// [`RowKind::Friction`] as a C code.
pub const ROW_FRICTION: i32 = 2;
/// [`RowKind::Boxed`] as a C code.
pub const ROW_BOXED: i32 = 3;

/// What a row's scalar force `f_i` and acceleration `a_i` must satisfy (§1).
///
/// Dynamic (sliding) friction is not a row: it enters through the normal row's column
/// (`N − μQ`, see [`super::Sliding`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RowKind {
    /// Joint or closure: free force, `a = 0`.
    Bilateral,
    /// Unilateral normal (contact, joint limit, tether): `f ≥ 0`, `a ≥ 0`, `f a = 0`.
    Normal,
    /// Static friction along one tangent direction: `−μ f_n ≤ f ≤ μ f_n` with `f_n` the force of
    /// row `normal` (which must be a [`RowKind::Normal`]); interior ⇒ `a = 0`, at `+μ f_n` ⇒
    /// `a ≤ 0`, at `−μ f_n` ⇒ `a ≥ 0`. `mu ≥ 0` (dimensionless, μ_s).
    ///
    /// Two such rows per contact (orthonormal tangents) bound each direction independently: a
    /// square that circumscribes the Coulomb disk (up to √2·μ f_n along the diagonals, §4).
    /// Pass `μ/√2` for the inscribed square, or align the first tangent with the slip trend.
    Friction {
        /// Index of the owning normal row.
        normal: usize,
        /// Static friction coefficient μ_s ≥ 0.
        mu: f64,
    },
    /// Force-limited row (motor with a torque limit, joint friction): `lo ≤ f ≤ hi` with
    /// constant bounds, `lo ≤ 0 ≤ hi` (either may be infinite; the solve starts from `f = 0`);
    /// interior ⇒ `a = 0`, at `hi` ⇒ `a ≤ 0`, at `lo` ⇒ `a ≥ 0`. Units of the row's force.
    Boxed {
        /// Lower bound (≤ 0, may be −∞).
        lo: f64,
        /// Upper bound (≥ 0, may be +∞).
        hi: f64,
    },
}

impl RowKind {
    /// The C code of this kind (`ROW_*`).
    pub fn code(&self) -> i32 {
        match self {
            Self::Bilateral => ROW_BILATERAL,
            Self::Normal => ROW_NORMAL,
            Self::Friction { .. } => ROW_FRICTION,
            Self::Boxed { .. } => ROW_BOXED,
        }
    }
}

/// The C layer's encoding: one `int32_t` kind code per row plus per-row parameters. A parameter
/// array may be empty when no row uses it; otherwise it has one entry per row (entries of rows
/// of other kinds are ignored).
#[derive(Debug, Clone, Copy)]
pub struct CodedRows<'a> {
    /// `ROW_*` code per row.
    pub kind: &'a [i32],
    /// Friction rows: index of the owning normal row.
    pub normal: &'a [i32],
    /// Friction rows: μ_s.
    pub mu: &'a [f64],
    /// Boxed rows: lower bound.
    pub lo: &'a [f64],
    /// Boxed rows: upper bound.
    pub hi: &'a [f64],
}

/// The rows of a problem, in either encoding.
#[derive(Debug, Clone, Copy)]
pub enum Rows<'a> {
    /// One [`RowKind`] per row.
    Kinds(&'a [RowKind]),
    /// Kind codes and parameter arrays (C layer).
    Coded(CodedRows<'a>),
}

impl<'a> From<&'a [RowKind]> for Rows<'a> {
    fn from(k: &'a [RowKind]) -> Self {
        Rows::Kinds(k)
    }
}

impl<'a, const N: usize> From<&'a [RowKind; N]> for Rows<'a> {
    fn from(k: &'a [RowKind; N]) -> Self {
        Rows::Kinds(k)
    }
}

impl Rows<'_> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Rows::Kinds(k) => k.len(),
            Rows::Coded(c) => c.kind.len(),
        }
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Decodes and validates into `out` (grow-only: allocates only when `out`'s capacity is
    /// exceeded).
    pub(crate) fn decode_into(&self, out: &mut Vec<RowKind>) -> Result<(), BaraffError> {
        let m = self.len();
        out.clear();
        match self {
            Rows::Kinds(k) => out.extend_from_slice(k),
            Rows::Coded(c) => {
                fn param<T: Copy>(v: &[T], i: usize, m: usize, what: &'static str) -> Result<T, BaraffError> {
                    if v.len() != m {
                        return Err(BaraffError::DimensionMismatch { what, expected: m, got: v.len() });
                    }
                    Ok(v[i])
                }
                for (i, &code) in c.kind.iter().enumerate() {
                    let kind = match code {
                        ROW_BILATERAL => RowKind::Bilateral,
                        ROW_NORMAL => RowKind::Normal,
                        ROW_FRICTION => {
                            let n = param(c.normal, i, m, "rows.normal length")?;
                            let normal = usize::try_from(n).map_err(|_| BaraffError::InvalidRow {
                                row: i,
                                reason: "friction row: negative normal index",
                            })?;
                            RowKind::Friction { normal, mu: param(c.mu, i, m, "rows.mu length")? }
                        }
                        ROW_BOXED => RowKind::Boxed {
                            lo: param(c.lo, i, m, "rows.lo length")?,
                            hi: param(c.hi, i, m, "rows.hi length")?,
                        },
                        code => return Err(BaraffError::UnknownRowKind { row: i, code }),
                    };
                    out.push(kind);
                }
            }
        }
        for (i, k) in out.iter().enumerate() {
            match *k {
                RowKind::Friction { normal, mu } => {
                    if normal >= m || out[normal] != RowKind::Normal {
                        return Err(BaraffError::InvalidRow {
                            row: i,
                            reason: "friction row: its normal index is not a normal row",
                        });
                    }
                    if !(mu >= 0.0 && mu.is_finite()) {
                        return Err(BaraffError::InvalidRow {
                            row: i,
                            reason: "friction row: mu must be finite and >= 0",
                        });
                    }
                }
                RowKind::Boxed { lo, hi } => {
                    if !(lo <= 0.0 && hi >= 0.0) {
                        return Err(BaraffError::InvalidRow {
                            row: i,
                            reason: "boxed row: need lo <= 0 <= hi (no NaN)",
                        });
                    }
                }
                RowKind::Bilateral | RowKind::Normal => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coded_rows_decode_and_validate() {
        let mut out = Vec::new();
        let kind = [ROW_NORMAL, ROW_FRICTION, ROW_BOXED, ROW_BILATERAL];
        let rows = Rows::Coded(CodedRows {
            kind: &kind,
            normal: &[0, 0, 0, 0],
            mu: &[0.0, 0.5, 0.0, 0.0],
            lo: &[0.0, 0.0, -1.0, 0.0],
            hi: &[0.0, 0.0, f64::INFINITY, 0.0],
        });
        rows.decode_into(&mut out).unwrap();
        assert_eq!(
            out,
            vec![
                RowKind::Normal,
                RowKind::Friction { normal: 0, mu: 0.5 },
                RowKind::Boxed { lo: -1.0, hi: f64::INFINITY },
                RowKind::Bilateral
            ]
        );
        for (k, c) in out.iter().zip(kind) {
            assert_eq!(k.code(), c);
        }

        let bad = |kind: &[i32], normal: &[i32], mu: &[f64], lo: &[f64], hi: &[f64]| {
            let mut out = Vec::new();
            Rows::Coded(CodedRows { kind, normal, mu, lo, hi }).decode_into(&mut out).unwrap_err()
        };
        assert_eq!(bad(&[7], &[], &[], &[], &[]), BaraffError::UnknownRowKind { row: 0, code: 7 });
        assert!(matches!(
            bad(&[ROW_FRICTION], &[0], &[0.5], &[], &[]),
            BaraffError::InvalidRow { row: 0, .. }
        ));
        assert!(matches!(
            bad(&[ROW_NORMAL, ROW_FRICTION], &[0, -1], &[0.0, 0.5], &[], &[]),
            BaraffError::InvalidRow { row: 1, .. }
        ));
        assert!(matches!(
            bad(&[ROW_NORMAL, ROW_FRICTION], &[0, 0], &[0.0, -0.5], &[], &[]),
            BaraffError::InvalidRow { row: 1, .. }
        ));
        assert!(matches!(
            bad(&[ROW_NORMAL, ROW_FRICTION], &[0], &[0.0, 0.5], &[], &[]),
            BaraffError::DimensionMismatch { .. }
        ));
        assert!(matches!(
            bad(&[ROW_BOXED], &[], &[], &[0.5], &[1.0]),
            BaraffError::InvalidRow { row: 0, .. }
        ));
        assert!(matches!(
            bad(&[ROW_BOXED], &[], &[], &[f64::NAN], &[1.0]),
            BaraffError::InvalidRow { row: 0, .. }
        ));
    }
}
