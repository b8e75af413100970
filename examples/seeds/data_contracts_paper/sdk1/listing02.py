# pyright: basic, reportArgumentType=false
# Listing 2 of "Not Your Usual Type(s)": node g in the original SDK. Its inputs are
# parameter defaults, which a type checker takes for the parameters' types (a Model is
# no DataFrame source), hence the pyright line above: the gap the typed SDK of Listings
# 4-10 closes. See ../../README.md.
import polars as pl

import weir


@weir.python('3.11', pip={'polars': '1.*'})
@weir.model(materialization_strategy='REPLACE')
def g(
    adult_lodgings=weir.Model(
        'titanic',
        columns=['PassengerId', 'Pclass', 'Fare', 'Cabin'],
        filter='Age >= 18 AND Age <= 65',
    ),
):
    return (
        pl.DataFrame(adult_lodgings)
        .with_columns(cabin_level=(pl.col('Cabin').str.slice(0, 1)))
        .with_columns(mean_fare=(pl.col('Fare').mean().over('cabin_level')))
        .select(pl.col('PassengerId').alias('pid'), pl.col('Pclass').alias('tclass'),
                'Cabin', 'cabin_level', 'Fare', 'mean_fare')
        .to_arrow()
    )
