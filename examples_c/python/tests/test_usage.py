"""Usage errors raise ContactSolversError with the library's status and message; arrays are
checked, converted and kept alive as the module docstring says; handles are freed."""

import gc
import math
import weakref

import numpy as np
import pytest

import contact_solvers as cts
from reference import PIZZA_SMALL_MOMENT, SLIDING, assert_close, pizza_saver, rolling_cylinder

S = cts.Status
DT = 1e-3


def cylinder_args(s):
    return (s["M"], s["Jn"], s["Jt"], s["p_star"], s["fn0"], s["stiffness"], s["dissipation"],
            s["mu"])


def sliding_solver(lib, **kw):
    s = rolling_cylinder(0.7, 1)
    solver = cts.TamsiSolver(3, library=lib)
    solver.set_solver_parameters(cts.TamsiSolverParameters(stiction_tolerance=1e-6))
    solver.set_two_way_coupled_problem_data(*cylinder_args(s), **kw)
    return solver, s


def raises(status, match=None):
    """pytest.raises for a ContactSolversError with this status (and message pattern)."""

    class Check:
        def __enter__(self):
            self.ctx = pytest.raises(cts.ContactSolversError, match=match)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            swallowed = self.ctx.__exit__(*exc)
            assert self.info.value.status == status, self.info.value
            return swallowed

    return Check()


def test_solve_without_data_raises_no_problem_data_with_the_library_message(lib):
    with cts.TamsiSolver(3, library=lib) as solver:
        with raises(S.NO_PROBLEM_DATA) as e:
            solver.solve_with_guess(DT, np.zeros(3))
        assert e.value.message == solver.last_error()
        assert "solve_with_guess" in e.value.message
        assert str(e.value).startswith("NO_PROBLEM_DATA: ")


def test_getters_before_a_solve_raise_no_solution(lib):
    solver, _ = sliding_solver(lib)
    with solver:
        for getter in (solver.get_generalized_velocities, solver.get_normal_forces,
                       solver.get_friction_forces, solver.get_iteration_statistics):
            with raises(S.NO_SOLUTION):
                getter()


@pytest.mark.parametrize("dt", [0.0, -1e-3, math.nan, math.inf])
def test_bad_time_step_is_invalid_argument(lib, dt):
    solver, s = sliding_solver(lib)
    with solver:
        with raises(S.INVALID_ARGUMENT, match="dt"):
            solver.solve_with_guess(dt, s["v0"])


def test_guess_of_the_wrong_length_is_rejected_by_the_library(lib):
    solver, _ = sliding_solver(lib)
    with solver:
        with raises(S.DIMENSION_MISMATCH) as e:
            solver.solve_with_guess(DT, np.zeros(4))
        assert e.value.message == solver.last_error() != ""


@pytest.mark.parametrize(
    "field, value",
    [("stiction_tolerance", 0.0), ("stiction_tolerance", math.nan), ("max_iterations", -1),
     ("max_iterations", 2.5), ("max_iterations", 2**31), ("relative_tolerance", 1.0),
     ("theta_max", 2.0)],
)
def test_bad_parameters_are_invalid_argument_and_change_nothing(lib, field, value):
    with cts.TamsiSolver(3, library=lib) as solver:
        before = solver.get_solver_parameters()
        p = cts.TamsiSolverParameters(**{field: value})
        with raises(S.INVALID_ARGUMENT, match=field):
            solver.set_solver_parameters(p)
        assert solver.get_solver_parameters() == before


def test_wrong_coupling_scheme_keeps_the_previous_data_alive(lib):
    solver, s = sliding_solver(lib)
    with solver:
        M, Jn, Jt, p_star, fn, mu = pizza_saver(3.0)
        with raises(S.WRONG_COUPLING_SCHEME):
            solver.set_one_way_coupled_problem_data(M, Jn, Jt, p_star, fn, mu)
        del M, Jn, Jt, p_star, fn, mu, s
        gc.collect()
        # The two-way data (borrowed before the failed call) is still what the solver reads.
        assert solver.num_contacts == 1
        assert solver.solve_with_guess(DT, [0.7, -3.0, 0.0]) is cts.TamsiSolverResult.kSuccess
        assert_close("v", solver.get_generalized_velocities(), SLIDING["v"])


@pytest.mark.parametrize(
    "which, shape",
    [("M", (3, 2)), ("Jn", (2, 3)), ("Jt", (1, 3)), ("Jt", (6,)), ("p_star", (2,)),
     ("mu", (3,)), ("dissipation", (1, 1))],
)
def test_shapes_are_checked_before_the_library_sees_a_pointer(lib, which, shape):
    s = rolling_cylinder(0.7, 1)
    s[which] = np.zeros(shape)
    with cts.TamsiSolver(3, library=lib) as solver:
        with raises(S.DIMENSION_MISMATCH, match=which):
            solver.set_two_way_coupled_problem_data(*cylinder_args(s))
        assert solver.num_contacts == 0


def test_closed_solver_raises_and_close_is_idempotent(lib):
    solver = cts.TamsiSolver(3, library=lib)
    assert not solver.closed
    solver.close()
    solver.close()
    assert solver.closed
    with raises(S.NULL_POINTER, match="closed"):
        solver.get_generalized_velocities()
    with cts.TamsiSolver(1, library=lib) as other:
        pass
    assert other.closed


def test_del_frees_the_handle_and_releases_the_borrowed_arrays(lib):
    s = rolling_cylinder(0.7, 1)
    s["M"] = np.asfortranarray(s["M"])  # F-contiguous float64: borrowed as is, no copy
    M_ref = weakref.ref(s["M"])
    solver = cts.TamsiSolver(3, library=lib)
    solver.set_two_way_coupled_problem_data(*cylinder_args(s))
    solver_ref = weakref.ref(solver)
    del s
    gc.collect()
    assert M_ref() is not None  # the solver holds the array the library borrows
    assert any(a is M_ref() for a in solver._borrowed)
    del solver
    gc.collect()
    assert solver_ref() is None and M_ref() is None


def test_negative_size_is_rejected(lib):
    with raises(S.INVALID_ARGUMENT):
        cts.TamsiSolver(-1, library=lib)
    with cts.TamsiSolver(3, library=lib) as solver:
        with raises(S.INVALID_ARGUMENT, match="nv"):
            solver.resize(0)  # the library's rule: resize to nv > 0


def test_borrowed_arrays_outlive_the_callers_references(lib):
    # The caller's temporaries are gone (and their memory reused) before the solve: the solver
    # holds the arrays the library borrowed.
    with cts.TamsiSolver(3, library=lib) as solver:
        solver.set_solver_parameters(
            cts.TamsiSolverParameters(stiction_tolerance=1e-6, relative_tolerance=1e-4)
        )
        solver.set_one_way_coupled_problem_data(*pizza_saver(3.0))  # C-order: M kept, J copied
        gc.collect()
        junk = [np.full((3, 3), np.nan) for _ in range(1000)]
        assert solver.solve_with_guess(DT, np.zeros(3)) is cts.TamsiSolverResult.kSuccess
        del junk
        assert_close("ft", solver.get_friction_forces(), PIZZA_SMALL_MOMENT["ft"])


def test_row_major_and_strided_inputs_give_the_same_solution(lib):
    s = rolling_cylinder(0.7, 1)
    # Fortran order, no copy.
    Mf = np.asfortranarray(s["M"])
    # Jt as the first two rows of a 5-row Fortran array whose other rows are NaN: passed without
    # a copy with ld = 5, and the NaN rows are never read.
    big = np.full((5, 3), np.nan, order="F")
    big[:2] = s["Jt"]
    Jt_view = big[:2, :]
    assert not Jt_view.flags.f_contiguous
    # Jn as a list of lists (converted), stiffness as int64 (converted).
    Jn = s["Jn"].tolist()
    k = s["stiffness"].astype(np.int64)
    assert (k == s["stiffness"]).all()
    with cts.TamsiSolver(3, library=lib) as solver:
        solver.set_solver_parameters(cts.TamsiSolverParameters(stiction_tolerance=1e-6))
        solver.set_two_way_coupled_problem_data(
            Mf, Jn, Jt_view, s["p_star"], s["fn0"], k, s["dissipation"], s["mu"]
        )
        assert solver._borrowed[0] is Mf
        assert solver._borrowed[2] is Jt_view
        assert solver.solve_with_guess(DT, s["v0"]) is cts.TamsiSolverResult.kSuccess
        assert_close("v", solver.get_generalized_velocities(), SLIDING["v"])
        assert_close("tau", solver.get_generalized_contact_forces(), SLIDING["tau"])


def test_transposed_row_major_matrix_is_read_correctly(lib):
    # A non-symmetric Jt given in C order (numpy's default) must be copied to column-major, not
    # reinterpreted: the sliding solution depends on every entry.
    s = rolling_cylinder(0.7, 1)
    Jt_c = np.ascontiguousarray(s["Jt"])
    assert Jt_c.flags.c_contiguous and not Jt_c.flags.f_contiguous
    with cts.TamsiSolver(3, library=lib) as solver:
        solver.set_solver_parameters(cts.TamsiSolverParameters(stiction_tolerance=1e-6))
        s["Jt"] = Jt_c
        solver.set_two_way_coupled_problem_data(*cylinder_args(s))
        assert solver._borrowed[2] is not Jt_c and solver._borrowed[2].flags.f_contiguous
        solver.solve_with_guess(DT, s["v0"])
        assert_close("v", solver.get_generalized_velocities(), SLIDING["v"])


def test_in_place_changes_are_seen_unless_copied(lib):
    # Borrowing is Drake's rule: a later in-place change of the caller's array changes the
    # problem; copy=True snapshots the data at the set call.
    for copy, expect_changed in ((False, True), (True, False)):
        solver, s = sliding_solver(lib, copy=copy)
        with solver:
            s["mu"][:] = 0.0  # frictionless from now on, if borrowed
            solver.solve_with_guess(DT, s["v0"])
            ft = solver.get_friction_forces()
            assert (ft[0] == 0.0) == expect_changed, (copy, ft)
            if not expect_changed:
                assert_close("ft", ft, SLIDING["ft"])


def test_calc_alpha_usage_error_raises(lib):
    with raises(S.INVALID_ARGUMENT):
        cts.calc_alpha([0.1, 0.0], [0.0, 0.1], 2.0, 1e-4, 0.01, library=lib)
    with raises(S.DIMENSION_MISMATCH, match="vt"):
        cts.calc_alpha([0.1, 0.0, 0.0], [0.0, 0.1], 0.5, 1e-4, 0.01, library=lib)


def test_library_path_errors(tmp_path):
    with pytest.raises(OSError):
        cts.load_library(tmp_path / "libnothing.so")
