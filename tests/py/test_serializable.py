"""Serializable writes (docs/versioning.md, "Concurrency: serializable writes"): writers
that overlap in time leave the lake as if one had run after the other.

Overlap is made deterministic with explicit hand-offs, never sleeps: the SDK's progress
callback runs the other writer at an exact point of the first (after validation, before
the commit), and a Python model blocks on a FIFO the test opens and closes, so the run is
caught after it read its input and before it publishes.
"""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import threading

import pyarrow as pa
import pytest

import weir
from conftest import ROOT, TITANIC, TITANIC_SCHEMA, count, weir_bin, weir_json, weir_list
from conftest import weir as cli
from test_client_support import client, titanic_client, weir_env  # noqa: F401 - fixtures


def head(lake) -> str:
    return weir_list("log", "-n", "1", lake=lake)[0]["hash"]


def data_files(lake) -> set[str]:
    return {os.path.join(d, f) for d, _, fs in os.walk(os.path.join(lake, "warehouse")) for f in fs}


def export(lake, sql, path) -> str:
    r = cli("query", sql, "--output", path, lake=lake)
    assert r.returncode == 0, r.stderr
    return str(path)


# ---- replace, create, revert, merge with a named base (CLI) -----------------------------------


@pytest.mark.cli
def test_two_replaces_from_one_base_exactly_one_wins(titanic_lake, tmp_path):
    base = head(titanic_lake)
    a = export(titanic_lake, "SELECT * FROM titanic WHERE Pclass = 1", tmp_path / "a.csv")
    b = export(titanic_lake, "SELECT * FROM titanic WHERE Pclass = 3", tmp_path / "b.csv")
    first = cli("import", a, "--table", "titanic", "--mode", "replace", "--expect-head", base, lake=titanic_lake)
    assert first.returncode == 0, first.stderr
    winner = head(titanic_lake)
    files = data_files(titanic_lake)
    second = cli("import", b, "--table", "titanic", "--mode", "replace", "--expect-head", base, "--json",
                  lake=titanic_lake)
    assert second.returncode == 4, second.stderr
    err = json.loads(second.stdout)["error"]
    assert err["code"] == "ConcurrentUpdate"
    assert "default.titanic" in err["message"] and base[:12] in err["message"] and winner[:12] in err["message"]
    assert err["details"] == [{"table": "default.titanic", "kind": "write", "change": "changed",
                               "reason": "a replace never removes rows it did not read", "base": base,
                               "head": winner, "changed_by": winner,
                               "changed_by_message": "import a.csv into default.titanic"}]
    # The winner's rows are there; the loser wrote nothing, not even data files.
    assert head(titanic_lake) == winner
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 216
    assert data_files(titanic_lake) == files


@pytest.mark.cli
def test_expect_head_that_is_the_head_writes(titanic_lake, tmp_path):
    a = export(titanic_lake, "SELECT * FROM titanic WHERE Pclass = 1", tmp_path / "a.csv")
    r = cli("import", a, "--table", "titanic", "--mode", "replace", "--expect-head", head(titanic_lake)[:10],
             lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 216


@pytest.mark.cli
def test_expect_head_off_the_branch_is_refused(titanic_lake, tmp_path):
    assert cli("branch", "create", "dev", lake=titanic_lake).returncode == 0
    assert cli("import", TITANIC, "--table", "other", "--branch", "dev", lake=titanic_lake).returncode == 0
    dev = weir_list("log", "dev", "-n", "1", lake=titanic_lake)[0]["hash"]
    before = head(titanic_lake)
    r = cli("import", TITANIC, "--table", "x", "--expect-head", dev, lake=titanic_lake)
    assert r.returncode == 4
    assert f"the expected head {dev[:12]} is not in the history of branch main" in r.stderr
    assert head(titanic_lake) == before


@pytest.mark.cli
def test_blind_append_rebases_onto_a_newer_version(titanic_lake):
    base = head(titanic_lake)
    assert cli("import", TITANIC, "--table", "titanic", "--mode", "append", lake=titanic_lake).returncode == 0
    # Appended meanwhile, same schema: this append lands on top of it; nothing is lost.
    r = cli("import", TITANIC, "--table", "titanic", "--mode", "append", "--expect-head", base, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 3 * 891


@pytest.mark.cli
def test_append_after_schema_change_with_named_base_is_refused(titanic_lake, tmp_path):
    base = head(titanic_lake)
    narrow = export(titanic_lake, "SELECT PassengerId, Name FROM titanic", tmp_path / "narrow.csv")
    schema = tmp_path / "narrow.yml"  # the fixture's titanic has a contract: a replace keeps it unless given another
    schema.write_text("contract:\n  name: narrow\n  columns:\n    - {name: PassengerId, type: Int64}\n"
                      "    - {name: Name, type: String}\n")
    r = cli("import", narrow, "--table", "titanic", "--mode", "replace", "--contract", schema, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    r = cli("import", TITANIC, "--table", "titanic", "--mode", "append", "--expect-head", base, lake=titanic_lake)
    assert r.returncode == 4
    assert "table default.titanic changed its schema or contract" in r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 891


@pytest.mark.cli
def test_create_of_a_table_made_since_the_base_is_refused(lake):
    base = head(lake)
    assert cli("import", TITANIC, "--table", "t", lake=lake).returncode == 0
    r = cli("import", TITANIC, "--table", "t", "--expect-head", base, "--json", lake=lake)
    assert r.returncode == 4, r.stderr
    assert json.loads(r.stdout)["error"]["details"][0]["change"] == "changed"
    assert count(lake, "SELECT count(*) FROM t") == 891


@pytest.mark.cli
def test_append_to_a_table_made_since_the_base_is_a_stale_base(lake, tmp_path):
    """The append named a head where its table did not exist yet: that is a stale base
    (exit 4 naming the commit that made the table), not a misspelt table name (exit 1)."""
    base = head(lake)
    assert cli("import", TITANIC, "--table", "t", lake=lake).returncode == 0
    maker = head(lake)
    r = cli("import", TITANIC, "--table", "t", "--mode", "append", "--expect-head", base, lake=lake)
    assert r.returncode == 4, r.stderr
    assert f"table default.t changed (by commit {maker[:12]}" in r.stderr, r.stderr
    assert "this append was made against the base, where the table did not exist" in r.stderr
    assert count(lake, "SELECT count(*) FROM t") == 891
    # A table that exists at no commit is still a plain "does not exist".
    r = cli("import", TITANIC, "--table", "nowhere", "--mode", "append", "--expect-head", base, lake=lake)
    assert r.returncode == 1 and "it does not exist on branch main" in r.stderr, r.stderr


@pytest.mark.cli
def test_revert_and_merge_with_a_stale_head_are_refused(titanic_lake, tmp_path):
    raw = head(titanic_lake)
    a = export(titanic_lake, "SELECT * FROM titanic WHERE Pclass = 1", tmp_path / "a.csv")
    b = export(titanic_lake, "SELECT * FROM titanic WHERE Pclass = 3", tmp_path / "b.csv")
    assert cli("import", a, "--table", "titanic", "--mode", "replace", lake=titanic_lake).returncode == 0
    reviewed = head(titanic_lake)
    # Someone changes titanic on main after the reviewer looked at `reviewed`...
    assert cli("import", b, "--table", "titanic", "--mode", "replace", lake=titanic_lake).returncode == 0
    now = head(titanic_lake)
    # ...and a branch made after it rewrites titanic again: merging it is a fast-forward,
    # but the reviewer never saw the change it would publish over.
    assert cli("branch", "create", "dev", lake=titanic_lake).returncode == 0
    assert cli("import", TITANIC, "--table", "titanic", "--mode", "replace", "--branch", "dev",
               lake=titanic_lake).returncode == 0
    r = cli("revert", "titanic", "--to", raw, "--expect-head", reviewed, lake=titanic_lake)
    assert r.returncode == 4 and "table default.titanic changed" in r.stderr, r.stderr
    r = cli("merge", "dev", "--into", "main", "--expect-head", reviewed, "--json", lake=titanic_lake)
    assert r.returncode == 4, r.stderr
    err = json.loads(r.stdout)["error"]
    assert err["code"] == "ConcurrentUpdate" and err["details"][0]["table"] == "default.titanic"
    assert err["details"][0]["changed_by"] == now
    assert head(titanic_lake) == now
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 491
    # A merge that changes only tables that did not move since the reviewed head lands.
    assert cli("branch", "create", "dev2", "--from", reviewed, lake=titanic_lake).returncode == 0
    assert cli("import", TITANIC, "--table", "newt", "--branch", "dev2", lake=titanic_lake).returncode == 0
    r = cli("merge", "dev2", "--into", "main", "--expect-head", reviewed, lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert count(titanic_lake, "SELECT count(*) FROM newt") == 891
    # So does a revert whose table did not move.
    r = cli("revert", "newt", "--to", reviewed, "--expect-head", head(titanic_lake), lake=titanic_lake)
    assert r.returncode == 0, r.stderr


# ---- true races through the SDK (hand-off in the progress callback) -------------------------


def race(client: weir.Client, phase: str, other) -> None:
    """Runs `other()` once, the first time `client` reports progress `phase`."""
    done: list[bool] = []

    def on_progress(event):
        if event.get("phase") == phase and not done:
            done.append(True)
            other()

    client.set_progress(on_progress)


def test_replace_racing_a_replace_is_refused(titanic_client, tmp_path):
    mine = titanic_client.query("SELECT * FROM titanic WHERE Pclass = 1")
    theirs = titanic_client.query("SELECT * FROM titanic WHERE Pclass = 3")
    with weir.Client(titanic_client.path) as other:
        won: list[str] = []
        race(titanic_client, "commit",
             lambda: won.append(other.import_data("titanic", theirs, mode="replace").commit))
        with pytest.raises(weir.ConcurrentUpdate) as e:
            titanic_client.import_data("titanic", mine, mode="replace")
    assert not isinstance(e.value, weir.StaleRead)
    assert e.value.exit_code == 4
    (c,) = e.value.changed
    assert (c.table, c.kind, c.changed_by) == ("default.titanic", "write", won[0])
    assert titanic_client.get_branch("main").head == won[0]
    assert titanic_client.query("SELECT count(*) AS n FROM titanic").to_pylist() == [{"n": 491}]


CONTRACT = """\
contract:
  name: events
  version: "{version}"
  columns:
    - {{name: id, type: Int64, unique: {unique}}}
    - {{name: kind, type: String, enum: [{kinds}]}}
"""


def events_contract(tmp_path, name, kinds, version="1", unique="false"):
    p = tmp_path / f"{name}.yml"
    p.write_text(CONTRACT.format(kinds=", ".join(kinds), version=version, unique=unique))
    return str(p)


def test_append_racing_a_replace_with_the_same_contract_keeps_both(client, tmp_path):
    c = events_contract(tmp_path, "events", ["a", "b"])
    client.import_data("events", pa.table({"id": [1, 2], "kind": ["a", "a"]}), contract=c)
    with weir.Client(client.path) as other:
        race(client, "commit",
             lambda: other.import_data("events", pa.table({"id": [3], "kind": ["b"]}), mode="replace", contract=c))
        client.import_data("events", pa.table({"id": [4], "kind": ["a"]}), mode="append")
    # As if the append ran after the replace: the replace's rows plus the appended one. The
    # append was blind (no rule read the table's rows), so it was rebased, not re-validated.
    assert client.query("SELECT id FROM events ORDER BY id").to_pylist() == [{"id": 3}, {"id": 4}]


def test_append_racing_a_contract_tightening_replace_never_lands_forbidden_rows(client, tmp_path):
    loose = events_contract(tmp_path, "loose", ["a", "b", "c"])
    tight = events_contract(tmp_path, "tight", ["a", "b"], version="2")
    client.import_data("events", pa.table({"id": [1, 2], "kind": ["a", "c"]}), contract=loose)
    with weir.Client(client.path) as other:
        race(client, "commit",
             lambda: other.import_data("events", pa.table({"id": [3], "kind": ["a"]}), mode="replace",
                                       contract=tight))
        # Valid under the loose contract it was validated against; not under the new one.
        with pytest.raises(weir.ContractViolation) as e:
            client.import_data("events", pa.table({"id": [4, 5], "kind": ["b", "c"]}), mode="append")
    assert "contract tight" in e.value.message or "events" in e.value.message
    assert [v.kind for v in e.value.violations] == ["enum"]
    stored = client.get_table("events")
    assert stored.contract is not None and stored.contract.get("version") == "2"
    assert client.query("SELECT id, kind FROM events ORDER BY id").to_pylist() == [{"id": 3, "kind": "a"}]


def test_append_racing_a_contract_change_it_still_meets_lands_under_the_new_contract(client, tmp_path):
    loose = events_contract(tmp_path, "loose", ["a", "b", "c"])
    tight = events_contract(tmp_path, "tight", ["a", "b"], version="2")
    client.import_data("events", pa.table({"id": [1], "kind": ["c"]}), contract=loose)
    with weir.Client(client.path) as other:
        race(client, "commit",
             lambda: other.import_data("events", pa.table({"id": [3], "kind": ["a"]}), mode="replace",
                                       contract=tight))
        client.import_data("events", pa.table({"id": [4], "kind": ["b"]}), mode="append")
    assert client.get_table("events").contract.get("version") == "2"   # never restored
    assert client.query("SELECT id FROM events ORDER BY id").to_pylist() == [{"id": 3}, {"id": 4}]


def test_unique_append_racing_an_append_is_validated_again(client, tmp_path):
    c = events_contract(tmp_path, "uniq", ["a", "b"], unique="true")
    client.import_data("events", pa.table({"id": [1], "kind": ["a"]}), contract=c)
    with weir.Client(client.path) as other:
        race(client, "commit", lambda: other.import_data("events", pa.table({"id": [2], "kind": ["a"]}), mode="append"))
        # id 2 was unique at the base; the concurrent append made it a duplicate.
        with pytest.raises(weir.ContractViolation) as e:
            client.import_data("events", pa.table({"id": [2], "kind": ["b"]}), mode="append")
    assert [v.kind for v in e.value.violations] == ["unique"]
    assert client.query("SELECT id, kind FROM events ORDER BY id").to_pylist() == [
        {"id": 1, "kind": "a"}, {"id": 2, "kind": "a"}]


# ---- runs: the read set ---------------------------------------------------------------------

COPY_PROJECT = """\
-- weir: name=firsts
SELECT PassengerId, Pclass FROM titanic WHERE Pclass = 1
"""


def test_run_whose_input_changed_is_stale_and_retry_uses_the_new_input(titanic_client, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "firsts.sql").write_text(COPY_PROJECT)
    fewer = titanic_client.query("SELECT * FROM titanic WHERE PassengerId <= 100")
    before = titanic_client.get_branch("main").head
    with weir.Client(titanic_client.path) as other:
        won: list[str] = []
        race(titanic_client, "model",
             lambda: won.append(other.import_data("titanic", fewer, mode="replace").commit))
        state = titanic_client.run(proj)
        assert not state.success()
        assert state.error is not None and state.error.code == "StaleRead"
        assert "default.titanic" in state.error.message and won[0][:12] in state.error.message
        assert "--retry" in state.error.message
        # main holds the new input and none of the run's outputs; the run branch is kept.
        assert titanic_client.get_branch("main").head == won[0] != before
        assert [t.table for t in titanic_client.get_tables()] == ["default.titanic"]
        assert state.run_branch in [b.name for b in titanic_client.get_branches()]
        # With a retry the project is planned and run again on the new head.
        fewest = titanic_client.query("SELECT * FROM titanic WHERE PassengerId <= 50")
        race(titanic_client, "model", lambda: won.append(other.import_data("titanic", fewest, mode="replace").commit))
        again = titanic_client.run(proj, retries=1)
    assert again.success(), again
    assert len(again.retried_runs) == 1 and titanic_client.get_run(again.retried_runs[0]).status == "failed"
    # Computed from the input as the concurrent writer left it (ids 1-50: 10 in 1st class).
    assert titanic_client.query("SELECT count(*) AS n FROM firsts").to_pylist() == [{"n": 10}]
    # A successful run's branch is gone: it was dropped in the same transaction as the merge.
    assert again.run_branch not in [b.name for b in titanic_client.get_branches()]


def test_run_retries_must_be_a_non_negative_int(titanic_client, tmp_path):
    with pytest.raises(TypeError):
        titanic_client.run(tmp_path, retries=True)  # type: ignore[arg-type]
    with pytest.raises(weir.InvalidArgument):
        titanic_client.run(tmp_path, retries=-1)


GATED = '''\
from typing import Annotated

import pyarrow as pa

import weir
from weir import Model


@weir.model()
def copied(src: Annotated[pa.Table, Model("titanic")]) -> pa.Table:
    """titanic; with more than 5 rows, only once the test has opened and closed the gate."""
    if src.num_rows > 5:
        with open(__file__.rsplit("/", 1)[0] + "/gate", "rb") as gate:   # blocks until the test opens it
            gate.read()
    return src
'''


def release_gate(gate) -> None:
    """Unblocks a test thread stuck opening `gate` for writing because no model came to
    read it (the run failed early): a reader that opens and closes at once."""
    os.close(os.open(gate, os.O_RDONLY | os.O_NONBLOCK))


@pytest.mark.cli
def test_cli_run_whose_input_is_replaced_during_the_run_exits_4(titanic_lake, tmp_path):
    proj = tmp_path / "gated"
    proj.mkdir()
    (proj / "models.py").write_text(GATED)
    os.mkfifo(proj / "gate")
    env = dict(os.environ, WEIR_AUTHOR="tester", WEIR_PYTHON=str(ROOT / ".venv" / "bin" / "python"))
    p = subprocess.Popen([str(weir_bin()), "--lake", str(titanic_lake), "run", str(proj)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    watchdog = threading.Thread(target=lambda: (p.wait(), release_gate(proj / "gate")))
    watchdog.start()
    with open(proj / "gate", "wb"):   # returns once the model has its input and waits on the gate
        fewer = export(titanic_lake, "SELECT * FROM titanic WHERE PassengerId <= 10", tmp_path / "fewer.csv")
        r = cli("import", fewer, "--table", "titanic", "--mode", "replace", lake=titanic_lake)
        assert r.returncode == 0, r.stderr
    out, err = p.communicate(timeout=300)
    watchdog.join()
    assert p.returncode == 4, err
    assert "cannot publish" in err and "default.titanic" in err and "--retry" in err
    assert [t["table"] for t in weir_list("tables", lake=titanic_lake)] == ["default.titanic"]
    assert count(titanic_lake, "SELECT count(*) FROM titanic") == 10
    run = weir_list("runs", lake=titanic_lake)[0]
    assert run["status"] == "failed" and run["error"]["code"] == "StaleRead"

    # --retry 1: the first attempt (10 rows: it waits at the gate) goes stale again; the
    # second reads the 5 rows left and does not wait. One hand-off, so no race between
    # gate openings.
    def serve_gate():
        with open(proj / "gate", "wb"):
            fewest = export(titanic_lake, "SELECT * FROM titanic WHERE PassengerId <= 5", tmp_path / "fewest.csv")
            assert cli("import", fewest, "--table", "titanic", "--mode", "replace", lake=titanic_lake).returncode == 0

    t = threading.Thread(target=serve_gate)
    t.start()
    r = cli("run", proj, "--retry", "1", "--json", lake=titanic_lake)
    release_gate(proj / "gate")
    t.join()
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["status"] == "succeeded" and len(doc["retried_runs"]) == 1
    assert count(titanic_lake, "SELECT count(*) FROM copied") == 5


@pytest.mark.cli
def test_cli_run_retry_is_validated(titanic_lake, tmp_path):
    r = cli("run", tmp_path, "--retry", "x", lake=titanic_lake)
    assert r.returncode == 2 and "--retry needs a number" in r.stderr
    r = cli("run", tmp_path, "--retry", "1", "--expect-head", head(titanic_lake), lake=titanic_lake)
    assert r.returncode == 2 and "cannot be retried" in r.stderr


# ---- contracts only move forward, also through reverts ------------------------------------------


@pytest.mark.cli
def test_revert_that_would_restore_an_older_contract_is_refused(lake, tmp_path):
    v1 = events_contract(tmp_path, "v1", ["a", "b", "c"], version="1")
    v2 = events_contract(tmp_path, "v2", ["a", "b"], version="2")
    data = tmp_path / "e.csv"
    data.write_text("id,kind\n1,a\n2,c\n")
    assert cli("import", data, "--table", "events", "--contract", v1, lake=lake).returncode == 0
    old = head(lake)
    data.write_text("id,kind\n3,a\n")
    assert cli("import", data, "--table", "events", "--mode", "replace", "--contract", v2, lake=lake).returncode == 0
    now = head(lake)
    r = cli("revert", "events", "--to", old, "--json", lake=lake)
    assert r.returncode == 3, r.stderr
    err = json.loads(r.stdout)["error"]
    assert err["code"] == "ContractViolation"
    assert "would replace its stored contract events (version 2) by events (version 1)" in err["message"]
    assert "--allow-contract-change" in err["message"]
    assert err["details"][0]["kind"] == "contract_change"
    assert head(lake) == now
    assert weir_json("describe", "events", lake=lake)["contract"]["version"] == "2"
    # Asked for explicitly, the revert brings the old version back, contract included.
    r = cli("revert", "events", "--to", old, "--allow-contract-change", lake=lake)
    assert r.returncode == 0, r.stderr
    assert weir_json("describe", "events", lake=lake)["contract"]["version"] == "1"
    assert count(lake, "SELECT count(*) FROM events") == 2


def test_revert_run_that_would_change_a_contract_needs_the_flag(client, tmp_path):
    legacy = tmp_path / "legacy.yml"
    legacy.write_text("contract:\n  name: Legacy\n  version: \"1\"\n  columns:\n"
                      "    - {name: Pclass, type: Int64}\n    - {name: n, type: Int64}\n")
    client.import_data("titanic", TITANIC, contract=TITANIC_SCHEMA)  # Pclass required, as Summary reads it
    client.import_data("summary", pa.table({"Pclass": [1], "n": [1]}), contract=str(legacy))
    proj = tmp_path / "p"
    (proj / "contracts").mkdir(parents=True)
    (proj / "contracts" / "summary.yml").write_text(
        "contract:\n  name: Summary\n  version: \"2\"\n  columns:\n"
        "    - {name: Pclass, type: Int64}\n    - {name: n, type: Int64}\n")
    (proj / "summary.sql").write_text("-- weir: name=summary\n-- weir: output_schema=Summary\n"
                                      "SELECT Pclass, count(*) AS n FROM titanic GROUP BY 1\n")
    state = client.run(proj)
    assert state.success(), state
    assert client.get_table("summary").contract["name"] == "Summary"
    with pytest.raises(weir.ContractViolation) as e:
        client.revert_run(state)
    assert "stored contract Summary (version 2) by Legacy (version 1)" in e.value.message
    assert client.get_table("summary").contract["name"] == "Summary"
    reverted = client.revert_run(state, allow_contract_change=True)
    assert [t.table for t in reverted.tables] == ["default.summary"]
    assert client.get_table("summary").contract["name"] == "Legacy"


def test_a_create_that_lost_to_another_create_says_what_can_work(lake):
    """Found by a new user: the loser of two concurrent creates was told to "run it again
    on the new head", where a create can only fail (the table exists now)."""
    base = weir_json("show", "main", lake=lake)["hash"]
    assert cli("import", TITANIC, "--table", "t", lake=lake).returncode == 0
    r = cli("import", TITANIC, "--table", "t", "--expect-head", base, lake=lake)
    assert r.returncode == 4, r.stderr
    assert "this import would replace it unseen" in r.stderr
    assert "the table exists now: to add these rows to it, run it again with --mode append (or --mode replace to replace it)" in r.stderr, r.stderr
    assert count(lake, "SELECT count(*) FROM t") == 891


# ---- the examples of docs/versioning.md run as printed ------------------------------------------


def doc_blocks(lang: str, section: str) -> list[str]:
    """The ```lang blocks of docs/versioning.md's `section` (a heading's text)."""
    text = (ROOT / "docs" / "versioning.md").read_text()
    start = text.index(f"\n{section}\n")
    end = text.find("\n#", start + len(section) + 2)
    body = text[start:end if end >= 0 else len(text)]
    return re.findall(rf"```{lang}\n(.*?)```", body, re.S)


@pytest.mark.cli
def test_the_serializable_examples_of_versioning_md_run_as_printed(lake, tmp_path):
    """Found by the audit of issue 10: the example took the head with jq's `.[0].hash`,
    which `weir log --json` stopped answering when lists became objects ({"commits": [...]})."""
    assert shutil.which("jq"), "jq is needed to run the documented examples (scripts/bootstrap.sh installs it)"
    (tmp_path / "t.csv").write_text("id,kind\n1,a\n2,b\n")
    (tmp_path / "a.csv").write_text("id,kind\n3,a\n")
    (tmp_path / "b.csv").write_text("id,kind\n4,b\n")
    (tmp_path / "pipeline").mkdir()
    (tmp_path / "pipeline" / "kinds.sql").write_text("SELECT kind, count(*) AS n FROM t GROUP BY kind\n")
    assert cli("import", tmp_path / "t.csv", "--table", "t", lake=lake).returncode == 0
    (sh,) = doc_blocks("sh", "### Examples")
    # Each line runs in one shell, in order; its comment says what it must exit with.
    script, expected = ["set -u"], []
    for line in sh.strip().splitlines():
        cmd, _, comment = line.partition("#")
        m = re.match(r"\s*exit (\d+)", comment)
        expected.append(int(m.group(1)) if m else 0)
        script.append(f"{cmd.strip()}; echo \"@@ $?\"")
    env = dict(os.environ, WEIR_LAKE=str(lake), WEIR_AUTHOR="tester",
               WEIR_PYTHON=str(ROOT / ".venv" / "bin" / "python"),
               PATH=os.pathsep.join([str(weir_bin().parent), os.environ.get("PATH", "")]))
    r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=600)
    got = [int(x) for x in re.findall(r"^@@ (\d+)$", r.stdout, re.M)]
    assert got == expected, (sh, r.stdout, r.stderr)
    assert "default.t changed" in r.stderr
    assert count(lake, "SELECT count(*) FROM t") == 1 and count(lake, "SELECT sum(n) FROM kinds") == 1

    # The Python example: a replace decided at a head that moved is refused, and says by whom.
    (py,) = doc_blocks("python", "### Examples")
    with weir.Client(lake) as client:
        h = client.get_branch("main").head
        won = client.import_data("t", pa.table({"id": [5], "kind": ["a"]}), mode="replace").commit
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(py, {"weir": weir, "client": client, "h": h,  # noqa: S102 - the documented code, as printed
                      "table": pa.table({"id": [6], "kind": ["b"]})})
    assert out.getvalue() == f"default.t changed by {won}\n"
