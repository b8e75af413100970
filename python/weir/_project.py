"""Loading a project's Python files (shared by discovery and the model worker)."""
from __future__ import annotations

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
