/*
 * export.c -- query results out of DuckDB as Arrow.
 *
 * A query runs as a streaming result (duckdb_pending_prepared_streaming): DuckDB computes
 * a chunk when the consumer asks for the next batch, and each chunk is converted once by
 * duckdb_data_chunk_to_arrow into an Arrow array that owns its buffers. That conversion is
 * the one copy on the way out: DuckDB's vectors (string_t headers, 64-bit validity masks,
 * buffer-managed memory that is reused for the next chunk) are not Arrow's layout and do
 * not outlive the chunk. The batches then move to the caller without further copies.
 * Batches are the size of DuckDB's chunks (at most 2048 rows), the unit every consumer in
 * weir (validator, Arrow scan, Parquet writer) processes anyway.
 *
 * DuckDB allows one open result per connection and the engine has one connection, so an
 * open stream is the engine's `active` stream. A statement run on the engine while a
 * stream is still open first settles it: the rest of its rows are converted into memory
 * and the stream goes on serving them from there. Results therefore never break because
 * of the order in which callers interleave work, at the cost of memory in that case only.
 */
#include "engine/engine_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct engine_stream {
  wr_engine *e;               /* holds a reference */
  duckdb_result result;
  bool attached;                /* result still open on e->conn */
  duckdb_arrow_options opts;
  struct ArrowSchema schema;
  struct ArrowArray *queue;     /* batches drained by a settle, served first */
  size_t q_head, q_len, q_cap;
  char *error;                  /* set once reading failed; reported after the queue */
  char *what;                   /* what failed, in error messages ("cannot run query") */
  char *raw_error;              /* DuckDB's whole message, for callers that parse it */
};

/* With e->mu held. */
static void detach(engine_stream *s) {
  if (!s->attached) return;
  duckdb_destroy_result(&s->result);
  s->attached = false;
  if (s->e->active == s) s->e->active = NULL;
}

/* Reads the next non-empty chunk as Arrow. With e->mu held. Returns 0 and sets out (or
 * out->release NULL at the end), or EIO with s->error set. */
static int fetch_locked(engine_stream *s, struct ArrowArray *out) {
  memset(out, 0, sizeof *out);
  while (s->attached) {
    duckdb_data_chunk ch = duckdb_fetch_chunk(s->result);
    if (!ch) {
      const char *m = duckdb_result_error(&s->result);
      if (m) {
        weir_error tmp = {0};
        wr_eng_fail(&tmp, WEIR_EENGINE, m, NULL, "%s", s->what);
        s->raw_error = wr_strdup(m);
        s->error = tmp.message;
        tmp.message = NULL;
        weir_error_clear(&tmp);
      }
      detach(s);
      return s->error ? EIO : 0;
    }
    if (duckdb_data_chunk_get_size(ch) == 0) {
      duckdb_destroy_data_chunk(&ch);
      continue;
    }
    duckdb_error_data ed = duckdb_data_chunk_to_arrow(s->opts, ch, out);
    duckdb_destroy_data_chunk(&ch);
    if (ed) {
      s->error = wr_asprintf("%s: cannot convert the results to Arrow: %s", s->what,
                               duckdb_error_data_message(ed));
      duckdb_destroy_error_data(&ed);
      if (out->release) out->release(out);
      memset(out, 0, sizeof *out);
      detach(s);
      return EIO;
    }
    return 0;
  }
  return s->error ? EIO : 0;
}

void wr_eng_stream_drain(engine_stream *s) {
  while (s->attached) {
    struct ArrowArray a;
    if (fetch_locked(s, &a) != 0 || !a.release) break;
    if (s->q_head + s->q_len == s->q_cap) {
      s->q_cap = s->q_cap ? s->q_cap * 2 : 64;
      s->queue = wr_realloc(s->queue, s->q_cap * sizeof *s->queue);
    }
    s->queue[s->q_head + s->q_len++] = a;
  }
}

static int next_batch(engine_stream *s, struct ArrowArray *out) {
  /* Under the lock: a settle on the engine's thread may be moving rows into the queue. */
  pthread_mutex_lock(&s->e->mu);
  int rc = 0;
  if (s->q_len) {
    *out = s->queue[s->q_head++];
    s->q_len--;
  } else {
    rc = fetch_locked(s, out);
  }
  pthread_mutex_unlock(&s->e->mu);
  return rc;
}

static void stream_free(engine_stream *s) {
  pthread_mutex_lock(&s->e->mu);
  detach(s);
  pthread_mutex_unlock(&s->e->mu);
  for (size_t i = 0; i < s->q_len; i++) {
    struct ArrowArray *a = &s->queue[s->q_head + i];
    if (a->release) a->release(a);
  }
  free(s->queue);
  if (s->schema.release) s->schema.release(&s->schema);
  duckdb_destroy_arrow_options(&s->opts);
  free(s->error);
  free(s->what);
  free(s->raw_error);
  wr_engine *e = s->e;
  free(s);
  wr_eng_unref(e);
}

/* Runs `sql` (user SQL when `user`, which gets weir's rewrite; else SQL weir wrote) and
 * returns an attached stream. Errors say "<what>: <DuckDB's message>". */
static int stream_open(wr_engine *e, const char *sql, bool user, const char *what,
                       engine_stream **out, char **raw, weir_error *err) {
  *out = NULL;
  wr_eng_settle(e);
  char *text = user ? wr_eng_sql_text(sql, NULL) : wr_strdup(sql);
  duckdb_prepared_statement ps = NULL;
  duckdb_pending_result pending = NULL;
  duckdb_result res;
  int rc = WEIR_OK;
  bool have_res = false;
  if (duckdb_prepare(e->conn, text, &ps) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_prepare_error(ps), sql, "%s", what);
    if (raw) *raw = wr_strdup(duckdb_prepare_error(ps) ? duckdb_prepare_error(ps) : "");
    goto done;
  }
  if (duckdb_pending_prepared_streaming(ps, &pending) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_pending_error(pending), sql, "%s", what);
    if (raw) *raw = wr_strdup(duckdb_pending_error(pending) ? duckdb_pending_error(pending) : "");
    goto done;
  }
  have_res = true;
  if (duckdb_execute_pending(pending, &res) == DuckDBError) {
    rc = wr_eng_fail(err, WEIR_EENGINE, duckdb_result_error(&res), sql, "%s", what);
    if (raw) *raw = wr_strdup(duckdb_result_error(&res) ? duckdb_result_error(&res) : "");
    goto done;
  }

  engine_stream *s = wr_calloc(1, sizeof *s);
  s->what = wr_strdup(what);
  s->result = res;
  s->attached = true;
  have_res = false;
  s->opts = duckdb_result_get_arrow_options(&s->result);
  idx_t n = duckdb_column_count(&s->result);
  duckdb_logical_type *types = wr_calloc(n ? n : 1, sizeof *types);
  const char **names = wr_calloc(n ? n : 1, sizeof *names);
  for (idx_t i = 0; i < n; i++) {
    types[i] = duckdb_column_logical_type(&s->result, i);
    names[i] = duckdb_column_name(&s->result, i);
  }
  duckdb_error_data ed = duckdb_to_arrow_schema(s->opts, types, names, n, &s->schema);
  for (idx_t i = 0; i < n; i++) duckdb_destroy_logical_type(&types[i]);
  free(types);
  free(names);
  wr_eng_ref(e);
  s->e = e;
  if (ed) {
    rc = wr_seterr(err, WEIR_EENGINE, "%s: cannot convert the result types to Arrow: %s", what,
                     duckdb_error_data_message(ed));
    duckdb_destroy_error_data(&ed);
    memset(&s->schema, 0, sizeof s->schema);
    stream_free(s);
    goto done;
  }
  pthread_mutex_lock(&e->mu);
  e->active = s;
  pthread_mutex_unlock(&e->mu);
  *out = s;
done:
  if (have_res) duckdb_destroy_result(&res);
  duckdb_destroy_pending(&pending);
  duckdb_destroy_prepare(&ps);
  free(text);
  return rc;
}

/* ---- the C stream interface ------------------------------------------------------------ */

static int cs_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
  engine_stream *s = st->private_data;
  wr_arrow_schema_copy(&s->schema, out);
  return 0;
}

static int cs_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
  return next_batch(st->private_data, out);
}

static const char *cs_last_error(struct ArrowArrayStream *st) {
  engine_stream *s = st->private_data;
  return s->error;
}

static void cs_release(struct ArrowArrayStream *st) {
  if (!st || !st->release) return;
  stream_free(st->private_data);
  st->release = NULL;
  st->private_data = NULL;
}

int wr_engine_query_stream(wr_engine *e, const char *sql, struct ArrowArrayStream *out,
                             weir_error *err) {
  memset(out, 0, sizeof *out);
  engine_stream *s;
  int rc = stream_open(e, sql, true, "cannot run query", &s, NULL, err);
  if (rc) return rc;
  out->get_schema = cs_get_schema;
  out->get_next = cs_get_next;
  out->get_last_error = cs_last_error;
  out->release = cs_release;
  out->private_data = s;
  return WEIR_OK;
}

int wr_eng_query_table(wr_engine *e, const char *sql, bool user, const char *what,
                         wr_arrow_table *out, char **raw_error, weir_error *err) {
  wr_arrow_table_init(out);
  if (raw_error) *raw_error = NULL;
  engine_stream *s;
  int rc = stream_open(e, sql, user, what, &s, raw_error, err);
  if (rc) return rc;
  struct ArrowSchema schema;
  wr_arrow_schema_copy(&s->schema, &schema);
  wr_arrow_table_set_schema(out, &schema);
  for (;;) {
    struct ArrowArray a;
    if (next_batch(s, &a) != 0) {
      rc = wr_seterr(err, WEIR_EENGINE, "%s", s->error);
      if (raw_error) *raw_error = wr_strdup(s->raw_error ? s->raw_error : s->error);
      wr_arrow_table_release(out);
      break;
    }
    if (!a.release) break;
    wr_arrow_table_append(out, &a);
  }
  stream_free(s);
  return rc;
}

int wr_engine_query_table(wr_engine *e, const char *sql, wr_arrow_table *out,
                            weir_error *err) {
  return wr_eng_query_table(e, sql, true, "cannot run query", out, NULL, err);
}
