"""`weir serve` with Spark 3.5 and Iceberg's Spark runtime 1.10 (the REST catalog client):
reads at branches and tags by name, an INSERT that becomes a weir commit on dev, a merge
Spark then reads on main, read-only tags, and expire_snapshots refused with no file lost.

One Spark session (local[1]) for the module, with three catalogs on one server: `weir`
(warehouse dev), `weirmain` (main) and `weirtag` (tag v1). The runtime jar is fetched by
scripts/bootstrap.sh (Maven, pinned checksum) into .deps/spark.
"""
from __future__ import annotations

import math

import pytest

from conftest import ROOT, weir, weir_list
from serve_support import lake_files, make_titanic_lake, start_server, weir_rows

JAR = ROOT / ".deps" / "spark" / "iceberg-spark-runtime-3.5_2.12-1.10.0.jar"
COLUMNS = ["PassengerId", "Survived", "Pclass", "Name", "Sex", "Age", "SibSp", "Parch", "Ticket", "Fare", "Cabin",
           "Embarked"]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    assert JAR.exists(), f"{JAR} is missing: run scripts/bootstrap.sh"
    from pyspark.sql import SparkSession

    lake = tmp_path_factory.mktemp("serve_spark") / "lake"
    tokens = make_titanic_lake(lake)
    srv = start_server(lake)
    b = (SparkSession.builder.master("local[1]").appName("weir-serve-test")
         .config("spark.jars", str(JAR))
         .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
         .config("spark.driver.memory", "1g"))
    for name, wh in (("weir", "dev"), ("weirmain", "main"), ("weirtag", "v1")):
        p = f"spark.sql.catalog.{name}"
        b = (b.config(p, "org.apache.iceberg.spark.SparkCatalog").config(f"{p}.type", "rest")
             .config(f"{p}.uri", srv.url).config(f"{p}.warehouse", wh).config(f"{p}.token", tokens["engine"])
             .config(f"{p}.cache-enabled", "false"))
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    yield spark, srv
    spark.stop()
    srv.stop()


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
    spark.sql("INSERT INTO weir.default.titanic SELECT PassengerId + 1000, Survived, Pclass, Name, Sex, Age, SibSp, "
              "Parch, Ticket, Fare, Cabin, Embarked FROM weir.default.titanic WHERE PassengerId <= 2")
    head = weir_list("log", "dev", "-n", "1", lake=srv.lake)[0]
    assert head["author"] == "token:engine" and "REST commit" in head["message"]
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
    before = lake_files(srv.lake)
    with pytest.raises(Exception, match="GC is disabled"):
        spark.sql("CALL weir.system.expire_snapshots(table => 'default.titanic', "
                  "older_than => TIMESTAMP '2100-01-01 00:00:00', retain_last => 1)").collect()
    with pytest.raises(Exception, match="GC is disabled"):
        spark.sql("CALL weir.system.remove_orphan_files(table => 'default.titanic', "
                  "older_than => TIMESTAMP '2100-01-01 00:00:00')").collect()
    assert lake_files(srv.lake) >= before
    for ref in ("main", "dev", "v1"):
        assert weir("query", "SELECT count(*) FROM titanic", "--ref", ref, lake=srv.lake).returncode == 0
