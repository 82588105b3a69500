"""TAMSI sensitivities from Python (``compute_sensitivities``, the three getters, ``vjp``;
docs/tamsi_sensitivities.md): on the sliding box of ``estimate_friction.py`` (four corners, two
sliding directions and a spin) every Jacobian matches central differences of tightly converged
solves to 1e-6 relative, the product equals gᵀ·(full Jacobian) to round-off, the example's
back-propagated dL/dμ matches a central difference of its loss, its estimate recovers μ to 1e-3
relative, and misuse raises with the library's status."""

import numpy as np
import pytest

import contact_solvers as cts
import estimate_friction as ex

P = cts.TamsiSensitivityParameter
S = cts.Status
TIGHT = cts.TamsiSolverParameters(stiction_tolerance=1e-4, relative_tolerance=1e-8,
                                  max_iterations=200)


def box_data(two_way=True):
    """The example's box mid-slide: v, p*, fn0, k, d, μ (slightly different per corner)."""
    M, Jn, Jt, f_ext = ex.box_model()
    v = np.array([0.6, 0.1, -1e-4, 0.05, -0.02, 0.4])
    data = dict(M=M, Jn=Jn, Jt=Jt, p_star=M @ v + ex.DT * f_ext, v=v,
                fn0=np.array([2.2, 2.6, 2.4, 2.7]), k=np.full(4, ex.STIFFNESS),
                d=np.full(4, ex.DISSIPATION), mu=np.array([0.3, 0.35, 0.4, 0.45]), dt=ex.DT)
    data["two_way"] = two_way
    return data


def solver_for(data, params=TIGHT):
    s = cts.TamsiSolver(6)
    s.set_solver_parameters(params)
    if data["two_way"]:
        s.set_two_way_coupled_problem_data(data["M"], data["Jn"], data["Jt"], data["p_star"],
                                           data["fn0"], data["k"], data["d"], data["mu"], copy=True)
    else:
        s.set_one_way_coupled_problem_data(data["M"], data["Jn"], data["Jt"], data["p_star"],
                                           data["fn0"], data["mu"], copy=True)
    return s


def outputs(data):
    """(v, fn, ft) of a tight solve of ``data``."""
    s = solver_for(data)
    assert s.solve_with_guess(data["dt"], data["v"]) == cts.TamsiSolverResult.kSuccess
    return [s.get_generalized_velocities(), s.get_normal_forces(), s.get_friction_forces()]


KEYS = {P.kPStar: "p_star", P.kNormalForce: "fn0", P.kFn0: "fn0", P.kStiffness: "k",
        P.kDissipation: "d", P.kMu: "mu", P.kTimeStep: "dt"}


def central_differences(data, parameter):
    """∂(v, fn, ft)/∂θ by central differences, column by column."""
    key = KEYS[parameter]
    theta = np.atleast_1d(np.asarray(data[key], dtype=float))
    columns = [[], [], []]
    for j in range(theta.size):
        h = 1e-6 * max(1.0, abs(theta[j]))
        sides = []
        for sign in (1.0, -1.0):
            changed = dict(data)
            t = theta.copy()
            t[j] += sign * h
            changed[key] = t if np.ndim(data[key]) else float(t[0])
            sides.append(outputs(changed))
        for o in range(3):
            columns[o].append((sides[0][o] - sides[1][o]) / (2 * h))
    return [np.column_stack(c) for c in columns]


@pytest.mark.parametrize("two_way", [True, False])
def test_jacobians_match_central_differences(lib, two_way):
    data = box_data(two_way)
    s = solver_for(data)
    assert s.solve_with_guess(data["dt"], data["v"]) == cts.TamsiSolverResult.kSuccess
    assert s.is_two_way_coupled == two_way
    slip = np.linalg.norm(s.get_tangential_velocities().reshape(4, 2), axis=1)
    assert slip.min() > 100 * TIGHT.stiction_tolerance, "every corner slides (away from the kink)"
    s.compute_sensitivities()
    scheme = ([P.kFn0, P.kStiffness, P.kDissipation] if two_way else [P.kNormalForce])
    for parameter in [P.kPStar, P.kMu, P.kTimeStep] + scheme:
        want = central_differences(data, parameter)
        got = [s.get_velocity_sensitivity(parameter), s.get_normal_force_sensitivity(parameter),
               s.get_friction_force_sensitivity(parameter)]
        for name, g, w in zip(("v", "fn", "ft"), got, want):
            assert g.shape == w.shape and g.flags.f_contiguous
            scale = np.abs(w).max()
            if name == "fn" and not two_way:
                # One-way fn is the input: identity for fn, zero otherwise.
                exact = np.eye(4) if parameter == P.kNormalForce else np.zeros_like(g)
                np.testing.assert_array_equal(g, exact)
                continue
            assert scale > 0, (parameter, name)
            err = np.abs(g - w).max()
            assert err <= 1e-6 * scale, f"d{name}/d{parameter.name}: {err:.2e} (scale {scale:.2e})"


def test_vjp_is_gradient_times_jacobian(lib):
    data = box_data()
    s = solver_for(data)
    s.solve_with_guess(data["dt"], data["v"])
    rng = np.random.default_rng(3)
    g, gfn, gft = rng.standard_normal(6), rng.standard_normal(4), rng.standard_normal(8)
    grad = s.vjp(g, gfn, gft)  # before compute_sensitivities: allowed
    s.compute_sensitivities()
    for parameter, got in [(P.kPStar, grad.p_star), (P.kFn0, grad.normal),
                           (P.kStiffness, grad.stiffness), (P.kDissipation, grad.dissipation),
                           (P.kMu, grad.mu), (P.kTimeStep, np.array([grad.dt]))]:
        parts = [g @ s.get_velocity_sensitivity(parameter),
                 gfn @ s.get_normal_force_sensitivity(parameter),
                 gft @ s.get_friction_force_sensitivity(parameter)]
        scale = sum(np.abs(p).max() for p in parts)
        np.testing.assert_allclose(got, sum(parts), rtol=0, atol=1e-13 * scale)
    # Missing force gradients are zeros.
    only_v = s.vjp(g)
    np.testing.assert_allclose(only_v.mu, g @ s.get_velocity_sensitivity(P.kMu), rtol=1e-13)


def test_one_way_has_no_stiffness_gradient(lib):
    data = box_data(two_way=False)
    s = solver_for(data)
    s.solve_with_guess(data["dt"], data["v"])
    grad = s.vjp(np.ones(6))
    assert grad.stiffness is None and grad.dissipation is None and grad.normal.shape == (4,)
    s.compute_sensitivities()
    with pytest.raises(cts.ContactSolversError) as e:
        s.get_velocity_sensitivity(P.kStiffness)
    assert e.value.status == S.INVALID_ARGUMENT


def test_misuse_raises(lib):
    data = box_data()
    s = solver_for(data)
    with pytest.raises(cts.ContactSolversError) as e:
        s.compute_sensitivities()
    assert e.value.status == S.NO_SOLUTION
    s.solve_with_guess(data["dt"], data["v"])
    with pytest.raises(cts.ContactSolversError) as e:
        s.get_velocity_sensitivity(P.kMu)  # not computed yet
    assert e.value.status == S.NO_SOLUTION
    with pytest.raises(cts.ContactSolversError) as e:
        s.vjp(np.ones(5))
    assert e.value.status == S.DIMENSION_MISMATCH
    short = solver_for(data, cts.TamsiSolverParameters(max_iterations=1,
                                                       relative_tolerance=1e-8))
    assert short.solve_with_guess(data["dt"], data["v"] * 0) != cts.TamsiSolverResult.kSuccess
    for call in (short.compute_sensitivities, lambda: short.vjp(np.ones(6))):
        with pytest.raises(cts.ContactSolversError) as e:
            call()
        assert e.value.status == S.NO_SENSITIVITIES
        assert "did not converge" in str(e.value)
    assert cts.status_string(107) == "no sensitivities (the solve did not converge)"


def test_example_gradient_matches_central_difference(lib):
    sim = ex.Simulation(steps=60)
    recorded = ex.record(sim, noise=1e-4)
    mu, h = 0.3, 1e-6
    _, grad = sim.loss_and_gradient(mu, recorded)
    plus, _ = sim.loss_and_gradient(mu + h, recorded)
    minus, _ = sim.loss_and_gradient(mu - h, recorded)
    want = (plus - minus) / (2 * h)
    assert abs(grad - want) <= 1e-6 * abs(want), (grad, want)


def test_example_recovers_mu(lib):
    mu, history, _, _ = ex.estimate()
    assert abs(mu - ex.MU_TRUE) <= 1e-3 * ex.MU_TRUE, (mu, history[-3:])
    assert history[-1][1] < 1e-3 * history[0][1]
