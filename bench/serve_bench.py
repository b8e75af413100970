"""weir serve against pyiceberg's SqlCatalog (SQLite), measured in the same run.

For each catalog: 8 client threads, each with its own catalog client and its own table
(so commits do not conflict), run N loadTable calls and N one-row appends (a commit each).
Prints p50/p95 latency in ms and total throughput (ops/s) per operation as JSON lines and
a Markdown table for bench/RESULTS.md.

    .venv/bin/python bench/serve_bench.py [--clients 8] [--n 25]
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "py"))

import pyarrow as pa  # noqa: E402
from pyiceberg.catalog import load_catalog  # noqa: E402
from pyiceberg.catalog.sql import SqlCatalog  # noqa: E402

from conftest import weir  # noqa: E402
from serve_support import start_server  # noqa: E402

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run_clients(make_catalog, clients, n):
    lat = {"loadTable": [], "commit": []}
    lock = threading.Lock()
    barrier = threading.Barrier(clients)
    spans = {"loadTable": [], "commit": []}

    def client(i):
        cat = make_catalog()
        name = f"bench.t{i}"
        t = cat.load_table(name)
        barrier.wait()
        t0 = time.perf_counter()
        mine = []
        for _ in range(n):
            s = time.perf_counter()
            t = cat.load_table(name)
            mine.append(time.perf_counter() - s)
        t1 = time.perf_counter()
        with lock:
            lat["loadTable"] += mine
            spans["loadTable"].append((t0, t1))
        barrier.wait()
        t0 = time.perf_counter()
        mine = []
        for k in range(n):
            s = time.perf_counter()
            t.append(pa.table({"id": [k], "v": ["x"]}, schema=SCHEMA))
            mine.append(time.perf_counter() - s)
        t1 = time.perf_counter()
        with lock:
            lat["commit"] += mine
            spans["commit"].append((t0, t1))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    out = {}
    for op, xs in lat.items():
        wall = max(b for _, b in spans[op]) - min(a for a, _ in spans[op])
        out[op] = {"p50_ms": 1000 * statistics.median(xs), "p95_ms": 1000 * pct(xs, 95),
                   "ops_per_s": len(xs) / wall, "ops": len(xs)}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--n", type=int, default=25)
    a = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="weir-serve-bench-"))
    results = {}

    lake = tmp / "lake"
    assert weir("init", lake).returncode == 0
    tok = weir("token", "create", "--name", "bench", lake=lake).stdout.strip()
    srv = start_server(lake, "--threads", str(a.clients))
    try:
        setup = load_catalog("w", type="rest", uri=srv.url, warehouse="main", token=tok)
        setup.create_namespace("bench")
        for i in range(a.clients):
            setup.create_table(f"bench.t{i}", schema=SCHEMA)
        results["weir serve (REST)"] = run_clients(
            lambda: load_catalog("w", type="rest", uri=srv.url, warehouse="main", token=tok), a.clients, a.n)
    finally:
        srv.stop()

    wh = tmp / "sqlwh"
    wh.mkdir()
    uri = f"sqlite:///{tmp / 'sql.db'}"
    setup = SqlCatalog("s", uri=uri, warehouse=f"file://{wh}")
    setup.create_namespace("bench")
    for i in range(a.clients):
        setup.create_table(f"bench.t{i}", schema=SCHEMA)
    results["pyiceberg SqlCatalog (SQLite)"] = run_clients(
        lambda: SqlCatalog("s", uri=uri, warehouse=f"file://{wh}"), a.clients, a.n)

    for cat, ops in results.items():
        for op, r in ops.items():
            print(json.dumps({"catalog": cat, "op": op, "clients": a.clients, **r}))
    print("\n| catalog | operation | p50 ms | p95 ms | ops/s (8 clients) |\n| --- | --- | ---: | ---: | ---: |")
    for cat, ops in results.items():
        for op, r in ops.items():
            print(f"| {cat} | {op} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | {r['ops_per_s']:.0f} |")


if __name__ == "__main__":
    main()
