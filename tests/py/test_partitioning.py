"""Partitioned tables (docs/partitioning.md): Iceberg partition specs declared in contracts,
SQL model headers and @weir.model; data files per partition with partition values in the
manifests and summaries in the manifest list; partition evolution; reads pruned by
partition and column statistics (`weir query --explain`), as pyiceberg plans the same scan.
"""
from __future__ import annotations

import datetime as dt
import json
import pathlib

import pytest

from conftest import weir, weir_json

CSV = """id,ts,name,amount
1,2024-01-01 10:00:00,alpha,1.5
2,2024-01-01 23:59:59,beta,2.5
3,2024-01-02 00:00:00,gamma,3.5
4,2024-01-02 08:30:00,delta,
5,2024-01-03 12:00:00,eps,5.5
6,,zeta,6.5
"""

CONTRACT = """contract:
  name: events
  columns:
    - {name: id, type: Int64}
    - {name: ts, type: TimestampMicro, nullable: true}
    - {name: name, type: String}
    - {name: amount, type: Float64, nullable: true}
  partition_by: %s
"""


def _write(tmp: pathlib.Path, partition_by: str, csv: str = CSV) -> tuple[pathlib.Path, pathlib.Path]:
    c, d = tmp / "c.yml", tmp / "ev.csv"
    c.write_text(CONTRACT % partition_by)
    d.write_text(csv)
    return c, d


def _static(lake: pathlib.Path, table: str = "events"):
    from pyiceberg.table import StaticTable

    return StaticTable.from_metadata(weir_json("describe", table, lake=lake)["metadata_location"])


def _explain(lake: pathlib.Path, sql: str) -> dict:
    doc = weir_json("query", sql, "--explain", lake=lake)
    (t,) = doc["tables"]
    return t


@pytest.fixture
def events(lake: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    c, d = _write(tmp_path, "[day(ts), bucket(4, id)]")
    r = weir("import", d, "--table", "events", "--contract", c, lake=lake)
    assert r.returncode == 0, r.stderr
    return lake


def test_metadata_has_the_spec_and_manifests_the_partition_values(events):
    t = _static(events)
    meta = t.metadata
    assert meta.default_spec_id == 0 and meta.last_partition_id == 1001
    spec = t.spec()
    assert [(f.source_id, f.field_id, f.name, str(f.transform)) for f in spec.fields] == [
        (2, 1000, "ts_day", "day"), (1, 1001, "id_bucket", "bucket[4]")]
    files = [task.file for task in t.scan().plan_files()]
    # One file per (day, bucket) the rows fall in, with exactly that partition's rows.
    rows = t.scan().to_arrow().to_pylist()
    from pyiceberg.transforms import BucketTransform, DayTransform
    from pyiceberg.types import LongType, TimestampType

    bucket = BucketTransform(4).transform(LongType())
    day = DayTransform().transform(TimestampType())
    want = {}
    for r in rows:
        us = None if r["ts"] is None else int((r["ts"] - dt.datetime(1970, 1, 1)).total_seconds() * 1_000_000)
        key = (day(us) if us is not None else None, bucket(r["id"]))
        want[key] = want.get(key, 0) + 1
    got = {}
    for f in files:
        key = (f.partition[0], f.partition[1])
        assert key not in got, "one data file per partition here"
        got[key] = f.record_count
    assert got == want
    # The manifest list summarises each partition field over its manifest's files.
    (manifest,) = t.current_snapshot().manifests(t.io)
    assert manifest.partition_spec_id == 0
    days_summary, bucket_summary = manifest.partitions
    assert days_summary.contains_null and not bucket_summary.contains_null
    assert int.from_bytes(days_summary.lower_bound, "little") == 19723  # 2024-01-01
    assert int.from_bytes(days_summary.upper_bound, "little") == 19725  # 2024-01-03
    summary = t.current_snapshot().summary
    assert summary["changed-partition-count"] == str(len(files))


def test_pyiceberg_reads_the_same_rows(events):
    t = _static(events)
    theirs = sorted(t.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
    ours = json.loads(weir("query", "SELECT * FROM events ORDER BY id", "--format", "json", lake=events).stdout)
    assert [r["id"] for r in theirs] == [r["id"] for r in ours] == [1, 2, 3, 4, 5, 6]
    assert [r["name"] for r in theirs] == [r["name"] for r in ours]


def test_a_query_on_one_day_reads_only_that_days_files(events):
    sql = "SELECT id FROM events WHERE ts >= '2024-01-02' AND ts < '2024-01-03' ORDER BY id"
    plan = _explain(events, sql)
    t = _static(events)
    day_files = [task.file for task in t.scan().plan_files() if task.file.partition[0] == 19724]
    assert plan["files_total"] == len(list(t.scan().plan_files()))
    assert plan["files_read"] == len(day_files) and plan["files_read"] < plan["files_total"]
    assert plan["pruned_by_partition"] > 0
    # pyiceberg's scan planning picks the same files.
    planned = t.scan(row_filter="ts >= '2024-01-02T00:00:00' and ts < '2024-01-03T00:00:00'").plan_files()
    assert sorted(p.file.file_path for p in planned) == sorted(f.file_path for f in day_files)
    rows = json.loads(weir("query", sql, "--format", "json", lake=events).stdout)
    assert [r["id"] for r in rows] == [3, 4]
    text = weir("query", sql, "--explain", lake=events)
    assert text.returncode == 0
    assert f"default.events: {plan['files_read']} of {plan['files_total']} files read" in text.stdout


def test_bucket_pruning_uses_the_spec_hash(events):
    from pyiceberg.transforms import BucketTransform
    from pyiceberg.types import LongType

    b = BucketTransform(4).transform(LongType())(3)
    t = _static(events)
    in_bucket = [task.file for task in t.scan().plan_files() if task.file.partition[1] == b]
    plan = _explain(events, "SELECT * FROM events WHERE id = 3")
    # The bucket rules out other buckets; statistics rule out files of the bucket whose
    # id range misses 3.
    assert plan["pruned_by_partition"] == plan["files_total"] - len(in_bucket)
    assert plan["files_read"] == 1
    assert json.loads(weir("query", "SELECT name FROM events WHERE id = 3", "--format", "json",
                           lake=events).stdout) == [{"name": "gamma"}]
    # A range on a bucketed column cannot use the buckets (they keep no order).
    plan = _explain(events, "SELECT * FROM events WHERE id > 100")
    assert plan["pruned_by_partition"] == 0 and plan["files_read"] == 0


def test_null_partitions_and_null_counts(events):
    plan = _explain(events, "SELECT * FROM events WHERE ts IS NULL")
    assert plan["files_read"] == 1
    assert json.loads(weir("query", "SELECT id FROM events WHERE ts IS NULL", "--format", "json",
                           lake=events).stdout) == [{"id": 6}]
    # amount has a null in one file: IS NULL keeps exactly the files whose null count is not 0.
    rows = json.loads(weir("query", "SELECT id FROM events WHERE amount IS NULL", "--format", "json",
                           lake=events).stdout)
    assert rows == [{"id": 4}]
    assert _explain(events, "SELECT * FROM events WHERE amount IS NULL")["files_read"] >= 1


def test_conditions_that_cannot_be_proved_read_every_file(events):
    total = _explain(events, "SELECT * FROM events")["files_total"]
    for sql in ["SELECT * FROM events WHERE id + 0 = 3",            # a function of the column
                "SELECT * FROM events WHERE id = 3 OR name = 'x'",  # an OR over columns
                "SELECT * FROM events WHERE id = 2.5",              # no exact Int64 constant
                "SELECT * FROM events a JOIN events b USING (id) WHERE a.id = 3"]:  # two references
        plan = _explain(events, sql)
        assert plan["files_read"] == total, sql
    assert json.loads(weir("query", "SELECT count(*) AS n FROM events a JOIN events b USING (id) WHERE a.id = 3",
                           "--format", "json", lake=events).stdout) == [{"n": 1}]


def test_partition_evolution_keeps_old_files_in_their_spec(events, tmp_path):
    c, d = _write(tmp_path, "[month(ts)]", csv="id,ts,name,amount\n7,2024-02-10 00:00:00,eta,7.5\n")
    r = weir("import", d, "--table", "events", "--mode", "append", "--contract", c, lake=events)
    assert r.returncode == 0, r.stderr
    t = _static(events)
    assert t.metadata.default_spec_id == 1
    assert [s.spec_id for s in t.metadata.partition_specs] == [0, 1]
    (month,) = t.specs()[1].fields
    assert (month.field_id, month.name, str(month.transform)) == (1002, "ts_month", "month")
    by_spec = {}
    for task in t.scan().plan_files():
        by_spec.setdefault(task.file.spec_id, []).append(task.file)
    assert sorted(by_spec) == [0, 1] and len(by_spec[1]) == 1
    assert t.scan().to_arrow().num_rows == 7
    # Pruning works across both specs: February is one file of spec 1.
    plan = _explain(events, "SELECT * FROM events WHERE ts >= '2024-02-01'")
    assert plan["files_read"] == 1
    assert json.loads(weir("query", "SELECT id FROM events WHERE ts >= '2024-02-01'", "--format", "json",
                           lake=events).stdout) == [{"id": 7}]
    # An append without partition_by keeps the table's current spec.
    (tmp_path / "more.csv").write_text("id,ts,name,amount\n8,2024-03-01 00:00:00,theta,8.5\n")
    r = weir("import", tmp_path / "more.csv", "--table", "events", "--mode", "append", lake=events)
    assert r.returncode == 0, r.stderr
    t = _static(events)
    assert t.metadata.default_spec_id == 1 and len(t.metadata.partition_specs) == 2
    assert {task.file.spec_id for task in t.scan(row_filter="id = 8").plan_files()} == {1}


@pytest.mark.parametrize("partition_by, message", [
    ("[day(id)]", 'transform day cannot apply to column "id" of type Int64'),
    ("[bucket(0, id)]", "bucket(0, ...)"),
    ("[week(ts)]", 'unknown partition transform "week"'),
    ("[day(when)]", 'names column "when", which is not declared'),
    ("[hour(name)]", "hour cannot apply"),
])
def test_bad_partition_declarations_name_file_and_line(lake, tmp_path, partition_by, message):
    c, d = _write(tmp_path, partition_by)
    r = weir("import", d, "--table", "events", "--contract", c, lake=lake)
    assert r.returncode != 0
    assert f"{c}:8:" in r.stderr and message in r.stderr, r.stderr
    assert weir("describe", "events", lake=lake).returncode != 0  # nothing written


def test_sql_model_header_partitions_the_output(events, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "daily.sql").write_text("-- weir: partition_by=day(ts), bucket(2, id)\n"
                                    "SELECT id, ts, name FROM events\n")
    r = weir("run", proj, lake=events)
    assert r.returncode == 0, r.stderr
    t = _static(events, "daily")
    assert [str(f.transform) for f in t.spec().fields] == ["day", "bucket[2]"]
    assert _explain(events, "SELECT * FROM daily WHERE ts >= '2024-01-03'")["files_read"] == 1


def test_sql_model_header_errors_name_file_and_line(events, tmp_path):
    proj = tmp_path / "bad"
    proj.mkdir()
    (proj / "a.sql").write_text("-- weir: name=a\n-- weir: partition_by=month(name)\nSELECT id, name FROM events\n")
    (proj / "b.sql").write_text("-- weir: partition_by=bucket(0, id)\nSELECT id FROM events\n")
    (proj / "c.sql").write_text("-- weir: partition_by=day(missing)\nSELECT id, ts FROM events\n")
    r = weir("check", proj, "--json", lake=events)
    assert r.returncode == 3, r.stderr
    msgs = "\n".join(p["message"] for p in json.loads(r.stdout)["error"]["details"])
    assert 'a.sql:2: model a: partition_by: transform month cannot apply to column "name" of type String' in msgs
    assert "b.sql:1:" in msgs and "positive integer" in msgs
    assert 'c.sql:1: model c: partition_by day(missing) names column "missing"' in msgs


def test_python_model_decorator_partitions_the_output(events, tmp_path):
    proj = tmp_path / "py"
    proj.mkdir()
    (proj / "models.py").write_text(
        "from typing import Annotated\n"
        "import pyarrow as pa\n"
        "import weir\n\n\n"
        "@weir.model(partition_by=['identity(name)'])\n"
        "def by_name(src: Annotated[pa.Table, weir.Model('events')]) -> pa.Table:\n"
        "    return src.select(['id', 'name'])\n")
    r = weir("run", proj, lake=events)
    assert r.returncode == 0, r.stderr
    t = _static(events, "by_name")
    assert [(f.name, str(f.transform)) for f in t.spec().fields] == [("name", "identity")]
    assert len(list(t.scan().plan_files())) == 6
    plan = _explain(events, "SELECT * FROM by_name WHERE name = 'gamma'")
    assert plan["files_read"] == 1 and plan["pruned_by_partition"] == 5


def test_compaction_leaves_partitioned_files_alone(events, tmp_path):
    for i in range(3):
        (tmp_path / f"a{i}.csv").write_text(f"id,ts,name,amount\n{10 + i},2024-01-01 01:00:00,x,1.0\n")
        assert weir("import", tmp_path / f"a{i}.csv", "--table", "events", "--mode", "append",
                    lake=events).returncode == 0
    before = _static(events)
    r = weir("compact", "events", lake=events)
    assert r.returncode == 0, r.stderr
    assert "partitioned" in r.stdout + r.stderr
    after = _static(events)
    assert after.metadata.current_snapshot_id == before.metadata.current_snapshot_id
    assert after.scan().to_arrow().num_rows == 9


def test_python_table_schema_declares_partition_by(lake, tmp_path):
    import pyarrow as pa

    import weir
    from weir import Int64, String, TableSchema, TimestampMicro

    class Events(TableSchema, partition_by=["day(ts)", "truncate(2, name)"]):
        id: Int64
        ts: TimestampMicro
        name: String

    assert Events.to_ir()["partition_by"] == ["day(ts)", "truncate(2, name)"]
    data = pa.table({"id": [1, 2, 3], "name": ["alpha", "alps", "beta"],
                     "ts": pa.array([dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 2)],
                                    pa.timestamp("us"))})
    with weir.Client(lake) as c:
        c.import_data("ev", data, contract=Events)
    t = _static(lake, "ev")
    assert [str(f.transform) for f in t.spec().fields] == ["day", "truncate[2]"]
    assert sorted((task.file.partition[0], task.file.partition[1]) for task in t.scan().plan_files()) == [
        (19723, "al"), (19724, "be")]

    class Bad(TableSchema, partition_by=["bucket(0, id)"]):
        id: Int64

    with weir.Client(lake) as c, pytest.raises(weir.WeirError, match="positive integer"):
        c.import_data("bad", pa.table({"id": [1]}), contract=Bad)


def test_appends_on_two_branches_merge_with_their_partitions(events, tmp_path):
    assert weir("branch", "create", "b", lake=events).returncode == 0
    (tmp_path / "b.csv").write_text("id,ts,name,amount\n20,2024-01-05 00:00:00,on_b,1.0\n")
    (tmp_path / "m.csv").write_text("id,ts,name,amount\n21,2024-01-06 00:00:00,on_main,1.0\n")
    assert weir("import", tmp_path / "b.csv", "--table", "events", "--mode", "append", "--branch", "b",
                lake=events).returncode == 0
    assert weir("import", tmp_path / "m.csv", "--table", "events", "--mode", "append", lake=events).returncode == 0
    r = weir("merge", "b", "--into", "main", lake=events)
    assert r.returncode == 0, r.stderr
    t = _static(events)
    assert t.scan().to_arrow().num_rows == 8
    assert {task.file.spec_id for task in t.scan().plan_files()} == {0}
    (f,) = [task.file for task in t.scan(row_filter="id = 20").plan_files()]
    assert f.partition[0] == 19727  # 2024-01-05: the partition value came along
    assert _explain(events, "SELECT * FROM events WHERE ts >= '2024-01-05'")["files_read"] == 2


def test_missing_statistics_are_unknown_and_prune_nothing(lake, tmp_path):
    """A file registered by reference whose footer has no statistics has no bounds or null
    counts in its manifest entry: no condition can rule it out (no null count is not "no
    nulls")."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "t.csv").write_text("id,amount\n1,1.5\n2,2.5\n")
    assert weir("import", tmp_path / "t.csv", "--table", "t", lake=lake).returncode == 0
    fields = [pa.field("id", pa.int64(), metadata={b"PARQUET:field_id": b"1"}),
              pa.field("amount", pa.float64(), metadata={b"PARQUET:field_id": b"2"})]
    ext = tmp_path / "ext"
    ext.mkdir()
    pq.write_table(pa.table({"id": [99], "amount": [None]}, schema=pa.schema(fields)), ext / "nostats.parquet",
                   write_statistics=False)
    r = weir("import", ext / "nostats.parquet", "--table", "t", "--register", lake=lake)
    assert r.returncode == 0, r.stderr
    total = _explain(lake, "SELECT * FROM t")["files_total"]
    assert total == 2
    (reg,) = [task.file for task in _static(lake, "t").scan().plan_files() if "nostats" in task.file.file_path]
    assert not reg.null_value_counts and not reg.lower_bounds and not reg.upper_bounds
    for sql, rows in [("SELECT id FROM t WHERE id = 99", [{"id": 99}]),
                      ("SELECT id FROM t WHERE amount IS NULL", [{"id": 99}]),
                      ("SELECT id FROM t WHERE id > 50", [{"id": 99}])]:
        plan = _explain(lake, sql)
        assert plan["files_read"] >= 1 and plan["pruned_by_stats"] <= 1, (sql, plan)
        assert json.loads(weir("query", sql, "--format", "json", lake=lake).stdout) == rows, sql
    # The file weir wrote has statistics: IS NULL rules it out (its null count is 0).
    assert _explain(lake, "SELECT id FROM t WHERE amount IS NULL")["files_read"] == 1


def test_a_delete_keeps_each_rewritten_files_partition(events, tmp_path):
    """weir delete on a partitioned table crashed (the rewritten file had no partition tuple
    for the table's spec): a rewritten file keeps the tuple of the file it replaces, pruning
    still reads one day's files, and pyiceberg reads the same rows. Rows in files of two
    specs are refused in one delete, naming both specs, nothing written."""
    before = _static(events).scan().to_arrow().num_rows
    r = weir("delete", "events", "--where", "id IN (1, 4)", lake=events)
    assert r.returncode == 0, r.stderr
    t = _static(events)
    rows = t.scan().to_arrow().to_pylist()
    assert len(rows) == before - 2 and {1, 4}.isdisjoint(r["id"] for r in rows)
    assert all(task.file.spec_id == 0 and len(task.file.partition) == 2 for task in t.scan().plan_files())
    assert _explain(events, "SELECT * FROM events WHERE ts >= '2024-01-03'")["files_read"] == 1
    c, d = _write(tmp_path, "[month(ts)]", csv="id,ts,name,amount\n7,2024-02-10 00:00:00,eta,7.5\n")
    assert weir("import", d, "--table", "events", "--mode", "append", "--contract", c, lake=events).returncode == 0
    head = weir_json("describe", "events", lake=events)["metadata_location"]
    r = weir("delete", "events", "--where", "id IN (5, 7)", lake=events)
    assert r.returncode == 1, r.stderr
    assert "the rows to delete are in files of two partition specs (0 and 1)" in r.stderr, r.stderr
    assert weir_json("describe", "events", lake=events)["metadata_location"] == head
    r = weir("delete", "events", "--where", "id = 7", lake=events)  # one spec's files: fine
    assert r.returncode == 0, r.stderr
    assert [x["id"] for x in _static(events).scan().to_arrow().to_pylist() if x["id"] == 7] == []


def test_registering_a_loose_file_into_a_partitioned_table_is_refused(events, tmp_path):
    """A loose Parquet file has no partition tuple: registered, it silently made the table's
    default spec an unpartitioned one. Refused, pointing at an import by copy."""
    out = tmp_path / "x.parquet"
    r = weir("query", "SELECT * FROM events WHERE id = 1", "--output", out, "--format", "parquet", lake=events)
    assert r.returncode == 0, r.stderr
    before = weir_json("describe", "events", lake=events)["metadata_location"]
    r = weir("import", "--register", out, "--table", "events", "--mode", "append", lake=events)
    assert r.returncode == 1, r.stderr
    assert "the table is partitioned (spec 0: day(ts), ...) and a loose Parquet file has no partition tuple" in r.stderr
    assert weir_json("describe", "events", lake=events)["metadata_location"] == before
    assert _static(events).metadata.default_spec_id == 0
