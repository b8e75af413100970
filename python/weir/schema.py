"""Table schemas: data contracts written as Python classes.

A schema is a class deriving from :class:`TableSchema`; each annotated attribute is a
column, in order. The annotation's type is a weir type marker (``Int64``, ``String``,
...); ``T | None`` makes the column nullable. ``Annotated[T, ...]`` adds metadata:

- ``TableField(doc=..., lineage=..., name=...)``, or the paper's spellings ``Doc("...")``,
  ``Required`` (restates the default) and a bare ``Schema["col"]`` for lineage;
- quality rules: ``Unique``, ``Enum(...)``, ``Pattern("...")``, ``Range(min=, max=)``,
  ``Check("sql")``, each with an optional ``mode=`` (``"fail"``, ``"drop"``, ``"warn"``)
  and ``name=``.

Class keywords set table-level parts of the contract::

    class Payments(TableSchema, mode="warn", owner="payments-team", version="2.1",
                   rules=[TableRule("no_dupes", "SELECT COUNT(*) - COUNT(DISTINCT id) FROM {table}")]):
        \"\"\"Card payments as the core system emits them.\"\"\"
        id: Annotated[Int64, Unique, Doc("Payment id")]
        status: Annotated[String, Enum(["completed", "pending", "failed"])]
        note: String | None

Errors in a schema (an unknown type, a lineage reference to a column that does not
exist, a duplicate column, contradicting markers, a ``Pattern`` that is not a regular
expression) raise :class:`weir.SchemaError` when the class is defined. ``Schema.to_ir()``
gives the contract IR libweir reads (docs/contract-ir.md).
"""
from __future__ import annotations

import ast
import datetime as dt
import decimal as _decimal
import enum as _enum
import linecache
import os
import re
import sys
import types as _types
import warnings
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Final, Literal, Union, cast, get_args, get_origin

import pyarrow as pa

from weir.errors import SchemaError
from weir.types import (
    Bool,
    Date32,
    Decimal,
    Float32,
    Float64,
    Int32,
    Int64,
    String,
    TimestampMicro,
    TimestampMicroUTC,
    TimestampNano,
    TimestampNanoUTC,
)
from weir.types import Any as AnyType
from weir.types import WeirType, type_from_python, weir_type_name

__all__ = [
    "TableSchema", "TableField", "CastMode", "Doc", "Required", "ColumnRef", "ColumnSpec", "Rule", "Unique",
    "Enum", "Pattern", "Range", "Check", "TableRule", "Mode", "IR_VERSION", "is_schema",
]

#: The contract IR version this SDK writes.
IR_VERSION: Final = 1

Mode = Literal["fail", "drop", "warn"]
_MODES = ("fail", "drop", "warn")


def _check_mode(mode: object, what: str) -> None:
    if mode is not None and mode not in _MODES:
        raise SchemaError(f"{what}: mode must be 'fail', 'drop' or 'warn', not {mode!r}")


# ---- column metadata ------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnRef:
    """A reference to one column of a schema, made by ``Schema["col"]``; used for lineage.

    ``str(ref)`` is the ``"Schema.col"`` form the IR stores.

    Example:
        >>> from weir import TableSchema, Int64
        >>> class A(TableSchema):
        ...     x: Int64
        >>> str(A["x"])
        'A.x'
    """

    schema: str
    column: str

    def __str__(self) -> str:
        return f"{self.schema}.{self.column}"


#: How data of another Arrow type gets the column's type: ``"widen"`` (the default: only
#: casts that cannot change a value) or ``"exact"`` (narrowing casts too, applied only
#: when every value converts exactly; see docs/types.md, "Exact casts").
CastMode = Literal["widen", "exact"]


@dataclass(frozen=True)
class TableField:
    """Column metadata: a doc string, lineage, the column's name when it differs from the
    attribute (a name that is not a Python identifier, or a keyword), and how data of
    another type is cast to the column's type.

    Args:
        doc: what the column means; stored as the Iceberg field's ``doc``.
        lineage: the column(s) this one derives from: ``Schema["col"]``, a
            ``"Schema.col"`` string, or a list of them.
        name: the column name, when it is not the attribute name.
        cast: ``"widen"`` (default) or ``"exact"``: also apply a narrowing cast (a
            Float64 ``11646.0`` to an ``Int64`` column), but only when every value converts
            exactly; a value that does not (``11645.6``) fails the write, naming its row.
            For numbers, decimals, dates and timestamps.

    Example:
        >>> from typing import Annotated
        >>> from weir import TableSchema, TableField, Int64
        >>> class Src(TableSchema):
        ...     PassengerId: Int64
        >>> class Out(TableSchema):
        ...     pid: Annotated[Int64, TableField(doc="Passenger id", lineage=Src["PassengerId"])]
        >>> Out.column("pid").lineage
        ('Src.PassengerId',)
    """

    doc: str | None = None
    lineage: ColumnRef | str | Sequence[ColumnRef | str] | None = None
    name: str | None = None
    cast: CastMode | None = None


@dataclass(frozen=True)
class Doc:
    """A column doc string (the paper's spelling; the same as ``TableField(doc=...)``).

    Example:
        >>> from typing import Annotated
        >>> from weir import TableSchema, Doc, Float64
        >>> class T(TableSchema):
        ...     Fare: Annotated[Float64, Doc("Ticket price in British pounds")]
        >>> T.column("Fare").doc
        'Ticket price in British pounds'
    """

    text: str


class _RequiredMarker:
    """The type of :data:`Required`."""

    _instance: ClassVar[_RequiredMarker | None] = None

    def __new__(cls) -> _RequiredMarker:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "weir.Required"


#: Marks a column required (no nulls). Columns are required unless declared ``T | None``,
#: so this restates the default; combining it with ``T | None`` is an error.
Required: Final = _RequiredMarker()


# ---- rules ---------------------------------------------------------------------------------


class Rule:
    """Base class of column quality rules. ``kind`` is the IR rule kind; ``mode`` is
    ``"fail"``, ``"drop"`` or ``"warn"`` (None: the schema's default mode); ``name``
    identifies the rule in reports (default ``"<column>.<kind>"``).

    Example:
        >>> Range(min=0, max=1).ir("p", "fail")
        {'kind': 'range', 'name': 'p.range', 'mode': 'fail', 'min': 0, 'max': 1}
    """

    kind: ClassVar[str] = "rule"

    def __init__(self, *, mode: Mode | None = None, name: str | None = None) -> None:
        _check_mode(mode, f"{type(self).__name__}(...)")
        if name is not None and (not isinstance(name, str) or not name):
            raise SchemaError(f"{type(self).__name__}(...): name must be a non-empty string")
        self.mode: Mode | None = mode
        self.name: str | None = name

    def _fields(self) -> dict[str, Any]:
        return {}

    def ir(self, column: str, default_mode: Mode, index: int = 0) -> dict[str, Any]:
        """The rule's IR object for a column (every key resolved, as libweir writes it).

        Example:
            >>> Check("x > 0").ir("x", "warn", 1)["name"]
            'x.check[1]'
        """
        name = self.name or (f"{column}.check[{index}]" if self.kind == "check" else f"{column}.{self.kind}")
        out: dict[str, Any] = {"kind": self.kind, "name": name, "mode": self.mode or default_mode}
        out.update(self._fields())
        return out

    def check_type(self, column: str, t: type[WeirType]) -> None:
        """Raises SchemaError when the rule cannot apply to a column of type ``t``.

        Example:
            >>> from weir import Int64
            >>> Pattern("x").check_type("a", Int64)
            Traceback (most recent call last):
            weir.errors.SchemaError: column 'a': Pattern applies to String columns, not Int64
        """

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self)))

    def __repr__(self) -> str:
        parts = [f"{k}={v!r}" for k, v in self._fields().items()]
        if self.mode:
            parts.append(f"mode={self.mode!r}")
        if self.name:
            parts.append(f"name={self.name!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


class _UniqueRule(Rule):
    """The type of :data:`Unique`: usable bare, or called to set a mode or name."""

    kind = "unique"

    def __call__(self, *, mode: Mode | None = None, name: str | None = None) -> _UniqueRule:
        return _UniqueRule(mode=mode, name=name)

    def check_type(self, column: str, t: type[WeirType]) -> None:
        if t is AnyType:
            raise SchemaError(f"column {column!r}: Unique needs a typed column, not Any")

    def __repr__(self) -> str:
        return "weir.Unique" if not (self.mode or self.name) else super().__repr__().replace("_UniqueRule", "Unique")


#: The column's values are unique (nulls excepted). ``Unique(mode="warn")`` sets a mode.
Unique: Final = _UniqueRule()

_INT_TYPES = (Int32, Int64)
_FLOAT_TYPES = (Float32, Float64)
#: Column types a narrowing cast can lead to (``TableField(cast="exact")``), as libweir has them.
_EXACT_CAST_TYPES = (Int32, Int64, Float32, Float64, Decimal, Date32, TimestampMicro, TimestampNano,
                     TimestampMicroUTC, TimestampNanoUTC)


def _json_value(v: object, column: str, what: str) -> Any:
    if isinstance(v, _enum.Enum):
        v = v.value
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, _decimal.Decimal):
        return str(v)
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    raise SchemaError(f"column {column!r}: {what} value {v!r} must be a number, string, date or datetime")


def _value_fits(t: type[WeirType], v: object) -> bool:
    if issubclass(t, _INT_TYPES):
        return isinstance(v, int) and not isinstance(v, bool)
    if issubclass(t, _FLOAT_TYPES) or issubclass(t, Decimal):
        return isinstance(v, (int, float, str)) and not isinstance(v, bool)
    if issubclass(t, String):
        return isinstance(v, str)
    if issubclass(t, Bool):
        return isinstance(v, bool)
    return True


class Enum(Rule):
    """The column's values are one of a fixed set; optionally each value has a name.

    Spellings::

        Enum({"1st": 1, "2nd": 2})              # names -> values
        Enum([1, 2])                             # values only
        Enum(["completed", "pending"])
        Enum(MyPythonEnum)                       # an enum.Enum class: member names and values
        Enum("tclass", names=[("1st", 1), ("2nd", 2)])   # the paper's functional form

    Raises:
        SchemaError: no values, or values that do not fit the column's type (checked when
            the schema is defined).

    Example:
        >>> from typing import Annotated
        >>> from weir import TableSchema, Int64, Enum
        >>> class W(TableSchema):
        ...     tclass: Annotated[Int64, Enum({"1st": 1, "2nd": 2})]
        >>> W.to_ir()["columns"][0]["rules"][0]["value_names"]
        ['1st', '2nd']
    """

    kind = "enum"

    def __init__(
        self,
        values: Mapping[str, Any] | Sequence[Any] | type[_enum.Enum] | str,
        names: Sequence[tuple[str, Any]] | None = None,
        *,
        mode: Mode | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(mode=mode, name=name)
        vals: list[Any]
        labels: list[str] | None
        self.label: str | None = None
        if isinstance(values, str):
            if names is None:
                raise SchemaError(f"Enum({values!r}): give the values, e.g. Enum([1, 2]) or "
                                  f"Enum({values!r}, names=[('1st', 1), ('2nd', 2)])")
            self.label = values
            labels = [str(n) for n, _ in names]
            vals = [v for _, v in names]
        elif isinstance(values, type) and issubclass(values, _enum.Enum):
            labels = [m.name for m in values]
            vals = [m.value for m in values]
        elif isinstance(values, Mapping):
            labels = [str(k) for k in values]
            vals = list(values.values())
        else:
            labels = None
            vals = list(values)
        if not vals:
            raise SchemaError("Enum(...) needs at least one value")
        self.values: tuple[Any, ...] = tuple(vals)
        self.value_names: tuple[str, ...] | None = tuple(labels) if labels is not None else None

    def _fields(self) -> dict[str, Any]:
        return {"values": [_json_value(v, "?", "enum") for v in self.values],
                "value_names": list(self.value_names) if self.value_names is not None else None}

    def check_type(self, column: str, t: type[WeirType]) -> None:
        if t is AnyType:
            raise SchemaError(f"column {column!r}: Enum needs a typed column, not Any")
        for v in self.values:
            _json_value(v, column, "enum")
            raw = v.value if isinstance(v, _enum.Enum) else v
            if not _value_fits(t, raw):
                raise SchemaError(f"column {column!r}: enum value {raw!r} is not a {t.weir_name}")


# Errors of Python's ``re`` that PCRE2 (which libweir matches with) reports as well for the
# same pattern: clear syntax errors. Any other ``re`` error may be PCRE2-only syntax that
# ``re`` lacks (``\p{L}``, ``\Q...\E``, ``(?<name>...)``, ``(*UTF)``, ``a(?i)b``, ...), so
# such patterns are left to libweir. Possessive quantifiers (``a++``) are "multiple
# repeat" before Python 3.11.
_CLEAR_REGEX_ERRORS: tuple[str, ...] = (
    "missing ), unterminated subpattern", "missing ), unterminated comment", "unbalanced parenthesis",
    "nothing to repeat",
    "unterminated character set", "bad character range", "min repeat greater than max repeat",
    "bad escape (end of pattern)",
) + (("multiple repeat",) if sys.version_info >= (3, 11) else ())


def _regex_error(pattern: str) -> str | None:
    """A clear syntax error in ``pattern`` (``"missing ), unterminated subpattern at
    position 1"``), or None when Python's ``re`` compiles it or cannot judge it (PCRE2
    syntax ``re`` does not know)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FutureWarning on "[[:alpha:]]" (a PCRE2 POSIX class)
        try:
            re.compile(pattern)
        except re.error as e:
            msg = e.msg
            pos = e.pos
            if not msg.startswith(_CLEAR_REGEX_ERRORS):
                return None
            if msg == "nothing to repeat" and pos and pattern[pos - 1:pos + 1] == "(*":
                return None  # a PCRE2 verb: (*UTF), (*SKIP), (*atomic:...)
            return msg if pos is None else f"{msg} at position {pos}"
        except Exception:  # noqa: BLE001 - (overflow, recursion): libweir will judge it
            return None
    return None


class Pattern(Rule):
    """The column's string values match a regular expression (PCRE2 syntax) as a whole.

    A clear syntax error (an unclosed group, a quantifier with nothing to repeat, an
    unterminated character class) raises :class:`weir.SchemaError` when the schema class
    is defined; PCRE2-only syntax is left for libweir to judge.

    Example:
        >>> from typing import Annotated
        >>> from weir import TableSchema, String, Pattern
        >>> class C(TableSchema):
        ...     currency: Annotated[String, Pattern("^[A-Z]{3}$")]
        >>> C.to_ir()["columns"][0]["rules"][0]["pattern"]
        '^[A-Z]{3}$'
        >>> class Bad(TableSchema):
        ...     code: Annotated[String, Pattern("^(a")]
        Traceback (most recent call last):
        ...
        weir.errors.SchemaError: schema Bad, column 'code': Pattern('^(a') is not a valid regular expression: ...
    """

    kind = "pattern"

    def __init__(self, pattern: str, *, mode: Mode | None = None, name: str | None = None) -> None:
        super().__init__(mode=mode, name=name)
        if not isinstance(pattern, str) or not pattern:
            raise SchemaError("Pattern(...) needs a non-empty regular expression")
        self.pattern: str = pattern

    def _fields(self) -> dict[str, Any]:
        return {"pattern": self.pattern}

    def check_type(self, column: str, t: type[WeirType]) -> None:
        if not issubclass(t, String):
            raise SchemaError(f"column {column!r}: Pattern applies to String columns, not {t.weir_name}")


class Range(Rule):
    """The column's values lie within ``[min, max]`` (inclusive; either bound may be open).

    Example:
        >>> from typing import Annotated
        >>> from weir import TableSchema, Float64, Range
        >>> class P(TableSchema):
        ...     Age: Annotated[Float64 | None, Range(min=0, max=120, mode="drop")]
        >>> P.to_ir()["columns"][0]["rules"][0]
        {'kind': 'range', 'name': 'Age.range', 'mode': 'drop', 'min': 0, 'max': 120}
    """

    kind = "range"

    def __init__(self, min: Any = None, max: Any = None, *, mode: Mode | None = None,  # noqa: A002
                 name: str | None = None) -> None:
        super().__init__(mode=mode, name=name)
        if min is None and max is None:
            raise SchemaError("Range(...) needs min=, max= or both")
        self.min: Any = min
        self.max: Any = max

    def _fields(self) -> dict[str, Any]:
        return {"min": _json_value(self.min, "?", "range"), "max": _json_value(self.max, "?", "range")}

    def check_type(self, column: str, t: type[WeirType]) -> None:
        if t is AnyType or issubclass(t, Bool):
            raise SchemaError(f"column {column!r}: Range needs an ordered type, not {t.weir_name}")
        _json_value(self.min, column, "range")
        _json_value(self.max, column, "range")
        if isinstance(self.min, (int, float)) and isinstance(self.max, (int, float)) and self.min > self.max:
            raise SchemaError(f"column {column!r}: Range min {self.min!r} is greater than max {self.max!r}")


class Check(Rule):
    """A SQL boolean expression every row must satisfy (nulls pass), e.g.
    ``Check("amount > 0")``.

    Example:
        >>> from typing import Annotated
        >>> from weir import TableSchema, Float64, Check
        >>> class P(TableSchema):
        ...     amount: Annotated[Float64, Check("amount > 0"), Check("amount < 1e6")]
        >>> [r["name"] for r in P.to_ir()["columns"][0]["rules"]]
        ['amount.check[0]', 'amount.check[1]']
    """

    kind = "check"

    def __init__(self, sql: str, *, mode: Mode | None = None, name: str | None = None) -> None:
        super().__init__(mode=mode, name=name)
        if not isinstance(sql, str) or not sql.strip():
            raise SchemaError("Check(...) needs a SQL boolean expression")
        self.sql: str = sql

    def _fields(self) -> dict[str, Any]:
        return {"sql": self.sql}


@dataclass(frozen=True)
class TableRule:
    """A rule over the whole table: a SQL query over ``{table}`` returning one number,
    compared with ``threshold`` by ``op`` (``<=`` by default). Pass them to a schema with
    the ``rules=`` class keyword.

    Example:
        >>> from weir import TableSchema, Int64, TableRule
        >>> class T(TableSchema, rules=[TableRule("no_dupes",
        ...         "SELECT COUNT(*) - COUNT(DISTINCT id) FROM {table}")]):
        ...     id: Int64
        >>> T.to_ir()["table_rules"][0]["op"]
        '<='
    """

    name: str
    sql: str
    threshold: float = 0
    op: Literal["<=", "<", ">=", ">", "==", "!="] = "<="
    mode: Literal["fail", "warn"] | None = None

    def ir(self, default_mode: Mode) -> dict[str, Any]:
        """The IR object of the rule.

        Example:
            >>> TableRule("r", "SELECT 1 FROM {table}").ir("drop")["mode"]   # a table rule cannot drop
            'fail'
        """
        mode = self.mode or ("fail" if default_mode == "drop" else default_mode)
        thr: float | int = int(self.threshold) if float(self.threshold).is_integer() else self.threshold
        return {"name": self.name, "sql": self.sql, "threshold": thr, "op": self.op, "mode": mode}


# ---- resolved columns ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnSpec:
    """A column of a schema as weir sees it once the annotations are resolved.

    Attributes:
        name: the column name.
        attr: the Python attribute that declares it (the same unless ``TableField(name=)``).
        type: the weir type marker.
        nullable: True for ``T | None``.
        doc: doc string or None.
        lineage: ``"Schema.col"`` references.
        rules: quality rules in declaration order.
        cast: ``"widen"`` or ``"exact"`` (``TableField(cast=...)``).

    Example:
        >>> from weir import TableSchema, Int64
        >>> class T(TableSchema):
        ...     a: Int64 | None
        >>> T.column("a").nullable
        True
    """

    name: str
    attr: str
    type: type[WeirType]
    nullable: bool
    doc: str | None
    lineage: tuple[str, ...]
    rules: tuple[Rule, ...]
    cast: CastMode = "widen"

    @property
    def type_name(self) -> str:
        """The weir type name as the IR writes it (``"Int64"``, ``"Decimal(18, 2)"``).

        Example:
            >>> from weir import TableSchema, Decimal
            >>> from typing import Annotated
            >>> class T(TableSchema):
            ...     a: Annotated[Decimal, Decimal(9, 3)]
            >>> T.column("a").type_name
            'Decimal(9, 3)'
        """
        return weir_type_name(self.type)

    def arrow_field(self) -> pa.Field[pa.DataType]:
        """The column as an Arrow field (its Arrow type and nullability).

        Raises:
            TypeError: an ``Any`` column (no single Arrow type).

        Example:
            >>> from weir import TableSchema, String
            >>> class T(TableSchema):
            ...     s: String | None
            >>> str(T.column("s").arrow_field())
            'pyarrow.Field<s: large_string>'
        """
        return pa.field(self.name, self.type.arrow_type(), nullable=self.nullable)


_NONE_TYPE = type(None)


def _split_union(ann: object) -> tuple[object, bool] | None:
    """For ``T | None`` / ``Optional[T]``: (T, True). None if ``ann`` is not a union."""
    origin = get_origin(ann)
    if origin is Union or origin is _types.UnionType:
        args = get_args(ann)
        rest = [a for a in args if a is not _NONE_TYPE]
        if len(rest) != 1:
            return (ann, False) if not rest else (None, len(rest) != len(args))
        return rest[0], len(rest) != len(args)
    return None


def _is_model_ref(m: object) -> bool:
    from weir.model import Model  # imported late: weir.model imports this module

    return isinstance(m, Model)


def _resolve_column(schema: str, attr: str, ann: object) -> ColumnSpec:
    where = f"schema {schema}, column {attr!r}"
    nullable = False
    metadata: list[object] = []
    base: object = ann
    for _ in range(32):
        if get_origin(base) is Annotated:
            args = get_args(base)
            base = args[0]
            metadata = list(args[1:]) + metadata
            continue
        split = _split_union(base)
        if split is not None:
            inner, has_none = split
            if inner is None:
                raise SchemaError(f"{where}: a union must be 'T | None' with one weir type, not {ann!r}")
            nullable = nullable or has_none
            base = inner
            continue
        break
    wtype = type_from_python(base)
    if wtype is None:
        raise SchemaError(f"{where}: {base!r} is not a weir type (use Int64, Float64, String, ... "
                          "from weir, optionally 'T | None')")
    doc: str | None = None
    lineage: list[str] = []
    rules: list[Rule] = []
    name = attr
    required_marker = False
    cast_mode: CastMode | None = None

    def set_doc(text: object) -> None:
        nonlocal doc
        if not isinstance(text, str):
            raise SchemaError(f"{where}: a doc must be a string, not {text!r}")
        if doc is not None and doc != text:
            raise SchemaError(f"{where}: two different docs ({doc!r} and {text!r})")
        doc = text

    def add_lineage(ref: object) -> None:
        if isinstance(ref, ColumnRef):
            s = str(ref)
        elif isinstance(ref, str) and "." in ref:
            s = ref
        else:
            raise SchemaError(f"{where}: lineage must be Schema['column'] or 'Schema.column', not {ref!r}")
        if s not in lineage:
            lineage.append(s)

    for m in metadata:
        if _is_model_ref(m):
            raise SchemaError(f"{where}: Model(...) belongs on a model's parameter, not in a schema")
        if isinstance(m, TableField):
            if m.doc is not None:
                set_doc(m.doc)
            if m.lineage is not None:
                refs: Iterable[object] = (m.lineage,) if isinstance(m.lineage, (ColumnRef, str)) else m.lineage
                for r in refs:
                    add_lineage(r)
            if m.name is not None:
                if not isinstance(m.name, str) or not m.name:
                    raise SchemaError(f"{where}: TableField(name=...) must be a non-empty string")
                name = m.name
            if m.cast is not None:
                if m.cast not in ("widen", "exact"):
                    raise SchemaError(f"{where}: TableField(cast=...) must be 'widen' or 'exact', not {m.cast!r}")
                if cast_mode is not None and cast_mode != m.cast:
                    raise SchemaError(f"{where}: two different casts ({cast_mode!r} and {m.cast!r})")
                cast_mode = m.cast
        elif isinstance(m, Doc):
            set_doc(m.text)
        elif isinstance(m, _RequiredMarker):
            required_marker = True
        elif isinstance(m, ColumnRef):
            add_lineage(m)
        elif isinstance(m, Rule):
            rules.append(m)
        elif isinstance(m, type) and issubclass(m, Decimal):
            if not issubclass(wtype, Decimal):
                raise SchemaError(f"{where}: {m!r} given for a {wtype.weir_name} column")
            wtype = m
        elif isinstance(m, type) and issubclass(m, WeirType):
            raise SchemaError(f"{where}: a second type {m!r} in Annotated (the first element is the type)")
        # Anything else is metadata for other tools (PEP 593): ignored.
    if required_marker and nullable:
        raise SchemaError(f"{where}: declared both Required and nullable ('T | None')")
    try:
        weir_type_name(wtype)
    except TypeError as e:
        raise SchemaError(f"{where}: {e}") from None
    if cast_mode == "exact" and not issubclass(wtype, _EXACT_CAST_TYPES):
        raise SchemaError(f"{where}: cast='exact' applies to numbers, decimals, dates and timestamps, not "
                          f"{wtype.weir_name} (no narrowing cast leads to it)")
    for r in rules:
        r.check_type(name, wtype)
        if isinstance(r, Pattern):
            why = _regex_error(r.pattern)
            if why is not None:
                raise SchemaError(f"{where}: Pattern({r.pattern!r}) is not a valid regular expression: {why}")
    return ColumnSpec(name=name, attr=attr, type=wtype, nullable=nullable, doc=doc,
                      lineage=tuple(lineage), rules=tuple(rules), cast=cast_mode or "widen")


# ---- the metaclass --------------------------------------------------------------------------


class _AnnotationRecorder(dict[str, Any]):
    """The class body's ``__annotations__``: records names annotated twice."""

    def __init__(self) -> None:
        super().__init__()
        self.duplicates: list[str] = []

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self and key not in self.duplicates:
            self.duplicates.append(key)
        super().__setitem__(key, value)


class _ClassNamespace(dict[str, Any]):
    """The namespace a schema's class body runs in (installs _AnnotationRecorder)."""

    def __setitem__(self, key: str, value: Any) -> None:
        if key == "__annotations__" and type(value) is dict and not value:
            value = _AnnotationRecorder()
        super().__setitem__(key, value)


@dataclass(frozen=True)
class _Options:
    mode: Mode = "fail"
    owner: str | None = None
    version: str | None = None
    sla: Mapping[str, Any] | None = None
    rules: tuple[TableRule, ...] = ()
    partition_by: tuple[str, ...] = ()


_SOURCE_CACHE: dict[str, ast.Module | None] = {}


def _module_ast(filename: str) -> ast.Module | None:
    if filename not in _SOURCE_CACHE:
        text = "".join(linecache.getlines(filename))
        try:
            _SOURCE_CACHE[filename] = ast.parse(text) if text else None
        except SyntaxError:
            _SOURCE_CACHE[filename] = None
    return _SOURCE_CACHE[filename]


class _SchemaMeta(type):
    """Metaclass of TableSchema: builds the columns when a schema class is defined and
    gives schema classes ``Schema["col"]``, ``to_ir()``, ``columns()`` and friends."""

    __weir_columns__: tuple[ColumnSpec, ...]
    __weir_options__: _Options
    __weir_file__: str | None
    __weir_line__: int

    @classmethod
    def __prepare__(mcs, name: str, bases: tuple[type, ...], /, **kwds: Any) -> MutableMapping[str, object]:  # noqa: N804
        return _ClassNamespace()

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], /, **kwds: Any) -> _SchemaMeta:
        frame = sys._getframe(1)  # pyright: ignore[reportPrivateUsage]  # the frame running the class statement
        ns = dict(namespace)
        recorded = ns.get("__annotations__")
        duplicates: list[str] = list(recorded.duplicates) if isinstance(recorded, _AnnotationRecorder) else []
        if isinstance(recorded, dict):
            ns["__annotations__"] = dict(cast("dict[str, Any]", recorded))
        cls = cast("_SchemaMeta", super().__new__(mcs, name, bases, ns, **kwds))
        cls.__weir_file__ = frame.f_code.co_filename
        cls.__weir_line__ = frame.f_lineno
        if not any(isinstance(b, _SchemaMeta) for b in bases):
            cls.__weir_columns__ = ()
            return cls
        if duplicates:
            raise SchemaError(f"schema {name}: column {duplicates[0]!r} is declared twice")
        localns: dict[str, Any] = dict(frame.f_locals) if frame.f_locals is not frame.f_globals else {}
        localns[name] = cls
        cls.__weir_columns__ = _build_columns(cls, frame.f_globals, localns)
        return cls

    # ---- public API on schema classes -------------------------------------------------

    def __getitem__(cls, column: str) -> ColumnRef:
        """``Schema["col"]``: a reference to a column, for lineage.

        Raises:
            SchemaError: the schema has no such column.

        Example:
            >>> from weir import TableSchema, Int64
            >>> class T(TableSchema):
            ...     a: Int64
            >>> T["a"]
            ColumnRef(schema='T', column='a')
        """
        for c in cls.__weir_columns__:
            if c.name == column:
                return ColumnRef(cls.__name__, column)
        names = ", ".join(c.name for c in cls.__weir_columns__) or "none"
        raise SchemaError(f"schema {cls.__name__} has no column {column!r} (columns: {names})")

    def columns(cls) -> tuple[ColumnSpec, ...]:
        """The columns, in order.

        Example:
            >>> from weir import TableSchema, Int64, String
            >>> class T(TableSchema):
            ...     a: Int64
            ...     b: String | None
            >>> [(c.name, c.type_name, c.nullable) for c in T.columns()]
            [('a', 'Int64', False), ('b', 'String', True)]
        """
        return cls.__weir_columns__

    def column(cls, name: str) -> ColumnSpec:
        """The column called ``name``.

        Raises:
            SchemaError: no such column.

        Example:
            >>> from weir import TableSchema, Int64
            >>> class T(TableSchema):
            ...     a: Int64
            >>> T.column("a").type_name
            'Int64'
        """
        for c in cls.__weir_columns__:
            if c.name == name:
                return c
        cls[name]  # raises SchemaError with the list of columns
        raise AssertionError("unreachable")

    def column_names(cls) -> list[str]:
        """The column names, in order.

        Example:
            >>> from weir import TableSchema, Int64
            >>> class T(TableSchema):
            ...     a: Int64
            ...     b: Int64
            >>> T.column_names()
            ['a', 'b']
        """
        return [c.name for c in cls.__weir_columns__]

    def arrow_schema(cls) -> pa.Schema:
        """The schema as an Arrow schema (types and nullability).

        Raises:
            TypeError: a column of type ``Any``.

        Example:
            >>> from weir import TableSchema, Int64
            >>> class T(TableSchema):
            ...     a: Int64
            >>> T.arrow_schema().field("a").nullable
            False
        """
        return pa.schema([c.arrow_field() for c in cls.__weir_columns__])

    def source_lines(cls) -> tuple[int, dict[str, int]]:
        """(line of the class statement, {attribute: line}), 0 where unknown.

        Example:
            >>> WomenByClass.source_lines()   # doctest: +SKIP
            (12, {'pid': 14, 'tclass': 15, 'Fare': 16})
        """
        line = cls.__weir_line__
        lines: dict[str, int] = {}
        tree = _module_ast(cls.__weir_file__) if cls.__weir_file__ else None
        if tree is None:
            return line, lines
        found: ast.ClassDef | None = None
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
                starts = [node.lineno] + [d.lineno for d in node.decorator_list]
                if line in starts or (found is None and node.lineno <= line <= (node.end_lineno or node.lineno)):
                    found = node
                    if line in starts:
                        break
                elif found is None:
                    found = node
        if found is None:
            return line, lines
        for stmt in found.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                lines.setdefault(stmt.target.id, stmt.lineno)
        return found.lineno, lines

    def to_ir(cls, *, origin: str | None = None) -> dict[str, Any]:
        """The contract IR (docs/contract-ir.md) of this schema: ``name`` is the class name,
        ``description`` the docstring; every rule carries its effective mode and name.

        Args:
            origin: the file to name in the IR (default: the defining file's base name).

        Example:
            >>> from typing import Annotated
            >>> from weir import TableSchema, TableField, Int64
            >>> class T(TableSchema):
            ...     \"\"\"Doc of T.\"\"\"
            ...     pid: Annotated[Int64, TableField(doc="Passenger id")]
            >>> ir = T.to_ir()
            >>> ir["name"], ir["description"], ir["columns"][0]["doc"]
            ('T', 'Doc of T.', 'Passenger id')
        """
        import inspect

        opts = cls.__weir_options__
        class_line, lines = cls.source_lines()
        doc = cls.__dict__.get("__doc__")
        columns: list[dict[str, Any]] = []
        for c in cls.__weir_columns__:
            rules: list[dict[str, Any]] = []
            checks = 0
            for r in c.rules:
                rules.append(r.ir(c.name, opts.mode, checks))
                if r.kind == "check":
                    checks += 1
            col: dict[str, Any] = {"name": c.name, "type": c.type_name, "nullable": c.nullable, "doc": c.doc,
                                   "lineage": list(c.lineage), "line": lines.get(c.attr, 0), "rules": rules}
            if c.cast != "widen":  # written only when set, as libweir writes it
                col["cast"] = c.cast
            columns.append(col)
        if origin is None and cls.__weir_file__ and not cls.__weir_file__.startswith("<"):
            origin = os.path.basename(cls.__weir_file__)
        ir: dict[str, Any] = {
            "ir_version": IR_VERSION,
            "name": cls.__name__,
            "description": inspect.cleandoc(doc) if isinstance(doc, str) else None,
            "origin": origin,
            "line": class_line,
            "mode": opts.mode,
        }
        if opts.version is not None:
            ir["version"] = opts.version
        if opts.owner is not None:
            ir["owner"] = opts.owner
        if opts.sla is not None:
            ir["sla"] = dict(opts.sla)
        ir["columns"] = columns
        ir["table_rules"] = [r.ir(opts.mode) for r in opts.rules]
        if opts.partition_by:  # written only when declared, as libweir writes it
            ir["partition_by"] = list(opts.partition_by)
        return ir


def _build_columns(cls: _SchemaMeta, globalns: dict[str, Any], localns: dict[str, Any]) -> tuple[ColumnSpec, ...]:
    inherited: dict[str, ColumnSpec] = {}
    for base in reversed(cls.__mro__[1:]):
        if isinstance(base, _SchemaMeta) and "__weir_columns__" in base.__dict__:
            for c in base.__weir_columns__:
                inherited[c.name] = c
    own: dict[str, ColumnSpec] = {}
    own_ann = cls.__dict__.get("__annotations__")
    if not isinstance(own_ann, dict):  # Python 3.14+: annotations are evaluated lazily
        import inspect

        own_ann = inspect.get_annotations(cls)
    annotations = cast("dict[str, Any]", own_ann)
    for attr, ann in annotations.items():
        if attr.startswith("__"):
            continue
        if isinstance(ann, str):
            try:
                ann = eval(ann, globalns, localns)  # noqa: S307 - evaluating the class's own annotation
            except SchemaError:
                raise
            except Exception as e:  # noqa: BLE001 - the user's annotation can raise anything
                raise SchemaError(f"schema {cls.__name__}, column {attr!r}: cannot evaluate "
                                  f"annotation {ann!r}: {type(e).__name__}: {e}") from None
        if get_origin(ann) is ClassVar or ann is ClassVar:
            continue
        spec = _resolve_column(cls.__name__, attr, ann)
        if spec.name in own:
            raise SchemaError(f"schema {cls.__name__}: two attributes name column {spec.name!r} "
                              f"({own[spec.name].attr!r} and {attr!r})")
        own[spec.name] = spec
    merged = dict(inherited)
    for name, spec in own.items():
        merged[name] = spec
    return tuple(merged.values())


class TableSchema(metaclass=_SchemaMeta):
    """Base class of table schemas (data contracts written in Python).

    Each annotated attribute is a column, in declaration order; the docstring is the
    table's description. Class keywords: ``mode`` (default rule mode: ``"fail"``,
    ``"drop"`` or ``"warn"``), ``owner``, ``version``, ``sla`` (a dict, recorded as
    given), ``rules`` (a list of :class:`TableRule`) and ``partition_by`` (the table's
    Iceberg partition fields, e.g. ``["day(ts)", "bucket(16, id)"]``, docs/partitioning.md;
    checked against the columns by libweir when the contract is compiled).

    On the class: ``Schema["col"]`` (a column reference for lineage), ``columns()``,
    ``column(name)``, ``column_names()``, ``arrow_schema()``, ``to_ir()``.

    Raises:
        SchemaError: when the class is defined, for any error in its columns.

    Example:
        >>> from typing import Annotated
        >>> from weir import TableSchema, TableField, Enum, Int64, Float64
        >>> class WomenByClass(TableSchema):
        ...     \"\"\"Women passengers holding 1st or 2nd class tickets.\"\"\"
        ...     pid: Annotated[Int64, TableField(doc="Passenger id")]
        ...     tclass: Annotated[Int64, Enum({"1st": 1, "2nd": 2})]
        ...     Fare: Float64
        >>> WomenByClass.column_names()
        ['pid', 'tclass', 'Fare']
    """

    __weir_options__: ClassVar[_Options] = _Options()

    def __init_subclass__(
        cls,
        *,
        mode: Mode | None = None,
        owner: str | None = None,
        version: str | None = None,
        sla: Mapping[str, Any] | None = None,
        rules: Sequence[TableRule] | None = None,
        partition_by: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        _check_mode(mode, f"schema {cls.__name__}")
        base = cls.__weir_options__
        for r in rules or ():
            if not isinstance(r, TableRule):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise SchemaError(f"schema {cls.__name__}: rules= takes TableRule(...) objects, not {r!r}")
            if "{table}" not in r.sql:
                raise SchemaError(f"schema {cls.__name__}: table rule {r.name!r}: the SQL does not mention {{table}}")
        if version is not None and not isinstance(version, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise SchemaError(f"schema {cls.__name__}: version must be a string such as \"2.1\"")
        if partition_by is not None and (isinstance(partition_by, str) or not all(
                isinstance(p, str) for p in partition_by)):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise SchemaError(f"schema {cls.__name__}: partition_by takes a list of transforms such as "
                              "[\"day(ts)\", \"bucket(16, id)\"]")
        cls.__weir_options__ = _Options(
            mode=mode or base.mode, owner=owner if owner is not None else base.owner,
            version=version if version is not None else base.version,
            sla=sla if sla is not None else base.sla,
            rules=tuple(rules) if rules is not None else base.rules,
            partition_by=tuple(partition_by) if partition_by is not None else base.partition_by)


def is_schema(obj: object) -> bool:
    """True when ``obj`` is a TableSchema subclass (not TableSchema itself).

    Example:
        >>> from weir import TableSchema
        >>> is_schema(TableSchema), is_schema(int)
        (False, False)
    """
    return isinstance(obj, _SchemaMeta) and obj is not TableSchema

