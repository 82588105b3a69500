"""TAMSI (Drake's ``TamsiSolver``): ``docs/tamsi.md``, sensitivities ``docs/tamsi_sensitivities.md``."""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import math

import numpy as np

from . import _common, _ffi
from ._common import (
    ContactSolversError,
    Library,
    Status,
    _int32,
    _library,
    _ptr,
    _Batch,
    _SolverHandle,
    _vector,
)

__all__ = [
    "TamsiGradient",
    "TamsiSensitivityParameter",
    "TamsiSolver",
    "TamsiSolverIterationStats",
    "TamsiSolverParameters",
    "TamsiSolverResult",
    "calc_alpha",
]

_TamsiHandleP = ctypes.POINTER(_ffi.cts_tamsi_solver)
_TamsiParameters = _ffi.cts_tamsi_parameters
_TamsiIterationStats = _ffi.cts_tamsi_iteration_stats


class TamsiSolverResult(enum.IntEnum):
    """Drake's ``TamsiSolverResult``: the outcome of a TAMSI solve, same names and values."""

    kSuccess = 0
    kMaxIterationsReached = 1
    kLinearSolverFailed = 2
    kAlphaSolverFailed = 3


#: The outcomes by status value (0..3), for a batch's many statuses.
_TAMSI_RESULTS = tuple(TamsiSolverResult)

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
    #: Not Drake's: threads of a solve on block-sparse data, in [0, 256]; 0 or 1 = sequential. The
    #: solver owns its worker threads; results are the sequential bits (docs/performance.md §8).
    num_threads: int = 0


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
        self.__dict__.pop("_nv_kept", None)

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
        c.num_threads = _int32("num_threads", parameters.num_threads)
        self._check(self._lib.cts_tamsi_solver_set_parameters(self._h(), ctypes.byref(c)))

    def get_solver_parameters(self) -> TamsiSolverParameters:
        c = _TamsiParameters()
        self._check(self._lib.cts_tamsi_solver_get_parameters(self._h(), ctypes.byref(c)))
        return TamsiSolverParameters(
            c.stiction_tolerance, int(c.max_iterations), c.relative_tolerance, c.theta_max,
            int(c.num_threads),
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

    def _set_blocks(self, name, names, args, copy) -> None:
        """A block-sparse set call ``name(handle, &data, p_star, *per_contact)``, ``args`` the
        setter's arguments (``names``: those after ``p_star``), through :class:`_BlockSparse`:
        the structure reused while it repeats, lists of blocks packed into reused buffers, the
        arrays of the last call passed again without conversions; the arrays are kept only once
        the call succeeded. Every argument is a pointer: the call passes ints
        (:meth:`Library.untyped`), or with the extension straight from C (``_pack.call``, the
        same call without ctypes' conversions, :meth:`Library.address`)."""
        handle = self._handle or self._h()  # _h() raises: closed
        block = self.__dict__.get("_block") or self._block_sparse()
        # The handle's address and nv, kept per handle: only resize() changes nv (a library
        # call costs about 0.5 µs).
        kept = self.__dict__.get("_nv_kept")
        if kept is None or kept[0] is not handle:
            kept = self._nv_kept = (handle, int(self._lib.cts_tamsi_solver_num_velocities(handle)),
                                    ctypes.cast(handle, ctypes.c_void_p).value)
        function = self._lib._untyped.get(name) or self._lib.untyped(name)
        pack = _common._pack
        if pack is not None:
            call = pack.call
            function_address = self._lib._addresses.get(name) or self._lib.address(name)
        block.begin(self._borrowed)
        if not copy:
            addresses = block.repeat(function, args)
            if addresses is not None:  # the library borrows these very arrays: nothing to keep
                if pack is not None:
                    status = call(function_address, kept[2], block.struct_address, *addresses)
                else:
                    status = function(kept[2], block.struct_address, *addresses)
                if status:
                    raise ContactSolversError(status, self.last_error())
                return
        keep, nc = block.fill(*args[:4], copy)
        vecs = args[4:]
        addresses = None if copy else block.vectors(vecs, kept[1], nc)
        if addresses is None:
            block.copied = True
            vecs = [block.vector(args[4], kept[1], "p_star", copy)]
            vecs += [block.vector(x, nc, n, copy) for n, x in zip(names, args[5:])]
            addresses = [address for _, address in vecs]
            vecs = [v for v, _ in vecs]
        if pack is not None:
            status = call(function_address, kept[2], block.struct_address, *addresses)
        else:
            status = function(kept[2], block.struct_address, *addresses)
        if status:
            raise ContactSolversError(status, self.last_error())
        # Only now: a failed call keeps the old borrow (and the buffers it reads).
        self._borrowed = (*keep, *vecs)
        block.commit(self._borrowed, function, args, addresses)

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
        self._set_blocks(
            "cts_tamsi_solver_set_one_way_coupled_block_problem_data", ("fn", "mu"),
            (tree_dofs, M_blocks, contact_trees, J_blocks, p_star, fn, mu), copy,
        )

    def set_two_way_coupled_block_problem_data(
        self, tree_dofs, M_blocks, contact_trees, J_blocks, p_star, fn0, stiffness, dissipation,
        mu, *, copy=False,
    ) -> None:
        """Two-way data in block-sparse form: as :meth:`set_one_way_coupled_block_problem_data`
        with ``fn0`` (N), ``stiffness`` k (N/m), ``dissipation`` d (s/m) and ``mu``, nc each
        (``fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊``)."""
        self._set_blocks(
            "cts_tamsi_solver_set_two_way_coupled_block_problem_data",
            ("fn0", "stiffness", "dissipation", "mu"),
            (tree_dofs, M_blocks, contact_trees, J_blocks, p_star, fn0, stiffness, dissipation, mu),
            copy,
        )

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

    @staticmethod
    def solve_batch(solvers, dts, v_guesses, num_threads: int = 0) -> list:
        """Many worlds in one call (``cts_tamsi_solver_solve_batch``, ``docs/c_api.md`` §1.10):
        world ``i`` is ``solvers[i].solve_with_guess(dts[i], v_guesses[i])``, with results
        bit-identical to that loop, read afterwards with each solver's getters. One ctypes call
        for the whole batch, which runs without the GIL on ``num_threads`` threads (0 or 1: in
        order on the calling thread).

        ``solvers``: TamsiSolver objects, each with its problem data set, each at most once;
        ``dts``: one time step per world (s); ``v_guesses``: one guess per world (an (n, nv) array
        when the worlds have one size, else a sequence of 1-D arrays). Returns one entry per
        world: a :class:`TamsiSolverResult`, or a :class:`ContactSolversError` (not raised) for a
        usage error of that world (``None``/closed solver, a solver listed twice, no data, a bad
        guess or dt). Raises when the call itself is refused (lengths that do not match).
        """
        batch = _Batch(TamsiSolver, solvers, v_guesses, allow_null_guess=True)
        d = np.ascontiguousarray(dts, dtype=np.float64)
        if d.shape != (batch.count,):
            raise ContactSolversError(
                Status.DIMENSION_MISMATCH, f"dts: shape {d.shape}, expected ({batch.count},)"
            )
        statuses = batch.run(
            "cts_tamsi_solver_solve_batch",
            d.ctypes.data,
            _Batch.pointer(batch.guesses, ctypes.POINTER(ctypes.c_double)),
            _Batch.pointer(batch.ns, ctypes.c_size_t),
            num_threads=num_threads,
        )
        results = _TAMSI_RESULTS
        if statuses.size and statuses.min() >= 0 and statuses.max() <= 3:  # outcomes only
            return list(map(results.__getitem__, statuses.tolist()))
        return [results[s] if 0 <= s <= 3 else batch.error(i, s)
                for i, s in enumerate(statuses.tolist())]

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
