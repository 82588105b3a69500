/* Issue 13's cases through the C ABI (docs/c_api.md, "Never crash the host"): non-finite and
 * out-of-domain data rejected when set, with a message naming the function, the argument and the
 * first bad entry; no CTS_STATUS_OK with a non-finite output (CTS_STATUS_NON_FINITE_RESULT
 * instead, naming the output, and getters that write nothing); parameters bounded where a huge
 * value means a huge allocation or an unbounded loop; messages that say what was expected and
 * print numbers in short form; errno-style last errors (a successful getter keeps the detail of
 * a failed solve). Each check asserts the status and the message's content. Prints one line per
 * failed check and "<n> checks, <m> failed" last; exits 1 if any failed. */

#include <float.h>
#include <limits.h>

#include "contract_support.h"

/* A call returned `want` and `last_error` holds `text`. */
#define EXPECT_MSG(last_error, h, call, want, text)                                             \
  do {                                                                                          \
    cts_status got_ = (call);                                                                   \
    ++checks;                                                                                   \
    if (got_ != (want) || strstr(last_error(h), (text)) == NULL) {                              \
      ++failures;                                                                               \
      printf("FAILED %s:%d: %s returned %d (%s), message \"%s\", want %d with \"%s\"\n",         \
             __FILE__, __LINE__, #call, (int)got_, cts_status_string(got_), last_error(h),      \
             (int)(want), (text));                                                               \
    }                                                                                           \
  } while (0)

#define EXPECT_TAMSI(h, call, want, text) EXPECT_MSG(cts_tamsi_solver_last_error, h, call, want, text)
#define EXPECT_RIGID(h, call, want, text) EXPECT_MSG(cts_rigid_solver_last_error, h, call, want, text)
#define EXPECT_BARAFF(h, call, want, text) EXPECT_MSG(cts_baraff_solver_last_error, h, call, want, text)
#define EXPECT_IPM(h, call, want, text) EXPECT_MSG(cts_ipm_solver_last_error, h, call, want, text)
static const char *global_error(const void *unused) {
  (void)unused;
  return cts_last_error_message();
}
#define EXPECT_GLOBAL_MSG(call, want, text) EXPECT_MSG(global_error, NULL, call, want, text)

/* ------------------------------------------------------------------------------------------ */
/* TAMSI: a 1-kg puck (nv = 2) sliding at 1 m/s, one contact, fn = 10 N, mu = 0.5, dt = 10 ms:
 * v = (0.95, 0) (the example of the Rust API's docs). */

enum { NV = 2 };
static const double DT = 0.01;

typedef struct {
  double M[NV * NV], Jn[NV], Jt[2 * NV], p_star[NV], fn[1], mu[1], fn0[1], k[1], d[1];
} puck;

static void make_puck(puck *s) {
  const double M[4] = {1, 0, 0, 1}, Jt[4] = {1, 0, 0, 1};
  memcpy(s->M, M, sizeof M);
  memcpy(s->Jt, Jt, sizeof Jt);
  s->Jn[0] = s->Jn[1] = 0.0;
  s->p_star[0] = 1.0;
  s->p_star[1] = 0.0;
  s->fn[0] = 10.0;
  s->mu[0] = 0.5;
  s->fn0[0] = 10.0;
  s->k[0] = 1e4;
  s->d[0] = 0.1;
}

static cts_status set_one_way(cts_tamsi_solver *h, const puck *s) {
  return cts_tamsi_solver_set_one_way_coupled_problem_data(h, 1, s->M, NV, s->Jn, 1, s->Jt, 2, s->p_star, s->fn,
                                                           s->mu);
}

static cts_status set_two_way(cts_tamsi_solver *h, const puck *s) {
  return cts_tamsi_solver_set_two_way_coupled_problem_data(h, 1, s->M, NV, s->Jn, 1, s->Jt, 2, s->p_star, s->fn0,
                                                           s->k, s->d, s->mu);
}

static void test_tamsi_sizes_and_parameters(void) {
  cts_tamsi_solver *h = NULL;
  cts_tamsi_parameters p;
  /* "nv = 18446744073709551615 is too large to allocate" now says the limit. */
  EXPECT_GLOBAL_MSG(cts_tamsi_solver_new((size_t)-1, &h), CTS_STATUS_INVALID_ARGUMENT,
                    "cts_tamsi_solver_new: nv = 18446744073709551615");
  CHECK(strstr(cts_last_error_message(), "nv must be at most 536870911") != NULL);
  CHECK(h == NULL);
  OK(cts_tamsi_solver_new(NV, &h));
  cts_tamsi_parameters_default(&p);
  /* stiction_tolerance = 1e-200 made (rtol·vs)² underflow: NaN friction at zero slip. */
  p.stiction_tolerance = 1e-200;
  EXPECT_TAMSI(h, cts_tamsi_solver_set_parameters(h, &p), CTS_STATUS_INVALID_ARGUMENT,
               "relative_tolerance * stiction_tolerance = 1e-202 is outside its domain: expected >= 2^-511");
  cts_tamsi_parameters_default(&p);
  p.relative_tolerance = 1e-151; /* with vs = 1e-4: 1e-155 < 2^-511 */
  EXPECT_TAMSI(h, cts_tamsi_solver_set_parameters(h, &p), CTS_STATUS_INVALID_ARGUMENT, "1.4916681462400413e-154");
  p.relative_tolerance = 1e-149; /* 1e-153: accepted */
  OK(cts_tamsi_solver_set_parameters(h, &p));
  cts_tamsi_parameters_default(&p);
  p.max_iterations = INT_MAX;
  EXPECT_TAMSI(h, cts_tamsi_solver_set_parameters(h, &p), CTS_STATUS_INVALID_ARGUMENT,
               "max_iterations = 2147483647 is outside its domain: expected [0, 100000]");
  p.max_iterations = 100000;
  OK(cts_tamsi_solver_set_parameters(h, &p));
  cts_tamsi_solver_free(h);
}

static void test_tamsi_rejects_bad_data(void) {
  cts_tamsi_solver *h = NULL, *h2 = NULL;
  puck s, bad;
  double v[NV];
  const char *set1 = "cts_tamsi_solver_set_one_way_coupled_problem_data: ";
  make_puck(&s);
  OK(cts_tamsi_solver_new(NV, &h));
  OK(cts_tamsi_solver_new(NV, &h2));

  bad = s;
  bad.p_star[1] = NAN; /* was: OK with v = NaN */
  EXPECT_TAMSI(h, set_one_way(h, &bad), CTS_STATUS_INVALID_ARGUMENT,
               "set_one_way_coupled_problem_data: p_star[1] = NaN is outside its domain: expected finite");
  CHECK(strncmp(cts_tamsi_solver_last_error(h), set1, strlen(set1)) == 0);
  bad = s;
  bad.M[2] = NAN; /* was: OK with v = 0 */
  EXPECT_TAMSI(h, set_one_way(h, &bad), CTS_STATUS_INVALID_ARGUMENT, "M[0, 1] (row 0, column 1) = NaN");
  bad = s;
  bad.Jt[3] = INFINITY;
  EXPECT_TAMSI(h, set_one_way(h, &bad), CTS_STATUS_INVALID_ARGUMENT, "Jt[1, 1] (row 1, column 1) = inf");
  bad = s;
  bad.Jn[0] = -INFINITY;
  EXPECT_TAMSI(h, set_one_way(h, &bad), CTS_STATUS_INVALID_ARGUMENT, "Jn[0, 0] (row 0, column 0) = -inf");
  bad = s;
  bad.mu[0] = -0.5;
  EXPECT_TAMSI(h, set_one_way(h, &bad), CTS_STATUS_INVALID_ARGUMENT,
               "mu[0] = -0.5 is outside its domain: expected finite and >= 0");
  bad = s;
  bad.fn[0] = -1.0;
  EXPECT_TAMSI(h, set_one_way(h, &bad), CTS_STATUS_INVALID_ARGUMENT, "fn[0] = -1 is outside its domain");
  bad = s;
  bad.fn[0] = NAN;
  EXPECT_TAMSI(h, set_one_way(h, &bad), CTS_STATUS_INVALID_ARGUMENT, "fn[0] = NaN");
  CHECK(cts_tamsi_solver_num_contacts(h) == 0); /* nothing was set */

  bad = s;
  bad.k[0] = -1e4;
  EXPECT_TAMSI(h2, set_two_way(h2, &bad), CTS_STATUS_INVALID_ARGUMENT,
               "stiffness[0] = -10000 is outside its domain: expected finite and >= 0");
  bad = s;
  bad.d[0] = -0.1;
  EXPECT_TAMSI(h2, set_two_way(h2, &bad), CTS_STATUS_INVALID_ARGUMENT, "dissipation[0] = -0.1 is outside");
  bad = s;
  bad.fn0[0] = INFINITY;
  EXPECT_TAMSI(h2, set_two_way(h2, &bad), CTS_STATUS_INVALID_ARGUMENT, "fn0[0] = inf");

  /* Valid data still solves to Drake's answer. */
  OK(set_one_way(h, &s));
  OK(cts_tamsi_solver_solve_with_guess(h, DT, s.p_star, NV));
  OK(cts_tamsi_solver_get_generalized_velocities(h, v, NV));
  CHECK(fabs(v[0] - 0.95) < 1e-9 && fabs(v[1]) < 1e-12);

  /* "v_guess: 3x1, expected 2x1" for a wrong nv is now about nv; a NaN guess is rejected. */
  {
    double guess[3] = {1.0, 0.0, 0.0};
    EXPECT_TAMSI(h, cts_tamsi_solver_solve_with_guess(h, DT, guess, 3), CTS_STATUS_DIMENSION_MISMATCH,
                 "cts_tamsi_solver_solve_with_guess: v_guess has length 3, expected the solver's nv = 2");
    guess[1] = NAN;
    EXPECT_TAMSI(h, cts_tamsi_solver_solve_with_guess(h, DT, guess, NV), CTS_STATUS_INVALID_ARGUMENT,
                 "v_guess[1] = NaN is not finite");
    EXPECT_TAMSI(h, cts_tamsi_solver_calc_jacobian(h, DT, guess, NV, v, NV), CTS_STATUS_INVALID_ARGUMENT,
                 "cts_tamsi_solver_calc_jacobian: v[1] = NaN");
  }
  cts_tamsi_solver_free(h);
  cts_tamsi_solver_free(h2);
}

static void test_tamsi_non_finite_result(void) {
  cts_tamsi_solver *h = NULL;
  const double M[1] = {1e-300}, p_star[1] = {1e300}, guess[1] = {0.0};
  double v[1] = {SENTINEL};
  cts_tamsi_iteration_stats stats;
  OK(cts_tamsi_solver_new(1, &h));
  /* Huge finite data: v = p_star / M = 1e600 overflows. Drake reports success; here it is a status. */
  OK(cts_tamsi_solver_set_one_way_coupled_problem_data(h, 0, M, 1, NULL, 1, NULL, 1, p_star, NULL, NULL));
  EXPECT_TAMSI(h, cts_tamsi_solver_solve_with_guess(h, DT, guess, 1), CTS_STATUS_NON_FINITE_RESULT,
               "cts_tamsi_solver_solve_with_guess: output v[0] = inf is not finite");
  /* errno-style: a successful getter keeps the solve's detail. */
  OK(cts_tamsi_solver_get_iteration_stats(h, &stats));
  CHECK(strstr(cts_tamsi_solver_last_error(h), "output v[0] = inf") != NULL);
  /* The getter of the overflowed output reports it too and writes nothing. */
  EXPECT_TAMSI(h, cts_tamsi_solver_get_generalized_velocities(h, v, 1), CTS_STATUS_NON_FINITE_RESULT,
               "cts_tamsi_solver_get_generalized_velocities: output v[0] = inf");
  CHECK(untouched(v, 1));
  cts_tamsi_solver_free(h);
}

static void test_tamsi_last_error_is_errno_style(void) {
  cts_tamsi_solver *h = NULL;
  cts_tamsi_parameters p;
  cts_tamsi_iteration_stats stats;
  puck s;
  double v[NV];
  make_puck(&s);
  OK(cts_tamsi_solver_new(NV, &h));
  CHECK(strcmp(cts_tamsi_solver_last_error(h), "") == 0);
  cts_tamsi_parameters_default(&p);
  p.max_iterations = 0; /* a solve ends with MaxIterationsReached at the guess */
  OK(cts_tamsi_solver_set_parameters(h, &p));
  OK(set_one_way(h, &s));
  EXPECT_TAMSI(h, cts_tamsi_solver_solve_with_guess(h, DT, s.p_star, NV), CTS_STATUS_MAX_ITERATIONS_REACHED,
               "MaxIterationsReached after 0 Newton updates");
  /* Getters that succeed leave the detail in place (it was lost this way in two trials). */
  OK(cts_tamsi_solver_get_generalized_velocities(h, v, NV));
  OK(cts_tamsi_solver_get_iteration_stats(h, &stats));
  OK(cts_tamsi_solver_get_parameters(h, &p));
  CHECK(strstr(cts_tamsi_solver_last_error(h), "cts_tamsi_solver_solve_with_guess: MaxIterationsReached") != NULL);
  /* A new solve starts with a clean slate. */
  cts_tamsi_parameters_default(&p);
  OK(cts_tamsi_solver_set_parameters(h, &p));
  CHECK(strstr(cts_tamsi_solver_last_error(h), "MaxIterationsReached") != NULL);
  OK(cts_tamsi_solver_solve_with_guess(h, DT, s.p_star, NV));
  CHECK(strcmp(cts_tamsi_solver_last_error(h), "") == 0);
  /* So does a new set call. */
  EXPECT_TAMSI(h, cts_tamsi_solver_get_normal_forces(h, v, 3), CTS_STATUS_DIMENSION_MISMATCH,
               "out has length 3, expected 1");
  OK(set_one_way(h, &s));
  CHECK(strcmp(cts_tamsi_solver_last_error(h), "") == 0);
  cts_tamsi_solver_free(h);
}

/* The block-sparse setters get the same checks: the puck as one 2-dof tree touched by one
 * contact (J rows normal, tangent 1, tangent 2 = (0 0), (1 0), (0 1)), then one 1-dof tree with
 * huge finite data. */
static void test_tamsi_block_data(void) {
  cts_tamsi_solver *h = NULL;
  puck s;
  const int32_t dofs[1] = {2}, one_dof[1] = {1}, trees[2] = {0, -1};
  const double J[6] = {0, 1, 0, 0, 0, 1}, tiny_M[1] = {1e-300}, huge_p[1] = {1e300}, zero[1] = {0.0};
  double nan_M[4] = {NAN, 0, 0, 1}, v[NV] = {SENTINEL, SENTINEL}, v1[1] = {SENTINEL};
  cts_block_sparse_data d, bad, huge;
  cts_tamsi_iteration_stats stats;
  make_puck(&s);
  memset(&d, 0, sizeof d);
  d.num_trees = 1;
  d.tree_dofs = dofs;
  d.M_len = 4;
  d.M = s.M;
  d.num_contacts = 1;
  d.contact_trees = trees;
  d.J_len = 6;
  d.J = J;
  OK(cts_tamsi_solver_new(NV, &h));
  OK(cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &d, s.p_star, s.fn, s.mu));
  OK(cts_tamsi_solver_solve_with_guess(h, DT, s.p_star, NV));
  OK(cts_tamsi_solver_get_generalized_velocities(h, v, NV));
  CHECK(fabs(v[0] - 0.95) < 1e-12 && fabs(v[1]) < 1e-12);
  /* The coupling scheme is checked before the values, as for dense data. */
  bad = d;
  bad.M = nan_M;
  EXPECT_TAMSI(h, cts_tamsi_solver_set_two_way_coupled_block_problem_data(h, &bad, s.p_star, s.fn0, s.k, s.d, s.mu),
               CTS_STATUS_WRONG_COUPLING_SCHEME,
               "cts_tamsi_solver_set_two_way_coupled_block_problem_data: the solver is one-way coupled");
  EXPECT_TAMSI(h, cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &bad, s.p_star, s.fn, s.mu),
               CTS_STATUS_INVALID_ARGUMENT,
               "cts_tamsi_solver_set_one_way_coupled_block_problem_data: data->M[0] = NaN is outside its domain: "
               "expected finite");
  /* The rejected calls kept the data; its results were dropped by the first set call only. */
  OK(cts_tamsi_solver_solve_with_guess(h, DT, s.p_star, NV));
  CHECK(strcmp(cts_tamsi_solver_last_error(h), "") == 0);

  /* Huge finite block data: v = p* / M = 1e600 overflows; a status, not OK (Drake: success). */
  OK(cts_tamsi_solver_resize(h, 1));
  memset(&huge, 0, sizeof huge);
  huge.num_trees = 1;
  huge.tree_dofs = one_dof;
  huge.M_len = 1;
  huge.M = tiny_M;
  OK(cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &huge, huge_p, NULL, NULL));
  EXPECT_TAMSI(h, cts_tamsi_solver_solve_with_guess(h, DT, zero, 1), CTS_STATUS_NON_FINITE_RESULT,
               "cts_tamsi_solver_solve_with_guess: output v[0] = inf is not finite");
  OK(cts_tamsi_solver_get_iteration_stats(h, &stats)); /* errno-style: the detail stays */
  CHECK(strstr(cts_tamsi_solver_last_error(h), "output v[0] = inf") != NULL);
  EXPECT_TAMSI(h, cts_tamsi_solver_get_generalized_velocities(h, v1, 1), CTS_STATUS_NON_FINITE_RESULT,
               "cts_tamsi_solver_get_generalized_velocities: output v[0] = inf");
  CHECK(untouched(v1, 1));
  /* A new set call starts with a clean slate. */
  OK(cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &huge, huge_p, NULL, NULL));
  CHECK(strcmp(cts_tamsi_solver_last_error(h), "") == 0);
  cts_tamsi_solver_free(h);
}

static void test_tamsi_calc_alpha(void) {
  const double vt[2] = {1.0, 0.0}, half_back[2] = {-0.5, 0.0}, inf_step[2] = {1.0, INFINITY};
  const double huge_step[2] = {1e200, -1e200};
  double alpha = SENTINEL;
  /* "vt is NULL" now names the function and what was expected. */
  EXPECT_GLOBAL_MSG(cts_tamsi_calc_alpha(NULL, half_back, 0.5, 1e-4, 1e-2, &alpha), CTS_STATUS_NULL_POINTER,
                    "cts_tamsi_calc_alpha: vt is NULL, but it must point to 2 doubles");
  /* dvt = {1, inf} gave OK with alpha = 0; the docs promise status 3. */
  EXPECT_GLOBAL_MSG(cts_tamsi_calc_alpha(vt, inf_step, 0.5, 1e-4, 1e-2, &alpha), CTS_STATUS_ALPHA_SOLVER_FAILED,
                    "cts_tamsi_calc_alpha: dvt[1] = inf is not finite");
  /* Finite but overflowing: |dvt|² = inf; never OK with alpha outside (0, 1]. */
  EXPECT_GLOBAL_MSG(cts_tamsi_calc_alpha(vt, huge_step, 0.5, 1e-4, 1e-2, &alpha), CTS_STATUS_ALPHA_SOLVER_FAILED,
                    "cts_tamsi_calc_alpha:");
  CHECK(alpha == SENTINEL);
  EXPECT_GLOBAL_MSG(cts_tamsi_calc_alpha(vt, half_back, 0.5, 1e-200, 1e-2, &alpha), CTS_STATUS_INVALID_ARGUMENT,
                    "expected >= 2^-511");
  EXPECT_GLOBAL_MSG(cts_tamsi_calc_alpha(vt, half_back, 1.5, 1e-4, 1e-2, &alpha), CTS_STATUS_INVALID_ARGUMENT,
                    "cts_tamsi_calc_alpha: cos_theta_max = 1.5 is outside its domain: expected (0, 1)");
  OK(cts_tamsi_calc_alpha(vt, half_back, 0.5, 1e-4, 1e-2, &alpha));
  CHECK(alpha > 0.0 && alpha <= 1.0);
}

/* ------------------------------------------------------------------------------------------ */
/* Rigid: a particle (nv = 1, M = 1) falling at 1 m/s onto the ground, one contact (r = 1,
 * mu = 0.5), impact problem: fN = 1 N·s stops it. */

typedef struct {
  size_t r[1];
  double mu[1], kN[1], kF[1], Mv[1], N[1], F[1], M[1];
} particle;

static void make_particle(particle *s) {
  s->r[0] = 1;
  s->mu[0] = 0.5;
  s->kN[0] = 0.0;
  s->kF[0] = 0.0;
  s->Mv[0] = -1.0;
  s->N[0] = 1.0;
  s->F[0] = 0.0;
  s->M[0] = 1.0;
}

static cts_status set_vel(cts_rigid_solver *h, const particle *s, const double *gammaN) {
  return cts_rigid_solver_set_vel_problem_data(h, 1, 1, s->r, s->mu, s->kN, gammaN, s->kF, NULL, NULL, 0, NULL, NULL,
                                               0, NULL, s->Mv);
}

static void set_vel_operators(cts_rigid_solver *h, const particle *s) {
  OK(cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_N_MULT, s->N, 1));
  OK(cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, s->N, 1));
  OK(cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_F_MULT, s->F, 1));
  OK(cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, s->F, 1));
  OK(cts_rigid_solver_set_vel_inertia_matrix(h, CTS_RIGID_INERTIA_MATRIX, s->M, 1));
}

static int nan_inertia(void *user_data, const double *in, size_t n_in, double *out, size_t n_out) {
  size_t i;
  (void)user_data;
  for (i = 0; i < n_out && i < n_in; ++i) out[i] = in[i];
  if (n_out > 0) out[n_out - 1] = NAN;
  return 0;
}

static void test_rigid(void) {
  cts_rigid_solver *h = NULL;
  cts_rigid_parameters p;
  particle s, bad;
  double cf[2], out[1] = {SENTINEL};
  const double gamma_inf[1] = {INFINITY};
  make_particle(&s);
  OK(cts_rigid_solver_new(&h));

  bad = s;
  bad.Mv[0] = NAN; /* was: OK with zero forces */
  EXPECT_RIGID(h, set_vel(h, &bad, NULL), CTS_STATUS_INVALID_ARGUMENT,
               "cts_rigid_solver_set_vel_problem_data: Mv[0] = NaN is outside its domain: expected finite");
  bad = s;
  bad.mu[0] = -1.0;
  EXPECT_RIGID(h, set_vel(h, &bad, NULL), CTS_STATUS_INVALID_ARGUMENT,
               "mu[0] = -1 is outside its domain: expected finite and >= 0");
  EXPECT_RIGID(h, set_vel(h, &s, gamma_inf), CTS_STATUS_INVALID_ARGUMENT, "gammaN[0] = inf");

  OK(set_vel(h, &s, NULL));
  bad = s;
  bad.N[0] = NAN;
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_N_MULT, bad.N, 1),
               CTS_STATUS_INVALID_ARGUMENT, "N_mult[0, 0] (row 0, column 0) = NaN");
  set_vel_operators(h, &s);
  OK(cts_rigid_solver_solve_impact_problem(h));
  OK(cts_rigid_solver_get_constraint_forces(h, cf, 2));
  CHECK(fabs(cf[0] - 1.0) < 1e-12 && cf[1] == 0.0);

  /* The double arrays may change in place between calls: every solve validates them again. */
  s.kN[0] = NAN;
  EXPECT_RIGID(h, cts_rigid_solver_solve_impact_problem(h), CTS_STATUS_INVALID_ARGUMENT,
               "cts_rigid_solver_solve_impact_problem: kN[0] = NaN");
  s.kN[0] = 0.0;

  /* A callback that writes NaN (was: OK with NaN output). */
  OK(cts_rigid_solver_set_vel_operator_callback(h, CTS_RIGID_OPERATOR_SOLVE_INERTIA, nan_inertia, NULL));
  EXPECT_RIGID(h, cts_rigid_solver_solve_impact_problem(h), CTS_STATUS_CALLBACK_FAILED,
               "the solve_inertia callback returned 0 but wrote out[0] = NaN, which is not finite");
  /* errno-style: a successful call keeps it. */
  cts_rigid_parameters_default(&p);
  OK(cts_rigid_solver_get_parameters(h, &p));
  CHECK(strstr(cts_rigid_solver_last_error(h), "wrote out[0] = NaN") != NULL);

  /* "Unexpected packed constraint force vector dimension.: expected length 3, got 2". */
  OK(cts_rigid_solver_set_vel_inertia_matrix(h, CTS_RIGID_INERTIA_MATRIX, s.M, 1));
  cf[0] = 1.0;
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses(h, cf, 1, out, 1),
               CTS_STATUS_DIMENSION_MISMATCH,
               "cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses: cf (packed constraint "
               "impulses, nc + nr + nu + nb) has length 1, expected 2");
  cf[1] = NAN;
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_velocity_change(h, cf, 2, out, 1),
               CTS_STATUS_INVALID_ARGUMENT, "cf[1] = NaN is not finite");
  /* Huge finite data that overflows: M⁻¹ = 1e308 times an impulse of 1e308. */
  {
    const double minv[1] = {1e308};
    cf[0] = 1e308;
    cf[1] = 0.0;
    OK(cts_rigid_solver_set_vel_inertia_matrix(h, CTS_RIGID_INERTIA_INVERSE, minv, 1));
    EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_velocity_change(h, cf, 2, out, 1),
                 CTS_STATUS_NON_FINITE_RESULT, "output out[0] = inf is not finite");
    CHECK(untouched(out, 1));
  }
  cts_rigid_solver_free(h);
}

/* ------------------------------------------------------------------------------------------ */
/* Baraff and interior point: parameter domains and message formatting. */

static void test_baraff_and_ipm_parameters(void) {
  cts_baraff_solver *b = NULL;
  cts_baraff_parameters bp;
  cts_ipm_solver *i = NULL;
  cts_ipm_parameters ip;
  OK(cts_baraff_solver_new(&b));
  cts_baraff_parameters_default(&bp);
  /* Was "singular_tolerance = 17976931348623157000…(309 digits) is out of its domain". */
  bp.singular_tolerance = DBL_MAX;
  EXPECT_BARAFF(b, cts_baraff_solver_set_parameters(b, &bp), CTS_STATUS_INVALID_ARGUMENT,
                "cts_baraff_solver_set_parameters: singular_tolerance = 1.7976931348623157e308 is outside its "
                "domain: expected [0, 1)");
  CHECK(strlen(cts_baraff_solver_last_error(b)) < 160);
  cts_baraff_parameters_default(&bp);
  bp.tolerance = 1e-300;
  OK(cts_baraff_solver_set_parameters(b, &bp));
  bp.restitution = 2.0;
  EXPECT_BARAFF(b, cts_baraff_solver_set_parameters(b, &bp), CTS_STATUS_INVALID_ARGUMENT,
                "restitution = 2 is outside its domain: expected [0, 1]");
  cts_baraff_solver_free(b);

  OK(cts_ipm_solver_new(&i));
  cts_ipm_parameters_default(&ip);
  /* max_iter = INT_MAX was accepted and failed later as "the problem is too large" for n = 1. */
  ip.max_iter = INT_MAX;
  EXPECT_IPM(i, cts_ipm_solver_set_parameters(i, &ip), CTS_STATUS_INVALID_ARGUMENT,
             "cts_ipm_solver_set_parameters: max_iter = 2147483647 is outside its domain: expected [0, 100000]");
  cts_ipm_parameters_default(&ip);
  ip.max_ls = INT_MAX; /* up to 2^31 halvings per iteration */
  EXPECT_IPM(i, cts_ipm_solver_set_parameters(i, &ip), CTS_STATUS_INVALID_ARGUMENT,
             "max_ls = 2147483647 is outside its domain: expected [1, 1000]");
  ip.max_ls = 1000;
  ip.max_iter = 100000;
  OK(cts_ipm_solver_set_parameters(i, &ip));
  cts_ipm_solver_free(i);
}

static void test_status_strings(void) {
  CHECK(CTS_STATUS_NON_FINITE_RESULT == 4 && CTS_STATUS_ALLOCATION_FAILED == 106);
  CHECK(strcmp(cts_status_string(CTS_STATUS_NON_FINITE_RESULT), "non-finite result (overflow or undefined)") == 0);
  CHECK(strcmp(cts_status_string(CTS_STATUS_ALLOCATION_FAILED), "allocation failed") == 0);
}

int main(void) {
  test_status_strings();
  test_tamsi_sizes_and_parameters();
  test_tamsi_rejects_bad_data();
  test_tamsi_non_finite_result();
  test_tamsi_last_error_is_errno_style();
  test_tamsi_block_data();
  test_tamsi_calc_alpha();
  test_rigid();
  test_baraff_and_ipm_parameters();
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
