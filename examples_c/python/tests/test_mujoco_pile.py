"""The MuJoCo engine example (``mujoco_pile.py``) on a small pile: MuJoCo computes the kinematics,
block-sparse TAMSI every contact step. Physics sanity over 100 steps of 1 ms: every solve
converges, the boxes press on the floor and on each other, the energy (kinetic + potential) never
rises above its start by more than 1%, and the pile comes to rest."""

import numpy as np

import contact_solvers as cts
import mujoco_pile


def test_small_pile_settles_without_energy_gain(lib):
    # Six boxes in a 2 × 2 grid, two of them stacked on the first two, all starting at rest just
    # touching (the lower ones on the floor, the upper ones on the lower ones).
    records = mujoco_pile.simulate(6, 100, seed=3, time_mujoco=True, library=lib, drop=0.0, gap=0.0,
                                   per_side=2)
    assert [r.outcome for r in records] == [cts.TamsiSolverResult.kSuccess] * 100
    assert all(r.mujoco_seconds > 0.0 for r in records)
    # Every box on the floor (4 corners each, MuJoCo's box-plane contacts) and box on box.
    assert records[-1].nc >= 16 and records[-1].nc_between_boxes >= 2
    e0 = records[0].energy
    assert e0 > 9.0  # 6 boxes of 1 kg, centres at 0.1 m and 0.3 m: 9.81 J
    assert max(r.energy for r in records) <= e0 + 0.01 * abs(e0)
    # At rest: every velocity below 1 cm/s over the last 10 steps, after the compliant contacts
    # took up the weight (the boxes sink about 1-2 mm at several cm/s first).
    assert max(r.max_speed for r in records[:30]) > 0.03
    assert max(r.max_speed for r in records[-10:]) < 0.01


def test_engine_preset_drop_penetrates_less_than_mujocos_own(lib):
    # The --compare table's two runs on a 10-box layered drop (0.3 s): the interior point at its
    # engine preset (0 failed solves, sub-0.1 mm penetration: docs/ipm.md §11.7) and MuJoCo's own
    # mj_step on the same model (soft contact: its boxes sink millimetres at the impacts).
    ipm = mujoco_pile.simulate_ipm(10, 300, seed=1, library=lib)
    assert all(r.outcome is cts.IpmOutcome.kConverged for r in ipm)
    ours = max(r.penetration for r in ipm)
    assert ours < 1e-4
    assert max(r.energy for r in ipm) <= ipm[0].energy + 1e-6 * abs(ipm[0].energy)
    theirs = max(p for p, _ in mujoco_pile.simulate_mujoco(10, 300, seed=1))
    assert theirs > 1e-3 and theirs > 10 * ours
