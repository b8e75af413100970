"""Scenario `partition`: a partition-pruned query against a full scan (docs/partitioning.md).

TPC-H `lineitem` (SF 0.1 quick, SF 1 full; bench/.data/tpch-sf<SF>/, made once by the
pipeline scenario's dbgen) is imported twice into one lake with the same contract: table
`lineitem` partitioned by `month(l_shipdate)`, and table `flat` unpartitioned. The timed
operation is one month's revenue through weir's Python client:

  SELECT sum(l_extendedprice * (1 - l_discount)) FROM <t>
  WHERE l_shipdate >= DATE '1995-03-01' AND l_shipdate < DATE '1995-04-01'

  weir-pruned  on `lineitem`: the query reads the one month's files (`--explain` reports
               the files read, recorded with the row)
  weir-full    on `flat`: the same query reads the table's file(s) whole

Ratio = weir-full median / weir-pruned median (> 1: pruning is that many times faster).
The partitioned import's time is recorded (extra.import_s) against the flat one's.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from typing import Any

from lib.common import fresh_dir, row, timed, weir_bin
from scenarios.pipeline import size_label, tpch_dir

SCENARIO = "partition"
TOOLS = ["weir-pruned", "weir-full"]
REFS = {"weir-full": "weir-pruned"}
SQL = ("SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue FROM {t} "
       "WHERE l_shipdate >= DATE '1995-03-01' AND l_shipdate < DATE '1995-04-01'")


def tier_config(tier: str) -> dict[str, Any]:
    if tier == "smoke":
        return {"sf": 0.01, "reps": 1}
    if tier == "quick":
        return {"sf": 0.1, "reps": 5}
    return {"sf": 1, "reps": 5}


def units(tier: str) -> list[dict[str, Any]]:
    cfg = tier_config(tier)
    # One unit builds both tables (the lake is the expensive part) and times both tools.
    return [{"scenario": SCENARIO, "tool": "weir-pruned", "sf": cfg["sf"], "reps": cfg["reps"]}]


def _weir_type(t: Any) -> str:
    import pyarrow as pa

    if pa.types.is_int64(t):
        return "Int64"
    if pa.types.is_int32(t):
        return "Int32"
    if pa.types.is_decimal(t):
        return f'"Decimal({t.precision}, {t.scale})"'
    if pa.types.is_date32(t):
        return "Date32"
    if pa.types.is_floating(t):
        return "Float64"
    return "String"


def _contract(path: str, schema: Any, partition_by: str | None) -> None:
    cols = "\n".join(f"    - {{name: {f.name}, type: {_weir_type(f.type)}}}" for f in schema)
    part = f"  partition_by: [{partition_by}]\n" if partition_by else ""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"contract:\n  name: lineitem\n  columns:\n{cols}\n{part}")


def _import(lake: str, src: str, table: str, contract: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([weir_bin(), "--lake", lake, "--no-progress", "import", src, "--table", table,
                    "--contract", contract], check=True, capture_output=True)
    return time.perf_counter() - t0


def run_unit(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    import weir

    sf, reps = u["sf"], u["reps"]
    src = os.path.join(tpch_dir(sf), "lineitem.parquet")
    root = fresh_dir(os.path.join(work, "partition"))
    lake = os.path.join(root, "lake")
    subprocess.run([weir_bin(), "init", lake], check=True, capture_output=True)
    schema = pq.read_schema(src)
    part_c, flat_c = os.path.join(root, "part.yml"), os.path.join(root, "flat.yml")
    _contract(part_c, schema, "month(l_shipdate)")
    _contract(flat_c, schema, None)
    import_part = _import(lake, src, "lineitem", part_c)
    import_flat = _import(lake, src, "flat", flat_c)
    client = weir.Client(lake)
    explain = {}
    for t in ("lineitem", "flat"):
        out = subprocess.run([weir_bin(), "--lake", lake, "query", SQL.format(t=t), "--explain", "--json"],
                             check=True, capture_output=True, text=True).stdout
        (explain[t],) = json.loads(out)["tables"]
    answers = {}
    rows = []
    for tool, t in (("weir-pruned", "lineitem"), ("weir-full", "flat")):
        def op(i: int, t: str = t) -> None:
            answers[t] = client.query(SQL.format(t=t)).column(0)[0].as_py()

        times = timed(op, reps)
        e = explain[t]
        rows.append(row(SCENARIO, "month_revenue", size_label(sf), tool, times, ref=REFS.get(tool),
                        note=f"{e['files_read']} of {e['files_total']} files read",
                        files_read=e["files_read"], files_total=e["files_total"],
                        import_s=import_part if t == "lineitem" else import_flat))
    client.close()
    assert answers["lineitem"] == answers["flat"], answers
    return rows
