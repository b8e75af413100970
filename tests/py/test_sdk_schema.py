"""TableSchema → contract IR: every marker, nullability, lineage, enums, errors at
class definition time, and libweir accepting the IR the SDK writes."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import ctypes
import datetime as dt
import enum
import json
from typing import Annotated, ClassVar, Optional

import pyarrow as pa
import pytest

import weir
from weir import (
    Any,
    Binary,
    Bool,
    Check,
    Date32,
    Date64,
    Decimal,
    Doc,
    Enum,
    Float32,
    Float64,
    Int32,
    Int64,
    Pattern,
    Range,
    Required,
    SchemaError,
    String,
    TableField,
    TableRule,
    TableSchema,
    TimestampMicro,
    TimestampMicroUTC,
    TimestampNano,
    TimestampNanoUTC,
    Unique,
)
from weir.types import type_from_name
from test_client_support import library_path, weir_env  # noqa: F401 - fixture


def cols(schema: type[TableSchema]) -> list[dict]:
    return schema.to_ir()["columns"]


def test_every_type_and_nullability():
    class AllTypes(TableSchema):
        """Every weir type."""

        a: Bool
        b: Int32
        c: Int64
        d: Float32
        e: Float64
        f: Annotated[Decimal, Decimal(18, 2)]
        g: String
        h: Binary
        i: Date32
        j: Date64
        k: TimestampMicro
        l: TimestampNano  # noqa: E741
        m: TimestampMicroUTC
        n: TimestampNanoUTC
        o: Any
        p: Int64 | None
        q: Optional[String]  # noqa: UP045 - the typing spelling works too
        r: Annotated[Float64 | None, Doc("nullable with a doc")]
        s: Annotated[Int64, Doc("outer union")] | None
        t: Decimal(10, 0)  # type: ignore[valid-type]  # runtime spelling

    ir = AllTypes.to_ir()
    assert ir["ir_version"] == 1
    assert ir["name"] == "AllTypes"
    assert ir["description"] == "Every weir type."
    assert ir["mode"] == "fail"
    assert [(c["name"], c["type"], c["nullable"]) for c in ir["columns"]] == [
        ("a", "Bool", False), ("b", "Int32", False), ("c", "Int64", False), ("d", "Float32", False),
        ("e", "Float64", False), ("f", "Decimal(18, 2)", False), ("g", "String", False), ("h", "Binary", False),
        ("i", "Date32", False), ("j", "Date64", False), ("k", "TimestampMicro", False),
        ("l", "TimestampNano", False), ("m", "TimestampMicroUTC", False), ("n", "TimestampNanoUTC", False),
        ("o", "Any", False), ("p", "Int64", True), ("q", "String", True), ("r", "Float64", True),
        ("s", "Int64", True), ("t", "Decimal(10, 0)", False)]
    assert ir["columns"][17]["doc"] == "nullable with a doc"
    # Column lines are the lines of the annotations in this file.
    lines = [c["line"] for c in ir["columns"]]
    assert all(line > 0 for line in lines) and lines == sorted(lines)
    assert ir["origin"] == "test_sdk_schema.py" and ir["line"] > 0


def test_arrow_types_match_the_spec_table():
    expected = {"Bool": "bool", "Int32": "int32", "Int64": "int64", "Float32": "float", "Float64": "double",
                "String": "large_string", "Binary": "large_binary", "Date32": "date32[day]",
                "Date64": "date64[ms]", "TimestampMicro": "timestamp[us]", "TimestampNano": "timestamp[ns]",
                "TimestampMicroUTC": "timestamp[us, tz=UTC]", "TimestampNanoUTC": "timestamp[ns, tz=UTC]"}
    for name, arrow in expected.items():
        assert str(type_from_name(name).arrow_type()) == arrow
    assert type_from_name("Decimal(18, 2)").arrow_type() == pa.decimal128(18, 2)
    with pytest.raises(ValueError, match="unknown weir type"):
        type_from_name("Int128")
    with pytest.raises(TypeError, match="column type marker"):
        Int64()


def test_python_builtin_types_map_to_weir_types():
    class Py(TableSchema):
        a: int
        b: float
        c: str | None
        d: bool
        e: dt.date
        f: dt.datetime

    assert [c["type"] for c in cols(Py)] == ["Int64", "Float64", "String", "Bool", "Date32", "TimestampMicro"]


def test_docs_lineage_and_the_papers_spellings():
    class WomenByClass(TableSchema):
        """Women in 1st or 2nd class."""

        pid: Annotated[Int64, Required, Doc("Unique passenger ID")]
        tclass: Annotated[Int64, TableField(doc="Ticket class"), Enum("tclass", names=[("1st", 1), ("2nd", 2)])]
        Fare: Annotated[Float64, Doc("Ticket cost (British pounds)")]

    class Expensive(TableSchema):
        pid: Annotated[Int64, WomenByClass["pid"]]
        tclass: Annotated[Int64, TableField(lineage=WomenByClass["tclass"])]
        Fare: Annotated[Float64, TableField(doc="Above average", lineage=[WomenByClass["Fare"], "Other.fare"])]
        both: Annotated[Int64, WomenByClass["pid"], TableField(lineage="WomenByClass.tclass")]

    c = cols(Expensive)
    assert c[0]["lineage"] == ["WomenByClass.pid"] and c[0]["doc"] is None
    assert c[1]["lineage"] == ["WomenByClass.tclass"]
    assert c[2]["lineage"] == ["WomenByClass.Fare", "Other.fare"] and c[2]["doc"] == "Above average"
    assert c[3]["lineage"] == ["WomenByClass.pid", "WomenByClass.tclass"]
    w = cols(WomenByClass)
    assert w[0]["doc"] == "Unique passenger ID" and w[0]["nullable"] is False
    assert w[1]["rules"] == [{"kind": "enum", "name": "tclass.enum", "mode": "fail", "values": [1, 2],
                              "value_names": ["1st", "2nd"]}]
    assert str(WomenByClass["pid"]) == "WomenByClass.pid"
    assert Expensive.column("pid").lineage == ("WomenByClass.pid",)


def test_enum_spellings():
    class Color(enum.Enum):
        RED = "r"
        GREEN = "g"

    class E(TableSchema):
        a: Annotated[Int64, Enum({"1st": 1, "2nd": 2})]
        b: Annotated[Int64, Enum([1, 2, 3])]
        c: Annotated[String, Enum(["x", "y"], mode="warn", name="c_allowed")]
        d: Annotated[String, Enum(Color)]

    r = [c["rules"][0] for c in cols(E)]
    assert r[0] == {"kind": "enum", "name": "a.enum", "mode": "fail", "values": [1, 2], "value_names": ["1st", "2nd"]}
    assert r[1]["values"] == [1, 2, 3] and r[1]["value_names"] is None
    assert r[2]["name"] == "c_allowed" and r[2]["mode"] == "warn"
    assert r[3]["values"] == ["r", "g"] and r[3]["value_names"] == ["RED", "GREEN"]


def test_rules_with_modes_and_table_options():
    class Payments(TableSchema, mode="warn", owner="payments-team", version="2.1", sla={"freshness": "1 hour"},
                   rules=[TableRule("no_dupes", "SELECT COUNT(*) - COUNT(DISTINCT id) FROM {table}"),
                          TableRule("big", "SELECT MAX(amount) FROM {table}", threshold=1e6, op="<", mode="fail")]):
        """Card payments."""

        id: Annotated[Int64, Unique]
        amount: Annotated[Annotated[Decimal, Decimal(18, 2)], Check("amount > 0"), Check("amount < 1000000", mode="fail")]
        currency: Annotated[String, Pattern("^[A-Z]{3}$", mode="drop")]
        age: Annotated[Float64 | None, Range(min=0, max=120), Unique(mode="fail", name="age_unique")]
        day: Annotated[Date32, Range(min=dt.date(2020, 1, 1))]

    ir = Payments.to_ir()
    assert (ir["mode"], ir["owner"], ir["version"], ir["sla"]) == ("warn", "payments-team", "2.1", {"freshness": "1 hour"})
    c = ir["columns"]
    assert c[0]["rules"] == [{"kind": "unique", "name": "id.unique", "mode": "warn"}]
    assert c[1]["rules"] == [{"kind": "check", "name": "amount.check[0]", "mode": "warn", "sql": "amount > 0"},
                             {"kind": "check", "name": "amount.check[1]", "mode": "fail", "sql": "amount < 1000000"}]
    assert c[2]["rules"] == [{"kind": "pattern", "name": "currency.pattern", "mode": "drop", "pattern": "^[A-Z]{3}$"}]
    assert c[3]["rules"] == [{"kind": "range", "name": "age.range", "mode": "warn", "min": 0, "max": 120},
                             {"kind": "unique", "name": "age_unique", "mode": "fail"}]
    assert c[4]["rules"][0]["min"] == "2020-01-01" and c[4]["rules"][0]["max"] is None
    assert ir["table_rules"] == [
        {"name": "no_dupes", "sql": "SELECT COUNT(*) - COUNT(DISTINCT id) FROM {table}", "threshold": 0, "op": "<=",
         "mode": "warn"},
        {"name": "big", "sql": "SELECT MAX(amount) FROM {table}", "threshold": 1000000, "op": "<", "mode": "fail"}]


def test_bad_lineage_reference_fails_at_class_definition():
    class Src(TableSchema):
        PassengerId: Int64

    with pytest.raises(SchemaError, match=r"schema Src has no column 'pid' \(columns: PassengerId\)"):
        class Bad(TableSchema):  # noqa: F841
            pid: Annotated[Int64, TableField(lineage=Src["pid"])]
    with pytest.raises(SchemaError, match="has no column"):
        Src["nope"]
    # A SchemaError is an InvalidArgument (a WeirError) and a TypeError.
    assert issubclass(SchemaError, weir.WeirError) and issubclass(SchemaError, TypeError)


def test_duplicate_column_names_are_an_error():
    with pytest.raises(SchemaError, match="column 'a' is declared twice"):
        class Twice(TableSchema):  # noqa: F841
            a: Int64
            a: String  # noqa: PIE794

    with pytest.raises(SchemaError, match="two attributes name column 'x'"):
        class Aliased(TableSchema):  # noqa: F841
            x: Int64
            y: Annotated[Int64, TableField(name="x")]


def test_other_definition_errors():
    with pytest.raises(SchemaError, match="both Required and nullable"):
        class A(TableSchema):  # noqa: F841
            a: Annotated[Int64 | None, Required]
    with pytest.raises(SchemaError, match="is not a weir type"):
        class B(TableSchema):  # noqa: F841
            a: list[int]
    with pytest.raises(SchemaError, match="union must be 'T | None'"):
        class C(TableSchema):  # noqa: F841
            a: Int64 | String
    with pytest.raises(SchemaError, match="Decimal needs a precision"):
        class D(TableSchema):  # noqa: F841
            a: Decimal
    with pytest.raises(SchemaError, match="enum value '1st' is not a Int64"):
        class E(TableSchema):  # noqa: F841
            a: Annotated[Int64, Enum(["1st"])]
    with pytest.raises(SchemaError, match="Pattern applies to String"):
        class F(TableSchema):  # noqa: F841
            a: Annotated[Int64, Pattern("x")]
    with pytest.raises(SchemaError, match="mode must be"):
        Unique(mode="loud")  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="two different docs"):
        class G(TableSchema):  # noqa: F841
            a: Annotated[Int64, Doc("x"), TableField(doc="y")]
    with pytest.raises(SchemaError, match="does not mention"):
        class H(TableSchema, rules=[TableRule("r", "SELECT 1")]):  # noqa: F841
            a: Int64
    with pytest.raises(SchemaError, match="Model"):
        class I(TableSchema):  # noqa: E742, F841
            a: Annotated[Int64, weir.Model("t")]
    with pytest.raises(TypeError, match="precision"):
        Decimal(0, 0)


def test_inheritance_classvars_aliases_and_arrow_schema():
    class Base(TableSchema):
        """Base doc."""

        id: Int64
        name: String | None
        registry: ClassVar[dict[str, int]] = {}

    class Child(Base):
        name: Annotated[String, Doc("now required")]  # overrides in place
        extra: Annotated[Float64, TableField(name="extra col")]

    assert Child.column_names() == ["id", "name", "extra col"]
    assert Child.to_ir()["description"] is None  # docstrings are not inherited
    assert Child.column("name").doc == "now required" and not Child.column("name").nullable
    schema = Child.arrow_schema()
    assert schema.names == ["id", "name", "extra col"]
    assert schema.field("extra col").type == pa.float64() and not schema.field("id").nullable


def test_future_annotations_in_a_module(tmp_path, monkeypatch):
    (tmp_path / "future_schemas.py").write_text(
        "from __future__ import annotations\n"
        "from typing import Annotated\n"
        "from weir import TableSchema, Int64, String, TableField\n"
        "class A(TableSchema):\n"
        "    x: Int64\n"
        "class B(TableSchema):\n"
        "    y: Annotated[Int64, TableField(lineage=A['x'])]\n"
        "    z: String | None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import future_schemas

    c = future_schemas.B.to_ir()["columns"]
    assert c[0]["lineage"] == ["A.x"] and c[0]["line"] == 7
    assert c[1]["nullable"] is True and c[1]["line"] == 8
    assert future_schemas.B.to_ir()["line"] == 6


def test_libweir_accepts_the_ir(weir_env):
    """The IR the SDK writes is the IR libweir reads (weir_contract_parse), and
    libweir writes it back with the same columns, types, nullability, docs and rules."""
    from weir import _ffi

    class Full(TableSchema, mode="warn"):
        """A bit of everything."""

        pid: Annotated[Int64, Unique, Doc("id")]
        tclass: Annotated[Int64, Enum({"1st": 1, "2nd": 2}, mode="fail")]
        name: Annotated[String | None, Pattern("^[A-Z].*$")]
        age: Annotated[Float64 | None, Range(min=0, max=120, mode="drop")]
        amount: Annotated[Decimal, Decimal(18, 2), Check("amount >= 0")]
        at: TimestampMicroUTC | None
        total: Annotated[Int64, TableField(cast="exact")]

    lib = _ffi.load_library(library_path())
    text = json.dumps(Full.to_ir()).encode()
    out = ctypes.c_void_p()
    lib.call("weir_contract_parse", text, len(text), b"json", b"test.py", ctypes.byref(out))
    try:
        text_out = lib.fn("weir_contract_to_json")(out)  # the caller's, freed with weir_free
        try:
            back = json.loads(ctypes.string_at(text_out).decode())
        finally:
            lib.fn("weir_free")(text_out)
    finally:
        lib.fn("weir_contract_free")(out)
    mine = Full.to_ir()
    assert back["name"] == "Full" and back["description"] == mine["description"] and back["mode"] == "warn"
    for a, b in zip(mine["columns"], back["columns"], strict=True):
        assert (a["name"], a["type"], a["nullable"], a["doc"], a["lineage"], a.get("cast")) == (
            b["name"], b["type"], b["nullable"], b["doc"], b["lineage"], b.get("cast"))
        assert a["rules"] == b["rules"]
    assert back["columns"][-1]["cast"] == "exact"

    # And a broken IR is refused with the field named.
    bad = json.dumps({**mine, "columns": [{**mine["columns"][0], "type": "Int128"}]}).encode()
    with pytest.raises(weir.InvalidInput, match="Int128"):
        lib.call("weir_contract_parse", bad, len(bad), b"json", b"test.py", ctypes.byref(out))


def test_table_field_cast_exact():
    """TableField(cast="exact") is the IR's "cast": "exact", as YAML's cast: exact; the
    default (widen) is not written, as libweir does not write it."""

    class TotalFares(TableSchema):
        fare_total: Annotated[Int64, Required, TableField(cast="exact"), Doc("Rounded up")]
        n: Annotated[Int64, TableField(cast="widen")]
        other: Float64

    c = cols(TotalFares)
    assert c[0]["cast"] == "exact" and c[0]["doc"] == "Rounded up"
    assert "cast" not in c[1] and "cast" not in c[2]
    assert [col.cast for col in TotalFares.columns()] == ["exact", "widen", "widen"]
    with pytest.raises(SchemaError, match="TableField\\(cast=...\\) must be 'widen' or 'exact', not 'lossy'"):
        class Bad(TableSchema):
            x: Annotated[Int64, TableField(cast="lossy")]  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="cast='exact' applies to numbers, decimals, dates and timestamps, not String"):
        class Text(TableSchema):
            x: Annotated[String, TableField(cast="exact")]
    with pytest.raises(SchemaError, match="two different casts"):
        class Two(TableSchema):
            x: Annotated[Int64, TableField(cast="exact"), TableField(cast="widen")]


def test_exact_cast_through_local_validation(weir_env):
    """weir.validate applies it with libweir's validator: 11646.0 becomes 11646; 2.5 fails
    naming its row and value; without the opt-in the refusal says how to fix it."""

    class T(TableSchema):
        x: Annotated[Int64, TableField(cast="exact")]

    class W(TableSchema):
        x: Int64

    out = weir.validate(pa.table({"x": [11646.0, -3.0]}), T, library=library_path())
    assert out.data.schema.field("x").type == pa.int64() and out.data.column("x").to_pylist() == [11646, -3]
    assert out.report["casts"] == [{"column": "x", "from": "double", "to": "int64", "cast": "exact"}]
    with pytest.raises(weir.ContractViolation) as e:
        weir.validate(pa.table({"x": [1.0, 2.5]}), T, library=library_path())
    (v,) = e.value.violations
    assert (v.kind, v.column, v.count, v.rows, v.samples) == ("type", "x", 1, (1,), (2.5,))
    assert v.message == 'column "x" has 1 value of type double that does not convert exactly to int64 (row 1: 2.5)'
    with pytest.raises(weir.ContractViolation, match=r'TableField\(cast="exact"\) in Python'):
        weir.validate(pa.table({"x": [1.0]}), W, library=library_path())
