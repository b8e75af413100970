"""Scenario `compact`: rewriting a table of many small appended files into one.

The data is the `write` scenario's synthetic table (bench/.data/write-<rows>.parquet). Each
timed run first builds, untimed, a fresh weir table of it appended in `files` equal slices
(one Parquet file each), then times one operation over exactly those files:

  weir-py      Client.compact(table): read the small files by field id, write them again
               (zstd, field ids, statistics), commit the Iceberg replace snapshot
  duckdb-copy  COPY (SELECT * FROM read_parquet([the same files])) TO one Parquet file
               (FORMAT parquet, COMPRESSION zstd): the bare rewrite, no metadata, no
               commit (vs weir-py; ratio < 1 means weir's overhead is 1 / ratio)

Throughput is the small files' bytes on disk per second (MB/s, 10^6 bytes).
"""
from __future__ import annotations

import glob
import os
from typing import Any

from lib.common import fresh_dir, row, timed
from scenarios.write import data_file, size_label

SCENARIO = "compact"
TOOLS = ["weir-py", "duckdb-copy"]
REFS = {"duckdb-copy": "weir-py"}


def tier_config(tier: str) -> dict[str, Any]:
    if tier == "smoke":
        return {"rows": [20_000], "files": 10, "reps": 1}
    if tier == "quick":
        return {"rows": [1_000_000], "files": 100, "reps": 3}
    return {"rows": [1_000_000, 10_000_000], "files": 200, "reps": 5}


def units(tier: str) -> list[dict[str, Any]]:
    cfg = tier_config(tier)
    return [{"scenario": SCENARIO, "tool": t, "rows": n, "files": cfg["files"], "reps": cfg["reps"]}
            for n in cfg["rows"] for t in TOOLS]


def build(root: str, data: Any, files: int) -> tuple[Any, list[str]]:
    """A fresh lake whose table `t` is `data` appended in `files` slices; its data files."""
    import weir

    client = weir.Client.init(os.path.join(fresh_dir(root), "lake"))
    step = -(-data.num_rows // files)
    for k in range(files):
        client.import_data("t", data.slice(k * step, step), mode="create" if k == 0 else "append")
    paths = sorted(glob.glob(os.path.join(client.warehouse, "default", "t", "data", "*.parquet")))
    assert len(paths) == files, f"expected {files} data files, found {len(paths)}"
    return client, paths


def run_unit(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    n, files, reps, tool = u["rows"], u["files"], u["reps"], u["tool"]
    data = pq.read_table(data_file(n))
    state: dict[str, Any] = {}

    def setup(i: int) -> None:
        if state.get("client") is not None:
            state["client"].close()
        state["client"], state["paths"] = build(os.path.join(work, tool, str(i)), data, files)
        state["bytes"] = sum(os.path.getsize(p) for p in state["paths"])

    if tool == "weir-py":
        def op(i: int) -> None:
            r = state["client"].compact("t", target_file_size=1 << 40)
            assert r.compacted and r.files_written == 1 and r.rows_rewritten == n, r
    else:
        from lib.common import duckdb_connect

        con = duckdb_connect()

        def op(i: int) -> None:
            files_sql = ", ".join(f"'{p}'" for p in state["paths"])
            out = os.path.join(work, tool, f"out-{i}.parquet")
            con.execute(f"COPY (SELECT * FROM read_parquet([{files_sql}])) TO '{out}' "
                        "(FORMAT parquet, COMPRESSION zstd)")

    times = timed(op, reps, warmup=0, setup=setup)
    med = sorted(times)[len(times) // 2]
    mb = state["bytes"] / 1e6
    state["client"].close()
    return [row(SCENARIO, "compact", f"{size_label(n)} in {files} files", tool, times, ref=REFS.get(tool),
                throughput=f"{mb / med:.1f} MB/s ({mb:.1f} MB of small files)", small_file_bytes=state["bytes"],
                mb_per_s=mb / med)]
