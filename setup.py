"""Build step of the Python package (pyproject.toml): builds libcontact_solvers in release mode
with cargo and puts it inside the package, next to its modules, where
``contact_solvers._common`` looks first; and builds the optional extension module
``contact_solvers._pack`` (``python/contact_solvers/_pack.c``: the block-sparse setters' lists of
blocks packed in compiled code, docs/python.md §1 and §7).

The extension is optional: when it cannot be built (no C compiler or no Python headers), or
``CONTACT_SOLVERS_NO_EXTENSION`` is set to anything but ``""`` or ``"0"``, the package installs
without it and packs lists in Python. With numpy importable at build time (``pip install
--no-build-isolation``, or the isolated build's own numpy from pyproject.toml) it reads numpy's
array struct directly; without, every block goes through the buffer protocol. The wheel is tagged
for the interpreter that built the extension (``cp3XY-cp3XY-<platform>``), or
``py3-none-<platform>`` without it: the library does not link Python, so then one wheel serves
every Python 3 on that platform.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1: the wheel package's
    from wheel.bdist_wheel import bdist_wheel

ROOT = Path(__file__).resolve().parent


def _library_name() -> str:
    if sys.platform == "darwin":
        return "libcontact_solvers.dylib"
    if sys.platform == "win32":
        return "contact_solvers.dll"
    return "libcontact_solvers.so"


def _target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")


class BuildPyWithLibrary(build_py):
    """build_py, then ``cargo build --release --lib`` and a copy of the shared library into the
    built package."""

    def run(self):
        super().run()
        cargo = os.environ.get("CARGO", "cargo")
        subprocess.run([cargo, "build", "--release", "--lib"], cwd=ROOT, check=True)
        # CARGO_BUILD_TARGET (an explicit triple) puts cargo's output under <target>/<triple>.
        built = _target_dir() / os.environ.get("CARGO_BUILD_TARGET", "") / "release" / _library_name()
        dest = Path(self.build_lib) / "contact_solvers" / _library_name()
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, dest)


def _no_extension() -> bool:
    return os.environ.get("CONTACT_SOLVERS_NO_EXTENSION", "") not in ("", "0")


def _extensions() -> list:
    """``contact_solvers._pack``, optional (a failed compile is reported and skipped), with
    numpy's headers when numpy is importable here."""
    if _no_extension():
        return []
    include_dirs, macros = [], []
    try:
        import numpy

        include_dirs.append(numpy.get_include())
        macros.append(("CONTACT_SOLVERS_PACK_NUMPY", "1"))
    except ImportError:
        pass
    return [
        Extension(
            "contact_solvers._pack",
            ["python/contact_solvers/_pack.c"],  # setuptools wants paths relative to setup.py
            include_dirs=include_dirs,
            define_macros=macros,
            optional=True,
        )
    ]


class OptionalBuildExt(build_ext):
    """build_ext, first removing an extension an earlier build left in the build folder (kept
    under cargo's target folder across builds): a disabled or failed extension must not ship a
    stale one."""

    def run(self):
        for stale in (Path(self.build_lib) / "contact_solvers").glob("_pack.*"):
            stale.unlink()
        super().run()


class PlatformWheel(bdist_wheel):
    """A platform wheel: for the interpreter that built the extension, else for every Python 3
    (the library does not link Python)."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        # The build has run by now: an extension that failed to compile left no file behind.
        build_ext = self.get_finalized_command("build_ext")
        if any(os.path.exists(p) for p in build_ext.get_outputs()):
            return super().get_tag()
        _, _, platform = super().get_tag()
        return "py3", "none", platform


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(
    cmdclass={"build_py": BuildPyWithLibrary, "build_ext": OptionalBuildExt,
              "bdist_wheel": PlatformWheel},
    distclass=BinaryDistribution,
    ext_modules=_extensions(),
    # setuptools' scratch folders go under cargo's target folder, not into the source tree.
    options={"build": {"build_base": str(_target_dir() / "python-build")}},
)
