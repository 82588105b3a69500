// Pizza saver (Drake's PizzaSaver test, docs/tamsi_cases.md §2), written the way a Drake user
// writes it: Eigen matrices, SetOneWayCoupledProblemData with pointers, SolveWithGuess, getters.
// Only the include and the namespace differ from Drake:
//   #include <drake/multibody/plant/tamsi_solver.h>  ->  #include "contact_solvers.hpp"
//   drake::multibody::TamsiSolver<double>            ->  cts::TamsiSolver<double>
//
// A pizza saver is an equilateral triangle standing on three legs (one contact each) and moving
// in the plane of a table: v = (vx, vy, ω). Normal forces are known (one-way coupling): each leg
// carries m g / 3. A moment Mz about the vertical axis is applied for one 1 ms step. Friction
// holds it below Mz = μ m g R = 5 N·m (stiction) and lets it spin above.
//
// Build: c++ -std=c++17 -Iinclude -I/usr/include/eigen3 examples_c/pizza_saver.cpp
//        -Ltarget/release -lcontact_solvers

#include <cmath>
#include <cstdio>
#include <iostream>

#include "contact_solvers.hpp"

namespace {

using Eigen::Matrix2d;
using Eigen::MatrixXd;
using Eigen::Vector2d;
using Eigen::VectorXd;

constexpr int nv = 3;
constexpr int nc = 3;
constexpr double m = 1.0;        // kg
constexpr double R = 1.0;        // m, distance from the center to each leg
constexpr double g = 10.0;       // m/s²
constexpr double I = R * R * m;  // kg m²
constexpr double mu = 0.5;
constexpr double dt = 1.0e-3;    // s

void PrintVector(const char* label, const Eigen::Ref<const VectorXd>& x) {
  std::printf("  %-22s:", label);
  for (Eigen::Index i = 0; i < x.size(); ++i) std::printf(" %.17g", x[i]);
  std::printf("\n");
}

// Tangential-velocity Jacobian of the three legs at orientation theta (rows 2i, 2i+1: leg i).
MatrixXd ComputeTangentialJacobian(double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  Matrix2d R_WB;
  R_WB << c, s, -s, c;
  const Vector2d legs[nc] = {{-std::sqrt(3.0) / 2.0, -0.5}, {std::sqrt(3.0) / 2.0, -0.5}, {0.0, 1.0}};
  MatrixXd Jt = MatrixXd::Zero(2 * nc, nv);
  for (int i = 0; i < nc; ++i) {
    const Vector2d p = R_WB * (legs[i] * R);
    Jt.block<2, 3>(2 * i, 0) << 1, 0, -p.y(), 0, 1, p.x();
  }
  return Jt;
}

int Solve(const char* name, double Mz, bool with_contact) {
  // Drake's setters take pointers: the data is borrowed and must outlive the solve.
  const MatrixXd M = Eigen::Vector3d(m, m, I).asDiagonal();
  const MatrixXd Jn = MatrixXd::Zero(with_contact ? nc : 0, nv);  // in-plane motion: vn = 0
  const MatrixXd Jt = with_contact ? ComputeTangentialJacobian(M_PI / 5.0) : MatrixXd::Zero(0, nv);
  const VectorXd v0 = VectorXd::Zero(nv);
  const VectorXd tau = Eigen::Vector3d(0.0, 0.0, Mz);
  const VectorXd p_star = M * v0 + dt * tau;
  const VectorXd fn = VectorXd::Constant(with_contact ? nc : 0, m * g / nc);
  const VectorXd mu_vector = VectorXd::Constant(with_contact ? nc : 0, mu);

  cts::TamsiSolver<double> solver(nv);
  cts::TamsiSolverParameters parameters;  // Drake's defaults ...
  parameters.stiction_tolerance = 1.0e-6;  // ... with the test's tighter tolerances
  parameters.relative_tolerance = 1.0e-4;
  if (with_contact) solver.set_solver_parameters(parameters);
  solver.SetOneWayCoupledProblemData(&M, &Jn, &Jt, &p_star, &fn, &mu_vector);

  const cts::TamsiSolverResult result = solver.SolveWithGuess(dt, v0);
  const cts::TamsiSolverIterationStats& stats = solver.get_iteration_statistics();

  std::printf("%s: Mz = %g N m, nc = %d\n", name, Mz, static_cast<int>(fn.size()));
  std::printf("  %-22s: %d (%s)\n", "outcome", static_cast<int>(result),
              result == cts::TamsiSolverResult::kSuccess ? "kSuccess" : "not converged");
  std::printf("  %-22s: %d\n", "iterations", stats.num_iterations);
  std::printf("  %-22s: %.3g\n", "last |dvt| [m/s]", stats.vt_residual());
  PrintVector("v [m/s, m/s, rad/s]", solver.get_generalized_velocities());
  if (with_contact) {
    PrintVector("vt [m/s]", solver.get_tangential_velocities());
    PrintVector("fn [N]", solver.get_normal_forces());
    PrintVector("ft [N]", solver.get_friction_forces());
    const Eigen::VectorBlock<const VectorXd> vt = solver.get_tangential_velocities();
    std::printf("  %-22s: %s\n", "regime",
                vt.head<2>().norm() < parameters.stiction_tolerance ? "stiction" : "sliding");
  }
  PrintVector("tau_f [N, N, N m]", solver.get_generalized_friction_forces());
  PrintVector("tau [N, N, N m]", solver.get_generalized_contact_forces());
  return result == cts::TamsiSolverResult::kSuccess ? 0 : 1;
}

}  // namespace

int main() {
  std::printf("contact_solvers %s: TAMSI pizza saver (one-way coupled, dt = 1 ms)\n\n", cts_version());
  int failures = 0;
  failures += Solve("small applied moment", 3.0, true);
  failures += Solve("large applied moment", 6.0, true);
  failures += Solve("no contact", 6.0, false);

  // Usage errors throw cts::Error with the library's message.
  try {
    cts::TamsiSolver<double> solver(nv);
    solver.SolveWithGuess(dt, VectorXd::Zero(nv));
    failures += 1;
  } catch (const cts::Error& e) {
    std::printf("usage error caught: %s\n", e.what());
  }
  return failures == 0 ? 0 : 1;
}
