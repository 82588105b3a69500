//! Final verification (`docs/baraff.md` §3.6): per-row conditions on `(f, a)` judged by value,
//! not by the set a row ended in, so it is the check a caller would make.

use super::RowKind;

/// Scales that make violations relative (see [`super::BaraffParameters`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Scales {
    /// `max|b|` (1 if b = 0).
    pub b: f64,
    /// `max|A_ii|` (falls back to `max|A_ij|`, then 1).
    pub a: f64,
}

impl Scales {
    /// Force scale `s_b / s_A`.
    pub fn f(&self) -> f64 {
        self.b / self.a
    }
}

/// Violations of one boxed-type condition `lo ≤ f ≤ hi`, interior ⇒ `a = 0`, at `hi` ⇒ `a ≤ 0`,
/// at `lo` ⇒ `a ≥ 0`; `near` is the force tolerance for "at a bound". Returns (force, acc).
fn boxed(f: f64, a: f64, lo: f64, hi: f64, near: f64) -> (f64, f64) {
    let force = (lo - f).max(f - hi).max(0.0);
    let at_hi = hi.is_finite() && f >= hi - near;
    let at_lo = lo.is_finite() && f <= lo + near;
    let acc = match (at_hi, at_lo) {
        (true, true) => 0.0,
        (true, false) => a.max(0.0),
        (false, true) => (-a).max(0.0),
        (false, false) => a.abs(),
    };
    (force, acc)
}

/// Worst relative violation over all rows (∞ if any force or acceleration is not finite).
/// `near` is the relative force tolerance used to decide that a force is at a bound.
pub(crate) fn worst_violation(rows: &[RowKind], f: &[f64], a: &[f64], s: Scales, near: f64) -> f64 {
    let near_f = near * s.f();
    let mut worst: f64 = 0.0;
    for (i, k) in rows.iter().enumerate() {
        if !(f[i].is_finite() && a[i].is_finite()) {
            return f64::INFINITY;
        }
        let (vf, va) = match *k {
            RowKind::Bilateral => (0.0, a[i].abs()),
            RowKind::Normal => boxed(f[i], a[i], 0.0, f64::INFINITY, near_f),
            RowKind::Friction { normal, mu } => {
                let bound = mu * f[normal].max(0.0);
                boxed(f[i], a[i], -bound, bound, near_f)
            }
            RowKind::Boxed { lo, hi } => boxed(f[i], a[i], lo, hi, near_f),
        };
        worst = worst.max(vf / s.f()).max(va / s.b);
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxed_conditions() {
        // Interior: a must vanish.
        assert_eq!(boxed(0.5, 0.2, -1.0, 1.0, 1e-9), (0.0, 0.2));
        // At hi: a ≤ 0 allowed.
        assert_eq!(boxed(1.0, -3.0, -1.0, 1.0, 1e-9), (0.0, 0.0));
        assert_eq!(boxed(1.0, 3.0, -1.0, 1.0, 1e-9), (0.0, 3.0));
        // Beyond a bound.
        assert_eq!(boxed(1.5, 0.0, -1.0, 1.0, 1e-9).0, 0.5);
        // Zero-width box: any a.
        assert_eq!(boxed(0.0, 7.0, 0.0, 0.0, 1e-9), (0.0, 0.0));
        // Normal: f = 0 allows a ≥ 0 only.
        assert_eq!(boxed(0.0, -2.0, 0.0, f64::INFINITY, 1e-9), (0.0, 2.0));
    }

    #[test]
    fn friction_bound_follows_its_normal_and_nan_is_infinite() {
        let rows = [RowKind::Normal, RowKind::Friction { normal: 0, mu: 0.5 }];
        let s = Scales { b: 1.0, a: 1.0 };
        assert_eq!(worst_violation(&rows, &[2.0, 1.0], &[0.0, -4.0], s, 1e-9), 0.0);
        assert_eq!(worst_violation(&rows, &[2.0, 1.5], &[0.0, 0.0], s, 1e-9), 0.5);
        assert_eq!(worst_violation(&rows, &[2.0, f64::NAN], &[0.0, 0.0], s, 1e-9), f64::INFINITY);
    }
}
