"""Listing 6 of "Not Your Usual Type(s)": node g with types. The body is Listing 2's
("Function body remains unchanged")."""
from typing import Annotated

import polars as pl

import weir
from listing04 import CabinCostAnalysis, CabinCostSource
from weir import Filter, Model, Table


@weir.python('3.11', pip={'polars': '1.*'})
@weir.model(materialization_strategy='REPLACE')
def g(
    adult_lodgings: Annotated[
        Table[CabinCostSource], Filter(Model('titanic'), 'Age >= 18 AND Age <= 65')
    ],
) -> Table[CabinCostAnalysis]:
    """Analyze the cabin cost by level for working-age adults."""
    # Function body remains unchanged
    return (
        pl.DataFrame(adult_lodgings)
        .with_columns(cabin_level=(pl.col('Cabin').str.slice(0, 1)))
        .with_columns(mean_fare=(pl.col('Fare').mean().over('cabin_level')))
        .select(pl.col('PassengerId').alias('pid'), pl.col('Pclass').alias('tclass'),
                'Cabin', 'cabin_level', 'Fare', 'mean_fare')
        .to_arrow()
    )
