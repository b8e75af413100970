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
