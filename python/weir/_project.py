"""Loading a project's Python files (shared by discovery and the model worker)."""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import sys
import traceback
from types import ModuleType


def private_module_name(project_dir: str, filename: str) -> str:
    """The private module name a project file is imported under: unique per project
    folder, so two projects with a ``models.py`` never share a module."""
    digest = hashlib.sha256(os.path.abspath(project_dir).encode()).hexdigest()[:12]
    stem = os.path.splitext(os.path.basename(filename))[0]
    safe = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in stem)
    return f"_weir_project_{digest}_{safe}"


def project_files(project_dir: str) -> list[str]:
    """The ``*.py`` files directly in ``project_dir`` that discovery imports (not
    sub-folders, not names starting with ``_`` or ``.``), sorted."""
    out: list[str] = []
    for name in sorted(os.listdir(project_dir)):
        if not name.endswith(".py") or name.startswith(("_", ".")):
            continue
        if os.path.isfile(os.path.join(project_dir, name)):
            out.append(name)
    return out


def ensure_on_path(project_dir: str) -> None:
    """Puts the project folder first on sys.path (so its files import each other)."""
    p = os.path.abspath(project_dir)
    if p not in sys.path:
        sys.path.insert(0, p)


def load_file(project_dir: str, filename: str) -> ModuleType:
    """Imports ``project_dir/filename`` under its private module name (once).

    Raises:
        whatever the file raises while it is imported.
    """
    name = private_module_name(project_dir, filename)
    found = sys.modules.get(name)
    if found is not None:
        return found
    ensure_on_path(project_dir)
    path = os.path.join(os.path.abspath(project_dir), filename)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def error_line(exc: BaseException, path: str) -> int:
    """The line of ``path`` an exception came from: a SyntaxError's line, else the
    deepest traceback frame in that file, else 0."""
    if isinstance(exc, SyntaxError) and exc.lineno and (not exc.filename or
                                                          os.path.abspath(exc.filename) == os.path.abspath(path)):
        return exc.lineno
    line = 0
    target = os.path.abspath(path)
    for fs in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(fs.filename) == target and fs.lineno:
            line = fs.lineno
    return line


def origin_file(exc: BaseException, project_dir: str) -> str | None:
    """The project file an exception raised while importing comes from: a SyntaxError's
    file, else the deepest traceback frame in a file directly in ``project_dir`` (the
    file that failed, when one project file imports another that fails); None when it
    came from outside the project.
    """
    root = os.path.abspath(project_dir)
    if isinstance(exc, SyntaxError) and exc.filename and os.path.dirname(os.path.abspath(exc.filename)) == root:
        return os.path.basename(exc.filename)
    found: str | None = None
    for fs in traceback.extract_tb(exc.__traceback__):
        path = os.path.abspath(fs.filename)
        if os.path.dirname(path) == root and path.endswith(".py"):
            found = os.path.basename(path)
    return found


def declared_names(path: str) -> tuple[list[str], list[str]] | None:
    """The schemas and models a project file declares, read from its source without
    running it (for a file that failed to import): every top-level class (schemas), and
    every top-level function with a decorator that mentions ``model``, by its
    ``name=`` when that is a literal (models). None when the file does not parse.

    Example:
        >>> declared_names("examples/titanic/project/models.py")[1]   # doctest: +SKIP
        ['g', 'h', 'fare_sum']
    """
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None
    schemas: list[str] = []
    models: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            schemas.append(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name: str | None = None
            is_model = False
            for d in node.decorator_list:
                target = d.func if isinstance(d, ast.Call) else d
                if "model" not in ast.unparse(target):
                    continue
                is_model = True
                if isinstance(d, ast.Call):
                    for kw in d.keywords:
                        if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                            name = kw.value.value
            if is_model:
                models.append(name or node.name)
    return schemas, models
