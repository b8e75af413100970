"""Listing 1 of "GitLake: Git-for-data for the agentic lakehouse": a minimal DAG of two
Python transformations, source -> parent -> child.

In print, a parameter's annotation is its schema and its default the upstream node
(``df: Parent = parent_table``); in weir the input is ``Annotated[Table[Schema],
Model("table")]`` and the return annotation is the output's schema. The tables are named
``parent`` and ``child``, the names Listing 2 reads.
"""
from typing import Annotated

import weir
from weir import Int64, Model, Table, TableSchema


class Source(TableSchema):
    """The raw table the pipeline starts from."""
    _S: Int64


class Parent(TableSchema):
    """What parent_table produces."""
    _S: Int64


class Child(TableSchema):
    """What child_table produces."""
    _S: Int64


@weir.model(name="parent")
def parent_table(df: Annotated[Table[Source], Model("source")]) -> Table[Parent]:
    # return a table fulfilling the Parent schema
    table = df
    return table


@weir.model(name="child")
def child_table(df: Annotated[Table[Parent], Model("parent")]) -> Table[Child]:
    # more transformation code here...
    table = df
    return table
