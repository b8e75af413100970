"""Helpers for the `weir serve` tests: a lake to serve, and a server run by a fixture.

The server is a real `weir serve` process on a loopback port it picks itself (--port 0);
the fixture waits for its readiness line on stdout (which carries the port), never for
a fixed time, and stops it with SIGTERM at the end.
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
from dataclasses import dataclass

from conftest import ROOT, TITANIC, weir, weir_bin

CONTRACT = ROOT / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"
READY = re.compile(r"listening on http://([0-9.]+):([0-9]+)")


@dataclass
class Server:
    proc: subprocess.Popen[str]
    url: str
    lake: pathlib.Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


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


def make_titanic_lake(lake: pathlib.Path) -> dict[str, str]:
    """titanic (with its contract) on main, branch dev, tag v1 at main; returns tokens."""
    r = weir("init", lake)
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


def lake_files(lake: pathlib.Path) -> set[str]:
    """Every file under the lake's warehouse."""
    return {str(p) for p in (lake / "warehouse").rglob("*") if p.is_file()}
