"""Row-level deletes (`weir delete TABLE --where SQL`, Client.delete_rows): copy-on-write of
the files holding the rows, pruned by column statistics; one commit; contracts, the
serializable rule, merges, time travel, and what pyiceberg reads (docs/versioning.md,
"Deletes"; docs/iceberg.md)."""

from __future__ import annotations

import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import weir as sdk
from conftest import count, weir, weir_json, weir_list


def _csv(path: pathlib.Path, ids: range) -> pathlib.Path:
    lines = ["id,v,s,flag"] + [f"{i},{i * 1.5},x{i:04d},{'true' if i % 2 else 'false'}" for i in ids]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def events(lake: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    """Table `events`: three data files, ids 0-99, 100-199 and 200-299."""
    for k in range(3):
        mode = ["--mode", "append"] if k else []
        r = weir("import", _csv(tmp_path / f"e{k}.csv", range(100 * k, 100 * (k + 1))), "--table", "events", *mode,
                 lake=lake)
        assert r.returncode == 0, r.stderr
    return lake


def _head(lake: pathlib.Path) -> str:
    return weir_list("log", "-n", "1", lake=lake)[0]["hash"]


def _metadata(lake: pathlib.Path, table: str = "events", ref: str = "main") -> str:
    return weir_json("describe", table, "--ref", ref, lake=lake)["metadata_location"]


def _static(path: str):
    from pyiceberg.table import StaticTable

    return StaticTable.from_metadata(path)


@pytest.mark.cli
def test_delete_ten_rows_head_previous_commit_and_pyiceberg(events: pathlib.Path) -> None:
    before = _head(events)
    old_meta = _metadata(events)
    doc = weir_json("delete", "events", "--where", "id >= 100 AND id < 110", lake=events)
    assert doc["deleted"] and doc["rows_deleted"] == 10 and doc["rows_before"] == 300 and doc["rows_after"] == 290
    # Only the file holding ids 100-199 could match: the other two are ruled out by their bounds.
    assert (doc["files_before"], doc["files_pruned"], doc["files_scanned"], doc["files_rewritten"]) == (3, 2, 1, 1)
    assert doc["base"] == before and doc["commit"] == _head(events)
    # Head has them gone, the previous commit still has them.
    assert count(events, "SELECT count(*) FROM events WHERE id >= 100 AND id < 110") == 0
    assert count(events, "SELECT count(*) FROM events") == 290
    assert count(events, "SELECT count(*) FROM events WHERE id >= 100 AND id < 110", ref=before) == 10
    assert count(events, "SELECT count(*) FROM events", ref="main~1") == 300
    # The commit records the rows deleted.
    show = weir_json("show", "main", lake=events)
    props = show["properties"]
    assert props["weir.delete"] == "default.events" and props["weir.rows-deleted"] == "10"
    assert props["weir.delete.where"] == "id >= 100 AND id < 110"
    # pyiceberg reads the same: 290 rows at head, 300 at the previous metadata file.
    head_t = _static(_metadata(events))
    ids = sorted(head_t.scan().to_arrow().column("id").to_pylist())
    assert ids == [i for i in range(300) if not 100 <= i < 110]
    assert _static(old_meta).scan().to_arrow().num_rows == 300
    snap = head_t.current_snapshot()
    s = snap.summary
    assert s.operation.value == "overwrite"
    assert (s["deleted-data-files"], s["deleted-records"], s["added-data-files"], s["added-records"]) == ("1", "100",
                                                                                                         "1", "90")
    assert s["total-records"] == "290" and s["total-data-files"] == "3"
    assert s["weir.operation"] == "delete" and s["weir.rows-deleted"] == "10"
    # The untouched files are referenced as they were: the same paths as before.
    old_files = {t.file.file_path for t in _static(old_meta).scan().plan_files()}
    new_files = {t.file.file_path for t in head_t.scan().plan_files()}
    assert len(old_files & new_files) == 2 and len(new_files - old_files) == 1


@pytest.mark.cli
@pytest.mark.parametrize("where", [
    "id < 5",
    "id = 150",
    "150 = id",
    "id IN (3, 250, 1000)",
    "id BETWEEN 95 AND 104",
    "id > 290 OR id < 2",
    "s >= 'x0298'",
    "s = 'x0007' AND id = 7",
    "v < 3.0",
    "v = 3.0",
    "id + 0 = 42",          # a shape pruning does not follow: every file is read
    "flag AND id < 10",     # a Bool column: not pruned
    "id < 4.5",             # a decimal constant against an integer column
    "NOT (id >= 3)",
])
def test_delete_removes_exactly_what_sql_would(events: pathlib.Path, where: str) -> None:
    """Whatever the statistics pruned, the rows left are those SQL keeps (NULL keeps a row)."""
    expected = count(events, f"SELECT count(*) FROM events WHERE NOT COALESCE(({where}), false)")
    doc = weir_json("delete", "events", "--where", where, lake=events)
    assert doc["rows_deleted"] == 300 - expected
    assert doc["files_pruned"] + doc["files_scanned"] == 3
    assert count(events, "SELECT count(*) FROM events") == expected
    assert count(events, f"SELECT count(*) FROM events WHERE COALESCE(({where}), false)") == 0


@pytest.mark.cli
def test_pruning_uses_statistics_and_reads_what_they_cannot_rule_out(events: pathlib.Path) -> None:
    assert weir_json("delete", "events", "--where", "id = 250", lake=events)["files_pruned"] == 2
    assert weir_json("delete", "events", "--where", "id = 251 OR id = 5", lake=events)["files_pruned"] == 1
    # A function of the column proves nothing: every file is read.
    assert weir_json("delete", "events", "--where", "abs(id) = 7", lake=events)["files_scanned"] == 3
    # No nulls in id (the null counts are known), so IS NULL reads nothing and deletes nothing.
    doc = weir_json("delete", "events", "--where", "id IS NULL", lake=events)
    assert (doc["files_pruned"], doc["deleted"], doc["commit"]) == (3, False, None)


@pytest.mark.cli
def test_missing_statistics_mean_unknown(lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """A file registered without column statistics is read, not skipped."""
    (tmp_path / "first.csv").write_text("id\n100\n")
    assert weir("import", tmp_path / "first.csv", "--table", "ext", lake=lake).returncode == 0
    f = tmp_path / "ext.parquet"
    field = pa.field("id", pa.int64(), metadata={"PARQUET:field_id": "1"})  # the table's id column
    pq.write_table(pa.table([pa.array([1, 2, 3], pa.int64())], schema=pa.schema([field])), f,
                   write_statistics=False)
    r = weir("import", f, "--table", "ext", "--register", lake=lake)
    assert r.returncode == 0, r.stderr
    tasks = {t.file.file_path: t.file for t in _static(_metadata(lake, "ext")).scan().plan_files()}
    assert sorted(bool(t.lower_bounds) for t in tasks.values()) == [False, True], "one file has no bounds"
    doc = weir_json("delete", "ext", "--where", "id = 2", lake=lake)
    assert (doc["files_pruned"], doc["files_scanned"], doc["rows_deleted"]) == (1, 1, 1)


@pytest.mark.cli
def test_deleting_every_row_of_a_file_drops_it(events: pathlib.Path) -> None:
    doc = weir_json("delete", "events", "--where", "id < 100", lake=events)
    assert (doc["files_dropped"], doc["files_rewritten"], doc["files_written"]) == (1, 0, 0)
    s = _static(_metadata(events)).current_snapshot().summary
    assert s.operation.value == "delete" and s["deleted-records"] == "100" and s["added-records"] == "0"
    doc = weir_json("delete", "events", "--where", "true", lake=events)
    assert doc["rows_after"] == 0 and count(events, "SELECT count(*) FROM events") == 0


@pytest.mark.cli
def test_no_matching_row_is_a_reported_noop(events: pathlib.Path) -> None:
    before = _head(events)
    r = weir("delete", "events", "--where", "id > 1000", lake=events)
    assert r.returncode == 0 and "Nothing deleted from default.events: no row matches" in r.stdout
    assert _head(events) == before


@pytest.mark.cli
@pytest.mark.parametrize(("where", "says"), [
    ("id > 5; DROP TABLE events", "is not one SQL expression"),
    ("id > 5) OR (true", "is not one SQL expression"),
    ("SELECT 1", "is not one SQL expression"),
    ("nope > 1", 'Referenced column "nope" not found'),
    ("id + 1", "is not a condition: it is Int64, not Bool"),
    ("(SELECT count(*) FROM read_csv('/etc/passwd')) > 0", "file system operations are disabled"),
    ("id >", "is not one SQL expression"),
])
def test_bad_predicates_are_clear_errors_and_write_nothing(events: pathlib.Path, where: str, says: str) -> None:
    before = _head(events)
    r = weir("delete", "events", "--where", where, lake=events)
    assert r.returncode == 1, r.stderr
    assert f'--where "{where}"' in r.stderr and says in r.stderr, r.stderr
    assert _head(events) == before


@pytest.mark.cli
def test_usage_errors(events: pathlib.Path) -> None:
    r = weir("delete", "events", lake=events)
    assert r.returncode == 2 and "--where" in r.stderr
    r = weir("delete", "nosuch", "--where", "true", lake=events)
    assert r.returncode == 1 and "nosuch" in r.stderr


@pytest.mark.cli
def test_a_delete_that_breaks_a_table_rule_is_refused(lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    contract = tmp_path / "c.yml"
    contract.write_text("""contract:
  name: keep150
  columns:
    - {name: id, type: Int64}
    - {name: v, type: Float64}
    - {name: s, type: String}
    - {name: flag, type: Bool}
  rules:
    - name: at_least_150
      sql: "SELECT COUNT(*) FROM {table}"
      op: ">="
      threshold: 150
""")
    r = weir("import", _csv(tmp_path / "a.csv", range(200)), "--table", "t", "--contract", contract, lake=lake)
    assert r.returncode == 0, r.stderr
    before = _head(lake)
    data = pathlib.Path(_metadata(lake, "t")).parent.parent / "data"
    files_before = set(data.iterdir())
    r = weir("delete", "t", "--where", "id < 100", lake=lake)
    assert r.returncode == 3, r.stderr
    assert "at_least_150" in r.stderr and "returned 100, expected >= 150" in r.stderr and "nothing was written" in r.stderr
    assert _head(lake) == before and set(data.iterdir()) == files_before
    # Within the rule, the delete is committed.
    assert weir_json("delete", "t", "--where", "id < 50", lake=lake)["rows_after"] == 150


@pytest.mark.cli
def test_a_delete_conflicts_when_the_table_changed_since_its_base(events: pathlib.Path, tmp_path: pathlib.Path) -> None:
    base = _head(events)
    assert weir("import", _csv(tmp_path / "more.csv", range(300, 310)), "--table", "events", "--mode", "append",
                lake=events).returncode == 0
    head = _head(events)
    # Decided at the base (where it matches 5 rows), it would never see the appended ones.
    r = weir("delete", "events", "--where", "id >= 295", "--expect-head", base, "--json", lake=events)
    assert r.returncode == 4, r.stderr
    err = json.loads(r.stdout)["error"]
    assert err["code"] == "ConcurrentUpdate"
    assert "a delete never removes rows it did not read" in err["message"]
    assert [d["table"] for d in err["details"]] == ["default.events"]
    assert _head(events) == head
    # Against the new head it lands, and deletes the appended rows too.
    assert weir_json("delete", "events", "--where", "id >= 295", "--expect-head", head, lake=events)["rows_deleted"] == 15


@pytest.mark.cli
def test_a_compaction_since_the_base_refuses_a_delete_whose_files_it_rewrote(events: pathlib.Path) -> None:
    """Only compactions since the base: the rows are the same, but the files the delete
    read are gone into others; it is refused, not applied to files it never read."""
    base = _head(events)
    assert weir_json("compact", "events", lake=events)["compacted"]
    r = weir("delete", "events", "--where", "id < 5", "--expect-head", base, lake=events)
    assert r.returncode == 4 and "was compacted" in r.stderr, r.stderr
    assert weir_json("delete", "events", "--where", "id < 5", lake=events)["rows_deleted"] == 5


@pytest.mark.cli
def test_an_unrelated_table_changing_does_not_stop_a_delete(events: pathlib.Path, tmp_path: pathlib.Path) -> None:
    base = _head(events)
    assert weir("import", _csv(tmp_path / "o.csv", range(3)), "--table", "other", lake=events).returncode == 0
    assert weir_json("delete", "events", "--where", "id < 3", "--expect-head", base, lake=events)["deleted"]


def test_merge_delete_against_append_is_a_conflict_that_says_so(events: pathlib.Path, tmp_path: pathlib.Path) -> None:
    assert weir("branch", "create", "dev", lake=events).returncode == 0
    assert weir_json("delete", "events", "--where", "id < 10", "--branch", "dev", lake=events)["rows_deleted"] == 10
    assert weir("import", _csv(tmp_path / "m.csv", range(300, 305)), "--table", "events", "--mode", "append",
                lake=events).returncode == 0
    r = weir("merge", "dev", "--into", "main", "--json", lake=events)
    assert r.returncode == 4
    err = json.loads(r.stdout)["error"]
    assert err["code"] == "MergeConflict"
    (c,) = err["details"]
    assert c["table"] == "default.events" and "the source deleted rows from it (weir delete)" in c["reason"]
    assert "--strategy" in err["message"] and "deleted rows" in err["message"]
    # The SDK's record carries the reason too.
    with pytest.raises(sdk.MergeConflict) as e:
        sdk.Client(events).merge("dev", into_branch="main")
    assert "deleted rows" in (e.value.conflicts[0].reason or "")


@pytest.mark.cli
def test_merge_of_a_delete_alone_takes_it(events: pathlib.Path) -> None:
    assert weir("branch", "create", "dev", lake=events).returncode == 0
    assert weir_json("delete", "events", "--where", "id < 10", "--branch", "dev", lake=events)["deleted"]
    assert weir("merge", "dev", "--into", "main", lake=events).returncode == 0
    assert count(events, "SELECT count(*) FROM events") == 290


def test_sdk_delete_rows(events: pathlib.Path) -> None:
    c = sdk.Client(events)
    res = c.delete_rows("events", where="id < 10")
    assert isinstance(res, sdk.DeleteResult) and res.rows_deleted == 10 and res.deleted and res.commit
    assert c.delete_rows("events", where="id < 10").deleted is False
    with pytest.raises(TypeError):
        c.delete_rows("events", "id < 10")  # type: ignore[misc] - keyword-only
    with pytest.raises(TypeError):
        c.delete_rows("events", where=5)  # type: ignore[arg-type]
    with pytest.raises(sdk.InvalidInput, match="nope"):
        c.delete_rows("events", where="nope = 1")
    with pytest.raises(sdk.InvalidArgument, match="--where"):
        c.delete_rows("events", where="")
    base = c.delete_rows("events", where="id = 20").commit
    c.delete_rows("events", where="id = 21")
    with pytest.raises(sdk.ConcurrentUpdate):
        c.delete_rows("events", where="id = 22", expect_head=base)


@pytest.mark.cli
def test_protected_branch_refuses_a_delete(events: pathlib.Path) -> None:
    assert weir("branch", "protect", "main", lake=events).returncode == 0
    r = weir("delete", "events", "--where", "id < 3", lake=events)
    assert r.returncode == 2 and "protected" in r.stderr


@pytest.mark.cli
def test_nanosecond_table_delete_keeps_v3_row_lineage(lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    f = tmp_path / "ns.parquet"
    base_ns = 1706702400123456789
    pq.write_table(pa.table({"id": pa.array(range(10), pa.int64()),
                             "ts": pa.array([base_ns + i * 1000000001 for i in range(10)], pa.timestamp("ns"))}), f)
    assert weir("import", f, "--table", "ns", lake=lake).returncode == 0
    first = json.loads(pathlib.Path(_metadata(lake, "ns")).read_text())
    assert first["format-version"] == 3 and first["next-row-id"] == 10
    assert weir_json("delete", "ns", "--where", "ts = '2024-01-31 12:00:03.123456792'::TIMESTAMP_NS",
                     lake=lake)["rows_deleted"] == 1
    meta = json.loads(pathlib.Path(_metadata(lake, "ns")).read_text())
    snap = meta["snapshots"][-1]
    assert meta["format-version"] == 3
    assert snap["first-row-id"] == 10 and meta["next-row-id"] == 10 + snap["added-rows"]
    got = _static(_metadata(lake, "ns")).scan().to_arrow()
    assert sorted(got.column("ts").cast(pa.int64()).to_pylist()) == [base_ns + i * 1000000001 for i in range(10) if i != 3]


# ---- Spark (Iceberg's runtime reading weir's metadata files) -----------------------------------


def test_spark_reads_the_delete_and_the_version_before(events: pathlib.Path) -> None:
    """Spark 3.5 with Iceberg 1.10 opens the metadata files: 290 rows at head, the 10
    deleted ones still at the previous version, and the snapshot is an overwrite."""
    from conftest import spark_jars

    jars = spark_jars()
    from pyspark.sql import SparkSession

    old_meta = _metadata(events)
    assert weir_json("delete", "events", "--where", "id >= 100 AND id < 110", lake=events)["rows_deleted"] == 10
    new_meta = _metadata(events)
    spark = (SparkSession.builder.master("local[1]").appName("weir-delete-test").config("spark.jars", jars)
             .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
             .config("spark.driver.memory", "1g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        head = sorted(r["id"] for r in spark.read.format("iceberg").load(new_meta).select("id").collect())
        assert head == [i for i in range(300) if not 100 <= i < 110]
        before = spark.read.format("iceberg").load(old_meta)
        assert before.count() == 300 and before.where("id >= 100 AND id < 110").count() == 10
        snaps = spark.read.format("iceberg").load(new_meta + "#snapshots").orderBy("committed_at").collect()
        assert snaps[-1]["operation"] == "overwrite"
        assert snaps[-1]["summary"]["deleted-records"] == "100" and snaps[-1]["summary"]["added-records"] == "90"
    finally:
        spark.stop()


# ---- races: a delete stopped before its commit (failpoint build) --------------------------------


def _failpoints_built() -> bool:
    from conftest import BUILD

    cache = BUILD / "CMakeCache.txt"
    return cache.exists() and "WEIR_FAILPOINTS:BOOL=ON" in cache.read_text()


def _stopped_delete(lake: pathlib.Path, where: str):
    """`weir delete events --where WHERE` stopped (SIGSTOP at delete.data.after) with its files
    written, before its commit; the kernel's report of the stop is the hand-off."""
    import os
    import subprocess

    from conftest import weir_bin

    if not _failpoints_built():
        if os.environ.get("WEIR_REQUIRE_FAILPOINTS"):  # make test-asan: there they must run
            pytest.fail("these tests need the failpoint build (make test-asan)")
        pytest.skip("needs the failpoint build (make test-asan runs it)")
    env = dict(os.environ, WEIR_AUTHOR="tester", WEIR_FAILPOINTS="delete.data.after:stop", ASAN_OPTIONS="detect_leaks=0")
    proc = subprocess.Popen([str(weir_bin()), "--lake", str(lake), "delete", "events", "--where", where, "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status = os.waitpid(proc.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    return proc


def _resume(proc):
    import os
    import signal

    os.kill(proc.pid, signal.SIGCONT)
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


@pytest.mark.cli
def test_an_append_landing_before_the_delete_commits_refuses_it(events: pathlib.Path, tmp_path: pathlib.Path) -> None:
    data = pathlib.Path(_metadata(events)).parent.parent / "data"
    before = set(data.iterdir())
    proc = _stopped_delete(events, "id >= 295")
    written = set(data.iterdir()) - before  # the stopped delete's rewrite
    assert len(written) == 1
    assert weir("import", _csv(tmp_path / "late.csv", range(300, 310)), "--table", "events", "--mode", "append",
                lake=events).returncode == 0
    head = _head(events)
    files = set(data.iterdir()) - written
    rc, out, err = _resume(proc)
    assert rc == 4, err
    doc = json.loads(out)["error"]
    assert doc["code"] == "ConcurrentUpdate" and "a delete never removes rows it did not read" in doc["message"]
    # Nothing of it landed: the head is the append, every row is there, its files are gone.
    assert _head(events) == head and count(events, "SELECT count(*) FROM events") == 310
    assert set(data.iterdir()) == files


@pytest.mark.cli
def test_another_table_changing_before_the_delete_commits_lets_it_land(events: pathlib.Path,
                                                                        tmp_path: pathlib.Path) -> None:
    proc = _stopped_delete(events, "id < 10")
    assert weir("import", _csv(tmp_path / "o.csv", range(3)), "--table", "other", lake=events).returncode == 0
    rc, out, err = _resume(proc)
    assert rc == 0, err
    assert json.loads(out)["rows_deleted"] == 10
    assert count(events, "SELECT count(*) FROM events") == 290 and count(events, "SELECT count(*) FROM other") == 3
