// Second translation unit including the wrapper with cts::IpmSolver: linking it with
// ipm_wrapper.cpp catches non-inline definitions in the header-only wrapper (ODR violations).
#include "contact_solvers.hpp"

int SecondTranslationUnitIpmContacts(int nc) {
  const double M[1] = {1.0}, Jn[4] = {1.0, 1.0, 1.0, 1.0}, Jt[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const double v0[1] = {0.0}, tau[1] = {-1.0}, phi[4] = {0, 0, 0, 0}, mu[4] = {0, 0, 0, 0};
  const cts::IpmContactModel models[4] = {cts::IpmContactModel::kImpact, cts::IpmContactModel::kImpact,
                                          cts::IpmContactModel::kImpact, cts::IpmContactModel::kImpact};
  cts::IpmSolver solver;
  solver.SetProblemData(1, nc, M, 1, Jn, nc > 0 ? nc : 1, Jt, nc > 0 ? 2 * nc : 1, v0, tau, 0.1, phi, mu, models);
  return solver.num_contacts();
}
