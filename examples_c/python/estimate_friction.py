"""Estimating the friction coefficient of a sliding box from a recorded trajectory by gradient
descent through TAMSI's sensitivities (docs/tamsi_sensitivities.md §7).

A 1 kg box (0.4 × 0.2 × 0.1 m) lies flat on the ground on four corner contacts (two-way coupling:
fn0 = k·φ from each corner's penetration φ, stiffness k, dissipation d) and is pushed sideways off
its centre, so it slides, decelerates and turns. One step of the simulation is one TAMSI solve::

    p*      = M v_k + dt·f_ext                       (gravity and the push)
    v_{k+1} = TAMSI(p*, fn0 = k·φ_k, μ)
    φ_{k+1} = φ_k − dt·Jn v_{k+1}                    (vn > 0 separates)

The "recording" is this simulation with the true μ plus measurement noise. The estimate minimises
L(μ) = Σ_k ‖v_k(μ) − v_k^rec‖² by gradient descent (Barzilai–Borwein steps). dL/dμ is
back-propagated through the steps with one vector–Jacobian product per step
(``TamsiSolver.vjp``): the product returns ∂L/∂p*, ∂L/∂fn0 and ∂L/∂μ at once, and the chain rule
carries ∂L/∂p* to v_k (p* = M v_k + ...) and ∂L/∂fn0 to φ_k (fn0 = k·φ_k).

Run ``python estimate_friction.py [--plot docs/tamsi_mu_estimation.png]``; the test suite calls
:func:`estimate` (``tests/test_tamsi_sensitivities.py``).
"""

import argparse

import numpy as np

import contact_solvers as cts

DT = 1e-3
MASS = 1.0
SIZE = (0.4, 0.2, 0.1)
GRAVITY = 9.81
STIFFNESS = 1e4  # N/m per corner
DISSIPATION = 5.0  # s/m
PUSH = np.array([1.5, 0.4, 0.0])  # N, applied at PUSH_POINT (body frame = world frame here)
PUSH_POINT = np.array([0.0, 0.08, 0.0])
MU_TRUE = 0.35


def box_model():
    """M (6×6; kg, kg·m²) and the corner Jacobians Jn (4×6), Jt (8×6) of the flat box, with
    v = (linear velocity of the centre, angular velocity), both in the world frame. A corner
    at r moves at v + ω × r, so the row of direction n is (n, r × n)."""
    a, b, c = (s / 2 for s in SIZE)
    inertia = MASS / 12 * np.array([SIZE[1] ** 2 + SIZE[2] ** 2, SIZE[0] ** 2 + SIZE[2] ** 2,
                                     SIZE[0] ** 2 + SIZE[1] ** 2])
    M = np.diag(np.concatenate([[MASS] * 3, inertia]))
    ex, ey, ez = np.eye(3)
    corners = [np.array([sx * a, sy * b, -c]) for sx in (-1, 1) for sy in (-1, 1)]
    Jn = np.array([np.concatenate([ez, np.cross(r, ez)]) for r in corners])
    Jt = np.array([np.concatenate([t, np.cross(r, t)]) for r in corners for t in (ex, ey)])
    f_ext = np.concatenate([PUSH + MASS * GRAVITY * -ez, np.cross(PUSH_POINT, PUSH)])
    return M, np.asfortranarray(Jn), np.asfortranarray(Jt), f_ext


class Simulation:
    """The box's trajectory for a given μ, and dL/dμ by back-propagation."""

    def __init__(self, steps: int, v0=(0.8, 0.0, 0.0, 0.0, 0.0, 0.5)):
        self.steps = steps
        self.M, self.Jn, self.Jt, self.f_ext = box_model()
        self.nc = self.Jn.shape[0]
        self.v0 = np.array(v0, dtype=float)
        self.phi0 = np.full(self.nc, MASS * GRAVITY / (self.nc * STIFFNESS))  # at rest: Σ fn0 = m·g
        self.k = np.full(self.nc, STIFFNESS)
        self.d = np.full(self.nc, DISSIPATION)
        self.solver = cts.TamsiSolver(6)
        # Tight tolerances: the trajectory is then a smooth function of μ to round-off.
        self.solver.set_solver_parameters(
            cts.TamsiSolverParameters(stiction_tolerance=1e-4, relative_tolerance=1e-6)
        )

    def _step(self, v, phi, mu, guess):
        """One solve from (v, φ) (the solver keeps this data for a product)."""
        p_star = self.M @ v + DT * self.f_ext
        fn0 = self.k * np.maximum(phi, 0.0)
        self.solver.set_two_way_coupled_problem_data(
            self.M, self.Jn, self.Jt, p_star, fn0, self.k, self.d, np.full(self.nc, mu), copy=True
        )
        result = self.solver.solve_with_guess(DT, guess)
        if result != cts.TamsiSolverResult.kSuccess:
            raise RuntimeError(f"TAMSI did not converge: {result!r}")
        return self.solver.get_generalized_velocities()

    def run(self, mu):
        """Velocities v_1..v_N (N×6) and penetrations φ_0..φ_N ((N+1)×4) for μ."""
        v, phi = self.v0.copy(), self.phi0.copy()
        vs, phis = [], [phi]
        for _ in range(self.steps):
            v = self._step(v, phi, mu, v)
            phi = phi - DT * (self.Jn @ v)
            vs.append(v)
            phis.append(phi)
        return np.array(vs), np.array(phis)

    def loss_and_gradient(self, mu, recorded):
        """L(μ) = Σ_k ‖v_k − v_k^rec‖² and dL/dμ (reverse pass: one solve warm-started at the
        recorded forward solution, which converges at once, and one product per step)."""
        vs, phis = self.run(mu)
        residual = vs - recorded
        loss = float(np.sum(residual ** 2))
        grad_mu = 0.0
        g_v = np.zeros(6)  # ∂L/∂v_{k+1} through the later steps
        g_phi = np.zeros(self.nc)  # ∂L/∂φ_{k+1}
        for k in range(self.steps - 1, -1, -1):
            v_prev = vs[k - 1] if k > 0 else self.v0
            self._step(v_prev, phis[k], mu, vs[k])
            # v_{k+1} enters L directly and through φ_{k+1} = φ_k − dt·Jn v_{k+1}.
            dl_dv = g_v + 2.0 * residual[k] - DT * (self.Jn.T @ g_phi)
            grad = self.solver.vjp(dl_dv)
            grad_mu += float(np.sum(grad.mu))  # the same μ at every corner
            g_v = self.M @ grad.p_star  # p* = M v_k + dt·f_ext (M symmetric)
            g_phi = g_phi + np.where(phis[k] > 0.0, self.k * grad.normal, 0.0)  # fn0 = k·φ_k
        return loss, grad_mu


def record(sim: Simulation, noise: float, seed: int = 1):
    """The trajectory with the true μ plus Gaussian measurement noise (m/s, rad/s)."""
    vs, _ = sim.run(MU_TRUE)
    return vs + noise * np.random.default_rng(seed).standard_normal(vs.shape)


def estimate(mu_start=0.7, steps=300, noise=1e-4, iterations=40, tolerance=1e-10):
    """Gradient descent on L(μ) with Barzilai–Borwein steps; returns (μ estimate, history of
    (μ, L, dL/dμ), simulation, recording)."""
    sim = Simulation(steps)
    recorded = record(sim, noise)
    mu, history = fit(sim, recorded, mu_start, iterations, tolerance)
    return mu, history, sim, recorded


def fit(sim: Simulation, recorded, mu_start=0.7, iterations=40, tolerance=1e-10):
    """The μ that fits ``recorded`` (steps×6 velocities) by gradient descent with
    Barzilai–Borwein steps; returns (μ estimate, history of (μ, L, dL/dμ))."""
    mu = mu_start
    loss, grad = sim.loss_and_gradient(mu, recorded)
    history = [(mu, loss, grad)]
    step = 1e-3 / max(abs(grad), 1e-300)  # a first step of 1e-3 in μ
    for _ in range(iterations):
        mu_next = max(mu - step * grad, 0.0)
        loss_next, grad_next = sim.loss_and_gradient(mu_next, recorded)
        history.append((mu_next, loss_next, grad_next))
        if abs(mu_next - mu) <= tolerance * max(1.0, abs(mu)):
            mu = mu_next
            break
        # Barzilai–Borwein: the secant of the gradient.
        denominator = grad_next - grad
        step = abs((mu_next - mu) / denominator) if denominator != 0.0 else step
        mu, grad = mu_next, grad_next
    return mu, history


def plot(path, history, sim, recorded):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = DT * np.arange(1, sim.steps + 1)
    fig, (ax_v, ax_mu) = plt.subplots(1, 2, figsize=(10, 3.8))
    start, _ = sim.run(history[0][0])
    fitted, _ = sim.run(history[-1][0])
    for i, (name, color) in enumerate([("$v_x$", "C0"), ("$v_y$", "C1")]):
        ax_v.plot(t, recorded[:, i], ".", ms=2, color=color, alpha=0.4, label=f"{name} recorded")
        ax_v.plot(t, fitted[:, i], "-", color=color, label=f"{name} fitted")
        ax_v.plot(t, start[:, i], ":", color=color, label=f"{name} at $\\mu_0$")
    ax_v.plot(t, recorded[:, 5], ".", ms=2, color="C2", alpha=0.4, label="$\\omega_z$ recorded")
    ax_v.plot(t, fitted[:, 5], "-", color="C2", label="$\\omega_z$ fitted")
    ax_v.set_xlabel("t (s)")
    ax_v.set_ylabel("m/s, rad/s")
    ax_v.legend(fontsize=7, ncol=2)
    ax_v.set_title("sliding box: recording and fit")
    mus = [h[0] for h in history]
    ax_mu.semilogy(range(len(mus)), [abs(m - MU_TRUE) / MU_TRUE + 1e-16 for m in mus], "o-")
    ax_mu.set_xlabel("gradient step")
    ax_mu.set_ylabel("|μ − μ_true| / μ_true")
    ax_mu.set_title(f"estimate {mus[-1]:.6f} (true {MU_TRUE})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plot", help="write the figure to this PNG file")
    args = parser.parse_args()
    mu, history, sim, recorded = estimate()
    for i, (m, loss, grad) in enumerate(history):
        print(f"step {i:2d}: mu = {m:.9f}  L = {loss:.6e}  dL/dmu = {grad:+.3e}")
    print(f"estimated mu = {mu:.6f}, true {MU_TRUE}, relative error {abs(mu - MU_TRUE) / MU_TRUE:.1e}")
    if args.plot:
        plot(args.plot, history, sim, recorded)


if __name__ == "__main__":
    main()
