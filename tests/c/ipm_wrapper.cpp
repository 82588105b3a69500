// The C++ wrapper's cts::IpmSolver (include/contact_solvers.hpp), with Eigen or (CTS_NO_EIGEN)
// without: usage errors throw cts::Error with the library's status and message, outcomes are
// returned, results match docs/ipm.md §9 (A2 stick and slip, A6 sensitivities), RAII/move/Clone
// behave; SetBlockProblemData agrees with the dense setter. Exits 0 when every check passes.
#include <cmath>
#include <cstdio>
#include <vector>

#include "contact_solvers.hpp"

int SecondTranslationUnitIpmContacts(int nc);

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

// A2 (docs/ipm.md §9): m = 1, h = 0.1, μ = 0.5, a point mass at rest on the ground pushed along x
// with F; column-major raw arrays, Jn and Jt stored with one padding row (NaN, never read).
struct PointMass {
  const double nan = std::nan("");
  double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double Jn[6] = {0, nan, 0, nan, 1, nan};      // 1×3, ld 2
  double Jt[9] = {1, 0, nan, 0, 1, nan, 0, 0, nan};  // 2×3, ld 3
  double v0[3] = {0, 0, 0};
  double tau[3] = {0, 0, -9.81};
  double phi[1] = {0}, mu[1] = {0.5};
  cts::IpmContactModel models[1] = {cts::IpmContactModel::kSecondOrderCone};
  explicit PointMass(double f) { tau[0] = f; }
  void Set(cts::IpmSolver& s) const { s.SetProblemData(3, 1, M, 3, Jn, 2, Jt, 3, v0, tau, 0.1, phi, mu, models); }
};

// Two free boxes (0.2 m, 1 kg) and a 1-dof tree without contact, h = 1e-3 s: box 0 slides at
// 0.5 m/s on the ground (contact 0: tree 0 and the static world), box 1 rests on box 0 (contact
// 1: trees 1, 0), μ = 0.5, gaps 0. Block data (per tree) and the same problem densely.
struct TwoBoxes {
  static constexpr int kNv = 13, kNc = 2;
  static constexpr double kH = 1e-3;
  std::vector<int32_t> tree_dofs{6, 6, 1};
  std::vector<int32_t> contact_trees{0, -1, 1, 0};
  std::vector<double> M = std::vector<double>(73, 0.0), J = std::vector<double>(54, 0.0);
  std::vector<double> M_dense = std::vector<double>(kNv * kNv, 0.0);
  std::vector<double> Jn = std::vector<double>(kNc * kNv, 0.0), Jt = std::vector<double>(2 * kNc * kNv, 0.0);
  cts::Vector v0 = cts::internal::make_vector(kNv), tau = cts::internal::make_vector(kNv);
  cts::Vector phi = cts::internal::make_vector(kNc), mu = cts::internal::make_vector(kNc);
  std::vector<cts::IpmContactModel> models{cts::IpmContactModel::kSecondOrderCone,
                                           cts::IpmContactModel::kSecondOrderCone};

  TwoBoxes() {
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
    tau[2] = tau[8] = -9.81;
    tau[12] = 1.0;
    mu[0] = mu[1] = 0.5;
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

// SetBlockProblemData at default parameters: the block solve takes the dense solve's iterations
// and agrees with it to 1e-12; box 0 is slowed by both frictions, μ (2 m g + m g) h; the tree
// without contact gets v0 + h τ / M exactly; the raw-pointer form equals the container form bit
// for bit; usage errors throw with the library's status and keep the previous data.
static void BlockProblemData() {
  TwoBoxes p;
  cts::BlockSparseData data(p.tree_dofs, p.M, p.contact_trees, p.J);
  cts::IpmSolver dense, blocks;
  dense.SetProblemData(TwoBoxes::kNv, TwoBoxes::kNc, p.M_dense.data(), TwoBoxes::kNv, p.Jn.data(), TwoBoxes::kNc,
                       p.Jt.data(), 2 * TwoBoxes::kNc, p.v0.data(), p.tau.data(), TwoBoxes::kH, p.phi.data(),
                       p.mu.data(), p.models.data());
  blocks.SetBlockProblemData(data, &p.v0, &p.tau, TwoBoxes::kH, &p.phi, &p.mu, p.models);
  CHECK(blocks.num_velocities() == TwoBoxes::kNv && blocks.num_contacts() == TwoBoxes::kNc);
  CHECK(dense.Solve() == cts::IpmOutcome::kConverged);
  CHECK(blocks.Solve() == cts::IpmOutcome::kConverged);
  CHECK(blocks.get_stats().iterations == dense.get_stats().iterations && blocks.get_stats().iterations > 0);
  const cts::Vector v = blocks.get_generalized_velocities();
  for (int r = 0; r < TwoBoxes::kNv; ++r) CHECK(std::fabs(v[r] - dense.get_generalized_velocities()[r]) <= 1e-12);
  const cts::Vector imp = blocks.get_impulses();
  for (int k = 0; k < 3 * TwoBoxes::kNc; ++k) CHECK(std::fabs(imp[k] - dense.get_impulses()[k]) <= 1e-12);
  // Physics to 1e-5 (N·s, m/s): the default stop is a scaled complementarity of 1e-6, so the
  // normal impulses exceed the weights by a few 1e-6 N·s (a slight separating velocity).
  CHECK(std::fabs(v[0] - (0.5 - 0.5 * 3.0 * 9.81 * TwoBoxes::kH)) < 1e-5);
  CHECK(std::fabs(imp[0] - 2.0 * 9.81 * TwoBoxes::kH) < 1e-5);  // ground normal impulse: both weights
  CHECK(std::fabs(imp[1] + 0.5 * imp[0]) < 1e-8);  // sliding: friction at the cone edge (interior: 1e-9 inside)
  CHECK(v[12] == 0.25 + TwoBoxes::kH * 1.0 / 2.0);

  cts::BlockSparseData raw(p.tree_dofs.data(), 3, p.M.data(), p.M.size(), p.contact_trees.data(), 2, p.J.data(),
                           p.J.size());
  cts::IpmSolver again;
  again.SetBlockProblemData(raw, p.v0.data(), p.tau.data(), TwoBoxes::kH, p.phi.data(), p.mu.data(),
                            p.models.data());
  CHECK(again.Solve() == cts::IpmOutcome::kConverged);
  for (int r = 0; r < TwoBoxes::kNv; ++r) CHECK(again.get_generalized_velocities()[r] == v[r]);

  std::vector<int32_t> bad_trees{0, -1, 3, 0};
  cts::BlockSparseData bad(p.tree_dofs, p.M, bad_trees, p.J);
  ExpectError(CTS_STATUS_INVALID_ARGUMENT,
              [&] { blocks.SetBlockProblemData(bad, &p.v0, &p.tau, TwoBoxes::kH, &p.phi, &p.mu, p.models); });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT,
              [&] { blocks.SetBlockProblemData(data, &p.v0, &p.tau, 0.0, &p.phi, &p.mu, p.models); });  // h = 0
  std::vector<int32_t> empty_tree{6, 6, 0};
  cts::BlockSparseData no_dofs(empty_tree, p.M, p.contact_trees, p.J);
  ExpectError(CTS_STATUS_INVALID_ARGUMENT,
              [&] { blocks.SetBlockProblemData(no_dofs, &p.v0, &p.tau, TwoBoxes::kH, &p.phi, &p.mu, p.models); });
  const cts::Vector short_mu = cts::internal::make_vector(1);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH,
              [&] { blocks.SetBlockProblemData(data, &p.v0, &p.tau, TwoBoxes::kH, &p.phi, &short_mu, p.models); });
  const cts::Vector short_v0 = cts::internal::make_vector(12);
  const cts::Vector short_tau = cts::internal::make_vector(12);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] {
    blocks.SetBlockProblemData(data, &short_v0, &short_tau, TwoBoxes::kH, &p.phi, &p.mu, p.models);
  });  // n = 12, the trees hold 13
  ExpectError(CTS_STATUS_NULL_POINTER,
              [&] { blocks.SetBlockProblemData(data, &p.v0, nullptr, TwoBoxes::kH, &p.phi, &p.mu, p.models); });
  ExpectError(CTS_STATUS_NULL_POINTER, [&] {
    blocks.SetBlockProblemData(data, p.v0.data(), p.tau.data(), TwoBoxes::kH, p.phi.data(), p.mu.data(), nullptr);
  });
  CHECK(blocks.num_contacts() == TwoBoxes::kNc);
  CHECK(blocks.Solve() == cts::IpmOutcome::kConverged);
  for (int r = 0; r < TwoBoxes::kNv; ++r) CHECK(blocks.get_generalized_velocities()[r] == v[r]);

  // SolveBatch (docs/c_api.md §1.10): each world is its Solve (or SolveWithGuess), bit for bit,
  // on two threads; a world without data and a null solver are per-world statuses.
  cts::IpmSolver b1, b2, empty;
  b1.SetBlockProblemData(data, &p.v0, &p.tau, TwoBoxes::kH, &p.phi, &p.mu, p.models);
  b2.SetProblemData(TwoBoxes::kNv, TwoBoxes::kNc, p.M_dense.data(), TwoBoxes::kNv, p.Jn.data(), TwoBoxes::kNc,
                    p.Jt.data(), 2 * TwoBoxes::kNc, p.v0.data(), p.tau.data(), TwoBoxes::kH, p.phi.data(),
                    p.mu.data(), p.models.data());
  const std::vector<cts_status> st = cts::IpmSolver::SolveBatch({&b1, &b2, &empty, nullptr}, 2);
  CHECK(st.size() == 4 && st[0] == CTS_STATUS_OK && st[1] == CTS_STATUS_OK);
  CHECK(st[2] == CTS_STATUS_NO_PROBLEM_DATA && st[3] == CTS_STATUS_NULL_POINTER);
  for (int r = 0; r < TwoBoxes::kNv; ++r) CHECK(b1.get_generalized_velocities()[r] == v[r]);
  for (int r = 0; r < TwoBoxes::kNv; ++r) {
    CHECK(b2.get_generalized_velocities()[r] == dense.get_generalized_velocities()[r]);
  }
  const std::vector<const cts::Vector*> guesses{&p.v0, nullptr};
  const std::vector<cts_status> warm = cts::IpmSolver::SolveBatch({&b1, &b2}, 0, &guesses);
  CHECK(warm[0] == CTS_STATUS_OK && warm[1] == CTS_STATUS_OK);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { cts::IpmSolver::SolveBatch({&b1}, 0, &guesses); });
}

int main() {
  CHECK(SecondTranslationUnitIpmContacts(4) == 4);

  cts::IpmSolver solver;
  const cts::IpmSolverParameters defaults = solver.get_solver_parameters();
  CHECK(defaults.rtol == 1e-6 && defaults.btol == 1e-4 && defaults.max_iter == 100 && defaults.max_ls == 10);
  CHECK(!defaults.dojo_compatible && defaults.tolerance == 1e-8 && defaults.complementarity_tolerance == 1e-6);
  CHECK(std::isinf(defaults.undercut) && !defaults.warm_start && !defaults.dojo_lagged_kappa);
  CHECK(defaults.newton_solve == cts::IpmNewtonSolve::kCondensed && !defaults.rvio_floor_in_backtracking);
  CHECK(defaults.centrality_correctors == 2 && defaults.proximal_regularization == 1e-2);
  CHECK(defaults.normal_compliance == 0.0 && defaults.stall_iterations == 20);
  ExpectError(CTS_STATUS_NO_PROBLEM_DATA, [&] { solver.Solve(); });
  ExpectError(CTS_STATUS_NO_SOLUTION, [&] { solver.get_generalized_velocities(); });
  ExpectError(CTS_STATUS_NO_SOLUTION, [&] { solver.get_stats(); });
  ExpectError(CTS_STATUS_NO_SOLUTION, [&] { solver.ComputeSensitivities(); });
  cts::IpmSolverParameters bad;
  bad.btol = -1.0;
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.set_solver_parameters(bad); });
  bad = cts::IpmSolverParameters();
  bad.newton_solve = static_cast<cts::IpmNewtonSolve>(5);
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.set_solver_parameters(bad); });
  bad = cts::IpmSolverParameters();
  bad.max_ls = 0;
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { cts::IpmSolver s(bad); });

  bad = cts::IpmSolverParameters();
  bad.complementarity_tolerance = 0.0;
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.set_solver_parameters(bad); });
  bad = cts::IpmSolverParameters();
  bad.centrality_correctors = 11;
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.set_solver_parameters(bad); });
  bad = cts::IpmSolverParameters();
  bad.normal_compliance = -0.1;
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] { solver.set_solver_parameters(bad); });
  {
    // The engine options round-trip; contact ids of the wrong count fail the solve as a usage error.
    cts::IpmSolverParameters engine;
    engine.normal_compliance = 0.1;
    engine.centrality_correctors = 4;
    engine.stall_iterations = 30;
    engine.warm_start = true;
    cts::IpmSolver s(engine);
    CHECK(s.get_solver_parameters().normal_compliance == 0.1 && s.get_solver_parameters().centrality_correctors == 4);
    CHECK(s.get_solver_parameters().stall_iterations == 30);
    const PointMass rest(0.0);
    rest.Set(s);
    s.SetContactIds({7});
    CHECK(s.Solve() == cts::IpmOutcome::kConverged);
    CHECK(s.Solve() == cts::IpmOutcome::kConverged);
    s.SetContactIds({7, 8});
    ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { s.Solve(); });
    s.SetContactIds({});
    CHECK(s.Solve() == cts::IpmOutcome::kConverged);
    CHECK(static_cast<int>(cts::IpmOutcome::kAlmostConverged) == 43 && static_cast<int>(cts::IpmOutcome::kStalled) == 44);
  }

  cts::IpmSolverParameters p;
  p.dojo_compatible = true;  // the fingerprints below (8 iterations) are Dojo's iteration's
  p.rtol = 1e-8;
  p.btol = 1e-8;
  solver.set_solver_parameters(p);
  CHECK(solver.get_solver_parameters().btol == 1e-8 && solver.get_solver_parameters().dojo_compatible);

  // Slip: v+x = h (F − μ m g)/m = 0.1095 m/s, friction impulse −μ m g h = −0.4905 N·s.
  const PointMass slip(6.0);
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] {
    solver.SetProblemData(3, 1, slip.M, 3, slip.Jn, 2, slip.Jt, 1, slip.v0, slip.tau, 0.1, slip.phi, slip.mu,
                          slip.models);  // ld_Jt < 2
  });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] {
    const cts::IpmContactModel wrong[1] = {static_cast<cts::IpmContactModel>(7)};
    solver.SetProblemData(3, 1, slip.M, 3, slip.Jn, 2, slip.Jt, 3, slip.v0, slip.tau, 0.1, slip.phi, slip.mu, wrong);
  });
  ExpectError(CTS_STATUS_INVALID_ARGUMENT, [&] {
    solver.SetProblemData(3, 1, slip.M, 3, slip.Jn, 2, slip.Jt, 3, slip.v0, slip.tau, 0.0, slip.phi, slip.mu,
                          slip.models);  // h = 0
  });
  ExpectError(CTS_STATUS_NULL_POINTER, [&] {
    solver.SetProblemData(3, 1, slip.M, 3, slip.Jn, 2, slip.Jt, 3, slip.v0, nullptr, 0.1, slip.phi, slip.mu,
                          slip.models);
  });
  CHECK(solver.num_contacts() == 0);
  slip.Set(solver);
  CHECK(solver.num_velocities() == 3 && solver.num_contacts() == 1 && solver.num_cone_variables() == 4);
  CHECK(solver.Solve() == cts::IpmOutcome::kConverged);
  const cts::IpmSolverStats stats = solver.get_stats();
  CHECK(stats.outcome == cts::IpmOutcome::kConverged && stats.iterations == 8 && stats.boundary_hits == 0);
  const cts::Vector& v = solver.get_generalized_velocities();
  CHECK(v.size() == 3);
  CHECK(std::fabs(v[0] - 0.1095) < 1e-6 && std::fabs(v[1]) < 1e-6 && std::fabs(v[2]) < 1e-6);
  const cts::Vector& imp = solver.get_impulses();
  CHECK(imp.size() == 3 && std::fabs(imp[0] - 0.981) < 1e-6 && std::fabs(imp[1] + 0.4905) < 1e-6);
  CHECK(solver.get_next_gaps().size() == 1 && std::fabs(solver.get_next_gaps()[0]) < 1e-6);
  CHECK(std::fabs(solver.get_primal()[1] - 0.4905) < 1e-6);  // ξ0 = μ γn
  CHECK(std::fabs(solver.get_dual()[1] - 0.1095) < 1e-6);    // η0 = slip speed
  CHECK(solver.get_rvio_history().size() == 9 && solver.get_bvio_history().size() == 9);
  CHECK(solver.get_kappa_history().size() == 8 && solver.get_alpha_history().size() == 8);
  const std::vector<double> guess = {0.1, 0.0, 0.0};
  CHECK(solver.SolveWithGuess(guess.data(), 3) == cts::IpmOutcome::kConverged);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH, [&] { solver.SolveWithGuess(guess.data(), 2); });

  // Stick: v+ = 0, friction impulse −F h = −0.3 N·s.
  {
    const PointMass stick(3.0);
    cts::IpmSolver s(p);
    stick.Set(s);
    CHECK(s.Solve() == cts::IpmOutcome::kConverged);
    CHECK(std::fabs(s.get_generalized_velocities()[0]) < 1e-6 && std::fabs(s.get_impulses()[1] + 0.3) < 1e-6);
  }

  // max_iter = 0 is an outcome, not an exception.
  {
    cts::IpmSolverParameters q;
    q.max_iter = 0;
    cts::IpmSolver s(q);
    slip.Set(s);
    CHECK(s.Solve() == cts::IpmOutcome::kMaxIterationsReached);
    CHECK(s.get_stats().outcome == cts::IpmOutcome::kMaxIterationsReached && s.get_stats().iterations == 0);
  }

  // A6: fixed κ = 1e-4, F = 1 (the make/break threshold): z+ = h v = 3.162278e-3 and
  // dz+/dF = h ∂v/∂τ = h²/2 = 5e-3 exactly (1e-8 relative).
  {
    cts::IpmSolverParameters q;
    q.rtol = 1e-14;
    q.btol = 1e-15;
    q.max_iter = 200;
    q.fixed_kappa = 1e-4;
    cts::IpmSolver s(q);
    const double M[1] = {1}, Jn[1] = {1}, Jt[2] = {0, 0}, v0[1] = {0}, tau[1] = {0}, phi[1] = {0}, mu[1] = {0};
    const cts::IpmContactModel impact[1] = {cts::IpmContactModel::kImpact};
    s.SetProblemData(1, 1, M, 1, Jn, 1, Jt, 2, v0, tau, 0.1, phi, mu, impact);
    CHECK(s.Solve() == cts::IpmOutcome::kConverged);
    ExpectError(CTS_STATUS_NO_SOLUTION, [&] { s.get_velocity_sensitivity(cts::IpmSensitivityParameter::kTau); });
    s.ComputeSensitivities();
    const double z = 0.1 * s.get_generalized_velocities()[0];
    CHECK(std::fabs(z / 3.16227766e-3 - 1.0) < 1e-7);
    const cts::IpmSolver::Matrix dv = s.get_velocity_sensitivity(cts::IpmSensitivityParameter::kTau);
    CHECK(dv.rows() == 1 && dv.cols() == 1 && std::fabs(0.1 * dv(0, 0) / 5e-3 - 1.0) < 1e-8);
    const cts::IpmSolver::Matrix dl = s.get_impulse_sensitivity(cts::IpmSensitivityParameter::kPhi);
    CHECK(dl.rows() == 3 && dl.cols() == 1 && dl(1, 0) == 0.0 && dl(0, 0) < 0.0);
    CHECK(s.get_velocity_sensitivity(cts::IpmSensitivityParameter::kMu)(0, 0) == 0.0);
  }

  // Clone: parameters, no data; move: the handle moves.
  std::unique_ptr<cts::IpmSolver> copy = solver.Clone();
  CHECK(copy->get_solver_parameters().btol == 1e-8);
  ExpectError(CTS_STATUS_NO_PROBLEM_DATA, [&] { copy->Solve(); });
  cts::IpmSolver moved(std::move(*copy));
  CHECK(moved.get_solver_parameters().rtol == 1e-8);
  CHECK(copy->c_handle() == nullptr);
  cts::IpmSolver assigned;
  assigned = std::move(moved);
  CHECK(moved.c_handle() == nullptr && assigned.c_handle() != nullptr);

  BlockProblemData();

#ifdef CTS_HAVE_EIGEN
  // Eigen: pointers to Eigen objects (borrowed), Eigen results, the same numbers.
  const Eigen::MatrixXd Me = Eigen::MatrixXd::Identity(3, 3);
  Eigen::MatrixXd Jne(1, 3), Jte(2, 3);
  Jne << 0, 0, 1;
  Jte << 1, 0, 0, 0, 1, 0;
  const Eigen::VectorXd v0e = Eigen::VectorXd::Zero(3);
  Eigen::VectorXd taue(3);
  taue << 6.0, 0.0, -9.81;
  const Eigen::VectorXd phie = Eigen::VectorXd::Zero(1), mue = Eigen::VectorXd::Constant(1, 0.5);
  const std::vector<cts::IpmContactModel> modelse = {cts::IpmContactModel::kSecondOrderCone};
  cts::IpmSolver eigen_style(p);
  eigen_style.SetProblemData(&Me, &Jne, &Jte, &v0e, &taue, 0.1, &phie, &mue, modelse);
  CHECK(eigen_style.Solve() == cts::IpmOutcome::kConverged);
  solver.Solve();
  CHECK((eigen_style.get_generalized_velocities() - solver.get_generalized_velocities()).norm() == 0.0);
  eigen_style.ComputeSensitivities();
  const Eigen::MatrixXd dv0 = eigen_style.get_velocity_sensitivity(cts::IpmSensitivityParameter::kV0);
  CHECK(dv0.rows() == 3 && dv0.cols() == 3 && std::fabs(dv0(0, 0) - 1.0) < 1e-3);  // sliding: ∂vx/∂v0x ≈ 1
  const Eigen::MatrixXd dlmu = eigen_style.get_impulse_sensitivity(cts::IpmSensitivityParameter::kMu);
  CHECK(dlmu.rows() == 3 && dlmu.cols() == 1 && std::fabs(dlmu(1, 0) + 0.981) < 1e-4);  // ∂ξ1/∂μ = −γn
  const Eigen::VectorXd offset = Eigen::VectorXd::Zero(2);
  eigen_style.SetProblemData(&Me, &Jne, &Jte, &v0e, &taue, 0.1, &phie, &mue, modelse, &offset);
  CHECK(eigen_style.Solve() == cts::IpmOutcome::kConverged);
  const Eigen::VectorXd wrong = Eigen::VectorXd::Zero(2);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH,
              [&] { eigen_style.SetProblemData(&Me, &Jne, &Jte, &wrong, &taue, 0.1, &phie, &mue, modelse); });
  const Eigen::VectorXd short_offset = Eigen::VectorXd::Zero(1);
  ExpectError(CTS_STATUS_DIMENSION_MISMATCH,
              [&] { eigen_style.SetProblemData(&Me, &Jne, &Jte, &v0e, &taue, 0.1, &phie, &mue, modelse, &short_offset); });
  ExpectError(CTS_STATUS_NULL_POINTER,
              [&] { eigen_style.SetProblemData(&Me, nullptr, &Jte, &v0e, &taue, 0.1, &phie, &mue, modelse); });
  std::printf("with Eigen\n");
#else
  std::printf("without Eigen\n");
#endif
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
