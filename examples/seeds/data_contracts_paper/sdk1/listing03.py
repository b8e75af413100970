# pyright: basic, reportArgumentType=false
# Listing 3 of "Not Your Usual Type(s)": node h in the original SDK. Its inputs are
# parameter defaults, which a type checker takes for the parameters' types (a Model is
# no DataFrame source), hence the pyright line above: the gap the typed SDK of Listings
# 4-10 closes. See ../../README.md.
import polars as pl

import weir


@weir.python('3.11', pip={'polars': '1.*'})
@weir.model(materialization_strategy='REPLACE')
def h(f_data=weir.Model('f', columns=['pid', 'tclass']), g_data=weir.Model('g')):
    return (pl.DataFrame(f_data)
            .join(pl.DataFrame(g_data), on=('pid', 'tclass'))
            .filter((pl.col('Fare') > pl.col('mean_fare')))
            .select('pid', 'tclass', 'Fare', 'Cabin')
            .to_arrow())
