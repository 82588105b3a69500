"""The block-sparse setters in a live loop (issue 29 item 5, ``docs/python.md`` §7): one solver
object set at every step reuses what repeats (the structure converted once, lists of blocks
packed into reused buffers, the addresses of arrays still borrowed, and the whole call when the
same arrays come again). Whatever is reused, every step gives the bits and iterations of a fresh
solver given a snapshot (``copy=True``) of that step's data; in-place changes of the caller's
arrays and lists are seen; bad input on each reuse path still raises with the argument named,
and a failed call keeps the previous data."""

import numpy as np
import pytest

import contact_solvers as cts
from contact_solvers import _common
from test_tamsi_blocks import DT, block_problem, raises, results

S = cts.Status
PER_CONTACT = ("fn0", "stiffness", "dissipation", "mu")


def steps():
    """A live loop's data: one structure for four steps with new values each step, another
    structure (other trees' sizes kept, other contacts and nc) for two, then the first again."""
    a = block_problem(11)
    # One scene: the trees stay, contacts part and the others come in another order.
    keep = [9, 2, 4, 0, 7, 5, 1]
    first = np.cumsum([0] + [int(np.sum(np.asarray(c) >= 0)) for c in a["contact_trees"]])
    b = dict(a, contact_trees=a["contact_trees"][keep], nc=len(keep),
             J_list=[a["J_list"][k] for i in keep for k in range(first[i], first[i + 1])],
             **{n: a[n][keep] for n in PER_CONTACT})
    rng = np.random.default_rng(5)
    out = []
    for p in (a, a, a, a, b, b, a, a):
        q = {k: v for k, v in p.items()}
        q["M_list"] = [m * rng.uniform(0.9, 1.1) for m in p["M_list"]]
        q["J_list"] = [j * rng.uniform(0.9, 1.1) for j in p["J_list"]]
        for name in ("p_star", *PER_CONTACT):
            q[name] = p[name] * rng.uniform(0.9, 1.1, size=p[name].shape)
        q["M_packed"] = np.concatenate([m.ravel(order="F") for m in q["M_list"]])
        q["J_packed"] = np.concatenate([j.ravel(order="F") for j in q["J_list"]])
        out.append(q)
    return out


def reference(lib, q):
    """A fresh solver given a snapshot of the step's packed data: (iterations, results)."""
    with cts.TamsiSolver(q["nv"], library=lib) as s:
        s.set_two_way_coupled_block_problem_data(
            q["tree_dofs"], q["M_packed"], q["contact_trees"], q["J_packed"], q["p_star"],
            *[q[n] for n in PER_CONTACT], copy=True,
        )
        assert s.solve_with_guess(DT, q["v0"]) == cts.TamsiSolverResult.kSuccess
        return s.get_iteration_statistics().num_iterations, results(s)


class Persistent:
    """The experienced user's loop: one set of arrays per structure, written in place at every
    step (as MuJoCo's mjData is), so the set call gets the same array objects again."""

    def __init__(self):
        self.arrays = {}

    def __call__(self, q):
        names = ("tree_dofs", "M_packed", "contact_trees", "J_packed", "p_star", *PER_CONTACT)
        key = (q["nc"], q["contact_trees"].tobytes())
        if key not in self.arrays:
            self.arrays[key] = [np.array(q[n]) for n in names]
        arrays = self.arrays[key]
        for a, n in zip(arrays, names):
            np.copyto(a, q[n])
        return arrays


class Lists:
    """A bridge writing lists: the same list objects refilled in place at every step (Python
    ints for the structure, one array per block)."""

    def __init__(self):
        self.lists = [[] for _ in range(4)]

    def __call__(self, q):
        trees, M, ct, J = self.lists
        trees[:] = [int(n) for n in q["tree_dofs"]]
        M[:] = q["M_list"]
        ct[:] = [(int(a), int(b)) for a, b in q["contact_trees"]]
        J[:] = q["J_list"]
        return [trees, M, ct, J, q["p_star"], *[q[n] for n in PER_CONTACT]]


class OrderedLists(Lists):
    """Lists with the blocks in a given memory order: M's and J's (``"C"`` row-major, as a
    bridge copying MuJoCo's slices writes; ``"F"`` column-major): C lists of both take the
    joined path (one ``b"".join`` of both lists), the others ``np.concatenate``."""

    def __init__(self, m_order, j_order):
        super().__init__()
        self.orders = m_order, j_order

    def __call__(self, q):
        m_order, j_order = self.orders
        return super().__call__(dict(q, M_list=[np.array(m, order=m_order) for m in q["M_list"]],
                                     J_list=[np.array(j, order=j_order) for j in q["J_list"]]))


def fresh(q):
    """New arrays at every step, packed."""
    return [np.array(q[n]) for n in ("tree_dofs", "M_packed", "contact_trees", "J_packed",
                                     "p_star", *PER_CONTACT)]


@pytest.mark.parametrize("form", ["persistent", "lists", "fresh", "F lists", "C M, F J",
                                  "F M, C J"])
def test_a_live_loop_gives_the_bits_of_a_fresh_solver_at_every_step(lib, form):
    data = steps()
    give = {"persistent": Persistent(), "lists": Lists(), "fresh": fresh,
            "F lists": OrderedLists("F", "F"), "C M, F J": OrderedLists("C", "F"),
            "F M, C J": OrderedLists("F", "C")}[form]
    with cts.TamsiSolver(data[0]["nv"], library=lib) as s:
        v = data[0]["v0"]
        for k, q in enumerate(data):
            s.set_two_way_coupled_block_problem_data(*give(q))
            assert s.num_contacts == q["nc"]
            assert s.solve_with_guess(DT, v) == cts.TamsiSolverResult.kSuccess
            got = results(s)
            iterations, want = reference(lib, dict(q, v0=v))
            assert s.get_iteration_statistics().num_iterations == iterations, k
            for name in want:
                assert np.array_equal(got[name], want[name]), (k, name)
            v = got["v"][: q["nv"]]
            # The same arrays a second time in a row: the whole call is kept for the next.
            kept = s._block_sparse().last is not None
            assert kept == (form == "persistent" and k in (1, 2, 3, 5, 7)), k


def test_the_repeated_call_converts_nothing_and_sees_in_place_changes(lib, monkeypatch):
    q = steps()[0]
    arrays = Persistent()(q)
    with cts.TamsiSolver(q["nv"], library=lib) as s:
        s.set_two_way_coupled_block_problem_data(*arrays)
        s.set_two_way_coupled_block_problem_data(*arrays)

        def no_conversion(*_):
            raise AssertionError("the repeated call converted its arguments")

        monkeypatch.setattr(_common._BlockSparse, "fill", no_conversion)
        arrays[8] *= 0.5  # mu, in place
        arrays[1] *= 1.25  # M, in place
        s.set_two_way_coupled_block_problem_data(*arrays)
        # copy=True never takes the repeated call: it snapshots.
        with pytest.raises(AssertionError, match="converted"):
            s.set_two_way_coupled_block_problem_data(*arrays, copy=True)
        monkeypatch.undo()
        s.solve_with_guess(DT, q["v0"])
        changed = dict(q, mu=q["mu"] * 0.5, M_packed=q["M_packed"] * 1.25)
        iterations, want = reference(lib, changed)
        assert s.get_iteration_statistics().num_iterations == iterations
        assert all(np.array_equal(results(s)[n], want[n]) for n in want)


def test_read_only_and_empty_arrays_take_the_same_paths(lib):
    """Arrays a ctypes view cannot take (read-only, or empty: no contacts) are looked up the
    slow way, on the first call and on the repeated one alike."""
    q = steps()[0]
    iterations, want = reference(lib, q)
    arrays = Persistent()(q)
    for a in arrays:
        a.flags.writeable = False
    none = [q["tree_dofs"], q["M_packed"], np.zeros((0, 2), dtype=np.int32), np.zeros(0),
            q["p_star"], *[np.zeros(0)] * 4]
    with cts.TamsiSolver(q["nv"], library=lib) as s:
        for _ in range(3):
            s.set_two_way_coupled_block_problem_data(*arrays)
            s.solve_with_guess(DT, q["v0"])
            assert all(np.array_equal(results(s)[n], want[n]) for n in want)
        assert s._block_sparse().last is not None
        for _ in range(3):
            s.set_two_way_coupled_block_problem_data(*none)
            assert s.num_contacts == 0
            s.solve_with_guess(DT, q["v0"])
            first = np.cumsum([0] + [m.shape[0] for m in q["M_list"]])
            free = np.concatenate([np.linalg.solve(m, q["p_star"][a:b])  # no contact: M v = p*
                                   for m, a, b in zip(q["M_list"], first, first[1:])])
            assert np.allclose(s.get_generalized_velocities(), free, rtol=1e-12, atol=1e-15)


def test_another_set_call_or_a_resize_forgets_the_borrowed_addresses(lib, monkeypatch):
    """Once the library borrows other data, the caller may reallocate the old arrays (here with
    ``__setstate__``, which may move an array's memory): the next block call looks again."""
    q = steps()[0]
    fills = []
    fill = _common._BlockSparse.fill
    monkeypatch.setattr(_common._BlockSparse, "fill", lambda *a: fills.append(1) or fill(*a))
    with cts.TamsiSolver(q["nv"], library=lib) as s:
        for forget in ("dense", "resize"):
            arrays = Persistent()(q)
            s.set_two_way_coupled_block_problem_data(*arrays)
            s.set_two_way_coupled_block_problem_data(*arrays)
            fills.clear()
            s.set_two_way_coupled_block_problem_data(*arrays)
            assert not fills  # the repeated call
            if forget == "dense":
                s.set_two_way_coupled_problem_data(q["M"], q["Jn"], q["Jt"], q["p_star"],
                                                   *[q[n] for n in PER_CONTACT])
            else:
                s.resize(q["nv"])
            mu = q["mu"] * 0.75
            arrays[8].__setstate__(mu.__reduce__()[2])  # the same object, new values
            s.set_two_way_coupled_block_problem_data(*arrays)
            assert fills == [1], forget  # converted and looked up again
            vectors, addresses = s._block_sparse().known["vectors"]  # p_star, then per contact
            assert vectors[-1] is arrays[8] and addresses[-1] == arrays[8].ctypes.data
            s.solve_with_guess(DT, q["v0"])
            iterations, want = reference(lib, dict(q, mu=mu))
            assert all(np.array_equal(results(s)[n], want[n]) for n in want), forget


def test_bad_input_on_every_reuse_path_raises_and_keeps_the_previous_data(lib):
    q = steps()[0]
    arrays = Persistent()(q)
    lists = Lists()(q)
    with cts.TamsiSolver(q["nv"], library=lib) as s:

        def set_(args):
            s.set_two_way_coupled_block_problem_data(*args)

        def bad(args, index, value, status, match):
            a = list(args)
            a[index] = value
            with raises(status, match):
                set_(a)
            # Nothing lost: the last good data solves to the same bits.
            s.solve_with_guess(DT, q["v0"])
            assert np.array_equal(s.get_generalized_velocities(), good)

        set_(lists)
        set_(lists)  # the structure's conversion and the J buffer are reused from here on
        s.solve_with_guess(DT, q["v0"])
        good = s.get_generalized_velocities()
        J = lists[3]
        # Packed into the free buffer: the one the library borrows keeps the good values.
        bad(lists, 3, [2.0 * b for b in J[:-1]] + [J[-1] * np.nan], S.INVALID_ARGUMENT,
            r"data->J\[\d+\] = NaN")
        bad(lists, 3, J[:-1] + [J[-1] * 1j], S.INVALID_ARGUMENT, "J_blocks: dtype complex")
        bad(lists, 3, J[:-1] + [J[-1][0]], S.DIMENSION_MISMATCH,
            r"J_blocks\[\d+\]: shape \(\d+,\), expected a 2-D block")
        bad(lists, 3, J[:-1], S.DIMENSION_MISMATCH, r"data->J_len = \d+, expected \d+")
        # Blocks of the right total but the wrong widths (a column moved from the first block to
        # the second): the library sees only the total, the binding names the block.
        n0 = J[0].shape[1]
        moved = [J[0][:, :-1], np.hstack([J[0][:, -1:], J[1]])] + J[2:]
        bad(lists, 3, moved, S.DIMENSION_MISMATCH,
            rf"J_blocks\[0\]: shape \(3, {n0 - 1}\), expected \(3, {n0}\)")
        # A transposed block (n×3 where 3×n is due), C-contiguous as the joined path reads it:
        # the right byte count, the wrong shape.
        bad(lists, 3, [np.ascontiguousarray(J[0].T)] + J[1:], S.DIMENSION_MISMATCH,
            rf"J_blocks\[0\]: shape \({n0}, 3\), expected \(3, {n0}\)")
        # An 8-byte integer block of the right shape: converted, never read as float64 bits.
        ints = [np.ones(J[0].shape, dtype=np.int64)] + J[1:]
        set_(lists[:3] + [ints] + lists[4:])
        assert np.array_equal(s._borrowed[3][: J[0].size], np.ones(J[0].size))
        set_(lists)
        bad(lists, 1, [np.ascontiguousarray(lists[1][0][:, :-1])] + lists[1][1:],
            S.DIMENSION_MISMATCH, r"M_blocks\[0\]: shape")
        bad(lists, 0, lists[0] + [1], S.DIMENSION_MISMATCH, "expected the solver's nv")
        bad(lists, 0, lists[0][:-1] + [2.5], S.INVALID_ARGUMENT, "entries must be integers")
        bad(lists, 2, lists[2][:-1] + [(0, 2**40)], S.INVALID_ARGUMENT, "entries must fit in int32")
        bad(lists, 8, q["mu"][:-1], S.DIMENSION_MISMATCH, r"mu: shape \(\d+,\), expected")
        # The same list objects changed in place are read again.
        ct = lists[2]
        saved = ct[3]
        ct[3] = (ct[3][0], 7)
        bad(lists, 2, ct, S.INVALID_ARGUMENT, r"data->contact_trees\[7\] = 7 \(contact 3, slot 1\)")
        ct[3] = saved

        # The repeated call: the same arrays, changed in place.
        set_(arrays)
        set_(arrays)
        set_(arrays)
        s.solve_with_guess(DT, q["v0"])
        good = s.get_generalized_velocities()
        arrays[1][4] = np.nan
        with raises(S.INVALID_ARGUMENT, r"data->M\[4\] = NaN"):
            set_(arrays)
        arrays[1][4] = q["M_packed"][4]
        set_(arrays)
        arrays[8].shape = (q["nc"], 1)  # a layout change is seen: converted and checked again
        with raises(S.DIMENSION_MISMATCH, r"mu: shape \(\d+, 1\), expected"):
            set_(arrays)
        arrays[8].shape = (q["nc"],)
        arrays[0].dtype = np.float32  # the same bytes, read as another type: refused
        with raises(S.INVALID_ARGUMENT, "tree_dofs: entries must be integers"):
            set_(arrays)
        arrays[0].dtype = np.int32
        set_(arrays)
        s.solve_with_guess(DT, q["v0"])
        assert np.array_equal(s.get_generalized_velocities(), good)


def test_ipm_block_setter_reuses_the_same_way(lib):
    """The interior point's block setter shares the structure cache and the packing buffers:
    lists refilled in place give the bits of packed data on a fresh solver."""
    data = steps()
    lists = Lists()
    want, got = [], []
    models = {}
    for q in data:
        models.setdefault(q["nc"], np.full(q["nc"], int(cts.IpmContactModel.kSecondOrderCone),
                                           dtype=np.int32))
    with cts.IpmSolver(library=lib) as reused:
        for q in data:
            args = lists(q)
            phi = np.zeros(q["nc"])
            reused.set_block_problem_data(args[0], args[1], args[2], args[3], q["v0"],
                                          q["p_star"] / DT, DT, phi, q["mu"], models[q["nc"]])
            reused.solve()
            got.append(reused.get_generalized_velocities())
            with cts.IpmSolver(library=lib) as s:
                s.set_block_problem_data(q["tree_dofs"], q["M_packed"], q["contact_trees"],
                                         q["J_packed"], q["v0"], q["p_star"] / DT, DT, phi,
                                         q["mu"], models[q["nc"]], copy=True)
                s.solve()
                want.append(s.get_generalized_velocities())
    assert all(np.array_equal(a, b) for a, b in zip(got, want))


def test_every_block_layout_packs_to_the_packed_bits(lib):
    """Lists of C-contiguous float64 blocks take the byte-join path (reordered through the
    structure's gather index), the others ``np.concatenate`` or block by block: every layout,
    dtype and mixture of them packs to the same values as the packed arrays (issue 29 item 5).
    An integer block among float64 ones must be converted, not read as float64 bytes."""
    q = steps()[0]
    M, J = q["M_list"], q["J_list"]
    J_int = list(J)
    J_int[1] = np.round(J[1] * 4)  # exact small integers, as an int64 block
    J_int_f = list(J_int)
    J_int[1] = J_int[1].astype(np.int64)
    forms = {
        "C": (M, J, J),
        "Fortran": ([np.asfortranarray(m) for m in M], [np.asfortranarray(j) for j in J], J),
        "mixed": (M, [np.asfortranarray(j) if k % 2 else j for k, j in enumerate(J)], J),
        "strided": (M, [np.hstack([j, j])[:, :j.shape[1]] for j in J], J),
        "big-endian": (M, [j.astype(">f8") for j in J], J),
        "an int block": (M, J_int, J_int_f),
        "nested lists": ([m.tolist() for m in M], [j.tolist() for j in J], J),
    }
    for name, (m_list, j_list, j_want) in forms.items():
        with cts.TamsiSolver(q["nv"], library=lib) as a, cts.TamsiSolver(q["nv"], library=lib) as b:
            a.set_two_way_coupled_block_problem_data(
                list(q["tree_dofs"]), m_list, q["contact_trees"], j_list, q["p_star"],
                *[q[n] for n in PER_CONTACT])
            packed_j = np.concatenate([j.ravel(order="F") for j in j_want])
            b.set_two_way_coupled_block_problem_data(
                q["tree_dofs"], q["M_packed"], q["contact_trees"], packed_j, q["p_star"],
                *[q[n] for n in PER_CONTACT], copy=True)
            for s in (a, b):
                assert s.solve_with_guess(DT, q["v0"]) == cts.TamsiSolverResult.kSuccess
            assert a.get_generalized_velocities().tobytes() == \
                b.get_generalized_velocities().tobytes(), name
            # A transposed C block (n_t x 3: its bytes are the 3 x n_t block column-major) is
            # refused by its shape, whatever the path.
            k = next(k for k, j in enumerate(J) if j.shape[1] != 3)
            bad = list(j_list)
            bad[k] = np.ascontiguousarray(np.asarray(j_list[k], dtype=np.float64).T)
            with raises(S.DIMENSION_MISMATCH, rf"J_blocks\[{k}\]: shape"):
                a.set_two_way_coupled_block_problem_data(
                    list(q["tree_dofs"]), m_list, q["contact_trees"], bad, q["p_star"],
                    *[q[n] for n in PER_CONTACT])
