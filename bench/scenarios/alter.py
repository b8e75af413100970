"""Scenario `alter`: the cost of a schema change (`weir alter`) as a table's history grows.

A fresh lake gets table `t` (two columns) and then `versions - 1` one-row appends through
the SDK, untimed: `versions` table versions, as many commits. Then each timed run is one
`Client.alter_table("t", rename=...)`, alternating `v` -> `w` and back (so every run is a
real schema change: a new schema id, one new metadata file, one commit). An alter reads
the current metadata file and writes one new one; it reads no manifest and no data file,
and the metadata file holds a bounded number of snapshots (weir.metadata.snapshots-max),
so its time should be flat in `versions` once the table has more versions than the
metadata keeps snapshots (100): compare the sizes' medians (1.0 is flat). The same unit also
times a one-row append on the same table (`append (1 row)`), the reference for what one
commit of that table costs on this machine at that moment.
"""
from __future__ import annotations

import os
from typing import Any

from lib.common import fresh_dir, row, timed

SCENARIO = "alter"
TOOLS = ["weir-py"]


def tier_config(tier: str) -> dict[str, Any]:
    if tier == "smoke":
        return {"versions": [2, 20], "reps": 2}
    if tier == "quick":
        return {"versions": [100, 1_000], "reps": 9}
    return {"versions": [100, 1_000, 10_000], "reps": 15}


def units(tier: str) -> list[dict[str, Any]]:
    cfg = tier_config(tier)
    return [{"scenario": SCENARIO, "tool": "weir-py", "versions": v, "reps": cfg["reps"]} for v in cfg["versions"]]


def build(root: str, versions: int) -> Any:
    """A fresh lake whose table `t` has `versions` versions (a create, then one-row appends)."""
    import pyarrow as pa

    import weir

    client = weir.Client.init(os.path.join(fresh_dir(root), "lake"))
    for k in range(versions):
        client.import_data("t", pa.table({"id": [k], "v": [k / 2.0]}), mode="create" if k == 0 else "append")
    return client


def run_unit(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    versions, reps = u["versions"], u["reps"]
    client = build(os.path.join(work, f"alter-{versions}"), versions)
    names = ["v", "w"]

    def op(i: int) -> None:
        k = i % 2  # the warm-up (i = -1, k = 1) renames v -> w; then w -> v, v -> w, ...
        old, new = names[(k + 1) % 2], names[k]
        res = client.alter_table("t", rename={old: new})
        assert res.column(new).field_id == 2, res

    times = timed(op, reps, warmup=1)
    meta_bytes = os.path.getsize(client.get_table("t").metadata_location)
    current = client.get_table("t").columns[1].name

    def append(i: int) -> None:
        import pyarrow as pa

        client.import_data("t", pa.table({"id": [i], current: [1.0]}), mode="append")

    append_times = timed(append, reps, warmup=1)
    client.close()
    size = f"{versions} versions"
    return [row(SCENARIO, "alter (rename)", size, "weir-py", times, versions=versions, metadata_bytes=meta_bytes),
            row(SCENARIO, "append (1 row)", size, "weir-py", append_times, versions=versions)]
