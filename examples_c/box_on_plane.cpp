// A box on a plane with four corner contacts and Coulomb friction, solved by Drake's rigid
// ConstraintSolver through the C++ wrapper (cts::ConstraintSolver), written the way Drake's
// ConstraintAccelProblemData / ConstraintVelProblemData are filled:
//   drake::examples::rod2d::ConstraintSolver<double>  ->  cts::ConstraintSolver
//
// The box (m = 1 kg, 0.4 × 0.2 × 0.1 m) lies on the ground z = 0; v = (vx, vy, vz, ωx, ωy, ωz),
// linear velocity of the center and angular velocity, world frame. Each corner is a contact with
// normal +z and a four-sided friction pyramid (r = 2 spanning directions, ±x and ±y), μ = 0.5.
//
//   1. pushed by 2 N along +x: static friction holds it (Σ friction = −2 N, no acceleration);
//   2. pushed by 8 N: friction saturates at μ m g = 4.905 N, the box accelerates at 3.095 m/s²;
//   3. dropped flat at 1 m/s moving sideways at 0.3 m/s: the impact stops it;
//   4. the same at 0.6 m/s sideways: friction saturates at μ·1 N·s = 0.5 N·s, it keeps 0.1 m/s;
//   5. one 1 ms time step at rest (discretized problem), the operators given as lambdas.
//
// The four normal forces of a box on a plane are statically indeterminate; the totals (and the
// motion) are not, so those are what is printed.
//
// Build: c++ -std=c++17 -Iinclude -I/usr/include/eigen3 examples_c/box_on_plane.cpp
//        -Ltarget/release -lcontact_solvers

#include <cstdio>
#include <string>

#include <Eigen/Geometry>  // cross products

#include "contact_solvers.hpp"

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr int nv = 6;
constexpr int nc = 4;
constexpr double m = 1.0;                            // kg
constexpr double a = 0.2, b = 0.1, c = 0.05;         // half extents, m
constexpr double g = 9.81;                           // m/s²
constexpr double mu = 0.5;

void PrintVector(const char* label, const VectorXd& x) {
  std::printf("  %-32s:", label);
  for (Eigen::Index i = 0; i < x.size(); ++i) std::printf(" %.17g", x[i]);
  std::printf("\n");
}

// The box's Jacobians: corner i at r = (±a, ±b, −c) from the center. Normal rows
// [n, r × n] (nc × nv); friction rows [t, r × t] for t = x̂, ŷ, grouped per contact (2nc × nv).
struct Box {
  MatrixXd N{nc, nv}, F{2 * nc, nv}, M{MatrixXd::Zero(nv, nv)}, M_inverse{MatrixXd::Zero(nv, nv)};

  Box() {
    const double sx[nc] = {-1, 1, -1, 1}, sy[nc] = {-1, -1, 1, 1};
    for (int i = 0; i < nc; ++i) {
      const Eigen::Vector3d r(sx[i] * a, sy[i] * b, -c);
      const Eigen::Vector3d n(0, 0, 1), tx(1, 0, 0), ty(0, 1, 0);
      N.row(i) << n.transpose(), r.cross(n).transpose();
      F.row(2 * i) << tx.transpose(), r.cross(tx).transpose();
      F.row(2 * i + 1) << ty.transpose(), r.cross(ty).transpose();
    }
    const double ixx = m * (4 * b * b + 4 * c * c) / 12, iyy = m * (4 * a * a + 4 * c * c) / 12,
                 izz = m * (4 * a * a + 4 * b * b) / 12;
    M.diagonal() << m, m, m, ixx, iyy, izz;
    M_inverse.diagonal() = M.diagonal().cwiseInverse();
  }
};

// Σ fN, and Σ friction along x and y (the spanning directions alternate x, y per contact).
void PrintTotals(const char* unit, const VectorXd& cf) {
  double fx = 0, fy = 0;
  for (int i = 0; i < nc; ++i) {
    fx += cf[nc + 2 * i];
    fy += cf[nc + 2 * i + 1];
  }
  std::printf("  %-32s: %.17g\n", (std::string("sum fN ") + unit).c_str(), cf.head(nc).sum());
  std::printf("  %-32s: %.17g %.17g\n", (std::string("sum friction x, y ") + unit).c_str(), fx, fy);
}

cts::ConstraintAccelProblemData AccelData(const Box& box, double push) {
  cts::ConstraintAccelProblemData data(nv);
  data.non_sliding_contacts = {0, 1, 2, 3};
  data.r = {2, 2, 2, 2};
  data.mu_non_sliding = VectorXd::Constant(nc, mu);
  data.kN = VectorXd::Zero(nc);
  data.kF = VectorXd::Zero(2 * nc);
  data.tau = VectorXd::Zero(nv);
  data.tau[0] = push;
  data.tau[2] = -m * g;
  data.N_mult = cts::Operator::Matrix(box.N);
  data.N_minus_muQ_transpose_mult = cts::Operator::Matrix(box.N);  // no sliding contact: N − μQ = N
  data.F_mult = cts::Operator::Matrix(box.F);
  data.F_transpose_mult = cts::Operator::Matrix(box.F);
  data.solve_inertia = cts::InertiaSolve::Inverse(box.M_inverse);
  return data;
}

cts::ConstraintVelProblemData VelData(const Box& box, const VectorXd& v) {
  cts::ConstraintVelProblemData data(nv);
  data.r = {2, 2, 2, 2};
  data.mu = VectorXd::Constant(nc, mu);
  data.kN = VectorXd::Zero(nc);
  data.kF = VectorXd::Zero(2 * nc);
  data.Mv = box.M * v;
  data.N_mult = cts::Operator::Matrix(box.N);
  data.N_transpose_mult = cts::Operator::Matrix(box.N);
  data.F_mult = cts::Operator::Matrix(box.F);
  data.F_transpose_mult = cts::Operator::Matrix(box.F);
  data.solve_inertia = cts::InertiaSolve::Matrix(box.M);
  return data;
}

void Pushed(cts::ConstraintSolver& solver, const Box& box, double push) {
  std::printf("pushed by %g N along +x (mu = 0.5), nc = 4\n", push);
  const cts::ConstraintAccelProblemData data = AccelData(box, push);
  VectorXd cf, vdot;
  const cts::RigidOutcome outcome = solver.SolveConstraintProblem(data, &cf);
  solver.ComputeGeneralizedAcceleration(data, cf, &vdot);
  std::printf("  %-32s: %d\n", "outcome", static_cast<int>(outcome));
  PrintTotals("[N]", cf);
  PrintVector("vdot [m/s^2, rad/s^2]", vdot);
}

void Dropped(cts::ConstraintSolver& solver, const Box& box, double vx) {
  std::printf("dropped flat at 1 m/s moving at %g m/s along +x (mu = 0.5), nc = 4\n", vx);
  VectorXd v = VectorXd::Zero(nv);
  v[0] = vx;
  v[2] = -1.0;
  const cts::ConstraintVelProblemData data = VelData(box, v);
  VectorXd cf, dv;
  const cts::RigidOutcome outcome = solver.SolveImpactProblem(data, &cf);
  solver.ComputeGeneralizedVelocityChange(data, cf, &dv);
  std::printf("  %-32s: %d\n", "outcome", static_cast<int>(outcome));
  PrintTotals("[N s]", cf);
  PrintVector("v after [m/s, rad/s]", v + dv);
  // 1 if Lemke failed and the progressively regularized LCP's (unverified) answer was used.
  std::printf("  %-32s: %d\n", "regularized LCP used", solver.regularization_used() ? 1 : 0);
}

void TimeStep(cts::ConstraintSolver& solver, const Box& box) {
  const double dt = 1e-3;
  std::printf("resting, one 1 ms time step (discretized, operators as lambdas), nc = 4\n");
  const VectorXd v0 = VectorXd::Zero(nv);
  cts::ConstraintVelProblemData data(nv);
  data.r = {2, 2, 2, 2};
  data.mu = VectorXd::Constant(nc, mu);
  data.kN = VectorXd::Zero(nc);
  data.kF = VectorXd::Zero(2 * nc);
  data.Mv = box.M * v0;
  data.Mv[2] -= m * g * dt;  // M v(t) + dt·(gravity)
  data.N_mult = [&box](const VectorXd& w) -> VectorXd { return box.N * w; };
  data.N_transpose_mult = [&box](const VectorXd& f) -> VectorXd { return box.N.transpose() * f; };
  data.F_mult = [&box](const VectorXd& w) -> VectorXd { return box.F * w; };
  data.F_transpose_mult = [&box](const VectorXd& f) -> VectorXd { return box.F.transpose() * f; };
  data.solve_inertia = [&box](const VectorXd& rhs) -> VectorXd { return box.M_inverse * rhs; };
  VectorXd cf, vdot;
  const cts::RigidOutcome outcome = solver.SolveDiscretizedProblem(data, dt, &cf);
  solver.ComputeGeneralizedAcceleration(data, v0, cf, dt, &vdot);
  std::printf("  %-32s: %d\n", "outcome", static_cast<int>(outcome));
  PrintTotals("[N]", cf);
  PrintVector("vdot [m/s^2, rad/s^2]", vdot);
}

}  // namespace

int main() {
  const Box box;
  cts::ConstraintSolver solver;
  try {
    Pushed(solver, box, 2.0);
    Pushed(solver, box, 8.0);
    Dropped(solver, box, 0.3);
    Dropped(solver, box, 0.6);
    TimeStep(solver, box);
  } catch (const cts::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
