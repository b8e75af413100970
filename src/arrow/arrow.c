/*
 * arrow.c -- reference-counted batches, shared exports, tables and streams.
 *
 * The C Data Interface gives each struct one owner and one release. To hand the same
 * buffers to several consumers (the validator, the engine writing Parquet, a quarantine
 * table) without copying, the original batch is moved into a heap holder with a
 * reference count, and every consumer gets its own tree of structs that points at the
 * holder's buffers. A consumer may even move children out of its tree, as the interface
 * allows, without disturbing anyone else.
 */
#include "arrow/arrow.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

/* ---- batches ------------------------------------------------------------------------ */

struct wr_arrow_batch {
  struct ArrowArray array;
  atomic_int refs;
};

wr_arrow_batch *wr_arrow_batch_new(struct ArrowArray *array) {
  wr_arrow_batch *b = wr_malloc(sizeof *b);
  b->array = *array;
  array->release = NULL;
  atomic_init(&b->refs, 1);
  return b;
}

wr_arrow_batch *wr_arrow_batch_ref(wr_arrow_batch *b) {
  atomic_fetch_add(&b->refs, 1);
  return b;
}

void wr_arrow_batch_unref(wr_arrow_batch *b) {
  if (!b) return;
  if (atomic_fetch_sub(&b->refs, 1) == 1) {
    if (b->array.release) b->array.release(&b->array);
    free(b);
  }
}

const struct ArrowArray *wr_arrow_batch_array(const wr_arrow_batch *b) { return &b->array; }
int64_t wr_arrow_batch_length(const wr_arrow_batch *b) { return b->array.length; }

/* ---- owned array nodes ------------------------------------------------------------------
 * Every array node weir creates (shared clones and new columns alike) uses this private
 * data: its own buffer-pointer and child-pointer arrays, the buffers it allocated, the
 * batches it borrows from, and its children and dictionary storage. */

typedef struct node_priv {
  const void **buffers;
  void **owned;                  /* owned[i]: allocated memory of buffer i, or NULL */
  int64_t n_buffers;
  struct ArrowArray **children;  /* pointers into child_storage */
  struct ArrowArray *child_storage;
  int64_t n_children;
  struct ArrowArray *dictionary; /* owned storage, or NULL */
  wr_arrow_batch **holds;      /* batches kept alive by this node */
  size_t n_holds;
} node_priv;

static void node_release(struct ArrowArray *a) {
  if (!a || !a->release) return;
  node_priv *p = a->private_data;
  for (int64_t i = 0; i < p->n_children; i++) {
    struct ArrowArray *c = &p->child_storage[i];
    if (c->release) c->release(c);
  }
  if (p->dictionary && p->dictionary->release) p->dictionary->release(p->dictionary);
  free(p->dictionary);
  for (int64_t i = 0; i < p->n_buffers; i++) free(p->owned[i]);
  for (size_t i = 0; i < p->n_holds; i++) wr_arrow_batch_unref(p->holds[i]);
  free(p->holds);
  free(p->owned);
  free(p->buffers);
  free(p->children);
  free(p->child_storage);
  free(p);
  a->release = NULL;
  a->private_data = NULL;
}

static node_priv *node_new(struct ArrowArray *a, int64_t n_buffers, int64_t n_children) {
  node_priv *p = wr_calloc(1, sizeof *p);
  p->n_buffers = n_buffers;
  p->buffers = wr_calloc((size_t)(n_buffers ? n_buffers : 1), sizeof *p->buffers);
  p->owned = wr_calloc((size_t)(n_buffers ? n_buffers : 1), sizeof *p->owned);
  p->n_children = n_children;
  p->child_storage = wr_calloc((size_t)(n_children ? n_children : 1), sizeof *p->child_storage);
  p->children = wr_calloc((size_t)(n_children ? n_children : 1), sizeof *p->children);
  for (int64_t i = 0; i < n_children; i++) p->children[i] = &p->child_storage[i];
  memset(a, 0, sizeof *a);
  a->n_buffers = n_buffers;
  a->n_children = n_children;
  a->buffers = p->buffers;
  a->children = n_children ? p->children : NULL;
  a->private_data = p;
  a->release = node_release;
  return p;
}

static void node_hold(node_priv *p, wr_arrow_batch *b) {
  p->holds = wr_realloc(p->holds, (p->n_holds + 1) * sizeof *p->holds);
  p->holds[p->n_holds++] = wr_arrow_batch_ref(b);
}

/* Clones the struct tree of src into dst: same buffers, new structs. */
static void clone_tree(const struct ArrowArray *src, struct ArrowArray *dst) {
  node_priv *p = node_new(dst, src->n_buffers, src->n_children);
  dst->length = src->length;
  dst->null_count = src->null_count;
  dst->offset = src->offset;
  for (int64_t i = 0; i < src->n_buffers; i++) p->buffers[i] = src->buffers[i];
  for (int64_t i = 0; i < src->n_children; i++) clone_tree(src->children[i], &p->child_storage[i]);
  if (src->dictionary) {
    p->dictionary = wr_calloc(1, sizeof *p->dictionary);
    clone_tree(src->dictionary, p->dictionary);
    dst->dictionary = p->dictionary;
  }
}

void wr_arrow_batch_export(wr_arrow_batch *b, struct ArrowArray *out) {
  clone_tree(&b->array, out);
  node_hold(out->private_data, b);
}

void wr_arrow_batch_export_column(wr_arrow_batch *b, int64_t col, struct ArrowArray *out) {
  clone_tree(b->array.children[col], out);
  node_hold(out->private_data, b);
}

void wr_arrow_batch_select(wr_arrow_batch *b, const int64_t *cols, int64_t n,
                             struct ArrowArray *out) {
  const struct ArrowArray *src = &b->array;
  node_priv *p = node_new(out, src->n_buffers, n);
  out->length = src->length;
  out->null_count = src->null_count;
  out->offset = src->offset;
  for (int64_t i = 0; i < src->n_buffers; i++) p->buffers[i] = src->buffers[i];
  for (int64_t i = 0; i < n; i++) clone_tree(src->children[cols[i]], &p->child_storage[i]);
  node_hold(p, b);
}

void wr_arrow_batch_with_column(wr_arrow_batch *b, int64_t col, struct ArrowArray *column,
                                  struct ArrowArray *out) {
  const struct ArrowArray *src = &b->array;
  node_priv *p = node_new(out, src->n_buffers, src->n_children);
  out->length = src->length;
  out->null_count = src->null_count;
  out->offset = src->offset;
  for (int64_t i = 0; i < src->n_buffers; i++) p->buffers[i] = src->buffers[i];
  for (int64_t i = 0; i < src->n_children; i++) {
    if (i == col) {
      p->child_storage[i] = *column;
      column->release = NULL;
    } else {
      clone_tree(src->children[i], &p->child_storage[i]);
    }
  }
  node_hold(p, b);
}

/* ---- arrays weir builds ---------------------------------------------------------------- */

void wr_arrow_array_init(struct ArrowArray *a, int64_t length, int64_t n_buffers,
                           int64_t n_children) {
  node_new(a, n_buffers, n_children);
  a->length = length;
}

/* Large buffers are aligned to 2 MiB and marked for transparent huge pages: a fresh
 * 400 MB cast buffer otherwise costs ~100,000 page faults (4 KiB each) before the first
 * value is written, which dominated casting 50 M rows. */
#define HUGE_ALIGN ((size_t)2 << 20)

static void *alloc_aligned(size_t rounded) {
  void *mem = NULL;
  if (rounded >= HUGE_ALIGN) {
    if (posix_memalign(&mem, HUGE_ALIGN, rounded) == 0) {
#ifdef MADV_HUGEPAGE
      madvise(mem, rounded, MADV_HUGEPAGE);
#endif
      return mem;
    }
  }
  mem = aligned_alloc(64, rounded);
  return mem ? mem : wr_malloc(rounded);
}

void *wr_arrow_array_alloc_buffer(struct ArrowArray *a, int64_t i, size_t size) {
  node_priv *p = a->private_data;
  free(p->owned[i]);
  size_t rounded = (size + 63) & ~(size_t)63;
  if (!rounded) rounded = 64;
  void *mem = alloc_aligned(rounded);
  memset(mem, 0, rounded);
  p->owned[i] = mem;
  p->buffers[i] = mem;
  return mem;
}

void *wr_arrow_array_alloc_buffer_uninit(struct ArrowArray *a, int64_t i, size_t size) {
  node_priv *p = a->private_data;
  free(p->owned[i]);
  size_t rounded = (size + 63) & ~(size_t)63;
  if (!rounded) rounded = 64;
  void *mem = alloc_aligned(rounded);
  memset((char *)mem + size, 0, rounded - size);
  p->owned[i] = mem;
  p->buffers[i] = mem;
  return mem;
}

void wr_arrow_array_borrow_buffer(struct ArrowArray *a, int64_t i, const void *data,
                                    wr_arrow_batch *owner) {
  node_priv *p = a->private_data;
  free(p->owned[i]);
  p->owned[i] = NULL;
  p->buffers[i] = data;
  if (owner) node_hold(p, owner);
}

void wr_arrow_array_set_child(struct ArrowArray *a, int64_t i, struct ArrowArray *child) {
  node_priv *p = a->private_data;
  struct ArrowArray *slot = &p->child_storage[i];
  if (slot->release) slot->release(slot);
  *slot = *child;
  child->release = NULL;
}

/* ---- schemas ------------------------------------------------------------------------ */

typedef struct schema_priv {
  char *format;
  char *name;
  char *metadata;
  struct ArrowSchema **children;
  struct ArrowSchema *child_storage;
  struct ArrowSchema *dictionary;
} schema_priv;

static void schema_release(struct ArrowSchema *s) {
  if (!s || !s->release) return;
  schema_priv *p = s->private_data;
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema *c = &p->child_storage[i];
    if (c->release) c->release(c);
  }
  if (p->dictionary) {
    if (p->dictionary->release) p->dictionary->release(p->dictionary);
    free(p->dictionary);
  }
  free(p->format);
  free(p->name);
  free(p->metadata);
  free(p->children);
  free(p->child_storage);
  free(p);
  s->release = NULL;
  s->private_data = NULL;
}

/* Arrow metadata is a binary blob: int32 count, then (int32 len, bytes) pairs. */
static size_t metadata_size(const char *m) {
  if (!m) return 0;
  int32_t n;
  memcpy(&n, m, 4);
  size_t pos = 4;
  for (int32_t i = 0; i < 2 * n; i++) {
    int32_t len;
    memcpy(&len, m + pos, 4);
    pos += 4 + (size_t)len;
  }
  return pos;
}

void wr_arrow_schema_init(struct ArrowSchema *s, const char *format, const char *name,
                            int64_t flags, int64_t n_children) {
  schema_priv *p = wr_calloc(1, sizeof *p);
  p->format = wr_strdup(format ? format : "n");
  p->name = wr_strdup(name ? name : "");
  p->child_storage = wr_calloc((size_t)(n_children ? n_children : 1), sizeof *p->child_storage);
  p->children = wr_calloc((size_t)(n_children ? n_children : 1), sizeof *p->children);
  for (int64_t i = 0; i < n_children; i++) p->children[i] = &p->child_storage[i];
  memset(s, 0, sizeof *s);
  s->format = p->format;
  s->name = p->name;
  s->flags = flags;
  s->n_children = n_children;
  s->children = n_children ? p->children : NULL;
  s->private_data = p;
  s->release = schema_release;
}

void wr_arrow_schema_copy(const struct ArrowSchema *src, struct ArrowSchema *dst) {
  wr_arrow_schema_init(dst, src->format, src->name, src->flags, src->n_children);
  schema_priv *p = dst->private_data;
  if (src->metadata) {
    size_t n = metadata_size(src->metadata);
    p->metadata = wr_malloc(n);
    memcpy(p->metadata, src->metadata, n);
    dst->metadata = p->metadata;
  }
  for (int64_t i = 0; i < src->n_children; i++)
    wr_arrow_schema_copy(src->children[i], &p->child_storage[i]);
  if (src->dictionary) {
    p->dictionary = wr_calloc(1, sizeof *p->dictionary);
    wr_arrow_schema_copy(src->dictionary, p->dictionary);
    dst->dictionary = p->dictionary;
  }
}

void wr_arrow_schema_set_child(struct ArrowSchema *s, int64_t i, struct ArrowSchema *child) {
  schema_priv *p = s->private_data;
  struct ArrowSchema *slot = &p->child_storage[i];
  if (slot->release) slot->release(slot);
  *slot = *child;
  child->release = NULL;
}

/* ---- tables ------------------------------------------------------------------------ */

void wr_arrow_table_init(wr_arrow_table *t) { memset(t, 0, sizeof *t); }

void wr_arrow_table_release(wr_arrow_table *t) {
  if (!t) return;
  if (t->schema.release) t->schema.release(&t->schema);
  for (size_t i = 0; i < t->n_batches; i++) wr_arrow_batch_unref(t->batches[i]);
  free(t->batches);
  memset(t, 0, sizeof *t);
}

void wr_arrow_table_set_schema(wr_arrow_table *t, struct ArrowSchema *schema) {
  if (t->schema.release) t->schema.release(&t->schema);
  t->schema = *schema;
  schema->release = NULL;
}

void wr_arrow_table_append_batch(wr_arrow_table *t, wr_arrow_batch *b) {
  if (t->n_batches == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 16;
    t->batches = wr_realloc(t->batches, t->cap * sizeof *t->batches);
  }
  t->batches[t->n_batches++] = wr_arrow_batch_ref(b);
  t->n_rows += b->array.length;
}

void wr_arrow_table_append(wr_arrow_table *t, struct ArrowArray *batch) {
  if (batch->length == 0) {
    if (batch->release) batch->release(batch);
    return;
  }
  wr_arrow_batch *b = wr_arrow_batch_new(batch);
  wr_arrow_table_append_batch(t, b);
  wr_arrow_batch_unref(b);
}

int64_t wr_arrow_table_ncols(const wr_arrow_table *t) {
  return t->schema.release ? t->schema.n_children : 0;
}

long wr_arrow_table_find(const wr_arrow_table *t, const char *name) {
  for (int64_t i = 0; i < wr_arrow_table_ncols(t); i++)
    if (t->schema.children[i]->name && strcmp(t->schema.children[i]->name, name) == 0) return (long)i;
  return -1;
}

int wr_arrow_table_from_stream(struct ArrowArrayStream *stream, wr_arrow_table *t,
                                 weir_error *err) {
  int rc = WEIR_OK;
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (stream->get_schema(stream, &schema) != 0) {
    const char *m = stream->get_last_error ? stream->get_last_error(stream) : NULL;
    rc = wr_seterr(err, WEIR_EENGINE, "cannot read the data's schema: %s", m ? m : "unknown error");
    goto done;
  }
  wr_arrow_table_set_schema(t, &schema);
  for (;;) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    if (stream->get_next(stream, &a) != 0) {
      const char *m = stream->get_last_error ? stream->get_last_error(stream) : NULL;
      rc = wr_seterr(err, WEIR_EENGINE, "cannot read the data: %s", m ? m : "unknown error");
      goto done;
    }
    if (!a.release) break; /* end of stream */
    wr_arrow_table_append(t, &a);
  }
done:
  if (stream->release) stream->release(stream);
  return rc;
}

void wr_arrow_table_share(const wr_arrow_table *src, wr_arrow_table *dst) {
  wr_arrow_table_init(dst);
  if (src->schema.release) wr_arrow_schema_copy(&src->schema, &dst->schema);
  for (size_t i = 0; i < src->n_batches; i++) wr_arrow_table_append_batch(dst, src->batches[i]);
}

/* ---- streams ------------------------------------------------------------------------- */

typedef struct table_stream {
  wr_arrow_table table;
  size_t next;
  char *error;
} table_stream;

static int ts_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  table_stream *ts = s->private_data;
  if (ts->error) return EIO;
  if (!ts->table.schema.release) {
    wr_arrow_schema_init(out, "+s", "", 0, 0);
    return 0;
  }
  wr_arrow_schema_copy(&ts->table.schema, out);
  return 0;
}

static int ts_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  table_stream *ts = s->private_data;
  if (ts->error) return EIO;
  if (ts->next >= ts->table.n_batches) {
    memset(out, 0, sizeof *out);
    return 0;
  }
  wr_arrow_batch *b = ts->table.batches[ts->next];
  ts->table.batches[ts->next++] = NULL;
  wr_arrow_batch_export(b, out);
  wr_arrow_batch_unref(b);
  return 0;
}

static const char *ts_last_error(struct ArrowArrayStream *s) {
  table_stream *ts = s->private_data;
  return ts->error;
}

static void ts_release(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  table_stream *ts = s->private_data;
  for (size_t i = ts->next; i < ts->table.n_batches; i++) wr_arrow_batch_unref(ts->table.batches[i]);
  ts->table.n_batches = 0;
  wr_arrow_table_release(&ts->table);
  free(ts->error);
  free(ts);
  s->release = NULL;
  s->private_data = NULL;
}

static void stream_init(struct ArrowArrayStream *out, table_stream *ts) {
  out->get_schema = ts_get_schema;
  out->get_next = ts_get_next;
  out->get_last_error = ts_last_error;
  out->release = ts_release;
  out->private_data = ts;
}

void wr_arrow_table_to_stream(wr_arrow_table *t, bool move, struct ArrowArrayStream *out) {
  table_stream *ts = wr_calloc(1, sizeof *ts);
  if (move) {
    ts->table = *t;
    memset(t, 0, sizeof *t);
  } else {
    wr_arrow_table_share(t, &ts->table);
  }
  stream_init(out, ts);
}

void wr_arrow_stream_error(struct ArrowArrayStream *out, const char *message) {
  table_stream *ts = wr_calloc(1, sizeof *ts);
  ts->error = wr_strdup(message ? message : "error");
  stream_init(out, ts);
}

/* ---- bitmaps ------------------------------------------------------------------------ */

int64_t wr_bitmap_count(const uint8_t *bits, int64_t offset, int64_t length) {
  int64_t count = 0;
  int64_t i = offset, end = offset + length;
  /* Leading bits up to a byte boundary, whole bytes with popcount, trailing bits. */
  while (i < end && (i & 7)) count += wr_bit_get(bits, i++);
  while (i + 64 <= end) {
    uint64_t w;
    memcpy(&w, bits + (i >> 3), 8);
    count += __builtin_popcountll(w);
    i += 64;
  }
  while (i + 8 <= end) {
    count += __builtin_popcount(bits[i >> 3]);
    i += 8;
  }
  while (i < end) count += wr_bit_get(bits, i++);
  return count;
}

int64_t wr_arrow_null_count(const struct ArrowArray *a) {
  if (a->null_count >= 0) return a->null_count;
  if (a->n_buffers < 1 || !a->buffers[0]) return 0;
  return a->length - wr_bitmap_count(a->buffers[0], a->offset, a->length);
}
