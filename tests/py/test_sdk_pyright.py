"""Stage 1 of contracts.md: a type checker sees Table[S] as pyarrow.Table.

pyright (the version pinned in python/requirements-dev.txt) runs with the repository's
pyrightconfig.json (strict): it must flag a method pyarrow.Table does not have called on
a Table[S] input, accept correct uses, and find nothing in python/ and examples/.
"""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

FIXTURES = pathlib.Path(__file__).parent / "pyright"


def pyright(*files: pathlib.Path) -> dict:
    exe = pathlib.Path(sys.executable).parent / "pyright"
    cmd = [str(exe)] if exe.exists() else [shutil.which("pyright") or "pyright"]
    r = subprocess.run([*cmd, "--outputjson", *map(str, files)], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    if not r.stdout.strip():
        pytest.fail(f"pyright produced no output: {r.stderr}")
    return json.loads(r.stdout)


def errors(doc: dict) -> list[dict]:
    return [d for d in doc["generalDiagnostics"] if d["severity"] == "error"]


def test_a_method_pyarrow_table_lacks_is_an_error():
    path = FIXTURES / "bad_table_method.py"
    bad_line = next(i for i, line in enumerate(path.read_text().splitlines()) if "# BAD" in line)  # 0-based
    found = errors(pyright(path))
    assert found, "pyright reported nothing for a call of a missing pyarrow.Table method"
    assert {d["range"]["start"]["line"] for d in found} == {bad_line}, found
    access = [d for d in found if d.get("rule") == "reportAttributeAccessIssue"]
    assert access and 'Cannot access attribute "to_pandsa"' in access[0]["message"]
    assert "Table" in access[0]["message"]


def test_correct_uses_pass():
    doc = pyright(FIXTURES / "good_table.py")
    assert errors(doc) == [], errors(doc)


def test_sdk_and_examples_are_strict_clean():
    doc = pyright()  # the include list of pyrightconfig.json: python/ and examples/
    assert doc["summary"]["filesAnalyzed"] >= 10
    assert errors(doc) == [], json.dumps(errors(doc), indent=1)
