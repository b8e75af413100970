/*
 * engine_internal.h -- what the engine's files share: the engine struct, error wording,
 * the stream hand-off, SQL preparation and the Arrow scan's building blocks. Not for
 * other modules (they use engine.h).
 */
#ifndef WEIR_ENGINE_INTERNAL_H
#define WEIR_ENGINE_INTERNAL_H

#include <duckdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "engine/engine.h"
#include "util/buf.h"

typedef struct arrow_reg arrow_reg;
typedef struct engine_stream engine_stream;

/* One registered Arrow table: the view that answers to it and the registration the table
 * function binds to (by id, so that SQL can never name memory directly). */
typedef struct reg_entry {
  char *schema;   /* DuckDB schema of the view ("main" for a bare name) */
  char *name;
  bool alias;     /* schema "default": a view of the same name in main as well */
  int64_t id;
  arrow_reg *reg;
} reg_entry;

struct wr_engine {
  duckdb_database db;
  duckdb_connection conn;
  /* The engine is freed when the last of its owner and its open streams lets go, so a
   * stream returned to a caller stays readable after wr_engine_close. */
  atomic_int refs;
  /* Guards the registry (the table function reads it from DuckDB's threads while binding)
   * and the hand-off of the connection between a stream and the next statement. */
  pthread_mutex_t mu;
  reg_entry *regs;
  size_t n_regs, cap_regs;
  int64_t next_reg_id;
  /* The stream still reading results from `conn`, or NULL. DuckDB allows one pending
   * result per connection; any other statement first settles it (see settle). */
  engine_stream *active;
};

/* ---- duckdb_loader.c ------------------------------------------------------------------ */

/* Loads DuckDB's library and resolves the functions libweir calls, once per process
 * (thread-safe). WEIR_EENGINE naming the library and the reason when it cannot. Every
 * entry point that may run DuckDB calls it first; see duckdb_loader.c for why. */
int wr_duckdb_load(const char *library, weir_error *err);

/* ---- engine.c ------------------------------------------------------------------------- */

void wr_eng_ref(wr_engine *e);
void wr_eng_unref(wr_engine *e);
/* Moves the rest of the active stream (if any) into memory so that the connection is free
 * for another statement. Every entry point calls it first. */
void wr_eng_settle(wr_engine *e);

/* Fills err with `code` and "<what>: <DuckDB's message>", where DuckDB's message is cut to
 * its first line (DuckDB appends the SQL text and a caret on further lines); when the SQL
 * has several lines, the line DuckDB pointed at is added. Returns code. */
int wr_eng_fail(weir_error *err, int code, const char *duck_msg, const char *sql,
                  const char *what_fmt, ...) WEIR_PRINTF(5, 6);
/* Runs statements on the engine's connection (already settled); no result. `what` prefixes
 * errors. */
int wr_eng_run(wr_engine *e, const char *sql, const char *what, weir_error *err);

/* ---- quote.c -------------------------------------------------------------------------- */

/* The SQL text DuckDB is given for user SQL: `default.x` (the default namespace, whose
 * name is a reserved word in DuckDB's grammar) becomes `"default".x`. Strings, quoted
 * identifiers and comments are left alone. Caller frees. When `map` is not NULL it
 * receives, for every byte offset of the result, the offset in `sql` it came from
 * (caller frees), so that positions DuckDB reports can be mapped back. */
char *wr_eng_sql_text(const char *sql, size_t **map);
/* DuckDB's AST of `text` (json_serialize_sql), parsed; integers arrive as reals
 * (sql_analysis.c). */
int wr_eng_sql_serialize(wr_engine *e, const char *text, json_t **out, weir_error *err);
/* Appends a quoted identifier / string literal to b. */
void wr_eng_put_ident(wr_buf *b, const char *name);
void wr_eng_put_string(wr_buf *b, const char *s);
/* Splits "ns.name" into a DuckDB schema and a name: a name without a dot lives in main. */
void wr_eng_split_name(const char *qualified, char **schema, char **name);

/* ---- export.c ------------------------------------------------------------------------- */

/* Detaches a stream from the connection after reading everything it has left (called by
 * wr_eng_settle with e->mu held). */
void wr_eng_stream_drain(engine_stream *s);
/* Runs a query into a table. `user`: SQL from a caller (rewritten as wr_eng_sql_text
 * says); otherwise SQL weir built. Errors: WEIR_EENGINE, "<what>: <DuckDB's message>";
 * raw_error (may be NULL) then receives DuckDB's whole message (caller frees). */
int wr_eng_query_table(wr_engine *e, const char *sql, bool user, const char *what,
                         wr_arrow_table *out, char **raw_error, weir_error *err);

/* ---- duck_types.c --------------------------------------------------------------------- */

/* DuckDB's name of a logical type, as DESCRIBE prints it ("BIGINT", "DECIMAL(18,2)",
 * "TIMESTAMP WITH TIME ZONE", "INTEGER[]", "STRUCT(a INTEGER)"). Caller frees. */
char *wr_eng_type_name(duckdb_logical_type t);

/* ---- arrow_scan.c --------------------------------------------------------------------- */

/* Registers the wr_arrow_scan table function on the engine's connection. */
int wr_eng_scan_install(wr_engine *e, weir_error *err);
/* Installs weir_bucket and weir_bucket_decimal (bucket.c). */
int wr_eng_bucket_install(wr_engine *e, weir_error *err);
/* Drops every registration (engine teardown). */
void wr_eng_scan_clear(wr_engine *e);

/* Converts rows [start, start + len) of column `col` of batch `b` (len <= the vector size)
 * into a one-column DuckDB chunk, through duckdb_data_chunk_from_arrow and without copying
 * fixed-width data: the chunk's vector points into the batch's buffers and holds a
 * reference on the batch. `conv` is the converted schema of a struct with that column
 * alone. On failure returns NULL and sets *errmsg (caller frees). Exposed for the scan and
 * for tests that check where the vector's data lives. */
duckdb_data_chunk wr_eng_arrow_slice(duckdb_connection conn, wr_arrow_batch *b, int64_t col,
                                       duckdb_arrow_converted_schema conv, int64_t start,
                                       int64_t len, char **errmsg);
/* The converted schema of a struct holding field `field` alone. NULL with *errmsg set when
 * DuckDB cannot read the type. */
duckdb_arrow_converted_schema wr_eng_arrow_convert_field(duckdb_connection conn,
                                                           const struct ArrowSchema *field,
                                                           char **errmsg);

#endif
