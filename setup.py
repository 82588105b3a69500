"""Build step of the Python package (pyproject.toml): builds libcontact_solvers in release mode
with cargo and puts it inside the package, next to its modules, where
``contact_solvers._common`` looks first. The wheel is tagged ``py3-none-<platform>``: it holds
a native library but no Python extension, so one wheel serves every Python 3 on that platform.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, setup
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


class PlatformWheel(bdist_wheel):
    """A platform wheel that fits every Python 3 (the library does not link Python)."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(
    cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel},
    distclass=BinaryDistribution,
    # setuptools' scratch folders go under cargo's target folder, not into the source tree.
    options={"build": {"build_base": str(_target_dir() / "python-build")}},
)
