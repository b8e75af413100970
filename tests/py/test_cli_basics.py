"""The command line's contract: help everywhere, exit codes, names refused at the door."""
from __future__ import annotations

import pytest

import json
import os
import pathlib
import re
import subprocess
import sys

from conftest import TITANIC, weir, weir_list

pytestmark = pytest.mark.cli


def test_every_command_answers_help():
    top = weir("--help")
    assert top.returncode == 0
    commands = re.findall(r"^  ([a-z]+(?: [a-z]+)?)\s{2,}", top.stdout, re.M)
    expected = {"init", "import", "tables", "describe", "query", "branch", "tag list", "log", "show",
                "diff", "merge", "revert", "check", "run", "runs"}
    assert expected <= set(commands), commands
    for c in commands:
        r = weir(*c.split(), "--help")
        assert r.returncode == 0, c
        assert r.stdout.startswith(f"usage: weir {c}"), r.stdout
        assert "example:" in r.stdout, c
        assert "--json" in r.stdout, c


def test_unknown_command_and_option_are_usage_errors(lake):
    r = weir("frobnicate", lake=lake)
    assert r.returncode == 2
    assert 'error: unknown command "frobnicate"' in r.stderr
    r = weir("tables", "--nope", lake=lake)
    assert r.returncode == 2
    assert "unknown option --nope" in r.stderr


def test_init_refuses_an_existing_lake(lake):
    r = weir("init", lake)
    assert r.returncode == 1
    assert "already exists" in r.stderr
    assert r.stderr.startswith("error: ")


def test_lake_found_walking_up(tmp_path):
    r = weir("init", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / ".weir" / "catalog.db").exists()
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    r = weir("branch", "--json", cwd=sub)
    assert r.returncode == 0, r.stderr
    assert [b["name"] for b in json.loads(r.stdout)["branches"]] == ["main"]


def test_no_lake_message_says_where_it_looked(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "WEIR_LAKE"}
    r = weir("tables", cwd=tmp_path, env={"WEIR_LAKE": ""})
    assert r.returncode == 1
    assert "no lake found" in r.stderr
    assert "weir init" in r.stderr
    del env


def test_json_errors_on_stdout(lake):
    r = weir("describe", "nope", "--json", lake=lake)
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == "NotFound"
    assert "default.nope" in doc["error"]["message"]
    assert r.stderr.startswith("error: ")


def test_bad_table_name_refused_before_anything_is_touched(lake):
    before = sorted(p.relative_to(lake) for p in lake.rglob("*") if "catalog.db" not in p.name)
    log_before = weir_list("log", lake=lake)
    for bad in ["../x", "a/b", "1x", "x.y.z", "", "a b"]:
        r = weir("import", TITANIC, "--table", bad, lake=lake)
        assert r.returncode == 2, (bad, r.stderr)
        assert "invalid table name" in r.stderr
    after = sorted(p.relative_to(lake) for p in lake.rglob("*") if "catalog.db" not in p.name)
    assert before == after
    assert not (lake.parent / "x").exists()
    assert weir_list("log", lake=lake) == log_before


def test_bad_branch_names_refused(lake):
    for bad in ["a..b", "-x", "a b", "a~1", "x:y", "x.lock", "run/mine"]:
        r = weir("branch", "create", bad, lake=lake)
        assert r.returncode == 2, (bad, r.stderr)
    assert [b["name"] for b in weir_list("branch", lake=lake)] == ["main"]


def test_main_exists_with_one_commit(lake):
    log = weir_list("log", lake=lake)
    assert len(log) == 1
    c = log[0]
    assert set(c) >= {"hash", "parents", "time", "author", "message", "tables_changed"}
    assert len(c["hash"]) == 64 and c["parents"] == []
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$", c["time"])


def test_catalog_commands_do_not_load_duckdb(titanic_lake):
    """libweir loads DuckDB on the first engine (src/engine/duckdb_loader.c): commands that
    touch only the catalog and the Iceberg metadata must work without it, and a command
    that needs it says which library it could not load."""
    missing = {"WEIR_DUCKDB_LIBRARY": "/nonexistent/libduckdb.so"}
    for cmd in (["tables"], ["describe", "titanic"], ["log", "-n", "2"], ["show", "main"],
                ["branch", "create", "dev"], ["tag", "create", "t1"], ["diff", "main", "dev"],
                ["merge", "dev", "--into", "main"], ["branch", "list"], ["runs"],
                ["revert", "titanic", "--to", "main"]):
        r = weir(*cmd, lake=titanic_lake, env=missing)
        assert r.returncode == 0, (cmd, r.stderr)
    r = weir("query", "SELECT count(*) FROM titanic", lake=titanic_lake, env=missing)
    assert r.returncode == 1
    assert r.stderr.startswith("error: cannot load DuckDB's library (WEIR_DUCKDB_LIBRARY="
                               "/nonexistent/libduckdb.so: "), r.stderr
    assert "set WEIR_DUCKDB_LIBRARY to the path of libduckdb.so" in r.stderr


def test_duckdb_symbol_list_is_generated_from_the_sources():
    """src/engine/duckdb_symbols.h lists exactly the DuckDB functions src/ calls."""
    root = pathlib.Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "scripts" / "gen_duckdb_shim.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---- regressions: problems a first-time user found (each fails without its fix) ----


def test_a_moved_lake_is_refused_with_a_reason(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert weir("init", a).returncode == 0
    assert weir("import", TITANIC, "--table", "t", lake=a).returncode == 0
    a.rename(b)
    r = weir("tables", lake=b)
    assert r.returncode == 1
    assert f"was created at {a}" in r.stderr and "cannot be moved or copied" in r.stderr


def test_init_refuses_an_empty_path(tmp_path):
    r = weir("init", "", cwd=tmp_path)
    assert r.returncode == 2
    assert "the lake path is empty" in r.stderr
    assert not (tmp_path / ".weir").exists()


def test_short_option_with_attached_value_and_contradictory_verbosity(titanic_lake):
    r = weir("log", "-n1", "--json", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["commits"]) == 1
    r = weir("-q", "-v", "log", lake=titanic_lake)
    assert r.returncode == 2
    assert "--quiet and --verbose" in r.stderr
