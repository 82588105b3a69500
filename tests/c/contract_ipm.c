/* The C ABI contract of the interior-point solver (cts_ipm_*), checked from C (docs/c_api.md):
 * every function with NULLs, wrong lengths, ld below the row count, bad h, bad parameters, bad
 * model kinds, non-finite data, calls out of order, nc = 0 with NULL arrays, the two non-converged
 * outcomes, and NaN padding rows between rows and ld. Each misuse must return its documented
 * status with a non-empty message, write nothing to the outputs, and never crash. Prints one line
 * per failed check; exits 1 if any failed. */

#include "contract_support.h"

#define EXPECT_HANDLE(h, call, want) EXPECT_ON(cts_ipm_solver_last_error, h, call, want)

/* A point mass (n = 3) at rest on the ground, pushed along x with F = 3 N (as in docs/ipm.md
 * §9.A2: m = 1, h = 0.1; here μ = 1, it sticks), carried by three contacts at the same point, one
 * of each model kind (K = 4 + 6 + 1 = 11 cone variables). Matrices are stored with a leading dimension PAD
 * rows larger than needed and the padding filled with `padding`. */
enum { N = 3, NC = 3, K = 11, PAD = 2, LDM = N + PAD, LDJN = NC + PAD, LDJT = 2 * NC + PAD };
typedef struct {
  double M[LDM * N], Jn[LDJN * N], Jt[LDJT * N];
  double v0[N], tau[N], phi[NC], mu[NC], vt_offset[2 * NC];
  int32_t models[NC];
  double h;
} scene;

static void make_scene(scene *s, double padding) {
  size_t c, i;
  fill(s->M, LDM * N, padding);
  fill(s->Jn, LDJN * N, padding);
  fill(s->Jt, LDJT * N, padding);
  for (c = 0; c < N; ++c) {
    size_t r;
    for (r = 0; r < N; ++r) s->M[r + c * LDM] = r == c ? 1.0 : 0.0;
    for (i = 0; i < NC; ++i) {
      s->Jn[i + c * LDJN] = c == 2 ? 1.0 : 0.0;
      s->Jt[2 * i + c * LDJT] = c == 0 ? 1.0 : 0.0;
      s->Jt[2 * i + 1 + c * LDJT] = c == 1 ? 1.0 : 0.0;
    }
  }
  s->v0[0] = s->v0[1] = s->v0[2] = 0.0;
  s->tau[0] = 3.0;
  s->tau[1] = 0.0;
  s->tau[2] = -9.81;
  for (i = 0; i < NC; ++i) {
    s->phi[i] = 0.0;
    s->mu[i] = 1.0; /* the impact contact takes part of the load without friction */
  }
  for (i = 0; i < 2 * NC; ++i) s->vt_offset[i] = 0.0;
  s->models[0] = CTS_IPM_MODEL_SECOND_ORDER_CONE;
  s->models[1] = CTS_IPM_MODEL_LINEAR;
  s->models[2] = CTS_IPM_MODEL_IMPACT;
  s->h = 0.1;
}

static cts_status set_data(cts_ipm_solver *h, const scene *s) {
  return cts_ipm_solver_set_problem_data(h, N, NC, s->M, LDM, s->Jn, LDJN, s->Jt, LDJT, s->v0, s->tau, s->h,
                                         s->phi, s->mu, s->models, NULL, 0);
}

static void tight(cts_ipm_solver *h) {
  cts_ipm_parameters p;
  cts_ipm_parameters_default(&p);
  p.dojo_compatible = 1; /* the reference numbers of docs/ipm.md §9 are Dojo's iteration's */
  p.rtol = 1e-8;
  p.btol = 1e-8;
  OK(cts_ipm_solver_set_parameters(h, &p));
}

static void test_common(void) {
  CHECK(strcmp(cts_status_string(CTS_STATUS_IPM_MAX_ITERATIONS_REACHED), "unknown status") != 0);
  CHECK(strcmp(cts_status_string(CTS_STATUS_IPM_NON_FINITE_STEP), "unknown status") != 0);
  CHECK(strcmp(cts_status_string(CTS_STATUS_IPM_MAX_ITERATIONS_REACHED),
               cts_status_string(CTS_STATUS_IPM_NON_FINITE_STEP)) != 0);
  CHECK(CTS_STATUS_IPM_MAX_ITERATIONS_REACHED == 41 && CTS_STATUS_IPM_NON_FINITE_STEP == 42);
  CHECK(CTS_IPM_MODEL_IMPACT == 0 && CTS_IPM_MODEL_SECOND_ORDER_CONE == 1 && CTS_IPM_MODEL_LINEAR == 2);
  CHECK(CTS_IPM_SENSITIVITY_V0 == 0 && CTS_IPM_SENSITIVITY_TAU == 1 && CTS_IPM_SENSITIVITY_PHI == 2 &&
        CTS_IPM_SENSITIVITY_MU == 3);
  CHECK(CTS_IPM_NEWTON_SOLVE_CONDENSED == 0 && CTS_IPM_NEWTON_SOLVE_DENSE == 1);
  cts_ipm_parameters_default(NULL); /* NULL-safe */
}

static void test_constructors(void) {
  cts_ipm_solver *h = (cts_ipm_solver *)&failures; /* sentinel: must stay unchanged */
  cts_ipm_solver *copy = (cts_ipm_solver *)&checks;
  EXPECT_GLOBAL(cts_ipm_solver_new(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_clone(NULL, &copy), CTS_STATUS_NULL_POINTER);
  CHECK(copy == (cts_ipm_solver *)&checks);
  CHECK(h == (cts_ipm_solver *)&failures);
  OK(cts_ipm_solver_new(&h));
  CHECK(h != NULL && h != (cts_ipm_solver *)&failures);
  EXPECT_GLOBAL(cts_ipm_solver_clone(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_ipm_solver_clone(h, &copy));
  CHECK(copy != NULL && copy != h && copy != (cts_ipm_solver *)&checks);
  CHECK(cts_ipm_solver_num_velocities(copy) == 0 && cts_ipm_solver_num_contacts(copy) == 0);
  CHECK(strcmp(cts_ipm_solver_last_error(h), "") == 0);
  cts_ipm_solver_free(copy);
  cts_ipm_solver_free(h);
  cts_ipm_solver_free(NULL); /* no-op */
  CHECK(cts_ipm_solver_num_velocities(NULL) == 0);
  CHECK(cts_ipm_solver_num_contacts(NULL) == 0);
  CHECK(cts_ipm_solver_num_cone_variables(NULL) == 0);
  CHECK(strcmp(cts_ipm_solver_last_error(NULL), "") == 0);
}

static void test_null_handles(void) {
  scene s;
  double x[K];
  size_t count = 7;
  cts_ipm_parameters p;
  cts_ipm_stats stats;
  make_scene(&s, 0.0);
  cts_ipm_parameters_default(&p);
  EXPECT_GLOBAL(cts_ipm_solver_set_parameters(NULL, &p), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_parameters(NULL, &p), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(set_data(NULL, &s), CTS_STATUS_NULL_POINTER);
  CHECK(strstr(cts_last_error_message(), "cts_ipm_solver_set_problem_data") != NULL);
  EXPECT_GLOBAL(cts_ipm_solver_solve(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_solve_with_guess(NULL, x, N), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_generalized_velocities(NULL, x, N), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_impulses(NULL, x, 3 * NC), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_next_gaps(NULL, x, NC), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_primal(NULL, x, K), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_dual(NULL, x, K), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_stats(NULL, &stats), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_rvio_history(NULL, x, K, &count), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_bvio_history(NULL, x, K, &count), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_kappa_history(NULL, x, K, &count), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_alpha_history(NULL, x, K, &count), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_compute_sensitivities(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_velocity_sensitivity(NULL, CTS_IPM_SENSITIVITY_V0, x, N, N),
                CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_ipm_solver_get_impulse_sensitivity(NULL, CTS_IPM_SENSITIVITY_MU, x, 3 * NC, NC),
                CTS_STATUS_NULL_POINTER);
  CHECK(count == 7);
}

static void test_parameters(void) {
  cts_ipm_solver *h = NULL;
  cts_ipm_parameters p, bad, got;
  OK(cts_ipm_solver_new(&h));
  cts_ipm_parameters_default(&p);
  CHECK(p.rtol == 1e-6 && p.btol == 1e-4 && p.max_iter == 100 && p.max_ls == 10);
  CHECK(p.dojo_compatible == 0 && p.tolerance == 1e-8 && p.complementarity_tolerance == 1e-6);
  CHECK(isinf(p.undercut) && p.undercut > 0 && p.no_progress_max == 3 && p.no_progress_undercut == 10.0);
  CHECK(p.dojo_lagged_kappa == 0 && p.fixed_kappa == 0.0 && p.warm_start == 0);
  CHECK(p.newton_solve == CTS_IPM_NEWTON_SOLVE_CONDENSED && p.rvio_floor_in_backtracking == 0);
  OK(cts_ipm_solver_get_parameters(h, &got)); /* a new solver has the defaults */
  CHECK(got.rtol == p.rtol && got.btol == p.btol && got.max_iter == p.max_iter);
  EXPECT_HANDLE(h, cts_ipm_solver_set_parameters(h, NULL), CTS_STATUS_NULL_POINTER);

#define BAD(field, value)                                                               \
  bad = p;                                                                              \
  bad.field = value;                                                                    \
  EXPECT_HANDLE(h, cts_ipm_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT); \
  CHECK(strstr(cts_ipm_solver_last_error(h), #field) != NULL);

  BAD(rtol, 0.0)
  BAD(rtol, -1e-6)
  BAD(rtol, NAN)
  BAD(rtol, INFINITY)
  BAD(btol, 0.0)
  BAD(btol, NAN)
  BAD(max_iter, -1)
  BAD(max_ls, 0)
  BAD(max_ls, -3)
  BAD(undercut, 0.0)
  BAD(undercut, -5.0)
  BAD(undercut, NAN)
  BAD(no_progress_max, -1)
  BAD(no_progress_undercut, 0.5)
  BAD(no_progress_undercut, INFINITY)
  BAD(dojo_lagged_kappa, 2)
  BAD(dojo_lagged_kappa, -1)
  BAD(fixed_kappa, -1e-3)
  BAD(fixed_kappa, NAN)
  BAD(fixed_kappa, INFINITY)
  BAD(warm_start, 7)
  BAD(newton_solve, 2)
  BAD(newton_solve, -1)
  BAD(rvio_floor_in_backtracking, 2)
  BAD(dojo_compatible, 2)
  BAD(tolerance, 0.0)
  BAD(tolerance, NAN)
  BAD(complementarity_tolerance, -1e-6)
  BAD(complementarity_tolerance, INFINITY)
#undef BAD

  EXPECT_HANDLE(h, cts_ipm_solver_get_parameters(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_ipm_solver_get_parameters(h, &got));
  /* Failed sets changed nothing (fields compared one by one: struct padding is undefined). */
  CHECK(got.rtol == p.rtol && got.btol == p.btol && got.max_iter == p.max_iter && got.max_ls == p.max_ls &&
        got.undercut == p.undercut && got.no_progress_max == p.no_progress_max &&
        got.no_progress_undercut == p.no_progress_undercut && got.dojo_lagged_kappa == p.dojo_lagged_kappa &&
        got.fixed_kappa == p.fixed_kappa && got.warm_start == p.warm_start && got.newton_solve == p.newton_solve &&
        got.rvio_floor_in_backtracking == p.rvio_floor_in_backtracking && got.dojo_compatible == p.dojo_compatible &&
        got.tolerance == p.tolerance && got.complementarity_tolerance == p.complementarity_tolerance);
  p.max_iter = 7;
  p.dojo_compatible = 1;
  p.tolerance = 1e-10;
  p.undercut = 5.0;
  p.warm_start = 1;
  p.dojo_lagged_kappa = 1;
  p.newton_solve = CTS_IPM_NEWTON_SOLVE_DENSE;
  p.rvio_floor_in_backtracking = 1;
  OK(cts_ipm_solver_set_parameters(h, &p));
  /* errno-style: a successful call keeps the detail of the last failure */
  CHECK(strstr(cts_ipm_solver_last_error(h), "cts_ipm_solver_get_parameters: out is NULL") != NULL);
  OK(cts_ipm_solver_get_parameters(h, &got));
  CHECK(got.max_iter == 7 && got.undercut == 5.0 && got.warm_start == 1 && got.dojo_lagged_kappa == 1 &&
        got.newton_solve == CTS_IPM_NEWTON_SOLVE_DENSE && got.rvio_floor_in_backtracking == 1 &&
        got.dojo_compatible == 1 && got.tolerance == 1e-10);
  cts_ipm_solver_free(h);
}

#define SET(h, n, nc, M, ldM, Jn, ldJn, Jt, ldJt, v0, tau, hh, phi, mu, models, off, offlen) \
  cts_ipm_solver_set_problem_data(h, n, nc, M, ldM, Jn, ldJn, Jt, ldJt, v0, tau, hh, phi, mu, models, off, offlen)

static void test_problem_data(void) {
  cts_ipm_solver *h = NULL;
  scene s;
  double out[3 * NC], v[N];
  int32_t bad_models[NC];
  make_scene(&s, 0.0);
  OK(cts_ipm_solver_new(&h));

  /* Out of order: solve, sensitivities and getters before data or solve. */
  EXPECT_HANDLE(h, cts_ipm_solver_solve(h), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_HANDLE(h, cts_ipm_solver_solve_with_guess(h, s.v0, N), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_HANDLE(h, cts_ipm_solver_compute_sensitivities(h), CTS_STATUS_NO_SOLUTION);
  fill(out, 3 * NC, SENTINEL);
  EXPECT_HANDLE(h, cts_ipm_solver_get_generalized_velocities(h, out, N), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_V0, out, N, N),
                CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, 3 * NC));

  /* NULLs where lengths are not zero. */
  EXPECT_HANDLE(h, SET(h, N, NC, NULL, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, NULL, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, NULL, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, NULL, s.tau, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, NULL, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, NULL, s.mu, s.models, NULL, 0), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, NULL, s.models, NULL, 0), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, NULL, NULL, 0), CTS_STATUS_NULL_POINTER);
  CHECK(strstr(cts_ipm_solver_last_error(h), "models") != NULL);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, s.models, NULL, 2 * NC), CTS_STATUS_NULL_POINTER);

  /* ld below the row count. */
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, N - 1, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_ipm_solver_last_error(h), "M: ld") != NULL);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, NC - 1, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, 2 * NC - 1, s.v0, s.tau, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_ipm_solver_last_error(h), "Jt") != NULL);
  EXPECT_HANDLE(h, SET(h, N, 0, s.M, LDM, NULL, 0, NULL, 1, s.v0, s.tau, s.h, NULL, NULL, NULL, NULL, 0), CTS_STATUS_INVALID_ARGUMENT); /* ld >= max(1, rows) */

  /* Bad time step. */
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, 0.0, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_ipm_solver_last_error(h), "h") != NULL);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, -0.1, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, NAN, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, INFINITY, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);

  /* Bad model kinds. */
  memcpy(bad_models, s.models, sizeof bad_models);
  bad_models[1] = 3;
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, bad_models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_ipm_solver_last_error(h), "models[1] = 3") != NULL);
  bad_models[1] = -1;
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, bad_models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);

  /* Non-finite data and negative friction. */
  {
    scene b;
    b = s; b.M[1 + 2 * LDM] = NAN;
    EXPECT_HANDLE(h, set_data(h, &b), CTS_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(cts_ipm_solver_last_error(h), "M") != NULL);
    b = s; b.Jn[2 + 1 * LDJN] = INFINITY;
    EXPECT_HANDLE(h, set_data(h, &b), CTS_STATUS_INVALID_ARGUMENT);
    b = s; b.Jt[5 + 0 * LDJT] = NAN;
    EXPECT_HANDLE(h, set_data(h, &b), CTS_STATUS_INVALID_ARGUMENT);
    b = s; b.v0[1] = NAN;
    EXPECT_HANDLE(h, set_data(h, &b), CTS_STATUS_INVALID_ARGUMENT);
    b = s; b.tau[2] = -INFINITY;
    EXPECT_HANDLE(h, set_data(h, &b), CTS_STATUS_INVALID_ARGUMENT);
    b = s; b.phi[0] = NAN;
    EXPECT_HANDLE(h, set_data(h, &b), CTS_STATUS_INVALID_ARGUMENT);
    b = s; b.mu[2] = NAN;
    EXPECT_HANDLE(h, set_data(h, &b), CTS_STATUS_INVALID_ARGUMENT);
    b = s; b.mu[1] = -0.1;
    EXPECT_HANDLE(h, set_data(h, &b), CTS_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(cts_ipm_solver_last_error(h), "mu") != NULL);
    b = s; b.vt_offset[3] = NAN;
    EXPECT_HANDLE(h, SET(h, N, NC, b.M, LDM, b.Jn, LDJN, b.Jt, LDJT, b.v0, b.tau, b.h, b.phi, b.mu, b.models, b.vt_offset, 2 * NC), CTS_STATUS_INVALID_ARGUMENT);
  }

  /* vt_offset of the wrong length. */
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, s.models, s.vt_offset, 2 * NC - 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, s.models, s.vt_offset, NC), CTS_STATUS_DIMENSION_MISMATCH);

  /* Sizes that overflow the address space. */
  EXPECT_HANDLE(h, SET(h, N, (size_t)-1 / 2, s.M, LDM, s.Jn, (size_t)-1 / 2, s.Jt, (size_t)-1, s.v0, s.tau, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, SET(h, (size_t)-1 / 4, NC, s.M, (size_t)-1 / 4, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(cts_ipm_solver_num_contacts(h) == 0 && cts_ipm_solver_num_velocities(h) == 0); /* nothing was set */
  CHECK(cts_ipm_solver_num_cone_variables(h) == 0);

  /* Valid data; a failing set afterwards keeps it. */
  OK(set_data(h, &s));
  CHECK(strcmp(cts_ipm_solver_last_error(h), "") == 0);
  CHECK(cts_ipm_solver_num_contacts(h) == NC && cts_ipm_solver_num_velocities(h) == N);
  CHECK(cts_ipm_solver_num_cone_variables(h) == K);
  EXPECT_HANDLE(h, SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, -1.0, s.phi, s.mu, s.models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(cts_ipm_solver_num_contacts(h) == NC && cts_ipm_solver_num_cone_variables(h) == K);
  bad_models[0] = 5;
  EXPECT_HANDLE(h, SET(h, N, 1, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, bad_models, NULL, 0), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(cts_ipm_solver_num_contacts(h) == NC && cts_ipm_solver_num_cone_variables(h) == K);

  /* Bad solve arguments: nothing solved. */
  EXPECT_HANDLE(h, cts_ipm_solver_solve_with_guess(h, s.v0, N + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_ipm_solver_solve_with_guess(h, s.v0, N - 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_ipm_solver_solve_with_guess(h, NULL, N), CTS_STATUS_NULL_POINTER);
  v[0] = 0.0; v[1] = NAN; v[2] = 0.0;
  EXPECT_HANDLE(h, cts_ipm_solver_solve_with_guess(h, v, N), CTS_STATUS_INVALID_ARGUMENT);
  fill(out, 3 * NC, SENTINEL);
  EXPECT_HANDLE(h, cts_ipm_solver_get_generalized_velocities(h, out, N), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, 3 * NC));

  /* The model kinds are copied at the set call. */
  memcpy(bad_models, s.models, sizeof bad_models);
  OK(SET(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu, bad_models, NULL, 0));
  bad_models[0] = 99;
  OK(cts_ipm_solver_solve(h));
  cts_ipm_solver_free(h);
}

/* Solve, then misuse every getter: wrong lengths and NULL outputs write nothing. */
static void test_getters(void) {
  cts_ipm_solver *h = NULL;
  scene s;
  double out[16], v[N], g[K], sd[K];
  size_t count = 99, count2 = 99, i;
  cts_ipm_stats stats, stats2;
  make_scene(&s, 0.0);
  OK(cts_ipm_solver_new(&h));
  tight(h);
  OK(set_data(h, &s));
  OK(cts_ipm_solver_solve(h));
  CHECK(strcmp(cts_ipm_solver_last_error(h), "") == 0);

#define GETTER_CASES(getter, n)                                                          \
  fill(out, 16, SENTINEL);                                                               \
  EXPECT_HANDLE(h, getter(h, out, (n) + 1), CTS_STATUS_DIMENSION_MISMATCH);              \
  EXPECT_HANDLE(h, getter(h, out, (n) - 1), CTS_STATUS_DIMENSION_MISMATCH);              \
  EXPECT_HANDLE(h, getter(h, out, 0), CTS_STATUS_DIMENSION_MISMATCH);                    \
  EXPECT_HANDLE(h, getter(h, NULL, (n)), CTS_STATUS_NULL_POINTER);                       \
  CHECK(untouched(out, 16));                                                             \
  OK(getter(h, out, (n)));                                                               \
  CHECK(out[0] == out[0] && out[0] != SENTINEL && untouched(out + (n), 16 - (n)));

  GETTER_CASES(cts_ipm_solver_get_generalized_velocities, N)
  GETTER_CASES(cts_ipm_solver_get_impulses, 3 * NC)
  GETTER_CASES(cts_ipm_solver_get_next_gaps, NC)
  GETTER_CASES(cts_ipm_solver_get_primal, K)
  GETTER_CASES(cts_ipm_solver_get_dual, K)
#undef GETTER_CASES

  /* The values: the particle sticks (|v| ~ 0), carries its weight (Σ γn = m g h = 0.981 N·s) and
   * the friction impulses balance the push (Σ b1 = −F h = −0.3 N·s). */
  OK(cts_ipm_solver_get_generalized_velocities(h, v, N));
  CHECK(fabs(v[0]) < 1e-6 && fabs(v[1]) < 1e-6 && fabs(v[2]) < 1e-6);
  OK(cts_ipm_solver_get_impulses(h, out, 3 * NC));
  CHECK(fabs(out[0] + out[3] + out[6] - 0.981) < 1e-6);
  CHECK(fabs(out[1] + out[4] + out[7] + 0.3) < 1e-6);
  CHECK(out[7] == 0.0 && out[8] == 0.0); /* the impact contact has no friction */
  OK(cts_ipm_solver_get_primal(h, g, K));
  OK(cts_ipm_solver_get_dual(h, sd, K));
  CHECK(g[0] == out[0] && g[2] == out[1] && g[3] == out[2]);       /* cone contact: (γn, ξ0, ξ1, ξ2) */
  CHECK(g[4] == out[3] && g[8] - g[9] == out[4] && g[6] - g[7] == out[5]); /* linear: β3 − β4, β1 − β2 */
  CHECK(g[10] == out[6]);                                            /* impact: γn */
  CHECK(fabs(g[1] - 1.0 * g[0]) < 1e-6);                             /* ξ0 = μ γn */
  for (i = 0; i < K; ++i) CHECK(sd[i] > 0.0 || i == 2 || i == 3); /* interior point (η1, η2 free signs) */

  /* Statistics and histories. */
  stats.iterations = -7;
  EXPECT_HANDLE(h, cts_ipm_solver_get_stats(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_ipm_solver_get_stats(h, &stats));
  CHECK(stats.status == CTS_STATUS_OK && stats.iterations > 0 && stats.iterations <= 15);
  CHECK(stats.rvio < 1e-8 && stats.bvio < 1e-8 * (1 + 1e-6) && stats.boundary_hits == 0);
  EXPECT_HANDLE(h, cts_ipm_solver_get_rvio_history(h, out, 16, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_ipm_solver_get_rvio_history(h, NULL, 3, &count), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_ipm_solver_get_kappa_history(h, NULL, 1, &count), CTS_STATUS_NULL_POINTER);
  CHECK(count == 99);
  OK(cts_ipm_solver_get_rvio_history(h, NULL, 0, &count));
  CHECK(count == (size_t)stats.iterations + 1);
  OK(cts_ipm_solver_get_bvio_history(h, NULL, 0, &count2));
  CHECK(count2 == count);
  OK(cts_ipm_solver_get_kappa_history(h, NULL, 0, &count));
  CHECK(count == (size_t)stats.iterations);
  OK(cts_ipm_solver_get_alpha_history(h, NULL, 0, &count2));
  CHECK(count2 == count);
  fill(out, 16, SENTINEL);
  OK(cts_ipm_solver_get_rvio_history(h, out, 2, &count)); /* min(len, count) entries */
  CHECK(count == (size_t)stats.iterations + 1 && out[0] > out[1] && out[1] > 0.0 && untouched(out + 2, 14));
  fill(out, 16, SENTINEL);
  OK(cts_ipm_solver_get_bvio_history(h, out, 16, &count));
  CHECK(out[count - 1] == stats.bvio && untouched(out + count, 16 - count));
  OK(cts_ipm_solver_get_alpha_history(h, out, 16, &count));
  CHECK(out[0] > 0.0 && out[0] <= 1.0);
  OK(cts_ipm_solver_get_kappa_history(h, out, 16, &count));
  CHECK(out[count - 1] == stats.kappa);

  /* Failed calls keep the results. */
  EXPECT_HANDLE(h, cts_ipm_solver_solve_with_guess(h, NULL, N), CTS_STATUS_NULL_POINTER);
  OK(cts_ipm_solver_get_stats(h, &stats2));
  CHECK(stats2.iterations == stats.iterations && stats2.rvio == stats.rvio);
  OK(cts_ipm_solver_get_generalized_velocities(h, out, N));
  CHECK(out[0] == v[0] && out[1] == v[1] && out[2] == v[2]);

  /* New data drops the results. */
  OK(set_data(h, &s));
  fill(out, 16, SENTINEL);
  stats.iterations = -7;
  count = 99;
  EXPECT_HANDLE(h, cts_ipm_solver_get_generalized_velocities(h, out, N), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_ipm_solver_get_impulses(h, out, 3 * NC), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_ipm_solver_get_primal(h, out, K), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_ipm_solver_get_stats(h, &stats), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_ipm_solver_get_alpha_history(h, out, 16, &count), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, 16) && stats.iterations == -7 && count == 99);
  cts_ipm_solver_free(h);
}

static void test_sensitivities(void) {
  cts_ipm_solver *h = NULL;
  scene s;
  enum { LD = 3 * NC + 2 };
  double out[LD * N], dv[N * N];
  size_t j;
  make_scene(&s, 0.0);
  OK(cts_ipm_solver_new(&h));
  tight(h);
  OK(set_data(h, &s));
  EXPECT_HANDLE(h, cts_ipm_solver_compute_sensitivities(h), CTS_STATUS_NO_SOLUTION);
  OK(cts_ipm_solver_solve(h));
  fill(out, LD * N, SENTINEL);
  EXPECT_HANDLE(h, cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_TAU, out, N, N),
                CTS_STATUS_NO_SOLUTION); /* not computed yet */
  CHECK(strstr(cts_ipm_solver_last_error(h), "compute_sensitivities") != NULL);
  OK(cts_ipm_solver_compute_sensitivities(h));

  /* Bad parameter codes, wrong cols, ld below rows, NULL: nothing written. */
  EXPECT_HANDLE(h, cts_ipm_solver_get_velocity_sensitivity(h, 4, out, N, N), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_ipm_solver_get_impulse_sensitivity(h, -1, out, 3 * NC, NC), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_V0, out, N, NC + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_PHI, out, N, N + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_ipm_solver_get_impulse_sensitivity(h, CTS_IPM_SENSITIVITY_TAU, out, 3 * NC, NC + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_TAU, out, N - 1, N), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_ipm_solver_get_impulse_sensitivity(h, CTS_IPM_SENSITIVITY_MU, out, 3 * NC - 1, NC), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_TAU, NULL, N, N), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_ipm_solver_get_impulse_sensitivity(h, CTS_IPM_SENSITIVITY_PHI, NULL, LD, NC), CTS_STATUS_NULL_POINTER);
  CHECK(untouched(out, LD * N));

  /* With a leading dimension above the row count the padding rows stay untouched. */
  OK(cts_ipm_solver_get_impulse_sensitivity(h, CTS_IPM_SENSITIVITY_TAU, out, LD, N));
  for (j = 0; j < N; ++j) CHECK(out[3 * NC + j * LD] == SENTINEL && out[3 * NC + 1 + j * LD] == SENTINEL);
  CHECK(out[0] == out[0] && out[0] != SENTINEL);
  /* Sticking: the normal impulses balance the vertical force, Σ γn = −h τz, so Σ ∂γn/∂τz = −h. */
  CHECK(fabs(out[0 + 2 * LD] + out[3 + 2 * LD] + out[6 + 2 * LD] + 0.1) < 1e-6);
  OK(cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_V0, dv, N, N));
  /* Sticking on the ground: the contact absorbs any small change of v0 (∂v/∂v0 ≈ 0). */
  for (j = 0; j < N * N; ++j) CHECK(fabs(dv[j]) < 1e-3);
  OK(cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_MU, out, N, NC));
  OK(cts_ipm_solver_get_impulse_sensitivity(h, CTS_IPM_SENSITIVITY_PHI, out, 3 * NC, NC));

  /* A failed call does not drop them; a new solve or new data does. */
  EXPECT_HANDLE(h, cts_ipm_solver_solve_with_guess(h, s.v0, N + 1), CTS_STATUS_DIMENSION_MISMATCH);
  OK(cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_V0, dv, N, N));
  OK(cts_ipm_solver_solve(h));
  EXPECT_HANDLE(h, cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_V0, dv, N, N), CTS_STATUS_NO_SOLUTION);
  OK(cts_ipm_solver_compute_sensitivities(h));
  OK(set_data(h, &s));
  fill(out, LD * N, SENTINEL);
  EXPECT_HANDLE(h, cts_ipm_solver_get_impulse_sensitivity(h, CTS_IPM_SENSITIVITY_TAU, out, LD, N), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_ipm_solver_compute_sensitivities(h), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, LD * N));
  cts_ipm_solver_free(h);
}

/* The two non-converged outcomes: results and message are there. */
static void test_outcomes(void) {
  cts_ipm_solver *h = NULL;
  scene s;
  cts_ipm_parameters p;
  cts_ipm_stats stats;
  double v[N], x[1];
  size_t count = 0;
  const double M1[1] = {0.0}, v01[1] = {0.0}, tau1[1] = {1e300};
  make_scene(&s, 0.0);
  OK(cts_ipm_solver_new(&h));
  cts_ipm_parameters_default(&p);
  p.max_iter = 0;
  OK(cts_ipm_solver_set_parameters(h, &p));
  OK(set_data(h, &s));
  EXPECT_HANDLE(h, cts_ipm_solver_solve(h), CTS_STATUS_IPM_MAX_ITERATIONS_REACHED);
  OK(cts_ipm_solver_get_stats(h, &stats));
  CHECK(stats.status == CTS_STATUS_IPM_MAX_ITERATIONS_REACHED && stats.iterations == 0);
  OK(cts_ipm_solver_get_rvio_history(h, NULL, 0, &count));
  CHECK(count == 1);
  OK(cts_ipm_solver_get_generalized_velocities(h, v, N)); /* the start: v0 */
  CHECK(v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0);
  OK(cts_ipm_solver_compute_sensitivities(h)); /* allowed at the last iterate */

  p.max_iter = 2;
  OK(cts_ipm_solver_set_parameters(h, &p));
  EXPECT_HANDLE(h, cts_ipm_solver_solve(h), CTS_STATUS_IPM_MAX_ITERATIONS_REACHED);
  CHECK(strstr(cts_ipm_solver_last_error(h), "MaxIterationsReached") != NULL);
  OK(cts_ipm_solver_get_stats(h, &stats));
  CHECK(stats.status == CTS_STATUS_IPM_MAX_ITERATIONS_REACHED && stats.iterations == 2);

  /* A massless dof pushed by a huge force: the Newton step overflows. */
  cts_ipm_parameters_default(&p);
  OK(cts_ipm_solver_set_parameters(h, &p));
  OK(cts_ipm_solver_set_problem_data(h, 1, 0, M1, 1, NULL, 1, NULL, 1, v01, tau1, 1.0, NULL, NULL, NULL, NULL, 0));
  EXPECT_HANDLE(h, cts_ipm_solver_solve(h), CTS_STATUS_IPM_NON_FINITE_STEP);
  OK(cts_ipm_solver_get_stats(h, &stats));
  CHECK(stats.status == CTS_STATUS_IPM_NON_FINITE_STEP);
  OK(cts_ipm_solver_get_generalized_velocities(h, x, 1));
  CHECK(x[0] == 0.0); /* the last finite iterate: the start */
  cts_ipm_solver_free(h);
}

/* nc = 0 with NULL contact arrays; n = 0. */
static void test_no_contact(void) {
  cts_ipm_solver *h = NULL;
  scene s;
  double v[N], d[N * N];
  size_t count = 0;
  make_scene(&s, 0.0);
  OK(cts_ipm_solver_new(&h));
  OK(cts_ipm_solver_set_problem_data(h, N, 0, s.M, LDM, NULL, 1, NULL, 1, s.v0, s.tau, s.h, NULL, NULL, NULL, NULL, 0));
  CHECK(cts_ipm_solver_num_contacts(h) == 0 && cts_ipm_solver_num_velocities(h) == N);
  OK(cts_ipm_solver_solve(h));
  OK(cts_ipm_solver_get_generalized_velocities(h, v, N));
  /* Free flight: v = v0 + h τ / m. */
  CHECK(fabs(v[0] - 0.3) < 1e-9 && fabs(v[1]) < 1e-9 && fabs(v[2] + 0.981) < 1e-9);
  OK(cts_ipm_solver_get_impulses(h, NULL, 0));
  OK(cts_ipm_solver_get_primal(h, NULL, 0));
  OK(cts_ipm_solver_compute_sensitivities(h));
  OK(cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_PHI, NULL, N, 0));
  OK(cts_ipm_solver_get_impulse_sensitivity(h, CTS_IPM_SENSITIVITY_TAU, NULL, 1, N));
  OK(cts_ipm_solver_get_velocity_sensitivity(h, CTS_IPM_SENSITIVITY_TAU, d, N, N));
  CHECK(fabs(d[0] - 0.1) < 1e-9 && fabs(d[4] - 0.1) < 1e-9 && d[1] == 0.0); /* free flight: ∂v/∂τ = h/m I */
  OK(cts_ipm_solver_get_kappa_history(h, NULL, 0, &count));

  OK(cts_ipm_solver_set_problem_data(h, 0, 0, NULL, 1, NULL, 1, NULL, 1, NULL, NULL, 0.01, NULL, NULL, NULL, NULL, 0));
  OK(cts_ipm_solver_solve(h));
  OK(cts_ipm_solver_get_generalized_velocities(h, NULL, 0));
  cts_ipm_solver_free(h);
}

/* NaN in the padding rows between rows and ld changes nothing. */
static void test_padding_is_never_read(void) {
  cts_ipm_solver *a = NULL, *b = NULL;
  scene clean, dirty;
  double va[N], vb[N], ga[K], gb[K], sa[3 * NC * NC], sb[3 * NC * NC];
  size_t i;
  int q;
  make_scene(&clean, 0.0);
  make_scene(&dirty, NAN);
  OK(cts_ipm_solver_new(&a));
  OK(cts_ipm_solver_new(&b));
  OK(set_data(a, &clean));
  OK(set_data(b, &dirty));
  OK(cts_ipm_solver_solve(a));
  OK(cts_ipm_solver_solve(b));
  OK(cts_ipm_solver_get_generalized_velocities(a, va, N));
  OK(cts_ipm_solver_get_generalized_velocities(b, vb, N));
  OK(cts_ipm_solver_get_primal(a, ga, K));
  OK(cts_ipm_solver_get_primal(b, gb, K));
  for (i = 0; i < N; ++i) CHECK(va[i] == vb[i]);
  for (i = 0; i < K; ++i) CHECK(ga[i] == gb[i]);
  OK(cts_ipm_solver_compute_sensitivities(a));
  OK(cts_ipm_solver_compute_sensitivities(b));
  for (q = CTS_IPM_SENSITIVITY_V0; q <= CTS_IPM_SENSITIVITY_MU; ++q) {
    const size_t cols = q <= CTS_IPM_SENSITIVITY_TAU ? N : NC;
    OK(cts_ipm_solver_get_impulse_sensitivity(a, q, sa, 3 * NC, cols));
    OK(cts_ipm_solver_get_impulse_sensitivity(b, q, sb, 3 * NC, cols));
    for (i = 0; i < 3 * NC * cols; ++i) CHECK(sa[i] == sb[i]);
  }
  cts_ipm_solver_free(a);
  cts_ipm_solver_free(b);
}

/* Clone carries parameters but no data; warm start and the tangential offset work. */
static void test_clone_warm_start_offset(void) {
  cts_ipm_solver *h = NULL, *copy = NULL;
  scene s;
  cts_ipm_parameters p, got;
  cts_ipm_stats stats;
  double v[N], w[N], imp[3 * NC];
  make_scene(&s, 0.0);
  OK(cts_ipm_solver_new(&h));
  cts_ipm_parameters_default(&p);
  p.dojo_compatible = 1;
  p.btol = 1e-8;
  p.rtol = 1e-8;
  p.warm_start = 1;
  OK(cts_ipm_solver_set_parameters(h, &p));
  OK(set_data(h, &s));
  OK(cts_ipm_solver_solve(h));
  OK(cts_ipm_solver_get_generalized_velocities(h, v, N));
  OK(cts_ipm_solver_clone(h, &copy));
  OK(cts_ipm_solver_get_parameters(copy, &got));
  CHECK(got.btol == 1e-8 && got.warm_start == 1);
  CHECK(cts_ipm_solver_num_contacts(copy) == 0);
  EXPECT_HANDLE(copy, cts_ipm_solver_solve(copy), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_HANDLE(copy, cts_ipm_solver_get_generalized_velocities(copy, w, N), CTS_STATUS_NO_SOLUTION);
  OK(set_data(copy, &s));
  OK(cts_ipm_solver_solve_with_guess(copy, v, N));
  OK(cts_ipm_solver_get_generalized_velocities(copy, w, N));
  CHECK(fabs(w[0] - v[0]) < 1e-7 && fabs(w[2] - v[2]) < 1e-7);

  /* A second solve of the same data from the previous solution. */
  OK(cts_ipm_solver_set_problem_data(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu,
                                     s.models, s.vt_offset, 2 * NC)); /* a zero offset changes nothing */
  OK(cts_ipm_solver_solve(h));
  OK(cts_ipm_solver_get_stats(h, &stats));
  OK(cts_ipm_solver_get_generalized_velocities(h, w, N));
  CHECK(stats.status == CTS_STATUS_OK && fabs(w[0] - v[0]) < 1e-7);

  /* A belt moving at +1 m/s along t1 under every contact drags the particle along. */
  s.vt_offset[0] = s.vt_offset[2] = s.vt_offset[4] = -1.0; /* vt = Jt v − 1: relative to the belt */
  s.tau[0] = 0.0;
  OK(cts_ipm_solver_set_problem_data(h, N, NC, s.M, LDM, s.Jn, LDJN, s.Jt, LDJT, s.v0, s.tau, s.h, s.phi, s.mu,
                                     s.models, s.vt_offset, 2 * NC));
  OK(cts_ipm_solver_solve(h));
  OK(cts_ipm_solver_get_impulses(h, imp, 3 * NC));
  OK(cts_ipm_solver_get_generalized_velocities(h, w, N));
  /* Friction pushes along +x, and the particle slips on the belt: vx = Σ b1 / m < 1 m/s. */
  CHECK(imp[1] > 0.0 && imp[4] > 0.0 && w[0] > 0.1 && w[0] < 1.0);
  CHECK(fabs(w[0] - (imp[1] + imp[4])) < 1e-7);
  cts_ipm_solver_free(copy);
  cts_ipm_solver_free(h);
}

int main(void) {
  test_common();
  test_constructors();
  test_null_handles();
  test_parameters();
  test_problem_data();
  test_getters();
  test_sensitivities();
  test_outcomes();
  test_no_contact();
  test_padding_is_never_read();
  test_clone_warm_start_offset();
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
