#!/usr/bin/env python3
"""Generate python/weir/_bindings.py: the ctypes view of libweir's C API.

The Python SDK calls libweir through ctypes, which knows nothing of weir.h: a struct
layout or a signature written by hand drifts from the header silently (a field added in
the middle of an options struct shifts every later one; ctypes then passes garbage). So
the bindings are generated from the headers, as src/engine/duckdb_symbols.h is from
duckdb.h (scripts/gen_duckdb_shim.py), and a test fails when the committed file is stale:

    python3 scripts/gen_bindings.py            # rewrite python/weir/_bindings.py
    python3 scripts/gen_bindings.py --check    # exit 1 if it is out of date (a test)
    python3 scripts/gen_bindings.py --layout-c # print a C program that prints every
                                               # struct's size and field offsets (the
                                               # layout test compares them with ctypes)

What is generated, from include/weir.h and include/weir_worker.h:
  - every `typedef struct weir_x {...} weir_x;` and Arrow C interface struct as a
    ctypes.Structure named like the C type;
  - every enum constant and numeric #define WEIR_* as a module constant, and
    WEIR_VERSION_STRING from VERSION (the package's version: pyproject.toml reads it);
  - every function pointer typedef (weir_progress_fn) as a CFUNCTYPE;
  - SIGNATURES: name -> (restype, argtypes) for every WEIR_API function, and PRIVATE:
    the names declared in weir_worker.h (not part of the stable API).

Type mapping (ctypes has no const, and must not take ownership of what C frees):
  const char *  -> c_char_p (a borrowed string, or a Python bytes argument)
  char *        -> c_void_p (a string the caller frees with weir_free/weir_error_clear)
  char **, T ** -> POINTER(c_void_p) (out-parameters)
  T name[N]     -> c_char_p for char buffers in parameters; ctypes arrays in structs
  handles (weir_lake *, weir_contract *), other pointers -> c_void_p
  pointers to generated structs -> POINTER(struct)
  enums -> c_int
A C type the script does not know is an error, never a guess.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADERS = [ROOT / "include" / "weir.h", ROOT / "include" / "weir_worker.h"]
# VERSION is read too: a new version number is a stale _bindings.py until regenerated.
OUT = ROOT / "python" / "weir" / "_bindings.py"

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRUCT = re.compile(r"(?:typedef\s+)?struct\s+(\w+)\s*\{(.*?)\}\s*(\w*)\s*;", re.S)
ENUM = re.compile(r"typedef\s+enum\s+(\w+)\s*\{(.*?)\}\s*\1\s*;", re.S)
DEFINE = re.compile(r"^#define\s+(WEIR_\w+)\s+\(?(\d+)u?\)?\s*$", re.M)
FNPTR = re.compile(r"typedef\s+(\w[\w\s\*]*?)\s*\(\s*\*\s*(\w+)\s*\)\s*\(([^;]*)\)\s*;", re.S)
DECL = re.compile(r"WEIR_API\s+([^;{}]*?)\b(weir_\w+)\s*\(([^;{}]*?)\)\s*;", re.S)
OPAQUE = re.compile(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;")

SCALARS = {
    "int": "c_int", "unsigned": "c_uint", "unsigned int": "c_uint", "int64_t": "c_int64",
    "int32_t": "c_int32", "uint64_t": "c_uint64", "size_t": "c_size_t", "double": "c_double",
}


class Header:
    def __init__(self, paths: list[Path]) -> None:
        self.structs: dict[str, list[tuple[str, str, str | None]]] = {}  # name -> [(ctype, field, array)]
        self.struct_order: list[str] = []
        self.enums: dict[str, list[tuple[str, int]]] = {}
        self.defines: list[tuple[str, int]] = []
        self.fnptrs: dict[str, tuple[str, str]] = {}
        self.opaque: set[str] = set()
        self.functions: list[tuple[str, str, str, str]] = []  # (ret, name, params, header)
        texts = {p: p.read_text() for p in paths}
        for p, raw in texts.items():
            text = COMMENT.sub(" ", raw)
            text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)  # preprocessor lines (WEIR_API's own #define)
            for m in DEFINE.finditer(raw):
                if m.group(1) not in [d for d, _ in self.defines]:
                    self.defines.append((m.group(1), int(m.group(2))))
            for m in ENUM.finditer(text):
                self.enums[m.group(1)] = self._enum_items(m.group(2))
            for m in FNPTR.finditer(text):
                self.fnptrs[m.group(2)] = (" ".join(m.group(1).split()), " ".join(m.group(3).split()))
            for m in OPAQUE.finditer(text):
                self.opaque.add(m.group(2))
            for m in STRUCT.finditer(text):
                name = m.group(3) or m.group(1)
                if name in self.structs:
                    continue
                self.structs[name] = self._fields(name, m.group(2))
                self.struct_order.append(name)
            for m in DECL.finditer(text):
                self.functions.append((" ".join(m.group(1).split()), m.group(2), " ".join(m.group(3).split()),
                                       p.name))

    @staticmethod
    def _enum_items(body: str) -> list[tuple[str, int]]:
        out, nxt = [], 0
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            if "=" in item:
                k, v = (s.strip() for s in item.split("=", 1))
                nxt = int(v, 0)
            else:
                k = item
            out.append((k, nxt))
            nxt += 1
        return out

    def _fields(self, struct: str, body: str) -> list[tuple[str, str, str | None]]:
        fields = []
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            fp = re.match(r"(.+?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", decl)
            if fp:  # a function pointer member (the Arrow structs' callbacks)
                fields.append(("c_void_p", fp.group(2), None))
                continue
            m = re.match(r"(.+?)(\w+)\s*(?:\[\s*(\w+)\s*\])?$", decl)
            if not m:
                sys.exit(f"gen_bindings: cannot read field '{decl}' of {struct}")
            ctype = self.field_type(m.group(1).strip(), struct, m.group(2))
            fields.append((ctype, m.group(2), m.group(3)))
        return fields

    def base_ctype(self, t: str, where: str) -> str:
        t = " ".join(t.replace("const ", "").split())
        if t in SCALARS:
            return SCALARS[t]
        if t in self.enums:
            return "c_int"
        if t in self.fnptrs:
            return t
        sys.exit(f"gen_bindings: {where}: unknown C type '{t}' (teach scripts/gen_bindings.py what it is)")

    def pointer_ctype(self, t: str, where: str) -> str:
        """The ctypes type of pointer type `t` (it contains '*')."""
        stars = t.count("*")
        base = " ".join(t.replace("*", " ").split())
        const = base.startswith("const ")
        bare = base.replace("const ", "").replace("struct ", "").strip()
        if stars >= 2:
            return "POINTER(c_void_p)"
        if bare == "char":
            return "c_char_p" if const else "c_void_p"
        if bare in self.structs and bare not in self.opaque:
            return f"POINTER({bare})"
        if bare in SCALARS:
            return f"POINTER({SCALARS[bare]})"
        return "c_void_p"  # an opaque handle, void *, or a struct the API never passes by layout

    def field_type(self, t: str, struct: str, name: str) -> str:
        if "*" in t:
            return self.pointer_ctype(t, f"{struct}.{name}")
        return self.base_ctype(t, f"{struct}.{name}")

    def param_type(self, p: str, fn: str) -> str:
        p = p.strip()
        if p in ("", "void"):
            return ""
        m = re.match(r"(.+?)(\w+)\s*(\[[^\]]*\])?$", p)
        if not m:
            sys.exit(f"gen_bindings: cannot read parameter '{p}' of {fn}")
        t, array = m.group(1).strip(), m.group(3)
        if array:
            if " ".join(t.split()) == "char":
                return "c_char_p"  # a caller-provided buffer (WEIR_HASH_HEX_SIZE bytes)
            sys.exit(f"gen_bindings: {fn}: array parameter '{p}' of a type other than char")
        if "*" in t:
            return self.pointer_ctype(t, fn)
        return self.base_ctype(t, fn)

    def return_type(self, t: str, fn: str) -> str:
        if t == "void":
            return "None"
        if "*" in t:
            return self.pointer_ctype(t, fn)
        return self.base_ctype(t, fn)


def render(h: Header) -> str:
    out = ['"""ctypes bindings of libweir, generated by scripts/gen_bindings.py from include/weir.h and',
           'include/weir_worker.h. Do not edit: change the headers and run the script (a test fails',
           'when this file is stale; another compares every struct layout with the C compiler\'s)."""',
           "# ruff: noqa",
           "# pyright: reportUnusedImport=false",
           "from __future__ import annotations", "",
           "import ctypes",
           "from ctypes import (CFUNCTYPE, POINTER, c_char_p, c_double, c_int, c_int32, c_int64, c_size_t, c_uint,",
           "                    c_uint64, c_void_p)",
           "from typing import Any", ""]
    version = (ROOT / "VERSION").read_text().strip()
    out.append("# ---- the version (VERSION; weir_version.h's WEIR_VERSION_STRING) ----")
    out.append(f'WEIR_VERSION_STRING = "{version}"')
    out.append("")
    out.append("# ---- constants: numeric #defines and enum values ----")
    for name, value in h.defines:
        out.append(f"{name} = {value}")
    for enum, items in h.enums.items():
        out.append(f"# {enum}")
        for k, v in items:
            out.append(f"{k} = {v}")
    out.append("")
    out.append("# ---- callback types ----")
    for name, (ret, params) in h.fnptrs.items():
        rt = h.return_type(ret, name)
        args = [h.param_type(p, name) for p in params.split(",")]
        out.append(f"{name} = CFUNCTYPE({', '.join([rt] + [a for a in args if a])})")
    out.append("")
    out.append("# ---- structs (the layouts of the C compiler; tests/py/test_bindings.py checks them) ----")
    for name in h.struct_order:
        out.append("")
        out.append(f"class {name}(ctypes.Structure):")
        out.append(f'    """``{name}``."""')
        out.append("")
        out.append("    _fields_ = [")
        for ctype, field, array in h.structs[name]:
            t = ctype if not array else f"{ctype} * {array}"
            out.append(f'        ("{field}", {t}),')
        out.append("    ]")
    out.append("")
    out.append("")
    out.append("# ---- functions: name -> (restype, argtypes) ----")
    out.append("SIGNATURES: dict[str, tuple[Any, list[Any]]] = {")
    for ret, name, params, _ in h.functions:
        rt = h.return_type(ret, name)
        args = [a for a in (h.param_type(p, name) for p in params.split(",")) if a]
        out.append(f'    "{name}": ({rt}, [{", ".join(args)}]),')
    out.append("}")
    out.append("")
    out.append("# Declared in weir_worker.h: for weir's own worker only, not the stable API.")
    private = sorted(n for _, n, _, hdr in h.functions if hdr == "weir_worker.h")
    out.append("PRIVATE: frozenset[str] = frozenset({" + ", ".join(f'"{n}"' for n in private) + "})")
    out.append("")
    out.append("# The layout of every struct above: name -> (size, {field: offset}), as the C compiler")
    out.append("# lays it out on the platform this file was generated for; see tests/py/test_bindings.py.")
    out.append("STRUCTS: tuple[str, ...] = (" + ", ".join(f'"{n}"' for n in h.struct_order) + ",)")
    return "\n".join(out) + "\n"


def layout_program(h: Header) -> str:
    """A C program that prints `struct size field offset ...` lines for every struct."""
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "weir.h"', '#include "weir_worker.h"',
             "int main(void) {"]
    for name in h.struct_order:
        ctype = name if name.startswith("weir_") else f"struct {name}"
        fields = " ".join(f"{f} %zu" for _, f, _ in h.structs[name])
        args = ", ".join(f"offsetof({ctype}, {f})" for _, f, _ in h.structs[name])
        lines.append(f'  printf("{name} %zu {fields}\\n", sizeof({ctype}), {args});')
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the generated file is out of date")
    ap.add_argument("--layout-c", action="store_true", help="print the layout-printing C program")
    a = ap.parse_args()
    h = Header(HEADERS)
    if a.layout_c:
        sys.stdout.write(layout_program(h))
        return 0
    text = render(h)
    if a.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is out of date: run python3 scripts/gen_bindings.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
