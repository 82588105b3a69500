/* The C ABI contract of the Baraff solver (cts_baraff_*), checked from C (docs/c_api.md): every
 * function with NULLs, wrong lengths, ld below the row count, unknown row-kind codes, out-of-range
 * normal indices, bad parameters, calls out of order, and NaN padding rows between rows and ld.
 * Each misuse must return its documented status with a non-empty message, write nothing to the
 * outputs, and never crash. Prints one line per failed check; exits 1 if any failed. */

#include "contract_support.h"

#define EXPECT_HANDLE(h, call, want) EXPECT_ON(cts_baraff_solver_last_error, h, call, want)

#define ISENTINEL 4242

static int untouched_int(const int32_t *x, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (x[i] != ISENTINEL) return 0;
  return 1;
}

static void fill_int(int32_t *x, size_t n, int32_t value) {
  size_t i;
  for (i = 0; i < n; ++i) x[i] = value;
}

/* B1 of docs/baraff.md §11 (particle on the ground, mu = 0.5, F_x = 6): rows (normal, friction),
 * A = I stored with leading dimension M1 + PAD, the padding filled with `padding`. */
enum { M1 = 2, PAD = 2, LDA = M1 + PAD };
typedef struct {
  double A[LDA * M1], b[M1], mu[M1], lo[M1], hi[M1];
  int32_t kind[M1], normal[M1];
} particle;

static void make_particle(particle *p, double padding) {
  fill(p->A, LDA * M1, padding);
  p->A[0] = 1.0;
  p->A[1] = 0.0;
  p->A[LDA + 0] = 0.0;
  p->A[LDA + 1] = 1.0;
  p->b[0] = -9.81;
  p->b[1] = 6.0;
  p->kind[0] = CTS_BARAFF_ROW_NORMAL;
  p->kind[1] = CTS_BARAFF_ROW_FRICTION;
  p->normal[0] = -1;
  p->normal[1] = 0;
  p->mu[0] = 0.0;
  p->mu[1] = 0.5;
  p->lo[0] = p->lo[1] = 0.0;
  p->hi[0] = p->hi[1] = 0.0;
}

static cts_status set_particle(cts_baraff_solver *h, const particle *p) {
  return cts_baraff_solver_set_matrix_problem_data(h, M1, p->A, LDA, p->b, p->kind, p->normal, p->mu,
                                                   NULL, NULL);
}

/* B3 box (x, y, theta) with two corner normals and two friction rows, pushed with 6 N (B3c):
 * M 3x3, J 4x3, sliding data Q 4x3, all stored with padding rows. */
enum { MB = 4, NB = 3, LDM = NB + PAD, LDJ = MB + PAD };
typedef struct {
  double M[LDM * NB], J[LDJ * NB], Q[LDJ * NB], tau[NB], qdot[NB], mu[MB], mu_d[MB], C[MB], Cdot[MB];
  int32_t kind[MB], normal[MB];
} box;

static void make_box(box *p, double padding) {
  const double rx[2] = {-0.5, 0.5}, ry = -0.25;
  int c;
  fill(p->M, LDM * NB, padding);
  fill(p->J, LDJ * NB, padding);
  fill(p->Q, LDJ * NB, padding);
  for (c = 0; c < NB; ++c) {
    int r;
    for (r = 0; r < NB; ++r) p->M[r + c * LDM] = 0.0;
    for (r = 0; r < MB; ++r) p->Q[r + c * LDJ] = 0.0;
  }
  p->M[0] = 1.0;
  p->M[1 + LDM] = 1.0;
  p->M[2 + 2 * LDM] = (1.0 + 0.25) / 12.0;
  for (c = 0; c < 2; ++c) {
    p->J[c + 0 * LDJ] = 0.0;
    p->J[c + 1 * LDJ] = 1.0;
    p->J[c + 2 * LDJ] = rx[c];
    p->J[2 + c + 0 * LDJ] = 1.0;
    p->J[2 + c + 1 * LDJ] = 0.0;
    p->J[2 + c + 2 * LDJ] = -ry;
    p->kind[c] = CTS_BARAFF_ROW_NORMAL;
    p->kind[2 + c] = CTS_BARAFF_ROW_FRICTION;
    p->normal[c] = -1;
    p->normal[2 + c] = c;
    p->mu[c] = 0.0;
    p->mu[2 + c] = 0.5;
  }
  for (c = 0; c < MB; ++c) {
    p->mu_d[c] = 0.0;
    p->C[c] = 0.0;
    p->Cdot[c] = 0.0;
  }
  p->tau[0] = 6.0;
  p->tau[1] = -9.81;
  p->tau[2] = 0.0;
  p->qdot[0] = 0.0;
  p->qdot[1] = -1.0;
  p->qdot[2] = 2.0;
}

static cts_status set_box(cts_baraff_solver *h, const box *p, int32_t level) {
  return cts_baraff_solver_set_model_problem_data(h, MB, NB, p->M, LDM, p->J, LDJ, level,
                                                  level == CTS_BARAFF_LEVEL_VELOCITY ? p->qdot : p->tau,
                                                  p->kind, p->normal, p->mu, NULL, NULL);
}

static void test_common(void) {
  int code;
  CHECK(CTS_BARAFF_ROW_BILATERAL == 0 && CTS_BARAFF_ROW_NORMAL == 1 && CTS_BARAFF_ROW_FRICTION == 2 &&
        CTS_BARAFF_ROW_BOXED == 3);
  CHECK(CTS_BARAFF_SET_CLAMPED == 0 && CTS_BARAFF_SET_SEPARATING == 1 && CTS_BARAFF_SET_AT_UPPER == 2 &&
        CTS_BARAFF_SET_AT_LOWER == 3 && CTS_BARAFF_SET_DEFERRED == 4 && CTS_BARAFF_SET_LOCKED_UPPER == 5 &&
        CTS_BARAFF_SET_LOCKED_LOWER == 6 && CTS_BARAFF_SET_UNTREATED == 7);
  CHECK(CTS_BARAFF_LEVEL_ACCELERATION == 0 && CTS_BARAFF_LEVEL_VELOCITY == 1);
  CHECK(CTS_STATUS_BARAFF_INEXACT == 21 && CTS_STATUS_BARAFF_UNBOUNDED_RAY == 22 &&
        CTS_STATUS_BARAFF_CYCLING == 23 && CTS_STATUS_BARAFF_PIVOT_LIMIT == 24 &&
        CTS_STATUS_BARAFF_ITERATION_LIMIT == 25 && CTS_STATUS_BARAFF_FRICTIONLESS_FALLBACK == 26);
  for (code = 21; code <= 26; ++code) {
    CHECK(strncmp(cts_status_string(code), "Baraff: ", 8) == 0);
  }
  CHECK(strcmp(cts_status_string(20), "unknown status") == 0);
  /* 27 and 28 are the LCP's (27..39), not Baraff's */
  CHECK(strncmp(cts_status_string(27), "Baraff", 6) != 0 && strncmp(cts_status_string(28), "Baraff", 6) != 0);
  CHECK(strcmp(cts_status_string(29), "unknown status") == 0);
  cts_baraff_parameters_default(NULL); /* NULL-safe */
}

static void test_constructors(void) {
  cts_baraff_solver *h = (cts_baraff_solver *)&failures; /* sentinel: must stay unchanged */
  cts_baraff_solver *copy = (cts_baraff_solver *)&checks;
  EXPECT_GLOBAL(cts_baraff_solver_new(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_clone(NULL, &copy), CTS_STATUS_NULL_POINTER);
  CHECK(copy == (cts_baraff_solver *)&checks);
  OK(cts_baraff_solver_new(&h));
  CHECK(h != (cts_baraff_solver *)&failures && h != NULL);
  EXPECT_GLOBAL(cts_baraff_solver_clone(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_baraff_solver_clone(h, &copy));
  CHECK(copy != NULL && copy != h);
  CHECK(cts_baraff_solver_num_rows(copy) == 0 && cts_baraff_solver_num_coordinates(copy) == 0);
  EXPECT_HANDLE(h, cts_baraff_solver_reserve(h, (size_t)-1 / 2, 3), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_reserve(h, 4, (size_t)-1), CTS_STATUS_INVALID_ARGUMENT);
  OK(cts_baraff_solver_reserve(h, 8, 6));
  /* errno-style: a successful call keeps the detail of the last failure */
  CHECK(strstr(cts_baraff_solver_last_error(h), "cts_baraff_solver_reserve: m = 4 rows, n = 18446744073709551615 coordinates") != NULL);
  cts_baraff_solver_free(copy);
  cts_baraff_solver_free(h);
  cts_baraff_solver_free(NULL); /* no-op */
  CHECK(cts_baraff_solver_num_rows(NULL) == 0);
  CHECK(cts_baraff_solver_num_coordinates(NULL) == 0);
  CHECK(strcmp(cts_baraff_solver_last_error(NULL), "") == 0);
}

static void test_null_handles(void) {
  double x[4];
  int32_t k[4], needs = ISENTINEL;
  particle p;
  cts_baraff_parameters params;
  cts_baraff_stats stats;
  make_particle(&p, 0.0);
  cts_baraff_parameters_default(&params);
  EXPECT_GLOBAL(cts_baraff_solver_reserve(NULL, 2, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_set_parameters(NULL, &params), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_get_parameters(NULL, &params), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(set_particle(NULL, &p), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_set_model_problem_data(NULL, 0, 0, NULL, 1, NULL, 1, 0, NULL, NULL, NULL, NULL, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_set_model_bias(NULL, x, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_set_model_sliding(NULL, x, 2, x, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_set_model_stabilization(NULL, 1.0, 1.0, x, 0, NULL, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_solve(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_compute_impulses(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_consistency_impulse(NULL, 0), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_needs_impulse(NULL, &needs), CTS_STATUS_NULL_POINTER);
  CHECK(needs == ISENTINEL);
  EXPECT_GLOBAL(cts_baraff_solver_get_forces(NULL, x, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_get_accelerations(NULL, x, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_get_row_sets(NULL, k, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_get_generalized_result(NULL, x, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_get_generalized_change(NULL, x, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_get_sliding_friction_forces(NULL, x, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_get_composed_b(NULL, x, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_get_composed_matrix(NULL, x, 2), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_baraff_solver_get_stats(NULL, &stats), CTS_STATUS_NULL_POINTER);
}

static void test_parameters(void) {
  cts_baraff_solver *h = NULL;
  cts_baraff_parameters p, bad, got;
  OK(cts_baraff_solver_new(&h));
  cts_baraff_parameters_default(&p);
  CHECK(p.epsilon == 1e-10 && p.singular_tolerance == 1e-9 && p.tolerance == 1e-8);
  CHECK(p.restitution == 0.0 && p.cdot_tolerance == 1e-6);
  CHECK(p.max_pivots == 0 && p.max_impulse_iterations == 0 && p.reverse_retry == 1);
  EXPECT_HANDLE(h, cts_baraff_solver_set_parameters(h, NULL), CTS_STATUS_NULL_POINTER);
#define BAD(field, value)                                                                      \
  bad = p;                                                                                     \
  bad.field = value;                                                                           \
  EXPECT_HANDLE(h, cts_baraff_solver_set_parameters(h, &bad), CTS_STATUS_INVALID_ARGUMENT);    \
  CHECK(strstr(cts_baraff_solver_last_error(h), #field) != NULL);
  BAD(epsilon, 0.0)
  BAD(epsilon, 1.0)
  BAD(epsilon, NAN)
  BAD(singular_tolerance, -1e-9)
  BAD(singular_tolerance, 1.0)
  BAD(tolerance, 0.0)
  BAD(tolerance, INFINITY)
  BAD(restitution, 1.5)
  BAD(restitution, -0.1)
  BAD(cdot_tolerance, -1.0)
  BAD(cdot_tolerance, NAN)
  BAD(max_pivots, -1)
  BAD(max_impulse_iterations, -1)
  BAD(reverse_retry, 2)
  BAD(reverse_retry, -1)
#undef BAD
  EXPECT_HANDLE(h, cts_baraff_solver_get_parameters(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_baraff_solver_get_parameters(h, &got));
  /* Failed sets changed nothing (fields compared one by one: struct padding is undefined). */
  CHECK(got.epsilon == p.epsilon && got.singular_tolerance == p.singular_tolerance &&
        got.tolerance == p.tolerance && got.restitution == p.restitution &&
        got.cdot_tolerance == p.cdot_tolerance && got.max_pivots == p.max_pivots &&
        got.max_impulse_iterations == p.max_impulse_iterations && got.reverse_retry == p.reverse_retry);
  p.max_pivots = 7;
  p.restitution = 1.0;
  OK(cts_baraff_solver_set_parameters(h, &p));
  /* errno-style: a successful call keeps the detail of the last failure */
  CHECK(strstr(cts_baraff_solver_last_error(h), "cts_baraff_solver_get_parameters: out is NULL") != NULL);
  OK(cts_baraff_solver_get_parameters(h, &got));
  CHECK(got.max_pivots == 7 && got.restitution == 1.0);
  cts_baraff_solver_free(h);
}

static void test_matrix_data(void) {
  cts_baraff_solver *h = NULL;
  particle p;
  double out[4], A3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b3[3] = {-1, -1, -1}, lo3[3], hi3[3], mu3[3];
  int32_t sets[4], kind3[3], normal3[3];
  cts_baraff_stats stats;
  make_particle(&p, 0.0);
  OK(cts_baraff_solver_new(&h));

  /* Out of order: solve and getters before data or a solve. */
  EXPECT_HANDLE(h, cts_baraff_solver_solve(h), CTS_STATUS_NO_PROBLEM_DATA);
  fill(out, 4, SENTINEL);
  fill_int(sets, 4, ISENTINEL);
  EXPECT_HANDLE(h, cts_baraff_solver_get_forces(h, out, 0), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_baraff_solver_get_row_sets(h, sets, 2), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_baraff_solver_get_stats(h, &stats), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, 4) && untouched_int(sets, 4));

  /* NULLs where lengths are not zero. */
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, M1, NULL, LDA, p.b, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, M1, p.A, LDA, NULL, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, M1, p.A, LDA, p.b, NULL, p.normal, p.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  /* A friction row needs normal and mu. */
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, M1, p.A, LDA, p.b, p.kind, NULL, p.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  CHECK(strstr(cts_baraff_solver_last_error(h), "normal") != NULL);
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, M1, p.A, LDA, p.b, p.kind, p.normal, NULL, NULL, NULL), CTS_STATUS_NULL_POINTER);
  /* A boxed row needs lo and hi. */
  kind3[0] = CTS_BARAFF_ROW_NORMAL; kind3[1] = CTS_BARAFF_ROW_BOXED; kind3[2] = CTS_BARAFF_ROW_BILATERAL;
  lo3[0] = 0; lo3[1] = -1; lo3[2] = 0;
  hi3[0] = 0; hi3[1] = 1; hi3[2] = 0;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, NULL, NULL, NULL, hi3), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, NULL, NULL, lo3, NULL), CTS_STATUS_NULL_POINTER);
  CHECK(cts_baraff_solver_num_rows(h) == 0); /* nothing was set */
  /* ... and without friction rows, normal and mu may be NULL. */
  OK(cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, NULL, NULL, lo3, hi3));
  CHECK(cts_baraff_solver_num_rows(h) == 3 && cts_baraff_solver_num_coordinates(h) == 0);

  /* ld below the row count. */
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, M1, p.A, M1 - 1, p.b, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_baraff_solver_last_error(h), "A: ld 1") != NULL);
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  /* Sizes that overflow the address space. */
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, (size_t)-1 / 4, p.A, (size_t)-1 / 4, p.b, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);

  /* Unknown kind codes. */
  kind3[1] = 4;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, NULL, NULL, lo3, hi3), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_baraff_solver_last_error(h), "unknown row kind code 4") != NULL);
  kind3[1] = -1;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, NULL, NULL, lo3, hi3), CTS_STATUS_INVALID_ARGUMENT);
  /* Normal indices out of range, negative, or not a normal row. */
  kind3[0] = CTS_BARAFF_ROW_NORMAL; kind3[1] = CTS_BARAFF_ROW_FRICTION; kind3[2] = CTS_BARAFF_ROW_FRICTION;
  normal3[0] = -1; normal3[1] = 0; normal3[2] = 0;
  mu3[0] = 0.0; mu3[1] = 0.5; mu3[2] = 0.5;
  OK(cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, normal3, mu3, NULL, NULL));
  normal3[2] = 3;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, normal3, mu3, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_baraff_solver_last_error(h), "row 2") != NULL);
  normal3[2] = -1;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, normal3, mu3, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  normal3[2] = 1; /* a friction row */
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, normal3, mu3, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  normal3[2] = 2; /* itself */
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, normal3, mu3, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  normal3[2] = 0;
  mu3[2] = -0.5;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, normal3, mu3, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  mu3[2] = NAN;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, normal3, mu3, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  /* Boxed bounds that do not contain 0. */
  kind3[1] = CTS_BARAFF_ROW_BOXED; kind3[2] = CTS_BARAFF_ROW_BILATERAL;
  lo3[1] = 0.5;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, NULL, NULL, lo3, hi3), CTS_STATUS_INVALID_ARGUMENT);
  lo3[1] = -1.0; hi3[1] = -0.5;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, NULL, NULL, lo3, hi3), CTS_STATUS_INVALID_ARGUMENT);
  hi3[1] = NAN;
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, 3, A3, 3, b3, kind3, NULL, NULL, lo3, hi3), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(cts_baraff_solver_num_rows(h) == 3); /* the last valid data is still set */

  /* m = 0 with NULL arrays. */
  OK(cts_baraff_solver_set_matrix_problem_data(h, 0, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL));
  OK(cts_baraff_solver_solve(h));
  OK(cts_baraff_solver_get_forces(h, NULL, 0));
  OK(cts_baraff_solver_get_row_sets(h, NULL, 0));

  /* Non-finite data is reported by the solve, which then leaves no results. */
  OK(set_particle(h, &p));
  OK(cts_baraff_solver_solve(h));
  p.b[1] = NAN;
  EXPECT_HANDLE(h, cts_baraff_solver_solve(h), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_baraff_solver_last_error(h), "b: entry 1 (in column-major order) = NaN is not finite") != NULL);
  fill(out, 4, SENTINEL);
  EXPECT_HANDLE(h, cts_baraff_solver_get_forces(h, out, M1), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, 4));
  p.b[1] = 6.0;
  p.A[1] = INFINITY;
  EXPECT_HANDLE(h, cts_baraff_solver_solve(h), CTS_STATUS_INVALID_ARGUMENT);
  p.A[1] = 0.0;

  /* Model-only calls on matrix data. */
  OK(cts_baraff_solver_solve(h));
  EXPECT_HANDLE(h, cts_baraff_solver_compute_impulses(h), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_HANDLE(h, cts_baraff_solver_consistency_impulse(h, 0), CTS_STATUS_NO_PROBLEM_DATA);
  {
    int32_t needs = ISENTINEL;
    EXPECT_HANDLE(h, cts_baraff_solver_needs_impulse(h, &needs), CTS_STATUS_NO_PROBLEM_DATA);
    CHECK(needs == ISENTINEL);
  }
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_bias(h, p.b, M1), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_sliding(h, p.A, LDA, p.mu, M1), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_stabilization(h, 1.0, 1.0, p.b, 0, NULL, M1), CTS_STATUS_NO_PROBLEM_DATA);
  cts_baraff_solver_free(h);
}

static void test_model_data(void) {
  cts_baraff_solver *h = NULL;
  box p;
  double out[8], M_bad[9] = {1, 0, 0, 0, -1, 0, 0, 0, 1};
  int32_t needs = ISENTINEL;
  make_box(&p, 0.0);
  OK(cts_baraff_solver_new(&h));

  /* Add-on setters before any data. */
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_bias(h, p.C, MB), CTS_STATUS_NO_PROBLEM_DATA);

  /* NULLs, ld, level. */
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_problem_data(h, MB, NB, NULL, LDM, p.J, LDJ, 0, p.tau, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_problem_data(h, MB, NB, p.M, LDM, NULL, LDJ, 0, p.tau, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_problem_data(h, MB, NB, p.M, LDM, p.J, LDJ, 0, NULL, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_problem_data(h, MB, NB, p.M, LDM, p.J, LDJ, 0, p.tau, NULL, p.normal, p.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_problem_data(h, MB, NB, p.M, LDM, p.J, LDJ, 0, p.tau, p.kind, NULL, p.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_problem_data(h, MB, NB, p.M, NB - 1, p.J, LDJ, 0, p.tau, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_baraff_solver_last_error(h), "M: ld") != NULL);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_problem_data(h, MB, NB, p.M, LDM, p.J, MB - 1, 0, p.tau, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_baraff_solver_last_error(h), "J: ld") != NULL);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_problem_data(h, MB, NB, p.M, LDM, p.J, LDJ, 2, p.tau, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_problem_data(h, MB, NB, p.M, LDM, p.J, LDJ, -1, p.tau, p.kind, p.normal, p.mu, NULL, NULL), CTS_STATUS_INVALID_ARGUMENT);
  p.normal[3] = 2; /* a friction row */
  EXPECT_HANDLE(h, set_box(h, &p, CTS_BARAFF_LEVEL_ACCELERATION), CTS_STATUS_INVALID_ARGUMENT);
  p.normal[3] = 1;
  CHECK(cts_baraff_solver_num_rows(h) == 0);
  /* m = 0, n = 0 with NULL arrays. */
  OK(cts_baraff_solver_set_model_problem_data(h, 0, 0, NULL, 1, NULL, 1, 0, NULL, NULL, NULL, NULL, NULL, NULL));
  OK(cts_baraff_solver_solve(h));
  OK(cts_baraff_solver_get_generalized_result(h, NULL, 0));

  OK(set_box(h, &p, CTS_BARAFF_LEVEL_ACCELERATION));
  CHECK(cts_baraff_solver_num_rows(h) == MB && cts_baraff_solver_num_coordinates(h) == NB);

  /* Add-on setters: lengths, NULLs, ld, scalars. */
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_bias(h, p.C, MB + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_bias(h, p.C, MB - 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_bias(h, NULL, MB), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_sliding(h, p.Q, LDJ, p.mu_d, MB - 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_sliding(h, NULL, LDJ, p.mu_d, MB), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_sliding(h, p.Q, LDJ, NULL, MB), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_sliding(h, p.Q, MB - 1, p.mu_d, MB), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_stabilization(h, 1.0, 1.0, p.C, 1, p.Cdot, MB + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_stabilization(h, NAN, 1.0, p.C, 1, p.Cdot, MB), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_stabilization(h, 1.0, INFINITY, p.C, 1, p.Cdot, MB), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_stabilization(h, 1.0, 1.0, p.C, 2, p.Cdot, MB), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_stabilization(h, 1.0, 1.0, p.C, 1, NULL, MB), CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, cts_baraff_solver_set_model_stabilization(h, 1.0, 1.0, NULL, 0, NULL, MB), CTS_STATUS_NULL_POINTER);
  OK(cts_baraff_solver_set_model_stabilization(h, 1.0, 1.0, p.C, 0, NULL, MB)); /* Cdot not read */
  OK(cts_baraff_solver_set_model_stabilization(h, 1.0, 1.0, p.C, 1, p.Cdot, MB));
  OK(cts_baraff_solver_set_model_bias(h, p.C, MB));
  OK(cts_baraff_solver_set_model_sliding(h, p.Q, LDJ, p.mu_d, MB));

  /* Level-specific calls on acceleration-level data. */
  EXPECT_HANDLE(h, cts_baraff_solver_compute_impulses(h), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_consistency_impulse(h, 0), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_needs_impulse(h, &needs), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(needs == ISENTINEL);
  OK(cts_baraff_solver_solve(h)); /* B3c: solved */

  /* Negative mu_d is reported by the solve. */
  p.mu_d[0] = -0.1;
  EXPECT_HANDLE(h, cts_baraff_solver_solve(h), CTS_STATUS_INVALID_ARGUMENT);
  p.mu_d[0] = 0.0;
  /* A mass matrix that is not positive definite. */
  OK(cts_baraff_solver_set_model_problem_data(h, MB, NB, M_bad, NB, p.J, LDJ, 0, p.tau, p.kind, p.normal, p.mu, NULL, NULL));
  EXPECT_HANDLE(h, cts_baraff_solver_solve(h), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_baraff_solver_last_error(h), "positive definite") != NULL);

  /* Velocity level: impulses need bilateral/normal rows only; the sticking row must be a normal. */
  OK(set_box(h, &p, CTS_BARAFF_LEVEL_VELOCITY));
  EXPECT_HANDLE(h, cts_baraff_solver_compute_impulses(h), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(cts_baraff_solver_last_error(h), "row 2") != NULL);
  EXPECT_HANDLE(h, cts_baraff_solver_consistency_impulse(h, 2), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_consistency_impulse(h, MB), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_needs_impulse(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_baraff_solver_needs_impulse(h, &needs));
  CHECK(needs == 1); /* the left corner approaches at 2 m/s */
  fill(out, 8, SENTINEL);
  EXPECT_HANDLE(h, cts_baraff_solver_get_forces(h, out, MB), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, 8));
  OK(cts_baraff_solver_consistency_impulse(h, 0));
  OK(cts_baraff_solver_solve(h));
  /* B6: only the normals, the active-set loop. */
  OK(cts_baraff_solver_set_model_problem_data(h, 2, NB, p.M, LDM, p.J, LDJ, CTS_BARAFF_LEVEL_VELOCITY, p.qdot, p.kind, NULL, NULL, NULL, NULL));
  OK(cts_baraff_solver_compute_impulses(h));
  OK(cts_baraff_solver_get_forces(h, out, 2));
  CHECK(fabs(out[0] - 0.708333) < 1e-6 && fabs(out[1] - 0.291667) < 1e-6);
  cts_baraff_solver_free(h);
}

/* Solve, then misuse every getter: wrong lengths, NULL outputs and bad ld write nothing. */
static void test_getters(void) {
  cts_baraff_solver *h = NULL;
  box p;
  particle q;
  double out[16];
  int32_t sets[8];
  cts_baraff_stats stats;
  make_box(&p, 0.0);
  make_particle(&q, 0.0);
  OK(cts_baraff_solver_new(&h));
  OK(set_box(h, &p, CTS_BARAFF_LEVEL_ACCELERATION));
  OK(cts_baraff_solver_solve(h));
  CHECK(strcmp(cts_baraff_solver_last_error(h), "") == 0);

#define GETTER_CASES(getter, n)                                                          \
  fill(out, 16, SENTINEL);                                                               \
  EXPECT_HANDLE(h, getter(h, out, (n) + 1), CTS_STATUS_DIMENSION_MISMATCH);              \
  EXPECT_HANDLE(h, getter(h, out, (n) - 1), CTS_STATUS_DIMENSION_MISMATCH);              \
  EXPECT_HANDLE(h, getter(h, NULL, (n)), CTS_STATUS_NULL_POINTER);                       \
  CHECK(untouched(out, 16));                                                             \
  OK(getter(h, out, (n)));                                                               \
  CHECK(out[0] == out[0] && out[0] != SENTINEL && untouched(out + (n), 16 - (n)));

  GETTER_CASES(cts_baraff_solver_get_forces, MB)
  GETTER_CASES(cts_baraff_solver_get_accelerations, MB)
  GETTER_CASES(cts_baraff_solver_get_generalized_result, NB)
  GETTER_CASES(cts_baraff_solver_get_generalized_change, NB)
  GETTER_CASES(cts_baraff_solver_get_sliding_friction_forces, MB)
  GETTER_CASES(cts_baraff_solver_get_composed_b, MB)
#undef GETTER_CASES

  /* B3c values through the getters. */
  OK(cts_baraff_solver_get_forces(h, out, MB));
  CHECK(fabs(out[0] - 3.67875) < 1e-9 && fabs(out[1] - 6.13125) < 1e-9);
  CHECK(fabs(out[2] + 1.839375) < 1e-9 && fabs(out[3] + 3.065625) < 1e-9);

  fill_int(sets, 8, ISENTINEL);
  EXPECT_HANDLE(h, cts_baraff_solver_get_row_sets(h, sets, MB + 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_baraff_solver_get_row_sets(h, sets, MB - 1), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_baraff_solver_get_row_sets(h, NULL, MB), CTS_STATUS_NULL_POINTER);
  CHECK(untouched_int(sets, 8));
  OK(cts_baraff_solver_get_row_sets(h, sets, MB));
  CHECK(sets[0] == CTS_BARAFF_SET_CLAMPED && sets[1] == CTS_BARAFF_SET_CLAMPED &&
        sets[2] == CTS_BARAFF_SET_AT_LOWER && sets[3] == CTS_BARAFF_SET_AT_LOWER && untouched_int(sets + MB, 4));

  /* The composed matrix: ld below m, NULL; padding rows untouched. */
  fill(out, 16, SENTINEL);
  EXPECT_HANDLE(h, cts_baraff_solver_get_composed_matrix(h, out, MB - 1), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_baraff_solver_get_composed_matrix(h, NULL, MB), CTS_STATUS_NULL_POINTER);
  CHECK(untouched(out, 16));
  OK(cts_baraff_solver_get_composed_matrix(h, out, MB)); /* 4x4 = 16 doubles */
  CHECK(fabs(out[0] - 3.4) < 1e-12 && fabs(out[1] + 1.4) < 1e-12);

  EXPECT_HANDLE(h, cts_baraff_solver_get_stats(h, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_baraff_solver_get_stats(h, &stats));
  CHECK(stats.status == CTS_STATUS_OK && stats.row == -1 && stats.pivots == 4 && stats.iterations == 0 &&
        stats.worst_violation <= 1e-8);

  /* Model-only getters after a matrix solve. */
  OK(set_particle(h, &q));
  OK(cts_baraff_solver_solve(h));
  fill(out, 16, SENTINEL);
  EXPECT_HANDLE(h, cts_baraff_solver_get_generalized_result(h, out, 0), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_baraff_solver_get_generalized_change(h, out, 0), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_baraff_solver_get_sliding_friction_forces(h, out, M1), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_baraff_solver_get_composed_b(h, out, M1), CTS_STATUS_NO_SOLUTION);
  EXPECT_HANDLE(h, cts_baraff_solver_get_composed_matrix(h, out, M1), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, 16));
  /* Padding rows of the composed matrix are not written: m = 2 (B3a) with ld 3. */
  OK(cts_baraff_solver_set_model_problem_data(h, 2, NB, p.M, LDM, p.J, LDJ, 0, p.tau, p.kind, NULL, NULL, NULL, NULL));
  OK(cts_baraff_solver_solve(h));
  fill(out, 16, SENTINEL);
  OK(cts_baraff_solver_get_composed_matrix(h, out, 3));
  CHECK(fabs(out[0] - 3.4) < 1e-12 && fabs(out[1] + 1.4) < 1e-12 && out[2] == SENTINEL);
  CHECK(fabs(out[3] + 1.4) < 1e-12 && fabs(out[4] - 3.4) < 1e-12 && untouched(out + 5, 11));

  /* A failed set call keeps the previous data and results. */
  EXPECT_HANDLE(h, cts_baraff_solver_set_matrix_problem_data(h, M1, NULL, LDA, q.b, q.kind, q.normal, q.mu, NULL, NULL), CTS_STATUS_NULL_POINTER);
  OK(cts_baraff_solver_get_forces(h, out, 2));
  CHECK(fabs(out[0] - 4.905) < 1e-9 && fabs(out[1] - 4.905) < 1e-9);
  /* A successful add-on setter drops the results. */
  OK(cts_baraff_solver_set_model_bias(h, p.C, 2));
  EXPECT_HANDLE(h, cts_baraff_solver_get_forces(h, out, 2), CTS_STATUS_NO_SOLUTION);
  cts_baraff_solver_free(h);
}

/* Baraff outcomes are statuses 21..39 with a message, and the results stay readable. */
static void test_outcomes(void) {
  cts_baraff_solver *h = NULL;
  const double th = 3.14159265358979323846 / 6.0;
  const double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1.0 / 12.0};
  const double J[3] = {0.0, 1.0, -0.5 * cos(th)};
  /* Sliding left: Q = -(tangent row (1, 0, 0.5 sin th)). */
  const double Q[3] = {-1.0, 0.0, -0.5 * sin(th)};
  const double mu_d[1] = {3.0}, tau[3] = {0.0, -9.81, 0.0};
  const int32_t kind[1] = {CTS_BARAFF_ROW_NORMAL};
  double f[1] = {SENTINEL}, A[1];
  int32_t sets[1];
  cts_baraff_stats stats;
  cts_baraff_parameters params;
  box p;
  OK(cts_baraff_solver_new(&h));
  OK(cts_baraff_solver_set_model_problem_data(h, 1, 3, M, 3, J, 1, CTS_BARAFF_LEVEL_ACCELERATION, tau, kind, NULL, NULL, NULL, NULL));
  OK(cts_baraff_solver_set_model_sliding(h, Q, 1, mu_d, 1));
  EXPECT_HANDLE(h, cts_baraff_solver_solve(h), CTS_STATUS_BARAFF_UNBOUNDED_RAY);
  CHECK(strstr(cts_baraff_solver_last_error(h), "unbounded ray while driving row 0") != NULL);
  OK(cts_baraff_solver_get_forces(h, f, 1));
  CHECK(f[0] == 0.0);
  OK(cts_baraff_solver_get_composed_matrix(h, A, 1));
  CHECK(fabs(A[0] + 0.647114) < 1e-6);
  OK(cts_baraff_solver_get_row_sets(h, sets, 1));
  CHECK(sets[0] == CTS_BARAFF_SET_UNTREATED);
  OK(cts_baraff_solver_get_stats(h, &stats));
  CHECK(stats.status == CTS_STATUS_BARAFF_UNBOUNDED_RAY && stats.row == 0);

  /* Pivot limit (B3c needs 4 pivots) and impulse iteration limit (B6 needs 2 iterations). */
  make_box(&p, 0.0);
  cts_baraff_parameters_default(&params);
  params.max_pivots = 1;
  params.max_impulse_iterations = 1;
  OK(cts_baraff_solver_set_parameters(h, &params));
  OK(set_box(h, &p, CTS_BARAFF_LEVEL_ACCELERATION));
  EXPECT_HANDLE(h, cts_baraff_solver_solve(h), CTS_STATUS_BARAFF_PIVOT_LIMIT);
  OK(cts_baraff_solver_get_stats(h, &stats));
  CHECK(stats.status == CTS_STATUS_BARAFF_PIVOT_LIMIT && stats.row == -1);
  OK(cts_baraff_solver_set_model_problem_data(h, 2, NB, p.M, LDM, p.J, LDJ, CTS_BARAFF_LEVEL_VELOCITY, p.qdot, p.kind, NULL, NULL, NULL, NULL));
  EXPECT_HANDLE(h, cts_baraff_solver_compute_impulses(h), CTS_STATUS_BARAFF_ITERATION_LIMIT);
  OK(cts_baraff_solver_get_stats(h, &stats));
  CHECK(stats.status == CTS_STATUS_BARAFF_ITERATION_LIMIT && stats.iterations == 1);
  EXPECT_HANDLE(h, cts_baraff_solver_get_forces(h, f, 1), CTS_STATUS_DIMENSION_MISMATCH); /* m = 2 */
  cts_baraff_solver_free(h);
}

/* NaN in the padding rows between rows and ld changes nothing (matrix and model data). */
static void test_padding_is_never_read(void) {
  cts_baraff_solver *a = NULL, *b = NULL;
  particle pc, pd;
  box bc, bd;
  double fa[MB], fb[MB], ga[NB], gb[NB];
  size_t i;
  make_particle(&pc, 0.0);
  make_particle(&pd, NAN);
  make_box(&bc, 0.0);
  make_box(&bd, NAN);
  bc.mu_d[0] = bd.mu_d[0] = 0.2;
  bc.Q[0] = bd.Q[0] = 1.0; /* row 0 slides along +x */
  OK(cts_baraff_solver_new(&a));
  OK(cts_baraff_solver_new(&b));
  OK(set_particle(a, &pc));
  OK(set_particle(b, &pd));
  OK(cts_baraff_solver_solve(a));
  OK(cts_baraff_solver_solve(b));
  OK(cts_baraff_solver_get_forces(a, fa, M1));
  OK(cts_baraff_solver_get_forces(b, fb, M1));
  for (i = 0; i < M1; ++i) CHECK(fa[i] == fb[i]);
  CHECK(fabs(fa[0] - 9.81) < 1e-9 && fabs(fa[1] + 4.905) < 1e-9);

  OK(set_box(a, &bc, CTS_BARAFF_LEVEL_ACCELERATION));
  OK(set_box(b, &bd, CTS_BARAFF_LEVEL_ACCELERATION));
  OK(cts_baraff_solver_set_model_sliding(a, bc.Q, LDJ, bc.mu_d, MB));
  OK(cts_baraff_solver_set_model_sliding(b, bd.Q, LDJ, bd.mu_d, MB));
  OK(cts_baraff_solver_solve(a));
  OK(cts_baraff_solver_solve(b));
  OK(cts_baraff_solver_get_forces(a, fa, MB));
  OK(cts_baraff_solver_get_forces(b, fb, MB));
  OK(cts_baraff_solver_get_generalized_result(a, ga, NB));
  OK(cts_baraff_solver_get_generalized_result(b, gb, NB));
  for (i = 0; i < MB; ++i) CHECK(fa[i] == fb[i] && fa[i] == fa[i]);
  for (i = 0; i < NB; ++i) CHECK(ga[i] == gb[i] && ga[i] == ga[i]);
  cts_baraff_solver_free(a);
  cts_baraff_solver_free(b);
}

/* Clone carries parameters but no data; the original is unaffected. */
static void test_clone(void) {
  cts_baraff_solver *h = NULL, *copy = NULL;
  particle p;
  cts_baraff_parameters params, got;
  double f[M1];
  make_particle(&p, 0.0);
  OK(cts_baraff_solver_new(&h));
  cts_baraff_parameters_default(&params);
  params.tolerance = 1e-6;
  OK(cts_baraff_solver_set_parameters(h, &params));
  OK(set_particle(h, &p));
  OK(cts_baraff_solver_solve(h));
  OK(cts_baraff_solver_clone(h, &copy));
  OK(cts_baraff_solver_get_parameters(copy, &got));
  CHECK(got.tolerance == 1e-6);
  CHECK(cts_baraff_solver_num_rows(copy) == 0);
  EXPECT_HANDLE(copy, cts_baraff_solver_solve(copy), CTS_STATUS_NO_PROBLEM_DATA);
  EXPECT_HANDLE(copy, cts_baraff_solver_get_forces(copy, f, M1), CTS_STATUS_NO_SOLUTION);
  OK(cts_baraff_solver_get_forces(h, f, M1));
  CHECK(fabs(f[1] + 4.905) < 1e-9);
  cts_baraff_solver_free(copy);
  cts_baraff_solver_free(h);
}

int main(void) {
  test_common();
  test_constructors();
  test_null_handles();
  test_parameters();
  test_matrix_data();
  test_model_data();
  test_getters();
  test_outcomes();
  test_padding_is_never_read();
  test_clone();
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
