"""Shared pytest fixtures: where the build is, and fresh lakes.

The build directory defaults to ./build and can be changed with WEIR_BUILD_DIR (the
sanitizer run points it at build-asan).
"""
from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("WEIR_BUILD_DIR", ROOT / "build")).resolve()
TITANIC = ROOT / "examples" / "titanic" / "data" / "titanic.csv"


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
         input: str | None = None) -> subprocess.CompletedProcess:  # noqa: A002 - subprocess.run's name
    """Runs the CLI. With `lake`, passes --lake. Never raises on a non-zero exit."""
    cmd = [str(weir_bin())]
    if lake is not None:
        cmd += ["--lake", str(lake)]
    cmd += [str(a) for a in args]
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
    """A lake with titanic imported on main."""
    r = weir("import", TITANIC, "--table", "titanic", lake=lake)
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
