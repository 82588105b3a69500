//! Block-sparse TAMSI through the C ABI (`cts_tamsi_solver_set_*_coupled_block_problem_data`)
//! against the Rust API on the MuJoCo engine scenes of `tests/data/engine_scenes.txt.gz`: the
//! C entry points add validation and nothing else, so outcome, iteration count, residual history,
//! every output and the Newton matrix are equal bit for bit. Also: one handle switching between
//! dense and block data, and a failed block set keeping the previous block data and its structure.
#![allow(unsafe_code)]

use std::ffi::CStr;

use contact_solvers::ffi::block_sparse::cts_block_sparse_data;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::tamsi::*;
use contact_solvers::tamsi::{TamsiOutcome, TamsiProblem, TamsiSolver};
use nalgebra::DMatrix;
use support::engine_scenes::{read_scenes, scene};
use support::tamsi_blocks::{BlockProblem, from_scene};

/// The C encoding of a problem's structure.
struct Indices {
    tree_dofs: Vec<i32>,
    contact_trees: Vec<i32>,
}

impl Indices {
    fn of(p: &BlockProblem) -> Self {
        let l = &p.layout;
        let tree_dofs = (0..l.num_trees()).map(|t| l.tree_dofs(t) as i32).collect();
        let contact_trees = (0..l.num_contacts())
            .flat_map(|i| {
                let (a, b) = l.contact_trees(i);
                [a as i32, b.map_or(-1, |b| b as i32)]
            })
            .collect();
        Self { tree_dofs, contact_trees }
    }

    fn data(&self, p: &BlockProblem) -> cts_block_sparse_data {
        cts_block_sparse_data {
            num_trees: self.tree_dofs.len(),
            tree_dofs: self.tree_dofs.as_ptr(),
            M_len: p.m_packed.len(),
            M: p.m_packed.as_ptr(),
            num_contacts: self.contact_trees.len() / 2,
            contact_trees: self.contact_trees.as_ptr(),
            J_len: p.j_packed.len(),
            J: p.j_packed.as_ptr(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Scheme {
    OneWay,
    TwoWay,
}

/// A C handle, freed on drop.
struct Handle(*mut cts_tamsi_solver);

impl Handle {
    fn new(nv: usize) -> Self {
        let mut h = std::ptr::null_mut();
        assert_eq!(unsafe { cts_tamsi_solver_new(nv, &mut h) }, cts_status::Ok);
        Self(h)
    }

    fn last_error(&self) -> String {
        unsafe { CStr::from_ptr(cts_tamsi_solver_last_error(self.0)) }.to_string_lossy().into_owned()
    }

    fn set_blocks(&self, p: &BlockProblem, data: &cts_block_sparse_data, scheme: Scheme) -> cts_status {
        unsafe {
            match scheme {
                Scheme::OneWay => cts_tamsi_solver_set_one_way_coupled_block_problem_data(
                    self.0,
                    data,
                    p.p_star.as_ptr(),
                    p.fn0.as_ptr(),
                    p.mu.as_ptr(),
                ),
                Scheme::TwoWay => cts_tamsi_solver_set_two_way_coupled_block_problem_data(
                    self.0,
                    data,
                    p.p_star.as_ptr(),
                    p.fn0.as_ptr(),
                    p.stiffness.as_ptr(),
                    p.dissipation.as_ptr(),
                    p.mu.as_ptr(),
                ),
            }
        }
    }

    fn set_dense_two_way(&self, p: &BlockProblem) -> cts_status {
        let (nv, nc) = (p.nv(), p.nc());
        unsafe {
            cts_tamsi_solver_set_two_way_coupled_problem_data(
                self.0,
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
            )
        }
    }

    fn solve(&self, p: &BlockProblem) -> cts_status {
        unsafe { cts_tamsi_solver_solve_with_guess(self.0, p.dt, p.v0.as_ptr(), p.nv()) }
    }

    /// Every result of the last solve, copied out through the getters.
    fn results(&self, nv: usize, nc: usize) -> Results {
        type Getter = unsafe extern "C" fn(*const cts_tamsi_solver, *mut f64, usize) -> cts_status;
        let getters: [(&str, Getter, usize); 7] = [
            ("v", cts_tamsi_solver_get_generalized_velocities, nv),
            ("vn", cts_tamsi_solver_get_normal_velocities, nc),
            ("vt", cts_tamsi_solver_get_tangential_velocities, 2 * nc),
            ("fn", cts_tamsi_solver_get_normal_forces, nc),
            ("ft", cts_tamsi_solver_get_friction_forces, 2 * nc),
            ("tau_f", cts_tamsi_solver_get_generalized_friction_forces, nv),
            ("tau", cts_tamsi_solver_get_generalized_contact_forces, nv),
        ];
        let outputs = getters
            .iter()
            .map(|&(name, get, len)| {
                let mut out = vec![f64::NAN; len];
                assert_eq!(unsafe { get(self.0, out.as_mut_ptr(), len) }, cts_status::Ok, "{name}");
                (name, out)
            })
            .collect();
        let mut stats = cts_tamsi_iteration_stats { num_iterations: -1, vt_residual: 0.0 };
        assert_eq!(unsafe { cts_tamsi_solver_get_iteration_stats(self.0, &mut stats) }, cts_status::Ok);
        let mut count = 0;
        let mut residuals = vec![0.0; 200];
        let s = unsafe { cts_tamsi_solver_get_residuals(self.0, residuals.as_mut_ptr(), 200, &mut count) };
        assert_eq!(s, cts_status::Ok);
        residuals.truncate(count);
        Results { iterations: stats.num_iterations as usize, residuals, outputs }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { cts_tamsi_solver_free(self.0) }
    }
}

#[derive(Debug, PartialEq)]
struct Results {
    iterations: usize,
    residuals: Vec<f64>,
    outputs: Vec<(&'static str, Vec<f64>)>,
}

/// Iterations, residual bits and output bits of a solve.
type Bits = (usize, Vec<u64>, Vec<(&'static str, Vec<u64>)>);

impl Results {
    /// Bit patterns, so that `==` is bit-for-bit equality (NaN included).
    fn bits(&self) -> Bits {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let outputs = self.outputs.iter().map(|(n, v)| (*n, bits(v))).collect();
        (self.iterations, bits(&self.residuals), outputs)
    }

    fn of(solver: &TamsiSolver) -> Self {
        let stats = solver.iteration_stats();
        Results {
            iterations: stats.num_iterations,
            residuals: stats.residuals.clone(),
            outputs: vec![
                ("v", solver.generalized_velocities().to_vec()),
                ("vn", solver.normal_velocities().to_vec()),
                ("vt", solver.tangential_velocities().to_vec()),
                ("fn", solver.normal_forces().to_vec()),
                ("ft", solver.friction_forces().to_vec()),
                ("tau_f", solver.generalized_friction_forces().to_vec()),
                ("tau", solver.generalized_contact_forces().to_vec()),
            ],
        }
    }
}

fn rust_problem(p: &BlockProblem, scheme: Scheme) -> TamsiProblem<'_> {
    let system = p.system();
    match scheme {
        Scheme::OneWay => {
            TamsiProblem::one_way_blocks(system, p.p_star.as_view(), p.fn0.as_view(), p.mu.as_view())
        }
        Scheme::TwoWay => TamsiProblem::two_way_blocks(
            system,
            p.p_star.as_view(),
            p.fn0.as_view(),
            p.stiffness.as_view(),
            p.dissipation.as_view(),
            p.mu.as_view(),
        ),
    }
    .unwrap()
}

/// Solves `p` through the Rust API: outcome and results.
fn solve_rust(p: &BlockProblem, scheme: Scheme) -> (TamsiOutcome, Results) {
    let problem = rust_problem(p, scheme);
    let mut solver = TamsiSolver::new(p.nv());
    let outcome = solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
    (outcome, Results::of(&solver))
}

#[test]
fn engine_scenes_through_the_c_abi_equal_the_rust_api_bit_for_bit() {
    let mut compared = 0;
    for s in read_scenes() {
        let p = from_scene(&s);
        let indices = Indices::of(&p);
        let data = indices.data(&p);
        for scheme in [Scheme::TwoWay, Scheme::OneWay] {
            let (outcome, want) = solve_rust(&p, scheme);
            let h = Handle::new(p.nv());
            assert_eq!(h.set_blocks(&p, &data, scheme), cts_status::Ok, "{}: {}", p.name, h.last_error());
            assert_eq!(unsafe { cts_tamsi_solver_num_contacts(h.0) }, p.nc());
            let status = h.solve(&p);
            assert_eq!(status, cts_status::from(outcome), "{} {scheme:?}: {}", p.name, h.last_error());
            let got = h.results(p.nv(), p.nc());
            assert!(got.bits() == want.bits(), "{} {scheme:?}: C and Rust results differ", p.name);
            // A second solve on the same handle (grown workspace) gives the same bits.
            assert_eq!(h.solve(&p), status);
            assert!(h.results(p.nv(), p.nc()).bits() == want.bits(), "{} {scheme:?}: second solve", p.name);
            if scheme == Scheme::TwoWay {
                assert_eq!(outcome, TamsiOutcome::Success, "{}", p.name);
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 20);
}

#[test]
fn newton_matrix_through_the_c_abi_equals_the_rust_api() {
    let p = from_scene(&scene("stack5_jitter_seed1_t1.0"));
    let indices = Indices::of(&p);
    let data = indices.data(&p);
    let nv = p.nv();
    for scheme in [Scheme::OneWay, Scheme::TwoWay] {
        let mut want = DMatrix::zeros(nv, nv);
        let problem = rust_problem(&p, scheme);
        let mut solver = TamsiSolver::new(nv);
        solver.calc_jacobian(&problem, p.dt, p.v0.as_view(), want.as_view_mut()).unwrap();
        let h = Handle::new(nv);
        assert_eq!(h.set_blocks(&p, &data, scheme), cts_status::Ok);
        // ld = nv + 1: the padding row stays as it was.
        let mut got = vec![7.0; (nv + 1) * nv];
        let s =
            unsafe { cts_tamsi_solver_calc_jacobian(h.0, p.dt, p.v0.as_ptr(), nv, got.as_mut_ptr(), nv + 1) };
        assert_eq!(s, cts_status::Ok, "{}", h.last_error());
        for c in 0..nv {
            for r in 0..nv {
                assert_eq!(got[r + c * (nv + 1)].to_bits(), want[(r, c)].to_bits(), "{scheme:?} J[{r}, {c}]");
            }
            assert_eq!(got[nv + c * (nv + 1)], 7.0);
        }
    }
}

#[test]
fn one_handle_takes_dense_and_block_data_in_turn() {
    // The same two-way problem dense and in blocks on one handle; the dense path and the block
    // path agree to round-off (tests/solvers/tamsi_block_sparse.rs), and each equals its own Rust result.
    let p = from_scene(&scene("stack5_jitter_seed1_t1.0"));
    let indices = Indices::of(&p);
    let data = indices.data(&p);
    let (_, want_blocks) = solve_rust(&p, Scheme::TwoWay);
    let h = Handle::new(p.nv());
    for round in 0..2 {
        assert_eq!(h.set_dense_two_way(&p), cts_status::Ok, "{}", h.last_error());
        assert_eq!(h.solve(&p), cts_status::Ok);
        let dense = h.results(p.nv(), p.nc());
        assert_eq!(h.set_blocks(&p, &data, Scheme::TwoWay), cts_status::Ok);
        assert_eq!(h.solve(&p), cts_status::Ok);
        let blocks = h.results(p.nv(), p.nc());
        assert!(blocks.bits() == want_blocks.bits(), "round {round}");
        assert_eq!(dense.iterations, blocks.iterations);
        for ((name, a), (_, b)) in dense.outputs.iter().zip(&blocks.outputs) {
            let scale = a.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            let err = a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
            assert!(err <= 1e-9 * scale, "{name}: {err:e}");
        }
    }
    // One-way block data on the two-way handle is refused and keeps the block data.
    assert_eq!(h.set_blocks(&p, &data, Scheme::OneWay), cts_status::WrongCouplingScheme);
    assert!(h.last_error().contains("two-way"), "{}", h.last_error());
    assert_eq!(h.solve(&p), cts_status::Ok);
    assert!(h.results(p.nv(), p.nc()).bits() == want_blocks.bits());
}

#[test]
fn a_failed_block_set_keeps_the_previous_data_and_structure() {
    // A good set of the 5-box stack, then failing sets of the 50-box pile (a different, larger
    // structure: the candidate layout grows and is rejected) and of the stack itself; the stack
    // still solves to the same bits.
    let stack = from_scene(&scene("stack5_jitter_seed1_t1.0"));
    let (_, want) = solve_rust(&stack, Scheme::TwoWay);
    let stack_indices = Indices::of(&stack);
    let stack_data = stack_indices.data(&stack);
    let h = Handle::new(stack.nv());
    assert_eq!(h.set_blocks(&stack, &stack_data, Scheme::TwoWay), cts_status::Ok);

    let pile = from_scene(&scene("pile50_seed1_t1.0"));
    let pile_indices = Indices::of(&pile);
    // The pile's structure does not fit nv = 30.
    let s = h.set_blocks(&pile, &pile_indices.data(&pile), Scheme::TwoWay);
    assert_eq!(s, cts_status::DimensionMismatch);
    assert!(
        h.last_error().contains("the 50 trees have 300 dofs in all, expected the solver's nv = 30"),
        "{}",
        h.last_error()
    );

    // Bad values with the stack's own structure.
    let mut bad_m = stack.m_packed.clone();
    bad_m[40] = f64::NAN;
    let s = h.set_blocks(&stack, &cts_block_sparse_data { M: bad_m.as_ptr(), ..stack_data }, Scheme::TwoWay);
    assert_eq!(s, cts_status::InvalidArgument);
    assert!(
        h.last_error().ends_with("data->M[40] = NaN is outside its domain: expected finite"),
        "{}",
        h.last_error()
    );
    let mut bad_mu = stack.mu.clone();
    bad_mu[3] = -0.5;
    let s = unsafe {
        cts_tamsi_solver_set_two_way_coupled_block_problem_data(
            h.0,
            &stack_data,
            stack.p_star.as_ptr(),
            stack.fn0.as_ptr(),
            stack.stiffness.as_ptr(),
            stack.dissipation.as_ptr(),
            bad_mu.as_ptr(),
        )
    };
    assert_eq!(s, cts_status::InvalidArgument);
    assert!(
        h.last_error().contains("mu[3] = -0.5 is outside its domain: expected finite and >= 0"),
        "{}",
        h.last_error()
    );
    // A different valid structure (the stack's boxes without contact) with a bad length.
    let free = cts_block_sparse_data { num_contacts: 0, J_len: 1, ..stack_data };
    assert_eq!(h.set_blocks(&stack, &free, Scheme::TwoWay), cts_status::DimensionMismatch);
    assert!(h.last_error().contains("data->J_len = 1, expected 0"), "{}", h.last_error());
    assert_eq!(unsafe { cts_tamsi_solver_num_contacts(h.0) }, stack.nc());

    assert_eq!(h.solve(&stack), cts_status::Ok);
    assert!(h.results(stack.nv(), stack.nc()).bits() == want.bits());
}

/// `num_threads` (issue 31 item 1): the last field of `cts_tamsi_parameters` and
/// `cts_ipm_parameters`, 0 by default, settable and read back, refused outside [0, 256] with
/// INVALID_ARGUMENT and a message (the previous value kept); a block solve on 2 threads returns
/// the sequential bits through the C ABI, and freeing the handle joins its threads.
#[test]
fn num_threads_is_settable_gettable_and_refused_out_of_range() {
    let p = from_scene(&scene("pile50_seed1_t1.0"));
    let indices = Indices::of(&p);
    let data = indices.data(&p);
    let (_, want) = solve_rust(&p, Scheme::TwoWay);
    let h = Handle::new(p.nv());
    let mut cp = unsafe { std::mem::zeroed::<cts_tamsi_parameters>() };
    unsafe { cts_tamsi_parameters_default(&mut cp) };
    assert_eq!(cp.num_threads, 0);
    let two = cts_tamsi_parameters { num_threads: 2, ..cp };
    assert_eq!(unsafe { cts_tamsi_solver_set_parameters(h.0, &two) }, cts_status::Ok);
    for bad in [257, -1, i32::MAX, i32::MIN] {
        let status =
            unsafe { cts_tamsi_solver_set_parameters(h.0, &cts_tamsi_parameters { num_threads: bad, ..cp }) };
        assert_eq!(status, cts_status::InvalidArgument, "{bad}");
        assert!(h.last_error().contains("num_threads"), "{bad}: {}", h.last_error());
    }
    let mut got = unsafe { std::mem::zeroed::<cts_tamsi_parameters>() };
    assert_eq!(unsafe { cts_tamsi_solver_get_parameters(h.0, &mut got) }, cts_status::Ok);
    assert_eq!(got.num_threads, 2);
    assert_eq!(h.set_blocks(&p, &data, Scheme::TwoWay), cts_status::Ok);
    for _ in 0..2 {
        assert_eq!(h.solve(&p), cts_status::Ok, "{}", h.last_error());
        assert!(h.results(p.nv(), p.nc()).bits() == want.bits(), "2 threads through the C ABI");
    }
    let max = cts_tamsi_parameters { num_threads: 256, ..cp };
    assert_eq!(unsafe { cts_tamsi_solver_set_parameters(h.0, &max) }, cts_status::Ok);
    drop(h);

    use contact_solvers::ffi::ipm::*;
    let mut ipm = std::ptr::null_mut();
    assert_eq!(unsafe { cts_ipm_solver_new(&mut ipm) }, cts_status::Ok);
    let mut ip = unsafe { std::mem::zeroed::<cts_ipm_parameters>() };
    assert_eq!(unsafe { cts_ipm_solver_get_parameters(ipm, &mut ip) }, cts_status::Ok);
    assert_eq!(ip.num_threads, 0);
    assert_eq!(
        unsafe { cts_ipm_solver_set_parameters(ipm, &cts_ipm_parameters { num_threads: 4, ..ip }) },
        cts_status::Ok
    );
    for bad in [257, -1] {
        let status =
            unsafe { cts_ipm_solver_set_parameters(ipm, &cts_ipm_parameters { num_threads: bad, ..ip }) };
        assert_eq!(status, cts_status::InvalidArgument, "{bad}");
        let message =
            unsafe { CStr::from_ptr(cts_ipm_solver_last_error(ipm)) }.to_string_lossy().into_owned();
        assert!(message.contains("num_threads"), "{bad}: {message}");
    }
    assert_eq!(unsafe { cts_ipm_solver_get_parameters(ipm, &mut ip) }, cts_status::Ok);
    assert_eq!(ip.num_threads, 4);
    unsafe { cts_ipm_solver_free(ipm) };
}

/// `p`'s values scaled entry by entry by `1 + eps·sin(k)` (M, J, p*, v0; the structure, fn0, k,
/// d and mu kept): the next step of an engine whose contact graph holds.
fn next_step(p: &BlockProblem, eps: f64) -> BlockProblem {
    let bend = |v: &mut [f64], seed: f64| {
        for (k, x) in v.iter_mut().enumerate() {
            *x *= 1.0 + eps * (k as f64 + seed).sin();
        }
    };
    let mut q = from_scene(&scene(p.name.as_str()));
    // M stays symmetric positive definite: scale each tree's block by one factor.
    for t in 0..q.layout.num_trees() {
        let (off, n) = (q.layout.m_offset(t), q.layout.tree_dofs(t));
        let f = 1.0 + eps * (t as f64).sin();
        q.m_packed[off..off + n * n].iter_mut().for_each(|x| *x *= f);
    }
    bend(&mut q.j_packed, 0.5);
    bend(q.p_star.as_mut_slice(), 1.5);
    bend(q.v0.as_mut_slice(), 2.5);
    q
}

#[test]
fn a_handle_stepping_through_states_keeps_structure_work_only_while_the_structure_holds() {
    // A live loop on one handle (issue 29: the islands, back ends and contact destinations are
    // kept while the set calls give the same structure): consecutive states of one contact graph,
    // the same graph with the static sides listed first, another graph, a failed set, and back;
    // every solve equals a fresh Rust solver's bit for bit.
    let a = from_scene(&scene("pile50_seed1_t3.0"));
    let (a2, a3) = (next_step(&a, 1e-3), next_step(&a, -2e-3));
    let b = from_scene(&scene("pile50_seed1_t1.0"));
    let (ia, ib) = (Indices::of(&a), Indices::of(&b));
    // The same structure in the other encoding of a static side, (-1, t) for (t, -1).
    let mut flipped = Indices { tree_dofs: ia.tree_dofs.clone(), contact_trees: ia.contact_trees.clone() };
    let mut flips = 0;
    for c in flipped.contact_trees.chunks_exact_mut(2) {
        if c[1] == -1 {
            c.swap(0, 1);
            flips += 1;
        }
    }
    assert!(flips > 10, "the pile has floor contacts");
    for scheme in [Scheme::TwoWay, Scheme::OneWay] {
        let h = Handle::new(a.nv());
        let steps: [(&BlockProblem, &Indices); 7] =
            [(&a, &ia), (&a2, &ia), (&a3, &flipped), (&b, &ib), (&a2, &flipped), (&a, &ia), (&a3, &ia)];
        for (k, &(p, indices)) in steps.iter().enumerate() {
            if k == 5 {
                // A failed set with the current structure keeps it (and the data) usable.
                let mut bad_j = p.j_packed.clone();
                bad_j[7] = f64::INFINITY;
                let bad = cts_block_sparse_data { J: bad_j.as_ptr(), ..indices.data(p) };
                assert_eq!(h.set_blocks(p, &bad, scheme), cts_status::InvalidArgument);
                assert_eq!(h.solve(&a2), cts_status::Ok, "{scheme:?}: the previous data solves");
            }
            assert_eq!(h.set_blocks(p, &indices.data(p), scheme), cts_status::Ok, "{scheme:?} step {k}");
            let (outcome, want) = solve_rust(p, scheme);
            assert_eq!(h.solve(p), cts_status::from(outcome), "{scheme:?} step {k}");
            let got = h.results(p.nv(), p.nc());
            assert!(
                got.bits() == want.bits(),
                "{scheme:?} step {k}: the solve differs from a fresh solver's"
            );
        }
        // The steps' answers differ from each other: a reuse of stale values could not pass.
        let (_, r1) = solve_rust(&a, scheme);
        let (_, r2) = solve_rust(&a2, scheme);
        assert!(r1.bits() != r2.bits());
    }
}
