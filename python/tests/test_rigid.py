"""Drake's ConstraintSolver through the package: a 2-D point mass (m = 1 kg, x tangent, y normal)
on the ground, with its Jacobians as matrices and as Python callables, and a callback that
raises. The numbers are Newton's: at rest, fN = m g and static friction cancels the push; at an
impact with v = (1, -2) m/s and mu = 1, the impulse stops the mass, (fN, fF) = (2, -1) N·s."""

import numpy as np
import pytest

import contact_solvers as cts

N = np.array([[0.0, 1.0]])  # normal velocity = vy
F = np.array([[1.0, 0.0]])  # tangential velocity = vx


def accel_data(push, operators):
    d = cts.ConstraintAccelProblemData(
        tau=np.array([push, -9.81]), non_sliding_contacts=[0], r=[1], mu_non_sliding=[0.5],
        kN=[0.0], kF=[0.0], solve_inertia=cts.InertiaSolve.matrix(np.eye(2)))
    if operators == "matrices":
        d.N_mult = d.N_minus_muQ_transpose_mult = N
        d.F_mult = d.F_transpose_mult = F
    else:
        d.N_mult = lambda v: N @ v
        d.N_minus_muQ_transpose_mult = lambda f: N.T @ f
        d.F_mult = lambda v: F @ v
        d.F_transpose_mult = lambda f: F.T @ f
        d.solve_inertia = lambda b: b.copy()
    return d


@pytest.mark.parametrize("operators", ["matrices", "callables"])
def test_point_mass_at_rest_sticks(operators):
    with cts.ConstraintSolver() as solver:
        outcome, cf = solver.solve_constraint_problem(accel_data(2.0, operators))
        assert outcome is cts.RigidOutcome.kSolved
        assert np.abs(cf - [9.81, -2.0]).max() < 1e-12  # fN = m g; friction cancels the 2 N push
        a = solver.compute_generalized_acceleration(accel_data(2.0, operators), cf)
        assert np.abs(a).max() < 1e-12


@pytest.mark.parametrize("operators", ["matrices", "callables"])
def test_impact_stops_the_point_mass(operators):
    d = cts.ConstraintVelProblemData(Mv=np.array([1.0, -2.0]), mu=[1.0], r=[1], kN=[0.0], kF=[0.0],
                                     solve_inertia=cts.InertiaSolve.inverse(np.eye(2)))
    if operators == "matrices":
        d.N_mult = d.N_transpose_mult = N
        d.F_mult = d.F_transpose_mult = F
    else:
        d.N_mult, d.N_transpose_mult = (lambda v: N @ v), (lambda f: N.T @ f)
        d.F_mult, d.F_transpose_mult = (lambda v: F @ v), (lambda f: F.T @ f)
    with cts.ConstraintSolver() as solver:
        outcome, cf = solver.solve_impact_problem(d)
        assert outcome is cts.RigidOutcome.kSolved
        assert np.abs(cf - [2.0, -1.0]).max() < 1e-12
        dv = solver.compute_generalized_velocity_change(d, cf)
        assert np.abs(dv - [-1.0, 2.0]).max() < 1e-12


def test_callback_exception_becomes_callback_failed_with_its_text():
    d = accel_data(2.0, "callables")

    def broken(v):
        raise ValueError("the engine's Jacobian is not ready")

    d.N_mult = broken
    with cts.ConstraintSolver() as solver:
        with pytest.raises(cts.ContactSolversError) as e:
            solver.solve_constraint_problem(d)
        assert e.value.status is cts.Status.CALLBACK_FAILED
        assert "the engine's Jacobian is not ready" in e.value.message
        assert isinstance(e.value.__cause__, ValueError)
        d.N_mult = lambda v: np.zeros(3)  # wrong size: also a callback failure, with the sizes
        with pytest.raises(cts.ContactSolversError) as e:
            solver.solve_constraint_problem(d)
        assert e.value.status is cts.Status.CALLBACK_FAILED and "expected 1" in e.value.message
        # The solver stays usable.
        outcome, cf = solver.solve_constraint_problem(accel_data(2.0, "callables"))
        assert outcome is cts.RigidOutcome.kSolved and abs(cf[0] - 9.81) < 1e-12


def test_rigid_usage_errors():
    with cts.ConstraintSolver() as solver:
        d = accel_data(2.0, "matrices")
        d.N_mult = np.eye(2)
        with pytest.raises(cts.ContactSolversError) as e:
            solver.solve_constraint_problem(d)
        assert e.value.status is cts.Status.DIMENSION_MISMATCH
        d = accel_data(2.0, "matrices")
        d.tau = np.array([np.nan, -9.81])
        with pytest.raises(cts.ContactSolversError) as e:
            solver.solve_constraint_problem(d)
        assert e.value.status is cts.Status.INVALID_ARGUMENT and "finite" in e.value.message
        assert solver.get_parameters() == cts.ConstraintSolverParameters()
        solver.set_parameters(cts.ConstraintSolverParameters.drake_head())
        assert solver.get_parameters() == cts.ConstraintSolverParameters.drake_head()


def test_callbacks_live_as_long_as_the_library_may_call_them():
    # The solver keeps the callables (and their ctypes trampolines) of each level while that
    # level's data is set in the library; close() releases them.
    import gc
    import weakref

    class Jacobian:
        def __call__(self, v):
            return N @ v

    n_mult = Jacobian()
    alive = weakref.ref(n_mult)
    d = accel_data(2.0, "callables")
    d.N_mult = n_mult
    solver = cts.ConstraintSolver()
    outcome, cf = solver.solve_constraint_problem(d)
    assert outcome is cts.RigidOutcome.kSolved
    del d, n_mult
    gc.collect()
    assert alive() is not None  # the library still holds the accel data
    # Velocity-level data does not release the acceleration level's callbacks.
    solver.solve_impact_problem(cts.ConstraintVelProblemData(
        Mv=np.zeros(2), solve_inertia=cts.InertiaSolve.matrix(np.eye(2))))
    gc.collect()
    assert alive() is not None
    solver.close()
    gc.collect()
    assert alive() is None
    solver.close()  # idempotent
    with pytest.raises(cts.ContactSolversError) as e:
        solver.solve_constraint_problem(accel_data(2.0, "matrices"))
    assert e.value.status is cts.Status.NULL_POINTER
