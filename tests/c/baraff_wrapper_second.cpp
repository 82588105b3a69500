// Second translation unit including the wrapper: linking it with baraff_wrapper.cpp catches
// non-inline definitions in the header-only wrapper (ODR violations).
#include "contact_solvers.hpp"

int SecondTranslationUnitBaraffRows(int m) {
  cts::BaraffRows rows;
  for (int i = 0; i < m; ++i) rows.AddNormal();
  cts::BaraffSolver solver;
  return rows.size();
}
