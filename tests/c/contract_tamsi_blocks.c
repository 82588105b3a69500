/* The C ABI contract of TAMSI's block-sparse setters (cts_tamsi_solver_set_one_way/two_way_
 * coupled_block_problem_data with cts_block_sparse_data; docs/block_sparse.md §1), checked from
 * C: NULL pointers, wrong lengths, tree dofs not adding up to nv, bad tree indices, a contact
 * listing a tree twice or touching none, non-finite and negative values. Each misuse returns its
 * status with a message naming the argument, the entry and the value, and loses nothing: the data
 * set before it still solves to the same bits and the results of the last solve stay readable.
 * Good data solves as the same problem given densely does (to round-off). Prints one line per
 * failed check; exits 1 if any failed. */

#include "contract_support.h"

#define EXPECT_HANDLE(h, call, want) EXPECT_ON(cts_tamsi_solver_last_error, h, call, want)
/* The last message on h contains `text`. */
#define MESSAGE_HAS(h, text)                                                               \
  do {                                                                                     \
    ++checks;                                                                              \
    if (strstr(cts_tamsi_solver_last_error(h), (text)) == NULL) {                         \
      ++failures;                                                                          \
      printf("FAILED %s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__,           \
             cts_tamsi_solver_last_error(h), (text));                                      \
    }                                                                                      \
  } while (0)

/* Two free boxes (0.2 m, 1 kg: 6 dofs each, M = diag(1, 1, 1, I, I, I), I = 0.2²/6 kg·m²) and a
 * 1-dof tree without contact. Box 0 slides at 0.5 m/s on the ground (contact 0: tree 0 and the
 * static world), box 1 rests on box 0 (contact 1: trees 1 and 0, listed in that order), gravity
 * 9.81 m/s², dt = 1 ms, k = 9810 N/m, d = 10.0964 s/m, fn0 = the weight each contact carries. */
enum { NTREE = 3, NV = 13, NC = 2, M_LEN = 36 + 36 + 1, J_LEN = 3 * (6 + 6 + 6) };
static const double DT = 1e-3;

typedef struct {
  int32_t tree_dofs[NTREE], contact_trees[2 * NC];
  double M[M_LEN], J[J_LEN];
  double p_star[NV], v0[NV], fn0[NC], k[NC], d[NC], mu[NC];
  double M_dense[NV * NV], Jn[NC * NV], Jt[2 * NC * NV];
  cts_block_sparse_data data;
} problem;

/* The Jacobian block of a box's bottom point (r = (0, 0, -0.1) from its centre) with normal +z and
 * tangents x, y, times `sign`: column-major 3×6, rows normal, t1, t2, columns v, ω. The point's
 * velocity is v + ω × r: (ω × r)_x = -0.1 ω_y, (ω × r)_y = 0.1 ω_x. */
static void box_block(double *block, double sign) {
  int c;
  for (c = 0; c < 18; ++c) block[c] = 0.0;
  block[3 * 2 + 0] = sign;        /* normal <- vz */
  block[3 * 0 + 1] = sign;        /* t1 <- vx */
  block[3 * 1 + 2] = sign;        /* t2 <- vy */
  block[3 * 4 + 1] = -0.1 * sign; /* t1 <- ω_y */
  block[3 * 3 + 2] = 0.1 * sign;  /* t2 <- ω_x */
}

static void make_problem(problem *p) {
  const double inertia = 0.2 * 0.2 / 6.0;
  int t, r, c, i;
  memset(p, 0, sizeof *p);
  p->tree_dofs[0] = 6;
  p->tree_dofs[1] = 6;
  p->tree_dofs[2] = 1;
  for (t = 0; t < 2; ++t)
    for (c = 0; c < 6; ++c) p->M[36 * t + 7 * c] = c < 3 ? 1.0 : inertia;
  p->M[72] = 2.0;
  /* Contact 0: box 0's bottom on the ground. Contact 1: box 1's bottom minus box 0's top point
   * (r = (0, 0, +0.1): (ω × r)_x = 0.1 ω_y, (ω × r)_y = -0.1 ω_x, negated). */
  p->contact_trees[0] = 0;
  p->contact_trees[1] = -1;
  p->contact_trees[2] = 1;
  p->contact_trees[3] = 0;
  box_block(p->J, 1.0);
  box_block(p->J + 18, 1.0);
  box_block(p->J + 36, -1.0);
  p->J[36 + 3 * 4 + 1] = -0.1;
  p->J[36 + 3 * 3 + 2] = 0.1;
  p->v0[0] = 0.5;
  p->v0[12] = 0.25;
  for (r = 0; r < NV; ++r) p->p_star[r] = (r == 12 ? 2.0 : r % 6 < 3 ? 1.0 : inertia) * p->v0[r];
  p->p_star[2] -= DT * 9.81;
  p->p_star[8] -= DT * 9.81;
  for (i = 0; i < NC; ++i) {
    p->k[i] = 9810.0;
    p->d[i] = 10.096375546923044;
    p->mu[i] = 0.5;
  }
  p->fn0[0] = 2.0 * 9.81;
  p->fn0[1] = 9.81;
  /* The same problem, dense. */
  for (t = 0; t < 2; ++t)
    for (c = 0; c < 6; ++c)
      for (r = 0; r < 6; ++r) p->M_dense[(6 * t + r) + NV * (6 * t + c)] = p->M[36 * t + r + 6 * c];
  p->M_dense[12 + NV * 12] = 2.0;
  {
    const int first[3] = {0, 6, 12};
    const double *block = p->J;
    for (i = 0; i < NC; ++i) {
      int slot;
      for (slot = 0; slot < 2; ++slot) {
        int tree = p->contact_trees[2 * i + slot];
        if (tree < 0) continue;
        for (c = 0; c < p->tree_dofs[tree]; ++c) {
          p->Jn[i + NC * (first[tree] + c)] = block[3 * c + 0];
          p->Jt[2 * i + 2 * NC * (first[tree] + c)] = block[3 * c + 1];
          p->Jt[2 * i + 1 + 2 * NC * (first[tree] + c)] = block[3 * c + 2];
        }
        block += 3 * p->tree_dofs[tree];
      }
    }
  }
  p->data.num_trees = NTREE;
  p->data.tree_dofs = p->tree_dofs;
  p->data.M_len = M_LEN;
  p->data.M = p->M;
  p->data.num_contacts = NC;
  p->data.contact_trees = p->contact_trees;
  p->data.J_len = J_LEN;
  p->data.J = p->J;
}

static cts_status set_two_way(cts_tamsi_solver *h, const problem *p, const cts_block_sparse_data *data) {
  return cts_tamsi_solver_set_two_way_coupled_block_problem_data(h, data, p->p_star, p->fn0, p->k, p->d,
                                                                 p->mu);
}

static int same_bits(const double *a, const double *b, size_t n) {
  return memcmp(a, b, n * sizeof *a) == 0;
}

/* The reference solve: good block data on a fresh handle. */
static void reference(const problem *p, double *v, int32_t *iterations) {
  cts_tamsi_solver *h = NULL;
  cts_tamsi_iteration_stats stats;
  OK(cts_tamsi_solver_new(NV, &h));
  OK(set_two_way(h, p, &p->data));
  OK(cts_tamsi_solver_solve_with_guess(h, DT, p->v0, NV));
  OK(cts_tamsi_solver_get_generalized_velocities(h, v, NV));
  OK(cts_tamsi_solver_get_iteration_stats(h, &stats));
  *iterations = stats.num_iterations;
  cts_tamsi_solver_free(h);
}

/* Block and dense data of the same problem through the C ABI: same outcome and iterations, all
 * outputs within 1e-12 (the physics: box 0 decelerates by friction, the tree without contact keeps
 * its velocity). Getters and calc_jacobian work on block data. */
static void test_block_equals_dense(const problem *p) {
  cts_tamsi_solver *a = NULL, *b = NULL;
  cts_tamsi_iteration_stats sa, sb;
  double va[NV], vb[NV], fa[2 * NC], fb[2 * NC], Ja[NV * NV], Jb[NV * NV];
  int i;
  OK(cts_tamsi_solver_new(NV, &a));
  OK(cts_tamsi_solver_new(NV, &b));
  OK(set_two_way(a, p, &p->data));
  OK(cts_tamsi_solver_set_two_way_coupled_problem_data(b, NC, p->M_dense, NV, p->Jn, NC, p->Jt, 2 * NC, p->p_star,
                                                       p->fn0, p->k, p->d, p->mu));
  CHECK(cts_tamsi_solver_num_contacts(a) == NC);
  OK(cts_tamsi_solver_solve_with_guess(a, DT, p->v0, NV));
  OK(cts_tamsi_solver_solve_with_guess(b, DT, p->v0, NV));
  OK(cts_tamsi_solver_get_iteration_stats(a, &sa));
  OK(cts_tamsi_solver_get_iteration_stats(b, &sb));
  CHECK(sa.num_iterations == sb.num_iterations && sa.num_iterations > 1);
  OK(cts_tamsi_solver_get_generalized_velocities(a, va, NV));
  OK(cts_tamsi_solver_get_generalized_velocities(b, vb, NV));
  for (i = 0; i < NV; ++i) CHECK(fabs(va[i] - vb[i]) <= 1e-12);
  CHECK(va[12] == 0.25);                         /* M_t v_t = p*_t on the tree without contact */
  /* Box 0 slides under both frictions, μ (2g + g) dt = 0.0147 m/s; box 1 is dragged along. */
  CHECK(fabs(va[0] - (0.5 - 0.5 * 3.0 * 9.81 * DT)) < 1e-3 && va[6] > 0.0);
  OK(cts_tamsi_solver_get_friction_forces(a, fa, 2 * NC));
  OK(cts_tamsi_solver_get_friction_forces(b, fb, 2 * NC));
  for (i = 0; i < 2 * NC; ++i) CHECK(fabs(fa[i] - fb[i]) <= 1e-9 * 20.0);
  OK(cts_tamsi_solver_get_normal_forces(a, fa, NC));
  OK(cts_tamsi_solver_get_normal_forces(b, fb, NC));
  for (i = 0; i < NC; ++i) CHECK(fabs(fa[i] - fb[i]) <= 1e-9 * 20.0 && fa[i] > 9.0);
  OK(cts_tamsi_solver_calc_jacobian(a, DT, va, NV, Ja, NV));
  OK(cts_tamsi_solver_calc_jacobian(b, DT, va, NV, Jb, NV));
  for (i = 0; i < NV * NV; ++i) CHECK(fabs(Ja[i] - Jb[i]) <= 1e-9 * (1.0 + fabs(Jb[i])));
  cts_tamsi_solver_free(a);
  cts_tamsi_solver_free(b);
}

/* Misuse after a good set and solve: each failing call returns its status and message, and
 * neither the data nor the results are lost. */
static void test_misuse(const problem *p) {
  cts_tamsi_solver *h = NULL;
  problem bad;
  cts_block_sparse_data d;
  double want_v[NV], v[NV], bad_values[M_LEN];
  int32_t want_iterations, bad_indices[2 * NC];
  cts_tamsi_iteration_stats stats;
  reference(p, want_v, &want_iterations);

  OK(cts_tamsi_solver_new(NV, &h));
  /* Before any data: solve and getters refuse. */
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, DT, p->v0, NV), CTS_STATUS_NO_PROBLEM_DATA);
  OK(set_two_way(h, p, &p->data));
  CHECK(strcmp(cts_tamsi_solver_last_error(h), "") == 0);
  OK(cts_tamsi_solver_solve_with_guess(h, DT, p->v0, NV));

#define STILL_GOOD()                                                               \
  do {                                                                             \
    fill(v, NV, SENTINEL);                                                         \
    OK(cts_tamsi_solver_get_generalized_velocities(h, v, NV));                     \
    CHECK(same_bits(v, want_v, NV));                                               \
    CHECK(cts_tamsi_solver_num_contacts(h) == NC);                                 \
  } while (0)

  /* NULL handle, NULL struct, NULL arrays with nonzero lengths. */
  EXPECT_GLOBAL(set_two_way(NULL, p, &p->data), CTS_STATUS_NULL_POINTER);
  EXPECT_GLOBAL(cts_tamsi_solver_set_one_way_coupled_block_problem_data(NULL, &p->data, p->p_star, p->fn0, p->mu),
                CTS_STATUS_NULL_POINTER);
  EXPECT_HANDLE(h, set_two_way(h, p, NULL), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "cts_tamsi_solver_set_two_way_coupled_block_problem_data: data is NULL");
  d = p->data; d.tree_dofs = NULL;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "data->tree_dofs is NULL");
  d = p->data; d.M = NULL;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "data->M is NULL");
  d = p->data; d.contact_trees = NULL;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "data->contact_trees is NULL");
  d = p->data; d.J = NULL;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "data->J is NULL");
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_block_problem_data(h, &p->data, NULL, p->fn0, p->k, p->d, p->mu), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "p_star is NULL");
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_block_problem_data(h, &p->data, p->p_star, NULL, p->k, p->d, p->mu), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "fn0 is NULL");
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_block_problem_data(h, &p->data, p->p_star, p->fn0, NULL, p->d, p->mu), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "stiffness is NULL");
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_block_problem_data(h, &p->data, p->p_star, p->fn0, p->k, NULL, p->mu), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "dissipation is NULL");
  EXPECT_HANDLE(h, cts_tamsi_solver_set_two_way_coupled_block_problem_data(h, &p->data, p->p_star, p->fn0, p->k, p->d, NULL), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "mu is NULL");
  STILL_GOOD();

  /* Sizes. */
  d = p->data; d.M_len = M_LEN - 1;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_DIMENSION_MISMATCH);
  MESSAGE_HAS(h, "data->M_len = 72, expected 73");
  d = p->data; d.J_len = J_LEN + 1;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_DIMENSION_MISMATCH);
  MESSAGE_HAS(h, "data->J_len = 55, expected 54");
  d = p->data; d.num_trees = 2; d.M_len = 72; /* 12 dofs for a solver with nv = 13 */
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_DIMENSION_MISMATCH);
  MESSAGE_HAS(h, "data->tree_dofs: the 2 trees have 12 dofs in all, expected the solver's nv = 13");
  d = p->data; d.num_contacts = (size_t)-1;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "num_contacts");
  STILL_GOOD();

  /* Structure: tree dofs, tree indices out of range, overlap, no tree. */
  bad = *p;
  bad.tree_dofs[2] = 0;
  bad.data.tree_dofs = bad.tree_dofs;
  EXPECT_HANDLE(h, set_two_way(h, p, &bad.data), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "data->tree_dofs[2] = 0 is outside its domain: expected >= 1");
  bad.tree_dofs[2] = -5;
  EXPECT_HANDLE(h, set_two_way(h, p, &bad.data), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "data->tree_dofs[2] = -5");
  memcpy(bad_indices, p->contact_trees, sizeof bad_indices);
  d = p->data; d.contact_trees = bad_indices;
  bad_indices[2] = 3;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "data->contact_trees[2] = 3 (contact 1, slot 0) is outside its domain");
  MESSAGE_HAS(h, "below num_trees = 3");
  bad_indices[2] = -2;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "data->contact_trees[2] = -2");
  bad_indices[2] = 0; /* contact 1: trees (0, 0) */
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "contact 1 lists tree 0 twice");
  bad_indices[2] = -1;
  bad_indices[3] = -1;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "contact 1 touches no tree");
  bad_indices[2] = 1;
  bad_indices[3] = 0;
  bad_indices[1] = 2; /* contact 0 on trees 0 and 2: valid, but J needs 3 more values */
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_DIMENSION_MISMATCH);
  MESSAGE_HAS(h, "data->J_len = 54, expected 57");
  STILL_GOOD();

  /* Values: non-finite M, J, p*, fn0, stiffness, dissipation, mu; negative ones. */
  memcpy(bad_values, p->M, sizeof p->M);
  bad_values[7] = NAN;
  d = p->data; d.M = bad_values;
  EXPECT_HANDLE(h, set_two_way(h, p, &d), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "data->M[7] = NaN is outside its domain: expected finite");
  bad = *p;
  bad.J[40] = INFINITY;
  bad.data.J = bad.J;
  EXPECT_HANDLE(h, set_two_way(h, p, &bad.data), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "data->J[40] = inf is outside its domain: expected finite");
  bad = *p;
  bad.p_star[12] = -INFINITY;
  EXPECT_HANDLE(h, set_two_way(h, &bad, &p->data), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "p_star[12] = -inf is outside its domain: expected finite");
  bad = *p;
  bad.fn0[1] = NAN;
  EXPECT_HANDLE(h, set_two_way(h, &bad, &p->data), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "fn0[1] = NaN is outside its domain: expected finite and >= 0");
  bad = *p;
  bad.fn0[0] = -1.0;
  EXPECT_HANDLE(h, set_two_way(h, &bad, &p->data), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "fn0[0] = -1 is outside its domain");
  bad = *p;
  bad.k[1] = -9810.0;
  EXPECT_HANDLE(h, set_two_way(h, &bad, &p->data), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "stiffness[1] = -9810 is outside its domain");
  bad = *p;
  bad.d[0] = INFINITY;
  EXPECT_HANDLE(h, set_two_way(h, &bad, &p->data), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "dissipation[0] = inf is outside its domain");
  bad = *p;
  bad.mu[1] = -0.5;
  EXPECT_HANDLE(h, set_two_way(h, &bad, &p->data), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "mu[1] = -0.5 is outside its domain: expected finite and >= 0");
  STILL_GOOD();

  /* The wrong scheme: the handle is two-way. */
  EXPECT_HANDLE(h, cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &p->data, p->p_star, p->fn0, p->mu), CTS_STATUS_WRONG_COUPLING_SCHEME);
  STILL_GOOD();

  /* Nothing lost: the good data still solves to the same bits and iterations. */
  OK(cts_tamsi_solver_solve_with_guess(h, DT, p->v0, NV));
  OK(cts_tamsi_solver_get_iteration_stats(h, &stats));
  CHECK(stats.num_iterations == want_iterations);
  STILL_GOOD();
#undef STILL_GOOD
  cts_tamsi_solver_free(h);
}

/* One-way: NULL fn and a negative fn; nc = 0 with NULL contact arrays; a structure change. */
static void test_one_way_and_no_contact(const problem *p) {
  cts_tamsi_solver *h = NULL;
  cts_block_sparse_data d;
  double v[NV], fn[NC] = {19.62, -1.0};
  size_t count = 0;
  int i;
  OK(cts_tamsi_solver_new(NV, &h));
  EXPECT_HANDLE(h, cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &p->data, p->p_star, NULL, p->mu), CTS_STATUS_NULL_POINTER);
  MESSAGE_HAS(h, "cts_tamsi_solver_set_one_way_coupled_block_problem_data: fn is NULL");
  EXPECT_HANDLE(h, cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &p->data, p->p_star, fn, p->mu), CTS_STATUS_INVALID_ARGUMENT);
  MESSAGE_HAS(h, "fn[1] = -1 is outside its domain: expected finite and >= 0");
  CHECK(cts_tamsi_solver_num_contacts(h) == 0);
  fn[1] = 9.81;
  OK(cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &p->data, p->p_star, fn, p->mu));
  OK(cts_tamsi_solver_solve_with_guess(h, DT, p->v0, NV));
  OK(cts_tamsi_solver_get_generalized_velocities(h, v, NV));
  /* One-way with fn = the weights: box 0 keeps sliding under both boxes' friction, slowed by
   * μ (fn0 + fn1) dt / m = 0.5 · 29.43 N · 1 ms / 1 kg. */
  CHECK(fabs(v[0] - (0.5 - 0.5 * (19.62 + 9.81) * DT)) < 1e-6);

  /* No contacts at all: NULL contact arrays are fine; v = M⁻¹ p* tree by tree. */
  d = p->data;
  d.num_contacts = 0;
  d.contact_trees = NULL;
  d.J_len = 0;
  d.J = NULL;
  OK(cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &d, p->p_star, NULL, NULL));
  CHECK(cts_tamsi_solver_num_contacts(h) == 0);
  OK(cts_tamsi_solver_solve_with_guess(h, DT, p->v0, NV));
  OK(cts_tamsi_solver_get_generalized_velocities(h, v, NV));
  for (i = 0; i < NV; ++i) CHECK(fabs(v[i] - (p->v0[i] - (i == 2 || i == 8 ? DT * 9.81 : 0.0))) < 1e-15);
  OK(cts_tamsi_solver_get_normal_forces(h, NULL, 0));
  OK(cts_tamsi_solver_get_residuals(h, NULL, 0, &count));

  /* Resize drops the data; the next block set works on the new size. */
  OK(cts_tamsi_solver_resize(h, 12));
  EXPECT_HANDLE(h, cts_tamsi_solver_solve_with_guess(h, DT, p->v0, 12), CTS_STATUS_NO_PROBLEM_DATA);
  d.num_trees = 2;
  d.M_len = 72;
  OK(cts_tamsi_solver_set_one_way_coupled_block_problem_data(h, &d, p->p_star, NULL, NULL));
  OK(cts_tamsi_solver_solve_with_guess(h, DT, p->v0, 12));
  cts_tamsi_solver_free(h);
}

int main(void) {
  problem p;
  make_problem(&p);
  test_block_equals_dense(&p);
  test_misuse(&p);
  test_one_way_and_no_contact(&p);
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
