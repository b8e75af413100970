"""Scenario `catalog`: Git-like catalog operations as the lake grows.

Every tool gets the same lake, built from the same plan: N tables created with 100 rows
each (one commit per table), then appends of 100 rows to random tables until the lake has
C commits. On that lake each operation is timed `iterations` times on a warm process
(catalog connection open), addressing tables by name:

  create_branch  weir: a branch of the whole lake.       pyiceberg: a branch ref on ONE table
                 DuckLake: none (no branches).
  commit         one table gets 100 rows appended, as one commit/snapshot (all tools).
  merge          weir: three-way merge of a branch that changed table A into main, which
                 changed table B (no conflict). pyiceberg: no merge; the closest is moving
                 table A's main ref to its branch's head (set_current_snapshot): a
                 per-table fast-forward without merge base or conflict check. DuckLake: none.
  log            the 10 newest commits. pyiceberg: one table's snapshot log (there is no
                 lake-wide log). DuckLake: ducklake_snapshots(), lake-wide.
  time_travel    read a 100-row table as it was at its creation commit / snapshot / version.

weir is measured through the Python client (in-process, warm handle: tool weir-py, the
peers' reference) and through the CLI (one process per operation: weir-cli), and the bare
catalog layer by bench/c/bench_catalog (tool weir-catalog-c: fake metadata locations, so it
also covers a lake of 1,000 tables with only 10 commits, which the public API cannot build:
creating a table is a commit).
"""
from __future__ import annotations

import json
import os
import random
import time
from typing import Any

from lib.common import (build_dir, duckdb_connect, fresh_dir, na_row, row, run_timed, timed,
                        weir_cli)

SCENARIO = "catalog"
NOTE_PYI_BRANCH = "per-table branch ref (a lake branch needs one per table, not atomic)"
NOTE_PYI_MERGE = "per-table fast-forward of main to the branch head (no merge base, no conflict check)"
NOTE_PYI_LOG = "one table's snapshot log (no lake-wide log)"
NOTE_DL_NOBRANCH = "DuckLake has no branches"
NOTE_DL_NOMERGE = "DuckLake has no branches, so no merge"


def tier_config(tier: str) -> dict[str, Any]:
    if tier == "smoke":
        return {"lakes": [(3, 3), (3, 12)], "iterations": 2, "catalog_c_lakes": ["10:10"], "catalog_c_iters": 5,
                "budget_s": 60}
    if tier == "quick":
        return {"lakes": [(10, 10), (10, 1000), (1000, 1000)], "iterations": 15,
                "catalog_c_lakes": ["10:10", "1000:10", "10:10000", "1000:10000"], "catalog_c_iters": 100,
                "budget_s": 90}
    return {"lakes": [(10, 10), (10, 10000), (1000, 1000), (1000, 10000)], "iterations": 40,
            "catalog_c_lakes": ["10:10", "1000:10", "10:10000", "1000:10000", "10000:100000"],
            "catalog_c_iters": 300, "budget_s": 480}


def units(tier: str) -> list[dict[str, Any]]:
    cfg = tier_config(tier)
    out: list[dict[str, Any]] = [{"scenario": SCENARIO, "tool": "weir-catalog-c", "lakes": cfg["catalog_c_lakes"],
                                  "iterations": cfg["catalog_c_iters"]}]
    for n, c in cfg["lakes"]:
        for tool in ("weir", "pyiceberg", "ducklake"):
            out.append({"scenario": SCENARIO, "tool": tool, "tables": n, "commits": c,
                        "iterations": cfg["iterations"], "budget_s": cfg["budget_s"]})
    return out


def size_label(n: int, c: int) -> str:
    return f"{n}t/{c}c"


def tname(i: int) -> str:
    return f"t{i:04d}"


def plan(n: int, c: int) -> list[int]:
    """Tables appended to after the N creations (C - N of them), the same for every tool."""
    rng = random.Random(42)
    return [rng.randrange(n) for _ in range(max(0, c - n))]


def small_table(seed: int = 0) -> Any:
    import pyarrow as pa

    return pa.table({"id": pa.array(range(seed, seed + 100), pa.int64()),
                     "v": pa.array([float(i) / 7 for i in range(100)], pa.float64()),
                     "s": pa.array([f"row{i}" for i in range(100)], pa.string())})


def run_unit(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    if u["tool"] == "weir-catalog-c":
        return _catalog_c(u, work)
    return {"weir": _weir, "pyiceberg": _pyiceberg, "ducklake": _ducklake}[u["tool"]](u, work)


# ---- weir catalog layer (bench_catalog) --------------------------------------------------------


def _catalog_c(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    out_json = os.path.join(work, "bench_catalog.json")
    argv = [os.path.join(build_dir(), "bench_catalog"), "--iterations", str(u["iterations"]), "--json", out_json]
    for lake in u["lakes"]:
        argv += ["--lake", lake]
    env = dict(os.environ, TMPDIR=work)
    _, rss, _ = run_timed(argv, env=env, rss=True)
    with open(out_json, encoding="utf-8") as fh:
        doc = json.load(fh)
    names = {"log10": "log"}
    rows = []
    for r in doc["results"]:
        # bench_catalog gives median and p95 only, in microseconds.
        rw = row(SCENARIO, names.get(r["op"], r["op"]), size_label(r["tables"], r["commits"]), "weir-catalog-c", [],
                 note="catalog layer only (C, fake metadata locations)")
        rw.update(median_s=r["median_us"] / 1e6, p95_s=r["p95_us"] / 1e6, n=r["n"])
        rw["extra"]["peak_rss_mb"] = rss
        rows.append(rw)
    return rows


# ---- weir (Python client and CLI) ---------------------------------------------------------------


def _weir(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq
    import weir

    n, c, iters = u["tables"], u["commits"], u["iterations"]
    size = size_label(n, c)
    lake = os.path.join(fresh_dir(os.path.join(work, "weir")), "lake")
    small = small_table()
    small_path = os.path.join(work, "small.parquet")
    pq.write_table(small, small_path)
    client = weir.Client.init(lake)
    t0 = time.perf_counter()
    first_commit = ""
    for i in range(n):
        r = client.import_data(tname(i), small)
        if i == 0:
            first_commit = r.commit
    built = n
    for k in plan(n, c):
        if time.perf_counter() - t0 > u["budget_s"] * 2:  # a larger budget than the peers'
            break
        client.import_data(tname(k), small, mode="append")
        built += 1
    build_s = time.perf_counter() - t0
    rng = random.Random(7)
    rows: list[dict[str, Any]] = []
    extra = {"built_commits": built, "build_s": build_s}
    note = "" if built >= c else f"built only {built} of {c} commits in the time budget"

    def add(op: str, tool: str, times: list[float], rss: float | None = None) -> None:
        rw = row(SCENARIO, op, size, tool, times, note=note, **extra)
        if rss is not None:
            rw["extra"]["peak_rss_mb"] = rss
        rows.append(rw)

    # create_branch
    add("create_branch", "weir-py", timed(lambda i: client.create_branch(f"bp{i + 1}"), iters))
    cli_rss = [0.0]
    warm = [False]

    def cli(args: list[str]) -> float:
        # The warm-up run (untimed) is the one measured for peak RSS, under /usr/bin/time.
        dt, rss, _ = weir_cli(args, lake, rss=warm[0])
        cli_rss[0] = max(cli_rss[0], rss)
        return dt

    def cli_times(fn: Any, setup: Any = None) -> list[float]:
        cli_rss[0] = 0.0
        out = []
        for i in range(-1, iters):
            if setup is not None:
                setup(i)
            warm[0] = i < 0
            dt = fn(i)
            if i >= 0:
                out.append(dt)
        return out

    add("create_branch", "weir-cli", cli_times(lambda i: cli(["branch", "create", f"bc{i + 1}"])), cli_rss[0])
    # commit
    add("commit", "weir-py", timed(lambda i: client.import_data(tname(rng.randrange(n)), small, mode="append"),
                                   iters))
    add("commit", "weir-cli", cli_times(lambda i: cli(["import", small_path, "--table", tname(rng.randrange(n)),
                                                       "--mode", "append"])), cli_rss[0])

    # merge: a branch changes table a, main changes table b, then merge the branch into main.
    def merge_setup(prefix: str) -> Any:
        def setup(i: int) -> None:
            a = rng.randrange(n)
            b = (a + 1 + rng.randrange(n - 1)) % n if n > 1 else a
            client.create_branch(f"{prefix}{i + 1}")
            client.import_data(tname(a), small, branch=f"{prefix}{i + 1}", mode="append")
            client.import_data(tname(b), small, mode="append")
        return setup

    add("merge", "weir-py", timed(lambda i: client.merge(f"mp{i + 1}", "main"), iters, setup=merge_setup("mp")))
    add("merge", "weir-cli", cli_times(lambda i: cli(["merge", f"mc{i + 1}", "--into", "main"]),
                                       setup=merge_setup("mc")), cli_rss[0])
    # log
    add("log", "weir-py", timed(lambda i: client.get_commits("main", limit=10), iters))
    add("log", "weir-cli", cli_times(lambda i: cli(["log", "-n", "10"])), cli_rss[0])
    # time travel: t0000 as it was when created
    sql = f"SELECT * FROM {tname(0)}"

    def tt_py(i: int) -> None:
        t = client.query(sql, ref=first_commit)
        assert t.num_rows == 100, t.num_rows

    add("time_travel", "weir-py", timed(tt_py, iters))
    add("time_travel", "weir-cli", cli_times(lambda i: cli(["query", sql, "--ref", first_commit, "--format", "csv"])),
        cli_rss[0])
    client.close()
    return rows


# ---- pyiceberg SQL catalog on SQLite -------------------------------------------------------------


def _pyiceberg(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    import warnings

    from pyiceberg.catalog.sql import SqlCatalog

    warnings.filterwarnings("ignore")
    n, c, iters = u["tables"], u["commits"], u["iterations"]
    size = size_label(n, c)
    root = fresh_dir(os.path.join(work, "pyiceberg"))
    os.makedirs(os.path.join(root, "warehouse"))
    cat = SqlCatalog("bench", uri=f"sqlite:///{root}/catalog.db", warehouse=f"file://{root}/warehouse")
    cat.create_namespace("default")
    small = small_table()
    tables: dict[int, Any] = {}
    t0 = time.perf_counter()
    for i in range(n):
        t = cat.create_table(f"default.{tname(i)}", schema=small.schema)
        t.append(small)
        tables[i] = t
    first_snapshot = cat.load_table(f"default.{tname(0)}").current_snapshot().snapshot_id
    built = n
    for k in plan(n, c):
        if time.perf_counter() - t0 > u["budget_s"]:
            break
        tables[k].append(small)
        built += 1
    build_s = time.perf_counter() - t0
    tables.clear()
    note = "" if built >= c else f"built only {built} of {c} commits in the {u['budget_s']} s budget"
    extra = {"built_commits": built, "build_s": build_s}
    rng = random.Random(7)
    rows: list[dict[str, Any]] = []

    def add(op: str, times: list[float], why: str = "") -> None:
        rows.append(row(SCENARIO, op, size, "pyiceberg", times, ref="weir-py",
                        note="; ".join(x for x in (why, note) if x), **extra))

    def load(i: int) -> Any:
        return cat.load_table(f"default.{tname(i)}")

    def branch(i: int) -> None:
        t = load(rng.randrange(n))
        t.manage_snapshots().create_branch(t.current_snapshot().snapshot_id, f"b{i + 1}").commit()

    add("create_branch", timed(branch, iters), NOTE_PYI_BRANCH)
    add("commit", timed(lambda i: load(rng.randrange(n)).append(small), iters))
    pending: dict[int, int] = {}

    def merge_setup(i: int) -> None:
        a = rng.randrange(n)
        b = (a + 1 + rng.randrange(n - 1)) % n if n > 1 else a
        ta = load(a)
        ta.manage_snapshots().create_branch(ta.current_snapshot().snapshot_id, f"m{i + 1}").commit()
        ta.append(small, branch=f"m{i + 1}")
        load(b).append(small)
        pending[i] = a

    def merge(i: int) -> None:
        t = load(pending[i])
        head = t.metadata.refs[f"m{i + 1}"].snapshot_id
        t.manage_snapshots().set_current_snapshot(snapshot_id=head).commit()

    add("merge", timed(merge, iters, setup=merge_setup), NOTE_PYI_MERGE)
    add("log", timed(lambda i: load(rng.randrange(n)).history()[-10:], iters), NOTE_PYI_LOG)

    def tt(i: int) -> None:
        r = load(0).scan(snapshot_id=first_snapshot).to_arrow()
        assert r.num_rows == 100, r.num_rows

    add("time_travel", timed(tt, iters))
    return rows


# ---- DuckLake ------------------------------------------------------------------------------------


def _ducklake(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    n, c, iters = u["tables"], u["commits"], u["iterations"]
    size = size_label(n, c)
    root = fresh_dir(os.path.join(work, "ducklake"))
    con = duckdb_connect(extensions=("ducklake",))
    con.execute(f"ATTACH 'ducklake:{root}/meta.ducklake' AS lake (DATA_PATH '{root}/data')")
    small = small_table()
    con.register("small", small)
    t0 = time.perf_counter()
    first_version = 0
    for i in range(n):
        con.execute(f"CREATE TABLE lake.{tname(i)} AS SELECT * FROM small")
        if i == 0:
            first_version = con.execute("SELECT max(snapshot_id) FROM ducklake_snapshots('lake')").fetchone()[0]
    built = n
    for k in plan(n, c):
        if time.perf_counter() - t0 > u["budget_s"]:
            break
        con.execute(f"INSERT INTO lake.{tname(k)} SELECT * FROM small")
        built += 1
    build_s = time.perf_counter() - t0
    note = "" if built >= c else f"built only {built} of {c} commits in the {u['budget_s']} s budget"
    extra = {"built_commits": built, "build_s": build_s}
    rng = random.Random(7)
    rows: list[dict[str, Any]] = [na_row(SCENARIO, "create_branch", size, "ducklake", NOTE_DL_NOBRANCH)]
    rows.append(row(SCENARIO, "commit", size, "ducklake",
                    timed(lambda i: con.execute(f"INSERT INTO lake.{tname(rng.randrange(n))} SELECT * FROM small"),
                          iters), ref="weir-py", note=note, **extra))
    rows.append(na_row(SCENARIO, "merge", size, "ducklake", NOTE_DL_NOMERGE))
    rows.append(row(SCENARIO, "log", size, "ducklake",
                    timed(lambda i: con.execute("SELECT * FROM ducklake_snapshots('lake') "
                                                "ORDER BY snapshot_id DESC LIMIT 10").fetchall(), iters),
                    ref="weir-py", note=note, **extra))

    def tt(i: int) -> None:
        r = con.execute(f"SELECT * FROM lake.{tname(0)} AT (VERSION => {first_version})").fetch_arrow_table()
        assert r.num_rows == 100, r.num_rows

    rows.append(row(SCENARIO, "time_travel", size, "ducklake", timed(tt, iters), ref="weir-py", note=note, **extra))
    con.close()
    return rows
