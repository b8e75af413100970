"""``python -m weir.envs``: environments are built once, reused, locked, rebuilt after
an interrupted build, and see the parent's packages (so nothing is downloaded here)."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import json
import os
import subprocess
import sys

import pytest

from weir.envs import EnvError, env_key, find_interpreter, prepare, requirements

VERSION = "{}.{}".format(*sys.version_info[:2])


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WEIR_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def envs(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "weir.envs", *args], capture_output=True, text=True)


def test_requirements():
    assert requirements({"polars": "1.*", "duckdb": ">=1.0,<2", "rich": "", "numpy": "2.4.6", "x": "*"}) == [
        "duckdb>=1.0,<2", "numpy==2.4.6", "polars==1.*", "rich", "x"]
    with pytest.raises(EnvError, match="bad version"):
        requirements({"polars": "latest"})
    with pytest.raises(EnvError, match="bad package name"):
        requirements({"pol ars": "1"})


def test_prepare_once_then_reuse(cache):
    r1 = envs("prepare", "--python", VERSION, "--pip", '{"polars": "1.*"}', "--json")
    assert r1.returncode == 0, r1.stderr
    first = json.loads(r1.stdout)
    assert first["created"] is True
    python = first["python"]
    assert python.startswith(str(cache / "envs")) and os.access(python, os.X_OK)
    # Second prepare: same interpreter, nothing built.
    r2 = envs("prepare", "--python", VERSION, "--pip", '{"polars": "1.*"}')
    assert r2.returncode == 0 and r2.stdout.strip() == python
    assert json.loads(envs("prepare", "--python", VERSION, "--pip", '{"polars": "1.*"}', "--json").stdout)[
        "created"] is False
    # The environment has the SDK, its dependencies and the requested packages.
    check = subprocess.run([python, "-c", "import weir, pyarrow, polars; print(weir.__file__)"],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    # Different requirements, different environment.
    other = json.loads(envs("prepare", "--python", VERSION, "--json").stdout)["python"]
    assert other != python
    listed = json.loads(envs("list", "--json").stdout)
    assert sorted(e["interpreter"] for e in listed) == sorted([python, other])


def test_interrupted_build_is_rebuilt_and_concurrent_prepares_agree(cache):
    key = env_key(VERSION, requirements({"polars": "1.*"}))
    half = cache / "envs" / key
    half.mkdir(parents=True)
    (half / "junk").write_text("left by a killed build")
    procs = [subprocess.Popen([sys.executable, "-m", "weir.envs", "prepare", "--python", VERSION, "--pip",
                               '{"polars": "1.*"}', "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(3)]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    docs = [json.loads(o) for o, _ in outs]
    assert len({d["python"] for d in docs}) == 1
    assert sum(d["created"] for d in docs) == 1  # the lock let one process build it
    assert not (half / "junk").exists()


def test_prepare_in_process_and_errors(cache):
    python, created = prepare(VERSION)
    assert created and python.exists()
    assert prepare(VERSION) == (python, False)
    assert find_interpreter(VERSION) == sys.executable
    with pytest.raises(EnvError, match="is not installed"):
        find_interpreter("3.99")
    with pytest.raises(EnvError, match="bad Python version"):
        find_interpreter("three")
    r = envs("prepare", "--python", "3.99")
    assert r.returncode == 1 and "Python 3.99 is not installed" in r.stderr
    r = envs("prepare", "--python", VERSION, "--pip", "[1]")
    assert r.returncode == 2 and "--pip must be a JSON object" in r.stderr
