"""The Titanic pipeline's schemas and Python models.

DAG: ``titanic`` (catalog) -> f (SQL, f.sql) and g (polars); f and g -> h; f -> fare_sum.
Every model's output is checked against its schema before anything is written, and the
schemas' docs and lineage are stored in the output tables' Iceberg metadata.
"""
from typing import Annotated

import polars as pl

import weir
from weir import Enum, Float64, Int64, Model, String, Table, TableField, TableSchema


class WomenByClass(TableSchema):
    """Women passengers holding 1st or 2nd class tickets."""

    pid: Annotated[Int64, TableField(doc="Passenger id")]
    tclass: Annotated[Int64, TableField(doc="Ticket class, 1st or 2nd only"), Enum({"1st": 1, "2nd": 2})]
    Fare: Annotated[Float64, TableField(doc="Ticket price in British pounds")]


class CabinCostSource(TableSchema):
    """The columns of the catalog's titanic table that cabin analysis reads."""

    PassengerId: Annotated[Int64, TableField(doc="Passenger id")]
    Pclass: Annotated[Int64, TableField(doc="Ticket class: 1, 2 or 3")]
    Fare: Annotated[Float64, TableField(doc="Ticket price in British pounds")]
    Cabin: Annotated[String | None, TableField(doc="Cabin number (C85 is on deck C); null when unknown")]


class CabinCostAnalysis(TableSchema):
    """Working-age adults with their cabin deck and the mean fare paid on that deck."""

    pid: Annotated[Int64, TableField(doc="Passenger id", lineage=CabinCostSource["PassengerId"])]
    tclass: Annotated[Int64, TableField(doc="Ticket class: 1, 2 or 3", lineage=CabinCostSource["Pclass"])]
    Cabin: Annotated[String | None, TableField(doc="Cabin number; null when unknown",
                                               lineage=CabinCostSource["Cabin"])]
    cabin_level: Annotated[String | None, TableField(doc="Deck: the first letter of the cabin; null without a cabin",
                                                     lineage=CabinCostSource["Cabin"])]
    Fare: Annotated[Float64, TableField(doc="Ticket price in British pounds", lineage=CabinCostSource["Fare"])]
    mean_fare: Annotated[Float64, TableField(doc="Mean fare of the passengers on the same deck (passengers "
                                                 "without a cabin form one group)",
                                             lineage=CabinCostSource["Fare"])]


class ExpensiveWomenCabins(TableSchema):
    """Cabins of working-age women in 1st or 2nd class who paid more than their deck's mean fare."""

    pid: Annotated[Int64, TableField(doc="Passenger id", lineage=WomenByClass["pid"])]
    tclass: Annotated[Int64, TableField(doc="Ticket class, 1st or 2nd only", lineage=WomenByClass["tclass"]),
                      Enum({"1st": 1, "2nd": 2})]
    Fare: Annotated[Float64, TableField(doc="Ticket price, above the deck's mean fare",
                                        lineage=[WomenByClass["Fare"], CabinCostAnalysis["mean_fare"]])]
    Cabin: Annotated[String | None, TableField(doc="Cabin number; null when unknown",
                                               lineage=CabinCostAnalysis["Cabin"])]


class TotalFares(TableSchema):
    """The total fare paid by 1st and 2nd class women."""

    fare_total: Annotated[Int64, TableField(doc="Sum of the fares, rounded up to the next whole British pound",
                                            lineage=WomenByClass["Fare"])]


@weir.model(materialization="REPLACE")
@weir.python("3.11", pip={"polars": "1.*"})
def g(
    lodgings: Annotated[Table[CabinCostSource], Model("titanic", filter="Age >= 18 AND Age <= 65")],
) -> Table[CabinCostAnalysis]:
    """Cabin cost by deck for working-age adults (18 to 65)."""
    return (
        pl.DataFrame(lodgings)
        .with_columns(cabin_level=pl.col("Cabin").str.slice(0, 1))
        .with_columns(mean_fare=pl.col("Fare").mean().over("cabin_level"))
        .select(
            pl.col("PassengerId").alias("pid"),
            pl.col("Pclass").alias("tclass"),
            "Cabin",
            "cabin_level",
            "Fare",
            "mean_fare",
        )
        .to_arrow()
    )


@weir.model(materialization="REPLACE")
@weir.python("3.11", pip={"polars": "1.*"})
def h(
    f_data: Annotated[Table[WomenByClass], Model("f")],
    g_data: Annotated[Table[CabinCostAnalysis], Model("g")],
) -> Table[ExpensiveWomenCabins]:
    """Expensive cabins reserved by or for working-age women."""
    return (
        pl.DataFrame(f_data)
        .join(pl.DataFrame(g_data), on=["pid", "tclass"], suffix="_g")
        .filter(pl.col("Fare") > pl.col("mean_fare"))
        .select("pid", "tclass", "Fare", "Cabin")
        .to_arrow()
    )


@weir.python("3.11", pip={"polars": "1.*"})
@weir.model(materialization="REPLACE")
def fare_sum(
    tcosts: Annotated[Table[WomenByClass], Model("f")],
) -> Table[TotalFares]:
    """The total fare of 1st and 2nd class women, in whole pounds."""
    # The contract wants Int64 and weir only widens: round up, then cast explicitly.
    return pl.DataFrame(tcosts).select(fare_total=pl.col("Fare").sum().ceil().cast(pl.Int64)).to_arrow()
