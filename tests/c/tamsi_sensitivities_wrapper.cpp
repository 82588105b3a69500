// The C++ wrapper's TAMSI sensitivities (TamsiSolver::ComputeSensitivities, the three getters,
// CalcVectorJacobianProduct), with Eigen or (CTS_NO_EIGEN) without: on two point masses on the
// ground (one sliding, one brought to stiction; two-way coupling) the Jacobians have the documented shapes
// and match central differences of tightly converged solves to 1e-6 relative; the product equals
// gᵀ·(full Jacobian) to round-off; a one-way problem has no stiffness gradient; usage errors
// throw cts::Error with the library's status (CTS_STATUS_NO_SOLUTION, CTS_STATUS_NO_SENSITIVITIES,
// CTS_STATUS_DIMENSION_MISMATCH).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "contact_solvers.hpp"

int SecondTranslationUnitNumVelocities(int nv);

static int failures = 0;
#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) {                                                  \
      ++failures;                                                   \
      std::printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                               \
  } while (0)

// Expects `call` to throw cts::Error with status `want`.
#define EXPECT_STATUS(call, want)                                                                     \
  do {                                                                                                \
    bool thrown_ = false;                                                                             \
    try {                                                                                             \
      call;                                                                                           \
    } catch (const cts::Error& e) {                                                                   \
      thrown_ = true;                                                                                 \
      if (e.status() != (want)) {                                                                     \
        ++failures;                                                                                   \
        std::printf("FAILED %s:%d: %s threw %d \"%s\"\n", __FILE__, __LINE__, #call, (int)e.status(), \
                    e.what());                                                                        \
      }                                                                                               \
    }                                                                                                 \
    if (!thrown_) {                                                                                   \
      ++failures;                                                                                     \
      std::printf("FAILED %s:%d: %s did not throw\n", __FILE__, __LINE__, #call);                     \
    }                                                                                                 \
  } while (0)

namespace {

constexpr int kNv = 6;
constexpr int kNc = 2;
constexpr double kDt = 1e-3;
constexpr double kMass = 2.0;
constexpr double kGravity = 9.81;

using Param = cts::TamsiSensitivityParameter;

// Two point masses of 2 kg (velocities x, y, z each) on the ground: mass 0 slides at 0.5 m/s
// along x, mass 1 at 2 mm/s, which friction stops. Contact i: normal z, tangents x and y of mass i.
struct Problem {
  std::vector<double> M, Jn, Jt, p_star, v0, fn0, k, d, mu;

  Problem()
      : M(kNv * kNv, 0.0),
        Jn(kNc * kNv, 0.0),
        Jt(2 * kNc * kNv, 0.0),
        p_star(kNv, 0.0),
        v0(kNv, 0.0),
        fn0(kNc, kMass * kGravity),
        k(kNc, 1e4),
        d(kNc, 1.0),
        mu{0.5, 0.8} {
    for (int i = 0; i < kNv; ++i) M[i * kNv + i] = kMass;
    for (int c = 0; c < kNc; ++c) {
      Jn[(3 * c + 2) * kNc + c] = 1.0;
      Jt[(3 * c + 0) * 2 * kNc + 2 * c] = 1.0;
      Jt[(3 * c + 1) * 2 * kNc + 2 * c + 1] = 1.0;
    }
    v0[0] = 0.5;
    v0[3] = 2e-3;  // mass 1 is stopped by friction into stiction (|vt| < vs)
    for (int i = 0; i < kNv; ++i) p_star[i] = kMass * v0[i] - (i % 3 == 2 ? kMass * kGravity * kDt : 0.0);
  }

  void set(cts::TamsiSolver<>& s, bool two_way) const {
    if (two_way) {
      s.SetTwoWayCoupledProblemData(kNc, M.data(), kNv, Jn.data(), kNc, Jt.data(), 2 * kNc, p_star.data(),
                                    fn0.data(), k.data(), d.data(), mu.data());
    } else {
      s.SetOneWayCoupledProblemData(kNc, M.data(), kNv, Jn.data(), kNc, Jt.data(), 2 * kNc, p_star.data(),
                                    fn0.data(), mu.data());
    }
  }
};

cts::TamsiSolverParameters tight() {
  cts::TamsiSolverParameters p;
  p.stiction_tolerance = 1e-3;
  p.relative_tolerance = 1e-8;
  p.max_iterations = 200;
  return p;
}

// v and ft of a tight solve of `p`.
std::vector<double> solve(const Problem& p) {
  cts::TamsiSolver<> s(kNv);
  s.set_solver_parameters(tight());
  p.set(s, true);
  CHECK(s.SolveWithGuess(kDt, p.v0.data(), kNv) == cts::TamsiSolverResult::kSuccess);
  std::vector<double> out;
  for (int i = 0; i < kNv; ++i) out.push_back(s.get_generalized_velocities()[i]);
  for (int i = 0; i < 2 * kNc; ++i) out.push_back(s.get_friction_forces()[i]);
  return out;
}

// Column j of ∂(v, ft)/∂θ by central differences, θ = mu (which = 0) or p* (which = 1).
std::vector<double> central_difference(int which, int j) {
  Problem plus, minus;
  std::vector<double>& a = which == 0 ? plus.mu : plus.p_star;
  std::vector<double>& b = which == 0 ? minus.mu : minus.p_star;
  const double h = 1e-6 * std::max(1.0, std::fabs(a[j]));
  a[j] += h;
  b[j] -= h;
  const std::vector<double> up = solve(plus), down = solve(minus);
  std::vector<double> col(up.size());
  for (std::size_t r = 0; r < up.size(); ++r) col[r] = (up[r] - down[r]) / (2 * h);
  return col;
}

// Compares column j of `v_sens` (nv rows) stacked on `ft_sens` (2nc rows) with `want`.
template <typename Matrix>
void check_column(const Matrix& v_sens, const Matrix& ft_sens, int j, const std::vector<double>& want) {
  double scale = 0.0, err = 0.0;
  for (double x : want) scale = std::max(scale, std::fabs(x));
  for (int r = 0; r < kNv; ++r) err = std::max(err, std::fabs(v_sens(r, j) - want[r]));
  for (int r = 0; r < 2 * kNc; ++r) err = std::max(err, std::fabs(ft_sens(r, j) - want[kNv + r]));
  if (!(err <= 1e-6 * scale)) std::printf("column %d: error %g, scale %g\n", j, err, scale);
  CHECK(scale > 0.0 && err <= 1e-6 * scale);
}

}  // namespace

int main() {
  CHECK(SecondTranslationUnitNumVelocities(kNv) == kNv);
  const Problem p;
  cts::TamsiSolver<> s(kNv);
  s.set_solver_parameters(tight());
  CHECK(!s.is_two_way_coupled());
  p.set(s, true);
  CHECK(s.is_two_way_coupled());
  EXPECT_STATUS(s.ComputeSensitivities(), CTS_STATUS_NO_SOLUTION);
  CHECK(s.SolveWithGuess(kDt, p.v0.data(), kNv) == cts::TamsiSolverResult::kSuccess);
  // The box slides, the other sticks (|vt| below vs).
  CHECK(s.get_generalized_velocities()[0] > 0.4);
  CHECK(std::fabs(s.get_generalized_velocities()[3]) < 1e-3);
  s.ComputeSensitivities();

  const auto dv_dmu = s.get_velocity_sensitivity(Param::kMu);
  const auto dft_dmu = s.get_friction_force_sensitivity(Param::kMu);
  const auto dfn_dmu = s.get_normal_force_sensitivity(Param::kMu);
  const auto dv_dp = s.get_velocity_sensitivity(Param::kPStar);
  const auto dft_dp = s.get_friction_force_sensitivity(Param::kPStar);
  const auto dv_ddt = s.get_velocity_sensitivity(Param::kTimeStep);
  CHECK(dv_dmu.rows() == kNv && dv_dmu.cols() == kNc);
  CHECK(dft_dmu.rows() == 2 * kNc && dfn_dmu.rows() == kNc && dfn_dmu.cols() == kNc);
  CHECK(dv_dp.rows() == kNv && dv_dp.cols() == kNv && dv_ddt.cols() == 1);
  for (int j = 0; j < kNc; ++j) check_column(dv_dmu, dft_dmu, j, central_difference(0, j));
  for (int j : {0, 2, 3, 4}) check_column(dv_dp, dft_dp, j, central_difference(1, j));
  // One-way parameters are refused for two-way data.
  EXPECT_STATUS(s.get_velocity_sensitivity(Param::kNormalForce), CTS_STATUS_INVALID_ARGUMENT);

  // The product equals gᵀ·(full Jacobian) to round-off.
  std::vector<double> g(kNv), gft(2 * kNc);
  for (int i = 0; i < kNv; ++i) g[i] = 1.0 + 0.25 * i;
  for (int i = 0; i < 2 * kNc; ++i) gft[i] = 0.5 - 0.3 * i;
#ifdef CTS_HAVE_EIGEN
  const Eigen::VectorXd ge = Eigen::Map<const Eigen::VectorXd>(g.data(), kNv);
  const Eigen::VectorXd gfte = Eigen::Map<const Eigen::VectorXd>(gft.data(), 2 * kNc);
  const cts::TamsiGradient grad = s.CalcVectorJacobianProduct(ge, Eigen::VectorXd(), gfte);
  EXPECT_STATUS(s.CalcVectorJacobianProduct(ge, Eigen::VectorXd::Zero(3)), CTS_STATUS_DIMENSION_MISMATCH);
#else
  const cts::TamsiGradient grad = s.CalcVectorJacobianProduct(g, {}, gft);
  EXPECT_STATUS(s.CalcVectorJacobianProduct(g, std::vector<double>(3, 0.0)), CTS_STATUS_DIMENSION_MISMATCH);
#endif
  CHECK(grad.p_star.size() == kNv && grad.mu.size() == kNc && grad.stiffness.size() == kNc);
  for (int j = 0; j < kNc; ++j) {
    double want = 0.0, scale = 0.0;
    for (int r = 0; r < kNv; ++r) want += g[r] * dv_dmu(r, j), scale += std::fabs(g[r] * dv_dmu(r, j));
    for (int r = 0; r < 2 * kNc; ++r) want += gft[r] * dft_dmu(r, j), scale += std::fabs(gft[r] * dft_dmu(r, j));
    CHECK(std::fabs(grad.mu[j] - want) <= 1e-13 * scale);
  }
  double want_dt = 0.0, scale_dt = 0.0;
  for (int r = 0; r < kNv; ++r) want_dt += g[r] * dv_ddt(r, 0), scale_dt += std::fabs(g[r] * dv_ddt(r, 0));
  const auto dft_ddt = s.get_friction_force_sensitivity(Param::kTimeStep);
  for (int r = 0; r < 2 * kNc; ++r) want_dt += gft[r] * dft_ddt(r, 0), scale_dt += std::fabs(gft[r] * dft_ddt(r, 0));
  CHECK(std::fabs(grad.dt - want_dt) <= 1e-13 * scale_dt);
  EXPECT_STATUS(s.CalcVectorJacobianProduct(g.data(), kNv - 1), CTS_STATUS_DIMENSION_MISMATCH);

  // One-way data: fn is a parameter, no stiffness or dissipation gradients.
  cts::TamsiSolver<> one(kNv);
  p.set(one, false);
  CHECK(!one.is_two_way_coupled());
  CHECK(one.SolveWithGuess(kDt, p.v0.data(), kNv) == cts::TamsiSolverResult::kSuccess);
  const cts::TamsiGradient g1 = one.CalcVectorJacobianProduct(g.data(), kNv);
  CHECK(g1.normal.size() == kNc && g1.stiffness.size() == 0 && g1.dissipation.size() == 0);
  one.ComputeSensitivities();
  CHECK(one.get_normal_force_sensitivity(Param::kNormalForce)(1, 1) == 1.0);
  EXPECT_STATUS(one.get_velocity_sensitivity(Param::kStiffness), CTS_STATUS_INVALID_ARGUMENT);

  // A solve that ran out of iterations has no sensitivities.
  cts::TamsiSolver<> short_run(kNv);
  cts::TamsiSolverParameters few = tight();
  few.max_iterations = 1;
  short_run.set_solver_parameters(few);
  p.set(short_run, true);
  CHECK(short_run.SolveWithGuess(kDt, p.v0.data(), kNv) == cts::TamsiSolverResult::kMaxIterationsReached);
  EXPECT_STATUS(short_run.ComputeSensitivities(), CTS_STATUS_NO_SENSITIVITIES);
  EXPECT_STATUS(short_run.CalcVectorJacobianProduct(g.data(), kNv), CTS_STATUS_NO_SENSITIVITIES);

#ifdef CTS_HAVE_EIGEN
  std::printf("with Eigen\n");
#else
  std::printf("without Eigen\n");
#endif
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
