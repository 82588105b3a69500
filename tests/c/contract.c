/* The C ABI contract of include/contact_solvers.h, checked from C (docs/c_api.md):
 * every function with NULLs, wrong lengths, ld below the row count, bad dt, calls out of order,
 * the wrong coupling scheme, nc = 0 with NULL arrays, and NaN padding rows between rows and ld.
 * Each misuse must return its documented status with a non-empty message, write nothing to the
 * outputs, and never crash. Prints one line per failed check; exits 1 if any failed. */

#include "contract_support.h"

#define EXPECT_HANDLE(h, call, want) EXPECT_ON(cts_tamsi_solver_last_error, h, call, want)

/* The one-contact rolling cylinder of docs/tamsi_cases.md §3 (nv = 3, two-way), stored with a
 * leading dimension `pad` rows larger than needed and the padding filled with `padding`. */
enum { NV = 3, NC = 1, PAD = 2 };
typedef struct {
  double M[(NV + PAD) * NV], Jn[(NC + PAD) * NV], Jt[(2 * NC + PAD) * NV];
  double p_star[NV], fn0[NC], k[NC], d[NC], mu[NC], fn[NC], v0[NV];
} scene;

static void make_cylinder(scene *s, double padding) {
  const size_t ldM = NV + PAD, ldJn = NC + PAD, ldJt = 2 * NC + PAD;
  size_t c;
  fill(s->M, sizeof s->M / sizeof s->M[0], padding);
  fill(s->Jn, sizeof s->Jn / sizeof s->Jn[0], padding);
  fill(s->Jt, sizeof s->Jt / sizeof s->Jt[0], padding);
  for (c = 0; c < NV; ++c) {
    size_t r;
    for (r = 0; r < NV; ++r) s->M[r + c * ldM] = r == c ? 1.0 : 0.0;
    s->Jn[0 + c * ldJn] = c == 1 ? 1.0 : 0.0;
    s->Jt[0 + c * ldJt] = c == 1 ? 0.0 : 1.0;
    s->Jt[1 + c * ldJt] = 0.0;
  }
  s->v0[0] = 0.5;
  s->v0[1] = -3.0;
  s->v0[2] = 0.0;
  s->p_star[0] = 0.5;
  s->p_star[1] = -3.0 + 1e-3 * -9.0;
  s->p_star[2] = 0.0;
  s->k[0] = 9.0e6;
  s->fn0[0] = 9.0e6 * 1e-3;
  s->d[0] = 1.0 / 3000.0 / 1e-6;
  s->mu[0] = 0.1;
  s->fn[0] = 3000.0;
}

static cts_status set_two_way(cts_tamsi_solver *h, const scene *s) {
  return cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s->M, NV + PAD, s->Jn, NC + PAD,
                                                            s->Jt, 2 * NC + PAD, s->p_star, s->fn0,
                                                            s->k, s->d, s->mu);
}

static void test_common(void) {
  CHECK(strcmp(cts_status_string(CTS_STATUS_OK), "ok") == 0);
  CHECK(cts_status_string(-7) != NULL && strlen(cts_status_string(-7)) > 0);
  CHECK(cts_status_string(100000) != NULL);
  CHECK(cts_abi_version() == CTS_ABI_VERSION);
  {
    char header_version[64];
    sprintf(header_version, "%d.%d.%d", CTS_VERSION_MAJOR, CTS_VERSION_MINOR, CTS_VERSION_PATCH);
    CHECK(strcmp(cts_version(), header_version) == 0);
  }
  CHECK(cts_last_error_message() != NULL);
  cts_tamsi_parameters_default(NULL); /* NULL-safe */
}

static void test_constructors(void) {
  cts_tamsi_solver *h = (cts_tamsi_solver *)&failures; /* sentinel: must stay unchanged */
  cts_tamsi_solver *copy = NULL;
  EXPECT_GLOBAL(cts_tamsi_solver_new(3, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_new((size_t)-1, &h), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(h == (cts_tamsi_solver *)&failures);
  EXPECT_GLOBAL(cts_tamsi_solver_clone(NULL, &copy), CTS_STATUS_NULL_POINTER);
  CHECK(copy == NULL);
  OK(cts_tamsi_solver_new(3, &h));
  EXPECT_GLOBAL(cts_tamsi_solver_clone(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_tamsi_solver_clone(h, &copy));
  CHECK(copy != NULL && copy != h);
  CHECK(cts_tamsi_solver_num_velocities(copy) == 3);
  cts_tamsi_solver_free(copy);
  cts_tamsi_solver_free(h);
  cts_tamsi_solver_free(NULL); /* no-op */
  CHECK(cts_tamsi_solver_num_velocities(NULL) == 0);
  CHECK(cts_tamsi_solver_num_contacts(NULL) == 0);
  CHECK(strcmp(cts_tamsi_solver_last_error(NULL), "") == 0);
}

static void test_null_handles(void) {
  double x[3];
  size_t count = 7;
  cts_tamsi_parameters p;
  cts_tamsi_iteration_stats stats;
  cts_tamsi_parameters_default(&p);
  EXPECT_GLOBAL(cts_tamsi_solver_resize(NULL, 3), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_set_parameters(NULL, &p), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_get_parameters(NULL, &p), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_solve_with_guess(NULL, 1e-3, x, 3), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_get_generalized_velocities(NULL, x, 3), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_get_iteration_stats(NULL, &stats), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_get_residuals(NULL, x, 3, &count), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_calc_jacobian(NULL, 1e-3, x, 3, x, 3), CTS_STATUS_NULL_POINTER);
  CHECK(count == 7);
}

static void test_parameters(void) {
  cts_tamsi_solver *h = NULL;
  cts_tamsi_parameters p, bad, got;
  OK(cts_tamsi_solver_new(3, &h));
  cts_tamsi_parameters_default(&p);
  CHECK(p.stiction_tolerance == 1e-4 && p.max_iterations == 100 && p.relative_tolerance == 1e-2);
  CHECK(p.theta_max == 3.14159265358979323846 / 3.0); /* Drake: M_PI / 3 */
  EXPECT_HANDLE(h, cts_tamsi_solver_set_parameters(h, NULL), CTS_STATUS_NULL_POINTER);
  bad = p; bad.stiction_tolerance = 0.0;
  EXPECT_HANDLE(h, cts_tamsi_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.stiction_tolerance = NAN;
  EXPECT_HANDLE(h, cts_tamsi_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.max_iterations = -1;
  EXPECT_HANDLE(h, cts_tamsi_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.relative_tolerance = 1.0;
  EXPECT_HANDLE(h, cts_tamsi_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  bad = p; bad.theta_max = 2.0;
  EXPECT_HANDLE(h, cts_tamsi_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_parameters(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_tamsi_solver_get_parameters(h, &got));
  /* Failed sets changed nothing (fields compared one by one: struct padding is undefined). */
  CHECK(got.stiction_tolerance == p.stiction_tolerance && got.max_iterations == p.max_iterations &&
        got.relative_tolerance == p.relative_tolerance && got.theta_max == p.theta_max);
  p.max_iterations = 7;
  OK(cts_tamsi_solver_set_parameters(h, &p));
  /* errno-style: a successful call keeps the detail of the last failure */
  CHECK(strstr(cts_tamsi_solver_last_error(h), "cts_tamsi_solver_get_parameters: out is NULL") != NULL);
  OK(cts_tamsi_solver_get_parameters(h, &got));
  CHECK(got.max_iterations == 7);
  EXPECT_HANDLE(h, cts_tamsi_solver_resize(h, 0), CTS_STATUS_INVALID_ARGUMENT);
  cts_tamsi_solver_free(h);
}

static void test_problem_data(void) {
  cts_tamsi_solver *h = NULL;
  scene s;
  double out[NV];
  make_cylinder(&s, 0.0);
  OK(cts_tamsi_solver_new(NV, &h));

  /* Out of order: solve and getters before data or solve. */
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, 1e-3, s.v0, NV), CTS_STATUS_NO_PROBLEM_DATA);
  fill(out, NV, SENTINEL);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_generalized_velocities(h, out, NV), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, NV));
  EXPECT_HANDLE(h, cts_tamsi_solver_calc_jacobian(h, 1e-3, s.v0, NV, out, NV), CTS_STATUS_NO_PROBLEM_DATA);

  /* NULLs where lengths are not zero. */
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, NULL, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, s.fn0, s.k, s.d, s.mu), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV + PAD, NULL, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, s.fn0, s.k, s.d, s.mu), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, NC + PAD, NULL, 2 * NC + PAD, s.p_star, s.fn0, s.k, s.d, s.mu), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, NULL, s.fn0, s.k, s.d, s.mu), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, NULL, s.k, s.d, s.mu), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, s.fn0, NULL, s.d, s.mu), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, s.fn0, s.k, NULL, s.mu), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, s.fn0, s.k, s.d, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_one_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, NULL, s.mu), CTS_STATUS_NULL_POINTER);

  /* ld below the row count. */
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV - 1, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, s.fn0, s.k, s.d, s.mu), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, 0, s.Jt, 2 * NC + PAD, s.p_star, s.fn0, s.k, s.d, s.mu), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC - 1, s.p_star, s.fn0, s.k, s.d, s.mu), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_tamsi_solver_last_error(h), "Jt") != NULL);
  /* Sizes that overflow the address space. */
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_problem_data(h, (size_t)-1 / 2, s.M, NV + PAD, s.Jn, (size_t)-1 / 2, s.Jt, (size_t)-1, s.p_star, s.fn0, s.k, s.d, s.mu), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(cts_tamsi_solver_num_contacts(h) == 0); /* nothing was set */

  /* Valid data, then the wrong scheme: the solver is bound to two-way. */
  OK(set_two_way(h, &s));
  CHECK(cts_tamsi_solver_num_contacts(h) == NC);
  EXPECT_HANDLE(h, cts_tamsi_solver_set_one_way_coupled_problem_data(h, NC, s.M, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, s.fn, s.mu), CTS_STATUS_WRONG_COUPLING_SCHEME);
  CHECK(cts_tamsi_solver_num_contacts(h) == NC); /* the two-way data is still set */

  /* Bad solve arguments. */
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, 0.0, s.v0, NV), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, -1e-3, s.v0, NV), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, NAN, s.v0, NV), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, INFINITY, s.v0, NV), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, 1e-3, s.v0, NV + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, 1e-3, NULL, NV), CTS_STATUS_NULL_POINTER);
  fill(out, NV, SENTINEL);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_generalized_velocities(h, out, NV), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, NV));
  cts_tamsi_solver_free(h);
}

/* Solve, then misuse every getter: wrong lengths and NULL outputs write nothing. */
static void test_getters(void) {
  cts_tamsi_solver *h = NULL;
  scene s;
  double out[8], J[(NV + 1) * NV];
  size_t count = 99;
  cts_tamsi_iteration_stats stats;
  make_cylinder(&s, 0.0);
  OK(cts_tamsi_solver_new(NV, &h));
  OK(set_two_way(h, &s));
  OK(cts_tamsi_solver_solve_with_guess(h, 1e-3, s.v0, NV));
  CHECK(strcmp(cts_tamsi_solver_last_error(h), "") == 0);

#define GETTER_CASES(getter, n)                                                          \
  fill(out, 8, SENTINEL);                                                                \
  EXPECT_HANDLE(h, getter(h, out, (n) + 1), CTS_STATUS_DIMENSION_MISMATCH);              \
  CHECK(untouched(out, 8));                                                              \
  if ((n) > 0) {                                                                         \
    EXPECT_HANDLE(h, getter(h, out, (n) - 1), CTS_STATUS_DIMENSION_MISMATCH);            \
    EXPECT_HANDLE(h, getter(h, NULL, (n)), CTS_STATUS_NULL_POINTER);                     \
  }                                                                                      \
  CHECK(untouched(out, 8));                                                              \
  OK(getter(h, out, (n)));                                                               \
  CHECK(out[0] == out[0] && out[0] != SENTINEL);

  GETTER_CASES(cts_tamsi_solver_get_generalized_velocities, NV)
  GETTER_CASES(cts_tamsi_solver_get_normal_velocities, NC)
  GETTER_CASES(cts_tamsi_solver_get_tangential_velocities, 2 * NC)
  GETTER_CASES(cts_tamsi_solver_get_normal_forces, NC)
  GETTER_CASES(cts_tamsi_solver_get_friction_forces, 2 * NC)
  GETTER_CASES(cts_tamsi_solver_get_generalized_friction_forces, NV)
  GETTER_CASES(cts_tamsi_solver_get_generalized_contact_forces, NV)
#undef GETTER_CASES

  EXPECT_HANDLE(h, cts_tamsi_solver_get_iteration_stats(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_tamsi_solver_get_iteration_stats(h, &stats));
  CHECK(stats.num_iterations == 8);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_residuals(h, out, 8, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_residuals(h, NULL, 3, &count), CTS_STATUS_NULL_POINTER);
  CHECK(count == 99);
  OK(cts_tamsi_solver_get_residuals(h, NULL, 0, &count));
  CHECK(count == 8);
  fill(out, 8, SENTINEL);
  OK(cts_tamsi_solver_get_residuals(h, out, 2, &count)); /* min(len, count) entries */
  CHECK(count == 8 && out[0] > 0.3 && out[1] > 0.1 && untouched(out + 2, 6));

  /* calc_jacobian: bad nv, ld, dt, NULLs write nothing. */
  fill(J, (NV + 1) * NV, SENTINEL);
  EXPECT_HANDLE(h, cts_tamsi_solver_calc_jacobian(h, 1e-3, s.v0, NV + 1, J, NV + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_tamsi_solver_calc_jacobian(h, 1e-3, s.v0, NV, J, NV - 1), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_calc_jacobian(h, -1.0, s.v0, NV, J, NV + 1), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_calc_jacobian(h, 1e-3, NULL, NV, J, NV + 1), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_tamsi_solver_calc_jacobian(h, 1e-3, s.v0, NV, NULL, NV + 1), CTS_STATUS_NULL_POINTER);
  CHECK(untouched(J, (NV + 1) * NV));
  OK(cts_tamsi_solver_calc_jacobian(h, 1e-3, s.v0, NV, J, NV + 1));
  CHECK(J[NV] == SENTINEL && J[2 * (NV + 1) - 1] == SENTINEL); /* padding rows untouched */

  /* The results of the solve survive calc_jacobian and failed calls. */
  OK(cts_tamsi_solver_get_iteration_stats(h, &stats));
  CHECK(stats.num_iterations == 8);
  cts_tamsi_solver_free(h);
}

/* nc = 0 with NULL contact arrays (one-way and two-way), and max_iterations = 0. */
static void test_no_contact_and_zero_iterations(void) {
  cts_tamsi_solver *h = NULL;
  scene s;
  double v[NV], fn[NC];
  cts_tamsi_parameters p;
  cts_tamsi_iteration_stats stats;
  size_t count = 99;
  make_cylinder(&s, 0.0);
  OK(cts_tamsi_solver_new(NV, &h));
  OK(cts_tamsi_solver_set_one_way_coupled_problem_data(h, 0, s.M, NV + PAD, NULL, 1, NULL, 1, s.p_star, NULL, NULL));
  OK(cts_tamsi_solver_solve_with_guess(h, 1e-3, s.v0, NV));
  OK(cts_tamsi_solver_get_generalized_velocities(h, v, NV));
  CHECK(v[0] == s.p_star[0] && v[1] == s.p_star[1] && v[2] == s.p_star[2]); /* M = I */
  OK(cts_tamsi_solver_get_normal_forces(h, NULL, 0));
  OK(cts_tamsi_solver_get_residuals(h, NULL, 0, &count));
  CHECK(count == 1);
  cts_tamsi_solver_free(h);

  /* max_iterations = 0: outcome 1, outputs evaluated at the guess (Drake leaves them stale). */
  OK(cts_tamsi_solver_new(NV, &h));
  cts_tamsi_parameters_default(&p);
  p.max_iterations = 0;
  OK(cts_tamsi_solver_set_parameters(h, &p));
  OK(set_two_way(h, &s));
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, 1e-3, s.v0, NV), CTS_STATUS_MAX_ITERATIONS_REACHED);
  OK(cts_tamsi_solver_get_iteration_stats(h, &stats));
  CHECK(stats.num_iterations == 0 && isnan(stats.vt_residual));
  OK(cts_tamsi_solver_get_generalized_velocities(h, v, NV));
  CHECK(v[0] == s.v0[0] && v[1] == s.v0[1] && v[2] == s.v0[2]);
  OK(cts_tamsi_solver_get_normal_forces(h, fn, NC));
  /* fn(vn) at the guess: vn = -3, (1 + 3d)(fn0 + 3 dt k). */
  CHECK(fabs(fn[0] - (1.0 + 3.0 * s.d[0]) * (s.fn0[0] + 3.0 * 1e-3 * s.k[0])) < 1e-6 * fn[0]);
  cts_tamsi_solver_free(h);
}

/* NaN in the padding rows between rows and ld changes nothing. */
static void test_padding_is_never_read(void) {
  cts_tamsi_solver *a = NULL, *b = NULL;
  scene clean, dirty;
  double va[NV], vb[NV], Ja[NV * NV], Jb[NV * NV];
  size_t i;
  make_cylinder(&clean, 0.0);
  make_cylinder(&dirty, NAN);
  OK(cts_tamsi_solver_new(NV, &a));
  OK(cts_tamsi_solver_new(NV, &b));
  OK(set_two_way(a, &clean));
  OK(set_two_way(b, &dirty));
  OK(cts_tamsi_solver_solve_with_guess(a, 1e-3, clean.v0, NV));
  OK(cts_tamsi_solver_solve_with_guess(b, 1e-3, dirty.v0, NV));
  OK(cts_tamsi_solver_get_generalized_velocities(a, va, NV));
  OK(cts_tamsi_solver_get_generalized_velocities(b, vb, NV));
  OK(cts_tamsi_solver_calc_jacobian(a, 1e-3, va, NV, Ja, NV));
  OK(cts_tamsi_solver_calc_jacobian(b, 1e-3, vb, NV, Jb, NV));
  for (i = 0; i < NV; ++i) CHECK(va[i] == vb[i]);
  for (i = 0; i < NV * NV; ++i) CHECK(Ja[i] == Jb[i]);
  cts_tamsi_solver_free(a);
  cts_tamsi_solver_free(b);
}

static void test_calc_alpha(void) {
  const double vt[2] = {0.0, 0.0}, dvt[2] = {0.3, -0.1}, nan_vt[2] = {-0.5, NAN};
  double alpha = SENTINEL;
  EXPECT_GLOBAL(cts_tamsi_calc_alpha(NULL, dvt, 0.5, 1e-4, 1e-2, &alpha), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_calc_alpha(vt, NULL, 0.5, 1e-4, 1e-2, &alpha), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_calc_alpha(vt, dvt, 0.5, 1e-4, 1e-2, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_calc_alpha(vt, dvt, 1.5, 1e-4, 1e-2, &alpha), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_GLOBAL(cts_tamsi_calc_alpha(vt, dvt, 0.5, -1e-4, 1e-2, &alpha), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_GLOBAL(cts_tamsi_calc_alpha(vt, dvt, 0.5, 1e-4, NAN, &alpha), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_GLOBAL(cts_tamsi_calc_alpha(nan_vt, dvt, 0.5, 1e-4, 1e-2, &alpha), CTS_STATUS_ALPHA_SOLVER_FAILED);
  CHECK(alpha == SENTINEL);
  OK(cts_tamsi_calc_alpha(vt, dvt, 0.5, 1e-4, 1e-2, &alpha));
  CHECK(fabs(alpha - 0.00015811388300841897) < 1e-18);
}

/* Resize drops data and results; clone carries parameters but no data. */
static void test_resize_and_clone(void) {
  cts_tamsi_solver *h = NULL, *copy = NULL;
  scene s;
  double v[NV + 1];
  cts_tamsi_parameters p, got;
  make_cylinder(&s, 0.0);
  OK(cts_tamsi_solver_new(NV, &h));
  cts_tamsi_parameters_default(&p);
  p.stiction_tolerance = 1e-6;
  OK(cts_tamsi_solver_set_parameters(h, &p));
  OK(set_two_way(h, &s));
  OK(cts_tamsi_solver_solve_with_guess(h, 1e-3, s.v0, NV));
  OK(cts_tamsi_solver_clone(h, &copy));
  OK(cts_tamsi_solver_get_parameters(copy, &got));
  CHECK(got.stiction_tolerance == 1e-6);
  EXPECT_HANDLE(copy, cts_tamsi_solver_solve_with_guess(copy, 1e-3, s.v0, NV), CTS_STATUS_NO_PROBLEM_DATA);
  /* The clone is not bound to a scheme: one-way data is fine. */
  OK(cts_tamsi_solver_set_one_way_coupled_problem_data(copy, NC, s.M, NV + PAD, s.Jn, NC + PAD, s.Jt, 2 * NC + PAD, s.p_star, s.fn, s.mu));
  OK(cts_tamsi_solver_resize(h, NV + 1));
  CHECK(cts_tamsi_solver_num_velocities(h) == NV + 1 && cts_tamsi_solver_num_contacts(h) == 0);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_generalized_velocities(h, v, NV + 1), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, 1e-3, v, NV + 1), CTS_STATUS_NO_PROBLEM_DATA);
  cts_tamsi_solver_free(copy);
  cts_tamsi_solver_free(h);
}

int main(void) {
  test_common();
  test_constructors();
  test_null_handles();
  test_parameters();
  test_problem_data();
  test_getters();
  test_no_contact_and_zero_iterations();
  test_padding_is_never_read();
  test_calc_alpha();
  test_resize_and_clone();
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
