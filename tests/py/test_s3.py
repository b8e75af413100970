"""Lakes whose warehouse is in object storage (docs/storage.md), against moto's S3 server
on loopback with signatures enforced (tests/py/s3_server.py): init, every import mode,
queries, branches, merges, reverts, time travel, a pipeline run, other engines reading
the tables at s3://, and the errors people meet (bad credentials, a missing bucket, a
conditional put refused, a kill in the middle of a commit)."""
from __future__ import annotations

import glob
import importlib
import json
import os
import uuid

import pytest

from conftest import BUILD, ROOT, TITANIC, TITANIC_SCHEMA, build_path, weir, weir_json, weir_list

pytestmark = pytest.mark.cli

EXAMPLE = ROOT / "examples" / "titanic" / "project"


@pytest.fixture
def s3(s3_server):
    return s3_server


@pytest.fixture
def prefix(s3) -> str:
    """A fresh warehouse prefix in the test bucket."""
    return f"s3://{s3.bucket}/t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def s3_lake(tmp_path, s3, prefix):
    path = tmp_path / "lake"
    r = weir("init", path, "--warehouse", prefix, env=s3.env())
    assert r.returncode == 0, r.stderr
    return path


def w(s3, *args, lake=None, **extra_env):
    return weir(*args, lake=lake, env=s3.env(**extra_env))


def wj(s3, *args, lake=None):
    return weir_json(*args, lake=lake, env=s3.env())


def wl(s3, *args, lake=None):
    return weir_list(*args, lake=lake, env=s3.env())


def count(s3, lake, sql, ref=None):
    args = ["query", sql, "--format", "json"] + (["--ref", ref] if ref else [])
    r = w(s3, *args, lake=lake)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    return list(rows[0].values())[0]


def test_init_records_the_warehouse_and_never_credentials(s3, prefix, s3_lake):
    doc = json.loads((s3_lake / "lake.json").read_text())
    assert doc["warehouse"] == prefix and doc["conditional_put"] is True
    text = (s3_lake / "lake.json").read_text() + (s3_lake / "catalog.db").read_bytes().decode("latin-1")
    assert s3.secret_key not in text and s3.access_key not in text
    assert not (s3_lake / "warehouse").exists()
    # Nothing of the probe is left behind.
    assert s3.keys(prefix.split("/", 3)[3] + "/") == []
    # A second lake on the same prefix is refused once the first wrote there.
    assert w(s3, "import", TITANIC, "--table", "titanic", lake=s3_lake).returncode == 0
    r = w(s3, "init", s3_lake.parent / "other", "--warehouse", prefix)
    assert r.returncode == 1 and "already holds" in r.stderr


def test_every_import_mode_and_queries(s3, prefix, s3_lake):
    assert w(s3, "import", TITANIC, "--table", "titanic", lake=s3_lake).returncode == 0
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic") == 891
    r = w(s3, "import", TITANIC, "--table", "titanic", "--mode", "append", lake=s3_lake)
    assert r.returncode == 0, r.stderr
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic") == 1782
    sub = s3_lake.parent / "few.csv"
    sub.write_text("PassengerId,Name\n1,a\n2,b\n")
    r = w(s3, "import", sub, "--table", "titanic", "--mode", "replace", lake=s3_lake)
    assert r.returncode == 0, r.stderr
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic") == 2
    r = w(s3, "import", sub, "--table", "titanic", lake=s3_lake)  # create: exists
    assert r.returncode == 1 and "already exists" in r.stderr
    # Everything is in the bucket under the prefix, with full s3:// locations.
    (t,) = wl(s3, "tables", lake=s3_lake)
    assert t["metadata_location"].startswith(prefix + "/default/titanic/metadata/")
    key_prefix = prefix.split("/", 3)[3]
    keys = s3.keys(key_prefix + "/")
    assert any(k.endswith(".parquet") for k in keys) and sum(k.endswith(".metadata.json") for k in keys) == 3
    body = s3.client().get_object(Bucket=s3.bucket, Key=t["metadata_location"].split("/", 3)[3])["Body"].read()
    meta = json.loads(body)
    assert meta["location"] == prefix + "/default/titanic"
    assert all(s["manifest-list"].startswith(prefix + "/") for s in meta["snapshots"])
    assert all(e["metadata-file"].startswith(prefix + "/") for e in meta["metadata-log"])


def test_branch_merge_revert_and_time_travel(s3, s3_lake):
    assert w(s3, "import", TITANIC, "--table", "titanic", lake=s3_lake).returncode == 0
    first = wj(s3, "show", "main", lake=s3_lake)["hash"]
    assert w(s3, "branch", "create", "dev", lake=s3_lake).returncode == 0
    r = w(s3, "import", TITANIC, "--table", "titanic", "--mode", "append", "--branch", "dev", lake=s3_lake)
    assert r.returncode == 0, r.stderr
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic") == 891
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic", ref="dev") == 1782
    r = w(s3, "merge", "dev", "--into", "main", lake=s3_lake)
    assert r.returncode == 0, r.stderr
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic") == 1782
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic", ref=first) == 891  # time travel
    r = w(s3, "revert", "titanic", "--to", first, lake=s3_lake)
    assert r.returncode == 0, r.stderr
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic") == 891


def test_sdk_init_with_a_warehouse(s3, prefix, tmp_path, monkeypatch):
    import pyarrow as pa

    import weir as sdk

    for k, v in s3.env().items():
        monkeypatch.setenv(k, v)
    with sdk.Client.init(tmp_path / "sdk", warehouse=prefix) as c:
        assert c.warehouse == prefix
        c.import_data("t", pa.table({"a": [1, 2, 3]}))
        c.import_data("t", pa.table({"a": [4]}), mode="append")
        assert sorted(c.query("SELECT a FROM t").column("a").to_pylist()) == [1, 2, 3, 4]
        assert c.get_table("t").metadata_location.startswith(prefix + "/")
    with sdk.Client(tmp_path / "sdk") as c:
        assert c.warehouse == prefix
    with pytest.raises(TypeError):
        sdk.Client.init(tmp_path / "x", prefix)  # type: ignore[misc]  # keyword-only


def test_a_pipeline_runs_on_an_s3_lake(s3, s3_lake):
    # With the columns the example's models require declared so (TITANIC_SCHEMA).
    assert w(s3, "import", TITANIC, "--table", "titanic", "--contract", TITANIC_SCHEMA, lake=s3_lake).returncode == 0
    r = w(s3, "run", EXAMPLE, lake=s3_lake)
    assert r.returncode == 0, r.stderr
    tables = {t["table"]: t["record_count"] for t in wl(s3, "tables", lake=s3_lake)}
    assert tables == {"default.titanic": 891, "default.f": 170, "default.g": 593, "default.h": 80,
                      "default.fare_sum": 1}
    assert count(s3, s3_lake, "SELECT fare_total FROM fare_sum") == 11646


def _duckdb_with(s3):
    import duckdb

    con = duckdb.connect()
    for name in ("httpfs", "avro", "iceberg"):
        mod = importlib.import_module(f"duckdb_extension_{name}")
        (ext,) = glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", "*", f"{name}.duckdb_extension"))
        con.execute(f"LOAD '{ext}'")
    host = s3.endpoint.removeprefix("http://")
    con.execute(f"CREATE SECRET (TYPE s3, KEY_ID '{s3.access_key}', SECRET '{s3.secret_key}', REGION 'us-east-1', "
                f"ENDPOINT '{host}', URL_STYLE 'path', USE_SSL false)")
    return con


def test_pyiceberg_and_duckdb_read_the_tables_at_s3(s3, s3_lake):
    from pyiceberg.table import StaticTable

    assert w(s3, "import", TITANIC, "--table", "titanic", lake=s3_lake).returncode == 0
    assert w(s3, "import", TITANIC, "--table", "titanic", "--mode", "append", lake=s3_lake).returncode == 0
    meta = wl(s3, "tables", lake=s3_lake)[0]["metadata_location"]
    t = StaticTable.from_metadata(meta, properties={
        "s3.endpoint": s3.endpoint, "s3.access-key-id": s3.access_key, "s3.secret-access-key": s3.secret_key,
        "s3.region": "us-east-1"})
    arrow = t.scan().to_arrow()
    assert arrow.num_rows == 1782
    assert sum(arrow.column("PassengerId").to_pylist()) == 2 * 891 * 892 // 2
    con = _duckdb_with(s3)
    assert con.execute(f"SELECT count(*), sum(PassengerId) FROM iceberg_scan('{meta}')").fetchone() == (1782, 891 * 892)


def test_bad_credentials_are_a_clear_error(s3, prefix, tmp_path, s3_lake):
    r = w(s3, "init", tmp_path / "bad", "--warehouse", prefix + "-bad", AWS_SECRET_ACCESS_KEY="wrong")
    assert r.returncode == 1
    assert "access denied" in r.stderr and "SignatureDoesNotMatch" in r.stderr and s3.bucket in r.stderr
    assert "AWS_ACCESS_KEY_ID" in r.stderr  # says where the credentials came from
    assert not (tmp_path / "bad" / "catalog.db").exists()
    # An existing lake opened with bad credentials fails on its first object, naming it.
    assert w(s3, "import", TITANIC, "--table", "titanic", lake=s3_lake).returncode == 0
    r = w(s3, "query", "SELECT count(*) FROM titanic", lake=s3_lake, AWS_SECRET_ACCESS_KEY="wrong")
    assert r.returncode == 1 and "access denied" in r.stderr and ".metadata.json" in r.stderr
    # No credentials at all: says where it looked.
    env = {k: v for k, v in s3.env().items() if not k.startswith("AWS_ACCESS") and not k.startswith("AWS_SECRET")}
    r = weir("query", "SELECT 1 FROM titanic", lake=s3_lake,
             env={**env, "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""})
    assert r.returncode == 1 and "no S3 credentials" in r.stderr and "/nonexistent/credentials" in r.stderr


def test_credentials_from_a_profile_file(s3, prefix, tmp_path):
    creds = tmp_path / "credentials"
    creds.write_text(f"[other]\naws_access_key_id = nope\naws_secret_access_key = nope\n"
                     f"[lake]\naws_access_key_id = {s3.access_key}\naws_secret_access_key = {s3.secret_key}\n")
    config = tmp_path / "config"
    config.write_text(f"[profile lake]\nregion = us-east-1\nendpoint_url = {s3.endpoint}\n")
    env = {"AWS_PROFILE": "lake", "AWS_SHARED_CREDENTIALS_FILE": str(creds), "AWS_CONFIG_FILE": str(config),
           "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_ENDPOINT_URL": "", "AWS_REGION": ""}
    lake = tmp_path / "lake"
    r = weir("init", lake, "--warehouse", prefix, env=env)
    assert r.returncode == 0, r.stderr
    assert weir("import", TITANIC, "--table", "titanic", lake=lake, env=env).returncode == 0


def test_a_missing_bucket_is_a_clear_error(s3, tmp_path):
    r = w(s3, "init", tmp_path / "nb", "--warehouse", "s3://no-such-bucket-here/lake")
    assert r.returncode == 1
    assert 'the bucket "no-such-bucket-here" does not exist' in r.stderr
    r = w(s3, "init", tmp_path / "nb", "--warehouse", "s3://Bad_Name/lake")
    assert r.returncode == 2 and "not a valid S3 bucket name" in r.stderr
    r = w(s3, "init", tmp_path / "nb", "--warehouse", "gs://b/lake")
    assert r.returncode == 2 and "not gs://" in r.stderr


@pytest.mark.parametrize("conditional", [True, False], ids=["if-none-match", "check-first"])
def test_a_conditional_put_never_clobbers(s3, prefix, conditional):
    tool = [str(build_path("storage_tool_storage"))] + ([] if conditional else ["--no-conditional"])
    loc = prefix + "/metadata/00001-x.metadata.json"
    env = {**os.environ, **s3.env()}
    import subprocess

    first = subprocess.run(tool + ["put-exclusive", loc, "first"], capture_output=True, text=True, env=env)
    assert first.stdout.strip() == "ok", first.stdout + first.stderr
    second = subprocess.run(tool + ["put-exclusive", loc, "second"], capture_output=True, text=True, env=env)
    assert second.returncode == 1 and second.stdout.startswith("AlreadyExists"), second.stdout
    assert loc in second.stdout
    got = subprocess.run(tool + ["get", loc], capture_output=True, text=True, env=env)
    assert got.stdout.strip() == "ok first"


def _failpoints_built() -> bool:
    cache = BUILD / "CMakeCache.txt"
    return cache.exists() and "WEIR_FAILPOINTS:BOOL=ON" in cache.read_text()


@pytest.mark.parametrize("point", ["iceberg.manifest.after", "iceberg.metadata.after", "catalog.commit.before"])
def test_a_kill_during_an_s3_commit_leaves_main_readable(s3, s3_lake, point):
    if not _failpoints_built():
        if os.environ.get("WEIR_REQUIRE_FAILPOINTS"):
            pytest.fail(f"{BUILD} was not built with -DWEIR_FAILPOINTS=ON")
        pytest.skip(f"{BUILD} has no failpoints (the sanitizer build of make test-asan has them)")
    assert w(s3, "import", TITANIC, "--table", "titanic", lake=s3_lake).returncode == 0
    before = wj(s3, "show", "main", lake=s3_lake)["hash"]
    r = w(s3, "import", TITANIC, "--table", "titanic", "--mode", "append", lake=s3_lake,
          WEIR_FAILPOINTS=f"{point}:kill")
    assert r.returncode == -9, r.stderr
    assert wj(s3, "show", "main", lake=s3_lake)["hash"] == before
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic") == 891
    # And the next write goes through on top of it.
    r = w(s3, "import", TITANIC, "--table", "titanic", "--mode", "append", lake=s3_lake)
    assert r.returncode == 0, r.stderr
    assert count(s3, s3_lake, "SELECT count(*) FROM titanic") == 1782
