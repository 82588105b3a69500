"""Python bindings of libcontact_solvers over its C ABI, with ctypes and numpy.

Installed with ``pip install .`` at the repository's root (the shared library ships inside the
package). It mirrors the C API of ``include/contact_solvers.h`` call by
call and shapes the TAMSI solver like Drake's ``TamsiSolver``::

    import numpy as np
    import contact_solvers as cts

    with cts.TamsiSolver(nv=3) as solver:
        solver.set_two_way_coupled_problem_data(M, Jn, Jt, p_star, fn0, stiffness, dissipation, mu)
        result = solver.solve_with_guess(dt, v0)
        if result == cts.TamsiSolverResult.kSuccess:
            v = solver.get_generalized_velocities()

Finding the library (first match wins): the ``library`` argument (a path, or a :class:`Library`),
the ``CONTACT_SOLVERS_LIB`` environment variable (a path), the copy installed next to this
package, ``target/release`` then ``target/debug`` of the repository a source checkout sits in,
then the system's search path (``ctypes.util.find_library``, e.g. after ``cargo cinstall``).

Modules: ``tamsi`` (:class:`TamsiSolver`), ``ipm`` (:class:`IpmSolver`), ``lcp``
(:class:`LcpSolver`, :class:`MobyLcpSolver`, :class:`UnrevisedLemkeSolver`), ``rigid``
(:class:`ConstraintSolver`), ``baraff`` (:class:`BaraffSolver`); ``_ffi`` holds the declarations
generated from the header (``tools/gen_bindings.py``), ``_common`` what they share; the optional
extension module ``_pack`` (built by ``pip install`` when a C compiler is at hand) packs the
block-sparse setters' lists of blocks in C; without it they are packed in Python, with the same
checks and errors (``docs/python.md`` §1 and §7).

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
* **Threads.** ctypes (and the extension's call of a setter) releases the GIL during library
  calls, so solvers really do run in parallel from Python threads. One solver must not be used
  by two threads at once; distinct solvers are independent (:meth:`TamsiSolver.clone` makes
  per-thread copies).
"""
from .baraff import *  # noqa: F403
from .baraff import __all__ as _baraff_all
from ._common import (
    ABI_VERSION,
    ContactSolversError,
    Library,
    Status,
    abi_version,
    load_library,
    status_string,
    version,
)
from .ipm import *  # noqa: F403
from .ipm import __all__ as _ipm_all
from .lcp import *  # noqa: F403
from .lcp import __all__ as _lcp_all
from .rigid import *  # noqa: F403
from .rigid import __all__ as _rigid_all
from .tamsi import *  # noqa: F403
from .tamsi import __all__ as _tamsi_all

__all__ = sorted(
    [
        "ABI_VERSION",
        "ContactSolversError",
        "Library",
        "Status",
        "abi_version",
        "load_library",
        "status_string",
        "version",
    ]
    + _tamsi_all
    + _ipm_all
    + _lcp_all
    + _rigid_all
    + _baraff_all
)
