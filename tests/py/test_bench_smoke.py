"""A tiny run of the benchmark harness (bench/run.py --tier smoke), so that it cannot rot.

It checks that every scenario runs and writes well-formed JSON results. It asserts no
timing: benchmark numbers belong in bench/results, never in tests.
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys


from conftest import BUILD, ROOT

SCENARIOS = ["catalog", "write", "validate", "pipeline", "compact", "partition", "alter", "memory"]
# Peers whose packages come from bench/requirements.txt: without them their units fail
# with ModuleNotFoundError, which this test tolerates (the weir units must still run).
OPTIONAL = {"pyiceberg": "sqlalchemy", "pandera": "pandera", "patito": "patito", "dbt": "dbt"}
ROW_KEYS = {"scenario", "op", "size", "tool", "times_s", "median_s", "p95_s", "n", "ref", "ratio", "note", "extra"}


def test_bench_smoke(tmp_path):
    out = tmp_path / "results.json"
    env = dict(os.environ, WEIR_BUILD_DIR=str(BUILD), WEIR_BENCH_DATA=str(tmp_path / "data"),
               WEIR_BENCH_WORK=str(tmp_path / "work"), WEIR_CACHE=os.environ.get("WEIR_CACHE", str(tmp_path / "cache")))
    env.setdefault("WEIR_PYTHON", sys.executable)
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--tier", "smoke", "--no-install",
                        "--out", str(out)], capture_output=True, text=True, env=env, timeout=900)
    assert out.exists(), p.stdout[-3000:] + p.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["meta"]["tier"] == "smoke"
    missing = {tool for tool, mod in OPTIONAL.items() if importlib.util.find_spec(mod) is None}
    for e in doc["errors"]:
        tool = e["unit"]["tool"]
        assert any(tool.startswith(m) for m in missing) and "ModuleNotFoundError" in e["error"], e
    rows = doc["rows"]
    for r in rows:
        assert ROW_KEYS <= set(r), r
        if r["extra"].get("unsupported") or r["scenario"] == "memory":
            continue
        assert r["n"] >= 1 and r["median_s"] is not None and math.isfinite(r["median_s"]), r
        assert r["median_s"] >= 0 and r["p95_s"] >= 0, r
        assert r["extra"].get("peak_rss_mb", 0) > 0, r
        if r["ref"] and r["tool"] not in missing:
            assert r["ratio"] is not None, r
    by_scenario = {s: [r for r in rows if r["scenario"] == s] for s in SCENARIOS}
    for s, rs in by_scenario.items():
        assert any(r["tool"].startswith("weir") for r in rs), f"no weir rows for scenario {s}"
    ops = {(r["scenario"], r["op"]) for r in rows}
    for op in ("create_branch", "commit", "merge", "log", "time_travel"):
        assert ("catalog", op) in ops
    assert {("write", "append"), ("write", "replace"), ("pipeline", "run_5_models"),
            ("pipeline", "python_handoff_total"), ("validate", "unique"), ("compact", "compact"),
            ("partition", "month_revenue"), ("alter", "alter (rename)"), ("alter", "append (1 row)")} <= ops
    # The table printed on stdout names every scenario.
    for s in SCENARIOS:
        assert s in p.stdout
