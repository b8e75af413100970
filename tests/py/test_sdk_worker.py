"""``python -m weir.worker`` and ``python -m weir.model_host``: real jobs against a lake made
with weir.Client, the two processes joined by a socket on descriptor 3 as libweir's runner
joins them (docs/worker.md, "The worker"), here without the sandbox (tests/py/test_sandbox.py
runs them in it, through weir run). Some tests play the model process themselves, to show
what the worker does with what a model process sends it."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import json
import mmap
import os
import pathlib
import socket
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


def _on_fd3(sock: socket.socket):
    """preexec_fn putting `sock` on descriptor 3 of the child (subprocess closes the other
    descriptors after preexec_fn, and keeps 3 because it is in pass_fds)."""
    fd = sock.fileno()

    def pre() -> None:
        os.dup2(fd, 3)

    return pre


def start(module: str, sock: socket.socket, python: str = sys.executable, cwd: str | None = None,
          env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([python, "-m", module], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=cwd, env=env, pass_fds=(3,) if sock.fileno() != 3
                            else (), preexec_fn=_on_fd3(sock))


def host_job(job: dict) -> dict:
    return {"project": job["project"], "file": job["file"], "function": job["function"], "model": job["model"],
            "params": [i["param"] for i in job["inputs"]], "sandbox": {"enabled": False}}


def run_worker(job: dict, python: str = sys.executable) -> tuple[subprocess.CompletedProcess, dict | None]:
    """The worker and the model process of one job, as the runner starts them (no sandbox)."""
    w_end, h_end = socket.socketpair()
    worker = start("weir.worker", w_end, cwd=job["project"])
    host = start("weir.model_host", h_end, python=python, cwd=job["project"])
    w_end.close()
    h_end.close()
    assert worker.stdin is not None
    worker.stdin.write(json.dumps(job))   # both jobs first: each waits for the other
    worker.stdin.close()
    worker.stdin = None
    h_out, _ = host.communicate(json.dumps(host_job(job)), timeout=120)
    w_out, _ = worker.communicate(timeout=120)
    r = subprocess.CompletedProcess(worker.args, worker.returncode, stdout=h_out + w_out, stderr=w_out)
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
    assert set(result["seconds"]) == {"inputs", "model", "output", "host"}
    assert set(result["seconds"]["host"]) == {"load", "inputs", "model", "output"}
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
    assert "boom.py" in err["traceback"] and "weir/model_host.py" not in err["traceback"]
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
    """The runner starts the model process with the interpreter weir.envs prepared."""
    from weir.envs import prepare

    python, _ = prepare("{}.{}".format(*sys.version_info[:2]), {"polars": "1.*"})
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
    stream, keep = _ffi.export_stream(table)
    back = _ffi.import_stream(stream).read_all()
    assert back.column("x").chunk(0).buffers()[1].address == table.column("x").chunk(0).buffers()[1].address
    del keep
    with pytest.raises(TypeError, match="not Arrow data"):
        _ffi.to_reader(object())


def test_arrow_crosses_through_the_public_capsule_protocol():
    """Streams libweir fills are imported through an arrow_array_stream capsule with the
    public RecordBatchReader.from_stream; any __arrow_c_stream__ producer (polars) is
    accepted as input, and a stream nobody consumed is released with its capsule."""
    import gc

    import polars as pl

    df = pl.DataFrame({"x": [1, 2, 3]})
    stream, keep = _ffi.export_stream(df)
    assert _ffi.import_stream(stream).read_all().column("x").to_pylist() == [1, 2, 3]
    del keep
    # A stream filled by the producer side, never read: the capsule's destructor releases it.
    released: list[bool] = []
    inner, inner_keep = _ffi.export_stream(pa.table({"y": [1]}))
    wrapped = _ffi.ArrowArrayStream.from_buffer_copy(inner.contents)  # the C struct, moved
    inner.contents.release = None  # the original no longer owns it
    holder = _ffi._StreamHolder(wrapped)  # pyright: ignore[reportPrivateUsage]
    capsule = holder.__arrow_c_stream__()
    assert type(capsule).__name__ == "PyCapsule"
    with pytest.raises(RuntimeError, match="already exported"):
        holder.__arrow_c_stream__()
    release_before = wrapped.release
    del capsule
    gc.collect()
    released.append(not wrapped.release and bool(release_before))
    assert released == [True]
    del inner_keep
    # No private pyarrow entry point is used any more.
    src = (pathlib.Path(_ffi.__file__)).read_text()
    assert "_import_from_c" not in src and "_export_to_c" not in src


# ---- the worker, facing a model process it cannot trust -----------------------------------


def _play_model_process(job: dict, answer) -> tuple[dict | None, dict, list[int]]:
    """Runs the worker with the test as its model process: `answer(head, fds, sock)` gets
    the worker's hand-off and replies. Returns (the result, the hand-off, the fds)."""
    from weir import _handoff

    w_end, h_end = socket.socketpair()
    worker = start("weir.worker", w_end, cwd=job["project"])
    w_end.close()
    worker.stdin.write(json.dumps(job))
    worker.stdin.close()
    head, fds = _handoff.recv(h_end)
    answer(head, fds, h_end)
    h_end.close()
    worker.wait(timeout=300)
    out = worker.stdout.read()
    worker.stdout.close()
    assert worker.returncode == 0, out
    path = pathlib.Path(job["result_path"])
    return (json.loads(path.read_text()) if path.exists() else None), head, fds


def _titanic_job(client, tmp_path, project=PROJECT):
    return job_for(client, project, "models.py", "passthrough", [
        {"param": "src", "table": "default.titanic", "ref": client.resolve("main"),
         "spec": {"columns": ["PassengerId", "Name"]}}], None, tmp_path)


def test_the_worker_hands_over_sealed_inputs_and_never_imports_the_project(titanic_client, tmp_path):
    from weir import _handoff

    proj = tmp_path / "proj"
    proj.mkdir()
    marker = tmp_path / "imported"
    (proj / "models.py").write_text(f"open({str(marker)!r}, 'w').write('the worker imported me')\n")

    def answer(head, fds, sock):
        *ins, out = fds
        assert [i["param"] for i in head["inputs"]] == ["src"] and head["inputs"][0]["rows"] == 891
        # Sealed: the model process can map the input but never change it.
        assert _handoff.is_sealed(ins[0])
        with pytest.raises(OSError):
            os.write(ins[0], b"x")
        table = _handoff.map_table(ins[0])
        assert table.column_names == ["PassengerId", "Name"] and table.num_rows == 891
        # The mapping is the memfd itself: no copy.
        mm = mmap.mmap(ins[0], 0, prot=mmap.PROT_READ)
        assert table.column(0).chunk(0).buffers()[1].address != 0 and len(mm) >= table.nbytes
        mm.close()
        assert not _handoff.is_sealed(out)
        _handoff.write_table(table.slice(0, 10).to_reader(), out)
        _handoff.send(sock, {"ok": True, "rows": 10})

    result, _, _ = _play_model_process(_titanic_job(titanic_client, tmp_path, proj), answer)
    assert result is not None and result["ok"] is True, result
    assert result["stage"]["rows_written"] == 10
    assert not marker.exists()


def test_an_output_the_model_process_still_holds_writable_is_refused(titanic_client, tmp_path):
    from weir import _handoff

    def answer(head, fds, sock):
        out = fds[-1]
        table = _handoff.map_table(fds[0])
        _handoff.write_table(table.to_reader(), out)
        # A writable shared mapping kept open: it could change the data after the worker
        # validated it, so the worker cannot seal the output and refuses it.
        keep = mmap.mmap(out, 0, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        _handoff.send(sock, {"ok": True, "rows": table.num_rows})
        worker_reads.append(keep)

    worker_reads: list = []
    result, _, _ = _play_model_process(_titanic_job(titanic_client, tmp_path), answer)
    assert result is not None and result["ok"] is False
    assert "returned an output weir cannot read" in result["error"]["message"]
    assert "Device or resource busy" in result["error"]["message"]
    assert [t.table for t in titanic_client.get_tables()] == ["default.titanic"]


def test_malformed_arrow_from_the_model_process_is_refused_before_libweir_reads_it(titanic_client, tmp_path):
    from weir import _handoff

    def answer(head, fds, sock):
        # A string column whose middle offset points past its data (the last one is fine,
        # so only a full validation sees it): valid IPC framing, invalid Arrow, which
        # libweir must never walk.
        sink = pa.BufferOutputStream()
        with pa.ipc.new_file(sink, pa.schema([("s", pa.string())])) as w:
            w.write_table(pa.table({"s": ["abcd", "efgh"]}))
        good = sink.getvalue().to_pybytes()
        offsets = b"\x00\x00\x00\x00\x04\x00\x00\x00\x08\x00\x00\x00"
        assert good.count(offsets) == 1
        os.write(fds[-1], good.replace(offsets, b"\x00\x00\x00\x00\x64\x00\x00\x00\x08\x00\x00\x00"))
        _handoff.send(sock, {"ok": True, "rows": 2})

    result, _, _ = _play_model_process(_titanic_job(titanic_client, tmp_path), answer)
    assert result is not None and result["ok"] is False
    assert "returned an output weir cannot read" in result["error"]["message"]
    assert [t.table for t in titanic_client.get_tables()] == ["default.titanic"]


def test_a_model_process_that_ends_without_answering(titanic_client, tmp_path):
    result, _, _ = _play_model_process(_titanic_job(titanic_client, tmp_path), lambda head, fds, sock: None)
    assert result is not None and result["ok"] is False
    assert result["error"]["host_ended"] is True
    assert result["error"]["message"] == "model passthrough: its process ended without a result"


def test_one_worker_serves_the_models_of_a_run(titanic_client, tmp_path):
    """`weir.worker --serve`, as the runner keeps it for a run: jobs arrive on its control
    socket with each model process's socket; it answers done after each result file."""
    from weir import _handoff

    ctl_ours, ctl_theirs = socket.socketpair()
    worker = subprocess.Popen([sys.executable, "-m", "weir.worker", "--serve"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path),
                              pass_fds=(3,) if ctl_theirs.fileno() != 3 else (), preexec_fn=_on_fd3(ctl_theirs))
    ctl_theirs.close()
    results = []
    for n in (3, 5):
        job = _titanic_job(titanic_client, tmp_path / f"job{n}")
        w_end, h_end = socket.socketpair()
        _handoff.send(ctl_ours, {"job": job}, [w_end.fileno()])
        w_end.close()
        head, fds = _handoff.recv(h_end)
        _handoff.write_table(_handoff.map_table(fds[0]).slice(0, n).to_reader(), fds[-1])
        _handoff.send(h_end, {"ok": True, "rows": n})
        h_end.close()
        done, _ = _handoff.recv(ctl_ours)
        assert done == {"done": True}
        results.append(json.loads(pathlib.Path(job["result_path"]).read_text()))
    ctl_ours.close()                      # the run is over: the worker exits
    out, _ = worker.communicate(timeout=60)
    assert worker.returncode == 0, out
    assert [r["ok"] for r in results] == [True, True], results
    assert [r["stage"]["rows_written"] for r in results] == [3, 5]
