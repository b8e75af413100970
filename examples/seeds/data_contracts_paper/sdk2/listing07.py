"""Listing 7 of "Not Your Usual Type(s)": node h with types. The body is Listing 3's
("Function body remains unchanged")."""
from typing import Annotated

import polars as pl

import weir
from listing04 import CabinCostAnalysis, ExpensiveWomenCabins, WomenByClass
from weir import Model, Table


@weir.python('3.11', pip={'polars': '1.*'})
@weir.model(materialization_strategy='REPLACE')
def h(
    f_data: Annotated[Table[WomenByClass], Model('f')],
    g_data: Annotated[Table[CabinCostAnalysis], Model('g')],
) -> Table[ExpensiveWomenCabins]:
    """Expensive cabins reserved by/for working-age women."""
    # Function body remains unchanged
    return (pl.DataFrame(f_data)
            .join(pl.DataFrame(g_data), on=('pid', 'tclass'))
            .filter((pl.col('Fare') > pl.col('mean_fare')))
            .select('pid', 'tclass', 'Fare', 'Cabin')
            .to_arrow())
