"""``python -m weir.worker``: the trusted half of a Python model's run, for libweir's runner.

The runner starts two processes per Python model (docs/worker.md): this worker, outside
the model sandbox, and the model process (``python -m weir.model_host``), inside it
(docs/sandbox.md). The worker never imports the project's code nor the model's packages;
the model process never sees the lake. They share a socket on descriptor 3.

The job arrives as one JSON document on stdin (docs/worker.md, "The worker"). The
worker loads libweir (ctypes), reads each input with ``weir_worker_scan`` as an Arrow C stream,
writes it into a sealed memfd as an Arrow IPC file and passes it to the model process
with an empty memfd for the output; when the model process answers, it seals the output,
maps it (no copy), validates it as Arrow data (the model process is not trusted to
produce valid buffers) and hands it to ``weir_worker_stage_output`` (which checks it against
the output contract and writes the data files). It writes the result atomically to
``result_path``::

    {"ok": true, "stage": {...}, "seconds": {"inputs": ..., "model": ..., "output": ...,
                                             "host": {...}}}
    {"ok": false, "error": {"code": "ContractViolation", "code_num": 10, "message": ...,
                            "details": [...]}, "stage": {...} | null, "seconds": {...}}

A Python exception in the model is ``{"code": "ModelError", "code_num": 15, "message":
"model g raised ZeroDivisionError: division by zero", "traceback": "..."}``. A model
process that ends without answering is ``{"code": "ModelError", ..., "host_ended":
true}``; the runner, which saw how it ended (a timeout, its memory limit, a signal),
says why. The worker exits 0 once the result is written (whatever it says); a non-zero
exit means no result could be written (stderr says why).

Example:
    $ python -m weir.worker < job.json 3<>socket      # started by libweir only
"""
from __future__ import annotations

import ctypes
import json
import os
import socket
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping, Sequence
from typing import Any, cast

from weir import _ffi, _handoff
from weir.errors import ModelError, WeirError

__all__ = ["run_job", "serve", "Session", "main", "write_result"]


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


def _model_error(message: str, **extra: Any) -> dict[str, Any]:
    return {"code": "ModelError", "code_num": ModelError.code, "message": message, "details": [], **extra}


def _host_error(model_name: str, err: object) -> dict[str, Any]:
    """The model process's account of its failure, taken as text only: whatever it says,
    the failure is a ModelError (it cannot make its failure look like another kind)."""
    if not isinstance(err, dict):
        return _model_error(f"model {model_name}: its process answered nonsense")
    e = cast("dict[str, Any]", err)
    out = _model_error(str(e.get("message") or f"model {model_name} failed")[:20000])
    if e.get("traceback"):
        out["traceback"] = str(e["traceback"])[:20000]
    return out


class Session:
    """libweir and the open lake, kept across the jobs of a run (``--serve``), so that
    the library, the catalog and DuckDB are loaded once per run, not once per model.

    Example:
        >>> with Session() as s:                                   # doctest: +SKIP
        ...     result = run_job(job, host, session=s)
    """

    def __init__(self) -> None:
        self.lib: _ffi.Library | None = None
        self.lake = ctypes.c_void_p()
        self._key: tuple[str | None, str | None] | None = None

    def open(self, library: str | None, lake_path: str | None) -> tuple[_ffi.Library, ctypes.c_void_p]:
        """The library and lake of a job (opened at the first job, reopened when a job
        names others).

        Raises:
            WeirError: the library or the lake cannot be opened.

        Example:
            >>> lib, lake = Session().open(None, "/path/of/lake")     # doctest: +SKIP
        """
        if self._key != (library, lake_path) or self.lib is None or not self.lake.value:
            self.close()
            self.lib = _ffi.load_library(library)
            # The runner's environment is the worker's: the same variables give the same
            # options (the DuckDB library, its threads and memory limit).
            opts = _ffi.lake_options()
            self.lib.call("weir_lake_open", _ffi.enc(lake_path) if lake_path else None, ctypes.byref(opts),
                          ctypes.byref(self.lake))
            self._key = (library, lake_path)
        return self.lib, self.lake

    def close(self) -> None:
        """Closes the lake (the library stays loaded, as ctypes keeps it).

        Example:
            >>> Session().close()
        """
        if self.lake.value and self.lib is not None:
            self.lib.fn("weir_lake_free")(self.lake)
        self.lake = ctypes.c_void_p()
        self._key = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_job(job: Mapping[str, Any], host: socket.socket | None = None, session: Session | None = None
            ) -> dict[str, Any]:
    """Runs one job (the stdin document) with the model process on ``host`` (default:
    descriptor 3) and returns the result document; never raises for a failure of the
    model or of libweir (those are ``ok: false`` results). With ``session`` the lake
    stays open for the next job.

    Example:
        >>> result = run_job(json.load(open("job.json")))   # doctest: +SKIP
        >>> result["ok"], result["stage"]["rows_written"]     # doctest: +SKIP
        (True, 216)
    """
    seconds: dict[str, Any] = {"inputs": 0.0, "model": 0.0, "output": 0.0}
    model_name = str(job.get("model") or job.get("function") or "?")
    t0 = time.perf_counter()
    own = session is None
    sess = session if session is not None else Session()
    sock: socket.socket | None = host
    try:
        lib, lake = sess.open(cast("str | None", job.get("library")),
                              str(job["lake"]) if job.get("lake") else None)
        if sock is None:
            try:
                sock = socket.socket(fileno=3)
            except OSError as e:
                return {"ok": False, "error": _model_error(f"model {model_name}: no model process on descriptor 3 "
                                                           f"({e}): the worker is started by libweir's runner"),
                        "stage": None, "seconds": seconds}

        # 1. inputs: each scanned as an Arrow stream and written batch by batch into a
        # sealed memfd, which the model process maps without a copy
        fds: list[int] = []
        described: list[dict[str, Any]] = []
        try:
            for inp in cast("Sequence[Mapping[str, Any]]", job.get("inputs") or []):
                stream = _ffi.ArrowArrayStream()
                spec = inp.get("spec")
                lib.call("weir_worker_scan", lake, _ffi.enc(str(inp["table"])),
                         _ffi.enc(cast("str | None", inp.get("ref"))),
                         _ffi.enc(json.dumps(spec)) if spec is not None else None, ctypes.byref(stream))
                fd = _handoff.new_memfd(f"weir-input-{inp['param']}")
                fds.append(fd)
                rows, size = _handoff.write_table(_ffi.import_stream(stream), fd)
                _handoff.seal(fd)
                described.append({"param": str(inp["param"]), "rows": rows, "bytes": size})
            out_fd = _handoff.new_memfd("weir-output")
            fds.append(out_fd)
            seconds["inputs"] = time.perf_counter() - t0
            t1 = time.perf_counter()

            # 2. the model, in its sandbox
            try:
                _handoff.send(sock, {"inputs": described}, fds)
            except OSError:
                pass  # it ended already (a failed import): its reply is waiting
            for fd in fds[:-1]:
                os.close(fd)
            del fds[:-1]
            try:
                reply, extra = _handoff.recv(sock)
                for fd in extra:
                    os.close(fd)
            except (_handoff.HandoffClosed, OSError, ValueError):
                seconds["model"] = time.perf_counter() - t1
                return {"ok": False, "error": _model_error(f"model {model_name}: its process ended without a result",
                                                           host_ended=True), "stage": None, "seconds": seconds}
            t2 = time.perf_counter()
            seconds["model"] = t2 - t1
            if isinstance(reply, dict):
                seconds["host"] = cast("dict[str, Any]", reply).get("seconds") or {}
            if not isinstance(reply, dict) or not cast("dict[str, Any]", reply).get("ok"):
                err = cast("dict[str, Any]", reply).get("error") if isinstance(reply, dict) else None
                return {"ok": False, "error": _host_error(model_name, err), "stage": None, "seconds": seconds}

            # 3. the output: sealed (nobody can change it any more), mapped, checked to be
            # well-formed Arrow, then validated against the contract and written by libweir
            try:
                _handoff.seal(out_fd)
                table = _handoff.map_table(out_fd)
                table.validate(full=True)
            except Exception as e:  # noqa: BLE001 - whatever the model process wrote
                return {"ok": False, "error": _model_error(f"model {model_name} returned an output weir cannot "
                                                           f"read: {type(e).__name__}: {e}"),
                        "stage": None, "seconds": seconds}
        finally:
            for fd in fds:
                os.close(fd)
        stream, keep = _ffi.export_stream(table)
        try:
            text, err = lib.call_out("weir_worker_stage_output", lake, stream,
                                     _ffi.enc(json.dumps(job.get("output") or {})))
        finally:
            _ffi.release_stream(stream)
            del keep, table
        seconds["output"] = time.perf_counter() - t2
        stage: Any = json.loads(text) if text else None
        if err is not None:
            return {"ok": False, "error": _error_json(err), "stage": stage, "seconds": seconds}
        return {"ok": True, "stage": stage, "seconds": seconds}
    except WeirError as e:
        return {"ok": False, "error": _error_json(e), "stage": None, "seconds": seconds}
    finally:
        if host is None and sock is not None:
            sock.close()
        if own:
            sess.close()


def serve(ctl: socket.socket) -> int:
    """The worker of a whole run (``python -m weir.worker --serve``): takes jobs from the
    runner on ``ctl`` (``{"job": {...}}`` with the model process's socket), runs each,
    writes its result file and answers ``{"done": true}``; returns 0 when the runner
    closes the socket.

    Example:
        $ python -m weir.worker --serve 3<>control-socket     # started by libweir only
    """
    with Session() as session:
        while True:
            try:
                msg, fds = _handoff.recv(ctl)
            except _handoff.HandoffClosed:
                return 0
            doc: dict[str, Any] = cast("dict[str, Any]", msg) if isinstance(msg, dict) else {}
            job = cast("dict[str, Any] | None", doc.get("job"))
            host = socket.socket(fileno=fds[0]) if fds else None
            for fd in fds[1:]:
                os.close(fd)
            try:
                if not isinstance(job, dict) or host is None:
                    raise ValueError("a job without a job document or a model socket")
                result = run_job(job, host, session)
            except Exception as e:  # noqa: BLE001 - a bug in the worker itself: still report it
                result = {"ok": False, "error": {"code": "WeirError", "code_num": 1,
                                                 "message": f"worker failed: {type(e).__name__}: {e}",
                                                 "details": list[Any](), "traceback": traceback.format_exc()},
                          "stage": None}
            finally:
                if host is not None:
                    host.close()
            path = job.get("result_path") if isinstance(job, dict) else None
            if path:
                try:
                    write_result(str(path), result)
                except OSError as e:
                    print(f"error: weir.worker: cannot write the result to {path}: {e}", file=sys.stderr)
            sys.stdout.flush()
            sys.stderr.flush()
            _handoff.send(ctl, {"done": True})


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m weir.worker``: reads the job from stdin, writes the
    result to the job's ``result_path``; returns the exit status.

    Example:
        $ python -m weir.worker < job.json; echo $?
        0
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--serve"]:
        try:
            ctl = socket.socket(fileno=3)
        except OSError as e:
            print(f"error: weir.worker --serve: no control socket on descriptor 3: {e}", file=sys.stderr)
            return 2
        return serve(ctl)
    if args and args[0] in ("-h", "--help"):
        print("usage: python -m weir.worker < job.json (descriptor 3: the model process's socket)\n\n"
              "The trusted process of a Python model (docs/worker.md); libweir starts it.")
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
