/* A seeded random fuzzer of the whole C ABI (issue 13): random call sequences on all five
 * solvers (TAMSI, LCP, rigid, Baraff, interior point) with random sizes (huge ones included),
 * NULL pointers, NaN, infinite and huge values, random parameter structs, and a random order
 * of new / clone / free / set / solve / get, and batches of solves over the live handles (NULL
 * and repeated handles, counts of 0 and 2^36, 0-4 threads; issue 31). Built with AddressSanitizer and UBSan, so a memory
 * error or undefined behaviour ends the run. After every call it checks:
 *   * the status is a known one (a caught panic, 199, counts as a failure);
 *   * a failing call left a non-empty message (the handle's, or the thread-local one);
 *   * no OK with a non-finite output: every getter that returns OK wrote finite values, and
 *     after every OK solve *every* output is read and must be OK and finite.
 *
 * The fuzzer is an honest caller: every array it passes holds the length the call implies
 * (arrays it cannot allocate, above HONEST_MAX doubles, are passed as NULL), and borrowed
 * problem data stays allocated until the next successful set call or free, as the contract
 * requires. Clear beats clever: one function per C function family, no shared cleverness.
 *
 * Usage: fuzz_abi <seed> <seconds of wall-clock time> [max_calls]. Prints one line per violation
 * (the first 20) and a summary line; exits 1 if there was any violation. */

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds of wall-clock time since the first call. */
static double elapsed(void) {
  static struct timespec t0;
  static int started;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  if (!started) {
    t0 = t;
    started = 1;
  }
  return (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
}

#include "contact_solvers.h"

/* ------------------------------------------------------------------------------------------ */
/* Random numbers (splitmix64) and value generators.                                          */

static uint64_t rng;

static uint64_t next64(void) {
  uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static size_t below(size_t n) { return n == 0 ? 0 : (size_t)(next64() % n); }
static int one_in(unsigned n) { return below(n) == 0; }
static double uniform(double lo, double hi) { return lo + (hi - lo) * (double)(next64() >> 11) * 0x1.0p-53; }

/* Arrays longer than this are never allocated: their pointer is passed as NULL. */
#define HONEST_MAX ((size_t)1 << 18)

/* A size: mostly small, sometimes medium, sometimes huge (never honest). */
static size_t rand_size(void) {
  static const size_t huge[] = {(size_t)1 << 31, (size_t)1 << 36, (size_t)1 << 40, SIZE_MAX / 8 + 1,
                                SIZE_MAX / 2, SIZE_MAX - 1, SIZE_MAX};
  size_t r = below(100);
  if (r < 70) return below(5);
  if (r < 92) return below(13);
  if (r < 97) return 13 + below(40);
  return huge[below(sizeof huge / sizeof huge[0])];
}

/* A special value: what a careless caller or an overflow produces. */
static double special(void) {
  static const double s[] = {NAN, INFINITY, -INFINITY, 1e300, -1e300, 1e-300, DBL_MAX, -DBL_MAX, 0.0, -1.0,
                             4.9e-324, 1e154, 1e200};
  return s[below(sizeof s / sizeof s[0])];
}

/* A scalar parameter: mostly `usual`, sometimes special. */
static double scalar(double usual) { return one_in(6) ? special() : usual; }
static int32_t int_param(int32_t usual) {
  static const int32_t s[] = {0, -1, 1, 2, 3, INT32_MAX, INT32_MIN, 1000, 100000, 100001};
  return one_in(5) ? s[below(sizeof s / sizeof s[0])] : usual;
}

/* ------------------------------------------------------------------------------------------ */
/* Borrowed buffers: a bundle owns every array one piece of problem data borrows.             */

#define BUNDLE_MAX 48
typedef struct {
  void *p[BUNDLE_MAX];
  int n;
} bundle;

static void bundle_free(bundle *b) {
  int i;
  for (i = 0; i < b->n; ++i) free(b->p[i]);
  b->n = 0;
}

/* Moves every array of `from` into `to` (to is freed first when `replace`). */
static void bundle_take(bundle *to, bundle *from, int replace) {
  int i;
  if (replace) bundle_free(to);
  for (i = 0; i < from->n; ++i) {
    if (to->n < BUNDLE_MAX) {
      to->p[to->n++] = from->p[i];
    } else {
      free(from->p[i]); /* never happens: callers check room first */
    }
  }
  from->n = 0;
}

static void *keep(bundle *b, void *p) {
  if (p != NULL && b->n < BUNDLE_MAX) {
    b->p[b->n++] = p;
    return p;
  }
  free(p);
  return NULL;
}

enum fill { ANY, NONNEG, POSITIVE, UNIT };

/* An honest array of `len` doubles (NULL when len is 0 or above HONEST_MAX, and now and then
 * for any length: a careless caller), owned by `b`. `dirty`: a few special values. */
static double *darr(bundle *b, size_t len, enum fill f) {
  double *x;
  size_t i;
  if (len == 0) return one_in(2) ? NULL : (double *)keep(b, calloc(1, sizeof(double)));
  if (len > HONEST_MAX || one_in(60)) return NULL;
  x = (double *)keep(b, malloc(len * sizeof(double)));
  if (x == NULL) return NULL;
  for (i = 0; i < len; ++i) {
    switch (f) {
      case ANY: x[i] = uniform(-2.0, 2.0); break;
      case NONNEG: x[i] = uniform(0.0, 1.0); break;
      case POSITIVE: x[i] = uniform(0.5, 2.0); break;
      case UNIT: x[i] = one_in(3) ? 0.0 : uniform(-1.0, 1.0); break;
    }
  }
  if (one_in(8)) {
    size_t k, count = 1 + below(2);
    for (k = 0; k < count; ++k) x[below(len)] = special();
  }
  return x;
}

/* A leading dimension for `rows`: mostly valid, sometimes below the row count. */
static size_t rand_ld(size_t rows) {
  if (one_in(30)) return rows > 0 ? rows - 1 : 0;
  if (rows > HONEST_MAX) return rows;
  return (rows == 0 ? 1 : rows) + (one_in(4) ? below(3) : 0);
}

/* Doubles a rows×cols matrix with leading dimension ld spans (SIZE_MAX if it overflows). */
static size_t span(size_t rows, size_t cols, size_t ld) {
  if (rows == 0 || cols == 0) return 0;
  if (cols - 1 > 0 && ld > SIZE_MAX / (cols - 1)) return SIZE_MAX;
  if (ld * (cols - 1) > SIZE_MAX - rows) return SIZE_MAX;
  return ld * (cols - 1) + rows;
}

/* An honest rows×cols matrix; `spd`: a symmetric positive definite one (rows == cols). */
static double *dmat(bundle *b, size_t rows, size_t cols, size_t *ld, enum fill f, int spd) {
  double *x;
  size_t r, c;
  *ld = rand_ld(rows);
  x = darr(b, span(rows, cols, *ld), f);
  if (x != NULL && spd && rows == cols && *ld >= rows && rows <= 64) {
    int dirty = one_in(10);
    for (c = 0; c < cols; ++c)
      for (r = 0; r < rows; ++r) x[r + c * *ld] = r == c ? uniform(1.0, 3.0) : 0.1 * sin((double)(r * 7 + c * 7 + 1));
    for (c = 0; c < cols; ++c)
      for (r = c + 1; r < rows; ++r) x[c + r * *ld] = x[r + c * *ld];
    if (dirty) x[below(rows) + below(cols) * *ld] = special();
  }
  return x;
}

static size_t *iarr(bundle *b, size_t len) {
  size_t *x;
  if (len == 0) return NULL;
  if (len > HONEST_MAX || one_in(60)) return NULL;
  x = (size_t *)keep(b, malloc(len * sizeof(size_t)));
  return x;
}

static int32_t *codes(bundle *b, size_t len, int32_t lo, int32_t hi) {
  int32_t *x;
  size_t i;
  if (len == 0) return NULL;
  if (len > HONEST_MAX || one_in(60)) return NULL;
  x = (int32_t *)keep(b, malloc(len * sizeof(int32_t)));
  if (x == NULL) return NULL;
  for (i = 0; i < len; ++i) x[i] = lo + (int32_t)below((size_t)(hi - lo + 1));
  if (one_in(20)) x[below(len)] = one_in(2) ? hi + 1 : -1;
  return x;
}

/* ------------------------------------------------------------------------------------------ */
/* The checks.                                                                                 */

static unsigned long long calls, ok_solves, violations;
static unsigned long long bad_status, panics, empty_message, ok_non_finite, getter_failed;
static unsigned long long per_solver[5], ok_per_solver[5], non_finite_statuses, allocation_failures;
static unsigned long long tamsi_block_sets, tamsi_block_solves; /* OK block-sparse set calls and solves */
static const char *current = "";

static void violation(unsigned long long *counter, const char *what, const char *call, cts_status s,
                      const char *message) {
  ++*counter;
  ++violations;
  if (violations <= 20)
    printf("VIOLATION %s after %llu calls: %s returned %d (%s): \"%s\"\n", what, calls, call, (int)s,
           cts_status_string(s), message != NULL ? message : "(null)");
}

static int known(cts_status s) {
  return (s >= 0 && s <= 4) || (s >= 10 && s <= 19) || (s >= 21 && s <= 28) || (s >= 41 && s <= 44) ||
         (s >= 100 && s <= 107);
}

/* The checks of every call: `message` is read after the call returned. */
static cts_status after(const char *call, cts_status s, const char *message) {
  ++calls;
  current = call;
  if (s == CTS_STATUS_NON_FINITE_RESULT) ++non_finite_statuses;
  if (s == CTS_STATUS_ALLOCATION_FAILED) ++allocation_failures;
  if (s == 199) {
    violation(&panics, "panic", call, s, message);
  } else if (!known(s)) {
    violation(&bad_status, "unknown status", call, s, message);
  }
  if (s != CTS_STATUS_OK && (message == NULL || message[0] == '\0'))
    violation(&empty_message, "failure without a message", call, s, message);
  return s;
}

/* Sequence the call before reading its message (C leaves argument order unspecified). */
static cts_status st_;
#define CHECKED(call, message_expr) (st_ = (call), after(#call, st_, (message_expr)))

static void finite_out(const char *what, const double *x, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (!isfinite(x[i])) {
      char buf[160];
      snprintf(buf, sizeof buf, "%s[%lu] = %g", what, (unsigned long)i, x[i]);
      violation(&ok_non_finite, "OK with a non-finite output", current, CTS_STATUS_OK, buf);
      return;
    }
}

/* A getter after an OK solve must succeed. */
static void must_be_ok(cts_status s, const char *message) {
  if (s != CTS_STATUS_OK) {
    if (s == CTS_STATUS_NON_FINITE_RESULT) {
      violation(&ok_non_finite, "OK solve with a non-finite output", current, s, message);
    } else {
      violation(&getter_failed, "a getter failed after an OK solve", current, s, message);
    }
  }
}

/* Scratch outputs (sized on demand, grow-only). */
static double *scratch;
static size_t scratch_len;
static double *out_buf(size_t n) {
  if (n > HONEST_MAX) return NULL;
  if (n + 4 > scratch_len) {
    free(scratch);
    scratch_len = 2 * (n + 4);
    scratch = (double *)malloc(scratch_len * sizeof(double));
  }
  return scratch;
}

static double rand_dt(void) { return one_in(8) ? special() : (one_in(2) ? 1e-3 : 1e-2); }

/* ------------------------------------------------------------------------------------------ */
/* TAMSI                                                                                       */

#define SLOTS 3
typedef struct {
  cts_tamsi_solver *h;
  bundle data;
  int blocks; /* the data set is block-sparse */
} tamsi_slot;
static tamsi_slot tamsi[SLOTS];

static const char *tamsi_msg(const tamsi_slot *s) {
  return s->h != NULL ? cts_tamsi_solver_last_error(s->h) : cts_last_error_message();
}

static void tamsi_params(tamsi_slot *s) {
  cts_tamsi_parameters p;
  cts_tamsi_parameters_default(&p);
  p.stiction_tolerance = scalar(one_in(2) ? 1e-4 : 1e-6);
  p.max_iterations = int_param(one_in(4) ? 5 : 100);
  if (p.max_iterations > 1000 && p.max_iterations <= 100000) p.max_iterations = 1000; /* bounded time */
  p.relative_tolerance = scalar(1e-2);
  p.theta_max = scalar(1.0471975511965976);
  CHECKED(cts_tamsi_solver_set_parameters(s->h, one_in(40) ? NULL : &p), tamsi_msg(s));
  CHECKED(cts_tamsi_solver_get_parameters(s->h, one_in(40) ? NULL : &p), tamsi_msg(s));
}

static void tamsi_read_all(tamsi_slot *s, int after_ok) {
  size_t nv = cts_tamsi_solver_num_velocities(s->h), nc = cts_tamsi_solver_num_contacts(s->h), count = 0;
  cts_tamsi_iteration_stats stats;
  typedef cts_status (*getter)(const cts_tamsi_solver *, double *, size_t);
  static const getter g[7] = {cts_tamsi_solver_get_generalized_velocities, cts_tamsi_solver_get_normal_velocities,
                              cts_tamsi_solver_get_tangential_velocities,  cts_tamsi_solver_get_normal_forces,
                              cts_tamsi_solver_get_friction_forces,        cts_tamsi_solver_get_generalized_friction_forces,
                              cts_tamsi_solver_get_generalized_contact_forces};
  const size_t len[7] = {nv, nc, 2 * nc, nc, 2 * nc, nv, nv};
  int i;
  for (i = 0; i < 7; ++i) {
    size_t n = after_ok || !one_in(5) ? len[i] : len[i] + 1;
    double *out = out_buf(n);
    cts_status r = CHECKED(g[i](s->h, out, n), tamsi_msg(s));
    if (r == CTS_STATUS_OK) finite_out("TAMSI output", out, n);
    if (after_ok) must_be_ok(r, tamsi_msg(s));
  }
  if (CHECKED(cts_tamsi_solver_get_iteration_stats(s->h, &stats), tamsi_msg(s)) == CTS_STATUS_OK && after_ok)
    finite_out("vt_residual", &stats.vt_residual, 1);
  if (CHECKED(cts_tamsi_solver_get_residuals(s->h, NULL, 0, &count), tamsi_msg(s)) == CTS_STATUS_OK) {
    double *out = out_buf(count);
    cts_status r = CHECKED(cts_tamsi_solver_get_residuals(s->h, out, count, &count), tamsi_msg(s));
    if (r == CTS_STATUS_OK) finite_out("residuals", out, count);
    if (after_ok) must_be_ok(r, tamsi_msg(s));
  }
}

static void tamsi_set(tamsi_slot *s, int two_way) {
  bundle next = {{0}, 0};
  size_t nv = cts_tamsi_solver_num_velocities(s->h), nc = rand_size(), ldM, ldJn, ldJt;
  double *M = dmat(&next, nv, nv, &ldM, ANY, 1);
  double *Jn = dmat(&next, nc, nv, &ldJn, UNIT, 0);
  double *Jt = dmat(&next, nc <= SIZE_MAX / 2 ? 2 * nc : SIZE_MAX, nv, &ldJt, UNIT, 0);
  double *p_star = darr(&next, nv, ANY), *mu = darr(&next, nc, NONNEG);
  cts_status r;
  if (!two_way) {
    double *fn = darr(&next, nc, POSITIVE);
    if (fn != NULL && nc <= HONEST_MAX) {
      size_t i;
      for (i = 0; i < nc; ++i) fn[i] *= one_in(2) ? 10.0 : 1e3;
    }
    r = CHECKED(cts_tamsi_solver_set_one_way_coupled_problem_data(s->h, nc, M, ldM, Jn, ldJn, Jt, ldJt, p_star, fn, mu),
                tamsi_msg(s));
  } else {
    double *fn0 = darr(&next, nc, NONNEG), *k = darr(&next, nc, POSITIVE), *d = darr(&next, nc, NONNEG);
    if (k != NULL && nc <= HONEST_MAX) {
      size_t i;
      for (i = 0; i < nc; ++i) k[i] *= 1e4;
    }
    r = CHECKED(cts_tamsi_solver_set_two_way_coupled_problem_data(s->h, nc, M, ldM, Jn, ldJn, Jt, ldJt, p_star, fn0, k,
                                                                  d, mu),
                tamsi_msg(s));
  }
  if (r == CTS_STATUS_OK) {
    s->blocks = 0;
    bundle_take(&s->data, &next, 1);
  } else {
    bundle_free(&next);
  }
}

/* Random trees covering `nv` velocities (1 to 6 dofs each) into `dofs` (nv entries), or one
 * tree for an nv too large for honest M blocks; returns the number of trees. */
static size_t tree_split(int32_t *dofs, size_t nv) {
  size_t ntree = 0, left = nv;
  if (dofs == NULL) return 0;
  if (nv > 4096) {
    dofs[0] = nv > INT32_MAX ? INT32_MAX : (int32_t)nv;
    return 1;
  }
  while (left > 0) {
    size_t n = 1 + below(left < 6 ? left : 6);
    dofs[ntree++] = (int32_t)n;
    left -= n;
  }
  return ntree;
}

/* Block-sparse data (cts_block_sparse_data) for the solver's nv: trees covering nv, contacts
 * between one or two of them, SPD M blocks and random J blocks; now and then a wrong structure
 * (a tree of 0 dofs, dofs not adding up to nv, a tree index out of range, a contact listing a
 * tree twice or none), wrong lengths, huge counts (their arrays NULL) or special values. */
static void tamsi_set_blocks(tamsi_slot *s, int two_way) {
  bundle next = {{0}, 0};
  cts_block_sparse_data d;
  size_t nv = cts_tamsi_solver_num_velocities(s->h), nc = rand_size(), t, i, r_, c_, m_len = 0, j_len = 0;
  int chain = one_in(3); /* contacts i: trees (i, i + 1): one island of every tree (large ones are
                            factored by the sparse back end) */
  int32_t *dofs = NULL, *trees = NULL;
  double *p_star, *mu, *M;
  cts_status r;
  memset(&d, 0, sizeof d);
  if (one_in(30)) { /* any number of trees: their dofs (1 to 3) rarely add up to nv */
    d.num_trees = rand_size();
    dofs = d.num_trees <= HONEST_MAX ? (int32_t *)keep(&next, malloc(d.num_trees * sizeof(int32_t) + 1)) : NULL;
    if (dofs != NULL)
      for (t = 0; t < d.num_trees; ++t) dofs[t] = 1 + (int32_t)below(3);
  } else {
    dofs = (int32_t *)keep(&next, malloc((nv > 4096 ? 1 : nv) * sizeof(int32_t) + 1));
    d.num_trees = tree_split(dofs, nv);
  }
  if (dofs != NULL && d.num_trees > 0 && one_in(25)) dofs[below(d.num_trees)] += one_in(2) ? -1 : 1;
  if (chain && d.num_trees > 1 && d.num_trees <= HONEST_MAX) nc = d.num_trees - 1;
  d.tree_dofs = one_in(60) ? NULL : dofs;
  /* M: the trees' blocks back to back (the lengths saturate: a huge tree's M is NULL). */
  for (t = 0; dofs != NULL && t < d.num_trees; ++t) {
    size_t n = dofs[t] > 0 ? (size_t)dofs[t] : 0;
    m_len = n > 0 && n > (SIZE_MAX - m_len) / n ? SIZE_MAX : m_len + n * n;
  }
  M = darr(&next, m_len, ANY);
  if (M != NULL && dofs != NULL && m_len <= HONEST_MAX) {
    size_t at = 0;
    for (t = 0; t < d.num_trees; ++t) {
      size_t n = dofs[t] > 0 ? (size_t)dofs[t] : 0;
      for (c_ = 0; c_ < n; ++c_)
        for (r_ = 0; r_ < n; ++r_)
          M[at + r_ + c_ * n] = r_ == c_ ? uniform(1.0, 3.0) : 0.1 * sin((double)(r_ + c_ + 1));
      at += n * n;
    }
    if (one_in(10)) M[below(m_len)] = special();
  }
  d.M = M;
  d.M_len = one_in(30) ? m_len + 1 : m_len;
  /* Contacts: one tree and a static side, or two distinct trees. */
  d.num_contacts = nc;
  if (nc <= HONEST_MAX / 2 && nc > 0) trees = (int32_t *)keep(&next, malloc(2 * nc * sizeof(int32_t)));
  for (i = 0; trees != NULL && i < nc; ++i) {
    int32_t ntree = (int32_t)(d.num_trees < (size_t)INT32_MAX ? d.num_trees : INT32_MAX);
    int32_t a = ntree > 0 ? (int32_t)below((size_t)ntree) : -1, b = ntree > 1 && one_in(2) ? (int32_t)below((size_t)ntree) : -1;
    if (chain && ntree > 1) {
      a = (int32_t)(i % (size_t)ntree);
      b = (int32_t)((i + 1) % (size_t)ntree);
    }
    if (b == a) b = -1;
    if (one_in(2)) {
      int32_t x = a;
      a = b;
      b = x;
    }
    if (one_in(40)) a = one_in(2) ? ntree : (one_in(2) ? b : -1);
    trees[2 * i] = a;
    trees[2 * i + 1] = b;
  }
  d.contact_trees = one_in(60) ? NULL : trees;
  for (i = 0; trees != NULL && dofs != NULL && i < nc; ++i) {
    int k;
    for (k = 0; k < 2; ++k) {
      int32_t tr = trees[2 * i + k];
      if (tr >= 0 && (size_t)tr < d.num_trees && dofs[tr] > 0) j_len += 3 * (size_t)dofs[tr];
    }
  }
  if (nc > HONEST_MAX / 2) j_len = nc <= SIZE_MAX / 3 ? 3 * nc : SIZE_MAX;
  d.J = darr(&next, j_len, UNIT);
  d.J_len = one_in(30) ? j_len + 1 : j_len;
  p_star = darr(&next, nv, ANY);
  mu = darr(&next, nc, NONNEG);
  if (!two_way) {
    double *fn = darr(&next, nc, POSITIVE);
    if (fn != NULL && nc <= HONEST_MAX)
      for (i = 0; i < nc; ++i) fn[i] *= one_in(2) ? 10.0 : 1e3;
    r = CHECKED(cts_tamsi_solver_set_one_way_coupled_block_problem_data(s->h, one_in(60) ? NULL : &d, p_star, fn, mu),
                tamsi_msg(s));
  } else {
    double *fn0 = darr(&next, nc, NONNEG), *k = darr(&next, nc, POSITIVE), *dd = darr(&next, nc, NONNEG);
    if (k != NULL && nc <= HONEST_MAX)
      for (i = 0; i < nc; ++i) k[i] *= 1e4;
    r = CHECKED(cts_tamsi_solver_set_two_way_coupled_block_problem_data(s->h, one_in(60) ? NULL : &d, p_star, fn0, k,
                                                                        dd, mu),
                tamsi_msg(s));
  }
  if (r == CTS_STATUS_OK) {
    s->blocks = 1;
    ++tamsi_block_sets;
    bundle_take(&s->data, &next, 1);
  } else {
    bundle_free(&next);
  }
}

static void tamsi_solve(tamsi_slot *s) {
  bundle tmp = {{0}, 0};
  size_t nv = cts_tamsi_solver_num_velocities(s->h);
  size_t n = one_in(10) ? nv + 1 : nv;
  double *guess = darr(&tmp, n, ANY);
  if (CHECKED(cts_tamsi_solver_solve_with_guess(s->h, rand_dt(), guess, n), tamsi_msg(s)) == CTS_STATUS_OK) {
    ++ok_solves;
    ++ok_per_solver[0];
    if (s->blocks) ++tamsi_block_solves;
    tamsi_read_all(s, 1);
  }
  bundle_free(&tmp);
}

/* The checks of one batch's per-world statuses (`docs/c_api.md` §1.10): each is a known status,
 * a failed world of a live handle has its message there. */
static void batch_world(const char *call, cts_status s, const char *message) {
  after(call, s, message != NULL ? message : "a NULL handle (no message channel)");
}

/* Many worlds in one call: 0-5 worlds drawn from the slots (NULL and repeated handles included),
 * random dt and guesses (sometimes of the wrong length), 0-4 threads. An OK world reads back
 * finite; a count beyond 2^32 - 1 is refused before its arrays are read; a NULL array too. */
static void tamsi_batch(void) {
  bundle tmp = {{0}, 0};
  cts_tamsi_solver *hs[5];
  tamsi_slot *slots[5];
  double dts[5];
  const double *guesses[5];
  size_t nvs[5], count = below(6), threads = below(5), i;
  cts_status statuses[5];
  for (i = 0; i < count; ++i) {
    slots[i] = &tamsi[below(SLOTS)];
    hs[i] = slots[i]->h;
    nvs[i] = (hs[i] != NULL ? cts_tamsi_solver_num_velocities(hs[i]) : below(3)) + (one_in(10) ? 1 : 0);
    guesses[i] = darr(&tmp, nvs[i], ANY);
    dts[i] = rand_dt();
  }
  if (one_in(10) &&
      CHECKED(cts_tamsi_solver_solve_batch(hs, dts, guesses, nvs, (size_t)1 << 36, threads, statuses),
              cts_last_error_message()) != CTS_STATUS_INVALID_ARGUMENT)
    violation(&bad_status, "a batch of 2^36 worlds not refused", current, st_, "");
  if (CHECKED(cts_tamsi_solver_solve_batch(hs, one_in(20) ? NULL : dts, guesses, nvs, count, threads, statuses),
              cts_last_error_message()) == CTS_STATUS_OK) {
    for (i = 0; i < count; ++i) {
      batch_world("cts_tamsi_solver_solve_batch: a world", statuses[i],
                  hs[i] != NULL ? cts_tamsi_solver_last_error(hs[i]) : NULL);
      if (statuses[i] == CTS_STATUS_OK) {
        ++ok_solves;
        ++ok_per_solver[0];
        tamsi_read_all(slots[i], 1);
      }
    }
  }
  bundle_free(&tmp);
}

static void tamsi_jacobian(tamsi_slot *s) {
  bundle tmp = {{0}, 0};
  size_t nv = cts_tamsi_solver_num_velocities(s->h), ld = rand_ld(nv);
  double *v = darr(&tmp, nv, ANY), *J = out_buf(span(nv, nv, ld));
  if (CHECKED(cts_tamsi_solver_calc_jacobian(s->h, rand_dt(), v, nv, J, ld), tamsi_msg(s)) == CTS_STATUS_OK) {
    size_t c;
    for (c = 0; c < nv; ++c) finite_out("J", J + c * ld, nv);
  }
  bundle_free(&tmp);
}

/* The action of a step: a NULL slot is mostly given a new handle first (action 0), and a live
 * handle is rarely freed (action 1), so most calls reach a solver. */
static size_t action(const void *handle, size_t actions) {
  if (handle == NULL && !one_in(8)) return 0;
  if (below(actions) == 1 && !one_in(6)) return 2 + below(actions - 2);
  return below(actions);
}

static void tamsi_step(void) {
  tamsi_slot *s = &tamsi[below(SLOTS)];
  ++per_solver[0];
  switch (action(s->h, 14)) {
    case 0: /* new */
      if (s->h == NULL) {
        size_t nv = one_in(10) ? rand_size() : (one_in(15) ? 30 + below(35) : below(9));
        if (nv > 64 && nv <= HONEST_MAX) nv = 64;
        CHECKED(cts_tamsi_solver_new(nv, &s->h), cts_last_error_message());
      }
      break;
    case 1: /* free */
      cts_tamsi_solver_free(s->h);
      s->h = NULL;
      s->blocks = 0;
      bundle_free(&s->data);
      break;
    case 2: { /* clone into another slot */
      tamsi_slot *t = &tamsi[below(SLOTS)];
      cts_tamsi_solver *copy = NULL;
      if (t == s) break;
      if (CHECKED(cts_tamsi_solver_clone(s->h, &copy), cts_last_error_message()) == CTS_STATUS_OK) {
        cts_tamsi_solver_free(t->h);
        bundle_free(&t->data);
        t->h = copy;
        t->blocks = 0;
      }
      break;
    }
    case 3: { /* resize: ends the borrow */
      size_t nv = one_in(10) ? rand_size() : (one_in(15) ? 30 + below(35) : below(9));
      if (CHECKED(cts_tamsi_solver_resize(s->h, nv), tamsi_msg(s)) == CTS_STATUS_OK) {
        bundle_free(&s->data);
        s->blocks = 0;
      }
      break;
    }
    case 4: tamsi_params(s); break;
    case 5: tamsi_set(s, 0); break;
    case 6: tamsi_set(s, 1); break;
    case 7:
    case 8:
      if (one_in(4))
        tamsi_batch();
      else
        tamsi_solve(s);
      break;
    case 9: tamsi_read_all(s, 0); break;
    case 10: tamsi_jacobian(s); break;
    case 11: tamsi_set_blocks(s, 0); break;
    case 12: tamsi_set_blocks(s, 1); break;
    default: { /* the stateless limiter */
      double vt[2], dvt[2], alpha = 0.0;
      int i;
      for (i = 0; i < 2; ++i) {
        vt[i] = one_in(6) ? special() : uniform(-1e-3, 1e-3) * (one_in(2) ? 1.0 : 1e3);
        dvt[i] = one_in(6) ? special() : uniform(-1e-3, 1e-3) * (one_in(2) ? 1.0 : 1e3);
      }
      if (CHECKED(cts_tamsi_calc_alpha(one_in(30) ? NULL : vt, dvt, scalar(0.5), scalar(1e-4), scalar(1e-2), &alpha),
                  cts_last_error_message()) == CTS_STATUS_OK &&
          !(alpha > 0.0 && alpha <= 1.0))
        violation(&ok_non_finite, "alpha outside (0, 1] with OK", current, CTS_STATUS_OK, "");
      break;
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* LCP (problem data is read during the solve call only).                                     */

static cts_lcp_solver *lcp[SLOTS];

static const char *lcp_msg(cts_lcp_solver *h) {
  return h != NULL ? cts_lcp_solver_last_error(h) : cts_last_error_message();
}

static void lcp_step(void) {
  cts_lcp_solver **h = &lcp[below(SLOTS)];
  ++per_solver[1];
  switch (action(*h, 8)) {
    case 0:
      if (*h == NULL) CHECKED(cts_lcp_solver_new(h), cts_last_error_message());
      break;
    case 1:
      cts_lcp_solver_free(*h);
      *h = NULL;
      break;
    case 2: {
      cts_lcp_solver **t = &lcp[below(SLOTS)], *copy = NULL;
      if (t != h && CHECKED(cts_lcp_solver_clone(*h, &copy), cts_last_error_message()) == CTS_STATUS_OK) {
        cts_lcp_solver_free(*t);
        *t = copy;
      }
      break;
    }
    case 3: {
      cts_lcp_parameters p;
      cts_lcp_parameters_default(&p);
      p.pivot_tolerance = one_in(4) ? scalar(-1.0) : -1.0;
      p.zero_tolerance = one_in(4) ? scalar(-1.0) : -1.0;
      p.lemke_variant = one_in(3) ? int_param(1) : 0;
      p.max_pivots = one_in(4) ? int_param(0) : 0;
      if (p.max_pivots > 2000) p.max_pivots = 2000; /* bounded time */
      if (one_in(6)) p.lemke_min_exp = int_param(-20);
      if (one_in(6)) p.lemke_max_exp = int_param(1);
      if (one_in(6)) p.fast_step_exp = int_param(4);
      /* Exponent ranges of billions of steps run for minutes (issue 13, lcp-truth's part):
       * keep the fuzzer's time bounded. */
      if (p.lemke_min_exp < -40 || p.lemke_max_exp > 40 || p.fast_step_exp < 1 || p.fast_step_exp > 40) {
        p.lemke_min_exp = -20;
        p.lemke_max_exp = 1;
        p.fast_step_exp = 4;
      }
      CHECKED(cts_lcp_solver_set_parameters(*h, one_in(30) ? NULL : &p), lcp_msg(*h));
      CHECKED(cts_lcp_solver_get_parameters(*h, &p), lcp_msg(*h));
      break;
    }
    case 4:
    case 5: {
      bundle tmp = {{0}, 0};
      size_t n = one_in(8) ? rand_size() : below(7), ld;
      double *M = dmat(&tmp, n, n, &ld, ANY, one_in(2));
      double *q = darr(&tmp, n, ANY), *z0 = one_in(4) ? darr(&tmp, n, NONNEG) : NULL;
      int32_t alg = one_in(20) ? (int32_t)below(9) - 2 : (int32_t)below(5);
      if (CHECKED(cts_lcp_solver_solve(*h, alg, n, M, ld, q, z0), lcp_msg(*h)) == CTS_STATUS_OK) {
        size_t m = cts_lcp_solver_size(*h);
        double *out = out_buf(m);
        ++ok_solves;
        ++ok_per_solver[1];
        must_be_ok(CHECKED(cts_lcp_solver_get_z(*h, out, m), lcp_msg(*h)), lcp_msg(*h));
        if (st_ == CTS_STATUS_OK) finite_out("LCP z", out, m);
        must_be_ok(CHECKED(cts_lcp_solver_get_w(*h, out, m), lcp_msg(*h)), lcp_msg(*h));
        if (st_ == CTS_STATUS_OK) finite_out("LCP w", out, m);
      }
      bundle_free(&tmp);
      break;
    }
    case 6: {
      size_t m = cts_lcp_solver_size(*h) + (one_in(4) ? 1 : 0);
      double *out = out_buf(m);
      if (CHECKED(cts_lcp_solver_get_z(*h, out, m), lcp_msg(*h)) == CTS_STATUS_OK) finite_out("LCP z", out, m);
      (void)cts_lcp_solver_num_pivots(*h);
      break;
    }
    default: {
      bundle tmp = {{0}, 0};
      size_t n = below(6), ld;
      double *M = dmat(&tmp, n, n, &ld, ANY, 0), *q = darr(&tmp, n, ANY), *z = darr(&tmp, n, NONNEG), tol = 0.0;
      int32_t ok = 0;
      CHECKED(cts_lcp_compute_zero_tolerance((int32_t)below(6), n, M, ld, &tol), cts_last_error_message());
      CHECKED(cts_lcp_is_solution(n, M, ld, q, z, scalar(-1.0), &ok), cts_last_error_message());
      bundle_free(&tmp);
      break;
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Rigid constraint solver                                                                     */

typedef struct {
  size_t nv, nc, nr, nu, nb;
  int set;
} rigid_sizes;

typedef struct {
  cts_rigid_solver *h;
  bundle accel, vel;
  rigid_sizes a, v;
} rigid_slot;
static rigid_slot rigid[SLOTS];

static const char *rigid_msg(const rigid_slot *s) {
  return s->h != NULL ? cts_rigid_solver_last_error(s->h) : cts_last_error_message();
}

/* Callback behaviours, selected by user_data. */
enum cb_kind { CB_DIAGONAL, CB_DENSE, CB_NAN, CB_FAIL, CB_HUGE, CB_KINDS };
static int cb_kind_tag[CB_KINDS];

static int operator_cb(void *user_data, const double *in, size_t n_in, double *out, size_t n_out) {
  const int kind = (int)((const int *)user_data - cb_kind_tag);
  size_t i, j;
  switch (kind) {
    case CB_DIAGONAL:
      for (i = 0; i < n_out; ++i) out[i] = i < n_in ? in[i] * (1.0 + 0.25 * (double)(i % 3)) : 0.0;
      return 0;
    case CB_DENSE:
      for (i = 0; i < n_out; ++i) {
        out[i] = 0.0;
        for (j = 0; j < n_in && j < 64; ++j) out[i] += in[j] * 0.1 * cos((double)(3 * i + 5 * j));
      }
      return 0;
    case CB_NAN:
      if (n_out > 0) out[n_out / 2] = NAN;
      return 0;
    case CB_FAIL: return 7;
    default:
      for (i = 0; i < n_out; ++i) out[i] = i < n_in ? in[i] * 1e300 : 1e300;
      return 0;
  }
}

static void rigid_operator(rigid_slot *s, int accel, int what);

/* A random partition of 0..nc into ascending sliding / non-sliding lists (now and then wrong). */
static void partition(size_t nc, size_t *sliding, size_t *ns, size_t *non_sliding, size_t *nns) {
  size_t i;
  *ns = *nns = 0;
  for (i = 0; i < nc; ++i) {
    if (one_in(3)) {
      if (sliding != NULL) sliding[*ns] = i;
      ++*ns;
    } else {
      if (non_sliding != NULL) non_sliding[*nns] = i;
      ++*nns;
    }
  }
  if (one_in(25) && sliding != NULL && *ns > 0) sliding[0] = nc + 3;
}

static void rigid_set_accel(rigid_slot *s) {
  bundle next = {{0}, 0};
  size_t nv = below(6), nc = one_in(15) ? rand_size() : below(5), nu = below(3), nb = one_in(10) ? rand_size() : below(3);
  size_t ns = 0, nns = 0, nr = 0, i;
  size_t *sl = NULL, *nsl = NULL, *r = NULL;
  cts_status st;
  if (nc <= HONEST_MAX) {
    size_t *all_s = iarr(&next, nc), *all_n = iarr(&next, nc);
    partition(nc, all_s, &ns, all_n, &nns);
    sl = ns > 0 ? all_s : NULL;
    nsl = nns > 0 ? all_n : NULL;
    r = iarr(&next, nns);
    if (r != NULL)
      for (i = 0; i < nns; ++i) {
        r[i] = one_in(40) ? SIZE_MAX / 2 : 1 + below(2);
        nr += r[i] < HONEST_MAX ? r[i] : HONEST_MAX;
      }
  } else {
    ns = nc / 2;
    nns = nc - ns;
  }
  st = CHECKED(cts_rigid_solver_set_accel_problem_data(
                   s->h, nv, ns, sl, darr(&next, ns, NONNEG), nns, nsl, darr(&next, nns, NONNEG), r,
                   darr(&next, nc, ANY), darr(&next, nr, ANY), nu, darr(&next, nu, ANY), nb, darr(&next, nb, ANY),
                   darr(&next, nv, ANY), one_in(15) ? 2 : (int32_t)below(2)),
               rigid_msg(s));
  if (st == CTS_STATUS_OK) {
    bundle_take(&s->accel, &next, 1);
    s->a.nv = nv;
    s->a.nc = nc;
    s->a.nr = nr;
    s->a.nu = nu;
    s->a.nb = nb;
    s->a.set = 1;
    if (!one_in(4)) rigid_operator(s, 1, 2); /* mostly give it an inertia right away */
  } else {
    bundle_free(&next);
  }
}

static void rigid_set_vel(rigid_slot *s) {
  bundle next = {{0}, 0};
  size_t nv = below(6), nc = one_in(15) ? rand_size() : below(5), nu = below(3), nb = one_in(10) ? rand_size() : below(3);
  size_t nr = 0, i, *r = NULL;
  cts_status st;
  if (nc <= HONEST_MAX) {
    r = iarr(&next, nc);
    if (r != NULL)
      for (i = 0; i < nc; ++i) {
        r[i] = one_in(40) ? SIZE_MAX / 3 : 1 + below(2);
        nr += r[i] < HONEST_MAX ? r[i] : HONEST_MAX;
      }
  }
  st = CHECKED(cts_rigid_solver_set_vel_problem_data(
                   s->h, nv, nc, r, darr(&next, nc, NONNEG), darr(&next, nc, ANY),
                   one_in(2) ? NULL : darr(&next, nc, NONNEG), darr(&next, nr, ANY),
                   one_in(2) ? NULL : darr(&next, nr, NONNEG), one_in(2) ? NULL : darr(&next, nc, NONNEG), nu,
                   darr(&next, nu, ANY), one_in(2) ? NULL : darr(&next, nu, NONNEG), nb, darr(&next, nb, ANY),
                   darr(&next, nv, ANY)),
               rigid_msg(s));
  if (st == CTS_STATUS_OK) {
    bundle_take(&s->vel, &next, 1);
    s->v.nv = nv;
    s->v.nc = nc;
    s->v.nr = nr;
    s->v.nu = nu;
    s->v.nb = nb;
    s->v.set = 1;
    if (!one_in(4)) rigid_operator(s, 0, 2); /* mostly give it an inertia right away */
  } else {
    bundle_free(&next);
  }
}

static size_t op_rows(const rigid_sizes *z, int32_t op) {
  switch (op) {
    case 0: case 1: case 2: return z->nc;
    case 3: case 4: return z->nr;
    case 5: case 6: return z->nu;
    default: return z->nb;
  }
}

/* Sets one operator of a level: `what` 0 a dense matrix, 1 a callback, 2 the inertia. */
static void rigid_operator(rigid_slot *s, int accel, int what) {
  bundle *level = accel ? &s->accel : &s->vel;
  const rigid_sizes *z = accel ? &s->a : &s->v;
  int32_t op = one_in(15) ? (int32_t)below(14) - 2 : (int32_t)below(10);
  bundle next = {{0}, 0};
  cts_status st;
  if (level->n + 2 > BUNDLE_MAX) return; /* the level's data must stay borrowed: no room, no call */
  switch (what) {
    case 0: { /* a dense matrix */
      size_t ld, rows = op_rows(z, op < 0 || op > 9 ? 0 : op);
      double *A = dmat(&next, rows, z->nv, &ld, UNIT, 0);
      st = accel ? CHECKED(cts_rigid_solver_set_accel_operator_matrix(s->h, op, A, ld), rigid_msg(s))
                 : CHECKED(cts_rigid_solver_set_vel_operator_matrix(s->h, op, A, ld), rigid_msg(s));
      break;
    }
    case 1: { /* a callback */
      int kind = one_in(3) ? (int)below(CB_KINDS) : (int)below(2);
      cts_rigid_operator_fn f = one_in(30) ? NULL : operator_cb;
      st = accel ? CHECKED(cts_rigid_solver_set_accel_operator_callback(s->h, op, f, &cb_kind_tag[kind]), rigid_msg(s))
                 : CHECKED(cts_rigid_solver_set_vel_operator_callback(s->h, op, f, &cb_kind_tag[kind]), rigid_msg(s));
      break;
    }
    default: { /* the inertia matrix */
      size_t ld;
      int32_t form = one_in(15) ? 2 : (int32_t)below(2);
      double *A = dmat(&next, z->nv, z->nv, &ld, POSITIVE, 1);
      st = accel ? CHECKED(cts_rigid_solver_set_accel_inertia_matrix(s->h, form, A, ld), rigid_msg(s))
                 : CHECKED(cts_rigid_solver_set_vel_inertia_matrix(s->h, form, A, ld), rigid_msg(s));
      break;
    }
  }
  if (st == CTS_STATUS_OK) {
    bundle_take(level, &next, 0);
  } else {
    bundle_free(&next);
  }
}

static void rigid_read_all(rigid_slot *s, int after_ok) {
  size_t ncf = cts_rigid_solver_num_constraint_forces(s->h), n = cts_rigid_solver_lcp_size(s->h), ld = n + below(2);
  typedef cts_status (*getter)(const cts_rigid_solver *, double *, size_t);
  static const getter g[3] = {cts_rigid_solver_get_lcp_vector, cts_rigid_solver_get_lcp_z, cts_rigid_solver_get_lcp_w};
  double *out = out_buf(ncf);
  cts_status r = CHECKED(cts_rigid_solver_get_constraint_forces(s->h, out, ncf), rigid_msg(s));
  int i;
  if (r == CTS_STATUS_OK) finite_out("cf", out, ncf);
  if (after_ok) must_be_ok(r, rigid_msg(s));
  out = out_buf(span(n, n, ld == 0 ? 1 : ld));
  r = CHECKED(cts_rigid_solver_get_lcp_matrix(s->h, out, ld == 0 ? 1 : ld), rigid_msg(s));
  if (r == CTS_STATUS_OK) {
    size_t c;
    for (c = 0; c < n; ++c) finite_out("LCP matrix", out + c * ld, n);
  }
  if (after_ok) must_be_ok(r, rigid_msg(s));
  for (i = 0; i < 3; ++i) {
    out = out_buf(n);
    r = CHECKED(g[i](s->h, out, n), rigid_msg(s));
    if (r == CTS_STATUS_OK) finite_out("LCP vector", out, n);
    if (after_ok) must_be_ok(r, rigid_msg(s));
  }
  (void)cts_rigid_solver_num_pivots(s->h);
  (void)cts_rigid_solver_regularization_used(s->h);
}

static void rigid_compute(rigid_slot *s) {
  bundle tmp = {{0}, 0};
  int which = (int)below(6), accel = which < 3;
  const rigid_sizes *z = accel ? &s->a : &s->v;
  size_t cf_len = z->nc + z->nr + z->nu + z->nb, nv = z->nv;
  double *cf, *out, *v;
  if (one_in(6)) cf_len = one_in(2) ? 0 : cf_len + 1;
  if (one_in(8)) nv += 1;
  cf = darr(&tmp, cf_len, ANY);
  out = out_buf(nv);
  v = darr(&tmp, nv, ANY);
  switch (which) {
    case 0: CHECKED(cts_rigid_solver_compute_generalized_force_from_constraint_forces(s->h, cf, cf_len, out, nv), rigid_msg(s)); break;
    case 1: CHECKED(cts_rigid_solver_compute_generalized_acceleration_from_constraint_forces(s->h, cf, cf_len, out, nv), rigid_msg(s)); break;
    case 2: CHECKED(cts_rigid_solver_compute_generalized_acceleration(s->h, cf, cf_len, out, nv), rigid_msg(s)); break;
    case 3: CHECKED(cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses(s->h, cf, cf_len, out, nv), rigid_msg(s)); break;
    case 4: CHECKED(cts_rigid_solver_compute_generalized_velocity_change(s->h, cf, cf_len, out, nv), rigid_msg(s)); break;
    default: CHECKED(cts_rigid_solver_compute_generalized_acceleration_discretized(s->h, v, cf, cf_len, rand_dt(), out, nv), rigid_msg(s)); break;
  }
  if (st_ == CTS_STATUS_OK) finite_out("rigid compute output", out, nv);
  bundle_free(&tmp);
}

static void rigid_free_slot(rigid_slot *s) {
  cts_rigid_solver_free(s->h);
  s->h = NULL;
  bundle_free(&s->accel);
  bundle_free(&s->vel);
  memset(&s->a, 0, sizeof s->a);
  memset(&s->v, 0, sizeof s->v);
}

static void rigid_step(void) {
  rigid_slot *s = &rigid[below(SLOTS)];
  ++per_solver[2];
  switch (action(s->h, 14)) {
    case 0:
      if (s->h == NULL) CHECKED(cts_rigid_solver_new(&s->h), cts_last_error_message());
      break;
    case 1: rigid_free_slot(s); break;
    case 2: {
      rigid_slot *t = &rigid[below(SLOTS)];
      cts_rigid_solver *copy = NULL;
      if (t != s && CHECKED(cts_rigid_solver_clone(s->h, &copy), cts_last_error_message()) == CTS_STATUS_OK) {
        rigid_free_slot(t);
        t->h = copy;
      }
      break;
    }
    case 3: {
      cts_rigid_parameters p;
      cts_rigid_parameters_default(&p);
      p.drake_inverse_inertia_blocks = one_in(10) ? int_param(1) : (int32_t)below(2);
      p.drake_limit_row_transpose = (int32_t)below(2);
      p.drake_double_gamma = (int32_t)below(2);
      p.drake_empty_fast_exit = one_in(10) ? int_param(0) : (int32_t)below(2);
      CHECKED(cts_rigid_solver_set_parameters(s->h, one_in(30) ? NULL : &p), rigid_msg(s));
      CHECKED(cts_rigid_solver_get_parameters(s->h, &p), rigid_msg(s));
      break;
    }
    case 4: rigid_set_accel(s); break;
    case 5: rigid_set_vel(s); break;
    case 6:
    case 7: rigid_operator(s, (int)below(2), (int)below(3)); break;
    case 8:
    case 9:
    case 10: {
      int which = (int)below(3);
      cts_status r = which == 0   ? CHECKED(cts_rigid_solver_solve_constraint_problem(s->h), rigid_msg(s))
                     : which == 1 ? CHECKED(cts_rigid_solver_solve_impact_problem(s->h), rigid_msg(s))
                                  : CHECKED(cts_rigid_solver_solve_discretized_problem(s->h, rand_dt()), rigid_msg(s));
      if (r == CTS_STATUS_OK) {
        ++ok_solves;
        ++ok_per_solver[2];
        rigid_read_all(s, 1);
      }
      break;
    }
    case 11: rigid_read_all(s, 0); break;
    default: rigid_compute(s); break;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Baraff                                                                                      */

typedef struct {
  cts_baraff_solver *h;
  bundle data;
  int model;
} baraff_slot;
static baraff_slot baraff[SLOTS];

static const char *baraff_msg(const baraff_slot *s) {
  return s->h != NULL ? cts_baraff_solver_last_error(s->h) : cts_last_error_message();
}

/* Row descriptions for m rows: kinds, owning normals, μ, bounds. */
static void baraff_rows(bundle *b, size_t m, int32_t **kind, int32_t **normal, double **mu, double **lo, double **hi) {
  size_t i;
  *kind = codes(b, m, 0, 3);
  *normal = codes(b, m, 0, m > 0 ? (int32_t)(m < 1000 ? m - 1 : 999) : 0);
  *mu = darr(b, m, NONNEG);
  *lo = darr(b, m, NONNEG);
  *hi = darr(b, m, NONNEG);
  if (*kind != NULL && *normal != NULL && m <= HONEST_MAX) {
    /* Mostly valid: a friction row points at a normal row before it. */
    for (i = 0; i < m; ++i) {
      if ((*kind)[i] == 2 && !one_in(20)) {
        if (i == 0) {
          (*kind)[i] = 1;
        } else {
          (*kind)[i - 1] = 1;
          (*normal)[i] = (int32_t)(i - 1);
        }
      }
    }
  }
  if (*lo != NULL && m <= HONEST_MAX)
    for (i = 0; i < m; ++i) (*lo)[i] = -(*lo)[i];
}

static void baraff_set(baraff_slot *s, int model) {
  bundle next = {{0}, 0};
  size_t m = one_in(12) ? rand_size() : below(7), n = below(6), ldA, ldM, ldJ;
  int32_t *kind, *normal;
  double *mu, *lo, *hi;
  cts_status st;
  baraff_rows(&next, m, &kind, &normal, &mu, &lo, &hi);
  if (!model) {
    double *A = dmat(&next, m, m, &ldA, POSITIVE, 1);
    st = CHECKED(cts_baraff_solver_set_matrix_problem_data(s->h, m, A, ldA, darr(&next, m, ANY), kind, normal, mu, lo, hi),
                 baraff_msg(s));
  } else {
    double *M = dmat(&next, n, n, &ldM, POSITIVE, 1), *J = dmat(&next, m, n, &ldJ, UNIT, 0);
    int32_t level = one_in(15) ? 2 : (int32_t)below(2);
    st = CHECKED(cts_baraff_solver_set_model_problem_data(s->h, m, n, M, ldM, J, ldJ, level, darr(&next, n, ANY), kind,
                                                          normal, mu, lo, hi),
                 baraff_msg(s));
  }
  if (st == CTS_STATUS_OK) {
    bundle_take(&s->data, &next, 1);
    s->model = model;
  } else {
    bundle_free(&next);
  }
}

static void baraff_extra(baraff_slot *s) {
  bundle next = {{0}, 0};
  size_t m = cts_baraff_solver_num_rows(s->h), n = cts_baraff_solver_num_coordinates(s->h), len = one_in(8) ? m + 1 : m, ld;
  cts_status st;
  if (s->data.n + 3 > BUNDLE_MAX) return;
  switch (below(3)) {
    case 0: st = CHECKED(cts_baraff_solver_set_model_bias(s->h, darr(&next, len, ANY), len), baraff_msg(s)); break;
    case 1: {
      double *Q = dmat(&next, m, n, &ld, UNIT, 0);
      st = CHECKED(cts_baraff_solver_set_model_sliding(s->h, Q, ld, darr(&next, len, NONNEG), len), baraff_msg(s));
      break;
    }
    default:
      st = CHECKED(cts_baraff_solver_set_model_stabilization(s->h, scalar(10.0), scalar(1.0), darr(&next, len, ANY),
                                                             one_in(15) ? 2 : (int32_t)below(2), darr(&next, len, ANY),
                                                             len),
                   baraff_msg(s));
      break;
  }
  if (st == CTS_STATUS_OK) {
    bundle_take(&s->data, &next, 0);
  } else {
    bundle_free(&next);
  }
}

static void baraff_read_all(baraff_slot *s, int after_ok) {
  size_t m = cts_baraff_solver_num_rows(s->h), n = cts_baraff_solver_num_coordinates(s->h), ld = m + below(2);
  typedef cts_status (*getter)(const cts_baraff_solver *, double *, size_t);
  static const getter g[6] = {cts_baraff_solver_get_forces,           cts_baraff_solver_get_accelerations,
                              cts_baraff_solver_get_generalized_result, cts_baraff_solver_get_generalized_change,
                              cts_baraff_solver_get_sliding_friction_forces, cts_baraff_solver_get_composed_b};
  const size_t len[6] = {m, m, n, n, m, m};
  cts_baraff_stats stats;
  int32_t *sets = (int32_t *)malloc((m < HONEST_MAX ? m : 0) * sizeof(int32_t) + sizeof(int32_t));
  double *out;
  cts_status r;
  int i;
  for (i = 0; i < 6; ++i) {
    out = out_buf(len[i]);
    r = CHECKED(g[i](s->h, out, len[i]), baraff_msg(s));
    if (r == CTS_STATUS_OK) finite_out("Baraff output", out, len[i]);
    if (after_ok && (i < 2 || s->model)) must_be_ok(r, baraff_msg(s));
  }
  out = out_buf(span(m, m, ld == 0 ? 1 : ld));
  r = CHECKED(cts_baraff_solver_get_composed_matrix(s->h, out, ld == 0 ? 1 : ld), baraff_msg(s));
  if (r == CTS_STATUS_OK) {
    size_t c;
    for (c = 0; c < m; ++c) finite_out("composed matrix", out + c * ld, m);
  }
  if (after_ok && s->model) must_be_ok(r, baraff_msg(s));
  r = CHECKED(cts_baraff_solver_get_row_sets(s->h, sets, m), baraff_msg(s));
  if (after_ok) must_be_ok(r, baraff_msg(s));
  r = CHECKED(cts_baraff_solver_get_stats(s->h, &stats), baraff_msg(s));
  if (r == CTS_STATUS_OK) finite_out("worst_violation", &stats.worst_violation, 1);
  if (after_ok) must_be_ok(r, baraff_msg(s));
  free(sets);
}

static void baraff_free_slot(baraff_slot *s) {
  cts_baraff_solver_free(s->h);
  s->h = NULL;
  bundle_free(&s->data);
}

static void baraff_step(void) {
  baraff_slot *s = &baraff[below(SLOTS)];
  ++per_solver[3];
  switch (action(s->h, 14)) {
    case 0:
      if (s->h == NULL) CHECKED(cts_baraff_solver_new(&s->h), cts_last_error_message());
      break;
    case 1: baraff_free_slot(s); break;
    case 2: {
      baraff_slot *t = &baraff[below(SLOTS)];
      cts_baraff_solver *copy = NULL;
      if (t != s && CHECKED(cts_baraff_solver_clone(s->h, &copy), cts_last_error_message()) == CTS_STATUS_OK) {
        baraff_free_slot(t);
        t->h = copy;
      }
      break;
    }
    case 3: {
      cts_baraff_parameters p;
      cts_baraff_parameters_default(&p);
      p.epsilon = scalar(1e-10);
      p.singular_tolerance = scalar(1e-9);
      p.tolerance = scalar(1e-8);
      p.restitution = scalar(0.0);
      p.cdot_tolerance = scalar(1e-6);
      p.max_pivots = int_param(0);
      p.max_impulse_iterations = int_param(0);
      p.reverse_retry = int_param(1);
      CHECKED(cts_baraff_solver_set_parameters(s->h, one_in(30) ? NULL : &p), baraff_msg(s));
      CHECKED(cts_baraff_solver_get_parameters(s->h, &p), baraff_msg(s));
      break;
    }
    case 4: CHECKED(cts_baraff_solver_reserve(s->h, one_in(3) ? rand_size() : below(8), below(8)), baraff_msg(s)); break;
    case 5: baraff_set(s, 0); break;
    case 6: baraff_set(s, 1); break;
    case 7: baraff_extra(s); break;
    case 8:
    case 9:
    case 10: {
      int which = (int)below(3);
      cts_status r = which == 0   ? CHECKED(cts_baraff_solver_solve(s->h), baraff_msg(s))
                     : which == 1 ? CHECKED(cts_baraff_solver_compute_impulses(s->h), baraff_msg(s))
                                  : CHECKED(cts_baraff_solver_consistency_impulse(s->h, below(8)), baraff_msg(s));
      if (r == CTS_STATUS_OK) {
        ++ok_solves;
        ++ok_per_solver[3];
        baraff_read_all(s, 1);
      }
      break;
    }
    case 11: {
      int32_t needs = 0;
      CHECKED(cts_baraff_solver_needs_impulse(s->h, one_in(20) ? NULL : &needs), baraff_msg(s));
      break;
    }
    default: baraff_read_all(s, 0); break;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Interior point                                                                              */

typedef struct {
  cts_ipm_solver *h;
  bundle data;
} ipm_slot;
static ipm_slot ipm[SLOTS];

static const char *ipm_msg(const ipm_slot *s) {
  return s->h != NULL ? cts_ipm_solver_last_error(s->h) : cts_last_error_message();
}

static void ipm_set(ipm_slot *s) {
  bundle next = {{0}, 0};
  size_t n = below(7), nc = one_in(12) ? rand_size() : below(5), ldM, ldJn, ldJt;
  size_t two_nc = nc <= SIZE_MAX / 2 ? 2 * nc : SIZE_MAX, off_len = one_in(3) ? two_nc : (one_in(10) ? 3 : 0);
  double *M = dmat(&next, n, n, &ldM, POSITIVE, 1), *Jn = dmat(&next, nc, n, &ldJn, UNIT, 0);
  double *Jt = dmat(&next, two_nc, n, &ldJt, UNIT, 0), *phi = darr(&next, nc, ANY);
  double *tau = darr(&next, n, ANY);
  cts_status st;
  if (tau != NULL && n <= HONEST_MAX && n > 0) tau[below(n)] -= 9.81;
  st = CHECKED(cts_ipm_solver_set_problem_data(s->h, n, nc, M, ldM, Jn, ldJn, Jt, ldJt, darr(&next, n, ANY), tau,
                                               scalar(0.01), phi, darr(&next, nc, NONNEG), codes(&next, nc, 0, 2),
                                               darr(&next, off_len, ANY), off_len),
               ipm_msg(s));
  if (st == CTS_STATUS_OK) {
    bundle_take(&s->data, &next, 1);
  } else {
    bundle_free(&next);
  }
}

static void ipm_read_all(ipm_slot *s, int after_ok) {
  size_t n = cts_ipm_solver_num_velocities(s->h), nc = cts_ipm_solver_num_contacts(s->h);
  size_t k = cts_ipm_solver_num_cone_variables(s->h), count = 0;
  typedef cts_status (*getter)(const cts_ipm_solver *, double *, size_t);
  typedef cts_status (*history)(const cts_ipm_solver *, double *, size_t, size_t *);
  static const getter g[5] = {cts_ipm_solver_get_generalized_velocities, cts_ipm_solver_get_impulses,
                              cts_ipm_solver_get_next_gaps, cts_ipm_solver_get_primal, cts_ipm_solver_get_dual};
  static const history hist[4] = {cts_ipm_solver_get_rvio_history, cts_ipm_solver_get_bvio_history,
                                  cts_ipm_solver_get_kappa_history, cts_ipm_solver_get_alpha_history};
  const size_t len[5] = {n, 3 * nc, nc, k, k};
  cts_ipm_stats stats;
  double *out;
  cts_status r;
  int i;
  for (i = 0; i < 5; ++i) {
    out = out_buf(len[i]);
    r = CHECKED(g[i](s->h, out, len[i]), ipm_msg(s));
    if (r == CTS_STATUS_OK) finite_out("IPM output", out, len[i]);
    if (after_ok) must_be_ok(r, ipm_msg(s));
  }
  r = CHECKED(cts_ipm_solver_get_stats(s->h, &stats), ipm_msg(s));
  if (r == CTS_STATUS_OK) {
    const double fields[8] = {stats.rvio,  stats.bvio,  stats.kappa,          stats.residual,
                               stats.complementarity, stats.merit, stats.momentum_scale, stats.velocity_scale};
    finite_out("IPM stats", fields, 8);
  }
  if (after_ok) must_be_ok(r, ipm_msg(s));
  for (i = 0; i < 4; ++i) {
    if (CHECKED(hist[i](s->h, NULL, 0, &count), ipm_msg(s)) == CTS_STATUS_OK) {
      out = out_buf(count);
      r = CHECKED(hist[i](s->h, out, count, &count), ipm_msg(s));
      if (r == CTS_STATUS_OK) finite_out("IPM history", out, count);
      if (after_ok) must_be_ok(r, ipm_msg(s));
    }
  }
}

static void ipm_sensitivities(ipm_slot *s) {
  size_t n = cts_ipm_solver_num_velocities(s->h), nc = cts_ipm_solver_num_contacts(s->h);
  int32_t p;
  if (CHECKED(cts_ipm_solver_compute_sensitivities(s->h), ipm_msg(s)) != CTS_STATUS_OK) return;
  for (p = 0; p < 4; ++p) {
    size_t cols = p < 2 ? n : nc, c;
    size_t ldv = n == 0 ? 1 : n, ldi = nc == 0 ? 1 : 3 * nc;
    double *out = out_buf(span(n, cols, ldv));
    cts_status r = CHECKED(cts_ipm_solver_get_velocity_sensitivity(s->h, p, out, ldv, cols), ipm_msg(s));
    if (r == CTS_STATUS_OK)
      for (c = 0; c < cols; ++c) finite_out("velocity sensitivity", out + c * ldv, n);
    must_be_ok(r, ipm_msg(s));
    out = out_buf(span(3 * nc, cols, ldi));
    r = CHECKED(cts_ipm_solver_get_impulse_sensitivity(s->h, p, out, ldi, cols), ipm_msg(s));
    if (r == CTS_STATUS_OK)
      for (c = 0; c < cols; ++c) finite_out("impulse sensitivity", out + c * ldi, 3 * nc);
    must_be_ok(r, ipm_msg(s));
  }
}

/* As tamsi_batch for the interior point: no guesses (every world from its v0), or one per
 * world, NULL entries included. */
static void ipm_batch(void) {
  bundle tmp = {{0}, 0};
  cts_ipm_solver *hs[5];
  ipm_slot *slots[5];
  const double *guesses[5];
  size_t ns[5], count = below(6), threads = below(5), i;
  int with_guesses = one_in(2);
  cts_status statuses[5];
  for (i = 0; i < count; ++i) {
    slots[i] = &ipm[below(SLOTS)];
    hs[i] = slots[i]->h;
    ns[i] = (hs[i] != NULL ? cts_ipm_solver_num_velocities(hs[i]) : below(3)) + (one_in(10) ? 1 : 0);
    guesses[i] = one_in(4) ? NULL : darr(&tmp, ns[i], ANY);
  }
  if (one_in(10) &&
      CHECKED(cts_ipm_solver_solve_batch(hs, NULL, NULL, (size_t)1 << 36, threads, statuses),
              cts_last_error_message()) != CTS_STATUS_INVALID_ARGUMENT)
    violation(&bad_status, "a batch of 2^36 worlds not refused", current, st_, "");
  if (CHECKED(cts_ipm_solver_solve_batch(hs, with_guesses ? guesses : NULL, with_guesses ? ns : NULL, count, threads,
                                         statuses),
              cts_last_error_message()) == CTS_STATUS_OK) {
    for (i = 0; i < count; ++i) {
      batch_world("cts_ipm_solver_solve_batch: a world", statuses[i],
                  hs[i] != NULL ? cts_ipm_solver_last_error(hs[i]) : NULL);
      if (statuses[i] == CTS_STATUS_OK) {
        ++ok_solves;
        ++ok_per_solver[4];
        ipm_read_all(slots[i], 1);
      }
    }
  }
  bundle_free(&tmp);
}

static void ipm_free_slot(ipm_slot *s) {
  cts_ipm_solver_free(s->h);
  s->h = NULL;
  bundle_free(&s->data);
}

static void ipm_step(void) {
  ipm_slot *s = &ipm[below(SLOTS)];
  ++per_solver[4];
  switch (action(s->h, 12)) {
    case 0:
      if (s->h == NULL) CHECKED(cts_ipm_solver_new(&s->h), cts_last_error_message());
      break;
    case 1: ipm_free_slot(s); break;
    case 2: {
      ipm_slot *t = &ipm[below(SLOTS)];
      cts_ipm_solver *copy = NULL;
      if (t != s && CHECKED(cts_ipm_solver_clone(s->h, &copy), cts_last_error_message()) == CTS_STATUS_OK) {
        ipm_free_slot(t);
        t->h = copy;
      }
      break;
    }
    case 3: {
      cts_ipm_parameters p;
      cts_ipm_parameters_default(&p);
      p.rtol = scalar(1e-6);
      p.btol = scalar(1e-4);
      p.max_iter = int_param(50);
      if (p.max_iter > 200 && p.max_iter <= 100000) p.max_iter = 200; /* bounded time */
      p.max_ls = int_param(10);
      if (p.max_ls > 60 && p.max_ls <= 1000) p.max_ls = 60;
      p.undercut = one_in(3) ? scalar(5.0) : INFINITY;
      p.no_progress_max = int_param(3);
      p.no_progress_undercut = scalar(10.0);
      p.dojo_lagged_kappa = one_in(10) ? int_param(0) : (int32_t)below(2);
      p.fixed_kappa = one_in(4) ? scalar(1e-6) : 0.0;
      p.warm_start = (int32_t)below(2);
      p.newton_solve = one_in(10) ? int_param(0) : (int32_t)below(2);
      p.rvio_floor_in_backtracking = (int32_t)below(2);
      p.dojo_compatible = one_in(10) ? int_param(0) : (int32_t)below(2);
      p.tolerance = scalar(1e-8);
      p.complementarity_tolerance = scalar(1e-6);
      p.centrality_correctors = one_in(8) ? int_param(2) : (int32_t)below(4);
      p.proximal_regularization = one_in(3) ? scalar(1e-2) : 1e-2;
      p.normal_compliance = one_in(3) ? scalar(0.1) : 0.0;
      p.stall_iterations = one_in(8) ? int_param(20) : (int32_t)below(30);
      if (p.stall_iterations > 200) p.stall_iterations = 200; /* bounded time */
      CHECKED(cts_ipm_solver_set_parameters(s->h, one_in(30) ? NULL : &p), ipm_msg(s));
      CHECKED(cts_ipm_solver_get_parameters(s->h, &p), ipm_msg(s));
      break;
    }
    case 4:
    case 5: ipm_set(s); break;
    case 6:
    case 7: {
      cts_status r;
      if (one_in(4)) {
        ipm_batch();
        break;
      }
      if (one_in(2)) {
        bundle tmp = {{0}, 0};
        size_t n = cts_ipm_solver_num_velocities(s->h) + (one_in(10) ? 1 : 0);
        r = CHECKED(cts_ipm_solver_solve_with_guess(s->h, darr(&tmp, n, ANY), n), ipm_msg(s));
        bundle_free(&tmp);
      } else {
        r = CHECKED(cts_ipm_solver_solve(s->h), ipm_msg(s));
      }
      if (r == CTS_STATUS_OK) {
        ++ok_solves;
        ++ok_per_solver[4];
        ipm_read_all(s, 1);
        if (one_in(3)) ipm_sensitivities(s);
      }
      break;
    }
    case 8: ipm_sensitivities(s); break;
    case 9: {
      /* Contact ids (warm start by id): the right count, a wrong one, NULL with and without a
       * length, or an unaddressable length; ids often repeat earlier ones. */
      size_t nc = cts_ipm_solver_num_contacts(s->h) + (one_in(5) ? below(3) : 0);
      uint64_t ids[64];
      if (nc > 64) nc = 64;
      for (size_t i = 0; i < nc; ++i) ids[i] = one_in(4) ? next64() : (uint64_t)(i * 7 + below(2));
      if (one_in(10)) {
        CHECKED(cts_ipm_solver_set_contact_ids(s->h, NULL, one_in(2) ? 0 : nc + 1), ipm_msg(s));
      } else if (one_in(20)) {
        CHECKED(cts_ipm_solver_set_contact_ids(s->h, ids, SIZE_MAX / 4), ipm_msg(s));
      } else {
        CHECKED(cts_ipm_solver_set_contact_ids(s->h, ids, nc), ipm_msg(s));
      }
      break;
    }
    default: ipm_read_all(s, 0); break;
  }
}

/* ------------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
  unsigned long long seed, max_calls = ULLONG_MAX;
  double seconds;
  int i;
  if (argc < 3) {
    fprintf(stderr, "usage: fuzz_abi <seed> <seconds> [max_calls]\n");
    return 2;
  }
  seed = strtoull(argv[1], NULL, 10);
  seconds = strtod(argv[2], NULL);
  if (argc > 3) max_calls = strtoull(argv[3], NULL, 10);
  rng = seed;
  elapsed();
  while (calls < max_calls && elapsed() < seconds) {
    int k;
    for (k = 0; k < 64; ++k) {
      switch (below(5)) {
        case 0: tamsi_step(); break;
        case 1: lcp_step(); break;
        case 2: rigid_step(); break;
        case 3: baraff_step(); break;
        default: ipm_step(); break;
      }
      if (one_in(50)) (void)cts_status_string((int32_t)next64());
    }
  }
  for (i = 0; i < SLOTS; ++i) {
    cts_tamsi_solver_free(tamsi[i].h);
    bundle_free(&tamsi[i].data);
    cts_lcp_solver_free(lcp[i]);
    rigid_free_slot(&rigid[i]);
    baraff_free_slot(&baraff[i]);
    ipm_free_slot(&ipm[i]);
  }
  free(scratch);
  printf("seed %llu: %llu calls in %.1f s; OK solves: tamsi %llu, lcp %llu, rigid %llu, baraff %llu, ipm %llu; "
         "TAMSI block-sparse data: sets OK %llu, solves OK %llu; statuses NON_FINITE_RESULT %llu, ALLOCATION_FAILED %llu; violations %llu: ok_with_non_finite %llu, "
         "unknown_status %llu, panics %llu, empty_message %llu, getter_failed_after_ok %llu\n",
         seed, calls, elapsed(), ok_per_solver[0], ok_per_solver[1],
         ok_per_solver[2], ok_per_solver[3], ok_per_solver[4], tamsi_block_sets, tamsi_block_solves, non_finite_statuses, allocation_failures, violations,
         ok_non_finite, bad_status, panics, empty_message, getter_failed);
  return violations == 0 ? 0 : 1;
}
