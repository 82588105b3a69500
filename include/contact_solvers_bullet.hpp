/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* contact_solvers_bullet.hpp: header-only adapters that plug the library's solvers into the Bullet
 * physics engine (Bullet 2.x API, tested with Debian's libbullet-dev 3.24), over the C++ wrapper
 * contact_solvers.hpp. Compiled only when a program includes it; it needs Bullet's headers
 * (pkg-config bullet, or find_package(Bullet)) and links libcontact_solvers plus BulletDynamics,
 * BulletCollision and LinearMath. docs/bullet.md describes the adapters, their mapping of Bullet's
 * data and the measured scenes.
 *
 * Two places to plug in:
 *
 * - btMLCPSolver(btMLCPSolverInterface*): cts::bullet::BaraffMlcpSolver or
 *   cts::bullet::LemkeMlcpSolver instead of btDantzigSolver / btLemkeSolver. Each solves Bullet's
 *   boxed MLCP (A x = b + w with the bounds and limitDependency of btDantzigLCP.h, Bullet's own
 *   convention) exactly, or returns false with the reason in last_error(), and Bullet then falls
 *   back to its sequential impulse iterations as it does for its own solvers.
 * - btDiscreteDynamicsWorld(dispatcher, broadphase, solver, config): cts::bullet::ContactSolver, a
 *   btConstraintSolver that takes each island's bodies and contact manifolds and solves the step
 *   with TAMSI or the interior point (Method::kTamsi / Method::kInteriorPoint).
 *
 * Bullet's btScalar is float in Debian's default build (pkg-config bullet) and double in its
 * -float64 build: the adapters read and write btScalar and compute in double.
 *
 * Rules: objects are not copyable, not thread-safe (one per world, as Bullet's solvers); no
 * allocation in the adapters' own code per solve once their buffers have grown to the largest
 * problem seen (std::vector capacities are kept).
 */
#ifndef CONTACT_SOLVERS_BULLET_HPP
#define CONTACT_SOLVERS_BULLET_HPP

#include <btBulletDynamicsCommon.h>

#include <BulletDynamics/MLCPSolvers/btMLCPSolverInterface.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "contact_solvers.hpp"

namespace cts {
namespace bullet {

// ============================================================================================
// The MLCP adapters (btMLCPSolverInterface)
// ============================================================================================

/**
 * Options of both MLCP adapters (beyond the solver's own parameters).
 *
 * Bullet's MLCP (btDantzigLCP.h): find x with w = A x − b and, per row i, lo_i = x_i ⇒ w_i ≥ 0,
 * x_i = hi_i ⇒ w_i ≤ 0, lo_i < x_i < hi_i ⇒ w_i = 0; a row with limitDependency[i] = j ≥ 0 is a
 * friction row whose bounds are ±|hi_i · x_j| (lo_i is ignored, as in Bullet's Dantzig solver).
 * Bullet writes its contact normals as lo = 0, hi = 1e10 and its joints' free rows as ±1e18 or
 * ±infinity (SIMD_INFINITY): a bound at or beyond `unbounded` (in absolute value) counts as infinite.
 */
struct MlcpOptions {
  /** Bounds with |bound| >= unbounded are infinite (N·s); > 0. */
  double unbounded{1.0e9};
  /**
   * Warm start from the incoming x (Bullet's impulses of the previous step): x itself is the
   * answer when it satisfies the MLCP with a worst relative violation <= warm_start_tolerance
   * (checked as in docs/baraff.md §3.6); otherwise, with warm_start_active_set, the active set x
   * suggests (each row at its lower or upper bound, or free with w = 0; friction rows at ±μ x_j) is
   * solved exactly as one linear system and kept when it verifies (acceptance_tolerance). Neither
   * pivoting method takes a starting active set, so otherwise the solve starts cold. 0 / false turn
   * these off.
   */
  double warm_start_tolerance{1.0e-8};
  /** Try the active set of the incoming x (see warm_start_tolerance); default on. */
  bool warm_start_active_set{true};
  /**
   * An answer of the pivoting method that misses acceptance_tolerance is polished once: its own
   * active set solved exactly as one linear system (as for the warm start), kept when it then
   * verifies. Default on.
   */
  bool polish{true};
  /** The answer must verify with a worst relative violation <= this (docs/baraff.md §3.6). */
  double acceptance_tolerance{1.0e-6};
  /**
   * The relative rounding of Bullet's data: btMLCPSolver computes A and b in btScalar (float in
   * Debian's default build), so a row's residual w_i within data_rounding·(Σ_j |A_ij x_j| + |b_i|)
   * is what an exact solution of a problem within that rounding of Bullet's shows, and counts as
   * 0 in the checks (Oettli–Prager's componentwise backward error). Default: btScalar's machine
   * epsilon (1.2e-7 for float, 2.2e-16 for double); 0 checks w itself. docs/bullet.md §2.
   */
  double data_rounding{static_cast<double>(std::numeric_limits<btScalar>::epsilon())};
};

/** Counters of an MLCP adapter since construction (or reset_counters()). */
struct MlcpCounters {
  /** solveMLCP calls with at least one row. */
  long solves{0};
  /** Calls answered by the incoming x (warm start: x as it came, or its active set solved). */
  long warm_started{0};
  /** Of those, calls answered by the active set of the incoming x. */
  long warm_active_set{0};
  /** Calls whose answer verified only after the active-set polish (MlcpOptions::polish). */
  long polished{0};
  /** Calls that returned false (Bullet then fell back to its own iterations). */
  long failures{0};
};

namespace internal {

// Row kinds of the Baraff problem (docs/baraff.md §1), reused by the Lemke reformulation.
inline bool is_unbounded(double v, double unbounded) { return std::isinf(v) || std::fabs(v) >= unbounded; }

/** Room of the adapters' last_error() strings, reserved at construction (SetError). */
constexpr std::size_t kErrorCapacity = 512;

/**
 * out = the printf-style message, truncated to kErrorCapacity − 1 characters: formatted on the
 * stack and copied into out's reserved room, so a failing solve allocates nothing either (a
 * fallback to Bullet's solver can happen every step, docs/bullet.md §5).
 */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
inline void SetError(std::string& out, const char* format, ...) {
  char buffer[kErrorCapacity];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  out.assign(buffer, n < 0 ? 0 : std::min(static_cast<std::size_t>(n), sizeof buffer - 1));
}

/**
 * Bullet's MLCP in double precision, Baraff's convention (docs/baraff.md §1): a = A f + c with
 * c = −b, so that a is Bullet's w. Rows classified into Baraff's kinds: normal (lo = 0, hi
 * unbounded), friction (limitDependency >= 0; μ = |hi|, its normal must be a normal row),
 * bilateral (both bounds unbounded), boxed (anything else with lo <= 0 <= hi).
 */
class MlcpData {
 public:
  /** Copies and classifies; false with `error` set when the problem is outside the mapping. */
  bool Load(const btMatrixXu& A, const btVectorXu& b, const btVectorXu& x, const btVectorXu& lo,
            const btVectorXu& hi, const btAlignedObjectArray<int>& dependency, const MlcpOptions& options) {
    n = b.rows();
    const std::size_t m = static_cast<std::size_t>(n);
    if (A.rows() != n || A.cols() != n || x.rows() != n || lo.rows() != n || hi.rows() != n ||
        dependency.size() < n) {
      error = "sizes of A (" + std::to_string(A.rows()) + "x" + std::to_string(A.cols()) + "), x, lo, hi, " +
              "limitDependency do not match b (" + std::to_string(n) + ")";
      return false;
    }
    a_.resize(m * m);
    mag_.resize(m);
    c.resize(m);
    x0.resize(m);
    kind.resize(m);
    normal.resize(m);
    mu.resize(m);
    lo_.resize(m);
    hi_.resize(m);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) a_[static_cast<std::size_t>(i) + m * static_cast<std::size_t>(j)] = A(i, j);
    }
    for (int i = 0; i < n; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      c[k] = -static_cast<double>(b[i]);
      x0[k] = x[i];
      if (!std::isfinite(c[k])) return fail("b[" + std::to_string(i) + "] is not finite");
      for (int j = 0; j < n; ++j) {
        if (!std::isfinite(a_[k + m * static_cast<std::size_t>(j)])) {
          return fail("A(" + std::to_string(i) + ", " + std::to_string(j) + ") is not finite");
        }
      }
    }
    for (int i = 0; i < n; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      const double l = lo[i], h = hi[i];
      const int d = dependency[i];
      normal[k] = -1;
      mu[k] = 0.0;
      lo_[k] = 0.0;
      hi_[k] = 0.0;
      if (d >= 0) {
        if (d >= n || d == i) return fail("limitDependency[" + std::to_string(i) + "] = " + std::to_string(d) + " is not another row");
        kind[k] = CTS_BARAFF_ROW_FRICTION;
        normal[k] = d;
        mu[k] = std::fabs(h);
        if (!std::isfinite(mu[k]) || mu[k] >= options.unbounded) return fail("friction row " + std::to_string(i) + " has an unbounded coefficient");
      } else if (std::isnan(l) || std::isnan(h) || l > 0.0 || h < 0.0) {
        return fail("row " + std::to_string(i) + " has bounds [" + std::to_string(l) + ", " + std::to_string(h) +
                    "] that do not contain 0");
      } else if (l == 0.0 && is_unbounded(h, options.unbounded)) {
        kind[k] = CTS_BARAFF_ROW_NORMAL;
      } else if (is_unbounded(l, options.unbounded) && is_unbounded(h, options.unbounded)) {
        kind[k] = CTS_BARAFF_ROW_BILATERAL;
      } else {
        kind[k] = CTS_BARAFF_ROW_BOXED;
        lo_[k] = is_unbounded(l, options.unbounded) ? -std::numeric_limits<double>::infinity() : l;
        hi_[k] = is_unbounded(h, options.unbounded) ? std::numeric_limits<double>::infinity() : h;
      }
    }
    for (int i = 0; i < n; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      // Bullet's rule scales by |x_j|; Baraff's (and the LCP form's) friction rows are tied to a
      // unilateral normal, which is what Bullet's contact rows are.
      if (kind[k] == CTS_BARAFF_ROW_FRICTION && kind[static_cast<std::size_t>(normal[k])] != CTS_BARAFF_ROW_NORMAL) {
        return fail("friction row " + std::to_string(i) + " depends on row " + std::to_string(normal[k]) +
                    ", which is not a contact normal (lo = 0, hi unbounded)");
      }
    }
    return true;
  }

  /** A (n×n, column-major). */
  const double* A() const { return a_.data(); }
  double A(std::size_t i, std::size_t j) const { return a_[i + static_cast<std::size_t>(n) * j]; }

  /**
   * Worst relative violation of f (docs/baraff.md §3.6: accelerations over s_b = max|c|, forces
   * over s_b/s_A with s_A = max|A_ii|), +inf for a non-finite f. `scratch` gets a = A f + c. A
   * row's a counts only beyond `rounding`·(Σ_j |A_ij f_j| + |c_i|), the size of a residual that
   * rounding Bullet's data (A, b in btScalar) by `rounding` relative can cause
   * (MlcpOptions::data_rounding); 0 checks a itself.
   */
  double Violation(const std::vector<double>& f, std::vector<double>& scratch, double rounding = 0.0) const {
    const std::size_t m = static_cast<std::size_t>(n);
    scratch.assign(c.begin(), c.end());
    if (rounding > 0.0) {
      for (std::size_t i = 0; i < m; ++i) mag_[i] = std::fabs(c[i]);
    }
    double s_b = 0.0, s_a = 0.0;
    for (std::size_t j = 0; j < m; ++j) {
      if (!std::isfinite(f[j])) return std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < m; ++i) scratch[i] += a_[i + m * j] * f[j];
      if (rounding > 0.0) {
        for (std::size_t i = 0; i < m; ++i) mag_[i] += std::fabs(a_[i + m * j] * f[j]);
      }
      s_b = std::max(s_b, std::fabs(c[j]));
      s_a = std::max(s_a, std::fabs(a_[j + m * j]));
    }
    if (s_b == 0.0) s_b = 1.0;
    if (s_a == 0.0) s_a = 1.0;
    const double fs = s_b / s_a;
    double worst = 0.0;
    // Tolerance on "at a bound": relative to the force scale, as the checks themselves.
    const double at = 1e-9 * fs;
    std::size_t row = 0;
    auto acc = [&](double v) {
      if (rounding > 0.0) v = std::max(v - rounding * mag_[row], 0.0);
      worst = std::max(worst, v / s_b);
    };
    auto force = [&](double v) { worst = std::max(worst, v / fs); };
    for (std::size_t i = 0; i < m; ++i) {
      row = i;
      const double a = scratch[i], x = f[i];
      double l = lo_[i], h = hi_[i];
      switch (kind[i]) {
        case CTS_BARAFF_ROW_BILATERAL:
          acc(std::fabs(a));
          continue;
        case CTS_BARAFF_ROW_NORMAL:
          l = 0.0;
          h = std::numeric_limits<double>::infinity();
          break;
        case CTS_BARAFF_ROW_FRICTION:
          h = mu[i] * std::max(f[static_cast<std::size_t>(normal[i])], 0.0);
          l = -h;
          break;
        default:
          break;
      }
      force(std::max(l - x, 0.0));
      force(std::max(x - h, 0.0));
      const bool at_lo = x <= l + at, at_hi = x >= h - at;
      if (at_lo && at_hi) continue;  // a zero-width box: any a
      if (at_lo) {
        acc(std::max(-a, 0.0));
      } else if (at_hi) {
        acc(std::max(a, 0.0));
      } else {
        acc(std::fabs(a));
      }
    }
    return worst;
  }

  bool fail(const std::string& why) {
    error = why;
    return false;
  }

  int n{0};
  std::vector<double> c, x0, mu, lo_, hi_;
  std::vector<int32_t> kind, normal;
  std::string error;

 private:
  std::vector<double> a_;
  mutable std::vector<double> mag_;  // Σ_j |A_ij f_j| + |c_i| of the last Violation with rounding
};

/** What the two adapters share: loading, the warm start, the counters, writing x. */
class MlcpAdapterBase : public btMLCPSolverInterface {
 public:
  /** Why the last solveMLCP returned false ("" after a success). */
  const std::string& last_error() const noexcept { return last_error_; }
  /** Counters since construction. */
  const MlcpCounters& counters() const noexcept { return counters_; }
  void reset_counters() noexcept { counters_ = MlcpCounters{}; }
  /** The options (see MlcpOptions). */
  const MlcpOptions& options() const noexcept { return options_; }
  void set_options(const MlcpOptions& o) { options_ = o; }

 protected:
  explicit MlcpAdapterBase(const MlcpOptions& o) : options_(o) { last_error_.reserve(kErrorCapacity); }

  /** Loads the problem and tries the warm start; 1 = answered, 0 = solve it, -1 = failed. */
  int Begin(const btMatrixXu& A, const btVectorXu& b, btVectorXu& x, const btVectorXu& lo, const btVectorXu& hi,
            const btAlignedObjectArray<int>& dependency) {
    last_error_.clear();
    if (b.rows() == 0) return 1;
    ++counters_.solves;
    if (!data_.Load(A, b, x, lo, hi, dependency, options_)) return Fail("%s", data_.error.c_str());
    f_.resize(static_cast<std::size_t>(data_.n));
    if (options_.warm_start_tolerance > 0.0 &&
        data_.Violation(data_.x0, scratch_, options_.data_rounding) <= options_.warm_start_tolerance) {
      ++counters_.warm_started;
      return 1;  // x already holds the answer
    }
    if (options_.warm_start_active_set &&
        std::any_of(data_.x0.begin(), data_.x0.end(), [](double v) { return v != 0.0; }) &&
        SolveActiveSet(data_.x0) &&
        data_.Violation(f_, scratch_, options_.data_rounding) <= options_.acceptance_tolerance) {
      ++counters_.warm_started;
      ++counters_.warm_active_set;
      Write(x);
      return 1;
    }
    return 0;
  }

  /**
   * f_ = the exact answer of the active set `guess` suggests (MlcpOptions::warm_start_tolerance):
   * per row, at a bound (within 1e-6 of the largest |guess|) the bound is an equation (f_i = lo,
   * hi, or ±μ f_j for a friction row at its cone), otherwise w_i = 0 (row i of A f = b). The dense
   * system is solved by LU with partial pivoting; the w_i = 0 equations get a diagonal shift δ of
   * 1e-12·max A_ii centred on the guess ((A f)_i + δ f_i = b_i + δ guess_i), which Bullet's
   * singular A (more contact rows than degrees of freedom) needs, which changes w by round-off,
   * and which keeps the guess's components along exactly singular directions. False when the
   * factorization breaks down; the caller verifies f_.
   */
  bool SolveActiveSet(const std::vector<double>& guess) {
    const std::size_t m = static_cast<std::size_t>(data_.n);
    double fmax = 0.0, s_a = 0.0;
    for (std::size_t i = 0; i < m; ++i) {
      fmax = std::max(fmax, std::fabs(guess[i]));
      s_a = std::max(s_a, std::fabs(data_.A(i, i)));
    }
    const double at = 1e-6 * fmax, shift = 1e-12 * (s_a > 0.0 ? s_a : 1.0);
    K_.assign(m * m, 0.0);
    r_.assign(m, 0.0);
    auto equation = [&](std::size_t i) {  // w_i = 0: Σ_j A_ij f_j = −c_i
      for (std::size_t j = 0; j < m; ++j) K_[i + m * j] = data_.A(i, j);
      K_[i + m * i] += shift;
      r_[i] = -data_.c[i] + shift * guess[i];
    };
    auto fixed = [&](std::size_t i, double v) {
      K_[i + m * i] = 1.0;
      r_[i] = v;
    };
    for (std::size_t i = 0; i < m; ++i) {
      const double g = guess[i];
      switch (data_.kind[i]) {
        case CTS_BARAFF_ROW_BILATERAL:
          equation(i);
          break;
        case CTS_BARAFF_ROW_NORMAL:
          if (g > at) {
            equation(i);
          } else {
            fixed(i, 0.0);
          }
          break;
        case CTS_BARAFF_ROW_FRICTION: {
          const std::size_t j = static_cast<std::size_t>(data_.normal[i]);
          const double bound = data_.mu[i] * std::max(guess[j], 0.0);
          if (bound <= at) {
            fixed(i, 0.0);
          } else if (std::fabs(g) >= bound - at) {  // at the cone: f_i = ±μ f_j
            K_[i + m * i] = 1.0;
            K_[i + m * j] = g > 0.0 ? -data_.mu[i] : data_.mu[i];
          } else {
            equation(i);
          }
          break;
        }
        default:  // boxed [lo, hi]
          if (g <= data_.lo_[i] + at) {
            fixed(i, data_.lo_[i]);
          } else if (g >= data_.hi_[i] - at) {
            fixed(i, data_.hi_[i]);
          } else {
            equation(i);
          }
          break;
      }
    }
    // LU with partial pivoting, in place; r_ is permuted and solved along.
    for (std::size_t k = 0; k < m; ++k) {
      std::size_t p = k;
      for (std::size_t i = k + 1; i < m; ++i) {
        if (std::fabs(K_[i + m * k]) > std::fabs(K_[p + m * k])) p = i;
      }
      const double piv = K_[p + m * k];
      if (!(std::fabs(piv) > 0.0) || !std::isfinite(piv)) return false;
      if (p != k) {
        for (std::size_t j = 0; j < m; ++j) std::swap(K_[k + m * j], K_[p + m * j]);
        std::swap(r_[k], r_[p]);
      }
      for (std::size_t i = k + 1; i < m; ++i) {
        const double l = K_[i + m * k] / piv;
        if (l == 0.0) continue;
        for (std::size_t j = k + 1; j < m; ++j) K_[i + m * j] -= l * K_[k + m * j];
        r_[i] -= l * r_[k];
      }
    }
    for (std::size_t k = m; k-- > 0;) {
      double v = r_[k];
      for (std::size_t j = k + 1; j < m; ++j) v -= K_[k + m * j] * f_[j];
      f_[k] = v / K_[k + m * k];
    }
    return std::all_of(f_.begin(), f_.end(), [](double v) { return std::isfinite(v); });
  }

  void Write(btVectorXu& x) const {
    for (int i = 0; i < data_.n; ++i) x[i] = static_cast<btScalar>(f_[static_cast<std::size_t>(i)]);
  }

  /** Checks f_ and writes it to x; false (with the reason) when it does not verify. */
  bool Finish(btVectorXu& x, const char* who) {
    double v = data_.Violation(f_, scratch_, options_.data_rounding);
    if (!(v <= options_.acceptance_tolerance) && options_.polish) {
      guess_.assign(f_.begin(), f_.end());
      if (SolveActiveSet(guess_)) {
        const double polished = data_.Violation(f_, scratch_, options_.data_rounding);
        if (polished <= options_.acceptance_tolerance) ++counters_.polished;
        if (polished < v) {
          v = polished;
        } else {
          f_.assign(guess_.begin(), guess_.end());
        }
      } else {
        f_.assign(guess_.begin(), guess_.end());
      }
    }
    if (!(v <= options_.acceptance_tolerance)) {
      Fail("%s: the answer's worst relative violation %.3g exceeds acceptance_tolerance %.3g", who, v,
           options_.acceptance_tolerance);
      return false;
    }
    Write(x);
    return true;
  }

  /** Sets last_error() (printf-style, no allocation: SetError) and counts a failure; returns -1. */
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  int Fail(const char* format, ...) {
    char buffer[kErrorCapacity];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    SetError(last_error_, "%s", buffer);
    ++counters_.failures;
    return -1;
  }

  MlcpOptions options_;
  MlcpData data_;
  std::vector<double> f_, scratch_, guess_, K_, r_;
  std::string last_error_;
  MlcpCounters counters_;
};

}  // namespace internal

/**
 * Baraff's pivoting method with static friction (docs/baraff.md) as a btMLCPSolverInterface: a
 * drop-in for btDantzigSolver in btMLCPSolver. Bullet's MLCP maps onto Baraff's matrix problem
 * a = A f + c (c = −b, a = Bullet's w) row by row: contact normals (lo = 0, hi unbounded) are
 * normal rows, rows with limitDependency[i] = j are friction rows tied to normal j with μ = |hi_i|
 * (Bullet's |hi_i · x_j| bound), rows with both bounds unbounded bilateral rows, the rest boxed
 * rows [lo, hi]. Returns true with x = the verified answer; false (x untouched, last_error() says
 * why) for an unbounded ray, cycling, a pivot limit or an answer that does not verify (an
 * answer Baraff calls inexact is kept when it meets MlcpOptions::acceptance_tolerance), and
 * btMLCPSolver then uses its sequential impulse iterations (its fallback counter counts them).
 */
class BaraffMlcpSolver : public internal::MlcpAdapterBase {
 public:
  /** The library's default Baraff parameters. */
  BaraffMlcpSolver() : BaraffMlcpSolver(BaraffSolverParameters{}) {}
  /** With the Baraff solver's parameters (validated: throws cts::Error) and the adapter's options. */
  explicit BaraffMlcpSolver(const BaraffSolverParameters& p, const MlcpOptions& o = MlcpOptions{})
      : MlcpAdapterBase(o), solver_(p) {}

  bool solveMLCP(const btMatrixXu& A, const btVectorXu& b, btVectorXu& x, const btVectorXu& lo,
                 const btVectorXu& hi, const btAlignedObjectArray<int>& limitDependency, int /*numIterations*/,
                 bool /*useSparsity*/ = true) override {
    const int start = Begin(A, b, x, lo, hi, limitDependency);
    if (start != 0) return start > 0;
    const std::size_t m = static_cast<std::size_t>(data_.n);
    cts_baraff_solver* h = solver_.c_handle();
    // The C call borrows every array: data_ keeps them alive until the next solveMLCP.
    cts_status s = cts_baraff_solver_set_matrix_problem_data(h, m, data_.A(), m, data_.c.data(), data_.kind.data(),
                                                             data_.normal.data(), data_.mu.data(),
                                                             data_.lo_.data(), data_.hi_.data());
    if (s != CTS_STATUS_OK) return Fail("Baraff: %s", cts_baraff_solver_last_error(h)) > 0;
    s = cts_baraff_solver_solve(h);
    // kInexact: finished above Baraff's own tolerance (1e-8); Finish() still accepts the forces
    // when they meet MlcpOptions::acceptance_tolerance on Bullet's MLCP.
    if (s != CTS_STATUS_OK && s != CTS_STATUS_BARAFF_INEXACT) {
      return Fail("Baraff: %s: %s", cts_status_string(s), cts_baraff_solver_last_error(h)) > 0;
    }
    s = cts_baraff_solver_get_forces(h, f_.data(), m);
    if (s != CTS_STATUS_OK) return Fail("Baraff: %s", cts_baraff_solver_last_error(h)) > 0;
    return Finish(x, "Baraff");
  }

  /** The wrapped solver (parameters, statistics of the last solve). */
  BaraffSolver& solver() noexcept { return solver_; }

 private:
  BaraffSolver solver_;
};

/**
 * Lemke's method (the library's LCP solvers, docs/rigid.md §8–9; Drake's MobyLcpSolver by
 * default) as a btMLCPSolverInterface, a drop-in for btLemkeSolver / btDantzigSolver. The boxed
 * MLCP is rewritten as a standard LCP w = M z + q, z ≥ 0, w ≥ 0, zᵀw = 0, with f = F z + g and
 * a = A f + c (c = −b), per row kind:
 *
 * | row (Bullet bounds)         | LCP variables   | f           | LCP rows                                         |
 * |-----------------------------|-----------------|-------------|--------------------------------------------------|
 * | normal [0, ∞)               | z = f           | z           | w = a                                            |
 * | boxed [lo, ∞)               | z = f − lo      | lo + z      | w = a                                            |
 * | boxed (−∞, hi]              | z = hi − f      | hi − z      | w = −a                                           |
 * | boxed [lo, hi] finite       | z = f − lo, σ   | lo + z      | w_z = a + σ, w_σ = (hi − lo) − z                 |
 * | bilateral (−∞, ∞)           | z⁺, z⁻          | z⁺ − z⁻     | w⁺ = a, w⁻ = −a                                  |
 * | friction, normal j, μ       | z⁺, z⁻, λ       | z⁺ − z⁻     | w⁺ = a + λ, w⁻ = −a + λ, w_λ = μ z_j − z⁺ − z⁻   |
 *
 * σ ≥ 0 is the multiplier of the upper bound (at hi: a = −σ ≤ 0; inside: σ = 0, a = 0; at lo:
 * a ≥ 0, Bullet's conditions). A friction row is Stewart and Trinkle's form with the two
 * directions ±t and λ the sliding speed: |f| < μ f_j ⇒ λ = 0 and a = 0; f = ±μ f_j ⇒ a = ∓λ. With
 * A = J M⁻¹ Jᵀ positive semidefinite this is the LCP Anitescu and Potra (1997) show Lemke's method
 * processes; the size is n + (finite boxed rows) + (bilateral rows) + 2·(friction rows). The
 * answer f is then checked on Bullet's MLCP (MlcpOptions::acceptance_tolerance).
 */
class LemkeMlcpSolver : public internal::MlcpAdapterBase {
 public:
  /** Drake's MobyLcpSolver Lemke (LcpAlgorithm::kLemke) with the default parameters. */
  LemkeMlcpSolver() : LemkeMlcpSolver(LcpSolverParameters{}) {}
  /** With the LCP solvers' parameters (validated: throws cts::Error), the algorithm and the options. */
  explicit LemkeMlcpSolver(const LcpSolverParameters& p, LcpAlgorithm algorithm = LcpAlgorithm::kLemke,
                           const MlcpOptions& o = MlcpOptions{})
      : MlcpAdapterBase(o), algorithm_(algorithm) {
    solver_.set_parameters(p);
  }

  bool solveMLCP(const btMatrixXu& A, const btVectorXu& b, btVectorXu& x, const btVectorXu& lo,
                 const btVectorXu& hi, const btAlignedObjectArray<int>& limitDependency, int /*numIterations*/,
                 bool /*useSparsity*/ = true) override {
    const int start = Begin(A, b, x, lo, hi, limitDependency);
    if (start != 0) return start > 0;
    Build();
    const std::size_t N = q_.size();
    cts_lcp_solver* h = solver_.c_handle();
    cts_status s = cts_lcp_solver_solve(h, static_cast<int32_t>(algorithm_), N, M_.data(), N, q_.data(), nullptr);
    if (s != CTS_STATUS_OK && retry_lexicographic_ && !solver_.parameters().lexicographic_lemke &&
        (algorithm_ == LcpAlgorithm::kLemke || algorithm_ == LcpAlgorithm::kLemkeRegularized)) {
      // Bullet's contact LCPs are highly degenerate (q = 0 on every resting friction row), where
      // Drake's pivoting rule can end on a spurious ray; the lexicographic rule is immune to
      // degeneracy in exact arithmetic (docs/rigid.md §8.2). Off by default: on the stack it
      // doubled the adapter's time and answered fewer MLCPs than going on to the shifted LCPs
      // (docs/bullet.md §2).
      ++retries_;
      lexicographic_.set_parameters([&] {
        LcpSolverParameters p = solver_.parameters();
        p.lexicographic_lemke = true;
        return p;
      }());
      h = lexicographic_.c_handle();
      s = cts_lcp_solver_solve(h, static_cast<int32_t>(algorithm_), N, M_.data(), N, q_.data(), nullptr);
    }
    // An LCP solution that does not verify on Bullet's MLCP (after Finish's polish) counts as a
    // failure only once every retry has been tried.
    bool unverified = false;
    const MlcpCounters before = counters_;
    auto verified = [&]() {
      if (Finish(x, "Lemke")) return true;
      unverified = true;
      counters_ = before;
      return false;
    };
    if (Candidate(s) && ReadZ(h) && verified()) return true;
    if (retry_regularized_ && (algorithm_ == LcpAlgorithm::kLemke || algorithm_ == LcpAlgorithm::kLemkeRegularized)) {
      // Lemke's pivoting rules can end on a ray: M is copositive (A positive semidefinite plus the
      // friction rows' skew coupling), not copositive-plus, Bullet's A is singular (more contact
      // rows than degrees of freedom) and its b carries the stabilization, so Lemke's guarantee
      // does not apply (docs/bullet.md §2). M + εI is strictly copositive for ε > 0, and Lemke
      // always ends on a solution of a strictly copositive LCP: ε = 1e-10, 1e-8, 1e-6 times
      // max|M_ii|, the first z that verifies on Bullet's own MLCP (Finish, with its polish).
      double scale = 0.0;
      for (std::size_t i = 0; i < N; ++i) scale = std::max(scale, std::fabs(M_[i + N * i]));
      if (scale == 0.0) scale = 1.0;
      for (const double e : {1e-10, 1e-8, 1e-6}) {
        ++regularized_;
        shifted_.assign(M_.begin(), M_.end());
        for (std::size_t i = 0; i < N; ++i) shifted_[i + N * i] += e * scale;
        h = solver_.c_handle();
        s = cts_lcp_solver_solve(h, static_cast<int32_t>(LcpAlgorithm::kLemke), N, shifted_.data(), N, q_.data(),
                                 nullptr);
        if (!Candidate(s) || !ReadZ(h)) continue;
        last_regularization_ = e * scale;
        if (verified()) return true;
        // Proximal point steps: z_{k+1} solves the shifted LCP with q − ε z_k, whose fixed point
        // solves the unshifted one (Rockafellar's proximal point method).
        for (int k = 0; k < proximal_steps_; ++k) {
          q_shifted_.assign(q_.begin(), q_.end());
          for (std::size_t i = 0; i < N; ++i) q_shifted_[i] -= e * scale * z_[i];
          s = cts_lcp_solver_solve(h, static_cast<int32_t>(LcpAlgorithm::kLemke), N, shifted_.data(), N,
                                   q_shifted_.data(), nullptr);
          if (!Candidate(s) || !ReadZ(h)) break;
          if (verified()) return true;
        }
      }
    }
    if (unverified && Candidate(s)) return Fail("%s", last_error_.c_str()) > 0;  // Finish's reason
    return Fail("Lemke: %s: %s", cts_status_string(s), cts_lcp_solver_last_error(h)) > 0;
  }

  /** Solves retried with the lexicographic rule after Drake's rule failed. */
  long lexicographic_retries() const noexcept { return retries_; }
  /**
   * Whether a solve Drake's rule failed is retried once with the lexicographic rule before the
   * shifted LCPs (default false: docs/bullet.md §2 measures it).
   */
  void set_retry_lexicographic(bool on) noexcept { retry_lexicographic_ = on; }
  /** Shifted solves (M + εI) tried after the pivoting rule(s) failed. */
  long regularized_retries() const noexcept { return regularized_; }
  /** The shift ε of the last shifted solve that ended on an LCP solution (0 before any). */
  double last_regularization() const noexcept { return last_regularization_; }
  /** Whether a solve the pivoting rule(s) failed is retried on M + εI (default true). */
  void set_retry_regularized(bool on) noexcept { retry_regularized_ = on; }
  /** Size of the last LCP (number of LCP variables). */
  std::size_t lcp_size() const noexcept { return q_.size(); }
  /** The wrapped LCP solver. */
  LcpSolver& solver() noexcept { return solver_; }

 private:
  // An outcome whose z is worth verifying on Bullet's MLCP: a solution, or one that missed only
  // the LCP solver's own residual test (1e-11 relative, far tighter than acceptance_tolerance).
  static bool Candidate(cts_status s) { return s == CTS_STATUS_OK || s == CTS_STATUS_LCP_RESIDUAL_TEST_FAILED; }

  // f_ from the last LCP solution z of `h`; false when z cannot be read.
  bool ReadZ(cts_lcp_solver* h) {
    const std::size_t N = q_.size();
    z_.resize(N);
    if (cts_lcp_solver_get_z(h, z_.data(), N) != CTS_STATUS_OK) return false;
    for (std::size_t i = 0; i < static_cast<std::size_t>(data_.n); ++i) {
      double v = g_[i];
      for (int e = 0; e < 2; ++e) {
        if (fcol_[2 * i + e] >= 0) v += fval_[2 * i + e] * z_[static_cast<std::size_t>(fcol_[2 * i + e])];
      }
      f_[i] = v;
    }
    return true;
  }

  // f_i = g_i + Σ_e fval[2i+e] z[fcol[2i+e]] (at most two LCP variables per MLCP unknown).
  void Build() {
    const std::size_t n = static_cast<std::size_t>(data_.n);
    const double inf = std::numeric_limits<double>::infinity();
    fcol_.assign(2 * n, -1);
    fval_.assign(2 * n, 0.0);
    g_.assign(n, 0.0);
    // LCP variables: z (or z⁺) of row i is variable i; the extra ones (σ, z⁻, λ) follow.
    std::size_t N = n;
    second_.assign(n, -1);
    third_.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
      const int32_t k = data_.kind[i];
      if (k == CTS_BARAFF_ROW_BILATERAL || k == CTS_BARAFF_ROW_FRICTION ||
          (k == CTS_BARAFF_ROW_BOXED && data_.lo_[i] != -inf && data_.hi_[i] != inf)) {
        second_[i] = static_cast<int>(N++);
      }
      if (k == CTS_BARAFF_ROW_FRICTION) third_[i] = static_cast<int>(N++);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const int32_t k = data_.kind[i];
      fcol_[2 * i] = static_cast<int>(i);
      fval_[2 * i] = 1.0;
      if (k == CTS_BARAFF_ROW_BOXED) {
        if (data_.lo_[i] == -inf) {  // (−∞, hi]: f = hi − z
          fval_[2 * i] = -1.0;
          g_[i] = data_.hi_[i];
        } else {
          g_[i] = data_.lo_[i];
        }
      } else if (k == CTS_BARAFF_ROW_BILATERAL || k == CTS_BARAFF_ROW_FRICTION) {  // f = z⁺ − z⁻
        fcol_[2 * i + 1] = second_[i];
        fval_[2 * i + 1] = -1.0;
      }
    }
    // M and q, column-major N×N.
    M_.assign(N * N, 0.0);
    q_.assign(N, 0.0);
    // An a-row: LCP row r reads s·a_i, a_i = Σ_l A_il (g_l + F_l z) + c_i.
    auto add_a_row = [&](std::size_t r, std::size_t i, double sign) {
      double qa = data_.c[i];
      for (std::size_t l = 0; l < n; ++l) {
        const double ail = data_.A(i, l);
        if (ail == 0.0) continue;
        qa += ail * g_[l];
        for (int e = 0; e < 2; ++e) {
          const int col = fcol_[2 * l + e];
          if (col >= 0) M_[r + N * static_cast<std::size_t>(col)] += sign * ail * fval_[2 * l + e];
        }
      }
      q_[r] += sign * qa;
    };
    for (std::size_t i = 0; i < n; ++i) {
      const int32_t k = data_.kind[i];
      const bool mirrored = k == CTS_BARAFF_ROW_BOXED && data_.lo_[i] == -inf;
      add_a_row(i, i, mirrored ? -1.0 : 1.0);
      if (second_[i] < 0) continue;
      const std::size_t s2 = static_cast<std::size_t>(second_[i]);
      if (k == CTS_BARAFF_ROW_BILATERAL) {
        add_a_row(s2, i, -1.0);
      } else if (k == CTS_BARAFF_ROW_BOXED) {  // w_z += σ; w_σ = (hi − lo) − z
        M_[i + N * s2] += 1.0;
        M_[s2 + N * i] = -1.0;
        q_[s2] = data_.hi_[i] - data_.lo_[i];
      } else {  // friction: w⁺ = a + λ, w⁻ = −a + λ, w_λ = μ z_j − z⁺ − z⁻
        const std::size_t s3 = static_cast<std::size_t>(third_[i]);
        add_a_row(s2, i, -1.0);
        M_[i + N * s3] += 1.0;
        M_[s2 + N * s3] += 1.0;
        M_[s3 + N * static_cast<std::size_t>(data_.normal[i])] += data_.mu[i];
        M_[s3 + N * i] -= 1.0;
        M_[s3 + N * s2] -= 1.0;
      }
    }
  }

  LcpSolver solver_, lexicographic_;
  LcpAlgorithm algorithm_;
  bool retry_lexicographic_{false}, retry_regularized_{true};
  long retries_{0}, regularized_{0};
  double last_regularization_{0.0};
  std::vector<int> fcol_, second_, third_;
  std::vector<double> fval_, g_, M_, q_, z_, shifted_, q_shifted_;
  int proximal_steps_{5};  // per shift
};

// ============================================================================================
// ContactSolver (btConstraintSolver): TAMSI or the interior point on Bullet's islands
// ============================================================================================

/** The solver of a ContactSolver. */
enum class Method {
  /** TAMSI (docs/tamsi.md): compliant normal force, regularized friction, two-way coupling. */
  kTamsi,
  /** The interior point (docs/ipm.md): hard (or slightly compliant) contact, exact Coulomb cone. */
  kInteriorPoint,
};

/** One contact as the TAMSI stiffness rule sees it. */
struct ContactInfo {
  /** The manifold point (Bullet's), its two objects (body B may be static or kinematic). */
  const btManifoldPoint* point{nullptr};
  const btCollisionObject* body_a{nullptr};
  const btCollisionObject* body_b{nullptr};
  /** Mass of the island the contact belongs to (kg): its dynamic bodies' masses summed. */
  double island_mass{0.0};
  /** |gravity| of the island's bodies (m/s²; the largest; 9.81 when all are zero). */
  double gravity{9.81};
  /** Time step (s). */
  double dt{0.0};
  /**
   * The contact's normal Delassus diagonal w = Jn M⁻¹ Jnᵀ (1/kg): the inverse of the effective
   * mass the contact sees along its normal (both dynamic bodies, translation and rotation).
   */
  double inverse_effective_mass{0.0};
};

/** 2π, for the near-rigid rules (a period of β·dt is an angular frequency of 2π/(β·dt)). */
constexpr double kTwoPi = 6.283185307179586;

/**
 * TAMSI's stiffness k (N/m) and dissipation d (s/m) per contact (docs/tamsi.md §3: fn =
 * (1 − d·vn)₊ (k·x − dt·k·vn)₊ with the penetration x). The default rule (docs/bullet.md §3), with
 * a penetration allowance δ, a damping ratio ζ and the near-rigid factor β:
 *
 *     k = max(m_island · g / δ,  (2π / (β·dt))² / w),        d = ζ / sqrt(g · δ)
 *
 * The first term: one contact alone would hold its island's whole weight at penetration δ. The
 * second, the near-rigid term (the interior point's engine preset, docs/ipm.md §11.7): the spring
 * of the contact's own effective mass 1/w (w = ContactInfo::inverse_effective_mass) whose period
 * is β·dt, the stiffest the step resolves; a body resting on its own contacts then sinks
 * (β·dt/2π)²·g (4 µm at 1/240 s, 69 µm at 1/60 s). d is the Hunt–Crossley dissipation that damps
 * the allowance spring-and-weight system (ω = sqrt(g/δ)) with ratio ζ (d = ζ/(ω δ)); the implicit
 * step damps the stiffer near-rigid spring itself. β = 0 drops the near-rigid term (the rule of
 * the first release: about δ/4 deep under a lone box at rest, deep enough that Bullet's stale
 * manifold points of a rolling ball stay in contact behind it and speed it up by 2.6 %). Replace
 * the rule with `rule` (called once per contact per step).
 */
struct TamsiContactParameters {
  /** δ (m), > 0. */
  double penetration_allowance{1.0e-3};
  /** ζ, >= 0. */
  double damping_ratio{1.0};
  /** β of the near-rigid term, >= 0 (0: no near-rigid term). */
  double near_rigid_beta{1.0};
  /** A user rule: writes k (N/m) and d (s/m) for a contact; empty = the rule above. */
  std::function<void(const ContactInfo&, double* stiffness, double* dissipation)> rule;
};

/**
 * How the interior point's contacts enter its step: the gap φ_v (m) of each contact's row
 * φ_v/h + vn + R·γn ≥ 0 (docs/ipm.md §11.7). The raw signed distance φ < 0 makes a contact leave
 * the step separating at −φ/h: Bullet's box–box detector reports a contact only once the boxes
 * overlap, so a box landing at speed v is found up to v·h deep and is sent back out at up to v,
 * an elastic bounce (the fifty-box pile kept bouncing for seconds). The default rule
 * (limit_recovery, docs/bullet.md §3) corrects at most
 *
 *     φ_v = max(φ, −max(s, g·h²)),      s = (β·h/2π)² · w · m_island · g
 *
 * per step: s is the deepest the preset's compliance holds this contact at rest if it carried its
 * whole island (so no resting contact is limited and nothing sinks), g·h² one step of free fall
 * (a deeper overlap recovers at g·h per step, no faster than gravity pulls a body in). Contacts
 * apart (φ >= 0) enter as they are. `gap_rule` replaces the rule (called once per contact per step).
 */
struct IpmContactParameters {
  /** The rule above (true) or the raw signed distance (false). */
  bool limit_recovery{true};
  /** A user rule: returns φ_v (m) for a contact; empty = the rule chosen by limit_recovery. */
  std::function<double(const ContactInfo&)> gap_rule;
};

/** Counters of a ContactSolver since construction. */
struct ContactSolverCounters {
  /** Groups (Bullet's solveGroup calls, possibly several islands each) with bodies. */
  long groups{0};
  /** Contacts solved (manifold points within the processing threshold). */
  long contacts{0};
  /** Groups or islands handed to Bullet's btSequentialImpulseConstraintSolver because of joints. */
  long delegated_joints{0};
  /** Groups handed to Bullet's solver because ours failed (last_error() says why). */
  long delegated_failures{0};
  /** Newton iterations of the last solve. */
  int last_iterations{0};
};

/**
 * A btConstraintSolver that solves the contacts of Bullet's islands with TAMSI or the interior
 * point, through the block-sparse form (docs/block_sparse.md):
 *
 * - each dynamic rigid body (btRigidBody with inverse mass > 0) is a tree of 6 dofs, v = (linear
 *   velocity of its centre of mass, angular velocity), both in world coordinates; its block of M is
 *   diag(m·I₃, I_world) with I_world the inverse of getInvInertiaTensorWorld(). Static and
 *   kinematic objects are the world side of a contact (a kinematic body's own velocity is not
 *   seen: moving kinematic bodies are not supported);
 * - each manifold point with distance <= the manifold's processing threshold is a contact: signed
 *   distance φ = getDistance() (m), normal m_normalWorldOnB (from B to A), tangents from
 *   btPlaneSpace1, μ = m_combinedFriction, and the 3×6 Jacobian block of each dynamic body
 *   [n; t1; t2] · [I₃, −[r]×] (r from the body's centre of mass to the contact point, the
 *   midpoint of the manifold point's two witness points, one point for both bodies so that the
 *   pair's impulses add no torque; sign + for A, − for B) so that the normal row is the separation
 *   speed;
 * - the step's external impulse is dt·(getTotalForce(), getTotalTorque()) (gravity included:
 *   btDiscreteDynamicsWorld applies it as a force; damping was applied before the solve as
 *   Bullet does); gyroscopic terms are neglected;
 * - TAMSI (two-way coupling) takes the contacts with φ < 0 (penetration x = −φ, fn0 = k·x) and k,
 *   d from TamsiContactParameters; the interior point takes every contact (the predicted gap
 *   φ_v + h·vn ≥ 0, φ_v from IpmContactParameters), second-order cone friction;
 * - the new velocities are written to the bodies, the contact impulses (N·s) to the manifold
 *   points' m_appliedImpulse and m_appliedImpulseLateral1/2 (along the point's
 *   m_lateralFrictionDir1/2, which are set to our tangents), as Bullet's own solver does.
 *
 * Joints (btTypedConstraint) are not handled: a group that has any is handed whole to an internal
 * btSequentialImpulseConstraintSolver, and the class says so once (the `log` callback, stderr
 * by default). A solve that fails (TAMSI not converged, the interior point neither converged nor
 * almost converged, a usage error) hands the group to that solver too; last_error() keeps why.
 *
 * Warm start: TAMSI starts from the bodies' velocities; the interior point starts every contact
 * from its own previous solution (warm_start = 1 and contact ids, docs/ipm.md §11.5): the ids
 * are kept in the manifold points' m_userPersistentData, which Bullet carries along when it
 * refreshes a persistent point. When gContactDestroyedCallback is set (the application uses
 * that field) the ids are not used and the warm start is by position.
 */
class ContactSolver : public btConstraintSolver {
 public:
  /** With the method's default parameters (the interior point: see DefaultIpmParameters()). */
  explicit ContactSolver(Method method = Method::kTamsi) : method_(method) {
    if (method == Method::kTamsi) {
      init_tamsi(TamsiSolverParameters{}, TamsiContactParameters{});
    } else {
      init_ipm(DefaultIpmParameters(), IpmContactParameters{});
    }
  }
  /** TAMSI with its parameters and the stiffness rule. */
  explicit ContactSolver(const TamsiSolverParameters& p, TamsiContactParameters contact = TamsiContactParameters{})
      : method_(Method::kTamsi) {
    init_tamsi(p, std::move(contact));
  }
  /** The interior point with its parameters (warm_start is forced on: the ids need it) and the gap rule. */
  explicit ContactSolver(const IpmSolverParameters& p, IpmContactParameters contact = IpmContactParameters{})
      : method_(Method::kInteriorPoint) {
    init_ipm(p, std::move(contact));
  }

  /**
   * The interior point's parameters of the default constructor: the engine preset
   * (IpmSolverParameters::Engine(), docs/ipm.md §11.7: per-contact normal compliance
   * β²/(4π²)·Jn M⁻¹ Jnᵀ with β = 1, so a contact resolves motions slower than one step rigidly
   * and a resting body sinks (h/2π)²·g, 0.2 µm at 1/240 s; exact Coulomb friction) with
   * warm_start on (the contact ids need it).
   */
  static IpmSolverParameters DefaultIpmParameters() {
    IpmSolverParameters p = IpmSolverParameters::Engine();
    p.warm_start = true;
    return p;
  }

  ContactSolver(const ContactSolver&) = delete;
  ContactSolver& operator=(const ContactSolver&) = delete;

  /** Where the one-time notices go (joints delegated); default: stderr. */
  void set_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }
  /** Why the last delegated failure happened ("" if none). */
  const std::string& last_error() const noexcept { return last_error_; }
  const ContactSolverCounters& counters() const noexcept { return counters_; }
  Method method() const noexcept { return method_; }
  /** The internal btSequentialImpulseConstraintSolver (joint islands and failures). */
  btSequentialImpulseConstraintSolver& fallback() noexcept { return fallback_; }

  void reset() override { fallback_.reset(); }
  /** Bullet has no code for foreign solvers; worlds only compare it with BT_MLCP_SOLVER etc. */
  btConstraintSolverType getSolverType() const override { return BT_SEQUENTIAL_IMPULSE_SOLVER; }

  btScalar solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
                      btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
                      btIDebugDraw* debugDrawer, btDispatcher* dispatcher) override {
    if (numBodies <= 0) return 0;
    if (numConstraints > 0) {
      ++counters_.delegated_joints;
      if (!joints_said_) {
        joints_said_ = true;
        say("cts::bullet::ContactSolver: an island has joints (btTypedConstraint), which this solver does not "
            "handle; such islands are solved by Bullet's btSequentialImpulseConstraintSolver (said once)");
      }
      return fallback_.solveGroup(bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info,
                                  debugDrawer, dispatcher);
    }
    ++counters_.groups;
    const double dt = info.m_timeStep;
    Gather(bodies, numBodies, manifolds, numManifolds, dt);
    if (nv_ == 0) return 0;
    bool ok = false;
    try {
      ok = method_ == Method::kTamsi ? SolveTamsi(dt) : SolveIpm(dt);
    } catch (const std::exception& e) {  // cts::Error from a wrapper call
      internal::SetError(last_error_, "%s", e.what());
      ok = false;
    }
    if (!ok) {
      ++counters_.delegated_failures;
      return fallback_.solveGroup(bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info,
                                  debugDrawer, dispatcher);
    }
    WriteBack();
    return 0;
  }

 private:
  struct Contact {
    btManifoldPoint* point;
    int tree_a, tree_b;  // -1: static side
    const btCollisionObject* a;
    const btCollisionObject* b;
  };

  void init_tamsi(const TamsiSolverParameters& p, TamsiContactParameters contact) {
    last_error_.reserve(internal::kErrorCapacity);  // failures allocate nothing (internal::SetError)
    if (!(contact.penetration_allowance > 0.0) || !(contact.damping_ratio >= 0.0) ||
        !(contact.near_rigid_beta >= 0.0) || std::isinf(contact.near_rigid_beta)) {
      throw UsageError(CTS_STATUS_INVALID_ARGUMENT,
                       "TamsiContactParameters: penetration_allowance must be > 0, damping_ratio >= 0 and "
                       "near_rigid_beta finite and >= 0");
    }
    tamsi_.reset(new TamsiSolver<double>(0));
    tamsi_->set_solver_parameters(p);
    contact_ = std::move(contact);
  }

  void init_ipm(IpmSolverParameters p, IpmContactParameters contact) {
    last_error_.reserve(internal::kErrorCapacity);  // failures allocate nothing (internal::SetError)
    p.warm_start = true;
    ipm_.reset(new IpmSolver(p));
    ipm_beta_ = p.near_rigid_beta;
    ipm_contact_ = std::move(contact);
  }

  void say(const std::string& s) {
    if (log_) {
      log_(s);
    } else {
      std::fprintf(stderr, "%s\n", s.c_str());
    }
  }

  int find(int i) {
    while (parent_[static_cast<std::size_t>(i)] != i) {
      parent_[static_cast<std::size_t>(i)] = parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(i)])];
      i = parent_[static_cast<std::size_t>(i)];
    }
    return i;
  }

  static btRigidBody* dynamic(btCollisionObject* o) {
    btRigidBody* rb = btRigidBody::upcast(o);
    return rb != nullptr && !rb->isStaticOrKinematicObject() && rb->getInvMass() > 0 ? rb : nullptr;
  }

  // The group's trees, external impulses and contacts (everything but the contact values that
  // depend on the method).
  void Gather(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
              double dt) {
    bodies_.clear();
    for (int i = 0; i < numBodies; ++i) {
      btRigidBody* rb = dynamic(bodies[i]);
      if (rb == nullptr) continue;
      rb->setCompanionId(static_cast<int>(bodies_.size()));
      bodies_.push_back(rb);
    }
    const std::size_t nt = bodies_.size();
    nv_ = 6 * nt;
    tree_dofs_.assign(nt, 6);
    M_.assign(36 * nt, 0.0);
    v0_.resize(nv_);
    tau_.resize(nv_);
    p_star_.resize(nv_);
    mass_.resize(nt);
    for (std::size_t t = 0; t < nt; ++t) {
      const btRigidBody* rb = bodies_[t];
      const double m = 1.0 / static_cast<double>(rb->getInvMass());
      mass_[t] = m;
      double* Mt = &M_[36 * t];
      for (int k = 0; k < 3; ++k) Mt[k + 6 * k] = m;
      const btMatrix3x3 I = rb->getInvInertiaTensorWorld().inverse();
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) Mt[(3 + r) + 6 * (3 + c)] = I[r][c];
      }
      const btVector3& v = rb->getLinearVelocity();
      const btVector3& w = rb->getAngularVelocity();
      const btVector3& f = rb->getTotalForce();
      const btVector3& tq = rb->getTotalTorque();
      for (int k = 0; k < 3; ++k) {
        v0_[6 * t + k] = v[k];
        v0_[6 * t + 3 + k] = w[k];
        tau_[6 * t + k] = f[k];
        tau_[6 * t + 3 + k] = tq[k];
      }
      for (int r = 0; r < 6; ++r) {
        double s = dt * tau_[6 * t + r];
        for (int c = 0; c < 6; ++c) s += Mt[r + 6 * c] * v0_[6 * t + c];
        p_star_[6 * t + r] = s;
      }
    }
    contacts_.clear();
    for (int k = 0; k < numManifolds; ++k) {
      btPersistentManifold* man = manifolds[k];
      btCollisionObject* a = const_cast<btCollisionObject*>(man->getBody0());
      btCollisionObject* b = const_cast<btCollisionObject*>(man->getBody1());
      btRigidBody* ra = dynamic(a);
      btRigidBody* rb = dynamic(b);
      if (ra == nullptr && rb == nullptr) continue;
      for (int p = 0; p < man->getNumContacts(); ++p) {
        btManifoldPoint& pt = man->getContactPoint(p);
        if (pt.getDistance() > man->getContactProcessingThreshold()) continue;
        contacts_.push_back(Contact{&pt, ra ? ra->getCompanionId() : -1, rb ? rb->getCompanionId() : -1, a, b});
      }
    }
    // Bullet's sequential impulse solver reads companion ids >= 0 as "already set up": restore -1.
    for (btRigidBody* rb : bodies_) rb->setCompanionId(-1);
    // Islands of this group (union–find over the contacts' trees): the TAMSI rule's masses.
    parent_.resize(nt);
    for (std::size_t t = 0; t < nt; ++t) parent_[t] = static_cast<int>(t);
    for (const Contact& c : contacts_) {
      if (c.tree_a >= 0 && c.tree_b >= 0) {
        const int x = find(c.tree_a), y = find(c.tree_b);
        if (x != y) parent_[static_cast<std::size_t>(std::max(x, y))] = std::min(x, y);
      }
    }
    island_mass_.assign(nt, 0.0);
    island_gravity_.assign(nt, 0.0);
    for (std::size_t t = 0; t < nt; ++t) {
      const std::size_t r = static_cast<std::size_t>(find(static_cast<int>(t)));
      island_mass_[r] += mass_[t];
      island_gravity_[r] = std::max(island_gravity_[r], static_cast<double>(bodies_[t]->getGravity().length()));
    }
  }

  // Appends contact c's blocks to J_ (rows normal, t1, t2; columns v, ω) and its trees; returns
  // the contact's normal Delassus diagonal w = Jn M⁻¹ Jnᵀ (1/kg).
  double AddContact(const Contact& c) {
    const btManifoldPoint& pt = *c.point;
    btVector3 n = pt.m_normalWorldOnB, t1, t2;
    btPlaneSpace1(n, t1, t2);
    frames_.push_back(t1);
    frames_.push_back(t2);
    const btVector3 rows[3] = {n, t1, t2};
    int trees[2] = {c.tree_a, c.tree_b};
    if (trees[0] < 0) std::swap(trees[0], trees[1]);
    contact_trees_.push_back(trees[0]);
    contact_trees_.push_back(trees[1]);
    // Both bodies' blocks at one point, the midpoint of Bullet's two witness points: equal and
    // opposite impulses at one point keep the pair's angular momentum (witness points apart by
    // the penetration, or a stale point's drift, would add a torque).
    const btVector3 p = (pt.getPositionWorldOnA() + pt.getPositionWorldOnB()) * btScalar(0.5);
    double w = 0.0;
    for (int side = 0; side < 2; ++side) {
      const int t = trees[side];
      if (t < 0) continue;
      const bool is_a = t == c.tree_a;
      const btRigidBody* rb = bodies_[static_cast<std::size_t>(t)];
      const btVector3 r = p - rb->getCenterOfMassPosition();
      const double s = is_a ? 1.0 : -1.0;
      // 3×6 column-major: column j < 3 is row·e_j, column 3 + j is (r × row)·e_j.
      const std::size_t base = J_.size();
      J_.resize(base + 18);
      for (int i = 0; i < 3; ++i) {
        const btVector3 rc = r.cross(rows[i]);
        for (int j = 0; j < 3; ++j) {
          J_[base + static_cast<std::size_t>(i + 3 * j)] = s * rows[i][j];
          J_[base + static_cast<std::size_t>(i + 3 * (3 + j))] = s * rc[j];
        }
      }
      const btVector3 rn = r.cross(n);
      w += static_cast<double>(rb->getInvMass()) * static_cast<double>(n.length2()) +
           static_cast<double>(rn.dot(rb->getInvInertiaTensorWorld() * rn));
    }
    return w;
  }

  // What a contact rule sees (ContactInfo); w from AddContact.
  ContactInfo Info(const Contact& c, double dt, double w) {
    const std::size_t root = static_cast<std::size_t>(find(c.tree_a >= 0 ? c.tree_a : c.tree_b));
    ContactInfo ci;
    ci.point = c.point;
    ci.body_a = c.a;
    ci.body_b = c.b;
    ci.island_mass = island_mass_[root];
    ci.gravity = island_gravity_[root] > 0.0 ? island_gravity_[root] : 9.81;
    ci.dt = dt;
    ci.inverse_effective_mass = w;
    return ci;
  }

  void BeginContacts() {
    J_.clear();
    contact_trees_.clear();
    frames_.clear();
    phi_.clear();
    mu_.clear();
    used_.clear();
  }

  bool SolveTamsi(double dt) {
    BeginContacts();
    fn0_.clear();
    k_.clear();
    d_.clear();
    for (std::size_t i = 0; i < contacts_.size(); ++i) {
      const Contact& c = contacts_[i];
      const double phi = c.point->getDistance();
      if (!(phi < 0.0)) continue;  // TAMSI's compliant force needs overlap (docs/tamsi.md §3)
      const ContactInfo ci = Info(c, dt, AddContact(c));
      double k = 0.0, d = 0.0;
      if (contact_.rule) {
        contact_.rule(ci, &k, &d);
      } else {
        k = ci.island_mass * ci.gravity / contact_.penetration_allowance;
        if (contact_.near_rigid_beta > 0.0 && ci.inverse_effective_mass > 0.0) {
          const double omega = kTwoPi / (contact_.near_rigid_beta * dt);
          k = std::max(k, omega * omega / ci.inverse_effective_mass);
        }
        d = contact_.damping_ratio / std::sqrt(ci.gravity * contact_.penetration_allowance);
      }
      used_.push_back(i);
      phi_.push_back(phi);
      mu_.push_back(c.point->m_combinedFriction);
      k_.push_back(k);
      d_.push_back(d);
      fn0_.push_back(-k * phi);
    }
    counters_.contacts += static_cast<long>(used_.size());
    cts_tamsi_solver* h = tamsi_->c_handle();
    if (cts_tamsi_solver_num_velocities(h) != nv_) {
      if (cts_tamsi_solver_resize(h, nv_) != CTS_STATUS_OK) return fail_tamsi(h);
    }
    const BlockSparseData data(tree_dofs_.data(), tree_dofs_.size(), M_.data(), M_.size(), ptr(contact_trees_),
                               used_.size(), ptr(J_), J_.size());
    if (cts_tamsi_solver_set_two_way_coupled_block_problem_data(h, data.c_data(), p_star_.data(), ptr(fn0_), ptr(k_),
                                                                ptr(d_), ptr(mu_)) != CTS_STATUS_OK) {
      return fail_tamsi(h);
    }
    const cts_status s = cts_tamsi_solver_solve_with_guess(h, dt, v0_.data(), nv_);
    if (s != CTS_STATUS_OK) return fail_tamsi(h);
    v_.resize(nv_);
    fn_.resize(used_.size());
    ft_.resize(2 * used_.size());
    if (cts_tamsi_solver_get_generalized_velocities(h, v_.data(), nv_) != CTS_STATUS_OK ||
        cts_tamsi_solver_get_normal_forces(h, fn_.data(), fn_.size()) != CTS_STATUS_OK ||
        cts_tamsi_solver_get_friction_forces(h, ft_.data(), ft_.size()) != CTS_STATUS_OK) {
      return fail_tamsi(h);
    }
    cts_tamsi_iteration_stats st;
    if (cts_tamsi_solver_get_iteration_stats(h, &st) == CTS_STATUS_OK) counters_.last_iterations = st.num_iterations;
    // Forces (N) → impulses (N·s) for the manifold points.
    impulses_.resize(3 * used_.size());
    for (std::size_t i = 0; i < used_.size(); ++i) {
      impulses_[3 * i] = dt * fn_[i];
      impulses_[3 * i + 1] = dt * ft_[2 * i];
      impulses_[3 * i + 2] = dt * ft_[2 * i + 1];
    }
    return true;
  }

  bool fail_tamsi(cts_tamsi_solver* h) {
    internal::SetError(last_error_, "TAMSI: %s", cts_tamsi_solver_last_error(h));
    return false;
  }

  bool SolveIpm(double dt) {
    BeginContacts();
    ids_.clear();
    const bool use_ids = gContactDestroyedCallback == nullptr;
    for (std::size_t i = 0; i < contacts_.size(); ++i) {
      const Contact& c = contacts_[i];
      const ContactInfo ci = Info(c, dt, AddContact(c));
      used_.push_back(i);
      const double phi = c.point->getDistance();
      if (ipm_contact_.gap_rule) {
        phi_.push_back(ipm_contact_.gap_rule(ci));
      } else if (phi < 0.0 && ipm_contact_.limit_recovery) {
        // docs/bullet.md §3: the compliance's resting depth s (this contact carrying its whole
        // island) or one step of free fall, whichever is larger.
        const double bh = ipm_beta_ * dt / kTwoPi;
        const double s = bh * bh * ci.inverse_effective_mass * ci.island_mass * ci.gravity;
        phi_.push_back(std::max(phi, -std::max(s, ci.gravity * dt * dt)));
      } else {
        phi_.push_back(phi);
      }
      mu_.push_back(c.point->m_combinedFriction);
      if (use_ids) {
        if (c.point->m_userPersistentData == nullptr) {
          c.point->m_userPersistentData = reinterpret_cast<void*>(static_cast<std::uintptr_t>(++next_id_));
        }
        ids_.push_back(static_cast<uint64_t>(reinterpret_cast<std::uintptr_t>(c.point->m_userPersistentData)));
      }
    }
    models_.assign(used_.size(), CTS_IPM_MODEL_SECOND_ORDER_CONE);
    counters_.contacts += static_cast<long>(used_.size());
    cts_ipm_solver* h = ipm_->c_handle();
    const BlockSparseData data(tree_dofs_.data(), tree_dofs_.size(), M_.data(), M_.size(), ptr(contact_trees_),
                               used_.size(), ptr(J_), J_.size());
    if (cts_ipm_solver_set_block_problem_data(h, data.c_data(), v0_.data(), tau_.data(), dt, ptr(phi_), ptr(mu_),
                                              ptr(models_), nullptr, 0) != CTS_STATUS_OK ||
        cts_ipm_solver_set_contact_ids(h, ids_.empty() ? nullptr : ids_.data(), ids_.size()) != CTS_STATUS_OK) {
      internal::SetError(last_error_, "interior point: %s", cts_ipm_solver_last_error(h));
      return false;
    }
    const cts_status s = cts_ipm_solver_solve(h);
    if (s != CTS_STATUS_OK && s != CTS_STATUS_IPM_ALMOST_CONVERGED) {
      internal::SetError(last_error_, "interior point: %s: %s", cts_status_string(s), cts_ipm_solver_last_error(h));
      return false;
    }
    v_.resize(nv_);
    impulses_.resize(3 * used_.size());
    if (cts_ipm_solver_get_generalized_velocities(h, v_.data(), nv_) != CTS_STATUS_OK ||
        cts_ipm_solver_get_impulses(h, impulses_.data(), impulses_.size()) != CTS_STATUS_OK) {
      internal::SetError(last_error_, "interior point: %s", cts_ipm_solver_last_error(h));
      return false;
    }
    cts_ipm_stats st;
    if (cts_ipm_solver_get_stats(h, &st) == CTS_STATUS_OK) counters_.last_iterations = st.iterations;
    return true;
  }

  // A valid pointer for an empty per-contact array (a group without contacts: free fall).
  template <typename T>
  static const T* ptr(const std::vector<T>& v) {
    static const T kNone{};
    return v.empty() ? &kNone : v.data();
  }

  void WriteBack() {
    for (std::size_t t = 0; t < bodies_.size(); ++t) {
      const double* v = &v_[6 * t];
      bodies_[t]->setLinearVelocity(btVector3(btScalar(v[0]), btScalar(v[1]), btScalar(v[2])));
      bodies_[t]->setAngularVelocity(btVector3(btScalar(v[3]), btScalar(v[4]), btScalar(v[5])));
    }
    for (std::size_t i = 0; i < used_.size(); ++i) {
      btManifoldPoint* pt = contacts_[used_[i]].point;
      pt->m_appliedImpulse = btScalar(impulses_[3 * i]);
      pt->m_appliedImpulseLateral1 = btScalar(impulses_[3 * i + 1]);
      pt->m_appliedImpulseLateral2 = btScalar(impulses_[3 * i + 2]);
      pt->m_lateralFrictionDir1 = frames_[2 * i];
      pt->m_lateralFrictionDir2 = frames_[2 * i + 1];
    }
  }

  Method method_;
  std::unique_ptr<TamsiSolver<double>> tamsi_;
  std::unique_ptr<IpmSolver> ipm_;
  TamsiContactParameters contact_;
  btSequentialImpulseConstraintSolver fallback_;
  std::function<void(const std::string&)> log_;
  bool joints_said_{false};
  std::string last_error_;
  ContactSolverCounters counters_;
  uint64_t next_id_{0};
  double ipm_beta_{1.0};
  IpmContactParameters ipm_contact_;

  std::size_t nv_{0};
  std::vector<btRigidBody*> bodies_;
  std::vector<Contact> contacts_;
  std::vector<int32_t> tree_dofs_, contact_trees_, models_;
  std::vector<int> parent_;
  std::vector<std::size_t> used_;
  std::vector<uint64_t> ids_;
  std::vector<btVector3> frames_;
  std::vector<double> M_, v0_, tau_, p_star_, mass_, island_mass_, island_gravity_, J_, phi_, mu_, fn0_, k_, d_, v_,
      fn_, ft_, impulses_;
};

}  // namespace bullet
}  // namespace cts

#endif  // CONTACT_SOLVERS_BULLET_HPP
