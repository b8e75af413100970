"""Fixtures shared by the SDK and client tests (imported by them; holds no tests).

libweir comes from $WEIR_LIBRARY when set, else from the build directory of
conftest.py ($WEIR_BUILD_DIR, default ./build). Environments prepared by model runs go
to a per-session $WEIR_CACHE, and discovery/workers run with this interpreter
($WEIR_PYTHON), which has the SDK installed (pip install -e python/).
"""
from __future__ import annotations

import os
import pathlib
import sys
from collections.abc import Iterator

import pytest

from conftest import BUILD, ROOT, TITANIC, TITANIC_SCHEMA

PROJECT = ROOT / "examples" / "titanic" / "project"

# The SDK is installed with `pip install -e python/`; without that, use the source tree
# (for this process and for the Python processes libweir and the tests start).
try:
    import weir  # noqa: F401
except ImportError:
    _src = str(ROOT / "python")
    sys.path.insert(0, _src)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_src, os.environ.get("PYTHONPATH")) if p)


def library_path() -> pathlib.Path:
    """The libweir under test (fails the test clearly when it is not built)."""
    env = os.environ.get("WEIR_LIBRARY")
    p = pathlib.Path(env) if env else BUILD / "libweir.so"
    if not p.exists():
        pytest.fail(f"{p} is not built: run cmake --build {BUILD} (or set WEIR_LIBRARY)")
    return p.resolve()


@pytest.fixture(scope="session")
def weir_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pathlib.Path]:
    """Points WEIR_LIBRARY, WEIR_PYTHON and WEIR_CACHE at this session's library,
    interpreter and a fresh cache, for the client and every process it starts."""
    cache = tmp_path_factory.mktemp("weir-cache")
    saved = {k: os.environ.get(k) for k in ("WEIR_LIBRARY", "WEIR_PYTHON", "WEIR_CACHE")}
    os.environ["WEIR_LIBRARY"] = str(library_path())
    os.environ["WEIR_PYTHON"] = sys.executable
    os.environ["WEIR_CACHE"] = str(cache)
    yield cache
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def client(weir_env: pathlib.Path, tmp_path: pathlib.Path):  # noqa: ANN201 - weir.Client
    """A fresh lake with an empty first commit on main."""
    import weir

    c = weir.Client.init(tmp_path / "lake", author="tests@weir")
    yield c
    c.close()


@pytest.fixture
def titanic_client(client):  # noqa: ANN001, ANN201
    """A fresh lake with the titanic table on main (its required columns declared)."""
    client.import_data("titanic", TITANIC, contract=TITANIC_SCHEMA)
    return client
