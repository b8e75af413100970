"""NOT NULL inference through SQL at plan time (issue 16, docs/engine.md "NOT NULL
inference"): a required output column fed by an expression that may be null is a plan
problem naming the expression and its line; `weir check --explain` shows what is proven."""
from __future__ import annotations

import json

import pytest

from conftest import weir

pytestmark = pytest.mark.cli


@pytest.fixture
def nl(lake, tmp_path):
    """Tables a (id, x required; n nullable) and b (id, x required) and a project folder."""
    (tmp_path / "a.csv").write_text("id,x,n\n1,10,\n2,20,7\n")
    (tmp_path / "b.csv").write_text("id,x\n1,5\n")
    # Imported columns are optional unless a contract says required (issue 13).
    (tmp_path / "a.yml").write_text("contract:\n  name: a\n  columns:\n    - {name: id, type: Int64}\n"
                                    "    - {name: x, type: Int64}\n    - {name: n, type: Int64, nullable: true}\n")
    (tmp_path / "b.yml").write_text("contract:\n  name: b\n  columns:\n    - {name: id, type: Int64}\n"
                                    "    - {name: x, type: Int64}\n")
    for t in ("a", "b"):
        r = weir("import", tmp_path / f"{t}.csv", "--table", t, "--contract", tmp_path / f"{t}.yml", lake=lake)
        assert r.returncode == 0, r.stderr
    proj = tmp_path / "proj"
    (proj / "contracts").mkdir(parents=True)
    (proj / "weir_project.yml").write_text("name: nl\n")
    (proj / "contracts" / "out.yml").write_text(
        "contract:\n  name: Out\n  columns:\n    - {name: id, type: Int64}\n    - {name: x, type: Int64}\n")
    return lake, proj


def _check(nl, select: str, *extra: str):
    lake, proj = nl
    (proj / "j.sql").write_text(f"-- weir: name=j\n-- weir: output_schema=Out\n{select}\n")
    return weir("check", proj, *extra, lake=lake)


def test_a_left_join_feeding_a_required_column_is_a_plan_problem(nl):
    r = _check(nl, "SELECT a.id, b.x\nFROM a LEFT JOIN b USING (id)")
    assert r.returncode == 3, r.stdout
    assert ('j.sql:3: model j: required column "x" (output schema Out) is fed by b.x, which may be null: '
            'b.x comes from the nullable side of a LEFT JOIN') in r.stderr
    doc = json.loads(weir("check", nl[1], "--json", lake=nl[0]).stdout)
    [p] = doc["error"]["details"]
    assert p["line"] == 3 and p["column"] == "x"


@pytest.mark.parametrize("select", [
    "SELECT a.id, COALESCE(b.x, 0) AS x FROM a LEFT JOIN b USING (id)",         # COALESCE with a non-null argument
    "SELECT a.id, b.x FROM a LEFT JOIN b USING (id) WHERE b.x IS NOT NULL",      # filtered
    "SELECT a.id, b.x FROM a LEFT JOIN b USING (id) WHERE b.x > 0",              # a comparison is never true for NULL
    "SELECT a.id, b.x FROM a JOIN b ON a.id = b.id",                             # inner join
    "SELECT id, CAST(x + 1 AS BIGINT) AS x FROM a",                               # arithmetic and casts of non-null
    "SELECT id, count(*) AS x FROM a GROUP BY id",                                # count
    "SELECT id, CASE WHEN x > 10 THEN 1 ELSE 0 END AS x FROM a",                  # CASE with ELSE
    "SELECT id, n AS x FROM a WHERE n IS NOT NULL",                               # a nullable input filtered
    "SELECT s.id, s.x FROM (SELECT id, x FROM a) AS s",                           # through a subquery
    "WITH c AS (SELECT id, x FROM a) SELECT id, x FROM c",                        # through a CTE
    "SELECT id, some_unknown_function(n) AS x FROM a",                            # unknown: not reported
])
def test_what_is_proven_non_null_or_unknown_plans(nl, select):
    r = _check(nl, select.replace("some_unknown_function(n)", "hash(n)::BIGINT"))
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("select, expression, why", [
    ("SELECT id, CASE WHEN x > 10 THEN x END AS x FROM a", "CASE ... END", "a CASE without ELSE"),
    ("SELECT id, n + 1 AS x FROM a", "n + 1", "column n of a is nullable"),
    ("SELECT id, CAST(n AS BIGINT) AS x FROM a", "CAST(n AS ...)", "column n of a is nullable"),
    ("SELECT id, sum(n) AS x FROM a GROUP BY id", "sum(n)", "column n of a is nullable"),
    ("SELECT b.id, a.x FROM a RIGHT JOIN b ON a.id = b.id", "a.x", "nullable side of a RIGHT JOIN"),
    ("SELECT a.id, b.x FROM a FULL JOIN b USING (id)", "b.x", "nullable side of a FULL JOIN"),
    ("SELECT id, NULLIF(x, 10) AS x FROM a", "nullif(x, 10)", "NULLIF"),
    ("SELECT id, TRY_CAST(x AS BIGINT) AS x FROM a", "TRY_CAST(x AS ...)", "TRY_CAST"),
])
def test_what_may_be_null_is_named(nl, select, expression, why):
    r = _check(nl, select)
    assert r.returncode == 3, r.stdout
    assert f"is fed by {expression}, which may be null" in r.stderr and why in r.stderr


def test_explain_shows_the_proven_non_null_columns(nl):
    lake, proj = nl
    (proj / "k.sql").write_text("-- weir: name=k\nSELECT a.id, b.x, COALESCE(b.x, 1) AS y\nFROM a LEFT JOIN b USING (id)\n")
    r = _check(nl, "SELECT a.id, COALESCE(b.x, 0) AS x FROM a LEFT JOIN b USING (id)", "--explain")
    assert r.returncode == 0, r.stderr
    assert "proven non-null: id, x" in r.stdout
    assert "proven non-null: id, y" in r.stdout
    assert "may be null: x (b.x, line 2: b.x comes from the nullable side of a LEFT JOIN" in r.stdout
    doc = json.loads(weir("check", proj, "--json", lake=lake).stdout)
    k = next(m for m in doc["models"] if m["name"] == "k")
    assert [(c["column"], c["state"]) for c in k["nullability"]] == [("id", "non-null"), ("x", "nullable"),
                                                                     ("y", "non-null")]


def test_explain_shows_what_is_not_proven_either_way(nl):
    """A column the inference cannot judge (a window function here) was left out of
    --explain, as if it had been proven one way or the other."""
    lake, proj = nl
    (proj / "w.sql").write_text("-- weir: name=w\nSELECT id, max(n) OVER () AS m FROM a\n")
    r = _check(nl, "SELECT a.id, a.x FROM a", "--explain")
    assert r.returncode == 0, r.stderr
    assert "     proven non-null: id\n     not proven either way: m\n" in r.stdout, r.stdout
