"""weir's column types: the markers a ``TableSchema`` annotates its columns with.

Each marker is a class, so it is a valid annotation for type checkers and ``T | None``
works at runtime and in pyright/mypy alike::

    from typing import Annotated
    from weir import TableSchema, Int64, String, Decimal

    class Payment(TableSchema):
        id: Int64                              # required (no nulls)
        note: String | None                    # nullable
        amount: Annotated[Decimal, Decimal(18, 2)]   # decimal(18, 2), checker-clean
        fee: Decimal(18, 2)                    # the same at runtime (a checker flags the call)

The weir type names, their Arrow types and their Iceberg types are those of
docs/contracts.md ("Types").
"""
from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from typing import ClassVar

import pyarrow as pa

__all__ = [
    "WeirType", "Bool", "Int32", "Int64", "Float32", "Float64", "Decimal", "String", "Binary",
    "Date32", "Date64", "TimestampMicro", "TimestampNano", "TimestampMicroUTC",
    "TimestampNanoUTC", "Any", "type_from_name", "type_from_python", "weir_type_name",
]


class _WeirTypeMeta(type):
    """Metaclass of the type markers: readable reprs (``weir.Int64``)."""

    def __repr__(cls) -> str:
        name: str = getattr(cls, "weir_name", cls.__name__)
        return f"weir.{name}"


class WeirType(metaclass=_WeirTypeMeta):
    """Base class of every weir column type marker.

    Markers are never instantiated: the class itself is the type. ``weir_name`` is the
    name used in the contract IR and in YAML contracts (``"Int64"``, ``"Decimal(18, 2)"``).

    Example:
        >>> from weir import Int64
        >>> Int64.weir_name
        'Int64'
        >>> str(Int64.arrow_type())
        'int64'
    """

    weir_name: ClassVar[str] = "WeirType"

    def __new__(cls) -> WeirType:
        raise TypeError(f"{cls!r} is a column type marker; use it in an annotation, not as a value")

    @classmethod
    def arrow_type(cls) -> pa.DataType:
        """The Arrow type of this weir type.

        Raises:
            TypeError: for ``Any`` (which has no single Arrow type) and for a bare
                ``Decimal`` without precision and scale.

        Example:
            >>> from weir import TimestampMicroUTC
            >>> str(TimestampMicroUTC.arrow_type())
            'timestamp[us, tz=UTC]'
        """
        make = _ARROW_TYPES.get(cls.weir_name)
        if make is None:
            raise TypeError(f"{cls!r} has no Arrow type")
        return make()


class Bool(WeirType):
    """Boolean column (Arrow ``bool``, Iceberg ``boolean``).

    Example:
        ``survived: Bool`` in a TableSchema.
    """

    weir_name = "Bool"



class Int32(WeirType):
    """32-bit integer column (Arrow ``int32``, Iceberg ``int``).

    Example:
        ``year: Int32`` in a TableSchema.
    """

    weir_name = "Int32"



class Int64(WeirType):
    """64-bit integer column (Arrow ``int64``, Iceberg ``long``).

    Example:
        ``pid: Int64`` in a TableSchema.
    """

    weir_name = "Int64"



class Float32(WeirType):
    """32-bit float column (Arrow ``float``, Iceberg ``float``).

    Example:
        ``score: Float32`` in a TableSchema.
    """

    weir_name = "Float32"



class Float64(WeirType):
    """64-bit float column (Arrow ``double``, Iceberg ``double``).

    Example:
        ``Fare: Float64`` in a TableSchema.
    """

    weir_name = "Float64"



class _DecimalMeta(_WeirTypeMeta):
    """Makes ``Decimal(p, s)`` return a (cached) Decimal type of that precision and scale."""

    _cache: ClassVar[dict[tuple[int, int], type[Decimal]]] = {}

    def __call__(cls, precision: int, scale: int = 0) -> type[Decimal]:
        if isinstance(precision, bool) or not isinstance(precision, int) or not 1 <= precision <= 38:
            raise TypeError(f"Decimal precision must be an integer from 1 to 38, not {precision!r}")
        if isinstance(scale, bool) or not isinstance(scale, int) or not 0 <= scale <= precision:
            raise TypeError(f"Decimal scale must be an integer from 0 to the precision {precision}, not {scale!r}")
        key = (precision, scale)
        found = _DecimalMeta._cache.get(key)
        if found is not None:
            return found
        made = _DecimalMeta(f"Decimal({precision}, {scale})", (Decimal,),
                            {"precision": precision, "scale": scale,
                             "weir_name": f"Decimal({precision}, {scale})",
                             "__module__": __name__,
                             "__doc__": f"Decimal column of precision {precision} and scale {scale}."})
        _DecimalMeta._cache[key] = made  # pyright: ignore[reportArgumentType]
        return made  # pyright: ignore[reportReturnType]


class Decimal(WeirType, metaclass=_DecimalMeta):
    """Fixed-point decimal column (Arrow ``decimal128(p, s)``, Iceberg ``decimal(p, s)``).

    ``Decimal(p, s)`` makes the type of precision ``p`` (1..38) and scale ``s``. Type
    checkers reject a call inside an annotation, so the checker-clean spelling puts the
    sized type in ``Annotated`` metadata: ``Annotated[Decimal, Decimal(18, 2)]``.

    Raises:
        TypeError: a precision outside 1..38 or a scale outside 0..precision.

    Example:
        >>> from weir import Decimal
        >>> Decimal(18, 2).weir_name
        'Decimal(18, 2)'
        >>> Decimal(18, 2) is Decimal(18, 2)
        True
    """

    weir_name = "Decimal"
    precision: ClassVar[int | None] = None
    scale: ClassVar[int | None] = None

    @classmethod
    def arrow_type(cls) -> pa.DataType:
        """``decimal128(p, s)``.

        Raises:
            TypeError: a bare ``Decimal`` (no precision and scale).

        Example:
            >>> str(Decimal(18, 2).arrow_type())
            'decimal128(18, 2)'
        """
        if cls.precision is None or cls.scale is None:
            raise TypeError("Decimal needs a precision and scale, e.g. Decimal(18, 2)")
        return pa.decimal128(cls.precision, cls.scale)


class String(WeirType):
    """UTF-8 string column (Arrow ``large_string``, Iceberg ``string``); any Arrow string type widens to it.

    Example:
        ``Cabin: String | None`` in a TableSchema.
    """

    weir_name = "String"



class Binary(WeirType):
    """Binary column (Arrow ``large_binary``, Iceberg ``binary``).

    Example:
        ``payload: Binary`` in a TableSchema.
    """

    weir_name = "Binary"



class Date32(WeirType):
    """Date column (Arrow ``date32``, Iceberg ``date``).

    Example:
        ``day: Date32`` in a TableSchema.
    """

    weir_name = "Date32"



class Date64(WeirType):
    """Date column in milliseconds (Arrow ``date64``); has no Iceberg type, so a stored table cannot use it.

    Example:
        ``day: Date64`` in a TableSchema.
    """

    weir_name = "Date64"



class TimestampMicro(WeirType):
    """Timestamp without zone, microseconds (Arrow ``timestamp[us]``, Iceberg ``timestamp``).

    Example:
        ``at: TimestampMicro`` in a TableSchema.
    """

    weir_name = "TimestampMicro"



class TimestampNano(WeirType):
    """Timestamp without zone, nanoseconds (Arrow ``timestamp[ns]``, Iceberg ``timestamp_ns``).

    Example:
        ``at: TimestampNano`` in a TableSchema.
    """

    weir_name = "TimestampNano"



class TimestampMicroUTC(WeirType):
    """UTC instant, microseconds (Arrow ``timestamp[us, tz=UTC]``, Iceberg ``timestamptz``).

    Example:
        ``at: TimestampMicroUTC`` in a TableSchema.
    """

    weir_name = "TimestampMicroUTC"



class TimestampNanoUTC(WeirType):
    """UTC instant, nanoseconds (Arrow ``timestamp[ns, tz=UTC]``, Iceberg ``timestamptz_ns``).

    Example:
        ``at: TimestampNanoUTC`` in a TableSchema.
    """

    weir_name = "TimestampNanoUTC"



class Any(WeirType):
    """Any type: the column is checked for presence and nulls only.

    Example:
        ``extra: Any`` in a TableSchema.
    """

    weir_name = "Any"


_ARROW_TYPES: dict[str, Callable[[], pa.DataType]] = {
    "Bool": pa.bool_, "Int32": pa.int32, "Int64": pa.int64, "Float32": pa.float32, "Float64": pa.float64,
    "String": pa.large_string, "Binary": pa.large_binary, "Date32": pa.date32, "Date64": pa.date64,
    "TimestampMicro": lambda: pa.timestamp("us"), "TimestampNano": lambda: pa.timestamp("ns"),
    "TimestampMicroUTC": lambda: pa.timestamp("us", tz="UTC"), "TimestampNanoUTC": lambda: pa.timestamp("ns", tz="UTC"),
}

_SIMPLE: dict[str, type[WeirType]] = {
    t.weir_name: t
    for t in (Bool, Int32, Int64, Float32, Float64, String, Binary, Date32, Date64,
              TimestampMicro, TimestampNano, TimestampMicroUTC, TimestampNanoUTC, Any)
}
_DECIMAL_RE = re.compile(r"^\s*Decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*$")


def type_from_name(name: str) -> type[WeirType]:
    """The marker for a weir type name as the IR and ``describe`` write it.

    Raises:
        ValueError: an unknown name.

    Example:
        >>> from weir.types import type_from_name
        >>> type_from_name("Decimal(18, 2)").weir_name
        'Decimal(18, 2)'
    """
    found = _SIMPLE.get(name)
    if found is not None:
        return found
    m = _DECIMAL_RE.match(name)
    if m:
        return Decimal(int(m.group(1)), int(m.group(2)))
    raise ValueError(f"unknown weir type {name!r} (types: {', '.join(_SIMPLE)}, Decimal(p, s))")


_PYTHON: dict[type, type[WeirType]] = {
    bool: Bool, int: Int64, float: Float64, str: String, bytes: Binary,
    _dt.date: Date32, _dt.datetime: TimestampMicro,
}


def type_from_python(t: object) -> type[WeirType] | None:
    """The weir type for an annotation: a marker itself, or a plain Python type
    (``int`` → Int64, ``float`` → Float64, ``str`` → String, ``bool`` → Bool,
    ``bytes`` → Binary, ``datetime.date`` → Date32, ``datetime.datetime`` →
    TimestampMicro). None when ``t`` is neither.

    Example:
        >>> from weir.types import type_from_python
        >>> type_from_python(int)
        weir.Int64
    """
    if isinstance(t, type) and issubclass(t, WeirType) and t is not WeirType:
        return t
    if isinstance(t, type):
        return _PYTHON.get(t)
    return None


def weir_type_name(t: type[WeirType]) -> str:
    """The IR name of a marker; a bare ``Decimal`` is an error.

    Raises:
        TypeError: ``Decimal`` without precision and scale.

    Example:
        >>> from weir import Float64
        >>> weir_type_name(Float64)
        'Float64'
    """
    if issubclass(t, Decimal) and (t.precision is None or t.scale is None):
        raise TypeError("Decimal needs a precision and scale, e.g. Annotated[Decimal, Decimal(18, 2)]")
    return t.weir_name
