"""`weir serve` with Spark 3.5 and Iceberg's Spark runtime 1.10 (the REST catalog client):
reads at branches and tags by name, an INSERT that becomes a weir commit on dev, a merge
Spark then reads on main, read-only tags, and expire_snapshots refused with no file lost.

One Spark session (local[1]) per shared-lake setting (serve_support.SETTINGS: a local lake,
and one with its catalog on PostgreSQL and its warehouse on the loopback S3 server), with
three catalogs on one server: `weir` (warehouse dev), `weirmain` (main) and `weirtag` (tag
v1). On S3, Spark reads and writes data files through Iceberg's S3FileIO with the endpoint
the server's config hands it and credentials of its own (catalog properties, as a cluster
configures them). The runtime and AWS bundle jars are fetched by scripts/bootstrap.sh
(Maven, pinned checksums) into .deps/spark.
"""
from __future__ import annotations

import math

import pytest

from conftest import spark_jars, weir, weir_list
from serve_support import SETTINGS, lake_files, served_lake, weir_rows

COLUMNS = ["PassengerId", "Survived", "Pclass", "Name", "Sex", "Age", "SibSp", "Parch", "Ticket", "Fare", "Cabin",
           "Embarked"]


@pytest.fixture(scope="module", params=SETTINGS)
def env(request, tmp_path_factory):
    jars = spark_jars()
    from pyspark.sql import SparkSession

    served = served_lake(request, tmp_path_factory, request.param)
    srv, tokens = next(served)
    # Both settings' sessions share one JVM (pyspark starts it once per process), so what
    # S3 needs is given per catalog, never through the JVM's environment.
    s3 = {}
    if srv.s3 is not None:
        s3 = {"io-impl": "org.apache.iceberg.aws.s3.S3FileIO", "s3.access-key-id": srv.s3.access_key,
              "s3.secret-access-key": srv.s3.secret_key, "client.region": "us-east-1"}
    b = (SparkSession.builder.master("local[1]").appName("weir-serve-test")
         .config("spark.jars", jars)
         .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
         .config("spark.driver.memory", "1g"))
    for name, wh in (("weir", "dev"), ("weirmain", "main"), ("weirtag", "v1")):
        p = f"spark.sql.catalog.{name}"
        b = (b.config(p, "org.apache.iceberg.spark.SparkCatalog").config(f"{p}.type", "rest")
             .config(f"{p}.uri", srv.url).config(f"{p}.warehouse", wh).config(f"{p}.token", tokens["engine"])
             .config(f"{p}.cache-enabled", "false"))
        for k, v in s3.items():
            b = b.config(f"{p}.{k}", v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    yield spark, srv
    spark.stop()
    next(served, None)  # stops the server, restores the environment


def spark_rows(spark, sql):
    return sorted((r.asDict() for r in spark.sql(sql).collect()), key=lambda r: r["PassengerId"])


def same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        for c in COLUMNS:
            u, v = x[c], y[c]
            if isinstance(u, float) and isinstance(v, float):
                assert math.isclose(u, v, rel_tol=0, abs_tol=0), (c, u, v)
            else:
                assert u == v, (c, u, v)


def test_reads_main_and_dev_by_name(env):
    spark, srv = env
    for cat, ref in (("weirmain", "main"), ("weir", "dev")):
        same(spark_rows(spark, f"SELECT * FROM {cat}.default.titanic"),
             sorted(weir_rows(srv.lake, "SELECT * FROM titanic", ref), key=lambda r: r["PassengerId"]))
    assert [r[0] for r in spark.sql("SHOW NAMESPACES IN weir").collect()] == ["default"]
    assert [r.tableName for r in spark.sql("SHOW TABLES IN weir.default").collect()] == ["titanic"]


def test_insert_on_dev_then_merge_reaches_main(env):
    spark, srv = env
    main_before = weir_list("log", "-n", "1", lake=srv.lake)[0]["hash"]
    files_before = lake_files(srv.lake, srv.s3)
    spark.sql("INSERT INTO weir.default.titanic SELECT PassengerId + 1000, Survived, Pclass, Name, Sex, Age, SibSp, "
              "Parch, Ticket, Fare, Cabin, Embarked FROM weir.default.titanic WHERE PassengerId <= 2")
    head = weir_list("log", "dev", "-n", "1", lake=srv.lake)[0]
    assert head["author"] == "token:engine" and "REST commit" in head["message"]
    # Spark wrote the data file into the warehouse itself: on S3, through S3FileIO.
    written = [f for f in lake_files(srv.lake, srv.s3) - files_before if f.endswith(".parquet")]
    assert written, "Spark's INSERT wrote no data file into the warehouse"
    assert all(f.startswith("s3://") == (srv.s3 is not None) for f in written), written
    assert weir_rows(srv.lake, "SELECT count(*) AS n FROM titanic", "dev") == [{"n": 893}]
    assert weir_list("log", "-n", "1", lake=srv.lake)[0]["hash"] == main_before
    assert spark.sql("SELECT count(*) FROM weirmain.default.titanic").collect()[0][0] == 891
    r = weir("merge", "dev", "--into", "main", lake=srv.lake)
    assert r.returncode == 0, r.stderr
    same(spark_rows(spark, "SELECT * FROM weirmain.default.titanic"),
         sorted(weir_rows(srv.lake, "SELECT * FROM titanic", "main"), key=lambda r: r["PassengerId"]))
    assert spark.sql("SELECT count(*) FROM weirmain.default.titanic WHERE PassengerId > 1000").collect()[0][0] == 2


def test_tag_reads_by_version_and_refuses_writes(env):
    spark, srv = env
    assert spark.sql("SELECT count(*) FROM weir.default.titanic VERSION AS OF 'v1'").collect()[0][0] == 891
    assert spark.sql("SELECT count(*) FROM weirtag.default.titanic").collect()[0][0] == 891
    with pytest.raises(Exception, match="read-only"):
        spark.sql("INSERT INTO weirtag.default.titanic SELECT * FROM weirtag.default.titanic WHERE PassengerId = 1")
    assert weir_rows(srv.lake, "SELECT count(*) AS n FROM titanic", "v1") == [{"n": 891}]


def test_expire_snapshots_is_refused_and_no_file_is_deleted(env):
    spark, srv = env
    before = lake_files(srv.lake, srv.s3)
    with pytest.raises(Exception, match="GC is disabled"):
        spark.sql("CALL weir.system.expire_snapshots(table => 'default.titanic', "
                  "older_than => TIMESTAMP '2100-01-01 00:00:00', retain_last => 1)").collect()
    with pytest.raises(Exception, match="GC is disabled"):
        spark.sql("CALL weir.system.remove_orphan_files(table => 'default.titanic', "
                  "older_than => TIMESTAMP '2100-01-01 00:00:00')").collect()
    assert lake_files(srv.lake, srv.s3) >= before
    for ref in ("main", "dev", "v1"):
        assert weir("query", "SELECT count(*) FROM titanic", "--ref", ref, lake=srv.lake).returncode == 0
