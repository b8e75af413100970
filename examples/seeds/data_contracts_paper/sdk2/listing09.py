"""Listing 9 of "Not Your Usual Type(s)": a node whose Float64 result is cast to its Int64
output. weir applies only widening casts unless a column asks for an exact one:
TableField(cast="exact") casts 11646.0 to 11646, and fails on a total that is not whole."""
from typing import Annotated

import polars as pl

import weir
from listing04 import WomenByClass
from weir import Doc, Int64, Model, Required, Table, TableField, TableSchema


class TotalFares(TableSchema):
    """Simple schema for ticket fare data."""
    fare_total: Annotated[Int64, Required, TableField(cast="exact"),
                          Doc('Total ticket prices, rounded up to the nearest British pound.')
    ]


@weir.python('3.11', pip={'polars': '1.*'})
@weir.model(materialization_strategy='REPLACE')
def fare_sum(
    tcosts: Annotated[Table[WomenByClass], Model('f')],
) -> Table[TotalFares]:
    """Compute the total fare for first- and second-class women passengers."""
    # Function body remains unchanged
    return (pl.DataFrame(tcosts)
            .select(fare_total=pl.col('Fare').sum().ceil())
            .to_arrow())
