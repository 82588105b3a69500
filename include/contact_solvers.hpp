/* contact_solvers.hpp: header-only C++17 wrapper over the C ABI of libcontact_solvers.
 *
 * Drake-style classes: moving from drake::multibody::TamsiSolver<double> to cts::TamsiSolver is
 * a change of include and namespace. When Eigen is available (__has_include(<Eigen/Core>), unless
 * CTS_NO_EIGEN is defined) the setters take pointers to Eigen matrices as Drake's do and the
 * getters return Eigen vectors; otherwise they take (pointer, leading dimension) pairs and return
 * std::vector<double>. The pointer-based setters exist in both modes.
 *
 * Rules (those of contact_solvers.h): matrices are column-major; problem data is BORROWED, as in
 * Drake: the matrices and vectors passed to a setter must outlive every solve that uses them.
 * Usage errors throw cts::Error (a std::runtime_error carrying the status and the library's
 * message); solver outcomes are returned as TamsiSolverResult, as in Drake. Objects own their
 * handle (RAII), are movable, not copyable (Clone() makes an independent copy); one object must
 * not be used by two threads at once.
 */
#ifndef CONTACT_SOLVERS_HPP
#define CONTACT_SOLVERS_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "contact_solvers.h"

#if !defined(CTS_NO_EIGEN) && defined(__has_include)
#if __has_include(<Eigen/Core>)
#include <Eigen/Core>
#define CTS_HAVE_EIGEN 1
#endif
#endif

namespace cts {

/** A usage error reported by the library (status >= 100), with its detail message. */
class Error : public std::runtime_error {
 public:
  Error(cts_status status, const std::string& message)
      : std::runtime_error(std::string(cts_status_string(status)) + ": " + message), status_(status) {}
  /** The status code the library returned. */
  cts_status status() const noexcept { return status_; }

 private:
  cts_status status_;
};

#ifdef CTS_HAVE_EIGEN
/** Vector type of the getters: Eigen::VectorXd when Eigen is available. */
using Vector = Eigen::VectorXd;
#else
/** Vector type of the getters: std::vector<double> without Eigen. */
using Vector = std::vector<double>;
#endif

/** Drake's TamsiSolverResult, same enumerators and values. */
enum class TamsiSolverResult : int32_t {
  kSuccess = 0,
  kMaxIterationsReached = 1,
  kLinearSolverFailed = 2,
  kAlphaSolverFailed = 3,
};

/** Drake's TamsiSolverParameters (defaults are Drake's). Validated when set. */
struct TamsiSolverParameters {
  /** vs, m/s, > 0: slip speed at which friction saturates. */
  double stiction_tolerance{1.0e-4};
  /** Maximum number of Newton updates, >= 0. */
  int max_iterations{100};
  /** rtol in (0, 1): convergence when ‖Δvt‖, ‖Δvn‖ < rtol·vs. */
  double relative_tolerance{1.0e-2};
  /** Largest change of slip direction per iteration, rad, in (0, pi/2). */
  double theta_max{3.14159265358979323846 / 3.0};
};

/** Drake's TamsiSolverIterationStats. */
struct TamsiSolverIterationStats {
  /** Newton updates performed in the last solve. */
  int num_iterations{0};
  /** ‖Δvt‖ of each update, m/s. */
  std::vector<double> residuals;
  /** Last entry of residuals; NaN when empty. */
  double vt_residual() const {
    return residuals.empty() ? std::numeric_limits<double>::quiet_NaN() : residuals.back();
  }
};

namespace internal {

inline Vector make_vector(std::size_t n) {
#ifdef CTS_HAVE_EIGEN
  return Vector::Zero(static_cast<Eigen::Index>(n));
#else
  return Vector(n, 0.0);
#endif
}

inline std::size_t vector_size(const Vector& v) { return static_cast<std::size_t>(v.size()); }

#ifdef CTS_HAVE_EIGEN
/** Leading dimension of an Eigen matrix for the C API (>= 1 even when empty). */
inline std::size_t ld(const Eigen::MatrixXd& m) {
  return m.rows() > 0 ? static_cast<std::size_t>(m.rows()) : 1;
}
#endif

}  // namespace internal

/**
 * Drake's TamsiSolver<double>: compliant contact with regularized friction (one-way and two-way
 * coupling), Newton iterations with the transition-aware limiter.
 *
 * Solves M v = p* + dt·Jnᵀ fn + dt·Jtᵀ ft(v) for the next-step generalized velocities v, with
 * fn given (one-way) or fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊ (two-way). Forces in N.
 */
class TamsiSolver {
 public:
  /** A solver for nv generalized velocities (0 allowed). */
  explicit TamsiSolver(int nv) { check_global(cts_tamsi_solver_new(to_size(nv), &handle_)); }

  ~TamsiSolver() { cts_tamsi_solver_free(handle_); }

  TamsiSolver(const TamsiSolver&) = delete;
  TamsiSolver& operator=(const TamsiSolver&) = delete;
  TamsiSolver(TamsiSolver&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  TamsiSolver& operator=(TamsiSolver&& other) noexcept {
    if (this != &other) {
      cts_tamsi_solver_free(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  /** A deep copy (parameters and workspace, no problem data), e.g. for another thread. */
  std::unique_ptr<TamsiSolver> Clone() const {
    cts_tamsi_solver* copy = nullptr;
    check_global(cts_tamsi_solver_clone(handle_, &copy));
    return std::unique_ptr<TamsiSolver>(new TamsiSolver(copy));
  }

  /** Changes nv (> 0); drops problem data and results. */
  void ResizeIfNeeded(int nv) { check(cts_tamsi_solver_resize(handle_, to_size(nv))); }

  /** Number of generalized velocities. */
  int num_velocities() const { return static_cast<int>(cts_tamsi_solver_num_velocities(handle_)); }

  /** Number of contacts of the current problem data. */
  int num_contacts() const { return static_cast<int>(cts_tamsi_solver_num_contacts(handle_)); }

  /**
   * One-way coupled data from raw column-major arrays (see contact_solvers.h): M nv×nv, Jn
   * nc×nv, Jt 2nc×nv with their leading dimensions; p_star nv, fn nc, mu nc. Borrowed.
   */
  void SetOneWayCoupledProblemData(int nc, const double* M, std::size_t ld_M, const double* Jn,
                                   std::size_t ld_Jn, const double* Jt, std::size_t ld_Jt,
                                   const double* p_star, const double* fn, const double* mu) {
    check(cts_tamsi_solver_set_one_way_coupled_problem_data(handle_, to_size(nc), M, ld_M, Jn, ld_Jn,
                                                            Jt, ld_Jt, p_star, fn, mu));
  }

  /**
   * Two-way coupled data from raw column-major arrays: as the one-way call, with fn0 (N),
   * stiffness (N/m) and dissipation (s/m) per contact. Borrowed.
   */
  void SetTwoWayCoupledProblemData(int nc, const double* M, std::size_t ld_M, const double* Jn,
                                   std::size_t ld_Jn, const double* Jt, std::size_t ld_Jt,
                                   const double* p_star, const double* fn0, const double* stiffness,
                                   const double* dissipation, const double* mu) {
    check(cts_tamsi_solver_set_two_way_coupled_problem_data(handle_, to_size(nc), M, ld_M, Jn, ld_Jn,
                                                            Jt, ld_Jt, p_star, fn0, stiffness,
                                                            dissipation, mu));
  }

#ifdef CTS_HAVE_EIGEN
  /** Drake's SetOneWayCoupledProblemData: pointers to Eigen data that must outlive the solves. */
  void SetOneWayCoupledProblemData(const Eigen::MatrixXd* M, const Eigen::MatrixXd* Jn,
                                   const Eigen::MatrixXd* Jt, const Eigen::VectorXd* p_star,
                                   const Eigen::VectorXd* fn, const Eigen::VectorXd* mu) {
    require(M && Jn && Jt && p_star && fn && mu);
    const std::size_t nc = static_cast<std::size_t>(fn->size());
    require_sizes(*M, *Jn, *Jt, *p_star, nc, {mu});
    check(cts_tamsi_solver_set_one_way_coupled_problem_data(
        handle_, nc, M->data(), internal::ld(*M), Jn->data(), internal::ld(*Jn), Jt->data(),
        internal::ld(*Jt), p_star->data(), fn->data(), mu->data()));
  }

  /** Drake's SetTwoWayCoupledProblemData: pointers to Eigen data that must outlive the solves. */
  void SetTwoWayCoupledProblemData(const Eigen::MatrixXd* M, const Eigen::MatrixXd* Jn,
                                   const Eigen::MatrixXd* Jt, const Eigen::VectorXd* p_star,
                                   const Eigen::VectorXd* fn0, const Eigen::VectorXd* stiffness,
                                   const Eigen::VectorXd* dissipation, const Eigen::VectorXd* mu) {
    require(M && Jn && Jt && p_star && fn0 && stiffness && dissipation && mu);
    const std::size_t nc = static_cast<std::size_t>(fn0->size());
    require_sizes(*M, *Jn, *Jt, *p_star, nc, {stiffness, dissipation, mu});
    check(cts_tamsi_solver_set_two_way_coupled_problem_data(
        handle_, nc, M->data(), internal::ld(*M), Jn->data(), internal::ld(*Jn), Jt->data(),
        internal::ld(*Jt), p_star->data(), fn0->data(), stiffness->data(), dissipation->data(),
        mu->data()));
  }
#endif

  /** Drake's SolveWithGuess: dt in s, v_guess of size nv. Returns the solver outcome. */
  TamsiSolverResult SolveWithGuess(double dt, const Vector& v_guess) {
    return SolveWithGuess(dt, v_guess.data(), internal::vector_size(v_guess));
  }

  /** SolveWithGuess from a raw guess of nv doubles. */
  TamsiSolverResult SolveWithGuess(double dt, const double* v_guess, std::size_t nv) {
    const cts_status s = cts_tamsi_solver_solve_with_guess(handle_, dt, v_guess, nv);
    if (s >= CTS_STATUS_OK && s <= CTS_STATUS_ALPHA_SOLVER_FAILED) {
      return static_cast<TamsiSolverResult>(s);
    }
    throw Error(s, cts_tamsi_solver_last_error(handle_));
  }

  /** Sets (and validates) the parameters. */
  void set_solver_parameters(const TamsiSolverParameters& p) {
    cts_tamsi_parameters c;
    cts_tamsi_parameters_default(&c);
    c.stiction_tolerance = p.stiction_tolerance;
    c.max_iterations = p.max_iterations;
    c.relative_tolerance = p.relative_tolerance;
    c.theta_max = p.theta_max;
    check(cts_tamsi_solver_set_parameters(handle_, &c));
  }

  /** The current parameters. */
  TamsiSolverParameters get_solver_parameters() const {
    cts_tamsi_parameters c;
    check(cts_tamsi_solver_get_parameters(handle_, &c));
    TamsiSolverParameters p;
    p.stiction_tolerance = c.stiction_tolerance;
    p.max_iterations = c.max_iterations;
    p.relative_tolerance = c.relative_tolerance;
    p.theta_max = c.theta_max;
    return p;
  }

  /** Statistics of the last solve. */
  const TamsiSolverIterationStats& get_iteration_statistics() const {
    cts_tamsi_iteration_stats c;
    check(cts_tamsi_solver_get_iteration_stats(handle_, &c));
    std::size_t count = 0;
    check(cts_tamsi_solver_get_residuals(handle_, nullptr, 0, &count));
    stats_.residuals.assign(count, 0.0);
    check(cts_tamsi_solver_get_residuals(handle_, stats_.residuals.data(), count, &count));
    stats_.num_iterations = c.num_iterations;
    return stats_;
  }

  /** v (nv; m/s or rad/s) of the last solve. */
  const Vector& get_generalized_velocities() const {
    return fetch(v_, num_velocities(), cts_tamsi_solver_get_generalized_velocities);
  }
  /** vn = Jn v (nc; m/s). */
  const Vector& get_normal_velocities() const {
    return fetch(vn_, num_contacts(), cts_tamsi_solver_get_normal_velocities);
  }
  /** vt = Jt v (2nc; m/s). */
  const Vector& get_tangential_velocities() const {
    return fetch(vt_, 2 * num_contacts(), cts_tamsi_solver_get_tangential_velocities);
  }
  /** fn (nc; N). */
  const Vector& get_normal_forces() const {
    return fetch(fn_, num_contacts(), cts_tamsi_solver_get_normal_forces);
  }
  /** ft (2nc; N). */
  const Vector& get_friction_forces() const {
    return fetch(ft_, 2 * num_contacts(), cts_tamsi_solver_get_friction_forces);
  }
  /** τ_f = Jtᵀ ft (nv; N or N·m). */
  const Vector& get_generalized_friction_forces() const {
    return fetch(tau_f_, num_velocities(), cts_tamsi_solver_get_generalized_friction_forces);
  }
  /** τ = Jtᵀ ft + Jnᵀ fn (nv; N or N·m). */
  const Vector& get_generalized_contact_forces() const {
    return fetch(tau_, num_velocities(), cts_tamsi_solver_get_generalized_contact_forces);
  }

  /** The underlying C handle (owned by this object). */
  cts_tamsi_solver* c_handle() const noexcept { return handle_; }

 private:
  explicit TamsiSolver(cts_tamsi_solver* handle) : handle_(handle) {}

  static std::size_t to_size(int n) {
    if (n < 0) throw Error(CTS_STATUS_INVALID_ARGUMENT, "negative size");
    return static_cast<std::size_t>(n);
  }

  static void check_global(cts_status s) {
    if (s != CTS_STATUS_OK) throw Error(s, cts_last_error_message());
  }

  void check(cts_status s) const {
    if (s != CTS_STATUS_OK) throw Error(s, cts_tamsi_solver_last_error(handle_));
  }

  static void require(bool all_non_null) {
    if (!all_non_null) throw Error(CTS_STATUS_NULL_POINTER, "a problem-data pointer is null");
  }

#ifdef CTS_HAVE_EIGEN
  void require_sizes(const Eigen::MatrixXd& M, const Eigen::MatrixXd& Jn, const Eigen::MatrixXd& Jt,
                     const Eigen::VectorXd& p_star, std::size_t nc,
                     std::initializer_list<const Eigen::VectorXd*> per_contact) const {
    const Eigen::Index nv = num_velocities();
    const Eigen::Index n = static_cast<Eigen::Index>(nc);
    if (M.rows() != nv || M.cols() != nv || Jn.rows() != n || Jn.cols() != nv ||
        Jt.rows() != 2 * n || Jt.cols() != nv || p_star.size() != nv) {
      throw Error(CTS_STATUS_DIMENSION_MISMATCH, "sizes of M, Jn, Jt, p_star do not match nv and nc");
    }
    for (const Eigen::VectorXd* x : per_contact) {
      if (x->size() != n) throw Error(CTS_STATUS_DIMENSION_MISMATCH, "a per-contact vector is not of size nc");
    }
  }
#endif

  using Getter = cts_status (*)(const cts_tamsi_solver*, double*, std::size_t);

  const Vector& fetch(Vector& out, int n, Getter get) const {
    const std::size_t len = static_cast<std::size_t>(n);
    if (internal::vector_size(out) != len) out = internal::make_vector(len);
    check(get(handle_, out.data(), len));
    return out;
  }

  cts_tamsi_solver* handle_{nullptr};
  mutable Vector v_, vn_, vt_, fn_, ft_, tau_f_, tau_;
  mutable TamsiSolverIterationStats stats_;
};

}  // namespace cts

#endif  // CONTACT_SOLVERS_HPP
