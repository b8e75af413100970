"""Every JSON document weir returns matches its JSON Schema (docs/schema/, draft 2020-12),
and the SDK's records decode them strictly.

The documents are real: a lake is built through the CLI (whose --json output is the
library's document, or for init/branch create/errors the CLI's own, stamped the same way)
and through the SDK for the three documents the CLI does not print (a contract
validation report, a worker's staged output, progress events). The last test checks that
this file covers every schema in docs/schema/.
"""
from __future__ import annotations

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
    AlterResult,
    Branch,
    BranchProtection,
    Commit,
    ContractDiff,
    DeleteResult,
    ImportResult,
    LakeStatus,
    MergeResult,
    Namespace,
    RecordError,
    RegisterResult,
    RunState,
    TableChange,
    TableDropped,
    TableInfo,
    TableRenamed,
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
    docs["token"] = cli_doc(lake, "token", "create", "--name", "reader", "--read-only", "--branches", "dev*")
    docs["token_list"] = cli_doc(lake, "token", "list")
    docs["namespace"] = cli_doc(lake, "namespace", "create", "raw")
    docs["namespace_list"] = cli_doc(lake, "namespace", "list")
    docs["namespace_drop"] = cli_doc(lake, "namespace", "drop", "raw")
    assert cli("import", str(TITANIC), "--table", "scratch", lake=lake).returncode == 0
    docs["table_rename"] = cli_doc(lake, "table", "rename", "scratch", "scratch2")
    docs["table_drop"] = cli_doc(lake, "table", "drop", "scratch2")
    assert cli("import", str(TITANIC), "--table", "evolving", "--contract", str(TITANIC_SCHEMA), lake=lake).returncode == 0
    docs["table_alter"] = cli_doc(lake, "alter", "evolving", "--add", "note String", "--rename", "Name", "name2",
                                  "--doc", "note", "a note", "--move", "note", "first")
    assert cli("table", "drop", "evolving", lake=lake).returncode == 0
    docs["contract_diff"], docs["merge_contracts"] = contract_docs(lake, lake.parent)
    docs["status"] = cli_doc(lake, "status")
    docs["protection"] = cli_doc(lake, "branch", "protect", "c1", "--require-check", str(PROJECT))
    docs["compact"] = cli_doc(lake, "compact", "titanic", "--dry-run")
    docs["delete"] = cli_doc(lake, "delete", "titanic", "--where", "PassengerId <= 3")
    assert docs["delete"]["deleted"] and docs["delete"]["rows_deleted"] == 3
    nothing = cli_doc(lake, "delete", "titanic", "--where", "PassengerId <= 3")
    assert not nothing["deleted"] and nothing["commit"] is None and nothing["reason"]
    described = json.loads(cli("describe", "titanic", "--json", lake=lake).stdout)
    titanic_meta = described["metadata_location"]
    docs["register_rows"] = described["record_count"]  # titanic as the conflict and diff docs left it
    docs["register"] = cli_doc(lake, "table", "register", "titanic_copy", "--metadata", titanic_meta)
    docs["branch_prune"] = cli_doc(lake, "branch", "prune", "--runs")
    docs["query_explain"] = cli_doc(lake, "query", "SELECT * FROM titanic WHERE Pclass = 1", "--explain")
    docs["gc"] = cli_doc(lake, "gc", "--grace", "0", "--expire-before", "0s")
    docs["commit_log_expired"] = cli_doc(lake, "log")
    assert any("expired" in c for c in docs["commit_log_expired"]["commits"])
    return {"lake": lake, "docs": docs}


def contract_docs(lake: pathlib.Path, tmp: pathlib.Path) -> tuple[Any, Any]:
    """`weir contract diff` (with the readers of a project) and a merge refused for a
    breaking contract change (the breaking changes, each with its readers)."""
    v1, v2 = tmp / "c1.yml", tmp / "c2.yml"
    v1.write_text('contract:\n  name: c\n  version: "1"\n  columns:\n    - {name: x, type: Int64}\n')
    v2.write_text('contract:\n  name: c\n  version: "2"\n  columns:\n    - {name: x, type: Int64, nullable: true}\n')
    (tmp / "c.csv").write_text("x\n1\n")
    assert cli("import", str(tmp / "c.csv"), "--table", "c", "--contract", str(v1), lake=lake).returncode == 0
    proj = tmp / "creader"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("name: creader\n")
    (proj / "r.sql").write_text("-- weir: name=r\nSELECT x FROM c\n")
    diff = cli_doc(lake, "contract", "diff", "c@main", str(v2), "--project", str(proj), code=3)
    assert diff["breaking"] and [r["model"] for r in diff["readers"]] == ["r"]
    assert cli("branch", "create", "cb", lake=lake).returncode == 0
    assert cli("import", str(tmp / "c.csv"), "--table", "c", "--mode", "replace", "--contract", str(v2),
               "--branch", "cb", lake=lake).returncode == 0
    refused = cli_doc(lake, "merge", "cb", "--into", "main", "--project", str(proj), name="merge_contracts", code=3)
    assert [(d["table"], [r["model"] for r in d["readers"]]) for d in refused["breaking_changes"]] == [("default.c", ["r"])]
    return diff, refused


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
        if name != "readers":  # no command prints it alone: the SDK's (sdk_docs)
            assert isinstance(docs[name][key], list), name
    assert docs["table_drop"]["change"] == "dropped" and "action" not in docs["table_drop"]
    assert [t["name"] for t in docs["token_list"]["tokens"]] == ["reader"] and "token" in docs["token"]
    assert docs["namespace"]["change"] == "added" and docs["namespace_drop"]["change"] == "dropped"


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
        # the library's own contract documents, as the SDK receives them
        check(json.loads(lib.call_out("weir_branch_merge_contracts", client._h(), b"cb", b"main")[0] or "null"),
              "merge_contracts")
        d = client.contract_diff("c@main", lake.parent / "c2.yml")
        check(dict(d.raw), "contract_diff")  # the library's document, plus the table the SDK adds
        text, err = lib.call_out("weir_project_readers", client._h(), _ffi.enc(str(lake.parent / "creader")),
                                 b"main", b"c", json.dumps(dict(d.raw)).encode())
        assert err is None, err
        check(json.loads(text or "null"), "readers")
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
    assert RegisterResult.from_json(document(docs["register"], "register")).rows == docs["register_rows"] > 0
    assert DeleteResult.from_json(document(docs["delete"], "delete")).rows_deleted == 3
    altered = AlterResult.from_json(document(docs["table_alter"], "table alter"))
    assert altered.columns[0].name == "note" and altered.column("note").doc == "a note"
    assert not RunState.from_json(docs["run_error"]["run"]).success()
    assert LakeStatus.from_json(document(docs["status"], "status")).tables
    assert BranchProtection.from_json(document(docs["protection"], "protection")).require_checks
    assert TableDropped.from_json(document(docs["table_drop"], "table drop")).table == "default.scratch2"
    assert TableRenamed.from_json(document(docs["table_rename"], "table rename")).new_name == "default.scratch2"
    assert [Namespace.from_json(n).name for n in document(docs["namespace_list"], "namespaces", "namespaces")]


def test_contract_documents_decode_strictly(built: dict[str, Any]) -> None:
    docs = built["docs"]
    d = ContractDiff.from_json(document(docs["contract_diff"], "contract diff"))
    assert d.breaking and [(r.model, r.columns) for r in d.readers] == [("r", ("x",))]
    [m] = [ContractDiff.from_json(e) for e in document(docs["merge_contracts"], "merge contracts", "breaking_changes")]
    assert m.changes[0].change == "nullable" and m.readers[0].model == "r"
    broken = json.loads(json.dumps(docs["contract_diff"]))
    del broken["changes"][0]["breaks"]
    with pytest.raises(RecordError, match="contract change: no key 'breaks'"):
        ContractDiff.from_json(broken)
    broken = json.loads(json.dumps(docs["contract_diff"]))
    broken["readers"][0]["line"] = "3"
    with pytest.raises(RecordError, match="contract reader: key 'line'"):
        ContractDiff.from_json(broken)
    with pytest.raises(RecordError, match="no key 'readers'"):
        document({"schema_version": 1}, "contract readers", "readers")


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
