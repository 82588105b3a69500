/* Three ways to simulate contact on one worked example (docs/blog_methods.md): a point mass
 * (m = 10 kg, g = 9.81 m/s²) dropped from z0 = 1 m at rest onto the ground z = 0, time step
 * dt = 1 ms, 999 steps (samples k = 0 … 999, t_k = k·dt). F_k is the ground force used on the step
 * k → k+1 (the last sample has no step: its F is printed as nan).
 *
 *   hybrid (guard + jump map, explicit Euler): when the stored sample has z_k <= 0 the jump map
 *     sets z_k = 0 and replaces v_k by v⁺, the velocity after the impact. v⁺ comes from the rigid
 *     constraint solver's impact problem (cts_rigid_solver_solve_impact_problem, Drake's
 *     SolveImpactProblem) with Newton's restitution written as its constraint offset:
 *     0 <= fN ⟂ v⁺ + kN >= 0 with kN = e·v⁻, whose solution is v⁺ = −e·v⁻ (e = 0: plastic).
 *     The reported force is the impulse over one step, F_k = fN/dt. Runs: e = 0.7 and e = 0 for
 *     1 s, and e = 0.7 for 5 s without and with a rest threshold (|v⁻| < 10·g·dt = 0.0981 m/s ⇒
 *     plastic impact). Without it the discrete system never comes to rest: explicit Euler and
 *     the guard on the stored sample return the mass 1 to 2·g·dt faster than it left, and
 *     restitution alone settles into micro-bounces hitting at 0.052 m/s, 111 times a second (a
 *     threshold of g·dt is below that and never acts).
 *   smooth (no contact detection):
 *     (i)  the post's penalty law F = 750(1 − tanh 100z) − 7500·ż(1 − tanh 100z) with explicit
 *          Euler, evaluated in C (no solver);
 *     (ii) compliant point contact solved by TAMSI two-way (cts_tamsi_*, velocity-level implicit,
 *          semi-implicit Euler z_{k+1} = z_k + dt·v_{k+1}): while the mass penetrates
 *          (x_k = −z_k > 0) one frictionless contact with Jn = [1], fn0 = k·x_k and the
 *          Hunt–Crossley law fn = (1 − d·vn)₊ (fn0 − dt·k·vn)₊, k = 1e6 N/m, d = 2 s/m; no contact
 *          (nc = 0) otherwise. It rests at penetration m·g/k = 98.1 µm with fn = m·g.
 *   time-stepping (semi-implicit Euler): each step is the complementarity problem
 *     0 <= λ ⟂ z_{k+1}/dt = z_k/dt + v_k − g·dt + λ/m >= 0 (λ = F_k·dt, N·s), solved
 *     (i)  as a 1×1 LCP by Lemke (cts_lcp_solver_solve, CTS_LCP_ALGORITHM_LEMKE, M = 1/m),
 *     (ii) by the interior-point solver (cts_ipm_*, impact-only contact, φ = z_k) with
 *          btol = rtol = 1e-8, and with the default btol = 1e-4 (the contact then acts from a
 *          distance of about btol/γn).
 *
 * Output: for each run "run: NAME (description)", the CSV "k,t,z,v,F" (SI units, %.17g), and a
 * "summary: NAME" block of "  label: values" lines, including the wall time per step measured
 * with clock_gettime (a loaded machine makes it noisy). `--summary` prints the summaries only.
 * examples_c/plot_methods.py draws the 1-s runs.
 *
 * Build: cc -std=c99 -Iinclude examples_c/point_mass_methods.c -Ltarget/release -lcontact_solvers -lm
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contact_solvers.h"

enum { SAMPLES = 1000, LONG_SAMPLES = 5000, TIMING_REPEATS = 5 };

static const double kMass = 10.0, kGravity = 9.81, kDt = 0.001, kZ0 = 1.0;
static const double kRestitution = 0.7;
static const double kTamsiStiffness = 1e6, kTamsiDissipation = 2.0;

/* One simulated trajectory: samples 0 … n−1 of z, v and the force F of the step that leaves them
 * (NAN for the last sample). */
typedef struct {
  int n;
  double *z, *v, *F;
  double seconds; /* wall time of the stepping loop */
  int calls;      /* solver calls */
  int failures;   /* solver outcomes other than success */
} trajectory;

/* Runs `call` (which fills `tr` and sets tr.seconds) TIMING_REPEATS times and keeps the fastest
 * wall time: every repetition computes the same trajectory. */
#define TIMED(tr, call)                                    \
  do {                                                     \
    int rep_;                                              \
    double best_ = INFINITY;                               \
    for (rep_ = 0; rep_ < TIMING_REPEATS; ++rep_) {        \
      (tr).failures = 0;                                   \
      (tr).calls = 0;                                      \
      call;                                                \
      if ((tr).seconds < best_) best_ = (tr).seconds;      \
    }                                                      \
    (tr).seconds = best_;                                  \
  } while (0)

static int print_csv = 1;

static void trajectory_init(trajectory *tr, int n) {
  tr->n = n;
  tr->z = calloc((size_t)n, sizeof(double));
  tr->v = calloc((size_t)n, sizeof(double));
  tr->F = calloc((size_t)n, sizeof(double));
  if (!tr->z || !tr->v || !tr->F) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  tr->z[0] = kZ0;
  tr->v[0] = 0.0;
  tr->F[n - 1] = NAN;
  tr->seconds = 0.0;
  tr->calls = 0;
  tr->failures = 0;
}

static void trajectory_free(trajectory *tr) {
  free(tr->z);
  free(tr->v);
  free(tr->F);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Stops the program with the library's message when a call fails for a usage reason. Solver
 * outcomes (codes below 100) are returned to the caller. */
static cts_status check(cts_status status, const char *last_error, const char *what) {
  if (status >= CTS_STATUS_NULL_POINTER || status == CTS_STATUS_CALLBACK_FAILED) {
    fprintf(stderr, "%s: %s (%s)\n", what, cts_status_string(status), last_error);
    exit(1);
  }
  return status;
}
/* The call runs first (comma operator), then the handle's message is read: it describes that call. */
static cts_status last_status;
#define CHECK_RIGID(s, call, what) (last_status = (call), check(last_status, cts_rigid_solver_last_error(s), what))
#define CHECK_TAMSI(s, call, what) (last_status = (call), check(last_status, cts_tamsi_solver_last_error(s), what))
#define CHECK_LCP(s, call, what) (last_status = (call), check(last_status, cts_lcp_solver_last_error(s), what))
#define CHECK_IPM(s, call, what) (last_status = (call), check(last_status, cts_ipm_solver_last_error(s), what))

static void print_run(const char *name, const char *description, const trajectory *tr) {
  int k;
  printf("run: %s (%s)\n", name, description);
  if (!print_csv) return;
  printf("k,t,z,v,F\n");
  for (k = 0; k < tr->n; ++k)
    printf("%d,%.3f,%.17g,%.17g,%.17g\n", k, k * kDt, tr->z[k], tr->v[k], tr->F[k]);
}

static void summary_start(const char *name, const trajectory *tr) {
  printf("summary: %s\n", name);
  printf("  %-36s: %.3f\n", "cost per step [us]", 1e6 * tr->seconds / (tr->n - 1));
  printf("  %-36s: %d\n", "solver calls", tr->calls);
  printf("  %-36s: %d\n", "failed solves", tr->failures);
}

static void label_int(const char *label, int value) { printf("  %-36s: %d\n", label, value); }
static void label_values(const char *label, int count, const double *x) {
  int i;
  printf("  %-36s:", label);
  for (i = 0; i < count; ++i) printf(" %.17g", x[i]);
  printf("\n");
}
static void label_value(const char *label, double x) { label_values(label, 1, &x); }

/* Largest F over the steps and its index. */
static int peak_force(const trajectory *tr, double *peak) {
  int k, at = 0;
  *peak = tr->F[0];
  for (k = 1; k < tr->n - 1; ++k)
    if (tr->F[k] > *peak) {
      *peak = tr->F[k];
      at = k;
    }
  return at;
}

/* Smallest z and its index. */
static int lowest(const trajectory *tr, double *z_min) {
  int k, at = 0;
  *z_min = tr->z[0];
  for (k = 1; k < tr->n; ++k)
    if (tr->z[k] < *z_min) {
      *z_min = tr->z[k];
      at = k;
    }
  return at;
}

/* ------------------------------------------------------------------------------------------- */
/* Hybrid: guard z_k <= 0, jump map v⁺ from the rigid impact problem, explicit Euler. */

typedef struct {
  int guards, first_guard, last_bounce; /* last guard with e > 0 */
  double v_minus, v_plus, hidden_z;     /* at the first guard */
} hybrid_info;

/* The velocity-level impact problem of the point mass, set once; its data arrays live here, as
 * long as the solver reads them (Mv and kN are updated in place before every solve). */
typedef struct {
  cts_rigid_solver *solver;
  size_t r[1];
  double mu[1], kN[1], Mv[1], N[1], M[1];
} impact_problem;

static void impact_problem_init(impact_problem *p) {
  p->r[0] = 0; /* frictionless: no spanning directions */
  p->mu[0] = 0.0;
  p->kN[0] = 0.0;
  p->Mv[0] = 0.0;
  p->N[0] = 1.0; /* normal velocity = v (positive apart) */
  p->M[0] = kMass;
  if (cts_rigid_solver_new(&p->solver) != CTS_STATUS_OK) {
    fprintf(stderr, "cts_rigid_solver_new: %s\n", cts_last_error_message());
    exit(1);
  }
  CHECK_RIGID(p->solver,
              cts_rigid_solver_set_vel_problem_data(p->solver, 1, 1, p->r, p->mu, p->kN, NULL, NULL, NULL, NULL, 0,
                                                    NULL, NULL, 0, NULL, p->Mv),
              "set_vel_problem_data");
  CHECK_RIGID(p->solver, cts_rigid_solver_set_vel_operator_matrix(p->solver, CTS_RIGID_OPERATOR_N_MULT, p->N, 1),
              "N");
  CHECK_RIGID(p->solver,
              cts_rigid_solver_set_vel_operator_matrix(p->solver, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, p->N, 1), "N");
  CHECK_RIGID(p->solver, cts_rigid_solver_set_vel_inertia_matrix(p->solver, CTS_RIGID_INERTIA_MATRIX, p->M, 1), "M");
}

/* Solves the impact at pre-impact velocity v_minus with restitution e: returns v⁺ and the normal
 * impulse (N·s) in *impulse; counts a failed solve in *failures. */
static double impact(impact_problem *p, double v_minus, double e, double *impulse, int *failures) {
  double cf[1], dv[1];
  cts_status status;
  p->Mv[0] = kMass * v_minus;
  p->kN[0] = e * v_minus; /* restitution: v⁺ + e·v⁻ >= 0 */
  status = CHECK_RIGID(p->solver, cts_rigid_solver_solve_impact_problem(p->solver), "solve_impact_problem");
  if (status != CTS_STATUS_OK) {
    ++*failures;
    fprintf(stderr, "impact at v = %g: %s (%s)\n", v_minus, cts_status_string(status),
            cts_rigid_solver_last_error(p->solver));
  }
  CHECK_RIGID(p->solver, cts_rigid_solver_get_constraint_forces(p->solver, cf, 1), "constraint impulses");
  CHECK_RIGID(p->solver, cts_rigid_solver_compute_generalized_velocity_change(p->solver, cf, 1, dv, 1),
              "velocity change");
  *impulse = cf[0];
  return v_minus + dv[0];
}

/* v_rest > 0: impacts slower than v_rest are plastic (the rest threshold); 0 for none. */
static void hybrid(impact_problem *p, trajectory *tr, double e, double v_rest, hybrid_info *info) {
  int k;
  double t0;
  memset(info, 0, sizeof *info);
  info->first_guard = -1;
  info->last_bounce = -1;
  t0 = now();
  for (k = 0; k + 1 < tr->n; ++k) {
    tr->F[k] = 0.0;
    if (tr->z[k] <= 0.0) { /* guard */
      const double v_minus = tr->v[k];
      const double e_k = fabs(v_minus) < v_rest ? 0.0 : e;
      double impulse;
      const double v_plus = impact(p, v_minus, e_k, &impulse, &tr->failures);
      ++tr->calls;
      if (info->guards++ == 0) {
        info->first_guard = k;
        info->v_minus = v_minus;
        info->v_plus = v_plus;
        info->hidden_z = tr->z[k];
      }
      if (e_k > 0.0) info->last_bounce = k;
      tr->z[k] = 0.0; /* jump map: the stored sample is the post-jump state */
      tr->v[k] = v_plus;
      tr->F[k] = impulse / kDt;
    }
    tr->z[k + 1] = tr->z[k] + kDt * tr->v[k]; /* explicit Euler */
    tr->v[k + 1] = tr->v[k] - kDt * kGravity;
  }
  tr->seconds = now() - t0;
}

static void hybrid_summary(const char *name, const trajectory *tr, const hybrid_info *info) {
  int k, apex_at = -1, second = -1;
  double apex = 0.0;
  summary_start(name, tr);
  label_int("guard events", info->guards);
  label_int("first guard index", info->first_guard);
  label_value("hidden penetration (pre-reset z) [m]", info->hidden_z);
  label_value("v- [m/s]", info->v_minus);
  label_value("v+ [m/s]", info->v_plus);
  if (info->first_guard >= 0) label_value("force at the first guard [N]", tr->F[info->first_guard]);
  if (info->first_guard >= 0) {
    for (k = info->first_guard + 1; k < tr->n; ++k) {
      if (k + 1 < tr->n && tr->F[k] > 0.0) {
        second = k;
        break;
      }
      if (tr->z[k] > apex) {
        apex = tr->z[k];
        apex_at = k;
      }
    }
  }
  label_value("apex after the first bounce [m]", apex);
  label_int("apex index", apex_at);
  label_int("second guard index", second);
  label_int("last guard with restitution", info->last_bounce);
  label_value("final z [m]", tr->z[tr->n - 1]);
  label_value("final v [m/s]", tr->v[tr->n - 1]);
}

/* ------------------------------------------------------------------------------------------- */
/* Smooth (i): the post's tanh penalty law, explicit Euler. */

static double tanh_law(double z, double zdot) {
  const double D = 75000.0 * (1.0 - tanh(100.0 * z)); /* c = amp·0.5/k = 1500·0.5/0.01 */
  return 0.01 * D - 0.1 * zdot * D;
}

static void smooth_tanh(trajectory *tr) {
  int k;
  const double t0 = now();
  for (k = 0; k + 1 < tr->n; ++k) {
    tr->F[k] = tanh_law(tr->z[k], tr->v[k]);
    tr->z[k + 1] = tr->z[k] + kDt * tr->v[k];
    tr->v[k + 1] = tr->v[k] + kDt * (tr->F[k] / kMass - kGravity);
  }
  tr->seconds = now() - t0;
}

static void smooth_summary(const char *name, const trajectory *tr) {
  double peak, z_min;
  int at_peak = peak_force(tr, &peak), at_min = lowest(tr, &z_min), k, onset = -1;
  for (k = 0; k + 1 < tr->n && onset < 0; ++k)
    if (tr->F[k] > 1.0) onset = k;
  summary_start(name, tr);
  label_int("first index with F > 1 N", onset);
  label_value("peak force [N]", peak);
  label_int("peak force index", at_peak);
  label_value("z min [m]", z_min);
  label_int("z min index", at_min);
  label_value("final z [m]", tr->z[tr->n - 1]);
  label_value("final v [m/s]", tr->v[tr->n - 1]);
  label_value("force on the last step [N]", tr->F[tr->n - 2]);
  label_value("z_eq = atanh(1 - mg/750)/100 [m]", atanh(1.0 - kMass * kGravity / 750.0) / 100.0);
}

/* Smooth (ii): compliant contact through TAMSI two-way. */

typedef struct {
  int max_iterations;
  double mean_iterations;
} iteration_info;

static void smooth_tamsi(trajectory *tr, iteration_info *it) {
  cts_tamsi_solver *s = NULL;
  const double M[1] = {kMass}, Jn[1] = {1.0}, Jt[2] = {0.0, 0.0}, mu[1] = {0.0};
  const double stiffness[1] = {kTamsiStiffness}, dissipation[1] = {kTamsiDissipation};
  double p_star[1], fn0[1], v_next[1], fn[1];
  int k, total = 0;
  double t0;
  it->max_iterations = 0;
  if (cts_tamsi_solver_new(1, &s) != CTS_STATUS_OK) {
    fprintf(stderr, "cts_tamsi_solver_new: %s\n", cts_last_error_message());
    exit(1);
  }
  t0 = now();
  for (k = 0; k + 1 < tr->n; ++k) {
    const size_t nc = tr->z[k] < 0.0 ? 1 : 0; /* point contact exists while penetrating */
    cts_tamsi_iteration_stats stats;
    cts_status status;
    p_star[0] = kMass * tr->v[k] - kDt * kMass * kGravity;
    fn0[0] = kTamsiStiffness * -tr->z[k];
    /* Borrowed data: the arrays stay unchanged until the next set call. */
    CHECK_TAMSI(s,
                cts_tamsi_solver_set_two_way_coupled_problem_data(s, nc, M, 1, nc ? Jn : NULL, 1, nc ? Jt : NULL, 2,
                                                                  p_star, nc ? fn0 : NULL, nc ? stiffness : NULL,
                                                                  nc ? dissipation : NULL, nc ? mu : NULL),
                "set_two_way_coupled_problem_data");
    status = CHECK_TAMSI(s, cts_tamsi_solver_solve_with_guess(s, kDt, &tr->v[k], 1), "solve_with_guess");
    ++tr->calls;
    if (status != CTS_STATUS_OK) {
      ++tr->failures;
      fprintf(stderr, "TAMSI step %d: %s (%s)\n", k, cts_status_string(status), cts_tamsi_solver_last_error(s));
    }
    CHECK_TAMSI(s, cts_tamsi_solver_get_generalized_velocities(s, v_next, 1), "velocities");
    fn[0] = 0.0;
    if (nc) CHECK_TAMSI(s, cts_tamsi_solver_get_normal_forces(s, fn, 1), "normal forces");
    CHECK_TAMSI(s, cts_tamsi_solver_get_iteration_stats(s, &stats), "stats");
    total += stats.num_iterations;
    if (stats.num_iterations > it->max_iterations) it->max_iterations = stats.num_iterations;
    tr->F[k] = fn[0];
    tr->v[k + 1] = v_next[0];
    tr->z[k + 1] = tr->z[k] + kDt * v_next[0]; /* semi-implicit Euler */
  }
  tr->seconds = now() - t0;
  it->mean_iterations = (double)total / (tr->n - 1);
  cts_tamsi_solver_free(s);
}

static void tamsi_summary(const char *name, const trajectory *tr, const iteration_info *it) {
  double peak, z_min, apex = 0.0;
  int at_peak = peak_force(tr, &peak), at_min = lowest(tr, &z_min), k, first = -1, apex_at = -1;
  for (k = 0; k + 1 < tr->n && first < 0; ++k)
    if (tr->F[k] > 0.0) first = k;
  for (k = at_min; k < tr->n; ++k)
    if (tr->z[k] > apex) {
      apex = tr->z[k];
      apex_at = k;
    }
  summary_start(name, tr);
  label_value("stiffness k [N/m]", kTamsiStiffness);
  label_value("dissipation d [s/m]", kTamsiDissipation);
  label_int("first contact index", first);
  label_value("peak force [N]", peak);
  label_int("peak force index", at_peak);
  label_value("z min [m]", z_min);
  label_int("z min index", at_min);
  label_value("apex after the bounce [m]", apex);
  label_int("apex index", apex_at);
  label_value("final z [m]", tr->z[tr->n - 1]);
  label_value("final v [m/s]", tr->v[tr->n - 1]);
  label_value("force on the last step [N]", tr->F[tr->n - 2]);
  label_value("-mg/k [m]", -kMass * kGravity / kTamsiStiffness);
  label_int("iterations max", it->max_iterations);
  label_value("iterations mean", it->mean_iterations);
}

/* ------------------------------------------------------------------------------------------- */
/* Time-stepping: the per-step complementarity problem, in impulse λ (N·s) and gap velocity. */

static void timestepping_lemke(trajectory *tr, int *max_pivots) {
  cts_lcp_solver *s = NULL;
  const double M[1] = {1.0 / kMass};
  double q[1], lambda[1];
  int k;
  double t0;
  *max_pivots = 0;
  if (cts_lcp_solver_new(&s) != CTS_STATUS_OK) {
    fprintf(stderr, "cts_lcp_solver_new: %s\n", cts_last_error_message());
    exit(1);
  }
  t0 = now();
  for (k = 0; k + 1 < tr->n; ++k) {
    cts_status status;
    q[0] = tr->z[k] / kDt + tr->v[k] - kGravity * kDt; /* z_{k+1}/dt without contact */
    status = CHECK_LCP(s, cts_lcp_solver_solve(s, CTS_LCP_ALGORITHM_LEMKE, 1, M, 1, q, NULL), "lcp solve");
    ++tr->calls;
    if (status != CTS_STATUS_OK) {
      ++tr->failures;
      fprintf(stderr, "LCP step %d: %s (%s)\n", k, cts_status_string(status), cts_lcp_solver_last_error(s));
    }
    CHECK_LCP(s, cts_lcp_solver_get_z(s, lambda, 1), "lcp z");
    if ((int)cts_lcp_solver_num_pivots(s) > *max_pivots) *max_pivots = (int)cts_lcp_solver_num_pivots(s);
    tr->F[k] = lambda[0] / kDt;
    tr->v[k + 1] = tr->v[k] - kDt * kGravity + lambda[0] / kMass;
    tr->z[k + 1] = tr->z[k] + kDt * tr->v[k + 1]; /* semi-implicit Euler */
  }
  tr->seconds = now() - t0;
  cts_lcp_solver_free(s);
}

static void timestepping_ipm(trajectory *tr, double btol, double rtol, iteration_info *it) {
  cts_ipm_solver *s = NULL;
  cts_ipm_parameters params;
  const double M[1] = {kMass}, Jn[1] = {1.0}, Jt[2] = {0.0, 0.0}, tau[1] = {-kMass * kGravity}, mu[1] = {0.0};
  const int32_t models[1] = {CTS_IPM_MODEL_IMPACT};
  double v0[1], phi[1], v_next[1], impulses[3];
  int k, total = 0;
  double t0;
  it->max_iterations = 0;
  if (cts_ipm_solver_new(&s) != CTS_STATUS_OK) {
    fprintf(stderr, "cts_ipm_solver_new: %s\n", cts_last_error_message());
    exit(1);
  }
  cts_ipm_parameters_default(&params);
  params.dojo_compatible = 1; /* the reference numbers (docs/ipm.md §9.A9) are Dojo's iteration's */
  params.btol = btol;
  params.rtol = rtol;
  CHECK_IPM(s, cts_ipm_solver_set_parameters(s, &params), "set_parameters");
  t0 = now();
  for (k = 0; k + 1 < tr->n; ++k) {
    cts_ipm_stats stats;
    cts_status status;
    v0[0] = tr->v[k];
    phi[0] = tr->z[k];
    /* Borrowed data: v0 and phi stay unchanged until the next set call. */
    CHECK_IPM(s, cts_ipm_solver_set_problem_data(s, 1, 1, M, 1, Jn, 1, Jt, 2, v0, tau, kDt, phi, mu, models, NULL, 0),
              "set_problem_data");
    status = CHECK_IPM(s, cts_ipm_solver_solve(s), "solve");
    ++tr->calls;
    if (status != CTS_STATUS_OK) {
      ++tr->failures;
      fprintf(stderr, "IPM step %d: %s (%s)\n", k, cts_status_string(status), cts_ipm_solver_last_error(s));
    }
    CHECK_IPM(s, cts_ipm_solver_get_generalized_velocities(s, v_next, 1), "velocities");
    CHECK_IPM(s, cts_ipm_solver_get_impulses(s, impulses, 3), "impulses");
    CHECK_IPM(s, cts_ipm_solver_get_stats(s, &stats), "stats");
    total += stats.iterations;
    if (stats.iterations > it->max_iterations) it->max_iterations = stats.iterations;
    tr->F[k] = impulses[0] / kDt;
    tr->v[k + 1] = v_next[0];
    tr->z[k + 1] = tr->z[k] + kDt * v_next[0]; /* semi-implicit Euler */
  }
  tr->seconds = now() - t0;
  it->mean_iterations = (double)total / (tr->n - 1);
  cts_ipm_solver_free(s);
}

static void timestepping_summary(const char *name, const trajectory *tr) {
  double peak, z_min, max_abs_z = 0.0, impulse = 0.0;
  int at_peak = peak_force(tr, &peak), at_min = lowest(tr, &z_min), k, first = -1;
  for (k = 0; k + 1 < tr->n && first < 0; ++k)
    if (tr->F[k] > 0.0) first = k;
  for (k = 452; k < tr->n; ++k)
    if (fabs(tr->z[k]) > max_abs_z) max_abs_z = fabs(tr->z[k]);
  for (k = 440; k <= 460; ++k) impulse += tr->F[k] * kDt;
  summary_start(name, tr);
  label_int("first index with F > 0", first);
  label_values("F_449 F_450 F_451 F_452 F_453 [N]", 5, &tr->F[449]);
  label_value("peak force [N]", peak);
  label_int("peak force index", at_peak);
  label_value("impulse over steps 440..460 [N s]", impulse);
  label_value("z min [m]", z_min);
  label_int("z min index", at_min);
  label_value("max |z| from index 452 [m]", max_abs_z);
  label_value("final z [m]", tr->z[tr->n - 1]);
  label_value("final v [m/s]", tr->v[tr->n - 1]);
  label_value("force on the last step [N]", tr->F[tr->n - 2]);
}

/* ------------------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  impact_problem impact_data;
  trajectory tr;
  hybrid_info hinfo;
  iteration_info it;
  int failures = 0, pivots;

  if (argc == 2 && strcmp(argv[1], "--summary") == 0) {
    print_csv = 0;
  } else if (argc != 1) {
    fprintf(stderr, "usage: %s [--summary]\n", argv[0]);
    return 2;
  }
  if (cts_abi_version() != CTS_ABI_VERSION) {
    fprintf(stderr, "header and library ABI versions differ\n");
    return 1;
  }
  impact_problem_init(&impact_data);

  trajectory_init(&tr, SAMPLES);
  TIMED(tr, hybrid(&impact_data, &tr, kRestitution, 0.0, &hinfo));
  print_run("hybrid_e0.7", "hybrid: guard z_k <= 0, jump map v+ by cts_rigid impact problem, e = 0.7", &tr);
  hybrid_summary("hybrid_e0.7", &tr, &hinfo);
  failures += tr.failures;
  trajectory_free(&tr);

  trajectory_init(&tr, SAMPLES);
  TIMED(tr, hybrid(&impact_data, &tr, 0.0, 0.0, &hinfo));
  print_run("hybrid_e0", "hybrid: guard z_k <= 0, plastic jump map by cts_rigid impact problem, e = 0", &tr);
  hybrid_summary("hybrid_e0", &tr, &hinfo);
  failures += tr.failures;
  trajectory_free(&tr);

  trajectory_init(&tr, LONG_SAMPLES);
  TIMED(tr, hybrid(&impact_data, &tr, kRestitution, 0.0, &hinfo));
  print_run("hybrid_e0.7_long", "hybrid, e = 0.7, 5 s, no rest threshold", &tr);
  hybrid_summary("hybrid_e0.7_long", &tr, &hinfo);
  failures += tr.failures;
  trajectory_free(&tr);

  trajectory_init(&tr, LONG_SAMPLES);
  TIMED(tr, hybrid(&impact_data, &tr, kRestitution, 10.0 * kGravity * kDt, &hinfo));
  print_run("hybrid_e0.7_rest_long", "hybrid, e = 0.7, 5 s, plastic below |v-| = 10 g dt = 0.0981 m/s", &tr);
  hybrid_summary("hybrid_e0.7_rest_long", &tr, &hinfo);
  label_value("rest threshold [m/s]", 10.0 * kGravity * kDt);
  failures += tr.failures;
  trajectory_free(&tr);
  cts_rigid_solver_free(impact_data.solver);

  trajectory_init(&tr, SAMPLES);
  TIMED(tr, smooth_tanh(&tr));
  print_run("smooth_tanh", "smooth: the post's tanh penalty law, explicit Euler", &tr);
  smooth_summary("smooth_tanh", &tr);
  trajectory_free(&tr);

  trajectory_init(&tr, SAMPLES);
  TIMED(tr, smooth_tamsi(&tr, &it));
  print_run("smooth_tamsi", "smooth: compliant point contact by cts_tamsi two-way, k = 1e6 N/m, d = 2 s/m", &tr);
  tamsi_summary("smooth_tamsi", &tr, &it);
  failures += tr.failures;
  trajectory_free(&tr);

  trajectory_init(&tr, SAMPLES);
  TIMED(tr, timestepping_lemke(&tr, &pivots));
  print_run("timestepping_lemke", "time-stepping: per-step LCP by cts_lcp Lemke, semi-implicit Euler", &tr);
  timestepping_summary("timestepping_lemke", &tr);
  label_int("pivots max", pivots);
  failures += tr.failures;
  trajectory_free(&tr);

  trajectory_init(&tr, SAMPLES);
  TIMED(tr, timestepping_ipm(&tr, 1e-8, 1e-8, &it));
  print_run("timestepping_ipm", "time-stepping: per-step NCP by cts_ipm, impact model, btol = rtol = 1e-8", &tr);
  timestepping_summary("timestepping_ipm", &tr);
  label_int("iterations max", it.max_iterations);
  label_value("iterations mean", it.mean_iterations);
  failures += tr.failures;
  trajectory_free(&tr);

  trajectory_init(&tr, SAMPLES);
  TIMED(tr, timestepping_ipm(&tr, 1e-4, 1e-6, &it));
  print_run("timestepping_ipm_btol1e-4", "time-stepping: cts_ipm with the default btol = 1e-4, rtol = 1e-6", &tr);
  timestepping_summary("timestepping_ipm_btol1e-4", &tr);
  label_int("iterations max", it.max_iterations);
  label_value("iterations mean", it.mean_iterations);
  failures += tr.failures;
  trajectory_free(&tr);

  if (failures) fprintf(stderr, "%d solves did not succeed\n", failures);
  return failures == 0 ? 0 : 1;
}
