"""Regression tests for problems found by a first-time user (each fails without its fix)."""
from __future__ import annotations

import json
import subprocess

import pytest

from conftest import ROOT, TITANIC, count, weir, weir_bin, weir_json

pytestmark = pytest.mark.cli


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


CONTRACT = ROOT / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"


def test_append_is_held_to_the_tables_stored_contract(lake, tmp_path):
    assert weir("import", TITANIC, "--table", "titanic", "--contract", CONTRACT, lake=lake).returncode == 0
    header = TITANIC.read_text().splitlines()[0]
    bad = tmp_path / "bad.csv"
    bad.write_text(header + '\n1,5,9,"X, Mr.",robot,-3.5,0,0,T1,-10.5,,Z\n')
    r = weir("import", bad, "--table", "titanic", "--mode", "append", lake=lake)
    assert r.returncode == 3, r.stderr
    assert "the table's contract titanic on branch main" in r.stderr
    for needle in ['column "Survived" has 1 value outside the enum [0, 1] (e.g. 5)',
                   'column "Sex" has 1 value outside the enum',
                   'column "PassengerId" has 1 duplicate value (e.g. 1)']:
        assert needle in r.stderr, r.stderr
    assert count(lake, "SELECT count(*) FROM titanic") == 891


def test_unique_holds_across_the_whole_table_on_append(lake, tmp_path):
    assert weir("import", TITANIC, "--table", "titanic", "--contract", CONTRACT, lake=lake).returncode == 0
    lines = TITANIC.read_text().splitlines()
    again = tmp_path / "again.csv"
    again.write_text(lines[0] + "\n" + lines[2] + "\n")   # PassengerId 2, already in the table
    r = weir("import", again, "--table", "titanic", "--mode", "append", "--contract", CONTRACT, lake=lake)
    assert r.returncode == 3, r.stderr
    assert 'column "PassengerId" has 1 duplicate value (e.g. 2)' in r.stderr
    fresh = tmp_path / "fresh.csv"
    fresh.write_text(lines[0] + "\n" + lines[2].replace("2,1,1,", "892,1,1,", 1) + "\n")
    r = weir("import", fresh, "--table", "titanic", "--mode", "append", lake=lake)
    assert r.returncode == 0, r.stderr
    assert count(lake, "SELECT count(*) FROM titanic") == 892
