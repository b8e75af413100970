"""Garbage collection and branch pruning (docs/gc.md): `weir gc` deletes exactly the
warehouse files no live commit reaches, never one a branch, tag or unexpired commit
reaches, never one younger than the grace period; `--expire-before` makes old commits
unreadable with a clear message; `weir branch prune --runs` deletes run branches only.

What gc may delete is checked against listings the tests compute themselves: the files
a write left behind (the warehouse before and after it), and the files every ref reaches
as pyiceberg walks them (every snapshot of every table version of every live commit).
"""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import datetime as dt
import json
import os
import pathlib
import shutil
import signal
import subprocess
import threading
import uuid

import pyarrow as pa
import pytest

import weir as sdk
from conftest import BUILD, GATED_MODEL, TITANIC, release, start_weir, weir, weir_bin, weir_json, weir_list
from test_client_support import library_path

pytestmark = pytest.mark.cli

OLD = 2 * 3600  # seconds: older than the default grace period


# ---- independent listings ------------------------------------------------------------------

def warehouse_files(lake: pathlib.Path) -> set[str]:
    return {str(p) for p in (lake / "warehouse").rglob("*") if p.is_file()}


def age(paths, seconds: int = OLD) -> None:
    """Makes files look `seconds` old (gc measures the grace period on mtimes)."""
    for p in paths:
        t = os.stat(p).st_mtime - seconds
        os.utime(p, (t, t))


def age_all(lake: pathlib.Path) -> None:
    age(warehouse_files(lake))


def _path(uri: str) -> str:
    return uri[len("file://"):] if uri.startswith("file://") else uri


def reachable(lake: pathlib.Path) -> set[str]:
    """Every file a live commit reaches, found through the SDK (commits, tables) and
    pyiceberg (snapshots, manifest lists, manifests, data files): not weir's C walk."""
    from pyiceberg.table import StaticTable

    metas: set[str] = set()
    with sdk.Client(lake, library=library_path()) as c:
        heads = [b.head for b in c.get_branches()] + [t.target for t in c.get_tags()]
        for h in heads:
            for commit in c.get_commits(ref=h):
                if commit.expired is None:
                    metas.update(t.metadata_location for t in c.get_commit(commit.hash).tables)
    out: set[str] = set()
    for m in metas:
        out.add(_path(m))
        t = StaticTable.from_metadata(m)
        for snap in t.metadata.snapshots:
            out.add(_path(snap.manifest_list))
            for mf in snap.manifests(t.io):
                out.add(_path(mf.manifest_path))
                for e in mf.fetch_manifest_entry(t.io, discard_deleted=False):
                    out.add(_path(e.data_file.file_path))
    return out


def every_ref_reads(lake: pathlib.Path) -> None:
    """Every table at every branch and tag reads with weir (all rows) and with pyiceberg
    from its metadata file."""
    from pyiceberg.table import StaticTable

    with sdk.Client(lake, library=library_path()) as c:
        refs = [b.name for b in c.get_branches()] + [t.name for t in c.get_tags()]
        for ref in refs:
            for t in c.get_tables(ref=ref):
                got = c.query(f"SELECT count(*) AS n FROM {t.table}", ref=ref).column("n")[0].as_py()
                assert got == t.record_count, (ref, t.table)
                assert StaticTable.from_metadata(t.metadata_location).scan().to_arrow().num_rows == t.record_count


def gc(lake: pathlib.Path, *args: str) -> dict:
    return weir_json("gc", *args, lake=lake)


def deleted(doc: dict) -> set[str]:
    return {f["location"] for f in doc["files"]}


def ok(*args, lake) -> subprocess.CompletedProcess:
    r = weir(*args, lake=lake)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture
def history(titanic_lake: pathlib.Path) -> pathlib.Path:
    """main with three versions of titanic, a tag, a branch with its own write, another
    table: every file in it is reachable."""
    lake = titanic_lake
    ok("import", TITANIC, "--table", "titanic", "--mode", "append", lake=lake)
    ok("tag", "create", "v1", lake=lake)
    ok("branch", "create", "dev", lake=lake)
    ok("import", TITANIC, "--table", "titanic", "--mode", "append", "--branch", "dev", lake=lake)
    ok("import", TITANIC, "--table", "other", lake=lake)
    return lake


# ---- what gc deletes, and what it never does -------------------------------------------------

def test_a_lake_without_orphans_loses_nothing(history):
    before = warehouse_files(history)
    age_all(history)
    doc = gc(history, "--grace", "0")
    assert doc["total"]["files"] == 0 and not doc["files"]
    assert doc["kept"]["reachable"] == len(before) == len(reachable(history))
    assert warehouse_files(history) == before
    every_ref_reads(history)


def test_files_only_a_deleted_branch_reached_are_deleted(history):
    lake = history
    keep = warehouse_files(lake)
    ok("branch", "create", "tmp", lake=lake)
    ok("import", TITANIC, "--table", "titanic", "--mode", "append", "--branch", "tmp", lake=lake)
    ok("import", TITANIC, "--table", "tmp_only", "--branch", "tmp", lake=lake)
    tmp_head = weir_json("show", "tmp", lake=lake)["hash"]
    written = warehouse_files(lake) - keep
    assert len(written) == 8  # two versions: a data file, a manifest, a manifest list, a metadata file each
    ok("branch", "delete", "tmp", "--force", lake=lake)
    age_all(lake)
    dry = gc(lake, "--dry-run", "--grace", "0")
    assert deleted(dry) == written and warehouse_files(lake) == keep | written, "a dry run deletes nothing"
    assert dry["commits"]["unreachable"] == 2
    doc = gc(lake, "--grace", "0")
    assert deleted(doc) == written
    assert {k: v["files"] for k, v in doc["deleted"].items()} == {
        "data": 2, "manifest": 2, "manifest_list": 2, "metadata": 2, "temporary": 0}
    assert doc["total"]["bytes"] == sum(v["bytes"] for v in doc["deleted"].values()) > 0
    assert warehouse_files(lake) == keep == reachable(lake)
    every_ref_reads(lake)
    # The deleted branch's commits are collected: reading one says so.
    r = weir("show", tmp_head, lake=lake)
    assert r.returncode == 1
    assert f"commit {tmp_head[:12]}" in r.stderr and "was collected by gc on" in r.stderr, r.stderr
    assert "not found" not in r.stderr
    r = weir("branch", "create", "back", "--from", tmp_head, lake=lake)
    assert r.returncode == 1 and "collected by gc" in r.stderr, "no new ref may name a collected commit"
    # A second gc finds nothing more.
    again = gc(lake, "--grace", "0")
    assert again["total"]["files"] == 0 and again["commits"]["unreachable"] == 0


def test_orphans_are_deleted_and_exactly_them(history):
    """Files a killed or refused writer leaves: a data file, a manifest, a manifest list, a
    metadata file nothing names, and a temporary file of an atomic write."""
    lake = history
    keep = warehouse_files(lake)
    table = lake / "warehouse" / "default" / "titanic"
    data = next((table / "data").glob("*.parquet"))
    orphans = set()
    for name, src in ((f"data/{uuid.uuid4()}.parquet", data),
                      (f"metadata/{uuid.uuid4()}-m0.avro", next((table / "metadata").glob("*-m0.avro"))),
                      (f"metadata/snap-1-1-{uuid.uuid4()}.avro", next((table / "metadata").glob("snap-*.avro"))),
                      (f"metadata/00009-{uuid.uuid4()}.metadata.json",
                       next((table / "metadata").glob("*.metadata.json"))),
                      (f"metadata/00010-{uuid.uuid4()}.metadata.json.tmp-4242-0badf00d", data)):
        shutil.copy(src, table / name)
        orphans.add(str(table / name))
    (table / "notes.txt").write_text("not a file gc knows: never deleted\n")
    age_all(lake)
    doc = gc(lake, "--grace", "0")
    assert deleted(doc) == orphans
    assert {k: v["files"] for k, v in doc["deleted"].items()} == {
        "data": 1, "manifest": 1, "manifest_list": 1, "metadata": 1, "temporary": 1}
    assert doc["kept"]["other"] == 1 and (table / "notes.txt").exists()
    assert warehouse_files(lake) == keep | {str(table / "notes.txt")}
    every_ref_reads(lake)


def test_the_grace_period_protects_a_young_orphan(history):
    lake = history
    table = lake / "warehouse" / "default" / "titanic" / "data"
    src = next(table.glob("*.parquet"))
    old, young = table / f"{uuid.uuid4()}.parquet", table / f"{uuid.uuid4()}.parquet"
    shutil.copy(src, old)
    shutil.copy(src, young)
    age([p for p in warehouse_files(lake) if p != str(young)])
    doc = gc(lake)  # the default grace: one hour
    assert doc["grace_us"] == 3600 * 10**6
    assert deleted(doc) == {str(old)}
    assert doc["kept"]["young"] == 1 and young.exists()
    doc = gc(lake, "--grace", "30m")
    assert doc["kept"]["young"] == 1 and young.exists()
    assert deleted(gc(lake, "--grace", "0")) == {str(young)}


def test_a_short_grace_warns_what_it_risks(lake):
    """A grace shorter than a write in flight deletes that write's uncommitted files (a new
    user's gc --grace 0 loop beside imports lost a committed table's data): the CLI says so
    whenever the grace is under ten minutes, and not for the default or a dry run."""
    for grace in ("0", "5m"):
        r = weir("gc", "--grace", grace, lake=lake)
        assert r.returncode == 0, r.stderr
        assert f"warning: --grace {grace}: the uncommitted files of a write in flight for longer than that on " \
            "another machine" in r.stderr, r.stderr
        assert "gc waits for this machine's writes" in r.stderr
    for args in ((), ("--grace", "1h"), ("--grace", "0", "--dry-run")):
        r = weir("gc", *args, lake=lake)
        assert r.returncode == 0 and "warning" not in r.stderr, (args, r.stderr)


def test_bad_options_are_usage_errors(lake):
    for args, what in ((["--grace", "soon"], "--grace"), (["--expire-before", "yesterday"], "--expire-before")):
        r = weir("gc", *args, lake=lake)
        assert r.returncode == 2 and what in r.stderr, r.stderr
    r = weir("gc", "--expire-before", "2999-01-01", lake=lake)
    assert r.returncode == 2 and "future" in r.stderr
    r = weir("branch", "prune", lake=lake)
    assert r.returncode == 2 and "--runs" in r.stderr


# ---- expiry ----------------------------------------------------------------------------------

def test_expired_commits_are_unreadable_and_logged_as_expired(history):
    lake = history
    log = weir_list("log", lake=lake)
    assert len(log) == 4  # other, the append (v1), titanic, the initial commit
    cutoff = weir_json("show", "main", lake=lake)["time"]
    ok("import", TITANIC, "--table", "late", lake=lake)  # newer than the cut-off: stays
    age_all(lake)
    doc = gc(lake, "--grace", "0", "--expire-before", cutoff)
    # Expired: main's ancestors older than the cut-off that no head or tag names (v1 names one).
    tag = weir_json("show", "v1", lake=lake)["hash"]
    expired = {m["commit"] for m in doc["commits"]["marked"] if m["reason"] == "expired"}
    assert tag not in expired and expired
    log = {c["hash"]: c for c in weir_list("log", lake=lake)}
    for h in expired:
        assert log[h]["expired"]["reason"] == "expired"
        r = weir("query", "SELECT count(*) FROM titanic", "--ref", h, lake=lake)
        assert r.returncode == 1
        assert f"commit {h[:12]}" in r.stderr and "was expired by gc on" in r.stderr, r.stderr
    human = weir("log", lake=lake).stdout
    assert "expired" in human and "by gc (expired)" in human
    # Their metadata files are gone unless a live version still names them; every ref reads.
    assert warehouse_files(lake) == reachable(lake)
    every_ref_reads(lake)
    with sdk.Client(lake, library=library_path()) as c:
        marked = [x for x in c.get_commits(ref="main") if x.expired is not None]
        assert {x.hash for x in marked} == expired and all(x.expired_reason == "expired" for x in marked)
        with pytest.raises(sdk.NotFound, match="was expired by gc on"):
            c.get_commit(next(iter(expired)))


def test_sdk_gc_is_typed_and_keyword_only(history):
    with sdk.Client(history, library=library_path()) as c:
        with pytest.raises(TypeError):
            c.gc(True)  # type: ignore[misc]
        with pytest.raises(TypeError, match="timedelta"):
            c.gc(grace=3600)  # type: ignore[arg-type]
        with pytest.raises(sdk.InvalidArgument, match="negative"):
            c.gc(grace=dt.timedelta(seconds=-1))
        with pytest.raises(sdk.InvalidArgument, match="future"):
            c.gc(expire_before=dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1))
        r = c.gc(dry_run=True)
        assert isinstance(r, sdk.GcResult) and r.dry_run and r.grace == dt.timedelta(hours=1)
        assert r.total_files == 0 and r.kept_reachable == len(reachable(history))
        r = c.gc(grace=dt.timedelta(0))
        assert r.grace == dt.timedelta(0) and r.files == ()


# ---- gc while others write ----------------------------------------------------------------

def test_gc_concurrent_with_writers_loses_nothing(history):
    """Writers append through the SDK while gc runs again and again (default grace; old
    orphans give it work). Threads start together at a barrier and each gc round is handed
    off to by a writer's commit; at the end every commit's rows are there at every ref."""
    lake = history
    table = lake / "warehouse" / "default" / "titanic" / "data"
    src = next(table.glob("*.parquet"))
    orphans = []
    for _ in range(6):
        p = table / f"{uuid.uuid4()}.parquet"
        shutil.copy(src, p)
        orphans.append(str(p))
    age_all(lake)
    writers, rounds = 2, 4
    barrier = threading.Barrier(writers + 1)
    committed = threading.Semaphore(0)
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            with sdk.Client(lake, library=library_path()) as c:
                barrier.wait()
                for k in range(rounds):
                    c.import_data(f"w{i}", pa.table({"k": [k]}), mode="create" if k == 0 else "append")
                    committed.release()
        except BaseException as e:  # noqa: BLE001 - re-raised by the test
            errors.append(e)
            committed.release()

    def collect() -> None:
        try:
            with sdk.Client(lake, library=library_path()) as c:
                barrier.wait()
                for _ in range(writers * rounds):
                    committed.acquire()  # a hand-off: one gc round per commit
                    c.gc()
        except BaseException as e:  # noqa: BLE001 - re-raised by the test
            errors.append(e)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    threads.append(threading.Thread(target=collect))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert not any(os.path.exists(p) for p in orphans), "the old orphans went"
    with sdk.Client(lake, library=library_path()) as c:
        for i in range(writers):
            got = c.query(f"SELECT k FROM w{i} ORDER BY k").column("k").to_pylist()
            assert got == list(range(rounds))
    assert reachable(lake) <= warehouse_files(lake)
    every_ref_reads(lake)


def test_gc_in_the_middle_of_an_import_keeps_what_it_is_about_to_commit(history):
    """The hand-off is the import's progress event "commit": its data files are written, its
    metadata not yet. A gc run there (another handle) keeps the young data files and deletes
    an old orphan; the import then commits and reads back whole."""
    lake = history
    table = lake / "warehouse" / "default" / "titanic" / "data"
    orphan = table / f"{uuid.uuid4()}.parquet"
    shutil.copy(next(table.glob("*.parquet")), orphan)
    age_all(lake)
    reports: list[sdk.GcResult] = []
    with sdk.Client(lake, library=library_path()) as writer, sdk.Client(lake, library=library_path()) as collector:
        def on_progress(event: dict) -> None:
            if event.get("phase") == "commit" and not reports:
                reports.append(collector.gc())

        writer.set_progress(on_progress)
        writer.import_data("titanic", writer.query("SELECT * FROM titanic LIMIT 7"), mode="append")
    assert len(reports) == 1
    r = reports[0]
    assert {f.location for f in r.files} == {str(orphan)}
    assert r.kept_young >= 1, "the import's staged data file was kept"
    every_ref_reads(lake)
    with sdk.Client(lake, library=library_path()) as c:
        assert c.get_table("titanic").record_count == 2 * 891 + 7
    assert reachable(lake) <= warehouse_files(lake)


# ---- orphans of killed and refused writes (failpoint build) ---------------------------------

def failpoints_built() -> bool:
    cache = BUILD / "CMakeCache.txt"
    return cache.exists() and "WEIR_FAILPOINTS:BOOL=ON" in cache.read_text()


needs_failpoints = pytest.mark.skipif(
    not failpoints_built() and not os.environ.get("WEIR_REQUIRE_FAILPOINTS"),
    reason="needs the failpoint build (make test-asan runs it)")


@needs_failpoints
@pytest.mark.parametrize("fault", ["iceberg.metadata.after:kill", "stage.data.after:kill",
                                   "iceberg.manifest.after:kill", "catalog.commit.before:error",
                                   "iceberg.metadata.after:error"])
def test_orphans_of_a_killed_or_refused_import_are_deleted_exactly(history, fault):
    assert failpoints_built(), f"{BUILD} was not built with -DWEIR_FAILPOINTS=ON"
    lake = history
    keep = warehouse_files(lake)
    r = weir("import", TITANIC, "--table", "titanic", "--mode", "append", lake=lake,
             env={"WEIR_FAILPOINTS": fault, "ASAN_OPTIONS": "detect_leaks=0"})
    assert r.returncode != 0
    if fault.endswith(":kill"):
        assert r.returncode == -signal.SIGKILL
    left = warehouse_files(lake) - keep
    assert left or fault.startswith("stage"), "the write left files behind"
    age_all(lake)
    doc = gc(lake, "--grace", "0")
    assert deleted(doc) == left
    assert warehouse_files(lake) == keep == reachable(lake)
    every_ref_reads(lake)
    ok("import", TITANIC, "--table", "titanic", "--mode", "append", lake=lake)  # the lake goes on


FAULTS = [f"{point}:{action}" for point in ("stage.data.after", "iceberg.manifest.before", "iceberg.manifest.after",
                                             "iceberg.metadata.before", "iceberg.metadata.after",
                                             "catalog.commit.before")
          for action in ("kill", "error")]


@needs_failpoints
def test_randomized_kills_and_refusals_then_gc_deletes_exactly_their_files(history):
    """Seeded random imports, each killed or failed at a random step or left to finish,
    on random branches: gc then deletes exactly the files the failed ones left (each
    measured as the warehouse after it minus before it), nothing else."""
    import random

    assert failpoints_built()
    lake = history
    seed = int(os.environ.get("WEIR_KILL_SEED", "1313"))
    rng = random.Random(seed)
    n = int(os.environ.get("WEIR_GC_KILL_ITERATIONS", "16"))
    orphans: set[str] = set()
    for i in range(n):
        before = warehouse_files(lake)
        fault = rng.choice([*FAULTS, None])
        branch = rng.choice(["main", "dev"])
        table = rng.choice(["titanic", "other"]) if branch == "main" else "titanic"  # dev has no other
        env = {"WEIR_FAILPOINTS": fault, "ASAN_OPTIONS": "detect_leaks=0"} if fault else None
        r = weir("import", TITANIC, "--table", table, "--mode", "append", "--branch", branch, lake=lake, env=env)
        assert (r.returncode == 0) == (fault is None), f"seed {seed} step {i} {fault}: {r.returncode} {r.stderr}"
        if fault:
            orphans |= warehouse_files(lake) - before
    assert orphans, f"seed {seed}: the faults left files behind"
    age_all(lake)
    doc = gc(lake, "--grace", "0")
    assert deleted(doc) == orphans, f"seed {seed}"
    assert warehouse_files(lake) == reachable(lake)
    every_ref_reads(lake)


@needs_failpoints
def test_a_commit_stopped_mid_write_keeps_its_files_through_gc(history):
    """A writer stopped after its metadata file (failpoint stop), gc runs with the default
    grace, the writer goes on and commits: nothing it wrote was deleted."""
    assert failpoints_built()
    lake = history
    env = dict(os.environ, WEIR_AUTHOR="tester", WEIR_FAILPOINTS="iceberg.metadata.after:stop",
               ASAN_OPTIONS="detect_leaks=0")
    proc = subprocess.Popen([str(weir_bin()), "--lake", str(lake), "import", str(TITANIC), "--table", "titanic",
                             "--mode", "append"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The hand-off: the kernel reports the child stopped (SIGSTOP at the failpoint).
    _, status = os.waitpid(proc.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    doc = gc(lake)
    assert doc["kept"]["young"] >= 4 and doc["total"]["files"] == 0
    os.kill(proc.pid, signal.SIGCONT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    every_ref_reads(lake)
    assert reachable(lake) <= warehouse_files(lake)


@needs_failpoints
def test_gc_with_no_grace_waits_for_a_writer_in_flight(history):
    """A writer stopped right after writing its data files (it holds the lake's writer
    lock, nothing is committed), gc --grace 0 started meanwhile: gc finds the lock taken
    (failpoint gc.writers.wait stops it there: the hand-off), the writer goes on and
    commits, then gc lists and collects. Nothing the writer wrote is deleted, every ref
    reads. Without the lock, --grace 0 deletes the writer's data files."""
    assert failpoints_built()
    lake = history
    writer = subprocess.Popen([str(weir_bin()), "--lake", str(lake), "import", str(TITANIC), "--table", "titanic",
                               "--mode", "append"],
                              env=dict(os.environ, WEIR_AUTHOR="tester", WEIR_FAILPOINTS="stage.data.after:stop",
                                       ASAN_OPTIONS="detect_leaks=0"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status = os.waitpid(writer.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    staged = warehouse_files(lake) - reachable(lake)
    assert any(f.endswith(".parquet") for f in staged), "the writer wrote its data files before stopping"
    collector = subprocess.Popen([str(weir_bin()), "--lake", str(lake), "gc", "--grace", "0", "--json"],
                                 env=dict(os.environ, WEIR_FAILPOINTS="gc.writers.wait:stop",
                                          ASAN_OPTIONS="detect_leaks=0"),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status = os.waitpid(collector.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), "gc did not find the writer's lock taken"
    assert warehouse_files(lake) >= staged, "gc deleted before it had the lock"
    os.kill(writer.pid, signal.SIGCONT)
    _, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    os.kill(collector.pid, signal.SIGCONT)
    out, err = collector.communicate(timeout=120)
    assert collector.returncode == 0, err
    doc = json.loads(out)
    assert doc["writers"] == {"excluded": True, "waited": True}
    assert staged <= reachable(lake), "the writer's files are committed"
    assert reachable(lake) <= warehouse_files(lake)
    every_ref_reads(lake)


def test_gc_excludes_writers_only_under_a_short_grace(history):
    """The writer lock is taken only when the grace period is shorter than ten minutes and
    gc deletes; with no write in flight it is had at once."""
    lake = history
    assert gc(lake, "--dry-run", "--grace", "0")["writers"] == {"excluded": False, "waited": False}
    assert gc(lake)["writers"] == {"excluded": False, "waited": False}
    assert gc(lake, "--grace", "10m")["writers"] == {"excluded": False, "waited": False}
    assert gc(lake, "--grace", "0")["writers"] == {"excluded": True, "waited": False}
    assert (lake / "writers.lock").exists()
    r = weir("gc", "--grace", "0", lake=lake)
    assert r.returncode == 0 and "Listed with this machine's writers held back (none was in flight)" in r.stdout
    # A write leaves no lock held: the next gc has it at once.
    assert weir("import", str(TITANIC), "--table", "titanic", "--mode", "append", lake=lake).returncode == 0
    assert gc(lake, "--grace", "0")["writers"] == {"excluded": True, "waited": False}
    every_ref_reads(lake)


def test_gc_from_inside_a_write_of_the_same_client_is_refused_at_once(history):
    """gc with a short grace called from a write's progress callback (the same handle):
    waiting for that write could never end, so it is refused at once, naming why; the
    write goes on and commits, and the next gc has the lock."""
    lake = history
    seen: list[BaseException] = []

    def progress(event: dict) -> None:
        if event.get("phase") == "commit" and not seen:
            try:
                client.gc(grace=dt.timedelta(0))
            except sdk.ConcurrentUpdate as e:
                seen.append(e)

    with sdk.Client(lake, library=library_path(), progress=progress) as client:
        client.import_data("titanic", TITANIC, mode="append")
        assert len(seen) == 1 and "same lake handle is in flight" in str(seen[0]), seen
        client.set_progress(None)
        assert client.gc(grace=dt.timedelta(0)).writers_excluded
    every_ref_reads(lake)


# ---- branch prune ------------------------------------------------------------------------

def test_prune_deletes_only_run_branches_matching_the_filters(titanic_lake, tmp_path):
    lake = titanic_lake

    def run_branches() -> set[str]:
        return {b["name"] for b in weir_list("branch", "list", lake=lake) if b["name"].startswith("run/")}

    def gated(name: str) -> tuple[pathlib.Path, subprocess.Popen]:
        proj = tmp_path / name
        proj.mkdir()
        (proj / "models.py").write_text(GATED_MODEL)
        return proj, start_weir("run", proj, lake=lake, until="model slow")

    # A failed run: the table it publishes changed on main while its model waited.
    proj, p = gated("failing")
    ok("import", TITANIC, "--table", "slow", lake=lake)
    release(proj)
    p.communicate(timeout=120)
    assert p.returncode == 4
    failed = run_branches()
    assert len(failed) == 1
    failed_run = weir_list("runs", lake=lake)[0]["run_id"]
    assert "(kept for debugging)" in ok("runs", "show", failed_run, lake=lake).stdout
    # gc never deletes a failed run's branch nor its files: that is prune's job.
    age_all(lake)
    gc(lake, "--grace", "0")
    assert run_branches() == failed
    assert warehouse_files(lake) == reachable(lake)
    every_ref_reads(lake)  # the run branch's tables too
    ok("branch", "create", "dev", lake=lake)
    ok("branch", "create", "runner", lake=lake)  # not under run/
    # A run whose model waits: alive, its branch survives every prune.
    proj, p = gated("alive")
    try:
        alive = run_branches() - failed
        assert len(alive) == 1
        dry = weir_json("branch", "prune", "--runs", "--dry-run", lake=lake)
        assert dry["dry_run"] and [(b["name"], b["status"]) for b in dry["branches"]] == [(*failed, "failed")]
        assert weir_json("branch", "prune", "--runs", "--older-than", "7d", lake=lake)["branches"] == []
        with sdk.Client(lake, library=library_path()) as c:
            with pytest.raises(TypeError):
                c.prune_branches(True)  # type: ignore[misc]
            pruned = c.prune_branches(failed=True, dry_run=True)
            assert [(b.name, b.status) for b in pruned] == [(*failed, "failed")]
        assert run_branches() == failed | alive, "a dry run deletes nothing"
        doc = weir_json("branch", "prune", "--runs", "--failed", lake=lake)
        assert [b["name"] for b in doc["branches"]] == sorted(failed)
        assert run_branches() == alive
        # The run's record no longer says its branch is kept.
        shown = ok("runs", "show", failed_run, lake=lake).stdout
        assert f"run branch     {next(iter(failed))} (deleted since)" in shown, shown
    finally:
        p.kill()  # the run is interrupted: its process is gone
        p.communicate(timeout=60)
    with sdk.Client(lake, library=library_path()) as c:
        assert [(b.name, b.status) for b in c.prune_branches(failed=True)] == [(*alive, "interrupted")]
    assert {b["name"] for b in weir_list("branch", "list", lake=lake)} == {"main", "dev", "runner"}
    # The runs' files are now unreachable: gc takes them, and every ref still reads.
    age_all(lake)
    doc = gc(lake, "--grace", "0")
    assert doc["commits"]["unreachable"] >= 1
    assert warehouse_files(lake) == reachable(lake)
    every_ref_reads(lake)


# ---- an S3 warehouse -------------------------------------------------------------------------

def test_gc_on_an_s3_warehouse(s3_server, tmp_path):
    s3 = s3_server
    prefix = f"s3://{s3.bucket}/gc-{uuid.uuid4().hex[:12]}"
    lake = tmp_path / "lake"
    env = s3.env()

    def w(*args):
        r = weir(*args, lake=lake, env=env)
        assert r.returncode == 0, r.stderr
        return r

    assert weir("init", lake, "--warehouse", prefix, env=env).returncode == 0
    w("import", TITANIC, "--table", "titanic")
    key_prefix = prefix[len(f"s3://{s3.bucket}/"):]
    keep = set(s3.keys(key_prefix))
    w("branch", "create", "tmp")
    w("import", TITANIC, "--table", "titanic", "--mode", "append", "--branch", "tmp")
    written = set(s3.keys(key_prefix)) - keep
    assert len(written) == 4
    orphan = f"{key_prefix}/default/titanic/data/{uuid.uuid4()}.parquet"
    s3.client().put_object(Bucket=s3.bucket, Key=orphan, Body=b"PAR1 orphan of a killed writer")
    w("branch", "delete", "tmp", "--force")
    # Everything is young: the default grace keeps it all.
    doc = json.loads(w("gc", "--json").stdout)
    assert doc["total"]["files"] == 0 and doc["kept"]["young"] == 5
    doc = json.loads(w("gc", "--grace", "0", "--json").stdout)
    assert {f["location"] for f in doc["files"]} == {f"s3://{s3.bucket}/{k}" for k in written | {orphan}}
    assert doc["deleted"]["data"]["files"] == 2 and doc["deleted"]["data"]["bytes"] > 0
    assert set(s3.keys(key_prefix)) == keep
    r = w("query", "SELECT count(*) AS n FROM titanic", "--format", "json")
    assert json.loads(r.stdout) == [{"n": 891}]
