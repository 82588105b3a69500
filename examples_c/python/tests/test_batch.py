"""Many worlds in one call from Python (``TamsiSolver.solve_batch``, ``IpmSolver.solve_batch``;
``docs/c_api.md`` §1.10): the results equal a loop of single solves bit for bit for 0, 1, 2 and 4
threads; failing worlds (NaN guess, no data, a solver listed twice, None) are per-world errors
that leave the others exact; lengths that do not match raise before the call."""

import numpy as np
import pytest

import contact_solvers as cts

S = cts.Status


def world(seed, nv=None, nc=None):
    """A random two-way TAMSI / interior-point world: SPD M, random Jn, Jt, pressed contacts."""
    rng = np.random.default_rng(seed)
    nv = nv or int(rng.integers(6, 25))
    nc = nc or int(rng.integers(2, 9))
    a = rng.uniform(-0.5, 0.5, (nv, nv))
    M = np.asfortranarray(a @ a.T + np.eye(nv))
    Jn = np.asfortranarray(rng.uniform(-1, 1, (nc, nv)))
    Jt = np.asfortranarray(rng.uniform(-1, 1, (2 * nc, nv)))
    return dict(
        M=M, Jn=Jn, Jt=Jt, v0=rng.uniform(-0.05, 0.05, nv), p_star=rng.uniform(-0.1, 0.1, nv),
        fn0=rng.uniform(1, 20, nc), k=rng.uniform(1e3, 1e5, nc), d=rng.uniform(0, 5, nc),
        mu=rng.uniform(0.2, 0.9, nc), tau=-9.81 * np.ones(nv), phi=1e-3 * (np.arange(nc) % 3 - 1.0),
        dt=1e-3 * (1 + seed % 3),
    )


def tamsi(lib, w):
    s = cts.TamsiSolver(w["M"].shape[0], library=lib)
    s.set_two_way_coupled_problem_data(w["M"], w["Jn"], w["Jt"], w["p_star"], w["fn0"], w["k"],
                                       w["d"], w["mu"])
    return s


def tamsi_results(s):
    st = s.get_iteration_statistics()
    return (s.get_generalized_velocities().tobytes(), s.get_normal_forces().tobytes(),
            s.get_friction_forces().tobytes(), st.num_iterations, st.residuals.tobytes())


def ipm(lib, w):
    s = cts.IpmSolver(library=lib)
    nc = w["mu"].shape[0]
    s.set_problem_data(w["M"], w["Jn"], w["Jt"], w["v0"], w["tau"], w["dt"], w["phi"], w["mu"],
                       [cts.IpmContactModel.kSecondOrderCone] * nc)
    return s


def ipm_results(s):
    return (s.get_generalized_velocities().tobytes(), s.get_impulses().tobytes(),
            s.get_stats().iterations)


@pytest.mark.parametrize("threads", [0, 1, 2, 4])
def test_tamsi_batch_equals_the_loop_bit_for_bit(lib, threads):
    worlds = [world(i) for i in range(10)]
    loop = [tamsi(lib, w) for w in worlds]
    want = [s.solve_with_guess(w["dt"], w["v0"]) for s, w in zip(loop, worlds)]
    batch = [tamsi(lib, w) for w in worlds]
    got = cts.TamsiSolver.solve_batch(batch, [w["dt"] for w in worlds], [w["v0"] for w in worlds],
                                      num_threads=threads)
    assert got == want
    assert all(r is cts.TamsiSolverResult.kSuccess for r in got)
    for a, b in zip(loop, batch):
        assert tamsi_results(a) == tamsi_results(b)


def test_tamsi_batch_with_a_2d_guess_array(lib):
    worlds = [world(i, nv=12, nc=4) for i in range(6)]
    guesses = np.array([w["v0"] for w in worlds])
    loop, batch = [tamsi(lib, w) for w in worlds], [tamsi(lib, w) for w in worlds]
    for s, w in zip(loop, worlds):
        s.solve_with_guess(0.002, w["v0"])
    cts.TamsiSolver.solve_batch(batch, np.full(6, 0.002), guesses, num_threads=2)
    assert [tamsi_results(s) for s in loop] == [tamsi_results(s) for s in batch]


def test_tamsi_failing_worlds_are_per_world_errors(lib):
    worlds = [world(i) for i in range(6)]
    batch = [tamsi(lib, w) for w in worlds]
    reference = tamsi(lib, worlds[5])
    reference.solve_with_guess(worlds[5]["dt"], worlds[5]["v0"])
    guesses = [w["v0"].copy() for w in worlds]
    guesses[1][0] = np.nan
    no_data = cts.TamsiSolver(4, library=lib)
    solvers = [batch[0], batch[1], batch[2], None, no_data, batch[2], batch[5]]
    dts = [w["dt"] for w in worlds] + [worlds[5]["dt"]]
    gs = guesses[:3] + [np.zeros(4), np.zeros(4), guesses[2], guesses[5]]
    got = cts.TamsiSolver.solve_batch(solvers, dts, gs, num_threads=2)
    assert got[0] is cts.TamsiSolverResult.kSuccess and got[6] is cts.TamsiSolverResult.kSuccess
    statuses = [g.status for g in got[1:6]]
    assert statuses == [S.INVALID_ARGUMENT, S.INVALID_ARGUMENT, S.NULL_POINTER,
                        S.NO_PROBLEM_DATA, S.INVALID_ARGUMENT]
    assert "v_guess" in got[1].message
    assert "appears 2 times" in got[2].message
    assert tamsi_results(batch[5]) == tamsi_results(reference)


def test_tamsi_batch_lengths_must_match(lib):
    worlds = [world(i) for i in range(3)]
    batch = [tamsi(lib, w) for w in worlds]
    with pytest.raises(cts.ContactSolversError) as e:
        cts.TamsiSolver.solve_batch(batch, [1e-3] * 3, [w["v0"] for w in worlds[:2]])
    assert e.value.status == S.DIMENSION_MISMATCH
    with pytest.raises(cts.ContactSolversError) as e:
        cts.TamsiSolver.solve_batch(batch, [1e-3] * 2, [w["v0"] for w in worlds])
    assert e.value.status == S.DIMENSION_MISMATCH
    with pytest.raises(TypeError):
        cts.TamsiSolver.solve_batch([batch[0], ipm(lib, worlds[0])], [1e-3] * 2, [None, None])
    assert cts.TamsiSolver.solve_batch([], [], []) == []


@pytest.mark.parametrize("threads", [0, 2, 4])
def test_ipm_batch_equals_the_loop_bit_for_bit(lib, threads):
    worlds = [world(i) for i in range(8)]
    loop = [ipm(lib, w) for w in worlds]
    guesses = [None if i % 3 == 0 else w["v0"] + 0.01 for i, w in enumerate(worlds)]
    want = [s.solve() if g is None else s.solve_with_guess(g) for s, g in zip(loop, guesses)]
    batch = [ipm(lib, w) for w in worlds]
    got = cts.IpmSolver.solve_batch(batch, num_threads=threads, v_guesses=guesses)
    assert got == want
    assert sum(r is cts.IpmOutcome.kConverged for r in got) >= 6, got
    for a, b in zip(loop, batch):
        assert ipm_results(a) == ipm_results(b)
    # Without guesses: every world from its v0.
    batch = [ipm(lib, w) for w in worlds]
    assert cts.IpmSolver.solve_batch(batch, num_threads=threads) == [s.solve() for s in loop]


def test_ipm_failing_worlds_are_per_world_errors(lib):
    worlds = [world(i) for i in range(3)]
    batch = [ipm(lib, w) for w in worlds]
    got = cts.IpmSolver.solve_batch([batch[0], cts.IpmSolver(library=lib), batch[2], batch[0]], 2)
    assert [g.status for g in (got[0], got[1], got[3])] == [S.INVALID_ARGUMENT, S.NO_PROBLEM_DATA,
                                                           S.INVALID_ARGUMENT]
    assert got[2] is cts.IpmOutcome.kConverged
