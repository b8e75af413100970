"""The machinery of the conformance test (test_conformance.py; the design is in its
docstring and in docs/versioning.md, "How the rules are tested"): operations, actors that
run them on one lake under a generated schedule, and the history checker.

Holds no tests. test_conformance.py generates histories with hypothesis and calls
`run_history` then `check_history`; test_conformance_regressions.py replays fixed ones.

- **Operations** are frozen dataclasses whose fields are small integers and choices
  (`Append(table=0, branch=1, kinds=("a", "c"))`), resolved against the lake when they
  start (branch 1 is the second known branch, ...), so that any generated list of them
  is runnable and shrinks well.
- **Actors** are threads, each with its own `weir.Client` on the lake. Only one runs at a
  time: an actor runs until its next hand-off point and then waits for the scheduler.
  Hand-off points are the SDK's progress events (`validate`, `commit` of an import,
  `model`, `done` of a run, `retry`, ...), the moment a write that names its base
  (`expect_head`) has decided on it, and the boundary between two operations. The
  schedule is a list of (actor, n) steps: the actor runs through its next n hand-offs
  (say, a whole operation) while the others wait where they are; when the list is used
  up, the unfinished actors take turns, one hand-off each (round robin). So a schedule is
  deterministic, nested hand-offs ("A pauses at commit while B runs two operations") and
  any other interleaving of hand-off points can be generated, and failures replay.
- **Kills** run an import or a run as a CLI process (`weir -v import ...`) and SIGKILL it
  right after it reports a given phase on stderr; it may or may not have committed.
- **The checker** reads the whole lake afterwards (every commit of every branch, every
  table version at each) and checks each commit against the operation that made it,
  applied to its parents' real state (the serial order of a branch is its first-parent
  history), each operation's reported outcome against the commits, and that every
  refusal was justified and left no trace.
"""
from __future__ import annotations

import json
import os
import pathlib
import queue
import signal
import sqlite3
import subprocess
import threading
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

import weir
from conftest import ROOT, weir_bin

TABLES = ("default.t0", "default.t1")
KINDS = ("a", "b", "c", "d")
# Contract version -> the kinds its enum allows. Version 2 narrows 1, version 3 widens it
# and adds `unique` on id (an append to a table under it reads the table's ids, so it is
# not blind: docs/versioning.md).
ENUMS = {"1": frozenset("abc"), "2": frozenset("ab"), "3": frozenset("abcd")}
UNIQUE = {"3"}
STEP_TIMEOUT = 180.0  # seconds an actor may take to reach its next hand-off: a hang detector

CONTRACT_YAML = """\
contract:
  name: events
  version: "{version}"
  columns:
    - {{name: id, type: Int64, unique: {unique}}}
    - {{name: kind, type: String, enum: [{kinds}]}}
"""


# ---- operations ------------------------------------------------------------------------------
# Indices (table, branch, ...) are taken modulo what exists when the operation starts.


@dataclass(frozen=True)
class Append:
    """import_data(mode="append") of len(kinds) new rows."""
    table: int
    branch: int
    kinds: tuple[str, ...]
    expect: bool = False      # pass the head at the start as expect_head (after a hand-off)


@dataclass(frozen=True)
class Replace:
    """import_data(mode="replace") without a contract: the table keeps its stored one."""
    table: int
    branch: int
    kinds: tuple[str, ...]
    expect: bool = False


@dataclass(frozen=True)
class ContractChange:
    """import_data(mode="replace", contract=<version>): a replace that names a contract."""
    table: int
    branch: int
    kinds: tuple[str, ...]
    version: str
    expect: bool = False


@dataclass(frozen=True)
class CreateBranch:
    """create_branch("b<n>", from_ref=<branch>)."""
    source: int


@dataclass(frozen=True)
class Merge:
    """merge(<source>, into_branch=<target>), optionally naming the target's head as it
    was when the merge was decided, and a strategy."""
    source: int
    target: int
    expect: bool = False
    strategy: str | None = None


@dataclass(frozen=True)
class Run:
    """run() of a one-model SQL project: t1 := SELECT id, kind FROM t0 [WHERE kind IN
    ('a','b')]; read set {t0}."""
    branch: int
    only_ab: bool = False
    retries: int = 0


@dataclass(frozen=True)
class Revert:
    """revert_table(<table>, source_ref=<the to-th commit reported so far>); a revert that
    would change the stored contract needs allow_contract_change."""
    table: int
    branch: int
    to: int
    expect: bool = False
    allow_contract: bool = False


@dataclass(frozen=True)
class RevertRun:
    """revert_run(<the run-th run recorded so far>) on the run's branch."""
    run: int
    expect: bool = False
    allow_contract: bool = False


@dataclass(frozen=True)
class Kill:
    """An append, replace or run in a CLI process, SIGKILLed right after it prints the
    progress line of phase `at`; "metadata": once the table has a new Iceberg metadata
    file (before the catalog commit); "committed": once the branch moved; a failpoint
    name (docs/failpoints.md, "stage.data.after", ...): it kills itself exactly there,
    when a failpoint build is at hand (else the nearest of the above); None: not killed."""
    what: str                 # "append" | "replace" | "run"
    table: int
    branch: int
    kinds: tuple[str, ...]
    at: str | None


@dataclass(frozen=True)
class Stall:
    """An append, replace or run in a CLI process of the failpoint build, stopped (SIGSTOP)
    at the failpoint `at` while the other actors run, then continued: an import stopped
    after writing its Iceberg metadata loses the compare-and-swap and checks the rules
    again against the newer head. Without a failpoint build it just runs."""
    what: str                 # "append" | "replace" | "run"
    table: int
    branch: int
    kinds: tuple[str, ...]
    at: str = "iceberg.metadata.after"


# A failpoint kill without a failpoint build: the nearest kill this harness can make.
FAILPOINT_FALLBACK = {"stage.data.after": "commit", "iceberg.manifest.after": "commit",
                      "iceberg.metadata.after": "metadata", "catalog.commit.before": "metadata",
                      "catalog.commit.after": "committed", "run.publish.before": "done", "run.publish.commit": "done",
                      "run.publish.after": "committed"}


def failpoint_cli() -> pathlib.Path | None:
    """The weir CLI of a failpoint build ($WEIR_FAILPOINT_BUILD_DIR, default build-asan), if
    there is one."""
    d = pathlib.Path(os.environ.get("WEIR_FAILPOINT_BUILD_DIR", ROOT / "build-asan"))
    cache = d / "CMakeCache.txt"
    if (d / "weir").exists() and cache.exists() and "WEIR_FAILPOINTS:BOOL=ON" in cache.read_text():
        return d / "weir"
    return None


KIND_OF = {Append: "append", Replace: "replace", ContractChange: "contract", CreateBranch: "branch", Merge: "merge",
           Run: "run", Revert: "revert", RevertRun: "revert_run"}

Op = Append | Replace | ContractChange | CreateBranch | Merge | Run | Revert | RevertRun | Kill | Stall


@dataclass(frozen=True)
class Schedule:
    """What one history does: each actor's operations and the schedule of hand-offs."""
    actors: tuple[tuple[Op, ...], ...]
    # (actor, n): the actor at index `actor % len(unfinished actors)` runs through its next
    # n hand-off points while the others stay where they are.
    steps: tuple[tuple[int, int], ...]


# ---- records ---------------------------------------------------------------------------------


@dataclass
class Record:
    """What happened to one operation: its resolved arguments, the branch heads it saw,
    and its outcome."""
    n: int
    actor: int                          # -1 for the setup
    op: Any
    kind: str                           # append replace contract create branch merge run revert revert_run
    message: str
    branch: str | None = None
    table: str | None = None
    source: str | None = None           # merge source branch; branch's from
    rows: tuple[tuple[int, str], ...] = ()   # the rows it mints (ids unique to it)
    contract: str | None = None         # the contract version it names
    strategy: str | None = None
    to: str | None = None               # revert target commit
    run: str | None = None              # revert_run's run id
    only_ab: bool = False
    allow_contract: bool = False        # a revert's allow_contract_change
    decided: str | None = None          # the expect_head it passed
    base: str | None = None             # the branch head when libweir started it
    # (hand-off, branch head when it paused there, branch head when it resumed)
    points: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    end_head: str | None = None
    source_end: str | None = None       # a merge's source head when it returned
    status: str = "pending"             # ok | error | skipped | killed
    result: Any = None
    error: str | None = None            # the error's class name (SDK) or code (CLI)
    error_obj: Any = None
    details: list[Any] = field(default_factory=list)   # the refusal's structured details
    cli: bool = False
    run_ids: list[str] = field(default_factory=list)

    def short(self) -> str:
        bits = [f"op{self.n}", self.kind]
        if isinstance(self.op, (Kill, Stall)):
            bits.append(f"{type(self.op).__name__.lower()}@{self.op.at}")
        for k in ("table", "branch", "source", "contract", "strategy", "to", "run"):
            v = getattr(self, k)
            if v:
                bits.append(f"{k}={v[:10] if k in ('to',) else v}")
        if self.rows:
            bits.append("rows=" + ",".join(f"{i}{k}" for i, k in self.rows))
        if self.decided:
            bits.append(f"expect={self.decided[:8]}")
        if self.cli:
            bits.append("(cli)")
        out = " ".join(bits) + f" -> {self.status}"
        if self.error:
            out += f" {self.error}"
        if self.base:
            out += f" base={self.base[:8]}"
        if self.points:
            out += " points=" + ",".join(f"{p}@{(a or '')[:8]}..{(b or '')[:8]}" for p, a, b in self.points)
        if self.end_head:
            out += f" end={self.end_head[:8]}"
        return out


def kinds_ok(kinds, version: str | None) -> bool:
    return version is None or all(k in ENUMS[version] for k in kinds)


# ---- running a history -----------------------------------------------------------------------


class Actor(threading.Thread):
    def __init__(self, h: History, index: int, ops: tuple[Op, ...]):
        super().__init__(name=f"actor{index}", daemon=True)
        self.h = h
        self.index = index
        self.ops = ops
        self.go = threading.Event()
        self.done = False
        self.failure: str | None = None
        self.client = weir.Client(h.lake, author=f"actor{index}@conformance")
        self.client.set_progress(self._on_progress)
        self.current: Record | None = None

    def _on_progress(self, event: dict[str, Any]) -> None:
        phase = event.get("phase")
        if phase:
            self.pause(str(phase))

    def pause(self, point: str) -> None:
        """A hand-off point: record the branch head, let the scheduler run others."""
        rec = self.current
        before = self.h.head(rec.branch) if rec is not None else None
        self.h.trace.append(f"actor{self.index} {f'op{rec.n} ' if rec else ''}pauses at {point}")
        if not self.h.aborted:
            self.go.clear()
            self.h.back.put((self, point))
            if not self.go.wait(STEP_TIMEOUT):
                self.h.aborted = True
        if rec is not None:
            rec.points.append((point, before, self.h.head(rec.branch)))

    def run(self) -> None:
        try:
            self.go.wait(STEP_TIMEOUT)
            self.go.clear()
            for i, op in enumerate(self.ops):
                if i:
                    self.pause("next operation")
                self.h.execute(self, op)
        except BaseException:  # noqa: BLE001 - reported by the scheduler
            self.failure = traceback.format_exc()
        finally:
            self.done = True
            self.current = None
            self.h.back.put((self, None))


class History:
    """One lake, its actors, and everything they did."""

    def __init__(self, root: pathlib.Path, schedule: Schedule):
        self.root = root
        self.lake = str(root / "lake")
        self.schedule = schedule
        self.records: list[Record] = []
        self.trace: list[str] = []
        self.back: queue.Queue[tuple[Actor, str | None]] = queue.Queue()
        self.aborted = False
        self.counter = 0
        self.branches: list[str] = []        # non-run branches, in creation order
        self.commits_seen: list[str] = []    # commits operations reported, in order
        self.run_ids: list[str] = []
        self.contracts: dict[str, str] = {}
        for v in ENUMS:
            p = root / f"contract-v{v}.yml"
            p.write_text(CONTRACT_YAML.format(version=v, unique="true" if v in UNIQUE else "false",
                                              kinds=", ".join(sorted(ENUMS[v]))))
            self.contracts[v] = str(p)
        self.observer = weir.Client.init(self.lake, author="observer@conformance")
        self.lock = threading.Lock()

    # -- helpers --------------------------------------------------------------------------------

    def head(self, branch: str | None) -> str | None:
        if branch is None:
            return None
        try:
            return self.observer.get_branch(branch).head
        except weir.NotFound:
            return None

    def new_record(self, actor: int, op: Any, kind: str, what: str) -> Record:
        with self.lock:
            self.counter += 1
            n = self.counter
        rec = Record(n=n, actor=actor, op=op, kind=kind, message=f"op{n} {kind} {what}".strip())
        self.records.append(rec)
        return rec

    def rows_for(self, n: int, kinds: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
        return tuple((n * 100 + i, k) for i, k in enumerate(kinds))

    def branch_at(self, i: int) -> str:
        return self.branches[i % len(self.branches)]

    def project(self, n: int, only_ab: bool) -> str:
        d = self.root / "projects" / f"op{n}"
        d.mkdir(parents=True)
        where = " WHERE kind IN ('a', 'b')" if only_ab else ""
        (d / "t1.sql").write_text(f"-- weir: name=t1\nSELECT id, kind FROM t0{where}\n")
        return str(d)

    # -- the setup: serial, before any actor ----------------------------------------------------

    def setup(self) -> None:
        c = self.observer
        for table, kinds in (("default.t0", ("a", "c")), ("default.t1", ("b",))):
            rec = self.new_record(-1, None, "create", table)
            rec.table, rec.branch, rec.contract = table, "main", "1"
            rec.rows = self.rows_for(rec.n, kinds)
            rec.base = self.head("main")
            res = c.import_data(table, self.arrow(rec.rows), mode="create", contract=self.contracts["1"],
                                message=rec.message)
            rec.status, rec.result, rec.end_head = "ok", res, self.head("main")
            self.commits_seen.append(res.commit)
        self.branches.append("main")
        # A run of the project on main, so that a revert of a run has one from the start.
        rec = self.new_record(-1, None, "run", "")
        rec.branch, rec.table, rec.message = "main", "default.t1", f"op{rec.n} run on main"
        rec.base = self.head("main")
        state = c.run(self.project(rec.n, False), ref="main")
        assert state.success(), state.error
        rec.status, rec.result, rec.run_ids, rec.end_head = "ok", state, [state.run_id], self.head("main")
        self.run_ids.append(state.run_id)
        self.commits_seen.append(state.result_commit)
        rec = self.new_record(-1, None, "branch", "dev")
        rec.branch, rec.source = "dev", "main"
        rec.base = self.head("main")
        rec.result = c.create_branch("dev", from_ref="main")
        rec.status = "ok"
        self.branches.append("dev")

    @staticmethod
    def arrow(rows) -> pa.Table:
        return pa.table({"id": pa.array([i for i, _ in rows], pa.int64()),
                         "kind": pa.array([k for _, k in rows], pa.string())})

    # -- operations -----------------------------------------------------------------------------

    def execute(self, actor: Actor, op: Op) -> None:
        if isinstance(op, (Kill, Stall)):
            rec, fn = self.new_record(actor.index, op, op.what, ""), self._do_cli
        else:
            kind = KIND_OF[type(op)]
            rec, fn = self.new_record(actor.index, op, kind, ""), getattr(self, f"_do_{kind}")
        actor.current = rec
        try:
            fn(actor, op, rec)
        finally:
            actor.current = None

    def _sdk(self, rec: Record, fn) -> Any:
        try:
            rec.result = fn()
            rec.status = "ok"
        except weir.WeirError as e:
            rec.status, rec.error, rec.error_obj, rec.details = "error", type(e).__name__, e, list(e.details)
        return rec.result

    def _import(self, actor: Actor, rec: Record, op, mode: str, contract: str | None) -> None:
        rec.table = TABLES[op.table % len(TABLES)]
        rec.branch = self.branch_at(op.branch)
        rec.rows = self.rows_for(rec.n, op.kinds)
        rec.contract = contract
        rec.message = f"op{rec.n} {rec.kind} {rec.table} on {rec.branch}"
        if op.expect:
            rec.decided = self.head(rec.branch)
            actor.pause("decided")
        rec.base = rec.decided or self.head(rec.branch)
        res = self._sdk(rec, lambda: actor.client.import_data(
            rec.table, self.arrow(rec.rows), branch=rec.branch, mode=mode,
            contract=self.contracts[contract] if contract else None, message=rec.message,
            expect_head=rec.decided))
        rec.end_head = self.head(rec.branch)
        if res is not None:
            self.commits_seen.append(res.commit)

    def _do_append(self, actor, op: Append, rec):
        self._import(actor, rec, op, "append", None)

    def _do_replace(self, actor, op: Replace, rec):
        self._import(actor, rec, op, "replace", None)

    def _do_contract(self, actor, op: ContractChange, rec):
        self._import(actor, rec, op, "replace", op.version)

    def _do_branch(self, actor, op: CreateBranch, rec):
        rec.source = self.branch_at(op.source)
        rec.branch = f"b{rec.n}"
        rec.message = f"op{rec.n} branch {rec.branch} from {rec.source}"
        rec.base = self.head(rec.source)
        if self._sdk(rec, lambda: actor.client.create_branch(rec.branch, from_ref=rec.source)) is not None:
            self.branches.append(rec.branch)
        rec.end_head = self.head(rec.branch)

    def _do_merge(self, actor, op: Merge, rec):
        n = len(self.branches)
        src, dst = op.source % n, op.target % n
        if src == dst:
            dst = (dst + 1) % n
        rec.source, rec.branch, rec.strategy = self.branches[src], self.branches[dst], op.strategy
        rec.message = f"op{rec.n} merge {rec.source} into {rec.branch}"
        if op.expect:
            rec.decided = self.head(rec.branch)
        actor.pause("decided")
        rec.base = rec.decided or self.head(rec.branch)
        res = self._sdk(rec, lambda: actor.client.merge(rec.source, into_branch=rec.branch, message=rec.message,
                                                        strategy=op.strategy, expect_head=rec.decided))
        rec.end_head, rec.source_end = self.head(rec.branch), self.head(rec.source)
        if res is not None:
            self.commits_seen.append(res.commit)

    def _do_run(self, actor, op: Run, rec):
        rec.branch = self.branch_at(op.branch)
        rec.table, rec.only_ab = "default.t1", op.only_ab
        rec.message = f"op{rec.n} run on {rec.branch}"
        proj = self.project(rec.n, op.only_ab)
        rec.base = self.head(rec.branch)
        try:
            state = actor.client.run(proj, ref=rec.branch, retries=op.retries)
            rec.result = state
            rec.run_ids = [*state.retried_runs, state.run_id] if state.run_id else list(state.retried_runs)
            if state.success():
                rec.status = "ok"
                self.commits_seen.append(state.result_commit)
            else:
                rec.status = "error"
                rec.error = state.error.code if state.error else "failed"
                rec.details = list(state.error.details) if state.error else []
        except weir.WeirError as e:
            rec.status, rec.error, rec.error_obj, rec.details = "error", type(e).__name__, e, list(e.details)
        self.run_ids.extend(rec.run_ids)
        rec.end_head = self.head(rec.branch)

    def _do_revert(self, actor, op: Revert, rec):
        rec.table = TABLES[op.table % len(TABLES)]
        rec.branch = self.branch_at(op.branch)
        rec.to = self.commits_seen[op.to % len(self.commits_seen)]
        rec.message = f"op{rec.n} revert {rec.table} on {rec.branch} to {rec.to[:12]}"
        if op.expect:
            rec.decided = self.head(rec.branch)
        actor.pause("decided")
        rec.base = rec.decided or self.head(rec.branch)
        rec.allow_contract = op.allow_contract
        res = self._sdk(rec, lambda: actor.client.revert_table(rec.table, source_ref=rec.to, into_branch=rec.branch,
                                                               message=rec.message, expect_head=rec.decided,
                                                               allow_contract_change=op.allow_contract))
        rec.end_head = self.head(rec.branch)
        if res is not None:
            self.commits_seen.append(res.commit)

    def _do_revert_run(self, actor, op: RevertRun, rec):
        if not self.run_ids:
            rec.status = "skipped"
            return
        rec.run = self.run_ids[op.run % len(self.run_ids)]
        rec.branch = self.observer.get_run(rec.run).branch
        rec.message = f"op{rec.n} revert_run {rec.run} on {rec.branch}"
        if op.expect:
            rec.decided = self.head(rec.branch)
        actor.pause("decided")
        rec.base = rec.decided or self.head(rec.branch)
        rec.allow_contract = op.allow_contract
        res = self._sdk(rec, lambda: actor.client.revert_run(rec.run, message=rec.message, expect_head=rec.decided,
                                                             allow_contract_change=op.allow_contract))
        rec.end_head = self.head(rec.branch)
        if res is not None:
            self.commits_seen.append(res.commit)

    def _do_cli(self, actor, op: Kill | Stall, rec):
        rec.cli = True
        rec.branch = self.branch_at(op.branch)
        env = dict(os.environ, WEIR_AUTHOR=f"actor{actor.index}@conformance",
                   WEIR_PYTHON=str(ROOT / ".venv" / "bin" / "python"))
        exe, at = weir_bin(), op.at
        stall = isinstance(op, Stall) and failpoint_cli() is not None
        if isinstance(op, Stall):
            at = None
            if stall:
                exe, env["WEIR_FAILPOINTS"] = failpoint_cli(), f"{op.at}:stop"
                env["ASAN_OPTIONS"] = "detect_leaks=0"
        elif at in FAILPOINT_FALLBACK:
            fp = failpoint_cli()
            if fp is None:
                at = FAILPOINT_FALLBACK[at]
            else:
                exe, env["WEIR_FAILPOINTS"], at = fp, f"{at}:kill", None
                env["ASAN_OPTIONS"] = "detect_leaks=0"   # leaks are test-asan's business
                rec.points.append((f"failpoint {op.at}", None, None))
        cmd = [str(exe), "--lake", self.lake, "-v", "--json"]
        if op.what == "run":
            rec.table = "default.t1"
            rec.message = f"op{rec.n} run on {rec.branch}"
            cmd += ["run", self.project(rec.n, False), "--ref", rec.branch]
        else:
            rec.table = TABLES[op.table % len(TABLES)]
            rec.rows = self.rows_for(rec.n, op.kinds)
            rec.message = f"op{rec.n} {op.what} {rec.table} on {rec.branch} (cli)"
            csv = self.root / f"op{rec.n}.csv"
            csv.write_text("id,kind\n" + "".join(f"{i},{k}\n" for i, k in rec.rows))
            cmd += ["import", str(csv), "--table", rec.table, "--mode", op.what, "--branch", rec.branch,
                    "--message", rec.message]
        rec.base = self.head(rec.branch)
        # Kill points: right after the process prints a phase, or, once it printed the
        # last one (commit, done), as soon as a new metadata file of the table exists (between
        # writing the Iceberg metadata and the catalog commit) or the branch has moved.
        trigger = at if at not in ("metadata", "committed") else ("done" if op.what == "run" else "commit")
        meta = pathlib.Path(self.lake, "warehouse", *rec.table.split(".", 1), "metadata")
        before = set(os.listdir(meta)) if meta.is_dir() else set()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        err_lines = []
        assert p.stderr is not None and p.stdout is not None
        if stall:
            _, status = os.waitpid(p.pid, os.WUNTRACED)
            if os.WIFSTOPPED(status):
                actor.pause(f"stopped at {op.at}")
                os.kill(p.pid, signal.SIGCONT)
            else:  # it ended before the failpoint (refused, say): waitpid reaped it
                p.returncode = os.waitstatus_to_exitcode(status)
        for line in p.stderr:
            err_lines.append(line)
            phase = line.split(" ", 1)[0]
            rec.points.append((f"cli {phase}", None, None))
            if at is not None and phase == trigger:
                while at in ("metadata", "committed") and p.poll() is None:
                    if at == "metadata" and meta.is_dir() and set(os.listdir(meta)) - before:
                        break
                    if at == "committed" and self.head(rec.branch) != rec.base:
                        break
                p.kill()  # (a no-op when it already exited)
                break
        out = p.stdout.read()
        err_lines.append(p.stderr.read())
        p.wait(timeout=STEP_TIMEOUT)
        rec.end_head = self.head(rec.branch)
        if p.returncode == -signal.SIGKILL:
            rec.status = "killed"
        elif p.returncode == 0:
            rec.status = "ok"
            rec.result = json.loads(out)
        else:
            rec.status = "error"
            try:
                doc = json.loads(out)["error"]
                rec.error, rec.details = doc["code"], list(doc.get("details") or [])
            except (ValueError, KeyError, TypeError):
                rec.error = f"exit {p.returncode}"
            rec.error_obj = "".join(err_lines)
        if op.what == "run":
            rec.run_ids = [r.run_id for r in self.observer.get_runs() if r.project == f"op{rec.n}" and r.run_id]
            self.run_ids.extend(rec.run_ids)

    # -- the scheduler --------------------------------------------------------------------------

    def run(self) -> None:
        self.setup()
        actors = [Actor(self, i, ops) for i, ops in enumerate(self.schedule.actors)]
        for a in actors:
            a.start()
        try:
            active = list(actors)
            steps = [(c, b) for c, b in self.schedule.steps for _ in range(max(1, b))]
            turn = 0
            while active:
                # The generated choices first; then round robin, one hand-off each.
                turn = steps.pop(0)[0] % len(active) if steps else (turn + 1) % len(active)
                a = active[turn]
                self.trace.append(f"-> actor{a.index}")
                a.go.set()
                try:
                    who, point = self.back.get(timeout=STEP_TIMEOUT)
                except queue.Empty:
                    self.aborted = True
                    raise AssertionError(
                        f"actor{a.index} did not reach a hand-off point in {STEP_TIMEOUT:.0f} s (a lock held "
                        "across a progress callback?); trace:\n  " + "\n  ".join(self.trace[-20:])) from None
                assert who is a, f"actor{who.index} ran while actor{a.index} had the turn"
                if point is None:
                    active.remove(a)
                    turn -= 1
                    if a.failure:
                        raise AssertionError(f"actor{a.index} crashed:\n{a.failure}")
        finally:
            self.aborted = True
            for a in actors:
                a.go.set()
            for a in actors:
                a.join(STEP_TIMEOUT)
                a.client.close()


def run_history(root: pathlib.Path, schedule: Schedule) -> History:
    h = History(root, schedule)
    h.run()
    return h


# ---- the checker -----------------------------------------------------------------------------

# Bugs the checker knows and counts (as "[known bug]" coverage) instead of failing on, each
# pinned by an xfail(strict=True) test of test_conformance_regressions.py: when the bug is
# fixed, that test passes, strict xfail fails it, and its entry here goes too.
KNOWN_BUGS: set[str] = set()

Rows = tuple[tuple[int, str], ...]


def sorted_rows(rows) -> Rows:
    return tuple(sorted((int(i), str(k)) for i, k in rows))


def run_output(rows: Rows, only_ab: bool) -> Rows:
    return sorted_rows(r for r in rows if not only_ab or r[1] in ("a", "b"))


@dataclass(frozen=True)
class Keep:
    """Expected: the table at this exact version (metadata file), or absent when None."""
    loc: str | None


@dataclass(frozen=True)
class New:
    """Expected: a version first written by this commit, holding these rows and contract."""
    rows: Rows
    contract: str | None


class Checker:
    """Reads the lake a history left and checks it against the records (module docstring)."""

    def __init__(self, h: History):
        self.h = h
        self.c = h.observer
        self.problems: list[str] = []
        self.by_n = {r.n: r for r in h.records}
        # How often the history exercised each rule (reported by the test; a target for
        # hypothesis, which then favours histories where writers meet).
        self.coverage: Counter[str] = Counter()

    def fail(self, msg: str) -> None:
        self.problems.append(msg)

    # -- reading the lake -----------------------------------------------------------------------

    def read(self) -> None:
        c = self.c
        self.branches = {b.name: b.head for b in c.get_branches()}
        self.commits: dict[str, weir.Commit] = {}
        for name in self.branches:
            for cm in c.get_commits(name):
                self.commits[cm.hash] = cm
        self.runs = {r.run_id: r for r in c.get_runs() if r.run_id}
        # ancestors (each commit included in its own set), in an order where parents come first
        self.anc: dict[str, frozenset[str]] = {}
        order: list[str] = []
        stack = list(self.commits)
        while stack:
            x = stack[-1]
            if x in self.anc:
                stack.pop()
                continue
            missing = [p for p in self.commits[x].parents if p not in self.anc]
            if missing:
                for p in missing:
                    if p not in self.commits:
                        self.fail(f"commit {x[:12]} has parent {p[:12]}, which no ref reaches")
                        self.anc[p] = frozenset([p])
                    else:
                        stack.append(p)
                continue
            stack.pop()
            self.anc[x] = frozenset([x]).union(*(self.anc[p] for p in self.commits[x].parents))
            order.append(x)
        self.order = order
        self.tables: dict[str, dict[str, str]] = {}
        self.rows: dict[str, Rows] = {}
        self.contract: dict[str, str | None] = {}
        self.origin: dict[str, str] = {}
        for x in sorted(order, key=lambda x: (self.commits[x].time, len(self.anc[x]))):
            info = c.get_commit(x)
            tabs = {t.table: t.metadata_location for t in info.tables}
            self.tables[x] = tabs
            for loc in tabs.values():
                self.origin.setdefault(loc, x)
            if not tabs:
                continue
            # Rule 5: every table at every commit is readable.
            sql = " UNION ALL ".join(f"SELECT '{t}' AS t, id, kind FROM {t.split('.', 1)[1]}" for t in sorted(tabs))
            try:
                got = c.query(sql, ref=x).to_pylist()
            except weir.WeirError as e:
                self.fail(f"commit {x[:12]} ({self.commits[x].message!r}) is not readable: {type(e).__name__}: {e}")
                continue
            per: dict[str, list[tuple[int, str]]] = {t: [] for t in tabs}
            for r in got:
                per[r["t"]].append((r["id"], r["kind"]))
            for t, loc in tabs.items():
                rows = sorted_rows(per[t])
                if loc in self.rows and self.rows[loc] != rows:
                    self.fail(f"version {loc} of {t} reads {self.rows[loc]} at one commit and {rows} at "
                              f"{x[:12]}")
                self.rows.setdefault(loc, rows)
                if loc not in self.contract:
                    info_t = c.get_table(t, ref=x)
                    self.contract[loc] = (info_t.contract or {}).get("version") if info_t.contract else None

    # -- helpers --------------------------------------------------------------------------------

    def at(self, commit: str | None, table: str) -> str | None:
        return self.tables.get(commit or "", {}).get(table)

    def cv(self, loc: str | None) -> str | None:
        return self.contract.get(loc) if loc else None

    def name(self, x: str | None) -> str:
        if not x:
            return "(none)"
        cm = self.commits.get(x)
        return f"{x[:10]} ({cm.message!r})" if cm else f"{x[:10]} (not in any ref's history)"

    def lcas(self, a: str, b: str) -> list[str]:
        common = self.anc[a] & self.anc[b]
        return sorted(x for x in common if not any(x != y and x in self.anc[y] for y in common))

    def op_of(self, cm: weir.Commit) -> Record | None:
        msg = cm.message
        if msg.startswith("op"):
            head = msg.split(" ", 1)[0][2:]
            if head.isdigit():
                return self.by_n.get(int(head))
        run_id = (cm.properties or {}).get("run_id")
        if not run_id and msg.startswith("run "):
            run_id = msg.split(" ")[1].rstrip(":")
        if run_id:
            for r in self.h.records:
                if run_id in r.run_ids:
                    return r
            run = self.runs.get(run_id)
            if run and run.project and run.project.startswith("op") and run.project[2:].isdigit():
                return self.by_n.get(int(run.project[2:]))
        return None

    def appended_only(self, table: str, v: str | None, bv: str | None, depth: int = 64) -> bool:
        """Whether version `v` of `table` descends from `bv` by appends alone: each version on
        the way was written by an append over the version its commit's parent had (a replace
        over an empty version with the same contract removes nothing, and Iceberg records it
        as an append), or by an append-aware merge of two such versions."""
        if v == bv:
            return True
        if v is None or bv is None or depth == 0:
            return False
        x = self.origin.get(v)
        cm = self.commits.get(x or "")
        if cm is None or not cm.parents:
            return False
        prevs = [self.at(q, table) for q in cm.parents]
        if len(cm.parents) == 2:
            # A merge wrote it only by combining the two sides' appends.
            return v not in prevs and any(self.appended_only(table, q, bv, depth - 1) for q in prevs)
        rec = self.op_of(cm)
        prev = prevs[0]
        if rec is None or prev is None:
            return False
        if rec.kind == "append" or (rec.kind in ("replace", "contract", "run") and not self.rows.get(prev)
                                    and self.cv(v) == self.cv(prev)):
            return self.appended_only(table, prev, bv, depth - 1)
        return False

    def three_way(self, ours: str, theirs: str, base: str | None, strategy: str | None, combine: bool = True):
        """The merge rule at table level: (expected tables, conflicting tables). With
        `combine` (a user's merge; a run's publication does not combine), a table both sides
        only appended to since the base, under the same contract, is a new version holding
        the base's rows and both sides' appends, whatever the strategy."""
        o, t, b = self.tables[ours], self.tables[theirs], self.tables.get(base or "", {})
        exp: dict[str, Keep | New] = {}
        conflicts = []
        for name in sorted(set(o) | set(t) | set(b)):
            ov, tv, bv = o.get(name), t.get(name), b.get(name)
            if ov == bv:
                exp[name] = Keep(tv)
            elif tv == bv or ov == tv:
                exp[name] = Keep(ov)
            elif (combine and bv is not None and ov is not None and tv is not None
                  and self.cv(ov) == self.cv(bv) == self.cv(tv)
                  and self.appended_only(name, ov, bv) and self.appended_only(name, tv, bv)):
                theirs_added = Counter(self.rows.get(tv, ())) - Counter(self.rows.get(bv, ()))
                exp[name] = New(sorted_rows(list(self.rows.get(ov, ())) + list(theirs_added.elements())),
                                self.cv(ov))
            elif strategy == "source-wins":
                exp[name] = Keep(tv)
            elif strategy == "target-wins":
                exp[name] = Keep(ov)
            else:
                conflicts.append(name)
                exp[name] = Keep(ov)
        return exp, conflicts

    def changes(self, e: Keep | New, cur: str | None) -> bool:
        """Whether the expectation `e` changes a table whose version is `cur`."""
        return isinstance(e, New) or e.loc != cur

    def compare(self, x: str, exp: dict[str, Keep | New], quiet: bool = False) -> list[str]:
        real = self.tables[x]
        out = []
        for t in sorted(set(real) | set(exp)):
            e, r = exp.get(t, Keep(None)), real.get(t)
            if isinstance(e, Keep):
                if e.loc != r:
                    what = "absent" if e.loc is None else f"the version {self.origin.get(e.loc, '?')[:10]} wrote"
                    got = "absent" if r is None else f"the version {self.origin.get(r, '?')[:10]} wrote"
                    out.append(f"{t} should be {what}, is {got}")
            elif r is None:
                out.append(f"{t} should be a new version {e.rows}, is absent")
            else:
                if self.origin.get(r) != x:
                    out.append(f"{t} should be a new version, is the one {self.origin.get(r, '?')[:10]} wrote")
                if self.rows.get(r) != e.rows:
                    out.append(f"{t} should hold {e.rows}, holds {self.rows.get(r)}")
                if self.cv(r) != e.contract:
                    out.append(f"{t} should have contract version {e.contract}, has {self.cv(r)}")
        if out and not quiet:
            self.fail(f"commit {self.name(x)}: " + "; ".join(out))
        return out

    # -- every commit is its operation applied to its parents ---------------------------------

    def check_commits(self) -> None:
        self.commits_of: dict[int, list[str]] = {}
        for x in self.order:
            cm = self.commits[x]
            if not cm.parents:
                if cm.message != "initial commit" or self.tables.get(x):
                    self.fail(f"root commit {self.name(x)} is not the lake's empty first commit")
                continue
            rec = self.op_of(cm)
            if rec is None:
                self.fail(f"commit {self.name(x)} was made by no operation of the history")
                continue
            self.commits_of.setdefault(rec.n, []).append(x)
            try:
                self.check_commit(x, cm, rec)
            except KeyError as e:
                self.fail(f"commit {self.name(x)} of op{rec.n}: cannot be checked ({e!r} missing)")

    def keep_all(self, parent: str) -> dict[str, Keep | New]:
        return {t: Keep(loc) for t, loc in self.tables[parent].items()}

    def check_commit(self, x: str, cm: weir.Commit, rec: Record) -> None:
        ps = cm.parents
        where = f"commit {self.name(x)} of op{rec.n} ({rec.kind})"
        if rec.kind in ("create", "append", "replace", "contract"):
            if len(ps) != 1:
                return self.fail(f"{where} has {len(ps)} parents")
            p, t = ps[0], rec.table
            exp = self.keep_all(p)
            prev = self.at(p, t)
            if rec.kind == "create":
                if prev:
                    return self.fail(f"{where} created {t}, which its parent already has")
                exp[t] = New(sorted_rows(rec.rows), rec.contract)
            elif prev is None:
                return self.fail(f"{where}: {t} is absent from its parent {self.name(p)}")
            elif rec.kind == "append":
                exp[t] = New(sorted_rows(self.rows[prev] + rec.rows), self.cv(prev))
            elif rec.kind == "replace":
                exp[t] = New(sorted_rows(rec.rows), self.cv(prev))
            else:
                exp[t] = New(sorted_rows(rec.rows), rec.contract)
            self.compare(x, exp)
            # The serial rules against the write's base.
            base = rec.base
            if base not in self.anc[p]:
                return self.fail(f"{where} landed on {self.name(p)}, which does not descend from its base "
                                 f"{self.name(base)}")
            bl = self.at(base, t)
            if bl != prev:
                if rec.kind == "append":
                    self.coverage["append landed on a newer version" if self.cv(bl) == self.cv(prev) else
                                  "append validated again after a contract change"] += 1
                if rec.kind != "append":
                    self.fail(f"{where}: {t} changed between its base {self.name(base)} and the head it landed on "
                              f"{self.name(p)}, and a replace never removes rows it did not read")
                elif rec.decided and (self.cv(bl) != self.cv(prev) or self.cv(bl) in UNIQUE):
                    self.fail(f"{where}: an append with expect_head landed although {t} changed its contract "
                              f"({self.cv(bl)} -> {self.cv(prev)}) or was read (unique) since its base")
        elif rec.kind == "merge":
            if len(ps) != 2:
                return self.fail(f"{where} has {len(ps)} parents (a merge commit has two)")
            reported = rec.result.base if rec.status == "ok" and rec.result.commit == x else None
            bases = self.lcas(ps[0], ps[1])
            if reported and reported not in bases:
                self.fail(f"{where}: its merge base {self.name(reported)} is not a best common ancestor of its "
                          f"parents (those are {[b[:10] for b in bases]})")
            self.check_merge(x, ps, [reported] if reported else bases or [None], rec.strategy, where)
            if (cm.properties or {}).get("merged_appends"):
                self.coverage["merge combined both sides' appends"] += 1
            self.coverage["three-way merge commit"] += 1
            if rec.decided and ps[0] != rec.decided:
                exp, _ = self.three_way(ps[0], ps[1], reported or (bases[0] if bases else None), rec.strategy)
                for t, e in exp.items():
                    if self.changes(e, self.at(ps[0], t)) and self.at(rec.decided, t) != self.at(ps[0], t):
                        self.fail(f"{where}: it changed {t} on {rec.branch}, which changed since its expected "
                                  f"head {self.name(rec.decided)}")
        elif rec.kind == "run":
            run_id = (cm.properties or {}).get("run_id") or cm.message.split(" ")[1].rstrip(":")
            run = self.runs.get(run_id)
            if run is None:
                return self.fail(f"{where}: no record of run {run_id}")
            base = run.base_commit
            if len(ps) == 1:
                p = ps[0]
                if p != base:
                    self.fail(f"{where}: the model's commit is on {self.name(p)}, not on the run's base "
                              f"{self.name(base)}")
                src = self.at(p, "default.t0")
                if src is None:
                    return self.fail(f"{where}: the model read default.t0, absent at {self.name(p)}")
                exp = self.keep_all(p)
                exp["default.t1"] = New(run_output(self.rows[src], rec.only_ab), self.cv(self.at(p, "default.t1")))
                self.compare(x, exp)
            elif len(ps) == 2:
                if run.status != "succeeded":
                    self.fail(f"{where}: run {run_id} published, but its record says {run.status}")
                if base not in self.lcas(ps[0], ps[1]):
                    self.fail(f"{where}: the run's base {self.name(base)} is not the merge base of the publish")
                self.check_merge(x, ps, [base], None, where, combine=False)
                self.coverage["run published over a moved branch"] += 1
                if self.at(ps[0], "default.t0") != self.at(base, "default.t0"):
                    self.fail(f"{where}: run {run_id} published although its input default.t0 changed on "
                              f"{run.branch} since its base {self.name(base)} (a stale read)")
            else:
                self.fail(f"{where} has {len(ps)} parents")
        elif rec.kind == "revert":
            if len(ps) != 1:
                return self.fail(f"{where} has {len(ps)} parents")
            p, t = ps[0], rec.table
            props = cm.properties or {}
            if props.get("reverted_table") != t or props.get("reverted_to") != rec.to:
                self.fail(f"{where}: its properties {dict(props)} do not name {t} and {rec.to[:12]}")
            exp = self.keep_all(p)
            exp[t] = Keep(self.at(rec.to, t))
            self.compare(x, exp)
            if rec.decided and p != rec.decided and self.at(rec.decided, t) != self.at(p, t):
                self.fail(f"{where}: {t} changed since its expected head {self.name(rec.decided)}")
            self.check_revert_contract(rec, where, p, {t: self.at(rec.to, t)})
        elif rec.kind == "revert_run":
            if len(ps) != 1:
                return self.fail(f"{where} has {len(ps)} parents")
            p = ps[0]
            run = self.runs[rec.run]
            # Only what the run put on the branch is taken back (docs/versioning.md): a
            # table at one of the run's versions goes back to the run's base, one already as
            # before stays, and any other refuses the revert.
            exp = self.keep_all(p)
            for t in self.run_tables(rec.run):
                now, before = self.at(p, t), self.at(run.base_commit, t)
                if now == before:
                    continue
                if now not in self.run_versions(rec.run, t):
                    self.fail(f"{where}: reverting run {rec.run} succeeded though {t} on {rec.branch} is not at a "
                              f"version the run wrote (a later write, or never published): it discarded that write")
                exp[t] = Keep(before)
                if rec.decided and p != rec.decided and self.at(rec.decided, t) != self.at(p, t):
                    self.fail(f"{where}: {t} changed since its expected head {self.name(rec.decided)}")
            if run.status != "succeeded":
                self.coverage["revert of a run that did not publish took back only its own versions"] += 1
            self.compare(x, exp)
            self.check_revert_contract(rec, where, p, {t: self.at(run.base_commit, t) for t in self.run_tables(rec.run)})
        else:
            self.fail(f"{where}: a {rec.kind} makes no commit")

    def contract_changes(self, head: str | None, to: dict[str, str | None]) -> list[str]:
        """The tables whose stored contract a revert from `head` to the versions `to` would
        change (bringing a table back, or dropping one, changes none)."""
        out = []
        for t, loc in sorted(to.items()):
            cur = self.at(head, t)
            if cur and loc and cur != loc and self.cv(cur) != self.cv(loc):
                out.append(t)
        return out

    def check_revert_contract(self, rec: Record, where: str, parent: str, to: dict[str, str | None]) -> None:
        changed = self.contract_changes(parent, to)
        if changed and not rec.allow_contract:
            self.fail(f"{where}: it changed the stored contract of {changed} without allow_contract_change "
                      "(contracts change only through a write that names one)")
        elif changed:
            self.coverage["revert changed a stored contract (allowed)"] += 1

    def check_merge(self, x, ps, bases, strategy, where, combine: bool = True) -> None:
        results = []
        for b in bases:
            exp, conflicts = self.three_way(ps[0], ps[1], b, strategy, combine)
            diffs = self.compare(x, exp, quiet=True)
            if conflicts:
                diffs.append(f"{', '.join(conflicts)} changed on both sides since {self.name(b)}, and a merge "
                             "without a strategy writes nothing then")
            if not diffs:
                return
            results.append(f"against the base {self.name(b)}: " + "; ".join(diffs))
        self.fail(f"{where}: " + " | ".join(results))

    def run_versions(self, run_id: str, table: str) -> set[str | None]:
        """The versions of `table` that the run's own commits wrote (its models', and its
        publishing merge's)."""
        return {self.at(x, table) for x in self.order
                if (self.commits[x].properties or {}).get("run_id") == run_id
                and table in {tc.table for tc in self.commits[x].tables_changed}}

    def run_tables(self, run_id: str) -> set[str]:
        out = set()
        for x in self.order:
            cm = self.commits[x]
            if (cm.properties or {}).get("run_id") == run_id:
                out |= {tc.table for tc in cm.tables_changed}
        return out

    # -- every operation's reported outcome -----------------------------------------------------

    def check_records(self) -> None:
        public = set().union(*(self.anc[hd] for b, hd in self.branches.items() if not b.startswith("run/")))
        self.public = public
        for rec in self.h.records:
            try:
                self.check_record(rec)
            except Exception as e:  # noqa: BLE001 - a checker bug must not hide the history
                self.fail(f"op{rec.n}: the checker failed on it: {type(e).__name__}: {e}\n{traceback.format_exc()}")

    def committed(self, rec: Record) -> bool:
        if rec.kind == "run":
            return any(self.runs.get(r) is not None and self.runs[r].status == "succeeded" for r in rec.run_ids)
        return bool(self.commits_of.get(rec.n))

    def check_record(self, rec: Record) -> None:
        where = f"op{rec.n} ({rec.kind}{' via the CLI' if rec.cli else ''})"
        mine = self.commits_of.get(rec.n, [])
        if rec.status == "skipped":
            return
        for point, before, after in rec.points:
            if point.startswith("stopped at ") and before != after:
                self.coverage[f"stalled {rec.kind} went on over a moved branch: {rec.status} {rec.error or ''}"] += 1
        if rec.status == "killed":
            ok = self.committed(rec)
            self.coverage[f"killed {rec.kind} {'committed' if ok else 'did not commit'}"] += 1
        else:
            ok = rec.status == "ok"
        last = next((a for _, _, a in reversed(rec.points) if a), rec.base)
        if not ok:
            # Refused (or killed before committing): no trace.
            if rec.kind == "run":
                for r in rec.run_ids:
                    leaked = [x for x in public_commits_of_run(self, r)]
                    if leaked:
                        self.fail(f"{where}: run {r} did not succeed, but {self.name(leaked[0])} is on a branch")
            elif mine:
                self.fail(f"{where} was refused ({rec.error}) or killed, but left commit {self.name(mine[0])}")
            ids = {i for i, _ in rec.rows}
            for loc, rows in self.rows.items():
                if ids & {i for i, _ in rows}:
                    self.fail(f"{where} was refused or killed, but its rows {sorted(ids)} are in {loc} "
                              f"(at {self.name(self.origin.get(loc))})")
                    break
            if rec.branch and rec.kind != "branch" and rec.end_head != last:
                self.fail(f"{where} was refused or killed, but {rec.branch} moved from {self.name(last)} to "
                          f"{self.name(rec.end_head)} during it")
            if rec.status == "error":
                if rec.error in ("ConcurrentUpdate", "StaleRead", "MergeConflict"):
                    self.coverage[f"{rec.kind}{' with expect_head' if rec.decided else ''} refused: {rec.error}"] += 1
                self.justify(rec, where)
                if rec.error in ("ConcurrentUpdate", "StaleRead"):
                    self.check_changed(rec, where)
            return
        # Succeeded (or killed after committing).
        if rec.kind in ("create", "append", "replace", "contract"):
            if len(mine) != 1:
                return self.fail(f"{where} succeeded with {len(mine)} commits")
            x = mine[0]
            if rec.status == "ok":
                commit = rec.result["commit"] if rec.cli else rec.result.commit
                written = rec.result["rows_written"] if rec.cli else rec.result.rows_written
                if commit != x:
                    self.fail(f"{where} reported commit {self.name(commit)}, but its commit is {self.name(x)}")
                if written != len(rec.rows):
                    self.fail(f"{where} reported {written} rows written, not {len(rec.rows)}")
            if rec.end_head != x:
                self.fail(f"{where}: {rec.branch} is at {self.name(rec.end_head)} after it, not at its commit "
                          f"{self.name(x)}")
        elif rec.kind == "merge":
            r = rec.result
            if r.result == "up-to-date":
                if mine or r.source_commit not in self.anc[r.into_commit] or r.commit != r.into_commit:
                    self.fail(f"{where}: up-to-date, but {self.name(r.source_commit)} is not in the history of "
                              f"{self.name(r.into_commit)} (or it made a commit)")
            elif r.result == "fast-forward":
                if mine or r.commit != r.source_commit or r.into_commit not in self.anc[r.source_commit]:
                    self.fail(f"{where}: a fast-forward from {self.name(r.into_commit)} to {self.name(r.commit)} "
                              f"that is not one")
                if rec.decided and r.into_commit != rec.decided:
                    for t in set(self.tables[r.into_commit]) | set(self.tables[r.source_commit]):
                        if self.at(r.into_commit, t) != self.at(r.source_commit, t) and \
                                self.at(rec.decided, t) != self.at(r.into_commit, t):
                            self.fail(f"{where}: fast-forwarded over {t}, which changed since its expected head")
            else:
                if mine != [r.commit] or tuple(self.commits[r.commit].parents) != (r.into_commit, r.source_commit):
                    self.fail(f"{where}: reported merge commit {self.name(r.commit)} with parents "
                              f"{r.into_commit[:10]}, {r.source_commit[:10]}; its commits are {mine}")
            if rec.end_head != r.commit:
                self.fail(f"{where}: {rec.branch} is at {self.name(rec.end_head)} after it, not at "
                          f"{self.name(r.commit)}")
            if r.into_commit not in self.anc.get(r.commit, ()) or rec.base not in self.anc[r.into_commit]:
                self.fail(f"{where}: merged into {self.name(r.into_commit)}, not a descendant of its base")
        elif rec.kind in ("revert", "revert_run"):
            commit = rec.result.commit
            if len(mine) > 1 or (mine and mine[0] != commit) or (not mine and commit != last):
                self.fail(f"{where} reported {self.name(commit)}; its commits are {[m[:10] for m in mine]}")
            if rec.end_head != commit:
                self.fail(f"{where}: {rec.branch} is at {self.name(rec.end_head)} after it, not at "
                          f"{self.name(commit)}")
            if not mine and rec.kind == "revert" and self.at(commit, rec.table) != self.at(rec.to, rec.table):
                self.fail(f"{where} changed nothing, but {rec.table} differs from its version at {rec.to[:10]}")
        elif rec.kind == "run":
            runs = [self.runs.get(r) for r in rec.run_ids]
            won = [r for r in runs if r is not None and r.status == "succeeded"]
            if len(won) != 1:
                return self.fail(f"{where} succeeded, but {len(won)} of its runs {rec.run_ids} did")
            run = won[0]
            if run.result_commit not in self.anc.get(rec.end_head or "", ()):
                self.fail(f"{where}: its result {self.name(run.result_commit)} is not on {rec.branch}")
            if rec.end_head != run.result_commit:
                self.fail(f"{where}: {rec.branch} is at {self.name(rec.end_head)} after it, not at its result "
                          f"{self.name(run.result_commit)}")
            for m in run.models:
                if m.commit and m.commit in self.tables and m.rows != len(self.rows.get(self.at(m.commit, m.table), ())):
                    self.fail(f"{where}: model {m.model} reported {m.rows} rows, its commit holds "
                              f"{len(self.rows.get(self.at(m.commit, m.table), ()))}")
            if run.run_branch in self.branches:
                self.fail(f"{where}: run {run.run_id} succeeded, but its branch {run.run_branch} is still there")
            for r in runs:
                if r is not None and r is not run and public_commits_of_run(self, r.run_id):
                    self.fail(f"{where}: the failed attempt {r.run_id} left commits on a branch")
        elif rec.kind == "branch":
            if rec.status == "ok" and rec.result.head != rec.base:
                self.fail(f"{where}: {rec.branch} was made at {self.name(rec.result.head)}, not at the head of "
                          f"{rec.source} then, {self.name(rec.base)}")
            if mine:
                self.fail(f"{where} made commits")

    # -- refusals must be justified -------------------------------------------------------------

    def seen_heads(self, rec: Record) -> list[str]:
        heads = [rec.base] + [b for _, _, b in rec.points if b]
        return [x for x in heads if x]

    def justify(self, rec: Record, where: str) -> None:
        e, t = rec.error, rec.table
        end = rec.end_head
        if rec.kind in ("append", "replace", "contract"):
            bl, el = self.at(rec.base, t), self.at(end, t)
            heads = self.seen_heads(rec)
            kinds = [k for _, k in rec.rows]
            if e == "ContractViolation":
                if rec.kind == "contract":
                    ok = not kinds_ok(kinds, rec.contract)
                else:
                    ok = any(self.at(x, t) and not kinds_ok(kinds, self.cv(self.at(x, t))) for x in heads)
                if not ok:
                    self.fail(f"{where} was refused as a contract violation, but its kinds {kinds} meet "
                              f"{'contract ' + str(rec.contract) if rec.kind == 'contract' else 'every contract ' + t + ' had while it ran'}")
                return
            if e == "NotFound":
                if any(self.at(x, t) for x in heads[:1]):
                    self.fail(f"{where} was refused as NotFound, but {t} exists at its base {self.name(rec.base)}")
                return
            if e == "ConcurrentUpdate":
                if bl == el:
                    return self.fail(f"{where} was refused as a concurrent update, but {t} is the same at its base "
                                     f"{self.name(rec.base)} and at the head {self.name(end)}")
                if rec.kind == "append" and el is not None and bl is not None:
                    n_validate = sum(1 for p, _, _ in rec.points if p in ("validate", "cli validate"))
                    if rec.decided:
                        if self.cv(bl) == self.cv(el) and self.cv(bl) not in UNIQUE:
                            self.fail(f"{where} (blind, with expect_head) was refused although {t} kept its contract "
                                      f"({self.cv(bl)}): it should have been rebased")
                    elif n_validate < 4:
                        self.fail(f"{where} was refused as a concurrent update after {n_validate} validations, but an "
                                  f"append without expect_head is rebased or validated again (4 attempts)")
                if rec.error_obj is not None and not rec.cli:
                    named = {c.table for c in rec.error_obj.changed}
                    if named != {t}:
                        self.fail(f"{where}: the refusal names {sorted(named)}, not {t}")
                return
        elif rec.kind == "run":
            state = rec.result
            base = state.base_commit if state is not None and state.base_commit else rec.base
            if e == "PlanError":
                if self.at(base, "default.t0") is not None:
                    self.fail(f"{where}: PlanError although default.t0 exists at {self.name(base)}")
                return
            if e == "StaleRead":
                if self.at(base, "default.t0") == self.at(end, "default.t0"):
                    self.fail(f"{where}: StaleRead although default.t0 did not change since {self.name(base)}")
                return
            if e == "MergeConflict":
                if self.at(base, "default.t1") == self.at(end, "default.t1"):
                    self.fail(f"{where}: MergeConflict although default.t1 did not change on {rec.branch} since the "
                              f"run's base {self.name(base)}")
                return
            if e == "ContractViolation":
                src = self.at(base, "default.t0")
                out = run_output(self.rows.get(src, ()), rec.only_ab)
                if kinds_ok([k for _, k in out], self.cv(self.at(base, "default.t1"))):
                    self.fail(f"{where}: ContractViolation although its output {out} meets default.t1's contract "
                              f"{self.cv(self.at(base, 'default.t1'))} at {self.name(base)}")
                return
        elif rec.kind == "merge":
            src_end = rec.source_end or ""
            if end not in self.anc or src_end not in self.anc:
                return self.fail(f"{where}: its heads at the end are not in the history")
            if src_end in self.anc[end]:
                changes = set()
            elif end in self.anc[src_end]:
                changes = {x for x in set(self.tables[end]) | set(self.tables[src_end])
                           if self.at(end, x) != self.at(src_end, x)}
            else:
                changes, conflicts = set(), set()
                for b in self.lcas(end, src_end) or [None]:
                    exp, cf = self.three_way(end, src_end, b, rec.strategy)
                    conflicts |= set(cf)
                    changes |= {x for x, k in exp.items() if self.changes(k, self.at(end, x))}
                if e == "MergeConflict":
                    if not conflicts or rec.strategy:
                        self.fail(f"{where}: MergeConflict, but no table changed on both sides of {rec.source} and "
                                  f"{rec.branch} (strategy {rec.strategy})")
                    return
            if e == "ConcurrentUpdate" and rec.decided:
                if not any(self.at(rec.decided, x) != self.at(end, x) for x in changes):
                    self.fail(f"{where}: refused as a concurrent update, but no table it changes ({sorted(changes)}) "
                              f"changed since its expected head {self.name(rec.decided)}")
                return
        elif rec.kind in ("revert", "revert_run") and e == "ContractViolation":
            to = {t: self.at(rec.to, t)} if rec.kind == "revert" else \
                {x: self.at(self.runs[rec.run].base_commit, x) for x in self.run_tables(rec.run)}
            if rec.allow_contract or not self.contract_changes(end, to):
                self.fail(f"{where}: refused as a contract violation, but it would change no stored contract "
                          f"(allow_contract_change={rec.allow_contract})")
            else:
                self.coverage[f"{rec.kind} refused: it would change a stored contract"] += 1
            return
        elif rec.kind == "revert":
            if e == "NotFound":  # a table in neither place is taken for a typo (src/lake/history.c)
                if self.at(end, t) is not None or self.at(rec.to, t) is not None:
                    self.fail(f"{where}: NotFound, but {t} exists on {rec.branch} or at {self.name(rec.to)}")
                return
            if e == "ConcurrentUpdate" and rec.decided:
                if self.at(rec.decided, t) == self.at(end, t):
                    self.fail(f"{where}: refused as a concurrent update, but {t} did not change since its expected "
                              f"head {self.name(rec.decided)}")
                return
        elif rec.kind == "revert_run":
            if e == "ConcurrentUpdate":
                base = self.runs[rec.run].base_commit
                foreign = [x for x in self.run_tables(rec.run) if self.at(end, x) != self.at(base, x)
                           and self.at(end, x) not in self.run_versions(rec.run, x)]
                moved = rec.decided and any(self.at(rec.decided, x) != self.at(end, x) for x in self.run_tables(rec.run))
                if not foreign and not moved:
                    self.fail(f"{where}: refused as a concurrent update, but every table of the run is at a version "
                              f"it wrote or as before it, and none changed since its expected head")
                else:
                    self.coverage["revert of a run refused: a table of it was changed by another write"] += bool(foreign)
                return
        detail = rec.error_obj if isinstance(rec.error_obj, str) else getattr(rec.error_obj, "message", "")
        self.fail(f"{where} failed with {e}, which nothing in the history justifies: {str(detail)[:600]}")

    def check_changed(self, rec: Record, where: str) -> None:
        """A refusal names each table that changed since the write's base, the base, the
        head it was checked against, and the commit that changed the table: one in the
        head's history since the base that changed it (docs/versioning.md)."""
        base = rec.decided or rec.base
        if rec.kind == "run" and rec.result is not None and rec.result.base_commit:
            base = rec.result.base_commit
        bases = {base}
        if rec.kind == "revert_run" and rec.run in self.runs:
            # A table changed since the run wrote it is named against the run's result (or,
            # for a run that never published, its base).
            run = self.runs[rec.run]
            bases.add(run.result_commit or run.base_commit)
        items = [d for d in rec.details if isinstance(d, dict) and "changed_by" in d]
        if not items:
            return self.fail(f"{where}: the {rec.error} carries no details naming what changed")
        for d in items:
            t, b, hd, who = d.get("table"), d.get("base"), d.get("head"), d.get("changed_by")
            if b not in bases or hd != rec.end_head:
                self.fail(f"{where}: the refusal's base and head are {self.name(b)} and {self.name(hd)}, not "
                          f"{self.name(base)} and {self.name(rec.end_head)}")
                continue
            if self.at(b, t) == self.at(hd, t):
                self.fail(f"{where}: the refusal names {t}, which is the same at its base and head")
            if who is None:
                self.fail(f"{where}: the refusal does not say which commit changed {t}")
            elif who not in self.anc.get(hd, ()) or who in self.anc.get(b, ()):
                self.fail(f"{where}: the refusal says {t} was changed by {self.name(who)}, which is not a commit "
                          f"between its base {self.name(b)} and the head {self.name(hd)}")
            elif t not in {tc.table for tc in self.commits[who].tables_changed}:
                self.fail(f"{where}: the refusal says {t} was changed by {self.name(who)}, which did not change it")

    # -- invariants of every version ------------------------------------------------------------

    def check_versions(self) -> None:
        for loc, rows in self.rows.items():
            ids = Counter(i for i, _ in rows)
            dup = [i for i, n in ids.items() if n > 1]
            if dup:
                self.fail(f"version {loc} (by {self.name(self.origin.get(loc))}) holds ids {dup} more than once")
            v = self.contract.get(loc)
            bad = [r for r in rows if not kinds_ok([r[1]], v)]
            if bad:
                self.fail(f"version {loc} (by {self.name(self.origin.get(loc))}) holds rows {bad} that its stored "
                          f"contract version {v} forbids")
        minted = {i for r in self.h.records for i, _ in r.rows}
        for loc, rows in self.rows.items():
            stray = {i for i, _ in rows} - minted
            if stray:
                self.fail(f"version {loc} holds ids {sorted(stray)} that no operation wrote")

    def check_catalog(self) -> None:
        """After kills and stalls, the catalog itself is sound."""
        db = sqlite3.connect(f"file:{pathlib.Path(self.h.lake, 'catalog.db')}?mode=ro", uri=True)
        try:
            integrity = db.execute("PRAGMA integrity_check").fetchall()
            keys = db.execute("PRAGMA foreign_key_check").fetchall()
        finally:
            db.close()
        if integrity != [("ok",)] or keys:
            self.fail(f"the catalog is damaged: integrity_check {integrity}, foreign_key_check {keys}")

    def check(self) -> None:
        self.read()
        self.check_commits()
        self.check_records()
        self.check_versions()
        self.check_catalog()

    def report(self) -> str:
        lines = [f"{len(self.problems)} problem(s):"] + [f"  - {p}" for p in self.problems]
        lines.append("operations:")
        lines += [f"  {'setup' if r.actor < 0 else f'actor{r.actor}'}: {r.short()}" for r in self.h.records]
        lines.append("branches: " + ", ".join(f"{b}@{hd[:10]}" for b, hd in sorted(self.branches.items())))
        lines.append("commits (oldest first):")
        for x in sorted(self.order, key=lambda x: self.commits[x].time):
            cm = self.commits[x]
            tabs = ", ".join(f"{t.split('.')[1]}={self.origin.get(loc, '?')[:6]}:{len(self.rows.get(loc, ()))}r"
                             f"/c{self.cv(loc)}" for t, loc in sorted(self.tables.get(x, {}).items()))
            lines.append(f"  {x[:10]} <- {','.join(p[:10] for p in cm.parents) or '-'} {cm.message!r} [{tabs}]")
        lines.append("trace: " + " | ".join(self.h.trace))
        return "\n".join(lines)


def public_commits_of_run(ch: Checker, run_id: str) -> list[str]:
    return [x for x in ch.public if (ch.commits[x].properties or {}).get("run_id") == run_id]


def check_history(h: History) -> Checker:
    """Checks what `h` left; raises AssertionError with the whole history on a problem."""
    ch = Checker(h)
    ch.check()
    if ch.problems:
        raise AssertionError(ch.report())
    return ch
