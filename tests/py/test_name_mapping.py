"""Parquet files without Iceberg field ids (pyarrow's default, pyiceberg's add_files, Hive
migrations), adopted by reference: matched to the table's columns by name, with the table
property schema.name-mapping.default written so that other engines read them the same way.

What is held: `weir import --register` of such a file into a table weir wrote reads the
same rows through weir (CLI and SDK, at the ref and after compaction) and through
pyiceberg from the metadata file weir wrote; a column the file lacks reads as NULL in
both; names that do not match, names that match only ignoring case, and files with ids
for some columns only are refused naming the file and the column, committing nothing;
`weir table register` of a table pyiceberg's add_files made reads correctly.
"""
from __future__ import annotations

import json
import pathlib
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import weir
from conftest import weir as cli, weir_json, weir_list

MAPPING = "schema.name-mapping.default"


def rows(lake: pathlib.Path, sql: str, ref: str = "main") -> list[dict[str, Any]]:
    r = cli("query", sql, "--format", "json", "--ref", ref, lake=lake)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def head(lake: pathlib.Path) -> str:
    return weir_list("log", "main", "-n", "1", lake=lake)[0]["hash"]


def pyiceberg_rows(lake: pathlib.Path, table: str, ref: str = "main") -> list[dict[str, Any]]:
    from pyiceberg.table import StaticTable

    meta = weir_json("describe", table, "--ref", ref, lake=lake)["metadata_location"]
    return sorted(StaticTable.from_metadata(meta).scan().to_arrow().to_pylist(), key=lambda r: r["id"])


@pytest.fixture
def people(lake: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    """Table `people` (id Int64 required, name String, score Float64) written by weir."""
    seed = tmp_path / "seed.parquet"
    pq.write_table(pa.table({"id": pa.array([1], pa.int64()), "name": ["one"], "score": [0.5]},
                            schema=pa.schema([pa.field("id", pa.int64(), nullable=False),
                                              pa.field("name", pa.string()), pa.field("score", pa.float64())])),
                   seed)
    contract = tmp_path / "people.yml"
    contract.write_text("contract:\n  name: People\n  columns:\n    - {name: id, type: Int64}\n"
                        "    - {name: name, type: String, nullable: true}\n"
                        "    - {name: score, type: Float64, nullable: true}\n")
    r = cli("import", seed, "--table", "people", "--contract", contract, lake=lake)
    assert r.returncode == 0, r.stderr
    return lake


def plain_file(path: pathlib.Path, cols: dict[str, pa.Array], required: tuple[str, ...] = ("id",)) -> pathlib.Path:
    """A Parquet file as pyarrow writes it: no field ids."""
    schema = pa.schema([pa.field(n, a.type, nullable=n not in required) for n, a in cols.items()])
    pq.write_table(pa.table(list(cols.values()), schema=schema), path)
    assert all(f.metadata is None or b"PARQUET:field_id" not in f.metadata for f in pq.read_schema(path))
    return path


def test_a_file_without_field_ids_is_matched_by_name(people: pathlib.Path, tmp_path: pathlib.Path) -> None:
    lake = people
    # Columns in another order than the table's, and one (score) absent.
    a = plain_file(tmp_path / "a.parquet", {"name": pa.array(["two", None]), "id": pa.array([2, 3], pa.int64())})
    b = plain_file(tmp_path / "b.parquet", {"id": pa.array([4], pa.int64()), "score": pa.array([4.5]),
                                            "name": pa.array(["four"])})
    doc = weir_json("import", a, b, "--table", "people", "--register", lake=lake)
    assert (doc["mode"], doc["files"], doc["rows"]) == ("append", 2, 3)
    want = [{"id": 1, "name": "one", "score": 0.5}, {"id": 2, "name": "two", "score": None},
            {"id": 3, "name": None, "score": None}, {"id": 4, "name": "four", "score": 4.5}]
    assert rows(lake, "SELECT id, name, score FROM people ORDER BY id") == want
    # The name mapping lists every column under its field id, by its name.
    desc = weir_json("describe", "people", lake=lake)
    ids = {c["name"]: c["field_id"] for c in desc["columns"]}
    mapping = json.loads(desc["properties"][MAPPING])
    assert sorted((m["field-id"], m["names"]) for m in mapping) == sorted((ids[n], [n]) for n in ids)
    # pyiceberg reads the files without ids through the mapping: the same rows.
    assert pyiceberg_rows(lake, "people") == want
    # The SDK reads the same, filtered and projected.
    with weir.Client(lake) as c:
        got = c.query("SELECT id, score FROM people WHERE name IS NOT NULL ORDER BY id").to_pylist()
    assert got == [{"id": 1, "score": 0.5}, {"id": 2, "score": None}, {"id": 4, "score": 4.5}]

    # Later appends by copy (with ids) and a compaction of the mixed table keep every row.
    more = plain_file(tmp_path / "more.parquet", {"id": pa.array([5], pa.int64()), "name": pa.array(["five"]),
                                                  "score": pa.array([5.5])})
    assert cli("import", more, "--table", "people", "--mode", "append", lake=lake).returncode == 0
    before = rows(lake, "SELECT id, name, score FROM people ORDER BY id")
    at = head(lake)
    r = cli("compact", "people", lake=lake)
    assert r.returncode == 0, r.stderr
    assert rows(lake, "SELECT id, name, score FROM people ORDER BY id") == before
    assert rows(lake, "SELECT id, name, score FROM people ORDER BY id", at) == before
    assert pyiceberg_rows(lake, "people") == before


def test_field_ids_win_over_names_and_by_name_files_read_at_older_refs(people: pathlib.Path,
                                                                       tmp_path: pathlib.Path) -> None:
    """A file with ids is matched by id even when its names would say otherwise; a file
    without ids by name: both in one table, read at each commit."""
    lake = people
    ids = {c["name"]: c["field_id"] for c in weir_json("describe", "people", lake=lake)["columns"]}
    swapped = tmp_path / "swapped.parquet"
    # Physical names swapped: `name` carries the id of `score`, and so on.
    pq.write_table(pa.table([pa.array([7], pa.int64()), pa.array([7.5]), pa.array(["seven"])],
                            schema=pa.schema([
                                pa.field("id", pa.int64(), nullable=False,
                                         metadata={b"PARQUET:field_id": str(ids["id"]).encode()}),
                                pa.field("name", pa.float64(), metadata={b"PARQUET:field_id": str(ids["score"]).encode()}),
                                pa.field("score", pa.string(), metadata={b"PARQUET:field_id": str(ids["name"]).encode()}),
                            ])), swapped)
    assert cli("import", swapped, "--table", "people", "--register", lake=lake).returncode == 0
    by_id = head(lake)
    plain = plain_file(tmp_path / "plain.parquet", {"id": pa.array([8], pa.int64()), "score": pa.array([8.5])})
    assert cli("import", plain, "--table", "people", "--register", lake=lake).returncode == 0
    assert rows(lake, "SELECT id, name, score FROM people ORDER BY id", by_id) == [
        {"id": 1, "name": "one", "score": 0.5}, {"id": 7, "name": "seven", "score": 7.5}]
    assert rows(lake, "SELECT id, name, score FROM people ORDER BY id") == [
        {"id": 1, "name": "one", "score": 0.5}, {"id": 7, "name": "seven", "score": 7.5},
        {"id": 8, "name": None, "score": 8.5}]
    assert pyiceberg_rows(lake, "people") == rows(lake, "SELECT id, name, score FROM people ORDER BY id")


@pytest.mark.parametrize("case", ["unknown", "case", "mixed", "type", "missing_required"])
def test_files_that_do_not_match_are_refused_naming_the_column(people: pathlib.Path, tmp_path: pathlib.Path,
                                                               case: str) -> None:
    lake = people
    f = tmp_path / f"{case}.parquet"
    if case == "unknown":
        plain_file(f, {"id": pa.array([9], pa.int64()), "nickname": pa.array(["x"])})
        want = 'its column "nickname" (no field id, so matched by name) is no column of the table'
    elif case == "case":
        plain_file(f, {"ID": pa.array([9], pa.int64())}, required=("ID",))
        want = 'its column "ID" (no field id) differs from the table\'s column "id" in case'
    elif case == "mixed":
        pq.write_table(pa.table([pa.array([9], pa.int64()), pa.array(["x"])],
                                schema=pa.schema([pa.field("id", pa.int64(), nullable=False,
                                                           metadata={b"PARQUET:field_id": b"1"}),
                                                  pa.field("name", pa.string())])), f)
        want = ('1 of its columns carry Iceberg field ids ("id", ...) but 1 do not ("name", ...); a file is '
                "matched to the table either by field id")
    elif case == "type":
        plain_file(f, {"id": pa.array([9], pa.int64()), "score": pa.array(["high"])})
        want = 'column "score" (column "score" of the table, field id 3) holds VARCHAR, but the table\'s column is Float64'
    else:
        plain_file(f, {"name": pa.array(["x"])}, required=())
        want = 'it lacks the required column "id"'
    h = head(lake)
    props = weir_json("describe", "people", lake=lake)["properties"]
    r = cli("import", f, "--table", "people", "--register", lake=lake)
    assert r.returncode == 1, r.stderr
    assert str(f) in r.stderr and want in r.stderr, r.stderr
    assert head(lake) == h
    assert weir_json("describe", "people", lake=lake)["properties"] == props


def test_table_register_of_pyiceberg_add_files(lake: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """pyiceberg's add_files adopts Parquet files without field ids under its name mapping;
    weir registers that table and reads it by name, and pyiceberg reads weir's version."""
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    cat = SqlCatalog("mapped", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}")
    cat.create_namespace("db")
    t = cat.create_table("db.mapped", Schema(NestedField(1, "id", LongType()), NestedField(2, "tag", StringType())))
    plain = plain_file(tmp_path / "plain.parquet", {"tag": pa.array(["a", None]), "id": pa.array([1, 2], pa.int64())},
                       required=())
    t.add_files([str(plain)])
    t.append(pa.table({"id": pa.array([3], pa.int64()), "tag": pa.array(["c"])}))  # with ids
    t = cat.load_table("db.mapped")
    assert MAPPING in t.properties
    doc = weir_json("table", "register", "mapped", "--metadata", t.metadata_location, lake=lake)
    assert (doc["files"], doc["rows"]) == (2, 3)
    want = [{"id": 1, "tag": "a"}, {"id": 2, "tag": None}, {"id": 3, "tag": "c"}]
    assert rows(lake, "SELECT id, tag FROM mapped ORDER BY id") == want
    assert pyiceberg_rows(lake, "mapped") == want
    # A file with ids for some columns only is refused: engines disagree on it. (add_files
    # refuses such a file itself, so the adopted file is rewritten so in place.)
    before = head(lake)
    pq.write_table(pa.table([pa.array([1], pa.int64()), pa.array(["x"])],
                            schema=pa.schema([pa.field("id", pa.int64(), metadata={b"PARQUET:field_id": b"1"}),
                                              pa.field("tag", pa.string())])), plain)
    r = cli("table", "register", "half", "--metadata", t.metadata_location, lake=lake)
    assert r.returncode == 1, r.stderr
    assert f'data file {plain} carries Iceberg field ids for 1 column but not for column "tag"' in r.stderr, r.stderr
    assert head(lake) == before
    # The table registered before now meets the file at read time: a clear error too.
    r = cli("query", "SELECT * FROM mapped", lake=lake)
    assert r.returncode != 0 and f"data file {plain} has Iceberg field ids for 1 column but none for column" \
        in r.stderr, r.stderr


def test_a_branch_registering_by_name_merges_into_a_target_that_appended(people: pathlib.Path,
                                                                         tmp_path: pathlib.Path) -> None:
    """The registration sets the mapping on the branch only; the target appended to the
    table meanwhile. The merge combines the appends and carries the mapping, so every
    engine reads all rows at the merge."""
    lake = people
    assert cli("branch", "create", "dev", lake=lake).returncode == 0
    plain = plain_file(tmp_path / "p.parquet", {"id": pa.array([2], pa.int64()), "name": pa.array(["two"])})
    assert cli("import", plain, "--table", "people", "--register", "--branch", "dev", lake=lake).returncode == 0
    more = plain_file(tmp_path / "m.parquet", {"id": pa.array([3], pa.int64()), "name": pa.array(["three"]),
                                               "score": pa.array([3.5])})
    assert cli("import", more, "--table", "people", "--mode", "append", lake=lake).returncode == 0
    assert MAPPING not in weir_json("describe", "people", lake=lake)["properties"]
    r = cli("merge", "dev", "--into", "main", lake=lake)
    assert r.returncode == 0, r.stderr
    want = [{"id": 1, "name": "one", "score": 0.5}, {"id": 2, "name": "two", "score": None},
            {"id": 3, "name": "three", "score": 3.5}]
    assert rows(lake, "SELECT id, name, score FROM people ORDER BY id") == want
    assert MAPPING in weir_json("describe", "people", lake=lake)["properties"]
    assert pyiceberg_rows(lake, "people") == want
