"""Scenario `validate`: contract checks, one rule kind at a time, on the same data in memory.

The data shapes are those of bench/c/bench_validate.c (one column, batches of 2^20 rows),
generated with numpy from a fixed seed, so every tool sees the same values:

  passthrough    int64 sequence, declared Int64 nullable          (type check only)
  cast_int       int32 sequence, declared Int64                   (type check + widening cast)
  nulls          int64 with a validity bitmap (all valid), declared required
  enum_int       int64 in {1, 2, 3}, enum [1, 2, 3]
  enum_string    3-letter strings from 8 values, enum of those 8
  range          float64 in [0, 100), min 0 max 100
  pattern        random 3-letter strings, pattern ^[A-Z]{3}$
  unique         int64, all distinct (shuffled), unique
  unique_string  12-digit distinct strings, unique

Tools (each times only the check, on data already in its own in-memory form):

  weir-sdk   weir_contract_validate() (libweir's C validator) on the pyarrow Table exported as an
             Arrow C stream (zero-copy), through ctypes: the path of the Python SDK. The
             reference of the ratios.
  weir-c     bench/c/bench_validate (same shapes, its own generator): the validator alone,
             best of `reps` (it reports no median).
  pyarrow    pyarrow.compute: the schema type, cast, null count, is_in, comparisons,
             match_substring_regex, count_distinct; each counts the violating rows.
  pandera    pandera's polars backend: DataFrameSchema with Column(dtype, checks, nullable,
             unique, coerce), validate(lazy=True).
  patito     patito Model with Field(ge/le, pattern, unique, constraints=is_in), validate();
             cast_int is DataFrame.cast() then validate.

Null counts: pyarrow computes a null count lazily and keeps it; every run gets fresh array
objects over the same buffers (null_count unknown) so that it counts again, as weir does.
polars computes it when the frame is built (untimed), so for pandera and patito the
`nulls` check reads a stored count.
"""
from __future__ import annotations

import ctypes
import json
import os
from typing import Any

from lib.common import build_dir, median, row, run_timed, timed

SCENARIO = "validate"
BATCH = 1 << 20
KINDS = ["passthrough", "cast_int", "nulls", "enum_int", "enum_string", "range", "pattern", "unique",
         "unique_string"]
WORDS = ["AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG", "HHH"]
YAML = {
    "passthrough": "{name: x, type: Int64, nullable: true}",
    "cast_int": "{name: x, type: Int64, nullable: true}",
    "nulls": "{name: x, type: Int64}",
    "enum_int": "{name: x, type: Int64, enum: [1, 2, 3]}",
    "enum_string": "{name: x, type: String, enum: [AAA, BBB, CCC, DDD, EEE, FFF, GGG, HHH]}",
    "range": "{name: x, type: Float64, min: 0, max: 100}",
    "pattern": "{name: x, type: String, pattern: \"^[A-Z]{3}$\"}",
    "unique": "{name: x, type: Int64, unique: true}",
    "unique_string": "{name: x, type: String, unique: true}",
}
TOOLS = ["weir-sdk", "weir-c", "pyarrow", "pandera", "patito"]


def tier_config(tier: str) -> dict[str, Any]:
    if tier == "smoke":
        return {"rows": 100_000, "reps": 1}
    if tier == "quick":
        return {"rows": 5_000_000, "reps": 3}
    return {"rows": 50_000_000, "reps": 3}


def units(tier: str) -> list[dict[str, Any]]:
    cfg = tier_config(tier)
    return [{"scenario": SCENARIO, "tool": t, "rows": cfg["rows"], "reps": cfg["reps"]} for t in TOOLS]


def size_label(n: int) -> str:
    return f"{n / 1e6:g}M rows" if n >= 1_000_000 else f"{n} rows"


# ---- data -----------------------------------------------------------------------------------------


def make_column(kind: str, n: int) -> Any:
    """The column of `kind` as a pyarrow ChunkedArray of BATCH-row chunks."""
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(20261130)
    if kind in ("passthrough", "nulls"):
        values = np.arange(n, dtype=np.int64)
    elif kind == "cast_int":
        values = np.arange(n, dtype=np.int32)
    elif kind == "enum_int":
        values = rng.integers(1, 4, n, dtype=np.int64)
    elif kind == "range":
        values = rng.integers(0, 1_000_000, n).astype(np.float64) / 10000.0
    elif kind == "unique":
        values = rng.permutation(n).astype(np.int64)
    elif kind in ("enum_string", "pattern", "unique_string"):
        if kind == "enum_string":
            w = 3
            chars = np.frombuffer("".join(WORDS).encode(), dtype=np.uint8).reshape(8, 3)[rng.integers(0, 8, n)]
        elif kind == "pattern":
            w = 3
            chars = (rng.integers(0, 26, (n, 3)) + ord("A")).astype(np.uint8)
        else:
            w = 12
            x = rng.permutation(n).astype(np.int64)
            chars = np.empty((n, 12), dtype=np.uint8)
            for k in range(11, -1, -1):
                chars[:, k] = (x % 10 + ord("0")).astype(np.uint8)
                x //= 10
        chunks = []
        for s in range(0, n, BATCH):
            m = min(BATCH, n - s)
            offsets = np.arange(0, (m + 1) * w, w, dtype=np.int64)
            data = np.ascontiguousarray(chars[s:s + m]).reshape(-1)
            chunks.append(pa.LargeStringArray.from_buffers(m, pa.py_buffer(offsets), pa.py_buffer(data.tobytes())))
        return pa.chunked_array(chunks, pa.large_string())
    else:
        raise ValueError(kind)
    typ = pa.from_numpy_dtype(values.dtype)
    chunks = []
    for s in range(0, n, BATCH):
        part = values[s:s + BATCH]
        validity = pa.py_buffer(np.packbits(np.ones(len(part), dtype=bool), bitorder="little")) \
            if kind == "nulls" else None
        chunks.append(pa.Array.from_buffers(typ, len(part), [validity, pa.py_buffer(part)], null_count=-1))
    return pa.chunked_array(chunks, typ)


def fresh(col: Any) -> Any:
    """New array objects over the same buffers, with the null count unknown again."""
    import pyarrow as pa

    return pa.chunked_array([pa.Array.from_buffers(c.type, len(c), c.buffers(), null_count=-1, offset=c.offset)
                             for c in col.chunks], col.type)


def col_bytes(col: Any) -> int:
    return sum(b.size for c in col.chunks for b in c.buffers() if b is not None)


# ---- tools ----------------------------------------------------------------------------------------


def _weir_sdk(kind: str, col: Any, reps: int) -> tuple[list[float], str]:
    import pyarrow as pa
    from weir import _ffi

    lib = _ffi.load_library(None)
    text = f"contract:\n  name: bench\n  columns:\n    - {YAML[kind]}\n".encode()
    contract = ctypes.c_void_p()
    lib.call("weir_contract_parse", text, ctypes.c_size_t(len(text)), b"yaml", b"bench", ctypes.byref(contract))
    report: list[str] = []

    def run(i: int) -> None:
        table = pa.Table.from_arrays([fresh(col)], names=["x"])
        stream, keep = _ffi.export_stream(table)
        text_out, err = lib.call_out("weir_contract_validate", contract, stream, None)
        _ffi.release_stream(stream)
        del keep
        if err is not None:
            raise err
        doc = json.loads(text_out or "{}")
        if not doc.get("ok"):
            raise RuntimeError(f"weir found violations in valid data: {text_out[:300]}")
        report[:] = [text_out or ""]

    times = timed(run, reps)
    lib.fn("weir_contract_free")(contract)
    return times, ""


def _pyarrow(kind: str, col: Any, reps: int) -> tuple[list[float], str]:
    import pyarrow as pa
    import pyarrow.compute as pc

    def bad(mask: Any) -> int:
        return int(pc.sum(pc.invert(mask)).as_py() or 0)

    def run(c: Any) -> int:
        if kind == "passthrough":
            return 0 if c.type == pa.int64() else 1
        if kind == "cast_int":
            pc.cast(c, pa.int64())
            return 0
        if kind == "nulls":
            return c.null_count
        if kind == "enum_int":
            return bad(pc.is_in(c, value_set=pa.array([1, 2, 3], pa.int64())))
        if kind == "enum_string":
            return bad(pc.is_in(c, value_set=pa.array(WORDS, pa.large_string())))
        if kind == "range":
            return bad(pc.and_(pc.greater_equal(c, 0.0), pc.less_equal(c, 100.0)))
        if kind == "pattern":
            return bad(pc.match_substring_regex(c, "^[A-Z]{3}$"))
        if kind in ("unique", "unique_string"):
            return len(c) - pc.count_distinct(c).as_py()
        raise ValueError(kind)

    views: dict[int, Any] = {}

    def setup(i: int) -> None:
        views[0] = fresh(col)

    def go(i: int) -> None:
        if run(views[0]) != 0:
            raise RuntimeError(f"pyarrow found violations in valid data ({kind})")

    return timed(go, reps, setup=setup), ""


def _pandera(kind: str, col: Any, reps: int) -> tuple[list[float], str]:
    import pandera.polars as pp
    import polars as pl
    from pandera import Check

    df = pl.from_arrow(__import__("pyarrow").Table.from_arrays([col], names=["x"]), rechunk=False)
    c = {
        "passthrough": pp.Column(pl.Int64, nullable=True),
        "cast_int": pp.Column(pl.Int64, nullable=True, coerce=True),
        "nulls": pp.Column(pl.Int64, nullable=False),
        "enum_int": pp.Column(pl.Int64, Check.isin([1, 2, 3])),
        "enum_string": pp.Column(pl.Utf8, Check.isin(WORDS)),
        "range": pp.Column(pl.Float64, Check.in_range(0, 100)),
        "pattern": pp.Column(pl.Utf8, Check.str_matches("^[A-Z]{3}$")),
        "unique": pp.Column(pl.Int64, unique=True),
        "unique_string": pp.Column(pl.Utf8, unique=True),
    }[kind]
    schema = pp.DataFrameSchema({"x": c})
    return timed(lambda i: schema.validate(df, lazy=True), reps), ""


def _patito(kind: str, col: Any, reps: int) -> tuple[list[float], str]:
    import patito as pt
    import polars as pl

    df = pl.from_arrow(__import__("pyarrow").Table.from_arrays([col], names=["x"]), rechunk=False)

    if kind == "passthrough":
        class M(pt.Model):
            x: int | None = pt.Field(dtype=pl.Int64)
    elif kind == "cast_int":
        class M(pt.Model):  # type: ignore[no-redef]
            x: int | None = pt.Field(dtype=pl.Int64)
    elif kind == "nulls":
        class M(pt.Model):  # type: ignore[no-redef]
            x: int = pt.Field(dtype=pl.Int64)
    elif kind == "enum_int":
        class M(pt.Model):  # type: ignore[no-redef]
            x: int = pt.Field(dtype=pl.Int64, constraints=pl.col("x").is_in([1, 2, 3]))
    elif kind == "enum_string":
        class M(pt.Model):  # type: ignore[no-redef]
            x: str = pt.Field(constraints=pl.col("x").is_in(WORDS))
    elif kind == "range":
        class M(pt.Model):  # type: ignore[no-redef]
            x: float = pt.Field(ge=0, le=100)
    elif kind == "pattern":
        class M(pt.Model):  # type: ignore[no-redef]
            x: str = pt.Field(pattern="^[A-Z]{3}$")
    elif kind == "unique":
        class M(pt.Model):  # type: ignore[no-redef]
            x: int = pt.Field(dtype=pl.Int64, unique=True)
    else:
        class M(pt.Model):  # type: ignore[no-redef]
            x: str = pt.Field(unique=True)
    if kind == "cast_int":
        return timed(lambda i: M.validate(M.DataFrame(df).cast()), reps), "DataFrame.cast() then validate"
    return timed(lambda i: M.validate(df), reps), ""


def _weir_c(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    out = os.path.join(work, "bench_validate.json")
    _, rss, _ = run_timed([os.path.join(build_dir(), "bench_validate"), "--rows", str(u["rows"]), "--repeat",
                           str(max(1, u["reps"])), "--json", out], rss=True)
    with open(out, encoding="utf-8") as fh:
        doc = json.load(fh)
    rows = []
    for r in doc["results"]:
        if r["scenario"] not in KINDS:
            continue
        rw = row(SCENARIO, r["scenario"], size_label(u["rows"]), "weir-c", [r["seconds"]],
                 note=f"bench_validate, best of {u['reps']}",
                 throughput=f"{r['rows_per_s'] / 1e6:.0f} M rows/s, {r['gb_per_s']:.2f} GB/s",
                 rows_per_s=r["rows_per_s"], gb_per_s=r["gb_per_s"])
        rw["extra"]["peak_rss_mb"] = rss
        rows.append(rw)
    return rows


def run_unit(u: dict[str, Any], work: str) -> list[dict[str, Any]]:
    if u["tool"] == "weir-c":
        return _weir_c(u, work)
    fn = {"weir-sdk": _weir_sdk, "pyarrow": _pyarrow, "pandera": _pandera, "patito": _patito}[u["tool"]]
    n, reps = u["rows"], u["reps"]
    rows = []
    for kind in KINDS:
        col = make_column(kind, n)
        nbytes = col_bytes(col)
        times, note = fn(kind, col, reps)
        med = median(times)
        rows.append(row(SCENARIO, kind, size_label(n), u["tool"], times, ref=None if u["tool"] == "weir-sdk"
                        else "weir-sdk", note=note,
                        throughput=f"{n / med / 1e6:.0f} M rows/s, {nbytes / med / 1e9:.2f} GB/s",
                        rows_per_s=n / med, gb_per_s=nbytes / med / 1e9, bytes=nbytes))
        del col
    return rows
