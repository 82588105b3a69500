// The C++ wrapper's LCP and rigid constraint-solver classes (include/contact_solvers.hpp), with
// Eigen or (CTS_NO_EIGEN) without: Drake-shaped calls give Drake's numbers
// (docs/rigid_cases.md §2.2, §3.2, §6, §7), usage errors throw cts::Error with the library's
// status, an exception thrown by an operator function is rethrown by the solve, outcomes are
// returned, RAII/move/Clone behave. Exits 0 when every check passes.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "contact_solvers.hpp"

int SecondTranslationUnitNumVelocities(int nv);

static int failures = 0;
#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      ++failures;                                                      \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond);            \
    }                                                                  \
  } while (0)

template <typename F>
static void ExpectError(cts_status want, F&& f) {
  try {
    f();
    ++failures;
    std::printf("FAILED: no exception, want status %d\n", static_cast<int>(want));
  } catch (const cts::Error& e) {
    if (e.status() != want) {
      ++failures;
      std::printf("FAILED: status %d (%s), want %d\n", static_cast<int>(e.status()), e.what(), static_cast<int>(want));
    }
  }
}

static bool near(double a, double b, double tol) { return std::fabs(a - b) <= tol; }

static cts::Vector vec(std::initializer_list<double> v) {
  cts::Vector out = cts::internal::make_vector(v.size());
  std::size_t i = 0;
  for (double x : v) out[i++] = x;
  return out;
}

static bool vec_near(const cts::Vector& a, std::initializer_list<double> b, double tol) {
  if (static_cast<std::size_t>(a.size()) != b.size()) return false;
  std::size_t i = 0;
  for (double x : b) {
    if (!near(a[i++], x, tol)) return false;
  }
  return true;
}

// y = A x or Aᵀ x for a column-major rows×cols array.
static cts::Vector apply(const double* A, std::size_t rows, std::size_t cols, const cts::Vector& x, bool transpose) {
  const std::size_t out_n = transpose ? cols : rows;
  cts::Vector y = cts::internal::make_vector(out_n);
  for (std::size_t i = 0; i < out_n; ++i) {
    double s = 0.0;
    for (std::size_t k = 0; k < static_cast<std::size_t>(x.size()); ++k) {
      s += (transpose ? A[k + i * rows] : A[i + k * rows]) * x[k];
    }
    y[i] = s;
  }
  return y;
}

static void TestLcp() {
  // Drake's testProblem3: z = (0, 1, 3).
  const double m3[9] = {0, 2, -1, -1, 0, 1, 2, -2, 0};  // column-major
  const cts::MatrixRef M3(m3, 3, 3);
  const cts::Vector q3 = vec({-3, 6, -1});
  cts::MobyLcpSolver moby;
  cts::Vector z;
  CHECK(moby.SolveLcpLemke(M3, q3, &z));
  CHECK(vec_near(z, {0, 1, 3}, 1e-6));
  CHECK(moby.get_num_pivots() == 4);
  CHECK(moby.SolveLcpLemkeRegularized(M3, q3, &z));
  CHECK(vec_near(z, {0, 1, 3}, 1e-6));
  z = cts::Vector();
  CHECK(moby.SolveLcpFast(M3, q3, &z));
  CHECK(vec_near(z, {0, 1, 3}, 1e-6));
  CHECK(moby.SolveLcpFast(M3, q3, &z));  // warm start from z: one iteration
  CHECK(moby.get_num_pivots() == 1);
  CHECK(moby.SolveLcpFastRegularized(M3, q3, &z));
  CHECK(vec_near(z, {0, 1, 3}, 1e-6));
  CHECK(near(cts::LcpSolver::ComputeZeroTolerance(M3), 3 * 2 * 10 * 2.220446049250313e-16, 1e-30));

  // testFailure: M = [-1], q = [-1]: false, z = 0; the general call returns the outcome.
  const double mf[1] = {-1.0};
  const cts::Vector qf = vec({-1.0});
  CHECK(!moby.SolveLcpLemke(cts::MatrixRef(mf, 1, 1), qf, &z));
  CHECK(z.size() == 1 && z[0] == 0.0);
  CHECK(moby.Solve(cts::LcpAlgorithm::kLemke, cts::MatrixRef(mf, 1, 1), qf) == cts::LcpOutcome::kRayTermination);
  CHECK(moby.Solve(cts::LcpAlgorithm::kFast, cts::MatrixRef(mf, 1, 1), qf) == cts::LcpOutcome::kPivotLimit);

  // Usage errors.
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { moby.SolveLcpLemke(cts::MatrixRef(m3, 2, 2), q3, &z); });
  ExpectError(CTS_STATUS_NULL_POINTER, [&] { moby.SolveLcpLemke(M3, q3, nullptr); });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { moby.SolveLcpLemke(M3, q3, &z, NAN); });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { moby.SolveLcpLemke(cts::MatrixRef(m3, 3, 3, 2), q3, &z); });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { moby.SolveLcpLemkeRegularized(M3, q3, &z, -20, 0); });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] {
    const double z0[3] = {0, 0, 0};
    moby.Solve(cts::LcpAlgorithm::kLemke, M3, q3, z0);
  });
  // A failed call restores the parameters.
  CHECK(moby.parameters().pivot_tolerance == -1.0);

  // Unrevised Lemke: Drake's TestCycling in 9 pivots, then WarmStarting: 2q in exactly 1 pivot.
  const double mc[9] = {1, 0, 2, 2, 1, 0, 0, 2, 1};  // [[1, 2, 0], [0, 1, 2], [2, 0, 1]]
  const cts::MatrixRef MC(mc, 3, 3);
  cts::UnrevisedLemkeSolver unrevised;
  int pivots = -1;
  CHECK(unrevised.SolveLcpLemke(MC, vec({-1, -1, -1}), &z, &pivots));
  CHECK(vec_near(z, {1.0 / 3, 1.0 / 3, 1.0 / 3}, 5e-14));
  CHECK(pivots == 9);
  CHECK(unrevised.SolveLcpLemke(MC, vec({-2, -2, -2}), &z, &pivots));
  CHECK(vec_near(z, {2.0 / 3, 2.0 / 3, 2.0 / 3}, 5e-14));
  CHECK(pivots == 1);
  CHECK(cts::UnrevisedLemkeSolver<>::IsSolution(MC, vec({-2, -2, -2}), z));
  CHECK(!cts::UnrevisedLemkeSolver<>::IsSolution(MC, vec({-2, -2, -2}), vec({0, 0, 0})));
  CHECK(near(cts::UnrevisedLemkeSolver<>::ComputeZeroTolerance(MC), 3 * 2 * 2.2 * 2.220446049250313e-16, 1e-30));
  // Moby's Lemke with the lexicographic rule solves the cycling example too.
  cts::LcpSolverParameters lex;
  lex.lexicographic_lemke = true;
  moby.set_parameters(lex);
  CHECK(moby.SolveLcpLemke(MC, vec({-1, -1, -1}), &z));
  CHECK(vec_near(z, {1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-12));
  cts::LcpSolverParameters bad;
  bad.fast_step_exp = 0;
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { moby.set_parameters(bad); });

  // Issue 13: OK means the residual test passed; Drake's verdict stays readable.
  const double m0[1] = {0.0};
  CHECK(!moby.SolveLcpFast(cts::MatrixRef(m0, 1, 1), qf, &z));  // Drake: true with z = inf
  CHECK(z.size() == 1 && std::isinf(z[0]));
  CHECK(moby.drake_verdict());
  CHECK(moby.Solve(cts::LcpAlgorithm::kFast, cts::MatrixRef(m0, 1, 1), qf) == cts::LcpOutcome::kNonFiniteSolution);
  CHECK(std::isnan(moby.pivot_tolerance_used()) && moby.zero_tolerance_used() == 0.0);
  // M = -1, q = -1: Drake's regularized wrapper accepts a solution of M + 10^e I only.
  CHECK(!moby.SolveLcpFastRegularized(cts::MatrixRef(mf, 1, 1), qf, &z));
  CHECK(moby.drake_verdict() && moby.regularization() > 0.0);
  CHECK(moby.solve_info().residual_test_passed == 0);
  cts::LcpSolverParameters drake;
  drake.drake_compatible_verdict = true;
  moby.set_parameters(drake);
  CHECK(moby.SolveLcpFastRegularized(cts::MatrixRef(mf, 1, 1), qf, &z));  // Drake's bool
  CHECK(moby.Solve(cts::LcpAlgorithm::kFast, cts::MatrixRef(m0, 1, 1), qf) == cts::LcpOutcome::kNonFiniteSolution);
  moby.set_parameters(cts::LcpSolverParameters());
  CHECK(moby.SolveLcpLemke(M3, q3, &z));
  CHECK(near(moby.pivot_tolerance_used(), 3 * 2 * 2.220446049250313e-16, 1e-30));
  CHECK(moby.solve_info().residual_test_passed == 1 && moby.regularization() == 0.0);
  const double mnan[1] = {NAN};
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { moby.SolveLcpLemke(cts::MatrixRef(mnan, 1, 1), qf, &z); });
  cts::LcpSolverParameters wide;
  wide.lemke_min_exp = -400;
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { moby.set_parameters(wide); });
  ExpectError(CTS_STATUS_NO_SOLUTION, [&] { cts::UnrevisedLemkeSolver().solve_info(); });

  // Clone keeps the warm start; move transfers the handle.
  std::unique_ptr<cts::LcpSolver> copy = unrevised.Clone();
  CHECK(copy->Solve(cts::LcpAlgorithm::kUnrevisedLemke, MC, vec({-3, -3, -3})) == cts::LcpOutcome::kSolved);
  CHECK(copy->get_num_pivots() == 1 && vec_near(copy->z(), {1, 1, 1}, 5e-14));
  CHECK(vec_near(copy->w(), {0, 0, 0}, 1e-13));
  cts::LcpSolver moved(std::move(*copy));
  CHECK(copy->c_handle() == nullptr && moved.c_handle() != nullptr);
}

// Drake's Rod2D resting horizontally, m = 2, J = 1, l = 1 (docs/rigid_cases.md §1).
static const double kN[6] = {0, 0, 1, 1, -1, 1};   // N = [[0, 1, -1], [0, 1, 1]], column-major
static const double kF[6] = {1, 1, 0, 0, 0, 0};    // F = [[1, 0, 0], [1, 0, 0]]
static const double kMinv[9] = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 1};
static const double kM[9] = {2, 0, 0, 0, 2, 0, 0, 0, 1};

static void TestConstraintSolver() {
  cts::ConstraintSolver solver;

  // §2.2 TwoPointSticking: 100 N along +x, mu_static = 15: cf = (9.81, 9.81, -100, 0).
  cts::ConstraintAccelProblemData accel(3);
  accel.non_sliding_contacts = {0, 1};
  accel.r = {1, 1};
  accel.mu_non_sliding = vec({15, 15});
  accel.kN = vec({0, 0});
  accel.kF = vec({0, 0});
  accel.tau = vec({100, -19.62, 0});
  accel.N_mult = cts::Operator::Matrix(cts::MatrixRef(kN, 2, 3));
  accel.N_minus_muQ_transpose_mult = cts::Operator::Matrix(cts::MatrixRef(kN, 2, 3));
  accel.F_mult = cts::Operator::Matrix(cts::MatrixRef(kF, 2, 3));
  accel.F_transpose_mult = cts::Operator::Matrix(cts::MatrixRef(kF, 2, 3));
  ExpectError(CTS_STATUS_NO_PROBLEM_DATA, [&] {  // solve_inertia unset
    cts::Vector cf;
    solver.SolveConstraintProblem(accel, &cf);
  });
  accel.solve_inertia = cts::InertiaSolve::Inverse(cts::MatrixRef(kMinv, 3, 3));
  cts::Vector cf, ga;
  CHECK(solver.SolveConstraintProblem(accel, &cf) == cts::RigidOutcome::kSolved);
  CHECK(vec_near(cf, {9.81, 9.81, -100, 0}, 1e-12));
  CHECK(solver.num_pivots() == 9);
  solver.ComputeGeneralizedAcceleration(accel, cf, &ga);
  CHECK(vec_near(ga, {0, 0, 0}, 1e-13));
  solver.ComputeGeneralizedForceFromConstraintForces(accel, cf, &ga);
  CHECK(vec_near(ga, {-100, 19.62, 0}, 1e-12));
  solver.ComputeGeneralizedAccelerationFromConstraintForces(accel, cf, &ga);
  CHECK(vec_near(ga, {-50, 9.81, 0}, 1e-12));
  // The linear-system path splits the friction evenly (min-norm): (9.81, 9.81, -50, -50).
  accel.use_complementarity_problem_solver = false;
  CHECK(solver.SolveConstraintProblem(accel, &cf) == cts::RigidOutcome::kSolved);
  CHECK(vec_near(cf, {9.81, 9.81, -50, -50}, 1e-12));
  accel.use_complementarity_problem_solver = true;

  // The same with functions (Drake's std::function style): the same forces to round-off.
  cts::ConstraintAccelProblemData fn_accel = accel;
  fn_accel.N_mult = [](const cts::Vector& v) { return apply(kN, 2, 3, v, false); };
  fn_accel.N_minus_muQ_transpose_mult = [](const cts::Vector& f) { return apply(kN, 2, 3, f, true); };
  fn_accel.F_mult = [](const cts::Vector& v) { return apply(kF, 2, 3, v, false); };
  fn_accel.F_transpose_mult = [](const cts::Vector& f) { return apply(kF, 2, 3, f, true); };
  int inertia_calls = 0;
  fn_accel.solve_inertia = [&inertia_calls](const cts::Vector& b) {
    ++inertia_calls;
    return apply(kMinv, 3, 3, b, false);
  };
  CHECK(solver.SolveConstraintProblem(fn_accel, &cf) == cts::RigidOutcome::kSolved);
  CHECK(vec_near(cf, {9.81, 9.81, -100, 0}, 1e-12));
  CHECK(inertia_calls > 0);

  // An exception thrown by a function is rethrown by the solve.
  fn_accel.F_mult = [](const cts::Vector&) -> cts::Vector { throw std::runtime_error("F_mult: no friction model"); };
  try {
    solver.SolveConstraintProblem(fn_accel, &cf);
    CHECK(false);
  } catch (const cts::Error&) {
    CHECK(false);
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "F_mult: no friction model");
  }
  // A function returning the wrong size: cts::Error with DIMENSION_MISMATCH.
  fn_accel.F_mult = [](const cts::Vector&) { return vec({1.0}); };
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { solver.SolveConstraintProblem(fn_accel, &cf); });
  // Usage errors: a Jacobian of the wrong shape, a negative index, a null output.
  cts::ConstraintAccelProblemData wrong = accel;
  wrong.F_mult = cts::Operator::Matrix(cts::MatrixRef(kF, 1, 3));
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { solver.SolveConstraintProblem(wrong, &cf); });
  wrong = accel;
  wrong.non_sliding_contacts = {0, -1};
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.SolveConstraintProblem(wrong, &cf); });
  wrong = accel;
  wrong.non_sliding_contacts = {1, 1};
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.SolveConstraintProblem(wrong, &cf); });
  ExpectError(CTS_STATUS_NULL_POINTER, [&] { solver.SolveConstraintProblem(accel, nullptr); });

  // §3.2 impact at (1, -1, 0) with mu = 15: impulses (1, 1, -2, 0) N·s stop the rod.
  cts::ConstraintVelProblemData vel(3);
  vel.r = {1, 1};
  vel.mu = vec({15, 15});
  vel.kN = vec({0, 0});
  vel.kF = vec({0, 0});
  vel.Mv = vec({2, -2, 0});
  vel.N_mult = cts::Operator::Matrix(cts::MatrixRef(kN, 2, 3));
  vel.N_transpose_mult = cts::Operator::Matrix(cts::MatrixRef(kN, 2, 3));
  vel.F_mult = cts::Operator::Matrix(cts::MatrixRef(kF, 2, 3));
  vel.F_transpose_mult = [](const cts::Vector& f) { return apply(kF, 2, 3, f, true); };
  vel.solve_inertia = cts::InertiaSolve::Matrix(cts::MatrixRef(kM, 3, 3));
  CHECK(solver.SolveImpactProblem(vel, &cf) == cts::RigidOutcome::kSolved);
  CHECK(vec_near(cf, {1, 1, -2, 0}, 1e-12));
  CHECK(solver.num_pivots() == 3 && !solver.regularization_used());
  cts::Vector dv;
  solver.ComputeGeneralizedVelocityChange(vel, cf, &dv);
  CHECK(vec_near(dv, {-1, 1, 0}, 1e-12));
  solver.ComputeGeneralizedForceFromConstraintForces(vel, cf, &dv);
  CHECK(vec_near(dv, {-2, 2, 0}, 1e-12));
  vel.gammaN = vec({-1, 0});
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.SolveImpactProblem(vel, &cf); });
  vel.gammaN = vec({0});
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { solver.SolveImpactProblem(vel, &cf); });
  vel.gammaN = cts::Vector();

  // Discretized over 1e-4 s, at rest with gravity and the 100 N push: forces (9.81, 9.81, ·, ·)
  // with the friction summing to -100 N, and zero acceleration.
  vel.Mv = vec({100 * 1e-4, 2 * -9.81 * 1e-4, 0});
  CHECK(solver.SolveDiscretizedProblem(vel, 1e-4, &cf) == cts::RigidOutcome::kSolved);
  CHECK(cf.size() == 4 && near(cf[0], 9.81, 1e-9) && near(cf[1], 9.81, 1e-9) && near(cf[2] + cf[3], -100, 1e-9));
  solver.ComputeGeneralizedAcceleration(vel, vec({0, 0, 0}), cf, 1e-4, &ga);
  CHECK(vec_near(ga, {0, 0, 0}, 1e-9));
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.SolveDiscretizedProblem(vel, 0.0, &cf); });

  // Parameters: Drake HEAD's empty fast exit (quirk Q4) when nothing needs a force.
  cts::ConstraintSolver drake(cts::ConstraintSolverParameters::DrakeHead());
  accel.kN = vec({9.81, 9.81});
  CHECK(drake.SolveConstraintProblem(accel, &cf) == cts::RigidOutcome::kSolved);
  CHECK(cf.size() == 0);
  CHECK(solver.SolveConstraintProblem(accel, &cf) == cts::RigidOutcome::kSolved);
  CHECK(vec_near(cf, {0, 0, 0, 0}, 0.0));
  cts::ConstraintSolver moved(std::move(drake));
  CHECK(drake.c_handle() == nullptr && moved.c_handle() != nullptr);

#ifdef CTS_HAVE_EIGEN
  // Eigen matrices convert to MatrixRef; Drake-style Eigen lambdas.
  Eigen::MatrixXd N(2, 3), F(2, 3);
  N << 0, 1, -1, 0, 1, 1;
  F << 1, 0, 0, 1, 0, 0;
  const Eigen::MatrixXd Minv = Eigen::Vector3d(0.5, 0.5, 1.0).asDiagonal();
  cts::ConstraintAccelProblemData eigen_accel(3);
  eigen_accel.non_sliding_contacts = {0, 1};
  eigen_accel.r = {1, 1};
  eigen_accel.mu_non_sliding = Eigen::Vector2d(15, 15);
  eigen_accel.kN = Eigen::Vector2d::Zero();
  eigen_accel.kF = Eigen::Vector2d::Zero();
  eigen_accel.tau = Eigen::Vector3d(100, -19.62, 0);
  eigen_accel.N_mult = [&N](const Eigen::VectorXd& v) -> Eigen::VectorXd { return N * v; };
  eigen_accel.N_minus_muQ_transpose_mult = [&N](const Eigen::VectorXd& f) -> Eigen::VectorXd {
    return N.transpose() * f;
  };
  eigen_accel.F_mult = cts::Operator::Matrix(F);
  eigen_accel.F_transpose_mult = cts::Operator::Matrix(F);
  eigen_accel.solve_inertia = cts::InertiaSolve::Inverse(Minv);
  CHECK(solver.SolveConstraintProblem(eigen_accel, &cf) == cts::RigidOutcome::kSolved);
  CHECK((cf - Eigen::Vector4d(9.81, 9.81, -100, 0)).norm() < 1e-12);
  const Eigen::Matrix3d M3 = Eigen::Map<const Eigen::Matrix3d>(kM);
  CHECK(std::fabs(cts::MobyLcpSolver::ComputeZeroTolerance(Eigen::MatrixXd(M3)) - 3 * 2 * 10 * 2.220446049250313e-16) < 1e-30);
  std::printf("with Eigen\n");
#else
  std::printf("without Eigen\n");
#endif
}

int main() {
  CHECK(SecondTranslationUnitNumVelocities(4) == 4);
  try {
    TestLcp();
    TestConstraintSolver();
  } catch (const std::exception& e) {
    ++failures;
    std::printf("FAILED: unexpected exception: %s\n", e.what());
  }
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
