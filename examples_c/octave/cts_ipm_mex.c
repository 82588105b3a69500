/* cts_ipm_mex.c: MEX gateway for GNU Octave and MATLAB to the interior-point solver of
 * libcontact_solvers (Dojo's primal-dual method, docs/ipm.md) on dense data: one time step.
 *
 *   r = cts_ipm_mex(M, Jn, Jt, v0, tau, h, phi, mu, models)
 *   r = cts_ipm_mex(M, Jn, Jt, v0, tau, h, phi, mu, models, params)
 *   r = cts_ipm_mex(M, Jn, Jt, v0, tau, h, phi, mu, models, 'engine')
 *   r = cts_ipm_mex('batch', problems, num_threads)
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
 * 'batch' solves many worlds in one library call (cts_ipm_solver_solve_batch, docs/c_api.md
 * §1.10) on num_threads threads (0 or 1: in order): problems is a cell array of structs with the
 * fields M, Jn, Jt, v0, tau, h, phi, mu, models and optionally params (a struct or 'engine'). r is
 * a cell array of the same size: r{i} is world i's result struct, equal bit for bit to the single
 * call's, or, when world i failed with a usage error (its data rejected), a struct with the fields
 * status and message; the other worlds are solved. A problem that is not a struct with those
 * fields raises before anything is solved.
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

static const char *result_fields[] = {"outcome", "outcome_name", "iterations", "rvio", "bvio",
                                      "natural_map", "v", "impulses", "gaps"};

CTS_MEX_COLUMN(cts_ipm_solver, CTS_STATUS_OK)

/* One time step's data, read from the call's arguments or from a problem struct of a batch. */
typedef struct {
  size_t n, nc;
  const double *M, *Jn, *Jt, *v0, *tau, *phi, *mu;
  double h;
  int32_t *models;
  cts_ipm_parameters params;
} world;

/* a[0..8]: M, Jn, Jt, v0, tau, h, phi, mu, models; a[9]: params or NULL. Raises on a bad one. */
static void world_args(const mxArray *const a[10], world *w) {
  w->n = mxGetNumberOfElements(a[3]);
  w->nc = mxGetNumberOfElements(a[6]);
  w->M = matrix_arg(a[0], "M", w->n, w->n);
  w->Jn = matrix_arg(a[1], "Jn", w->nc, w->n);
  w->Jt = matrix_arg(a[2], "Jt", 2 * w->nc, w->n);
  w->v0 = vector_arg(a[3], "v0", w->n);
  w->tau = vector_arg(a[4], "tau", w->n);
  w->h = scalar_arg(a[5], "h");
  w->phi = vector_arg(a[6], "phi", w->nc);
  w->mu = vector_arg(a[7], "mu", w->nc);
  w->models = codes_arg(a[8], w->nc, model_names, CTS_COUNT(model_names), "models");
  if (a[9] != NULL && mxIsChar(a[9])) {
    char preset[16];
    if (mxGetString(a[9], preset, sizeof preset) != 0 || strcmp(preset, "engine") != 0) {
      usage_error(CTS_STATUS_INVALID_ARGUMENT, "params: a struct, or the string 'engine' (the engine preset)");
    }
    cts_ipm_parameters_engine(&w->params);
  } else {
    cts_ipm_parameters_default(&w->params);
    options_arg(a[9], &w->params, parameter_fields, CTS_COUNT(parameter_fields), "params", NULL, NULL);
  }
}

/* Sets a world's parameters and data on its solver; the status of the first call that fails. */
static cts_status world_set(cts_ipm_solver *solver, const world *w) {
  const size_t n = w->n, nc = w->nc;
  cts_status s = cts_ipm_solver_set_parameters(solver, &w->params);
  if (s != CTS_STATUS_OK) return s;
  return cts_ipm_solver_set_problem_data(solver, n, nc, w->M, n > 0 ? n : 1, w->Jn, nc > 0 ? nc : 1, w->Jt,
                                         nc > 0 ? 2 * nc : 1, w->v0, w->tau, w->h, w->phi, w->mu,
                                         nc > 0 ? w->models : NULL, NULL, 0);
}

/* The result struct of a solve that ended with the outcome s. */
static mxArray *results(cts_ipm_solver *solver, cts_status s, const world *w) {
  cts_ipm_stats stats;
  mxArray *r;
  const cts_status si = cts_ipm_solver_get_stats(solver, &stats);
  if (si != CTS_STATUS_OK) library_error(solver, si);
  r = mxCreateStructMatrix(1, 1, CTS_COUNT(result_fields), result_fields);
  mxSetField(r, 0, "outcome", mxCreateDoubleScalar((double)s));
  mxSetField(r, 0, "outcome_name", mxCreateString(cts_status_string(s)));
  mxSetField(r, 0, "iterations", mxCreateDoubleScalar((double)stats.iterations));
  mxSetField(r, 0, "rvio", mxCreateDoubleScalar(stats.rvio));
  mxSetField(r, 0, "bvio", mxCreateDoubleScalar(stats.bvio));
  mxSetField(r, 0, "natural_map", mxCreateDoubleScalar(stats.natural_map));
  mxSetField(r, 0, "v", column(solver, cts_ipm_solver_get_generalized_velocities, w->n, r));
  mxSetField(r, 0, "impulses", column(solver, cts_ipm_solver_get_impulses, 3 * w->nc, r));
  mxSetField(r, 0, "gaps", column(solver, cts_ipm_solver_get_next_gaps, w->nc, r));
  return r;
}

static const char *arg_names[10] = {"M", "Jn", "Jt", "v0", "tau", "h", "phi", "mu", "models", "params"};

/* cts_ipm_mex('batch', problems, num_threads): every problem is read (a bad one raises) before
 * any solver exists; a world whose data the library refuses takes part as a NULL handle and
 * reports the set call's status and message. */
static void batch(mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  size_t n, i, k, created = 0;
  world *worlds;
  cts_ipm_solver **solvers, **run;
  cts_status *statuses, *set, s = CTS_STATUS_OK;
  double threads;
  mxArray *out;
  if (nrhs != 3 || !mxIsCell(prhs[1])) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "usage: cts_ipm_mex('batch', problems (a cell array), num_threads)");
  }
  threads = scalar_arg(prhs[2], "num_threads");
  if (!(threads >= 0.0 && threads <= 1024.0 && threads == floor(threads))) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "num_threads must be an integer in [0, 1024]");
  }
  n = mxGetNumberOfElements(prhs[1]);
  worlds = mxCalloc(n > 0 ? n : 1, sizeof *worlds);
  for (i = 0; i < n; ++i) {
    const mxArray *problem = mxGetCell(prhs[1], i), *a[10];
    if (problem == NULL || !mxIsStruct(problem) || mxGetNumberOfElements(problem) != 1) {
      usage_error(CTS_STATUS_INVALID_ARGUMENT, "problems must be a cell array of 1x1 structs");
    }
    for (k = 0; k < 10; ++k) {
      a[k] = mxGetField(problem, 0, arg_names[k]);
      if (a[k] == NULL && k < 9) {
        char message[160];
        snprintf(message, sizeof message, "problems{%zu} has no field %s", i + 1, arg_names[k]);
        usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
      }
    }
    world_args(a, &worlds[i]);
  }
  solvers = mxCalloc(n > 0 ? n : 1, sizeof *solvers);
  run = mxCalloc(n > 0 ? n : 1, sizeof *run);
  set = mxCalloc(n > 0 ? n : 1, sizeof *set);
  statuses = mxCalloc(n > 0 ? n : 1, sizeof *statuses);
  for (i = 0; i < n && s == CTS_STATUS_OK; ++i, ++created) s = cts_ipm_solver_new(&solvers[i]);
  if (s == CTS_STATUS_OK) {
    for (i = 0; i < n; ++i) {
      set[i] = world_set(solvers[i], &worlds[i]);
      run[i] = set[i] == CTS_STATUS_OK ? solvers[i] : NULL;
    }
    s = cts_ipm_solver_solve_batch(run, NULL, NULL, n, (size_t)threads, statuses);
  }
  out = mxCreateCellMatrix(1, n);
  for (i = 0; i < n && s == CTS_STATUS_OK; ++i) {
    const cts_status w = set[i] != CTS_STATUS_OK ? set[i] : statuses[i];
    if (w >= CTS_STATUS_NULL_POINTER || w == CTS_STATUS_NON_FINITE_RESULT) {
      static const char *fields[] = {"status", "message"};
      mxArray *e = mxCreateStructMatrix(1, 1, 2, fields);
      mxSetField(e, 0, "status", mxCreateDoubleScalar((double)w));
      mxSetField(e, 0, "message", mxCreateString(cts_ipm_solver_last_error(solvers[i])));
      mxSetCell(out, i, e);
    } else {
      mxSetCell(out, i, results(solvers[i], w, &worlds[i]));
    }
  }
  for (i = 0; i < created; ++i) cts_ipm_solver_free(solvers[i]);
  if (s != CTS_STATUS_OK) {
    mxDestroyArray(out);
    usage_error(s, cts_last_error_message());
  }
  plhs[0] = out;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  const mxArray *a[10];
  world w;
  cts_ipm_solver *solver = NULL;
  cts_status s;
  int k;

  if (nlhs > 1) usage_error(CTS_STATUS_INVALID_ARGUMENT, "one output (a struct)");
  if (nrhs >= 1 && mxIsChar(prhs[0])) {
    char command[8];
    if (mxGetString(prhs[0], command, sizeof command) != 0 || strcmp(command, "batch") != 0) {
      usage_error(CTS_STATUS_INVALID_ARGUMENT, "a command argument must be 'batch'");
    }
    batch(plhs, nrhs, prhs);
    return;
  }
  if (nrhs != 9 && nrhs != 10) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "usage: cts_ipm_mex(M, Jn, Jt, v0, tau, h, phi, mu, models [, params])");
  }
  for (k = 0; k < 10; ++k) a[k] = k < nrhs ? prhs[k] : NULL;
  world_args(a, &w);

  s = cts_ipm_solver_new(&solver);
  if (s != CTS_STATUS_OK) library_error(NULL, s);
  s = world_set(solver, &w);
  if (s != CTS_STATUS_OK) library_error(solver, s);
  s = cts_ipm_solver_solve(solver);
  if (s >= CTS_STATUS_NULL_POINTER) library_error(solver, s);
  plhs[0] = results(solver, s, &w);
  cts_ipm_solver_free(solver);
}
