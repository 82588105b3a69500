/* cts_mex_util.h: what the MEX gateways of libcontact_solvers share (cts_tamsi_mex.c,
 * cts_lcp_mex.c, cts_ipm_mex.c, cts_rigid_mex.c, cts_baraff_mex.c): the real-data accessor of the compiled complex API, error identifiers and
 * argument checks. Header-only (static inline), included after mex.h and contact_solvers.h. */
#ifndef CTS_MEX_UTIL_H
#define CTS_MEX_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

/* Defines `library_error(solver, s)` for the solver type T (cts_lcp_solver, ...): raises the
 * library's error for status s with the handle's detail message (T_last_error; the thread's
 * cts_last_error_message when solver is NULL), freeing the solver first (T_free): the error
 * leaves the gateway (a longjmp in MATLAB, an exception in Octave) and nothing else would free
 * it. */
#define CTS_MEX_LIBRARY_ERROR(T)                                                     \
  static void library_error(T *solver, cts_status s) {                               \
    char message[1024];                                                              \
    const char *detail = solver ? T##_last_error(solver) : cts_last_error_message(); \
    snprintf(message, sizeof message, "%s: %s", cts_status_string(s), detail);       \
    T##_free(solver);                                                                \
    mexErrMsgIdAndTxt(status_id(s), "%s", message);                                  \
  }

/* Defines `column(solver, get, n, r)` for the solver type T (after CTS_MEX_LIBRARY_ERROR(T)): an
 * n x 1 double array filled by the getter `get`; a status other than CTS_STATUS_OK and ALSO_OK
 * destroys it and the result struct r under construction and raises the library's error. */
#define CTS_MEX_COLUMN(T, ALSO_OK)                                                                        \
  static mxArray *column(T *solver, cts_status (*get)(const T *, double *, size_t), size_t n, mxArray *r) { \
    mxArray *x = mxCreateDoubleMatrix(n, 1, mxREAL);                                                      \
    const cts_status s = get(solver, n > 0 ? CTS_MX_DOUBLES(x) : NULL, n);                                \
    if (s != CTS_STATUS_OK && s != (ALSO_OK)) {                                                           \
      mxDestroyArray(x);                                                                                  \
      mxDestroyArray(r);                                                                                  \
      library_error(solver, s);                                                                           \
    }                                                                                                     \
    return x;                                                                                             \
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

/* A name and the header's code it stands for (row kinds, contact models, ...). */
typedef struct {
  const char *name;
  int32_t code;
} cts_mex_name;

/* n int32 codes from a cell array of names (looked up in `names`) or a numeric vector of codes
 * (passed on: the library validates them), as `what` (e.g. "data.kind"). mxMalloc'd: freed by
 * MATLAB/Octave when the call ends, also on error. */
static inline int32_t *codes_arg(const mxArray *a, size_t n, const cts_mex_name *names, size_t count,
                                 const char *what) {
  int32_t *out = (int32_t *)mxMalloc((n > 0 ? n : 1) * sizeof(int32_t));
  char message[256];
  size_t i, k;
  if (mxGetNumberOfElements(a) != n) {
    snprintf(message, sizeof message, "%s has %lu entries, expected %lu", what,
             (unsigned long)mxGetNumberOfElements(a), (unsigned long)n);
    usage_error(CTS_STATUS_DIMENSION_MISMATCH, message);
  }
  if (!mxIsCell(a) && !(mxIsDouble(a) && !mxIsComplex(a) && !mxIsSparse(a))) {
    snprintf(message, sizeof message, "%s must be a cell array of names or integer codes", what);
    usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
  }
  for (i = 0; i < n; ++i) {
    if (mxIsCell(a)) {
      char name[32];
      const mxArray *c = mxGetCell(a, i);
      if (c == NULL || !mxIsChar(c) || mxGetString(c, name, sizeof name) != 0) name[0] = '\0';
      for (k = 0; k < count && strcmp(name, names[k].name) != 0; ++k) {
      }
      if (k == count) {
        /* "<what>{i}: 'a', 'b' or 'c'" */
        size_t used = (size_t)snprintf(message, sizeof message, "%s{%lu}: ", what, (unsigned long)(i + 1));
        for (k = 0; k < count && used < sizeof message; ++k) {
          used += (size_t)snprintf(message + used, sizeof message - used, "%s'%s'",
                                   k == 0 ? "" : (k + 1 == count ? " or " : ", "), names[k].name);
        }
        usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
      }
      out[i] = names[k].code;
    } else {
      const double value = CTS_MX_DOUBLES(a)[i];
      if (!(value == floor(value) && fabs(value) <= 2147483647.0)) {
        snprintf(message, sizeof message, "%s must be a cell array of names or integer codes", what);
        usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
      }
      out[i] = (int32_t)value;
    }
  }
  return out;
}

/* One field of a parameter struct that an options struct may set: name, offset, int32 (else
 * double). Build tables with CTS_MEX_FIELD(struct type, field, is_int). */
typedef struct {
  const char *name;
  size_t offset;
  int is_int;
} cts_mex_field;
#define CTS_MEX_FIELD(type, f, is_int) {#f, offsetof(type, f), is_int}
#define CTS_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Sets the fields of the parameter struct `p` named in the 1x1 struct `a` (NULL: nothing);
 * `extra` (may be NULL) names one more field that is not a parameter, whose value goes to
 * *extra_value. Unknown fields and non-integral values of int32 fields are usage errors. */
static inline void options_arg(const mxArray *a, void *p, const cts_mex_field *fields, size_t count,
                               const char *what, const char *extra, const mxArray **extra_value) {
  int i, nf;
  size_t k;
  char message[256];
  if (a == NULL) return;
  if (!mxIsStruct(a) || mxGetNumberOfElements(a) != 1) {
    snprintf(message, sizeof message, "%s must be a 1x1 struct", what);
    usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
  }
  nf = mxGetNumberOfFields(a);
  for (i = 0; i < nf; ++i) {
    const char *field = mxGetFieldNameByNumber(a, i);
    const mxArray *v = mxGetFieldByNumber(a, 0, i);
    double value;
    char *base;
    if (extra != NULL && strcmp(field, extra) == 0) {
      *extra_value = v;
      continue;
    }
    for (k = 0; k < count; ++k) {
      if (strcmp(field, fields[k].name) == 0) break;
    }
    if (k == count) {
      snprintf(message, sizeof message, "%s.%s is not a parameter of this solver", what, field);
      usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
    }
    value = scalar_arg(v, field);
    base = (char *)p + fields[k].offset;
    if (fields[k].is_int) {
      int32_t iv;
      if (!(value == floor(value) && fabs(value) <= 2147483647.0)) {
        snprintf(message, sizeof message, "%s.%s must be an int32 integer", what, field);
        usage_error(CTS_STATUS_INVALID_ARGUMENT, message);
      }
      iv = (int32_t)value;
      memcpy(base, &iv, sizeof iv);
    } else {
      memcpy(base, &value, sizeof value);
    }
  }
}

#endif /* CTS_MEX_UTIL_H */
