"""Imports that never change a value (issue 13): each value an import used to change with
exit 0 is read exactly or refused, and each case holds the exact value. Also the metadata
file names a table gets across branches and the weir commit each snapshot records."""
from __future__ import annotations

import datetime as dt
import decimal
import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import weir
from conftest import weir_bin, weir_json
from conftest import weir as cli

pytestmark = pytest.mark.cli


def query(lake, sql: str, ref: str | None = None) -> list[dict]:
    args = ["query", sql, "--format", "json"] + (["--ref", ref] if ref else [])
    r = cli(*args, lake=lake)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def imp(lake, path, table, *extra):
    return cli("import", path, "--table", table, *extra, lake=lake)


# ---- CSV numbers ---------------------------------------------------------------------------


def test_integers_beyond_int64_are_decimal_38_0_exactly(lake, tmp_path):
    f = tmp_path / "big.csv"
    f.write_text("id,big\n1,12345678901234567890\n2,-99999999999999999999999999999999999999\n3,\n")
    r = imp(lake, f, "big")
    assert r.returncode == 0, r.stderr
    rows = query(lake, "SELECT id, CAST(big AS VARCHAR) AS v, typeof(big) AS t FROM big ORDER BY id")
    assert [x["v"] for x in rows] == ["12345678901234567890", "-99999999999999999999999999999999999999", None]
    assert rows[0]["t"] == "DECIMAL(38,0)"
    col = next(c for c in weir_json("describe", "big", lake=lake)["columns"] if c["name"] == "big")
    assert col["weir_type"] == "Decimal(38, 0)"
    # The SDK reads the same value back, to the last digit.
    got = weir.Client(lake).query("SELECT big FROM big ORDER BY id").column("big").to_pylist()
    assert got[0] == decimal.Decimal("12345678901234567890")


def test_an_integer_longer_than_38_digits_is_refused_naming_column_and_line(lake, tmp_path):
    f = tmp_path / "huge.csv"
    f.write_text("id,n\n1,5\n2,1234567890123456789012345678901234567890\n")
    r = imp(lake, f, "huge")
    assert r.returncode == 1
    assert 'huge.csv line 3: column "n": the integer 1234567890123456789012345678901234567890' in r.stderr
    assert "Decimal(38, 0)" in r.stderr
    assert cli("describe", "huge", lake=lake).returncode != 0  # nothing written


def test_a_big_integer_among_fractions_is_refused_not_rounded(lake, tmp_path):
    f = tmp_path / "mixed.csv"
    f.write_text("x\n1.5\n12345678901234567890\n")
    r = imp(lake, f, "mixed")
    assert r.returncode == 1
    assert 'mixed.csv line 3: column "x": the integer 12345678901234567890 is beyond Int64' in r.stderr
    # Declared, the column is the user's choice: Decimal keeps every digit.
    c = tmp_path / "c.yml"
    c.write_text("contract:\n  name: m\n  columns:\n    - {name: x, type: 'Decimal(38, 1)'}\n")
    r = imp(lake, f, "mixed", "--contract", c)
    assert r.returncode == 0, r.stderr
    assert [x["v"] for x in query(lake, "SELECT CAST(x AS VARCHAR) AS v FROM mixed")] == [
        "1.5", "12345678901234567890.0"]


def test_ordinary_numbers_keep_their_types(lake, tmp_path):
    f = tmp_path / "n.csv"
    f.write_text("i,f\n9223372036854775807,1.25\n-3,2\n")
    assert imp(lake, f, "n").returncode == 0
    types = {c["name"]: c["weir_type"] for c in weir_json("describe", "n", lake=lake)["columns"]}
    assert types == {"i": "Int64", "f": "Float64"}
    assert query(lake, "SELECT i FROM n ORDER BY i DESC")[0]["i"] == 9223372036854775807


# ---- CSV dates -----------------------------------------------------------------------------


def test_an_ambiguous_date_is_refused_with_both_readings(lake, tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("id,d\n1,01/01/2024\n2,01/02/2024\n")
    r = imp(lake, f, "d")
    assert r.returncode == 1
    msg = r.stderr
    assert 'd.csv line 3: column "d": the date "01/02/2024" is ambiguous' in msg
    assert "2024-02-01 as %d/%m/%Y" in msg and "2024-01-02 as %m/%d/%Y" in msg
    assert "say which with --date-format, the SDK's date_format= (every value" in msg  # advice for both callers
    assert cli("describe", "d", lake=lake).returncode != 0


@pytest.mark.parametrize(("fmt", "want"), [("%m/%d/%Y", "2024-01-02"), ("%d/%m/%Y", "2024-02-01")])
def test_date_format_says_which_reading(lake, tmp_path, fmt, want):
    f = tmp_path / "d.csv"
    f.write_text("d\n01/02/2024\n")
    r = imp(lake, f, "d", "--date-format", fmt)
    assert r.returncode == 0, r.stderr
    assert query(lake, "SELECT CAST(d AS VARCHAR) AS d FROM d") == [{"d": want}]


def test_iso_dates_are_never_ambiguous(lake, tmp_path):
    """Year-first dates whose days are all at most 12 were refused as "ambiguous" (as
    year-day-month, which no convention writes)."""
    f = tmp_path / "iso.csv"
    f.write_text("d,t\n2024-01-02,2024-01-02 10:00:00\n2024-03-04,2024-03-04 11:30:00\n")
    r = imp(lake, f, "iso")
    assert r.returncode == 0, r.stderr
    got = query(lake, "SELECT CAST(d AS VARCHAR) AS d, CAST(t AS VARCHAR) AS t FROM iso ORDER BY d")
    assert got == [{"d": "2024-01-02", "t": "2024-01-02 10:00:00"}, {"d": "2024-03-04", "t": "2024-03-04 11:30:00"}]


def test_a_date_column_with_one_possible_reading_is_read(lake, tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("d\n13/02/2024\n01/02/2024\n")
    assert imp(lake, f, "d").returncode == 0
    assert [x["d"] for x in query(lake, "SELECT CAST(d AS VARCHAR) AS d FROM d")] == ["2024-02-13", "2024-02-01"]


def test_an_ambiguous_timestamp_is_refused_and_timestamp_format_reads_it(lake, tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("t\n03/04/2024 10:00:00\n")
    r = imp(lake, f, "t")
    assert r.returncode == 1
    assert 'column "t": the timestamp "03/04/2024 10:00:00" is ambiguous' in r.stderr
    assert "--timestamp-format" in r.stderr
    r = imp(lake, f, "t", "--timestamp-format", "%m/%d/%Y %H:%M:%S")
    assert r.returncode == 0, r.stderr
    assert query(lake, "SELECT CAST(t AS VARCHAR) AS t FROM t") == [{"t": "2024-03-04 10:00:00"}]


# ---- CSV dialect ---------------------------------------------------------------------------


def test_a_one_column_file_with_a_common_delimiter_warns_and_delimiter_reads_it(lake, tmp_path):
    f = tmp_path / "semi.csv"
    f.write_text("a;b\n1;2\n3;4\n")
    r = imp(lake, f, "one", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc["warnings"]) == 1 and "';'" in doc["warnings"][0] and "--delimiter" in doc["warnings"][0]
    assert "warning: " in r.stderr and "every line contains ';'" in r.stderr
    r = imp(lake, f, "two", "--delimiter", ";", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["warnings"] == []
    assert query(lake, "SELECT a, b FROM two ORDER BY a") == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]


@pytest.mark.parametrize("spelling", ["\\t", "tab", "\t"])
def test_tab_and_pipe_delimiters(lake, tmp_path, spelling):
    f = tmp_path / "t.txt"
    f.write_text("a\tb\n1\tx|y\n")
    r = imp(lake, f, "t", "--format", "csv", "--delimiter", spelling)
    assert r.returncode == 0, r.stderr
    assert query(lake, "SELECT a, b FROM t") == [{"a": 1, "b": "x|y"}]


def test_quote_character(lake, tmp_path):
    f = tmp_path / "q.csv"
    f.write_text("a,b\n'x, y','it''s'\n")
    r = imp(lake, f, "q", "--quote", "'")
    assert r.returncode == 0, r.stderr
    assert query(lake, "SELECT a, b FROM q") == [{"a": "x, y", "b": "it's"}]


def test_bad_dialect_options_are_refused(lake, tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("a\n1\n")
    r = imp(lake, f, "a", "--delimiter", ";;")
    assert r.returncode != 0 and 'invalid delimiter ";;"' in r.stderr
    r = imp(lake, f, "a", "--delimiter", '"')
    assert r.returncode != 0 and "both" in r.stderr
    r = imp(lake, f, "a", "--max-line-size", "ten")
    assert r.returncode == 2 and "--max-line-size" in r.stderr


def test_max_line_size(lake, tmp_path):
    f = tmp_path / "long.csv"
    f.write_text("a\n" + "x" * 3_000_000 + "\n")
    r = imp(lake, f, "long")
    assert r.returncode == 1 and "long.csv" in r.stderr
    r = imp(lake, f, "long", "--max-line-size", "4M")
    assert r.returncode == 0, r.stderr
    assert query(lake, "SELECT length(a) AS n FROM long") == [{"n": 3_000_000}]
    # A line over a small limit says so (the message was "long.csv line 1: " and nothing).
    short = tmp_path / "p.csv"
    short.write_text("id,name\n1,abcdefghij\n")
    r = imp(lake, short, "p", "--max-line-size", "5")
    assert r.returncode == 1, r.stderr
    assert "p.csv line 1: the line is 8 bytes, longer than the maximum line size of 5 (--max-line-size" in r.stderr


def test_a_quoted_empty_string_stays_an_empty_string(lake, tmp_path):
    f = tmp_path / "e.csv"
    f.write_text('id,s\n1,""\n2,\n3,x\n')
    assert imp(lake, f, "e").returncode == 0
    rows = query(lake, "SELECT id, s, s IS NULL AS null FROM e ORDER BY id")
    assert rows == [{"id": 1, "s": "", "null": False}, {"id": 2, "s": None, "null": True},
                    {"id": 3, "s": "x", "null": False}]


# ---- column names ----------------------------------------------------------------------------


def test_parquet_columns_differing_only_in_case_are_refused_naming_both(lake, tmp_path):
    f = tmp_path / "case.parquet"
    pq.write_table(pa.table({"column": [1], "COLUMN": [2]}), f)
    r = imp(lake, f, "c")
    assert r.returncode == 1
    assert 'columns "column" and "COLUMN" differ only in case' in r.stderr
    assert "COLUMN_1" not in r.stderr
    assert cli("describe", "c", lake=lake).returncode != 0


def test_arrow_columns_differing_only_in_case_are_bad_input(tmp_path):
    c = weir.Client.init(tmp_path / "l")
    with pytest.raises(weir.InvalidInput, match='columns "a" and "A" differ only in case'):
        c.import_data("t", pa.table({"a": [1], "A": [2]}))


def test_a_contract_with_columns_differing_only_in_case_does_not_load(lake, tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("a\n1\n")
    c = tmp_path / "c.yml"
    c.write_text("contract:\n  name: c\n  columns:\n    - {name: a, type: Int64}\n    - {name: A, type: Int64}\n")
    r = imp(lake, f, "a", "--contract", c)
    assert r.returncode == 1
    assert 'c.yml:5' in r.stderr and 'columns "A" and "a" (line 4) differ only in case' in r.stderr
    ir = tmp_path / "c.json"
    ir.write_text(json.dumps({"ir_version": 1, "name": "c", "columns": [
        {"name": "a", "type": "Int64"}, {"name": "A", "type": "Int64"}]}))
    r = imp(lake, f, "a", "--contract", ir)
    assert r.returncode == 1 and 'columns "a" and "A" differ only in case' in r.stderr


# ---- nullability -----------------------------------------------------------------------------


def test_columns_without_a_contract_are_optional_and_a_later_blank_appends(lake, tmp_path):
    (tmp_path / "a.csv").write_text("id,s\n1,x\n")
    (tmp_path / "b.csv").write_text("id,s\n2,\n")
    assert imp(lake, tmp_path / "a.csv", "t").returncode == 0
    assert all(not c["required"] for c in weir_json("describe", "t", lake=lake)["columns"])
    r = imp(lake, tmp_path / "b.csv", "t", "--mode", "append")
    assert r.returncode == 0, r.stderr
    assert query(lake, "SELECT id, s FROM t ORDER BY id") == [{"id": 1, "s": "x"}, {"id": 2, "s": None}]


# ---- Arrow types -----------------------------------------------------------------------------


@pytest.mark.parametrize("zone", ["US/Pacific", "Etc/UTC", "+00:00", "UTC"])
def test_arrow_timestamps_in_any_zone_go_into_a_utc_column(tmp_path, zone):
    c = weir.Client.init(tmp_path / "l")
    instant = dt.datetime(2024, 1, 1, 12, 0, 0, 123456, tzinfo=dt.timezone.utc)
    data = pa.table({"t": pa.array([instant], pa.timestamp("us", tz=zone))})
    contract = {"ir_version": 1, "name": "ts", "columns": [{"name": "t", "type": "TimestampMicroUTC"}]}
    c.import_data("declared", data, contract=contract)
    c.import_data("inferred", data)
    for table in ("declared", "inferred"):
        got = c.query(f"SELECT * FROM {table}")
        assert got.schema.field("t").type == pa.timestamp("us", tz="UTC")
        assert got.column("t").to_pylist() == [instant]
    # The same data from Parquet agrees.
    pq.write_table(data, tmp_path / "z.parquet")
    c.import_data("from_parquet", str(tmp_path / "z.parquet"))
    assert c.query("SELECT * FROM from_parquet").column("t").to_pylist() == [instant]


def test_date64_at_midnight_goes_into_date32(tmp_path):
    c = weir.Client.init(tmp_path / "l")
    data = pa.table({"d": pa.array([dt.date(2024, 1, 2), None, dt.date(1969, 12, 31)], pa.date64())})
    c.import_data("d", data)
    got = c.query("SELECT * FROM d")
    assert got.schema.field("d").type == pa.date32()
    assert got.column("d").to_pylist() == [dt.date(2024, 1, 2), None, dt.date(1969, 12, 31)]
    contract = {"ir_version": 1, "name": "d", "columns": [{"name": "d", "type": "Date32", "nullable": True}]}
    c.import_data("declared", data, contract=contract)
    assert c.query("SELECT * FROM declared").column("d").to_pylist() == got.column("d").to_pylist()


def test_date64_off_midnight_is_a_violation_with_column_count_and_sample(tmp_path):
    c = weir.Client.init(tmp_path / "l")
    day = 86_400_000
    data = pa.table({"d": pa.array([3 * day + 5, day, 2 * day + 7], pa.date64())})
    with pytest.raises(weir.ContractViolation) as e:
        c.import_data("d", data)
    msg = str(e.value)
    assert 'column "d" has 2 values of type date64 that do not convert exactly to date32' in msg
    assert "row 0: 1970-01-04T00:00:00.005" in msg
    assert "default.d" not in [t.table for t in c.get_tables()]


@pytest.mark.parametrize("typ", ["Date64", "Any"])
def test_date64_and_any_are_refused_before_any_file_is_written(tmp_path, typ):
    c = weir.Client.init(tmp_path / "l")
    contract = {"ir_version": 1, "name": "x", "columns": [{"name": "d", "type": typ}]}
    with pytest.raises(weir.Unsupported, match=f'column "d" is {typ}, which an Iceberg table cannot store'):
        c.import_data("x", pa.table({"d": pa.array([1], pa.int64())}), contract=contract)
    assert not (tmp_path / "l" / "warehouse" / "default" / "x").exists()


def test_any_in_a_model_output_schema_is_a_plan_problem(lake, tmp_path):
    proj = tmp_path / "proj"
    (proj / "contracts").mkdir(parents=True)
    (proj / "weir_project.yml").write_text("name: p\n")
    (proj / "contracts" / "out.yml").write_text("contract:\n  name: Out\n  columns:\n    - {name: x, type: Any}\n")
    (proj / "m.sql").write_text("-- weir: name=m\n-- weir: output_schema=Out\nSELECT 1 AS x\n")
    r = cli("check", proj, lake=lake)
    assert r.returncode == 3, r.stdout + r.stderr
    assert 'column "x" of output schema Out is Any' in r.stdout + r.stderr


# ---- zero rows -------------------------------------------------------------------------------


def test_a_zero_row_append_is_a_reported_no_op(lake, tmp_path):
    (tmp_path / "a.csv").write_text("id,s\n1,x\n")
    (tmp_path / "none.csv").write_text("id,s\n")
    assert imp(lake, tmp_path / "a.csv", "t").returncode == 0
    head = weir_json("log", lake=lake)["commits"][0]["hash"]
    doc = weir_json("import", tmp_path / "none.csv", "--table", "t", "--mode", "append", lake=lake)
    assert doc["committed"] is False and doc["commit"] is None
    assert "no rows" in doc["reason"] and doc["rows_written"] == 0 and doc["report"] is None
    assert weir_json("log", lake=lake)["commits"][0]["hash"] == head
    r = imp(lake, tmp_path / "none.csv", "t", "--mode", "append")
    assert r.returncode == 0 and "Nothing imported into default.t on main (no commit)" in r.stdout
    assert "violation" not in r.stderr and "required" not in r.stderr
    # The SDK says the same, for Arrow data too.
    c = weir.Client(lake)
    res = c.import_data("t", pa.table({"id": pa.array([], pa.int64()), "s": pa.array([], pa.string())}),
                        mode="append")
    assert (res.committed, res.commit, res.rows_written) == (False, None, 0) and res.reason
    assert weir_json("log", lake=lake)["commits"][0]["hash"] == head


# ---- the SDK's options -----------------------------------------------------------------------


def test_sdk_import_options(tmp_path):
    c = weir.Client.init(tmp_path / "l")
    f = tmp_path / "d.csv"
    f.write_text("d|n\n01/02/2024|12345678901234567890\n")
    with pytest.raises(weir.InvalidInput, match="ambiguous"):
        c.import_data("d", str(f), delimiter="|")
    res = c.import_data("d", str(f), delimiter="|", date_format="%m/%d/%Y", max_line_size=1 << 20)
    assert res.committed and res.warnings == ()
    got = c.query("SELECT * FROM d").to_pylist()
    assert got == [{"d": dt.date(2024, 1, 2), "n": decimal.Decimal("12345678901234567890")}]
    res = c.import_data("semi", str(tmp_path / "d.csv"), format="csv")
    assert len(res.warnings) == 1 and "'|'" in res.warnings[0]
    with pytest.raises(TypeError):
        c.import_data("x", str(f), max_line_size="1M")  # type: ignore[arg-type]
    with pytest.raises(weir.InvalidArgument):
        c.import_data("x", str(f), quote="''")


# ---- metadata files and snapshots ------------------------------------------------------------


def _metadata_files(lake: pathlib.Path, table: str) -> list[str]:
    return sorted(p.name for p in (lake / "warehouse" / "default" / table / "metadata").glob("*.metadata.json"))


def test_metadata_numbers_are_unique_across_branches_and_after_a_revert(lake, tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("a\n1\n")
    assert imp(lake, f, "t").returncode == 0
    first = weir_json("log", lake=lake)["commits"][0]["hash"]
    assert cli("branch", "create", "dev", lake=lake).returncode == 0
    assert imp(lake, f, "t", "--mode", "append").returncode == 0
    assert imp(lake, f, "t", "--mode", "append", "--branch", "dev").returncode == 0
    r = cli("revert", "t", "--to", first, lake=lake)
    assert r.returncode == 0, r.stderr
    assert imp(lake, f, "t", "--mode", "append").returncode == 0
    names = _metadata_files(lake, "t")
    numbers = [n.split("-", 1)[0] for n in names]
    assert len(numbers) == len(set(numbers)), names
    for n in names:  # <version>-<uuid>.metadata.json, as Iceberg's own writers name them
        version, rest = n.split("-", 1)
        assert len(version) == 5 and version.isdigit() and len(rest) == len("x" * 36 + ".metadata.json")


def test_each_snapshot_records_the_weir_branch_and_parent_commit(lake, tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("a\n1\n")
    assert imp(lake, f, "t").returncode == 0
    assert cli("branch", "create", "dev", lake=lake).returncode == 0
    base = weir_json("log", "--ref", "dev", lake=lake)["commits"][0]["hash"]
    assert imp(lake, f, "t", "--mode", "append", "--branch", "dev").returncode == 0
    loc = weir_json("describe", "t", "--ref", "dev", lake=lake)["metadata_location"]
    meta = json.loads(pathlib.Path(loc.removeprefix("file://")).read_text())
    summary = next(s for s in meta["snapshots"] if s["snapshot-id"] == meta["current-snapshot-id"])["summary"]
    assert summary["weir.branch"] == "dev"
    assert summary["weir.parent-commit"] == base
    first = meta["snapshots"][0]["summary"]
    assert first["weir.branch"] == "main"
    assert weir_bin().exists()


@pytest.mark.parametrize("opt", [("--delimiter", ";"), ("--quote", "'"), ("--date-format", "%d/%m/%Y"),
                                 ("--timestamp-format", "%d/%m/%Y %H:%M"), ("--max-line-size", "1M")])
def test_csv_options_on_a_parquet_or_jsonl_file_are_usage_errors(lake, tmp_path, opt):
    """They were ignored with exit 0: the wrong file or the wrong option went unnoticed."""
    pq.write_table(pa.table({"a": [1]}), tmp_path / "p.parquet")
    (tmp_path / "j.jsonl").write_text('{"a": 1}\n')
    for f, kind in (("p.parquet", "Parquet"), ("j.jsonl", "JSON lines")):
        r = imp(lake, tmp_path / f, "t", *opt)
        assert r.returncode == 2, r.stderr
        assert f"{opt[0]} (the SDK's" in r.stderr and f"applies to CSV files; {tmp_path / f} is {kind}" in r.stderr
    assert cli("describe", "t", lake=lake).returncode != 0


def test_a_zero_row_append_of_the_wrong_shape_is_refused(lake, tmp_path):
    """An empty append was a no-op whatever its columns: a file of the wrong shape went
    unnoticed. Its columns are checked (not its rows: there are none)."""
    (tmp_path / "full.csv").write_text("id,big,d\n1,5,2024-01-01\n")
    assert imp(lake, tmp_path / "full.csv", "za").returncode == 0
    (tmp_path / "z.csv").write_text("id,name\n")
    r = imp(lake, tmp_path / "z.csv", "za", "--mode", "append")
    assert r.returncode == 3, r.stderr
    assert 'missing column "big"' in r.stderr and 'unknown column "name"' in r.stderr
    (tmp_path / "zok.csv").write_text("id,big,d\n")
    r = imp(lake, tmp_path / "zok.csv", "za", "--mode", "append")
    assert r.returncode == 0 and "no rows to append" in r.stdout + r.stderr, r.stderr


# ---- values a reader would change without a word (new-user review) --------------------------


def test_a_float_beyond_float64_is_refused_naming_column_line_and_value(lake, tmp_path):
    f = tmp_path / "ov.csv"
    f.write_text("id,v\n1,1.5\n2,1e400\n3,-1e999\n")
    r = imp(lake, f, "ov")
    assert r.returncode == 1, r.stderr
    assert 'line 3: column "v": the number 1e400 is beyond Float64' in r.stderr
    j = tmp_path / "ov.jsonl"
    j.write_text('{"id": 1, "v": 1.5}\n{"id": 2, "v": -1e400}\n')
    r = imp(lake, j, "ovj")
    assert r.returncode == 1, r.stderr
    assert 'ov.jsonl line 2: column "v": the number -1e400 is beyond Float64' in r.stderr
    assert cli("describe", "ov", lake=lake).returncode != 0


def test_inf_and_nan_written_as_words_stay_allowed_and_declared_float64_is_judged(lake, tmp_path):
    c = tmp_path / "f.yml"
    c.write_text("contract:\n  name: f\n  columns:\n    - {name: id, type: Int64}\n"
                 "    - {name: v, type: Float64}\n")
    f = tmp_path / "words.csv"
    f.write_text("id,v\n1,inf\n2,-Infinity\n3,nan\n4,1.5\n")
    r = imp(lake, f, "words", "--contract", c)
    assert r.returncode == 0, r.stderr
    rows = query(lake, "SELECT count(*) AS n FROM words WHERE isinf(v) OR isnan(v)")
    assert rows == [{"n": 3}]
    big = tmp_path / "big.csv"
    big.write_text("id,v\n1,1.5\n2,2e308\n")
    r = imp(lake, big, "bigf", "--contract", c)
    assert r.returncode == 1, r.stderr
    assert 'line 3: column "v": the number 2e308 is beyond Float64' in r.stderr


def test_naive_and_offset_timestamps_in_one_column_are_refused(lake, tmp_path):
    f = tmp_path / "ts.csv"
    f.write_text("id,t\n1,2024-01-02 10:00:00+02:00\n2,2024-01-02 10:00:00\n3,2024-01-03 10:00:00\n")
    r = imp(lake, f, "ts")
    assert r.returncode == 1, r.stderr
    assert 'ts.csv line 3: column "t": the timestamp "2024-01-02 10:00:00" has no UTC offset' in r.stderr
    assert "line 2" in r.stderr and "does not guess a time zone" in r.stderr


@pytest.mark.parametrize("rows,typ", [
    ("1,2024-01-02 10:00:00+02:00\n2,2024-01-02 10:00:00Z\n", "TimestampMicroUTC"),
    ("1,2024-01-02 10:00:00\n2,2024-01-02 11:00:00\n", "TimestampMicro"),
])
def test_all_offset_and_all_naive_timestamp_columns_import(lake, tmp_path, rows, typ):
    f = tmp_path / "ok.csv"
    f.write_text("id,t\n" + rows)
    r = imp(lake, f, "tsok")
    assert r.returncode == 0, r.stderr
    col = weir_json("describe", "tsok", lake=lake)["columns"][1]
    assert col["weir_type"] == typ, col


@pytest.mark.parametrize("name,text", [
    ("c.csv", "id,ID\n1,2\n"),
    ("c.jsonl", '{"a": 1, "A": 2}\n'),
    ("c2.jsonl", '{"a": 1}\n{"A": 2}\n'),
])
def test_columns_differing_only_in_case_are_refused(lake, tmp_path, name, text):
    f = tmp_path / name
    f.write_text(text)
    r = imp(lake, f, "cased")
    assert r.returncode == 1, r.stderr
    assert "differ only in case" in r.stderr and "rename one" in r.stderr
    first, second = ("id", "ID") if name == "c.csv" else ("a", "A")
    assert f'columns "{first}" and "{second}"' in r.stderr
    assert cli("describe", "cased", lake=lake).returncode != 0
