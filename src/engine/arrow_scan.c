/*
 * arrow_scan.c -- weir's Arrow tables as DuckDB views, scanned in place.
 *
 * wr_engine_register_arrow keeps a shared copy of the table (its schema and a reference
 * on every batch: no data is copied) under a numeric id, and creates a view
 *   CREATE VIEW name AS SELECT * FROM wr_arrow_scan(<id>)
 * wr_arrow_scan is a C-API table function. The id, not a pointer, is what SQL sees, so
 * no statement can make DuckDB read memory that is not a registered table.
 *
 * How rows reach DuckDB. The table is cut into morsels of up to 122,880 rows (DuckDB's row
 * group size) that threads claim in turn (duckdb_init_set_max_threads), so aggregations
 * over a registered table run in parallel; order-sensitive consumers (a plain SELECT, a
 * COPY) are run in order by DuckDB itself, which keeps a table function's rows in order
 * when insertion order must be preserved. For each call, a thread takes the next slice of
 * at most duckdb_vector_size() rows and, for every column the query uses (projection
 * pushdown), hands DuckDB a one-column struct array describing that slice: the column's
 * own ArrowArray node copied by value (same buffers, same children, same dictionary) with
 * its offset moved to the slice and its length cut to it. duckdb_data_chunk_from_arrow
 * turns that into a vector, and duckdb_vector_reference_vector makes the output column
 * share it. What DuckDB does with the slice:
 *   - fixed-width values whose layout DuckDB shares (integers, floats, date32,
 *     timestamp[s/ms/us/ns] without time zone, timestamp[us] with one): the vector points
 *     at the Arrow buffer, no copy;
 *   - strings and binaries (utf8, large_utf8, string_view, binary, large_binary): DuckDB
 *     writes its 16-byte string_t headers, which point into the Arrow data buffer for
 *     values over 12 bytes (shorter ones are inlined in the header);
 *   - validity is copied into DuckDB's 64-bit mask (a few hundred bytes per slice);
 *   - booleans (bit-packed in Arrow, bytes in DuckDB), decimal128 (DuckDB stores small
 *     precisions in 16/32/64-bit integers), date64, and timestamps with a time zone in
 *     s/ms/ns are converted value by value: DuckDB has no in-place form for them;
 *   - dictionary arrays become DuckDB dictionary vectors: the dictionary values are
 *     converted (string_t headers again) and the indices become a selection vector.
 *     DuckDB redoes that for every slice, so a dictionary much longer than a slice would
 *     cost its length per slice; for those weir converts the dictionary once per batch
 *     and thread and reuses it (see "long dictionaries" below).
 * The structs handed to DuckDB hold a reference on the batch, so memory stays valid for as
 * long as any DuckDB vector points at it, even if the registration is dropped meanwhile.
 *
 * DuckDB adds a struct's own offset to its children when it reads nested data, but when it
 * converts the top-level struct of a chunk it applies that offset to validity and not to
 * values. So the slice puts the whole offset (the batch's own, as a sliced pyarrow batch
 * has, plus the column's, plus the slice start) on the column node and none on the root.
 */
#include "engine/engine_internal.h"
#include "util/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MORSEL_ROWS ((int64_t)122880)

typedef struct morsel {
  size_t batch;
  int64_t start, len;
} morsel;

struct arrow_reg {
  atomic_int refs;
  wr_arrow_table table;   /* shared: references on the caller's batches */
  int64_t ncols;
  char **names;
  duckdb_logical_type *types;
  duckdb_arrow_converted_schema *conv; /* per column: a struct holding that column alone */
  bool *is_dict;
  morsel *morsels;
  size_t n_morsels;
  duckdb_connection conn;   /* the engine's, for duckdb_data_chunk_from_arrow */
};

static void reg_unref(arrow_reg *r) {
  if (!r || atomic_fetch_sub(&r->refs, 1) != 1) return;
  for (int64_t i = 0; i < r->ncols; i++) {
    free(r->names[i]);
    if (r->types[i]) duckdb_destroy_logical_type(&r->types[i]);
    if (r->conv[i]) duckdb_destroy_arrow_converted_schema(&r->conv[i]);
  }
  free(r->names);
  free(r->types);
  free(r->conv);
  free(r->is_dict);
  free(r->morsels);
  wr_arrow_table_release(&r->table);
  free(r);
}

static void reg_unref_cb(void *p) { reg_unref(p); }

/* ---- slices ---------------------------------------------------------------------------- */

typedef struct slice_priv {
  struct ArrowArray col;           /* the column node, copied by value and re-cut */
  struct ArrowArray *children[1];
  const void *root_buffers[1];
  wr_arrow_batch *hold;
} slice_priv;

/* The column node shares everything with the batch; only the slice wrapper owns memory. */
static void slice_child_release(struct ArrowArray *a) { a->release = NULL; }

static void slice_release(struct ArrowArray *a) {
  slice_priv *p = a->private_data;
  wr_arrow_batch_unref(p->hold);
  free(p);
  a->release = NULL;
  a->private_data = NULL;
}

/* Nulls in [offset, offset + len) of a column node. Union and run-end arrays have no
 * validity buffer (their buffer 0 is something else) and the null type has no buffers. */
static int64_t slice_nulls(const struct ArrowArray *src, const char *format, int64_t offset,
                           int64_t len) {
  if (format[0] == 'n' && format[1] == 0) return len;
  if (format[0] == '+' && (format[1] == 'u' || format[1] == 'r')) return 0;
  if (src->null_count == 0 || src->n_buffers < 1 || !src->buffers[0]) return 0;
  return len - wr_bitmap_count(src->buffers[0], offset, len);
}

/* Exact null counts matter: DuckDB copies a validity mask only when null_count != 0, and
 * its dictionary path looks for nulls only when null_count > 0 (so -1, "unknown", would
 * lose them). */
static duckdb_data_chunk slice_chunk(duckdb_connection conn, wr_arrow_batch *b, int64_t col,
                                     const char *format, duckdb_arrow_converted_schema conv,
                                     int64_t start, int64_t len, char **errmsg) {
  const struct ArrowArray *batch = wr_arrow_batch_array(b);
  const struct ArrowArray *src = batch->children[col];
  slice_priv *p = wr_calloc(1, sizeof *p);
  p->col = *src;
  p->col.offset = src->offset + batch->offset + start;
  p->col.length = len;
  p->col.null_count = slice_nulls(src, format, p->col.offset, len);
  p->col.release = slice_child_release;
  p->col.private_data = NULL;
  p->children[0] = &p->col;
  p->hold = wr_arrow_batch_ref(b);
  struct ArrowArray root;
  memset(&root, 0, sizeof root);
  root.length = len;
  root.n_buffers = 1;
  root.buffers = p->root_buffers;
  root.n_children = 1;
  root.children = p->children;
  root.release = slice_release;
  root.private_data = p;
  duckdb_data_chunk chunk = NULL;
  duckdb_error_data ed = duckdb_data_chunk_from_arrow(conn, &root, conv, &chunk);
  /* DuckDB takes the array when it starts converting; if it failed before, it is ours. */
  if (root.release) root.release(&root);
  if (ed) {
    *errmsg = wr_strdup(duckdb_error_data_message(ed));
    duckdb_destroy_error_data(&ed);
    if (chunk) duckdb_destroy_data_chunk(&chunk);
    return NULL;
  }
  return chunk;
}

duckdb_data_chunk wr_eng_arrow_slice(duckdb_connection conn, wr_arrow_batch *b, int64_t col,
                                       duckdb_arrow_converted_schema conv, int64_t start,
                                       int64_t len, char **errmsg) {
  /* Without a schema at hand, any format whose buffer 0 is validity behaves the same. */
  return slice_chunk(conn, b, col, "?", conv, start, len, errmsg);
}

duckdb_arrow_converted_schema wr_eng_arrow_convert_field(duckdb_connection conn,
                                                           const struct ArrowSchema *field,
                                                           char **errmsg) {
  struct ArrowSchema root, child;
  wr_arrow_schema_init(&root, "+s", "", 0, 1);
  wr_arrow_schema_copy(field, &child);
  wr_arrow_schema_set_child(&root, 0, &child);
  duckdb_arrow_converted_schema conv = NULL;
  duckdb_error_data ed = duckdb_schema_from_arrow(conn, &root, &conv);
  root.release(&root);
  if (ed) {
    *errmsg = wr_strdup(duckdb_error_data_message(ed));
    duckdb_destroy_error_data(&ed);
    if (conv) duckdb_destroy_arrow_converted_schema(&conv);
    return NULL;
  }
  return conv;
}

/* ---- long dictionaries -------------------------------------------------------------------
 * duckdb_data_chunk_from_arrow converts a dictionary array's whole dictionary for every
 * slice (its scan state lives for one call). For a dictionary longer than a few slices
 * that is most of the work, plus a fresh vector of the dictionary's size each time. So
 * for those, the scan converts the dictionary once per batch and thread: it hands DuckDB
 * an "identity" dictionary array (indices 0..D-1, then one null) over the batch's
 * dictionary, keeps the resulting dictionary vector V (D + 1 entries, the last one NULL),
 * and makes each slice's output reference V re-sliced by the slice's own indices (nulls
 * point at the last entry). DuckDB composes the two selections; values are not copied. */

#define DICT_CACHE_MIN ((int64_t)4096)

typedef struct dict_cache {
  const struct ArrowArray *key; /* the dictionary node V was built from */
  duckdb_data_chunk chunk;      /* holds V */
  int64_t len;
} dict_cache;

typedef struct identity_priv {
  struct ArrowArray col;
  struct ArrowArray *children[1];
  const void *root_buffers[1];
  const void *col_buffers[2];
  void *indices;
  wr_arrow_batch *hold;
} identity_priv;

static void identity_child_release(struct ArrowArray *a) { a->release = NULL; }

static void identity_release(struct ArrowArray *a) {
  identity_priv *p = a->private_data;
  free(p->indices);
  wr_arrow_batch_unref(p->hold);
  free(p);
  a->release = NULL;
  a->private_data = NULL;
}

static int index_width(char f) {
  switch (f) {
  case 'c': case 'C': return 1;
  case 's': case 'S': return 2;
  case 'i': case 'I': return 4;
  case 'l': case 'L': return 8;
  default: return 0;
  }
}

/* Largest dictionary length whose identity indices (0..D-1, plus the null slot at D) an
 * index type can hold. */
static int64_t index_limit(char f) {
  switch (f) {
  case 'c': return 127;
  case 'C': return 255;
  case 's': return 32767;
  case 'S': return 65535;
  case 'i': return INT32_MAX - 1;
  default: return INT32_MAX - 1; /* DuckDB's selection vectors are 32-bit */
  }
}

static void put_index(void *buf, int w, int64_t i, int64_t v) {
  switch (w) {
  case 1: ((int8_t *)buf)[i] = (int8_t)v; break;
  case 2: ((int16_t *)buf)[i] = (int16_t)v; break;
  case 4: ((int32_t *)buf)[i] = (int32_t)v; break;
  default: ((int64_t *)buf)[i] = v; break;
  }
}

static int64_t get_index(const void *buf, char f, int64_t i) {
  switch (f) {
  case 'c': return ((const int8_t *)buf)[i];
  case 'C': return ((const uint8_t *)buf)[i];
  case 's': return ((const int16_t *)buf)[i];
  case 'S': return ((const uint16_t *)buf)[i];
  case 'i': return ((const int32_t *)buf)[i];
  case 'I': return ((const uint32_t *)buf)[i];
  default: return ((const int64_t *)buf)[i];
  }
}

/* The identity chunk for column `col` of batch `b` (whose dictionary has D entries). */
static duckdb_data_chunk identity_chunk(duckdb_connection conn, wr_arrow_batch *b, int64_t col,
                                        char index_format, duckdb_arrow_converted_schema conv,
                                        char **errmsg) {
  const struct ArrowArray *src = wr_arrow_batch_array(b)->children[col];
  int64_t d = src->dictionary->length;
  int w = index_width(index_format);
  identity_priv *p = wr_calloc(1, sizeof *p);
  /* Index D points at the NULL entry DuckDB appends after every dictionary it converts.
   * It is written as a valid index rather than marked null: DuckDB's dictionary path
   * copies an index validity mask into a fixed 2048-row mask, which a longer array with
   * nulls would overflow. */
  p->indices = wr_calloc((size_t)(d + 1), (size_t)w);
  for (int64_t i = 0; i <= d; i++) put_index(p->indices, w, i, i);
  p->col_buffers[0] = NULL;
  p->col_buffers[1] = p->indices;
  p->col.length = d + 1;
  p->col.null_count = 0;
  p->col.n_buffers = 2;
  p->col.buffers = p->col_buffers;
  p->col.dictionary = src->dictionary;
  p->col.release = identity_child_release;
  p->children[0] = &p->col;
  p->hold = wr_arrow_batch_ref(b);
  struct ArrowArray root;
  memset(&root, 0, sizeof root);
  root.length = d + 1;
  root.n_buffers = 1;
  root.buffers = p->root_buffers;
  root.n_children = 1;
  root.children = p->children;
  root.release = identity_release;
  root.private_data = p;
  duckdb_data_chunk chunk = NULL;
  duckdb_error_data ed = duckdb_data_chunk_from_arrow(conn, &root, conv, &chunk);
  if (root.release) root.release(&root);
  if (ed) {
    *errmsg = wr_strdup(duckdb_error_data_message(ed));
    duckdb_destroy_error_data(&ed);
    if (chunk) duckdb_destroy_data_chunk(&chunk);
    return NULL;
  }
  return chunk;
}

/* Points `out` at rows [start, start + len) of a long-dictionary column through the
 * thread's cached dictionary vector. False with *errmsg set on failure. */
static bool dict_slice(duckdb_connection conn, dict_cache *cache, wr_arrow_batch *b, int64_t col,
                       char index_format, duckdb_arrow_converted_schema conv, int64_t start, int64_t len,
                       duckdb_vector out, char **errmsg) {
  const struct ArrowArray *batch = wr_arrow_batch_array(b);
  const struct ArrowArray *src = batch->children[col];
  int64_t d = src->dictionary->length;
  if (cache->key != src->dictionary || !cache->chunk) {
    if (cache->chunk) duckdb_destroy_data_chunk(&cache->chunk);
    cache->key = NULL;
    cache->chunk = identity_chunk(conn, b, col, index_format, conv, errmsg);
    if (!cache->chunk) return false;
    cache->key = src->dictionary;
    cache->len = d;
  }
  int64_t off = src->offset + batch->offset + start;
  const uint8_t *valid = src->null_count != 0 && src->buffers[0] ? src->buffers[0] : NULL;
  duckdb_selection_vector sel = duckdb_create_selection_vector((idx_t)len);
  sel_t *sv = duckdb_selection_vector_get_data_ptr(sel);
  for (int64_t i = 0; i < len; i++) {
    if (valid && !wr_bit_get(valid, off + i)) {
      sv[i] = (sel_t)d;
      continue;
    }
    int64_t k = get_index(src->buffers[1], index_format, off + i);
    if (k < 0 || k >= d) {
      *errmsg = wr_asprintf("dictionary index %lld out of range (the dictionary has %lld values)", (long long)k,
                              (long long)d);
      duckdb_destroy_selection_vector(sel);
      return false;
    }
    sv[i] = (sel_t)k;
  }
  duckdb_vector_reference_vector(out, duckdb_data_chunk_get_vector(cache->chunk, 0));
  duckdb_slice_vector(out, sel, (idx_t)len);
  duckdb_destroy_selection_vector(sel);
  return true;
}

/* ---- zero-length arrays (to learn the DuckDB type of a column) ---------------------------
 * The C API gives no way to read the types out of a converted schema, and guessing them
 * from Arrow formats would be a second copy of DuckDB's mapping that could drift from it.
 * So the engine converts an empty array of the column's type and asks the resulting
 * vector. An empty array still needs well-formed buffers (an offsets buffer holds one
 * entry), so every buffer points at a block of zeros. */

static const uint64_t ZEROS[8];

typedef struct empty_priv {
  const void **buffers;
  struct ArrowArray *storage;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
} empty_priv;

static void empty_release(struct ArrowArray *a) {
  empty_priv *p = a->private_data;
  for (int64_t i = 0; i < a->n_children; i++)
    if (p->storage[i].release) p->storage[i].release(&p->storage[i]);
  if (p->dictionary) {
    if (p->dictionary->release) p->dictionary->release(p->dictionary);
    free(p->dictionary);
  }
  free(p->buffers);
  free(p->storage);
  free(p->children);
  free(p);
  a->release = NULL;
}

static int64_t format_buffers(const char *f) {
  if (strcmp(f, "n") == 0 || strcmp(f, "+r") == 0) return 0;
  if (strcmp(f, "+s") == 0 || strncmp(f, "+w:", 3) == 0 || strncmp(f, "+us", 3) == 0) return 1;
  if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strcmp(f, "+m") == 0 || strncmp(f, "+ud", 3) == 0) return 2;
  if (strcmp(f, "+vl") == 0 || strcmp(f, "+vL") == 0) return 3;
  if (strcmp(f, "u") == 0 || strcmp(f, "U") == 0 || strcmp(f, "z") == 0 || strcmp(f, "Z") == 0) return 3;
  if (strcmp(f, "vu") == 0 || strcmp(f, "vz") == 0) return 3; /* validity, views, sizes */
  return 2;
}

static void make_empty(const struct ArrowSchema *s, struct ArrowArray *out) {
  empty_priv *p = wr_calloc(1, sizeof *p);
  memset(out, 0, sizeof *out);
  out->n_buffers = format_buffers(s->format);
  p->buffers = wr_calloc((size_t)(out->n_buffers ? out->n_buffers : 1), sizeof *p->buffers);
  for (int64_t i = 0; i < out->n_buffers; i++) p->buffers[i] = ZEROS;
  out->buffers = p->buffers;
  out->n_children = s->n_children;
  p->storage = wr_calloc((size_t)(s->n_children ? s->n_children : 1), sizeof *p->storage);
  p->children = wr_calloc((size_t)(s->n_children ? s->n_children : 1), sizeof *p->children);
  for (int64_t i = 0; i < s->n_children; i++) {
    make_empty(s->children[i], &p->storage[i]);
    p->children[i] = &p->storage[i];
  }
  out->children = s->n_children ? p->children : NULL;
  if (s->dictionary) {
    p->dictionary = wr_calloc(1, sizeof *p->dictionary);
    make_empty(s->dictionary, p->dictionary);
    out->dictionary = p->dictionary;
  }
  out->private_data = p;
  out->release = empty_release;
}

static duckdb_logical_type type_of(duckdb_connection conn, const struct ArrowSchema *field,
                                   duckdb_arrow_converted_schema conv, char **errmsg) {
  /* A zero-length struct holding one zero-length column, released (child included) by
   * DuckDB's chunk, which takes it over. */
  empty_priv *rp = wr_calloc(1, sizeof *rp);
  rp->buffers = wr_calloc(1, sizeof *rp->buffers);
  rp->storage = wr_calloc(1, sizeof *rp->storage);
  rp->children = wr_calloc(1, sizeof *rp->children);
  make_empty(field, &rp->storage[0]);
  rp->children[0] = &rp->storage[0];
  struct ArrowArray root;
  memset(&root, 0, sizeof root);
  root.n_buffers = 1;
  root.buffers = rp->buffers;
  root.n_children = 1;
  root.children = rp->children;
  root.private_data = rp;
  root.release = empty_release;
  duckdb_data_chunk chunk = NULL;
  duckdb_error_data ed = duckdb_data_chunk_from_arrow(conn, &root, conv, &chunk);
  if (root.release) root.release(&root);
  if (ed) {
    *errmsg = wr_strdup(duckdb_error_data_message(ed));
    duckdb_destroy_error_data(&ed);
    if (chunk) duckdb_destroy_data_chunk(&chunk);
    return NULL;
  }
  duckdb_logical_type t = duckdb_vector_get_column_type(duckdb_data_chunk_get_vector(chunk, 0));
  duckdb_destroy_data_chunk(&chunk);
  return t;
}

/* ---- the table function ------------------------------------------------------------------ */

typedef struct scan_global {
  atomic_size_t next;   /* next morsel to claim */
  idx_t ncols;
  idx_t *cols;          /* projected column indexes */
} scan_global;

typedef struct scan_local {
  bool have;
  size_t morsel;
  int64_t pos, end;     /* rows of the morsel's batch still to emit */
  idx_t ncols;
  dict_cache *dicts;    /* per projected column */
} scan_local;

static void free_local(void *p) {
  scan_local *l = p;
  for (idx_t i = 0; i < l->ncols; i++)
    if (l->dicts[i].chunk) duckdb_destroy_data_chunk(&l->dicts[i].chunk);
  free(l->dicts);
  free(l);
}

static void free_global(void *p) {
  scan_global *g = p;
  free(g->cols);
  free(g);
}

static arrow_reg *find_reg_locked(wr_engine *e, int64_t id) {
  for (size_t i = 0; i < e->n_regs; i++)
    if (e->regs[i].id == id) return e->regs[i].reg;
  return NULL;
}

static void scan_bind(duckdb_bind_info info) {
  wr_engine *e = duckdb_bind_get_extra_info(info);
  duckdb_value v = duckdb_bind_get_parameter(info, 0);
  int64_t id = duckdb_get_int64(v);
  duckdb_destroy_value(&v);
  pthread_mutex_lock(&e->mu);
  arrow_reg *r = find_reg_locked(e, id);
  if (r) atomic_fetch_add(&r->refs, 1);
  pthread_mutex_unlock(&e->mu);
  if (!r) {
    char msg[128];
    snprintf(msg, sizeof msg, "weir_arrow_scan: no Arrow table is registered with id %lld", (long long)id);
    duckdb_bind_set_error(info, msg);
    return;
  }
  for (int64_t i = 0; i < r->ncols; i++) duckdb_bind_add_result_column(info, r->names[i], r->types[i]);
  duckdb_bind_set_cardinality(info, (idx_t)r->table.n_rows, true);
  duckdb_bind_set_bind_data(info, r, reg_unref_cb);
}

static void scan_init(duckdb_init_info info) {
  arrow_reg *r = duckdb_init_get_bind_data(info);
  scan_global *g = wr_calloc(1, sizeof *g);
  atomic_init(&g->next, 0);
  g->ncols = duckdb_init_get_column_count(info);
  g->cols = wr_calloc(g->ncols ? g->ncols : 1, sizeof *g->cols);
  for (idx_t i = 0; i < g->ncols; i++) g->cols[i] = duckdb_init_get_column_index(info, i);
  duckdb_init_set_init_data(info, g, free_global);
  duckdb_init_set_max_threads(info, r->n_morsels ? r->n_morsels : 1);
}

static void scan_local_init(duckdb_init_info info) {
  scan_local *l = wr_calloc(1, sizeof *l);
  l->ncols = duckdb_init_get_column_count(info);
  l->dicts = wr_calloc(l->ncols ? l->ncols : 1, sizeof *l->dicts);
  duckdb_init_set_init_data(info, l, free_local);
}

static void scan_fn(duckdb_function_info info, duckdb_data_chunk output) {
  arrow_reg *r = duckdb_function_get_bind_data(info);
  scan_global *g = duckdb_function_get_init_data(info);
  scan_local *l = duckdb_function_get_local_init_data(info);
  if (!l->have || l->pos >= l->end) {
    size_t m = atomic_fetch_add(&g->next, 1);
    if (m >= r->n_morsels) {
      l->have = false;
      duckdb_data_chunk_set_size(output, 0);
      return;
    }
    l->have = true;
    l->morsel = m;
    l->pos = r->morsels[m].start;
    l->end = r->morsels[m].start + r->morsels[m].len;
  }
  const morsel *ms = &r->morsels[l->morsel];
  int64_t n = l->end - l->pos;
  if (n > (int64_t)duckdb_vector_size()) n = (int64_t)duckdb_vector_size();
  wr_arrow_batch *b = r->table.batches[ms->batch];
  for (idx_t k = 0; k < g->ncols; k++) {
    duckdb_vector out = duckdb_data_chunk_get_vector(output, k);
    idx_t col = g->cols[k];
    if (col >= (idx_t)r->ncols) {
      /* C-API table functions have no virtual columns (no rowid), so DuckDB asks only
       * for real ones; count(*) scans the first column. */
      duckdb_function_set_error(info, "weir_arrow_scan: DuckDB asked for a column the table does not have");
      return;
    }
    char *msg = NULL;
    const char *format = r->table.schema.children[col]->format;
    const struct ArrowArray *src = wr_arrow_batch_array(b)->children[col];
    if (r->is_dict[col] && src->dictionary && src->dictionary->length >= DICT_CACHE_MIN &&
        src->dictionary->length <= index_limit(format[0]) && index_width(format[0]) && k < l->ncols) {
      if (dict_slice(r->conn, &l->dicts[k], b, (int64_t)col, format[0], r->conv[col], l->pos, n, out, &msg))
        continue;
    }
    duckdb_data_chunk ch = msg ? NULL : slice_chunk(r->conn, b, (int64_t)col, format, r->conv[col], l->pos, n, &msg);
    if (!ch) {
      char *full = wr_asprintf("cannot read column \"%s\" of a registered Arrow table: %s",
                                 r->names[col], msg);
      duckdb_function_set_error(info, full);
      free(full);
      free(msg);
      return;
    }
    duckdb_vector_reference_vector(out, duckdb_data_chunk_get_vector(ch, 0));
    duckdb_destroy_data_chunk(&ch);
  }
  duckdb_data_chunk_set_size(output, (idx_t)n);
  l->pos += n;
}

int wr_eng_scan_install(wr_engine *e, weir_error *err) {
  duckdb_table_function f = duckdb_create_table_function();
  duckdb_table_function_set_name(f, "weir_arrow_scan");
  duckdb_logical_type bigint = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
  duckdb_table_function_add_parameter(f, bigint);
  duckdb_destroy_logical_type(&bigint);
  duckdb_table_function_set_extra_info(f, e, NULL);
  duckdb_table_function_set_bind(f, scan_bind);
  duckdb_table_function_set_init(f, scan_init);
  duckdb_table_function_set_local_init(f, scan_local_init);
  duckdb_table_function_set_function(f, scan_fn);
  duckdb_table_function_supports_projection_pushdown(f, true);
  duckdb_state st = duckdb_register_table_function(e->conn, f);
  duckdb_destroy_table_function(&f);
  if (st == DuckDBError)
    return wr_seterr(err, WEIR_EENGINE, "cannot open the SQL engine: DuckDB refused the Arrow scan function");
  return WEIR_OK;
}

/* ---- registration ------------------------------------------------------------------------ */

/* ---- validity bitmaps DuckDB may read one byte past ------------------------------------
 * When a validity bitmap starts at a bit offset that is not a multiple of 8, DuckDB's
 * Arrow reader copies one byte more than the rows it needs, so a slice that ends at the
 * end of a bitmap allocated to its exact size (as DuckDB's own Arrow export allocates
 * them) is read one byte past the allocation. Producers that pad buffers (pyarrow, weir)
 * are safe, but the scan cannot know, so at registration the validity bitmaps of columns
 * that can be read at such offsets (a top-level column whose batch and column offsets do
 * not add up to a multiple of 8, nested columns, dictionaries with an unaligned offset)
 * are copied with padding: one bit per row, once, and data buffers stay shared. */

static bool has_validity(const char *f) {
  return !(strcmp(f, "n") == 0 || (f[0] == '+' && (f[1] == 'u' || f[1] == 'r')));
}

static bool tree_has_validity(const struct ArrowArray *a, const struct ArrowSchema *f) {
  if (has_validity(f->format) && a->n_buffers > 0 && a->buffers[0] && a->null_count != 0) return true;
  for (int64_t i = 0; i < a->n_children; i++)
    if (tree_has_validity(a->children[i], f->children[i])) return true;
  return a->dictionary && f->dictionary && tree_has_validity(a->dictionary, f->dictionary);
}

static bool unaligned_reads(const struct ArrowArray *batch, const struct ArrowArray *col) {
  if ((batch->offset + col->offset) % 8 != 0 || col->n_children > 0) return true;
  return col->dictionary && (col->dictionary->offset % 8 != 0 || col->dictionary->n_children > 0);
}

/* Replaces every validity bitmap of a (cloned, weir-owned) node tree by a padded copy. */
static void pad_validity(struct ArrowArray *a, const struct ArrowSchema *f) {
  if (has_validity(f->format) && a->n_buffers > 0 && a->buffers[0] && a->null_count != 0) {
    size_t bytes = (size_t)((a->offset + a->length + 7) / 8);
    const void *old = a->buffers[0];
    uint8_t *copy = wr_arrow_array_alloc_buffer(a, 0, bytes + 8);
    memcpy(copy, old, bytes);
  }
  for (int64_t i = 0; i < a->n_children; i++) pad_validity(a->children[i], f->children[i]);
  if (a->dictionary && f->dictionary) pad_validity(a->dictionary, f->dictionary);
}

static void protect_batches(arrow_reg *r) {
  for (size_t i = 0; i < r->table.n_batches; i++) {
    const struct ArrowArray *a = wr_arrow_batch_array(r->table.batches[i]);
    bool any = false;
    for (int64_t c = 0; c < r->ncols && !any; c++)
      any = unaligned_reads(a, a->children[c]) && tree_has_validity(a->children[c], r->table.schema.children[c]);
    if (!any) continue;
    struct ArrowArray clone;
    wr_arrow_batch_export(r->table.batches[i], &clone); /* same buffers, our own nodes */
    for (int64_t c = 0; c < r->ncols; c++)
      if (unaligned_reads(a, a->children[c])) pad_validity(clone.children[c], r->table.schema.children[c]);
    wr_arrow_batch *nb = wr_arrow_batch_new(&clone);
    wr_arrow_batch_unref(r->table.batches[i]); /* the clone holds the original */
    r->table.batches[i] = nb;
  }
}

static arrow_reg *reg_build(wr_engine *e, const char *name, const wr_arrow_table *t,
                            weir_error *err) {
  if (!t->schema.release || strcmp(t->schema.format, "+s") != 0) {
    wr_seterr(err, WEIR_EINVALIDARG, "cannot register Arrow table %s: its schema is not a struct (\"+s\")", name);
    return NULL;
  }
  int64_t ncols = t->schema.n_children;
  if (ncols == 0) {
    wr_seterr(err, WEIR_EINVALIDARG, "cannot register Arrow table %s: it has no columns", name);
    return NULL;
  }
  /* What the scan relies on, checked once here rather than trusted: DuckDB reads the
   * buffers without bounds checks. */
  for (size_t i = 0; i < t->n_batches; i++) {
    const struct ArrowArray *a = wr_arrow_batch_array(t->batches[i]);
    if (a->n_children != ncols) {
      wr_seterr(err, WEIR_EINVALIDARG,
                  "cannot register Arrow table %s: batch %zu has %lld columns, the schema %lld", name, i,
                  (long long)a->n_children, (long long)ncols);
      return NULL;
    }
    for (int64_t c = 0; c < ncols; c++) {
      const struct ArrowArray *col = a->children[c];
      const struct ArrowSchema *f = t->schema.children[c];
      const char *why = NULL;
      if (!col || !col->release) why = "is released";
      else if (col->length < a->offset + a->length) why = "is shorter than the batch";
      else if ((f->dictionary != NULL) != (col->dictionary != NULL)) why = "does not match the schema's dictionary encoding";
      else if (col->n_children != f->n_children) why = "has a different number of children than the schema";
      if (why) {
        wr_seterr(err, WEIR_EINVALIDARG, "cannot register Arrow table %s: column \"%s\" of batch %zu %s", name,
                    f->name ? f->name : "", i, why);
        return NULL;
      }
    }
  }
  arrow_reg *r = wr_calloc(1, sizeof *r);
  atomic_init(&r->refs, 1);
  r->conn = e->conn;
  r->ncols = ncols;
  r->names = wr_calloc((size_t)ncols, sizeof *r->names);
  r->types = wr_calloc((size_t)ncols, sizeof *r->types);
  r->conv = wr_calloc((size_t)ncols, sizeof *r->conv);
  r->is_dict = wr_calloc((size_t)ncols, sizeof *r->is_dict);
  wr_arrow_table_share(t, &r->table);
  for (int64_t i = 0; i < ncols; i++) {
    const struct ArrowSchema *f = t->schema.children[i];
    r->names[i] = f->name && *f->name ? wr_strdup(f->name) : wr_asprintf("column%lld", (long long)i);
    r->is_dict[i] = f->dictionary != NULL;
    char *msg = NULL;
    r->conv[i] = wr_eng_arrow_convert_field(e->conn, f, &msg);
    if (r->conv[i]) r->types[i] = type_of(e->conn, f, r->conv[i], &msg);
    if (!r->types[i]) {
      char tn[128];
      wr_arrow_type_name(f, tn, sizeof tn);
      wr_seterr(err, WEIR_EUNSUPPORTED,
                  "cannot register Arrow table %s: column \"%s\" has type %s, which the SQL engine cannot read: %s",
                  name, r->names[i], tn, msg ? msg : "unknown error");
      free(msg);
      reg_unref(r);
      return NULL;
    }
  }
  protect_batches(r);
  /* Morsels: every batch cut into pieces of at most MORSEL_ROWS. */
  size_t cap = 0;
  for (size_t i = 0; i < r->table.n_batches; i++) {
    int64_t len = wr_arrow_batch_length(r->table.batches[i]);
    for (int64_t s = 0; s < len; s += MORSEL_ROWS) {
      if (r->n_morsels == cap) {
        cap = cap ? cap * 2 : 16;
        r->morsels = wr_realloc(r->morsels, cap * sizeof *r->morsels);
      }
      int64_t m = len - s < MORSEL_ROWS ? len - s : MORSEL_ROWS;
      r->morsels[r->n_morsels++] = (morsel){i, s, m};
    }
  }
  return r;
}

static long find_entry_locked(wr_engine *e, const char *schema, const char *name) {
  for (size_t i = 0; i < e->n_regs; i++)
    if (strcmp(e->regs[i].schema, schema) == 0 && strcmp(e->regs[i].name, name) == 0) return (long)i;
  return -1;
}

static void entry_free(reg_entry *en) {
  free(en->schema);
  free(en->name);
  reg_unref(en->reg);
}

int wr_engine_register_arrow(wr_engine *e, const char *name, const wr_arrow_table *table,
                               weir_error *err) {
  wr_eng_settle(e);
  arrow_reg *r = reg_build(e, name, table, err);
  if (!r) return err ? err->code : WEIR_EINVALIDARG;
  reg_entry en = {0};
  wr_eng_split_name(name, &en.schema, &en.name);
  en.alias = strcmp(en.schema, WEIR_DEFAULT_NAMESPACE) == 0;
  en.reg = r;

  pthread_mutex_lock(&e->mu);
  en.id = e->next_reg_id++;
  reg_entry old = {0};
  long at = find_entry_locked(e, en.schema, en.name);
  if (at >= 0) {
    old = e->regs[at];
    e->regs[at] = en;
  } else {
    if (e->n_regs == e->cap_regs) {
      e->cap_regs = e->cap_regs ? e->cap_regs * 2 : 8;
      e->regs = wr_realloc(e->regs, e->cap_regs * sizeof *e->regs);
    }
    e->regs[e->n_regs++] = en;
  }
  pthread_mutex_unlock(&e->mu);
  if (old.reg) entry_free(&old);

  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "CREATE SCHEMA IF NOT EXISTS ");
  wr_eng_put_ident(&sql, en.schema);
  wr_buf_puts(&sql, "; CREATE OR REPLACE VIEW ");
  wr_eng_put_ident(&sql, en.schema);
  wr_buf_putc(&sql, '.');
  wr_eng_put_ident(&sql, en.name);
  wr_buf_printf(&sql, " AS SELECT * FROM weir_arrow_scan(%lld)", (long long)en.id);
  if (en.alias) {
    wr_buf_puts(&sql, "; CREATE OR REPLACE VIEW main.");
    wr_eng_put_ident(&sql, en.name);
    wr_buf_puts(&sql, " AS SELECT * FROM ");
    wr_eng_put_ident(&sql, en.schema);
    wr_buf_putc(&sql, '.');
    wr_eng_put_ident(&sql, en.name);
  }
  char *what = wr_asprintf("cannot register Arrow table %s", name);
  int rc = wr_eng_run(e, wr_buf_cstr(&sql), what, err);
  free(what);
  wr_buf_free(&sql);
  if (rc) {
    pthread_mutex_lock(&e->mu);
    long i = find_entry_locked(e, en.schema, en.name);
    reg_entry gone = e->regs[i];
    e->regs[i] = e->regs[--e->n_regs];
    pthread_mutex_unlock(&e->mu);
    entry_free(&gone);
  }
  return rc;
}

int wr_engine_unregister(wr_engine *e, const char *name, weir_error *err) {
  wr_eng_settle(e);
  char *schema, *bare;
  wr_eng_split_name(name, &schema, &bare);
  pthread_mutex_lock(&e->mu);
  long i = find_entry_locked(e, schema, bare);
  reg_entry gone = {0};
  if (i >= 0) {
    gone = e->regs[i];
    e->regs[i] = e->regs[--e->n_regs];
  }
  pthread_mutex_unlock(&e->mu);
  free(schema);
  free(bare);
  if (i < 0) return wr_seterr(err, WEIR_ENOTFOUND, "cannot unregister %s: no Arrow table is registered under that name", name);
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "DROP VIEW IF EXISTS ");
  wr_eng_put_ident(&sql, gone.schema);
  wr_buf_putc(&sql, '.');
  wr_eng_put_ident(&sql, gone.name);
  if (gone.alias) {
    wr_buf_puts(&sql, "; DROP VIEW IF EXISTS main.");
    wr_eng_put_ident(&sql, gone.name);
  }
  char *what = wr_asprintf("cannot unregister Arrow table %s", name);
  int rc = wr_eng_run(e, wr_buf_cstr(&sql), what, err);
  free(what);
  wr_buf_free(&sql);
  entry_free(&gone);
  return rc;
}

void wr_eng_scan_clear(wr_engine *e) {
  for (size_t i = 0; i < e->n_regs; i++) entry_free(&e->regs[i]);
  free(e->regs);
  e->regs = NULL;
  e->n_regs = e->cap_regs = 0;
}
