#!/usr/bin/env python3
"""A throwaway PostgreSQL server for the tests of the PostgreSQL catalog.

Debian's ``postgresql`` package gives ``initdb`` and ``pg_ctl``; this module makes a
cluster in a temporary folder, starts it on a free loopback port and stops it. Root
cannot run the server, so as root the server runs as the ``postgres`` system user (made
by the package) or, failing that, ``nobody``, in a folder handed to that user.

The cluster asks for a password over TCP (scram-sha-256), so the tests exercise libpq's
own conventions: the URIs they use carry no password and libpq finds it in the
``pgpass`` file the server folder holds (``PGPASSFILE``).

Used two ways:

* from pytest (tests/py/conftest.py): ``Server.start()`` / ``server.stop()``;
* from CTest, as a fixture (CMakeLists.txt): ``pgserver.py start STATE_DIR`` writes
  ``STATE_DIR/uri`` (the base URI, database ``weir``) and ``STATE_DIR/pgpass``;
  ``pgserver.py stop STATE_DIR`` stops the server and removes its data.

A server that cannot start is an error (exit 1); callers decide whether that skips or
fails (in CI, CI=true, it always fails).
"""
from __future__ import annotations

import glob
import json
import os
import pathlib
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile

USER = "weir"
PASSWORD = "weir-test-password"
DATABASE = "weir"


def bindir() -> pathlib.Path:
    """The newest installed PostgreSQL's bin folder (Debian keeps them versioned)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(pathlib.Path(p).parts[-3]) if pathlib.Path(p).parts[-3].isdigit() else 0)
    if found:
        return pathlib.Path(found[-1]).parent
    exe = shutil.which("initdb")
    if exe:
        return pathlib.Path(exe).parent
    raise RuntimeError("PostgreSQL's initdb is not installed (Debian package postgresql; scripts/bootstrap.sh)")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _runas() -> tuple[list[str], int | None, int | None]:
    """The command prefix that runs the server unprivileged, and that user's ids."""
    if os.geteuid() != 0:
        return [], None, None
    for name in ("postgres", "nobody"):
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            continue
        return ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups", "--"], pw.pw_uid, pw.pw_gid
    raise RuntimeError("running as root and there is no postgres or nobody user to run the server as")


class Server:
    def __init__(self, folder: pathlib.Path, port: int, prefix: list[str]):
        self.folder = folder
        self.port = port
        self.prefix = prefix
        self.uri = f"postgresql://{USER}@127.0.0.1:{port}/{DATABASE}"
        self.pgpass = folder / "pgpass"

    @property
    def data(self) -> pathlib.Path:
        return self.folder / "data"

    def env(self) -> dict[str, str]:
        """What a client of this server needs in its environment."""
        return {"PGPASSFILE": str(self.pgpass)}

    @classmethod
    def start(cls, folder: str | os.PathLike[str] | None = None, *, durable: bool = False) -> "Server":
        """Makes and starts a server. Tests run it without fsync (a throwaway cluster);
        ``durable`` keeps PostgreSQL's defaults (fsync, synchronous_commit), for benchmarks."""
        bin_ = bindir()
        prefix, uid, gid = _runas()
        base = pathlib.Path(folder) if folder else pathlib.Path(tempfile.mkdtemp(prefix="weir-pg-"))
        base.mkdir(parents=True, exist_ok=True)
        # The server's own folder lives under /tmp, which the unprivileged user can reach
        # whatever the permissions of the tree the caller's folder is in.
        own = pathlib.Path(tempfile.mkdtemp(prefix="weir-pgdata-"))
        if uid is not None:
            os.chown(own, uid, gid)
        pwfile = own / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if uid is not None:
            os.chown(pwfile, uid, gid)
        def run(args: list[str]) -> None:
            r = subprocess.run(prefix + args, capture_output=True, text=True, cwd=own)
            if r.returncode != 0:
                raise RuntimeError(f"{' '.join(args[:2])} failed ({r.returncode}): {r.stderr.strip() or r.stdout.strip()}")
        # A language's collation (ICU's English), as most production databases have, so
        # that the tests see PostgreSQL sort text differently from bytes (weir must not
        # depend on it); the C locale where ICU is not available.
        args = [str(bin_ / "initdb"), "-D", str(own / "data"), "-U", USER, "--pwfile", str(pwfile),
                "--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8", "--no-sync", "--no-instructions"]
        try:
            run(args + ["--locale-provider=icu", "--icu-locale=en-US", "--locale=C.UTF-8"])
        except RuntimeError:
            shutil.rmtree(own / "data", ignore_errors=True)
            pwfile.write_text(PASSWORD + "\n")
            run(args)
        pwfile.unlink()
        last = None
        for _ in range(5):
            port = _free_port()
            opts = (f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={own} "
                    "-c max_connections=200 -c shared_buffers=32MB")
            if not durable:
                opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            try:
                run([str(bin_ / "pg_ctl"), "-D", str(own / "data"), "-o", opts, "-l", str(own / "log"),
                     "-w", "-t", "60", "start"])
                break
            except RuntimeError as e:  # the port was taken meanwhile: another one
                last = e
        else:
            log = (own / "log").read_text() if (own / "log").exists() else ""
            raise RuntimeError(f"the PostgreSQL test server did not start: {last}\n{log[-2000:]}")
        srv = cls(base, port, prefix)
        srv.own = own
        srv.pgpass.write_text(f"127.0.0.1:{port}:*:{USER}:{PASSWORD}\n")
        srv.pgpass.chmod(0o600)
        run([str(bin_ / "createdb"), "-h", str(own), "-p", str(port), "-U", USER, DATABASE])
        (base / "state.json").write_text(json.dumps({"port": port, "own": str(own), "uri": srv.uri}))
        (base / "uri").write_text(srv.uri + "\n")
        return srv

    def psql(self, sql: str, database: str = DATABASE) -> str:
        """Runs SQL as the superuser through the server's socket; returns stdout."""
        r = subprocess.run(self.prefix + [str(bindir() / "psql"), "-h", str(self.own), "-p", str(self.port),
                                          "-U", USER, "-d", database, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"psql failed: {r.stderr.strip()}")
        return r.stdout

    def stop(self) -> None:
        subprocess.run(self.prefix + [str(bindir() / "pg_ctl"), "-D", str(self.own / "data"), "-m", "immediate",
                                      "-w", "stop"], capture_output=True, text=True)
        shutil.rmtree(self.own, ignore_errors=True)

    @classmethod
    def attach(cls, folder: str | os.PathLike[str]) -> "Server":
        """The server a `start FOLDER` left running."""
        base = pathlib.Path(folder)
        st = json.loads((base / "state.json").read_text())
        prefix, _, _ = _runas()
        srv = cls(base, st["port"], prefix)
        srv.own = pathlib.Path(st["own"])
        return srv


def main(argv: list[str]) -> int:
    durable = "--durable" in argv
    argv = [a for a in argv if a != "--durable"]
    if len(argv) != 3 or argv[1] not in ("start", "stop"):
        print("usage: pgserver.py start [--durable] STATE_DIR | stop STATE_DIR", file=sys.stderr)
        return 2
    folder = pathlib.Path(argv[2])
    if argv[1] == "start":
        if (folder / "state.json").exists():  # a server of an interrupted run
            try:
                Server.attach(folder).stop()
            except Exception:
                pass
            (folder / "state.json").unlink(missing_ok=True)
        try:
            srv = Server.start(folder, durable=durable)
        except RuntimeError as e:
            print(f"pgserver: {e}", file=sys.stderr)
            return 1
        print(f"pgserver: PostgreSQL at {srv.uri} (data in {srv.own})")
        return 0
    if (folder / "state.json").exists():
        Server.attach(folder).stop()
        (folder / "state.json").unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
