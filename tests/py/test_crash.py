"""Crashes and faults at every step of a write (docs/failpoints.md).

A process killed at any instant leaves every branch at a commit that existed before or
after the operation, every table at every ref readable through weir and pyiceberg, and a
catalog that passes PRAGMA integrity_check; a full or failing disk at any step gives a
clear error and changes nothing.

These tests drive the failpoint build (`-DWEIR_FAILPOINTS=ON`, the sanitizer build of
`make test-asan`): $WEIR_FAILPOINTS stops or fails the CLI exactly between two steps of a
write, so every step is covered deterministically, and the randomized harness picks
points and hits from a seeded generator. In a build without failpoints they are skipped,
unless $WEIR_REQUIRE_FAILPOINTS is set (as `make test-asan` does), where that is an error.
$WEIR_KILL_ITERATIONS sets the randomized harness's length (`make soak`: 10,000).
"""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import weir as sdk
from conftest import BUILD, TITANIC, weir, weir_bin, weir_json
from test_client_support import library_path

pytestmark = pytest.mark.cli

STEPS = ["stage.data.before", "stage.data.after", "iceberg.manifest.before", "iceberg.manifest.after",
         "iceberg.metadata.before", "iceberg.metadata.after", "catalog.commit.before", "catalog.commit.after"]
#: Steps whose failure leaves the write uncommitted (after catalog.commit.after the
#: commit is durable: the process dies, or reports an error, after it).
BEFORE_COMMIT = STEPS[:-1]


def failpoints_built() -> bool:
    cache = BUILD / "CMakeCache.txt"
    return cache.exists() and "WEIR_FAILPOINTS:BOOL=ON" in cache.read_text()


@pytest.fixture(autouse=True)
def _need_failpoints():
    if not failpoints_built():
        if os.environ.get("WEIR_REQUIRE_FAILPOINTS"):
            pytest.fail(f"{BUILD} was not built with -DWEIR_FAILPOINTS=ON, which these tests need")
        pytest.skip(f"{BUILD} has no failpoints (the sanitizer build of make test-asan has them)")


def faulty(lake, *args, failpoints: str, **kw) -> subprocess.CompletedProcess:
    """The CLI with $WEIR_FAILPOINTS set."""
    return weir(*args, lake=lake, env={"WEIR_FAILPOINTS": failpoints, "ASAN_OPTIONS": "detect_leaks=1"}, **kw)


# ---- the invariants checked after every crash or fault ------------------------------------


def _client(lake) -> sdk.Client:
    # Reads go through the library in-process (the plain build's, $WEIR_LIBRARY): fast
    # enough to check every ref after every one of thousands of kills.
    return sdk.Client(lake, library=library_path())


def refs(lake) -> dict[str, str]:
    with _client(lake) as c:
        out = {b.name: b.head for b in c.get_branches()}
        out.update({"tag:" + t.name: t.target for t in c.get_tags()})
    return out


def state(lake) -> dict[str, dict[str, int]]:
    """Row count of every table at every ref, as the catalog records them."""
    with _client(lake) as c:
        heads = {b.name: b.head for b in c.get_branches()}
        heads.update({"tag:" + t.name: t.target for t in c.get_tags()})
        return {name: {t.table: t.record_count or 0 for t in c.get_tables(ref=h)} for name, h in heads.items()}


def check_lake(lake) -> None:
    """Every ref reads through weir and pyiceberg with the counts the catalog records, and
    the catalog database is intact."""
    from pyiceberg.table import StaticTable

    db = sqlite3.connect(Path(lake) / "catalog.db")
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        db.close()
    with _client(lake) as c:
        heads = {b.name: b.head for b in c.get_branches()}
        heads.update({"tag:" + t.name: t.target for t in c.get_tags()})
        for name, h in heads.items():
            for t in c.get_tables(ref=h):
                n = c.query(f"SELECT count(*) AS n FROM {t.table}", ref=h).to_pylist()[0]["n"]
                assert n == (t.record_count or 0), (name, t)
                scanned = StaticTable.from_metadata(t.metadata_location).scan().to_arrow().num_rows
                assert scanned == n, (name, t)


def no_run_branches(lake) -> list[str]:
    return [b for b in refs(lake) if b.startswith("run/")]


# ---- every step, deterministically --------------------------------------------------------


@pytest.mark.parametrize("step", STEPS)
def test_import_killed_at_each_step_is_before_or_after(titanic_lake, step):
    before = state(titanic_lake)
    r = faulty(titanic_lake, "import", TITANIC, "--table", "titanic", "--mode", "append", failpoints=f"{step}:kill")
    assert r.returncode == -signal.SIGKILL, r.stderr
    after = state(titanic_lake)
    n = after["main"]["default.titanic"]
    assert n == (2 * 891 if step == "catalog.commit.after" else 891)
    assert after == before if step != "catalog.commit.after" else after["main"] == {"default.titanic": 1782}
    check_lake(titanic_lake)
    # The lake takes writes afterwards.
    assert weir("import", TITANIC, "--table", "titanic", "--mode", "append", lake=titanic_lake).returncode == 0


@pytest.mark.parametrize("fault,message", [("eio", "Input/output error"), ("enospc", "No space left on device")])
@pytest.mark.parametrize("step", BEFORE_COMMIT + ["fs.write"])
def test_failing_disk_at_each_step_is_a_clear_error_and_changes_nothing(titanic_lake, step, fault, message):
    before = state(titanic_lake)
    log = weir_json("log", lake=titanic_lake)
    r = faulty(titanic_lake, "import", TITANIC, "--table", "titanic", "--mode", "replace", failpoints=f"{step}:{fault}")
    assert r.returncode == 1, r.stderr
    assert message in r.stderr, r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert state(titanic_lake) == before and weir_json("log", lake=titanic_lake) == log
    check_lake(titanic_lake)


def test_failing_disk_during_a_merge_changes_nothing(titanic_lake):
    assert weir("branch", "create", "dev", lake=titanic_lake).returncode == 0
    assert weir("import", TITANIC, "--table", "other", "--branch", "dev", lake=titanic_lake).returncode == 0
    assert weir("import", TITANIC, "--table", "mine", lake=titanic_lake).returncode == 0
    before = state(titanic_lake)
    r = faulty(titanic_lake, "merge", "dev", "--into", "main", failpoints="catalog.commit.before:enospc")
    assert r.returncode == 1 and "No space left on device" in r.stderr, r.stderr
    assert state(titanic_lake) == before
    r = faulty(titanic_lake, "merge", "dev", "--into", "main", failpoints="catalog.commit.before:kill")
    assert r.returncode == -signal.SIGKILL
    assert state(titanic_lake) == before
    check_lake(titanic_lake)


RUN_PROJECT = "-- weir: name=firsts\nSELECT PassengerId, Pclass FROM titanic WHERE Pclass = 1\n"


@pytest.mark.parametrize("step", ["run.publish.before", "run.publish.commit", "run.publish.after"])
def test_run_killed_while_publishing_leaves_all_or_nothing(titanic_lake, tmp_path, step):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "firsts.sql").write_text(RUN_PROJECT)
    r = faulty(titanic_lake, "run", proj, failpoints=f"{step}:kill")
    assert r.returncode == -signal.SIGKILL, r.stderr
    tables = state(titanic_lake)["main"]
    run = weir_json("runs", lake=titanic_lake)[0]
    if step == "run.publish.after":
        # Published: the outputs, the status and the removal of run/<id> went together.
        assert tables == {"default.titanic": 891, "default.firsts": 216}
        assert run["status"] == "succeeded"
        assert no_run_branches(titanic_lake) == []
    else:
        assert tables == {"default.titanic": 891}
        assert run["status"] == "interrupted"
        assert no_run_branches(titanic_lake) == [run["run_branch"]]
    check_lake(titanic_lake)


# ---- randomized -----------------------------------------------------------------------


IMPORT_POINTS = STEPS
MERGE_POINTS = ["catalog.commit.before", "catalog.commit.after"]
RUN_POINTS = STEPS + ["run.publish.before", "run.publish.commit", "run.publish.after"]


def _operation(rng: random.Random, proj) -> tuple[list[str], str, list[str]]:
    """A random write, what it is, and the failpoints it passes (each once)."""
    kind = rng.choice(["append", "replace", "create", "merge", "run"])
    if kind == "append":
        return ["import", str(TITANIC), "--table", "titanic", "--mode", "append"], kind, IMPORT_POINTS
    if kind == "replace":
        return ["import", str(TITANIC), "--table", "titanic", "--mode", "replace"], kind, IMPORT_POINTS
    if kind == "create":
        return ["import", str(TITANIC), "--table", f"t{rng.randrange(10**9)}"], kind, IMPORT_POINTS
    if kind == "merge":
        return ["merge", "dev", "--into", "main", "--no-ff"], kind, MERGE_POINTS
    return ["run", str(proj)], kind, RUN_POINTS


def test_randomized_kills_leave_every_ref_valid(titanic_lake, tmp_path):
    iterations = int(os.environ.get("WEIR_KILL_ITERATIONS", "24"))
    rng = random.Random(int(os.environ.get("WEIR_KILL_SEED", "20261201")))
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "firsts.sql").write_text(RUN_PROJECT)
    assert weir("branch", "create", "dev", lake=titanic_lake).returncode == 0
    assert weir("import", TITANIC, "--table", "devonly", "--branch", "dev", lake=titanic_lake).returncode == 0
    killed = 0
    for i in range(iterations):
        args, kind, points = _operation(rng, proj)
        before = state(titanic_lake)
        # Mostly a point the operation passes; now and then one it does not (it completes).
        point = rng.choice(points) if rng.random() < 0.9 else "nowhere"
        nth = 1
        r = faulty(titanic_lake, *args, failpoints=f"{point}:kill:{nth}")
        after = state(titanic_lake)
        if r.returncode == -signal.SIGKILL:
            killed += 1
        else:
            assert r.returncode in (0, 4), (i, args, point, nth, r.returncode, r.stderr)
        # Before or after: tables on main are either as they were, or as the operation makes them.
        b, a = before["main"], after["main"]
        if kind == "append":
            assert a.get("default.titanic") in (b["default.titanic"], b["default.titanic"] + 891), (i, point, nth)
        elif kind == "replace":
            assert a.get("default.titanic") in (b["default.titanic"], 891), (i, point, nth)
        elif kind == "create":
            new = set(a) - set(b)
            assert len(new) <= 1 and all(a[t] == 891 for t in new), (i, point, nth)
        elif kind == "run":
            assert a.get("default.firsts") in (b.get("default.firsts"), 216 * a["default.titanic"] // 891 or None)
        assert {k: v for k, v in a.items() if k not in ("default.titanic", "default.firsts", "default.devonly")
                and not k.startswith("default.t")} == {}, (i, a)
        check_lake(titanic_lake)
        if kind == "run" and r.returncode == 0:
            assert [b for b in no_run_branches(titanic_lake) if b not in before] == []
    # Enough kills landed for the test to mean something.
    assert killed >= iterations // 2, f"only {killed} of {iterations} operations were killed"
    assert weir("import", TITANIC, "--table", "final", lake=titanic_lake).returncode == 0


# ---- a real full disk -----------------------------------------------------------------------

FULL_DISK = r'''
import json, os, sqlite3, subprocess, sys
weir_bin, titanic, mnt = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(mnt, exist_ok=True)
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mnt], check=True)
lake = os.path.join(mnt, "lake")
def weir(*args):
    r = subprocess.run([weir_bin, "--lake", lake, *args], capture_output=True, text=True)
    return r.returncode, r.stderr.strip(), r.stdout
out = {"init": weir("init", lake)[0], "create": weir("import", titanic, "--table", "t")[0]}
# weir keeps the catalog's -wal and -shm files (persistent WAL, so that readers without
# write access can open it), and their room is then taken already. Python's sqlite3 does
# not: closing the last connection removes them, as a lake last closed by an older weir
# has none. Then even a small catalog write, or a read, needs new room on the disk.
db = sqlite3.connect(os.path.join(lake, "catalog.db"))
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
assert not os.path.exists(os.path.join(lake, "catalog.db-shm"))
# Fill the disk but for a few KB: the next write cannot fit.
ballast = os.path.join(mnt, "ballast")
fd = os.open(ballast, os.O_WRONLY | os.O_CREAT)
try:
    while True:
        os.write(fd, b"\0" * 4096)
except OSError:
    pass
os.close(fd)
os.truncate(ballast, max(0, os.path.getsize(ballast) - 24 * 1024))
out["full"] = [weir("import", titanic, "--table", "t", "--mode", "append")[:2] for _ in range(3)]
out["branch_full"] = weir("branch", "create", "x")[:2]
out["count_full"] = weir("query", "SELECT count(*) AS n FROM t", "--format", "json")
os.remove(ballast)
db = sqlite3.connect(os.path.join(lake, "catalog.db"))
out["integrity"] = db.execute("PRAGMA integrity_check").fetchall()
db.close()
out["after"] = weir("import", titanic, "--table", "t", "--mode", "append")[:2]
out["count_after"] = weir("query", "SELECT count(*) AS n FROM t", "--format", "json")[2]
print(json.dumps(out))
'''


def test_a_full_disk_is_a_clear_error_and_the_lake_recovers(tmp_path):
    """A real ENOSPC: a small tmpfs in a user and mount namespace of the test's own."""
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no unprivileged user and mount namespaces here: {probe.stderr.decode().strip()}")
    script = tmp_path / "full.py"
    script.write_text(FULL_DISK)
    r = subprocess.run(["unshare", "-rm", sys.executable, str(script), str(weir_bin()), str(TITANIC),
                        str(tmp_path / "mnt")], capture_output=True, text=True,
                       env=dict(os.environ, WEIR_AUTHOR="tester", ASAN_OPTIONS="detect_leaks=1"))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["init"] == 0 and out["create"] == 0
    for code, message in out["full"] + [out["branch_full"]]:
        assert code == 1, message
        assert message.startswith("error: ") and "\n" not in message
        assert "No space left on device" in message or "no space left on the disk" in message, message
    assert out["integrity"] == [["ok"]]
    # Even a read needs room for SQLite's shared-memory index of the WAL: it fails, saying why.
    code, message, _ = out["count_full"]
    assert code == 1 and "no space left on the disk that holds it" in message, message
    assert out["after"][0] == 0, out["after"]
    assert json.loads(out["count_after"]) == [{"n": 1782}]
