"""The LCP solvers (``docs/lcp.md``): find z with w = M z + q, z >= 0, w >= 0, zᵀw = 0.

:class:`LcpSolver` is ``cts::LcpSolver`` (one handle for every algorithm, outcomes returned);
:class:`MobyLcpSolver` and :class:`UnrevisedLemkeSolver` have the call shapes of Drake's Python
binding (``pydrake.solvers.MobyLcpSolver``): ``solve_lcp_lemke(M, q)`` returns ``(success, z)``.
M and q are dimensionless here: the library solves the LCP in whatever units the caller's
problem has (z in the units of q divided by those of M).
"""

from __future__ import annotations

import ctypes
import dataclasses
import enum

import numpy as np

from . import _ffi
from ._common import (
    ContactSolversError,
    Library,
    Status,
    _int32,
    _library,
    _ptr,
    _SolverHandle,
    _vector,
)

__all__ = [
    "LcpAlgorithm",
    "LcpOutcome",
    "LcpSolveInfo",
    "LcpSolver",
    "LcpSolverParameters",
    "MobyLcpSolver",
    "UnrevisedLemkeSolver",
]


class LcpOutcome(enum.IntEnum):
    """``cts::LcpOutcome``: the outcome of an LCP solve (statuses ``CTS_STATUS_LCP_*``)."""

    kSolved = Status.OK
    kRayTermination = Status.LCP_RAY_TERMINATION
    kZeroToleranceTooLow = Status.LCP_ZERO_TOLERANCE_TOO_LOW
    kPivotLimit = Status.LCP_PIVOT_LIMIT
    kCyclingDetected = Status.LCP_CYCLING_DETECTED
    kLinearSolveFailed = Status.LCP_LINEAR_SOLVE_FAILED
    kNotASolution = Status.LCP_NOT_A_SOLUTION
    kRegularizationFailed = Status.LCP_REGULARIZATION_FAILED
    #: Drake's method returned true but z failed the residual test (z readable).
    kResidualTestFailed = Status.LCP_RESIDUAL_TEST_FAILED
    #: Drake's method returned true but z or w is not finite (z readable).
    kNonFiniteSolution = Status.LCP_NON_FINITE_SOLUTION


class LcpAlgorithm(enum.IntEnum):
    """``CTS_LCP_ALGORITHM_*``."""

    kLemke = _ffi.CTS_LCP_ALGORITHM_LEMKE
    kLemkeRegularized = _ffi.CTS_LCP_ALGORITHM_LEMKE_REGULARIZED
    kFast = _ffi.CTS_LCP_ALGORITHM_FAST
    kFastRegularized = _ffi.CTS_LCP_ALGORITHM_FAST_REGULARIZED
    kUnrevisedLemke = _ffi.CTS_LCP_ALGORITHM_UNREVISED_LEMKE


@dataclasses.dataclass
class LcpSolverParameters:
    """``cts::LcpSolverParameters`` (``cts_lcp_parameters``; defaults are Drake's)."""

    #: Moby Lemke pivot tolerance; <= 0: automatic, n·max(1, max|M|)·eps.
    pivot_tolerance: float = -1.0
    #: Zero tolerance; negative: automatic (Moby n·max|M|·10eps, unrevised n·max|M|·2.2eps).
    zero_tolerance: float = -1.0
    #: False: Drake's pivoting rules; True: lexicographic anti-cycling Lemke.
    lexicographic_lemke: bool = False
    #: Moby Lemke pivot limit, >= 0; 0: the rule's default.
    max_pivots: int = 0
    #: Rank-1 updates between refactorizations, >= 0; 0: max(2n, 50).
    refactor_interval: int = 0
    #: ``solve_lcp_lemke_regularized``'s shifts 10^e, e = min, min + step, ... while e < max.
    lemke_min_exp: int = -20
    lemke_step_exp: int = 1
    lemke_max_exp: int = 1
    #: ``solve_lcp_fast_regularized``'s shifts (both: |e| <= 300, step >= 1, <= 100 shifts).
    fast_min_exp: int = -20
    fast_step_exp: int = 4
    fast_max_exp: int = 20
    #: True: OK (and Drake's bool) on Drake's verdict alone; False: z must pass the residual test.
    drake_compatible_verdict: bool = False
    #: Relative tolerance of the residual test; <= 0: 1e-11.
    residual_tolerance: float = -1.0


@dataclasses.dataclass
class LcpSolveInfo:
    """``cts_lcp_solve_info``: what the last solve decided on (``docs/lcp.md``)."""

    algorithm: LcpAlgorithm
    #: True where Drake's method returns true, whatever the residual test said.
    drake_verdict: bool
    residual_test_passed: bool
    #: True when the accepted z solves the shifted M + 10^e I.
    regularized: bool
    regularization_exponent: int
    #: The accepted shift 10^e (0 unless regularized).
    regularization: float
    #: Moby Lemke's pivot tolerance used (NaN for the fast and unrevised algorithms).
    pivot_tolerance: float
    zero_tolerance: float
    residual_tolerance: float
    min_z: float
    min_w: float
    max_complementarity: float
    complementarity_bound: float


def _square(M, n: int, name: str = "M") -> np.ndarray:
    """M as a column-major float64 n×n array (copied when it is not one)."""
    a = np.asarray(M)
    if a.ndim != 2 or a.shape != (n, n):
        raise ContactSolversError(
            Status.DIMENSION_MISMATCH, f"{name}: shape {a.shape}, expected ({n}, {n})"
        )
    if a.dtype.kind not in "biuf":
        raise ContactSolversError(Status.INVALID_ARGUMENT, f"{name}: dtype {a.dtype} is not real")
    return np.asfortranarray(a, dtype=np.float64)


def _q(q) -> np.ndarray:
    a = np.asarray(q)
    if a.ndim != 1:
        raise ContactSolversError(Status.DIMENSION_MISMATCH, f"q: shape {a.shape}, expected (n,)")
    return _vector(a, a.shape[0], "q", False)


class LcpSolver(_SolverHandle):
    """``cts::LcpSolver``: one LCP solver handle for every algorithm (``cts_lcp_solver_*``).

    The workspace is kept between solves; results stay until the next solve. Usage errors raise
    :class:`ContactSolversError`; outcomes are returned (:class:`LcpOutcome`).
    """

    _name = "lcp"
    _handle_p = ctypes.POINTER(_ffi.cts_lcp_solver)

    def __init__(self, library: Library | str | None = None):
        self._open(library)
        self._params = LcpSolverParameters()

    @classmethod
    def _adopt(cls, library, handle):
        self = super()._adopt(library, handle)
        c = _ffi.cts_lcp_parameters()
        self._check(self._lib.cts_lcp_solver_get_parameters(handle, ctypes.byref(c)))
        self._params = _from_c(c)
        return self

    def set_parameters(self, parameters: LcpSolverParameters) -> None:
        """Sets (and validates: ``INVALID_ARGUMENT`` otherwise) the parameters."""
        p = parameters
        c = _ffi.cts_lcp_parameters()
        self._lib.cts_lcp_parameters_default(ctypes.byref(c))
        c.pivot_tolerance = float(p.pivot_tolerance)
        c.zero_tolerance = float(p.zero_tolerance)
        c.lemke_variant = (
            _ffi.CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC
            if p.lexicographic_lemke
            else _ffi.CTS_LCP_LEMKE_VARIANT_DRAKE
        )
        for name in ("max_pivots", "refactor_interval", "lemke_min_exp", "lemke_step_exp",
                     "lemke_max_exp", "fast_min_exp", "fast_step_exp", "fast_max_exp"):
            setattr(c, name, _int32(name, getattr(p, name)))
        c.drake_compatible_verdict = 1 if p.drake_compatible_verdict else 0
        c.residual_tolerance = float(p.residual_tolerance)
        self._check(self._lib.cts_lcp_solver_set_parameters(self._h(), ctypes.byref(c)))
        self._params = dataclasses.replace(p)

    def parameters(self) -> LcpSolverParameters:
        """A copy of the current parameters."""
        return dataclasses.replace(self._params)

    def solve(self, algorithm: LcpAlgorithm, M, q, z0=None) -> LcpOutcome:
        """Solves the LCP (M n×n, q n) with ``algorithm``; ``z0`` (n) warm-starts ``kFast`` only.

        Returns the outcome; :meth:`z` and :meth:`w` hold the result (Drake's failure value
        after an outcome). Arrays are read during this call only.
        """
        qv = _q(q)
        n = qv.shape[0]
        m = _square(M, n)
        z0v = None if z0 is None else _vector(z0, n, "z0", False)
        status = self._lib.cts_lcp_solver_solve(
            self._h(), _int32("algorithm", int(algorithm)), n, _ptr(m), max(1, n), _ptr(qv),
            None if z0v is None else _ptr(z0v),
        )
        if status >= Status.NULL_POINTER:
            raise ContactSolversError(status, self.last_error())
        return LcpOutcome(status)

    def _fetch(self, which: str) -> np.ndarray:
        n = self._lib.cts_lcp_solver_size(self._h())
        out = np.zeros(n)
        status = getattr(self._lib, f"cts_lcp_solver_get_{which}")(self._h(), _ptr(out), n)
        # A failed solve's non-finite z or w is copied with NON_FINITE_RESULT: readable as in
        # Drake (the solve's own outcome already said it failed).
        if status != Status.NON_FINITE_RESULT:
            self._check(status)
        return out

    def z(self) -> np.ndarray:
        """z of the last solve (n)."""
        return self._fetch("z")

    def w(self) -> np.ndarray:
        """w = M z + q of the last solve (n)."""
        return self._fetch("w")

    def get_num_pivots(self) -> int:
        """Pivots of the last solve (Drake's ``get_num_pivots``)."""
        return int(self._lib.cts_lcp_solver_num_pivots(self._h()))

    def solve_info(self) -> LcpSolveInfo:
        """What the last solve decided on; raises before the first solve."""
        c = _ffi.cts_lcp_solve_info()
        self._check(self._lib.cts_lcp_solver_get_solve_info(self._h(), ctypes.byref(c)))
        v = {f: getattr(c, f) for f, _ in c._fields_}
        v["algorithm"] = LcpAlgorithm(v["algorithm"])
        for f in ("drake_verdict", "residual_test_passed", "regularized"):
            v[f] = bool(v[f])
        return LcpSolveInfo(**v)

    @staticmethod
    def compute_zero_tolerance(
        M, algorithm: LcpAlgorithm = LcpAlgorithm.kLemke, library: Library | str | None = None
    ) -> float:
        """Drake's ``ComputeZeroTolerance``: n·max|M|·10 eps (Moby) or n·max|M|·2.2 eps
        (unrevised)."""
        a = np.asarray(M)
        n = a.shape[0] if a.ndim == 2 else -1
        m = _square(a, n)
        lib = _library(library)
        tol = ctypes.c_double()
        status = lib.cts_lcp_compute_zero_tolerance(
            int(algorithm), n, _ptr(m), max(1, n), ctypes.byref(tol)
        )
        if status != Status.OK:
            raise ContactSolversError(status, lib.last_error_message())
        return tol.value

    @staticmethod
    def is_solution(M, q, z, zero_tol: float = -1.0, library: Library | str | None = None) -> bool:
        """Drake's ``UnrevisedLemkeSolver::IsSolution(M, q, z, zero_tol)``."""
        qv = _q(q)
        n = qv.shape[0]
        m, zv = _square(M, n), _vector(z, n, "z", False)
        lib = _library(library)
        ok = ctypes.c_int32()
        status = lib.cts_lcp_is_solution(
            n, _ptr(m), max(1, n), _ptr(qv), _ptr(zv), float(zero_tol), ctypes.byref(ok)
        )
        if status != Status.OK:
            raise ContactSolversError(status, lib.last_error_message())
        return ok.value == 1

    def _solve_with(self, p: LcpSolverParameters, algorithm, M, q, z0=None):
        """Solves with temporarily changed parameters (Drake's per-call tolerances)."""
        saved = self._params
        self.set_parameters(p)
        try:
            outcome = self.solve(algorithm, M, q, z0)
        finally:
            self.set_parameters(saved)
        return outcome == LcpOutcome.kSolved, self.z()


def _from_c(c) -> LcpSolverParameters:
    return LcpSolverParameters(
        pivot_tolerance=c.pivot_tolerance,
        zero_tolerance=c.zero_tolerance,
        lexicographic_lemke=c.lemke_variant == _ffi.CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC,
        max_pivots=c.max_pivots,
        refactor_interval=c.refactor_interval,
        lemke_min_exp=c.lemke_min_exp,
        lemke_step_exp=c.lemke_step_exp,
        lemke_max_exp=c.lemke_max_exp,
        fast_min_exp=c.fast_min_exp,
        fast_step_exp=c.fast_step_exp,
        fast_max_exp=c.fast_max_exp,
        drake_compatible_verdict=bool(c.drake_compatible_verdict),
        residual_tolerance=c.residual_tolerance,
    )


class MobyLcpSolver(LcpSolver):
    """Drake's ``MobyLcpSolver``, with pydrake's call shapes: each method returns
    ``(success, z)``. ``success`` is True when Drake's method succeeded and z passed the residual
    test (Drake's bool exactly with ``drake_compatible_verdict``); z is the zero vector after
    Drake's failures."""

    def solve_lcp_lemke(self, M, q, piv_tol: float = -1.0, zero_tol: float = -1.0):
        """Lemke's method (Drake's pivoting rules unless ``lexicographic_lemke`` is set)."""
        p = dataclasses.replace(self._params, pivot_tolerance=piv_tol, zero_tolerance=zero_tol)
        return self._solve_with(p, LcpAlgorithm.kLemke, M, q)

    def solve_lcp_lemke_regularized(self, M, q, min_exp: int = -20, step_exp: int = 1,
                                    max_exp: int = 1, piv_tol: float = -1.0,
                                    zero_tol: float = -1.0):
        """Lemke, then Lemke on M + 10^e I for e = min_exp, min_exp + step_exp, ... < max_exp."""
        p = dataclasses.replace(
            self._params, pivot_tolerance=piv_tol, zero_tolerance=zero_tol,
            lemke_min_exp=min_exp, lemke_step_exp=step_exp, lemke_max_exp=max_exp,
        )
        return self._solve_with(p, LcpAlgorithm.kLemkeRegularized, M, q)

    def solve_lcp_fast(self, M, q, zero_tol: float = -1.0, z0=None):
        """Principal pivoting; warm-started from ``z0`` (n) when given."""
        p = dataclasses.replace(self._params, zero_tolerance=zero_tol)
        return self._solve_with(p, LcpAlgorithm.kFast, M, q, z0)

    def solve_lcp_fast_regularized(self, M, q, min_exp: int = -20, step_exp: int = 4,
                                   max_exp: int = 20, zero_tol: float = -1.0):
        """Principal pivoting with progressive regularization."""
        p = dataclasses.replace(
            self._params, zero_tolerance=zero_tol,
            fast_min_exp=min_exp, fast_step_exp=step_exp, fast_max_exp=max_exp,
        )
        return self._solve_with(p, LcpAlgorithm.kFastRegularized, M, q)


class UnrevisedLemkeSolver(LcpSolver):
    """Drake's ``UnrevisedLemkeSolver<double>``: ``solve_lcp_lemke(M, q)`` returns
    ``(success, z, num_pivots)``; warm-starts from the previous solve of the same size on this
    object, as Drake does."""

    def solve_lcp_lemke(self, M, q, zero_tol: float = -1.0):
        """Returns (z solves the LCP (checked with ``is_solution``), z, pivots)."""
        p = dataclasses.replace(self._params, zero_tolerance=zero_tol)
        ok, z = self._solve_with(p, LcpAlgorithm.kUnrevisedLemke, M, q)
        return ok, z, self.get_num_pivots()

    @staticmethod
    def compute_zero_tolerance(M, library: Library | str | None = None) -> float:  # type: ignore[override]
        """n·max|M|·2.2 eps."""
        return LcpSolver.compute_zero_tolerance(M, LcpAlgorithm.kUnrevisedLemke, library)
