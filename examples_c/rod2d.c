/* Drake's Rod2D (docs/rigid_cases.md §1) with the rigid constraint-solver C API (cts_rigid_*):
 * Drake's ConstraintSolver on a rod (m = 2 kg, J = 1 kg m², half length 1 m) in the vertical x-y
 * plane above the ground y <= 0. Generalized velocities v = (vx, vy, ω); gravity 9.81 m/s².
 *
 *   1. resting on the ground, pushed by 100 N (acceleration level, LCP): friction holds it;
 *   2. the same with the linear-system shortcut (every constraint active, min-norm forces);
 *   3. sliding: the left end on a conveyor belt (a sliding and a sticking contact);
 *   4. hitting the ground at (1, -1) m/s with mu = 15 (impulses): the rod stops;
 *   5. hitting the ground with mu = 1e-4: it keeps sliding;
 *   6. one 0.1 ms time step of the upright rod pushed by 100 N (the discretized problem);
 *   7. a tilted rod dropped sliding (Drake's RodGoesToRest): 1000 steps of 10 ms, each an impact
 *      problem with constraint softening (cfm/erp), until it lies flat and still.
 *
 * The Jacobians are dense column-major matrices; in scenes 3 and 7 solve_inertia is a C callback
 * (the way a simulator plugs in its own M⁻¹). One solver handle serves every scene, as an engine
 * reuses it across steps.
 *
 * Build: cc -std=c99 -Iinclude examples_c/rod2d.c -Ltarget/release -lcontact_solvers -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "contact_solvers.h"

enum { NV = 3 };

static const double kMass = 2.0, kInertia = 1.0, kHalfLength = 1.0, kGravity = -9.81;
static const double kHalfPi = 1.5707963267948966; /* the double nearest π/2 (Drake's M_PI_2) */

/* Prints "  <label>: x0 x1 ..." with round-trip precision. */
static void print_vector(const char *label, const double *x, size_t n) {
  size_t i;
  printf("  %-34s:", label);
  for (i = 0; i < n; ++i) printf(" %.17g", x[i]);
  printf("\n");
}

/* Stops the program with the library's message when a call fails for a usage reason (or a
 * callback fails); solver outcomes are returned to the caller. */
static cts_status check(cts_status status, const cts_rigid_solver *solver, const char *what) {
  if (status >= CTS_STATUS_NULL_POINTER || status == CTS_STATUS_CALLBACK_FAILED) {
    fprintf(stderr, "%s: %s (%s)\n", what, cts_status_string(status), cts_rigid_solver_last_error(solver));
    exit(1);
  }
  return status;
}

/* solve_inertia as a callback: x = M⁻¹ b with M = diag(m, m, J). */
static int32_t rod_solve_inertia(void *user_data, const double *in, size_t n_in, double *out, size_t n_out) {
  (void)user_data;
  if (n_in != NV || n_out != NV) return 1;
  out[0] = in[0] / kMass;
  out[1] = in[1] / kMass;
  out[2] = in[2] / kInertia;
  return 0;
}

static const double kMinv[NV * NV] = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 1.0}; /* column-major */
static const double kM[NV * NV] = {2.0, 0, 0, 0, 2.0, 0, 0, 0, 1.0};

/* The horizontal rod's two contacts, pa = (-1, 0) and pb = (1, 0): normal rows [0, 1, r_x],
 * tangent (+x) rows [1, 0, -r_y], column-major with leading dimension 2. */
static const double kN[2 * NV] = {0, 0, 1, 1, -1, 1};
static const double kF[2 * NV] = {1, 1, 0, 0, 0, 0};

/* Scenes 1 and 2: §2.2 TwoPointSticking (right, no duplication), kN = 0. */
static void resting_pushed(cts_rigid_solver *s, int use_lcp) {
  const size_t non_sliding[2] = {0, 1}, r[2] = {1, 1};
  const double mu_static[2] = {15.0, 15.0}, kN0[2] = {0, 0}, kF0[2] = {0, 0};
  const double tau[NV] = {100.0, kMass * kGravity, 0.0};
  double cf[4], vdot[NV];
  cts_status status;
  printf("resting on the ground, pushed by 100 N along +x (mu = 15, %s), nc = 2\n",
         use_lcp ? "LCP" : "linear system");
  check(cts_rigid_solver_set_accel_problem_data(s, NV, 0, NULL, NULL, 2, non_sliding, mu_static, r, kN0, kF0, 0, NULL,
                                                0, NULL, tau, use_lcp),
        s, "set_accel_problem_data");
  check(cts_rigid_solver_set_accel_operator_matrix(s, CTS_RIGID_OPERATOR_N_MULT, kN, 2), s, "N");
  /* Non-sliding contacts: N - μQ = N. */
  check(cts_rigid_solver_set_accel_operator_matrix(s, CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT, kN, 2), s, "N");
  check(cts_rigid_solver_set_accel_operator_matrix(s, CTS_RIGID_OPERATOR_F_MULT, kF, 2), s, "F");
  check(cts_rigid_solver_set_accel_operator_matrix(s, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, kF, 2), s, "F");
  check(cts_rigid_solver_set_accel_inertia_matrix(s, CTS_RIGID_INERTIA_INVERSE, kMinv, NV), s, "M^-1");
  status = check(cts_rigid_solver_solve_constraint_problem(s), s, "solve_constraint_problem");
  check(cts_rigid_solver_get_constraint_forces(s, cf, 4), s, "cf");
  check(cts_rigid_solver_compute_generalized_acceleration(s, cf, 4, vdot, NV), s, "vdot");
  printf("  %-34s: %d\n", "outcome", (int)status);
  print_vector("fN [N]", cf, 2);
  print_vector("fF [N]", cf + 2, 2);
  print_vector("vdot [m/s^2, m/s^2, rad/s^2]", vdot, NV);
  printf("  %-34s: %d %d\n", "LCP size, pivots", (int)cts_rigid_solver_lcp_size(s), (int)cts_rigid_solver_num_pivots(s));
}

/* Scene 3: §2.7 TwoPointContactCrossTerms: the left end slides at +1 m/s on a conveyor belt
 * (Coulomb mu = 0.1), the right end sticks (static mu = 1). */
static void conveyor(cts_rigid_solver *s) {
  const double mu_sliding = 0.1;
  const size_t sliding[1] = {0}, non_sliding[1] = {1}, r[1] = {1};
  const double mu_s[1] = {mu_sliding}, mu_ns[1] = {1.0}, kN0[2] = {0, 0}, kF0[1] = {0};
  const double tau[NV] = {0.0, kMass * kGravity, 0.0};
  /* N - μQ: the sliding contact's row loses μ·[1, 0, -r_y] (slip along +x). */
  const double n_mu_q[2 * NV] = {-mu_sliding, 0, 1, 1, -1, 1};
  const double f[NV] = {1, 0, 0}; /* the sticking contact's tangent row */
  double cf[3], vdot[NV], sliding_friction;
  cts_status status;
  printf("sliding: left end on a conveyor belt at 1 m/s (mu 0.1 sliding, 1 sticking), nc = 2\n");
  check(cts_rigid_solver_set_accel_problem_data(s, NV, 1, sliding, mu_s, 1, non_sliding, mu_ns, r, kN0, kF0, 0, NULL, 0,
                                                NULL, tau, 1),
        s, "set_accel_problem_data");
  check(cts_rigid_solver_set_accel_operator_matrix(s, CTS_RIGID_OPERATOR_N_MULT, kN, 2), s, "N");
  check(cts_rigid_solver_set_accel_operator_matrix(s, CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT, n_mu_q, 2), s,
        "N - mu Q");
  check(cts_rigid_solver_set_accel_operator_matrix(s, CTS_RIGID_OPERATOR_F_MULT, f, 1), s, "F");
  check(cts_rigid_solver_set_accel_operator_matrix(s, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, f, 1), s, "F");
  check(cts_rigid_solver_set_accel_operator_callback(s, CTS_RIGID_OPERATOR_SOLVE_INERTIA, rod_solve_inertia, NULL), s,
        "solve_inertia");
  status = check(cts_rigid_solver_solve_constraint_problem(s), s, "solve_constraint_problem");
  check(cts_rigid_solver_get_constraint_forces(s, cf, 3), s, "cf");
  check(cts_rigid_solver_compute_generalized_acceleration(s, cf, 3, vdot, NV), s, "vdot");
  sliding_friction = -mu_sliding * cf[0];
  printf("  %-34s: %d\n", "outcome", (int)status);
  print_vector("fN [N]", cf, 2);
  print_vector("friction, sliding contact [N]", &sliding_friction, 1);
  print_vector("friction, sticking contact [N]", cf + 2, 1);
  print_vector("vdot [m/s^2, m/s^2, rad/s^2]", vdot, NV);
  printf("  %-34s: %d %d\n", "LCP size, pivots", (int)cts_rigid_solver_lcp_size(s), (int)cts_rigid_solver_num_pivots(s));
}

/* Scenes 4 and 5: §3.2 / §3.1, the horizontal rod hits the ground at v = (1, -1, 0). */
static void impact(cts_rigid_solver *s, double mu) {
  const size_t r[2] = {1, 1};
  const double mus[2] = {mu, mu}, kN0[2] = {0, 0}, kF0[2] = {0, 0};
  const double v[NV] = {1.0, -1.0, 0.0};
  const double Mv[NV] = {kMass * v[0], kMass * v[1], kInertia * v[2]};
  double cf[4], dv[NV], v_plus[NV];
  size_t i;
  cts_status status;
  printf("hitting the ground at (1, -1) m/s with mu = %g, nc = 2\n", mu);
  check(cts_rigid_solver_set_vel_problem_data(s, NV, 2, r, mus, kN0, NULL, kF0, NULL, NULL, 0, NULL, NULL, 0, NULL, Mv),
        s, "set_vel_problem_data");
  check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_N_MULT, kN, 2), s, "N");
  check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, kN, 2), s, "N");
  check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_F_MULT, kF, 2), s, "F");
  check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, kF, 2), s, "F");
  check(cts_rigid_solver_set_vel_inertia_matrix(s, CTS_RIGID_INERTIA_MATRIX, kM, NV), s, "M");
  status = check(cts_rigid_solver_solve_impact_problem(s), s, "solve_impact_problem");
  check(cts_rigid_solver_get_constraint_forces(s, cf, 4), s, "cf");
  check(cts_rigid_solver_compute_generalized_velocity_change(s, cf, 4, dv, NV), s, "dv");
  for (i = 0; i < NV; ++i) v_plus[i] = v[i] + dv[i];
  printf("  %-34s: %d\n", "outcome", (int)status);
  print_vector("impulse fN [N s]", cf, 2);
  print_vector("impulse fF [N s]", cf + 2, 2);
  print_vector("v after [m/s, m/s, rad/s]", v_plus, NV);
}

/* Scene 6: §4.1 SinglePointStickingDiscretized (right, case 2): the upright rod (q = (0, 1, π/2),
 * at rest) pushed by 100 N at its contact, one time step of 1e-4 s. */
static void upright_step(cts_rigid_solver *s) {
  const double dt = 1e-4, hf = 100.0;
  const double rx = -cos(kHalfPi) * kHalfLength, ry = -sin(kHalfPi) * kHalfLength; /* contact - center */
  const double N[NV] = {0.0, 1.0, rx};
  const double F[NV] = {1.0, 0.0, -ry};
  const size_t r[1] = {1};
  const double mu[1] = {15.0}, kN0[1] = {0.0}, kF0[1] = {0.0}, gamma0[1] = {0.0};
  const double v0[NV] = {0.0, 0.0, 0.0};
  const double Mv[NV] = {hf * dt, kGravity * kMass * dt, hf * kHalfLength * dt};
  double cf[2], vdot[NV];
  cts_status status;
  printf("upright rod pushed by 100 N, one 1e-4 s time step (discretized), nc = 1\n");
  check(cts_rigid_solver_set_vel_problem_data(s, NV, 1, r, mu, kN0, gamma0, kF0, gamma0, gamma0, 0, NULL, NULL, 0, NULL,
                                              Mv),
        s, "set_vel_problem_data");
  check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_N_MULT, N, 1), s, "N");
  check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, N, 1), s, "N");
  check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_F_MULT, F, 1), s, "F");
  check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, F, 1), s, "F");
  check(cts_rigid_solver_set_vel_inertia_matrix(s, CTS_RIGID_INERTIA_MATRIX, kM, NV), s, "M");
  status = check(cts_rigid_solver_solve_discretized_problem(s, dt), s, "solve_discretized_problem");
  check(cts_rigid_solver_get_constraint_forces(s, cf, 2), s, "cf");
  check(cts_rigid_solver_compute_generalized_acceleration_discretized(s, v0, cf, 2, dt, vdot, NV), s, "vdot");
  printf("  %-34s: %d\n", "outcome", (int)status);
  print_vector("fN [N]", cf, 1);
  print_vector("fF [N]", cf + 1, 1);
  print_vector("vdot [m/s^2, m/s^2, rad/s^2]", vdot, NV);
}

/* Scene 7: §5.1 Rod2DDiscretizedTest.RodGoesToRest. Each step: both endpoints are contacts
 * (touching or not), v ← v + h M⁻¹ tau, an impact problem with cfm = 1/(k h + b) on every
 * diagonal and kN = erp·y_contact/h, then v⁺ = v + Δv and q ← q + h v⁺. */
static void rod_goes_to_rest(cts_rigid_solver *s) {
  const double h = 1e-2, k = 10000.0, b = 15.0, mu = 1000.0;
  const double cfm = 1.0 / (k * h + b), erp = h * k / (k * h + b);
  const double s2 = sqrt(2.0) / 2.0;
  double q[NV] = {-s2, s2, 3.0 * (kHalfPi / 2.0)}, v[NV] = {1.0, 0.0, 0.0};
  const size_t r[2] = {1, 1};
  const double mus[2] = {mu, mu}, kF0[2] = {0, 0}, gamma[2] = {cfm, cfm};
  int step;
  printf("tilted rod dropped sliding: 1000 steps of 0.01 s (Drake's RodGoesToRest), nc = 2\n");
  for (step = 0; step < 1000; ++step) {
    const double x = q[0], y = q[1], th = q[2];
    const double pa[2] = {x - cos(th) * kHalfLength, y - sin(th) * kHalfLength};
    const double pb[2] = {x + cos(th) * kHalfLength, y + sin(th) * kHalfLength};
    /* N = [[0, 1, pa_x - x], [0, 1, pb_x - x]], F = [[1, 0, -(pa_y - y)], [1, 0, -(pb_y - y)]]. */
    const double N[2 * NV] = {0, 0, 1, 1, pa[0] - x, pb[0] - x};
    const double F[2 * NV] = {1, 1, 0, 0, -(pa[1] - y), -(pb[1] - y)};
    const double kN[2] = {erp * pa[1] / h, erp * pb[1] / h};
    const double tau1 = kMass * kGravity;
    const double vs[NV] = {v[0], v[1] + h * tau1 / kMass, v[2]};
    const double Mv[NV] = {kMass * vs[0], kMass * vs[1], kInertia * vs[2]};
    double cf[4], dv[NV];
    size_t i;
    check(cts_rigid_solver_set_vel_problem_data(s, NV, 2, r, mus, kN, gamma, kF0, gamma, gamma, 0, NULL, NULL, 0, NULL,
                                                Mv),
          s, "set_vel_problem_data");
    check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_N_MULT, N, 2), s, "N");
    check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, N, 2), s, "N");
    check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_F_MULT, F, 2), s, "F");
    check(cts_rigid_solver_set_vel_operator_matrix(s, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, F, 2), s, "F");
    check(cts_rigid_solver_set_vel_operator_callback(s, CTS_RIGID_OPERATOR_SOLVE_INERTIA, rod_solve_inertia, NULL), s,
          "solve_inertia");
    if (check(cts_rigid_solver_solve_impact_problem(s), s, "solve_impact_problem") != CTS_STATUS_OK) {
      fprintf(stderr, "step %d: %s\n", step, cts_rigid_solver_last_error(s));
      exit(1);
    }
    check(cts_rigid_solver_get_constraint_forces(s, cf, 4), s, "cf");
    check(cts_rigid_solver_compute_generalized_velocity_change(s, cf, 4, dv, NV), s, "dv");
    for (i = 0; i < NV; ++i) {
      v[i] = vs[i] + dv[i];
      q[i] += h * v[i];
    }
  }
  {
    const double theta_minus_pi = q[2] - 2.0 * kHalfPi;
    printf("  %-34s: %d\n", "outcome", 0);
    print_vector("theta - pi [rad]", &theta_minus_pi, 1);
    print_vector("omega [rad/s]", &v[2], 1);
    print_vector("x, y [m]", q, 2);
  }
}

int main(void) {
  cts_rigid_solver *solver = NULL;
  if (cts_rigid_solver_new(&solver) != CTS_STATUS_OK) {
    fprintf(stderr, "%s\n", cts_last_error_message());
    return 1;
  }
  resting_pushed(solver, 1);
  resting_pushed(solver, 0);
  conveyor(solver);
  impact(solver, 15.0);
  impact(solver, 1e-4);
  upright_step(solver);
  rod_goes_to_rest(solver);
  cts_rigid_solver_free(solver);
  return 0;
}
