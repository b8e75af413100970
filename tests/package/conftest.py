"""Fixtures of the packaging tests (make test-package): the build under test and where
the repository is. These tests install weir the way users do, outside the source tree."""
from __future__ import annotations

import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("WEIR_BUILD_DIR", ROOT / "build")).resolve()


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a user who has nothing of weir's development set-up: no WEIR_*
    variable (library, Python, author...), no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("WEIR_") and k not in ("PYTHONPATH", "VIRTUAL_ENV", "LD_LIBRARY_PATH")}
    env.update(extra)
    return env
