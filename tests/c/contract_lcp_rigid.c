/* The C ABI contract of the LCP solvers (cts_lcp_*) and of the rigid constraint solver
 * (cts_rigid_*), checked from C (docs/c_api.md, docs/rigid.md §11): every function with NULLs,
 * wrong lengths, ld below the row count, bad algorithm and operator codes, bad parameters, calls
 * out of order, a failing callback, empty problems with NULL arrays, and NaN padding rows between
 * rows and ld. Each misuse must return its documented status with a non-empty message, write
 * nothing to the outputs, and never crash. Prints one line per failed check; exits 1 if any
 * failed. */

#include "contract_support.h"

#define EXPECT_LCP(h, call, want) EXPECT_ON(cts_lcp_solver_last_error, h, call, want)
#define EXPECT_RIGID(h, call, want) EXPECT_ON(cts_rigid_solver_last_error, h, call, want)

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* ------------------------------------------------------------------------------------------ */
/* LCP                                                                                         */

static void test_lcp_common(void) {
  cts_lcp_parameters p;
  cts_lcp_parameters_default(NULL); /* NULL-safe */
  cts_lcp_parameters_default(&p);
  CHECK(p.pivot_tolerance == -1.0 && p.zero_tolerance == -1.0);
  CHECK(p.lemke_variant == CTS_LCP_LEMKE_VARIANT_DRAKE && p.max_pivots == 0 && p.refactor_interval == 0);
  CHECK(p.lemke_min_exp == -20 && p.lemke_step_exp == 1 && p.lemke_max_exp == 1);
  CHECK(p.fast_min_exp == -20 && p.fast_step_exp == 4 && p.fast_max_exp == 20);
  {
    int code;
    for (code = 10; code <= 19; ++code) {
      CHECK(strlen(cts_status_string(code)) > 0);
      CHECK(strcmp(cts_status_string(code), "unknown status") != 0);
    }
  }
  CHECK(CTS_STATUS_LCP_RAY_TERMINATION == 10 && CTS_STATUS_LCP_REGULARIZATION_FAILED == 16);
  CHECK(CTS_STATUS_RIGID_LCP_UNSOLVABLE == 17 && CTS_STATUS_RIGID_REGULARIZED_LCP_FAILED == 18);
  CHECK(CTS_STATUS_CALLBACK_FAILED == 19);
}

static void test_lcp_constructors_and_null_handles(void) {
  cts_lcp_solver *h = (cts_lcp_solver *)&failures; /* sentinel: must stay unchanged */
  cts_lcp_solver *copy = NULL;
  cts_lcp_parameters p;
  const double m[1] = {1.0}, q[1] = {-1.0};
  double x[1] = {SENTINEL};
  EXPECT_GLOBAL(cts_lcp_solver_new(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_solver_clone(NULL, &copy), CTS_STATUS_NULL_POINTER);
  CHECK(copy == NULL);
  CHECK(h == (cts_lcp_solver *)&failures);
  OK(cts_lcp_solver_new(&h));
  EXPECT_GLOBAL(cts_lcp_solver_clone(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_lcp_solver_clone(h, &copy));
  CHECK(copy != NULL && copy != h);
  cts_lcp_solver_free(copy);
  cts_lcp_solver_free(h);
  cts_lcp_solver_free(NULL); /* no-op */

  cts_lcp_parameters_default(&p);
  EXPECT_GLOBAL(cts_lcp_solver_set_parameters(NULL, &p), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_solver_get_parameters(NULL, &p), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_solver_solve(NULL, CTS_LCP_ALGORITHM_LEMKE, 1, m, 1, q, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_solver_get_z(NULL, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_solver_get_w(NULL, x, 1), CTS_STATUS_NULL_POINTER);
  CHECK(untouched(x, 1));
  CHECK(cts_lcp_solver_num_pivots(NULL) == 0);
  CHECK(cts_lcp_solver_size(NULL) == 0);
  CHECK(strcmp(cts_lcp_solver_last_error(NULL), "") == 0);
}

static void test_lcp_parameters(void) {
  cts_lcp_solver *h = NULL;
  cts_lcp_parameters p, bad, got;
  OK(cts_lcp_solver_new(&h));
  cts_lcp_parameters_default(&p);
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, NULL), CTS_STATUS_NULL_POINTER);
  bad = p; bad.lemke_variant = 2;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "lemke_variant") != NULL);
  bad = p; bad.lemke_variant = -1;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.max_pivots = -1;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.refactor_interval = -3;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.lemke_step_exp = 0;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.fast_step_exp = -4;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.zero_tolerance = NAN;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.pivot_tolerance = INFINITY;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_LCP(h, cts_lcp_solver_get_parameters(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_lcp_solver_get_parameters(h, &got));
  /* Failed sets changed nothing (fields compared one by one: struct padding is undefined). */
  CHECK(got.lemke_variant == p.lemke_variant && got.max_pivots == p.max_pivots &&
        got.lemke_step_exp == p.lemke_step_exp && got.fast_step_exp == p.fast_step_exp &&
        got.zero_tolerance == p.zero_tolerance && got.pivot_tolerance == p.pivot_tolerance);
  p.lemke_variant = CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC;
  p.zero_tolerance = 1e-12;
  OK(cts_lcp_solver_set_parameters(h, &p));
  /* errno-style: a successful call keeps the detail of the last failure */
  CHECK(strstr(cts_lcp_solver_last_error(h), "cts_lcp_solver_get_parameters: out is NULL") != NULL);
  OK(cts_lcp_solver_get_parameters(h, &got));
  CHECK(got.lemke_variant == CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC && got.zero_tolerance == 1e-12);
  cts_lcp_solver_free(h);
}

/* Drake's testProblem3 (z = (0, 1, 3)) stored with ld = 5 and the padding rows set to `pad`. */
enum { LN = 3, LLD = 5 };
static void problem3(double *m, double pad) {
  const double rows[LN][LN] = {{0, -1, 2}, {2, 0, -2}, {-1, 1, 0}};
  size_t i, j;
  fill(m, LLD * LN, pad);
  for (j = 0; j < LN; ++j)
    for (i = 0; i < LN; ++i) m[i + j * LLD] = rows[i][j];
}

static void test_lcp_solve(void) {
  cts_lcp_solver *h = NULL;
  double m[LLD * LN], dirty[LLD * LN], z[LN + 1], w[LN];
  const double q[LN] = {-3, 6, -1};
  const double z0[LN] = {0, 1, 3};
  const double fail_m[1] = {-1.0}, fail_q[1] = {-1.0};
  problem3(m, 0.0);
  problem3(dirty, NAN);
  OK(cts_lcp_solver_new(&h));

  /* Getters before any solve. */
  fill(z, LN + 1, SENTINEL);
  EXPECT_LCP(h, cts_lcp_solver_get_z(h, z, LN), CTS_STATUS_NO_SOLUTION);
  EXPECT_LCP(h, cts_lcp_solver_get_w(h, z, LN), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(z, LN + 1));
  CHECK(cts_lcp_solver_size(h) == 0 && cts_lcp_solver_num_pivots(h) == 0);

  /* Bad arguments: nothing solved. */
  EXPECT_LCP(h, cts_lcp_solver_solve(h, -1, LN, m, LLD, q, NULL), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, 5, LN, m, LLD, q, NULL), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "algorithm") != NULL);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, LN, NULL, LLD, q, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, LN, m, LLD, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, LN, m, LN - 1, q, NULL), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "ld") != NULL);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, LN, m, 0, q, NULL), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, LN, m, LLD, q, z0), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_UNREVISED_LEMKE, LN, m, LLD, q, z0), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, (size_t)-1 / 2, m, (size_t)-1 / 2, q, NULL), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_LCP(h, cts_lcp_solver_get_z(h, z, LN), CTS_STATUS_NO_SOLUTION);

  /* Every algorithm solves problem 3; the NaN padding is never read. */
  {
    const int32_t algs[5] = {CTS_LCP_ALGORITHM_LEMKE, CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, CTS_LCP_ALGORITHM_FAST,
                             CTS_LCP_ALGORITHM_FAST_REGULARIZED, CTS_LCP_ALGORITHM_UNREVISED_LEMKE};
    size_t a, i;
    for (a = 0; a < 5; ++a) {
      double zc[LN];
      OK(cts_lcp_solver_solve(h, algs[a], LN, m, LLD, q, NULL));
      CHECK(strcmp(cts_lcp_solver_last_error(h), "") == 0);
      OK(cts_lcp_solver_get_z(h, zc, LN));
      OK(cts_lcp_solver_solve(h, algs[a], LN, dirty, LLD, q, NULL));
      OK(cts_lcp_solver_get_z(h, z, LN));
      for (i = 0; i < LN; ++i) CHECK(z[i] == zc[i]);
      CHECK(near(z[0], 0.0, 1e-6) && near(z[1], 1.0, 1e-6) && near(z[2], 3.0, 1e-6));
      CHECK(cts_lcp_solver_size(h) == LN && cts_lcp_solver_num_pivots(h) > 0);
    }
  }
  /* The fast algorithm takes a warm start. */
  OK(cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_FAST, LN, m, LLD, q, z0));

  /* Getters: wrong lengths and NULL write nothing. */
  fill(z, LN + 1, SENTINEL);
  EXPECT_LCP(h, cts_lcp_solver_get_z(h, z, LN + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_LCP(h, cts_lcp_solver_get_z(h, z, LN - 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_LCP(h, cts_lcp_solver_get_w(h, z, 0), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_LCP(h, cts_lcp_solver_get_z(h, NULL, LN), CTS_STATUS_NULL_POINTER);
  EXPECT_LCP(h, cts_lcp_solver_get_w(h, NULL, LN), CTS_STATUS_NULL_POINTER);
  CHECK(untouched(z, LN + 1));
  OK(cts_lcp_solver_get_w(h, w, LN));
  /* w = M z + q at z = (0, 1, 3): (2, 0, 0). */
  CHECK(near(w[0], 2.0, 1e-9) && near(w[1], 0.0, 1e-9) && near(w[2], 0.0, 1e-9));

  /* A usage error keeps the previous results. */
  EXPECT_LCP(h, cts_lcp_solver_solve(h, 9, LN, m, LLD, q, NULL), CTS_STATUS_INVALID_ARGUMENT);
  OK(cts_lcp_solver_get_z(h, z, LN));
  CHECK(near(z[2], 3.0, 1e-6));

  /* An outcome: Drake's testFailure, M = [-1], q = [-1]: Lemke terminates on a ray, z = 0. */
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, 1, fail_m, 1, fail_q, NULL), CTS_STATUS_LCP_RAY_TERMINATION);
  CHECK(strstr(cts_lcp_solver_last_error(h), "ray") != NULL);
  OK(cts_lcp_solver_get_z(h, z, 1));
  CHECK(z[0] == 0.0 && cts_lcp_solver_size(h) == 1);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_FAST, 1, fail_m, 1, fail_q, NULL), CTS_STATUS_LCP_PIVOT_LIMIT);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, 1, fail_m, 1, fail_q, NULL), CTS_STATUS_LCP_REGULARIZATION_FAILED);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_UNREVISED_LEMKE, 1, fail_m, 1, fail_q, NULL), CTS_STATUS_LCP_RAY_TERMINATION);

  /* n = 0 with NULL arrays. */
  OK(cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, 0, NULL, 1, NULL, NULL));
  OK(cts_lcp_solver_get_z(h, NULL, 0));
  CHECK(cts_lcp_solver_size(h) == 0);
  cts_lcp_solver_free(h);
}

/* Issue 13: OK means z passed the residual test; non-finite data and answers; bounded
 * schedules; the solve info getter. */
static void test_lcp_truth(void) {
  cts_lcp_solver *h = NULL;
  cts_lcp_parameters p, bad;
  cts_lcp_solve_info info;
  const double zero_m[1] = {0.0}, minus_one[1] = {-1.0};
  double m[LLD * LN], z[LN], inf_z[1] = {SENTINEL};
  const double q[LN] = {-3, 6, -1};
  const double q_inf[LN] = {-3, INFINITY, -1};
  problem3(m, NAN);
  OK(cts_lcp_solver_new(&h));
  cts_lcp_parameters_default(&p);
  CHECK(p.drake_compatible_verdict == 0 && p.residual_tolerance == -1.0);
  CHECK(CTS_STATUS_LCP_RESIDUAL_TEST_FAILED == 27 && CTS_STATUS_LCP_NON_FINITE_SOLUTION == 28);
  CHECK(strcmp(cts_status_string(27), "LCP: the solution failed the residual test") == 0);
  CHECK(strcmp(cts_status_string(28), "LCP: the solution is not finite") == 0);

  /* The info getter: NULLs and before any solve. */
  memset(&info, 0x5a, sizeof info);
  EXPECT_GLOBAL(cts_lcp_solver_get_solve_info(NULL, &info), CTS_STATUS_NULL_POINTER);
  EXPECT_LCP(h, cts_lcp_solver_get_solve_info(h, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_LCP(h, cts_lcp_solver_get_solve_info(h, &info), CTS_STATUS_NO_SOLUTION);
  CHECK(info.algorithm == 0x5a5a5a5a);

  /* Parameters: the verdict flag, the residual tolerance, the schedules' bounds. */
  bad = p; bad.drake_compatible_verdict = 2;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "drake_compatible_verdict = 2") != NULL);
  bad = p; bad.residual_tolerance = NAN;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "residual_tolerance") != NULL);
  bad = p; bad.lemke_min_exp = INT32_MIN; bad.lemke_max_exp = INT32_MAX;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "lemke_min_exp = -2147483648") != NULL);
  bad = p; bad.fast_max_exp = 301;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "fast_max_exp = 301") != NULL);
  bad = p; bad.lemke_min_exp = -300; bad.lemke_max_exp = 300;
  EXPECT_LCP(h, cts_lcp_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "600 shifts") != NULL);

  /* Non-finite data: nothing solved, the message names the argument and the index. */
  m[1 + 2 * LLD] = NAN;
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, LN, m, LLD, q, NULL), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "M[1, 2] = NaN") != NULL);
  problem3(m, NAN);
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_FAST, LN, m, LLD, q_inf, NULL), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "q[1] = inf") != NULL);
  EXPECT_LCP(h, cts_lcp_solver_get_z(h, z, LN), CTS_STATUS_NO_SOLUTION);

  /* "fast" on M = {0}, q = {-1}: Drake says true with z = inf; here status 28, z readable, also
   * with Drake's verdict. */
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_FAST, 1, zero_m, 1, minus_one, NULL), CTS_STATUS_LCP_NON_FINITE_SOLUTION);
  CHECK(strstr(cts_lcp_solver_last_error(h), "z[0] = inf is not finite") != NULL);
  /* The getter copies z all the same but never says OK to inf. */
  EXPECT_LCP(h, cts_lcp_solver_get_z(h, inf_z, 1), CTS_STATUS_NON_FINITE_RESULT);
  CHECK(strstr(cts_lcp_solver_last_error(h), "z[0] = inf") != NULL);
  CHECK(isinf(inf_z[0]) && inf_z[0] > 0);
  OK(cts_lcp_solver_get_solve_info(h, &info));
  CHECK(info.algorithm == CTS_LCP_ALGORITHM_FAST && info.drake_verdict == 1 && info.residual_test_passed == 0);
  CHECK(isnan(info.pivot_tolerance) && info.zero_tolerance == 0.0);
  p.drake_compatible_verdict = 1;
  OK(cts_lcp_solver_set_parameters(h, &p));
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_FAST, 1, zero_m, 1, minus_one, NULL), CTS_STATUS_LCP_NON_FINITE_SOLUTION);

  /* Drake's verdict on a shifted problem: M = -1, q = -1 has no solution; Drake's regularized
   * wrapper accepts z of M + 10^e I; not OK (27) with the default, OK with Drake's verdict. */
  OK(cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_FAST_REGULARIZED, 1, minus_one, 1, minus_one, NULL));
  OK(cts_lcp_solver_get_solve_info(h, &info));
  CHECK(info.drake_verdict == 1 && info.residual_test_passed == 0 && info.regularized == 1);
  CHECK(info.regularization == pow(10.0, info.regularization_exponent));
  p.drake_compatible_verdict = 0;
  OK(cts_lcp_solver_set_parameters(h, &p));
  EXPECT_LCP(h, cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_FAST_REGULARIZED, 1, minus_one, 1, minus_one, NULL), CTS_STATUS_LCP_RESIDUAL_TEST_FAILED);
  CHECK(strstr(cts_lcp_solver_last_error(h), "accepted for M + 1e") != NULL);
  CHECK(strstr(cts_lcp_solver_last_error(h), "w[0] = ") != NULL);

  /* Problem 3 solved: the figures of the residual test. */
  OK(cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, LN, m, LLD, q, NULL));
  OK(cts_lcp_solver_get_solve_info(h, &info));
  CHECK(info.algorithm == CTS_LCP_ALGORITHM_LEMKE && info.drake_verdict == 1 && info.residual_test_passed == 1);
  CHECK(info.regularized == 0 && info.regularization == 0.0);
  CHECK(info.pivot_tolerance == 3.0 * 2.0 * 2.220446049250313e-16);
  CHECK(info.zero_tolerance == 3.0 * 2.0 * 10.0 * 2.220446049250313e-16);
  CHECK(near(info.residual_tolerance, 1e-11 * 3.0 * 6.0, 1e-24));
  CHECK(info.min_w >= -info.residual_tolerance && info.max_complementarity <= info.complementarity_bound);
  cts_lcp_solver_free(h);
}

static void test_lcp_static_functions(void) {
  double m[LLD * LN], tol = SENTINEL;
  const double q[LN] = {-3, 6, -1}, z[LN] = {0, 1, 3}, zbad[LN] = {1, 1, 1};
  int32_t is = 7;
  problem3(m, NAN);
  EXPECT_GLOBAL(cts_lcp_compute_zero_tolerance(CTS_LCP_ALGORITHM_LEMKE, LN, m, LLD, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_compute_zero_tolerance(CTS_LCP_ALGORITHM_LEMKE, LN, NULL, LLD, &tol), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_compute_zero_tolerance(CTS_LCP_ALGORITHM_LEMKE, LN, m, 2, &tol), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_GLOBAL(cts_lcp_compute_zero_tolerance(42, LN, m, LLD, &tol), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(tol == SENTINEL);
  OK(cts_lcp_compute_zero_tolerance(CTS_LCP_ALGORITHM_LEMKE, LN, m, LLD, &tol));
  CHECK(tol == 3.0 * 2.0 * 10.0 * 2.220446049250313e-16); /* n max|M| 10 eps, padding ignored */
  OK(cts_lcp_compute_zero_tolerance(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, LN, m, LLD, &tol));
  CHECK(tol == 3.0 * 2.0 * 2.2 * 2.220446049250313e-16);
  EXPECT_GLOBAL(cts_lcp_is_solution(LN, m, LLD, q, NULL, -1.0, &is), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_is_solution(LN, m, LLD, q, z, -1.0, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_is_solution(LN, m, LLD, NULL, z, -1.0, &is), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_lcp_is_solution(LN, m, 1, q, z, -1.0, &is), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_GLOBAL(cts_lcp_is_solution(LN, m, LLD, q, z, NAN, &is), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(is == 7);
  OK(cts_lcp_is_solution(LN, m, LLD, q, z, -1.0, &is));
  CHECK(is == 1);
  OK(cts_lcp_is_solution(LN, m, LLD, q, zbad, -1.0, &is));
  CHECK(is == 0);
  OK(cts_lcp_is_solution(0, NULL, 1, NULL, NULL, -1.0, &is));
  CHECK(is == 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Rigid constraint solver                                                                     */

/* Drake's Rod2D resting horizontally (m = 2, J = 1, l = 1) with two contacts, pushed by 100 N
 * along +x (docs/rigid_cases.md §2.2): N = [[0, 1, -1], [0, 1, 1]], F = [[1, 0, 0], [1, 0, 0]],
 * mu_static = 15. Matrices stored with ld = rows + 2, padding set to `pad`. */
enum { NV = 3, NC = 2, PAD = 2 };
typedef struct {
  double N[(NC + PAD) * NV], F[(NC + PAD) * NV], Minv[(NV + PAD) * NV], M[(NV + PAD) * NV];
  size_t non_sliding[NC], r[NC];
  double mu[NC], kN[NC], kF[NC], tau[NV], Mv[NV];
} rod;

static void make_rod(rod *s, double pad) {
  const double n[NC][NV] = {{0, 1, -1}, {0, 1, 1}};
  size_t i, j;
  fill(s->N, sizeof s->N / sizeof s->N[0], pad);
  fill(s->F, sizeof s->F / sizeof s->F[0], pad);
  fill(s->Minv, sizeof s->Minv / sizeof s->Minv[0], pad);
  fill(s->M, sizeof s->M / sizeof s->M[0], pad);
  for (j = 0; j < NV; ++j) {
    for (i = 0; i < NC; ++i) {
      s->N[i + j * (NC + PAD)] = n[i][j];
      s->F[i + j * (NC + PAD)] = j == 0 ? 1.0 : 0.0;
    }
    for (i = 0; i < NV; ++i) {
      s->Minv[i + j * (NV + PAD)] = i != j ? 0.0 : (i < 2 ? 0.5 : 1.0);
      s->M[i + j * (NV + PAD)] = i != j ? 0.0 : (i < 2 ? 2.0 : 1.0);
    }
  }
  for (i = 0; i < NC; ++i) {
    s->non_sliding[i] = i;
    s->r[i] = 1;
    s->mu[i] = 15.0;
    s->kN[i] = 0.0;
    s->kF[i] = 0.0;
  }
  s->tau[0] = 100.0;
  s->tau[1] = 2.0 * -9.81;
  s->tau[2] = 0.0;
  /* Impact: the rod moving at (1, -1, 0). */
  s->Mv[0] = 2.0;
  s->Mv[1] = -2.0;
  s->Mv[2] = 0.0;
}

static cts_status set_accel(cts_rigid_solver *h, rod *s) {
  return cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, s->non_sliding, s->mu, s->r, s->kN, s->kF,
                                                 0, NULL, 0, NULL, s->tau, 1);
}

static void set_accel_operators(cts_rigid_solver *h, rod *s) {
  OK(cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_N_MULT, s->N, NC + PAD));
  OK(cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT, s->N, NC + PAD));
  OK(cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_F_MULT, s->F, NC + PAD));
  OK(cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, s->F, NC + PAD));
  OK(cts_rigid_solver_set_accel_inertia_matrix(h, CTS_RIGID_INERTIA_INVERSE, s->Minv, NV + PAD));
}

static cts_status set_vel(cts_rigid_solver *h, rod *s) {
  return cts_rigid_solver_set_vel_problem_data(h, NV, NC, s->r, s->mu, s->kN, NULL, s->kF, NULL, NULL, 0, NULL, NULL,
                                               0, NULL, s->Mv);
}

static void set_vel_operators(cts_rigid_solver *h, rod *s) {
  OK(cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_N_MULT, s->N, NC + PAD));
  OK(cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, s->N, NC + PAD));
  OK(cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_F_MULT, s->F, NC + PAD));
  OK(cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, s->F, NC + PAD));
  OK(cts_rigid_solver_set_vel_inertia_matrix(h, CTS_RIGID_INERTIA_MATRIX, s->M, NV + PAD));
}

/* Callbacks. `calls` counts invocations; `diag_inverse` applies diag(0.5, 0.5, 1). */
static int calls = 0, calls_at_failure = -1;
static int32_t fail_cb(void *user_data, const double *in, size_t n_in, double *out, size_t n_out) {
  (void)in;
  (void)n_in;
  (void)out;
  (void)n_out;
  calls_at_failure = ++calls;
  return *(const int32_t *)user_data;
}
static int32_t diag_inverse(void *user_data, const double *in, size_t n_in, double *out, size_t n_out) {
  (void)user_data;
  ++calls;
  if (n_in != NV || n_out != NV || in == NULL || out == NULL) return 1;
  out[0] = 0.5 * in[0];
  out[1] = 0.5 * in[1];
  out[2] = in[2];
  return 0;
}

static void test_rigid_common(void) {
  cts_rigid_parameters p, got;
  cts_rigid_solver *h = (cts_rigid_solver *)&failures, *copy = NULL;
  cts_rigid_parameters_default(NULL); /* NULL-safe */
  cts_rigid_parameters_default(&p);
  CHECK(p.drake_inverse_inertia_blocks == 0 && p.drake_limit_row_transpose == 0 && p.drake_double_gamma == 0 &&
        p.drake_empty_fast_exit == 0);
  EXPECT_GLOBAL(cts_rigid_solver_new(NULL), CTS_STATUS_NULL_POINTER);
  CHECK(h == (cts_rigid_solver *)&failures);
  EXPECT_GLOBAL(cts_rigid_solver_clone(NULL, &copy), CTS_STATUS_NULL_POINTER);
  CHECK(copy == NULL);
  OK(cts_rigid_solver_new(&h));
  EXPECT_GLOBAL(cts_rigid_solver_clone(h, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_parameters(h, NULL), CTS_STATUS_NULL_POINTER);
  p.drake_double_gamma = 2;
  EXPECT_RIGID(h, cts_rigid_solver_set_parameters(h, &p), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_rigid_solver_last_error(h), "drake_double_gamma") != NULL);
  p.drake_double_gamma = -1;
  EXPECT_RIGID(h, cts_rigid_solver_set_parameters(h, &p), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_get_parameters(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_rigid_solver_get_parameters(h, &got));
  CHECK(got.drake_double_gamma == 0);
  p.drake_double_gamma = 1;
  p.drake_inverse_inertia_blocks = 1;
  OK(cts_rigid_solver_set_parameters(h, &p));
  /* errno-style: a successful call keeps the detail of the last failure */
  CHECK(strstr(cts_rigid_solver_last_error(h), "cts_rigid_solver_get_parameters: out is NULL") != NULL);
  OK(cts_rigid_solver_clone(h, &copy));
  OK(cts_rigid_solver_get_parameters(copy, &got));
  CHECK(got.drake_double_gamma == 1 && got.drake_inverse_inertia_blocks == 1 && got.drake_empty_fast_exit == 0);
  /* The clone has no problem data. */
  EXPECT_RIGID(copy, cts_rigid_solver_solve_constraint_problem(copy), CTS_STATUS_NO_PROBLEM_DATA);
  cts_rigid_solver_free(copy);
  cts_rigid_solver_free(h);
  cts_rigid_solver_free(NULL); /* no-op */
}

static void test_rigid_null_handles(void) {
  double x[NV] = {SENTINEL, SENTINEL, SENTINEL};
  const double cf[1] = {0.0};
  const size_t idx[1] = {0};
  cts_rigid_parameters p;
  int32_t code = 0;
  cts_rigid_parameters_default(&p);
  EXPECT_GLOBAL(cts_rigid_solver_set_parameters(NULL, &p), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_get_parameters(NULL, &p), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_set_accel_problem_data(NULL, 1, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_set_vel_problem_data(NULL, 1, 1, idx, x, x, NULL, x, NULL, NULL, 0, NULL, NULL, 0, NULL, x), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_set_accel_operator_matrix(NULL, CTS_RIGID_OPERATOR_N_MULT, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_set_vel_operator_matrix(NULL, CTS_RIGID_OPERATOR_N_MULT, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_set_accel_operator_callback(NULL, CTS_RIGID_OPERATOR_N_MULT, fail_cb, &code), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_set_vel_operator_callback(NULL, CTS_RIGID_OPERATOR_N_MULT, fail_cb, &code), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_set_accel_inertia_matrix(NULL, CTS_RIGID_INERTIA_MATRIX, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_set_vel_inertia_matrix(NULL, CTS_RIGID_INERTIA_MATRIX, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_solve_constraint_problem(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_solve_impact_problem(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_solve_discretized_problem(NULL, 1e-3), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_get_constraint_forces(NULL, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_get_lcp_matrix(NULL, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_get_lcp_vector(NULL, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_get_lcp_z(NULL, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_get_lcp_w(NULL, x, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_compute_generalized_force_from_constraint_forces(NULL, cf, 1, x, NV), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_compute_generalized_acceleration_from_constraint_forces(NULL, cf, 1, x, NV), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_compute_generalized_acceleration(NULL, cf, 1, x, NV), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses(NULL, cf, 1, x, NV), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_compute_generalized_velocity_change(NULL, cf, 1, x, NV), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_rigid_solver_compute_generalized_acceleration_discretized(NULL, x, cf, 1, 1e-3, x, NV), CTS_STATUS_NULL_POINTER);
  CHECK(untouched(x, NV));
  CHECK(cts_rigid_solver_num_constraint_forces(NULL) == 0);
  CHECK(cts_rigid_solver_lcp_size(NULL) == 0);
  CHECK(cts_rigid_solver_num_pivots(NULL) == 0);
  CHECK(cts_rigid_solver_regularization_used(NULL) == 0);
  CHECK(strcmp(cts_rigid_solver_last_error(NULL), "") == 0);
}

/* Calls out of order: operators, solves, getters and compute calls before their data. */
static void test_rigid_out_of_order(void) {
  cts_rigid_solver *h = NULL;
  rod s;
  double out[16];
  const double cf[4] = {0, 0, 0, 0};
  int32_t code = 0;
  make_rod(&s, 0.0);
  OK(cts_rigid_solver_new(&h));
  fill(out, 16, SENTINEL);
  EXPECT_RIGID(h, cts_rigid_solver_solve_constraint_problem(h), CTS_STATUS_NO_PROBLEM_DATA);
  CHECK(strstr(cts_rigid_solver_last_error(h), "cts_rigid_solver_set_accel_problem_data") != NULL);
  EXPECT_RIGID(h, cts_rigid_solver_solve_impact_problem(h), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_solve_discretized_problem(h, 1e-3), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_N_MULT, s.N, NC + PAD), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_N_MULT, s.N, NC + PAD), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_operator_callback(h, CTS_RIGID_OPERATOR_N_MULT, fail_cb, &code), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_operator_callback(h, CTS_RIGID_OPERATOR_SOLVE_INERTIA, diag_inverse, NULL), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_inertia_matrix(h, CTS_RIGID_INERTIA_INVERSE, s.Minv, NV + PAD), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_inertia_matrix(h, CTS_RIGID_INERTIA_MATRIX, s.M, NV + PAD), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration(h, cf, 4, out, NV), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_velocity_change(h, cf, 4, out, NV), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration_discretized(h, s.Mv, cf, 4, 1e-3, out, NV), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_RIGID(h, cts_rigid_solver_get_constraint_forces(h, out, 4), CTS_STATUS_NO_SOLUTION);
  EXPECT_RIGID(h, cts_rigid_solver_get_lcp_matrix(h, out, 1), CTS_STATUS_NO_SOLUTION);
  EXPECT_RIGID(h, cts_rigid_solver_get_lcp_vector(h, out, 0), CTS_STATUS_NO_SOLUTION);
  EXPECT_RIGID(h, cts_rigid_solver_get_lcp_z(h, out, 0), CTS_STATUS_NO_SOLUTION);
  EXPECT_RIGID(h, cts_rigid_solver_get_lcp_w(h, out, 0), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, 16));

  /* Data but no solve_inertia: the solve names it. */
  OK(set_accel(h, &s));
  EXPECT_RIGID(h, cts_rigid_solver_solve_constraint_problem(h), CTS_STATUS_NO_PROBLEM_DATA);
  CHECK(strstr(cts_rigid_solver_last_error(h), "solve_inertia") != NULL);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration(h, cf, 4, out, NV), CTS_STATUS_NO_PROBLEM_DATA);
  /* Accel data does not make vel data. */
  EXPECT_RIGID(h, cts_rigid_solver_solve_impact_problem(h), CTS_STATUS_NO_PROBLEM_DATA);
  CHECK(untouched(out, 16));
  cts_rigid_solver_free(h);
}

static void test_rigid_set_errors(void) {
  cts_rigid_solver *h = NULL;
  rod s;
  const size_t dup[2] = {0, 0}, high[2] = {0, 5}, unsorted[2] = {1, 0};
  double gbad[NC] = {-1.0, 0.0}, gnan[NC] = {NAN, 0.0};
  int32_t code = 0;
  make_rod(&s, 0.0);
  OK(cts_rigid_solver_new(&h));
  /* Acceleration level: NULLs where lengths are not zero. */
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, NULL, s.mu, s.r, s.kN, s.kF, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, s.non_sliding, NULL, s.r, s.kN, s.kF, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, s.non_sliding, s.mu, NULL, s.kN, s.kF, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, s.non_sliding, s.mu, s.r, NULL, s.kF, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, s.non_sliding, s.mu, s.r, s.kN, NULL, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, s.non_sliding, s.mu, s.r, s.kN, s.kF, 1, NULL, 0, NULL, s.tau, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, s.non_sliding, s.mu, s.r, s.kN, s.kF, 0, NULL, 1, NULL, s.tau, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, s.non_sliding, s.mu, s.r, s.kN, s.kF, 0, NULL, 0, NULL, NULL, 1), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 1, NULL, s.mu, NC, s.non_sliding, s.mu, s.r, s.kN, s.kF, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_NULL_POINTER);
  /* Invalid values: the flag, the contact index lists. */
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, s.non_sliding, s.mu, s.r, s.kN, s.kF, 0, NULL, 0, NULL, s.tau, 2), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, dup, s.mu, s.r, s.kN, s.kF, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, high, s.mu, s.r, s.kN, s.kF, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, NC, unsorted, s.mu, s.r, s.kN, s.kF, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_problem_data(h, (size_t)-1 / 2, 0, NULL, NULL, NC, s.non_sliding, s.mu, s.r, s.kN, s.kF, 0, NULL, 0, NULL, s.tau, 1), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_solve_constraint_problem(h), CTS_STATUS_NO_PROBLEM_DATA); /* nothing was set */

  /* Velocity level. */
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_problem_data(h, NV, NC, NULL, s.mu, s.kN, NULL, s.kF, NULL, NULL, 0, NULL, NULL, 0, NULL, s.Mv), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_problem_data(h, NV, NC, s.r, NULL, s.kN, NULL, s.kF, NULL, NULL, 0, NULL, NULL, 0, NULL, s.Mv), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_problem_data(h, NV, NC, s.r, s.mu, s.kN, NULL, s.kF, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_problem_data(h, NV, NC, s.r, s.mu, s.kN, gbad, s.kF, NULL, NULL, 0, NULL, NULL, 0, NULL, s.Mv), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_rigid_solver_last_error(h), "gamma") != NULL);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_problem_data(h, NV, NC, s.r, s.mu, s.kN, NULL, s.kF, gnan, NULL, 0, NULL, NULL, 0, NULL, s.Mv), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_problem_data(h, NV, NC, s.r, s.mu, s.kN, NULL, s.kF, NULL, gbad, 0, NULL, NULL, 0, NULL, s.Mv), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_solve_impact_problem(h), CTS_STATUS_NO_PROBLEM_DATA);

  /* Operators: codes, levels, ld, NULLs. */
  OK(set_accel(h, &s));
  OK(set_vel(h, &s));
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_operator_matrix(h, -1, s.N, NC + PAD), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_operator_matrix(h, 10, s.N, NC + PAD), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, s.N, NC + PAD), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT, s.N, NC + PAD), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_SOLVE_INERTIA, s.Minv, NV + PAD), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_N_MULT, s.N, NC - 1), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_rigid_solver_last_error(h), "N_mult") != NULL);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_operator_matrix(h, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, s.F, 0), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_F_MULT, NULL, NC + PAD), CTS_STATUS_NULL_POINTER);
  /* No limits (nu = 0): L may be NULL. */
  OK(cts_rigid_solver_set_accel_operator_matrix(h, CTS_RIGID_OPERATOR_L_MULT, NULL, 1));
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_operator_callback(h, CTS_RIGID_OPERATOR_N_MULT, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_operator_callback(h, 11, fail_cb, &code), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_operator_callback(h, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, fail_cb, &code), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_inertia_matrix(h, 2, s.Minv, NV + PAD), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_accel_inertia_matrix(h, CTS_RIGID_INERTIA_INVERSE, s.Minv, NV - 1), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_set_vel_inertia_matrix(h, CTS_RIGID_INERTIA_MATRIX, NULL, NV + PAD), CTS_STATUS_NULL_POINTER);

  /* An M that LDLT cannot factor (zero diagonal, nonzero off-diagonal; Eigen's NumericalIssue):
   * reported by the solve, no results. */
  {
    double zero[NV * NV] = {0, 1, 0, 1, 0, 0, 0, 0, 0};
    set_vel_operators(h, &s);
    OK(cts_rigid_solver_set_vel_inertia_matrix(h, CTS_RIGID_INERTIA_MATRIX, zero, NV));
    EXPECT_RIGID(h, cts_rigid_solver_solve_impact_problem(h), CTS_STATUS_INVALID_ARGUMENT);
    CHECK(cts_rigid_solver_num_constraint_forces(h) == 0);
  }
  /* Bad dt. */
  set_vel_operators(h, &s);
  EXPECT_RIGID(h, cts_rigid_solver_solve_discretized_problem(h, 0.0), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_solve_discretized_problem(h, -1e-3), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_solve_discretized_problem(h, NAN), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_solve_discretized_problem(h, INFINITY), CTS_STATUS_INVALID_ARGUMENT);
  cts_rigid_solver_free(h);
}

/* Solve the pushed rod (docs/rigid_cases.md §2.2: cf = (9.81, 9.81, -100, 0), 8x8 LCP), then misuse
 * every getter and compute call; NaN padding in every borrowed matrix changes nothing. */
static void test_rigid_solve_and_getters(void) {
  cts_rigid_solver *h = NULL, *g = NULL;
  rod s, dirty;
  double cf[4], cf_dirty[4], out[16], mm[9 * 8], ga[NV];
  size_t i;
  make_rod(&s, 0.0);
  make_rod(&dirty, NAN);
  OK(cts_rigid_solver_new(&h));
  OK(cts_rigid_solver_new(&g));
  OK(set_accel(h, &s));
  set_accel_operators(h, &s);
  OK(cts_rigid_solver_solve_constraint_problem(h));
  CHECK(strcmp(cts_rigid_solver_last_error(h), "") == 0);
  CHECK(cts_rigid_solver_num_constraint_forces(h) == 4);
  CHECK(cts_rigid_solver_lcp_size(h) == 8 && cts_rigid_solver_num_pivots(h) == 9);
  CHECK(cts_rigid_solver_regularization_used(h) == 0);
  OK(cts_rigid_solver_get_constraint_forces(h, cf, 4));
  CHECK(near(cf[0], 9.81, 1e-12) && near(cf[1], 9.81, 1e-12) && near(cf[2], -100.0, 1e-12) && near(cf[3], 0.0, 1e-12));
  OK(set_accel(g, &dirty));
  set_accel_operators(g, &dirty);
  OK(cts_rigid_solver_solve_constraint_problem(g));
  OK(cts_rigid_solver_get_constraint_forces(g, cf_dirty, 4));
  for (i = 0; i < 4; ++i) CHECK(cf[i] == cf_dirty[i]);

  fill(out, 16, SENTINEL);
  EXPECT_RIGID(h, cts_rigid_solver_get_constraint_forces(h, out, 3), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_RIGID(h, cts_rigid_solver_get_constraint_forces(h, out, 5), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_RIGID(h, cts_rigid_solver_get_constraint_forces(h, NULL, 4), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_get_lcp_vector(h, out, 7), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_RIGID(h, cts_rigid_solver_get_lcp_z(h, out, 9), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_RIGID(h, cts_rigid_solver_get_lcp_w(h, NULL, 8), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_get_lcp_matrix(h, out, 7), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_get_lcp_matrix(h, NULL, 8), CTS_STATUS_NULL_POINTER);
  CHECK(untouched(out, 16));
  fill(mm, 9 * 8, SENTINEL);
  OK(cts_rigid_solver_get_lcp_matrix(h, mm, 9));
  CHECK(mm[8] == SENTINEL && mm[8 + 9 * 7] == SENTINEL); /* padding rows untouched */
  CHECK(mm[0] == 1.5 && mm[1] == -0.5 && mm[6] == 15.0 && mm[2 + 9 * 6] == 1.0);
  OK(cts_rigid_solver_get_lcp_z(h, out, 8));
  CHECK(near(out[0], 9.81, 1e-12) && near(out[4], 100.0, 1e-12));

  /* Compute calls: wrong lengths, NULLs; nothing written. */
  fill(out, 16, SENTINEL);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration(h, cf, 3, out, NV), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration(h, cf, 4, out, NV + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration(h, NULL, 4, out, NV), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration(h, cf, 4, NULL, NV), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_force_from_constraint_forces(h, cf, 0, out, NV), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration_from_constraint_forces(h, cf, 5, out, NV), CTS_STATUS_DIMENSION_MISMATCH);
  CHECK(untouched(out, 16));
  OK(cts_rigid_solver_compute_generalized_acceleration(h, cf, 4, ga, NV));
  CHECK(fabs(ga[0]) <= 1e-13 && fabs(ga[1]) <= 1e-13 && fabs(ga[2]) <= 1e-13); /* the rod stays */
  OK(cts_rigid_solver_compute_generalized_force_from_constraint_forces(h, cf, 4, ga, NV));
  CHECK(near(ga[0], -100.0, 1e-12) && near(ga[1], 19.62, 1e-12)); /* = -tau */
  /* Compute calls do not change the solve's results. */
  OK(cts_rigid_solver_get_constraint_forces(h, out, 4));
  for (i = 0; i < 4; ++i) CHECK(out[i] == cf[i]);

  /* Impact of the rod moving at (1, -1, 0) with mu = 15: it stops (docs/rigid_cases.md §3.2). */
  OK(set_vel(h, &s));
  set_vel_operators(h, &s);
  OK(cts_rigid_solver_solve_impact_problem(h));
  CHECK(cts_rigid_solver_num_constraint_forces(h) == 4 && cts_rigid_solver_num_pivots(h) == 3);
  OK(cts_rigid_solver_get_constraint_forces(h, cf, 4));
  CHECK(near(cf[0], 1.0, 1e-12) && near(cf[1], 1.0, 1e-12) && near(cf[2], -2.0, 1e-12) && near(cf[3], 0.0, 1e-12));
  fill(out, 16, SENTINEL);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_velocity_change(h, cf, 2, out, NV), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses(h, cf, 4, out, 2), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration_discretized(h, NULL, cf, 4, 1e-3, out, NV), CTS_STATUS_NULL_POINTER);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration_discretized(h, s.Mv, cf, 4, 0.0, out, NV), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration_discretized(h, s.Mv, cf, 4, NAN, out, NV), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(untouched(out, 16));
  OK(cts_rigid_solver_compute_generalized_velocity_change(h, cf, 4, out, NV));
  CHECK(near(out[0], -1.0, 1e-12) && near(out[1], 1.0, 1e-12) && near(out[2], 0.0, 1e-12));
  OK(cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses(h, NULL, 0, out, NV)); /* empty cf */
  CHECK(out[0] == 0.0 && out[1] == 0.0 && out[2] == 0.0);

  /* Discretized: the resting rod over 1e-4 s holds its weight, (9.81, 9.81, -100, 0) N. */
  s.Mv[0] = 100.0 * 1e-4;
  s.Mv[1] = 2.0 * -9.81 * 1e-4;
  OK(cts_rigid_solver_solve_discretized_problem(h, 1e-4));
  OK(cts_rigid_solver_get_constraint_forces(h, cf, 4));
  CHECK(near(cf[0], 9.81, 1e-9) && near(cf[1], 9.81, 1e-9) && near(cf[2] + cf[3], -100.0, 1e-9));

  /* A usage error of a solve leaves no results. */
  EXPECT_RIGID(h, cts_rigid_solver_solve_discretized_problem(h, -1.0), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(cts_rigid_solver_num_constraint_forces(h) == 0 && cts_rigid_solver_lcp_size(h) == 0);
  EXPECT_RIGID(h, cts_rigid_solver_get_constraint_forces(h, out, 4), CTS_STATUS_NO_SOLUTION);
  cts_rigid_solver_free(h);
  cts_rigid_solver_free(g);
}

/* A failing callback: CTS_STATUS_CALLBACK_FAILED, a message naming it, no later callback,
 * no results; a passing inertia callback gives the dense answer. */
static void test_rigid_callbacks(void) {
  cts_rigid_solver *h = NULL;
  rod s;
  double cf[4], out[4];
  int32_t code = 42;
  make_rod(&s, 0.0);
  OK(cts_rigid_solver_new(&h));
  OK(set_accel(h, &s));
  set_accel_operators(h, &s);
  OK(cts_rigid_solver_set_accel_operator_callback(h, CTS_RIGID_OPERATOR_SOLVE_INERTIA, diag_inverse, NULL));
  calls = 0;
  OK(cts_rigid_solver_solve_constraint_problem(h));
  CHECK(calls > 0);
  OK(cts_rigid_solver_get_constraint_forces(h, cf, 4));
  CHECK(near(cf[0], 9.81, 1e-12) && near(cf[2], -100.0, 1e-12));

  OK(cts_rigid_solver_set_accel_operator_callback(h, CTS_RIGID_OPERATOR_N_MULT, fail_cb, &code));
  calls = 0;
  EXPECT_RIGID(h, cts_rigid_solver_solve_constraint_problem(h), CTS_STATUS_CALLBACK_FAILED);
  CHECK(calls_at_failure >= 1 && calls == calls_at_failure); /* no callback after the failure */
  CHECK(strstr(cts_rigid_solver_last_error(h), "N_mult") != NULL);
  CHECK(strstr(cts_rigid_solver_last_error(h), "42") != NULL);
  CHECK(cts_rigid_solver_num_constraint_forces(h) == 0);
  fill(out, 4, SENTINEL);
  EXPECT_RIGID(h, cts_rigid_solver_get_constraint_forces(h, out, 4), CTS_STATUS_NO_SOLUTION);
  /* The compute calls use (N - muQ)^T, F^T and solve_inertia: a failing inertia callback. */
  OK(cts_rigid_solver_set_accel_operator_callback(h, CTS_RIGID_OPERATOR_SOLVE_INERTIA, fail_cb, &code));
  EXPECT_RIGID(h, cts_rigid_solver_compute_generalized_acceleration(h, cf, 4, out, NV), CTS_STATUS_CALLBACK_FAILED);
  CHECK(strstr(cts_rigid_solver_last_error(h), "solve_inertia") != NULL);
  CHECK(untouched(out, 4));
  cts_rigid_solver_free(h);
}

/* Empty problems with NULL arrays: no contacts, limits or bilateral constraints. */
static void test_rigid_empty(void) {
  cts_rigid_solver *h = NULL;
  const double mv[NV] = {1, 2, 3}, minv[NV * NV] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double out[NV];
  OK(cts_rigid_solver_new(&h));
  OK(cts_rigid_solver_set_vel_problem_data(h, NV, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, mv));
  OK(cts_rigid_solver_set_vel_inertia_matrix(h, CTS_RIGID_INERTIA_INVERSE, minv, NV));
  OK(cts_rigid_solver_solve_impact_problem(h));
  CHECK(cts_rigid_solver_num_constraint_forces(h) == 0 && cts_rigid_solver_lcp_size(h) == 0);
  OK(cts_rigid_solver_get_constraint_forces(h, NULL, 0));
  OK(cts_rigid_solver_compute_generalized_velocity_change(h, NULL, 0, out, NV));
  CHECK(out[0] == 0.0 && out[1] == 0.0 && out[2] == 0.0);
  OK(cts_rigid_solver_solve_discretized_problem(h, 1e-3));
  OK(cts_rigid_solver_set_accel_problem_data(h, NV, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, mv, 0));
  OK(cts_rigid_solver_set_accel_inertia_matrix(h, CTS_RIGID_INERTIA_INVERSE, minv, NV));
  OK(cts_rigid_solver_solve_constraint_problem(h));
  CHECK(cts_rigid_solver_num_constraint_forces(h) == 0);
  cts_rigid_solver_free(h);
}

int main(void) {
  test_lcp_common();
  test_lcp_constructors_and_null_handles();
  test_lcp_parameters();
  test_lcp_solve();
  test_lcp_truth();
  test_lcp_static_functions();
  test_rigid_common();
  test_rigid_null_handles();
  test_rigid_out_of_order();
  test_rigid_set_errors();
  test_rigid_solve_and_getters();
  test_rigid_callbacks();
  test_rigid_empty();
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
