"""Other engines read weir's tables from their metadata file alone."""
from __future__ import annotations

import glob
import os

import pyarrow as pa
import pyarrow.csv as pcsv
import pytest

from conftest import TITANIC, weir, weir_json

pytestmark = pytest.mark.cli


def _ext(name: str) -> str:
    import importlib

    mod = importlib.import_module(f"duckdb_extension_{name}")
    found = glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", "*", f"{name}.duckdb_extension"))
    assert found, f"the {name} extension file is missing"
    return found[0]


def _source() -> pa.Table:
    return pcsv.read_csv(TITANIC)


def test_pyiceberg_reads_the_same_rows_and_schema(titanic_lake):
    from pyiceberg.table import StaticTable

    d = weir_json("describe", "titanic", lake=titanic_lake)
    t = StaticTable.from_metadata(d["metadata_location"])
    got = t.scan().to_arrow()
    src = _source()
    assert got.num_rows == 891
    assert got.column_names == src.column_names
    assert got.sort_by("PassengerId").column("Name").to_pylist() == src.sort_by("PassengerId").column("Name").to_pylist()
    assert got.column("Age").null_count == 177
    fields = {f.name: f for f in t.schema().fields}
    assert fields["PassengerId"].required is True and fields["Age"].required is False
    assert [f.field_id for f in t.schema().fields] == list(range(1, 13))
    assert str(fields["Fare"].field_type) == "double"


def test_duckdb_iceberg_extension_reads_the_same_rows(titanic_lake):
    import duckdb

    d = weir_json("describe", "titanic", lake=titanic_lake)
    con = duckdb.connect()
    con.execute(f"LOAD '{_ext('avro')}'")
    con.execute(f"LOAD '{_ext('iceberg')}'")
    n, s = con.execute(f"SELECT count(*), sum(PassengerId) FROM iceberg_scan('{d['metadata_location']}')").fetchone()
    assert n == 891 and s == sum(range(1, 892))
    names = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM iceberg_scan('{d['metadata_location']}')").fetchall()]
    assert names == _source().column_names


def test_old_versions_stay_readable_by_other_engines(titanic_lake, tmp_path):
    from pyiceberg.table import StaticTable

    before = weir_json("describe", "titanic", lake=titanic_lake)["metadata_location"]
    r = weir("import", TITANIC, "--table", "titanic", "--mode", "append", lake=titanic_lake)
    assert r.returncode == 0, r.stderr
    after = weir_json("describe", "titanic", lake=titanic_lake)["metadata_location"]
    assert before != after
    assert StaticTable.from_metadata(before).scan().to_arrow().num_rows == 891
    assert StaticTable.from_metadata(after).scan().to_arrow().num_rows == 1782
