"""The Python code passes ruff with the rules of python/pyproject.toml ([tool.ruff]):
the SDK, the tests and the benchmarks."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_ruff_finds_nothing() -> None:
    ruff = [sys.executable, "-m", "ruff"]
    r = subprocess.run([*ruff, "check", "--config", str(ROOT / "python" / "pyproject.toml"), "--no-cache",
                        "python", "tests/py", "bench"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, f"ruff check found problems:\n{r.stdout}{r.stderr}"
