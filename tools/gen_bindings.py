#!/usr/bin/env python3
"""Generates the language bindings' declarations from ``include/contact_solvers.h``.

The header is cbindgen's output (``tests/c_abi/header.rs`` keeps it fresh), so its shape is
regular: ``#define CTS_* <int>`` constants, one ``enum cts_status`` with ``NAME = value``
enumerators, ``typedef struct name { type field; ... } name;`` layouts, opaque
``typedef struct name name;`` handles, one function-pointer typedef and one prototype per
function between ``extern "C" {`` and ``}``. This script parses exactly that shape with the
standard library (no C parser to install) and fails loudly on anything else, so a header change
it does not understand cannot slip through.

It writes:

* ``python/contact_solvers/_ffi.py``: constants, the ``Status`` enum, the ``ctypes.Structure``
  layouts, the callback type and every prototype (``FUNCTIONS``);
* ``julia/ContactSolvers/src/ffi.jl``: the same for Julia (``const``s, ``@enum``-free integer
  constants, isbits ``struct``s and one ``ccall`` wrapper per function).

Usage: ``python3 tools/gen_bindings.py`` (rewrite), ``python3 tools/gen_bindings.py --check``
(exit 1 when a generated file differs; ``tests/packaging/python_package.rs`` runs this).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = ROOT / "include" / "contact_solvers.h"
PY_OUT = ROOT / "python" / "contact_solvers" / "_ffi.py"
JL_OUT = ROOT / "julia" / "ContactSolvers" / "src" / "ffi.jl"
REGENERATE = "python3 tools/gen_bindings.py"


class HeaderError(Exception):
    pass


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _ctype(decl: str) -> tuple[str, int, bool]:
    """``const struct x **`` -> (base ``x``, pointer depth 2, const)."""
    d = " ".join(decl.replace("*", " * ").split())
    depth = d.count("*")
    words = [w for w in d.split() if w != "*"]
    const = "const" in words
    words = [w for w in words if w not in ("const", "struct")]
    if len(words) != 1:
        raise HeaderError(f"unsupported C type {decl!r}")
    return words[0], depth, const


def _split_decl(decl: str) -> tuple[str, str]:
    """``const double *x`` -> (``const double *``, ``x``)."""
    m = re.fullmatch(r"\s*(.*?[\s*])(\w+)\s*", decl)
    if not m:
        raise HeaderError(f"cannot split declaration {decl!r}")
    return m.group(1).strip(), m.group(2)


def parse(path: Path = HEADER) -> dict:
    raw = path.read_text()
    text = _strip_comments(raw)
    defines = [(n, int(v)) for n, v in re.findall(r"^#define (CTS_\w+) (-?\d+)\s*$", text, re.M)]
    m = re.search(r"enum cts_status\b[^{]*\{(.*?)\};", text, re.S)
    if not m:
        raise HeaderError("no enum cts_status")
    statuses = [(n, int(v)) for n, v in re.findall(r"(CTS_STATUS_\w+) = (-?\d+),", m.group(1))]
    opaque = re.findall(r"^typedef struct (\w+) \1;", text, re.M)
    structs = []
    for name, body, alias in re.findall(r"^typedef struct (\w+) \{(.*?)\} (\w+);", text, re.M | re.S):
        if name != alias:
            raise HeaderError(f"struct {name} typedef'd as {alias}")
        fields = []
        for f in body.split(";"):
            if f.strip():
                if "[" in f or "(" in f:
                    raise HeaderError(f"unsupported field {f.strip()!r} in {name}")
                fields.append(_split_decl(f))
        structs.append((name, fields))
    callbacks = []
    for ret, name, args in re.findall(
        r"^typedef (\w+) \(\*(\w+)\)\(([^)]*)\);", text, re.M | re.S
    ):
        callbacks.append((name, ret, [_split_decl(a) for a in args.split(",")]))
    start = text.find('extern "C" {')
    if start < 0:
        raise HeaderError('no extern "C" block')
    body = text[start:]
    functions = []
    for ret, name, args in re.findall(r"^([\w][\w \*]*?)\s*\b(cts_\w+)\(([^)]*)\);", body, re.M | re.S):
        args = " ".join(args.split())
        params = [] if args in ("", "void") else [_split_decl(a) for a in args.split(",")]
        functions.append((name, ret.strip(), params))
    if not functions or not structs or not statuses or not defines:
        raise HeaderError("the header has none of: functions, structs, statuses or constants")
    # Every prototype-looking line must have been understood.
    proto_lines = re.findall(r"^[^\s#].*\bcts_\w+\(", body, re.M)
    if len(proto_lines) != len(functions):
        raise HeaderError(f"{len(proto_lines)} prototypes in the header, {len(functions)} parsed")
    return {
        "defines": defines,
        "statuses": statuses,
        "opaque": opaque,
        "structs": structs,
        "callbacks": callbacks,
        "functions": functions,
    }


# ------------------------------------------------------------------------------------------
# Python
# ------------------------------------------------------------------------------------------

_PY_SCALARS = {
    "double": "ctypes.c_double",
    "int32_t": "ctypes.c_int32",
    "uint32_t": "ctypes.c_uint32",
    "uint64_t": "ctypes.c_uint64",
    "size_t": "ctypes.c_size_t",
    "cts_status": "ctypes.c_int32",
    "void": "None",
}


def _py_type(decl: str, known: set[str], callbacks: set[str]) -> str:
    base, depth, _const = _ctype(decl)
    if depth == 0:
        if base in callbacks:
            return base
        if base in _PY_SCALARS:
            return _PY_SCALARS[base]
        raise HeaderError(f"no Python type for {decl!r}")
    if depth == 1:
        # double * and void * are addresses (ints): the wrappers pass numpy buffers' addresses
        # without building a ctypes pointer object per call.
        if base in ("double", "void"):
            return "ctypes.c_void_p"
        if base == "char":
            return "ctypes.c_char_p"
    inner = _PY_SCALARS.get(base) if base in _PY_SCALARS else (base if base in known else None)
    if inner is None or inner == "None":
        raise HeaderError(f"no Python type for {decl!r}")
    for _ in range(depth):
        inner = f"ctypes.POINTER({inner})"
    return inner


def python_source(h: dict) -> str:
    known = set(h["opaque"]) | {s for s, _ in h["structs"]}
    cbs = {c for c, _, _ in h["callbacks"]}
    out = [
        f'"""Declarations of ``include/contact_solvers.h`` for ctypes. GENERATED by',
        f"``{REGENERATE}``: do not edit (``tests/packaging/python_package.rs`` fails when this",
        'file is stale)."""',
        "",
        "# fmt: off",
        "import ctypes",
        "import enum",
        "",
        "# Constants (#define CTS_*).",
    ]
    for n, v in h["defines"]:
        out.append(f"{n} = {v}")
    out += ["", "", "class Status(enum.IntEnum):",
            '    """``cts_status``: every fallible C function returns one (``docs/c_api.md`` §2)."""',
            ""]
    for n, v in h["statuses"]:
        out.append(f"    {n[len('CTS_STATUS_'):]} = {v}")
    out += ["", "", "#: Every status code of the header, by its C name.",
            "STATUS_CODES = {"]
    for n, v in h["statuses"]:
        out.append(f'    "{n}": {v},')
    out += ["}", "", "#: Every #define constant of the header, by its C name.", "CONSTANTS = {"]
    for n, _ in h["defines"]:
        out.append(f'    "{n}": {n},')
    out.append("}")
    for name in h["opaque"]:
        out += ["", "", f"class {name}(ctypes.Structure):", f'    """Opaque ``{name}``."""']
    for name, fields in h["structs"]:
        out += ["", "", f"class {name}(ctypes.Structure):", f'    """``{name}``."""', "",
                "    _fields_ = ["]
        for decl, fname in fields:
            out.append(f'        ("{fname}", {_py_type(decl, known, cbs)}),')
        out.append("    ]")
    out += ["", "", "#: Every struct of the header, by its C name.", "STRUCTS = {"]
    for name, _ in h["structs"]:
        out.append(f'    "{name}": {name},')
    out.append("}")
    for name, ret, params in h["callbacks"]:
        types = ", ".join([_py_type(ret, known, cbs)] + [_py_type(d, known, cbs) for d, _ in params])
        out += ["", f"{name} = ctypes.CFUNCTYPE({types})"]
    out += ["", "#: name -> (restype, argtypes) of every function of the header.", "FUNCTIONS = {"]
    for name, ret, params in h["functions"]:
        args = ", ".join(_py_type(d, known, cbs) for d, _ in params)
        out.append(f'    "{name}": ({_py_type(ret, known, cbs)}, [{args}]),')
    out += ["}", ""]
    return "\n".join(out)


# ------------------------------------------------------------------------------------------
# Julia
# ------------------------------------------------------------------------------------------

_JL_SCALARS = {
    "double": "Cdouble",
    "int32_t": "Int32",
    "uint32_t": "UInt32",
    "uint64_t": "UInt64",
    "size_t": "Csize_t",
    "cts_status": "Int32",
    "void": "Cvoid",
    "char": "Cchar",
}


def _jl_struct_name(c: str) -> str:
    return "".join(p.capitalize() for p in c.split("_"))


def _jl_type(decl: str, known: set[str], callbacks: set[str]) -> str:
    base, depth, _ = _ctype(decl)
    if base in callbacks:
        t = "Ptr{Cvoid}"
    elif base in _JL_SCALARS:
        t = _JL_SCALARS[base]
    elif base in known:
        t = _jl_struct_name(base)
    else:
        raise HeaderError(f"no Julia type for {decl!r}")
    for _ in range(depth):
        t = f"Ptr{{{t}}}"
    return t


def julia_source(h: dict) -> str:
    known = set(h["opaque"]) | {s for s, _ in h["structs"]}
    cbs = {c for c, _, _ in h["callbacks"]}
    out = [
        f"# Declarations of include/contact_solvers.h for ccall. GENERATED by `{REGENERATE}`:",
        "# do not edit (tests/packaging/python_package.rs fails when this file is stale).",
        "",
        "# Constants (#define CTS_*) and status codes (enum cts_status).",
    ]
    for n, v in h["defines"] + h["statuses"]:
        out.append(f"const {n} = Int32({v})")
    out += ["", "# Opaque handles."]
    for name in h["opaque"]:
        out.append(f"mutable struct {_jl_struct_name(name)} end")
    for name, fields in h["structs"]:
        out += ["", f"# `{name}`", f"Base.@kwdef mutable struct {_jl_struct_name(name)}"]
        for decl, fname in fields:
            jt = _jl_type(decl, known, cbs)
            default = "C_NULL" if jt.startswith("Ptr") else f"zero({jt})"
            out.append(f"    {fname}::{jt} = {default}")
        out.append("end")
    out += ["", "# One thin ccall wrapper per C function, same name and argument order."]
    for name, ret, params in h["functions"]:
        argn = [p for _, p in params]
        types = [_jl_type(d, known, cbs) for d, _ in params]
        # Struct pointers are passed as Ref{T} so that Julia objects can be handed over.
        types = [
            f"Ref{{{t[4:-1]}}}" if t.startswith("Ptr{") and t[4:-1] in
            {_jl_struct_name(s) for s, _ in h["structs"]} else t
            for t in types
        ]
        tuple_t = "(" + ", ".join(types) + ("," if len(types) == 1 else "") + ")"
        out.append(
            f"{name}({', '.join(argn)}) = ccall(({':' + name}, libcontact_solvers), "
            f"{_jl_type(ret, known, cbs)}, {tuple_t}{''.join(', ' + a for a in argn)})"
        )
    out.append("")
    return "\n".join(out)


def outputs() -> dict[Path, str]:
    h = parse()
    return {PY_OUT: python_source(h), JL_OUT: julia_source(h)}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, text in outputs().items():
        old = path.read_text() if path.exists() else None
        if old == text:
            continue
        if check:
            stale.append(path.relative_to(ROOT))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print(
            "stale generated bindings: " + ", ".join(map(str, stale))
            + f"\nregenerate them from include/contact_solvers.h with `{REGENERATE}`",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
