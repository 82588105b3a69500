/* A box sliding to rest on a plane with the interior-point (Dojo) C API: the second-order friction
 * cone against the linear ("pyramid") model (docs/ipm.md §9, cases A3/A4; the paper's Fig. 5).
 *
 * A 1 kg cube of edge 0.5 m rests flat on the ground z = 0 and is launched with v0 = (4, 0.8, 0)
 * m/s; μ = 0.25, h = 0.01 s, 250 steps. Generalized velocities v = (vx, vy, vz, ωx, ωy, ωz) of the
 * centre of mass; four contacts at the bottom corners r_i = (±a, ±a, −a), a = 0.25 m, each with
 * normal z and tangents t1 = x, t2 = y. The box stays flat: the friction torque about the corners
 * is balanced by the normal impulses, and the angular velocities the solver returns only reflect
 * the tiny interior-point gaps (of order btol/γn) that differ between corners. The orientation is
 * therefore kept fixed; the program prints the largest |ω| (below 1e-4 rad/s) to show it.
 *
 *   second-order cone: the friction opposes the sliding direction; the box slides in a straight
 *     line and stops after 167 steps at (3.306604, 0.661321), heading atan(0.2) = 11.31°;
 *   linear model: the friction set is the diamond |b1| + |b2| <= μγn; friction first acts on the
 *     larger velocity component only, the box drifts sideways and stops after 196 steps at
 *     (3.372484, 1.300788), heading 21.09°.
 *
 * Contact unknowns are impulses (N·s). Output: per step "step t x y z vx vy vz", then a summary.
 *
 * Build: cc -std=c99 -Iinclude examples_c/box_cone_vs_pyramid.c -Ltarget/release -lcontact_solvers -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "contact_solvers.h"

enum { NV = 6, NC = 4, STEPS = 250 };

static const double mass = 1.0, a = 0.25, g = 9.81, mu_value = 0.25, h = 0.01;

/* Stops the program with the library's message when a call fails for a usage reason. */
static void check(cts_status status, const cts_ipm_solver *solver, const char *what) {
  if (status >= CTS_STATUS_NULL_POINTER) {
    fprintf(stderr, "%s: %s (%s)\n", what, cts_status_string(status), cts_ipm_solver_last_error(solver));
    exit(1);
  }
}

/* Column-major Jacobians of the four bottom corners (orientation fixed, the box is flat). */
static void corner_jacobians(double *Jn, double *Jt) {
  const double corners[NC][2] = {{a, a}, {-a, a}, {-a, -a}, {a, -a}};
  const double rz = -a;
  int i, c;
  for (c = 0; c < NV * NC; ++c) Jn[c] = 0.0;
  for (c = 0; c < NV * 2 * NC; ++c) Jt[c] = 0.0;
  for (i = 0; i < NC; ++i) {
    const double rx = corners[i][0], ry = corners[i][1];
    /* Corner velocity v + ω × r. Entry (row, col) of an r-row matrix is at row + col * r. */
    Jn[i + 2 * NC] = 1.0; /* vn = vz + ωx ry − ωy rx */
    Jn[i + 3 * NC] = ry;
    Jn[i + 4 * NC] = -rx;
    Jt[2 * i + 0 * 2 * NC] = 1.0; /* t1: vx + ωy rz − ωz ry */
    Jt[2 * i + 4 * 2 * NC] = rz;
    Jt[2 * i + 5 * 2 * NC] = -ry;
    Jt[2 * i + 1 + 1 * 2 * NC] = 1.0; /* t2: vy + ωz rx − ωx rz */
    Jt[2 * i + 1 + 3 * 2 * NC] = -rz;
    Jt[2 * i + 1 + 5 * 2 * NC] = rx;
  }
}

/* Slides the box with contact model `model`; returns the number of solves that did not converge. */
static int slide(cts_ipm_solver *solver, int32_t model, const char *name) {
  const double inertia = mass * (2.0 * a) * (2.0 * a) / 6.0;
  double M[NV * NV] = {0}, Jn[NC * NV], Jt[2 * NC * NV];
  const double tau[NV] = {0.0, 0.0, -mass * g, 0.0, 0.0, 0.0};
  double x[3] = {0.0, 0.0, a}, v[NV] = {4.0, 0.8, 0.0, 0.0, 0.0, 0.0}, v_next[NV];
  double phi[NC], mu[NC], impulses[3 * NC];
  int32_t models[NC];
  const double heading0 = atan2(v[1], v[0]);
  double max_omega = 0.0, drift, normal_impulse = 0.0;
  int step, i, failures = 0, stop = 0, min_it = 1000, max_it = 0, total_it = 0;

  for (i = 0; i < 3; ++i) M[i + i * NV] = mass;
  for (i = 3; i < NV; ++i) M[i + i * NV] = inertia;
  corner_jacobians(Jn, Jt);
  for (i = 0; i < NC; ++i) {
    mu[i] = mu_value;
    models[i] = model;
  }

  printf("%s: box sliding on a plane, nc = %d\n", name, NC);
  printf("  %5s %6s %12s %12s %12s %12s %12s %12s\n", "step", "t [s]", "x [m]", "y [m]", "z [m]", "vx [m/s]",
         "vy [m/s]", "vz [m/s]");
  for (step = 1; step <= STEPS; ++step) {
    cts_status status;
    cts_ipm_stats stats;
    for (i = 0; i < NC; ++i) phi[i] = x[2] - a; /* gap of every bottom corner */
    /* Borrowed data: M, Jn, Jt, v, tau, phi, mu stay valid and unchanged until the solve returns. */
    check(cts_ipm_solver_set_problem_data(solver, NV, NC, M, NV, Jn, NC, Jt, 2 * NC, v, tau, h, phi, mu, models,
                                          NULL, 0),
          solver, "set_problem_data");
    status = cts_ipm_solver_solve(solver);
    check(status, solver, "solve");
    if (status != CTS_STATUS_OK) {
      ++failures;
      fprintf(stderr, "step %d: %s (%s)\n", step, cts_status_string(status), cts_ipm_solver_last_error(solver));
    }
    check(cts_ipm_solver_get_generalized_velocities(solver, v_next, NV), solver, "velocities");
    check(cts_ipm_solver_get_impulses(solver, impulses, 3 * NC), solver, "impulses");
    check(cts_ipm_solver_get_stats(solver, &stats), solver, "stats");
    if (stats.iterations < min_it) min_it = stats.iterations;
    if (stats.iterations > max_it) max_it = stats.iterations;
    total_it += stats.iterations;
    for (i = 0; i < NV; ++i) v[i] = v_next[i];
    for (i = 0; i < 3; ++i) x[i] += h * v[i]; /* semi-implicit Euler */
    for (i = 3; i < NV; ++i)
      if (fabs(v[i]) > max_omega) max_omega = fabs(v[i]);
    if (stop == 0 && sqrt(v[0] * v[0] + v[1] * v[1]) < 1e-3) stop = step;
    printf("  %5d %6.2f %12.9f %12.9f %12.9f %12.9f %12.9f %12.9f\n", step, step * h, x[0], x[1], x[2], v[0],
           v[1], v[2]);
  }
  for (i = 0; i < NC; ++i) normal_impulse += impulses[3 * i];
  /* Signed distance of the final position from the launch line (positive: to the left). */
  drift = cos(heading0) * x[1] - sin(heading0) * x[0];

  printf("summary: %s\n", name);
  printf("  %-28s: %d\n", "stopping step (|v| < 1e-3)", stop);
  printf("  %-28s: %.9f %.9f %.9f\n", "final position [m]", x[0], x[1], x[2]);
  printf("  %-28s: %.3e %.3e %.3e\n", "final velocity [m/s]", v[0], v[1], v[2]);
  printf("  %-28s: %.6f\n", "heading [deg]", atan2(x[1], x[0]) * 180.0 / 3.14159265358979323846);
  printf("  %-28s: %.9f\n", "lateral drift [m]", drift);
  printf("  %-28s: %.3e\n", "max |omega| [rad/s]", max_omega);
  printf("  %-28s: %.9f\n", "normal impulse at rest [N s]", normal_impulse);
  printf("  %-28s: %d %d %.2f\n", "iterations min max mean", min_it, max_it, (double)total_it / STEPS);
  printf("  %-28s: %d\n", "failed solves", failures);
  return failures;
}

int main(void) {
  cts_ipm_solver *solver = NULL;
  cts_ipm_parameters params;
  int failures = 0;

  if (cts_abi_version() != CTS_ABI_VERSION) {
    fprintf(stderr, "header and library ABI versions differ\n");
    return 1;
  }
  if (cts_ipm_solver_new(&solver) != CTS_STATUS_OK) {
    fprintf(stderr, "%s\n", cts_last_error_message());
    return 1;
  }
  cts_ipm_parameters_default(&params);
  /* The reference numbers of docs/ipm.md §9.A3/A4 are Dojo's iteration's, with the tolerances
   * of accuracy work: Dojo's default btol = 1e-4 lets a contact hover at about btol/γn (here γn is
   * a quarter of m g h per corner); with 1e-8 the corners stay within 1e-6 m of the ground. */
  params.dojo_compatible = 1;
  params.rtol = 1e-8;
  params.btol = 1e-8;
  check(cts_ipm_solver_set_parameters(solver, &params), solver, "set_parameters");

  failures += slide(solver, CTS_IPM_MODEL_SECOND_ORDER_CONE, "second-order cone");
  printf("\n");
  failures += slide(solver, CTS_IPM_MODEL_LINEAR, "linear (pyramid)");

  cts_ipm_solver_free(solver);
  return failures == 0 ? 0 : 1;
}
