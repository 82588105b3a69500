// Second translation unit of drake_style.cpp: the same class templates (TamsiSolver<double>,
// EigenPtr, internal::TalsLimiter<double>) instantiated in two objects linked together, so a
// non-inline definition in the header would fail to link (ODR).
#include "contact_solvers.hpp"

int SecondTranslationUnitDrakeStyle() {
  const Eigen::Matrix3d M = Eigen::Matrix3d::Identity();
  const Eigen::Matrix<double, 0, 3> Jn, Jt;
  const Eigen::Vector3d p_star(1.0, 2.0, 3.0);
  const Eigen::Matrix<double, 0, 1> none;
  cts::TamsiSolver<double> solver(3);
  solver.SetOneWayCoupledProblemData(&M, &Jn, &Jt, &p_star, &none, &none);
  solver.SolveWithGuess(1e-3, p_star);
  const std::optional<double> alpha = cts::internal::TalsLimiter<double>::CalcAlpha(
      cts::Vector2<double>(0.0, 0.0), cts::Vector2<double>(0.0, 0.0), 0.5, 1e-4, 1e-2);
  // No contacts: v = M⁻¹ p* = (1, 2, 3); the limiter's Case I gives α = 1.
  const bool ok = solver.get_generalized_velocities() == p_star && alpha == 1.0;
  return ok ? solver.num_velocities() : -1;
}
