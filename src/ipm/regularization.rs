//! Per-contact normal regularization of the engine preset (`docs/ipm.md` §11.7): the near-rigid
//! rule `R_n,i = β²/(4π²)·w_i` from each contact's normal Delassus diagonal `w_i = J_n,i M⁻¹ J_n,iᵀ`
//! (1/kg), computed with the mass factorization the engine iteration already does for its velocity
//! scale (the dense LU of M, or one tree block at a time), so it costs O(contacts) on block data.
//!
//! Why this rule: a contact whose gap row reads `φ/h + J_n v + R γ_n − s_n = 0` is a spring of
//! stiffness `k = 1/(h²R)` acting on the contact's effective mass `1/w`; with `R = β²w/(4π²)` its
//! natural period is exactly `β·h`. The regularization therefore only softens what the step cannot
//! resolve anyway (oscillations faster than β time steps), whatever the masses: a light body under
//! a heavy one gets a compliance from its own effective mass, not from a global scale.

use crate::block_sparse::BlockSparseSystem;
use crate::linalg::{Ldlt, PartialPivLu, grow};

/// `1/(4π²)`: the near-rigid rule's factor (`R = β²·w/(4π²)`).
const INV_FOUR_PI_SQUARED: f64 = 1.0 / (4.0 * std::f64::consts::PI * std::f64::consts::PI);

/// The near-rigid compliance `β²/(4π²)·w` (1/kg) of a contact with normal Delassus diagonal `w`
/// (1/kg); 0 (hard contact for that contact) when `w` is not a finite positive number (a mass
/// block that is not positive definite, or a zero normal row).
#[inline]
pub(crate) fn near_rigid_compliance(beta: f64, w: f64) -> f64 {
    if w > 0.0 && w.is_finite() { beta * beta * INV_FOUR_PI_SQUARED * w } else { 0.0 }
}

/// Dense form: `w_i = J_n,i M⁻¹ J_n,iᵀ` for every contact, with `lu` holding the LU of M (n×n)
/// and `jtr` the packed `Jᵀ` (n×3nc column-major, the normal column of contact i at `3i·n`).
/// `x`, `tmp`: scratch of at least n. O(n²) per contact (the dense form is for small problems).
pub(crate) fn dense_normal_delassus(
    lu: &PartialPivLu,
    jtr: &[f64],
    n: usize,
    x: &mut [f64],
    tmp: &mut [f64],
    w: &mut [f64],
) {
    for (i, wi) in w.iter_mut().enumerate() {
        let col = &jtr[3 * i * n..(3 * i + 1) * n];
        x[..n].copy_from_slice(col);
        lu.solve_in_place(&mut x[..n], &mut tmp[..n]);
        *wi = col.iter().zip(&x[..n]).map(|(a, b)| a * b).sum();
    }
}

/// The contacts touching each tree (compressed rows, grow-only), so that the block form adds every
/// contact's share `J_n,i,t M_t⁻¹ J_n,i,tᵀ` while tree t's factor is at hand.
#[derive(Debug, Clone, Default)]
pub(crate) struct TreeContacts {
    start: Vec<u32>,
    contacts: Vec<u32>,
    /// Scratch of the largest tree's size.
    x: Vec<f64>,
}

impl TreeContacts {
    /// Builds the lists of `system`'s layout. Allocates only when the sizes grow.
    pub fn build(&mut self, system: &BlockSparseSystem<'_>) {
        let layout = system.layout();
        let (nt, nc) = (layout.num_trees(), layout.num_contacts());
        self.start.clear();
        self.start.resize(nt + 1, 0);
        let mut count = 0usize;
        for i in 0..nc {
            let (a, b) = layout.contact_trees(i);
            self.start[a + 1] += 1;
            count += 1;
            if let Some(b) = b.filter(|&b| b != a) {
                self.start[b + 1] += 1;
                count += 1;
            }
        }
        for t in 0..nt {
            self.start[t + 1] += self.start[t];
        }
        self.contacts.clear();
        self.contacts.resize(count, 0);
        // Fill with a moving cursor per tree (start[t] advanced, then shifted back).
        for i in 0..nc {
            let (a, b) = layout.contact_trees(i);
            for t in [Some(a), b.filter(|&b| b != a)].into_iter().flatten() {
                self.contacts[self.start[t] as usize] = i as u32;
                self.start[t] += 1;
            }
        }
        for t in (1..=nt).rev() {
            self.start[t] = self.start[t - 1];
        }
        if nt > 0 {
            self.start[0] = 0;
        }
        let largest = (0..nt).map(|t| layout.tree_dofs(t)).max().unwrap_or(0);
        grow(&mut self.x, largest);
    }

    /// Adds tree t's share `J_n,i,t M_t⁻¹ J_n,i,tᵀ` to `w_i` of every contact touching t, with
    /// `factor` holding the LDLᵀ of `M_t` (`ok = false`: it failed, the contacts get NaN).
    pub fn add_tree(
        &mut self,
        system: &BlockSparseSystem<'_>,
        t: usize,
        factor: &Ldlt,
        ok: bool,
        w: &mut [f64],
    ) {
        let nt = system.layout().tree_dofs(t);
        let (lo, hi) = (self.start[t] as usize, self.start[t + 1] as usize);
        for &i in &self.contacts[lo..hi] {
            let i = i as usize;
            if !ok {
                w[i] = f64::NAN;
                continue;
            }
            let x = &mut self.x[..nt];
            x.fill(0.0);
            // Both blocks on tree t (a contact between two parts of one tree) add up.
            for (tb, block) in system.j_blocks(i).into_iter().flatten() {
                if tb == t {
                    for (xj, col) in x.iter_mut().zip(block.chunks_exact(3)) {
                        *xj += col[0];
                    }
                }
            }
            factor.solve_in_place(x);
            let mut dot = 0.0;
            for (tb, block) in system.j_blocks(i).into_iter().flatten() {
                if tb == t {
                    dot += block.chunks_exact(3).zip(x.iter()).map(|(col, xj)| col[0] * xj).sum::<f64>();
                }
            }
            w[i] += dot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_rigid_period_is_beta_steps() {
        // A 2 kg point on one contact (w = 0.5/kg) at h = 1 ms with β = 1: k = 1/(h²R) and the
        // period 2π·sqrt(m/k) must be h.
        let (h, w, beta) = (1e-3, 0.5, 1.0);
        let r = near_rigid_compliance(beta, w);
        let k = 1.0 / (h * h * r);
        let period = 2.0 * std::f64::consts::PI * (1.0 / (w * k)).sqrt();
        assert!((period - beta * h).abs() <= 1e-15, "{period}");
        assert_eq!(near_rigid_compliance(1.0, f64::NAN), 0.0);
        assert_eq!(near_rigid_compliance(1.0, 0.0), 0.0);
        assert_eq!(near_rigid_compliance(1.0, -1.0), 0.0);
    }
}
