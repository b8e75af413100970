"""Freshness SLAs (issue 16, docs/contracts.md "Freshness SLA"): `weir status` lists every
table with its last change and its contract's `sla: {freshness: ...}`, marks the breached
ones and exits 3 when one is; runs record their outputs' freshness. Time is fixed with
--now / Client.status(now=...), never waited for."""
from __future__ import annotations

import datetime as dt
import json
import pathlib

import pytest

import weir as weirpkg
from conftest import weir, weir_json

pytestmark = pytest.mark.cli


def _contract(path: pathlib.Path, name: str, sla: str | None) -> pathlib.Path:
    sla_line = f"  sla: {{freshness: \"{sla}\"}}\n" if sla else ""
    path.write_text(f"contract:\n  name: {name}\n  version: \"1\"\n{sla_line}  columns:\n"
                    "    - {name: id, type: Int64}\n")
    return path


def _import(lake, tmp: pathlib.Path, table: str, sla: str | None, *extra: str) -> None:
    csv = tmp / f"{table}.csv"
    csv.write_text("id\n1\n2\n")
    args = ["import", csv, "--table", table, *extra]
    if sla is not None:
        args += ["--contract", _contract(tmp / f"{table}.yml", table, sla)]
    r = weir(*args, lake=lake)
    assert r.returncode == 0, r.stderr


def _time(iso: str) -> dt.datetime:
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _at(t: dt.datetime) -> str:
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_status_lists_every_table_with_its_last_change_and_sla(lake, tmp_path):
    _import(lake, tmp_path, "hourly", "1 hour")
    _import(lake, tmp_path, "plain", None)
    commit = weir_json("show", "main", lake=lake)
    written = _time(commit["time"])
    doc = weir_json("status", "--now", _at(written + dt.timedelta(minutes=30)), lake=lake)
    assert doc["ok"] and doc["breached"] == 0 and doc["commit"] == commit["hash"]
    rows = {t["table"]: t for t in doc["tables"]}
    assert set(rows) == {"default.hourly", "default.plain"}
    hourly = rows["default.hourly"]
    assert hourly["status"] == "fresh" and hourly["sla"] == {"freshness": "1 hour", "seconds": 3600}
    assert hourly["age_seconds"] in (1799, 1800)  # the commit time has microseconds
    plain = rows["default.plain"]
    assert plain["status"] == "no_sla" and plain["sla"] is None
    assert plain["last_change"]["commit"] == commit["hash"], "plain was written by the newest commit"
    assert hourly["last_change"]["commit"] != commit["hash"], "hourly was written by the one before"


def test_a_breached_sla_is_marked_and_exits_3(lake, tmp_path):
    _import(lake, tmp_path, "hourly", "1 hour")
    written = _time(weir_json("show", "main", lake=lake)["time"])
    later = _at(written + dt.timedelta(hours=2))
    r = weir("status", "--now", later, lake=lake)
    assert r.returncode == 3, r.stderr
    assert "BREACHED" in r.stdout and "default.hourly" in r.stdout and "1 table breached" in r.stderr
    r = weir("status", "--now", later, "--json", lake=lake)
    assert r.returncode == 3
    doc = json.loads(r.stdout)
    assert not doc["ok"] and doc["breached"] == 1 and doc["tables"][0]["status"] == "breached"
    assert weir("status", "--now", _at(written + dt.timedelta(minutes=59)), lake=lake).returncode == 0


@pytest.mark.parametrize(("sla", "seconds"), [("90 seconds", 90), ("30 minutes", 1800), ("1h", 3600),
                                              ("2 days", 172800), ("1 week", 604800)])
def test_freshness_units(lake, tmp_path, sla, seconds):
    _import(lake, tmp_path, "t", sla)
    (row,) = weir_json("status", lake=lake)["tables"]
    assert row["sla"] == {"freshness": sla, "seconds": seconds}


@pytest.mark.parametrize("sla", ["soon", "-1 hour", "0 hours", "1 fortnight", "1.5 hours"])
def test_a_bad_freshness_is_refused_when_the_contract_is_loaded(lake, tmp_path, sla):
    """A freshness `weir status` cannot read was stored with exit 0, and then every `weir
    status` of the lake failed: the contract is refused at its line, nothing is written."""
    csv = tmp_path / "t.csv"
    csv.write_text("id\n1\n")
    contract = _contract(tmp_path / "t.yml", "t", sla)
    r = weir("import", csv, "--table", "t", "--contract", contract, lake=lake)
    assert r.returncode == 1, r.stderr
    assert f't.yml:4:20: sla freshness: "{sla}" is not a duration' in r.stderr, r.stderr
    assert weir_json("status", lake=lake)["tables"] == []


def test_status_at_a_ref_and_a_merge_keeps_the_time_data_was_written(lake, tmp_path):
    _import(lake, tmp_path, "hourly", "1 hour")
    r = weir("branch", "create", "dev", lake=lake)
    assert r.returncode == 0
    _import(lake, tmp_path, "later", "1 day", "--branch", "dev")
    dev_commit = weir_json("show", "dev", lake=lake)
    on_main = weir_json("status", "--ref", "main", lake=lake)
    assert [t["table"] for t in on_main["tables"]] == ["default.hourly"]
    assert weir("merge", "dev", "--into", "main", "--no-ff", lake=lake).returncode == 0
    merged = {t["table"]: t for t in weir_json("status", lake=lake)["tables"]}
    assert merged["default.later"]["last_change"] == {"commit": dev_commit["hash"], "time": dev_commit["time"]}


def test_a_malformed_now_is_a_usage_error(lake):
    r = weir("status", "--now", "yesterday", lake=lake)
    assert r.returncode == 2 and "--now" in r.stderr


def test_a_now_before_the_judged_commit_is_refused(lake, tmp_path):
    """--now before the ref's commit judged tables that did not exist then: every one read
    "fresh" at age 0. It is refused, naming the commit and its time."""
    _import(lake, tmp_path, "hourly", "1 hour")
    commit = weir_json("show", "main", lake=lake)
    before = _at(_time(commit["time"]) - dt.timedelta(days=1))
    r = weir("status", "--now", before, lake=lake)
    assert r.returncode == 2, r.stderr
    assert f"is before commit {commit['hash'][:12]} of main was made" in r.stderr, r.stderr
    with weirpkg.Client(lake) as client, pytest.raises(weirpkg.InvalidArgument):
        client.status(now=_time(commit["time"]) - dt.timedelta(seconds=1))


def test_the_sdk_status(lake, tmp_path):
    _import(lake, tmp_path, "hourly", "1 hour")
    with weirpkg.Client(lake) as client:
        head = client.get_commits("main", limit=1)[0]
        assert head.time is not None
        s = client.status(now=head.time + dt.timedelta(hours=3))
        assert not s.ok and [t.table for t in s.breached] == ["default.hourly"]
        (t,) = s.tables
        assert t.sla_seconds == 3600 and t.last_commit == head.hash and t.age_seconds == 3 * 3600
        assert client.status(ref="main", now=head.time).ok
        with pytest.raises(TypeError):
            client.status(now="now")  # type: ignore[arg-type]


def test_a_run_records_its_outputs_freshness(lake, tmp_path):
    # src has a contract (id required): an import without one makes optional columns, and
    # the required output id could not be proven non-null.
    _import(lake, tmp_path, "src", "1 day")
    proj = tmp_path / "proj"
    (proj / "contracts").mkdir(parents=True)
    _contract(proj / "contracts" / "out.yml", "Out", "1 hour")
    (proj / "out.sql").write_text("-- weir: name=out\n-- weir: output_schema=Out\nSELECT id FROM src\n")
    run = weir_json("run", proj, lake=lake)
    assert run["status"] == "succeeded"
    shown = weir_json("runs", "show", run["run_id"], lake=lake)
    (model,) = shown["models"]
    f = model["freshness"]
    assert f["table"] == "default.out" and f["status"] == "fresh" and f["sla"]["seconds"] == 3600
    assert f["last_change"]["commit"] == model["commit"]
    text = weir("runs", "show", run["run_id"], lake=lake).stdout
    assert "freshness      default.out: fresh (sla 1 hour)" in text
    # what the run recorded is what status reports after it
    (row,) = [t for t in weir_json("status", lake=lake)["tables"] if t["table"] == "default.out"]
    assert row["last_change"] == f["last_change"]
