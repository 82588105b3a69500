"""A distributed sweep with Ray: many friction estimates from noisy recordings of the sliding box
of ``estimate_friction.py``, fanned out over a Ray cluster (issue 31 item 3).

Each recording is the box's trajectory (N×6 velocities) with the true μ plus Gaussian noise of
one level and one seed. Fitting μ to one recording is one gradient descent through TAMSI's
sensitivities (``estimate_friction.fit``: a few thousand solves and vector–Jacobian products).
The fits are independent, so they spread over processes and machines:

* **each worker process holds its own solver**: :func:`fit_recording` keeps one
  ``estimate_friction.Simulation`` (a ``TamsiSolver`` handle and the box's matrices) per process
  and trajectory length in ``_SIMULATIONS``, made at its first task and reused by every later
  task of that process; a handle never leaves its process;
* **a task ships only arrays**: the recording in, the estimate and its (μ, L, dL/dμ) history out.

The results do not depend on where a fit runs: the same library and the same inputs give the
same bits, which the test (``tests/test_ray_sweep.py``) checks against :func:`sweep_sequential`.

Run on this machine (a local cluster of ``--cpus`` processes, loopback only)::

    python ray_sweep.py --cpus 2 --steps 200 --seeds 8

On a real cluster, start Ray there (``ray start --head`` on one node, ``ray start
--address=<head>:6379`` on the others, each with ``pip install`` of this package or
``CONTACT_SOLVERS_LIB`` pointing at the library), then pass its address::

    python ray_sweep.py --address <head>:6379 --steps 300 --seeds 200

(``ray.init(address=...)``; this folder is shipped to the workers as the job's ``working_dir``,
so they import this module and ``estimate_friction.py`` from it; see ``docs/distributed.md``).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import estimate_friction as ef

HERE = Path(__file__).resolve().parent

#: One simulation (its TAMSI handle included) per trajectory length, per process.
_SIMULATIONS: dict[int, ef.Simulation] = {}


def _simulation(steps: int) -> ef.Simulation:
    sim = _SIMULATIONS.get(steps)
    if sim is None:
        sim = _SIMULATIONS[steps] = ef.Simulation(steps)
    return sim


def recordings(steps: int, noises, seeds) -> list[np.ndarray]:
    """The noisy recordings to fit: one per (noise level, seed), steps×6 each."""
    sim = _simulation(steps)
    return [ef.record(sim, noise, seed) for noise in noises for seed in seeds]


def fit_recording(recorded: np.ndarray, mu_start: float, iterations: int):
    """μ fitted to one recording (in whichever process runs it); returns (μ, history array)."""
    sim = _simulation(recorded.shape[0])
    mu, history = ef.fit(sim, recorded, mu_start, iterations)
    return mu, np.array(history)


def sweep_sequential(recs, mu_start=0.7, iterations=12):
    """The reference: every fit in this process, in order."""
    return [fit_recording(r, mu_start, iterations) for r in recs]


def sweep_distributed(recs, mu_start=0.7, iterations=12):
    """Every fit as a Ray task (``ray.init`` must have been called); results in input order."""
    import ray

    task = ray.remote(num_cpus=1)(fit_recording)
    # ray.put once per recording: the task ships the array reference, not a copy per retry.
    return ray.get([task.remote(ray.put(r), mu_start, iterations) for r in recs])


def start_local_cluster(cpus: int, temp_dir: str | None = None) -> None:
    """A local Ray cluster of ``cpus`` worker CPUs on loopback only, without dashboard or usage
    reporting; its workers import this folder's modules and load the same library."""
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    if os.environ.get("CONTACT_SOLVERS_LIB"):
        env["CONTACT_SOLVERS_LIB"] = os.environ["CONTACT_SOLVERS_LIB"]
    # The raylet and the workers inherit the driver's environment: set it before ray.init.
    os.environ.update(env)
    ray.init(num_cpus=cpus, include_dashboard=False, _node_ip_address="127.0.0.1",
             _temp_dir=temp_dir, log_to_driver=False, configure_logging=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--address", help="a running Ray cluster (ray.init(address=...)); "
                        "default: start a local one")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local cluster")
    parser.add_argument("--steps", type=int, default=200, help="time steps per recording")
    parser.add_argument("--seeds", type=int, default=8, help="recordings per noise level")
    parser.add_argument("--iterations", type=int, default=12, help="gradient steps per fit")
    parser.add_argument("--check", action="store_true", help="also fit sequentially and compare")
    args = parser.parse_args()
    import ray

    noises = [1e-4, 1e-3]
    recs = recordings(args.steps, noises, range(1, args.seeds + 1))
    if args.address:
        ray.init(address=args.address, runtime_env={"working_dir": str(HERE)})
    else:
        start_local_cluster(args.cpus)
    try:
        t = time.perf_counter()
        results = sweep_distributed(recs, iterations=args.iterations)
        elapsed = time.perf_counter() - t
    finally:
        ray.shutdown()
    for k, (mu, history) in enumerate(results):
        print(f"noise {noises[k // args.seeds]:.0e} seed {k % args.seeds + 1:3d}: mu = {mu:.6f} "
              f"({len(history) - 1} steps, L = {history[-1][1]:.3e})")
    mus = np.array([mu for mu, _ in results])
    print(f"{len(recs)} fits in {elapsed:.2f} s: mu = {mus.mean():.6f} ± {mus.std():.2e} "
          f"(true {ef.MU_TRUE})")
    if args.check:
        same = all(a[0] == b[0] and np.array_equal(a[1], b[1])
                   for a, b in zip(results, sweep_sequential(recs, iterations=args.iterations)))
        print("distributed == sequential bit for bit:", same)


if __name__ == "__main__":
    main()
