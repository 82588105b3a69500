#!/usr/bin/env python3
"""Generates MuJoCo engine states in the ``CTS_SCENES 1`` format of ``tests/data/README.md``.

MuJoCo 4.0.0 steps its own scenes (``mj_step``, default settings, margin 0); at chosen times the
state's contact step is extracted in block (per-tree) form with every pair closer than 1 cm
(margin 1 cm for the extraction only), together with MuJoCo's own constraint-solve time on that
state and its contact count at margin 0. Nothing here depends on this library.

Scene families (names encode the parameters):

* ``pile<N>_seed<S>_t<T>``: N boxes (0.2 m, 1 kg, μ 0.5) dropped into the 2 m × 2 m walled bin of
  ``examples_c/python/mujoco_pile.py`` (same layout function, same seeds mean the same piles);
* ``heap<N>_seed<S>_t<T>``: N such boxes in random orientations rained into the same bin from
  layers 0.35 m apart: they tumble into a heap;
* ``stack<N>_tilt<D>_seed<S>_t<T>``: N boxes stacked with every box turned by up to ±D degrees
  about a random horizontal axis and shifted by up to ±5 mm;
* ``stack<N>_mass<R>_t<T>``: N boxes stacked whose masses alternate 1 kg and R kg (bottom 1 kg).

Usage (with ``pip install mujoco==4.0.0 numpy``; from the repository root)::

    python3 tools/make_engine_scenes.py piles tests/data/engine_piles.txt.gz
    python3 tools/make_engine_scenes.py stress tests/data/engine_stress.txt.gz
    python3 tools/make_engine_scenes.py custom out.txt.gz --pile 80 --seed 21 --times 0.5 1.5

The output is gzip-compressed when its name ends in ``.gz``. Generation is deterministic for a
given MuJoCo build (MuJoCo's own results are bit-reproducible on one machine); the reference
times are measurements and differ from run to run.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time

import numpy as np

import mujoco

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples_c", "python"))

import mujoco_bridge as bridge  # noqa: E402

HALF = 0.1  # box half size, m
MU = 0.5
DT = 1e-3  # s
STIFFNESS = 9810.0  # N/m: m g / δ with δ = 1 mm (the TAMSI fields of the format)
DISSIPATION = 10.096375546923044  # s/m: sqrt(m / k) / δ
BIN = 1.0  # half width of the bin, m
MARGIN = 0.01  # m: pairs closer than this are extracted


def pile_xml(n_boxes: int, seed: int, drop: float = 0.05, gap: float = 0.05, per_side: int = 9) -> str:
    """The pile of ``examples_c/python/mujoco_pile.py`` (same layout and random draws)."""
    return _model(f"pile{n_boxes}", _bin() + bridge.box_layers(n_boxes, seed, HALF, "1", drop, gap, per_side))


def heap_xml(n_boxes: int, seed: int, per_side: int = 5, spacing: float = 0.3, layer_gap: float = 0.35) -> str:
    """``n_boxes`` boxes in random orientations rained into the bin: layers of a ``per_side`` ×
    ``per_side`` grid (``spacing`` m apart, ±3 cm jitter) ``layer_gap`` m above each other, the
    lowest 0.25 m above the floor. They tumble onto each other and form a heap (contacts between
    boxes at every angle, corners and edges on faces), unlike :func:`pile_xml`'s neat layers."""
    rng = np.random.default_rng(seed)
    bodies = []
    for i in range(n_boxes):
        layer, k = divmod(i, per_side * per_side)
        row, col = divmod(k, per_side)
        x = (col - (per_side - 1) / 2) * spacing + rng.uniform(-0.03, 0.03)
        y = (row - (per_side - 1) / 2) * spacing + rng.uniform(-0.03, 0.03)
        z = 0.25 + layer * layer_gap
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        bodies.append(
            f'<body pos="{x:.6f} {y:.6f} {z:.6f}" quat="{q[0]:.9f} {q[1]:.9f} {q[2]:.9f} {q[3]:.9f}"><freejoint/>'
            f'<geom type="box" size="{HALF} {HALF} {HALF}" mass="1"/></body>'
        )
    return _model(f"heap{n_boxes}", _bin() + "".join(bodies))


def _bin() -> str:
    """Floor and the four 1 m walls of the 2 m × 2 m bin."""
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
    return f'<geom type="plane" size="{BIN + 1.5} {BIN + 1.5} 0.1"/>{walls}'


def stack_xml(n_boxes: int, tilt_deg: float = 0.0, seed: int = 1, masses=None) -> str:
    """``n_boxes`` boxes stacked on the floor, each turned by up to ±``tilt_deg`` about a random
    horizontal axis and shifted by up to ±5 mm (``seed``), with the given masses (kg)."""
    rng = np.random.default_rng(seed)
    masses = masses or [1.0] * n_boxes
    bodies = []
    z = HALF + 0.002
    for i in range(n_boxes):
        axis = rng.uniform(-1.0, 1.0, size=2)
        axis /= np.linalg.norm(axis)
        angle = np.deg2rad(rng.uniform(-tilt_deg, tilt_deg))
        dx, dy = rng.uniform(-0.005, 0.005, size=2) if tilt_deg > 0 else (0.0, 0.0)
        quat = (np.cos(angle / 2), axis[0] * np.sin(angle / 2), axis[1] * np.sin(angle / 2), 0.0)
        bodies.append(
            f'<body pos="{dx:.6f} {dy:.6f} {z:.6f}" quat="{quat[0]:.9f} {quat[1]:.9f} {quat[2]:.9f} 0">'
            f'<freejoint/><geom type="box" size="{HALF} {HALF} {HALF}" mass="{masses[i]:g}"/></body>'
        )
        # Room for the tilt: a turned cube is taller by up to 2·HALF·(|sin| + |cos| − 1).
        z += 2 * HALF + 2 * HALF * abs(np.sin(angle)) + 0.002
    return _model(f"stack{n_boxes}", '<geom type="plane" size="2 2 0.1"/>' + "".join(bodies))


def tname(t: float) -> str:
    """A time in scene names: one decimal at least (``t1.0``, ``t0.05``), as in
    ``engine_scenes.txt.gz``."""
    return f"{t:.1f}" if round(t, 1) == t else f"{t:g}"


def _model(name: str, world: str) -> str:
    return f"""<mujoco model="{name}">
  <option timestep="{DT}" gravity="0 0 -9.81"/>
  <default><geom friction="{MU} 0.005 0.0001"/></default>
  <worldbody>{world}</worldbody>
</mujoco>"""


def mujoco_constraint_us(model, data, repeats: int = 21) -> tuple[float, int]:
    """MuJoCo's own constraint solve on this state (margin 0, warm-started as ``mj_step`` does):
    median µs over ``repeats`` runs, and its contact count."""
    saved = np.array(model.geom_margin)
    model.geom_margin[:] = 0.0
    warm = np.array(data.qacc_warmstart)
    mujoco.mj_forward(model, data)
    ncon = int(data.ncon)
    times = []
    for k in range(repeats):
        if k == 3 and min(times) > 0.01:
            break  # slow states: three runs are enough for a sense of scale
        data.qacc_warmstart[:] = warm
        t0 = time.perf_counter()
        mujoco.mj_fwdConstraint(model, data)
        times.append(time.perf_counter() - t0)
    data.qacc_warmstart[:] = warm
    model.geom_margin[:] = saved
    return statistics.median(times) * 1e6, ncon


def extract(model, data) -> bridge.ContactStep:
    """The state's contact step with every pair closer than ``MARGIN``."""
    saved = np.array(model.geom_margin)
    model.geom_margin[:] = MARGIN
    step = bridge.contact_step(model, data)
    model.geom_margin[:] = saved
    step.contacts = [c for c in step.contacts if c.phi < MARGIN]
    return step


def fmt(xs) -> str:
    return " ".join(repr(float(x)) if np.isfinite(x) else "nan" for x in np.ravel(xs, order="F"))


def write_scene(out, name: str, source: str, step: bridge.ContactStep, mj_us: float, ncon: int) -> None:
    out.write(f"scene {name}\nsource {source}\ndt {step.dt!r}\n")
    out.write(f"nv {step.nv} ntrees {len(step.trees)} nc {step.nc}\n")
    for first, n in step.trees:
        out.write(f"tree {first} {n}\n")
    for b in step.M_blocks:
        out.write(f"Mtree {fmt(b)}\n")
    out.write(f"v0 {fmt(step.v0)}\ntau {fmt(step.tau)}\n")
    for c in step.contacts:
        fn0 = STIFFNESS * max(0.0, -c.phi)
        out.write(f"contact {c.tree_a} {c.tree_b} {c.mu!r} {c.phi!r} {fn0!r} {STIFFNESS!r} {DISSIPATION!r}\n")
        out.write(f"Ja {fmt(c.Ja)}\n")
        if c.tree_b >= 0:
            out.write(f"Jb {fmt(c.Jb)}\n")
    out.write(f"ref mujoco_constraint_us {mj_us:.4g} ncon_mujoco {ncon}\nend\n")


def run(xml: str, name_of_time, source_of_time, times, records) -> None:
    """Steps the model with ``mj_step`` and records a scene at each of ``times`` (s)."""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    for t in sorted(times):
        while data.time < t - 0.5 * DT:
            mujoco.mj_step(model, data)
        mj_us, ncon = mujoco_constraint_us(model, data)
        step = extract(model, data)
        records.append((name_of_time(t), source_of_time(t), step, mj_us, ncon))
        print(f"{name_of_time(t):32s} nv {step.nv:5d} nc {step.nc:5d} MuJoCo {mj_us:9.1f} us", flush=True)


def pile(records, n: int, seed: int, times) -> None:
    run(pile_xml(n, seed), lambda t: f"pile{n}_seed{seed}_t{tname(t)}", lambda t: f"mujoco-4.0.0/pile/n{n}/seed{seed}/t{tname(t)}",
        times, records)


def heap(records, n: int, seed: int, times, **layout) -> None:
    run(heap_xml(n, seed, **layout), lambda t: f"heap{n}_seed{seed}_t{tname(t)}",
        lambda t: f"mujoco-4.0.0/heap/n{n}/seed{seed}/t{tname(t)}", times, records)


def piles(records) -> None:
    """48 heap states: eight heaps of 30–120 boxes (seeds 7–14), each while falling (0.3 s),
    landing, settling and at rest (3 s)."""
    for n, seed in [(30, 7), (40, 8), (50, 9), (60, 10), (70, 11), (80, 12), (100, 13), (120, 14)]:
        heap(records, n, seed, [0.3, 0.6, 1.0, 1.5, 2.0, 3.0])


def stress(records) -> None:
    """The stress states of issue 30: a 300-box pile (falling and at rest), stacks with ±5° turns
    and a stack whose masses alternate 1 kg and 1000 kg."""
    pile(records, 300, 2, [3.0])
    # One island of ~1900 contacts: MuJoCo's own step takes ~0.5 s there, so only the landing.
    heap(records, 300, 2, [0.6, 1.0], per_side=7, spacing=0.27)
    for seed in (1, 2):
        run(stack_xml(5, 5.0, seed), lambda t, s=seed: f"stack5_tilt5_seed{s}_t{tname(t)}",
            lambda t, s=seed: f"mujoco-4.0.0/stack/n5/tilt5/seed{s}/t{tname(t)}", [0.05, 0.3, 1.0], records)
    masses = [1.0, 1000.0, 1.0, 1000.0]
    run(stack_xml(4, masses=masses), lambda t: f"stack4_mass1000_t{tname(t)}",
        lambda t: f"mujoco-4.0.0/stack/n4/mass1-1000/t{tname(t)}", [0.05, 0.5, 1.0], records)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("family", choices=["piles", "stress", "custom"])
    ap.add_argument("output")
    ap.add_argument("--pile", type=int, help="custom: number of boxes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--times", type=float, nargs="*", default=[1.0])
    args = ap.parse_args()
    if mujoco.__version__ != "4.0.0":
        print(f"warning: MuJoCo {mujoco.__version__}, the committed scenes were made with 4.0.0", file=sys.stderr)
    records = []
    if args.family == "piles":
        piles(records)
    elif args.family == "stress":
        stress(records)
    else:
        if not args.pile:
            ap.error("custom needs --pile N")
        pile(records, args.pile, args.seed, args.times)
    opener = gzip.open if args.output.endswith(".gz") else open
    with opener(args.output, "wt", encoding="ascii") as out:
        out.write(f"CTS_SCENES 1\n{len(records)}\n")
        for r in records:
            write_scene(out, *r)
    print(f"wrote {len(records)} scenes to {args.output}")


if __name__ == "__main__":
    main()
