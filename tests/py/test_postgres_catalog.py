"""`weir init --catalog postgresql://...`: the lake records the URI without a password,
connects by libpq's conventions, refuses a second catalog in one schema, and shares one
lake between processes that never see each other's disk state but the warehouse.

These tests need the PostgreSQL server of a WEIR_TEST_CATALOG=postgresql session (make
test runs the suite once that way); on the SQLite pass they start their own server, so
they run (and are never skipped) in both passes.
"""
from __future__ import annotations

import json
import os
import pathlib

import pytest

import weir
from conftest import PG, TITANIC, count, new_catalog, weir as cli, weir_list

pytestmark = pytest.mark.cli


@pytest.fixture(scope="module")
def catalog_base():
    """A base URI (database weir) on a PostgreSQL server: the session's, or one of this module's."""
    if PG:
        uri = new_catalog()
        yield uri.split("?")[0]
        return
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    import pgserver

    srv = pgserver.Server.start()
    old = os.environ.get("PGPASSFILE")
    os.environ.update(srv.env())
    try:
        yield srv.uri
    finally:
        srv.stop()
        if old is None:
            os.environ.pop("PGPASSFILE", None)
        else:
            os.environ["PGPASSFILE"] = old


_n = iter(range(1, 10**6))


def _uri(base: str) -> str:
    return f"{base}?schema=p{os.getpid()}_{next(_n)}"


def test_init_records_the_uri_and_opens_with_libpq_environment(tmp_path, catalog_base):
    uri = _uri(catalog_base)
    r = cli("init", tmp_path / "lake", "--catalog", uri)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "lake" / "lake.json").read_text())
    assert doc["catalog"] == uri
    assert not (tmp_path / "lake" / "catalog.db").exists()
    assert cli("import", TITANIC, "--table", "t", lake=tmp_path / "lake").returncode == 0
    assert count(tmp_path / "lake", "SELECT count(*) FROM t") == 891
    # The password comes from PGPASSFILE: without it the lake cannot be opened, with a
    # message naming the server and where passwords are read from.
    r = cli("tables", lake=tmp_path / "lake", env={"PGPASSFILE": str(tmp_path / "none")})
    assert r.returncode == 1
    assert "cannot log in" in r.stderr and ".pgpass" in r.stderr and "127.0.0.1" in r.stderr


def test_a_password_in_the_uri_is_refused_and_nothing_is_written(tmp_path, catalog_base):
    with_pw = catalog_base.replace("postgresql://weir@", "postgresql://weir:hunter2@")
    r = cli("init", tmp_path / "lake", "--catalog", _uri(with_pw))
    assert r.returncode == 2, r.stderr
    assert "password" in r.stderr and "pgpass" in r.stderr
    assert "hunter2" not in r.stderr
    assert not (tmp_path / "lake").exists()
    r = cli("init", tmp_path / "lake", "--catalog", _uri(catalog_base) + "&password=hunter2")
    assert r.returncode == 2 and "hunter2" not in r.stderr
    with pytest.raises(weir.InvalidArgument, match="password"):
        weir.Client.init(tmp_path / "sdk", catalog=_uri(with_pw))


def test_a_schema_that_holds_a_catalog_is_refused(tmp_path, catalog_base):
    uri = _uri(catalog_base)
    assert cli("init", tmp_path / "a", "--catalog", uri).returncode == 0
    r = cli("init", tmp_path / "b", "--catalog", uri)
    assert r.returncode == 1
    assert "already exists" in r.stderr
    assert not (tmp_path / "b").exists()
    with pytest.raises(weir.AlreadyExists):
        weir.Client.init(tmp_path / "c", catalog=uri)


def test_missing_database_and_unreachable_server_are_clear(tmp_path, catalog_base):
    r = cli("init", tmp_path / "a", "--catalog", catalog_base.rsplit("/", 1)[0] + "/nodb")
    assert r.returncode == 1 and "nodb" in r.stderr and "createdb" in r.stderr
    r = cli("init", tmp_path / "b", "--catalog", "postgresql://weir@127.0.0.1:1/weir")
    assert r.returncode == 1 and "cannot connect" in r.stderr and "127.0.0.1:1" in r.stderr
    r = cli("init", tmp_path / "c", "--catalog", "mysql://x/y")
    assert r.returncode == 2 and "postgresql://" in r.stderr


def test_sdk_init_with_catalog_keyword(tmp_path, catalog_base):
    uri = _uri(catalog_base)
    with weir.Client.init(tmp_path / "lake", catalog=uri) as c:
        c.create_branch("dev")
    with weir.Client(tmp_path / "lake") as c:
        assert sorted(b.name for b in c.get_branches()) == ["dev", "main"]
    with pytest.raises(TypeError):
        weir.Client.init(tmp_path / "x", catalog=1)  # type: ignore[arg-type]


def test_two_lakes_share_a_database_one_schema_each(tmp_path, catalog_base):
    a, b = _uri(catalog_base), _uri(catalog_base)
    assert cli("init", tmp_path / "a", "--catalog", a).returncode == 0
    assert cli("init", tmp_path / "b", "--catalog", b).returncode == 0
    assert cli("import", TITANIC, "--table", "t", lake=tmp_path / "a").returncode == 0
    assert [t["table"] for t in weir_list("tables", lake=tmp_path / "a")] == ["default.t"]
    assert weir_list("tables", lake=tmp_path / "b") == []
