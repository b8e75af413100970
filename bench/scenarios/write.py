"""Scenario `write`: appending and replacing a table of 1 and 10 million rows.

The data is one synthetic table (bench/.data/write-<rows>.parquet, made once by DuckDB
from range(): BIGINT id, INTEGER k, DOUBLE price, BIGINT qty, VARCHAR flag (3 values),
VARCHAR name, TIMESTAMP ts). Each tool first creates its table from it (untimed), then
appends the same rows `reps` times (the table grows by N rows each time) and replaces the
table with them `reps` times, each as one commit / snapshot:

  weir-py           Client.import_data(table, pyarrow.Table, mode="append" | "replace")
  weir-cli          weir import FILE.parquet --table T --mode append | replace
  pyiceberg         Table.append(pyarrow.Table) / Table.overwrite(pyarrow.Table)   (vs weir-py)
  ducklake-arrow    INSERT INTO lake.t SELECT * FROM <the Arrow table> /
                    CREATE OR REPLACE TABLE lake.t AS SELECT * FROM <the Arrow table>  (vs weir-py)
  ducklake-parquet  the same from read_parquet(FILE)                                  (vs weir-cli)

Every tool reads the same Parquet file into memory before timing (the CLI and
ducklake-parquet read it as part of the operation, which is what they do).
"""
from __future__ import annotations

import os
from typing import Any

from lib.common import DATA, dir_bytes, duckdb_connect, fresh_dir, row, timed, weir_cli

SCENARIO = "write"
TOOLS = ["weir-py", "weir-cli", "pyiceberg", "ducklake-arrow", "ducklake-parquet"]
REFS = {"pyiceberg": "weir-py", "ducklake-arrow": "weir-py", "ducklake-parquet": "weir-cli"}


def tier_config(tier: str) -> dict[str, Any]:
    if tier == "smoke":
        return {"rows": [20_000], "reps": 1}
    if tier == "quick":
        return {"rows": [1_000_000, 10_000_000], "reps": 3}
    return {"rows": [1_000_000, 10_000_000], "reps": 5}


def units(tier: str) -> list[dict[str, Any]]:
    cfg = tier_config(tier)
    return [{"scenario": SCENARIO, "tool": t, "rows": n, "reps": cfg["reps"]} for n in cfg["rows"] for t in TOOLS]


def size_label(n: int) -> str:
    return f"{n / 1e6:g}M rows" if n >= 1_000_000 else f"{n} rows"


def data_file(n: int) -> str:
    """The synthetic table of n rows as Parquet (made once, cached in bench/.data)."""
    path = os.path.join(DATA, f"write-{n}.parquet")
    if os.path.exists(path):
        return path
    os.makedirs(DATA, exist_ok=True)
    con = duckdb_connect()
    tmp = path + ".part"
    con.execute(f"""COPY (SELECT range AS id,
                                 (hash(range) % 1000)::INTEGER AS k,
                                 round((hash(range * 7) % 100000) / 100.0, 2)::DOUBLE AS price,
                                 (hash(range * 13) % 50)::BIGINT + 1 AS qty,
                                 ['A', 'N', 'R'][(range % 3) + 1] AS flag,
                                 'customer#' || lpad((hash(range * 31) % 150000)::VARCHAR, 9, '0') AS name,
                                 TIMESTAMP '2020-01-01' + to_microseconds((range * 997) % 86400000000000) AS ts
                          FROM range({n})) TO '{tmp}' (FORMAT parquet)""")
    con.close()
    os.replace(tmp, path)
    return path


def run_unit(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    n, reps, tool = u["rows"], u["reps"], u["tool"]
    path = data_file(n)
    data = pq.read_table(path)
    nbytes = data.nbytes
    root = fresh_dir(os.path.join(work, tool))
    cli_rss = [0.0]
    if tool == "weir-py":
        import weir

        client = weir.Client.init(os.path.join(root, "lake"))
        client.import_data("t", data)
        ops = {"append": lambda i: client.import_data("t", data, mode="append"),
               "replace": lambda i: client.import_data("t", data, mode="replace")}
    elif tool == "weir-cli":
        import weir

        lake = os.path.join(root, "lake")
        weir.Client.init(lake).close()

        def cli(mode: str) -> None:
            weir_cli(["import", path, "--table", "t", "--mode", mode], lake)

        # Peak RSS: the first import (untimed), under /usr/bin/time; appends and replaces
        # do the same work on the same file.
        cli_rss[0] = weir_cli(["import", path, "--table", "t", "--mode", "create"], lake, rss=True)[1]
        ops = {"append": lambda i: cli("append"), "replace": lambda i: cli("replace")}
    elif tool == "pyiceberg":
        import warnings

        from pyiceberg.catalog.sql import SqlCatalog

        warnings.filterwarnings("ignore")
        os.makedirs(os.path.join(root, "warehouse"))
        cat = SqlCatalog("bench", uri=f"sqlite:///{root}/catalog.db", warehouse=f"file://{root}/warehouse")
        cat.create_namespace("default")
        tbl = cat.create_table("default.t", schema=data.schema)
        tbl.append(data)
        ops = {"append": lambda i: tbl.append(data), "replace": lambda i: tbl.overwrite(data)}
    else:
        con = duckdb_connect(extensions=("ducklake",))
        con.execute(f"ATTACH 'ducklake:{root}/meta.ducklake' AS lake (DATA_PATH '{root}/data')")
        if tool == "ducklake-arrow":
            con.register("src", data)
            src = "src"
        else:
            src = f"read_parquet('{path}')"
        con.execute(f"CREATE TABLE lake.t AS SELECT * FROM {src}")
        ops = {"append": lambda i: con.execute(f"INSERT INTO lake.t SELECT * FROM {src}"),
               "replace": lambda i: con.execute(f"CREATE OR REPLACE TABLE lake.t AS SELECT * FROM {src}")}
    rows = []
    for op, fn in ops.items():
        before = dir_bytes(root)
        times = timed(fn, reps, warmup=0)
        written = (dir_bytes(root) - before) / reps
        med = sorted(times)[len(times) // 2]
        rw = row(SCENARIO, op, size_label(n), tool, times, ref=REFS.get(tool),
                 throughput=f"{n / med / 1e6:.2f} M rows/s, {written / 1e6:.0f} MB/commit on disk",
                 arrow_bytes=nbytes, disk_bytes_per_commit=written)
        if tool == "weir-cli":
            rw["extra"]["peak_rss_mb"] = cli_rss[0]
        rows.append(rw)
    return rows
