"""pyright fixture: correct uses of Table[S] and schemas; pyright must report nothing."""
from typing import Annotated

import pyarrow as pa
import pyarrow.compute as pc

import weir
from weir import Enum, Float64, Int64, Model, String, Table, TableField, TableSchema


class Passengers(TableSchema):
    """Passengers with their fare."""

    PassengerId: Annotated[Int64, TableField(doc="Passenger id")]
    Pclass: Annotated[Int64, Enum({"1st": 1, "2nd": 2, "3rd": 3})]
    Fare: Float64
    Cabin: String | None


class Rich(TableSchema):
    """Passengers who paid more than 100."""

    pid: Annotated[Int64, TableField(lineage=Passengers["PassengerId"])]
    Fare: Annotated[Float64, Passengers["Fare"]]


@weir.model(materialization="REPLACE")
@weir.python("3.11")
def rich(
    passengers: Annotated[Table[Passengers], Model("titanic", filter="Fare > 0")],
    extra: Annotated[pa.Table, Model("titanic", projection_schema=Passengers)],
) -> Table[Rich]:
    """Passengers who paid more than 100."""
    n: int = passengers.num_rows + extra.num_rows
    assert n >= 0
    kept = passengers.filter(pc.field("Fare") > 100).slice(0, 1000)
    out: pa.Table = kept.select(["PassengerId", "Fare"]).rename_columns(["pid", "Fare"])
    return out


def takes_plain_table(t: pa.Table) -> int:
    """A Table[S] is a pyarrow.Table: it can be passed where one is expected."""
    return t.num_rows


def roundtrip(t: Table[Rich]) -> Table[Rich]:
    """And a pyarrow.Table can be returned where Table[S] is declared."""
    takes_plain_table(t)
    return pa.table({"pid": [1], "Fare": [1.0]})
