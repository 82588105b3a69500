"""TAMSI through the Python binding on Drake's test scenes: Drake's assertions and the reference
values of Drake 1.51.1 (docs/tamsi_cases.md §2-§3) with the spec's tolerances:
iteration counts and results exact; v, vn, vt, fn, ft, tau |a−b| ≤ 1e-12·max(1, |b|); residual
histories 1e-6 relative above 1e-12·scale."""

import math

import numpy as np
import pytest

import contact_solvers as cts
from reference import (
    K_TOL,
    PIZZA_LARGE_MOMENT,
    PIZZA_NO_CONTACT_V,
    PIZZA_SMALL_MOMENT,
    SLIDING,
    STICTION,
    STICTION_J,
    assert_abs,
    assert_close,
    assert_jacobian,
    assert_residuals,
    pizza_saver,
    rolling_cylinder,
)

DT = 1e-3


def pizza_solver(lib, Mz):
    solver = cts.TamsiSolver(3, library=lib)
    solver.set_solver_parameters(
        cts.TamsiSolverParameters(stiction_tolerance=1e-6, relative_tolerance=1e-4)
    )
    solver.set_one_way_coupled_problem_data(*pizza_saver(Mz))
    return solver


@pytest.mark.parametrize("ref", [PIZZA_SMALL_MOMENT, PIZZA_LARGE_MOMENT], ids=["small", "large"])
def test_pizza_saver_matches_drake(lib, ref):
    with pizza_solver(lib, ref["Mz"]) as solver:
        result = solver.solve_with_guess(DT, np.zeros(3))
        assert result is cts.TamsiSolverResult.kSuccess
        stats = solver.get_iteration_statistics()
        assert stats.num_iterations == ref["iterations"]
        assert stats.vt_residual < 1e-4 * 1e-6  # Drake: vt_residual < rtol·vs
        assert_residuals(stats.residuals, ref["residuals"])

        v = solver.get_generalized_velocities()
        vt = solver.get_tangential_velocities()
        tau_f = solver.get_generalized_friction_forces()
        assert v.shape == (3,) and vt.shape == (6,)
        assert_close("v", v, ref["v"])
        assert_close("vt", vt, ref["vt"])
        assert_close("vn", solver.get_normal_velocities(), ref["vn"])
        assert_close("fn", solver.get_normal_forces(), ref["fn"])
        assert_close("ft", solver.get_friction_forces(), ref["ft"])
        assert_close("tau_f", tau_f, ref["tau_f"])
        assert_close("tau", solver.get_generalized_contact_forces(), ref["tau_f"])

        # Drake's own assertions.
        assert abs(v[0]) <= K_TOL and abs(v[1]) <= K_TOL
        assert abs(tau_f[0]) <= K_TOL and abs(tau_f[1]) <= K_TOL
        slips = np.linalg.norm(vt.reshape(3, 2), axis=1)
        assert np.ptp(slips) <= K_TOL
        if ref is PIZZA_SMALL_MOMENT:
            assert abs(tau_f[2] - (-3.0)) <= 5e-4
            assert (slips < 1e-6).all()  # stiction
        else:
            omega = DT * (6.0 - 5.0) / 1.0
            assert abs(tau_f[2] - (-5.0)) <= 1e-13
            assert abs(v[2] - omega) <= K_TOL
            assert (slips > 1e-6).all() and np.allclose(slips, omega, rtol=0, atol=K_TOL)

        J = solver.calc_jacobian(DT, v)
        assert J.shape == (3, 3) and J.flags.f_contiguous
        assert_jacobian(J, np.diag(ref["J_diag"]))


def test_pizza_saver_scene_is_the_spec_s():
    _, _, Jt, p_star, fn, _ = pizza_saver(3.0)
    want = [[1, 0, -0.10452846326765342], [0, 1, -0.99452189536827329],
            [1, 0, 0.91354545764260087], [0, 1, 0.40673664307580015],
            [1, 0, -0.80901699437494745], [0, 1, 0.58778525229247314]]
    assert_abs("Jt", Jt, want, 2 * np.finfo(float).eps)
    assert list(p_star) == [0.0, 0.0, 0.003] and fn[0] == 3.3333333333333335


def test_pizza_saver_without_contact(lib):
    M, _, _, p_star, _, _ = pizza_saver(6.0)
    with cts.TamsiSolver(3, library=lib) as solver:
        solver.set_one_way_coupled_problem_data(
            M, np.zeros((0, 3)), np.zeros((0, 3)), p_star, np.zeros(0), np.zeros(0)
        )
        assert solver.num_contacts == 0
        assert solver.solve_with_guess(DT, np.zeros(3)) is cts.TamsiSolverResult.kSuccess
        stats = solver.get_iteration_statistics()
        assert stats.num_iterations == 1
        assert stats.vt_residual == 0.0 and list(stats.residuals) == [0.0]
        assert (solver.get_generalized_friction_forces() == 0.0).all()
        assert solver.get_tangential_velocities().shape == (0,)
        assert solver.get_normal_forces().shape == (0,)
        assert_close("v", solver.get_generalized_velocities(), PIZZA_NO_CONTACT_V)
        assert abs(solver.get_generalized_velocities()[2] - DT * 6.0) <= K_TOL


def test_rolling_cylinder_stiction_on_one_solver_for_every_nc(lib):
    # Drake's StictionAfterImpact: the same solver object, data re-set for each nc.
    with cts.TamsiSolver(3, library=lib) as solver:
        solver.set_solver_parameters(cts.TamsiSolverParameters(stiction_tolerance=1e-6))
        for nc, ref in STICTION.items():
            s = rolling_cylinder(0.5, nc)
            solver.set_two_way_coupled_problem_data(
                s["M"], s["Jn"], s["Jt"], s["p_star"], s["fn0"], s["stiffness"],
                s["dissipation"], s["mu"],
            )
            assert solver.num_contacts == nc
            assert solver.solve_with_guess(DT, s["v0"]) is cts.TamsiSolverResult.kSuccess
            stats = solver.get_iteration_statistics()
            assert stats.num_iterations == ref["iterations"], f"nc = {nc}"
            assert stats.vt_residual < 1e-8
            assert_residuals(stats.residuals, ref["residuals"])

            v = solver.get_generalized_velocities()
            vn = solver.get_normal_velocities()
            vt = solver.get_tangential_velocities()
            fn = solver.get_normal_forces()
            ft = solver.get_friction_forces()
            tau_f = solver.get_generalized_friction_forces()
            tau = solver.get_generalized_contact_forces()
            assert_close(f"v (nc = {nc})", v, ref["v"])
            assert_close("fn", fn, np.full(nc, ref["fn"]))
            assert_close("ft", ft, np.tile([ref["ft0"], 0.0], nc))
            assert_close("tau_f", tau_f, ref["tau_f"])
            assert_close("vn", vn, np.full(nc, v[1]))
            assert_close("tau", tau, tau_f + np.array([0.0, fn.sum(), 0.0]))

            # Drake's assertions: rolling without slip, nothing out of plane.
            assert abs(tau_f[1]) <= K_TOL and abs(tau_f[2] - tau_f[0]) <= K_TOL
            assert vt.shape == (2 * nc,)
            assert (np.abs(vt[1::2]) <= K_TOL).all() and (np.abs(vt[0::2]) < 1e-6).all()
            assert abs(v[0] + v[2]) < 1e-6
            if nc in STICTION_J:
                assert_jacobian(solver.calc_jacobian(DT, v), STICTION_J[nc])
        assert solver.num_contacts == 256


def test_rolling_cylinder_sliding(lib):
    s = rolling_cylinder(0.7, 1)
    with cts.TamsiSolver(3, library=lib) as solver:
        solver.set_solver_parameters(cts.TamsiSolverParameters(stiction_tolerance=1e-6))
        solver.set_two_way_coupled_problem_data(
            s["M"], s["Jn"], s["Jt"], s["p_star"], s["fn0"], s["stiffness"], s["dissipation"],
            s["mu"],
        )
        assert solver.solve_with_guess(DT, s["v0"]) is cts.TamsiSolverResult.kSuccess
        stats = solver.get_iteration_statistics()
        assert stats.num_iterations == SLIDING["iterations"]
        assert_residuals(stats.residuals, SLIDING["residuals"])
        v = solver.get_generalized_velocities()
        vt = solver.get_tangential_velocities()
        assert_close("v", v, SLIDING["v"])
        assert_close("vn", solver.get_normal_velocities(), SLIDING["vn"])
        assert_close("vt", vt, SLIDING["vt"])
        assert_close("fn", solver.get_normal_forces(), SLIDING["fn"])
        assert_close("ft", solver.get_friction_forces(), SLIDING["ft"])
        assert_close("tau_f", solver.get_generalized_friction_forces(), SLIDING["tau_f"])
        assert_close("tau", solver.get_generalized_contact_forces(), SLIDING["tau"])
        assert vt[0] > 1e-6 and abs(vt[1]) <= K_TOL and v[2] < 0  # sliding, clockwise
        assert abs(v[0] + v[2] - vt[0]) <= K_TOL
        ft0 = solver.get_friction_forces()[0]
        assert abs(ft0 + 0.1 * solver.get_normal_forces()[0]) <= 1e-12 * abs(ft0)  # −μ·fn
        assert_jacobian(solver.calc_jacobian(DT, v), SLIDING["J"])


def test_parameters_round_trip_and_defaults_are_drakes(lib):
    with cts.TamsiSolver(2, library=lib) as solver:
        p = solver.get_solver_parameters()
        d = cts.TamsiSolverParameters()
        assert (p.stiction_tolerance, p.max_iterations, p.relative_tolerance) == (1e-4, 100, 1e-2)
        assert (d.stiction_tolerance, d.max_iterations, d.relative_tolerance) == (1e-4, 100, 1e-2)
        # Drake's default is M_PI / 3.0 = 1.0471975511965976, in the library and in this module.
        assert d.theta_max == math.pi / 3 == 1.0471975511965976
        assert p.theta_max == d.theta_max
        q = cts.TamsiSolverParameters(2e-5, 7, 0.05, 0.5)
        solver.set_solver_parameters(q)
        assert solver.get_solver_parameters() == q
        # Not Drake's: the thread count of block solves, 0 by default, refused outside [0, 256].
        assert p.num_threads == d.num_threads == 0
        q = cts.TamsiSolverParameters(2e-5, 7, 0.05, 0.5, num_threads=2)
        solver.set_solver_parameters(q)
        assert solver.get_solver_parameters() == q
        for bad in (257, -1):
            with pytest.raises(cts.ContactSolversError, match="num_threads"):
                solver.set_solver_parameters(cts.TamsiSolverParameters(num_threads=bad))
        assert solver.get_solver_parameters().num_threads == 2


def test_max_iterations_is_an_outcome_not_an_exception(lib):
    s = rolling_cylinder(0.5, 1)
    with cts.TamsiSolver(3, library=lib) as solver:
        solver.set_solver_parameters(
            cts.TamsiSolverParameters(stiction_tolerance=1e-6, max_iterations=3)
        )
        solver.set_two_way_coupled_problem_data(
            s["M"], s["Jn"], s["Jt"], s["p_star"], s["fn0"], s["stiffness"], s["dissipation"],
            s["mu"],
        )
        result = solver.solve_with_guess(DT, s["v0"])
        assert result is cts.TamsiSolverResult.kMaxIterationsReached
        assert int(result) == 1
        stats = solver.get_iteration_statistics()
        assert stats.num_iterations == 3
        # The first three updates are those of the converging solve (8 in all).
        assert_residuals(stats.residuals, STICTION[1]["residuals"][:3])
        # Every output is evaluated at the returned (last) iterate.
        v = solver.get_generalized_velocities()
        assert_close("vt", solver.get_tangential_velocities(), [v[0] + v[2], 0.0], 1e-15)


def test_clone_copies_parameters_and_solves_independently(lib):
    s = rolling_cylinder(0.7, 1)
    args = (s["M"], s["Jn"], s["Jt"], s["p_star"], s["fn0"], s["stiffness"], s["dissipation"],
            s["mu"])
    with cts.TamsiSolver(3, library=lib) as solver:
        solver.set_solver_parameters(cts.TamsiSolverParameters(stiction_tolerance=1e-6))
        with solver.clone() as copy:
            assert copy.get_solver_parameters().stiction_tolerance == 1e-6
            assert copy.num_contacts == 0  # no problem data
            copy.set_two_way_coupled_problem_data(*args)
            assert copy.solve_with_guess(DT, s["v0"]) is cts.TamsiSolverResult.kSuccess
            assert_close("v", copy.get_generalized_velocities(), SLIDING["v"])


def test_solvers_run_in_parallel_threads(lib):
    # ctypes releases the GIL during calls: one solver per thread, each with its own data.
    import threading

    results = {}

    def work(nc):
        s = rolling_cylinder(0.5, nc)
        with cts.TamsiSolver(3, library=lib) as solver:
            solver.set_solver_parameters(cts.TamsiSolverParameters(stiction_tolerance=1e-6))
            solver.set_two_way_coupled_problem_data(
                s["M"], s["Jn"], s["Jt"], s["p_star"], s["fn0"], s["stiffness"],
                s["dissipation"], s["mu"],
            )
            for _ in range(20):
                solver.solve_with_guess(DT, s["v0"])
            results[nc] = solver.get_generalized_velocities()

    threads = [threading.Thread(target=work, args=(nc,)) for nc in (1, 4, 16, 64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for nc in (1, 4, 16, 64):
        assert_close(f"v (nc = {nc})", results[nc], STICTION[nc]["v"])


@pytest.mark.parametrize(
    "vt, dvt, alpha",
    [
        ((0.0, 0.0), (0.0, 0.0), 1.0),  # Case I
        ((0.0, 0.0), (0.3, -0.1), 0.00015811388300841897),  # Case II
        ((0.3, -0.1), (-0.3, 0.1), 0.99984188611699154),  # Case III
        ((0.1, 0.05), (-0.3, -0.15), 0.33318426213483338),  # Case V
    ],
)
def test_calc_alpha_matches_drakes_limiter(lib, vt, dvt, alpha):
    got = cts.calc_alpha(vt, dvt, math.cos(math.pi / 6), 1e-4, 0.01, library=lib)
    assert abs(got - alpha) <= K_TOL * max(1.0, alpha)


def test_calc_alpha_without_solution_is_none(lib):
    vt = np.array([-0.5, 0.7])
    dvt = np.array([2.3490381056766578, math.inf])  # QuadraticNonPositive1
    assert cts.calc_alpha(vt, dvt, math.cos(math.pi / 6), 1e-4, 0.01, library=lib) is None


def test_version_and_status_strings(lib):
    assert cts.abi_version(lib) == cts.ABI_VERSION == 2
    major, minor, patch = (int(x) for x in cts.version(lib).split("."))
    assert (major, minor) == (0, cts.ABI_VERSION)  # the ABI version is the minor while 0.x
    assert cts.status_string(cts.Status.DIMENSION_MISMATCH, lib) == "dimension mismatch"
    assert cts.status_string(12345, lib) == "unknown status"
    for status in cts.Status:
        assert cts.status_string(status, lib) != "unknown status"
