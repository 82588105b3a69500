// SPDX-License-Identifier: MIT OR Apache-2.0
// Physics through the real Bullet (issue 32, docs/bullet.md): the scenes of
// examples_c/bullet/scenes.hpp with the library's adapters. Run by tests/c_abi/bullet.rs, one
// section per argument: slope, stack, stack-mlcp, pile, sphere, mlcp. Ends with "N failures".
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "scenes.hpp"

namespace {

int failures = 0;

void check(bool ok, const char* what, double value, double limit) {
  std::printf("%s %s: %.6g (limit %.6g)\n", ok ? "ok  " : "FAIL", what, value, limit);
  if (!ok) ++failures;
}

const double kSteps[] = {1.0 / 240.0, 1.0 / 60.0};

const scenes::Solver kOurs[] = {scenes::Solver::kBaraffMlcp, scenes::Solver::kLemkeMlcp, scenes::Solver::kTamsi,
                                scenes::Solver::kInteriorPoint};

std::string label(scenes::Solver s, double dt, const char* what) {
  return std::string(scenes::name(s)) + " dt=1/" + std::to_string(std::lround(1.0 / dt)) + " " + what;
}

// μ = tan θ − 0.05 slides with a = g(sin θ − μ cos θ) within 1 %; μ = tan θ + 0.05 sticks.
void Slope() {
  const double t = std::tan(scenes::kSlopeTheta);
  for (double dt : kSteps) {
    for (scenes::Solver s : kOurs) {
      const scenes::Result slide = scenes::Slope(s, dt, t - 0.05);
      const double want = scenes::SlopeExpected(t - 0.05);
      check(std::fabs(slide.metric / want - 1.0) < 0.01, label(s, dt, "slides: a/a_formula - 1").c_str(),
            slide.metric / want - 1.0, 0.01);
      const scenes::Result stick = scenes::Slope(s, dt, t + 0.05);
      // Sticking: no acceleration beyond 1 % of the sliding one (TAMSI creeps below its stiction
      // tolerance, 1e-4 m/s, at no acceleration).
      check(std::fabs(stick.metric) < 0.01 * want, label(s, dt, "sticks: |a| (m/s^2)").c_str(), stick.metric,
            0.01 * want);
    }
  }
}

// The ten-box stack stands for 10 s: top drift < 1 cm through ContactSolver.
void Stack() {
  for (double dt : kSteps) {
    for (scenes::Solver s : {scenes::Solver::kTamsi, scenes::Solver::kInteriorPoint}) {
      const scenes::Result r = scenes::Stack(s, dt, 10.0);
      check(r.metric < 0.01, label(s, dt, "stack top drift (m)").c_str(), r.metric, 0.01);
      check(r.fallbacks == 0, label(s, dt, "groups given to Bullet's solver").c_str(), double(r.fallbacks), 0);
    }
  }
}

// Through the MLCP adapters (Bullet's own MLCP): the stack stands, drift < 5 cm.
void StackMlcp() {
  for (double dt : kSteps) {
    for (scenes::Solver s : {scenes::Solver::kBaraffMlcp, scenes::Solver::kLemkeMlcp}) {
      const scenes::Result r = scenes::Stack(s, dt, 10.0);
      check(r.metric < 0.05, label(s, dt, "stack top drift (m)").c_str(), r.metric, 0.05);
    }
  }
}

// The pile settles with no energy gain and comes to rest, and through ContactSolver its
// penetration at rest (the deepest contact over the last 0.5 s of a 3 s drop) is no deeper than Bullet's own
// sequential impulse solver's on the same drop, run in this process (docs/bullet.md §3–4: TAMSI's
// near-rigid stiffness, the interior point's limited recovery). The Baraff adapter solves
// btMLCPSolver's MLCP, whose penetration handling is Bullet's (ERP, split impulse): its figure is
// printed, not checked. The Lemke adapter is left out: its dense LCP of the pile (~900 variables)
// takes about a second per step. The drop lasts 3 s: the pile is chaotic and its last box can land
// after 1.5 s (at dt = 1/50 and 1/90, or with another warm start at 1/60), so a window ending at
// 2 s can hold an impact rather than the rest the check names (docs/ipm.md §11.5).
void Pile() {
  for (double dt : kSteps) {
    const scenes::Result si = scenes::Pile(scenes::Solver::kSequentialImpulse, dt, 3.0);
    for (scenes::Solver s : {scenes::Solver::kBaraffMlcp, scenes::Solver::kTamsi, scenes::Solver::kInteriorPoint}) {
      const scenes::Result r = scenes::Pile(s, dt, 3.0);
      // 1 mJ: round-off of float positions for 50 boxes (E ≈ 100 J).
      check(r.energy_gain <= 1e-3, label(s, dt, "pile energy gain (J)").c_str(), r.energy_gain, 1e-3);
      check(r.metric < 0.5, label(s, dt, "pile kinetic energy at 3 s (J)").c_str(), r.metric, 0.5);
      if (s == scenes::Solver::kBaraffMlcp) {
        std::printf("info %s: penetration at rest %.4g m (Bullet SI %.4g m)\n", label(s, dt, "pile").c_str(),
                    r.penetration, si.penetration);
      } else {
        check(r.penetration <= si.penetration,
              (label(s, dt, "pile penetration at rest (m), Bullet SI's in the same process: ") +
               std::to_string(si.penetration)).c_str(),
              r.penetration, si.penetration);
      }
    }
  }
}

// The sphere launched without spin rolls at 5/7·v0 after 2 s, within 1 % (TAMSI at 1/240 s was
// 2.6 % fast with the first stiffness rule: Bullet's stale manifold points behind the ball stayed
// inside its 1 mm penetration and pushed it; docs/bullet.md §3).
void Sphere() {
  for (double dt : kSteps) {
    for (scenes::Solver s : kOurs) {
      const scenes::Result r = scenes::Sphere(s, dt, 2.0);
      check(r.metric < 0.01, label(s, dt, "sphere |v/(5/7 v0) - 1|").c_str(), r.metric, 0.01);
    }
  }
}

// ---- The MLCP adapters against btDantzigSolver on Bullet's own MLCPs -------------------------

struct Problem {
  btMatrixXu A;
  btVectorXu b, x0, lo, hi, x;
  btAlignedObjectArray<int> dep;
  bool ok{false};
};

// Records every MLCP btMLCPSolver poses, and answers it with btDantzigSolver.
class Recorder : public btMLCPSolverInterface {
 public:
  bool solveMLCP(const btMatrixXu& A, const btVectorXu& b, btVectorXu& x, const btVectorXu& lo, const btVectorXu& hi,
                 const btAlignedObjectArray<int>& dep, int numIterations, bool useSparsity) override {
    Problem p;
    p.A = A;
    p.b = b;
    p.x0 = x;
    p.lo = lo;
    p.hi = hi;
    p.dep = dep;
    p.ok = dantzig_.solveMLCP(A, b, x, lo, hi, dep, numIterations, useSparsity);
    p.x = x;
    // Up to 120 rows (Lemke's dense LCP on the larger pile MLCPs takes seconds each) and 300 problems.
    if (b.rows() > 0 && b.rows() <= 120 && problems.size() < 300) problems.push_back(p);
    return p.ok;
  }
  std::vector<Problem> problems;

 private:
  btDantzigSolver dantzig_;
};

// Worst violation of Bullet's conditions (btDantzigLCP.h) by x, relative to max|b| (velocities)
// and max|b|/max A_ii (impulses); bounds of friction rows ±|hi_i x_j|.
double Violation(const Problem& p, const btVectorXu& x) {
  const int n = p.b.rows();
  double sb = 1e-12, sa = 1e-12;
  for (int i = 0; i < n; ++i) {
    sb = std::max(sb, std::fabs(double(p.b[i])));
    sa = std::max(sa, std::fabs(double(p.A(i, i))));
  }
  const double fs = sb / sa;
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double w = -double(p.b[i]);
    for (int j = 0; j < n; ++j) w += double(p.A(i, j)) * double(x[j]);
    double lo = p.lo[i], hi = p.hi[i];
    if (p.dep[i] >= 0) {
      hi = std::fabs(double(p.hi[i]) * double(x[p.dep[i]]));
      lo = -hi;
    }
    const double xi = x[i];
    worst = std::max({worst, (lo - xi) / fs, (xi - hi) / fs});
    const double tol = 1e-6 * fs;
    if (xi <= lo + tol && xi >= hi - tol) continue;
    if (xi <= lo + tol) {
      worst = std::max(worst, -w / sb);
    } else if (xi >= hi - tol) {
      worst = std::max(worst, w / sb);
    } else {
      worst = std::max(worst, std::fabs(w) / sb);
    }
  }
  return worst;
}

// The bar: the adapters return the same x as btDantzigSolver wherever Dantzig succeeds,
// and a valid answer (bounds, complementarity) where it fails. Dantzig "succeeds" when it returns
// true with an x that satisfies its own MLCP: it also returns true with x that violate it by 6 to
// 35 % (relative, as Violation measures), while its valid answers verify to 6e-8 — a gap of six
// orders of magnitude, so the 1e-4 line between them is not delicate.
void Mlcp() {
  Recorder rec;
  for (double dt : kSteps) {
    scenes::Stack(scenes::Solver::kDantzig, dt, 0.5, &rec);
    scenes::Pile(scenes::Solver::kDantzig, dt, 0.75, &rec);
  }
  cts::bullet::BaraffMlcpSolver baraff;
  cts::bullet::LemkeMlcpSolver lemke;
  const double kValid = 1e-4;  // worst relative violation of a valid answer
  // Same x: max |x − x_Dantzig| over max |x_Dantzig|. Both are written to Bullet's float x
  // (relative rounding 6e-8) and Dantzig pivots in float: measured 8.5e-8.
  const double kSameX = 1e-6;
  int dantzig_valid = 0, dantzig_invalid = 0, dantzig_failed = 0;
  double dantzig_worst_valid = 0, dantzig_best_invalid = 1e300;
  const char* names[2] = {"Baraff", "Lemke"};
  cts::bullet::internal::MlcpAdapterBase* adapters[2] = {&baraff, &lemke};
  double worst_x[2] = {0, 0}, worst_valid[2] = {0, 0};
  int failed[2] = {0, 0}, compared[2] = {0, 0};
  for (const Problem& p : rec.problems) {
    double scale = 1e-12;
    for (int i = 0; i < p.x.rows(); ++i) scale = std::max(scale, std::fabs(double(p.x[i])));
    const double dantzig_violation = Violation(p, p.x);
    const bool valid = p.ok && dantzig_violation <= kValid;
    (valid ? dantzig_valid : p.ok ? dantzig_invalid : dantzig_failed)++;
    if (valid) dantzig_worst_valid = std::max(dantzig_worst_valid, dantzig_violation);
    if (p.ok && !valid) dantzig_best_invalid = std::min(dantzig_best_invalid, dantzig_violation);
    for (int k = 0; k < 2; ++k) {
      btVectorXu x = p.x0;
      if (!adapters[k]->solveMLCP(p.A, p.b, x, p.lo, p.hi, p.dep, 0, true)) {
        ++failed[k];
        std::printf("info %s returned false on a %d-row MLCP (Dantzig %s): %s\n", names[k], int(p.b.rows()),
                    valid ? "valid" : p.ok ? "true, invalid x" : "false", adapters[k]->last_error().c_str());
        continue;
      }
      worst_valid[k] = std::max(worst_valid[k], Violation(p, x));
      if (valid) {
        double d = 0;
        for (int i = 0; i < x.rows(); ++i) d = std::max(d, std::fabs(double(x[i]) - double(p.x[i])));
        worst_x[k] = std::max(worst_x[k], d / scale);
        ++compared[k];
      }
    }
  }
  std::printf("recorded %zu MLCPs (stack 0.5 s, pile 0.75 s, both steps, <= 120 rows): btDantzigSolver valid %d "
              "(worst violation %.2g), returned true with an invalid x %d (least violation %.2g), returned false %d\n",
              rec.problems.size(), dantzig_valid, dantzig_worst_valid, dantzig_invalid, dantzig_best_invalid,
              dantzig_failed);
  check(rec.problems.size() > 100 && dantzig_valid > 20, "MLCPs recorded / Dantzig valid on",
        double(dantzig_valid), 20);
  for (int k = 0; k < 2; ++k) {
    const std::string n = names[k];
    check(failed[k] == 0, (n + " returned false (every recorded MLCP, Dantzig's failures included)").c_str(),
          failed[k], 0);
    check(compared[k] == dantzig_valid && worst_x[k] <= kSameX,
          (n + " max |x - x_Dantzig| / max|x_Dantzig| wherever Dantzig succeeds (" + std::to_string(compared[k]) +
           " MLCPs)").c_str(),
          worst_x[k], kSameX);
    check(worst_valid[k] <= kValid, (n + " worst relative violation of its answers (every MLCP)").c_str(),
          worst_valid[k], kValid);
  }
  // Lemke: Drake's rule, the lexicographic rule, then shifted LCPs with proximal steps, every
  // answer verified with Bullet's float rounding allowed for (docs/bullet.md §2).
  std::printf("info Lemke: %ld lexicographic retries, %ld shifted solves, %ld answers polished\n",
              lemke.lexicographic_retries(), lemke.regularized_retries(), lemke.counters().polished);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "slope") == 0) Slope();
    else if (std::strcmp(argv[i], "stack") == 0) Stack();
    else if (std::strcmp(argv[i], "stack-mlcp") == 0) StackMlcp();
    else if (std::strcmp(argv[i], "pile") == 0) Pile();
    else if (std::strcmp(argv[i], "sphere") == 0) Sphere();
    else if (std::strcmp(argv[i], "mlcp") == 0) Mlcp();
    else {
      std::printf("unknown section %s\n", argv[i]);
      ++failures;
    }
  }
  std::printf("\n%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
