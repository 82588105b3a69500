// Second translation unit including the wrapper: linking it with wrapper_main.cpp catches
// non-inline definitions in the header-only wrapper (ODR violations).
#include "contact_solvers.hpp"

int SecondTranslationUnitNumVelocities(int nv) {
  cts::TamsiSolver solver(nv);
  return solver.num_velocities();
}
