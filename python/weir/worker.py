"""``python -m weir.worker``: runs one Python model for libweir's runner.

The job arrives as one JSON document on stdin (docs/worker.md, "The worker"). The
worker loads libweir itself (ctypes), reads each input with ``weir_scan`` as an Arrow C
stream (imported without copies), calls the model function with the inputs as keyword
arguments, exports what it returns as an Arrow C stream to ``weir_stage_output`` (which
validates it against the output contract and writes the data files), and writes the
result document atomically to ``result_path``::

    {"ok": true, "stage": {...}, "seconds": {"inputs": ..., "model": ..., "output": ...}}
    {"ok": false, "error": {"code": "ContractViolation", "code_num": 10, "message": ...,
                            "details": [...]}, "stage": {...} | null, "seconds": {...}}

A Python exception in the model is ``{"code": "ModelError", "code_num": 15, "message":
"model g raised ZeroDivisionError: division by zero", "traceback": "..."}``. The worker
exits 0 once the result is written (whatever it says); a non-zero exit means no result
could be written (stderr says why).

Example:
    $ python -m weir.worker < job.json
"""
from __future__ import annotations

import ctypes
import json
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pyarrow as pa

from weir import _ffi
from weir._project import load_file
from weir.errors import ModelError, WeirError

__all__ = ["run_job", "main", "write_result"]


def _error_json(e: WeirError) -> dict[str, Any]:
    return {"code": e.name, "code_num": e.code, "message": e.message, "details": e.details}


def write_result(path: str, result: Mapping[str, Any]) -> None:
    """Writes ``result`` as JSON to ``path`` atomically (a temporary file in the same
    folder, fsync, rename, fsync of the folder): readers see all of it or nothing.

    Example:
        >>> write_result("/tmp/r.json", {"ok": True})   # doctest: +SKIP
    """
    folder = os.path.dirname(os.path.abspath(path)) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".result-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(result, fh, default=str)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _model_traceback(e: BaseException) -> str:
    """The model's own frames (the worker's frames are dropped)."""
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(e), e, tb))


def run_job(job: Mapping[str, Any]) -> dict[str, Any]:
    """Runs one job (the stdin document) and returns the result document; never raises
    for a failure of the model or of libweir (those are ``ok: false`` results).

    Example:
        >>> result = run_job(json.load(open("job.json")))   # doctest: +SKIP
        >>> result["ok"], result["stage"]["rows_written"]     # doctest: +SKIP
        (True, 216)
    """
    seconds: dict[str, float] = {"inputs": 0.0, "model": 0.0, "output": 0.0}
    model_name = str(job.get("model") or job.get("function") or "?")
    t0 = time.perf_counter()
    lake = ctypes.c_void_p()
    lib: _ffi.Library | None = None
    try:
        lib = _ffi.load_library(cast("str | None", job.get("library")))
        lake_path = job.get("lake")
        lib.call("weir_lake_open", _ffi.enc(str(lake_path)) if lake_path else None, ctypes.byref(lake))

        # 1. inputs, as Arrow streams from the engine (no copies)
        kwargs: dict[str, pa.Table] = {}
        for inp in cast("Sequence[Mapping[str, Any]]", job.get("inputs") or []):
            stream = _ffi.ArrowArrayStream()
            spec = inp.get("spec")
            lib.call("weir_scan", lake, _ffi.enc(str(inp["table"])), _ffi.enc(cast("str | None", inp.get("ref"))),
                     _ffi.enc(json.dumps(spec)) if spec is not None else None, ctypes.byref(stream))
            kwargs[str(inp["param"])] = _ffi.import_stream(stream).read_all()
        t1 = time.perf_counter()
        seconds["inputs"] = t1 - t0

        # 2. the model
        project = str(job["project"])
        try:
            module = load_file(project, str(job["file"]))
            fn = getattr(module, str(job["function"]))
        except BaseException as e:  # noqa: BLE001 - report, do not crash
            if isinstance(e, KeyboardInterrupt):
                raise
            return {"ok": False, "error": {"code": "ModelError", "code_num": ModelError.code,
                                           "message": f"model {model_name}: cannot load {job.get('function')} from "
                                                      f"{job.get('file')}: {type(e).__name__}: {e}",
                                           "details": [], "traceback": _model_traceback(e)},
                    "stage": None, "seconds": seconds}
        try:
            result = fn(**kwargs)
        except BaseException as e:  # noqa: BLE001 - the model's exception is the result
            if isinstance(e, KeyboardInterrupt):
                raise
            seconds["model"] = time.perf_counter() - t1
            return {"ok": False, "error": {"code": "ModelError", "code_num": ModelError.code,
                                           "message": f"model {model_name} raised {type(e).__name__}: {e}",
                                           "details": [], "traceback": _model_traceback(e)},
                    "stage": None, "seconds": seconds}
        del kwargs
        t2 = time.perf_counter()
        seconds["model"] = t2 - t1

        # 3. the output, as an Arrow stream to libweir (validated and staged there)
        try:
            stream, reader = _ffi.export_stream(result)
        except TypeError as e:
            return {"ok": False, "error": {"code": "ModelError", "code_num": ModelError.code,
                                           "message": f"model {model_name} returned {type(result).__name__}: {e}",
                                           "details": []},
                    "stage": None, "seconds": seconds}
        try:
            text, err = lib.call_out("weir_stage_output", lake, ctypes.byref(stream),
                                     _ffi.enc(json.dumps(job.get("output") or {})))
        finally:
            _ffi.release_stream(stream)
            del reader
        seconds["output"] = time.perf_counter() - t2
        stage: Any = json.loads(text) if text else None
        if err is not None:
            return {"ok": False, "error": _error_json(err), "stage": stage, "seconds": seconds}
        return {"ok": True, "stage": stage, "seconds": seconds}
    except WeirError as e:
        return {"ok": False, "error": _error_json(e), "stage": None, "seconds": seconds}
    finally:
        if lake.value and lib is not None:
            lib.fn("weir_lake_free")(lake)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m weir.worker``: reads the job from stdin, writes the
    result to the job's ``result_path``; returns the exit status.

    Example:
        $ python -m weir.worker < job.json; echo $?
        0
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        print("usage: python -m weir.worker < job.json\n\nRuns one Python model job (docs/worker.md).")
        return 0
    try:
        job = json.loads(sys.stdin.read())
        if not isinstance(job, dict):
            raise ValueError("the job must be a JSON object")
        job_doc = cast("dict[str, Any]", job)
        result_path = str(job_doc["result_path"])
    except (ValueError, KeyError) as e:
        print(f"error: weir.worker: bad job on stdin: {e}", file=sys.stderr)
        return 2
    result: dict[str, Any]
    try:
        result = run_job(job_doc)
    except Exception as e:  # noqa: BLE001 - a bug in the worker itself: still report it
        result = {"ok": False, "error": {"code": "WeirError", "code_num": 1,
                                         "message": f"worker failed: {type(e).__name__}: {e}",
                                         "details": list[Any](), "traceback": traceback.format_exc()},
                  "stage": None}
    try:
        write_result(result_path, result)
    except OSError as e:
        print(f"error: weir.worker: cannot write the result to {result_path}: {e}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
