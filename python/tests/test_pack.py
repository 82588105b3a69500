"""The block-sparse setters' lists of blocks, packed by the optional extension module
``contact_solvers._pack`` (``_pack.c``) and by the Python path it falls back to (issue 29 item 5,
``docs/python.md`` §7): every form of block list packs to the bits of the packed arrays, and
every bad block raises the same ``ContactSolversError`` (status and message, the block named)
whichever path runs.

The paths: ``python`` (``_common._pack`` set to None, as without the extension or with
``CONTACT_SOLVERS_NO_EXTENSION=1``), ``extension`` (the installed module; from a source checkout,
which has none, the module compiled here from ``_pack.c`` with numpy's headers, as setup.py
builds it) and, from a source checkout, ``buffer protocol`` (compiled without numpy's headers:
every block read through the buffer protocol)."""

import importlib.util
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import contact_solvers as cts
from contact_solvers import _common

S = cts.Status
DT = 1e-3
SOURCE = Path(_common.__file__).with_name("_pack.c")
EXPECT_INSTALLED = os.environ.get("CONTACT_SOLVERS_EXPECT_INSTALLED") == "1"
DISABLED = os.environ.get("CONTACT_SOLVERS_NO_EXTENSION", "") not in ("", "0")


def _compile(folder: Path, numpy_headers: bool):
    """``_pack.c`` built by setuptools' ``build_ext`` into ``folder`` and loaded."""
    from setuptools import Distribution, Extension

    ext = Extension(
        "contact_solvers._pack", [str(SOURCE)],
        include_dirs=[np.get_include()] if numpy_headers else [],
        define_macros=[("CONTACT_SOLVERS_PACK_NUMPY", "1")] if numpy_headers else [],
        extra_compile_args=["-Werror"] if sys.platform != "win32" else [],
    )
    dist = Distribution({"ext_modules": [ext]})
    cmd = dist.get_command_obj("build_ext")
    cmd.build_lib = str(folder / "lib")
    cmd.build_temp = str(folder / "tmp")
    cmd.ensure_finalized()
    cmd.run()
    spec = importlib.util.spec_from_file_location("contact_solvers._pack",
                                                  cmd.get_ext_fullpath(ext.name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The extension's variants this run can test (parametrized at collection: none is skipped).
PATHS = ["python", "extension"] + (["buffer protocol"] if SOURCE.exists() else [])


@pytest.fixture(scope="session")
def modules(tmp_path_factory):
    """The extension modules by path name: the installed one, else compiled here."""
    out = {"python": None}
    if _common._pack is not None:
        out["extension"] = _common._pack
    elif SOURCE.exists() and not EXPECT_INSTALLED:
        out["extension"] = _compile(tmp_path_factory.mktemp("pack_numpy"), True)
    elif DISABLED:  # installed, disabled by the environment: the installed file, imported
        from contact_solvers import _pack

        out["extension"] = _pack
    if "buffer protocol" in PATHS:
        out["buffer protocol"] = _compile(tmp_path_factory.mktemp("pack_buffer"), False)
    return out


@pytest.fixture(params=PATHS)
def path(request, modules, monkeypatch):
    """The packing path under test, set for this test only."""
    assert request.param in modules, f"no {request.param} module to test"
    monkeypatch.setattr(_common, "_pack", modules[request.param])
    return request.param


def test_the_installed_package_has_the_extension_unless_disabled():
    if DISABLED:
        assert _common._pack is None
    elif EXPECT_INSTALLED:
        assert _common._pack is not None, "pip install did not build contact_solvers._pack"
        assert _common._pack.NUMPY_ARRAYS == 1
    else:
        assert _common._pack is None  # a source checkout holds no built extension


def test_the_environment_variable_disables_the_extension():
    code = "from contact_solvers import _common; print(_common._pack is None)"
    env = dict(os.environ, CONTACT_SOLVERS_NO_EXTENSION="1")
    root = str(Path(cts.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "True"


def problem(seed=3, ntree=6, nc=9):
    """Trees of 1-6 dofs (SPD blocks), contacts on one tree or two, pressed and sliding."""
    rng = np.random.default_rng(seed)
    dofs = [int(n) for n in rng.integers(1, 7, size=ntree)]
    dofs[0] = 4  # a tree wider than 3: its transposed J block has another shape
    trees = []
    for _ in range(nc):
        a, b = (int(t) for t in rng.integers(0, ntree, size=2))
        trees.append((a, b if b != a and rng.random() < 0.6 else -1))
    trees[0] = (0, 1)
    M = []
    for n in dofs:
        a = rng.uniform(-0.5, 0.5, size=(n, n))
        M.append(a @ a.T + np.eye(n) * rng.uniform(0.5, 2.0))
    J = [rng.uniform(-1, 1, size=(3, dofs[t])) for a, b in trees for t in (a, b) if t >= 0]
    nv = sum(dofs)
    return dict(
        nv=nv, tree_dofs=dofs, contact_trees=trees, M=M, J=J,
        M_packed=np.concatenate([m.ravel(order="F") for m in M]),
        J_packed=np.concatenate([j.ravel(order="F") for j in J]),
        p_star=rng.uniform(-0.1, 0.1, size=nv),
        per_contact=[rng.uniform(1, 20, size=nc), rng.uniform(1e3, 1e5, size=nc),
                     rng.uniform(0, 5, size=nc), rng.uniform(0.2, 0.9, size=nc)],
    )


def set_(solver, q, M, J, **kw):
    solver.set_two_way_coupled_block_problem_data(q["tree_dofs"], M, q["contact_trees"], J,
                                                  q["p_star"], *q["per_contact"], **kw)


def solved(solver, q):
    assert solver.solve_with_guess(DT, np.zeros(q["nv"])) == cts.TamsiSolverResult.kSuccess
    return (solver.get_generalized_velocities().tobytes(),
            solver.get_iteration_statistics().num_iterations)


def forms(q):
    """Lists of blocks in every layout and kind, with the packed values they stand for."""
    M, J = q["M"], q["J"]
    J_int = [np.round(j * 4) for j in J]
    return {
        "C": (M, J, None),
        "Fortran": ([np.asfortranarray(m) for m in M], [np.asfortranarray(j) for j in J], None),
        "mixed": ([np.asfortranarray(m) if k % 2 else m for k, m in enumerate(M)],
                  [np.asfortranarray(j) if k % 2 else j for k, j in enumerate(J)], None),
        "strided": ([np.hstack([m, m])[:, :m.shape[1]] for m in M],
                    [np.kron(j, np.ones((2, 2)))[::2, ::2] for j in J], None),
        "negative strides": ([np.flip(np.flip(m, 0), 0) for m in M],
                             [np.flip(np.flip(j), (0, 1)) for j in J], None),
        "tuples": (tuple(M), tuple(J), None),
        "views of a transposed array": ([np.ascontiguousarray(m.T).T for m in M], J, None),
        "memoryviews": ([memoryview(m) for m in M], [memoryview(np.asfortranarray(j)) for j in J],
                        None),
        "an ndarray subclass": ([m.view(np.matrix) for m in M], J, None),
        "big-endian": (M, [j.astype(">f8") for j in J], None),
        "float32": ([m.astype(np.float32) for m in M], J, ([m.astype(np.float32) for m in M], J)),
        "an int block": (M, [J_int[0].astype(np.int64)] + J_int[1:], (M, J_int)),
        "an equal dtype object": (M, [np.frombuffer(j.tobytes(), np.dtype("<f8").newbyteorder("=")
                                                    ).reshape(j.shape) for j in J], None),
        "read-only": (M, [np.lib.stride_tricks.as_strided(j, writeable=False) for j in J], None),
        "nested lists": ([m.tolist() for m in M], [j.tolist() for j in J], None),
    }


# The forms the extension packs itself (2-D native float64, any strides, through numpy's struct
# or the buffer protocol); it declines the others, which the Python path converts.
# By form: whether the extension declines M's list, J's, and its answers when both are lists
# (the blocks of declined arrays are packed by numpy in Python, shapes checked once; nested lists
# are offered again list by list). It packs every other form in one call.
DECLINED = {"big-endian": (False, True, [False]), "float32": (True, False, [False]),
            "an int block": (False, True, [False]),
            "nested lists": (True, True, [False, False, False])}


def test_every_form_of_list_packs_to_the_packed_bits(path, monkeypatch):
    q = problem()
    answers = []
    if path != "python":  # which call the extension took or declined
        pack = _common._pack.pack

        def recording(*args):
            answers.append(pack(*args))
            return answers[-1]

        monkeypatch.setattr(_common, "_pack", types.SimpleNamespace(**dict(
            vars(_common._pack), pack=recording)))
    with cts.TamsiSolver(q["nv"]) as want:
        set_(want, q, q["M_packed"], q["J_packed"], copy=True)
        reference = solved(want, q)
    for name, (M, J, values) in forms(q).items():
        M_want, J_want = values or (q["M"], q["J"])
        M_packed, J_packed = (np.concatenate([np.asarray(b, dtype=np.float64).ravel(order="F")
                                              for b in blocks]) for blocks in (M_want, J_want))
        for combination in ("both lists", "M list", "J list"):
            m_arg = M if combination != "J list" else M_packed
            j_arg = J if combination != "M list" else J_packed
            with cts.TamsiSolver(q["nv"]) as s:
                for _ in range(3):  # both buffers, and the first again
                    answers.clear()
                    set_(s, q, m_arg, j_arg)
                    if path != "python":
                        dm, dj, both = DECLINED.get(name, (False, False, [True]))
                        want = {"both lists": both, "M list": [not dm],
                                "J list": [not dj]}[combination]
                        assert answers == want, (name, combination)
                    assert np.array_equal(s._borrowed[1], M_packed), (name, combination)
                    assert np.array_equal(s._borrowed[3], J_packed), (name, combination)
                if values is None:
                    assert solved(s, q) == reference, (name, combination)


def error_of(q, M, J):
    with cts.TamsiSolver(q["nv"]) as s:
        with pytest.raises(cts.ContactSolversError) as e:
            set_(s, q, M, J)
    return e.value.status, str(e.value)


def bad_lists(q):
    """(name, M list, J list, status, message pattern) of lists the setter must refuse."""
    M, J = q["M"], q["J"]
    n0 = J[0].shape[1]
    yield ("a transposed C block", M, [np.ascontiguousarray(J[0].T)] + J[1:], S.DIMENSION_MISMATCH,
           rf"J_blocks\[0\]: shape \({n0}, 3\), expected \(3, {n0}\)")
    yield ("a transposed Fortran block", M, [np.asfortranarray(J[0].T)] + J[1:],
           S.DIMENSION_MISMATCH, rf"J_blocks\[0\]: shape \({n0}, 3\), expected \(3, {n0}\)")
    yield ("a transposed view", M, [J[0].T] + J[1:], S.DIMENSION_MISMATCH, r"J_blocks\[0\]: shape")
    yield ("a column moved to the next block", M,
           [J[0][:, :-1], np.hstack([J[0][:, -1:], J[1]])] + J[2:], S.DIMENSION_MISMATCH,
           rf"J_blocks\[0\]: shape \(3, {n0 - 1}\), expected \(3, {n0}\)")
    yield ("a wrong M block", [M[0][:-1, :]] + M[1:], J, S.DIMENSION_MISMATCH,
           r"M_blocks\[0\]: shape \(3, 4\), expected \(4, 4\)")
    yield ("a 1-D block", M, J[:-1] + [J[-1][0]], S.DIMENSION_MISMATCH,
           r"J_blocks\[\d+\]: shape \(\d+,\), expected a 2-D block")
    yield ("a 3-D block", M, [J[0][None]] + J[1:], S.DIMENSION_MISMATCH,
           r"J_blocks\[0\]: shape \(1, 3, 4\), expected a 2-D block")
    yield ("a missing block", M, J[:-1], S.DIMENSION_MISMATCH, r"data->J_len = \d+, expected \d+")
    yield ("an extra block", M, J + [J[-1]], S.DIMENSION_MISMATCH, r"data->J_len = \d+, expected")
    yield ("a complex block", M, J[:-1] + [J[-1] * 1j], S.INVALID_ARGUMENT,
           "J_blocks: dtype complex")
    yield ("a NaN", M, J[:-1] + [J[-1] * np.nan], S.INVALID_ARGUMENT, r"data->J\[\d+\] = NaN")
    yield ("a non-contiguous wrong block", M, [np.hstack([J[0], J[0]])[:, ::2][:, :-1]] + J[1:],
           S.DIMENSION_MISMATCH, rf"J_blocks\[0\]: shape \(3, {n0 - 1}\)")
    yield ("a float32 wrong block", M, [J[0].T.astype(np.float32)] + J[1:], S.DIMENSION_MISMATCH,
           rf"J_blocks\[0\]: shape \({n0}, 3\), expected \(3, {n0}\)")


def test_bad_blocks_raise_the_python_paths_errors(path, monkeypatch):
    q = problem()
    for name, M, J, status, pattern in bad_lists(q):
        got = error_of(q, M, J)
        with monkeypatch.context() as m:
            m.setattr(_common, "_pack", None)
            python = error_of(q, M, J)
        assert got == python, name
        assert got[0] == status, (name, got)
        assert re.search(pattern, got[1]), (name, got)


def test_a_refused_list_keeps_the_borrowed_data(path):
    """The extension writes only the free buffer: after a refused call (a bad shape, a NaN the
    library rejects) the borrowed data solves to the same bits."""
    q = problem()
    with cts.TamsiSolver(q["nv"]) as s:
        set_(s, q, q["M"], q["J"])
        good = solved(s, q)
        borrowed = s._borrowed[3].copy()
        for _, M, J, _, _ in bad_lists(q):
            with pytest.raises(cts.ContactSolversError):
                set_(s, q, M, J)
            assert np.array_equal(s._borrowed[3], borrowed)
            assert solved(s, q) == good
        twice = [2 * j for j in q["J"]]
        set_(s, q, q["M"], twice)  # and a good call after them packs and borrows
        assert np.array_equal(s._borrowed[3], 2 * q["J_packed"])


def test_the_interior_points_block_setter_packs_the_same(path):
    q = problem()
    models = np.full(len(q["contact_trees"]), int(cts.IpmContactModel.kSecondOrderCone),
                     dtype=np.int32)
    phi, mu = np.zeros(len(models)), q["per_contact"][3]
    out = []
    for M, J in ((q["M"], [np.asfortranarray(j) for j in q["J"]]), (q["M_packed"], q["J_packed"])):
        with cts.IpmSolver() as s:
            s.set_block_problem_data(q["tree_dofs"], M, q["contact_trees"], J, np.zeros(q["nv"]),
                                     q["p_star"] / DT, DT, phi, mu, models)
            s.solve()
            out.append(s.get_generalized_velocities().tobytes())
    assert out[0] == out[1]


@pytest.mark.parametrize("variant", [p for p in PATHS if p != "python"])
def test_pack_itself(modules, variant):
    """``pack(out, shapes, *lists)``: True and the values written, or False (nothing to raise)
    for what it declines; TypeError/ValueError only for a wrong call of its own."""
    pack = modules[variant].pack
    rng = np.random.default_rng(1)
    blocks = [rng.random((3, 2)), np.asfortranarray(rng.random((2, 2))), rng.random((3, 1))]
    shapes = np.array([b.shape for b in blocks], dtype=np.intp).tobytes()
    out = np.full(13, np.nan)
    assert pack(out, shapes, blocks[:1], blocks[1:]) is True
    assert np.array_equal(out, np.concatenate([b.ravel(order="F") for b in blocks]))
    assert pack(out, shapes, blocks, []) is True and pack(out, shapes, tuple(blocks)) is True
    for declined in ([blocks[0].T] + blocks[1:], blocks[:2], blocks + blocks[:1],
                     [blocks[0].astype(np.float32)] + blocks[1:], [blocks[0].tolist()] + blocks[1:],
                     [b"x" * 48] + blocks[1:], [None] + blocks[1:], blocks[:2] + [blocks[2][:, 0]]):
        assert pack(out, shapes, declined) is False
    assert pack(out, shapes, iter(blocks)) is False  # not a list or tuple
    with pytest.raises(ValueError):
        pack(np.zeros(12), shapes, blocks)  # out of another size
    with pytest.raises(ValueError):
        pack(np.zeros(13, dtype=np.float32), shapes, blocks)
    with pytest.raises((ValueError, BufferError)):
        pack(np.zeros(26)[::2], shapes, blocks)  # not contiguous
    with pytest.raises(TypeError):
        pack(out, list(shapes), blocks)
    with pytest.raises(TypeError):
        pack(out)


@pytest.mark.parametrize("variant", [p for p in PATHS if p != "python"])
def test_vectors_and_call_themselves(modules, variant):
    """``vectors``: the addresses of exact float64 ndarrays of the lengths asked (None for
    anything else, and always without numpy's headers); ``call``: the library's setter through
    its address, as the ctypes declaration calls it."""
    m = modules[variant]
    a, b = np.zeros(4), np.ones(2)
    got = m.vectors((a, b, b), 4, 2)
    assert got == ([a.ctypes.data, b.ctypes.data, b.ctypes.data] if m.NUMPY_ARRAYS else None)
    for bad in ((a, b, np.ones(3)), (a[::2], b), (a, b.astype(np.float32)), (a, b.tolist()),
                (a, b.view(np.matrix)), (a.reshape(2, 2), b), (a, b.astype(">f8"))):
        assert m.vectors(bad, 4, 2) is None, bad
    with pytest.raises(TypeError):
        m.vectors([a, b], 4, 2)  # a list, not the setter's tuple
    for x in (a, b[::-1], np.zeros(0), np.zeros((2, 3), dtype=np.int32)):
        assert m.address(x) == (x.ctypes.data if m.NUMPY_ARRAYS else None)
    assert m.address(memoryview(a)) is None and m.address(a.view(np.matrix)) is None

    lib = cts.load_library()
    name = "cts_tamsi_solver_set_two_way_coupled_block_problem_data"
    address = lib.address(name)
    assert address == lib.address(name) and address
    # A NULL handle: the library's own refusal, the same through ctypes and through call().
    assert m.call(address, *[None] * 7) == lib.untyped(name)(*[None] * 7) == S.NULL_POINTER
    assert m.call(address, *[0] * 7) == S.NULL_POINTER
    with pytest.raises(TypeError):
        m.call(address, 1.5, *[0] * 6)  # a float is no address
    with pytest.raises(TypeError):
        m.call(address, 0)  # too few
    with pytest.raises(TypeError):
        m.call(address, *[0] * 9)  # too many
    with pytest.raises(TypeError):
        lib.address("cts_tamsi_solver_solve_with_guess")  # a double among its parameters


def test_vectors_are_checked_and_named_on_both_paths(path):
    q = problem()
    nc = len(q["contact_trees"])
    with cts.TamsiSolver(q["nv"]) as s:
        set_(s, q, q["M"], q["J"])
        good = solved(s, q)
        for k, bad, status, pattern in (
                (4, q["per_contact"][3][:-1], S.DIMENSION_MISMATCH,
                 rf"mu: shape \({nc - 1},\), expected \({nc},\)"),
                (0, q["p_star"][:-1], S.DIMENSION_MISMATCH, r"p_star: shape"),
                (1, q["per_contact"][0] * 1j, S.INVALID_ARGUMENT, "fn0: dtype complex"),
                (3, np.full(nc, np.nan), S.INVALID_ARGUMENT, "NaN")):
            args = [q["p_star"], *q["per_contact"]]
            args[k] = bad
            with pytest.raises(cts.ContactSolversError) as e:
                s.set_two_way_coupled_block_problem_data(q["tree_dofs"], q["M"],
                                                         q["contact_trees"], q["J"], *args)
            assert e.value.status == status and re.search(pattern, str(e.value)), str(e.value)
            assert solved(s, q) == good
        # Other layouts and dtypes are converted, to the same bits.
        args = [q["p_star"][::-1].copy()[::-1], *[np.asfortranarray(v).astype(np.float32)
                                                  .astype(np.float64) for v in q["per_contact"]]]
        args[1] = np.repeat(args[1], 2)[::2]  # strided
        s.set_two_way_coupled_block_problem_data(q["tree_dofs"], q["M"], q["contact_trees"],
                                                 q["J"], *args)
        with cts.TamsiSolver(q["nv"]) as t:
            t.set_two_way_coupled_block_problem_data(
                q["tree_dofs"], q["M_packed"], q["contact_trees"], q["J_packed"],
                *[np.array(v) for v in args], copy=True)
            assert solved(s, q) == solved(t, q)


def test_a_loop_of_the_same_arrays_gives_the_bits_of_a_fresh_solver(path):
    """The repeated call (the same packed arrays, changed in place) goes through ``call`` with
    the extension, through ctypes without."""
    q = problem()
    arrays = [np.array(q["tree_dofs"], dtype=np.int32), q["M_packed"].copy(),
              np.array(q["contact_trees"], dtype=np.int32), q["J_packed"].copy(),
              q["p_star"].copy(), *[v.copy() for v in q["per_contact"]]]
    with cts.TamsiSolver(q["nv"]) as s:
        for step in range(5):
            arrays[3] *= 1.01
            arrays[8] *= 0.99
            s.set_two_way_coupled_block_problem_data(*arrays)
            got = solved(s, q)
            with cts.TamsiSolver(q["nv"]) as t:
                t.set_two_way_coupled_block_problem_data(*arrays, copy=True)
                assert got == solved(t, q), step
        assert s._block_sparse().last is not None  # the repeated call was taken
        arrays[1][0] = np.nan
        with pytest.raises(cts.ContactSolversError, match=r"data->M\[0\] = NaN"):
            s.set_two_way_coupled_block_problem_data(*arrays)
