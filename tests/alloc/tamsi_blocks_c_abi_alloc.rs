//! Through the C ABI, block-sparse TAMSI allocates nothing once a handle has grown: an engine's
//! step — set block data, solve, read the results — repeated on engine scenes (two-way and
//! one-way) allocates nothing from its third round on (the first grows the workspace and the
//! current layout, the second the candidate layout the handle validates new structures in). A
//! counting global allocator watches the test's own thread.
#![allow(unsafe_code)]

use crate::counting_alloc::allocations_during;
use contact_solvers::ffi::block_sparse::cts_block_sparse_data;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::tamsi::*;
use support::engine_scenes::scene;
use support::tamsi_blocks::{from_scene, from_scene_touching};

#[test]
fn engine_steps_through_the_c_abi_allocate_nothing_once_grown() {
    assert!(allocations_during(|| drop(std::hint::black_box(vec![1u8; 16]))) > 0, "the counter works");
    // A resting pile (large islands), a pile still falling (free trees, small islands), the arm
    // in a pile (a 7-dof tree) and the smallest scene.
    for name in ["pile100_seed1_t3.0", "pile50_seed1_t0.3", "arm7_pile30_seed1_t1.0", "slide_box_v2.0_t0.001"]
    {
        let p = from_scene(&scene(name));
        let (nv, nc) = (p.nv(), p.nc());
        let l = &p.layout;
        let tree_dofs: Vec<i32> = (0..l.num_trees()).map(|t| l.tree_dofs(t) as i32).collect();
        let contact_trees: Vec<i32> = (0..nc)
            .flat_map(|i| {
                let (a, b) = l.contact_trees(i);
                [a as i32, b.map_or(-1, |b| b as i32)]
            })
            .collect();
        let data = cts_block_sparse_data {
            num_trees: tree_dofs.len(),
            tree_dofs: tree_dofs.as_ptr(),
            M_len: p.m_packed.len(),
            M: p.m_packed.as_ptr(),
            num_contacts: nc,
            contact_trees: contact_trees.as_ptr(),
            J_len: p.j_packed.len(),
            J: p.j_packed.as_ptr(),
        };
        let (mut v, mut f, mut ft) = (vec![0.0; nv], vec![0.0; nc], vec![0.0; 2 * nc]);
        for two_way in [true, false] {
            let mut h = std::ptr::null_mut();
            assert_eq!(unsafe { cts_tamsi_solver_new(nv, &mut h) }, cts_status::Ok);
            let mut step = || unsafe {
                let s = if two_way {
                    cts_tamsi_solver_set_two_way_coupled_block_problem_data(
                        h,
                        &data,
                        p.p_star.as_ptr(),
                        p.fn0.as_ptr(),
                        p.stiffness.as_ptr(),
                        p.dissipation.as_ptr(),
                        p.mu.as_ptr(),
                    )
                } else {
                    cts_tamsi_solver_set_one_way_coupled_block_problem_data(
                        h,
                        &data,
                        p.p_star.as_ptr(),
                        p.fn0.as_ptr(),
                        p.mu.as_ptr(),
                    )
                };
                assert_eq!(s, cts_status::Ok);
                let s = cts_tamsi_solver_solve_with_guess(h, p.dt, p.v0.as_ptr(), nv);
                assert_eq!(s, cts_status::Ok, "{name}");
                assert_eq!(
                    cts_tamsi_solver_get_generalized_velocities(h, v.as_mut_ptr(), nv),
                    cts_status::Ok
                );
                assert_eq!(cts_tamsi_solver_get_normal_forces(h, f.as_mut_ptr(), nc), cts_status::Ok);
                assert_eq!(cts_tamsi_solver_get_friction_forces(h, ft.as_mut_ptr(), 2 * nc), cts_status::Ok);
            };
            step();
            step();
            let n = allocations_during(&mut step);
            assert_eq!(n, 0, "{name} two-way {two_way}: set + solve + getters");
            // Solving again without a new set allocates nothing either.
            let n = allocations_during(|| unsafe {
                assert_eq!(cts_tamsi_solver_solve_with_guess(h, p.dt, p.v0.as_ptr(), nv), cts_status::Ok);
            });
            assert_eq!(n, 0, "{name} two-way {two_way}: solve");
            unsafe { cts_tamsi_solver_free(h) };
        }
    }
}

/// An engine whose contact graph changes back and forth (contacts appear and vanish from one step
/// to the next) sets two structures in turn on one handle: A, solve, B, solve, A, ... Once both
/// have been seen twice, neither the set calls nor the solves allocate: the layout keeps the last
/// two structures' storage, and the solve's islands, contact destinations and sparse analyses are
/// redone in storage grown for the larger of the two (`docs/performance.md` §3 "The live loop,
/// evening pass").
#[test]
fn alternating_contact_graphs_allocate_nothing_once_grown() {
    // A resting pile whose large island takes the sparse factorization, and a falling pile of
    // small dense islands; in each, the touching contacts (A) and all contacts of the file (B,
    // the same trees with more contacts: other islands, another sparse pattern).
    for name in ["pile100_seed1_t3.0", "pile50_seed1_t0.3"] {
        let s = scene(name);
        let problems = [from_scene_touching(&s), from_scene(&s)];
        assert_ne!(problems[0].nc(), problems[1].nc(), "{name}: two contact graphs");
        let structures: Vec<_> = problems.iter().map(|p| p.c_structure()).collect();
        let data: Vec<_> = problems.iter().zip(&structures).map(|(p, s)| s.data(p)).collect();
        let nv = problems[0].nv();
        let mut h = std::ptr::null_mut();
        assert_eq!(unsafe { cts_tamsi_solver_new(nv, &mut h) }, cts_status::Ok);
        let set = |k: usize| unsafe {
            let p = &problems[k];
            let s = cts_tamsi_solver_set_two_way_coupled_block_problem_data(
                h,
                &data[k],
                p.p_star.as_ptr(),
                p.fn0.as_ptr(),
                p.stiffness.as_ptr(),
                p.dissipation.as_ptr(),
                p.mu.as_ptr(),
            );
            assert_eq!(s, cts_status::Ok);
        };
        let solve = |k: usize| unsafe {
            let s = cts_tamsi_solver_solve_with_guess(h, problems[k].dt, problems[k].v0.as_ptr(), nv);
            assert_eq!(s, cts_status::Ok, "{name} graph {k}");
        };
        let mut v = [vec![0.0; nv], vec![0.0; nv]];
        for k in [0, 1, 0, 1] {
            set(k);
            solve(k);
            unsafe { cts_tamsi_solver_get_generalized_velocities(h, v[k].as_mut_ptr(), nv) };
        }
        for round in 0..2 {
            for k in [0, 1] {
                let n_set = allocations_during(|| set(k));
                let n_solve = allocations_during(|| solve(k));
                assert_eq!(
                    (n_set, n_solve),
                    (0, 0),
                    "{name} round {round} graph {k}: (set, solve) allocations"
                );
                // The same answer as the first time this graph was solved.
                let mut w = vec![0.0; nv];
                unsafe { cts_tamsi_solver_get_generalized_velocities(h, w.as_mut_ptr(), nv) };
                assert_eq!(w, v[k], "{name} graph {k}");
            }
        }
        unsafe { cts_tamsi_solver_free(h) };
    }
}
