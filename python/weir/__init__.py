"""weir: a lakehouse where data contracts are types and the catalog is versioned like Git.

The Python SDK has two halves:

- **modelling**: :class:`TableSchema` contracts with weir types (``Int64``, ``String``,
  ``T | None``...), ``Annotated`` metadata (``TableField``, ``Doc``, ``Enum``, ``Unique``,
  ``Pattern``, ``Range``, ``Check``), ``Table[S]`` inputs and outputs, ``Model(...)``
  references and the ``@weir.model`` / ``@weir.python`` decorators;
- **the client**: :class:`Client`, the whole Git-for-data API over libweir (commits,
  branches, tags, merges, runs, queries as Arrow, time travel, revert, imports).

Example:
    >>> import weir
    >>> client = weir.Client(lake="/tmp/lake")                       # doctest: +SKIP
    >>> head = client.get_commits(ref="main", limit=1)[0]            # doctest: +SKIP
    >>> dev = client.create_branch("dev", from_ref="main")           # doctest: +SKIP
    >>> state = client.run("examples/titanic/project", ref=dev)      # doctest: +SKIP
    >>> if state.success():                                          # doctest: +SKIP
    ...     client.merge(dev, into_branch="main")
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from weir.errors import (
    AlreadyExists,
    CatalogError,
    ConcurrentUpdate,
    ContractViolation,
    EngineError,
    InvalidArgument,
    InvalidInput,
    Interrupted,
    InvalidName,
    LibraryNotFound,
    MergeConflict,
    ModelDefinitionError,
    ModelError,
    NotFound,
    OutOfMemory,
    PartialRunError,
    PlanError,
    SchemaError,
    StaleRead,
    StorageError,
    Unsupported,
    WeirError,
)
from weir.model import Filter, Model, Table, model, python
from weir.records import (
    AlterColumn,
    AlterResult,
    CompactResult,
    Namespace,
    TableDropped,
    TableRenamed,
    DeleteResult,
    Branch,
    BranchProtection,
    Column,
    Commit,
    ChangedTable,
    CommitTable,
    Conflict,
    ContractChange,
    ContractDiff,
    ContractReader,
    Diff,
    ImportResult,
    GcFile,
    GcResult,
    LakeStatus,
    MergeResult,
    PrunedBranch,
    RegisterResult,
    ModelResult,
    Plan,
    PlanProblem,
    RequiredCheck,
    RevertResult,
    RunState,
    TableChange,
    NamespaceChange,
    TableDiff,
    TableFreshness,
    TableInfo,
    TableSummary,
    Tag,
    Violation,
)
from weir.schema import (
    Check,
    ColumnRef,
    Doc,
    Enum,
    Pattern,
    Range,
    Required,
    TableField,
    TableRule,
    TableSchema,
    Unique,
)
from weir.validation import Validation, validate
from weir.types import (
    Any,
    Binary,
    Bool,
    Date32,
    Date64,
    Decimal,
    Float32,
    Float64,
    Int32,
    Int64,
    String,
    TimestampMicro,
    TimestampMicroUTC,
    TimestampNano,
    TimestampNanoUTC,
)

if TYPE_CHECKING:
    from weir.client import Client

from weir._bindings import WEIR_VERSION_STRING as _VERSION

__version__: str = _VERSION  # the repository's VERSION, as libweir's weir_version()

__all__ = [
    # types
    "Any", "Binary", "Bool", "Date32", "Date64", "Decimal", "Float32", "Float64", "Int32", "Int64",
    "String", "TimestampMicro", "TimestampMicroUTC", "TimestampNano", "TimestampNanoUTC",
    # schemas
    "TableSchema", "TableField", "Doc", "Required", "ColumnRef", "Enum", "Unique", "Pattern", "Range",
    "Check", "TableRule",
    # models
    "Table", "Model", "Filter", "model", "python",
    # client and records
    "Client", "Commit", "CommitTable", "Branch", "Tag", "MergeResult", "Conflict", "ChangedTable", "TableSummary",
    "GcResult", "GcFile", "PrunedBranch",
    "TableInfo", "Column", "Diff", "TableDiff", "TableChange", "NamespaceChange", "RevertResult", "ImportResult",
    "AlterColumn",
    "AlterResult",
    "CompactResult",
    "DeleteResult",
    "RunState", "ModelResult", "Violation", "Plan", "PlanProblem", "ContractDiff", "ContractChange", "ContractReader",
    "BranchProtection", "RequiredCheck", "LakeStatus", "TableFreshness",
    "RegisterResult", "TableDropped", "TableRenamed", "Namespace",
    # errors
    "WeirError", "NotFound", "AlreadyExists", "StorageError", "CatalogError", "EngineError",
    "InvalidName", "InvalidArgument", "InvalidInput", "ContractViolation", "PlanError",
    "MergeConflict", "ConcurrentUpdate", "PartialRunError", "ModelError", "Unsupported",
    "Interrupted", "StaleRead", "OutOfMemory", "SchemaError", "ModelDefinitionError", "LibraryNotFound",
    # local validation
    "validate", "Validation",
]


def __getattr__(name: str) -> object:
    # The client loads libweir; importing it lazily keeps `import weir` (and model
    # discovery) free of the native library.
    if name == "Client":
        from weir.client import Client

        return Client
    raise AttributeError(f"module 'weir' has no attribute {name!r}")
