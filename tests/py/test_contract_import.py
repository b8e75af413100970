"""weir import --contract: the acceptance cases of the contracts issue, end to end, and
the contract stored in Iceberg metadata where any reader (pyiceberg here) can see it."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import ROOT, TITANIC, count, weir, weir_json, weir_list

pytestmark = pytest.mark.cli

CONTRACT = ROOT / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"


def contract(tmp_path, text: str):
    p = tmp_path / "c.yml"
    p.write_text(text)
    return p


COLUMNS = """\
    - {name: PassengerId, type: Int64, unique: true, doc: "Passenger id"}
    - {name: Survived, type: Int64}
    - {name: Pclass, type: Int64}
    - {name: Name, type: String}
    - {name: Sex, type: String}
    - {name: Age, type: Float64, nullable: true%s}
    - {name: SibSp, type: Int64}
    - {name: Parch, type: Int64}
    - {name: Ticket, type: String}
    - {name: Fare, type: Float64}
    - {name: Cabin, type: String, nullable: true}
    - {name: Embarked, type: String%s}
"""


def test_required_column_with_nulls_writes_nothing(lake, tmp_path):
    c = contract(tmp_path, "contract:\n  name: titanic\n  columns:\n" + COLUMNS % ("", ""))
    before = weir_list("log", lake=lake)
    r = weir("import", TITANIC, "--table", "titanic", "--contract", c, lake=lake)
    assert r.returncode == 3, r.stderr
    assert 'column "Embarked" has 2 null values but is required' in r.stderr
    assert r.stderr.startswith("error: contract violation in import of ")
    assert weir_list("log", lake=lake) == before
    assert weir_list("tables", lake=lake) == []


def test_narrowing_refused_widening_applied(lake, tmp_path):
    c = contract(tmp_path, "contract:\n  name: narrow\n  columns:\n    - {name: PassengerId, type: Int32}\n")
    data = tmp_path / "ids.parquet"
    pq.write_table(pa.table({"PassengerId": pa.array([1, 2, 3], pa.int64())}), data)
    r = weir("import", data, "--table", "ids", "--contract", c, lake=lake)
    assert r.returncode == 3, r.stderr
    assert 'column "PassengerId" has type int64, expected int32' in r.stderr
    assert "narrowing" in r.stderr
    small = tmp_path / "small.parquet"
    pq.write_table(pa.table({"PassengerId": pa.array([1, 2, 3], pa.int32())}), small)
    wide = contract(tmp_path, "contract:\n  name: wide\n  columns:\n    - {name: PassengerId, type: Int64}\n")
    r = weir("import", small, "--table", "ids", "--contract", wide, lake=lake)
    assert r.returncode == 0, r.stderr
    d = weir_json("describe", "ids", lake=lake)
    assert d["columns"][0]["type"] == "int64"
    assert count(lake, "SELECT sum(PassengerId) FROM ids") == 6


def test_drop_mode_quarantines_in_the_same_commit(lake, tmp_path):
    c = contract(tmp_path, "contract:\n  name: titanic\n  columns:\n" +
                 COLUMNS % (", min: 0, max: 60, mode: drop", ", nullable: true"))
    r = weir("import", TITANIC, "--table", "titanic", "--contract", c, "--json", lake=lake)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["rows_written"] == 869 and res["rows_quarantined"] == 22
    assert res["quarantine_table"] == "default.titanic__quarantine"
    log = weir_list("log", lake=lake)
    assert len(log) == 2
    changed = sorted(t["table"] for t in log[0]["tables_changed"])
    assert changed == ["default.titanic", "default.titanic__quarantine"]
    assert count(lake, "SELECT count(*) FROM titanic") == 869
    assert count(lake, "SELECT count(*) FROM titanic WHERE Age > 60") == 0
    assert count(lake, "SELECT count(*) FROM titanic WHERE Age IS NULL") == 177
    assert count(lake, "SELECT count(*) FROM titanic__quarantine WHERE _weir_rule = 'Age.range'") == 22


def test_warn_mode_writes_and_reports(lake, tmp_path):
    c = contract(tmp_path, "contract:\n  name: titanic\n  mode: warn\n  columns:\n" +
                 COLUMNS % (", max: 60", ", nullable: true"))
    r = weir("import", TITANIC, "--table", "titanic", "--contract", c, lake=lake)
    assert r.returncode == 0, r.stderr
    assert "warning: contract warnings in import into default.titanic:" in r.stderr
    assert 'column "Age" has 22 values above the maximum 60' in r.stderr
    assert count(lake, "SELECT count(*) FROM titanic") == 891


def test_contract_is_stored_in_iceberg_metadata(lake):
    from pyiceberg.table import StaticTable

    r = weir("import", TITANIC, "--table", "titanic", "--contract", CONTRACT, lake=lake)
    assert r.returncode == 0, r.stderr
    d = weir_json("describe", "titanic", lake=lake)
    t = StaticTable.from_metadata(d["metadata_location"])
    fields = {f.name: f for f in t.schema().fields}
    assert fields["PassengerId"].doc == "Passenger id, 1 to 891."
    assert fields["PassengerId"].required is True
    assert fields["Age"].required is False
    props = t.properties
    assert props["comment"] == "Titanic passengers (Kaggle training set): one row per passenger."
    ir = json.loads(props["weir.contract"])
    assert ir["name"] == "titanic" and [c["name"] for c in ir["columns"]][:2] == ["PassengerId", "Survived"]
    summary = t.current_snapshot().summary
    rules = {k: json.loads(v) for k, v in summary.additional_properties.items() if k.startswith("weir.rule.")}
    assert rules["weir.rule.PassengerId.unique"]["passed"] is True
    assert "weir.rule.Embarked.enum" in rules
    assert d["contract"]["name"] == "titanic"


def test_bad_contract_names_file_line_and_column(lake, tmp_path):
    c = contract(tmp_path, "contract:\n  name: t\n  columns:\n    - name: a\n      type: Int65\n")
    r = weir("import", TITANIC, "--table", "t", "--contract", c, lake=lake)
    assert r.returncode == 1
    assert f"{c}:5:" in r.stderr and 'unknown type "Int65"' in r.stderr
    c = contract(tmp_path, "contract:\n  name: t\n  columns:\n    - name: a\n      type: Int64\n      nulable: true\n")
    r = weir("import", TITANIC, "--table", "t", "--contract", c, lake=lake)
    assert r.returncode == 1
    assert f"{c}:6:" in r.stderr and "nullable" in r.stderr
    assert weir_list("tables", lake=lake) == []


# ---- regressions: problems a first-time user found (each fails without its fix) ----


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


def test_runs_show_takes_a_unique_prefix_of_a_run_id(titanic_lake):
    assert weir("run", ROOT / "examples" / "titanic" / "project", lake=titanic_lake).returncode == 0
    run_id = weir_list("runs", lake=titanic_lake)[0]["run_id"]
    shown = weir_json("runs", "show", run_id[:6], lake=titanic_lake)
    assert shown["run_id"] == run_id
    r = weir("runs", "show", "zzzz", lake=titanic_lake)
    assert r.returncode == 1 and "run zzzz does not exist" in r.stderr


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


UNIQUE_AFTER_DROP = ("contract:\n  name: c5\n  columns:\n    - {name: id, type: Int64, unique: true}\n"
                     "    - {name: s, type: String, enum: {values: [a], mode: drop}}\n")


def test_fail_mode_unique_judges_the_rows_drop_rules_leave(lake, tmp_path):
    # docs/contracts.md, "Rule semantics": (2,bad) is dropped by the enum, so (2,a) is no duplicate.
    c = contract(tmp_path, UNIQUE_AFTER_DROP)
    data = tmp_path / "d.csv"
    data.write_text("id,s\n2,bad\n2,a\n")
    r = weir("import", data, "--table", "t", "--contract", c, "--json", lake=lake)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["rows_written"] == 1 and res["rows_quarantined"] == 1
    assert count(lake, "SELECT count(*) FROM t WHERE s = 'a'") == 1
    dup = tmp_path / "dup.csv"
    dup.write_text("id,s\n3,a\n3,a\n")
    r = weir("import", dup, "--table", "t2", "--contract", c, lake=lake)
    assert r.returncode == 3, r.stderr
    assert 'column "id" has 1 duplicate value' in r.stderr


def test_sdk_validate_judges_unique_after_drops(tmp_path):
    import test_client_support  # noqa: F401 - makes python/ importable
    import weir as sdk
    from test_client_support import library_path

    c = contract(tmp_path, UNIQUE_AFTER_DROP)
    v = sdk.validate(pa.table({"id": [2, 2], "s": ["bad", "a"]}), str(c), library=library_path())
    assert v.data.to_pydict() == {"id": [2], "s": ["a"]} and v.rows_dropped == 1


def _tables(lake) -> dict[str, int]:
    return {t["table"]: t["record_count"] for t in weir_list("tables", lake=lake)}


def _people(lake, tmp_path):
    """people with one row quarantined by a drop-mode enum; returns (contract, that commit)."""
    c = contract(tmp_path, "contract:\n  name: c1\n  columns:\n    - {name: id, type: Int64}\n"
                 "    - {name: s, type: String, enum: {values: [a], mode: drop}}\n")
    p2 = tmp_path / "p2.csv"
    p2.write_text("id,s\n1,a\n2,bad\n")
    r = weir("import", p2, "--table", "people", "--contract", c, "--json", lake=lake)
    assert r.returncode == 0, r.stderr
    commit = json.loads(r.stdout)["commit"]
    assert _tables(lake)["default.people__quarantine"] == 1
    return c, commit


def test_a_replace_without_rejections_empties_the_quarantine(lake, tmp_path):
    c, _ = _people(lake, tmp_path)
    clean = tmp_path / "clean.csv"
    clean.write_text("id,s\n3,a\n")
    r = weir("import", clean, "--table", "people", "--contract", c, "--mode", "replace", lake=lake)
    assert r.returncode == 0, r.stderr
    assert _tables(lake)["default.people__quarantine"] == 0
    changed = sorted(t["table"] for t in weir_list("log", lake=lake)[0]["tables_changed"])
    assert changed == ["default.people", "default.people__quarantine"]
    # an append without rejections leaves it as it is
    more = tmp_path / "more.csv"
    more.write_text("id,s\n4,a\n")
    r = weir("import", more, "--table", "people", "--mode", "append", lake=lake)
    assert r.returncode == 0, r.stderr
    assert _tables(lake)["default.people__quarantine"] == 0
    assert len(weir_list("log", lake=lake)[0]["tables_changed"]) == 1


def test_drop_and_rename_take_the_quarantine_along_in_the_same_commit(lake, tmp_path):
    _people(lake, tmp_path)
    r = weir("table", "rename", "people", "p2", lake=lake)
    assert r.returncode == 0, r.stderr
    t = _tables(lake)
    assert "default.people__quarantine" not in t and t["default.p2__quarantine"] == 1
    changed = sorted(x["table"] for x in weir_list("log", lake=lake)[0]["tables_changed"])
    assert changed == ["default.p2", "default.p2__quarantine", "default.people", "default.people__quarantine"]
    r = weir("table", "drop", "p2", lake=lake)
    assert r.returncode == 0, r.stderr
    assert not [n for n in _tables(lake) if n.startswith("default.p")]
    changed = sorted(x["table"] for x in weir_list("log", lake=lake)[0]["tables_changed"])
    assert changed == ["default.p2", "default.p2__quarantine"]


def test_a_revert_brings_the_quarantine_back_to_its_state_at_the_ref(lake, tmp_path):
    c, first = _people(lake, tmp_path)
    clean = tmp_path / "clean.csv"
    clean.write_text("id,s\n3,a\n")
    assert weir("import", clean, "--table", "people", "--contract", c, "--mode", "replace",
                lake=lake).returncode == 0
    assert _tables(lake)["default.people__quarantine"] == 0
    r = weir("revert", "people", "--to", first, lake=lake)
    assert r.returncode == 0, r.stderr
    assert _tables(lake)["default.people__quarantine"] == 1
    assert count(lake, "SELECT count(*) FROM people__quarantine WHERE s = 'bad'") == 1
