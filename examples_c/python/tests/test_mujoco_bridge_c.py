"""The C bridge (``mujoco_bridge.c``), built here with the system's C compiler against MuJoCo's
wheel and the library under test, against the Python bridge (``mujoco_bridge.contact_step`` +
``mujoco_pile.block_step``) on a small pile: the same state gives the same arrays bit for bit
(with the chain-only Jacobian columns and with mj_jac), the same solver outputs bit for bit, and a
loop stepped by the C bridge follows the Python loop's trajectory bit for bit."""

import shutil

import numpy as np
import pytest

import mujoco

import contact_solvers as cts
import mujoco_bridge as bridge
import mujoco_bridge_c as bc
import mujoco_pile as mp
from mujoco_bridge_c import Array


@pytest.fixture(scope="module")
def cbridge(lib, tmp_path_factory):
    assert shutil.which("cc"), "no system C compiler (cc) to build mujoco_bridge.c"
    path = bc.build(lib.path, tmp_path_factory.mktemp("mujoco_bridge_c"))
    with bc.CBridge(lib, path) as b:
        yield b


def python_arrays(model, data) -> dict:
    s = mp.block_step(model, data)
    return {
        Array.TREE_DOFS: s.tree_dofs, Array.M: s.M, Array.CONTACT_TREES: s.contact_trees.ravel(), Array.J: s.J,
        Array.P_STAR: s.p_star, Array.V0: s.v0, Array.FN0: s.fn0, Array.STIFFNESS: s.stiffness,
        Array.DISSIPATION: s.dissipation, Array.MU: s.mu, Array.PHI: s.step.phi(), Array.TAU: s.step.tau,
    }  # not MODELS and IDS: the interior point's (checked by the last test)


def assert_same_bits(a: np.ndarray, b: np.ndarray, what: str) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape, f"{what}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
    assert a.tobytes() == b.tobytes(), f"{what}: differs at {np.flatnonzero(a != b)[:5]}"


def outputs(solver: cts.TamsiSolver) -> list:
    return [solver.get_generalized_velocities(), solver.get_normal_forces(), solver.get_friction_forces()]


def test_c_bridge_gives_the_python_bridges_bits(lib, cbridge):
    # Six boxes in a 2 × 2 grid, two stacked on the first two, touching from the start (the layout
    # of test_mujoco_pile.py): floor contacts (one tree) and box-on-box contacts (two trees).
    model, data = mp.pile(6, 3, drop=0.0, gap=0.0, per_side=2)
    c_data = mujoco.MjData(model)
    mujoco.mj_copyData(c_data, model, data)
    scratch = mujoco.MjData(model)
    pairs_seen, ncs = 0, []
    with cts.TamsiSolver(model.nv, library=lib) as py_solver, cts.TamsiSolver(model.nv, library=lib) as c_solver:
        for step in range(25):
            # The same state through both bridges (and the C bridge's mj_jac variant).
            mujoco.mj_copyData(scratch, model, data)
            py = python_arrays(model, scratch)
            for flags in (bc.STAGES, bc.STAGES | bc.MJ_JAC):
                mujoco.mj_copyData(scratch, model, data)
                c = cbridge.extract(model, scratch, mp.STIFFNESS, mp.DISSIPATION, flags)
                for a in py:
                    assert_same_bits(py[a], c[a], f"step {step}, flags {flags}, {a.name}")
            nc = py[Array.MU].size
            ncs.append(nc)
            pairs_seen = max(pairs_seen, int(np.sum(py[Array.CONTACT_TREES][1::2] >= 0)))
            # One step of each loop: Python prepares and sets, C does it all and advances MuJoCo.
            s = mp.block_step(model, data)
            py_outcome, _, _ = mp.solve_blocks(py_solver, s)
            bridge.advance(model, data, py_solver.get_generalized_velocities())
            mp.mujoco_stages(model, c_data)
            c_outcome, seconds, _ = mp.c_step(cbridge, c_solver, model, c_data)
            assert py_outcome is c_outcome is cts.TamsiSolverResult.kSuccess
            assert all(t >= 0.0 for t in seconds)
            assert c_solver.num_contacts == nc
            for x, y, what in zip(outputs(py_solver), outputs(c_solver), ("v", "fn", "ft")):
                assert_same_bits(x, y, f"step {step}: {what}")
            assert_same_bits(np.array(data.qpos), np.array(c_data.qpos), f"step {step}: qpos")
            assert_same_bits(np.array(data.qvel), np.array(c_data.qvel), f"step {step}: qvel")
            assert data.time == c_data.time
            # Grown once, then no allocation: the buffers stay where they are (same contact count).
            addresses = [cbridge.address(a) for a in Array]
            if step == 5:
                grown = addresses
            elif step > 5:
                assert addresses == grown
    print("contacts per step", ncs)
    assert min(ncs[10:]) >= 16  # 4 corners per box on the floor, once they have sunk in
    assert pairs_seen >= 2  # the stacked boxes touch the ones below
    assert np.max(np.abs(data.qvel)) > 1e-3  # the boxes moved: the trajectory is not trivial


def test_c_bridge_passes_the_setters_status_and_keeps_the_state(lib, cbridge):
    # A solver sized for another model: the trees' 36 dofs do not add up to its nv, the set call
    # refuses (DIMENSION_MISMATCH, named in its message) and MuJoCo's state is not advanced.
    model, data = mp.pile(6, 3, drop=0.0, gap=0.0, per_side=2)
    mp.mujoco_stages(model, data)
    qpos = np.array(data.qpos)
    with cts.TamsiSolver(model.nv + 6, library=lib) as solver:
        with pytest.raises(cts.ContactSolversError) as err:
            mp.c_step(cbridge, solver, model, data)
    assert err.value.status == cts.Status.DIMENSION_MISMATCH
    assert "42" in str(err.value) and "36" in str(err.value)
    assert np.array_equal(np.array(data.qpos), qpos) and data.time == 0.0


def test_c_bridge_interior_point_step_gives_the_python_loops_bits(lib, cbridge):
    # The --ipm loop (engine preset, every pair closer than 5 mm, warm start by contact id) on the
    # six touching boxes: the C step's inputs (ids included) and results equal the Python step's.
    model, data = mp.pile(6, 3, drop=0.0, gap=0.0, per_side=2)
    model.geom_margin[:] = 0.005
    c_data = mujoco.MjData(model)
    mujoco.mj_copyData(c_data, model, data)
    params = cts.IpmSolverParameters.engine()
    iterations = []
    with cts.IpmSolver(library=lib) as py_solver, cts.IpmSolver(library=lib) as c_solver:
        py_solver.set_parameters(params)
        c_solver.set_parameters(params)
        for step in range(15):
            py_outcome, _, nc, py_phi = mp.ipm_step_python(py_solver, model, data)
            c_outcome, seconds, c_nc, c_phi = mp.ipm_step_c(cbridge, c_solver, model, c_data)
            assert py_outcome is c_outcome is cts.IpmOutcome.kConverged, (step, py_outcome, c_outcome)
            assert nc == c_nc and nc >= 16
            assert_same_bits(py_phi, c_phi, f"step {step}: phi")
            ids = cbridge.array(Array.IDS)
            assert ids.size == nc and len(set(ids.tolist())) == nc  # distinct: the warm start's keys
            assert_same_bits(cbridge.array(Array.MODELS),
                             np.full(nc, int(cts.IpmContactModel.kSecondOrderCone), dtype=np.int32), "models")
            for x, y, what in ((py_solver.get_generalized_velocities(), c_solver.get_generalized_velocities(), "v"),
                               (py_solver.get_impulses(), c_solver.get_impulses(), "impulses")):
                assert_same_bits(x, y, f"step {step}: {what}")
            assert py_solver.get_stats().iterations == c_solver.get_stats().iterations
            iterations.append(c_solver.get_stats().iterations)
            assert_same_bits(np.array(data.qpos), np.array(c_data.qpos), f"step {step}: qpos")
            assert_same_bits(np.array(data.qvel), np.array(c_data.qvel), f"step {step}: qvel")
    assert max(iterations) >= 3  # real solves, not a trivial problem
