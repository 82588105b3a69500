"""Block-sparse TAMSI from Python (``set_one_way/two_way_coupled_block_problem_data``): the same
problems given densely and in blocks take the same iterations and agree to 1e-9; packed and
list-of-blocks inputs give the same bits; contiguous int32/float64 arrays are borrowed without a
copy; bad structures and values raise with the library's status and message."""

import numpy as np
import pytest

import contact_solvers as cts

S = cts.Status
DT = 1e-3


def block_problem(seed, ntree=7, nc=12):
    """Random trees of 1-7 dofs (SPD blocks), contacts on one tree or two (the last tree has
    none), bodies pressed together and sliding; the packed arrays and the dense twins."""
    rng = np.random.default_rng(seed)
    dofs = rng.integers(1, 8, size=ntree).astype(np.int32)
    first = np.concatenate([[0], np.cumsum(dofs)])
    nv = int(first[-1])
    trees = []
    for _ in range(nc):
        a, b = rng.integers(0, ntree - 1, size=2)
        trees.append((int(a), int(b) if b != a and rng.random() < 0.6 else -1))
        if rng.random() < 0.3:
            trees[-1] = trees[-1][::-1]  # a static first side
    contact_trees = np.array(trees, dtype=np.int32)
    M_list = []
    for n in dofs:
        a = rng.uniform(-0.5, 0.5, size=(n, n))
        M_list.append(a @ a.T + np.eye(n) * rng.uniform(0.5, 2.0))
    J_list = [rng.uniform(-1, 1, size=(3, dofs[t])) for a, b in trees for t in (a, b) if t >= 0]
    M = np.zeros((nv, nv), order="F")
    for t, m in enumerate(M_list):
        M[first[t]:first[t + 1], first[t]:first[t + 1]] = m
    J = np.zeros((3 * nc, nv))
    k = 0
    for i, (a, b) in enumerate(trees):
        for t in (a, b):
            if t >= 0:
                J[3 * i:3 * i + 3, first[t]:first[t + 1]] = J_list[k]
                k += 1
    v0 = rng.uniform(-0.05, 0.05, size=nv)
    return dict(
        tree_dofs=dofs,
        M_list=M_list,
        M_packed=np.concatenate([m.ravel(order="F") for m in M_list]),
        contact_trees=contact_trees,
        J_list=J_list,
        J_packed=np.concatenate([j.ravel(order="F") for j in J_list]),
        M=M,
        Jn=np.asfortranarray(J[0::3]),
        Jt=np.asfortranarray(np.stack([J[1::3], J[2::3]], axis=1).reshape(2 * nc, nv)),
        v0=v0,
        p_star=M @ v0 + DT * rng.uniform(-10, 10, size=nv),
        fn0=rng.uniform(1, 20, size=nc),
        stiffness=rng.uniform(1e3, 1e5, size=nc),
        dissipation=rng.uniform(0, 5, size=nc),
        mu=rng.uniform(0.2, 0.9, size=nc),
        nv=nv,
        nc=nc,
    )


def two_way_per_contact(p):
    return p["fn0"], p["stiffness"], p["dissipation"], p["mu"]


def results(solver):
    return {
        "v": solver.get_generalized_velocities(),
        "vn": solver.get_normal_velocities(),
        "vt": solver.get_tangential_velocities(),
        "fn": solver.get_normal_forces(),
        "ft": solver.get_friction_forces(),
        "tau": solver.get_generalized_contact_forces(),
    }


def solve(lib, p, form, scheme):
    with cts.TamsiSolver(p["nv"], library=lib) as s:
        if form == "dense" and scheme == 2:
            s.set_two_way_coupled_problem_data(p["M"], p["Jn"], p["Jt"], p["p_star"],
                                               *two_way_per_contact(p))
        elif form == "dense":
            s.set_one_way_coupled_problem_data(p["M"], p["Jn"], p["Jt"], p["p_star"], p["fn0"],
                                               p["mu"])
        else:
            m, j = (p["M_packed"], p["J_packed"]) if form == "packed" else (p["M_list"], p["J_list"])
            args = (p["tree_dofs"], m, p["contact_trees"], j, p["p_star"])
            if scheme == 2:
                s.set_two_way_coupled_block_problem_data(*args, *two_way_per_contact(p))
            else:
                s.set_one_way_coupled_block_problem_data(*args, p["fn0"], p["mu"])
        assert s.num_contacts == p["nc"]
        outcome = s.solve_with_guess(DT, p["v0"])
        return outcome, s.get_iteration_statistics().num_iterations, results(s)


@pytest.mark.parametrize("scheme", [1, 2])
@pytest.mark.parametrize("seed", range(6))
def test_block_data_solves_as_the_dense_data(lib, seed, scheme):
    p = block_problem(seed)
    outcome, iterations, dense = solve(lib, p, "dense", scheme)
    assert outcome == cts.TamsiSolverResult.kSuccess
    for form in ("packed", "lists"):
        got_outcome, got_iterations, got = solve(lib, p, form, scheme)
        assert (got_outcome, got_iterations) == (outcome, iterations)
        for name, want in dense.items():
            scale = max(1.0, np.max(np.abs(want)))
            assert np.max(np.abs(got[name] - want)) <= 1e-9 * scale, (form, name)
    # Packed values and lists of blocks are the same numbers: the same bits.
    assert all(np.array_equal(a, b) for a, b in zip(solve(lib, p, "packed", scheme)[2].values(),
                                                     solve(lib, p, "lists", scheme)[2].values()))


def test_lists_of_equal_blocks_solve_as_packed(lib):
    """Trees of one size (boxes): the M list is packed side by side too, and blocks given as
    nested Python lists or C-ordered arrays are the same numbers as the packed form."""
    q = block_problem(3)
    dofs = np.full(q["tree_dofs"].shape, 6, dtype=np.int32)
    rng = np.random.default_rng(3)
    M_list = [np.eye(6) * rng.uniform(0.5, 2.0) for _ in dofs]
    J_list = [rng.uniform(-1, 1, size=(3, 6)) for a, b in q["contact_trees"] for t in (a, b)
              if t >= 0]
    nv = 6 * len(dofs)
    v0 = rng.uniform(-0.05, 0.05, size=nv)
    per_contact = two_way_per_contact(q)
    runs = []
    for m, j in [(np.concatenate([b.ravel(order="F") for b in M_list]),
                  np.concatenate([b.ravel(order="F") for b in J_list])),
                 ([b.tolist() for b in M_list], [np.ascontiguousarray(b) for b in J_list])]:
        with cts.TamsiSolver(nv, library=lib) as s:
            s.set_two_way_coupled_block_problem_data(dofs.tolist(), m, q["contact_trees"].tolist(),
                                                     j, v0, *per_contact)
            assert s.solve_with_guess(DT, v0) == cts.TamsiSolverResult.kSuccess
            runs.append(results(s))
    assert all(np.array_equal(a, b) for a, b in zip(runs[0].values(), runs[1].values()))


def test_contiguous_arrays_are_borrowed_without_a_copy(lib):
    p = block_problem(1)
    with cts.TamsiSolver(p["nv"], library=lib) as s:
        s.set_two_way_coupled_block_problem_data(p["tree_dofs"], p["M_packed"], p["contact_trees"],
                                                 p["J_packed"], p["p_star"],
                                                 *two_way_per_contact(p))
        given = [p["tree_dofs"], p["M_packed"], p["contact_trees"], p["J_packed"], p["p_star"],
                 *two_way_per_contact(p)]
        assert len(s._borrowed) == len(given)
        for kept, original in zip(s._borrowed, given):
            assert np.shares_memory(kept, original)
        # The borrow is real: changing the caller's M in place changes the next solve.
        s.solve_with_guess(DT, p["v0"])
        before = s.get_generalized_velocities()
        p["M_packed"] *= 2.0
        s.solve_with_guess(DT, p["v0"])
        assert not np.allclose(s.get_generalized_velocities(), before)
        # copy=True snapshots instead, and int64 indices are converted.
        s.set_two_way_coupled_block_problem_data(p["tree_dofs"].astype(np.int64), p["M_packed"],
                                                 p["contact_trees"].astype(np.int64),
                                                 p["J_packed"], p["p_star"],
                                                 *two_way_per_contact(p), copy=True)
        assert not any(np.shares_memory(k, p["M_packed"]) for k in s._borrowed)


def raises(status, match):
    class Check:
        def __enter__(self):
            self.ctx = pytest.raises(cts.ContactSolversError, match=match)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            swallowed = self.ctx.__exit__(*exc)
            assert self.info.value.status == status, self.info.value
            return swallowed

    return Check()


def test_bad_block_data_raises_and_keeps_the_previous_data(lib):
    p = block_problem(2)
    args = [p["tree_dofs"], p["M_packed"], p["contact_trees"], p["J_packed"], p["p_star"],
            *two_way_per_contact(p)]
    with cts.TamsiSolver(p["nv"], library=lib) as s:
        s.set_two_way_coupled_block_problem_data(*args)
        s.solve_with_guess(DT, p["v0"])
        v = s.get_generalized_velocities()

        def bad(index, value, status, match):
            a = list(args)
            a[index] = value
            with raises(status, match):
                s.set_two_way_coupled_block_problem_data(*a)

        ct = p["contact_trees"].copy()
        ct[3] = (ct[3][0], 7)
        bad(2, ct, S.INVALID_ARGUMENT, r"data->contact_trees\[7\] = 7 \(contact 3, slot 1\)")
        ct = p["contact_trees"].copy()
        ct[5] = (1, 1)
        bad(2, ct, S.INVALID_ARGUMENT, "contact 5 lists tree 1 twice")
        bad(2, np.array([[-1, -1]] * p["nc"]), S.INVALID_ARGUMENT, "contact 0 touches no tree")
        bad(2, p["contact_trees"][:, :1], S.DIMENSION_MISMATCH, r"expected \(nc, 2\)")
        bad(2, p["contact_trees"] + 0.5, S.INVALID_ARGUMENT, "entries must be integers")
        bad(1, p["M_packed"][:-1], S.DIMENSION_MISMATCH, r"data->M_len = \d+, expected \d+")
        m = p["M_packed"].copy()
        m[4] = np.nan
        bad(1, m, S.INVALID_ARGUMENT, r"data->M\[4\] = NaN is outside its domain: expected finite")
        j = p["J_packed"].copy()
        j[-1] = np.inf
        bad(3, j, S.INVALID_ARGUMENT, r"data->J\[\d+\] = inf")
        bad(0, np.append(p["tree_dofs"], 1), S.DIMENSION_MISMATCH, "expected the solver's nv")
        # Lists of blocks: packed side by side when their row counts agree (J), block by block
        # otherwise; either way a bad block is named and nothing is cast silently.
        bad(3, p["J_list"][:-1] + [p["J_list"][-1] * 1j], S.INVALID_ARGUMENT, "dtype complex")
        bad(3, p["J_list"][:-1] + [p["J_list"][-1][0]], S.DIMENSION_MISMATCH,
            r"J_blocks\[\d+\]: shape \(\d+,\), expected a 2-D block")
        bad(1, [m[None] for m in p["M_list"]], S.DIMENSION_MISMATCH,
            r"M_blocks\[0\]: shape \(1, \d+, \d+\), expected a 2-D block")
        bad(2, [(int(a), 2**40) for a, _ in p["contact_trees"]], S.INVALID_ARGUMENT,
            "entries must fit in int32")
        mu = p["mu"].copy()
        mu[2] = -0.1
        bad(8, mu, S.INVALID_ARGUMENT, r"mu\[2\] = -0.1 is outside its domain")
        with raises(S.WRONG_COUPLING_SCHEME, "two-way"):
            s.set_one_way_coupled_block_problem_data(*args[:5], p["fn0"], p["mu"])
        # Nothing lost: the good data solves to the same bits.
        assert s.num_contacts == p["nc"]
        s.solve_with_guess(DT, p["v0"])
        assert np.array_equal(s.get_generalized_velocities(), v)
