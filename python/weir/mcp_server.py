"""``weir mcp``: the lake as a Model Context Protocol server over stdio, for agents.

Run as ``weir mcp [--lake L] [--ref R]`` (the CLI executes this module) or
``python -m weir.mcp_server --lake L``. Built on the official ``mcp`` SDK's
:class:`~mcp.server.mcpserver.MCPServer` over :class:`weir.Client`:

tools
    ``list_tables``, ``describe_table`` (columns, types, nullability, docs, lineage,
    contract), ``query`` (read-only SQL at a ref, at most ``limit`` rows),
    ``list_branches``, ``list_commits``, ``diff``, ``create_branch``, ``check_project``,
    ``run_project`` (on a branch that is not protected).
resources
    ``weir://tables`` (every table with its doc) and ``weir://tables/{table}`` (one
    table's documentation, as Markdown).

Reads default to the server's ``--ref`` (main). Nothing here writes to a protected
branch: :func:`weir.protection.is_protected` decides, and a refused write is a tool error
naming the branch. One client serves every call, one at a time (the handle is not shared
across threads).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

import weir
from weir.protection import is_protected

MAX_ROWS = 10_000

_F = TypeVar("_F", bound=Callable[..., Any])


def _tool_errors(fn: _F) -> _F:
    """weir's errors reach the agent with their message (a bad ref, a missing table, a
    plan problem are the agent's to fix), as the SDK's ToolError; anything else stays a
    crash whose text the SDK keeps on the server."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except weir.WeirError as e:
            raise ToolError(f"{type(e).__name__}: {e}") from e

    return wrapper  # type: ignore[return-value]


def _jsonable(v: object) -> object:
    """A query value as JSON can carry it (dates and decimals as text)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (dt.date, dt.datetime, dt.time)):
        return v.isoformat()
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in cast("list[object]", v)]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in cast("dict[object, object]", v).items()}
    return str(v)


def table_doc(info: weir.TableInfo) -> str:
    """A table's documentation as Markdown: its comment, then each column with its type,
    nullability, doc and lineage.

    Example:
        >>> print(table_doc(client.get_table("titanic")))   # doctest: +SKIP
        # default.titanic
        ...
    """
    lines = [f"# {info.table}", ""]
    if info.comment:
        lines += [info.comment, ""]
    lines += [f"{info.record_count} rows at {info.ref} ({info.commit[:12]}).", "",
              "| column | type | nullable | doc | lineage |",
              "| --- | --- | --- | --- | --- |"]
    for c in info.columns:
        lines.append(f"| {c.name} | {c.weir_type} | {'no' if c.required else 'yes'} | {c.doc or ''} | "
                     f"{', '.join(c.lineage)} |")
    if info.contract:
        lines += ["", f"Contract: {info.contract.get('name')} version {info.contract.get('version')}"]
    return "\n".join(lines) + "\n"


def build_server(client: weir.Client, *, default_ref: str = "main") -> MCPServer:
    """The MCP server over ``client``: its tools and resources (see the module's doc).

    Example:
        >>> server = build_server(weir.Client("lake"), default_ref="main")   # doctest: +SKIP
        >>> server.run("stdio")                                               # doctest: +SKIP
    """
    server = MCPServer("weir", instructions=(
        "A weir lake: versioned Iceberg tables with data contracts. Read with list_tables, describe_table "
        "and query (any ref: a branch, tag or commit hash); write only on a branch that is not protected: "
        "create_branch first, then run_project there."))

    def ref_of(ref: str | None) -> str:
        return ref or default_ref

    @server.tool()
    @_tool_errors
    def list_tables(ref: str | None = None) -> list[dict[str, Any]]:
        """Every table at `ref` (default: the server's ref) with its row count and doc."""
        out: list[dict[str, Any]] = []
        for t in client.get_tables(ref=ref_of(ref)):
            info = client.get_table(t.table, ref=ref_of(ref))
            out.append({"table": t.table, "rows": t.record_count, "doc": info.comment})
        return out

    @server.tool()
    @_tool_errors
    def describe_table(table: str, ref: str | None = None) -> dict[str, Any]:
        """One table at `ref`: doc, columns (type, nullable, doc, lineage), contract, rows,
        snapshot and Iceberg metadata file."""
        info = client.get_table(table, ref=ref_of(ref))
        return {"table": info.table, "ref": info.ref, "commit": info.commit, "doc": info.comment,
                "rows": info.record_count, "metadata_location": info.metadata_location,
                "columns": [{"name": c.name, "type": c.weir_type, "nullable": not c.required, "doc": c.doc,
                             "lineage": list(c.lineage)} for c in info.columns],
                "contract": dict(info.contract) if info.contract else None}

    @server.tool()
    @_tool_errors
    def query(sql: str, ref: str | None = None, limit: int = 100) -> dict[str, Any]:
        """Runs read-only SQL (DuckDB dialect) over the tables as they are at `ref` (a
        branch, tag or commit hash: time travel) and returns at most `limit` rows."""
        n = max(0, min(int(limit), MAX_ROWS))
        reader = client.query_reader(sql, ref=ref_of(ref))
        rows: list[dict[str, Any]] = []
        truncated = False
        for batch in reader:
            for row in batch.to_pylist():
                if len(rows) == n:
                    truncated = True
                    break
                rows.append({k: _jsonable(v) for k, v in row.items()})
            if truncated:
                break
        return {"columns": reader.schema.names, "rows": rows, "truncated": truncated, "ref": ref_of(ref)}

    @server.tool()
    @_tool_errors
    def list_branches() -> list[dict[str, Any]]:
        """Every branch with its head commit, and whether it is protected."""
        return [{"name": b.name, "head": b.head, "protected": is_protected(client, b.name)}
                for b in client.get_branches()]

    @server.tool()
    @_tool_errors
    def list_commits(ref: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """The newest commits reachable from `ref`, newest first."""
        return [{"hash": c.hash, "parents": list(c.parents), "author": c.author, "message": c.message,
                 "time": c.time.isoformat() if c.time else None,
                 "tables_changed": [{"table": t.table, "change": t.change} for t in c.tables_changed]}
                for c in client.get_commits(ref=ref_of(ref), limit=max(1, min(int(limit), 1000)))]

    @server.tool()
    @_tool_errors
    def diff(from_ref: str, to_ref: str) -> dict[str, Any]:
        """Tables added, removed and changed between two refs."""
        return dict(client.diff(from_ref, to_ref).raw)

    @server.tool()
    @_tool_errors
    def create_branch(name: str, from_ref: str | None = None) -> dict[str, Any]:
        """Creates branch `name` at `from_ref` (default: the server's ref); copies no data."""
        b = client.create_branch(name, from_ref=ref_of(from_ref))
        return {"name": b.name, "head": b.head}

    @server.tool()
    @_tool_errors
    def check_project(project_dir: str, ref: str | None = None) -> dict[str, Any]:
        """Plans a pipeline project against `ref` without reading data or writing: the
        models, problems, breaking contract changes and what NOT NULL inference proved."""
        return dict(client.check(project_dir, ref=ref_of(ref)).raw)

    @server.tool()
    @_tool_errors
    def run_project(project_dir: str, branch: str) -> dict[str, Any]:
        """Runs a project transactionally on `branch`, which must not be protected (create
        one with create_branch; a person merges it)."""
        if is_protected(client, branch):
            raise ToolError(f"branch {branch} is protected: run on a branch of your own "
                             f"(create_branch), then ask for a merge")
        state = client.run(project_dir, ref=branch)
        return dict(state.raw)

    @server.resource("weir://tables", mime_type="application/json", description="Every table with its doc")
    def tables_resource() -> str:
        return json.dumps(list_tables(None))

    @server.resource("weir://tables/{table}", mime_type="text/markdown",
                     description="A table's documentation: comment, columns, nullability, docs, lineage")
    def table_resource(table: str) -> str:
        return table_doc(client.get_table(table, ref=default_ref))

    return server


def main(argv: list[str] | None = None) -> int:
    """``python -m weir.mcp_server [--lake L] [--ref R]``: serves over stdio until stdin
    closes.

    Example:
        >>> main(["--lake", "lake"])   # doctest: +SKIP
    """
    ap = argparse.ArgumentParser(prog="weir mcp", description="the lake as an MCP server over stdio")
    ap.add_argument("--lake", default=os.environ.get("WEIR_LAKE"), help="the lake (default: found from the folder)")
    ap.add_argument("--ref", default="main", help="the ref reads default to (default: main)")
    ap.add_argument("--protect", action="append", default=[],
                    help="also treat this branch as protected (repeatable; main always is)")
    args = ap.parse_args(argv)
    if args.protect:
        os.environ["WEIR_PROTECTED_BRANCHES"] = ",".join(
            [b for b in os.environ.get("WEIR_PROTECTED_BRANCHES", "").split(",") if b] + list(args.protect))
    with weir.Client(args.lake) as client:
        build_server(client, default_ref=args.ref).run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
