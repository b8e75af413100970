"""Breaking-change detection (issue 16, docs/contracts.md "Breaking changes"): `weir contract
diff` classifies every change, names the models that read what breaks, and `weir check`
reports the breaking changes a project would make to its output tables."""
from __future__ import annotations

import json
import pathlib

import pytest

from conftest import ROOT, TITANIC, weir, weir_list

pytestmark = pytest.mark.cli

PROJECT = ROOT / "examples" / "titanic" / "project"
CONTRACT = PROJECT / "contracts" / "titanic.yml"


def _contract(tmp_path: pathlib.Path, name: str, text: str) -> pathlib.Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _yaml(version: str, columns: str) -> str:
    return f"contract:\n  name: t\n  version: \"{version}\"\n  columns:\n{columns}"


BASE = ("    - {name: id, type: Int64}\n"
        "    - {name: x, type: Int32, min: 0}\n"
        "    - {name: kind, type: String, enum: [a, b]}\n")


def _diff(tmp_path, old_cols: str, new_cols: str, new_version: str = "2", *extra: str):
    old = _contract(tmp_path, "old.yml", _yaml("1", old_cols))
    new = _contract(tmp_path, "new.yml", _yaml(new_version, new_cols))
    r = weir("contract", "diff", old, new, "--json", *extra, cwd=tmp_path)
    return r.returncode, json.loads(r.stdout) if r.stdout else None, r


@pytest.fixture
def titanic_with_contract(lake):
    r = weir("import", TITANIC, "--table", "titanic", "--contract", CONTRACT, lake=lake)
    assert r.returncode == 0, r.stderr
    return lake


def _without(text: str, column_block: str) -> str:
    assert column_block in text
    return text.replace(column_block, "")


CABIN = ('    - name: Cabin\n      type: String\n      nullable: true\n'
         '      doc: "Cabin number (C85 is on deck C); missing for most passengers."\n')
SEX = "    - name: Sex\n      type: String\n      enum: [female, male]\n"


def test_a_dropped_column_exits_3_and_names_the_models_that_read_it(titanic_with_contract, tmp_path):
    lake = titanic_with_contract
    new = _contract(tmp_path, "v2.yml", _without(CONTRACT.read_text(), CABIN).replace('version: "1.0"', 'version: "2.0"'))
    r = weir("contract", "diff", "titanic@main", new, "--project", PROJECT, lake=lake)
    assert r.returncode == 3, r.stderr
    assert "column Cabin dropped" in r.stdout
    # g reads Cabin through its projection schema; h reads g's Cabin and cabin_level,
    # whose declared lineage is the dropped column.
    assert "model g (models.py:" in r.stdout and "reads Cabin" in r.stdout
    assert "model h (models.py:" in r.stdout and "downstream of model g" in r.stdout
    assert "model f" not in r.stdout  # f's query names no Cabin
    doc = json.loads(weir("contract", "diff", "titanic@main", new, "--project", PROJECT, "--json", lake=lake).stdout)
    assert doc["breaking"] and doc["breaks_consumers"] and not doc["breaks_producers"]
    assert [c["change"] for c in doc["changes"]] == ["column_dropped"]
    assert [(x["model"], x["columns"], x["via"]) for x in doc["readers"]] == [
        ("g", ["Cabin"], None), ("h", ["Cabin", "cabin_level"], "g")]
    # --allow-breaking accepts it: the major version went up.
    r = weir("contract", "diff", "titanic@main", new, "--project", PROJECT, "--allow-breaking", lake=lake)
    assert r.returncode == 0, r.stderr


def test_a_sql_model_that_names_the_column_is_a_reader(titanic_with_contract, tmp_path):
    lake = titanic_with_contract
    new = _contract(tmp_path, "v2.yml", _without(CONTRACT.read_text(), SEX).replace('version: "1.0"', 'version: "2.0"'))
    doc = json.loads(weir("contract", "diff", "titanic@main", new, "--project", PROJECT, "--json", lake=lake).stdout)
    readers = {x["model"]: x for x in doc["readers"]}
    assert readers["f"]["columns"] == ["Sex"] and readers["f"]["file"] == "f.sql"
    # downstream of f: its output declares no lineage to Sex... WomenByClass has none, so
    # every model reading f is reached through it
    assert readers["fare_sum"]["via"] == "f"


def test_a_breaking_change_needs_a_higher_major_version(titanic_with_contract, tmp_path):
    lake = titanic_with_contract
    new = _contract(tmp_path, "v1_1.yml", _without(CONTRACT.read_text(), CABIN).replace('version: "1.0"', 'version: "1.1"'))
    r = weir("contract", "diff", "titanic@main", new, "--allow-breaking", lake=lake)
    assert r.returncode == 3
    assert "needs a higher major version: 1.0 -> 1.1" in r.stdout + r.stderr


@pytest.mark.parametrize("new_cols, change, breaks", [
    (BASE + "    - {name: note, type: String, nullable: true}\n", "column_added", []),
    (BASE + "    - {name: note, type: String}\n", "required_column_added", ["producers"]),
    (BASE.replace("x, type: Int32", "x, type: Int64"), "type_widened", []),
    (BASE.replace("id, type: Int64", "id, type: Int32"), "type_narrowed", ["consumers", "producers"]),
    (BASE.replace("{name: id, type: Int64}", "{name: id, type: Int64, nullable: true}"), "nullable", ["consumers"]),
    (BASE.replace("enum: [a, b]", "enum: [a]"), "enum_values_removed", ["consumers", "producers"]),
    (BASE.replace("enum: [a, b]", "enum: [a, b, c]"), "enum_values_added", ["consumers"]),
    (BASE.replace("min: 0", "min: 5"), "rule_tightened", ["consumers", "producers"]),
    (BASE.replace("min: 0", "min: -5"), "rule_loosened", ["consumers"]),
    (BASE.replace("{name: id, type: Int64}", "{name: id, type: Int64, doc: \"the id\"}"), "doc_changed", []),
    (BASE.replace("name: x,", "name: y,"), "column_renamed", ["consumers", "producers"]),
    (BASE.replace("    - {name: x, type: Int32, min: 0}\n", ""), "column_dropped", ["consumers"]),
])
def test_each_change_is_classified(tmp_path, new_cols, change, breaks):
    code, doc, r = _diff(tmp_path, BASE, new_cols)
    assert [(c["change"], c["breaks"]) for c in doc["changes"]] == [(change, breaks)], doc["changes"]
    assert doc["breaking"] == bool(breaks)
    assert code == (3 if breaks else 0), r.stderr
    if breaks:
        assert "--allow-breaking" in r.stderr


def test_same_contract_is_no_change(tmp_path):
    code, doc, _ = _diff(tmp_path, BASE, BASE, "1")
    assert code == 0 and doc["changes"] == [] and not doc["breaking"]


def test_project_with_two_files_and_no_table_is_a_usage_error(tmp_path):
    """--project with two files named no table whose readers to find: it was silently
    ignored (no readers, as if none read it)."""
    code, doc, r = _diff(tmp_path, BASE, BASE.replace("{name: x,", "{name: y,"), "2", "--project", str(tmp_path))
    assert code == 2 and doc["error"]["code"] == "InvalidArgument", r.stdout
    assert "the readers of which table? OLD and NEW are both files: name it with --table" in doc["error"]["message"]


def test_a_file_that_is_not_a_contract_is_an_error(tmp_path, lake):
    r = weir("contract", "diff", "nosuchtable@main", "nothing.yml", lake=lake)
    assert r.returncode == 1
    assert "nosuchtable" in r.stderr


# ---- weir check reports what a project's output contracts break -------------------------------

def _project(tmp_path: pathlib.Path, a_contract: str) -> pathlib.Path:
    p = tmp_path / "proj"
    (p / "contracts").mkdir(parents=True, exist_ok=True)
    (p / "weir_project.yml").write_text("name: proj\n")
    (p / "contracts" / "a.yml").write_text(a_contract)
    (p / "a.sql").write_text("-- weir: name=a\n-- weir: output_schema=A\nSELECT id, x FROM src\n")
    (p / "b.sql").write_text("-- weir: name=b\nSELECT id, x * 2 AS y FROM a\n")
    (p / "c.sql").write_text("-- weir: name=c\nSELECT id FROM a\n")
    return p


def _a(version: str, x_nullable: bool) -> str:
    return (f"contract:\n  name: A\n  version: \"{version}\"\n  columns:\n    - {{name: id, type: Int64}}\n"
            f"    - {{name: x, type: Int64{', nullable: true' if x_nullable else ''}}}\n")


def test_check_reports_a_breaking_output_contract_and_its_readers(lake, tmp_path):
    src = tmp_path / "src.csv"
    src.write_text("id,x\n1,10\n2,20\n")
    assert weir("import", src, "--table", "src", "--contract", _src_contract(tmp_path), lake=lake).returncode == 0
    proj = _project(tmp_path, _a("1", False))
    r = weir("run", proj, lake=lake)
    assert r.returncode == 0, r.stderr
    r = weir("check", proj, lake=lake)
    assert r.returncode == 0, r.stderr  # nothing changed

    (proj / "contracts" / "a.yml").write_text(_a("2", True))
    r = weir("check", proj, lake=lake)
    assert r.returncode == 3, r.stderr
    assert "column x: nullable (was required)" in r.stdout
    assert "model b (b.sql:" in r.stdout and "reads x" in r.stdout
    assert "model c" not in r.stdout  # reads id only
    doc = json.loads(weir("check", proj, "--json", lake=lake).stdout)
    [bc] = doc["breaking_changes"]
    assert bc["table"] == "default.a" and bc["model"] == "a"
    assert [x["model"] for x in bc["readers"]] == ["b"]
    assert weir("check", proj, "--allow-breaking", lake=lake).returncode == 0

    (proj / "contracts" / "a.yml").write_text(_a("1.1", True))
    r = weir("check", proj, "--allow-breaking", lake=lake)
    assert r.returncode == 3
    assert "higher major version" in r.stderr


def _src_contract(tmp_path):
    """src's columns declared required: imported without a contract they are optional, and
    model a's required outputs could not be proven non-null."""
    c = tmp_path / "src.yml"
    c.write_text("contract:\n  name: src\n  columns:\n    - {name: id, type: Int64}\n    - {name: x, type: Int64}\n")
    return c


def test_merge_refuses_a_breaking_contract_change_and_names_the_readers(lake, tmp_path):
    src = tmp_path / "src.csv"
    src.write_text("id,x\n1,10\n2,20\n")
    assert weir("import", src, "--table", "src", "--contract", _src_contract(tmp_path), lake=lake).returncode == 0
    proj = _project(tmp_path, _a("1", False))
    assert weir("run", proj, lake=lake).returncode == 0
    assert weir("branch", "create", "dev", lake=lake).returncode == 0
    (proj / "contracts" / "a.yml").write_text(_a("2", True))
    r = weir("run", proj, "--ref", "dev", lake=lake)
    assert r.returncode == 0, r.stderr
    head = weir_list("log", "-n", "1", lake=lake)[0]["hash"]
    r = weir("merge", "dev", "--into", "main", "--project", proj, lake=lake)
    assert r.returncode == 3, r.stderr
    assert "column x: nullable (was required)" in r.stdout and "model b (b.sql:" in r.stdout
    assert weir_list("log", "-n", "1", lake=lake)[0]["hash"] == head  # nothing merged
    doc = json.loads(weir("merge", "dev", "--into", "main", "--json", lake=lake).stdout)
    assert [d["table"] for d in doc["breaking_changes"]] == ["default.a"]
    r = weir("merge", "dev", "--into", "main", "--allow-breaking", lake=lake)
    assert r.returncode == 0, r.stderr


def test_a_missing_contract_file_is_named_as_one(lake, tmp_path):
    """`weir contract diff a.yml missing.yml` said "table missing.yml does not exist"."""
    ok = tmp_path / "ok.yml"
    ok.write_text("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64}\n")
    for missing in (tmp_path / "missing.yml", "missing.yml", "contracts/x"):
        r = weir("contract", "diff", ok, missing, lake=lake)
        assert r.returncode == 1, r.stderr
        assert f"error: {missing}: no such contract file (a stored contract is named TABLE@REF)" in r.stderr, r.stderr
