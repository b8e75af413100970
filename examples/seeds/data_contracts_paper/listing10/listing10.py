"""Listing 10 of "Not Your Usual Type(s)": WomenByClass with an enum, checked on the Arrow
data of every write. Fare, not printed in the listing, is Listing 4's."""
from typing import Annotated

from weir import Doc, Enum, Float64, Int64, Required, TableSchema


class WomenByClass(TableSchema):
    """Schema for women passengers with 1st or 2nd class tickets."""
    pid: Annotated[Int64, Required, Doc('Unique passenger ID')]
    tclass: Annotated[Int64, Required, Enum('tclass', names=[('1st', 1), ('2nd', 2)]),
                      Doc('Ticket class, filtered to 1st or 2nd class only.'),
    ]
    Fare: Annotated[Float64, Doc('Ticket cost (British pounds)')]
