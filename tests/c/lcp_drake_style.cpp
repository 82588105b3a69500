// Drake-style LCP code against the C++ wrapper: written as code inside drake::solvers calls
// MobyLcpSolver and UnrevisedLemkeSolver<double> (fixed-size matrices and vectors, row vectors,
// Maps, blocks, row-major matrices and Eigen::MatrixBase<Derived> expressions passed straight to
// the solve calls; Drake's solve signatures with their defaults; the static ComputeZeroTolerance
// and IsSolution; usage errors caught as std::logic_error), with only the include and the
// namespace changed:
//   #include <drake/solvers/moby_lcp_solver.h>  ->  #include "contact_solvers.hpp"
//   namespace drake { namespace solvers {       ->  namespace cts {
// The problems are this file's own, each with its answer worked by hand in the comment above it.
// Prints its counts and exits 0 when every check passes.
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "contact_solvers.hpp"

int SecondTranslationUnitLcpDrakeStyle();

namespace {
int checks = 0;
int failures = 0;
}  // namespace

#define CHECK(cond)                                          \
  do {                                                       \
    ++checks;                                                \
    if (!(cond)) {                                           \
      ++failures;                                            \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond);  \
    }                                                        \
  } while (0)

namespace cts {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// Drake's tests compare z with 1e-6 (Moby) and 5e-14 (unrevised), absolute, entry by entry.
constexpr double kTol = 5e-14;

template <typename A, typename B>
bool Near(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b, double tol) {
  return a.rows() == b.rows() && a.cols() == b.cols() && ((a - b).array().abs() <= tol).all();
}

// M = [[4, 1, 0], [1, 4, 1], [0, 1, 4]], q = (−5, −6, 10). With z₃ = 0, rows 1–2 give
// [[4, 1], [1, 4]] z = (5, 6): z = (14/15, 19/15, 0), and w₃ = 19/15 + 10 = 169/15 > 0.
Eigen::Matrix3d Tridiagonal() {
  Eigen::Matrix3d M;
  M << 4, 1, 0, 1, 4, 1, 0, 1, 4;
  return M;
}
const Eigen::Vector3d kQ(-5, -6, 10);
const Eigen::Vector3d kZ(14.0 / 15, 19.0 / 15, 0);

// As Drake's tests call the solvers: through a function template over Eigen::MatrixBase<Derived>.
template <typename Derived>
bool RunAllMoby(const Eigen::MatrixBase<Derived>& M, const Eigen::VectorXd& q, const Eigen::VectorXd& expected_z) {
  MobyLcpSolver l;
  Eigen::VectorXd z;
  bool all = true;
  all = l.SolveLcpLemke(M, q, &z) && Near(z, expected_z, kTol) && l.get_num_pivots() > 0 && all;
  all = l.SolveLcpLemkeRegularized(M, q, &z) && Near(z, expected_z, kTol) && all;
  z.resize(0);
  all = l.SolveLcpFast(M, q, &z) && Near(z, expected_z, kTol) && all;
  all = l.SolveLcpFastRegularized(M, q, &z) && Near(z, expected_z, kTol) && all;
  return all;
}

template <typename Derived>
bool RunUnrevised(const Eigen::MatrixBase<Derived>& M, const Eigen::VectorXd& q, const Eigen::VectorXd& expected_z) {
  UnrevisedLemkeSolver<double> l;
  Eigen::VectorXd z;
  int num_pivots = -1;
  return l.SolveLcpLemke(M, q, &z, &num_pivots) && Near(z, expected_z, kTol) && num_pivots > 0;
}

// Fixed-size matrices and vectors (Matrix3d, Vector3d, a row vector, Matrix<double, 1, 1>),
// each passed straight to every solve call and through a MatrixBase<Derived> template.
void FixedSizeMatricesAndVectors() {
  const Eigen::Matrix3d M = Tridiagonal();
  CHECK(RunAllMoby(M, kQ, kZ));
  CHECK(RunUnrevised(M, kQ, kZ));

  MobyLcpSolver moby;
  Eigen::VectorXd z;
  const Eigen::RowVector3d q_row = kQ.transpose();
  CHECK(moby.SolveLcpLemke(M, q_row, &z) && Near(z, kZ, kTol));
  CHECK(moby.SolveLcpFast(M, q_row, &z) && Near(z, kZ, kTol));
  // w = M z + q = (0, 0, 169/15).
  CHECK(Near(moby.w(), Eigen::Vector3d(0, 0, 169.0 / 15), kTol));

  // README's 2×2: [[2, 1], [1, 2]] z = (5, 6) gives z = (4/3, 7/3).
  const Eigen::Matrix2d M2 = (Eigen::Matrix2d() << 2, 1, 1, 2).finished();
  const Eigen::Vector2d q2(-5, -6);
  UnrevisedLemkeSolver<double> unrevised;
  int num_pivots = -1;
  CHECK(unrevised.SolveLcpLemke(M2, q2, &z, &num_pivots, 1e-14));
  CHECK(Near(z, Eigen::Vector2d(4.0 / 3, 7.0 / 3), kTol) && num_pivots == 2);

  // −z − 1 ≥ 0 has no z ≥ 0: false and z = 0 (Drake's failure value), for both solvers.
  const Eigen::Matrix<double, 1, 1> neg = Eigen::Matrix<double, 1, 1>::Constant(-1.0);
  z = Eigen::VectorXd::Constant(1, 7.0);
  CHECK(!moby.SolveLcpLemke(neg, neg, &z) && z.size() == 1 && z[0] == 0.0);
  CHECK(!unrevised.SolveLcpLemke(neg, neg, &z, &num_pivots) && z.size() == 1 && z[0] == 0.0);

  // Empty fixed-size problems solve trivially with an empty z.
  const Eigen::Matrix<double, 0, 0> M0;
  const Eigen::Matrix<double, 0, 1> q0;
  CHECK(moby.SolveLcpLemke(M0, q0, &z) && z.size() == 0);
  CHECK(moby.SolveLcpFastRegularized(M0, q0, &z) && z.size() == 0);
  CHECK(unrevised.SolveLcpLemke(M0, q0, &z, &num_pivots) && z.size() == 0);
}

// Eigen expressions (products, sums, transposes), Maps, blocks of a larger matrix, a row-major
// matrix: evaluated for the call or read in place, with the same answers.
void ExpressionsMapsAndBlocks() {
  const Eigen::Matrix3d M = Tridiagonal();
  // (2M) z + 2q = 2 (M z + q): the same z.
  CHECK(RunAllMoby(2.0 * M, 2.0 * kQ, kZ));
  CHECK(RunUnrevised(2.0 * M, 2.0 * kQ, kZ));
  // M is symmetric: Mᵀ gives the same z.
  CHECK(RunAllMoby(M.transpose(), kQ, kZ));

  // M + I = [[5, 1, 0], [1, 5, 1], [0, 1, 5]]: [[5, 1], [1, 5]] z = (5, 6) gives
  // z = (19/24, 25/24, 0), w₃ = 25/24 + 10 > 0.
  const Eigen::Vector3d z_shifted(19.0 / 24, 25.0 / 24, 0);
  MobyLcpSolver moby;
  Eigen::VectorXd z;
  CHECK(moby.SolveLcpLemke(M + Eigen::Matrix3d::Identity(), kQ.transpose(), &z) && Near(z, z_shifted, kTol));
  UnrevisedLemkeSolver<double> unrevised;
  int num_pivots = -1;
  CHECK(unrevised.SolveLcpLemke(M + Eigen::Matrix3d::Identity(), kQ.array().matrix(), &z, &num_pivots));
  CHECK(Near(z, z_shifted, kTol));

  // The top-left 3×3 block of a 5×5 (column stride 5) and a Map with an outer stride: in place.
  Eigen::Matrix<double, 5, 5> big = Eigen::Matrix<double, 5, 5>::Constant(99.0);
  big.topLeftCorner<3, 3>() = M;
  CHECK(RunAllMoby(big.topLeftCorner<3, 3>(), kQ, kZ));
  CHECK(RunUnrevised(big.block(0, 0, 3, 3), kQ, kZ));
  const Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> mapped(big.data(), 3, 3, Eigen::OuterStride<>(5));
  CHECK(RunAllMoby(mapped, kQ, kZ));
  const Eigen::Map<const Eigen::Vector3d> q_map(kQ.data());
  CHECK(moby.SolveLcpFast(mapped, q_map, &z) && Near(z, kZ, kTol));
  // q as a column of a matrix (a block expression).
  Eigen::Matrix<double, 3, 2> qs;
  qs.col(0) = kQ;
  qs.col(1) = 2.0 * kQ;
  CHECK(moby.SolveLcpLemke(M, qs.col(1), &z) && Near(z, 2.0 * kZ, kTol));

  // A row-major matrix is evaluated for the call (the LCP reads it during the call only).
  const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> M_row = M + Eigen::Matrix3d::Identity();
  CHECK(moby.SolveLcpFastRegularized(M_row, kQ, &z) && Near(z, z_shifted, kTol));

  // The pointer form still reads caller memory in place: MatrixRef plus VectorXd.
  const MatrixRef M_ref(big.data(), 3, 3, 5);
  CHECK(moby.SolveLcpLemke(M_ref, Eigen::VectorXd(kQ), &z) && Near(z, kZ, kTol));
}

// Drake's other calls: per-call tolerances and exponents with their defaults, the warm start of
// the unrevised solver (2q again: exactly one pivot), ComputeZeroTolerance and IsSolution as
// static members taking any Eigen matrix.
void SolveSignaturesAndStatics() {
  const Eigen::Matrix3d M = Tridiagonal();
  MobyLcpSolver moby;
  Eigen::VectorXd z;
  CHECK(moby.SolveLcpLemke(M, kQ, &z, 1e-12, 1e-12) && Near(z, kZ, kTol));
  CHECK(moby.zero_tolerance_used() == 1e-12 && moby.pivot_tolerance_used() == 1e-12);
  CHECK(moby.SolveLcpLemkeRegularized(M, kQ, &z, -16, 2, 1, -1.0, -1.0) && Near(z, kZ, kTol));
  CHECK(moby.SolveLcpFast(M, kQ, &z, 1e-12) && Near(z, kZ, kTol));
  CHECK(moby.SolveLcpFastRegularized(M, kQ, &z, -16, 4, 8, 1e-12) && Near(z, kZ, kTol));
  // The per-call values do not stick: the object's parameters are Drake's defaults again.
  CHECK(moby.parameters().zero_tolerance == -1.0 && moby.parameters().fast_min_exp == -20);

  // [[1, 1], [1, 1]] z = (1, 1) is singular: every z ≥ 0 on z₁ + z₂ = 1 solves it; the
  // regularized solves return one of them.
  const Eigen::Matrix2d ones = Eigen::Matrix2d::Ones();
  const Eigen::RowVector2d minus_ones(-1, -1);
  CHECK(moby.SolveLcpLemkeRegularized(ones, minus_ones, &z));
  CHECK(z.size() == 2 && z.minCoeff() >= 0.0 && std::abs(z.sum() - 1.0) <= 1e-6);
  CHECK(UnrevisedLemkeSolver<double>::IsSolution(ones, minus_ones, z, 1e-6));

  UnrevisedLemkeSolver<double> unrevised;
  int first = -1;
  int second = -1;
  CHECK(unrevised.SolveLcpLemke(M, kQ, &z, &first) && Near(z, kZ, kTol) && first > 0);
  CHECK(unrevised.SolveLcpLemke(M, 2.0 * kQ, &z, &second) && Near(z, 2.0 * kZ, kTol));
  CHECK(second == 1);
  // num_pivots may be null.
  CHECK(unrevised.SolveLcpLemke(M, kQ, &z, nullptr, 1e-15) && Near(z, kZ, kTol));

  // n·max|M|·2.2 eps (unrevised) and n·max|M|·10 eps (Moby): n = 3, max|M| = 4, or 8 for 2M.
  CHECK(std::abs(UnrevisedLemkeSolver<double>::ComputeZeroTolerance(M) - 3 * 4 * 2.2 * kEps) < 1e-30);
  CHECK(std::abs(UnrevisedLemkeSolver<double>::ComputeZeroTolerance(2.0 * M) - 3 * 8 * 2.2 * kEps) < 1e-30);
  CHECK(std::abs(MobyLcpSolver::ComputeZeroTolerance(M) - 3 * 4 * 10 * kEps) < 1e-30);
  CHECK(unrevised.IsSolution(M, kQ, kZ));
  CHECK(UnrevisedLemkeSolver<double>::IsSolution(M, kQ.transpose(), kZ.transpose(), 1e-12));
  // Off by 1e-3 in z₁: w₁ = −4e-3 < 0.
  CHECK(!UnrevisedLemkeSolver<double>::IsSolution(M, kQ, kZ - Eigen::Vector3d(1e-3, 0, 0)));
}

template <typename F>
std::string LogicErrorOf(F&& f, cts_status want) {
  try {
    f();
  } catch (const std::logic_error& e) {
    const Error* error = dynamic_cast<const Error*>(&e);
    if (error == nullptr || error->status() != want) return "wrong status";
    return e.what();
  } catch (...) {
    return "not a std::logic_error";
  }
  return "no exception";
}

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Usage errors derive from std::logic_error as Drake's DRAKE_THROW_UNLESS does, carry the status
// and leave the solver usable; a failure of a correct call would be a std::runtime_error.
void UsageErrorsAreLogicErrors() {
  static_assert(std::is_base_of<std::logic_error, UsageError>::value, "usage errors are logic errors");
  static_assert(!std::is_base_of<std::runtime_error, UsageError>::value, "one std::exception base");
  static_assert(std::is_base_of<std::runtime_error, RuntimeError>::value, "runtime failures");
  static_assert(!std::is_base_of<std::logic_error, RuntimeError>::value, "one std::exception base");
  static_assert(std::is_base_of<Error, UsageError>::value && std::is_base_of<Error, RuntimeError>::value,
                "cts::Error catches both");

  const Eigen::Matrix3d M = Tridiagonal();
  const Eigen::Vector4d q4(-1, -1, -1, -1);
  const Eigen::Matrix<double, 3, 4> M34 = Eigen::Matrix<double, 3, 4>::Ones();
  MobyLcpSolver moby;
  UnrevisedLemkeSolver<double> unrevised;
  Eigen::VectorXd z;
  int num_pivots = -1;

  // M does not match q.
  std::string what = LogicErrorOf([&] { moby.SolveLcpLemke(M, q4, &z); }, CTS_STATUS_DIMENSION_MISMATCH);
  CHECK(Contains(what, "M is 3x3, q has 4 entries"));
  what = LogicErrorOf([&] { unrevised.SolveLcpLemke(M, q4, &z, &num_pivots, 1e-15); }, CTS_STATUS_DIMENSION_MISMATCH);
  CHECK(Contains(what, "M is 3x3, q has 4 entries"));
  // M is not square.
  what = LogicErrorOf([&] { unrevised.SolveLcpLemke(M34, q4, &z, &num_pivots, 1e-15); }, CTS_STATUS_DIMENSION_MISMATCH);
  CHECK(Contains(what, "M is 3x4, q has 4 entries"));
  what = LogicErrorOf([&] { moby.SolveLcpFastRegularized(Eigen::MatrixXd(M34), q4, &z); },
                      CTS_STATUS_DIMENSION_MISMATCH);
  CHECK(Contains(what, "M is 3x4"));
  // q is not a vector (a dynamic matrix; a fixed-size one is a compile error).
  what = LogicErrorOf([&] { moby.SolveLcpFast(M, Eigen::MatrixXd(M), &z); }, CTS_STATUS_DIMENSION_MISMATCH);
  CHECK(Contains(what, "q is 3x3, not a vector"));
  // z is null.
  what = LogicErrorOf([&] { moby.SolveLcpLemkeRegularized(M, kQ, nullptr); }, CTS_STATUS_NULL_POINTER);
  CHECK(Contains(what, "z (output parameter) is null"));
  // The pointer form and the statics throw the same kind.
  what = LogicErrorOf([&] { moby.SolveLcpLemke(MatrixRef(M.data(), 3, 3), Eigen::VectorXd(q4), &z); },
                      CTS_STATUS_DIMENSION_MISMATCH);
  CHECK(Contains(what, "q has 4 entries"));
  what = LogicErrorOf([&] { UnrevisedLemkeSolver<double>::IsSolution(M, kQ, q4); }, CTS_STATUS_DIMENSION_MISMATCH);
  CHECK(Contains(what, "sizes of M, q and z do not match"));
  what = LogicErrorOf([&] { UnrevisedLemkeSolver<double>::ComputeZeroTolerance(M34); },
                      CTS_STATUS_DIMENSION_MISMATCH);
  CHECK(Contains(what, "M is not square"));
  // The library's own refusals too: a NaN in M (INVALID_ARGUMENT).
  Eigen::Matrix3d M_nan = M;
  M_nan(1, 1) = std::numeric_limits<double>::quiet_NaN();
  what = LogicErrorOf([&] { moby.SolveLcpLemke(M_nan, kQ, &z); }, CTS_STATUS_INVALID_ARGUMENT);
  CHECK(what != "no exception" && what != "wrong status" && what != "not a std::logic_error");

  // Caught as cts::Error and as std::exception as well (one std::exception base, not ambiguous).
  bool caught = false;
  try {
    moby.SolveLcpFast(M, q4, &z);
  } catch (const Error& e) {
    caught = e.status() == CTS_STATUS_DIMENSION_MISMATCH && Contains(e.what(), "q has 4 entries");
  }
  CHECK(caught);
  caught = false;
  try {
    unrevised.SolveLcpLemke(M34, q4, &z, &num_pivots);
  } catch (const std::exception& e) {
    caught = Contains(e.what(), "M is 3x4");
  }
  CHECK(caught);
  const RuntimeError runtime(CTS_STATUS_ALLOCATION_FAILED, "4 GiB");
  CHECK(runtime.status() == CTS_STATUS_ALLOCATION_FAILED && Contains(runtime.what(), "4 GiB"));

  // After the errors, the solvers still solve, with their parameters untouched.
  CHECK(moby.parameters().lemke_min_exp == -20 && moby.parameters().zero_tolerance == -1.0);
  CHECK(moby.SolveLcpLemke(M, kQ, &z) && Near(z, kZ, kTol));
  CHECK(unrevised.SolveLcpLemke(M, kQ, &z, &num_pivots) && Near(z, kZ, kTol));
}

}  // namespace
}  // namespace cts

int main() {
  cts::FixedSizeMatricesAndVectors();
  cts::ExpressionsMapsAndBlocks();
  cts::SolveSignaturesAndStatics();
  cts::UsageErrorsAreLogicErrors();
  CHECK(SecondTranslationUnitLcpDrakeStyle() == 2);
  std::printf("lcp drake style: %d checks\n%d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
