/* Siconos' FC3D solvers on the 3-D files of tests/data/siconos/friction_contact, timed
 * (docs/performance.md §4). Not part of the build or the tests: see README.md here.
 *
 * Usage: siconos_fc3d_bench RUNS FILE.dat...   (decompressed files; run.sh does it all)
 * For each file and each solver: one (file, solver) per child process (a solver that crashes
 * or hangs costs only its own row; 30 s alarm), RUNS solves from a zero start, each timed in
 * thread CPU time around the driver call alone. A run counts as solved when the natural-map
 * error recomputed here (the definition of tests/solvers/ipm_siconos.rs: local problems
 * ‖r − Π_K(r − (u_n + μ‖u_t‖, u_t))‖₂ / ‖q‖₂ with u = W r + q; global problems the same with
 * u = Hᵀv + b, divided by max(‖b‖, ‖q‖), and the momentum residual ‖Mv − q − Hr‖∞ ≤ 1e-8 of the
 * same norm) is ≤ 1e-8. Prints one line per (file, solver): the median time of the RUNS solves,
 * the error, Siconos' info and iterations. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <siconos/numerics/FrictionContactProblem.h>
#include <siconos/numerics/Friction_cst.h>
#include <siconos/numerics/GlobalFrictionContactProblem.h>
#include <siconos/numerics/NonSmoothDrivers.h>
#include <siconos/numerics/NumericsMatrix.h>
#include <siconos/numerics/SolverOptions.h>

static double thread_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double norm2(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

/* Σ_i ‖r_i − Π_K(r_i − û_i)‖² over the contacts (Coulomb cone ‖r_t‖ ≤ μ r_n). */
static double natural_map_sq(int nc, const double *mu, const double *r, const double *u) {
  double sum = 0.0;
  for (int i = 0; i < nc; i++) {
    const double *ri = r + 3 * i, *ui = u + 3 * i;
    double m = mu[i];
    double x[3] = {ri[0] - (ui[0] + m * hypot(ui[1], ui[2])), ri[1] - ui[1], ri[2] - ui[2]};
    double xt = hypot(x[1], x[2]), p[3];
    if (xt <= m * x[0]) {
      p[0] = x[0]; p[1] = x[1]; p[2] = x[2];
    } else if (m * xt <= -x[0]) {
      p[0] = p[1] = p[2] = 0.0;
    } else {
      double a = (x[0] + m * xt) / (1.0 + m * m);
      p[0] = a; p[1] = m * a * x[1] / xt; p[2] = m * a * x[2] / xt;
    }
    for (int k = 0; k < 3; k++) sum += (ri[k] - p[k]) * (ri[k] - p[k]);
  }
  return sum;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

struct result { double median, error; int info, iterations, solved_runs; };

static const int LOCAL[] = {SICONOS_FRICTION_3D_NSN_AC, SICONOS_FRICTION_3D_NSN_AC_TEST,
                            SICONOS_FRICTION_3D_NSN_FB, SICONOS_FRICTION_3D_NSN_NM,
                            SICONOS_FRICTION_3D_NSGS, SICONOS_FRICTION_3D_PROX,
                            SICONOS_FRICTION_3D_ADMM, SICONOS_FRICTION_3D_VI_FPP,
                            SICONOS_FRICTION_3D_VI_EG};
static const char *LOCAL_NAME[] = {"NSN_AC", "NSN_AC_TEST", "NSN_FB", "NSN_NM", "NSGS",
                                   "PROX", "ADMM", "VI_FPP", "VI_EG"};
static const int GLOBAL[] = {SICONOS_GLOBAL_FRICTION_3D_NSN_AC, SICONOS_GLOBAL_FRICTION_3D_NSGS_WR,
                             SICONOS_GLOBAL_FRICTION_3D_NSN_AC_WR, SICONOS_GLOBAL_FRICTION_3D_ADMM,
                             SICONOS_GLOBAL_FRICTION_3D_ADMM_WR, SICONOS_GLOBAL_FRICTION_3D_IPM,
                             SICONOS_GLOBAL_FRICTION_3D_VI_FPP};
static const char *GLOBAL_NAME[] = {"G_NSN_AC", "G_NSGS_WR", "G_NSN_AC_WR", "G_ADMM",
                                    "G_ADMM_WR", "G_IPM", "G_VI_FPP"};

static struct result run_local(const char *file, int solver, int runs) {
  struct result res = {INFINITY, INFINITY, -1, 0, 0};
  FrictionContactProblem *p = frictionContact_new_from_filename(file);
  if (!p || p->dimension != 3) return res;
  int m = 3 * p->numberOfContacts;
  double *r = calloc(m, sizeof(double)), *u = calloc(m, sizeof(double));
  double *times = calloc(runs, sizeof(double));
  double nq = norm2(p->q, m);
  if (!(nq > 2.2e-16)) nq = 1.0;
  for (int k = 0; k < runs; k++) {
    SolverOptions *o = solver_options_create(solver);
    o->dparam[SICONOS_DPARAM_TOL] = 1e-8;
    memset(r, 0, m * sizeof(double));
    memset(u, 0, m * sizeof(double));
    double t0 = thread_seconds();
    res.info = fc3d_driver(p, r, u, o);
    times[k] = thread_seconds() - t0;
    res.iterations = o->iparam[SICONOS_IPARAM_ITER_DONE];
    solver_options_delete(o);
    /* u = W r + q, recomputed. */
    memcpy(u, p->q, m * sizeof(double));
    NM_gemv(1.0, p->M, r, 1.0, u);
    res.error = sqrt(natural_map_sq(p->numberOfContacts, p->mu, r, u)) / nq;
    if (res.error <= 1e-8) res.solved_runs++;
    if (k == 0 && times[0] > 5.0) { runs = 1; break; }
  }
  qsort(times, runs, sizeof(double), cmp);
  res.median = times[runs / 2];
  return res;
}

static struct result run_global(const char *file, int solver, int runs) {
  struct result res = {INFINITY, INFINITY, -1, 0, 0};
  GlobalFrictionContactProblem *p = globalFrictionContact_new_from_filename(file);
  if (!p || p->dimension != 3) return res;
  int m = 3 * p->numberOfContacts, n = p->M->size0;
  double *r = calloc(m, sizeof(double)), *u = calloc(m, sizeof(double));
  double *v = calloc(n, sizeof(double)), *dyn = calloc(n, sizeof(double));
  double *times = calloc(runs, sizeof(double));
  double norm = fmax(norm2(p->b, m), norm2(p->q, n));
  if (!(norm > 2.2e-16)) norm = 1.0;
  for (int k = 0; k < runs; k++) {
    SolverOptions *o = solver_options_create(solver);
    o->dparam[SICONOS_DPARAM_TOL] = 1e-8;
    memset(r, 0, m * sizeof(double));
    memset(u, 0, m * sizeof(double));
    memset(v, 0, n * sizeof(double));
    double t0 = thread_seconds();
    res.info = gfc3d_driver(p, r, u, v, o);
    times[k] = thread_seconds() - t0;
    res.iterations = o->iparam[SICONOS_IPARAM_ITER_DONE];
    solver_options_delete(o);
    /* u = Hᵀ v + b and M v − q − H r, recomputed. */
    memcpy(u, p->b, m * sizeof(double));
    NM_tgemv(1.0, p->H, v, 1.0, u);
    for (int j = 0; j < n; j++) dyn[j] = -p->q[j];
    NM_gemv(1.0, p->M, v, 1.0, dyn);
    NM_gemv(-1.0, p->H, r, 1.0, dyn);
    double dmax = 0.0;
    for (int j = 0; j < n; j++) dmax = fmax(dmax, fabs(dyn[j]));
    res.error = fmax(sqrt(natural_map_sq(p->numberOfContacts, p->mu, r, u)), dmax) / norm;
    if (res.error <= 1e-8) res.solved_runs++;
    if (k == 0 && times[0] > 5.0) { runs = 1; break; }
  }
  qsort(times, runs, sizeof(double), cmp);
  res.median = times[runs / 2];
  return res;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s RUNS FILE.dat...\n", argv[0]);
    return 2;
  }
  int runs = atoi(argv[1]);
  for (int f = 2; f < argc; f++) {
    const char *file = argv[f];
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    int global = strncmp(base, "GFC3D_", 6) == 0 && !strstr(base, "condensed");
    int count = global ? (int)(sizeof GLOBAL / sizeof *GLOBAL) : (int)(sizeof LOCAL / sizeof *LOCAL);
    for (int s = 0; s < count; s++) {
      const char *name = global ? GLOBAL_NAME[s] : LOCAL_NAME[s];
      int fd[2];
      if (pipe(fd)) return 1;
      pid_t pid = fork();
      if (pid == 0) {
        close(fd[0]);
        /* Siconos prints its own progress: keep the table readable. */
        if (!freopen("/dev/null", "w", stdout)) _exit(1);
        alarm(30);
        struct result res = global ? run_global(file, GLOBAL[s], runs) : run_local(file, LOCAL[s], runs);
        if (write(fd[1], &res, sizeof res) != (ssize_t)sizeof res) _exit(1);
        _exit(0);
      }
      close(fd[1]);
      struct result res = {INFINITY, INFINITY, -99, 0, 0};
      ssize_t got = read(fd[0], &res, sizeof res);
      close(fd[0]);
      int status = 0;
      waitpid(pid, &status, 0);
      if (got != (ssize_t)sizeof res) res.info = WIFSIGNALED(status) ? -WTERMSIG(status) : -98;
      printf("%-36s %-12s %12.6e s  err %9.2e  info %3d  it %6d  solved %d\n", base, name,
             res.median, res.error, res.info, res.iterations, res.solved_runs);
      fflush(stdout);
    }
  }
  return 0;
}
