#!/usr/bin/env python3
"""Consecutive live-loop states of mujoco_pile.py's C-bridge loop as a scene file (issue 29,
docs/performance.md §3 "The live loop"): piles of N boxes stepped by block TAMSI through the C
bridge (`examples_c/python/mujoco_bridge.c`) for `--settle` steps, then `--steps` consecutive
states written in the `CTS_SCENES 1` format of `tests/data/README.md`, each exactly the block data
the bridge hands the setter at that step (touching contacts, k, d of the loop) and v0 = qvel, the
previous step's solution: the warm-started solves of the loop. `tau` is MuJoCo's qfrc_smooth (the
reader's p* = M v0 + dt·tau rounds like the bridge's mj_mulM + dt·qfrc_smooth up to the order of
the products' sums). `examples/profile_step.rs` replays them (mode `tamsi_live`):

    python tools/live_steps.py --boxes 50 100 --settle 3000 --steps 8 --out target/live_steps.txt.gz
    CTS_SCENES_FILE=target/live_steps.txt.gz target/release/examples/profile_step tamsi_live live50 200

Needs MuJoCo (PyPI `mujoco`) and a release build of the library (CONTACT_SOLVERS_LIB or the
default search of the binding).
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "examples_c" / "python"))

import contact_solvers as cts  # noqa: E402
import mujoco_bridge as bridge  # noqa: E402
import mujoco_bridge_c  # noqa: E402
import mujoco_pile as pile_example  # noqa: E402
from mujoco_bridge_c import Array  # noqa: E402


def fmt(xs) -> str:
    return " ".join(repr(float(x)) for x in np.ravel(xs))


def write_state(out, name: str, source: str, cb, dt: float, mj_us: float, ncon: int) -> None:
    a = {w: cb.array(w) for w in Array}
    dofs = a[Array.TREE_DOFS]
    trees = np.cumsum(np.concatenate([[0], dofs]))
    nv, nc = int(trees[-1]), len(a[Array.MU])
    out.write(f"scene {name}\nsource {source}\ndt {dt!r}\nnv {nv} ntrees {len(dofs)} nc {nc}\n")
    for t, n in enumerate(dofs):
        out.write(f"tree {trees[t]} {n}\n")
    m, off = a[Array.M], 0
    for n in dofs:
        out.write(f"Mtree {fmt(m[off:off + n * n])}\n")
        off += n * n
    out.write(f"v0 {fmt(a[Array.V0])}\ntau {fmt(a[Array.TAU])}\n")
    ct, j, off = a[Array.CONTACT_TREES].reshape(-1, 2), a[Array.J], 0
    for i in range(nc):
        ta, tb = int(ct[i, 0]), int(ct[i, 1])
        values = fmt([a[w][i] for w in (Array.MU, Array.PHI, Array.FN0, Array.STIFFNESS, Array.DISSIPATION)])
        out.write(f"contact {ta} {tb} {values}\n")
        for tag, t in (("Ja", ta), ("Jb", tb)):
            if t < 0:
                continue
            n = 3 * int(dofs[t])
            out.write(f"{tag} {fmt(j[off:off + n])}\n")
            off += n
    out.write(f"ref mujoco_constraint_us {mj_us!r} ncon_mujoco {ncon}\nend\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boxes", type=int, nargs="+", default=[50, 100])
    ap.add_argument("--settle", type=int, default=3000)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(REPO / "target" / "live_steps.txt.gz"))
    args = ap.parse_args()
    library = cts.load_library()
    cb = pile_example.c_bridge(library)
    states = []
    for n in args.boxes:
        model, data = pile_example.pile(n, args.seed)
        with cts.TamsiSolver(model.nv, library=library) as solver:
            for k in range(args.settle + args.steps):
                pile_example.mujoco_stages(model, data)
                if k < args.settle:
                    pile_example.c_step(cb, solver, model, data)
                    continue
                mj_us = 1e6 * pile_example.mujoco_constraint_seconds(model, data)
                st, _ = cb.tamsi_step(solver, model, data, pile_example.STIFFNESS, pile_example.DISSIPATION,
                                      pile_example.DT, 0)
                if st != 0:
                    raise RuntimeError(f"{n} boxes, step {k}: status {st}")
                name = f"live{n}_seed{args.seed}_step{k}"
                text = []

                class W:
                    write = text.append

                write_state(W, name, f"mujoco-{pile_example.mujoco.__version__}/live/n{n}/seed{args.seed}/step{k}",
                            cb, pile_example.DT, mj_us, int(data.ncon))
                states.append("".join(text))
                print(f"{name}: nc {solver.num_contacts}, iterations {solver.get_iteration_statistics().num_iterations}",
                      flush=True)
                bridge.advance(model, data, solver.get_generalized_velocities())
    with gzip.open(args.out, "wt") as f:
        f.write(f"CTS_SCENES 1\n{len(states)}\n")
        f.writelines(states)
    print(f"wrote {len(states)} states to {args.out}")


if __name__ == "__main__":
    main()
