"""`weir serve` through pyiceberg's RestCatalog: reads at branches, tags and commits, an
append that becomes a weir commit, and appends the table's contract refuses.

One lake and one server per setting (titanic under its contract on main, branch dev,
tag v1); tests that write use dev or their own branch, so their order does not matter.
Every test runs on a local lake and on one with its catalog on PostgreSQL and its
warehouse on the loopback S3 server (serve_support.SETTINGS): pyiceberg then reads and
writes data files in S3 with the FileIO settings the server's config hands it and its
own credentials (the environment's).
"""
from __future__ import annotations

import json
import urllib.request

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import BadRequestError, ForbiddenError, NoSuchTableError
from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
from pyiceberg.typedef import Record

from conftest import weir, weir_json, weir_list
from serve_support import SETTINGS, lake_files, served_lake, start_server, weir_rows


@pytest.fixture(scope="module", params=SETTINGS)
def served(request, tmp_path_factory):
    yield from served_lake(request, tmp_path_factory, request.param)


def catalog(srv, token, warehouse):
    return load_catalog("weir", type="rest", uri=srv.url, warehouse=warehouse, token=token)


def by_id(rows):
    return sorted(rows, key=lambda r: r["PassengerId"])


def test_reads_each_ref_as_weir_does(served):
    srv, tokens = served
    head = weir_list("log", "-n", "1", lake=srv.lake)[0]["hash"]
    for ref in ("main", "dev", "v1", head[:12]):
        t = catalog(srv, tokens["engine"], ref).load_table("default.titanic")
        got = by_id(t.scan().to_arrow().to_pylist())
        want = by_id(weir_rows(srv.lake, "SELECT * FROM titanic", ref))
        assert len(got) == 891
        assert got == want, ref
        # The ref's snapshot is the table's main.
        assert t.metadata.current_snapshot_id == weir_json("describe", "titanic", "--ref", ref,
                                                           lake=srv.lake)["snapshot_id"]
        assert t.metadata.properties["gc.enabled"] == "false"


def test_append_on_dev_is_one_weir_commit(served):
    srv, tokens = served
    weir("branch", "create", "append1", lake=srv.lake)
    before_main = weir_list("log", "-n", "1", lake=srv.lake)[0]["hash"]
    t = catalog(srv, tokens["engine"], "append1").load_table("default.titanic")
    new = t.scan(limit=3).to_arrow()
    new = new.set_column(0, new.schema.field(0), pa.array([1001, 1002, 1003], pa.int64()))
    t.append(new)
    log = weir_list("log", "append1", "-n", "1", lake=srv.lake)[0]
    assert log["author"] == "token:engine"
    assert [c["table"] for c in log["tables_changed"]] == ["default.titanic"]
    rows = weir_rows(srv.lake, "SELECT count(*) AS n, max(PassengerId) AS m FROM titanic", "append1")
    assert rows == [{"n": 894, "m": 1003}]
    # main did not move; the new rows read back through pyiceberg too.
    assert weir_list("log", "-n", "1", lake=srv.lake)[0]["hash"] == before_main
    assert catalog(srv, tokens["engine"], "append1").load_table("default.titanic").scan().to_arrow().num_rows == 894
    # merged, main has them
    r = weir("merge", "append1", "--into", "main", lake=srv.lake)
    assert r.returncode == 0, r.stderr
    assert catalog(srv, tokens["engine"], "main").load_table("default.titanic").scan().to_arrow().num_rows == 894
    # then the next test's branches see it; reset main for them
    r = weir("revert", "titanic", "--to", before_main, lake=srv.lake)
    assert r.returncode == 0, r.stderr


def _external_file(table, name: str, column: str, values) -> tuple[str, int]:
    """A Parquet file in the table's data folder (local or S3) written through the table's
    FileIO, as an engine would; its URI and size."""
    rows = table.scan(limit=len(values)).to_arrow()
    d = rows.to_pydict()
    d[column] = values
    schema = pa.schema([pa.field(f.name, f.type, nullable=True) for f in rows.schema])
    path = f"{table.location()}/data/{name}"
    with table.io.new_output(path).create() as f:
        pq.write_table(pa.Table.from_pydict(d, schema=schema), f)
    return path, len(table.io.new_input(path))


@pytest.mark.parametrize("with_stats", [True, False], ids=["from-statistics", "by-reading"])
def test_nulls_in_required_column_are_refused(served, with_stats):
    srv, tokens = served
    branch = f"nulls-{with_stats}"
    weir("branch", "create", branch, lake=srv.lake)
    head = weir_list("log", branch, "-n", "1", lake=srv.lake)[0]["hash"]
    t = catalog(srv, tokens["engine"], branch).load_table("default.titanic")
    path, size = _external_file(t, f"nulls-{with_stats}.parquet", "Name", [None, "x"])
    # pyiceberg itself refuses nulls for a required field; an engine that does not (or a
    # file added by reference) is what the server must stop: a data file whose manifest
    # statistics say 1 null in Name, or that has no statistics and must be read.
    df = DataFile.from_args(content=DataFileContent.DATA, file_path=path, file_format=FileFormat.PARQUET,
                            partition=Record(), record_count=2, file_size_in_bytes=size,
                            null_value_counts={4: 1} if with_stats else None)
    df.spec_id = 0
    with pytest.raises(BadRequestError) as e:
        with t.transaction() as tx:
            with tx.update_snapshot().fast_append() as fa:
                fa.append_data_file(df)
    msg = str(e.value)
    assert "ValidationException" in msg and 'column "Name"' in msg and "required" in msg
    assert weir_list("log", branch, "-n", "1", lake=srv.lake)[0]["hash"] == head
    assert weir_rows(srv.lake, "SELECT count(*) AS n FROM titanic", branch) == [{"n": 891}]


def test_range_and_enum_rules_are_refused(served):
    srv, tokens = served
    weir("branch", "create", "rules", lake=srv.lake)
    t = catalog(srv, tokens["engine"], "rules").load_table("default.titanic")
    rows = t.scan(limit=2).to_arrow()
    too_old = rows.set_column(rows.schema.get_field_index("Age"), rows.schema.field("Age"),
                              pa.array([150.0, 3.0], pa.float64()))
    with pytest.raises(BadRequestError, match=r'column "Age": values above the maximum 100'):
        t.append(too_old)
    bad_sex = rows.set_column(rows.schema.get_field_index("Sex"), rows.schema.field("Sex"),
                              pa.array(["x", "male"], pa.string()))
    with pytest.raises(BadRequestError, match=r'column "Sex" has 1 value outside the enum'):
        t.append(bad_sex)
    assert weir_rows(srv.lake, "SELECT count(*) AS n FROM titanic", "rules") == [{"n": 891}]


def test_tags_and_commits_are_read_only(served):
    srv, tokens = served
    head = weir_list("log", "-n", "1", lake=srv.lake)[0]["hash"]
    for ref in ("v1", head):
        t = catalog(srv, tokens["engine"], ref).load_table("default.titanic")
        with pytest.raises(ForbiddenError, match="read-only"):
            t.append(t.scan(limit=1).to_arrow())


def test_expire_snapshots_is_refused_and_deletes_nothing(served):
    srv, tokens = served
    before = lake_files(srv.lake, srv.s3)
    t = catalog(srv, tokens["engine"], "dev").load_table("default.titanic")
    sid = t.metadata.current_snapshot_id
    from pyiceberg.table.update import RemoveSnapshotsUpdate
    with pytest.raises(ForbiddenError, match="weir gc"):
        srv_cat = catalog(srv, tokens["engine"], "dev")
        srv_cat.commit_table(t, (), (RemoveSnapshotsUpdate(snapshot_ids=[sid]),))
    assert lake_files(srv.lake, srv.s3) >= before


def test_create_list_drop_rename_through_the_catalog(served):
    srv, tokens = served
    weir("branch", "create", "ddl", lake=srv.lake)
    cat = catalog(srv, tokens["engine"], "ddl")
    cat.create_namespace("sales", {"owner": "ops"})
    assert ("sales",) in cat.list_namespaces()
    # a namespace is versioned: a commit on ddl, absent on main until merged
    assert ("sales",) not in catalog(srv, tokens["engine"], "main").list_namespaces()
    assert weir("log", "ddl", "-n", "1", lake=srv.lake).stdout.count("namespace sales (added)") == 1
    cat.update_namespace_properties("sales", updates={"tier": "gold"})
    assert cat.load_namespace_properties("sales") == {"owner": "ops", "tier": "gold"}
    assert "set properties of namespace sales" in weir("log", "ddl", "-n", "1", lake=srv.lake).stdout
    head = weir("log", "ddl", "-n", "1", lake=srv.lake).stdout
    cat.update_namespace_properties("sales", updates={"tier": "gold"})  # as they are: no commit
    assert weir("log", "ddl", "-n", "1", lake=srv.lake).stdout == head
    # a tag is read-only: no namespace is created there
    weir("tag", "create", "ddl-v1", "--ref", "ddl", lake=srv.lake)
    with pytest.raises(ForbiddenError, match="read-only"):
        catalog(srv, tokens["engine"], "ddl-v1").create_namespace("other")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t = cat.create_table("sales.orders", schema=schema)
    t.append(pa.table({"id": [1, 2], "v": ["a", None]}, schema=schema))
    assert weir_rows(srv.lake, "SELECT count(*) AS n FROM sales.orders", "ddl") == [{"n": 2}]
    assert ("sales", "orders") in cat.list_tables("sales")
    cat.rename_table("sales.orders", "sales.orders2")
    assert cat.load_table("sales.orders2").scan().to_arrow().num_rows == 2
    uuid = cat.load_table("sales.orders2").metadata.table_uuid
    assert uuid == t.metadata.table_uuid  # identity kept across the rename
    cat.drop_table("sales.orders2")
    with pytest.raises(NoSuchTableError):
        cat.load_table("sales.orders2")
    # the table is gone from ddl only: main never had it, and ddl's history keeps it
    assert weir("tables", "--ref", "ddl~1", lake=srv.lake).stdout.count("orders2") == 1
    cat.drop_namespace("sales")


def _get(srv, token, path):
    req = urllib.request.Request(srv.url + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())


def test_the_config_gives_engines_the_warehouse_never_credentials(served):
    srv, tokens = served
    conf = _get(srv, tokens["engine"], "/v1/config?warehouse=dev")
    load = _get(srv, tokens["engine"], "/v1/dev/namespaces/default/tables/titanic")
    if srv.s3 is None:  # a local warehouse needs nothing
        assert conf["defaults"] == {} and load["config"] == {}
        return
    want = {"s3.endpoint": srv.s3.endpoint, "s3.path-style-access": "true", "s3.region": "us-east-1",
            "client.region": "us-east-1"}
    assert conf["defaults"] == want
    assert load["config"] == want  # no s3.access-key-id: not started with --vend-credentials
    assert load["metadata-location"].startswith("s3://")
    # pyiceberg's FileIO is configured from them.
    t = catalog(srv, tokens["engine"], "dev").load_table("default.titanic")
    assert t.io.properties["s3.endpoint"] == srv.s3.endpoint


def test_vended_credentials_only_on_opt_in(served, monkeypatch):
    srv, tokens = served
    vend = start_server(srv.lake, "--vend-credentials")
    try:
        if srv.s3 is None:  # a local warehouse has nothing to vend
            assert _get(vend, tokens["reader"], "/v1/main/namespaces/default/tables/titanic")["config"] == {}
            return
        load = _get(vend, tokens["reader"], "/v1/main/namespaces/default/tables/titanic")
        assert load["config"]["s3.access-key-id"] == srv.s3.access_key
        assert load["config"]["s3.secret-access-key"] == srv.s3.secret_key
        # GET /v1/config never carries them (they are not scoped to a table).
        assert "s3.access-key-id" not in _get(vend, tokens["reader"], "/v1/config?warehouse=main")["defaults"]
        # An engine without credentials of its own reads with the vended ones.
        monkeypatch.delenv("AWS_ACCESS_KEY_ID")
        monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
        t = catalog(vend, tokens["reader"], "main").load_table("default.titanic")
        assert t.scan().to_arrow().num_rows == 891
    finally:
        vend.stop()


def test_namespaces_with_different_properties_conflict_on_merge(served):
    """Namespace properties are versioned content: the same namespace created on two
    branches with different properties is a merge conflict naming the namespace."""
    srv, tokens = served
    for b in ("np1", "np2"):
        weir("branch", "create", b, lake=srv.lake)
    catalog(srv, tokens["engine"], "np1").create_namespace("crm", {"owner": "a"})
    catalog(srv, tokens["engine"], "np2").create_namespace("crm", {"owner": "b"})
    assert weir("merge", "np1", "--into", "main", lake=srv.lake).returncode == 0
    assert catalog(srv, tokens["engine"], "main").load_namespace_properties("crm") == {"owner": "a"}
    r = weir("merge", "np2", "--into", "main", lake=srv.lake)
    assert r.returncode != 0
    assert "namespace crm" in r.stderr and "different properties" in r.stderr
