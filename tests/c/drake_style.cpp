// Drake-style code against the C++ wrapper: written as code inside drake::multibody is written
// (TamsiSolver<double>, EigenPtr setters fed with fixed-size matrices, Maps and blocks,
// VectorX/MatrixX/Vector2, const methods, VectorBlock getters, TamsiSolverIterationStats,
// internal::TalsLimiter<double>::CalcAlpha), with only the include and the namespace changed:
//   #include <drake/multibody/plant/tamsi_solver.h>  ->  #include "contact_solvers.hpp"
//   namespace drake { namespace multibody {          ->  namespace cts {
// Every value is checked against a known answer: the README's sliding puck (v = 0.95 m/s), the
// rolling cylinder of Drake's test (docs/tamsi_cases.md) and Drake's limiter cases. Prints its
// counts and exits 0 when every check passes.
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include <Eigen/Geometry>  // Rotation2D, as drake/common/eigen_types.h brings it

#include "contact_solvers.hpp"

int SecondTranslationUnitDrakeStyle();

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

#define CHECK_NEAR(a, b, tol) CHECK(std::abs((a) - (b)) <= (tol))

namespace cts {
namespace {

constexpr double kDt = 0.01;     // s
constexpr double kMu = 0.5;
constexpr double kFn = 10.0;     // N
// The puck's answer: v = 1 − dt·μ·fn/m, to round-off (the soft norm moves it by 3e-14).
constexpr double kPuckV = 0.95;  // m/s
constexpr double kTol = 1e-12;

template <typename F>
cts_status StatusOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.status();
  }
  return CTS_STATUS_OK;
}

// A const solver reference is enough to solve and read results, as in Drake.
double SolveAndReadVx(const TamsiSolver<double>& solver, const VectorX<double>& v0) {
  const TamsiSolverResult result = solver.SolveWithGuess(kDt, v0);
  CHECK(result == TamsiSolverResult::kSuccess);
  const VectorX<double>& v = solver.get_generalized_velocities();
  return v(0);
}

// The README puck (1 kg, sliding at 1 m/s, one contact, fn = 10 N, μ = 0.5) with fixed-size
// Eigen types: Matrix2d, a 1×2 (row-major) Jn, Vector2d, 1-vectors.
void PuckWithFixedSizeTypes() {
  const Eigen::Matrix2d M = Eigen::Matrix2d::Identity();
  const Eigen::Matrix<double, 1, 2> Jn = Eigen::Matrix<double, 1, 2>::Zero();
  const Eigen::Matrix2d Jt = Eigen::Matrix2d::Identity();
  const Eigen::Vector2d p_star(1.0, 0.0);
  const Eigen::Matrix<double, 1, 1> fn = Eigen::Matrix<double, 1, 1>::Constant(kFn);
  const Eigen::Matrix<double, 1, 1> mu = Eigen::Matrix<double, 1, 1>::Constant(kMu);

  TamsiSolver<double> solver(2);
  // Drake's initial values before any solve: zeros of size nv, no contacts, no statistics.
  CHECK(solver.get_generalized_velocities().size() == 2 && solver.get_generalized_velocities().isZero(0.0));
  CHECK(solver.get_generalized_contact_forces().isZero(0.0) && solver.get_generalized_friction_forces().isZero(0.0));
  CHECK(solver.get_normal_forces().size() == 0 && solver.get_tangential_velocities().size() == 0);
  CHECK(solver.get_iteration_statistics().num_iterations == 0);
  CHECK(solver.get_capacity() == 128);

  solver.SetOneWayCoupledProblemData(&M, &Jn, &Jt, &p_star, &fn, &mu);
  CHECK(solver.num_contacts() == 1);
  const VectorX<double> v0 = Eigen::Vector2d(1.0, 0.0);
  CHECK_NEAR(SolveAndReadVx(solver, v0), kPuckV, kTol);

  const VectorX<double>& v = solver.get_generalized_velocities();
  CHECK(v.size() == 2);
  CHECK_NEAR(v(1), 0.0, kTol);
  // The contact getters return Drake's VectorBlock type.
  const Eigen::VectorBlock<const VectorX<double>> vt = solver.get_tangential_velocities();
  const Eigen::VectorBlock<const VectorX<double>> ft = solver.get_friction_forces();
  const Eigen::VectorBlock<const VectorX<double>> fn_out = solver.get_normal_forces();
  const Eigen::VectorBlock<const VectorX<double>> vn = solver.get_normal_velocities();
  CHECK(vt.size() == 2 && ft.size() == 2 && fn_out.size() == 1 && vn.size() == 1);
  CHECK_NEAR(vt(0), kPuckV, kTol);
  CHECK_NEAR(ft(0), -kMu * kFn, 1e-9);  // −μ fn t̂ with the soft norm: 5·(1 − 5.5e-13)
  CHECK_NEAR(ft(1), 0.0, kTol);
  CHECK(fn_out(0) == kFn && vn(0) == 0.0);
  CHECK_NEAR(solver.get_generalized_contact_forces()(0), -kMu * kFn, 1e-9);
  CHECK_NEAR(solver.get_generalized_friction_forces()(0), -kMu * kFn, 1e-9);
  // A reference a getter returned shows the latest solve, as Drake's workspace references do.
  solver.SolveWithGuess(kDt, Eigen::Vector2d(0.0, 0.0));
  CHECK_NEAR(v(0), kPuckV, kTol);

  // Statistics: Drake's members.
  const TamsiSolverIterationStats& stats = solver.get_iteration_statistics();
  CHECK(stats.num_iterations > 0);
  CHECK(stats.residuals.size() == static_cast<std::size_t>(stats.num_iterations));
  CHECK(stats.vt_residual() < solver.get_solver_parameters().relative_tolerance *
                                  solver.get_solver_parameters().stiction_tolerance);
}

// The same puck from raw arrays through Eigen::Map (the C quick start's data), and with Jt as the
// top rows of a taller column-major matrix whose other rows are NaN (never read).
void PuckWithMapsAndBlocks() {
  const double M_data[4] = {1, 0, 0, 1};
  const double Jn_data[2] = {0, 0};
  const double Jt_data[4] = {1, 0, 0, 1};
  const double p_data[2] = {1, 0}, fn_data[1] = {kFn}, mu_data[1] = {kMu};
  const Eigen::Map<const MatrixX<double>> M(M_data, 2, 2);
  const Eigen::Map<const MatrixX<double>> Jn(Jn_data, 1, 2);
  const Eigen::Map<const VectorX<double>> p_star(p_data, 2);
  const Eigen::Map<const VectorX<double>> fn(fn_data, 1);
  const Eigen::Map<const VectorX<double>> mu(mu_data, 1);
  MatrixX<double> tall = MatrixX<double>::Constant(5, 2, std::numeric_limits<double>::quiet_NaN());
  tall.topRows(2) = Eigen::Map<const MatrixX<double>>(Jt_data, 2, 2);
  const auto Jt = tall.topRows(2);  // an Eigen::Block with column stride 5

  TamsiSolver<double> solver(2);
  solver.SetOneWayCoupledProblemData(&M, &Jn, &Jt, &p_star, &fn, &mu);
  const double v0_data[2] = {1, 0};
  CHECK(solver.SolveWithGuess(kDt, Eigen::Map<const VectorX<double>>(v0_data, 2)) == TamsiSolverResult::kSuccess);
  CHECK_NEAR(solver.get_generalized_velocities()(0), kPuckV, kTol);

  // Same data as fixed-size types: bit for bit the same answer.
  TamsiSolver<double> fixed(2);
  const Eigen::Matrix2d Mf = M, Jtf = Jt;
  const Eigen::Matrix<double, 1, 2> Jnf = Jn;
  const Eigen::Vector2d pf = p_star;
  const Eigen::Matrix<double, 1, 1> fnf = fn, muf = mu;
  fixed.SetOneWayCoupledProblemData(&Mf, &Jnf, &Jtf, &pf, &fnf, &muf);
  fixed.SolveWithGuess(kDt, Eigen::Vector2d(1.0, 0.0));
  CHECK(fixed.get_generalized_velocities() == solver.get_generalized_velocities());
  CHECK(fixed.get_friction_forces() == solver.get_friction_forces());
}

// 130 copies of the puck's contact (fn = 10/130 N each): same total friction, same answer; the
// library's workspace grows past Drake's initial 128 contacts at the solve.
void PuckWithManyContactsGrowsTheCapacity() {
  const int nc = 130;
  const MatrixX<double> M = MatrixX<double>::Identity(2, 2);
  const MatrixX<double> Jn = MatrixX<double>::Zero(nc, 2);
  MatrixX<double> Jt(2 * nc, 2);
  for (int i = 0; i < nc; ++i) Jt.middleRows<2>(2 * i) = Eigen::Matrix2d::Identity();
  const VectorX<double> p_star = Eigen::Vector2d(1.0, 0.0);
  const VectorX<double> fn = VectorX<double>::Constant(nc, kFn / nc);
  const VectorX<double> mu = VectorX<double>::Constant(nc, kMu);
  TamsiSolver<double> solver(2);
  CHECK(solver.get_capacity() == 128);
  solver.SetOneWayCoupledProblemData(&M, &Jn, &Jt, &p_star, &fn, &mu);
  CHECK(solver.get_normal_forces().size() == nc && solver.get_friction_forces().isZero(0.0));
  CHECK(solver.SolveWithGuess(kDt, p_star) == TamsiSolverResult::kSuccess);
  CHECK(solver.get_capacity() == nc);
  CHECK_NEAR(solver.get_generalized_velocities()(0), kPuckV, kTol);
  CHECK(solver.get_friction_forces().size() == 2 * nc);
  CHECK_NEAR(solver.get_friction_forces().sum(), -kMu * kFn, 1e-9);
}

// Drake's rolling cylinder (two-way coupling, one contact) with fixed-size types: 8 iterations,
// v = (0.25000029405060681, 0, −0.24999970594939319) in Drake (docs/tamsi_cases.md).
void RollingCylinderTwoWay() {
  const Eigen::Matrix3d M = Eigen::Matrix3d::Identity();
  const Eigen::RowVector3d Jn(0.0, 1.0, 0.0);
  Eigen::Matrix<double, 2, 3> Jt;
  Jt << 1, 0, 1, 0, 0, 0;
  const Eigen::Vector3d p_star(0.5, -3.009, 0.0);
  using Vector1d = Eigen::Matrix<double, 1, 1>;
  const Vector1d fn0 = Vector1d::Constant(9000.0), k = Vector1d::Constant(9.0e6);
  const Vector1d d = Vector1d::Constant(1.0 / 3000.0 / 1.0e-6), mu = Vector1d::Constant(0.1);
  TamsiSolver<double> solver(3);
  TamsiSolverParameters parameters;
  parameters.stiction_tolerance = 1.0e-6;
  solver.set_solver_parameters(parameters);
  const TamsiSolverParameters& p = solver.get_solver_parameters();
  CHECK(p.stiction_tolerance == 1.0e-6 && p.max_iterations == 100);
  solver.SetTwoWayCoupledProblemData(&M, &Jn, &Jt, &p_star, &fn0, &k, &d, &mu);
  CHECK(solver.SolveWithGuess(1e-3, Eigen::Vector3d(0.5, -3.0, 0.0)) == TamsiSolverResult::kSuccess);
  CHECK(solver.get_iteration_statistics().num_iterations == 8);
  CHECK_NEAR(solver.get_generalized_velocities()(0), 0.25000029405060681, kTol);
  CHECK_NEAR(solver.get_generalized_velocities()(2), -0.24999970594939319, kTol);
  CHECK_NEAR(solver.get_normal_forces()(0), 3010.9943295852108, 1e-9);

  // ResizeIfNeeded and Clone through a const reference, as Drake's are const.
  const TamsiSolver<double>& cref = solver;
  std::unique_ptr<TamsiSolver<double>> copy = cref.Clone();
  CHECK(copy->get_solver_parameters().stiction_tolerance == 1.0e-6);
  cref.ResizeIfNeeded(4);
  CHECK(cref.num_velocities() == 4 && cref.num_contacts() == 0);
  CHECK(cref.get_generalized_velocities().size() == 4 && cref.get_generalized_velocities().isZero(0.0));
  CHECK(cref.get_iteration_statistics().num_iterations == 0);
}

// Drake's TamsiSolverIterationStats members.
void IterationStatsLikeDrakes() {
  TamsiSolverIterationStats stats;
  stats.Update(0.5);
  stats.Update(0.25);
  CHECK(stats.num_iterations == 2 && stats.residuals.size() == 2 && stats.vt_residual() == 0.25);
  stats.Reset();
  CHECK(stats.num_iterations == 0 && stats.residuals.empty() && std::isnan(stats.vt_residual()));
}

// Drake's limiter tests (DirectionLimiter fixture: vs = 1e-4, θmax = π/6, rtol = 0.01), with
// the reference α of docs/tamsi_cases.md §1.
void TalsLimiterLikeDrakes() {
  const double v_stiction = 1.0e-4;
  const double theta_max = M_PI / 6.0;
  const double cos_min = std::cos(theta_max);
  const double tolerance = 0.01;
  const double kTolerance = 10 * std::numeric_limits<double>::epsilon();
  {  // ZeroVtoSlidingRegion (Case II)
    const Vector2<double> vt = Vector2<double>::Zero();
    const Vector2<double> dvt(0.3, -0.1);
    const std::optional<double> alpha = internal::TalsLimiter<double>::CalcAlpha(vt, dvt, cos_min, v_stiction, tolerance);
    CHECK(alpha.has_value());
    CHECK_NEAR(*alpha, 0.00015811388300841897, kTolerance * 0.00015811388300841897);
    const Vector2<double> vt_alpha = vt + *alpha * dvt;
    CHECK((vt_alpha - dvt.normalized() * v_stiction / 2.0).norm() <= kTolerance * vt_alpha.norm());
  }
  {  // ChangesWithinTheSlidingRegion_LargeTheta (Case VI): the new direction is at θmax.
    const Vector2<double> vt(-0.5, 0.7);
    const Matrix2<double> R = Eigen::Rotation2D<double>(M_PI / 3.0).toRotationMatrix();
    const Vector2<double> dvt = R * vt - vt;
    const double alpha = internal::TalsLimiter<double>::CalcAlpha(vt, dvt, cos_min, v_stiction, tolerance).value();
    CHECK_NEAR(alpha, 0.49999999999999989, kTolerance);
    const Vector2<double> vt_alpha = vt + alpha * dvt;
    CHECK_NEAR(std::acos(vt.dot(vt_alpha) / vt.norm() / vt_alpha.norm()), theta_max, kTolerance);
  }
  {  // VerySmallDeltaV (Case I), with the 2-vectors as segments of longer vectors.
    VectorX<double> vts(4), dvts(4);
    vts << 9, 9, 0.1, 0.05;
    dvts << 9, 9, -0.5 * v_stiction * tolerance, 0.3 * v_stiction * tolerance;
    const std::optional<double> alpha =
        internal::TalsLimiter<double>::CalcAlpha(vts.segment<2>(2), dvts.segment<2>(2), cos_min, v_stiction, tolerance);
    CHECK(alpha && std::abs(*alpha - 1.0) <= kTolerance);
  }
  {  // QuadraticNonPositive1: no solution is nullopt, as in Drake.
    const Vector2<double> vt(-0.5, 0.7);
    const Matrix2<double> R = Eigen::Rotation2D<double>(theta_max).toRotationMatrix();
    Vector2<double> dvt = -3.0 * R * vt;
    dvt(1) = std::numeric_limits<double>::infinity();
    CHECK(!internal::TalsLimiter<double>::CalcAlpha(vt, dvt, cos_min, v_stiction, tolerance).has_value());
  }
  // A scalar outside its domain is a usage error (Drake asserts).
  CHECK(StatusOf([&] {
          internal::TalsLimiter<double>::CalcAlpha(Vector2<double>(0.1, 0.0), Vector2<double>(0.0, 0.1), 2.0,
                                                   v_stiction, tolerance);
        }) == CTS_STATUS_INVALID_ARGUMENT);
}

// Where Drake aborts or throws std::exception, cts::Error carries the status and names the
// argument; layouts the library cannot read in place are refused, not copied.
void UsageErrorsNameTheArgument() {
  const Eigen::Matrix2d M = Eigen::Matrix2d::Identity();
  const Eigen::Matrix<double, 1, 2> Jn = Eigen::Matrix<double, 1, 2>::Zero();
  const Eigen::Matrix2d Jt = Eigen::Matrix2d::Identity();
  const Eigen::Vector2d p_star(1.0, 0.0);
  const Eigen::Matrix<double, 1, 1> fn = Eigen::Matrix<double, 1, 1>::Constant(kFn);
  const Eigen::Vector3d wrong = Eigen::Vector3d::Zero();
  TamsiSolver<double> solver(2);
  try {
    solver.SetOneWayCoupledProblemData(&M, &Jn, nullptr, &p_star, &fn, &fn);
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == CTS_STATUS_NULL_POINTER);
    CHECK(std::string(e.what()).find("SetOneWayCoupledProblemData: Jt is null") != std::string::npos);
  }
  try {
    solver.SetOneWayCoupledProblemData(&M, &Jn, &Jt, &wrong, &fn, &fn);
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == CTS_STATUS_DIMENSION_MISMATCH);
    CHECK(std::string(e.what()).find("p_star has 3 entries, expected 2") != std::string::npos);
  }
  // Every other row of a 4×2 array: rows not adjacent.
  const double strided_data[8] = {1, -1, 0, -1, 0, -1, 1, -1};
  const Eigen::Map<const MatrixX<double>, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>> strided(
      strided_data, 2, 2, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(4, 2));
  CHECK(strided(1, 1) == 1.0 && strided(0, 1) == 0.0);
  try {
    solver.SetOneWayCoupledProblemData(&strided, &Jn, &Jt, &p_star, &fn, &fn);
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == CTS_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("M is not column-major") != std::string::npos);
  }
  CHECK(solver.num_contacts() == 0);
  CHECK(StatusOf([&] { solver.SolveWithGuess(kDt, Eigen::Vector2d(1.0, 0.0)); }) == CTS_STATUS_NO_PROBLEM_DATA);
  CHECK(StatusOf([&] { solver.ResizeIfNeeded(0); }) == CTS_STATUS_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace cts

int main() {
  cts::PuckWithFixedSizeTypes();
  cts::PuckWithMapsAndBlocks();
  cts::PuckWithManyContactsGrowsTheCapacity();
  cts::RollingCylinderTwoWay();
  cts::IterationStatsLikeDrakes();
  cts::TalsLimiterLikeDrakes();
  cts::UsageErrorsNameTheArgument();
  CHECK(SecondTranslationUnitDrakeStyle() == 3);
  std::printf("drake style: %d checks\n%d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
