"""weir.validate: libweir's validator on local Arrow data, used here to unit-test the
example project's models without a lake."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

from typing import Annotated

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pytest

import weir
from weir._project import load_file
from conftest import TITANIC
from test_client_support import PROJECT, weir_env  # noqa: F401 - fixture


def read_titanic() -> pa.Table:
    """titanic.csv with empty fields as nulls, as weir's importer reads it."""
    return pacsv.read_csv(TITANIC, convert_options=pacsv.ConvertOptions(strings_can_be_null=True))


def test_the_example_models_meet_their_contracts(weir_env):
    m = load_file(str(PROJECT), "models.py")
    titanic = read_titanic()
    adults = titanic.filter((pc.field("Age") >= 18) & (pc.field("Age") <= 65))
    lodgings = weir.validate(adults.select(m.CabinCostSource.column_names()), m.CabinCostSource).data
    g = weir.validate(m.g(lodgings), m.CabinCostAnalysis)
    assert g.data.num_rows == 593 and g.violations == ()
    women = titanic.filter(pc.field("Pclass").isin([1, 2]) & (pc.field("Sex") == "female"))
    f = weir.validate(women.select(["PassengerId", "Pclass", "Fare"]).rename_columns(["pid", "tclass", "Fare"]),
                      m.WomenByClass)
    assert [r.rule for r in f.rules] == ["tclass.enum"] and all(r.passed for r in f.rules)
    h = weir.validate(m.h(f.data, g.data), m.ExpensiveWomenCabins)
    assert h.data.num_rows == 80
    total = weir.validate(m.fare_sum(f.data), m.TotalFares)
    assert total.data.to_pylist() == [{"fare_total": 11646}]
    # Without the explicit cast, fare_sum's Float64 would not be widened to Int64.
    with pytest.raises(weir.ContractViolation, match='column "fare_total" has type double, expected int64'):
        weir.validate(pl.DataFrame(f.data).select(fare_total=pl.col("Fare").sum().ceil()), m.TotalFares)


def test_casts_drops_warnings_and_failures(weir_env):
    class T(weir.TableSchema):
        x: weir.Int64
        age: Annotated[weir.Float64 | None, weir.Range(min=0, max=10, mode="drop")]
        s: Annotated[weir.String, weir.Enum(["a", "b"], mode="warn")]

    v = weir.validate(pa.table({"x": pa.array([1, 2, 3], pa.int32()), "age": [1.0, 50.0, None],
                                "s": pa.array(["a", "c", "b"], pa.string())}), T)
    assert v.data.schema.field("x").type == pa.int64() and v.data.schema.field("s").type == pa.large_string()
    assert v.data.column("x").to_pylist() == [1, 3] and v.rows_dropped == 1
    assert sorted((x.kind, x.mode) for x in v.violations) == [("enum", "warn"), ("range", "drop")]
    with pytest.raises(weir.ContractViolation) as e:
        weir.validate(pa.table({"x": pa.array([None, 1], pa.int64()), "extra": [1, 2]}), T)
    assert {x.kind for x in e.value.violations} == {"nulls", "missing", "unknown"}
    ir = T.to_ir()
    assert weir.validate(pa.table({"x": [1], "age": [1.0], "s": ["a"]}), ir).violations == ()
    with pytest.raises(weir.InvalidArgument):
        weir.validate(pa.table({"x": [1]}), 42)  # type: ignore[arg-type]


def test_yaml_contract_file(weir_env):
    yml = PROJECT / "contracts" / "titanic.yml"
    v = weir.validate(read_titanic(), yml)
    assert v.data.num_rows == 891 and v.violations == ()
    bad = read_titanic().slice(0, 10)
    bad = bad.set_column(bad.schema.get_field_index("Sex"), "Sex", pa.array(["x"] * 10))
    with pytest.raises(weir.ContractViolation, match="Sex"):
        weir.validate(bad, yml)


def test_contract_sql_has_no_file_access(weir_env, tmp_path):
    # weir.validate ran a contract's checks on an engine that could read any file.
    secret = tmp_path / "secret.txt"
    secret.write_text("x" * 100)
    ir = {"name": "c", "columns": [{"name": "id", "type": "Int64", "rules": [
        {"kind": "check", "sql": f"id < (SELECT length(content) FROM read_text('{secret}'))"}]}]}
    with pytest.raises(weir.InvalidInput, match="file system operations are disabled"):
        weir.validate(pa.table({"id": [1, 2]}), ir)


def test_int64_to_double_is_not_called_narrowing(weir_env):
    """Issue 15: int64 -> double was called a narrowing; every int64 is in double's range,
    the risk is rounding beyond 2^53, and the message says that."""
    class D(weir.TableSchema):
        x: weir.Float64

    class I(weir.TableSchema):  # noqa: E742 - a one-letter schema, as the test's others
        x: weir.Int32

    with pytest.raises(weir.ContractViolation) as e:
        weir.validate(pa.table({"x": pa.array([1, 2], pa.int64())}), D)
    msg = str(e.value)
    assert "narrowing" not in msg
    assert 'column "x" has type int64, expected double (int64 to double rounds integers beyond 2^53, so it is not ' \
           "applied: cast it in the model, or declare the column's cast exact" in msg, msg
    with pytest.raises(weir.ContractViolation) as e:
        weir.validate(pa.table({"x": pa.array([1, 2], pa.int64())}), I)
    assert "expected int32 (narrowing casts are not applied" in str(e.value)
