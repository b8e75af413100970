"""The examples in the SDK's docstrings run (those that need a lake are marked SKIP)."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import doctest
import importlib

import pytest

MODULES = ["weir", "weir.types", "weir.schema", "weir.model", "weir.errors", "weir.records", "weir.client",
           "weir.discover", "weir.worker", "weir.envs", "weir._ffi", "weir.limits", "weir.model_host", "weir._handoff"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL)
    assert result.failed == 0


def test_every_public_function_and_class_is_documented_with_an_example():
    import inspect

    missing: list[str] = []
    seen: set[int] = set()
    for name in MODULES:
        if name.split(".")[-1].startswith("_"):
            continue  # private modules
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr, None)
            if obj is None or id(obj) in seen or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            seen.add(id(obj))
            targets = [(f"{name}.{attr}", obj)]
            if inspect.isclass(obj):
                for meth, value in vars(obj).items():
                    if meth.startswith("_"):
                        continue
                    fn = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
                    if inspect.isfunction(fn):
                        targets.append((f"{name}.{attr}.{meth}", fn))
            for label, target in targets:
                doc = inspect.getdoc(target) or ""
                if "Example" not in doc:
                    missing.append(label)
    assert missing == []
