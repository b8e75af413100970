"""The append-aware merge (issue 16, docs/versioning.md "Merge"): a table both sides only
appended to since the merge base keeps both sides' rows; anything else stays a conflict."""
from __future__ import annotations

import glob
import importlib
import json
import os

import pytest

from conftest import count, weir, weir_json, weir_list

pytestmark = pytest.mark.cli


def _csv(path, ids):
    path.write_text("id,kind\n" + "".join(f"{i},{'a' if i % 2 else 'b'}\n" for i in ids))
    return path


@pytest.fixture
def events(lake, tmp_path):
    """`events` (ids 1..3) on main, and branches a and b cut from there."""
    assert weir("import", _csv(tmp_path / "base.csv", range(1, 4)), "--table", "events", lake=lake).returncode == 0
    for b in ("a", "b"):
        assert weir("branch", "create", b, lake=lake).returncode == 0
    return lake


def _append(lake, tmp_path, branch, ids, mode="append"):
    f = _csv(tmp_path / f"{branch}-{ids[0]}.csv", ids)
    r = weir("import", f, "--table", "events", "--mode", mode, "--branch", branch, lake=lake)
    assert r.returncode == 0, r.stderr


def _ids(lake, ref="main"):
    r = weir("query", "SELECT id FROM events ORDER BY id", "--format", "json", "--ref", ref, lake=lake)
    assert r.returncode == 0, r.stderr
    return [row["id"] for row in json.loads(r.stdout)]


def _ext(name: str) -> str:
    mod = importlib.import_module(f"duckdb_extension_{name}")
    found = glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", "*", f"{name}.duckdb_extension"))
    assert found, f"the {name} extension file is missing"
    return found[0]


def test_both_sides_appended_merge_keeps_both(events, tmp_path):
    lake = events
    _append(lake, tmp_path, "a", [10, 11])
    _append(lake, tmp_path, "a", [12])
    _append(lake, tmp_path, "b", [20, 21, 22])
    assert weir("merge", "a", "--into", "main", lake=lake).returncode == 0  # fast-forward
    m = weir_json("merge", "b", "--into", "main", lake=lake)
    assert m["result"] == "merge"
    assert {t["table"]: t["change"] for t in m["tables"]} == {"default.events": "merged: appends"}
    assert _ids(lake) == [1, 2, 3, 10, 11, 12, 20, 21, 22]
    shown = weir_json("show", "main", lake=lake)
    assert len(shown["parents"]) == 2
    assert shown["properties"] == {"merged_appends": "default.events"}
    # Both sides are untouched, and the versions merged are still what they were.
    assert _ids(lake, "b") == [1, 2, 3, 20, 21, 22]
    assert _ids(lake, "a") == [1, 2, 3, 10, 11, 12]

    # Other engines read the merged version from its metadata file alone, and agree.
    from pyiceberg.table import StaticTable
    import duckdb

    d = weir_json("describe", "events", lake=lake)
    t = StaticTable.from_metadata(d["metadata_location"])
    assert sorted(t.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3, 10, 11, 12, 20, 21, 22]
    con = duckdb.connect()
    con.execute(f"LOAD '{_ext('avro')}'")
    con.execute(f"LOAD '{_ext('iceberg')}'")
    got = [r[0] for r in con.execute(f"SELECT id FROM iceberg_scan('{d['metadata_location']}') ORDER BY id").fetchall()]
    assert got == [1, 2, 3, 10, 11, 12, 20, 21, 22]
    snap = t.current_snapshot()
    assert snap.summary.operation.value == "append"
    assert snap.summary["weir.merged"] == "appends"


def test_merging_again_after_more_appends_on_both_sides(events, tmp_path):
    """The merged version is itself an append of the target's, so the next merge of the same
    branches combines again (the new merge base is the source's head merged before)."""
    lake = events
    _append(lake, tmp_path, "main", [4])
    _append(lake, tmp_path, "b", [20])
    assert weir("merge", "b", "--into", "main", lake=lake).returncode == 0
    _append(lake, tmp_path, "main", [5])
    _append(lake, tmp_path, "b", [21])
    m = weir_json("merge", "b", "--into", "main", lake=lake)
    assert [t["change"] for t in m["tables"]] == ["merged: appends"]
    assert _ids(lake) == [1, 2, 3, 4, 5, 20, 21]


def test_a_replace_on_one_side_is_still_a_conflict(events, tmp_path):
    lake = events
    _append(lake, tmp_path, "main", [4])
    _append(lake, tmp_path, "b", [20], mode="replace")
    head = weir_list("log", "-n", "1", lake=lake)[0]["hash"]
    r = weir("merge", "b", "--into", "main", "--json", lake=lake)
    assert r.returncode == 4, r.stderr
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == "MergeConflict"
    assert [d["table"] for d in doc["error"]["details"]] == ["default.events"]
    assert weir_list("log", "-n", "1", lake=lake)[0]["hash"] == head
    assert _ids(lake) == [1, 2, 3, 4]
    # ... in both directions: the replace is on the target's side.
    r = weir("merge", "main", "--into", "b", lake=lake)
    assert r.returncode == 4, r.stderr


def test_an_append_after_a_replace_is_still_a_conflict(events, tmp_path):
    """The chain since the base must be appends only: a replace followed by an append on one
    side removed base rows that the other side's append kept."""
    lake = events
    _append(lake, tmp_path, "main", [4])
    _append(lake, tmp_path, "b", [20], mode="replace")
    _append(lake, tmp_path, "b", [21])
    assert weir("merge", "b", "--into", "main", lake=lake).returncode == 4


def test_a_changed_contract_on_one_side_is_still_a_conflict(events, tmp_path):
    lake = events
    contract = tmp_path / "events.yaml"
    contract.write_text("contract:\n  name: events\n  version: 2\n  columns:\n"
                        "    - {name: id, type: Int64}\n    - {name: kind, type: String, nullable: true}\n")
    _append(lake, tmp_path, "main", [4])
    # An append never stores its own contract: a contract comes with a replace (of the same
    # rows and one more), so b's side is not appends only.
    r = weir("import", _csv(tmp_path / "c.csv", [1, 2, 3, 30]), "--table", "events", "--mode", "replace",
             "--contract", contract, "--branch", "b", lake=lake)
    assert r.returncode == 0, r.stderr
    assert weir("merge", "b", "--into", "main", lake=lake).returncode == 4


def test_a_strategy_does_not_override_appends(events, tmp_path):
    """Both sides' rows are kept even when a strategy is given: it resolves conflicts only,
    and combined appends are none."""
    lake = events
    _append(lake, tmp_path, "main", [4])
    _append(lake, tmp_path, "b", [20])
    m = weir_json("merge", "b", "--into", "main", "--strategy", "source-wins", lake=lake)
    assert [t["change"] for t in m["tables"]] == ["merged: appends"]
    assert _ids(lake) == [1, 2, 3, 4, 20]
    assert count(lake, "SELECT count(*) FROM events", ref="main~1") == 4
