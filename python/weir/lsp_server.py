"""``weir lsp``: a Language Server (LSP over stdio, pygls) for weir projects.

Run as ``weir lsp [--lake L] [--ref R]`` (the CLI executes this module) or
``python -m weir.lsp_server --lake L``. For a file inside a project (a folder holding
``weir_project.yml``, searched upwards from the file):

diagnostics
    on open and on save of SQL models, YAML contracts and Python schemas and models: the
    problems of ``weir check`` (the same planner, :meth:`weir.Client.check`, at ``--ref``)
    that name the file, each at its line, narrowed to the expression or column it names
    when that text is on the line; the plan's warnings as warnings. Every file of the
    project that had diagnostics is republished, so fixed problems disappear.
hover
    over a table name: its doc, rows and columns; over a column of a table the file names:
    its type, nullability, doc and lineage.
completion
    table names and the columns of the tables the file names, at ``--ref``.

The planner reads the files on disk: diagnostics follow what was saved (open is the
saved state too). One client serves every request, one at a time.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import cast
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

import weir
from weir.mcp_server import table_doc

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FROM = re.compile(r"\b(from|join)\s+([A-Za-z_][\w.]*)(?:\s+(?:as\s+)?([A-Za-z_]\w*))?", re.IGNORECASE)
_KEYWORDS = {"left", "right", "full", "inner", "outer", "cross", "join", "where", "on", "using", "group", "order",
             "limit", "natural", "union", "having", "window", "qualify", "lateral"}


def project_of(path: Path) -> Path | None:
    """The project folder holding ``path`` (the nearest parent with weir_project.yml).

    Example:
        >>> project_of(Path("examples/titanic/project/f.sql")).name   # doctest: +SKIP
        'project'
    """
    for d in [path.parent, *path.parent.parents]:
        if (d / "weir_project.yml").is_file():
            return d
    return None


def _path(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def _range_on(lines: list[str], line: int, needles: list[str]) -> types.Range:
    """Line `line` (1-based) narrowed to the first needle found on it, else its text."""
    i = max(0, min(line - 1, len(lines) - 1)) if lines else 0
    text = lines[i] if lines else ""
    for n in needles:
        if n and (at := text.find(n)) >= 0:
            return types.Range(types.Position(i, at), types.Position(i, at + len(n)))
    start = len(text) - len(text.lstrip())
    return types.Range(types.Position(i, start), types.Position(i, len(text.rstrip("\n"))))


def _needles(problem: dict[str, object]) -> list[str]:
    msg = str(problem.get("message") or "")
    out: list[str] = []
    if m := re.search(r"is fed by (.+?), which may be null", msg):
        out.append(m.group(1))
    col = problem.get("column")
    if isinstance(col, str):
        out.append(col)
    return out


class WeirLanguageServer(LanguageServer):
    """The server: a pygls LanguageServer over one :class:`weir.Client`.

    Example:
        >>> WeirLanguageServer(weir.Client("lake"), ref="main").start_io()   # doctest: +SKIP
    """

    def __init__(self, client: weir.Client, *, ref: str = "main") -> None:
        super().__init__(  # pyright: ignore[reportUnknownMemberType] - pygls types *args, **kwargs loosely
            "weir-lsp", "0.1.0", text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.client = client
        self.ref = ref
        self.published: dict[Path, set[Path]] = {}  # project -> files that have diagnostics

    # ---- diagnostics ------------------------------------------------------------------------

    def diagnose(self, uri: str) -> None:
        """Plans the project holding ``uri`` and publishes diagnostics for its files."""
        proj = project_of(_path(uri))
        if proj is None:
            return
        per_file: dict[Path, list[types.Diagnostic]] = {}
        try:
            plan = self.client.check(proj, ref=self.ref)
            problems: list[dict[str, object]] = [
                {"file": p.file, "line": p.line, "column": p.column, "message": p.message} for p in plan.problems]
            warnings = [dict(cast("Mapping[str, object]", w))
                        for w in cast("list[object]", plan.raw.get("warnings") or [])]
        except weir.WeirError as e:
            problems = [{"file": None, "line": 1, "message": str(e)}]
            warnings: list[dict[str, object]] = []
        for severity, items in ((types.DiagnosticSeverity.Error, problems),
                                (types.DiagnosticSeverity.Warning, warnings)):
            for p in items:
                f = p.get("file")
                target = (proj / str(f)).resolve() if f else _path(uri).resolve()
                try:
                    lines = target.read_text().splitlines()
                except OSError:
                    lines = []
                line = p.get("line")
                # Contract and schema errors carry "file:line:column:" in their message.
                at = re.match(r"[^:\s]+:(\d+):(\d+):", str(p.get("message") or ""))
                if at and not (isinstance(line, int) and line > 0):
                    li, ci = int(at.group(1)) - 1, int(at.group(2)) - 1
                    text = lines[li] if 0 <= li < len(lines) else ""
                    end = ci + (len(m.group(0)) if (m := re.match(r"[^\s,}]+", text[ci:])) else 0)
                    rng = types.Range(types.Position(max(li, 0), ci), types.Position(max(li, 0), max(end, ci)))
                else:
                    rng = _range_on(lines, line if isinstance(line, int) and line > 0 else 1, _needles(p))
                per_file.setdefault(target, []).append(
                    types.Diagnostic(range=rng, message=str(p.get("message")), severity=severity, source="weir"))
        before = self.published.get(proj, set())
        for f in before | {_path(uri).resolve()} | set(per_file):
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=f.as_uri(), diagnostics=per_file.get(f, [])))
        self.published[proj] = set(per_file)

    # ---- hover and completion ---------------------------------------------------------------

    def tables(self) -> dict[str, weir.TableInfo]:
        """Every table at the server's ref, by its name and its short name."""
        out: dict[str, weir.TableInfo] = {}
        for t in self.client.get_tables(ref=self.ref):
            info = self.client.get_table(t.table, ref=self.ref)
            out[t.table.lower()] = info
            out.setdefault(t.table.split(".")[-1].lower(), info)
        return out

    def named_tables(self, text: str, tables: dict[str, weir.TableInfo]) -> list[weir.TableInfo]:
        words = {w.lower() for w in _WORD.findall(text)}
        seen: dict[str, weir.TableInfo] = {}
        for name, info in tables.items():
            if name.split(".")[-1] in words:
                seen[info.table] = info
        return list(seen.values())

    def hover_at(self, text: str, line: int, character: int) -> str | None:
        """The Markdown hover for the word at (line, character), 0-based; None if none."""
        lines = text.splitlines()
        if line >= len(lines):
            return None
        word = next((m.group(0) for m in _WORD.finditer(lines[line]) if m.start() <= character <= m.end()), None)
        if not word:
            return None
        tables = self.tables()
        if word.lower() in tables:
            return table_doc(tables[word.lower()])
        candidates = self.named_tables(text, tables)
        # `t.col`: the qualifier names a table, or an alias given in FROM / JOIN.
        start = next(m.start() for m in _WORD.finditer(lines[line]) if m.start() <= character <= m.end())
        qual = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\.$", lines[line][:start])
        if qual:
            q = qual.group(1).lower()
            aliases: dict[str, str] = {}
            for m in _FROM.finditer(text):
                alias = (m.group(3) or "").lower()
                aliases[alias if alias and alias not in _KEYWORDS else m.group(2).split(".")[-1].lower()] = \
                    m.group(2).lower()
            t = tables.get(aliases.get(q, q))
            if t is not None:
                candidates = [t]
        for info in candidates:
            for c in info.columns:
                if c.name.lower() == word.lower():
                    parts = [f"**{info.table}.{c.name}**: {c.weir_type}, {'required' if c.required else 'nullable'}"]
                    if c.doc:
                        parts.append(c.doc)
                    if c.lineage:
                        parts.append("lineage: " + ", ".join(c.lineage))
                    return "\n\n".join(parts)
        return None

    def completions(self, text: str) -> list[types.CompletionItem]:
        tables = self.tables()
        items: dict[str, types.CompletionItem] = {}
        for info in {i.table: i for i in tables.values()}.values():
            short = info.table.split(".")[-1]
            items[short] = types.CompletionItem(label=short, kind=types.CompletionItemKind.Class, detail=info.table,
                                                documentation=info.comment)
        for info in self.named_tables(text, tables):
            for c in info.columns:
                items.setdefault(c.name, types.CompletionItem(
                    label=c.name, kind=types.CompletionItemKind.Field,
                    detail=f"{info.table}: {c.weir_type}{'' if c.required else ', nullable'}", documentation=c.doc))
        return list(items.values())


def build_server(client: weir.Client, *, ref: str = "main") -> WeirLanguageServer:
    """The language server with its features registered.

    Example:
        >>> build_server(weir.Client("lake")).start_io()   # doctest: +SKIP
    """
    server = WeirLanguageServer(client, ref=ref)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: WeirLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.diagnose(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: WeirLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.diagnose(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: WeirLanguageServer, params: types.HoverParams) -> types.Hover | None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        md = ls.hover_at(doc.source, params.position.line, params.position.character)
        if md is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=md))

    @server.feature(types.TEXT_DOCUMENT_COMPLETION)
    def completion(ls: WeirLanguageServer, params: types.CompletionParams) -> types.CompletionList:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return types.CompletionList(is_incomplete=False, items=ls.completions(doc.source))

    return server


def main(argv: list[str] | None = None) -> int:
    """``python -m weir.lsp_server [--lake L] [--ref R]``: serves LSP over stdio.

    Example:
        >>> main(["--lake", "lake"])   # doctest: +SKIP
    """
    ap = argparse.ArgumentParser(prog="weir lsp", description="a language server for weir projects (stdio)")
    ap.add_argument("--lake", default=os.environ.get("WEIR_LAKE"), help="the lake (default: found from the folder)")
    ap.add_argument("--ref", default="main", help="the ref projects are planned at (default: main)")
    args = ap.parse_args(argv)
    with weir.Client(args.lake) as client:
        build_server(client, ref=args.ref).start_io()
    return 0


if __name__ == "__main__":
    sys.exit(main())
