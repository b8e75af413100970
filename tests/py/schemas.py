"""The JSON Schemas of docs/schema/ (draft 2020-12), for validating real documents.

``validate(doc, "commit_log")`` checks one document against
docs/schema/commit_log.schema.json (its ``$ref``s into common.schema.json resolved
locally, nothing fetched); ``cli_schema(args)`` names the schema of what ``weir ARGS
--json`` prints on success. conftest.weir_json validates every document it returns, so
each CLI test also checks the shapes it reads.
"""
from __future__ import annotations

import functools
import json
import pathlib
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SCHEMA_DIR = pathlib.Path(__file__).resolve().parents[2] / "docs" / "schema"
#: Documents whose body is a list, and the key that holds it.
LIST_KEYS = {"commit_log": "commits", "branch_list": "branches", "tag_list": "tags", "table_list": "tables",
             "run_list": "runs", "token_list": "tokens", "namespace_list": "namespaces",
             "merge_contracts": "breaking_changes", "readers": "readers"}


@functools.cache
def _registry() -> tuple[Registry, dict[str, dict[str, Any]]]:
    reg: Registry = Registry()
    schemas: dict[str, dict[str, Any]] = {}
    for f in sorted(SCHEMA_DIR.glob("*.schema.json")):
        s = json.loads(f.read_text())
        Draft202012Validator.check_schema(s)
        reg = reg.with_resource(s["$id"], Resource.from_contents(s))
        schemas[f.name.removesuffix(".schema.json")] = s
    return reg, schemas


def names() -> list[str]:
    """Every document schema (common.schema.json holds only shared definitions)."""
    return sorted(n for n in _registry()[1] if n != "common")


def validate(doc: object, name: str) -> None:
    """Raises AssertionError listing every way ``doc`` breaks docs/schema/<name>.schema.json."""
    reg, schemas = _registry()
    assert name in schemas, f"no schema docs/schema/{name}.schema.json"
    errors = sorted(Draft202012Validator(schemas[name], registry=reg).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, f"document does not match {name}.schema.json:\n" + "\n".join(
        f"  at {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}" for e in errors[:10])


_SUBCOMMANDS = {"branch", "tag", "runs", "token", "namespace", "table", "contract"}
_BY_COMMAND = {
    "init": "init", "import": "import", "tables": "table_list", "describe": "table", "log": "commit_log",
    "show": "commit", "diff": "diff", "merge": "merge", "check": "plan", "runs": "run_list", "runs list": "run_list",
    "runs show": "run", "branch": "branch_list", "branch list": "branch_list", "branch create": "branch_create",
    "branch delete": "ref_delete", "tag": "tag_list", "tag list": "tag_list", "tag create": "tag_create",
    "tag delete": "ref_delete", "token create": "token", "token list": "token_list", "namespace create": "namespace",
    "namespace drop": "namespace", "namespace list": "namespace_list", "table drop": "table_drop",
    "table rename": "table_rename", "contract diff": "contract_diff",
    "branch protect": "protection", "branch unprotect": "protection", "status": "status",
    "compact": "compact",
    "delete": "delete",
    "table register": "register",
    "gc": "gc", "branch prune": "branch_prune",
    "alter": "table_alter",
}


def cli_schema(args: list[str]) -> str | None:
    """The schema of ``weir ARGS --json``'s output on success; None for rows (``query``
    without --output prints data, not a document)."""
    words = [a for a in args if not a.startswith("-")]
    if not words:
        return None
    cmd = words[0]
    if cmd in _SUBCOMMANDS and len(words) > 1 and f"{cmd} {words[1]}" in _BY_COMMAND:
        cmd = f"{cmd} {words[1]}"
    if cmd == "query":
        if "--explain" in args:
            return "query_explain"
        return "query_output" if "--output" in args or "-o" in args else None
    if cmd == "revert":
        return "run_revert" if "--run" in args else "table_revert"
    if cmd == "import" and "--register" in args:
        return "register"
    if cmd == "run":
        return "plan" if "--dry-run" in args else "run"
    return _BY_COMMAND.get(cmd)
