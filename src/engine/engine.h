/*
 * engine.h -- the embedded SQL engine (DuckDB, through its C API): queries, Arrow in and
 * out without copies where DuckDB allows, Parquet files with Iceberg field ids and
 * statistics, reading CSV/Parquet/JSON-lines files, and SQL analysis (which tables a
 * query reads, what types it returns) for planning.
 *
 * One wr_engine is one in-memory DuckDB database with one connection; it is used by one
 * thread at a time (DuckDB itself runs a query on several threads). All SQL errors come
 * back as WEIR_EENGINE with DuckDB's message, prefixed by what weir was doing.
 */
#ifndef WEIR_ENGINE_ENGINE_H
#define WEIR_ENGINE_ENGINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arrow/arrow.h"
#include "types/schema.h"
#include "util/error.h"

typedef struct wr_engine wr_engine;

typedef struct wr_engine_options {
  int threads;              /* 0 = DuckDB's default (all cores) */
  const char *memory_limit; /* e.g. "4GB"; NULL = DuckDB's default */
  const char *temp_dir;     /* spill folder; NULL = DuckDB's default */
  const char *library;      /* libduckdb.so to load; NULL = the default lookup. One per
                               process: another path than the loaded one is refused */
} wr_engine_options;

/* Opens an in-memory engine: TimeZone UTC, no extension auto-install or auto-load (the
 * machine may have no internet; parquet and json are built in). opts may be NULL. */
int wr_engine_open(const wr_engine_options *opts, wr_engine **out, weir_error *err);
void wr_engine_close(wr_engine *e);

/* The DuckDB connection, for modules that need the C API directly (a duckdb_connection,
 * returned as void * so that this header does not require duckdb.h). */
void *wr_engine_connection(wr_engine *e);

/* Asks the statement running on the engine's connection to stop (duckdb_interrupt): it
 * fails soon after with DuckDB's "Interrupted" error. Safe to call from another thread
 * while a statement runs (the only call on an engine that is); not from a signal handler.
 * A call while no statement runs may stop the next one, so callers call it only while
 * theirs runs. */
void wr_engine_interrupt(wr_engine *e);

/* From now on, SQL run by this engine may read and write files only inside `dirs`
 * (DuckDB's allowed_directories with external access off, configuration locked). Used
 * before running SQL that comes from users or models: a query over the lake must not be
 * a way to read /etc/passwd or write next to it. Cannot be undone. */
int wr_engine_restrict_files(wr_engine *e, const char *const *dirs, size_t n, weir_error *err);

/* Lets the engine read and write the object-store warehouse `prefix` ("s3://bucket/p"):
 * loads DuckDB's httpfs extension from a known folder ($WEIR_DUCKDB_EXTENSION_DIR, else
 * the pinned copy the build was configured with, .deps/duckdb/extensions) -- never a
 * download -- and creates a temporary secret scoped to `prefix` from the S3 credentials
 * resolved by src/storage (the same endpoint, region and keys the metadata requests
 * use). Call before wr_engine_restrict_files. Errors: WEIR_EENGINE naming the extension
 * file when it is missing or refused; WEIR_EIO when no credentials are found. */
int wr_engine_connect_warehouse(wr_engine *e, const char *prefix, weir_error *err);

/* Runs one or more statements, discarding results. */
int wr_engine_exec(wr_engine *e, const char *sql, weir_error *err);

/* Runs a query and returns its result as an Arrow stream (the caller releases it). Rows
 * are produced as DuckDB computes them; each batch is converted once from DuckDB's
 * vectors to Arrow (the only copy on the way out). Strings come as large_string ("U").
 * The stream holds a reference on the engine (wr_engine_close may come first). Any
 * other call on the engine while the stream is open first moves the stream's remaining
 * rows into memory (DuckDB allows one open result per connection). */
int wr_engine_query_stream(wr_engine *e, const char *sql, struct ArrowArrayStream *out,
                             weir_error *err);
/* Same, materialised into a table. */
int wr_engine_query_table(wr_engine *e, const char *sql, wr_arrow_table *out,
                            weir_error *err);
/* Small results as JSON: an array of row objects with values as JSON numbers, strings,
 * booleans or null (other types as their text). For metadata queries, not data. */
int wr_engine_query_json(wr_engine *e, const char *sql, json_t **out, weir_error *err);
/* The single value of a one-row, one-column query as a double (*is_null set on NULL). */
int wr_engine_query_double(wr_engine *e, const char *sql, double *out, bool *is_null,
                             weir_error *err);

/* Makes `table` queryable as `name` (a view over a table function that scans the
 * table's batches in place: fixed-width columns are not copied). "ns.name" creates the
 * view in schema ns ("default.name" also answers to the bare name); registering a name
 * again replaces it. The registration holds its own references on the table's batches,
 * so the caller may release its table; the buffers must not be modified until
 * wr_engine_unregister(name) or wr_engine_close. */
int wr_engine_register_arrow(wr_engine *e, const char *name, const wr_arrow_table *table,
                               weir_error *err);
int wr_engine_unregister(wr_engine *e, const char *name, weir_error *err);

/* ---- files ------------------------------------------------------------------------- */

typedef enum wr_file_format {
  WEIR_FORMAT_AUTO = 0,   /* from the extension: .csv/.tsv, .parquet, .jsonl/.ndjson/.json */
  WEIR_FORMAT_CSV,
  WEIR_FORMAT_PARQUET,
  WEIR_FORMAT_JSONL
} wr_file_format;

/* Parses "csv" (or "tsv"), "parquet", "jsonl"/"json"/"ndjson" (any case); false if
 * unknown. */
bool wr_file_format_parse(const char *name, wr_file_format *out);

/* Reads a data file into a table with the types DuckDB's readers infer. CSV is read
 * strictly: a row with too many or too few fields is an error naming the file and its
 * line number (WEIR_EINPUT), as are unterminated quotes and invalid UTF-8; nothing is
 * skipped silently. CSV is comma-separated (tab for .tsv) with RFC 4180 quoting; an empty
 * file gives a table with no columns. Errors: WEIR_ENOTFOUND, WEIR_EINPUT,
 * WEIR_EINVALIDARG (unknown extension), WEIR_EENGINE. */
int wr_engine_read_file(wr_engine *e, const char *path, wr_file_format format,
                          wr_arrow_table *out, weir_error *err);

/* Like wr_engine_read_file, with declared column types: CSV values of a column named in
 * `hint` are parsed straight into its type (so text is never inferred as one type and
 * then refused as a narrowing to another); other formats carry their own types and
 * ignore the hint. A value that does not parse is an error naming file and line. */
int wr_engine_read_file_typed(wr_engine *e, const char *path, wr_file_format format,
                                const wr_schema *hint, wr_arrow_table *out, weir_error *err);

/* How a file is read: declared types and, for CSV, the dialect. Zero = the default of each
 * field. */
typedef struct wr_read_options {
  const wr_schema *hint;        /* declared column types (see wr_engine_read_file_typed) */
  char delimiter;               /* CSV field separator; 0 = tab for .tsv, else comma */
  char quote;                   /* CSV quote character (escaped by doubling); 0 = '"' */
  const char *date_format;      /* CSV: strptime format of date values ("%d/%m/%Y"); NULL = ISO
                                   dates, or another unambiguous format DuckDB detects */
  const char *timestamp_format; /* CSV: the same for timestamps */
  long long max_line_size;      /* CSV: longest line in bytes; 0 = DuckDB's default (2 MiB) */
  json_t *warnings;             /* optional, borrowed: an array that receives warnings (strings)
                                   about the file, e.g. a likely delimiter of a one-column CSV */
} wr_read_options;

/* wr_engine_read_file with options (NULL = defaults). CSV values are read exactly or
 * refused, never silently changed: integers beyond Int64 become Decimal(38, 0) when they
 * fit (else WEIR_EINPUT naming column and line), a date whose day and month can be read
 * either way is refused unless date_format says which, a quoted "" is an empty string
 * (only an empty unquoted field is NULL). */
int wr_engine_read_file_opts(wr_engine *e, const char *path, wr_file_format format,
                             const wr_read_options *opts, wr_arrow_table *out, weir_error *err);

/* One Parquet file written by wr_engine_write_parquet. */
typedef struct wr_parquet_file {
  char *path;            /* absolute */
  int64_t record_count;
  int64_t file_size;
  json_t *column_stats;  /* {"col": {"min": text, "max": text, "null_count": n,
                            "num_values": n, "column_size_bytes": n, "has_nan": bool}}
                            keyed by column name; values missing when unknown */
} wr_parquet_file;

void wr_parquet_files_free(wr_parquet_file *v, size_t n);

/* Writes the result of `select_sql` to one or more Parquet files in folder `dir` (created
 * if missing), named <uuid>.parquet (several when the data is large: about
 * `target_file_bytes` each, 0 = 512 MiB), with the Iceberg field id of each top-level
 * column (`columns[i]` gets `field_ids[i]`; every result column must be listed), zstd
 * compression, and per-file statistics. Files appear atomically (written under a
 * temporary name, then renamed). */
int wr_engine_write_parquet(wr_engine *e, const char *select_sql, const char *dir,
                              const char *const *columns, const int32_t *field_ids,
                              size_t n_columns, int64_t target_file_bytes,
                              wr_parquet_file **out, size_t *n_out, weir_error *err);

/* ---- SQL analysis (planning; reads no data) ------------------------------------------ */

/* A table a query reads: as written ("titanic", "raw.orders"), CTE names excluded. */
typedef struct wr_sql_table_ref {
  char *schema;   /* NULL when unqualified */
  char *name;
  int line;       /* 1-based position in the SQL text where known, else 0 */
  int column;
} wr_sql_table_ref;

void wr_sql_table_refs_free(wr_sql_table_ref *v, size_t n);

/* The conditions `sql` puts on each base table it reads (sql_filters.c): a JSON array of
 * {"schema": S|null, "name": N, "count": references, "filters": [{"column", "op":
 * "eq"|"lt"|"le"|"gt"|"ge"|"in"|"is_null"|"not_null", "values": [{"value": text, "kind":
 * "string"|"integer"|"boolean", "cast": TYPE|null}]}]}, each filter implied by the query's
 * WHERE for rows of that table. An unparsable query gives an empty array. *out: new
 * reference. */
int wr_engine_sql_filters(wr_engine *e, const char *sql, json_t **out, weir_error *err);

/* Is `sql` one SQL expression over a row (`expression`: it is parsed as "SELECT <sql>",
 * which must be one SELECT with one item and no FROM, WHERE, GROUP BY, HAVING, QUALIFY,
 * WITH, ORDER BY or LIMIT), or one SELECT statement? By DuckDB's own parser, so quotes of
 * every kind ($$...$$, E'...') and comments are read as the engine reads them. Contract
 * SQL is pasted into weir's own queries: "a > 5) OR (true" or a second statement would
 * change them. WEIR_EINPUT with a message completing "is not one SQL expression" /
 * "is not one SELECT statement". Runs nothing. */
int wr_engine_sql_shape(wr_engine *e, const char *sql, bool expression, weir_error *err);

/* The parse tree of one SQL expression over a row: the select item of "SELECT <sql>" as
 * DuckDB's json_serialize_sql gives it ({class, type, children | left/right, ...}; numbers
 * decoded as reals). *out a new reference. Errors: WEIR_EINPUT (does not parse). Runs
 * nothing. Callers check the shape first (wr_engine_sql_shape). */
int wr_engine_sql_expression_tree(wr_engine *e, const char *sql, json_t **out, weir_error *err);

/* The tables `sql` reads, found with DuckDB's own parser (json_serialize_sql), in order of
 * first appearance, without duplicates. Errors: WEIR_EINPUT with the parser's message and
 * position (a syntax error), WEIR_EUNSUPPORTED for statements other than one SELECT. */
int wr_engine_sql_tables(wr_engine *e, const char *sql, wr_sql_table_ref **out,
                           size_t *n, weir_error *err);

/* The columns `sql` (one SELECT, or with `expression` one expression over a row) refers to
 * by name, by DuckDB's parser: *names a new array of distinct names (first spelling kept,
 * compared case-insensitively, as SQL folds them), *star set when it selects `*` (every
 * column of some input). Over-approximates per table: a name is not resolved to the table
 * that holds it. Errors: WEIR_EINPUT (does not parse). Runs nothing. */
int wr_engine_sql_columns(wr_engine *e, const char *sql, bool expression, json_t **names, bool *star,
                          weir_error *err);

/* An input a query may name: `name` (and `schema`, NULL for the default), with columns. */
typedef struct wr_sql_input {
  const char *schema;
  const char *name;
  const wr_schema *columns; /* required flags are the declared nullability */
  bool unknown_nullable;    /* a column not required is of unknown nullability (an input
                               whose schema was inferred), not nullable */
} wr_sql_input;

/* Which output columns of one SELECT can be NULL, by DuckDB's parser and the inputs'
 * declared nullability (the rules are at the function, sql_analysis.c). *out: a new
 * array, one entry per output column in order: {column, state: "non-null" | "nullable"
 * | "unknown"} plus, when nullable, {expression (the select-list item, rendered), why,
 * line, column_number (where the nullable value comes from, 1-based in `sql`; null when
 * unknown)}; *out NULL when the query is not one the analysis follows (a set operation,
 * SELECT * over an input it does not know, ...). Errors: WEIR_EINPUT (does not parse). */
int wr_engine_sql_nullability(wr_engine *e, const char *sql, const wr_sql_input *inputs, size_t n_inputs,
                              json_t **out, weir_error *err);

/* The narrowing CASTs of one SELECT (docs/engine.md, "Checked casts"): explicit CAST (or
 * `::`) expressions, found by DuckDB's parser, whose operand's type DuckDB's binder (the
 * unoptimised logical plan, json_serialize_plan) gives, and whose target holds fewer
 * values: nanoseconds to microseconds and coarser timestamps, timestamps to dates,
 * floating point or decimals to integers, DOUBLE to FLOAT, a decimal to fewer digits or a
 * smaller scale, an integer to a smaller integer or an unsigned one, VARCHAR to any other
 * type. TRY_CAST and weir_checked_cast are not narrowing casts here (they say what
 * happens to a value that does not fit). *out: a new array of {line, column_number (1-based
 * in `sql`), expression and operand (rendered), from, to (DuckDB type names), why}, in the order of
 * the text; empty when the query does not bind (the caller reports that) or the plan
 * cannot be serialised. Errors: WEIR_EINPUT (does not parse). Runs nothing. */
int wr_engine_sql_casts(wr_engine *e, const char *sql, json_t **out, weir_error *err);

/* Creates an empty table `ns.name` (schema created if missing) with the columns of
 * `schema` (weir types mapped to DuckDB types, NOT NULL for required columns), so that
 * queries can be planned against it without data. */
int wr_engine_create_empty(wr_engine *e, const char *ns, const char *name,
                             const wr_schema *schema, weir_error *err);

/* The result columns of `sql` as DuckDB infers them without running it: names and weir
 * types (a DuckDB type without a weir name gives WEIR_TYPE_ANY with the DuckDB type name
 * in the field's doc). `required` is set when DuckDB can prove non-null, else false. */
int wr_engine_describe(wr_engine *e, const char *sql, wr_schema *out, weir_error *err);

/* ---- lake tables as views ------------------------------------------------------------- */

/* Creates view `ns.name` over Parquet files (or an empty typed view when n_files is 0),
 * exposing exactly the columns of `schema` by name. For the default namespace the view
 * also answers to the bare name. */
int wr_engine_attach_table(wr_engine *e, const char *ns, const char *name,
                             const wr_schema *schema, const char *const *files,
                             size_t n_files, weir_error *err);
/* The same; with `probe_ids`, the files' footers are read first and files without Iceberg
 * field ids are matched to the schema's columns by name (the table's name mapping, see
 * attach.c), the others by field id. A file with ids for only some of its columns is
 * WEIR_EINPUT naming the file and a column. Use it for tables that have the property
 * schema.name-mapping.default. */
int wr_engine_attach_table_probed(wr_engine *e, const char *ns, const char *name, const wr_schema *schema,
                                  const char *const *files, size_t n_files, bool probe_ids, weir_error *err);

/* ---- SQL of other dialects (dialect.c) -------------------------------------------------- */

/* A hint for SQL written in another engine's dialect, when `message` (the engine's error
 * for `sql`) comes from it: today, a date function whose unit is a bare word
 * (DATEDIFF(hour, a, b) in Spark, Databricks, SQL Server, Snowflake), which DuckDB reads
 * as a column. The hint names the call and gives DuckDB's spelling (date_diff('hour', a,
 * b)). NULL when there is nothing to say. Caller frees. */
char *wr_sql_dialect_hint(const char *sql, const char *message);
/* Appends that hint to err->message, on a line of its own ("\n    hint: ..."), if any. */
void wr_error_add_dialect_hint(weir_error *err, const char *sql);

/* Quotes an identifier for SQL ("a""b"). Caller frees. */
char *wr_sql_ident(const char *name);
/* Quotes a string literal for SQL ('it''s'). Caller frees. */
char *wr_sql_string(const char *s);

#endif
