"""ctypes bindings of libweir (include/weir.h) and the Arrow C Stream Interface glue.

The signatures and struct layouts come from ``weir._bindings``, generated from the C
headers by ``scripts/gen_bindings.py`` (a test fails when it is stale, another compares
every struct's size and field offsets with the C compiler's).

Where libweir is loaded from, first match wins:

1. ``$WEIR_LIBRARY`` (a path to ``libweir.so``);
2. ``weir/lib/libweir.so`` next to this package (wheels ship it there);
3. the repository's build tree: ``<repo>/build/libweir.so`` (for a checkout installed
   with ``pip install -e python/``).

Arrow data crosses the boundary through the Arrow PyCapsule protocol only
(``__arrow_c_stream__``, https://arrow.apache.org/docs/format/CDataInterface/PyCapsuleInterface.html):
a stream libweir fills is wrapped in an ``arrow_array_stream`` capsule and imported with
the public ``pyarrow.RecordBatchReader.from_stream`` (pyarrow moves the engine's buffers
out of it; nothing is copied), and any object with ``__arrow_c_stream__`` (pyarrow
tables and readers, polars and pandas DataFrames, DuckDB relations) is handed to libweir
through the capsule it exports.
"""
from __future__ import annotations

import ctypes
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pyarrow as pa

from weir import _bindings as B  # noqa: N812 - B, the generated bindings, read as a namespace
from weir.errors import InvalidArgument, LibraryNotFound, Unsupported, WeirError, error_from_code

__all__ = [
    "Library", "load_library", "find_library", "ArrowArrayStream", "to_reader", "import_stream",
    "export_stream", "release_stream", "HASH_SIZE", "options", "lake_options",
]

HASH_SIZE = B.WEIR_HASH_HEX_SIZE

c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p

WeirErrorStruct = B.weir_error
ArrowArrayStream = B.ArrowArrayStream
LakeOptions = B.weir_lake_options
MergeOptions = B.weir_merge_options
RevertOptions = B.weir_revert_options
ImportOptions = B.weir_import_options
RunOptions = B.weir_run_options
StatusOptions = B.weir_status_options
CompactOptions = B.weir_compact_options
RegisterOptions = B.weir_register_options
GcOptions = B.weir_gc_options
PruneOptions = B.weir_prune_options
DeleteOptions = B.weir_delete_options
AlterOptions = B.weir_alter_options
NamespaceOptions = B.weir_namespace_options
PROGRESS_FN = B.weir_progress_fn

_VERSIONS: dict[type[ctypes.Structure], int] = {
    LakeOptions: B.WEIR_LAKE_OPTIONS_VERSION, MergeOptions: B.WEIR_MERGE_OPTIONS_VERSION,
    RevertOptions: B.WEIR_REVERT_OPTIONS_VERSION, ImportOptions: B.WEIR_IMPORT_OPTIONS_VERSION,
    RunOptions: B.WEIR_RUN_OPTIONS_VERSION, StatusOptions: B.WEIR_STATUS_OPTIONS_VERSION,
    CompactOptions: B.WEIR_COMPACT_OPTIONS_VERSION,
    RegisterOptions: B.WEIR_REGISTER_OPTIONS_VERSION,
    GcOptions: B.WEIR_GC_OPTIONS_VERSION, PruneOptions: B.WEIR_PRUNE_OPTIONS_VERSION,
    DeleteOptions: B.WEIR_DELETE_OPTIONS_VERSION,
    AlterOptions: B.WEIR_ALTER_OPTIONS_VERSION,
    NamespaceOptions: B.WEIR_NAMESPACE_OPTIONS_VERSION,
}

_RELEASE_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))


def options(cls: type[Any], **fields: Any) -> Any:
    """An options struct of its current version (``WEIR_*_OPTIONS_INIT``) with ``fields``
    set. ctypes would silently add an attribute for a misspelled field, so a name that is
    not a field of the struct is a TypeError.

    Example:
        >>> options(MergeOptions, no_ff=1).version == B.WEIR_MERGE_OPTIONS_VERSION
        True
        >>> options(MergeOptions, no_fast_forward=1)
        Traceback (most recent call last):
        TypeError: weir_merge_options has no field no_fast_forward
    """
    o = cls()
    o.version = _VERSIONS[cls]
    known = {f[0] for f in cls._fields_}
    for k, v in fields.items():
        if k not in known or k == "version":
            raise TypeError(f"{cls.__name__} has no field {k}")
        setattr(o, k, v)
    return o


def _env_count(name: str) -> int:
    v = os.environ.get(name, "")
    if not v:
        return 0
    if not v.isdigit():
        raise InvalidArgument(f"${name} is {v!r}: expected a whole number, 0 or more")
    return int(v)


def lake_options(*, author: str | None = None, python: str | None = None) -> Any:
    """The ``weir_lake_options`` of a client: the SDK's environment variables mapped onto
    them (libweir itself reads none), as the CLI maps its own: ``$WEIR_AUTHOR``,
    ``$WEIR_THREADS``, ``$WEIR_MEMORY_LIMIT``, ``$WEIR_PYTHON``, ``$WEIR_DUCKDB_LIBRARY``,
    ``$WEIR_CATALOG_SYNC`` (normal, full), ``$WEIR_CATALOG_BUSY_TIMEOUT_MS``, and
    ``$WEIR_LIBRARY`` (the libweir model workers load). Explicit arguments win. The
    strings are kept alive by the returned struct (``_keep``).

    Raises:
        InvalidArgument: a malformed variable (the message names it).
    """
    def text(name: str) -> bytes | None:
        v = os.environ.get(name)
        return enc(v, "$" + name) if v else None

    sync_text = os.environ.get("WEIR_CATALOG_SYNC", "").lower()
    sync = {"": B.WEIR_SYNC_DEFAULT, "normal": B.WEIR_SYNC_NORMAL, "full": B.WEIR_SYNC_FULL}.get(sync_text)
    if sync is None:
        raise InvalidArgument(f"$WEIR_CATALOG_SYNC is {sync_text!r}: expected 'normal' or 'full'")
    keep = {
        "author": enc(author, "author") if author is not None else text("WEIR_AUTHOR"),
        "memory_limit": text("WEIR_MEMORY_LIMIT"),
        "python": enc(python, "python") if python is not None else text("WEIR_PYTHON"),
        "duckdb_library": text("WEIR_DUCKDB_LIBRARY"),
        "worker_library": text("WEIR_LIBRARY"),
    }
    o = options(LakeOptions, threads=_env_count("WEIR_THREADS"), catalog_sync=sync,
                busy_timeout_ms=_env_count("WEIR_CATALOG_BUSY_TIMEOUT_MS"), **keep)
    o._keep = keep  # pyright: ignore[reportAttributeAccessIssue] - c_char_p fields borrow these
    return o


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
        ...
        weir.errors.InvalidArgument: ref 'a\\x00b' contains a NUL character (\\x00) at position 1, ...
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
        for name, (restype, argtypes) in B.SIGNATURES.items():
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
        if not message and code == 19:  # WEIR_ENOMEM whose message could not be allocated
            message = "out of memory"
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


# PyCapsule_New and PyCapsule_GetPointer of the CPython C API. The destructor receives the
# capsule being destroyed: its pointer is read with a c_void_p signature (a py_object
# argument would take a new reference on an object that is going away).
_STREAM_CAPSULE = b"arrow_array_stream"  # module-lifetime bytes: the capsule keeps its address
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [c_void_p, c_char_p, c_void_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, c_char_p]
_dying_capsule_pointer = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_char_p)(("PyCapsule_GetPointer", ctypes.pythonapi))
_DESTRUCTOR = ctypes.PYFUNCTYPE(None, c_void_p)

# Streams libweir filled, owned by the capsule made for them until it is destroyed.
_LIVE: dict[int, ArrowArrayStream] = {}
_LIVE_LOCK = threading.Lock()


def _on_capsule_destroyed(capsule: int | None) -> None:
    # The Arrow capsule contract: a consumer moves the stream out (release becomes NULL);
    # one that never did leaves it to the capsule, which releases it here.
    address = _dying_capsule_pointer(capsule, _STREAM_CAPSULE)
    if not address:
        return
    with _LIVE_LOCK:
        stream = _LIVE.pop(address, None)
    if stream is not None:
        release_stream(stream)


_DESTROY = _DESTRUCTOR(_on_capsule_destroyed)  # module lifetime: capsules may outlive callers


class _StreamHolder:
    """An object with ``__arrow_c_stream__`` over one stream libweir filled: the protocol's
    producer side, for pyarrow (or any consumer) to take the stream from."""

    def __init__(self, stream: ArrowArrayStream) -> None:
        self._stream: ArrowArrayStream | None = stream

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        if self._stream is None:
            raise RuntimeError("this Arrow stream was already exported")
        stream, self._stream = self._stream, None
        address = ctypes.addressof(stream)
        with _LIVE_LOCK:
            _LIVE[address] = stream
        return _capsule_new(address, _STREAM_CAPSULE, ctypes.cast(_DESTROY, c_void_p))


def import_stream(stream: Any) -> pa.RecordBatchReader:
    """Takes ownership of a stream libweir filled, an ``ArrowArrayStream`` or a pointer to
    one (no copy: the reader holds the producer's buffers), through the PyCapsule
    protocol."""
    s: ArrowArrayStream = stream.contents if hasattr(stream, "contents") else stream
    return pa.RecordBatchReader.from_stream(_StreamHolder(s))


def export_stream(data: object) -> tuple[Any, object]:
    """``data`` (see :func:`to_reader`) as a ``struct ArrowArrayStream *`` for libweir to
    consume, through the capsule its ``__arrow_c_stream__`` exports. Returns (the pointer,
    what keeps it valid): keep the second alive until the call that consumes the stream
    returns; a stream libweir did not consume is released with :func:`release_stream`
    (or, at the latest, when the capsule is destroyed).

    Raises:
        TypeError: ``data`` is not Arrow data.
    """
    source: object = data
    if not hasattr(source, "__arrow_c_stream__") or isinstance(source, pa.RecordBatch):
        source = to_reader(data)
    # Casts: pyarrow's own annotation of the method is partly untyped, and
    # any producer's method takes an optional requested schema and returns a capsule.
    export = cast("Callable[[], object]", cast(Any, source).__arrow_c_stream__)
    capsule: object = export()
    address = _capsule_pointer(capsule, _STREAM_CAPSULE)
    return ctypes.cast(address, ctypes.POINTER(ArrowArrayStream)), (capsule, source)


def release_stream(stream: Any) -> None:
    """Releases a stream nobody consumed (its release callback is still set): an
    ``ArrowArrayStream`` or a pointer to one."""
    s: ArrowArrayStream = stream.contents if hasattr(stream, "contents") else stream
    if s.release:
        release: Callable[[Any], None] = _RELEASE_FN(s.release)
        release(ctypes.byref(s))
