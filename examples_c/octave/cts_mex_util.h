/* cts_mex_util.h: what the MEX gateways of libcontact_solvers share (cts_tamsi_mex.c,
 * cts_lcp_mex.c): the real-data accessor of the compiled complex API, error identifiers and
 * argument checks. Header-only (static inline), included after mex.h and contact_solvers.h. */
#ifndef CTS_MEX_UTIL_H
#define CTS_MEX_UTIL_H

#include <stdio.h>

/* The interleaved-complex API (`mex -R2018a` in MATLAB, `mkoctfile --mex -R2018a` in Octave: both
 * define MX_HAS_INTERLEAVED_COMPLEX=1) reads real data with mxGetDoubles; the separate-complex
 * API (`-R2017b`, the default of both) with mxGetPr. */
#if defined(MX_HAS_INTERLEAVED_COMPLEX) && MX_HAS_INTERLEAVED_COMPLEX
#define CTS_MX_DOUBLES(a) mxGetDoubles(a)
#else
#define CTS_MX_DOUBLES(a) mxGetPr(a)
#endif

static inline const char *status_id(cts_status s) {
  switch (s) {
    case CTS_STATUS_NULL_POINTER: return "contact_solvers:nullPointer";
    case CTS_STATUS_INVALID_ARGUMENT: return "contact_solvers:invalidArgument";
    case CTS_STATUS_DIMENSION_MISMATCH: return "contact_solvers:dimensionMismatch";
    case CTS_STATUS_NO_PROBLEM_DATA: return "contact_solvers:noProblemData";
    case CTS_STATUS_WRONG_COUPLING_SCHEME: return "contact_solvers:wrongCouplingScheme";
    case CTS_STATUS_NO_SOLUTION: return "contact_solvers:noSolution";
    case CTS_STATUS_ALLOCATION_FAILED: return "contact_solvers:allocationFailed";
    case CTS_STATUS_NON_FINITE_RESULT: return "contact_solvers:nonFiniteResult";
    case CTS_STATUS_PANIC: return "contact_solvers:panic";
    default: return "contact_solvers:error";
  }
}

/* Raises a usage error found by the gateway (before any solver exists). */
static inline void usage_error(cts_status s, const char *message) {
  mexErrMsgIdAndTxt(status_id(s), "%s: %s", cts_status_string(s), message);
}

/* The data of a real, full double array of exactly rows x cols (any empty array when the
 * expected size is empty), or a usage error naming it. */
static inline const double *matrix_arg(const mxArray *a, const char *name, size_t rows, size_t cols) {
  char message[256];
  if (!mxIsDouble(a) || mxIsComplex(a) || mxIsSparse(a)) {
    snprintf(message, sizeof message, "%s must be a real, full double array", name);
    usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
  }
  if (rows * cols == 0 && mxGetNumberOfElements(a) == 0) return NULL;
  if (mxGetNumberOfDimensions(a) != 2 || mxGetM(a) != rows || mxGetN(a) != cols) {
    snprintf(message, sizeof message, "%s is %lux%lu, expected %lux%lu", name, (unsigned long)mxGetM(a),
             (unsigned long)mxGetN(a), (unsigned long)rows, (unsigned long)cols);
    usage_error(CTS_STATUS_DIMENSION_MISMATCH, message);
  }
  return CTS_MX_DOUBLES(a);
}

/* The data of a real double vector (row or column) of n entries. */
static inline const double *vector_arg(const mxArray *a, const char *name, size_t n) {
  char message[256];
  if (!mxIsDouble(a) || mxIsComplex(a) || mxIsSparse(a)) {
    snprintf(message, sizeof message, "%s must be a real, full double vector", name);
    usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
  }
  if (mxGetNumberOfElements(a) != n || (n > 0 && mxGetM(a) != 1 && mxGetN(a) != 1)) {
    snprintf(message, sizeof message, "%s has %lu entries, expected a vector of %lu", name,
             (unsigned long)mxGetNumberOfElements(a), (unsigned long)n);
    usage_error(CTS_STATUS_DIMENSION_MISMATCH, message);
  }
  return n > 0 ? CTS_MX_DOUBLES(a) : NULL;
}

static inline double scalar_arg(const mxArray *a, const char *name) {
  char message[256];
  if (!mxIsDouble(a) || mxIsComplex(a) || mxGetNumberOfElements(a) != 1) {
    snprintf(message, sizeof message, "%s must be a real double scalar", name);
    usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
  }
  return mxGetScalar(a);
}

#endif /* CTS_MEX_UTIL_H */
