/* cts_lcp_mex.c: MEX gateway for GNU Octave and MATLAB to the LCP solvers of libcontact_solvers
 * (Drake's MobyLcpSolver and UnrevisedLemkeSolver): w = M z + q, z >= 0, w >= 0, z'w = 0.
 *
 *   r = cts_lcp_mex(algorithm, M, q)
 *   r = cts_lcp_mex(algorithm, M, q, options)
 *
 * algorithm: 'lemke', 'lemke_regularized', 'fast', 'fast_regularized' or 'unrevised_lemke'
 * (CTS_LCP_ALGORITHM_*). M is a real, full n x n double matrix (column-major, as MATLAB stores
 * it: nothing is copied), q a vector of n entries; unitless. options is an optional struct with
 * any of the fields of cts_lcp_parameters (pivot_tolerance, zero_tolerance, lemke_variant (0:
 * Drake's rules, 1: lexicographic), max_pivots, refactor_interval, lemke_min_exp,
 * lemke_step_exp, lemke_max_exp, fast_min_exp, fast_step_exp, fast_max_exp,
 * drake_compatible_verdict, residual_tolerance) and z0 (n entries: the warm start of 'fast').
 *
 * r is a struct: z, w (column vectors), outcome (the cts_status: 0 = solved, else an LCP
 * outcome such as CTS_STATUS_LCP_RAY_TERMINATION), outcome_name (the library's
 * cts_status_string), pivots, drake_verdict, residual_test_passed, regularization (the accepted
 * shift 10^e, 0 when none) and zero_tolerance (the one used). Values come from the header at
 * compile time, names from the library: nothing is copied by hand.
 *
 * Usage errors (and non-finite data, which the library rejects) raise an error with identifier
 * contact_solvers:<status> and the library's message. A solver is created and freed per call.
 *
 * Build: as cts_tamsi_mex.c (mkoctfile --mex [-R2018a] -I<prefix>/include cts_lcp_mex.c
 * -L<prefix>/lib -lcontact_solvers; MATLAB: mex -R2018a ...).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mex.h"

#include "contact_solvers.h"
#include "cts_mex_util.h"

CTS_MEX_LIBRARY_ERROR(cts_lcp_solver)

static const struct {
  const char *name;
  int32_t code;
} algorithms[] = {
    {"lemke", CTS_LCP_ALGORITHM_LEMKE},
    {"lemke_regularized", CTS_LCP_ALGORITHM_LEMKE_REGULARIZED},
    {"fast", CTS_LCP_ALGORITHM_FAST},
    {"fast_regularized", CTS_LCP_ALGORITHM_FAST_REGULARIZED},
    {"unrevised_lemke", CTS_LCP_ALGORITHM_UNREVISED_LEMKE},
};

/* The fields of cts_lcp_parameters an options struct may set. */
#define CTS_LCP_FIELD(f, is_int) CTS_MEX_FIELD(cts_lcp_parameters, f, is_int)
static const cts_mex_field parameter_fields[] = {
    CTS_LCP_FIELD(pivot_tolerance, 0),   CTS_LCP_FIELD(zero_tolerance, 0),
    CTS_LCP_FIELD(lemke_variant, 1),     CTS_LCP_FIELD(max_pivots, 1),
    CTS_LCP_FIELD(refactor_interval, 1), CTS_LCP_FIELD(lemke_min_exp, 1),
    CTS_LCP_FIELD(lemke_step_exp, 1),    CTS_LCP_FIELD(lemke_max_exp, 1),
    CTS_LCP_FIELD(fast_min_exp, 1),      CTS_LCP_FIELD(fast_step_exp, 1),
    CTS_LCP_FIELD(fast_max_exp, 1),      CTS_LCP_FIELD(drake_compatible_verdict, 1),
    CTS_LCP_FIELD(residual_tolerance, 0),
};

static const char *result_fields[] = {"z",      "w",           "outcome",    "outcome_name",
                                      "pivots", "drake_verdict", "residual_test_passed",
                                      "regularization", "zero_tolerance"};

/* A failed solve's non-finite z or w is still copied (CTS_STATUS_NON_FINITE_RESULT). */
CTS_MEX_COLUMN(cts_lcp_solver, CTS_STATUS_NON_FINITE_RESULT)

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  char name[32];
  size_t n, k;
  int32_t algorithm = -1;
  const double *M, *q, *z0;
  const mxArray *z0_arg = NULL;
  cts_lcp_parameters params;
  cts_lcp_solve_info info;
  cts_lcp_solver *solver = NULL;
  cts_status s;
  mxArray *r;

  if (nlhs > 1) usage_error(CTS_STATUS_INVALID_ARGUMENT, "one output (a struct)");
  if (nrhs != 3 && nrhs != 4) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "usage: cts_lcp_mex(algorithm, M, q [, options])");
  }
  if (!mxIsChar(prhs[0]) || mxGetString(prhs[0], name, sizeof name) != 0) name[0] = '\0';
  for (k = 0; k < CTS_COUNT(algorithms); ++k) {
    if (strcmp(name, algorithms[k].name) == 0) algorithm = algorithms[k].code;
  }
  if (algorithm < 0) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT,
                "algorithm: 'lemke', 'lemke_regularized', 'fast', 'fast_regularized' or 'unrevised_lemke'");
  }
  n = mxGetNumberOfElements(prhs[2]);
  M = matrix_arg(prhs[1], "M", n, n);
  q = vector_arg(prhs[2], "q", n);
  cts_lcp_parameters_default(&params);
  options_arg(nrhs == 4 ? prhs[3] : NULL, &params, parameter_fields, CTS_COUNT(parameter_fields), "options", "z0",
              &z0_arg);
  z0 = z0_arg != NULL ? vector_arg(z0_arg, "options.z0", n) : NULL;

  s = cts_lcp_solver_new(&solver);
  if (s != CTS_STATUS_OK) library_error(NULL, s);
  s = cts_lcp_solver_set_parameters(solver, &params);
  if (s != CTS_STATUS_OK) library_error(solver, s);
  s = cts_lcp_solver_solve(solver, algorithm, n, M, n > 0 ? n : 1, q, z0);
  if (s >= CTS_STATUS_NULL_POINTER) library_error(solver, s);
  {
    const cts_status si = cts_lcp_solver_get_solve_info(solver, &info);
    if (si != CTS_STATUS_OK) library_error(solver, si);
  }

  r = mxCreateStructMatrix(1, 1, CTS_COUNT(result_fields), result_fields);
  mxSetField(r, 0, "z", column(solver, cts_lcp_solver_get_z, n, r));
  mxSetField(r, 0, "w", column(solver, cts_lcp_solver_get_w, n, r));
  mxSetField(r, 0, "outcome", mxCreateDoubleScalar((double)s));
  mxSetField(r, 0, "outcome_name", mxCreateString(cts_status_string(s)));
  mxSetField(r, 0, "pivots", mxCreateDoubleScalar((double)cts_lcp_solver_num_pivots(solver)));
  mxSetField(r, 0, "drake_verdict", mxCreateDoubleScalar((double)info.drake_verdict));
  mxSetField(r, 0, "residual_test_passed", mxCreateDoubleScalar((double)info.residual_test_passed));
  mxSetField(r, 0, "regularization", mxCreateDoubleScalar(info.regularization));
  mxSetField(r, 0, "zero_tolerance", mxCreateDoubleScalar(info.zero_tolerance));
  plhs[0] = r;
  cts_lcp_solver_free(solver);
}
