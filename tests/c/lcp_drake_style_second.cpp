// Second translation unit of lcp_drake_style.cpp: the LCP classes and their Eigen overloads
// (UnrevisedLemkeSolver<double>, the MatrixBase templates, the error types) instantiated in two
// objects linked together, so a non-inline definition in the header would fail to link (ODR).
#include <stdexcept>

#include "contact_solvers.hpp"

int SecondTranslationUnitLcpDrakeStyle() {
  // [[2, 1], [1, 2]] z = (5, 6): z = (4/3, 7/3).
  const Eigen::Matrix2d M = (Eigen::Matrix2d() << 2, 1, 1, 2).finished();
  const Eigen::Vector2d q(-5, -6);
  Eigen::VectorXd z;
  int num_pivots = -1;
  cts::UnrevisedLemkeSolver<double> unrevised;
  cts::MobyLcpSolver moby;
  bool ok = unrevised.SolveLcpLemke(M, q, &z, &num_pivots) && std::abs(z[0] - 4.0 / 3) < 1e-14 &&
            std::abs(z[1] - 7.0 / 3) < 1e-14;
  ok = moby.SolveLcpFast(2.0 * M, 2.0 * q, &z) && std::abs(z[1] - 7.0 / 3) < 1e-14 && ok;
  try {
    moby.SolveLcpLemke(M, Eigen::Vector3d::Zero(), &z);
    ok = false;
  } catch (const std::logic_error&) {
  }
  return ok ? static_cast<int>(z.size()) : -1;
}
