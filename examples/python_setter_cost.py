"""The Python setter's cost beside a TAMSI solve on the engine scenes of tests/data, with M and J
given as lists of blocks (what a bridge from MuJoCo writes), issue 29 item 5.

    cargo build --release --lib
    python3 examples/python_setter_cost.py

Median thread CPU time of `set_two_way_coupled_block_problem_data` and of a cold
`solve_with_guess` from v0 (docs/performance.md, "The setter from Python"). A measurement, not a
test: the figures depend on the machine and its load."""
import gzip
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import contact_solvers as cs  # noqa: E402

def read_scenes(path):
    tok = gzip.open(path, "rt").read().split()
    i = 0
    def nxt():
        nonlocal i
        i += 1
        return tok[i - 1]
    assert nxt() == "CTS_SCENES" and nxt() == "1"
    out = []
    for _ in range(int(nxt())):
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
        out.append(s)
    return out

def med(f, n):
    ts = []
    for _ in range(n):
        t = time.thread_time_ns(); f(); ts.append(time.thread_time_ns() - t)
    return np.median(ts) / 1e3

for s in read_scenes(ROOT / "tests" / "data" / "engine_scenes.txt.gz"):
    solver = cs.TamsiSolver(s["nv"])
    def setd():
        solver.set_two_way_coupled_block_problem_data(s["dofs"], s["M"], s["trees"], s["J"], s["p_star"], s["fn0"], s["k"], s["d"], s["mu"])
    def solve():
        solver.solve_with_guess(s["dt"], s["v0"])
    setd(); solve()
    n = 200 if s["nv"] < 700 else 20
    ts, tv = med(setd, n), med(solve, n)
    print(f"{s['name']:28s} set {ts:8.1f} us  solve {tv:9.1f} us  set/solve {100*ts/tv:6.1f} %")
