//! Independent worlds for the batch solves (`cts_tamsi_solver_solve_batch`,
//! `cts_ipm_solver_solve_batch`; `docs/c_api.md` §1.10): random block problems with their
//! interior-point vectors, and C handles with a world's data set, dense or in block form. Shared by
//! `tests/c_abi/batch_c_abi.rs`, `tests/alloc/batch_alloc.rs` and `benches/batch.rs`.
#![allow(unsafe_code)]

use std::ptr::{null, null_mut};

use contact_solvers::ffi::block_sparse::cts_block_sparse_data;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::ipm::*;
use contact_solvers::ffi::tamsi::*;
use nalgebra::DVector;

use super::tamsi_blocks::{BlockProblem, CStructure, random};

/// One world: its problem (both forms), its C structure and its interior-point vectors (τ N, φ m,
/// second-order cones).
pub struct World {
    pub p: BlockProblem,
    pub c: CStructure,
    pub tau: DVector<f64>,
    pub phi: DVector<f64>,
    pub models: Vec<i32>,
}

impl World {
    /// The world of a random block problem (`tamsi_blocks::random(seed, ntree, nc)`).
    pub fn random(seed: u64, ntree: usize, nc: usize) -> Self {
        let p = random(seed, ntree, nc);
        let c = p.c_structure();
        let tau = DVector::from_fn(p.nv(), |i, _| -9.81 * (1.0 + (i % 3) as f64));
        let phi = DVector::from_fn(p.nc(), |i, _| 1e-3 * ((i % 4) as f64 - 1.0));
        let models = vec![CTS_IPM_MODEL_SECOND_ORDER_CONE; p.nc()];
        Self { p, c, tau, phi, models }
    }

    /// The block data of this world's problem (borrows `self`).
    pub fn blocks(&self) -> cts_block_sparse_data {
        self.c.data(&self.p)
    }

    /// Sets the two-way TAMSI data on `h`: dense, or in block form with `blocks` (which must
    /// outlive the solves, as the arrays of `self`).
    ///
    /// # Safety
    /// `h` is NULL or a live TAMSI handle.
    pub unsafe fn set_tamsi(
        &self,
        h: *mut cts_tamsi_solver,
        blocks: Option<&cts_block_sparse_data>,
    ) -> cts_status {
        let p = &self.p;
        let (nv, nc) = (p.nv(), p.nc());
        // SAFETY: `h` per the contract; the arrays hold the sizes the problem implies.
        unsafe {
            match blocks {
                Some(d) => cts_tamsi_solver_set_two_way_coupled_block_problem_data(
                    h,
                    d,
                    p.p_star.as_ptr(),
                    p.fn0.as_ptr(),
                    p.stiffness.as_ptr(),
                    p.dissipation.as_ptr(),
                    p.mu.as_ptr(),
                ),
                None => cts_tamsi_solver_set_two_way_coupled_problem_data(
                    h,
                    nc,
                    p.m.as_ptr(),
                    nv,
                    p.jn.as_ptr(),
                    nc.max(1),
                    p.jt.as_ptr(),
                    (2 * nc).max(1),
                    p.p_star.as_ptr(),
                    p.fn0.as_ptr(),
                    p.stiffness.as_ptr(),
                    p.dissipation.as_ptr(),
                    p.mu.as_ptr(),
                ),
            }
        }
    }

    /// Sets the interior-point data on `h`: dense, or in block form with `blocks`.
    ///
    /// # Safety
    /// As [`World::set_tamsi`], for an interior-point handle.
    pub unsafe fn set_ipm(
        &self,
        h: *mut cts_ipm_solver,
        blocks: Option<&cts_block_sparse_data>,
    ) -> cts_status {
        let p = &self.p;
        let (n, nc) = (p.nv(), p.nc());
        let (v0, tau, phi, mu, models) =
            (p.v0.as_ptr(), self.tau.as_ptr(), self.phi.as_ptr(), p.mu.as_ptr(), self.models.as_ptr());
        // SAFETY: as in `set_tamsi`.
        unsafe {
            match blocks {
                Some(d) => {
                    cts_ipm_solver_set_block_problem_data(h, d, v0, tau, p.dt, phi, mu, models, null(), 0)
                }
                None => cts_ipm_solver_set_problem_data(
                    h,
                    n,
                    nc,
                    p.m.as_ptr(),
                    n,
                    p.jn.as_ptr(),
                    nc.max(1),
                    p.jt.as_ptr(),
                    (2 * nc).max(1),
                    v0,
                    tau,
                    p.dt,
                    phi,
                    mu,
                    models,
                    null(),
                    0,
                ),
            }
        }
    }

    /// A new TAMSI handle with this world's dense data (panics on failure; free it).
    pub fn tamsi_handle(&self) -> *mut cts_tamsi_solver {
        let mut h = null_mut();
        // SAFETY: `h` is writable.
        assert_eq!(unsafe { cts_tamsi_solver_new(self.p.nv(), &mut h) }, cts_status::Ok);
        assert_eq!(unsafe { self.set_tamsi(h, None) }, cts_status::Ok);
        h
    }

    /// A new interior-point handle with this world's dense data (panics on failure; free it).
    pub fn ipm_handle(&self) -> *mut cts_ipm_solver {
        let mut h = null_mut();
        // SAFETY: `h` is writable.
        assert_eq!(unsafe { cts_ipm_solver_new(&mut h) }, cts_status::Ok);
        assert_eq!(unsafe { self.set_ipm(h, None) }, cts_status::Ok);
        h
    }
}
