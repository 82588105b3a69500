/* The MuJoCo glue of mujoco_bridge.py, in C: one contact step of a MuJoCo state in this
 * library's block form, set and solved through the C ABI without a Python-level operation per
 * step (docs/performance.md §3 "The live loop": in the loop, right after MuJoCo's step, Python
 * runs with cold caches and its preparation of the set call alone costs more than MuJoCo's
 * constraint solve at 50 boxes).
 *
 * Conventions and arithmetic are those of mujoco_bridge.py (`contact_step`) and mujoco_pile.py
 * (`block_step`), operation for operation, so that the same state gives bit-identical arrays
 * (examples_c/python/tests/test_mujoco_bridge_c.py checks it):
 *
 * - trees: MuJoCo's kinematic trees with at least one dof (tree_dofadr, tree_dofnum),
 *   contiguous and in order; M: one dense n_t×n_t block per tree (column-major; M is symmetric),
 *   read from MuJoCo's sparse inertia (d->M in the CSR layout M_rownnz/M_rowadr/M_colind; the
 *   same values mj_fullM copies);
 * - per contact (geom contacts only; flex contacts are refused): jrel = 0 + 1·Jp(body2) − 1·Jp(body1)
 *   (the world body skipped), Jp the translational Jacobian of the point contact.pos; the block
 *   rows are contact.frame's rows applied to jrel as ((f0·j0) + (f1·j1)) + (f2·j2); a tree is
 *   touched when one of its columns is nonzero; contacts touching no tree are dropped, more
 *   than two are an error; the trees are listed in increasing order (-1: static side);
 * - TAMSI's loop keeps the touching contacts (dist < 0), the interior point's every contact found
 *   within the geoms' margin (CTSMJ_ALL_CONTACTS): phi = dist, mu = friction[0],
 *   fn0 = k·max(0, −phi), stiffness k and dissipation d the caller's constants; contact ids
 *   (the interior point's warm start) (geom1·100003 + geom2)·64 + the contact's index among its
 *   geom pair's, counted over MuJoCo's list, where a pair's contacts are consecutive;
 * - p* = M·qvel (mj_mulM) + dt·qfrc_smooth with dt = opt.timestep; v0 = qvel, tau = qfrc_smooth.
 *
 * Python (mujoco_bridge_c.py) passes the wheel's MjModel._address, MjData._address and the
 * solver handle; a C or C++ engine calls the same functions with its own mjModel and mjData.
 *
 * Jp is MuJoCo's mj_jac (CTSMJ_MJ_JAC) or, by default, the same columns built only on the
 * body's chain of dofs from MuJoCo's com-based dof axes: column i = lin_i + ang_i × (p − c), with
 * (ang_i, lin_i) = d->cdof[6i..6i+5] and c the subtree centre of mass of the body's root
 * (MuJoCo's documented com-based convention). mj_jac zeroes 3·nv doubles per call, which at
 * 200 boxes (nv 1200, ~1600 calls a step) costs more than MuJoCo's whole constraint solve; the
 * test checks that both give the same bits.
 *
 * Memory: the bridge keeps every array it hands the solver (the setter borrows them until the
 * next set call) and grows them only when a step needs more; a step allocates nothing once
 * grown. Errors: a negative return, described by ctsmj_error().
 *
 * Build (what the test does):
 *   cc -O2 -shared -fPIC -ffp-contract=off -I<repo>/include -I<mujoco>/include \
 *      mujoco_bridge.c -o libctsmj.so <repo>/target/release/libcontact_solvers.so \
 *      <mujoco>/libmujoco.so.4.0.0 -Wl,-rpath,<both folders>
 * -ffp-contract=off: no fused multiply-add, so that every product and sum rounds as numpy's
 * elementwise operations do.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#include "contact_solvers.h"

/* Flags of ctsmj_extract, ctsmj_tamsi_step and ctsmj_ipm_step. */
#define CTSMJ_STAGES 1  /* run mj_fwdPosition, Velocity, Actuation, Acceleration first */
#define CTSMJ_MJ_JAC 2  /* Jp from mj_jac (the reference) instead of the chain columns */
#define CTSMJ_ADVANCE 4 /* step: qvel = v, mj_integratePos over opt.timestep, time += timestep */
#define CTSMJ_ALL_CONTACTS 8 /* keep every contact MuJoCo found (margin included), not only dist < 0 */

/* Indices of ctsmj_array. */
enum {
  CTSMJ_TREE_DOFS,     /* int32, ntree */
  CTSMJ_M,             /* double, sum n_t^2 */
  CTSMJ_CONTACT_TREES, /* int32, 2 nc */
  CTSMJ_J,             /* double, 3 sum_i sum_t n_t */
  CTSMJ_P_STAR,        /* double, nv */
  CTSMJ_V0,            /* double, nv */
  CTSMJ_FN0,           /* double, nc */
  CTSMJ_STIFFNESS,     /* double, nc */
  CTSMJ_DISSIPATION,   /* double, nc */
  CTSMJ_MU,            /* double, nc */
  CTSMJ_PHI,           /* double, nc */
  CTSMJ_TAU,           /* double, nv: qfrc_smooth */
  CTSMJ_MODELS,        /* int32, nc: the interior point's contact model (ctsmj_ipm_step) */
  CTSMJ_IDS,           /* uint64, nc: (geom1·100003 + geom2)·64 + index of the contact in its pair */
  CTSMJ_NUM_ARRAYS
};

/* A growable array: capacity in elements of `size` bytes. */
typedef struct {
  void *p;
  size_t len, cap, size;
} buf;

typedef struct ctsmj_bridge {
  buf a[CTSMJ_NUM_ARRAYS];
  buf tree_first;  /* int, per kept tree: its first dof */
  buf tree_of_dof; /* int, nv: kept tree index */
  buf mv;          /* double, nv: M·qvel */
  buf jac;         /* double, 3 nv: mj_jac's output (CTSMJ_MJ_JAC) */
  buf jrel;        /* double, 3 × (columns of the contact's trees) */
  char error[256];
} ctsmj_bridge;

static int grow(buf *b, size_t n) {
  if (n <= b->cap) {
    b->len = n;
    return 0;
  }
  size_t cap = b->cap ? b->cap : 16;
  while (cap < n) cap *= 2;
  void *p = realloc(b->p, cap * b->size);
  if (!p) return -1;
  b->p = p;
  b->cap = cap;
  b->len = n;
  return 0;
}

ctsmj_bridge *ctsmj_new(void) {
  ctsmj_bridge *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  static const size_t sizes[CTSMJ_NUM_ARRAYS] = {
      sizeof(int32_t), sizeof(double), sizeof(int32_t), sizeof(double), sizeof(double), sizeof(double),
      sizeof(double),  sizeof(double), sizeof(double),  sizeof(double), sizeof(double), sizeof(double),
      sizeof(int32_t), sizeof(uint64_t)};
  for (int i = 0; i < CTSMJ_NUM_ARRAYS; ++i) b->a[i].size = sizes[i];
  b->tree_first.size = b->tree_of_dof.size = sizeof(int);
  b->mv.size = b->jac.size = b->jrel.size = sizeof(double);
  return b;
}

void ctsmj_free(ctsmj_bridge *b) {
  if (!b) return;
  for (int i = 0; i < CTSMJ_NUM_ARRAYS; ++i) free(b->a[i].p);
  free(b->tree_first.p);
  free(b->tree_of_dof.p);
  free(b->mv.p);
  free(b->jac.p);
  free(b->jrel.p);
  free(b);
}

const char *ctsmj_error(const ctsmj_bridge *b) { return b ? b->error : "null bridge"; }

/* Array `which` of the last extraction: its pointer, and its length in elements in *len. */
const void *ctsmj_array(const ctsmj_bridge *b, int which, size_t *len) {
  if (!b || which < 0 || which >= CTSMJ_NUM_ARRAYS) return NULL;
  if (len) *len = b->a[which].len;
  return b->a[which].p;
}

static int fail(ctsmj_bridge *b, const char *msg, long value) {
  snprintf(b->error, sizeof b->error, "%s (%ld)", msg, value);
  return -1;
}

#define ARR(b, i, T) ((T *)(b)->a[i].p)

/* Adds sign·Jp(body, point) to jrel over the columns [c0, c0 + ncol) (row-major 3 × ncol), as
 * numpy's `jrel += sign * jacp` does over those columns (the others stay zero in both). */
static void add_jac(ctsmj_bridge *b, const mjModel *m, const mjData *d, int body, const mjtNum *point,
                    double sign, int c0, int ncol, int use_mj_jac) {
  double *jrel = b->jrel.p;
  if (use_mj_jac) {
    double *jacp = b->jac.p;
    int nv = (int)m->nv;
    mj_jac(m, d, jacp, NULL, point, body);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < ncol; ++c) jrel[r * ncol + c] += sign * jacp[r * nv + c0 + c];
    return;
  }
  /* The body's chain: its own dofs and its ancestors', found from the nearest body with dofs. */
  int bb = body;
  while (bb > 0 && m->body_dofnum[bb] == 0) bb = m->body_parentid[bb];
  if (bb <= 0) {
    /* No dofs: mj_jac's columns are all zero; adding sign·0 leaves +0 and any value unchanged. */
    return;
  }
  const mjtNum *com = d->subtree_com + 3 * m->body_rootid[body];
  double off[3] = {point[0] - com[0], point[1] - com[1], point[2] - com[2]};
  for (int i = m->body_dofadr[bb] + m->body_dofnum[bb] - 1; i >= 0; i = m->dof_parentid[i]) {
    const mjtNum *ang = d->cdof + 6 * i, *lin = ang + 3;
    double cr[3] = {ang[1] * off[2] - ang[2] * off[1], ang[2] * off[0] - ang[0] * off[2],
                    ang[0] * off[1] - ang[1] * off[0]};
    int c = i - c0;
    if (c < 0 || c >= ncol) continue; /* not in the contact's trees: cannot happen for a chain */
    for (int r = 0; r < 3; ++r) jrel[r * ncol + c] += sign * (lin[r] + cr[r]);
  }
}

long ctsmj_extract(ctsmj_bridge *b, const mjModel *m, mjData *d, double stiffness, double dissipation,
                   int flags) {
  if (!b || !m || !d) return -1;
  b->error[0] = 0;
  if (flags & CTSMJ_STAGES) {
    mj_fwdPosition(m, d);
    mj_fwdVelocity(m, d);
    mj_fwdActuation(m, d);
    mj_fwdAcceleration(m, d);
  }
  int nv = (int)m->nv;
  /* Trees. */
  size_t ntree = 0, mlen = 0;
  if (grow(&b->tree_first, (size_t)m->ntree) || grow(&b->a[CTSMJ_TREE_DOFS], (size_t)m->ntree) ||
      grow(&b->tree_of_dof, (size_t)nv))
    return fail(b, "out of memory for trees", (long)m->ntree);
  int nxt = 0;
  for (int t = 0; t < (int)m->ntree; ++t) {
    int first = m->tree_dofadr[t], n = m->tree_dofnum[t];
    if (n == 0) continue;
    if (first != nxt) return fail(b, "tree dofs not contiguous and in order at tree", t);
    ARR(b, CTSMJ_TREE_DOFS, int32_t)[ntree] = n;
    ((int *)b->tree_first.p)[ntree] = first;
    for (int k = 0; k < n; ++k) ((int *)b->tree_of_dof.p)[first + k] = (int)ntree;
    ++ntree;
    mlen += (size_t)n * n;
    nxt += n;
  }
  if (nxt != nv) return fail(b, "trees do not cover the dofs; covered", nxt);
  b->a[CTSMJ_TREE_DOFS].len = ntree;
  b->tree_first.len = ntree;
  const int *tree_first = b->tree_first.p, *tree_of_dof = b->tree_of_dof.p;
  const int32_t *tree_dofs = b->a[CTSMJ_TREE_DOFS].p;
  /* M blocks from the sparse lower triangle (rows i, columns j <= i of the same tree). */
  if (grow(&b->a[CTSMJ_M], mlen)) return fail(b, "out of memory for M", (long)mlen);
  double *M = b->a[CTSMJ_M].p;
  {
    size_t off = 0;
    for (size_t t = 0; t < ntree; ++t) {
      int f = tree_first[t], n = tree_dofs[t];
      memset(M + off, 0, sizeof(double) * n * n);
      for (int i = f; i < f + n; ++i)
        for (int k = m->M_rowadr[i]; k < m->M_rowadr[i] + m->M_rownnz[i]; ++k) {
          int j = m->M_colind[k];
          if (j < f) return fail(b, "M couples two trees at dof", i);
          M[off + (size_t)(i - f) * n + (j - f)] = d->M[k];
          M[off + (size_t)(j - f) * n + (i - f)] = d->M[k];
        }
      off += (size_t)n * n;
    }
  }
  /* p* and v0. */
  if (grow(&b->a[CTSMJ_P_STAR], (size_t)nv) || grow(&b->a[CTSMJ_V0], (size_t)nv) || grow(&b->mv, (size_t)nv) ||
      grow(&b->a[CTSMJ_TAU], (size_t)nv))
    return fail(b, "out of memory for nv", nv);
  mj_mulM(m, d, b->mv.p, d->qvel);
  {
    double dt = m->opt.timestep, *p = b->a[CTSMJ_P_STAR].p, *mv = b->mv.p;
    for (int i = 0; i < nv; ++i) p[i] = mv[i] + dt * d->qfrc_smooth[i];
    memcpy(b->a[CTSMJ_V0].p, d->qvel, sizeof(double) * nv);
    memcpy(b->a[CTSMJ_TAU].p, d->qfrc_smooth, sizeof(double) * nv);
  }
  /* Contacts: sizes grow to the worst case (every contact, two 6... n_t blocks) first. */
  int ncon = d->ncon, maxn = 0;
  for (size_t t = 0; t < ntree; ++t)
    if (tree_dofs[t] > maxn) maxn = tree_dofs[t];
  size_t cmax = (size_t)ncon;
  if (grow(&b->a[CTSMJ_CONTACT_TREES], 2 * cmax) || grow(&b->a[CTSMJ_J], 6 * (size_t)maxn * cmax) ||
      grow(&b->a[CTSMJ_FN0], cmax) || grow(&b->a[CTSMJ_STIFFNESS], cmax) || grow(&b->a[CTSMJ_DISSIPATION], cmax) ||
      grow(&b->a[CTSMJ_MU], cmax) || grow(&b->a[CTSMJ_PHI], cmax) || grow(&b->a[CTSMJ_MODELS], cmax) ||
      grow(&b->a[CTSMJ_IDS], cmax) || grow(&b->jrel, 6 * (size_t)maxn) ||
      ((flags & CTSMJ_MJ_JAC) && grow(&b->jac, 3 * (size_t)nv)))
    return fail(b, "out of memory for contacts", ncon);
  int32_t *ctrees = b->a[CTSMJ_CONTACT_TREES].p;
  double *J = b->a[CTSMJ_J].p, *jrel = b->jrel.p;
  size_t nc = 0, jlen = 0;
  uint64_t in_pair = 0; /* index of contact i among its geom pair's (MuJoCo lists a pair's together) */
  for (int i = 0; i < ncon; ++i) {
    const mjContact *con = d->contact + i;
    if (con->geom[0] < 0 || con->geom[1] < 0) return fail(b, "flex contact not supported, contact", i);
    in_pair = i > 0 && con[-1].geom[0] == con->geom[0] && con[-1].geom[1] == con->geom[1] ? in_pair + 1 : 0;
    /* block_step keeps touching contacts only; the interior point's loop every one found */
    if (!(flags & CTSMJ_ALL_CONTACTS) && !(con->dist < 0.0)) continue;
    int body[2] = {m->geom_bodyid[con->geom[0]], m->geom_bodyid[con->geom[1]]};
    /* Candidate trees (sorted, distinct): the trees of the bodies' chains (-1: no dofs). */
    int cand[2], ncand = 0, btree[2] = {-1, -1};
    for (int s = 0; s < 2; ++s) {
      int bb = body[s];
      while (bb > 0 && m->body_dofnum[bb] == 0) bb = m->body_parentid[bb];
      if (bb <= 0) continue;
      int t = btree[s] = tree_of_dof[m->body_dofadr[bb]];
      if (ncand == 1 && cand[0] == t) continue;
      cand[ncand++] = t;
    }
    if (ncand == 2 && cand[1] < cand[0]) {
      int t = cand[0];
      cand[0] = cand[1];
      cand[1] = t;
    }
    if (ncand == 0) continue; /* both sides static */
    /* jrel over the candidate trees' columns, tree by tree (each a contiguous column range). */
    int touched[2], nt = 0;
    for (int s = 0; s < ncand; ++s) {
      int t = cand[s], f = tree_first[t], n = tree_dofs[t];
      memset(jrel, 0, sizeof(double) * 3 * n);
      /* A body whose chain lies in another tree (or has no dofs) adds only ±0 to these columns,
       * which changes no value and leaves +0 at +0: skipping it gives the same bits. mj_jac is
       * called for every non-world body, as the Python bridge does. */
      int mjjac = flags & CTSMJ_MJ_JAC;
      if (body[1] != 0 && (mjjac || btree[1] == t)) add_jac(b, m, d, body[1], con->pos, 1.0, f, n, mjjac);
      if (body[0] != 0 && (mjjac || btree[0] == t)) add_jac(b, m, d, body[0], con->pos, -1.0, f, n, mjjac);
      /* Rows of the frame applied to jrel, written as the 3×n column-major block. */
      double *blk = J + jlen;
      const mjtNum *fr = con->frame;
      int nonzero = 0;
      for (int c = 0; c < n; ++c)
        for (int r = 0; r < 3; ++r) {
          double v = fr[3 * r] * jrel[c] + fr[3 * r + 1] * jrel[n + c];
          v = v + fr[3 * r + 2] * jrel[2 * n + c];
          blk[3 * c + r] = v;
          nonzero |= v != 0.0;
        }
      if (nonzero) {
        touched[nt++] = t;
        jlen += 3 * (size_t)n;
      }
    }
    if (nt == 0) continue;
    ctrees[2 * nc] = touched[0];
    ctrees[2 * nc + 1] = nt == 2 ? touched[1] : -1;
    double phi = con->dist;
    ARR(b, CTSMJ_PHI, double)[nc] = phi;
    ARR(b, CTSMJ_MU, double)[nc] = con->friction[0];
    ARR(b, CTSMJ_FN0, double)[nc] = stiffness * (0.0 > -phi ? 0.0 : -phi);
    ARR(b, CTSMJ_STIFFNESS, double)[nc] = stiffness;
    ARR(b, CTSMJ_DISSIPATION, double)[nc] = dissipation;
    ARR(b, CTSMJ_IDS, uint64_t)[nc] = ((uint64_t)con->geom[0] * 100003u + (uint64_t)con->geom[1]) * 64u + in_pair;
    ++nc;
  }
  b->a[CTSMJ_CONTACT_TREES].len = 2 * nc;
  b->a[CTSMJ_J].len = jlen;
  b->a[CTSMJ_FN0].len = b->a[CTSMJ_STIFFNESS].len = b->a[CTSMJ_DISSIPATION].len = nc;
  b->a[CTSMJ_MU].len = b->a[CTSMJ_PHI].len = b->a[CTSMJ_IDS].len = nc;
  b->a[CTSMJ_MODELS].len = 0; /* filled by ctsmj_ipm_step */
  return (long)nc;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The setters' view of the last extraction (the arrays stay the bridge's). */
static cts_block_sparse_data block_data(const ctsmj_bridge *b, size_t nc) {
  cts_block_sparse_data data = {
      .num_trees = b->a[CTSMJ_TREE_DOFS].len,
      .tree_dofs = b->a[CTSMJ_TREE_DOFS].p,
      .M_len = b->a[CTSMJ_M].len,
      .M = b->a[CTSMJ_M].p,
      .num_contacts = nc,
      .contact_trees = b->a[CTSMJ_CONTACT_TREES].p,
      .J_len = b->a[CTSMJ_J].len,
      .J = b->a[CTSMJ_J].p,
  };
  return data;
}

/* One TAMSI step: extract (flags as for ctsmj_extract), set two-way block data, solve from
 * v0 = qvel with time step dt; with CTSMJ_ADVANCE, MuJoCo is stepped with the next velocities.
 * seconds (may be NULL): extraction, set call, solve (CLOCK_MONOTONIC, the clock of Python's
 * perf_counter). Returns the cts_status of the set call when it fails, else the solve's (>= 0),
 * or -1 on a bridge error (ctsmj_error). */
int ctsmj_tamsi_step(ctsmj_bridge *b, cts_tamsi_solver *solver, const mjModel *m, mjData *d, double stiffness,
                     double dissipation, double dt, int flags, double *seconds) {
  double t0 = now();
  long nc = ctsmj_extract(b, m, d, stiffness, dissipation, flags);
  if (nc < 0) return -1;
  double t1 = now();
  cts_block_sparse_data data = block_data(b, (size_t)nc);
  cts_status st = cts_tamsi_solver_set_two_way_coupled_block_problem_data(
      solver, &data, b->a[CTSMJ_P_STAR].p, b->a[CTSMJ_FN0].p, b->a[CTSMJ_STIFFNESS].p, b->a[CTSMJ_DISSIPATION].p,
      b->a[CTSMJ_MU].p);
  double t2 = now();
  if (st != CTS_STATUS_OK) return st;
  st = cts_tamsi_solver_solve_with_guess(solver, dt, b->a[CTSMJ_V0].p, (size_t)m->nv);
  double t3 = now();
  if (seconds) {
    seconds[0] = t1 - t0;
    seconds[1] = t2 - t1;
    seconds[2] = t3 - t2;
  }
  if ((flags & CTSMJ_ADVANCE) && (st == CTS_STATUS_OK || st == CTS_STATUS_MAX_ITERATIONS_REACHED)) {
    cts_status g = cts_tamsi_solver_get_generalized_velocities(solver, d->qvel, (size_t)m->nv);
    if (g != CTS_STATUS_OK) return g;
    mj_integratePos(m, d->qpos, d->qvel, m->opt.timestep);
    d->time += m->opt.timestep;
  }
  return st;
}

/* One interior-point step (the loop of mujoco_pile.py's simulate_ipm): extract with every contact
 * MuJoCo found (flags | CTSMJ_ALL_CONTACTS; the caller sets the geoms' margin), set the block data
 * (v0 = qvel, tau = qfrc_smooth, h = opt.timestep, phi, mu, every contact of kind
 * `contact_model`), set the contact ids (warm start by contact id), solve; with CTSMJ_ADVANCE,
 * MuJoCo is stepped with the next velocities. seconds: extraction, set calls, solve. Returns the
 * status of the first failing set call, else the solve's, or -1 on a bridge error. */
int ctsmj_ipm_step(ctsmj_bridge *b, cts_ipm_solver *solver, const mjModel *m, mjData *d, int32_t contact_model,
                   int flags, double *seconds) {
  double t0 = now();
  long nc = ctsmj_extract(b, m, d, 0.0, 0.0, flags | CTSMJ_ALL_CONTACTS);
  if (nc < 0) return -1;
  if (grow(&b->a[CTSMJ_MODELS], (size_t)nc)) return fail(b, "out of memory for models", nc);
  for (long i = 0; i < nc; ++i) ARR(b, CTSMJ_MODELS, int32_t)[i] = contact_model;
  double t1 = now();
  cts_block_sparse_data data = block_data(b, (size_t)nc);
  cts_status st = cts_ipm_solver_set_block_problem_data(solver, &data, b->a[CTSMJ_V0].p, b->a[CTSMJ_TAU].p,
                                                        m->opt.timestep, b->a[CTSMJ_PHI].p, b->a[CTSMJ_MU].p,
                                                        b->a[CTSMJ_MODELS].p, NULL, 0);
  if (st == CTS_STATUS_OK) st = cts_ipm_solver_set_contact_ids(solver, b->a[CTSMJ_IDS].p, (size_t)nc);
  double t2 = now();
  if (st != CTS_STATUS_OK) return st;
  st = cts_ipm_solver_solve(solver);
  double t3 = now();
  if (seconds) {
    seconds[0] = t1 - t0;
    seconds[1] = t2 - t1;
    seconds[2] = t3 - t2;
  }
  if (flags & CTSMJ_ADVANCE) {
    cts_status g = cts_ipm_solver_get_generalized_velocities(solver, d->qvel, (size_t)m->nv);
    if (g != CTS_STATUS_OK) return st != CTS_STATUS_OK ? st : g;
    mj_integratePos(m, d->qpos, d->qvel, m->opt.timestep);
    d->time += m->opt.timestep;
  }
  return st;
}
