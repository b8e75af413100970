"""Table[S] at runtime, Model(...) inputs, and the @weir.model / @weir.python decorators."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

from typing import Annotated, get_args, get_origin

import pyarrow as pa
import pytest

import weir
from weir import Float64, Int64, Model, String, Table, TableSchema
from weir.model import Filter, ModelDefinitionError, analyze_model, inspect_model, schema_of


class Src(TableSchema):
    """A source."""

    PassengerId: Int64
    Fare: Float64
    Cabin: String | None


class Out(TableSchema):
    pid: Int64


def test_table_of_schema_is_annotated_pyarrow_table():
    t = Table[Src]
    assert get_origin(t) is Annotated
    assert get_args(t) == (pa.Table, Src)
    assert schema_of(t) is Src
    # The two spellings of the docs are the same thing at runtime.
    assert t == Annotated[pa.Table, Src]
    # Nested in Annotated with Model(...), the schema is still found.
    ann = Annotated[Table[Src], Model("titanic")]
    assert get_args(ann) == (pa.Table, Src, Model("titanic"))
    assert schema_of(ann) is Src
    assert schema_of(Annotated[pa.Table, Model("t", projection_schema=Src)]) is Src
    assert schema_of(pa.Table) is None
    with pytest.raises(TypeError, match="TableSchema class"):
        Table[int]  # type: ignore[type-var]
    with pytest.raises(TypeError, match="annotation"):
        Table()  # type: ignore[call-arg]
    with pytest.raises(ModelDefinitionError, match="two schemas"):
        schema_of(Annotated[Table[Src], Model("t", projection_schema=Out)])


def test_model_and_filter():
    m = Model("titanic", filter="Age >= 18", ref="main", projection_schema=Src)
    assert (m.name, m.filter, m.ref, m.projection_schema) == ("titanic", "Age >= 18", "main", Src)
    assert repr(Model("raw.orders")) == "Model('raw.orders')"
    assert Filter(Filter(Model("t"), "a > 1"), "b < 2").filter == "(a > 1) AND (b < 2)"
    for bad in ("", "a b", "x.y.z", "1abc"):
        with pytest.raises(ModelDefinitionError):
            Model(bad)
    with pytest.raises(ModelDefinitionError, match="projection_schema"):
        Model("t", projection_schema=int)  # type: ignore[arg-type]


def test_decorators_in_either_order_and_the_function_stays_callable():
    @weir.model(materialization="REPLACE")
    @weir.python("3.11", pip={"polars": "1.*"})
    def a(src: Annotated[Table[Src], Model("titanic", filter="Age >= 18")]) -> Table[Out]:
        """Doc of a."""
        return src.select(["PassengerId"]).rename_columns(["pid"])

    @weir.python("3.11", pip={"polars": "1.*"})
    @weir.model(materialization="append", name="b_table")
    def b(src: Annotated[pa.Table, Model("a", projection_schema=Out)]) -> Annotated[pa.Table, Out]:
        return src

    @weir.model
    def c(x: Annotated[pa.Table, Model("raw")]) -> pa.Table:
        return x

    sa, sb, sc = inspect_model(a), inspect_model(b), inspect_model(c)
    assert (sa.name, sa.materialization, sa.doc) == ("a", "REPLACE", "Doc of a.")
    assert sa.python is not None and sa.python.to_json() == {"version": "3.11", "pip": {"polars": "1.*"}}
    assert [i.to_json() for i in sa.inputs] == [{"param": "src", "table": "titanic", "filter": "Age >= 18",
                                                  "ref": None, "schema": "Src", "columns": None,
                                                  "line": sa.inputs[0].line}]
    assert sa.output_schema is Out and sa.inputs[0].line == sa.line  # the parameter is on the def line
    assert (sb.name, sb.function, sb.materialization, sb.output_schema) == ("b_table", "b", "APPEND", Out)
    assert sb.inputs[0].schema is Out
    assert sc.python is None and sc.output_schema is None and sc.inputs[0].schema is None
    # Still an ordinary function.
    t = pa.table({"PassengerId": [1, 2], "Fare": [1.0, 2.0], "Cabin": ["C1", None]})
    assert a(t).column_names == ["pid"]


def test_sdk1_style_default_model_and_ordinary_defaults():
    @weir.model()
    def m(rows=Model("titanic"), limit: int = 10) -> pa.Table:  # noqa: ANN001
        return rows

    spec = inspect_model(m)
    assert [(i.param, i.table, i.schema) for i in spec.inputs] == [("rows", "titanic", None)]


def test_materialization_strategy_is_materialization():
    # The contracts paper's spelling, as the SQL header accepts it.
    @weir.model(materialization_strategy="REPLACE")
    def a() -> None: ...

    @weir.model(materialization_strategy="append")
    def b() -> None: ...

    @weir.model(materialization="APPEND", materialization_strategy="append")
    def c() -> None: ...

    @weir.model()
    def d() -> None: ...

    assert [f.__weir_model__.materialization for f in (a, b, c, d)] == ["REPLACE", "APPEND", "APPEND", "REPLACE"]
    with pytest.raises(ModelDefinitionError, match="they are one option; give it once"):
        @weir.model(materialization="REPLACE", materialization_strategy="APPEND")
        def e() -> None: ...
    with pytest.raises(ModelDefinitionError, match=r"materialization_strategy='MERGE'\): use 'REPLACE' or 'APPEND'"):
        @weir.model(materialization_strategy="MERGE")  # type: ignore[arg-type]
        def f() -> None: ...


def test_model_columns_is_the_original_sdks_projection():
    @weir.model()
    def m(rows=Model("titanic", columns=["PassengerId", "Fare"], filter="Age > 1")) -> pa.Table:  # noqa: ANN001
        return rows

    spec = inspect_model(m)
    assert spec.inputs[0].to_json()["columns"] == ["PassengerId", "Fare"]
    assert spec.inputs[0].schema is None and spec.inputs[0].filter == "Age > 1"
    assert repr(Model("t", columns=["a"])) == "Model('t', columns=['a'])"
    assert Filter(Model("t", columns=["a"]), "a > 1").columns == ("a",)
    assert Model("t", columns=["a"]) != Model("t")
    for bad, match in ((["a", "a"], "listed twice"), ([], "at least one"), ("a", "list of column names"),
                       ([1], "list of column names")):
        with pytest.raises(ModelDefinitionError, match=match):
            Model("t", columns=bad)  # type: ignore[arg-type]
    with pytest.raises(ModelDefinitionError, match="not both"):
        Model("t", columns=["x"], projection_schema=Src)

    @weir.model()
    def both(rows: Annotated[Table[Src], Model("t", columns=["PassengerId"])]) -> pa.Table:
        return rows

    _, problems = analyze_model(both)
    assert [p.message for p in problems] == [
        "model both: parameter 'rows': give Model(columns=...) or a schema (Src), not both (the schema names the "
        "columns)"]


def test_model_definition_errors_are_all_collected_with_lines():
    @weir.model()
    def bad(
        plain: pa.Table,
        two: Annotated[pa.Table, Model("a"), Model("b")],
        wrong: Annotated[list[int], Model("c")],
        *rest: pa.Table,
    ) -> Table[Out]:
        return plain

    spec, problems = analyze_model(bad)
    assert spec is not None
    msgs = [p.message for p in problems]
    assert any("parameter 'plain' is not an input" in m for m in msgs)
    assert any("'two' has 2 Model(...) annotations" in m for m in msgs)
    assert any("'wrong' must be a pyarrow.Table" in m for m in msgs)
    assert any("*rest is not supported" in m for m in msgs)
    lines = sorted(p.line or 0 for p in problems)
    assert lines[0] > spec.line - 1 and len(set(lines)) == 4  # one line per parameter


def test_decorator_argument_errors():
    with pytest.raises(ModelDefinitionError, match="REPLACE"):
        @weir.model(materialization="MERGE")  # type: ignore[arg-type]
        def x() -> None: ...
    with pytest.raises(ModelDefinitionError, match="version"):
        weir.python("three")
    with pytest.raises(ModelDefinitionError, match="model name"):
        @weir.model(name="bad name")
        def y() -> None: ...

    def undecorated() -> None: ...

    with pytest.raises(ModelDefinitionError, match="not decorated"):
        inspect_model(undecorated)


def test_sandbox_options_of_weir_python():
    from weir.limits import parse_duration, parse_size

    @weir.model()
    @weir.python(memory="1.5GB", timeout="1h30m", cpu_time=90, internet_access=True)
    def m(src: Annotated[pa.Table, Model("titanic")]) -> pa.Table:
        return src

    spec = inspect_model(m)
    assert spec.python is None  # no version: the project's default environment
    assert spec.sandbox is not None and spec.to_json()["sandbox"] == {
        "internet_access": True, "memory": 1_500_000_000, "timeout": 5400.0, "cpu_time": 90.0}
    # Without @weir.python there is nothing to say: libweir applies the defaults.
    @weir.model()
    def plain(src: Annotated[pa.Table, Model("titanic")]) -> pa.Table:
        return src

    assert inspect_model(plain).to_json()["sandbox"] is None
    assert [parse_size(v) for v in (64 << 20, "4GB", "4 GiB", "512mib", "1TB")] == [
        64 << 20, 4 * 10**9, 4 << 30, 512 << 20, 10**12]
    assert [parse_duration(v) for v in (5, 2.5, "90s", "10m", "1h30m", "500ms", "2d", "1m 30s")] == [
        5.0, 2.5, 90.0, 600.0, 5400.0, 0.5, 172800.0, 90.0]
    for bad, match in [({"memory": "4G"}, "a size is a number and a unit"), ({"memory": True}, "a size is bytes"),
                       ({"memory": 1000}, "at least 32MiB"), ({"timeout": "10 minutes"}, "numbers with units"),
                       ({"timeout": -1}, "positive"), ({"timeout": "31d"}, "at most 30 days"),
                       ({"cpu_time": 0.5}, "at least one second"), ({"internet_access": 1}, "True or False")]:
        with pytest.raises(ModelDefinitionError, match=match):
            weir.python(**bad)  # type: ignore[arg-type]
    with pytest.raises(ModelDefinitionError, match="needs a version"):
        weir.python(pip={"polars": "1.*"})
