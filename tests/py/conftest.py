"""Shared pytest fixtures: where the build is, and fresh lakes.

The build directory defaults to ./build and can be changed with WEIR_BUILD_DIR (the
sanitizer run points it at build-asan).

The catalog backend under test: SQLite by default; with WEIR_TEST_CATALOG=postgresql
every lake the tests make (`weir init` through `weir()`, `weir.Client.init`) keeps its
catalog in a PostgreSQL server this session starts (tests/pgserver.py: initdb into a
temporary folder, a loopback port) and stops at the end, one schema per lake. A server
that cannot start fails the session. WEIR_TEST_CATALOG may also be a postgresql:// URI of
a server of one's own (its password from PGPASSFILE/PGPASSWORD).
"""
from __future__ import annotations

import itertools
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("WEIR_BUILD_DIR", ROOT / "build")).resolve()
TITANIC = ROOT / "examples" / "titanic" / "data" / "titanic.csv"
#: The jars every Spark session of the suite loads. pyspark starts one JVM per process and
#: Iceberg's FileIO loading does not see jars a later session adds, so every session names
#: the same ones: the Spark runtime, and the AWS bundle S3 warehouses need (bootstrap.sh).
SPARK_JARS = (ROOT / ".deps" / "spark" / "iceberg-spark-runtime-3.5_2.12-1.10.0.jar",
              ROOT / ".deps" / "spark" / "iceberg-aws-bundle-1.10.0.jar")


def spark_jars() -> str:
    """SPARK_JARS as spark.jars takes them, each checked to exist."""
    for jar in SPARK_JARS:
        assert jar.exists(), f"{jar} is missing: run scripts/bootstrap.sh"
    return ",".join(str(j) for j in SPARK_JARS)
#: titanic's types and required columns, no rules (columns imported without a contract are
#: optional; the example project reads some as required).
TITANIC_SCHEMA = pathlib.Path(__file__).resolve().parent / "titanic_schema.yml"

# ---- the catalog backend under test ------------------------------------------------------

_CATALOG_MODE = os.environ.get("WEIR_TEST_CATALOG", "sqlite") or "sqlite"
PG = _CATALOG_MODE != "sqlite"
_pg_server = None
_pg_base: str | None = _CATALOG_MODE if _CATALOG_MODE.startswith("postgresql://") else None
_schemas = itertools.count(1)


def _start_pg(force: bool = False) -> None:
    global _pg_server, _pg_base
    if _pg_base is not None or not (PG or force):
        return
    sys.path.insert(0, str(ROOT / "tests"))
    import pgserver  # noqa: E402

    try:
        _pg_server = pgserver.Server.start()
    except RuntimeError as e:  # never a skip: the run asked for PostgreSQL
        if not PG:
            pytest.fail(f"the PostgreSQL test server could not start: {e}")
        pytest.exit(f"WEIR_TEST_CATALOG={_CATALOG_MODE}: {e}", returncode=1)
    os.environ.update(_pg_server.env())  # the weir processes and this one find the password
    _pg_base = _pg_server.uri


def new_catalog() -> str | None:
    """A catalog location for one new lake: None (SQLite in the lake), or a fresh schema of
    the PostgreSQL server under test."""
    if not PG:
        return None
    _start_pg()
    assert _pg_base is not None
    sep = "&" if "?" in _pg_base else "?"
    return f"{_pg_base}{sep}schema=t{os.getpid()}_{next(_schemas)}"


def pg_catalog() -> str:
    """A fresh PostgreSQL catalog schema whatever WEIR_TEST_CATALOG says: for the tests that
    always run one lake on PostgreSQL (the shared-lake configurations). The session's
    server is started at the first call and stopped at the end; one that cannot start
    fails the test."""
    _start_pg(force=True)
    assert _pg_base is not None
    sep = "&" if "?" in _pg_base else "?"
    return f"{_pg_base}{sep}schema=t{os.getpid()}_{next(_schemas)}"


def pg_query(lake: pathlib.Path | str, sql: str) -> list[tuple[str, ...]]:
    """Runs SQL in a PostgreSQL lake's catalog schema (psql); rows as tuples of text."""
    import json

    uri = json.loads(pathlib.Path(lake, "lake.json").read_text())["catalog"]
    base, _, query = uri.partition("?")
    params = dict(p.split("=", 1) for p in query.split("&") if p)
    schema = params.pop("schema", "public")
    conn = base + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")
    r = subprocess.run(["psql", conn, "-XAtq", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c",
                        f"SET search_path TO {schema}", "-c", sql], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [tuple(line.split("\t")) for line in r.stdout.splitlines() if line]


def pytest_sessionstart(session) -> None:
    if PG:
        _start_pg()
        import weir as _sdk

        original = _sdk.Client.init.__func__

        def init(cls, path, *, catalog=None, **kw):  # every SDK-made lake on the server too
            return original(cls, path, catalog=catalog if catalog is not None else new_catalog(), **kw)

        _sdk.Client.init = classmethod(init)


def pytest_sessionfinish(session, exitstatus) -> None:
    if _pg_server is not None:
        _pg_server.stop()


def pytest_report_header(config) -> str:
    return f"weir catalog backend: {'postgresql' if PG else 'sqlite'}"


def build_path(name: str) -> pathlib.Path:
    """Path of a binary built by CMake (fails the test clearly if it is missing)."""
    p = BUILD / name
    if not p.exists():
        pytest.fail(f"{p} is not built: run cmake --build {BUILD}")
    return p


@pytest.fixture
def titanic_csv() -> pathlib.Path:
    return TITANIC


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    """Runs a command, capturing text output; never raises on a non-zero exit."""
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def weir_bin() -> pathlib.Path:
    """The weir CLI of the build under test."""
    return build_path("weir")


def weir(*args: str, lake: pathlib.Path | str | None = None, cwd=None, env=None,
         input: str | None = None,  # noqa: A002 - subprocess.run's name
         exe: pathlib.Path | None = None) -> subprocess.CompletedProcess:
    """Runs the CLI (`exe`, default the build's). With `lake`, passes --lake. Never raises
    on a non-zero exit."""
    cmd = [str(exe or weir_bin())]
    if lake is not None:
        cmd += ["--lake", str(lake)]
    cmd += [str(a) for a in args]
    if PG and args and args[0] == "init" and "--catalog" not in args:
        cmd += ["--catalog", new_catalog()]
    full_env = dict(os.environ)
    full_env.setdefault("WEIR_AUTHOR", "tester")
    full_env.setdefault("WEIR_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
    if env:
        full_env.update(env)
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=full_env, input=input)


def weir_json(*args: str, lake=None, **kw):
    """Runs the CLI with --json, asserts success and returns the parsed document, checked
    against its schema in docs/schema/ (tests/py/schemas.py)."""
    import json

    from schemas import cli_schema, validate

    r = weir(*args, "--json", lake=lake, **kw)
    assert r.returncode == 0, f"weir {' '.join(map(str, args))} failed ({r.returncode}): {r.stderr}"
    doc = json.loads(r.stdout)
    name = cli_schema([str(a) for a in args])
    if name is not None:
        validate(doc, name)
    return doc


def weir_list(*args: str, lake=None, **kw) -> list:
    """weir_json for a list document (log, branch list, tag list, tables, runs): the list
    under its key."""
    from schemas import LIST_KEYS, cli_schema

    doc = weir_json(*args, lake=lake, **kw)
    return doc[LIST_KEYS[cli_schema([str(a) for a in args]) or ""]]


def start_weir(*args: str, lake: pathlib.Path | str, until: str, env=None) -> subprocess.Popen:
    """Starts `weir -v ARGS` in the background and returns once its progress on stderr
    has printed a line starting with `until` ("model slow": the run is starting model
    slow; "done first": model first is committed on the run's branch). A hand-off through
    the pipe, not a sleep. The lines read are in `p.stderr_head`; `p.communicate()` gives
    the rest."""
    full_env = dict(os.environ, WEIR_AUTHOR="tester", WEIR_PYTHON=str(ROOT / ".venv" / "bin" / "python"))
    if env:
        full_env.update(env)
    p = subprocess.Popen([str(weir_bin()), "--lake", str(lake), "-v", *[str(a) for a in args]],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env)
    head = []
    assert p.stderr is not None
    for line in p.stderr:
        head.append(line)
        if line.startswith(until):
            p.stderr_head = "".join(head)  # type: ignore[attr-defined]
            return p
    p.wait()
    raise AssertionError(f"weir {' '.join(map(str, args))} ended ({p.returncode}) before printing {until!r}:\n"
                         + "".join(head))


def release(proj: pathlib.Path, name: str = "go") -> None:
    """The other end of a model that waits for a file (GATED_MODEL): lets it finish."""
    (proj / name).write_text("go\n")


#: Python source of a model `slow` (input: the catalog's titanic) that waits until the test
#: creates the file `go` in its project folder (release), so that a test can do something
#: while the run is inside the model, for as long as it needs: an explicit hand-off. (The
#: model reads its project folder, which the sandbox allows; it polls for the file.)
GATED_MODEL = '''\
import os
import time
from typing import Annotated

import pyarrow as pa

import weir
from weir import Int64, Model, Table, TableSchema

GO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go")


class Out(TableSchema):
    n: Int64


@weir.model()
def slow(src: Annotated[pa.Table, Model("titanic")]) -> Table[Out]:
    """Waits for the test's go file."""
    while not os.path.exists(GO):
        time.sleep(0.01)
    return pa.table({"n": pa.array([src.num_rows], pa.int64())})
'''


@pytest.fixture
def lake(tmp_path: pathlib.Path) -> pathlib.Path:
    """A fresh, empty lake."""
    path = tmp_path / "lake"
    r = weir("init", path)
    assert r.returncode == 0, r.stderr
    return path


@pytest.fixture
def titanic_lake(lake: pathlib.Path) -> pathlib.Path:
    """A lake with titanic imported on main (its required columns declared)."""
    r = weir("import", TITANIC, "--table", "titanic", "--contract", TITANIC_SCHEMA, lake=lake)
    assert r.returncode == 0, r.stderr
    return lake


def count(lake, sql: str, ref: str | None = None) -> int:
    """The single integer a query returns."""
    args = ["query", sql, "--format", "json"]
    if ref:
        args += ["--ref", ref]
    import json

    r = weir(*args, lake=lake)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    return int(list(rows[0].values())[0])


@pytest.fixture(scope="session")
def s3_server():
    """moto's S3 server on loopback, for the session (tests/py/s3_server.py). A server that
    cannot start skips the S3 tests on a developer machine and fails them in CI."""
    import s3_server as srv

    try:
        server = srv.start()
    except Exception as e:  # noqa: BLE001 - reported as the reason
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"the S3 test server could not start in CI: {e}")
        pytest.skip(f"the S3 test server could not start: {e}")
    yield server
    srv.stop(server)
