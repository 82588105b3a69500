"""What a user of the installed package sees (issue 22's acceptance list): the import, the
README's quick-start puck, Drake's call shapes of the LCP solvers, one small case of each solver
with the specs' numbers, and usage errors as ContactSolversError with the library's message."""

import os
from pathlib import Path

import numpy as np
import pytest

import contact_solvers as cts


def test_installed_package_is_used():
    here = Path(cts.__file__).resolve().parent
    lib = here / cts._common._shared_library_name()
    if os.environ.get("CONTACT_SOLVERS_EXPECT_INSTALLED") == "1":
        assert "site-packages" in here.parts, here
        assert lib.exists(), f"{lib}: the shared library is not inside the package"
        assert "CONTACT_SOLVERS_LIB" not in os.environ
        assert Path(cts.load_library().path).resolve() == lib.resolve()
    assert cts.abi_version() == cts.ABI_VERSION
    assert cts.version().count(".") == 2


def test_all_names_exist():
    for name in cts.__all__:
        assert hasattr(cts, name), name
    for name in ("TamsiSolver", "IpmSolver", "LcpSolver", "MobyLcpSolver",
                 "UnrevisedLemkeSolver", "ConstraintSolver", "BaraffSolver",
                 "ContactSolversError"):
        assert name in cts.__all__


def test_readme_quickstart_puck():
    # README's C quick start in Python: a 1 kg puck sliding at 1 m/s, fn = 10 N, mu = 0.5,
    # dt = 0.01 s: friction takes 0.5 * 10 N * 0.01 s, v = (0.95, 0).
    with cts.TamsiSolver(2) as solver:
        solver.set_one_way_coupled_problem_data(
            np.eye(2), np.zeros((1, 2)), np.eye(2), [1.0, 0.0], [10.0], [0.5])
        assert solver.solve_with_guess(0.01, [1.0, 0.0]) == cts.TamsiSolverResult.kSuccess
        v = solver.get_generalized_velocities()
    print(f"v = ({v[0]:g}, {v[1]:g})")
    assert f"v = ({v[0]:g}, {v[1]:g})" == "v = (0.95, 0)"


M2 = np.array([[2.0, 1.0], [1.0, 2.0]])
Q2 = np.array([-5.0, -6.0])
Z2 = np.array([4.0 / 3.0, 7.0 / 3.0])  # the README's LCP: M z + q = 0 with z > 0


def test_moby_solve_lcp_lemke_returns_success_and_z():
    success, z = cts.MobyLcpSolver().solve_lcp_lemke(M2, Q2)
    assert success is True
    assert np.abs(z - Z2).max() < 1e-14


def test_lcp_algorithms_solve_the_readme_problem():
    moby = cts.MobyLcpSolver()
    for solve in (moby.solve_lcp_lemke_regularized, moby.solve_lcp_fast,
                  moby.solve_lcp_fast_regularized):
        success, z = solve(M2, Q2)
        assert success and np.abs(z - Z2).max() < 1e-13, solve.__name__
    success, z, pivots = cts.UnrevisedLemkeSolver().solve_lcp_lemke(M2, Q2)
    assert success and np.abs(z - Z2).max() < 1e-13 and pivots == 2
    with cts.LcpSolver() as lcp:
        assert lcp.solve(cts.LcpAlgorithm.kLemke, M2, Q2) is cts.LcpOutcome.kSolved
        assert np.abs(lcp.w()).max() < 1e-13
        info = lcp.solve_info()
        assert info.drake_verdict and info.residual_test_passed
        assert lcp.get_num_pivots() == 2
    assert cts.LcpSolver.is_solution(M2, Q2, Z2)
    assert cts.UnrevisedLemkeSolver.compute_zero_tolerance(M2) == 2 * 2.0 * 2.2 * np.finfo(float).eps


def test_lcp_outcome_is_returned_not_raised():
    # w = -z - 1 has no solution: Lemke ends on a ray, z is Drake's failure value (zero).
    success, z = cts.MobyLcpSolver().solve_lcp_lemke(-np.eye(1), [-1.0])
    assert success is False and z.tolist() == [0.0]
    with cts.LcpSolver() as lcp:
        assert lcp.solve(cts.LcpAlgorithm.kLemke, -np.eye(1), [-1.0]) is cts.LcpOutcome.kRayTermination


def test_ipm_point_mass_sticks():
    # docs/ipm.md §9 A2: m = 1 kg at rest on the ground, h = 0.1 s, mu = 0.5, pushed with 3 N:
    # it sticks, γn = m g h = 0.981 N·s, friction impulse -0.3 N·s.
    with cts.IpmSolver() as s:
        s.set_parameters(cts.IpmSolverParameters(btol=1e-8, rtol=1e-8, dojo_compatible=True))
        s.set_problem_data(np.eye(3), [[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                           np.zeros(3), [3.0, 0.0, -9.81], 0.1, [0.0], [0.5],
                           [cts.IpmContactModel.kSecondOrderCone])
        assert s.solve() is cts.IpmOutcome.kConverged
        assert np.abs(s.get_generalized_velocities()).max() < 1e-6
        assert np.abs(s.get_impulses() - [0.981, -0.3, 0.0]).max() < 1e-6


@pytest.mark.parametrize("M, q, status, text", [
    (np.eye(3), [1.0, 2.0], cts.Status.DIMENSION_MISMATCH, "expected (2, 2)"),
    (np.eye(2, dtype=complex), [1.0, 2.0], cts.Status.INVALID_ARGUMENT, "is not real"),
    (np.eye(2), ["a", "b"], cts.Status.INVALID_ARGUMENT, "is not real"),
    ([[1.0, np.nan], [0.0, 1.0]], [1.0, 2.0], cts.Status.INVALID_ARGUMENT, "expected a finite value"),
])
def test_lcp_bad_arrays_raise_with_the_library_message(M, q, status, text):
    with pytest.raises(cts.ContactSolversError) as e:
        cts.MobyLcpSolver().solve_lcp_lemke(M, q)
    assert e.value.status is status
    assert text in e.value.message


def test_closed_solver_and_bad_parameters():
    lcp = cts.LcpSolver()
    with pytest.raises(cts.ContactSolversError) as e:
        lcp.set_parameters(cts.LcpSolverParameters(lemke_step_exp=0))
    assert e.value.status is cts.Status.INVALID_ARGUMENT and "step" in e.value.message
    assert lcp.parameters() == cts.LcpSolverParameters()  # unchanged by the failed call
    clone = lcp.clone()
    lcp.close()
    with pytest.raises(cts.ContactSolversError):
        lcp.solve(cts.LcpAlgorithm.kLemke, M2, Q2)
    assert clone.solve(cts.LcpAlgorithm.kFast, M2, Q2) is cts.LcpOutcome.kSolved
