"""Baraff's pivoting contact solver as modified in Darwin2K (``docs/baraff.md``): contact forces
with static (per-direction) and dynamic friction, bilateral and force-limited rows; collision
impulses by an active set; the consistency impulse.

Matrix interface: ``set_matrix_problem_data(A, b, rows)``, a = A f + b. Model interface:
``set_model_problem_data(level, M, J, tau_or_qdot, rows)`` plus ``set_bias`` /
``set_sliding`` / ``set_stabilization``; the solver builds A = J M⁻¹ J_fᵀ and b. Then
:meth:`BaraffSolver.solve`, ``compute_impulses``, ``consistency_impulse`` or ``needs_impulse``,
and the getters. The library borrows the arrays; the solver object keeps them alive until the
next set call of the same kind or :meth:`BaraffSolver.close`.
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
    _ptr,
    _real,
    _SolverHandle,
    _vector,
)

__all__ = [
    "BaraffLevel",
    "BaraffOutcome",
    "BaraffRowSet",
    "BaraffRows",
    "BaraffSolver",
    "BaraffSolverParameters",
    "BaraffSolverStats",
]


class BaraffOutcome(enum.IntEnum):
    """``cts::BaraffOutcome``: how a Baraff call ended (``CTS_STATUS_BARAFF_*``)."""

    kSolved = Status.OK
    kInexact = Status.BARAFF_INEXACT
    kUnboundedRay = Status.BARAFF_UNBOUNDED_RAY
    kCycling = Status.BARAFF_CYCLING
    kPivotLimit = Status.BARAFF_PIVOT_LIMIT
    kIterationLimit = Status.BARAFF_ITERATION_LIMIT
    kFrictionlessFallback = Status.BARAFF_FRICTIONLESS_FALLBACK


class BaraffRowSet(enum.IntEnum):
    """The set a row ended in (``CTS_BARAFF_SET_*``)."""

    kClamped = _ffi.CTS_BARAFF_SET_CLAMPED
    kSeparating = _ffi.CTS_BARAFF_SET_SEPARATING
    kAtUpper = _ffi.CTS_BARAFF_SET_AT_UPPER
    kAtLower = _ffi.CTS_BARAFF_SET_AT_LOWER
    kDeferred = _ffi.CTS_BARAFF_SET_DEFERRED
    kLockedUpper = _ffi.CTS_BARAFF_SET_LOCKED_UPPER
    kLockedLower = _ffi.CTS_BARAFF_SET_LOCKED_LOWER
    kUntreated = _ffi.CTS_BARAFF_SET_UNTREATED


class BaraffLevel(enum.IntEnum):
    """Level of model data: forces (tau_or_qdot = τ − c, result q̈) or impulses (pre-impulse
    q̇, result q̇⁺)."""

    kAcceleration = _ffi.CTS_BARAFF_LEVEL_ACCELERATION
    kVelocity = _ffi.CTS_BARAFF_LEVEL_VELOCITY


@dataclasses.dataclass
class BaraffSolverParameters:
    """``cts_baraff_parameters`` (defaults are the library's)."""

    #: ε of the pivoting comparisons (relative), in (0, 1).
    epsilon: float = 1.0e-10
    #: Singular Schur pivots (relative), in [0, 1).
    singular_tolerance: float = 1.0e-9
    #: Verification tolerance (relative), > 0: above it a solve returns kInexact.
    tolerance: float = 1.0e-8
    #: Restitution e of compute_impulses, in [0, 1].
    restitution: float = 0.0
    #: cDotTol of the impulse calls, m/s, >= 0.
    cdot_tolerance: float = 1.0e-6
    #: Pivot cap of one attempt; 0: 50·m + 50.
    max_pivots: int = 0
    #: Iteration cap of compute_impulses; 0: max(100, 4·m).
    max_impulse_iterations: int = 0
    #: Retry an unverified solve with the friction rows in reverse order.
    reverse_retry: bool = True


@dataclasses.dataclass
class BaraffSolverStats:
    """Statistics of the last solve call."""

    outcome: BaraffOutcome
    #: The row an unbounded ray appeared at, -1 otherwise.
    row: int
    pivots: int
    iterations: int
    #: Worst relative violation of the row conditions.
    worst_violation: float


class BaraffRows:
    """The rows of a Baraff problem (``docs/baraff.md`` §1); the ``add_*`` calls return the new
    row's index."""

    def __init__(self):
        self.kind: list[int] = []
        self.normal: list[int] = []
        self.mu: list[float] = []
        self.lo: list[float] = []
        self.hi: list[float] = []

    def _add(self, k: int, n: int, mu: float, lo: float, hi: float) -> int:
        self.kind.append(k)
        self.normal.append(n)
        self.mu.append(float(mu))
        self.lo.append(float(lo))
        self.hi.append(float(hi))
        return len(self.kind) - 1

    def add_bilateral(self) -> int:
        """Joint or closure: free force, a = 0."""
        return self._add(_ffi.CTS_BARAFF_ROW_BILATERAL, -1, 0.0, 0.0, 0.0)

    def add_normal(self) -> int:
        """Unilateral normal: f >= 0, a >= 0, f a = 0."""
        return self._add(_ffi.CTS_BARAFF_ROW_NORMAL, -1, 0.0, 0.0, 0.0)

    def add_friction(self, normal: int, mu: float) -> int:
        """Static friction along one tangent, |f| <= mu f_normal (``normal``: a normal row)."""
        return self._add(_ffi.CTS_BARAFF_ROW_FRICTION, _int32("normal", normal), mu, 0.0, 0.0)

    def add_boxed(self, lo: float, hi: float) -> int:
        """Force-limited row, lo <= f <= hi with lo <= 0 <= hi (may be infinite)."""
        return self._add(_ffi.CTS_BARAFF_ROW_BOXED, -1, 0.0, lo, hi)

    def __len__(self) -> int:
        return len(self.kind)

    def _arrays(self):
        """Copies of the row arrays (the library borrows them)."""
        return (np.array(self.kind, dtype=np.int32), np.array(self.normal, dtype=np.int32),
                np.array(self.mu, dtype=np.float64), np.array(self.lo, dtype=np.float64),
                np.array(self.hi, dtype=np.float64))


def _i32p(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)) if a.size else None


def _p(a: np.ndarray):
    return _ptr(a) if a.size else None


def _dense(x, rows: int, cols: int, name: str) -> np.ndarray:
    a = np.asarray(x)
    _real(a, name)
    if a.ndim != 2 or a.shape != (rows, cols):
        raise ContactSolversError(
            Status.DIMENSION_MISMATCH, f"{name}: shape {a.shape}, expected ({rows}, {cols})"
        )
    return np.asfortranarray(a, dtype=np.float64)


class BaraffSolver(_SolverHandle):
    """``cts::BaraffSolver`` (``cts_baraff_solver_*``). Usage errors raise
    :class:`ContactSolversError`; outcomes are returned (:class:`BaraffOutcome`)."""

    _name = "baraff"
    _handle_p = ctypes.POINTER(_ffi.cts_baraff_solver)

    def __init__(self, parameters: BaraffSolverParameters | None = None,
                 library: Library | str | None = None):
        self._extras: dict = {}
        self._open(library)
        if parameters is not None:
            self.set_solver_parameters(parameters)

    @classmethod
    def _adopt(cls, library, handle):
        self = super()._adopt(library, handle)
        self._extras = {}
        return self

    def close(self) -> None:
        super().close()
        self._extras = {}

    def set_solver_parameters(self, p: BaraffSolverParameters) -> None:
        """Sets (and validates) the parameters."""
        c = _ffi.cts_baraff_parameters()
        for f in ("epsilon", "singular_tolerance", "tolerance", "restitution", "cdot_tolerance"):
            setattr(c, f, float(getattr(p, f)))
        c.max_pivots = _int32("max_pivots", p.max_pivots)
        c.max_impulse_iterations = _int32("max_impulse_iterations", p.max_impulse_iterations)
        c.reverse_retry = 1 if p.reverse_retry else 0
        self._check(self._lib.cts_baraff_solver_set_parameters(self._h(), ctypes.byref(c)))

    def get_solver_parameters(self) -> BaraffSolverParameters:
        c = _ffi.cts_baraff_parameters()
        self._check(self._lib.cts_baraff_solver_get_parameters(self._h(), ctypes.byref(c)))
        v = {f: getattr(c, f) for f, _ in c._fields_}
        v["reverse_retry"] = bool(v["reverse_retry"])
        return BaraffSolverParameters(**v)

    def reserve(self, m: int, n: int) -> None:
        """Grows the workspace for m rows and n coordinates."""
        if m < 0 or n < 0:
            raise ContactSolversError(Status.INVALID_ARGUMENT, "negative size")
        self._check(self._lib.cts_baraff_solver_reserve(self._h(), int(m), int(n)))

    def num_rows(self) -> int:
        return int(self._lib.cts_baraff_solver_num_rows(self._h()))

    def num_coordinates(self) -> int:
        """n of the current model data (0 for matrix data)."""
        return int(self._lib.cts_baraff_solver_num_coordinates(self._h()))

    # -- data ----------------------------------------------------------------------------------

    def set_matrix_problem_data(self, A, b, rows: BaraffRows) -> None:
        """a = A f + b: A m×m (units of a per unit of f), b m; m = len(rows)."""
        m = len(rows)
        a, bv = _dense(A, m, m, "A"), _vector(b, m, "b", False)
        kind, normal, mu, lo, hi = rows._arrays()
        self._check(self._lib.cts_baraff_solver_set_matrix_problem_data(
            self._h(), m, _p(a), max(1, m), _p(bv), _i32p(kind), _i32p(normal), _p(mu), _p(lo), _p(hi)))
        self._borrowed = (a, bv, kind, normal, mu, lo, hi)
        self._extras = {}

    def set_model_problem_data(self, level: BaraffLevel, M, J, tau_or_qdot, rows: BaraffRows) -> None:
        """Model data: M n×n (kg, kg·m²), J m×n, tau_or_qdot n (τ − c in N at kAcceleration,
        q̇ in m/s at kVelocity). Removes bias, sliding and stabilisation."""
        m = len(rows)
        Mi = np.asarray(M)
        n = Mi.shape[0] if Mi.ndim == 2 else -1
        Md, Jd = _dense(Mi, n, n, "M"), _dense(J, m, n, "J")
        t = _vector(tau_or_qdot, n, "tau_or_qdot", False)
        kind, normal, mu, lo, hi = rows._arrays()
        self._check(self._lib.cts_baraff_solver_set_model_problem_data(
            self._h(), m, n, _p(Md), max(1, n), _p(Jd), max(1, m), int(level), _p(t),
            _i32p(kind), _i32p(normal), _p(mu), _p(lo), _p(hi)))
        self._borrowed = (Md, Jd, t, kind, normal, mu, lo, hi)
        self._extras = {}

    def set_bias(self, bias) -> None:
        """Bias added to b (m): J̇ q̇ at acceleration level."""
        m = self.num_rows()
        v = _vector(bias, m, "bias", False)
        self._check(self._lib.cts_baraff_solver_set_model_bias(self._h(), _p(v), m))
        self._extras["bias"] = v

    def set_sliding(self, Q, mu_d) -> None:
        """Sliding friction: Q m×n, mu_d m."""
        m, n = self.num_rows(), self.num_coordinates()
        q, mu = _dense(Q, m, n, "Q"), _vector(mu_d, m, "mu_d", False)
        self._check(self._lib.cts_baraff_solver_set_model_sliding(self._h(), _p(q), max(1, m), _p(mu), m))
        self._extras["sliding"] = (q, mu)

    def set_stabilization(self, kp: float, kv: float, position_error, velocity_error=None) -> None:
        """Baumgarte stabilisation: position_error m, velocity_error m or None (no kv term)."""
        m = self.num_rows()
        pe = _vector(position_error, m, "position_error", False)
        ve = None if velocity_error is None else _vector(velocity_error, m, "velocity_error", False)
        self._check(self._lib.cts_baraff_solver_set_model_stabilization(
            self._h(), float(kp), float(kv), _p(pe), 0 if ve is None else 1,
            None if ve is None else _p(ve), m))
        self._extras["stabilization"] = (pe, ve)

    # -- solves --------------------------------------------------------------------------------

    def _outcome(self, status: int) -> BaraffOutcome:
        if status >= Status.NULL_POINTER or status == Status.NON_FINITE_RESULT:
            raise ContactSolversError(status, self.last_error())
        return BaraffOutcome(status)

    def solve(self) -> BaraffOutcome:
        """§3 pivoting on the current data (forces, or impulses at velocity level)."""
        return self._outcome(self._lib.cts_baraff_solver_solve(self._h()))

    def compute_impulses(self) -> BaraffOutcome:
        """§8 active-set impulses on velocity-level model data."""
        return self._outcome(self._lib.cts_baraff_solver_compute_impulses(self._h()))

    def consistency_impulse(self, sticking_normal: int) -> BaraffOutcome:
        """§7 consistency impulse, the contact of row ``sticking_normal`` sticking."""
        if sticking_normal < 0:
            raise ContactSolversError(Status.INVALID_ARGUMENT, "negative row index")
        return self._outcome(self._lib.cts_baraff_solver_consistency_impulse(self._h(), int(sticking_normal)))

    def needs_impulse(self) -> bool:
        """§8 needsImpulse on velocity-level model data."""
        out = ctypes.c_int32()
        self._check(self._lib.cts_baraff_solver_needs_impulse(self._h(), ctypes.byref(out)))
        return out.value != 0

    def _get(self, name: str, n: int) -> np.ndarray:
        out = np.zeros(n)
        self._check(getattr(self._lib, f"cts_baraff_solver_get_{name}")(self._h(), _p(out), n))
        return out

    def forces(self) -> np.ndarray:
        """Row forces f (m; N, or N·s at velocity level)."""
        return self._get("forces", self.num_rows())

    def accelerations(self) -> np.ndarray:
        """Row accelerations a = A f + b (m; post-impulse velocities at velocity level)."""
        return self._get("accelerations", self.num_rows())

    def generalized_result(self) -> np.ndarray:
        """q̈ or q̇⁺ (n), model data only."""
        return self._get("generalized_result", self.num_coordinates())

    def generalized_change(self) -> np.ndarray:
        """M⁻¹ J_fᵀ f (n): Δq̇ of an impulse, model data only."""
        return self._get("generalized_change", self.num_coordinates())

    def sliding_friction_forces(self) -> np.ndarray:
        """−μ_d f per row (m), model data only."""
        return self._get("sliding_friction_forces", self.num_rows())

    def composed_b(self) -> np.ndarray:
        """b as composed from the model (m)."""
        return self._get("composed_b", self.num_rows())

    def composed_matrix(self) -> np.ndarray:
        """A = J M⁻¹ J_fᵀ as composed from the model (m×m)."""
        m = self.num_rows()
        out = np.zeros((m, m), order="F")
        scratch = np.zeros(1)
        self._check(self._lib.cts_baraff_solver_get_composed_matrix(
            self._h(), _p(out) if m else _p(scratch), max(1, m)))
        return out

    def row_sets(self) -> list:
        """The set each row ended in (m)."""
        m = self.num_rows()
        codes = np.zeros(m, dtype=np.int32)
        self._check(self._lib.cts_baraff_solver_get_row_sets(self._h(), _i32p(codes), m))
        return [BaraffRowSet(c) for c in codes]

    def stats(self) -> BaraffSolverStats:
        """Statistics of the last solve call."""
        c = _ffi.cts_baraff_stats()
        self._check(self._lib.cts_baraff_solver_get_stats(self._h(), ctypes.byref(c)))
        return BaraffSolverStats(BaraffOutcome(c.status), c.row, c.pivots, c.iterations, c.worst_violation)
