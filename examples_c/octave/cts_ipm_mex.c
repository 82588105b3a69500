/* cts_ipm_mex.c: MEX gateway for GNU Octave and MATLAB to the interior-point solver of
 * libcontact_solvers (Dojo's primal-dual method, docs/ipm.md) on dense data: one time step.
 *
 *   r = cts_ipm_mex(M, Jn, Jt, v0, tau, h, phi, mu, models)
 *   r = cts_ipm_mex(M, Jn, Jt, v0, tau, h, phi, mu, models, params)
 *   r = cts_ipm_mex(M, Jn, Jt, v0, tau, h, phi, mu, models, 'engine')
 *
 * With n = numel(v0) and nc = numel(phi): M is n x n (kg, kg m^2), Jn nc x n, Jt 2nc x n (rows
 * 2i-1, 2i: the two tangent directions of contact i), v0 n (pre-step velocity, m/s), tau n
 * (generalized non-contact force: gravity, controls; N), h the step (s), phi the gaps (m), mu
 * the friction coefficients (nc), models a cell array of nc names ('impact',
 * 'second_order_cone', 'linear') or a numeric vector of CTS_IPM_MODEL_* codes. Real, full double
 * arrays, column-major as MATLAB stores them: nothing is copied. params is an optional struct with
 * any numeric field of cts_ipm_parameters (rtol, btol, max_iter, ..., dojo_compatible,
 * near_rigid_beta, natural_map_tolerance, num_threads: block data only, no effect here); the
 * string 'engine' selects the engine preset
 * (cts_ipm_parameters_engine: per-contact near-rigid normal regularization, docs/ipm.md §11.7).
 *
 * r is a struct: outcome (the cts_status: 0 = converged, else an interior-point outcome such as
 * CTS_STATUS_IPM_MAX_ITERATIONS_REACHED; the fields then hold the last iterate), outcome_name
 * (the library's cts_status_string), iterations, rvio, bvio, and the column vectors v (n),
 * impulses (3nc: normal, then the two friction impulses of each contact, N·s) and gaps (nc: the
 * next gaps, m).
 *
 * Usage errors raise an error with identifier contact_solvers:<status> and the library's
 * message. A solver is created and freed per call; the borrowed data lives through the call.
 *
 * Build: as cts_tamsi_mex.c (mkoctfile --mex [-R2018a] -I<prefix>/include cts_ipm_mex.c
 * -L<prefix>/lib -lcontact_solvers; MATLAB: mex -R2018a ...).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mex.h"

#include "contact_solvers.h"
#include "cts_mex_util.h"

CTS_MEX_LIBRARY_ERROR(cts_ipm_solver)

#define CTS_IPM_FIELD(f, is_int) CTS_MEX_FIELD(cts_ipm_parameters, f, is_int)
static const cts_mex_field parameter_fields[] = {
    CTS_IPM_FIELD(rtol, 0),
    CTS_IPM_FIELD(btol, 0),
    CTS_IPM_FIELD(max_iter, 1),
    CTS_IPM_FIELD(max_ls, 1),
    CTS_IPM_FIELD(undercut, 0),
    CTS_IPM_FIELD(no_progress_max, 1),
    CTS_IPM_FIELD(no_progress_undercut, 0),
    CTS_IPM_FIELD(dojo_lagged_kappa, 1),
    CTS_IPM_FIELD(fixed_kappa, 0),
    CTS_IPM_FIELD(warm_start, 1),
    CTS_IPM_FIELD(newton_solve, 1),
    CTS_IPM_FIELD(rvio_floor_in_backtracking, 1),
    CTS_IPM_FIELD(dojo_compatible, 1),
    CTS_IPM_FIELD(tolerance, 0),
    CTS_IPM_FIELD(complementarity_tolerance, 0),
    CTS_IPM_FIELD(centrality_correctors, 1),
    CTS_IPM_FIELD(proximal_regularization, 0),
    CTS_IPM_FIELD(normal_compliance, 0),
    CTS_IPM_FIELD(stall_iterations, 1),
    CTS_IPM_FIELD(near_rigid_beta, 0),
    CTS_IPM_FIELD(natural_map_tolerance, 0),
    CTS_IPM_FIELD(num_threads, 1),
};

static const cts_mex_name model_names[] = {
    {"impact", CTS_IPM_MODEL_IMPACT},
    {"second_order_cone", CTS_IPM_MODEL_SECOND_ORDER_CONE},
    {"linear", CTS_IPM_MODEL_LINEAR},
};

static const char *result_fields[] = {"outcome", "outcome_name", "iterations", "rvio",
                                      "bvio",    "v",            "impulses",   "gaps"};

CTS_MEX_COLUMN(cts_ipm_solver, CTS_STATUS_OK)

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  size_t n, nc;
  const double *M, *Jn, *Jt, *v0, *tau, *phi, *mu;
  double h;
  int32_t *models;
  cts_ipm_parameters params;
  cts_ipm_stats stats;
  cts_ipm_solver *solver = NULL;
  cts_status s;
  mxArray *r;

  if (nlhs > 1) usage_error(CTS_STATUS_INVALID_ARGUMENT, "one output (a struct)");
  if (nrhs != 9 && nrhs != 10) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "usage: cts_ipm_mex(M, Jn, Jt, v0, tau, h, phi, mu, models [, params])");
  }
  n = mxGetNumberOfElements(prhs[3]);
  nc = mxGetNumberOfElements(prhs[6]);
  M = matrix_arg(prhs[0], "M", n, n);
  Jn = matrix_arg(prhs[1], "Jn", nc, n);
  Jt = matrix_arg(prhs[2], "Jt", 2 * nc, n);
  v0 = vector_arg(prhs[3], "v0", n);
  tau = vector_arg(prhs[4], "tau", n);
  h = scalar_arg(prhs[5], "h");
  phi = vector_arg(prhs[6], "phi", nc);
  mu = vector_arg(prhs[7], "mu", nc);
  models = codes_arg(prhs[8], nc, model_names, CTS_COUNT(model_names), "models");
  if (nrhs == 10 && mxIsChar(prhs[9])) {
    char preset[16];
    if (mxGetString(prhs[9], preset, sizeof preset) != 0 || strcmp(preset, "engine") != 0) {
      usage_error(CTS_STATUS_INVALID_ARGUMENT, "params: a struct, or the string 'engine' (the engine preset)");
    }
    cts_ipm_parameters_engine(&params);
  } else {
    cts_ipm_parameters_default(&params);
    options_arg(nrhs == 10 ? prhs[9] : NULL, &params, parameter_fields, CTS_COUNT(parameter_fields), "params", NULL,
                NULL);
  }

  s = cts_ipm_solver_new(&solver);
  if (s != CTS_STATUS_OK) library_error(NULL, s);
  s = cts_ipm_solver_set_parameters(solver, &params);
  if (s != CTS_STATUS_OK) library_error(solver, s);
  s = cts_ipm_solver_set_problem_data(solver, n, nc, M, n > 0 ? n : 1, Jn, nc > 0 ? nc : 1, Jt, nc > 0 ? 2 * nc : 1,
                                      v0, tau, h, phi, mu, nc > 0 ? models : NULL, NULL, 0);
  if (s != CTS_STATUS_OK) library_error(solver, s);
  s = cts_ipm_solver_solve(solver);
  if (s >= CTS_STATUS_NULL_POINTER) library_error(solver, s);
  {
    const cts_status si = cts_ipm_solver_get_stats(solver, &stats);
    if (si != CTS_STATUS_OK) library_error(solver, si);
  }

  r = mxCreateStructMatrix(1, 1, CTS_COUNT(result_fields), result_fields);
  mxSetField(r, 0, "outcome", mxCreateDoubleScalar((double)s));
  mxSetField(r, 0, "outcome_name", mxCreateString(cts_status_string(s)));
  mxSetField(r, 0, "iterations", mxCreateDoubleScalar((double)stats.iterations));
  mxSetField(r, 0, "rvio", mxCreateDoubleScalar(stats.rvio));
  mxSetField(r, 0, "bvio", mxCreateDoubleScalar(stats.bvio));
  mxSetField(r, 0, "v", column(solver, cts_ipm_solver_get_generalized_velocities, n, r));
  mxSetField(r, 0, "impulses", column(solver, cts_ipm_solver_get_impulses, 3 * nc, r));
  mxSetField(r, 0, "gaps", column(solver, cts_ipm_solver_get_next_gaps, nc, r));
  plhs[0] = r;
  cts_ipm_solver_free(solver);
}
