"""weir.Client's Git-for-data surface: commits, branches, tags, merges, diffs, imports,
queries, describe; typed records; refs given as objects; library loading."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import dataclasses
import datetime as dt
import os
import pathlib
import subprocess
import sys
import threading
from typing import Annotated

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import weir
from weir import _ffi
from conftest import TITANIC
from test_client_support import PROJECT as PROJECT_DIR
from test_client_support import client, library_path, titanic_client, weir_env  # noqa: F401 - fixtures


def test_a_new_lake(client):
    (first,) = client.get_commits()
    assert isinstance(first, weir.Commit) and first.parents == () and len(first.hash) == 64
    assert isinstance(first.time, dt.datetime) and first.time.tzinfo is not None
    assert first.short_hash == first.hash[:12]
    (main,) = client.get_branches()
    assert (main.name, main.head) == ("main", first.hash) and str(main) == "main"
    assert client.get_tables() == [] and client.get_tags() == [] and client.get_runs() == []
    assert client.resolve("main") == first.hash == client.resolve(first.hash[:7])
    assert os.path.isabs(client.path) and client.library_version == "0.1.0"
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.hash = "x"  # type: ignore[misc]


def test_import_file_and_arrow_then_describe_and_query(client, tmp_path):
    r = client.import_data("titanic", TITANIC, message="load titanic")
    assert isinstance(r, weir.ImportResult)
    assert (r.table, r.rows_written, r.mode, r.rows_quarantined) == ("default.titanic", 891, "create", 0)
    assert client.get_commits(limit=1)[0].message == "load titanic" and client.get_commits(limit=1)[0].hash == r.commit
    # Arrow data in every accepted form: pyarrow Table, RecordBatchReader, polars DataFrame.
    t = pa.table({"x": pa.array([1, 2, 3], pa.int64()), "s": ["a", None, "c"]})
    client.import_data("raw.t1", t)
    client.import_data("raw.t2", t.to_reader())
    client.import_data("raw.t3", pl.DataFrame({"x": [1, 2], "s": ["a", "b"]}))
    pq.write_table(t, tmp_path / "t.parquet")
    client.import_data("raw.t4", tmp_path / "t.parquet")
    client.import_data("raw.t1", t, mode="append")
    counts = {s.table: s.record_count for s in client.get_tables()}
    assert counts == {"default.titanic": 891, "raw.t1": 6, "raw.t2": 3, "raw.t3": 2, "raw.t4": 3}
    info = client.get_table("raw.t1")
    assert isinstance(info, weir.TableInfo) and info.table == "raw.t1" and info.ref == "main"
    assert [(c.name, c.type, c.weir_type, c.required) for c in info.columns] == [
        ("x", "int64", "Int64", False), ("s", "large_string", "String", False)]  # optional without a contract
    assert info.column("s").nullable and info.commit == client.resolve("main") and info.metadata_location
    with pytest.raises(KeyError):
        info.column("nope")
    q = client.query("SELECT x, s FROM raw.t1 ORDER BY x LIMIT 2")
    assert isinstance(q, pa.Table) and q.to_pylist() == [{"x": 1, "s": "a"}, {"x": 1, "s": "a"}]
    n = sum(b.num_rows for b in client.query_reader("SELECT * FROM titanic"))
    assert n == 891
    out = tmp_path / "women.csv"
    assert client.export_query("SELECT * FROM titanic WHERE Sex = 'female'", out, format="csv") == 314
    assert out.read_text().splitlines()[0].startswith("PassengerId,")
    with pytest.raises(weir.InvalidArgument, match="mode"):
        client.import_data("x", t, mode="upsert")  # type: ignore[arg-type]


def test_import_with_a_contract_schema_yaml_and_drop_mode(client):
    class Passengers(weir.TableSchema):
        """Passengers."""

        PassengerId: Annotated[weir.Int64, weir.Unique, weir.Doc("id")]
        Age: Annotated[weir.Float64 | None, weir.Range(min=1, max=60, mode="drop")]

    data = pa.table({"PassengerId": pa.array([1, 2, 3], pa.int64()), "Age": [0.5, 30.0, None]})
    r = client.import_data("people", data, contract=Passengers)
    assert (r.rows_written, r.rows_quarantined, r.quarantine_table) == (2, 1, "default.people__quarantine")
    assert [v.kind for v in r.violations] == ["range"] and r.violations[0].mode == "drop"
    info = client.get_table("people")
    assert info.column("PassengerId").doc == "id" and info.comment == "Passengers."
    assert info.contract is not None and info.contract["name"] == "Passengers"
    yml = pathlib.Path(__file__).resolve().parents[2] / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"
    r2 = client.import_data("titanic", TITANIC, contract=yml)
    assert r2.rows_written == 891 and r2.violations == ()
    assert client.get_table("titanic").column("Fare").doc == "Ticket price in British pounds."


def test_branches_tags_merge_diff(titanic_client):
    c = titanic_client
    main0 = c.get_commit("main")
    assert [t.table for t in main0.tables] == ["default.titanic"] and main0.tables[0].record_count == 891
    dev = c.create_branch("dev", from_ref=main0)  # a Commit is a ref
    assert isinstance(dev, weir.Branch) and dev.head == main0.hash
    c.import_data("extra", pa.table({"x": [1]}), branch=dev)
    d = c.diff("main", dev)
    assert isinstance(d, weir.Diff) and [t.table for t in d.added] == ["default.extra"] and not d.empty
    assert d.added[0].records_after == 1 and d.removed == () and d.changed == ()
    tag = c.create_tag("before-merge", ref="main")
    assert isinstance(tag, weir.Tag) and tag.target == main0.hash and c.get_tag("before-merge") == tag
    m = c.merge(dev, into_branch="main", no_ff=True, message="merge dev")
    assert m.result == "merge" and m.commit != dev.head and [t.table for t in m.tables] == ["default.extra"]
    merge_commit = c.get_commit(m.commit)
    assert merge_commit.parents == (main0.hash, c.get_branch("dev").head) and merge_commit.message == "merge dev"
    assert c.merge("dev", into_branch="main").result == "up-to-date"
    assert c.get_tables(ref=tag) == c.get_tables(ref=main0.hash)  # a Tag is a ref too
    assert c.resolve("main~1") == main0.hash
    with pytest.raises(weir.InvalidArgument):
        c.delete_branch("main")
    c.delete_branch(dev)
    c.delete_tag(tag)
    assert [b.name for b in c.get_branches()] == ["main"] and c.get_tags() == []
    with pytest.raises(weir.InvalidArgument, match="writes at a branch head"):
        c.merge("main", into_branch=main0)  # type: ignore[arg-type]  # a Commit is not a branch


def test_merge_into_is_into_branch_and_options_are_keyword_only(titanic_client):
    # The GitLake paper's Listing 2 spells it client.merge(dev_br, into="main").
    c = titanic_client
    dev = c.create_branch("dev", from_ref="main")
    c.import_data("extra", pa.table({"x": [1]}), branch=dev)
    m = c.merge(dev, into="main")
    assert m.result == "fast-forward" and c.get_branch("main").head == c.get_branch("dev").head
    c.import_data("extra2", pa.table({"x": [1]}), branch=dev)
    assert c.merge(dev, "main").result == "fast-forward"  # into_branch stays positional
    side = c.create_branch("side", from_ref="main")
    c.import_data("extra3", pa.table({"x": [1]}), branch=dev)
    assert c.merge(dev, into=side, no_ff=True, message="m").result == "merge"
    with pytest.raises(TypeError, match="into= or into_branch="):
        c.merge(dev, into_branch="main", into="main")
    with pytest.raises(TypeError, match="into"):
        c.merge(dev, into=42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        c.merge(dev, "main", "a message")  # type: ignore[misc]  # options are keyword-only
    with pytest.raises(TypeError):
        c.run("project", "main", True)  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.revert_table("extra", "main", "main", True)  # type: ignore[misc]


def test_merge_strategy_resolves_a_conflict(titanic_client):
    c = titanic_client
    for b in ("a", "b"):
        c.create_branch(b, from_ref="main")
    # A replace keeps the table's contract unless given another (the fixture declares one).
    one = {"ir_version": 1, "name": "one", "columns": [{"name": "PassengerId", "type": "Int64"}]}
    c.import_data("titanic", pa.table({"PassengerId": [1]}), branch="a", mode="replace", contract=one)
    c.import_data("titanic", pa.table({"PassengerId": [1, 2]}), branch="b", mode="replace", contract=one)
    c.merge("a", into_branch="main")
    with pytest.raises(weir.MergeConflict) as e:
        c.merge("b", into_branch="main")
    assert [x.table for x in e.value.conflicts] == ["default.titanic"]
    m = c.merge("b", into_branch="main", strategy="source-wins")
    assert [(t.table, t.change) for t in m.tables] == [("default.titanic", "conflict: source wins")]
    assert c.query("SELECT count(*) AS n FROM titanic").column("n").to_pylist() == [2]
    with pytest.raises(weir.InvalidArgument, match="unknown merge strategy"):
        c.merge("a", into_branch="main", strategy="ours")  # type: ignore[arg-type]


def test_unmerged_branch_needs_force(titanic_client):
    c = titanic_client
    c.create_branch("wip")
    c.import_data("wip_table", pa.table({"x": [1]}), branch="wip")
    with pytest.raises(weir.WeirError) as refused:
        c.delete_branch("wip")
    assert type(refused.value) is weir.WeirError   # a refusal (exit 1), not a bad argument
    # SDK advice, not the CLI's flag (issue 15)
    assert "delete it anyway with force=True" in str(refused.value) and "--force" not in str(refused.value)
    c.delete_branch("wip", force=True)
    assert [b.name for b in c.get_branches()] == ["main"]


def test_progress_events_and_threads(titanic_client):
    events: list[dict] = []
    titanic_client.set_progress(events.append)
    titanic_client.import_data("again", TITANIC)
    titanic_client.set_progress(None)
    assert events and all(isinstance(e, dict) and "phase" in e for e in events)

    errors: list[BaseException] = []

    def reader() -> None:
        try:
            for _ in range(20):
                assert titanic_client.query("SELECT COUNT(*) AS n FROM titanic").column(0)[0].as_py() == 891
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_close_and_context_manager(weir_env, tmp_path):
    with weir.Client.init(tmp_path / "lake") as c:
        assert c.get_branches()[0].name == "main"
    with pytest.raises(weir.InvalidArgument, match="closed"):
        c.get_branches()
    c.close()  # idempotent
    # Opening by $WEIR_LAKE, as the CLI does.
    os.environ["WEIR_LAKE"] = str(tmp_path / "lake")
    try:
        with weir.Client() as c2:
            assert c2.path == str((tmp_path / "lake").resolve())
    finally:
        del os.environ["WEIR_LAKE"]


def test_library_loading(tmp_path):
    code = "import weir._ffi as f; print(f.find_library())"
    env = {**os.environ, "WEIR_LIBRARY": str(library_path())}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.stdout.strip() == str(library_path())
    env["WEIR_LIBRARY"] = str(tmp_path / "nope.so")
    r = subprocess.run([sys.executable, "-c", "import weir; weir.Client()"], capture_output=True, text=True, env=env)
    assert r.returncode != 0 and "LibraryNotFound" in r.stderr and "does not exist" in r.stderr
    assert issubclass(weir.LibraryNotFound, weir.NotFound)
    assert _ffi.load_library(library_path()) is _ffi.load_library(str(library_path()))
    # Importing weir does not need the library (discovery runs without it).
    r = subprocess.run([sys.executable, "-c", "import weir, sys; assert 'weir.client' not in sys.modules"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr


# ---- issue 15: what a new user hit -------------------------------------------------------

def test_boolean_options_must_be_bools(titanic_client):
    """`delete_branch(name, force="no")` deleted the branch: "no" is truthy. Every boolean
    option of the SDK is a real bool now, and the TypeError names the parameter; nothing
    is done."""
    c = titanic_client
    c.create_branch("wip")
    c.import_data("wip_table", pa.table({"x": [1]}), branch="wip")
    calls = [
        ("force", lambda v: c.delete_branch("wip", force=v)),
        ("no_ff", lambda v: c.merge("wip", into="main", no_ff=v)),
        ("allow_partial", lambda v: c.merge("wip", into="main", allow_partial=v)),
        ("allow_partial", lambda v: c.revert_table("titanic", source_ref="main", allow_partial=v)),
        ("allow_contract_change", lambda v: c.revert_table("titanic", source_ref="main", allow_contract_change=v)),
        ("allow_partial", lambda v: c.revert_run("nosuchrun", allow_partial=v)),
        ("allow_contract_change", lambda v: c.revert_run("nosuchrun", allow_contract_change=v)),
        ("dry_run", lambda v: c.run(PROJECT_DIR, dry_run=v)),
        ("sandbox", lambda v: c.run(PROJECT_DIR, sandbox=v)),
    ]
    before = c.get_branch("main").head
    for what, call in calls:
        for bad in ("no", 0, 1, None):
            with pytest.raises(TypeError, match=f"^{what} must be True or False, not "):
                call(bad)
    assert "wip" in [b.name for b in c.get_branches()] and c.get_branch("main").head == before
    with pytest.raises(TypeError, match="internet_access"):
        weir.python(internet_access="yes")  # type: ignore[arg-type]


def test_options_are_keyword_only(titanic_client):
    c = titanic_client
    c.create_branch("wip")
    with pytest.raises(TypeError):
        c.delete_branch("wip", True)  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.import_data("t2", pa.table({"x": [1]}), "main", "create")  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.export_query("SELECT 1 AS x", "out.csv", "csv")  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.get_commits("main", 1)  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.revert_run("r", "main", "a message")  # type: ignore[misc]
    assert [b.name for b in c.get_branches()] == ["main", "wip"]


def test_sdk_errors_give_sdk_advice(titanic_client, tmp_path):
    c = titanic_client
    with pytest.raises(weir.AlreadyExists) as e:
        c.import_data("titanic", TITANIC)
    assert 'use mode="replace" or mode="append"' in str(e.value)
    with pytest.raises(weir.NotFound) as e:
        c.import_data("x", TITANIC, branch="nope")
    assert 'create it with: create_branch("nope")' in str(e.value) and "weir branch" not in str(e.value)
    with pytest.raises(weir.NotFound) as e:
        weir.Client(lake=tmp_path / "none")
    assert f'weir.Client.init("{tmp_path / "none"}")' in str(e.value) or "weir.Client.init(" in str(e.value)
    assert weir.errors.sdk_advice("pass --retry N to plan again") == "pass retries=N to plan again"


SLOW_SQL = ("-- weir: name=s\n"
            "SELECT count(*) AS n FROM range(1000000000000) a, titanic t\n"
            "WHERE t.PassengerId = 1 AND a.range % 7 = 3\n")


def slow_project(tmp_path: pathlib.Path) -> pathlib.Path:
    proj = tmp_path / "slow"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("name: slow\n")
    (proj / "s.sql").write_text(SLOW_SQL)
    return proj


def test_interrupt_stops_a_run_from_another_thread(titanic_client, tmp_path):
    """Client.interrupt() (documented, missing before) binds weir_lake_interrupt. The
    hand-off: the run's "query" progress event, sent when the SQL statement starts."""
    c = titanic_client
    before = c.get_branch("main").head
    started = threading.Event()
    c.set_progress(lambda e: started.set() if e.get("phase") == "query" else None)
    stopper = threading.Thread(target=lambda: (started.wait(120), c.interrupt()))
    stopper.start()
    state = c.run(slow_project(tmp_path))
    stopper.join()
    assert started.is_set()
    assert not state.success() and state.status == "failed"
    assert state.error is not None and state.error.code == "Interrupted", state.error
    assert c.get_branch("main").head == before
    assert c.query("SELECT count(*) AS n FROM titanic").to_pylist() == [{"n": 891}]  # the client goes on
    c.interrupt()  # no run: nothing happens, and the next run is not affected
    assert c.run(PROJECT_DIR).success()


def test_run_timeout(titanic_client, tmp_path):
    c = titanic_client
    state = c.run(slow_project(tmp_path), timeout="300ms")
    assert state.status == "failed" and state.error is not None and state.error.code == "ModelError"
    assert "ran past its timeout of 0.3s" in state.error.message
    with pytest.raises(weir.InvalidArgument, match="positive"):
        c.run(PROJECT_DIR, timeout=0)
    with pytest.raises(TypeError, match="timeout"):
        c.run(PROJECT_DIR, timeout=True)  # type: ignore[arg-type]


CTRL_C = """
import json, os, sys
import weir
c = weir.Client(lake=sys.argv[1])
def progress(e):
    if e.get("phase") == "query":
        print("started", flush=True)   # the hand-off: the parent sends SIGINT now
c.set_progress(progress)
try:
    c.run(sys.argv[2])
except KeyboardInterrupt as e:
    run = c.get_runs()[0]
    print(json.dumps({"raised": str(e), "status": run.status, "code": run.error.code if run.error else None}))
    sys.exit(0)
print(json.dumps({"raised": None}))
"""


def test_ctrl_c_interrupts_client_run_and_raises_keyboard_interrupt(titanic_client, tmp_path):
    """A SIGINT during Client.run() in the main thread stops the run (recorded as
    interrupted) and then raises KeyboardInterrupt. Before, the signal waited for the run
    to end (for hours here; the watchdog fails the test then)."""
    import json
    import signal

    c = titanic_client
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C)
    p = subprocess.Popen([sys.executable, str(script), c.path, str(slow_project(tmp_path))],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONPATH=str(pathlib.Path(weir.__file__).parents[1])))
    watchdog = threading.Timer(120, p.kill)
    watchdog.start()
    try:
        assert p.stdout is not None
        assert p.stdout.readline() == "started\n"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate()
    finally:
        watchdog.cancel()
    assert p.returncode == 0, err
    doc = json.loads(out)
    assert doc["raised"].startswith("run ") and "interrupted" in doc["raised"], doc
    assert doc["status"] == "failed" and doc["code"] == "Interrupted", doc
def test_merge_combines_appends_on_both_sides(client):
    """Client.merge: a table both sides only appended to keeps both sides' rows (issue 16)."""
    import pyarrow as pa

    client.import_data("events", pa.table({"id": pa.array([1, 2], pa.int64())}))
    client.create_branch("feed")
    client.import_data("events", pa.table({"id": pa.array([3], pa.int64())}), mode="append", branch="feed")
    client.import_data("events", pa.table({"id": pa.array([4], pa.int64())}), mode="append")
    m = client.merge("feed", into="main")
    assert m.result == "merge"
    assert [(t.table, t.change) for t in m.tables] == [("default.events", "merged: appends")]
    assert sorted(client.query("SELECT id FROM events").column("id").to_pylist()) == [1, 2, 3, 4]
    assert client.get_commit("main").properties == {"merged_appends": "default.events"}


def test_contract_diff_classifies_and_names_readers(titanic_client, tmp_path):
    """Client.contract_diff: the SDK equivalent of `weir contract diff` (issue 16)."""
    import weir

    class Old(weir.TableSchema):
        id: weir.Int64
        x: weir.Int64

    class New(weir.TableSchema):
        id: weir.Int64

    d = titanic_client.contract_diff(Old, New)
    assert d.breaking and d.breaks_consumers and not d.version_ok
    assert [(c.change, c.column, c.breaks) for c in d.changes] == [("column_dropped", "x", ("consumers",)),
                                                                  ("docs_changed", None, ())]  # the name
    assert titanic_client.contract_diff(Old, Old).changes == ()
    titanic_client.import_data("plain", TITANIC)
    with pytest.raises(weir.NotFound):
        titanic_client.contract_diff("plain@main", New)  # imported without a contract


def test_table_management_and_namespaces_through_the_client(client):
    """drop_table, rename_table and namespaces in the SDK (issue 13: "all in the SDK"), and
    a table's history across its rename (get_commits(table=))."""
    t = pa.table({"x": pa.array([1, 2], pa.int64())})
    client.import_data("t", t, message="make t")
    client.import_data("t", t, mode="append", message="more t")
    renamed = client.rename_table("t", "raw.u")
    assert isinstance(renamed, weir.TableRenamed)
    assert (renamed.table, renamed.new_name, renamed.branch) == ("default.t", "raw.u", "main")
    assert renamed.commit == client.resolve("main")
    assert [c.message for c in client.get_commits(table="raw.u")] == [
        "rename table default.t to raw.u", "more t", "make t"]
    assert [c.message for c in client.get_commits(table="raw.u", limit=1)] == ["rename table default.t to raw.u"]
    with pytest.raises(weir.NotFound, match="no history"):
        client.get_commits(table="nowhere")
    with pytest.raises(TypeError):
        client.get_commits(table=3)  # type: ignore[arg-type]
    client.create_namespace("staging")
    assert [(n.name, n.created, n.tables) for n in client.get_namespaces()] == [
        ("default", False, 0), ("raw", False, 1), ("staging", True, 0)]
    with pytest.raises(weir.AlreadyExists):
        client.create_namespace("staging")
    with pytest.raises(weir.InvalidName):
        client.create_namespace("bad name")
    client.drop_namespace("staging")
    assert "staging" not in [n.name for n in client.get_namespaces()]
    # namespaces are versioned: one created on a branch is absent on main until merged
    client.create_branch("nsdev", from_ref="main")
    client.create_namespace("lab", branch="nsdev")
    assert "lab" in [n.name for n in client.get_namespaces(ref="nsdev")]
    assert "lab" not in [n.name for n in client.get_namespaces()]
    made = client.get_commits(ref="nsdev", limit=1)[0]
    assert made.message == "create namespace lab" and made.tables_changed == ()
    assert made.namespaces_changed == (weir.NamespaceChange(namespace="lab", change="added"),)
    client.create_branch("nsmerge", from_ref="nsdev")
    merged = client.merge("nsmerge", into_branch="main")
    assert merged.namespaces == (weir.NamespaceChange(namespace="lab", change="added"),) and merged.tables == ()
    assert "lab" in [n.name for n in client.get_namespaces()]
    client.drop_namespace("lab", branch="nsdev")
    assert "lab" not in [n.name for n in client.get_namespaces(ref="nsdev")]
    assert "lab" in [n.name for n in client.get_namespaces(ref="nsdev~1")]
    with pytest.raises(weir.NotFound):
        client.drop_namespace("lab", branch="nsdev")
    with pytest.raises(weir.ConcurrentUpdate, match="namespace lab changed"):
        client.create_namespace("lab", branch="nsdev", expect_head="nsdev~1")
    client.drop_namespace("lab")  # main's, which the merge brought
    client.import_data("raw.v", t)
    with pytest.raises(weir.AlreadyExists):
        client.rename_table("raw.u", "RAW.V")  # taken, case-insensitively
    dropped = client.drop_table("raw.u")
    assert isinstance(dropped, weir.TableDropped) and dropped.table == "raw.u"
    assert [s.table for s in client.get_tables()] == ["raw.v"]
    assert client.get_commits(table="raw.u")[0].hash == dropped.commit  # the drop is in its history
    with pytest.raises(weir.NotFound):
        client.drop_table("raw.u")
