/*
 * arrow.h -- Arrow C Data Interface plumbing: in-memory tables of record batches, streams
 * over them, zero-copy sharing, and arrays whose buffers weir allocates (cast columns).
 *
 * Ownership follows the C Data Interface: whoever holds a struct with a non-NULL
 * `release` owns it and must call release exactly once. A wr_arrow_table owns its
 * schema and batches. Sharing never copies buffers: a shared batch is a new tree of
 * ArrowArray structs pointing at the same buffers plus a reference on the original,
 * which is released when the last sharer is.
 */
#ifndef WEIR_ARROW_ARROW_H
#define WEIR_ARROW_ARROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/error.h"
#include "weir.h"

/* ---- batches ------------------------------------------------------------------------ */

/* A record batch (a struct array, one child per column) held by reference count, so that
 * several consumers can use the same buffers and the last one frees them. */
typedef struct wr_arrow_batch wr_arrow_batch;

/* Takes ownership of `array` (moved: its release is set to NULL). Refcount 1. */
wr_arrow_batch *wr_arrow_batch_new(struct ArrowArray *array);
wr_arrow_batch *wr_arrow_batch_ref(wr_arrow_batch *b);
void wr_arrow_batch_unref(wr_arrow_batch *b);
/* The batch's array (borrowed; valid while a reference is held). */
const struct ArrowArray *wr_arrow_batch_array(const wr_arrow_batch *b);
int64_t wr_arrow_batch_length(const wr_arrow_batch *b);

/* Exports the batch as a new ArrowArray tree whose buffers are the batch's memory (no
 * data copy). The export holds a reference on `b` until it is released. */
void wr_arrow_batch_export(wr_arrow_batch *b, struct ArrowArray *out);
/* Exports one column (child `col`) the same way. The parent's offset is not folded in:
 * callers that use a column on its own add the batch's offset to the column's. */
void wr_arrow_batch_export_column(wr_arrow_batch *b, int64_t col, struct ArrowArray *out);
/* A batch with the same columns as `b` except column `col`, replaced by `column` (moved
 * in). The new batch keeps b's length and offset, so `column` must be indexed like b's
 * other children (for the usual offset-0 batch: length = batch length). Other columns
 * are shared. */
void wr_arrow_batch_with_column(wr_arrow_batch *b, int64_t col, struct ArrowArray *column,
                                  struct ArrowArray *out);
/* A batch made of columns `cols` of `b`, in that order (shared, no copy). */
void wr_arrow_batch_select(wr_arrow_batch *b, const int64_t *cols, int64_t n,
                             struct ArrowArray *out);

/* ---- tables ------------------------------------------------------------------------ */

/* A table: a struct schema ("+s", one child per column) and its record batches. */
typedef struct wr_arrow_table {
  struct ArrowSchema schema;     /* release == NULL until set */
  wr_arrow_batch **batches;
  size_t n_batches;
  size_t cap;
  int64_t n_rows;
} wr_arrow_table;

void wr_arrow_table_init(wr_arrow_table *t);
/* Releases the schema and drops the table's references on its batches. */
void wr_arrow_table_release(wr_arrow_table *t);
/* Takes ownership of `schema` (moved: its release is set to NULL). */
void wr_arrow_table_set_schema(wr_arrow_table *t, struct ArrowSchema *schema);
/* Appends a batch, taking ownership (moved). Batches of length 0 are released. */
void wr_arrow_table_append(wr_arrow_table *t, struct ArrowArray *batch);
/* Appends another reference to an existing batch. */
void wr_arrow_table_append_batch(wr_arrow_table *t, wr_arrow_batch *b);
/* Number of columns (children of the schema). */
int64_t wr_arrow_table_ncols(const wr_arrow_table *t);
/* Index of the column named `name`, or -1. */
long wr_arrow_table_find(const wr_arrow_table *t, const char *name);

/* Drains `stream` into `t` (which must be freshly initialised): the batches are moved,
 * not copied. The stream is released. Errors: WEIR_EENGINE with the stream's message. */
int wr_arrow_table_from_stream(struct ArrowArrayStream *stream, wr_arrow_table *t,
                                 weir_error *err);
/* A stream over the table's batches. With `move` the table is emptied into the stream;
 * otherwise the stream holds references and the table stays usable (either may be
 * released first). The caller releases *out. */
void wr_arrow_table_to_stream(wr_arrow_table *t, bool move, struct ArrowArrayStream *out);
/* dst: a new table sharing every batch of src and a copy of its schema. */
void wr_arrow_table_share(const wr_arrow_table *src, wr_arrow_table *dst);

/* ---- schemas ------------------------------------------------------------------------ */

/* Deep copy of a schema tree (format, name, metadata, flags, children, dictionary). */
void wr_arrow_schema_copy(const struct ArrowSchema *src, struct ArrowSchema *dst);
/* A new schema node with copies of format and name and `n_children` children, each
 * released (release NULL) until set with wr_arrow_schema_set_child. */
void wr_arrow_schema_init(struct ArrowSchema *s, const char *format, const char *name,
                            int64_t flags, int64_t n_children);
/* Sets child i of a schema made by wr_arrow_schema_init or _copy (an old child is
 * released; `child` is moved in). */
void wr_arrow_schema_set_child(struct ArrowSchema *s, int64_t i, struct ArrowSchema *child);

/* ---- arrays weir builds -------------------------------------------------------------- */

/* A new array node with `n_buffers` buffers and `n_children` children, all owned by it:
 * buffers allocated with wr_arrow_array_alloc_buffer are freed by release, buffers
 * borrowed with wr_arrow_array_borrow_buffer keep their batch alive until then, and
 * children set with wr_arrow_array_set_child are released with it. null_count and
 * offset start at 0. */
void wr_arrow_array_init(struct ArrowArray *a, int64_t length, int64_t n_buffers,
                           int64_t n_children);
/* Allocates buffer i of `size` bytes (64-byte aligned, zero-filled) and returns it. */
void *wr_arrow_array_alloc_buffer(struct ArrowArray *a, int64_t i, size_t size);
/* The same without zero-filling the first `size` bytes (the padding after them is
 * zeroed), for writers that fill every byte they use: zeroing a buffer that is about to
 * be overwritten is a whole extra pass over memory. */
void *wr_arrow_array_alloc_buffer_uninit(struct ArrowArray *a, int64_t i, size_t size);
/* Points buffer i at memory that belongs to batch `owner` (no copy; a reference on
 * owner is held until `a` is released). */
void wr_arrow_array_borrow_buffer(struct ArrowArray *a, int64_t i, const void *data,
                                    wr_arrow_batch *owner);
/* Sets child i (moved in). */
void wr_arrow_array_set_child(struct ArrowArray *a, int64_t i, struct ArrowArray *child);

/* ---- bitmaps ------------------------------------------------------------------------ */

static inline bool wr_bit_get(const uint8_t *bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void wr_bit_set(uint8_t *bits, int64_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }
static inline void wr_bit_clear(uint8_t *bits, int64_t i) {
  bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
}
/* Number of set bits in [offset, offset + length) of a bitmap. */
int64_t wr_bitmap_count(const uint8_t *bits, int64_t offset, int64_t length);
/* Null count of a column array, computing it from the validity bitmap when the producer
 * left null_count at -1. */
int64_t wr_arrow_null_count(const struct ArrowArray *a);

/* ---- streams from callbacks ------------------------------------------------------------ */

/* A stream that fails on first use with `message` (for reporting errors through APIs
 * that must return a stream). */
void wr_arrow_stream_error(struct ArrowArrayStream *out, const char *message);

#endif
