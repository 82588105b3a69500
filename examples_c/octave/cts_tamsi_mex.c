/* cts_tamsi_mex.c: MEX gateway for GNU Octave and MATLAB to the TAMSI solver of libcontact_solvers
 * (Drake's TamsiSolver): one call sets the problem data, solves and returns every result.
 *
 *   r = cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, dt, v_guess)
 *   r = cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, dt, v_guess, params)
 *   r = cts_tamsi_mex('two_way', M, Jn, Jt, p_star, fn0, stiffness, dissipation, mu, dt, v_guess)
 *   r = cts_tamsi_mex('two_way', ..., v_guess, params)
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
      /* Block data only (docs/performance.md §7): accepted and validated, no effect on M, Jn, Jt. */
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
