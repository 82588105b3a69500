"""The interior point (Dojo's solver): ``docs/ipm.md``."""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import math

import numpy as np

from . import _ffi
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
    "IpmContactModel",
    "IpmNewtonSolve",
    "IpmOutcome",
    "IpmSensitivityParameter",
    "IpmSolver",
    "IpmSolverParameters",
    "IpmSolverStats",
]

_IpmHandleP = ctypes.POINTER(_ffi.cts_ipm_solver)
_IpmParameters = _ffi.cts_ipm_parameters
_IpmStats = _ffi.cts_ipm_stats


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


#: The outcomes by status value, for a batch's many statuses.
_IPM_OUTCOMES = {int(o): o for o in IpmOutcome}


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
    #: Engine iteration: near-rigid regularization β of every contact's normal row
    #: (docs/ipm.md §11.7); 0 = hard contact (default); :meth:`engine` sets 1.
    near_rigid_beta: float = 0.0
    #: Engine iteration: tolerance of the scaled natural-map error that kConverged also requires
    #: (docs/ipm.md §11.8); 0 = off; :meth:`engine` sets 0.
    natural_map_tolerance: float = 1.0e-6
    #: Threads of a solve on block-sparse data, in [0, 256]; 0 or 1 = sequential. The solver owns
    #: its worker threads; results are the sequential bits (docs/performance.md §8).
    num_threads: int = 0

    @classmethod
    def engine(cls) -> "IpmSolverParameters":
        """The engine preset (``cts_ipm_parameters_engine``, docs/ipm.md §11.7): the defaults with
        per-contact near-rigid normal regularization (``near_rigid_beta = 1``) and no natural-map
        test; friction stays exact Coulomb."""
        return cls(near_rigid_beta=1.0, natural_map_tolerance=0.0)


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
    #: Engine iteration: scaled natural-map error of the returned iterate (dimensionless,
    #: ``docs/ipm.md`` §11.8), computed at every setting.
    natural_map: float = 0.0


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
        c.near_rigid_beta = float(p.near_rigid_beta)
        c.natural_map_tolerance = float(p.natural_map_tolerance)
        c.num_threads = _int32("num_threads", p.num_threads)
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
            c.normal_compliance, int(c.stall_iterations), c.near_rigid_beta, c.natural_map_tolerance,
            int(c.num_threads),
        )

    def set_contact_ids(self, ids) -> None:
        """Names the contacts of the problem data solved next (copied; ``docs/ipm.md`` §11.5):
        ``ids[i]`` (uint64, unique within a problem) names contact i. With ``warm_start``, a
        contact whose id the previous solve had starts from its own previous solution, a new one
        from the central start. ``None`` clears the ids (warm start by position). A solve whose
        contact count differs from ``len(ids)`` raises ``DIMENSION_MISMATCH``.
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
        block = self._block_sparse()
        block.begin(self._borrowed)
        keep, nc = block.fill(tree_dofs, M_blocks, contact_trees, J_blocks, copy)
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
                self._h(), block.pointer, _ptr(vecs[0]), _ptr(vecs[1]), float(h),
                _ptr(vecs[2]), _ptr(vecs[3]),
                kinds.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), offset_ptr, offset_len,
            )
        )
        self._borrowed = (*keep, *vecs, kinds, offset)  # a failed call keeps the old borrow
        block.commit(self._borrowed)

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

    @staticmethod
    def solve_batch(solvers, num_threads: int = 0, v_guesses=None) -> list:
        """Many worlds in one call (``cts_ipm_solver_solve_batch``, ``docs/c_api.md`` §1.10):
        world ``i`` is ``solvers[i].solve()``, or ``solvers[i].solve_with_guess(v_guesses[i])``
        when ``v_guesses`` is given and its entry is not None; results bit-identical to that
        loop, read afterwards with each solver's getters. One ctypes call, run without the GIL on
        ``num_threads`` threads (0 or 1: in order on the calling thread).

        Returns one entry per world: an :class:`IpmOutcome`, or a :class:`ContactSolversError`
        (not raised) for a usage error of that world (``None``/closed solver, a solver listed
        twice, no data, a bad guess). Raises when the call itself is refused.
        """
        batch = _Batch(IpmSolver, solvers, v_guesses, allow_null_guess=True)
        statuses = batch.run(
            "cts_ipm_solver_solve_batch",
            _Batch.pointer(batch.guesses, ctypes.POINTER(ctypes.c_double)),
            _Batch.pointer(batch.ns, ctypes.c_size_t),
            num_threads=num_threads,
        )
        statuses = statuses.tolist()
        try:
            return list(map(_IPM_OUTCOMES.__getitem__, statuses))  # outcomes only
        except KeyError:
            pass
        return [
            IpmOutcome(s) if s < Status.NULL_POINTER else batch.error(i, s)
            for i, s in enumerate(statuses)
        ]

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
                              int(c.centrality_correctors), c.natural_map)

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
