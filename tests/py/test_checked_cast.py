"""Checked casts in SQL models (issue 16, docs/engine.md "Checked casts"): a narrowing CAST
is a plan warning naming the model, the line and the expression; weir_checked_cast(expr,
'TYPE') returns the cast value when every value round-trips and otherwise fails the model,
naming the value and the target type, and the run publishes nothing."""
from __future__ import annotations

import json

import pytest

from conftest import weir, weir_json, weir_list

pytestmark = pytest.mark.cli

# Values of the types a narrowing cast loses digits of, as a subquery the models read
# (casts of constants are the values the author wrote: not warned about).
VALUES = ("(SELECT * FROM (VALUES (2.0::DOUBLE, '2024-01-01 00:00:00.123456'::TIMESTAMP_NS, "
          "CAST(1.20 AS DECIMAL(5,2)), 7::BIGINT, '7'), "
          "(NULL, NULL, NULL, NULL, NULL)) v(d, ns, dec, big, s))")


@pytest.fixture
def cc(lake, tmp_path):
    """A lake with table src (id, x: Float64) and a project folder."""
    (tmp_path / "src.csv").write_text("id,x\n1,2.0\n2,3.0\n")
    r = weir("import", tmp_path / "src.csv", "--table", "src", lake=lake)
    assert r.returncode == 0, r.stderr
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("name: cc\n")
    return lake, proj


def _model(proj, name: str, sql: str) -> None:
    (proj / f"{name}.sql").write_text(f"-- weir: name={name}\n{sql}\n")


@pytest.mark.parametrize("expr, frm, to, why", [
    ("CAST(ns AS TIMESTAMP)", "TIMESTAMP_NS", "TIMESTAMP", "sub-microsecond digits are dropped"),
    ("ns::TIMESTAMP", "TIMESTAMP_NS", "TIMESTAMP", "sub-microsecond digits are dropped"),
    ("CAST(d AS INTEGER)", "DOUBLE", "INTEGER", "fractions are rounded away"),
    ("CAST(dec AS DECIMAL(5,1))", "DECIMAL(5,2)", "DECIMAL(5,1)", "digits beyond the scale 1 are rounded away"),
    ("CAST(big AS INTEGER)", "BIGINT", "INTEGER", "values beyond INTEGER's range fail"),
    ("CAST(s AS INTEGER)", "VARCHAR", "INTEGER", "text converts only when it spells a value of INTEGER"),
    ("CAST(ns AS DATE)", "TIMESTAMP_NS", "DATE", "the time of day is dropped"),
])
def test_a_narrowing_cast_is_a_plan_warning_at_its_line(cc, expr, frm, to, why):
    lake, proj = cc
    _model(proj, "m", f"SELECT\n  1 AS one,\n  {expr} AS c\nFROM {VALUES}")
    r = weir("check", proj, lake=lake)
    assert r.returncode == 0, r.stderr  # a warning, not a problem
    operand = expr.split("(", 1)[1].split(" AS")[0] if expr.startswith("CAST") else expr.split("::")[0]
    shown = expr if expr.startswith("CAST") else f"CAST({operand} AS {to})"
    assert (f"warning: m.sql:4: model m: {shown} narrows {frm} to {to}: {why}") in r.stderr
    assert f"weir_checked_cast({operand}, '{to}')" in r.stderr
    doc = weir_json("check", proj, lake=lake)
    [w] = [w for w in doc["warnings"] if "narrows" in w["message"]]
    assert (w["file"], w["line"], w["model"]) == ("m.sql", 4, "m")


def test_casts_in_where_and_ctes_over_an_input_are_found(cc):
    lake, proj = cc
    _model(proj, "m", "WITH c AS (\n  SELECT id, CAST(x AS INTEGER) AS x FROM src\n)\n"
                      "SELECT id, x FROM c\nWHERE CAST(id AS TINYINT) > 0")
    r = weir("check", proj, lake=lake)
    assert r.returncode == 0, r.stderr
    assert "m.sql:3: model m: CAST(x AS INTEGER) narrows DOUBLE to INTEGER" in r.stderr
    assert "m.sql:6: model m: CAST(id AS TINYINT) narrows BIGINT to TINYINT" in r.stderr


@pytest.mark.parametrize("expr", [
    "CAST(CAST(big AS HUGEINT) AS VARCHAR)",  # widening, and every value has a text
    "CAST(big AS DOUBLE)",                  # a change of representation, not narrowing
    "CAST(ns AS VARCHAR)",                  # every value has a text
    "CAST(dec AS DECIMAL(8,3))",            # more digits
    "CAST(CAST(ns AS TIMESTAMP) AS TIMESTAMP_NS) IS NULL OR true",  # only the inner one: checked below
    "TRY_CAST(d AS INTEGER)",               # says what happens: NULL
    "weir_checked_cast(d, 'INTEGER')",      # checked
    "CAST('2024-01-01' AS DATE)",           # a constant
])
def test_widening_try_and_checked_casts_are_not_warned_about(cc, expr):
    lake, proj = cc
    _model(proj, "m", f"SELECT {expr} AS c FROM {VALUES}")
    r = weir("check", proj, lake=lake)
    assert r.returncode == 0, r.stderr
    narrows = [line for line in r.stderr.splitlines() if "narrows" in line]
    assert narrows == ([] if "IS NULL" not in expr else [narrows[0]]), r.stderr
    if narrows:
        assert "narrows TIMESTAMP_NS to TIMESTAMP" in narrows[0]


def _describe(lake, table: str) -> dict[str, str]:
    doc = weir_json("describe", table, lake=lake)
    return {c["name"]: c["type"] for c in doc["columns"]}


def test_checked_casts_of_exact_values_return_the_cast_values(cc):
    lake, proj = cc
    _model(proj, "m", "SELECT\n"
                      "  weir_checked_cast(d, 'INTEGER') AS i,\n"
                      "  weir_checked_cast(ns, 'TIMESTAMP') AS ts,\n"
                      "  weir_checked_cast(dec, 'DECIMAL(5,1)') AS dec,\n"
                      "  weir_checked_cast(big, 'INTEGER') AS big,\n"
                      "  weir_checked_cast(s, 'INTEGER') AS s\n"
                      f"FROM {VALUES}")
    r = weir("run", proj, lake=lake)
    assert r.returncode == 0, r.stderr
    assert "narrows" not in r.stderr
    types = _describe(lake, "m")
    assert types == {"i": "int32", "ts": "timestamp[us]", "dec": "decimal128(5, 1)", "big": "int32",
                     "s": "int32"}, types
    q = weir("query", "SELECT i, CAST(ts AS VARCHAR) AS ts, CAST(dec AS VARCHAR) AS dec, big, s FROM m "
             "ORDER BY i NULLS LAST", "--format", "json", lake=lake)
    assert q.returncode == 0, q.stderr
    assert json.loads(q.stdout) == [
        {"i": 2, "ts": "2024-01-01 00:00:00.123456", "dec": "1.2", "big": 7, "s": 7},
        {"i": None, "ts": None, "dec": None, "big": None, "s": None},  # NULL stays NULL
    ]


@pytest.mark.parametrize("select, value, target", [
    ("weir_checked_cast(x + 0.5, 'INTEGER')", "DOUBLE value 2.5", "INTEGER"),
    ("weir_checked_cast(CAST('2024-01-01 00:00:00.12345678' || CAST(id AS VARCHAR) AS TIMESTAMP_NS), 'TIMESTAMP')",
     "TIMESTAMP_NS value 2024-01-01 00:00:00.123456781", "TIMESTAMP"),
    ("weir_checked_cast(CAST(x AS DECIMAL(6,2)) + 0.25, 'DECIMAL(6,1)')", "value 2.25", "DECIMAL(6,1)"),
    ("weir_checked_cast(id * 3000000000, 'INTEGER')", "value 3000000000", "INTEGER"),
])
def test_a_value_that_would_change_fails_the_run_and_publishes_nothing(cc, select, value, target):
    lake, proj = cc
    before = weir_list("log", lake=lake)
    _model(proj, "good", "SELECT id, x FROM src")
    _model(proj, "bad", f"SELECT id,\n  {select} AS v\nFROM good")
    r = weir("run", proj, lake=lake)
    assert r.returncode != 0, r.stdout
    assert "model bad (bad.sql)" in r.stderr, r.stderr
    assert f"{value} does not convert exactly to {target}" in r.stderr, r.stderr
    # Nothing published: main's history and tables are as they were.
    assert weir_list("log", lake=lake) == before
    tables = {t["table"] for t in weir_list("tables", lake=lake)}
    assert tables == {"default.src"}, tables


def test_a_type_that_is_not_a_literal_is_a_clear_error(cc):
    lake, proj = cc
    _model(proj, "m", "SELECT weir_checked_cast(x, 'INT' || 'EGER') AS v FROM src")
    r = weir("run", proj, lake=lake)
    assert r.returncode != 0
    assert "weir_checked_cast: the target type must be a string literal naming a type" in r.stderr, r.stderr
