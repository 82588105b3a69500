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
  Matrices are passed to the library **column-major**: a Fortran-ordered float64 array (or a
  column-strided view of one, e.g. ``A[:3, :]`` of an ``order="F"`` array, passed with its leading
  dimension) goes through without a copy; anything else -- numpy's default row-major (C-order)
  arrays, other dtypes, lists -- is **copied** once, at the set call, into a new Fortran-ordered
  float64 array (``numpy.asfortranarray``). Shapes are checked before the library sees a pointer.
* **Borrowing.** Problem data is borrowed, not copied, by the library (Drake's rule): it is read
  at the set call and again at every later solve. The solver object keeps a reference to every
  array it passed (the caller's own arrays when no copy was needed) until the next successful set
  call, :meth:`TamsiSolver.resize` or :meth:`TamsiSolver.close`, so garbage collection cannot free
  them. Changing the caller's arrays in place between the set call and a solve changes the
  problem, as in Drake; pass ``copy=True`` to the setters to snapshot the data instead.
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
ABI_VERSION = 1


class Status(enum.IntEnum):
    """``cts_status``: every fallible C function returns one (``c_api.md``)."""

    OK = 0
    MAX_ITERATIONS_REACHED = 1
    LINEAR_SOLVER_FAILED = 2
    ALPHA_SOLVER_FAILED = 3
    NULL_POINTER = 100
    INVALID_ARGUMENT = 101
    DIMENSION_MISMATCH = 102
    NO_PROBLEM_DATA = 103
    WRONG_COUPLING_SCHEME = 104
    NO_SOLUTION = 105
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

_c_double_p = ctypes.POINTER(ctypes.c_double)
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


class _TamsiIterationStats(ctypes.Structure):
    """``cts_tamsi_iteration_stats``."""

    _fields_ = [("num_iterations", ctypes.c_int32), ("vt_residual", ctypes.c_double)]


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

    def _declare_ipm(self):
        # Hook for the interior-point solver (cts_ipm_*): its C API is declared here, next to
        # TAMSI's, and wrapped by an `IpmSolver` class below once the library exports it.
        # `has_ipm` tells whether the loaded library has it.
        self.has_ipm = hasattr(self._dll, "cts_ipm_solver_new")

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
    """``cts_version()``: the library's version, e.g. ``"0.1.0"``."""
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


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(_c_double_p)


def _matrix(x, rows: int, cols: int, name: str, copy: bool) -> tuple[np.ndarray, int]:
    """A float64 matrix the library can read column-major, and its leading dimension.

    No copy for a float64 array whose columns are contiguous with a column stride of ``ld >=
    rows`` doubles (Fortran order, or a row block of a Fortran-ordered array); otherwise (or with
    ``copy``) a new Fortran-ordered copy, ``ld = rows``.
    """
    a = np.asarray(x)
    if a.ndim != 2 or a.shape != (rows, cols):
        raise ContactSolversError(
            Status.DIMENSION_MISMATCH, f"{name}: shape {a.shape}, expected ({rows}, {cols})"
        )
    item = np.dtype(np.float64).itemsize
    if (
        not copy
        and a.dtype == np.float64
        and a.dtype.isnative
        and a.flags.aligned
        and rows > 0
        and cols > 0
        and (a.strides[0] == item or rows == 1)
        and a.strides[1] % item == 0
        and a.strides[1] // item >= rows
    ):
        return a, a.strides[1] // item
    if not copy and a.dtype == np.float64 and a.flags.f_contiguous:
        return a, max(1, rows)  # empty or single-column Fortran arrays
    return np.array(a, dtype=np.float64, order="F", copy=True), max(1, rows)


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


class TamsiSolver:
    """Drake's ``TamsiSolver<double>``: compliant contact with regularized friction.

    Solves ``M v = p* + dt·Jnᵀ fn + dt·Jtᵀ ft(v)`` for the next-step generalized velocities ``v``
    (``nv``), with ``nc`` contacts: ``fn`` given (one-way coupling) or
    ``fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊`` (two-way). ``M`` is nv×nv, ``Jn`` nc×nv, ``Jt``
    2nc×nv (two tangent rows per contact), the per-contact vectors have nc entries. SI units,
    forces in N. See the module docstring for the array, borrowing and error rules.
    """

    def __init__(self, nv: int, library: Library | str | os.PathLike | None = None):
        self._lib = _library(library)
        self._handle = None
        self._borrowed: tuple = ()
        if int(nv) < 0:
            raise ContactSolversError(Status.INVALID_ARGUMENT, f"nv = {nv} < 0")
        handle = _TamsiHandleP()
        status = self._lib.cts_tamsi_solver_new(int(nv), ctypes.byref(handle))
        if status != Status.OK:
            raise ContactSolversError(status, self._lib.last_error_message())
        self._handle = handle

    @classmethod
    def _adopt(cls, library: Library, handle) -> TamsiSolver:
        self = cls.__new__(cls)
        self._lib = library
        self._handle = handle
        self._borrowed = ()
        return self

    # -- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        """Frees the C handle (``cts_tamsi_solver_free``) and drops the borrowed arrays.

        Idempotent; any later call on this object raises :class:`ContactSolversError`.
        """
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.cts_tamsi_solver_free(handle)
        self._borrowed = ()

    def __enter__(self) -> TamsiSolver:
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
        """``cts_tamsi_solver_last_error``: detail of the last call that did not return OK."""
        return self._lib.cts_tamsi_solver_last_error(self._h()).decode("utf-8", "replace")

    def clone(self) -> TamsiSolver:
        """A deep copy of the parameters and workspace, without problem data (for a thread)."""
        out = _TamsiHandleP()
        status = self._lib.cts_tamsi_solver_clone(self._h(), ctypes.byref(out))
        if status != Status.OK:
            raise ContactSolversError(status, self._lib.last_error_message())
        return TamsiSolver._adopt(self._lib, out)

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
        max_iterations = parameters.max_iterations
        if int(max_iterations) != max_iterations or not -(2**31) <= max_iterations < 2**31:
            raise ContactSolversError(
                Status.INVALID_ARGUMENT, f"max_iterations = {max_iterations} is not an int32"
            )
        c.max_iterations = int(max_iterations)
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
        mats = [
            _matrix(M, nv, nv, "M", copy),
            _matrix(Jn, nc, nv, "Jn", copy),
            _matrix(Jt, 2 * nc, nv, "Jt", copy),
        ]
        vecs = [_vector(p_star, nv, "p_star", copy)]
        vecs += [_vector(x, nc, name, copy) for name, x in per_contact]
        return nc, mats, vecs

    def set_one_way_coupled_problem_data(self, M, Jn, Jt, p_star, fn, mu, *, copy=False) -> None:
        """Drake's ``SetOneWayCoupledProblemData``: normal forces ``fn`` (N) given.

        ``M`` nv×nv (kg), ``Jn`` nc×nv, ``Jt`` 2nc×nv, ``p_star`` nv (N·s), ``fn`` and ``mu`` nc;
        nc is ``len(fn)``. Borrowed (see the module docstring); ``copy=True`` snapshots them.
        On an error the previous data stays set.
        """
        nc, mats, vecs = self._problem_arrays(M, Jn, Jt, p_star, [("fn", fn), ("mu", mu)], copy)
        (m, ld_m), (jn, ld_jn), (jt, ld_jt) = mats
        self._check(
            self._lib.cts_tamsi_solver_set_one_way_coupled_problem_data(
                self._h(), nc, _ptr(m), ld_m, _ptr(jn), ld_jn, _ptr(jt), ld_jt,
                *[_ptr(v) for v in vecs],
            )
        )
        self._borrowed = (m, jn, jt, *vecs)  # only now: a failed call keeps the old borrow

    def set_two_way_coupled_problem_data(
        self, M, Jn, Jt, p_star, fn0, stiffness, dissipation, mu, *, copy=False
    ) -> None:
        """Drake's ``SetTwoWayCoupledProblemData``: ``fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊``.

        As the one-way call, with ``fn0`` (N), ``stiffness`` k (N/m), ``dissipation`` d (s/m)
        and ``mu``, nc each; nc is ``len(fn0)``. Borrowed.
        """
        per_contact = [("fn0", fn0), ("stiffness", stiffness), ("dissipation", dissipation),
                       ("mu", mu)]
        nc, mats, vecs = self._problem_arrays(M, Jn, Jt, p_star, per_contact, copy)
        (m, ld_m), (jn, ld_jn), (jt, ld_jt) = mats
        self._check(
            self._lib.cts_tamsi_solver_set_two_way_coupled_problem_data(
                self._h(), nc, _ptr(m), ld_m, _ptr(jn), ld_jn, _ptr(jt), ld_jt,
                *[_ptr(v) for v in vecs],
            )
        )
        self._borrowed = (m, jn, jt, *vecs)

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
