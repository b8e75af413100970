"""`weir mcp` (issue 16): the official MCP SDK's own client, over stdio, against the server
the CLI starts: it lists the tools, describes `titanic` with its docs, reads the table
documentation resource, runs a query at an old commit, and cannot write to main."""
from __future__ import annotations

import json
import os

import anyio
import pytest

from conftest import ROOT, TITANIC, weir, weir_bin, weir_list

pytestmark = pytest.mark.cli

CONTRACT = ROOT / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"


def _session(lake, body, *extra: str):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {"WEIR_PYTHON": str(ROOT / ".venv" / "bin" / "python"), "WEIR_AUTHOR": "agent"}
    if os.environ.get("WEIR_LIBRARY"):
        env["WEIR_LIBRARY"] = os.environ["WEIR_LIBRARY"]
    params = StdioServerParameters(command=str(weir_bin()), args=["--lake", str(lake), "mcp", *extra], env=env)

    async def go():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                return await body(s)

    return anyio.run(go)


def _result(r) -> object:
    assert not r.is_error, r.content
    if r.structured_content is not None:
        sc = r.structured_content
        return sc.get("result", sc) if isinstance(sc, dict) and set(sc) == {"result"} else sc
    return json.loads(r.content[0].text)


@pytest.fixture
def titanic_docs(lake):
    r = weir("import", TITANIC, "--table", "titanic", "--contract", CONTRACT, lake=lake)
    assert r.returncode == 0, r.stderr
    return lake


def test_an_agent_lists_tools_describes_titanic_and_queries_an_old_commit(titanic_docs, tmp_path):
    lake = titanic_docs
    old = weir_list("log", "-n", "1", lake=lake)[0]["hash"]
    first = tmp_path / "first.csv"
    assert weir("query", "SELECT * FROM titanic WHERE Pclass = 1", "--format", "csv", "--output", first,
                lake=lake).returncode == 0
    assert weir("import", first, "--table", "titanic", "--mode", "replace", lake=lake).returncode == 0

    async def body(s):
        tools = {t.name for t in (await s.list_tools()).tools}
        described = _result(await s.call_tool("describe_table", {"table": "titanic"}))
        now = _result(await s.call_tool("query", {"sql": "SELECT count(*) AS n FROM titanic"}))
        then = _result(await s.call_tool("query", {"sql": "SELECT count(*) AS n FROM titanic", "ref": old}))
        limited = _result(await s.call_tool("query", {"sql": "SELECT PassengerId FROM titanic", "ref": old,
                                                      "limit": 5}))
        resources = {str(r.uri) for r in (await s.list_resources()).resources}
        templates = {str(t.uri_template) for t in (await s.list_resource_templates()).resource_templates}
        doc = await s.read_resource("weir://tables/titanic")
        return tools, described, now, then, limited, resources, templates, doc

    tools, described, now, then, limited, resources, templates, doc = _session(lake, body)
    assert {"list_tables", "describe_table", "query", "list_branches", "list_commits", "diff", "create_branch",
            "check_project", "run_project"} <= tools
    assert described["doc"] == "Titanic passengers (Kaggle training set): one row per passenger."
    cols = {c["name"]: c for c in described["columns"]}
    assert cols["Age"]["nullable"] is True and cols["PassengerId"]["nullable"] is False
    assert cols["Age"]["doc"].startswith("Age in years")
    assert described["contract"]["name"] == "titanic"
    assert now["rows"] == [{"n": 216}]
    assert then["rows"] == [{"n": 891}]          # time travel to the commit before the replace
    assert len(limited["rows"]) == 5 and limited["truncated"] is True
    assert "weir://tables" in resources and "weir://tables/{table}" in templates
    text = doc.contents[0].text
    assert text.startswith("# default.titanic") and "| Age | Float64 | yes | Age in years" in text


def test_an_agent_cannot_write_to_a_protected_branch(titanic_docs, tmp_path):
    lake = titanic_docs
    proj = ROOT / "examples" / "titanic" / "project"

    async def body(s):
        refused = await s.call_tool("run_project", {"project_dir": str(proj), "branch": "main"})
        refused_too = await s.call_tool("run_project", {"project_dir": str(proj), "branch": "staging"})
        made = _result(await s.call_tool("create_branch", {"name": "agent/work"}))
        branches = _result(await s.call_tool("list_branches", {}))
        checked = _result(await s.call_tool("check_project", {"project_dir": str(proj), "ref": "agent/work"}))
        return refused, refused_too, made, branches, checked

    refused, refused_too, made, branches, checked = _session(lake, body, "--protect", "staging")
    assert refused.is_error and "branch main is protected" in refused.content[0].text
    assert refused_too.is_error and "branch staging is protected" in refused_too.content[0].text
    assert made["name"] == "agent/work"
    assert {b["name"]: b["protected"] for b in branches} == {"main": True, "agent/work": False}
    assert checked["ok"] is True and sorted(m["name"] for m in checked["models"]) == ["f", "fare_sum", "g", "h"]
    assert weir_list("log", "-n", "1", lake=lake)[0]["message"].startswith("import")  # main untouched


def test_an_interpreter_without_the_sdk_is_named_before_the_protocol_starts(lake, tmp_path):
    """`weir mcp` and `weir lsp` ran `python3 -m weir...` with whatever python3 was first on
    PATH; without the SDK the client saw Python's ModuleNotFoundError on a half-started
    protocol. The CLI checks first and says which variable to set."""
    fake = tmp_path / "python-without-weir"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    for cmd in ("mcp", "lsp"):
        r = weir(cmd, lake=lake, env={"WEIR_PYTHON": str(fake)})
        assert r.returncode == 1, r.stderr
        assert f"error: {fake} cannot import the weir SDK, which weir.{cmd}_server runs on: set WEIR_PYTHON" \
            in r.stderr, r.stderr
