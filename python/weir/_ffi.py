"""ctypes bindings of libweir (include/weir.h) and the Arrow C Stream Interface glue.

Where libweir is loaded from, first match wins:

1. ``$WEIR_LIBRARY`` (a path to ``libweir.so``);
2. ``weir/lib/libweir.so`` next to this package (wheels ship it there);
3. the repository's build tree: ``<repo>/build/libweir.so`` (for a checkout installed
   with ``pip install -e python/``).

Arrow data crosses the boundary through the C Stream Interface only: a stream libweir
fills is imported with ``pyarrow.RecordBatchReader._import_from_c`` (pyarrow takes
ownership of the engine's buffers; nothing is copied) and a stream weir reads is exported
with ``_export_to_c``.
"""
from __future__ import annotations

import ctypes
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from weir.errors import InvalidArgument, LibraryNotFound, Unsupported, WeirError, error_from_code

__all__ = [
    "Library", "load_library", "find_library", "ArrowArrayStream", "to_reader", "import_stream",
    "export_stream", "release_stream", "HASH_SIZE",
]

HASH_SIZE = 65

c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_int = ctypes.c_int
c_int64 = ctypes.c_int64
c_uint = ctypes.c_uint
c_size_t = ctypes.c_size_t


class WeirErrorStruct(ctypes.Structure):
    """``weir_error``: the strings stay C pointers so that weir_error_clear frees them."""

    _fields_ = [("code", c_int), ("message", c_void_p), ("details", c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    """``struct ArrowArrayStream`` of the Arrow C Stream Interface."""

    _fields_ = [("get_schema", c_void_p), ("get_next", c_void_p), ("get_last_error", c_void_p),
                ("release", c_void_p), ("private_data", c_void_p)]


class MergeOptions(ctypes.Structure):
    """``weir_merge_options``."""

    _fields_ = [("message", c_char_p), ("no_ff", c_int), ("allow_partial", c_int), ("strategy", c_char_p),
                ("expect_head", c_char_p)]


class RevertOptions(ctypes.Structure):
    """``weir_revert_options``."""

    _fields_ = [("message", c_char_p), ("allow_partial", c_int), ("expect_head", c_char_p),
                ("allow_contract_change", c_int)]


class ImportOptions(ctypes.Structure):
    """``weir_import_options``."""

    _fields_ = [("table", c_char_p), ("branch", c_char_p), ("mode", c_int), ("contract_path", c_char_p),
                ("message", c_char_p), ("format", c_char_p), ("expect_head", c_char_p)]


class RunOptions(ctypes.Structure):
    """``weir_run_options``."""

    _fields_ = [("branch", c_char_p), ("dry_run", c_int), ("expect_head", c_char_p), ("retries", c_int),
                ("unsandboxed", c_int)]


PROGRESS_FN = ctypes.CFUNCTYPE(None, c_char_p, c_void_p)
_RELEASE_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))

_ERR = ctypes.POINTER(WeirErrorStruct)
_STREAM = ctypes.POINTER(ArrowArrayStream)
_OUT = ctypes.POINTER(c_void_p)
_HASH = ctypes.c_char_p  # a caller-provided buffer of HASH_SIZE bytes

# name: (restype, argtypes)
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "weir_version": (c_char_p, []),
    "weir_error_clear": (None, [_ERR]),
    "weir_error_name": (c_char_p, [c_int]),
    "weir_error_exit_code": (c_int, [c_int]),
    "weir_free": (None, [c_void_p]),
    "weir_lake_init": (c_int, [c_char_p, _OUT, _ERR]),
    "weir_lake_open": (c_int, [c_char_p, _OUT, _ERR]),
    "weir_lake_free": (None, [c_void_p]),
    "weir_lake_path": (c_char_p, [c_void_p]),
    "weir_lake_set_author": (c_int, [c_void_p, c_char_p, _ERR]),
    "weir_lake_set_progress": (None, [c_void_p, PROGRESS_FN, c_void_p]),
    "weir_ref_resolve": (c_int, [c_void_p, c_char_p, _HASH, _ERR]),
    "weir_commit_log": (c_int, [c_void_p, c_char_p, c_int64, _OUT, _ERR]),
    "weir_commit_show": (c_int, [c_void_p, c_char_p, _OUT, _ERR]),
    "weir_commit_diff": (c_int, [c_void_p, c_char_p, c_char_p, _OUT, _ERR]),
    "weir_branch_create": (c_int, [c_void_p, c_char_p, c_char_p, _HASH, _ERR]),
    "weir_branch_delete": (c_int, [c_void_p, c_char_p, c_uint, _ERR]),
    "weir_branch_list": (c_int, [c_void_p, _OUT, _ERR]),
    "weir_tag_create": (c_int, [c_void_p, c_char_p, c_char_p, _HASH, _ERR]),
    "weir_tag_delete": (c_int, [c_void_p, c_char_p, _ERR]),
    "weir_tag_list": (c_int, [c_void_p, _OUT, _ERR]),
    "weir_branch_merge": (c_int, [c_void_p, c_char_p, c_char_p, ctypes.POINTER(MergeOptions), _OUT, _ERR]),
    "weir_table_list": (c_int, [c_void_p, c_char_p, _OUT, _ERR]),
    "weir_table_describe": (c_int, [c_void_p, c_char_p, c_char_p, _OUT, _ERR]),
    "weir_table_revert": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, ctypes.POINTER(RevertOptions), _OUT,
                                  _ERR]),
    "weir_run_revert": (c_int, [c_void_p, c_char_p, c_char_p, ctypes.POINTER(RevertOptions), _OUT, _ERR]),
    "weir_table_import": (c_int, [c_void_p, c_char_p, ctypes.POINTER(ImportOptions), _OUT, _ERR]),
    "weir_table_import_arrow": (c_int, [c_void_p, _STREAM, ctypes.POINTER(ImportOptions), _OUT, _ERR]),
    "weir_query_run": (c_int, [c_void_p, c_char_p, c_char_p, _STREAM, _ERR]),
    "weir_query_export": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_char_p, ctypes.POINTER(c_int64),
                                  _ERR]),
    "weir_contract_load": (c_int, [c_char_p, _OUT, _ERR]),
    "weir_contract_parse": (c_int, [c_char_p, c_size_t, c_char_p, c_char_p, _OUT, _ERR]),
    "weir_contract_to_json": (c_void_p, [c_void_p]),
    "weir_contract_free": (None, [c_void_p]),
    "weir_contract_validate": (c_int, [c_void_p, _STREAM, _STREAM, _OUT, _ERR]),
    "weir_project_check": (c_int, [c_void_p, c_char_p, c_char_p, _OUT, _ERR]),
    "weir_contract_diff": (c_int, [c_void_p, c_void_p, _OUT, _ERR]),
    "weir_project_readers": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_char_p, _OUT, _ERR]),
    "weir_project_run": (c_int, [c_void_p, c_char_p, ctypes.POINTER(RunOptions), _OUT, _ERR]),
    "weir_run_list": (c_int, [c_void_p, _OUT, _ERR]),
    "weir_run_show": (c_int, [c_void_p, c_char_p, _OUT, _ERR]),
    "weir_worker_scan": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, _STREAM, _ERR]),
    "weir_worker_stage_output": (c_int, [c_void_p, _STREAM, c_char_p, _OUT, _ERR]),
}


def enc(s: str | None, what: str = "a string argument") -> bytes | None:
    """A Python string as a C string (None stays NULL).

    Raises:
        TypeError: ``s`` is not a str (or None).
        InvalidArgument: ``s`` contains a NUL character (a C string would end there, so
            libweir would silently see a shorter string) or cannot be encoded as UTF-8.

    Example:
        >>> enc("main"), enc(None)
        (b'main', None)
        >>> enc("a\\x00b", "ref")
        Traceback (most recent call last):
        weir.errors.InvalidArgument: ref 'a\\x00b' contains a NUL character (\\x00) at position 1, which libweir cannot take
    """
    if s is None:
        return None
    if not isinstance(s, str):  # pyright: ignore[reportUnnecessaryIsInstance] - untyped callers
        raise TypeError(f"{what} must be a str, not {type(s).__name__}")
    if "\x00" in s:
        raise InvalidArgument(f"{what} {s!r} contains a NUL character (\\x00) at position {s.index(chr(0))}, "
                              "which libweir cannot take")
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgument(f"{what} {s!r} cannot be encoded as UTF-8: {e.reason}") from None


def find_library() -> str:
    """The path of libweir that would be loaded (see the module doc for the order).

    Raises:
        LibraryNotFound: no candidate exists; the message lists where weir looked.

    Example:
        >>> find_library()            # doctest: +SKIP
        '/work/main/build/libweir.so'
    """
    tried: list[str] = []
    env = os.environ.get("WEIR_LIBRARY")
    if env:
        if os.path.isfile(env):
            return env
        raise LibraryNotFound(f"$WEIR_LIBRARY is {env}, which does not exist")
    here = Path(__file__).resolve().parent
    for cand in (here / "lib" / "libweir.so", here / "lib" / "libweir.dylib",
                 here.parent.parent / "build" / "libweir.so"):
        tried.append(str(cand))
        if cand.is_file():
            return str(cand)
    raise LibraryNotFound("libweir could not be found: set $WEIR_LIBRARY to the path of libweir.so, or build it "
                          "(cmake -S . -B build && cmake --build build); looked in " + ", ".join(tried))


class Library:
    """A loaded libweir with typed entry points.

    Use :func:`load_library`; one Library per path is shared by every client.
    """

    def __init__(self, path: str) -> None:
        try:
            self.dll = ctypes.CDLL(path)
        except OSError as e:
            raise LibraryNotFound(f"cannot load libweir from {path}: {e}") from None
        self.path: str = path
        self.missing: set[str] = set()
        for name, (restype, argtypes) in _SIGNATURES.items():
            try:
                fn = getattr(self.dll, name)
            except AttributeError:
                self.missing.add(name)
                continue
            fn.restype = restype
            fn.argtypes = argtypes

    def fn(self, name: str) -> Any:
        """The C function ``name``.

        Raises:
            Unsupported: this build of libweir does not export it (yet).
        """
        if name in self.missing:
            raise Unsupported(f"{name} is not available in the loaded libweir ({self.path})")
        return getattr(self.dll, name)

    @property
    def version(self) -> str:
        """``weir_version()``."""
        v: bytes | None = self.fn("weir_version")()
        return v.decode() if v else ""

    def error_name(self, code: int) -> str:
        """``weir_error_name(code)``."""
        v: bytes | None = self.fn("weir_error_name")(code)
        return v.decode() if v else "WeirError"

    def take_error(self, rc: int, err: WeirErrorStruct) -> WeirError:
        """The exception for a failed call; frees the C strings."""
        code = err.code or rc
        message = ctypes.string_at(err.message).decode("utf-8", "replace") if err.message else ""
        details = ctypes.string_at(err.details).decode("utf-8", "replace") if err.details else None
        self.fn("weir_error_clear")(ctypes.byref(err))
        return error_from_code(code, message or f"libweir error {code}", details)

    def take_string(self, p: c_void_p) -> str | None:
        """A ``char *`` libweir handed over, decoded and freed."""
        if not p.value:
            return None
        try:
            return ctypes.string_at(p.value).decode("utf-8", "replace")
        finally:
            self.fn("weir_free")(p)

    def call(self, name: str, *args: Any) -> None:
        """Calls a status-returning function (the trailing ``weir_error *`` is added).

        Raises:
            WeirError: the subclass for the code libweir returned.
        """
        err = WeirErrorStruct()
        rc: int = self.fn(name)(*args, ctypes.byref(err))
        if rc != 0:
            raise self.take_error(rc, err)

    def call_out(self, name: str, *args: Any) -> tuple[str | None, WeirError | None]:
        """Calls a function whose last argument before the error is a ``char **out``:
        returns (the output, or None; the error, or None). Used where libweir fills the
        output even on failure (a failed run still has a record)."""
        out = c_void_p()
        err = WeirErrorStruct()
        rc: int = self.fn(name)(*args, ctypes.byref(out), ctypes.byref(err))
        text = self.take_string(out)
        if rc != 0:
            return text, self.take_error(rc, err)
        return text, None

    def call_json(self, name: str, *args: Any) -> Any:
        """Calls a function with a ``char **out_json`` and returns the parsed JSON.

        Raises:
            WeirError: the call failed.
        """
        text, error = self.call_out(name, *args)
        if error is not None:
            raise error
        return json.loads(text) if text else None


_LIBS: dict[str, Library] = {}
_LIBS_LOCK = threading.Lock()


def load_library(path: str | os.PathLike[str] | None = None) -> Library:
    """Loads libweir (once per path).

    Args:
        path: an explicit library path; default :func:`find_library`.

    Raises:
        LibraryNotFound: it cannot be found or loaded.

    Example:
        >>> load_library().version      # doctest: +SKIP
        '0.1.0'
    """
    p: str = os.path.realpath(os.fspath(path) if path is not None else find_library())
    with _LIBS_LOCK:
        lib = _LIBS.get(p)
        if lib is None:
            lib = Library(p)
            _LIBS[p] = lib
        return lib


# ---- Arrow streams --------------------------------------------------------------------------


def to_reader(data: object) -> pa.RecordBatchReader:
    """An Arrow stream over ``data`` without copying it: a ``pyarrow.Table``,
    ``RecordBatch`` or ``RecordBatchReader``, or any object with ``__arrow_c_stream__``
    (polars and pandas DataFrames, DuckDB relations, ...).

    Raises:
        TypeError: anything else.

    Example:
        >>> import pyarrow as pa
        >>> to_reader(pa.table({"x": [1]})).read_all().num_rows
        1
    """
    if isinstance(data, pa.RecordBatchReader):
        return data
    if isinstance(data, pa.Table):
        return data.to_reader()
    if isinstance(data, pa.RecordBatch):
        return pa.RecordBatchReader.from_batches(data.schema, [data])
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)  # pyright: ignore[reportArgumentType]
    raise TypeError(f"{type(data).__module__}.{type(data).__qualname__} is not Arrow data: expected a "
                    "pyarrow.Table, a RecordBatchReader or an object with __arrow_c_stream__ "
                    "(a polars or pandas DataFrame)")


def import_stream(stream: ArrowArrayStream) -> pa.RecordBatchReader:
    """Takes ownership of a stream libweir filled (no copy: the reader holds the
    producer's buffers)."""
    reader: pa.RecordBatchReader = pa.RecordBatchReader._import_from_c(  # pyright: ignore[reportPrivateUsage, reportUnknownMemberType]
        ctypes.addressof(stream))
    return reader


def export_stream(data: object) -> tuple[ArrowArrayStream, pa.RecordBatchReader]:
    """Exports ``data`` (see :func:`to_reader`) as a C stream for libweir to consume.
    Keep the returned reader alive until the call that consumes the stream returns."""
    reader = to_reader(data)
    stream = ArrowArrayStream()
    reader._export_to_c(ctypes.addressof(stream))  # pyright: ignore[reportPrivateUsage, reportUnknownMemberType]
    return stream, reader


def release_stream(stream: ArrowArrayStream) -> None:
    """Releases a stream that nobody consumed (its release callback is still set)."""
    if stream.release:
        release: Callable[[Any], None] = _RELEASE_FN(stream.release)
        release(ctypes.byref(stream))
