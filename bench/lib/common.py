"""Shared helpers of the benchmark harness: paths, timing, statistics, DuckDB extensions,
the weir CLI, and rows of results.

A *row* is one measured (scenario, operation, size, tool) cell:

    {"scenario": "catalog", "op": "commit", "size": "10t/10c", "tool": "pyiceberg",
     "times_s": [...], "median_s": ..., "p95_s": ..., "n": 15,
     "ref": "weir-py",          # the weir row this peer is compared with (None for weir rows)
     "note": "...", "extra": {...}}

bench/run.py adds peak memory (from the unit's child process) and ratios.
"""
from __future__ import annotations

import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
DATA = os.environ.get("WEIR_BENCH_DATA") or os.path.join(BENCH, ".data")  # generated data cache (gitignored)


def build_dir() -> str:
    return os.environ.get("WEIR_BUILD_DIR") or os.path.join(ROOT, "build")


def weir_bin() -> str:
    return os.path.join(build_dir(), "weir")


def weir_lib() -> str:
    return os.environ.get("WEIR_LIBRARY") or os.path.join(build_dir(), "libweir.so")


def python() -> str:
    venv = os.path.join(ROOT, ".venv", "bin", "python")
    return venv if os.path.exists(venv) else sys.executable


# ---- timing ---------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 1]) of a non-empty list."""
    v = sorted(values)
    if not v:
        return float("nan")
    k = max(0, min(len(v) - 1, int(round(q * (len(v) - 1)))))
    return v[k]


def median(values: list[float]) -> float:
    v = sorted(values)
    n = len(v)
    if n == 0:
        return float("nan")
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def timed(fn: Callable[[int], Any], n: int, warmup: int = 1,
          setup: Callable[[int], Any] | None = None) -> list[float]:
    """Runs fn(i) warmup + n times (setup(i) before each, untimed); returns the n timings (s)."""
    out: list[float] = []
    for i in range(-warmup, n):
        if setup is not None:
            setup(i)
        t0 = time.perf_counter()
        fn(i)
        dt = time.perf_counter() - t0
        if i >= 0:
            out.append(dt)
    return out


def row(scenario: str, op: str, size: str, tool: str, times: list[float], ref: str | None = None,
        note: str = "", **extra: Any) -> dict[str, Any]:
    return {"scenario": scenario, "op": op, "size": size, "tool": tool, "times_s": times,
            "median_s": median(times), "p95_s": percentile(times, 0.95), "n": len(times), "ref": ref,
            "note": note, "extra": extra}


def na_row(scenario: str, op: str, size: str, tool: str, why: str) -> dict[str, Any]:
    """A peer that has no such operation: no time, the reason instead."""
    return {"scenario": scenario, "op": op, "size": size, "tool": tool, "times_s": [], "median_s": None,
            "p95_s": None, "n": 0, "ref": None, "note": why, "extra": {"unsupported": True}}


# ---- memory ---------------------------------------------------------------------------------


def self_rss_mb() -> float:
    """Peak RSS of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def children_rss_mb() -> float:
    """Largest peak RSS of any waited-for child process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


TIME_BIN = "/usr/bin/time"


def run_timed(argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None,
              check: bool = True, rss: bool = False) -> tuple[float, float, str]:
    """Runs a command; returns (wall seconds, peak RSS in MB, stdout).

    A child forked from this (large) Python process reports the parent's RSS as its peak
    (the pages it shares before exec count), so the peak RSS is exact only with rss=True,
    which runs the command under /usr/bin/time (a small process forks it): use that on
    untimed warm-up runs; timed runs report 0 for the peak.
    """
    rss_file = None
    if rss and os.path.exists(TIME_BIN):
        import tempfile

        fd, rss_file = tempfile.mkstemp(prefix="rss-")
        os.close(fd)
        argv = [TIME_BIN, "-q", "-f", "%M", "-o", rss_file, *argv]
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out_b, err_b = b"", b""
    # Small outputs: communicate() would reap the child and lose its rusage, so read the
    # pipes to EOF by hand and then wait4 on the pid.
    import selectors
    sel = selectors.DefaultSelector()
    assert p.stdout is not None and p.stderr is not None
    sel.register(p.stdout, selectors.EVENT_READ)
    sel.register(p.stderr, selectors.EVENT_READ)
    open_ = 2
    while open_:
        for key, _ in sel.select():
            chunk = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
            if not chunk:
                sel.unregister(key.fileobj)
                open_ -= 1
            elif key.fileobj is p.stdout:
                out_b += chunk
            else:
                err_b += chunk
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    dt = time.perf_counter() - t0
    peak = 0.0
    if rss_file is not None:
        try:
            with open(rss_file, encoding="utf-8") as fh:
                peak = float(fh.read().split()[-1]) / 1024
        except (OSError, ValueError, IndexError):
            peak = 0.0
        os.unlink(rss_file)
    elif rss:
        peak = ru.ru_maxrss / 1024
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:8])} exited {p.returncode}: {err_b.decode(errors='replace')[-2000:]}")
    return dt, peak, out_b.decode(errors="replace")


def weir_cli(args: list[str], lake: str, check: bool = True, rss: bool = False) -> tuple[float, float, str]:
    """One `weir` command on `lake`: (seconds, peak RSS MB or 0 without rss, stdout)."""
    env = dict(os.environ, WEIR_LAKE=lake, WEIR_PYTHON=python())
    return run_timed([weir_bin(), "--no-progress", *args], env=env, check=check, rss=rss)


# ---- DuckDB ---------------------------------------------------------------------------------


def duckdb_extension(name: str) -> str:
    """Path of DuckDB extension `name` from its PyPI package (no INSTALL: no internet)."""
    import duckdb  # noqa: F401

    pattern = os.path.join(os.path.dirname(os.path.dirname(duckdb.__file__)), f"duckdb_extension_{name}",
                           "extensions", "v*", f"{name}.duckdb_extension")
    found = glob.glob(pattern)
    if not found:
        raise RuntimeError(f"DuckDB extension {name} not found ({pattern}); install duckdb-extension-{name}")
    return found[0]


def duckdb_connect(path: str = ":memory:", extensions: tuple[str, ...] = (), threads: int | None = None) -> Any:
    import duckdb

    con = duckdb.connect(path, config={"allow_unsigned_extensions": "true"})
    for e in extensions:
        con.execute(f"LOAD '{duckdb_extension(e)}'")
    if threads:
        con.execute(f"SET threads = {threads}")
    return con


# ---- files ----------------------------------------------------------------------------------


def dir_bytes(path: str) -> int:
    total = 0
    for dp, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(dp, f))
            except OSError:
                pass
    return total


def fresh_dir(path: str) -> str:
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path, exist_ok=True)
    return path


def write_json(path: str, doc: Any) -> None:
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, default=str)
    os.replace(tmp, path)
