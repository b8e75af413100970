"""scripts/lsan_check.py (make test-asan-sdk) tells libweir's leaks from the interpreter's."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

WEIR_LEAK = """
Direct leak of 64 byte(s) in 1 object(s) allocated from:
    #0 0x7f in __interceptor_malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:69
    #1 0x7f in jsonp_malloc (/lib/x86_64-linux-gnu/libjansson.so.4+0x5f)
    #2 0x7f in wr_json_commit {root}/src/lake/json_out.c:80
    #3 0x7f in ffi_call (/lib/x86_64-linux-gnu/libffi.so.8+0x7)
    #4 0x7f in _PyEval_EvalFrameDefault (/usr/lib/libpython3.11.so.1.0+0x9)
"""
PYTHON_LEAK = """
Direct leak of 16 byte(s) in 2 object(s) allocated from:
    #0 0x7f in __interceptor_realloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:85
    #1 0x7f in list_resize Objects/listobject.c:81
    #2 0x7f in lake_progress {root}/src/lake/lake.c:216
"""


def check(tmp_path, text: str) -> int:
    (tmp_path / "report.1").write_text(text.format(root=ROOT))
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "lsan_check.py"), str(tmp_path)],
                          capture_output=True, text=True).returncode


def test_a_leak_libweir_allocated_fails(tmp_path):
    assert check(tmp_path, WEIR_LEAK) == 1


def test_the_interpreters_objects_do_not(tmp_path):
    assert check(tmp_path, PYTHON_LEAK) == 0


def test_a_memory_error_fails(tmp_path):
    assert check(tmp_path, "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n") == 1
