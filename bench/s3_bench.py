"""S3 warehouse vs local warehouse (docs/storage.md): import of 1M rows, one 100-row
append commit, and metadata read latency, both measured in the same run against moto's
S3 server on loopback (tests/py/s3_server.py). Prints a Markdown table for
bench/RESULTS.md.

    WEIR_BUILD_DIR=$PWD/build .venv/bin/python bench/s3_bench.py [--rows 1000000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "py"))

import pyarrow as pa  # noqa: E402

import s3_server  # noqa: E402
import weir  # noqa: E402


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def run(kind: str, server, rows: int, repeat: int) -> dict[str, float]:
    data = pa.table({"id": pa.array(range(rows), pa.int64()), "x": pa.array([i * 0.5 for i in range(rows)]),
                     "s": pa.array([f"row-{i % 1000}" for i in range(rows)])})
    small = data.slice(0, 100)
    imports, commits, reads = [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as d:
            wh = f"s3://{server.bucket}/bench-{uuid.uuid4().hex[:8]}" if kind == "s3" else None
            with weir.Client.init(os.path.join(d, "lake"), warehouse=wh) as c:
                imports.append(timed(lambda: c.import_data("t", data)))
                commits.append(timed(lambda: c.import_data("t", small, mode="append")))
            for _ in range(5):
                # A fresh handle each time: no parsed metadata cached; one metadata file read.
                with weir.Client(os.path.join(d, "lake")) as c:
                    reads.append(timed(lambda: c.get_table("t")))
    return {"import": statistics.median(imports), "commit": statistics.median(commits),
            "read": statistics.median(reads)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    server = s3_server.start()
    try:
        for k, v in server.env().items():
            os.environ[k] = v
        local = run("local", server, a.rows, a.repeat)
        s3 = run("s3", server, a.rows, a.repeat)
    finally:
        s3_server.stop(server)
    print(f"| what (median of {a.repeat}) | local warehouse | S3 warehouse (moto, loopback) | ratio |")
    print("| --- | --- | --- | --- |")
    for key, label in [("import", f"import {a.rows:,} rows (3 columns), one commit"),
                       ("commit", "append 100 rows, one commit"),
                       ("read", "open the table's metadata (fresh handle, `get_table`)")]:
        print(f"| {label} | {local[key] * 1000:.1f} ms | {s3[key] * 1000:.1f} ms | {s3[key] / local[key]:.1f}x |")


if __name__ == "__main__":
    main()
