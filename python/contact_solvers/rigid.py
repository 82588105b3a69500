"""Drake's rigid-contact ``ConstraintSolver`` (``docs/rigid.md``): contact, friction, limits and
bilateral constraints at the acceleration level (forces, N), the velocity level (impulses, N·s)
and as a discretized time step (forces over dt).

Problem data mirrors Drake's ``ConstraintAccelProblemData`` / ``ConstraintVelProblemData`` (and
``cts::`` in ``contact_solvers.hpp``). Each operator field (``N_mult``, ``F_transpose_mult``, ...)
is ``None`` (Drake's default, the zero map), a Jacobian (a 2-D array, rows = constraint count,
columns = nv: give the Jacobian itself to both ``*_mult`` and ``*_transpose_mult``), or a Python
callable ``y = f(x)`` like Drake's ``std::function`` fields. ``solve_inertia`` is an
:class:`InertiaSolve` (from M or M⁻¹) or a callable ``x = M⁻¹ b``. The data is handed to the
library at each solve or compute call; the solver keeps it (and the ctypes callbacks) alive until
the next call with data of the same level, or :meth:`ConstraintSolver.close`.

A Python exception raised by a callable makes the call fail with
``ContactSolversError(Status.CALLBACK_FAILED)`` whose message holds the exception's text (the
exception itself is the error's ``__cause__``); it never crosses the library.
"""

from __future__ import annotations

import ctypes
import dataclasses
import enum
from typing import Callable, Optional, Sequence, Union

import numpy as np

from . import _ffi
from ._common import (
    ContactSolversError,
    Library,
    Status,
    _ptr,
    _real,
    _SolverHandle,
    _vector,
)

__all__ = [
    "ConstraintAccelProblemData",
    "ConstraintSolver",
    "ConstraintSolverParameters",
    "ConstraintVelProblemData",
    "InertiaSolve",
    "RigidOutcome",
]

#: An operator: None (zero map), a Jacobian (rows × nv), or a callable x -> y.
Operator = Union[None, np.ndarray, Sequence, Callable[[np.ndarray], np.ndarray]]


class RigidOutcome(enum.IntEnum):
    """``cts::RigidOutcome``: how a solve ended (Drake throws where these are not kSolved)."""

    kSolved = Status.OK
    #: "Unable to solve LCP- it may be unsolvable." (acceleration level, discretized).
    kLcpUnsolvable = Status.RIGID_LCP_UNSOLVABLE
    #: "Progressively regularized LCP solve failed." (impacts).
    kRegularizedLcpFailed = Status.RIGID_REGULARIZED_LCP_FAILED


@dataclasses.dataclass
class ConstraintSolverParameters:
    """Drake-compatibility switches (all False: the corrected behaviour; ``cts_rigid_parameters``,
    ``docs/rigid.md``)."""

    drake_inverse_inertia_blocks: bool = False
    drake_limit_row_transpose: bool = False
    drake_double_gamma: bool = False
    drake_empty_fast_exit: bool = False

    @staticmethod
    def drake_head() -> "ConstraintSolverParameters":
        """Every switch on: Drake HEAD's numbers."""
        return ConstraintSolverParameters(True, True, True, True)


class InertiaSolve:
    """Drake's ``solve_inertia`` given as a matrix: :meth:`matrix` (M itself, SPD, lower triangle
    read, factored at every call) or :meth:`inverse` (M⁻¹). A callable ``b -> M⁻¹ b`` is also
    accepted wherever an InertiaSolve is."""

    def __init__(self, form: int, A):
        self.form = form
        self.A = A

    @staticmethod
    def matrix(M) -> "InertiaSolve":
        return InertiaSolve(_ffi.CTS_RIGID_INERTIA_MATRIX, M)

    @staticmethod
    def inverse(M_inverse) -> "InertiaSolve":
        return InertiaSolve(_ffi.CTS_RIGID_INERTIA_INVERSE, M_inverse)


@dataclasses.dataclass
class ConstraintAccelProblemData:
    """Drake's ``ConstraintAccelProblemData`` (forces, N; accelerations, m/s²). Sizes are implied:
    nv = len(tau), nc = sliding + non-sliding contacts, nr = Σ r, nu = len(kL), nb = len(kG). See
    ``cts_rigid_solver_set_accel_problem_data`` for every field."""

    tau: np.ndarray
    sliding_contacts: Sequence[int] = ()
    non_sliding_contacts: Sequence[int] = ()
    #: Spanning friction directions per non-sliding contact (1 in 2-D, 2 for a 3-D pyramid).
    r: Sequence[int] = ()
    mu_sliding: Sequence[float] = ()
    mu_non_sliding: Sequence[float] = ()
    N_mult: Operator = None
    N_minus_muQ_transpose_mult: Operator = None
    #: N v̇ + kN >= 0 (nc, m/s²).
    kN: Sequence[float] = ()
    F_mult: Operator = None
    F_transpose_mult: Operator = None
    kF: Sequence[float] = ()
    L_mult: Operator = None
    L_transpose_mult: Operator = None
    kL: Sequence[float] = ()
    G_mult: Operator = None
    G_transpose_mult: Operator = None
    kG: Sequence[float] = ()
    solve_inertia: Optional[Union[InertiaSolve, Callable[[np.ndarray], np.ndarray]]] = None
    use_complementarity_problem_solver: bool = True


@dataclasses.dataclass
class ConstraintVelProblemData:
    """Drake's ``ConstraintVelProblemData`` (impulses, N·s; forces for the discretized problem):
    nv = len(Mv), nc = len(mu); empty γ vectors mean no regularization. See
    ``cts_rigid_solver_set_vel_problem_data``."""

    #: M v (nv, N·s): the generalized momentum before the impact / step.
    Mv: np.ndarray
    mu: Sequence[float] = ()
    r: Sequence[int] = ()
    N_mult: Operator = None
    N_transpose_mult: Operator = None
    kN: Sequence[float] = ()
    gammaN: Sequence[float] = ()
    F_mult: Operator = None
    F_transpose_mult: Operator = None
    kF: Sequence[float] = ()
    gammaF: Sequence[float] = ()
    gammaE: Sequence[float] = ()
    L_mult: Operator = None
    L_transpose_mult: Operator = None
    kL: Sequence[float] = ()
    gammaL: Sequence[float] = ()
    G_mult: Operator = None
    G_transpose_mult: Operator = None
    kG: Sequence[float] = ()
    solve_inertia: Optional[Union[InertiaSolve, Callable[[np.ndarray], np.ndarray]]] = None


def _indices(x, name: str) -> np.ndarray:
    """A contiguous ``size_t`` array of non-negative integers."""
    a = np.asarray(x)
    if a.size == 0:
        return np.zeros(0, dtype=np.uintp)
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise ContactSolversError(
            Status.INVALID_ARGUMENT, f"{name}: expected a 1-D sequence of integers, got {a.dtype} {a.shape}"
        )
    if np.any(a < 0):
        raise ContactSolversError(Status.INVALID_ARGUMENT, f"{name} has a negative entry")
    return np.ascontiguousarray(a, dtype=np.uintp)


def _vec(x, name: str) -> np.ndarray:
    a = np.asarray(x)
    _real(a, name)
    if a.ndim != 1:
        if a.size == 0:
            return np.zeros(0)
        raise ContactSolversError(Status.DIMENSION_MISMATCH, f"{name}: shape {a.shape}, expected 1-D")
    return _vector(a, a.shape[0], name, False)


def _opt(a: np.ndarray):
    return _ptr(a) if a.size else None


def _sz(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_size_t)) if a.size else None


def _operator_specs(d, n_transpose: str, nc: int, nr: int, nu: int, nb: int):
    """(operator code, field name, value, rows) of the eight operators of either level's data;
    ``n_transpose`` is the level's transposed normal operator (N − μQ at the acceleration level,
    N at the velocity level)."""
    O = _ffi
    return [
        (O.CTS_RIGID_OPERATOR_N_MULT, "N_mult", d.N_mult, nc),
        (O.CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT
         if n_transpose == "N_minus_muQ_transpose_mult" else O.CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT,
         n_transpose, getattr(d, n_transpose), nc),
        (O.CTS_RIGID_OPERATOR_F_MULT, "F_mult", d.F_mult, nr),
        (O.CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, "F_transpose_mult", d.F_transpose_mult, nr),
        (O.CTS_RIGID_OPERATOR_L_MULT, "L_mult", d.L_mult, nu),
        (O.CTS_RIGID_OPERATOR_L_TRANSPOSE_MULT, "L_transpose_mult", d.L_transpose_mult, nu),
        (O.CTS_RIGID_OPERATOR_G_MULT, "G_mult", d.G_mult, nb),
        (O.CTS_RIGID_OPERATOR_G_TRANSPOSE_MULT, "G_transpose_mult", d.G_transpose_mult, nb),
    ]


class ConstraintSolver(_SolverHandle):
    """Drake's ``ConstraintSolver<double>`` (``cts_rigid_solver_*``). The packed result is
    cf = [fN (nc) | fF (nr) | fL (nu) | fG (nb)]. Usage errors and failed callbacks raise
    :class:`ContactSolversError`; outcomes are returned (:class:`RigidOutcome`) with cf."""

    _name = "rigid"
    _handle_p = ctypes.POINTER(_ffi.cts_rigid_solver)

    def __init__(self, parameters: ConstraintSolverParameters | None = None,
                 library: Library | str | None = None):
        self._levels: dict = {}
        self._callback_error: BaseException | None = None
        self._open(library)
        if parameters is not None:
            self.set_parameters(parameters)

    @classmethod
    def _adopt(cls, library, handle):
        self = super()._adopt(library, handle)
        self._levels = {}
        self._callback_error = None
        return self

    def close(self) -> None:
        super().close()
        self._levels = {}  # the callbacks may go only once the handle is freed

    def set_parameters(self, parameters: ConstraintSolverParameters) -> None:
        """Sets the Drake-compatibility switches."""
        c = _ffi.cts_rigid_parameters()
        for f, _ in c._fields_:
            setattr(c, f, 1 if getattr(parameters, f) else 0)
        self._check(self._lib.cts_rigid_solver_set_parameters(self._h(), ctypes.byref(c)))

    def get_parameters(self) -> ConstraintSolverParameters:
        c = _ffi.cts_rigid_parameters()
        self._check(self._lib.cts_rigid_solver_get_parameters(self._h(), ctypes.byref(c)))
        return ConstraintSolverParameters(*(bool(getattr(c, f)) for f, _ in c._fields_))

    # -- handing the data over ----------------------------------------------------------------

    def _trampoline(self, fn, name: str):
        """A ctypes callback running ``fn``: 0 on success; 1 (the library's CALLBACK_FAILED)
        when ``fn`` raises or returns a wrong size, the exception kept for the caller."""

        def call(_user_data, x, n_in, out, n_out):
            try:
                xin = np.ctypeslib.as_array(ctypes.cast(x, ctypes.POINTER(ctypes.c_double)), (n_in,)).copy() \
                    if n_in else np.zeros(0)
                y = np.asarray(fn(xin), dtype=np.float64).reshape(-1)
                if y.shape[0] != n_out:
                    raise ContactSolversError(
                        Status.DIMENSION_MISMATCH,
                        f"{name} returned a vector of size {y.shape[0]}, expected {n_out}",
                    )
                if n_out:
                    ctypes.memmove(out, y.ctypes.data, 8 * n_out)
                return 0
            except BaseException as e:  # noqa: BLE001: nothing may unwind into the library
                if self._callback_error is None:
                    self._callback_error = e
                return 1

        return _ffi.cts_rigid_operator_fn(call)

    def _operators(self, accel: bool, specs, nv: int, keep: list) -> None:
        set_matrix = (self._lib.cts_rigid_solver_set_accel_operator_matrix if accel
                      else self._lib.cts_rigid_solver_set_vel_operator_matrix)
        set_callback = (self._lib.cts_rigid_solver_set_accel_operator_callback if accel
                        else self._lib.cts_rigid_solver_set_vel_operator_callback)
        for op, name, value, rows in specs:
            if value is None:
                continue
            if callable(value):
                cb = self._trampoline(value, name)
                keep.append(cb)
                self._check(set_callback(self._h(), op, cb, None))
                continue
            a = np.asarray(value)
            _real(a, name)
            if a.ndim != 2 or a.shape != (rows, nv):
                raise ContactSolversError(
                    Status.DIMENSION_MISMATCH,
                    f"{name}: the Jacobian is {a.shape}, expected ({rows}, {nv})",
                )
            a = np.asfortranarray(a, dtype=np.float64)
            keep.append(a)
            self._check(set_matrix(self._h(), op, _opt(a), max(1, rows)))

    def _inertia(self, accel: bool, s, nv: int, keep: list) -> None:
        if s is None:
            return
        if callable(s) and not isinstance(s, InertiaSolve):
            self._operators(accel, [(_ffi.CTS_RIGID_OPERATOR_SOLVE_INERTIA, "solve_inertia", s, 0)], nv, keep)
            return
        a = np.asarray(s.A)
        _real(a, "solve_inertia")
        if a.shape != (nv, nv):
            raise ContactSolversError(Status.DIMENSION_MISMATCH, "solve_inertia: the matrix is not nv x nv")
        a = np.asfortranarray(a, dtype=np.float64)
        keep.append(a)
        f = (self._lib.cts_rigid_solver_set_accel_inertia_matrix if accel
             else self._lib.cts_rigid_solver_set_vel_inertia_matrix)
        self._check(f(self._h(), s.form, _opt(a), max(1, nv)))

    def _push_accel(self, d: ConstraintAccelProblemData) -> int:
        sliding = _indices(d.sliding_contacts, "sliding_contacts")
        non_sliding = _indices(d.non_sliding_contacts, "non_sliding_contacts")
        r = _indices(d.r, "r")
        mu_s, mu_ns = _vec(d.mu_sliding, "mu_sliding"), _vec(d.mu_non_sliding, "mu_non_sliding")
        kN, kF, kL, kG, tau = (_vec(getattr(d, f), f) for f in ("kN", "kF", "kL", "kG", "tau"))
        nv, nc, nr = tau.shape[0], sliding.shape[0] + non_sliding.shape[0], int(r.sum())
        nu, nb = kL.shape[0], kG.shape[0]
        keep = [sliding, non_sliding, r, mu_s, mu_ns, kN, kF, kL, kG, tau]
        self._check(self._lib.cts_rigid_solver_set_accel_problem_data(
            self._h(), nv, sliding.shape[0], _sz(sliding), _opt(mu_s), non_sliding.shape[0],
            _sz(non_sliding), _opt(mu_ns), _sz(r), _opt(kN), _opt(kF), nu, _opt(kL), nb, _opt(kG),
            _opt(tau), 1 if d.use_complementarity_problem_solver else 0,
        ))
        # The library now reads these arrays (operators reset to zero): drop the previous ones.
        self._levels["accel"] = keep
        self._operators(True, _operator_specs(d, "N_minus_muQ_transpose_mult", nc, nr, nu, nb), nv, keep)
        self._inertia(True, d.solve_inertia, nv, keep)
        return nv

    def _push_vel(self, d: ConstraintVelProblemData) -> int:
        r = _indices(d.r, "r")
        names = ("mu", "kN", "gammaN", "kF", "gammaF", "gammaE", "kL", "gammaL", "kG", "Mv")
        v = {f: _vec(getattr(d, f), f) for f in names}
        nv, nc, nr = v["Mv"].shape[0], v["mu"].shape[0], int(r.sum())
        nu, nb = v["kL"].shape[0], v["kG"].shape[0]
        keep = [r, *v.values()]
        self._check(self._lib.cts_rigid_solver_set_vel_problem_data(
            self._h(), nv, nc, _sz(r), _opt(v["mu"]), _opt(v["kN"]), _opt(v["gammaN"]),
            _opt(v["kF"]), _opt(v["gammaF"]), _opt(v["gammaE"]), nu, _opt(v["kL"]),
            _opt(v["gammaL"]), nb, _opt(v["kG"]), _opt(v["Mv"]),
        ))
        self._levels["vel"] = keep
        self._operators(False, _operator_specs(d, "N_transpose_mult", nc, nr, nu, nb), nv, keep)
        self._inertia(False, d.solve_inertia, nv, keep)
        return nv

    def _push(self, data) -> int:
        if isinstance(data, ConstraintAccelProblemData):
            return self._push_accel(data)
        if isinstance(data, ConstraintVelProblemData):
            return self._push_vel(data)
        raise ContactSolversError(
            Status.INVALID_ARGUMENT, f"expected ConstraintAccelProblemData or ConstraintVelProblemData, got {type(data).__name__}"
        )

    def _call(self, status: int) -> int:
        """Raises for usage errors and failed callbacks (with the callback's exception as the
        cause and its text in the message); returns outcomes."""
        error, self._callback_error = self._callback_error, None
        if status == Status.CALLBACK_FAILED or status == Status.NON_FINITE_RESULT or status >= Status.NULL_POINTER:
            message = self.last_error()
            if error is not None:
                message = f"{message}: {type(error).__name__}: {error}"
                raise ContactSolversError(status, message) from error
            raise ContactSolversError(status, message)
        return status

    def _finish(self, status: int):
        outcome = RigidOutcome(self._call(status))
        n = self._lib.cts_rigid_solver_num_constraint_forces(self._h())
        cf = np.zeros(n)
        self._check(self._lib.cts_rigid_solver_get_constraint_forces(self._h(), _opt(cf), n))
        return outcome, cf

    # -- solves ---------------------------------------------------------------------------------

    def solve_constraint_problem(self, data: ConstraintAccelProblemData):
        """Drake's ``SolveConstraintProblem``: (outcome, cf) with forces in N."""
        self._push_accel(data)
        self._callback_error = None
        return self._finish(self._lib.cts_rigid_solver_solve_constraint_problem(self._h()))

    def solve_impact_problem(self, data: ConstraintVelProblemData):
        """Drake's ``SolveImpactProblem``: (outcome, cf) with impulses in N·s."""
        self._push_vel(data)
        self._callback_error = None
        return self._finish(self._lib.cts_rigid_solver_solve_impact_problem(self._h()))

    def solve_discretized_problem(self, data: ConstraintVelProblemData, dt: float):
        """The discretized problem over ``dt`` (s): (outcome, cf) with forces in N."""
        self._push_vel(data)
        self._callback_error = None
        return self._finish(self._lib.cts_rigid_solver_solve_discretized_problem(self._h(), float(dt)))

    def _compute(self, fn, nv: int, cf) -> np.ndarray:
        c = _vec(cf, "cf")
        out = np.zeros(nv)
        self._callback_error = None
        self._call(fn(self._h(), _opt(c), c.shape[0], _opt(out), nv))
        return out

    def compute_generalized_force_from_constraint_forces(self, data, cf) -> np.ndarray:
        """Accel data: (N − μQ)ᵀfN + FᵀfF + LᵀfL + GᵀfG (nv, N). Vel data: the generalized
        impulse NᵀfN + FᵀfF + LᵀfL + GᵀfG (nv, N·s)."""
        nv = self._push(data)
        f = (self._lib.cts_rigid_solver_compute_generalized_force_from_constraint_forces
             if isinstance(data, ConstraintAccelProblemData)
             else self._lib.cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses)
        return self._compute(f, nv, cf)

    def compute_generalized_acceleration_from_constraint_forces(
        self, data: ConstraintAccelProblemData, cf
    ) -> np.ndarray:
        """M⁻¹ · the generalized force of cf (nv, m/s²)."""
        nv = self._push_accel(data)
        return self._compute(
            self._lib.cts_rigid_solver_compute_generalized_acceleration_from_constraint_forces, nv, cf
        )

    def compute_generalized_acceleration(self, data: ConstraintAccelProblemData, cf) -> np.ndarray:
        """M⁻¹(generalized force of cf + tau) (nv, m/s²)."""
        nv = self._push_accel(data)
        return self._compute(self._lib.cts_rigid_solver_compute_generalized_acceleration, nv, cf)

    def compute_generalized_velocity_change(self, data: ConstraintVelProblemData, cf) -> np.ndarray:
        """Δv = M⁻¹ · the generalized impulse of cf (nv, m/s)."""
        nv = self._push_vel(data)
        return self._compute(self._lib.cts_rigid_solver_compute_generalized_velocity_change, nv, cf)

    def compute_generalized_acceleration_discretized(
        self, data: ConstraintVelProblemData, v, cf, dt: float
    ) -> np.ndarray:
        """(M⁻¹(Mv + dt·gf) − v)/dt for the discretized problem's forces cf (nv, m/s²)."""
        nv = self._push_vel(data)
        vv, c = _vector(v, nv, "v", False), _vec(cf, "cf")
        out = np.zeros(nv)
        self._callback_error = None
        self._call(self._lib.cts_rigid_solver_compute_generalized_acceleration_discretized(
            self._h(), _opt(vv), _opt(c), c.shape[0], float(dt), _opt(out), nv))
        return out

    def num_pivots(self) -> int:
        """Lemke pivots of the last solve."""
        return int(self._lib.cts_rigid_solver_num_pivots(self._h()))

    def regularization_used(self) -> bool:
        """Whether the last impact solve needed the regularized LCP."""
        return self._lib.cts_rigid_solver_regularization_used(self._h()) == 1
