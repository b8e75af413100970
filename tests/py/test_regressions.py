"""Regression tests for problems found by a first-time user (each fails without its fix)."""
from __future__ import annotations

import json
import subprocess

import pytest

from conftest import ROOT, TITANIC, count, weir, weir_bin, weir_json, weir_list

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


def test_refs_cannot_be_ambiguous(titanic_lake):
    assert weir("tag", "create", "v1", lake=titanic_lake).returncode == 0
    r = weir("branch", "create", "v1", lake=titanic_lake)
    assert r.returncode == 1 and 'a tag named "v1" already exists' in r.stderr
    r = weir("branch", "create", "deadbeef", lake=titanic_lake)
    assert r.returncode == 2 and "reads as a commit hash" in r.stderr
    r = weir("import", TITANIC, "--table", "x", "--branch", "v1", lake=titanic_lake)
    assert r.returncode == 2 and '"v1" is a tag, not a branch' in r.stderr


def test_revert_of_a_table_that_exists_nowhere(titanic_lake):
    r = weir("revert", "nope", "--to", "main", lake=titanic_lake)
    assert r.returncode == 1
    assert "table default.nope exists neither on branch main nor at main" in r.stderr


def test_run_needs_a_folder(titanic_lake, tmp_path):
    f = tmp_path / "model.sql"
    f.write_text("SELECT 1 AS a\n")
    r = weir("run", f, lake=titanic_lake)
    assert r.returncode == 2 and "is a file" in r.stderr
    r = weir("run", tmp_path / "nope", lake=titanic_lake)
    assert r.returncode == 1 and "does not exist" in r.stderr
    assert "run (null)" not in r.stdout


def test_unstorable_sql_results_fail_at_plan_time(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "x.sql").write_text("SELECT [1, 2] AS a, 1 AS b, 2 AS b\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3
    assert 'column "a" is INTEGER[] in the query, which weir cannot store' in r.stderr
    assert 'the query returns two columns named "b"' in r.stderr


def test_a_moved_lake_is_refused_with_a_reason(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert weir("init", a).returncode == 0
    assert weir("import", TITANIC, "--table", "t", lake=a).returncode == 0
    a.rename(b)
    r = weir("tables", lake=b)
    assert r.returncode == 1
    assert f"was created at {a}" in r.stderr and "cannot be moved or copied" in r.stderr


def test_jsonl_errors_name_the_right_line(lake, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n{"a": x}\n{"a": 3}\n')
    r = weir("import", bad, "--table", "j", lake=lake)
    assert r.returncode == 1
    assert "bad.jsonl line 2:" in r.stderr


def test_log_n_zero_and_bare_tag(titanic_lake):
    assert weir_list("log", "-n", "0", lake=titanic_lake) == []
    weir("tag", "create", "t1", lake=titanic_lake)
    r = weir("tag", lake=titanic_lake)
    assert r.returncode == 0 and "t1" in r.stdout


SLOW = '''\
import time
from typing import Annotated

import pyarrow as pa

import weir
from weir import Int64, Model, Table, TableSchema


class Out(TableSchema):
    n: Int64


@weir.model()
def slow(src: Annotated[pa.Table, Model("titanic")]) -> Table[Out]:
    """Sleeps long enough to be interrupted."""
    time.sleep(60)
    return pa.table({"n": pa.array([src.num_rows], pa.int64())})
'''


def test_interrupting_a_run_records_it_and_leaves_the_target(titanic_lake, tmp_path):
    import os
    import signal
    import time

    from conftest import weir_bin

    proj = tmp_path / "slow"
    proj.mkdir()
    (proj / "models.py").write_text(SLOW)
    before = weir_json("show", "main", lake=titanic_lake)["hash"]
    env = dict(os.environ, WEIR_PYTHON=str(ROOT / ".venv" / "bin" / "python"))
    p = subprocess.Popen([str(weir_bin()), "--lake", str(titanic_lake), "run", str(proj)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(r["status"] == "running" for r in weir_list("runs", lake=titanic_lake)):
        time.sleep(0.05)
    time.sleep(1.0)   # the worker is sleeping inside the model now
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert time.monotonic() - t0 < 10   # stopped promptly, not after the model's 60 s
    assert p.returncode == 130, err   # as shells expect of a command stopped by Ctrl-C
    assert "interrupted" in err
    run = weir_list("runs", lake=titanic_lake)[0]
    assert run["status"] == "failed"
    assert run["error"]["code"] == "Interrupted"   # as a killed run's (was "WeirError")
    assert weir_json("show", "main", lake=titanic_lake)["hash"] == before
    assert "run/" + run["run_id"] in [b["name"] for b in weir_list("branch", lake=titanic_lake)]


def test_failed_run_json_carries_the_run_record(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "contracts").mkdir()
    (proj / "contracts" / "c.yml").write_text("contract:\n  name: Small\n  columns:\n    - {name: n, type: Int64, max: 1}\n")
    (proj / "big.sql").write_text("-- weir: output_schema=Small\nSELECT count(*) AS n FROM titanic\n")
    r = weir("run", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == "ContractViolation"
    assert doc["run"]["status"] == "failed"
    assert doc["run"]["models"][0]["violations"][0]["kind"] == "range"


def test_csv_header_must_name_every_column_once(lake, tmp_path):
    dup = tmp_path / "dup.csv"
    dup.write_text("a,b,a\n1,2,3\n")
    r = weir("import", dup, "--table", "d", lake=lake)
    assert r.returncode == 1 and 'the header names column "a" twice (fields 1 and 3)' in r.stderr
    empty = tmp_path / "empty_name.csv"
    empty.write_text("a,,c\n1,2,3\n")
    r = weir("import", empty, "--table", "d", lake=lake)
    assert r.returncode == 1 and "header field 2 is empty" in r.stderr


def test_plan_warns_when_a_model_takes_over_an_imported_table(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "titanic_copy.sql").write_text("-- weir: name=titanic\nSELECT 1 AS a\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 0
    assert "warning: titanic_copy.sql:1: model titanic will replace table default.titanic, which was last written by import (891 rows)" in r.stderr


def test_csv_of_blank_lines_is_refused(lake, tmp_path):
    blank = tmp_path / "blank.csv"
    blank.write_text("\n\n\n")
    r = weir("import", blank, "--table", "b", lake=lake)
    assert r.returncode == 1 and "line 1: the line is empty" in r.stderr


HIST = '''\
from typing import Annotated
import pyarrow as pa
import weir
from weir import {type}, Model, Table, TableSchema


class Hist(TableSchema):
    """Row counts."""
    n: {type}


@weir.model(materialization="APPEND")
def hist(src: Annotated[pa.Table, Model("titanic")]) -> Table[Hist]:
    """Appends the row count."""
    return pa.table({{"n": pa.array([{value}], {arrow})}})
'''


def test_append_model_is_held_to_its_table(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "models.py").write_text(HIST.format(type="Int64", value="src.num_rows", arrow="pa.int64()"))
    for _ in range(2):
        assert weir("run", proj, lake=titanic_lake).returncode == 0
    # The model's schema changes: planning refuses before anything runs...
    (proj / "models.py").write_text(HIST.format(type="String", value="str(src.num_rows)", arrow="pa.large_string()"))
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert 'model hist appends to default.hist: column "n" is large_string in its output, the table has int64' in r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM hist WHERE n = 891") == 2


def test_append_model_without_schema_is_checked_against_the_table_at_run_time(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "daily.sql").write_text("-- weir: materialization=APPEND\nSELECT count(*) AS n FROM titanic\n")
    assert weir("run", proj, lake=titanic_lake).returncode == 0
    (proj / "daily.sql").write_text("-- weir: materialization=APPEND\nSELECT 'x' AS n FROM titanic LIMIT 1\n")
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert 'column "n"' in r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM daily") == 1


def test_replace_without_contract_keeps_the_tables_contract(lake, tmp_path):
    assert weir("import", TITANIC, "--table", "titanic", "--contract", CONTRACT, lake=lake).returncode == 0
    first = tmp_path / "first.csv"
    assert weir("query", "SELECT * FROM titanic WHERE Pclass = 1", "--output", first, lake=lake).returncode == 0
    assert weir("import", first, "--table", "titanic", "--mode", "replace", lake=lake).returncode == 0
    d = weir_json("describe", "titanic", lake=lake)
    assert d["contract"]["name"] == "titanic" and d["comment"]
    header = TITANIC.read_text().splitlines()[0]
    junk = tmp_path / "junk.csv"
    junk.write_text(header + "\n1,7,9,x,robot,-5,0,0,t,-1,,Z\n")
    r = weir("import", junk, "--table", "titanic", "--mode", "replace", lake=lake)
    assert r.returncode == 3 and "the table's contract titanic" in r.stderr


def test_unique_in_drop_mode_keeps_a_valid_first_occurrence(lake, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("id,status\n1,lost\n1,placed\n2,placed\n")
    c = tmp_path / "c.yml"
    c.write_text("contract:\n  name: d\n  mode: drop\n  columns:\n    - {name: id, type: Int64, unique: true}\n"
                 "    - {name: status, type: String, enum: [placed, shipped]}\n")
    r = weir("import", data, "--table", "d", "--contract", c, lake=lake)
    assert r.returncode == 0, r.stderr
    assert count(lake, "SELECT count(*) FROM d") == 2
    assert count(lake, "SELECT count(*) FROM d__quarantine") == 1


def test_bare_model_names_in_a_project_namespace(titanic_lake, tmp_path):
    proj = tmp_path / "ns"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("namespace: analytics\n")
    (proj / "a.sql").write_text("SELECT PassengerId, Fare FROM titanic\n")
    (proj / "b.sql").write_text("SELECT count(*) AS n FROM a\n")
    assert weir("check", proj, lake=titanic_lake).returncode == 0
    assert weir("run", proj, lake=titanic_lake).returncode == 0
    assert count(titanic_lake, "SELECT n FROM analytics.b") == 891


def test_sql_in_contracts_and_filters_compiles_at_plan_time(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    (proj / "contracts").mkdir(parents=True)
    (proj / "contracts" / "c.yml").write_text(
        'contract:\n  name: C\n  columns:\n    - {name: n, type: Int64, checks: ["nn > 0"]}\n'
        '  rules:\n    - {name: r1, sql: "SELECT count(*) FROM {table} WHERE zz", threshold: 0}\n')
    (proj / "m.sql").write_text("-- weir: output_schema=C\nSELECT count(*) AS n FROM titanic\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3
    assert 'check "nn > 0" on column "n" does not compile' in r.stderr
    assert 'rule "r1" does not compile' in r.stderr


def test_sql_problems_name_the_line_once(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "x.sql").write_text("-- weir: name=x\n\n\nSELECT\n  nope_col\nFROM titanic\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3 and "x.sql:5: model x does not plan" in r.stderr
    (proj / "x.sql").write_text("-- weir: name=x\nSELECT\nFROM WHERE titanic\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    problems = json.loads(r.stdout)["error"]["details"]
    assert len(problems) == 1 and problems[0]["line"] == 3


def test_reverting_a_run_that_published_nothing_says_so(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "contracts").mkdir()
    (proj / "contracts" / "c.yml").write_text("contract:\n  name: Small\n  columns:\n    - {name: n, type: Int64, max: 1}\n")
    (proj / "big.sql").write_text("-- weir: output_schema=Small\nSELECT count(*) AS n FROM titanic\n")
    assert weir("run", proj, lake=titanic_lake).returncode == 3
    run = weir_list("runs", lake=titanic_lake)[0]
    r = weir("revert", "--run", run["run_id"], lake=titanic_lake)
    assert r.returncode == 0
    assert f"Nothing to revert: run {run['run_id']} published no tables" in r.stdout


# ---- second fresh-eyes review ---------------------------------------------------------


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


def test_table_names_that_differ_only_in_case_are_refused(titanic_lake):
    r = weir("import", TITANIC, "--table", "Titanic", lake=titanic_lake)
    assert r.returncode == 1
    assert ("table default.Titanic would differ from table default.titanic on branch main only in case"
            in r.stderr)


def test_merge_of_case_twins_is_a_conflict(lake, tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("a\n1\n")
    assert weir("branch", "create", "dev", lake=lake).returncode == 0
    assert weir("import", f, "--table", "T", "--branch", "dev", lake=lake).returncode == 0
    assert weir("import", f, "--table", "t", lake=lake).returncode == 0
    before = weir_list("log", "-n", "1", lake=lake)
    r = weir("merge", "dev", "--into", "main", lake=lake)
    assert r.returncode == 4
    assert "default.T (main: added default.t, whose name differs only in case, dev: added)" in r.stderr
    assert weir_list("log", "-n", "1", lake=lake) == before


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
    assert report == {"output": str(out), "format": "parquet", "rows": 891}
    assert pq.read_table(out).num_rows == 891


def test_query_output_inside_the_lake_is_refused(titanic_lake):
    catalog = titanic_lake / "catalog.db"
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


def test_a_contract_sql_rule_that_does_not_run_names_its_file_and_line(lake, tmp_path):
    f = tmp_path / "c.csv"
    f.write_text("a,b\nx,y\n")
    check = tmp_path / "check.yml"
    check.write_text('contract:\n  name: s\n  columns:\n    - name: a\n      type: String\n'
                     '      checks: ["a >>>> 0"]\n    - {name: b, type: String}\n')
    r = weir("import", f, "--table", "s1", "--contract", check, lake=lake)
    assert r.returncode == 1
    assert r.stderr.startswith(f'error: {check}:6:16: check "a >>>> 0" of column "a" (rule a.check[0]) '
                               "does not run: "), r.stderr
    rule = tmp_path / "rule.yml"
    rule.write_text("contract:\n  name: s\n  columns:\n    - {name: a, type: String}\n"
                    "    - {name: b, type: String}\n  rules:\n    - name: text\n"
                    "      sql: \"SELECT 'x' FROM {table}\"\n")
    r = weir("import", f, "--table", "s2", "--contract", rule, lake=lake)
    assert r.returncode == 1  # a defect of the contract, not a usage error
    assert r.stderr.startswith(f'error: {rule}:7:7: rule "text" does not run: '), r.stderr


def test_init_refuses_an_empty_path(tmp_path):
    r = weir("init", "", cwd=tmp_path)
    assert r.returncode == 2
    assert "the lake path is empty" in r.stderr
    assert not (tmp_path / ".weir").exists()


def test_json_file_holding_an_array_of_objects(lake, tmp_path):
    f = tmp_path / "rows.json"
    f.write_text('[{"a": 1, "b": "x"},\n {"a": 2, "b": "y"}]\n')
    r = weir("import", f, "--table", "rows", lake=lake)
    assert r.returncode == 0, r.stderr
    r = weir("query", "SELECT a, b FROM rows ORDER BY a", "--format", "csv", lake=lake)
    assert r.stdout.splitlines() == ["a,b", "1,x", "2,y"]


def test_short_option_with_attached_value_and_contradictory_verbosity(titanic_lake):
    r = weir("log", "-n1", "--json", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["commits"]) == 1
    r = weir("-q", "-v", "log", lake=titanic_lake)
    assert r.returncode == 2
    assert "--quiet and --verbose" in r.stderr


def test_run_summary_lists_rules_under_a_header(titanic_lake):
    r = weir("run", ROOT / "examples" / "titanic" / "project", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = lines.index("model f rules:")
    assert lines[at + 1].split() == ["rule", "on", "violation", "result", "rows"]
    assert lines[at + 2].split() == ["tclass.enum", "fail", "passed"]


def test_replace_of_a_contracted_table_reads_the_file_in_the_tables_types(lake, tmp_path):
    # An append parsed the CSV into the table's types, a replace inferred them: five rows
    # whose ages are whole numbers were refused as int64 (narrowing) on replace only.
    contract = ROOT / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"
    assert weir("import", TITANIC, "--table", "titanic", "--contract", contract, lake=lake).returncode == 0
    head = tmp_path / "head.csv"
    head.write_text("".join(TITANIC.read_text().splitlines(keepends=True)[:6]))
    r = weir("import", head, "--table", "titanic", "--mode", "replace", lake=lake)
    assert r.returncode == 0, r.stderr
    assert count(lake, "SELECT count(*) FROM titanic") == 5


def test_contract_sql_cannot_write_into_the_lake(lake, tmp_path):
    # A table rule with a second statement overwrote another table's data file: contract
    # SQL now runs on an engine without any file access, and is one statement.
    f = tmp_path / "k.csv"
    f.write_text("k\n1\n2\n")
    assert weir("import", f, "--table", "victim", lake=lake).returncode == 0
    data = next((lake / "warehouse" / "default" / "victim" / "data").glob("*.parquet"))
    before = data.read_bytes()
    for sql in (f"SELECT count(*) FROM {{table}}; COPY (SELECT 1 AS x) TO '{data}' (FORMAT csv)",
                f"SELECT count(*) FROM {{table}} WHERE k < (SELECT count(*) FROM read_parquet('{data}'))"):
        contract = tmp_path / "evil.yml"
        contract.write_text("contract:\n  name: evil\n  columns: [{name: k, type: Int64}]\n  rules:\n"
                            f"    - name: r\n      sql: \"{sql}\"\n      threshold: 100\n")
        r = weir("import", f, "--table", "other", "--contract", contract, lake=lake)
        assert r.returncode == 1, r.stderr
        assert ("is not one SELECT statement" in r.stderr) or ("file system operations are disabled" in r.stderr), r.stderr
    assert data.read_bytes() == before
    assert count(lake, "SELECT count(*) FROM victim") == 2


@pytest.mark.parametrize("check, message", [
    ("id > 5) OR (true", 'is not one SQL expression: syntax error at or near ")"'),
    ("(id > 5", "is not one SQL expression: syntax error at end of input"),
    ("id > 0; SELECT 1", "is not one SQL expression: it holds 2 statements"),
    ("id > 100 AND $$'$$ <> '') AND (false OR $$'$$ = ''", 'is not one SQL expression: syntax error at or near ")"'),
    ("id FROM t WHERE id > 1", "is not one SQL expression (a check is a condition on one row"),
])
def test_a_check_must_be_one_expression(lake, tmp_path, check, message):
    # "id > 5) OR (true" was pasted into weir's query and silently changed which rows fail;
    # a textual check was fooled by $$-quoting: the parser judges now.
    contract = tmp_path / "c.yml"
    contract.write_text(f"contract:\n  name: c\n  columns:\n    - {{name: id, type: Int64, checks: [{json.dumps(check)}]}}\n")
    f = tmp_path / "i.csv"
    f.write_text("id\n1\n2\n3\n")
    r = weir("import", f, "--table", "c", "--contract", contract, lake=lake)
    assert r.returncode == 1
    assert f'{contract}:4:' in r.stderr and f'of column "id" (rule id.check[0]) {message}' in r.stderr, r.stderr
    assert weir_list("tables", lake=lake) == []


def test_valid_checks_with_any_quoting_still_run(lake, tmp_path):
    # The textual check refused $$x)$$ and E'\'' as unbalanced.
    contract = tmp_path / "c.yml"
    contract.write_text('contract:\n  name: c\n  columns:\n    - {name: id, type: Int64}\n'
                        '    - {name: s, type: String, checks: ["s <> $$x)$$", "s <> E\'\\\\\'\'"]}\n')
    f = tmp_path / "i.csv"
    f.write_text("id,s\n1,a\n2,b\n")
    r = weir("import", f, "--table", "c", "--contract", contract, lake=lake)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("sql", ["PRAGMA version /* {table} */", "ATTACH ':memory:' AS m /* {table} */",
                                 "SELECT count(*) FROM {table} WHERE $$'$$ <> ''; ATTACH ':memory:' AS mm; "
                                 "SELECT count(*) FROM {table}"])
def test_a_table_rule_must_be_one_select(lake, tmp_path, sql):
    contract = tmp_path / "r.yml"
    contract.write_text("contract:\n  name: c\n  columns:\n    - {name: id, type: Int64}\n  rules:\n"
                        f"    - name: r\n      sql: {json.dumps(sql)}\n      threshold: 5\n")
    f = tmp_path / "i.csv"
    f.write_text("id\n1\n")
    r = weir("import", f, "--table", "c", "--contract", contract, lake=lake)
    assert r.returncode == 1
    assert f'{contract}:6:7: rule "r" is not one SELECT statement' in r.stderr, r.stderr


def test_a_check_ending_in_a_comment_runs(lake, tmp_path):
    contract = tmp_path / "c.yml"
    contract.write_text('contract:\n  name: c\n  columns:\n    - {name: id, type: Int64, checks: ["id > 1 -- positive"]}\n')
    f = tmp_path / "i.csv"
    f.write_text("id\n1\n2\n3\n")
    r = weir("import", f, "--table", "c", "--contract", contract, lake=lake)
    assert r.returncode == 3, r.stderr
    assert 'fails for 1 row' in r.stderr, r.stderr


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


def test_tags_under_run_are_reserved_like_branches(lake):
    r = weir("tag", "create", "run/xyz", lake=lake)
    assert r.returncode == 2
    assert 'invalid tag name "run/xyz": names under run/ are reserved for pipeline runs' in r.stderr


def test_log_takes_the_ref_as_an_argument(titanic_lake):
    assert weir("branch", "create", "dev", lake=titanic_lake).returncode == 0
    r = weir("log", "dev", "-n", "1", "--json", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["commits"][0]["hash"] == weir_json("show", "dev", lake=titanic_lake)["hash"]
    r = weir("log", "dev", "--ref", "main", lake=titanic_lake)
    assert r.returncode == 2 and "give the ref once" in r.stderr


def test_runs_show_takes_a_unique_prefix_of_a_run_id(titanic_lake):
    assert weir("run", ROOT / "examples" / "titanic" / "project", lake=titanic_lake).returncode == 0
    run_id = weir_list("runs", lake=titanic_lake)[0]["run_id"]
    shown = weir_json("runs", "show", run_id[:6], lake=titanic_lake)
    assert shown["run_id"] == run_id
    r = weir("runs", "show", "zzzz", lake=titanic_lake)
    assert r.returncode == 1 and "run zzzz does not exist" in r.stderr


def test_merge_message_on_a_fast_forward_is_reported_unused(titanic_lake):
    assert weir("branch", "create", "dev", lake=titanic_lake).returncode == 0
    assert weir("import", TITANIC, "--table", "t2", "--branch", "dev", lake=titanic_lake).returncode == 0
    r = weir("merge", "dev", "--into", "main", "-m", "release", lake=titanic_lake)
    assert r.returncode == 0
    assert "note: --message was not used: a fast-forward makes no commit" in r.stderr


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


def test_a_check_must_be_a_condition(lake, tmp_path):
    # DuckDB read the integer "a - 2" as a condition (non-zero is true).
    f = tmp_path / "t.csv"
    f.write_text("a\n1\n2\n")
    contract = tmp_path / "c.yml"
    contract.write_text('contract:\n  name: c\n  columns:\n    - {name: a, type: Int64, checks: ["a - 2"]}\n')
    r = weir("import", f, "--table", "t", "--contract", contract, lake=lake)
    assert r.returncode == 1
    assert f'{contract}:4:' in r.stderr and 'check "a - 2" of column "a" (rule a.check[0]) is not a condition: it is Int64, not Bool' in r.stderr


def test_a_check_failing_only_on_real_rows_names_its_place(lake, tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("a,b\n1,x\n")
    contract = tmp_path / "c.yml"
    contract.write_text('contract:\n  name: c\n  columns:\n    - {name: a, type: Int64, checks: ["CAST(b AS INTEGER) > 0"]}\n'
                        '    - {name: b, type: String}\n')
    r = weir("import", f, "--table", "t", "--contract", contract, lake=lake)
    assert r.returncode == 1
    assert r.stderr.startswith(f'error: {contract}:4:') and "does not run: " in r.stderr, r.stderr
