"""Typed, immutable records the client returns: commits, branches, tags, tables, runs.

Every record is a frozen dataclass built from the JSON documents libweir returns (the
same documents ``weir ... --json`` prints). Each keeps the document it was made from in
``raw`` (excluded from equality), so fields libweir adds later are never lost.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

__all__ = [
    "Commit", "CommitTable", "TableChange", "Branch", "Tag", "MergeResult", "Conflict", "ChangedTable",
    "TableSummary", "TableInfo", "Column", "Diff", "TableDiff", "RevertResult", "ImportResult",
    "Violation", "RuleResult", "ModelResult", "RunError", "RunState", "Plan", "PlannedModel",
    "PlanProblem", "parse_time",
]

_EMPTY: Mapping[str, Any] = {}


def parse_time(value: object) -> dt.datetime | None:
    """A UTC datetime from libweir's time fields: an ISO 8601 string
    (``2026-07-01T12:00:00.000000Z``) or an integer of microseconds since the epoch.

    Example:
        >>> parse_time("2026-07-01T12:00:00.000000Z").year
        2026
        >>> parse_time(0).isoformat()
        '1970-01-01T00:00:00+00:00'
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=value)
    if isinstance(value, str) and value:
        s = value[:-1] + "+00:00" if value.endswith("Z") else value
        try:
            t = dt.datetime.fromisoformat(s)
        except ValueError:
            return None
        return t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)
    return None


def _obj(v: object) -> Mapping[str, Any]:
    return cast("Mapping[str, Any]", v) if isinstance(v, Mapping) else _EMPTY


def _opt_obj(v: object) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", v) if isinstance(v, Mapping) else None


def _list(v: object) -> list[Any]:
    return cast("list[Any]", v) if isinstance(v, list) else []


def _str(v: object) -> str | None:
    return v if isinstance(v, str) else None


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _float(v: object) -> float | None:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    return None


@dataclass(frozen=True)
class TableChange:
    """One table a commit, merge or revert touched, and what happened to it
    (``"added"``, ``"changed"``, ``"dropped"``, ``"replaced"``, ``"appended"``, ...).

    Example:
        >>> TableChange.from_json({"table": "default.f", "action": "added"}).action
        'added'
    """

    table: str
    action: str

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TableChange:
        """Builds the record from libweir's JSON object.

        Example:
            >>> TableChange.from_json({"table": "default.f", "change": "added"}).action
            'added'
        """
        return cls(table=_str(d.get("table")) or "", action=_str(d.get("action")) or _str(d.get("change")) or "")


@dataclass(frozen=True)
class CommitTable:
    """A table as one commit holds it: its Iceberg metadata file and snapshot.

    Example:
        >>> [t.table for t in client.get_commit("main").tables]   # doctest: +SKIP
    """

    table: str
    metadata_location: str
    snapshot_id: int | None
    record_count: int | None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CommitTable:
        """Builds the record from libweir's JSON object.

        Example:
            >>> CommitTable.from_json({"table": "default.f", "metadata_location": "/lake/m.json", "snapshot_id": 1, "record_count": 170}).record_count
            170
        """
        return cls(table=_str(d.get("table")) or "", metadata_location=_str(d.get("metadata_location")) or "",
                   snapshot_id=_int(d.get("snapshot_id")), record_count=_int(d.get("record_count")))


@dataclass(frozen=True)
class Commit:
    """An immutable commit of the whole lake.

    ``tables_changed`` lists what this commit changed (from ``get_commits``);
    ``tables`` lists every table the commit holds (filled by ``get_commit`` only).
    A Commit can be passed wherever the client takes a ``ref``.

    Example:
        >>> c = client.get_commits(ref="main", limit=1)[0]   # doctest: +SKIP
        >>> client.query("SELECT COUNT(*) FROM titanic", ref=c)  # doctest: +SKIP
    """

    hash: str
    parents: tuple[str, ...]
    time: dt.datetime | None
    author: str
    message: str
    properties: Mapping[str, str] = field(default_factory=dict[str, Any], hash=False)
    tables_changed: tuple[TableChange, ...] = ()
    tables: tuple[CommitTable, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @property
    def short_hash(self) -> str:
        """The first 12 hex digits, as the CLI shows them.

        Example:
            >>> Commit.from_json({"hash": "ab" * 32}).short_hash
            'abababababab'
        """
        return self.hash[:12]

    @property
    def run_id(self) -> str | None:
        """The run that made this commit, if a run did.

        Example:
            >>> Commit.from_json({"hash": "h", "properties": {"weir.run-id": "r1"}}).run_id
            'r1'
        """
        return self.properties.get("weir.run-id") or self.properties.get("run_id")

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Commit:
        """Builds the record from ``weir_commit_log``/``weir_commit_show`` JSON.

        Example:
            >>> Commit.from_json({"hash": "ab" * 32, "parents": [], "time": "2026-01-01T00:00:00.000000Z", "message": "init"}).message
            'init'
        """
        props = {str(k): str(v) for k, v in _obj(d.get("properties")).items()}
        return cls(hash=_str(d.get("hash")) or "",
                   parents=tuple(str(p) for p in _list(d.get("parents"))),
                   time=parse_time(d.get("time")),
                   author=_str(d.get("author")) or "",
                   message=_str(d.get("message")) or "",
                   properties=props,
                   tables_changed=tuple(TableChange.from_json(_obj(x)) for x in _list(d.get("tables_changed"))),
                   tables=tuple(CommitTable.from_json(_obj(x)) for x in _list(d.get("tables"))),
                   raw=dict(d))


@dataclass(frozen=True)
class Branch:
    """A branch: a movable name for a commit. Pass it wherever a ref or branch is taken.

    Example:
        >>> dev = client.create_branch("dev", from_ref="main")  # doctest: +SKIP
        >>> client.run("pipeline/", ref=dev)                     # doctest: +SKIP
    """

    name: str
    head: str
    time: dt.datetime | None = None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Branch:
        """Builds the record from ``weir_branch_list`` JSON.

        Example:
            >>> Branch.from_json({"name": "main", "head": "ab" * 32}).name
            'main'
        """
        return cls(name=_str(d.get("name")) or "", head=_str(d.get("head")) or "",
                   time=parse_time(d.get("time")), raw=dict(d))


@dataclass(frozen=True)
class Tag:
    """A tag: a name for a commit that never moves. Usable as a ref.

    Example:
        >>> client.create_tag("v1", ref="main").target   # doctest: +SKIP
    """

    name: str
    target: str
    time: dt.datetime | None = None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Tag:
        """Builds the record from ``weir_tag_list`` JSON.

        Example:
            >>> Tag.from_json({"name": "v1", "target": "ab" * 32}).name
            'v1'
        """
        return cls(name=_str(d.get("name")) or "", target=_str(d.get("target")) or "",
                   time=parse_time(d.get("time")), raw=dict(d))


@dataclass(frozen=True)
class Conflict:
    """One table changed differently on both sides of a merge (``MergeConflict.conflicts``).

    ``ours`` and ``theirs`` say what each side did: ``"changed"``, ``"added"``,
    ``"dropped"``.

    Example:
        >>> except weir.MergeConflict as e: e.conflicts[0].table     # doctest: +SKIP
    """

    table: str
    ours: str
    theirs: str
    base: str | None = None
    base_metadata: str | None = None
    ours_metadata: str | None = None
    theirs_metadata: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Conflict:
        """Builds the record from a conflict detail object.

        Example:
            >>> Conflict.from_json({"table": "default.t", "ours": "changed", "theirs": "dropped"}).theirs
            'dropped'
        """
        return cls(table=_str(d.get("table")) or "", ours=_str(d.get("ours")) or "",
                   theirs=_str(d.get("theirs")) or "", base=_str(d.get("base")),
                   base_metadata=_str(d.get("base_metadata")), ours_metadata=_str(d.get("ours_metadata")),
                   theirs_metadata=_str(d.get("theirs_metadata")), raw=dict(d))


@dataclass(frozen=True)
class ChangedTable:
    """A table that changed on a branch after a write's base, which is why the write was
    refused (``ConcurrentUpdate.changed`` and ``StaleRead.changed``).

    ``kind`` is ``"write"`` (the write would have overwritten the change) or ``"read"``
    (the write read the table: a run's input); ``change`` says what happened
    (``"changed"``, ``"was dropped"``, ...) and ``reason`` why that refuses the write;
    ``changed_by`` is the commit that made the change, when it can be told.

    Example:
        >>> ChangedTable.from_json({"table": "default.t", "kind": "read", "change": "changed",
        ...                         "reason": "the run read it", "base": "a" * 64, "head": "b" * 64,
        ...                         "changed_by": "c" * 64}).kind
        'read'
    """

    table: str
    kind: str
    change: str
    reason: str
    base: str
    head: str
    changed_by: str | None = None
    changed_by_message: str | None = None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ChangedTable:
        """Builds the record from a detail object of a refused write.

        Raises:
            KeyError: a required key is missing (the document does not match docs/json.md).

        Example:
            >>> ChangedTable.from_json({"table": "default.t", "kind": "write", "change": "was dropped",
            ...                         "reason": "...", "base": "a", "head": "b"}).changed_by is None
            True
        """
        return cls(table=str(d["table"]), kind=str(d["kind"]), change=str(d["change"]), reason=str(d["reason"]),
                   base=str(d["base"]), head=str(d["head"]), changed_by=_str(d.get("changed_by")),
                   changed_by_message=_str(d.get("changed_by_message")))


@dataclass(frozen=True)
class MergeResult:
    """What a merge did: ``result`` is ``"fast-forward"``, ``"merge"`` or ``"up-to-date"``;
    ``commit`` is the new head of the target branch.

    Example:
        >>> client.merge("dev", into_branch="main").result   # doctest: +SKIP
        'fast-forward'
    """

    result: str
    commit: str
    base: str | None
    source: str
    source_commit: str | None
    into: str
    into_commit: str | None
    tables: tuple[TableChange, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @property
    def fast_forward(self) -> bool:
        """True when the target branch just moved to the source head.

        Example:
            >>> MergeResult.from_json({"result": "merge"}).fast_forward
            False
        """
        return self.result == "fast-forward"

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> MergeResult:
        """Builds the record from ``weir_branch_merge`` JSON.

        Example:
            >>> MergeResult.from_json({"result": "fast-forward", "commit": "ab" * 32, "source": "dev", "into": "main"}).fast_forward
            True
        """
        return cls(result=_str(d.get("result")) or "", commit=_str(d.get("commit")) or "",
                   base=_str(d.get("base")), source=_str(d.get("source")) or "",
                   source_commit=_str(d.get("source_commit")), into=_str(d.get("into")) or "",
                   into_commit=_str(d.get("into_commit")),
                   tables=tuple(TableChange.from_json(_obj(x)) for x in _list(d.get("tables"))),
                   raw=dict(d))


@dataclass(frozen=True)
class TableSummary:
    """A table in the list ``get_tables`` returns.

    Example:
        >>> client.get_tables(ref="main")[0].record_count          # doctest: +SKIP
    """

    table: str
    record_count: int | None
    snapshot_id: int | None
    metadata_location: str

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TableSummary:
        """Builds the record from ``weir_table_list`` JSON.

        Example:
            >>> TableSummary.from_json({"table": "default.titanic", "record_count": 891, "metadata_location": "/m.json"}).record_count
            891
        """
        return cls(table=_str(d.get("table")) or "", record_count=_int(d.get("record_count")),
                   snapshot_id=_int(d.get("snapshot_id")),
                   metadata_location=_str(d.get("metadata_location")) or "")


@dataclass(frozen=True)
class Column:
    """A column of a stored table, as ``describe`` reports it.

    ``type`` is the Arrow type name (``int64``, ``large_string``), ``weir_type`` the weir
    name (``Int64``); ``lineage`` lists the ``"Schema.column"`` columns it derives from.

    Example:
        >>> client.get_table("f").column("pid").doc                  # doctest: +SKIP
    """

    name: str
    type: str
    weir_type: str
    required: bool
    doc: str | None
    field_id: int | None
    lineage: tuple[str, ...] = ()

    @property
    def nullable(self) -> bool:
        """The opposite of ``required``.

        Example:
            >>> Column.from_json({"name": "Cabin", "required": False}).nullable
            True
        """
        return not self.required

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Column:
        """Builds the record from a ``describe`` column object.

        Example:
            >>> Column.from_json({"name": "pid", "type": "int64", "weir_type": "Int64", "required": True, "field_id": 1}).nullable
            False
        """
        return cls(name=_str(d.get("name")) or "", type=_str(d.get("type")) or "",
                   weir_type=_str(d.get("weir_type")) or "", required=bool(d.get("required")),
                   doc=_str(d.get("doc")), field_id=_int(d.get("field_id")),
                   lineage=tuple(str(x) for x in _list(d.get("lineage"))))


@dataclass(frozen=True)
class TableInfo:
    """A table as it is at one ref: columns with docs and lineage, the table comment, the
    contract stored with it, its snapshot and metadata file.

    Example:
        >>> info = client.get_table("f", ref="main")        # doctest: +SKIP
        >>> [c.name for c in info.columns]                   # doctest: +SKIP
        ['pid', 'tclass', 'Fare']
    """

    table: str
    ref: str
    commit: str
    snapshot_id: int | None
    metadata_location: str
    comment: str | None
    record_count: int | None
    columns: tuple[Column, ...]
    properties: Mapping[str, str] = field(default_factory=dict[str, Any], hash=False)
    contract: Mapping[str, Any] | None = field(default=None, hash=False)
    snapshot_summary: Mapping[str, Any] | None = field(default=None, hash=False)
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    def column(self, name: str) -> Column:
        """The column called ``name``.

        Raises:
            KeyError: no such column.

        Example:
            >>> info = TableInfo.from_json({"columns": [{"name": "pid"}]})
            >>> info.column("pid").name
            'pid'
        """
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"table {self.table} has no column {name!r} (columns: {', '.join(c.name for c in self.columns)})")

    @property
    def lineage(self) -> Mapping[str, tuple[str, ...]]:
        """Column → the columns it derives from (only columns that declare lineage).

        Example:
            >>> TableInfo.from_json({"columns": [{"name": "pid", "lineage": ["S.id"]}]}).lineage
            {'pid': ('S.id',)}
        """
        return {c.name: c.lineage for c in self.columns if c.lineage}

    @property
    def docs(self) -> Mapping[str, str]:
        """Column → doc string (only documented columns).

        Example:
            >>> TableInfo.from_json({"columns": [{"name": "pid", "doc": "id"}, {"name": "x"}]}).docs
            {'pid': 'id'}
        """
        return {c.name: c.doc for c in self.columns if c.doc}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TableInfo:
        """Builds the record from ``weir_table_describe`` JSON.

        Example:
            >>> TableInfo.from_json({"table": "default.f", "ref": "main", "commit": "ab" * 32, "columns": [{"name": "pid", "doc": "id"}]}).docs
            {'pid': 'id'}
        """
        contract = d.get("contract")
        summary = d.get("snapshot_summary")
        return cls(table=_str(d.get("table")) or "", ref=_str(d.get("ref")) or "",
                   commit=_str(d.get("commit")) or "", snapshot_id=_int(d.get("snapshot_id")),
                   metadata_location=_str(d.get("metadata_location")) or "",
                   comment=_str(d.get("comment")), record_count=_int(d.get("record_count")),
                   columns=tuple(Column.from_json(_obj(x)) for x in _list(d.get("columns"))),
                   properties={str(k): str(v) for k, v in _obj(d.get("properties")).items()},
                   contract=_opt_obj(contract), snapshot_summary=_opt_obj(summary),
                   raw=dict(d))


@dataclass(frozen=True)
class TableDiff:
    """One table in a ``Diff``: its row counts and metadata files on each side.

    Example:
        >>> client.diff("main", "dev").changed[0].record_change      # doctest: +SKIP
    """

    table: str
    record_change: int
    records_before: int | None = None
    records_after: int | None = None
    metadata_before: str | None = None
    metadata_after: str | None = None

    @classmethod
    def from_json(cls, d: Mapping[str, Any], kind: str) -> TableDiff:
        """Builds the record from one entry of ``weir_commit_diff``'s added/removed/changed.

        Example:
            >>> TableDiff.from_json({"table": "t", "records_before": 1, "records_after": 3, "record_change": 2}, "changed").records_after
            3
        """
        change = _int(d.get("record_change")) or 0
        if kind == "added":
            return cls(table=_str(d.get("table")) or "", record_change=change, records_before=None,
                       records_after=_int(d.get("record_count")), metadata_after=_str(d.get("metadata_location")))
        if kind == "removed":
            return cls(table=_str(d.get("table")) or "", record_change=change,
                       records_before=_int(d.get("record_count")), records_after=None,
                       metadata_before=_str(d.get("metadata_location")))
        return cls(table=_str(d.get("table")) or "", record_change=change,
                   records_before=_int(d.get("records_before")), records_after=_int(d.get("records_after")),
                   metadata_before=_str(d.get("metadata_before")), metadata_after=_str(d.get("metadata_after")))


@dataclass(frozen=True)
class Diff:
    """Tables added, removed and changed from ``from_ref`` to ``to_ref``.

    Example:
        >>> d = client.diff("main", "dev")                    # doctest: +SKIP
        >>> [t.table for t in d.added]                        # doctest: +SKIP
    """

    from_ref: str
    to_ref: str
    from_commit: str | None
    to_commit: str | None
    added: tuple[TableDiff, ...] = ()
    removed: tuple[TableDiff, ...] = ()
    changed: tuple[TableDiff, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @property
    def empty(self) -> bool:
        """True when both refs hold the same tables at the same versions.

        Example:
            >>> Diff.from_json({"from": "main", "to": "main"}).empty
            True
        """
        return not (self.added or self.removed or self.changed)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Diff:
        """Builds the record from ``weir_commit_diff`` JSON.

        Example:
            >>> Diff.from_json({"from": "main", "to": "dev", "added": [{"table": "default.x", "record_count": 3, "record_change": 3}]}).added[0].records_after
            3
        """
        return cls(from_ref=_str(d.get("from")) or "", to_ref=_str(d.get("to")) or "",
                   from_commit=_str(d.get("from_commit")), to_commit=_str(d.get("to_commit")),
                   added=tuple(TableDiff.from_json(_obj(x), "added") for x in _list(d.get("added"))),
                   removed=tuple(TableDiff.from_json(_obj(x), "removed") for x in _list(d.get("removed"))),
                   changed=tuple(TableDiff.from_json(_obj(x), "changed") for x in _list(d.get("changed"))),
                   raw=dict(d))


@dataclass(frozen=True)
class RevertResult:
    """The commit a revert made and the tables it put back (``action`` per table is
    ``"restored"``, ``"dropped"``, ... as libweir reports it).

    Example:
        >>> client.revert_table("f", source_ref=old, into_branch="main").commit   # doctest: +SKIP
    """

    commit: str
    branch: str | None
    tables: tuple[TableChange, ...]
    run_id: str | None = None
    to: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RevertResult:
        """Builds the record from ``weir_table_revert``/``weir_run_revert`` JSON.

        Example:
            >>> RevertResult.from_json({"commit": "ab" * 32, "table": "default.f", "action": "restored", "branch": "main"}).tables[0].table
            'default.f'
        """
        tables: list[TableChange] = []
        if isinstance(d.get("table"), str):
            tables.append(TableChange(table=str(d["table"]), action=_str(d.get("action")) or ""))
        for x in _list(d.get("tables")):
            if isinstance(x, str):
                tables.append(TableChange(table=x, action=""))
            else:
                tables.append(TableChange.from_json(_obj(x)))
        return cls(commit=_str(d.get("commit")) or "", branch=_str(d.get("branch")), tables=tuple(tables),
                   run_id=_str(d.get("run_id")), to=_str(d.get("to")), raw=dict(d))


@dataclass(frozen=True)
class Violation:
    """One contract violation: ``kind`` is ``missing``, ``unknown``, ``type``, ``nulls``,
    ``unique``, ``enum``, ``pattern``, ``range``, ``check`` or ``table_rule``; ``message``
    is the line the CLI prints (``column "pid" has 3 null values but is required ...``).

    Example:
        >>> [v.message for v in err.violations]                     # doctest: +SKIP
    """

    kind: str
    message: str
    column: str | None = None
    rule: str | None = None
    mode: str | None = None
    count: int | None = None
    rows: tuple[int, ...] = ()
    samples: tuple[Any, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.message

    @classmethod
    def from_json(cls, d: object) -> Violation:
        """Builds the record from a violation object (a bare string is taken as the message).

        Example:
            >>> Violation.from_json({"kind": "nulls", "column": "pid", "count": 3, "message": "3 nulls"}).count
            3
        """
        if isinstance(d, str):
            return cls(kind="", message=d)
        m = _obj(d)
        return cls(kind=_str(m.get("kind")) or "", message=_str(m.get("message")) or "",
                   column=_str(m.get("column")), rule=_str(m.get("rule")), mode=_str(m.get("mode")),
                   count=_int(m.get("count")),
                   rows=tuple(int(r) for r in _list(m.get("rows")) if isinstance(r, int)),
                   samples=tuple(_list(m.get("samples"))), raw=dict(m))


@dataclass(frozen=True)
class RuleResult:
    """A quality rule's result in a run or import report.

    Example:
        >>> [r.rule for r in state.model("f").rules]                # doctest: +SKIP
    """

    rule: str
    kind: str | None
    column: str | None
    mode: str | None
    value: float | None
    threshold: float | None
    rows_affected: int | None
    passed: bool

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RuleResult:
        """Builds the record from a report's ``rules`` entry.

        Example:
            >>> RuleResult.from_json({"rule": "tclass.enum", "kind": "enum", "value": 0, "passed": True}).passed
            True
        """
        return cls(rule=_str(d.get("rule")) or "", kind=_str(d.get("kind")), column=_str(d.get("column")),
                   mode=_str(d.get("mode")), value=_float(d.get("value")), threshold=_float(d.get("threshold")),
                   rows_affected=_int(d.get("rows_affected")), passed=bool(d.get("passed", True)))


def _report_violations(report: object) -> tuple[Violation, ...]:
    return tuple(Violation.from_json(v) for v in _list(_obj(report).get("violations")))


def _report_rules(report: object) -> tuple[RuleResult, ...]:
    return tuple(RuleResult.from_json(_obj(r)) for r in _list(_obj(report).get("rules")))


@dataclass(frozen=True)
class ImportResult:
    """What an import wrote: the commit, rows written and quarantined, the contract report.

    Example:
        >>> client.import_data("t", "t.csv").rows_written           # doctest: +SKIP
    """

    commit: str
    table: str
    branch: str | None
    mode: str
    rows_written: int
    rows_quarantined: int
    quarantine_table: str | None
    violations: tuple[Violation, ...] = ()
    rules: tuple[RuleResult, ...] = ()
    report: Mapping[str, Any] | None = field(default=None, hash=False)
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ImportResult:
        """Builds the record from ``weir_table_import`` JSON.

        Example:
            >>> ImportResult.from_json({"commit": "ab" * 32, "table": "default.t", "mode": "create", "rows_written": 3}).rows_written
            3
        """
        report = d.get("report")
        return cls(commit=_str(d.get("commit")) or "", table=_str(d.get("table")) or "",
                   branch=_str(d.get("branch")), mode=_str(d.get("mode")) or "",
                   rows_written=_int(d.get("rows_written")) or 0,
                   rows_quarantined=_int(d.get("rows_quarantined")) or 0,
                   quarantine_table=_str(d.get("quarantine_table")),
                   violations=_report_violations(report), rules=_report_rules(report),
                   report=_opt_obj(report), raw=dict(d))


@dataclass(frozen=True)
class ModelResult:
    """One model of a run: its status (``succeeded``, ``failed``, ``skipped``, ...), the
    table it wrote, rows, commit on the run branch, timings, error and violations.

    Example:
        >>> state.model("h").rows                                  # doctest: +SKIP
    """

    model: str
    status: str
    table: str | None = None
    rows: int | None = None
    rows_quarantined: int | None = None
    commit: str | None = None
    started: dt.datetime | None = None
    ended: dt.datetime | None = None
    error: str | None = None
    violations: tuple[Violation, ...] = ()
    rules: tuple[RuleResult, ...] = ()
    report: Mapping[str, Any] | None = field(default=None, hash=False)
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)
    #: A Python model's sandbox (docs/sandbox.md): ``{"enabled": True, "landlock_abi",
    #: "seccomp", "network", "internet_access", "limits", "peak_memory"}``, or
    #: ``{"enabled": False, "reason": ...}`` for a run with ``sandbox=False``; None for SQL.
    sandbox: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)

    @property
    def seconds(self) -> float | None:
        """Wall time of the model, when both ends are known.

        Example:
            >>> ModelResult.from_json({"model": "f", "started_us": 0, "ended_us": 250000}).seconds
            0.25
        """
        if self.started is None or self.ended is None:
            return None
        return (self.ended - self.started).total_seconds()

    def success(self) -> bool:
        """True when the model succeeded.

        Example:
            >>> ModelResult.from_json({"model": "f", "status": "failed"}).success()
            False
        """
        return self.status in ("succeeded", "success", "ok")

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ModelResult:
        """Builds the record from one entry of a run's ``models``.

        Example:
            >>> ModelResult.from_json({"model": "f", "status": "succeeded", "rows": 170, "started_us": 0, "ended_us": 1500000}).seconds
            1.5
        """
        report = d.get("report")
        err = d.get("error")
        err_obj = _opt_obj(err)
        if err_obj is not None:
            err = _str(err_obj.get("message"))
        started = d.get("started_us", d.get("started"))
        ended = d.get("ended_us", d.get("ended"))
        violations = _report_violations(report)
        if not violations and "violations" in d:
            violations = tuple(Violation.from_json(v) for v in _list(d.get("violations")))
        return cls(model=_str(d.get("model")) or _str(d.get("name")) or "",
                   status=_str(d.get("status")) or "", table=_str(d.get("table")),
                   rows=_int(d.get("rows")), rows_quarantined=_int(d.get("rows_quarantined")),
                   commit=_str(d.get("commit")), started=parse_time(started), ended=parse_time(ended),
                   error=_str(err), violations=violations, rules=_report_rules(report),
                   report=_opt_obj(report), raw=dict(d), sandbox=_opt_obj(d.get("sandbox")))


@dataclass(frozen=True)
class RunError:
    """Why a run failed: the libweir error code name, message and structured details.

    Example:
        >>> state.error.code if not state.success() else None       # doctest: +SKIP
    """

    code: str
    message: str
    details: tuple[Any, ...] = ()
    code_num: int | None = None

    @classmethod
    def from_json(cls, d: object) -> RunError | None:
        """Builds the record from a run's ``error`` field (object or string); None if absent.

        Example:
            >>> RunError.from_json({"code": "ModelError", "code_num": 15, "message": "model g raised ..."}).code
            'ModelError'
        """
        if d is None:
            return None
        if isinstance(d, str):
            return cls(code="", message=d)
        m = _obj(d)
        return cls(code=_str(m.get("code")) or "", message=_str(m.get("message")) or "",
                   details=tuple(_list(m.get("details"))), code_num=_int(m.get("code_num")))


@dataclass(frozen=True)
class PlanProblem:
    """One problem ``check``/``run`` found while planning a project (file, line, model,
    column, expected, found, message).

    Example:
        >>> [str(p) for p in client.check("proj").problems]          # doctest: +SKIP
    """

    message: str
    file: str | None = None
    line: int | None = None
    model: str | None = None
    column: str | None = None
    expected: str | None = None
    found: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file and self.line else f"{self.file}: " if self.file else ""
        return where + self.message

    @classmethod
    def from_json(cls, d: object) -> PlanProblem:
        """Builds the record from a problem object (a bare string is taken as the message).

        Example:
            >>> PlanProblem.from_json({"file": "f.sql", "line": 3, "message": "table x does not exist"}).__str__()
            'f.sql:3: table x does not exist'
        """
        if isinstance(d, str):
            return cls(message=d)
        m = _obj(d)
        return cls(message=_str(m.get("message")) or "", file=_str(m.get("file")), line=_int(m.get("line")),
                   model=_str(m.get("model")), column=_str(m.get("column")),
                   expected=None if m.get("expected") is None else str(m.get("expected")),
                   found=None if m.get("found") is None else str(m.get("found")), raw=dict(m))


@dataclass(frozen=True)
class PlannedModel:
    """A model of a plan, in execution order: its language, inputs and output contract.

    Example:
        >>> [m.name for m in client.check("proj").models]           # doctest: +SKIP
    """

    name: str
    language: str | None
    inputs: tuple[str, ...]
    output_schema: str | None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PlannedModel:
        """Builds the record from one entry of a plan's ``models``.

        Example:
            >>> PlannedModel.from_json({"name": "h", "language": "python", "inputs": [{"table": "default.f"}]}).inputs
            ('default.f',)
        """
        inputs: list[str] = []
        for x in _list(d.get("inputs")):
            if isinstance(x, str):
                inputs.append(x)
            else:
                inputs.append(_str(_obj(x).get("table")) or "")
        return cls(name=_str(d.get("name")) or "", language=_str(d.get("language")), inputs=tuple(inputs),
                   output_schema=_str(d.get("output_schema")), raw=dict(d))


@dataclass(frozen=True)
class Plan:
    """The result of planning a project: ``ok``, the models in execution order, problems.

    Example:
        >>> plan = client.check("examples/titanic/project")   # doctest: +SKIP
        >>> [m.name for m in plan.models]                       # doctest: +SKIP
        ['f', 'g', 'fare_sum', 'h']
    """

    ok: bool
    models: tuple[PlannedModel, ...] = ()
    problems: tuple[PlanProblem, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any], problems: Sequence[object] = ()) -> Plan:
        """Builds the record from ``weir_project_check`` JSON (or a failed check's details).

        Example:
            >>> Plan.from_json({"ok": True, "models": [{"name": "f"}]}).models[0].name
            'f'
        """
        probs = [PlanProblem.from_json(p) for p in _list(d.get("problems"))]
        probs += [PlanProblem.from_json(p) for p in problems]
        ok = d.get("ok")
        return cls(ok=bool(ok) if isinstance(ok, bool) else not probs,
                   models=tuple(PlannedModel.from_json(_obj(m)) for m in _list(d.get("models"))),
                   problems=tuple(probs), raw=dict(d))


@dataclass(frozen=True)
class RunState:
    """A pipeline run: status (``running``, ``succeeded``, ``failed``; ``interrupted`` when
    the process running it ended without finishing, e.g. killed; ``planned`` for a dry
    run), target branch, base and result commits, per-model results and the error.
    After ``run(..., retries=N)`` it is the last attempt; ``retried_runs`` names the
    earlier ones (each recorded as a failed run).

    ``Client.run`` returns a RunState for a run that failed in a model (contract
    violation, model error, worker crash, final merge conflict): check ``success()``.

    Example:
        >>> state = client.run("examples/titanic/project", ref="dev")   # doctest: +SKIP
        >>> state.success(), [m.model for m in state.models]            # doctest: +SKIP
        (True, ['f', 'g', 'fare_sum', 'h'])
    """

    run_id: str | None
    status: str
    branch: str | None = None
    run_branch: str | None = None
    base_commit: str | None = None
    result_commit: str | None = None
    started: dt.datetime | None = None
    ended: dt.datetime | None = None
    project: str | None = None
    project_digest: str | None = None
    models: tuple[ModelResult, ...] = ()
    error: RunError | None = None
    plan: Plan | None = None
    retried_runs: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    def success(self) -> bool:
        """True when the run succeeded (for a dry run: when the project plans).

        Example:
            >>> RunState.from_json({"status": "failed"}).success()
            False
        """
        if self.status == "planned":
            return self.plan is not None and self.plan.ok
        return self.status == "succeeded"

    def model(self, name: str) -> ModelResult:
        """The result of model ``name``.

        Raises:
            KeyError: the run has no such model.

        Example:
            >>> RunState.from_json({"models": [{"model": "f", "rows": 3}]}).model("f").rows
            3
        """
        for m in self.models:
            if m.model == name:
                return m
        raise KeyError(f"run {self.run_id} has no model {name!r}")

    @property
    def failed_models(self) -> tuple[ModelResult, ...]:
        """The models that failed.

        Example:
            >>> s = RunState.from_json({"models": [{"model": "f", "status": "failed"}]})
            >>> [m.model for m in s.failed_models]
            ['f']
        """
        return tuple(m for m in self.models if m.status == "failed")

    @property
    def violations(self) -> tuple[Violation, ...]:
        """Every contract violation of every model (fail, drop and warn modes).

        Example:
            >>> m = {"model": "h", "report": {"violations": [{"kind": "enum", "message": "..."}]}}
            >>> [v.kind for v in RunState.from_json({"models": [m]}).violations]
            ['enum']
        """
        out: list[Violation] = []
        for m in self.models:
            out.extend(m.violations)
        if not out and self.error is not None:
            out.extend(Violation.from_json(v) for v in self.error.details if "kind" in _obj(v))
        return tuple(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RunState:
        """Builds the record from ``weir_run_show``/``weir_project_run`` JSON.

        Example:
            >>> RunState.from_json({"run_id": "r1", "status": "succeeded", "models": [{"model": "f", "status": "succeeded"}]}).success()
            True
        """
        return cls(run_id=_str(d.get("run_id")), status=_str(d.get("status")) or "",
                   branch=_str(d.get("branch")), run_branch=_str(d.get("run_branch")),
                   base_commit=_str(d.get("base_commit")), result_commit=_str(d.get("result_commit")),
                   started=parse_time(d.get("started")), ended=parse_time(d.get("ended")),
                   project=_str(d.get("project")), project_digest=_str(d.get("project_digest")),
                   models=tuple(ModelResult.from_json(_obj(m)) for m in _list(d.get("models"))),
                   error=RunError.from_json(d.get("error")),
                   retried_runs=tuple(str(r) for r in _list(d.get("retried_runs"))), raw=dict(d))

    @classmethod
    def from_plan(cls, d: Mapping[str, Any], branch: str | None) -> RunState:
        """A dry run's state: status ``planned`` and the plan.

        Example:
            >>> RunState.from_plan({"ok": True, "models": [{"name": "f"}]}, "main").status
            'planned'
        """
        plan = Plan.from_json(d)
        return cls(run_id=_str(d.get("run_id")), status="planned", branch=branch,
                   base_commit=_str(d.get("base_commit")),
                   models=tuple(ModelResult(model=m.name, status="planned", raw=m.raw) for m in plan.models),
                   plan=plan, raw=dict(d))


@dataclass(frozen=True)
class ContractChange:
    """One difference between two contracts: ``change`` (``"column_dropped"``,
    ``"type_narrowed"``, ``"nullable"``, ``"enum_values_removed"``, ``"rule_tightened"``,
    ``"column_added"``, ``"doc_changed"``, ...), the ``column`` (None for the table), a
    ``message`` for people, and whom it ``breaks`` (``"consumers"``, ``"producers"``; empty
    when nobody).

    Example:
        >>> ContractChange("column_dropped", "x", "column x dropped", ("consumers",)).breaks
        ('consumers',)
    """

    change: str
    column: str | None
    message: str
    breaks: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ContractChange:
        """From one entry of a contract diff's ``changes``.

        Example:
            >>> ContractChange.from_json({"change": "nullable", "column": "x", "breaks": ["consumers"]}).change
            'nullable'
        """
        return cls(change=str(d.get("change", "")), column=d.get("column"), message=str(d.get("message", "")),
                   breaks=tuple(str(b) for b in cast("list[Any]", d.get("breaks") or [])))


@dataclass(frozen=True)
class ContractReader:
    """A model that reads what a contract change affects: the ``table`` it reads, the
    affected ``columns`` it reads there, and ``via``, the model whose output carries the
    change downstream (None when it reads the changed table itself).

    Example:
        >>> ContractReader("g", "models.py", 69, "default.titanic", ("Cabin",)).via is None
        True
    """

    model: str
    file: str
    line: int
    table: str
    columns: tuple[str, ...] = ()
    via: str | None = None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ContractReader:
        """From one entry of a contract diff's ``readers``.

        Example:
            >>> ContractReader.from_json({"model": "h", "columns": ["Cabin"], "via": "g"}).via
            'g'
        """
        return cls(model=str(d.get("model", "")), file=str(d.get("file", "")), line=int(d.get("line") or 0),
                   table=str(d.get("table", "")), columns=tuple(str(c) for c in cast("list[Any]", d.get("columns") or [])),
                   via=d.get("via"))


@dataclass(frozen=True)
class ContractDiff:
    """What changing a contract breaks (docs/contracts.md, "Breaking changes").

    ``version_ok`` is False when a breaking change does not raise the contract's major
    version. ``readers`` lists the models of the project given that read the affected
    columns, downstream ones too.

    Example:
        >>> d = ContractDiff.from_json({"breaking": True, "changes": [{"change": "column_dropped",
        ...     "column": "x", "message": "column x dropped", "breaks": ["consumers"]}]})
        >>> d.breaking, d.changes[0].breaks
        (True, ('consumers',))
    """

    breaking: bool
    breaks_consumers: bool = False
    breaks_producers: bool = False
    version_ok: bool = True
    version_message: str | None = None
    changes: tuple[ContractChange, ...] = ()
    affected_columns: tuple[str, ...] = ()
    readers: tuple[ContractReader, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ContractDiff:
        """From a ``weir_contract_diff`` document (plus ``readers``).

        Example:
            >>> ContractDiff.from_json({"breaking": False}).version_ok
            True
        """
        return cls(breaking=bool(d.get("breaking")), breaks_consumers=bool(d.get("breaks_consumers")),
                   breaks_producers=bool(d.get("breaks_producers")), version_ok=bool(d.get("version_ok", True)),
                   version_message=d.get("version_message"),
                   changes=tuple(ContractChange.from_json(c) for c in cast("list[Any]", d.get("changes") or [])),
                   affected_columns=tuple(str(c) for c in cast("list[Any]", d.get("affected_columns") or [])),
                   readers=tuple(ContractReader.from_json(r) for r in cast("list[Any]", d.get("readers") or [])),
                   raw=dict(d))
