"""C-order (numpy's and MuJoCo's default) problem data: the symmetric mass matrix goes to the
library as it is, C-ordered Jacobians are copied into two column-major buffers per argument that
the solver reuses (no allocation once they have room), and a failed set call leaves the borrowed
buffer intact. Every solve is checked against Drake's reference values."""

import numpy as np

import contact_solvers as cts
from reference import SLIDING, STICTION, assert_close, rolling_cylinder

DT = 1e-3


def cylinder_args(s):
    return (s["M"], s["Jn"], s["Jt"], s["p_star"], s["fn0"], s["stiffness"], s["dissipation"],
            s["mu"])


def stiction_solver(lib):
    solver = cts.TamsiSolver(3, library=lib)
    solver.set_solver_parameters(cts.TamsiSolverParameters(stiction_tolerance=1e-6))
    return solver


# Generalized coordinates v = T w, with T of binary fractions: M_w = Tᵀ M T is symmetric but not
# diagonal (computed exactly), J_w = J T, p*_w = Tᵀ p*, and the solution is w = T⁻¹ v.
T = np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.25], [0.0, 0.0, 1.0]])


def transformed_cylinder(nc):
    s = rolling_cylinder(0.5, nc)
    s["M"] = T.T @ s["M"] @ T
    s["Jn"] = s["Jn"] @ T
    s["Jt"] = s["Jt"] @ T
    s["p_star"] = T.T @ s["p_star"]
    s["v0"] = np.linalg.solve(T, s["v0"])
    return s


def test_c_order_symmetric_mass_matrix_is_passed_as_it_is(lib):
    s = transformed_cylinder(4)
    M_c = s["M"]
    assert M_c.flags.c_contiguous and not M_c.flags.f_contiguous
    assert (M_c == M_c.T).all() and M_c[0, 1] != 0.0  # symmetric, not diagonal
    with stiction_solver(lib) as solver:
        solver.set_two_way_coupled_problem_data(*cylinder_args(s))
        assert solver._borrowed[0] is M_c  # no copy
        assert solver.solve_with_guess(DT, s["v0"]) is cts.TamsiSolverResult.kSuccess
        w = solver.get_generalized_velocities()
        assert solver.get_iteration_statistics().num_iterations == STICTION[4]["iterations"]
        assert_close("v = T w", T @ w, STICTION[4]["v"], 1e-9)
    # The same data in Fortran order (a different path to the library) gives the same bits.
    s_f = dict(s, M=np.asfortranarray(M_c), Jn=np.asfortranarray(s["Jn"]),
               Jt=np.asfortranarray(s["Jt"]))
    with stiction_solver(lib) as solver:
        solver.set_two_way_coupled_problem_data(*cylinder_args(s_f))
        assert solver._borrowed[0] is s_f["M"]
        solver.solve_with_guess(DT, s["v0"])
        assert (solver.get_generalized_velocities() == w).all()


def test_c_order_mass_matrix_row_block_is_passed_with_its_row_stride(lib):
    # M as the first 3 columns of a 3×5 C-ordered array whose other columns are NaN: read as
    # its transpose with ld = 5, and the NaN columns are never read.
    s = rolling_cylinder(0.5, 1)
    wide = np.full((3, 5), np.nan)
    wide[:, :3] = s["M"]
    s["M"] = wide[:, :3]
    with stiction_solver(lib) as solver:
        solver.set_two_way_coupled_problem_data(*cylinder_args(s))
        assert solver._borrowed[0] is s["M"]
        assert solver.solve_with_guess(DT, s["v0"]) is cts.TamsiSolverResult.kSuccess
        assert_close("v", solver.get_generalized_velocities(), STICTION[1]["v"])


def test_c_order_jacobians_are_copied_into_two_reused_buffers(lib):
    with stiction_solver(lib) as solver:
        jn_bases, jt_bases = [], []
        for nc in (4, 4, 4, 1, 4):
            s = rolling_cylinder(0.5, nc)
            assert s["Jt"].flags.c_contiguous and not s["Jt"].flags.f_contiguous
            solver.set_two_way_coupled_problem_data(*cylinder_args(s))
            jn, jt = solver._borrowed[1], solver._borrowed[2]
            assert jt is not s["Jt"] and (jt == s["Jt"]).all() and jt.shape == (2 * nc, 3)
            jt_bases.append(jt.base)
            # A single row (Jn with nc = 1) is the same in both orders: passed as it is.
            assert (jn is s["Jn"]) == (nc == 1) and (jn == s["Jn"]).all()
            jn_bases.append(None if nc == 1 else jn.base)
            assert solver.solve_with_guess(DT, s["v0"]) is cts.TamsiSolverResult.kSuccess
            assert_close(f"v (nc = {nc})", solver.get_generalized_velocities(), STICTION[nc]["v"])
        # Two buffers per argument, used in turn (a call that needs no copy leaves the turn);
        # nc = 1 fits in the nc = 4 buffer (Jt read with ld = 8), so nothing was allocated after
        # the first two calls.
        a, b = jt_bases[0], jt_bases[1]
        assert a is not b and all(x is y for x, y in zip(jt_bases, [a, b, a, b, a]))
        assert a.shape == (8, 3) and a.flags.f_contiguous
        a, b = jn_bases[0], jn_bases[1]
        assert a is not b and all(x is y for x, y in zip(jn_bases, [a, b, a, None, b]))


def test_failed_set_call_leaves_the_borrowed_buffer_intact(lib):
    s = rolling_cylinder(0.7, 1)
    with stiction_solver(lib) as solver:
        solver.set_two_way_coupled_problem_data(*cylinder_args(s))
        borrowed = solver._borrowed[2]
        # Same shapes, other values, the other coupling scheme: converted into the free buffer,
        # then refused by the library.
        wrong_Jt = np.full_like(s["Jt"], np.nan)
        try:
            solver.set_one_way_coupled_problem_data(s["M"], s["Jn"], wrong_Jt, s["p_star"],
                                                    s["fn0"], s["mu"])
            raise AssertionError("the library accepted one-way data on a two-way solver")
        except cts.ContactSolversError as e:
            assert e.status == cts.Status.WRONG_COUPLING_SCHEME
        assert solver._borrowed[2] is borrowed and (borrowed == s["Jt"]).all()
        assert solver.solve_with_guess(DT, s["v0"]) is cts.TamsiSolverResult.kSuccess
        assert_close("v", solver.get_generalized_velocities(), SLIDING["v"])


def test_copy_true_snapshots_into_the_reused_buffers(lib):
    s = rolling_cylinder(0.7, 1)
    s["M"] = np.asfortranarray(s["M"])
    with stiction_solver(lib) as solver:
        solver.set_two_way_coupled_problem_data(*cylinder_args(s), copy=True)
        assert solver._borrowed[0] is not s["M"]
        s["M"][:] = np.nan  # changes after the set call are not seen
        s["Jt"][:] = np.nan
        assert solver.solve_with_guess(DT, s["v0"]) is cts.TamsiSolverResult.kSuccess
        assert_close("v", solver.get_generalized_velocities(), SLIDING["v"])


def test_non_symmetric_matrices_in_c_order_are_never_read_transposed(lib):
    # Jt of the sliding cylinder is not symmetric (nor square): its C-order copy must be a true
    # transpose of the memory layout, or the sliding solution would change.
    s = rolling_cylinder(0.7, 1)
    assert s["Jt"].shape == (2, 3)
    with stiction_solver(lib) as solver:
        solver.set_two_way_coupled_problem_data(*cylinder_args(s))
        assert solver._borrowed[2].flags.f_contiguous
        solver.solve_with_guess(DT, s["v0"])
        assert_close("v", solver.get_generalized_velocities(), SLIDING["v"])
        assert_close("ft", solver.get_friction_forces(), SLIDING["ft"])
