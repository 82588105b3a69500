// cts::BaraffSolver (include/contact_solvers.hpp), with Eigen or (CTS_NO_EIGEN) without: usage
// errors throw cts::Error with the library's status and message, outcomes are returned, results
// match docs/baraff.md §11 (B1, B3, B5, B5b, B6), RAII/move/Clone behave. Exits 0 when every
// check passes.
#include <cmath>
#include <cstdio>
#include <vector>

#include "contact_solvers.hpp"

int SecondTranslationUnitBaraffRows(int m);

static int failures = 0;
#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      ++failures;                                                      \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond);            \
    }                                                                  \
  } while (0)

#define NEAR(got, want, tol) CHECK(std::fabs((got) - (want)) <= (tol))

template <typename F>
static void ExpectError(cts_status want, F&& f) {
  try {
    f();
    ++failures;
    std::printf("FAILED: no exception, want status %d\n", static_cast<int>(want));
  } catch (const cts::Error& e) {
    if (e.status() != want) {
      ++failures;
      std::printf("FAILED: status %d (%s), want %d\n", static_cast<int>(e.status()), e.what(),
                  static_cast<int>(want));
    }
  }
}

static const double kG = 9.81;
static const double kPi = 3.14159265358979323846;

int main() {
  CHECK(SecondTranslationUnitBaraffRows(3) == 3);

  // B1: particle on the ground, mu = 0.5, F_x = 6 (matrix interface, raw arrays).
  cts::BaraffRows particle;
  const int n0 = particle.AddNormal();
  CHECK(particle.AddFriction(n0, 0.5) == 1);
  const double A[4] = {1, 0, 0, 1};
  const double b[2] = {-kG, 6.0};

  cts::BaraffSolver solver;
  ExpectError(CTS_STATUS_NO_PROBLEM_DATA, [&] { solver.Solve(); });
  ExpectError(CTS_STATUS_NO_SOLUTION, [&] { solver.forces(); });
  cts::BaraffSolverParameters bad;
  bad.tolerance = 0.0;
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.set_solver_parameters(bad); });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.SetMatrixProblemData(A, 1, b, particle); });  // ld < m
  cts::BaraffRows wrong;
  wrong.AddNormal();
  wrong.AddFriction(5, 0.5);  // normal index out of range
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.SetMatrixProblemData(A, 2, b, wrong); });
  CHECK(solver.num_rows() == 0);

  solver.SetMatrixProblemData(A, 2, b, particle);
  CHECK(solver.num_rows() == 2 && solver.num_coordinates() == 0);
  // A failing set keeps the previous data (and the wrapper keeps its rows alive for it).
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.SetMatrixProblemData(A, 2, b, wrong); });
  CHECK(solver.Solve() == cts::BaraffOutcome::kSolved);
  NEAR(solver.forces()[0], 9.81, 1e-9);
  NEAR(solver.forces()[1], -4.905, 1e-9);
  NEAR(solver.accelerations()[1], 1.095, 1e-9);
  CHECK(solver.row_sets()[1] == cts::BaraffRowSet::kAtLower);
  CHECK(solver.stats().outcome == cts::BaraffOutcome::kSolved && solver.stats().row == -1);
  ExpectError(CTS_STATUS_NO_SOLUTION, [&] { solver.generalized_result(); });  // matrix data

  // B3c: box pushed with 6 N (model interface, raw arrays).
  const double I = (1.0 + 0.25) / 12.0;
  const double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, I};
  // J 4x3 column-major: rows normal L, normal R, friction L, friction R.
  const double J[12] = {0, 0, 1, 1, 1, 1, 0, 0, -0.5, 0.5, 0.25, 0.25};
  const double tau[3] = {6.0, -kG, 0.0};
  cts::BaraffRows box;
  const int nl = box.AddNormal(), nr = box.AddNormal();
  box.AddFriction(nl, 0.5);
  box.AddFriction(nr, 0.5);
  solver.SetModelProblemData(cts::BaraffLevel::kAcceleration, 3, M, 3, J, 4, tau, box);
  CHECK(solver.num_rows() == 4 && solver.num_coordinates() == 3);
  CHECK(solver.Solve() == cts::BaraffOutcome::kSolved);
  const std::vector<double> b3c = {3.67875, 6.13125, -1.839375, -3.065625};
  for (int i = 0; i < 4; ++i) NEAR(solver.forces()[i], b3c[i], 1e-9);
  NEAR(solver.accelerations()[2], 1.095, 1e-9);
  CHECK(solver.stats().pivots == 4);
  const cts::BaraffSolver::Matrix Ac = solver.composed_matrix();
  NEAR(Ac(0, 0), 3.4, 1e-12);
  NEAR(Ac(1, 0), -1.4, 1e-12);
  NEAR(solver.generalized_result()[0], 1.095, 1e-9);  // the box slides: q̈_x = a_t

  // B6: impulses, raw arrays.
  const double qdot[3] = {0.0, -1.0, 2.0};
  cts::BaraffRows corners;
  corners.AddNormal();
  corners.AddNormal();
  solver.SetModelProblemData(cts::BaraffLevel::kVelocity, 3, M, 3, J, 4, qdot, corners);  // first 2 rows of J
  CHECK(solver.NeedsImpulse());
  CHECK(solver.ComputeImpulses() == cts::BaraffOutcome::kSolved);
  NEAR(solver.forces()[0], 0.708333, 1e-6);
  NEAR(solver.forces()[1], 0.291667, 1e-6);
  CHECK(solver.stats().iterations == 2);
  NEAR(solver.generalized_result()[2], 0.0, 1e-9);
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.ConsistencyImpulse(-1); });
  {
    cts::BaraffSolverParameters p;
    p.max_impulse_iterations = 1;
    cts::BaraffSolver capped(p);
    CHECK(capped.get_solver_parameters().max_impulse_iterations == 1);
    capped.SetModelProblemData(cts::BaraffLevel::kVelocity, 3, M, 3, J, 4, qdot, corners);
    CHECK(capped.ComputeImpulses() == cts::BaraffOutcome::kIterationLimit);
    NEAR(capped.forces()[0], 0.588235, 1e-6);
  }

  // B5/B5b: the Painlevé rod, raw arrays.
  const double th = kPi / 6.0, rx = -0.5 * std::cos(th), ry = -0.5 * std::sin(th);
  const double Mr[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1.0 / 12.0};
  const double jn[3] = {0, 1, rx};
  const double Q[3] = {-1, 0, ry};  // sliding left: −(1, 0, −ry)
  const double mu_d[1] = {3.0}, taur[3] = {0, -kG, 0};
  cts::BaraffRows one;
  one.AddNormal();
  solver.SetModelProblemData(cts::BaraffLevel::kAcceleration, 3, Mr, 3, jn, 1, taur, one);
  solver.SetSliding(Q, 1, mu_d, 1);
  CHECK(solver.Solve() == cts::BaraffOutcome::kUnboundedRay);
  CHECK(solver.stats().row == 0 && solver.stats().outcome == cts::BaraffOutcome::kUnboundedRay);
  NEAR(solver.composed_matrix()(0, 0), -0.647114, 1e-6);
  CHECK(solver.forces()[0] == 0.0);

  const double Jr[6] = {0, 1, 1, 0, rx, -ry};  // rows (n, t), column-major 2x3
  const double qdot_r[3] = {-1, 0, 0};
  cts::BaraffRows contact;
  const int cn = contact.AddNormal();
  contact.AddFriction(cn, 3.0);
  solver.SetModelProblemData(cts::BaraffLevel::kVelocity, 3, Mr, 3, Jr, 2, qdot_r, contact);
  CHECK(solver.ConsistencyImpulse(cn) == cts::BaraffOutcome::kSolved);
  NEAR(solver.forces()[0], 0.324760, 1e-6);
  NEAR(solver.forces()[1], 0.812500, 1e-6);
  const std::vector<double> after = {-0.1875, 0.324760, 0.75};
  for (int i = 0; i < 3; ++i) NEAR(solver.generalized_result()[i], after[i], 1e-6);
  const double w = solver.generalized_result()[2];
  const double bias[2] = {-w * w * ry, -w * w * rx};
  solver.SetModelProblemData(cts::BaraffLevel::kAcceleration, 3, Mr, 3, Jr, 2, taur, contact);
  solver.SetBias(bias, 2);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { solver.SetBias(bias, 1); });
  CHECK(solver.Solve() == cts::BaraffOutcome::kSolved);
  NEAR(solver.composed_b()[0], -9.669375, 1e-6);
  NEAR(solver.forces()[0], 4.151250, 1e-6);
  NEAR(solver.forces()[1], 2.942321, 1e-6);
  CHECK(solver.row_sets()[1] == cts::BaraffRowSet::kClamped);

  // Stabilisation: q̈ = −kp C − kv Ċ for a bilateral row.
  {
    const double one_m[1] = {1.0}, zero[1] = {0.0}, C[1] = {0.01}, Cd[1] = {0.2};
    cts::BaraffRows bil;
    bil.AddBilateral();
    cts::BaraffSolver s;
    s.SetModelProblemData(cts::BaraffLevel::kAcceleration, 1, one_m, 1, one_m, 1, zero, bil);
    s.SetStabilization(100.0, 20.0, C, Cd, 1);
    CHECK(s.Solve() == cts::BaraffOutcome::kSolved);
    NEAR(s.generalized_result()[0], -5.0, 1e-12);
    s.SetStabilization(100.0, 20.0, C, nullptr, 1);
    CHECK(s.Solve() == cts::BaraffOutcome::kSolved);
    NEAR(s.generalized_result()[0], -1.0, 1e-12);
  }

  // Clone: parameters, no data; move: the handle moves.
  cts::BaraffSolverParameters p;
  p.tolerance = 1e-6;
  p.reverse_retry = false;
  solver.set_solver_parameters(p);
  std::unique_ptr<cts::BaraffSolver> copy = solver.Clone();
  CHECK(copy->get_solver_parameters().tolerance == 1e-6);
  CHECK(copy->get_solver_parameters().reverse_retry == false);
  ExpectError(CTS_STATUS_NO_PROBLEM_DATA, [&] { copy->Solve(); });
  cts::BaraffSolver moved(std::move(solver));
  CHECK(solver.c_handle() == nullptr);
  CHECK(moved.num_rows() == 2);
  CHECK(moved.Solve() == cts::BaraffOutcome::kSolved);  // the moved-to object still owns the rows
  NEAR(moved.forces()[0], 4.151250, 1e-6);

#ifdef CTS_HAVE_EIGEN
  // Eigen: B3c and the rod's sliding data through pointers to Eigen objects.
  const Eigen::MatrixXd Me = Eigen::Map<const Eigen::MatrixXd>(M, 3, 3);
  const Eigen::MatrixXd Je = Eigen::Map<const Eigen::MatrixXd>(J, 4, 3);
  const Eigen::VectorXd taue = Eigen::Map<const Eigen::VectorXd>(tau, 3);
  cts::BaraffSolver es;
  es.SetModelProblemData(cts::BaraffLevel::kAcceleration, &Me, &Je, &taue, box);
  CHECK(es.Solve() == cts::BaraffOutcome::kSolved);
  const Eigen::VectorXd& fe = es.forces();
  CHECK((fe - Eigen::Map<const Eigen::VectorXd>(b3c.data(), 4)).norm() < 1e-9);
  const Eigen::MatrixXd Ae = es.composed_matrix();
  CHECK(Ae.rows() == 4 && std::fabs(Ae(0, 0) - 3.4) < 1e-12);
  const Eigen::VectorXd wrong_tau = Eigen::VectorXd::Zero(2);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH,
              [&] { es.SetModelProblemData(cts::BaraffLevel::kAcceleration, &Me, &Je, &wrong_tau, box); });
  ExpectError(CTS_STATUS_NULL_POINTER,
              [&] { es.SetModelProblemData(cts::BaraffLevel::kAcceleration, &Me, nullptr, &taue, box); });
  const Eigen::MatrixXd Ae2 = Eigen::Map<const Eigen::MatrixXd>(A, 2, 2);
  const Eigen::VectorXd be = Eigen::Map<const Eigen::VectorXd>(b, 2);
  es.SetMatrixProblemData(&Ae2, &be, particle);
  CHECK(es.Solve() == cts::BaraffOutcome::kSolved);
  NEAR(es.forces()[1], -4.905, 1e-9);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { es.SetMatrixProblemData(&Ae2, &be, box); });

  const Eigen::MatrixXd Mre = Eigen::Map<const Eigen::MatrixXd>(Mr, 3, 3);
  const Eigen::MatrixXd jne = Eigen::Map<const Eigen::MatrixXd>(jn, 1, 3);
  const Eigen::MatrixXd Qe = Eigen::Map<const Eigen::MatrixXd>(Q, 1, 3);
  const Eigen::VectorXd mue = Eigen::VectorXd::Constant(1, 3.0), taure = Eigen::Map<const Eigen::VectorXd>(taur, 3);
  es.SetModelProblemData(cts::BaraffLevel::kAcceleration, &Mre, &jne, &taure, one);
  es.SetSliding(&Qe, &mue);
  CHECK(es.Solve() == cts::BaraffOutcome::kUnboundedRay);
  const Eigen::VectorXd mu_right = Eigen::VectorXd::Constant(1, 3.0);
  const Eigen::MatrixXd Qright = -Qe;
  es.SetSliding(&Qright, &mu_right);
  CHECK(es.Solve() == cts::BaraffOutcome::kSolved);
  NEAR(es.forces()[0], 1.372582, 1e-6);
  NEAR(es.sliding_friction_forces()[0], -3.0 * 1.372582, 3e-6);
  std::printf("with Eigen\n");
#else
  const cts::BaraffSolver::Matrix none = moved.composed_matrix();
  CHECK(none.rows() == 2 && std::fabs(none(0, 0) - 3.25) < 1e-12);
  std::printf("without Eigen\n");
#endif
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
