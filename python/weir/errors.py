"""Exceptions: one class per libweir error code (include/weir.h, ``weir_error_code``).

Every exception derives from :class:`WeirError` and carries ``code`` (the numeric
libweir code), ``message`` (one line naming what went wrong and where) and ``details``
(the structured JSON items libweir attached, as Python objects). The class names are
the names ``weir_error_name`` returns, so ``type(e).__name__`` is the same string the
worker protocol and the CLI's ``--json`` errors use.

=====================  ====  ===========================================================
class                  code  raised when
=====================  ====  ===========================================================
WeirError              1     an error with no better code (also the base class)
NotFound               2     lake, ref, table, run, file or column not found
AlreadyExists          3     the thing to create already exists
StorageError           4     a file could not be read or written
CatalogError           5     the catalog database failed or is corrupt
EngineError            6     the SQL engine reported an error
InvalidName            7     a table, namespace, branch or tag name is bad
InvalidArgument        8     a bad argument or option value
InvalidInput           9     bad input data or file (ragged CSV, bad YAML)
ContractViolation      10    data breaks a contract (``.violations``)
PlanError              11    a project does not plan (``.problems``)
MergeConflict          12    merge conflict (``.conflicts``)
ConcurrentUpdate       13    a concurrent update could not be reconciled
PartialRunError        14    would publish or revert part of a run
ModelError             15    a model raised an error or its worker crashed
Unsupported            16    a valid request weir does not support
Interrupted            17    a run stopped by Ctrl-C / ``interrupt()`` (nothing published)
StaleRead              18    a table the write read changed since its base (``.changed``)
OutOfMemory            19    an allocation failed (also a ``MemoryError``); nothing written
=====================  ====  ===========================================================

Example:
    >>> import weir
    >>> try:
    ...     client.get_branch("nope")          # doctest: +SKIP
    ... except weir.NotFound as e:
    ...     print(e.code, e.message)
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from weir.records import ChangedTable, Conflict, PlanProblem, Violation

__all__ = [
    "WeirError", "NotFound", "AlreadyExists", "StorageError", "CatalogError", "EngineError",
    "InvalidName", "InvalidArgument", "InvalidInput", "ContractViolation", "PlanError",
    "MergeConflict", "ConcurrentUpdate", "PartialRunError", "ModelError", "Unsupported",
    "Interrupted", "StaleRead", "OutOfMemory", "SchemaError", "ModelDefinitionError", "LibraryNotFound",
    "error_class",
    "error_from_code", "sdk_advice",
    "CODES",
]


class WeirError(Exception):
    """Base class of every weir error; also the class of code 1 (generic).

    Attributes:
        code: the libweir error code (int).
        message: one line naming what went wrong and where (no ``error:`` prefix).
        details: structured items libweir attached (list of JSON values), possibly empty.

    Example:
        >>> e = WeirError("something broke")
        >>> e.code, e.message, e.exit_code
        (1, 'something broke', 1)
    """

    code: ClassVar[int] = 1
    exit_code_: ClassVar[int] = 1

    def __init__(self, message: str, details: Sequence[Any] | None = None) -> None:
        super().__init__(message)
        self.message: str = message
        self.details: list[Any] = list(details) if details else []

    @property
    def name(self) -> str:
        """The stable name of the error code (``"NotFound"``, ``"ContractViolation"``).

        Example:
            >>> NotFound("x").name
            'NotFound'
        """
        return type(self).__name__ if type(self) in _BY_CODE.values() else _name_of(self.code)

    @property
    def exit_code(self) -> int:
        """The CLI exit code for this error (1, 2, 3 or 4).

        Example:
            >>> MergeConflict("x").exit_code
            4
        """
        return self.exit_code_

    def __str__(self) -> str:
        return self.message

    def to_json(self) -> dict[str, Any]:
        """The error as the worker protocol writes it:
        ``{"code": name, "code_num": n, "message": ..., "details": [...]}``.

        Example:
            >>> NotFound("no table t").to_json()["code_num"]
            2
        """
        return {"code": self.name, "code_num": self.code, "message": self.message, "details": self.details}


class NotFound(WeirError, LookupError):
    """Code 2: a lake, ref, table, run, file or column does not exist.

    Example:
        >>> client.get_table("nope")     # doctest: +SKIP
        Traceback (most recent call last):
        weir.errors.NotFound: table default.nope does not exist at main
    """

    code = 2


class AlreadyExists(WeirError):
    """Code 3: the branch, tag, table or lake to create already exists.

    Example:
        >>> client.create_branch("main")   # doctest: +SKIP
        Traceback (most recent call last):
        weir.errors.AlreadyExists: ...
    """

    code = 3


class StorageError(WeirError):
    """Code 4: a file could not be read or written.

    Example:
        >>> error_from_code(4, "cannot write x").exit_code
        1
    """

    code = 4


class CatalogError(WeirError):
    """Code 5: the catalog database failed or is corrupt.

    Example:
        >>> error_from_code(5, "database is corrupt").name
        'CatalogError'
    """

    code = 5


class EngineError(WeirError):
    """Code 6: the SQL engine reported an error (the message is the engine's).

    Example:
        >>> client.query("SELECT nocol FROM titanic")   # doctest: +SKIP
        Traceback (most recent call last):
        weir.errors.EngineError: cannot run query: Binder Error: ...
    """

    code = 6


class InvalidName(WeirError, ValueError):
    """Code 7: a table, namespace, branch or tag name breaks the naming rules.

    Example:
        >>> client.create_branch("bad..name")   # doctest: +SKIP
        Traceback (most recent call last):
        weir.errors.InvalidName: invalid branch name 'bad..name': ...
    """

    code = 7
    exit_code_ = 2


class InvalidArgument(WeirError, ValueError):
    """Code 8: a bad argument or option value.

    Example:
        >>> client.delete_branch("main")   # doctest: +SKIP
        Traceback (most recent call last):
        weir.errors.InvalidArgument: ...
    """

    code = 8
    exit_code_ = 2


class InvalidInput(WeirError, ValueError):
    """Code 9: bad input data or file (a ragged CSV row, bad YAML); the message names
    file and line.

    Example:
        >>> client.import_data("t", "ragged.csv")   # doctest: +SKIP
        Traceback (most recent call last):
        weir.errors.InvalidInput: ragged.csv:3: ...
    """

    code = 9


class ContractViolation(WeirError):
    """Code 10: data breaks a contract; nothing was published.

    ``violations`` holds every violation (not just the first) as :class:`Violation`
    records with ``kind``, ``column``, ``rule``, ``count``, ``rows``, ``samples`` and the
    CLI's ``message`` line.

    Example:
        >>> try:
        ...     client.import_data("t", table, contract=Strict)   # doctest: +SKIP
        ... except weir.ContractViolation as e:
        ...     for v in e.violations:
        ...         print(v.kind, v.column, v.message)
    """

    code = 10
    exit_code_ = 3

    @property
    def violations(self) -> tuple[Violation, ...]:
        """The violations, structured.

        Example:
            >>> e = error_from_code(10, "x", [{"kind": "nulls", "column": "pid", "message": "m"}])
            >>> e.violations[0].column
            'pid'
        """
        return tuple(Violation.from_json(d) for d in self.details)


class PlanError(WeirError):
    """Code 11: a project does not plan; nothing was written.

    ``problems`` lists every problem (file, line, model, column, expected, found).

    Example:
        >>> try:
        ...     client.run("broken_project")   # doctest: +SKIP
        ... except weir.PlanError as e:
        ...     print([str(p) for p in e.problems])
    """

    code = 11
    exit_code_ = 3

    @property
    def problems(self) -> tuple[PlanProblem, ...]:
        """The problems, structured.

        Example:
            >>> error_from_code(11, "x", [{"file": "f.sql", "line": 2, "message": "m"}]).problems[0].line
            2
        """
        return tuple(PlanProblem.from_json(d) for d in self.details)


class MergeConflict(WeirError):
    """Code 12: a merge conflict; nothing was written.

    ``conflicts`` lists every table changed on both sides, with what each side did.

    Example:
        >>> try:
        ...     client.merge("dev", into_branch="main")   # doctest: +SKIP
        ... except weir.MergeConflict as e:
        ...     print([(c.table, c.ours, c.theirs) for c in e.conflicts])
    """

    code = 12
    exit_code_ = 4

    @property
    def conflicts(self) -> tuple[Conflict, ...]:
        """The conflicting tables, structured.

        Example:
            >>> error_from_code(12, "x", [{"table": "t", "ours": "changed", "theirs": "dropped", "base": None,
            ...                            "base_metadata": None, "ours_metadata": None,
            ...                            "theirs_metadata": None}]).conflicts[0].ours
            'changed'
        """
        out: list[Conflict] = []
        for d in self.details:
            if isinstance(d, Mapping):
                out.append(Conflict.from_json(d))  # pyright: ignore[reportUnknownArgumentType]
        return tuple(out)


class ConcurrentUpdate(WeirError):
    """Code 13: another writer changed what this write builds on, so it was refused and
    nothing was written (docs/versioning.md, "Concurrency"): a replace, revert or merge
    of a table that changed since the write's base, an ``expect_head=`` that is no longer
    the head, or a branch that kept moving. ``changed`` lists the tables that changed
    since the base, with the commit that changed each. Look at the new head and retry.

    Example:
        >>> e = error_from_code(13, "concurrent update", '[{"table": "default.t", "kind": "write", '
        ...                     '"change": "changed", "reason": "a replace never removes rows it did not read", '
        ...                     '"base": "a", "head": "b", "changed_by": "c"}]')
        >>> e.exit_code, e.changed[0].table, e.changed[0].changed_by
        (4, 'default.t', 'c')
    """

    code = 13
    exit_code_ = 4

    @property
    def changed(self) -> tuple[ChangedTable, ...]:
        """The tables that changed since the write's base (empty when the refusal was of
        another kind, such as a branch that kept moving).

        Example:
            >>> error_from_code(13, "main kept moving").changed
            ()
        """
        out: list[ChangedTable] = []
        for d in self.details:
            if isinstance(d, Mapping) and "change" in d:
                out.append(ChangedTable.from_json(d))  # pyright: ignore[reportUnknownArgumentType]
        return tuple(out)


class StaleRead(ConcurrentUpdate):
    """Code 18: a table the write read (a run's input) changed on the branch since the
    write's base, so what it computed may be wrong; nothing was written. A subclass of
    :class:`ConcurrentUpdate`. For a run: ``run(..., retries=N)`` plans and runs again.

    Example:
        >>> isinstance(error_from_code(18, "stale read"), ConcurrentUpdate)
        True
    """

    code = 18


class PartialRunError(WeirError):
    """Code 14: the operation would publish (merge) or revert only part of a run. The
    message names the run and its tables; pass ``allow_partial=True`` to do it anyway.

    Example:
        >>> client.merge("run/abc", into_branch="main")   # doctest: +SKIP
        Traceback (most recent call last):
        weir.errors.PartialRunError: merging run/abc into main would publish ...
    """

    code = 14


class ModelError(WeirError):
    """Code 15: a model raised an exception or its worker crashed.

    Example:
        >>> state = client.run("proj")   # doctest: +SKIP
        >>> state.error.code   # doctest: +SKIP
        'ModelError'
    """

    code = 15


class Unsupported(WeirError):
    """Code 16: a valid request weir does not support (yet).

    Example:
        >>> error_from_code(16, "not yet").name
        'Unsupported'
    """

    code = 16


class Interrupted(WeirError):
    """Code 17: a run was stopped (Ctrl-C, SIGTERM, ``Client.interrupt()``) before it
    finished; its target branch is untouched and its run branch kept. A run whose process
    was killed reads as status ``interrupted`` with this code in its error.

    Example:
        >>> error_from_code(17, "model g: interrupted").name
        'Interrupted'
    """

    code = 17
    exit_code_: ClassVar[int] = 130


class OutOfMemory(WeirError, MemoryError):
    """Code 19: libweir could not allocate memory (``malloc`` failed, or SQLite or DuckDB
    reported that they ran out). The operation was abandoned and cleaned up: nothing was
    written, the client stays usable, and retrying once memory is free can succeed
    (docs/memory.md). Also a :class:`MemoryError`, so ``except MemoryError`` catches it.

    Example:
        >>> e = error_from_code(19, "out of memory")
        >>> isinstance(e, MemoryError), e.name, e.exit_code
        (True, 'OutOfMemory', 1)
    """

    code = 19


class SchemaError(InvalidArgument, TypeError):
    """A ``TableSchema`` class is malformed: an unknown type, a lineage reference to a
    column that does not exist, a duplicate column, conflicting markers. Raised when the
    class is defined (so at import time of the module that defines it).

    Example:
        >>> from weir import TableSchema, Int64
        >>> class A(TableSchema):
        ...     x: Int64
        >>> A["y"]
        Traceback (most recent call last):
        weir.errors.SchemaError: schema A has no column 'y' (columns: x)
    """


class ModelDefinitionError(InvalidArgument, TypeError):
    """A ``@weir.model`` function is malformed (an input without ``Model(...)``, a bad
    materialization, two schemas for one input). ``line`` is the line of the offending
    parameter or function, when known.

    Example:
        >>> import weir
        >>> weir.model(materialization="MERGE")(lambda: None)   # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        weir.errors.ModelDefinitionError: ...
    """

    def __init__(self, message: str, line: int | None = None, file: str | None = None) -> None:
        super().__init__(message)
        self.line: int | None = line
        self.file: str | None = file


class LibraryNotFound(NotFound):
    """libweir could not be loaded; the message lists every place that was tried
    (``$WEIR_LIBRARY``, ``weir/lib/libweir.so``, the repository's ``build/``).

    Example:
        >>> import os; os.environ["WEIR_LIBRARY"] = "/nope.so"   # doctest: +SKIP
        >>> weir.Client()                                      # doctest: +SKIP
        Traceback (most recent call last):
        weir.errors.LibraryNotFound: $WEIR_LIBRARY is /nope.so, which does not exist
    """


_BY_CODE: dict[int, type[WeirError]] = {
    c.code: c for c in (WeirError, NotFound, AlreadyExists, StorageError, CatalogError, EngineError,
                        InvalidName, InvalidArgument, InvalidInput, ContractViolation, PlanError,
                        MergeConflict, ConcurrentUpdate, PartialRunError, ModelError, Unsupported,
                        Interrupted, StaleRead, OutOfMemory)
}

#: code number → class name, as ``weir_error_name`` returns them.
CODES: Mapping[int, str] = {code: cls.__name__ for code, cls in _BY_CODE.items()}


def _name_of(code: int) -> str:
    return CODES.get(code, "WeirError")


def error_class(code: int | str) -> type[WeirError]:
    """The exception class for a numeric code or a code name (``"NotFound"``);
    ``WeirError`` for unknown codes.

    Example:
        >>> error_class(2).__name__, error_class("MergeConflict").code
        ('NotFound', 12)
    """
    if isinstance(code, str):
        for cls in _BY_CODE.values():
            if cls.__name__ == code:
                return cls
        return WeirError
    return _BY_CODE.get(code, WeirError)


# libweir words its advice for the command line, which is most of its callers; the SDK
# says the same in its own terms. Each rule rewrites one spelling libweir uses (see the
# messages in src/); a message that already gives the SDK's words (``sandbox=False``) is
# left alone. Order matters: longer forms first.
_SDK_ADVICE: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), r) for p, r in (
    (r"weir branch create NAME --from ([\w./~^-]+)", r'create_branch(NAME, from_ref="\1")'),
    (r"weir branch create ([\w./-]+)", r'create_branch("\1")'),
    (r"weir init ([^\s)]+)", r'weir.Client.init("\1")'),
    (r"weir init\b", "weir.Client.init(path)"),
    (r"`weir revert --run (\S+) --branch (\S+)`", r'revert_run("\1", into_branch="\2")'),
    (r"weir revert TABLE --to REF", "revert_table(TABLE, source_ref=REF)"),
    (r"weir import --format csv\|parquet\|jsonl", 'import_data(..., format="csv", "parquet" or "jsonl")'),
    (r"--mode (\w+)", r'mode="\1"'),
    (r"--force\b", "force=True"),
    (r"--allow-partial\b", "allow_partial=True"),
    (r"--allow-contract-change\b", "allow_contract_change=True"),
    (r"--retry N", "retries=N"),
    (r"--expect-head\b", "expect_head"),
    (r"no --lake given", "no lake= given"),
))


def sdk_advice(message: str) -> str:
    """``message`` from libweir with its command-line advice said as the SDK's: keyword
    arguments and methods instead of flags and commands.

    Example:
        >>> sdk_advice("merge it first, or delete it anyway with --force")
        'merge it first, or delete it anyway with force=True'
        >>> sdk_advice("use --mode replace or --mode append")
        'use mode="replace" or mode="append"'
    """
    if "sandbox=False" in message:
        return message
    for pattern, replacement in _SDK_ADVICE:
        message = pattern.sub(replacement, message)
    return message


def error_from_code(code: int | str, message: str, details: object = None) -> WeirError:
    """Builds the exception for a libweir error. ``details`` may be a JSON string, a list,
    a single object, or None.

    Example:
        >>> e = error_from_code(12, "conflict", '[{"table": "default.t", "ours": "changed", "theirs": "dropped", '
        ...                     '"base": null, "base_metadata": null, "ours_metadata": null, "theirs_metadata": null}]')
        >>> type(e).__name__, e.conflicts[0].table
        ('MergeConflict', 'default.t')
    """
    if isinstance(details, (str, bytes)):
        try:
            details = json.loads(details)
        except ValueError:
            details = [details if isinstance(details, str) else details.decode("utf-8", "replace")]
    items: list[Any]
    if details is None:
        items = []
    elif isinstance(details, list):
        items = list(details)  # pyright: ignore[reportUnknownArgumentType]
    else:
        items = [details]
    cls = error_class(code)
    return cls(sdk_advice(message), items)
