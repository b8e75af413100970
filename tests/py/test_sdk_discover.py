"""``python -m weir.discover``: the example project, and broken projects whose problems
are all listed with file and line (docs/worker.md, "Discovery")."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import json
import pathlib
import subprocess
import sys
import textwrap

from test_client_support import PROJECT


def discover(project: pathlib.Path) -> dict:
    r = subprocess.run([sys.executable, "-m", "weir.discover", str(project)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def write(folder: pathlib.Path, name: str, text: str) -> pathlib.Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def line_of(path: pathlib.Path, needle: str) -> int:
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


def test_the_titanic_project():
    doc = discover(PROJECT)
    assert doc["errors"] == []
    assert [s["name"] for s in doc["schemas"]] == ["WomenByClass", "CabinCostSource", "CabinCostAnalysis",
                                                   "ExpensiveWomenCabins", "TotalFares"]
    models = {m["name"]: m for m in doc["models"]}
    assert set(models) == {"g", "h", "fare_sum"}
    g = models["g"]
    src = PROJECT / "models.py"
    assert g == {
        "name": "g", "file": "models.py", "line": line_of(src, "def g("), "function": "g",
        "materialization": "REPLACE", "doc": "Cabin cost by deck for working-age adults (18 to 65).",
        "python": {"version": "3.11", "pip": {"polars": "1.*"}},
        "inputs": [{"param": "lodgings", "table": "titanic", "filter": "Age >= 18 AND Age <= 65", "ref": None,
                    "schema": "CabinCostSource", "columns": None, "line": line_of(src, "lodgings: Annotated")}],
        "output_schema": "CabinCostAnalysis",
        "sandbox": {"internet_access": False, "memory": None, "timeout": None, "cpu_time": None}}
    assert [(i["param"], i["table"], i["schema"]) for i in models["h"]["inputs"]] == [
        ("f_data", "f", "WomenByClass"), ("g_data", "g", "CabinCostAnalysis")]
    assert models["fare_sum"]["output_schema"] == "TotalFares"
    w = doc["schemas"][0]
    assert (w["origin"], w["line"], w["description"]) == ("models.py", line_of(src, "class WomenByClass"),
                                                          "Women passengers holding 1st or 2nd class tickets.")
    tclass = w["columns"][1]
    assert tclass["rules"] == [{"kind": "enum", "name": "tclass.enum", "mode": "fail", "values": [1, 2],
                                "value_names": ["1st", "2nd"]}]
    assert tclass["line"] == line_of(src, "    tclass: Annotated[Int64, TableField(doc=\"Ticket class, 1st")
    cabin = doc["schemas"][1]["columns"][3]
    assert (cabin["name"], cabin["nullable"]) == ("Cabin", True)
    lineage = {c["name"]: c["lineage"] for c in doc["schemas"][3]["columns"]}
    assert lineage == {"pid": ["WomenByClass.pid"], "tclass": ["WomenByClass.tclass"],
                       "Fare": ["WomenByClass.Fare", "CabinCostAnalysis.mean_fare"], "Cabin": ["CabinCostAnalysis.Cabin"]}


def test_broken_project_lists_every_problem_with_file_and_line(tmp_path):
    syntax = write(tmp_path, "a_syntax.py", """
        x = 1
        def broken(:
            pass
    """)
    lineage = write(tmp_path, "b_lineage.py", """
        from typing import Annotated
        from weir import TableSchema, TableField, Int64

        class Src(TableSchema):
            a: Int64

        class Dst(TableSchema):
            b: Annotated[Int64, TableField(lineage=Src["nope"])]
    """)
    models = write(tmp_path, "c_models.py", """
        from typing import Annotated
        import pyarrow as pa
        import weir
        from weir import Model, Table, TableSchema, Int64

        class Out(TableSchema):
            x: Int64

        @weir.model()
        def m1(
            ok: Annotated[Table[Out], Model("src")],
            not_an_input: pa.Table,
        ) -> Table[Out]:
            return ok

        @weir.python("3.11")
        def helper(t: pa.Table) -> pa.Table:
            return t

        @weir.model(name="m1")
        def m1_again(src: Annotated[pa.Table, Model("src")]) -> pa.Table:
            return src

        print("models printed this at import")
    """)
    write(tmp_path, "d_raises.py", """
        import weir

        raise RuntimeError("boom at import")
    """)
    write(tmp_path, "_private.py", "raise RuntimeError('must not be imported')\n")
    write(tmp_path, "sub/inner.py", "raise RuntimeError('must not be imported')\n")
    r = subprocess.run([sys.executable, "-m", "weir.discover", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)  # stdout is only the JSON: prints went to stderr
    assert "models printed this at import" in r.stderr
    errors = [(e["file"], e["line"], e["message"]) for e in doc["errors"]]
    by_file: dict[str, list[tuple[int, str]]] = {}
    for f, line, msg in errors:
        by_file.setdefault(f, []).append((line, msg))
    assert set(by_file) == {"a_syntax.py", "b_lineage.py", "c_models.py", "d_raises.py"}, errors
    (line, msg), = by_file["a_syntax.py"]
    assert line == line_of(syntax, "def broken(") and msg.startswith("SyntaxError")
    (line, msg), = by_file["b_lineage.py"]
    assert line == line_of(lineage, 'Src["nope"]')
    assert "SchemaError" in msg and "schema Src has no column 'nope' (columns: a)" in msg
    (line, msg), = by_file["d_raises.py"]
    assert line == 3 and "RuntimeError" in msg and "boom at import" in msg
    c = dict((m, ln) for ln, m in by_file["c_models.py"])
    assert c[next(m for m in c if "'not_an_input' is not an input" in m)] == line_of(models, "not_an_input: pa.Table")
    assert c[next(m for m in c if "@weir.python but no @weir.model" in m)] == line_of(models, '@weir.python("3.11")')
    dup = next(m for m in c if "model m1 is defined twice" in m)
    assert c[dup] == line_of(models, "def m1_again")
    # What could be read is still reported.
    assert [m["name"] for m in doc["models"]] == ["m1", "m1"]
    assert [s["name"] for s in doc["schemas"]] == ["Out"]


def test_schemas_shared_between_files_are_not_duplicates(tmp_path):
    write(tmp_path, "schemas.py", """
        from weir import TableSchema, Int64

        class Out(TableSchema):
            \"\"\"Shared.\"\"\"
            x: Int64
    """)
    write(tmp_path, "models.py", """
        from typing import Annotated
        import weir
        from weir import Model, Table
        from schemas import Out

        @weir.model()
        def m(src: Annotated[Table[Out], Model("raw.src")]) -> Table[Out]:
            return src
    """)
    doc = discover(tmp_path)
    assert doc["errors"] == []
    assert [s["name"] for s in doc["schemas"]] == ["Out"] and doc["schemas"][0]["origin"] == "schemas.py"
    assert doc["models"][0]["inputs"][0]["table"] == "raw.src"


def test_two_schemas_with_one_name(tmp_path):
    write(tmp_path, "a.py", "from weir import TableSchema, Int64\nclass S(TableSchema):\n    x: Int64\n")
    write(tmp_path, "b.py", "from weir import TableSchema, Int64\nclass S(TableSchema):\n    y: Int64\n")
    doc = discover(tmp_path)
    (err,) = doc["errors"]
    assert err["file"] == "b.py" and err["line"] == 2 and "schema S is defined twice (a.py:2 and b.py:2)" in err["message"]


def test_usage_and_missing_folder(tmp_path):
    r = subprocess.run([sys.executable, "-m", "weir.discover"], capture_output=True, text=True)
    assert r.returncode == 2 and "usage" in r.stderr
    r = subprocess.run([sys.executable, "-m", "weir.discover", str(tmp_path / "missing")], capture_output=True,
                       text=True)
    assert r.returncode == 1 and "does not exist" in r.stderr


def test_a_file_that_does_not_import_lists_what_it_declares(tmp_path):
    # Its schemas and models are not "undefined" for the rest of the project: the planner
    # reports the import error only (docs/worker.md, "Discovery").
    write(tmp_path, "models.py", """
        from typing import Annotated
        import pyarrow as pa
        import weir
        from weir import Int64, Model, TableSchema


        class A(TableSchema):
            x: Int64


        class B(A):
            y: Int64


        @weir.model(materialisation="REPLACE")
        def m1(t: Annotated[pa.Table, Model("src")]) -> pa.Table:
            return t


        @weir.model(name="named")
        def m2(t: Annotated[pa.Table, Model("src")]) -> pa.Table:
            return t


        def helper() -> None: ...
        """)
    write(tmp_path, "broken.py", "def oops(:\n")
    doc = discover(tmp_path)
    assert [(e["file"], e["line"]) for e in doc["errors"]] == [("broken.py", 1), ("models.py", 15)]
    assert "unexpected keyword argument 'materialisation'" in doc["errors"][1]["message"]
    assert doc["unloaded"] == [
        {"file": "broken.py", "schemas": None, "models": None},  # does not parse: names unknown
        {"file": "models.py", "schemas": ["A", "B"], "models": ["m1", "named"]}]
    assert doc["schemas"] == [] and doc["models"] == []


def test_an_import_error_is_reported_once_at_its_file(tmp_path):
    write(tmp_path, "schemas.py", """
        from weir import TableSchema


        class S(TableSchema):
            x: Int65
        """)
    write(tmp_path, "a.py", "from schemas import S\n")
    write(tmp_path, "b.py", "import schemas\n")
    write(tmp_path, "c.py", "raise RuntimeError('c itself')\n")
    doc = discover(tmp_path)
    assert [(e["file"], e["line"], e["message"]) for e in doc["errors"]] == [
        ("c.py", 1, "RuntimeError while importing c.py: c itself"),
        ("schemas.py", 5, "NameError while importing schemas.py: name 'Int65' is not defined")]
    assert sorted(u["file"] for u in doc["unloaded"]) == ["a.py", "b.py", "c.py", "schemas.py"]
