"""Listing 4 of "Not Your Usual Type(s)": the schemas of the Titanic DAG.

CabinCostAnalysis, omitted in print, is written out here; Cabin is nullable (see
../../README.md for every difference from print).
"""
from typing import Annotated

from weir import Doc, Float64, Int64, Required, String, TableSchema


class WomenByClass(TableSchema):
    """Schema for women passengers with 1st or 2nd class tickets."""
    pid: Annotated[Int64, Required, Doc('Unique passenger ID')]
    tclass: Annotated[Int64, Required, Doc('Ticket class, filtered to 1st or 2nd class only.')
    ]
    Fare: Annotated[Float64, Doc('Ticket cost (British pounds)')]


class CabinCostSource(TableSchema):
    """Schema for cabin costs used for analysis."""
    # Same annotations as WomenByClass['pid', 'tclass']
    PassengerId: Annotated[Int64, ...]
    Pclass: Annotated[Int64, ...]
    Fare: Annotated[Float64, Doc('Ticket cost (British pounds)')]
    Cabin: Annotated[String | None, Doc('Cabin number (C28 is on deck C)')]


class CabinCostAnalysis(TableSchema):
    """Cabin cost by deck for working-age adults."""  # Omitted for brevity in print
    pid: Annotated[Int64, CabinCostSource['PassengerId']]
    tclass: Annotated[Int64, CabinCostSource['Pclass']]
    Cabin: Annotated[String | None, CabinCostSource['Cabin']]
    cabin_level: Annotated[String | None, CabinCostSource['Cabin'], Doc('Deck: the first letter of the cabin')]
    Fare: Annotated[Float64, CabinCostSource['Fare']]
    mean_fare: Annotated[Float64, CabinCostSource['Fare'], Doc('Mean fare on the same deck')]


class ExpensiveWomenCabins(TableSchema):
    """Schema for expensive cabins reserved by working-age women."""
    # Lineage by referencing schema column (`Schema['col']`)
    pid: Annotated[Int64, WomenByClass['pid']]
    tclass: Annotated[Int64, WomenByClass['tclass']]
    Cabin: Annotated[String | None, CabinCostAnalysis['Cabin']]
    Fare: Annotated[Float64, WomenByClass['Fare'],
                    Doc('Cost of tickets that cost more than average (by deck).')
    ]
