/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* contact_solvers.hpp: header-only C++17 wrapper over the C ABI of libcontact_solvers.
 *
 * Drake-style classes: moving from drake::multibody::TamsiSolver<double> to
 * cts::TamsiSolver<double> (with Drake's EigenPtr, VectorX, MatrixX and internal::TalsLimiter),
 * from drake::solvers::MobyLcpSolver / UnrevisedLemkeSolver<double> to cts::MobyLcpSolver /
 * cts::UnrevisedLemkeSolver<double> (Eigen arguments of any size type, expressions included), or from Drake's ConstraintSolver<double> and its problem data to
 * cts::ConstraintSolver is a change of include and namespace; cts::IpmSolver is Dojo's
 * interior-point solver and cts::BaraffSolver the Baraff pivoting solver in the same style. When
 * Eigen is available (__has_include(<Eigen/Core>), unless
 * CTS_NO_EIGEN is defined) the setters take pointers to Eigen matrices as Drake's do and the
 * getters return Eigen vectors; otherwise they take (pointer, leading dimension) pairs and return
 * std::vector<double>. The pointer-based setters exist in both modes.
 *
 * Rules (those of contact_solvers.h): matrices are column-major; problem data is BORROWED, as in
 * Drake: the matrices and vectors passed to a setter must outlive every solve that uses them.
 * Errors throw cts::Error, carrying the status and the library's message: usage errors as
 * cts::UsageError, a std::logic_error as Drake's DRAKE_THROW_UNLESS throws;
 * CTS_STATUS_ALLOCATION_FAILED, CTS_STATUS_NON_FINITE_RESULT (a solve whose output overflowed)
 * and CTS_STATUS_PANIC as cts::RuntimeError, a std::runtime_error. Solver outcomes are returned
 * (TamsiSolverResult as in Drake; LcpOutcome, or Drake's bool for the Drake-shaped LCP calls;
 * RigidOutcome where Drake throws; cts::IpmOutcome for the interior-point solver,
 * cts::BaraffOutcome for the Baraff solver). Objects own their
 * handle (RAII), are movable, not copyable (Clone() makes an independent copy); one object must
 * not be used by two threads at once.
 */
#ifndef CONTACT_SOLVERS_HPP
#define CONTACT_SOLVERS_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
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

/**
 * An error reported by the library or found by the wrapper: the status and the library's detail
 * message. Catch cts::Error for every error of the wrapper. What is thrown is one of its two
 * standard-library kinds, as Drake throws them:
 * - cts::UsageError, a std::logic_error: the call was wrong (a null pointer, sizes that do not
 *   match, an invalid argument, no problem data or no solution yet: statuses 100..107 but 106),
 *   where Drake's DRAKE_THROW_UNLESS throws std::logic_error;
 * - cts::RuntimeError, a std::runtime_error: the call was right but could not be carried out
 *   (CTS_STATUS_ALLOCATION_FAILED, CTS_STATUS_NON_FINITE_RESULT, CTS_STATUS_PANIC).
 * Each has a single std::exception base, so catch (const std::exception&) catches both.
 */
class Error {
 public:
  virtual ~Error() = default;
  /** The status code the library returned. */
  cts_status status() const noexcept { return status_; }
  /** "<status name>: <detail>". */
  virtual const char* what() const noexcept = 0;

 protected:
  explicit Error(cts_status status) noexcept : status_(status) {}
  Error(const Error&) = default;
  Error& operator=(const Error&) = default;

 private:
  cts_status status_;
};

/** A usage error (std::logic_error, as Drake's): see cts::Error. */
class UsageError : public std::logic_error, public Error {
 public:
  UsageError(cts_status status, const std::string& message)
      : std::logic_error(std::string(cts_status_string(status)) + ": " + message), Error(status) {}
  const char* what() const noexcept override { return std::logic_error::what(); }
};

/** A failure of a correct call (std::runtime_error): see cts::Error. */
class RuntimeError : public std::runtime_error, public Error {
 public:
  RuntimeError(cts_status status, const std::string& message)
      : std::runtime_error(std::string(cts_status_string(status)) + ": " + message), Error(status) {}
  const char* what() const noexcept override { return std::runtime_error::what(); }
};

namespace internal {
/** Whether `status` means the call itself was wrong (a usage error, std::logic_error). */
inline bool is_usage_status(cts_status status) noexcept {
  return status >= CTS_STATUS_NULL_POINTER && status != CTS_STATUS_ALLOCATION_FAILED && status != CTS_STATUS_PANIC;
}
/** Throws the cts::Error of `status`: a UsageError or a RuntimeError. */
[[noreturn]] inline void throw_error(cts_status status, const std::string& message) {
  if (is_usage_status(status)) throw UsageError(status, message);
  throw RuntimeError(status, message);
}
}  // namespace internal

#ifdef CTS_HAVE_EIGEN
/** Vector type of the getters: Eigen::VectorXd when Eigen is available. */
using Vector = Eigen::VectorXd;
#else
/** Vector type of the getters: std::vector<double> without Eigen. */
using Vector = std::vector<double>;
#endif

#ifdef CTS_HAVE_EIGEN
/** Matrix type of the matrix getters: Eigen::MatrixXd when Eigen is available. */
using DenseMatrix = Eigen::MatrixXd;
#else
/** Matrix type of the matrix getters without Eigen: a column-major rows×cols array. */
class DenseMatrix {
 public:
  DenseMatrix() = default;
  DenseMatrix(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols), data_(rows * cols, 0.0) {}
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

// ============================================================================================
// The block-sparse problem form (docs/block_sparse.md): cts_block_sparse_data as a view type.
// ============================================================================================

/**
 * A non-owning view of problem data in block-sparse form (cts_block_sparse_data of
 * contact_solvers.h): the velocities split into trees, M one dense block per tree, each contact's
 * Jacobian rows (normal, tangent 1, tangent 2) one dense 3×n_t block per tree it touches.
 *
 * - tree_dofs: ntree entries >= 1 (MuJoCo's tree_dofnum), summing to the solver's nv;
 * - M: the trees' n_t×n_t blocks of M (kg; kg·m² for angular velocities), each column-major,
 *   back to back (sum of n_t² doubles);
 * - contact_trees: 2·nc entries, the trees of contact i at [2i] and [2i+1], -1 for a static side
 *   (an Eigen::Matrix<int, 2, Eigen::Dynamic> holds them column by column, contact by contact);
 * - J: per contact, one 3×n_t column-major block per tree it touches, in the order listed (m/s
 *   per unit velocity; the normal row positive when the bodies separate).
 *
 * Built from raw pointers and lengths, or from named contiguous containers (std::vector<int> /
 * std::vector<double>, Eigen::VectorXi / Eigen::VectorXd / Eigen::Matrix<int, 2, Dynamic>, ...).
 * The library borrows the arrays (not this view): they must stay alive and unchanged until the
 * next set call, resize or the solver's destruction, so temporaries are refused at compile time.
 */
class BlockSparseData {
 public:
  /** From raw arrays: num_trees tree sizes, M_len doubles of M, 2·num_contacts contact trees, J_len doubles of J. */
  BlockSparseData(const int32_t* tree_dofs, std::size_t num_trees, const double* M, std::size_t M_len,
                  const int32_t* contact_trees, std::size_t num_contacts, const double* J, std::size_t J_len) noexcept {
    c_.num_trees = num_trees;
    c_.tree_dofs = tree_dofs;
    c_.M_len = M_len;
    c_.M = M;
    c_.num_contacts = num_contacts;
    c_.contact_trees = contact_trees;
    c_.J_len = J_len;
    c_.J = J;
  }

  /**
   * From contiguous containers with data() and size() (named objects: they are borrowed);
   * contact_trees holds 2·nc entries (an odd count throws CTS_STATUS_DIMENSION_MISMATCH).
   */
  template <typename Trees, typename MValues, typename Contacts, typename JValues>
  BlockSparseData(Trees&& tree_dofs, MValues&& M, Contacts&& contact_trees, JValues&& J)
      : BlockSparseData(tree_dofs.data(), static_cast<std::size_t>(tree_dofs.size()), M.data(),
                        static_cast<std::size_t>(M.size()), contact_trees.data(),
                        static_cast<std::size_t>(contact_trees.size()) / 2, J.data(),
                        static_cast<std::size_t>(J.size())) {
    static_assert(std::is_lvalue_reference<Trees>::value && std::is_lvalue_reference<MValues>::value &&
                      std::is_lvalue_reference<Contacts>::value && std::is_lvalue_reference<JValues>::value,
                  "cts::BlockSparseData borrows its arrays: pass named containers that outlive the solves, "
                  "not temporaries");
    static_assert(std::is_same<std::remove_cv_t<std::remove_pointer_t<decltype(tree_dofs.data())>>, int32_t>::value &&
                      std::is_same<std::remove_cv_t<std::remove_pointer_t<decltype(contact_trees.data())>>,
                                   int32_t>::value,
                  "cts::BlockSparseData: tree_dofs and contact_trees hold int32_t (int)");
    static_assert(std::is_same<std::remove_cv_t<std::remove_pointer_t<decltype(M.data())>>, double>::value &&
                      std::is_same<std::remove_cv_t<std::remove_pointer_t<decltype(J.data())>>, double>::value,
                  "cts::BlockSparseData: M and J hold doubles");
    if (contact_trees.size() % 2 != 0) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "BlockSparseData: contact_trees has " +
                                                     std::to_string(contact_trees.size()) +
                                                     " entries; it holds two tree indices per contact");
    }
  }

  /** Number of trees. */
  std::size_t num_trees() const noexcept { return c_.num_trees; }
  /** Number of contacts (nc). */
  std::size_t num_contacts() const noexcept { return c_.num_contacts; }
  /** The C struct (copied by the library at the set call). */
  const cts_block_sparse_data* c_data() const noexcept { return &c_; }

 private:
  cts_block_sparse_data c_{};
};

// ============================================================================================
// TAMSI: Drake's TamsiSolver<T>, TamsiSolverParameters, TamsiSolverIterationStats,
// TamsiSolverResult and internal::TalsLimiter<T>.
// ============================================================================================

#ifdef CTS_HAVE_EIGEN
/** Drake's eigen_types aliases (drake/common/eigen_types.h), so Drake code compiles unchanged. */
template <typename T>
using VectorX = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <typename T>
using MatrixX = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <typename T>
using Vector2 = Eigen::Matrix<T, 2, 1>;
template <typename T>
using Vector3 = Eigen::Matrix<T, 3, 1>;
template <typename T>
using Matrix2 = Eigen::Matrix<T, 2, 2>;
template <typename T>
using Matrix3 = Eigen::Matrix<T, 3, 3>;

/**
 * Drake's EigenPtr for the setters' read-only problem data: EigenPtr<const MatrixX<double>> and
 * EigenPtr<const VectorX<double>>. Converts implicitly from nullptr and from a pointer to any
 * Eigen object whose doubles are in memory: MatrixXd / VectorXd, fixed-size matrices and vectors
 * (Matrix<double, 6, 6>, Vector3d), Eigen::Map, blocks of columns, Eigen::Ref. It records the
 * data pointer, the sizes and the column stride at conversion (the C ABI's (pointer, ld) form),
 * as Drake's records an Eigen::Ref: the object must not be resized or freed while the solver
 * borrows it.
 *
 * Layouts the library cannot read without a copy are refused, never copied behind the caller's
 * back: a row-major matrix with more than one row, or a vector whose entries are not adjacent,
 * is a compile error when its type says so and a cts::Error (CTS_STATUS_INVALID_ARGUMENT) from the
 * setter otherwise. (An Eigen::Ref<const MatrixXd> would bind such data through a temporary
 * copy, which a solver that borrows its data cannot keep.)
 */
template <typename PlainObjectType>
class EigenPtr {
  using Plain = std::remove_const_t<PlainObjectType>;
  static_assert(std::is_const<PlainObjectType>::value,
                "cts::EigenPtr is for read-only problem data: EigenPtr<const MatrixX<double>> or "
                "EigenPtr<const VectorX<double>>");
  static_assert(std::is_same<typename Plain::Scalar, double>::value, "cts::EigenPtr: double data only");
  static constexpr bool kVector = Plain::ColsAtCompileTime == 1;

 public:
  /** A null pointer (the setters throw CTS_STATUS_NULL_POINTER for it, where Drake aborts). */
  EigenPtr() noexcept = default;
  /** A null pointer. */
  EigenPtr(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor): Drake's calls pass nullptr

  /** Points at `m` (nullptr allowed): a matrix, vector, Map, Block or Ref of doubles in memory. */
  template <typename Derived>
  EigenPtr(const Derived* m) {  // NOLINT(google-explicit-constructor): Drake's calls pass &M
    static_assert(std::is_base_of<Eigen::MatrixBase<Derived>, Derived>::value,
                  "cts::EigenPtr: point at an Eigen matrix, vector, Map, Block or Ref");
    static_assert(std::is_same<typename Derived::Scalar, double>::value, "cts::EigenPtr: double data only");
    static_assert((int(Derived::Flags) & int(Eigen::DirectAccessBit)) != 0,
                  "cts::EigenPtr: the data must be in memory (a matrix, vector, Map, Block or Ref; "
                  "evaluate an expression into a matrix first)");
    static_assert(!kVector || Derived::RowsAtCompileTime == 1 || Derived::ColsAtCompileTime == 1 ||
                      Derived::RowsAtCompileTime == Eigen::Dynamic || Derived::ColsAtCompileTime == Eigen::Dynamic,
                  "cts::EigenPtr<const VectorX<double>>: point at a vector");
    static_assert(kVector || (int(Derived::Flags) & int(Eigen::RowMajorBit)) == 0 ||
                      Derived::RowsAtCompileTime == 1 || Derived::ColsAtCompileTime == 1,
                  "cts::EigenPtr<const MatrixX<double>>: the library reads matrices column-major; "
                  "pass a column-major matrix (Eigen's default), not a row-major one");
    if (m == nullptr) return;
    null_ = false;
    data_ = m->data();
    rows_ = m->rows();
    cols_ = m->cols();
    const Eigen::Index row_stride = m->rowStride();
    const Eigen::Index col_stride = m->colStride();
    if (kVector) {
      const Eigen::Index n = rows_ * cols_;
      const Eigen::Index step = cols_ == 1 ? row_stride : col_stride;
      readable_ = (rows_ == 1 || cols_ == 1 || n == 0) && (n <= 1 || step == 1);
      rows_ = n;
      cols_ = 1;
      ld_ = rows_ > 0 ? static_cast<std::size_t>(rows_) : 1;
    } else {
      readable_ = rows_ <= 1 || row_stride == 1;
      const Eigen::Index ld = cols_ > 1 ? col_stride : rows_;
      ld_ = ld > 0 ? static_cast<std::size_t>(ld) : 1;
    }
  }

  /** Whether it points at something. */
  explicit operator bool() const noexcept { return !null_; }
  friend bool operator==(const EigenPtr& p, std::nullptr_t) noexcept { return p.null_; }
  friend bool operator!=(const EigenPtr& p, std::nullptr_t) noexcept { return !p.null_; }

  /** The first entry (may be null for an empty matrix that the pointer does point at). */
  const double* data() const noexcept { return data_; }
  /** Rows (a vector's size). */
  Eigen::Index rows() const noexcept { return rows_; }
  /** Columns (1 for a vector). */
  Eigen::Index cols() const noexcept { return cols_; }
  /** Entries of a vector. */
  Eigen::Index size() const noexcept { return rows_ * cols_; }
  /** The column stride in doubles, >= 1: the C ABI's leading dimension. */
  std::size_t ld() const noexcept { return ld_; }
  /** False for a layout the library cannot read in place (rows not adjacent). */
  bool readable() const noexcept { return readable_; }

 private:
  const double* data_{nullptr};
  Eigen::Index rows_{0};
  Eigen::Index cols_{0};
  std::size_t ld_{1};
  bool null_{true};
  bool readable_{true};
};
#endif

/** Drake's TamsiSolverResult, same enumerators and values (kAlphaSolverFailed as in Drake since 2023). */
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
  /** Not Drake's: threads of a solve on block-sparse data, in [0, 256]; 0 or 1 (default) =
   *  sequential. The solver owns the worker threads; results are the sequential bits. */
  int num_threads{0};
};

/** Drake's TamsiSolverIterationStats, with Drake's members. */
struct TamsiSolverIterationStats {
  /** (Internal, as in Drake) Empties the statistics; keeps the capacity of `residuals`. */
  void Reset() {
    num_iterations = 0;
    residuals.clear();
  }
  /** (Internal, as in Drake) Records one Newton update with ‖Δvt‖ = `iteration_residual` (m/s). */
  void Update(double iteration_residual) {
    ++num_iterations;
    residuals.push_back(iteration_residual);
  }
  /** Newton updates performed in the last solve. */
  int num_iterations{0};
  /** Last entry of residuals, m/s; NaN when empty (undefined behaviour in Drake). */
  double vt_residual() const {
    return residuals.empty() ? std::numeric_limits<double>::quiet_NaN() : residuals.back();
  }
  /** ‖Δvt‖ of each update, m/s. */
  std::vector<double> residuals;
};

namespace internal {

/**
 * Drake's internal::TalsLimiter<T> (the transition-aware line search of TAMSI), T = double: the
 * library's per-contact limiter through cts_tamsi_calc_alpha.
 */
template <typename T>
struct TalsLimiter {
  static_assert(std::is_same<T, double>::value, "cts::internal::TalsLimiter<T> exists for T = double only");

  /**
   * The step factor α in (0, 1] for one contact's tangential velocity `v` (m/s) and its Newton
   * update `dv` (m/s), with cos(θmax) `cos_theta_max` in (0, 1), `v_stiction` (m/s, > 0) and
   * `relative_tolerance` in (0, 1); std::nullopt where the limiter has no solution (Drake's
   * nullopt, e.g. non-finite input). Throws cts::Error for a scalar outside its domain (Drake
   * asserts).
   */
  static std::optional<T> CalcAlpha(const T* v, const T* dv, double cos_theta_max, double v_stiction,
                                    double relative_tolerance) {
    double alpha = 0.0;
    const cts_status s = cts_tamsi_calc_alpha(v, dv, cos_theta_max, v_stiction, relative_tolerance, &alpha);
    if (s == CTS_STATUS_OK) return alpha;
    if (s == CTS_STATUS_ALPHA_SOLVER_FAILED) return std::nullopt;
    internal::throw_error(s, cts_last_error_message());
  }

#ifdef CTS_HAVE_EIGEN
  /** Drake's signature: 2-vectors as Eigen::Ref (a Vector2d, a segment<2> of vt, a Map, ...). */
  static std::optional<T> CalcAlpha(const Eigen::Ref<const Vector2<T>>& v, const Eigen::Ref<const Vector2<T>>& dv,
                                    double cos_theta_max, double v_stiction, double relative_tolerance) {
    const Vector2<T> a = v, b = dv;  // contiguous copies: a Ref may have an inner stride
    return CalcAlpha(a.data(), b.data(), cos_theta_max, v_stiction, relative_tolerance);
  }
#endif
};

}  // namespace internal

/**
 * A parameter θ of TAMSI sensitivities (docs/tamsi_sensitivities.md), the CTS_TAMSI_SENSITIVITY_*
 * codes: p* (nv columns; N·s), fn of one-way data, fn0, stiffness k and dissipation d of two-way
 * data, μ (nc columns each; N, N, N/m, s/m, 1) and dt (1 column; s, at fixed p*).
 */
enum class TamsiSensitivityParameter : int32_t {
  kPStar = CTS_TAMSI_SENSITIVITY_P_STAR,
  kNormalForce = CTS_TAMSI_SENSITIVITY_FN,
  kFn0 = CTS_TAMSI_SENSITIVITY_FN0,
  kStiffness = CTS_TAMSI_SENSITIVITY_STIFFNESS,
  kDissipation = CTS_TAMSI_SENSITIVITY_DISSIPATION,
  kMu = CTS_TAMSI_SENSITIVITY_MU,
  kTimeStep = CTS_TAMSI_SENSITIVITY_DT,
};

/**
 * ∂L/∂θ of a scalar L of a TAMSI solve's results, for every parameter at once
 * (TamsiSolver::CalcVectorJacobianProduct). Units: (unit of L)/(unit of θ).
 */
struct TamsiGradient {
  /** ∂L/∂p* (nv). */
  Vector p_star;
  /** ∂L/∂fn one-way, ∂L/∂fn0 two-way (nc). */
  Vector normal;
  /** ∂L/∂k (nc) two-way; empty one-way. */
  Vector stiffness;
  /** ∂L/∂d (nc) two-way; empty one-way. */
  Vector dissipation;
  /** ∂L/∂μ (nc). */
  Vector mu;
  /** ∂L/∂dt at fixed p*. */
  double dt{0.0};
};

/**
 * Drake's TamsiSolver<T> for T = double: compliant contact with regularized friction (one-way and
 * two-way coupling), Newton iterations with the transition-aware limiter.
 *
 * Solves M v = p* + dt·Jnᵀ fn + dt·Jtᵀ ft(v) for the next-step generalized velocities v, with
 * fn given (one-way) or fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊ (two-way). Forces in N.
 *
 * Drake code compiles against it after changing the include and the namespace: the setters take
 * EigenPtr<const MatrixX<T>> / EigenPtr<const VectorX<T>> (fixed-size matrices, Maps, blocks of
 * columns), SolveWithGuess and the getters are const, the contact getters return
 * Eigen::VectorBlock<const VectorX<T>>, get_solver_parameters() a const reference, and before
 * any solve the getters return Drake's zeros instead of throwing. As in Drake, one object must
 * not be used by two threads at once, const methods included (they update the results).
 *
 * Deliberate differences from Drake:
 * - Usage errors (null pointers, inconsistent sizes, parameters outside their domain, a solve
 *   without data) throw cts::Error where Drake aborts, throws std::exception or asserts only in
 *   debug builds; nv = 0 is allowed at construction, ResizeIfNeeded needs nv > 0.
 * - After any outcome every getter holds values evaluated at the returned v (Drake leaves some
 *   stale); the results are copied from the library once per solve (3nv + 6nc doubles), so a
 *   reference a getter returned shows the latest solve, as Drake's do.
 * - Setting problem data or ResizeIfNeeded drops the results: the getters return zeros (v, τ_f,
 *   τ of size nv; vn, fn of size nc; vt, ft of size 2nc) and empty statistics until the next
 *   solve. Drake keeps the previous v, τ_f, τ and returns unspecified contact values there (128
 *   of them before the first set call).
 * - get_capacity() (Drake's TamsiSolverTester::get_capacity) reads the library's per-contact
 *   workspace, which grows at the first solve that needs it (Drake: at the set call).
 * - T = double only (a static_assert); Drake also instantiates AutoDiffXd and symbolic
 *   Expression. The solver is movable (Drake's is neither copyable nor movable).
 */
template <typename T = double>
class TamsiSolver {
  static_assert(std::is_same<T, double>::value,
                "cts::TamsiSolver<T> exists for T = double only: the library solves in double "
                "precision (for derivatives, use ComputeSensitivities / CalcVectorJacobianProduct)");

 public:
#ifdef CTS_HAVE_EIGEN
  /** Type of the nv-sized results: VectorX<T> (Eigen::VectorXd). */
  using ResultVector = VectorX<T>;
  /** Type the contact getters return (Drake's): a block of nc or 2nc entries. */
  using ContactBlock = Eigen::VectorBlock<const VectorX<T>>;
#else
  /** Type of the results without Eigen: std::vector<double>. */
  using ResultVector = std::vector<double>;
  /** Type the contact getters return without Eigen: the vector itself, of nc or 2nc entries. */
  using ContactBlock = const std::vector<double>&;
#endif

  /** A solver for nv generalized velocities (0 allowed). */
  explicit TamsiSolver(int nv) {
    check_global(cts_tamsi_solver_new(to_size(nv), &handle_));
    adopt_handle();
  }

  ~TamsiSolver() { cts_tamsi_solver_free(handle_); }

  TamsiSolver(const TamsiSolver&) = delete;
  TamsiSolver& operator=(const TamsiSolver&) = delete;
  TamsiSolver(TamsiSolver&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)),
        parameters_(other.parameters_),
        nc_(std::exchange(other.nc_, 0)),
        v_(std::move(other.v_)),
        tau_f_(std::move(other.tau_f_)),
        tau_(std::move(other.tau_)),
        vn_(std::move(other.vn_)),
        vt_(std::move(other.vt_)),
        fn_(std::move(other.fn_)),
        ft_(std::move(other.ft_)),
        stats_(std::move(other.stats_)) {}
  TamsiSolver& operator=(TamsiSolver&& other) noexcept {
    if (this != &other) {
      cts_tamsi_solver_free(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
      parameters_ = other.parameters_;
      nc_ = std::exchange(other.nc_, 0);
      v_ = std::move(other.v_);
      tau_f_ = std::move(other.tau_f_);
      tau_ = std::move(other.tau_);
      vn_ = std::move(other.vn_);
      vt_ = std::move(other.vt_);
      fn_ = std::move(other.fn_);
      ft_ = std::move(other.ft_);
      stats_ = std::move(other.stats_);
    }
    return *this;
  }

  /** A deep copy (parameters and workspace, no problem data), e.g. for another thread. */
  std::unique_ptr<TamsiSolver<T>> Clone() const {
    cts_tamsi_solver* copy = nullptr;
    check_global(cts_tamsi_solver_clone(handle_, &copy));
    return std::unique_ptr<TamsiSolver<T>>(new TamsiSolver<T>(copy, parameters_));
  }

  /**
   * Drake's ResizeIfNeeded: changes nv (> 0). Drops the problem data, the results and the
   * coupling-scheme binding (the getters return zeros of the new size). Const as in Drake.
   */
  void ResizeIfNeeded(int nv) const {
    check(cts_tamsi_solver_resize(handle_, to_size(nv)));
    nc_ = 0;
    reset_results();
  }

  /** Number of generalized velocities. */
  int num_velocities() const { return static_cast<int>(cts_tamsi_solver_num_velocities(handle_)); }

  /** Number of contacts of the current problem data. */
  int num_contacts() const { return nc_; }

  /**
   * Contacts the library's per-contact workspace holds without reallocating (Drake's
   * TamsiSolverTester::get_capacity): 128 at first, then the largest nc solved so far.
   */
  int get_capacity() const { return static_cast<int>(cts_tamsi_solver_contact_capacity(handle_)); }

  /**
   * One-way coupled data from raw column-major arrays (see contact_solvers.h): M nv×nv, Jn
   * nc×nv, Jt 2nc×nv with their leading dimensions; p_star nv, fn nc, mu nc. Borrowed.
   */
  void SetOneWayCoupledProblemData(int nc, const double* M, std::size_t ld_M, const double* Jn,
                                   std::size_t ld_Jn, const double* Jt, std::size_t ld_Jt,
                                   const double* p_star, const double* fn, const double* mu) {
    check(cts_tamsi_solver_set_one_way_coupled_problem_data(handle_, to_size(nc), M, ld_M, Jn, ld_Jn,
                                                            Jt, ld_Jt, p_star, fn, mu));
    data_set(nc);
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
    data_set(nc);
  }

  /**
   * One-way coupled data in block-sparse form (docs/block_sparse.md): M and the contact
   * Jacobians per tree (`data`), p_star nv (N·s), fn and mu nc = data.num_contacts(). The Newton
   * matrix is factored per island; same iteration, iterations and results (to round-off) as the
   * dense setters, except that a tree no contact touches is solved exactly. Borrowed, as the
   * dense data; the library validates everything (structure, sizes, finite values, fn, mu >= 0)
   * and throws cts::Error with its message, keeping the previous data.
   */
  void SetOneWayCoupledBlockProblemData(const BlockSparseData& data, const double* p_star, const double* fn,
                                        const double* mu) {
    check(cts_tamsi_solver_set_one_way_coupled_block_problem_data(handle_, data.c_data(), p_star, fn, mu));
    data_set(static_cast<int>(data.num_contacts()));
  }

  /**
   * Two-way coupled data in block-sparse form: as the one-way call, with fn0 (N), stiffness
   * (N/m), dissipation (s/m) and mu per contact. Borrowed.
   */
  void SetTwoWayCoupledBlockProblemData(const BlockSparseData& data, const double* p_star, const double* fn0,
                                        const double* stiffness, const double* dissipation, const double* mu) {
    check(cts_tamsi_solver_set_two_way_coupled_block_problem_data(handle_, data.c_data(), p_star, fn0, stiffness,
                                                                  dissipation, mu));
    data_set(static_cast<int>(data.num_contacts()));
  }

#ifdef CTS_HAVE_EIGEN
  /**
   * SetOneWayCoupledBlockProblemData with Eigen vectors (pointers, as Drake's setters): p_star
   * nv, fn and mu nc = data.num_contacts(). Borrowed.
   */
  void SetOneWayCoupledBlockProblemData(const BlockSparseData& data, EigenPtr<const VectorX<T>> p_star,
                                        EigenPtr<const VectorX<T>> fn, EigenPtr<const VectorX<T>> mu) {
    static constexpr const char* kCall = "SetOneWayCoupledBlockProblemData";
    require_non_null(kCall, {{"p_star", p_star != nullptr}, {"fn", fn != nullptr}, {"mu", mu != nullptr}});
    const auto nc = static_cast<Eigen::Index>(data.num_contacts());
    require_vector(kCall, "p_star", p_star, num_velocities());
    require_vector(kCall, "fn", fn, nc);
    require_vector(kCall, "mu", mu, nc);
    SetOneWayCoupledBlockProblemData(data, p_star.data(), fn.data(), mu.data());
  }

  /** SetTwoWayCoupledBlockProblemData with Eigen vectors: p_star nv; fn0, stiffness, dissipation, mu nc. */
  void SetTwoWayCoupledBlockProblemData(const BlockSparseData& data, EigenPtr<const VectorX<T>> p_star,
                                        EigenPtr<const VectorX<T>> fn0, EigenPtr<const VectorX<T>> stiffness,
                                        EigenPtr<const VectorX<T>> dissipation, EigenPtr<const VectorX<T>> mu) {
    static constexpr const char* kCall = "SetTwoWayCoupledBlockProblemData";
    require_non_null(kCall, {{"p_star", p_star != nullptr}, {"fn0", fn0 != nullptr},
                             {"stiffness", stiffness != nullptr}, {"dissipation", dissipation != nullptr},
                             {"mu", mu != nullptr}});
    const auto nc = static_cast<Eigen::Index>(data.num_contacts());
    require_vector(kCall, "p_star", p_star, num_velocities());
    require_vector(kCall, "fn0", fn0, nc);
    require_vector(kCall, "stiffness", stiffness, nc);
    require_vector(kCall, "dissipation", dissipation, nc);
    require_vector(kCall, "mu", mu, nc);
    SetTwoWayCoupledBlockProblemData(data, p_star.data(), fn0.data(), stiffness.data(), dissipation.data(),
                                     mu.data());
  }
#else
  /** SetOneWayCoupledBlockProblemData with std::vector pointers (sizes checked): p_star nv, fn and mu nc. */
  void SetOneWayCoupledBlockProblemData(const BlockSparseData& data, const std::vector<double>* p_star,
                                        const std::vector<double>* fn, const std::vector<double>* mu) {
    const std::size_t nc = data.num_contacts();
    require_sizes("SetOneWayCoupledBlockProblemData", {{"p_star", p_star, velocities()}, {"fn", fn, nc}, {"mu", mu, nc}});
    SetOneWayCoupledBlockProblemData(data, p_star->data(), fn->data(), mu->data());
  }

  /** SetTwoWayCoupledBlockProblemData with std::vector pointers: p_star nv; fn0, stiffness, dissipation, mu nc. */
  void SetTwoWayCoupledBlockProblemData(const BlockSparseData& data, const std::vector<double>* p_star,
                                        const std::vector<double>* fn0, const std::vector<double>* stiffness,
                                        const std::vector<double>* dissipation, const std::vector<double>* mu) {
    const std::size_t nc = data.num_contacts();
    require_sizes("SetTwoWayCoupledBlockProblemData", {{"p_star", p_star, velocities()}, {"fn0", fn0, nc},
                                                       {"stiffness", stiffness, nc}, {"dissipation", dissipation, nc},
                                                       {"mu", mu, nc}});
    SetTwoWayCoupledBlockProblemData(data, p_star->data(), fn0->data(), stiffness->data(), dissipation->data(),
                                     mu->data());
  }
#endif

#ifdef CTS_HAVE_EIGEN
  /**
   * Drake's SetOneWayCoupledProblemData (Eq. 3): M nv×nv, Jn nc×nv, Jt 2nc×nv, p_star nv, fn and
   * mu nc, nc = fn->size(). Borrowed: the objects must outlive the solves that use them.
   */
  void SetOneWayCoupledProblemData(EigenPtr<const MatrixX<T>> M, EigenPtr<const MatrixX<T>> Jn,
                                   EigenPtr<const MatrixX<T>> Jt, EigenPtr<const VectorX<T>> p_star,
                                   EigenPtr<const VectorX<T>> fn, EigenPtr<const VectorX<T>> mu) {
    static constexpr const char* kCall = "SetOneWayCoupledProblemData";
    require_non_null(kCall, {{"M", M != nullptr}, {"Jn", Jn != nullptr}, {"Jt", Jt != nullptr},
                             {"p_star", p_star != nullptr}, {"fn", fn != nullptr}, {"mu", mu != nullptr}});
    const Eigen::Index nc = fn.size();
    require_shapes(kCall, M, Jn, Jt, p_star, nc);
    require_vector(kCall, "fn", fn, nc);
    require_vector(kCall, "mu", mu, nc);
    SetOneWayCoupledProblemData(static_cast<int>(nc), M.data(), M.ld(), Jn.data(), Jn.ld(), Jt.data(), Jt.ld(),
                                p_star.data(), fn.data(), mu.data());
  }

  /**
   * Drake's SetTwoWayCoupledProblemData (Eq. 10, Drake's fn0 form): as the one-way call with fn0
   * (N), stiffness (N/m), dissipation (s/m) and mu, nc = fn0->size(). Borrowed.
   */
  void SetTwoWayCoupledProblemData(EigenPtr<const MatrixX<T>> M, EigenPtr<const MatrixX<T>> Jn,
                                   EigenPtr<const MatrixX<T>> Jt, EigenPtr<const VectorX<T>> p_star,
                                   EigenPtr<const VectorX<T>> fn0, EigenPtr<const VectorX<T>> stiffness,
                                   EigenPtr<const VectorX<T>> dissipation, EigenPtr<const VectorX<T>> mu) {
    static constexpr const char* kCall = "SetTwoWayCoupledProblemData";
    require_non_null(kCall, {{"M", M != nullptr}, {"Jn", Jn != nullptr}, {"Jt", Jt != nullptr},
                             {"p_star", p_star != nullptr}, {"fn0", fn0 != nullptr},
                             {"stiffness", stiffness != nullptr}, {"dissipation", dissipation != nullptr},
                             {"mu", mu != nullptr}});
    const Eigen::Index nc = fn0.size();
    require_shapes(kCall, M, Jn, Jt, p_star, nc);
    require_vector(kCall, "fn0", fn0, nc);
    require_vector(kCall, "stiffness", stiffness, nc);
    require_vector(kCall, "dissipation", dissipation, nc);
    require_vector(kCall, "mu", mu, nc);
    SetTwoWayCoupledProblemData(static_cast<int>(nc), M.data(), M.ld(), Jn.data(), Jn.ld(), Jt.data(), Jt.ld(),
                                p_star.data(), fn0.data(), stiffness.data(), dissipation.data(), mu.data());
  }

  /**
   * Drake's SolveWithGuess: dt in s, v_guess of size nv (a VectorX<T>, a fixed-size vector, a
   * Map or a segment). Returns the solver outcome; usage errors throw.
   */
  TamsiSolverResult SolveWithGuess(double dt, const Eigen::Ref<const VectorX<T>>& v_guess) const {
    return SolveWithGuess(dt, v_guess.data(), static_cast<std::size_t>(v_guess.size()));
  }
#else
  /** Drake's SolveWithGuess: dt in s, v_guess of size nv. Returns the solver outcome. */
  TamsiSolverResult SolveWithGuess(double dt, const std::vector<double>& v_guess) const {
    return SolveWithGuess(dt, v_guess.data(), v_guess.size());
  }
#endif

  /** SolveWithGuess from a raw guess of nv doubles. */
  TamsiSolverResult SolveWithGuess(double dt, const double* v_guess, std::size_t nv) const {
    const cts_status s = cts_tamsi_solver_solve_with_guess(handle_, dt, v_guess, nv);
    if (s >= CTS_STATUS_OK && s <= CTS_STATUS_ALPHA_SOLVER_FAILED) {
      fetch_results();
      return static_cast<TamsiSolverResult>(s);
    }
    internal::throw_error(s, cts_tamsi_solver_last_error(handle_));
  }

  /**
   * Many worlds in one call (cts_tamsi_solver_solve_batch, docs/c_api.md §1.10): world i is
   * solvers[i]->SolveWithGuess(dts[i], v_guesses[i]), with bit-identical results, run on
   * num_threads threads (0 or 1: in order on this thread). Each solver needs its problem data and
   * may appear once. Returns one status per world: an outcome (CTS_STATUS_OK ... 3, the world's
   * getters then hold its results, as after SolveWithGuess) or that world's usage error (a null
   * solver, a solver listed twice, no data, a bad dt or guess: its results are unchanged and the
   * detail is in its c_handle()'s last error). Throws cts::UsageError when the vectors' sizes
   * differ or the library refuses the call.
   */
  static std::vector<cts_status> SolveBatch(const std::vector<TamsiSolver*>& solvers, const std::vector<double>& dts,
                                            const std::vector<ResultVector>& v_guesses, std::size_t num_threads = 0) {
    const std::size_t n = solvers.size();
    if (dts.size() != n || v_guesses.size() != n) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "SolveBatch: " + std::to_string(n) + " solvers, " +
                                                               std::to_string(dts.size()) + " dts, " +
                                                               std::to_string(v_guesses.size()) + " guesses");
    }
    std::vector<cts_tamsi_solver*> handles(n, nullptr);
    std::vector<const double*> guesses(n, nullptr);
    std::vector<std::size_t> nvs(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      handles[i] = solvers[i] != nullptr ? solvers[i]->handle_ : nullptr;
      guesses[i] = v_guesses[i].data();
      nvs[i] = static_cast<std::size_t>(v_guesses[i].size());
    }
    std::vector<cts_status> statuses(n, CTS_STATUS_PANIC);
    check_global(cts_tamsi_solver_solve_batch(handles.data(), dts.data(), guesses.data(), nvs.data(), n, num_threads,
                                              statuses.data()));
    for (std::size_t i = 0; i < n; ++i) {
      if (solvers[i] != nullptr && statuses[i] >= CTS_STATUS_OK && statuses[i] <= CTS_STATUS_ALPHA_SOLVER_FAILED) {
        solvers[i]->fetch_results();
      }
    }
    return statuses;
  }

  /** Sets (and validates) the parameters; keeps the problem data and results. */
  void set_solver_parameters(const TamsiSolverParameters& p) {
    cts_tamsi_parameters c;
    cts_tamsi_parameters_default(&c);
    c.stiction_tolerance = p.stiction_tolerance;
    c.max_iterations = p.max_iterations;
    c.relative_tolerance = p.relative_tolerance;
    c.theta_max = p.theta_max;
    c.num_threads = p.num_threads;
    check(cts_tamsi_solver_set_parameters(handle_, &c));
    parameters_ = p;
  }

  /** The current parameters (a reference, as in Drake). */
  const TamsiSolverParameters& get_solver_parameters() const { return parameters_; }

  /** Statistics of the last solve (empty before the first one). */
  const TamsiSolverIterationStats& get_iteration_statistics() const { return stats_; }

  /** v (nv; m/s or rad/s) of the last solve; zeros before it. */
  const ResultVector& get_generalized_velocities() const { return v_; }
  /** τ_f = Jtᵀ ft (nv; N or N·m). */
  const ResultVector& get_generalized_friction_forces() const { return tau_f_; }
  /** τ = Jtᵀ ft + Jnᵀ fn (nv; N or N·m). */
  const ResultVector& get_generalized_contact_forces() const { return tau_; }
  /** vn = Jn v (nc; m/s, positive when separating). */
  ContactBlock get_normal_velocities() const { return contact(vn_, nc_); }
  /** vt = Jt v (2nc; m/s). */
  ContactBlock get_tangential_velocities() const { return contact(vt_, 2 * nc_); }
  /** fn (nc; N). */
  ContactBlock get_normal_forces() const { return contact(fn_, nc_); }
  /** ft (2nc; N). */
  ContactBlock get_friction_forces() const { return contact(ft_, 2 * nc_); }

  // ---- Sensitivities (not in Drake; docs/tamsi_sensitivities.md) ------------------------------

  /**
   * Computes the full Jacobians of the last solve's v, fn and ft with respect to every parameter
   * of its scheme (implicit differentiation at the returned v). Throws cts::Error: status
   * CTS_STATUS_NO_SENSITIVITIES when the last solve did not converge, CTS_STATUS_NO_SOLUTION
   * before any solve of the current data.
   */
  void ComputeSensitivities() const { check(cts_tamsi_solver_compute_sensitivities(handle_)); }

  /** ∂v/∂θ after ComputeSensitivities: nv × columns(θ), column-major. */
  DenseMatrix get_velocity_sensitivity(TamsiSensitivityParameter p) const {
    return sensitivity(p, static_cast<std::size_t>(num_velocities()), cts_tamsi_solver_get_velocity_sensitivity);
  }
  /** ∂fn/∂θ after ComputeSensitivities: nc × columns(θ) (N per unit of θ). */
  DenseMatrix get_normal_force_sensitivity(TamsiSensitivityParameter p) const {
    return sensitivity(p, static_cast<std::size_t>(nc_), cts_tamsi_solver_get_normal_force_sensitivity);
  }
  /** ∂ft/∂θ after ComputeSensitivities: 2nc × columns(θ) (N per unit of θ). */
  DenseMatrix get_friction_force_sensitivity(TamsiSensitivityParameter p) const {
    return sensitivity(p, 2 * static_cast<std::size_t>(nc_), cts_tamsi_solver_get_friction_force_sensitivity);
  }

  /** Whether the current problem data is two-way coupled (false without data). */
  bool is_two_way_coupled() const {
    return cts_tamsi_solver_coupling_scheme(handle_) == CTS_TAMSI_COUPLING_TWO_WAY;
  }

  /**
   * Vector–Jacobian product at the last solution: ∂L/∂θ for every θ from ∂L/∂v (nv doubles) and
   * optionally ∂L/∂fn (nc) and ∂L/∂ft (2nc; nullptr means zero). One transposed solve; needs no
   * ComputeSensitivities. Throws cts::Error as ComputeSensitivities, and for wrong sizes.
   */
  TamsiGradient CalcVectorJacobianProduct(const double* dl_dv, std::size_t nv, const double* dl_dfn = nullptr,
                                          const double* dl_dft = nullptr) const {
    const std::size_t nc = static_cast<std::size_t>(nc_);
    const bool two_way = is_two_way_coupled();
    TamsiGradient g;
    g.p_star = internal::make_vector(nv);
    g.normal = internal::make_vector(nc);
    g.mu = internal::make_vector(nc);
    g.stiffness = internal::make_vector(two_way ? nc : 0);
    g.dissipation = internal::make_vector(two_way ? nc : 0);
    check(cts_tamsi_solver_vjp(handle_, dl_dv, nv, dl_dfn, dl_dft, nc, g.p_star.data(), g.normal.data(),
                               two_way ? g.stiffness.data() : nullptr, two_way ? g.dissipation.data() : nullptr,
                               g.mu.data(), &g.dt));
    return g;
  }

#ifdef CTS_HAVE_EIGEN
  /** CalcVectorJacobianProduct with Eigen vectors; empty dl_dfn / dl_dft mean zero. */
  TamsiGradient CalcVectorJacobianProduct(const Eigen::Ref<const VectorX<T>>& dl_dv,
                                          const Eigen::Ref<const VectorX<T>>& dl_dfn = VectorX<T>(),
                                          const Eigen::Ref<const VectorX<T>>& dl_dft = VectorX<T>()) const {
    return CalcVectorJacobianProduct(dl_dv.data(), static_cast<std::size_t>(dl_dv.size()),
                                     optional_gradient("dl_dfn", dl_dfn, nc_),
                                     optional_gradient("dl_dft", dl_dft, 2 * nc_));
  }
#else
  /** CalcVectorJacobianProduct with std::vector; empty dl_dfn / dl_dft mean zero. */
  TamsiGradient CalcVectorJacobianProduct(const std::vector<double>& dl_dv,
                                          const std::vector<double>& dl_dfn = {},
                                          const std::vector<double>& dl_dft = {}) const {
    return CalcVectorJacobianProduct(dl_dv.data(), dl_dv.size(), optional_gradient("dl_dfn", dl_dfn, nc_),
                                     optional_gradient("dl_dft", dl_dft, 2 * nc_));
  }
#endif

  /** The underlying C handle (owned by this object); calls through it bypass the wrapper. */
  cts_tamsi_solver* c_handle() const noexcept { return handle_; }

 private:
  /** Drake's initial workspace capacity, in contacts. */
  static constexpr int kInitialCapacity = 128;

  TamsiSolver(cts_tamsi_solver* handle, const TamsiSolverParameters& parameters)
      : handle_(handle), parameters_(parameters) {
    adopt_handle();
  }

  /** Sizes the results for a new handle; frees it if that throws (no destructor runs then). */
  void adopt_handle() {
    try {
      reset_results();
    } catch (...) {
      cts_tamsi_solver_free(std::exchange(handle_, nullptr));
      throw;
    }
  }

  static std::size_t to_size(int n) {
    if (n < 0) internal::throw_error(CTS_STATUS_INVALID_ARGUMENT, "TamsiSolver: size " + std::to_string(n) + " < 0");
    return static_cast<std::size_t>(n);
  }

  static void check_global(cts_status s) {
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_last_error_message());
  }

  void check(cts_status s) const {
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_tamsi_solver_last_error(handle_));
  }

#ifdef CTS_HAVE_EIGEN
  static void require_non_null(const char* call, std::initializer_list<std::pair<const char*, bool>> args) {
    for (const auto& a : args) {
      if (!a.second) internal::throw_error(CTS_STATUS_NULL_POINTER, std::string(call) + ": " + a.first + " is null");
    }
  }

  static std::string shape(Eigen::Index rows, Eigen::Index cols) {
    return std::to_string(rows) + "x" + std::to_string(cols);
  }

  static void require_matrix(const char* call, const char* name, const EigenPtr<const MatrixX<T>>& m,
                             Eigen::Index rows, Eigen::Index cols) {
    if (m.rows() != rows || m.cols() != cols) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, std::string(call) + ": " + name + " is " + shape(m.rows(), m.cols()) +
                                                     ", expected " + shape(rows, cols));
    }
    if (!m.readable()) {
      internal::throw_error(CTS_STATUS_INVALID_ARGUMENT, std::string(call) + ": " + name +
                                                   " is not column-major with adjacent rows; the library reads "
                                                   "it in place, so pass a column-major matrix or block of columns");
    }
  }

  static void require_vector(const char* call, const char* name, const EigenPtr<const VectorX<T>>& x,
                             Eigen::Index n) {
    if (x.cols() != 1 || x.rows() != n) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, std::string(call) + ": " + name + " has " + std::to_string(x.size()) +
                                                     " entries, expected " + std::to_string(n));
    }
    if (!x.readable()) {
      internal::throw_error(CTS_STATUS_INVALID_ARGUMENT,
                  std::string(call) + ": " + name + " is not a vector of adjacent doubles; the library reads it in place");
    }
  }

  void require_shapes(const char* call, const EigenPtr<const MatrixX<T>>& M, const EigenPtr<const MatrixX<T>>& Jn,
                      const EigenPtr<const MatrixX<T>>& Jt, const EigenPtr<const VectorX<T>>& p_star,
                      Eigen::Index nc) const {
    const Eigen::Index nv = num_velocities();
    require_matrix(call, "M", M, nv, nv);
    require_matrix(call, "Jn", Jn, nc, nv);
    require_matrix(call, "Jt", Jt, 2 * nc, nv);
    require_vector(call, "p_star", p_star, nv);
  }

  static void resize_zero(ResultVector& x, std::size_t n) { x.setZero(static_cast<Eigen::Index>(n)); }
  static ContactBlock contact(const ResultVector& storage, int n) { return storage.head(n); }
#else
  struct SizedVector {
    const char* name;
    const std::vector<double>* x;
    std::size_t n;
  };

  static void require_sizes(const char* call, std::initializer_list<SizedVector> args) {
    for (const auto& a : args) {
      if (a.x == nullptr) internal::throw_error(CTS_STATUS_NULL_POINTER, std::string(call) + ": " + a.name + " is null");
      if (a.x->size() != a.n) {
        internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, std::string(call) + ": " + a.name + " has " +
                                                       std::to_string(a.x->size()) + " entries, expected " +
                                                       std::to_string(a.n));
      }
    }
  }

  std::size_t velocities() const { return cts_tamsi_solver_num_velocities(handle_); }

  static void resize_zero(ResultVector& x, std::size_t n) { x.assign(n, 0.0); }
  static ContactBlock contact(const ResultVector& storage, int) { return storage; }
#endif

  /** Records nc after a successful set call; the library dropped the results. */
  void data_set(int nc) {
    nc_ = nc;
    reset_results();
  }

  /**
   * Zeros of the current sizes (the state after construction, a set call or a resize). With
   * Eigen the contact vectors keep room for max(128, largest nc) contacts, allocated here and
   * never during a solve.
   */
  void reset_results() const {
    const std::size_t nv = cts_tamsi_solver_num_velocities(handle_);
    resize_zero(v_, nv);
    resize_zero(tau_f_, nv);
    resize_zero(tau_, nv);
#ifdef CTS_HAVE_EIGEN
    const std::size_t room = static_cast<std::size_t>(
        std::max<Eigen::Index>({Eigen::Index{kInitialCapacity}, Eigen::Index{nc_}, fn_.size()}));
#else
    const std::size_t room = static_cast<std::size_t>(nc_);
#endif
    resize_zero(vn_, room);
    resize_zero(fn_, room);
    resize_zero(vt_, 2 * room);
    resize_zero(ft_, 2 * room);
    stats_.Reset();
  }

  /** Copies every result of the last solve from the library (after any solver outcome). */
  void fetch_results() const {
    const std::size_t nv = static_cast<std::size_t>(v_.size());
    const std::size_t nc = static_cast<std::size_t>(nc_);
    check(cts_tamsi_solver_get_generalized_velocities(handle_, v_.data(), nv));
    check(cts_tamsi_solver_get_generalized_friction_forces(handle_, tau_f_.data(), nv));
    check(cts_tamsi_solver_get_generalized_contact_forces(handle_, tau_.data(), nv));
    check(cts_tamsi_solver_get_normal_velocities(handle_, vn_.data(), nc));
    check(cts_tamsi_solver_get_tangential_velocities(handle_, vt_.data(), 2 * nc));
    check(cts_tamsi_solver_get_normal_forces(handle_, fn_.data(), nc));
    check(cts_tamsi_solver_get_friction_forces(handle_, ft_.data(), 2 * nc));
    cts_tamsi_iteration_stats c;
    check(cts_tamsi_solver_get_iteration_stats(handle_, &c));
    std::size_t count = 0;
    check(cts_tamsi_solver_get_residuals(handle_, nullptr, 0, &count));
    stats_.residuals.resize(count);
    check(cts_tamsi_solver_get_residuals(handle_, stats_.residuals.data(), count, &count));
    stats_.num_iterations = c.num_iterations;
  }

  using SensitivityGetter = cts_status (*)(const cts_tamsi_solver*, int32_t, double*, std::size_t, std::size_t);

  /** rows × columns(p) from `get` (zeros of that shape if it throws). */
  DenseMatrix sensitivity(TamsiSensitivityParameter p, std::size_t rows, SensitivityGetter get) const {
    std::size_t cols = static_cast<std::size_t>(nc_);
    if (p == TamsiSensitivityParameter::kPStar) cols = static_cast<std::size_t>(num_velocities());
    if (p == TamsiSensitivityParameter::kTimeStep) cols = 1;
#ifdef CTS_HAVE_EIGEN
    DenseMatrix m = DenseMatrix::Zero(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
#else
    DenseMatrix m(rows, cols);
#endif
    check(get(handle_, static_cast<int32_t>(p), m.data(), rows > 0 ? rows : 1, cols));
    return m;
  }

  /** The data of an optional gradient: nullptr when empty, else checked to have n entries. */
  template <typename V>
  static const double* optional_gradient(const char* name, const V& g, int n) {
    if (g.size() == 0) return nullptr;
    if (static_cast<std::size_t>(g.size()) != static_cast<std::size_t>(n)) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, std::string("CalcVectorJacobianProduct: ") + name + " has " +
                                                     std::to_string(g.size()) + " entries, expected " +
                                                     std::to_string(n));
    }
    return g.data();
  }

  cts_tamsi_solver* handle_{nullptr};
  TamsiSolverParameters parameters_;
  mutable int nc_{0};
  mutable ResultVector v_, tau_f_, tau_, vn_, vt_, fn_, ft_;
  mutable TamsiSolverIterationStats stats_;
};

// ============================================================================================
// LCP solvers: Drake's MobyLcpSolver and UnrevisedLemkeSolver.
// ============================================================================================

/**
 * A borrowed dense column-major matrix (data, rows, cols, leading dimension ld >= max(1, rows)),
 * the LCP calls' pointer form. Converts implicitly from an Eigen::MatrixXd when Eigen is
 * available; the matrix must outlive every call that uses the reference (a temporary Eigen
 * expression does not). With Eigen, the LCP calls also take any Eigen dense object directly
 * (their templated overloads; see internal::EigenLcpArgs).
 */
struct MatrixRef {
  const double* data{nullptr};
  std::size_t rows{0};
  std::size_t cols{0};
  std::size_t ld{1};

  MatrixRef() = default;
  /** rows x cols at `data` with leading dimension `ld` (default: max(1, rows)). */
  MatrixRef(const double* d, std::size_t r, std::size_t c, std::size_t l = 0)
      : data(d), rows(r), cols(c), ld(l != 0 ? l : (r > 0 ? r : 1)) {}
#ifdef CTS_HAVE_EIGEN
  /** A view of an Eigen matrix (borrowed). */
  MatrixRef(const Eigen::MatrixXd& m)  // NOLINT(google-explicit-constructor): Drake-style calls
      : data(m.data()),
        rows(static_cast<std::size_t>(m.rows())),
        cols(static_cast<std::size_t>(m.cols())),
        ld(m.rows() > 0 ? static_cast<std::size_t>(m.rows()) : 1) {}
#endif
};

namespace internal {

/** The arguments of one LCP call as the C ABI reads them: M (n×n, column-major), q (n doubles). */
struct LcpArgs {
  MatrixRef M;
  const double* q;
  std::size_t n;
};

inline LcpArgs lcp_args(const MatrixRef& M, const Vector& q) { return {M, q.data(), vector_size(q)}; }

#ifdef CTS_HAVE_EIGEN
template <typename D>
std::true_type is_eigen_dense_test(const Eigen::MatrixBase<D>*);
std::false_type is_eigen_dense_test(...);
/** Whether T is an Eigen dense matrix, vector or expression (or a MatrixBase<D> reference). */
template <typename T>
using IsEigenDense = decltype(is_eigen_dense_test(std::declval<const T*>()));
/** Enables the LCP calls' Eigen overloads when every argument is an Eigen dense object. */
template <typename... Ts>
using EnableIfEigen = std::enable_if_t<std::conjunction<IsEigenDense<Ts>...>::value>;

/** A MatrixRef over the doubles an Eigen::Ref holds (column-major, unit inner stride). */
inline MatrixRef matrix_ref(const Eigen::Ref<const Eigen::MatrixXd>& m) {
  const std::size_t rows = static_cast<std::size_t>(m.rows());
  const std::size_t stride = m.cols() > 1 ? static_cast<std::size_t>(m.outerStride()) : rows;
  return MatrixRef(m.data(), rows, static_cast<std::size_t>(m.cols()), std::max<std::size_t>({stride, rows, 1}));
}

/** Throws DIMENSION_MISMATCH unless `v` is a vector (one row or one column, or empty). */
template <typename V>
const V& vector_arg(const V& v, const char* name) {
  if (v.rows() != 1 && v.cols() != 1 && v.size() != 0) {
    throw_error(CTS_STATUS_DIMENSION_MISMATCH, std::string(name) + " is " + std::to_string(v.rows()) + "x" +
                                                   std::to_string(v.cols()) + ", not a vector");
  }
  return v;
}

/**
 * Eigen arguments of an LCP call, as Drake's `const MatrixX<T>&`/`const VectorX<T>&` parameters
 * take them: fixed-size or dynamic matrices, Maps, blocks, row or column vectors and
 * expressions (Eigen::MatrixBase<Derived>). Objects laid out as the C ABI reads them
 * (column-major, adjacent entries down a column) are read in place; anything else (an expression,
 * a row-major matrix, a row vector of a matrix) is evaluated by Eigen::Ref into a temporary that
 * lives as long as this object, i.e. for the call: an LCP solve reads its data during the call
 * only, so nothing is borrowed past it (unlike the setters of the other solvers).
 */
class EigenLcpArgs {
 public:
  template <typename MT, typename QT>
  EigenLcpArgs(const MT& M, const QT& q) : M_(M), q_(vector_arg(q, "q")) {}
  LcpArgs args() const { return {matrix_ref(M_), q_.data(), static_cast<std::size_t>(q_.size())}; }

 private:
  Eigen::Ref<const Eigen::MatrixXd> M_;
  Eigen::Ref<const Eigen::VectorXd> q_;
};
#endif

}  // namespace internal

/**
 * How an LCP solve ended: kSolved (CTS_STATUS_OK: z passed the residual test of
 * cts_lcp_solver_solve) or one of the LCP outcomes 10..16, 27, 28.
 */
enum class LcpOutcome : int32_t {
  kSolved = CTS_STATUS_OK,
  kRayTermination = CTS_STATUS_LCP_RAY_TERMINATION,
  kZeroToleranceTooLow = CTS_STATUS_LCP_ZERO_TOLERANCE_TOO_LOW,
  kPivotLimit = CTS_STATUS_LCP_PIVOT_LIMIT,
  kCyclingDetected = CTS_STATUS_LCP_CYCLING_DETECTED,
  kLinearSolveFailed = CTS_STATUS_LCP_LINEAR_SOLVE_FAILED,
  kNotASolution = CTS_STATUS_LCP_NOT_A_SOLUTION,
  kRegularizationFailed = CTS_STATUS_LCP_REGULARIZATION_FAILED,
  /** Drake's method returned true but z failed the residual test (z readable). */
  kResidualTestFailed = CTS_STATUS_LCP_RESIDUAL_TEST_FAILED,
  /** Drake's method returned true but z or w is not finite (z readable). */
  kNonFiniteSolution = CTS_STATUS_LCP_NON_FINITE_SOLUTION,
};

/** The algorithms of cts_lcp_solver_solve (see CTS_LCP_ALGORITHM_* in contact_solvers.h). */
enum class LcpAlgorithm : int32_t {
  kLemke = CTS_LCP_ALGORITHM_LEMKE,
  kLemkeRegularized = CTS_LCP_ALGORITHM_LEMKE_REGULARIZED,
  kFast = CTS_LCP_ALGORITHM_FAST,
  kFastRegularized = CTS_LCP_ALGORITHM_FAST_REGULARIZED,
  kUnrevisedLemke = CTS_LCP_ALGORITHM_UNREVISED_LEMKE,
};

/** Parameters of the LCP solvers (cts_lcp_parameters; defaults are Drake's). */
struct LcpSolverParameters {
  /** Moby Lemke pivot tolerance; <= 0: automatic, n·max(1, max|M|)·eps. */
  double pivot_tolerance{-1.0};
  /** Zero tolerance; negative: automatic (Moby n·max|M|·10eps, unrevised n·max|M|·2.2eps). */
  double zero_tolerance{-1.0};
  /** false: Drake's pivoting rules; true: lexicographic anti-cycling Lemke. */
  bool lexicographic_lemke{false};
  /** Moby Lemke pivot limit, >= 0; 0: the rule's default. */
  int max_pivots{0};
  /** Rank-1 updates between refactorizations, >= 0; 0: max(2n, 50). */
  int refactor_interval{0};
  /** SolveLcpLemkeRegularized's shifts 10^e, e = min, min + step, ... while e < max. */
  int lemke_min_exp{-20}, lemke_step_exp{1}, lemke_max_exp{1};
  /** SolveLcpFastRegularized's shifts (both: |e| <= 300, step >= 1, at most 100 shifts). */
  int fast_min_exp{-20}, fast_step_exp{4}, fast_max_exp{20};
  /** true: OK (and Drake's bool) on Drake's verdict alone; false: z must pass the residual test. */
  bool drake_compatible_verdict{false};
  /** Relative tolerance of the residual test; <= 0: 1e-11. */
  double residual_tolerance{-1.0};
};

/**
 * One LCP solver handle (RAII) for every algorithm: solves w = M z + q, z >= 0, w >= 0,
 * zᵀw = 0 (M dense column-major n×n). The workspace is kept between solves; results stay until
 * the next solve. Usage errors throw cts::Error; outcomes are returned.
 */
class LcpSolver {
 public:
  LcpSolver() {
    if (cts_lcp_solver_new(&handle_) != CTS_STATUS_OK) internal::throw_error(CTS_STATUS_PANIC, cts_last_error_message());
  }
  ~LcpSolver() { cts_lcp_solver_free(handle_); }
  LcpSolver(const LcpSolver&) = delete;
  LcpSolver& operator=(const LcpSolver&) = delete;
  LcpSolver(LcpSolver&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  LcpSolver& operator=(LcpSolver&& other) noexcept {
    if (this != &other) {
      cts_lcp_solver_free(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  /** A deep copy (parameters, workspace, results, the unrevised warm start). */
  std::unique_ptr<LcpSolver> Clone() const {
    cts_lcp_solver* copy = nullptr;
    const cts_status s = cts_lcp_solver_clone(handle_, &copy);
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_last_error_message());
    return std::unique_ptr<LcpSolver>(new LcpSolver(copy));
  }

  /** Sets (and validates) the parameters. */
  void set_parameters(const LcpSolverParameters& p) {
    cts_lcp_parameters c;
    cts_lcp_parameters_default(&c);
    c.pivot_tolerance = p.pivot_tolerance;
    c.zero_tolerance = p.zero_tolerance;
    c.lemke_variant = p.lexicographic_lemke ? CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC : CTS_LCP_LEMKE_VARIANT_DRAKE;
    c.max_pivots = p.max_pivots;
    c.refactor_interval = p.refactor_interval;
    c.lemke_min_exp = p.lemke_min_exp;
    c.lemke_step_exp = p.lemke_step_exp;
    c.lemke_max_exp = p.lemke_max_exp;
    c.fast_min_exp = p.fast_min_exp;
    c.fast_step_exp = p.fast_step_exp;
    c.fast_max_exp = p.fast_max_exp;
    c.drake_compatible_verdict = p.drake_compatible_verdict ? 1 : 0;
    c.residual_tolerance = p.residual_tolerance;
    check(cts_lcp_solver_set_parameters(handle_, &c));
    params_ = p;
  }

  /** The current parameters. */
  const LcpSolverParameters& parameters() const { return params_; }

  /**
   * Solves with `algorithm`; `z0` (n doubles) warm-starts kFast only (nullptr: cold start).
   * Returns the outcome; z() and w() hold the result (Drake's failure value after an outcome).
   */
  LcpOutcome Solve(LcpAlgorithm algorithm, const MatrixRef& M, const Vector& q, const double* z0 = nullptr) {
    return SolveArgs(algorithm, internal::lcp_args(M, q), z0);
  }
#ifdef CTS_HAVE_EIGEN
  /**
   * Solve for Eigen arguments of any size type and layout: fixed-size matrices, Maps, blocks,
   * row vectors, Eigen::MatrixBase expressions (read in place when column-major, else evaluated
   * for the call; see internal::EigenLcpArgs).
   */
  template <typename MT, typename QT, typename = internal::EnableIfEigen<MT, QT>>
  LcpOutcome Solve(LcpAlgorithm algorithm, const MT& M, const QT& q, const double* z0 = nullptr) {
    const internal::EigenLcpArgs a(M, q);
    return SolveArgs(algorithm, a.args(), z0);
  }
#endif

  /** z of the last solve. */
  const Vector& z() const { return fetch(z_, cts_lcp_solver_get_z); }
  /** w = M z + q of the last solve. */
  const Vector& w() const { return fetch(w_, cts_lcp_solver_get_w); }
  /** Pivots of the last solve (Drake's get_num_pivots). */
  int get_num_pivots() const { return static_cast<int>(cts_lcp_solver_num_pivots(handle_)); }
  /**
   * What the last solve decided on: Drake's verdict, the residual test's figures, the accepted
   * regularization and the tolerances used (cts_lcp_solve_info). Throws before the first solve.
   */
  cts_lcp_solve_info solve_info() const {
    cts_lcp_solve_info info;
    check(cts_lcp_solver_get_solve_info(handle_, &info));
    return info;
  }
  /** Drake's own verdict on the last solve (true where Drake's method returns true). */
  bool drake_verdict() const { return solve_info().drake_verdict == 1; }
  /** The shift 10^e a regularized solve accepted (0: none). */
  double regularization() const { return solve_info().regularization; }
  /** Moby Lemke's pivot tolerance in the last solve (NaN for fast and unrevised). */
  double pivot_tolerance_used() const { return solve_info().pivot_tolerance; }
  /** The zero tolerance of the last solve. */
  double zero_tolerance_used() const { return solve_info().zero_tolerance; }

  /** Drake's ComputeZeroTolerance: n·max|M|·10 eps (Moby) or n·max|M|·2.2 eps (unrevised). */
  static double ComputeZeroTolerance(const MatrixRef& M, LcpAlgorithm algorithm = LcpAlgorithm::kLemke) {
    if (M.rows != M.cols) internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "M is not square");
    double tol = 0.0;
    const cts_status s = cts_lcp_compute_zero_tolerance(static_cast<int32_t>(algorithm), M.rows, M.data, M.ld, &tol);
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_last_error_message());
    return tol;
  }

  /** Drake's UnrevisedLemkeSolver::IsSolution(M, q, z, zero_tol). */
  static bool IsSolution(const MatrixRef& M, const Vector& q, const Vector& z, double zero_tol = -1.0) {
    return IsSolutionArgs(internal::lcp_args(M, q), z.data(), internal::vector_size(z), zero_tol);
  }

#ifdef CTS_HAVE_EIGEN
  /** ComputeZeroTolerance for an Eigen matrix or expression of any size type. */
  template <typename MT, typename = internal::EnableIfEigen<MT>>
  static double ComputeZeroTolerance(const MT& M, LcpAlgorithm algorithm = LcpAlgorithm::kLemke) {
    const Eigen::Ref<const Eigen::MatrixXd> m(M);
    return ComputeZeroTolerance(internal::matrix_ref(m), algorithm);
  }

  /** IsSolution for Eigen arguments of any size type and layout. */
  template <typename MT, typename QT, typename ZT, typename = internal::EnableIfEigen<MT, QT, ZT>>
  static bool IsSolution(const MT& M, const QT& q, const ZT& z, double zero_tol = -1.0) {
    const internal::EigenLcpArgs a(M, q);
    const Eigen::Ref<const Eigen::VectorXd> zv(internal::vector_arg(z, "z"));
    return IsSolutionArgs(a.args(), zv.data(), static_cast<std::size_t>(zv.size()), zero_tol);
  }
#endif

  /** The underlying C handle (owned by this object). */
  cts_lcp_solver* c_handle() const noexcept { return handle_; }

 protected:
  /** Solves with temporarily changed parameters (Drake's per-call tolerances and exponents). */
  bool SolveWith(const LcpSolverParameters& p, LcpAlgorithm algorithm, const internal::LcpArgs& args, Vector* z,
                 const double* z0 = nullptr) {
    if (z == nullptr) internal::throw_error(CTS_STATUS_NULL_POINTER, "z (output parameter) is null");
    // Sizes first, as Drake's DRAKE_THROW_UNLESS: a usage error leaves the parameters untouched.
    CheckSizes(args);
    const LcpSolverParameters saved = params_;
    set_parameters(p);
    LcpOutcome outcome;
    try {
      outcome = SolveArgs(algorithm, args, z0);
    } catch (...) {
      set_parameters(saved);
      throw;
    }
    set_parameters(saved);
    *z = this->z();
    return outcome == LcpOutcome::kSolved;
  }

 private:
  explicit LcpSolver(cts_lcp_solver* handle) : handle_(handle) {}

  static void CheckSizes(const internal::LcpArgs& a) {
    if (a.M.rows != a.n || a.M.cols != a.n) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "M is " + std::to_string(a.M.rows) + "x" +
                                                               std::to_string(a.M.cols) + ", q has " +
                                                               std::to_string(a.n) + " entries: M must be n×n");
    }
  }

  LcpOutcome SolveArgs(LcpAlgorithm algorithm, const internal::LcpArgs& a, const double* z0) {
    CheckSizes(a);
    const cts_status s = cts_lcp_solver_solve(handle_, static_cast<int32_t>(algorithm), a.n, a.M.data, a.M.ld, a.q, z0);
    if (s >= CTS_STATUS_NULL_POINTER) internal::throw_error(s, cts_lcp_solver_last_error(handle_));
    return static_cast<LcpOutcome>(s);
  }

  static bool IsSolutionArgs(const internal::LcpArgs& a, const double* z, std::size_t z_size, double zero_tol) {
    if (a.M.rows != a.n || a.M.cols != a.n || z_size != a.n) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "sizes of M, q and z do not match");
    }
    int32_t ok = 0;
    const cts_status s = cts_lcp_is_solution(a.n, a.M.data, a.M.ld, a.q, z, zero_tol, &ok);
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_last_error_message());
    return ok == 1;
  }

  void check(cts_status s) const {
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_lcp_solver_last_error(handle_));
  }

  using Getter = cts_status (*)(const cts_lcp_solver*, double*, std::size_t);
  const Vector& fetch(Vector& out, Getter get) const {
    const std::size_t n = cts_lcp_solver_size(handle_);
    if (internal::vector_size(out) != n) out = internal::make_vector(n);
    // A failed solve's non-finite z or w is copied with CTS_STATUS_NON_FINITE_RESULT: readable
    // here as in Drake; the solve's own status already said it failed.
    const cts_status s = get(handle_, out.data(), n);
    if (s != CTS_STATUS_NON_FINITE_RESULT) check(s);
    return out;
  }

  cts_lcp_solver* handle_{nullptr};
  LcpSolverParameters params_;
  mutable Vector z_, w_;
};

/**
 * Drake's solvers::MobyLcpSolver: the same method names, arguments and defaults (the methods
 * are not const here: the handle keeps its workspace). Each returns true when the solve is OK,
 * i.e. Drake's method succeeded and z passed the residual test (Drake's bool exactly with
 * parameters().drake_compatible_verdict; drake_verdict() reports it either way), and writes z
 * (the zero vector after Drake's failures, the last attempt's z after a regularized one, the
 * algorithm's z when only the residual test failed).
 *
 * With Eigen, M and q may be any Eigen dense objects, as Drake's `const Eigen::MatrixXd&`
 * parameters take them: fixed-size matrices, row or column vectors, Maps, blocks and
 * Eigen::MatrixBase expressions (internal::EigenLcpArgs). Usage errors (M not n×n for q of n
 * entries, z null) throw cts::UsageError, a std::logic_error, as Drake's DRAKE_THROW_UNLESS.
 */
class MobyLcpSolver : public LcpSolver {
 public:
  /** Lemke's method (Drake's pivoting rules unless lexicographic_lemke is set). */
  bool SolveLcpLemke(const MatrixRef& M, const Vector& q, Vector* z, double piv_tol = -1.0, double zero_tol = -1.0) {
    return Lemke(internal::lcp_args(M, q), z, piv_tol, zero_tol);
  }

  /** Lemke, then Lemke on M + 10^e I for e = min_exp, min_exp + step_exp, ... while e < max_exp. */
  bool SolveLcpLemkeRegularized(const MatrixRef& M, const Vector& q, Vector* z, int min_exp = -20,
                                unsigned step_exp = 1, int max_exp = 1, double piv_tol = -1.0,
                                double zero_tol = -1.0) {
    return LemkeRegularized(internal::lcp_args(M, q), z, min_exp, step_exp, max_exp, piv_tol, zero_tol);
  }

  /** Principal pivoting; warm-started from *z when z->size() == q.size() (as in Drake). */
  bool SolveLcpFast(const MatrixRef& M, const Vector& q, Vector* z, double zero_tol = -1.0) {
    return Fast(internal::lcp_args(M, q), z, zero_tol);
  }

  /** Principal pivoting with progressive regularization. */
  bool SolveLcpFastRegularized(const MatrixRef& M, const Vector& q, Vector* z, int min_exp = -20,
                               unsigned step_exp = 4, int max_exp = 20, double zero_tol = -1.0) {
    return FastRegularized(internal::lcp_args(M, q), z, min_exp, step_exp, max_exp, zero_tol);
  }

#ifdef CTS_HAVE_EIGEN
  /** SolveLcpLemke for Eigen arguments of any size type and layout (see the class comment). */
  template <typename MT, typename QT, typename = internal::EnableIfEigen<MT, QT>>
  bool SolveLcpLemke(const MT& M, const QT& q, Vector* z, double piv_tol = -1.0, double zero_tol = -1.0) {
    const internal::EigenLcpArgs a(M, q);
    return Lemke(a.args(), z, piv_tol, zero_tol);
  }

  /** SolveLcpLemkeRegularized for Eigen arguments of any size type and layout. */
  template <typename MT, typename QT, typename = internal::EnableIfEigen<MT, QT>>
  bool SolveLcpLemkeRegularized(const MT& M, const QT& q, Vector* z, int min_exp = -20, unsigned step_exp = 1,
                                int max_exp = 1, double piv_tol = -1.0, double zero_tol = -1.0) {
    const internal::EigenLcpArgs a(M, q);
    return LemkeRegularized(a.args(), z, min_exp, step_exp, max_exp, piv_tol, zero_tol);
  }

  /** SolveLcpFast for Eigen arguments of any size type and layout. */
  template <typename MT, typename QT, typename = internal::EnableIfEigen<MT, QT>>
  bool SolveLcpFast(const MT& M, const QT& q, Vector* z, double zero_tol = -1.0) {
    const internal::EigenLcpArgs a(M, q);
    return Fast(a.args(), z, zero_tol);
  }

  /** SolveLcpFastRegularized for Eigen arguments of any size type and layout. */
  template <typename MT, typename QT, typename = internal::EnableIfEigen<MT, QT>>
  bool SolveLcpFastRegularized(const MT& M, const QT& q, Vector* z, int min_exp = -20, unsigned step_exp = 4,
                               int max_exp = 20, double zero_tol = -1.0) {
    const internal::EigenLcpArgs a(M, q);
    return FastRegularized(a.args(), z, min_exp, step_exp, max_exp, zero_tol);
  }
#endif

  /** Drake's reset_num_pivots (the count is that of the last solve here). */
  void reset_num_pivots() {}

 private:
  bool Lemke(const internal::LcpArgs& a, Vector* z, double piv_tol, double zero_tol) {
    LcpSolverParameters p = parameters();
    p.pivot_tolerance = piv_tol;
    p.zero_tolerance = zero_tol;
    return SolveWith(p, LcpAlgorithm::kLemke, a, z);
  }

  bool LemkeRegularized(const internal::LcpArgs& a, Vector* z, int min_exp, unsigned step_exp, int max_exp,
                        double piv_tol, double zero_tol) {
    LcpSolverParameters p = parameters();
    p.pivot_tolerance = piv_tol;
    p.zero_tolerance = zero_tol;
    p.lemke_min_exp = min_exp;
    p.lemke_step_exp = static_cast<int>(step_exp);
    p.lemke_max_exp = max_exp;
    return SolveWith(p, LcpAlgorithm::kLemkeRegularized, a, z);
  }

  bool Fast(const internal::LcpArgs& a, Vector* z, double zero_tol) {
    LcpSolverParameters p = parameters();
    p.zero_tolerance = zero_tol;
    const bool warm = z != nullptr && internal::vector_size(*z) == a.n && a.n > 0;
    Vector z0 = warm ? *z : Vector();
    return SolveWith(p, LcpAlgorithm::kFast, a, z, warm ? z0.data() : nullptr);
  }

  bool FastRegularized(const internal::LcpArgs& a, Vector* z, int min_exp, unsigned step_exp, int max_exp,
                       double zero_tol) {
    LcpSolverParameters p = parameters();
    p.zero_tolerance = zero_tol;
    p.fast_min_exp = min_exp;
    p.fast_step_exp = static_cast<int>(step_exp);
    p.fast_max_exp = max_exp;
    return SolveWith(p, LcpAlgorithm::kFastRegularized, a, z);
  }
};

/**
 * Drake's solvers::UnrevisedLemkeSolver<T> (T = double only): SolveLcpLemke(M, q, &z,
 * &num_pivots, zero_tol), IsSolution and ComputeZeroTolerance. Warm-starts from the previous
 * solve of the same size on this object, as Drake does. Eigen arguments and usage errors as
 * MobyLcpSolver's (std::logic_error for M not n×n, as Drake's). A class template as Drake's, so
 * that UnrevisedLemkeSolver<double> compiles unchanged; the default argument keeps
 * `cts::UnrevisedLemkeSolver solver;` (C++17 deduction) working, and static members are
 * reached as UnrevisedLemkeSolver<>::IsSolution.
 */
template <typename T = double>
class UnrevisedLemkeSolver : public LcpSolver {
  static_assert(std::is_same<T, double>::value, "cts::UnrevisedLemkeSolver<T> exists for T = double only");

 public:
  /** Returns true when z solves the LCP (checked with IsSolution); num_pivots may be nullptr. */
  bool SolveLcpLemke(const MatrixRef& M, const Vector& q, Vector* z, int* num_pivots, double zero_tol = -1.0) {
    return Lemke(internal::lcp_args(M, q), z, num_pivots, zero_tol);
  }

  /** n·max|M|·2.2 eps. */
  static double ComputeZeroTolerance(const MatrixRef& M) {
    return LcpSolver::ComputeZeroTolerance(M, LcpAlgorithm::kUnrevisedLemke);
  }

#ifdef CTS_HAVE_EIGEN
  /** SolveLcpLemke for Eigen arguments of any size type and layout. */
  template <typename MT, typename QT, typename = internal::EnableIfEigen<MT, QT>>
  bool SolveLcpLemke(const MT& M, const QT& q, Vector* z, int* num_pivots, double zero_tol = -1.0) {
    const internal::EigenLcpArgs a(M, q);
    return Lemke(a.args(), z, num_pivots, zero_tol);
  }

  /** ComputeZeroTolerance for an Eigen matrix or expression of any size type. */
  template <typename MT, typename = internal::EnableIfEigen<MT>>
  static double ComputeZeroTolerance(const MT& M) {
    return LcpSolver::ComputeZeroTolerance(M, LcpAlgorithm::kUnrevisedLemke);
  }
#endif

 private:
  bool Lemke(const internal::LcpArgs& a, Vector* z, int* num_pivots, double zero_tol) {
    LcpSolverParameters p = parameters();
    p.zero_tolerance = zero_tol;
    const bool ok = SolveWith(p, LcpAlgorithm::kUnrevisedLemke, a, z);
    if (num_pivots != nullptr) *num_pivots = get_num_pivots();
    return ok;
  }
};

// ============================================================================================
// Rigid constraint solver: Drake's ConstraintSolver with its problem data.
// ============================================================================================

/**
 * A linear operator of the problem data (N_mult, F_transpose_mult, ...): the zero map (Drake's
 * default), a borrowed Jacobian J (`*_mult` operators apply J·x, `*_transpose_mult` operators Jᵀ·x:
 * give the Jacobian itself to both), or a function `Vector(const Vector&)` like Drake's
 * std::function fields. Functions run inside the solve; an exception they throw is rethrown by
 * the solve that called them.
 */
class Operator {
 public:
  using Function = std::function<Vector(const Vector&)>;
  /** Drake's default: the zero map. */
  Operator() = default;
  /** A function y = A(x), e.g. a lambda as in Drake. */
  template <typename F, typename = std::enable_if_t<std::is_convertible<F, Function>::value &&
                                                    !std::is_same<std::decay_t<F>, Operator>::value>>
  Operator(F f)  // NOLINT(google-explicit-constructor): assigned like Drake's std::function fields
      : fn_(std::move(f)) {
    kind_ = fn_ ? kFunction : kZero;
  }
  /** A borrowed Jacobian (rows = constraint count, cols = nv). */
  static Operator Matrix(const MatrixRef& jacobian) {
    Operator o;
    o.kind_ = kMatrix;
    o.matrix_ = jacobian;
    return o;
  }
  bool is_zero() const { return kind_ == kZero; }

 private:
  friend class ConstraintSolver;
  enum Kind { kZero, kMatrix, kFunction };
  Kind kind_{kZero};
  MatrixRef matrix_;
  Function fn_;
};

/** Drake's solve_inertia: x = M⁻¹ b from M (factored), from M⁻¹, or from a function. */
class InertiaSolve {
 public:
  using Function = std::function<Vector(const Vector&)>;
  /** Unset (a solve then throws, as Drake requires solve_inertia). */
  InertiaSolve() = default;
  /** A function b -> M⁻¹ b. */
  template <typename F, typename = std::enable_if_t<std::is_convertible<F, Function>::value &&
                                                    !std::is_same<std::decay_t<F>, InertiaSolve>::value>>
  InertiaSolve(F f)  // NOLINT(google-explicit-constructor)
      : fn_(std::move(f)) {
    kind_ = fn_ ? kFunction : kUnset;
  }
  /** The inertia matrix M itself (SPD, lower triangle read; factored at every call). Borrowed. */
  static InertiaSolve Matrix(const MatrixRef& M) {
    InertiaSolve s;
    s.kind_ = kMatrix;
    s.matrix_ = M;
    return s;
  }
  /** The inverse M⁻¹. Borrowed. */
  static InertiaSolve Inverse(const MatrixRef& M_inverse) {
    InertiaSolve s;
    s.kind_ = kInverse;
    s.matrix_ = M_inverse;
    return s;
  }

 private:
  friend class ConstraintSolver;
  enum Kind { kUnset, kMatrix, kInverse, kFunction };
  Kind kind_{kUnset};
  MatrixRef matrix_;
  Function fn_;
};

/**
 * Drake's ConstraintAccelProblemData (forces): sizes are implied by the vectors (nv = tau.size(),
 * nc = sliding + non-sliding contacts, nr = Σ r, nu = kL.size(), nb = kG.size()). See
 * cts_rigid_solver_set_accel_problem_data for the meaning of every field.
 */
struct ConstraintAccelProblemData {
  /** Drake's constructor takes the generalized-velocity dimension; tau must be sized to it. */
  explicit ConstraintAccelProblemData(int gv_dim = 0) : tau(internal::make_vector(gv_dim < 0 ? 0 : gv_dim)) {}
  bool use_complementarity_problem_solver{true};
  std::vector<int> sliding_contacts;
  std::vector<int> non_sliding_contacts;
  std::vector<int> r;
  Vector mu_sliding, mu_non_sliding;
  Operator G_mult, G_transpose_mult;
  Vector kG;
  Operator N_mult, N_minus_muQ_transpose_mult;
  Vector kN;
  Operator F_mult, F_transpose_mult;
  Vector kF;
  Operator L_mult, L_transpose_mult;
  Vector kL;
  Vector tau;
  InertiaSolve solve_inertia;
};

/**
 * Drake's ConstraintVelProblemData (impulses; forces for the discretized problem): nv = Mv.size(),
 * nc = mu.size(); empty γ vectors mean no regularization. See
 * cts_rigid_solver_set_vel_problem_data.
 */
struct ConstraintVelProblemData {
  explicit ConstraintVelProblemData(int gv_dim = 0) : Mv(internal::make_vector(gv_dim < 0 ? 0 : gv_dim)) {}
  std::vector<int> r;
  Vector mu;
  Operator G_mult, G_transpose_mult;
  Vector kG;
  Operator N_mult, N_transpose_mult;
  Vector kN, gammaN;
  Operator F_mult, F_transpose_mult;
  Vector kF, gammaF, gammaE;
  Operator L_mult, L_transpose_mult;
  Vector kL, gammaL;
  Vector Mv;
  InertiaSolve solve_inertia;
};

/** How a ConstraintSolver solve ended (Drake throws where these are not kSolved). */
enum class RigidOutcome : int32_t {
  kSolved = CTS_STATUS_OK,
  /** "Unable to solve LCP- it may be unsolvable." (acceleration level, discretized). */
  kLcpUnsolvable = CTS_STATUS_RIGID_LCP_UNSOLVABLE,
  /** "Progressively regularized LCP solve failed." (impacts). */
  kRegularizedLcpFailed = CTS_STATUS_RIGID_REGULARIZED_LCP_FAILED,
};

/** Drake-compatibility switches (all false: the corrected behaviour; see cts_rigid_parameters). */
struct ConstraintSolverParameters {
  bool drake_inverse_inertia_blocks{false};
  bool drake_limit_row_transpose{false};
  bool drake_double_gamma{false};
  bool drake_empty_fast_exit{false};
  /** Every switch on: Drake HEAD's numbers. */
  static ConstraintSolverParameters DrakeHead() { return {true, true, true, true}; }
};

/**
 * Drake's ConstraintSolver<double>: rigid contact, friction, limits and bilateral constraints at
 * the acceleration level (SolveConstraintProblem, forces), the velocity level
 * (SolveImpactProblem, impulses) and as a discretized time-stepping problem, with Drake's
 * post-processing. The packed result is cf = [fN (nc) | fF (nr) | fL (nu) | fG (nb)].
 *
 * Each call hands the problem data to the library for that call only, so the data (and the
 * matrices its operators reference) only needs to live through the call. Usage errors throw
 * cts::Error; an exception thrown by an operator function is rethrown; outcomes are returned.
 */
class ConstraintSolver {
 public:
  ConstraintSolver() {
    if (cts_rigid_solver_new(&handle_) != CTS_STATUS_OK) internal::throw_error(CTS_STATUS_PANIC, cts_last_error_message());
  }
  explicit ConstraintSolver(const ConstraintSolverParameters& p) : ConstraintSolver() { set_parameters(p); }
  ~ConstraintSolver() { cts_rigid_solver_free(handle_); }
  ConstraintSolver(const ConstraintSolver&) = delete;
  ConstraintSolver& operator=(const ConstraintSolver&) = delete;
  ConstraintSolver(ConstraintSolver&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  ConstraintSolver& operator=(ConstraintSolver&& other) noexcept {
    if (this != &other) {
      cts_rigid_solver_free(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  /** Sets the Drake-compatibility switches. */
  void set_parameters(const ConstraintSolverParameters& p) {
    cts_rigid_parameters c;
    c.drake_inverse_inertia_blocks = p.drake_inverse_inertia_blocks ? 1 : 0;
    c.drake_limit_row_transpose = p.drake_limit_row_transpose ? 1 : 0;
    c.drake_double_gamma = p.drake_double_gamma ? 1 : 0;
    c.drake_empty_fast_exit = p.drake_empty_fast_exit ? 1 : 0;
    check(cts_rigid_solver_set_parameters(handle_, &c));
  }

  /** Drake's SolveConstraintProblem: forces (N) into *cf. */
  RigidOutcome SolveConstraintProblem(const ConstraintAccelProblemData& data, Vector* cf) {
    Push(data);
    return Finish(cts_rigid_solver_solve_constraint_problem(handle_), cf);
  }

  /** Drake's SolveImpactProblem: impulses (N·s) into *cf. */
  RigidOutcome SolveImpactProblem(const ConstraintVelProblemData& data, Vector* cf) {
    Push(data);
    return Finish(cts_rigid_solver_solve_impact_problem(handle_), cf);
  }

  /** The discretized problem over dt (s): forces (N) into *cf (see cts_rigid_solver_solve_discretized_problem). */
  RigidOutcome SolveDiscretizedProblem(const ConstraintVelProblemData& data, double dt, Vector* cf) {
    Push(data);
    return Finish(cts_rigid_solver_solve_discretized_problem(handle_, dt), cf);
  }

  /** (N − μQ)ᵀfN + FᵀfF + LᵀfL + GᵀfG (nv). */
  void ComputeGeneralizedForceFromConstraintForces(const ConstraintAccelProblemData& data, const Vector& cf,
                                                   Vector* generalized_force) {
    Push(data);
    Compute(cts_rigid_solver_compute_generalized_force_from_constraint_forces, data.tau, cf, generalized_force);
  }
  /** M⁻¹ · the generalized force of cf. */
  void ComputeGeneralizedAccelerationFromConstraintForces(const ConstraintAccelProblemData& data, const Vector& cf,
                                                          Vector* generalized_acceleration) {
    Push(data);
    Compute(cts_rigid_solver_compute_generalized_acceleration_from_constraint_forces, data.tau, cf,
            generalized_acceleration);
  }
  /** M⁻¹(generalized force of cf + tau). */
  void ComputeGeneralizedAcceleration(const ConstraintAccelProblemData& data, const Vector& cf,
                                      Vector* generalized_acceleration) {
    Push(data);
    Compute(cts_rigid_solver_compute_generalized_acceleration, data.tau, cf, generalized_acceleration);
  }
  /** NᵀfN + FᵀfF + LᵀfL + GᵀfG (nv; an empty cf gives zeros). */
  void ComputeGeneralizedForceFromConstraintForces(const ConstraintVelProblemData& data, const Vector& cf,
                                                   Vector* generalized_force) {
    Push(data);
    Compute(cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses, data.Mv, cf, generalized_force);
  }
  /** Δv = M⁻¹ · the generalized impulse of cf; the new velocity is M⁻¹Mv + Δv. */
  void ComputeGeneralizedVelocityChange(const ConstraintVelProblemData& data, const Vector& cf,
                                        Vector* velocity_change) {
    Push(data);
    Compute(cts_rigid_solver_compute_generalized_velocity_change, data.Mv, cf, velocity_change);
  }
  /** (M⁻¹(Mv + dt·gf) − v)/dt for the discretized problem's forces cf. */
  void ComputeGeneralizedAcceleration(const ConstraintVelProblemData& data, const Vector& v, const Vector& cf,
                                      double dt, Vector* generalized_acceleration) {
    Push(data);
    require_out(generalized_acceleration);
    const std::size_t nv = internal::vector_size(data.Mv);
    if (internal::vector_size(v) != nv) internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "v must have nv entries");
    Vector out = internal::make_vector(nv);
    callback_error_ = nullptr;
    Check(cts_rigid_solver_compute_generalized_acceleration_discretized(handle_, v.data(), cf.data(),
                                                                        internal::vector_size(cf), dt, out.data(), nv));
    *generalized_acceleration = std::move(out);
  }

  /** Lemke pivots of the last solve. */
  int num_pivots() const { return static_cast<int>(cts_rigid_solver_num_pivots(handle_)); }
  /** Whether the last impact solve needed the regularized LCP (result not re-verified). */
  bool regularization_used() const { return cts_rigid_solver_regularization_used(handle_) == 1; }
  /** The underlying C handle (owned by this object). */
  cts_rigid_solver* c_handle() const noexcept { return handle_; }

 private:
  struct Context {
    const std::function<Vector(const Vector&)>* fn{nullptr};
    std::exception_ptr* error{nullptr};
    const char* name{""};
  };

  static int32_t Trampoline(void* user_data, const double* in, std::size_t n_in, double* out,
                            std::size_t n_out) noexcept {
    Context* c = static_cast<Context*>(user_data);
    try {
      Vector x = internal::make_vector(n_in);
      for (std::size_t i = 0; i < n_in; ++i) x[static_cast<Eigen_index>(i)] = in[i];
      const Vector y = (*c->fn)(x);
      if (internal::vector_size(y) != n_out) {
        internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, std::string(c->name) + " returned a vector of size " +
                                                       std::to_string(internal::vector_size(y)) + ", expected " +
                                                       std::to_string(n_out));
      }
      for (std::size_t i = 0; i < n_out; ++i) out[i] = y[static_cast<Eigen_index>(i)];
      return 0;
    } catch (...) {
      if (!*c->error) *c->error = std::current_exception();
      return 1;
    }
  }

#ifdef CTS_HAVE_EIGEN
  using Eigen_index = Eigen::Index;
#else
  using Eigen_index = std::size_t;
#endif

  static const double* ptr(const Vector& v) { return internal::vector_size(v) == 0 ? nullptr : v.data(); }

  static void to_indices(const std::vector<int>& in, std::vector<std::size_t>* out, const char* name) {
    out->clear();
    for (int i : in) {
      if (i < 0) internal::throw_error(CTS_STATUS_INVALID_ARGUMENT, std::string(name) + " has a negative entry");
      out->push_back(static_cast<std::size_t>(i));
    }
  }

  static std::size_t sum(const std::vector<std::size_t>& r) {
    std::size_t s = 0;
    for (std::size_t x : r) s += x;
    return s;
  }

  void Operator_(bool accel, int32_t op, const Operator& o, std::size_t rows, std::size_t nv, const char* name) {
    Context& c = contexts_[accel ? 0 : 1][op];
    c.error = &callback_error_;
    c.name = name;
    switch (o.kind_) {
      case Operator::kZero:
        return;
      case Operator::kMatrix:
        if (o.matrix_.rows != rows || o.matrix_.cols != nv) {
          internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, std::string(name) + ": the Jacobian is " +
                                                         std::to_string(o.matrix_.rows) + "x" +
                                                         std::to_string(o.matrix_.cols) + ", expected " +
                                                         std::to_string(rows) + "x" + std::to_string(nv));
        }
        check(accel ? cts_rigid_solver_set_accel_operator_matrix(handle_, op, o.matrix_.data, o.matrix_.ld)
                    : cts_rigid_solver_set_vel_operator_matrix(handle_, op, o.matrix_.data, o.matrix_.ld));
        return;
      case Operator::kFunction:
        c.fn = &o.fn_;
        check(accel ? cts_rigid_solver_set_accel_operator_callback(handle_, op, &Trampoline, &c)
                    : cts_rigid_solver_set_vel_operator_callback(handle_, op, &Trampoline, &c));
        return;
    }
  }

  void Inertia(bool accel, const InertiaSolve& s, std::size_t nv) {
    Context& c = contexts_[accel ? 0 : 1][CTS_RIGID_OPERATOR_SOLVE_INERTIA];
    c.error = &callback_error_;
    c.name = "solve_inertia";
    switch (s.kind_) {
      case InertiaSolve::kUnset:
        return;
      case InertiaSolve::kMatrix:
      case InertiaSolve::kInverse: {
        if (s.matrix_.rows != nv || s.matrix_.cols != nv) {
          internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "solve_inertia: the matrix is not nv x nv");
        }
        const int32_t form = s.kind_ == InertiaSolve::kMatrix ? CTS_RIGID_INERTIA_MATRIX : CTS_RIGID_INERTIA_INVERSE;
        check(accel ? cts_rigid_solver_set_accel_inertia_matrix(handle_, form, s.matrix_.data, s.matrix_.ld)
                    : cts_rigid_solver_set_vel_inertia_matrix(handle_, form, s.matrix_.data, s.matrix_.ld));
        return;
      }
      case InertiaSolve::kFunction:
        c.fn = &s.fn_;
        check(accel ? cts_rigid_solver_set_accel_operator_callback(handle_, CTS_RIGID_OPERATOR_SOLVE_INERTIA, &Trampoline, &c)
                    : cts_rigid_solver_set_vel_operator_callback(handle_, CTS_RIGID_OPERATOR_SOLVE_INERTIA, &Trampoline, &c));
        return;
    }
  }

  void Push(const ConstraintAccelProblemData& d) {
    to_indices(d.sliding_contacts, &sliding_, "sliding_contacts");
    to_indices(d.non_sliding_contacts, &non_sliding_, "non_sliding_contacts");
    to_indices(d.r, &r_, "r");
    const std::size_t ns = sliding_.size(), nns = non_sliding_.size();
    if (internal::vector_size(d.mu_sliding) != ns || internal::vector_size(d.mu_non_sliding) != nns ||
        r_.size() != nns) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "mu_sliding, mu_non_sliding and r must match the contact lists");
    }
    const std::size_t nv = internal::vector_size(d.tau), nc = ns + nns, nr = sum(r_);
    if (internal::vector_size(d.kN) != nc || internal::vector_size(d.kF) != nr) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "kN must have nc entries and kF sum(r)");
    }
    const std::size_t nu = internal::vector_size(d.kL), nb = internal::vector_size(d.kG);
    check(cts_rigid_solver_set_accel_problem_data(
        handle_, nv, ns, sliding_.empty() ? nullptr : sliding_.data(), ptr(d.mu_sliding), nns,
        non_sliding_.empty() ? nullptr : non_sliding_.data(), ptr(d.mu_non_sliding), r_.empty() ? nullptr : r_.data(),
        ptr(d.kN), ptr(d.kF), nu, ptr(d.kL), nb, ptr(d.kG), ptr(d.tau), d.use_complementarity_problem_solver ? 1 : 0));
    Operator_(true, CTS_RIGID_OPERATOR_N_MULT, d.N_mult, nc, nv, "N_mult");
    Operator_(true, CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT, d.N_minus_muQ_transpose_mult, nc, nv,
              "N_minus_muQ_transpose_mult");
    Operator_(true, CTS_RIGID_OPERATOR_F_MULT, d.F_mult, nr, nv, "F_mult");
    Operator_(true, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, d.F_transpose_mult, nr, nv, "F_transpose_mult");
    Operator_(true, CTS_RIGID_OPERATOR_L_MULT, d.L_mult, nu, nv, "L_mult");
    Operator_(true, CTS_RIGID_OPERATOR_L_TRANSPOSE_MULT, d.L_transpose_mult, nu, nv, "L_transpose_mult");
    Operator_(true, CTS_RIGID_OPERATOR_G_MULT, d.G_mult, nb, nv, "G_mult");
    Operator_(true, CTS_RIGID_OPERATOR_G_TRANSPOSE_MULT, d.G_transpose_mult, nb, nv, "G_transpose_mult");
    Inertia(true, d.solve_inertia, nv);
  }

  void Push(const ConstraintVelProblemData& d) {
    to_indices(d.r, &r_, "r");
    const std::size_t nv = internal::vector_size(d.Mv), nc = internal::vector_size(d.mu), nr = sum(r_);
    const std::size_t nu = internal::vector_size(d.kL), nb = internal::vector_size(d.kG);
    const auto optional = [](const Vector& g, std::size_t n) {
      return internal::vector_size(g) == 0 || internal::vector_size(g) == n;
    };
    if (r_.size() != nc || internal::vector_size(d.kN) != nc || internal::vector_size(d.kF) != nr ||
        !optional(d.gammaN, nc) || !optional(d.gammaF, nr) || !optional(d.gammaE, nc) || !optional(d.gammaL, nu)) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH,
                  "r, kN, gammaN, gammaE must have nc = mu.size() entries, kF and gammaF sum(r), gammaL nu");
    }
    check(cts_rigid_solver_set_vel_problem_data(handle_, nv, nc, r_.empty() ? nullptr : r_.data(), ptr(d.mu),
                                                ptr(d.kN), ptr(d.gammaN), ptr(d.kF), ptr(d.gammaF), ptr(d.gammaE),
                                                nu, ptr(d.kL), ptr(d.gammaL), nb, ptr(d.kG), ptr(d.Mv)));
    Operator_(false, CTS_RIGID_OPERATOR_N_MULT, d.N_mult, nc, nv, "N_mult");
    Operator_(false, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, d.N_transpose_mult, nc, nv, "N_transpose_mult");
    Operator_(false, CTS_RIGID_OPERATOR_F_MULT, d.F_mult, nr, nv, "F_mult");
    Operator_(false, CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, d.F_transpose_mult, nr, nv, "F_transpose_mult");
    Operator_(false, CTS_RIGID_OPERATOR_L_MULT, d.L_mult, nu, nv, "L_mult");
    Operator_(false, CTS_RIGID_OPERATOR_L_TRANSPOSE_MULT, d.L_transpose_mult, nu, nv, "L_transpose_mult");
    Operator_(false, CTS_RIGID_OPERATOR_G_MULT, d.G_mult, nb, nv, "G_mult");
    Operator_(false, CTS_RIGID_OPERATOR_G_TRANSPOSE_MULT, d.G_transpose_mult, nb, nv, "G_transpose_mult");
    Inertia(false, d.solve_inertia, nv);
  }

  /** Throws for usage errors and failed callbacks (rethrowing the callback's exception). */
  void Check(cts_status s) {
    if (s == CTS_STATUS_CALLBACK_FAILED && callback_error_) {
      std::exception_ptr e = std::exchange(callback_error_, nullptr);
      std::rethrow_exception(e);
    }
    if (s == CTS_STATUS_CALLBACK_FAILED || s == CTS_STATUS_NON_FINITE_RESULT || s >= CTS_STATUS_NULL_POINTER) {
      internal::throw_error(s, cts_rigid_solver_last_error(handle_));
    }
  }

  RigidOutcome Finish(cts_status s, Vector* cf) {
    Check(s);
    require_out(cf);
    const std::size_t n = cts_rigid_solver_num_constraint_forces(handle_);
    Vector out = internal::make_vector(n);
    check(cts_rigid_solver_get_constraint_forces(handle_, out.data(), n));
    *cf = std::move(out);
    return static_cast<RigidOutcome>(s);
  }

  using ComputeFn = cts_status (*)(cts_rigid_solver*, const double*, std::size_t, double*, std::size_t);
  void Compute(ComputeFn f, const Vector& sized_like, const Vector& cf, Vector* out) {
    require_out(out);
    const std::size_t nv = internal::vector_size(sized_like);
    Vector result = internal::make_vector(nv);
    callback_error_ = nullptr;
    Check(f(handle_, ptr(cf), internal::vector_size(cf), result.data(), nv));
    *out = std::move(result);
  }

  static void require_out(const Vector* out) {
    if (out == nullptr) internal::throw_error(CTS_STATUS_NULL_POINTER, "output parameter is null");
  }

  void check(cts_status s) const {
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_rigid_solver_last_error(handle_));
  }

  cts_rigid_solver* handle_{nullptr};
  std::vector<std::size_t> sliding_, non_sliding_, r_;
  Context contexts_[2][10];
  std::exception_ptr callback_error_;
};

/** Outcome of an interior-point solve: the status values of cts_ipm_solver_solve. */
enum class IpmOutcome : int32_t {
  /** rvio < rtol and bvio < btol (CTS_STATUS_OK). */
  kConverged = CTS_STATUS_OK,
  /** max_iter iterations without meeting the tolerances; results hold the last iterate. */
  kMaxIterationsReached = CTS_STATUS_IPM_MAX_ITERATIONS_REACHED,
  /** A Newton direction was not finite; results hold the last finite iterate. */
  kNonFiniteStep = CTS_STATUS_IPM_NON_FINITE_STEP,
  /** Engine iteration: the best iterate meets 100× the tolerances (not converged). */
  kAlmostConverged = CTS_STATUS_IPM_ALMOST_CONVERGED,
  /** Engine iteration: the stall exit stopped far from the tolerances; results hold the best iterate. */
  kStalled = CTS_STATUS_IPM_STALLED,
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

/**
 * Interior-point parameters (the defaults of cts_ipm_parameters_default: the engine iteration).
 * Validated when set.
 */
struct IpmSolverParameters {
  /** Dojo's reference iteration with the absolute rtol/btol (true) or the engine iteration. */
  bool dojo_compatible{false};
  /** Engine iteration: relative tolerance of the equality residuals (see the C header), > 0. */
  double tolerance{1.0e-8};
  /** Engine iteration: relative tolerance of the complementarity ‖γ∘s‖∞/(P·V), > 0. */
  double complementarity_tolerance{1.0e-6};
  /** Dojo's iteration: tolerance on rvio (∞-norm of the equality residuals), > 0. */
  double rtol{1.0e-6};
  /** Dojo's iteration: tolerance on bvio (∞-norm of the complementarity products γ∘s), > 0. */
  double btol{1.0e-4};
  /** Maximum number of Newton iterations, >= 0 (Dojo's code: 50). */
  int max_iter{100};
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
  /** Backtracking treats rvio at or below max(rvio, 0.1·rtol) as not worse (not Dojo's rule). */
  bool rvio_floor_in_backtracking{false};
  /** Engine iteration: Gondzio centrality correctors per iteration, in [0, 10]. */
  int centrality_correctors{2};
  /** Engine iteration: initial proximal regularization of the impulse block relative to V/P
   *  (vanishes ×0.1 per iteration; never changes the answer), >= 0. */
  double proximal_regularization{1.0e-2};
  /** Engine iteration: normal compliance relative to V/P; 0 = hard contact (default), > 0 = soft
   *  normal contact (a contact carrying γn ends penetrated by h·c·V/P·γn), see the C header. */
  double normal_compliance{0.0};
  /** Engine iteration: the stall exit after this many iterations without 10 % progress, in
   *  [0, 100000]; 0 turns it off. */
  int stall_iterations{20};
  /** Engine iteration: near-rigid regularization β of every contact's normal row (docs/ipm.md
   *  §11.7); 0 = hard contact (default); Engine() sets 1 (a body at rest sinks (β·h/2π)²·g). */
  double near_rigid_beta{0.0};
  /** Engine iteration: tolerance of the scaled natural-map error that kConverged also requires
   *  (docs/ipm.md §11.8), >= 0; 0 turns the test off; Engine() sets 0. */
  double natural_map_tolerance{1.0e-6};
  /** Threads of a solve on block-sparse data, in [0, 256]; 0 or 1 (default) = sequential. The
   *  solver owns the worker threads (docs/performance.md §8); results are the sequential bits. */
  int num_threads{0};

  /** The engine preset (cts_ipm_parameters_engine, docs/ipm.md §11.7): the defaults with
   *  near_rigid_beta = 1 and natural_map_tolerance = 0. */
  static IpmSolverParameters Engine() {
    IpmSolverParameters p;
    p.near_rigid_beta = 1.0;
    p.natural_map_tolerance = 0.0;
    return p;
  }
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
  /** Engine iteration: scaled residual, complementarity and merit of the returned iterate. */
  double residual{0.0};
  double complementarity{0.0};
  double merit{0.0};
  /** Engine iteration: the problem's momentum scale P (N·s) and velocity scale V (m/s). */
  double momentum_scale{0.0};
  double velocity_scale{0.0};
  /** Engine iteration: Gondzio centrality correctors kept over all iterations. */
  int centrality_correctors{0};
  /** Engine iteration: scaled natural-map error of the returned iterate (dimensionless,
   *  docs/ipm.md §11.8), computed at every setting. */
  double natural_map{0.0};
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
  /** Matrix type of the sensitivity getters (cts::DenseMatrix). */
  using Matrix = DenseMatrix;

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
    c.rvio_floor_in_backtracking = p.rvio_floor_in_backtracking ? 1 : 0;
    c.dojo_compatible = p.dojo_compatible ? 1 : 0;
    c.tolerance = p.tolerance;
    c.complementarity_tolerance = p.complementarity_tolerance;
    c.centrality_correctors = p.centrality_correctors;
    c.proximal_regularization = p.proximal_regularization;
    c.normal_compliance = p.normal_compliance;
    c.stall_iterations = p.stall_iterations;
    c.near_rigid_beta = p.near_rigid_beta;
    c.natural_map_tolerance = p.natural_map_tolerance;
    c.num_threads = p.num_threads;
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
    p.rvio_floor_in_backtracking = c.rvio_floor_in_backtracking != 0;
    p.dojo_compatible = c.dojo_compatible != 0;
    p.tolerance = c.tolerance;
    p.complementarity_tolerance = c.complementarity_tolerance;
    p.centrality_correctors = c.centrality_correctors;
    p.proximal_regularization = c.proximal_regularization;
    p.normal_compliance = c.normal_compliance;
    p.stall_iterations = c.stall_iterations;
    p.near_rigid_beta = c.near_rigid_beta;
    p.natural_map_tolerance = c.natural_map_tolerance;
    p.num_threads = c.num_threads;
    return p;
  }

  /**
   * Names the contacts of the problem data solved next (copied; docs/ipm.md §11.5): with
   * warm_start, contacts whose id the previous solve had start from their own previous solution,
   * new ones from the central start. An empty vector clears the ids (warm start by position).
   */
  void SetContactIds(const std::vector<uint64_t>& ids) {
    check(cts_ipm_solver_set_contact_ids(handle_, ids.empty() ? nullptr : ids.data(), ids.size()));
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
      internal::throw_error(CTS_STATUS_NULL_POINTER, "a problem-data pointer is null");
    }
    const Eigen::Index n = M->rows(), nc = static_cast<Eigen::Index>(models.size());
    if (M->cols() != n || Jn->rows() != nc || Jn->cols() != n || Jt->rows() != 2 * nc || Jt->cols() != n ||
        v0->size() != n || tau->size() != n || phi->size() != nc || mu->size() != nc ||
        (vt_offset != nullptr && vt_offset->size() != 2 * nc)) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH,
                  "sizes of M, Jn, Jt, v0, tau, phi, mu, vt_offset do not match n = M.rows() and nc = models.size()");
    }
    SetProblemData(static_cast<int>(n), static_cast<int>(nc), M->data(), internal::ld(*M), Jn->data(),
                   internal::ld(*Jn), Jt->data(), internal::ld(*Jt), v0->data(), tau->data(), h, phi->data(),
                   mu->data(), models.data(), vt_offset != nullptr ? vt_offset->data() : nullptr);
  }
#endif

  /**
   * Problem data in block-sparse form (docs/block_sparse.md; see
   * cts_ipm_solver_set_block_problem_data): M and the contact Jacobians per tree in `data` (the
   * three rows of a contact's block are normal, tangent 1, tangent 2, as the rows i of Jn and 2i,
   * 2i+1 of Jt in the dense setter); v0, tau n = the sum of the tree sizes (m/s, N); h (s); phi
   * (m), mu, models nc = data.num_contacts(); vt_offset 2nc or nullptr. The same iteration as on
   * dense data (iterates equal to round-off), with the Newton matrix factored per island; a tree
   * no contact touches gets v_t = v0_t + M_t⁻¹ h τ_t. Needs IpmNewtonSolve::kCondensed. Borrowed
   * (the model kinds are copied); the library validates everything and throws cts::Error with
   * its message, keeping the previous data.
   */
  void SetBlockProblemData(const BlockSparseData& data, const double* v0, const double* tau, double h,
                           const double* phi, const double* mu, const IpmContactModel* models,
                           const double* vt_offset = nullptr) {
    const std::size_t ncs = data.num_contacts();
    std::vector<int32_t> codes(ncs);
    for (std::size_t i = 0; i < ncs && models != nullptr; ++i) codes[i] = static_cast<int32_t>(models[i]);
    check(cts_ipm_solver_set_block_problem_data(handle_, data.c_data(), v0, tau, h, phi, mu,
                                                models != nullptr ? codes.data() : nullptr, vt_offset,
                                                vt_offset != nullptr ? 2 * ncs : 0));
  }

  /**
   * SetBlockProblemData from pointers to cts::Vector (Eigen::VectorXd, or std::vector<double>
   * under CTS_NO_EIGEN) that must outlive the solves that use them: v0, tau n; phi, mu nc =
   * models.size() = data.num_contacts(); vt_offset 2nc or nullptr; n = the sum of the tree sizes
   * (checked here: the C call takes v0 and tau without lengths; throws
   * CTS_STATUS_DIMENSION_MISMATCH).
   */
  void SetBlockProblemData(const BlockSparseData& data, const Vector* v0, const Vector* tau, double h,
                           const Vector* phi, const Vector* mu, const std::vector<IpmContactModel>& models,
                           const Vector* vt_offset = nullptr) {
    if (!(v0 && tau && phi && mu)) {
      internal::throw_error(CTS_STATUS_NULL_POINTER, "SetBlockProblemData: a problem-data pointer is null");
    }
    // A tree size < 1 is the library's to refuse, with its message (it checks the structure
    // before it reads v0): then n is v0's size.
    const std::size_t trees_n = block_velocities(data), nc = data.num_contacts();
    const std::size_t n = trees_n != 0 ? trees_n : internal::vector_size(*v0);
    if (models.size() != nc || internal::vector_size(*v0) != n || internal::vector_size(*tau) != n || internal::vector_size(*phi) != nc ||
        internal::vector_size(*mu) != nc || (vt_offset != nullptr && internal::vector_size(*vt_offset) != 2 * nc)) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH,
                  "SetBlockProblemData: sizes of v0, tau, phi, mu, models, vt_offset do not match n = " +
                      std::to_string(n) + " (the tree sizes' sum) and nc = data.num_contacts() = " +
                      std::to_string(nc));
    }
    SetBlockProblemData(data, v0->data(), tau->data(), h, phi->data(), mu->data(), models.data(),
                        vt_offset != nullptr ? vt_offset->data() : nullptr);
  }

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

  /**
   * Many worlds in one call (cts_ipm_solver_solve_batch, docs/c_api.md §1.10): world i is
   * solvers[i]->Solve(), or solvers[i]->SolveWithGuess(*v_guesses[i]) when v_guesses is given
   * (one entry per world) and its entry is not null; bit-identical results, run on num_threads
   * threads (0 or 1: in order on this thread). Each solver needs its problem data and may appear
   * once. Returns one status per world: an outcome (see IpmOutcome; the getters then read the
   * world's results) or that world's usage error (a null solver, a solver listed twice, no data,
   * a bad guess; detail in its c_handle()'s last error). Throws cts::UsageError when v_guesses
   * has another size or the library refuses the call.
   */
  static std::vector<cts_status> SolveBatch(const std::vector<IpmSolver*>& solvers, std::size_t num_threads = 0,
                                            const std::vector<const Vector*>* v_guesses = nullptr) {
    const std::size_t n = solvers.size();
    if (v_guesses != nullptr && v_guesses->size() != n) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "SolveBatch: " + std::to_string(n) + " solvers, " +
                                                               std::to_string(v_guesses->size()) + " guesses");
    }
    std::vector<cts_ipm_solver*> handles(n, nullptr);
    std::vector<const double*> guesses(v_guesses != nullptr ? n : 0, nullptr);
    std::vector<std::size_t> ns(guesses.size(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      handles[i] = solvers[i] != nullptr ? solvers[i]->handle_ : nullptr;
      if (v_guesses != nullptr && (*v_guesses)[i] != nullptr) {
        guesses[i] = (*v_guesses)[i]->data();
        ns[i] = internal::vector_size(*(*v_guesses)[i]);
      }
    }
    std::vector<cts_status> statuses(n, CTS_STATUS_PANIC);
    check_global(cts_ipm_solver_solve_batch(handles.data(), v_guesses != nullptr ? guesses.data() : nullptr,
                                            v_guesses != nullptr ? ns.data() : nullptr, n, num_threads,
                                            statuses.data()));
    return statuses;
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
    s.residual = c.residual;
    s.complementarity = c.complementarity;
    s.merit = c.merit;
    s.momentum_scale = c.momentum_scale;
    s.velocity_scale = c.velocity_scale;
    s.centrality_correctors = c.centrality_correctors;
    s.natural_map = c.natural_map;
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

  // n of block data: the sum of the tree sizes; 0 when a tree has < 1 dof or the sizes are
  // missing (the library refuses such data).
  static std::size_t block_velocities(const BlockSparseData& data) {
    const cts_block_sparse_data* c = data.c_data();
    if (c->tree_dofs == nullptr) return 0;
    std::size_t n = 0;
    for (std::size_t t = 0; t < c->num_trees; ++t) {
      if (c->tree_dofs[t] < 1) return 0;
      n += static_cast<std::size_t>(c->tree_dofs[t]);
    }
    return n;
  }

  static std::size_t to_size(int n) {
    if (n < 0) internal::throw_error(CTS_STATUS_INVALID_ARGUMENT, "negative size");
    return static_cast<std::size_t>(n);
  }

  static void check_global(cts_status s) {
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_last_error_message());
  }

  void check(cts_status s) const {
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_ipm_solver_last_error(handle_));
  }

  IpmOutcome outcome(cts_status s) const {
    if (s == CTS_STATUS_OK || s == CTS_STATUS_IPM_MAX_ITERATIONS_REACHED || s == CTS_STATUS_IPM_NON_FINITE_STEP ||
        s == CTS_STATUS_IPM_ALMOST_CONVERGED || s == CTS_STATUS_IPM_STALLED) {
      return static_cast<IpmOutcome>(s);
    }
    internal::throw_error(s, cts_ipm_solver_last_error(handle_));
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

/** Outcome of a Baraff solve call: CTS_STATUS_OK or one of the Baraff statuses (21..39). */
enum class BaraffOutcome : int32_t {
  /** A verified solution (CTS_STATUS_OK). */
  kSolved = CTS_STATUS_OK,
  /** Finished, worst violation above the tolerance; results readable. */
  kInexact = CTS_STATUS_BARAFF_INEXACT,
  /** No event limits the step while driving stats().row: an inconsistent (Painlevé) configuration. */
  kUnboundedRay = CTS_STATUS_BARAFF_UNBOUNDED_RAY,
  /** Cycling safeguards exhausted. */
  kCycling = CTS_STATUS_BARAFF_CYCLING,
  /** Pivot cap reached. */
  kPivotLimit = CTS_STATUS_BARAFF_PIVOT_LIMIT,
  /** Impulse active-set iteration cap reached (ComputeImpulses). */
  kIterationLimit = CTS_STATUS_BARAFF_ITERATION_LIMIT,
  /** Reserved for the iterative variant (not returned by the C API). */
  kFrictionlessFallback = CTS_STATUS_BARAFF_FRICTIONLESS_FALLBACK,
};

/** The set a row ended in (the CTS_BARAFF_SET_* codes). */
enum class BaraffRowSet : int32_t {
  /** C: acceleration condition held as an equality (a friction row here sticks). */
  kClamped = CTS_BARAFF_SET_CLAMPED,
  /** NC: normal row with zero force and a >= 0. */
  kSeparating = CTS_BARAFF_SET_SEPARATING,
  /** S+: friction row at +mu f_n (or boxed row at hi). */
  kAtUpper = CTS_BARAFF_SET_AT_UPPER,
  /** S-: friction row at -mu f_n (or boxed row at lo). */
  kAtLower = CTS_BARAFF_SET_AT_LOWER,
  /** R: deferred row left unresolved. */
  kDeferred = CTS_BARAFF_SET_DEFERRED,
  /** L+: row left locked at its upper bound. */
  kLockedUpper = CTS_BARAFF_SET_LOCKED_UPPER,
  /** L-: row left locked at its lower bound. */
  kLockedLower = CTS_BARAFF_SET_LOCKED_LOWER,
  /** U: not treated (the solve stopped early). */
  kUntreated = CTS_BARAFF_SET_UNTREATED,
};

/** Level of model problem data (the CTS_BARAFF_LEVEL_* codes). */
enum class BaraffLevel : int32_t {
  /** Forces; tau_or_qdot = τ − c; generalized result q̈. */
  kAcceleration = CTS_BARAFF_LEVEL_ACCELERATION,
  /** Impulses; tau_or_qdot = pre-impulse q̇; generalized result q̇⁺. */
  kVelocity = CTS_BARAFF_LEVEL_VELOCITY,
};

/** Baraff solver parameters (see cts_baraff_parameters; the defaults are the library's). */
struct BaraffSolverParameters {
  /** ε of the pivoting comparisons (relative), in (0, 1). */
  double epsilon{1.0e-10};
  /** Singular Schur pivots (relative), in [0, 1). */
  double singular_tolerance{1.0e-9};
  /** Verification tolerance (relative), > 0: above it a solve returns kInexact. */
  double tolerance{1.0e-8};
  /** Restitution e of ComputeImpulses, in [0, 1]. */
  double restitution{0.0};
  /** cDotTol of the impulse calls, m/s, >= 0. */
  double cdot_tolerance{1.0e-6};
  /** Pivot cap of one attempt; 0: 50·m + 50. */
  int max_pivots{0};
  /** Iteration cap of ComputeImpulses; 0: max(100, 4·m). */
  int max_impulse_iterations{0};
  /** Retry an unverified solve with the friction rows in reverse order. */
  bool reverse_retry{true};
};

/** Statistics of the last solve call. */
struct BaraffSolverStats {
  BaraffOutcome outcome{BaraffOutcome::kSolved};
  /** The row an unbounded ray appeared at, -1 otherwise. */
  int row{-1};
  int pivots{0};
  int iterations{0};
  /** Worst relative violation of the row conditions. */
  double worst_violation{0.0};
};

/**
 * The rows of a Baraff problem (§1 of docs/baraff.md): kinds and the parameters the kinds need.
 * Rows are numbered in the order they are added; the Add* calls return the new row's index.
 * The solver copies them at each Set*ProblemData call (they need not outlive it).
 */
class BaraffRows {
 public:
  /** Joint or closure: free force, a = 0. */
  int AddBilateral() { return add(CTS_BARAFF_ROW_BILATERAL, -1, 0.0, 0.0, 0.0); }
  /** Unilateral normal: f >= 0, a >= 0, f a = 0. */
  int AddNormal() { return add(CTS_BARAFF_ROW_NORMAL, -1, 0.0, 0.0, 0.0); }
  /** Static friction along one tangent direction, |f| <= mu f_normal (normal: a normal row's index). */
  int AddFriction(int normal, double mu) { return add(CTS_BARAFF_ROW_FRICTION, normal, mu, 0.0, 0.0); }
  /** Force-limited row, lo <= f <= hi with lo <= 0 <= hi (may be infinite). */
  int AddBoxed(double lo, double hi) { return add(CTS_BARAFF_ROW_BOXED, -1, 0.0, lo, hi); }
  /** Number of rows. */
  int size() const noexcept { return static_cast<int>(kind.size()); }

  /** The C arrays (kind codes, normal indices, mu, lo, hi), one entry per row. */
  std::vector<int32_t> kind, normal;
  std::vector<double> mu, lo, hi;

 private:
  int add(int32_t k, int n, double m, double l, double h) {
    kind.push_back(k);
    normal.push_back(static_cast<int32_t>(n));
    mu.push_back(m);
    lo.push_back(l);
    hi.push_back(h);
    return size() - 1;
  }
};

/**
 * Baraff's pivoting contact solver as modified in Darwin2K (docs/baraff.md): contact forces
 * with static (per-direction) and dynamic (N − μQ) friction, bilateral and force-limited rows;
 * collision impulses by an active set; the consistency impulse for unbounded rays.
 *
 * Matrix interface: SetMatrixProblemData(A, b, rows), a = A f + b. Model interface:
 * SetModelProblemData(level, M, J, τ − c or q̇, rows) plus SetBias / SetSliding /
 * SetStabilization; the solver builds A = J M⁻¹ J_fᵀ and b. Then Solve, ComputeImpulses,
 * ConsistencyImpulse or NeedsImpulse, and the getters. Matrices are borrowed (they must outlive
 * the solves), the rows are copied. Usage errors throw cts::Error; outcomes are returned.
 */
class BaraffSolver {
 public:
  /** Matrix type of composed_matrix() (cts::DenseMatrix). */
  using Matrix = DenseMatrix;

  /** A solver with default parameters. */
  BaraffSolver() { check_global(cts_baraff_solver_new(&handle_)); }

  /** A solver with the given parameters (validated). */
  explicit BaraffSolver(const BaraffSolverParameters& p) : BaraffSolver() { set_solver_parameters(p); }

  ~BaraffSolver() { cts_baraff_solver_free(handle_); }

  BaraffSolver(const BaraffSolver&) = delete;
  BaraffSolver& operator=(const BaraffSolver&) = delete;
  BaraffSolver(BaraffSolver&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), rows_(std::move(other.rows_)) {}
  BaraffSolver& operator=(BaraffSolver&& other) noexcept {
    if (this != &other) {
      cts_baraff_solver_free(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
      rows_ = std::move(other.rows_);
    }
    return *this;
  }

  /** A deep copy (parameters and workspace, no problem data, no results), e.g. for another thread. */
  std::unique_ptr<BaraffSolver> Clone() const {
    cts_baraff_solver* copy = nullptr;
    check_global(cts_baraff_solver_clone(handle_, &copy));
    return std::unique_ptr<BaraffSolver>(new BaraffSolver(copy));
  }

  /** Grows the workspace for m rows and n coordinates (no allocation in later calls up to them). */
  void Reserve(int m, int n) { check(cts_baraff_solver_reserve(handle_, to_size(m), to_size(n))); }

  /** Sets (and validates) the parameters. */
  void set_solver_parameters(const BaraffSolverParameters& p) {
    cts_baraff_parameters c;
    cts_baraff_parameters_default(&c);
    c.epsilon = p.epsilon;
    c.singular_tolerance = p.singular_tolerance;
    c.tolerance = p.tolerance;
    c.restitution = p.restitution;
    c.cdot_tolerance = p.cdot_tolerance;
    c.max_pivots = p.max_pivots;
    c.max_impulse_iterations = p.max_impulse_iterations;
    c.reverse_retry = p.reverse_retry ? 1 : 0;
    check(cts_baraff_solver_set_parameters(handle_, &c));
  }

  /** The current parameters. */
  BaraffSolverParameters get_solver_parameters() const {
    cts_baraff_parameters c;
    check(cts_baraff_solver_get_parameters(handle_, &c));
    BaraffSolverParameters p;
    p.epsilon = c.epsilon;
    p.singular_tolerance = c.singular_tolerance;
    p.tolerance = c.tolerance;
    p.restitution = c.restitution;
    p.cdot_tolerance = c.cdot_tolerance;
    p.max_pivots = c.max_pivots;
    p.max_impulse_iterations = c.max_impulse_iterations;
    p.reverse_retry = c.reverse_retry != 0;
    return p;
  }

  /** Number of rows m of the current problem data. */
  int num_rows() const { return static_cast<int>(cts_baraff_solver_num_rows(handle_)); }
  /** Number of generalized coordinates n of the current model data (0 for matrix data). */
  int num_coordinates() const { return static_cast<int>(cts_baraff_solver_num_coordinates(handle_)); }

  /** Matrix data from raw arrays: A m×m column-major with ld_A, b m (borrowed); m = rows.size(). */
  void SetMatrixProblemData(const double* A, std::size_t ld_A, const double* b, const BaraffRows& rows) {
    BaraffRows copy = rows;
    const std::size_t m = to_size(copy.size());
    check(cts_baraff_solver_set_matrix_problem_data(handle_, m, A, ld_A, b, ptr(copy.kind), ptr(copy.normal),
                                                    ptr(copy.mu), ptr(copy.lo), ptr(copy.hi)));
    rows_ = std::move(copy);  // the C side now borrows the copy's arrays
  }

  /**
   * Model data from raw arrays: M n×n (ld_M), J m×n (ld_J), tau_or_qdot n (τ − c at
   * kAcceleration, q̇ at kVelocity), borrowed; m = rows.size(). Removes bias, sliding and
   * stabilisation.
   */
  void SetModelProblemData(BaraffLevel level, int n, const double* M, std::size_t ld_M, const double* J,
                           std::size_t ld_J, const double* tau_or_qdot, const BaraffRows& rows) {
    BaraffRows copy = rows;
    const std::size_t m = to_size(copy.size());
    check(cts_baraff_solver_set_model_problem_data(handle_, m, to_size(n), M, ld_M, J, ld_J,
                                                   static_cast<int32_t>(level), tau_or_qdot, ptr(copy.kind),
                                                   ptr(copy.normal), ptr(copy.mu), ptr(copy.lo), ptr(copy.hi)));
    rows_ = std::move(copy);
  }

  /** Bias added to b (m doubles, borrowed): J̇ q̇ at acceleration level. */
  void SetBias(const double* bias, std::size_t m) { check(cts_baraff_solver_set_model_bias(handle_, bias, m)); }

  /** Sliding friction (borrowed): Q m×n (ld_Q), mu_d m. */
  void SetSliding(const double* Q, std::size_t ld_Q, const double* mu_d, std::size_t m) {
    check(cts_baraff_solver_set_model_sliding(handle_, Q, ld_Q, mu_d, m));
  }

  /** Baumgarte stabilisation (borrowed): position_error m, velocity_error m or nullptr (no kv term). */
  void SetStabilization(double kp, double kv, const double* position_error, const double* velocity_error,
                        std::size_t m) {
    check(cts_baraff_solver_set_model_stabilization(handle_, kp, kv, position_error,
                                                     velocity_error != nullptr ? 1 : 0, velocity_error, m));
  }

#ifdef CTS_HAVE_EIGEN
  /** Matrix data: pointers to Eigen data that must outlive the solves. */
  void SetMatrixProblemData(const Eigen::MatrixXd* A, const Eigen::VectorXd* b, const BaraffRows& rows) {
    require(A && b);
    const Eigen::Index m = rows.size();
    if (A->rows() != m || A->cols() != m || b->size() != m) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "A must be m×m and b of size m (m = rows.size())");
    }
    SetMatrixProblemData(A->data(), internal::ld(*A), b->data(), rows);
  }

  /** Model data: pointers to Eigen data that must outlive the solves. */
  void SetModelProblemData(BaraffLevel level, const Eigen::MatrixXd* M, const Eigen::MatrixXd* J,
                           const Eigen::VectorXd* tau_or_qdot, const BaraffRows& rows) {
    require(M && J && tau_or_qdot);
    const Eigen::Index m = rows.size(), n = M->rows();
    if (M->cols() != n || J->rows() != m || J->cols() != n || tau_or_qdot->size() != n) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "M must be n×n, J m×n, tau_or_qdot of size n (m = rows.size())");
    }
    SetModelProblemData(level, static_cast<int>(n), M->data(), internal::ld(*M), J->data(), internal::ld(*J),
                        tau_or_qdot->data(), rows);
  }

  /** Bias (must outlive the solves). */
  void SetBias(const Eigen::VectorXd* bias) {
    require(bias != nullptr);
    SetBias(bias->data(), static_cast<std::size_t>(bias->size()));
  }

  /** Sliding friction (must outlive the solves): Q m×n, mu_d m. */
  void SetSliding(const Eigen::MatrixXd* Q, const Eigen::VectorXd* mu_d) {
    require(Q && mu_d);
    if (Q->rows() != mu_d->size() || Q->cols() != num_coordinates()) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "Q must be m×n and mu_d of size m");
    }
    SetSliding(Q->data(), internal::ld(*Q), mu_d->data(), static_cast<std::size_t>(mu_d->size()));
  }

  /** Baumgarte stabilisation (must outlive the solves); velocity_error may be nullptr. */
  void SetStabilization(double kp, double kv, const Eigen::VectorXd* position_error,
                        const Eigen::VectorXd* velocity_error = nullptr) {
    require(position_error != nullptr);
    if (velocity_error != nullptr && velocity_error->size() != position_error->size()) {
      internal::throw_error(CTS_STATUS_DIMENSION_MISMATCH, "position_error and velocity_error differ in size");
    }
    SetStabilization(kp, kv, position_error->data(), velocity_error ? velocity_error->data() : nullptr,
                     static_cast<std::size_t>(position_error->size()));
  }
#endif

  /** §3 pivoting on the current data (forces, or impulses at velocity level). */
  BaraffOutcome Solve() { return outcome(cts_baraff_solver_solve(handle_)); }

  /** §8 active-set impulses on velocity-level model data (bilateral and normal rows). */
  BaraffOutcome ComputeImpulses() { return outcome(cts_baraff_solver_compute_impulses(handle_)); }

  /** §7 consistency impulse on velocity-level model data, the contact of row sticking_normal sticking. */
  BaraffOutcome ConsistencyImpulse(int sticking_normal) {
    return outcome(cts_baraff_solver_consistency_impulse(handle_, to_size(sticking_normal)));
  }

  /** §8 needsImpulse on velocity-level model data. */
  bool NeedsImpulse() {
    int32_t out = 0;
    check(cts_baraff_solver_needs_impulse(handle_, &out));
    return out != 0;
  }

  /** Row forces f (m; N, or N·s at velocity level). */
  const Vector& forces() const { return fetch(f_, num_rows(), cts_baraff_solver_get_forces); }
  /** Row accelerations a = A f + b (m; post-impulse velocities at velocity level). */
  const Vector& accelerations() const { return fetch(a_, num_rows(), cts_baraff_solver_get_accelerations); }
  /** q̈ or q̇⁺ (n), model data only. */
  const Vector& generalized_result() const {
    return fetch(q_, num_coordinates(), cts_baraff_solver_get_generalized_result);
  }
  /** M⁻¹ J_fᵀ f (n): Δq̇ of an impulse, model data only. */
  const Vector& generalized_change() const {
    return fetch(dq_, num_coordinates(), cts_baraff_solver_get_generalized_change);
  }
  /** −μ_d f per row (m), model data only. */
  const Vector& sliding_friction_forces() const {
    return fetch(sf_, num_rows(), cts_baraff_solver_get_sliding_friction_forces);
  }
  /** b as composed from the model (m). */
  const Vector& composed_b() const { return fetch(b_, num_rows(), cts_baraff_solver_get_composed_b); }

  /** A = J M⁻¹ J_fᵀ as composed from the model (m×m). */
  Matrix composed_matrix() const {
    const std::size_t m = static_cast<std::size_t>(num_rows());
#ifdef CTS_HAVE_EIGEN
    Matrix A(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(m));
#else
    Matrix A(m, m);
#endif
    double scratch = 0.0;
    check(cts_baraff_solver_get_composed_matrix(handle_, m > 0 ? A.data() : &scratch, m > 0 ? m : 1));
    return A;
  }

  /** The set each row ended in (m). */
  std::vector<BaraffRowSet> row_sets() const {
    const std::size_t m = static_cast<std::size_t>(num_rows());
    std::vector<int32_t> codes(m);
    check(cts_baraff_solver_get_row_sets(handle_, codes.data(), m));
    std::vector<BaraffRowSet> sets(m);
    for (std::size_t i = 0; i < m; ++i) sets[i] = static_cast<BaraffRowSet>(codes[i]);
    return sets;
  }

  /** Statistics of the last solve call. */
  BaraffSolverStats stats() const {
    cts_baraff_stats c;
    check(cts_baraff_solver_get_stats(handle_, &c));
    BaraffSolverStats s;
    s.outcome = static_cast<BaraffOutcome>(c.status);
    s.row = c.row;
    s.pivots = c.pivots;
    s.iterations = c.iterations;
    s.worst_violation = c.worst_violation;
    return s;
  }

  /** The underlying C handle (owned by this object). */
  cts_baraff_solver* c_handle() const noexcept { return handle_; }

 private:
  explicit BaraffSolver(cts_baraff_solver* handle) : handle_(handle) {}

  static std::size_t to_size(int n) {
    if (n < 0) internal::throw_error(CTS_STATUS_INVALID_ARGUMENT, "negative size or index");
    return static_cast<std::size_t>(n);
  }

  template <typename T>
  static const T* ptr(const std::vector<T>& v) {
    return v.empty() ? nullptr : v.data();
  }

  static void check_global(cts_status s) {
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_last_error_message());
  }

  void check(cts_status s) const {
    if (s != CTS_STATUS_OK) internal::throw_error(s, cts_baraff_solver_last_error(handle_));
  }

  BaraffOutcome outcome(cts_status s) const {
    if (s == CTS_STATUS_OK || (s >= 20 && s < 40)) return static_cast<BaraffOutcome>(s);
    internal::throw_error(s, cts_baraff_solver_last_error(handle_));
  }

  static void require(bool all_non_null) {
    if (!all_non_null) internal::throw_error(CTS_STATUS_NULL_POINTER, "a problem-data pointer is null");
  }

  using Getter = cts_status (*)(const cts_baraff_solver*, double*, std::size_t);

  const Vector& fetch(Vector& out, int n, Getter get) const {
    const std::size_t len = static_cast<std::size_t>(n);
    if (internal::vector_size(out) != len) out = internal::make_vector(len);
    check(get(handle_, out.data(), len));
    return out;
  }

  cts_baraff_solver* handle_{nullptr};
  BaraffRows rows_;  // the rows the C side borrows
  mutable Vector f_, a_, q_, dq_, sf_, b_;
};

}  // namespace cts

#endif  // CONTACT_SOLVERS_HPP
