#!/usr/bin/env python3
"""weir's benchmark harness: weir side by side with the tools a data engineer would
otherwise use, every ratio measured in the same run on the same data.

    .venv/bin/python bench/run.py --tier quick            # < 10 min on 2 cores
    .venv/bin/python bench/run.py --tier full             # the real sizes (long)
    .venv/bin/python bench/run.py --tier quick --only catalog --only write

Scenarios: catalog, write, validate, pipeline, memory (see bench/README.md). Each unit of
work (one tool on one data size) runs in its own child process, so its peak RSS is its
own. Results: a table on stdout and bench/results/<timestamp>.json.

Ratio = peer median / weir median for the same operation and size: above 1 means weir is
faster.
"""
from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from lib.common import ROOT, build_dir, python, weir_bin, write_json  # noqa: E402

SCENARIOS = ["catalog", "write", "validate", "pipeline", "compact", "partition", "alter", "memory"]
REQUIREMENTS = os.path.join(HERE, "requirements.txt")
CONSTRAINTS = os.path.join(ROOT, "python", "requirements-dev.txt")
# What each scenario needs beyond the SDK's development requirements.
NEEDS = {"catalog": ["sqlalchemy"], "write": ["sqlalchemy"], "validate": ["pandera", "patito"],
         "pipeline": ["dbt.adapters.duckdb"], "compact": [], "partition": [], "alter": [], "memory": []}


def missing_modules(mods: list[str]) -> list[str]:
    code = "import importlib.util, sys\n" \
           "print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m.split('.')[0]) is None " \
           "or (('.' in m) and importlib.util.find_spec(m) is None)))"
    out = subprocess.run([python(), "-c", code, *mods], capture_output=True, text=True, check=False).stdout
    return out.split()


def ensure_requirements(scenarios: list[str], allow_install: bool) -> None:
    mods = sorted({m for s in scenarios for m in NEEDS.get(s, [])})
    miss = missing_modules(mods)
    if not miss:
        return
    if not allow_install:
        print(f"bench: missing {', '.join(miss)}; the tools that need them will be reported as errors "
              f"(install with: {python()} -m pip install -c {CONSTRAINTS} -r {REQUIREMENTS})", file=sys.stderr)
        return
    print(f"bench: installing benchmark requirements ({', '.join(miss)} missing) from {REQUIREMENTS}",
          file=sys.stderr)
    subprocess.run([python(), "-m", "pip", "install", "-q", "-c", CONSTRAINTS, "-r", REQUIREMENTS], check=False)


def check_build() -> None:
    need = [weir_bin(), os.path.join(build_dir(), "libweir.so"), os.path.join(build_dir(), "bench_catalog"),
            os.path.join(build_dir(), "bench_validate")]
    missing = [p for p in need if not os.path.exists(p)]
    if missing:
        sys.exit(f"bench: missing {', '.join(missing)}: run `make build` first (or set WEIR_BUILD_DIR)")


def git_commit() -> str:
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                       check=False)
    return r.stdout.strip()


def run_unit(unit: dict[str, Any], work_root: str, timeout: float) -> tuple[list[dict[str, Any]], str | None]:
    """Runs one unit in a child process; returns its rows (with peak memory) or an error."""
    with tempfile.TemporaryDirectory(prefix="unit-", dir=work_root) as work:
        spec = os.path.join(work, "spec.json")
        out = os.path.join(work, "out.json")
        write_json(spec, unit)
        load0 = os.getloadavg()[0]
        t0 = time.perf_counter()
        env = dict(os.environ, WEIR_PYTHON=python(), PYTHONUNBUFFERED="1")
        p = subprocess.Popen([python(), os.path.join(HERE, "unit.py"), spec, out, work], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        err = None
        try:
            stdout, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, _ = p.communicate()
            err = f"timed out after {timeout:.0f} s"
        wall = time.perf_counter() - t0
        load1 = os.getloadavg()[0]
        if err is None and not os.path.exists(out):
            err = f"unit exited {p.returncode} without a result: {stdout.decode(errors='replace')[-1500:]}"
        if err is not None:
            return [], err
        with open(out, encoding="utf-8") as fh:
            doc = json.load(fh)
        if "error" in doc:
            return [], doc["error"] + "\n" + doc.get("traceback", "")[-1500:]
        rows = doc["rows"]
        for r in rows:
            r["extra"].setdefault("peak_rss_mb", doc["self_peak_rss_mb"])
            r["extra"].setdefault("baseline_rss_mb", doc["baseline_rss_mb"])
            r["extra"]["unit_wall_s"] = wall
            r["extra"]["load1"] = [round(load0, 2), round(load1, 2)]
        return rows, None


def add_ratios(rows: list[dict[str, Any]]) -> None:
    index = {(r["scenario"], r["op"], r["size"], r["tool"]): r for r in rows}
    for r in rows:
        r["ratio"] = None
        ref = r.get("ref")
        if not ref or r.get("median_s") is None:
            continue
        w = index.get((r["scenario"], r["op"], r["size"], ref))
        if w and w.get("median_s"):
            r["ratio"] = r["median_s"] / w["median_s"]


def memory_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Scenario `memory`: the peak RSS of each weir unit (one tool on one size), with the
    operations it covered."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        if not r["tool"].startswith("weir") or r["scenario"] == "memory" or r["extra"].get("peak_rss_mb") is None:
            continue
        size = "all sizes" if r["tool"] == "weir-catalog-c" else r["size"]
        groups.setdefault((r["scenario"], r["tool"], size), []).append(r)
    out = []
    for (sc, tool, size), rs in groups.items():
        ops = list(dict.fromkeys(r["op"] for r in rs))
        out.append({"scenario": "memory", "op": sc, "size": size, "tool": tool, "times_s": [], "median_s": None,
                    "p95_s": None, "n": 0, "ref": None, "ratio": None,
                    "note": "peak RSS of the process doing the work; ops: " + ",".join(ops),
                    "extra": {"peak_rss_mb": max(r["extra"]["peak_rss_mb"] for r in rs),
                              "baseline_rss_mb": rs[0]["extra"].get("baseline_rss_mb")}})
    return out


def fmt_time(s: float | None) -> str:
    if s is None:
        return "n/a"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def print_table(rows: list[dict[str, Any]], file: Any = sys.stdout) -> None:
    head = ["scenario", "operation", "size", "tool", "median", "p95", "ratio", "peak MB", "throughput / note"]
    lines = [head]
    refs = {(r["scenario"], r["op"], r["size"], r["ref"]) for r in rows if r.get("ref")}
    for r in rows:
        e = r.get("extra", {})
        ratio = r.get("ratio")
        thr = e.get("throughput") or ""
        note = r.get("note") or ""
        if r["scenario"] == "memory":
            med, p95 = "", ""
        else:
            med, p95 = fmt_time(r.get("median_s")), fmt_time(r.get("p95_s"))
        lines.append([r["scenario"], r["op"], r["size"], r["tool"], med, p95,
                      f"{ratio:.2f}x" if ratio is not None else
                      ("ref" if (r["scenario"], r["op"], r["size"], r["tool"]) in refs else ""),
                      f"{e['peak_rss_mb']:.0f}" if e.get("peak_rss_mb") else "",
                      "; ".join(x for x in (thr, note) if x)[:90]])
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head) - 1)]
    for k, line in enumerate(lines):
        print("  ".join(str(c).ljust(widths[i]) for i, c in enumerate(line[:-1])) + "  " + str(line[-1]), file=file)
        if k == 0:
            print("  ".join("-" * w for w in widths) + "  " + "-" * 17, file=file)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tier", choices=["smoke", "quick", "full"], default="quick",
                    help="sizes: smoke (tiny, for tests/py/test_bench_smoke.py), quick (< 10 min), full")
    ap.add_argument("--only", action="append", choices=SCENARIOS, help="run only this scenario (repeatable)")
    ap.add_argument("--out", help="results JSON path (default bench/results/<timestamp>.json)")
    ap.add_argument("--no-install", action="store_true", help="do not pip-install missing benchmark packages")
    ap.add_argument("--unit-timeout", type=float, default=None, help="seconds allowed per unit")
    ap.add_argument("--tool", action="append", help="run only units of this tool (repeatable; for profiling)")
    args = ap.parse_args(argv)

    check_build()
    # Every tool of the run uses the same build: the CLI, the bench programs and the
    # library the Python SDK loads (the SDK would otherwise find build/libweir.so).
    os.environ.setdefault("WEIR_LIBRARY", os.path.join(build_dir(), "libweir.so"))
    scenarios = args.only or SCENARIOS
    ensure_requirements(scenarios, not args.no_install)
    timeout = args.unit_timeout or {"smoke": 300, "quick": 300, "full": 7200}[args.tier]
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or os.path.join(HERE, "results", f"{stamp}-{args.tier}.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    work_root = os.environ.get("WEIR_BENCH_WORK") or tempfile.mkdtemp(prefix="weir-bench-")
    os.makedirs(work_root, exist_ok=True)

    t_start = time.perf_counter()
    all_rows: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    meta = {"tier": args.tier, "started": dt.datetime.now().isoformat(timespec="seconds"), "git_commit": git_commit(),
            "weir_library": os.environ.get("WEIR_LIBRARY"), "host": {"cpus": os.cpu_count(), "machine": platform.machine(), "python": platform.python_version(),
                     "load_at_start": os.getloadavg()}, "build_dir": build_dir()}

    def save() -> None:
        add_ratios(all_rows)
        doc = {"meta": dict(meta, wall_s=time.perf_counter() - t_start, load_at_end=os.getloadavg()),
               "rows": all_rows + (memory_rows(all_rows) if "memory" in scenarios else []), "errors": errors}
        write_json(out, doc)

    for sc in scenarios:
        if sc == "memory":
            continue
        mod = importlib.import_module(f"scenarios.{sc}")
        for unit in mod.units(args.tier):
            if args.tool and unit["tool"] not in args.tool:
                continue
            label = " ".join(f"{k}={v}" for k, v in unit.items() if k not in ("scenario",) and not isinstance(v, list))
            print(f"bench: {sc}: {label} ...", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            rows, err = run_unit(unit, work_root, timeout)
            print(f"bench:   {time.perf_counter() - t0:.1f} s" + (f"  ERROR {err.splitlines()[0]}" if err else ""),
                  file=sys.stderr, flush=True)
            if err:
                errors.append({"unit": unit, "error": err})
            all_rows.extend(rows)
            save()
    if "memory" in scenarios and not any(r["tool"].startswith("weir") for r in all_rows):
        # memory alone: run the weir units of the other scenarios to measure them.
        for sc in ("catalog", "write", "validate", "pipeline"):
            mod = importlib.import_module(f"scenarios.{sc}")
            for unit in mod.units(args.tier):
                if not unit["tool"].startswith("weir"):
                    continue
                print(f"bench: memory: {sc} {unit['tool']} ...", file=sys.stderr, flush=True)
                rows, err = run_unit(unit, work_root, timeout)
                if err:
                    errors.append({"unit": unit, "error": err})
                all_rows.extend(rows)
                save()
    save()
    wall = time.perf_counter() - t_start
    with open(out, encoding="utf-8") as fh:
        doc = json.load(fh)
    print()
    print(f"weir benchmarks, tier {args.tier}, commit {meta['git_commit']}, {os.cpu_count()} CPUs, "
          f"load {meta['host']['load_at_start'][0]:.1f} at start, {os.getloadavg()[0]:.1f} at end, "
          f"wall {wall:.0f} s")
    print("ratio = peer median / weir median (same run, same data): > 1 means weir is faster\n")
    print_table(doc["rows"])
    if errors:
        print(f"\n{len(errors)} unit(s) failed:")
        for e in errors:
            print(f"  {e['unit']['scenario']} {e['unit']['tool']}: {e['error'].splitlines()[0]}")
    print(f"\nresults: {out}")
    if not os.environ.get("WEIR_BENCH_WORK"):
        subprocess.run(["rm", "-rf", work_root], check=False)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
