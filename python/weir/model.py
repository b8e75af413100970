"""Python models: ``Table[S]``, ``Model(...)`` inputs, and the ``@weir.model`` /
``@weir.python`` decorators.

A model is a function that takes one or more tables and returns one table::

    @weir.model(materialization="REPLACE")
    @weir.python("3.11", pip={"polars": "1.*"})
    def g(
        lodgings: Annotated[Table[CabinCostSource], Model("titanic", filter="Age >= 18")],
    ) -> Table[CabinCostAnalysis]:
        \"\"\"Cabin cost by deck for working-age adults.\"\"\"
        ...

- An input is a parameter annotated ``Annotated[Table[S], Model("name", ...)]`` (the
  table is projected to S's columns and checked against S) or
  ``Annotated[pyarrow.Table, Model("name", projection_schema=S)]`` (the same), or
  ``Annotated[pyarrow.Table, Model("name")]`` (read as is, unchecked).
- The return annotation ``Table[S]`` or ``Annotated[pyarrow.Table, S]`` is the output
  contract.
- For a type checker ``Table[S]`` *is* ``pyarrow.Table``; at runtime ``Table[S]`` is
  ``Annotated[pyarrow.Table, S]``, so it records S.

The decorators only record metadata on the function (which stays an ordinary,
callable function, so it can be unit-tested by calling it with pyarrow tables).
"""
from __future__ import annotations

import ast
import inspect
import linecache
import re
import types as _types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, get_args, get_origin, get_type_hints, overload

import pyarrow as pa

from weir.errors import ModelDefinitionError
from weir.limits import SandboxOptions
from weir.schema import TableSchema, is_schema

__all__ = [
    "Table", "Model", "Filter", "model", "python", "ModelOptions", "PythonEnv", "ModelSpec",
    "InputSpec", "inspect_model", "analyze_model", "schema_of", "is_model", "Materialization",
]

S = TypeVar("S", bound=TableSchema)
F = TypeVar("F", bound=Callable[..., Any])
Materialization = Literal["REPLACE", "APPEND"]

if TYPE_CHECKING:
    from typing_extensions import TypeAliasType

    #: ``Table[S]``: for type checkers exactly ``pyarrow.Table``.
    Table = TypeAliasType("Table", pa.Table, type_params=(S,))
else:

    class Table:
        """``Table[S]``: a pyarrow.Table whose columns follow schema S.

        Type checkers see ``Table[S]`` as ``pyarrow.Table`` (so every pyarrow method
        checks, and a method pyarrow does not have is an error). At runtime
        ``Table[S]`` is ``Annotated[pyarrow.Table, S]``, which is how weir finds S.

        Raises:
            TypeError: ``Table[x]`` where x is not a TableSchema class; ``Table()``.

        Example:
            >>> from typing import get_args
            >>> import pyarrow as pa
            >>> from weir import Table, TableSchema, Int64
            >>> class S(TableSchema):
            ...     x: Int64
            >>> get_args(Table[S]) == (pa.Table, S)
            True
        """

        __slots__ = ()

        def __new__(cls, *args: object, **kwargs: object) -> Table:
            raise TypeError("weir.Table[S] is an annotation for pyarrow.Table; build tables with pyarrow")

        def __class_getitem__(cls, schema: object) -> object:
            if isinstance(schema, TypeVar) or is_schema(schema):
                return Annotated[pa.Table, schema]
            raise TypeError(f"Table[...] takes a TableSchema class, not {schema!r}")


_TABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")
_MODEL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Model:
    """An input of a model: the table (another model of the project, or a catalog table)
    and how to read it.

    Args:
        name: the table: a model name, or ``"namespace.table"`` / ``"table"`` in the catalog.
        filter: a SQL predicate pushed into the scan (``"Age >= 18 AND Age <= 65"``).
        ref: read the table from this ref instead of the run's ref.
        projection_schema: project the table to this schema's columns and check it
            against the schema (the same as annotating the parameter ``Table[S]``).
        columns: read only these columns, unchecked (the SDK 1.0 spelling of a
            projection: ``Model("titanic", columns=["PassengerId", "Fare"])``). The
            planner checks that the table has them. Not with a schema, which already
            names the columns.

    Raises:
        ModelDefinitionError: a malformed table name, filter, ref, schema or column list.

    Example:
        >>> from typing import Annotated
        >>> import pyarrow as pa
        >>> from weir import Model
        >>> Model("titanic", filter="Age >= 18")
        Model('titanic', filter='Age >= 18')
    """

    __slots__ = ("name", "filter", "ref", "projection_schema", "columns")

    def __init__(self, name: str, filter: str | None = None, ref: str | None = None,  # noqa: A002
                 projection_schema: type[TableSchema] | None = None, columns: Sequence[str] | None = None) -> None:
        if not isinstance(name, str) or not _TABLE_NAME.match(name):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ModelDefinitionError(f"Model({name!r}): a table name is NAME or NAMESPACE.NAME of "
                                       "letters, digits and underscores")
        if filter is not None and (not isinstance(filter, str) or not filter.strip()):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ModelDefinitionError(f"Model({name!r}): filter must be a SQL predicate string")
        if ref is not None and (not isinstance(ref, str) or not ref):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ModelDefinitionError(f"Model({name!r}): ref must be a branch, tag or commit hash")
        if projection_schema is not None and not is_schema(projection_schema):
            raise ModelDefinitionError(f"Model({name!r}): projection_schema must be a TableSchema class, "
                                       f"not {projection_schema!r}")
        cols: tuple[str, ...] | None = None
        if columns is not None:
            if isinstance(columns, str) or not all(isinstance(c, str) and c for c in columns):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise ModelDefinitionError(f"Model({name!r}): columns must be a list of column names")
            cols = tuple(columns)
            if not cols:
                raise ModelDefinitionError(f"Model({name!r}): columns must name at least one column")
            dup = next((c for i, c in enumerate(cols) if c in cols[:i]), None)
            if dup is not None:
                raise ModelDefinitionError(f"Model({name!r}): column {dup!r} is listed twice")
            if projection_schema is not None:
                raise ModelDefinitionError(f"Model({name!r}): give columns= or projection_schema=, not both "
                                           "(the schema names the columns)")
        self.name: str = name
        self.filter: str | None = filter
        self.ref: str | None = ref
        self.projection_schema: type[TableSchema] | None = projection_schema
        self.columns: tuple[str, ...] | None = cols

    def __repr__(self) -> str:
        parts = [repr(self.name)]
        if self.filter is not None:
            parts.append(f"filter={self.filter!r}")
        if self.ref is not None:
            parts.append(f"ref={self.ref!r}")
        if self.projection_schema is not None:
            parts.append(f"projection_schema={self.projection_schema.__name__}")
        if self.columns is not None:
            parts.append(f"columns={list(self.columns)!r}")
        return f"Model({', '.join(parts)})"

    def _key(self) -> tuple[object, ...]:
        return (self.name, self.filter, self.ref, self.projection_schema, self.columns)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Model) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


def Filter(source: Model, predicate: str) -> Model:  # noqa: N802 - the paper's spelling
    """``Filter(Model("t"), "Age >= 18")``: the same as ``Model("t", filter="Age >= 18")``
    (predicates combine with AND).

    Example:
        >>> Filter(Model("titanic"), "Age >= 18")
        Model('titanic', filter='Age >= 18')
    """
    pred = predicate if source.filter is None else f"({source.filter}) AND ({predicate})"
    return Model(source.name, filter=pred, ref=source.ref, projection_schema=source.projection_schema,
                 columns=source.columns)


@dataclass(frozen=True)
class ModelOptions:
    """What ``@weir.model`` recorded on a function.

    Example:
        >>> g.__weir_model__   # doctest: +SKIP
        ModelOptions(name=None, materialization='REPLACE', partition_by=())
    """

    name: str | None
    materialization: Materialization
    partition_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class PythonEnv:
    """What ``@weir.python`` recorded: the interpreter version and pip requirements.

    Example:
        >>> PythonEnv("3.11", {"polars": "1.*"}).to_json()
        {'version': '3.11', 'pip': {'polars': '1.*'}}
    """

    version: str
    pip: Mapping[str, str] = field(default_factory=dict[str, Any], hash=False)

    def to_json(self) -> dict[str, Any]:
        """``{"version": ..., "pip": {...}}`` as discovery prints it.

        Example:
            >>> PythonEnv("3.11").to_json()
            {'version': '3.11', 'pip': {}}
        """
        return {"version": self.version, "pip": dict(self.pip)}


def _partition_fields(fn: object, partition_by: str | Sequence[str] | None) -> tuple[str, ...]:
    """``partition_by`` as a tuple of fields: a list of transforms, or one string of them
    separated by commas outside parentheses (``"day(ts), bucket(16, id)"``)."""
    if partition_by is None:
        return ()
    items = [partition_by] if isinstance(partition_by, str) else list(partition_by)
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ModelDefinitionError(f"@weir.model(partition_by={partition_by!r}): transforms are strings such as "
                                       "'day(ts)'", _code_line(fn), _code_file(fn))
        depth, start = 0, 0
        for i, ch in enumerate(item + ","):
            depth += (ch == "(") - (ch == ")")
            if ch == "," and depth <= 0:
                part = item[start:i].strip()
                if part:
                    out.append(part)
                start = i + 1
    return tuple(out)


def _set_model(fn: F, materialization: str | None, name: str | None, strategy: str | None = None,
               partition_by: str | Sequence[str] | None = None) -> F:
    if not callable(fn):
        raise ModelDefinitionError(f"@weir.model decorates a function, not {fn!r}")
    # materialization_strategy= is the seed paper's spelling (and the SQL header's): the same option.
    given = [(k, v) for k, v in (("materialization", materialization), ("materialization_strategy", strategy))
             if v is not None]
    for key, value in given:
        up = value.upper() if isinstance(value, str) else value  # pyright: ignore[reportUnnecessaryIsInstance]
        if up not in ("REPLACE", "APPEND"):
            raise ModelDefinitionError(f"@weir.model({key}={value!r}): use 'REPLACE' or 'APPEND'",
                                       _code_line(fn), _code_file(fn))
    if len(given) == 2 and given[0][1].upper() != given[1][1].upper():
        raise ModelDefinitionError(f"@weir.model(materialization={materialization!r}, materialization_strategy="
                                   f"{strategy!r}): they are one option; give it once", _code_line(fn), _code_file(fn))
    mat: Materialization = "APPEND" if given and given[0][1].upper() == "APPEND" else "REPLACE"
    if name is not None and (not isinstance(name, str) or not _MODEL_NAME.match(name)):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ModelDefinitionError(f"@weir.model(name={name!r}): a model name is letters, digits and underscores",
                                   _code_line(fn), _code_file(fn))
    setattr(fn, "__weir_model__", ModelOptions(name=name, materialization=mat,  # noqa: B010
                                               partition_by=_partition_fields(fn, partition_by)))
    return fn


@overload
def model(fn: F, /) -> F: ...


@overload
def model(*, materialization: Materialization | None = None, name: str | None = None,
          materialization_strategy: Materialization | None = None,
          partition_by: str | Sequence[str] | None = None) -> Callable[[F], F]: ...


def model(fn: F | None = None, /, *, materialization: Materialization | None = None,
          name: str | None = None, materialization_strategy: Materialization | None = None,
          partition_by: str | Sequence[str] | None = None) -> F | Callable[[F], F]:
    """Declares a function a model of the project: it produces the table named after it
    (or ``name``). Usable bare (``@weir.model``) or with arguments, above or below
    ``@weir.python``.

    Args:
        materialization: ``"REPLACE"`` (default: the table is replaced by the output) or
            ``"APPEND"`` (the output's rows are added).
        name: the model and table name; default the function's name.
        materialization_strategy: the same option under the name the SQL header and the
            seed papers use (``@weir.model(materialization_strategy='REPLACE')``); give
            one of the two.
        partition_by: the output table's Iceberg partition fields, e.g.
            ``["day(ts)", "bucket(16, id)"]`` (docs/partitioning.md); checked against the
            output columns when the project is planned and written.

    Returns:
        The function itself, unchanged apart from the recorded options.

    Raises:
        ModelDefinitionError: a bad materialization or name, or two different
            materializations.

    Example:
        >>> import pyarrow as pa
        >>> import weir
        >>> @weir.model(materialization="APPEND")
        ... def events(src: Annotated[pa.Table, weir.Model("raw_events")]) -> pa.Table:
        ...     return src
        >>> events.__weir_model__.materialization
        'APPEND'
    """
    if fn is not None:
        return _set_model(fn, materialization, name, materialization_strategy, partition_by)

    def deco(f: F) -> F:
        return _set_model(f, materialization, name, materialization_strategy, partition_by)

    return deco


_VERSION = re.compile(r"^3\.\d+(\.\d+)?$")


def python(version: str | None = None, pip: Mapping[str, str] | None = None, *, internet_access: bool = False,
           memory: str | int | None = None, timeout: str | float | None = None,
           cpu_time: str | float | None = None) -> Callable[[F], F]:
    """Names the Python version and pip packages a model needs, and what its sandbox
    allows (docs/sandbox.md); weir prepares (and caches) that environment and runs the
    model in it, sandboxed.

    Args:
        version: ``"3.11"`` (or ``"3.11.7"``); None: the project's default environment.
        pip: package → version spec: ``"1.*"``, ``"1.37"`` (exact), ``">=1.0,<2"``, or
            ``""`` for any version (needs ``version``).
        internet_access: open the network to the model (and nothing else: it still
            cannot touch the lake or the user's files).
        memory: its resident-memory limit, ``"4GB"``, ``"512MiB"`` or bytes (default 4GB).
        timeout: its wall-clock limit, ``"10m"``, ``"1h30m"`` or seconds (default 1h).
        cpu_time: its CPU-time limit (all threads), as ``timeout`` (default: none).

    Raises:
        ModelDefinitionError: a malformed version, requirement or limit.

    Example:
        >>> import weir
        >>> @weir.python("3.11", pip={"polars": "1.*"}, memory="8GB", timeout="10m")
        ... def g() -> None: ...
        >>> g.__weir_python__.pip, g.__weir_sandbox__.timeout
        ({'polars': '1.*'}, 600.0)
    """
    if version is not None and (not isinstance(version, str) or not _VERSION.match(version)):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ModelDefinitionError(f"@weir.python({version!r}): the version is like '3.11'")
    reqs: dict[str, str] = {}
    for k, v in (pip or {}).items():
        if not isinstance(k, str) or not re.match(r"^[A-Za-z0-9][A-Za-z0-9._\-\[\],]*$", k):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ModelDefinitionError(f"@weir.python(pip=...): bad package name {k!r}")
        if not isinstance(v, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ModelDefinitionError(f"@weir.python(pip=...): the version of {k!r} must be a string like '1.*'")
        reqs[k] = v
    if reqs and version is None:
        raise ModelDefinitionError("@weir.python(pip=...) needs a version: @weir.python(\"3.11\", pip={...})")
    env = PythonEnv(version=version, pip=reqs) if version is not None else None
    try:
        box = SandboxOptions.parse(internet_access, memory, timeout, cpu_time)
    except ValueError as e:
        raise ModelDefinitionError(f"@weir.python({e})") from None

    def deco(f: F) -> F:
        if env is not None:
            setattr(f, "__weir_python__", env)  # noqa: B010
        setattr(f, "__weir_sandbox__", box)  # noqa: B010
        return f

    return deco


def is_model(obj: object) -> bool:
    """True for a function decorated with ``@weir.model``.

    Example:
        >>> import weir
        >>> @weir.model
        ... def m() -> None: ...
        >>> is_model(m), is_model(print)
        (True, False)
    """
    return callable(obj) and isinstance(getattr(obj, "__weir_model__", None), ModelOptions)


def _flatten(ann: object) -> tuple[object, tuple[object, ...]]:
    """(base type, metadata) of a possibly nested Annotated."""
    meta: tuple[object, ...] = ()
    while get_origin(ann) is Annotated:
        args = get_args(ann)
        ann = args[0]
        meta = tuple(args[1:]) + meta
    return ann, meta


def schema_of(annotation: object) -> type[TableSchema] | None:
    """The TableSchema an annotation carries: S for ``Table[S]``,
    ``Annotated[pyarrow.Table, S]``, ``Annotated[Table[S], Model(...)]`` or
    ``Annotated[pyarrow.Table, Model(..., projection_schema=S)]``; None when there is none.

    Raises:
        ModelDefinitionError: two different schemas in one annotation.

    Example:
        >>> from weir import Table, TableSchema, Int64
        >>> class S(TableSchema):
        ...     x: Int64
        >>> schema_of(Table[S]) is S
        True
    """
    if is_schema(annotation):
        return annotation  # pyright: ignore[reportReturnType]
    _, meta = _flatten(annotation)
    found: list[type[TableSchema]] = []
    for m in meta:
        cand: object = m.projection_schema if isinstance(m, Model) else m
        if is_schema(cand) and cand not in found:
            found.append(cand)  # pyright: ignore[reportArgumentType]
    if len(found) > 1:
        raise ModelDefinitionError(f"two schemas for one table: {', '.join(s.__name__ for s in found)}")
    return found[0] if found else None


@dataclass(frozen=True)
class InputSpec:
    """One input of a model: the parameter, the table it reads and how.

    Example:
        >>> [i.table for i in inspect_model(g).inputs]   # doctest: +SKIP
        ['titanic']
    """

    param: str
    table: str
    filter: str | None
    ref: str | None
    schema: type[TableSchema] | None
    line: int
    columns: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """The input as discovery prints it.

        Example:
            >>> InputSpec("src", "titanic", None, None, None, 3).to_json()["table"]
            'titanic'
        """
        return {"param": self.param, "table": self.table, "filter": self.filter, "ref": self.ref,
                "schema": self.schema.__name__ if self.schema else None,
                "columns": list(self.columns) if self.columns is not None else None, "line": self.line}


@dataclass(frozen=True)
class ModelSpec:
    """Everything weir knows about a Python model, from its decorators and signature.

    Example:
        >>> inspect_model(g).output_schema.__name__   # doctest: +SKIP
        'CabinCostAnalysis'
    """

    name: str
    function: str
    file: str
    line: int
    materialization: Materialization
    doc: str | None
    python: PythonEnv | None
    inputs: tuple[InputSpec, ...]
    output_schema: type[TableSchema] | None
    sandbox: SandboxOptions | None = None
    partition_by: tuple[str, ...] = ()

    def to_json(self, file: str | None = None) -> dict[str, Any]:
        """The model as discovery prints it (``file`` relative to the project).

        Example:
            >>> inspect_model(g).to_json(file="models.py")["inputs"][0]["param"]   # doctest: +SKIP
            'lodgings'
        """
        return {"name": self.name, "file": file if file is not None else self.file, "line": self.line,
                "function": self.function, "materialization": self.materialization, "doc": self.doc,
                "python": self.python.to_json() if self.python else None,
                "inputs": [i.to_json() for i in self.inputs],
                "output_schema": self.output_schema.__name__ if self.output_schema else None,
                "sandbox": self.sandbox.to_json() if self.sandbox else None,
                **({"partition_by": list(self.partition_by)} if self.partition_by else {})}


def _code_file(fn: object) -> str | None:
    code = getattr(fn, "__code__", None)
    return code.co_filename if isinstance(code, _types.CodeType) else None


def _code_line(fn: object) -> int | None:
    code = getattr(fn, "__code__", None)
    return code.co_firstlineno if isinstance(code, _types.CodeType) else None


def _def_node(fn: Callable[..., Any]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    file, first = _code_file(fn), _code_line(fn)
    if not file or not first:
        return None
    text = "".join(linecache.getlines(file))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    best: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            starts = [node.lineno] + [d.lineno for d in node.decorator_list]
            if first in starts:
                return node
            best = best or node
    return best


def analyze_model(fn: Callable[..., Any], localns: Mapping[str, Any] | None = None
                  ) -> tuple[ModelSpec | None, list[ModelDefinitionError]]:
    """Reads a ``@weir.model`` function's decorators and signature, collecting every
    problem instead of stopping at the first (discovery reports them all).

    Returns:
        (the spec, or None when the function could not be understood; the problems).

    Example:
        >>> spec, problems = analyze_model(g)      # doctest: +SKIP
        >>> [i.table for i in spec.inputs]          # doctest: +SKIP
        ['titanic']
    """
    file = _code_file(fn) or "<unknown>"
    opts = getattr(fn, "__weir_model__", None)
    node = _def_node(fn)
    def_line = node.lineno if node else (_code_line(fn) or 0)
    problems: list[ModelDefinitionError] = []

    def problem(msg: str, line: int | None = None) -> None:
        problems.append(ModelDefinitionError(msg, line if line is not None else def_line, file))

    if not isinstance(opts, ModelOptions):
        problem(f"function {fn.__name__} is not decorated with @weir.model")
        return None, problems
    name = opts.name or fn.__name__
    who = f"model {name}"
    if not _MODEL_NAME.match(name):
        problem(f"{who}: a model name is letters, digits and underscores")
    param_lines: dict[str, int] = {}
    if node is not None:
        a = node.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []),
                    *([a.kwarg] if a.kwarg else [])]:
            param_lines[arg.arg] = arg.lineno
    try:
        hints = get_type_hints(fn, localns=dict(localns) if localns is not None else None, include_extras=True)
    except Exception as e:  # noqa: BLE001 - the user's annotations: a NameError, a bad Table[...]
        problem(f"{who}: cannot evaluate the annotations: {type(e).__name__}: {e}")
        return None, problems
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as e:
        problem(f"{who}: cannot read the signature: {e}")
        return None, problems
    inputs: list[InputSpec] = []
    for p in sig.parameters.values():
        line = param_lines.get(p.name, def_line)
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            problem(f"{who}: *{p.name} is not supported: declare each input as its own parameter", line)
            continue
        ann: object = hints.get(p.name, inspect.Parameter.empty)
        base, meta = _flatten(ann) if ann is not inspect.Parameter.empty else (None, ())
        models = [m for m in meta if isinstance(m, Model)]
        if isinstance(p.default, Model):
            models.append(p.default)
        if not models:
            if p.default is not inspect.Parameter.empty:
                continue  # an ordinary parameter with a default: not an input
            problem(f"{who}: parameter {p.name!r} is not an input: annotate it as "
                    f"Annotated[Table[Schema], Model(\"table\")]", line)
            continue
        if p.kind == p.POSITIONAL_ONLY:
            problem(f"{who}: input {p.name!r} is positional-only; inputs are passed by name", line)
        if len(models) > 1:
            problem(f"{who}: parameter {p.name!r} has {len(models)} Model(...) annotations; give one", line)
            continue
        src = models[0]
        try:
            schema = schema_of(ann) if ann is not inspect.Parameter.empty else None
            if src.projection_schema is not None and schema is not None and schema is not src.projection_schema:
                raise ModelDefinitionError(f"two schemas: {schema.__name__} and {src.projection_schema.__name__}")
            schema = schema or src.projection_schema
        except ModelDefinitionError as e:
            problem(f"{who}: parameter {p.name!r}: {e.message}", line)
            continue
        if base is not None and base is not pa.Table and base is not Any:
            problem(f"{who}: parameter {p.name!r} must be a pyarrow.Table (Table[Schema]), not {base!r}", line)
            continue
        if schema is not None and src.columns is not None:
            problem(f"{who}: parameter {p.name!r}: give Model(columns=...) or a schema ({schema.__name__}), not "
                    "both (the schema names the columns)", line)
            continue
        inputs.append(InputSpec(param=p.name, table=src.name, filter=src.filter, ref=src.ref, schema=schema,
                                line=line, columns=src.columns))
    output: type[TableSchema] | None = None
    ret = hints.get("return")
    if ret is not None:
        try:
            output = schema_of(ret)
        except ModelDefinitionError as e:
            problem(f"{who}: return annotation: {e.message}")
    env = getattr(fn, "__weir_python__", None)
    box = getattr(fn, "__weir_sandbox__", None)
    doc = inspect.getdoc(fn)
    spec = ModelSpec(name=name, function=fn.__name__, file=file, line=def_line, materialization=opts.materialization,
                     doc=doc, python=env if isinstance(env, PythonEnv) else None, inputs=tuple(inputs),
                     output_schema=output, sandbox=box if isinstance(box, SandboxOptions) else None,
                     partition_by=opts.partition_by)
    return spec, problems


def inspect_model(fn: Callable[..., Any], localns: Mapping[str, Any] | None = None) -> ModelSpec:
    """Like :func:`analyze_model`, but raises the first problem.

    Raises:
        ModelDefinitionError: the function is not a well-formed model.

    Example:
        >>> inspect_model(g).output_schema.__name__   # doctest: +SKIP
        'CabinCostAnalysis'
    """
    spec, problems = analyze_model(fn, localns)
    if problems:
        raise problems[0]
    if spec is None:  # analyze_model gives a spec or a problem
        raise ModelDefinitionError(f"model {getattr(fn, '__name__', fn)!r} could not be analyzed")
    return spec
