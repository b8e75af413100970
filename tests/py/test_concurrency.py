"""Concurrent writers lose nothing; a killed writer leaves every branch valid."""
from __future__ import annotations

import pytest

import os
import random
import signal
import subprocess
import time

from conftest import TITANIC, count, weir, weir_bin, weir_json, weir_list

pytestmark = pytest.mark.cli


def test_eight_concurrent_imports_lose_no_commit(lake):
    env = dict(os.environ, WEIR_AUTHOR="tester")
    # Appending needs the table (an append to a missing table is refused as a likely typo).
    assert weir("import", TITANIC, "--table", "shared", lake=lake).returncode == 0
    procs = []
    for i in range(8):
        # Four processes create their own tables, four append to one shared table.
        args = ["import", str(TITANIC), "--table", f"t{i}"] if i < 4 else \
               ["import", str(TITANIC), "--table", "shared", "--mode", "append"]
        procs.append(subprocess.Popen([str(weir_bin()), "--lake", str(lake), *args],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    log = weir_list("log", lake=lake)
    assert len(log) == 10   # the first commit, the shared table's creation and eight imports
    tables = {t["table"]: t["record_count"] for t in weir_list("tables", lake=lake)}
    assert tables == {"default.t0": 891, "default.t1": 891, "default.t2": 891, "default.t3": 891,
                      "default.shared": 5 * 891}
    assert count(lake, "SELECT count(*) FROM shared") == 5 * 891


def _all_commits_readable(lake):
    for c in weir_list("log", lake=lake):
        for t in weir_json("show", c["hash"], lake=lake)["tables"]:
            n = count(lake, f"SELECT count(*) FROM {t['table']}", ref=c["hash"])
            assert n == t["record_count"], (c["hash"], t)


def test_killed_import_leaves_branches_valid(lake):
    rng = random.Random(7)
    env = dict(os.environ, WEIR_AUTHOR="tester")
    t0 = time.monotonic()
    weir("import", TITANIC, "--table", "base", lake=lake)
    duration = time.monotonic() - t0
    completed = 0
    iterations = 20
    for _ in range(iterations):
        p = subprocess.Popen([str(weir_bin()), "--lake", str(lake), "import", str(TITANIC), "--table", "base",
                              "--mode", "append"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        # Kill at a uniformly random instant of a typical import's lifetime.
        time.sleep(rng.uniform(0.0, duration * 1.2))
        p.send_signal(signal.SIGKILL)
        if p.wait() == 0:
            completed += 1
    # Most kills must land mid-import for this test to mean anything.
    assert completed < iterations // 2, f"{completed} of {iterations} imports finished before the kill"
    branches = weir_list("branch", lake=lake)
    assert [b["name"] for b in branches] == ["main"]
    head = branches[0]["head"]
    assert any(c["hash"] == head for c in weir_list("log", lake=lake))
    n = count(lake, "SELECT count(*) FROM base")
    assert n % 891 == 0 and n >= 891
    commits = len(weir_list("log", lake=lake))
    assert n == 891 * (commits - 1)   # every commit is a whole import, none half-written
    assert weir_list("tables", lake=lake)[0]["record_count"] == n
    _all_commits_readable(lake)
    # The lake still takes writes.
    assert weir("import", TITANIC, "--table", "after", lake=lake).returncode == 0
