#!/usr/bin/env python3
"""Rolling cylinder (Drake's RollingCylinder test, docs/tamsi_cases.md §3) with the TAMSI
solver, from Python through ctypes: the same scene and the same printout as
examples_c/rolling_cylinder.c.

A thin-shell cylinder (m = 1 kg, R = 1 m, I = m R²) falls from 0.5 m onto the ground with a
horizontal velocity vx0 and must stop vertically within one 1 ms step. Compliant normal contact
(two-way coupling) with regularized friction (μ = 0.1); v = (vx, vy, ω). The contact point is
replicated nc times to emulate multi-contact, on one solver object, as an engine reuses it.

    vx0 = 0.5 m/s: the cylinder ends up rolling (stiction), vx = −R ω ≈ 0.25 m/s;
    vx0 = 0.7 m/s: it keeps sliding, friction = μ fn.

Run: python3 examples_c/python/rolling_cylinder.py [path/to/libcontact_solvers.so]
(needs numpy; without the argument the library is found as the package contact_solvers describes).
"""

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contact_solvers as cts  # noqa: E402

NV = 3


def print_vector(label, x):
    print(f"  {label:<22}:" + "".join(f" {float(e)!r}" for e in np.atleast_1d(x)))


def solve_step(solver, name, vx0, nc):
    m, radius, g, inertia, mu, dt = 1.0, 1.0, 9.0, 1.0, 0.1, 1.0e-3
    penetration_allowance, x_initial, h0 = 1.0e-6, 1.0e-3, 0.5
    stiffness = m * g / penetration_allowance  # 9e6 N/m
    omega_n = math.sqrt(stiffness / m)  # 3000 rad/s
    dissipation = 1.0 * (1.0 / omega_n) / penetration_allowance  # critical damping

    # Fortran order: the library reads matrices column-major (C-order arrays would be copied).
    M = np.asfortranarray(np.diag([m, m, inertia]))
    Jn = np.zeros((nc, NV), order="F")
    Jn[:, 1] = 1.0  # vn = vy
    Jt = np.zeros((2 * nc, NV), order="F")
    Jt[0::2, 0] = 1.0  # row 2i: vt0 = vx + R ω (row 2i+1, out of plane, stays 0)
    Jt[0::2, 2] = radius
    v0 = np.array([vx0, -math.sqrt(2.0 * g * h0), 0.0])  # -3 m/s at impact
    p_star = M @ v0 + dt * np.array([0.0, -m * g, 0.0])

    # The solver borrows these arrays (and keeps them alive) until the next set call.
    solver.set_two_way_coupled_problem_data(
        M, Jn, Jt, p_star,
        fn0=np.full(nc, stiffness * (x_initial / nc)),
        stiffness=np.full(nc, stiffness),
        dissipation=np.full(nc, dissipation),
        mu=np.full(nc, mu),
    )
    result = solver.solve_with_guess(dt, v0)

    stats = solver.get_iteration_statistics()
    v = solver.get_generalized_velocities()
    vn = solver.get_normal_velocities()
    vt = solver.get_tangential_velocities()
    fn = solver.get_normal_forces()
    ft = solver.get_friction_forces()
    tau_f = solver.get_generalized_friction_forces()
    tau = solver.get_generalized_contact_forces()

    print(f"{name}: vx0 = {vx0:g} m/s, nc = {nc}")
    print(f"  {'outcome':<22}: {int(result)} ({result.name})")
    print(f"  {'iterations':<22}: {stats.num_iterations}")
    print(f"  {'last |dvt| [m/s]':<22}: {stats.vt_residual:.3g}")
    print_vector("v [m/s, m/s, rad/s]", v)
    print_vector("vn contact 0 [m/s]", vn[:1])
    print_vector("vt contact 0 [m/s]", vt[:2])
    print_vector("fn contact 0 [N]", fn[:1])
    print_vector("ft contact 0 [N]", ft[:2])
    print_vector("fn total [N]", fn.sum())
    print_vector("tau_f [N, N, N m]", tau_f)
    print_vector("tau [N, N, N m]", tau)
    regime = "rolling (stiction)" if abs(vt[0]) < 1e-6 else "sliding"
    print(f"  {'regime':<22}: {regime}")
    return result == cts.TamsiSolverResult.kSuccess


def main(argv):
    library = cts.load_library(argv[1] if len(argv) > 1 else None)
    print(f"contact_solvers {cts.version(library)}: TAMSI rolling cylinder "
          "(two-way coupled, dt = 1 ms)\n")
    ok = True
    with cts.TamsiSolver(NV, library=library) as solver:
        solver.set_solver_parameters(cts.TamsiSolverParameters(stiction_tolerance=1.0e-6))
        for nc in (1, 4, 16, 64, 256):
            ok &= solve_step(solver, "stiction after impact", 0.5, nc)
        # A second, independent solver: a copy of the first's parameters.
        with solver.clone() as sliding:
            ok &= solve_step(sliding, "sliding after impact", 0.7, 1)
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except cts.ContactSolversError as e:
        print(f"usage error: {e}", file=sys.stderr)
        sys.exit(1)
