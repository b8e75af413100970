"""Pipelines: planning catches what it can before data is read, runs are transactional,
and the four failure modes of the contracts paper are each caught at the earliest stage
the spec allows, with their exact messages."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from conftest import GATED_MODEL, ROOT, TITANIC, count, release, start_weir, weir, weir_json, weir_list

pytestmark = pytest.mark.cli

EXAMPLE = ROOT / "examples" / "titanic" / "project"


def project(tmp_path, edits: dict[str, list[tuple[str, str]]] | None = None, extra: dict[str, str] | None = None):
    """A copy of the example project with text replacements applied per file."""
    dst = tmp_path / "proj"
    shutil.copytree(EXAMPLE, dst, ignore=shutil.ignore_patterns("__pycache__"))
    for name, subs in (edits or {}).items():
        path = dst / name
        text = path.read_text()
        for old, new in subs:
            assert old in text, f"{old!r} not in {name}"
            text = text.replace(old, new)
        path.write_text(text)
    for name, text in (extra or {}).items():
        (dst / name).write_text(text)
    return dst


# h reads g through its own projection schema, so that g's declared output can change
# under it (with one shared class, both sides would change together).
H_INPUT = [
    ("@weir.model(materialization=\"REPLACE\")\n@weir.python(\"3.11\", pip={\"polars\": \"1.*\"})\ndef h(",
     "class FromG(TableSchema):\n"
     "    pid: Int64\n    tclass: Int64\n    Cabin: String | None\n    mean_fare: Float64\n\n\n"
     "@weir.model(materialization=\"REPLACE\")\n@weir.python(\"3.11\", pip={\"polars\": \"1.*\"})\ndef h("),
    ('g_data: Annotated[Table[CabinCostAnalysis], Model("g")]', 'g_data: Annotated[Table[FromG], Model("g")]'),
]


def head(lake, ref="main"):
    return weir_json("show", ref, lake=lake)["hash"]


def test_example_runs_and_publishes_docs_and_lineage(titanic_lake):
    lake = titanic_lake
    before = head(lake)
    r = weir("run", EXAMPLE, lake=lake)
    assert r.returncode == 0, r.stderr
    tables = {t["table"]: t["record_count"] for t in weir_list("tables", lake=lake)}
    assert tables == {"default.titanic": 891, "default.f": 170, "default.g": 593, "default.h": 80,
                      "default.fare_sum": 1}
    assert count(lake, "SELECT fare_total FROM fare_sum") == 11646
    h = weir_json("describe", "h", lake=lake)
    cols = {c["name"]: c for c in h["columns"]}
    assert cols["tclass"]["lineage"] == ["WomenByClass.tclass"]
    assert cols["pid"]["doc"] == "Passenger id"
    assert h["comment"] == "Expensive cabins reserved by or for working-age women."
    assert h["contract"]["name"] == "ExpensiveWomenCabins"
    f = weir_json("describe", "f", lake=lake)
    assert f["comment"] == "Women passengers holding 1st or 2nd class tickets."
    assert {c["name"]: c["required"] for c in f["columns"]} == {"pid": True, "tclass": True, "Fare": True}
    # All outputs appeared at once: main moved from `before` to the result commit, and
    # the commit before the run still reads the old lake.
    runs = weir_list("runs", lake=lake)
    assert runs[0]["status"] == "succeeded" and runs[0]["base_commit"] == before
    assert head(lake) == runs[0]["result_commit"]
    assert [t["table"] for t in weir_list("tables", "--ref", before, lake=lake)] == ["default.titanic"]
    assert "run/" + runs[0]["run_id"] not in [b["name"] for b in weir_list("branch", lake=lake)]
    # Snapshot summaries carry the run and model.
    assert h["snapshot_summary"]["weir.run-id"] == runs[0]["run_id"]
    assert h["snapshot_summary"]["weir.model"] == "h"


def test_failing_model_leaves_target_unchanged_and_keeps_run_branch(titanic_lake, tmp_path):
    lake = titanic_lake
    # f now lets 3rd class through, but its schema's enum allows 1st and 2nd only.
    proj = project(tmp_path, {"f.sql": [("Pclass IN (1, 2)", "Pclass IN (1, 2, 3)")]})
    before = head(lake)
    r = weir("run", proj, lake=lake)
    assert r.returncode == 3, r.stderr
    assert "contract violation in model f (output, schema WomenByClass):" in r.stderr
    assert re.search(r'column "tclass" has 144 values outside the enum \[1, 2\] \(e\.g\. 3\)', r.stderr), r.stderr
    assert head(lake) == before
    run = weir_list("runs", lake=lake)[0]
    assert run["status"] == "failed"
    assert "run/" + run["run_id"] in [b["name"] for b in weir_list("branch", lake=lake)]
    shown = weir("runs", "show", run["run_id"], lake=lake)
    assert shown.returncode == 0
    assert "f" in shown.stdout and "failed" in shown.stdout
    assert 'outside the enum [1, 2]' in shown.stdout
    doc = weir_json("runs", "show", run["run_id"], lake=lake)
    assert doc["error"]["model"] == "f"
    assert doc["models"][0]["violations"][0]["kind"] == "enum"


# ---- the four failure modes ------------------------------------------------------------

def test_dropped_column_in_declared_output_fails_check_before_reading_data(titanic_lake, tmp_path):
    # g's declared output no longer has tclass, which h reads through CabinCostAnalysis'
    # projection (stage 2: planning).
    proj = project(tmp_path, {"models.py": H_INPUT + [
        ('    tclass: Annotated[Int64, TableField(doc="Ticket class: 1, 2 or 3", lineage=CabinCostSource["Pclass"])]\n', ""),
        ('            pl.col("Pclass").alias("tclass"),\n', ""),
    ]})
    before = head(titanic_lake)
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert re.search(r'models\.py:\d+: model h: input g_data \(schema FromG\) reads column "tclass", which model g '
                     r'\(output schema CabinCostAnalysis\) does not declare', r.stderr), r.stderr
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 3
    assert weir_list("runs", lake=titanic_lake) == []      # no run, no branch: nothing written
    assert head(titanic_lake) == before


def test_dropped_column_in_implementation_fails_at_runtime(titanic_lake, tmp_path):
    # The contract still declares tclass but g's code drops it (stage 3: the worker).
    proj = project(tmp_path, {"models.py": [('            pl.col("Pclass").alias("tclass"),\n', "")]})
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert "contract violation in model g (output, schema CabinCostAnalysis):" in r.stderr
    assert '  - missing column "tclass" (expected int64)' in r.stderr


def test_nulls_in_required_column_fail_at_runtime(titanic_lake, tmp_path):
    # g declares Cabin required but working-age adults without a cabin produce nulls.
    proj = project(tmp_path, {"models.py": [
        ('    Cabin: Annotated[String | None, TableField(doc="Cabin number; null when unknown",\n'
         '                                               lineage=CabinCostSource["Cabin"])]',
         '    Cabin: Annotated[String, TableField(doc="Cabin number; null when unknown",\n'
         '                                        lineage=CabinCostSource["Cabin"])]')]})
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert re.search(r'  - column "Cabin" has \d+ null values but is required \(rows \d+, \d+, \d+, \.\.\.\)', r.stderr), r.stderr


def test_type_change_in_declared_output_fails_check(titanic_lake, tmp_path):
    # g declares tclass a String while h still reads it as Int64 (stage 2).
    proj = project(tmp_path, {"models.py": H_INPUT + [
        ('    tclass: Annotated[Int64, TableField(doc="Ticket class: 1, 2 or 3", lineage=CabinCostSource["Pclass"])]',
         '    tclass: Annotated[String, TableField(doc="Ticket class: 1, 2 or 3", lineage=CabinCostSource["Pclass"])]'),
        ('            pl.col("Pclass").alias("tclass"),', '            pl.col("Pclass").cast(pl.String).alias("tclass"),'),
    ]})
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert ('input g_data (schema FromG): column "tclass" is large_string in model g (output schema '
            'CabinCostAnalysis), expected int64 (only widening casts compose)') in r.stderr, r.stderr


def test_type_change_in_implementation_fails_at_runtime(titanic_lake, tmp_path):
    # The contract still says Int64, g's code produces strings (stage 3).
    proj = project(tmp_path, {"models.py": [
        ('            pl.col("Pclass").alias("tclass"),', '            pl.col("Pclass").cast(pl.String).alias("tclass"),')]})
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert re.search(r'  - column "tclass" has type (large_string|string_view|string), expected int64', r.stderr), r.stderr


def test_sql_result_type_checked_at_plan_time(titanic_lake, tmp_path):
    # f's query returns Pclass (int64) as tclass, but a YAML contract declares a String.
    proj = project(tmp_path, {"f.sql": [("output_schema=WomenByClass", "output_schema=f_strings")]},
                   extra={})
    (proj / "contracts" / "f.yml").write_text(
        "contract:\n  name: f_strings\n  columns:\n    - {name: pid, type: Int64}\n"
        "    - {name: tclass, type: String}\n    - {name: Fare, type: Float64}\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert 'f.sql:3: model f: column "tclass" is int64 in the query, expected large_string (output schema f_strings' in r.stderr


def test_shifting_semantics_disambiguated_by_lineage(titanic_lake, tmp_path):
    # h's tclass comes from f (filtered to 1st/2nd class), not from g (all classes): the
    # lineage says so, in the table's Iceberg metadata...
    r = weir("run", EXAMPLE, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    from pyiceberg.table import StaticTable

    meta = weir_json("describe", "h", lake=titanic_lake)["metadata_location"]
    props = StaticTable.from_metadata(meta).properties
    assert json.loads(props["weir.lineage"])["tclass"] == ["WomenByClass.tclass"]
    # ...and a lineage reference to a column that does not exist fails when the class is
    # defined (stage 1), which `weir check` reports with file and line.
    proj = project(tmp_path, {"models.py": [('lineage=WomenByClass["tclass"]', 'lineage=WomenByClass["klass"]')]})
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert re.search(r"models\.py:\d+: .*klass", r.stderr), r.stderr


# ---- planning ---------------------------------------------------------------------------

def test_plan_reports_every_problem_with_file_and_line(titanic_lake, tmp_path):
    proj = tmp_path / "bad"
    proj.mkdir()
    (proj / "a.sql").write_text("-- weir: name=a\nSELECT * FROM b\n")
    (proj / "b.sql").write_text("-- weir: name=b\nSELECT * FROM a\n")
    (proj / "c.sql").write_text("-- weir: materialisation=REPLACE\nSELECT 1 AS x\n")
    (proj / "d.sql").write_text("-- weir: name=d\nSELECT * FROM nowhere\n")
    (proj / "e.sql").write_text("-- weir: name=d\nSELECT 1 AS y\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3
    problems = json.loads(r.stdout)["error"]["details"]
    msgs = "\n".join(p["message"] for p in problems)
    assert "c.sql:1: unknown weir header key \"materialisation\"" in msgs
    assert "model d reads nowhere, which is neither a model of the project nor a table" in msgs
    assert 'model "d" is defined twice' in msgs
    assert "the models form a cycle: a -> b -> a" in msgs or "the models form a cycle: b -> a -> b" in msgs
    assert all(p["file"] for p in problems)


def test_a_header_line_missing_its_colon_is_a_problem(titanic_lake, tmp_path):
    """`-- weir name=f` was read as a plain comment: the model silently took its file's
    name (and `-- weir materialization=APPEND` silently replaced). A comment that merely
    starts with the word stays a comment."""
    proj = tmp_path / "colon"
    proj.mkdir()
    (proj / "a.sql").write_text("-- weir name=f\nSELECT 1 AS x\n")
    (proj / "b.sql").write_text("-- weir: name=g\n--  weir materialization = APPEND\nSELECT 1 AS x\n")
    (proj / "c.sql").write_text("-- weir :name=h\nSELECT 1 AS x\n")
    (proj / "ok.sql").write_text("-- weir computes x = 1 here\n-- weirdly = fine\nSELECT 1 AS x\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    msgs = sorted(p["message"] for p in json.loads(r.stdout)["error"]["details"])
    assert msgs == [
        'a.sql:1: "-- weir name=f" reads as a weir header missing its colon (write -- weir: key=value; '
        'a plain comment must not start with "weir key=")',
        'b.sql:2: "--  weir materialization = APPEND" reads as a weir header missing its colon (write -- '
        'weir: key=value; a plain comment must not start with "weir key=")',
        'c.sql:1: "-- weir :name=h" reads as a weir header missing its colon (write -- weir: key=value; '
        'a plain comment must not start with "weir key=")',
    ], msgs


def test_a_header_line_below_the_sql_is_a_problem(titanic_lake, tmp_path):
    """A `-- weir:` line after the first line of SQL was silently a comment: the model
    stayed REPLACE though the line said APPEND. A `-- weir:` text after SQL on the same
    line is an ordinary trailing comment."""
    proj = tmp_path / "late"
    proj.mkdir()
    (proj / "late.sql").write_text("SELECT 1 AS x\n\n  -- weir: materialization=APPEND\n")
    (proj / "ok.sql").write_text("-- weir: name=ok\nSELECT 1 AS y -- weir: said after SQL on its line\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    problems = json.loads(r.stdout)["error"]["details"]
    assert [(p["file"], p["line"], p["message"]) for p in problems] == [
        ("late.sql", 3, 'late.sql:3: "-- weir: materialization=APPEND" comes after the SQL begins (line 1): '
         "a weir header must be above the first line of SQL"),
    ], problems


def test_every_cycle_is_reported(titanic_lake, tmp_path):
    # Only the first cycle found used to be reported.
    proj = tmp_path / "cycles"
    proj.mkdir()
    for name, reads in (("a", "b"), ("b", "a"), ("c", "d"), ("d", "c"), ("e", "a")):
        (proj / f"{name}.sql").write_text(f"-- weir: name={name}\nSELECT * FROM {reads}\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3
    msgs = sorted(p["message"] for p in json.loads(r.stdout)["error"]["details"] if "cycle" in p["message"])
    assert len(msgs) == 2, msgs
    assert msgs[0] in ("the models form a cycle: a -> b -> a", "the models form a cycle: b -> a -> b")
    assert msgs[1] in ("the models form a cycle: c -> d -> c", "the models form a cycle: d -> c -> d")


def test_a_model_with_a_problem_is_not_reported_again_as_a_missing_input(titanic_lake, tmp_path):
    proj = tmp_path / "cascade"
    proj.mkdir()
    (proj / "m1.sql").write_text("-- weir: materialisation=REPLACE\nSELECT 1 AS x\n")
    (proj / "m2.sql").write_text("SELECT * FROM m1\n")
    (proj / "p.py").write_text("import weir\n\n@weir.model()\ndef p1(\n")
    (proj / "m3.sql").write_text("SELECT * FROM p1\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3
    msgs = [p["message"] for p in json.loads(r.stdout)["error"]["details"]]
    assert not any("reads m1" in m for m in msgs), msgs
    assert any(m.startswith('m1.sql:1: unknown weir header key "materialisation"') for m in msgs), msgs
    # p.py did not load and may define p1: m3's read of it is a note, not a problem (issue 15:
    # one mistake is reported once).
    assert not any("reads p1" in m for m in msgs), msgs
    r = weir("check", proj, lake=titanic_lake)
    assert ("m3.sql:1: model m3 reads p1, which is neither a model of the project nor a table at commit" in r.stderr
            and "(not a problem of its own: p.py, which did not load, may define it; checked once it loads)"
            in r.stderr), r.stderr


def test_unknown_output_schema(titanic_lake, tmp_path):
    proj = project(tmp_path, {"f.sql": [("output_schema=WomenByClass", "output_schema=Nope")]})
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3
    assert 'f.sql:3: model f: output schema "Nope" is not defined' in r.stderr


# ---- aborted work and reverts ---------------------------------------------------------

def test_work_of_a_failed_run_cannot_be_merged_without_allow_partial(titanic_lake, tmp_path):
    lake = titanic_lake
    proj = project(tmp_path, {"models.py": [('            pl.col("Pclass").alias("tclass"),\n', "")]})
    r = weir("run", proj, lake=lake)          # f succeeds on run/<id>, g fails
    assert r.returncode == 3
    run = weir_list("runs", lake=lake)[0]
    # Someone branches from the failed run's branch and tries to publish it.
    assert weir("branch", "create", "fix", "--from", "run/" + run["run_id"], lake=lake).returncode == 0
    r = weir("merge", "fix", "--into", "main", lake=lake)
    assert r.returncode == 1, r.stderr
    assert run["run_id"] in r.stderr and "default.f" in r.stderr
    assert "--allow-partial" in r.stderr
    assert weir("merge", "fix", "--into", "main", "--allow-partial", lake=lake).returncode == 0
    assert count(lake, "SELECT count(*) FROM f") == 170


def test_reverting_to_a_failed_runs_version_needs_allow_partial(titanic_lake, tmp_path):
    # A revert to the failed run's commit published its work where a merge would not.
    lake = titanic_lake
    proj = project(tmp_path, {"models.py": [('            pl.col("Pclass").alias("tclass"),\n', "")]})
    assert weir("run", proj, lake=lake).returncode == 3          # f committed on run/<id>, g failed
    run = weir_list("runs", lake=lake)[0]
    before = head(lake)
    r = weir("revert", "f", "--to", "run/" + run["run_id"], lake=lake)
    assert r.returncode == 1, r.stderr
    assert (f"table default.f at run/{run['run_id']} was written by run {run['run_id']} (failed): "
            "reverting to it would publish the work of a run that did not succeed") in r.stderr
    assert head(lake) == before
    r = weir("revert", "f", "--to", "run/" + run["run_id"], "--allow-partial", lake=lake)
    assert r.returncode == 0, r.stderr
    assert count(lake, "SELECT count(*) FROM f") == 170


def test_revert_a_run_and_refuse_partial_revert(titanic_lake):
    lake = titanic_lake
    before = head(lake)
    assert weir("run", EXAMPLE, lake=lake).returncode == 0
    run = weir_list("runs", lake=lake)[0]
    r = weir("revert", "h", "--to", before, lake=lake)
    assert r.returncode == 1
    assert run["run_id"] in r.stderr and "default.f" in r.stderr
    r = weir("revert", "--run", run["run_id"], lake=lake)
    assert r.returncode == 0, r.stderr
    assert [t["table"] for t in weir_list("tables", lake=lake)] == ["default.titanic"]
    assert weir("revert", "h", "--to", run["result_commit"], "--allow-partial", lake=lake).returncode == 0
    assert count(lake, "SELECT count(*) FROM h") == 80


def test_dry_run_writes_nothing(titanic_lake):
    before = head(titanic_lake)
    plan = weir_json("run", EXAMPLE, "--dry-run", lake=titanic_lake)
    assert [m["name"] for m in plan["models"]] == ["f", "fare_sum", "g", "h"]
    assert head(titanic_lake) == before and weir_list("runs", lake=titanic_lake) == []
    # The text output lists the plan too (it used to print "plan (0 models ...").
    r = weir("run", EXAMPLE, "--dry-run", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:2] == ["plan (4 models, in execution order):",
                                         "  1. f (sql) <- default.titanic -> WomenByClass"]


def test_append_materialization(titanic_lake, tmp_path):
    proj = tmp_path / "app"
    proj.mkdir()
    (proj / "daily.sql").write_text("-- weir: materialization=APPEND\nSELECT count(*) AS n FROM titanic\n")
    for _ in range(3):
        assert weir("run", proj, lake=titanic_lake).returncode == 0
    assert count(titanic_lake, "SELECT count(*) FROM daily") == 3


# ---- a run while others write to the target --------------------------------------------

def test_run_merges_three_way_when_target_moved(titanic_lake, tmp_path):
    proj = tmp_path / "slow"
    proj.mkdir()
    (proj / "models.py").write_text(GATED_MODEL)
    p = start_weir("run", proj, lake=titanic_lake, until="model slow")
    assert weir("import", TITANIC, "--table", "meanwhile", lake=titanic_lake).returncode == 0
    release(proj)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    tables = [t["table"] for t in weir_list("tables", lake=titanic_lake)]
    assert tables == ["default.meanwhile", "default.slow", "default.titanic"]
    assert len(weir_json("show", "main", lake=titanic_lake)["parents"]) == 2


def test_run_conflicting_with_target_fails_with_exit_4(titanic_lake, tmp_path):
    proj = tmp_path / "slow"
    proj.mkdir()
    (proj / "models.py").write_text(GATED_MODEL)
    p = start_weir("run", proj, lake=titanic_lake, until="model slow")
    # Someone writes the table the run is about to publish.
    assert weir("import", TITANIC, "--table", "slow", lake=titanic_lake).returncode == 0
    theirs = weir_json("describe", "slow", lake=titanic_lake)["metadata_location"]
    release(proj)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 4, err
    assert "default.slow" in err
    assert weir_json("describe", "slow", lake=titanic_lake)["metadata_location"] == theirs
    run = weir_list("runs", lake=titanic_lake)[0]
    assert run["status"] == "failed"


def test_project_python_environment_is_the_default_for_models(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "weir_project.yml").write_text('name: p\npython:\n  version: "3.11"\n  pip: {polars: "1.*"}\n')
    (proj / "models.py").write_text(
        "from typing import Annotated\nimport pyarrow as pa\nimport weir\nfrom weir import Model\n\n"
        "@weir.model()\ndef m(src: Annotated[pa.Table, Model('titanic')]) -> pa.Table:\n"
        "    \"\"\"Passes titanic through.\"\"\"\n    return src\n")
    plan = weir_json("check", proj, lake=titanic_lake)
    assert plan["models"][0]["python"] == {"version": "3.11", "pip": {"polars": "1.*"}}
    (proj / "weir_project.yml").write_text("name: p\npython: [3.11]\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3 and "weir_project.yml:2: python: expected" in r.stderr


def sleepy_project(proj, seconds: int):
    """A project of a SQL model `first` and a Python model `slow` that sleeps `seconds`:
    a run that can be caught in the middle."""
    proj.mkdir()
    (proj / "first.sql").write_text("SELECT PassengerId FROM titanic\n")
    (proj / "models.py").write_text(
        "import time\nfrom typing import Annotated\n\nimport pyarrow as pa\n\nimport weir\n"
        "from weir import Model\n\n\n"
        "@weir.model()\n"
        "def slow(first: Annotated[pa.Table, Model(\"first\")]) -> pa.Table:\n"
        f"    time.sleep({seconds})\n"
        "    return first\n")
    return proj


def test_a_run_whose_process_was_killed_shows_as_interrupted(titanic_lake, tmp_path):
    # A SIGKILLed run used to stay "running" forever.
    import signal

    proj = sleepy_project(tmp_path / "slow", seconds=120)
    p = start_weir("run", proj, lake=titanic_lake, until="done first")  # first is on run/<id>
    try:
        run = weir_list("runs", lake=titanic_lake)[0]
        assert run["status"] == "running"
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    run = weir_json("runs", "show", run["run_id"], lake=titanic_lake)
    assert run["status"] == "interrupted"
    assert run["error"]["code"] == "Interrupted"
    assert "ended before the run finished" in run["error"]["message"]
    assert [t["table"] for t in weir_list("tables", lake=titanic_lake)] == ["default.titanic"]
    r = weir("merge", "run/" + run["run_id"], "--into", "main", lake=titanic_lake)
    assert r.returncode == 1 and "--allow-partial" in r.stderr
    r = weir("branch", "delete", "run/" + run["run_id"], lake=titanic_lake)
    assert r.returncode == 1 and "delete it with --force when you are done with it" in r.stderr
    assert weir("branch", "delete", "run/" + run["run_id"], "--force", lake=titanic_lake).returncode == 0


@pytest.mark.parametrize("body, message", [
    ('pa.table([[1], [2]], names=["a", "a"])', 'the output of model m: column "a" appears twice (columns 1 and 2)'),
    ('pa.table({"": [1]})', "the output of model m: column 1 has an empty name"),
])
def test_a_python_model_returning_bad_column_names_is_told_so(titanic_lake, tmp_path, body, message):
    # Duplicates were reported as 'unknown column "a"', an empty name as a Parquet parser error.
    proj = tmp_path / "names"
    proj.mkdir()
    (proj / "models.py").write_text(
        "from typing import Annotated\n\nimport pyarrow as pa\n\nimport weir\nfrom weir import Model\n\n\n"
        "@weir.model()\n"
        "def m(t: Annotated[pa.Table, Model(\"titanic\")]) -> pa.Table:\n"
        f"    return {body}\n")
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 1, r.stderr
    assert message in r.stdout + r.stderr


def test_a_model_without_output_schema_is_held_to_the_tables_stored_contract(titanic_lake, tmp_path):
    # A second project's f (no output schema) replaced default.f, contract and columns gone.
    assert weir("run", EXAMPLE, lake=titanic_lake).returncode == 0
    proj = tmp_path / "other"
    proj.mkdir()
    (proj / "f.sql").write_text("SELECT PassengerId, Name FROM titanic\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3, r.stdout
    doc = json.loads(r.stdout)["error"]
    msgs = [d["message"] for d in doc["details"]]
    assert any('the query returns no column "pid" (output schema WomenByClass declares it' in m for m in msgs), msgs
    r = weir("check", proj, lake=titanic_lake)
    assert ("model f declares no output schema; it replaces default.f, which stores contract WomenByClass: "
            "its output is held to that contract") in r.stdout + r.stderr
    # Writing what the contract says is fine, and the contract stays with the table.
    (proj / "f.sql").write_text("SELECT PassengerId AS pid, 1 AS tclass, Fare FROM titanic LIMIT 3\n")
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 0, r.stdout + r.stderr
    assert weir_json("describe", "f", lake=titanic_lake)["contract"]["name"] == "WomenByClass"


def test_a_run_beaten_to_the_branch_by_another_says_so(titanic_lake, tmp_path):
    # The second of two concurrent runs failed at publishing with only "merge conflict".
    import subprocess

    # Two copies of one project, each model gated by its own go file: both runs are inside
    # model slow before either publishes; the first is let go, then the second.
    one, two = tmp_path / "one", tmp_path / "two"
    for proj in (one, two):
        proj.mkdir()
        (proj / "models.py").write_text(GATED_MODEL)
    p = start_weir("run", one, lake=titanic_lake, until="model slow")
    q = start_weir("run", two, lake=titanic_lake, until="model slow")
    release(one)
    p.communicate(timeout=120)
    release(two)
    _, second_err = q.communicate(timeout=120)
    second = subprocess.CompletedProcess(q.args, q.returncode, "", q.stderr_head + second_err)
    assert p.returncode == 0
    first_id = [r for r in weir_list("runs", lake=titanic_lake) if r["status"] == "succeeded"][0]["run_id"]
    assert second.returncode == 4, second.stderr
    assert "while this run ran (run " + first_id + " published to it): run the project again" in second.stderr


def test_enums_compose_at_plan_time(titanic_lake, tmp_path):
    # An upstream enum that admits a value a downstream fail-mode enum refuses was caught
    # only when the data arrived.
    proj = tmp_path / "enums"
    (proj / "contracts").mkdir(parents=True)
    (proj / "contracts" / "up.yml").write_text(
        "contract:\n  name: Up\n  columns:\n    - {name: sex, type: String, enum: [female, male, unknown]}\n")
    (proj / "up.sql").write_text("-- weir: output_schema=Up\nSELECT Sex AS sex FROM titanic\n")
    (proj / "models.py").write_text(
        "from typing import Annotated\n\nimport pyarrow as pa\n\nimport weir\n"
        "from weir import Enum, Model, String, Table, TableSchema\n\n\n"
        "class SexIn(TableSchema):\n"
        "    sex: Annotated[String, Enum([\"female\", \"male\"])]\n\n\n"
        "@weir.model()\n"
        "def sexes(t: Annotated[Table[SexIn], Model(\"up\")]) -> pa.Table:\n"
        "    return t\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stdout + r.stderr
    assert ('input t (schema SexIn): column "sex" allows ["female","male"], but model up (output schema Up) '
            'may produce ["unknown"] (its enum admits them)') in r.stderr
    # The same enum on both sides composes.
    (proj / "contracts" / "up.yml").write_text(
        "contract:\n  name: Up\n  columns:\n    - {name: sex, type: String, enum: [female, male]}\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 0, r.stdout + r.stderr


def test_model_columns_reads_only_those_columns(titanic_lake, tmp_path):
    # The original SDK's projection, Model("t", columns=[...]): unchecked, but only those.
    proj = tmp_path / "cols"
    proj.mkdir()
    (proj / "m.py").write_text(
        "import weir\n\n\n"
        "@weir.model()\n"
        "def pick(rows=weir.Model('titanic', columns=['Fare', 'PassengerId'], filter='Pclass = 1')):  # noqa\n"
        "    return rows\n")
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    described = weir_json("describe", "pick", lake=titanic_lake)
    assert [c["name"] for c in described["columns"]] == ["Fare", "PassengerId"]
    assert count(titanic_lake, "SELECT count(*) FROM pick") == 216
    # A column the table does not have is a plan problem.
    (proj / "m.py").write_text((proj / "m.py").read_text().replace("'Fare'", "'Fair'"))
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3
    assert ('m.py:5: model pick: input rows reads column "Fair", which table default.titanic does not have'
            in r.stderr), r.stderr


def test_a_sql_models_double_result_is_cast_exactly_when_the_contract_says_so(titanic_lake, tmp_path):
    proj = tmp_path / "exact"
    (proj / "contracts").mkdir(parents=True)
    (proj / "total.sql").write_text("-- weir: output_schema=Total\n"
                                    "SELECT ceil(sum(Fare)) AS fare_total, count(*) AS n FROM titanic\n")
    contract = ("contract:\n  name: Total\n  columns:\n"
                "    - {name: fare_total, type: Int64, cast: exact}\n"
                "    - {name: n, type: Int64}\n")
    (proj / "contracts" / "total.yml").write_text(contract)
    plan = weir_json("check", proj, lake=titanic_lake)
    assert plan["models"][0]["exact_casts"] == [{"column": "fare_total", "from": "double", "to": "int64",
                                                 "input": None}]
    human = weir("check", proj, lake=titanic_lake)
    assert ("     cast exact: fare_total from double to int64 (a value that does not convert exactly fails the run)"
            in human.stdout), human.stdout
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert count(titanic_lake, "SELECT fare_total FROM total") == 28694
    # Without the opt-in the plan refuses, and says how to fix it.
    (proj / "contracts" / "total.yml").write_text(contract.replace(", cast: exact", ""))
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3
    assert ('total.sql:1: model total: column "fare_total" is double in the query, expected int64 (output schema '
            "Total; only widening casts are applied: CAST it in the query, or declare the column's cast exact, with "
            'cast: exact in YAML or TableField(cast="exact") in Python, to apply it when every value converts '
            "without loss)") in r.stderr, r.stderr


def test_an_input_column_declared_exact_composes_with_a_wider_producer(titanic_lake, tmp_path):
    # A Python model reads titanic's Float64 Fare as Int64, exactly: the plan lists it; the
    # run fails on the first fare with pence, naming its row and value.
    proj = tmp_path / "in"
    proj.mkdir()
    (proj / "m.py").write_text(
        "from typing import Annotated\n"
        "import weir\n"
        "from weir import Int64, Model, Table, TableField, TableSchema\n\n\n"
        "class Fares(TableSchema):\n"
        "    Fare: Annotated[Int64, TableField(cast='exact')]\n\n\n"
        "@weir.model()\n"
        "def whole(t: Annotated[Table[Fares], Model('titanic', filter='Fare = round(Fare)')]) -> Table[Fares]:\n"
        "    return t\n")
    plan = weir_json("check", proj, lake=titanic_lake)
    assert plan["models"][0]["exact_casts"] == [
        {"column": "Fare", "from": None, "to": "int64", "input": None},
        {"column": "Fare", "from": "double", "to": "int64", "input": "t"}]
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    whole = count(titanic_lake, "SELECT count(*) FROM whole")
    assert whole == count(titanic_lake, "SELECT count(*) FROM titanic WHERE Fare = round(Fare)")
    (proj / "m.py").write_text((proj / "m.py").read_text().replace("filter='Fare = round(Fare)'", "filter='Pclass = 1'"))
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 3
    assert re.search(r'contract violation in input t of model whole \(schema Fares\):\n  - column "Fare" has \d+ '
                     r'values of type double that do not convert exactly to int64 \(row 0: 71\.2833, row 1: 53\.1, '
                     r'row 2: 51\.8625, \.\.\.\)', r.stderr), r.stderr


def test_a_contract_that_does_not_load_is_the_only_problem(titanic_lake, tmp_path):
    # The models naming it are not told again that their schema is not defined; a typo in
    # another model's schema name still is.
    proj = tmp_path / "yml"
    (proj / "contracts").mkdir(parents=True)
    (proj / "contracts" / "w.yml").write_text("contract:\n  name: W\n  columns:\n    - name: pid\n      type: Int65\n")
    (proj / "f.sql").write_text("-- weir: output_schema=W\nSELECT PassengerId AS pid FROM titanic\n")
    (proj / "g.sql").write_text("-- weir: output_schema=Typo\nSELECT PassengerId AS pid FROM titanic\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    msgs = [p["message"] for p in json.loads(r.stdout)["error"]["details"]]
    assert len(msgs) == 2, msgs
    assert msgs[0].startswith('contracts/w.yml:5:13: unknown type "Int65" for column "pid"')
    assert msgs[1] == ('g.sql:1: model g: output schema "Typo" is not defined (no YAML contract or TableSchema of '
                       "that name)")
    # A contract whose YAML does not parse has no known name: what it may define is a note.
    (proj / "contracts" / "w.yml").write_text("contract:\n  name: [W\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    msgs = [p["message"] for p in json.loads(r.stdout)["error"]["details"]]
    # Either name may be in the file that did not load: one problem, the rest notes.
    assert len(msgs) == 1 and msgs[0].startswith("contracts/w.yml:3:1: invalid YAML"), msgs
    r = weir("check", proj, lake=titanic_lake)
    assert ('output schema "W" is not defined (no YAML contract or TableSchema of that name) (not a problem of its '
            "own: contracts/w.yml, which did not load, may define it; checked once it loads)") in r.stderr, r.stderr


# A SQL model whose statement would run for hours: only an interrupt ends it. (The join
# keeps titanic as an input, so the model has a catalog table to read.)
ENDLESS_SQL = ("-- weir: name=s\n"
               "SELECT count(*) AS n FROM range(1000000000000) a, titanic t\n"
               "WHERE t.PassengerId = 1 AND a.range % 7 = 3\n")


def endless_project(tmp_path):
    proj = tmp_path / "endless"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("name: endless\n")
    (proj / "s.sql").write_text(ENDLESS_SQL)
    return proj


def start_run(lake, proj, *extra):
    """`weir -v run` in the background, with a watchdog that kills it after 120 s so that a
    run that ignores what the test does fails the test instead of hanging it."""
    import os
    import subprocess
    import threading

    from conftest import weir_bin

    env = dict(os.environ, WEIR_PYTHON=str(ROOT / ".venv" / "bin" / "python"), WEIR_AUTHOR="tester")
    p = subprocess.Popen([str(weir_bin()), "--lake", str(lake), "-v", "run", str(proj), *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    watchdog = threading.Timer(120, p.kill)
    watchdog.start()
    return p, watchdog


def test_ctrl_c_stops_a_long_sql_statement(titanic_lake, tmp_path):
    """Issue 15: a long SQL statement ignored Ctrl-C until it finished (17 s in the report;
    here it would be hours). The hand-off is the run's "query" progress event, sent when
    the statement starts; the SIGINT is sent after it, so the engine's interrupt must stop
    the statement itself."""
    import signal

    before = head(titanic_lake)
    p, watchdog = start_run(titanic_lake, endless_project(tmp_path))
    try:
        seen = []
        for line in p.stderr:
            seen.append(line)
            if line.startswith("query s"):
                break
        assert seen and seen[-1].startswith("query s"), "".join(seen)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate()
    finally:
        watchdog.cancel()
    assert p.returncode == 130, err  # not -9: the watchdog did not have to kill it
    assert "model s (s.sql): interrupted" in err
    run = weir_list("runs", lake=titanic_lake)[0]
    assert run["status"] == "failed" and run["error"]["code"] == "Interrupted"
    assert head(titanic_lake) == before


def test_run_timeout_stops_a_sql_model_and_publishes_nothing(titanic_lake, tmp_path):
    """Issue 15: nothing bounded a model's run time. `weir run --timeout SECONDS` bounds
    the run's models in all; a SQL statement past it is interrupted in the engine."""
    before = head(titanic_lake)
    p, watchdog = start_run(titanic_lake, endless_project(tmp_path), "--timeout", "0.5")
    try:
        out, err = p.communicate()
    finally:
        watchdog.cancel()
    assert p.returncode == 1, err  # a model failure (130 is for Ctrl-C); not -9 from the watchdog
    assert ("model s (s.sql) was stopped: the run ran past its timeout of 0.5s (weir run --timeout SECONDS, "
            "Client.run(timeout=...))") in err, err
    run = weir_list("runs", lake=titanic_lake)[0]
    assert run["status"] == "failed" and run["error"]["code"] == "ModelError"
    assert head(titanic_lake) == before
    # The engine the statement ran on is pooled: the next statement is not hit by the interrupt.
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 891


@pytest.mark.parametrize("value", ["0", "-1", "soon", ""])
def test_run_timeout_must_be_a_positive_number(titanic_lake, value):
    r = weir("run", EXAMPLE, "--timeout", value, lake=titanic_lake)
    assert r.returncode == 2 and "--timeout needs a number of seconds above 0" in r.stderr, r.stderr


def test_run_timeout_bounds_a_python_model_before_its_own_timeout(titanic_lake, tmp_path):
    """The run's deadline, when it comes before the model's @weir.python(timeout=...),
    stops the Python model and says which limit it was."""
    proj = tmp_path / "sleepy"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("name: sleepy\n")
    (proj / "models.py").write_text(
        "import threading\nfrom typing import Annotated\nimport pyarrow as pa\nimport weir\n"
        "from weir import Int64, Model, Table, TableSchema\n\n\n"
        "class Out(TableSchema):\n    n: Int64\n\n\n"
        "@weir.model()\n"
        "def slow(src: Annotated[pa.Table, Model(\"titanic\")]) -> Table[Out]:\n"
        "    threading.Event().wait()   # never set: only the runner ends this\n"
        "    return pa.table({\"n\": pa.array([1], pa.int64())})\n")
    r = weir("run", proj, "--timeout", "2", lake=titanic_lake)
    assert r.returncode == 1, r.stderr  # a model failure, as a model's own timeout is; 130 is Ctrl-C's
    assert "model slow (models.py) was stopped: the run ran past its timeout of 2s" in r.stderr, r.stderr
    assert weir_list("runs", lake=titanic_lake)[0]["error"]["code"] == "ModelError"


def test_sql_reads_table_names_without_case(titanic_lake, tmp_path):
    """Issue 15: creation treated names without case (a case twin is refused) but reads
    did not: `FROM Titanic` failed for table titanic, in queries and in models."""
    assert count(titanic_lake, "SELECT count(*) FROM Titanic") == 891
    assert count(titanic_lake, "SELECT count(*) FROM DEFAULT.TITANIC") == 891
    assert count(titanic_lake, "SELECT count(*) FROM Titanic a JOIN titanic b USING (PassengerId)") == 891
    proj = tmp_path / "cases"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("name: cases\n")
    (proj / "c.sql").write_text("-- weir: name=c\nSELECT count(*) AS n FROM TiTaNiC\n")
    r = weir("run", proj, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert count(titanic_lake, "SELECT n FROM c") == 891
    r = weir("query", "SELECT * FROM Titanicc", lake=titanic_lake)
    assert r.returncode == 1 and "Titanicc does not exist" in r.stderr, r.stderr


def test_one_mistake_in_models_py_is_reported_once(titanic_lake, tmp_path):
    """Issue 15: a syntax error in models.py also produced "output schema is not defined"
    for f.sql, whose schema models.py defines; a duplicate model name was reported twice.
    Each is now one problem (the rest are notes)."""
    proj = project(tmp_path, {"models.py": [("def g(", "def g(((")]})
    r = weir("check", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3
    msgs = [p["message"] for p in json.loads(r.stdout)["error"]["details"]]
    assert len(msgs) == 1 and "SyntaxError while importing models.py" in msgs[0], msgs
    shutil.rmtree(proj)
    proj = project(tmp_path, {"models.py": [('@weir.model(materialization="REPLACE")\n@weir.python("3.11", '
                                             'pip={"polars": "1.*"})\ndef h(',
                                             '@weir.model(materialization="REPLACE", name="g")\n@weir.python("3.11", '
                                             'pip={"polars": "1.*"})\ndef h(')]})
    r = weir("check", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3
    msgs = [p["message"] for p in json.loads(r.stdout)["error"]["details"]]
    assert len(msgs) == 1 and "model g is defined twice" in msgs[0], msgs


G_ENV = '@weir.model(materialization="REPLACE")\n@weir.python("3.11", pip={"polars": "1.*"})\ndef g('


@pytest.mark.parametrize("decorator, message", [
    ('@weir.python("3.4")', 'models.py:68: model g: @weir.python("3.4"): Python 3.4 is not installed (looked for '
                            'python3.4 on PATH)'),
    ('@weir.python("3.11", pip={"polars": ">=1,<"})',
     'models.py:68: model g: @weir.python("3.11"): bad version for polars: \'polars>=1,<\' is not a pip requirement'),
])
def test_a_python_environment_that_cannot_be_had_fails_check(titanic_lake, tmp_path, decorator, message):
    """Issue 15: `@weir.python("3.9")` with no such interpreter, or an invalid pip
    specifier, failed the run at that model, after the models before it ran."""
    proj = project(tmp_path, {"models.py": [(G_ENV, G_ENV.replace('@weir.python("3.11", pip={"polars": "1.*"})',
                                                                    decorator))]})
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3 and message in r.stderr, r.stderr


def test_python_environments_are_built_before_any_model_runs(titanic_lake, tmp_path):
    """An interpreter that is on PATH but does not run (a pyenv shim of an uninstalled
    version) passes check; the run prepares every environment first, so it fails before
    any model ran, writes nothing, and the build is a progress phase of its own rather
    than part of a model's time."""
    import os
    import stat

    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "python3.4"
    shim.write_text("#!/bin/sh\necho 'pyenv: python3.4: command not found' >&2\nexit 127\n")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    proj = project(tmp_path, {"models.py": [(G_ENV, G_ENV.replace('@weir.python("3.11", pip={"polars": "1.*"})',
                                                                    '@weir.python("3.4")'))]})
    assert weir("check", proj, lake=titanic_lake, env=env).returncode == 0
    before = head(titanic_lake)
    r = weir("-v", "run", proj, lake=titanic_lake, env=env)
    assert r.returncode == 1, r.stderr
    assert "model g (models.py:68): cannot prepare the Python environment" in r.stderr, r.stderr
    assert "Python 3.4 is not installed" in r.stderr
    assert not re.search(r"^model ", r.stderr, re.M), r.stderr  # no model started
    assert weir_list("runs", lake=titanic_lake) == [] and head(titanic_lake) == before
    # A good project: every environment phase comes before the first model.
    r = weir("-v", "run", EXAMPLE, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    phases = [line.split()[0] for line in r.stderr.splitlines() if line.split()]
    assert "environment" in phases and "model" in phases
    assert max(i for i, ph in enumerate(phases) if ph == "environment") < phases.index("model"), r.stderr


# ---- regressions: problems a first-time user found (each fails without its fix) ----


def test_run_needs_a_folder(titanic_lake, tmp_path):
    f = tmp_path / "model.sql"
    f.write_text("SELECT 1 AS a\n")
    r = weir("run", f, lake=titanic_lake)
    assert r.returncode == 2 and "is a file" in r.stderr
    r = weir("run", tmp_path / "nope", lake=titanic_lake)
    assert r.returncode == 1 and "does not exist" in r.stderr
    assert "run (null)" not in r.stdout


def test_unstorable_sql_results_fail_at_plan_time(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "x.sql").write_text("SELECT [1, 2] AS a, 1 AS b, 2 AS b\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3
    assert 'column "a" is INTEGER[] in the query, which weir cannot store' in r.stderr
    assert 'the query returns two columns named "b"' in r.stderr


SLOW = '''\
import time
from typing import Annotated

import pyarrow as pa

import weir
from weir import Int64, Model, Table, TableSchema


class Out(TableSchema):
    n: Int64


@weir.model()
def slow(src: Annotated[pa.Table, Model("titanic")]) -> Table[Out]:
    """Sleeps long enough to be interrupted."""
    time.sleep(60)
    return pa.table({"n": pa.array([src.num_rows], pa.int64())})
'''


def test_interrupting_a_run_records_it_and_leaves_the_target(titanic_lake, tmp_path):
    import signal
    import time


    proj = tmp_path / "slow"
    proj.mkdir()
    (proj / "models.py").write_text(SLOW)
    before = weir_json("show", "main", lake=titanic_lake)["hash"]
    p = start_weir("run", proj, lake=titanic_lake, until="model slow")   # the run is starting the model
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert time.monotonic() - t0 < 10   # stopped promptly, not after the model's 60 s
    assert p.returncode == 130, err   # as shells expect of a command stopped by Ctrl-C
    assert "interrupted" in err
    run = weir_list("runs", lake=titanic_lake)[0]
    assert run["status"] == "failed"
    assert run["error"]["code"] == "Interrupted"   # as a killed run's (was "WeirError")
    assert weir_json("show", "main", lake=titanic_lake)["hash"] == before
    assert "run/" + run["run_id"] in [b["name"] for b in weir_list("branch", lake=titanic_lake)]


def test_failed_run_json_carries_the_run_record(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "contracts").mkdir()
    (proj / "contracts" / "c.yml").write_text("contract:\n  name: Small\n  columns:\n    - {name: n, type: Int64, max: 1}\n")
    (proj / "big.sql").write_text("-- weir: output_schema=Small\nSELECT count(*) AS n FROM titanic\n")
    r = weir("run", proj, "--json", lake=titanic_lake)
    assert r.returncode == 3
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == "ContractViolation"
    assert doc["run"]["status"] == "failed"
    assert doc["run"]["models"][0]["violations"][0]["kind"] == "range"


def test_plan_warns_when_a_model_takes_over_an_imported_table(lake, tmp_path):
    assert weir("import", TITANIC, "--table", "titanic", lake=lake).returncode == 0  # no contract
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "titanic_copy.sql").write_text("-- weir: name=titanic\nSELECT 1 AS a\n")
    r = weir("check", proj, lake=lake)
    assert r.returncode == 0, r.stderr
    assert "warning: titanic_copy.sql:1: model titanic will replace table default.titanic, which was last written by import (891 rows)" in r.stderr


HIST = '''\
from typing import Annotated
import pyarrow as pa
import weir
from weir import {type}, Model, Table, TableSchema


class Hist(TableSchema):
    """Row counts."""
    n: {type}


@weir.model(materialization="APPEND")
def hist(src: Annotated[pa.Table, Model("titanic")]) -> Table[Hist]:
    """Appends the row count."""
    return pa.table({{"n": pa.array([{value}], {arrow})}})
'''


def test_append_model_is_held_to_its_table(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "models.py").write_text(HIST.format(type="Int64", value="src.num_rows", arrow="pa.int64()"))
    for _ in range(2):
        assert weir("run", proj, lake=titanic_lake).returncode == 0
    # The model's schema changes: planning refuses before anything runs...
    (proj / "models.py").write_text(HIST.format(type="String", value="str(src.num_rows)", arrow="pa.large_string()"))
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert 'model hist appends to default.hist: column "n" is large_string in its output, the table has int64' in r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM hist WHERE n = 891") == 2


def test_bare_model_names_in_a_project_namespace(titanic_lake, tmp_path):
    proj = tmp_path / "ns"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("namespace: analytics\n")
    (proj / "a.sql").write_text("SELECT PassengerId, Fare FROM titanic\n")
    (proj / "b.sql").write_text("SELECT count(*) AS n FROM a\n")
    assert weir("check", proj, lake=titanic_lake).returncode == 0
    assert weir("run", proj, lake=titanic_lake).returncode == 0
    assert count(titanic_lake, "SELECT n FROM analytics.b") == 891


def test_sql_problems_name_the_line_once(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "x.sql").write_text("-- weir: name=x\n\n\nSELECT\n  nope_col\nFROM titanic\n")
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3 and "x.sql:5: model x does not plan" in r.stderr
    (proj / "x.sql").write_text("-- weir: name=x\nSELECT\nFROM WHERE titanic\n")
    r = weir("check", proj, "--json", lake=titanic_lake)
    problems = json.loads(r.stdout)["error"]["details"]
    assert len(problems) == 1 and problems[0]["line"] == 3


def test_run_summary_lists_rules_under_a_header(titanic_lake):
    r = weir("run", ROOT / "examples" / "titanic" / "project", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = lines.index("model f rules:")
    assert lines[at + 1].split() == ["rule", "on", "violation", "result", "rows"]
    assert lines[at + 2].split() == ["tclass.enum", "fail", "passed"]


def test_a_sql_models_error_line_comes_from_the_engines_position_not_its_message(titanic_lake, tmp_path):
    # The planner read the line out of the engine's English ("SQL line N"): a column named
    # "SQL line 99" moved the problem to line 99. The engine now gives it as a field.
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "f.sql").write_text('-- weir: name=f\n\nSELECT "SQL line 99"\nFROM titanic\n')
    r = weir("check", proj, lake=titanic_lake)
    assert r.returncode == 3, r.stderr
    assert "f.sql:3: model f does not plan" in r.stderr, r.stderr
    assert "f.sql:99" not in r.stderr
