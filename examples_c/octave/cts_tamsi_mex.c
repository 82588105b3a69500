/* cts_tamsi_mex.c: MEX gateway for GNU Octave and MATLAB to the TAMSI solver of libcontact_solvers
 * (Drake's TamsiSolver): one call sets the problem data, solves and returns every result.
 *
 *   r = cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, dt, v_guess)
 *   r = cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, dt, v_guess, params)
 *   r = cts_tamsi_mex('two_way', M, Jn, Jt, p_star, fn0, stiffness, dissipation, mu, dt, v_guess)
 *   r = cts_tamsi_mex('two_way', ..., v_guess, params)
 *   r = cts_tamsi_mex('batch', problems, num_threads)
 *   s = cts_tamsi_mex('version')
 *
 * Inputs are real, full double arrays. With nv = numel(p_star) and nc = numel(fn) (or
 * numel(fn0)): M is nv x nv, Jn nc x nv, Jt 2nc x nv (rows 2i-1, 2i: the two tangent directions of
 * contact i), the per-contact vectors have nc entries (rows or columns); for nc = 0, Jn and Jt may
 * be any empty array. MATLAB and Octave store matrices column-major, the library's layout, so
 * nothing is copied. params is an optional struct with any of the fields stiction_tolerance (m/s),
 * max_iterations, relative_tolerance, theta_max (rad), num_threads (block data only: no effect
 * here); the others keep Drake's defaults.
 *
 * r is a struct: outcome (0 = kSuccess, 1 = kMaxIterationsReached, 2 = kLinearSolverFailed,
 * 3 = kAlphaSolverFailed: Drake's TamsiSolverResult; after a failure the fields hold the last
 * iterate), outcome_name, iterations, residuals (the ‖Δvt‖ history), vt_residual, and the column
 * vectors v, vn, vt, fn, ft, tau_f (Jtᵀ ft), tau (Jtᵀ ft + Jnᵀ fn). SI units, forces in N.
 *
 * 'batch' solves many worlds in one library call (cts_tamsi_solver_solve_batch, docs/c_api.md
 * §1.10) on num_threads threads (0 or 1: in order): problems is a cell array of structs, each with
 * the fields M, Jn, Jt, p_star, mu, dt, v_guess, and fn (one-way) or fn0, stiffness, dissipation
 * (two-way), and optionally params. r is a cell array of the same size: r{i} is world i's result
 * struct, equal bit for bit to the single call's, or, when world i failed with a usage error
 * (its data or dt rejected), a struct with the fields status and message; the other worlds are
 * solved. A problem that is not a struct with those fields raises before anything is solved.
 *
 * Usage errors raise an error with identifier contact_solvers:<status> (e.g.
 * contact_solvers:invalidArgument) and the library's message; catch it with try/catch.
 *
 * The library borrows problem data until the solve, which here happens inside the same call, so
 * the MATLAB/Octave arrays are alive for the whole borrow. A solver is created and freed per call.
 *
 * Build (Octave):  mkoctfile --mex -I<prefix>/include cts_tamsi_mex.c -L<prefix>/lib -lcontact_solvers
 *                  (add -R2018a for the interleaved-complex API; both work. Not a bare
 *                  -DMX_HAS_INTERLEAVED_COMPLEX=1: Octave 7.3 then treats the MEX file as
 *                  separate-complex and aborts in mex.cc; -R2018a also marks the file.)
 * Build (MATLAB):  mex -R2018a -I<prefix>/include cts_tamsi_mex.c -L<prefix>/lib -lcontact_solvers
 *                  (or -R2017b, the separate-complex API)
 * The loader must find libcontact_solvers.so at run time (LD_LIBRARY_PATH, an installed library,
 * or -Wl,-rpath,<prefix>/lib at build time).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mex.h"

#include "contact_solvers.h"
#include "cts_mex_util.h"

static const char *outcome_name(cts_status s) {
  switch (s) {
    case CTS_STATUS_OK: return "kSuccess";
    case CTS_STATUS_MAX_ITERATIONS_REACHED: return "kMaxIterationsReached";
    case CTS_STATUS_LINEAR_SOLVER_FAILED: return "kLinearSolverFailed";
    case CTS_STATUS_ALPHA_SOLVER_FAILED: return "kAlphaSolverFailed";
    default: return "unknown";
  }
}

CTS_MEX_LIBRARY_ERROR(cts_tamsi_solver)

/* Drake's defaults, overridden by the fields of a params struct. */
static void parameters_arg(const mxArray *a, cts_tamsi_parameters *p) {
  int i, n;
  cts_tamsi_parameters_default(p);
  if (a == NULL) return;
  if (!mxIsStruct(a) || mxGetNumberOfElements(a) != 1) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "params must be a 1x1 struct");
  }
  n = mxGetNumberOfFields(a);
  for (i = 0; i < n; ++i) {
    const char *field = mxGetFieldNameByNumber(a, i);
    const double value = scalar_arg(mxGetFieldByNumber(a, 0, i), field);
    if (strcmp(field, "stiction_tolerance") == 0) {
      p->stiction_tolerance = value;
    } else if (strcmp(field, "relative_tolerance") == 0) {
      p->relative_tolerance = value;
    } else if (strcmp(field, "theta_max") == 0) {
      p->theta_max = value;
    } else if (strcmp(field, "max_iterations") == 0) {
      if (!(value == floor(value) && fabs(value) <= 2147483647.0)) {
        usage_error(CTS_STATUS_INVALID_ARGUMENT, "params.max_iterations must be an int32 integer");
      }
      p->max_iterations = (int32_t)value;
    } else if (strcmp(field, "num_threads") == 0) {
      /* Block data only (docs/performance.md §8): accepted and validated, no effect on M, Jn, Jt. */
      if (!(value == floor(value) && fabs(value) <= 2147483647.0)) {
        usage_error(CTS_STATUS_INVALID_ARGUMENT, "params.num_threads must be an int32 integer");
      }
      p->num_threads = (int32_t)value;
    } else {
      char message[256];
      snprintf(message, sizeof message,
               "params.%s is not a TAMSI parameter (stiction_tolerance, max_iterations, "
               "relative_tolerance, theta_max, num_threads)",
               field);
      usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
    }
  }
}

typedef cts_status (*getter)(const cts_tamsi_solver *, double *, size_t);

/* r.<name> = a column vector of n entries filled by `get`. */
static void set_vector(mxArray *r, cts_tamsi_solver *solver, const char *name, getter get, size_t n) {
  mxArray *x = mxCreateDoubleMatrix(n, 1, mxREAL);
  cts_status s = get(solver, n > 0 ? CTS_MX_DOUBLES(x) : NULL, n);
  if (s != CTS_STATUS_OK) {
    mxDestroyArray(x);
    library_error(solver, s);
  }
  mxSetField(r, 0, name, x);
}

static void set_scalar(mxArray *r, const char *name, double value) {
  mxSetField(r, 0, name, mxCreateDoubleScalar(value));
}

static const char *result_fields[] = {"outcome", "outcome_name", "iterations", "residuals", "vt_residual",
                                      "v",       "vn",           "vt",         "fn",        "ft",
                                      "tau_f",   "tau"};

static mxArray *results(cts_tamsi_solver *solver, cts_status outcome, size_t nv, size_t nc) {
  mxArray *r = mxCreateStructMatrix(1, 1, sizeof result_fields / sizeof result_fields[0], result_fields);
  cts_tamsi_iteration_stats stats;
  size_t count = 0;
  mxArray *residuals;
  cts_status s;

  s = cts_tamsi_solver_get_iteration_stats(solver, &stats);
  if (s == CTS_STATUS_OK) s = cts_tamsi_solver_get_residuals(solver, NULL, 0, &count);
  if (s != CTS_STATUS_OK) {
    mxDestroyArray(r);
    library_error(solver, s);
  }
  residuals = mxCreateDoubleMatrix(count, 1, mxREAL);
  if (count > 0) {
    s = cts_tamsi_solver_get_residuals(solver, CTS_MX_DOUBLES(residuals), count, &count);
    if (s != CTS_STATUS_OK) {
      mxDestroyArray(residuals);
      mxDestroyArray(r);
      library_error(solver, s);
    }
  }
  set_scalar(r, "outcome", (double)outcome);
  mxSetField(r, 0, "outcome_name", mxCreateString(outcome_name(outcome)));
  set_scalar(r, "iterations", (double)stats.num_iterations);
  mxSetField(r, 0, "residuals", residuals);
  set_scalar(r, "vt_residual", stats.vt_residual);
  set_vector(r, solver, "v", cts_tamsi_solver_get_generalized_velocities, nv);
  set_vector(r, solver, "vn", cts_tamsi_solver_get_normal_velocities, nc);
  set_vector(r, solver, "vt", cts_tamsi_solver_get_tangential_velocities, 2 * nc);
  set_vector(r, solver, "fn", cts_tamsi_solver_get_normal_forces, nc);
  set_vector(r, solver, "ft", cts_tamsi_solver_get_friction_forces, 2 * nc);
  set_vector(r, solver, "tau_f", cts_tamsi_solver_get_generalized_friction_forces, nv);
  set_vector(r, solver, "tau", cts_tamsi_solver_get_generalized_contact_forces, nv);
  return r;
}

/* The arrays of one world of a batch, read from its problem struct (raises on a bad one). */
typedef struct {
  size_t nv, nc;
  int two_way;
  const double *M, *Jn, *Jt, *p_star, *per_contact[4], *v_guess;
  double dt;
  cts_tamsi_parameters params;
} world;

static const mxArray *field_arg(const mxArray *problem, size_t i, const char *name) {
  const mxArray *f = mxGetField(problem, 0, name);
  if (f == NULL) {
    char message[160];
    snprintf(message, sizeof message, "problems{%zu} has no field %s", i + 1, name);
    usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
  }
  return f;
}

static void world_arg(const mxArray *problem, size_t i, world *w) {
  static const char *one_way_names[] = {"fn", "mu"};
  static const char *two_way_names[] = {"fn0", "stiffness", "dissipation", "mu"};
  const char **names;
  const mxArray *params;
  int k, n;
  if (problem == NULL || !mxIsStruct(problem) || mxGetNumberOfElements(problem) != 1) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "problems must be a cell array of 1x1 structs");
  }
  w->two_way = mxGetField(problem, 0, "fn0") != NULL;
  names = w->two_way ? two_way_names : one_way_names;
  n = w->two_way ? 4 : 2;
  w->nv = mxGetNumberOfElements(field_arg(problem, i, "p_star"));
  w->nc = mxGetNumberOfElements(field_arg(problem, i, names[0]));
  w->M = matrix_arg(field_arg(problem, i, "M"), "M", w->nv, w->nv);
  w->Jn = matrix_arg(field_arg(problem, i, "Jn"), "Jn", w->nc, w->nv);
  w->Jt = matrix_arg(field_arg(problem, i, "Jt"), "Jt", 2 * w->nc, w->nv);
  w->p_star = vector_arg(field_arg(problem, i, "p_star"), "p_star", w->nv);
  for (k = 0; k < n; ++k) w->per_contact[k] = vector_arg(field_arg(problem, i, names[k]), names[k], w->nc);
  w->dt = scalar_arg(field_arg(problem, i, "dt"), "dt");
  w->v_guess = vector_arg(field_arg(problem, i, "v_guess"), "v_guess", w->nv);
  params = mxGetField(problem, 0, "params");
  parameters_arg(params, &w->params);
}

/* Sets a world's parameters and data on its solver; the status of the first call that fails. */
static cts_status world_set(cts_tamsi_solver *solver, const world *w) {
  const size_t ldm = w->nv > 0 ? w->nv : 1, ldn = w->nc > 0 ? w->nc : 1, ldt = w->nc > 0 ? 2 * w->nc : 1;
  cts_status s = cts_tamsi_solver_set_parameters(solver, &w->params);
  if (s != CTS_STATUS_OK) return s;
  if (w->two_way) {
    return cts_tamsi_solver_set_two_way_coupled_problem_data(solver, w->nc, w->M, ldm, w->Jn, ldn, w->Jt, ldt,
                                                             w->p_star, w->per_contact[0], w->per_contact[1],
                                                             w->per_contact[2], w->per_contact[3]);
  }
  return cts_tamsi_solver_set_one_way_coupled_problem_data(solver, w->nc, w->M, ldm, w->Jn, ldn, w->Jt, ldt,
                                                           w->p_star, w->per_contact[0], w->per_contact[1]);
}

static mxArray *world_error(cts_status s, const char *message) {
  static const char *fields[] = {"status", "message"};
  mxArray *r = mxCreateStructMatrix(1, 1, 2, fields);
  mxSetField(r, 0, "status", mxCreateDoubleScalar((double)s));
  mxSetField(r, 0, "message", mxCreateString(message));
  return r;
}

/* cts_tamsi_mex('batch', problems, num_threads). Every problem is read (and a bad one raises)
 * before any solver exists; the solvers are freed before anything can raise again. */
static void batch(mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  size_t n, i, created = 0;
  world *worlds;
  cts_tamsi_solver **solvers, **run;
  double *dts, threads;
  const double **guesses;
  size_t *nvs;
  cts_status *statuses, *set, s = CTS_STATUS_OK;
  mxArray *out;
  if (nrhs != 3 || !mxIsCell(prhs[1])) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "usage: cts_tamsi_mex('batch', problems (a cell array), num_threads)");
  }
  threads = scalar_arg(prhs[2], "num_threads");
  if (!(threads >= 0.0 && threads <= 1024.0 && threads == floor(threads))) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "num_threads must be an integer in [0, 1024]");
  }
  n = mxGetNumberOfElements(prhs[1]);
  worlds = mxCalloc(n > 0 ? n : 1, sizeof *worlds);
  for (i = 0; i < n; ++i) world_arg(mxGetCell(prhs[1], i), i, &worlds[i]);
  solvers = mxCalloc(n > 0 ? n : 1, sizeof *solvers);
  run = mxCalloc(n > 0 ? n : 1, sizeof *run);
  set = mxCalloc(n > 0 ? n : 1, sizeof *set);
  dts = mxCalloc(n > 0 ? n : 1, sizeof *dts);
  guesses = mxCalloc(n > 0 ? n : 1, sizeof *guesses);
  nvs = mxCalloc(n > 0 ? n : 1, sizeof *nvs);
  statuses = mxCalloc(n > 0 ? n : 1, sizeof *statuses);
  for (i = 0; i < n && s == CTS_STATUS_OK; ++i, ++created) s = cts_tamsi_solver_new(worlds[i].nv, &solvers[i]);
  if (s == CTS_STATUS_OK) {
    for (i = 0; i < n; ++i) {
      dts[i] = worlds[i].dt;
      guesses[i] = worlds[i].v_guess;
      nvs[i] = worlds[i].nv;
      /* A world whose data is refused takes part as a NULL handle: its result is the set
       * call's status and message, which the batch leaves on its handle. */
      set[i] = world_set(solvers[i], &worlds[i]);
      run[i] = set[i] == CTS_STATUS_OK ? solvers[i] : NULL;
    }
    s = cts_tamsi_solver_solve_batch(run, dts, guesses, nvs, n, (size_t)threads, statuses);
  }
  out = mxCreateCellMatrix(1, n);
  for (i = 0; i < n && s == CTS_STATUS_OK; ++i) {
    cts_status w = set[i] != CTS_STATUS_OK ? set[i] : statuses[i];
    if (w >= CTS_STATUS_NULL_POINTER || w == CTS_STATUS_NON_FINITE_RESULT) {
      mxSetCell(out, i, world_error(w, cts_tamsi_solver_last_error(solvers[i])));
    } else {
      mxSetCell(out, i, results(solvers[i], w, worlds[i].nv, worlds[i].nc));
    }
  }
  for (i = 0; i < created; ++i) cts_tamsi_solver_free(solvers[i]);
  if (s != CTS_STATUS_OK) {
    mxDestroyArray(out);
    usage_error(s, cts_last_error_message());
  }
  plhs[0] = out;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  char command[16];
  int two_way, n_per_contact, nargs;
  size_t nv, nc;
  const double *M, *Jn, *Jt, *p_star, *per_contact[4], *v_guess;
  double dt;
  cts_tamsi_parameters params;
  cts_tamsi_solver *solver = NULL;
  cts_status s;
  static const char *one_way_names[] = {"fn", "mu"};
  static const char *two_way_names[] = {"fn0", "stiffness", "dissipation", "mu"};
  const char **names;
  int i;

  if (nlhs > 1) usage_error(CTS_STATUS_INVALID_ARGUMENT, "one output (a struct)");
  if (nrhs < 1 || !mxIsChar(prhs[0]) || mxGetString(prhs[0], command, sizeof command) != 0) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "first argument: 'one_way', 'two_way' or 'version'");
  }
  if (strcmp(command, "version") == 0) {
    plhs[0] = mxCreateString(cts_version());
    return;
  }
  if (strcmp(command, "batch") == 0) {
    batch(plhs, nrhs, prhs);
    return;
  }
  if (strcmp(command, "one_way") == 0) {
    two_way = 0;
  } else if (strcmp(command, "two_way") == 0) {
    two_way = 1;
  } else {
    usage_error(CTS_STATUS_INVALID_ARGUMENT, "first argument: 'one_way', 'two_way' or 'version'");
    return;
  }
  n_per_contact = two_way ? 4 : 2;
  names = two_way ? two_way_names : one_way_names;
  nargs = 1 + 4 + n_per_contact + 2; /* command, M Jn Jt p_star, per-contact, dt v_guess */
  if (nrhs != nargs && nrhs != nargs + 1) {
    usage_error(CTS_STATUS_INVALID_ARGUMENT,
                two_way ? "usage: cts_tamsi_mex('two_way', M, Jn, Jt, p_star, fn0, stiffness, dissipation, "
                          "mu, dt, v_guess [, params])"
                        : "usage: cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, dt, v_guess [, params])");
  }

  nv = mxGetNumberOfElements(prhs[4]);
  nc = mxGetNumberOfElements(prhs[5]);
  M = matrix_arg(prhs[1], "M", nv, nv);
  Jn = matrix_arg(prhs[2], "Jn", nc, nv);
  Jt = matrix_arg(prhs[3], "Jt", 2 * nc, nv);
  p_star = vector_arg(prhs[4], "p_star", nv);
  for (i = 0; i < n_per_contact; ++i) per_contact[i] = vector_arg(prhs[5 + i], names[i], nc);
  dt = scalar_arg(prhs[5 + n_per_contact], "dt");
  v_guess = vector_arg(prhs[6 + n_per_contact], "v_guess", nv);
  parameters_arg(nrhs == nargs + 1 ? prhs[nargs] : NULL, &params);

  s = cts_tamsi_solver_new(nv, &solver);
  if (s != CTS_STATUS_OK) library_error(NULL, s);
  s = cts_tamsi_solver_set_parameters(solver, &params);
  if (s != CTS_STATUS_OK) library_error(solver, s);
  if (two_way) {
    s = cts_tamsi_solver_set_two_way_coupled_problem_data(solver, nc, M, nv > 0 ? nv : 1, Jn, nc > 0 ? nc : 1, Jt,
                                                          nc > 0 ? 2 * nc : 1, p_star, per_contact[0],
                                                          per_contact[1], per_contact[2], per_contact[3]);
  } else {
    s = cts_tamsi_solver_set_one_way_coupled_problem_data(solver, nc, M, nv > 0 ? nv : 1, Jn, nc > 0 ? nc : 1, Jt,
                                                          nc > 0 ? 2 * nc : 1, p_star, per_contact[0],
                                                          per_contact[1]);
  }
  if (s != CTS_STATUS_OK) library_error(solver, s);

  s = cts_tamsi_solver_solve_with_guess(solver, dt, v_guess, nv);
  if (s >= CTS_STATUS_NULL_POINTER || s == CTS_STATUS_NON_FINITE_RESULT) library_error(solver, s);

  plhs[0] = results(solver, s, nv, nc);
  cts_tamsi_solver_free(solver);
}
