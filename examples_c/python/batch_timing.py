"""Times one ``TamsiSolver.solve_batch`` call against a Python loop of ``solve_with_guess`` on the
same 256 worlds (``docs/performance.md`` §7; a measurement, not a test).

Each world is (``--worlds-kind``) either a random two-way TAMSI problem of nv 6–60 (``--nv-max``)
and 2–12 contacts (SPD M, random Jn, Jt, pressed contacts), or a box on the ground (``boxes``):
a free box (nv 6) on its four bottom corners, resting or landing and sliding, its mass, size,
friction, contact stiffness, time step and velocity drawn per world (what a reinforcement
learning user steps by the thousand). Its data is set once; every repetition solves every world from the same
guess, so each does the same work. The loop pays one ctypes call per world and holds the GIL;
the batch pays one call and runs on ``num_threads`` threads. The results are checked equal bit
for bit before timing.

Run with a release library: ``cargo build --release --lib`` and
``CONTACT_SOLVERS_LIB=target/release/libcontact_solvers.so python batch_timing.py``.
"""

import argparse
import time

import numpy as np

import contact_solvers as cts


def worlds(count, nv_max=60, seed=1):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        nv, nc = int(rng.integers(6, nv_max + 1)), int(rng.integers(2, 13))
        a = rng.uniform(-0.5, 0.5, (nv, nv))
        out.append(dict(
            M=np.asfortranarray(a @ a.T + np.eye(nv)), Jn=np.asfortranarray(rng.uniform(-1, 1, (nc, nv))),
            Jt=np.asfortranarray(rng.uniform(-1, 1, (2 * nc, nv))), p_star=rng.uniform(-0.1, 0.1, nv),
            fn0=rng.uniform(1, 20, nc), k=rng.uniform(1e3, 1e5, nc), d=rng.uniform(0, 5, nc),
            mu=rng.uniform(0.2, 0.9, nc), v0=rng.uniform(-0.05, 0.05, nv), dt=1e-3,
        ))
    return out


def box_worlds(count, seed=1):
    """Free boxes on the ground, TAMSI two-way data in the box's frame (axes aligned with the
    world's, velocities v = (linear, angular) at the centre of mass): 0.2–5 kg, half sizes
    0.03–0.25 m, uniform density; four contacts at the bottom corners, normal +z, tangents x
    and y, each pressed by its share of the weight (fn0 = m g / 4 at a penetration of 0.1–1 mm,
    stiffness fn0 / penetration, dissipation 0–20 s/m), μ 0.3–1; dt 1–10 ms; v0 resting
    (±1 mm/s), or landing (vz -0.05..-1 m/s) and sliding (±0.5 m/s, spin ±2 rad/s)."""
    rng = np.random.default_rng(seed)
    out = []
    g = 9.81
    for i in range(count):
        m = rng.uniform(0.2, 5.0)
        a, b, c = rng.uniform(0.03, 0.25, 3)  # half sizes (m)
        inertia = m / 3.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
        M = np.diag(np.concatenate([[m, m, m], inertia]))
        corners = [np.array([sx * a, sy * b, -c]) for sx in (-1, 1) for sy in (-1, 1)]
        jn, jt = [], []
        for r in corners:
            rows = []
            for d in np.eye(3):  # velocity of the corner along d: d·v + (r × d)·ω
                rows.append(np.concatenate([d, np.cross(r, d)]))
            jt += [rows[0], rows[1]]
            jn.append(rows[2])
        dt = rng.choice([1e-3, 2e-3, 5e-3, 1e-2])
        if i % 2:
            v0 = np.concatenate([rng.uniform(-0.5, 0.5, 2), [rng.uniform(-1.0, -0.05)],
                                 rng.uniform(-2.0, 2.0, 3)])
        else:
            v0 = rng.uniform(-1e-3, 1e-3, 6)
        fn0 = np.full(4, m * g / 4)
        depth = rng.uniform(1e-4, 1e-3, 4)
        tau = np.array([0.0, 0.0, -m * g, 0.0, 0.0, 0.0])
        out.append(dict(
            M=np.asfortranarray(M), Jn=np.asfortranarray(jn), Jt=np.asfortranarray(jt),
            p_star=M @ v0 + dt * tau, fn0=fn0, k=fn0 / depth, d=rng.uniform(0.0, 20.0, 4),
            mu=rng.uniform(0.3, 1.0, 4), v0=v0, dt=float(dt),
        ))
    return out


def solvers(ws):
    out = []
    for w in ws:
        s = cts.TamsiSolver(w["M"].shape[0])
        s.set_two_way_coupled_problem_data(w["M"], w["Jn"], w["Jt"], w["p_star"], w["fn0"], w["k"],
                                           w["d"], w["mu"])
        out.append(s)
    return out


def best(f, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worlds", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--nv-max", type=int, default=60, help="random worlds of nv 6..nv_max")
    parser.add_argument("--worlds-kind", choices=("random", "boxes"), default="random")
    args = parser.parse_args()
    ws = worlds(args.worlds, args.nv_max) if args.worlds_kind == "random" else box_worlds(args.worlds)
    loop_solvers, batch_solvers = solvers(ws), solvers(ws)
    dts = np.array([w["dt"] for w in ws])
    guesses = [w["v0"] for w in ws]

    def loop():
        for s, w in zip(loop_solvers, ws):
            s.solve_with_guess(w["dt"], w["v0"])

    def batch(threads):
        return lambda: cts.TamsiSolver.solve_batch(batch_solvers, dts, guesses, num_threads=threads)

    loop()
    results = batch(2)()
    same = all(a.get_generalized_velocities().tobytes() == b.get_generalized_velocities().tobytes()
               for a, b in zip(loop_solvers, batch_solvers))
    nv = [w["M"].shape[0] for w in ws]
    its = [s.get_iteration_statistics().num_iterations for s in loop_solvers]
    print(f"{len(ws)} {args.worlds_kind} worlds, nv {min(nv)}..{max(nv)} (mean {np.mean(nv):.1f}), "
          f"Newton iterations {min(its)}..{max(its)} (mean {np.mean(its):.1f}); "
          f"{sum(r is cts.TamsiSolverResult.kSuccess for r in results)} converge; "
          f"batch == loop bit for bit: {same}")
    # Interleaved (one of each per repetition, best of each): timed one after the other, the
    # first kind measured ran up to 1.5x slower than when timed again (docs/performance.md §7).
    kinds = {"loop": loop, 0: batch(0), 2: batch(2)}
    times = {k: [] for k in kinds}
    for _ in range(args.repeats):
        for k, f in kinds.items():
            times[k].append(best(f, 1))
    t_loop = min(times["loop"])
    print(f"python loop of solve_with_guess: {1e3 * t_loop:8.3f} ms")
    for threads in (0, 2):
        t = min(times[threads])
        print(f"solve_batch, num_threads={threads}:   {1e3 * t:8.3f} ms  ({t_loop / t:.2f}x the loop)")


if __name__ == "__main__":
    main()
