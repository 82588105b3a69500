"""The generated declarations (``contact_solvers._ffi``) against the C compiler's view of
``include/contact_solvers.h``: every struct's size and field offsets, every status code and every
constant. Needs the header (``CONTACT_SOLVERS_HEADER``, default: the repository's) and ``cc``."""

import os
import re
import subprocess
from pathlib import Path

import ctypes

import pytest

from contact_solvers import Status, _ffi

HEADER = Path(
    os.environ.get("CONTACT_SOLVERS_HEADER")
    or Path(__file__).resolve().parents[2] / "include" / "contact_solvers.h"
)


def _header_names():
    text = HEADER.read_text()
    defines = re.findall(r"^#define (CTS_\w+) -?\d+\s*$", text, re.M)
    statuses = re.findall(r"^\s*(CTS_STATUS_\w+) = -?\d+,", text, re.M)
    structs = re.findall(r"^typedef struct (\w+) \{", text, re.M)
    return defines, statuses, structs


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """What a C program compiled against the header prints: ``name value`` lines for every
    constant and status code, ``sizeof <struct> n`` and ``offsetof <struct> <field> n``."""
    if not HEADER.exists():
        pytest.fail(f"{HEADER} not found: set CONTACT_SOLVERS_HEADER")
    defines, statuses, structs = _header_names()
    lines = ["#include <stddef.h>", "#include <stdio.h>", f'#include "{HEADER}"', "int main(void) {"]
    for n in defines + statuses:
        lines.append(f'  printf("{n} %lld\\n", (long long){n});')
    for s in structs:
        lines.append(f'  printf("sizeof {s} %zu\\n", sizeof(struct {s}));')
        for f, _ in getattr(_ffi, s)._fields_ if hasattr(_ffi, s) else []:
            lines.append(f'  printf("offsetof {s} {f} %zu\\n", offsetof(struct {s}, {f}));')
    lines += ["  return 0;", "}"]
    d = tmp_path_factory.mktemp("layout")
    (d / "layout.c").write_text("\n".join(lines) + "\n")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c99", "-Wall", "-o", str(d / "layout"), str(d / "layout.c")], check=True)
    out = subprocess.run([str(d / "layout")], check=True, capture_output=True, text=True).stdout
    return {" ".join(l.split()[:-1]): int(l.split()[-1]) for l in out.splitlines()}, structs


def test_every_struct_has_the_c_size_and_offsets(compiled):
    values, structs = compiled
    assert structs, "no struct found in the header"
    for s in structs:
        py = getattr(_ffi, s, None)
        assert py is not None, f"struct {s} is missing from contact_solvers._ffi"
        assert ctypes.sizeof(py) == values[f"sizeof {s}"], f"sizeof({s})"
        for f, _ in py._fields_:
            assert getattr(py, f).offset == values[f"offsetof {s} {f}"], f"offsetof({s}, {f})"
    assert sorted(_ffi.STRUCTS) == sorted(structs)


def test_every_status_code_exists_with_its_value(compiled):
    values, _ = compiled
    _, statuses, _ = _header_names()
    assert len(statuses) >= 30
    for n in statuses:
        assert Status[n[len("CTS_STATUS_"):]] == values[n], n
        assert _ffi.STATUS_CODES[n] == values[n], n
    assert len(Status) == len(statuses)


def test_every_constant_exists_with_its_value(compiled):
    values, _ = compiled
    defines, _, _ = _header_names()
    assert "CTS_ABI_VERSION" in defines
    for n in defines:
        assert getattr(_ffi, n) == values[n], n
    assert sorted(_ffi.CONSTANTS) == sorted(defines)


def test_every_function_of_the_header_is_declared():
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    names = set(re.findall(r"^[^\s#].*?\b(cts_\w+)\(", text, re.M))
    assert names == set(_ffi.FUNCTIONS)
