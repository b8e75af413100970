"""The contract-aware merge gate (issue 16, docs/versioning.md "Merge gate"): a merge into a
branch that requires checks (`weir branch protect B --require-check PROJECT`), or one given
`--check PROJECT`, commits only if every project plans at the merged state and every table
the merge changes holds data its stored contract accepts; otherwise exit 3, nothing merged.
"""
from __future__ import annotations

import json
import pathlib

import pytest

import weir as weirpkg
from conftest import weir, weir_json
from weir.protection import is_protected

pytestmark = pytest.mark.cli

UNIQUE = """\
contract:
  name: events
  version: "1"
  columns:
    - name: id
      type: Int64
      unique: true
    - name: b
      type: Int64
"""


def _csv(path: pathlib.Path, text: str) -> pathlib.Path:
    path.write_text(text)
    return path


def _ok(*args, lake, **kw):
    r = weir(*args, lake=lake, **kw)
    assert r.returncode == 0, f"weir {' '.join(map(str, args))}: {r.returncode} {r.stderr}"
    return r


def _head(lake, ref: str = "main") -> str:
    return weir_json("show", ref, lake=lake)["hash"]


@pytest.fixture
def gated(lake: pathlib.Path, tmp_path: pathlib.Path) -> dict[str, pathlib.Path]:
    """main holds events(id, b); project `proj` has model `down` reading events.b; branch
    dev replaces events with a version that drops b (down no longer plans there)."""
    _ok("import", _csv(tmp_path / "e.csv", "id,b\n1,10\n2,20\n"), "--table", "events", lake=lake)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "weir_project.yml").write_text("name: gate\n")
    (proj / "down.sql").write_text("-- weir: name=down\nSELECT id, b FROM events\n")
    _ok("check", proj, lake=lake)
    _ok("branch", "create", "dev", lake=lake)
    _ok("import", _csv(tmp_path / "e2.csv", "id\n3\n"), "--table", "events", "--mode", "replace", "--branch", "dev",
        lake=lake)
    return {"lake": lake, "proj": proj, "tmp": tmp_path}


def test_a_change_that_breaks_a_downstream_plan_cannot_merge_into_a_gated_main(gated):
    lake, proj = gated["lake"], gated["proj"]
    doc = weir_json("branch", "protect", "main", "--require-check", proj, lake=lake)
    assert doc["protected"] and [c["project"] for c in doc["require_checks"]] == [str(proj)]
    before = _head(lake)
    r = weir("merge", "dev", "--into", "main", lake=lake)
    assert r.returncode == 3, r.stderr
    assert "model down" in r.stderr and '"b"' in r.stderr and "nothing was merged" in r.stderr
    assert _head(lake) == before, "a refused merge writes nothing"
    r = weir("merge", "dev", "--into", "main", "--json", lake=lake)
    err = json.loads(r.stdout)["error"]
    assert err["code"] == "PlanError" and err["exit_code"] == 3
    (item,) = err["details"]
    assert item["kind"] == "plan_problem" and item["model"] == "down" and item["project"] == str(proj)


def test_the_same_branch_merges_when_the_gate_is_not_required(gated):
    lake = gated["lake"]
    _ok("branch", "protect", "main", lake=lake)  # protected, but no check required
    r = _ok("merge", "dev", "--into", "main", lake=lake)
    assert "Fast-forward" in r.stdout
    assert _head(lake) == _head(lake, "dev")


def test_unprotecting_drops_the_gate(gated):
    lake, proj = gated["lake"], gated["proj"]
    _ok("branch", "protect", "main", "--require-check", proj, lake=lake)
    doc = weir_json("branch", "unprotect", "main", lake=lake)
    assert doc == {"schema_version": 1, "branch": "main", "protected": False, "require_checks": []}
    _ok("branch", "protect", "main", lake=lake)
    assert weir_json("branch", "protect", "main", lake=lake)["require_checks"] == []
    _ok("merge", "dev", "--into", "main", lake=lake)


def test_merge_check_runs_the_gate_on_demand_without_protection(gated):
    lake, proj = gated["lake"], gated["proj"]
    before = _head(lake)
    r = weir("merge", "dev", "--into", "main", "--check", proj, lake=lake)
    assert r.returncode == 3 and "model down" in r.stderr, r.stderr
    assert _head(lake) == before
    _ok("merge", "dev", "--into", "main", lake=lake)


def test_a_check_the_branch_already_requires_is_one_gate(gated):
    """`--check P` for a project the branch requires (by another spelling too) listed each
    problem twice."""
    lake, proj = gated["lake"], gated["proj"]
    _ok("branch", "protect", "main", "--require-check", proj, lake=lake)
    for given in (proj, proj / ".." / proj.name):
        r = weir("merge", "dev", "--into", "main", "--check", given, "--json", lake=lake)
        assert r.returncode == 3, r.stderr
        (item,) = json.loads(r.stdout)["error"]["details"]
        assert item["model"] == "down"


def test_the_gate_judges_the_merged_state_not_the_source(lake, tmp_path):
    """dev alone does not plan (it lacks `lookup`, which main got after dev branched); the
    merged state does, so the merge goes through."""
    _ok("import", _csv(tmp_path / "e.csv", "id,b\n1,10\n"), "--table", "events", lake=lake)
    _ok("branch", "create", "dev", lake=lake)
    _ok("branch", "create", "feature", lake=lake)
    _ok("import", _csv(tmp_path / "l.csv", "id,name\n1,one\n"), "--table", "lookup", "--branch", "feature", lake=lake)
    _ok("merge", "feature", "--into", "main", lake=lake)
    _ok("import", _csv(tmp_path / "e2.csv", "id,b\n2,20\n"), "--table", "events", "--mode", "append",
        "--branch", "dev", lake=lake)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "j.sql").write_text("-- weir: name=j\nSELECT e.id, e.b, l.name FROM events e JOIN lookup l USING (id)\n")
    assert weir("check", proj, "--ref", "dev", lake=lake).returncode == 3
    _ok("branch", "protect", "main", "--require-check", proj, lake=lake)
    r = _ok("merge", "dev", "--into", "main", lake=lake)
    assert "Merged dev into main" in r.stdout


def test_merged_data_that_breaks_its_contract_is_refused(lake, tmp_path):
    """Both sides appended id 5: each append is valid alone, their union breaks `unique`.
    Without the gate the append-aware merge keeps both rows; with it, nothing merges."""
    contract = tmp_path / "c.yml"
    contract.write_text(UNIQUE)
    _ok("import", _csv(tmp_path / "e.csv", "id,b\n1,10\n"), "--table", "events", "--contract", contract, lake=lake)
    for branch in ("a", "b"):
        _ok("branch", "create", branch, lake=lake)
    for branch, b in (("a", 1), ("b", 2)):
        _ok("import", _csv(tmp_path / f"{branch}.csv", f"id,b\n5,{b}\n"), "--table", "events", "--mode", "append",
            "--branch", branch, lake=lake)
    proj = tmp_path / "ids"  # plans on every side: only the data can fail
    proj.mkdir()
    (proj / "ids.sql").write_text("-- weir: name=ids\nSELECT id FROM events\n")
    _ok("merge", "a", "--into", "main", "--check", proj, lake=lake)
    before = _head(lake)
    r = weir("merge", "b", "--into", "main", "--check", proj, "--json", lake=lake)
    assert r.returncode == 3, r.stderr
    err = json.loads(r.stdout)["error"]
    assert err["code"] == "ContractViolation"
    assert "table default.events" in err["message"] and "duplicate" in err["message"]
    assert err["details"][0]["kind"] == "contract_violation" and err["details"][0]["table"] == "default.events"
    assert _head(lake) == before
    r = _ok("merge", "b", "--into", "main", lake=lake)
    assert "merged: appends" in r.stdout


def test_a_relative_project_is_stored_as_given_and_resolved_against_the_lake(gated):
    lake, proj = gated["lake"], gated["proj"]
    rel = "../proj"  # the lake is tmp/lake, the project tmp/proj
    doc = weir_json("branch", "protect", "main", "--require-check", rel, lake=lake, cwd="/")
    assert doc["require_checks"] == [{"project": rel, "path": str(proj.resolve())}]
    r = weir("merge", "dev", "--into", "main", lake=lake, cwd="/")
    assert r.returncode == 3 and "model down" in r.stderr, r.stderr


def test_a_missing_project_is_a_clear_error(gated):
    lake, proj, tmp = gated["lake"], gated["proj"], gated["tmp"]
    r = weir("branch", "protect", "main", "--require-check", tmp / "nowhere", lake=lake)
    assert r.returncode == 1 and "nowhere" in r.stderr and "is not a folder" in r.stderr
    _ok("branch", "protect", "main", "--require-check", proj, lake=lake)
    moved = tmp / "moved"
    proj.rename(moved)
    before = _head(lake)
    r = weir("merge", "dev", "--into", "main", lake=lake)
    assert r.returncode == 1, r.stderr
    assert str(proj) in r.stderr and "merge gate of branch main" in r.stderr and "not a folder" in r.stderr
    assert _head(lake) == before
    _ok("branch", "unprotect", "main", lake=lake)
    r = weir("merge", "dev", "--into", "main", "--check", tmp / "nowhere", lake=lake)
    assert r.returncode == 1 and "nowhere" in r.stderr


def test_the_gate_keeps_the_expect_head_rule(gated):
    """The gate plans inside the merge's transaction, against the head the merge commits on:
    a reviewed head that is no longer the branch's is still refused as before."""
    lake, proj, tmp = gated["lake"], gated["proj"], gated["tmp"]
    reviewed = _head(lake)
    _ok("branch", "create", "side", lake=lake)
    _ok("import", _csv(tmp / "s.csv", "id,b\n9,90\n"), "--table", "events", "--mode", "append", "--branch", "side",
        lake=lake)
    _ok("merge", "side", "--into", "main", lake=lake)
    _ok("branch", "protect", "main", "--require-check", proj, lake=lake)
    moved = _head(lake)
    r = weir("merge", "dev", "--into", "main", "--expect-head", reviewed, lake=lake)
    assert r.returncode == 4 and "default.events" in r.stderr, r.stderr
    assert _head(lake) == moved


def test_the_sdk_gates_merges_too(gated):
    lake, proj = gated["lake"], gated["proj"]
    with weirpkg.Client(lake) as client:
        client.protect_branch("main", require_check=[str(proj)])
        p = client.branch_protection("main")
        assert p.protected and [c.project for c in p.require_checks] == [str(proj)]
        before = client.resolve("main")
        with pytest.raises(weirpkg.PlanError) as e:
            client.merge("dev", into="main")
        assert "model down" in str(e.value)
        assert client.resolve("main") == before
        client.protect_branch("main", protected=False)
        assert client.branch_protection("main").require_checks == ()
        with pytest.raises(weirpkg.PlanError):
            client.merge("dev", into="main", check=[proj])
        assert client.merge("dev", into="main").result == "fast-forward"
        with pytest.raises(TypeError):
            client.merge("dev", into="main", check=str(proj))  # type: ignore[arg-type]


def test_agents_see_the_catalogs_protection(gated):
    """weir.protection (weir mcp's predicate) reads the catalog: a branch protected there
    is protected for agents too, beyond main."""
    lake = gated["lake"]
    _ok("branch", "create", "release", lake=lake)
    with weirpkg.Client(lake) as client:
        assert not is_protected(client, "release") and is_protected(client, "main")
        client.protect_branch("release")
        assert is_protected(client, "release")
        assert not is_protected(client, "no-such-branch")


def test_a_run_publishing_to_a_gated_branch_is_gated(gated):
    """A run publishes by a merge: into a gated main it commits only if the gate passes."""
    lake, proj, tmp = gated["lake"], gated["proj"], gated["tmp"]
    writer = tmp / "writer"
    writer.mkdir()
    (writer / "events.sql").write_text("-- weir: name=events\nSELECT 7::BIGINT AS id\n")
    _ok("branch", "protect", "main", "--require-check", proj, lake=lake)
    before = _head(lake)
    r = weir("run", writer, "--json", lake=lake)
    assert r.returncode == 3, r.stderr
    assert "model down" in r.stderr and "merge gate of main" in r.stderr
    assert _head(lake) == before
    run = weir_json("runs", lake=lake)["runs"][0]
    assert run["status"] == "failed"
    _ok("branch", "protect", "main", "--require-check", writer, lake=lake)  # a gate the run passes
    r = _ok("run", writer, lake=lake)
    assert _head(lake) != before
