/* Allocation failure is a status, never an abort (issue 13; docs/c_api.md, "Never crash the
 * host"). The caller passes honest, allocated inputs whose sizes make the library's workspace
 * larger than the memory available: each call must return CTS_STATUS_ALLOCATION_FAILED (or
 * CTS_STATUS_INVALID_ARGUMENT for a size that cannot exist) with a message naming the size, and
 * the process and the handle must live on (a small problem solves afterwards).
 *
 * Memory is capped so that these requests fail fast and deterministically:
 *   * plain and valgrind builds: setrlimit(RLIMIT_AS) to the current address-space size plus
 *     HEADROOM_MB (the caller's arrays fit, the workspaces do not);
 *   * AddressSanitizer builds (RLIMIT_AS breaks ASan's shadow memory): the harness runs the
 *     program with ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=128, which
 *     refuses every single allocation above 128 MB.
 * Prints one line per failed check and "<n> checks, <m> failed" last; exits 1 if any failed. */

#include <stdlib.h>
#include <sys/resource.h>

#include "contract_support.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

enum { HEADROOM_MB = 320 };

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

static const char *global_error(const void *unused) {
  (void)unused;
  return cts_last_error_message();
}

/* Address-space size of this process now, in bytes (VmSize of /proc/self/status). */
static unsigned long long vm_size(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long kb = 0;
  if (f == NULL) return 0;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "VmSize: %llu kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024ULL;
}

static void cap_memory(void) {
  if (!UNDER_ASAN) {
    struct rlimit r;
    const unsigned long long cap = vm_size() + (unsigned long long)HEADROOM_MB * 1024 * 1024;
    r.rlim_cur = r.rlim_max = (rlim_t)cap;
    CHECK(vm_size() > 0 && setrlimit(RLIMIT_AS, &r) == 0);
  }
}

static double *zeros(size_t n) {
  double *x = (double *)calloc(n > 0 ? n : 1, sizeof(double));
  if (x == NULL) {
    printf("FAILED: the test's own allocation of %lu doubles failed\n", (unsigned long)n);
    exit(1);
  }
  return x;
}

/* TAMSI: nv = 1 and 1 Mi contacts (40 MB of caller data, a per-contact workspace of about
 * 70 doubles each); the case was nc = 2^36 with `solve_with_guess` and `calc_jacobian`.
 * Also a constructor whose 4·nv² workspace is 128 GiB. */
static void test_tamsi(void) {
  const size_t nc = (size_t)1 << 20;
  double *Jn = zeros(nc), *Jt = zeros(2 * nc), *fn = zeros(nc), *mu = zeros(nc);
  const double M[1] = {1.0}, p_star[1] = {1.0}, v[1] = {1.0};
  double J[1], out[1];
  cts_tamsi_solver *h = NULL, *big = NULL;
  size_t i;
  for (i = 0; i < nc; ++i) {
    Jn[i] = 1.0;
    Jt[2 * i] = 1.0;
    fn[i] = 1.0;
    mu[i] = 0.5;
  }
  EXPECT_MSG(global_error, NULL, cts_tamsi_solver_new((size_t)1 << 16, &big), CTS_STATUS_ALLOCATION_FAILED,
             "cts_tamsi_solver_new: nv = 65536: the workspace of 4·nv² doubles: allocating 17179869184 elements "
             "of 8 bytes (128 GiB) failed");
  CHECK(big == NULL);
  OK(cts_tamsi_solver_new(1, &h));
  /* Sizes before data (docs/c_api.md §1.11): the set call probes the solve's workspace from nv and
   * nc before it reads an array, and refuses; the handle keeps having no data. */
  EXPECT_MSG(cts_tamsi_solver_last_error, h,
             cts_tamsi_solver_set_one_way_coupled_problem_data(h, nc, M, 1, Jn, nc, Jt, 2 * nc, p_star, fn, mu),
             CTS_STATUS_ALLOCATION_FAILED,
             "cts_tamsi_solver_set_one_way_coupled_problem_data: nv = 1, nc = 1048576: the solve's workspace");
  CHECK(strstr(cts_tamsi_solver_last_error(h), "failed") != NULL);
  EXPECT_MSG(cts_tamsi_solver_last_error, h, cts_tamsi_solver_solve_with_guess(h, 1e-3, v, 1),
             CTS_STATUS_NO_PROBLEM_DATA, "cts_tamsi_solver_solve_with_guess: no problem data");
  EXPECT_MSG(cts_tamsi_solver_last_error, h, cts_tamsi_solver_calc_jacobian(h, 1e-3, v, 1, J, 1),
             CTS_STATUS_NO_PROBLEM_DATA, "cts_tamsi_solver_calc_jacobian: no problem data");
  EXPECT_MSG(cts_tamsi_solver_last_error, h, cts_tamsi_solver_get_generalized_velocities(h, out, 1),
             CTS_STATUS_NO_SOLUTION, "no solution");
  /* The handle lives on: one contact solves. */
  OK(cts_tamsi_solver_set_one_way_coupled_problem_data(h, 1, M, 1, Jn, 1, Jt, 2, p_star, fn, mu));
  OK(cts_tamsi_solver_solve_with_guess(h, 1e-3, v, 1));
  OK(cts_tamsi_solver_get_generalized_velocities(h, out, 1));
  /* M v = p* + dt·fn (along Jn) − dt·μ·fn (sliding friction along Jt's first row). */
  CHECK(fabs(out[0] - (1.0 + 1e-3 - 1e-3 * 0.5)) < 1e-12);
  cts_tamsi_solver_free(h);
  free(Jn);
  free(Jt);
  free(fn);
  free(mu);
}

/* The block-sparse setters and a solve of their data: one 1-dof tree touched by 2^22 contacts
 * (honest arrays: 192 MB of contact trees, J blocks, fn and mu); the solve's per-contact
 * workspace does not fit. */
static void test_tamsi_blocks(void) {
  const size_t nc = (size_t)1 << 22;
  const int32_t dofs[1] = {1};
  int32_t *trees = (int32_t *)calloc(2 * nc, sizeof(int32_t));
  double *J = zeros(3 * nc), *fn = zeros(nc), *mu = zeros(nc);
  const double M[1] = {1.0}, p_star[1] = {1.0}, v[1] = {1.0};
  double out[1];
  cts_block_sparse_data d;
  cts_tamsi_solver *h = NULL;
  size_t i;
  CHECK(trees != NULL);
  if (trees == NULL) return;
  for (i = 0; i < nc; ++i) {
    trees[2 * i] = 0;
    trees[2 * i + 1] = -1;
    J[3 * i] = 1.0;     /* normal */
    J[3 * i + 1] = 1.0; /* tangent 1 */
    fn[i] = 1.0;
    mu[i] = 0.5;
  }
  memset(&d, 0, sizeof d);
  d.num_trees = 1;
  d.tree_dofs = dofs;
  d.M_len = 1;
  d.M = M;
  d.num_contacts = nc;
  d.contact_trees = trees;
  d.J_len = 3 * nc;
  d.J = J;
  OK(cts_tamsi_solver_new(1, &h));
  /* Refused by the set call from the sizes alone (§1.11), before the structure is read. */
  EXPECT_MSG(cts_tamsi_solver_last_error, h, cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &d, p_star, fn, mu),
             CTS_STATUS_ALLOCATION_FAILED,
             "cts_tamsi_solver_set_one_way_coupled_block_problem_data: nv = 1, nc = 4194304: the solve's workspace");
  CHECK(strstr(cts_tamsi_solver_last_error(h), "failed") != NULL);
  EXPECT_MSG(cts_tamsi_solver_last_error, h, cts_tamsi_solver_solve_with_guess(h, 1e-3, v, 1),
             CTS_STATUS_NO_PROBLEM_DATA, "cts_tamsi_solver_solve_with_guess: no problem data");
  EXPECT_MSG(cts_tamsi_solver_last_error, h, cts_tamsi_solver_get_generalized_velocities(h, out, 1),
             CTS_STATUS_NO_SOLUTION, "no solution");
  /* The handle lives on: one contact solves, as in the dense case. */
  d.num_contacts = 1;
  d.J_len = 3;
  OK(cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &d, p_star, fn, mu));
  OK(cts_tamsi_solver_solve_with_guess(h, 1e-3, v, 1));
  OK(cts_tamsi_solver_get_generalized_velocities(h, out, 1));
  CHECK(fabs(out[0] - (1.0 + 1e-3 - 1e-3 * 0.5)) < 1e-12);
  cts_tamsi_solver_free(h);
  free(trees);
  free(J);
  free(fn);
  free(mu);
}

/* Rigid: (a) nv = 2^20, nb = 1 (the workspace holds an nv×nv factorization: 8 TiB); (b) nv = 0
 * and 2^22 bilateral constraints (the Delassus matrix is nb² doubles). The set call refuses both
 * from their sizes, before reading the data (issue 24; the solves used to be the first to check),
 * and keeps no data. */
static void test_rigid(void) {
  const size_t nv = (size_t)1 << 20, nb = (size_t)1 << 22;
  double *Mv = zeros(nv), *kG = zeros(nb), out[1];
  const double kG1[1] = {0.0}, cf[1] = {1.0}, M1[1] = {1.0}, Mv1[1] = {1.0};
  cts_rigid_solver *h = NULL;
  OK(cts_rigid_solver_new(&h));
  EXPECT_MSG(cts_rigid_solver_last_error, h,
             cts_rigid_solver_set_vel_problem_data(h, nv, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL,
                                                   1, kG1, Mv),
             CTS_STATUS_ALLOCATION_FAILED,
             "cts_rigid_solver_set_vel_problem_data: the workspace of nv = 1048576, nc = 0, nr = 0, nu = 0, nb = 1");
  EXPECT_MSG(cts_rigid_solver_last_error, h,
             cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses(h, cf, 1, out, 1),
             CTS_STATUS_NO_PROBLEM_DATA, "cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses");
  EXPECT_MSG(cts_rigid_solver_last_error, h,
             cts_rigid_solver_set_vel_problem_data(h, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL,
                                                   nb, kG, NULL),
             CTS_STATUS_ALLOCATION_FAILED,
             "cts_rigid_solver_set_vel_problem_data: the workspace of nv = 0, nc = 0, nr = 0, nu = 0, nb = 4194304");
  CHECK(strstr(cts_rigid_solver_last_error(h), "failed") != NULL);
  /* The handle lives on. */
  OK(cts_rigid_solver_set_vel_problem_data(h, 1, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL,
                                           Mv1));
  OK(cts_rigid_solver_set_vel_inertia_matrix(h, CTS_RIGID_INERTIA_MATRIX, M1, 1));
  OK(cts_rigid_solver_solve_impact_problem(h));
  OK(cts_rigid_solver_compute_generalized_velocity_change(h, NULL, 0, out, 1));
  CHECK(out[0] == 0.0);
  cts_rigid_solver_free(h);
  free(Mv);
  free(kG);
}

/* Baraff: m = 2^22 rows of a model problem with n = 0 (16 MB of kind codes): the workspace is
 * checked before the rows are decoded (they used to be decoded first: m = 2^27 aborted under a
 * memory cap). */
static void test_baraff(void) {
  const size_t m = (size_t)1 << 22;
  int32_t *kind = (int32_t *)calloc(m, sizeof(int32_t));
  cts_baraff_solver *h = NULL;
  const double A[1] = {1.0}, b[1] = {-1.0};
  const int32_t normal_kind[1] = {CTS_BARAFF_ROW_NORMAL};
  double f[1];
  size_t i;
  CHECK(kind != NULL);
  for (i = 0; i < m; ++i) kind[i] = CTS_BARAFF_ROW_NORMAL;
  OK(cts_baraff_solver_new(&h));
  EXPECT_MSG(cts_baraff_solver_last_error, h,
             cts_baraff_solver_set_model_problem_data(h, m, 0, NULL, 1, NULL, m, CTS_BARAFF_LEVEL_ACCELERATION, NULL,
                                                      kind, NULL, NULL, NULL, NULL),
             CTS_STATUS_ALLOCATION_FAILED, "cts_baraff_solver_set_model_problem_data: m = 4194304 rows, n = 0");
  EXPECT_MSG(cts_baraff_solver_last_error, h, cts_baraff_solver_reserve(h, m, 0), CTS_STATUS_ALLOCATION_FAILED,
             "cts_baraff_solver_reserve: m = 4194304 rows");
  CHECK(cts_baraff_solver_num_rows(h) == 0);
  OK(cts_baraff_solver_set_matrix_problem_data(h, 1, A, 1, b, normal_kind, NULL, NULL, NULL, NULL));
  OK(cts_baraff_solver_solve(h));
  OK(cts_baraff_solver_get_forces(h, f, 1));
  CHECK(fabs(f[0] - 1.0) < 1e-12);
  cts_baraff_solver_free(h);
  free(kind);
}

/* Interior point: n = 1 and 1 Mi contacts (about 44 MB of caller data); the solve's workspace is
 * probed before the model codes are copied. */
static void test_ipm(void) {
  const size_t nc = (size_t)1 << 20;
  double *Jn = zeros(nc), *Jt = zeros(2 * nc), *phi = zeros(nc), *mu = zeros(nc);
  int32_t *models = (int32_t *)calloc(nc, sizeof(int32_t));
  const double M[1] = {1.0}, v0[1] = {0.0}, tau[1] = {-9.81};
  double v[1];
  cts_ipm_solver *h = NULL;
  CHECK(models != NULL);
  OK(cts_ipm_solver_new(&h));
  EXPECT_MSG(cts_ipm_solver_last_error, h,
             cts_ipm_solver_set_problem_data(h, 1, nc, M, 1, Jn, nc, Jt, 2 * nc, v0, tau, 0.01, phi, mu, models, NULL,
                                             0),
             CTS_STATUS_ALLOCATION_FAILED, "cts_ipm_solver_set_problem_data: n = 1, nc = 1048576");
  CHECK(cts_ipm_solver_num_contacts(h) == 0);
  OK(cts_ipm_solver_set_problem_data(h, 1, 0, M, 1, NULL, 1, NULL, 1, v0, tau, 0.01, NULL, NULL, NULL, NULL, 0));
  OK(cts_ipm_solver_solve(h));
  OK(cts_ipm_solver_get_generalized_velocities(h, v, 1));
  CHECK(fabs(v[0] + 0.0981) < 1e-9); /* v0 + h·τ/M, up to the Newton matrix's regularization */
  cts_ipm_solver_free(h);
  free(Jn);
  free(Jt);
  free(phi);
  free(mu);
  free(models);
}

int main(void) {
  cap_memory();
  test_tamsi();
  test_tamsi_blocks();
  test_rigid();
  test_baraff();
  test_ipm();
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
