/* Shared by the C ABI contract programs (tests/c/contract*.c): check counters, the CHECK / OK /
 * EXPECT_* macros and the sentinel helpers that show an output was not written. Each program
 * defines its own EXPECT_* shorthands over EXPECT_ON with its solver's *_last_error function. */
#ifndef CONTRACT_SUPPORT_H
#define CONTRACT_SUPPORT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "contact_solvers.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    ++checks;                                                                    \
    if (!(cond)) {                                                               \
      ++failures;                                                                \
      printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);                   \
    }                                                                            \
  } while (0)

/* A call on a handle returned `want` and left a non-empty message through `last_error`. */
#define EXPECT_ON(last_error, h, call, want)                                     \
  do {                                                                           \
    cts_status got_ = (call);                                                    \
    ++checks;                                                                    \
    if (got_ != (want) || strlen(last_error(h)) == 0) {                          \
      ++failures;                                                                \
      printf("FAILED %s:%d: %s returned %d (%s), message \"%s\", want %d\n",      \
             __FILE__, __LINE__, #call, (int)got_, cts_status_string(got_),       \
             last_error(h), (int)(want));                                         \
    }                                                                            \
  } while (0)

/* A call without a usable handle returned `want` and left a thread-local message. */
#define EXPECT_GLOBAL(call, want)                                                \
  do {                                                                           \
    cts_status got_ = (call);                                                    \
    ++checks;                                                                    \
    if (got_ != (want) || strlen(cts_last_error_message()) == 0) {               \
      ++failures;                                                                \
      printf("FAILED %s:%d: %s returned %d, message \"%s\", want %d\n",           \
             __FILE__, __LINE__, #call, (int)got_, cts_last_error_message(),      \
             (int)(want));                                                        \
    }                                                                            \
  } while (0)

#define OK(call) CHECK((call) == CTS_STATUS_OK)

/* Outputs are pre-filled with SENTINEL; a failed call must leave them so. */
#define SENTINEL 12345.0

static inline int untouched(const double *x, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (x[i] != SENTINEL) return 0;
  return 1;
}

static inline void fill(double *x, size_t n, double value) {
  size_t i;
  for (i = 0; i < n; ++i) x[i] = value;
}

#endif /* CONTRACT_SUPPORT_H */
