"""The Python package: the wheel built with scikit-build-core (pyproject.toml) carries
libweir, the libduckdb.so it loads and the weir command; installed into a fresh virtual
environment with nothing else (its Python dependencies come from the registry as pip
resolves them), it runs the README's Python snippet after the README's tour (issue 15,
acceptance)."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import venv
import zipfile

import pytest
from conftest import ROOT, clean_env

TITANIC = ROOT / "examples" / "titanic"


def readme_python() -> str:
    text = (ROOT / "README.md").read_text()
    m = re.search(r"## Python\n.*?```python\n(.*?)```", text, re.S)
    assert m, "README.md has no Python snippet under '## Python'"
    return m.group(1)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> pathlib.Path:
    dist = tmp_path_factory.mktemp("dist")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist), str(ROOT)],
                       capture_output=True, text=True, env=clean_env())
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    wheels = list(dist.glob("weir-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_wheel_carries_the_library_duckdb_and_the_command(wheel):
    version = (ROOT / "VERSION").read_text().strip()
    assert wheel.name.startswith(f"weir-{version}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    for need in ("weir/__init__.py", "weir/_bindings.py", "weir/lib/libweir.so", "weir/lib/libduckdb.so",
                 "weir/bin/weir", "weir/include/weir.h"):
        assert need in names, need
    assert not any(n.startswith("weir/include/weir_worker") for n in names)
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "weir = weir._cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_pip_install_into_a_fresh_venv_runs_the_readme(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    py, weir_cmd = env_dir / "bin" / "python", env_dir / "bin" / "weir"
    env = clean_env()
    # The models of the README's project use polars: the package's extra.
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", f"{wheel}[polars]"], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # Nothing of the source tree is visible to it: weir comes from site-packages.
    r = subprocess.run([str(py), "-c", "import weir, weir._ffi as f; print(weir.__file__); print(f.find_library())"],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert all("site-packages" in line for line in r.stdout.split()), r.stdout

    # The README's tour, as far as the snippet needs: a lake with titanic.
    lake = tmp_path / "lake"
    env["WEIR_LAKE"] = str(lake)
    for args in (["init", str(lake)],
                 ["import", str(TITANIC / "data" / "titanic.csv"), "--table", "titanic", "--contract",
                  str(TITANIC / "project" / "contracts" / "titanic.yml")]):
        r = subprocess.run([str(weir_cmd), *args], capture_output=True, text=True, env=env, cwd=ROOT)
        assert r.returncode == 0, (args, r.stderr)

    snippet = readme_python() + (
        "\nassert state.success(), state.error\n"
        "assert old.column('n')[0].as_py() == 891\n"
        "print('readme ok', [b.name for b in client.get_branches()])\n")
    r = subprocess.run([str(py), "-c", snippet], capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "readme ok ['main']" in r.stdout
