"""What every solver module shares: loading the library, errors, array conversion and the
solver-handle base class. The rules (arrays, borrowing, errors, handles, threads) are in the
package's docstring (``contact_solvers/__init__.py``) and ``docs/python.md``."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from pathlib import Path

import numpy as np

from . import _ffi
from ._ffi import Status

#: The ABI version this package was generated for (``CTS_ABI_VERSION`` of the header).
ABI_VERSION = _ffi.CTS_ABI_VERSION


class ContactSolversError(RuntimeError):
    """A usage error reported by the library (or found by this package before calling it).

    ``status`` is the :class:`Status` (or the raw int for a value this package does not know),
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


def _shared_library_name() -> str:
    if sys.platform == "darwin":
        return "libcontact_solvers.dylib"
    if sys.platform == "win32":
        return "contact_solvers.dll"
    return "libcontact_solvers.so"


def _candidates() -> list[str]:
    """Where the library is looked for, first match wins: ``CONTACT_SOLVERS_LIB`` (explicit: no
    silent fallback to another build), the copy installed next to this package (``pip install``),
    ``target/release`` then ``target/debug`` of the repository a source checkout of this package
    sits in (``python/contact_solvers/``), then the system's search path."""
    env = os.environ.get("CONTACT_SOLVERS_LIB")
    if env:
        return [env]
    here = Path(__file__).resolve().parent
    found = [str(here / _shared_library_name())]
    root = here.parents[1]
    found += [str(root / "target" / p / _shared_library_name()) for p in ("release", "debug")]
    found = [p for p in found if os.path.exists(p)]
    system = ctypes.util.find_library("contact_solvers")
    if system:
        found.append(system)
    return found


class Library:
    """The loaded shared library with every function of the header declared (argument and result
    types from the generated ``_ffi.FUNCTIONS``).

    Most code never touches this class: :func:`load_library` makes one and caches it, and the
    solvers use it. Its attributes ``cts_*`` are the C functions.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        self._dll = ctypes.CDLL(self.path)
        abi_fn = self._dll.cts_abi_version
        abi_fn.restype, abi_fn.argtypes = ctypes.c_uint32, []
        abi = abi_fn()
        if abi != ABI_VERSION:
            raise ContactSolversError(
                Status.INVALID_ARGUMENT,
                f"{self.path}: ABI version {abi}, this package expects {ABI_VERSION}",
            )
        for name, (restype, argtypes) in _ffi.FUNCTIONS.items():
            f = getattr(self._dll, name)
            f.restype = restype
            f.argtypes = argtypes
            setattr(self, name, f)

    def last_error_message(self) -> str:
        """``cts_last_error_message()``: detail of the last failure without a handle."""
        return self.cts_last_error_message().decode("utf-8", "replace")


_default_library: Library | None = None


def load_library(path: str | os.PathLike | None = None) -> Library:
    """Loads libcontact_solvers.

    With ``path``, that file (a new :class:`Library` each call). Without, the cached default:
    ``CONTACT_SOLVERS_LIB``, then the copy installed with this package, then ``target/release``
    and ``target/debug`` of a source checkout, then the system's search path.
    """
    global _default_library
    if path is not None:
        return Library(path)
    if _default_library is None:
        candidates = _candidates()
        if not candidates:
            raise OSError(
                "libcontact_solvers not found: install this package with `pip install .` at the "
                "repository's root, or set CONTACT_SOLVERS_LIB to the library's path"
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
    _real(a, name)
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


def _real(a: np.ndarray, name: str) -> None:
    """Rejects arrays that are not of a real number type (complex, object, strings) before any
    conversion could drop or garble their values."""
    if a.dtype.kind not in "biuf":
        raise ContactSolversError(Status.INVALID_ARGUMENT, f"{name}: dtype {a.dtype} is not real")


def _vector(x, n: int, name: str, copy: bool) -> np.ndarray:
    """A contiguous float64 vector of length ``n`` (copied when it is not one, or with ``copy``)."""
    a = np.asarray(x)
    _real(a, name)
    if a.ndim != 1 or a.shape[0] != n:
        raise ContactSolversError(
            Status.DIMENSION_MISMATCH, f"{name}: shape {a.shape}, expected ({n},)"
        )
    if copy or a.dtype != np.float64 or not a.dtype.isnative or not a.flags.c_contiguous:
        a = np.array(a, dtype=np.float64, copy=True)
    return a


def _packed_side_by_side(blocks, name: str) -> np.ndarray | None:
    """The packed values of a list of 2-D blocks with one row count (every J block is 3×n_t, and
    the M blocks of equal trees are), in two numpy calls and no Python work per block: the blocks
    set side by side, read column-major, are each block's columns in order, which is each block
    column-major, back to back (issue 29 item 5). None when the blocks' row counts or ranks
    differ (the caller then packs block by block and names the offending block)."""
    try:
        side_by_side = np.concatenate(blocks, axis=1)
    except (ValueError, TypeError, IndexError):  # AxisError (1-D blocks) is a ValueError
        return None
    if side_by_side.ndim != 2:
        return None
    _real(side_by_side, name)
    return side_by_side.astype(np.float64, copy=False).ravel(order="F")


def _packed(x, name: str, copy: bool) -> np.ndarray:
    """Packed float64 values of a block-sparse array: a 1-D array (used as it is when it is a
    contiguous float64 array, else copied once), or a sequence of 2-D blocks (each flattened
    column-major, in order, into one new array)."""
    if isinstance(x, (list, tuple)):
        if not x:
            return np.zeros(0)
        packed = _packed_side_by_side(x, name)
        if packed is not None:
            return packed
        parts = [np.asarray(b, dtype=np.float64) for b in x]
        for k, b in enumerate(parts):
            if b.ndim != 2:
                raise ContactSolversError(
                    Status.DIMENSION_MISMATCH, f"{name}[{k}]: shape {b.shape}, expected a 2-D block"
                )
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
    if a.dtype.kind == "i" and isinstance(x, (list, tuple)):
        # Python ints: numpy converts them in C and raises OverflowError past int32's range.
        try:
            return np.array(x, dtype=np.int32).reshape(-1)
        except OverflowError:
            raise ContactSolversError(
                Status.INVALID_ARGUMENT, f"{name}: entries must fit in int32"
            ) from None
    if a.dtype.kind not in "iub" and not (
        a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a))
    ):
        raise ContactSolversError(Status.INVALID_ARGUMENT, f"{name}: entries must be integers")
    if a.min() < -(2**31) or a.max() >= 2**31:
        raise ContactSolversError(Status.INVALID_ARGUMENT, f"{name}: entries must fit in int32")
    return np.ascontiguousarray(a, dtype=np.int32).reshape(-1).copy()


_INT32_P = ctypes.POINTER(ctypes.c_int32)


def _int32_ptr(a: np.ndarray):
    """An ``int32_t *`` to ``a``'s first element (``a.ctypes.data_as`` costs 4 µs a call; a
    pointer to a ctypes view of a writable buffer, 0.8 µs)."""
    if a.flags.writeable and a.size:
        return _INT32_P(ctypes.c_int32.from_buffer(a))
    return a.ctypes.data_as(_INT32_P)


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
    data = _ffi.cts_block_sparse_data(
        trees.shape[0], _int32_ptr(trees), m.shape[0], _ptr(m), nc, _int32_ptr(ct), j.shape[0], _ptr(j)
    )
    return data, (trees, m, ct, j), nc


def _int32(name: str, value) -> int:
    """An int32 struct field from an integer-valued Python number."""
    if int(value) != value or not -(2**31) <= value < 2**31:
        raise ContactSolversError(Status.INVALID_ARGUMENT, f"{name} = {value} is not an int32")
    return int(value)




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

    def _open(self, library, *args) -> None:
        """Loads the library and creates the handle with ``cts_<name>_solver_new(*args, &out)``
        (for the classes whose constructors have nothing else to do first)."""
        self._lib = _library(library)
        self._handle = None
        self._borrowed = ()
        self._reused = {}
        handle = self._handle_p()
        status = getattr(self._lib, f"cts_{self._name}_solver_new")(*args, ctypes.byref(handle))
        if status != Status.OK:
            raise ContactSolversError(status, self._lib.last_error_message())
        self._handle = handle

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

    def _address(self) -> int:
        """The C handle's address (0 when closed), cached per handle object: a batch reads it
        for every world."""
        handle = self._handle
        cached = self.__dict__.get("_address_cache")
        if cached is None or cached[0] is not handle:
            cached = self._address_cache = (handle, ctypes.cast(handle, ctypes.c_void_p).value or 0 if handle else 0)
        return cached[1]

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



class _Batch:
    """The C arrays of one ``cts_<name>_solver_solve_batch`` call (``docs/c_api.md`` §1.10),
    built from Python lists with one numpy array each, and the reading of its statuses.

    ``solvers``: solver objects of one class (``None`` or a closed solver is a NULL handle: that
    world's status is ``NULL_POINTER``). ``v_guesses``: ``None`` (no guesses), a 2-D array (one
    row per world, same n) or a sequence of 1-D arrays (``None`` entries are NULL pointers); it
    must have one entry per world. The arrays stay referenced by this object for the call.
    """

    def __init__(self, cls, solvers, v_guesses, allow_null_guess: bool):
        self.solvers = list(solvers)
        n = self.count = len(self.solvers)
        for i, s in enumerate(self.solvers):
            if s is not None and not isinstance(s, cls):
                raise TypeError(f"solvers[{i}] is a {type(s).__name__}, expected a {cls.__name__}")
        live = [s for s in self.solvers if s is not None]
        self.lib = live[0]._lib if live else _library(None)
        self.handle_p = cls._handle_p
        self.handles = np.fromiter(
            (0 if s is None else s._address() for s in self.solvers), dtype=np.uintp, count=n
        )
        self.guesses = self.ns = self._keep = None
        if v_guesses is None:
            return
        if isinstance(v_guesses, np.ndarray) and v_guesses.ndim == 2:
            g = np.ascontiguousarray(v_guesses, dtype=np.float64)
            if g.shape[0] != n:
                raise ContactSolversError(
                    Status.DIMENSION_MISMATCH, f"v_guesses: {g.shape[0]} rows for {n} solvers"
                )
            self._keep = g
            self.guesses = g.ctypes.data + np.arange(n, dtype=np.uintp) * np.uintp(g.strides[0])
            self.ns = np.full(n, g.shape[1], dtype=np.uintp)
            return
        rows = list(v_guesses)
        if len(rows) != n:
            raise ContactSolversError(
                Status.DIMENSION_MISMATCH, f"v_guesses: {len(rows)} guesses for {n} solvers"
            )
        self._keep = [None if r is None else np.ascontiguousarray(r, dtype=np.float64) for r in rows]
        for i, r in enumerate(self._keep):
            if r is None and not allow_null_guess:
                raise ContactSolversError(Status.NULL_POINTER, f"v_guesses[{i}] is None")
            if r is not None and r.ndim != 1:
                raise ContactSolversError(
                    Status.DIMENSION_MISMATCH, f"v_guesses[{i}]: shape {r.shape}, expected (n,)"
                )
        self.guesses = np.fromiter(
            (0 if r is None or not r.size else _ptr(r) for r in self._keep), dtype=np.uintp, count=n
        )
        self.ns = np.fromiter((0 if r is None else r.shape[0] for r in self._keep), dtype=np.uintp, count=n)

    @staticmethod
    def pointer(a, ctype):
        """``a`` (a numpy array of addresses or sizes, or None) as a ``ctype *`` argument."""
        return None if a is None else ctypes.cast(a.ctypes.data, ctypes.POINTER(ctype))

    def run(self, function: str, *per_world, num_threads: int) -> list:
        """Calls ``function(handles, *per_world, count, num_threads, statuses)``; raises when the
        call itself is refused, else returns each world's status (an int)."""
        statuses = np.full(self.count, Status.PANIC, dtype=np.int32)
        status = getattr(self.lib, function)(
            ctypes.cast(self.handles.ctypes.data, ctypes.POINTER(self.handle_p)),
            *per_world,
            self.count,
            max(0, int(num_threads)),
            ctypes.cast(statuses.ctypes.data, ctypes.POINTER(ctypes.c_int32)),
        )
        if status != Status.OK:
            raise ContactSolversError(status, self.lib.last_error_message())
        return statuses.tolist()

    def error(self, i: int, status: int):
        """The :class:`ContactSolversError` of world ``i`` (not raised)."""
        s = self.solvers[i]
        message = s.last_error() if s is not None and s._handle else f"solvers[{i}] is None or closed"
        return ContactSolversError(status, message)
