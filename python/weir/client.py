"""``weir.Client``: the whole Git-for-data API of a lake, typed.

Naming: an operation that only makes sense at a branch head takes ``branch=`` or
``into_branch=`` (imports, merges, reverts, runs write there); a read of any commit takes
``ref=`` (a branch, a tag, a commit hash or a unique prefix of at least 7 hex digits,
optionally ``~N``). A :class:`Branch`, :class:`Tag` or :class:`Commit` object is accepted
wherever a ref is; a :class:`Branch` wherever a branch is.

Example (the flow of the GitLake paper's Listing 2)::

    import weir

    client = weir.Client(lake="/data/lake")
    head = client.get_commits(ref="main", limit=1)[0]          # main's head, for later
    dev = client.create_branch("dev", from_ref="main")          # costs one catalog row
    state = client.run("examples/titanic/project", ref=dev)     # transactional run
    if state.success():
        client.merge(dev, into_branch="main")
        client.delete_branch(dev)
    old = client.query("SELECT COUNT(*) AS n FROM f", ref=head) # the lake as it was
    client.revert_table("f", source_ref=head, into_branch="main")

The client holds one libweir lake handle; calls are serialised by a lock, so a Client
may be shared by threads (open one Client per thread for parallel work).
"""
from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from typing import Any, Literal, cast

import pyarrow as pa

from weir import _ffi
from weir.errors import InvalidArgument, NotFound, PlanError, WeirError
from weir.records import (
    Branch,
    Commit,
    Diff,
    ImportResult,
    MergeResult,
    Plan,
    RevertResult,
    RunError,
    RunState,
    TableInfo,
    TableSummary,
    Tag,
)
from weir.schema import TableSchema, is_schema

__all__ = ["Client", "RefLike", "BranchLike", "ImportMode"]

#: Anything that names a commit: a ref string, or a Branch, Tag or Commit.
RefLike = str | Branch | Tag | Commit
#: Anything that names a branch: its name or a Branch.
BranchLike = str | Branch
ImportMode = Literal["create", "append", "replace"]
_MODES: dict[str, int] = {"create": 0, "append": 1, "replace": 2}


def _ref(ref: RefLike | None, what: str = "ref") -> str | None:
    if ref is None:
        return None
    if isinstance(ref, Commit):
        return ref.hash
    if isinstance(ref, (Branch, Tag)):
        return ref.name
    if isinstance(ref, str):
        return ref
    raise InvalidArgument(f"{what} must be a branch, tag or commit hash (a str, Branch, Tag or Commit), "
                          f"not {type(ref).__name__}")


def _branch(branch: BranchLike | None, what: str = "branch") -> str | None:
    if branch is None:
        return None
    if isinstance(branch, Branch):
        return branch.name
    if isinstance(branch, str):
        return branch
    raise InvalidArgument(f"{what} must name a branch (a str or Branch), not {type(branch).__name__}: "
                          "this operation writes at a branch head")


def _enc(s: str | None) -> bytes | None:
    return _ffi.enc(s)


def _sdk_on_pythonpath() -> None:
    """Makes this SDK importable by the Python processes libweir starts with this
    interpreter, also when it was imported from a source tree rather than installed."""
    sdk = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.basename(sdk) in ("site-packages", "dist-packages"):
        return
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if sdk not in parts:
        os.environ["PYTHONPATH"] = os.pathsep.join([sdk, *parts])


def _path(p: str | os.PathLike[str]) -> str:
    return os.path.abspath(os.fspath(p))


class Client:
    """A connection to one lake.

    Args:
        lake: the lake folder. Default: ``$WEIR_LAKE``, else the nearest ``.weir`` found
            walking up from the current directory (as the CLI does).
        library: an explicit path to libweir (default: see docs/python.md, "Loading
            libweir").
        author: the author recorded in commits (default ``$WEIR_AUTHOR``, else
            ``$USER@hostname``).
        progress: called with each progress event of long operations (imports, runs), a
            dict such as ``{"phase": "model", "model": "f", "rows": 1200}``.

    Raises:
        NotFound: no lake there (the message says where weir looked).
        LibraryNotFound: libweir cannot be loaded.
        CatalogError: the catalog is unreadable.

    Example:
        >>> import weir
        >>> with weir.Client(lake="/tmp/lake") as client:        # doctest: +SKIP
        ...     print([b.name for b in client.get_branches()])
        ['main']
    """

    def __init__(self, lake: str | os.PathLike[str] | None = None, *, library: str | os.PathLike[str] | None = None,
                 author: str | None = None, progress: Callable[[dict[str, Any]], None] | None = None,
                 _create: bool = False) -> None:
        self._lib = _ffi.load_library(library)
        # libweir runs discovery and model workers with $WEIR_PYTHON: by default the
        # interpreter running this client, which has this SDK installed.
        if "WEIR_PYTHON" not in os.environ:
            os.environ["WEIR_PYTHON"] = sys.executable
            _sdk_on_pythonpath()
        self._lock = threading.RLock()
        self._handle = ctypes.c_void_p()
        self._progress_cb: Any = None
        path = _enc(_path(lake)) if lake is not None else None
        self._lib.call("weir_lake_init" if _create else "weir_lake_open", path, ctypes.byref(self._handle))
        if author is not None:
            self._lib.call("weir_lake_set_author", self._handle, _enc(author))
        if progress is not None:
            self.set_progress(progress)

    @classmethod
    def init(cls, path: str | os.PathLike[str], *, library: str | os.PathLike[str] | None = None,
             author: str | None = None) -> Client:
        """Creates a lake at ``path`` (catalog, warehouse, an empty first commit on
        ``main``) and returns a client on it.

        Raises:
            AlreadyExists: a lake is already there.
            StorageError, CatalogError: it could not be created.

        Example:
            >>> client = weir.Client.init("/tmp/new-lake")        # doctest: +SKIP
        """
        return cls(path, library=library, author=author, _create=True)

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
        except Exception:  # noqa: BLE001 - never raise from a finalizer
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

        Example:
            >>> client.set_progress(lambda e: print(e.get("phase"), e.get("rows")))  # doctest: +SKIP
        """

        def trampoline(event: bytes | None, ctx: int | None) -> None:
            if fn is None or not event:
                return
            try:
                fn(json.loads(event))
            except Exception:  # noqa: BLE001 - a C callback cannot raise
                pass

        with self._lock:
            cb = _ffi.PROGRESS_FN(trampoline) if fn is not None else _ffi.PROGRESS_FN()  # NULL removes it
            self._lib.fn("weir_lake_set_progress")(self._h(), cb, None)
            self._progress_cb = cb  # keep the C thunk alive

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
            NotFound: no such ref; InvalidArgument: a malformed or ambiguous ref.

        Example:
            >>> client.resolve("main~1")          # doctest: +SKIP
            '3f2a...'
        """
        buf = ctypes.create_string_buffer(_ffi.HASH_SIZE)
        self._call("weir_ref_resolve", _enc(_ref(ref)), buf)
        return buf.value.decode()

    def get_commits(self, ref: RefLike = "main", limit: int | None = None) -> list[Commit]:
        """Commits reachable from ``ref``, newest first, each with the tables it changed.

        Args:
            ref: where to start.
            limit: at most this many (None: all).

        Raises:
            NotFound: no such ref. InvalidArgument: a negative limit.

        Example:
            >>> head = client.get_commits(ref="main", limit=1)[0]   # doctest: +SKIP
            >>> head.hash, head.message                              # doctest: +SKIP
        """
        if limit is not None and limit < 0:
            raise InvalidArgument(f"limit must be 0 or more, not {limit}")
        doc = self._json("weir_log", _enc(_ref(ref)), ctypes.c_int64(limit or 0))
        return [Commit.from_json(c) for c in cast("list[dict[str, Any]]", doc or [])]

    def get_commit(self, ref: RefLike) -> Commit:
        """One commit, with every table it holds (metadata file and snapshot).

        Raises:
            NotFound: no such ref.

        Example:
            >>> [t.table for t in client.get_commit("main").tables]   # doctest: +SKIP
            ['default.titanic']
        """
        return Commit.from_json(cast("dict[str, Any]", self._json("weir_show", _enc(_ref(ref)))))

    def diff(self, ref_a: RefLike, ref_b: RefLike) -> Diff:
        """Tables added, removed and changed from ``ref_a`` to ``ref_b``, with row counts.

        Raises:
            NotFound: either ref does not exist.

        Example:
            >>> d = client.diff("main", "dev")                         # doctest: +SKIP
            >>> [(t.table, t.record_change) for t in d.changed]         # doctest: +SKIP
        """
        return Diff.from_json(cast("dict[str, Any]", self._json("weir_diff", _enc(_ref(ref_a, "ref_a")),
                                                                 _enc(_ref(ref_b, "ref_b")))))

    # ---- branches and tags -------------------------------------------------------------------

    def get_branches(self) -> list[Branch]:
        """All branches, sorted by name, with their heads.

        Example:
            >>> [b.name for b in client.get_branches()]     # doctest: +SKIP
            ['dev', 'main']
        """
        doc = self._json("weir_branch_list")
        return [Branch.from_json(b) for b in cast("list[dict[str, Any]]", doc or [])]

    def get_branch(self, name: BranchLike) -> Branch:
        """The branch ``name`` with its current head.

        Raises:
            NotFound: no such branch.

        Example:
            >>> client.get_branch("main").head       # doctest: +SKIP
        """
        n = _branch(name)
        for b in self.get_branches():
            if b.name == n:
                return b
        raise NotFound(f"branch '{n}' does not exist")

    def create_branch(self, name: str, from_ref: RefLike = "main") -> Branch:
        """Creates branch ``name`` at ``from_ref``. Copies no data: one catalog row.

        Raises:
            InvalidName: the name breaks git's ref-name rules. AlreadyExists: the branch
            exists. NotFound: ``from_ref`` does not exist.

        Example:
            >>> dev = client.create_branch("dev", from_ref="main")   # doctest: +SKIP
        """
        if isinstance(name, Branch):  # pyright: ignore[reportUnnecessaryIsInstance]
            name = name.name
        buf = ctypes.create_string_buffer(_ffi.HASH_SIZE)
        self._call("weir_branch_create", _enc(name), _enc(_ref(from_ref, "from_ref")), buf)
        head = buf.value.decode()
        for b in self.get_branches():
            if b.name == name:
                return b
        return Branch(name=name, head=head)

    def delete_branch(self, name: BranchLike, force: bool = False) -> None:
        """Deletes a branch (its commits stay readable by hash).

        Args:
            force: delete even when its head is reachable from no other branch or tag.

        Raises:
            NotFound: no such branch. InvalidArgument: ``main``, or unmerged work without
            ``force``.

        Example:
            >>> client.delete_branch("dev")          # doctest: +SKIP
        """
        self._call("weir_branch_delete", _enc(_branch(name)), ctypes.c_uint(1 if force else 0))

    def get_tags(self) -> list[Tag]:
        """All tags, sorted by name.

        Example:
            >>> [t.name for t in client.get_tags()]   # doctest: +SKIP
        """
        doc = self._json("weir_tag_list")
        return [Tag.from_json(t) for t in cast("list[dict[str, Any]]", doc or [])]

    def get_tag(self, name: str) -> Tag:
        """The tag ``name``.

        Raises:
            NotFound: no such tag.

        Example:
            >>> client.get_tag("v1").target   # doctest: +SKIP
        """
        for t in self.get_tags():
            if t.name == name:
                return t
        raise NotFound(f"tag '{name}' does not exist")

    def create_tag(self, name: str, ref: RefLike = "main") -> Tag:
        """Creates tag ``name`` at ``ref``; tags never move.

        Raises:
            InvalidName, AlreadyExists, NotFound.

        Example:
            >>> client.create_tag("v1", ref="main").target     # doctest: +SKIP
        """
        buf = ctypes.create_string_buffer(_ffi.HASH_SIZE)
        self._call("weir_tag_create", _enc(name), _enc(_ref(ref)), buf)
        target = buf.value.decode()
        for t in self.get_tags():
            if t.name == name:
                return t
        return Tag(name=name, target=target)

    def delete_tag(self, name: str | Tag) -> None:
        """Deletes a tag.

        Raises:
            NotFound: no such tag.

        Example:
            >>> client.delete_tag("v1")   # doctest: +SKIP
        """
        self._call("weir_tag_delete", _enc(name.name if isinstance(name, Tag) else name))

    # ---- merge -----------------------------------------------------------------------------------

    def merge(self, source_ref: RefLike, into_branch: BranchLike = "main", message: str | None = None,
              no_ff: bool = False, allow_partial: bool = False) -> MergeResult:
        """Merges ``source_ref`` into branch ``into_branch``: fast-forward when possible
        (unless ``no_ff``), else a three-way merge at table level.

        Raises:
            MergeConflict: tables changed on both sides (``.conflicts`` lists them);
                nothing was written.
            PartialRunError: the source history holds commits of a run that did not
                succeed (pass ``allow_partial=True`` to publish them anyway).
            ConcurrentUpdate: the target kept moving. NotFound: a missing ref or branch.

        Example:
            >>> client.merge("dev", into_branch="main").result    # doctest: +SKIP
            'fast-forward'
        """
        opts = _ffi.MergeOptions(_enc(message), 1 if no_ff else 0, 1 if allow_partial else 0)
        doc = self._json("weir_merge", _enc(_ref(source_ref, "source_ref")), _enc(_branch(into_branch, "into_branch")),
                         ctypes.byref(opts))
        return MergeResult.from_json(cast("dict[str, Any]", doc))

    # ---- tables ----------------------------------------------------------------------------------

    def get_tables(self, ref: RefLike = "main") -> list[TableSummary]:
        """Tables at ``ref``, sorted by name, with row counts.

        Example:
            >>> [(t.table, t.record_count) for t in client.get_tables()]   # doctest: +SKIP
            [('default.titanic', 891)]
        """
        doc = self._json("weir_tables", _enc(_ref(ref)))
        return [TableSummary.from_json(t) for t in cast("list[dict[str, Any]]", doc or [])]

    def get_table(self, name: str, ref: RefLike = "main") -> TableInfo:
        """One table at ``ref``: columns (type, required, doc, lineage, field id), the
        table comment, the contract stored with it, snapshot and metadata file.

        Raises:
            NotFound: the table does not exist at ``ref``. InvalidName: a bad name.

        Example:
            >>> info = client.get_table("f")                 # doctest: +SKIP
            >>> info.comment, info.column("tclass").doc        # doctest: +SKIP
        """
        return TableInfo.from_json(cast("dict[str, Any]", self._json("weir_describe", _enc(name), _enc(_ref(ref)))))

    def revert_table(self, table: str, source_ref: RefLike, into_branch: BranchLike = "main",
                     allow_partial: bool = False, message: str | None = None) -> RevertResult:
        """Commits on ``into_branch`` the version ``table`` had at ``source_ref`` (or drops
        it if it did not exist there). History is never rewritten.

        Raises:
            PartialRunError: the table's current version was published by a run together
                with other tables (pass ``allow_partial=True``, or use ``revert_run``).
            NotFound, InvalidName.

        Example:
            >>> client.revert_table("f", source_ref=old.hash, into_branch="main")   # doctest: +SKIP
        """
        opts = _ffi.RevertOptions(_enc(message), 1 if allow_partial else 0)
        doc = self._json("weir_revert_table", _enc(table), _enc(_ref(source_ref, "source_ref")),
                         _enc(_branch(into_branch, "into_branch")), ctypes.byref(opts))
        return RevertResult.from_json(cast("dict[str, Any]", doc))

    def revert_run(self, run_id: str | RunState, into_branch: BranchLike | None = None,
                   message: str | None = None) -> RevertResult:
        """Puts every table run ``run_id`` wrote back as it was before the run, in one
        commit on ``into_branch`` (default: the run's target branch).

        Raises:
            NotFound: no such run.

        Example:
            >>> client.revert_run(state.run_id)      # doctest: +SKIP
        """
        rid = run_id.run_id if isinstance(run_id, RunState) else run_id
        if not rid:
            raise InvalidArgument("revert_run needs a run id")
        opts = _ffi.RevertOptions(_enc(message), 0)
        doc = self._json("weir_revert_run", _enc(rid), _enc(_branch(into_branch, "into_branch")), ctypes.byref(opts))
        return RevertResult.from_json(cast("dict[str, Any]", doc))

    # ---- reading data ----------------------------------------------------------------------------

    def query_reader(self, sql: str, ref: RefLike = "main") -> pa.RecordBatchReader:
        """Runs read-only SQL over every table as it is at ``ref`` and returns the result
        as a stream of record batches (the engine's buffers, not copied).

        Raises:
            NotFound: a table that does not exist at ``ref``. EngineError: a SQL error.
            InvalidArgument: a statement that writes.

        Example:
            >>> for batch in client.query_reader("SELECT * FROM titanic"):   # doctest: +SKIP
            ...     print(batch.num_rows)
        """
        stream = _ffi.ArrowArrayStream()
        self._call("weir_query", _enc(sql), _enc(_ref(ref)), ctypes.byref(stream))
        return _ffi.import_stream(stream)

    def query(self, sql: str, ref: RefLike = "main") -> pa.Table:
        """Runs read-only SQL over every table as it is at ``ref``; a table is
        ``namespace.name`` or bare ``name`` (the default namespace). The result holds the
        engine's Arrow buffers (no copy).

        Raises:
            NotFound, EngineError, InvalidArgument (as :meth:`query_reader`).

        Example:
            >>> client.query("SELECT COUNT(*) AS n FROM titanic", ref=head).to_pylist()   # doctest: +SKIP
            [{'n': 891}]
        """
        return self.query_reader(sql, ref).read_all()

    def export_query(self, sql: str, path: str | os.PathLike[str], format: Literal["csv", "json", "parquet"] = "parquet",  # noqa: A002
                     ref: RefLike = "main") -> int:
        """Runs a query and writes its result to ``path`` as CSV (with a header), JSON or
        Parquet; returns the number of rows written.

        Raises:
            as :meth:`query`, plus StorageError for the output file.

        Example:
            >>> client.export_query("SELECT * FROM f", "f.parquet")   # doctest: +SKIP
            170
        """
        rows = ctypes.c_int64(0)
        self._call("weir_query_export", _enc(sql), _enc(_ref(ref)), _enc(format), _enc(_path(path)),
                   ctypes.byref(rows))
        return rows.value

    # ---- writing data ----------------------------------------------------------------------------

    def import_data(self, table: str, data: object, branch: BranchLike = "main", mode: ImportMode = "create",
                    contract: str | os.PathLike[str] | type | Mapping[str, Any] | None = None,
                    message: str | None = None, format: Literal["csv", "parquet", "jsonl"] | None = None,  # noqa: A002
                    ) -> ImportResult:
        """Loads data into ``table`` as one commit on ``branch``.

        Args:
            table: ``namespace.name`` or ``name``.
            data: a path to a CSV, Parquet or JSON-lines file, or Arrow data: a
                ``pyarrow.Table``/``RecordBatch``/``RecordBatchReader`` or any object with
                ``__arrow_c_stream__`` (polars, pandas). Arrow data is read in place.
            mode: ``"create"`` (the table must not exist), ``"append"`` or ``"replace"``.
            contract: check the data first: a YAML/IR-JSON contract file, a TableSchema
                class, or an IR dict. Violations of mode ``fail`` write nothing.
            message: the commit message.
            format: the file format when the extension does not say.

        Raises:
            ContractViolation: the data breaks the contract (``.violations``).
            InvalidName: a bad table name (nothing is touched). AlreadyExists: ``create``
            on an existing table. InvalidInput: a malformed file (message names file and
            line). ConcurrentUpdate.

        Example:
            >>> client.import_data("titanic", "examples/titanic/data/titanic.csv")   # doctest: +SKIP
            >>> client.import_data("scores", pa.table({"x": [1, 2]}), branch="dev")    # doctest: +SKIP
        """
        if mode not in _MODES:
            raise InvalidArgument(f"mode must be 'create', 'append' or 'replace', not {mode!r}")
        tmpdir: tempfile.TemporaryDirectory[str] | None = None
        contract_path: str | None = None
        try:
            if contract is not None:
                if isinstance(contract, (str, os.PathLike)):
                    contract_path = _path(contract)
                else:
                    ir: dict[str, Any]
                    if is_schema(contract):
                        ir = cast("type[TableSchema]", contract).to_ir()
                    elif isinstance(contract, Mapping):
                        ir = dict(contract)
                    else:
                        raise InvalidArgument("contract must be a contract file path, a TableSchema class or an IR "
                                              f"dict, not {contract!r}")
                    tmpdir = tempfile.TemporaryDirectory(prefix="weir-contract-")
                    contract_path = os.path.join(tmpdir.name, "contract.json")
                    with open(contract_path, "w", encoding="utf-8") as fh:
                        json.dump(ir, fh)
            opts = _ffi.ImportOptions(_enc(table), _enc(_branch(branch)), _MODES[mode], _enc(contract_path),
                                      _enc(message), _enc(format))
            if isinstance(data, (str, os.PathLike)):
                doc = self._json("weir_import", _enc(_path(cast("str | os.PathLike[str]", data))), ctypes.byref(opts))
            else:
                stream, reader = _ffi.export_stream(data)
                try:
                    doc = self._json("weir_import_arrow", ctypes.byref(stream), ctypes.byref(opts))
                finally:
                    _ffi.release_stream(stream)
                    del reader
            return ImportResult.from_json(cast("dict[str, Any]", doc))
        finally:
            if tmpdir is not None:
                tmpdir.cleanup()

    # ---- projects and runs -------------------------------------------------------------------

    def check(self, project_dir: str | os.PathLike[str], ref: RefLike = "main") -> Plan:
        """Parses and plans a project against the catalog at ``ref`` without reading data
        or writing anything. Problems are returned, not raised: check ``plan.ok``.

        Raises:
            NotFound: the project folder or ``ref`` does not exist.

        Example:
            >>> plan = client.check("examples/titanic/project")    # doctest: +SKIP
            >>> plan.ok, [m.name for m in plan.models]              # doctest: +SKIP
            (True, ['f', 'g', 'fare_sum', 'h'])
        """
        text, err = self._out("weir_project_check", _enc(_path(project_dir)), _enc(_ref(ref)))
        doc = cast("dict[str, Any]", json.loads(text)) if text else {}
        if err is None:
            return Plan.from_json(doc)
        if isinstance(err, PlanError):
            plan = Plan.from_json(doc, problems=err.details if not doc.get("problems") else ())
            return dataclasses.replace(plan, ok=False)
        raise err

    def run(self, project_dir: str | os.PathLike[str], ref: BranchLike = "main", dry_run: bool = False) -> RunState:
        """Checks, then runs a project transactionally on branch ``ref``: the models run
        on a temporary branch ``run/<id>`` that is merged into ``ref`` only if every
        model passed.

        A run that fails while running (a contract violation, a model error, a worker
        crash, a conflict in the final merge) is *returned*, with ``success()`` False,
        the failing model and its violations: ``ref`` is untouched and the run branch is
        kept for debugging. A project that does not plan raises :class:`PlanError`
        (nothing was written, no branch created).

        Args:
            dry_run: plan and report only; the returned state has status ``planned``
                and ``plan`` set.

        Raises:
            PlanError: the project does not plan (``.problems`` lists every problem).
            NotFound: the project folder or branch does not exist.

        Example:
            >>> state = client.run("examples/titanic/project", ref=dev)   # doctest: +SKIP
            >>> state.success(), state.model("h").rows                    # doctest: +SKIP
        """
        opts = _ffi.RunOptions(_enc(_branch(ref, "ref")), 1 if dry_run else 0)
        text, err = self._out("weir_project_run", _enc(_path(project_dir)), ctypes.byref(opts))
        doc = cast("dict[str, Any]", json.loads(text)) if text else None
        if err is None:
            if doc is None:
                raise WeirError("weir_project_run returned no run record")
            return RunState.from_plan(doc, _branch(ref)) if dry_run else RunState.from_json(doc)
        if isinstance(err, PlanError) or doc is None:
            raise err
        state = RunState.from_plan(doc, _branch(ref)) if dry_run else RunState.from_json(doc)
        run_error = RunError(code=err.name, message=err.message, details=tuple(err.details), code_num=err.code)
        if state.status in ("", "running", "succeeded", "planned"):
            state = dataclasses.replace(state, status="failed", error=state.error or run_error)
        elif state.error is None or not state.error.message:
            state = dataclasses.replace(state, error=run_error)
        return state

    def get_runs(self) -> list[RunState]:
        """Runs, newest first.

        Example:
            >>> [(r.run_id, r.status) for r in client.get_runs()]    # doctest: +SKIP
        """
        doc = self._json("weir_runs_list")
        return [RunState.from_json(r) for r in cast("list[dict[str, Any]]", doc or [])]

    def get_run(self, run_id: str) -> RunState:
        """One run with per-model timings, row counts, rule results and violations.

        Raises:
            NotFound: no such run.

        Example:
            >>> client.get_run(state.run_id).status   # doctest: +SKIP
            'succeeded'
        """
        return RunState.from_json(cast("dict[str, Any]", self._json("weir_run_show", _enc(run_id))))
