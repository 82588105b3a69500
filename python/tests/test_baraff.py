"""Baraff pivoting through the package on docs/baraff.md §11's reference cases B1, B3 and B6
(values checked to 1e-6 where the spec prints six decimals, 1e-9 where they are exact)."""

import numpy as np
import pytest

import contact_solvers as cts

G = 9.81
RS = cts.BaraffRowSet


@pytest.mark.parametrize("fx, fn, ft, at, sets", [
    (3.0, 9.81, -3.0, 0.0, [RS.kClamped, RS.kClamped]),
    (6.0, 9.81, -4.905, 1.095, [RS.kClamped, RS.kAtLower]),
    (-6.0, 9.81, 4.905, -1.095, [RS.kClamped, RS.kAtUpper]),
])
def test_b1_particle_with_static_friction(fx, fn, ft, at, sets):
    rows = cts.BaraffRows()
    n = rows.add_normal()
    rows.add_friction(n, 0.5)
    with cts.BaraffSolver() as s:
        s.set_matrix_problem_data(np.eye(2), [-G, fx], rows)
        assert s.solve() is cts.BaraffOutcome.kSolved
        assert np.abs(s.forces() - [fn, ft]).max() < 1e-9
        assert np.abs(s.accelerations() - [0.0, at]).max() < 1e-9
        assert s.row_sets() == sets


def box_model():
    """The B3 box: m = 1, I = (1 + 0.25)/12, corners at r = (-0.5, -0.25), (0.5, -0.25)."""
    M = np.diag([1.0, 1.0, 1.25 / 12.0])
    J = np.array([[0.0, 1.0, -0.5], [0.0, 1.0, 0.5]])  # normal rows (0, 1, r_x)
    return M, J


def test_b3a_box_model_frictionless():
    M, J = box_model()
    rows = cts.BaraffRows()
    rows.add_normal()
    rows.add_normal()
    with cts.BaraffSolver() as s:
        s.set_model_problem_data(cts.BaraffLevel.kAcceleration, M, J, [0.0, -G, 0.0], rows)
        assert s.solve() is cts.BaraffOutcome.kSolved
        assert np.abs(s.composed_matrix() - [[3.4, -1.4], [-1.4, 3.4]]).max() < 1e-12
        assert np.abs(s.forces() - [4.905, 4.905]).max() < 1e-9
        assert np.abs(s.generalized_result()).max() < 1e-9


def test_b6_impulses_stop_the_box():
    M, J = box_model()
    rows = cts.BaraffRows()
    rows.add_normal()
    rows.add_normal()
    with cts.BaraffSolver() as s:
        s.set_model_problem_data(cts.BaraffLevel.kVelocity, M, J, [0.0, -1.0, 2.0], rows)
        assert s.needs_impulse()
        assert s.compute_impulses() is cts.BaraffOutcome.kSolved
        assert np.abs(s.forces() - [0.708333, 0.291667]).max() < 1e-6
        assert np.abs(s.generalized_result()).max() < 1e-9
        assert s.stats().iterations == 2


def test_baraff_usage_errors():
    rows = cts.BaraffRows()
    rows.add_friction(0, 0.5)  # friction row 0 owned by row 0, which is not a normal row
    with cts.BaraffSolver() as s:
        with pytest.raises(cts.ContactSolversError) as e:
            s.set_matrix_problem_data(np.eye(1), [1.0], rows)
        assert e.value.status is cts.Status.INVALID_ARGUMENT and e.value.message
        with pytest.raises(cts.ContactSolversError) as e:
            s.set_matrix_problem_data(np.eye(2), [1.0], cts.BaraffRows())
        assert e.value.status is cts.Status.DIMENSION_MISMATCH
        with pytest.raises(cts.ContactSolversError) as e:
            s.set_solver_parameters(cts.BaraffSolverParameters(tolerance=-1.0))
        assert e.value.status is cts.Status.INVALID_ARGUMENT
        assert s.get_solver_parameters() == cts.BaraffSolverParameters()
