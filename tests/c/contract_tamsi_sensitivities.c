/* The C ABI contract of TAMSI's sensitivities (cts_tamsi_solver_compute_sensitivities, the three
 * sensitivity getters, cts_tamsi_solver_vjp, cts_tamsi_solver_coupling_scheme;
 * docs/tamsi_sensitivities.md §6), checked from C: every misuse (NULL handle or pointer, no data,
 * no solve, a solve that did not converge, unknown or other-scheme parameter codes, wrong column
 * counts, leading dimensions and sizes, non-finite gradients, one-way stiffness outputs) returns
 * its status with a message and writes nothing; good calls write exactly their matrix (padding
 * rows untouched), the product equals gᵀ·(full Jacobian) to round-off, and new data drops the
 * sensitivities. Prints one line per failed check; exits 1 if any failed. */

#include "contract_support.h"

#define EXPECT_HANDLE(h, call, want) EXPECT_ON(cts_tamsi_solver_last_error, h, call, want)

/* Two point masses of 2 kg (v = x, y, z of each) on the ground, two-way: mass 0 slides at
 * 0.5 m/s along x, mass 1 at 2 mm/s. Contact i: normal z, tangents x and y of mass i. */
enum { NV = 6, NC = 2, PAD = 2 };
static const double DT = 1e-3;

typedef struct {
  double M[NV * NV], Jn[NC * NV], Jt[2 * NC * NV], p_star[NV], v0[NV], fn0[NC], k[NC], d[NC], mu[NC];
} problem;

static void make_problem(problem *p) {
  int i, c;
  memset(p, 0, sizeof *p);
  for (i = 0; i < NV; ++i) p->M[i * NV + i] = 2.0;
  for (c = 0; c < NC; ++c) {
    p->Jn[(3 * c + 2) * NC + c] = 1.0;
    p->Jt[(3 * c + 0) * 2 * NC + 2 * c] = 1.0;
    p->Jt[(3 * c + 1) * 2 * NC + 2 * c + 1] = 1.0;
    p->fn0[c] = 2.0 * 9.81;
    p->k[c] = 1e4;
    p->d[c] = 1.0;
  }
  p->mu[0] = 0.5;
  p->mu[1] = 0.8;
  p->v0[0] = 0.5;
  p->v0[3] = 2e-3;
  for (i = 0; i < NV; ++i) p->p_star[i] = 2.0 * p->v0[i] - (i % 3 == 2 ? 2.0 * 9.81 * DT : 0.0);
}

static cts_status set_two_way(cts_tamsi_solver *h, const problem *p) {
  return cts_tamsi_solver_set_two_way_coupled_problem_data(h, NC, p->M, NV, p->Jn, NC, p->Jt, 2 * NC, p->p_star,
                                                           p->fn0, p->k, p->d, p->mu);
}

static cts_status vjp_all(cts_tamsi_solver *h, const double *g, size_t nv, size_t nc, double *out) {
  /* out: p* (NV), normal (NC), k (NC), d (NC), mu (NC), dt (1). */
  return cts_tamsi_solver_vjp(h, g, nv, NULL, NULL, nc, out, out + NV, out + NV + NC, out + NV + 2 * NC,
                              out + NV + 3 * NC, out + NV + 4 * NC);
}

int main(void) {
  problem p;
  cts_tamsi_solver *h = NULL, *one = NULL, *short_run = NULL;
  cts_tamsi_parameters params;
  double jac[(NV + PAD) * NV], mu_cols[(NV + PAD) * NC], out[NV + 4 * NC + 1], g[NV];
  size_t i, j;
  make_problem(&p);
  for (i = 0; i < NV; ++i) g[i] = 1.0 + 0.25 * (double)i;

  /* No handle, no data, no solve. */
  EXPECT_GLOBAL(cts_tamsi_solver_compute_sensitivities(NULL), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_get_velocity_sensitivity(NULL, CTS_TAMSI_SENSITIVITY_MU, jac, NV, NC),
                CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(vjp_all(NULL, g, NV, NC, out), CTS_STATUS_NULL_POINTER);
  CHECK(cts_tamsi_solver_coupling_scheme(NULL) == CTS_TAMSI_COUPLING_NONE);
  OK(cts_tamsi_solver_new(NV, &h));
  cts_tamsi_parameters_default(&params);
  params.stiction_tolerance = 1e-3;
  params.relative_tolerance = 1e-8;
  params.max_iterations = 200;
  OK(cts_tamsi_solver_set_parameters(h, &params));
  CHECK(cts_tamsi_solver_coupling_scheme(h) == CTS_TAMSI_COUPLING_NONE);
  EXPECT_HANDLE(h, cts_tamsi_solver_compute_sensitivities(h), CTS_STATUS_NO_PROBLEM_DATA);
  OK(set_two_way(h, &p));
  CHECK(cts_tamsi_solver_coupling_scheme(h) == CTS_TAMSI_COUPLING_TWO_WAY);
  EXPECT_HANDLE(h, cts_tamsi_solver_compute_sensitivities(h), CTS_STATUS_NO_SOLUTION);
  fill(out, NV + 4 * NC + 1, SENTINEL);
  EXPECT_HANDLE(h, vjp_all(h, g, NV, NC, out), CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(out, NV + 4 * NC + 1));

  /* Converged; getters before compute_sensitivities. */
  OK(cts_tamsi_solver_solve_with_guess(h, DT, p.v0, NV));
  fill(jac, (NV + PAD) * NV, SENTINEL);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_velocity_sensitivity(h, CTS_TAMSI_SENSITIVITY_P_STAR, jac, NV + PAD, NV),
                CTS_STATUS_NO_SOLUTION);
  CHECK(untouched(jac, (NV + PAD) * NV));
  OK(cts_tamsi_solver_compute_sensitivities(h));

  /* Good getters: exactly the matrix, padding rows untouched. */
  fill(jac, (NV + PAD) * NV, SENTINEL);
  OK(cts_tamsi_solver_get_velocity_sensitivity(h, CTS_TAMSI_SENSITIVITY_P_STAR, jac, NV + PAD, NV));
  for (j = 0; j < NV; ++j) {
    for (i = 0; i < NV; ++i) CHECK(isfinite(jac[j * (NV + PAD) + i]));
    CHECK(untouched(jac + j * (NV + PAD) + NV, PAD));
  }
  /* dv_z/dp*_z of a mass in contact: below 1/m = 0.5 (the contact stiffens it), above 0. */
  CHECK(jac[2 * (NV + PAD) + 2] > 0.0 && jac[2 * (NV + PAD) + 2] < 0.5);
  fill(mu_cols, (NV + PAD) * NC, SENTINEL);
  OK(cts_tamsi_solver_get_velocity_sensitivity(h, CTS_TAMSI_SENSITIVITY_MU, mu_cols, NV + PAD, NC));
  CHECK(mu_cols[0] < 0.0); /* more friction, slower slide */
  {
    double fn_cols[NC * NC], ft_cols[2 * NC], dt_col[NV];
    OK(cts_tamsi_solver_get_normal_force_sensitivity(h, CTS_TAMSI_SENSITIVITY_FN0, fn_cols, NC, NC));
    CHECK(fn_cols[0] > 0.0 && fn_cols[3] > 0.0);
    OK(cts_tamsi_solver_get_friction_force_sensitivity(h, CTS_TAMSI_SENSITIVITY_DT, ft_cols, 2 * NC, 1));
    OK(cts_tamsi_solver_get_velocity_sensitivity(h, CTS_TAMSI_SENSITIVITY_DT, dt_col, NV, 1));
  }

  /* Misused getters write nothing. */
  fill(jac, (NV + PAD) * NV, SENTINEL);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_velocity_sensitivity(h, 7, jac, NV, NV), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_velocity_sensitivity(h, -1, jac, NV, NV), CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_velocity_sensitivity(h, CTS_TAMSI_SENSITIVITY_FN, jac, NV, NC),
                CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_velocity_sensitivity(h, CTS_TAMSI_SENSITIVITY_MU, jac, NV, NC + 1),
                CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_velocity_sensitivity(h, CTS_TAMSI_SENSITIVITY_MU, jac, NV - 1, NC),
                CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_friction_force_sensitivity(h, CTS_TAMSI_SENSITIVITY_MU, jac, NC, NC),
                CTS_STATUS_INVALID_ARGUMENT);
  EXPECT_HANDLE(h, cts_tamsi_solver_get_normal_force_sensitivity(h, CTS_TAMSI_SENSITIVITY_MU, NULL, NC, NC),
                CTS_STATUS_NULL_POINTER);
  CHECK(untouched(jac, (NV + PAD) * NV));

  /* The product: gᵀ·(full Jacobian) to round-off, all parameters at once. */
  fill(out, NV + 4 * NC + 1, SENTINEL);
  OK(vjp_all(h, g, NV, NC, out));
  for (j = 0; j < NC; ++j) {
    double want = 0.0, scale = 0.0;
    for (i = 0; i < NV; ++i) {
      want += g[i] * mu_cols[j * (NV + PAD) + i];
      scale += fabs(g[i] * mu_cols[j * (NV + PAD) + i]);
    }
    CHECK(fabs(out[NV + 3 * NC + j] - want) <= 1e-13 * scale);
  }
  for (i = 0; i < NV + 4 * NC + 1; ++i) CHECK(isfinite(out[i]));

  /* Misused products write nothing. */
  fill(out, NV + 4 * NC + 1, SENTINEL);
  EXPECT_HANDLE(h, vjp_all(h, g, NV + 1, NC, out), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, vjp_all(h, g, NV, NC - 1, out), CTS_STATUS_DIMENSION_MISMATCH);
  EXPECT_HANDLE(h, vjp_all(h, NULL, NV, NC, out), CTS_STATUS_NULL_POINTER);
  g[1] = NAN;
  EXPECT_HANDLE(h, vjp_all(h, g, NV, NC, out), CTS_STATUS_INVALID_ARGUMENT);
  g[1] = 1.25;
  CHECK(untouched(out, NV + 4 * NC + 1));

  /* One-way data: no stiffness or dissipation outputs. */
  OK(cts_tamsi_solver_new(NV, &one));
  OK(cts_tamsi_solver_set_one_way_coupled_problem_data(one, NC, p.M, NV, p.Jn, NC, p.Jt, 2 * NC, p.p_star, p.fn0,
                                                       p.mu));
  CHECK(cts_tamsi_solver_coupling_scheme(one) == CTS_TAMSI_COUPLING_ONE_WAY);
  OK(cts_tamsi_solver_solve_with_guess(one, DT, p.v0, NV));
  fill(out, NV + 4 * NC + 1, SENTINEL);
  EXPECT_HANDLE(one, vjp_all(one, g, NV, NC, out), CTS_STATUS_INVALID_ARGUMENT);
  CHECK(untouched(out, NV + 4 * NC + 1));
  OK(cts_tamsi_solver_vjp(one, g, NV, NULL, NULL, NC, out, out + NV, NULL, NULL, out + NV + 3 * NC, NULL));
  OK(cts_tamsi_solver_compute_sensitivities(one));
  EXPECT_HANDLE(one, cts_tamsi_solver_get_velocity_sensitivity(one, CTS_TAMSI_SENSITIVITY_STIFFNESS, jac, NV, NC),
                CTS_STATUS_INVALID_ARGUMENT);

  /* A solve that ran out of iterations has no sensitivities (107). */
  OK(cts_tamsi_solver_new(NV, &short_run));
  params.max_iterations = 1;
  OK(cts_tamsi_solver_set_parameters(short_run, &params));
  OK(set_two_way(short_run, &p));
  CHECK(cts_tamsi_solver_solve_with_guess(short_run, DT, p.v0, NV) == CTS_STATUS_MAX_ITERATIONS_REACHED);
  EXPECT_HANDLE(short_run, cts_tamsi_solver_compute_sensitivities(short_run), CTS_STATUS_NO_SENSITIVITIES);
  fill(out, NV + 4 * NC + 1, SENTINEL);
  EXPECT_HANDLE(short_run, vjp_all(short_run, g, NV, NC, out), CTS_STATUS_NO_SENSITIVITIES);
  CHECK(untouched(out, NV + 4 * NC + 1));
  CHECK(strcmp(cts_status_string(CTS_STATUS_NO_SENSITIVITIES), "no sensitivities (the solve did not converge)") == 0);

  /* New data drops the sensitivities. */
  OK(set_two_way(h, &p));
  EXPECT_HANDLE(h, cts_tamsi_solver_get_velocity_sensitivity(h, CTS_TAMSI_SENSITIVITY_MU, jac, NV, NC),
                CTS_STATUS_NO_SOLUTION);

  cts_tamsi_solver_free(h);
  cts_tamsi_solver_free(one);
  cts_tamsi_solver_free(short_run);
  cts_tamsi_solver_free(NULL);
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
