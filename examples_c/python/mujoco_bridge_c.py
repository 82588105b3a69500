"""The C bridge (``mujoco_bridge.c``) from Python: builds it with the system's C compiler against
MuJoCo's pip wheel (its headers and ``libmujoco``) and this library, and calls it with the
addresses of MuJoCo's ``MjModel``/``MjData`` and of a solver handle, so that a live loop step
(extraction of the block data, set call, solve, MuJoCo advanced) is one Python-level call.

It gives the arrays of ``mujoco_bridge.contact_step`` + ``mujoco_pile.block_step`` bit for bit
(``tests/test_mujoco_bridge_c.py``). Use::

    bridge = CBridge(library=cts_library)          # builds once into target/mujoco_bridge_c/
    status, (extract_s, set_s, solve_s) = bridge.tamsi_step(solver, model, data, k, d, dt)
"""

from __future__ import annotations

import ctypes
import enum
import glob
import os
import subprocess
from pathlib import Path

import numpy as np

import mujoco

import contact_solvers as cts

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SOURCE = HERE / "mujoco_bridge.c"

STAGES, MJ_JAC, ADVANCE, ALL_CONTACTS = 1, 2, 4, 8  # the CTSMJ_* flags of mujoco_bridge.c


class Array(enum.IntEnum):
    """The indices of ``ctsmj_array`` (mujoco_bridge.c)."""

    TREE_DOFS = 0
    M = 1
    CONTACT_TREES = 2
    J = 3
    P_STAR = 4
    V0 = 5
    FN0 = 6
    STIFFNESS = 7
    DISSIPATION = 8
    MU = 9
    PHI = 10
    TAU = 11
    MODELS = 12
    IDS = 13


_DTYPES = {Array.TREE_DOFS: np.int32, Array.CONTACT_TREES: np.int32, Array.MODELS: np.int32, Array.IDS: np.uint64}


def mujoco_dir() -> Path:
    return Path(mujoco.__file__).resolve().parent


def build(library_path: str | os.PathLike, out_dir: str | os.PathLike | None = None, cc: str | None = None) -> Path:
    """Compiles ``mujoco_bridge.c`` into ``out_dir/libctsmj.so`` (default
    ``target/mujoco_bridge_c/<hash of the two libraries' paths>``, so that a bridge is never
    used with another copy of the library than the one it links) linked to ``library_path``
    (libcontact_solvers) and MuJoCo's wheel library, with both folders as run paths; rebuilt when
    the source is newer. Returns the path."""
    import hashlib

    key = hashlib.sha256(f"{Path(library_path).resolve()}\n{mujoco_dir()}".encode()).hexdigest()[:16]
    out = Path(out_dir) if out_dir else REPO / "target" / "mujoco_bridge_c" / key
    out.mkdir(parents=True, exist_ok=True)
    so = out / "libctsmj.so"
    if so.exists() and so.stat().st_mtime >= SOURCE.stat().st_mtime:
        return so
    mj = mujoco_dir()
    libmujoco = sorted(glob.glob(str(mj / "libmujoco.so*")))
    if not libmujoco:
        raise OSError(f"no libmujoco.so* in {mj}")
    lib = Path(library_path).resolve()
    cmd = [cc or os.environ.get("CC", "cc"), "-O2", "-std=c11", "-D_POSIX_C_SOURCE=199309L", "-shared", "-fPIC",
           "-ffp-contract=off", "-Wall", "-Werror", f"-I{REPO / 'include'}", f"-I{mj / 'include'}", str(SOURCE),
           "-o", str(so), str(lib), libmujoco[0], f"-Wl,-rpath,{lib.parent}", f"-Wl,-rpath,{mj}", "-lm"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return so


class CBridge:
    """The bridge's buffers (kept and grown by C) and its two calls."""

    def __init__(self, library: cts.Library | None = None, path: str | os.PathLike | None = None):
        self.library = cts.load_library() if library is None else library
        self.path = Path(path) if path else build(self.library.path)
        dll = ctypes.CDLL(str(self.path))
        p = ctypes.c_void_p
        dll.ctsmj_new.restype = p
        dll.ctsmj_new.argtypes = []
        dll.ctsmj_free.restype = None
        dll.ctsmj_free.argtypes = [p]
        dll.ctsmj_error.restype = ctypes.c_char_p
        dll.ctsmj_error.argtypes = [p]
        dll.ctsmj_array.restype = p
        dll.ctsmj_array.argtypes = [p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]
        dll.ctsmj_extract.restype = ctypes.c_long
        dll.ctsmj_extract.argtypes = [p, p, p, ctypes.c_double, ctypes.c_double, ctypes.c_int]
        dll.ctsmj_ipm_step.restype = ctypes.c_int
        dll.ctsmj_ipm_step.argtypes = [p, p, p, p, ctypes.c_int32, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
        dll.ctsmj_tamsi_step.restype = ctypes.c_int
        dll.ctsmj_tamsi_step.argtypes = [p, p, p, p, ctypes.c_double, ctypes.c_double, ctypes.c_double,
                                         ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
        self._dll = dll
        self._b = dll.ctsmj_new()
        if not self._b:
            raise MemoryError("ctsmj_new")
        self._seconds = (ctypes.c_double * 3)()

    def close(self) -> None:
        if self._b:
            self._dll.ctsmj_free(self._b)
            self._b = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _error(self) -> str:
        return self._dll.ctsmj_error(self._b).decode()

    def extract(self, model, data, stiffness: float, dissipation: float, flags: int = STAGES) -> dict:
        """The block data of ``data``'s state (``flags``: STAGES runs MuJoCo's stages first, MJ_JAC
        takes the point Jacobians from mj_jac) as copies: ``{Array: ndarray}``."""
        nc = self._dll.ctsmj_extract(self._b, model._address, data._address, stiffness, dissipation, flags)
        if nc < 0:
            raise RuntimeError(self._error())
        return {a: self.array(a) for a in Array}

    def address(self, which: Array) -> int:
        """Where array ``which`` lives now (it moves only when a step needs more room)."""
        return self._dll.ctsmj_array(self._b, int(which), None) or 0

    def array(self, which: Array) -> np.ndarray:
        """A copy of array ``which`` of the last extraction (or step)."""
        n = ctypes.c_size_t()
        ptr = self._dll.ctsmj_array(self._b, int(which), ctypes.byref(n))
        dtype = _DTYPES.get(which, np.float64)
        if not n.value:
            return np.zeros(0, dtype=dtype)
        return np.frombuffer((ctypes.c_char * (n.value * np.dtype(dtype).itemsize)).from_address(ptr),
                             dtype=dtype).copy()

    def bind_tamsi_step(self, solver: cts.TamsiSolver, model, data, stiffness: float, dissipation: float,
                        dt: float, flags: int = STAGES | ADVANCE):
        """:meth:`tamsi_step` with its arguments converted once: returns a function of no
        arguments that makes the C call and returns its raw status (the phase times are then in
        :attr:`seconds`). The loop's step is then a single ctypes call (docs/performance.md §3: in
        the live loop every Python-level operation runs with cold caches and costs ~10 µs)."""
        import functools

        solver._borrowed = ()
        handle = ctypes.cast(solver._h(), ctypes.c_void_p).value
        p, dbl = ctypes.c_void_p, ctypes.c_double
        return functools.partial(self._dll.ctsmj_tamsi_step, p(self._b), p(handle), p(model._address),
                                 p(data._address), dbl(stiffness), dbl(dissipation), dbl(dt), ctypes.c_int(flags),
                                 self._seconds)

    @property
    def seconds(self) -> tuple:
        """The last step's (extract s, set s, solve s)."""
        return tuple(self._seconds)

    def tamsi_step(self, solver: cts.TamsiSolver, model, data, stiffness: float, dissipation: float, dt: float,
                   flags: int = STAGES | ADVANCE):
        """One live-loop step in C (mujoco_bridge.c ``ctsmj_tamsi_step``): ``(status, (extract s,
        set s, solve s))``; ``status`` a :class:`contact_solvers.Status` value (the set call's when
        it failed, else the solve's). The solver's getters then read this step's results; the solver
        borrows the bridge's arrays until its next set call, so keep the bridge open as long."""
        handle = ctypes.cast(solver._h(), ctypes.c_void_p).value
        st = self._dll.ctsmj_tamsi_step(self._b, handle, model._address, data._address, stiffness, dissipation,
                                        dt, flags, self._seconds)
        if st < 0:
            raise RuntimeError(self._error())
        solver._borrowed = ()  # the data the solver borrows now lives in the bridge
        return st, tuple(self._seconds)

    def ipm_step(self, solver: cts.IpmSolver, model, data, contact_model: int, flags: int = STAGES | ADVANCE):
        """One interior-point step in C (``ctsmj_ipm_step``: every contact MuJoCo found, the
        caller's geom margin; block data, contact ids, solve): ``(status, (extract s, set s, solve
        s))``, ``status`` a :class:`contact_solvers.IpmOutcome` value or a usage error (raised)."""
        handle = ctypes.cast(solver._h(), ctypes.c_void_p).value
        st = self._dll.ctsmj_ipm_step(self._b, handle, model._address, data._address, contact_model, flags,
                                      self._seconds)
        if st < 0:
            raise RuntimeError(self._error())
        solver._borrowed = ()
        if st != 0 and st not in {int(o) for o in cts.IpmOutcome}:
            raise cts.ContactSolversError(st, solver.last_error())
        return st, tuple(self._seconds)
