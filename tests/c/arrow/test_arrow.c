/* Reference-counted batches, shared exports, tables and streams: no copies, no leaks
 * (run under ASan), and consumers cannot disturb each other. */
#include "harness.h"
#include "arrow/arrow.h"

/* A batch with columns a: int64 [0..n), b: int32 with every third value null. */
static void make_batch(int64_t n, struct ArrowArray *out, struct ArrowSchema *schema) {
  wr_arrow_array_init(out, n, 1, 2);
  struct ArrowArray a, b;
  wr_arrow_array_init(&a, n, 2, 0);
  int64_t *av = wr_arrow_array_alloc_buffer(&a, 1, (size_t)n * 8);
  for (int64_t i = 0; i < n; i++) av[i] = i;
  wr_arrow_array_init(&b, n, 2, 0);
  uint8_t *valid = wr_arrow_array_alloc_buffer(&b, 0, (size_t)(n + 7) / 8);
  int32_t *bv = wr_arrow_array_alloc_buffer(&b, 1, (size_t)n * 4);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i % 3 == 0) nulls++;
    else wr_bit_set(valid, i);
    bv[i] = (int32_t)(i * 2);
  }
  b.null_count = nulls;
  wr_arrow_array_set_child(out, 0, &a);
  wr_arrow_array_set_child(out, 1, &b);
  if (schema) {
    wr_arrow_schema_init(schema, "+s", "", 0, 2);
    struct ArrowSchema sa, sb;
    wr_arrow_schema_init(&sa, "l", "a", 0, 0);
    wr_arrow_schema_init(&sb, "i", "b", ARROW_FLAG_NULLABLE, 0);
    wr_arrow_schema_set_child(schema, 0, &sa);
    wr_arrow_schema_set_child(schema, 1, &sb);
  }
}

TEST(batch_share_outlives_original) {
  struct ArrowArray arr;
  make_batch(100, &arr, NULL);
  CHECK(arr.release != NULL);
  wr_arrow_batch *b = wr_arrow_batch_new(&arr);
  CHECK(arr.release == NULL);
  struct ArrowArray e1, e2;
  wr_arrow_batch_export(b, &e1);
  wr_arrow_batch_export(b, &e2);
  wr_arrow_batch_unref(b); /* the exports keep it alive */
  CHECK(e1.children[0]->buffers[1] == e2.children[0]->buffers[1]); /* same memory */
  CHECK_INT(((const int64_t *)e1.children[0]->buffers[1])[42], 42);
  /* A consumer may move a child out of its tree (the C data interface allows it). */
  struct ArrowArray moved = *e1.children[1];
  e1.children[1]->release = NULL;
  e1.release(&e1);
  CHECK_INT(((const int32_t *)moved.buffers[1])[10], 20);
  moved.release(&moved);
  CHECK_INT(((const int64_t *)e2.children[0]->buffers[1])[99], 99);
  e2.release(&e2);
}

TEST(with_column_and_select) {
  struct ArrowArray arr;
  make_batch(10, &arr, NULL);
  wr_arrow_batch *b = wr_arrow_batch_new(&arr);
  struct ArrowArray col;
  wr_arrow_array_init(&col, 10, 2, 0);
  double *d = wr_arrow_array_alloc_buffer(&col, 1, 80);
  for (int i = 0; i < 10; i++) d[i] = i * 0.5;
  struct ArrowArray nb;
  wr_arrow_batch_with_column(b, 1, &col, &nb);
  CHECK(col.release == NULL);
  CHECK_INT(nb.n_children, 2);
  CHECK(((const double *)nb.children[1]->buffers[1])[4] == 2.0);
  int64_t pick[] = {1, 0};
  struct ArrowArray sel;
  wr_arrow_batch_select(b, pick, 2, &sel);
  CHECK_INT(((const int32_t *)sel.children[0]->buffers[1])[3], 6);
  CHECK_INT(((const int64_t *)sel.children[1]->buffers[1])[3], 3);
  wr_arrow_batch_unref(b);
  nb.release(&nb);
  sel.release(&sel);
}

TEST(borrowed_buffer_keeps_owner) {
  struct ArrowArray arr;
  make_batch(8, &arr, NULL);
  wr_arrow_batch *b = wr_arrow_batch_new(&arr);
  struct ArrowArray col;
  wr_arrow_array_init(&col, 8, 2, 0);
  wr_arrow_array_borrow_buffer(&col, 1, wr_arrow_batch_array(b)->children[0]->buffers[1], b);
  wr_arrow_batch_unref(b);
  CHECK_INT(((const int64_t *)col.buffers[1])[7], 7);
  col.release(&col);
}

TEST(table_stream_roundtrip) {
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  struct ArrowSchema schema;
  struct ArrowArray a1, a2, empty;
  make_batch(5, &a1, &schema);
  make_batch(7, &a2, NULL);
  make_batch(0, &empty, NULL);
  wr_arrow_table_set_schema(&t, &schema);
  wr_arrow_table_append(&t, &a1);
  wr_arrow_table_append(&t, &empty);
  wr_arrow_table_append(&t, &a2);
  CHECK_INT(t.n_rows, 12);
  CHECK_INT(t.n_batches, 2);
  CHECK_INT(wr_arrow_table_find(&t, "b"), 1);
  CHECK_INT(wr_arrow_table_find(&t, "zz"), -1);

  struct ArrowArrayStream s;
  wr_arrow_table_to_stream(&t, false, &s); /* shared: t still usable */
  wr_arrow_table back;
  wr_arrow_table_init(&back);
  weir_error err = {0};
  CHECK_OK(wr_arrow_table_from_stream(&s, &back, &err), &err);
  CHECK_INT(back.n_rows, 12);
  CHECK_STR(back.schema.children[1]->name, "b");
  CHECK_INT(wr_arrow_null_count(wr_arrow_batch_array(back.batches[1])->children[1]), 3);
  wr_arrow_table_release(&t);
  /* back's batches are the same memory and still valid after t is gone */
  CHECK_INT(((const int64_t *)wr_arrow_batch_array(back.batches[1])->children[0]->buffers[1])[6], 6);

  struct ArrowArrayStream s2;
  wr_arrow_table_to_stream(&back, true, &s2);
  CHECK_INT(back.n_batches, 0);
  struct ArrowArray first;
  CHECK_INT(s2.get_next(&s2, &first), 0);
  CHECK_INT(first.length, 5);
  first.release(&first);
  s2.release(&s2); /* releases the unread batch too */
}

TEST(error_stream) {
  struct ArrowArrayStream s;
  wr_arrow_stream_error(&s, "boom");
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  weir_error err = {0};
  CHECK_INT(wr_arrow_table_from_stream(&s, &t, &err), WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "boom");
  weir_error_clear(&err);
  wr_arrow_table_release(&t);
}

TEST(bitmap_count) {
  uint8_t bits[40];
  memset(bits, 0, sizeof bits);
  int64_t expect = 0;
  for (int i = 3; i < 300; i += 7) {
    wr_bit_set(bits, i);
    if (i >= 5 && i < 290) expect++;
  }
  CHECK_INT(wr_bitmap_count(bits, 5, 285), expect);
}

TEST_MAIN()
