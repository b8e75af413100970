"""Typed, immutable records the client returns: commits, branches, tags, tables, runs.

Every record is a frozen dataclass built from the JSON documents libweir returns (the
same documents ``weir ... --json`` prints, specified by docs/schema/*.schema.json). Each
keeps the document it was made from in ``raw`` (excluded from equality), so keys libweir
adds later are never lost.

Decoding is strict: a key the schema requires that is missing, renamed or of another
type raises ``RecordError`` naming the record and the key, instead of turning into a
silent ``""`` or ``None``; a document of another ``schema_version`` is refused the same
way (``document``).
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
    "PlanProblem", "BranchProtection", "RequiredCheck", "TableFreshness", "LakeStatus", "parse_time",
    "RecordError", "document", "SCHEMA_VERSION",
    "RegisterResult",
    "GcFile", "GcResult", "PrunedBranch",
    "TableDropped", "TableRenamed", "Namespace",
    "AlterColumn", "AlterResult",
]

#: The version of the document shapes this SDK decodes (WEIR_JSON_SCHEMA_VERSION in weir.h).
SCHEMA_VERSION = 1

class RecordError(ValueError):
    """A JSON document from libweir does not have the shape docs/schema/ specifies: a key
    is missing, renamed or of another type, or the document is of another
    ``schema_version``. The library and the SDK disagree; nothing is guessed.

    Example:
        >>> Branch.from_json({"name": "main"})
        Traceback (most recent call last):
        ...
        weir.records.RecordError: branch: no key 'head' in the document (keys: name)
    """


def document(doc: object, what: str, list_key: str | None = None) -> Any:
    """Checks a top-level document's ``schema_version`` and returns it, or, for a list
    document (``{"schema_version": 1, "commits": [...]}``), the list under ``list_key``.

    Raises:
        RecordError: not an object, another schema_version, or no ``list_key``.

    Example:
        >>> document({"schema_version": 1, "tags": []}, "tag list", "tags")
        []
        >>> document({"schema_version": 2}, "commit")
        Traceback (most recent call last):
        ...
        weir.records.RecordError: commit: schema_version 2, this SDK reads 1 (upgrade the weir package)
    """
    f = _Fields(doc, what)
    version = f.integer("schema_version")
    if version != SCHEMA_VERSION:
        raise RecordError(f"{what}: schema_version {version}, this SDK reads {SCHEMA_VERSION} "
                          f"(upgrade the weir package)")
    return f.array(list_key) if list_key else f.raw


class _Fields:
    """Typed, required access to one JSON object; every failure is a RecordError naming
    ``what`` and the key."""

    __slots__ = ("raw", "_what")

    def __init__(self, d: object, what: str) -> None:
        if not isinstance(d, Mapping):
            raise RecordError(f"{what}: expected a JSON object, got {type(d).__name__}")
        self.raw: Mapping[str, Any] = cast("Mapping[str, Any]", d)
        self._what = what

    def _bad(self, key: str, want: str) -> RecordError:
        return RecordError(f"{self._what}: key {key!r} is {type(self.raw[key]).__name__} "
                           f"{self.raw[key]!r:.60}, expected {want}")

    def get(self, key: str) -> Any:
        if key not in self.raw:
            raise RecordError(f"{self._what}: no key {key!r} in the document (keys: {', '.join(self.raw)})")
        return self.raw[key]

    def has(self, key: str) -> bool:
        """For the keys a schema marks optional (absent, not null, when they do not apply)."""
        return key in self.raw

    def text(self, key: str) -> str:
        v = self.get(key)
        if not isinstance(v, str):
            raise self._bad(key, "a string")
        return v

    def opt_text(self, key: str) -> str | None:
        v = self.get(key)
        if v is not None and not isinstance(v, str):
            raise self._bad(key, "a string or null")
        return v

    def integer(self, key: str) -> int:
        v = self.get(key)
        if not isinstance(v, int) or isinstance(v, bool):
            raise self._bad(key, "an integer")
        return v

    def opt_integer(self, key: str) -> int | None:
        v = self.get(key)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool):
            raise self._bad(key, "an integer or null")
        return v

    def opt_number(self, key: str) -> float | None:
        v = self.get(key)
        if v is None:
            return None
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise self._bad(key, "a number or null")
        return float(v)

    def flag(self, key: str) -> bool:
        v = self.get(key)
        if not isinstance(v, bool):
            raise self._bad(key, "true or false")
        return v

    def array(self, key: str) -> list[Any]:
        v = self.get(key)
        if not isinstance(v, list):
            raise self._bad(key, "an array")
        return cast("list[Any]", v)

    def mapping(self, key: str) -> Mapping[str, Any]:
        v = self.get(key)
        if not isinstance(v, Mapping):
            raise self._bad(key, "an object")
        return cast("Mapping[str, Any]", v)

    def opt_mapping(self, key: str) -> Mapping[str, Any] | None:
        v = self.get(key)
        if v is not None and not isinstance(v, Mapping):
            raise self._bad(key, "an object or null")
        return cast("Mapping[str, Any] | None", v)

    def texts(self, key: str) -> tuple[str, ...]:
        items = self.array(key)
        if not all(isinstance(x, str) for x in items):
            raise self._bad(key, "an array of strings")
        return tuple(cast("list[str]", items))


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




@dataclass(frozen=True)
class TableChange:
    """One table a commit, merge or revert touched, and its ``change``: ``"added"``,
    ``"changed"``, ``"dropped"``, ``"unchanged"``, or for a merge strategy's resolution
    ``"conflict: source wins"`` / ``"conflict: target wins"``, or ``"merged: appends"`` for a
    table both sides only appended to (the one word every document uses, docs/json.md).

    Example:
        >>> TableChange.from_json({"table": "default.f", "change": "added"}).change
        'added'
    """

    table: str
    change: str

    @classmethod
    def from_json(cls, d: object) -> TableChange:
        """Builds the record from libweir's ``{"table", "change"}`` object.

        Raises:
            RecordError: a key missing or of another type.

        Example:
            >>> TableChange.from_json({"table": "default.f", "action": "added"})
            Traceback (most recent call last):
            ...
            weir.records.RecordError: table change: no key 'change' in the document (keys: table, action)
        """
        f = _Fields(d, "table change")
        return cls(table=f.text("table"), change=f.text("change"))


@dataclass(frozen=True)
class NamespaceChange:
    """One namespace a commit or merge created (``"added"``), dropped (``"dropped"``) or
    changed the properties of (``"changed"``): namespaces are versioned (docs/versioning.md).

    Example:
        >>> NamespaceChange.from_json({"namespace": "raw", "change": "added"}).namespace
        'raw'
    """

    namespace: str
    change: str

    @classmethod
    def from_json(cls, d: object) -> NamespaceChange:
        """Builds the record from libweir's ``{"namespace", "change"}`` object.

        Raises:
            RecordError: a key missing or of another type.

        Example:
            >>> NamespaceChange.from_json({"namespace": "raw", "change": "dropped"}).change
            'dropped'
        """
        f = _Fields(d, "namespace change")
        return cls(namespace=f.text("namespace"), change=f.text("change"))


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
    def from_json(cls, d: object) -> CommitTable:
        """Builds the record from libweir's JSON object.

        Example:
            >>> CommitTable.from_json({"table": "default.f", "metadata_location": "/lake/m.json", "snapshot_id": 1,
            ...                        "record_count": 170}).record_count
            170
        """
        f = _Fields(d, "commit table")
        return cls(table=f.text("table"), metadata_location=f.text("metadata_location"),
                   snapshot_id=f.opt_integer("snapshot_id"), record_count=f.integer("record_count"))


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
    expired: dt.datetime | None = None
    """When ``Client.gc`` marked the commit (its tables can no longer be read), else None."""
    expired_reason: str | None = None
    """``"expired"`` (older than ``expire_before``) or ``"unreachable"`` (no ref reached it)."""
    namespaces_changed: tuple[NamespaceChange, ...] = ()
    """The namespaces this commit created, dropped or changed (from ``get_commits``)."""

    @property
    def short_hash(self) -> str:
        """The first 12 hex digits, as the CLI shows them.

        Example:
            >>> Commit(hash="ab" * 32, parents=(), time=None, author="", message="").short_hash
            'abababababab'
        """
        return self.hash[:12]

    @property
    def run_id(self) -> str | None:
        """The run that made this commit, if a run did.

        Example:
            >>> Commit(hash="h", parents=(), time=None, author="", message="", properties={"weir.run-id": "r1"}).run_id
            'r1'
        """
        return self.properties.get("weir.run-id") or self.properties.get("run_id")

    @classmethod
    def from_json(cls, d: object) -> Commit:
        """Builds the record from a ``weir_commit_log`` entry or ``weir_commit_show`` JSON
        (``tables`` is in the latter only).

        Example:
            >>> Commit.from_json({"hash": "ab" * 32, "parents": [], "time": "2026-01-01T00:00:00.000000Z",
            ...                   "author": "me", "message": "init", "properties": {}, "tables_changed": []}).message
            'init'
        """
        f = _Fields(d, "commit")
        props = {str(k): str(v) for k, v in f.mapping("properties").items()}
        ex = _Fields(f.mapping("expired"), "commit expired") if f.has("expired") else None
        return cls(hash=f.text("hash"), parents=f.texts("parents"), time=parse_time(f.text("time")),
                   author=f.text("author"), message=f.text("message"), properties=props,
                   tables_changed=tuple(TableChange.from_json(x) for x in f.array("tables_changed")),
                   tables=tuple(CommitTable.from_json(x) for x in f.array("tables")) if f.has("tables") else (),
                   raw=dict(f.raw), expired=parse_time(ex.text("time")) if ex else None,
                   expired_reason=ex.text("reason") if ex else None,
                   namespaces_changed=tuple(NamespaceChange.from_json(x) for x in f.array("namespaces_changed"))
                   if f.has("namespaces_changed") else ())


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
    def from_json(cls, d: object) -> Branch:
        """Builds the record from a ``weir_branch_list`` entry.

        Example:
            >>> Branch.from_json({"name": "main", "head": "ab" * 32, "time": "2026-01-01T00:00:00.000000Z"}).name
            'main'
        """
        f = _Fields(d, "branch")
        return cls(name=f.text("name"), head=f.text("head"), time=parse_time(f.text("time")), raw=dict(f.raw))


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
    def from_json(cls, d: object) -> Tag:
        """Builds the record from a ``weir_tag_list`` entry.

        Example:
            >>> Tag.from_json({"name": "v1", "target": "ab" * 32, "time": "2026-01-01T00:00:00.000000Z"}).name
            'v1'
        """
        f = _Fields(d, "tag")
        return cls(name=f.text("name"), target=f.text("target"), time=parse_time(f.text("time")), raw=dict(f.raw))


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
    #: Why the two sides' changes cannot be combined, when there is more to say than
    #: "changed on both sides" (a row delete on one side); None otherwise.
    reason: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: object) -> Conflict:
        """Builds the record from a conflict detail object.

        Example:
            >>> Conflict.from_json({"table": "default.t", "ours": "changed", "theirs": "dropped", "base": None,
            ...                     "base_metadata": None, "ours_metadata": None, "theirs_metadata": None}).theirs
            'dropped'
        """
        f = _Fields(d, "merge conflict")
        return cls(table=f.text("table"), ours=f.text("ours"), theirs=f.text("theirs"), base=f.opt_text("base"),
                   base_metadata=f.opt_text("base_metadata"), ours_metadata=f.opt_text("ours_metadata"),
                   theirs_metadata=f.opt_text("theirs_metadata"),
                   reason=f.text("reason") if f.has("reason") else None, raw=dict(f.raw))


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
    def from_json(cls, d: object) -> ChangedTable:
        """Builds the record from a detail object of a refused write.

        Raises:
            RecordError: a required key is missing (the document does not match docs/schema).

        Example:
            >>> ChangedTable.from_json({"table": "default.t", "kind": "write", "change": "was dropped",
            ...                         "reason": "...", "base": "a", "head": "b", "changed_by": None}
            ...                        ).changed_by is None
            True
        """
        f = _Fields(d, "changed table")
        return cls(table=f.text("table"), kind=f.text("kind"), change=f.text("change"), reason=f.text("reason"),
                   base=f.opt_text("base") or "", head=f.opt_text("head") or "", changed_by=f.opt_text("changed_by"),
                   changed_by_message=f.opt_text("changed_by_message") if f.has("changed_by_message") else None)


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
    namespaces: tuple[NamespaceChange, ...] = ()
    """The namespaces the merge changed on the target branch."""

    @property
    def fast_forward(self) -> bool:
        """True when the target branch just moved to the source head.

        Example:
            >>> MergeResult(result="merge", commit="c", base=None, source="dev", source_commit=None,
            ...             into="main", into_commit=None).fast_forward
            False
        """
        return self.result == "fast-forward"

    @classmethod
    def from_json(cls, d: object) -> MergeResult:
        """Builds the record from ``weir_branch_merge`` JSON.

        Example:
            >>> MergeResult.from_json({"result": "fast-forward", "commit": "ab" * 32, "base": None, "source": "dev",
            ...                        "source_commit": "ab" * 32, "into": "main", "into_commit": "cd" * 32,
            ...                        "tables": []}).fast_forward
            True
        """
        f = _Fields(d, "merge result")
        return cls(result=f.text("result"), commit=f.text("commit"), base=f.opt_text("base"), source=f.text("source"),
                   source_commit=f.opt_text("source_commit"), into=f.text("into"),
                   into_commit=f.opt_text("into_commit"),
                   tables=tuple(TableChange.from_json(x) for x in f.array("tables")), raw=dict(f.raw),
                   namespaces=tuple(NamespaceChange.from_json(x) for x in f.array("namespaces"))
                   if f.has("namespaces") else ())


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
    def from_json(cls, d: object) -> TableSummary:
        """Builds the record from a ``weir_table_list`` entry.

        Example:
            >>> TableSummary.from_json({"table": "default.titanic", "record_count": 891, "snapshot_id": 1,
            ...                         "metadata_location": "/m.json"}).record_count
            891
        """
        f = _Fields(d, "table summary")
        return cls(table=f.text("table"), record_count=f.integer("record_count"),
                   snapshot_id=f.opt_integer("snapshot_id"), metadata_location=f.text("metadata_location"))


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
            >>> Column(name="Cabin", type="large_string", weir_type="String", required=False, doc=None,
            ...        field_id=11).nullable
            True
        """
        return not self.required

    @classmethod
    def from_json(cls, d: object) -> Column:
        """Builds the record from a ``describe`` column object.

        Example:
            >>> Column.from_json({"name": "pid", "type": "int64", "weir_type": "Int64", "required": True, "doc": None,
            ...                   "field_id": 1, "lineage": []}).nullable
            False
        """
        f = _Fields(d, "column")
        return cls(name=f.text("name"), type=f.text("type"), weir_type=f.text("weir_type"), required=f.flag("required"),
                   doc=f.opt_text("doc"), field_id=f.integer("field_id"), lineage=f.texts("lineage"))


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
            >>> info = TableInfo.from_json(_example_table())
            >>> info.column("pid").name
            'pid'
        """
        for c in self.columns:
            if c.name == name:
                return c
        columns = ", ".join(c.name for c in self.columns)
        raise KeyError(f"table {self.table} has no column {name!r} (columns: {columns})")

    @property
    def lineage(self) -> Mapping[str, tuple[str, ...]]:
        """Column → the columns it derives from (only columns that declare lineage).

        Example:
            >>> TableInfo.from_json(_example_table()).lineage
            {'pid': ('S.id',)}
        """
        return {c.name: c.lineage for c in self.columns if c.lineage}

    @property
    def docs(self) -> Mapping[str, str]:
        """Column → doc string (only documented columns).

        Example:
            >>> TableInfo.from_json(_example_table()).docs
            {'pid': 'id'}
        """
        return {c.name: c.doc for c in self.columns if c.doc}

    @classmethod
    def from_json(cls, d: object) -> TableInfo:
        """Builds the record from ``weir_table_describe`` JSON.

        Example:
            >>> TableInfo.from_json(_example_table()).table
            'default.f'
        """
        f = _Fields(d, "table")
        return cls(table=f.text("table"), ref=f.text("ref"), commit=f.text("commit"),
                   snapshot_id=f.opt_integer("snapshot_id"), metadata_location=f.text("metadata_location"),
                   comment=f.opt_text("comment"), record_count=f.integer("record_count"),
                   columns=tuple(Column.from_json(x) for x in f.array("columns")),
                   properties={str(k): str(v) for k, v in f.mapping("properties").items()},
                   contract=f.opt_mapping("contract"), snapshot_summary=f.opt_mapping("snapshot_summary"),
                   raw=dict(f.raw))


def _example_table() -> dict[str, Any]:  # pyright: ignore[reportUnusedFunction] - used by doctests
    """A describe document for the examples above."""
    col = {"type": "int64", "weir_type": "Int64", "required": True, "field_id": 1}
    return {"table": "default.f", "ref": "main", "commit": "ab" * 32, "snapshot_id": 1, "metadata_location": "/m.json",
            "comment": None, "record_count": 3, "properties": {}, "contract": None, "snapshot_summary": None,
            "columns": [{**col, "name": "pid", "doc": "id", "lineage": ["S.id"]},
                        {**col, "name": "x", "doc": None, "field_id": 2, "lineage": []}]}


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
    def from_json(cls, d: object, kind: str) -> TableDiff:
        """Builds the record from one entry of ``weir_commit_diff``'s added/removed/changed.

        Example:
            >>> TableDiff.from_json({"table": "t", "records_before": 1, "records_after": 3, "record_change": 2,
            ...                      "metadata_before": "/a.json", "metadata_after": "/b.json"}, "changed"
            ...                     ).records_after
            3
        """
        f = _Fields(d, f"diff entry ({kind})")
        change = f.integer("record_change")
        if kind == "added":
            return cls(table=f.text("table"), record_change=change, records_before=None,
                       records_after=f.integer("record_count"), metadata_after=f.text("metadata_location"))
        if kind == "removed":
            return cls(table=f.text("table"), record_change=change, records_before=f.integer("record_count"),
                       records_after=None, metadata_before=f.text("metadata_location"))
        return cls(table=f.text("table"), record_change=change, records_before=f.integer("records_before"),
                   records_after=f.integer("records_after"), metadata_before=f.text("metadata_before"),
                   metadata_after=f.text("metadata_after"))


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
            >>> Diff(from_ref="main", to_ref="main", from_commit=None, to_commit=None).empty
            True
        """
        return not (self.added or self.removed or self.changed)

    @classmethod
    def from_json(cls, d: object) -> Diff:
        """Builds the record from ``weir_commit_diff`` JSON.

        Example:
            >>> Diff.from_json({"from": "main", "to": "dev", "from_commit": "a" * 64, "to_commit": "b" * 64,
            ...                 "added": [{"table": "default.x", "record_count": 3, "record_change": 3,
            ...                            "metadata_location": "/m.json"}], "removed": [], "changed": []}
            ...                ).added[0].records_after
            3
        """
        f = _Fields(d, "diff")
        return cls(from_ref=f.text("from"), to_ref=f.text("to"), from_commit=f.text("from_commit"),
                   to_commit=f.text("to_commit"),
                   added=tuple(TableDiff.from_json(x, "added") for x in f.array("added")),
                   removed=tuple(TableDiff.from_json(x, "removed") for x in f.array("removed")),
                   changed=tuple(TableDiff.from_json(x, "changed") for x in f.array("changed")),
                   raw=dict(f.raw))


@dataclass(frozen=True)
class RevertResult:
    """The commit a revert made and the tables it put back, each with its ``change``
    (``"changed"``, ``"added"``, ``"dropped"``, ``"unchanged"``).

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
    def from_json(cls, d: object) -> RevertResult:
        """Builds the record from ``weir_table_revert`` JSON (``{commit, table, change, to,
        branch}``) or ``weir_run_revert`` JSON (``{commit, run_id, branch, tables}``; commit
        null when the run published nothing there).

        Example:
            >>> RevertResult.from_json({"commit": "ab" * 32, "table": "default.f", "change": "changed", "to": "cd" * 32,
            ...                         "branch": "main"}).tables[0].change
            'changed'
        """
        f = _Fields(d, "revert result")
        if f.has("run_id"):
            return cls(commit=f.opt_text("commit") or "", branch=f.text("branch"),
                       tables=tuple(TableChange.from_json(x) for x in f.array("tables")), run_id=f.text("run_id"),
                       raw=dict(f.raw))
        return cls(commit=f.text("commit"), branch=f.text("branch"),
                   tables=(TableChange(table=f.text("table"), change=f.text("change")),), to=f.text("to"),
                   raw=dict(f.raw))


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
        """Builds the record from a violation object: ``kind`` and ``message`` always, the
        other keys where the kind has them (docs/schema/common.schema.json#/$defs/violation).

        Example:
            >>> Violation.from_json({"kind": "nulls", "column": "pid", "count": 3, "message": "3 nulls"}).count
            3
        """
        f = _Fields(d, "violation")

        def opt(key: str) -> str | None:
            return f.opt_text(key) if f.has(key) else None
        return cls(kind=f.text("kind"), message=f.text("message"), column=opt("column"), rule=opt("rule"),
                   mode=opt("mode"), count=f.opt_integer("count") if f.has("count") else None,
                   rows=tuple(int(r) for r in f.array("rows")) if f.has("rows") else (),
                   samples=tuple(f.array("samples")) if f.has("samples") else (), raw=dict(f.raw))


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
    def from_json(cls, d: object) -> RuleResult:
        """Builds the record from a report's ``rules`` entry.

        Example:
            >>> RuleResult.from_json({"rule": "tclass.enum", "kind": "enum", "mode": "fail", "value": 0,
            ...                       "passed": True}).passed
            True
        """
        f = _Fields(d, "rule result")
        return cls(rule=f.text("rule"), kind=f.text("kind"), column=f.opt_text("column") if f.has("column") else None,
                   mode=f.text("mode"), value=f.opt_number("value") if f.has("value") else None,
                   threshold=f.opt_number("threshold") if f.has("threshold") else None,
                   rows_affected=f.opt_integer("rows_affected") if f.has("rows_affected") else None,
                   passed=f.flag("passed"))


def _report_violations(report: Mapping[str, Any] | None) -> tuple[Violation, ...]:
    if report is None:
        return ()
    return tuple(Violation.from_json(v) for v in _Fields(report, "report").array("violations"))


def _report_rules(report: Mapping[str, Any] | None) -> tuple[RuleResult, ...]:
    if report is None:
        return ()
    return tuple(RuleResult.from_json(r) for r in _Fields(report, "report").array("rules"))


@dataclass(frozen=True)
class ImportResult:
    """What an import wrote: the commit, rows written and quarantined, the contract report.
    An append of no rows commits nothing: ``committed`` is False, ``commit`` None and
    ``reason`` says why. ``warnings`` are notes about the input (a likely delimiter).

    Example:
        >>> client.import_data("t", "t.csv").rows_written           # doctest: +SKIP
    """

    commit: str | None
    table: str
    branch: str | None
    mode: str
    rows_written: int
    rows_quarantined: int
    quarantine_table: str | None
    violations: tuple[Violation, ...] = ()
    committed: bool = True
    reason: str | None = None
    warnings: tuple[str, ...] = ()
    rules: tuple[RuleResult, ...] = ()
    report: Mapping[str, Any] | None = field(default=None, hash=False)
    #: An append to a table whose ``weir.compact.min-files`` threshold it passed: the
    #: compaction committed right after it (None otherwise; a compaction that failed is
    #: ``raw["compaction"]["error"]``, and the append is committed all the same).
    compaction: CompactResult | None = None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: object) -> ImportResult:
        """Builds the record from ``weir_table_import`` JSON.

        Example:
            >>> ImportResult.from_json({"commit": "ab" * 32, "branch": "main", "table": "default.t", "mode": "create",
            ...                         "rows_written": 3, "rows_quarantined": 0, "quarantine_table": None,
            ...                         "report": None}).rows_written
            3
        """
        f = _Fields(d, "import result")
        report = f.opt_mapping("report")
        return cls(commit=f.opt_text("commit"), table=f.text("table"), branch=f.text("branch"), mode=f.text("mode"),
                   rows_written=f.integer("rows_written"), rows_quarantined=f.integer("rows_quarantined"),
                   quarantine_table=f.opt_text("quarantine_table"),
                   committed=f.flag("committed") if f.has("committed") else True,
                   reason=f.opt_text("reason") if f.has("reason") else None,
                   warnings=f.texts("warnings") if f.has("warnings") else (), violations=_report_violations(report),
                   rules=_report_rules(report), report=report,
                   compaction=_compaction(f.opt_mapping("compaction") if f.has("compaction") else None),
                   raw=dict(f.raw))


def _compaction(d: Mapping[str, Any] | None) -> CompactResult | None:
    """An import's ``compaction``: the compaction's record, or None (none, or it failed)."""
    return None if d is None or "error" in d else CompactResult.from_json({"schema_version": 1, **d})


@dataclass(frozen=True)
class CompactResult:
    """What a compaction rewrote: ``files_rewritten`` small files (``rows_rewritten`` rows,
    ``bytes_rewritten`` bytes) into ``files_written`` files, as ``commit`` on ``branch``;
    ``compacted`` is False (and ``commit`` None) for a dry run or when there was nothing
    worth rewriting (``reason`` says why). Sizes in bytes; a dry run's ``files_written``
    and ``bytes_written`` are estimates.

    Example:
        >>> client.compact("events").files_after                   # doctest: +SKIP
        1
    """

    table: str
    branch: str
    base: str
    dry_run: bool
    compacted: bool
    reason: str | None
    commit: str | None
    target_file_size: int
    files_before: int
    files_after: int
    files_rewritten: int
    files_written: int
    rows_rewritten: int
    bytes_rewritten: int
    bytes_written: int
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: object) -> CompactResult:
        """Builds the record from ``weir_table_compact`` JSON.

        Example:
            >>> CompactResult.from_json({"table": "default.t", "branch": "main", "base": "ab" * 32,
            ...     "dry_run": True, "compacted": False, "reason": None, "commit": None,
            ...     "target_file_size": 134217728, "files_before": 3, "files_after": 1, "files_rewritten": 3,
            ...     "files_written": 1, "rows_rewritten": 3, "bytes_rewritten": 900, "bytes_written": 900}).files_after
            1
        """
        f = _Fields(d, "compact result")
        return cls(table=f.text("table"), branch=f.text("branch"), base=f.text("base"), dry_run=f.flag("dry_run"),
                   compacted=f.flag("compacted"), reason=f.opt_text("reason"), commit=f.opt_text("commit"),
                   target_file_size=f.integer("target_file_size"), files_before=f.integer("files_before"),
                   files_after=f.integer("files_after"), files_rewritten=f.integer("files_rewritten"),
                   files_written=f.integer("files_written"), rows_rewritten=f.integer("rows_rewritten"),
                   bytes_rewritten=f.integer("bytes_rewritten"), bytes_written=f.integer("bytes_written"),
                   raw=dict(f.raw))


@dataclass(frozen=True)
class DeleteResult:
    """What a row delete did: ``rows_deleted`` rows of ``table`` for which ``where`` was
    TRUE, gone as ``commit`` on ``branch`` (``rows_before`` to ``rows_after``). Of the
    ``files_before`` data files, ``files_pruned`` were ruled out by their column
    statistics without being read, ``files_scanned`` were read; ``files_rewritten`` of
    those were rewritten without the rows (into ``files_written`` files) and
    ``files_dropped`` held only deleted rows. ``deleted`` is False (``commit`` None,
    ``reason`` says why) when no row matched: no commit was made.

    Example:
        >>> client.delete_rows("events", where="id < 10").rows_deleted   # doctest: +SKIP
        10
    """

    table: str
    branch: str
    base: str
    where: str
    deleted: bool
    reason: str | None
    commit: str | None
    rows_deleted: int
    rows_before: int
    rows_after: int
    files_before: int
    files_pruned: int
    files_scanned: int
    files_rewritten: int
    files_dropped: int
    files_written: int
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: object) -> DeleteResult:
        """Builds the record from ``weir_table_delete`` JSON.

        Example:
            >>> DeleteResult.from_json({"table": "default.t", "branch": "main", "base": "ab" * 32,
            ...     "where": "id < 2", "deleted": True, "reason": None, "commit": "cd" * 32,
            ...     "rows_deleted": 2, "rows_before": 5, "rows_after": 3, "files_before": 2, "files_pruned": 1,
            ...     "files_scanned": 1, "files_rewritten": 1, "files_dropped": 0, "files_written": 1}).rows_after
            3
        """
        f = _Fields(d, "delete result")
        return cls(table=f.text("table"), branch=f.text("branch"), base=f.text("base"), where=f.text("where"),
                   deleted=f.flag("deleted"), reason=f.opt_text("reason"), commit=f.opt_text("commit"),
                   rows_deleted=f.integer("rows_deleted"), rows_before=f.integer("rows_before"),
                   rows_after=f.integer("rows_after"), files_before=f.integer("files_before"),
                   files_pruned=f.integer("files_pruned"), files_scanned=f.integer("files_scanned"),
                   files_rewritten=f.integer("files_rewritten"), files_dropped=f.integer("files_dropped"),
                   files_written=f.integer("files_written"), raw=dict(f.raw))


@dataclass(frozen=True)
class RegisterResult:
    """What a registration committed: external data adopted by reference (``mode``
    ``"create"`` for a whole Iceberg table, ``"append"`` for Parquet files), the metadata
    file registered (``source``; None for files), how many data files and rows the
    table now references that way, and the contract report when data was validated.

    Example:
        >>> RegisterResult.from_json({"commit": "ab" * 32, "branch": "main", "table": "default.t",
        ...                           "mode": "create", "source": "/x/v1.metadata.json", "files": 2,
        ...                           "rows": 10, "report": None}).rows
        10
    """

    commit: str
    table: str
    branch: str
    mode: str
    source: str | None
    files: int
    rows: int
    report: Mapping[str, Any] | None = field(default=None, hash=False)
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: object) -> RegisterResult:
        """Builds the record from ``weir_table_register(_files)`` JSON.

        Example:
            >>> RegisterResult.from_json({"commit": "ab" * 32, "branch": "dev", "table": "default.t",
            ...                           "mode": "append", "source": None, "files": 1, "rows": 2,
            ...                           "report": None}).mode
            'append'
        """
        f = _Fields(d, "register result")
        return cls(commit=f.text("commit"), table=f.text("table"), branch=f.text("branch"), mode=f.text("mode"),
                   source=f.opt_text("source"), files=f.integer("files"), rows=f.integer("rows"),
                   report=f.opt_mapping("report"), raw=dict(f.raw))


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
            >>> ModelResult(model="f", status="succeeded", started=parse_time(0), ended=parse_time(250000)).seconds
            0.25
        """
        if self.started is None or self.ended is None:
            return None
        return (self.ended - self.started).total_seconds()

    def success(self) -> bool:
        """True when the model succeeded.

        Example:
            >>> ModelResult(model="f", status="failed").success()
            False
        """
        return self.status in ("succeeded", "success", "ok")

    @classmethod
    def from_json(cls, d: object) -> ModelResult:
        """Builds the record from one entry of a run's ``models``.

        Example:
            >>> ModelResult.from_json(_example_model()).seconds
            1.5
        """
        f = _Fields(d, "run model")
        report = f.opt_mapping("report")
        violations = _report_violations(report) or tuple(Violation.from_json(v) for v in f.array("violations"))
        rules = _report_rules(report) or tuple(RuleResult.from_json(r) for r in f.array("rules"))
        started, ended = f.opt_integer("started_us"), f.opt_integer("ended_us")
        return cls(model=f.text("model"), status=f.text("status"), table=f.opt_text("table"),
                   rows=f.opt_integer("rows"), rows_quarantined=f.opt_integer("rows_quarantined"),
                   commit=f.opt_text("commit"), started=parse_time(started), ended=parse_time(ended),
                   error=f.opt_text("error"), violations=violations, rules=rules, report=report, raw=dict(f.raw),
                   sandbox=f.opt_mapping("sandbox") if f.has("sandbox") else None)


def _example_model(**kw: Any) -> dict[str, Any]:  # pyright: ignore[reportUnusedFunction] - used by doctests
    """A run's model record for the examples."""
    return {"model": "f", "table": "default.f", "language": "sql", "status": "succeeded", "started_us": 0,
            "ended_us": 1500000, "rows": 170, "rows_quarantined": 0, "commit": "ab" * 32, "report": None,
            "violations": [], "rules": [], "error": None, **kw}


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
        """Builds the record from a run's ``error`` field; None when it is null.

        Example:
            >>> RunError.from_json({"code": "ModelError", "model": "g", "message": "model g raised ...",
            ...                     "details": []}).code
            'ModelError'
        """
        if d is None:
            return None
        f = _Fields(d, "run error")
        return cls(code=f.text("code"), message=f.text("message"), details=tuple(f.array("details")),
                   code_num=f.opt_integer("code_num") if f.has("code_num") else None)


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
        """Builds the record from a problem object: ``message`` always, the other keys where
        the problem has them.

        Example:
            >>> PlanProblem.from_json({"file": "f.sql", "line": 3, "message": "table x does not exist"}).__str__()
            'f.sql:3: table x does not exist'
        """
        f = _Fields(d, "plan problem")

        def opt(key: str) -> Any:
            return f.get(key) if f.has(key) else None
        expected, found = opt("expected"), opt("found")
        return cls(message=f.text("message"), file=f.opt_text("file") if f.has("file") else None,
                   line=f.opt_integer("line") if f.has("line") else None,
                   model=f.opt_text("model") if f.has("model") else None,
                   column=f.opt_text("column") if f.has("column") else None,
                   expected=None if expected is None else str(expected), found=None if found is None else str(found),
                   raw=dict(f.raw))


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
    def from_json(cls, d: object) -> PlannedModel:
        """Builds the record from one entry of a plan's ``models``.

        Example:
            >>> PlannedModel.from_json({"name": "h", "language": "python", "output_schema": None,
            ...                         "inputs": [{"table": "default.f"}]}).inputs
            ('default.f',)
        """
        f = _Fields(d, "planned model")
        inputs = tuple(_Fields(x, "plan input").text("table") for x in f.array("inputs"))
        return cls(name=f.text("name"), language=f.text("language"), inputs=inputs,
                   output_schema=f.opt_text("output_schema"), raw=dict(f.raw))


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
    def from_json(cls, d: object, problems: Sequence[object] = ()) -> Plan:
        """Builds the record from ``weir_project_check`` JSON, adding ``problems`` (a failed
        check's error details) when the document has none.

        Example:
            >>> Plan.from_json({"ok": True, "models": [{"name": "f", "language": "sql", "output_schema": None,
            ...                                         "inputs": []}], "problems": []}).models[0].name
            'f'
        """
        f = _Fields(d, "plan")
        probs = [PlanProblem.from_json(p) for p in f.array("problems")]
        probs += [PlanProblem.from_json(p) for p in problems]
        return cls(ok=f.flag("ok"), models=tuple(PlannedModel.from_json(m) for m in f.array("models")),
                   problems=tuple(probs), raw=dict(f.raw))


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
            >>> RunState(run_id="r1", status="failed").success()
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
            >>> RunState(run_id="r1", status="succeeded", models=(ModelResult(model="f", status="succeeded", rows=3),)
            ...          ).model("f").rows
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
            >>> s = RunState(run_id="r1", status="failed", models=(ModelResult(model="f", status="failed"),))
            >>> [m.model for m in s.failed_models]
            ['f']
        """
        return tuple(m for m in self.models if m.status == "failed")

    @property
    def violations(self) -> tuple[Violation, ...]:
        """Every contract violation of every model (fail, drop and warn modes).

        Example:
            >>> m = ModelResult(model="h", status="failed", violations=(Violation(kind="enum", message="..."),))
            >>> [v.kind for v in RunState(run_id="r1", status="failed", models=(m,)).violations]
            ['enum']
        """
        out: list[Violation] = []
        for m in self.models:
            out.extend(m.violations)
        if not out and self.error is not None:
            for v in self.error.details:
                d = cast("Mapping[str, Any]", v) if isinstance(v, Mapping) else None
                if d is not None and "kind" in d and "message" in d:
                    out.append(Violation.from_json(d))
        return tuple(out)

    @classmethod
    def from_json(cls, d: object) -> RunState:
        """Builds the record from ``weir_run_show``/``weir_project_run`` JSON, or one entry
        of ``weir_run_list``.

        Example:
            >>> RunState.from_json({"run_id": "r1", "status": "succeeded", "project": "p", "project_digest": "d",
            ...                     "branch": "main", "run_branch": None, "base_commit": None, "result_commit": None,
            ...                     "started": None, "ended": None, "error": None,
            ...                     "models": [_example_model()]}).success()
            True
        """
        f = _Fields(d, "run")
        return cls(run_id=f.text("run_id"), status=f.text("status"), branch=f.text("branch"),
                   run_branch=f.opt_text("run_branch"), base_commit=f.opt_text("base_commit"),
                   result_commit=f.opt_text("result_commit"), started=parse_time(f.opt_text("started")),
                   ended=parse_time(f.opt_text("ended")), project=f.opt_text("project"),
                   project_digest=f.opt_text("project_digest"),
                   models=tuple(ModelResult.from_json(m) for m in f.array("models")),
                   error=RunError.from_json(f.get("error")),
                   retried_runs=f.texts("retried_runs") if f.has("retried_runs") else (), raw=dict(f.raw))

    @classmethod
    def from_plan(cls, d: object, branch: str | None) -> RunState:
        """A dry run's state: status ``planned``, the plan, and the commit it planned at.

        Example:
            >>> RunState.from_plan({"ok": True, "commit": "ab" * 32, "problems": [],
            ...                     "models": [{"name": "f", "language": "sql", "output_schema": None, "inputs": []}]},
            ...                    "main").status
            'planned'
        """
        plan = Plan.from_json(d)
        return cls(run_id=None, status="planned", branch=branch, base_commit=_Fields(d, "plan").text("commit"),
                   models=tuple(ModelResult(model=m.name, status="planned", raw=m.raw) for m in plan.models),
                   plan=plan, raw=plan.raw)


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
    def from_json(cls, d: object) -> ContractChange:
        """From one entry of a contract diff's ``changes``.

        Raises:
            RecordError: a key is missing or of another type.

        Example:
            >>> ContractChange.from_json({"change": "nullable", "column": "x", "message": "column x: nullable",
            ...                           "breaks": ["consumers"]}).change
            'nullable'
        """
        f = _Fields(d, "contract change")
        return cls(change=f.text("change"), column=f.opt_text("column"), message=f.text("message"),
                   breaks=f.texts("breaks"))


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
    def from_json(cls, d: object) -> ContractReader:
        """From one entry of a ``weir_project_readers`` document's ``readers``.

        Raises:
            RecordError: a key is missing or of another type.

        Example:
            >>> ContractReader.from_json({"model": "h", "file": "models.py", "line": 9, "table": "default.g",
            ...                           "columns": ["Cabin"], "via": "g"}).via
            'g'
        """
        f = _Fields(d, "contract reader")
        return cls(model=f.text("model"), file=f.text("file"), line=f.integer("line"), table=f.text("table"),
                   columns=f.texts("columns"), via=f.opt_text("via"))


@dataclass(frozen=True)
class ContractDiff:
    """What changing a contract breaks (docs/contracts.md, "Breaking changes").

    ``version_ok`` is False when a breaking change does not raise the contract's major
    version. ``readers`` lists the models of the project given that read the affected
    columns, downstream ones too.

    Example:
        >>> d = ContractDiff.from_json({"breaking": True, "breaks_consumers": True, "breaks_producers": False,
        ...     "version_ok": True, "version_message": None, "affected_columns": ["x"], "table_wide": False,
        ...     "changes": [{"change": "column_dropped", "column": "x", "message": "column x dropped",
        ...                  "breaks": ["consumers"]}]})
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
    def from_json(cls, d: object) -> ContractDiff:
        """From a ``weir_contract_diff`` document, or one entry of a
        ``weir_branch_merge_contracts`` list (``readers``, when present, as
        ``weir_project_readers`` gives them; absent: none were asked for).

        Raises:
            RecordError: a key the schema requires is missing or of another type.

        Example:
            >>> ContractDiff.from_json({"breaking": False})
            Traceback (most recent call last):
            ...
            weir.records.RecordError: contract diff: no key 'breaks_consumers' in the document (keys: breaking)
        """
        f = _Fields(d, "contract diff")
        return cls(breaking=f.flag("breaking"), breaks_consumers=f.flag("breaks_consumers"),
                   breaks_producers=f.flag("breaks_producers"), version_ok=f.flag("version_ok"),
                   version_message=f.opt_text("version_message"),
                   changes=tuple(ContractChange.from_json(c) for c in f.array("changes")),
                   affected_columns=f.texts("affected_columns"),
                   readers=tuple(ContractReader.from_json(r) for r in f.array("readers")) if f.has("readers") else (),
                   raw=dict(f.raw))


@dataclass(frozen=True)
class RequiredCheck:
    """A project whose plan gates merges into a protected branch: ``project`` as stored,
    ``path`` the folder it names (a relative project is resolved against the lake folder).

    Example:
        >>> RequiredCheck.from_json({"project": "../p", "path": "/lake/../p"}).project
        '../p'
    """

    project: str
    path: str

    @classmethod
    def from_json(cls, d: object) -> RequiredCheck:
        """From an entry of ``require_checks`` (``weir_branch_protection``).

        Example:
            >>> RequiredCheck.from_json({"project": "/p", "path": "/p"}).path
            '/p'
        """
        f = _Fields(d, "required check")
        return cls(project=f.text("project"), path=f.text("path"))


@dataclass(frozen=True)
class BranchProtection:
    """A branch's protection (``weir_branch_protection``): whether it takes only merges, and
    the projects every merge into it must plan with (the merge gate).

    Example:
        >>> BranchProtection.from_json({"branch": "main", "protected": True, "require_checks": []}).protected
        True
    """

    branch: str
    protected: bool
    require_checks: tuple[RequiredCheck, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: object) -> BranchProtection:
        """From a ``weir_branch_protection`` document.

        Example:
            >>> BranchProtection.from_json({"branch": "dev", "protected": False, "require_checks": []}).branch
            'dev'
        """
        f = _Fields(d, "branch protection")
        return cls(branch=f.text("branch"), protected=f.flag("protected"),
                   require_checks=tuple(RequiredCheck.from_json(c) for c in f.array("require_checks")),
                   raw=dict(f.raw))


@dataclass(frozen=True)
class TableFreshness:
    """One table of :class:`LakeStatus`: its last change (the commit that wrote its current
    version, and when), its freshness SLA in seconds (None without one), its age in
    seconds at the status's ``now`` and ``status``: ``"fresh"``, ``"breached"``,
    ``"no_sla"`` or ``"unknown"`` (no provenance for its version).

    Example:
        >>> TableFreshness.from_json({"table": "default.t", "last_change": None, "sla": None,
        ...                           "age_seconds": None, "status": "no_sla"}).breached
        False
    """

    table: str
    status: str
    last_commit: str | None = None
    last_change: dt.datetime | None = None
    sla: str | None = None
    sla_seconds: int | None = None
    age_seconds: int | None = None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @property
    def breached(self) -> bool:
        """Whether the table is older than its SLA allows.

        Example:
            >>> TableFreshness(table="t", status="breached").breached
            True
        """
        return self.status == "breached"

    @classmethod
    def from_json(cls, d: object) -> TableFreshness:
        """From an entry of ``tables`` (``weir_lake_status``) or a run's ``freshness``.

        Example:
            >>> TableFreshness.from_json({"table": "t", "status": "fresh", "age_seconds": 5,
            ...     "last_change": {"commit": "ab", "time": "2026-01-01T00:00:00.000000Z"},
            ...     "sla": {"freshness": "1 hour", "seconds": 3600}}).sla_seconds
            3600
        """
        f = _Fields(d, "table freshness")
        lc = f.opt_mapping("last_change")
        sla = f.opt_mapping("sla")
        lf = _Fields(lc, "last change") if lc is not None else None
        sf = _Fields(sla, "sla") if sla is not None else None
        return cls(table=f.text("table"), status=f.text("status"),
                   last_commit=lf.text("commit") if lf else None,
                   last_change=parse_time(lf.text("time")) if lf else None,
                   sla=sf.text("freshness") if sf else None, sla_seconds=sf.integer("seconds") if sf else None,
                   age_seconds=f.opt_integer("age_seconds"), raw=dict(f.raw))


@dataclass(frozen=True)
class LakeStatus:
    """Every table at a ref with its freshness (``weir_lake_status``, ``weir status``).

    Example:
        >>> LakeStatus.from_json({"ref": "main", "commit": "ab", "now": "2026-01-01T00:00:00.000000Z",
        ...     "ok": True, "breached": 0, "tables": []}).ok
        True
    """

    ref: str
    commit: str
    now: dt.datetime | None
    ok: bool
    tables: tuple[TableFreshness, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @property
    def breached(self) -> tuple[TableFreshness, ...]:
        """The tables whose SLA is breached.

        Example:
            >>> LakeStatus(ref="main", commit="ab", now=None, ok=True).breached
            ()
        """
        return tuple(t for t in self.tables if t.breached)

    @classmethod
    def from_json(cls, d: object) -> LakeStatus:
        """From a ``weir_lake_status`` document.

        Example:
            >>> LakeStatus.from_json({"ref": "dev", "commit": "ab", "now": None, "ok": False,
            ...     "breached": 1, "tables": []}).ref
            'dev'
        """
        f = _Fields(d, "lake status")
        f.integer("breached")
        return cls(ref=f.text("ref"), commit=f.text("commit"), now=parse_time(f.get("now")), ok=f.flag("ok"),
                   tables=tuple(TableFreshness.from_json(t) for t in f.array("tables")), raw=dict(f.raw))


@dataclass(frozen=True)
class GcFile:
    """One file ``Client.gc`` deleted (or with ``dry_run`` would delete).

    ``kind`` is ``"data"``, ``"manifest"``, ``"manifest_list"``, ``"metadata"`` or
    ``"temporary"``; ``bytes`` its size; ``modified`` its last modification (UTC).

    Example:
        >>> [f.kind for f in client.gc(dry_run=True).files]   # doctest: +SKIP
        ['metadata', 'data']
    """

    location: str
    kind: str
    bytes: int
    modified: dt.datetime | None

    @classmethod
    def from_json(cls, d: object) -> GcFile:
        """Builds the record from an entry of ``weir_lake_gc``'s ``files``.

        Example:
            >>> GcFile.from_json({"location": "/w/d.parquet", "kind": "data", "bytes": 3,
            ...                   "modified": "2026-01-01T00:00:00.000000Z"}).kind
            'data'
        """
        f = _Fields(d, "gc file")
        return cls(location=f.text("location"), kind=f.text("kind"), bytes=f.integer("bytes"),
                   modified=parse_time(f.text("modified")))


@dataclass(frozen=True)
class GcResult:
    """What ``Client.gc`` did (docs/gc.md, docs/schema/gc.schema.json).

    ``deleted`` maps each kind to ``(files, bytes)``; ``files`` lists them one by one.
    ``kept_reachable``, ``kept_young`` and ``kept_other`` count the warehouse files kept
    because a live commit reaches them, because they are younger than the grace period,
    and because gc does not know their kind. ``expired`` and ``unreachable`` count the
    commits marked now; ``marked`` names them with their reason.

    Example:
        >>> client.gc(dry_run=True).total_files       # doctest: +SKIP
        0
    """

    dry_run: bool
    grace: dt.timedelta
    cutoff: dt.datetime | None
    expire_before: dt.datetime | None
    deleted: Mapping[str, tuple[int, int]]
    total_files: int
    total_bytes: int
    kept_reachable: int
    kept_young: int
    kept_other: int
    live_commits: int
    expired: int
    unreachable: int
    marked: tuple[tuple[str, str], ...]
    files: tuple[GcFile, ...]
    writers_excluded: bool
    writers_waited: bool
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    @classmethod
    def from_json(cls, d: object) -> GcResult:
        """Builds the record from a ``weir_lake_gc`` document.

        Example:
            >>> z = {"files": 0, "bytes": 0}
            >>> GcResult.from_json({"schema_version": 1, "dry_run": True, "grace_us": 0,
            ...     "cutoff": "2026-01-01T00:00:00.000000Z", "expire_before": None,
            ...     "deleted": {k: z for k in ("data", "manifest", "manifest_list", "metadata", "temporary")},
            ...     "total": z, "kept": {"reachable": 1, "young": 0, "other": 0},
            ...     "commits": {"live": 1, "expired": 0, "unreachable": 0, "marked": []},
            ...     "writers": {"excluded": False, "waited": False}, "files": []}).kept_reachable
            1
        """
        f = _Fields(d, "gc result")
        deleted: dict[str, tuple[int, int]] = {}
        for kind, v in f.mapping("deleted").items():
            c = _Fields(v, f"gc deleted {kind}")
            deleted[str(kind)] = (c.integer("files"), c.integer("bytes"))
        total = _Fields(f.mapping("total"), "gc total")
        kept = _Fields(f.mapping("kept"), "gc kept")
        commits = _Fields(f.mapping("commits"), "gc commits")
        writers = _Fields(f.mapping("writers"), "gc writers")
        marked = tuple((_Fields(m, "gc marked").text("commit"), _Fields(m, "gc marked").text("reason"))
                       for m in commits.array("marked"))
        before = f.opt_text("expire_before")
        return cls(dry_run=f.flag("dry_run"), grace=dt.timedelta(microseconds=f.integer("grace_us")),
                   cutoff=parse_time(f.text("cutoff")), expire_before=parse_time(before) if before else None,
                   deleted=deleted, total_files=total.integer("files"), total_bytes=total.integer("bytes"),
                   kept_reachable=kept.integer("reachable"), kept_young=kept.integer("young"),
                   kept_other=kept.integer("other"), live_commits=commits.integer("live"),
                   expired=commits.integer("expired"), unreachable=commits.integer("unreachable"), marked=marked,
                   files=tuple(GcFile.from_json(x) for x in f.array("files")),
                   writers_excluded=writers.flag("excluded"), writers_waited=writers.flag("waited"), raw=dict(f.raw))


@dataclass(frozen=True)
class PrunedBranch:
    """A run branch ``Client.prune_branches`` deleted (or with ``dry_run`` would delete).

    ``status`` is the run's (``"failed"``, ``"interrupted"``, ``"succeeded"``) or None
    when the run has no record.

    Example:
        >>> PrunedBranch.from_json({"name": "run/r1", "head": "ab" * 32, "run_id": "r1", "status": "failed",
        ...                         "updated": "2026-01-01T00:00:00.000000Z"}).run_id
        'r1'
    """

    name: str
    head: str
    run_id: str
    status: str | None
    updated: dt.datetime | None

    @classmethod
    def from_json(cls, d: object) -> PrunedBranch:
        """Builds the record from an entry of ``weir_branch_prune``'s ``branches``.

        Example:
            >>> PrunedBranch.from_json({"name": "run/r2", "head": "cd" * 32, "run_id": "r2", "status": None,
            ...                         "updated": "2026-01-01T00:00:00.000000Z"}).status is None
            True
        """
        f = _Fields(d, "pruned branch")
        return cls(name=f.text("name"), head=f.text("head"), run_id=f.text("run_id"), status=f.opt_text("status"),
                   updated=parse_time(f.text("updated")))


@dataclass(frozen=True)
class TableDropped:
    """A table ``Client.drop_table`` dropped: ``table`` on ``branch``, as ``commit``. Older
    commits keep it (time travel); its files stay until garbage collection.

    Example:
        >>> TableDropped.from_json({"commit": "ab" * 32, "table": "default.t", "branch": "main",
        ...                         "change": "dropped"}).table
        'default.t'
    """

    commit: str
    table: str
    branch: str

    @classmethod
    def from_json(cls, d: object) -> TableDropped:
        """Builds the record from ``weir_table_drop`` JSON (table_drop.schema.json).

        Example:
            >>> TableDropped.from_json({"commit": "ab" * 32, "table": "default.t", "branch": "dev",
            ...                         "change": "dropped"}).branch
            'dev'
        """
        f = _Fields(d, "table drop")
        if f.text("change") != "dropped":
            raise RecordError(f"table drop: change {f.text('change')!r}, expected 'dropped'")
        return cls(commit=f.text("commit"), table=f.text("table"), branch=f.text("branch"))


@dataclass(frozen=True)
class TableRenamed:
    """A table ``Client.rename_table`` renamed from ``table`` to ``new_name`` on
    ``branch``, as ``commit``; it keeps its identity (history, contract and lineage follow).

    Example:
        >>> TableRenamed.from_json({"commit": "ab" * 32, "table": "default.t", "new_name": "default.u",
        ...                         "branch": "main"}).new_name
        'default.u'
    """

    commit: str
    table: str
    new_name: str
    branch: str

    @classmethod
    def from_json(cls, d: object) -> TableRenamed:
        """Builds the record from ``weir_table_rename`` JSON (table_rename.schema.json).

        Example:
            >>> TableRenamed.from_json({"commit": "ab" * 32, "table": "default.t", "new_name": "raw.t",
            ...                         "branch": "main"}).table
            'default.t'
        """
        f = _Fields(d, "table rename")
        return cls(commit=f.text("commit"), table=f.text("table"), new_name=f.text("new_name"),
                   branch=f.text("branch"))


@dataclass(frozen=True)
class Namespace:
    """A namespace ``Client.get_namespaces`` lists: ``created`` when made by
    ``create_namespace`` (else it exists because ``tables`` tables are in it).

    Example:
        >>> Namespace.from_json({"name": "raw", "created": True, "tables": 0}).created
        True
    """

    name: str
    created: bool
    tables: int

    @classmethod
    def from_json(cls, d: object) -> Namespace:
        """Builds the record from an entry of ``weir_namespace_list``'s ``namespaces``.

        Example:
            >>> Namespace.from_json({"name": "default", "created": False, "tables": 2}).tables
            2
        """
        f = _Fields(d, "namespace")
        return cls(name=f.text("name"), created=f.flag("created"), tables=f.integer("tables"))


@dataclass(frozen=True)
class AlterColumn:
    """A column of the schema an alter made: its weir ``type`` name (``Int64``), Iceberg
    ``field_id`` (kept across renames and widenings) and nullability.

    Example:
        >>> AlterColumn.from_json({"name": "value", "type": "Float64", "required": False, "doc": None,
        ...                        "field_id": 2}).field_id
        2
    """

    name: str
    type: str
    required: bool
    doc: str | None
    field_id: int

    @classmethod
    def from_json(cls, d: object) -> AlterColumn:
        """Builds the record from a column of ``weir_table_alter`` JSON.

        Example:
            >>> AlterColumn.from_json({"name": "x", "type": "Int64", "required": True, "doc": "id",
            ...                        "field_id": 1}).doc
            'id'
        """
        f = _Fields(d, "altered column")
        return cls(name=f.text("name"), type=f.text("type"), required=f.flag("required"), doc=f.opt_text("doc"),
                   field_id=f.integer("field_id"))


@dataclass(frozen=True)
class AlterResult:
    """What an alter committed: ``commit`` on ``branch`` moved ``table`` from schema
    ``previous_schema_id`` to ``schema_id`` (``columns`` in order), each change as done
    (``changes``: ``{"change": "rename", "column": ..., "new_name": ..., "field_id": ...}``
    and so on); ``contract_version`` is the stored contract's version after the change
    (its major raised when a change breaks readers), None without one.

    Example:
        >>> client.alter_table("events", rename={"col": "value"}).schema_id     # doctest: +SKIP
        1
    """

    table: str
    branch: str
    base: str
    commit: str
    schema_id: int
    previous_schema_id: int
    last_column_id: int
    changes: tuple[Mapping[str, Any], ...]
    columns: tuple[AlterColumn, ...]
    contract_version: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict[str, Any], compare=False, hash=False, repr=False)

    def column(self, name: str) -> AlterColumn:
        """The column named ``name``.

        Raises:
            KeyError: no such column.

        Example:
            >>> AlterResult.from_json({"table": "default.t", "branch": "main", "base": "ab" * 32,
            ...     "commit": "cd" * 32, "schema_id": 1, "previous_schema_id": 0, "last_column_id": 1,
            ...     "changes": [], "columns": [{"name": "x", "type": "Int64", "required": False,
            ...     "doc": None, "field_id": 1}]}).column("x").type
            'Int64'
        """
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"{self.table} has no column {name!r} (columns: {', '.join(c.name for c in self.columns)})")

    @classmethod
    def from_json(cls, d: object) -> AlterResult:
        """Builds the record from ``weir_table_alter`` JSON.

        Example:
            >>> AlterResult.from_json({"table": "default.t", "branch": "main", "base": "ab" * 32,
            ...     "commit": "cd" * 32, "schema_id": 1, "previous_schema_id": 0, "last_column_id": 2,
            ...     "changes": [{"change": "drop", "column": "y", "field_id": 2}],
            ...     "columns": []}).previous_schema_id
            0
        """
        f = _Fields(d, "alter result")
        changes = f.array("changes")
        if not all(isinstance(c, dict) for c in changes):
            raise RecordError("alter result: 'changes' is not a list of objects")
        return cls(table=f.text("table"), branch=f.text("branch"), base=f.text("base"), commit=f.text("commit"),
                   schema_id=f.integer("schema_id"), previous_schema_id=f.integer("previous_schema_id"),
                   last_column_id=f.integer("last_column_id"),
                   changes=tuple(cast(Mapping[str, Any], c) for c in changes),
                   columns=tuple(AlterColumn.from_json(c) for c in f.array("columns")),
                   contract_version=f.opt_text("contract_version") if f.has("contract_version") else None,
                   raw=dict(f.raw))
