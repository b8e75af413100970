/*
 * types.h -- weir's type system: the fixed set of column types a contract can declare,
 * their Arrow, Iceberg and DuckDB spellings, and the widening-cast rules.
 *
 * The table of types and casts is docs/types.md; this file is its single implementation.
 * Every other module (contracts, iceberg, engine, planner) asks here, so the three type
 * systems can never drift apart.
 */
#ifndef WEIR_TYPES_TYPES_H
#define WEIR_TYPES_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "weir.h"

typedef enum wr_type_id {
  WEIR_TYPE_INVALID = 0,
  WEIR_TYPE_BOOL,
  WEIR_TYPE_INT32,
  WEIR_TYPE_INT64,
  WEIR_TYPE_FLOAT32,
  WEIR_TYPE_FLOAT64,
  WEIR_TYPE_DECIMAL,
  WEIR_TYPE_STRING,
  WEIR_TYPE_BINARY,
  WEIR_TYPE_DATE32,
  WEIR_TYPE_DATE64,
  WEIR_TYPE_TS_US,      /* TimestampMicro     timestamp[us]          timestamp      */
  WEIR_TYPE_TS_NS,      /* TimestampNano      timestamp[ns]          timestamp_ns   */
  WEIR_TYPE_TS_US_UTC,  /* TimestampMicroUTC  timestamp[us, tz=UTC]  timestamptz    */
  WEIR_TYPE_TS_NS_UTC,  /* TimestampNanoUTC   timestamp[ns, tz=UTC]  timestamptz_ns */
  WEIR_TYPE_ANY         /* any Arrow type; checked for presence and nulls only    */
} wr_type_id;

/* A weir type. precision and scale are used by WEIR_TYPE_DECIMAL only (1 <= p <= 38,
 * 0 <= s <= p) and are 0 otherwise. */
typedef struct weir_type {
  wr_type_id id;
  int precision;
  int scale;
} weir_type;

#define WEIR_TYPE_NAME_MAX 64

/*
 * Parses a declared type: a weir name ("Int64", "Decimal(18, 2)", exact case) or a SQL
 * alias (case-insensitive): BIGINT/INT8/LONG = Int64, INT/INTEGER/INT4 = Int32,
 * DOUBLE/FLOAT8 = Float64, FLOAT/REAL/FLOAT4 = Float32, STRING/VARCHAR/TEXT = String,
 * BOOLEAN/BOOL = Bool, BLOB/BYTEA/BINARY/VARBINARY = Binary, DATE = Date32,
 * TIMESTAMP = TimestampMicro, TIMESTAMPTZ/"TIMESTAMP WITH TIME ZONE" = TimestampMicroUTC,
 * DECIMAL(p,s)/NUMERIC(p,s). Returns false and writes the reason into `why` when the
 * text is not a type.
 */
bool wr_type_parse(const char *text, weir_type *out, char *why, size_t why_size);

/* The weir name: "Int64", "Decimal(18, 2)". */
void wr_type_name(weir_type t, char *out, size_t size);
/* The Arrow type name, as Arrow prints it: "int64", "large_string", "decimal128(18, 2)",
 * "timestamp[us, tz=UTC]", "any" for Any. */
void wr_type_arrow_name(weir_type t, char *out, size_t size);
/* The Arrow C Data Interface format string: "l", "U", "d:18,2", "tsu:UTC". Any has none
 * (returns false). */
bool wr_type_arrow_format(weir_type t, char *out, size_t size);
/* The Iceberg type: "long", "decimal(18, 2)", "timestamptz". False for Date64 and Any,
 * which have no Iceberg type of their own. */
bool wr_type_iceberg_name(weir_type t, char *out, size_t size);
/* The DuckDB SQL type: "BIGINT", "DECIMAL(18,2)", "TIMESTAMP WITH TIME ZONE". False for
 * Any. */
bool wr_type_duckdb_name(weir_type t, char *out, size_t size);
/* Parses an Iceberg primitive type name back into a weir type. */
bool wr_type_from_iceberg(const char *name, weir_type *out);
/* True when two types are the same (ids, and precision/scale for decimals). */
bool wr_type_equal(weir_type a, weir_type b);

/*
 * The exact weir type of an Arrow format string, if it has one (e.g. "l" -> Int64,
 * "U" -> String; "u" (32-bit offsets string) has none, it is cast to String).
 */
bool wr_type_from_arrow_format(const char *format, weir_type *out);

/* Arrow's printed name of a field's type, for messages: "int64", "string",
 * "large_string", "timestamp[ms, tz=Europe/Paris]", "dictionary<values=string,
 * indices=int32>", "list<item: int64>". */
void wr_arrow_type_name(const struct ArrowSchema *field, char *out, size_t size);
/* Same, from a bare format string (no children). */
void wr_arrow_format_name(const char *format, char *out, size_t size);

typedef enum wr_cast_kind {
  WEIR_CAST_EXACT = 0,  /* already the declared type */
  WEIR_CAST_WIDEN = 1,  /* a lossless cast exists and will be applied */
  WEIR_CAST_REFUSE = 2  /* would lose or change values: a contract violation */
} wr_cast_kind;

/*
 * Can data of Arrow type `field` (format, plus dictionary child) be given the declared
 * type `target` without changing any value? See docs/types.md for the table. Dictionary
 * arrays are judged by their value type. When the answer is REFUSE and `narrowing` is not
 * NULL, *narrowing is set when the cast would be a numeric narrowing (e.g. int64 to
 * int32), so messages can say so.
 */
wr_cast_kind wr_cast_check(const struct ArrowSchema *field, weir_type target,
                               bool *narrowing);
/* The same decision from a format string alone (no dictionary). */
wr_cast_kind wr_cast_check_format(const char *format, weir_type target, bool *narrowing);

/*
 * The narrowing casts a column declared with cast "exact" applies, value by value (a
 * value that does not convert exactly is a violation): pairs wr_cast_check refuses
 * for which an exact conversion is defined (docs/types.md, "Exact casts"):
 *   integers and floats -> Int32, Int64 (integral and in range); integers -> Float32,
 *   Float64 and double -> Float32 (the value converts back unchanged); decimal128 ->
 *   Decimal(p, s) and -> Int32, Int64 (no digit lost, in range); a timestamp to a coarser
 *   unit, zones unchanged (a whole number of the coarser unit); date64 -> Date32 (at
 *   midnight). True only for pairs that are not already exact or widening. Dictionary
 *   arrays are not cast exactly (wr_cast_exact says false).
 */
bool wr_cast_exact_format(const char *format, weir_type target);
bool wr_cast_exact(const struct ArrowSchema *field, weir_type target);
/* The same for two declared types (plan time): `from` data feeding a `to` column that is
 * declared cast "exact". */
bool wr_type_compose_exact(weir_type from, weir_type to);

/* Plan-time composition: can a column declared `from` by a producer feed a column
 * declared `to` by a consumer? EXACT, WIDEN or REFUSE by the same table. */
wr_cast_kind wr_type_compose(weir_type from, weir_type to);

/* The weir type DuckDB's type name maps to (for types a SQL model infers or a reader
 * infers on import): BIGINT -> Int64, VARCHAR -> String, DOUBLE -> Float64, ... Types
 * without a weir name (TINYINT, HUGEINT, LIST, STRUCT, ...) set *out to the closest
 * weir type data would widen to and return false; callers treat false as "has no exact
 * weir type". */
bool wr_type_from_duckdb(const char *duckdb_type, weir_type *out);

#endif
