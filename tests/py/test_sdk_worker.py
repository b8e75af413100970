"""``python -m weir.worker``: real jobs against a lake made with weir.Client, exactly as
libweir's runner starts them (docs/worker.md, "The worker")."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pyarrow as pa
import pytest

from weir import _ffi
from weir._project import load_file
from test_client_support import PROJECT, client, library_path, titanic_client, weir_env  # noqa: F401 - fixtures


def job_for(client, project: pathlib.Path, file: str, function: str, inputs: list[dict], output_contract,
            tmp_path: pathlib.Path, table: str | None = None) -> dict:
    head = client.resolve("main")
    return {
        "lake": client.path, "library": str(library_path()), "project": str(project), "file": file,
        "function": function, "model": function, "run_id": "r-test",
        "result_path": str(tmp_path / "out" / f"{function}.result.json"),
        "inputs": inputs,
        "output": {"table": table or f"default.{function}", "mode": "REPLACE", "contract": output_contract,
                   "subject": f"model {function} (output)", "base_commit": head, "model": function,
                   "run_id": "r-test", "comment": "a comment", "summary": {"weir.run-id": "r-test",
                                                                           "weir.model": function}},
    }


def run_worker(job: dict, python: str = sys.executable) -> tuple[subprocess.CompletedProcess, dict | None]:
    r = subprocess.run([python, "-m", "weir.worker"], input=json.dumps(job), capture_output=True, text=True,
                       cwd=job["project"])
    path = pathlib.Path(job["result_path"])
    return r, (json.loads(path.read_text()) if path.exists() else None)


def test_worker_runs_model_g_of_the_example(titanic_client, tmp_path):
    models = load_file(str(PROJECT), "models.py")
    src, out = models.CabinCostSource, models.CabinCostAnalysis
    head = titanic_client.resolve("main")
    job = job_for(titanic_client, PROJECT, "models.py", "g", [
        {"param": "lodgings", "table": "default.titanic", "ref": head,
         "spec": {"columns": src.column_names(), "filter": "Age >= 18 AND Age <= 65", "contract": src.to_ir(),
                  "subject": "input lodgings of model g (schema CabinCostSource)"}}],
        out.to_ir(), tmp_path)
    r, result = run_worker(job)
    assert r.returncode == 0, r.stderr
    assert result is not None and result["ok"] is True, result
    stage = result["stage"]
    assert stage["rows_written"] == 593 and stage["rows_quarantined"] == 0
    assert stage["report"]["ok"] is True
    (staged,) = stage["staged"]
    assert staged["table"] == "default.g"
    assert set(result["seconds"]) == {"inputs", "model", "output"}
    # Nothing was committed: the runner commits staged files.
    assert [t.table for t in titanic_client.get_tables()] == ["default.titanic"]
    # The result file was written atomically: no temporary file is left behind.
    assert sorted(p.name for p in pathlib.Path(job["result_path"]).parent.iterdir()) == ["g.result.json"]


def test_model_exception_is_a_model_error_with_traceback(titanic_client, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "boom.py").write_text(textwrap.dedent("""
        from typing import Annotated
        import pyarrow as pa
        import weir
        from weir import Model

        @weir.model()
        def boom(src: Annotated[pa.Table, Model("titanic")]) -> pa.Table:
            print("model output goes to the log")
            return src.num_rows / 0
    """))
    job = job_for(titanic_client, proj, "boom.py", "boom", [
        {"param": "src", "table": "default.titanic", "ref": titanic_client.resolve("main"), "spec": {}}],
        None, tmp_path)
    r, result = run_worker(job)
    assert r.returncode == 0 and result is not None and result["ok"] is False
    err = result["error"]
    assert (err["code"], err["code_num"]) == ("ModelError", 15)
    assert err["message"] == "model boom raised ZeroDivisionError: division by zero"
    assert "boom.py" in err["traceback"] and "weir/worker.py" not in err["traceback"]
    assert "model output goes to the log" in r.stdout


def test_output_contract_violation_and_wrong_return_type(titanic_client, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "models.py").write_text(textwrap.dedent("""
        from typing import Annotated
        import polars as pl
        import pyarrow as pa
        import weir
        from weir import Enum, Int64, Model, Table, TableSchema

        class Classes(TableSchema):
            tclass: Annotated[Int64, Enum({"1st": 1, "2nd": 2})]

        @weir.model()
        def classes(src: Annotated[pa.Table, Model("titanic")]) -> Table[Classes]:
            return pl.DataFrame(src).select(tclass=pl.col("Pclass"))   # a polars frame: __arrow_c_stream__

        @weir.model()
        def number(src: Annotated[pa.Table, Model("titanic")]) -> Table[Classes]:
            return 42
    """))
    mod = load_file(str(proj), "models.py")
    head = titanic_client.resolve("main")
    inputs = [{"param": "src", "table": "default.titanic", "ref": head, "spec": {}}]
    r, result = run_worker(job_for(titanic_client, proj, "models.py", "classes", inputs, mod.Classes.to_ir(),
                                   tmp_path))
    assert r.returncode == 0 and result is not None and result["ok"] is False, result
    err = result["error"]
    assert (err["code"], err["code_num"]) == ("ContractViolation", 10)
    (v,) = err["details"]
    assert v["kind"] == "enum" and v["column"] == "tclass" and v["count"] == 491
    assert "outside the enum" in v["message"]
    r, result = run_worker(job_for(titanic_client, proj, "models.py", "number", inputs, mod.Classes.to_ir(), tmp_path))
    assert result is not None and result["error"]["code"] == "ModelError"
    assert "model number returned int" in result["error"]["message"]


def test_input_projection_is_checked_by_libweir(titanic_client, tmp_path):
    models = load_file(str(PROJECT), "models.py")
    bad_ir = models.CabinCostSource.to_ir()
    bad_ir["columns"][3]["nullable"] = False  # Cabin has nulls in titanic
    job = job_for(titanic_client, PROJECT, "models.py", "g", [
        {"param": "lodgings", "table": "default.titanic", "ref": titanic_client.resolve("main"),
         "spec": {"columns": models.CabinCostSource.column_names(), "contract": bad_ir,
                  "subject": "input lodgings of model g (schema CabinCostSource)"}}],
        models.CabinCostAnalysis.to_ir(), tmp_path)
    r, result = run_worker(job)
    assert result is not None and result["ok"] is False
    assert result["error"]["code"] == "ContractViolation"
    assert "input lodgings of model g" in result["error"]["message"]
    assert result["error"]["details"][0]["kind"] == "nulls"


def test_worker_in_a_prepared_environment(titanic_client, tmp_path, weir_env):  # noqa: F811
    """The runner starts the worker with the interpreter weir.envs prepared."""
    from weir.envs import prepare

    python, _ = prepare("%d.%d" % sys.version_info[:2], {"polars": "1.*"})
    models = load_file(str(PROJECT), "models.py")
    job = job_for(titanic_client, PROJECT, "models.py", "g", [
        {"param": "lodgings", "table": "default.titanic", "ref": titanic_client.resolve("main"),
         "spec": {"columns": models.CabinCostSource.column_names(), "filter": "Age >= 18 AND Age <= 65"}}],
        models.CabinCostAnalysis.to_ir(), tmp_path)
    r, result = run_worker(job, python=str(python))
    assert r.returncode == 0 and result is not None and result["ok"] is True, (r.stderr, result)


def test_bad_job_and_unwritable_result(tmp_path):
    r = subprocess.run([sys.executable, "-m", "weir.worker"], input="not json", capture_output=True, text=True)
    assert r.returncode == 2 and "bad job" in r.stderr
    blocker = tmp_path / "file"
    blocker.write_text("")
    job = {"result_path": str(blocker / "sub" / "r.json"), "lake": str(tmp_path / "nolake"),
           "library": str(library_path()), "project": str(tmp_path), "file": "x.py", "function": "f", "inputs": []}
    r = subprocess.run([sys.executable, "-m", "weir.worker"], input=json.dumps(job), capture_output=True, text=True)
    assert r.returncode == 1 and "cannot write the result" in r.stderr


def test_missing_lake_is_reported_in_the_result(tmp_path, weir_env):  # noqa: F811
    job = {"result_path": str(tmp_path / "r.json"), "lake": str(tmp_path / "nolake"),
           "library": str(library_path()), "project": str(tmp_path), "file": "x.py", "function": "f", "inputs": []}
    r = subprocess.run([sys.executable, "-m", "weir.worker"], input=json.dumps(job), capture_output=True, text=True,
                       env={**os.environ, "WEIR_LAKE": ""})
    assert r.returncode == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["ok"] is False and result["error"]["code"] == "NotFound"


def test_arrow_export_does_not_copy():
    """The stream handed to libweir reads the table's own buffers."""
    table = pa.table({"x": pa.array(range(1000), pa.int64())})
    stream, reader = _ffi.export_stream(table)
    back = _ffi.import_stream(stream).read_all()
    assert back.column("x").chunk(0).buffers()[1].address == table.column("x").chunk(0).buffers()[1].address
    del reader
    with pytest.raises(TypeError, match="not Arrow data"):
        _ffi.to_reader(object())
