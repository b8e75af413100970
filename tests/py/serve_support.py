"""Helpers for the `weir serve` tests: a lake to serve, and a server run by a fixture.

The server is a real `weir serve` process on a loopback port it picks itself (--port 0);
the fixture waits for its readiness line on stdout (which carries the port), never for
a fixed time, and stops it with SIGTERM at the end.

Shared-lake settings (SETTINGS, for a module fixture's params): "local" is a lake as
the session makes them (SQLite, or PostgreSQL under WEIR_TEST_CATALOG=postgresql) with
its warehouse in the lake folder; "pg-s3" is a lake whose catalog is on the session's
PostgreSQL server and whose warehouse is on the loopback S3 server (moto), with the
S3 variables in this process's environment while the module's tests run (the weir
processes, pyiceberg's and DuckDB's clients find the server and credentials there, as
an engine with its own AWS configuration does).
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import select
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterator

import pytest

from conftest import ROOT, TITANIC, pg_catalog, weir, weir_bin

SETTINGS = ("local", "pg-s3")

CONTRACT = ROOT / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"
READY = re.compile(r"listening on http://([0-9.]+):([0-9]+)")


@dataclass
class Server:
    proc: subprocess.Popen[str]
    url: str
    lake: pathlib.Path
    s3: Any = field(default=None)  # the S3Server of a pg-s3 lake, else None

    def stop(self) -> None:
        """Stops the server with SIGTERM and checks that it exited cleanly: under the
        sanitizers a leak or an error found at exit is a non-zero status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("weir serve did not stop within 30 s of SIGTERM") from None
        err = self.proc.stderr.read() if self.proc.stderr else ""
        assert self.proc.returncode == 0, f"weir serve exited with {self.proc.returncode}: {err[-4000:]}"


def start_server(lake: pathlib.Path, *extra: str, ready_timeout: float = 60.0) -> Server:
    """Starts `weir serve` on the lake and returns once its readiness line is printed."""
    env = dict(os.environ)
    proc = subprocess.Popen([str(weir_bin()), "--lake", str(lake), "serve", "--port", "0", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    deadline = time.monotonic() + ready_timeout
    line = ""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = proc.stdout.readline()
        if not line:
            break
        m = READY.search(line)
        if m:
            return Server(proc, f"http://{m.group(1)}:{m.group(2)}", lake)
    proc.kill()
    _, err = proc.communicate()
    raise AssertionError(f"weir serve did not become ready (last line {line!r}): {err}")


def make_titanic_lake(lake: pathlib.Path, *init_args: str) -> dict[str, str]:
    """titanic (with its contract) on main, branch dev, tag v1 at main; returns tokens.
    `init_args` go to `weir init` (--catalog, --warehouse)."""
    r = weir("init", lake, *init_args)
    assert r.returncode == 0, r.stderr
    r = weir("import", TITANIC, "--table", "titanic", "--contract", CONTRACT, lake=lake)
    assert r.returncode == 0, r.stderr
    for args in (("branch", "create", "dev"), ("tag", "create", "v1")):
        r = weir(*args, lake=lake)
        assert r.returncode == 0, r.stderr
    tokens = {}
    for name, opts in (("engine", ()), ("reader", ("--read-only",)), ("devonly", ("--branches", "dev*"))):
        r = weir("token", "create", "--name", name, *opts, lake=lake)
        assert r.returncode == 0, r.stderr
        tokens[name] = r.stdout.strip()
    return tokens


def weir_rows(lake: pathlib.Path, sql: str, ref: str) -> list[dict]:
    r = weir("query", sql, "--format", "json", "--ref", ref, lake=lake)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def lake_files(lake: pathlib.Path, s3: Any = None) -> set[str]:
    """Every file under the lake's warehouse (its objects, for an S3 warehouse)."""
    wh = json.loads((lake / "lake.json").read_text()).get("warehouse", "")
    if wh.startswith("s3://"):
        assert s3 is not None, "an S3 lake's files are listed with its server"
        prefix = wh.removeprefix(f"s3://{s3.bucket}/")
        return {f"s3://{s3.bucket}/{k}" for k in s3.keys(prefix + "/")}
    return {str(p) for p in (lake / "warehouse").rglob("*") if p.is_file()}


def served_lake(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                setting: str, *serve_args: str) -> Iterator[tuple[Server, dict[str, str]]]:
    """The titanic lake (make_titanic_lake) in a SETTINGS setting, served; yields (server,
    tokens) and stops the server (and restores the environment) afterwards. A generator
    for a module fixture: `yield from served_lake(request, tmp_path_factory, request.param)`."""
    lake = tmp_path_factory.mktemp(f"serve_{setting}") / "lake"
    if setting == "local":
        tokens = make_titanic_lake(lake)
        srv = start_server(lake, *serve_args)
        yield srv, tokens
        srv.stop()
        return
    assert setting == "pg-s3", setting
    s3 = request.getfixturevalue("s3_server")
    with pytest.MonkeyPatch.context() as mp:
        for k, v in s3.env().items():
            mp.setenv(k, v)
        warehouse = f"s3://{s3.bucket}/serve-{uuid.uuid4().hex[:12]}"
        tokens = make_titanic_lake(lake, "--catalog", pg_catalog(), "--warehouse", warehouse)
        srv = start_server(lake, *serve_args)
        srv.s3 = s3
        yield srv, tokens
        srv.stop()
