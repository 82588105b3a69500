/* contact_solvers.hpp: header-only C++17 wrapper over the C ABI of libcontact_solvers.
 *
 * Drake-style classes: moving from drake::multibody::TamsiSolver<double> to cts::TamsiSolver is
 * a change of include and namespace; cts::IpmSolver is Dojo's interior-point solver in the same
 * style. When Eigen is available (__has_include(<Eigen/Core>), unless
 * CTS_NO_EIGEN is defined) the setters take pointers to Eigen matrices as Drake's do and the
 * getters return Eigen vectors; otherwise they take (pointer, leading dimension) pairs and return
 * std::vector<double>. The pointer-based setters exist in both modes.
 *
 * Rules (those of contact_solvers.h): matrices are column-major; problem data is BORROWED, as in
 * Drake: the matrices and vectors passed to a setter must outlive every solve that uses them.
 * Usage errors throw cts::Error (a std::runtime_error carrying the status and the library's
 * message); solver outcomes are returned as TamsiSolverResult, as in Drake (cts::IpmOutcome for
 * the interior-point solver). Objects own their
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

/** Outcome of an interior-point solve: the status values of cts_ipm_solver_solve. */
enum class IpmOutcome : int32_t {
  /** rvio < rtol and bvio < btol (CTS_STATUS_OK). */
  kConverged = CTS_STATUS_OK,
  /** max_iter iterations without meeting the tolerances; results hold the last iterate. */
  kMaxIterationsReached = CTS_STATUS_IPM_MAX_ITERATIONS_REACHED,
  /** A Newton direction was not finite; results hold the last finite iterate. */
  kNonFiniteStep = CTS_STATUS_IPM_NON_FINITE_STEP,
};

/** Contact model kind of one contact (the CTS_IPM_MODEL_* constants). */
enum class IpmContactModel : int32_t {
  /** Frictionless impact. */
  kImpact = CTS_IPM_MODEL_IMPACT,
  /** Isotropic Coulomb friction on the second-order cone (Dojo's nonlinear model). */
  kSecondOrderCone = CTS_IPM_MODEL_SECOND_ORDER_CONE,
  /** Four-direction linearized friction (L1 diamond; sliding bodies drift sideways). */
  kLinear = CTS_IPM_MODEL_LINEAR,
};

/** How the Newton system is solved (the CTS_IPM_NEWTON_SOLVE_* constants). */
enum class IpmNewtonSolve : int32_t {
  kCondensed = CTS_IPM_NEWTON_SOLVE_CONDENSED,
  kDense = CTS_IPM_NEWTON_SOLVE_DENSE,
};

/** The problem data a sensitivity is taken with respect to (the CTS_IPM_SENSITIVITY_* constants). */
enum class IpmSensitivityParameter : int32_t {
  kV0 = CTS_IPM_SENSITIVITY_V0,
  kTau = CTS_IPM_SENSITIVITY_TAU,
  kPhi = CTS_IPM_SENSITIVITY_PHI,
  kMu = CTS_IPM_SENSITIVITY_MU,
};

/** Interior-point parameters (defaults are Dojo's code defaults). Validated when set. */
struct IpmSolverParameters {
  /** Tolerance on rvio (∞-norm of the equality residuals), > 0. */
  double rtol{1.0e-6};
  /** Tolerance on bvio (∞-norm of the complementarity products γ∘s), > 0. */
  double btol{1.0e-4};
  /** Maximum number of Newton iterations, >= 0. */
  int max_iter{50};
  /** Maximum number of backtracking halvings per iteration, >= 1. */
  int max_ls{10};
  /** κ floor = btol / undercut; > 0, infinity allowed. */
  double undercut{std::numeric_limits<double>::infinity()};
  /** Iterations without progress before undercut grows, >= 0. */
  int no_progress_max{3};
  /** Factor applied to undercut, >= 1. */
  double no_progress_undercut{10.0};
  /** Dojo's lagged-κ predictor (compatibility). */
  bool dojo_lagged_kappa{false};
  /** Fixed-κ mode (N·s·m) for smooth gradients when > 0. */
  double fixed_kappa{0.0};
  /** Start the cone variables from the previous solution (same contact layout). */
  bool warm_start{false};
  /** Condensed (default) or dense Newton solves. */
  IpmNewtonSolve newton_solve{IpmNewtonSolve::kCondensed};
};

/** Statistics of the last interior-point solve. */
struct IpmSolverStats {
  IpmOutcome outcome{IpmOutcome::kConverged};
  int iterations{0};
  double rvio{0.0};
  double bvio{0.0};
  double kappa{0.0};
  int line_search_exhausted{0};
  int boundary_hits{0};
};

/**
 * Dojo's interior-point contact solver: one time step in generalized velocities,
 *   M (v − v0) − h τ − Σ_i [Jn_iᵀ γn_i + Jt_iᵀ b_i] = 0,  0 <= φ_i + h Jn_i v ⟂ γn_i >= 0,
 * with Coulomb friction on the second-order cone (or the linear model, or none), solved for v and
 * the contact IMPULSES (N·s) by a primal–dual Mehrotra predictor–corrector; sensitivities of the
 * solution with respect to v0, τ, φ and μ by implicit differentiation.
 */
class IpmSolver {
 public:
#ifdef CTS_HAVE_EIGEN
  /** Matrix type of the sensitivity getters: Eigen::MatrixXd when Eigen is available. */
  using Matrix = Eigen::MatrixXd;
#else
  /** Matrix type of the sensitivity getters without Eigen: a column-major rows×cols array. */
  class Matrix {
   public:
    Matrix() = default;
    Matrix(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols), data_(rows * cols, 0.0) {}
    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }
    double operator()(std::size_t i, std::size_t j) const { return data_[i + j * rows_]; }
    double* data() noexcept { return data_.data(); }
    const double* data() const noexcept { return data_.data(); }

   private:
    std::size_t rows_{0};
    std::size_t cols_{0};
    std::vector<double> data_;
  };
#endif

  /** A solver with default parameters. */
  IpmSolver() { check_global(cts_ipm_solver_new(&handle_)); }

  /** A solver with the given parameters (validated). */
  explicit IpmSolver(const IpmSolverParameters& p) : IpmSolver() { set_solver_parameters(p); }

  ~IpmSolver() { cts_ipm_solver_free(handle_); }

  IpmSolver(const IpmSolver&) = delete;
  IpmSolver& operator=(const IpmSolver&) = delete;
  IpmSolver(IpmSolver&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  IpmSolver& operator=(IpmSolver&& other) noexcept {
    if (this != &other) {
      cts_ipm_solver_free(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  /** A deep copy (parameters and workspace, no problem data, no results), e.g. for another thread. */
  std::unique_ptr<IpmSolver> Clone() const {
    cts_ipm_solver* copy = nullptr;
    check_global(cts_ipm_solver_clone(handle_, &copy));
    return std::unique_ptr<IpmSolver>(new IpmSolver(copy));
  }

  /** Sets (and validates) the parameters. */
  void set_solver_parameters(const IpmSolverParameters& p) {
    cts_ipm_parameters c;
    cts_ipm_parameters_default(&c);
    c.rtol = p.rtol;
    c.btol = p.btol;
    c.max_iter = p.max_iter;
    c.max_ls = p.max_ls;
    c.undercut = p.undercut;
    c.no_progress_max = p.no_progress_max;
    c.no_progress_undercut = p.no_progress_undercut;
    c.dojo_lagged_kappa = p.dojo_lagged_kappa ? 1 : 0;
    c.fixed_kappa = p.fixed_kappa;
    c.warm_start = p.warm_start ? 1 : 0;
    c.newton_solve = static_cast<int32_t>(p.newton_solve);
    check(cts_ipm_solver_set_parameters(handle_, &c));
  }

  /** The current parameters. */
  IpmSolverParameters get_solver_parameters() const {
    cts_ipm_parameters c;
    check(cts_ipm_solver_get_parameters(handle_, &c));
    IpmSolverParameters p;
    p.rtol = c.rtol;
    p.btol = c.btol;
    p.max_iter = c.max_iter;
    p.max_ls = c.max_ls;
    p.undercut = c.undercut;
    p.no_progress_max = c.no_progress_max;
    p.no_progress_undercut = c.no_progress_undercut;
    p.dojo_lagged_kappa = c.dojo_lagged_kappa != 0;
    p.fixed_kappa = c.fixed_kappa;
    p.warm_start = c.warm_start != 0;
    p.newton_solve = static_cast<IpmNewtonSolve>(c.newton_solve);
    return p;
  }

  /**
   * Problem data from raw column-major arrays (see cts_ipm_solver_set_problem_data): M n×n, Jn
   * nc×n, Jt 2nc×n with their leading dimensions; v0 n, tau n (N), h (s), phi nc (m), mu nc,
   * models nc, vt_offset 2nc or nullptr. Borrowed (the model kinds are copied).
   */
  void SetProblemData(int n, int nc, const double* M, std::size_t ld_M, const double* Jn,
                      std::size_t ld_Jn, const double* Jt, std::size_t ld_Jt, const double* v0,
                      const double* tau, double h, const double* phi, const double* mu,
                      const IpmContactModel* models, const double* vt_offset = nullptr) {
    const std::size_t ncs = to_size(nc);
    std::vector<int32_t> codes(ncs);
    for (std::size_t i = 0; i < ncs && models != nullptr; ++i) codes[i] = static_cast<int32_t>(models[i]);
    check(cts_ipm_solver_set_problem_data(handle_, to_size(n), ncs, M, ld_M, Jn, ld_Jn, Jt, ld_Jt, v0, tau,
                                          h, phi, mu, models != nullptr ? codes.data() : nullptr,
                                          vt_offset, vt_offset != nullptr ? 2 * ncs : 0));
  }

#ifdef CTS_HAVE_EIGEN
  /**
   * Problem data from pointers to Eigen objects that must outlive the solves (and the sensitivity
   * computation) that use them; vt_offset may be nullptr.
   */
  void SetProblemData(const Eigen::MatrixXd* M, const Eigen::MatrixXd* Jn, const Eigen::MatrixXd* Jt,
                      const Eigen::VectorXd* v0, const Eigen::VectorXd* tau, double h,
                      const Eigen::VectorXd* phi, const Eigen::VectorXd* mu,
                      const std::vector<IpmContactModel>& models,
                      const Eigen::VectorXd* vt_offset = nullptr) {
    if (!(M && Jn && Jt && v0 && tau && phi && mu)) {
      throw Error(CTS_STATUS_NULL_POINTER, "a problem-data pointer is null");
    }
    const Eigen::Index n = M->rows(), nc = static_cast<Eigen::Index>(models.size());
    if (M->cols() != n || Jn->rows() != nc || Jn->cols() != n || Jt->rows() != 2 * nc || Jt->cols() != n ||
        v0->size() != n || tau->size() != n || phi->size() != nc || mu->size() != nc ||
        (vt_offset != nullptr && vt_offset->size() != 2 * nc)) {
      throw Error(CTS_STATUS_DIMENSION_MISMATCH,
                  "sizes of M, Jn, Jt, v0, tau, phi, mu, vt_offset do not match n = M.rows() and nc = models.size()");
    }
    SetProblemData(static_cast<int>(n), static_cast<int>(nc), M->data(), internal::ld(*M), Jn->data(),
                   internal::ld(*Jn), Jt->data(), internal::ld(*Jt), v0->data(), tau->data(), h, phi->data(),
                   mu->data(), models.data(), vt_offset != nullptr ? vt_offset->data() : nullptr);
  }
#endif

  /** Solves from v = v0. Returns the outcome; usage errors throw cts::Error. */
  IpmOutcome Solve() { return outcome(cts_ipm_solver_solve(handle_)); }

  /** Solves from the velocity guess v_guess (size n). */
  IpmOutcome SolveWithGuess(const Vector& v_guess) {
    return SolveWithGuess(v_guess.data(), internal::vector_size(v_guess));
  }

  /** Solves from a raw guess of n doubles. */
  IpmOutcome SolveWithGuess(const double* v_guess, std::size_t n) {
    return outcome(cts_ipm_solver_solve_with_guess(handle_, v_guess, n));
  }

  /** Number of generalized velocities of the current problem data. */
  int num_velocities() const { return static_cast<int>(cts_ipm_solver_num_velocities(handle_)); }
  /** Number of contacts of the current problem data. */
  int num_contacts() const { return static_cast<int>(cts_ipm_solver_num_contacts(handle_)); }
  /** Number of cone variables K (length of the primal and dual vectors). */
  int num_cone_variables() const { return static_cast<int>(cts_ipm_solver_num_cone_variables(handle_)); }

  /** v (n; m/s or rad/s) of the last solve. */
  const Vector& get_generalized_velocities() const {
    return fetch(v_, num_velocities(), cts_ipm_solver_get_generalized_velocities);
  }
  /** Contact impulses (3nc; N·s): (normal, t1, t2) per contact. */
  const Vector& get_impulses() const { return fetch(impulses_, 3 * num_contacts(), cts_ipm_solver_get_impulses); }
  /** Predicted next gaps φ + h Jn v (nc; m). */
  const Vector& get_next_gaps() const { return fetch(gaps_, num_contacts(), cts_ipm_solver_get_next_gaps); }
  /** Raw primal cone variables γ (K). */
  const Vector& get_primal() const { return fetch(primal_, num_cone_variables(), cts_ipm_solver_get_primal); }
  /** Raw dual cone variables s (K). */
  const Vector& get_dual() const { return fetch(dual_, num_cone_variables(), cts_ipm_solver_get_dual); }

  /** Statistics of the last solve. */
  IpmSolverStats get_stats() const {
    cts_ipm_stats c;
    check(cts_ipm_solver_get_stats(handle_, &c));
    IpmSolverStats s;
    s.outcome = static_cast<IpmOutcome>(c.status);
    s.iterations = c.iterations;
    s.rvio = c.rvio;
    s.bvio = c.bvio;
    s.kappa = c.kappa;
    s.line_search_exhausted = c.line_search_exhausted;
    s.boundary_hits = c.boundary_hits;
    return s;
  }

  /** rvio at the start and after every iteration (iterations + 1 entries). */
  std::vector<double> get_rvio_history() const { return history(cts_ipm_solver_get_rvio_history); }
  /** bvio at the start and after every iteration. */
  std::vector<double> get_bvio_history() const { return history(cts_ipm_solver_get_bvio_history); }
  /** κ target of every iteration (N·s·m). */
  std::vector<double> get_kappa_history() const { return history(cts_ipm_solver_get_kappa_history); }
  /** Accepted step length of every iteration. */
  std::vector<double> get_alpha_history() const { return history(cts_ipm_solver_get_alpha_history); }

  /** Computes ∂v/∂θ and ∂λ/∂θ at the last solution (θ = v0, τ, φ, μ). */
  void ComputeSensitivities() { check(cts_ipm_solver_compute_sensitivities(handle_)); }

  /** ∂v/∂θ: n × (n for v0 and τ, nc for φ and μ). */
  Matrix get_velocity_sensitivity(IpmSensitivityParameter p) const {
    return sensitivity(p, static_cast<std::size_t>(num_velocities()), cts_ipm_solver_get_velocity_sensitivity);
  }
  /** ∂λ/∂θ, λ = the impulses (3nc) of get_impulses(): 3nc × (n or nc). */
  Matrix get_impulse_sensitivity(IpmSensitivityParameter p) const {
    return sensitivity(p, 3 * static_cast<std::size_t>(num_contacts()), cts_ipm_solver_get_impulse_sensitivity);
  }

  /** The underlying C handle (owned by this object). */
  cts_ipm_solver* c_handle() const noexcept { return handle_; }

 private:
  explicit IpmSolver(cts_ipm_solver* handle) : handle_(handle) {}

  static std::size_t to_size(int n) {
    if (n < 0) throw Error(CTS_STATUS_INVALID_ARGUMENT, "negative size");
    return static_cast<std::size_t>(n);
  }

  static void check_global(cts_status s) {
    if (s != CTS_STATUS_OK) throw Error(s, cts_last_error_message());
  }

  void check(cts_status s) const {
    if (s != CTS_STATUS_OK) throw Error(s, cts_ipm_solver_last_error(handle_));
  }

  IpmOutcome outcome(cts_status s) const {
    if (s == CTS_STATUS_OK || s == CTS_STATUS_IPM_MAX_ITERATIONS_REACHED || s == CTS_STATUS_IPM_NON_FINITE_STEP) {
      return static_cast<IpmOutcome>(s);
    }
    throw Error(s, cts_ipm_solver_last_error(handle_));
  }

  using Getter = cts_status (*)(const cts_ipm_solver*, double*, std::size_t);
  using HistoryGetter = cts_status (*)(const cts_ipm_solver*, double*, std::size_t, std::size_t*);
  using SensitivityGetter = cts_status (*)(const cts_ipm_solver*, int32_t, double*, std::size_t, std::size_t);

  const Vector& fetch(Vector& out, int n, Getter get) const {
    const std::size_t len = static_cast<std::size_t>(n);
    if (internal::vector_size(out) != len) out = internal::make_vector(len);
    check(get(handle_, out.data(), len));
    return out;
  }

  std::vector<double> history(HistoryGetter get) const {
    std::size_t count = 0;
    check(get(handle_, nullptr, 0, &count));
    std::vector<double> h(count, 0.0);
    check(get(handle_, h.data(), count, &count));
    return h;
  }

  Matrix sensitivity(IpmSensitivityParameter p, std::size_t rows, SensitivityGetter get) const {
    const bool per_velocity = p == IpmSensitivityParameter::kV0 || p == IpmSensitivityParameter::kTau;
    const std::size_t cols = static_cast<std::size_t>(per_velocity ? num_velocities() : num_contacts());
#ifdef CTS_HAVE_EIGEN
    Matrix m = Matrix::Zero(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
#else
    Matrix m(rows, cols);
#endif
    check(get(handle_, static_cast<int32_t>(p), m.data(), rows > 0 ? rows : 1, cols));
    return m;
  }

  cts_ipm_solver* handle_{nullptr};
  mutable Vector v_, impulses_, gaps_, primal_, dual_;
};

}  // namespace cts

#endif  // CONTACT_SOLVERS_HPP
