"""Which branches agents and tools must not write to (``weir mcp``, ``weir lsp``).

The one predicate every writer consults, kept small and apart so that branch protection
proper (``weir branch protect``, stored in the catalog) can be wired in one place: until
then a branch is protected when it is ``main``, or named in the environment variable
``WEIR_PROTECTED_BRANCHES`` (comma-separated), which ``weir mcp --protect B`` extends.
"""
from __future__ import annotations

import os

from weir.client import Client

ALWAYS = frozenset({"main"})


def protected_branches(client: Client) -> frozenset[str]:
    """The names of the protected branches of the lake ``client`` opened.

    Example:
        >>> sorted(protected_branches(client))   # doctest: +SKIP
        ['main']
    """
    del client  # the catalog keeps no protection yet: see the module's doc
    extra = {b.strip() for b in os.environ.get("WEIR_PROTECTED_BRANCHES", "").split(",") if b.strip()}
    return ALWAYS | extra


def is_protected(client: Client, branch: str) -> bool:
    """Whether ``branch`` is protected: nothing but a merge a person makes may write it.

    Example:
        >>> is_protected(client, "main")   # doctest: +SKIP
        True
    """
    return branch in protected_branches(client)
