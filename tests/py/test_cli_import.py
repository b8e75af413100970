"""Imports: CSV, Parquet and JSON lines; inferred types; refused input leaves nothing."""
from __future__ import annotations


import pytest

from conftest import TITANIC, count, weir, weir_json, weir_list

pytestmark = pytest.mark.cli


def test_titanic_import_shape(titanic_lake):
    tables = weir_list("tables", lake=titanic_lake)
    assert [(t["table"], t["record_count"]) for t in tables] == [("default.titanic", 891)]
    d = weir_json("describe", "titanic", lake=titanic_lake)
    assert {"table", "ref", "commit", "snapshot_id", "metadata_location", "comment", "columns"} <= set(d)
    cols = {c["name"]: c for c in d["columns"]}
    assert len(d["columns"]) == 12
    assert [c["name"] for c in d["columns"]] == ["PassengerId", "Survived", "Pclass", "Name", "Sex", "Age",
                                                 "SibSp", "Parch", "Ticket", "Fare", "Cabin", "Embarked"]
    assert cols["PassengerId"]["type"] == "int64" and cols["PassengerId"]["weir_type"] == "Int64"
    assert cols["PassengerId"]["required"] is True
    assert cols["Age"]["type"] == "double" and cols["Age"]["required"] is False
    assert cols["Name"]["type"] == "large_string" and cols["Name"]["weir_type"] == "String"
    assert cols["Embarked"]["required"] is False
    assert [c["field_id"] for c in d["columns"]] == list(range(1, 13))
    for c in d["columns"]:
        assert set(c) >= {"name", "type", "weir_type", "required", "doc", "field_id", "lineage"}
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 891
    assert count(titanic_lake, "SELECT count(*) FROM default.titanic WHERE Age IS NULL") == 177


def test_create_twice_is_refused(titanic_lake):
    r = weir("import", TITANIC, "--table", "titanic", lake=titanic_lake)
    assert r.returncode == 1
    assert "already exists" in r.stderr and "--mode" in r.stderr


def test_append_and_replace(titanic_lake):
    r = weir("import", TITANIC, "--table", "titanic", "--mode", "append", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 1782
    r = weir("import", TITANIC, "--table", "titanic", "--mode", "replace", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 891


def test_ragged_csv_refused_naming_file_and_line(lake, tmp_path):
    bad = tmp_path / "ragged.csv"
    lines = TITANIC.read_text().splitlines()
    lines[4] = lines[4] + ",extra"   # line 5 of the file has 13 fields
    bad.write_text("\n".join(lines) + "\n")
    log_before = weir_list("log", lake=lake)
    r = weir("import", bad, "--table", "ragged", lake=lake)
    assert r.returncode == 1
    assert "ragged.csv" in r.stderr and "line 5" in r.stderr, r.stderr
    assert weir_list("log", lake=lake) == log_before
    assert weir_list("tables", lake=lake) == []


def test_missing_file(lake):
    r = weir("import", "/nonexistent/x.csv", "--table", "x", lake=lake)
    assert r.returncode == 1
    assert "/nonexistent/x.csv" in r.stderr


def test_parquet_and_jsonl(lake, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.table({"id": pa.array([1, 2, 3], pa.int32()), "name": ["a", None, "c"],
                  "score": [1.5, 2.5, None]})
    pq.write_table(t, tmp_path / "t.parquet")
    r = weir("import", tmp_path / "t.parquet", "--table", "raw.t", lake=lake)
    assert r.returncode == 0, r.stderr
    d = weir_json("describe", "raw.t", lake=lake)
    cols = {c["name"]: c for c in d["columns"]}
    assert cols["id"]["weir_type"] == "Int32" and cols["id"]["required"] is True
    assert cols["name"]["required"] is False
    (tmp_path / "e.jsonl").write_text('{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n')
    r = weir("import", tmp_path / "e.jsonl", "--table", "events", lake=lake)
    assert r.returncode == 0, r.stderr
    assert count(lake, "SELECT sum(a) FROM events") == 3
    assert count(lake, "SELECT count(*) FROM raw.t") == 3


def test_append_holds_data_to_the_table_schema(titanic_lake, tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("x,y\n1,2\n")
    r = weir("import", other, "--table", "titanic", "--mode", "append", lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert 'missing column "PassengerId"' in r.stderr
    assert 'unknown column "x"' in r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 891


def test_query_formats(titanic_lake, tmp_path):
    r = weir("query", "SELECT Pclass, count(*) AS n FROM titanic GROUP BY 1 ORDER BY 1", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["Pclass", "n"]
    assert lines[1].split() == ["1", "216"]
    assert "(3 rows)" in r.stdout
    r = weir("query", "SELECT Pclass, count(*) AS n FROM titanic GROUP BY 1 ORDER BY 1", "--format", "csv",
             lake=titanic_lake)
    assert r.stdout.splitlines() == ["Pclass,n", "1,216", "2,184", "3,491"]
    out = tmp_path / "o.parquet"
    r = weir("query", "SELECT * FROM titanic", "--format", "parquet", "--output", out, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    import pyarrow.parquet as pq

    assert pq.read_table(out).num_rows == 891


def test_query_is_read_only_and_names_missing_tables(titanic_lake):
    r = weir("query", "DROP TABLE titanic", lake=titanic_lake)
    assert r.returncode == 2, r.stderr
    assert "read-only" in r.stderr
    r = weir("query", "SELECT * FROM nope", lake=titanic_lake)
    assert r.returncode == 1
    assert "default.nope" in r.stderr
    r = weir("query", "SELEC 1", lake=titanic_lake)
    assert r.returncode == 1
    assert r.stderr.startswith("error: ")
