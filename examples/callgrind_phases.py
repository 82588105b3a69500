#!/usr/bin/env python3
"""Phase split of a callgrind profile (--dump-instr=yes --compress-pos=no --compress-strings=no).
Each instruction's self cost goes to the phase named by its inline stack (addr2line -i, innermost
frame first, first frame matching a rule); a function whose instructions match no rule inherits its
callers' phases in proportion to the inclusive cost of each call edge (gprof style).
Usage: callgrind_phases.py callgrind.out binary [--ipm] [iterations]
--ipm: the interior point's engine iteration's phases (docs/performance.md §3, "The interior point's
phases"); iterations: also print thousands of instructions per iteration (all solves' iterations)."""
import sys, re, subprocess, collections, os
IPM = '--ipm' in sys.argv
args = [a for a in sys.argv[1:] if a != '--ipm']
out, binary = args[0], args[1]
ITERATIONS = int(args[2]) if len(args) > 2 else 0
selfc = collections.defaultdict(collections.Counter)  # fn -> addr -> Ir
edges = collections.defaultdict(list)  # callee -> [(caller, addr, incl)]
fn = None; cfn = None; pending_call = False; in_main = True
for raw in open(out, errors='replace'):
    if raw.startswith('ob='): in_main = os.path.basename(binary) in raw; continue
    if raw.startswith('fn='): fn = raw[3:].strip(); continue
    if raw.startswith('cfn='): cfn = raw[4:].strip(); continue
    if raw.startswith('calls='): pending_call = True; continue
    if raw.startswith('0x'):
        p = raw.split()
        if len(p) < 3: continue
        a, c = int(p[0], 16), int(p[2])
        if pending_call:
            edges[cfn].append((fn, a, c, in_main)); pending_call = False
        else:
            selfc[fn][(a, in_main)] += c
addrs = sorted({a for f in selfc for (a, m) in selfc[f] if m} | {a for e in edges.values() for (_, a, _, m) in e if m})
res = subprocess.run(['addr2line', '-i', '-f', '-C', '-a', '-e', binary], input='\n'.join(hex(a) for a in addrs) + '\n',
                     capture_output=True, text=True).stdout.splitlines()
stacks = {}; cur = None; i = 0
while i < len(res):
    l = res[i]
    if l.startswith('0x'): cur = int(l, 16); stacks[cur] = []; i += 1; continue
    stacks[cur].append((l, res[i + 1] if i + 1 < len(res) else '?')); i += 2
RULES = [
    ('setter', ['::ffi::', 'BlockSparseSystem::new', 'set_indices', 'set_from', 'first_non_finite', 'validate', 'two_way_blocks', 'TamsiProblem']),
    ('limiter / line search', ['calc_alpha', 'smallest_positive_root', 'limiter', 'line_search', 'step_length', 'max_step', 'neighbourhood']),
    ('solves', ['solve_small', 'solve_kernel', 'back_substitute', 'axpy_rows', 'solve_in_place', 'solve_transposed', 'solve_condensed', 'triangular_solve', 'Solve>', 'solve_local', 'back_substitut', 'numeric::Solve', 'solve_island']),
    ('factorization', ['linalg::lu', 'block_sparse::numeric', 'linalg::ldlt', 'BlockSparseLu::factor', 'BlockSparseLdlt::factor', 'faer::linalg::lu', 'BlockDiagLu', 'block_lu', 'Ldlt::factor', 'PartialPivLu::factor', 'factor_closed_form', 'tangent_elimination', 'factor_condensed', 'numeric::Factor', 'factor_lu_supernode', 'factor_ldlt_supernode', 'lu_unblocked']),
    ('assembly', ['assemble_island', 'add_block', 'coefficients', 'block_weight', 'gradient_block', 'assemble', 'write_local', 'DenseTarget', 'block_slice_mut']),
    ('residuals', ['negative_residual', 'generalized_forces', 'add_split_force', 'mul_m', 'mul_mass', 'residual', 'add_mass_product', 'sub_contact_impulse', 'add_force', 'build_rhs', 'rhs']),
    ('velocities + friction', ['contact_velocities', 'contact_velocity', 'ContactRows::velocity', 'ContactFriction', 'normal_force', 'evaluate']),
    ('cone algebra', ['ipm::cone', 'nesterov', 'nt_scaling', 'cone::', 'duality', 'central']),
    ('island bookkeeping / per-solve setup', ['prepare', 'partition', 'analyze', 'islands::', 'Islands', 'start', 'solve_free_trees', 'symbolic', 'reserve', 'try_grow', 'scales']),
    ('results', ['store_results']),
    ('iteration loop (norms, steps)', ['tamsi::solver::newton', 'ipm::solver', 'engine::']),
]
# The interior point's engine iteration (src/ipm): innermost matching frame first, so that a
# phase's own kernels (J v, the cone algebra) count for the phase that calls them.
IPM_RULES = [
    ('condensed assembly + factorization', ['assemble', 'factor_lu_supernode', 'lu_unblocked', 'BlockSparseLu', 'numeric::Factor', 'factor_island', 'factor_condensed', 'PartialPivLu::factor', 'faer::linalg::lu', 'lu::', 'add_block', 'write_local']),
    ('island solves', ['forward_supernode', 'backward_supernode', 'solve_in_place_on', 'solve_fixed', 'BlockDiagLu', 'triangular_solve', 'Solve>', 'numeric::Solve', 'solve_island', 'solve_small']),
    ('closed-form elimination', ['factor_closed_form', 'eliminate', 'tangent_elimination']),
    ('NT right-hand sides', ['nt_complementarity_rhs', 'nt_pair_rhs', 'build_rhs']),
    ('closed-form solve passes (fold, J v, step)', ['solve_closed_form_body', 'closed_form_fold', 'closed_form_step', 'solve_split']),
    ('residual', ['residual_at', 'residual_contact', 'equality_residual', 'candidate_residual']),
    ('cone step search', ['cone_search', 'soc_contact_steps', 'soc_step']),
    ('NT scaling + neighbourhood', ['nesterov_todd', 'in_neighbourhood', 'pair_scaling', 'nt_scaling']),
    ('start (scales, central start)', ['scales', 'central_start', 'setup', 'prepare', 'BlockForm::new', 'start', 'solve_mass_in_place', 'validate']),
    ('loop (duality, candidate, commit)', ['duality', 'commit_candidate', 'iterate_engine', 'natural_map']),
]
if IPM:
    RULES = IPM_RULES
def phase_of_addr(a):
    for f, loc in stacks.get(a, []):
        for ph, keys in RULES:
            if any(k in f for k in keys): return ph
    return None
memo = {}
def dist(f, depth=0):
    if f in memo: return memo[f]
    if 'measured' in f or depth > 60: return {'other': 1.0}
    memo[f] = {'other': 1.0}  # recursion guard
    acc = collections.Counter()
    for (g, a, c, m) in edges.get(f, []):
        p = phase_of_addr(a) if m else None
        if p: acc[p] += c
        else:
            for k, v in dist(g, depth + 1).items(): acc[k] += c * v
    tot = sum(acc.values())
    d = {k: v / tot for k, v in acc.items()} if tot else {'other': 1.0}
    memo[f] = d
    return d
phase = collections.Counter()
for f, ac in selfc.items():
    for (a, m), c in ac.items():
        p = phase_of_addr(a) if m else None
        if p: phase[p] += c
        else:
            for k, v in dist(f).items(): phase[k] += c * v
total = sum(phase.values())
print(f"total Ir {total:,.0f}" + (f"  per iteration {total/ITERATIONS/1000:.1f}k" if ITERATIONS else ""))
for k, v in phase.most_common():
    per_it = f"  {v/ITERATIONS/1000:9.1f}k/it" if ITERATIONS else ""
    print(f"{100*v/total:6.1f}%  {v:14,.0f}{per_it}  {k}")
