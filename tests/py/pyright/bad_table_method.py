"""pyright fixture: a method pyarrow.Table does not have, called on a Table[S] input.

tests/py/test_sdk_pyright.py asserts pyright reports exactly the error on the marked
line (``to_pandsa`` is a typo of ``to_pandas``), and nothing else.
"""
from typing import Annotated

import weir
from weir import Float64, Int64, Model, Table, TableSchema


class Passengers(TableSchema):
    """Passengers with their fare."""

    PassengerId: Int64
    Fare: Float64


@weir.model()
def fares(
    passengers: Annotated[Table[Passengers], Model("titanic")],
) -> Table[Passengers]:
    """Fares of every passenger."""
    passengers.to_pandsa()  # BAD: pyarrow.Table has no attribute to_pandsa
    return passengers
