"""Python bindings of libcontact_solvers over its C ABI, with ctypes and numpy.

A single file with no build step: copy it next to your code (or put this folder on ``sys.path``)
and point it at the shared library. It mirrors the C API of ``include/contact_solvers.h`` call by
call and shapes the TAMSI solver like Drake's ``TamsiSolver``::

    import numpy as np
    import contact_solvers as cts

    with cts.TamsiSolver(nv=3) as solver:
        solver.set_two_way_coupled_problem_data(M, Jn, Jt, p_star, fn0, stiffness, dissipation, mu)
        result = solver.solve_with_guess(dt, v0)
        if result == cts.TamsiSolverResult.kSuccess:
            v = solver.get_generalized_velocities()

Finding the library (first match wins): the ``library`` argument (a path, or a :class:`Library`),
the ``CONTACT_SOLVERS_LIB`` environment variable (a path), ``target/release`` then
``target/debug`` of the repository this file sits in, then the system's search path
(``ctypes.util.find_library``, e.g. after ``cargo cinstall``).

Rules, those of the C API:

* **Arrays.** Inputs are numpy arrays (or anything ``numpy.asarray`` accepts) of float64.
  Matrices are passed to the library **column-major**, and what needs no copy gets none:

  - a Fortran-ordered float64 array, or a column-strided view of one (e.g. ``A[:3, :]`` of an
    ``order="F"`` array, passed with its leading dimension), goes through as it is;
  - the mass matrix ``M`` (symmetric by contract) also goes through as it is in C order (numpy's
    and MuJoCo's default): the library reads the transpose of a C-ordered array, and Mᵀ = M;
  - any other matrix -- a C-ordered ``Jn`` or ``Jt``, another dtype, a list -- is copied into a
    column-major buffer that the solver object keeps for that argument and reuses at every set
    call: one copy of the entries, no allocation once the buffer has room for the largest nc
    seen. There are two buffers per argument, used in turn, so the data the library borrows stays
    intact when a set call fails. Build ``Jn``/``Jt`` with ``order="F"`` to skip the copy too.

  Vectors go through as they are when they are contiguous float64 (else they are converted).
  Shapes are checked before the library sees a pointer.
* **Borrowing.** Problem data is borrowed, not copied, by the library (Drake's rule): it is read
  at the set call and again at every later solve. The solver object keeps a reference to every
  array it passed (the caller's own arrays when no copy was needed) until the next successful set
  call, :meth:`TamsiSolver.resize` or :meth:`TamsiSolver.close`, so garbage collection cannot free
  them. Changing the caller's arrays in place between the set call and a solve changes the
  problem, as in Drake (not for copied matrices, which are snapshots); pass ``copy=True`` to the
  setters to snapshot all the data instead.
* **Errors.** Usage errors (status >= 100: NULL pointers, wrong sizes, bad parameters, solving
  without data, ...) raise :class:`ContactSolversError`, which carries the :class:`Status` and the
  library's message. Solver outcomes are returned, not raised: ``solve_with_guess`` returns a
  :class:`TamsiSolverResult`, as Drake's ``SolveWithGuess`` does.
* **Handles** are freed by :meth:`close`, by leaving a ``with`` block, or by ``__del__``.
* **Threads.** ctypes releases the GIL during library calls, so solvers really do run in
  parallel from Python threads. One solver must not be used by two threads at once; distinct
  solvers are independent (:meth:`TamsiSolver.clone` makes per-thread copies).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import enum
import math
import os
import sys
from pathlib import Path

import numpy as np

__all__ = [
    "ABI_VERSION",
    "ContactSolversError",
    "IpmContactModel",
    "IpmNewtonSolve",
    "IpmOutcome",
    "IpmSensitivityParameter",
    "IpmSolver",
    "IpmSolverParameters",
    "IpmSolverStats",
    "Library",
    "Status",
    "TamsiSolver",
    "TamsiSolverIterationStats",
    "TamsiSolverParameters",
    "TamsiSolverResult",
    "abi_version",
    "calc_alpha",
    "load_library",
    "status_string",
    "version",
]

#: The ABI version this module was written against (``CTS_ABI_VERSION`` of the header).
ABI_VERSION = 2


class Status(enum.IntEnum):
    """``cts_status``: every fallible C function returns one (``docs/c_api.md`` §2)."""

    OK = 0
    MAX_ITERATIONS_REACHED = 1
    LINEAR_SOLVER_FAILED = 2
    ALPHA_SOLVER_FAILED = 3
    NON_FINITE_RESULT = 4
    IPM_MAX_ITERATIONS_REACHED = 41
    IPM_NON_FINITE_STEP = 42
    IPM_ALMOST_CONVERGED = 43
    IPM_STALLED = 44
    NULL_POINTER = 100
    INVALID_ARGUMENT = 101
    DIMENSION_MISMATCH = 102
    NO_PROBLEM_DATA = 103
    WRONG_COUPLING_SCHEME = 104
    NO_SOLUTION = 105
    ALLOCATION_FAILED = 106
    NO_SENSITIVITIES = 107
    PANIC = 199


class TamsiSolverResult(enum.IntEnum):
    """Drake's ``TamsiSolverResult``: the outcome of a TAMSI solve, same names and values."""

    kSuccess = 0
    kMaxIterationsReached = 1
    kLinearSolverFailed = 2
    kAlphaSolverFailed = 3


class ContactSolversError(RuntimeError):
    """A usage error reported by the library (or found by this module before calling it).

    ``status`` is the :class:`Status` (or the raw int for a value this module does not know),
    ``message`` the library's detail (``cts_*_last_error``).
    """

    def __init__(self, status: int, message: str):
        try:
            status = Status(status)
        except ValueError:
            pass
        self.status = status
        self.message = message
        name = status.name if isinstance(status, Status) else str(int(status))
        super().__init__(f"{name}: {message}" if message else name)


# --------------------------------------------------------------------------------------------
# Loading the library and declaring its functions
# --------------------------------------------------------------------------------------------

#: ``double *`` arguments are declared ``void *`` and passed as addresses (ints), see :func:`_ptr`.
_c_double_p = ctypes.c_void_p
_c_size_t_p = ctypes.POINTER(ctypes.c_size_t)


class _TamsiHandle(ctypes.Structure):
    """Opaque ``cts_tamsi_solver``."""


_TamsiHandleP = ctypes.POINTER(_TamsiHandle)


class _TamsiParameters(ctypes.Structure):
    """``cts_tamsi_parameters``."""

    _fields_ = [
        ("stiction_tolerance", ctypes.c_double),
        ("max_iterations", ctypes.c_int32),
        ("relative_tolerance", ctypes.c_double),
        ("theta_max", ctypes.c_double),
    ]


class _BlockSparseData(ctypes.Structure):
    """``cts_block_sparse_data``: the block-sparse (per-tree) form of M and the contact
    Jacobians."""

    _fields_ = [
        ("num_trees", ctypes.c_size_t),
        ("tree_dofs", ctypes.POINTER(ctypes.c_int32)),
        ("M_len", ctypes.c_size_t),
        ("M", _c_double_p),
        ("num_contacts", ctypes.c_size_t),
        ("contact_trees", ctypes.POINTER(ctypes.c_int32)),
        ("J_len", ctypes.c_size_t),
        ("J", _c_double_p),
    ]


class _TamsiIterationStats(ctypes.Structure):
    """``cts_tamsi_iteration_stats``."""

    _fields_ = [("num_iterations", ctypes.c_int32), ("vt_residual", ctypes.c_double)]


class _IpmHandle(ctypes.Structure):
    """Opaque ``cts_ipm_solver``."""


_IpmHandleP = ctypes.POINTER(_IpmHandle)


class _IpmParameters(ctypes.Structure):
    """``cts_ipm_parameters``."""

    _fields_ = [
        ("rtol", ctypes.c_double),
        ("btol", ctypes.c_double),
        ("max_iter", ctypes.c_int32),
        ("max_ls", ctypes.c_int32),
        ("undercut", ctypes.c_double),
        ("no_progress_max", ctypes.c_int32),
        ("no_progress_undercut", ctypes.c_double),
        ("dojo_lagged_kappa", ctypes.c_int32),
        ("fixed_kappa", ctypes.c_double),
        ("warm_start", ctypes.c_int32),
        ("newton_solve", ctypes.c_int32),
        ("rvio_floor_in_backtracking", ctypes.c_int32),
        ("dojo_compatible", ctypes.c_int32),
        ("tolerance", ctypes.c_double),
        ("complementarity_tolerance", ctypes.c_double),
        ("centrality_correctors", ctypes.c_int32),
        ("proximal_regularization", ctypes.c_double),
        ("normal_compliance", ctypes.c_double),
        ("stall_iterations", ctypes.c_int32),
    ]


class _IpmStats(ctypes.Structure):
    """``cts_ipm_stats``."""

    _fields_ = [
        ("status", ctypes.c_int32),
        ("iterations", ctypes.c_int32),
        ("rvio", ctypes.c_double),
        ("bvio", ctypes.c_double),
        ("kappa", ctypes.c_double),
        ("line_search_exhausted", ctypes.c_int32),
        ("boundary_hits", ctypes.c_int32),
        ("residual", ctypes.c_double),
        ("complementarity", ctypes.c_double),
        ("merit", ctypes.c_double),
        ("momentum_scale", ctypes.c_double),
        ("velocity_scale", ctypes.c_double),
        ("centrality_correctors", ctypes.c_int32),
    ]


def _shared_library_name() -> str:
    if sys.platform == "darwin":
        return "libcontact_solvers.dylib"
    if sys.platform == "win32":
        return "contact_solvers.dll"
    return "libcontact_solvers.so"


def _candidates() -> list[str]:
    env = os.environ.get("CONTACT_SOLVERS_LIB")
    if env:
        return [env]  # explicit: no silent fallback to another build
    root = Path(__file__).resolve().parents[2]  # examples_c/python/ -> repository
    found = [str(root / "target" / p / _shared_library_name()) for p in ("release", "debug")]
    found = [p for p in found if os.path.exists(p)]
    system = ctypes.util.find_library("contact_solvers")
    if system:
        found.append(system)
    return found


class Library:
    """The loaded shared library with its functions declared (argument and result types).

    Most code never touches this class: :func:`load_library` makes one and caches it, and the
    solvers use it. Its attributes ``cts_*`` are the C functions.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        self._dll = ctypes.CDLL(self.path)
        self._declare_common()
        self._declare_tamsi()
        self._declare_ipm()
        abi = self.cts_abi_version()
        if abi != ABI_VERSION:
            raise ContactSolversError(
                Status.INVALID_ARGUMENT,
                f"{self.path}: ABI version {abi}, this module expects {ABI_VERSION}",
            )

    def _fn(self, name: str, restype, argtypes):
        f = getattr(self._dll, name)
        f.restype = restype
        f.argtypes = argtypes
        setattr(self, name, f)

    def _declare_common(self):
        self._fn("cts_version", ctypes.c_char_p, [])
        self._fn("cts_abi_version", ctypes.c_uint32, [])
        self._fn("cts_status_string", ctypes.c_char_p, [ctypes.c_int32])
        self._fn("cts_last_error_message", ctypes.c_char_p, [])

    def _declare_tamsi(self):
        st, sz, dp, h = ctypes.c_int32, ctypes.c_size_t, _c_double_p, _TamsiHandleP
        self._fn("cts_tamsi_parameters_default", None, [ctypes.POINTER(_TamsiParameters)])
        self._fn("cts_tamsi_solver_new", st, [sz, ctypes.POINTER(h)])
        self._fn("cts_tamsi_solver_free", None, [h])
        self._fn("cts_tamsi_solver_clone", st, [h, ctypes.POINTER(h)])
        self._fn("cts_tamsi_solver_resize", st, [h, sz])
        self._fn("cts_tamsi_solver_set_parameters", st, [h, ctypes.POINTER(_TamsiParameters)])
        self._fn("cts_tamsi_solver_get_parameters", st, [h, ctypes.POINTER(_TamsiParameters)])
        self._fn(
            "cts_tamsi_solver_set_one_way_coupled_problem_data",
            st,
            [h, sz, dp, sz, dp, sz, dp, sz, dp, dp, dp],
        )
        self._fn(
            "cts_tamsi_solver_set_two_way_coupled_problem_data",
            st,
            [h, sz, dp, sz, dp, sz, dp, sz, dp, dp, dp, dp, dp],
        )
        bsd = ctypes.POINTER(_BlockSparseData)
        self._fn(
            "cts_tamsi_solver_set_one_way_coupled_block_problem_data", st, [h, bsd, dp, dp, dp]
        )
        self._fn(
            "cts_tamsi_solver_set_two_way_coupled_block_problem_data",
            st,
            [h, bsd, dp, dp, dp, dp, dp],
        )
        self._fn("cts_tamsi_solver_solve_with_guess", st, [h, ctypes.c_double, dp, sz])
        for name in _TAMSI_VECTOR_GETTERS.values():
            self._fn(name, st, [h, dp, sz])
        self._fn(
            "cts_tamsi_solver_get_iteration_stats", st, [h, ctypes.POINTER(_TamsiIterationStats)]
        )
        self._fn("cts_tamsi_solver_get_residuals", st, [h, dp, sz, _c_size_t_p])
        self._fn("cts_tamsi_solver_num_velocities", sz, [h])
        self._fn("cts_tamsi_solver_num_contacts", sz, [h])
        self._fn("cts_tamsi_solver_last_error", ctypes.c_char_p, [h])
        self._fn(
            "cts_tamsi_calc_alpha",
            st,
            [dp, dp, ctypes.c_double, ctypes.c_double, ctypes.c_double, dp],
        )
        self._fn("cts_tamsi_solver_calc_jacobian", st, [h, ctypes.c_double, dp, sz, dp, sz])
        # Sensitivities (docs/tamsi_sensitivities.md).
        self._fn("cts_tamsi_solver_coupling_scheme", st, [h])
        self._fn("cts_tamsi_solver_compute_sensitivities", st, [h])
        for name in _TAMSI_SENSITIVITY_GETTERS.values():
            self._fn(name, st, [h, st, dp, sz, sz])
        self._fn("cts_tamsi_solver_vjp", st, [h, dp, sz, dp, dp, sz, dp, dp, dp, dp, dp, dp])

    def _declare_ipm(self):
        st, sz, dp, h = ctypes.c_int32, ctypes.c_size_t, _c_double_p, _IpmHandleP
        self._fn("cts_ipm_parameters_default", None, [ctypes.POINTER(_IpmParameters)])
        self._fn("cts_ipm_solver_new", st, [ctypes.POINTER(h)])
        self._fn("cts_ipm_solver_free", None, [h])
        self._fn("cts_ipm_solver_clone", st, [h, ctypes.POINTER(h)])
        self._fn("cts_ipm_solver_set_parameters", st, [h, ctypes.POINTER(_IpmParameters)])
        self._fn("cts_ipm_solver_get_parameters", st, [h, ctypes.POINTER(_IpmParameters)])
        self._fn("cts_ipm_solver_set_contact_ids", st, [h, ctypes.POINTER(ctypes.c_uint64), sz])
        self._fn(
            "cts_ipm_solver_set_problem_data",
            st,
            [h, sz, sz, dp, sz, dp, sz, dp, sz, dp, dp, ctypes.c_double, dp, dp,
             ctypes.POINTER(ctypes.c_int32), dp, sz],
        )
        self._fn(
            "cts_ipm_solver_set_block_problem_data",
            st,
            [h, ctypes.POINTER(_BlockSparseData), dp, dp, ctypes.c_double, dp, dp,
             ctypes.POINTER(ctypes.c_int32), dp, sz],
        )
        self._fn("cts_ipm_solver_solve", st, [h])
        self._fn("cts_ipm_solver_solve_with_guess", st, [h, dp, sz])
        for name in _IPM_VECTOR_GETTERS.values():
            self._fn(name, st, [h, dp, sz])
        self._fn("cts_ipm_solver_num_cone_variables", sz, [h])
        self._fn("cts_ipm_solver_get_stats", st, [h, ctypes.POINTER(_IpmStats)])
        for name in _IPM_HISTORIES.values():
            self._fn(name, st, [h, dp, sz, _c_size_t_p])
        self._fn("cts_ipm_solver_compute_sensitivities", st, [h])
        self._fn("cts_ipm_solver_get_velocity_sensitivity", st, [h, ctypes.c_int32, dp, sz, sz])
        self._fn("cts_ipm_solver_get_impulse_sensitivity", st, [h, ctypes.c_int32, dp, sz, sz])
        self._fn("cts_ipm_solver_num_velocities", sz, [h])
        self._fn("cts_ipm_solver_num_contacts", sz, [h])
        self._fn("cts_ipm_solver_last_error", ctypes.c_char_p, [h])

    def last_error_message(self) -> str:
        """``cts_last_error_message()``: detail of the last failure without a handle."""
        return self.cts_last_error_message().decode("utf-8", "replace")


_default_library: Library | None = None


def load_library(path: str | os.PathLike | None = None) -> Library:
    """Loads libcontact_solvers.

    With ``path``, that file (a new :class:`Library` each call). Without, the cached default:
    ``CONTACT_SOLVERS_LIB``, then ``target/release`` and ``target/debug`` of this repository,
    then the system's search path.
    """
    global _default_library
    if path is not None:
        return Library(path)
    if _default_library is None:
        candidates = _candidates()
        if not candidates:
            raise OSError(
                "libcontact_solvers not found: set CONTACT_SOLVERS_LIB to its path, build it "
                "with `cargo build --release`, or install it (`make install`)"
            )
        _default_library = Library(candidates[0])
    return _default_library


def _library(library: Library | str | os.PathLike | None) -> Library:
    if isinstance(library, Library):
        return library
    return load_library(library)


def version(library: Library | str | os.PathLike | None = None) -> str:
    """``cts_version()``: the library's version, e.g. ``"0.2.0"``."""
    return _library(library).cts_version().decode()


def abi_version(library: Library | str | os.PathLike | None = None) -> int:
    """``cts_abi_version()``."""
    return int(_library(library).cts_abi_version())


def status_string(status: int, library: Library | str | os.PathLike | None = None) -> str:
    """``cts_status_string(status)``: the library's name for any status value."""
    return _library(library).cts_status_string(int(status)).decode()


# --------------------------------------------------------------------------------------------
# Arrays
# --------------------------------------------------------------------------------------------


_ITEM = np.dtype(np.float64).itemsize


def _ptr(a: np.ndarray) -> int:
    """The address of ``a``'s first element, for a ``double *`` (``void *``) argument.

    ``a.ctypes`` builds a helper object on every access (2-4 µs, six times per set call); a
    ctypes view of a writable contiguous buffer gives the same address in a fraction of that.
    """
    if a.flags.writeable and a.size:
        if a.flags.c_contiguous:
            return ctypes.addressof(ctypes.c_char.from_buffer(a))
        if a.flags.f_contiguous:
            return ctypes.addressof(ctypes.c_char.from_buffer(a.T))
    return a.ctypes.data


class _Reused:
    """Column-major float64 storage for one matrix argument of one solver object, reused by every
    set call that must convert that argument: two buffers used in turn (the one the library
    borrows is never overwritten, so a failed set call leaves the borrowed data intact), each
    grown to the largest row count seen."""

    __slots__ = ("_buffers", "_addresses", "_next")

    def __init__(self):
        self._buffers: list = [None, None]
        self._addresses = [0, 0]
        self._next = 0

    def fill(self, a: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, int, int]:
        """Copies ``a`` (rows×cols) into the free buffer: (the view, its ld, its address)."""
        i = self._next
        buf = self._buffers[i]
        if buf is None or buf.shape[1] != cols or buf.shape[0] < rows:
            room = max(rows, 1 if buf is None or buf.shape[1] != cols else buf.shape[0])
            buf = np.empty((room, cols), dtype=np.float64, order="F")
            self._buffers[i], self._addresses[i] = buf, buf.ctypes.data
        view = buf[:rows]
        np.copyto(view, a, casting="unsafe")  # as np.array(a, dtype=float64) converts
        return view, buf.shape[0], self._addresses[i]

    def commit(self) -> None:
        """The set call succeeded: the library now borrows the buffer just filled."""
        self._next ^= 1


def _matrix(x, rows: int, cols: int, name: str, copy: bool, reused: _Reused,
            symmetric: bool = False) -> tuple[np.ndarray, int, int, bool]:
    """A float64 matrix the library can read column-major: (the array to keep alive, its leading
    dimension, its address, whether ``reused`` was filled).

    No copy for a float64 array whose columns are contiguous with a column stride of ``ld >=
    rows`` doubles (Fortran order, or a row block of a Fortran-ordered array), nor, when the
    matrix is ``symmetric`` (square by shape), for one whose rows are (C order, or a column block
    of a C-ordered array): its transpose is read, which is the matrix itself. Otherwise (or with
    ``copy``) a copy into ``reused``.
    """
    a = np.asarray(x)
    if a.ndim != 2 or a.shape != (rows, cols):
        raise ContactSolversError(
            Status.DIMENSION_MISMATCH, f"{name}: shape {a.shape}, expected ({rows}, {cols})"
        )
    if not copy and a.dtype == np.float64 and a.dtype.isnative and a.flags.aligned:
        s0, s1 = a.strides
        if rows > 0 and cols > 0:
            if (s0 == _ITEM or rows == 1) and s1 % _ITEM == 0 and s1 // _ITEM >= rows:
                return a, s1 // _ITEM, _ptr(a), False
            if symmetric and (s1 == _ITEM or cols == 1) and s0 % _ITEM == 0 and s0 // _ITEM >= cols:
                return a, s0 // _ITEM, _ptr(a), False
        elif a.flags.f_contiguous:
            return a, max(1, rows), _ptr(a), False  # empty
    view, ld, address = reused.fill(a, rows, cols)
    return view, ld, address, True


def _vector(x, n: int, name: str, copy: bool) -> np.ndarray:
    """A contiguous float64 vector of length ``n`` (copied when it is not one, or with ``copy``)."""
    a = np.asarray(x)
    if a.ndim != 1 or a.shape[0] != n:
        raise ContactSolversError(
            Status.DIMENSION_MISMATCH, f"{name}: shape {a.shape}, expected ({n},)"
        )
    if copy or a.dtype != np.float64 or not a.dtype.isnative or not a.flags.c_contiguous:
        a = np.array(a, dtype=np.float64, copy=True)
    return a


def _packed(x, name: str, copy: bool) -> np.ndarray:
    """Packed float64 values of a block-sparse array: a 1-D array (used as it is when it is a
    contiguous float64 array, else copied once), or a sequence of 2-D blocks (each flattened
    column-major, in order, into one new array)."""
    if isinstance(x, (list, tuple)):
        parts = [np.asarray(b, dtype=np.float64) for b in x]
        for k, b in enumerate(parts):
            if b.ndim != 2:
                raise ContactSolversError(
                    Status.DIMENSION_MISMATCH, f"{name}[{k}]: shape {b.shape}, expected a 2-D block"
                )
        if not parts:
            return np.zeros(0)
        return np.concatenate([b.ravel(order="F") for b in parts])
    a = np.asarray(x)
    if a.ndim != 1:
        raise ContactSolversError(
            Status.DIMENSION_MISMATCH,
            f"{name}: shape {a.shape}, expected a 1-D packed array or a list of 2-D blocks",
        )
    if copy or a.dtype != np.float64 or not a.dtype.isnative or not a.flags.c_contiguous:
        a = np.array(a, dtype=np.float64, copy=True)
    return a


def _int32_array(x, name: str, copy: bool) -> np.ndarray:
    """A contiguous int32 array (used as it is when it is one, else converted after checking that
    every entry is an integer in int32's range), flattened in C order (an (nc, 2) array of
    contact trees becomes [a0, b0, a1, b1, ...] without a copy)."""
    a = np.asarray(x)
    if a.size == 0:
        return np.zeros(0, dtype=np.int32)
    if a.dtype == np.int32 and a.dtype.isnative and a.flags.c_contiguous and not copy:
        return a.reshape(-1)
    if a.dtype.kind not in "iub" and not (
        a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a))
    ):
        raise ContactSolversError(Status.INVALID_ARGUMENT, f"{name}: entries must be integers")
    if np.any(a < -(2**31)) or np.any(a >= 2**31):
        raise ContactSolversError(Status.INVALID_ARGUMENT, f"{name}: entries must fit in int32")
    return np.ascontiguousarray(a, dtype=np.int32).reshape(-1).copy()


def _block_sparse_data(tree_dofs, M_blocks, contact_trees, J_blocks, copy: bool):
    """``cts_block_sparse_data`` over the given arrays: (the struct, the arrays it points into,
    to be kept alive while the library borrows them, nc)."""
    trees = _int32_array(tree_dofs, "tree_dofs", copy)
    ct = np.asarray(contact_trees)
    if ct.size and not (ct.ndim == 2 and ct.shape[1] == 2) and not (
        ct.ndim == 1 and ct.shape[0] % 2 == 0
    ):
        raise ContactSolversError(
            Status.DIMENSION_MISMATCH,
            f"contact_trees: shape {ct.shape}, expected (nc, 2) or (2*nc,)",
        )
    ct = _int32_array(ct, "contact_trees", copy)
    nc = ct.shape[0] // 2
    m = _packed(M_blocks, "M_blocks", copy)
    j = _packed(J_blocks, "J_blocks", copy)
    data = _BlockSparseData(
        trees.shape[0], trees.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
        m.shape[0], _ptr(m),
        nc, ct.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
        j.shape[0], _ptr(j),
    )
    return data, (trees, m, ct, j), nc


def _int32(name: str, value) -> int:
    """An int32 struct field from an integer-valued Python number."""
    if int(value) != value or not -(2**31) <= value < 2**31:
        raise ContactSolversError(Status.INVALID_ARGUMENT, f"{name} = {value} is not an int32")
    return int(value)


# --------------------------------------------------------------------------------------------
# TAMSI
# --------------------------------------------------------------------------------------------

_TAMSI_VECTOR_GETTERS = {
    "generalized_velocities": "cts_tamsi_solver_get_generalized_velocities",
    "normal_velocities": "cts_tamsi_solver_get_normal_velocities",
    "tangential_velocities": "cts_tamsi_solver_get_tangential_velocities",
    "normal_forces": "cts_tamsi_solver_get_normal_forces",
    "friction_forces": "cts_tamsi_solver_get_friction_forces",
    "generalized_friction_forces": "cts_tamsi_solver_get_generalized_friction_forces",
    "generalized_contact_forces": "cts_tamsi_solver_get_generalized_contact_forces",
}


_TAMSI_SENSITIVITY_GETTERS = {
    "velocity": "cts_tamsi_solver_get_velocity_sensitivity",
    "normal_force": "cts_tamsi_solver_get_normal_force_sensitivity",
    "friction_force": "cts_tamsi_solver_get_friction_force_sensitivity",
}


class TamsiSensitivityParameter(enum.IntEnum):
    """A parameter θ of TAMSI sensitivities (``CTS_TAMSI_SENSITIVITY_*``), with its columns."""

    kPStar = 0  # nv columns, N·s
    kNormalForce = 1  # nc columns, N (one-way data)
    kFn0 = 2  # nc columns, N (two-way data)
    kStiffness = 3  # nc columns, N/m (two-way data)
    kDissipation = 4  # nc columns, s/m (two-way data)
    kMu = 5  # nc columns
    kTimeStep = 6  # 1 column, s (p* held fixed)


@dataclasses.dataclass
class TamsiGradient:
    """∂L/∂θ of a scalar L of a TAMSI solve's results (:meth:`TamsiSolver.vjp`), in
    (unit of L)/(unit of θ)."""

    #: ∂L/∂p* (nv).
    p_star: np.ndarray
    #: ∂L/∂fn of one-way data, ∂L/∂fn0 of two-way data (nc).
    normal: np.ndarray
    #: ∂L/∂k (nc) of two-way data; None for one-way data.
    stiffness: np.ndarray | None
    #: ∂L/∂d (nc) of two-way data; None for one-way data.
    dissipation: np.ndarray | None
    #: ∂L/∂μ (nc).
    mu: np.ndarray
    #: ∂L/∂dt at fixed p*.
    dt: float


@dataclasses.dataclass
class TamsiSolverParameters:
    """Drake's ``TamsiSolverParameters`` (defaults are Drake's); validated when set."""

    #: vs, m/s, > 0: the slip speed at which friction saturates.
    stiction_tolerance: float = 1.0e-4
    #: Maximum number of Newton updates, >= 0.
    max_iterations: int = 100
    #: rtol in (0, 1): convergence when the velocity updates drop below rtol·vs.
    relative_tolerance: float = 1.0e-2
    #: Largest change of a slip direction per iteration, rad, in (0, pi/2).
    theta_max: float = math.pi / 3.0


@dataclasses.dataclass
class TamsiSolverIterationStats:
    """Drake's ``TamsiSolverIterationStats``."""

    #: Newton updates performed in the last solve.
    num_iterations: int
    #: ‖Δvt‖ of each update, m/s.
    residuals: np.ndarray

    @property
    def vt_residual(self) -> float:
        """The last entry of ``residuals`` (NaN when there is none)."""
        return float(self.residuals[-1]) if len(self.residuals) else math.nan


class _SolverHandle:
    """What every solver object shares: the owned C handle of ``cts_<name>_solver_*`` (freed by
    :meth:`close`, a ``with`` block or the garbage collector), the borrowed arrays kept alive
    beside it, and the error channel. Subclasses set ``_name`` and ``_handle_p``."""

    _name: str
    _handle_p: type

    def _fn(self, suffix: str):
        """The C function ``cts_<name>_solver_<suffix>``."""
        return getattr(self._lib, f"cts_{self._name}_solver_{suffix}")

    @classmethod
    def _adopt(cls, library: Library, handle):
        self = cls.__new__(cls)
        self._lib = library
        self._handle = handle
        self._borrowed = ()
        self._reused = {}
        return self

    def _matrices(self, specs, copy: bool):
        """``_matrix`` for each ``(name, x, rows, cols, symmetric)``, with this object's reused
        buffers: [(array, ld, address)] and the buffers filled (to commit after success)."""
        out, filled = [], []
        for name, x, rows, cols, symmetric in specs:
            reused = self._reused.get(name)
            if reused is None:
                reused = self._reused[name] = _Reused()
            a, ld, address, used = _matrix(x, rows, cols, name, copy, reused, symmetric)
            out.append((a, ld, address))
            if used:
                filled.append(reused)
        return out, filled

    # -- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        """Frees the C handle (``cts_<name>_solver_free``) and drops the borrowed arrays.

        Idempotent; any later call on this object raises :class:`ContactSolversError`.
        """
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._fn("free")(handle)
        self._borrowed = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: ctypes may already be gone
            pass

    @property
    def closed(self) -> bool:
        return not self._handle

    def _h(self):
        if not self._handle:
            raise ContactSolversError(Status.NULL_POINTER, "the solver is closed")
        return self._handle

    def _check(self, status: int) -> None:
        if status != Status.OK:
            raise ContactSolversError(status, self.last_error())

    def last_error(self) -> str:
        """``cts_<name>_solver_last_error``: detail of the last call that did not return OK."""
        return self._fn("last_error")(self._h()).decode("utf-8", "replace")

    def clone(self):
        """A deep copy of the parameters and workspace, without problem data (for a thread)."""
        out = self._handle_p()
        status = self._fn("clone")(self._h(), ctypes.byref(out))
        if status != Status.OK:
            raise ContactSolversError(status, self._lib.last_error_message())
        return type(self)._adopt(self._lib, out)


class TamsiSolver(_SolverHandle):
    """Drake's ``TamsiSolver<double>``: compliant contact with regularized friction.

    Solves ``M v = p* + dt·Jnᵀ fn + dt·Jtᵀ ft(v)`` for the next-step generalized velocities ``v``
    (``nv``), with ``nc`` contacts: ``fn`` given (one-way coupling) or
    ``fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊`` (two-way). ``M`` is nv×nv, ``Jn`` nc×nv, ``Jt``
    2nc×nv (two tangent rows per contact), the per-contact vectors have nc entries. SI units,
    forces in N. See the module docstring for the array, borrowing and error rules.
    """

    _name = "tamsi"
    _handle_p = _TamsiHandleP

    def __init__(self, nv: int, library: Library | str | os.PathLike | None = None):
        self._lib = _library(library)
        self._handle = None
        self._borrowed: tuple = ()
        self._reused: dict = {}
        if int(nv) < 0:
            raise ContactSolversError(Status.INVALID_ARGUMENT, f"nv = {nv} < 0")
        handle = _TamsiHandleP()
        status = self._lib.cts_tamsi_solver_new(int(nv), ctypes.byref(handle))
        if status != Status.OK:
            raise ContactSolversError(status, self._lib.last_error_message())
        self._handle = handle

    def resize(self, nv: int) -> None:
        """Changes nv (> 0), as Drake's ``ResizeIfNeeded``; drops problem data and results."""
        if int(nv) < 0:
            raise ContactSolversError(Status.INVALID_ARGUMENT, f"nv = {nv} < 0")
        self._check(self._lib.cts_tamsi_solver_resize(self._h(), int(nv)))
        self._borrowed = ()

    # -- sizes and parameters -----------------------------------------------------------------

    @property
    def num_velocities(self) -> int:
        return int(self._lib.cts_tamsi_solver_num_velocities(self._h()))

    @property
    def num_contacts(self) -> int:
        """nc of the current problem data (0 without data)."""
        return int(self._lib.cts_tamsi_solver_num_contacts(self._h()))

    def set_solver_parameters(self, parameters: TamsiSolverParameters) -> None:
        """Validates and sets the parameters (raises ``INVALID_ARGUMENT``, nothing changed)."""
        c = _TamsiParameters()
        self._lib.cts_tamsi_parameters_default(ctypes.byref(c))
        c.stiction_tolerance = float(parameters.stiction_tolerance)
        c.max_iterations = _int32("max_iterations", parameters.max_iterations)
        c.relative_tolerance = float(parameters.relative_tolerance)
        c.theta_max = float(parameters.theta_max)
        self._check(self._lib.cts_tamsi_solver_set_parameters(self._h(), ctypes.byref(c)))

    def get_solver_parameters(self) -> TamsiSolverParameters:
        c = _TamsiParameters()
        self._check(self._lib.cts_tamsi_solver_get_parameters(self._h(), ctypes.byref(c)))
        return TamsiSolverParameters(
            c.stiction_tolerance, int(c.max_iterations), c.relative_tolerance, c.theta_max
        )

    # -- problem data (borrowed) --------------------------------------------------------------

    def _problem_arrays(self, M, Jn, Jt, p_star, per_contact, copy):
        nv = self.num_velocities
        first_name, first = per_contact[0]
        nc = np.asarray(first).shape[0] if np.ndim(first) == 1 else -1
        if nc < 0:
            raise ContactSolversError(
                Status.DIMENSION_MISMATCH, f"{first_name}: shape {np.shape(first)}, expected (nc,)"
            )
        mats, filled = self._matrices(
            [("M", M, nv, nv, True), ("Jn", Jn, nc, nv, False), ("Jt", Jt, 2 * nc, nv, False)], copy
        )
        vecs = [_vector(p_star, nv, "p_star", copy)]
        vecs += [_vector(x, nc, name, copy) for name, x in per_contact]
        return nc, mats, vecs, filled

    def set_one_way_coupled_problem_data(self, M, Jn, Jt, p_star, fn, mu, *, copy=False) -> None:
        """Drake's ``SetOneWayCoupledProblemData``: normal forces ``fn`` (N) given.

        ``M`` nv×nv (kg), ``Jn`` nc×nv, ``Jt`` 2nc×nv, ``p_star`` nv (N·s), ``fn`` and ``mu`` nc;
        nc is ``len(fn)``. Borrowed (see the module docstring); ``copy=True`` snapshots them.
        On an error the previous data stays set.
        """
        nc, mats, vecs, filled = self._problem_arrays(
            M, Jn, Jt, p_star, [("fn", fn), ("mu", mu)], copy
        )
        (m, ld_m, pm), (jn, ld_jn, pjn), (jt, ld_jt, pjt) = mats
        self._check(
            self._lib.cts_tamsi_solver_set_one_way_coupled_problem_data(
                self._h(), nc, pm, ld_m, pjn, ld_jn, pjt, ld_jt, *[_ptr(v) for v in vecs],
            )
        )
        # Only now: a failed call keeps the old borrow (and the buffers it reads).
        self._borrowed = (m, jn, jt, *vecs)
        for reused in filled:
            reused.commit()

    def set_two_way_coupled_problem_data(
        self, M, Jn, Jt, p_star, fn0, stiffness, dissipation, mu, *, copy=False
    ) -> None:
        """Drake's ``SetTwoWayCoupledProblemData``: ``fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊``.

        As the one-way call, with ``fn0`` (N), ``stiffness`` k (N/m), ``dissipation`` d (s/m)
        and ``mu``, nc each; nc is ``len(fn0)``. Borrowed.
        """
        per_contact = [("fn0", fn0), ("stiffness", stiffness), ("dissipation", dissipation),
                       ("mu", mu)]
        nc, mats, vecs, filled = self._problem_arrays(M, Jn, Jt, p_star, per_contact, copy)
        (m, ld_m, pm), (jn, ld_jn, pjn), (jt, ld_jt, pjt) = mats
        self._check(
            self._lib.cts_tamsi_solver_set_two_way_coupled_problem_data(
                self._h(), nc, pm, ld_m, pjn, ld_jn, pjt, ld_jt, *[_ptr(v) for v in vecs],
            )
        )
        self._borrowed = (m, jn, jt, *vecs)
        for reused in filled:
            reused.commit()

    def _block_arrays(self, tree_dofs, M_blocks, contact_trees, J_blocks, p_star, per_contact, copy):
        """The struct and the arrays of a block-sparse set call (kept alive by the caller)."""
        data, keep, nc = _block_sparse_data(tree_dofs, M_blocks, contact_trees, J_blocks, copy)
        vecs = [_vector(p_star, self.num_velocities, "p_star", copy)]
        vecs += [_vector(x, nc, name, copy) for name, x in per_contact]
        return data, (*keep, *vecs), vecs

    def set_one_way_coupled_block_problem_data(
        self, tree_dofs, M_blocks, contact_trees, J_blocks, p_star, fn, mu, *, copy=False
    ) -> None:
        """One-way data in **block-sparse form** (``cts_block_sparse_data``, see
        ``docs/block_sparse.md``): the velocities split into trees, M one dense block per tree,
        each contact's rows (normal, tangent 1, tangent 2) one 3×n_t block per tree it touches.

        ``tree_dofs``: ntree ints >= 1 (summing to nv). ``M_blocks``: the trees' n_t×n_t blocks
        of M, as a list of 2-D arrays or packed (each block column-major, back to back) in a 1-D
        array. ``contact_trees``: an (nc, 2) int array (or flat 2nc), the trees of each contact,
        -1 for a static side. ``J_blocks``: per contact, its 3×n_t blocks in the order of its
        trees, as a list of 2-D arrays or packed column-major in a 1-D array. ``p_star`` nv
        (N·s), ``fn`` and ``mu`` nc. No copy is made of contiguous int32 index arrays, 1-D
        contiguous float64 packed arrays and contiguous float64 vectors; anything else is
        converted once. Borrowed as the dense data; on an error the previous data stays set.
        """
        data, keep, vecs = self._block_arrays(
            tree_dofs, M_blocks, contact_trees, J_blocks, p_star, [("fn", fn), ("mu", mu)], copy
        )
        self._check(
            self._lib.cts_tamsi_solver_set_one_way_coupled_block_problem_data(
                self._h(), ctypes.byref(data), *[_ptr(v) for v in vecs]
            )
        )
        self._borrowed = keep

    def set_two_way_coupled_block_problem_data(
        self, tree_dofs, M_blocks, contact_trees, J_blocks, p_star, fn0, stiffness, dissipation,
        mu, *, copy=False,
    ) -> None:
        """Two-way data in block-sparse form: as :meth:`set_one_way_coupled_block_problem_data`
        with ``fn0`` (N), ``stiffness`` k (N/m), ``dissipation`` d (s/m) and ``mu``, nc each
        (``fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊``)."""
        per_contact = [("fn0", fn0), ("stiffness", stiffness), ("dissipation", dissipation),
                       ("mu", mu)]
        data, keep, vecs = self._block_arrays(
            tree_dofs, M_blocks, contact_trees, J_blocks, p_star, per_contact, copy
        )
        self._check(
            self._lib.cts_tamsi_solver_set_two_way_coupled_block_problem_data(
                self._h(), ctypes.byref(data), *[_ptr(v) for v in vecs]
            )
        )
        self._borrowed = keep

    # -- solving ------------------------------------------------------------------------------

    def solve_with_guess(self, dt: float, v_guess) -> TamsiSolverResult:
        """Drake's ``SolveWithGuess``: ``dt`` in s (finite, > 0), ``v_guess`` of length nv.

        Returns the outcome (``kSuccess`` or one of Drake's failure results, after which every
        getter holds values at the last iterate); raises on usage errors.
        """
        g = np.ascontiguousarray(v_guess, dtype=np.float64)
        if g.ndim != 1:
            raise ContactSolversError(
                Status.DIMENSION_MISMATCH, f"v_guess: shape {g.shape}, expected (nv,)"
            )
        status = self._lib.cts_tamsi_solver_solve_with_guess(
            self._h(), float(dt), _ptr(g), g.shape[0]
        )
        if Status.OK <= status <= Status.ALPHA_SOLVER_FAILED:
            return TamsiSolverResult(status)
        raise ContactSolversError(status, self.last_error())

    def _get(self, what: str, n: int) -> np.ndarray:
        out = np.empty(n, dtype=np.float64)
        self._check(getattr(self._lib, _TAMSI_VECTOR_GETTERS[what])(self._h(), _ptr(out), n))
        return out

    def get_generalized_velocities(self) -> np.ndarray:
        """v (nv; m/s or rad/s) of the last solve."""
        return self._get("generalized_velocities", self.num_velocities)

    def get_normal_velocities(self) -> np.ndarray:
        """vn = Jn v (nc; m/s, positive when separating)."""
        return self._get("normal_velocities", self.num_contacts)

    def get_tangential_velocities(self) -> np.ndarray:
        """vt = Jt v (2nc; m/s)."""
        return self._get("tangential_velocities", 2 * self.num_contacts)

    def get_normal_forces(self) -> np.ndarray:
        """fn (nc; N)."""
        return self._get("normal_forces", self.num_contacts)

    def get_friction_forces(self) -> np.ndarray:
        """ft (2nc; N)."""
        return self._get("friction_forces", 2 * self.num_contacts)

    def get_generalized_friction_forces(self) -> np.ndarray:
        """τ_f = Jtᵀ ft (nv; N or N·m)."""
        return self._get("generalized_friction_forces", self.num_velocities)

    def get_generalized_contact_forces(self) -> np.ndarray:
        """τ = Jtᵀ ft + Jnᵀ fn (nv; N or N·m)."""
        return self._get("generalized_contact_forces", self.num_velocities)

    def get_iteration_statistics(self) -> TamsiSolverIterationStats:
        """Number of Newton updates and the ‖Δvt‖ history of the last solve."""
        c = _TamsiIterationStats()
        self._check(self._lib.cts_tamsi_solver_get_iteration_stats(self._h(), ctypes.byref(c)))
        count = ctypes.c_size_t(0)
        self._check(
            self._lib.cts_tamsi_solver_get_residuals(self._h(), None, 0, ctypes.byref(count))
        )
        residuals = np.empty(count.value, dtype=np.float64)
        self._check(
            self._lib.cts_tamsi_solver_get_residuals(
                self._h(), _ptr(residuals), residuals.shape[0], ctypes.byref(count)
            )
        )
        return TamsiSolverIterationStats(int(c.num_iterations), residuals)

    def calc_jacobian(self, dt: float, v) -> np.ndarray:
        """The Newton Jacobian ∂R/∂v (nv×nv, Fortran-ordered) of the current problem at ``v``."""
        vv = np.ascontiguousarray(v, dtype=np.float64)
        if vv.ndim != 1:
            raise ContactSolversError(
                Status.DIMENSION_MISMATCH, f"v: shape {vv.shape}, expected (nv,)"
            )
        nv = self.num_velocities
        J = np.empty((nv, nv), dtype=np.float64, order="F")
        self._check(
            self._lib.cts_tamsi_solver_calc_jacobian(
                self._h(), float(dt), _ptr(vv), vv.shape[0], _ptr(J), max(1, nv)
            )
        )
        return J

    # -- sensitivities (docs/tamsi_sensitivities.md) ------------------------------------------

    @property
    def is_two_way_coupled(self) -> bool:
        """Whether the current problem data is two-way coupled (False without data)."""
        return self._lib.cts_tamsi_solver_coupling_scheme(self._h()) == 2

    def compute_sensitivities(self) -> None:
        """Full Jacobians of the last solve's v, fn and ft with respect to every parameter of its
        scheme, by implicit differentiation at the returned v (reads the borrowed data). Raises
        with ``Status.NO_SENSITIVITIES`` when the solve did not converge."""
        self._check(self._lib.cts_tamsi_solver_compute_sensitivities(self._h()))

    def _tamsi_sensitivity(self, what: str, rows: int, parameter) -> np.ndarray:
        p = TamsiSensitivityParameter(parameter)
        if p == TamsiSensitivityParameter.kPStar:
            cols = self.num_velocities
        elif p == TamsiSensitivityParameter.kTimeStep:
            cols = 1
        else:
            cols = self.num_contacts
        out = np.empty((rows, cols), dtype=np.float64, order="F")
        getter = getattr(self._lib, _TAMSI_SENSITIVITY_GETTERS[what])
        self._check(getter(self._h(), int(p), _ptr(out), max(1, rows), cols))
        return out

    def get_velocity_sensitivity(self, parameter: TamsiSensitivityParameter) -> np.ndarray:
        """∂v/∂θ (nv × columns of θ, Fortran-ordered) of the last :meth:`compute_sensitivities`."""
        return self._tamsi_sensitivity("velocity", self.num_velocities, parameter)

    def get_normal_force_sensitivity(self, parameter: TamsiSensitivityParameter) -> np.ndarray:
        """∂fn/∂θ (nc × columns of θ; N per unit of θ)."""
        return self._tamsi_sensitivity("normal_force", self.num_contacts, parameter)

    def get_friction_force_sensitivity(self, parameter: TamsiSensitivityParameter) -> np.ndarray:
        """∂ft/∂θ (2nc × columns of θ; N per unit of θ)."""
        return self._tamsi_sensitivity("friction_force", 2 * self.num_contacts, parameter)

    def vjp(self, dl_dv, dl_dfn=None, dl_dft=None) -> TamsiGradient:
        """Vector–Jacobian product at the last solution: ∂L/∂θ for every θ at once from ∂L/∂v
        (nv) and optionally ∂L/∂fn (nc) and ∂L/∂ft (2nc; None means zero). One transposed solve;
        needs no :meth:`compute_sensitivities`."""
        nv, nc = self.num_velocities, self.num_contacts
        g = _vector(dl_dv, nv, "dl_dv", copy=False)
        gfn = None if dl_dfn is None else _vector(dl_dfn, nc, "dl_dfn", copy=False)
        gft = None if dl_dft is None else _vector(dl_dft, 2 * nc, "dl_dft", copy=False)
        two_way = self.is_two_way_coupled
        p_star, normal, mu = np.empty(nv), np.empty(nc), np.empty(nc)
        k = np.empty(nc) if two_way else None
        d = np.empty(nc) if two_way else None
        dt = ctypes.c_double(0.0)
        opt = lambda a: None if a is None else _ptr(a)  # noqa: E731
        self._check(
            self._lib.cts_tamsi_solver_vjp(
                self._h(), _ptr(g), nv, opt(gfn), opt(gft), nc,
                _ptr(p_star), _ptr(normal), opt(k), opt(d), _ptr(mu), ctypes.byref(dt),
            )
        )
        return TamsiGradient(p_star, normal, k, d, mu, float(dt.value))


def calc_alpha(vt, dvt, cos_theta_max: float, stiction_tolerance: float,
               relative_tolerance: float,
               library: Library | str | os.PathLike | None = None) -> float | None:
    """Drake's ``internal::TalsLimiter::CalcAlpha`` for one contact (2-vectors).

    Returns α, or ``None`` where Drake returns ``nullopt`` (no solution); raises on usage errors.
    """
    lib = _library(library)
    a = _vector(vt, 2, "vt", False)
    b = _vector(dvt, 2, "dvt", False)
    alpha = ctypes.c_double(math.nan)
    status = lib.cts_tamsi_calc_alpha(
        _ptr(a), _ptr(b), float(cos_theta_max), float(stiction_tolerance),
        float(relative_tolerance), ctypes.byref(alpha),
    )
    if status == Status.OK:
        return alpha.value
    if status == Status.ALPHA_SOLVER_FAILED:
        return None
    raise ContactSolversError(status, lib.last_error_message())


# --------------------------------------------------------------------------------------------
# Interior point (Dojo)
# --------------------------------------------------------------------------------------------

_IPM_VECTOR_GETTERS = {
    "generalized_velocities": "cts_ipm_solver_get_generalized_velocities",
    "impulses": "cts_ipm_solver_get_impulses",
    "next_gaps": "cts_ipm_solver_get_next_gaps",
    "primal": "cts_ipm_solver_get_primal",
    "dual": "cts_ipm_solver_get_dual",
}

_IPM_HISTORIES = {
    "rvio": "cts_ipm_solver_get_rvio_history",
    "bvio": "cts_ipm_solver_get_bvio_history",
    "kappa": "cts_ipm_solver_get_kappa_history",
    "alpha": "cts_ipm_solver_get_alpha_history",
}


class IpmOutcome(enum.IntEnum):
    """Outcome of an interior-point solve (the C++ wrapper's ``cts::IpmOutcome``)."""

    kConverged = 0  # rvio < rtol and bvio < btol
    kMaxIterationsReached = 41  # results hold the last iterate
    kNonFiniteStep = 42  # results hold the last finite iterate
    kAlmostConverged = 43  # engine iteration: the best iterate meets 100x the tolerances
    kStalled = 44  # engine iteration: stall exit far from the tolerances (best iterate)


class IpmContactModel(enum.IntEnum):
    """Contact model of one contact (``CTS_IPM_MODEL_*``)."""

    kImpact = 0  # frictionless
    kSecondOrderCone = 1  # isotropic Coulomb friction (Dojo's nonlinear model)
    kLinear = 2  # four friction directions: the L1 diamond, sliding bodies drift sideways


class IpmNewtonSolve(enum.IntEnum):
    """How the Newton system is solved (``CTS_IPM_NEWTON_SOLVE_*``)."""

    kCondensed = 0
    kDense = 1


class IpmSensitivityParameter(enum.IntEnum):
    """The problem data a sensitivity is taken with respect to (``CTS_IPM_SENSITIVITY_*``)."""

    kV0 = 0  # n columns
    kTau = 1  # n columns
    kPhi = 2  # nc columns
    kMu = 3  # nc columns


@dataclasses.dataclass
class IpmSolverParameters:
    """``cts_ipm_parameters`` (defaults: the engine iteration; ``dojo_compatible=True`` with rtol,
    btol for Dojo's reference iteration); validated when set."""

    #: Tolerance on rvio (∞-norm of the equality residuals), > 0.
    rtol: float = 1.0e-6
    #: Tolerance on bvio (∞-norm of the complementarity products γ∘s), > 0.
    btol: float = 1.0e-4
    #: Maximum number of Newton iterations, >= 0 (Dojo's code: 50).
    max_iter: int = 100
    #: Maximum number of backtracking halvings per iteration, >= 1.
    max_ls: int = 10
    #: κ floor = btol / undercut; > 0, infinity allowed.
    undercut: float = math.inf
    #: Iterations without progress before undercut grows, >= 0.
    no_progress_max: int = 3
    #: Factor applied to undercut, >= 1.
    no_progress_undercut: float = 10.0
    #: Dojo's lagged-κ predictor (compatibility).
    dojo_lagged_kappa: bool = False
    #: Fixed-κ mode (N·s·m) for smooth gradients when > 0.
    fixed_kappa: float = 0.0
    #: Start the cone variables from the previous solution (same contact layout).
    warm_start: bool = False
    #: Condensed (default) or dense Newton solves.
    newton_solve: IpmNewtonSolve = IpmNewtonSolve.kCondensed
    #: Backtracking treats rvio at or below max(rvio, 0.1·rtol) as not worse (not Dojo's rule).
    rvio_floor_in_backtracking: bool = False
    #: Dojo's reference iteration with the absolute rtol/btol (True) or the engine iteration.
    dojo_compatible: bool = False
    #: Engine iteration: relative tolerance of the equality residuals (momentum /P, velocity /V).
    tolerance: float = 1.0e-8
    #: Engine iteration: relative tolerance of the complementarity ‖γ∘s‖∞/(P·V).
    complementarity_tolerance: float = 1.0e-6
    #: Engine iteration: Gondzio centrality correctors per iteration, in [0, 10].
    centrality_correctors: int = 2
    #: Engine iteration: initial proximal regularization of the impulse block relative to V/P
    #: (vanishes ×0.1 per iteration; never changes the answer), >= 0.
    proximal_regularization: float = 1.0e-2
    #: Engine iteration: normal compliance relative to V/P; 0 = hard contact (default), > 0 = soft
    #: normal contact (a contact carrying γn ends penetrated by h·c·V/P·γn; docs/ipm.md §11.3).
    normal_compliance: float = 0.0
    #: Engine iteration: stall exit after this many iterations without 10 % progress; 0 = off.
    stall_iterations: int = 20


@dataclasses.dataclass
class IpmSolverStats:
    """``cts_ipm_stats``: summary of the last solve."""

    outcome: IpmOutcome | int
    iterations: int
    rvio: float
    bvio: float
    kappa: float
    line_search_exhausted: int
    boundary_hits: int
    #: Engine iteration: scaled residual, complementarity and merit of the returned iterate.
    residual: float = 0.0
    complementarity: float = 0.0
    merit: float = 0.0
    #: Engine iteration: the problem's momentum scale P (N·s) and velocity scale V (m/s).
    momentum_scale: float = 0.0
    velocity_scale: float = 0.0
    #: Engine iteration: Gondzio centrality correctors kept over all iterations.
    centrality_correctors: int = 0


class IpmSolver(_SolverHandle):
    """Dojo's interior-point contact solver (``cts_ipm_*``): one time step in generalized
    velocities,

        M (v − v0) − h τ − Σ_i [Jn_iᵀ γn_i + Jt_iᵀ b_i] = 0,   0 <= φ_i + h Jn_i v ⟂ γn_i >= 0,

    with Coulomb friction on the second-order cone (or the linear model, or none), solved for v
    (n) and the contact IMPULSES (N·s) by a primal–dual predictor–corrector; sensitivities of
    the solution with respect to v0, τ, φ and μ by implicit differentiation. Sizes come with the
    problem data. Arrays, borrowing and errors as in the module docstring.
    """

    _name = "ipm"
    _handle_p = _IpmHandleP

    def __init__(self, library: Library | str | os.PathLike | None = None):
        self._lib = _library(library)
        self._handle = None
        self._borrowed: tuple = ()
        self._reused: dict = {}
        handle = _IpmHandleP()
        status = self._lib.cts_ipm_solver_new(ctypes.byref(handle))
        if status != Status.OK:
            raise ContactSolversError(status, self._lib.last_error_message())
        self._handle = handle

    # -- sizes and parameters -----------------------------------------------------------------

    @property
    def num_velocities(self) -> int:
        """n of the current problem data (0 without data)."""
        return int(self._lib.cts_ipm_solver_num_velocities(self._h()))

    @property
    def num_contacts(self) -> int:
        """nc of the current problem data (0 without data)."""
        return int(self._lib.cts_ipm_solver_num_contacts(self._h()))

    @property
    def num_cone_variables(self) -> int:
        """K, the length of the primal and dual vectors (1, 4 or 6 per contact by model)."""
        return int(self._lib.cts_ipm_solver_num_cone_variables(self._h()))

    def set_parameters(self, parameters: IpmSolverParameters) -> None:
        """Validates and sets the parameters (raises ``INVALID_ARGUMENT``, nothing changed)."""
        c = _IpmParameters()
        self._lib.cts_ipm_parameters_default(ctypes.byref(c))
        p = parameters
        c.rtol, c.btol = float(p.rtol), float(p.btol)
        c.max_iter = _int32("max_iter", p.max_iter)
        c.max_ls = _int32("max_ls", p.max_ls)
        c.undercut = float(p.undercut)
        c.no_progress_max = _int32("no_progress_max", p.no_progress_max)
        c.no_progress_undercut = float(p.no_progress_undercut)
        c.dojo_lagged_kappa = _int32("dojo_lagged_kappa", p.dojo_lagged_kappa)
        c.fixed_kappa = float(p.fixed_kappa)
        c.warm_start = _int32("warm_start", p.warm_start)
        c.newton_solve = _int32("newton_solve", p.newton_solve)
        c.rvio_floor_in_backtracking = _int32("rvio_floor_in_backtracking", p.rvio_floor_in_backtracking)
        c.dojo_compatible = _int32("dojo_compatible", p.dojo_compatible)
        c.tolerance = float(p.tolerance)
        c.complementarity_tolerance = float(p.complementarity_tolerance)
        c.centrality_correctors = _int32("centrality_correctors", p.centrality_correctors)
        c.proximal_regularization = float(p.proximal_regularization)
        c.normal_compliance = float(p.normal_compliance)
        c.stall_iterations = _int32("stall_iterations", p.stall_iterations)
        self._check(self._lib.cts_ipm_solver_set_parameters(self._h(), ctypes.byref(c)))

    def get_parameters(self) -> IpmSolverParameters:
        c = _IpmParameters()
        self._check(self._lib.cts_ipm_solver_get_parameters(self._h(), ctypes.byref(c)))
        try:
            newton = IpmNewtonSolve(c.newton_solve)
        except ValueError:
            newton = int(c.newton_solve)
        return IpmSolverParameters(
            c.rtol, c.btol, int(c.max_iter), int(c.max_ls), c.undercut, int(c.no_progress_max),
            c.no_progress_undercut, bool(c.dojo_lagged_kappa), c.fixed_kappa, bool(c.warm_start),
            newton, bool(c.rvio_floor_in_backtracking), bool(c.dojo_compatible), c.tolerance,
            c.complementarity_tolerance, int(c.centrality_correctors), c.proximal_regularization,
            c.normal_compliance, int(c.stall_iterations),
        )

    def set_contact_ids(self, ids) -> None:
        """Names the contacts of the problem data solved next (copied; ``docs/ipm.md`` §11.5):
        ``ids[i]`` (uint64, unique within a problem) names contact i. With ``warm_start``, a
        contact whose id the previous solve had starts from its own previous solution, a new one
        from the central start. ``None`` clears the ids (warm start by position).
        """
        if ids is None:
            self._check(self._lib.cts_ipm_solver_set_contact_ids(self._h(), None, 0))
            return
        a = np.ascontiguousarray(ids, dtype=np.uint64).reshape(-1)
        ptr = a.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)) if a.size else None
        self._check(self._lib.cts_ipm_solver_set_contact_ids(self._h(), ptr, a.size))

    # -- problem data (borrowed) --------------------------------------------------------------

    def set_problem_data(self, M, Jn, Jt, v0, tau, h: float, phi, mu, models, vt_offset=None,
                         *, copy=False) -> None:
        """Sets one time step: ``M`` n×n (kg), ``Jn`` nc×n, ``Jt`` 2nc×n, ``v0`` and ``tau`` n,
        ``h`` (s), ``phi`` (m), ``mu`` and ``models`` (:class:`IpmContactModel`) nc each, and
        an optional ``vt_offset`` (2nc, m/s). n is ``len(v0)``, nc is ``len(phi)``. Borrowed
        (the model kinds are copied by the library); ``copy=True`` snapshots the arrays. On an
        error the previous data stays set.
        """
        v0_a = np.asarray(v0)
        phi_a = np.asarray(phi)
        if v0_a.ndim != 1:
            raise ContactSolversError(Status.DIMENSION_MISMATCH, f"v0: shape {v0_a.shape}, expected (n,)")
        if phi_a.ndim != 1:
            raise ContactSolversError(Status.DIMENSION_MISMATCH, f"phi: shape {phi_a.shape}, expected (nc,)")
        n, nc = v0_a.shape[0], phi_a.shape[0]
        mats, filled = self._matrices(
            [("M", M, n, n, True), ("Jn", Jn, nc, n, False), ("Jt", Jt, 2 * nc, n, False)], copy
        )
        (m, ld_m, pm), (jn, ld_jn, pjn), (jt, ld_jt, pjt) = mats
        vecs = [_vector(v0, n, "v0", copy), _vector(tau, n, "tau", copy),
                _vector(phi, nc, "phi", copy), _vector(mu, nc, "mu", copy)]
        kinds = np.asarray(models)
        if kinds.shape != (nc,) or (nc > 0 and kinds.dtype.kind not in "iu"):
            raise ContactSolversError(
                Status.DIMENSION_MISMATCH,
                f"models: {kinds.shape} of {kinds.dtype}, expected ({nc},) integers",
            )
        kinds = np.ascontiguousarray(kinds, dtype=np.int32)
        if vt_offset is None:
            offset, offset_ptr, offset_len = None, None, 0
        else:
            offset = _vector(vt_offset, 2 * nc, "vt_offset", copy)
            offset_ptr, offset_len = _ptr(offset), 2 * nc
        self._check(
            self._lib.cts_ipm_solver_set_problem_data(
                self._h(), n, nc, pm, ld_m, pjn, ld_jn, pjt, ld_jt,
                _ptr(vecs[0]), _ptr(vecs[1]), float(h), _ptr(vecs[2]), _ptr(vecs[3]),
                kinds.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), offset_ptr, offset_len,
            )
        )
        self._borrowed = (m, jn, jt, *vecs, kinds, offset)  # a failed call keeps the old borrow
        for reused in filled:
            reused.commit()

    def set_block_problem_data(self, tree_dofs, M_blocks, contact_trees, J_blocks, v0, tau,
                               h: float, phi, mu, models, vt_offset=None, *, copy=False) -> None:
        """Sets one time step in **block-sparse form** (``cts_block_sparse_data``, see
        ``docs/block_sparse.md``), the arrays as in
        :meth:`TamsiSolver.set_two_way_coupled_block_problem_data`: ``tree_dofs`` (ntree ints
        >= 1, n = their sum), ``M_blocks`` (the trees' n_t×n_t blocks of M, kg), ``contact_trees``
        ((nc, 2) or flat 2nc, -1 for a static side), ``J_blocks`` (per contact, its 3×n_t blocks
        with rows normal, tangent 1, tangent 2, the rows i of ``Jn`` and 2i, 2i+1 of ``Jt`` in
        :meth:`set_problem_data`); then ``v0`` and ``tau`` n, ``h`` (s), ``phi`` (m), ``mu`` and
        ``models`` nc, optional ``vt_offset`` 2nc, as in :meth:`set_problem_data`. The same
        iteration as on dense data (iterates equal to round-off), the Newton matrix factored
        per island; a tree no contact touches gets ``v0_t + h M_t⁻¹ τ_t``. Needs the condensed
        Newton solve (the default). Borrowed (``copy=True`` snapshots); on an error the
        previous data stays set.
        """
        data, keep, nc = _block_sparse_data(tree_dofs, M_blocks, contact_trees, J_blocks, copy)
        trees = keep[0]
        # The C call takes v0 and tau without lengths: n is checked here. A tree size < 1 is
        # the library's to refuse with its message (it checks the structure before reading v0).
        if np.all(trees >= 1):
            n = int(np.sum(trees, dtype=np.int64))
        else:
            n = np.asarray(v0).shape[0] if np.asarray(v0).ndim == 1 else -1
        vecs = [_vector(v0, n, "v0", copy), _vector(tau, n, "tau", copy),
                _vector(phi, nc, "phi", copy), _vector(mu, nc, "mu", copy)]
        kinds = np.asarray(models)
        if kinds.shape != (nc,) or (nc > 0 and kinds.dtype.kind not in "iu"):
            raise ContactSolversError(
                Status.DIMENSION_MISMATCH,
                f"models: {kinds.shape} of {kinds.dtype}, expected ({nc},) integers",
            )
        kinds = np.ascontiguousarray(kinds, dtype=np.int32)
        if vt_offset is None:
            offset, offset_ptr, offset_len = None, None, 0
        else:
            offset = _vector(vt_offset, 2 * nc, "vt_offset", copy)
            offset_ptr, offset_len = _ptr(offset), 2 * nc
        self._check(
            self._lib.cts_ipm_solver_set_block_problem_data(
                self._h(), ctypes.byref(data), _ptr(vecs[0]), _ptr(vecs[1]), float(h),
                _ptr(vecs[2]), _ptr(vecs[3]),
                kinds.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), offset_ptr, offset_len,
            )
        )
        self._borrowed = (*keep, *vecs, kinds, offset)  # a failed call keeps the old borrow

    # -- solving ------------------------------------------------------------------------------

    def _outcome(self, status: int) -> IpmOutcome:
        if status < Status.NULL_POINTER:
            return IpmOutcome(status)
        raise ContactSolversError(status, self.last_error())

    def solve(self) -> IpmOutcome:
        """Solves from v = v0; returns the outcome, raises on usage errors."""
        return self._outcome(self._lib.cts_ipm_solver_solve(self._h()))

    def solve_with_guess(self, v_guess) -> IpmOutcome:
        """Solves from the velocity guess (n; m/s, rad/s)."""
        g = np.ascontiguousarray(v_guess, dtype=np.float64)
        if g.ndim != 1:
            raise ContactSolversError(Status.DIMENSION_MISMATCH, f"v_guess: shape {g.shape}, expected (n,)")
        return self._outcome(self._lib.cts_ipm_solver_solve_with_guess(self._h(), _ptr(g), g.shape[0]))

    def _get(self, what: str, n: int) -> np.ndarray:
        out = np.empty(n, dtype=np.float64)
        self._check(getattr(self._lib, _IPM_VECTOR_GETTERS[what])(self._h(), _ptr(out), n))
        return out

    def get_generalized_velocities(self) -> np.ndarray:
        """v (n; m/s or rad/s) of the last solve."""
        return self._get("generalized_velocities", self.num_velocities)

    def get_impulses(self) -> np.ndarray:
        """Contact impulses (3nc; N·s): for contact i, entries 3i, 3i+1, 3i+2 = (normal γn,
        friction along t1, friction along t2); ``.reshape(-1, 3)`` gives one row per contact."""
        return self._get("impulses", 3 * self.num_contacts)

    def get_next_gaps(self) -> np.ndarray:
        """Predicted next gaps φ + h·Jn v (nc; m)."""
        return self._get("next_gaps", self.num_contacts)

    def get_primal(self) -> np.ndarray:
        """Raw primal cone variables (K, see the header for the layout)."""
        return self._get("primal", self.num_cone_variables)

    def get_dual(self) -> np.ndarray:
        """Raw dual cone variables (K)."""
        return self._get("dual", self.num_cone_variables)

    def get_stats(self) -> IpmSolverStats:
        c = _IpmStats()
        self._check(self._lib.cts_ipm_solver_get_stats(self._h(), ctypes.byref(c)))
        try:
            outcome = IpmOutcome(c.status)
        except ValueError:
            outcome = int(c.status)
        return IpmSolverStats(outcome, int(c.iterations), c.rvio, c.bvio, c.kappa,
                              int(c.line_search_exhausted), int(c.boundary_hits), c.residual,
                              c.complementarity, c.merit, c.momentum_scale, c.velocity_scale,
                              int(c.centrality_correctors))

    def _history(self, what: str) -> np.ndarray:
        get = getattr(self._lib, _IPM_HISTORIES[what])
        count = ctypes.c_size_t(0)
        self._check(get(self._h(), None, 0, ctypes.byref(count)))
        out = np.empty(count.value, dtype=np.float64)
        self._check(get(self._h(), _ptr(out), out.shape[0], ctypes.byref(count)))
        return out

    def get_rvio_history(self) -> np.ndarray:
        """rvio at the start and after every iteration (iterations + 1 entries)."""
        return self._history("rvio")

    def get_bvio_history(self) -> np.ndarray:
        """bvio at the start and after every iteration (iterations + 1 entries)."""
        return self._history("bvio")

    def get_kappa_history(self) -> np.ndarray:
        """The κ target of every iteration (N·s·m)."""
        return self._history("kappa")

    def get_alpha_history(self) -> np.ndarray:
        """The accepted step length of every iteration."""
        return self._history("alpha")

    # -- sensitivities ------------------------------------------------------------------------

    def compute_sensitivities(self) -> None:
        """Implicit differentiation at the last solve's iterate (reads the borrowed data)."""
        self._check(self._lib.cts_ipm_solver_compute_sensitivities(self._h()))

    def _sensitivity(self, name: str, rows: int, parameter) -> np.ndarray:
        p = IpmSensitivityParameter(parameter)
        cols = self.num_velocities if p in (IpmSensitivityParameter.kV0,
                                            IpmSensitivityParameter.kTau) else self.num_contacts
        out = np.empty((rows, cols), dtype=np.float64, order="F")
        self._check(getattr(self._lib, name)(self._h(), int(p), _ptr(out), max(1, rows), cols))
        return out

    def get_velocity_sensitivity(self, parameter: IpmSensitivityParameter) -> np.ndarray:
        """∂v/∂θ (n × n for v0 and τ, n × nc for φ and μ) of the last compute_sensitivities."""
        return self._sensitivity("cts_ipm_solver_get_velocity_sensitivity", self.num_velocities,
                                 parameter)

    def get_impulse_sensitivity(self, parameter: IpmSensitivityParameter) -> np.ndarray:
        """∂λ/∂θ (3nc rows, λ as in :meth:`get_impulses`)."""
        return self._sensitivity("cts_ipm_solver_get_impulse_sensitivity",
                                 3 * self.num_contacts, parameter)
