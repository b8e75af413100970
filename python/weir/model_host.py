"""``python -m weir.model_host``: the sandboxed half of a Python model's run.

libweir's runner starts this process inside the model sandbox (docs/sandbox.md), next to
the worker (``python -m weir.worker``), which is outside it. This process imports the
project's code and calls the model function, and never sees the lake: its inputs arrive
from the worker as Arrow IPC files in sealed memfds over descriptor 3, and its output goes
back into a memfd the worker passed along (weir._handoff).

The job arrives on stdin::

    {"project": "/abs/project", "file": "models.py", "function": "g", "model": "g",
     "params": ["lodgings"],
     "sandbox": {"enabled": true, "internet_access": false, "memory": 4000000000,
                 "timeout": 3600, "cpu_time": null, "tmpdir": "/tmp/weir-g-x1",
                 "lake": "/abs/lake", "read": ["/abs/project", ...]}}

and the reply to the worker is ``{"ok": true, "rows": 216, "seconds": {...}}`` or ``{"ok":
false, "error": {"code": "ModelError", "code_num": 15, "message": ..., "traceback": ...}}``.

When the sandbox refuses something, the model sees an ordinary ``PermissionError``; if it
lets it escape, the message says what was refused (``model g tried to remove
/lake/warehouse/default/titanic/data/x.parquet: permission denied by the model
sandbox``). An audit hook (``sys.addaudithook``) remembers the last operations of each
thread to name them; it only explains, the kernel enforces.

Example:
    $ python -m weir.model_host < job.json 3<>socket    # started by libweir only
"""
from __future__ import annotations

import errno
import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, cast

__all__ = ["main", "Refusals"]


# ---- naming what the sandbox refused --------------------------------------------------------

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

# audit event -> (verb, kind): kind "read" and "write" are file-system reads and writes,
# "meta" metadata no sandboxed process may change, "net" the network, "proc" processes.
_EVENTS: dict[str, tuple[str, str]] = {
    "os.remove": ("remove", "write"),
    "os.rmdir": ("remove the folder", "write"),
    "shutil.rmtree": ("remove the folder", "write"),
    "os.rename": ("rename", "write"),
    "os.mkdir": ("create the folder", "write"),
    "os.truncate": ("truncate", "write"),
    "os.link": ("link", "write"),
    "os.symlink": ("make a symlink at", "write"),
    "os.utime": ("change the times of", "write"),
    "shutil.copyfile": ("copy to", "write"),
    "shutil.move": ("move", "write"),
    "os.chmod": ("change the mode of", "meta"),
    "os.chown": ("change the owner of", "meta"),
    "os.listdir": ("list", "read"),
    "os.scandir": ("list", "read"),
    "sqlite3.connect": ("open the database", "read"),
    "socket.connect": ("connect to", "net"),
    "socket.bind": ("listen on", "net"),
    "socket.__new__": ("open a socket", "net"),
    "socket.sendto": ("send to", "net"),
    "os.fork": ("start a process (os.fork)", "proc"),
    "os.forkpty": ("start a process (os.forkpty)", "proc"),
    "os.posix_spawn": ("start a process", "proc"),
    "os.spawn": ("start a process", "proc"),
    "os.system": ("start a process (os.system)", "proc"),
    "os.exec": ("run a program", "proc"),
    "subprocess.Popen": ("start a process", "proc"),
    "os.kill": ("signal process", "proc"),
}


def _where(audit_args: tuple[Any, ...], event: str) -> str | None:
    """The path, address or program an audited call names, as text."""
    args: list[Any] = list(audit_args)
    if not args:
        return None
    if event == "socket.__new__":
        fam = args[1] if len(args) > 1 else None
        return None if fam is None else f"({getattr(fam, 'name', fam)})"
    if event in ("socket.connect", "socket.bind", "socket.sendto"):
        addr: object = args[-1]
        if isinstance(addr, tuple):
            parts = list(cast("tuple[object, ...]", addr))
            if len(parts) >= 2:
                return f"{parts[0]}:{parts[1]}"
        return f"{addr}"
    if event == "subprocess.Popen":
        prog = args[1] if len(args) > 1 and args[1] else args[0]
        if isinstance(prog, (list, tuple)):
            prog = " ".join(map(str, prog))  # pyright: ignore[reportUnknownArgumentType]
        return f"({prog})"
    if event in ("os.fork", "os.forkpty"):
        return None
    if event == "os.kill":
        return str(args[0])
    first = args[0]
    if isinstance(first, bytes):
        return os.fsdecode(first)
    if isinstance(first, (str, os.PathLike)):
        return os.fspath(first)  # pyright: ignore[reportUnknownArgumentType]
    return None


class Refusals:
    """Remembers each thread's last few file, network and process operations (an audit
    hook), so that an ``OSError`` the sandbox caused can be told in words.

    Example:
        >>> r = Refusals(model="g", policy={"enabled": True, "tmpdir": "/tmp/w"})
        >>> r.explain(PermissionError(13, "Permission denied", "/lake/x.parquet"))
        'model g tried to open /lake/x.parquet: permission denied by the model sandbox'
        >>> r.explain(ZeroDivisionError("division by zero")) is None
        True
    """

    def __init__(self, model: str, policy: Mapping[str, Any]) -> None:
        self.model = model
        self.enabled = bool(policy.get("enabled"))
        self.internet = bool(policy.get("internet_access"))
        self.tmpdir = str(policy.get("tmpdir") or "")
        self.memory = policy.get("memory")
        self.read_roots = [str(p) for p in cast("Sequence[str]", policy.get("read") or [])]
        self.lake = str(policy.get("lake") or "")
        self._recent: dict[int, deque[tuple[str, str, str | None]]] = {}

    def install(self) -> None:
        """Installs the audit hook (for the rest of the process: hooks cannot be removed).

        Example:
            >>> Refusals("g", {"enabled": True}).install()   # doctest: +SKIP
        """
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path = args[0] if args else None
            if not isinstance(path, (str, bytes, os.PathLike)):
                return
            mode = args[1] if len(args) > 1 else None
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(flags & _WRITE_FLAGS)
            verb, kind = ("write", "write") if writes else ("read", "read")
            where = os.fsdecode(os.fspath(path))  # pyright: ignore[reportUnknownArgumentType]
        else:
            found = _EVENTS.get(event)
            if found is None:
                return
            verb, kind = found
            where = _where(args, event)
        q = self._recent.get(threading.get_ident())
        if q is None:
            q = self._recent[threading.get_ident()] = deque(maxlen=8)
        q.append((verb, kind, where))

    def _last(self, path: str | None = None, kinds: tuple[str, ...] = ()) -> tuple[str, str, str | None] | None:
        for verb, kind, where in reversed(self._recent.get(threading.get_ident(), ())):
            if kinds and kind not in kinds:
                continue
            if path is None or where == path or (where and os.path.abspath(where) == os.path.abspath(path)):
                return verb, kind, where
        return None

    def _inside(self, path: str, roots: Sequence[str]) -> bool:
        p = os.path.realpath(path)
        return any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots if r)

    def explain(self, exc: BaseException) -> str | None:
        """The message for an exception the sandbox caused, or None when it did not
        (or the sandbox is off). The exception's causes and contexts are looked at too.

        Example:
            >>> Refusals("g", {"enabled": False}).explain(PermissionError(13, "denied", "/x")) is None
            True
        """
        seen: set[int] = set()
        e: BaseException | None = exc
        while e is not None and id(e) not in seen:
            seen.add(id(e))
            msg = self._explain_one(e)
            if msg:
                return msg
            e = e.__cause__ or e.__context__
        return None

    def _explain_one(self, e: BaseException) -> str | None:
        who = f"model {self.model}"
        if isinstance(e, MemoryError) and self.memory:
            return f"{who} ran out of memory (its limit is {_bytes(self.memory)}; @weir.python(memory=...) raises it)"
        if not isinstance(e, OSError):
            if type(e).__module__ == "sqlite3" and self.enabled:
                last = self._last(kinds=("read",))
                if last and last[0] == "open the database" and last[2]:
                    return f"{who} tried to open the database {last[2]}: permission denied by the model sandbox"
            return None
        if e.errno == errno.EFBIG:
            return (f"{who} tried to write a file larger than its memory limit "
                    f"({_bytes(self.memory) if self.memory else '?'}): files a model writes are limited to it")
        if not self.enabled or e.errno not in (errno.EACCES, errno.EPERM, errno.ENETUNREACH, errno.EROFS):
            return None
        path = e.filename if isinstance(e.filename, str) else (
            os.fsdecode(e.filename) if isinstance(e.filename, bytes) else None)
        if path is not None:
            last = self._last(path)
            verb, kind = (last[0], last[1]) if last else ("open", "read")
            if kind == "proc":
                return (f"{who} tried to {verb} {path}: permission denied by the model sandbox "
                        "(models cannot run programs)")
            if kind != "meta" and self.tmpdir and self._inside(path, [self.tmpdir]):
                return None  # its own folder: not the sandbox
            if kind == "read" and self._inside(path, self.read_roots) and not (
                    self.lake and self._inside(path, [self.lake])):
                return None  # a folder it may read: a permission of the file itself
            target = path if not (e.filename2 and verb == "rename") else f"{path} to {e.filename2}"
            return f"{who} tried to {verb} {target}: permission denied by the model sandbox"
        last = self._last(kinds=("net", "proc", "meta"))
        if last is None:
            return None
        verb, kind, where = last
        if kind == "net":
            if self.internet:
                return None
            return (f"{who} tried to {verb}{' ' + where if where else ''}: permission denied by the model sandbox "
                    "(no network: @weir.python(..., internet_access=True) opens it)")
        if kind == "proc":
            return (f"{who} tried to {verb}{' ' + where if where else ''}: permission denied by the model sandbox "
                    "(models cannot start processes)")
        return f"{who} tried to {verb}{' ' + where if where else ''}: permission denied by the model sandbox"


def _bytes(n: object) -> str:
    try:
        v = int(cast("int", n))
    except (TypeError, ValueError):
        return str(n)
    for unit, name in ((1 << 40, "TiB"), (10**12, "TB"), (1 << 30, "GiB"), (10**9, "GB"), (1 << 20, "MiB"),
                       (10**6, "MB")):
        if v >= unit and v % unit == 0:
            return f"{v // unit} {name}"
    return f"{v / 1e9:.1f} GB" if v >= 10**9 else f"{v / 1e6:.1f} MB"


# ---- the run -----------------------------------------------------------------------------------


def _model_traceback(e: BaseException) -> str:
    """The model's own frames (this module's are dropped)."""
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(e), e, tb))


def _error(message: str, tb: str | None = None) -> dict[str, Any]:
    from weir.errors import ModelError

    err: dict[str, Any] = {"code": "ModelError", "code_num": ModelError.code, "message": message, "details": []}
    if tb:
        err["traceback"] = tb[-20000:]
    return {"ok": False, "error": err}


def run(job: Mapping[str, Any], sock: Any) -> tuple[dict[str, Any], bool]:
    """Imports the model, takes its inputs from the worker, calls it, writes its output;
    returns (the reply for the worker, whether the inputs were received). Never raises
    for a failure of the model."""
    from weir import _handoff
    from weir._ffi import to_reader
    from weir._project import load_file

    model = str(job.get("model") or job.get("function") or "?")
    policy = cast("Mapping[str, Any]", job.get("sandbox") or {})
    refusals = Refusals(model, policy)
    refusals.install()
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()

    def failed(what: str, e: BaseException) -> dict[str, Any]:
        if isinstance(e, KeyboardInterrupt):
            raise e
        why = refusals.explain(e)
        return _error(why or f"{what}{type(e).__name__}: {e}", _model_traceback(e))

    # 1. the project's code (while the worker reads the inputs)
    try:
        module = load_file(str(job["project"]), str(job["file"]))
        fn = getattr(module, str(job["function"]))
    except BaseException as e:  # noqa: BLE001 - report, do not crash
        return failed(f"model {model}: cannot load {job.get('function')} from {job.get('file')}: ", e), False
    t1 = time.perf_counter()
    seconds["load"] = t1 - t0

    # 2. the inputs, mapped from the worker's sealed memfds (no copy)
    head, fds = _handoff.recv(sock)
    *in_fds, out_fd = fds
    kwargs: dict[str, Any] = {}
    try:
        for inp, fd in zip(cast("Sequence[Mapping[str, Any]]", head.get("inputs") or []), in_fds, strict=True):
            if not _handoff.is_sealed(fd):
                raise ValueError(f"input {inp.get('param')} was not sealed by the worker")
            kwargs[str(inp["param"])] = _handoff.map_table(fd)
    except BaseException as e:  # noqa: BLE001
        return failed(f"model {model}: cannot map its inputs: ", e), True
    finally:
        for fd in in_fds:
            os.close(fd)
    t2 = time.perf_counter()
    seconds["inputs"] = t2 - t1

    # 3. the model
    try:
        result = fn(**kwargs)
    except BaseException as e:  # noqa: BLE001 - the model's exception is the result
        return failed(f"model {model} raised ", e), True
    del kwargs
    t3 = time.perf_counter()
    seconds["model"] = t3 - t2

    # 4. the output, into the worker's memfd
    try:
        reader = to_reader(result)
    except TypeError as e:
        return _error(f"model {model} returned {type(result).__name__}: {e}"), True
    try:
        rows, size = _handoff.write_table(reader, out_fd)
    except BaseException as e:  # noqa: BLE001 - a failing RecordBatchReader, a full disk
        return failed(f"model {model}: its output could not be handed over: ", e), True
    finally:
        os.close(out_fd)
        del reader, result
    seconds["output"] = time.perf_counter() - t3
    return {"ok": True, "rows": rows, "bytes": size, "seconds": seconds}, True


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m weir.model_host`` (started by libweir's runner, with the
    job on stdin and the worker's socket on descriptor 3).

    Example:
        $ python -m weir.model_host < job.json 3<>socket
    """
    import json
    import socket

    from weir import _handoff

    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        print("usage: python -m weir.model_host < job.json (descriptor 3: the worker's socket)\n\n"
              "The sandboxed process of a Python model (docs/worker.md); libweir starts it.")
        return 0
    # A file over the size limit fails with EFBIG (told in words) instead of killing us.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        job = json.loads(sys.stdin.read())
        sock = socket.socket(fileno=3)
    except (ValueError, OSError) as e:
        print(f"error: weir.model_host: bad job or no worker socket: {e}", file=sys.stderr)
        return 2
    received = True
    try:
        reply, received = run(cast("dict[str, Any]", job), sock)
    except _handoff.HandoffClosed:
        return 3  # the worker ended first: it reports why
    except Exception as e:  # noqa: BLE001 - a bug here: still tell the worker
        reply = _error(f"model {job.get('model')}: the model process failed: {type(e).__name__}: {e}",
                       traceback.format_exc())
    try:
        _handoff.send(sock, reply)
        if not received:
            # Wait for the worker's inputs (or its end) before closing: a socket closed with
            # unread data would reset the connection before the worker reads this reply.
            try:
                _, fds = _handoff.recv(sock)
                for fd in fds:
                    os.close(fd)
            except (_handoff.HandoffClosed, OSError, ValueError):
                pass
    except OSError:
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    # The reply is sent: skip the interpreter's teardown (modules' finalizers, thread
    # pools), which can take longer than the model.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
