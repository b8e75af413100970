"""The ``weir`` command of the wheel: runs the C CLI shipped in the package (weir/bin/weir).

A wheel installs console entry points, not arbitrary programs on PATH, so this starts the
binary in place of the Python process (``exec``; its exit status is the command's). Like
every user of libweir's environment variables, it maps one default of its own: project
code runs with this environment's interpreter (``$WEIR_PYTHON`` unless already set), which
has the weir SDK.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def binary() -> Path:
    """The packaged CLI.

    Raises:
        FileNotFoundError: this is not an installed wheel (a source checkout runs build/weir).
    """
    exe = Path(__file__).resolve().parent / "bin" / "weir"
    if not exe.is_file():
        raise FileNotFoundError(f"{exe} does not exist: the weir command is part of the wheel (pip install weir); "
                                "in a source checkout, run build/weir")
    return exe


def main() -> None:
    """Execs the CLI with ``sys.argv``."""
    try:
        exe = binary()
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
    env = dict(os.environ)
    env.setdefault("WEIR_PYTHON", sys.executable)
    os.execve(exe, [str(exe), *sys.argv[1:]], env)  # noqa: S606 - the weir binary itself, no shell wanted


if __name__ == "__main__":
    main()
