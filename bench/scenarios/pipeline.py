"""Scenario `pipeline`: a five-model TPC-H pipeline with contracts, and a Python model's
input/output hand-off.

TPC-H data comes from DuckDB's tpch extension (dbgen) at SF 0.1 (quick) or 1 (full),
written once to bench/.data/tpch-sf<SF>/<table>.parquet. The five models and their
contracts are defined once below (MODELS) and rendered for each tool, so every tool runs
the same SQL with the same rules:

  stg_orders        orders, keys widened to BIGINT, price to DOUBLE
  stg_lineitem      lineitem, the same
  order_revenue     stg_lineitem grouped by order
  customer_revenue  customer x nation x stg_orders x order_revenue, grouped by customer
  pricing_summary   TPC-H Q1 over stg_lineitem

Rules: every column required (not null); enums (order status, return flag, line status),
ranges (prices >= 0, discount in [0, 0.1], quantity in [1, 50], items per order in [1, 7]),
a pattern (customer name), unique keys (orders, order revenue, customer revenue).

  weir          a weir project (SQL models with `-- weir:` headers and YAML contracts);
                `weir run` through the CLI: a run branch, a commit per model, contracts
                checked on the Arrow data, Parquet + Iceberg metadata written, merged.
                The catalog tables were imported from the Parquet files beforehand (untimed).
  dbt           the same SQL in a dbt-duckdb project, sources = the same Parquet files,
                models materialized as tables in a DuckDB file with `contract: {enforced:
                true}`: data types, not_null, unique and check constraints (enums, ranges,
                pattern) enforced by DuckDB; `dbt run` as a command (threads: 1), so dbt's
                start-up and project parsing are included.
  duckdb-parquet  the bare SQL in DuckDB (Python, one connection): each model written with
                COPY ... TO Parquet and read back by the next one. No checks. (vs weir)
  duckdb-parquet-zstd  the same, writing zstd as weir does (DuckDB's default is Snappy).
  duckdb-table  the bare SQL as CREATE TABLE in a DuckDB database file. No checks.

Hand-off (op python_handoff_*): a weir project with one Python model that returns its
input (lineitem) unchanged, run by `weir run`; the worker's own timings (inputs: scan to a
pyarrow.Table; output: the returned table validated and written as Parquet) are read from
its result file and reported per GB of Arrow data, against pyarrow reading the same Parquet
data files (pq.read_table) and writing the table (pq.write_table).

Model start (op python_model_start): a project of trivial Python models (each returns its
one-row input) run by `weir run` with the model sandbox and with --unsandboxed,
alternately in one unit so that the machine's load falls on both alike; each model's
wall time from the run record (process start, imports, hand-off, commit), and the
difference of the medians as the sandbox's cost per model start. bench/c/bench_sandbox
(tool weir-sandbox-c, op sandbox_enter) isolates the mechanism itself: fork + exec of
/bin/true with and without entering the sandbox (ruleset over the SDK environment's
folders, filter, namespaces, limits).
"""
from __future__ import annotations

import glob
import json
import os
import textwrap
from typing import Any

from lib.common import DATA, duckdb_connect, fresh_dir, median, python, row, run_timed, timed, weir_cli

SCENARIO = "pipeline"
SOURCES = ["orders", "lineitem", "customer", "nation"]

# (model, SQL with {name} placeholders for sources and models, columns: (name, weir type,
#  dbt type, rules)). Rules: enum=[...], min=, max=, pattern=, unique=True.
MODELS: list[tuple[str, str, list[tuple[str, str, str, dict[str, Any]]]]] = [
    ("stg_orders", """
SELECT CAST(o_orderkey AS BIGINT) AS o_orderkey, CAST(o_custkey AS BIGINT) AS o_custkey,
       o_orderstatus, CAST(o_totalprice AS DOUBLE) AS o_totalprice, o_orderdate, o_orderpriority
FROM {orders}""", [
        ("o_orderkey", "Int64", "bigint", {"unique": True}),
        ("o_custkey", "Int64", "bigint", {}),
        ("o_orderstatus", "String", "varchar", {"enum": ["F", "O", "P"]}),
        ("o_totalprice", "Float64", "double", {"min": 0}),
        ("o_orderdate", "Date32", "date", {}),
        ("o_orderpriority", "String", "varchar", {}),
    ]),
    ("stg_lineitem", """
SELECT CAST(l_orderkey AS BIGINT) AS l_orderkey, CAST(l_partkey AS BIGINT) AS l_partkey,
       CAST(l_suppkey AS BIGINT) AS l_suppkey, CAST(l_linenumber AS BIGINT) AS l_linenumber,
       CAST(l_quantity AS DOUBLE) AS l_quantity, CAST(l_extendedprice AS DOUBLE) AS l_extendedprice,
       CAST(l_discount AS DOUBLE) AS l_discount, CAST(l_tax AS DOUBLE) AS l_tax,
       l_returnflag, l_linestatus, l_shipdate
FROM {lineitem}""", [
        ("l_orderkey", "Int64", "bigint", {}),
        ("l_partkey", "Int64", "bigint", {}),
        ("l_suppkey", "Int64", "bigint", {}),
        ("l_linenumber", "Int64", "bigint", {}),
        ("l_quantity", "Float64", "double", {"min": 1, "max": 50}),
        ("l_extendedprice", "Float64", "double", {"min": 0}),
        ("l_discount", "Float64", "double", {"min": 0, "max": 0.1}),
        ("l_tax", "Float64", "double", {"min": 0}),
        ("l_returnflag", "String", "varchar", {"enum": ["A", "N", "R"]}),
        ("l_linestatus", "String", "varchar", {"enum": ["F", "O"]}),
        ("l_shipdate", "Date32", "date", {}),
    ]),
    ("order_revenue", """
SELECT l_orderkey AS o_orderkey, count(*) AS n_items,
       sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM {stg_lineitem}
GROUP BY l_orderkey""", [
        ("o_orderkey", "Int64", "bigint", {"unique": True}),
        ("n_items", "Int64", "bigint", {"min": 1, "max": 7}),
        ("revenue", "Float64", "double", {"min": 0}),
    ]),
    ("customer_revenue", """
SELECT CAST(c.c_custkey AS BIGINT) AS c_custkey, c.c_name, n.n_name AS nation,
       count(*) AS n_orders, sum(r.revenue) AS revenue
FROM {customer} c
JOIN {nation} n ON c.c_nationkey = n.n_nationkey
JOIN {stg_orders} o ON o.o_custkey = c.c_custkey
JOIN {order_revenue} r ON r.o_orderkey = o.o_orderkey
GROUP BY c.c_custkey, c.c_name, n.n_name""", [
        ("c_custkey", "Int64", "bigint", {"unique": True}),
        ("c_name", "String", "varchar", {"pattern": "^Customer#[0-9]{9}$"}),
        ("nation", "String", "varchar", {}),
        ("n_orders", "Int64", "bigint", {"min": 1}),
        ("revenue", "Float64", "double", {"min": 0}),
    ]),
    ("pricing_summary", """
SELECT l_returnflag, l_linestatus,
       sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc,
       count(*) AS count_order
FROM {stg_lineitem}
WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL 90 DAY
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus""", [
        ("l_returnflag", "String", "varchar", {"enum": ["A", "N", "R"]}),
        ("l_linestatus", "String", "varchar", {"enum": ["F", "O"]}),
        ("sum_qty", "Float64", "double", {"min": 0}),
        ("sum_base_price", "Float64", "double", {"min": 0}),
        ("sum_disc_price", "Float64", "double", {"min": 0}),
        ("sum_charge", "Float64", "double", {"min": 0}),
        ("avg_qty", "Float64", "double", {}),
        ("avg_price", "Float64", "double", {}),
        ("avg_disc", "Float64", "double", {}),
        ("count_order", "Int64", "bigint", {"min": 1}),
    ]),
]
TOOLS = ["weir", "dbt", "duckdb-parquet", "duckdb-parquet-zstd", "duckdb-table", "weir-handoff", "pyarrow-handoff",
         "weir-model-start", "weir-sandbox-c"]


def tier_config(tier: str) -> dict[str, Any]:
    if tier == "smoke":
        return {"sf": 0.01, "reps": 1}
    if tier == "quick":
        return {"sf": 0.1, "reps": 3}
    return {"sf": 1, "reps": 3}


def units(tier: str) -> list[dict[str, Any]]:
    cfg = tier_config(tier)
    return [{"scenario": SCENARIO, "tool": t, "sf": cfg["sf"], "reps": cfg["reps"]} for t in TOOLS]


def size_label(sf: float) -> str:
    return f"TPC-H SF {sf:g}"


def tpch_dir(sf: float) -> str:
    """TPC-H at scale factor sf as Parquet files (made once with DuckDB's dbgen)."""
    d = os.path.join(DATA, f"tpch-sf{sf:g}")
    if os.path.exists(os.path.join(d, ".complete")):
        return d
    fresh_dir(d)
    con = duckdb_connect(extensions=("tpch",))
    con.execute(f"CALL dbgen(sf = {sf})")
    for t in SOURCES:
        con.execute(f"COPY {t} TO '{d}/{t}.parquet' (FORMAT parquet)")
    con.close()
    open(os.path.join(d, ".complete"), "w").close()
    return d


def _sql(sql: str, names: dict[str, str]) -> str:
    return sql.strip().format(**names)


# ---- weir -------------------------------------------------------------------------------------------


def weir_project(dst: str) -> str:
    fresh_dir(dst)
    os.makedirs(os.path.join(dst, "contracts"))
    with open(os.path.join(dst, "weir_project.yml"), "w", encoding="utf-8") as fh:
        fh.write("name: tpch_bench\nnamespace: default\n")
    names = {m: m for m, _, _ in MODELS} | {s: s for s in SOURCES}
    for m, sql, cols in MODELS:
        with open(os.path.join(dst, f"{m}.sql"), "w", encoding="utf-8") as fh:
            fh.write(f"-- weir: name={m}\n-- weir: materialization=REPLACE\n-- weir: output_schema={m}_contract\n")
            fh.write(_sql(sql, names) + "\n")
        lines = ["contract:", f"  name: {m}_contract", "  columns:"]
        for c, wt, _, rules in cols:
            lines.append(f"    - name: {c}")
            lines.append(f"      type: {wt}")
            for k, v in rules.items():
                if k == "unique":
                    lines.append("      unique: true")
                elif k == "pattern":
                    lines.append(f"      pattern: {json.dumps(v)}")
                else:
                    lines.append(f"      {k}: {json.dumps(v)}")
        with open(os.path.join(dst, "contracts", f"{m}.yml"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    return dst


def _source_contract(parquet: str, table: str, dst: str) -> str:
    """A contract for a TPC-H source table: its columns and types as in the file, every one
    required (the TPC-H specification declares every column NOT NULL). Without it an import
    makes optional columns, as every Iceberg writer does, and the models' required outputs
    would not plan: NOT NULL inference cannot prove a column of an optional input non-null."""
    con = duckdb_connect()
    cols = con.execute("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?))",
                       [parquet]).fetchall()
    con.close()
    lines = ["contract:", f"  name: {table}_source", "  columns:"]
    for name, typ in cols:
        lines += [f"    - name: {name}", f"      type: {json.dumps(typ)}", "      nullable: false"]
    path = os.path.join(dst, f"{table}.source.yml")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def _weir_lake(work: str, data: str, tables: list[str]) -> tuple[str, float]:
    import weir

    lake = os.path.join(work, "lake")
    weir.Client.init(lake).close()
    total = 0.0
    for t in tables:
        parquet = os.path.join(data, f"{t}.parquet")
        contract = _source_contract(parquet, t, work)
        dt, _, _ = weir_cli(["import", parquet, "--table", t, "--contract", contract], lake)
        total += dt
    return lake, total


def _weir(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    data = tpch_dir(u["sf"])
    lake, load_s = _weir_lake(work, data, SOURCES)
    proj = weir_project(os.path.join(work, "project"))
    weir_cli(["check", proj], lake)
    peak = [0.0]
    models: list[dict[str, float]] = []

    def run(i: int) -> None:
        dt, rss, out = weir_cli(["--json", "run", proj], lake, rss=i < 0)
        peak[0] = max(peak[0], rss)
        doc = json.loads(out)
        if doc.get("status") != "succeeded":
            raise RuntimeError(f"weir run did not succeed: {out[:500]}")
        models.append({m["model"]: (m["ended_us"] - m["started_us"]) / 1e6 for m in doc["models"]})

    times = timed(run, u["reps"])
    per_model = {k: median([m[k] for m in models[1:] or models]) for k in models[-1]}
    rw = row(SCENARIO, "run_5_models", size_label(u["sf"]), "weir", times, note="weir run (CLI)",
             models_median_s=per_model, import_s=load_s,
             throughput="models: " + ", ".join(f"{k} {v:.2f}s" for k, v in per_model.items()))
    rw["extra"]["peak_rss_mb"] = peak[0]
    return [rw]


# ---- dbt ---------------------------------------------------------------------------------------------


def dbt_project(dst: str, data: str) -> str:
    fresh_dir(dst)
    os.makedirs(os.path.join(dst, "models"))
    with open(os.path.join(dst, "dbt_project.yml"), "w", encoding="utf-8") as fh:
        fh.write(textwrap.dedent("""\
            name: tpch_bench
            version: "1.0"
            config-version: 2
            profile: tpch_bench
            model-paths: ["models"]
            flags:
              send_anonymous_usage_stats: false
              partial_parse: true
            models:
              tpch_bench:
                +materialized: table
            """))
    with open(os.path.join(dst, "profiles.yml"), "w", encoding="utf-8") as fh:
        fh.write(textwrap.dedent(f"""\
            tpch_bench:
              target: bench
              outputs:
                bench:
                  type: duckdb
                  path: "{dst}/bench.duckdb"
                  threads: 1
            """))
    names = {m: "{{ ref('" + m + "') }}" for m, _, _ in MODELS} | \
        {s: "{{ source('tpch', '" + s + "') }}" for s in SOURCES}
    schema: list[str] = ["version: 2", "sources:", "  - name: tpch", "    meta:",
                         f"      external_location: \"{data}/{{name}}.parquet\"", "    tables:"]
    schema += [f"      - name: {s}" for s in SOURCES]
    schema.append("models:")
    for m, sql, cols in MODELS:
        with open(os.path.join(dst, "models", f"{m}.sql"), "w", encoding="utf-8") as fh:
            fh.write(_sql(sql, names) + "\n")
        schema += [f"  - name: {m}", "    config:", "      contract:", "        enforced: true", "    columns:"]
        for c, _, dt_, rules in cols:
            schema += [f"      - name: {c}", f"        data_type: {dt_}", "        constraints:",
                       "          - type: not_null"]
            checks = []
            for k, v in rules.items():
                if k == "unique":
                    schema.append("          - type: unique")
                elif k == "enum":
                    checks.append(f"{c} IN ({', '.join(repr(x) for x in v)})")
                elif k == "min":
                    checks.append(f"{c} >= {v}")
                elif k == "max":
                    checks.append(f"{c} <= {v}")
                elif k == "pattern":
                    checks.append(f"regexp_full_match({c}, '{v}')")
            for ch in checks:
                schema += ["          - type: check", f"            expression: \"{ch}\""]
    with open(os.path.join(dst, "models", "schema.yml"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(schema) + "\n")
    return dst


def _dbt(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    import dbt.adapters.duckdb  # noqa: F401 - fails clearly (ModuleNotFoundError) without bench/requirements.txt

    data = tpch_dir(u["sf"])
    proj = dbt_project(os.path.join(work, "dbt"), data)
    dbt = os.path.join(os.path.dirname(python()), "dbt")
    env = dict(os.environ, DBT_SEND_ANONYMOUS_USAGE_STATS="false", DO_NOT_TRACK="1",
               DBT_PROFILES_DIR=proj)
    peak = [0.0]

    def run(i: int) -> None:
        _, rss, out = run_timed([dbt, "run", "--project-dir", proj, "--profiles-dir", proj], env=env, cwd=proj,
                                rss=i < 0)
        peak[0] = max(peak[0], rss)
        if "Completed successfully" not in out:
            raise RuntimeError(f"dbt run failed: {out[-1500:]}")

    times = timed(run, u["reps"])
    rw = row(SCENARIO, "run_5_models", size_label(u["sf"]), "dbt", times, ref="weir",
             note="dbt run (process), contracts enforced, DuckDB tables")
    rw["extra"]["peak_rss_mb"] = peak[0]
    return [rw]


# ---- bare DuckDB ---------------------------------------------------------------------------------


def _duckdb(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    data = tpch_dir(u["sf"])
    parquet = u["tool"].startswith("duckdb-parquet")
    # DuckDB's COPY writes Snappy by default; weir writes zstd (smaller files, more CPU).
    codec = ", COMPRESSION zstd" if u["tool"] == "duckdb-parquet-zstd" else ""
    out = fresh_dir(os.path.join(work, "out"))

    def run(i: int) -> None:
        db = os.path.join(out, "bench.duckdb")
        for p in glob.glob(db + "*"):
            os.remove(p)
        con = duckdb_connect(":memory:" if parquet else db)
        for s in SOURCES:
            con.execute(f"CREATE VIEW {s} AS SELECT * FROM read_parquet('{data}/{s}.parquet')")
        names = {m: m for m, _, _ in MODELS} | {s: s for s in SOURCES}
        for m, sql, _ in MODELS:
            q = _sql(sql, names)
            if parquet:
                con.execute(f"COPY ({q}) TO '{out}/{m}.parquet' (FORMAT parquet{codec})")
                con.execute(f"CREATE OR REPLACE VIEW {m} AS SELECT * FROM read_parquet('{out}/{m}.parquet')")
            else:
                con.execute(f"CREATE OR REPLACE TABLE {m} AS {q}")
        con.close()

    times = timed(run, u["reps"])
    note = ("bare SQL, CREATE TABLE in a DuckDB file, no checks" if not parquet else
            f"bare SQL, COPY TO Parquet ({'zstd, as weir writes' if codec else 'Snappy, DuckDB default'}), no checks")
    return [row(SCENARIO, "run_5_models", size_label(u["sf"]), u["tool"], times, ref="weir", note=note)]


# ---- Python model hand-off ------------------------------------------------------------------------


HANDOFF_MODEL = '''\
from typing import Annotated

import pyarrow as pa

import weir
from weir import Model


@weir.model(materialization="REPLACE")
def passthrough(data: Annotated[pa.Table, Model("lineitem")]) -> pa.Table:
    """Returns its input unchanged: measures the hand-off in and out of a Python model."""
    return data
'''


def _weir_handoff(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    data = tpch_dir(u["sf"])
    lake, _ = _weir_lake(work, data, ["lineitem"])
    proj = fresh_dir(os.path.join(work, "handoff"))
    with open(os.path.join(proj, "models.py"), "w", encoding="utf-8") as fh:
        fh.write(HANDOFF_MODEL)
    files = glob.glob(os.path.join(lake, "warehouse", "default", "lineitem", "data", "*.parquet"))
    gb = pq.read_table(files).nbytes / 1e9
    walls, ins, outs, models = [], [], [], []
    peak = 0.0
    for i in range(-1, u["reps"]):
        dt, rss, out = weir_cli(["--json", "run", proj], lake, rss=i < 0)
        doc = json.loads(out)
        if doc.get("status") != "succeeded":
            raise RuntimeError(f"weir run did not succeed: {out[:800]}")
        with open(os.path.join(lake, "runs", doc["run_id"], "passthrough.result.json"), encoding="utf-8") as fh:
            sec = json.load(fh)["seconds"]
        if i >= 0:
            walls.append(dt)
            ins.append(sec["inputs"])
            outs.append(sec["output"])
            models.append(sec["model"])
        peak = max(peak, rss)
    size = size_label(u["sf"]) + " lineitem"
    per = f"{gb:.3f} GB of Arrow data"
    rows = [
        row(SCENARIO, "python_handoff_in", size, "weir-handoff", ins, note="worker: weir_worker_scan -> pyarrow.Table",
            throughput=f"{median(ins) / gb:.2f} s/GB ({per})", s_per_gb=median(ins) / gb, gb=gb),
        row(SCENARIO, "python_handoff_out", size, "weir-handoff", outs,
            note="worker: weir_worker_stage_output (validate + write Parquet)",
            throughput=f"{median(outs) / gb:.2f} s/GB", s_per_gb=median(outs) / gb, gb=gb),
        row(SCENARIO, "python_handoff_total", size, "weir-handoff", [a + b for a, b in zip(ins, outs, strict=True)],
            throughput=f"{median([a + b for a, b in zip(ins, outs, strict=True)]) / gb:.2f} s/GB", gb=gb),
        row(SCENARIO, "python_model_run", size, "weir-handoff", walls,
            note="whole weir run of the one-model project (worker start, commit, merge)", gb=gb),
    ]
    for r in rows:
        r["extra"]["peak_rss_mb"] = peak
    return rows


def _pyarrow_handoff(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    data = tpch_dir(u["sf"])
    lake, _ = _weir_lake(work, data, ["lineitem"])  # the same data files the worker reads
    files = glob.glob(os.path.join(lake, "warehouse", "default", "lineitem", "data", "*.parquet"))
    table = pq.read_table(files)
    gb = table.nbytes / 1e9
    del table
    held: dict[str, Any] = {}

    def read(i: int) -> None:
        held["t"] = pq.read_table(files)

    ins = timed(read, u["reps"])
    out_path = os.path.join(work, "out.parquet")
    outs = timed(lambda i: pq.write_table(held["t"], out_path), u["reps"])
    size = size_label(u["sf"]) + " lineitem"
    return [
        row(SCENARIO, "python_handoff_in", size, "pyarrow-handoff", ins, ref="weir-handoff",
            note="pq.read_table of the same data files", throughput=f"{median(ins) / gb:.2f} s/GB",
            s_per_gb=median(ins) / gb, gb=gb),
        row(SCENARIO, "python_handoff_out", size, "pyarrow-handoff", outs, ref="weir-handoff",
            note="pq.write_table (no validation, no commit)", throughput=f"{median(outs) / gb:.2f} s/GB",
            s_per_gb=median(outs) / gb, gb=gb),
        row(SCENARIO, "python_handoff_total", size, "pyarrow-handoff", [a + b for a, b in zip(ins, outs, strict=True)],
            ref="weir-handoff", throughput=f"{median([a + b for a, b in zip(ins, outs, strict=True)]) / gb:.2f} s/GB", gb=gb),
    ]


# ---- the model sandbox's cost per model start ---------------------------------------------------

START_MODEL = '''
@weir.model()
def m{i}(one: Annotated[pa.Table, Model("one")]) -> pa.Table:
    """Returns its one-row input: a model that is all start."""
    return one
'''


def _start_models(u: dict[str, Any]) -> int:
    return 2 if u["reps"] <= 1 else 8


def _weir_model_start(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    lake = os.path.join(fresh_dir(os.path.join(work, "start")), "lake")
    weir_cli(["init", lake], lake)
    csv = os.path.join(work, "one.csv")
    with open(csv, "w", encoding="utf-8") as fh:
        fh.write("x\n1\n")
    weir_cli(["import", csv, "--table", "one"], lake)
    proj = fresh_dir(os.path.join(work, "start_project"))
    n = _start_models(u)
    with open(os.path.join(proj, "models.py"), "w", encoding="utf-8") as fh:
        fh.write("from typing import Annotated\n\nimport pyarrow as pa\n\nimport weir\nfrom weir import Model\n")
        fh.write("".join(START_MODEL.format(i=i) for i in range(n)))
    per: dict[bool, list[float]] = {True: [], False: []}
    reps = max(u["reps"], 1) * (2 if u["reps"] > 1 else 1)
    for i in range(-1, reps):
        for sandboxed in ((True, False) if i % 2 == 0 else (False, True)):
            _, _, out = weir_cli(["--json", "run", proj, *([] if sandboxed else ["--unsandboxed"])], lake)
            doc = json.loads(out)
            if doc.get("status") != "succeeded":
                raise RuntimeError(f"weir run did not succeed: {out[:800]}")
            for m in doc["models"]:
                assert bool(m["sandbox"]["enabled"]) == sandboxed
                if i >= 0:
                    per[sandboxed].append((m["ended_us"] - m["started_us"]) / 1e6)
    size = f"{n} trivial models"
    cost = median(per[True]) - median(per[False])
    return [
        row(SCENARIO, "python_model_start", size, "weir-sandboxed", per[True],
            note="one Python model's start to commit, in the model sandbox", sandbox_cost_ms=cost * 1e3),
        row(SCENARIO, "python_model_start", size, "weir-unsandboxed", per[False], ref="weir-sandboxed",
            note=f"the same with --unsandboxed; the sandbox costs {cost * 1e3:.1f} ms per model start "
                 "(ratio < 1: the sandbox is slower)", sandbox_cost_ms=cost * 1e3),
    ]


def _sandbox_c(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    import subprocess

    from lib.common import build_dir

    env = subprocess.run([python(), "-m", "weir.envs", "prepare", "--json"], capture_output=True, text=True,
                         check=True)
    roots = json.loads(env.stdout.strip().splitlines()[-1])["read"]
    out_json = os.path.join(work, "bench_sandbox.json")
    iters = 20 if u["reps"] <= 1 else 400
    run_timed([os.path.join(build_dir(), "bench_sandbox"), "--iterations", str(iters), "--json", out_json, *roots])
    with open(out_json, encoding="utf-8") as fh:
        d = json.load(fh)
    plain, boxed = d["plain_us"], d["sandboxed_us"]
    cost_us = boxed["median"] - plain["median"]
    note = (f"fork + exec /bin/true, Landlock ABI {d['landlock_abi']}, network {d['network']}, "
            f"{d['exec_roots']} exec roots; the sandbox adds {cost_us / 1e3:.2f} ms (prepare {d['prepare_us']['median']:.0f} µs)")
    return [
        row(SCENARIO, "sandbox_enter", "one process", "weir-sandbox-c", [boxed["median"] / 1e6], note=note,
            p95_us=boxed["p95"], sandbox_cost_ms=cost_us / 1e3),
        row(SCENARIO, "sandbox_enter", "one process", "plain-process-c", [plain["median"] / 1e6], ref="weir-sandbox-c",
            note="the same start without the sandbox", p95_us=plain["p95"]),
    ]


def run_unit(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    return {"weir": _weir, "dbt": _dbt, "duckdb-parquet": _duckdb, "duckdb-parquet-zstd": _duckdb,
            "duckdb-table": _duckdb,
            "weir-handoff": _weir_handoff, "pyarrow-handoff": _pyarrow_handoff,
            "weir-model-start": _weir_model_start, "weir-sandbox-c": _sandbox_c}[u["tool"]](u, work)
