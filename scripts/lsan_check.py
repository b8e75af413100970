#!/usr/bin/env python3
"""Reads LeakSanitizer reports (ASan's log_path files) and fails on leaks that are weir's.

make test-asan-sdk runs the in-process SDK tests with the sanitizer runtimes preloaded
into an uninstrumented CPython. CPython and its extensions (pyarrow, numpy) leave objects
allocated at exit, which LSan reports, and a suppression cannot tell them apart from
libweir's: a suppression matches any frame, and every libweir allocation made from Python
has the interpreter below it on the stack. So the reports are written to files and read
here: a leak belongs to the nearest owner on its allocation stack, walking from the
allocation up (away from malloc): libweir.so or libduckdb.so (which only libweir drives)
is weir's leak; the interpreter or an extension module is Python's. Frames of shared C
libraries between them (jansson, SQLite, libc) belong to whoever called them.

  scripts/lsan_check.py DIR     exit 1 listing weir's leaks, 0 when there are none
Any other sanitizer report found in DIR (not a leak) fails as well.
"""
from __future__ import annotations

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
# A frame is weir's by its module (unsymbolized) or its source file in this repository.
WEIR = ("libweir.so", "libduckdb.so", f"{ROOT}/src/", f"{ROOT}/cli/")
# ... and the interpreter's by its module, or CPython's source folders (a symbolized
# frame of a CPython built with debug information names only "Objects/listobject.c:81").
PYTHON = ("libpython", "/python3", ".cpython-", "libarrow", "numpy", "_ctypes", "libffi", "pyarrow", " Objects/",
          " Python/", " Modules/", " Parser/", " Include/")


def owner(frames: list[str]) -> str:
    for line in frames:
        if "/libsanitizer/" in line or "interceptor" in line:
            continue
        if any(m in line for m in WEIR):
            return "weir"
        if any(m in line for m in PYTHON):
            return "python"
    return "unknown"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    weir_leaks: list[str] = []
    other: list[str] = []
    files = sorted(pathlib.Path(argv[1]).glob("*"))
    for f in files:
        text = f.read_text(errors="replace")
        for block in re.split(r"\n(?=(?:Direct|Indirect) leak of )", text):
            if block.startswith(("Direct leak", "Indirect leak")):
                frames = [ln for ln in block.splitlines()[1:] if ln.strip().startswith("#")]
                if owner(frames) == "weir":
                    weir_leaks.append(f"{f.name}: " + "\n".join(block.splitlines()[:12]))
            elif "ERROR: AddressSanitizer" in block or "runtime error:" in block:
                other.append(f"{f.name}: " + "\n".join(block.splitlines()[:30]))
    for r in other + weir_leaks:
        print(r, "\n", file=sys.stderr)
    print(f"lsan_check: {len(files)} report files, {len(weir_leaks)} leaks of weir, {len(other)} other errors",
          file=sys.stderr)
    return 1 if other or weir_leaks else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
