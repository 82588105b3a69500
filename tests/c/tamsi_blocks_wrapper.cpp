// The C++ wrapper's block-sparse TAMSI setters (cts::BlockSparseData,
// TamsiSolver::SetOne/TwoWayCoupledBlockProblemData), with Eigen or (CTS_NO_EIGEN) without: the
// same problem set densely and in blocks takes the same iterations and agrees to 1e-12; the raw
// pointer form equals the container form bit for bit; usage errors throw cts::Error with the
// library's status and message and keep the previous data.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "contact_solvers.hpp"

int SecondTranslationUnitNumVelocities(int nv);

static int failures = 0;
#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      ++failures;                                                      \
      std::printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);    \
    }                                                                  \
  } while (0)

// Expects `call` to throw cts::Error with status `want` and a message containing `text`.
#define EXPECT_ERROR(call, want, text)                                                              \
  do {                                                                                                \
    bool thrown_ = false;                                                                             \
    try {                                                                                             \
      call;                                                                                           \
    } catch (const cts::Error& e) {                                                                   \
      thrown_ = true;                                                                                 \
      if (e.status() != (want) || std::string(e.what()).find(text) == std::string::npos) {          \
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

constexpr int kNv = 13;
constexpr int kNc = 2;
constexpr double kDt = 1e-3;

#ifdef CTS_HAVE_EIGEN
using Vec = Eigen::VectorXd;
Vec make(int n) { return Vec::Zero(n); }
#else
using Vec = std::vector<double>;
Vec make(int n) { return Vec(static_cast<std::size_t>(n), 0.0); }
#endif

// Two free boxes (0.2 m, 1 kg) and a 1-dof tree without contact: box 0 slides at 0.5 m/s on the
// ground (contact 0: tree 0 and the static world), box 1 rests on box 0 (contact 1: trees 1, 0).
struct Problem {
  std::vector<int32_t> tree_dofs{6, 6, 1};
  std::vector<int32_t> contact_trees{0, -1, 1, 0};
  std::vector<double> M, J;
  Vec p_star = make(kNv), v0 = make(kNv), fn0 = make(kNc), k = make(kNc), d = make(kNc), mu = make(kNc);
  std::vector<double> M_dense, Jn, Jt;  // column-major nv×nv, nc×nv, 2nc×nv

  Problem() : M(73, 0.0), J(54, 0.0), M_dense(kNv * kNv, 0.0), Jn(kNc * kNv, 0.0), Jt(2 * kNc * kNv, 0.0) {
    const double inertia = 0.2 * 0.2 / 6.0;
    for (int t = 0; t < 2; ++t)
      for (int c = 0; c < 6; ++c) M[36 * t + 7 * c] = c < 3 ? 1.0 : inertia;
    M[72] = 2.0;
    // Blocks: box 0 bottom, box 1 bottom, minus box 0 top (rows normal z, t1 x, t2 y).
    const double sign[3] = {1.0, 1.0, -1.0};
    const double arm[3] = {-0.1, -0.1, 0.1};
    for (int b = 0; b < 3; ++b) {
      double* block = J.data() + 18 * b;
      block[3 * 2 + 0] = sign[b];
      block[3 * 0 + 1] = sign[b];
      block[3 * 1 + 2] = sign[b];
      block[3 * 4 + 1] = sign[b] * arm[b];   // (ω × r)_x = r_z ω_y
      block[3 * 3 + 2] = -sign[b] * arm[b];  // (ω × r)_y = -r_z ω_x
    }
    v0[0] = 0.5;
    v0[12] = 0.25;
    for (int r = 0; r < kNv; ++r) p_star[r] = (r == 12 ? 2.0 : r % 6 < 3 ? 1.0 : inertia) * v0[r];
    p_star[2] -= kDt * 9.81;
    p_star[8] -= kDt * 9.81;
    for (int i = 0; i < kNc; ++i) {
      k[i] = 9810.0;
      d[i] = 10.096375546923044;
      mu[i] = 0.5;
    }
    fn0[0] = 2.0 * 9.81;
    fn0[1] = 9.81;
    const int first[3] = {0, 6, 12};
    for (int t = 0; t < 3; ++t)
      for (int c = 0; c < tree_dofs[t]; ++c)
        for (int r = 0; r < tree_dofs[t]; ++r)
          M_dense[(first[t] + r) + kNv * (first[t] + c)] = t < 2 ? M[36 * t + r + 6 * c] : M[72];
    const double* block = J.data();
    for (int i = 0; i < kNc; ++i) {
      for (int slot = 0; slot < 2; ++slot) {
        const int tree = contact_trees[2 * i + slot];
        if (tree < 0) continue;
        for (int c = 0; c < tree_dofs[tree]; ++c) {
          Jn[i + kNc * (first[tree] + c)] = block[3 * c];
          Jt[2 * i + 2 * kNc * (first[tree] + c)] = block[3 * c + 1];
          Jt[2 * i + 1 + 2 * kNc * (first[tree] + c)] = block[3 * c + 2];
        }
        block += 3 * tree_dofs[tree];
      }
    }
  }
};

bool same(const Vec& a, const Vec& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

}  // namespace

int main() {
  Problem p;
  cts::BlockSparseData data(p.tree_dofs, p.M, p.contact_trees, p.J);
  CHECK(data.num_trees() == 3 && data.num_contacts() == 2);

  // Dense and blocks through the wrapper.
  cts::TamsiSolver<double> dense(kNv), blocks(kNv);
  dense.SetTwoWayCoupledProblemData(kNc, p.M_dense.data(), kNv, p.Jn.data(), kNc, p.Jt.data(), 2 * kNc,
                                    p.p_star.data(), p.fn0.data(), p.k.data(), p.d.data(), p.mu.data());
  blocks.SetTwoWayCoupledBlockProblemData(data, &p.p_star, &p.fn0, &p.k, &p.d, &p.mu);
  CHECK(blocks.num_contacts() == kNc);
  CHECK(dense.SolveWithGuess(kDt, p.v0) == cts::TamsiSolverResult::kSuccess);
  CHECK(blocks.SolveWithGuess(kDt, p.v0) == cts::TamsiSolverResult::kSuccess);
  CHECK(blocks.get_iteration_statistics().num_iterations == dense.get_iteration_statistics().num_iterations);
  const Vec v = blocks.get_generalized_velocities();
  for (int r = 0; r < kNv; ++r) CHECK(std::fabs(v[r] - dense.get_generalized_velocities()[r]) <= 1e-12);
  for (int i = 0; i < kNc; ++i) {
    CHECK(std::fabs(blocks.get_normal_forces()[i] - dense.get_normal_forces()[i]) <= 1e-9 * 20.0);
    CHECK(blocks.get_normal_forces()[i] > 9.0);
  }
  CHECK(std::fabs(v[0] - (0.5 - 0.5 * 3.0 * 9.81 * kDt)) < 1e-3);  // both frictions on box 0
  CHECK(v[12] == 0.25);                                             // no contact: M_t v_t = p*_t

  // The raw-pointer view and the pointer setters: the same bits.
  cts::BlockSparseData raw(p.tree_dofs.data(), 3, p.M.data(), p.M.size(), p.contact_trees.data(), 2, p.J.data(),
                           p.J.size());
  cts::TamsiSolver<double> again(kNv);
  again.SetTwoWayCoupledBlockProblemData(raw, p.p_star.data(), p.fn0.data(), p.k.data(), p.d.data(), p.mu.data());
  again.SolveWithGuess(kDt, p.v0);
  CHECK(same(again.get_generalized_velocities(), v));

  // One-way with fn = the weights: box 0 slowed by μ (fn0 + fn1) dt.
  cts::TamsiSolver<double> one_way(kNv);
  one_way.SetOneWayCoupledBlockProblemData(data, &p.p_star, &p.fn0, &p.mu);
  CHECK(one_way.SolveWithGuess(kDt, p.v0) == cts::TamsiSolverResult::kSuccess);
  CHECK(std::fabs(one_way.get_generalized_velocities()[0] - (0.5 - 0.5 * 29.43 * kDt)) < 1e-6);

  // Usage errors throw with the library's status and message; the previous data stays.
  std::vector<int32_t> bad_trees{0, -1, 3, 0};
  cts::BlockSparseData bad(p.tree_dofs, p.M, bad_trees, p.J);
  EXPECT_ERROR(blocks.SetTwoWayCoupledBlockProblemData(bad, &p.p_star, &p.fn0, &p.k, &p.d, &p.mu),
               CTS_STATUS_INVALID_ARGUMENT, "data->contact_trees[2] = 3 (contact 1, slot 0)");
  std::vector<int32_t> overlap{0, -1, 1, 1};
  cts::BlockSparseData overlapping(p.tree_dofs, p.M, overlap, p.J);
  EXPECT_ERROR(blocks.SetTwoWayCoupledBlockProblemData(overlapping, &p.p_star, &p.fn0, &p.k, &p.d, &p.mu),
               CTS_STATUS_INVALID_ARGUMENT, "lists tree 1 twice");
  std::vector<double> nan_M = p.M;
  nan_M[7] = std::nan("");
  cts::BlockSparseData nan_data(p.tree_dofs, nan_M, p.contact_trees, p.J);
  EXPECT_ERROR(blocks.SetTwoWayCoupledBlockProblemData(nan_data, &p.p_star, &p.fn0, &p.k, &p.d, &p.mu),
               CTS_STATUS_INVALID_ARGUMENT, "data->M[7] = NaN");
  std::vector<int32_t> odd{0, -1, 1};
  EXPECT_ERROR(cts::BlockSparseData(p.tree_dofs, p.M, odd, p.J), CTS_STATUS_DIMENSION_MISMATCH,
               "contact_trees has 3 entries");
  Vec short_mu = make(1);
  EXPECT_ERROR(blocks.SetTwoWayCoupledBlockProblemData(data, &p.p_star, &p.fn0, &p.k, &p.d, &short_mu),
               CTS_STATUS_DIMENSION_MISMATCH, "mu has 1 entries, expected 2");
  EXPECT_ERROR(blocks.SetTwoWayCoupledBlockProblemData(data, &p.p_star, &p.fn0, &p.k, nullptr, &p.mu),
               CTS_STATUS_NULL_POINTER, "dissipation is null");
  EXPECT_ERROR(blocks.SetOneWayCoupledBlockProblemData(data, &p.p_star, &p.fn0, &p.mu),
               CTS_STATUS_WRONG_COUPLING_SCHEME, "two-way");
  CHECK(blocks.num_contacts() == kNc);
  blocks.SolveWithGuess(kDt, p.v0);
  CHECK(same(blocks.get_generalized_velocities(), v));

  CHECK(SecondTranslationUnitNumVelocities(kNv) == kNv);
#ifdef CTS_HAVE_EIGEN
  std::printf("with Eigen\n");
#else
  std::printf("without Eigen\n");
#endif
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
