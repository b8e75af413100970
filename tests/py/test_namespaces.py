"""Namespaces are versioned content (docs/versioning.md, "Namespaces"): create, drop and
property changes are commits on a branch, and a namespace exists at the commits that have
it. Runs on both catalog backends (WEIR_TEST_CATALOG=postgresql, conftest.py)."""
from __future__ import annotations

import pathlib
import sqlite3

from conftest import PG, count, pg_query, weir, weir_json, weir_list


def names(lake, ref: str = "main") -> dict[str, bool]:
    return {n["name"]: n["created"] for n in weir_list("namespace", "list", "--ref", ref, lake=lake)}


def test_a_namespace_created_on_a_branch_is_absent_elsewhere_until_merged(lake):
    assert weir("branch", "create", "dev", lake=lake).returncode == 0
    doc = weir_json("namespace", "create", "raw", "--branch", "dev", lake=lake)
    assert doc["branch"] == "dev" and doc["change"] == "added" and len(doc["commit"]) == 64
    assert names(lake, "dev") == {"default": False, "raw": True}
    assert "raw" not in names(lake, "main")
    log = weir("log", "dev", "-n", "1", lake=lake).stdout
    assert "create namespace raw" in log and "namespace raw (added)" in log
    entry = weir_list("log", "dev", "-n", "1", lake=lake)[0]
    assert entry["namespaces_changed"] == [{"namespace": "raw", "change": "added"}]
    assert entry["tables_changed"] == []
    # not a table: no reader sees it as one
    assert weir_list("tables", "--ref", "dev", lake=lake) == []
    r = weir("merge", "dev", "--into", "main", "--no-ff", lake=lake)
    assert r.returncode == 0 and "  namespace raw (added)" in r.stdout, r.stdout
    assert names(lake, "main")["raw"] is True


def test_a_dropped_namespace_stays_at_older_commits(lake):
    weir_json("namespace", "create", "raw", lake=lake)
    created = weir_list("log", "-n", "1", lake=lake)[0]["hash"]
    doc = weir_json("namespace", "drop", "raw", lake=lake)
    assert doc["change"] == "dropped" and doc["branch"] == "main"
    assert "raw" not in names(lake)
    assert names(lake, created)["raw"] is True
    assert "namespace raw (dropped)" in weir("log", "-n", "1", lake=lake).stdout
    r = weir("namespace", "drop", "raw", lake=lake)
    assert r.returncode != 0 and "namespace raw was not created on branch main" in r.stderr


def test_create_twice_and_drop_with_tables_are_refused(titanic_lake):
    lake = titanic_lake
    weir_json("namespace", "create", "raw", lake=lake)
    r = weir("namespace", "create", "raw", lake=lake)
    assert r.returncode != 0 and "namespace raw already exists on branch main" in r.stderr
    assert weir("table", "rename", "titanic", "raw.titanic", lake=lake).returncode == 0
    r = weir("namespace", "drop", "raw", lake=lake)
    assert r.returncode != 0 and "namespace raw is not empty: table raw.titanic on branch main" in r.stderr
    # another branch without the table may drop it: the rule is per branch
    assert weir("branch", "create", "old", "--from", "main~1", lake=lake).returncode == 0
    weir_json("namespace", "drop", "raw", "--branch", "old", lake=lake)


def test_protected_branches_refuse_namespace_commits(lake):
    assert weir("branch", "protect", "main", lake=lake).returncode == 0
    r = weir("namespace", "create", "raw", lake=lake)
    assert r.returncode != 0 and "branch main is protected" in r.stderr
    assert "raw" not in names(lake)


def test_merges_of_namespaces(titanic_lake):
    lake = titanic_lake
    for b in ("a", "b"):
        assert weir("branch", "create", b, lake=lake).returncode == 0
    # both sides create the same namespace with the same (no) properties: no conflict
    weir_json("namespace", "create", "raw", "--branch", "a", lake=lake)
    weir_json("namespace", "create", "raw", "--branch", "b", lake=lake)
    assert weir("merge", "a", "--into", "main", lake=lake).returncode == 0
    r = weir("merge", "b", "--into", "main", lake=lake)
    assert r.returncode == 0, r.stderr
    assert names(lake)["raw"] is True
    # one side drops the namespace while the other adds a table in it: the table keeps
    # its namespace existing (a table's namespace exists while the table does)
    assert weir("branch", "create", "c", lake=lake).returncode == 0
    assert weir("branch", "create", "d", lake=lake).returncode == 0
    weir_json("namespace", "drop", "raw", "--branch", "c", lake=lake)
    assert weir("table", "rename", "titanic", "raw.titanic", "--branch", "d", lake=lake).returncode == 0
    assert weir("merge", "c", "--into", "main", lake=lake).returncode == 0
    r = weir("merge", "d", "--into", "main", lake=lake)
    assert r.returncode == 0, r.stderr
    ns = {n["name"]: n for n in weir_list("namespace", "list", lake=lake)}
    assert ns["raw"]["created"] is False and ns["raw"]["tables"] == 1


def catalog_sql(lake, sql: str) -> None:
    """Runs SQL in the lake's catalog, whichever backend it is on."""
    if PG:
        pg_query(lake, sql)
        return
    db = sqlite3.connect(pathlib.Path(lake) / "catalog.db")
    with db:
        db.execute(sql)
    db.close()


def test_lake_wide_namespaces_of_older_catalogs_keep_existing_at_every_ref(lake):
    """A `namespaces` row (what weir wrote before namespaces were versioned) keeps meaning
    what it meant: it exists at every ref and commit, and its drop is lake-wide."""
    first = weir_list("log", lake=lake)[0]["hash"]
    assert weir("branch", "create", "dev", lake=lake).returncode == 0
    catalog_sql(lake, "INSERT INTO namespaces (name, properties, created_us) VALUES ('old', '{}', 0)")
    for ref in ("main", "dev", first):
        assert names(lake, ref)["old"] is True
    r = weir("namespace", "create", "old", "--branch", "dev", lake=lake)
    assert r.returncode != 0 and "namespace old already exists (lake-wide)" in r.stderr
    r = weir("namespace", "drop", "old", lake=lake)
    assert r.returncode == 0 and "Dropped namespace old (lake-wide)" in r.stdout
    for ref in ("main", "dev", first):
        assert "old" not in names(lake, ref)


def test_namespace_entries_are_no_tables_to_any_reader(titanic_lake):
    """gc, queries, status, describe, diff and export read the table map: a namespace
    entry (whose content is properties, not a metadata file) must not reach them as a table."""
    lake = titanic_lake
    weir_json("namespace", "create", "raw", lake=lake)
    assert weir("branch", "create", "dev", lake=lake).returncode == 0
    weir_json("namespace", "create", "lab", "--branch", "dev", lake=lake)
    r = weir("gc", "--grace", "0s", lake=lake)
    assert r.returncode == 0, r.stderr
    assert count(lake, "SELECT count(*) FROM titanic") == 891
    assert count(lake, "SELECT count(*) FROM titanic", ref="dev") == 891
    assert [t["table"] for t in weir_list("tables", lake=lake)] == ["default.titanic"]
    for args in (("status",), ("describe", "titanic"), ("diff", "main", "dev")):
        r = weir(*args, lake=lake)
        assert r.returncode == 0, (args, r.stderr)
        assert "raw" not in r.stdout and "lab" not in r.stdout, (args, r.stdout)
    # a commit shows the tables it holds, not the namespaces
    shown = weir_json("show", "main", lake=lake)
    assert [t["table"] for t in shown["tables"]] == ["default.titanic"]
    merged = weir_json("merge", "dev", "--into", "main", lake=lake)
    assert merged["namespaces"] == [{"namespace": "lab", "change": "added"}] and merged["tables"] == []


def test_expect_head_refuses_a_namespace_change_decided_before_it_changed(lake):
    reviewed = weir_list("log", "-n", "1", lake=lake)[0]["hash"]
    weir_json("namespace", "create", "raw", lake=lake)
    # decided at `reviewed`, when raw did not exist: the branch moved and raw changed
    r = weir("namespace", "drop", "raw", "--expect-head", reviewed, lake=lake)
    assert r.returncode == 4 and "namespace raw changed (by commit" in r.stderr, r.stderr
    assert names(lake)["raw"] is True
    # another namespace's change since the reviewed head does not refuse it
    weir_json("namespace", "create", "lab", "--expect-head", reviewed, lake=lake)
    head = weir_list("log", "-n", "1", lake=lake)[0]["hash"]
    weir_json("namespace", "drop", "lab", "--expect-head", head, lake=lake)
