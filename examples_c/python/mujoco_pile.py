"""A pile of boxes dropped into a bin: MuJoCo computes the kinematics (positions, M, bias forces,
contacts, contact Jacobians), the library's block-sparse TAMSI does the contact step.

Each step: MuJoCo's position/velocity/acceleration stages give the state in tree form
(``mujoco_bridge.contact_step``: one 6×6 M block per box, one 3×6 Jacobian block per box a
contact touches); the touching contacts (φ < 0) become two-way TAMSI data with k = 9810 N/m
(k = m g / δ for 1 kg and δ = 1 mm), d = 10.0964 s/m and fn0 = k·max(0, −φ); TAMSI's next
velocities step MuJoCo's positions (``mujoco_bridge.advance``). On the same state MuJoCo's own
constraint solve (``mj_fwdConstraint``, warm-started from the previous step, default settings) is
timed for comparison; MuJoCo solves its own soft, pyramidal problem, so its time is a sense of
scale, not a like-for-like comparison.

Boxes: 0.2 m cubes of 1 kg, μ 0.5, in a 2 m × 2 m walled bin, dt = 1 ms (the setup of the
engine scenes in ``tests/data/README.md``).

``--bridge c`` does each TAMSI step through the C bridge (``mujoco_bridge.c``, built on first use
with the system's C compiler, see ``mujoco_bridge_c.py``): the extraction of the block data, the
set call, the solve and MuJoCo's advance are one Python-level call, on arrays bit-identical to the
Python bridge's (the default, ``--bridge python``). With ``--scaling`` it also times the Python
bridge's set + solve on the same states with a second solver. ``--ipm --bridge c`` does the
interior point's steps through the C bridge the same way (``ctsmj_ipm_step``).

``--ipm`` runs the interior point at its engine preset instead (``IpmSolverParameters.engine()``,
docs/ipm.md §11.7: per-contact near-rigid normal regularization, exact Coulomb cone) on the same
block data with every pair closer than 5 mm (geom margin 5 mm, so that contacts are seen a step
before they close), warm-started by contact id (the geom pair and the contact's index in it), and
prints the outcome, iterations and the largest penetration (−φ) per step.

Usage (from this folder, with the library built and ``pip install mujoco numpy matplotlib``)::

    python mujoco_pile.py --boxes 50 --steps 300          # per-step printout
    python mujoco_pile.py --ipm --boxes 200 --steps 3000  # the interior point, engine preset
    python mujoco_pile.py --compare 50 200 --steps 3000   # beside MuJoCo's own drop (a table)
    python mujoco_pile.py --scaling 10 25 50 100 200 --plot ../../docs/engine_scaling.png
    python mujoco_pile.py --bridge c --scaling 50 100 200 --settle 3000 --measure 30

The library is found as ``contact_solvers.load_library`` says (``CONTACT_SOLVERS_LIB``, the
repository's build, or the system's).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

import numpy as np

import mujoco

import contact_solvers as cts
import mujoco_bridge as bridge

HALF = 0.1  # box half size, m
MASS = 1.0  # kg
MU = 0.5
DT = 1e-3  # s
STIFFNESS = 9810.0  # N/m: m g / δ with δ = 1 mm
DISSIPATION = 10.096375546923044  # s/m: sqrt(m / k) / δ
BIN = 1.0  # half width of the bin, m


def pile_xml(n_boxes: int, seed: int = 1, drop: float = 0.05, gap: float = 0.05,
             per_side: int = 9) -> str:
    """A MuJoCo model of ``n_boxes`` boxes above a floor inside four walls, in layers of a
    ``per_side`` × ``per_side`` grid (0.22 m apart) with a little jitter in position and yaw; the
    lowest layer starts ``drop`` m above the floor, each layer ``gap`` m above the one below."""
    bodies = bridge.box_layers(n_boxes, seed, HALF, f"{MASS}", drop, gap, per_side)
    wall = 0.05
    walls = "".join(
        f'<geom type="box" size="{sx} {sy} 0.5" pos="{px} {py} 0.5"/>'
        for sx, sy, px, py in [
            (wall, BIN + 2 * wall, BIN + wall, 0),
            (wall, BIN + 2 * wall, -BIN - wall, 0),
            (BIN, wall, 0, BIN + wall),
            (BIN, wall, 0, -BIN - wall),
        ]
    )
    return f"""<mujoco model="pile{n_boxes}">
  <option timestep="{DT}" gravity="0 0 -9.81"/>
  <default><geom friction="{MU} 0.005 0.0001"/></default>
  <worldbody>
    <geom type="plane" size="{BIN + 0.2} {BIN + 0.2} 0.1"/>
    {walls}
    {bodies}
  </worldbody>
</mujoco>"""


def pile(n_boxes: int, seed: int = 1, **layout):
    """``(model, data)`` of a fresh pile (``layout``: the keywords of :func:`pile_xml`)."""
    model = mujoco.MjModel.from_xml_string(pile_xml(n_boxes, seed, **layout))
    return model, mujoco.MjData(model)


@dataclasses.dataclass
class BlockStep:
    """One contact step in the library's block-sparse form (touching contacts only)."""

    tree_dofs: np.ndarray  # int32, ntree
    M: np.ndarray  # packed M blocks
    contact_trees: np.ndarray  # int32, (nc, 2)
    J: np.ndarray  # packed 3×n_t blocks
    p_star: np.ndarray
    v0: np.ndarray
    fn0: np.ndarray
    stiffness: np.ndarray
    dissipation: np.ndarray
    mu: np.ndarray
    step: bridge.ContactStep  # MuJoCo's step data, for the dense form

    @property
    def nc(self) -> int:
        return self.contact_trees.shape[0]

    def dense(self):
        """``(M, Jn, Jt)`` of the touching contacts, dense (for the dense-TAMSI comparison)."""
        m, jn, jt, _ = self.step.dense()
        return m, jn, jt


def block_step(model, data) -> BlockStep:
    """Runs MuJoCo's stages on ``data`` and returns its contact step in block form, keeping the
    touching contacts (φ < 0)."""
    step = bridge.contact_step(model, data)
    step.contacts = [c for c in step.contacts if c.phi < 0.0]
    phi = step.phi()
    fn0 = STIFFNESS * np.maximum(0.0, -phi)
    nc = step.nc
    J = [b for c in step.contacts for b in ((c.Ja, c.Jb) if c.tree_b >= 0 else (c.Ja,))]
    return BlockStep(
        tree_dofs=np.array([n for _, n in step.trees], dtype=np.int32),
        M=np.concatenate([b.ravel(order="F") for b in step.M_blocks]),
        contact_trees=np.array([(c.tree_a, c.tree_b) for c in step.contacts], dtype=np.int32).reshape(nc, 2),
        J=np.concatenate([b.ravel(order="F") for b in J]) if J else np.zeros(0),
        p_star=step.p_star,
        v0=step.v0,
        fn0=fn0,
        stiffness=np.full(nc, STIFFNESS),
        dissipation=np.full(nc, DISSIPATION),
        mu=step.mu() if nc else np.zeros(0),
        step=step,
    )


def solve_blocks(solver: cts.TamsiSolver, s: BlockStep):
    """Sets ``s`` as two-way block data and solves from the step's velocities (the previous
    step's answer); ``(outcome, solve seconds, set seconds)``."""
    t0 = time.perf_counter()
    solver.set_two_way_coupled_block_problem_data(
        s.tree_dofs, s.M, s.contact_trees, s.J, s.p_star, s.fn0, s.stiffness, s.dissipation, s.mu
    )
    t1 = time.perf_counter()
    outcome = solver.solve_with_guess(DT, s.v0)
    return outcome, time.perf_counter() - t1, t1 - t0


def solve_dense(solver: cts.TamsiSolver, s: BlockStep):
    """The same step given densely; ``(outcome, solve seconds)``."""
    m, jn, jt = s.dense()
    solver.set_two_way_coupled_problem_data(m, jn, jt, s.p_star, s.fn0, s.stiffness, s.dissipation, s.mu)
    t0 = time.perf_counter()
    outcome = solver.solve_with_guess(DT, s.v0)
    return outcome, time.perf_counter() - t0


def mujoco_stages(model, data) -> None:
    """MuJoCo's stages before its constraint solve (what ``bridge.contact_step`` runs)."""
    mujoco.mj_fwdPosition(model, data)
    mujoco.mj_fwdVelocity(model, data)
    mujoco.mj_fwdActuation(model, data)
    mujoco.mj_fwdAcceleration(model, data)


def mujoco_constraint_times(model, data, repeats: int = 5) -> list:
    """Wall times of ``repeats`` runs of MuJoCo's own constraint solve (``mj_fwdConstraint``) on
    the state whose stages just ran, each warm-started from the previous step's accelerations as
    ``mj_step`` does (the first run meets the caches as the step left them, the others warm).
    MuJoCo's results are not used."""
    warm = np.array(data.qacc_warmstart)
    times = []
    for _ in range(repeats):
        data.qacc_warmstart[:] = warm
        t0 = time.perf_counter()
        mujoco.mj_fwdConstraint(model, data)
        times.append(time.perf_counter() - t0)
    data.qacc_warmstart[:] = data.qacc  # what mj_step leaves for the next step
    return times


def mujoco_constraint_seconds(model, data, repeats: int = 5) -> float:
    """The median of :func:`mujoco_constraint_times`."""
    return statistics.median(mujoco_constraint_times(model, data, repeats))


@dataclasses.dataclass
class StepRecord:
    step: int
    nc: int
    nc_between_boxes: int  # contacts touching two boxes
    outcome: cts.TamsiSolverResult
    iterations: int
    tamsi_seconds: float
    mujoco_seconds: float | None
    energy: float  # kinetic + potential, J, after the step
    max_speed: float  # largest |v| entry after the step, m/s


def c_bridge(library=None, path=None):
    """The C bridge (``mujoco_bridge_c.CBridge``), built on first use."""
    import mujoco_bridge_c

    return mujoco_bridge_c.CBridge(library if isinstance(library, cts.Library) else cts.load_library(library), path)


def c_step(cb, solver: cts.TamsiSolver, model, data, advance: bool = True):
    """One TAMSI step through the C bridge on the state whose stages already ran: ``(outcome,
    (extract s, set s, solve s), wall s of the Python-level call)``."""
    import mujoco_bridge_c

    t0 = time.perf_counter()
    status, seconds = cb.tamsi_step(solver, model, data, STIFFNESS, DISSIPATION, DT,
                                    mujoco_bridge_c.ADVANCE if advance else 0)
    wall = time.perf_counter() - t0
    if status not in (0, 1, 2, 3):
        raise cts.ContactSolversError(status, solver.last_error())
    return cts.TamsiSolverResult(status), seconds, wall


def simulate(n_boxes: int, steps: int, seed: int = 1, time_mujoco: bool = True, library=None,
             report=None, bridge_kind: str = "python", **layout) -> list:
    """Drops a pile of ``n_boxes`` (``layout``: the keywords of :func:`pile_xml`) and steps it
    ``steps`` times with block-sparse TAMSI, each step prepared by the Python bridge or
    (``bridge_kind="c"``) done by the C bridge; returns a :class:`StepRecord` per step
    (``report`` is called with each)."""
    model, data = pile(n_boxes, seed, **layout)
    records = []
    cb = c_bridge(library) if bridge_kind == "c" else None
    with cts.TamsiSolver(model.nv, library=library) as solver:
        for k in range(steps):
            if cb is None:
                s = block_step(model, data)
                mj = mujoco_constraint_seconds(model, data) if time_mujoco else None
                outcome, seconds, _ = solve_blocks(solver, s)
                v = solver.get_generalized_velocities()
                bridge.advance(model, data, v)
                nc, contact_trees = s.nc, s.contact_trees
            else:
                import mujoco_bridge_c

                mujoco_stages(model, data)
                mj = mujoco_constraint_seconds(model, data) if time_mujoco else None
                outcome, (_, _, seconds), _ = c_step(cb, solver, model, data)
                v = np.array(data.qvel)  # the C bridge wrote the next velocities
                contact_trees = cb.array(mujoco_bridge_c.Array.CONTACT_TREES).reshape(-1, 2)
                nc = contact_trees.shape[0]
            iterations = solver.get_iteration_statistics().num_iterations
            pairs = int(np.sum(contact_trees[:, 1] >= 0)) if nc else 0
            r = StepRecord(k, nc, pairs, outcome, iterations, seconds, mj, bridge.energy(model, data),
                           float(np.max(np.abs(v))))
            records.append(r)
            if report:
                report(r)
    return records


@dataclasses.dataclass
class IpmStepRecord:
    step: int
    nc: int
    outcome: cts.IpmOutcome
    iterations: int
    seconds: float
    penetration: float  # largest −φ at the start of the step, m
    energy: float  # kinetic + potential, J, after the step


def ipm_step_python(solver: cts.IpmSolver, model, data):
    """One interior-point step prepared by the Python bridge (MuJoCo's stages run here): sets the
    block data and the contact ids, solves, advances MuJoCo; ``(outcome, solve seconds, nc, phi)``."""
    step = bridge.contact_step(model, data)
    nc = step.nc
    phi = step.phi() if nc else np.zeros(0)
    J = [b for c in step.contacts for b in ((c.Ja, c.Jb) if c.tree_b >= 0 else (c.Ja,))]
    trees = np.array([(c.tree_a, c.tree_b) for c in step.contacts], dtype=np.int32).reshape(nc, 2)
    # Ids: the geom pair and the contact's index within it, numbered over MuJoCo's contact list
    # in order; each kept contact takes the id of the MuJoCo contact it came from (the bridge
    # drops contacts between static bodies, so positions in the two lists can differ).
    pair_ids, seen = [], {}
    for i in range(data.ncon):
        con = data.contact[i]
        pair = (int(con.geom1), int(con.geom2))
        seen[pair] = seen.get(pair, -1) + 1
        pair_ids.append((pair[0] * 100003 + pair[1]) * 64 + seen[pair])
    ids = [pair_ids[c.con_index] for c in step.contacts]
    solver.set_block_problem_data(
        np.array([n for _, n in step.trees], dtype=np.int32), step.M_blocks, trees, J,
        step.v0, step.tau, step.dt, phi, step.mu() if nc else np.zeros(0),
        np.full(nc, int(cts.IpmContactModel.kSecondOrderCone), dtype=np.int32))
    solver.set_contact_ids(np.array(ids, dtype=np.uint64))
    t0 = time.perf_counter()
    outcome = solver.solve()
    seconds = time.perf_counter() - t0
    bridge.advance(model, data, solver.get_generalized_velocities())
    return outcome, seconds, nc, phi


def ipm_step_c(cb, solver: cts.IpmSolver, model, data):
    """The same step through the C bridge (``ctsmj_ipm_step``; MuJoCo's stages run there too):
    ``(outcome, (extract s, set s, solve s), nc, phi)``."""
    import mujoco_bridge_c

    status, seconds = cb.ipm_step(solver, model, data, int(cts.IpmContactModel.kSecondOrderCone),
                                  mujoco_bridge_c.STAGES | mujoco_bridge_c.ADVANCE)
    phi = cb.array(mujoco_bridge_c.Array.PHI)
    return cts.IpmOutcome(status), seconds, phi.size, phi


def simulate_ipm(n_boxes: int, steps: int, seed: int = 1, library=None, report=None, margin: float = 0.005,
                 warm_start: bool = True, bridge_kind: str = "python", **layout) -> list:
    """Drops a pile with the interior point at its engine preset as the contact step (block data,
    every pair closer than ``margin``, warm start by contact id), each step prepared by the Python
    bridge or (``bridge_kind="c"``) done by the C bridge; one :class:`IpmStepRecord` per step
    (``seconds``: the solve)."""
    model, data = pile(n_boxes, seed, **layout)
    model.geom_margin[:] = margin
    records = []
    params = cts.IpmSolverParameters.engine()
    params.warm_start = warm_start
    cb = c_bridge(library) if bridge_kind == "c" else None
    with cts.IpmSolver(library=library) as solver:
        solver.set_parameters(params)
        for k in range(steps):
            if cb is None:
                outcome, seconds, nc, phi = ipm_step_python(solver, model, data)
            else:
                outcome, (_, _, seconds), nc, phi = ipm_step_c(cb, solver, model, data)
            r = IpmStepRecord(k, nc, outcome, solver.get_stats().iterations, seconds,
                              float(max(0.0, -phi.min())) if nc else 0.0, bridge.energy(model, data))
            records.append(r)
            if report:
                report(r)
    return records


def simulate_mujoco(n_boxes: int, steps: int, seed: int = 1, **layout) -> list:
    """Drops the same pile with MuJoCo's own ``mj_step`` at its defaults (soft pyramidal contact,
    Newton, warm start); one ``(penetration m, energy J)`` per step: the largest −φ of the
    contacts MuJoCo found at the start of the step, and the energy after it."""
    model, data = pile(n_boxes, seed, **layout)
    records = []
    for _ in range(steps):
        mujoco.mj_step(model, data)
        dist = [data.contact[i].dist for i in range(data.ncon)]
        records.append((max(0.0, -min(dist)) if dist else 0.0, bridge.energy(model, data)))
    return records


def compare(boxes, steps: int, seed: int = 1) -> None:
    """The interior point's engine preset beside MuJoCo's own step on the same drops, in this
    process (issue 30): failed solves, mean iterations, largest penetration over the drop and in
    its last 0.5 s, and the largest energy rise over the first step's energy."""
    print("| boxes | steps | solver | failed | mean it. | max pen. drop, mm | max pen. last 0.5 s, mm "
          "| energy rise, J |")
    print("|---|---|---|---|---|---|---|---|")
    last = min(500, steps)
    for n in boxes:
        ipm = simulate_ipm(n, steps, seed)
        failed = sum(r.outcome is not cts.IpmOutcome.kConverged for r in ipm)
        pen = [r.penetration for r in ipm]
        rise = max(r.energy for r in ipm) - ipm[0].energy
        print(f"| {n} | {steps} | interior point, engine preset | {failed} | "
              f"{statistics.mean(r.iterations for r in ipm):.2f} | {max(pen) * 1e3:.3f} | "
              f"{max(pen[-last:]) * 1e3:.3f} | {rise:.4f} |", flush=True)
        mj = simulate_mujoco(n, steps, seed)
        pen = [p for p, _ in mj]
        rise = max(e for _, e in mj) - mj[0][1]
        print(f"| {n} | {steps} | MuJoCo {mujoco.__version__} mj_step | - | - | {max(pen) * 1e3:.3f} | "
              f"{max(pen[-last:]) * 1e3:.3f} | {rise:.4f} |", flush=True)


def print_step(r: StepRecord) -> None:
    mj = f"{r.mujoco_seconds * 1e6:9.1f}" if r.mujoco_seconds is not None else "        -"
    print(f"{r.step:5d} {r.nc:5d} {r.outcome.name:>22} {r.iterations:4d} {r.tamsi_seconds * 1e6:10.1f} "
          f"{mj} {r.energy:10.4f} {r.max_speed:8.4f}")


def scaling(boxes, settle_steps: int, measure_steps: int, dense_steps: int, seed: int = 1, library=None):
    """Per pile size: the pile dropped and stepped ``settle_steps`` times with block TAMSI, then
    ``measure_steps`` steps timed (block TAMSI, MuJoCo), the dense TAMSI solve timed on the first
    ``dense_steps`` of them. Returns rows ``(n, nv, median nc, block µs, dense µs, MuJoCo µs,
    block set + solve µs)`` of medians."""
    rows = []
    for n in boxes:
        model, data = pile(n, seed)
        block, block_set, dense, mj, ncs = [], [], [], [], []
        with cts.TamsiSolver(model.nv, library=library) as solver, \
                cts.TamsiSolver(model.nv, library=library) as dense_solver:
            for k in range(settle_steps + measure_steps):
                s = block_step(model, data)
                measuring = k >= settle_steps
                if measuring:
                    mj.append(mujoco_constraint_seconds(model, data))
                    if len(dense) < dense_steps:
                        outcome, seconds = solve_dense(dense_solver, s)
                        dense.append(seconds)
                outcome, seconds, set_seconds = solve_blocks(solver, s)
                if outcome != cts.TamsiSolverResult.kSuccess:
                    raise RuntimeError(f"{n} boxes, step {k}: {outcome.name}")
                if measuring:
                    block.append(seconds)
                    block_set.append(set_seconds + seconds)
                    ncs.append(s.nc)
                bridge.advance(model, data, solver.get_generalized_velocities())
        row = (n, model.nv, int(statistics.median(ncs)), statistics.median(block) * 1e6,
               statistics.median(dense) * 1e6 if dense else float("nan"),
               statistics.median(mj) * 1e6, statistics.median(block_set) * 1e6)
        print(f"{row[0]:4d} boxes  nv {row[1]:5d}  nc {row[2]:5d}  block TAMSI {row[3]:10.1f} us  "
              f"(set + solve {row[6]:10.1f} us)  dense TAMSI {row[4]:12.1f} us  MuJoCo {row[5]:9.1f} us"
              f"  set+solve/MuJoCo {row[6] / row[5]:.2f}", flush=True)
        rows.append(row)
    return rows


def scaling_c(boxes, settle_steps: int, measure_steps: int, seed: int = 1, library=None, python_too: bool = True):
    """:func:`scaling` through the C bridge: per pile size, ``settle_steps`` C-bridge steps, then
    ``measure_steps`` steps each timed as MuJoCo's constraint solve, then the C bridge's step
    (extraction, set, solve: its own clock; the whole call, made as one pre-bound ctypes call:
    ``perf_counter``), then
    (``python_too``) the Python bridge's set + solve of the same state on a second solver, after
    the C step so that it does not warm the C step's caches. Returns rows ``(n, nv, median nc,
    solve µs, nan, MuJoCo µs, set + solve µs, extract µs, set µs, C call µs, Python bridge set +
    solve µs, MuJoCo's first of its 5 runs µs)`` of medians (MuJoCo's column: the median of its 5
    runs, as :func:`scaling`; the first run meets the caches as our single call does)."""
    rows = []
    cb = c_bridge(library)
    for n in boxes:
        model, data = pile(n, seed)
        cols = {k: [] for k in ("solve", "mj", "mj_first", "setsolve", "extract", "set", "call", "py", "nc")}
        with cts.TamsiSolver(model.nv, library=library) as solver, \
                cts.TamsiSolver(model.nv, library=library) as py_solver:
            step_call = cb.bind_tamsi_step(solver, model, data, STIFFNESS, DISSIPATION, DT, 0)  # timed steps
            for k in range(settle_steps + measure_steps):
                mujoco_stages(model, data)
                measuring = k >= settle_steps
                if not measuring:
                    outcome, _, _ = c_step(cb, solver, model, data)
                else:
                    mj_times = mujoco_constraint_times(model, data)
                    cols["mj"].append(statistics.median(mj_times))
                    cols["mj_first"].append(mj_times[0])
                    t0 = time.perf_counter()
                    status = step_call()
                    wall = time.perf_counter() - t0
                    if status not in (0, 1, 2, 3):
                        raise cts.ContactSolversError(status, solver.last_error())
                    outcome, (ex, st, so) = cts.TamsiSolverResult(status), cb.seconds
                    cols["solve"].append(so)
                    cols["setsolve"].append(st + so)
                    cols["extract"].append(ex)
                    cols["set"].append(st)
                    cols["call"].append(wall)
                    cols["nc"].append(solver.num_contacts)
                    v = solver.get_generalized_velocities()
                    if python_too:
                        py_outcome, py_seconds, py_set = solve_blocks(py_solver, block_step(model, data))
                        cols["py"].append(py_seconds + py_set)
                        if not np.array_equal(py_solver.get_generalized_velocities(), v):
                            raise RuntimeError(f"{n} boxes, step {k}: the Python and C bridges disagree")
                    bridge.advance(model, data, v)
                if outcome != cts.TamsiSolverResult.kSuccess:
                    raise RuntimeError(f"{n} boxes, step {k}: {outcome.name}")
        med = {k: statistics.median(v) * (1 if k == "nc" else 1e6) if v else float("nan") for k, v in cols.items()}
        row = (n, model.nv, int(med["nc"]), med["solve"], float("nan"), med["mj"], med["setsolve"], med["extract"],
               med["set"], med["call"], med["py"], med["mj_first"])
        print(f"{n:4d} boxes  nv {model.nv:5d}  nc {row[2]:5d}  C bridge: extract {row[7]:8.1f} us  set {row[8]:7.1f}"
              f" us  solve {row[3]:8.1f} us  set+solve {row[6]:8.1f} us  whole call {row[9]:8.1f} us  |  Python "
              f"bridge set+solve {row[10]:8.1f} us  |  MuJoCo {row[5]:8.1f} us (first of 5: {row[11]:8.1f} us)  |  "
              f"set+solve/MuJoCo "
              f"{row[6] / row[5]:.2f}  whole call/MuJoCo {row[9] / row[5]:.2f}  Python/MuJoCo {row[10] / row[5]:.2f}",
              flush=True)
        rows.append(row)
    return rows


def plot(rows, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nv = [r[1] for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=120)
    ax.loglog(nv, [r[4] for r in rows], "s-", label="TAMSI, dense data")
    ax.loglog(nv, [r[3] for r in rows], "o-", label="TAMSI, block-sparse data")
    ax.loglog(nv, [r[5] for r in rows], "^--", label="MuJoCo mj_fwdConstraint (own problem)")
    for r in rows:
        ax.annotate(f"{r[0]} boxes", (r[1], r[3]), textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax.set_xlabel("generalized velocities nv (6 per box)")
    ax.set_ylabel("time per contact solve (µs, median)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boxes", type=int, default=25)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scaling", type=int, nargs="*", help="pile sizes for the time-per-step plot")
    ap.add_argument("--settle", type=int, default=300, help="steps before timing (--scaling)")
    ap.add_argument("--measure", type=int, default=20, help="timed steps per pile (--scaling)")
    ap.add_argument("--dense-steps", type=int, default=3, help="of those, dense TAMSI solves")
    ap.add_argument("--plot", help="where --scaling writes its plot (PNG)")
    ap.add_argument("--ipm", action="store_true", help="the interior point at its engine preset")
    ap.add_argument("--bridge", choices=("python", "c"), default="python",
                    help="prepare each TAMSI step in Python (default) or in the C bridge (mujoco_bridge.c)")
    ap.add_argument("--compare", type=int, nargs="*",
                    help="pile sizes: the interior point's drop beside MuJoCo's own, one table")
    args = ap.parse_args()
    print(f"libcontact_solvers {cts.version()}, MuJoCo {mujoco.__version__}")
    if args.compare:
        compare(args.compare, args.steps, args.seed)
        return
    if args.ipm:
        print(f"{args.boxes} boxes, {args.steps} steps of {DT * 1e3:g} ms, interior point (engine preset)")
        print(" step    nc          outcome iter     IPM us  max pen mm   energy J")
        recs = simulate_ipm(args.boxes, args.steps, args.seed, bridge_kind=args.bridge, report=lambda r: print(
            f"{r.step:5d} {r.nc:5d} {r.outcome.name:>16} {r.iterations:4d} {r.seconds * 1e6:10.1f} "
            f"{r.penetration * 1e3:11.4f} {r.energy:10.4f}", flush=True))
        failed = sum(r.outcome is not cts.IpmOutcome.kConverged for r in recs)
        last = [r for r in recs if r.step >= len(recs) - 500]
        print(f"failed solves {failed}; iterations mean {statistics.mean(r.iterations for r in recs):.2f}, "
              f"max {max(r.iterations for r in recs)}; max penetration {max(r.penetration for r in recs) * 1e3:.3f} mm "
              f"(last 0.5 s: {max(r.penetration for r in last) * 1e3:.3f} mm); energy max "
              f"{max(r.energy for r in recs):.4f} J vs initial {recs[0].energy:.4f} J")
        return
    if args.scaling and args.bridge == "c":
        scaling_c(args.scaling, args.settle, args.measure, args.seed)
        return
    if args.scaling:
        rows = scaling(args.scaling, args.settle, args.measure, args.dense_steps, args.seed)
        if args.plot:
            plot(rows, args.plot, f"Box piles, dt = 1 ms, after {args.settle} steps: median of "
                                  f"{args.measure} steps (dense: {args.dense_steps})")
            print(f"wrote {args.plot}")
        return
    print(f"{args.boxes} boxes, {args.steps} steps of {DT * 1e3:g} ms, {args.bridge} bridge")
    print(" step    nc                outcome iter   TAMSI us  MuJoCo us   energy J  max |v|")
    records = simulate(args.boxes, args.steps, args.seed, report=print_step, bridge_kind=args.bridge)
    t = statistics.median(r.tamsi_seconds for r in records) * 1e6
    m = statistics.median(r.mujoco_seconds for r in records) * 1e6
    print(f"median per step: block-sparse TAMSI {t:.1f} us, MuJoCo's constraint solve {m:.1f} us")


if __name__ == "__main__":
    main()
