//! Assembly of the Newton matrix `J = M + dt·Σᵢ Aᵢ Cᵢ Aᵢᵀ` (`specs/tamsi.md` §4, expanded form).
//!
//! `Aᵢ = [Jtᵢ₀ᵀ Jtᵢ₁ᵀ Jnᵢᵀ]` holds contact i's three Jacobian rows over its nonzero columns and
//! `Cᵢ = [[D, μ_reg·t̂·g], [0, −g]]` its 3×3 coefficients, so each contact is a rank-3 update of
//! the block of its columns, and zero columns cost nothing.
//!
//! Consecutive contacts with the same columns (the corners of one body touching the ground, the
//! usual case) are applied together, up to [`MAX_GROUP`] at a time: one pass over their block
//! instead of one per contact. Every entry still receives the contacts' contributions one by one
//! in contact order, each as `((a₀x₀ + a₁x₁) + a₂x₂)`, so the result does not depend on the
//! grouping. (A matrix-multiply kernel, faer's, was measured slower on these small strided blocks:
//! its per-call overhead outweighs its faster inner loop.)

use nalgebra::DMatrixView;

use super::contact_rows::{ContactRows, ContactRowsRef};

/// Largest number of contacts applied in one pass.
pub(crate) const MAX_GROUP: usize = 4;

/// Scratch values [`assemble`] needs for `nv` generalized velocities.
pub(crate) fn scratch_len(nv: usize) -> usize {
    3 * MAX_GROUP * nv
}

/// The 3×3 coefficients `Cᵢ` of one contact: the symmetric friction block `D` and the two-way
/// coupling column `(μ_reg·t̂₀·g, μ_reg·t̂₁·g, −g)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct UpdateCoefficients {
    pub d: [f64; 3],
    pub coupling: [f64; 3],
}

impl UpdateCoefficients {
    /// Whether the coupling column is in use (a NaN counts, so it propagates).
    fn coupled(&self) -> bool {
        self.coupling.iter().any(|&c| c != 0.0)
    }

    /// Whether the contact adds nothing (e.g. it separated).
    fn is_zero(&self) -> bool {
        !self.coupled() && self.d.iter().all(|&c| c == 0.0)
    }
}

/// Writes `J` into `j` (column-major nv×nv, leading dimension nv). `coefficients(i)` gives
/// contact i's `Cᵢ`; `scratch` must hold at least [`scratch_len`] values.
#[inline(always)]
pub(crate) fn assemble(
    j: &mut [f64],
    m: &DMatrixView<'_, f64>,
    dt: f64,
    rows: &ContactRows,
    num_contacts: usize,
    coefficients: impl Fn(usize) -> UpdateCoefficients,
    scratch: &mut [f64],
) {
    let nv = m.nrows();
    for (c, dst) in j.chunks_exact_mut(nv).enumerate() {
        dst.copy_from_slice(m.column(c).as_slice());
    }
    let mut i = 0;
    while i < num_contacts {
        let first = coefficients(i);
        if first.is_zero() {
            i += 1;
            continue;
        }
        let pattern = rows.contact(i).runs;
        let mut members = [(i, first); MAX_GROUP];
        let mut size = 1;
        let mut coupled = first.coupled();
        let mut next = i + 1;
        while size < MAX_GROUP && next < num_contacts {
            let c = coefficients(next);
            if !c.is_zero() {
                if rows.contact(next).runs != pattern {
                    break;
                }
                members[size] = (next, c);
                size += 1;
                coupled |= c.coupled();
            }
            next += 1;
        }
        let members = &members[..size];
        let s = rows.contact(i).t0.len();
        for (g, &(contact, c)) in members.iter().enumerate() {
            fill_update_columns(rows.contact(contact), &c, &mut scratch[3 * g * s..3 * (g + 1) * s]);
        }
        let group = |g: usize| rows.contact(members[g].0);
        match (size, coupled) {
            (1, true) => update::<1, true>(j, nv, dt, [group(0)], scratch, s),
            (1, false) => update::<1, false>(j, nv, dt, [group(0)], scratch, s),
            (2, true) => update::<2, true>(j, nv, dt, [group(0), group(1)], scratch, s),
            (2, false) => update::<2, false>(j, nv, dt, [group(0), group(1)], scratch, s),
            (3, true) => update::<3, true>(j, nv, dt, [group(0), group(1), group(2)], scratch, s),
            (3, false) => update::<3, false>(j, nv, dt, [group(0), group(1), group(2)], scratch, s),
            (_, true) => update::<4, true>(j, nv, dt, [group(0), group(1), group(2), group(3)], scratch, s),
            (_, false) => update::<4, false>(j, nv, dt, [group(0), group(1), group(2), group(3)], scratch, s),
        }
        i = next;
    }
}

/// `B = A·C` of one contact: three columns of its packed length, one after the other.
#[inline(always)]
fn fill_update_columns(rows: ContactRowsRef<'_>, c: &UpdateCoefficients, out: &mut [f64]) {
    let s = rows.t0.len();
    let [d00, d01, d11] = c.d;
    let [c02, c12, c22] = c.coupling;
    let (b0, rest) = out.split_at_mut(s);
    let (b1, b2) = rest.split_at_mut(s);
    for p in 0..s {
        let (t0, t1, n) = (rows.t0[p], rows.t1[p], rows.n[p]);
        b0[p] = t0 * d00 + t1 * d01;
        b1[p] = t0 * d01 + t1 * d11;
        b2[p] = t0 * c02 + t1 * c12 + n * c22;
    }
}

/// `J[S, S] += dt·Σ_g A_g B_gᵀ` for `G` contacts sharing the columns `S`; `b` holds their `B`
/// columns (3 per contact, `s` values each). Without coupling the third term is zero and skipped.
#[inline(always)]
fn update<const G: usize, const COUPLED: bool>(
    j: &mut [f64],
    nv: usize,
    dt: f64,
    group: [ContactRowsRef<'_>; G],
    b: &[f64],
    s: usize,
) {
    let runs = group[0].runs;
    for rq in runs {
        for kq in 0..rq.len {
            let q = rq.packed + kq;
            let col = &mut j[(rq.col + kq) * nv..(rq.col + kq + 1) * nv];
            let a: [[f64; 3]; G] = std::array::from_fn(|g| {
                let r = &group[g];
                [dt * r.t0[q], dt * r.t1[q], dt * r.n[q]]
            });
            for rp in runs {
                let len = rp.len;
                let dst = &mut col[rp.col..rp.col + len];
                let x: [[&[f64]; 3]; G] = std::array::from_fn(|g| {
                    std::array::from_fn(|r| &b[(3 * g + r) * s + rp.packed..][..len])
                });
                for k in 0..len {
                    let mut d = dst[k];
                    for g in 0..G {
                        if COUPLED {
                            d += a[g][0] * x[g][0][k] + a[g][1] * x[g][1][k] + a[g][2] * x[g][2][k];
                        } else {
                            d += a[g][0] * x[g][0][k] + a[g][1] * x[g][1][k];
                        }
                    }
                    dst[k] = d;
                }
            }
        }
    }
}
