"""The boundary between libweir and its users, checked mechanically (issue 15):

- the Python ctypes bindings (python/weir/_bindings.py) are what scripts/gen_bindings.py
  generates from the headers today, and every struct has the C compiler's size and field
  offsets;
- libweir exports exactly the functions the public headers declare WEIR_API (both
  directions: nothing internal leaks, nothing declared is missing);
- the versions of C, CMake and Python are the one in VERSION;
- failpoints exist only in a failpoint build (issue 10): release code reads no test variable.
"""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import sys

import pytest
from conftest import BUILD, ROOT

sys.path.insert(0, str(ROOT / "python"))
from weir import _bindings as B  # noqa: E402, N812 - B, the generated bindings, read as a namespace

GEN = ROOT / "scripts" / "gen_bindings.py"
HEADERS = [ROOT / "include" / "weir.h", ROOT / "include" / "weir_worker.h"]


def test_generated_bindings_are_up_to_date():
    r = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_stale_binding_is_detected(tmp_path):
    # The check compares the whole file: a hand edit (or a header change without
    # regenerating) fails it.
    out = ROOT / "python" / "weir" / "_bindings.py"
    saved = out.read_text()
    try:
        out.write_text(saved.replace('("no_ff", c_int)', '("no_ff", c_uint)'))
        r = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True)
        assert r.returncode == 1 and "out of date" in r.stderr
    finally:
        out.write_text(saved)


def _c_layouts(tmp_path) -> dict[str, tuple[int, dict[str, int]]]:
    program = subprocess.run([sys.executable, str(GEN), "--layout-c"], capture_output=True, text=True,
                             check=True).stdout
    src = tmp_path / "layout.c"
    src.write_text(program)
    exe = tmp_path / "layout"
    cc = shutil.which("cc") or "gcc"
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", f"-I{ROOT / 'include'}", f"-I{BUILD / 'include'}", str(src),
                    "-o", str(exe)], check=True)
    out: dict[str, tuple[int, dict[str, int]]] = {}
    for line in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines():
        name, size, *rest = line.split()
        out[name] = (int(size), {rest[i]: int(rest[i + 1]) for i in range(0, len(rest), 2)})
    return out


def test_every_struct_has_the_c_compilers_layout(tmp_path):
    layouts = _c_layouts(tmp_path)
    assert set(layouts) == set(B.STRUCTS)
    for name in B.STRUCTS:
        cls = getattr(B, name)
        size, offsets = layouts[name]
        assert ctypes.sizeof(cls) == size, name
        assert [f[0] for f in cls._fields_] == list(offsets), name
        for field, off in offsets.items():
            assert getattr(cls, field).offset == off, f"{name}.{field}"


def test_every_options_struct_starts_with_its_version():
    for name in B.STRUCTS:
        if name.endswith("_options"):
            cls = getattr(B, name)
            assert cls._fields_[0] == ("version", ctypes.c_uint), name
            assert hasattr(B, "WEIR_" + name[len("weir_"):].upper() + "_VERSION"), name


def _declared() -> set[str]:
    names: set[str] = set()
    for h in HEADERS:
        text = re.sub(r"/\*.*?\*/", " ", h.read_text(), flags=re.S)
        text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
        names.update(re.findall(r"WEIR_API\s+[^;{}]*?\b(weir_\w+)\s*\(", text))
    return names


def _exported() -> set[str]:
    nm = shutil.which("nm")
    assert nm, "nm (binutils) is needed"
    out = subprocess.run([nm, "-D", "--defined-only", str(BUILD / "libweir.so")], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split() and line.split()[1] in "TtDdBbRrVvWwi"
            and not line.split()[-1].startswith("_")}


def test_libweir_exports_exactly_what_the_headers_declare():
    declared, exported = _declared(), _exported()
    assert declared, "no WEIR_API declarations found"
    assert exported - declared == set(), "exported but not declared in include/ (internal symbols leak)"
    assert declared - exported == set(), "declared WEIR_API but not exported by libweir.so"


def test_the_bindings_cover_every_declared_function():
    assert set(B.SIGNATURES) == _declared()
    assert B.PRIVATE == {"weir_worker_scan", "weir_worker_stage_output"}
    # The worker protocol is not in the public header.
    assert "weir_worker" not in (ROOT / "include" / "weir.h").read_text().replace("weir_worker.h", "")


def test_one_version_number():
    version = (ROOT / "VERSION").read_text().strip()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    lib = ctypes.CDLL(str(BUILD / "libweir.so"))
    lib.weir_version.restype = ctypes.c_char_p
    assert lib.weir_version().decode() == version
    assert f'#define WEIR_VERSION_STRING "{version}"' in (BUILD / "include" / "weir_version.h").read_text()
    assert f"CMAKE_PROJECT_VERSION:STATIC={version}" in (BUILD / "CMakeCache.txt").read_text()
    import weir
    assert weir.__version__ == version
    r = subprocess.run([str(BUILD / "weir"), "--version"], capture_output=True, text=True)
    assert r.stdout.strip() == f"weir {version}"


def test_the_version_check_of_options_reaches_python():
    # A struct of an unknown version (a binding built against another weir.h) is refused
    # by libweir with both versions named, not misread.
    from weir import _ffi
    from weir.errors import InvalidArgument

    lib = _ffi.load_library(BUILD / "libweir.so")
    opts = _ffi.options(_ffi.LakeOptions)
    opts.version = 99
    handle = ctypes.c_void_p()
    with pytest.raises(InvalidArgument, match="weir_lake_options has version 99.*knows version 1"):
        lib.call("weir_lake_open", b"/nonexistent", ctypes.byref(opts), ctypes.byref(handle))
    with pytest.raises(TypeError, match="no field"):
        _ffi.options(_ffi.MergeOptions, fast_forward=1)


def test_failpoints_exist_only_in_a_failpoint_build(tmp_path):
    """Issue 10: failpoints are compiled into test builds (-DWEIR_FAILPOINTS=ON), never an
    environment variable that release code reads: a release library and CLI hold no trace
    of them and ignore $WEIR_FAILPOINTS; a failpoint build obeys it."""
    from conftest import TITANIC, weir

    built = "WEIR_FAILPOINTS:BOOL=ON" in (BUILD / "CMakeCache.txt").read_text()
    traced = b"WEIR_FAILPOINTS" in (BUILD / "libweir.so").read_bytes()
    assert traced == built, f"{BUILD}/libweir.so {'reads' if traced else 'does not read'} $WEIR_FAILPOINTS"
    if not built:   # (the CLI links libweir.so, so its own file has none in either build)
        assert b"WEIR_FAILPOINTS" not in (BUILD / "weir").read_bytes(), f"{BUILD}/weir reads $WEIR_FAILPOINTS"
    lake = tmp_path / "lake"
    assert weir("init", lake).returncode == 0
    r = weir("import", TITANIC, "--table", "t", lake=lake,
             env={"WEIR_FAILPOINTS": "stage.data.before:error", "ASAN_OPTIONS": "detect_leaks=1"})
    if built:
        assert r.returncode != 0 and "injected failure at stage.data.before" in r.stderr, r.stderr
        assert weir("tables", "--json", lake=lake).stdout.count('"table"') == 0
    else:
        assert r.returncode == 0, r.stderr
