"""Runs one benchmark unit in its own process, so that its peak memory is its own.

    python bench/unit.py SPEC_JSON OUT_JSON WORKDIR

SPEC_JSON is a unit from a scenario's units(); OUT_JSON receives
{"rows": [...], "self_peak_rss_mb": ..., "baseline_rss_mb": ...}. bench/run.py starts it.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lib.common import self_rss_mb, write_json  # noqa: E402


def main() -> int:
    spec_path, out_path, work = sys.argv[1:4]
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)
    mod = importlib.import_module(f"scenarios.{spec['scenario']}")
    baseline = self_rss_mb()
    try:
        rows = mod.run_unit(spec, work)
    except Exception as e:  # noqa: BLE001 - reported as a failed unit
        write_json(out_path, {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc(),
                              "self_peak_rss_mb": self_rss_mb(), "baseline_rss_mb": baseline})
        return 1
    write_json(out_path, {"rows": rows, "self_peak_rss_mb": self_rss_mb(), "baseline_rss_mb": baseline})
    return 0


if __name__ == "__main__":
    sys.exit(main())
