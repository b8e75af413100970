"""The hand-off between the worker and the sandboxed model process (docs/worker.md).

Both ends share one unix stream socket (descriptor 3, made by libweir's runner). A
message is a 4-byte little-endian length and that many bytes of JSON; descriptors ride
along with the length (SCM_RIGHTS). Tables travel as Arrow IPC files in memfds:

- the worker writes each input into a memfd, seals it (no one can change it after) and
  passes it; the model process maps it read-only and reads it without a copy;
- the worker also passes an empty memfd for the output, which the model process fills;
  the worker seals it before reading (a seal fails while anyone can still write, so
  the data it validates is the data it writes).

Nothing else crosses: no pickles, only JSON and Arrow IPC, which the worker validates
fully before libweir sees it.
"""
from __future__ import annotations

import fcntl
import json
import mmap
import os
import socket
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

__all__ = ["send", "recv", "write_table", "map_table", "seal", "new_memfd", "HandoffClosed"]

_MAX_MESSAGE = 64 << 20
_MAX_FDS = 250
_SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE  # pyright: ignore[reportAttributeAccessIssue]


class HandoffClosed(Exception):
    """The other side closed the socket (it ended) before a whole message arrived."""


def send(sock: socket.socket, doc: Any, fds: Sequence[int] = ()) -> None:
    """Sends one message (and descriptors, which the receiver gets as new ones)."""
    body = json.dumps(doc, default=str).encode()
    head = len(body).to_bytes(4, "little")
    if fds:
        socket.send_fds(sock, [head], list(fds))
    else:
        sock.sendall(head)
    sock.sendall(body)


def _exactly(sock: socket.socket, n: int, got: bytes = b"") -> bytes:
    buf = bytearray(got)
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise HandoffClosed("the other side ended")
        buf += chunk
    return bytes(buf)


def recv(sock: socket.socket) -> tuple[Any, list[int]]:
    """Receives one message: (the JSON document, the descriptors that came with it).

    Raises:
        HandoffClosed: the socket closed first. ValueError: a malformed message.
    """
    data, fds, _flags, _addr = socket.recv_fds(sock, 4, _MAX_FDS)
    if not data:
        for fd in fds:
            os.close(fd)
        raise HandoffClosed("the other side ended")
    head = _exactly(sock, 4, data)
    n = int.from_bytes(head, "little")
    if n > _MAX_MESSAGE:
        for fd in fds:
            os.close(fd)
        raise ValueError(f"a hand-off message of {n} bytes is too large")
    return json.loads(_exactly(sock, n)), list(fds)


def new_memfd(name: str) -> int:
    """An empty, sealable memfd (closed on exec)."""
    return os.memfd_create(name[:200], os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)


def write_table(data: pa.RecordBatchReader, fd: int) -> tuple[int, int]:
    """Writes a stream of batches into ``fd`` as one Arrow IPC file, batch by batch (the
    whole table is never held twice); returns (rows, bytes). The descriptor stays open."""
    rows = 0
    with os.fdopen(os.dup(fd), "wb", buffering=0) as fh:
        with pa.ipc.new_file(fh, data.schema) as writer:
            for batch in data:
                writer.write_batch(batch)  # pyright: ignore[reportUnknownMemberType]
                rows += batch.num_rows
        size = fh.tell()
    return rows, size


def seal(fd: int) -> None:
    """Seals a memfd against any change (write, grow, shrink, more seals).

    Raises:
        OSError: EBUSY while someone holds a writable mapping of it; EPERM when it was not
        made sealable (not by :func:`new_memfd`).
    """
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)  # pyright: ignore[reportAttributeAccessIssue]


def is_sealed(fd: int) -> bool:
    """True when ``fd`` is a memfd nobody can change any more."""
    try:
        seals = fcntl.fcntl(fd, fcntl.F_GET_SEALS)  # pyright: ignore[reportAttributeAccessIssue]
    except OSError:
        return False
    need = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW  # pyright: ignore[reportAttributeAccessIssue]
    return seals & need == need


def map_table(fd: int) -> pa.Table:
    """The Arrow IPC file in ``fd`` as a table whose buffers are a read-only mapping of
    it (no copy). The mapping lives as long as the table's buffers.

    Raises:
        ValueError: the descriptor is empty. pyarrow.ArrowInvalid: it holds no IPC file.
    """
    size = os.fstat(fd).st_size
    if size == 0:
        raise ValueError("no table was written")
    mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
    return pa.ipc.open_file(pa.py_buffer(mm)).read_all()
