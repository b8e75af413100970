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
