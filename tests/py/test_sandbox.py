"""The model sandbox (docs/sandbox.md), tried as a careless or hostile agent would: each
model here attacks the lake, the catalog, the user's files, the network or the machine.
Each attempt must fail the run with a message naming what was refused, and afterwards
every table at every ref must read exactly as before (and every data file be intact).

Each attack is also run once with --unsandboxed where that is harmless (on a throwaway
lake), to show the test would fail without the sandbox. Synchronisation is by explicit
hand-offs (a listening socket's backlog, files), never by sleeping."""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import socket
import textwrap
import time

import pytest

from conftest import BUILD, ROOT, TITANIC, weir, weir_json, weir_list

pytestmark = pytest.mark.cli

HEADER = """\
import os
import socket
import sqlite3
import subprocess
import time
from typing import Annotated

import pyarrow as pa

import weir
from weir import Model
"""


def project(tmp_path: pathlib.Path, body: str, decorator: str = "", name: str = "proj") -> pathlib.Path:
    """A project with one Python model g(t) over titanic whose body is `body`."""
    proj = tmp_path / name
    proj.mkdir()
    (proj / "models.py").write_text(HEADER + textwrap.dedent(f"""

        @weir.model()
        {decorator}
        def g(t: Annotated[pa.Table, Model("titanic")]) -> pa.Table:
            \"\"\"A model with an agenda.\"\"\"
        """) + textwrap.indent(textwrap.dedent(body), "    ") + "    return t\n")
    return proj


def data_files(lake: pathlib.Path) -> list[pathlib.Path]:
    return sorted((lake / "warehouse").rglob("*.parquet"))


def state(lake: pathlib.Path) -> dict:
    """Everything a reader of the lake can see: every ref's head, every commit reachable
    from a ref with every table it holds and that table's rows (hashed), and every file
    of the warehouse with its contents (hashed)."""
    refs = {b["name"]: b["head"] for b in weir_list("branch", lake=lake)}
    refs |= {"tag:" + t["name"]: t["target"] for t in weir_list("tag", lake=lake)}
    commits: dict[str, dict[str, str]] = {}
    for head in set(refs.values()):
        for c in weir_list("log", head, lake=lake):
            if c["hash"] in commits:
                continue
            tables = {}
            for t in weir_list("tables", "--ref", c["hash"], lake=lake):
                r = weir("query", f"SELECT * FROM {t['table']} ORDER BY ALL", "--ref", c["hash"], "--format", "csv",
                         lake=lake)
                assert r.returncode == 0, f"{t['table']} at {c['hash'][:12]} cannot be read: {r.stderr}"
                tables[t["table"]] = hashlib.sha256(r.stdout.encode()).hexdigest()
            commits[c["hash"]] = tables
    files = {str(p.relative_to(lake)): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted((lake / "warehouse").rglob("*")) if p.is_file()}
    return {"refs": refs, "commits": commits, "files": files}


def same_as_before(lake: pathlib.Path, before: dict) -> None:
    """Every ref that existed still points where it did and every commit reads the same;
    every file of the warehouse is still there, unchanged. (A failed run adds its own
    run/<id> branch, and may add files of its own: those are not the lake as it was.)"""
    after = state(lake)
    for name, head in before["refs"].items():
        assert after["refs"].get(name) == head, f"ref {name} moved"
    for commit, tables in before["commits"].items():
        assert after["commits"].get(commit) == tables, f"commit {commit[:12]} reads differently"
    for path, digest in before["files"].items():
        assert after["files"].get(path) == digest, f"{path} was changed or removed"


@pytest.fixture
def protected(titanic_lake):
    """The titanic lake with a second commit (a tag on the first), so that there is more
    than one ref and more than one version to protect."""
    assert weir("tag", "create", "raw", lake=titanic_lake).returncode == 0
    assert weir("import", TITANIC, "--table", "titanic", "--mode", "append", lake=titanic_lake).returncode == 0
    return titanic_lake


def run_fails(lake: pathlib.Path, proj: pathlib.Path, *args: str, env=None) -> str:
    r = weir("run", proj, *args, lake=lake, env=env)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    run = weir_list("runs", lake=lake)[0]
    assert run["status"] == "failed"
    return r.stderr


def sandbox_record(lake: pathlib.Path) -> dict:
    run = weir_json("runs", "show", weir_list("runs", lake=lake)[0]["run_id"], lake=lake)
    (g,) = [m for m in run["models"] if m["model"] == "g"]
    return g["sandbox"]


# ---- the acceptance list of issue 17 -------------------------------------------------------


def test_deleting_a_data_file_of_the_warehouse_is_refused(protected, tmp_path):
    before = state(protected)
    victim = data_files(protected)[0]
    proj = project(tmp_path, f"os.remove({str(victim)!r})\n")
    err = run_fails(protected, proj)
    assert f"model g tried to remove {victim}: permission denied by the model sandbox" in err
    assert victim.exists()
    same_as_before(protected, before)
    rec = sandbox_record(protected)
    assert rec["enabled"] is True and rec["landlock_abi"] >= 1 and rec["seccomp"] is True


def test_writing_into_the_warehouse_is_refused(protected, tmp_path):
    before = state(protected)
    target = data_files(protected)[0].parent / "planted.parquet"
    proj = project(tmp_path, f"open({str(target)!r}, 'wb').write(b'not parquet')\n")
    err = run_fails(protected, proj)
    assert f"model g tried to write {target}: permission denied by the model sandbox" in err
    assert not target.exists()
    # Nor over an existing file, nor by renaming one away.
    victim = data_files(protected)[0]
    proj = project(tmp_path, f"os.rename({str(victim)!r}, {str(victim) + '.bak'!r})\n", name="rename")
    err = run_fails(protected, proj)
    assert f"model g tried to rename {victim}" in err and "permission denied by the model sandbox" in err
    same_as_before(protected, before)


@pytest.mark.parametrize("how, said", [
    ("open({catalog!r}, 'rb').read()", "model g tried to read {catalog}: permission denied by the model sandbox"),
    ("sqlite3.connect({catalog!r}).execute('SELECT * FROM refs').fetchall()",
     "model g tried to open the database {catalog}: permission denied by the model sandbox"),
    ("open({catalog!r}, 'r+b').write(b'corrupt')",
     "model g tried to write {catalog}: permission denied by the model sandbox"),
])
def test_opening_the_catalog_is_refused(protected, tmp_path, how, said):
    before = state(protected)
    catalog = str(protected / "catalog.db")
    proj = project(tmp_path, how.format(catalog=catalog) + "\n")
    err = run_fails(protected, proj)
    assert said.format(catalog=catalog) in err
    same_as_before(protected, before)


def test_reading_the_users_other_files_is_refused(protected, tmp_path):
    before = state(protected)
    home = tmp_path / "home"
    home.mkdir()
    secret = home / ".aws-credentials"
    secret.write_text("aws_secret_access_key = hunter2\n")
    proj = project(tmp_path, f"""
        assert os.environ["HOME"] != {str(home)!r}, "the model sees the user's HOME"
        print(open({str(secret)!r}).read())
        """)
    err = run_fails(protected, proj, env={"HOME": str(home)})
    assert f"model g tried to read {secret}: permission denied by the model sandbox" in err
    assert "hunter2" not in err and "hunter2" not in open(weir_json("runs", "show", weir_list(
        "runs", lake=protected)[0]["run_id"], lake=protected)["models"][0]["log"]).read()
    same_as_before(protected, before)


def _listener() -> tuple[socket.socket, int]:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    s.setblocking(False)
    return s, s.getsockname()[1]


def _accepted(s: socket.socket) -> bytes | None:
    """What a connection queued on the listener sent, or None when nobody connected. The
    run has ended when this is called, so a connection would be in the backlog by now."""
    try:
        c, _ = s.accept()
    except BlockingIOError:
        return None
    c.setblocking(True)
    with c:
        return c.recv(100)


CONNECT = """
c = socket.create_connection(("127.0.0.1", {port}), timeout=10)
c.sendall(b"token-from-the-model")
c.close()
"""


def test_connecting_to_a_local_port_is_refused(protected, tmp_path):
    before = state(protected)
    s, port = _listener()
    with s:
        proj = project(tmp_path, CONNECT.format(port=port))
        err = run_fails(protected, proj)
        assert f"model g tried to connect to 127.0.0.1:{port}: permission denied by the model sandbox" in err
        assert "internet_access=True" in err
        assert _accepted(s) is None
    assert sandbox_record(protected)["network"] in ("namespace", "seccomp")
    same_as_before(protected, before)


def test_with_internet_access_the_network_opens_and_nothing_else(protected, tmp_path):
    before = state(protected)
    s, port = _listener()
    victim = data_files(protected)[0]
    with s:
        proj = project(tmp_path, CONNECT.format(port=port) + f"os.remove({str(victim)!r})\n",
                       decorator="@weir.python(internet_access=True)")
        err = run_fails(protected, proj)
        assert _accepted(s) == b"token-from-the-model"
    assert f"model g tried to remove {victim}: permission denied by the model sandbox" in err
    rec = sandbox_record(protected)
    assert rec["internet_access"] is True and rec["network"] == "open" and rec["enabled"] is True
    same_as_before(protected, before)


def test_forking_ten_thousand_processes_is_refused(protected, tmp_path):
    before = state(protected)
    proj = project(tmp_path, """
        pids = []
        for i in range(10_000):
            pid = os.fork()
            if pid == 0:
                time.sleep(600)
                os._exit(0)
            pids.append(pid)
        """)
    started = time.monotonic()
    err = run_fails(protected, proj)
    assert "model g tried to start a process (os.fork): permission denied by the model sandbox" in err
    assert time.monotonic() - started < 120
    # subprocess too (it uses vfork/clone).
    proj = project(tmp_path, "subprocess.run(['true'])\n", name="sub")
    err = run_fails(protected, proj)
    assert "model g tried to start a process" in err and "permission denied by the model sandbox" in err
    same_as_before(protected, before)


def test_allocating_beyond_the_memory_limit_stops_the_model(protected, tmp_path):
    before = state(protected)
    # Touched memory (bytearray zero-fills): the runner sees it resident and stops it.
    proj = project(tmp_path, "hog = bytearray(4 << 30)\n", decorator='@weir.python(memory="256MiB")')
    started = time.monotonic()
    err = run_fails(protected, proj)
    assert "model g used more than its memory limit of 256 MiB and was stopped" in err
    assert "@weir.python(memory=...) changes it" in err
    assert time.monotonic() - started < 120
    rec = sandbox_record(protected)
    assert rec["limits"]["memory"] == 256 << 20
    # An absurd allocation fails at once inside the model (the address-space backstop).
    proj = project(tmp_path, "hog = bytearray(1 << 44)\n", decorator='@weir.python(memory="256MiB")', name="huge")
    err = run_fails(protected, proj)
    assert "model g ran out of memory (its limit is 256 MiB" in err
    same_as_before(protected, before)


def test_running_past_the_timeout_stops_the_model(protected, tmp_path):
    before = state(protected)
    proj = project(tmp_path, "time.sleep(600)\n", decorator='@weir.python(timeout="3s")')
    started = time.monotonic()
    err = run_fails(protected, proj)
    took = time.monotonic() - started
    assert "model g ran past its timeout of 3s and was stopped (@weir.python(timeout=...) changes it)" in err
    assert took < 60, took
    same_as_before(protected, before)


def test_cpu_time_beyond_the_limit_stops_the_model(protected, tmp_path):
    before = state(protected)
    proj = project(tmp_path, "while True:\n    pass\n", decorator='@weir.python(cpu_time="1s", timeout="2m")')
    err = run_fails(protected, proj)
    assert "model g used more than its CPU time limit of 1s and was stopped" in err
    same_as_before(protected, before)


# ---- what else a model must not do, and what it still may ----------------------------------


def test_changing_the_mode_of_a_data_file_is_refused(protected, tmp_path):
    # Landlock does not check chmod; chmod 000 would lock a non-root owner out of a table.
    before = state(protected)
    victim = data_files(protected)[0]
    mode = victim.stat().st_mode
    proj = project(tmp_path, f"os.chmod({str(victim)!r}, 0)\n")
    err = run_fails(protected, proj)
    assert f"model g tried to change the mode of {victim}: permission denied by the model sandbox" in err
    assert victim.stat().st_mode == mode
    same_as_before(protected, before)


def test_signalling_the_runner_is_refused(protected, tmp_path):
    before = state(protected)
    proj = project(tmp_path, "import signal\nos.kill(os.getppid(), signal.SIGKILL)\n")
    err = run_fails(protected, proj)
    assert "model g tried to signal process" in err and "permission denied by the model sandbox" in err
    same_as_before(protected, before)


def test_the_model_sees_none_of_the_runners_credentials(protected, tmp_path):
    proj = project(tmp_path, """
        t = pa.table({"secret": [os.environ.get("AWS_SECRET_ACCESS_KEY", "none")],
                      "home_is_private": [os.environ["HOME"] == os.environ["TMPDIR"]]})
        """)
    r = weir("run", proj, lake=protected, env={"AWS_SECRET_ACCESS_KEY": "hunter2"})
    assert r.returncode == 0, r.stderr
    out = weir("query", "SELECT * FROM g", "--format", "csv", lake=protected).stdout
    assert out.splitlines()[1] == "none,true"


def test_a_model_may_read_its_project_and_use_its_temporary_folder(protected, tmp_path):
    proj = project(tmp_path, """
        import tempfile
        here = os.path.dirname(os.path.abspath(__file__))
        n = int(open(os.path.join(here, "n.txt")).read())
        with tempfile.NamedTemporaryFile("w+", delete=False) as fh:
            fh.write("scratch")
        assert open(fh.name).read() == "scratch"
        os.remove(fh.name)
        t = pa.table({"n": [n]})
        """)
    (proj / "n.txt").write_text("42\n")
    r = weir("run", proj, lake=protected)
    assert r.returncode == 0, r.stderr
    assert weir("query", "SELECT n FROM g", "--format", "csv", lake=protected).stdout.splitlines()[1] == "42"


def test_module_level_code_runs_sandboxed_at_discovery_too(protected, tmp_path):
    # weir check imports the project's files: their top-level code is model code.
    before = state(protected)
    victim = data_files(protected)[0]
    proj = project(tmp_path, "pass\n")
    text = (proj / "models.py").read_text()
    (proj / "models.py").write_text(text.replace("import weir\n", f"import weir\nos.remove({str(victim)!r})\n", 1))
    r = weir("check", proj, lake=protected)
    assert r.returncode == 3, r.stderr
    assert "PermissionError while importing models.py" in r.stdout + r.stderr
    assert victim.exists()
    same_as_before(protected, before)


@pytest.mark.parametrize("decorator, message", [
    ('@weir.python(memory="4 parsecs")', "memory='4 parsecs': a size is a number and a unit"),
    ('@weir.python(memory="1MB")', "memory='1MB': at least 32MiB"),
    ('@weir.python(timeout="soon")', "timeout='soon': a duration is numbers with units"),
    ('@weir.python(timeout=0)', "timeout=0: a positive duration"),
    ('@weir.python(cpu_time="0.5s")', "cpu_time='0.5s': at least one second"),
    ('@weir.python(internet_access="yes")', "internet_access='yes': True or False"),
])
def test_bad_limits_are_plan_errors(protected, tmp_path, decorator, message):
    proj = project(tmp_path, "pass\n", decorator=decorator)
    r = weir("check", proj, lake=protected)
    assert r.returncode == 3, r.stdout + r.stderr
    assert message in r.stdout + r.stderr
    assert "models.py:" in r.stdout + r.stderr


def test_declared_limits_show_in_the_plan(protected, tmp_path):
    proj = project(tmp_path, "pass\n", decorator='@weir.python(memory="2GB", timeout="10m", internet_access=True)')
    plan = weir_json("check", proj, lake=protected)
    (g,) = plan["models"]
    assert g["sandbox"] == {"internet_access": True, "memory": 2_000_000_000, "timeout": 600.0, "cpu_time": None}


# ---- without the sandbox ----------------------------------------------------------------------


def test_unsandboxed_the_attack_works_so_the_tests_above_test_the_sandbox(tmp_path, titanic_lake):
    # A throwaway lake: this one is really damaged.
    lake = titanic_lake
    victim = data_files(lake)[0]
    proj = project(tmp_path, f"os.remove({str(victim)!r})\n")
    r = weir("run", proj, "--unsandboxed", lake=lake)
    assert r.returncode == 0, r.stderr
    assert not victim.exists()
    rec = sandbox_record(lake)
    assert rec["enabled"] is False and "unsandboxed" in rec["reason"]
    r = weir("runs", "show", weir_list("runs", lake=lake)[0]["run_id"], lake=lake)
    assert "unsandboxed" in r.stdout


def test_a_kernel_without_a_sandbox_is_refused_unless_unsandboxed(protected, tmp_path):
    # This machine has a sandbox: the failpoint build pretends it has none (release
    # builds have no such seam; the library reads no test variable).
    from conformance import failpoint_cli

    cli = failpoint_cli()
    if cli is None:
        if os.environ.get("CI") or os.environ.get("WEIR_REQUIRE_FAILPOINTS"):
            pytest.fail("no failpoint build (build-asan) to pretend the kernel has no sandbox")
        pytest.skip("no failpoint build (make build-asan) to pretend the kernel has no sandbox")
    before = state(protected)
    proj = project(tmp_path, "pass\n")
    # The instrumented CLI's workers load the plain library (as make test-asan runs them).
    env = {"WEIR_FAILPOINTS": "sandbox.unavailable:error",
           "WEIR_LIBRARY": os.environ.get("WEIR_LIBRARY") or str(BUILD / "libweir.so"),
           "ASAN_OPTIONS": "detect_leaks=1"}
    r = weir("run", proj, lake=protected, env=env, exe=cli)
    assert r.returncode == 1, r.stderr
    assert "weir cannot sandbox the Python files of" in r.stderr
    assert "injected failure at sandbox.unavailable" in r.stderr and "--unsandboxed" in r.stderr
    assert weir_list("runs", lake=protected) == []   # refused before anything was written
    r = weir("check", proj, lake=protected, env=env, exe=cli)
    assert r.returncode == 1 and "--unsandboxed" in r.stderr
    same_as_before(protected, before)
    r = weir("run", proj, "--unsandboxed", lake=protected, env=env, exe=cli)
    assert r.returncode == 0, r.stderr
    assert sandbox_record(protected)["enabled"] is False
    # A project of SQL models only needs no sandbox.
    sql = tmp_path / "sql"
    sql.mkdir()
    (sql / "f.sql").write_text("SELECT PassengerId FROM titanic\n")
    assert weir("run", sql, lake=protected, env=env, exe=cli).returncode == 0
    # Without the failpoint, the same machine sandboxes: release code has no such seam.
    assert weir("check", proj, lake=protected, env={"WEIR_SANDBOX_UNAVAILABLE": "x"}).returncode == 0


def test_the_sdk_runs_unsandboxed_only_when_asked(tmp_path):
    import test_client_support  # noqa: F401 - makes python/ importable, sets the library

    from test_client_support import library_path

    os.environ.setdefault("WEIR_LIBRARY", str(library_path()))
    os.environ.setdefault("WEIR_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
    import weir as sdk

    c = sdk.Client.init(tmp_path / "lake", author="tests@weir")
    try:
        c.import_data("titanic", TITANIC)
        proj = project(tmp_path, "pass\n")
        state = c.run(proj)
        assert state.success(), state.error
        assert state.model("g").sandbox["enabled"] is True
        state = c.run(proj, sandbox=False)
        assert state.success() and state.model("g").sandbox["enabled"] is False
        with pytest.raises(TypeError):
            c.run(proj, sandbox="no")  # type: ignore[arg-type]
    finally:
        c.close()
        shutil.rmtree(tmp_path / "lake", ignore_errors=True)


def test_the_example_runs_sandboxed(protected):
    r = weir("run", ROOT / "examples" / "titanic" / "project", lake=protected)
    assert r.returncode == 0, r.stderr
    run = weir_json("runs", "show", weir_list("runs", lake=protected)[0]["run_id"], lake=protected)
    py = [m for m in run["models"] if m["language"] == "python"]
    assert py and all(m["sandbox"]["enabled"] for m in py)
    assert all(m["sandbox"]["peak_memory"] > 0 for m in py)
    assert json.dumps(run).count('"enabled": false') == 0


def test_a_lake_inside_the_project_folder_stays_out_of_reach(tmp_path):
    # `weir init` in a repository that is also the project: the model may read the
    # project, and must still read no file of the lake inside it.
    proj = project(tmp_path, "")
    lake = proj / ".weir"
    assert weir("init", lake).returncode == 0
    assert weir("import", TITANIC, "--table", "titanic", lake=lake).returncode == 0
    before = state(lake)
    (proj / "models.py").write_text((proj / "models.py").read_text().replace(
        "    return t\n",
        f"    assert open({str(proj / 'models.py')!r}).read()\n"
        f"    assert '.weir' in os.listdir({str(proj)!r})\n"
        f"    open({str(lake / 'catalog.db')!r}, 'rb')\n    return t\n"))
    err = run_fails(lake, proj)
    assert f"model g tried to read {lake / 'catalog.db'}: permission denied by the model sandbox" in err
    same_as_before(lake, before)


def test_a_project_inside_the_lake_is_refused(titanic_lake):
    proj = titanic_lake / "projects" / "p"
    proj.mkdir(parents=True)
    (proj / "models.py").write_text(HEADER + "\n\n@weir.model()\ndef g(t: Annotated[pa.Table, Model('titanic')]) "
                                    "-> pa.Table:\n    return t\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 2, r.stderr
    assert "is inside the lake" in r.stderr and "move the project out" in r.stderr


def test_an_input_the_worker_refuses_is_the_story_not_the_stopped_model_process(protected, tmp_path):
    # The worker fails on an input (a contract violation) while the model process waits for
    # it; the runner stops the model process, and the run reports the violation (exit 3),
    # not the SIGKILL it took to stop it.
    proj = tmp_path / "strict"
    proj.mkdir()
    (proj / "models.py").write_text(HEADER + textwrap.dedent("""
        from weir import Enum, Int64, Table, TableSchema


        class Classes(TableSchema):
            Pclass: Annotated[Int64, Enum({"1st": 1, "2nd": 2})]


        @weir.model()
        def g(t: Annotated[Table[Classes], Model("titanic")]) -> pa.Table:
            return t
        """))
    r = weir("run", proj, lake=protected)
    assert r.returncode == 3, r.stderr
    assert "contract violation in input t of model g" in r.stderr
    assert "signal" not in r.stderr
