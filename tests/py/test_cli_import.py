"""Imports: CSV, Parquet and JSON lines; inferred types; refused input leaves nothing."""
from __future__ import annotations


import subprocess

import pytest

from conftest import TITANIC, count, weir, weir_bin, weir_json, weir_list

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
    # Without a contract every column is optional, nulls in the file or not (issue 13).
    assert cols["id"]["weir_type"] == "Int32" and cols["id"]["required"] is False
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


# ---- regressions: problems a first-time user found (each fails without its fix) ----


def test_query_to_stdout_appends_instead_of_truncating(titanic_lake, tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("before\n")
    with open(out, "a") as f:
        r = subprocess.run([str(weir_bin()), "--lake", str(titanic_lake), "query", "SELECT 42 AS x", "--format", "csv"],
                           stdout=f, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == "before\nx\n42\n"


def test_sql_comments(titanic_lake):
    r = weir("query", "SELECT 1 AS a -- trailing note", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    r = weir("query", "-- leading note\nSELECT 2 AS b", "--format", "csv", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["b", "2"]
    r = weir("query", "SELECT 3 AS c -- note", "--format", "csv", lake=titanic_lake)
    assert r.stdout.splitlines() == ["c", "3"]


def test_output_extension_names_the_format(titanic_lake, tmp_path):
    import pyarrow.parquet as pq

    r = weir("query", "SELECT * FROM titanic", "--output", tmp_path / "t.parquet", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert pq.read_table(tmp_path / "t.parquet").num_rows == 891


def test_sql_cannot_read_files_outside_the_lake(titanic_lake, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    r = weir("query", f"SELECT * FROM read_csv('{secret}')", lake=titanic_lake)
    assert r.returncode == 1
    assert "Permission" in r.stderr or "disabled" in r.stderr
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "leak.sql").write_text(f"SELECT * FROM read_csv('{secret}')\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert "leak.sql" in r.stderr


def test_append_csv_parses_values_as_the_table_types(titanic_lake, tmp_path):
    lines = TITANIC.read_text().splitlines()
    tail = tmp_path / "last5.csv"
    tail.write_text("\n".join([lines[0]] + lines[-5:]) + "\n")   # Age holds whole numbers only here
    r = weir("import", tail, "--table", "titanic", "--mode", "append", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 896


def test_contract_types_drive_csv_parsing(lake, tmp_path):
    data = tmp_path / "flags.csv"
    data.write_text("flag,amount\nt,1.5\nf,2.25\n")
    c = tmp_path / "c.yml"
    c.write_text("contract:\n  name: flags\n  columns:\n    - {name: flag, type: String}\n"
                 "    - {name: amount, type: Decimal(10, 2)}\n")
    r = weir("import", data, "--table", "flags", "--contract", c, lake=lake)
    assert r.returncode == 1
    assert 'quote the type, as in type: "Decimal(10, 2)"' in r.stderr
    c.write_text("contract:\n  name: flags\n  columns:\n    - {name: flag, type: String}\n"
                 "    - {name: amount, type: \"Decimal(10, 2)\"}\n")
    r = weir("import", data, "--table", "flags", "--contract", c, lake=lake)
    assert r.returncode == 0, r.stderr
    cols = {c["name"]: c["type"] for c in weir_json("describe", "flags", lake=lake)["columns"]}
    assert cols == {"flag": "large_string", "amount": "decimal128(10, 2)"}


def test_empty_file_is_bad_input_not_a_usage_error(lake, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    r = weir("import", empty, "--table", "e", lake=lake)
    assert r.returncode == 1
    assert "no columns" in r.stderr


def test_jsonl_errors_name_the_right_line(lake, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n{"a": x}\n{"a": 3}\n')
    r = weir("import", bad, "--table", "j", lake=lake)
    assert r.returncode == 1
    assert "bad.jsonl line 2:" in r.stderr


def test_csv_header_must_name_every_column_once(lake, tmp_path):
    dup = tmp_path / "dup.csv"
    dup.write_text("a,b,a\n1,2,3\n")
    r = weir("import", dup, "--table", "d", lake=lake)
    assert r.returncode == 1 and 'the header names column "a" twice (fields 1 and 3)' in r.stderr
    empty = tmp_path / "empty_name.csv"
    empty.write_text("a,,c\n1,2,3\n")
    r = weir("import", empty, "--table", "d", lake=lake)
    assert r.returncode == 1 and "header field 2 is empty" in r.stderr


def test_csv_of_blank_lines_is_refused(lake, tmp_path):
    blank = tmp_path / "blank.csv"
    blank.write_text("\n\n\n")
    r = weir("import", blank, "--table", "b", lake=lake)
    assert r.returncode == 1 and "line 1: the line is empty" in r.stderr


def test_csv_whose_last_row_has_an_extra_field_is_refused_naming_the_line(lake, tmp_path):
    # DuckDB's sniffer took the last row for the header and skipped every row above it.
    f = tmp_path / "r.csv"
    f.write_text("a,b,c\n1,2,3\n4,5,6,7\n")
    r = weir("import", f, "--table", "r", lake=lake)
    assert r.returncode == 1
    assert f"{f} line 3: expected 3 fields, found 4" in r.stderr
    assert weir("describe", "r", lake=lake).returncode != 0  # nothing was committed


def test_csv_row_starting_with_hash_is_data_not_a_comment(lake, tmp_path):
    f = tmp_path / "c.csv"
    f.write_text("a,b\n#x,y\nz,w\n")
    assert weir("import", f, "--table", "c", lake=lake).returncode == 0
    assert count(lake, "SELECT count(*) FROM c") == 2
    # A line DuckDB's sniffer took for a comment was dropped without a word.
    g = tmp_path / "h.csv"
    g.write_text("a,b\n1,2\n# note\n3,4\n")
    r = weir("import", g, "--table", "h", lake=lake)
    assert r.returncode == 1
    assert f"{g} line 3: expected 2 fields, found 1" in r.stderr


def test_csv_with_contract_does_not_round_into_integers_or_decimals(lake, tmp_path):
    contract = tmp_path / "n.yml"
    contract.write_text("contract:\n  name: n\n  columns:\n    - {name: x, type: Int64}\n"
                        "    - {name: y, type: \"Decimal(4, 2)\"}\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1.5,1.005\n2.7,2\n")
    r = weir("import", bad, "--table", "n", "--contract", contract, lake=lake)
    assert r.returncode == 3, r.stderr
    assert 'column "x" has type double, expected int64' in r.stderr
    assert 'column "y" has type double, expected decimal128(4, 2)' in r.stderr
    good = tmp_path / "good.csv"
    good.write_text("x,y\n1,1.01\n-2,2\n")
    r = weir("import", good, "--table", "n", "--contract", contract, lake=lake)
    assert r.returncode == 0, r.stderr
    r = weir("query", "SELECT x, y::VARCHAR AS y FROM n ORDER BY x", "--format", "csv", lake=lake)
    assert r.stdout.splitlines() == ["x,y", "-2,2.00", "1,1.01"]


def test_contract_sql_cannot_read_files_outside_the_lake(lake, tmp_path):
    contract = tmp_path / "p.yml"
    contract.write_text("contract:\n  name: p\n  columns:\n    - {name: a, type: Int64}\n  rules:\n"
                        "    - name: evil\n"
                        "      sql: \"SELECT count(*) FROM read_csv('/etc/passwd'), {table}\"\n"
                        "      threshold: 0\n")
    f = tmp_path / "a.csv"
    f.write_text("a\n1\n")
    r = weir("import", f, "--table", "p", "--contract", contract, lake=lake)
    assert r.returncode == 1
    assert 'rule "evil" does not run' in r.stderr
    assert "file system operations are disabled" in r.stderr


def test_json_flag_does_not_change_the_output_files_format(titanic_lake, tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "t.parquet"
    report = weir_json("query", "SELECT * FROM titanic", "--output", out, lake=titanic_lake)
    assert report == {"schema_version": 1, "output": str(out), "format": "parquet", "rows": 891}
    assert pq.read_table(out).num_rows == 891


def test_query_output_inside_the_lake_is_refused(titanic_lake):
    catalog = titanic_lake / "lake.json"  # in every lake, whichever the catalog's backend
    before = catalog.read_bytes()
    r = weir("query", "SELECT 1 AS x", "--output", catalog, lake=titanic_lake)
    assert r.returncode == 2
    assert f"cannot write the query result to {catalog}: it is inside the lake" in r.stderr
    assert catalog.read_bytes() == before
    assert weir("tables", lake=titanic_lake).returncode == 0


def test_json_lines_with_mixed_value_types_keep_each_values_text(lake, tmp_path):
    # A key typed JSON by DuckDB's reader kept the JSON quotes: "x" was stored as "\"x\"".
    f = tmp_path / "m.jsonl"
    f.write_text('{"a": 1, "b": 2}\n{"a": "x", "b": 3}\n{"a": {"k": 1}, "b": 4}\n{"a": null, "b": 5}\n')
    assert weir("import", f, "--table", "m", lake=lake).returncode == 0
    r = weir("query", "SELECT a, length(a) AS n FROM m ORDER BY b", "--format", "csv", lake=lake)
    assert r.stdout.splitlines() == ["a,n", "1,1", "x,1", '"{""k"":1}",7', ","]


def test_json_file_holding_an_array_of_objects(lake, tmp_path):
    f = tmp_path / "rows.json"
    f.write_text('[{"a": 1, "b": "x"},\n {"a": 2, "b": "y"}]\n')
    r = weir("import", f, "--table", "rows", lake=lake)
    assert r.returncode == 0, r.stderr
    r = weir("query", "SELECT a, b FROM rows ORDER BY a", "--format", "csv", lake=lake)
    assert r.stdout.splitlines() == ["a,b", "1,x", "2,y"]


def test_append_or_replace_of_a_missing_table_is_refused(lake, tmp_path):
    # A typo in the table name made a new table.
    f = tmp_path / "a.csv"
    f.write_text("a\n1\n")
    for mode, verb in (("append", "append to"), ("replace", "replace")):
        r = weir("import", f, "--table", "typo", "--mode", mode, lake=lake)
        assert r.returncode == 1
        assert (f"cannot {verb} table default.typo: it does not exist on branch main (to create it, "
                "import in mode create, the default)") in r.stderr
    assert weir_list("tables", lake=lake) == []


def test_a_fraction_after_the_first_20480_rows_is_not_rounded(lake, tmp_path):
    # Types were inferred from a 20,480-row sample: the column was BIGINT and DuckDB's cast
    # rounded a later 30001.5 to 30002 without an error.
    f = tmp_path / "big.csv"
    f.write_text("a\n" + "".join(f"{i}\n" for i in range(30000)) + "30001.5\n")
    assert weir("import", f, "--table", "big", lake=lake).returncode == 0
    r = weir("query", "SELECT max(a) AS m FROM big", "--format", "csv", lake=lake)
    assert r.stdout.splitlines() == ["m", "30001.5"]
    contract = tmp_path / "c.yml"
    contract.write_text("contract:\n  name: c\n  columns:\n    - {name: a, type: Int64}\n")
    r = weir("import", f, "--table", "big2", "--contract", contract, lake=lake)
    assert r.returncode == 3
    assert 'column "a" has type double, expected int64' in r.stderr


@pytest.mark.parametrize("typ, value", [
    ("Date32", "2024-01-02 13:45:10.123456"),          # the time of day was dropped
    ("TimestampMicro", "2024-01-02 13:45:10+05:00"),   # the offset was dropped: another instant
    ("TimestampMicro", "2024-01-02 13:45:10.123456789"),  # nanoseconds were cut
])
def test_csv_dates_and_timestamps_are_not_truncated_into_a_contract_type(lake, tmp_path, typ, value):
    f = tmp_path / "d.csv"
    f.write_text(f"id,x\n1,2024-01-01\n2,{value}\n")
    contract = tmp_path / "d.yml"
    contract.write_text(f"contract:\n  name: d\n  columns:\n    - {{name: id, type: Int64}}\n    - {{name: x, type: {typ}}}\n")
    r = weir("import", f, "--table", "d", "--contract", contract, lake=lake)
    assert r.returncode == 3, r.stderr
    assert 'column "x" has type' in r.stderr
    assert weir_list("tables", lake=lake) == []


def test_csv_timestamps_that_fit_their_contract_type_import(lake, tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("id,x,z\n1,2024-01-01,2024-01-02 13:45:10+05:00\n2,2024-01-02 13:45:10.123456,2024-01-03\n")
    contract = tmp_path / "d.yml"
    contract.write_text("contract:\n  name: d\n  columns:\n    - {name: id, type: Int64}\n"
                        "    - {name: x, type: TimestampMicro}\n    - {name: z, type: TimestampMicroUTC}\n")
    r = weir("import", f, "--table", "d", "--contract", contract, lake=lake)
    assert r.returncode == 0, r.stderr
    r = weir("query", "SELECT x::VARCHAR AS x, z::VARCHAR AS z FROM d ORDER BY id", "--format", "csv", lake=lake)
    assert r.stdout.splitlines() == ["x,z", "2024-01-01 00:00:00,2024-01-02 08:45:10+00",
                                     "2024-01-02 13:45:10.123456,2024-01-03 00:00:00+00"]
