"""What every solver module shares: loading the library, errors, array conversion and the
solver-handle base class. The rules (arrays, borrowing, errors, handles, threads) are in the
package's docstring (``contact_solvers/__init__.py``) and ``docs/python.md``."""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import operator
import os
import sys
from pathlib import Path

import numpy as np

from . import _ffi
from ._ffi import Status

#: The ABI version this package was generated for (``CTS_ABI_VERSION`` of the header).
ABI_VERSION = _ffi.CTS_ABI_VERSION


def _compiled_packing():
    """The optional extension module ``contact_solvers._pack`` (``_pack.c``: lists of blocks
    packed in compiled code, issue 29 item 5), or None: not built (setup.py builds it when it
    can; a source checkout has none), not importable on this interpreter, or disabled by
    ``CONTACT_SOLVERS_NO_EXTENSION`` set to anything but ``""`` or ``"0"``. Without it the
    block-sparse setters pack lists in Python, with the same checks and messages
    (``docs/python.md`` §7)."""
    if os.environ.get("CONTACT_SOLVERS_NO_EXTENSION", "") not in ("", "0"):
        return None
    try:
        from . import _pack
    except ImportError:
        return None
    return _pack


#: ``contact_solvers._pack`` or None (:func:`_compiled_packing`); the tests set it to either.
_pack = _compiled_packing()


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
        self._untyped: dict = {}
        self._addresses: dict = {}

    def untyped(self, name: str):
        """The C function ``name`` declared with every argument ``void *``, called with ints
        (addresses): ctypes converts an int for ``void *`` in a third of the time it takes to
        check a typed pointer (issue 29 item 5). Only for functions whose arguments are all
        pointers in the header (checked here against the generated ``_ffi.FUNCTIONS``, so the
        call is the same at the ABI level; a wrong Python type still raises ``ArgumentError``)."""
        f = self._untyped.get(name)
        if f is None:
            restype, argtypes = _ffi.FUNCTIONS[name]
            if not all(a is ctypes.c_void_p or issubclass(a, ctypes._Pointer) for a in argtypes):
                raise TypeError(f"{name}: not every argument is a pointer")
            f = self._dll[name]  # a new function object: the typed one is left as it is
            f.restype, f.argtypes = restype, [ctypes.c_void_p] * len(argtypes)
            self._untyped[name] = f
        return f

    def address(self, name: str) -> int:
        """The address of the C function ``name``, a function of pointers only (checked as
        :meth:`untyped` does), for the extension's ``_pack.call`` (``_pack.c``)."""
        a = self._addresses.get(name)
        if a is None:
            a = self._addresses[name] = ctypes.cast(self.untyped(name), ctypes.c_void_p).value
        return a

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


_FROM_BUFFER = ctypes.c_char.from_buffer
_ADDRESS_OF = ctypes.addressof


def _c_address(a: np.ndarray) -> int:
    """``_ptr`` of a C-contiguous array: with the extension read from numpy's struct
    (``_pack.address``), else the writable case without the flag tests first (0.4 instead of
    0.7 µs, a sixth of a small block set call's own Python work)."""
    if _pack is not None:
        address = _pack.address(a)
        if address is not None:
            return address
    try:
        return _ADDRESS_OF(_FROM_BUFFER(a))
    except (TypeError, ValueError, BufferError):  # read-only or empty
        return _ptr(a)


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


def _side_by_side(blocks, name: str) -> np.ndarray | None:
    """A list of 2-D blocks with one row count (every J block is 3×n_t, and the M blocks of
    equal trees are) set side by side, in one numpy call and no Python work per block: read
    column-major, it is each block's columns in order, which is each block column-major, back to
    back (issue 29 item 5). None when the blocks' row counts or ranks differ (the caller then
    packs block by block and names the offending block); raises for blocks that are not real."""
    try:
        side_by_side = np.concatenate(blocks, axis=1)
    except (ValueError, TypeError, IndexError):  # AxisError (1-D blocks) is a ValueError
        return None
    if side_by_side.ndim != 2:
        return None
    _real(side_by_side, name)
    return side_by_side


def _block_by_block(blocks, name: str) -> np.ndarray:
    """The packed values of a list of 2-D blocks of mixed row counts (each flattened
    column-major, in order, into one new array); names the first block that is not 2-D."""
    parts = [np.asarray(b, dtype=np.float64) for b in blocks]
    for k, b in enumerate(parts):
        if b.ndim != 2:
            raise ContactSolversError(
                Status.DIMENSION_MISMATCH, f"{name}[{k}]: shape {b.shape}, expected a 2-D block"
            )
    return np.concatenate([b.ravel(order="F") for b in parts])


def _packed(x, name: str, copy: bool) -> np.ndarray:
    """Packed float64 values of a block-sparse array given as a 1-D array (used as it is when it
    is a contiguous float64 array, else copied once) or as an empty list (lists of blocks:
    :class:`_Packed`)."""
    if isinstance(x, (list, tuple)) and not x:
        return np.zeros(0)
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


_NONES = itertools.repeat(None)  # map(_IS, rows, _NONES): which rows are None

# numpy's arrays share one dtype object per native type (an unpickled array has an equal
# copy): the checks below compare by identity first.
_F64 = np.dtype(np.float64)
_I32 = np.dtype(np.int32)


def _plain_ints(key: tuple) -> bool:
    """Whether ``key`` holds only Python ints or tuples of Python ints: immutable values, so a
    tuple of them is a snapshot that no later change of the caller's list can reach."""
    for v in key:
        if type(v) is tuple:
            if not all(type(u) is int for u in v):
                return False
        elif type(v) is not int:
            return False
    return True


class _Index:
    """One index argument of the block-sparse setters (``tree_dofs``, ``contact_trees``) as the
    library reads it: contiguous int32, flattened in C order.

    A contiguous int32 array is used as it is (borrowed, no copy). A live loop passes the same
    structure at every step: a list or tuple of Python ints (or of pairs of them) equal to the
    last one converted reuses that conversion, found by one tuple comparison in C instead of a
    numpy conversion and range checks (issue 29 item 5). The reused array is this object's own
    and never written, so it may stay borrowed."""

    __slots__ = ("name", "pairs", "key", "array", "address")

    def __init__(self, name: str, pairs: bool):
        self.name = name
        self.pairs = pairs  # contact_trees: (nc, 2) or flat 2nc
        self.key = None
        self.array = None
        self.address = 0

    def get(self, x, copy: bool, block: _BlockSparse):
        """(the int32 array, its address)."""
        t = type(x)
        if t is np.ndarray:
            dtype = x.dtype
            if not copy and (dtype is _I32 or dtype == _I32) and x.flags.c_contiguous and x.size \
                    and (x.ndim == 1 and (not self.pairs or x.size % 2 == 0)
                         or self.pairs and x.ndim == 2 and x.shape[1] == 2):
                # (nc, 2) kept as it is: the library reads the same bytes (no reshape, 1k).
                return x, block.address(self.name, x)
        elif (t is list or t is tuple) and self.key is not None:
            try:
                if tuple(x) == self.key:
                    block.copied = True  # a conversion, reused: not the caller's array
                    return self.array, self.address
            except (TypeError, ValueError):  # an element compares as an array: convert
                pass
        block.copied = True
        if self.pairs:
            ct = np.asarray(x)
            if ct.size and not (ct.ndim == 2 and ct.shape[1] == 2) and not (
                ct.ndim == 1 and ct.shape[0] % 2 == 0
            ):
                raise ContactSolversError(
                    Status.DIMENSION_MISMATCH,
                    f"{self.name}: shape {ct.shape}, expected (nc, 2) or (2*nc,)",
                )
            a = _int32_array(ct, self.name, copy)
        else:
            a = _int32_array(x, self.name, copy)
        address = _ptr(a)
        if t is list or t is tuple:
            key = tuple(x)
            if _plain_ints(key):
                self.key, self.array, self.address = key, a, address
        return a, address


class _Layout:
    """What one block structure asks of a list of blocks (``M_blocks`` or ``J_blocks``): each
    block's shape, in order (n_t×n_t per tree; 3×n_t per contact side, side a then side b unless
    it is -1), and how to reorder the blocks' entries when they arrive row-major back to back.
    Made once per structure and kept while it repeats (:meth:`_BlockSparse.layouts`)."""

    __slots__ = ("shapes", "rows", "cols", "total", "uniform_rows", "_order", "shape_bytes")

    def __init__(self, rows: np.ndarray, cols: np.ndarray):
        self.rows, self.cols = rows, cols
        self.shapes = list(zip(rows.tolist(), cols.tolist()))
        # The shapes as ``_pack.pack`` reads them: native Py_ssize_t (numpy's intp) pairs.
        self.shape_bytes = np.stack([rows, cols], axis=-1).astype(np.intp).tobytes()
        self.total = int(np.dot(rows, cols))
        # The blocks' common row count (every J block's 3; the M blocks' when all trees are
        # alike), 0 when they differ or there are none.
        self.uniform_rows = int(rows[0]) if rows.size and np.all(rows == rows[0]) else 0
        self._order = False  # not computed yet

    def order(self):
        """The gather index that turns the blocks' entries row-major back to back (what
        ``b"".join`` of C-contiguous blocks gives) into each block column-major back to back
        (what the library reads); None when the two coincide (every block one row or one
        column). Computed once per structure, in numpy: entry ``p`` of block k (start o, r×c),
        ``q = p - o = j·r + i``, reads row-major entry ``o + i·c + j``."""
        if self._order is False:
            r, c = self.rows, self.cols
            if np.all((r == 1) | (c == 1)):
                self._order = None
            else:
                size = r * c
                start = np.repeat(np.cumsum(size) - size, size)
                rr = np.repeat(r, size)
                q = np.arange(self.total, dtype=np.intp) - start
                self._order = start + (q % rr) * np.repeat(c, size) + q // rr
        return self._order


class _Buffer:
    """One packing buffer of :class:`_Packed`: float64 storage grown to the largest packed
    length seen (by half again, so a contact count that creeps up does not reallocate at every
    step), and the views of the last length and block row count asked (a view costs about
    0.5 µs to make)."""

    __slots__ = ("storage", "address", "key", "flat", "matrix")

    def __init__(self, n: int):
        self.storage = np.empty(n, dtype=np.float64)
        self.address = self.storage.ctypes.data
        self.key = None

    def views(self, n: int, rows: int):
        """(the first ``n`` entries, as a 1-D view, and as a Fortran-ordered rows×(n/rows)
        view; its address)."""
        if self.key != (n, rows):
            self.flat = self.storage[:n]
            self.matrix = self.flat.reshape((rows, n // rows), order="F") if rows else None
            self.key = (n, rows)
        return self.flat, self.matrix, self.address


class _Packed:
    """One packed argument of the block-sparse setters (``M_blocks``, ``J_blocks``) as the
    library reads it: contiguous float64, each block column-major, back to back.

    A 1-D contiguous float64 array is used as it is (borrowed, no copy). A list of blocks is
    checked against the structure's :class:`_Layout` (each block's shape, read in C by one
    ``map``; a wrong one raises ``DIMENSION_MISMATCH`` naming it) and packed into one of two
    buffers this object keeps and uses in turn (the one the library borrows is never written,
    so a failed set call leaves it intact), with no Python work per block (issue 29 item 5):

    * 2-D native float64 array blocks of any memory order, with the extension (:data:`_pack`):
      checked and written column-major by one C call;
    * C-contiguous float64 blocks (numpy's default, and what slicing-and-copying MuJoCo's
      Jacobian gives): ``b"".join`` gathers their bytes row-major (a buffer look-up and a copy
      per block, about a quarter of ``np.concatenate``'s per-block cost), then one ``np.take``
      with the structure's gather index puts each block column-major into the buffer;
    * other blocks of one row count (Fortran-ordered, strided views, other real dtypes): set
      side by side by one ``np.concatenate(axis=1)`` into the buffer read column-major;
    * the rest (mixed row counts, nested lists): packed block by block.

    Without a layout (the structure itself is invalid: the library reports it) the list is
    packed as above without the shape check. Other inputs are converted as :func:`_packed`
    does."""

    __slots__ = ("name", "buffers", "next", "filled")

    def __init__(self, name: str):
        self.name = name
        self.buffers: list = [None, None]  # _Buffer
        self.next = 0
        self.filled = False

    def buffer(self, n: int, rows: int):
        """The free buffer's views for ``n`` entries in blocks of ``rows`` rows (see
        :meth:`_Buffer.views`); marks it filled."""
        buf = self.buffers[self.next]
        if buf is None or buf.storage.shape[0] < n:
            room = n if buf is None else max(n, buf.storage.shape[0] * 3 // 2)
            buf = self.buffers[self.next] = _Buffer(room)
        self.filled = True
        return buf.views(n, rows)

    def get(self, x, copy: bool, block: _BlockSparse, layout: _Layout | None = None):
        """(the packed array, its address)."""
        self.filled = False
        if type(x) is np.ndarray and not copy and (x.dtype is _F64 or x.dtype == _F64) \
                and x.ndim == 1 and x.flags.c_contiguous:
            return x, block.address(self.name, x)
        block.copied = True
        if isinstance(x, (list, tuple)) and x:
            if layout is not None:
                if _pack is not None:
                    # Compiled: every block a 2-D native float64 array of its shape, written in
                    # one call; anything else (nothing kept of it) goes the Python way below.
                    flat, _, address = self.buffer(layout.total, 0)
                    if _pack.pack(flat, layout.shape_bytes, x):
                        return flat, address
                    self.filled = False
                shapes = _block_shapes(x)
                if shapes != layout.shapes:
                    _name_bad_block(shapes, layout.shapes, self.name)
                    return self.pack(x)  # blocks missing or extra: the library counts them
                joined = _joined(x)
                if joined is not None and len(joined) == _ITEM * layout.total:
                    flat, _, address = self.buffer(layout.total, 0)
                    src = np.frombuffer(joined, dtype=_F64)
                    order = layout.order()
                    if order is None:
                        np.copyto(flat, src)
                    else:
                        src.take(order, out=flat, mode="clip")  # in range: the lengths are equal
                    return flat, address
            return self.pack(x, layout)
        a = _packed(x, self.name, copy)
        return a, _ptr(a)

    def pack(self, x, layout: _Layout | None = None):
        """A list of blocks (its shapes checked against ``layout`` by the caller, if given)
        packed by one ``np.concatenate`` side by side when they share a row count, else block by
        block."""
        rows = 0 if layout is None else layout.uniform_rows
        if rows:
            flat, matrix, address = self.buffer(layout.total, rows)
            try:
                # same_kind casting: real blocks only (complex, object or text raise).
                np.concatenate(x, axis=1, out=matrix)
                return flat, address
            except (ValueError, TypeError, IndexError):
                self.filled = False  # a refused cast, blocks that are not arrays: as below
        side_by_side = _side_by_side(x, self.name)
        if side_by_side is None:
            a = _block_by_block(x, self.name)
            return a, _ptr(a)
        rows, width = side_by_side.shape
        flat, matrix, address = self.buffer(rows * width, rows)
        np.copyto(matrix, side_by_side, casting="unsafe")  # real: checked above
        return flat, address

    def commit(self) -> None:
        """The set call succeeded: the library now borrows the buffer filled, if any."""
        if self.filled:
            self.next ^= 1
            self.filled = False


def _joined(blocks) -> bytes | None:
    """The bytes of a list of C-contiguous float64 arrays, row-major, back to back
    (``b"".join``: no Python work per block); None when a block is not one (another dtype,
    another layout, not an array)."""
    try:
        if not blocks[0].flags.c_contiguous:  # Fortran-ordered blocks: join would refuse them
            return None
        if list(map(_DTYPE, blocks)).count(_F64) != len(blocks):
            return None
        return b"".join(blocks)
    except (AttributeError, TypeError, ValueError, BufferError):
        return None


class _Lists:
    """``M_blocks`` and ``J_blocks`` both given as lists of blocks, packed together into one of
    two buffers used in turn (the one the library borrows is never written); M's packed values
    are the buffer's head, J's its tail.

    With the extension (:data:`_pack`, ``docs/performance.md`` §3 "The Python setter in compiled
    code"): one C call checks every block against the structure's shape and writes it
    column-major, for blocks that are 2-D native float64 arrays of any memory order (about 120
    instructions a block on the 5-box stack instead of 1,750). Otherwise, or when the extension declines a block
    (another dtype, shape or kind), the Python way: for C-contiguous float64 blocks (what a
    bridge from MuJoCo writes) one pass of each per-block operation over the two lists joined
    (§3 "The Python setter, evening pass"): one shape comparison against the structure's, one
    ``b"".join``, one dtype count and one ``take`` with the structure's gather index. Each of
    these numpy and Python calls has a fixed cost of 1-5k instructions; doing them once for both
    lists instead of once per list halves it. The per-block floor there is about 1,750
    instructions (shape 840, dtype 400, buffer 520)."""

    __slots__ = ("layouts", "shapes", "m_total", "total", "nbytes", "buffers", "views",
                 "next", "filled", "shape_bytes", "combined", "key")

    def __init__(self):
        self.layouts = None
        self.buffers: list = [None, None]  # _Buffer
        self.views: list = [None, None]  # _views() of each buffer
        self.next = 0
        self.filled = False

    def _prepare(self, layouts) -> None:
        """The combined shapes, sizes and gather index of the structure ``layouts``."""
        m, j = layouts
        self.shapes = m.shapes + j.shapes
        self.m_total = m.total
        self.total = m.total + j.total
        # The gather index is made on first use (only the Python path reads it).
        self.combined = _Layout(np.concatenate([m.rows, j.rows]), np.concatenate([m.cols, j.cols]))
        self.nbytes = _ITEM * self.total
        self.shape_bytes = self.combined.shape_bytes
        self.key = (self.total, self.m_total)  # the views of a buffer are for this key
        self.layouts = layouts

    def pack(self, M_blocks, J_blocks, layouts):
        """(M's packed view, J's, M's address, J's) in the free buffer (marked filled); True
        when every block has the structure's shape but they cannot be joined (not C-contiguous
        float64: the caller packs each list by ``np.concatenate``, its shapes known good); None
        when a shape differs or a block is not an array (the caller checks each list and names
        the block)."""
        if layouts is not self.layouts:
            self._prepare(layouts)
        if _pack is not None:
            # Compiled (``_pack.c``): both lists checked against the structure's shapes and
            # written column-major in one call, no Python work per block. Declined (a block of
            # another dtype, shape or kind: nothing is kept of it) the lists go the Python way
            # below, which converts or names the block.
            views = self.views[self.next]
            if views is None or views[0] is not self.key:
                views = self._views()
            if _pack.pack(views[1], self.shape_bytes, M_blocks, J_blocks):
                self.filled = True
                return views[2:]
        blocks = [*M_blocks, *J_blocks]
        try:
            if list(map(_SHAPE, blocks)) != self.shapes:
                return None
        except AttributeError:  # nested lists
            return None
        joined = _joined(blocks)
        if joined is None or len(joined) != self.nbytes:
            return True
        views = self._views()
        # (A memoryview slice assignment into a kept staging array costs 1 instruction a byte;
        # a view of the joined bytes costs 3k once.)
        src = np.frombuffer(joined, _F64)
        order = self.combined.order()
        if order is None:  # every block one row or one column: already column-major
            np.copyto(views[1], src)
        else:
            src.take(order, None, views[1], "clip")  # in range: equal lengths
        self.filled = True
        return views[2:]

    def _views(self):
        """The free buffer (grown to the structure's total if needed) and its views: (key, all
        of it, M's head, J's tail, M's address, J's)."""
        i = self.next
        buf = self.buffers[i]
        total = self.total
        if buf is None or buf.storage.shape[0] < total:
            room = total if buf is None else max(total, buf.storage.shape[0] * 3 // 2)
            buf = self.buffers[i] = _Buffer(room)
            self.views[i] = None
        views = self.views[i]
        key = self.key
        if views is None or views[0] is not key:
            flat = buf.storage[:total]
            views = self.views[i] = (key, flat, flat[: self.m_total], flat[self.m_total:],
                                     buf.address, buf.address + _ITEM * self.m_total)
        return views

    def commit(self) -> None:
        """The set call succeeded: the library now borrows the buffer filled, if any."""
        if self.filled:
            self.next ^= 1
            self.filled = False


def _struct_words(data: ctypes.Structure):
    """``cts_block_sparse_data`` as an array of size_t words, written in one slice assignment
    (eight field assignments cost twice as much). Every field is a size_t or a pointer, back to
    back: checked here, so a change of the struct in the header fails loudly."""
    word = ctypes.sizeof(ctypes.c_size_t)
    fields = type(data)._fields_
    offsets = [getattr(type(data), name).offset for name, _ in fields]
    if offsets != [word * k for k in range(len(fields))] or ctypes.sizeof(data) != word * len(
        fields
    ) or ctypes.sizeof(ctypes.c_void_p) != word:
        raise AssertionError("cts_block_sparse_data is no longer size_t and pointer words")
    return (ctypes.c_size_t * len(fields)).from_buffer(data)


_IS = operator.is_
_HANDLE = operator.attrgetter("_handle")
_LAYOUT = operator.attrgetter("shape", "dtype", "strides")
_SHAPE = operator.attrgetter("shape")
_VECTOR_LAYOUT = operator.attrgetter("__class__", "shape", "dtype", "strides")
_DTYPE = operator.attrgetter("dtype")


def _block_shapes(blocks) -> list:
    """The shapes of a list of blocks: arrays' read in C (``attrgetter``), other blocks'
    (nested lists) through ``np.shape``."""
    try:
        return list(map(_SHAPE, blocks))
    except AttributeError:
        return [np.shape(b) for b in blocks]


def _name_bad_block(shapes: list, expected: list, name: str) -> None:
    """Raises DIMENSION_MISMATCH naming the first block whose shape differs from the
    structure's; returns when every block there is right and only the count differs (the
    library's count check then says so). Packed values carry no block boundaries, so the
    library can check only their total: blocks 3×5 and 3×7 where 3×6 and 3×6 are due would pass
    it with every column after the first block moved to the wrong velocity."""
    k = next((k for k, (a, b) in enumerate(zip(shapes, expected)) if tuple(a) != b), None)
    if k is None:
        return
    shape = tuple(shapes[k])
    rank = "" if len(shape) == 2 else "a 2-D block "
    raise ContactSolversError(
        Status.DIMENSION_MISMATCH, f"{name}[{k}]: shape {shape}, expected {rank}{expected[k]}"
    )


class _BlockSparse:
    """The ``cts_block_sparse_data`` of one solver object's block-sparse set calls and what they
    reuse from call to call (issue 29 item 5, ``docs/performance.md`` §3 "The setter from
    Python"): the converted structure (:class:`_Index`), the packing buffers (:class:`_Packed`),
    one struct (the library copies it at each call) with a pointer to it, and the addresses of
    the caller's arrays the library borrows. Use: :meth:`begin`, :meth:`fill` and
    :meth:`vector`, the library call, then :meth:`commit` if it succeeded.

    The addresses: passing again an array object that the library borrows since this object's
    last successful call skips the address look-up (a ctypes view, 0.4-0.7 µs); passing again
    all the arrays of that call, each used as it was (no copy) and with the same shape, dtype
    and strides, skips every conversion (:meth:`repeat`): the library gets the same struct and
    addresses and checks every value again. Sound by the borrowing rule: a borrowed array stays
    allocated until the next set call, so its memory has not moved (only
    ``ndarray.resize(refcheck=False)`` or ``__setstate__`` could move it, and doing that to a
    borrowed array already breaks the rule). What is known holds only while the solver object
    still borrows what that call gave (``borrowed``, its ``_borrowed`` tuple: any other set call,
    a resize or a close replaces it), and is taken over only from a call that succeeded."""

    __slots__ = ("trees", "contacts", "M", "J", "known", "pending", "copied", "previous",
                 "last", "borrowed", "data", "pointer", "words", "written", "expected", "lists",
                 "struct_address", "vector_layouts")

    def __init__(self):
        self.trees = _Index("tree_dofs", pairs=False)
        self.contacts = _Index("contact_trees", pairs=True)
        self.M = _Packed("M_blocks")
        self.J = _Packed("J_blocks")
        self.known: dict = {}  # argument name -> (the array borrowed, its address)
        self.pending: dict = {}  # the same for the call under way
        self.copied = False  # whether the call under way converted or packed any argument
        self.previous = None  # (function, arguments) of the last call without copies
        self.last = None  # (function, arguments, their layouts, addresses) when it repeated one
        self.borrowed = None
        self.data = _ffi.cts_block_sparse_data()
        self.pointer = ctypes.pointer(self.data)
        self.words = _struct_words(self.data)
        self.written = None
        self.expected = None  # (trees, contact_trees, (M layout, J layout), their bytes)
        self.lists = _Lists()
        self.struct_address = ctypes.addressof(self.data)  # an int argument
        self.vector_layouts = None  # (nv, nc, count), what vectors() compares against

    def begin(self, borrowed: tuple) -> None:
        """Starts a set call of the solver object whose ``_borrowed`` is ``borrowed``."""
        if borrowed is not self.borrowed:
            self.known = {}
            self.previous = self.last = None
        self.pending = {}
        self.copied = False
        self.lists.filled = False

    def repeat(self, function, args: tuple):
        """The addresses (after the struct's) of the last successful call when ``function`` and
        ``args`` are that call's and every argument has kept its layout; else None."""
        last = self.last
        if (last is not None and last[0] is function and all(map(_IS, args, last[1]))
                and list(map(_LAYOUT, args)) == last[2]):
            return last[3]
        return None

    def address(self, name: str, x: np.ndarray) -> int:
        """The address of ``x``, a C-contiguous array the library is to borrow as argument
        ``name`` without a copy."""
        known = self.known.get(name)
        if known is not None and known[0] is x:
            self.pending[name] = known
            return known[1]
        address = _c_address(x)
        self.pending[name] = (x, address)
        return address

    def fill(self, tree_dofs, M_blocks, contact_trees, J_blocks, copy: bool):
        """Converts the four arguments and writes the struct: (the arrays it points into, to be
        kept alive while the library borrows them, nc)."""
        trees, trees_address = self.trees.get(tree_dofs, copy, self)
        ct, ct_address = self.contacts.get(contact_trees, copy, self)
        tm, tj = type(M_blocks), type(J_blocks)
        packed = None
        if tm is not np.ndarray or tj is not np.ndarray:
            layouts = self.layouts(trees, ct)  # lists are checked block by block against it
            if layouts is not None and not copy and (tm is list or tm is tuple) \
                    and (tj is list or tj is tuple) and M_blocks:
                packed = self.lists.pack(M_blocks, J_blocks, layouts)
        if type(packed) is tuple:
            self.copied = True
            m, j, m_address, j_address = packed
        elif packed is True:  # shapes checked: pack each list by np.concatenate
            self.copied = True
            self.M.filled = self.J.filled = False
            m, m_address = self.M.pack(M_blocks, layouts[0])
            j, j_address = self.J.pack(J_blocks, layouts[1])
        else:
            lm = lj = None
            if tm is not np.ndarray or tj is not np.ndarray:
                lm, lj = layouts or (None, None)
            m, m_address = self.M.get(M_blocks, copy, self, lm)
            j, j_address = self.J.get(J_blocks, copy, self, lj)
        nc = ct.size // 2
        words = (trees.shape[0], trees_address, m.shape[0], m_address, nc, ct_address,
                 j.shape[0], j_address)
        if words != self.written:
            self.words[:] = words
            self.written = words
        return (trees, m, ct, j), nc

    def layouts(self, trees: np.ndarray, ct: np.ndarray):
        """(the M blocks' :class:`_Layout`, the J blocks'): n_t×n_t per tree, 3×n_t per contact
        side in order (side a, then side b unless it is -1); None when the structure is itself
        invalid (the library then reports it). Kept for the next call with the same arrays (this
        object's own reused conversions, never written) or equal values."""
        e = self.expected
        if e is not None and e[0] is trees is self.trees.array and e[1] is ct is self.contacts.array:
            return e[2]
        key = (trees.tobytes(), ct.tobytes())
        if e is not None and e[3] == key:
            layouts = e[2]
        elif trees.size and trees.min() < 0 or ct.size and (
                ct.min() < -1 or ct.max() >= trees.shape[0]):
            return None
        else:
            dofs = trees.astype(np.intp)
            sides = dofs[ct[ct >= 0]]
            layouts = (_Layout(dofs, dofs), _Layout(np.full_like(sides, 3), sides))
        self.expected = (trees, ct, layouts, key)
        return layouts

    def vector(self, x, n: int, name: str, copy: bool):
        """A per-velocity or per-contact vector as :func:`_vector` gives it, and its address;
        the common case, a contiguous float64 vector, checked without ``np.asarray``."""
        if not copy and type(x) is np.ndarray and (x.dtype is _F64 or x.dtype == _F64) \
                and x.shape == (n,) and x.flags.c_contiguous:
            known = self.known.get(name)
            if known is None or known[0] is not x:
                known = (x, _c_address(x))
            self.pending[name] = known
            return known
        self.copied = True
        a = _vector(x, n, name, copy)
        return a, _ptr(a)

    def vectors(self, vecs: tuple, nv: int, nc: int):
        """The addresses of ``p_star`` (nv) and the per-contact vectors (nc each) when every one
        is a contiguous float64 ndarray of its length, checked by one comparison of their
        layouts (a fifth of five :meth:`vector` calls); None otherwise (the caller converts them
        one by one, naming a bad one). Addresses of the arrays the library borrows since the last
        call are reused. With the extension (:data:`_pack`) numpy's struct is read in C
        instead: the same checks, the addresses read directly."""
        if _pack is not None:
            addresses = _pack.vectors(vecs, nv, nc)
            if addresses is not None:
                self.pending["vectors"] = (vecs, addresses)
                return addresses
        expected = self.vector_layouts
        if expected is None or expected[0] != (nv, nc, len(vecs)):
            one = (_ITEM,)
            expected = self.vector_layouts = ((nv, nc, len(vecs)), [(np.ndarray, (nv,), _F64, one)]
                                              + [(np.ndarray, (nc,), _F64, one)] * (len(vecs) - 1))
        try:
            if list(map(_VECTOR_LAYOUT, vecs)) != expected[1]:
                return None
        except AttributeError:
            return None
        known = self.known.get("vectors")
        if known is not None and all(map(_IS, vecs, known[0])):
            addresses = known[1]
        else:
            addresses = list(map(_c_address, vecs))
        self.pending["vectors"] = (vecs, addresses)
        return addresses

    def commit(self, borrowed: tuple, function=None, args=None, addresses=None) -> None:
        """The set call succeeded and the solver object's ``_borrowed`` is now ``borrowed``;
        with ``function``, ``args`` and the ``addresses`` passed after the struct, the call is
        kept for :meth:`repeat` if it converted nothing and repeats the call before it (the
        layouts, 2 µs to read, are read only for a loop that passes the same arrays)."""
        self.M.commit()
        self.J.commit()
        self.lists.commit()
        self.known, self.pending = self.pending, {}
        self.borrowed = borrowed
        previous, self.previous, self.last = self.previous, None, None
        if function is not None and not self.copied:
            self.previous = (function, args)
            if (previous is not None and previous[0] is function
                    and all(map(_IS, args, previous[1]))):
                self.last = (function, args, list(map(_LAYOUT, args)), addresses)


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

    def _block_sparse(self) -> _BlockSparse:
        """This object's :class:`_BlockSparse`, made at its first block-sparse set call."""
        block = self.__dict__.get("_block")
        if block is None:
            block = self._block = _BlockSparse()
        return block

    # -- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        """Frees the C handle (``cts_<name>_solver_free``) and drops the borrowed arrays.

        Idempotent; any later call on this object raises :class:`ContactSolversError`.
        """
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._fn("free")(handle)
        self._borrowed = ()
        self.__dict__.pop("_block", None)

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



class _Batch:
    """The C arrays of one ``cts_<name>_solver_solve_batch`` call (``docs/c_api.md`` §1.10),
    built from Python lists with one numpy array each, and the reading of its statuses.

    ``solvers``: solver objects of one class (``None`` or a closed solver is a NULL handle: that
    world's status is ``NULL_POINTER``). ``v_guesses``: ``None`` (no guesses), a 2-D array (one
    row per world, same n) or a sequence of 1-D arrays (``None`` entries are NULL pointers); it
    must have one entry per world. The arrays stay referenced by this object for the call.
    """

    def __init__(self, cls, solvers, v_guesses, allow_null_guess: bool):
        self.solvers = solvers = list(solvers)
        n = self.count = len(solvers)
        self.handle_p = cls._handle_p
        # The joined handles' bytes stay referenced here: ctypes.cast keeps no reference to a
        # bytes object.
        self.joined = self._handles(cls, solvers)
        self.handles = None
        if self.joined is not None:
            self.handles = ctypes.cast(self.joined, ctypes.POINTER(self.handle_p))
        else:  # other types or None among the solvers: one by one
            for i, s in enumerate(solvers):
                if s is not None and not isinstance(s, cls):
                    raise TypeError(f"solvers[{i}] is a {type(s).__name__}, expected a {cls.__name__}")
            handles = (self.handle_p * n)()
            for i, s in enumerate(solvers):
                if s is not None and s._handle:
                    handles[i] = s._handle
            self.handles = handles
        live = next((s for s in solvers if s is not None), None)
        self.lib = live._lib if live is not None else _library(None)
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
        if self._gathered(rows):
            return
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
    def _handles(cls, solvers):
        """The C handles of ``solvers`` as one ctypes array, read without Python work per
        solver (a closed solver's ``_handle`` is None: a NULL entry, that world's
        ``NULL_POINTER``); None when a solver is not exactly a ``cls`` (``None``, a subclass,
        another type: the caller goes one by one)."""
        if set(map(type, solvers)) - {cls}:
            return None
        try:
            # A ctypes pointer's buffer is its value: the joined buffers are the C array of
            # handles, read in C (a ctypes array built from the handles checks each one: about
            # 3k instructions a world, a tenth of a box world's solve; docs/performance.md §7,
            # "evening pass"). A closed solver's None refuses the join: one by one.
            joined = b"".join(map(_HANDLE, solvers))
        except (TypeError, AttributeError, BufferError):
            return None
        if len(joined) != ctypes.sizeof(cls._handle_p) * len(solvers):
            return None
        return joined

    def _gathered(self, rows: list) -> bool:
        """Guesses given as 1-D arrays (or sequences) of float64: copied back to back into one
        array by one ``np.concatenate`` (a guess is read only during the call), the pointers and
        lengths computed by numpy; no Python work per world. False (nothing set) when a guess is
        None, not 1-D, or not real: the caller goes one by one and names it."""
        if not rows or any(map(_IS, rows, _NONES)):
            return False
        try:
            flat = np.concatenate(rows)
            ns = np.fromiter(map(len, rows), dtype=np.uintp, count=len(rows))
        except (ValueError, TypeError):
            return False
        if flat.ndim != 1 or flat.dtype.kind not in "biuf" or int(ns.sum()) != flat.shape[0]:
            return False
        flat = np.ascontiguousarray(flat, dtype=np.float64)
        self._keep = flat
        base = flat.ctypes.data if flat.size else 0
        starts = np.cumsum(ns) - ns
        self.guesses = np.where(ns > 0, base + starts * np.uintp(_ITEM), 0).astype(np.uintp)
        self.ns = ns
        return True

    @staticmethod
    def pointer(a, ctype):
        """``a`` (a numpy array of addresses or sizes, or None) as a ``ctype *`` argument."""
        return None if a is None else ctypes.cast(a.ctypes.data, ctypes.POINTER(ctype))

    def run(self, function: str, *per_world, num_threads: int) -> list:
        """Calls ``function(handles, *per_world, count, num_threads, statuses)``; raises when the
        call itself is refused, else returns each world's status (an int)."""
        statuses = np.full(self.count, Status.PANIC, dtype=np.int32)
        status = getattr(self.lib, function)(
            self.handles,
            *per_world,
            self.count,
            max(0, int(num_threads)),
            ctypes.cast(statuses.ctypes.data, ctypes.POINTER(ctypes.c_int32)),
        )
        if status != Status.OK:
            raise ContactSolversError(status, self.lib.last_error_message())
        return statuses

    def error(self, i: int, status: int):
        """The :class:`ContactSolversError` of world ``i`` (not raised)."""
        s = self.solvers[i]
        message = s.last_error() if s is not None and s._handle else f"solvers[{i}] is None or closed"
        return ContactSolversError(status, message)
