"""The command line's contract: help everywhere, exit codes, names refused at the door."""
from __future__ import annotations

import pytest

import json
import os
import pathlib
import re
import subprocess
import sys

from conftest import PG, TITANIC, weir, weir_list

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
    assert (tmp_path / ".weir" / ("lake.json" if PG else "catalog.db")).exists()
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
    assert r.stderr.startswith("error: cannot load DuckDB's library (duckdb_library="
                               "/nonexistent/libduckdb.so: "), r.stderr
    assert "$WEIR_DUCKDB_LIBRARY for the CLI and the SDK" in r.stderr


def test_duckdb_symbol_list_is_generated_from_the_sources():
    """src/engine/duckdb_symbols.h lists exactly the DuckDB functions src/ calls."""
    root = pathlib.Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "scripts" / "gen_duckdb_shim.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---- issue 15: what a new user hit -------------------------------------------------------

def test_weir_help_is_help():
    top = weir("help")
    assert top.returncode == 0 and top.stdout == weir("--help").stdout and "commands:" in top.stdout
    r = weir("help", "branch", "create")
    assert r.returncode == 0 and r.stdout == weir("branch", "create", "--help").stdout
    assert r.stdout.startswith("usage: weir branch create NAME")
    r = weir("help", "frobnicate")
    assert r.returncode == 2 and 'unknown command "frobnicate"' in r.stderr


def test_dash_n_has_one_meaning():
    """`-n` was "at most N commits" for log and "dry run" for run: now only the former."""
    top = weir("--help")
    meanings = set()
    for c in re.findall(r"^  ([a-z]+(?: [a-z]+)?)\s{2,}", top.stdout, re.M):
        out = weir(*c.split(), "--help").stdout
        meanings |= set(re.findall(r"^  -n, (--[a-z-]+)", out, re.M))
    assert meanings == {"--max-count"}
    r = weir("run", "somewhere", "-n")
    assert r.returncode == 2 and "unknown option -n for weir run" in r.stderr


def test_init_without_a_path_uses_weir_lake(tmp_path):
    target = tmp_path / "from-env"
    r = weir("init", cwd=tmp_path, env={"WEIR_LAKE": str(target)})
    assert r.returncode == 0, r.stderr
    assert (target / "lake.json").exists() and not (tmp_path / ".weir").exists()
    assert weir_list("branch", env={"WEIR_LAKE": str(target)})[0]["name"] == "main"
    # --lake and an argument still come first.
    other = tmp_path / "arg"
    assert weir("init", other, env={"WEIR_LAKE": str(target)}).returncode == 0 and (other / "lake.json").exists()


def test_no_advice_that_cannot_work(titanic_lake, tmp_path):
    head = weir_list("log", "-n", "1", lake=titanic_lake)[0]["hash"]
    # A commit hash is not a branch, and cannot be made one (names that read as hashes are refused).
    r = weir("merge", "main", "--into", head, lake=titanic_lake)
    assert r.returncode == 2, r.stderr
    assert f'"{head}" is a commit hash, not a branch' in r.stderr and f"weir branch create {head}" not in r.stderr
    assert f"weir branch create NAME --from {head[:12]}" in r.stderr
    assert "reads as a commit hash" in weir("branch", "create", head, lake=titanic_lake).stderr
    # A file is not a place for a lake.
    f = tmp_path / "data.csv"
    f.write_text("x\n1\n")
    r = weir("tables", lake=f)
    assert r.returncode == 1 and "it is a file, not a folder" in r.stderr and "weir init" not in r.stderr, r.stderr
    r = weir("init", f)
    assert r.returncode == 2 and "it is a file, not a folder" in r.stderr, r.stderr
    # Nor is the inside of another lake.
    inner = titanic_lake / "warehouse"
    r = weir("tables", lake=inner)
    assert r.returncode == 1 and f"it is inside the lake at {titanic_lake}" in r.stderr and "weir init" not in r.stderr
    r = weir("init", inner / "x")
    assert r.returncode == 2 and f"inside the lake at {titanic_lake}" in r.stderr, r.stderr
    assert not (inner / "x").exists()
    # A folder that already holds files is not one either: a lake owns its folder.
    project = tmp_path / "project"
    project.mkdir()
    (project / "models.py").write_text("# mine\n")
    r = weir("init", project)
    assert r.returncode == 2 and "the folder is not empty (it holds models.py)" in r.stderr, r.stderr
    assert sorted(p.name for p in project.iterdir()) == ["models.py"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert weir("init", empty).returncode == 0 and (empty / "lake.json").exists()


def test_describe_shows_the_contract(lake):
    contract = pathlib.Path(__file__).resolve().parents[2] / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"
    assert weir("import", TITANIC, "--table", "titanic", "--contract", contract, lake=lake).returncode == 0
    out = weir("describe", "titanic", lake=lake).stdout
    assert re.search(r"^contract  titanic 1\.0 \(mode fail, owner examples\), from .*titanic\.yml$", out, re.M), out
    assert re.search(r"^PassengerId\.unique\s+PassengerId\s+unique\s+fail$", out, re.M), out
    assert re.search(r"^Survived\.enum\s+Survived\s+one of \(0,1\)\s+fail$", out, re.M), out
    assert re.search(r"^Age\.range\s+Age\s+range 0 to 100\s+fail$", out, re.M), out
    assert weir("import", TITANIC, "--table", "plain", lake=lake).returncode == 0
    assert "contract" not in weir("describe", "plain", lake=lake).stdout


@pytest.mark.skipif(PG, reason="who may read a PostgreSQL catalog is the server's roles, not the files' modes")
def test_a_lake_others_may_read_can_be_read(tmp_path):
    """Issue 15: metadata files and lake.json were 0600, and opening the catalog needed
    write access (its -wal/-shm files). Read as another user (root reads anything, so the
    test drops to nobody with setpriv; as a non-root user it takes write permission away)."""
    import shutil
    import stat
    import tempfile

    base = pathlib.Path(tempfile.mkdtemp(prefix="weir-ro-"))  # outside pytest's 0700 tmp dir
    try:
        base.chmod(0o755)
        lake = base / "lake"
        assert weir("init", lake).returncode == 0
        assert weir("import", TITANIC, "--table", "titanic", lake=lake).returncode == 0
        for p in [lake / "lake.json", *lake.rglob("*.json"), *lake.rglob("*.avro")]:
            assert stat.S_IMODE(p.stat().st_mode) & 0o044 == 0o044, p  # the umask's mode, as data files
        from conftest import ROOT, weir_bin

        exe, env = weir_bin(), dict(os.environ, WEIR_AUTHOR="reader")
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            assert setpriv, "setpriv is needed to read the lake as another user"
            prefix = [setpriv, "--reuid", "65534", "--regid", "65534", "--clear-groups"]
            # The other user may not reach the build tree (a clone in a 0700 folder, as CI's):
            # it runs a copy of the CLI and its libraries from the readable base.
            bindir = base / "bin"
            bindir.mkdir()
            libs = [*exe.parent.glob("libweir.so*"), *(ROOT / ".deps" / "duckdb" / "lib").glob("libduckdb.so*")]
            for f in [exe, *libs]:
                shutil.copy2(f, bindir / f.name, follow_symlinks=True)
                (bindir / f.name).chmod(0o755)
            exe = bindir / exe.name
            env["LD_LIBRARY_PATH"] = str(bindir)
        else:
            prefix = []
            for p in [lake, *lake.rglob("*")]:
                p.chmod(stat.S_IMODE(p.stat().st_mode) & ~0o222)

        def as_reader(*args):
            return subprocess.run([*prefix, str(exe), "--lake", str(lake), *args], capture_output=True,
                                  text=True, env=env)

        r = as_reader("query", "SELECT count(*) AS n FROM titanic", "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == [{"n": 891}]
        for args in (["tables"], ["log"], ["describe", "titanic"], ["branch"], ["runs"]):
            r = as_reader(*args)
            assert r.returncode == 0, (args, r.stderr)
        r = as_reader("branch", "create", "dev")
        assert r.returncode == 1 and "is read-only for this user" in r.stderr, r.stderr
        assert "reading the lake works" in r.stderr
    finally:
        for p in [base, *base.rglob("*")]:
            if not p.is_symlink():
                p.chmod(stat.S_IMODE(p.stat().st_mode) | 0o200)
        shutil.rmtree(base, ignore_errors=True)


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
