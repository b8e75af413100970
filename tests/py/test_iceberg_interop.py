"""Iceberg readers other than weir read the tables weir's iceberg module writes.

tests/c/iceberg/tool_write_table.c writes tables through libweir's iceberg module, with
Parquet data files written by DuckDB (COPY ... FIELD_IDS, RETURN_STATS) and metrics
converted by iceberg_column_stats_from_text. Here pyiceberg (StaticTable.from_metadata)
and DuckDB's iceberg extension (iceberg_scan) read them back from the metadata file alone
and must see exactly the source rows, the schema (names, types, required flags, docs,
field ids), the per-file statistics, the properties, and every older version.
"""
from __future__ import annotations

import glob
import importlib
import json
import os
import pathlib

import pytest

from conftest import TITANIC, build_path, run

TOOL = "iceberg_tool_write_table"


def _ext(name: str) -> str:
    mod = importlib.import_module(f"duckdb_extension_{name}")
    found = glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", "v1.5.5", f"{name}.duckdb_extension"))
    assert found, f"the {name} extension of DuckDB 1.5.5 is missing"
    return found[0]


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("iceberg")
    p = run([str(build_path(TOOL)), str(out), str(TITANIC)])
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def con():
    import duckdb

    c = duckdb.connect()
    c.execute(f"LOAD '{_ext('avro')}'")  # the iceberg extension reads manifests through avro
    c.execute(f"LOAD '{_ext('iceberg')}'")
    c.execute("SET TimeZone = 'UTC'")
    yield c
    c.close()


def _version(tables: dict, table: str, op: str) -> dict:
    return next(v for v in tables[table]["versions"] if v["op"] == op)


def _static(path: str):
    from pyiceberg.table import StaticTable

    return StaticTable.from_metadata(path)


def _key(row: tuple) -> tuple:
    return tuple((v is None, v if v is not None else 0) for v in row)


def _rows_of_arrow(t, columns: list[str]) -> list[tuple]:
    import pyarrow as pa

    cols = []
    for c in columns:
        col = t.column(c)
        if pa.types.is_timestamp(col.type) and col.type.tz is not None:
            col = col.cast(pa.int64())  # instants as epoch micros (see _TYPES_SELECT)
        cols.append(col.to_pylist())
    return sorted(zip(*cols, strict=True), key=_key)


# Instants are compared as epoch microseconds (fetching TIMESTAMPTZ into Python would need
# pytz, which the environment does not have).
_TYPES_SELECT = "SELECT * REPLACE (epoch_us(tstz) AS tstz) FROM {source}"


# The source rows of each titanic version, computed by DuckDB straight from the CSV.
_SRC = f"(SELECT * REPLACE (Pclass::INTEGER AS Pclass) FROM read_csv('{TITANIC}'))"
EXPECTED_SQL = {
    "create": f"SELECT * FROM {_SRC}",
    "append": f"SELECT * FROM {_SRC} UNION ALL SELECT * FROM {_SRC} WHERE Pclass = 1",
    "overwrite": f"SELECT * EXCLUDE (Ticket), Fare / (SibSp + Parch + 1) AS FarePerPerson FROM {_SRC} WHERE Sex = 'female'",
}
COUNTS = {"create": 891, "append": 891 + 216, "overwrite": 314}

TITANIC_V1_SCHEMA = [  # (id, name, iceberg type, required)
    (1, "PassengerId", "long", True),
    (2, "Survived", "long", True),
    (3, "Pclass", "int", True),
    (4, "Name", "string", True),
    (5, "Sex", "string", True),
    (6, "Age", "double", False),
    (7, "SibSp", "long", True),
    (8, "Parch", "long", True),
    (9, "Ticket", "string", True),
    (10, "Fare", "double", True),
    (11, "Cabin", "string", False),
    (12, "Embarked", "string", False),
]
TITANIC_V3_SCHEMA = [f for f in TITANIC_V1_SCHEMA if f[1] != "Ticket"] + [(13, "FarePerPerson", "double", True)]
SCHEMAS = {"create": TITANIC_V1_SCHEMA, "append": TITANIC_V1_SCHEMA, "overwrite": TITANIC_V3_SCHEMA}
DUCKDB_TYPES = {"long": "BIGINT", "int": "INTEGER", "string": "VARCHAR", "double": "DOUBLE"}


def _expected(con, op: str) -> tuple[list[str], list[tuple]]:
    r = con.execute(EXPECTED_SQL[op])
    names = [d[0] for d in r.description]
    return names, sorted(r.fetchall(), key=_key)


# ---- rows -------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["create", "append", "overwrite"])
def test_pyiceberg_reads_exactly_the_source_rows(tables, con, op):
    v = _version(tables, "titanic", op)
    names, expected = _expected(con, op)
    got = _static(v["metadata"]).scan().to_arrow()
    assert got.num_rows == COUNTS[op] == len(expected) == v["records"]
    assert got.column_names == names
    assert _rows_of_arrow(got, names) == expected


@pytest.mark.parametrize("op", ["create", "append", "overwrite"])
def test_duckdb_iceberg_scan_reads_exactly_the_source_rows(tables, con, op):
    v = _version(tables, "titanic", op)
    names, expected = _expected(con, op)
    r = con.execute(f"SELECT * FROM iceberg_scan('{v['metadata']}')")
    assert [d[0] for d in r.description] == names
    assert sorted(r.fetchall(), key=_key) == expected


# ---- schema -----------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["create", "append", "overwrite"])
def test_pyiceberg_sees_ids_types_required_flags_and_docs(tables, op):
    from pyiceberg.table import StaticTable

    t = StaticTable.from_metadata(_version(tables, "titanic", op)["metadata"])
    fields = t.schema().fields
    assert [(f.field_id, f.name, str(f.field_type), f.required) for f in fields] == SCHEMAS[op]
    docs = {f.name: f.doc for f in fields}
    assert docs["PassengerId"] == "Unique passenger number."
    assert docs["Fare"] == "Passenger fare in pounds."
    assert docs["Age"] == ("Age in years at embarkation." if op == "overwrite" else "Age in years; fractional below 1.")
    assert t.metadata.format_version == 2
    assert t.metadata.last_column_id == (13 if op == "overwrite" else 12)
    assert t.metadata.current_schema_id == (1 if op == "overwrite" else 0)
    # The Parquet files carry the same field ids (readers resolve columns by id).
    import pyarrow.parquet as pq

    for task in t.scan().plan_files():
        pschema = pq.read_schema(task.file.file_path)
        ids = {f.name: int(f.metadata[b"PARQUET:field_id"]) for f in pschema}
        assert all(ids[f.name] == f.field_id for f in fields if f.name in ids)


@pytest.mark.parametrize("op", ["create", "overwrite"])
def test_duckdb_sees_names_and_types(tables, con, op):
    v = _version(tables, "titanic", op)
    got = [(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM iceberg_scan('{v['metadata']}')").fetchall()]
    assert got == [(name, DUCKDB_TYPES[t]) for _, name, t, _ in SCHEMAS[op]]


# ---- statistics -------------------------------------------------------------------------


def _truth_sql(col: str, iceberg_type: str, agg: str) -> str:
    c = f'"{col}"'
    if iceberg_type == "date":
        return f"{agg}({c}) - DATE '1970-01-01'"
    if iceberg_type in ("timestamp", "timestamptz"):
        return f"epoch_us({agg}({c}))"
    if iceberg_type == "timestamp_ns":
        return f"epoch_ns({agg}({c}))"
    return f"{agg}({c})"


def _expected_bound(value, iceberg_type: str, upper: bool):
    """The bound an Iceberg writer stores for a true min/max (truncate(16) for strings)."""
    from pyiceberg.utils.truncate import truncate_upper_bound_binary_string, truncate_upper_bound_text_string

    if iceberg_type == "string":
        return truncate_upper_bound_text_string(value, 16) if upper else value[:16]
    if iceberg_type == "binary":
        return truncate_upper_bound_binary_string(bytes(value), 16) if upper else bytes(value)[:16]
    return value


def _local(uri: str) -> str:
    """The local path of a location weir wrote: always a full file:// URI (the spec's form)."""
    assert uri.startswith("file:///"), uri
    return uri[len("file://"):]


def _uri(path: str) -> str:
    return "file://" + path


def _check_file_stats(con, t, task):
    from pyiceberg.conversions import from_bytes

    f = task.file
    path = f.file_path
    (n,) = con.execute(f"SELECT count(*) FROM read_parquet('{path}')").fetchone()
    assert f.record_count == n
    assert f.file_size_in_bytes == os.path.getsize(_local(path))
    assert str(f.file_format) in ("FileFormat.PARQUET", "PARQUET")
    for field in t.schema().fields:
        ty = str(field.field_type)
        fid = field.field_id
        nulls, lo, hi = con.execute(
            f"SELECT count(*) - count(\"{field.name}\"), {_truth_sql(field.name, ty, 'min')}, "
            f"{_truth_sql(field.name, ty, 'max')} FROM read_parquet('{path}')"
        ).fetchone()
        assert f.value_counts[fid] == n, field.name
        assert f.null_value_counts[fid] == nulls, field.name
        assert f.column_sizes[fid] > 0, field.name
        if ty in ("float", "double"):
            assert f.nan_value_counts[fid] == 0, field.name
        if lo is None:  # every value null: no bounds
            assert fid not in (f.lower_bounds or {}) and fid not in (f.upper_bounds or {})
            continue
        got_lo = from_bytes(field.field_type, f.lower_bounds[fid])
        got_hi = from_bytes(field.field_type, f.upper_bounds[fid])
        assert got_lo == _expected_bound(lo, ty, False), (field.name, got_lo, lo)
        assert got_hi == _expected_bound(hi, ty, True), (field.name, got_hi, hi)
        assert got_lo <= got_hi


@pytest.mark.parametrize("op", ["create", "append", "overwrite"])
def test_pyiceberg_sees_the_titanic_file_statistics(tables, con, op):
    t = _static(_version(tables, "titanic", op)["metadata"])
    tasks = list(t.scan().plan_files())
    assert len(tasks) == {"create": 2, "append": 3, "overwrite": 1}[op]
    assert sum(task.file.record_count for task in tasks) == COUNTS[op]
    for task in tasks:
        _check_file_stats(con, t, task)
    # Spot checks with values known from the data: files of passengers 1..450 and 451..891.
    if op == "create":
        from pyiceberg.conversions import from_bytes
        from pyiceberg.types import DoubleType, LongType, StringType

        by_first = sorted(tasks, key=lambda task: from_bytes(LongType(), task.file.lower_bounds[1]))
        assert [(from_bytes(LongType(), task.file.lower_bounds[1]), from_bytes(LongType(), task.file.upper_bounds[1]))
                for task in by_first] == [(1, 450), (451, 891)]
        assert min(from_bytes(DoubleType(), task.file.lower_bounds[6]) for task in tasks) == 0.42  # Age
        assert max(from_bytes(DoubleType(), task.file.upper_bounds[6]) for task in tasks) == 80.0
        assert max(from_bytes(DoubleType(), task.file.upper_bounds[10]) for task in tasks) == 512.3292  # Fare
        assert sum(task.file.null_value_counts[6] for task in tasks) == 177  # Age
        assert sum(task.file.null_value_counts[11] for task in tasks) == 687  # Cabin
        assert sum(task.file.null_value_counts[12] for task in tasks) == 2  # Embarked
        # Name is longer than 16 characters: truncated, the upper bound incremented.
        assert max(from_bytes(StringType(), task.file.upper_bounds[4]) for task in tasks) == "van Melkebeke, N"


def test_pyiceberg_sees_bounds_of_every_type(tables, con):
    t = _static(_version(tables, "types", "create")["metadata"])
    types = [str(f.field_type) for f in t.schema().fields]
    assert types == ["long", "boolean", "int", "long", "float", "double", "decimal(10, 2)", "decimal(38, 6)",
                     "string", "string", "binary", "date", "timestamp", "timestamptz"]
    tasks = list(t.scan().plan_files())
    assert len(tasks) == 2
    for task in tasks:
        _check_file_stats(con, t, task)


# Filters near the file boundaries: readers prune files by their bounds, so a wrong bound
# would lose rows. Each filter's count must equal the count over the Parquet files.
TYPE_FILTERS = [
    ("id", "id >= 399", "id >= 399"),
    ("i32", "i32 < -100", "i32 < -100"),
    ("i64", "i64 > 400000000", "i64 > 400000000"),
    ("f64", "f64 <= 33.0", "f64 <= 33.0"),
    ("dec", "dec >= 200.00", "dec >= 200.00"),
    ("str", "str = 'name-0401'", "str == 'name-0401'"),
    ("long_str", "long_str > 'long string é long string é 5'", "long_str > 'long string é long string é 5'"),
    ("day", "day >= DATE '2025-03-05'", "day >= '2025-03-05'"),
    ("ts", "ts < TIMESTAMP '2024-02-17 00:00:00'", "ts < '2024-02-17T00:00:00'"),
]


@pytest.mark.parametrize("col,sql,pyfilter", TYPE_FILTERS, ids=[f[0] for f in TYPE_FILTERS])
def test_filters_use_bounds_correctly(tables, con, col, sql, pyfilter):
    v = _version(tables, "types", "create")
    files = ", ".join(f"'{p}'" for p in v["files"])
    (truth,) = con.execute(f"SELECT count(*) FROM read_parquet([{files}]) WHERE {sql}").fetchone()
    assert truth > 0
    (duck,) = con.execute(f"SELECT count(*) FROM iceberg_scan('{v['metadata']}') WHERE {sql}").fetchone()
    assert duck == truth
    got = _static(v["metadata"]).scan(row_filter=pyfilter).to_arrow()
    assert got.num_rows == truth


EDGE_COLUMNS = ["id", "flag", "i32", "i64", "f32", "f64", "dec", "dec38", "str", "long_str", "bin", "day", "ts", "tstz"]


def _pyiceberg_value(con, col: str, typ: str, agg: str, path: str):
    """The file's min/max as a Python value pyiceberg can bind (instants as epoch micros)."""
    if typ.startswith("TIMESTAMP"):
        return con.execute(f"SELECT epoch_us({agg}({col})) FROM read_parquet('{path}')").fetchone()[0]
    if typ == "DATE":
        return con.execute(f"SELECT {agg}({col}) - DATE '1970-01-01' FROM read_parquet('{path}')").fetchone()[0]
    return con.execute(f"SELECT {agg}({col}) FROM read_parquet('{path}')").fetchone()[0]


@pytest.mark.parametrize("col", EDGE_COLUMNS)
def test_equality_filters_at_every_file_edge_find_their_rows(tables, con, col):
    """col = (min or max of a file): a bound tighter than the data would prune that file."""
    from pyiceberg.expressions import EqualTo

    v = _version(tables, "types", "create")
    files = ", ".join(f"'{p}'" for p in v["files"])
    t = _static(v["metadata"])
    for path in v["files"]:
        (typ,) = con.execute(f"SELECT typeof({col}) FROM read_parquet('{path}') LIMIT 1").fetchone()
        for agg in ("min", "max"):
            (text,) = con.execute(f"SELECT {agg}({col})::VARCHAR FROM read_parquet('{path}')").fetchone()
            cond = f"{col} = CAST('{text.replace(chr(39), chr(39) * 2)}' AS {typ})"
            (truth,) = con.execute(f"SELECT count(*) FROM read_parquet([{files}]) WHERE {cond}").fetchone()
            assert truth >= 1, cond
            (duck,) = con.execute(f"SELECT count(*) FROM iceberg_scan('{v['metadata']}') WHERE {cond}").fetchone()
            assert duck == truth, cond
            value = _pyiceberg_value(con, col, typ, agg, path)
            got = t.scan(row_filter=EqualTo(col, value)).to_arrow().num_rows
            assert got == truth, (col, agg, value)


def test_duckdb_reads_every_type_exactly(tables, con):
    v = _version(tables, "types", "create")
    files = ", ".join(f"'{p}'" for p in v["files"])
    expected = con.execute(_TYPES_SELECT.format(source=f"read_parquet([{files}])")).fetchall()
    got = con.execute(_TYPES_SELECT.format(source=f"iceberg_scan('{v['metadata']}')")).fetchall()
    expected, got = sorted(expected, key=_key), sorted(got, key=_key)
    assert len(got) == 1000
    assert got == expected


def test_pyiceberg_reads_every_type_exactly(tables, con):
    v = _version(tables, "types", "create")
    files = ", ".join(f"'{p}'" for p in v["files"])
    r = con.execute(_TYPES_SELECT.format(source=f"read_parquet([{files}])"))
    names = [d[0] for d in r.description]
    expected = sorted(r.fetchall(), key=_key)
    got = _static(v["metadata"]).scan().to_arrow()
    assert _rows_of_arrow(got, names) == expected


# ---- nanosecond timestamps (Iceberg format v3 types) ------------------------------------


def test_timestamp_ns_metadata_and_duckdb(tables, con):
    from pyiceberg.conversions import from_bytes

    v = _version(tables, "types_ns", "create")
    t = _static(v["metadata"])
    fields = t.schema().fields
    assert [str(f.field_type) for f in fields] == ["long", "timestamp_ns"]
    (task,) = list(t.scan().plan_files())
    assert from_bytes(fields[1].field_type, task.file.lower_bounds[2]) == 1706702400123456789
    assert from_bytes(fields[1].field_type, task.file.upper_bounds[2]) == 1706702400123456789 + 9 * 1000000001
    got = con.execute(f"SELECT epoch_ns(ts_ns) FROM iceberg_scan('{v['metadata']}') ORDER BY 1").fetchall()
    assert [r[0] for r in got] == [1706702400123456789 + i * 1000000001 for i in range(10)]


def test_timestamp_ns_pyiceberg_data(tables):
    """A table with nanosecond timestamps is format version 3 (timestamp_ns exists only
    there), which pyiceberg reads with the exact values; other tables stay v2."""
    import pyarrow as pa

    v = _version(tables, "types_ns", "create")
    t = _static(v["metadata"])
    assert t.metadata.format_version == 3
    got = t.scan().to_arrow()
    assert got.schema.field("ts_ns").type == pa.timestamp("ns")
    assert sorted(got.column("ts_ns").cast(pa.int64()).to_pylist()) == [1706702400123456789 + i * 1000000001
                                                                        for i in range(10)]
    assert _static(_version(tables, "types", "create")["metadata"]).metadata.format_version == 2


def _avro_header(path: str) -> dict[str, bytes]:
    """The metadata map of an Avro object container file (its header)."""
    data = pathlib.Path(path).read_bytes()
    assert data[:4] == b"Obj\x01", path
    pos = 4

    def varint() -> int:
        nonlocal pos
        shift = result = 0
        while True:
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return (result >> 1) ^ -(result & 1)

    def blob() -> bytes:
        nonlocal pos
        n = varint()
        pos += n
        return data[pos - n:pos]

    out: dict[str, bytes] = {}
    while (count := varint()) != 0:
        for _ in range(abs(count)):
            if count < 0:
                varint()  # the block's size in bytes
            key = blob().decode()
            out[key] = blob()
    return out


def test_v3_metadata_has_row_lineage(tables):
    """What v3 requires of weir's metadata: next-row-id, each snapshot's first-row-id and
    added-rows, the manifest list's first_row_id (field 520), format-version 3 in the
    Avro headers."""
    v = _version(tables, "types_ns", "create")
    meta = json.loads(pathlib.Path(v["metadata"]).read_text())
    assert meta["format-version"] == 3
    (snap,) = [s for s in meta["snapshots"] if s["snapshot-id"] == meta["current-snapshot-id"]]
    assert snap["first-row-id"] == 0 and snap["added-rows"] == 10 and meta["next-row-id"] == 10
    header = _avro_header(_local(snap["manifest-list"]))
    assert header["format-version"] == b"3"
    fields = {f["name"]: f for f in json.loads(header["avro.schema"])["fields"]}
    assert fields["first_row_id"]["field-id"] == 520
    for task in _static(v["metadata"]).scan().plan_files():
        assert task.file.record_count == 10
    manifests = glob.glob(str(pathlib.Path(_local(snap["manifest-list"])).parent / "*-m0.avro"))
    assert manifests and all(_avro_header(m)["format-version"] == b"3" for m in manifests)
    # A v2 table's files say 2.
    v2 = json.loads(pathlib.Path(_version(tables, "types", "create")["metadata"]).read_text())
    assert v2["format-version"] == 2 and "next-row-id" not in v2


# ---- properties, snapshots, logs, time travel ---------------------------------------------


def test_properties_and_snapshot_summaries(tables):
    t1 = _static(_version(tables, "titanic", "create")["metadata"])
    assert t1.properties == {
        "comment": "Passengers of the Titanic (Kaggle training set).",
        "weir.contract": '{"name":"Passengers","version":"1"}',
        "weir.lineage": '{"PassengerId":["titanic.csv.PassengerId"]}',
        # Only weir's collector deletes files: engines refuse expire_snapshots and
        # remove_orphan_files on a table with gc.enabled=false (docs/serve.md).
        "gc.enabled": "false",
    }
    s1 = t1.current_snapshot().summary
    assert s1.operation.value == "append"
    assert s1["added-data-files"] == "2" and s1["added-records"] == "891"
    assert s1["total-records"] == "891" and s1["total-data-files"] == "2"
    assert s1["weir.run-id"] == "run-1" and s1["weir.model"] == "passengers"

    t2 = _static(_version(tables, "titanic", "append")["metadata"])
    assert t2.properties["weir.owner"] == "data-team"
    s2 = t2.current_snapshot().summary
    assert s2.operation.value == "append"
    assert s2["added-records"] == "216" and s2["total-records"] == "1107" and s2["total-data-files"] == "3"

    t3 = _static(_version(tables, "titanic", "overwrite")["metadata"])
    assert "weir.owner" not in t3.properties  # removed by the overwrite (a null value)
    assert t3.properties["comment"] == "Women aboard the Titanic."
    assert "weir.contract" in t3.properties
    s3 = t3.current_snapshot().summary
    assert s3.operation.value == "overwrite"
    assert s3["deleted-data-files"] == "3" and s3["deleted-records"] == "1107"
    assert s3["added-records"] == "314" and s3["total-records"] == "314" and s3["total-data-files"] == "1"
    total_size = sum(task.file.file_size_in_bytes for task in t3.scan().plan_files())
    assert s3["total-files-size"] == str(total_size)


def test_history_snapshot_log_and_metadata_log(tables):
    versions = tables["titanic"]["versions"]
    t3 = _static(versions[2]["metadata"])
    snaps = t3.metadata.snapshots
    assert [s.snapshot_id for s in snaps] == [v["snapshot_id"] for v in versions]
    assert [s.sequence_number for s in snaps] == [1, 2, 3]
    assert snaps[0].parent_snapshot_id is None
    assert snaps[1].parent_snapshot_id == snaps[0].snapshot_id
    assert snaps[2].parent_snapshot_id == snaps[1].snapshot_id
    assert [s.schema_id for s in snaps] == [0, 0, 1]
    assert [e.snapshot_id for e in t3.metadata.snapshot_log] == [v["snapshot_id"] for v in versions]
    assert [e.metadata_file for e in t3.metadata.metadata_log] == [_uri(v["metadata"]) for v in versions[:2]]
    assert t3.metadata.location.startswith("file:///")
    assert all(s.manifest_list.startswith("file:///") for s in snaps)
    assert t3.metadata.refs["main"].snapshot_id == versions[2]["snapshot_id"]
    assert t3.metadata.last_sequence_number == 3
    assert [(p.spec_id, list(p.fields)) for p in t3.metadata.partition_specs] == [(0, [])]
    assert [(o.order_id, list(o.fields)) for o in t3.metadata.sort_orders] == [(0, [])]
    assert t3.metadata.last_partition_id == 999
    names = [pathlib.Path(v["metadata"]).name[:6] for v in versions]
    assert names == ["00001-", "00002-", "00003-"]


def test_older_metadata_files_still_give_the_old_rows(tables, con):
    # Time travel by metadata file: reading version 1 after versions 2 and 3 were written.
    v1 = _version(tables, "titanic", "create")
    names, expected = _expected(con, "create")
    assert _rows_of_arrow(_static(v1["metadata"]).scan().to_arrow(), names) == expected
    got = sorted(con.execute(f"SELECT * FROM iceberg_scan('{v1['metadata']}')").fetchall(), key=_key)
    assert got == expected


def test_time_travel_by_snapshot_inside_the_latest_metadata(tables, con):
    versions = tables["titanic"]["versions"]
    latest = versions[2]["metadata"]
    t = _static(latest)
    for v, op in zip(versions[:2], ["create", "append"], strict=True):
        got = t.scan(snapshot_id=v["snapshot_id"]).to_arrow()
        assert got.num_rows == COUNTS[op]
        (n,) = con.execute(
            f"SELECT count(*) FROM iceberg_scan('{latest}', snapshot_from_id={v['snapshot_id']})").fetchone()
        assert n == COUNTS[op]


def test_empty_table_then_append(tables, con):
    v1, v2 = tables["empty"]["versions"]
    t1 = _static(v1["metadata"])
    assert t1.scan().to_arrow().num_rows == 0
    assert t1.current_snapshot().summary["total-records"] == "0"
    assert con.execute(f"SELECT count(*) FROM iceberg_scan('{v1['metadata']}')").fetchone()[0] == 0
    assert _static(v2["metadata"]).scan().to_arrow().to_pylist() == [{"a": 1, "b": "x"}]
    assert con.execute(f"SELECT a, b FROM iceberg_scan('{v2['metadata']}')").fetchall() == [(1, "x")]


def test_merged_manifests_read_back_in_every_version(tables, con):
    """Six appends with manifest merging from three manifests on: EXISTING entries with
    explicit sequence numbers, read by both engines, in the last and every older version."""
    versions = tables["appends"]["versions"]
    assert len(versions) == 6
    for i, v in enumerate(versions):
        n = min(891, (i + 1) * 150)
        ids = _static(v["metadata"]).scan().to_arrow().column("PassengerId").to_pylist()
        assert sorted(ids) == list(range(1, n + 1))
        (count, total) = con.execute(
            f"SELECT count(*), sum(PassengerId) FROM iceberg_scan('{v['metadata']}')").fetchone()
        assert count == n and total == n * (n + 1) // 2
    last = versions[-1]["metadata"]
    rows = con.execute(f"SELECT DISTINCT manifest_path, status FROM iceberg_metadata('{last}')").fetchall()
    assert len({r[0] for r in rows}) == 2  # merged + the last append's own manifest
    assert {r[1] for r in rows} == {"EXISTING", "ADDED"}
    t = _static(last)
    entries = t.inspect.entries().to_pylist()
    by_file = {e["data_file"]["file_path"]: e for e in entries}
    for i, v in enumerate(versions):
        (path,) = v["files"]
        e = by_file[_uri(path)]
        assert e["snapshot_id"] == v["snapshot_id"]
        assert e["sequence_number"] == i + 1 and e["file_sequence_number"] == i + 1
        assert e["status"] == (1 if i == 5 else 0)  # ADDED only for the last append


def test_duckdb_iceberg_metadata_lists_our_manifests_and_snapshots(tables, con):
    versions = tables["titanic"]["versions"]
    v = versions[1]
    rows = con.execute(
        "SELECT manifest_sequence_number, manifest_content, status, file_path, file_format, record_count "
        f"FROM iceberg_metadata('{v['metadata']}') ORDER BY manifest_sequence_number, record_count DESC").fetchall()
    files = versions[0]["files"] + v["files"]
    assert [(r[0], r[1], r[2], r[4]) for r in rows] == [(1, "DATA", "ADDED", "PARQUET")] * 2 + [(2, "DATA", "ADDED", "PARQUET")]
    assert sorted(r[3] for r in rows) == sorted(_uri(f) for f in files)
    assert [r[5] for r in rows] == [450, 441, 216]
    snaps = con.execute(
        f"SELECT sequence_number, snapshot_id, operation FROM iceberg_snapshots('{versions[2]['metadata']}') "
        "ORDER BY sequence_number").fetchall()
    assert snaps == [(1, versions[0]["snapshot_id"], "append"), (2, versions[1]["snapshot_id"], "append"),
                     (3, versions[2]["snapshot_id"], "overwrite")]




def test_a_long_history_lists_the_newest_100_snapshots_and_stays_readable(tmp_path, con):
    """Every write used to parse and rewrite every snapshot the table ever had; a new
    metadata file now lists the newest 100 (weir.metadata.snapshots-max), and older
    versions stay readable through their own metadata files (which weir's commits pin)."""
    import pyarrow as pa

    import weir

    client = weir.Client.init(tmp_path / "lake")
    client.import_data("t", pa.table({"a": [0]}))
    first = client.get_commits(ref="main", limit=1)[0].hash
    for i in range(1, 106):
        client.import_data("t", pa.table({"a": [i]}), mode="append")
    meta = client.get_table("t").metadata_location
    doc = json.loads(pathlib.Path(meta).read_text())
    assert len(doc["snapshots"]) == 100
    assert [e["snapshot-id"] for e in doc["snapshot-log"]] == [s["snapshot-id"] for s in doc["snapshots"]]
    assert doc["snapshots"][-1]["snapshot-id"] == doc["current-snapshot-id"]
    assert sorted(_static(meta).scan().to_arrow().column("a").to_pylist()) == list(range(106))
    assert con.execute(f"SELECT count(*) FROM iceberg_scan('{meta}')").fetchone()[0] == 106
    # The first version, by commit, through weir; and through its metadata file.
    assert client.query("SELECT a FROM t", ref=first).column("a").to_pylist() == [0]
    oldest = doc["metadata-log"][0]["metadata-file"]
    assert len(_static(oldest).scan().to_arrow()) >= 1
