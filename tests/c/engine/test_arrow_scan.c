/* Arrow tables registered as views and scanned in place: every type with nulls round
 * trips exactly, sliced batches are read at their offsets, fixed-width data is not
 * copied, registrations own what they need, and large tables aggregate and copy. */
#include "engine_test_util.h"

#include <duckdb.h>

#include "engine/engine_internal.h"

/* ---- value patterns ------------------------------------------------------------------- */

static void f_i8(int64_t i, void *d) { *(int8_t *)d = (int8_t)((i * 7) % 256 - 128); }
static void f_i16(int64_t i, void *d) { *(int16_t *)d = (int16_t)((i * 31) % 65536 - 32768); }
static void f_i32(int64_t i, void *d) { *(int32_t *)d = (int32_t)(i * 100003 - 2000000000); }
static void f_i64(int64_t i, void *d) { *(int64_t *)d = i * 1000000007LL - 4000000000000LL; }
static void f_u8(int64_t i, void *d) { *(uint8_t *)d = (uint8_t)(i % 256); }
static void f_u16(int64_t i, void *d) { *(uint16_t *)d = (uint16_t)(i * 13 % 65536); }
static void f_u32(int64_t i, void *d) { *(uint32_t *)d = (uint32_t)(4000000000u - (uint32_t)i); }
static void f_u64(int64_t i, void *d) { *(uint64_t *)d = 18000000000000000000ULL + (uint64_t)i; }
static void f_f32(int64_t i, void *d) { *(float *)d = (float)i / 3.0f - 100.0f; }
static void f_f64(int64_t i, void *d) { *(double *)d = (double)i / 7.0 - 1e6; }
static void f_dec(int64_t i, void *d) { /* decimal128: two's complement int128, little endian */
  int64_t v = (i - 1000) * 12345;
  int64_t w[2] = {v, v < 0 ? -1 : 0};
  memcpy(d, w, 16);
}
static void f_dec38(int64_t i, void *d) { /* a value beyond 64 bits */
  int64_t w[2] = {(int64_t)(i * 977), (int64_t)(i % 5) - 2};
  memcpy(d, w, 16);
}
static void f_date32(int64_t i, void *d) { *(int32_t *)d = (int32_t)(i - 5000); }
static void f_date64(int64_t i, void *d) { *(int64_t *)d = (i - 5000) * 86400000LL; }
static void f_ts_s(int64_t i, void *d) { *(int64_t *)d = 1700000000 + i * 37 - 40000; }
static void f_ts_ms(int64_t i, void *d) { *(int64_t *)d = 1700000000000LL + i * 3701 - 90000000; }
static void f_ts_us(int64_t i, void *d) { *(int64_t *)d = 1700000000000000LL + i * 370001 - 9000000000; }
static void f_ts_ns(int64_t i, void *d) { *(int64_t *)d = 1700000000000000000LL + i * 370000001LL; }
static void f_ts_ns_us(int64_t i, void *d) { *(int64_t *)d = 1700000000000000000LL + i * 370001000LL; }

static const char *s_short(int64_t i, char *buf) {
  snprintf(buf, 64, "s%lld", (long long)i);
  return buf;
}
static const char *s_mixed(int64_t i, char *buf) { /* over and under DuckDB's 12-byte inline limit, UTF-8 */
  if (i % 3 == 0) snprintf(buf, 128, "a longer value number %lld — ünïcødé", (long long)i);
  else if (i % 3 == 1) snprintf(buf, 128, "%lld", (long long)i);
  else buf[0] = 0;
  return buf;
}
static const char *s_bin(int64_t i, char *buf) {
  snprintf(buf, 64, "%c%cbin%lld\x7f", (char)(1 + i % 200), (char)(0x80 | (i % 100)), (long long)i);
  return buf;
}

/* A string_view column: inline values up to 12 bytes, others in one data buffer. */
static void tu_string_view(struct ArrowArray *a, int64_t n, str_fn str, int null_every) {
  wr_arrow_array_init(a, n, 4, 0);
  char tmp[256];
  size_t total = 0;
  for (int64_t i = 0; i < n; i++) total += strlen(str(i, tmp));
  uint8_t *views = wr_arrow_array_alloc_buffer(a, 1, (size_t)n * 16);
  char *data = wr_arrow_array_alloc_buffer(a, 2, total ? total : 1);
  int64_t *sizes = wr_arrow_array_alloc_buffer(a, 3, 8);
  uint8_t *valid = wr_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8);
  size_t pos = 0;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    if (null_every > 0 && i % null_every == 0) {
      nulls++;
      continue;
    }
    wr_bit_set(valid, i);
    const char *s = str(i, tmp);
    int32_t len = (int32_t)strlen(s);
    uint8_t *v = views + 16 * i;
    memcpy(v, &len, 4);
    if (len <= 12) {
      memcpy(v + 4, s, (size_t)len);
    } else {
      memcpy(v + 4, s, 4);
      int32_t bi = 0, off = (int32_t)pos;
      memcpy(v + 8, &bi, 4);
      memcpy(v + 12, &off, 4);
      memcpy(data + pos, s, (size_t)len);
      pos += (size_t)len;
    }
  }
  sizes[0] = (int64_t)pos;
  a->null_count = nulls;
}

/* A dictionary column: int32 indices into `ndict` strings, every null_every-th index null. */
typedef struct dict_priv {
  struct ArrowArray dict;
  struct ArrowArray indices;
} dict_priv;

static void dict_release(struct ArrowArray *a) {
  dict_priv *p = a->private_data;
  p->dict.release(&p->dict);
  p->indices.release(&p->indices);
  free(p);
  a->release = NULL;
}

static int64_t g_ndict;
static void f_dict_index(int64_t i, void *d) { *(int32_t *)d = (int32_t)((i * 7919) % g_ndict); }

static void tu_dictionary(struct ArrowArray *a, int64_t n, int64_t ndict, int null_every) {
  dict_priv *p = wr_calloc(1, sizeof *p);
  g_ndict = ndict;
  tu_fixed(&p->indices, n, 4, f_dict_index, null_every);
  tu_strings(&p->dict, ndict, false, s_mixed, 0);
  *a = p->indices;
  a->dictionary = &p->dict;
  a->private_data = p;
  a->release = dict_release;
}

static void noop_schema_release(struct ArrowSchema *s) { s->release = NULL; }

/* ---- the all-types table --------------------------------------------------------------- */

typedef struct col_spec {
  const char *name;
  const char *format;
  const char *out_format; /* what DuckDB exports the column as */
} col_spec;

static const col_spec SPECS[] = {
    {"bool", "b", "b"},        {"i8", "c", "c"},          {"i16", "s", "s"},
    {"i32", "i", "i"},         {"i64", "l", "l"},         {"u8", "C", "C"},
    {"u16", "S", "S"},         {"u32", "I", "I"},         {"u64", "L", "L"},
    {"f32", "f", "f"},         {"f64", "g", "g"},         {"dec", "d:18,2", "d:18,2,128"},
    {"dec38", "d:38,10", "d:38,10,128"},                  {"str", "u", "U"},
    {"lstr", "U", "U"},        {"vstr", "vu", "U"},       {"bin", "z", "Z"},
    {"lbin", "Z", "Z"},        {"d32", "tdD", "tdD"},     {"d64", "tdm", "tdD"},
    {"ts_s", "tss:", "tss:"},  {"ts_ms", "tsm:", "tsm:"}, {"ts_us", "tsu:", "tsu:"},
    {"ts_ns", "tsn:", "tsn:"}, {"tz_s", "tss:UTC", "tsu:UTC"},
    {"tz_ms", "tsm:UTC", "tsu:UTC"},                      {"tz_us", "tsu:UTC", "tsu:UTC"},
    {"tz_ns", "tsn:UTC", "tsu:UTC"},                      {"tz_paris", "tsu:Europe/Paris", "tsu:UTC"},
    {"dict", "i", "U"},
};
#define NSPECS ((int)(sizeof SPECS / sizeof SPECS[0]))

static void make_column(int k, int64_t n, struct ArrowArray *a) {
  const char *f = SPECS[k].format;
  int ne = 3 + k % 4; /* nulls in every column, at different rows */
  if (strcmp(f, "b") == 0) tu_bool(a, n, ne);
  else if (strcmp(f, "c") == 0) tu_fixed(a, n, 1, f_i8, ne);
  else if (strcmp(f, "s") == 0) tu_fixed(a, n, 2, f_i16, ne);
  else if (strcmp(f, "i") == 0 && strcmp(SPECS[k].name, "dict") == 0) tu_dictionary(a, n, 37, ne);
  else if (strcmp(f, "i") == 0) tu_fixed(a, n, 4, f_i32, ne);
  else if (strcmp(f, "l") == 0) tu_fixed(a, n, 8, f_i64, ne);
  else if (strcmp(f, "C") == 0) tu_fixed(a, n, 1, f_u8, ne);
  else if (strcmp(f, "S") == 0) tu_fixed(a, n, 2, f_u16, ne);
  else if (strcmp(f, "I") == 0) tu_fixed(a, n, 4, f_u32, ne);
  else if (strcmp(f, "L") == 0) tu_fixed(a, n, 8, f_u64, ne);
  else if (strcmp(f, "f") == 0) tu_fixed(a, n, 4, f_f32, ne);
  else if (strcmp(f, "g") == 0) tu_fixed(a, n, 8, f_f64, ne);
  else if (strcmp(f, "d:18,2") == 0) tu_fixed(a, n, 16, f_dec, ne);
  else if (strcmp(f, "d:38,10") == 0) tu_fixed(a, n, 16, f_dec38, ne);
  else if (strcmp(f, "u") == 0) tu_strings(a, n, false, s_mixed, ne);
  else if (strcmp(f, "U") == 0) tu_strings(a, n, true, s_short, ne);
  else if (strcmp(f, "vu") == 0) tu_string_view(a, n, s_mixed, ne);
  else if (strcmp(f, "z") == 0) tu_strings(a, n, false, s_bin, ne);
  else if (strcmp(f, "Z") == 0) tu_strings(a, n, true, s_bin, ne);
  else if (strcmp(f, "tdD") == 0) tu_fixed(a, n, 4, f_date32, ne);
  else if (strcmp(f, "tdm") == 0) tu_fixed(a, n, 8, f_date64, ne);
  else if (f[0] == 't' && f[2] == 's') tu_fixed(a, n, 8, f_ts_s, ne);
  else if (f[0] == 't' && f[2] == 'm') tu_fixed(a, n, 8, f_ts_ms, ne);
  else if (f[0] == 't' && f[2] == 'u') tu_fixed(a, n, 8, f_ts_us, ne);
  else if (strcmp(f, "tsn:") == 0) tu_fixed(a, n, 8, f_ts_ns, ne);
  else if (strcmp(f, "tsn:UTC") == 0) tu_fixed(a, n, 8, f_ts_ns_us, ne); /* DuckDB keeps microseconds */
}

static void all_types_schema(struct ArrowSchema *s) {
  wr_arrow_schema_init(s, "+s", "", 0, NSPECS);
  for (int k = 0; k < NSPECS; k++) {
    struct ArrowSchema c;
    if (strcmp(SPECS[k].name, "dict") == 0) {
      struct ArrowSchema vals = {.format = "u", .name = "", .flags = ARROW_FLAG_NULLABLE, .release = noop_schema_release};
      struct ArrowSchema field = {.format = "i", .name = "dict", .flags = ARROW_FLAG_NULLABLE, .dictionary = &vals,
                                  .release = noop_schema_release};
      wr_arrow_schema_copy(&field, &c);
    } else {
      wr_arrow_schema_init(&c, SPECS[k].format, SPECS[k].name, ARROW_FLAG_NULLABLE, 0);
    }
    wr_arrow_schema_set_child(s, k, &c);
  }
}

static void append_all_types_batch(wr_arrow_table *t, int64_t n) {
  struct ArrowArray cols[NSPECS];
  for (int k = 0; k < NSPECS; k++) make_column(k, n, &cols[k]);
  struct ArrowArray batch;
  tu_batch(&batch, n, NSPECS, cols);
  wr_arrow_table_append(t, &batch);
}

TEST(round_trip_every_type_with_nulls) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  struct ArrowSchema s;
  all_types_schema(&s);
  wr_arrow_table_set_schema(&t, &s);
  /* Batch sizes around DuckDB's vector size, so slices start mid-batch. */
  append_all_types_batch(&t, 5000);
  append_all_types_batch(&t, 1);
  append_all_types_batch(&t, 2048);
  append_all_types_batch(&t, 3001);
  CHECK_OK(wr_engine_register_arrow(e, "every", &t, &err), &err);
  wr_arrow_table back;
  CHECK_OK(wr_engine_query_table(e, "SELECT * FROM every", &back, &err), &err);
  CHECK_INT(back.n_rows, t.n_rows);
  CHECK_INT(wr_arrow_table_ncols(&back), NSPECS);
  for (int k = 0; k < NSPECS && k < wr_arrow_table_ncols(&back); k++) {
    CHECK_STR(back.schema.children[k]->name, SPECS[k].name);
    CHECK_STR(back.schema.children[k]->format, SPECS[k].out_format);
    int64_t d = tu_compare_columns(&t, k, &back, k);
    if (d) fprintf(stderr, "  column %s: %lld rows differ\n", SPECS[k].name, (long long)d);
    CHECK_INT(d, 0);
  }
  /* Nulls: counted by DuckDB as Arrow has them. */
  CHECK(tu_double(e, "SELECT count(*) - count(i64) FROM every") == (double)(1667 + 1 + 683 + 1001));
  /* A tz-aware column in another zone is the same instant in UTC. */
  CHECK(tu_double(e, "SELECT count(*) FROM every WHERE tz_paris <> tz_us") == 0);
  wr_arrow_table_release(&back);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
}

/* A batch whose struct has offset 3 and length 10 over columns of 20 values, the second
 * column itself offset by 5 (as Arrow slicing produces). */
TEST(sliced_batches_are_read_at_their_offsets) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  struct ArrowArray cols[3];
  tu_fixed(&cols[0], 20, 8, f_i64, 4);
  tu_strings(&cols[1], 25, true, s_mixed, 6);
  cols[1].offset = 5;
  cols[1].length = 20;
  cols[1].null_count = -1; /* unknown, as producers may say */
  tu_dictionary(&cols[2], 20, 7, 3);
  struct ArrowArray batch;
  tu_batch(&batch, 20, 3, cols);
  batch.offset = 3;
  batch.length = 10;
  const char *names[] = {"a", "b", "c"};
  const char *fmts[] = {"l", "U", "i"};
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  struct ArrowSchema s;
  tu_schema(&s, 2, names, fmts);
  /* the dictionary field */
  struct ArrowSchema vals = {.format = "u", .name = "", .flags = 2, .release = noop_schema_release};
  struct ArrowSchema fc = {.format = "i", .name = "c", .flags = 2, .dictionary = &vals, .release = noop_schema_release};
  struct ArrowSchema s3, c3;
  wr_arrow_schema_init(&s3, "+s", "", 0, 3);
  for (int i = 0; i < 2; i++) {
    struct ArrowSchema c;
    wr_arrow_schema_copy(s.children[i], &c);
    wr_arrow_schema_set_child(&s3, i, &c);
  }
  wr_arrow_schema_copy(&fc, &c3);
  wr_arrow_schema_set_child(&s3, 2, &c3);
  s.release(&s);
  wr_arrow_table_set_schema(&t, &s3);
  wr_arrow_table_append(&t, &batch);
  CHECK_OK(wr_engine_register_arrow(e, "sliced", &t, &err), &err);
  wr_arrow_table back;
  CHECK_OK(wr_engine_query_table(e, "SELECT * FROM sliced", &back, &err), &err);
  CHECK_INT(back.n_rows, 10);
  for (int k = 0; k < 3; k++) CHECK_INT(tu_compare_columns(&t, k, &back, k), 0);
  /* Spot checks against the patterns: row 0 of the slice is value 3 of column a (null
   * at 4) and value 8 of column b's buffer. */
  char *v = tu_json_value(e, "SELECT a FROM sliced LIMIT 1", "a");
  char want[64];
  int64_t a3;
  f_i64(3, &a3);
  snprintf(want, sizeof want, "%lld", (long long)a3);
  CHECK_STR(v, want);
  free(v);
  CHECK(tu_double(e, "SELECT count(*) FROM sliced WHERE a IS NULL") == 3); /* values 4, 8 and 12 */
  v = tu_json_value(e, "SELECT b FROM sliced LIMIT 1 OFFSET 1", "b"); /* buffer value 9 */
  CHECK_STR(v, "\"a longer value number 9 — ünïcødé\"");
  free(v);
  wr_arrow_table_release(&back);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
}

TEST(fixed_width_columns_are_not_copied) {
  wr_engine *e = tu_open();
  duckdb_connection conn = wr_engine_connection(e);
  const char *fmts[] = {"l", "g", "tdD", "tsu:", "tsu:UTC", "i", "U"};
  size_t widths[] = {8, 8, 4, 8, 8, 4, 0};
  fill_fn fills[] = {f_i64, f_f64, f_date32, f_ts_us, f_ts_us, f_i32, NULL};
  for (int k = 0; k < 7; k++) {
    struct ArrowArray col;
    if (widths[k]) tu_fixed(&col, 5000, widths[k], fills[k], 7);
    else tu_strings(&col, 5000, true, s_mixed, 7);
    struct ArrowArray batch;
    tu_batch(&batch, 5000, 1, &col);
    batch.offset = 10; /* and a root offset on top */
    batch.length = 4990;
    wr_arrow_batch *b = wr_arrow_batch_new(&batch);
    struct ArrowSchema field;
    wr_arrow_schema_init(&field, fmts[k], "x", ARROW_FLAG_NULLABLE, 0);
    char *msg = NULL;
    duckdb_arrow_converted_schema conv = wr_eng_arrow_convert_field(conn, &field, &msg);
    CHECK(conv != NULL);
    duckdb_data_chunk ch = wr_eng_arrow_slice(conn, b, 0, conv, 2048, 2048, &msg);
    CHECK(ch != NULL);
    if (ch) {
      duckdb_vector v = duckdb_data_chunk_get_vector(ch, 0);
      const struct ArrowArray *c = wr_arrow_batch_array(b)->children[0];
      int64_t first = 10 + 2048; /* root offset + slice start */
      if (widths[k]) {
        /* The vector's data is the Arrow buffer itself, at the slice. */
        CHECK(duckdb_vector_get_data(v) == (const char *)c->buffers[1] + first * (int64_t)widths[k]);
      } else {
        /* Strings: DuckDB's headers point into the Arrow data buffer for long values. */
        duckdb_string_t *st = duckdb_vector_get_data(v);
        int64_t row = 0;
        while ((first + row) % 3 != 0 || (first + row) % 7 == 0) row++;
        const int64_t *offs = c->buffers[1];
        CHECK(duckdb_string_t_data(&st[row]) == (const char *)c->buffers[2] + offs[first + row]);
      }
      /* Nulls are where Arrow has them. */
      uint64_t *valid = duckdb_vector_get_validity(v);
      CHECK(valid != NULL);
      for (int64_t r = 0; valid && r < 2048; r++)
        if (duckdb_validity_row_is_valid(valid, (idx_t)r) != ((first + r) % 7 != 0)) {
          CHECK(false);
          break;
        }
      duckdb_destroy_data_chunk(&ch);
    }
    free(msg);
    duckdb_destroy_arrow_converted_schema(&conv);
    field.release(&field);
    wr_arrow_batch_unref(b); /* the chunk held its own reference until destroyed */
  }
  wr_engine_close(e);
}

TEST(scan_reads_the_buffers_in_place) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  struct ArrowArray col;
  tu_fixed(&col, 100, 8, f_i64, 0);
  int64_t *data = (int64_t *)col.buffers[1];
  struct ArrowArray batch;
  tu_batch(&batch, 100, 1, &col);
  const char *names[] = {"v"};
  const char *fmts[] = {"l"};
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  struct ArrowSchema s;
  tu_schema(&s, 1, names, fmts);
  wr_arrow_table_set_schema(&t, &s);
  wr_arrow_table_append(&t, &batch);
  CHECK_OK(wr_engine_register_arrow(e, "live", &t, &err), &err);
  CHECK(tu_double(e, "SELECT v FROM live LIMIT 1 OFFSET 50") == (double)(50 * 1000000007LL - 4000000000000LL));
  data[50] = 424242; /* not something to do in real code: shows nothing was copied */
  CHECK(tu_double(e, "SELECT v FROM live LIMIT 1 OFFSET 50") == 424242);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
}

static void f_seq(int64_t i, void *d) { *(int64_t *)d = i; }
static void f_mod(int64_t i, void *d) { *(int32_t *)d = (int32_t)(i % 1000); }

static void make_big(wr_arrow_table *t, int64_t rows, int64_t per_batch) {
  wr_arrow_table_init(t);
  const char *names[] = {"x", "g"};
  const char *fmts[] = {"l", "i"};
  struct ArrowSchema s;
  tu_schema(&s, 2, names, fmts);
  wr_arrow_table_set_schema(t, &s);
  for (int64_t done = 0; done < rows; done += per_batch) {
    int64_t n = rows - done < per_batch ? rows - done : per_batch;
    struct ArrowArray cols[2];
    tu_fixed(&cols[0], n, 8, f_seq, 0);
    tu_fixed(&cols[1], n, 4, f_mod, 0);
    int64_t *x = (int64_t *)cols[0].buffers[1];
    for (int64_t i = 0; i < n; i++) x[i] += done;
    struct ArrowArray batch;
    tu_batch(&batch, n, 2, cols);
    wr_arrow_table_append(t, &batch);
  }
}

TEST(ten_million_rows_aggregate_in_parallel) {
  wr_engine *e = NULL;
  weir_error err = {0};
  wr_engine_options o = {4, NULL, NULL, NULL};
  CHECK_OK(wr_engine_open(&o, &e, &err), &err);
  wr_arrow_table t;
  const int64_t N = 10000000;
  make_big(&t, N, 1000000);
  CHECK_OK(wr_engine_register_arrow(e, "big", &t, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM big") == (double)N);
  CHECK(tu_double(e, "SELECT sum(x) FROM big") == (double)N * (N - 1) / 2);
  CHECK(tu_double(e, "SELECT max(x) - min(x) FROM big") == (double)(N - 1));
  CHECK(tu_double(e, "SELECT count(*) FROM (SELECT g, count(*) c FROM big GROUP BY g) WHERE c = 10000") == 1000);
  /* Only the used column is scanned (projection pushdown), and order is kept for
   * order-sensitive results. */
  CHECK(tu_double(e, "SELECT count(*) FROM (SELECT x, row_number() OVER () - 1 AS r FROM big) WHERE x <> r") == 0);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
}

TEST(copy_registered_table_to_parquet) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  struct ArrowSchema s;
  all_types_schema(&s);
  wr_arrow_table_set_schema(&t, &s);
  append_all_types_batch(&t, 7000);
  wr_arrow_table big;
  make_big(&big, 300000, 100000);
  CHECK_OK(wr_engine_register_arrow(e, "every", &t, &err), &err);
  CHECK_OK(wr_engine_register_arrow(e, "big", &big, &err), &err);
  char *sql = wr_asprintf("COPY (SELECT * FROM every) TO '%s/every.parquet' (FORMAT parquet); "
                            "COPY (SELECT * FROM big) TO '%s/big.parquet' (FORMAT parquet)",
                            dir, dir);
  CHECK_OK(wr_engine_exec(e, sql, &err), &err);
  free(sql);
  sql = wr_asprintf("SELECT * FROM read_parquet('%s/every.parquet')", dir);
  wr_arrow_table back;
  CHECK_OK(wr_engine_query_table(e, sql, &back, &err), &err);
  free(sql);
  CHECK_INT(back.n_rows, 7000);
  for (int k = 0; k < NSPECS && k < wr_arrow_table_ncols(&back); k++) CHECK_INT(tu_compare_columns(&t, k, &back, k), 0);
  wr_arrow_table_release(&back);
  sql = wr_asprintf("SELECT sum(x) FROM read_parquet('%s/big.parquet')", dir);
  CHECK(tu_double(e, sql) == 300000.0 * 299999 / 2);
  free(sql);
  wr_arrow_table_release(&big);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(large_dictionaries_and_null_values) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  /* A dictionary longer than a slice, with nulls both in indices and in values. */
  const int64_t N = 20000, D = 9000;
  struct ArrowArray col;
  tu_dictionary(&col, N, D, 11);
  dict_priv *p = col.private_data;
  uint8_t *dv = wr_arrow_array_alloc_buffer(&p->dict, 0, (size_t)(D + 7) / 8);
  for (int64_t i = 0; i < D; i++)
    if (i % 5 != 0) wr_bit_set(dv, i);
  p->dict.null_count = (D + 4) / 5;
  struct ArrowArray batch;
  tu_batch(&batch, N, 1, &col);
  struct ArrowSchema vals = {.format = "u", .name = "", .flags = 2, .release = noop_schema_release};
  struct ArrowSchema fc = {.format = "i", .name = "c", .flags = 2, .dictionary = &vals, .release = noop_schema_release};
  struct ArrowSchema s, c;
  wr_arrow_schema_init(&s, "+s", "", 0, 1);
  wr_arrow_schema_copy(&fc, &c);
  wr_arrow_schema_set_child(&s, 0, &c);
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  wr_arrow_table_set_schema(&t, &s);
  wr_arrow_table_append(&t, &batch);
  CHECK_OK(wr_engine_register_arrow(e, "dict", &t, &err), &err);
  wr_arrow_table back;
  CHECK_OK(wr_engine_query_table(e, "SELECT * FROM dict", &back, &err), &err);
  CHECK_INT(back.n_rows, N);
  CHECK_INT(tu_compare_columns(&t, 0, &back, 0), 0);
  wr_arrow_table_release(&back);
  /* Nulls: a null index, or an index to a null value. */
  int64_t nulls = 0;
  for (int64_t i = 0; i < N; i++)
    if (i % 11 == 0 || ((i * 7919) % D) % 5 == 0) nulls++;
  CHECK(tu_double(e, "SELECT count(*) - count(c) FROM dict") == (double)nulls);
  CHECK(tu_double(e, "SELECT count(DISTINCT c) FROM dict") > 1000);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
}

TEST(long_dictionaries_change_between_batches) {
  /* Batches with dictionaries of different lengths, around the length from which the scan
   * keeps a converted dictionary per thread, read in parallel: every row is checked. */
  wr_engine *e = NULL;
  weir_error err = {0};
  wr_engine_options o = {3, NULL, NULL, NULL};
  CHECK_OK(wr_engine_open(&o, &e, &err), &err);
  struct ArrowSchema vals = {.format = "u", .name = "", .flags = 2, .release = noop_schema_release};
  struct ArrowSchema fc = {.format = "i", .name = "c", .flags = 2, .dictionary = &vals, .release = noop_schema_release};
  struct ArrowSchema s, c;
  wr_arrow_schema_init(&s, "+s", "", 0, 1);
  wr_arrow_schema_copy(&fc, &c);
  wr_arrow_schema_set_child(&s, 0, &c);
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  wr_arrow_table_set_schema(&t, &s);
  const int64_t dict_lens[] = {5000, 4095, 4096, 70000, 12};
  for (int i = 0; i < 5; i++) {
    struct ArrowArray col, batch;
    tu_dictionary(&col, 150000 + i * 1000, dict_lens[i], 13 + i);
    tu_batch(&batch, col.length, 1, &col);
    wr_arrow_table_append(&t, &batch);
  }
  CHECK_OK(wr_engine_register_arrow(e, "dicts", &t, &err), &err);
  wr_arrow_table back;
  CHECK_OK(wr_engine_query_table(e, "SELECT * FROM dicts", &back, &err), &err);
  CHECK_INT(back.n_rows, t.n_rows);
  CHECK_INT(tu_compare_columns(&t, 0, &back, 0), 0);
  wr_arrow_table_release(&back);
  /* The same through a parallel aggregation: counts per value match a serial count. */
  CHECK(tu_double(e, "SELECT count(*) FROM dicts WHERE c IS NULL") ==
        tu_double(e, "SELECT count(*) FROM (SELECT c FROM dicts ORDER BY ALL) WHERE c IS NULL"));
  int64_t expect = 0;
  for (int i = 0; i < 5; i++) {
    int64_t n = 150000 + i * 1000;
    for (int64_t r = 0; r < n; r++)
      if (r % (13 + i) != 0 && ((r * 7919) % dict_lens[i]) % 3 == 1) expect++; /* s_mixed: plain numbers */
  }
  CHECK(tu_double(e, "SELECT count(*) FROM dicts WHERE length(c) BETWEEN 1 AND 6 AND c NOT LIKE '% %'") == (double)expect);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
}

TEST(nested_types_and_root_offsets) {
  /* Lists, structs and maps as DuckDB exports them, re-registered with every batch sliced
   * by one row at the root (as pyarrow's RecordBatch.slice produces). */
  wr_engine *e = tu_open();
  weir_error err = {0};
  const char *q = "SELECT range AS id, [range, range + 1, NULL] AS l, {'a': range, 'b': 'x' || range} AS st, "
                  "CASE WHEN range % 3 = 0 THEN NULL ELSE MAP {'k': range} END AS m, "
                  "CASE WHEN range % 4 = 0 THEN NULL ELSE [[range], []] END AS ll FROM range(5000)";
  wr_arrow_table src;
  CHECK_OK(wr_engine_query_table(e, q, &src, &err), &err);
  wr_arrow_table sliced;
  wr_arrow_table_init(&sliced);
  struct ArrowSchema sc;
  wr_arrow_schema_copy(&src.schema, &sc);
  wr_arrow_table_set_schema(&sliced, &sc);
  for (size_t i = 0; i < src.n_batches; i++) {
    struct ArrowArray a;
    wr_arrow_batch_export(src.batches[i], &a); /* our own struct tree over the same buffers */
    a.offset += 1;
    a.length -= 1;
    wr_arrow_table_append(&sliced, &a);
  }
  CHECK_OK(wr_engine_register_arrow(e, "nested", &sliced, &err), &err);
  /* Expected: the same rows without the first of each batch. */
  json_t *want = json_array(), *got = NULL;
  int64_t first = 0;
  for (size_t i = 0; i < src.n_batches; i++) {
    int64_t len = wr_arrow_batch_length(src.batches[i]);
    char *sql = wr_asprintf("SELECT * FROM (%s) WHERE id > %lld AND id < %lld ORDER BY id", q, (long long)first,
                              (long long)(first + len));
    json_t *part = NULL;
    CHECK_OK(wr_engine_query_json(e, sql, &part, &err), &err);
    json_array_extend(want, part);
    json_decref(part);
    free(sql);
    first += len;
  }
  CHECK_OK(wr_engine_query_json(e, "SELECT * FROM nested", &got, &err), &err);
  CHECK_INT(json_array_size(got), 5000 - (int64_t)src.n_batches);
  CHECK(json_equal(want, got));
  json_decref(want);
  json_decref(got);
  wr_arrow_table_release(&sliced);
  wr_arrow_table_release(&src);
  wr_engine_close(e);
}

TEST(registrations_own_their_data_and_names) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_arrow_table t;
  make_big(&t, 5000, 5000);
  CHECK_OK(wr_engine_register_arrow(e, "mine", &t, &err), &err);
  wr_arrow_table_release(&t); /* the registration holds its own references */
  CHECK(tu_double(e, "SELECT sum(x) FROM mine") == 5000.0 * 4999 / 2);
  /* Re-registering a name replaces the table. */
  make_big(&t, 10, 10);
  CHECK_OK(wr_engine_register_arrow(e, "mine", &t, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM mine") == 10);
  /* Qualified names: a schema, and for the default namespace the bare name too. */
  CHECK_OK(wr_engine_register_arrow(e, "staging.orders", &t, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM staging.orders") == 10);
  CHECK_OK(wr_engine_register_arrow(e, "default.people", &t, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM people") == 10);
  CHECK(tu_double(e, "SELECT count(*) FROM default.people") == 10);
  wr_arrow_table_release(&t);
  /* Unregistering drops the view; unknown names are reported. */
  CHECK_OK(wr_engine_unregister(e, "mine", &err), &err);
  CHECK_OK(wr_engine_unregister(e, "default.people", &err), &err);
  wr_arrow_table back;
  CHECK_INT(wr_engine_query_table(e, "SELECT * FROM mine", &back, &err), WEIR_EENGINE);
  CHECK_INT(wr_engine_query_table(e, "SELECT * FROM people", &back, &err), WEIR_EENGINE);
  CHECK_INT(wr_engine_unregister(e, "mine", &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "mine");
  /* The scan function cannot be pointed at anything but a registration. */
  CHECK_INT(wr_engine_query_table(e, "SELECT * FROM weir_arrow_scan(987654)", &back, &err), WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "no Arrow table is registered with id 987654");
  weir_error_clear(&err);
  wr_engine_close(e); /* with staging.orders still registered */
}

TEST(empty_and_unreadable_tables) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  struct ArrowSchema s;
  all_types_schema(&s);
  wr_arrow_table_set_schema(&t, &s);
  CHECK_OK(wr_engine_register_arrow(e, "nothing", &t, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM nothing") == 0);
  wr_schema sch;
  CHECK_OK(wr_engine_describe(e, "SELECT * FROM nothing", &sch, &err), &err);
  CHECK_INT(sch.n_fields, NSPECS);
  wr_schema_clear(&sch);
  wr_arrow_table_release(&t);
  /* decimal256 is beyond DuckDB: refused at registration, naming the column. */
  const char *names[] = {"ok", "huge"};
  const char *fmts[] = {"l", "d:60,2,256"};
  wr_arrow_table_init(&t);
  tu_schema(&s, 2, names, fmts);
  wr_arrow_table_set_schema(&t, &s);
  CHECK_INT(wr_engine_register_arrow(e, "bad", &t, &err), WEIR_EUNSUPPORTED);
  CHECK_CONTAINS(err.message, "cannot register Arrow table bad: column \"huge\"");
  wr_arrow_table_release(&t);
  /* A batch whose column is shorter than the batch: refused, not read past its end. */
  {
    const char *n1[] = {"v"};
    const char *f1[] = {"l"};
    wr_arrow_table_init(&t);
    tu_schema(&s, 1, n1, f1);
    wr_arrow_table_set_schema(&t, &s);
    struct ArrowArray col, batch;
    tu_fixed(&col, 5, 8, f_i64, 0);
    tu_batch(&batch, 10, 1, &col);
    wr_arrow_table_append(&t, &batch);
    CHECK_INT(wr_engine_register_arrow(e, "short", &t, &err), WEIR_EINVALIDARG);
    CHECK_CONTAINS(err.message, "column \"v\" of batch 0 is shorter than the batch");
    wr_arrow_table_release(&t);
  }
  /* No schema at all. */
  wr_arrow_table_init(&t);
  CHECK_INT(wr_engine_register_arrow(e, "bad", &t, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  wr_engine_close(e);
}

TEST(stream_over_registered_table_survives_unregister) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_arrow_table t;
  make_big(&t, 50000, 7000);
  CHECK_OK(wr_engine_register_arrow(e, "tmp", &t, &err), &err);
  wr_arrow_table_release(&t);
  struct ArrowArrayStream st;
  CHECK_OK(wr_engine_query_stream(e, "SELECT x FROM tmp", &st, &err), &err);
  CHECK_OK(wr_engine_unregister(e, "tmp", &err), &err); /* settles the stream first */
  wr_arrow_table back;
  wr_arrow_table_init(&back);
  CHECK_OK(wr_arrow_table_from_stream(&st, &back, &err), &err);
  CHECK_INT(back.n_rows, 50000);
  wr_arrow_table_release(&back);
  wr_engine_close(e);
}

TEST_MAIN()
