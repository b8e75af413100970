"""Branches, merges, conflicts, time travel and revert, as docs/versioning.md requires."""
from __future__ import annotations

import pytest

import json

from conftest import ROOT, TITANIC, count, weir, weir_json, weir_list

pytestmark = pytest.mark.cli


def first_class_csv(tmp_path):
    out = tmp_path / "first.csv"
    r = weir("query", "SELECT * FROM titanic WHERE Pclass = 1", "--format", "csv", "--output", out,
             lake=tmp_path / "lake")
    assert r.returncode == 0, r.stderr
    return out


def test_branch_replace_merge_and_time_travel(titanic_lake, tmp_path):
    lake = titanic_lake
    old = weir_list("log", "-n", "1", lake=lake)[0]["hash"]
    assert weir("branch", "create", "dev", lake=lake).returncode == 0
    first = first_class_csv(tmp_path)
    r = weir("import", first, "--table", "titanic", "--mode", "replace", "--branch", "dev", lake=lake)
    assert r.returncode == 0, r.stderr
    assert count(lake, "SELECT count(*) FROM titanic") == 891
    assert count(lake, "SELECT count(*) FROM titanic", ref="dev") == 216
    m = weir_json("merge", "dev", "--into", "main", lake=lake)
    assert m["result"] == "fast-forward"
    assert count(lake, "SELECT count(*) FROM titanic") == 216
    assert count(lake, "SELECT count(*) FROM titanic", ref=old) == 891
    assert count(lake, "SELECT count(*) FROM titanic", ref=old[:12]) == 891
    assert count(lake, "SELECT count(*) FROM titanic", ref="main~1") == 891


def test_conflict_lists_tables_and_writes_nothing(titanic_lake, tmp_path):
    lake = titanic_lake
    first = first_class_csv(tmp_path)
    for b in ("a", "b"):
        assert weir("branch", "create", b, lake=lake).returncode == 0
        r = weir("import", first if b == "a" else TITANIC, "--table", "titanic", "--mode", "replace",
                 "--branch", b, lake=lake)
        assert r.returncode == 0, r.stderr
    assert weir("merge", "a", "--into", "main", lake=lake).returncode == 0
    head = weir_list("log", "-n", "1", lake=lake)[0]["hash"]
    r = weir("merge", "b", "--into", "main", lake=lake)
    assert r.returncode == 4, r.stderr
    assert "default.titanic" in r.stderr
    assert weir_list("log", "-n", "1", lake=lake)[0]["hash"] == head
    r = weir("merge", "b", "--into", "main", "--json", lake=lake)
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == "MergeConflict"
    assert [d["table"] for d in doc["error"]["details"]] == ["default.titanic"]


def test_three_way_merge_of_different_tables(titanic_lake, tmp_path):
    lake = titanic_lake
    weir("branch", "create", "x", lake=lake)
    r = weir("import", TITANIC, "--table", "other", "--branch", "x", lake=lake)
    assert r.returncode == 0, r.stderr
    r = weir("import", TITANIC, "--table", "third", lake=lake)
    assert r.returncode == 0, r.stderr
    m = weir_json("merge", "x", "--into", "main", lake=lake)
    assert m["result"] == "merge"
    names = [t["table"] for t in weir_list("tables", lake=lake)]
    assert names == ["default.other", "default.third", "default.titanic"]
    c = weir_json("show", "main", lake=lake)
    assert len(c["parents"]) == 2


def test_revert_and_read_after_drop(titanic_lake, tmp_path):
    lake = titanic_lake
    before = weir_list("log", "-n", "1", lake=lake)[0]["hash"]
    init = weir_list("log", lake=lake)[-1]["hash"]
    r = weir("revert", "titanic", "--to", init, lake=lake)   # titanic did not exist there: dropped
    assert r.returncode == 0, r.stderr
    assert weir_list("tables", lake=lake) == []
    assert count(lake, "SELECT count(*) FROM titanic", ref=before) == 891
    r = weir("revert", "titanic", "--to", before, lake=lake)
    assert r.returncode == 0, r.stderr
    assert count(lake, "SELECT count(*) FROM titanic") == 891
    log = weir_list("log", lake=lake)
    assert len(log) == 4   # init, import, revert (drop), revert (restore): history never rewritten


def test_tags_log_show_diff(titanic_lake, tmp_path):
    lake = titanic_lake
    assert weir("tag", "create", "v1", lake=lake).returncode == 0
    r = weir("tag", "create", "v1", lake=lake)
    assert r.returncode == 1 and "already exists" in r.stderr
    weir("import", TITANIC, "--table", "t2", lake=lake)
    d = weir_json("diff", "v1", "main", lake=lake)
    assert [a["table"] for a in d["added"]] == ["default.t2"]
    assert d["removed"] == [] and d["changed"] == []
    s = weir_json("show", "v1", lake=lake)
    assert [t["table"] for t in s["tables"]] == ["default.titanic"]
    assert s["tables"][0]["metadata_location"].endswith(".metadata.json")
    log = weir_list("log", "--ref", "main", "-n", "2", lake=lake)
    assert len(log) == 2
    assert log[0]["tables_changed"][0]["table"] == "default.t2"
    tags = weir_list("tag", "list", lake=lake)
    assert [t["name"] for t in tags] == ["v1"]


def test_branch_delete_rules(titanic_lake):
    lake = titanic_lake
    r = weir("branch", "delete", "main", lake=lake)
    assert r.returncode == 2
    weir("branch", "create", "tmp", lake=lake)
    assert weir("branch", "delete", "tmp", lake=lake).returncode == 0   # merged: head reachable from main
    weir("branch", "create", "wip", lake=lake)
    weir("import", TITANIC, "--table", "w", "--branch", "wip", lake=lake)
    r = weir("branch", "delete", "wip", lake=lake)
    assert r.returncode == 1 and "--force" in r.stderr
    assert weir("branch", "delete", "wip", "--force", lake=lake).returncode == 0


def test_unknown_ref(titanic_lake):
    r = weir("tables", "--ref", "nope", lake=titanic_lake)
    assert r.returncode == 1
    assert "nope" in r.stderr


@pytest.mark.parametrize("ref, why", [("a..b", 'it contains ".."'), ("bad name", "it contains a space"),
                                      ("main@{", 'it contains "@{"')])
def test_a_ref_that_can_never_exist_is_a_usage_error(titanic_lake, ref, why):
    """A ref no branch or tag can ever be named is a mistake in the command (exit 2), not
    "not found" (exit 1), which a script waiting for a branch may read as "not yet"."""
    for args in (("tables", "--ref", ref), ("log", ref), ("query", "SELECT 1", "--ref", ref)):
        r = weir(*args, lake=titanic_lake)
        assert r.returncode == 2, (args, r.stderr)
        assert f"ref '{ref}' can never exist: it is not a commit hash, and no branch or tag can have that name: {why}" \
            in r.stderr, r.stderr


@pytest.mark.parametrize("strategy, rows", [("source-wins", 891), ("target-wins", 216)])
def test_a_strategy_resolves_conflicting_tables(titanic_lake, tmp_path, strategy, rows):
    lake = titanic_lake
    first = first_class_csv(tmp_path)
    for b in ("a", "b"):
        assert weir("branch", "create", b, lake=lake).returncode == 0
    assert weir("import", first, "--table", "titanic", "--mode", "replace", "--branch", "a", lake=lake).returncode == 0
    assert weir("import", TITANIC, "--table", "titanic", "--mode", "replace", "--branch", "b", lake=lake).returncode == 0
    assert weir("import", TITANIC, "--table", "extra", "--branch", "b", lake=lake).returncode == 0
    assert weir("merge", "a", "--into", "main", lake=lake).returncode == 0
    m = weir_json("merge", "b", "--into", "main", "--strategy", strategy, lake=lake)
    assert m["result"] == "merge"
    actions = {t["table"]: t["change"] for t in m["tables"]}
    assert actions["default.titanic"] == "conflict: " + strategy.replace("-", " ")
    assert actions["default.extra"] == "added"    # a one-sided change is taken either way
    assert count(lake, "SELECT count(*) FROM titanic") == rows
    assert count(lake, "SELECT count(*) FROM extra") == 891
    shown = weir_json("show", "main", lake=lake)
    assert len(shown["parents"]) == 2
    # The resolution is recorded in the commit, not only in the merge's output.
    assert shown["properties"] == {"merge_strategy": strategy, "resolved_conflicts": "default.titanic"}


def test_an_unknown_strategy_is_a_usage_error(titanic_lake):
    assert weir("branch", "create", "a", lake=titanic_lake).returncode == 0
    r = weir("merge", "a", "--into", "main", "--strategy", "ours", lake=titanic_lake)
    assert r.returncode == 2
    assert 'unknown merge strategy "ours" (expected source-wins or target-wins)' in r.stderr


# ---- regressions: problems a first-time user found (each fails without its fix) ----


def test_refs_cannot_be_ambiguous(titanic_lake):
    assert weir("tag", "create", "v1", lake=titanic_lake).returncode == 0
    r = weir("branch", "create", "v1", lake=titanic_lake)
    assert r.returncode == 1 and 'a tag named "v1" already exists' in r.stderr
    r = weir("branch", "create", "deadbeef", lake=titanic_lake)
    assert r.returncode == 2 and "reads as a commit hash" in r.stderr
    r = weir("import", TITANIC, "--table", "x", "--branch", "v1", lake=titanic_lake)
    assert r.returncode == 2 and '"v1" is a tag, not a branch' in r.stderr


def test_revert_of_a_table_that_exists_nowhere(titanic_lake):
    r = weir("revert", "nope", "--to", "main", lake=titanic_lake)
    assert r.returncode == 1
    assert "table default.nope exists neither on branch main nor at main" in r.stderr


def test_log_n_zero_and_bare_tag(titanic_lake):
    assert weir_list("log", "-n", "0", lake=titanic_lake) == []
    weir("tag", "create", "t1", lake=titanic_lake)
    r = weir("tag", lake=titanic_lake)
    assert r.returncode == 0 and "t1" in r.stdout


def test_reverting_a_run_that_published_nothing_says_so(titanic_lake, tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "contracts").mkdir()
    (proj / "contracts" / "c.yml").write_text("contract:\n  name: Small\n  columns:\n    - {name: n, type: Int64, max: 1}\n")
    (proj / "big.sql").write_text("-- weir: output_schema=Small\nSELECT count(*) AS n FROM titanic\n")
    assert weir("run", proj, lake=titanic_lake).returncode == 3
    run = weir_list("runs", lake=titanic_lake)[0]
    r = weir("revert", "--run", run["run_id"], lake=titanic_lake)
    assert r.returncode == 0
    assert f"Nothing to revert: no table on main is at a version run {run['run_id']} wrote" in r.stdout, r.stdout


def test_reverting_a_run_twice_does_not_say_it_published_nothing(titanic_lake):
    """The second revert of a run said "run X published no tables": it had published two,
    already reverted."""
    assert weir("run", ROOT / "examples" / "titanic" / "project", lake=titanic_lake).returncode == 0
    run = weir_list("runs", lake=titanic_lake)[0]
    assert weir("revert", "--run", run["run_id"], lake=titanic_lake).returncode == 0
    r = weir("revert", "--run", run["run_id"], lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert "(it published none there, or they were reverted already)" in r.stdout
    assert "published no tables" not in r.stdout


def test_table_names_that_differ_only_in_case_are_refused(titanic_lake):
    r = weir("import", TITANIC, "--table", "Titanic", lake=titanic_lake)
    assert r.returncode == 1
    assert ("table default.Titanic would differ from table default.titanic on branch main only in case"
            in r.stderr)


def test_merge_of_case_twins_is_a_conflict(lake, tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("a\n1\n")
    assert weir("branch", "create", "dev", lake=lake).returncode == 0
    assert weir("import", f, "--table", "T", "--branch", "dev", lake=lake).returncode == 0
    assert weir("import", f, "--table", "t", lake=lake).returncode == 0
    before = weir_list("log", "-n", "1", lake=lake)
    r = weir("merge", "dev", "--into", "main", lake=lake)
    assert r.returncode == 4
    assert "default.T (main: added default.t, whose name differs only in case, dev: added)" in r.stderr
    assert weir_list("log", "-n", "1", lake=lake) == before


def test_tags_under_run_are_reserved_like_branches(lake):
    r = weir("tag", "create", "run/xyz", lake=lake)
    assert r.returncode == 2
    assert 'invalid tag name "run/xyz": names under run/ are reserved for pipeline runs' in r.stderr


def test_log_takes_the_ref_as_an_argument(titanic_lake):
    assert weir("branch", "create", "dev", lake=titanic_lake).returncode == 0
    r = weir("log", "dev", "-n", "1", "--json", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["commits"][0]["hash"] == weir_json("show", "dev", lake=titanic_lake)["hash"]
    r = weir("log", "dev", "--ref", "main", lake=titanic_lake)
    assert r.returncode == 2 and "give the ref once" in r.stderr


def test_merge_message_on_a_fast_forward_is_reported_unused(titanic_lake):
    assert weir("branch", "create", "dev", lake=titanic_lake).returncode == 0
    assert weir("import", TITANIC, "--table", "t2", "--branch", "dev", lake=titanic_lake).returncode == 0
    r = weir("merge", "dev", "--into", "main", "-m", "release", lake=titanic_lake)
    assert r.returncode == 0
    assert "note: --message was not used: a fast-forward makes no commit" in r.stderr


def test_a_tables_log_follows_its_renames_and_stops_at_its_creation(lake):
    """`weir log --table` (weir_table_log): a table's history across a rename, not past the
    commit that created it (an older table dropped under the same name is another), and a
    table that came from a merged branch with the commits that wrote it there."""
    def imp(table, *extra):
        r = weir("import", TITANIC, "--table", table, *extra, lake=lake)
        assert r.returncode == 0, r.stderr

    def log(table, *extra):
        return [c["message"] for c in weir_list("log", "--table", table, *extra, lake=lake)]

    imp("t")
    imp("other")
    imp("t", "--mode", "append")
    assert weir("table", "rename", "t", "u", lake=lake).returncode == 0
    imp("t")  # a new table under the old name
    imp("u", "--mode", "append")
    assert weir("branch", "create", "dev", lake=lake).returncode == 0
    imp("d", "--branch", "dev")
    imp("d", "--branch", "dev", "--mode", "append")
    assert weir("merge", "dev", "--into", "main", "--no-ff", lake=lake).returncode == 0
    assert log("u") == ["import titanic.csv into default.u", "rename table default.t to default.u",
                        "import titanic.csv into default.t", "import titanic.csv into default.t"]
    assert log("t") == ["import titanic.csv into default.t"]
    assert log("u", "-n", "2") == log("u")[:2]
    merged = log("d")
    assert len(merged) == 3 and merged[1:] == ["import titanic.csv into default.d"] * 2, merged
    # At an older ref, the name there: u did not exist yet, t was the renamed table.
    assert log("t", "--ref", "main~4") == ["import titanic.csv into default.t"] * 2
    r = weir("log", "--table", "nope", lake=lake)
    assert r.returncode == 1 and "table default.nope has no history at main" in r.stderr, r.stderr
    r = weir("log", "--table", "bad name", lake=lake)
    assert r.returncode == 2, r.stderr
