"""``weir.Client``: the whole Git-for-data API of a lake, typed.

Naming: an operation that only makes sense at a branch head takes ``branch=`` or
``into_branch=`` (imports, merges, reverts, runs write there); a read of any commit takes
``ref=`` (a branch, a tag, a commit hash or a unique prefix of at least 7 hex digits,
optionally ``~N``). A :class:`Branch`, :class:`Tag` or :class:`Commit` object is accepted
wherever a ref is; a :class:`Branch` wherever a branch is. None given for a ref or branch
that defaults to ``"main"`` means main; an empty string is refused (``InvalidArgument``).

Arguments are checked before libweir sees them: a value of the wrong type raises
``TypeError`` naming the parameter, and a string holding a NUL character (which a C string
would silently end at) raises ``InvalidName`` for a branch, tag or table name and
``InvalidArgument`` otherwise. Paths may be ``str`` or ``os.PathLike``.

Example (the flow of the GitLake paper's Listing 2)::

    import weir

    client = weir.Client(lake="/data/lake")
    head = client.get_commits(ref="main", limit=1)[0]          # main's head, for later
    dev = client.create_branch("dev", from_ref="main")          # costs one catalog row
    state = client.run("examples/titanic/project", ref=dev)     # transactional run
    if state.success():
        client.merge(dev, into="main")                          # or into_branch="main"
        client.delete_branch(dev)
    old = client.query("SELECT COUNT(*) AS n FROM f", ref=head) # the lake as it was
    client.revert_table("f", source_ref=head, into_branch="main")

The client holds one libweir lake handle; calls are serialised by a lock, so a Client
may be shared by threads (open one Client per thread for parallel work).
"""
from __future__ import annotations

import ctypes
import dataclasses
import datetime as dt
import json
import operator
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, cast

import pyarrow as pa

from weir import _ffi
from weir.errors import InvalidArgument, InvalidName, NotFound, PlanError, WeirError
from weir.records import (
    AlterResult,
    CompactResult,
    Namespace,
    TableDropped,
    TableRenamed,
    DeleteResult,
    Branch,
    BranchProtection,
    Commit,
    GcResult,
    PrunedBranch,
    ContractDiff,
    Diff,
    ImportResult,
    LakeStatus,
    MergeResult,
    Plan,
    PlanProblem,
    RegisterResult,
    RevertResult,
    RunError,
    RunState,
    TableInfo,
    TableSummary,
    Tag,
    document,
)
from weir.limits import parse_duration

from weir.schema import TableSchema, is_schema
from weir.types import WeirType, weir_type_name

__all__ = ["Client", "RefLike", "BranchLike", "ImportMode"]

#: Anything that names a commit: a ref string, or a Branch, Tag or Commit.
RefLike = str | Branch | Tag | Commit
#: Anything that names a branch: its name or a Branch.
BranchLike = str | Branch
ImportMode = Literal["create", "append", "replace"]
_MODES: dict[str, int] = {"create": 0, "append": 1, "replace": 2}


def _micros(d: dt.timedelta, what: str) -> int:
    """Whole microseconds of a timedelta (TypeError for anything else)."""
    if not isinstance(d, dt.timedelta):
        raise TypeError(f"{what} must be a datetime.timedelta, not {type(d).__name__}")
    if d < dt.timedelta(0):
        raise InvalidArgument(f"{what}={d!r}: a duration cannot be negative")
    return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds


def _got(value: object) -> str:
    """What was given, for a message: ``None``, or the type and a short repr."""
    if value is None:
        return "None"
    r = repr(value)
    return f"{type(value).__name__} ({r if len(r) <= 60 else r[:57] + '...'})"


def _short(value: str, limit: int = 200) -> str:
    r = repr(value)
    return r if len(r) <= limit else r[:limit - 3] + "..."


def _text(value: object, what: str, *, optional: bool = False, name: bool = False) -> str | None:
    """``value`` checked to be a string libweir can take (C strings end at a NUL byte, so a
    NUL inside would silently cut the argument short). None stays None when ``optional``.

    Raises:
        TypeError: not a str (or None when ``optional``).
        InvalidName (``name``), InvalidArgument (otherwise): it contains a NUL character or
            cannot be encoded as UTF-8.
    """
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str{' or None' if optional else ''}, not {_got(value)}")
    bad = InvalidName if name else InvalidArgument
    if "\x00" in value:
        raise bad(f"{what} {_short(value)} contains a NUL character (\\x00) at position {value.index(chr(0))}, "
                  "which libweir cannot take")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise bad(f"{what} {_short(value)} cannot be encoded as UTF-8: {e.reason}") from None
    return value


def _enc(value: object, what: str, *, optional: bool = False, name: bool = False) -> bytes | None:
    """``value`` as a C string (None stays NULL when ``optional``), checked as :func:`_text` does."""
    return _ffi.enc(_text(value, what, optional=optional, name=name))


def _ref(ref: object, what: str = "ref", *, optional: bool = False) -> str | None:
    """The ref string of a ref argument (None only when ``optional``: libweir reads NULL
    as main).

    Raises:
        TypeError: not a str, Branch, Tag or Commit. InvalidArgument: an empty string, or
            one with a NUL character.
    """
    if ref is None and optional:
        return None
    if isinstance(ref, Commit):
        ref = ref.hash
    elif isinstance(ref, (Branch, Tag)):
        ref = ref.name
    elif not isinstance(ref, str):
        raise TypeError(f"{what} must be a branch, tag or commit hash (a str, Branch, Tag or Commit), "
                        f"not {_got(ref)}")
    s = _text(ref, what)
    if not s:
        raise InvalidArgument(f"{what} must not be empty: give a branch, tag or commit hash"
                              + (" (or None for main)" if optional else ""))
    return s


def _branch(branch: object, what: str = "branch", *, optional: bool = False, target: bool = True) -> str | None:
    """The branch name of a branch argument (None only when ``optional``). ``target``: the
    branch an operation writes to, where libweir would read an empty name as main.

    Raises:
        TypeError: not a str or Branch. InvalidArgument: a Commit or Tag; an empty target.
        InvalidName: a NUL character in the name.
    """
    if branch is None and optional:
        return None
    if isinstance(branch, Branch):
        branch = branch.name
    elif isinstance(branch, (Commit, Tag)):
        raise InvalidArgument(f"{what} must be a branch name (a str or Branch), not {type(branch).__name__}"
                              + (": this operation writes at a branch head" if target else ""))
    elif not isinstance(branch, str):
        raise TypeError(f"{what} must be a branch name (a str or Branch), not {_got(branch)}")
    s = _text(branch, what, name=True)
    if target and not s:
        raise InvalidArgument(f"{what} must not be empty: give a branch name"
                              + (" (or None for main)" if optional else ""))
    return s


def _enc_ref(ref: object, what: str = "ref", *, optional: bool = False) -> bytes | None:
    return _ffi.enc(_ref(ref, what, optional=optional))


def _enc_branch(branch: object, what: str = "branch", *, optional: bool = False, target: bool = True) -> bytes | None:
    return _ffi.enc(_branch(branch, what, optional=optional, target=target))


def _flag(value: object, what: str) -> bool:
    """A boolean option checked to be a real ``bool``: ``force="no"`` or ``force=0`` is
    refused rather than read by truthiness (``"no"`` would mean True).

    Raises:
        TypeError: not a bool, naming the parameter.
    """
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be True or False, not {_got(value)}")
    return value


def _check_callback(fn: object, what: str) -> None:
    if fn is not None and not callable(fn):
        raise TypeError(f"{what} must be a callable taking one dict (or None), not {_got(fn)}")


def _path(p: object, what: str) -> str:
    """An absolute path from a str or ``os.PathLike`` argument.

    Raises:
        TypeError: neither. InvalidArgument: empty, or with a NUL character.
    """
    if not isinstance(p, (str, os.PathLike)):
        raise TypeError(f"{what} must be a path (a str or os.PathLike), not {_got(p)}")
    s = os.fspath(cast("str | os.PathLike[str]", p))
    if isinstance(s, bytes):  # pyright: ignore[reportUnnecessaryIsInstance] - an os.PathLike[bytes]
        s = os.fsdecode(s)
    s = cast("str", _text(s, what))
    if not s:
        raise InvalidArgument(f"{what} must not be empty")
    return os.path.abspath(s)


def _check_column_names(names: list[str]) -> None:
    """Refuses Arrow column names libweir cannot import: empty, duplicate or holding a
    NUL character (``column "a" appears twice in the data``, ``column 1 has an empty
    name``; positions are 1-based)."""
    seen: set[str] = set()
    for i, name in enumerate(names, 1):
        if not name:
            raise InvalidArgument(f"column {i} has an empty name")
        if "\x00" in name:
            raise InvalidArgument(f"column {i} name {_short(name)} contains a NUL character (\\x00)")
        if name in seen:
            raise InvalidArgument(f'column "{name}" appears twice in the data')
        seen.add(name)


class Client:
    """A connection to one lake.

    Args:
        lake: the lake folder. Default: ``$WEIR_LAKE``, else the nearest ``.weir`` found
            walking up from the current directory (as the CLI does).
        library: an explicit path to libweir (default: see docs/python.md, "Loading
            libweir").
        author: the author recorded in commits (default ``$WEIR_AUTHOR``, else
            the account's ``user@hostname``, from its passwd entry).
        progress: called with each progress event of long operations (imports, runs), a
            dict such as ``{"phase": "model", "model": "f", "rows": 1200}``.

    Raises:
        NotFound: no lake there (the message says where weir looked).
        LibraryNotFound: libweir cannot be loaded.
        CatalogError: the catalog is unreadable.
        TypeError: an argument of the wrong type (``progress`` not callable, ``lake`` not a
            path). InvalidArgument: an empty ``lake``, or a NUL character in an argument.

    Example:
        >>> import weir
        >>> with weir.Client(lake="/tmp/lake") as client:        # doctest: +SKIP
        ...     print([b.name for b in client.get_branches()])
        ['main']
    """

    def __init__(self, lake: str | os.PathLike[str] | None = None, *, library: str | os.PathLike[str] | None = None,
                 author: str | None = None, progress: Callable[[dict[str, Any]], None] | None = None,
                 _create: bool = False, _catalog: str | None = None, _warehouse: str | None = None) -> None:
        lake_path = _path(lake, "lake") if lake is not None else None
        author_c = _enc(author, "author", optional=True)
        _check_callback(progress, "progress")
        self._lib = _ffi.load_library(_path(library, "library") if library is not None else None)
        # The SDK's environment variables become the lake's options (libweir reads none,
        # and the SDK changes no variable of the process): discovery and model workers
        # run with $WEIR_PYTHON, by default the interpreter running this client, which has
        # this SDK installed.
        if lake_path is None and os.environ.get("WEIR_LAKE"):
            lake_path = _path(os.environ["WEIR_LAKE"], "$WEIR_LAKE")
        opts = _ffi.lake_options(author=author, python=None if os.environ.get("WEIR_PYTHON") else sys.executable)
        self._lock = threading.RLock()
        self._handle = ctypes.c_void_p()
        self._progress_cb: Any = None
        # init only: where the catalog and the warehouse are (ctypes keeps the bytes alive).
        opts.catalog = _enc(_catalog, "catalog", optional=True)
        opts.warehouse = _enc(_warehouse, "warehouse", optional=True)
        self._lib.call("weir_lake_init" if _create else "weir_lake_open", _ffi.enc(lake_path), ctypes.byref(opts),
                       ctypes.byref(self._handle))
        del author_c
        if progress is not None:
            self.set_progress(progress)

    @classmethod
    def init(cls, path: str | os.PathLike[str], *, catalog: str | None = None, warehouse: str | None = None,
             library: str | os.PathLike[str] | None = None, author: str | None = None) -> Client:
        """Creates a lake at ``path`` (catalog, warehouse, an empty first commit on
        ``main``) and returns a client on it.

        Args:
            path: the lake's folder (created; must not hold a lake).
            catalog: ``None`` for a SQLite catalog inside the lake, or a PostgreSQL URI
                ``"postgresql://[user@]host[:port]/dbname[?schema=NAME]"`` to keep the
                catalog in that database (one lake per schema, default ``public``), shared
                by processes on many machines. Connection details follow libpq: ``PG*``
                environment variables, passwords from ``~/.pgpass`` or ``$PGPASSWORD``. A URI
                holding a password is refused: the lake records the URI (docs/catalog.md).
            warehouse: where table data and Iceberg metadata go: ``None`` for the lake's
                own ``warehouse`` folder, or an object-store prefix ``"s3://bucket/prefix"``
                (endpoint and credentials from the ``AWS_*`` variables and ``~/.aws``
                files, never stored in the lake; docs/storage.md). The bucket must exist
                and the prefix be empty.

        Raises:
            AlreadyExists: a lake is already there, or the schema already holds a catalog.
            NotFound: the PostgreSQL database does not exist.
            StorageError, CatalogError: it could not be created (server unreachable, login
                refused).
            TypeError: ``path`` is not a str or ``os.PathLike``. InvalidArgument: it is
                empty or holds a NUL character; ``catalog`` is not a valid URI or holds a
                password.

        Example:
            >>> client = weir.Client.init("/tmp/new-lake")        # doctest: +SKIP
            >>> uri = "postgresql://weir@db/lakes?schema=sales"
            >>> shared = weir.Client.init("/tmp/shared", catalog=uri)  # doctest: +SKIP
            >>> s3 = weir.Client.init("/tmp/s3-lake", warehouse="s3://bucket/lake")  # doctest: +SKIP
        """
        if catalog is not None and not isinstance(catalog, str):
            raise TypeError(f"catalog must be a str (a postgresql:// URI) or None, not {type(catalog).__name__}")
        return cls(_path(path, "path"), library=library, author=author, _create=True, _catalog=catalog,
                   _warehouse=warehouse)

    # ---- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the lake handle. The client cannot be used afterwards. Idempotent.

        Example:
            >>> client.close()   # doctest: +SKIP
        """
        with self._lock:
            if self._handle.value:
                self._lib.fn("weir_lake_free")(self._handle)
                self._handle = ctypes.c_void_p()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 - never raise from a finalizer
            pass

    def __repr__(self) -> str:
        return f"weir.Client(lake={self.path!r})" if self._handle.value else "weir.Client(<closed>)"

    def _h(self) -> ctypes.c_void_p:
        if not self._handle.value:
            raise InvalidArgument("this weir.Client is closed")
        return self._handle

    @property
    def path(self) -> str:
        """The lake's absolute path.

        Example:
            >>> weir.Client(lake="lake").path   # doctest: +SKIP
            '/home/me/lake'
        """
        with self._lock:
            v: bytes | None = self._lib.fn("weir_lake_path")(self._h())
            return v.decode() if v else ""

    @property
    def warehouse(self) -> str:
        """Where the lake's tables are stored: an absolute folder, or ``"s3://bucket/prefix"``.

        Example:
            >>> weir.Client(lake="lake").warehouse   # doctest: +SKIP
            '/home/me/lake/warehouse'
        """
        with self._lock:
            v: bytes | None = self._lib.fn("weir_lake_warehouse")(self._h())
            return v.decode() if v else ""

    @property
    def library_version(self) -> str:
        """The version of the loaded libweir (``"0.1.0"``).

        Example:
            >>> client.library_version   # doctest: +SKIP
            '0.1.0'
        """
        return self._lib.version

    def set_progress(self, fn: Callable[[dict[str, Any]], None] | None) -> None:
        """Sets (or with None removes) the progress callback of long operations. The
        callback runs on the calling thread; exceptions it raises are ignored.

        Raises:
            TypeError: ``fn`` is neither callable nor None.

        Example:
            >>> client.set_progress(lambda e: print(e.get("phase"), e.get("rows")))  # doctest: +SKIP
        """
        _check_callback(fn, "fn")

        def trampoline(event: bytes | None, ctx: int | None) -> None:
            if fn is None or not event:
                return
            try:
                fn(json.loads(event))
            except Exception:  # noqa: BLE001, S110 - a C callback cannot raise
                pass

        with self._lock:
            cb = _ffi.PROGRESS_FN(trampoline) if fn is not None else _ffi.PROGRESS_FN()  # NULL removes it
            self._lib.fn("weir_lake_set_progress")(self._h(), cb, None)
            self._progress_cb = cb  # keep the C thunk alive

    def interrupt(self) -> None:
        """Asks the run going on in this client (:meth:`run`, on another thread) to stop:
        the model running is stopped (a Python model's process is terminated, a SQL
        model's statement is interrupted in the engine), the run is recorded as
        ``interrupted`` (its branch kept, its target untouched) and :meth:`run` returns
        it with ``success()`` False and error code ``Interrupted``. Does nothing when no
        run is going on; the request lasts until the next run starts. Safe to call from
        any thread (it does not wait for the client's lock) and from a signal handler.

        Ctrl-C needs no call: a SIGINT during :meth:`run` in the main thread interrupts
        the run this way and raises ``KeyboardInterrupt`` once the run is recorded.

        Example:
            >>> threading.Timer(60, client.interrupt).start()          # doctest: +SKIP
            >>> client.run("project").error.code                       # doctest: +SKIP
            'Interrupted'
        """
        handle = self._handle.value
        if handle:
            self._lib.fn("weir_lake_interrupt")(ctypes.c_void_p(handle))

    def _call(self, name: str, *args: Any) -> None:
        with self._lock:
            self._lib.call(name, self._h(), *args)

    def _json(self, name: str, *args: Any) -> Any:
        with self._lock:
            return self._lib.call_json(name, self._h(), *args)

    def _out(self, name: str, *args: Any) -> tuple[str | None, WeirError | None]:
        with self._lock:
            return self._lib.call_out(name, self._h(), *args)

    # ---- refs and commits --------------------------------------------------------------------

    def resolve(self, ref: RefLike) -> str:
        """The full commit hash ``ref`` names.

        Raises:
            NotFound: no such ref. InvalidArgument: a malformed or ambiguous ref, an empty
            string, or a NUL character. TypeError: not a str, Branch, Tag or Commit.

        Example:
            >>> client.resolve("main~1")          # doctest: +SKIP
            '3f2a...'
        """
        buf = ctypes.create_string_buffer(_ffi.HASH_SIZE)
        self._call("weir_ref_resolve", _enc_ref(ref), buf)
        return buf.value.decode()

    def get_commits(self, ref: RefLike | None = "main", *, limit: int | None = None,
                    table: str | None = None) -> list[Commit]:
        """Commits reachable from ``ref``, newest first, each with the tables it changed.

        Args:
            ref: where to start (None: main).
            limit: at most this many: None for all, 0 for none (as ``weir log -n 0``; the
                ref must still exist).
            table: only the table's own history (as ``weir log --table``): the commits
                that created, wrote, renamed or dropped it, followed across renames back
                to the commit that created it.

        Raises:
            NotFound: no such ref, or a ``table`` no commit reachable from ``ref`` wrote.
            InvalidArgument: a negative limit, an empty ref. InvalidName: a bad table name.
            TypeError: ``limit`` is not an int (or None), ``table`` not a str (or None).

        Example:
            >>> head = client.get_commits(ref="main", limit=1)[0]   # doctest: +SKIP
            >>> head.hash, head.message                              # doctest: +SKIP
            >>> client.get_commits(limit=0)                          # doctest: +SKIP
            []
        """
        n = 0
        if limit is not None:
            if isinstance(limit, bool):
                raise TypeError(f"limit must be an int or None, not {_got(limit)}")
            try:
                n = operator.index(limit)
            except TypeError:
                raise TypeError(f"limit must be an int or None, not {_got(limit)}") from None
            if n < 0:
                raise InvalidArgument(f"limit must be 0 or more (or None for all), not {n}")
        r = _enc_ref(ref, optional=True)
        t = _enc(table, "table", optional=True, name=True)
        if limit is not None and n == 0:
            self._call("weir_ref_resolve", r, ctypes.create_string_buffer(_ffi.HASH_SIZE))  # NotFound as ever
            return []
        if t is not None:
            doc = self._json("weir_table_log", r, t, ctypes.c_int64(min(n, 2**63 - 1)))
            return [Commit.from_json(c) for c in document(doc, "table log", "commits")]
        doc = self._json("weir_commit_log", r, ctypes.c_int64(min(n, 2**63 - 1)))  # 0 asks libweir for all
        return [Commit.from_json(c) for c in document(doc, "commit log", "commits")]

    def get_commit(self, ref: RefLike) -> Commit:
        """One commit, with every table it holds (metadata file and snapshot).

        Raises:
            NotFound: no such ref. InvalidArgument: an empty ref. TypeError: not a ref.

        Example:
            >>> [t.table for t in client.get_commit("main").tables]   # doctest: +SKIP
            ['default.titanic']
        """
        return Commit.from_json(document(self._json("weir_commit_show", _enc_ref(ref)), "commit"))

    def diff(self, ref_a: RefLike, ref_b: RefLike) -> Diff:
        """Tables added, removed and changed from ``ref_a`` to ``ref_b``, with row counts.

        Raises:
            NotFound: either ref does not exist. InvalidArgument: an empty ref.

        Example:
            >>> d = client.diff("main", "dev")                         # doctest: +SKIP
            >>> [(t.table, t.record_change) for t in d.changed]         # doctest: +SKIP
        """
        doc = self._json("weir_commit_diff", _enc_ref(ref_a, "ref_a"), _enc_ref(ref_b, "ref_b"))
        return Diff.from_json(document(doc, "diff"))

    # ---- branches and tags -------------------------------------------------------------------

    def get_branches(self) -> list[Branch]:
        """All branches, sorted by name, with their heads.

        Example:
            >>> [b.name for b in client.get_branches()]     # doctest: +SKIP
            ['dev', 'main']
        """
        doc = self._json("weir_branch_list")
        return [Branch.from_json(b) for b in document(doc, "branch list", "branches")]

    def get_branch(self, name: BranchLike) -> Branch:
        """The branch ``name`` with its current head.

        Raises:
            NotFound: no such branch. TypeError: ``name`` is not a str or Branch.

        Example:
            >>> client.get_branch("main").head       # doctest: +SKIP
        """
        n = _branch(name, "name", target=False)
        for b in self.get_branches():
            if b.name == n:
                return b
        raise NotFound(f"branch '{n}' does not exist")

    def create_branch(self, name: str, from_ref: RefLike | None = "main") -> Branch:
        """Creates branch ``name`` at ``from_ref`` (None: main). Copies no data: one
        catalog row.

        Raises:
            InvalidName: the name breaks git's ref-name rules (or holds a NUL character).
            AlreadyExists: the branch exists. NotFound: ``from_ref`` does not exist.
            InvalidArgument: an empty ``from_ref``. TypeError: ``name`` is not a str.

        Example:
            >>> dev = client.create_branch("dev", from_ref="main")   # doctest: +SKIP
        """
        n = cast("str", _branch(name, "name", target=False))
        buf = ctypes.create_string_buffer(_ffi.HASH_SIZE)
        self._call("weir_branch_create", _ffi.enc(n), _enc_ref(from_ref, "from_ref", optional=True), buf)
        head = buf.value.decode()
        for b in self.get_branches():
            if b.name == n:
                return b
        return Branch(name=n, head=head)

    def delete_branch(self, name: BranchLike, *, force: bool = False) -> None:
        """Deletes a branch (its commits stay readable by hash).

        Args:
            force: delete even when its head is reachable from no other branch or tag.

        Raises:
            NotFound: no such branch. InvalidArgument: ``main``, or unmerged work without
            ``force``. InvalidName: a bad name (or one holding a NUL character).
            TypeError: ``name`` is not a str or Branch; ``force`` is not a bool
            (``force="no"`` is refused, not read as True).

        Example:
            >>> client.delete_branch("dev")          # doctest: +SKIP
        """
        n = _enc_branch(name, "name", target=False)
        self._call("weir_branch_delete", n, ctypes.c_uint(1 if _flag(force, "force") else 0))

    def prune_branches(self, *, runs: bool = True, failed: bool = False,
                       older_than: dt.timedelta | None = None, dry_run: bool = False) -> list[PrunedBranch]:
        """Deletes run branches (``run/<id>``), as ``weir branch prune --runs``.

        A failed or interrupted run keeps its branch for inspection (a successful one
        deletes its own); the branch of a run still running is never deleted. Their files
        go at the next ``gc``.

        Args:
            runs: prune run branches, today the only kind (must be True).
            failed: only branches of runs that failed or were interrupted.
            older_than: only branches whose head last moved longer ago than this.
            dry_run: report, delete nothing.

        Returns:
            The branches deleted (or that would be), in name order.

        Raises:
            InvalidArgument: ``runs=False``, or a negative ``older_than``.
            TypeError: an argument of the wrong type.

        Example:
            >>> [b.name for b in client.prune_branches(failed=True, older_than=dt.timedelta(days=7))]  # doctest: +SKIP
            ['run/3f9c2a1b']
        """
        opts = _ffi.options(_ffi.PruneOptions, runs=1 if _flag(runs, "runs") else 0,
                            failed_only=1 if _flag(failed, "failed") else 0,
                            older_than_us=_micros(older_than, "older_than") if older_than is not None else 0,
                            dry_run=1 if _flag(dry_run, "dry_run") else 0)
        doc = self._json("weir_branch_prune", ctypes.byref(opts))
        return [PrunedBranch.from_json(b) for b in document(doc, "branch prune", "branches")]

    def gc(self, *, dry_run: bool = False, grace: dt.timedelta = dt.timedelta(hours=1),
           expire_before: dt.datetime | None = None) -> GcResult:
        """Deletes the warehouse files no branch, tag or unexpired commit reaches, as ``weir gc``.

        Orphans of interrupted or refused writes and the files only deleted branches
        reached are deleted; a file younger than ``grace`` is kept, referenced or not (a
        writer may be about to commit it). Commits no ref reaches are marked collected.
        With ``expire_before`` (an aware datetime, or naive meaning UTC), commits older
        than it that no branch head or tag names are expired: reading one raises
        ``NotFound`` saying when gc expired it, and ``get_commits`` shows it with
        ``expired`` set. A concurrent writer loses nothing as long as ``grace`` is longer
        than its write (docs/gc.md). With a ``grace`` under ten minutes (and not
        ``dry_run``), gc first waits, at most 60 s, for the writes in flight on this machine
        (the lake's writer lock; ``writers_waited`` says whether it did); writers on other
        machines are protected by ``grace`` only.

        Args:
            dry_run: report what would be deleted and marked; change nothing.
            grace: keep files modified less than this long ago (``timedelta(0)``: none).
            expire_before: expire commits older than this, or None.

        Raises:
            InvalidArgument: a negative ``grace``, ``expire_before`` in the future.
            NotFound, InputError: a live table version's metadata cannot be read (nothing
            is deleted then). StorageError: a listing or deletion failed.
            ConcurrentUpdate: a short ``grace`` and writes still in flight after 60 s, or
            a call from inside a write of this client (its progress callback); nothing is
            deleted then.
            TypeError: an argument of the wrong type.

        Example:
            >>> r = client.gc(dry_run=True)                     # doctest: +SKIP
            >>> r.total_files, r.kept_reachable                 # doctest: +SKIP
            (0, 12)
        """
        if not isinstance(grace, dt.timedelta):
            raise TypeError(f"grace must be a datetime.timedelta, not {type(grace).__name__}")
        if grace < dt.timedelta(0):
            raise InvalidArgument(f"grace={grace!r}: a grace period cannot be negative")
        g = _micros(grace, "grace")
        before = 0
        if expire_before is not None:
            if not isinstance(expire_before, dt.datetime):
                raise TypeError(f"expire_before must be a datetime.datetime, not {type(expire_before).__name__}")
            when = expire_before if expire_before.tzinfo else expire_before.replace(tzinfo=dt.timezone.utc)
            before = _micros(when - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc), "expire_before")
            if before <= 0:
                raise InvalidArgument(f"expire_before={expire_before!r}: a time after 1970")
        opts = _ffi.options(_ffi.GcOptions, dry_run=1 if _flag(dry_run, "dry_run") else 0,
                            grace_us=g if g > 0 else -1, expire_before_us=before)
        return GcResult.from_json(document(self._json("weir_lake_gc", ctypes.byref(opts)), "gc"))

    def protect_branch(self, name: BranchLike, *, protected: bool = True,
                       require_check: Sequence[str | os.PathLike[str]] | None = None) -> None:
        """Protects a branch (``protected=False``: unprotects it).

        A protected branch changes only by merges (``merge``, runs publishing), never by a
        direct commit: imports, reverts and REST commits to it are refused with
        ``InvalidArgument``, whichever client makes them (CLI, SDK or ``weir serve``).

        ``require_check`` (a non-empty list of project folders) also gates every merge into
        the branch (docs/versioning.md, "Merge gate"): the merge commits only if each
        project plans at the merged state and every table it changes holds data its
        contract accepts; otherwise ``PlanError`` / ``ContractViolation``, nothing merged.
        The projects replace those required before and are stored as given: a relative
        one is resolved against the lake folder (not the current directory).
        Unprotecting drops them.

        Raises:
            NotFound: no such branch, or a project folder that does not exist.
            InvalidArgument: an empty list or path, or ``require_check`` with
            ``protected=False``. TypeError: ``name`` is not a str or Branch.

        Example:
            >>> client.protect_branch("main")          # doctest: +SKIP
            >>> client.protect_branch("main", require_check=["/src/pipeline"])   # doctest: +SKIP
        """
        n = _enc_branch(name, "name", target=False)
        if require_check is None:
            self._call("weir_branch_protect", n, ctypes.c_int(1 if protected else 0))
            return
        if not protected:
            raise InvalidArgument("require_check= needs protected=True (unprotecting drops the checks)")
        if isinstance(require_check, (str, bytes, os.PathLike)):
            raise TypeError("require_check must be a list of project folders, not one path")
        paths = [_enc(os.fspath(p) if isinstance(p, os.PathLike) else p, "require_check") for p in require_check]
        if not paths:
            raise InvalidArgument("require_check must name at least one project")
        arr = (ctypes.c_char_p * len(paths))(*paths)
        self._call("weir_branch_require_checks", n, ctypes.cast(arr, ctypes.POINTER(ctypes.c_void_p)),
                   ctypes.c_size_t(len(paths)))

    def branch_protection(self, name: BranchLike) -> BranchProtection:
        """Whether branch ``name`` is protected, and the projects gating merges into it.

        Raises:
            NotFound: no such branch. TypeError: ``name`` is not a str or Branch.

        Example:
            >>> client.branch_protection("main").protected          # doctest: +SKIP
            True
        """
        doc = self._json("weir_branch_protection", _enc_branch(name, "name", target=False))
        return BranchProtection.from_json(document(doc, "branch protection"))

    def status(self, *, ref: RefLike | None = None, now: dt.datetime | None = None) -> LakeStatus:
        """Every table at ``ref`` (None: main) with its last change and freshness SLA
        (docs/contracts.md, "Freshness SLA"), judged at ``now`` (None: the clock's now; an
        aware datetime, or a naive one meaning UTC).

        Raises:
            NotFound: no such ref. InvalidArgument: a stored ``sla.freshness`` that is not a
            duration (naming the table). TypeError: ``now`` is not a datetime.

        Example:
            >>> [t.table for t in client.status().breached]          # doctest: +SKIP
            []
        """
        now_us = 0
        if now is not None:
            if not isinstance(now, dt.datetime):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(f"now must be a datetime, not {_got(now)}")
            aware = now if now.tzinfo else now.replace(tzinfo=dt.timezone.utc)
            delta = aware - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
            now_us = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
            if now_us <= 0:
                raise InvalidArgument("now must be after 1970-01-01")
        opts = _ffi.options(_ffi.StatusOptions, ref=_enc_ref(ref, "ref", optional=True), now_us=now_us)
        doc = self._json("weir_lake_status", ctypes.byref(opts))
        return LakeStatus.from_json(document(doc, "lake status"))

    def get_tags(self) -> list[Tag]:
        """All tags, sorted by name.

        Example:
            >>> [t.name for t in client.get_tags()]   # doctest: +SKIP
        """
        doc = self._json("weir_tag_list")
        return [Tag.from_json(t) for t in document(doc, "tag list", "tags")]

    def get_tag(self, name: str) -> Tag:
        """The tag ``name``.

        Raises:
            NotFound: no such tag. TypeError: ``name`` is not a str. InvalidName: a NUL
            character in it.

        Example:
            >>> client.get_tag("v1").target   # doctest: +SKIP
        """
        _text(name, "name", name=True)
        for t in self.get_tags():
            if t.name == name:
                return t
        raise NotFound(f"tag '{name}' does not exist")

    def create_tag(self, name: str, ref: RefLike | None = "main") -> Tag:
        """Creates tag ``name`` at ``ref`` (None: main); tags never move.

        Raises:
            InvalidName, AlreadyExists, NotFound. InvalidArgument: an empty ref.
            TypeError: ``name`` is not a str.

        Example:
            >>> client.create_tag("v1", ref="main").target     # doctest: +SKIP
        """
        buf = ctypes.create_string_buffer(_ffi.HASH_SIZE)
        self._call("weir_tag_create", _enc(name, "name", name=True), _enc_ref(ref, optional=True), buf)
        target = buf.value.decode()
        for t in self.get_tags():
            if t.name == name:
                return t
        return Tag(name=name, target=target)

    def delete_tag(self, name: str | Tag) -> None:
        """Deletes a tag.

        Raises:
            NotFound: no such tag. InvalidName: a bad name. TypeError: not a str or Tag.

        Example:
            >>> client.delete_tag("v1")   # doctest: +SKIP
        """
        self._call("weir_tag_delete", _enc(name.name if isinstance(name, Tag) else name, "name", name=True))

    # ---- merge -----------------------------------------------------------------------------------

    def merge(self, source_ref: RefLike, into_branch: BranchLike | None = None, *, into: BranchLike | None = None,
              message: str | None = None, no_ff: bool = False, allow_partial: bool = False,
              strategy: Literal["source-wins", "target-wins"] | None = None,
              expect_head: RefLike | None = None,
              check: Sequence[str | os.PathLike[str]] | None = None) -> MergeResult:
        """Merges ``source_ref`` into branch ``into_branch`` (None: main): fast-forward
        when possible (unless ``no_ff``), else a three-way merge at table level.

        ``into=`` is the same argument under the GitLake paper's name
        (``client.merge(dev_br, into="main")``); give one of the two. The options after
        it are keyword-only.

        ``strategy`` resolves tables changed on both sides: ``"source-wins"`` takes the
        source's version, ``"target-wins"`` keeps the target's (such tables are listed
        with change ``"conflict: source wins"`` / ``"conflict: target wins"``); None (the
        default) fails the merge on any conflict. A table both sides only appended to since
        the merge base is no conflict: it holds both sides' rows (change ``"merged: appends"``).

        ``expect_head`` is the head of ``into_branch`` the merge was reviewed against (a
        commit hash or ref). If the branch has moved past it, the merge is refused when a
        table it would change there changed since (nothing is written).

        ``check`` names project folders whose plan must pass at the merged state, on top of
        those the target requires (``protect_branch(..., require_check=...)``): the merge
        gate plans them and validates every table the merge changes against its stored
        contract inside the merge's transaction, and commits only if all pass.

        Raises:
            PlanError: a project of the gate does not plan at the merged state (the message
                and ``.problems`` name the model); nothing was written.
            ContractViolation: a table the merge changes holds data its contract refuses.
            MergeConflict: tables changed on both sides (``.conflicts`` lists them), and
                no ``strategy``; nothing was written.
            InvalidArgument: an unknown strategy.
            PartialRunError: the source history holds commits of a run that did not
                succeed (pass ``allow_partial=True`` to publish them anyway).
            ConcurrentUpdate: the target kept moving, or changed since ``expect_head``
                (``.changed`` names the tables). NotFound: a missing ref or branch.
            InvalidArgument: an empty ref or branch. TypeError: an argument of the wrong type,
                or both ``into`` and ``into_branch``.

        Example:
            >>> client.merge("dev", into_branch="main").result    # doctest: +SKIP
            'fast-forward'
            >>> client.merge(dev_br, into="main").result          # doctest: +SKIP
            'fast-forward'
        """
        if into is not None and into_branch is not None:
            raise TypeError("merge() takes into= or into_branch= (the same argument), not both")
        target, what = (into, "into") if into is not None else (into_branch, "into_branch")
        opts = _ffi.options(_ffi.MergeOptions, message=_enc(message, "message", optional=True),
                            no_ff=1 if _flag(no_ff, "no_ff") else 0,
                            allow_partial=1 if _flag(allow_partial, "allow_partial") else 0,
                            strategy=_enc(strategy, "strategy", optional=True),
                            expect_head=_enc_ref(expect_head, "expect_head", optional=True))
        keep: Any = None
        if check is not None:
            if isinstance(check, (str, bytes, os.PathLike)):
                raise TypeError("check must be a list of project folders, not one path")
            paths = [_path(p, "check").encode() for p in check]
            if paths:
                keep = (ctypes.c_char_p * len(paths))(*paths)
                opts.checks = ctypes.cast(keep, ctypes.POINTER(ctypes.c_void_p))
                opts.n_checks = len(paths)
        doc = self._json("weir_branch_merge", _enc_ref(source_ref, "source_ref"),
                         _enc_branch(target, what, optional=True), ctypes.byref(opts))
        return MergeResult.from_json(document(doc, "merge result"))

    # ---- tables ----------------------------------------------------------------------------------

    def get_tables(self, ref: RefLike | None = "main") -> list[TableSummary]:
        """Tables at ``ref`` (None: main), sorted by name, with row counts.

        Raises:
            NotFound: no such ref. InvalidArgument: an empty ref.

        Example:
            >>> [(t.table, t.record_count) for t in client.get_tables()]   # doctest: +SKIP
            [('default.titanic', 891)]
        """
        doc = self._json("weir_table_list", _enc_ref(ref, optional=True))
        return [TableSummary.from_json(t) for t in document(doc, "table list", "tables")]

    def get_table(self, name: str, ref: RefLike | None = "main") -> TableInfo:
        """One table at ``ref`` (None: main): columns (type, required, doc, lineage, field id), the
        table comment, the contract stored with it, snapshot and metadata file.

        Raises:
            NotFound: the table does not exist at ``ref``. InvalidName: a bad name.
            TypeError: ``name`` is not a str.

        Example:
            >>> info = client.get_table("f")                 # doctest: +SKIP
            >>> info.comment, info.column("tclass").doc        # doctest: +SKIP
        """
        return TableInfo.from_json(document(self._json("weir_table_describe", _enc(name, "name", name=True),
                                                       _enc_ref(ref, optional=True)), "table"))

    def revert_table(self, table: str, source_ref: RefLike, into_branch: BranchLike | None = "main", *,
                     allow_partial: bool = False, message: str | None = None,
                     expect_head: RefLike | None = None, allow_contract_change: bool = False) -> RevertResult:
        """Commits on ``into_branch`` (None: main) the version ``table`` had at
        ``source_ref`` (or drops it if it did not exist there). History is never rewritten.

        ``expect_head``: the branch head the revert was decided at; if the branch moved
        past it and ``table`` changed since, the revert is refused (nothing written).
        A revert that would change the table's stored contract is refused unless
        ``allow_contract_change=True`` (contracts change only through a write that names
        one).

        Raises:
            PartialRunError: the table's current version was published by a run together
                with other tables (pass ``allow_partial=True``, or use ``revert_run``), or
                the version it restores belongs to a run whose other tables moved on.
            ContractViolation: the revert would change the stored contract.
            ConcurrentUpdate: ``table`` changed since ``expect_head`` (``.changed``).
            NotFound, InvalidName. InvalidArgument: an empty ref or branch.
            TypeError: an argument of the wrong type.

        Example:
            >>> client.revert_table("f", source_ref=old.hash, into_branch="main")   # doctest: +SKIP
        """
        opts = _ffi.options(_ffi.RevertOptions, message=_enc(message, "message", optional=True),
                            allow_partial=1 if _flag(allow_partial, "allow_partial") else 0,
                            expect_head=_enc_ref(expect_head, "expect_head", optional=True),
                            allow_contract_change=1 if _flag(allow_contract_change, "allow_contract_change") else 0)
        doc = self._json("weir_table_revert", _enc(table, "table", name=True), _enc_ref(source_ref, "source_ref"),
                         _enc_branch(into_branch, "into_branch", optional=True), ctypes.byref(opts))
        return RevertResult.from_json(document(doc, "revert result"))

    def revert_run(self, run_id: str | RunState, into_branch: BranchLike | None = None, *,
                   message: str | None = None, expect_head: RefLike | None = None,
                   allow_partial: bool = False, allow_contract_change: bool = False) -> RevertResult:
        """Puts every table run ``run_id`` wrote back as it was before the run, in one
        commit on ``into_branch`` (default: the run's target branch).

        Only what the run put on the branch is taken back: a table another write changed
        since (or that the run never published) refuses the revert, unless
        ``allow_partial=True``, which reverts the rest and leaves it.
        ``expect_head``: the branch head the revert was decided at; if the branch moved
        past it and one of the run's tables changed since, the revert is refused.
        Changing a table's stored contract back needs ``allow_contract_change=True``.

        Raises:
            NotFound: no such run. InvalidArgument: an empty run id or branch.
            ConcurrentUpdate: a table of the run changed since the run wrote it, or since
                ``expect_head`` (``.changed`` names it).
            ContractViolation: the revert would change a stored contract.
            TypeError: an argument of the wrong type.

        Example:
            >>> client.revert_run(state.run_id)      # doctest: +SKIP
        """
        rid = _text(run_id.run_id if isinstance(run_id, RunState) else run_id, "run_id")
        if not rid:
            raise InvalidArgument("revert_run needs a run id")
        opts = _ffi.options(_ffi.RevertOptions, message=_enc(message, "message", optional=True),
                            allow_partial=1 if _flag(allow_partial, "allow_partial") else 0,
                            expect_head=_enc_ref(expect_head, "expect_head", optional=True),
                            allow_contract_change=1 if _flag(allow_contract_change, "allow_contract_change") else 0)
        doc = self._json("weir_run_revert", _ffi.enc(rid), _enc_branch(into_branch, "into_branch", optional=True),
                         ctypes.byref(opts))
        return RevertResult.from_json(document(doc, "revert result"))

    def compact(self, table: str, *, branch: BranchLike | None = None, target_file_size: int = 128 * 1024 * 1024,
                min_files: int | None = None, dry_run: bool = False, message: str | None = None) -> CompactResult:
        """Rewrites the small data files of ``table`` on ``branch`` (None: main) into files
        of about ``target_file_size`` bytes, as one commit that changes no row (an Iceberg
        ``replace`` snapshot; older commits keep their files). A file smaller than 3/4 of
        the target is small; with fewer than ``min_files`` small ones (None: 2) nothing is
        written and ``compacted`` is False. ``dry_run=True`` only reports what would be
        rewritten. Appends committed meanwhile are kept (the compaction lands on top of
        them). Progress events: ``{"phase": "compact"}`` before writing,
        ``{"phase": "commit"}`` before committing.

        Raises:
            ConcurrentUpdate: another write replaced or deleted a file this compaction
                rewrote, or changed the table's schema or contract (nothing committed).
            NotFound: no such table or branch. InvalidArgument: a size or count below 1,
                a protected branch. TypeError: an argument of the wrong type.

        Example:
            >>> client.compact("events", target_file_size=64 * 1024 * 1024).files_after   # doctest: +SKIP
            1
        """
        if isinstance(target_file_size, bool) or not isinstance(target_file_size, int):
            raise TypeError("target_file_size must be an int (bytes)")
        if target_file_size < 1:
            raise InvalidArgument(f"target_file_size must be at least 1 byte, not {target_file_size}")
        if min_files is not None and (isinstance(min_files, bool) or not isinstance(min_files, int)):
            raise TypeError("min_files must be an int or None")
        if min_files is not None and min_files < 1:
            raise InvalidArgument(f"min_files must be at least 1, not {min_files}")
        opts = _ffi.options(_ffi.CompactOptions, branch=_enc_branch(branch, "branch", optional=True),
                            target_file_size=target_file_size, min_files=min_files or 0,
                            dry_run=1 if _flag(dry_run, "dry_run") else 0,
                            message=_enc(message, "message", optional=True))
        doc = self._json("weir_table_compact", _enc(table, "table", name=True), ctypes.byref(opts))
        return CompactResult.from_json(document(doc, "compact result"))

    # ---- table management: drop, rename, namespaces ----------------------------------------------

    def drop_table(self, table: str, *, branch: BranchLike | None = None) -> TableDropped:
        """Drops ``table`` from ``branch`` (None: main) as one commit (as ``weir table
        drop``). Older commits keep it (time travel); its files stay until ``gc``.

        Raises:
            NotFound: no such table or branch. InvalidArgument: a protected branch.
            InvalidName: a bad table name. ConcurrentUpdate: the branch moved meanwhile.
            TypeError: an argument of the wrong type.

        Example:
            >>> client.drop_table("scratch").commit                  # doctest: +SKIP
        """
        doc = self._json("weir_table_drop", _enc(table, "table", name=True),
                         _enc_branch(branch, "branch", optional=True))
        return TableDropped.from_json(document(doc, "table drop"))

    def rename_table(self, table: str, new_name: str, *, branch: BranchLike | None = None) -> TableRenamed:
        """Renames ``table`` to ``new_name`` on ``branch`` (None: main) as one commit (as
        ``weir table rename``). The table keeps its identity: the same Iceberg table, its
        contract, lineage and history (``get_commits(table=new_name)`` goes on past the
        rename).

        Raises:
            NotFound: no such table or branch. AlreadyExists: ``new_name`` is taken
                (case-insensitively). InvalidName: a bad name. InvalidArgument: a
                protected branch. TypeError: an argument of the wrong type.

        Example:
            >>> client.rename_table("titanic", "raw.passengers").new_name   # doctest: +SKIP
            'raw.passengers'
        """
        doc = self._json("weir_table_rename", _enc(table, "table", name=True), _enc(new_name, "new_name", name=True),
                         _enc_branch(branch, "branch", optional=True))
        return TableRenamed.from_json(document(doc, "table rename"))

    def create_namespace(self, namespace: str, *, branch: BranchLike | None = None,
                         expect_head: RefLike | None = None) -> None:
        """Creates ``namespace`` on ``branch`` (None: main) as one commit (as ``weir
        namespace create``). Namespaces are versioned: it exists at the commits that have
        it and reaches other branches by merging. A table's namespace exists while the
        table does, created or not. ``expect_head`` (as for every write): the commit the
        change was decided at; refused if the namespace changed on the branch since.

        Raises:
            AlreadyExists: it was created on the branch. InvalidName: not an identifier.
            InvalidArgument: a protected branch. NotFound: no such branch.
            ConcurrentUpdate: it changed since ``expect_head``.
            TypeError: an argument of the wrong type.

        Example:
            >>> client.create_namespace("raw", branch="dev")          # doctest: +SKIP
        """
        opts = _ffi.options(_ffi.NamespaceOptions, branch=_enc_branch(branch, "branch", optional=True),
                            expect_head=_enc_ref(expect_head, "expect_head", optional=True))
        self._call("weir_namespace_create", _enc(namespace, "namespace", name=True), ctypes.byref(opts), None)

    def get_namespaces(self, ref: RefLike | None = "main") -> list[Namespace]:
        """Namespaces at ``ref`` (None: main): ``default``, every one created at that commit
        and every one a table there is in, sorted by name.

        Raises:
            NotFound: no such ref. TypeError: a ref of the wrong type.

        Example:
            >>> [n.name for n in client.get_namespaces()]             # doctest: +SKIP
            ['default', 'raw']
        """
        doc = self._json("weir_namespace_list", _enc_ref(ref, optional=True))
        return [Namespace.from_json(n) for n in document(doc, "namespaces", "namespaces")]

    def drop_namespace(self, namespace: str, *, branch: BranchLike | None = None,
                         expect_head: RefLike | None = None) -> None:
        """Drops created ``namespace`` from ``branch`` (None: main) as one commit (as
        ``weir namespace drop``); older commits keep it. ``expect_head`` as for
        ``create_namespace``.

        Raises:
            InvalidArgument: a table at the branch's head is in it (named), or a protected
                branch. NotFound: it was not created on the branch. TypeError: an argument
                of the wrong type.

        Example:
            >>> client.drop_namespace("raw")                          # doctest: +SKIP
        """
        opts = _ffi.options(_ffi.NamespaceOptions, branch=_enc_branch(branch, "branch", optional=True),
                            expect_head=_enc_ref(expect_head, "expect_head", optional=True))
        self._call("weir_namespace_drop", _enc(namespace, "namespace", name=True), ctypes.byref(opts), None)
    def delete_rows(self, table: str, *, where: str, branch: BranchLike | None = None,
                    expect_head: RefLike | None = None, message: str | None = None) -> DeleteResult:
        """Deletes the rows of ``table`` on ``branch`` (None: main) for which ``where`` (one
        SQL condition over a row, DuckDB's dialect) is TRUE; NULL keeps a row. Copy-on-write:
        the data files holding such rows are rewritten without them (files whose column
        statistics rule the condition out are not even read), the others stay, as one commit
        (one Iceberg ``overwrite`` snapshot). Older commits still read the rows. The
        condition runs sealed (no file access). No matching row is no commit
        (``deleted`` False). Progress events: ``{"phase": "delete"}`` per file read,
        ``{"phase": "commit"}``.

        Raises:
            ContractViolation: the result breaks a table rule of the stored contract (a
                minimum row count, ...): nothing written. ConcurrentUpdate: the table changed
                on the branch since the base (or since ``expect_head``): a delete never
                removes rows it did not read. InvalidInput: ``where`` is not one condition or
                does not run on the table's columns (the message names it). NotFound: no such
                table or branch. InvalidArgument: an empty ``where``, a protected branch.
                TypeError: an argument of the wrong type.

        Example:
            >>> client.delete_rows("events", where="day < DATE '2024-01-01'").rows_deleted   # doctest: +SKIP
            10
        """
        if not isinstance(where, str):
            raise TypeError("where must be a str (a SQL condition)")
        opts = _ffi.options(_ffi.DeleteOptions, where=_enc(where, "where"),
                            branch=_enc_branch(branch, "branch", optional=True),
                            expect_head=_enc_ref(expect_head, "expect_head", optional=True),
                            message=_enc(message, "message", optional=True))
        doc = self._json("weir_table_delete", _enc(table, "table", name=True), ctypes.byref(opts))
        return DeleteResult.from_json(document(doc, "delete result"))
    def alter_table(self, table: str, *, rename: Mapping[str, str] | None = None, drop: Sequence[str] | None = None,
                    widen: Mapping[str, str | type[WeirType]] | None = None,
                    doc: Mapping[str, str | None] | None = None,
                    add: Mapping[str, str | type[WeirType]] | None = None,
                    move: Mapping[str, str | None] | None = None, branch: BranchLike | None = None,
                    expect_head: RefLike | None = None, message: str | None = None) -> AlterResult:
        """Evolves the schema of ``table`` on ``branch`` (None: main) by Iceberg field id,
        as one commit that rewrites no data (docs/evolution.md). The changes are applied in
        this order, each to the schema the ones before it made: ``rename`` (old name ->
        new name; the field id is kept, so older files and other engines see the same
        column under the new name), ``drop`` (names), ``widen`` (name -> weir type, an
        Iceberg promotion only: Int32 -> Int64, Float32 -> Float64, Decimal(P, S) ->
        Decimal(P', S) with P' > P), ``doc`` (name -> text, None removes it), ``add`` (name
        -> weir type: an optional column with a new field id; reads as null in older
        rows), ``move`` (name -> the column to put it after, None: first). Types are weir
        type names (``"Int64"``, ``"Decimal(18, 2)"``) or markers (``weir.Int64``). Reads at
        older commits keep their schema. The stored contract follows the schema.

        Raises:
            InvalidArgument: a change refused before anything is written (a missing
                column, a name another column has without regard to case, a type change
                that is not a promotion, nothing to change, a protected branch); the
                message names the change and the column. NotFound: no such table or
                branch. ConcurrentUpdate: the table changed since ``expect_head`` (or
                since this call read it). TypeError: an argument of the wrong type.

        Example:
            >>> client.alter_table("events", rename={"col": "value"}, add={"score": "Float64"})  # doctest: +SKIP
        """
        changes: list[tuple[int, str, str | None]] = []

        def pairs(arg: object, what: str) -> list[tuple[object, object]]:
            if arg is None:
                return []
            if not isinstance(arg, Mapping):
                raise TypeError(f"{what} must be a mapping of column names, not {type(arg).__name__}")
            return list(cast(Mapping[object, object], arg).items())

        def type_text(t: object, what: str) -> str:
            if isinstance(t, str):
                return t
            if isinstance(t, type) and issubclass(t, WeirType):
                return weir_type_name(t)
            raise TypeError(f"{what} must be a weir type name or marker (e.g. \"Int64\" or weir.Int64), not {t!r}")

        for old, new in pairs(rename, "rename"):
            changes.append((_ffi.B.WEIR_ALTER_RENAME, cast(str, _text(old, "rename column")),
                            cast(str, _text(new, f"rename[{old!r}]"))))
        if drop is not None:
            if isinstance(drop, str) or not isinstance(drop, Sequence):
                raise TypeError("drop must be a list of column names")
            for name in drop:
                changes.append((_ffi.B.WEIR_ALTER_DROP, cast(str, _text(name, "drop column")), None))
        for name, t in pairs(widen, "widen"):
            changes.append((_ffi.B.WEIR_ALTER_WIDEN, cast(str, _text(name, "widen column")),
                            type_text(t, f"widen[{name!r}]")))
        for name, text in pairs(doc, "doc"):
            changes.append((_ffi.B.WEIR_ALTER_DOC, cast(str, _text(name, "doc column")),
                            "" if text is None else cast(str, _text(text, f"doc[{name!r}]"))))
        for name, t in pairs(add, "add"):
            changes.append((_ffi.B.WEIR_ALTER_ADD, cast(str, _text(name, "add column")),
                            type_text(t, f"add[{name!r}]")))
        for name, after in pairs(move, "move"):
            changes.append((_ffi.B.WEIR_ALTER_MOVE, cast(str, _text(name, "move column")),
                            "" if after is None else cast(str, _text(after, f"move[{name!r}]"))))
        if not changes:
            raise InvalidArgument(f"alter_table({table!r}): nothing to change (give rename, drop, widen, doc, add "
                                  "or move)")
        arr = (_ffi.B.weir_alter_change * len(changes))()
        keep: list[bytes | None] = []
        for i, (kind, column, value) in enumerate(changes):
            c, v = _ffi.enc(column), _ffi.enc(value)
            keep += [c, v]
            arr[i].kind = kind
            arr[i].column = c
            arr[i].value = v
            arr[i].required = 0
        opts = _ffi.options(_ffi.AlterOptions, branch=_enc_branch(branch, "branch", optional=True),
                            expect_head=_enc_ref(expect_head, "expect_head", optional=True),
                            message=_enc(message, "message", optional=True),
                            changes=ctypes.cast(arr, ctypes.POINTER(_ffi.B.weir_alter_change)),
                            n_changes=len(changes))
        doc_json = self._json("weir_table_alter", _enc(table, "table", name=True), ctypes.byref(opts))
        del keep
        return AlterResult.from_json(document(doc_json, "alter result"))

    # ---- reading data ----------------------------------------------------------------------------

    def query_reader(self, sql: str, ref: RefLike | None = "main") -> pa.RecordBatchReader:
        """Runs read-only SQL over every table as it is at ``ref`` (None: main) and
        returns the result as a stream of record batches (the engine's buffers, not
        copied).

        Raises:
            NotFound: a table that does not exist at ``ref``. EngineError: a SQL error.
            InvalidArgument: a statement that writes, an empty ref, a NUL character in
            ``sql``. TypeError: ``sql`` is not a str.

        Example:
            >>> for batch in client.query_reader("SELECT * FROM titanic"):   # doctest: +SKIP
            ...     print(batch.num_rows)
        """
        stream = _ffi.ArrowArrayStream()
        self._call("weir_query_run", _enc(sql, "sql"), _enc_ref(ref, optional=True), ctypes.byref(stream))
        return _ffi.import_stream(stream)

    def query(self, sql: str, ref: RefLike | None = "main") -> pa.Table:
        """Runs read-only SQL over every table as it is at ``ref`` (None: main); a table is
        ``namespace.name`` or bare ``name`` (the default namespace). The result holds the
        engine's Arrow buffers (no copy).

        Raises:
            NotFound, EngineError, InvalidArgument, TypeError (as :meth:`query_reader`).

        Example:
            >>> client.query("SELECT COUNT(*) AS n FROM titanic", ref=head).to_pylist()   # doctest: +SKIP
            [{'n': 891}]
        """
        return self.query_reader(sql, ref).read_all()

    def export_query(self, sql: str, path: str | os.PathLike[str], *,
                     format: Literal["csv", "json", "parquet"] = "parquet",  # noqa: A002
                     ref: RefLike | None = "main") -> int:
        """Runs a query and writes its result to ``path`` as CSV (with a header), JSON or
        Parquet; returns the number of rows written.

        Raises:
            as :meth:`query`, plus StorageError for the output file; TypeError: ``path``
            is not a str or ``os.PathLike``.

        Example:
            >>> client.export_query("SELECT * FROM f", "f.parquet")   # doctest: +SKIP
            170
        """
        rows = ctypes.c_int64(0)
        self._call("weir_query_export", _enc(sql, "sql"), _enc_ref(ref, optional=True), _enc(format, "format"),
                   _ffi.enc(_path(path, "path")), ctypes.byref(rows))
        return rows.value

    # ---- writing data ----------------------------------------------------------------------------

    def import_data(self, table: str, data: object, branch: BranchLike | None = "main", *,
                    mode: ImportMode = "create",
                    contract: str | os.PathLike[str] | type | Mapping[str, Any] | None = None,
                    message: str | None = None, format: Literal["csv", "parquet", "jsonl"] | None = None,  # noqa: A002
                    expect_head: RefLike | None = None, delimiter: str | None = None,
                    quote: str | None = None, date_format: str | None = None,
                    timestamp_format: str | None = None, max_line_size: int | None = None,
                    evolve: bool = False) -> ImportResult:
        """Loads data into ``table`` as one commit on ``branch`` (None: main).

        Values are imported exactly or refused, never changed: CSV integers beyond Int64
        become ``Decimal(38, 0)`` (refused when longer), a date whose day and month read
        either way (``01/02/2024``) is refused unless ``date_format`` says which, a quoted
        ``""`` is an empty string. An append of no rows commits nothing
        (``.committed`` is False, ``.reason`` says why).

        Args:
            table: ``namespace.name`` or ``name``.
            data: a path (str or ``os.PathLike``) to a CSV, Parquet or JSON-lines file, or
                Arrow data: a ``pyarrow.Table``/``RecordBatch``/``RecordBatchReader`` or
                any object with ``__arrow_c_stream__`` (polars, pandas). Arrow data is
                read in place; its column names must be non-empty and distinct.
            mode: ``"create"`` (the table must not exist), ``"append"`` or ``"replace"``.
            contract: check the data first: a YAML/IR-JSON contract file, a TableSchema
                class, or an IR dict. Violations of mode ``fail`` write nothing.
            message: the commit message.
            format: the file format when the extension does not say.
            expect_head: the write's base, a commit of ``branch`` (hash or ref): the data is
                validated against the table as it is there, and the import is refused if
                the table changed on the branch since. Default: the head when the import
                starts. Either way, a replace of a table another writer changed meanwhile
                is refused (it would remove rows it never read); an append lands on the
                newer version when its schema and contract are unchanged.
            delimiter: the CSV field separator, one character (``"\\t"`` for tab).
                Default: tab for ``.tsv``, else comma. A file read as one column whose
                every line holds ``;``, a tab or ``|`` is imported with a warning
                (``.warnings``).
            quote: the CSV quote character (escaped by doubling). Default ``"``.
            date_format: the strptime format of CSV dates, e.g. ``"%d/%m/%Y"``.
            timestamp_format: the strptime format of CSV timestamps.
            max_line_size: the longest CSV line accepted, in bytes (default 2 MiB).
            evolve: let ``contract`` (which may then differ from the table's stored one,
                on an append or a replace) evolve the table's schema by field id, in the
                same commit: columns added (optional), widened (an Iceberg promotion),
                documented, reordered (docs/evolution.md). Anything else is refused with
                ``ContractViolation`` naming the column and why, nothing written.

        Raises:
            ContractViolation: the data breaks the contract (``.violations``), or with
                ``evolve`` the contract is no evolution the rules allow.
            InvalidName: a bad table name (nothing is touched). AlreadyExists: ``create``
            on an existing table. InvalidInput: a malformed file (message names file and
            line). ConcurrentUpdate: the table changed on the branch since the import's
            base (``.changed`` names it and the commit that changed it); nothing written.
            InvalidArgument: a bad ``mode``, an empty branch, Arrow data with an empty or
            duplicate column name (``column "a" appears twice in the data``), a NUL
            character in an argument. TypeError: an argument of the wrong type (``data``
            neither a path nor Arrow data, ``contract`` neither a path, a TableSchema
            class nor a dict).

        Example:
            >>> client.import_data("titanic", "examples/titanic/data/titanic.csv")   # doctest: +SKIP
            >>> client.import_data("scores", pa.table({"x": [1, 2]}), branch="dev")    # doctest: +SKIP
        """
        table_c = _enc(table, "table", name=True)
        branch_c = _enc_branch(branch, optional=True)
        if not isinstance(mode, str):
            raise TypeError(f"mode must be a str ('create', 'append' or 'replace'), not {_got(mode)}")
        if mode not in _MODES:
            raise InvalidArgument(f"mode must be 'create', 'append' or 'replace', not {mode!r}")
        message_c = _enc(message, "message", optional=True)
        format_c = _enc(format, "format", optional=True)
        expect_c = _enc_ref(expect_head, "expect_head", optional=True)
        delimiter_c = _enc(delimiter, "delimiter", optional=True)
        quote_c = _enc(quote, "quote", optional=True)
        date_format_c = _enc(date_format, "date_format", optional=True)
        timestamp_format_c = _enc(timestamp_format, "timestamp_format", optional=True)
        if max_line_size is not None and (not isinstance(max_line_size, int) or isinstance(max_line_size, bool)):
            raise TypeError(f"max_line_size must be an int (bytes), not {_got(max_line_size)}")
        if max_line_size is not None and max_line_size <= 0:
            raise InvalidArgument(f"max_line_size must be positive (bytes), not {max_line_size}")
        contract_file: str | None = None
        ir: dict[str, Any] | None = None
        if contract is not None:
            if isinstance(contract, (str, os.PathLike)):
                contract_file = _path(contract, "contract")
            elif is_schema(contract):
                ir = cast("type[TableSchema]", contract).to_ir()
            elif isinstance(contract, Mapping):
                ir = dict(contract)
            else:
                raise TypeError("contract must be a contract file path, a TableSchema class or an IR dict, "
                                f"not {_got(contract)}")
        data_file: str | None = None
        reader: pa.RecordBatchReader | None = None
        if isinstance(data, (str, os.PathLike)):
            data_file = _path(cast("str | os.PathLike[str]", data), "data")
        else:
            try:
                reader = _ffi.to_reader(data)
            except TypeError as e:
                raise TypeError(f"data must be a file path or Arrow data: {e}") from None
            _check_column_names(reader.schema.names)
        tmpdir: tempfile.TemporaryDirectory[str] | None = None
        try:
            if ir is not None:
                tmpdir = tempfile.TemporaryDirectory(prefix="weir-contract-")
                contract_file = os.path.join(tmpdir.name, "contract.json")
                with open(contract_file, "w", encoding="utf-8") as fh:
                    json.dump(ir, fh)
            opts = _ffi.options(_ffi.ImportOptions, table=table_c, branch=branch_c, mode=_MODES[mode],
                                contract_path=_ffi.enc(contract_file), message=message_c, format=format_c,
                                expect_head=expect_c, delimiter=delimiter_c, quote=quote_c,
                                date_format=date_format_c, timestamp_format=timestamp_format_c,
                                max_line_size=max_line_size or 0, evolve=1 if _flag(evolve, "evolve") else 0)
            if reader is None:
                doc = self._json("weir_table_import", _ffi.enc(data_file), ctypes.byref(opts))
            else:
                stream, keep = _ffi.export_stream(reader)
                try:
                    doc = self._json("weir_table_import_arrow", stream, ctypes.byref(opts))
                finally:
                    _ffi.release_stream(stream)
                    del keep, reader
            return ImportResult.from_json(document(doc, "import result"))
        finally:
            if tmpdir is not None:
                tmpdir.cleanup()

    # ---- external data by reference --------------------------------------------------------

    def register_table(self, table: str, metadata: str | os.PathLike[str], *, branch: BranchLike | None = None,
                       contract: str | os.PathLike[str] | None = None,
                       message: str | None = None) -> RegisterResult:
        """Adopts the Iceberg table another engine wrote (pyiceberg, Spark, ...) as the new
        table ``table`` on ``branch`` (None: main), as one commit, its data files
        referenced where they are. The external table's files are never written: weir
        writes its own metadata listing them (docs/iceberg.md, "External tables").

        Args:
            table: ``namespace.name`` or ``name``; must not exist on the branch.
            metadata: the external table's metadata file (a path or a ``file://`` /
                ``s3://`` URI), or its folder when ``metadata/version-hint.text`` names
                the version (Hadoop catalogs).
            branch: the branch to commit on.
            contract: a YAML/JSON contract file: the data is read and validated against
                it, and it is stored with the table.
            message: the commit message.

        Raises:
            NotFound: no such metadata file or branch. InvalidInput: not an Iceberg
            metadata file, or a required column with nulls. Unsupported: a column of a
            type weir does not store (the message names it), a partitioned table.
            AlreadyExists: the table exists. ContractViolation: the data breaks
            ``contract``. Nothing is committed on error.

        Example:
            >>> client.register_table("events", "/data/events/metadata/v3.metadata.json")  # doctest: +SKIP
        """
        opts = _ffi.options(_ffi.RegisterOptions, branch=_enc_branch(branch, optional=True),
                            contract_path=_ffi.enc(None if contract is None else _path(contract, "contract")),
                            message=_enc(message, "message", optional=True))
        meta = metadata if isinstance(metadata, str) and "://" in metadata else _path(metadata, "metadata")
        doc = self._json("weir_table_register", _enc(table, "table", name=True), _ffi.enc(meta),
                         ctypes.byref(opts))
        return RegisterResult.from_json(document(doc, "register result"))

    def register_files(self, table: str, paths: Sequence[str | os.PathLike[str]], *,
                       branch: BranchLike | None = None, contract: str | os.PathLike[str] | None = None,
                       message: str | None = None) -> RegisterResult:
        """Appends existing Parquet files to ``table`` by reference (no copy), as one
        append commit on ``branch`` (None: main).

        Columns are matched by Iceberg field id (``PARQUET:field_id``): a file without field
        ids is refused (import it by copy with ``import_data``). Types must equal the
        table's (or widen int to long, float to double); a required column must be a
        required Parquet field whose footer counts no nulls. The table's stored contract,
        and ``contract`` when given, are checked by reading the data when they have rules
        statistics cannot decide.

        Raises:
            NotFound: a missing file, table or branch. InvalidInput: an incompatible file
            (the message names the file and the column). AlreadyExists: a file the table
            already references. ContractViolation. Nothing is committed on error.

        Example:
            >>> client.register_files("events", ["/data/part-0.parquet"], branch="dev")  # doctest: +SKIP
        """
        if isinstance(paths, (str, os.PathLike)):
            raise TypeError("paths must be a sequence of file paths, not a single path")
        files = [_path(p, "paths") for p in paths]
        arr = (ctypes.c_char_p * max(len(files), 1))(*[_ffi.enc(f) for f in files])
        opts = _ffi.options(_ffi.RegisterOptions, branch=_enc_branch(branch, optional=True),
                            contract_path=_ffi.enc(None if contract is None else _path(contract, "contract")),
                            message=_enc(message, "message", optional=True))
        doc = self._json("weir_table_register_files", _enc(table, "table", name=True),
                         ctypes.cast(arr, ctypes.POINTER(ctypes.c_void_p)), len(files),
                         ctypes.byref(opts))
        return RegisterResult.from_json(document(doc, "register result"))

    # ---- projects and runs -------------------------------------------------------------------

    def check(self, project_dir: str | os.PathLike[str], ref: RefLike | None = "main") -> Plan:
        """Parses and plans a project against the catalog at ``ref`` (None: main) without
        reading data or writing anything. Problems are returned, not raised: check
        ``plan.ok``.

        Raises:
            NotFound: the project folder or ``ref`` does not exist. InvalidArgument: an
            empty ref. TypeError: ``project_dir`` is not a str or ``os.PathLike``.

        Example:
            >>> plan = client.check("examples/titanic/project")    # doctest: +SKIP
            >>> plan.ok, [m.name for m in plan.models]              # doctest: +SKIP
            (True, ['f', 'g', 'fare_sum', 'h'])
        """
        text, err = self._out("weir_project_check", _ffi.enc(_path(project_dir, "project_dir")),
                              _enc_ref(ref, optional=True))
        if err is None:
            return Plan.from_json(document(json.loads(text or "null"), "plan"))
        if isinstance(err, PlanError):
            if not text:  # the project did not load far enough to plan: its problems are the details
                return Plan(ok=False, problems=tuple(PlanProblem.from_json(p) for p in err.details))
            doc = cast("dict[str, Any]", document(json.loads(text), "plan"))
            plan = Plan.from_json(doc, problems=err.details if not doc["problems"] else ())
            return dataclasses.replace(plan, ok=False)
        raise err

    def contract_diff(self, old: object, new: object, *, table: str | None = None,
                      project: str | os.PathLike[str] | None = None, ref: RefLike | None = None) -> ContractDiff:
        """What changing contract ``old`` to ``new`` breaks, and, with ``project``, which of
        its models read the affected columns (directly or downstream), as ``weir contract
        diff`` reports (docs/contracts.md, "Breaking changes").

        ``old`` and ``new`` are each a TableSchema class, a contract IR dict, a contract file
        (YAML or IR JSON), or ``"TABLE@REF"`` (``"TABLE"``: at main) for a table's stored
        contract. ``table`` names the table the readers are looked up for (default: the
        ``TABLE`` of ``new`` or ``old``); ``ref`` where the project is planned (default:
        that side's ref, else main). A breaking change is reported, not raised: check
        ``.breaking`` and ``.version_ok``.

        Raises:
            NotFound: a table, ref or project that does not exist, or a table without a
            stored contract. InvalidInput: a malformed contract.

        Example:
            >>> d = client.contract_diff("titanic@main", "contracts/titanic_v2.yml",
            ...                          project="examples/titanic/project")   # doctest: +SKIP
            >>> [(r.model, r.columns) for r in d.readers]                        # doctest: +SKIP
            [('g', ('Cabin',)), ('h', ('Cabin', 'cabin_level'))]
        """
        handles: list[ctypes.c_void_p] = []
        sides: list[tuple[str, str] | None] = []
        try:
            for c in (old, new):
                h = ctypes.c_void_p()
                spec = None
                if isinstance(c, os.PathLike) or (isinstance(c, str) and os.path.exists(c)):
                    path = os.fspath(cast("str | os.PathLike[str]", c))
                    self._lib.call("weir_contract_load", _ffi.enc(path), ctypes.byref(h))
                elif isinstance(c, str):
                    name, _, at = c.partition("@")
                    spec = (name, at or "main")
                    doc = self.get_table(name, ref=spec[1]).raw
                    ir = doc.get("contract")
                    if not isinstance(ir, Mapping):
                        raise NotFound(f"{c}: table {name} has no stored contract at {spec[1]} "
                                       "(and no file has that name)")
                    text = json.dumps(ir).encode()
                    self._lib.call("weir_contract_parse", text, len(text), b"json", _ffi.enc(c), ctypes.byref(h))
                elif is_schema(c):
                    text = json.dumps(cast("type[TableSchema]", c).to_ir()).encode()
                    self._lib.call("weir_contract_parse", text, len(text), b"json", _ffi.enc(cast("type", c).__name__),
                                   ctypes.byref(h))
                elif isinstance(c, Mapping):
                    text = json.dumps(dict(cast("Mapping[str, Any]", c))).encode()
                    self._lib.call("weir_contract_parse", text, len(text), b"json", b"<contract>", ctypes.byref(h))
                else:
                    raise InvalidArgument(f"a contract is a TableSchema class, an IR dict, a contract file or "
                                          f"'TABLE@REF', not {c!r}")
                handles.append(h)
                sides.append(spec)
            diff_text = self._lib.call_json("weir_contract_diff", handles[0], handles[1])
        finally:
            for h in handles:
                self._lib.fn("weir_contract_free")(h)
        doc = dict(cast("dict[str, Any]", document(diff_text, "contract diff")))
        target = table or (sides[1][0] if sides[1] else sides[0][0] if sides[0] else None)
        if target:
            doc["table"] = target
        if project is not None and target and doc.get("breaking"):
            at = ref if ref is not None else (sides[1][1] if sides[1] else sides[0][1] if sides[0] else "main")
            text, err = self._out("weir_project_readers", _ffi.enc(_path(project, "project")),
                                  _enc_ref(at, optional=True), _ffi.enc(target), json.dumps(doc).encode())
            if err is not None:
                raise err
            doc["readers"] = document(json.loads(text or "null"), "contract readers", "readers")
        return ContractDiff.from_json(doc)

    def run(self, project_dir: str | os.PathLike[str], ref: BranchLike | None = "main", *,
            dry_run: bool = False, expect_head: RefLike | None = None, retries: int = 0,
            sandbox: bool = True, timeout: float | str | None = None) -> RunState:
        """Checks, then runs a project transactionally on branch ``ref`` (None: main): the models run
        on a temporary branch ``run/<id>`` that is merged into ``ref`` only if every
        model passed.

        A run that fails while running (a contract violation, a model error, a worker
        crash, a conflict in the final merge) is *returned*, with ``success()`` False,
        the failing model and its violations: ``ref`` is untouched and the run branch is
        kept for debugging. A project that does not plan raises :class:`PlanError`
        (nothing was written, no branch created).

        A run reads its inputs as they are at its base (the branch head when it starts,
        or ``expect_head``) and publishes only if none of them changed on the branch
        meanwhile; otherwise it fails with a ``StaleRead`` error (naming each changed
        input and the commit that changed it) and nothing is published.

        Args:
            dry_run: plan and report only; the returned state has status ``planned``
                and ``plan`` set.
            expect_head: the commit of ``ref`` to plan and run on (hash or ref).
            retries: when the branch moved under the run so that it cannot publish,
                plan and run again on the new head up to this many times (the earlier
                attempts stay recorded as failed runs; ``retried_runs`` lists them).
            sandbox: run the project's Python (discovery and models) in the model sandbox
                (docs/sandbox.md). ``False`` runs it unconfined and is recorded in the
                run (each Python model's ``sandbox`` record); on a kernel that offers no
                sandbox it is the only way to run Python models.
            timeout: the run's wall-clock limit, seconds or a duration such as ``"10m"``
                (planning and building Python environments excluded). Past it the
                running model is stopped and the run is returned failed, error code
                ``ModelError`` (as a model past its own limit), nothing published. None:
                no limit for the run (each Python model keeps its
                ``@weir.python(timeout=...)``).

        Interrupting: :meth:`interrupt` from another thread, or Ctrl-C (SIGINT) when
        ``run`` is called in the main thread with Python's default SIGINT handler in
        place: the run is stopped and recorded as interrupted, then
        ``KeyboardInterrupt`` is raised. (The run then executes on a helper thread
        while the main thread waits for it, so that the signal can be acted on during
        long statements; progress callbacks are called on that thread.)

        Raises:
            PlanError: the project does not plan (``.problems`` lists every problem).
            NotFound: the project folder or branch does not exist. InvalidArgument: an
            empty branch. TypeError: an argument of the wrong type. Unsupported: the
            kernel offers no sandbox and ``sandbox`` is True (the message says why).

        Example:
            >>> state = client.run("examples/titanic/project", ref=dev)   # doctest: +SKIP
            >>> state.success(), state.model("h").rows                    # doctest: +SKIP
        """
        project = _path(project_dir, "project_dir")
        target = _branch(ref, "ref", optional=True)
        if isinstance(retries, bool) or not isinstance(retries, int):
            raise TypeError(f"retries must be an int, not {_got(retries)}")
        if retries < 0:
            raise InvalidArgument(f"retries must be 0 or more, not {retries}")
        _flag(sandbox, "sandbox")
        _flag(dry_run, "dry_run")
        seconds = 0.0
        if timeout is not None:
            try:
                seconds = parse_duration(timeout, "timeout")
            except ValueError as e:
                if isinstance(timeout, bool) or not isinstance(timeout, (int, float, str)):
                    raise TypeError(f"timeout must be seconds (an int or float), a duration str such as '10m', "
                                    f"or None, not {_got(timeout)}") from None
                raise InvalidArgument(str(e)) from None
        opts = _ffi.options(_ffi.RunOptions, branch=_ffi.enc(target), dry_run=1 if dry_run else 0,
                            expect_head=_enc_ref(expect_head, "expect_head", optional=True), retries=retries,
                            unsandboxed=0 if sandbox else 1, timeout=seconds)
        text, err = self._run_interruptible(project, opts)
        doc = cast("dict[str, Any]", document(json.loads(text), "run record")) if text else None
        if err is None:
            if doc is None:
                raise WeirError("weir_project_run returned no run record")
            return RunState.from_plan(doc, target or "main") if dry_run else RunState.from_json(doc)
        if isinstance(err, PlanError) or doc is None:
            raise err
        state = RunState.from_plan(doc, target or "main") if dry_run else RunState.from_json(doc)
        run_error = RunError(code=err.name, message=err.message, details=tuple(err.details), code_num=err.code)
        if state.status in ("", "running", "succeeded", "planned"):
            state = dataclasses.replace(state, status="failed", error=state.error or run_error)
        elif state.error is None or not state.error.message:
            state = dataclasses.replace(state, error=run_error)
        return state

    def _run_interruptible(self, project: str, opts: _ffi.RunOptions) -> tuple[str | None, WeirError | None]:
        """weir_project_run, with SIGINT turned into :meth:`interrupt` when this is the
        main thread and SIGINT has Python's default handler.

        Python runs a signal handler only in the main thread, between bytecodes: never
        while that thread is inside a C call. So the run goes to a helper thread and the
        main thread waits in ``join`` (which signal handlers do interrupt); the handler
        asks libweir to stop, the run records itself as interrupted and returns, and
        then ``KeyboardInterrupt`` is raised here. Later SIGINTs while the run stops are
        absorbed: the run is already stopping, and the record is what matters.
        """
        def plain() -> tuple[str | None, WeirError | None]:
            return self._out("weir_project_run", _ffi.enc(project), ctypes.byref(opts))

        if (threading.current_thread() is not threading.main_thread()
                or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
            return plain()
        box: list[Any] = []

        def work() -> None:
            # SIGINT is for the main thread: blocked here (and in the threads the run
            # starts, which inherit the mask), the kernel hands it to a thread that acts.
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                box.append(("ok", plain()))
            except BaseException as e:  # noqa: BLE001 - handed to the main thread
                box.append(("raise", e))

        signalled: list[int] = []

        def on_sigint(signum: int, frame: object) -> None:
            signalled.append(signum)
            self.interrupt()

        previous = signal.signal(signal.SIGINT, on_sigint)
        try:
            helper = threading.Thread(target=work, name="weir-run", daemon=True)
            helper.start()
            helper.join()
        finally:
            signal.signal(signal.SIGINT, previous)
        kind, value = box[0]
        if kind == "raise":
            raise value
        if signalled:
            text = cast("tuple[str | None, WeirError | None]", value)[0]
            state: RunState | None = None
            try:
                doc = cast("dict[str, Any] | None", json.loads(text) if text else None)
                state = RunState.from_json(doc) if isinstance(doc, dict) and doc.get("run_id") else None
            except Exception:  # noqa: BLE001 - the KeyboardInterrupt matters more
                state = None
            what = f"run {state.run_id} interrupted ({state.status})" if state is not None else "run interrupted"
            raise KeyboardInterrupt(what)
        return cast("tuple[str | None, WeirError | None]", value)

    def get_runs(self) -> list[RunState]:
        """Runs, newest first.

        Example:
            >>> [(r.run_id, r.status) for r in client.get_runs()]    # doctest: +SKIP
        """
        doc = self._json("weir_run_list")
        return [RunState.from_json(r) for r in document(doc, "run list", "runs")]

    def get_run(self, run_id: str) -> RunState:
        """One run with per-model timings, row counts, rule results and violations.

        Raises:
            NotFound: no such run. InvalidArgument: an empty run id. TypeError: not a str.

        Example:
            >>> client.get_run(state.run_id).status   # doctest: +SKIP
            'succeeded'
        """
        return RunState.from_json(document(self._json("weir_run_show", _enc(run_id, "run_id")), "run"))
