#!/usr/bin/env python3
"""The critical path of a 2-thread TAMSI solve in instructions (docs/performance.md §8, "The 2-thread
critical path"): runs `profile_step tamsi <scene>` under callgrind with THREADS=2 and THREADS=1 and
prints the caller's sequential work, all chunks' work, each chunk's cost, and the model
critical path = caller's work + f x chunks' work + half the free trees' solve (f: the busier
thread's share of a run's chunks when two threads claim them in order).
Usage: callgrind_critical_path.py <profile_step binary> <scene> <chunks per run> [outdir]"""
import sys, glob, subprocess, re, os, tempfile
B, S, PARTS = sys.argv[1], sys.argv[2], sys.argv[3]
O = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp(prefix='critical_path.')
os.makedirs(f'{O}/chunks', exist_ok=True)
CHUNK = 'contact_solvers::block_sparse::newton::BlockNewtonMatrix::run_chunks::{{closure}}'
def grind(threads, out, reps, *opts):
    env = {**os.environ, 'THREADS': str(threads)}
    subprocess.run(['valgrind', '--tool=callgrind', *opts, f'--callgrind-out-file={out}', B, 'tamsi', S, str(reps)],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
for R in (2, 4):
    grind(2, f'{O}/tot{R}.%p', R, '--separate-threads=yes')
grind(2, f'{O}/chunks/cg', 1, '--separate-threads=yes', '--collect-atstart=no', f'--toggle-collect={CHUNK}',
      '--dump-before=*run_chunks::{{closure}}*')
grind(1, f'{O}/one.%p', 2)
grind(1, f'{O}/one4.%p', 4)
sys.argv = [sys.argv[0], O, PARTS]
def incl(f):
    out = subprocess.run(['callgrind_annotate', '--inclusive=yes', '--threshold=100', f], capture_output=True, text=True).stdout
    d = {}
    tot = 0
    for l in out.splitlines():
        m = re.match(r'\s*([\d,]+) \([^)]*\)\s+(.*)', l)
        if not m: continue
        n = int(m.group(1).replace(',', '')); name = m.group(2)
        if 'PROGRAM TOTALS' in name: tot = n; continue
        fn = name.split(':', 1)[1] if ':' in name else name
        fn = re.sub(r' \[.*\]$', '', fn)
        d[fn] = max(d.get(fn, 0), n)
    return tot, d
def get(d, pat):
    return max([v for k, v in d.items() if re.search(pat, k)] or [0])
res = {}
for R in (2, 4):
    for t in ('01', '02'):
        f = glob.glob(f'{O}/tot{R}.*-{t}')[0]
        tot, d = incl(f)
        res[R, t] = dict(tot=tot, chunks=get(d, r'run_chunks::\{\{closure\}\}$'), run=get(d, r'WorkerPool::run$'),
                         free=get(d, r'Form>::start::\{\{closure\}\}$'),
                         solve=get(d, r'TamsiSolver::solve_with_guess$'), prepare=get(d, r'Form>::prepare$'))
per = {t: {k: (res[4, t][k] - res[2, t][k]) / 2 for k in res[4, t]} for t in ('01', '02')}
one = [incl(glob.glob(f'{O}/{n}.*')[0])[1] for n in ('one', 'one4')]
one_solve = (get(one[1], r'TamsiSolver::solve_with_guess$') - get(one[0], r'TamsiSolver::solve_with_guess$')) / 2
c, w = per['01'], per['02']
chunks = c['chunks'] + w['chunks']
free = c['free'] + w['free']  # the free trees' solve at the start, when it runs on the pool
caller_seq = c['solve'] - c['chunks'] - (c['run'] - c['chunks'])
pool_overhead = c['run'] - c['chunks'] - c['free']
# chunk costs: with --separate-threads=yes each dump (at a chunk's entry) holds the triggering
# thread's cost since its previous dump, i.e. its previous chunk (collection only inside chunks)
import collections
dumps = collections.defaultdict(list)  # thread -> [(part, summary)]
final = {}
for f in glob.glob(f'{O}/chunks/cg*'):
    m = re.search(r'cg(?:\.(\d+))?-(\d+)$', f)
    if not m: continue
    val = next(int(l.split()[1]) for l in open(f) if l.startswith('summary:'))
    if m.group(1) is None: final[m.group(2)] = val
    else: dumps[m.group(2)].append((int(m.group(1)), val))
entries = []
for t, ds in dumps.items():
    ds.sort()
    for j, (n, _) in enumerate(ds):
        cost = ds[j + 1][1] if j + 1 < len(ds) else final.get(t, 0)
        entries.append((n, cost, t))
entries.sort()
vals = [c for n, c, t in entries]
print(f'1-thread solve: {one_solve/1e3:.1f} k instr')
print(f'2-thread: caller solve (incl. chunks it ran) {c["solve"]/1e3:.1f} k; all chunks {chunks/1e3:.1f} k '
      f'(caller ran {c["chunks"]/1e3:.1f}, worker {w["chunks"]/1e3:.1f}); pool run outside chunks (spin+hand-off, valgrind-serialized) {pool_overhead/1e3:.1f} k')
print(f'caller sequential (solve - chunks - pool): {caller_seq/1e3:.1f} k = {100*caller_seq/one_solve:.1f} % of 1 thread; prepare {c["prepare"]/1e3:.1f} k')
print(f'chunk work total / 1-thread solve: {chunks/one_solve:.3f}')

parts = int(sys.argv[2]) if len(sys.argv) > 2 else 4
import statistics
runs = [vals[i:i + parts] for i in range(0, len(vals) - parts + 1, parts)]
# the second solve's iterations (the first grows the workspace); median per chunk position
half = runs[len(runs) // 2:]
med = [statistics.median(r[p] for r in half) for p in range(parts)]
def greedy(costs, threads=2):
    t = [0.0] * threads; own = [0.0] * threads
    for c in costs:
        k = min(range(threads), key=lambda j: t[j]); t[k] += c; own[k] += c
    return max(t), own
mk, own = greedy(med)
f = mk / sum(med)
crit = caller_seq + f * chunks + 0.5 * free
print(f'free trees on the pool (both threads): {free/1e3:.1f} k (counted at half)')
print(f'median chunk costs per run (k): {[round(x/1e3,1) for x in med]}; greedy 2-thread makespan {mk/1e3:.1f} k of {sum(med)/1e3:.1f} k (ideal half {sum(med)/2e3:.1f} k): factor {f:.3f} (0.5 ideal)')
print(f'MODEL: critical path = caller seq {caller_seq/1e3:.0f} k + {f:.3f} x chunks {chunks/1e3:.0f} k + free/2 {free/2e3:.0f} k = {crit/1e3:.0f} k; 1 thread {one_solve/1e3:.0f} k; model speed-up {one_solve/crit:.2f}x')
