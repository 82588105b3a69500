/* Rolling cylinder (Drake's RollingCylinder test, docs/tamsi_cases.md §3) with the TAMSI C API.
 *
 * A thin-shell cylinder (m = 1 kg, R = 1 m, I = m R²) falls from 0.5 m onto the ground with a
 * horizontal velocity vx0 and must stop vertically within one 1 ms step. Compliant normal contact
 * (two-way coupling: the normal force depends on the normal velocity) with regularized friction
 * (μ = 0.1). Generalized velocities v = (vx, vy, ω). The single contact point can be replicated
 * nc times to emulate multi-contact; the solver handle is reused for every nc, as an engine reuses
 * it across steps.
 *
 *   vx0 = 0.5 m/s: the cylinder ends up rolling (stiction), vx = -R ω ≈ 0.25 m/s;
 *   vx0 = 0.7 m/s: it keeps sliding, friction = μ fn.
 *
 * Build: cc -std=c99 -Iinclude examples_c/rolling_cylinder.c -Ltarget/release -lcontact_solvers -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "contact_solvers.h"

enum { NV = 3 };

/* Prints "  <label>: x0 x1 ..." with round-trip precision. */
static void print_vector(const char *label, const double *x, size_t n) {
  size_t i;
  printf("  %-22s:", label);
  for (i = 0; i < n; ++i) printf(" %.17g", x[i]);
  printf("\n");
}

/* Stops the program with the library's message when a call fails for a usage reason. */
static void check(cts_status status, const cts_tamsi_solver *solver, const char *what) {
  if (status >= CTS_STATUS_NULL_POINTER) {
    fprintf(stderr, "%s: %s (%s)\n", what, cts_status_string(status), cts_tamsi_solver_last_error(solver));
    exit(1);
  }
}

/* One step of the falling cylinder with nc copies of the contact. */
static int solve_step(cts_tamsi_solver *solver, const char *name, double vx0, size_t nc) {
  const double m = 1.0, radius = 1.0, g = 9.0, inertia = 1.0, mu = 0.1, dt = 1.0e-3;
  const double penetration_allowance = 1.0e-6, x_initial = 1.0e-3, h0 = 0.5;
  const double stiffness = m * g / penetration_allowance;      /* 9e6 N/m */
  const double omega_n = sqrt(stiffness / m);                    /* 3000 rad/s */
  const double dissipation = 1.0 * (1.0 / omega_n) / penetration_allowance; /* critical damping */
  const double M[NV * NV] = {m, 0, 0, 0, m, 0, 0, 0, inertia};  /* column-major */
  double v0[NV], p_star[NV], v[NV], tau_f[NV], tau[NV];
  double *Jn = calloc(nc * NV, sizeof(double));
  double *Jt = calloc(2 * nc * NV, sizeof(double));
  double *fn0 = malloc(nc * sizeof(double)), *k = malloc(nc * sizeof(double));
  double *d = malloc(nc * sizeof(double)), *mus = malloc(nc * sizeof(double));
  double *vn = malloc(nc * sizeof(double)), *vt = malloc(2 * nc * sizeof(double));
  double *fn = malloc(nc * sizeof(double)), *ft = malloc(2 * nc * sizeof(double));
  double fn_total = 0.0;
  size_t i;
  cts_status status;
  cts_tamsi_iteration_stats stats;

  if (!Jn || !Jt || !fn0 || !k || !d || !mus || !vn || !vt || !fn || !ft) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (i = 0; i < nc; ++i) {
    /* Column-major: entry (row, col) of an r-row matrix is at row + col * r. */
    Jn[i + 1 * nc] = 1.0;               /* vn = vy */
    Jt[2 * i + 0 * 2 * nc] = 1.0;       /* row 2i: vt0 = vx + R ω ... */
    Jt[2 * i + 2 * 2 * nc] = radius;    /* ... (row 2i+1, the out-of-plane direction, stays 0) */
    fn0[i] = stiffness * (x_initial / (double)nc);
    k[i] = stiffness;
    d[i] = dissipation;
    mus[i] = mu;
  }
  v0[0] = vx0;
  v0[1] = -sqrt(2.0 * g * h0); /* -3 m/s at impact */
  v0[2] = 0.0;
  p_star[0] = m * v0[0];
  p_star[1] = m * v0[1] + dt * (-m * g);
  p_star[2] = inertia * v0[2];

  check(cts_tamsi_solver_set_two_way_coupled_problem_data(solver, nc, M, NV, Jn, nc, Jt, 2 * nc, p_star,
                                                          fn0, k, d, mus),
        solver, "set_two_way_coupled_problem_data");
  status = cts_tamsi_solver_solve_with_guess(solver, dt, v0, NV);
  check(status, solver, "solve_with_guess");

  check(cts_tamsi_solver_get_iteration_stats(solver, &stats), solver, "get_iteration_stats");
  check(cts_tamsi_solver_get_generalized_velocities(solver, v, NV), solver, "v");
  check(cts_tamsi_solver_get_normal_velocities(solver, vn, nc), solver, "vn");
  check(cts_tamsi_solver_get_tangential_velocities(solver, vt, 2 * nc), solver, "vt");
  check(cts_tamsi_solver_get_normal_forces(solver, fn, nc), solver, "fn");
  check(cts_tamsi_solver_get_friction_forces(solver, ft, 2 * nc), solver, "ft");
  check(cts_tamsi_solver_get_generalized_friction_forces(solver, tau_f, NV), solver, "tau_f");
  check(cts_tamsi_solver_get_generalized_contact_forces(solver, tau, NV), solver, "tau");
  for (i = 0; i < nc; ++i) fn_total += fn[i];

  printf("%s: vx0 = %g m/s, nc = %lu\n", name, vx0, (unsigned long)nc);
  printf("  %-22s: %d (%s)\n", "outcome", (int)status, cts_status_string(status));
  printf("  %-22s: %d\n", "iterations", (int)stats.num_iterations);
  printf("  %-22s: %.3g\n", "last |dvt| [m/s]", stats.vt_residual);
  print_vector("v [m/s, m/s, rad/s]", v, NV);
  print_vector("vn contact 0 [m/s]", vn, 1);
  print_vector("vt contact 0 [m/s]", vt, 2);
  print_vector("fn contact 0 [N]", fn, 1);
  print_vector("ft contact 0 [N]", ft, 2);
  print_vector("fn total [N]", &fn_total, 1);
  print_vector("tau_f [N, N, N m]", tau_f, NV);
  print_vector("tau [N, N, N m]", tau, NV);
  printf("  %-22s: %s\n", "regime", fabs(vt[0]) < 1e-6 ? "rolling (stiction)" : "sliding");

  free(Jn); free(Jt); free(fn0); free(k); free(d); free(mus);
  free(vn); free(vt); free(fn); free(ft);
  return status == CTS_STATUS_OK ? 0 : 1;
}

int main(void) {
  static const size_t contact_counts[] = {1, 4, 16, 64, 256};
  cts_tamsi_solver *solver = NULL, *sliding = NULL;
  cts_tamsi_parameters params;
  int failures = 0;
  size_t i;

  if (cts_abi_version() != CTS_ABI_VERSION) {
    fprintf(stderr, "header/library ABI mismatch: %u vs %u\n", (unsigned)CTS_ABI_VERSION, cts_abi_version());
    return 1;
  }
  printf("contact_solvers %s: TAMSI rolling cylinder (two-way coupled, dt = 1 ms)\n\n", cts_version());

  if (cts_tamsi_solver_new(NV, &solver) != CTS_STATUS_OK) {
    fprintf(stderr, "cts_tamsi_solver_new: %s\n", cts_last_error_message());
    return 1;
  }
  cts_tamsi_parameters_default(&params);
  params.stiction_tolerance = 1.0e-6; /* m/s */
  check(cts_tamsi_solver_set_parameters(solver, &params), solver, "set_parameters");

  for (i = 0; i < sizeof contact_counts / sizeof contact_counts[0]; ++i) {
    failures += solve_step(solver, "stiction after impact", 0.5, contact_counts[i]);
  }
  /* A second, independent handle: a copy of the first's parameters. */
  if (cts_tamsi_solver_clone(solver, &sliding) != CTS_STATUS_OK) {
    fprintf(stderr, "cts_tamsi_solver_clone: %s\n", cts_last_error_message());
    return 1;
  }
  failures += solve_step(sliding, "sliding after impact", 0.7, 1);

  cts_tamsi_solver_free(sliding);
  cts_tamsi_solver_free(solver);
  return failures == 0 ? 0 : 1;
}
