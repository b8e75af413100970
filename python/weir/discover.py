"""``python -m weir.discover PROJECT_DIR``: find a project's schemas and Python models.

Imports every ``*.py`` file directly in PROJECT_DIR (not sub-folders, not files whose
name starts with ``_`` or ``.``), each under a private module name with PROJECT_DIR on
``sys.path``, and prints one JSON document on stdout (docs/worker.md, "Discovery")::

    {"schemas": [<contract IR>...], "models": [...], "errors": [{"file", "line", "message"}],
     "unloaded": [{"file", "schemas", "models"}]}

A file that fails to import is reported once, at the root cause: when it failed because
it imports another project file that fails, only that file's error is listed. Each file
that did not load is listed in ``unloaded`` with the schemas and models its source
declares (read without running it; null when it does not parse), so that the planner
does not report them as undefined where other files use them: the error that matters is
the one that stopped the file.

It exits 0 also when it found problems (they are listed, so that ``weir check`` reports
everything at once); a non-zero exit means discovery itself crashed (stderr says why).
Whatever project files print while they are imported goes to stderr, never into the
JSON.

Example:
    $ python -m weir.discover examples/titanic/project | python -m json.tool
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from weir import envs
from weir._project import declared_names, error_line, load_file, origin_file, project_files
from weir.errors import ModelDefinitionError
from weir.model import ModelSpec, analyze_model, is_model
from weir.schema import TableSchema, is_schema

__all__ = ["discover", "main"]


def _rel(project_dir: str, path: str) -> str:
    try:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(project_dir))
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def discover(project_dir: str) -> dict[str, Any]:
    """Discovers a project: the document ``python -m weir.discover`` prints.

    Schemas are those defined in the project's files plus any schema a model uses
    (imported from elsewhere); models are the ``@weir.model`` functions defined in the
    project's files. Problems never raise: they are collected in ``errors``, each with
    ``file`` (relative to the project), ``line`` and ``message``.

    Raises:
        NotFound: PROJECT_DIR is not a folder.

    Example:
        >>> doc = discover("examples/titanic/project")          # doctest: +SKIP
        >>> sorted(m["name"] for m in doc["models"])             # doctest: +SKIP
        ['fare_sum', 'g', 'h']
    """
    from weir.errors import NotFound

    if not os.path.isdir(project_dir):
        raise NotFound(f"project folder {project_dir} does not exist")
    errors: list[dict[str, Any]] = []
    schemas: dict[str, tuple[type[TableSchema], str]] = {}  # name -> (class, file)
    schema_order: list[str] = []
    models: list[tuple[ModelSpec, str]] = []
    model_seen: set[tuple[str, int]] = set()
    # Files that did not import: file -> (the project file the error came from, the error).
    failed: dict[str, tuple[str | None, dict[str, Any]]] = {}
    # What files and definitions with a reported problem declare (see the module doc).
    unloaded: list[dict[str, Any]] = []

    def error(file: str, line: int, message: str) -> None:
        errors.append({"file": file, "line": line, "message": message})

    def add_schema(cls: type[TableSchema], file: str) -> None:
        name = cls.__name__
        prev = schemas.get(name)
        if prev is not None:
            pcls, pfile = prev
            same = pcls is cls or (getattr(pcls, "__weir_file__", None) == getattr(cls, "__weir_file__", None)
                                   and getattr(pcls, "__weir_line__", 0) == getattr(cls, "__weir_line__", 0))
            if not same:
                error(file, cls.source_lines()[0], f"schema {name} is defined twice "
                      f"({pfile}:{pcls.source_lines()[0]} and {file}:{cls.source_lines()[0]})")
            return
        schemas[name] = (cls, file)
        schema_order.append(name)

    abs_dir = os.path.abspath(project_dir)
    with contextlib.redirect_stdout(sys.stderr):
        for filename in project_files(project_dir):
            path = os.path.join(abs_dir, filename)
            try:
                module = load_file(project_dir, filename)
            except BaseException as e:  # noqa: BLE001 - report anything a project file raises
                if isinstance(e, (KeyboardInterrupt, SystemExit)):
                    raise
                text = e.msg if isinstance(e, SyntaxError) else str(e)
                failed[filename] = (origin_file(e, project_dir),
                                    {"file": filename, "line": error_line(e, path),
                                     "message": f"{type(e).__name__} while importing {filename}: {text}"})
                continue
            for value in list(vars(module).values()):
                if is_schema(value):
                    cls: type[TableSchema] = value  # pyright: ignore[reportAssignmentType]
                    src = getattr(cls, "__weir_file__", None)
                    if src and os.path.abspath(src) == path:
                        add_schema(cls, filename)
            for value in list(vars(module).values()):
                if not callable(value):
                    continue
                fn: Callable[..., Any] = value
                code = getattr(fn, "__code__", None)
                if code is None or os.path.abspath(code.co_filename) != path:
                    continue  # imported from elsewhere: found where it is defined
                key = (path, code.co_firstlineno)
                if key in model_seen:
                    continue
                if not is_model(fn):
                    declared = (getattr(fn, "__weir_python__", None), getattr(fn, "__weir_sandbox__", None))
                    if any(d is not None for d in declared):
                        model_seen.add(key)
                        error(filename, code.co_firstlineno,
                              f"function {fn.__name__} has @weir.python but no @weir.model")
                    continue
                model_seen.add(key)
                spec, problems = analyze_model(fn)
                for p in problems:
                    error(filename, p.line or 0, p.message)
                env = getattr(fn, "__weir_python__", None)
                if spec is not None and env is not None:
                    # A Python that is not installed, or a pip specifier pip would refuse,
                    # fails the plan here, not the run at this model (after others ran).
                    try:
                        envs.check(env.version, env.pip)
                    except envs.EnvError as e:
                        error(filename, spec.line or code.co_firstlineno,
                              f'model {spec.name}: @weir.python("{env.version}"): {str(e).splitlines()[0]}')
                if spec is not None:
                    models.append((spec, filename))
                elif problems:
                    # Reported; its readers are not told again that it does not exist.
                    opts = getattr(fn, "__weir_model__", None)
                    unloaded.append({"file": filename, "schemas": [],
                                     "models": [getattr(opts, "name", None) or fn.__name__]})
    # A file that failed only because a project file it imports failed is not a second
    # problem: the imported file's own error is the root cause, reported once.
    for filename, (origin, err) in failed.items():
        if origin is None or origin == filename or origin not in failed:
            errors.append(err)
        names = declared_names(os.path.join(abs_dir, filename))
        unloaded.append({"file": filename, "schemas": names[0] if names else None,
                         "models": names[1] if names else None})
    # Schemas a model uses but the project does not define (imported from a library).
    for spec, filename in models:
        used = [i.schema for i in spec.inputs if i.schema is not None]
        if spec.output_schema is not None:
            used.append(spec.output_schema)
        for cls in used:
            if cls.__name__ not in schemas:
                src = getattr(cls, "__weir_file__", None) or filename
                add_schema(cls, _rel(project_dir, src))
            elif schemas[cls.__name__][0] is not cls:
                pcls = schemas[cls.__name__][0]
                if (getattr(pcls, "__weir_file__", None), getattr(pcls, "__weir_line__", 0)) != (
                        getattr(cls, "__weir_file__", None), getattr(cls, "__weir_line__", 0)):
                    error(filename, spec.line, f"model {spec.name} uses a schema {cls.__name__} that is not "
                          "the project's schema of that name")
    # Model names must be unique.
    by_name: dict[str, tuple[ModelSpec, str]] = {}
    for spec, filename in models:
        prev = by_name.get(spec.name)
        if prev is not None:
            error(filename, spec.line, f"model {spec.name} is defined twice ({prev[1]}:{prev[0].line} and "
                  f"{filename}:{spec.line})")
        else:
            by_name[spec.name] = (spec, filename)
    schema_docs: list[dict[str, Any]] = []
    for name in schema_order:
        cls, file = schemas[name]
        try:
            schema_docs.append(cls.to_ir(origin=file))
        except Exception as e:  # noqa: BLE001
            error(file, cls.source_lines()[0], f"schema {name}: {e}")
            unloaded.append({"file": file, "schemas": [name], "models": []})
    errors.sort(key=lambda e: (str(e["file"]), int(e["line"] or 0)))
    return {"schemas": schema_docs,
            "models": [spec.to_json(file=filename) for spec, filename in models],
            "errors": errors, "unloaded": unloaded}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m weir.discover PROJECT_DIR``; returns the exit status.

    Example:
        >>> main(["examples/titanic/project"])   # doctest: +SKIP
        0
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print("usage: python -m weir.discover PROJECT_DIR\n\n"
              "Prints the project's schemas (contract IR), Python models and problems as JSON.",
              file=sys.stderr if len(args) != 1 else sys.stdout)
        return 0 if args and args[0] in ("-h", "--help") else 2
    try:
        doc = discover(args[0])
    except ModelDefinitionError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001
        print(f"error: discovery failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(doc, indent=1, default=str) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
