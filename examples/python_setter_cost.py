"""The Python setter's cost beside a TAMSI solve on the engine scenes of tests/data, issue 29
item 5 (docs/performance.md §3, "The setter from Python").

    cargo build --release --lib
    python3 examples/python_setter_cost.py [package root, default: this repository]
    python3 examples/python_setter_cost.py [package root] --only SCENE FORM CALLS

The package root is the folder that holds `contact_solvers/` (default: this repository's
`python/`, which has no compiled `_pack` extension: give an installed package's site-packages,
or set CONTACT_SOLVERS_NO_EXTENSION=1 there, to compare the two packing paths; the first line
printed says which one runs).
`--only` runs CALLS calls of one form (lists, "C lists", same, fresh, or same+solve) on the scene
whose name starts with SCENE after three warm-up calls, and measures nothing: run it under
`valgrind --tool=callgrind` with CALLS = n and CALLS = 3n (PYTHONHASHSEED=0,
OPENBLAS_NUM_THREADS=1) and the difference of the totals over 2n is the instructions of one call
(docs/performance.md §3, "The Python setter in compiled code").

Median thread CPU time of a cold `solve_with_guess` from v0 and of
`set_two_way_coupled_block_problem_data` given
* lists: M and J as lists of blocks, Fortran-ordered as read from the file, the structure as a
  list of ints and an int32 array;
* C lists: the same blocks C-contiguous (what a bridge from MuJoCo writes: slices of its
  row-major Jacobian, copied);
* same: packed arrays, the same array objects at every call (a loop that writes its step into
  the same arrays, as MuJoCo's mjData is written);
* fresh: packed arrays, other array objects at every call (a loop that builds new arrays).
A measurement, not a test: the figures depend on the machine and its load."""
import gc
import gzip
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ARGS = sys.argv[1:]
ONLY = None
if "--only" in ARGS:
    at = ARGS.index("--only")
    ONLY = (ARGS[at + 1], ARGS[at + 2], int(ARGS[at + 3]))
    del ARGS[at:at + 4]
sys.path.insert(0, str(Path(ARGS[0]) if ARGS else ROOT / "python"))
import contact_solvers as cs  # noqa: E402
from contact_solvers import _common  # noqa: E402

if ONLY is None:
    print("lists packed by " + ("the compiled extension contact_solvers._pack"
                                if getattr(_common, "_pack", None) is not None  # older packages: none
                                else "Python (no extension)"))

def read_scenes(path, only=None):
    """The scenes of the file in order; with `only`, the first whose name starts with it."""
    tok = gzip.open(path, "rt").read().split()
    i = 0
    def nxt():
        nonlocal i
        i += 1
        return tok[i - 1]
    assert nxt() == "CTS_SCENES" and nxt() == "1"
    for _ in range(int(nxt())):
        while only is not None and not tok[i + 1].startswith(only):  # skip to the next scene
            i = tok.index("scene", i + 1)
        s = {}
        assert nxt() == "scene"; s["name"] = nxt()
        assert nxt() == "source"; nxt()
        assert nxt() == "dt"; s["dt"] = float(nxt())
        assert nxt() == "nv"; nv = int(nxt()); assert nxt() == "ntrees"; nt = int(nxt()); assert nxt() == "nc"; nc = int(nxt())
        dofs = []
        for _ in range(nt):
            assert nxt() == "tree"; nxt(); dofs.append(int(nxt()))
        M = []
        for d in dofs:
            assert nxt() == "Mtree"; M.append(np.array([float(nxt()) for _ in range(d * d)]).reshape(d, d, order="F"))
        assert nxt() == "v0"; v0 = np.array([float(nxt()) for _ in range(nv)])
        assert nxt() == "tau"; tau = np.array([float(nxt()) for _ in range(nv)])
        trees, J, mu, fn0, k, dd = [], [], [], [], [], []
        for _ in range(nc):
            assert nxt() == "contact"; a = int(nxt()); b = int(nxt()); m = float(nxt()); nxt(); f0 = float(nxt()); kk = float(nxt()); d_ = float(nxt())
            trees.append((a, b)); mu.append(m); fn0.append(f0); k.append(kk); dd.append(d_)
            assert nxt() == "Ja"; J.append(np.array([float(nxt()) for _ in range(3 * dofs[a])]).reshape(3, dofs[a], order="F"))
            if b >= 0:
                assert nxt() == "Jb"; J.append(np.array([float(nxt()) for _ in range(3 * dofs[b])]).reshape(3, dofs[b], order="F"))
        assert nxt() == "ref"
        while tok[i] != "end":
            i += 1
        i += 1
        Mfull = np.zeros((nv, nv)); o = 0
        for d, Mb in zip(dofs, M):
            Mfull[o:o + d, o:o + d] = Mb; o += d
        s.update(nv=nv, dofs=dofs, M=M, v0=v0, p_star=Mfull @ v0 + s["dt"] * tau, trees=np.array(trees, dtype=np.int32),
                 J=J, mu=np.array(mu), fn0=np.array(fn0), k=np.array(k), d=np.array(dd))
        yield s

def med(f, n, batch):
    """Median over n samples of the thread CPU time of `batch` calls of f, per call (µs): the
    clock itself (a system call, about 0.7 µs here) is read once per batch, not per call."""
    ts = []
    for _ in range(n):
        t = time.thread_time_ns()
        for _ in range(batch):
            f()
        ts.append(time.thread_time_ns() - t)
    return np.median(ts) / batch / 1e3


FRESH = 16  # sets of copies used in turn: each call gets other array objects than the last


for s in read_scenes(ROOT / "tests" / "data" / "engine_scenes.txt.gz", ONLY and ONLY[0]):
    solver = cs.TamsiSolver(s["nv"])
    per_contact = (s["fn0"], s["k"], s["d"], s["mu"])
    M_packed = np.concatenate([b.ravel(order="F") for b in s["M"]])
    J_packed = np.concatenate([b.ravel(order="F") for b in s["J"]])
    tree_dofs = np.array(s["dofs"], dtype=np.int32)
    copies = [[a.copy() for a in (M_packed, J_packed, s["p_star"], *per_contact)]
              for _ in range(FRESH)]
    turn = [0]

    def set_lists():
        solver.set_two_way_coupled_block_problem_data(s["dofs"], s["M"], s["trees"], s["J"], s["p_star"], *per_contact)

    M_c = [np.ascontiguousarray(b) for b in s["M"]]
    J_c = [np.ascontiguousarray(b) for b in s["J"]]

    def set_c_lists():
        solver.set_two_way_coupled_block_problem_data(s["dofs"], M_c, s["trees"], J_c, s["p_star"], *per_contact)

    def set_same():
        solver.set_two_way_coupled_block_problem_data(tree_dofs, M_packed, s["trees"], J_packed, s["p_star"], *per_contact)

    def set_fresh():
        m, j, p, *c = copies[turn[0] % FRESH]
        turn[0] += 1
        solver.set_two_way_coupled_block_problem_data(tree_dofs, m, s["trees"], j, p, *c)

    def solve():
        solver.solve_with_guess(s["dt"], s["v0"])

    def same_and_solve():  # a solve right after a set call (less "same": one solve)
        set_same()
        solve()

    forms = {"lists": set_lists, "C lists": set_c_lists, "same": set_same, "fresh": set_fresh,
             "same+solve": same_and_solve}
    if ONLY is not None:
        f = forms[ONLY[1]]
        # Everything allocated so far is left out of the collector's full passes (a full pass
        # over numpy's objects costs millions of instructions, at a call count that depends on
        # the allocations: not the setter's cost).
        gc.collect()
        gc.freeze()
        f(); f(); f()
        for _ in range(ONLY[2]):
            f()
        break

    small = s["nv"] < 700
    n, batch = (200, 10) if small else (20, 2)
    times = {}
    for name, f in (("lists", set_lists), ("C lists", set_c_lists), ("same", set_same),
                    ("fresh", set_fresh)):
        f(); f(); solve()
        times[name] = med(f, n, batch)
    times["solve"] = med(solve, n, batch)
    print(f"{s['name']:26s} solve {times['solve']:9.1f} us  set: " + "  ".join(
        f"{k} {times[k]:6.1f} us {100 * times[k] / times['solve']:6.1f} %" for k in ("lists", "C lists", "same", "fresh")))
