"""docs/cli.md names every command and every option the weir binary knows, and every
exit status weir_error_exit_code can give."""
from __future__ import annotations

import re

import pytest

from conftest import ROOT, weir

pytestmark = pytest.mark.cli
DOC = (ROOT / "docs" / "cli.md").read_text()


def commands() -> list[str]:
    out = weir("--help").stdout
    block = out.split("commands:")[1].split("global options:")[0]
    return [m.group(1) for m in re.finditer(r"^  (\S+(?: [a-z]+)?)\s{2,}", block, re.M)]


def section(name: str) -> str:
    m = re.search(rf"^### weir {re.escape(name)}\n(.*?)(?=^### |\Z)", DOC, re.M | re.S)
    assert m, f"docs/cli.md has no section for `weir {name}`"
    return m.group(1)


def test_every_command_and_option_is_documented() -> None:
    names = commands()
    assert "import" in names and "runs show" in names
    for name in names:
        text = section(name)
        help_text = weir(*name.split(), "--help").stdout
        options = help_text.split("options:")[1].split("global options:")[0] if "\noptions:" in help_text else ""
        for opt in re.findall(r"(--[a-z][\w-]*)", options):
            assert f"`{opt}" in text, f"docs/cli.md: `weir {name}` does not document {opt}"
    for opt in re.findall(r"(--[a-z][\w-]*)", weir("--help").stdout.split("global options:")[1]):
        assert f"`{opt}" in DOC.split("## Exit codes")[0], f"docs/cli.md: global option {opt} is not documented"


def test_every_exit_status_is_documented() -> None:
    table = DOC.split("## Exit codes")[1].split("## Environment")[0]
    for status in (0, 1, 2, 3, 4, 130):
        assert re.search(rf"^\| {status} \|", table, re.M), f"exit status {status} is not in docs/cli.md"


def test_architecture_names_where_every_public_function_lives() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text()
    header = (ROOT / "include" / "weir.h").read_text()
    table = doc.split("## Where each public function lives")[1].split("\n\n")[1]
    where = {}
    for line in table.splitlines()[2:]:
        file, funcs = (c.strip() for c in line.strip("|").split("|"))
        for f in re.findall(r"`(weir_\w+)`", funcs):
            where[f] = file
    for fn in re.findall(r"WEIR_API [^;(]*?\b(weir_\w+)\(", header):
        assert fn in where, f"docs/architecture.md does not say where {fn} lives"
        src = (ROOT / where[fn]).read_text()
        assert re.search(rf"^[\w \*]*\b{fn}\(", src, re.M), f"{fn} is not defined in {where[fn]}"
