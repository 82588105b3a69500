/* cts_rigid_mex.c: MEX gateway for GNU Octave and MATLAB to the rigid constraint solver of
 * libcontact_solvers (Drake's ConstraintSolver, docs/rigid.md) on dense data.
 *
 *   r = cts_rigid_mex('constraint', data)        % forces, acceleration level (docs/rigid.md §5)
 *   r = cts_rigid_mex('impact', data)            % impulses, velocity level (§6)
 *   r = cts_rigid_mex('discretized', data, dt)   % forces of a time step of dt s (§7.3)
 *   r = cts_rigid_mex(..., params)               % params last: Drake HEAD's switches
 *
 * data is a 1x1 struct. Sizes come from the matrices: nv from the inertia, nc from the rows of N,
 * nr from F, nu from L, nb from G (an absent Jacobian has no rows). Real, full double arrays,
 * column-major as MATLAB stores them: nothing is copied.
 *
 *   every problem: M (nv x nv, kg, kg m^2; SPD) or M_inverse (its inverse), exactly one;
 *     N (nc x nv), F (nr x nv), L (nu x nv), G (nb x nv) the Jacobians; kN (nc), kF (nr), kL (nu),
 *     kG (nb) the constraint offsets (absent: zeros);
 *   'constraint': tau (nv, N or N m); N_minus_muQ (nc x nv, absent: N); sliding_contacts (contact
 *     numbers 1..nc, ascending; absent: none) with mu_sliding; non_sliding_contacts (absent: the
 *     others) with mu_non_sliding and r (spanning directions per non-sliding contact, sum(r) = nr);
 *     use_complementarity_problem_solver (1, the default: the LCP; 0: the linear system);
 *   'impact', 'discretized': Mv (nv, N s: M v before the impulses, or M v + dt f for a step);
 *     mu (nc), r (nc, sum(r) = nr); gammaN (nc), gammaF (nr), gammaE (nc), gammaL (nu) (absent:
 *     none); 'discretized' also takes v (nv, the velocity at the start of the step).
 *
 * params is an optional 1x1 struct with any field of cts_rigid_parameters
 * (drake_inverse_inertia_blocks, drake_limit_row_transpose, drake_double_gamma,
 * drake_empty_fast_exit; 0 or 1).
 *
 * r is a struct: outcome (the cts_status: 0 = solved, else a rigid outcome such as
 * CTS_STATUS_RIGID_LCP_UNSOLVABLE; cf is then zeros), outcome_name (the library's
 * cts_status_string), cf (the packed constraint forces or impulses [fN; fF; fL; fG]),
 * generalized (nv: the generalized force (N − μQ)'fN + F'fF + L'fL + G'fG of cf, or the
 * generalized impulse N'fN + ... at the velocity level), acceleration ('constraint': v̇ =
 * M⁻¹(generalized + tau); 'discretized' with v: (v_next − v)/dt), velocity_change ('impact':
 * Δv = M⁻¹ generalized), and the LCP the solve decided on: lcp_size, pivots,
 * regularization_used, lcp_matrix, lcp_vector, z, w. Fields that do not apply are [], as are the
 * generalized ones when cf is not full length (Drake's empty fast exit).
 *
 * Usage errors raise an error with identifier contact_solvers:<status> and the library's
 * message. A solver is created and freed per call; the borrowed data lives through the call.
 *
 * Build: as cts_tamsi_mex.c (mkoctfile --mex [-R2018a] -I<prefix>/include cts_rigid_mex.c
 * -L<prefix>/lib -lcontact_solvers; MATLAB: mex -R2018a ...).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mex.h"

#include "contact_solvers.h"
#include "cts_mex_util.h"

CTS_MEX_LIBRARY_ERROR(cts_rigid_solver)

#define CTS_RIGID_FIELD(f) CTS_MEX_FIELD(cts_rigid_parameters, f, 1)
static const cts_mex_field parameter_fields[] = {
    CTS_RIGID_FIELD(drake_inverse_inertia_blocks),
    CTS_RIGID_FIELD(drake_limit_row_transpose),
    CTS_RIGID_FIELD(drake_double_gamma),
    CTS_RIGID_FIELD(drake_empty_fast_exit),
};

enum { KIND_CONSTRAINT, KIND_IMPACT, KIND_DISCRETIZED };

/* The fields each problem kind reads; anything else is a usage error (a misspelt field would
 * otherwise be ignored silently). */
static const char *const accel_fields[] = {
    "M",  "M_inverse", "N",   "F",  "L",  "G", "kN", "kF", "kL", "kG", "tau", "N_minus_muQ", "sliding_contacts",
    "mu_sliding", "non_sliding_contacts", "mu_non_sliding", "r", "use_complementarity_problem_solver"};
static const char *const vel_fields[] = {"M",  "M_inverse", "N",  "F",      "L",      "G",      "kN",
                                         "kF", "kL",        "kG", "Mv",     "mu",     "r",      "gammaN",
                                         "gammaF", "gammaE", "gammaL", "v"};

static void check_fields(const mxArray *data, const char *const *names, size_t count, const char *what) {
  int i, nf;
  size_t k;
  char message[256];
  if (!mxIsStruct(data) || mxGetNumberOfElements(data) != 1) usage_error(CTS_STATUS_INVALID_ARGUMENT, "data must be a 1x1 struct");
  nf = mxGetNumberOfFields(data);
  for (i = 0; i < nf; ++i) {
    const char *field = mxGetFieldNameByNumber(data, i);
    for (k = 0; k < count; ++k) {
      if (strcmp(field, names[k]) == 0) break;
    }
    if (k == count) {
      snprintf(message, sizeof message, "data.%s is not a field of %s problem data", field, what);
      usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
    }
  }
}

/* data.<name>, or NULL when absent. */
static const mxArray *field(const mxArray *data, const char *name) { return mxGetField(data, 0, name); }

/* Rows of an optional Jacobian (0 when absent). */
static size_t rows_of(const mxArray *data, const char *name) {
  const mxArray *a = field(data, name);
  return a != NULL ? mxGetM(a) : 0;
}

/* An optional Jacobian of `rows` x nv (NULL when absent or empty). */
static const double *jacobian(const mxArray *data, const char *name, size_t rows, size_t nv) {
  const mxArray *a = field(data, name);
  char label[64];
  if (a == NULL) return NULL;
  snprintf(label, sizeof label, "data.%s", name);
  return matrix_arg(a, label, rows, nv);
}

/* A vector of n entries; absent: zeros when `zeros` is set (n > 0), else NULL. */
static const double *vector_field(const mxArray *data, const char *name, size_t n, int zeros) {
  const mxArray *a = field(data, name);
  char label[64];
  snprintf(label, sizeof label, "data.%s", name);
  if (a != NULL) return vector_arg(a, label, n);
  if (zeros && n > 0) return (const double *)mxCalloc(n, sizeof(double));
  return NULL;
}

/* A vector the problem needs when n > 0. */
static const double *required_vector(const mxArray *data, const char *name, size_t n) {
  char message[128];
  if (n > 0 && field(data, name) == NULL) {
    snprintf(message, sizeof message, "data.%s (%lu entries) is required", name, (unsigned long)n);
    usage_error(CTS_STATUS_NULL_POINTER, message);
  }
  return vector_field(data, name, n, 0);
}

/* Non-negative integers from a double vector (`one_based`: MATLAB's numbers 1..k, returned 0-based).
 * mxMalloc'd; freed by MATLAB/Octave when the call ends, also on error. */
static size_t *integers(const mxArray *a, const char *name, size_t *count, int one_based) {
  char message[256];
  size_t i, n;
  const double *x;
  size_t *out;
  if (!mxIsDouble(a) || mxIsComplex(a) || mxIsSparse(a) || (mxGetM(a) != 1 && mxGetN(a) != 1 && mxGetNumberOfElements(a) != 0)) {
    snprintf(message, sizeof message, "data.%s must be a real double vector", name);
    usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
  }
  n = mxGetNumberOfElements(a);
  x = n > 0 ? CTS_MX_DOUBLES(a) : NULL;
  out = (size_t *)mxMalloc((n > 0 ? n : 1) * sizeof(size_t));
  for (i = 0; i < n; ++i) {
    const double lowest = one_based ? 1.0 : 0.0;
    if (!(x[i] == floor(x[i]) && x[i] >= lowest && x[i] <= 4503599627370496.0)) {
      snprintf(message, sizeof message, "data.%s(%lu) = %g: %s", name, (unsigned long)(i + 1), x[i],
               one_based ? "contact numbers are integers 1..nc" : "counts are integers >= 0");
      usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
    }
    out[i] = (size_t)x[i] - (one_based ? 1 : 0);
  }
  *count = n;
  return out;
}

/* data.r: the spanning directions of the n contacts it belongs to (`per`: "contact" or
 * "non-sliding contact"), as size_t (mxMalloc'd); absent means none. */
static size_t *spans_arg(const mxArray *data, size_t n, const char *per) {
  size_t count = 0;
  size_t *out = field(data, "r") != NULL ? integers(field(data, "r"), "r", &count, 0)
                                         : (size_t *)mxMalloc(sizeof(size_t));
  if (count != n) {
    char message[128];
    snprintf(message, sizeof message, "data.r has %lu entries, expected one per %s (%lu)", (unsigned long)count,
             per, (unsigned long)n);
    usage_error(CTS_STATUS_DIMENSION_MISMATCH, message);
  }
  return out;
}

/* The dense Jacobians of the problem and their row counts. */
typedef struct {
  const double *N, *F, *L, *G;
  size_t nc, nr, nu, nb;
} jacobians;

/* Sets the operators of one level from the Jacobians: N_mult, the second normal operator
 * (`n_op`: N_minus_muQ_transpose_mult at the acceleration level, N_transpose_mult at the
 * velocity level) from `n_matrix`, and F, L, G each as *_mult and *_transpose_mult. */
typedef cts_status (*operator_setter)(cts_rigid_solver *, int32_t, const double *, size_t);
static void set_operators(cts_rigid_solver *solver, operator_setter set, int32_t n_op, const double *n_matrix,
                          const jacobians *j) {
  const struct {
    int32_t op;
    const double *A;
    size_t rows;
  } ops[] = {{CTS_RIGID_OPERATOR_N_MULT, j->N, j->nc},       {n_op, n_matrix, j->nc},
             {CTS_RIGID_OPERATOR_F_MULT, j->F, j->nr},       {CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, j->F, j->nr},
             {CTS_RIGID_OPERATOR_L_MULT, j->L, j->nu},       {CTS_RIGID_OPERATOR_L_TRANSPOSE_MULT, j->L, j->nu},
             {CTS_RIGID_OPERATOR_G_MULT, j->G, j->nb},       {CTS_RIGID_OPERATOR_G_TRANSPOSE_MULT, j->G, j->nb}};
  size_t i;
  for (i = 0; i < CTS_COUNT(ops); ++i) {
    const cts_status s = set(solver, ops[i].op, ops[i].A, ops[i].rows > 0 ? ops[i].rows : 1);
    if (s != CTS_STATUS_OK) library_error(solver, s);
  }
}

static const char *result_fields[] = {"outcome",      "outcome_name",        "cf",         "generalized",
                                      "acceleration", "velocity_change",     "lcp_size",   "pivots",
                                      "regularization_used", "lcp_matrix",  "lcp_vector", "z",
                                      "w"};

CTS_MEX_COLUMN(cts_rigid_solver, CTS_STATUS_OK)

/* The generalized vector (nv) of cf under one of the compute calls; the call's status decides. */
typedef cts_status (*compute_fn)(cts_rigid_solver *, const double *, size_t, double *, size_t);
static mxArray *computed(cts_rigid_solver *solver, compute_fn f, const double *cf, size_t cf_len, size_t nv,
                         mxArray *r) {
  mxArray *x = mxCreateDoubleMatrix(nv, 1, mxREAL);
  const cts_status s = f(solver, cf, cf_len, nv > 0 ? CTS_MX_DOUBLES(x) : NULL, nv);
  if (s != CTS_STATUS_OK) {
    mxDestroyArray(x);
    mxDestroyArray(r);
    library_error(solver, s);
  }
  return x;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  char name[32];
  int kind = -1, params_at;
  size_t nv, nc, nr, nu, nb, n_lcp, cf_len;
  const mxArray *data, *inertia;
  const double *M, *N, *F, *L, *G, *kN, *kF, *kL, *kG, *v = NULL, *cf;
  int32_t inertia_form;
  double dt = 0.0;
  jacobians jac;
  cts_rigid_parameters params;
  cts_rigid_solver *solver = NULL;
  cts_status s;
  mxArray *r, *cf_array;
  int accel;

  if (nlhs > 1) usage_error(CTS_STATUS_INVALID_ARGUMENT, "one output (a struct)");
  if (nrhs < 2 || !mxIsChar(prhs[0]) || mxGetString(prhs[0], name, sizeof name) != 0) name[0] = '\0';
  if (strcmp(name, "constraint") == 0) kind = KIND_CONSTRAINT;
  if (strcmp(name, "impact") == 0) kind = KIND_IMPACT;
  if (strcmp(name, "discretized") == 0) kind = KIND_DISCRETIZED;
  if (kind < 0) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT,
                "usage: cts_rigid_mex('constraint' | 'impact', data [, params]) or "
                "cts_rigid_mex('discretized', data, dt [, params])");
  }
  params_at = kind == KIND_DISCRETIZED ? 3 : 2;
  if (nrhs < params_at || nrhs > params_at + 1) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, kind == KIND_DISCRETIZED
                                                 ? "usage: cts_rigid_mex('discretized', data, dt [, params])"
                                                 : "usage: cts_rigid_mex(kind, data [, params])");
  }
  accel = kind == KIND_CONSTRAINT;
  data = prhs[1];
  if (accel) {
    check_fields(data, accel_fields, CTS_COUNT(accel_fields), "'constraint'");
  } else {
    check_fields(data, vel_fields, CTS_COUNT(vel_fields), kind == KIND_IMPACT ? "'impact'" : "'discretized'");
    if (kind == KIND_IMPACT && field(data, "v") != NULL) {
      usage_error(CTS_STATUS_INVALID_ARGUMENT, "data.v is read by 'discretized' only");
    }
  }
  if (kind == KIND_DISCRETIZED) dt = scalar_arg(prhs[2], "dt");
  cts_rigid_parameters_default(&params);
  options_arg(nrhs > params_at ? prhs[params_at] : NULL, &params, parameter_fields, CTS_COUNT(parameter_fields),
              "params", NULL, NULL);

  /* The inertia: M or its inverse, exactly one. */
  if ((field(data, "M") != NULL) == (field(data, "M_inverse") != NULL)) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "give exactly one of data.M and data.M_inverse");
  }
  inertia = field(data, "M") != NULL ? field(data, "M") : field(data, "M_inverse");
  inertia_form = field(data, "M") != NULL ? CTS_RIGID_INERTIA_MATRIX : CTS_RIGID_INERTIA_INVERSE;
  nv = mxGetM(inertia);
  M = matrix_arg(inertia, inertia_form == CTS_RIGID_INERTIA_MATRIX ? "data.M" : "data.M_inverse", nv, nv);
  nc = rows_of(data, "N");
  nr = rows_of(data, "F");
  nu = rows_of(data, "L");
  nb = rows_of(data, "G");
  N = jacobian(data, "N", nc, nv);
  F = jacobian(data, "F", nr, nv);
  L = jacobian(data, "L", nu, nv);
  G = jacobian(data, "G", nb, nv);
  jac.N = N;
  jac.F = F;
  jac.L = L;
  jac.G = G;
  jac.nc = nc;
  jac.nr = nr;
  jac.nu = nu;
  jac.nb = nb;
  kN = vector_field(data, "kN", nc, 1);
  kF = vector_field(data, "kF", nr, 1);
  kL = vector_field(data, "kL", nu, 1);
  kG = vector_field(data, "kG", nb, 1);

  if (accel) {
    size_t ns = 0, nns = 0, i, j;
    size_t *sliding, *non_sliding, *spans;
    const double *N_minus_muQ, *tau, *mu_s, *mu_ns;
    const mxArray *flag = field(data, "use_complementarity_problem_solver");
    int32_t use_lcp = 1;
    sliding = field(data, "sliding_contacts") != NULL
                  ? integers(field(data, "sliding_contacts"), "sliding_contacts", &ns, 1)
                  : (size_t *)mxMalloc(sizeof(size_t));
    if (field(data, "non_sliding_contacts") != NULL) {
      non_sliding = integers(field(data, "non_sliding_contacts"), "non_sliding_contacts", &nns, 1);
    } else {
      /* The contacts not listed as sliding, ascending (the library checks the partition). */
      non_sliding = (size_t *)mxMalloc((nc > 0 ? nc : 1) * sizeof(size_t));
      for (i = 0; i < nc; ++i) {
        for (j = 0; j < ns && sliding[j] != i; ++j) {
        }
        if (j == ns) non_sliding[nns++] = i;
      }
    }
    spans = spans_arg(data, nns, "non-sliding contact");
    N_minus_muQ = field(data, "N_minus_muQ") != NULL ? jacobian(data, "N_minus_muQ", nc, nv) : N;
    tau = required_vector(data, "tau", nv);
    mu_s = required_vector(data, "mu_sliding", ns);
    mu_ns = required_vector(data, "mu_non_sliding", nns);
    if (flag != NULL) {
      const double value = scalar_arg(flag, "data.use_complementarity_problem_solver");
      use_lcp = value == 0.0 ? 0 : (value == 1.0 ? 1 : -1); /* the library refuses -1 */
    }

    s = cts_rigid_solver_new(&solver);
    if (s != CTS_STATUS_OK) library_error(NULL, s);
    if ((s = cts_rigid_solver_set_parameters(solver, &params)) != CTS_STATUS_OK) library_error(solver, s);
    s = cts_rigid_solver_set_accel_problem_data(solver, nv, ns, ns > 0 ? sliding : NULL, mu_s, nns,
                                                nns > 0 ? non_sliding : NULL, mu_ns, nns > 0 ? spans : NULL, kN,
                                                kF, nu, kL, nb, kG, tau, use_lcp);
    if (s != CTS_STATUS_OK) library_error(solver, s);
    set_operators(solver, cts_rigid_solver_set_accel_operator_matrix, CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT,
                  N_minus_muQ, &jac);
    s = cts_rigid_solver_set_accel_inertia_matrix(solver, inertia_form, M, nv > 0 ? nv : 1);
    if (s != CTS_STATUS_OK) library_error(solver, s);
    s = cts_rigid_solver_solve_constraint_problem(solver);
  } else {
    size_t *spans;
    const double *Mv = required_vector(data, "Mv", nv);
    const double *mu = required_vector(data, "mu", nc);
    const double *gammaN = vector_field(data, "gammaN", nc, 0);
    const double *gammaF = vector_field(data, "gammaF", nr, 0);
    const double *gammaE = vector_field(data, "gammaE", nc, 0);
    const double *gammaL = vector_field(data, "gammaL", nu, 0);
    spans = spans_arg(data, nc, "contact");
    if (kind == KIND_DISCRETIZED) v = vector_field(data, "v", nv, 0);

    s = cts_rigid_solver_new(&solver);
    if (s != CTS_STATUS_OK) library_error(NULL, s);
    if ((s = cts_rigid_solver_set_parameters(solver, &params)) != CTS_STATUS_OK) library_error(solver, s);
    s = cts_rigid_solver_set_vel_problem_data(solver, nv, nc, nc > 0 ? spans : NULL, mu, kN, gammaN, kF, gammaF,
                                              gammaE, nu, kL, gammaL, nb, kG, Mv);
    if (s != CTS_STATUS_OK) library_error(solver, s);
    set_operators(solver, cts_rigid_solver_set_vel_operator_matrix, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, N, &jac);
    s = cts_rigid_solver_set_vel_inertia_matrix(solver, inertia_form, M, nv > 0 ? nv : 1);
    if (s != CTS_STATUS_OK) library_error(solver, s);
    s = kind == KIND_IMPACT ? cts_rigid_solver_solve_impact_problem(solver)
                            : cts_rigid_solver_solve_discretized_problem(solver, dt);
  }
  if (s >= CTS_STATUS_NULL_POINTER || s == CTS_STATUS_NON_FINITE_RESULT) library_error(solver, s);

  r = mxCreateStructMatrix(1, 1, CTS_COUNT(result_fields), result_fields);
  mxSetField(r, 0, "outcome", mxCreateDoubleScalar((double)s));
  mxSetField(r, 0, "outcome_name", mxCreateString(cts_status_string(s)));
  cf_len = cts_rigid_solver_num_constraint_forces(solver);
  cf_array = column(solver, cts_rigid_solver_get_constraint_forces, cf_len, r);
  mxSetField(r, 0, "cf", cf_array);
  cf = cf_len > 0 ? CTS_MX_DOUBLES(cf_array) : NULL;
  /* The generalized vectors need the full packed length (nc + nr + nu + nb); Drake's empty fast
   * exit (drake_empty_fast_exit) returns none. */
  if (cf_len == nc + nr + nu + nb && s == CTS_STATUS_OK) {
    if (accel) {
      mxSetField(r, 0, "generalized",
                 computed(solver, cts_rigid_solver_compute_generalized_force_from_constraint_forces, cf, cf_len, nv, r));
      mxSetField(r, 0, "acceleration",
                 computed(solver, cts_rigid_solver_compute_generalized_acceleration, cf, cf_len, nv, r));
    } else {
      mxSetField(r, 0, "generalized",
                 computed(solver, cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses, cf, cf_len,
                          nv, r));
      if (kind == KIND_IMPACT) {
        mxSetField(r, 0, "velocity_change",
                   computed(solver, cts_rigid_solver_compute_generalized_velocity_change, cf, cf_len, nv, r));
      } else if (v != NULL || nv == 0) {
        mxArray *x = mxCreateDoubleMatrix(nv, 1, mxREAL);
        s = cts_rigid_solver_compute_generalized_acceleration_discretized(solver, v, cf, cf_len, dt,
                                                                          nv > 0 ? CTS_MX_DOUBLES(x) : NULL, nv);
        if (s != CTS_STATUS_OK) {
          mxDestroyArray(x);
          mxDestroyArray(r);
          library_error(solver, s);
        }
        mxSetField(r, 0, "acceleration", x);
      }
    }
  }
  n_lcp = cts_rigid_solver_lcp_size(solver);
  mxSetField(r, 0, "lcp_size", mxCreateDoubleScalar((double)n_lcp));
  mxSetField(r, 0, "pivots", mxCreateDoubleScalar((double)cts_rigid_solver_num_pivots(solver)));
  mxSetField(r, 0, "regularization_used", mxCreateDoubleScalar((double)cts_rigid_solver_regularization_used(solver)));
  if (n_lcp > 0) {
    mxArray *mm = mxCreateDoubleMatrix(n_lcp, n_lcp, mxREAL);
    s = cts_rigid_solver_get_lcp_matrix(solver, CTS_MX_DOUBLES(mm), n_lcp);
    if (s != CTS_STATUS_OK) {
      mxDestroyArray(mm);
      mxDestroyArray(r);
      library_error(solver, s);
    }
    mxSetField(r, 0, "lcp_matrix", mm);
    mxSetField(r, 0, "lcp_vector", column(solver, cts_rigid_solver_get_lcp_vector, n_lcp, r));
    mxSetField(r, 0, "z", column(solver, cts_rigid_solver_get_lcp_z, n_lcp, r));
    mxSetField(r, 0, "w", column(solver, cts_rigid_solver_get_lcp_w, n_lcp, r));
  }
  plhs[0] = r;
  cts_rigid_solver_free(solver);
}
