"""What ``@weir.python(internet_access=, memory=, timeout=, cpu_time=)`` asks of the model
sandbox (docs/sandbox.md), and the units it is written in.

Sizes are bytes (an int) or a string with a unit: ``"4GB"`` (4 * 1000**3), ``"4GiB"``
(4 * 1024**3), ``"512MB"``, ``"1.5GB"``; the unit is B, KB, MB, GB, TB (powers of 1000)
or KiB, MiB, GiB, TiB (powers of 1024), in any case. Durations are seconds (an int or
a float) or a string of numbers with units: ``"90s"``, ``"10m"``, ``"1h30m"``,
``"500ms"``, ``"2d"``.

Example:
    >>> parse_size("4GB"), parse_size("512MiB")
    (4000000000, 536870912)
    >>> parse_duration("1h30m"), parse_duration(2.5)
    (5400.0, 2.5)
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["SandboxOptions", "parse_size", "parse_duration"]

# The defaults (4GB, 1h, no CPU-time limit) live in one place: src/pipeline/sandbox.h.
_MIN_MEMORY = 32 << 20
_MAX_SECONDS = 30 * 86400.0

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
               "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)", re.IGNORECASE)
_DURATION_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_size(value: object, what: str = "memory") -> int:
    """Bytes for a size: an int, or ``"4GB"``, ``"512MiB"``, ``"1.5GB"``.

    Raises:
        ValueError: anything else, or a size below 32 MiB.

    Example:
        >>> parse_size("1.5gb")
        1500000000
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"{what}={value!r}: a size is bytes (an int) or a string like '4GB' or '512MiB'")
    if isinstance(value, int):
        n = value
    else:
        m = _SIZE.match(value)
        if not m:
            raise ValueError(f"{what}={value!r}: a size is a number and a unit: B, KB, MB, GB, TB (powers of "
                             "1000) or KiB, MiB, GiB, TiB (powers of 1024), e.g. '4GB'")
        n = int(float(m.group(1)) * _SIZE_UNITS[(m.group(2) or "b").lower()])
    if n < _MIN_MEMORY:
        raise ValueError(f"{what}={value!r}: at least 32MiB (a Python interpreter needs that much)")
    return n


def parse_duration(value: object, what: str = "timeout") -> float:
    """Seconds for a duration: an int or float, or ``"90s"``, ``"10m"``, ``"1h30m"``.

    Raises:
        ValueError: anything else, zero, or more than 30 days.

    Example:
        >>> parse_duration("10m")
        600.0
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{what}={value!r}: a duration is seconds or a string like '10m', '90s' or '1h30m'")
    if isinstance(value, str):
        text = value.strip()
        parts = _DURATION.findall(text)
        if not parts or _DURATION.sub("", text).strip():
            raise ValueError(f"{what}={value!r}: a duration is numbers with units ms, s, m, h or d, e.g. '10m' "
                             "or '1h30m'")
        seconds = sum(float(n) * _DURATION_UNITS[u.lower()] for n, u in parts)
    else:
        seconds = float(value)
    if not math.isfinite(seconds) or seconds <= 0 or seconds > _MAX_SECONDS:
        raise ValueError(f"{what}={value!r}: a positive duration of at most 30 days")
    return seconds


@dataclass(frozen=True)
class SandboxOptions:
    """What ``@weir.python`` asked of the sandbox: ``memory`` in bytes, ``timeout`` and
    ``cpu_time`` in seconds (None: the default; no CPU-time limit by default).

    Example:
        >>> SandboxOptions(internet_access=True, memory=2 * 1000**3).to_json()
        {'internet_access': True, 'memory': 2000000000, 'timeout': None, 'cpu_time': None}
    """

    internet_access: bool = False
    memory: int | None = None
    timeout: float | None = None
    cpu_time: float | None = None

    @staticmethod
    def parse(internet_access: object = False, memory: object = None, timeout: object = None,
              cpu_time: object = None) -> SandboxOptions:
        """Checks and converts the decorator's arguments.

        Raises:
            ValueError: a bad value (the message names the argument).

        Example:
            >>> SandboxOptions.parse(memory="512MiB", timeout="10m").timeout
            600.0
        """
        if not isinstance(internet_access, bool):
            raise ValueError(f"internet_access={internet_access!r}: True or False")
        cpu = parse_duration(cpu_time, "cpu_time") if cpu_time is not None else None
        if cpu is not None and cpu < 1:
            raise ValueError(f"cpu_time={cpu_time!r}: at least one second (the kernel counts whole seconds)")
        return SandboxOptions(internet_access=internet_access,
                              memory=parse_size(memory) if memory is not None else None,
                              timeout=parse_duration(timeout) if timeout is not None else None, cpu_time=cpu)

    def to_json(self) -> dict[str, Any]:
        """As discovery prints it (numbers; libweir fills in the defaults).

        Example:
            >>> SandboxOptions().to_json()["memory"] is None
            True
        """
        return {"internet_access": self.internet_access, "memory": self.memory, "timeout": self.timeout,
                "cpu_time": self.cpu_time}
