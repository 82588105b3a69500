// The C++ wrapper (include/contact_solvers.hpp), with Eigen or (CTS_NO_EIGEN) without: usage
// errors throw cts::Error with the library's status and message, outcomes are returned, results
// match Drake's rolling-cylinder reference, getters return Drake's zeros before a solve,
// RAII/move/Clone behave. Exits 0 when every check passes.
#include <cmath>
#include <cstdio>
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
      std::printf("FAILED: status %d (%s), want %d\n", static_cast<int>(e.status()), e.what(),
                  static_cast<int>(want));
    }
  }
}

int main() {
  const int nv = 3;
  // Rolling cylinder, one contact, column-major raw arrays.
  const double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double Jn[3] = {0, 1, 0};
  const double Jt[6] = {1, 0, 0, 0, 1, 0};
  const double p_star[3] = {0.5, -3.009, 0.0};
  const double fn0[1] = {9000.0}, k[1] = {9.0e6}, d[1] = {1.0 / 3000.0 / 1.0e-6}, mu[1] = {0.1};
  const double fn[1] = {3000.0};
  const std::vector<double> v0_std = {0.5, -3.0, 0.0};

  CHECK(SecondTranslationUnitNumVelocities(5) == 5);

  cts::TamsiSolver solver(nv);
  ExpectError(CTS_STATUS_NO_PROBLEM_DATA, [&] { solver.SolveWithGuess(1e-3, v0_std.data(), 3); });
  // Before any solve: Drake's zeros (v, tau of size nv), no contacts, empty statistics.
  CHECK(solver.get_generalized_velocities().size() == 3);
  CHECK(solver.get_generalized_velocities()[0] == 0.0 && solver.get_generalized_contact_forces()[2] == 0.0);
  CHECK(solver.get_normal_forces().size() == 0 && solver.get_friction_forces().size() == 0);
  CHECK(solver.get_iteration_statistics().num_iterations == 0 && solver.get_iteration_statistics().residuals.empty());
  CHECK(std::isnan(solver.get_iteration_statistics().vt_residual()));
  CHECK(solver.get_capacity() == 128);
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.ResizeIfNeeded(0); });
  cts::TamsiSolverParameters bad;
  bad.theta_max = 3.0;
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.set_solver_parameters(bad); });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] {
    solver.SetTwoWayCoupledProblemData(1, M, 2, Jn, 1, Jt, 1, p_star, fn0, k, d, mu);  // ld_Jt < 2
  });

  cts::TamsiSolverParameters p;
  p.stiction_tolerance = 1.0e-6;
  solver.set_solver_parameters(p);
  CHECK(solver.get_solver_parameters().stiction_tolerance == 1.0e-6);
  CHECK(solver.get_solver_parameters().max_iterations == 100);
  solver.SetTwoWayCoupledProblemData(1, M, 3, Jn, 1, Jt, 2, p_star, fn0, k, d, mu);
  CHECK(solver.num_contacts() == 1);
  // Data set, not yet solved: zeros of the new sizes (the library dropped the results).
  CHECK(solver.get_normal_forces().size() == 1 && solver.get_normal_forces()[0] == 0.0);
  CHECK(solver.get_tangential_velocities().size() == 2 && solver.get_tangential_velocities()[1] == 0.0);
  ExpectError(CTS_STATUS_WRONG_COUPLING_SCHEME,
              [&] { solver.SetOneWayCoupledProblemData(1, M, 3, Jn, 1, Jt, 2, p_star, fn, mu); });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.SolveWithGuess(-1.0, v0_std.data(), 3); });

  const cts::TamsiSolverResult result = solver.SolveWithGuess(1e-3, v0_std.data(), 3);
  CHECK(result == cts::TamsiSolverResult::kSuccess);
  CHECK(solver.get_iteration_statistics().num_iterations == 8);
  CHECK(solver.get_iteration_statistics().residuals.size() == 8);
  const cts::Vector& v = solver.get_generalized_velocities();
  CHECK(v.size() == 3);
  CHECK(std::fabs(v[0] - 0.25000029405060681) < 1e-12);
  CHECK(std::fabs(v[2] + 0.24999970594939319) < 1e-12);
  CHECK(solver.get_tangential_velocities().size() == 2);
  CHECK(std::fabs(solver.get_normal_forces()[0] - 3010.9943295852108) < 1e-9);
  CHECK(solver.get_generalized_contact_forces().size() == 3);

  // max_iterations = 1 always ends in kMaxIterationsReached: an outcome, not an exception.
  {
    cts::TamsiSolver one(nv);
    cts::TamsiSolverParameters q;
    q.max_iterations = 1;
    one.set_solver_parameters(q);
    one.SetTwoWayCoupledProblemData(1, M, 3, Jn, 1, Jt, 2, p_star, fn0, k, d, mu);
    CHECK(one.SolveWithGuess(1e-3, v0_std.data(), 3) == cts::TamsiSolverResult::kMaxIterationsReached);
    CHECK(one.get_iteration_statistics().num_iterations == 1);
  }

  // SolveBatch (docs/c_api.md §1.10): each world is its SolveWithGuess, bit for bit, on two
  // threads; a world without data, a null solver and a solver listed twice are per-world statuses.
  {
    cts::TamsiSolver a(nv), limited(nv), empty(nv);
    a.set_solver_parameters(p);
    cts::TamsiSolverParameters q;
    q.max_iterations = 1;
    limited.set_solver_parameters(q);
    a.SetTwoWayCoupledProblemData(1, M, 3, Jn, 1, Jt, 2, p_star, fn0, k, d, mu);
    limited.SetTwoWayCoupledProblemData(1, M, 3, Jn, 1, Jt, 2, p_star, fn0, k, d, mu);
    cts::Vector g = cts::internal::make_vector(3);
    for (int i = 0; i < 3; ++i) g[i] = v0_std[static_cast<std::size_t>(i)];
    const std::vector<cts_status> st =
        cts::TamsiSolver<>::SolveBatch({&a, &limited, &empty, nullptr}, {1e-3, 1e-3, 1e-3, 1e-3}, {g, g, g, g}, 2);
    CHECK(st.size() == 4 && st[0] == CTS_STATUS_OK && st[1] == CTS_STATUS_MAX_ITERATIONS_REACHED);
    CHECK(st[2] == CTS_STATUS_NO_PROBLEM_DATA && st[3] == CTS_STATUS_NULL_POINTER);
    for (int i = 0; i < 3; ++i) CHECK(a.get_generalized_velocities()[i] == v[i]);
    CHECK(a.get_normal_forces()[0] == solver.get_normal_forces()[0]);
    CHECK(limited.get_iteration_statistics().num_iterations == 1);
    const std::vector<cts_status> dup = cts::TamsiSolver<>::SolveBatch({&a, &a}, {1e-3, 1e-3}, {g, g});
    CHECK(dup[0] == CTS_STATUS_INVALID_ARGUMENT && dup[1] == CTS_STATUS_INVALID_ARGUMENT);
    ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { cts::TamsiSolver<>::SolveBatch({&a}, {1e-3, 1e-3}, {g}); });
    CHECK(cts::TamsiSolver<>::SolveBatch({}, {}, {}).empty());
  }

  // Clone: parameters, no data; move: the handle moves.
  std::unique_ptr<cts::TamsiSolver<double>> copy = solver.Clone();
  CHECK(copy->get_solver_parameters().stiction_tolerance == 1.0e-6);
  ExpectError(CTS_STATUS_NO_PROBLEM_DATA, [&] { copy->SolveWithGuess(1e-3, v0_std.data(), 3); });
  cts::TamsiSolver moved(std::move(*copy));
  CHECK(moved.num_velocities() == nv);
  CHECK(copy->c_handle() == nullptr);

#ifdef CTS_HAVE_EIGEN
  // Drake style: pointers to Eigen matrices, Eigen vectors back.
  const Eigen::MatrixXd Me = Eigen::MatrixXd::Identity(3, 3);
  Eigen::MatrixXd Jne(1, 3), Jte(2, 3);
  Jne << 0, 1, 0;
  Jte << 1, 0, 1, 0, 0, 0;
  const Eigen::VectorXd pe = Eigen::Map<const Eigen::VectorXd>(p_star, 3);
  const Eigen::VectorXd fn0e = Eigen::VectorXd::Constant(1, 9000.0), ke = Eigen::VectorXd::Constant(1, 9.0e6);
  const Eigen::VectorXd de = Eigen::VectorXd::Constant(1, 1.0 / 3000.0 / 1.0e-6), mue = Eigen::VectorXd::Constant(1, 0.1);
  cts::TamsiSolver drake_style(nv);
  drake_style.set_solver_parameters(p);
  drake_style.SetTwoWayCoupledProblemData(&Me, &Jne, &Jte, &pe, &fn0e, &ke, &de, &mue);
  const Eigen::VectorXd v0e = Eigen::Map<const Eigen::VectorXd>(v0_std.data(), 3);
  CHECK(drake_style.SolveWithGuess(1e-3, v0e) == cts::TamsiSolverResult::kSuccess);
  const Eigen::VectorXd& ve = drake_style.get_generalized_velocities();
  CHECK((ve - Eigen::Map<const Eigen::VectorXd>(v.data(), 3)).norm() == 0.0);
  const Eigen::VectorXd wrong = Eigen::VectorXd::Zero(2);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH,
              [&] { drake_style.SetTwoWayCoupledProblemData(&Me, &Jne, &Jte, &wrong, &fn0e, &ke, &de, &mue); });
  ExpectError(CTS_STATUS_NULL_POINTER,
              [&] { drake_style.SetTwoWayCoupledProblemData(&Me, nullptr, &Jte, &pe, &fn0e, &ke, &de, &mue); });
  std::printf("with Eigen\n");
#else
  std::printf("without Eigen\n");
#endif
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
