"""pytest setup: the binding module (one folder up) and the reference values (this folder) are
importable, and every test shares one loaded library: ``CONTACT_SOLVERS_LIB`` when set (the Rust
test `tests/packaging/python_ctypes.rs` passes the library it built), else the repository's build."""

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import contact_solvers as cts  # noqa: E402


@pytest.fixture(scope="session")
def lib():
    library = cts.load_library()
    print(f"libcontact_solvers {cts.version(library)} from {library.path}")
    return library
