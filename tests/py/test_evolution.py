"""Schema evolution by Iceberg field id: `weir alter`, Client.alter_table, reads at older
commits, merges of a schema change with data changes, and the serializable rule
(docs/evolution.md).

The acceptance case: `col` renamed to `value` on a table of three commits. At the first
commit the column is `col` (a filter on it finds the old row; `value` is unknown there);
at head it is `value`, with the same data, read from the same files by field id; pyiceberg
sees the same field id under the new name.
"""
from __future__ import annotations

import json
import pathlib
from typing import Any

import pyarrow as pa
import pytest

import weir
from conftest import weir as cli
from conftest import weir_json, weir_list

CONTRACT = """contract:
  name: readings
  version: "1"
  columns:
    - {name: id, type: Int64}
    - {name: col, type: Float64, nullable: true, doc: the reading}
    - {name: n, type: Int32, nullable: true}
"""


def rows(lake: pathlib.Path, sql: str, ref: str | None = None) -> list[dict[str, Any]]:
    args = ["query", sql, "--format", "json"] + (["--ref", ref] if ref else [])
    r = cli(*args, lake=lake)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def meta(lake: pathlib.Path, table: str, ref: str = "main") -> dict[str, Any]:
    d = weir_json("describe", table, "--ref", ref, lake=lake)
    return json.loads(pathlib.Path(d["metadata_location"]).read_text())


def location(lake: pathlib.Path, table: str, ref: str = "main") -> str:
    return weir_json("describe", table, "--ref", ref, lake=lake)["metadata_location"]


def field_ids(m: dict[str, Any]) -> dict[str, int]:
    cur = next(s for s in m["schemas"] if s["schema-id"] == m["current-schema-id"])
    return {f["name"]: f["id"] for f in cur["fields"]}


@pytest.fixture
def three(lake: pathlib.Path, tmp_path: pathlib.Path) -> dict[str, Any]:
    """Table `readings` with three commits: (1, 2.0), then (2, 3.0), then (3, 4.0)."""
    c = tmp_path / "c.yml"
    c.write_text(CONTRACT)
    commits = []
    for i, (mode, line) in enumerate([("create", "1,2.0,10"), ("append", "2,3.0,20"), ("append", "3,4.0,30")]):
        f = tmp_path / f"d{i}.csv"
        f.write_text(f"id,col,n\n{line}\n")
        args = ["import", f, "--table", "readings", "--mode", mode] + (["--contract", c] if mode == "create" else [])
        commits.append(weir_json(*args, lake=lake)["commit"])
    return {"lake": lake, "first": commits[0], "tmp": tmp_path, "contract": c}


def test_rename_keeps_the_field_id_and_old_commits_keep_the_old_name(three: dict[str, Any]) -> None:
    lake, first = three["lake"], three["first"]
    before = meta(lake, "readings")
    doc = weir_json("alter", "readings", "--rename", "col", "value", lake=lake)
    assert doc["changes"] == [{"change": "rename", "column": "col", "new_name": "value",
                               "field_id": field_ids(before)["col"]}]
    assert doc["previous_schema_id"] == before["current-schema-id"] and doc["schema_id"] > doc["previous_schema_id"]
    after = meta(lake, "readings")
    # A new schema, the old one kept; no new snapshot, no new file: only the schema moved.
    assert len(after["schemas"]) == len(before["schemas"]) + 1
    assert after["current-snapshot-id"] == before["current-snapshot-id"]
    assert after["last-column-id"] == before["last-column-id"]
    assert field_ids(after)["value"] == field_ids(before)["col"] and "col" not in field_ids(after)
    # At the first commit: the old name, the old row; `value` is unknown there.
    assert rows(lake, "SELECT id, col FROM readings WHERE col = 2.0", first) == [{"id": 1, "col": 2.0}]
    r = cli("query", "SELECT value FROM readings", "--ref", first, lake=lake)
    assert r.returncode != 0 and "value" in r.stderr
    # At head: the same data under the new name, read from files written before the rename.
    assert rows(lake, "SELECT id, value FROM readings ORDER BY id") == [
        {"id": 1, "value": 2.0}, {"id": 2, "value": 3.0}, {"id": 3, "value": 4.0}]
    assert rows(lake, "SELECT id FROM readings WHERE value = 2.0") == [{"id": 1}]
    r = cli("query", "SELECT col FROM readings", lake=lake)
    assert r.returncode != 0 and "col" in r.stderr
    # The stored contract follows: the column is renamed in it, doc kept.
    ir = json.loads(after["properties"]["weir.contract"])
    assert [c["name"] for c in ir["columns"]] == ["id", "value", "n"]
    assert next(c for c in ir["columns"] if c["name"] == "value")["doc"] == "the reading"


def test_pyiceberg_sees_the_same_field_id_under_the_new_name(three: dict[str, Any]) -> None:
    from pyiceberg.table import StaticTable

    lake, first = three["lake"], three["first"]
    weir_json("alter", "readings", "--rename", "col", "value", lake=lake)
    old = StaticTable.from_metadata(location(lake, "readings", first))
    new = StaticTable.from_metadata(location(lake, "readings"))
    assert old.schema().find_field("col").field_id == new.schema().find_field("value").field_id
    assert "value" not in [f.name for f in old.schema().fields]
    got = new.scan().to_arrow().sort_by("id")
    assert got.column("value").to_pylist() == [2.0, 3.0, 4.0]
    # Every schema the table had is in its metadata, the old one with the old name.
    assert {s.schema_id for s in new.schemas().values()} == {0, 1}
    assert new.schemas()[0].find_field("col").field_id == new.schema().find_field("value").field_id


def test_several_changes_are_one_commit(three: dict[str, Any]) -> None:
    lake = three["lake"]
    n_commits = len(weir_list("log", lake=lake))
    before = meta(lake, "readings")
    doc = weir_json("alter", "readings", "--add", "score Float64", "--widen", "n", "Int64", "--doc", "id",
                    "the key", "--drop", "col", "--move", "score", "first", "-m", "evolve", lake=lake)
    assert [c["change"] for c in doc["changes"]] == ["add", "widen", "doc", "drop", "move"]
    assert len(weir_list("log", lake=lake)) == n_commits + 1
    assert weir_list("log", lake=lake)[0]["message"] == "evolve"
    cols = {c["name"]: c for c in doc["columns"]}
    assert [c["name"] for c in doc["columns"]] == ["score", "id", "n"]
    assert cols["score"]["field_id"] == before["last-column-id"] + 1 and not cols["score"]["required"]
    assert cols["n"]["type"] == "Int64" and cols["n"]["field_id"] == field_ids(before)["n"]
    assert cols["id"]["doc"] == "the key"
    assert doc["last_column_id"] == before["last-column-id"] + 1
    # Older rows: the added column is null, the widened one reads as Int64, the dropped one is gone.
    got = rows(lake, "SELECT * FROM readings ORDER BY id")
    assert got == [{"score": None, "id": 1, "n": 10}, {"score": None, "id": 2, "n": 20},
                   {"score": None, "id": 3, "n": 30}]
    t = pa.table({"score": [0.5], "id": [4], "n": [2**40]})
    with weir.Client(lake) as c:
        c.import_data("readings", t, mode="append")
        assert c.query("SELECT typeof(n) AS t FROM readings LIMIT 1").column("t").to_pylist() == ["BIGINT"]
        assert c.query("SELECT count(*) AS k FROM readings").column("k").to_pylist() == [4]
    ir = json.loads(meta(lake, "readings")["properties"]["weir.contract"])
    assert [(c["name"], c["type"]) for c in ir["columns"]] == [("score", "Float64"), ("id", "Int64"), ("n", "Int64")]


def test_an_append_after_a_rename_is_held_to_the_new_name(three: dict[str, Any]) -> None:
    lake, tmp = three["lake"], three["tmp"]
    weir_json("alter", "readings", "--rename", "col", "value", lake=lake)
    f = tmp / "old.csv"
    f.write_text("id,col,n\n9,1.0,1\n")
    r = cli("import", f, "--table", "readings", "--mode", "append", lake=lake)
    assert r.returncode == 3 and '"value"' in r.stderr, r.stderr
    f.write_text("id,value,n\n9,1.0,1\n")
    assert cli("import", f, "--table", "readings", "--mode", "append", lake=lake).returncode == 0
    assert rows(lake, "SELECT value FROM readings WHERE id = 9") == [{"value": 1.0}]


@pytest.mark.parametrize(("args", "says"), [
    (["--rename", "col", "ID"], 'already has a column "id"'),
    (["--rename", "col", "n"], 'already has a column "n"'),
    (["--add", "N Int64"], 'already has a column "n"'),
    (["--drop", "nosuch"], 'no column "nosuch"'),
    (["--widen", "col", "Float32"], "Float64 to Float32 is a narrowing"),
    (["--widen", "n", "Float64"], "Int32 to Float64 is a change of type"),
    (["--widen", "col", "String"], "not an Iceberg type promotion"),
    (["--add", "x NoSuchType"], "x NoSuchType"),
    (["--add", "x Int64 NOT NULL"], "format version 3"),
    (["--rename", "col", "value", "--drop", "col"], 'change 2 (drop col): default.readings has no column "col"'),
])
def test_bad_changes_are_refused_naming_the_column_and_nothing_is_written(
        three: dict[str, Any], args: list[str], says: str) -> None:
    lake = three["lake"]
    head = weir_json("show", "main", lake=lake)["hash"]
    loc = location(lake, "readings")
    files = sorted(p.name for p in (lake / "warehouse" / "default" / "readings" / "metadata").iterdir())
    r = cli("alter", "readings", *args, lake=lake)
    assert r.returncode == 2, r.stderr
    assert says in r.stderr and "nothing was written" in r.stderr, r.stderr
    assert weir_json("show", "main", lake=lake)["hash"] == head
    assert location(lake, "readings") == loc
    assert sorted(p.name for p in (lake / "warehouse" / "default" / "readings" / "metadata").iterdir()) == files


def test_alter_is_refused_when_the_table_changed_since_expect_head(three: dict[str, Any]) -> None:
    lake, tmp = three["lake"], three["tmp"]
    base = weir_json("show", "main", lake=lake)["hash"]
    f = tmp / "more.csv"
    f.write_text("id,col,n\n7,7.0,7\n")
    assert cli("import", f, "--table", "readings", "--mode", "append", lake=lake).returncode == 0
    r = cli("alter", "readings", "--rename", "col", "value", "--expect-head", base, lake=lake)
    assert r.returncode == 4 and "default.readings" in r.stderr, r.stderr
    assert "col" in field_ids(meta(lake, "readings"))
    # Against the head it builds on, the same change is accepted.
    assert cli("alter", "readings", "--rename", "col", "value", lake=lake).returncode == 0


@pytest.mark.parametrize("altered", ["source", "target"])
def test_a_schema_change_merges_with_appends_on_the_other_side(three: dict[str, Any], altered: str) -> None:
    lake, tmp = three["lake"], three["tmp"]
    assert cli("branch", "create", "dev", lake=lake).returncode == 0
    f = tmp / "more.csv"
    f.write_text("id,col,n\n5,5.0,5\n")
    alter_on, append_on = ("dev", "main") if altered == "source" else ("main", "dev")
    assert cli("alter", "readings", "--rename", "col", "value", "--add", "extra String", "--branch", alter_on,
               lake=lake).returncode == 0
    assert cli("import", f, "--table", "readings", "--mode", "append", "--branch", append_on,
               lake=lake).returncode == 0
    # A rename breaks the contract's readers: its major version moved, and the merge of the
    # altering side needs --allow-breaking as any breaking contract change does.
    extra = ["--allow-breaking"] if altered == "source" else []
    doc = weir_json("merge", "dev", "--into", "main", *extra, lake=lake)
    assert {t["table"]: t["change"] for t in doc["tables"]} == {"default.readings": "merged: appends"}, doc
    got = rows(lake, "SELECT id, value, extra FROM readings ORDER BY id")
    assert got == [{"id": i, "value": v, "extra": None} for i, v in [(1, 2.0), (2, 3.0), (3, 4.0), (5, 5.0)]]


def test_schema_changes_on_both_sides_conflict(three: dict[str, Any]) -> None:
    lake = three["lake"]
    assert cli("branch", "create", "dev", lake=lake).returncode == 0
    assert cli("alter", "readings", "--rename", "col", "a", "--branch", "dev", lake=lake).returncode == 0
    assert cli("alter", "readings", "--rename", "col", "b", lake=lake).returncode == 0
    head = weir_json("show", "main", lake=lake)["hash"]
    r = cli("merge", "dev", "--into", "main", "--allow-breaking", lake=lake)
    assert r.returncode == 4 and "default.readings" in r.stderr, r.stderr
    assert weir_json("show", "main", lake=lake)["hash"] == head


def test_sdk_alter_table(three: dict[str, Any]) -> None:
    lake = three["lake"]
    with weir.Client(lake) as c:
        res = c.alter_table("readings", rename={"col": "value"}, widen={"n": weir.Int64}, add={"note": "String"},
                            doc={"value": None})
        assert isinstance(res, weir.AlterResult)
        assert res.column("value").doc is None and res.column("n").type == "Int64"
        assert res.column("note").field_id == res.last_column_id
        assert [ch["change"] for ch in res.changes] == ["rename", "widen", "doc", "add"]
        with pytest.raises(weir.InvalidArgument, match='no column "col"'):
            c.alter_table("readings", drop=["col"])
        with pytest.raises(weir.InvalidArgument, match="nothing to change"):
            c.alter_table("readings")
        with pytest.raises(TypeError):
            c.alter_table("readings", drop="value")  # type: ignore[arg-type]
        with pytest.raises(weir.NotFound):
            c.alter_table("nosuch", drop=["x"])
        assert c.get_table("readings").column("value").field_id == res.column("value").field_id
        assert res.contract_version == "2"  # a rename breaks readers: the major version moved
        moved = c.alter_table("readings", move={"note": "id", "n": None})
        assert [col.name for col in moved.columns] == ["n", "id", "note", "value"]
        assert [col.name for col in c.get_table("readings").columns] == ["n", "id", "note", "value"]


EVOLVED = """contract:
  name: readings
  version: "2"
  columns:
    - {name: id, type: Int64}
    - {name: col, type: Float64, nullable: true, doc: "the reading, in volts"}
    - {name: n, type: Int64, nullable: true}
    - {name: extra, type: String, nullable: true}
"""


def test_an_append_with_evolve_evolves_the_schema_in_the_same_commit(three: dict[str, Any]) -> None:
    lake, tmp = three["lake"], three["tmp"]
    before = meta(lake, "readings")
    c = tmp / "evolved.yml"
    c.write_text(EVOLVED)
    f = tmp / "new.csv"
    f.write_text("id,col,n,extra\n4,5.0,4000000000,hello\n")
    n_commits = len(weir_list("log", lake=lake))
    # Without --evolve the table keeps its contract, and the new column is not in it.
    r = cli("import", f, "--table", "readings", "--mode", "append", "--contract", c, lake=lake)
    assert r.returncode == 3 and "extra" in r.stderr, r.stderr
    doc = weir_json("import", f, "--table", "readings", "--mode", "append", "--contract", c, "--evolve", lake=lake)
    assert doc["rows_written"] == 1
    assert len(weir_list("log", lake=lake)) == n_commits + 1
    after = meta(lake, "readings")
    ids = field_ids(after)
    assert {k: ids[k] for k in ("id", "col", "n")} == field_ids(before)
    assert ids["extra"] == before["last-column-id"] + 1
    assert len(after["schemas"]) == len(before["schemas"]) + 1
    assert json.loads(after["properties"]["weir.contract"])["version"] == "2"
    assert rows(lake, "SELECT id, n, extra FROM readings ORDER BY id") == [
        {"id": 1, "n": 10, "extra": None}, {"id": 2, "n": 20, "extra": None}, {"id": 3, "n": 30, "extra": None},
        {"id": 4, "n": 4000000000, "extra": "hello"}]


@pytest.mark.parametrize(("column_line", "says"), [
    ("    - {name: n, type: Int16, nullable: true}", None),
    ("    - {name: col, type: Float32, nullable: true}", "Float64 to Float32 is a narrowing"),
    ("    - {name: id, type: Int64, nullable: true}", "required to optional is refused"),
    ("    - {name: Col, type: Float64, nullable: true}", 'the table has column "col", which differs only in case'),
    ("    - {name: extra, type: String}", "a new column must be optional"),
])
def test_evolve_refuses_what_the_rules_do_not_allow(three: dict[str, Any], column_line: str,
                                                   says: str | None) -> None:
    lake, tmp = three["lake"], three["tmp"]
    cols = {"id": "    - {name: id, type: Int64}", "col": "    - {name: col, type: Float64, nullable: true}",
            "n": "    - {name: n, type: Int32, nullable: true}"}
    name = column_line.split("name: ")[1].split(",")[0]
    if name.lower() in cols:
        cols[name.lower()] = column_line
    else:
        cols[name] = column_line
    c = tmp / "bad.yml"
    c.write_text('contract:\n  name: readings\n  version: "2"\n  columns:\n' + "\n".join(cols.values()) + "\n")
    f = tmp / "new.csv"
    f.write_text("id,col,n\n4,5.0,4\n" if name != "Col" else "id,Col,n\n4,5.0,4\n")
    if name == "extra":
        f.write_text("id,col,n,extra\n4,5.0,4,x\n")
    head = weir_json("show", "main", lake=lake)["hash"]
    r = cli("import", f, "--table", "readings", "--mode", "append", "--contract", c, "--evolve", lake=lake)
    if says is None:  # Int16 is no weir type: the contract itself is refused
        assert r.returncode != 0, r.stderr
    else:
        assert r.returncode == 3, r.stderr
        assert says in r.stderr and f'column "{name}"' in r.stderr and "nothing was written" in r.stderr, r.stderr
    assert weir_json("show", "main", lake=lake)["hash"] == head


def test_evolve_without_a_contract_or_a_table_is_refused(three: dict[str, Any]) -> None:
    lake, tmp = three["lake"], three["tmp"]
    f = tmp / "x.csv"
    f.write_text("id,col,n\n4,5.0,4\n")
    r = cli("import", f, "--table", "readings", "--mode", "append", "--evolve", lake=lake)
    assert r.returncode == 2 and "--evolve needs --contract" in r.stderr, r.stderr
    r = cli("import", f, "--table", "fresh", "--contract", three["contract"], "--evolve", lake=lake)
    assert r.returncode == 2 and "does not exist" in r.stderr, r.stderr


def test_sdk_import_with_evolve(three: dict[str, Any]) -> None:
    lake, tmp = three["lake"], three["tmp"]
    c = tmp / "evolved.yml"
    c.write_text(EVOLVED)
    t = pa.table({"id": [9], "col": [1.5], "n": [1], "extra": ["x"]})
    with weir.Client(lake) as client:
        with pytest.raises(weir.ContractViolation):
            client.import_data("readings", t, mode="append", contract=str(c))
        res = client.import_data("readings", t, mode="append", contract=str(c), evolve=True)
        assert res.rows_written == 1
        assert client.get_table("readings").column("extra").field_id == meta(lake, "readings")["last-column-id"]


def test_spark_reads_the_renamed_column_from_files_written_before_the_rename(three: dict[str, Any]) -> None:
    """Spark (Iceberg's Spark runtime, from the metadata file alone): the data files still
    name the column `col`, so reading `value` with the old rows proves the mapping by id."""
    from conftest import spark_jars

    jars = spark_jars()
    from pyspark.sql import SparkSession

    lake, first = three["lake"], three["first"]
    weir_json("alter", "readings", "--rename", "col", "value", lake=lake)
    spark = (SparkSession.builder.master("local[1]").appName("weir-evolution-test").config("spark.jars", jars)
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
             .config("spark.driver.memory", "1g").getOrCreate())
    try:
        spark.sparkContext.setLogLevel("ERROR")
        head = spark.read.format("iceberg").load(location(lake, "readings"))
        assert head.columns == ["id", "value", "n"]
        assert sorted((r["id"], r["value"]) for r in head.collect()) == [(1, 2.0), (2, 3.0), (3, 4.0)]
        old = spark.read.format("iceberg").load(location(lake, "readings", first))
        assert old.columns == ["id", "col", "n"] and [r["col"] for r in old.collect()] == [2.0]
    finally:
        spark.stop()


def test_a_partition_source_cannot_be_dropped_and_a_name_mapped_column_not_renamed(
        lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """Issue 12's bad input: dropping a partition source column is refused naming the
    partition field; renaming a column of a table holding files read by name (registered
    without field ids) is refused, since they would read the column as NULL. Nothing is
    written either way."""
    (tmp_path / "p.csv").write_text("id,ts,v\n1,2024-01-01 10:00:00,a\n")
    (tmp_path / "p.yml").write_text("contract:\n  name: p\n  partition_by: [day(ts)]\n  columns:\n"
                                    "    - {name: id, type: Int64}\n    - {name: ts, type: TimestampMicro}\n"
                                    "    - {name: v, type: String, nullable: true}\n")
    r = cli("import", tmp_path / "p.csv", "--table", "p", "--contract", tmp_path / "p.yml", lake=lake)
    assert r.returncode == 0, r.stderr
    before = location(lake, "p")
    r = cli("alter", "p", "--drop", "ts", lake=lake)
    assert r.returncode == 2, r.stderr
    assert '"ts" is the source of partition field ts_day (spec 0)' in r.stderr, r.stderr
    assert location(lake, "p") == before
    assert cli("alter", "p", "--drop", "v", lake=lake).returncode == 0  # not a source: fine

    import pyarrow.parquet as pq
    (tmp_path / "n.csv").write_text("id,v\n1,a\n")
    (tmp_path / "n.yml").write_text("contract:\n  name: n\n  columns:\n    - {name: id, type: Int64}\n"
                                    "    - {name: v, type: String, nullable: true}\n")
    assert cli("import", tmp_path / "n.csv", "--table", "n", "--contract", tmp_path / "n.yml",
                lake=lake).returncode == 0
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    pq.write_table(pa.table({"id": [2], "v": ["b"]}, schema=schema), tmp_path / "x.parquet")  # no field ids
    r = cli("import", "--register", tmp_path / "x.parquet", "--table", "n", "--mode", "append", lake=lake)
    assert r.returncode == 0, r.stderr
    before = location(lake, "n")
    r = cli("alter", "n", "--rename", "v", "w", lake=lake)
    assert r.returncode == 2, r.stderr
    assert 'renaming "v" would make it read as NULL in them' in r.stderr, r.stderr
    assert location(lake, "n") == before
    assert rows(lake, "SELECT v FROM n ORDER BY id") == [{"v": "a"}, {"v": "b"}]
