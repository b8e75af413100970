"""DuckDB's iceberg extension reads weir's branches through `weir serve` (ATTACH ... (TYPE
iceberg, ENDPOINT ...)): each attached warehouse is a ref, and what it reads equals what
`weir query` reads at that ref. On a local lake and on one with its catalog on PostgreSQL
and its warehouse on the loopback S3 server (serve_support.SETTINGS), where DuckDB reads
the data files with an S3 secret of its own (the server vends no credentials by default).
"""
from __future__ import annotations

import glob
import importlib
import os

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog

from serve_support import SETTINGS, served_lake, weir_rows


def _ext(name: str) -> str:
    mod = importlib.import_module(f"duckdb_extension_{name}")
    found = glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", "v1.5.5", f"{name}.duckdb_extension"))
    assert found, f"the {name} extension of DuckDB 1.5.5 is missing"
    return found[0]


@pytest.fixture(scope="module", params=SETTINGS)
def served(request, tmp_path_factory):
    yield from served_lake(request, tmp_path_factory, request.param)


def test_duckdb_reads_branches_through_the_rest_catalog(served):
    import duckdb

    srv, tokens = served
    # Make dev differ from main: two rows appended through the catalog.
    t = load_catalog("w", type="rest", uri=srv.url, warehouse="dev", token=tokens["engine"]).load_table("default.titanic")
    rows = t.scan(limit=2).to_arrow()
    t.append(rows.set_column(0, rows.schema.field(0), pa.array([5001, 5002], pa.int64())))

    con = duckdb.connect()
    for e in ("httpfs", "avro", "iceberg"):
        con.execute(f"LOAD '{_ext(e)}'")
    con.execute(f"CREATE SECRET weir_token (TYPE iceberg, TOKEN '{tokens['reader']}')")
    if srv.s3 is not None:  # DuckDB's own AWS configuration for the bucket
        host = srv.s3.endpoint.removeprefix("http://")
        con.execute(f"CREATE SECRET (TYPE s3, KEY_ID '{srv.s3.access_key}', SECRET '{srv.s3.secret_key}', "
                    f"REGION 'us-east-1', ENDPOINT '{host}', URL_STYLE 'path', USE_SSL false)")
    for alias, ref in (("wdev", "dev"), ("wmain", "main")):
        con.execute(f"ATTACH '{ref}' AS {alias} (TYPE iceberg, ENDPOINT '{srv.url}', SECRET weir_token)")
    sql = "SELECT count(*) AS n, sum(PassengerId) AS s, count(Age) AS a FROM {}"
    for alias, ref in (("wdev", "dev"), ("wmain", "main")):
        got = con.execute(sql.format(f"{alias}.default.titanic")).fetchall()[0]
        want = weir_rows(srv.lake, sql.format("titanic"), ref)[0]
        assert got == (want["n"], want["s"], want["a"]), ref
    assert con.execute("SELECT count(*) FROM wdev.default.titanic").fetchall()[0][0] == 893
    assert con.execute("SELECT count(*) FROM wmain.default.titanic").fetchall()[0][0] == 891
    con.close()


def test_duckdb_reads_with_vended_credentials(served, monkeypatch):
    """With `weir serve --vend-credentials` DuckDB needs no S3 credentials of its own (no
    secret, none in its environment): the loadTable config carries the server's (an S3
    warehouse; a local one needs none)."""
    import duckdb

    from serve_support import start_server

    srv, tokens = served
    want = weir_rows(srv.lake, "SELECT count(*) AS n, sum(PassengerId) AS s FROM titanic", "main")[0]
    vend = start_server(srv.lake, "--vend-credentials")
    try:
        # DuckDB's httpfs falls back on these variables; the server already has its own.
        monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
        monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
        con = duckdb.connect()
        for e in ("httpfs", "avro", "iceberg"):
            con.execute(f"LOAD '{_ext(e)}'")
        con.execute(f"CREATE SECRET weir_token (TYPE iceberg, TOKEN '{tokens['reader']}')")
        con.execute(f"ATTACH 'main' AS wmain (TYPE iceberg, ENDPOINT '{vend.url}', SECRET weir_token)")
        got = con.execute("SELECT count(*), sum(PassengerId) FROM wmain.default.titanic").fetchall()[0]
        assert got == (want["n"], want["s"])
        con.close()
    finally:
        vend.stop()
