#!/usr/bin/env python3
"""Harness-only experiment (docs/performance.md §8, "The 2-thread critical path"): run a 2-thread TAMSI solve loop and sample,
every ~0.5 ms, the CPU each of its threads last ran on (/proc/<pid>/task/<tid>/stat field 39) and
whether it is running (state R); at the end the threads' run-queue wait (schedstat) and the
per-CPU steal time of the VM (/proc/stat). Usage: thread_cpus.py <profile_step binary> <scene> <repetitions>"""
import subprocess, sys, os, time, collections
binary, scene, reps = sys.argv[1], sys.argv[2], sys.argv[3]
def steal():
    out = {}
    for l in open('/proc/stat'):
        if l.startswith('cpu') and l[3].isdigit():
            f = l.split(); out[f[0]] = (int(f[8]), sum(int(x) for x in f[1:9]))
    return out
s0 = steal(); t0 = time.time()
p = subprocess.Popen([binary, 'tamsi', scene, reps], env={**os.environ, 'THREADS': '2'}, stdout=subprocess.PIPE)
samples = collections.Counter(); n = 0; wait = {}
while p.poll() is None:
    try:
        tids = sorted(int(t) for t in os.listdir(f'/proc/{p.pid}/task'))
        if len(tids) >= 2:
            st = []
            for t in tids[:2]:
                f = open(f'/proc/{p.pid}/task/{t}/stat').read().rsplit(')', 1)[1].split()
                st.append((f[0], int(f[36])))  # state, processor (fields 3 and 39)
                wait[t] = open(f'/proc/{p.pid}/task/{t}/schedstat').read().split()
            both_r = st[0][0] == 'R' and st[1][0] == 'R'
            samples[('same cpu' if st[0][1] == st[1][1] else 'two cpus', 'both R' if both_r else 'not both R')] += 1
            n += 1
    except (FileNotFoundError, ProcessLookupError, IndexError):
        pass
    time.sleep(0.0005)
out = p.stdout.read().decode()
s1 = steal(); dt = time.time() - t0
print(out.strip())
print(f'{n} samples over {dt:.1f} s:', {f'{a}, {b}': f'{100*c/max(n,1):.1f} %' for (a, b), c in sorted(samples.items())})
for t, w in wait.items():
    print(f'thread {t}: on cpu {int(w[0])/1e6:.0f} ms, waiting on a run queue {int(w[1])/1e6:.0f} ms')
for c in s0:
    d_steal = s1[c][0] - s0[c][0]; d_tot = s1[c][1] - s0[c][1]
    print(f'{c}: steal {100*d_steal/max(d_tot,1):.1f} % of its time')
