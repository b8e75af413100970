"""``weir.validate`` (module weir.validation): check Arrow data against a contract with libweir's validator.

The same validator every model output and import goes through, run locally on any Arrow
data (a pyarrow table, a polars or pandas frame): handy to unit-test a model without a
lake. No lake is opened and nothing is written.
"""
from __future__ import annotations

import ctypes
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import pyarrow as pa

from weir import _ffi
from weir.errors import InvalidArgument
from weir.records import RuleResult, Violation, document
from weir.schema import TableSchema, is_schema

__all__ = ["validate", "Validation"]


@dataclass(frozen=True)
class Validation:
    """The result of :func:`validate`: the data as it would be written (cast to the
    declared types, rows of drop-mode rules removed) and the report.

    Example:
        >>> v = weir.validate(table, WomenByClass)     # doctest: +SKIP
        >>> v.data.schema.field("tclass").type, v.violations
        (DataType(int64), ())
    """

    data: pa.Table
    violations: tuple[Violation, ...] = ()
    rules: tuple[RuleResult, ...] = ()
    rows_dropped: int = 0
    report: Mapping[str, Any] = field(default_factory=dict[str, Any], hash=False, compare=False)


def _contract_text(contract: object) -> tuple[bytes, str]:
    if is_schema(contract):
        return json.dumps(cast("type[TableSchema]", contract).to_ir()).encode(), cast("type", contract).__name__
    if isinstance(contract, Mapping):
        return json.dumps(dict(cast("Mapping[str, Any]", contract))).encode(), "<contract>"
    raise InvalidArgument(f"contract must be a TableSchema class, an IR dict or a contract file, not {contract!r}")


def validate(data: object, contract: type[TableSchema] | Mapping[str, Any] | str | os.PathLike[str], *,
             library: str | os.PathLike[str] | None = None) -> Validation:
    """Validates ``data`` against ``contract`` as weir validates a model's output:
    missing, unknown and uncastable columns, nulls in required columns, and every quality
    rule by its mode. Widening casts are applied.

    Args:
        data: a ``pyarrow.Table``/``RecordBatch``/``RecordBatchReader`` or any object
            with ``__arrow_c_stream__`` (polars, pandas); read in place, not copied.
        contract: a TableSchema class, a contract IR dict, or a YAML/IR-JSON file.
        library: an explicit libweir path (default: see docs/python.md).

    Returns:
        A :class:`Validation` with the valid data and the report (warn-mode
        violations and drop-mode removals are reported there).

    Raises:
        ContractViolation: a fail-mode violation (``.violations`` lists them all).
        InvalidInput: a malformed contract. LibraryNotFound: no libweir.

    Example:
        >>> import pyarrow as pa, weir
        >>> class T(weir.TableSchema):
        ...     x: weir.Int64
        >>> data = pa.table({"x": pa.array([1, 2], pa.int32())})
        >>> weir.validate(data, T).data.schema.field("x").type   # doctest: +SKIP
        DataType(int64)
    """
    lib = _ffi.load_library(library)
    handle = ctypes.c_void_p()
    if isinstance(contract, (str, os.PathLike)):
        lib.call("weir_contract_load", _ffi.enc(os.fspath(contract)), ctypes.byref(handle))
    else:
        text, origin = _contract_text(contract)
        lib.call("weir_contract_parse", text, len(text), b"json", _ffi.enc(origin), ctypes.byref(handle))
    try:
        stream, keep = _ffi.export_stream(data)
        valid = _ffi.ArrowArrayStream()
        report_p = ctypes.c_void_p()
        err = _ffi.WeirErrorStruct()
        try:
            rc: int = lib.fn("weir_contract_validate")(handle, stream, ctypes.byref(valid), ctypes.byref(report_p),
                                              ctypes.byref(err))
        finally:
            _ffi.release_stream(stream)
            del keep
        report_text = lib.take_string(report_p)
        if rc != 0:
            _ffi.release_stream(valid)
            raise lib.take_error(rc, err)
        table = _ffi.import_stream(valid).read_all()
    finally:
        lib.fn("weir_contract_free")(handle)
    report = cast("dict[str, Any]", document(json.loads(report_text or "null"), "validation report"))
    return Validation(data=table,
                      violations=tuple(Violation.from_json(v) for v in report["violations"]),
                      rules=tuple(RuleResult.from_json(r) for r in report["rules"]),
                      rows_dropped=int(report["rows_quarantined"]), report=report)
