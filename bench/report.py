#!/usr/bin/env python3
"""Renders a results file of bench/run.py as Markdown tables (for bench/README.md and
issue notes).

    .venv/bin/python bench/report.py bench/results/<file>.json [--scenario catalog ...]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from run import add_ratios, fmt_time  # noqa: E402


def table(rows: list[dict[str, Any]], scenario: str) -> str:
    rs = [r for r in rows if r["scenario"] == scenario]
    if not rs:
        return ""
    refs = {(r["scenario"], r["op"], r["size"], r["ref"]) for r in rows if r.get("ref")}
    if scenario == "memory":
        out = ["| scenario | size | tool | peak RSS MB |", "| --- | --- | --- | ---: |"]
        for r in rs:
            out.append(f"| {r['op']} | {r['size']} | {r['tool']} | {r['extra']['peak_rss_mb']:.0f} |")
        return "\n".join(out)
    out = ["| operation | size | tool | median | p95 | ratio | peak MB | notes |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for r in rs:
        e = r.get("extra", {})
        ratio = r.get("ratio")
        if ratio is not None:
            rt = f"**{ratio:.2f}×**"
        elif (r["scenario"], r["op"], r["size"], r["tool"]) in refs:
            rt = "ref"
        else:
            rt = ""
        notes = "; ".join(x for x in (e.get("throughput") or "", r.get("note") or "") if x)
        med = fmt_time(r.get("median_s"))
        p95 = fmt_time(r.get("p95_s"))
        out.append(f"| {r['op']} | {r['size']} | {r['tool']} | {med} | {p95} | {rt} | "
                   f"{e['peak_rss_mb']:.0f} | {notes} |" if e.get("peak_rss_mb") else
                   f"| {r['op']} | {r['size']} | {r['tool']} | {med} | {p95} | {rt} |  | {notes} |")
    return "\n".join(out)


def catalog_c_pivot(rows: list[dict[str, Any]]) -> str:
    """bench_catalog's rows as one table: operation x lake size, "median / p95"."""
    rs = [r for r in rows if r["tool"] == "weir-catalog-c" and r["scenario"] == "catalog"]
    if not rs:
        return ""
    sizes = list(dict.fromkeys(r["size"] for r in rs))
    ops = list(dict.fromkeys(r["op"] for r in rs))
    cell = {(r["op"], r["size"]): f"{fmt_time(r['median_s'])} / {fmt_time(r['p95_s'])}" for r in rs}
    out = ["| operation | " + " | ".join(sizes) + " |", "| --- |" + " ---: |" * len(sizes)]
    for op in ops:
        out.append(f"| {op} | " + " | ".join(cell.get((op, sz), "") for sz in sizes) + " |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--scenario", action="append")
    ap.add_argument("--exclude-tool", action="append", default=[])
    args = ap.parse_args()
    with open(args.results, encoding="utf-8") as fh:
        doc = json.load(fh)
    rows = [r for r in doc["rows"] if r["tool"] not in args.exclude_tool
            and not (r["tool"] == "weir-catalog-c" and r["scenario"] == "catalog")]
    pivot = catalog_c_pivot(doc["rows"]) if "weir-catalog-c" not in args.exclude_tool else ""
    add_ratios(rows)
    m = doc["meta"]
    print(f"Tier {m['tier']}, commit {m['git_commit']}, {m['host']['cpus']} CPUs, wall {m.get('wall_s', 0):.0f} s, "
          f"load {m['host']['load_at_start'][0]:.1f} at start, {m.get('load_at_end', [0])[0]:.1f} at end.\n")
    for sc in args.scenario or ["catalog", "write", "validate", "pipeline", "memory"]:
        t = table(rows, sc)
        if t:
            print(f"#### {sc}\n\n{t}\n")
        if sc == "catalog" and pivot:
            print("#### catalog layer alone (bench_catalog, median / p95)\n\n" + pivot + "\n")
    if doc.get("errors"):
        print("Failed units: " + "; ".join(f"{e['unit']['scenario']} {e['unit']['tool']}: "
                                           f"{e['error'].splitlines()[0]}" for e in doc["errors"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
