#!/usr/bin/env python3
"""Plots the runs of examples_c/point_mass_methods.c: position, velocity and ground force of the
point mass dropped from 1 m, simulated three ways (hybrid, smooth, time-stepping), over the whole
second and around the impact, and the 5-s hybrid runs with and without a rest threshold.

Usage:
    plot_methods.py INPUT OUTPUT.png

INPUT is the example's printout (a file, or - for standard input). The command documented in
docs/blog_methods.md §8:

    target/examples_c/point_mass_methods | \\
        target/python-venv/bin/python examples_c/plot_methods.py - docs/point_mass_methods.png

Needs numpy and matplotlib (`.ci/install-deps tests` puts both into target/python-venv).
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# (run name, legend label, colour, line style, line width)
METHODS = [
    ("hybrid_e0.7", "hybrid e = 0.7 (rigid impact solver)", "tab:blue", "-", 1.6),
    ("hybrid_e0", "hybrid e = 0", "tab:cyan", "--", 1.3),
    ("smooth_tanh", "smooth: post's tanh penalty", "tab:orange", "-", 1.6),
    ("smooth_tamsi", "smooth: TAMSI two-way, k = 1e6 N/m, d = 2 s/m", "tab:red", "-", 1.3),
    ("timestepping_lemke", "time-stepping: LCP by Lemke", "tab:green", "-", 2.4),
    ("timestepping_ipm", "time-stepping: interior point, btol = 1e-8", "black", ":", 1.6),
    ("timestepping_ipm_btol1e-4", "time-stepping: interior point, btol = 1e-4", "tab:purple", "-.", 1.2),
]
# Drawn in this order: the runs coincide until the threshold acts at 2.642 s.
LONG = [
    ("hybrid_e0.7_rest_long", "hybrid e = 0.7, plastic below |v-| = 10 g dt", "tab:green", "-", 2.4),
    ("hybrid_e0.7_long", "hybrid e = 0.7, no rest threshold", "tab:blue", "-", 1.0),
]


def parse(text):
    """{run name: array of rows (k, t, z, v, F)} from the example's printout."""
    runs, name, rows = {}, None, None
    for line in text.splitlines():
        if line.startswith("run: "):
            name, rows = line[5:].split(" ", 1)[0], []
            runs[name] = rows
        elif line.startswith("summary: "):
            name = None
        elif name is not None and line and line[0].isdigit():
            rows.append([float(x) for x in line.split(",")])
    return {n: np.array(r) for n, r in runs.items() if r}


def plot(runs, output):
    missing = [n for n, *_ in METHODS + LONG if n not in runs]
    if missing:
        raise SystemExit(f"plot_methods.py: no CSV rows for {', '.join(missing)} (run without --summary)")
    fig, axes = plt.subplots(4, 2, figsize=(14, 15), gridspec_kw={"width_ratios": [1.35, 1]})
    zoom = (0.440, 0.470)
    for col, (t0, t1) in enumerate([(0.0, 1.0), zoom]):
        for name, label, colour, style, width in METHODS:
            d = runs[name]
            sel = (d[:, 1] >= t0 - 1e-9) & (d[:, 1] <= t1 + 1e-9)
            t, z, v, f = (d[sel, i] for i in (1, 2, 3, 4))
            kw = dict(color=colour, ls=style, lw=width, label=label)
            if col == 1:
                kw["marker"] = "."
                kw["ms"] = 4
            # The hybrid force is an impulse over one step: draw it as steps, like the others.
            axes[0, col].plot(t, z * (1 if col == 0 else 1e3), **kw)
            axes[1, col].plot(t, v, **kw)
            axes[2, col].step(t, f, where="post", **kw)
        axes[0, col].set_ylabel("z [m]" if col == 0 else "z [mm]")
        axes[1, col].set_ylabel("v [m/s]")
        axes[2, col].set_ylabel("ground force F [N] (symlog)")
        axes[2, col].set_yscale("symlog", linthresh=10.0)
        axes[2, col].set_ylim(-1.0, 2e5)
        axes[2, col].axhline(98.1, color="grey", lw=0.8, ls="--")
        axes[2, col].text(t0 + 0.02 * (t1 - t0), 115, "m g = 98.1 N", color="grey", fontsize=8)
        for r in range(3):
            axes[r, col].set_xlim(t0, t1)
            axes[r, col].grid(True, alpha=0.3)
            axes[r, col].set_xlabel("t [s]")
    axes[0, 0].set_title("a point mass dropped from 1 m (m = 10 kg, dt = 1 ms): the whole run")
    axes[0, 1].set_title(f"around the impact, {zoom[0]:.2f}-{zoom[1]:.2f} s (one dot per step)")
    axes[0, 1].set_ylim(-8, 20)
    axes[0, 1].axhline(0.0, color="grey", lw=0.8)
    axes[0, 0].legend(loc="upper right", fontsize=8.5)

    for col, (t0, t1) in enumerate([(0.0, 5.0), (2.3, 3.3)]):
        ax = axes[3, col]
        for name, label, colour, style, width in LONG:
            d = runs[name]
            sel = (d[:, 1] >= t0) & (d[:, 1] <= t1)
            scale = 1 if col == 0 else 1e3
            ax.plot(d[sel, 1], d[sel, 2] * scale, color=colour, ls=style, lw=width, label=label)
        ax.set_xlim(t0, t1)
        ax.set_xlabel("t [s]")
        ax.set_ylabel("z [m]" if col == 0 else "z [mm]")
        ax.grid(True, alpha=0.3)
    axes[3, 0].set_title("hybrid e = 0.7 for 5 s: restitution alone never comes to rest")
    axes[3, 1].set_title("2.3-3.3 s: micro-bounces vs at rest from 2.64 s")
    axes[3, 1].set_ylim(-0.05, 1.0)
    axes[3, 0].legend(loc="upper right", fontsize=8.5)
    fig.tight_layout()
    fig.savefig(output, dpi=90)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    if argv[1] == "-":
        text = sys.stdin.read()
    else:
        with open(argv[1], encoding="utf-8") as f:
            text = f.read()
    plot(parse(text), argv[2])


if __name__ == "__main__":
    main(sys.argv)
