"""`weir compact` / Client.compact: small files rewritten into large ones as one commit that
changes no row (docs/versioning.md, "Compaction").

The acceptance table is 1,000 one-row appends made through the SDK in one process. The
races hand off through the progress callback: the compaction's callback blocks at its
"commit" event (its files are written, nothing is committed) until the test has run the
other writer in another process, then lets it go on. No sleeps.
"""
from __future__ import annotations

import json
import pathlib
import threading
from collections import Counter
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import weir
from conftest import weir as cli, weir_json, weir_list

N = 1000


def rows_of(t: pa.Table) -> Counter[tuple[Any, ...]]:
    """The multiset of a table's rows."""
    cols = [t.column(n).to_pylist() for n in sorted(t.column_names)]
    return Counter(zip(*cols, strict=True))


def one_row(i: int) -> pa.Table:
    return pa.table({"id": pa.array([i], pa.int64()), "name": pa.array([f"n{i}" if i % 7 else None], pa.string()),
                     "score": pa.array([i / 3.0], pa.float64())})


def metadata(client: weir.Client, table: str, ref: str = "main") -> dict[str, Any]:
    return json.loads(pathlib.Path(client.get_table(table, ref).metadata_location).read_text())


def live_files(meta_path: str) -> list[str]:
    from pyiceberg.table import StaticTable

    t = StaticTable.from_metadata(meta_path)
    return [task.file.file_path for task in t.scan().plan_files()]


@pytest.fixture(scope="module")
def thousand(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A table of 1,000 one-row appends, what every commit held before compaction, and the
    compaction's result."""
    lake = tmp_path_factory.mktemp("compact") / "lake"
    client = weir.Client.init(lake)
    hashes = []
    for i in range(N):
        r = client.import_data("events", one_row(i), mode="create" if i == 0 else "append")
        hashes.append(r.commit)
    before_meta = metadata(client, "events")
    assert int(before_meta["snapshots"][-1]["summary"]["total-data-files"]) == N
    sample = [0, 1, 99, 100, 101, 500, 998, N - 1]
    at = {k: rows_of(client.query("SELECT * FROM events", ref=hashes[k])) for k in sample}
    all_rows = rows_of(pa.concat_tables([one_row(i) for i in range(N)]))
    assert at[N - 1] == all_rows
    result = client.compact("events")
    return {"lake": lake, "client": client, "hashes": hashes, "at": at, "all": all_rows, "result": result,
            "before_meta": before_meta}


def test_a_thousand_appends_compact_to_one_file_with_the_same_rows(thousand: dict[str, Any]) -> None:
    r, client = thousand["result"], thousand["client"]
    assert r.compacted and r.commit and r.files_before == N and r.files_rewritten == N
    assert r.files_written == 1 and r.files_after == 1 and r.rows_rewritten == N
    assert client.get_branch("main").head == r.commit
    assert rows_of(client.query("SELECT * FROM events")) == thousand["all"]
    c = client.get_commit(r.commit)
    assert c.parents == (thousand["hashes"][-1],) and "compact default.events" in c.message


def test_the_snapshot_is_an_iceberg_replace_with_right_counts(thousand: dict[str, Any]) -> None:
    meta = metadata(thousand["client"], "events")
    snap = meta["snapshots"][-1]
    s = snap["summary"]
    assert s["operation"] == "replace" and s["weir.operation"] == "compact"
    assert (s["added-data-files"], s["deleted-data-files"]) == ("1", str(N))
    assert (s["added-records"], s["deleted-records"], s["total-records"]) == (str(N), str(N), str(N))
    assert s["total-data-files"] == "1"
    assert int(s["total-files-size"]) == int(s["added-files-size"]) < int(s["removed-files-size"])
    before = thousand["before_meta"]
    assert snap["parent-snapshot-id"] == before["current-snapshot-id"]
    # Nothing of the table's type moved: schema (names, types, required, field ids), properties.
    cur = [x for x in meta["schemas"] if x["schema-id"] == meta["current-schema-id"]][0]
    old = [x for x in before["schemas"] if x["schema-id"] == before["current-schema-id"]][0]
    assert cur["fields"] == old["fields"]
    assert meta["properties"] == before["properties"]


def test_the_new_file_has_the_field_ids_codec_and_stats_of_a_weir_write(thousand: dict[str, Any]) -> None:
    meta_path = thousand["client"].get_table("events").metadata_location
    (path,) = live_files(meta_path)
    local = path.removeprefix("file://")
    pf = pq.ParquetFile(local)
    ids = {f.name: int(f.metadata[b"PARQUET:field_id"]) for f in pf.schema_arrow}
    old_meta = thousand["before_meta"]
    fields = [x for x in old_meta["schemas"] if x["schema-id"] == old_meta["current-schema-id"]][0]["fields"]
    assert ids == {f["name"]: f["id"] for f in fields}
    rg = pf.metadata.row_group(0)
    assert {rg.column(i).compression for i in range(rg.num_columns)} == {"ZSTD"}
    from pyiceberg.table import StaticTable

    (task,) = StaticTable.from_metadata(meta_path).scan().plan_files()
    by_name = {f["name"]: f["id"] for f in fields}
    assert task.file.null_value_counts[by_name["name"]] == sum(1 for i in range(N) if i % 7 == 0)
    assert task.file.value_counts[by_name["id"]] == N
    assert task.file.record_count == N


def test_every_older_commit_reads_as_before(thousand: dict[str, Any]) -> None:
    client = thousand["client"]
    for k, rows in thousand["at"].items():
        assert rows_of(client.query("SELECT * FROM events", ref=thousand["hashes"][k])) == rows, k


def test_pyiceberg_reads_the_compacted_table_through_its_metadata_file(thousand: dict[str, Any]) -> None:
    from pyiceberg.table import StaticTable

    t = StaticTable.from_metadata(thousand["client"].get_table("events").metadata_location)
    assert rows_of(t.scan().to_arrow()) == thousand["all"]
    # The snapshot before the compaction is still listed and reads all 1,000 files.
    parent = t.metadata.snapshot_by_id(t.metadata.current_snapshot().parent_snapshot_id)
    assert parent is not None and rows_of(t.scan(snapshot_id=parent.snapshot_id).to_arrow()) == thousand["all"]


def test_compacting_again_is_no_commit(thousand: dict[str, Any]) -> None:
    client = thousand["client"]
    head = client.get_branch("main").head
    r = client.compact("events")
    assert not r.compacted and r.commit is None and "fewer than the 2" in (r.reason or "")
    assert client.get_branch("main").head == head


# ---- small tables, the CLI, and the races ----------------------------------------------------

def small_lake(tmp_path: pathlib.Path, files: int = 5) -> pathlib.Path:
    lake = tmp_path / "lake"
    assert cli("init", lake).returncode == 0
    for i in range(files):
        f = tmp_path / f"r{i}.csv"
        f.write_text(f"id,name\n{i},n{i}\n")
        r = cli("import", f, "--table", "t", *(["--mode", "append"] if i else []), lake=lake)
        assert r.returncode == 0, r.stderr
    return lake


def table_rows(lake: pathlib.Path, ref: str = "main") -> list[tuple[int, str]]:
    with weir.Client(lake) as c:
        t = c.query("SELECT id, name FROM t ORDER BY id", ref=ref)
    return list(zip(t.column("id").to_pylist(), t.column("name").to_pylist(), strict=True))


def test_dry_run_and_min_files_write_nothing(tmp_path: pathlib.Path) -> None:
    lake = small_lake(tmp_path, 3)
    head = weir_list("log", lake=lake)[0]["hash"]
    d = weir_json("compact", "t", "--dry-run", lake=lake)
    assert d["dry_run"] and not d["compacted"] and d["files_rewritten"] == 3 and d["files_written"] == 1
    d = weir_json("compact", "t", "--min-files", "4", lake=lake)
    assert not d["compacted"] and d["files_after"] == 3 and "fewer than the 4" in d["reason"]
    assert weir_list("log", lake=lake)[0]["hash"] == head
    r = cli("compact", "t", "--target-file-size", "lots", lake=lake)
    assert r.returncode == 2 and "--target-file-size" in r.stderr
    r = cli("compact", "nosuch", lake=lake)
    assert r.returncode == 1 and "nosuch" in r.stderr
    assert cli("branch", "protect", "main", lake=lake).returncode == 0
    r = cli("compact", "t", lake=lake)
    assert r.returncode == 2 and "protected" in r.stderr
    assert weir_list("log", lake=lake)[0]["hash"] == head
    assert len(list((lake / "warehouse" / "default" / "t" / "data").glob("*.parquet"))) == 3


def test_target_file_size_splits_the_output(tmp_path: pathlib.Path) -> None:
    lake = tmp_path / "lake"
    with weir.Client.init(lake) as c:
        big = pa.table({"id": pa.array(range(200_000), pa.int64()),
                        "s": pa.array([f"value-{i * 7919 % 100003}" for i in range(200_000)])})
        for k in range(8):
            c.import_data("t", big.slice(k * 25_000, 25_000), mode="create" if k == 0 else "append")
        # Each input file is well under 3/4 of the target; DuckDB starts a new file once one
        # passes the target, checked after each row group (122,880 rows, more than 200 KiB
        # here): the 200,000 rows make at least two files.
        r = c.compact("t", target_file_size=200 * 1024)
        assert r.compacted and r.files_rewritten == 8 and r.files_written >= 2
        assert rows_of(c.query("SELECT * FROM t")) == rows_of(big)


def test_compacting_again_and_again_settles_and_never_makes_more_files(tmp_path: pathlib.Path) -> None:
    """A new user's table of four ~1.5 MB files at a 2 MB target went 4 -> 3 -> 4 -> 3 files,
    a commit each time: the engine's files came back under 3/4 of the target, small again,
    and the next rewrite made more of them. A compaction that would not make fewer files
    is now not committed, so repeating one settles."""
    lake = tmp_path / "lake"
    with weir.Client.init(lake) as c:
        part = pa.table({"id": pa.array(range(150_000), pa.int64()),
                         "s": pa.array([f"str{i * 7919 % 1000003}" for i in range(150_000)]),
                         "x": pa.array([i * 0.5 for i in range(150_000)])})
        for k in range(4):
            c.import_data("cs", part, mode="create" if k == 0 else "append")
        files = [len(live_files(c.get_table("cs").metadata_location))]
        results = []
        for _ in range(4):
            r = c.compact("cs", target_file_size=1024 * 1024)
            results.append(r)
            files.append(len(live_files(c.get_table("cs").metadata_location)))
            assert not r.compacted or r.files_written < r.files_rewritten, r
        assert all(b <= a for a, b in zip(files, files[1:], strict=False)), files
        assert not results[-1].compacted and not results[-2].compacted, results
        assert c.query("SELECT count(*) AS n FROM cs").column("n").to_pylist() == [600_000]


class Paused:
    """A compaction in a thread whose progress callback stops at its "commit" event (files
    written, nothing committed) until released: the hand-off of the race tests."""

    def __init__(self, lake: pathlib.Path) -> None:
        self.reached, self.go = threading.Event(), threading.Event()
        self.result: weir.CompactResult | None = None
        self.error: BaseException | None = None
        self.client = weir.Client(lake, progress=self.on_progress)
        self.thread = threading.Thread(target=self.work)

    def on_progress(self, e: dict[str, Any]) -> None:
        if e.get("phase") == "commit" and e.get("table") == "default.t":
            self.reached.set()
            assert self.go.wait(60), "the test never released the compaction"

    def work(self) -> None:
        try:
            self.result = self.client.compact("t")
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            self.error = e

    def __enter__(self) -> Paused:
        self.thread.start()
        assert self.reached.wait(60), "the compaction never reached its commit"
        return self

    def finish(self) -> None:
        self.go.set()
        self.thread.join(60)
        self.client.close()

    def __exit__(self, *exc: object) -> None:
        if not self.go.is_set():
            self.finish()


def test_an_append_during_compaction_is_kept(tmp_path: pathlib.Path) -> None:
    lake = small_lake(tmp_path)
    extra = tmp_path / "extra.csv"
    extra.write_text("id,name\n100,late\n")
    with Paused(lake) as p:
        r = cli("import", extra, "--table", "t", "--mode", "append", "--json", lake=lake)
        assert r.returncode == 0, r.stderr
        appended = json.loads(r.stdout)["commit"]
        p.finish()
    assert p.error is None, p.error
    assert p.result is not None and p.result.compacted and p.result.files_rewritten == 5
    assert table_rows(lake) == [(i, f"n{i}") for i in range(5)] + [(100, "late")]
    with weir.Client(lake) as c:
        assert c.get_commit(p.result.commit or "").parents == (appended,)
        # The appended file was left alone: one compacted file and the append's.
        files = live_files(c.get_table("t").metadata_location)
        assert len(files) == 2
        s = metadata(c, "t")["snapshots"][-1]["summary"]
        assert (s["operation"], s["total-records"], s["total-data-files"]) == ("replace", "6", "2")


def test_a_replace_during_compaction_refuses_it_and_loses_nothing(tmp_path: pathlib.Path) -> None:
    lake = small_lake(tmp_path)
    new = tmp_path / "new.csv"
    new.write_text("id,name\n7,replaced\n8,replaced\n")
    with Paused(lake) as p:
        r = cli("import", new, "--table", "t", "--mode", "replace", "--json", lake=lake)
        assert r.returncode == 0, r.stderr
        replaced = json.loads(r.stdout)["commit"]
        p.finish()
    assert isinstance(p.error, weir.ConcurrentUpdate), p.error
    assert "no longer holds 5 of the 5 files this compaction rewrote" in str(p.error)
    assert [c.table for c in p.error.changed] == ["default.t"]
    assert table_rows(lake) == [(7, "replaced"), (8, "replaced")]
    assert weir_list("log", lake=lake)[0]["hash"] == replaced
    # Its files were removed with it: the table folder holds only committed data files.
    with weir.Client(lake) as c:
        live = {f.removeprefix("file://") for f in live_files(c.get_table("t").metadata_location)}
    data = {str(f) for f in (lake / "warehouse" / "default" / "t" / "data").glob("*.parquet")}
    assert live <= data and len(data) == 5 + 1


def test_a_replace_based_before_a_compaction_still_lands(tmp_path: pathlib.Path) -> None:
    """A compaction changes no row: a replace computed before it is not stale."""
    lake = small_lake(tmp_path)
    base = weir_list("log", lake=lake)[0]["hash"]
    assert weir_json("compact", "t", lake=lake)["compacted"]
    new = tmp_path / "new.csv"
    new.write_text("id,name\n9,after\n")
    r = cli("import", new, "--table", "t", "--mode", "replace", "--expect-head", base, lake=lake)
    assert r.returncode == 0, r.stderr
    assert table_rows(lake) == [(9, "after")]
    # ...while one based before a real change is still refused.
    r = cli("import", new, "--table", "t", "--mode", "replace", "--expect-head", base, lake=lake)
    assert r.returncode == 4 and "default.t" in r.stderr


def test_a_compaction_of_files_another_compaction_took_is_refused(tmp_path: pathlib.Path) -> None:
    lake = small_lake(tmp_path)
    with Paused(lake) as p:
        assert weir_json("compact", "t", lake=lake)["compacted"]
        p.finish()
    assert isinstance(p.error, weir.ConcurrentUpdate), p.error
    assert table_rows(lake) == [(i, f"n{i}") for i in range(5)]


# ---- on a threshold: weir.compact.min-files ------------------------------------------------

def test_an_append_past_the_tables_threshold_compacts_it(tmp_path: pathlib.Path) -> None:
    """The property is set as any Iceberg engine sets one: through `weir serve`
    (pyiceberg's set_properties, a commit of its own). An append that leaves more than N
    small files is followed by a compaction commit; one that does not is left alone."""
    from pyiceberg.catalog import load_catalog
    from serve_support import start_server

    lake = small_lake(tmp_path, 2)
    r = cli("token", "create", "--name", "engine", lake=lake)
    assert r.returncode == 0, r.stderr
    srv = start_server(lake)
    try:
        cat = load_catalog("weir", type="rest", uri=srv.url, warehouse="main", token=r.stdout.strip())
        t = cat.load_table("default.t")
        with t.transaction() as tx:
            tx.set_properties({"weir.compact.min-files": "3"})
    finally:
        srv.stop()
    f = tmp_path / "more.csv"
    f.write_text("id,name\n10,x\n")
    d = weir_json("import", f, "--table", "t", "--mode", "append", lake=lake)
    assert d["compaction"] is None  # 3 small files: not more than 3
    head = weir_list("log", lake=lake)[0]
    assert head["hash"] == d["commit"]
    r = cli("import", f, "--table", "t", "--mode", "append", lake=lake)
    assert r.returncode == 0, r.stderr
    assert "Compacted default.t (weir.compact.min-files): 4 files into 1" in r.stdout
    log = weir_list("log", lake=lake)
    assert "compact default.t: 4 files into 1 (weir.compact.min-files 3)" in log[0]["message"]
    assert log[1]["message"].startswith("import more.csv")
    assert table_rows(lake) == [(0, "n0"), (1, "n1"), (10, "x"), (10, "x")]
    with weir.Client(lake) as c:
        res = c.import_data("t", pa.table({"id": [11], "name": ["y"]}), mode="append")
        assert res.compaction is None  # 2 files now
        c.import_data("t", pa.table({"id": [12], "name": ["y"]}), mode="append")
        res = c.import_data("t", pa.table({"id": [13], "name": ["y"]}), mode="append")
        assert res.compaction is not None and res.compaction.files_rewritten == 4 and res.compaction.commit
        assert c.get_branch("main").head == res.compaction.commit
        assert c.get_commit(res.compaction.commit).parents == (res.commit,)
        props = metadata(c, "t")["properties"]
        assert props["weir.compact.min-files"] == "3"  # the compaction keeps every property


def test_a_branch_of_appends_merges_into_a_compacted_target(tmp_path: pathlib.Path) -> None:
    """Compacting main does not make a feature branch's appends conflict: the merge puts
    the branch's appended files on top of the compacted version. Compacted on the source
    side instead, the table is a conflict (the source's files are not only new rows)."""
    lake = small_lake(tmp_path, 3)
    assert cli("branch", "create", "feed", lake=lake).returncode == 0
    assert cli("branch", "create", "feed2", lake=lake).returncode == 0
    f = tmp_path / "feed.csv"
    f.write_text("id,name\n50,feed\n")
    for b in ("feed", "feed2"):
        r = cli("import", f, "--table", "t", "--mode", "append", "--branch", b, lake=lake)
        assert r.returncode == 0, r.stderr
    g = tmp_path / "main.csv"
    g.write_text("id,name\n60,main\n")
    assert cli("import", g, "--table", "t", "--mode", "append", lake=lake).returncode == 0
    assert weir_json("compact", "t", lake=lake)["files_rewritten"] == 4
    r = cli("merge", "feed", "--into", "main", "--json", lake=lake)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["tables"] == [{"table": "default.t", "change": "merged: appends"}]
    assert table_rows(lake) == [(0, "n0"), (1, "n1"), (2, "n2"), (50, "feed"), (60, "main")]
    with weir.Client(lake) as c:
        assert len(live_files(c.get_table("t").metadata_location)) == 2
    # The source compacted: a conflict, nothing written.
    head = weir_list("log", lake=lake)[0]["hash"]
    assert weir_json("compact", "t", "--branch", "feed2", lake=lake)["compacted"]
    r = cli("merge", "feed2", "--into", "main", lake=lake)
    assert r.returncode == 4 and "default.t" in r.stderr
    assert weir_list("log", lake=lake)[0]["hash"] == head


def test_every_type_is_written_back_as_weir_writes_it(tmp_path: pathlib.Path) -> None:
    """The rewritten file has the Parquet schema (types, logical types, field ids) of the
    files weir wrote for the same columns, and the same values."""
    import datetime
    import decimal

    lake = tmp_path / "lake"
    data = pa.table({
        "i": pa.array([1, None], pa.int32()), "l": pa.array([2, 3], pa.int64()),
        "f": pa.array([1.5, float("nan")], pa.float64()), "b": pa.array([True, None]),
        "s": pa.array(["x", "é"]), "bin": pa.array([b"\x00\xff", None], pa.binary()),
        "d": pa.array([datetime.date(2024, 1, 31), None], pa.date32()),
        "ts": pa.array([datetime.datetime(2024, 1, 31, 12), None], pa.timestamp("us")),
        "tz": pa.array([datetime.datetime(2024, 1, 31, 12, tzinfo=datetime.UTC), None], pa.timestamp("us", "UTC")),
        "dec": pa.array([decimal.Decimal("12.50"), decimal.Decimal("-0.01")], pa.decimal128(10, 2)),
    })
    with weir.Client.init(lake) as c:
        for k in range(3):
            c.import_data("t", data, mode="create" if k == 0 else "append")
        (before,) = {str(pq.read_schema(p.removeprefix("file://")))
                     for p in live_files(c.get_table("t").metadata_location)}
        before_rows = c.query("SELECT * FROM t")
        assert c.compact("t").files_written == 1
        (path,) = live_files(c.get_table("t").metadata_location)
        assert str(pq.read_schema(path.removeprefix("file://"))) == before
        after_rows = c.query("SELECT * FROM t")
    assert after_rows.schema == before_rows.schema
    key = [(k, "ascending") for k in ("l", "s")]
    assert repr(after_rows.sort_by(key).to_pylist()) == repr(before_rows.sort_by(key).to_pylist())  # NaN == NaN


def set_min_files(lake: pathlib.Path, table: str, n: int) -> None:
    """Sets weir.compact.min-files as an engine does: pyiceberg through `weir serve`."""
    from pyiceberg.catalog import load_catalog
    from serve_support import start_server

    r = cli("token", "create", "--name", f"props-{table}", lake=lake)
    assert r.returncode == 0, r.stderr
    srv = start_server(lake)
    try:
        cat = load_catalog("weir", type="rest", uri=srv.url, warehouse="main", token=r.stdout.strip())
        with cat.load_table(table).transaction() as tx:
            tx.set_properties({"weir.compact.min-files": str(n)})
    finally:
        srv.stop()


def test_a_runs_appending_output_past_the_threshold_is_compacted_after_publishing(tmp_path: pathlib.Path) -> None:
    lake = tmp_path / "lake"
    assert cli("init", lake).returncode == 0
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "daily.sql").write_text("-- weir: materialization=APPEND\nSELECT 1::BIGINT AS n\n")
    assert cli("run", proj, lake=lake).returncode == 0
    set_min_files(lake, "default.daily", 2)
    d = weir_json("run", proj, lake=lake)
    assert d["compactions"] == []  # 2 small files: not more than 2
    r = cli("run", proj, lake=lake)
    assert r.returncode == 0, r.stderr
    assert "Compacted default.daily (weir.compact.min-files): 3 files into 1" in r.stdout, r.stdout
    run_id = weir_list("runs", lake=lake)[0]["run_id"]
    # The same once more through --json: the run's document lists the compaction.
    d = weir_json("run", proj, lake=lake)
    assert d["compactions"] == [] and run_id != d["run_id"]  # 2 files now: the compacted one and this run's
    d = weir_json("run", proj, lake=lake)
    assert d["status"] == "succeeded" and len(d["compactions"]) == 1, d
    c = d["compactions"][0]
    assert (c["table"], c["compacted"], c["files_rewritten"], c["files_written"]) == ("default.daily", True, 3, 1)
    assert c["rows_rewritten"] == 5
    log = weir_list("log", lake=lake)
    assert log[0]["hash"] == c["commit"] and "(weir.compact.min-files 2)" in log[0]["message"]
    assert log[1]["hash"] == d["result_commit"]
    with weir.Client(lake) as client:
        assert client.query("SELECT n FROM daily").column("n").to_pylist() == [1] * 5
        assert client.query("SELECT count(*) AS k FROM daily", ref=d["result_commit"]).column("k").to_pylist() == [5]
    assert len(live_files(weir_json("describe", "daily", lake=lake)["metadata_location"])) == 1
    # `weir runs show` of the run is the record without the compactions (a later commit).
    assert "compactions" not in weir_json("runs", "show", d["run_id"], lake=lake)


def test_rest_appends_past_the_threshold_are_compacted_and_the_client_goes_on(tmp_path: pathlib.Path) -> None:
    """pyiceberg appends through `weir serve`: the append that leaves more than N small
    files is followed by a compaction commit, and the commit response is the compacted
    version, so the same Table object appends again without refreshing."""
    from pyiceberg.catalog import load_catalog
    from serve_support import start_server

    lake = small_lake(tmp_path, 2)
    set_min_files(lake, "default.t", 3)
    r = cli("token", "create", "--name", "engine", lake=lake)
    assert r.returncode == 0, r.stderr
    srv = start_server(lake)
    try:
        cat = load_catalog("weir", type="rest", uri=srv.url, warehouse="main", token=r.stdout.strip())
        t = cat.load_table("default.t")
        schema = t.schema().as_arrow()
        for i in (20, 21):
            t.append(pa.table({"id": pa.array([i], pa.int64()), "name": pa.array([f"r{i}"])}, schema=schema))
        log = weir_list("log", lake=lake)
        assert log[0]["message"].startswith("compact default.t: 4 files into 1 (weir.compact.min-files 3)"), log[0]
        assert log[1]["message"].startswith("REST commit to default.t")
        assert len(live_files(t.metadata_location)) == 1  # the response was the compacted version
        t.append(pa.table({"id": pa.array([22], pa.int64()), "name": pa.array(["r22"])}, schema=schema))
        assert weir_list("log", lake=lake)[0]["message"].startswith("REST commit to default.t")
    finally:
        srv.stop()
    assert table_rows(lake) == [(0, "n0"), (1, "n1"), (20, "r20"), (21, "r21"), (22, "r22")]
