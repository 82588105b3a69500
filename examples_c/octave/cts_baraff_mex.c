/* cts_baraff_mex.c: MEX gateway for GNU Octave and MATLAB to the Baraff pivoting solver of
 * libcontact_solvers (Baraff 1994 as in Darwin2K's constraintSolver, docs/baraff.md).
 *
 *   r = cts_baraff_mex('solve', data)         % computeForces: the pivoting (§3)
 *   r = cts_baraff_mex('impulses', data)      % computeImpulse: the impulse active set (§8)
 *   r = cts_baraff_mex('consistency', data)   % computeConsistencyImpulse (§7)
 *   r = cts_baraff_mex(..., params)           % params last
 *
 * data is a 1x1 struct with m rows (m = numel(data.kind)) in one of two forms:
 *
 *   matrix data (§1): A (m x m: change of a_i per unit f_j), b (m: row accelerations, or
 *     velocities, with every constraint force off);
 *   model data (§2): M (n x n, kg, kg m^2; SPD), J (m x n), level ('acceleration', the default,
 *     or 'velocity'), tau (n: τ − c, N or N m; acceleration level) or qdot (n: the pre-impulse
 *     q̇; velocity level); optional bias (m: J̇ q̇, or a velocity target), sliding friction Q
 *     (m x n, unit slip directions of sliding normals) with mu_d (m), Baumgarte stabilisation kp,
 *     kv (scalars) with position_error (m) and velocity_error (m, optional).
 *
 * and the rows: kind (a cell array of 'bilateral', 'normal', 'friction' or 'boxed', or a numeric
 * vector of CTS_BARAFF_ROW_* codes); for friction rows normal (m: the row number 1..m of the
 * owning normal row; other entries ignored) and mu (m, μ_s); for boxed rows lo and hi (m).
 * 'consistency' reads sticking_normal (the row number 1..m of the sticking contact's normal row).
 * Real, full double arrays, column-major as MATLAB stores them.
 *
 * params is an optional 1x1 struct with any field of cts_baraff_parameters (epsilon,
 * singular_tolerance, tolerance, restitution, cdot_tolerance, max_pivots,
 * max_impulse_iterations, reverse_retry).
 *
 * r is a struct: outcome (the cts_status: 0 = a verified solution, else a Baraff outcome such as
 * CTS_STATUS_BARAFF_UNBOUNDED_RAY; the results are readable then too), outcome_name (the library's
 * cts_status_string), f (m: forces, N, or impulses, N s), a (m: a = A f + b, or post-impulse row
 * velocities), sets (m: CTS_BARAFF_SET_* codes), set_names (the codes as 'C', 'NC', 'S+', 'S-',
 * 'R', 'L+', 'L-', 'U'), pivots, iterations, row (the row number being driven at an unbounded
 * ray, 0 otherwise), worst_violation; with model data also generalized (q̈, or q̇⁺ at velocity
 * level), generalized_change (M⁻¹ J_f' f, or Δq̇) and sliding_friction (m: −μ_d f); 'impulses'
 * also needs_impulse (needsImpulse before the impulses). Fields that do not apply are [].
 *
 * Usage errors raise an error with identifier contact_solvers:<status> and the library's
 * message. A solver is created and freed per call; the borrowed data lives through the call.
 *
 * Build: as cts_tamsi_mex.c (mkoctfile --mex [-R2018a] -I<prefix>/include cts_baraff_mex.c
 * -L<prefix>/lib -lcontact_solvers; MATLAB: mex -R2018a ...).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mex.h"

#include "contact_solvers.h"
#include "cts_mex_util.h"

CTS_MEX_LIBRARY_ERROR(cts_baraff_solver)

#define CTS_BARAFF_FIELD(f, is_int) CTS_MEX_FIELD(cts_baraff_parameters, f, is_int)
static const cts_mex_field parameter_fields[] = {
    CTS_BARAFF_FIELD(epsilon, 0),     CTS_BARAFF_FIELD(singular_tolerance, 0),  CTS_BARAFF_FIELD(tolerance, 0),
    CTS_BARAFF_FIELD(restitution, 0), CTS_BARAFF_FIELD(cdot_tolerance, 0),      CTS_BARAFF_FIELD(max_pivots, 1),
    CTS_BARAFF_FIELD(max_impulse_iterations, 1), CTS_BARAFF_FIELD(reverse_retry, 1),
};

static const cts_mex_name row_kinds[] = {
    {"bilateral", CTS_BARAFF_ROW_BILATERAL},
    {"normal", CTS_BARAFF_ROW_NORMAL},
    {"friction", CTS_BARAFF_ROW_FRICTION},
    {"boxed", CTS_BARAFF_ROW_BOXED},
};

/* Short names of the row sets (docs/baraff.md §3.1), keyed by the header's codes. */
static const struct {
  int32_t code;
  const char *name;
} set_names[] = {
    {CTS_BARAFF_SET_CLAMPED, "C"},       {CTS_BARAFF_SET_SEPARATING, "NC"},   {CTS_BARAFF_SET_AT_UPPER, "S+"},
    {CTS_BARAFF_SET_AT_LOWER, "S-"},     {CTS_BARAFF_SET_DEFERRED, "R"},      {CTS_BARAFF_SET_LOCKED_UPPER, "L+"},
    {CTS_BARAFF_SET_LOCKED_LOWER, "L-"}, {CTS_BARAFF_SET_UNTREATED, "U"},
};

enum { CALL_SOLVE, CALL_IMPULSES, CALL_CONSISTENCY };

static const char *const data_fields[] = {
    "A",     "b",     "M",  "J",  "level", "tau", "qdot", "bias", "Q",  "mu_d", "kp", "kv", "position_error",
    "velocity_error", "kind", "normal", "mu", "lo", "hi", "sticking_normal"};

static const mxArray *field(const mxArray *data, const char *name) { return mxGetField(data, 0, name); }

static const double *vector_field(const mxArray *data, const char *name, size_t n) {
  const mxArray *a = field(data, name);
  char label[64];
  snprintf(label, sizeof label, "data.%s", name);
  return a != NULL ? vector_arg(a, label, n) : NULL;
}

static const double *matrix_field(const mxArray *data, const char *name, size_t rows, size_t cols) {
  const mxArray *a = field(data, name);
  char label[64];
  snprintf(label, sizeof label, "data.%s", name);
  if (a == NULL) {
    char message[96];
    snprintf(message, sizeof message, "%s is required", label);
    usage_error(CTS_STATUS_NULL_POINTER, message);
  }
  return matrix_arg(a, label, rows, cols);
}

/* The owning normal rows of friction rows: MATLAB's row numbers 1..m to the library's 0-based
 * indices (other rows' entries are ignored by the library; they become -1 unless integral). */
static int32_t *normals_arg(const mxArray *a, const int32_t *kind, size_t m) {
  int32_t *out = (int32_t *)mxMalloc((m > 0 ? m : 1) * sizeof(int32_t));
  const double *x = vector_arg(a, "data.normal", m);
  char message[128];
  size_t i;
  for (i = 0; i < m; ++i) {
    const int integral = x[i] == floor(x[i]) && fabs(x[i]) <= 2147483647.0;
    if (kind[i] == CTS_BARAFF_ROW_FRICTION && !(integral && x[i] >= 1.0)) {
      snprintf(message, sizeof message, "data.normal(%lu) = %g: the row number 1..m of a normal row",
               (unsigned long)(i + 1), x[i]);
      usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
    }
    out[i] = integral ? (int32_t)x[i] - 1 : -1;
  }
  return out;
}

static const char *result_fields[] = {"outcome",         "outcome_name",       "f",
                                      "a",               "sets",               "set_names",
                                      "pivots",          "iterations",         "row",
                                      "worst_violation", "generalized",        "generalized_change",
                                      "sliding_friction", "needs_impulse"};

CTS_MEX_COLUMN(cts_baraff_solver, CTS_STATUS_OK)

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  char name[32];
  int call = -1, model, i, nf;
  size_t m, n = 0, k, sticking = 0;
  const mxArray *data;
  const double *mu = NULL, *lo = NULL, *hi = NULL, *A = NULL, *b = NULL, *Mm = NULL, *J = NULL, *x = NULL;
  const double *bias = NULL, *Q = NULL, *mu_d = NULL, *c = NULL, *cdot = NULL;
  double kp = 0.0, kv = 0.0;
  int sliding = 0, stabilized = 0;
  int32_t *kind, *normal = NULL, level = CTS_BARAFF_LEVEL_ACCELERATION, needs = -1, any_friction = 0, any_boxed = 0;
  cts_baraff_parameters params;
  cts_baraff_stats stats;
  cts_baraff_solver *solver = NULL;
  cts_status s;
  mxArray *r, *sets, *names;

  if (nlhs > 1) usage_error(CTS_STATUS_INVALID_ARGUMENT, "one output (a struct)");
  if (nrhs < 2 || nrhs > 3 || !mxIsChar(prhs[0]) || mxGetString(prhs[0], name, sizeof name) != 0) name[0] = '\0';
  if (strcmp(name, "solve") == 0) call = CALL_SOLVE;
  if (strcmp(name, "impulses") == 0) call = CALL_IMPULSES;
  if (strcmp(name, "consistency") == 0) call = CALL_CONSISTENCY;
  if (call < 0) usage_error(CTS_STATUS_INVALID_ARGUMENT, "usage: cts_baraff_mex('solve' | 'impulses' | 'consistency', data [, params])");
  data = prhs[1];
  if (!mxIsStruct(data) || mxGetNumberOfElements(data) != 1) usage_error(CTS_STATUS_INVALID_ARGUMENT, "data must be a 1x1 struct");
  nf = mxGetNumberOfFields(data);
  for (i = 0; i < nf; ++i) {
    const char *f = mxGetFieldNameByNumber(data, i);
    for (k = 0; k < CTS_COUNT(data_fields) && strcmp(f, data_fields[k]) != 0; ++k) {
    }
    if (k == CTS_COUNT(data_fields)) {
      char message[128];
      snprintf(message, sizeof message, "data.%s is not a field of Baraff problem data", f);
      usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
    }
  }
  cts_baraff_parameters_default(&params);
  options_arg(nrhs == 3 ? prhs[2] : NULL, &params, parameter_fields, CTS_COUNT(parameter_fields), "params", NULL,
              NULL);

  /* The rows. */
  if (field(data, "kind") == NULL) usage_error(CTS_STATUS_NULL_POINTER, "data.kind is required");
  m = mxGetNumberOfElements(field(data, "kind"));
  kind = codes_arg(field(data, "kind"), m, row_kinds, CTS_COUNT(row_kinds), "data.kind");
  for (k = 0; k < m; ++k) {
    any_friction |= kind[k] == CTS_BARAFF_ROW_FRICTION;
    any_boxed |= kind[k] == CTS_BARAFF_ROW_BOXED;
  }
  if (any_friction) {
    if (field(data, "normal") == NULL || field(data, "mu") == NULL) {
      usage_error(CTS_STATUS_NULL_POINTER, "friction rows need data.normal and data.mu");
    }
    normal = normals_arg(field(data, "normal"), kind, m);
    mu = vector_field(data, "mu", m);
  }
  if (any_boxed) {
    if (field(data, "lo") == NULL || field(data, "hi") == NULL) {
      usage_error(CTS_STATUS_NULL_POINTER, "boxed rows need data.lo and data.hi");
    }
    lo = vector_field(data, "lo", m);
    hi = vector_field(data, "hi", m);
  }
  if (call == CALL_CONSISTENCY) {
    double row;
    if (field(data, "sticking_normal") == NULL) usage_error(CTS_STATUS_NULL_POINTER, "data.sticking_normal is required");
    row = scalar_arg(field(data, "sticking_normal"), "data.sticking_normal");
    if (!(row == floor(row) && row >= 1.0 && row <= (double)m)) {
      usage_error(CTS_STATUS_INVALID_ARGUMENT, "data.sticking_normal must be a row number 1..m");
    }
    sticking = (size_t)row - 1;
  }

  /* Every argument is read before the solver exists, so that a usage error leaks nothing. */
  model = field(data, "A") == NULL;
  {
    /* A field of the other form (or 'consistency''s sticking_normal elsewhere) would be ignored
     * silently: refuse it. */
    static const char *const model_only[] = {"M",  "J",  "level", "tau", "qdot", "bias", "Q", "mu_d",
                                             "kp", "kv", "position_error", "velocity_error"};
    char message[128];
    for (k = 0; k < CTS_COUNT(model_only); ++k) {
      if (!model && field(data, model_only[k]) != NULL) {
        snprintf(message, sizeof message, "data.%s is model data; matrix data (data.A) has A and b", model_only[k]);
        usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
      }
    }
    if (model && field(data, "b") != NULL) usage_error(CTS_STATUS_INVALID_ARGUMENT, "data.b is matrix data; give data.A too");
    if (call != CALL_CONSISTENCY && field(data, "sticking_normal") != NULL) {
      usage_error(CTS_STATUS_INVALID_ARGUMENT, "data.sticking_normal is read by 'consistency' only");
    }
  }
  if (!model) {
    A = matrix_field(data, "A", m, m);
    b = vector_field(data, "b", m);
    if (b == NULL && m > 0) usage_error(CTS_STATUS_NULL_POINTER, "data.b is required");
  } else {
    const mxArray *lv = field(data, "level");
    if (field(data, "M") == NULL) {
      usage_error(CTS_STATUS_NULL_POINTER, "data.A (matrix data) or data.M and data.J (model data) are required");
    }
    n = mxGetM(field(data, "M"));
    if (lv != NULL) {
      char level_name[16];
      if (!mxIsChar(lv) || mxGetString(lv, level_name, sizeof level_name) != 0) level_name[0] = '\0';
      if (strcmp(level_name, "velocity") == 0) {
        level = CTS_BARAFF_LEVEL_VELOCITY;
      } else if (strcmp(level_name, "acceleration") != 0) {
        usage_error(CTS_STATUS_INVALID_ARGUMENT, "data.level: 'acceleration' or 'velocity'");
      }
    }
    Mm = matrix_field(data, "M", n, n);
    J = matrix_field(data, "J", m, n);
    x = vector_field(data, level == CTS_BARAFF_LEVEL_VELOCITY ? "qdot" : "tau", n);
    if (x == NULL && n > 0) {
      usage_error(CTS_STATUS_NULL_POINTER, level == CTS_BARAFF_LEVEL_VELOCITY ? "data.qdot is required at velocity level"
                                                                              : "data.tau is required at acceleration level");
    }
    bias = vector_field(data, "bias", m);
    sliding = field(data, "Q") != NULL || field(data, "mu_d") != NULL;
    if (sliding) {
      Q = matrix_field(data, "Q", m, n);
      mu_d = vector_field(data, "mu_d", m);
      if (mu_d == NULL && m > 0) usage_error(CTS_STATUS_NULL_POINTER, "data.Q needs data.mu_d");
    }
    stabilized = field(data, "kp") != NULL || field(data, "kv") != NULL || field(data, "position_error") != NULL;
    if (stabilized) {
      kp = field(data, "kp") != NULL ? scalar_arg(field(data, "kp"), "data.kp") : 0.0;
      kv = field(data, "kv") != NULL ? scalar_arg(field(data, "kv"), "data.kv") : 0.0;
      c = vector_field(data, "position_error", m);
      cdot = vector_field(data, "velocity_error", m);
      if (c == NULL && m > 0) usage_error(CTS_STATUS_NULL_POINTER, "stabilisation needs data.position_error");
    }
  }

  s = cts_baraff_solver_new(&solver);
  if (s != CTS_STATUS_OK) library_error(NULL, s);
  if ((s = cts_baraff_solver_set_parameters(solver, &params)) != CTS_STATUS_OK) library_error(solver, s);
  if (!model) {
    s = cts_baraff_solver_set_matrix_problem_data(solver, m, A, m > 0 ? m : 1, b, m > 0 ? kind : NULL, normal, mu, lo,
                                                  hi);
    if (s != CTS_STATUS_OK) library_error(solver, s);
  } else {
    s = cts_baraff_solver_set_model_problem_data(solver, m, n, Mm, n > 0 ? n : 1, J, m > 0 ? m : 1, level, x,
                                                 m > 0 ? kind : NULL, normal, mu, lo, hi);
    if (s != CTS_STATUS_OK) library_error(solver, s);
    if (bias != NULL && (s = cts_baraff_solver_set_model_bias(solver, bias, m)) != CTS_STATUS_OK) {
      library_error(solver, s);
    }
    if (sliding && (s = cts_baraff_solver_set_model_sliding(solver, Q, m > 0 ? m : 1, mu_d, m)) != CTS_STATUS_OK) {
      library_error(solver, s);
    }
    if (stabilized &&
        (s = cts_baraff_solver_set_model_stabilization(solver, kp, kv, c, cdot != NULL ? 1 : 0, cdot, m)) !=
            CTS_STATUS_OK) {
      library_error(solver, s);
    }
  }

  if (call == CALL_IMPULSES && model) {
    s = cts_baraff_solver_needs_impulse(solver, &needs);
    if (s != CTS_STATUS_OK) library_error(solver, s);
  }
  switch (call) {
    case CALL_SOLVE: s = cts_baraff_solver_solve(solver); break;
    case CALL_IMPULSES: s = cts_baraff_solver_compute_impulses(solver); break;
    default: s = cts_baraff_solver_consistency_impulse(solver, sticking); break;
  }
  if (s >= CTS_STATUS_NULL_POINTER || s == CTS_STATUS_NON_FINITE_RESULT) library_error(solver, s);
  {
    const cts_status si = cts_baraff_solver_get_stats(solver, &stats);
    if (si != CTS_STATUS_OK) library_error(solver, si);
  }

  r = mxCreateStructMatrix(1, 1, CTS_COUNT(result_fields), result_fields);
  mxSetField(r, 0, "outcome", mxCreateDoubleScalar((double)s));
  mxSetField(r, 0, "outcome_name", mxCreateString(cts_status_string(s)));
  mxSetField(r, 0, "f", column(solver, cts_baraff_solver_get_forces, m, r));
  mxSetField(r, 0, "a", column(solver, cts_baraff_solver_get_accelerations, m, r));
  {
    int32_t *codes = (int32_t *)mxMalloc((m > 0 ? m : 1) * sizeof(int32_t));
    const cts_status ss = cts_baraff_solver_get_row_sets(solver, m > 0 ? codes : NULL, m);
    if (ss != CTS_STATUS_OK) {
      mxDestroyArray(r);
      library_error(solver, ss);
    }
    sets = mxCreateDoubleMatrix(m, 1, mxREAL);
    names = mxCreateCellMatrix(m, 1);
    for (k = 0; k < m; ++k) {
      size_t j;
      const char *set_name = "?";
      for (j = 0; j < CTS_COUNT(set_names); ++j) {
        if (set_names[j].code == codes[k]) set_name = set_names[j].name;
      }
      CTS_MX_DOUBLES(sets)[k] = (double)codes[k];
      mxSetCell(names, k, mxCreateString(set_name));
    }
    mxSetField(r, 0, "sets", sets);
    mxSetField(r, 0, "set_names", names);
  }
  mxSetField(r, 0, "pivots", mxCreateDoubleScalar((double)stats.pivots));
  mxSetField(r, 0, "iterations", mxCreateDoubleScalar((double)stats.iterations));
  mxSetField(r, 0, "row", mxCreateDoubleScalar((double)(stats.row + 1)));
  mxSetField(r, 0, "worst_violation", mxCreateDoubleScalar(stats.worst_violation));
  if (model) {
    mxSetField(r, 0, "generalized", column(solver, cts_baraff_solver_get_generalized_result, n, r));
    mxSetField(r, 0, "generalized_change", column(solver, cts_baraff_solver_get_generalized_change, n, r));
    mxSetField(r, 0, "sliding_friction", column(solver, cts_baraff_solver_get_sliding_friction_forces, m, r));
  }
  if (needs >= 0) mxSetField(r, 0, "needs_impulse", mxCreateDoubleScalar((double)needs));
  plhs[0] = r;
  cts_baraff_solver_free(solver);
}
