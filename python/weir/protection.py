"""Which branches agents and tools must not write to (``weir mcp``, ``weir lsp``).

The one predicate every writer of the agents' tools consults. A branch is protected when
the catalog says so (``weir branch protect``, :meth:`weir.Client.branch_protection`: the
protection ``weir serve``, the CLI and the SDK enforce), and, as the agents' own policy on
top of it, when it is ``main`` or named in ``WEIR_PROTECTED_BRANCHES`` (comma-separated,
which ``weir mcp --protect B`` extends for the server's process).
"""
from __future__ import annotations

import os

from weir.client import Client
from weir.errors import NotFound

ALWAYS = frozenset({"main"})


def _policy() -> frozenset[str]:
    extra = {b.strip() for b in os.environ.get("WEIR_PROTECTED_BRANCHES", "").split(",") if b.strip()}
    return ALWAYS | extra


def protected_branches(client: Client) -> frozenset[str]:
    """The names of the protected branches of the lake ``client`` opened: those the
    catalog protects, plus the agents' policy (``main`` and ``WEIR_PROTECTED_BRANCHES``).

    Example:
        >>> sorted(protected_branches(client))   # doctest: +SKIP
        ['main']
    """
    stored = {b.name for b in client.get_branches() if is_protected_in_catalog(client, b.name)}
    return _policy() | stored


def is_protected_in_catalog(client: Client, branch: str) -> bool:
    """Whether the catalog protects ``branch`` (False for a branch that does not exist).

    Example:
        >>> is_protected_in_catalog(client, "main")   # doctest: +SKIP
        False
    """
    try:
        return client.branch_protection(branch).protected
    except NotFound:
        return False


def is_protected(client: Client, branch: str) -> bool:
    """Whether ``branch`` is protected: nothing but a merge a person makes may write it.

    Example:
        >>> is_protected(client, "main")   # doctest: +SKIP
        True
    """
    return branch in _policy() or is_protected_in_catalog(client, branch)
