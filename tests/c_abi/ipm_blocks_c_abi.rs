//! The interior point on block-sparse data through the C ABI
//! (`cts_ipm_solver_set_block_problem_data`, the `cts_block_sparse_data` struct of TAMSI's block
//! setters): equal bit for bit to the Rust API on engine scenes (the C entry point adds
//! validation and nothing else); switching between dense and block data on one handle; the
//! contract on bad input (NULL, sizes, tree indices, non-finite values, the dense Newton mode):
//! a status and a message, the previous data and its structure kept.
#![allow(unsafe_code)]

use std::ffi::CStr;

use contact_solvers::block_sparse::BlockSparseSystem;
use contact_solvers::ffi::block_sparse::cts_block_sparse_data;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::ipm::*;
use contact_solvers::ipm::{ContactModel, IpmData, IpmParameters, IpmProblem, IpmSolver};
use nalgebra::DVector;
use support::engine_scenes::scene;
use support::tamsi_blocks::{BlockProblem, from_scene};

/// An engine scene's interior-point problem: block data, its C encoding, and the vectors.
struct Data {
    p: BlockProblem,
    tree_dofs: Vec<i32>,
    contact_trees: Vec<i32>,
    tau: DVector<f64>,
    phi: DVector<f64>,
    models: Vec<i32>,
}

impl Data {
    fn new(name: &str) -> Self {
        let sc = scene(name);
        let p = from_scene(&sc);
        let l = &p.layout;
        let tree_dofs = (0..l.num_trees()).map(|t| l.tree_dofs(t) as i32).collect();
        let contact_trees = (0..l.num_contacts())
            .flat_map(|i| {
                let (a, b) = l.contact_trees(i);
                [a as i32, b.map_or(-1, |b| b as i32)]
            })
            .collect();
        let tau = DVector::from_vec(sc.tau.clone());
        let phi = DVector::from_iterator(sc.nc(), sc.contacts.iter().map(|c| c.phi));
        let models = vec![CTS_IPM_MODEL_SECOND_ORDER_CONE; sc.nc()];
        Self { p, tree_dofs, contact_trees, tau, phi, models }
    }

    fn c(&self) -> cts_block_sparse_data {
        cts_block_sparse_data {
            num_trees: self.tree_dofs.len(),
            tree_dofs: self.tree_dofs.as_ptr(),
            M_len: self.p.m_packed.len(),
            M: self.p.m_packed.as_ptr(),
            num_contacts: self.contact_trees.len() / 2,
            contact_trees: self.contact_trees.as_ptr(),
            J_len: self.p.j_packed.len(),
            J: self.p.j_packed.as_ptr(),
        }
    }
}

/// A C handle, freed on drop.
struct Handle(*mut cts_ipm_solver);

impl Handle {
    fn new() -> Self {
        let mut h = std::ptr::null_mut();
        assert_eq!(unsafe { cts_ipm_solver_new(&mut h) }, cts_status::Ok);
        Self(h)
    }

    fn last_error(&self) -> String {
        unsafe { CStr::from_ptr(cts_ipm_solver_last_error(self.0)) }.to_string_lossy().into_owned()
    }

    fn set(&self, d: &Data, c: &cts_block_sparse_data) -> cts_status {
        unsafe {
            cts_ipm_solver_set_block_problem_data(
                self.0,
                c,
                d.p.v0.as_ptr(),
                d.tau.as_ptr(),
                d.p.dt,
                d.phi.as_ptr(),
                d.p.mu.as_ptr(),
                d.models.as_ptr(),
                std::ptr::null(),
                0,
            )
        }
    }

    fn set_dense(&self, d: &Data) -> cts_status {
        let (n, nc) = (d.p.nv(), d.p.nc());
        unsafe {
            cts_ipm_solver_set_problem_data(
                self.0,
                n,
                nc,
                d.p.m.as_ptr(),
                n,
                d.p.jn.as_ptr(),
                nc.max(1),
                d.p.jt.as_ptr(),
                (2 * nc).max(1),
                d.p.v0.as_ptr(),
                d.tau.as_ptr(),
                d.p.dt,
                d.phi.as_ptr(),
                d.p.mu.as_ptr(),
                d.models.as_ptr(),
                std::ptr::null(),
                0,
            )
        }
    }

    fn velocities(&self, n: usize) -> Vec<f64> {
        let mut v = vec![0.0; n];
        assert_eq!(
            unsafe { cts_ipm_solver_get_generalized_velocities(self.0, v.as_mut_ptr(), n) },
            cts_status::Ok
        );
        v
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { cts_ipm_solver_free(self.0) }
    }
}

fn rust_solve(d: &Data) -> (IpmSolver, contact_solvers::ipm::IpmOutcome) {
    let system = BlockSparseSystem::new(&d.p.layout, &d.p.m_packed, &d.p.j_packed).unwrap();
    let models = vec![ContactModel::SecondOrderCone; d.p.nc()];
    let problem = IpmProblem {
        data: IpmData::Blocks(system),
        v0: d.p.v0.as_view(),
        tau: d.tau.as_view(),
        h: d.p.dt,
        phi: d.phi.as_view(),
        mu: d.p.mu.as_view(),
        models: &models,
        vt_offset: None,
    };
    let mut s = IpmSolver::new(IpmParameters::default()).unwrap();
    let out = s.solve(&problem).unwrap();
    (s, out)
}

#[test]
fn c_block_solve_equals_the_rust_api_bit_for_bit() {
    for name in
        ["slide_box_v2.0_t0.01", "stack5_jitter_seed1_t1.0", "arm7_pile30_seed1_t1.0", "pile50_seed1_t1.0"]
    {
        let d = Data::new(name);
        let (rs, out) = rust_solve(&d);
        let h = Handle::new();
        let c = d.c();
        assert_eq!(h.set(&d, &c), cts_status::Ok, "{name}: {}", h.last_error());
        assert_eq!(unsafe { cts_ipm_solver_num_velocities(h.0) }, d.p.nv());
        assert_eq!(unsafe { cts_ipm_solver_num_contacts(h.0) }, d.p.nc());
        let status = unsafe { cts_ipm_solver_solve(h.0) };
        assert_eq!(status, cts_status::from(out), "{name}: {}", h.last_error());
        assert_eq!(status, cts_status::Ok, "{name}");
        assert_eq!(h.velocities(d.p.nv()), rs.velocities(), "{name}");
        let mut imp = vec![0.0; 3 * d.p.nc()];
        let st = unsafe { cts_ipm_solver_get_impulses(h.0, imp.as_mut_ptr(), imp.len()) };
        assert_eq!(st, cts_status::Ok);
        assert_eq!(imp, rs.impulses(), "{name}");
        let mut stats = std::mem::MaybeUninit::<cts_ipm_stats>::uninit();
        assert_eq!(unsafe { cts_ipm_solver_get_stats(h.0, stats.as_mut_ptr()) }, cts_status::Ok);
        let stats = unsafe { stats.assume_init() };
        assert_eq!(stats.iterations as usize, rs.stats().iterations);
        // The natural map reaches C bit for bit, and Converged at the defaults keeps its bound
        // (docs/ipm.md §11.8: natural_map_tolerance 1e-6).
        assert_eq!(stats.natural_map.to_bits(), rs.stats().natural_map.to_bits(), "{name}");
        assert!(stats.natural_map <= 1e-6, "{name}: natural map {:e}", stats.natural_map);
        assert_eq!(stats.merit.to_bits(), rs.stats().merit.to_bits(), "{name}");
        // Sensitivities work on block data too.
        assert_eq!(
            unsafe { cts_ipm_solver_compute_sensitivities(h.0) },
            cts_status::Ok,
            "{}",
            h.last_error()
        );
    }
}

#[test]
fn one_handle_switches_between_dense_and_block_data() {
    let d = Data::new("stack5_jitter_seed1_t1.0");
    let h = Handle::new();
    let c = d.c();
    assert_eq!(h.set(&d, &c), cts_status::Ok);
    assert_eq!(unsafe { cts_ipm_solver_solve(h.0) }, cts_status::Ok);
    let vb = h.velocities(d.p.nv());
    assert_eq!(h.set_dense(&d), cts_status::Ok, "{}", h.last_error());
    assert_eq!(unsafe { cts_ipm_solver_solve(h.0) }, cts_status::Ok);
    let vd = h.velocities(d.p.nv());
    let scale = vd.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (a, b) in vb.iter().zip(&vd) {
        assert!((a - b).abs() <= 1e-9 * scale, "{a} {b}");
    }
    assert_eq!(h.set(&d, &c), cts_status::Ok);
    assert_eq!(unsafe { cts_ipm_solver_solve(h.0) }, cts_status::Ok);
    assert_eq!(h.velocities(d.p.nv()), vb);
}

#[test]
fn bad_block_data_gets_a_status_and_keeps_the_previous_data() {
    let d = Data::new("stack5_jitter_seed1_t1.0");
    let h = Handle::new();
    let good = d.c();
    assert_eq!(h.set(&d, &good), cts_status::Ok);
    assert_eq!(unsafe { cts_ipm_solver_solve(h.0) }, cts_status::Ok);
    let v = h.velocities(d.p.nv());

    let expect = |status: cts_status, want: cts_status, words: &[&str]| {
        assert_eq!(status, want, "{}", h.last_error());
        let msg = h.last_error();
        assert!(msg.starts_with("cts_ipm_solver_set_block_problem_data"), "{msg}");
        for w in words {
            assert!(msg.contains(w), "{msg:?} lacks {w:?}");
        }
        // The previous data, its structure and its results are still there.
        assert_eq!(h.velocities(d.p.nv()), v);
        assert_eq!(unsafe { cts_ipm_solver_num_velocities(h.0) }, d.p.nv());
        assert_eq!(unsafe { cts_ipm_solver_solve(h.0) }, cts_status::Ok);
        assert_eq!(h.velocities(d.p.nv()), v);
    };
    // NULL struct, NULL array.
    let st = unsafe {
        cts_ipm_solver_set_block_problem_data(
            h.0,
            std::ptr::null(),
            d.p.v0.as_ptr(),
            d.tau.as_ptr(),
            d.p.dt,
            d.phi.as_ptr(),
            d.p.mu.as_ptr(),
            d.models.as_ptr(),
            std::ptr::null(),
            0,
        )
    };
    expect(st, cts_status::NullPointer, &["data"]);
    expect(
        h.set(&d, &cts_block_sparse_data { J: std::ptr::null(), ..good }),
        cts_status::NullPointer,
        &["J"],
    );
    // Sizes.
    expect(
        h.set(&d, &cts_block_sparse_data { M_len: good.M_len - 1, ..good }),
        cts_status::DimensionMismatch,
        &["M_len"],
    );
    // A contact tree out of range (structure error after nothing was changed).
    let mut bad = Data::new("stack5_jitter_seed1_t1.0");
    bad.contact_trees[1] = bad.tree_dofs.len() as i32;
    expect(h.set(&bad, &bad.c()), cts_status::InvalidArgument, &["contact_trees[1]"]);
    // A non-finite Jacobian value (after the structure was accepted: it is restored).
    let mut bad = Data::new("stack5_jitter_seed1_t1.0");
    bad.p.j_packed[4] = f64::NAN;
    expect(h.set(&bad, &bad.c()), cts_status::InvalidArgument, &["J[4]", "finite"]);
    // A non-finite gap, an unknown model kind (after the structure was accepted: it is restored).
    let mut bad = Data::new("stack5_jitter_seed1_t1.0");
    bad.phi[0] = f64::INFINITY;
    expect(h.set(&bad, &bad.c()), cts_status::InvalidArgument, &["phi"]);
    let mut bad = Data::new("stack5_jitter_seed1_t1.0");
    bad.models[0] = 7;
    expect(h.set(&bad, &bad.c()), cts_status::InvalidArgument, &["models[0] = 7"]);

    // The dense Newton matrix is refused for block data, at the solve.
    let mut prm = std::mem::MaybeUninit::<cts_ipm_parameters>::uninit();
    assert_eq!(unsafe { cts_ipm_solver_get_parameters(h.0, prm.as_mut_ptr()) }, cts_status::Ok);
    let prm = cts_ipm_parameters { newton_solve: CTS_IPM_NEWTON_SOLVE_DENSE, ..unsafe { prm.assume_init() } };
    assert_eq!(unsafe { cts_ipm_solver_set_parameters(h.0, &prm) }, cts_status::Ok);
    assert_eq!(unsafe { cts_ipm_solver_solve(h.0) }, cts_status::InvalidArgument);
    assert!(h.last_error().contains("newton_solve"), "{}", h.last_error());
}
