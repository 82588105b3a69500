// Side-by-side timing of Drake's compiled TamsiSolver<double> and contact_solvers' TAMSI (through
// the C API) on the problems of a `TAMSI_CASES 1` file, in one process, passes interleaved
// (docs/performance.md §1). NOT part of CI and not built by cargo: see README.md beside this file.
//
// Usage: side_by_side [cases.txt[.gz]] [--passes N] [--seconds S] [--wall|--cpu]
//
// Per problem: one solver of each kind, two-way (or one-way) data set once, default parameters,
// three warm-up solves, then SolveWithGuess(dt, v0) repeated from the same guess, the two
// libraries' calls alternating, every call timed; per pass the median per library; the figure
// is the best (smallest) of the per-pass medians. Checks: same outcome and iteration count, v
// within 1e-12·max(1, |v|∞) of Drake's, and both against the file's stored Drake result.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "contact_solvers.h"
#include "drake/multibody/plant/tamsi_solver.h"

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

struct Case {
  std::string name;
  int nv = 0, nc = 0, scheme = 0;
  double dt = 0;
  double stiction = 0, rtol = 0, theta_max = 0;
  int max_iterations = 0;
  int check = 0;
  std::map<std::string, std::vector<double>> arrays;
  int result_code = -1, result_iterations = -1;
  const std::vector<double>& at(const std::string& key) const {
    auto it = arrays.find(key);
    if (it == arrays.end()) throw std::runtime_error(name + ": no array " + key);
    return it->second;
  }
};

// Reads whitespace-separated tokens from a plain or gzip file (gzip through `gzip -dc`).
std::vector<std::string> read_tokens(const std::string& path) {
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  std::string cmd = (gz ? "gzip -dc '" : "cat '") + path + "'";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<std::string> tokens;
  std::string cur;
  int c;
  while ((c = fgetc(f)) != EOF) {
    if (std::isspace(c)) {
      if (!cur.empty()) tokens.push_back(cur), cur.clear();
    } else {
      cur.push_back(static_cast<char>(c));
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  if (pclose(f) != 0) throw std::runtime_error("reading " + path + " failed");
  return tokens;
}

std::vector<Case> parse_cases(const std::string& path) {
  const std::vector<std::string> t = read_tokens(path);
  size_t i = 0;
  auto next = [&]() -> const std::string& {
    if (i >= t.size()) throw std::runtime_error("unexpected end of " + path);
    return t[i++];
  };
  auto expect = [&](const char* s) {
    if (next() != s) throw std::runtime_error(std::string("expected ") + s + " in " + path);
  };
  auto num = [&]() { return std::strtod(next().c_str(), nullptr); };
  expect("TAMSI_CASES");
  expect("1");
  const int count = std::atoi(next().c_str());
  std::vector<Case> cases;
  for (int k = 0; k < count; ++k) {
    Case c;
    expect("solve");
    c.name = next();
    expect("nv");
    c.nv = std::atoi(next().c_str());
    expect("nc");
    c.nc = std::atoi(next().c_str());
    expect("scheme");
    c.scheme = std::atoi(next().c_str());
    expect("dt");
    c.dt = num();
    expect("params");
    c.stiction = num();
    c.max_iterations = std::atoi(next().c_str());
    c.rtol = num();
    c.theta_max = num();
    expect("check");
    c.check = std::atoi(next().c_str());
    const int nv = c.nv, nc = c.nc;
    const std::map<std::string, int> sizes = {
        {"M", nv * nv},  {"Jn", nc * nv},    {"Jt", 2 * nc * nv},   {"p_star", nv},
        {"fn", nc},      {"fn0", nc},        {"stiffness", nc},     {"dissipation", nc},
        {"mu", nc},      {"guess", nv},      {"res_abs_tol", 1},    {"v", nv},
        {"vn", nc},      {"vt", 2 * nc},     {"fn_out", nc},        {"ft", 2 * nc},
        {"tau_f", nv},   {"tau", nv}};
    for (;;) {
      const std::string key = next();
      if (key == "end") break;
      if (key == "result") {
        c.result_code = std::atoi(next().c_str());
        c.result_iterations = std::atoi(next().c_str());
        continue;
      }
      int n;
      if (key == "residuals") {
        n = std::atoi(next().c_str());
      } else {
        auto it = sizes.find(key);
        if (it == sizes.end()) throw std::runtime_error(c.name + ": unknown key " + key);
        n = it->second;
      }
      std::vector<double> values(n);
      for (double& x : values) x = num();
      c.arrays[key] = std::move(values);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

double max_abs_diff(const double* a, const double* b, int n, double* scale) {
  double d = 0, s = 1;
  for (int j = 0; j < n; ++j) {
    d = std::max(d, std::abs(a[j] - b[j]));
    s = std::max(s, std::abs(b[j]));
  }
  *scale = s;
  return d;
}

bool use_cpu_clock = false;

inline double now_ns() {
  if (use_cpu_clock) {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e9 * static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec);
  }
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const size_t n = x.size();
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

void check_status(cts_status s, const char* what, cts_tamsi_solver* solver) {
  if (s != CTS_STATUS_OK) {
    std::fprintf(stderr, "%s failed: status %d: %s\n", what, static_cast<int>(s),
                 solver ? cts_tamsi_solver_last_error(solver) : "");
    std::exit(2);
  }
}

// One problem with both solvers set up, data owned here (both libraries borrow it).
struct Pair {
  const Case* c;
  MatrixXd M, Jn, Jt;
  VectorXd p_star, fn, fn0, k, d, mu, guess;
  std::unique_ptr<drake::multibody::TamsiSolver<double>> drake;
  cts_tamsi_solver* ours = nullptr;
  VectorXd v_ours;

  explicit Pair(const Case& cs) : c(&cs) {
    const int nv = cs.nv, nc = cs.nc;
    M = Eigen::Map<const MatrixXd>(cs.at("M").data(), nv, nv);
    Jn = Eigen::Map<const MatrixXd>(cs.at("Jn").data(), nc, nv);
    Jt = Eigen::Map<const MatrixXd>(cs.at("Jt").data(), 2 * nc, nv);
    auto vec = [&](const char* key) {
      return VectorXd(Eigen::Map<const VectorXd>(cs.at(key).data(), cs.at(key).size()));
    };
    p_star = vec("p_star");
    mu = vec("mu");
    guess = vec("guess");
    v_ours.resize(nv);

    drake = std::make_unique<drake::multibody::TamsiSolver<double>>(nv);
    check_status(cts_tamsi_solver_new(static_cast<size_t>(nv), &ours), "cts_tamsi_solver_new",
                 nullptr);
    // Default parameters on both sides (the bench file uses the defaults; checked here).
    cts_tamsi_parameters p;
    cts_tamsi_parameters_default(&p);
    const drake::multibody::TamsiSolverParameters dp = drake->get_solver_parameters();
    if (p.stiction_tolerance != cs.stiction || p.max_iterations != cs.max_iterations ||
        p.relative_tolerance != cs.rtol || p.theta_max != cs.theta_max ||
        dp.stiction_tolerance != cs.stiction || dp.max_iterations != cs.max_iterations ||
        dp.relative_tolerance != cs.rtol || dp.theta_max != cs.theta_max) {
      std::fprintf(stderr, "%s: the file's parameters are not the defaults\n", cs.name.c_str());
      std::exit(2);
    }
    check_status(cts_tamsi_solver_set_parameters(ours, &p), "set_parameters", ours);
    const size_t snc = static_cast<size_t>(nc), snv = static_cast<size_t>(nv);
    if (cs.scheme == 2) {
      fn0 = vec("fn0");
      k = vec("stiffness");
      d = vec("dissipation");
      drake->SetTwoWayCoupledProblemData(&M, &Jn, &Jt, &p_star, &fn0, &k, &d, &mu);
      check_status(cts_tamsi_solver_set_two_way_coupled_problem_data(
                       ours, snc, M.data(), snv, Jn.data(), snc, Jt.data(), 2 * snc,
                       p_star.data(), fn0.data(), k.data(), d.data(), mu.data()),
                   "set_two_way_coupled_problem_data", ours);
    } else {
      fn = vec("fn");
      drake->SetOneWayCoupledProblemData(&M, &Jn, &Jt, &p_star, &fn, &mu);
      check_status(cts_tamsi_solver_set_one_way_coupled_problem_data(
                       ours, snc, M.data(), snv, Jn.data(), snc, Jt.data(), 2 * snc,
                       p_star.data(), fn.data(), mu.data()),
                   "set_one_way_coupled_problem_data", ours);
    }
  }
  ~Pair() { cts_tamsi_solver_free(ours); }

  int solve_drake() { return static_cast<int>(drake->SolveWithGuess(c->dt, guess)); }
  int solve_ours() {
    const cts_status s =
        cts_tamsi_solver_solve_with_guess(ours, c->dt, guess.data(), static_cast<size_t>(c->nv));
    // Our solver outcomes in Drake's numbering: OK = success, then the three failures.
    switch (s) {
      case CTS_STATUS_OK: return 0;
      case CTS_STATUS_MAX_ITERATIONS_REACHED: return 1;
      case CTS_STATUS_LINEAR_SOLVER_FAILED: return 2;
      case CTS_STATUS_ALPHA_SOLVER_FAILED: return 3;
      default: return 100 + static_cast<int>(s);
    }
  }

  // Same outcome and iterations on both sides, v within tol of Drake's; returns max |Δv|.
  double check(double tol) {
    const int rd = solve_drake(), ro = solve_ours();
    const int it_d = drake->get_iteration_statistics().num_iterations;
    cts_tamsi_iteration_stats st;
    check_status(cts_tamsi_solver_get_iteration_stats(ours, &st), "get_iteration_stats", ours);
    check_status(cts_tamsi_solver_get_generalized_velocities(ours, v_ours.data(),
                                                             static_cast<size_t>(c->nv)),
                 "get_generalized_velocities", ours);
    const VectorXd& vd = drake->get_generalized_velocities();
    double scale;
    const double dv = max_abs_diff(v_ours.data(), vd.data(), c->nv, &scale);
    double scale_file;
    const double dv_file = max_abs_diff(vd.data(), c->at("v").data(), c->nv, &scale_file);
    if (rd != ro || it_d != st.num_iterations || !(dv <= tol * scale)) {
      std::fprintf(stderr,
                   "%s: MISMATCH outcome %d/%d iterations %d/%d max|dv| %.3g (tol %.3g)\n",
                   c->name.c_str(), rd, ro, it_d, st.num_iterations, dv, tol * scale);
      std::exit(1);
    }
    if (rd != c->result_code || it_d != c->result_iterations || !(dv_file <= 1e-9 * scale_file)) {
      std::fprintf(stderr,
                   "%s: linked Drake differs from the file's Drake result: outcome %d/%d "
                   "iterations %d/%d max|dv| %.3g\n",
                   c->name.c_str(), rd, c->result_code, it_d, c->result_iterations, dv_file);
      std::exit(1);
    }
    return dv;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string path = "tests/data/tamsi_bench_cases.txt.gz";
  int passes = 3;
  double seconds = 0.25;  // target time per library, per problem, per pass
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--passes" && a + 1 < argc) {
      passes = std::atoi(argv[++a]);
    } else if (arg == "--seconds" && a + 1 < argc) {
      seconds = std::atof(argv[++a]);
    } else if (arg == "--cpu") {
      use_cpu_clock = true;
    } else if (arg == "--wall") {
      use_cpu_clock = false;
    } else if (!arg.empty() && arg[0] != '-') {
      path = arg;
    } else {
      std::fprintf(stderr, "usage: %s [cases] [--passes N] [--seconds S] [--wall|--cpu]\n",
                   argv[0]);
      return 2;
    }
  }
  const std::vector<Case> cases = parse_cases(path);
  std::vector<std::unique_ptr<Pair>> pairs;
  std::vector<double> max_dv;
  std::vector<int> reps;
  for (const Case& c : cases) {
    pairs.push_back(std::make_unique<Pair>(c));
    Pair& p = *pairs.back();
    for (int w = 0; w < 3; ++w) p.solve_drake(), p.solve_ours();
    max_dv.push_back(p.check(1e-12));
    // Calls per pass: about `seconds` of Drake's time, at least 15.
    double t_drake = INFINITY;  // fastest of five: a preempted call must not set the count
    for (int r = 0; r < 5; ++r) {
      const double t0 = now_ns();
      p.solve_drake();
      t_drake = std::min(t_drake, std::max(now_ns() - t0, 1.0));
    }
    reps.push_back(std::clamp(static_cast<int>(seconds * 1e9 / t_drake), 15, 20000));
  }

  std::vector<double> best_drake(cases.size(), INFINITY), best_ours(cases.size(), INFINITY);
  std::vector<double> td, to;
  for (int pass = 0; pass < passes; ++pass) {
    for (size_t k = 0; k < pairs.size(); ++k) {
      Pair& p = *pairs[k];
      td.assign(reps[k], 0);
      to.assign(reps[k], 0);
      for (int r = 0; r < reps[k]; ++r) {
        // Alternate which library goes first so neither always inherits the other's cache state.
        if (r % 2 == 0) {
          double t0 = now_ns();
          p.solve_drake();
          double t1 = now_ns();
          p.solve_ours();
          double t2 = now_ns();
          td[r] = t1 - t0, to[r] = t2 - t1;
        } else {
          double t0 = now_ns();
          p.solve_ours();
          double t1 = now_ns();
          p.solve_drake();
          double t2 = now_ns();
          to[r] = t1 - t0, td[r] = t2 - t1;
        }
      }
      best_drake[k] = std::min(best_drake[k], median(td));
      best_ours[k] = std::min(best_ours[k], median(to));
    }
  }
  // Checked again after timing (the repeated solves must not drift).
  for (size_t k = 0; k < pairs.size(); ++k) max_dv[k] = std::max(max_dv[k], pairs[k]->check(1e-12));

  std::printf("clock: %s; passes: %d; best of per-pass medians\n",
              use_cpu_clock ? "thread CPU time" : "steady_clock (wall)", passes);
  std::printf("| nv | nc | iterations | Drake µs | contact_solvers µs | ratio | max |Δv| | calls/pass |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (size_t k = 0; k < pairs.size(); ++k) {
    const Case& c = cases[k];
    std::printf("| %d | %d | %d | %.2f | %.2f | %.3f | %.1e | %d |\n", c.nv, c.nc,
                c.result_iterations, best_drake[k] * 1e-3, best_ours[k] * 1e-3,
                best_ours[k] / best_drake[k], max_dv[k], reps[k]);
  }
  return 0;
}
