/* Baraff's pivoting contact solver (Darwin2K's constraintSolver) from plain C99.
 *
 * 1. A particle on an incline through the matrix interface (a = A f + b), docs/baraff.md §11 B2.
 * 2. A 1 m x 0.5 m box resting on a plane whose tilt grows: the model interface (M, J, tau)
 *    builds A and b; the box sticks until the tilt reaches atan(mu) and then slides, with both
 *    corner frictions saturated at -mu N. The onset tilt is found by bisection.
 * 3. The Painleve rod (B5, B5b): with mu_d = 3 sliding left, no finite contact force exists (the
 *    effective normal coefficient is negative): the solve reports an unbounded ray. A consistency
 *    impulse with the contact sticking stops the slip, and the static-friction force problem
 *    (with the centripetal term J'q') is then solvable.
 *
 * Units: SI (m, kg, s, N, N s, rad). Planar bodies use coordinates (x, y, theta); a body point at
 * offset r = (rx, ry) from the centre of mass has the normal (vertical) Jacobian row (0, 1, rx)
 * and the tangential (horizontal) row (1, 0, -ry). Matrices are column-major.
 *
 * Build: cc -std=c99 -Iinclude examples_c/baraff_box_and_rod.c -Ltarget/release -lcontact_solvers -lm */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "contact_solvers.h"

static const double G = 9.81;
static const double PI = 3.14159265358979323846;

/* Usage errors are bugs in this program: report and stop. Baraff outcomes are returned. */
static cts_status check(cts_status s, const cts_baraff_solver *solver, const char *what) {
  if (s >= 100) {
    fprintf(stderr, "%s: %s: %s\n", what, cts_status_string(s), cts_baraff_solver_last_error(solver));
    exit(1);
  }
  return s;
}

static const char *status_name(cts_status s) {
  switch (s) {
    case CTS_STATUS_OK: return "CTS_STATUS_OK";
    case CTS_STATUS_BARAFF_INEXACT: return "CTS_STATUS_BARAFF_INEXACT";
    case CTS_STATUS_BARAFF_UNBOUNDED_RAY: return "CTS_STATUS_BARAFF_UNBOUNDED_RAY";
    case CTS_STATUS_BARAFF_CYCLING: return "CTS_STATUS_BARAFF_CYCLING";
    case CTS_STATUS_BARAFF_PIVOT_LIMIT: return "CTS_STATUS_BARAFF_PIVOT_LIMIT";
    default: return "other";
  }
}

static const char *set_name(int32_t set) {
  switch (set) {
    case CTS_BARAFF_SET_CLAMPED: return "C";
    case CTS_BARAFF_SET_SEPARATING: return "NC";
    case CTS_BARAFF_SET_AT_UPPER: return "S+";
    case CTS_BARAFF_SET_AT_LOWER: return "S-";
    default: return "other";
  }
}

static void print_values(const char *label, const double *x, size_t n) {
  size_t i;
  printf("  %s:", label);
  for (i = 0; i < n; ++i) printf(" %.9f", x[i]);
  printf("\n");
}

static void print_sets(const cts_baraff_solver *solver, size_t m) {
  int32_t sets[8];
  size_t i;
  check(cts_baraff_solver_get_row_sets(solver, sets, m), solver, "row sets");
  printf("  row sets:");
  for (i = 0; i < m; ++i) printf(" %d", (int)sets[i]);
  printf(" (");
  for (i = 0; i < m; ++i) printf("%s%s", i ? " " : "", set_name(sets[i]));
  printf(")\n");
}

static void print_status(cts_status s) { printf("  status: %d = %s\n", (int)s, status_name(s)); }

/* ---------------------------------------------------------------------------------------------
 * 1. Particle on an incline, matrix interface (B2): rows (normal, friction down-slope), A = I,
 *    b = (-g cos(tilt), g sin(tilt)). */
static void particle_on_incline(cts_baraff_solver *solver, double tilt_deg) {
  const double A[4] = {1, 0, 0, 1};
  const double th = tilt_deg * PI / 180.0;
  const double b[2] = {-G * cos(th), G * sin(th)};
  const int32_t kind[2] = {CTS_BARAFF_ROW_NORMAL, CTS_BARAFF_ROW_FRICTION};
  const int32_t normal[2] = {-1, 0}; /* row 1's normal is row 0; row 0's entry is not read */
  const double mu[2] = {0.0, 0.5};
  double f[2], a[2];
  cts_status s;
  /* Borrowed: A, b, kind, normal and mu stay alive until the solve below has returned. Without
   * boxed rows, lo and hi may be NULL. */
  check(cts_baraff_solver_set_matrix_problem_data(solver, 2, A, 2, b, kind, normal, mu, NULL, NULL),
        solver, "set matrix data");
  s = check(cts_baraff_solver_solve(solver), solver, "solve");
  check(cts_baraff_solver_get_forces(solver, f, 2), solver, "forces");
  check(cts_baraff_solver_get_accelerations(solver, a, 2), solver, "accelerations");
  printf("particle on an incline (matrix interface, B2): tilt = %g deg, mu_s = 0.5\n", tilt_deg);
  print_status(s);
  print_values("forces (f_n, f_t) [N]", f, 2);
  print_values("accelerations (a_n, a_t) [m/s^2]", a, 2);
  print_sets(solver, 2);
}

/* ---------------------------------------------------------------------------------------------
 * 2. Box on a tilted plane, model interface. Coordinates in the plane's frame: x down-slope,
 *    y along the plane's normal. Rows: normal left, normal right, friction left, friction right.
 *    Returns 1 when the box slides (both frictions saturated at -mu N). */
enum { BOX_M = 4, BOX_N = 3 };
static const double BOX_MU = 0.5;

typedef struct {
  double M[BOX_N * BOX_N], J[BOX_M * BOX_N], tau[BOX_N];
  int32_t kind[BOX_M], normal[BOX_M];
  double mu[BOX_M];
} box_problem;

static void box_init(box_problem *p) {
  const double I = (1.0 * 1.0 + 0.5 * 0.5) / 12.0;
  const double rx[2] = {-0.5, 0.5}, ry = -0.25;
  int c;
  for (c = 0; c < BOX_N * BOX_N; ++c) p->M[c] = 0.0;
  p->M[0] = 1.0;
  p->M[4] = 1.0;
  p->M[8] = I;
  for (c = 0; c < 2; ++c) {
    /* J is 4x3 column-major: element (row, col) at J[row + 4 col]. */
    p->J[c + 0] = 0.0; /* normal rows (0, 1, rx) */
    p->J[c + 4] = 1.0;
    p->J[c + 8] = rx[c];
    p->J[2 + c + 0] = 1.0; /* friction rows (1, 0, -ry) */
    p->J[2 + c + 4] = 0.0;
    p->J[2 + c + 8] = -ry;
    p->kind[c] = CTS_BARAFF_ROW_NORMAL;
    p->kind[2 + c] = CTS_BARAFF_ROW_FRICTION;
    p->normal[c] = -1;
    p->normal[2 + c] = c;
    p->mu[c] = 0.0;
    p->mu[2 + c] = BOX_MU;
  }
}

static int box_solve(cts_baraff_solver *solver, box_problem *p, double tilt_deg, int print) {
  const double th = tilt_deg * PI / 180.0;
  double f[BOX_M], qdd[BOX_N];
  int32_t sets[BOX_M];
  int sliding;
  cts_status s;
  p->tau[0] = G * sin(th); /* gravity on the 1 kg box in the plane's frame */
  p->tau[1] = -G * cos(th);
  p->tau[2] = 0.0;
  check(cts_baraff_solver_set_model_problem_data(solver, BOX_M, BOX_N, p->M, BOX_N, p->J, BOX_M,
                                                 CTS_BARAFF_LEVEL_ACCELERATION, p->tau, p->kind,
                                                 p->normal, p->mu, NULL, NULL),
        solver, "set model data");
  s = check(cts_baraff_solver_solve(solver), solver, "solve");
  check(cts_baraff_solver_get_forces(solver, f, BOX_M), solver, "forces");
  check(cts_baraff_solver_get_row_sets(solver, sets, BOX_M), solver, "row sets");
  check(cts_baraff_solver_get_generalized_result(solver, qdd, BOX_N), solver, "accelerations");
  /* One corner's friction may saturate while the other still holds (the split between the
   * corners is not unique); the box slides when both are saturated at -mu N. */
  sliding = sets[2] == CTS_BARAFF_SET_AT_LOWER && sets[3] == CTS_BARAFF_SET_AT_LOWER;
  if (print) {
    const double totals[2] = {f[0] + f[1], f[2] + f[3]};
    printf("box on a tilted plane (model interface): tilt = %g deg, mu_s = %g\n", tilt_deg, BOX_MU);
    print_status(s);
    print_values("normal forces (left, right) [N]", f, 2);
    print_values("friction forces (left, right) [N]", f + 2, 2);
    print_values("total (normal, friction) [N]", totals, 2);
    print_values("tangential acceleration [m/s^2]", qdd, 1);
    print_sets(solver, BOX_M);
    printf("  regime: %s\n", sliding ? "sliding" : "sticking");
  }
  return sliding;
}

static void box_on_tilted_plane(cts_baraff_solver *solver) {
  box_problem p;
  double lo = 0.0, hi = 45.0;
  int tilt, i;
  box_init(&p);
  for (tilt = 0; tilt <= 35; tilt += 5) box_solve(solver, &p, (double)tilt, 1);
  /* Slip onset: bisection on the tilt between sticking (lo) and sliding (hi). */
  for (i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (box_solve(solver, &p, mid, 0)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  printf("slip onset of the box (bisection on the tilt)\n");
  printf("  onset tilt [deg]: %.9f\n", 0.5 * (lo + hi));
  printf("  atan(mu) [deg]: %.9f\n", atan(BOX_MU) * 180.0 / PI);
}

/* ---------------------------------------------------------------------------------------------
 * 3. Painleve rod: length 1 (l = 0.5), m = 1, I = 1/12, lower-left end on the ground at 30 deg. */
typedef struct {
  double M[9], jn[3], jt[3], r[2];
} rod;

static void rod_init(rod *p) {
  const double th = 30.0 * PI / 180.0;
  int k;
  for (k = 0; k < 9; ++k) p->M[k] = 0.0;
  p->M[0] = 1.0;
  p->M[4] = 1.0;
  p->M[8] = 1.0 / 12.0;
  p->r[0] = -0.5 * cos(th);
  p->r[1] = -0.5 * sin(th);
  p->jn[0] = 0.0;
  p->jn[1] = 1.0;
  p->jn[2] = p->r[0];
  p->jt[0] = 1.0;
  p->jt[1] = 0.0;
  p->jt[2] = -p->r[1];
}

/* The contact slides (slip = -1: left, +1: right): one normal row whose force acts along
 * n - mu_d v (N - mu Q), no friction row. */
static void rod_sliding(cts_baraff_solver *solver, const rod *p, double mu_d, double slip) {
  const double tau[3] = {0.0, -G, 0.0};
  const int32_t kind[1] = {CTS_BARAFF_ROW_NORMAL};
  const double mu[1] = {mu_d};
  double Q[3], A[1], b[1], f[1];
  cts_baraff_stats stats;
  cts_status s;
  int k;
  for (k = 0; k < 3; ++k) Q[k] = slip * p->jt[k];
  check(cts_baraff_solver_set_model_problem_data(solver, 1, 3, p->M, 3, p->jn, 1,
                                                 CTS_BARAFF_LEVEL_ACCELERATION, tau, kind, NULL,
                                                 NULL, NULL, NULL),
        solver, "set model data");
  check(cts_baraff_solver_set_model_sliding(solver, Q, 1, mu, 1), solver, "set sliding");
  s = check(cts_baraff_solver_solve(solver), solver, "solve");
  if (s != CTS_STATUS_OK) {
    /* An outcome, not an error: the detail is in last_error, the results are readable. */
    printf("Painleve rod sliding %s: mu_d = %g, theta = 30 deg (B5) -- %s\n", slip < 0 ? "left" : "right",
           mu_d, cts_baraff_solver_last_error(solver));
  } else {
    printf("Painleve rod sliding %s: mu_d = %g, theta = 30 deg (B5)\n", slip < 0 ? "left" : "right", mu_d);
  }
  check(cts_baraff_solver_get_composed_matrix(solver, A, 1), solver, "A");
  check(cts_baraff_solver_get_composed_b(solver, b, 1), solver, "b");
  check(cts_baraff_solver_get_forces(solver, f, 1), solver, "forces");
  check(cts_baraff_solver_get_stats(solver, &stats), solver, "stats");
  print_status(s);
  printf("  unbounded ray row: %d\n", (int)stats.row);
  print_values("effective normal coefficient A' [1/kg]", A, 1);
  print_values("b [m/s^2]", b, 1);
  print_values("normal force [N]", f, 1);
}

static void rod_consistency_impulse_then_forces(cts_baraff_solver *solver, const rod *p) {
  /* Velocity level: rows (normal, tangent) of the contact, the tangent as static friction with
   * mu_s = 3; the rod translates left at 1 m/s, so the contact point slides at v_t = -1. */
  double J[6], qdot[3] = {-1.0, 0.0, 0.0}, dqdot[3], K[4], v[2], P[2], vplus[2], ratio;
  const int32_t kind[2] = {CTS_BARAFF_ROW_NORMAL, CTS_BARAFF_ROW_FRICTION};
  const int32_t normal[2] = {-1, 0};
  const double mu[2] = {0.0, 3.0};
  const double tau[3] = {0.0, -G, 0.0};
  double bias[2], b[2], f[2], a[2], omega, ft_ratio;
  cts_status s;
  int k;
  for (k = 0; k < 3; ++k) {
    J[0 + 2 * k] = p->jn[k];
    J[1 + 2 * k] = p->jt[k];
  }
  check(cts_baraff_solver_set_model_problem_data(solver, 2, 3, p->M, 3, J, 2, CTS_BARAFF_LEVEL_VELOCITY,
                                                 qdot, kind, normal, mu, NULL, NULL),
        solver, "set velocity-level data");
  s = check(cts_baraff_solver_consistency_impulse(solver, 0), solver, "consistency impulse");
  check(cts_baraff_solver_get_composed_matrix(solver, K, 2), solver, "K");
  check(cts_baraff_solver_get_composed_b(solver, v, 2), solver, "v");
  check(cts_baraff_solver_get_forces(solver, P, 2), solver, "impulses");
  check(cts_baraff_solver_get_accelerations(solver, vplus, 2), solver, "post-impulse velocities");
  check(cts_baraff_solver_get_generalized_change(solver, dqdot, 3), solver, "velocity change");
  ratio = fabs(P[1]) / P[0];
  printf("consistency impulse for the rod sliding left at 1 m/s: mu_s = 3, contact sticking (B5b)\n");
  print_status(s);
  print_values("K = J M^-1 J^T (column-major)", K, 4);
  print_values("pre-impulse contact velocities (v_n, v_t) [m/s]", v, 2);
  print_values("impulse (P_n, P_t) [N s]", P, 2);
  print_values("|P_t|/P_n", &ratio, 1);
  /* applyImpulse is the host's: q' += M^-1 J^T P. */
  for (k = 0; k < 3; ++k) qdot[k] += dqdot[k];
  print_values("velocities after (x', y', theta') [m/s, m/s, rad/s]", qdot, 3);
  print_values("contact velocities after (v_n, v_t) [m/s]", vplus, 2);

  /* The static-friction force problem after the impulse, with the velocity-product term
   * J'q' = -omega^2 r projected on (n, t) = (y, x). */
  omega = qdot[2];
  bias[0] = -omega * omega * p->r[1];
  bias[1] = -omega * omega * p->r[0];
  check(cts_baraff_solver_set_model_problem_data(solver, 2, 3, p->M, 3, J, 2,
                                                 CTS_BARAFF_LEVEL_ACCELERATION, tau, kind, normal, mu,
                                                 NULL, NULL),
        solver, "set force data");
  check(cts_baraff_solver_set_model_bias(solver, bias, 2), solver, "set bias");
  s = check(cts_baraff_solver_solve(solver), solver, "solve");
  check(cts_baraff_solver_get_composed_b(solver, b, 2), solver, "b");
  check(cts_baraff_solver_get_forces(solver, f, 2), solver, "forces");
  check(cts_baraff_solver_get_accelerations(solver, a, 2), solver, "accelerations");
  ft_ratio = fabs(f[1]) / f[0];
  printf("static-friction forces after the impulse (B5b)\n");
  print_status(s);
  print_values("b with the centripetal term [m/s^2]", b, 2);
  print_values("forces (f_n, f_t) [N]", f, 2);
  print_values("|f_t|/f_n", &ft_ratio, 1);
  print_values("accelerations (a_n, a_t) [m/s^2]", a, 2);
  print_sets(solver, 2);
}

int main(void) {
  cts_baraff_solver *solver = NULL;
  rod r;
  if (cts_abi_version() != CTS_ABI_VERSION) {
    fprintf(stderr, "header and library do not match\n");
    return 1;
  }
  if (cts_baraff_solver_new(&solver) != CTS_STATUS_OK) {
    fprintf(stderr, "%s\n", cts_last_error_message());
    return 1;
  }
  particle_on_incline(solver, 20.0);
  particle_on_incline(solver, 30.0);
  box_on_tilted_plane(solver);
  rod_init(&r);
  rod_sliding(solver, &r, 3.0, -1.0);
  rod_sliding(solver, &r, 0.3, -1.0);
  rod_sliding(solver, &r, 3.0, 1.0);
  rod_consistency_impulse_then_forces(solver, &r);
  cts_baraff_solver_free(solver);
  return 0;
}
