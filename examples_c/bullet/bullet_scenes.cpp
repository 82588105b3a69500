// SPDX-License-Identifier: MIT OR Apache-2.0
// Bullet with every solver side by side (issue 32, docs/bullet.md): Bullet's sequential impulse
// solver, btMLCPSolver with btDantzigSolver, btMLCPSolver with the library's Baraff and Lemke
// adapters, and the library's ContactSolver with TAMSI and the interior point, on a box on a slope
// (μ below and above tan θ), a stack of ten boxes for 10 s, fifty boxes dropped into a pile and a
// sphere rolling, at dt = 1/240 s and 1/60 s. Prints one table.
//
// Usage: bullet_scenes [--quick]   (--quick: shorter runs, for the sanitizer build in the tests)
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "scenes.hpp"

namespace {

const char* verdict(bool ok) { return ok ? "ok" : "FAIL"; }

void row(const char* scene, double dt, scenes::Solver s, const scenes::Result& r, double si_ms, const std::string& metric,
         bool ok) {
  std::printf("| %-18s | 1/%-3d | %-19s | %8.3f | %6.2f | %-26s | %7.2f | %5ld | %-4s |\n", scene,
              int(std::lround(1.0 / dt)), scenes::name(s), r.ms_per_step, si_ms > 0 ? r.ms_per_step / si_ms : 0.0,
              metric.c_str(), 1e3 * r.penetration, r.fallbacks, r.exploded ? "EXPL" : verdict(ok));
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const double stack_T = quick ? 1.0 : 10.0, pile_T = quick ? 0.5 : 2.0, sphere_T = quick ? 0.5 : 2.0;
  const double mu_slide = std::tan(scenes::kSlopeTheta) - 0.05, mu_stick = std::tan(scenes::kSlopeTheta) + 0.05;
  std::printf("| scene              | dt    | solver              | ms/step  | ×SI    | figure                     | pen mm  | fallb | ok   |\n");
  std::printf("|--------------------|-------|---------------------|----------|--------|----------------------------|---------|-------|------|\n");
  for (double dt : {1.0 / 240.0, 1.0 / 60.0}) {
    double si = 0;
    for (scenes::Solver s : scenes::kAllSolvers) {
      const scenes::Result r = scenes::Slope(s, dt, mu_slide);
      if (s == scenes::Solver::kSequentialImpulse) si = r.ms_per_step;
      const double want = scenes::SlopeExpected(mu_slide);
      row("slope μ=tanθ−0.05", dt, s, r, si, fmt("a %.4f", r.metric) + fmt(" err %+.2f%%", 100 * (r.metric / want - 1)),
          std::fabs(r.metric / want - 1) < 0.01);
    }
    for (scenes::Solver s : scenes::kAllSolvers) {
      const scenes::Result r = scenes::Slope(s, dt, mu_stick);
      if (s == scenes::Solver::kSequentialImpulse) si = r.ms_per_step;
      row("slope μ=tanθ+0.05", dt, s, r, si, fmt("a %.2e m/s² (sticks)", r.metric), std::fabs(r.metric) < 1e-3);
    }
    for (scenes::Solver s : scenes::kAllSolvers) {
      const scenes::Result r = scenes::Stack(s, dt, stack_T);
      if (s == scenes::Solver::kSequentialImpulse) si = r.ms_per_step;
      // The bars: < 1 cm through ContactSolver (and Bullet's own), < 5 cm through the MLCP adapters.
      const bool mlcp = s == scenes::Solver::kBaraffMlcp || s == scenes::Solver::kLemkeMlcp;
      row("stack 10 boxes", dt, s, r, si, fmt("top drift %.2f cm", 100 * r.metric), r.metric < (mlcp ? 0.05 : 0.01));
    }
    for (scenes::Solver s : scenes::kAllSolvers) {
      if (s == scenes::Solver::kLemkeMlcp) {
        // Lemke's dense LCP of the pile has ~900 variables: about a second per step.
        std::printf("| %-18s | 1/%-3d | %-19s | skipped: about 1 s per step (dense LCP of ~900 variables)                |\n",
                    "pile 50 boxes", int(std::lround(1.0 / dt)), scenes::name(s));
        continue;
      }
      const scenes::Result r = scenes::Pile(s, dt, pile_T);
      if (s == scenes::Solver::kSequentialImpulse) si = r.ms_per_step;
      row("pile 50 boxes", dt, s, r, si, fmt("E gain %.3f J", r.energy_gain) + fmt(", KE %.3f", r.metric),
          r.energy_gain <= 1e-3);
    }
    for (scenes::Solver s : scenes::kAllSolvers) {
      const scenes::Result r = scenes::Sphere(s, dt, sphere_T);
      if (s == scenes::Solver::kSequentialImpulse) si = r.ms_per_step;
      row("sphere rolling", dt, s, r, si, fmt("v/(5/7 v0) − 1 = %+.2e", r.metric), r.metric < 0.01);
    }
  }
  std::printf("figure: slope a (m/s²) downhill over 0.25..1.25 s; stack: top box's displacement after %.0f s;\n"
              "pile: largest rise of kinetic + potential energy over %.1f s, kinetic energy at the end;\n"
              "sphere: speed after %.1f s against rolling 5/7·v0. pen: deepest contact penetration over the\n"
              "last 0.5 s of the run (contact at rest). ms/step: CPU time; ×SI: over Bullet SI's in the same run.\n"
              "fallb: btMLCPSolver fallbacks to its iterations / groups ContactSolver gave to Bullet's solver.\n"
              "ok: slope within 1 %% of g(sin θ − μ cos θ) or |a| < 1e-3; stack drift < 1 cm (< 5 cm through the\n"
              "MLCP adapters); pile without energy gain; sphere within 1 %% of 5/7·v0.\n",
              stack_T, pile_T, sphere_T);
  return 0;
}
