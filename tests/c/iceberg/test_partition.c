/*
 * test_partition.c -- partition transforms: the bucket hash against the spec's Appendix B
 * test vectors, parsing and binding declarations (and their errors), spec JSON, and
 * partition tuples through a manifest and the manifest list's partition summaries.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "iceberg/iceberg_internal.h"
#include "util/murmur3.h"

TEST(bucket_hash_matches_the_spec_test_vectors) {
  /* Iceberg spec, Appendix B: "32-bit Hash Requirements". */
  CHECK_INT(wr_bucket_hash_long(34), 2017239379);                  /* int and long 34 */
  CHECK_INT(wr_bucket_hash_decimal(1420), -500754589);             /* decimal(4, 2) 14.20 */
  CHECK_INT(wr_bucket_hash_long(17486), -653330422);               /* date 2017-11-16 */
  CHECK_INT(wr_bucket_hash_long(81068000000LL), -662762989);       /* time 22:31:08 */
  CHECK_INT(wr_bucket_hash_long(1510871468000000LL), -2047944441); /* timestamp(tz) 2017-11-16T22:31:08 */
  CHECK_INT(wr_bucket_hash_bytes("iceberg", 7), 1210000089);       /* string */
  const uint8_t uuid[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                            0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
  CHECK_INT(wr_bucket_hash_bytes(uuid, 16), 1488055340);           /* uuid */
  const uint8_t bin[4] = {0, 1, 2, 3};
  CHECK_INT(wr_bucket_hash_bytes(bin, 4), -188683207);             /* fixed(4), binary */
  /* bucket[100]: the sign bit is dropped before the modulo. */
  CHECK_INT(wr_bucket_of_hash(wr_bucket_hash_long(34), 100), 79);
  CHECK_INT(wr_bucket_of_hash(wr_bucket_hash_decimal(1420), 100), 59);
  /* Negative unscaled values use their minimal two's-complement bytes (-1 is 0xff). */
  const uint8_t minus_one = 0xff;
  CHECK_INT(wr_bucket_hash_decimal(-1), wr_bucket_hash_bytes(&minus_one, 1));
  const uint8_t v128[2] = {0x00, 0x80};
  CHECK_INT(wr_bucket_hash_decimal(128), wr_bucket_hash_bytes(v128, 2));
}

static bool parse_bind(const char *text, weir_type t, iceberg_partition_field *f, char *why, size_t n) {
  if (!iceberg_partition_field_parse(text, f, why, n)) return false;
  if (!iceberg_partition_field_bind(f, t, why, n)) {
    iceberg_partition_field_clear(f);
    return false;
  }
  return true;
}

TEST(declarations_parse_and_bind_with_the_spec_result_types) {
  weir_type ts = {WEIR_TYPE_TS_US, 0, 0}, id = {WEIR_TYPE_INT64, 0, 0}, s = {WEIR_TYPE_STRING, 0, 0};
  iceberg_partition_field f;
  char why[256], tr[32];
  CHECK(parse_bind("day(ts)", ts, &f, why, sizeof why));
  CHECK_INT(f.kind, ICEBERG_XF_DAY);
  CHECK_INT(f.result_type.id, WEIR_TYPE_DATE32);
  CHECK_STR(f.name, "ts_day");
  iceberg_partition_field_clear(&f);
  CHECK(parse_bind(" bucket( 16 , id ) ", id, &f, why, sizeof why));
  CHECK_INT(f.param, 16);
  CHECK_INT(f.result_type.id, WEIR_TYPE_INT32);
  iceberg_partition_field_transform(&f, tr, sizeof tr);
  CHECK_STR(tr, "bucket[16]");
  CHECK_STR(f.name, "id_bucket");
  iceberg_partition_field_clear(&f);
  CHECK(parse_bind("truncate(4, name)", s, &f, why, sizeof why));
  CHECK_INT(f.result_type.id, WEIR_TYPE_STRING);
  CHECK_STR(f.name, "name_trunc");
  iceberg_partition_field_clear(&f);
  CHECK(parse_bind("name", s, &f, why, sizeof why)); /* a bare column: identity */
  CHECK_INT(f.kind, ICEBERG_XF_IDENTITY);
  CHECK_STR(f.name, "name");
  iceberg_partition_field_clear(&f);
  CHECK(parse_bind("month(ts)", ts, &f, why, sizeof why));
  CHECK_INT(f.result_type.id, WEIR_TYPE_INT32);
  iceberg_partition_field_clear(&f);
  CHECK(parse_bind("hour(ts)", ts, &f, why, sizeof why));
  iceberg_partition_field_clear(&f);
  CHECK(parse_bind("year(d)", (weir_type){WEIR_TYPE_DATE32, 0, 0}, &f, why, sizeof why));
  iceberg_partition_field_clear(&f);
}

TEST(bad_declarations_are_refused_naming_what) {
  iceberg_partition_field f;
  char why[256];
  weir_type id = {WEIR_TYPE_INT64, 0, 0};
  CHECK(!parse_bind("bucket(0, id)", id, &f, why, sizeof why));
  CHECK_CONTAINS(why, "positive integer");
  CHECK(!parse_bind("bucket(-3, id)", id, &f, why, sizeof why));
  CHECK_CONTAINS(why, "positive integer");
  CHECK(!parse_bind("bucket(id)", id, &f, why, sizeof why));
  CHECK_CONTAINS(why, "bucket count");
  CHECK(!parse_bind("week(ts)", id, &f, why, sizeof why));
  CHECK_CONTAINS(why, "unknown partition transform \"week\"");
  CHECK(!parse_bind("day(id)", id, &f, why, sizeof why));
  CHECK_CONTAINS(why, "cannot apply to column \"id\" of type Int64");
  CHECK(!parse_bind("hour(d)", (weir_type){WEIR_TYPE_DATE32, 0, 0}, &f, why, sizeof why));
  CHECK_CONTAINS(why, "hour");
  CHECK(!parse_bind("bucket(4, x)", (weir_type){WEIR_TYPE_FLOAT64, 0, 0}, &f, why, sizeof why));
  CHECK_CONTAINS(why, "Float64");
  CHECK(!parse_bind("truncate(4, b)", (weir_type){WEIR_TYPE_BOOL, 0, 0}, &f, why, sizeof why));
  CHECK_CONTAINS(why, "Bool");
  CHECK(!parse_bind("day()", id, &f, why, sizeof why));
  CHECK_CONTAINS(why, "names no column");
  CHECK(!parse_bind("day(ts", id, &f, why, sizeof why));
  CHECK_CONTAINS(why, "closing parenthesis");
}

static wr_schema two_columns(void) {
  wr_schema s = {0};
  wr_field a = {0}, b = {0};
  a.name = "id", a.type = (weir_type){WEIR_TYPE_INT64, 0, 0}, a.field_id = 1;
  b.name = "ts", b.type = (weir_type){WEIR_TYPE_TS_US, 0, 0}, b.field_id = 2;
  wr_schema_add(&s, &a);
  wr_schema_add(&s, &b);
  return s;
}

TEST(spec_json_round_trips) {
  wr_schema s = two_columns();
  json_t *j = json_loads("{\"spec-id\": 3, \"fields\": [{\"source-id\": 2, \"field-id\": 1000, \"name\": \"ts_day\", "
                         "\"transform\": \"day\"}, {\"source-id\": 1, \"field-id\": 1001, \"name\": \"b\", "
                         "\"transform\": \"bucket[16]\"}]}",
                         0, NULL);
  iceberg_partition_spec spec;
  weir_error err = {0};
  CHECK_OK(iceberg_partition_spec_from_json(j, &s, &spec, &err), &err);
  CHECK_INT(spec.spec_id, 3);
  CHECK_INT(spec.n_fields, 2);
  CHECK_INT(spec.fields[1].param, 16);
  CHECK_STR(spec.fields[1].name, "b");
  json_t *back = iceberg_partition_spec_to_json(&spec);
  CHECK(json_equal(j, back));
  json_decref(back);
  iceberg_partition_spec_clear(&spec);
  /* A source id that is no column. */
  json_object_set_new(json_array_get(json_object_get(j, "fields"), 0), "source-id", json_integer(9));
  CHECK_INT(iceberg_partition_spec_from_json(j, &s, &spec, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "field id 9");
  weir_error_clear(&err);
  json_decref(j);
  wr_schema_clear(&s);
}

static void set_value(iceberg_partition_value *v, weir_type t, const char *text) {
  memset(v, 0, sizeof *v);
  if (!text) {
    v->is_null = true;
    return;
  }
  iceberg_partition_value_from_text(t, text, &v->value, &v->len);
}

TEST(partition_tuples_round_trip_through_a_manifest_and_summarize_in_the_list) {
  wr_schema s = two_columns();
  json_t *j = json_loads("{\"spec-id\": 1, \"fields\": [{\"source-id\": 2, \"field-id\": 1000, \"name\": \"ts_day\", "
                         "\"transform\": \"day\"}, {\"source-id\": 1, \"field-id\": 1001, \"name\": \"id_bucket\", "
                         "\"transform\": \"bucket[4]\"}]}",
                         0, NULL);
  iceberg_partition_spec spec;
  weir_error err = {0};
  CHECK_OK(iceberg_partition_spec_from_json(j, &s, &spec, &err), &err);
  json_decref(j);
  iceberg_data_file files[3];
  memset(files, 0, sizeof files);
  const char *days[3] = {"2024-01-02", "2024-01-01", NULL};
  const char *buckets[3] = {"3", "0", "1"};
  for (int i = 0; i < 3; i++) {
    char path[64];
    snprintf(path, sizeof path, "/lake/t/data/f%d.parquet", i);
    files[i].path = strdup(path);
    files[i].record_count = 10 + i;
    files[i].file_size = 100;
    files[i].n_partition = 2;
    files[i].partition = calloc(2, sizeof *files[i].partition);
    set_value(&files[i].partition[0], spec.fields[0].result_type, days[i]);
    set_value(&files[i].partition[1], spec.fields[1].result_type, buckets[i]);
  }
  char tmpl[] = "/tmp/weir-part-XXXXXX";
  CHECK(mkdtemp(tmpl) != NULL);
  char *path = wr_asprintf("%s/m.avro", tmpl);
  iceberg_manifest_info info = {"{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}", 0, 7, 1, NULL, 2, &spec};
  iceberg_manifest_file entry;
  CHECK_OK(iceberg_manifest_write(path, &info, files, 3, &entry, &err), &err);
  CHECK_INT(entry.spec_id, 1);
  CHECK_INT(entry.n_partitions, 2);
  /* ts_day: a null, bounds 2024-01-01 .. 2024-01-02 (days 19723 .. 19724, 4 bytes LE). */
  CHECK(entry.partitions[0].contains_null);
  CHECK_INT(entry.partitions[0].lower_len, 4);
  CHECK_INT(entry.partitions[0].lower[0] | entry.partitions[0].lower[1] << 8, 19723);
  CHECK_INT(entry.partitions[0].upper[0] | entry.partitions[0].upper[1] << 8, 19724);
  CHECK(!entry.partitions[1].contains_null);
  CHECK_INT(entry.partitions[1].lower[0], 0);
  CHECK_INT(entry.partitions[1].upper[0], 3);
  iceberg_data_file *back = NULL;
  size_t n = 0;
  CHECK_OK(iceberg_manifest_read(path, true, &back, &n, NULL, &err), &err);
  CHECK_INT(n, 3);
  for (size_t i = 0; i < n && i < 3; i++) {
    CHECK_INT(back[i].spec_id, 1);
    CHECK_INT(back[i].n_partition, 2);
    for (int k = 0; k < 2; k++) {
      CHECK_INT(back[i].partition[k].is_null, files[i].partition[k].is_null);
      CHECK_INT(back[i].partition[k].len, files[i].partition[k].len);
      if (!files[i].partition[k].is_null)
        CHECK(memcmp(back[i].partition[k].value, files[i].partition[k].value, files[i].partition[k].len) == 0);
    }
  }
  iceberg_data_files_free(back, n);
  /* A file whose tuple does not fit the spec is refused. */
  files[0].n_partition = 1;
  iceberg_manifest_file e2;
  CHECK_INT(iceberg_manifest_write(path, &info, files, 3, &e2, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "partition values");
  weir_error_clear(&err);
  files[0].n_partition = 2;
  iceberg_manifest_files_free_one(&entry);
  for (int i = 0; i < 3; i++) iceberg_data_file_clear(&files[i]);
  iceberg_partition_spec_clear(&spec);
  char *rm = wr_asprintf("rm -rf '%s'", tmpl);
  CHECK_INT(system(rm), 0);
  free(rm);
  free(path);
  wr_schema_clear(&s);
}

TEST(values_compare_as_their_types) {
  uint8_t *a, *b;
  size_t al, bl;
  weir_type d = {WEIR_TYPE_DECIMAL, 9, 2}, i = {WEIR_TYPE_INT32, 0, 0};
  CHECK(iceberg_partition_value_from_text(d, "-1.00", &a, &al));
  CHECK(iceberg_partition_value_from_text(d, "0.50", &b, &bl));
  CHECK_INT(iceberg_value_compare(d, a, al, b, bl), -1);
  free(a);
  free(b);
  CHECK(iceberg_partition_value_from_text(i, "-5", &a, &al));
  CHECK(iceberg_partition_value_from_text(i, "3", &b, &bl));
  CHECK_INT(iceberg_value_compare(i, a, al, b, bl), -1);
  CHECK_INT(iceberg_value_compare(i, b, bl, b, bl), 0);
  free(a);
  free(b);
  /* Strings are exact (not truncated to 16 code points as bounds are). */
  CHECK(iceberg_partition_value_from_text((weir_type){WEIR_TYPE_STRING, 0, 0}, "abcdefghijklmnopqrstuvwxyz", &a, &al));
  CHECK_INT(al, 26);
  free(a);
}

TEST_MAIN()
