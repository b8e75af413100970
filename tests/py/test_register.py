"""External data by reference: `weir table register` adopts Iceberg tables another engine
wrote (pyiceberg with a SqlCatalog on SQLite, real Spark 3.5 with Iceberg's Hadoop
catalog), and `weir import --register` adds existing Parquet files to a table.

What is held: the adopted table reads the same rows with weir at the ref, and with
pyiceberg from the metadata file weir wrote; it can be branched, appended to and merged;
the external table's files (metadata, manifests, data) are byte-identical afterwards and
no file is added to its folders; every bad input is a clear error with nothing committed.
One Spark session (local[1]) for the module, started only by the Spark tests.
"""
from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import pathlib
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import weir
from conftest import spark_jars, weir as cli, weir_json, weir_list



def tree_hashes(folder: pathlib.Path) -> dict[str, str]:
    """sha256 of every file under `folder`, by relative path."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def rows(lake: pathlib.Path, sql: str, ref: str = "main") -> list[dict[str, Any]]:
    r = cli("query", sql, "--format", "json", "--ref", ref, lake=lake)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def head(lake: pathlib.Path, ref: str = "main") -> str:
    return weir_list("log", ref, "-n", "1", lake=lake)[0]["hash"]


def metadata_of(lake: pathlib.Path, table: str, ref: str = "main") -> str:
    return weir_json("describe", table, "--ref", ref, lake=lake)["metadata_location"]


def field(name: str, typ: pa.DataType, fid: int, nullable: bool = True) -> pa.Field:
    return pa.field(name, typ, nullable=nullable, metadata={b"PARQUET:field_id": str(fid).encode()})


# ---- pyiceberg ------------------------------------------------------------------------------

PEOPLE_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string()),
                           pa.field("score", pa.float64()), pa.field("born", pa.date32()),
                           pa.field("seen", pa.timestamp("us", tz="UTC")),
                           pa.field("amount", pa.decimal128(10, 2))])


def people_batch(ids: list[int]) -> pa.Table:
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": [None if i % 3 == 0 else f"n{i}" for i in ids],
        "score": [i / 4 for i in ids],
        "born": [dt.date(2000, 1, 1) + dt.timedelta(days=i) for i in ids],
        "seen": [dt.datetime(2024, 5, 1, 12, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=i) for i in ids],
        "amount": [decimal.Decimal(i) / 100 for i in ids],
    }, schema=PEOPLE_SCHEMA)


@pytest.fixture(scope="module")
def pyice(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A table written by pyiceberg (SqlCatalog on SQLite) in two appends."""
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import (DateType, DecimalType, DoubleType, LongType, NestedField, StringType,
                                 TimestamptzType)

    root = tmp_path_factory.mktemp("pyiceberg")
    wh = root / "warehouse"
    wh.mkdir()
    cat = SqlCatalog("ext", uri=f"sqlite:///{root}/catalog.db", warehouse=f"file://{wh}")
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "name", StringType()),
                    NestedField(3, "score", DoubleType()), NestedField(4, "born", DateType()),
                    NestedField(5, "seen", TimestamptzType()), NestedField(6, "amount", DecimalType(10, 2)))
    t = cat.create_table("db.people", schema)
    t.append(people_batch([1, 2, 3, 4]))
    t.append(people_batch([5, 6]))
    meta = t.metadata_location.removeprefix("file://")
    return {"root": root, "table_dir": wh / "db" / "people", "metadata": meta, "catalog": cat}


def expected_people(ids: list[int]) -> list[dict[str, Any]]:
    out = []
    for i in ids:
        out.append({"id": i, "name": None if i % 3 == 0 else f"n{i}", "score": i / 4})
    return out


def test_pyiceberg_table_registered_queried_branched_merged(lake: pathlib.Path, pyice: dict[str, Any]) -> None:
    before = tree_hashes(pyice["table_dir"])
    doc = weir_json("table", "register", "people", "--metadata", pyice["metadata"], lake=lake)
    assert (doc["mode"], doc["table"], doc["files"], doc["rows"]) == ("create", "default.people", 2, 6)
    assert doc["source"] == pyice["metadata"]
    assert rows(lake, "SELECT id, name, score FROM people ORDER BY id") == expected_people([1, 2, 3, 4, 5, 6])
    got = rows(lake, "SELECT born::VARCHAR AS b, amount::VARCHAR AS a, seen::VARCHAR AS s FROM people WHERE id = 2")
    assert got == [{"b": "2000-01-03", "a": "0.02", "s": "2024-05-01 12:02:00+00"}]
    desc = weir_json("describe", "people", lake=lake)
    cols = {c["name"]: c for c in desc["columns"]}
    assert cols["id"]["required"] and not cols["name"]["required"]
    assert [cols[n]["field_id"] for n in ("id", "name", "score", "born", "seen", "amount")] == [1, 2, 3, 4, 5, 6]
    # weir's own metadata lives in weir's warehouse and names the external data files.
    assert desc["metadata_location"].startswith(str(lake / "warehouse"))

    # Branch, append on the branch, merge: the adopted table is a table like any other.
    assert cli("branch", "create", "dev", lake=lake).returncode == 0
    extra = lake.parent / "extra.parquet"
    pq.write_table(pa.table({"id": pa.array([7], pa.int64()), "name": ["n7"], "score": [1.75],
                             "born": [dt.date(2000, 1, 8)],
                             "seen": pa.array([dt.datetime(2024, 5, 1, 12, 7, tzinfo=dt.timezone.utc)],
                                              pa.timestamp("us", tz="UTC")),
                             "amount": pa.array([decimal.Decimal("0.07")], pa.decimal128(10, 2))}), extra)
    r = cli("import", extra, "--table", "people", "--mode", "append", "--branch", "dev", lake=lake)
    assert r.returncode == 0, r.stderr
    assert [x["id"] for x in rows(lake, "SELECT id FROM people ORDER BY id", "dev")] == [1, 2, 3, 4, 5, 6, 7]
    assert [x["id"] for x in rows(lake, "SELECT id FROM people ORDER BY id")] == [1, 2, 3, 4, 5, 6]
    r = cli("merge", "dev", "--into", "main", lake=lake)
    assert r.returncode == 0, r.stderr
    assert rows(lake, "SELECT id, name, score FROM people ORDER BY id") == expected_people([1, 2, 3, 4, 5, 6]) + [
        {"id": 7, "name": "n7", "score": 1.75}]

    # pyiceberg reads the metadata file weir wrote: the same rows.
    from pyiceberg.table import StaticTable

    t = StaticTable.from_metadata(metadata_of(lake, "people"))
    got_rows = sorted(t.scan().to_arrow().select(["id", "name", "score"]).to_pylist(), key=lambda x: x["id"])
    assert got_rows == rows(lake, "SELECT id, name, score FROM people ORDER BY id")

    # The original table's files are byte-identical, and none was added to its folder.
    assert tree_hashes(pyice["table_dir"]) == before
    # The external catalog still sees its own table as it was.
    assert pyice["catalog"].load_table("db.people").metadata_location.removeprefix("file://") == pyice["metadata"]


def test_sdk_register_table_and_files(lake: pathlib.Path, pyice: dict[str, Any]) -> None:
    client = weir.Client(lake)
    assert cli("branch", "create", "sdk", lake=lake).returncode == 0
    res = client.register_table("db2.people", pyice["metadata"], branch="sdk")
    assert isinstance(res, weir.RegisterResult) and (res.mode, res.files, res.rows) == ("create", 2, 6)
    assert client.query("SELECT count(*) AS n FROM db2.people", ref="sdk").to_pylist() == [{"n": 6}]
    f = lake.parent / "more.parquet"
    pq.write_table(pa.table([pa.array([100, 101], pa.int64())], schema=pa.schema([field("id", pa.int64(), 1, False)])),
                   f)
    res = client.register_files("db2.people", [f], branch="sdk")
    assert (res.mode, res.files, res.rows, res.source) == ("append", 1, 2, None)
    assert client.query("SELECT count(*) AS n, count(name) AS named FROM db2.people", ref="sdk").to_pylist() == [
        {"n": 8, "named": 4}]
    with pytest.raises(weir.AlreadyExists):
        client.register_files("db2.people", [f], branch="sdk")
    with pytest.raises(TypeError):
        client.register_files("db2.people", str(f), branch="sdk")  # type: ignore[arg-type]


# ---- Spark (Hadoop catalog) -------------------------------------------------------------------

@pytest.fixture(scope="module")
def spark_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A table written by real Spark with Iceberg's Hadoop catalog, and the session (one for
    the module), which later reads what weir wrote."""
    jars = spark_jars()
    from pyspark.sql import SparkSession

    wh = tmp_path_factory.mktemp("spark") / "warehouse"
    spark = (SparkSession.builder.master("local[1]").appName("weir-register-test")
             .config("spark.jars", jars)
             .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config("spark.sql.catalog.hc", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.hc.type", "hadoop").config("spark.sql.catalog.hc.warehouse", f"file://{wh}")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
             .config("spark.sql.session.timeZone", "UTC").config("spark.driver.memory", "1g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        spark.sql("CREATE TABLE hc.db.orders (id BIGINT NOT NULL, item STRING, qty INT, price DECIMAL(10, 2), "
                  "d DATE, ts TIMESTAMP) USING iceberg TBLPROPERTIES ('format-version'='2')")
        spark.sql("INSERT INTO hc.db.orders VALUES (1, 'apple', 3, 1.25, DATE '2024-01-02', "
                  "TIMESTAMP '2024-01-02 10:00:00'), (2, NULL, 1, 9.99, DATE '2024-01-03', NULL)")
        spark.sql("INSERT INTO hc.db.orders VALUES (3, 'pear', NULL, 0.50, NULL, TIMESTAMP '2024-01-04 00:00:01')")
        spark.sql("CREATE TABLE hc.db.tagged (id BIGINT, tags ARRAY<STRING>) USING iceberg")
        spark.sql("INSERT INTO hc.db.tagged VALUES (1, array('a', 'b'))")
        spark_rows = sorted((r.asDict() for r in spark.sql("SELECT * FROM hc.db.orders").collect()),
                            key=lambda r: r["id"])
        yield {"dir": wh / "db" / "orders", "tagged": wh / "db" / "tagged", "rows": spark_rows, "spark": spark}
    finally:
        spark.stop()


def test_spark_hadoop_table_registered_queried_branched_merged(lake: pathlib.Path, spark_table: dict[str, Any]) -> None:
    table_dir = spark_table["dir"]
    before = tree_hashes(table_dir)
    hint = (table_dir / "metadata" / "version-hint.text").read_text().strip()
    # The folder of a Hadoop table: version-hint.text names the metadata file.
    assert cli("branch", "create", "dev", lake=lake).returncode == 0
    doc = weir_json("table", "register", "sales.orders", "--metadata", table_dir, "--branch", "dev", lake=lake)
    assert doc["source"] == str(table_dir / "metadata" / f"v{hint}.metadata.json")
    assert (doc["branch"], doc["files"], doc["rows"]) == ("dev", 2, 3)
    got = rows(lake, "SELECT id, item, qty, price::VARCHAR AS price, d::VARCHAR AS d, ts::VARCHAR AS ts "
                     "FROM sales.orders ORDER BY id", "dev")
    assert got == [
        {"id": 1, "item": "apple", "qty": 3, "price": "1.25", "d": "2024-01-02", "ts": "2024-01-02 10:00:00+00"},
        {"id": 2, "item": None, "qty": 1, "price": "9.99", "d": "2024-01-03", "ts": None},
        {"id": 3, "item": "pear", "qty": None, "price": "0.50", "d": None, "ts": "2024-01-04 00:00:01+00"}]
    assert [r["id"] for r in spark_table["rows"]] == [1, 2, 3]
    assert cli("query", "SELECT 1 FROM sales.orders", lake=lake).returncode != 0  # not on main yet
    desc = weir_json("describe", "sales.orders", "--ref", "dev", lake=lake)
    assert {c["name"]: c["required"] for c in desc["columns"]}["id"] is True

    # Branch from dev, change it there, merge back, then merge into main.
    assert cli("branch", "create", "fix", "--from", "dev", lake=lake).returncode == 0
    more = lake.parent / "orders_more.parquet"
    pq.write_table(pa.table([pa.array([4], pa.int64()), pa.array(["fig"])],
                            schema=pa.schema([field("id", pa.int64(), 1, False), field("item", pa.string(), 2)])),
                   more)
    r = cli("import", more, "--table", "sales.orders", "--register", "--branch", "fix", lake=lake)
    assert r.returncode == 0, r.stderr
    assert cli("merge", "fix", "--into", "dev", lake=lake).returncode == 0
    assert cli("merge", "dev", "--into", "main", lake=lake).returncode == 0
    assert rows(lake, "SELECT id, item FROM sales.orders ORDER BY id") == [
        {"id": 1, "item": "apple"}, {"id": 2, "item": None}, {"id": 3, "item": "pear"}, {"id": 4, "item": "fig"}]

    from pyiceberg.table import StaticTable

    t = StaticTable.from_metadata(metadata_of(lake, "sales.orders"))
    assert sorted(t.scan().to_arrow().select(["id", "item"]).to_pylist(), key=lambda x: x["id"]) == rows(
        lake, "SELECT id, item FROM sales.orders ORDER BY id")
    # Spark reads the metadata file weir wrote: the same rows, the external files and weir's.
    spark = spark_table["spark"]
    got = sorted((r.asDict() for r in spark.read.format("iceberg").load(metadata_of(lake, "sales.orders"))
                  .select("id", "item").collect()), key=lambda x: x["id"])
    assert got == rows(lake, "SELECT id, item FROM sales.orders ORDER BY id")
    assert tree_hashes(table_dir) == before


def test_spark_reads_files_registered_without_field_ids_through_the_name_mapping(
        lake: pathlib.Path, spark_table: dict[str, Any], tmp_path: pathlib.Path) -> None:
    """A pyarrow file without field ids added to a weir table by name: Spark, given the
    metadata file weir wrote, reads it through schema.name-mapping.default (columns in
    another order, one missing) and returns weir's rows."""
    seed = tmp_path / "seed.parquet"
    pq.write_table(pa.table({"id": pa.array([1], pa.int64()), "item": ["apple"], "qty": pa.array([3], pa.int32())}),
                   seed)
    assert cli("import", seed, "--table", "orders", lake=lake).returncode == 0
    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"item": ["fig", None], "id": pa.array([2, 3], pa.int64())}), plain)
    assert cli("import", plain, "--table", "orders", "--register", lake=lake).returncode == 0
    want = rows(lake, "SELECT id, item, qty FROM orders ORDER BY id")
    assert want == [{"id": 1, "item": "apple", "qty": 3}, {"id": 2, "item": "fig", "qty": None},
                    {"id": 3, "item": None, "qty": None}]
    spark = spark_table["spark"]
    got = sorted((r.asDict() for r in spark.read.format("iceberg").load(metadata_of(lake, "orders"))
                  .select("id", "item", "qty").collect()), key=lambda x: x["id"])
    assert got == want


def test_spark_table_with_a_list_column_is_refused_naming_it(lake: pathlib.Path,
                                                             spark_table: dict[str, Any]) -> None:
    before, h = tree_hashes(spark_table["tagged"]), head(lake)
    r = cli("table", "register", "tagged", "--metadata", spark_table["tagged"], lake=lake)
    assert r.returncode == 1
    assert 'column "tags" has Iceberg type' in r.stderr and "list" in r.stderr, r.stderr
    assert head(lake) == h and tree_hashes(spark_table["tagged"]) == before


# ---- bad inputs ---------------------------------------------------------------------------------

def test_missing_and_non_iceberg_files_are_refused(lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    h = head(lake)
    r = cli("table", "register", "t", "--metadata", tmp_path / "nope.metadata.json", lake=lake)
    assert r.returncode == 1 and "no such file" in r.stderr, r.stderr
    other = tmp_path / "other.json"
    other.write_text('{"name": "not a table", "rows": [1, 2]}')
    r = cli("table", "register", "t", "--metadata", other, lake=lake)
    assert r.returncode == 1 and "not a valid Iceberg metadata file" in r.stderr and str(other) in r.stderr
    r = cli("table", "register", "t", "--metadata", tmp_path, lake=lake)
    assert r.returncode == 1 and "version-hint.text" in r.stderr
    assert f"nor any *.metadata.json file in {tmp_path}" in r.stderr, r.stderr
    # A folder without a version hint: the suggestion is a file that is there, the newest
    # (it suggested metadata/v1.metadata.json, which did not exist).
    meta = tmp_path / "tbl" / "metadata"
    meta.mkdir(parents=True)
    for name in ("00001-a.metadata.json", "00002-b.metadata.json"):
        (meta / name).write_text("{}")
    r = cli("table", "register", "t", "--metadata", tmp_path / "tbl", lake=lake)
    assert r.returncode == 1 and f"the newest: {meta}/00002-b.metadata.json)" in r.stderr, r.stderr
    r = cli("table", "register", "t", lake=lake)
    assert r.returncode == 2 and "--metadata" in r.stderr
    r = cli("table", "register", "t__quarantine", "--metadata", other, lake=lake)
    assert r.returncode == 2 and "__quarantine" in r.stderr, r.stderr
    assert head(lake) == h
    assert weir_list("tables", lake=lake) == []


def test_unsupported_type_and_existing_table_are_refused(lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, TimeType

    cat = SqlCatalog("bad", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}")
    cat.create_namespace("db")
    t = cat.create_table("db.clock", Schema(NestedField(1, "id", LongType()), NestedField(2, "at", TimeType())))
    t.append(pa.table({"id": pa.array([1], pa.int64()), "at": pa.array([dt.time(1, 2)], pa.time64("us"))}))
    h = head(lake)
    r = cli("table", "register", "clock", "--metadata", t.metadata_location, lake=lake)
    assert r.returncode == 1 and 'column "at" has Iceberg type time' in r.stderr, r.stderr
    assert head(lake) == h


def test_required_column_with_nulls_by_the_manifests_is_refused(lake: pathlib.Path, pyice: dict[str, Any],
                                                               tmp_path: pathlib.Path) -> None:
    """A metadata file that calls `name` required while its data files count nulls."""
    meta = json.loads(pathlib.Path(pyice["metadata"]).read_text())
    for s in meta["schemas"]:
        for f in s["fields"]:
            if f["name"] == "name":
                f["required"] = True
    lying = tmp_path / "v9.metadata.json"
    lying.write_text(json.dumps(meta))
    h = head(lake)
    r = cli("table", "register", "liar", "--metadata", lying, lake=lake)
    assert r.returncode == 1 and 'column "name" is required' in r.stderr and "holds 1 null (by its manifest)" in r.stderr, r.stderr
    assert head(lake) == h


def test_contract_is_checked_by_reading_the_data(lake: pathlib.Path, pyice: dict[str, Any],
                                                 tmp_path: pathlib.Path) -> None:
    strict = tmp_path / "strict.yml"
    strict.write_text("contract:\n  name: People\n  columns:\n    - {name: id, type: Int64, max: 4}\n"
                      "    - {name: name, type: String, nullable: true}\n"
                      "    - {name: score, type: Float64, nullable: true}\n"
                      "    - {name: born, type: Date32, nullable: true}\n"
                      "    - {name: seen, type: TimestampMicroUTC, nullable: true}\n"
                      "    - {name: amount, type: 'Decimal(10, 2)', nullable: true}\n")
    h = head(lake)
    r = cli("table", "register", "people", "--metadata", pyice["metadata"], "--contract", strict, lake=lake)
    assert r.returncode == 3 and "contract violation" in r.stderr and '"id"' in r.stderr, r.stderr
    assert head(lake) == h
    ok = tmp_path / "ok.yml"
    ok.write_text(strict.read_text().replace("max: 4}", "max: 100}"))
    doc = weir_json("table", "register", "people", "--metadata", pyice["metadata"], "--contract", ok, lake=lake)
    assert doc["report"]["ok"] is True
    assert weir_json("describe", "people", lake=lake)["contract"]["name"] == "People"
    # Files registered into it later are held to the stored contract, by their data.
    bad = tmp_path / "big.parquet"
    pq.write_table(pa.table([pa.array([500], pa.int64())], schema=pa.schema([field("id", pa.int64(), 1, False)])),
                   bad)
    h = head(lake)
    r = cli("import", bad, "--table", "people", "--register", lake=lake)
    assert r.returncode == 3 and "contract violation" in r.stderr, r.stderr
    assert head(lake) == h


# ---- weir import --register -------------------------------------------------------------------

@pytest.fixture
def ids_lake(lake: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    """A table `t` (id:foo Int64 required, label String) made by weir."""
    src = tmp_path / "seed.parquet"
    pq.write_table(pa.table({"id:foo": pa.array([1], pa.int64()), "label": ["one"]},
                            schema=pa.schema([pa.field("id:foo", pa.int64(), nullable=False),
                                              pa.field("label", pa.string())])), src)
    contract = tmp_path / "t.yml"
    contract.write_text("contract:\n  name: T\n  columns:\n    - {name: 'id:foo', type: Int64}\n"
                        "    - {name: label, type: String, nullable: true}\n")
    r = cli("import", src, "--table", "t", "--contract", contract, lake=lake)
    assert r.returncode == 0, r.stderr
    return lake


def ids_of(lake: pathlib.Path) -> dict[str, int]:
    return {c["name"]: c["field_id"] for c in weir_json("describe", "t", lake=lake)["columns"]}


def test_import_register_matches_by_field_id_in_one_commit(ids_lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    fid = ids_of(ids_lake)
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    # The physical name Avro-style writers give `id:foo`, with its field id.
    pq.write_table(pa.table([pa.array([2, 3], pa.int64()), pa.array(["two", None])],
                            schema=pa.schema([field("id_x3Afoo", pa.int64(), fid["id:foo"], False),
                                              field("whatever", pa.string(), fid["label"])])), a)
    pq.write_table(pa.table([pa.array([4], pa.int64())],
                            schema=pa.schema([field("id_x3Afoo", pa.int64(), fid["id:foo"], False)])), b)
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (a, b)}
    n_commits = len(weir_list("log", lake=ids_lake))
    doc = weir_json("import", a, b, "--table", "t", "--register", lake=ids_lake)
    assert (doc["mode"], doc["files"], doc["rows"]) == ("append", 2, 3)
    assert len(weir_list("log", lake=ids_lake)) == n_commits + 1
    assert rows(ids_lake, 'SELECT "id:foo" AS i, label FROM t ORDER BY 1') == [
        {"i": 1, "label": "one"}, {"i": 2, "label": "two"}, {"i": 3, "label": None}, {"i": 4, "label": None}]
    # Referenced, not copied: the files are where they were, unchanged, and named by the table.
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (a, b)} == before
    assert not any(p.name in ("a.parquet", "b.parquet") for p in (ids_lake / "warehouse").rglob("*"))
    from pyiceberg.table import StaticTable

    files = {f.file.file_path for f in StaticTable.from_metadata(metadata_of(ids_lake, "t")).scan().plan_files()}
    assert f"file://{a}" in files and f"file://{b}" in files


@pytest.mark.parametrize("case", ["no_ids", "nulls", "optional", "type", "unknown_id", "missing_required"])
def test_import_register_refuses_incompatible_files(ids_lake: pathlib.Path, tmp_path: pathlib.Path,
                                                    case: str) -> None:
    fid = ids_of(ids_lake)
    f = tmp_path / f"{case}.parquet"
    if case == "no_ids":
        # Without field ids a file is matched by name (test_name_mapping.py): a name the
        # table does not have is refused.
        schema, cols, want = (pa.schema([pa.field("id_x3Afoo", pa.int64(), nullable=False)]), [[5]],
                              'its column "id_x3Afoo" (no field id, so matched by name) is no column of the table')
    elif case == "nulls":
        schema, cols, want = (pa.schema([field("id_x3Afoo", pa.int64(), fid["id:foo"], True)]), [[5, None]],
                              'column "id:foo" is required, but the file\'s footer counts 1 null')
    elif case == "optional":
        schema, cols, want = (pa.schema([field("id_x3Afoo", pa.int64(), fid["id:foo"], True)]), [[5]],
                              'column "id:foo" is required, but its Parquet field is optional')
    elif case == "type":
        schema, cols, want = (pa.schema([field("id_x3Afoo", pa.string(), fid["id:foo"], False)]), [["x"]],
                              "holds VARCHAR, but the table's column is Int64")
    elif case == "unknown_id":
        schema, cols, want = (pa.schema([field("id_x3Afoo", pa.int64(), fid["id:foo"], False),
                                         field("extra", pa.int64(), 77)]), [[5], [6]],
                              'column "extra" has field id 77, which is no column of the table')
    else:
        schema, cols, want = (pa.schema([field("label", pa.string(), fid["label"])]), [["x"]],
                              'lacks the required column "id:foo"')
    pq.write_table(pa.table([pa.array(c, schema.field(i).type) for i, c in enumerate(cols)], schema=schema), f)
    h = head(ids_lake)
    r = cli("import", f, "--table", "t", "--register", lake=ids_lake)
    assert r.returncode == 1, r.stderr
    assert str(f) in r.stderr and want in r.stderr, r.stderr
    assert head(ids_lake) == h


def test_import_register_of_a_missing_file_commits_nothing(ids_lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    h = head(ids_lake)
    r = cli("import", tmp_path / "gone.parquet", "--table", "t", "--register", lake=ids_lake)
    assert r.returncode == 1 and "no such file" in r.stderr and "gone.parquet" in r.stderr
    assert head(ids_lake) == h


def test_import_of_a_metadata_file_points_to_table_register(lake: pathlib.Path, pyice: dict[str, Any],
                                                            tmp_path: pathlib.Path) -> None:
    r = cli("import", pyice["metadata"], "--table", "people", lake=lake)
    assert r.returncode == 1
    assert "is an Iceberg table metadata file" in r.stderr and "weir table register" in r.stderr, r.stderr
    # Recognised by content too, whatever its name.
    renamed = tmp_path / "table.json"
    renamed.write_bytes(pathlib.Path(pyice["metadata"]).read_bytes())
    r = cli("import", renamed, "--table", "people", lake=lake)
    assert r.returncode == 1 and "weir table register" in r.stderr, r.stderr
    assert weir_list("tables", lake=lake) == []


def test_missing_statistics_mean_unknown_and_the_data_decides(lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """A writer that records no column metrics (write.metadata.metrics.default=none): the
    null counts of a required column are unknown, so the files are read."""
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    cat = SqlCatalog("nostats", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}")
    cat.create_namespace("db")
    t = cat.create_table("db.bare", Schema(NestedField(1, "id", LongType(), required=True),
                                           NestedField(2, "note", StringType())),
                         properties={"write.metadata.metrics.default": "none"})
    t.append(pa.table({"id": pa.array([1, 2], pa.int64()), "note": ["a", None]},
                      schema=pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("note", pa.string())])))
    meta = t.metadata_location.removeprefix("file://")
    from pyiceberg.table import StaticTable

    entries = [f.file for f in StaticTable.from_metadata(meta).scan().plan_files()]
    assert entries and all(not e.null_value_counts for e in entries), "the writer recorded null counts"
    doc = weir_json("table", "register", "bare", "--metadata", meta, lake=lake)
    assert doc["rows"] == 2
    # The same files under a metadata file that calls `note` required: the data has a null.
    m = json.loads(pathlib.Path(meta).read_text())
    for s in m["schemas"]:
        for f in s["fields"]:
            f["required"] = True
    lying = tmp_path / "v9.metadata.json"
    lying.write_text(json.dumps(m))
    h = head(lake)
    r = cli("table", "register", "liar", "--metadata", lying, lake=lake)
    assert r.returncode == 1 and 'column "note" is required but its data holds 1 null' in r.stderr, r.stderr
    assert head(lake) == h


def test_import_register_without_field_ids_matches_the_table_name(ids_lake: pathlib.Path,
                                                                   tmp_path: pathlib.Path) -> None:
    """Without field ids, `id:foo` is matched by its name as the table spells it (with ids,
    its Avro-sanitised physical name `id_x3Afoo` reads as `id:foo`, the test above)."""
    f = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"id:foo": pa.array([6], pa.int64()), "label": ["six"]},
                            schema=pa.schema([pa.field("id:foo", pa.int64(), nullable=False),
                                              pa.field("label", pa.string())])), f)
    doc = weir_json("import", f, "--table", "t", "--register", lake=ids_lake)
    assert doc["rows"] == 1
    assert rows(ids_lake, 'SELECT "id:foo" AS i, label FROM t ORDER BY 1') == [
        {"i": 1, "label": "one"}, {"i": 6, "label": "six"}]
    from pyiceberg.table import StaticTable

    got = StaticTable.from_metadata(metadata_of(ids_lake, "t")).scan().to_arrow().to_pylist()
    assert sorted(got, key=lambda r: r["id:foo"]) == [{"id:foo": 1, "label": "one"}, {"id:foo": 6, "label": "six"}]


def test_projects_read_a_registered_table(lake: pathlib.Path, pyice: dict[str, Any], tmp_path: pathlib.Path) -> None:
    """SQL and (sandboxed) Python models read the external files of a registered table."""
    assert cli("table", "register", "people", "--metadata", pyice["metadata"], lake=lake).returncode == 0
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("name: reg\nnamespace: default\n")
    (proj / "doubled.sql").write_text("-- weir: name=doubled\n-- weir: materialization=REPLACE\n"
                                      "SELECT id, score * 2 AS s2 FROM people\n")
    (proj / "models.py").write_text(
        "from typing import Annotated\nimport pyarrow as pa\nimport weir\n"
        "from weir import Int64, Model, Table, TableSchema\n\n\nclass Ids(TableSchema):\n    id: Int64\n\n\n"
        "@weir.model\ndef ids(src: Annotated[pa.Table, Model(\"people\")]) -> Table[Ids]:\n"
        "    return src.select([\"id\"])\n")
    r = cli("run", proj, lake=lake)
    assert r.returncode == 0, r.stdout + r.stderr
    assert rows(lake, "SELECT sum(s2) AS t FROM doubled") == [{"t": sum(i / 2 for i in range(1, 7))}]
    assert rows(lake, "SELECT count(*) AS n FROM ids") == [{"n": 6}]


def test_another_format_version_is_refused(lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField

    cat = SqlCatalog("v1", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}")
    cat.create_namespace("db")
    t = cat.create_table("db.old", Schema(NestedField(1, "id", LongType())), properties={"format-version": "1"})
    t.append(pa.table({"id": pa.array([1], pa.int64())}))
    h = head(lake)
    r = cli("table", "register", "old", "--metadata", t.metadata_location, lake=lake)
    assert r.returncode == 1 and "format-version 1" in r.stderr and "format-version 2" in r.stderr, r.stderr
    assert head(lake) == h


def test_a_unique_rule_holds_across_the_table_and_the_files(lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    src = tmp_path / "seed.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64())}), src)
    contract = tmp_path / "u.yml"
    contract.write_text("contract:\n  name: U\n  columns:\n    - {name: id, type: Int64, unique: true}\n")
    assert cli("import", src, "--table", "u", "--contract", contract, lake=lake).returncode == 0
    fid = {c["name"]: c["field_id"] for c in weir_json("describe", "u", lake=lake)["columns"]}
    dup, fresh = tmp_path / "dup.parquet", tmp_path / "fresh.parquet"
    for path, ids in ((dup, [2, 3]), (fresh, [3, 4])):
        pq.write_table(pa.table([pa.array(ids, pa.int64())], schema=pa.schema([field("id", pa.int64(), fid["id"], False)])),
                       path)
    h = head(lake)
    r = cli("import", dup, "--table", "u", "--register", lake=lake)
    assert r.returncode == 3 and "column \"id\" has 1 duplicate value (e.g. 2)" in r.stderr, r.stderr
    assert head(lake) == h
    assert weir_json("import", fresh, "--table", "u", "--register", lake=lake)["rows"] == 2
    assert [x["id"] for x in rows(lake, "SELECT id FROM u ORDER BY id")] == [1, 2, 3, 4]


def test_a_client_reads_a_table_another_process_registered(lake: pathlib.Path, pyice: dict[str, Any]) -> None:
    """The client's idle SQL engine was restricted before the grant: it is not reused."""
    client = weir.Client(lake)
    assert client.query("SELECT 1 AS x").to_pylist() == [{"x": 1}]
    assert cli("table", "register", "people", "--metadata", pyice["metadata"], lake=lake).returncode == 0
    assert client.query("SELECT count(*) AS n FROM people").to_pylist() == [{"n": 6}]


def test_a_partitioned_pyiceberg_table_is_registered_pruned_and_written(lake: pathlib.Path,
                                                                        tmp_path: pathlib.Path) -> None:
    """Issue 13: partitioned external tables were refused. A table pyiceberg partitioned by
    identity(d) is adopted with its spec and each file's partition tuple: reads prune by
    it, weir's append is written under it, and pyiceberg reads weir's version."""
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.table import StaticTable
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.types import DateType, LongType, NestedField, StringType

    wh = tmp_path / "wh"
    wh.mkdir()
    cat = SqlCatalog("ext", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{wh}")
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "d", DateType()),
                    NestedField(3, "s", StringType()))
    t = cat.create_table("db.p", schema, partition_spec=PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "d")))
    arrow_schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("d", pa.date32()),
                              pa.field("s", pa.string())])
    days = [dt.date(2024, 1, 1), dt.date(2024, 1, 1), dt.date(2024, 1, 2), dt.date(2024, 1, 3)]
    t.append(pa.table({"id": [1, 2, 3, 4], "d": days, "s": ["a", "b", "c", "d"]}, schema=arrow_schema))
    before = tree_hashes(wh)
    doc = weir_json("table", "register", "p", "--metadata", t.metadata_location.removeprefix("file://"), lake=lake)
    assert (doc["files"], doc["rows"]) == (3, 4)
    explain = weir_json("query", "SELECT * FROM p WHERE d = '2024-01-02'", "--explain", lake=lake)["tables"][0]
    assert (explain["files_read"], explain["files_total"], explain["pruned_by_partition"]) == (1, 3, 2)
    (tmp_path / "a.csv").write_text("id,d,s\n5,2024-01-02,e\n")
    r = cli("import", tmp_path / "a.csv", "--table", "p", "--mode", "append", lake=lake)
    assert r.returncode == 0, r.stderr
    assert rows(lake, "SELECT id FROM p WHERE d = '2024-01-02' ORDER BY id") == [{"id": 3}, {"id": 5}]
    mine = StaticTable.from_metadata(weir_json("describe", "p", lake=lake)["metadata_location"])
    assert sorted(r["id"] for r in mine.scan().to_arrow().to_pylist()) == [1, 2, 3, 4, 5]
    assert [f.source_id for f in mine.spec().fields] == [2]
    assert all(task.file.spec_id == 0 and len(task.file.partition) == 1 for task in mine.scan().plan_files())
    assert tree_hashes(wh) == before  # the original table's files are untouched
