"""Every JSON document weir returns matches its JSON Schema (docs/schema/, draft 2020-12),
and the SDK's records decode them strictly.

The documents are real: a lake is built through the CLI (whose --json output is the
library's document, or for init/branch create/errors the CLI's own, stamped the same way)
and through the SDK for the three documents the CLI does not print (a contract
validation report, a worker's staged output, progress events). The last test checks that
this file covers every schema in docs/schema/.
"""
from __future__ import annotations

import ctypes
import json
import pathlib
import shutil
from typing import Any

import pyarrow as pa
import pytest
from schemas import LIST_KEYS, SCHEMA_DIR, cli_schema, names, validate

import weir
from conftest import ROOT, TITANIC, TITANIC_SCHEMA, weir as cli
from weir import _ffi
from weir.records import (
    Branch,
    Commit,
    ImportResult,
    MergeResult,
    RecordError,
    RunState,
    TableChange,
    TableInfo,
    document,
)

PROJECT = ROOT / "examples" / "titanic" / "project"


class Small(weir.TableSchema):
    x: weir.Int64
COVERED: set[str] = set()


def check(doc: object, name: str) -> Any:
    validate(doc, name)
    COVERED.add(name)
    return doc


def cli_doc(lake: pathlib.Path, *args: str, name: str | None = None, code: int = 0) -> Any:
    r = cli(*args, "--json", lake=lake)
    assert r.returncode == code, f"weir {' '.join(args)}: {r.returncode} {r.stderr}"
    doc = json.loads(r.stdout)
    assert isinstance(doc, dict) and list(doc)[0] == "schema_version", "schema_version is the first key"
    return check(doc, name or cli_schema(list(args)) or "")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One lake with every kind of history, and the documents it gave."""
    lake = tmp_path_factory.mktemp("schema") / "lake"
    docs: dict[str, Any] = {}
    r = cli("init", lake, "--json")
    assert r.returncode == 0, r.stderr
    docs["init"] = check(json.loads(r.stdout), "init")
    docs["import"] = cli_doc(lake, "import", str(TITANIC), "--table", "titanic", "--contract", str(TITANIC_SCHEMA))
    docs["branch_create"] = cli_doc(lake, "branch", "create", "dev")
    docs["tag_create"] = cli_doc(lake, "tag", "create", "v1")
    docs["plan"] = cli_doc(lake, "check", str(PROJECT))
    docs["dry_run"] = cli_doc(lake, "run", str(PROJECT), "--dry-run")
    docs["run"] = cli_doc(lake, "run", str(PROJECT))
    docs["merge"] = cli_doc(lake, "merge", "main", "--into", "dev")
    docs["diff"] = cli_doc(lake, "diff", "v1", "main")
    docs["commit_log"] = cli_doc(lake, "log")
    docs["commit"] = cli_doc(lake, "show", "main")
    docs["branch_list"] = cli_doc(lake, "branch", "list")
    docs["tag_list"] = cli_doc(lake, "tag", "list")
    docs["table_list"] = cli_doc(lake, "tables")
    docs["table"] = cli_doc(lake, "describe", "f")
    docs["run_list"] = cli_doc(lake, "runs")
    docs["run_show"] = cli_doc(lake, "runs", "show", docs["run"]["run_id"])
    docs["table_revert"] = cli_doc(lake, "revert", "titanic", "--to", "v1", "--branch", "dev")
    docs["run_revert"] = cli_doc(lake, "revert", "--run", docs["run"]["run_id"])
    out = lake.parent / "q.csv"
    docs["query_output"] = cli_doc(lake, "query", "SELECT 1 AS x", "--output", str(out))
    docs["error"] = cli_doc(lake, "show", "nosuch", name="error", code=1)
    docs["conflict"] = conflict_doc(lake)
    docs["run_error"] = failed_run_doc(lake, lake.parent)
    docs["ref_delete"] = cli_doc(lake, "tag", "delete", "v1")
    return {"lake": lake, "docs": docs}


def conflict_doc(lake: pathlib.Path) -> Any:
    """A merge conflict's error document: its details are conflicts."""
    assert cli("branch", "create", "c1", lake=lake).returncode == 0
    for branch, rows in (("c1", 10), ("main", 20)):
        r = cli("query", f"SELECT * FROM titanic LIMIT {rows}", "--output", str(lake.parent / f"{branch}.csv"),
                lake=lake)
        assert r.returncode == 0, r.stderr
        r = cli("import", str(lake.parent / f"{branch}.csv"), "--table", "titanic", "--mode", "replace",
                "--branch", branch, lake=lake)
        assert r.returncode == 0, r.stderr
    doc = cli_doc(lake, "merge", "c1", "--into", "main", name="error", code=4)
    assert doc["error"]["code"] == "MergeConflict" and doc["error"]["details"][0]["table"] == "default.titanic"
    return doc


def failed_run_doc(lake: pathlib.Path, tmp: pathlib.Path) -> Any:
    """A run that fails at a contract: `weir run --json` prints the error and the record."""
    proj = tmp / "failing"
    shutil.copytree(PROJECT, proj)
    sql = (proj / "f.sql").read_text()
    (proj / "f.sql").write_text(sql.replace("Pclass IN (1, 2)", "Pclass IN (1, 2, 3)"))
    doc = cli_doc(lake, "run", str(proj), name="run_error", code=3)
    assert doc["run"]["status"] == "failed"
    check(doc["run"], "run")
    return doc


def test_every_cli_document_matches_its_schema(built: dict[str, Any]) -> None:
    docs = built["docs"]
    assert docs["run"]["status"] == "succeeded"
    assert docs["merge"]["tables"] and all("change" in t and "action" not in t for t in docs["merge"]["tables"])
    assert docs["table_revert"]["change"] in ("changed", "unchanged")
    for name, key in LIST_KEYS.items():
        assert isinstance(docs[name][key], list), name


@pytest.fixture(scope="module")
def sdk_docs(built: dict[str, Any]) -> None:
    """The documents only the SDK sees, checked as they come."""
    lake = built["lake"]
    events: list[dict[str, Any]] = []
    with weir.Client(lake) as client:
        client.set_progress(events.append)
        client.import_data("progress_demo", pa.table({"x": [1, 2, 3]}))
        # the validation report of weir_contract_validate
        v = weir.validate(pa.table({"x": [1, 2]}), Small)
        check(v.report, "report")
        # a worker's staged output (docs/worker.md): what a Python model's output becomes
        lib = _ffi.load_library()
        stream, reader = _ffi.export_stream(pa.table({"x": [1, 2]}))
        try:
            text, err = lib.call_out("weir_worker_stage_output", client._h(), stream,
                                     _ffi.enc(json.dumps({"table": "default.staged_demo", "model": "m"})))
        finally:
            _ffi.release_stream(stream)
            del reader
        assert err is None, err
        check(json.loads(text or "null"), "staged")
    assert events, "an import reports progress"
    for e in events:
        check(e, "progress")


def test_sdk_documents_match_their_schemas(sdk_docs: None) -> None:
    assert {"report", "staged", "progress"} <= COVERED


def test_the_schemas_cover_every_document(built: dict[str, Any], sdk_docs: None) -> None:
    assert set(names()) == COVERED, f"schemas without a real document here: {sorted(set(names()) - COVERED)}"
    for f in SCHEMA_DIR.glob("*.schema.json"):
        s = json.loads(f.read_text())
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema", f.name


def test_a_document_that_breaks_its_schema_is_caught(built: dict[str, Any]) -> None:
    """The schemas are not vacuous: a renamed key, a missing one and a wrong type fail."""
    merge = json.loads(json.dumps(built["docs"]["merge"]))
    merge["tables"][0]["action"] = merge["tables"][0].pop("change")
    with pytest.raises(AssertionError, match="change"):
        validate(merge, "merge")
    log = json.loads(json.dumps(built["docs"]["commit_log"]))
    del log["schema_version"]
    with pytest.raises(AssertionError, match="schema_version"):
        validate(log, "commit_log")
    with pytest.raises(AssertionError):
        validate(log["commits"], "commit_log")  # a bare array is not a document
    run = json.loads(json.dumps(built["docs"]["run"]))
    run["models"][0]["rows"] = "94"
    with pytest.raises(AssertionError, match="rows"):
        validate(run, "run")


# ---- strict decoding ---------------------------------------------------------------------

def test_records_decode_every_real_document(built: dict[str, Any]) -> None:
    docs = built["docs"]
    commits = [Commit.from_json(c) for c in document(docs["commit_log"], "log", "commits")]
    assert commits[0].tables_changed
    assert [Branch.from_json(b).name for b in document(docs["branch_list"], "branches", "branches")]
    assert MergeResult.from_json(document(docs["merge"], "merge")).tables[0].change == "added"
    assert TableInfo.from_json(document(docs["table"], "table")).columns
    assert ImportResult.from_json(document(docs["import"], "import")).rows_written == 891
    assert RunState.from_json(document(docs["run"], "run")).success()
    assert not RunState.from_json(docs["run_error"]["run"]).success()


@pytest.mark.parametrize("mutate", ["missing", "renamed", "retyped"])
def test_a_missing_or_renamed_key_is_an_error_not_a_default(built: dict[str, Any], mutate: str) -> None:
    c = json.loads(json.dumps(document(built["docs"]["commit_log"], "log", "commits")[0]))
    if mutate == "missing":
        del c["author"]
    elif mutate == "renamed":
        c["who"] = c.pop("author")
    else:
        c["author"] = None
    with pytest.raises(RecordError, match="commit.*'author'"):
        Commit.from_json(c)


def test_the_old_word_action_is_refused() -> None:
    with pytest.raises(RecordError, match="no key 'change'"):
        TableChange.from_json({"table": "default.f", "action": "added"})


def test_another_schema_version_is_refused(built: dict[str, Any]) -> None:
    doc = dict(built["docs"]["commit"])
    doc["schema_version"] = 2
    with pytest.raises(RecordError, match="schema_version 2"):
        document(doc, "commit")
    with pytest.raises(RecordError, match="no key 'schema_version'"):
        document({"hash": "x"}, "commit")
