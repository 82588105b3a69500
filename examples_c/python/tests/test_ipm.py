"""The interior-point solver (cts_ipm_*) through the Python binding on the acceptance cases of
docs/ipm.md §9 (a point mass: 3 dofs, ground z = 0, t1 = x, t2 = y, n = z), with the
spec's tolerances, and its usage errors."""

import math

import numpy as np
import pytest

import contact_solvers as cts

G = 9.81
M_ = cts.IpmContactModel
S = cts.Status


def point_mass_data(x, v0, h, mu, model, force=(0.0, 0.0), mass=1.0):
    """M, Jn, Jt, v0, tau, h, phi, mu, models of one step of the point mass at x (gap = z)."""
    M = np.asfortranarray(mass * np.eye(3))
    Jn = np.array([[0.0, 0.0, 1.0]], order="F")
    Jt = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], order="F")
    tau = np.array([force[0], force[1], -mass * G])
    return (M, Jn, Jt, np.asarray(v0, dtype=float), tau, h, np.array([x[2]]), np.array([mu]),
            [model])


def solver(lib, btol, rtol, **kw):
    s = cts.IpmSolver(library=lib)
    kw.setdefault("dojo_compatible", True)  # the §9 reference numbers are Dojo's iteration's
    s.set_parameters(cts.IpmSolverParameters(btol=btol, rtol=rtol, **kw))
    return s


def simulate(lib, x0, v0, h, mu, model, steps, btol, rtol):
    """Semi-implicit Euler: v⁺ from the solve, x⁺ = x + h v⁺; per-step γn, x, v, outcome."""
    x, v = np.array(x0, dtype=float), np.array(v0, dtype=float)
    gamma, xs, vs, failures = [], [], [], 0
    with solver(lib, btol, rtol) as s:
        for _ in range(steps):
            s.set_problem_data(*point_mass_data(x, v, h, mu, model))
            if s.solve() is not cts.IpmOutcome.kConverged:
                failures += 1
            v = s.get_generalized_velocities()
            x = x + h * v
            gamma.append(s.get_impulses()[0])
            xs.append(x)
            vs.append(v)
    return np.array(gamma), np.array(xs), np.array(vs), failures


def test_parameters_defaults_round_trip(lib):
    with cts.IpmSolver(library=lib) as s:
        assert s.get_parameters() == cts.IpmSolverParameters()
        p = cts.IpmSolverParameters(rtol=1e-9, btol=1e-8, max_iter=80, fixed_kappa=1e-3,
                                    warm_start=True, newton_solve=cts.IpmNewtonSolve.kDense,
                                    rvio_floor_in_backtracking=True, dojo_compatible=True,
                                    tolerance=1e-10, complementarity_tolerance=1e-7,
                                    centrality_correctors=4, proximal_regularization=1e-3,
                                    normal_compliance=0.1, stall_iterations=30, num_threads=3)
        s.set_parameters(p)
        assert s.get_parameters() == p
        for bad in (257, -1):
            with pytest.raises(cts.ContactSolversError, match="num_threads"):
                s.set_parameters(cts.IpmSolverParameters(num_threads=bad))
        with pytest.raises(cts.ContactSolversError):
            s.set_parameters(cts.IpmSolverParameters(centrality_correctors=11))
        # Contact ids: copied, checked against the problem's contact count at the solve.
        s.set_contact_ids([3])
        s.set_contact_ids(None)
        assert cts.Status.IPM_ALMOST_CONVERGED == 43 and cts.IpmOutcome.kStalled == 44


@pytest.mark.parametrize("mode", list(cts.IpmNewtonSolve))
@pytest.mark.parametrize("force, vx, xi1", [(3.0, 0.0, -0.3), (6.0, 0.1095, -0.4905)],
                         ids=["stick", "slip"])
def test_a2_stick_and_slip(lib, mode, force, vx, xi1):
    # m = 1, h = 0.1, μ = 0.5, at rest on the ground, pushed with F; btol = rtol = 1e-8.
    with solver(lib, 1e-8, 1e-8, newton_solve=mode) as s:
        s.set_problem_data(*point_mass_data([0, 0, 0], [0, 0, 0], 0.1, 0.5, M_.kSecondOrderCone,
                                            force=(force, 0.0)))
        assert s.solve() is cts.IpmOutcome.kConverged
        v = s.get_generalized_velocities()
        impulses = s.get_impulses()
        assert np.abs(v - [vx, 0.0, 0.0]).max() < 1e-6
        assert np.abs(impulses - [0.981, xi1, 0.0]).max() < 1e-6  # γn = m g h, ξ = friction
        assert abs(s.get_primal()[1] - 0.4905) < 1e-6  # ξ0 = μ γn
        if force == 6.0:
            assert abs(s.get_dual()[1] - 0.1095) < 1e-6  # η0 = slip speed
        stats = s.get_stats()
        assert stats.outcome is cts.IpmOutcome.kConverged
        assert stats.iterations == 8  # the spec's fingerprint (≤ 15 required)
        assert stats.rvio < 1e-8 and stats.bvio < 1e-8 and stats.boundary_hits == 0
        assert abs(s.get_next_gaps()[0] - 0.1 * v[2]) <= 1e-15


def test_a2_iteration_fingerprint(lib):
    # F = 3, btol = rtol = 1e-6: 6 iterations and the rvio/bvio/κ/α histories of the spec.
    with solver(lib, 1e-6, 1e-6) as s:
        s.set_problem_data(*point_mass_data([0, 0, 0], [0, 0, 0], 0.1, 0.5, M_.kSecondOrderCone,
                                            force=(3.0, 0.0)))
        assert s.solve() is cts.IpmOutcome.kConverged
        assert s.get_stats().iterations == 6
        rv = [1.50, 3.25e-2, 6.36e-4, 3.33e-5, 1.56e-6, 7.77e-8, 3.88e-9]
        bv = [2.25, 3.12e-1, 3.07e-2, 3.34e-3, 1.76e-4, 8.79e-6, 4.39e-7]
        kp = [7.5e-3, 1.1e-3, 1.3e-4, 2.7e-6, 1.7e-8, 6.6e-10]
        np.testing.assert_allclose(s.get_rvio_history(), rv, rtol=0.005)
        np.testing.assert_allclose(s.get_bvio_history(), bv, rtol=0.005)
        np.testing.assert_allclose(s.get_kappa_history(), kp, rtol=0.05)
        alpha = s.get_alpha_history()
        assert alpha.shape == (6,) and ((alpha >= 0.945) & (alpha <= 0.985)).all()
        assert abs(s.get_primal()[0] - 0.9810008) < 5e-8
        assert abs(s.get_impulses()[1] + 0.2999979) < 5e-8


def test_a1_drop_and_rest(lib):
    # m = 1, h = 0.01, from z = 1 at rest, μ = 0.5, 200 steps, btol = rtol = 1e-8.
    gamma, xs, vs, failures = simulate(lib, [0, 0, 1], [0, 0, 0], 0.01, 0.5, M_.kSecondOrderCone,
                                       200, 1e-8, 1e-8)
    assert failures == 0
    assert abs(gamma[44] - 1.5335) < 1e-3  # first contact at step 45
    assert abs(gamma[45] - 2.9791) < 1e-3  # stops at step 46
    assert np.abs(gamma[49:] - 0.0981).max() < 1e-6  # resting: m g h
    assert xs[:, 2].min() > -1e-8
    assert np.abs(vs[-1]).max() < 1e-8


@pytest.mark.parametrize(
    "model, final_xy, stop_step, heading_deg, heading_tol",
    [(M_.kSecondOrderCone, (3.306604, 0.661321), 167, math.degrees(math.atan(0.2)), 1e-6),
     (M_.kLinear, (3.372484, 1.300788), 196, 21.09, 0.005)],
    ids=["A3-cone", "A4-linear"],
)
def test_a3_a4_sliding(lib, model, final_xy, stop_step, heading_deg, heading_tol):
    # m = 1, h = 0.01, μ = 0.25, on the ground with v0 = (4, 0.8, 0), 250 steps, 1e-6 tolerances:
    # the cone slides straight, the linear model drifts sideways.
    _, xs, vs, failures = simulate(lib, [0, 0, 0], [4, 0.8, 0], 0.01, 0.25, model, 250,
                                   1e-6, 1e-6)
    assert failures == 0
    x, y = xs[-1, 0], xs[-1, 1]
    assert abs(x - final_xy[0]) < 1e-4 and abs(y - final_xy[1]) < 1e-4
    assert abs(math.degrees(math.atan2(y, x)) - heading_deg) < max(heading_tol, 1e-6 * 180 / math.pi)
    speed = np.hypot(vs[:, 0], vs[:, 1])
    assert speed[stop_step - 1] < 1e-3 < speed[stop_step - 2]
    if model is M_.kSecondOrderCone:
        assert abs(math.atan2(y, x) - math.atan(0.2)) < 1e-6
        assert np.abs(vs[-1]).max() < 1e-8


A6 = {
    1e-2: [(2.922144e-2, 4.605945e-3), (3.112673e-2, 4.920953e-3), (3.162278e-2, 5.000000e-3),
           (3.212673e-2, 5.079047e-3), (3.422144e-2, 5.394055e-3)],
    1e-4: [(1.531129e-3, 1.899132e-3), (2.701562e-3, 4.219131e-3), (3.162278e-3, 5.000000e-3),
           (3.701562e-3, 5.780869e-3), (6.531129e-3, 8.100868e-3)],
    1e-6: [(1.992063e-5, 3.952631e-5), (9.160798e-5, 7.742287e-4), (3.162278e-4, 5.000000e-3),
           (1.091608e-3, 9.225771e-3), (5.019921e-3, 9.960474e-3)],
}


def a6_data(force):
    # 1-D impact: m = 1, g = 1, h = 0.1, z0 = 0, v0 = 0, upward force F: τ = F − m g.
    return (np.ones((1, 1)), np.ones((1, 1)), np.zeros((2, 1)), np.zeros(1),
            np.array([force - 1.0]), 0.1, np.zeros(1), np.zeros(1), [M_.kImpact])


def a6_solver(lib, kappa, mode):
    return solver(lib, 1e-15, 1e-14, max_iter=200, fixed_kappa=kappa, newton_solve=mode)


@pytest.mark.parametrize("mode", list(cts.IpmNewtonSolve))
@pytest.mark.parametrize("kappa", sorted(A6))
def test_a6_fixed_kappa_sensitivities(lib, kappa, mode):
    # Central path m v = h(F − m g) + κ/(h v), z⁺ = h v; dz⁺/dF from the sensitivity API matches
    # the closed form to 1e-8, the spec's table to 1e-6, and a central finite difference to 1e-6.
    m, g, h = 1.0, 1.0, 0.1
    for force, (z_tab, dz_tab) in zip([0.5, 0.9, 1.0, 1.1, 1.5], A6[kappa]):
        with a6_solver(lib, kappa, mode) as s:
            s.set_problem_data(*a6_data(force))
            assert s.solve() is cts.IpmOutcome.kConverged
            s.compute_sensitivities()
            z = h * s.get_generalized_velocities()[0]
            dv_dtau = s.get_velocity_sensitivity(cts.IpmSensitivityParameter.kTau)
            dl_dtau = s.get_impulse_sensitivity(cts.IpmSensitivityParameter.kTau)
            assert dv_dtau.shape == (1, 1) and dl_dtau.shape == (3, 1)
            dz = h * dv_dtau[0, 0]
            a = h * h * (force - m * g)
            root = math.sqrt(h**4 * (force - m * g) ** 2 + 4 * m * h * kappa)
            z_exact = h * (a + root) / (2 * m * h)
            dz_exact = h * h / (2 * m) * (1 + a / root)
            assert abs(z / z_exact - 1) < 1e-8 and abs(dz / dz_exact - 1) < 1e-8
            assert abs(z / z_tab - 1) < 1e-6 and abs(dz / dz_tab - 1) < 1e-6
            # Momentum balance γ = m v − h(F − m g): dγ/dF = m dv/dF − h.
            assert abs(dl_dtau[0, 0] - (m * dv_dtau[0, 0] - h)) < 1e-12
            assert (dl_dtau[1:, 0] == 0.0).all()
            # ∂v/∂v0 = m / D, D = m + κ h / z⁺².
            dv_dv0 = s.get_velocity_sensitivity(cts.IpmSensitivityParameter.kV0)
            assert abs(dv_dv0[0, 0] / (m / (m + kappa * h / z_exact**2)) - 1) < 1e-8
            mu_cols = s.get_velocity_sensitivity(cts.IpmSensitivityParameter.kMu)
            assert mu_cols.shape == (1, 1) and mu_cols[0, 0] == 0.0

        d = 1e-6 * force

        def z_of(f):
            with a6_solver(lib, kappa, mode) as s:
                s.set_problem_data(*a6_data(f))
                s.solve()
                return h * s.get_generalized_velocities()[0]

        fd = (z_of(force + d) - z_of(force - d)) / (2 * d)
        assert abs(dz / fd - 1) < 1e-6


def test_ipm_usage_errors(lib):
    data = point_mass_data([0, 0, 0], [0, 0, 0], 0.1, 0.5, M_.kSecondOrderCone)
    with cts.IpmSolver(library=lib) as s:
        with pytest.raises(cts.ContactSolversError) as e:
            s.solve()
        assert e.value.status is S.NO_PROBLEM_DATA and e.value.message == s.last_error() != ""
        bad_h = list(data)
        bad_h[5] = -0.1
        with pytest.raises(cts.ContactSolversError) as e:
            s.set_problem_data(*bad_h)
        assert e.value.status is S.INVALID_ARGUMENT and "h" in e.value.message
        bad_model = list(data)
        bad_model[8] = [7]
        with pytest.raises(cts.ContactSolversError) as e:
            s.set_problem_data(*bad_model)
        assert e.value.status is S.INVALID_ARGUMENT
        with pytest.raises(cts.ContactSolversError) as e:
            s.set_problem_data(*data, vt_offset=np.zeros(3))
        assert e.value.status is S.DIMENSION_MISMATCH and "vt_offset" in e.value.message
        assert s.num_contacts == 0  # nothing was set
        s.set_problem_data(*data)
        with pytest.raises(cts.ContactSolversError) as e:
            s.get_generalized_velocities()
        assert e.value.status is S.NO_SOLUTION
        assert s.solve() is cts.IpmOutcome.kConverged
        with pytest.raises(cts.ContactSolversError) as e:
            s.get_velocity_sensitivity(cts.IpmSensitivityParameter.kPhi)
        assert e.value.status is S.NO_SOLUTION  # compute_sensitivities not called
        with pytest.raises(cts.ContactSolversError) as e:
            s.solve_with_guess(np.zeros(2))
        assert e.value.status is S.DIMENSION_MISMATCH
        with pytest.raises(cts.ContactSolversError) as e:
            s.set_parameters(cts.IpmSolverParameters(max_ls=0))
        assert e.value.status is S.INVALID_ARGUMENT and "max_ls" in e.value.message


def test_ipm_max_iterations_is_an_outcome_and_clone_is_independent(lib):
    data = point_mass_data([0, 0, 0], [0, 0, 0], 0.1, 0.5, M_.kSecondOrderCone, force=(6.0, 0.0))
    with solver(lib, 1e-8, 1e-8, max_iter=3) as s:
        s.set_problem_data(*data)
        assert s.solve() is cts.IpmOutcome.kMaxIterationsReached
        assert "rvio" in s.last_error()  # the outcome's detail, until the next call
        stats = s.get_stats()
        assert stats.outcome is cts.IpmOutcome.kMaxIterationsReached and stats.iterations == 3
        assert s.get_rvio_history().shape == (4,)
        with s.clone() as c:
            assert c.num_contacts == 0 and c.get_parameters().max_iter == 3
            c.set_parameters(cts.IpmSolverParameters(btol=1e-8, rtol=1e-8, dojo_compatible=True))
            c.set_problem_data(*data)
            assert c.solve() is cts.IpmOutcome.kConverged
            assert abs(c.get_generalized_velocities()[0] - 0.1095) < 1e-6


def test_engine_preset_round_trip(lib):
    """``IpmSolverParameters.engine()`` is the C preset (``cts_ipm_parameters_engine``) and a
    solver keeps it (issue 30, docs/ipm.md §11.7)."""
    p = cts.IpmSolverParameters.engine()
    assert p.near_rigid_beta == 1.0 and p.natural_map_tolerance == 0.0
    assert cts.IpmSolverParameters().near_rigid_beta == 0.0
    with cts.IpmSolver(library=lib) as s:
        s.set_parameters(p)
        assert s.get_parameters() == p
