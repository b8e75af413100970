/*
 * test_avro.c -- the Avro object container weir writes for manifests and manifest lists:
 * the header parsed back byte by byte (magic, metadata keys with exact values, the schema
 * JSON verbatim with its field ids), records read back, blocks, avro-c's own file reader
 * on our files, and files compressed by another writer.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "iceberg/iceberg_internal.h"
#include "util/fs.h"
#include "util/json.h"

/* A data file with statistics for field ids 1 (long) and 2 (string). */
static void sample_file(iceberg_data_file *f, int i) {
  memset(f, 0, sizeof *f);
  char path[64];
  snprintf(path, sizeof path, "/lake/t/data/file-%04d.parquet", i);
  f->path = strdup(path);
  f->record_count = 100 + i;
  f->file_size = 4096 + i;
  f->n_stats = 2;
  f->stats = calloc(2, sizeof *f->stats);
  f->stats[0] = (iceberg_column_stats){1, 100 + i, 0, -1, 800, NULL, 0, NULL, 0};
  iceberg_bound_from_text((weir_type){WEIR_TYPE_INT64, 0, 0}, "1", false, &f->stats[0].lower,
                          &f->stats[0].lower_len);
  iceberg_bound_from_text((weir_type){WEIR_TYPE_INT64, 0, 0}, "891", true, &f->stats[0].upper,
                          &f->stats[0].upper_len);
  f->stats[1] = (iceberg_column_stats){2, 100 + i, 7, -1, -1, NULL, 0, NULL, 0};
  iceberg_bound_from_text((weir_type){WEIR_TYPE_STRING, 0, 0}, "Abbing", false,
                          &f->stats[1].lower, &f->stats[1].lower_len);
}

static const char SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":3,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,"
    "\"type\":\"long\"},{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"}]}";

/* Every field of every record in an Avro schema has a "field-id" (and maps key/value ids). */
static int count_missing_field_ids(const json_t *type) {
  int missing = 0;
  if (json_is_array(type)) {
    size_t i;
    json_t *b;
    json_array_foreach(type, i, b) missing += count_missing_field_ids(b);
  } else if (json_is_object(type)) {
    const char *t = json_string_value(json_object_get(type, "type"));
    if (t && strcmp(t, "record") == 0) {
      size_t i;
      json_t *f;
      json_array_foreach(json_object_get(type, "fields"), i, f) {
        if (!json_is_integer(json_object_get(f, "field-id"))) missing++;
        missing += count_missing_field_ids(json_object_get(f, "type"));
      }
    } else if (t && strcmp(t, "array") == 0) {
      json_t *items = json_object_get(type, "items");
      if (!json_is_object(items) && !json_is_integer(json_object_get(type, "element-id"))) missing++;
      missing += count_missing_field_ids(items);
    }
  }
  return missing;
}

TEST(manifest_header_parses_back_exactly) {
  iceberg_data_file files[2];
  sample_file(&files[0], 0);
  sample_file(&files[1], 1);
  iceberg_manifest_info info = {SCHEMA, 3, 1234567890123LL, 5, NULL, 2, NULL};
  wr_buf b = WEIR_BUF_INIT;
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_encode(&info, files, 2, &b, &err), &err);
  CHECK(b.len > 4 && memcmp(b.data, "Obj\x01", 4) == 0);

  iceberg_avro_reader r;
  CHECK_OK(iceberg_avro_reader_open_mem(&r, b.data, b.len, "mem-manifest", &err), &err);
  /* Exactly these keys, with exactly these values. */
  CHECK_INT(json_object_size(r.meta), 8);
  CHECK_STR(iceberg_avro_reader_meta(&r, "avro.schema"), ICEBERG_MANIFEST_ENTRY_SCHEMA);
  CHECK_STR(iceberg_avro_reader_meta(&r, "avro.codec"), "null");
  CHECK_STR(iceberg_avro_reader_meta(&r, "schema"), SCHEMA);
  CHECK_STR(iceberg_avro_reader_meta(&r, "schema-id"), "3");
  CHECK_STR(iceberg_avro_reader_meta(&r, "partition-spec"), "[]");
  CHECK_STR(iceberg_avro_reader_meta(&r, "partition-spec-id"), "0");
  CHECK_STR(iceberg_avro_reader_meta(&r, "format-version"), "2");
  CHECK_STR(iceberg_avro_reader_meta(&r, "content"), "data");
  /* The schema keeps what avro-c would drop: field ids, docs, defaults, logical maps. */
  json_t *sj = json_loads(iceberg_avro_reader_meta(&r, "avro.schema"), 0, NULL);
  CHECK(sj != NULL);
  CHECK_INT(count_missing_field_ids(sj), 0);
  const char *s = iceberg_avro_reader_meta(&r, "avro.schema");
  CHECK_CONTAINS(s, "\"field-id\":117");
  CHECK_CONTAINS(s, "\"logicalType\":\"map\"");
  CHECK_CONTAINS(s, "\"doc\":\"Location URI with FS scheme\"");
  CHECK_CONTAINS(s, "\"default\":null");
  json_decref(sj);

  /* Records read back through the reader. */
  avro_value_t *rec;
  int n = 0;
  for (;;) {
    CHECK_OK(iceberg_avro_reader_next(&r, &rec, &err), &err);
    if (!rec) break;
    int64_t status = -1, snap = -1, rc = -1, seq = 99;
    CHECK(iceberg_avro_get_long(rec, "status", &status));
    CHECK_INT(status, ICEBERG_STATUS_ADDED);
    CHECK(iceberg_avro_get_long(rec, "snapshot_id", &snap));
    CHECK_INT(snap, 1234567890123LL);
    CHECK(!iceberg_avro_get_long(rec, "sequence_number", &seq)); /* null: inherited */
    avro_value_t df;
    CHECK(iceberg_avro_field(rec, "data_file", &df));
    const char *path = NULL, *format = NULL;
    CHECK(iceberg_avro_get_string(&df, "file_path", &path));
    /* Iceberg locations are full URIs (storage/location.h). */
    char *want = wr_location_to_uri(files[n].path);
    CHECK_STR(path, want);
    free(want);
    CHECK(iceberg_avro_get_string(&df, "file_format", &format));
    CHECK_STR(format, "PARQUET");
    CHECK(iceberg_avro_get_long(&df, "record_count", &rc));
    CHECK_INT(rc, 100 + n);
    n++;
  }
  CHECK_INT(n, 2);
  iceberg_avro_reader_close(&r);
  wr_buf_free(&b);
  iceberg_data_file_clear(&files[0]);
  iceberg_data_file_clear(&files[1]);
}

TEST(manifest_round_trip_with_stats) {
  char *dir = test_tmpdir();
  char *path = wr_path_join(dir, "m.avro");
  iceberg_data_file files[3];
  for (int i = 0; i < 3; i++) sample_file(&files[i], i);
  files[2].n_stats = 0; /* a file without any statistics: null maps */
  iceberg_manifest_info info = {SCHEMA, 0, 77, 9, NULL, 2, NULL};
  iceberg_manifest_file entry;
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_write(path, &info, files, 3, &entry, &err), &err);
  CHECK_STR(entry.path, path);
  CHECK_INT(entry.length, wr_fs_size(path));
  CHECK_INT(entry.added_files, 3);
  CHECK_INT(entry.added_rows, 100 + 101 + 102);
  CHECK_INT(entry.sequence_number, 9);
  CHECK_INT(entry.min_sequence_number, 9);
  CHECK_INT(entry.added_snapshot_id, 77);
  CHECK(entry.has_partitions && entry.n_partitions == 0);

  iceberg_data_file *back = NULL;
  size_t n = 0;
  iceberg_entry_meta *meta = NULL;
  CHECK_OK(iceberg_manifest_read(path, false, &back, &n, &meta, &err), &err);
  CHECK_INT(n, 3);
  for (size_t i = 0; i < n && i < 3; i++) {
    CHECK_STR(back[i].path, files[i].path);
    CHECK_INT(back[i].record_count, files[i].record_count);
    CHECK_INT(back[i].file_size, files[i].file_size);
    CHECK_INT(meta[i].status, ICEBERG_STATUS_ADDED);
    CHECK_INT(meta[i].snapshot_id, 77);
    CHECK_INT(meta[i].sequence_number, -1); /* null: inherited from the manifest */
    CHECK_INT(meta[i].file_sequence_number, -1);
    CHECK_INT(back[i].n_stats, files[i].n_stats);
  }
  iceberg_column_stats *s1 = &back[0].stats[0], *s2 = &back[0].stats[1];
  CHECK_INT(s1->field_id, 1);
  CHECK_INT(s1->value_count, 100);
  CHECK_INT(s1->null_count, 0);
  CHECK_INT(s1->nan_count, -1);
  CHECK_INT(s1->column_size, 800);
  char *lo = iceberg_bound_to_text((weir_type){WEIR_TYPE_INT64, 0, 0}, s1->lower, s1->lower_len);
  char *hi = iceberg_bound_to_text((weir_type){WEIR_TYPE_INT64, 0, 0}, s1->upper, s1->upper_len);
  CHECK_STR(lo, "1");
  CHECK_STR(hi, "891");
  free(lo);
  free(hi);
  CHECK_INT(s2->field_id, 2);
  CHECK_INT(s2->null_count, 7);
  CHECK_INT(s2->column_size, -1);
  CHECK(s2->upper == NULL);
  lo = iceberg_bound_to_text((weir_type){WEIR_TYPE_STRING, 0, 0}, s2->lower, s2->lower_len);
  CHECK_STR(lo, "Abbing");
  free(lo);

  /* avro-c's own file reader accepts our header and decodes the same records. */
  avro_file_reader_t fr;
  CHECK_INT(avro_file_reader(path, &fr), 0);
  avro_schema_t ws = avro_file_reader_get_writer_schema(fr);
  avro_value_iface_t *iface = avro_generic_class_from_schema(ws);
  avro_value_t v;
  avro_generic_value_new(iface, &v);
  int count = 0;
  while (avro_file_reader_read_value(fr, &v) == 0) {
    avro_value_t df;
    const char *p = NULL;
    CHECK(iceberg_avro_field(&v, "data_file", &df));
    CHECK(iceberg_avro_get_string(&df, "file_path", &p));
    char *want = wr_location_to_uri(files[count].path);
    CHECK_STR(p, want);
    free(want);
    count++;
  }
  CHECK_INT(count, 3);
  avro_value_decref(&v);
  avro_value_iface_decref(iface);
  avro_schema_decref(ws); /* get_writer_schema returns a new reference */
  avro_file_reader_close(fr);

  free(meta);
  iceberg_data_files_free(back, n);
  free(entry.path); /* the entry owns only its path (no partitions, no key) */
  for (int i = 0; i < 3; i++) {
    files[i].n_stats = 2;
    iceberg_data_file_clear(&files[i]);
  }
  test_rmtree(dir);
  free(path);
  free(dir);
}

TEST(manifest_list_header_and_records) {
  iceberg_manifest_file m[2];
  memset(m, 0, sizeof m);
  m[0].path = "/lake/t/metadata/a-m0.avro";
  m[0].length = 5000;
  m[0].sequence_number = 1;
  m[0].min_sequence_number = 1;
  m[0].added_snapshot_id = 11;
  m[0].added_files = 2;
  m[0].added_rows = 891;
  m[0].has_partitions = true;
  /* A manifest of another writer, with a partition summary, carried forward verbatim. */
  iceberg_partition_summary ps = {true, -1, (uint8_t *)"\x01\x00\x00\x00", 4, NULL, 0, true, false};
  m[1].path = "/lake/t/metadata/b-m0.avro";
  m[1].length = 6000;
  m[1].spec_id = 0;
  m[1].sequence_number = 2;
  m[1].min_sequence_number = 2;
  m[1].added_snapshot_id = 22;
  m[1].existing_files = 3;
  m[1].deleted_files = 1;
  m[1].existing_rows = 300;
  m[1].deleted_rows = 5;
  m[1].has_partitions = true;
  m[1].partitions = &ps;
  m[1].n_partitions = 1;
  iceberg_manifest_list_info info = {22, 11, 2, 2};
  wr_buf b = WEIR_BUF_INIT;
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_list_encode(&info, m, 2, &b, &err), &err);

  iceberg_avro_reader r;
  CHECK_OK(iceberg_avro_reader_open_mem(&r, b.data, b.len, "mem-list", &err), &err);
  CHECK_INT(json_object_size(r.meta), 6);
  CHECK_STR(iceberg_avro_reader_meta(&r, "avro.schema"), ICEBERG_MANIFEST_LIST_SCHEMA);
  CHECK_STR(iceberg_avro_reader_meta(&r, "avro.codec"), "null");
  CHECK_STR(iceberg_avro_reader_meta(&r, "snapshot-id"), "22");
  CHECK_STR(iceberg_avro_reader_meta(&r, "parent-snapshot-id"), "11");
  CHECK_STR(iceberg_avro_reader_meta(&r, "sequence-number"), "2");
  CHECK_STR(iceberg_avro_reader_meta(&r, "format-version"), "2");
  json_t *sj = json_loads(iceberg_avro_reader_meta(&r, "avro.schema"), 0, NULL);
  CHECK_INT(count_missing_field_ids(sj), 0);
  json_decref(sj);
  iceberg_avro_reader_close(&r);

  char *dir = test_tmpdir();
  char *path = wr_path_join(dir, "snap.avro");
  CHECK_OK(wr_fs_write_atomic(path, b.data, b.len, true, &err), &err);
  iceberg_manifest_file *back;
  size_t n;
  CHECK_OK(iceberg_manifest_list_read(path, &back, &n, &err), &err);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK_STR(back[0].path, m[0].path);
    CHECK_INT(back[0].length, 5000);
    CHECK_INT(back[0].added_files, 2);
    CHECK_INT(back[0].added_rows, 891);
    CHECK_INT(back[0].added_snapshot_id, 11);
    CHECK(back[0].has_partitions);
    CHECK_INT(back[0].n_partitions, 0);
    CHECK_INT(back[1].existing_files, 3);
    CHECK_INT(back[1].deleted_files, 1);
    CHECK_INT(back[1].existing_rows, 300);
    CHECK_INT(back[1].deleted_rows, 5);
    CHECK_INT(back[1].sequence_number, 2);
    CHECK_INT(back[1].n_partitions, 1);
    CHECK(back[1].partitions[0].contains_null);
    CHECK_INT(back[1].partitions[0].contains_nan, -1);
    CHECK(back[1].partitions[0].has_lower && !back[1].partitions[0].has_upper);
    CHECK_INT(back[1].partitions[0].lower_len, 4);
  }
  iceberg_manifest_files_free(back, n);
  /* No parent: the key says "null", as pyiceberg writes it. */
  info.parent_snapshot_id = -1;
  CHECK_OK(iceberg_manifest_list_encode(&info, m, 0, &b, &err), &err);
  CHECK_OK(iceberg_avro_reader_open_mem(&r, b.data, b.len, "mem-list", &err), &err);
  CHECK_STR(iceberg_avro_reader_meta(&r, "parent-snapshot-id"), "null");
  avro_value_t *rec;
  CHECK_OK(iceberg_avro_reader_next(&r, &rec, &err), &err);
  CHECK(rec == NULL);
  iceberg_avro_reader_close(&r);
  wr_buf_free(&b);
  test_rmtree(dir);
  free(path);
  free(dir);
}

TEST(many_records_span_several_blocks) {
  enum { N = 6000 };
  iceberg_data_file *files = calloc(N, sizeof *files);
  for (int i = 0; i < N; i++) sample_file(&files[i], i);
  /* Long paths make the manifest larger than one block (1 MiB). */
  for (int i = 0; i < N; i++) {
    free(files[i].path);
    char p[400];
    snprintf(p, sizeof p, "/lake/%0300d/%d.parquet", 0, i);
    files[i].path = strdup(p);
  }
  iceberg_manifest_info info = {SCHEMA, 0, 1, 1, NULL, 2, NULL};
  wr_buf b = WEIR_BUF_INIT;
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_encode(&info, files, N, &b, &err), &err);
  CHECK(b.len > 2u << 20);
  iceberg_avro_reader r;
  CHECK_OK(iceberg_avro_reader_open_mem(&r, b.data, b.len, "big", &err), &err);
  int n = 0, blocks = 0;
  avro_value_t *rec;
  for (;;) {
    if (r.block_left == 0) blocks++;
    CHECK_OK(iceberg_avro_reader_next(&r, &rec, &err), &err);
    if (!rec) break;
    n++;
  }
  CHECK_INT(n, N);
  CHECK(blocks >= 3);
  iceberg_avro_reader_close(&r);
  wr_buf_free(&b);
  iceberg_data_files_free(files, N);
}

TEST(files_of_other_writers_with_deflate) {
  /* A container written by avro-c's own writer with the deflate codec (what Java writes
   * by default) goes through avro-c's file reader. */
  char *dir = test_tmpdir();
  char *path = wr_path_join(dir, "deflate.avro");
  avro_schema_t schema;
  CHECK_INT(avro_schema_from_json_length(ICEBERG_MANIFEST_LIST_SCHEMA, strlen(ICEBERG_MANIFEST_LIST_SCHEMA), &schema), 0);
  avro_file_writer_t fw;
  CHECK_INT(avro_file_writer_create_with_codec(path, schema, &fw, "deflate", 0), 0);
  avro_value_iface_t *iface = avro_generic_class_from_schema(schema);
  avro_value_t v, f, br;
  avro_generic_value_new(iface, &v);
  for (int i = 0; i < 3; i++) {
    avro_value_reset(&v);
    avro_value_get_by_name(&v, "manifest_path", &f, NULL);
    avro_value_set_string(&f, i == 0 ? "/x/0.avro" : i == 1 ? "/x/1.avro" : "/x/2.avro");
    avro_value_get_by_name(&v, "manifest_length", &f, NULL);
    avro_value_set_long(&f, 10 * i);
    static const char *ints[] = {"partition_spec_id", "content", "added_files_count",
                                 "existing_files_count", "deleted_files_count"};
    static const char *longs[] = {"sequence_number", "min_sequence_number", "added_snapshot_id",
                                  "added_rows_count", "existing_rows_count", "deleted_rows_count"};
    for (size_t k = 0; k < 5; k++) {
      avro_value_get_by_name(&v, ints[k], &f, NULL);
      avro_value_set_int(&f, k == 2 ? i : 0);
    }
    for (size_t k = 0; k < 6; k++) {
      avro_value_get_by_name(&v, longs[k], &f, NULL);
      avro_value_set_long(&f, k == 2 ? 500 + i : 0);
    }
    avro_value_get_by_name(&v, "partitions", &f, NULL);
    avro_value_set_branch(&f, 0, &br);
    avro_value_set_null(&br);
    avro_value_get_by_name(&v, "key_metadata", &f, NULL);
    avro_value_set_branch(&f, 0, &br);
    avro_value_set_null(&br);
    CHECK_INT(avro_file_writer_append_value(fw, &v), 0);
  }
  avro_file_writer_close(fw);
  avro_value_decref(&v);
  avro_value_iface_decref(iface);
  avro_schema_decref(schema);

  iceberg_manifest_file *back;
  size_t n;
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_list_read(path, &back, &n, &err), &err);
  CHECK_INT(n, 3);
  if (n == 3) {
    CHECK_STR(back[2].path, "/x/2.avro");
    CHECK_INT(back[2].added_snapshot_id, 502);
    CHECK_INT(back[2].added_files, 2);
    CHECK(!back[2].has_partitions);
  }
  iceberg_manifest_files_free(back, n);
  test_rmtree(dir);
  free(path);
  free(dir);
}

TEST(corrupt_files_are_reported_with_their_name) {
  iceberg_data_file f;
  sample_file(&f, 0);
  iceberg_manifest_info info = {SCHEMA, 0, 1, 1, NULL, 2, NULL};
  wr_buf b = WEIR_BUF_INIT;
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_encode(&info, &f, 1, &b, &err), &err);
  iceberg_avro_reader r;
  avro_value_t *rec;

  CHECK_INT(iceberg_avro_reader_open_mem(&r, "PAR1xxxx", 8, "/t/not-avro.avro", &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "/t/not-avro.avro");
  CHECK_CONTAINS(err.message, "magic");
  /* Cut inside the header. */
  CHECK_INT(iceberg_avro_reader_open_mem(&r, b.data, 40, "/t/short.avro", &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "/t/short.avro");
  /* Cut inside the block: the header parses, the record does not. */
  CHECK_OK(iceberg_avro_reader_open_mem(&r, b.data, b.len - 20, "/t/cut.avro", &err), &err);
  CHECK_INT(iceberg_avro_reader_next(&r, &rec, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "/t/cut.avro");
  CHECK_CONTAINS(err.message, "truncated block");
  iceberg_avro_reader_close(&r);
  /* A wrong sync marker after the block. */
  char *copy = malloc(b.len);
  memcpy(copy, b.data, b.len);
  copy[b.len - 1] ^= 0x5a;
  CHECK_OK(iceberg_avro_reader_open_mem(&r, copy, b.len, "/t/sync.avro", &err), &err);
  CHECK_INT(iceberg_avro_reader_next(&r, &rec, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "sync marker");
  iceberg_avro_reader_close(&r);
  free(copy);
  /* A missing file. */
  CHECK_INT(iceberg_avro_reader_open(&r, "/nonexistent/weir/m.avro", &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "/nonexistent/weir/m.avro");

  wr_buf_free(&b);
  iceberg_data_file_clear(&f);
  weir_error_clear(&err);
}

/* The manifest of one sample file, with the block's record bytes handed to `edit`. */
static void encoded_manifest(wr_buf *b) {
  iceberg_data_file f;
  sample_file(&f, 0);
  iceberg_manifest_info info = {SCHEMA, 0, 1, 1, NULL, 2, NULL};
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_encode(&info, &f, 1, b, &err), &err);
  iceberg_data_file_clear(&f);
}

TEST(a_record_cut_short_inside_its_block_is_refused_before_avro_c) {
  /* avro-c 1.11.1 leaks the buffer of a string cut short by the end of its input; weir
   * checks each block against the schema first (found by fuzz_avro_manifest as a leak
   * under LSan, which this test, run under ASan, would show again). The block of one
   * record is re-framed with its last 10 bytes dropped and its size fixed: the frame is
   * sound, the record is not. */
  wr_buf b = WEIR_BUF_INIT;
  encoded_manifest(&b);
  /* The body: [count][size][records][sync] after the header's sync marker, which the
   * file ends with too. */
  const uint8_t *sync = (const uint8_t *)b.data + b.len - ICEBERG_AVRO_SYNC_SIZE;
  size_t body = 0;
  for (size_t i = 4; i + ICEBERG_AVRO_SYNC_SIZE < b.len; i++)
    if (memcmp(b.data + i, sync, ICEBERG_AVRO_SYNC_SIZE) == 0) {
      body = i + ICEBERG_AVRO_SYNC_SIZE;
      break;
    }
  CHECK(body > 0);
  size_t pos = body;
  uint8_t count = (uint8_t)b.data[pos++]; /* 1 record: zig-zag 2 */
  CHECK_INT(count, 2);
  int64_t size = 0;
  for (int shift = 0;; shift += 7) {
    uint8_t c = (uint8_t)b.data[pos++];
    size |= (int64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) break;
  }
  size >>= 1;
  wr_buf cut = WEIR_BUF_INIT;
  wr_buf_append(&cut, b.data, body);
  wr_buf_putc(&cut, 2);
  int64_t z = (size - 10) << 1;
  while (z & ~0x7f) {
    wr_buf_putc(&cut, (char)((z & 0x7f) | 0x80));
    z >>= 7;
  }
  wr_buf_putc(&cut, (char)z);
  wr_buf_append(&cut, b.data + pos, (size_t)size - 10);
  wr_buf_append(&cut, sync, ICEBERG_AVRO_SYNC_SIZE);

  iceberg_data_file *files = NULL;
  size_t n = 0;
  weir_error err = {0};
  CHECK_INT(iceberg_manifest_read_mem(cut.data, cut.len, "/t/cut-record.avro", true, &files, &n, NULL, &err),
            WEIR_EINPUT);
  CHECK_STR(err.message,
            "/t/cut-record.avro: not a valid Avro file: the 1 records of a block do not match "
            "the file's schema (truncated, too long or corrupt)");
  CHECK_INT(n, 0);
  iceberg_data_files_free(files, n);
  weir_error_clear(&err);
  wr_buf_free(&cut);
  wr_buf_free(&b);
}

TEST(deflate_blocks_are_inflated_and_checked_by_weir) {
  /* The manifest weir writes, re-framed with the deflate codec as Java writes it: the
   * same records come back, and a corrupt deflate block is an error naming the file. */
  wr_buf b = WEIR_BUF_INIT;
  encoded_manifest(&b);
  iceberg_data_file *plain = NULL, *deflated = NULL;
  size_t n1 = 0, n2 = 0;
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_read_mem(b.data, b.len, "plain.avro", true, &plain, &n1, NULL, &err), &err);
  char *dir = test_tmpdir();
  char *path = wr_path_join(dir, "m.avro");
  CHECK_OK(wr_fs_write_atomic(path, b.data, b.len, false, &err), &err);
  /* avro-c's own writer with deflate, from the records weir decoded. */
  iceberg_avro_reader r;
  CHECK_OK(iceberg_avro_reader_open(&r, path, &err), &err);
  char *dpath = wr_path_join(dir, "d.avro");
  avro_file_writer_t fw;
  CHECK_INT(avro_file_writer_create_with_codec(dpath, r.schema, &fw, "deflate", 0), 0);
  avro_value_t *rec;
  while (iceberg_avro_reader_next(&r, &rec, &err) == WEIR_OK && rec)
    CHECK_INT(avro_file_writer_append_value(fw, rec), 0);
  avro_file_writer_close(fw);
  iceberg_avro_reader_close(&r);
  CHECK_OK(iceberg_manifest_read(dpath, true, &deflated, &n2, NULL, &err), &err);
  CHECK_INT(n2, n1);
  if (n1 == 1 && n2 == 1) {
    CHECK_STR(deflated[0].path, plain[0].path);
    CHECK_INT(deflated[0].record_count, plain[0].record_count);
    CHECK_INT(deflated[0].n_stats, plain[0].n_stats);
  }
  /* Flip a byte in the middle of the deflate data. */
  char *data = NULL;
  size_t len = 0;
  CHECK_OK(wr_fs_read(dpath, &data, &len, &err), &err);
  iceberg_data_file *bad = NULL;
  size_t n3 = 0;
  data[len - ICEBERG_AVRO_SYNC_SIZE - 20] ^= 0x55;
  int rc = iceberg_manifest_read_mem(data, len, "/t/bad-deflate.avro", true, &bad, &n3, NULL, &err);
  CHECK_INT(rc, WEIR_EINPUT);
  if (rc) CHECK_CONTAINS(err.message, "/t/bad-deflate.avro: not a valid Avro file: ");
  iceberg_data_files_free(bad, n3);
  free(data);
  iceberg_data_files_free(plain, n1);
  iceberg_data_files_free(deflated, n2);
  test_rmtree(dir);
  free(dpath);
  free(path);
  free(dir);
  weir_error_clear(&err);
  wr_buf_free(&b);
}

static char *find(char *hay, size_t n, const char *needle, size_t m) {
  for (size_t i = 0; i + m <= n; i++)
    if (memcmp(hay + i, needle, m) == 0) return hay + i;
  return NULL;
}

TEST(unknown_codecs_and_delete_manifests_are_refused_by_name) {
  wr_buf b = WEIR_BUF_INIT;
  encoded_manifest(&b);
  weir_error err = {0};
  iceberg_data_file *files = NULL;
  size_t n = 0;
  /* "null" -> "zstd" is one byte longer: rewrite the codec value in place as "zstX". */
  char *copy = malloc(b.len);
  memcpy(copy, b.data, b.len);
  char *codec = find(copy, b.len,
                     "\x14"
                     "avro.codec\x08null",
                     16);
  CHECK(codec != NULL);
  if (codec) memcpy(codec + 12, "zstX", 4);
  CHECK_INT(iceberg_manifest_read_mem(copy, b.len, "/t/zstd.avro", true, &files, &n, NULL, &err),
            WEIR_EINPUT);
  CHECK_STR(err.message,
            "/t/zstd.avro: Avro codec \"zstX\" is not supported (weir reads null, deflate and snappy)");
  /* A manifest of delete files: the message quotes the header's content after the reader
   * is closed (a use after free under ASan until fuzz_avro_manifest found it). */
  memcpy(copy, b.data, b.len);
  char *content = find(copy, b.len,
                       "\x0e"
                       "content\x08"
                       "data",
                       13);
  CHECK(content != NULL);
  if (content) memcpy(content + 9, "dele", 4);
  CHECK_INT(iceberg_manifest_read_mem(copy, b.len, "/t/deletes.avro", true, &files, &n, NULL, &err),
            WEIR_EINPUT);
  CHECK_STR(err.message, "/t/deletes.avro: a manifest of dele files; weir reads tables without delete files");
  free(copy);
  weir_error_clear(&err);
  wr_buf_free(&b);
}

/* avro-c leaks the records it was building when it refuses a schema; weir checks the
 * writer schema itself first (found by fuzz_avro_manifest: two fields of one name, and a
 * map's record type defined twice). */
TEST(a_bad_writer_schema_is_refused_before_avro_c) {
  const char *src = getenv("WEIR_SOURCE_DIR");
  CHECK(src != NULL);
  if (!src) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/fuzz/regressions/avro_manifest/schema-duplicate-names-leak.avro", src);
  char *data = NULL;
  size_t len = 0;
  weir_error err = {0};
  CHECK_OK(wr_fs_read(path, &data, &len, &err), &err);
  iceberg_data_file *files = NULL;
  size_t n = 0;
  CHECK_INT(iceberg_manifest_read_mem(data, len, "/t/bad.avro", true, &files, &n, NULL, &err), WEIR_EINPUT);
  CHECK_STR(err.message, "/t/bad.avro: invalid Avro schema in the header: a record with two fields of one name");
  free(data);
  weir_error_clear(&err);
  /* The rules one by one, on schemas alone. */
  static const struct {
    const char *schema, *why;
  } cases[] = {
      {"{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
       "{\"name\":\"a\",\"type\":\"long\"}]}", "a record with two fields of one name"},
      {"{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"record\","
       "\"name\":\"r\",\"fields\":[]}}]}", "a named type defined twice"},
      {"{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"nosuch\"}]}",
       "a reference to an undefined type"},
      {"[\"null\",[\"int\"]]", "a union inside a union"},
      {"[\"int\",\"int\"]", "a union with a type twice"},
      {"{\"type\":\"record\",\"name\":\"1r\",\"fields\":[]}", "a bad type name"},
      {"{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\",\"A\"]}", "a bad or repeated enum symbol"},
      {"{\"type\":\"array\"}", "an array without items"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    wr_buf b = WEIR_BUF_INIT;
    /* A container of no blocks: magic, a header with the schema, the sync marker. */
    wr_buf_append(&b, "Obj\x01", 4);
    wr_buf_putc(&b, 2); /* one metadata entry */
    wr_buf_putc(&b, 22);
    wr_buf_append(&b, "avro.schema", 11);
    size_t sl = strlen(cases[i].schema);
    uint64_t z = (uint64_t)sl << 1;
    while (z >= 0x80) wr_buf_putc(&b, (char)((z & 0x7f) | 0x80)), z >>= 7;
    wr_buf_putc(&b, (char)z);
    wr_buf_append(&b, cases[i].schema, sl);
    wr_buf_putc(&b, 0);
    wr_buf_append(&b, "0123456789abcdef", 16);
    iceberg_avro_reader r;
    CHECK_INT(iceberg_avro_reader_open_mem(&r, b.data, b.len, "/t/s.avro", &err), WEIR_EINPUT);
    CHECK_CONTAINS(err.message, cases[i].why);
    weir_error_clear(&err);
    wr_buf_free(&b);
  }
}

TEST(truncated_at_every_byte_fails_cleanly) {
  iceberg_data_file files[2];
  sample_file(&files[0], 0);
  sample_file(&files[1], 1);
  iceberg_manifest_info info = {SCHEMA, 0, 1, 1, NULL, 2, NULL};
  wr_buf b = WEIR_BUF_INIT;
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_encode(&info, files, 2, &b, &err), &err);
  int complete = 0;
  for (size_t len = 0; len < b.len; len++) {
    iceberg_avro_reader r;
    if (iceberg_avro_reader_open_mem(&r, b.data, len, "cut.avro", &err) != WEIR_OK) {
      CHECK_CONTAINS(err.message, "cut.avro");
      continue;
    }
    int rc;
    avro_value_t *rec;
    int n = 0;
    while ((rc = iceberg_avro_reader_next(&r, &rec, &err)) == WEIR_OK && rec) n++;
    if (rc == WEIR_OK) complete++; /* only the header, cut exactly before the block */
    else CHECK_INT(rc, WEIR_EINPUT);
    CHECK(n <= 2);
    iceberg_avro_reader_close(&r);
  }
  CHECK_INT(complete, 1);
  wr_buf_free(&b);
  weir_error_clear(&err);
  iceberg_data_file_clear(&files[0]);
  iceberg_data_file_clear(&files[1]);
}

TEST_MAIN()
