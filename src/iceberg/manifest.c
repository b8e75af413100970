/*
 * manifest.c -- Iceberg v2 manifests (one manifest_entry per data file) and manifest lists
 * (one manifest_file per manifest), as Avro object containers.
 *
 * The Avro schemas are the v2 ones of the spec (and of Java's and pyiceberg's writers),
 * with every field id: readers resolve manifest columns by "field-id", not by name. Maps
 * keyed by column id (column_sizes, value_counts, ...) are Avro arrays of key/value
 * records marked "logicalType": "map", the spec's encoding for maps with non-string keys,
 * with the key/value ids the spec assigns (117/118, 119/120, ...). weir's tables are
 * unpartitioned, so the partition tuple is an empty record ("r102") and each manifest
 * list entry carries "partitions": [].
 */
#include "iceberg/iceberg_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/fs.h"

/* clang-format off */
#define MAP_FIELD(name, id, kid, vid, vtype, doc)                                            \
  "{\"name\":\"" name "\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\"," \
  "\"name\":\"k" #kid "_v" #vid "\",\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":" #kid "}," \
  "{\"name\":\"value\",\"type\":\"" vtype "\",\"field-id\":" #vid "}]},\"logicalType\":\"map\"}]," \
  "\"doc\":\"" doc "\",\"default\":null,\"field-id\":" #id "}"

const char ICEBERG_MANIFEST_ENTRY_SCHEMA[] =
  "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
  "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
  "{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":1},"
  "{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":3},"
  "{\"name\":\"file_sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":4},"
  "{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
    "{\"name\":\"content\",\"type\":\"int\",\"doc\":\"Contents of the file: 0=data, 1=position deletes, 2=equality deletes\",\"field-id\":134},"
    "{\"name\":\"file_path\",\"type\":\"string\",\"doc\":\"Location URI with FS scheme\",\"field-id\":100},"
    "{\"name\":\"file_format\",\"type\":\"string\",\"doc\":\"File format name: avro, orc, or parquet\",\"field-id\":101},"
    "{\"name\":\"partition\",\"type\":{\"type\":\"record\",\"name\":\"r102\",\"fields\":[]},\"doc\":\"Partition data tuple, schema based on the partition spec\",\"field-id\":102},"
    "{\"name\":\"record_count\",\"type\":\"long\",\"doc\":\"Number of records in the file\",\"field-id\":103},"
    "{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"doc\":\"Total file size in bytes\",\"field-id\":104},"
    MAP_FIELD("column_sizes", 108, 117, 118, "long", "Map of column id to total size on disk") ","
    MAP_FIELD("value_counts", 109, 119, 120, "long", "Map of column id to total count, including null and NaN") ","
    MAP_FIELD("null_value_counts", 110, 121, 122, "long", "Map of column id to null value count") ","
    MAP_FIELD("nan_value_counts", 137, 138, 139, "long", "Map of column id to number of NaN values in the column") ","
    MAP_FIELD("lower_bounds", 125, 126, 127, "bytes", "Map of column id to lower bound") ","
    MAP_FIELD("upper_bounds", 128, 129, 130, "bytes", "Map of column id to upper bound") ","
    "{\"name\":\"key_metadata\",\"type\":[\"null\",\"bytes\"],\"doc\":\"Encryption key metadata blob\",\"default\":null,\"field-id\":131},"
    "{\"name\":\"split_offsets\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"long\",\"element-id\":133}],\"doc\":\"Splittable offsets\",\"default\":null,\"field-id\":132},"
    "{\"name\":\"equality_ids\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"int\",\"element-id\":136}],\"doc\":\"Equality comparison field IDs\",\"default\":null,\"field-id\":135},"
    "{\"name\":\"sort_order_id\",\"type\":[\"null\",\"int\"],\"doc\":\"Sort order ID\",\"default\":null,\"field-id\":140}"
  "]},\"field-id\":2}]}";

const char ICEBERG_MANIFEST_LIST_SCHEMA[] =
  "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
  "{\"name\":\"manifest_path\",\"type\":\"string\",\"doc\":\"Location URI with FS scheme\",\"field-id\":500},"
  "{\"name\":\"manifest_length\",\"type\":\"long\",\"doc\":\"Total file size in bytes\",\"field-id\":501},"
  "{\"name\":\"partition_spec_id\",\"type\":\"int\",\"doc\":\"Spec ID used to write\",\"field-id\":502},"
  "{\"name\":\"content\",\"type\":\"int\",\"doc\":\"Contents of the manifest: 0=data, 1=deletes\",\"field-id\":517},"
  "{\"name\":\"sequence_number\",\"type\":\"long\",\"doc\":\"Sequence number when the manifest was added\",\"field-id\":515},"
  "{\"name\":\"min_sequence_number\",\"type\":\"long\",\"doc\":\"Lowest sequence number in the manifest\",\"field-id\":516},"
  "{\"name\":\"added_snapshot_id\",\"type\":\"long\",\"doc\":\"Snapshot ID that added the manifest\",\"field-id\":503},"
  "{\"name\":\"added_files_count\",\"type\":\"int\",\"doc\":\"Added entry count\",\"field-id\":504},"
  "{\"name\":\"existing_files_count\",\"type\":\"int\",\"doc\":\"Existing entry count\",\"field-id\":505},"
  "{\"name\":\"deleted_files_count\",\"type\":\"int\",\"doc\":\"Deleted entry count\",\"field-id\":506},"
  "{\"name\":\"added_rows_count\",\"type\":\"long\",\"doc\":\"Added rows count\",\"field-id\":512},"
  "{\"name\":\"existing_rows_count\",\"type\":\"long\",\"doc\":\"Existing rows count\",\"field-id\":513},"
  "{\"name\":\"deleted_rows_count\",\"type\":\"long\",\"doc\":\"Deleted rows count\",\"field-id\":514},"
  "{\"name\":\"partitions\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"r508\",\"fields\":["
    "{\"name\":\"contains_null\",\"type\":\"boolean\",\"doc\":\"True if any file has a null partition value\",\"field-id\":509},"
    "{\"name\":\"contains_nan\",\"type\":[\"null\",\"boolean\"],\"doc\":\"True if any file has a nan partition value\",\"default\":null,\"field-id\":518},"
    "{\"name\":\"lower_bound\",\"type\":[\"null\",\"bytes\"],\"doc\":\"Partition lower bound for all files\",\"default\":null,\"field-id\":510},"
    "{\"name\":\"upper_bound\",\"type\":[\"null\",\"bytes\"],\"doc\":\"Partition upper bound for all files\",\"default\":null,\"field-id\":511}"
  "]},\"element-id\":508}],\"doc\":\"Summary for each partition\",\"default\":null,\"field-id\":507},"
  "{\"name\":\"key_metadata\",\"type\":[\"null\",\"bytes\"],\"doc\":\"Encryption key metadata blob\",\"default\":null,\"field-id\":519}"
  "]}";

/* Format version 3 adds first_row_id (520): where the row ids of the manifest's rows
 * start (row lineage). The same fields otherwise. */
#define ML_V3_TAIL \
  ",{\"name\":\"first_row_id\",\"type\":[\"null\",\"long\"],\"doc\":\"Starting row ID to assign to new " \
  "rows in ADDED data files\",\"default\":null,\"field-id\":520}]}"
static char *manifest_list_schema_v3(void) {
  size_t n = strlen(ICEBERG_MANIFEST_LIST_SCHEMA);
  /* The v2 schema ends with "]}": the field list is reopened to add the v3 field. */
  return wr_asprintf("%.*s%s", (int)(n - 2), ICEBERG_MANIFEST_LIST_SCHEMA, ML_V3_TAIL);
}
/* clang-format on */

void iceberg_manifest_files_free_one(iceberg_manifest_file *m) {
  free(m->path);
  for (size_t j = 0; j < m->n_partitions; j++) {
    free(m->partitions[j].lower);
    free(m->partitions[j].upper);
  }
  free(m->partitions);
  free(m->key_metadata);
  memset(m, 0, sizeof *m);
}

void iceberg_manifest_files_free(iceberg_manifest_file *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) iceberg_manifest_files_free_one(&v[i]);
  free(v);
}

/* ---- building records ---------------------------------------------------------------
 * avro-c reports failures through return codes; with our own fixed schemas a failure is a
 * programming error, so the setters OR the codes into *rc and the caller reports once. */

static avro_value_t field(avro_value_t *rec, const char *name, int *rc) {
  avro_value_t v = {0};
  *rc |= avro_value_get_by_name(rec, name, &v, NULL);
  return v;
}

static void set_int(avro_value_t *rec, const char *name, int32_t x, int *rc) {
  avro_value_t v = field(rec, name, rc);
  if (!*rc) *rc |= avro_value_set_int(&v, x);
}

static void set_long(avro_value_t *rec, const char *name, int64_t x, int *rc) {
  avro_value_t v = field(rec, name, rc);
  if (!*rc) *rc |= avro_value_set_long(&v, x);
}

static void set_string(avro_value_t *rec, const char *name, const char *s, int *rc) {
  avro_value_t v = field(rec, name, rc);
  if (!*rc) *rc |= avro_value_set_string(&v, s);
}

static void set_null(avro_value_t *rec, const char *name, int *rc) {
  avro_value_t u = field(rec, name, rc), b;
  if (!*rc) *rc |= avro_value_set_branch(&u, 0, &b);
  if (!*rc) *rc |= avro_value_set_null(&b);
}

/* The non-null branch of an optional field. */
static avro_value_t set_some(avro_value_t *rec, const char *name, int *rc) {
  avro_value_t u = field(rec, name, rc), b = {0};
  if (!*rc) *rc |= avro_value_set_branch(&u, 1, &b);
  return b;
}

static void set_opt_long(avro_value_t *rec, const char *name, int64_t x, int *rc) {
  avro_value_t b = set_some(rec, name, rc);
  if (!*rc) *rc |= avro_value_set_long(&b, x);
}

static void set_opt_bytes(avro_value_t *rec, const char *name, const void *p, size_t n, int *rc) {
  if (!p) {
    set_null(rec, name, rc);
    return;
  }
  avro_value_t b = set_some(rec, name, rc);
  if (!*rc) *rc |= avro_value_set_bytes(&b, (void *)p, n);
}

enum stat_kind { K_SIZE, K_VALUES, K_NULLS, K_NANS, K_LOWER, K_UPPER };

static bool stat_present(const iceberg_column_stats *s, enum stat_kind k) {
  switch (k) {
    case K_SIZE: return s->column_size >= 0;
    case K_VALUES: return s->value_count >= 0;
    case K_NULLS: return s->null_count >= 0;
    case K_NANS: return s->nan_count >= 0;
    case K_LOWER: return s->lower != NULL;
    case K_UPPER: return s->upper != NULL;
  }
  return false;
}

/* One of the data file's id-keyed maps; null when no column has that statistic. */
static void set_stat_map(avro_value_t *df, const char *name, const iceberg_data_file *f,
                         enum stat_kind k, int *rc) {
  size_t present = 0;
  for (size_t i = 0; i < f->n_stats; i++) present += stat_present(&f->stats[i], k);
  if (!present) {
    set_null(df, name, rc);
    return;
  }
  avro_value_t arr = set_some(df, name, rc);
  for (size_t i = 0; i < f->n_stats && !*rc; i++) {
    const iceberg_column_stats *s = &f->stats[i];
    if (!stat_present(s, k)) continue;
    avro_value_t el, kv;
    *rc |= avro_value_append(&arr, &el, NULL);
    if (*rc) break;
    set_int(&el, "key", s->field_id, rc);
    kv = field(&el, "value", rc);
    if (*rc) break;
    switch (k) {
      case K_SIZE: *rc |= avro_value_set_long(&kv, s->column_size); break;
      case K_VALUES: *rc |= avro_value_set_long(&kv, s->value_count); break;
      case K_NULLS: *rc |= avro_value_set_long(&kv, s->null_count); break;
      case K_NANS: *rc |= avro_value_set_long(&kv, s->nan_count); break;
      case K_LOWER: *rc |= avro_value_set_bytes(&kv, s->lower, s->lower_len); break;
      case K_UPPER: *rc |= avro_value_set_bytes(&kv, s->upper, s->upper_len); break;
    }
  }
}

/* ---- manifests --------------------------------------------------------------------- */

/* ---- partition tuples ----------------------------------------------------------------
 * The manifest entry's `partition` record (field 102) has one optional field per partition
 * field, with its field id, typed as the spec says for the transform's result. */

/* Bytes of the Avro fixed holding a decimal of precision p (as Java's
 * TypeUtil.decimalRequiredBytes). */
static int decimal_bytes(int p) {
  for (int b = 1; b < 17; b++) {
    /* the largest p-digit number must fit in 8b-1 bits */
    double max = 1;
    for (int i = 0; i < 8 * b - 1; i++) max *= 2;
    double need = 1;
    for (int i = 0; i < p; i++) need *= 10;
    if (need <= max) return b;
  }
  return 16;
}

static void put_avro_type(wr_buf *b, const iceberg_partition_field *f) {
  weir_type t = f->result_type;
  switch (t.id) {
    case WEIR_TYPE_BOOL: wr_buf_puts(b, "\"boolean\""); break;
    case WEIR_TYPE_INT32: wr_buf_puts(b, "\"int\""); break;
    case WEIR_TYPE_INT64: wr_buf_puts(b, "\"long\""); break;
    case WEIR_TYPE_FLOAT32: wr_buf_puts(b, "\"float\""); break;
    case WEIR_TYPE_FLOAT64: wr_buf_puts(b, "\"double\""); break;
    case WEIR_TYPE_DATE32: wr_buf_puts(b, "{\"type\":\"int\",\"logicalType\":\"date\"}"); break;
    case WEIR_TYPE_TS_US:
    case WEIR_TYPE_TS_US_UTC:
      wr_buf_printf(b, "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":%s}",
                    t.id == WEIR_TYPE_TS_US_UTC ? "true" : "false");
      break;
    case WEIR_TYPE_TS_NS:
    case WEIR_TYPE_TS_NS_UTC:
      wr_buf_printf(b, "{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\",\"adjust-to-utc\":%s}",
                    t.id == WEIR_TYPE_TS_NS_UTC ? "true" : "false");
      break;
    case WEIR_TYPE_DECIMAL:
      wr_buf_printf(b,
                    "{\"type\":\"fixed\",\"name\":\"fixed_%d\",\"size\":%d,\"logicalType\":\"decimal\","
                    "\"precision\":%d,\"scale\":%d}",
                    (int)f->field_id, decimal_bytes(t.precision), t.precision, t.scale);
      break;
    case WEIR_TYPE_BINARY: wr_buf_puts(b, "\"bytes\""); break;
    default: wr_buf_puts(b, "\"string\""); break;
  }
}

/* The manifest_entry schema for `spec` (the fixed one when unpartitioned). Caller frees. */
static char *entry_schema(const iceberg_partition_spec *spec) {
  static const char EMPTY[] = "{\"type\":\"record\",\"name\":\"r102\",\"fields\":[]}";
  if (!spec || spec->n_fields == 0) return wr_strdup(ICEBERG_MANIFEST_ENTRY_SCHEMA);
  wr_buf rec = WEIR_BUF_INIT;
  wr_buf_puts(&rec, "{\"type\":\"record\",\"name\":\"r102\",\"fields\":[");
  for (size_t i = 0; i < spec->n_fields; i++) {
    const iceberg_partition_field *f = &spec->fields[i];
    json_t *name = json_string(f->name);
    char *qname = json_dumps(name, JSON_ENCODE_ANY);
    json_decref(name);
    wr_buf_printf(&rec, "%s{\"name\":%s,\"type\":[\"null\",", i ? "," : "", qname);
    free(qname);
    put_avro_type(&rec, f);
    wr_buf_printf(&rec, "],\"default\":null,\"field-id\":%d}", (int)f->field_id);
  }
  wr_buf_puts(&rec, "]}");
  const char *at = strstr(ICEBERG_MANIFEST_ENTRY_SCHEMA, EMPTY);
  wr_buf out = WEIR_BUF_INIT;
  wr_buf_printf(&out, "%.*s%s%s", (int)(at - ICEBERG_MANIFEST_ENTRY_SCHEMA), ICEBERG_MANIFEST_ENTRY_SCHEMA,
                wr_buf_cstr(&rec), at + strlen(EMPTY));
  wr_buf_free(&rec);
  char *s = wr_strdup(wr_buf_cstr(&out));
  wr_buf_free(&out);
  return s;
}

/* Sets one partition value (binary form) into the non-null branch `b`. */
static int set_partition_value(avro_value_t *b, const iceberg_partition_field *f, const iceberg_partition_value *v) {
  weir_type t = f->result_type;
  const uint8_t *d = v->value;
  size_t n = v->len;
  uint64_t le = 0;
  for (size_t i = 0; i < n && i < 8; i++) le |= (uint64_t)d[i] << (8 * i);
  switch (t.id) {
    case WEIR_TYPE_BOOL: return avro_value_set_boolean(b, n && d[0]);
    case WEIR_TYPE_INT32:
    case WEIR_TYPE_DATE32: return n == 4 ? avro_value_set_int(b, (int32_t)(uint32_t)le) : EINVAL;
    case WEIR_TYPE_INT64:
    case WEIR_TYPE_TS_US:
    case WEIR_TYPE_TS_US_UTC:
    case WEIR_TYPE_TS_NS:
    case WEIR_TYPE_TS_NS_UTC: return n == 8 ? avro_value_set_long(b, (int64_t)le) : EINVAL;
    case WEIR_TYPE_FLOAT32: {
      float x;
      if (n != 4) return EINVAL;
      memcpy(&x, d, 4);
      return avro_value_set_float(b, x);
    }
    case WEIR_TYPE_FLOAT64: {
      double x;
      if (n != 8) return EINVAL;
      memcpy(&x, d, 8);
      return avro_value_set_double(b, x);
    }
    case WEIR_TYPE_DECIMAL: {
      int size = decimal_bytes(t.precision);
      if ((int)n > size || n == 0) return EINVAL;
      uint8_t fixed[16];
      memset(fixed, (d[0] & 0x80) ? 0xff : 0x00, (size_t)size);
      memcpy(fixed + size - (int)n, d, n);
      return avro_value_set_fixed(b, fixed, (size_t)size);
    }
    case WEIR_TYPE_BINARY: return avro_value_set_bytes(b, (void *)d, n);
    default: {
      char *s = wr_strndup((const char *)d, n);
      int rc = avro_value_set_string_len(b, s, n + 1);
      free(s);
      return rc;
    }
  }
}

static void set_partition(avro_value_t *df, const iceberg_manifest_info *info, const iceberg_data_file *f, int *rc) {
  avro_value_t rec = field(df, "partition", rc);
  if (*rc || !info->spec) return;
  for (size_t i = 0; i < info->spec->n_fields && !*rc; i++) {
    avro_value_t u, b;
    *rc |= avro_value_get_by_index(&rec, i, &u, NULL);
    if (*rc) break;
    const iceberg_partition_value *v = &f->partition[i];
    if (v->is_null) {
      *rc |= avro_value_set_branch(&u, 0, &b);
      if (!*rc) *rc |= avro_value_set_null(&b);
    } else {
      *rc |= avro_value_set_branch(&u, 1, &b);
      if (!*rc) *rc |= set_partition_value(&b, &info->spec->fields[i], v);
    }
  }
}

/* The manifest list's summary of one partition field over `files`. */
static void summarize(const iceberg_partition_field *pf, size_t k, const iceberg_data_file *files, size_t n,
                      iceberg_partition_summary *out) {
  memset(out, 0, sizeof *out);
  bool floating = pf->result_type.id == WEIR_TYPE_FLOAT32 || pf->result_type.id == WEIR_TYPE_FLOAT64;
  out->contains_nan = floating ? 0 : -1;
  const iceberg_partition_value *lo = NULL, *hi = NULL;
  for (size_t i = 0; i < n; i++) {
    const iceberg_partition_value *v = &files[i].partition[k];
    if (v->is_null) {
      out->contains_null = true;
      continue;
    }
    if (floating) {
      double x = 0;
      if (v->len == 8) memcpy(&x, v->value, 8);
      else if (v->len == 4) {
        float y;
        memcpy(&y, v->value, 4);
        x = y;
      }
      if (x != x) {
        out->contains_nan = 1;
        continue;
      }
    }
    if (!lo || iceberg_value_compare(pf->result_type, v->value, v->len, lo->value, lo->len) < 0) lo = v;
    if (!hi || iceberg_value_compare(pf->result_type, v->value, v->len, hi->value, hi->len) > 0) hi = v;
  }
  if (lo) {
    out->lower = wr_malloc(lo->len ? lo->len : 1);
    if (lo->len) memcpy(out->lower, lo->value, lo->len);
    out->lower_len = lo->len;
    out->has_lower = true;
    out->upper = wr_malloc(hi->len ? hi->len : 1);
    if (hi->len) memcpy(out->upper, hi->value, hi->len);
    out->upper_len = hi->len;
    out->has_upper = true;
  }
}

static int manifest_encode_unlocked(const iceberg_manifest_info *info, const iceberg_data_file *files,
                            size_t n_files, wr_buf *out, weir_error *err) {
  iceberg_avro_writer w;
  size_t n_part = info->spec ? info->spec->n_fields : 0;
  char *schema = entry_schema(info->spec);
  int st = iceberg_avro_writer_init(&w, schema, err);
  free(schema);
  if (st != WEIR_OK) return st;
  for (size_t i = 0; i < n_files; i++) {
    const iceberg_data_file *f = &files[i];
    if (!f->path || f->record_count < 0 || f->file_size < 0) {
      iceberg_avro_writer_free(&w);
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "data file %zu (%s) needs a path, a record count and a size", i + 1,
                         f->path ? f->path : "no path");
    }
    if (f->n_partition != n_part) {
      iceberg_avro_writer_free(&w);
      return wr_seterr(err, WEIR_EINVALIDARG, "data file %s has %zu partition values; its spec has %zu fields",
                       f->path, f->n_partition, n_part);
    }
    int rc = 0;
    avro_value_t *rec = iceberg_avro_writer_record(&w);
    /* By default: ADDED by this snapshot, with null sequence numbers, which an ADDED entry
     * inherits from its manifest (spec, "Sequence Number Inheritance"), as Java writes
     * them. Merged manifests give every entry its own numbers. */
    iceberg_entry_meta e = {ICEBERG_STATUS_ADDED, info->snapshot_id, -1, -1};
    if (info->entries) e = info->entries[i];
    set_int(rec, "status", e.status, &rc);
    if (e.snapshot_id >= 0) set_opt_long(rec, "snapshot_id", e.snapshot_id, &rc);
    else set_null(rec, "snapshot_id", &rc);
    if (e.sequence_number >= 0) set_opt_long(rec, "sequence_number", e.sequence_number, &rc);
    else set_null(rec, "sequence_number", &rc);
    if (e.file_sequence_number >= 0)
      set_opt_long(rec, "file_sequence_number", e.file_sequence_number, &rc);
    else
      set_null(rec, "file_sequence_number", &rc);
    avro_value_t df = field(rec, "data_file", &rc);
    if (!rc) {
      set_int(&df, "content", ICEBERG_CONTENT_DATA, &rc);
      char *uri = wr_location_to_uri(f->path);
      set_string(&df, "file_path", uri, &rc);
      free(uri);
      set_string(&df, "file_format", "PARQUET", &rc);
      set_partition(&df, info, f, &rc);
      set_long(&df, "record_count", f->record_count, &rc);
      set_long(&df, "file_size_in_bytes", f->file_size, &rc);
      set_stat_map(&df, "column_sizes", f, K_SIZE, &rc);
      set_stat_map(&df, "value_counts", f, K_VALUES, &rc);
      set_stat_map(&df, "null_value_counts", f, K_NULLS, &rc);
      set_stat_map(&df, "nan_value_counts", f, K_NANS, &rc);
      set_stat_map(&df, "lower_bounds", f, K_LOWER, &rc);
      set_stat_map(&df, "upper_bounds", f, K_UPPER, &rc);
      set_null(&df, "key_metadata", &rc);
      set_null(&df, "split_offsets", &rc);
      set_null(&df, "equality_ids", &rc);
      set_null(&df, "sort_order_id", &rc);
    }
    if (rc) {
      iceberg_avro_writer_free(&w);
      return wr_seterr(err, WEIR_EGENERIC, "manifest entry for %s: %s", f->path,
                         avro_strerror());
    }
    st = iceberg_avro_writer_append(&w, err);
    if (st != WEIR_OK) {
      iceberg_avro_writer_free(&w);
      return st;
    }
  }
  char schema_id[32], spec_id[32];
  snprintf(schema_id, sizeof schema_id, "%d", info->schema_id);
  snprintf(spec_id, sizeof spec_id, "%d", info->spec ? (int)info->spec->spec_id : 0);
  char *spec_fields = NULL;
  if (info->spec) {
    json_t *sj = iceberg_partition_spec_to_json(info->spec);
    spec_fields = json_dumps(json_object_get(sj, "fields"), JSON_COMPACT);
    json_decref(sj);
  }
  const iceberg_avro_meta meta[] = {
      {"schema", info->schema_json},   {"schema-id", schema_id},
      {"partition-spec", spec_fields ? spec_fields : "[]"}, {"partition-spec-id", spec_id},
      {"format-version", info->format_version >= 3 ? "3" : "2"}, {"content", "data"},
  };
  iceberg_avro_writer_finish(&w, meta, sizeof meta / sizeof meta[0], out);
  iceberg_avro_writer_free(&w);
  free(spec_fields);
  return WEIR_OK;
}

int iceberg_manifest_write(const char *path, const iceberg_manifest_info *info,
                           const iceberg_data_file *files, size_t n_files,
                           iceberg_manifest_file *entry, weir_error *err) {
  memset(entry, 0, sizeof *entry);
  wr_buf b = WEIR_BUF_INIT;
  int rc = iceberg_manifest_encode(info, files, n_files, &b, err);
  if (rc == WEIR_OK) rc = wr_storage_write(path, b.data, b.len, true, err);
  if (rc == WEIR_OK) {
    entry->path = wr_strdup(path);
    entry->length = (int64_t)b.len;
    entry->spec_id = info->spec ? info->spec->spec_id : 0;
    entry->content = ICEBERG_CONTENT_DATA;
    entry->sequence_number = info->sequence_number;
    entry->min_sequence_number = info->sequence_number;
    entry->added_snapshot_id = info->snapshot_id;
    for (size_t i = 0; i < n_files; i++) {
      int status = info->entries ? info->entries[i].status : ICEBERG_STATUS_ADDED;
      int64_t seq = info->entries ? info->entries[i].sequence_number : -1;
      if (seq >= 0 && seq < entry->min_sequence_number) entry->min_sequence_number = seq;
      if (status == ICEBERG_STATUS_ADDED) entry->added_files++, entry->added_rows += files[i].record_count;
      else if (status == ICEBERG_STATUS_EXISTING) entry->existing_files++, entry->existing_rows += files[i].record_count;
      else entry->deleted_files++, entry->deleted_rows += files[i].record_count;
    }
    entry->has_partitions = true;
    entry->first_row_id = -1; /* assigned when a v3 manifest list lists it */
    size_t np = info->spec ? info->spec->n_fields : 0;
    if (np) {
      entry->partitions = wr_calloc(np, sizeof *entry->partitions);
      entry->n_partitions = np;
      for (size_t k = 0; k < np; k++) summarize(&info->spec->fields[k], k, files, n_files, &entry->partitions[k]);
    }
  }
  wr_buf_free(&b);
  return rc;
}

/* Grows a vector whose capacity is the next power of two of its length. */
static void *grow(void *v, size_t n, size_t elem) {
  if (n == 0) return wr_realloc(v, 8 * elem);
  if (n >= 8 && (n & (n - 1)) == 0) return wr_realloc(v, 2 * n * elem);
  return v;
}

static iceberg_column_stats *stats_for(iceberg_data_file *f, int32_t id) {
  for (size_t i = 0; i < f->n_stats; i++)
    if (f->stats[i].field_id == id) return &f->stats[i];
  f->stats = grow(f->stats, f->n_stats, sizeof *f->stats);
  iceberg_column_stats *s = &f->stats[f->n_stats++];
  memset(s, 0, sizeof *s);
  s->field_id = id;
  s->value_count = s->null_count = s->nan_count = s->column_size = -1;
  return s;
}

static int read_stat_map(avro_value_t *df, const char *name, iceberg_data_file *f,
                         enum stat_kind k) {
  avro_value_t arr;
  if (!iceberg_avro_field(df, name, &arr)) return 0;
  if (avro_value_get_type(&arr) != AVRO_ARRAY) return -1;
  size_t n = 0;
  if (avro_value_get_size(&arr, &n) != 0) return -1;
  for (size_t i = 0; i < n; i++) {
    avro_value_t el;
    int64_t key;
    if (avro_value_get_by_index(&arr, i, &el, NULL) != 0) return -1;
    if (!iceberg_avro_get_long(&el, "key", &key)) return -1;
    iceberg_column_stats *s = stats_for(f, (int32_t)key);
    if (k == K_LOWER || k == K_UPPER) {
      const void *p;
      size_t len;
      if (!iceberg_avro_get_bytes(&el, "value", &p, &len)) return -1;
      uint8_t **dst = k == K_LOWER ? &s->lower : &s->upper;
      free(*dst);
      *dst = wr_malloc(len ? len : 1);
      if (len) memcpy(*dst, p, len);
      if (k == K_LOWER) s->lower_len = len;
      else s->upper_len = len;
    } else {
      int64_t v;
      if (!iceberg_avro_get_long(&el, "value", &v)) return -1;
      switch (k) {
        case K_SIZE: s->column_size = v; break;
        case K_VALUES: s->value_count = v; break;
        case K_NULLS: s->null_count = v; break;
        case K_NANS: s->nan_count = v; break;
        default: break;
      }
    }
  }
  return 0;
}

/* The entry's partition tuple, each value in binary form (an Avro decimal fixed is kept as
 * its sign-extended bytes, which compare the same). */
static int read_partition(avro_value_t *df, iceberg_data_file *f) {
  avro_value_t rec;
  if (avro_value_get_by_name(df, "partition", &rec, NULL) != 0) return 0;
  if (avro_value_get_type(&rec) != AVRO_RECORD) return -1;
  size_t n = 0;
  if (avro_value_get_size(&rec, &n) != 0) return -1;
  if (!n) return 0;
  f->partition = wr_calloc(n, sizeof *f->partition);
  for (size_t i = 0; i < n; i++) {
    avro_value_t v, b;
    iceberg_partition_value *pv = &f->partition[f->n_partition++];
    if (avro_value_get_by_index(&rec, i, &v, NULL) != 0) return -1;
    if (avro_value_get_type(&v) == AVRO_UNION) {
      if (avro_value_get_current_branch(&v, &b) != 0) return -1;
      v = b;
    }
    uint8_t buf[8];
    const void *p = buf;
    size_t len = 0;
    switch (avro_value_get_type(&v)) {
      case AVRO_NULL: pv->is_null = true; continue;
      case AVRO_BOOLEAN: {
        int x;
        if (avro_value_get_boolean(&v, &x)) return -1;
        buf[0] = x ? 1 : 0, len = 1;
        break;
      }
      case AVRO_INT32: {
        int32_t x;
        if (avro_value_get_int(&v, &x)) return -1;
        for (int k = 0; k < 4; k++) buf[k] = (uint8_t)((uint32_t)x >> (8 * k));
        len = 4;
        break;
      }
      case AVRO_INT64: {
        int64_t x;
        if (avro_value_get_long(&v, &x)) return -1;
        for (int k = 0; k < 8; k++) buf[k] = (uint8_t)((uint64_t)x >> (8 * k));
        len = 8;
        break;
      }
      case AVRO_FLOAT: {
        float x;
        if (avro_value_get_float(&v, &x)) return -1;
        memcpy(buf, &x, 4), len = 4;
        break;
      }
      case AVRO_DOUBLE: {
        double x;
        if (avro_value_get_double(&v, &x)) return -1;
        memcpy(buf, &x, 8), len = 8;
        break;
      }
      case AVRO_STRING: {
        const char *s;
        size_t sz;
        if (avro_value_get_string(&v, &s, &sz)) return -1;
        p = s, len = sz ? sz - 1 : 0;
        break;
      }
      case AVRO_BYTES:
        if (avro_value_get_bytes(&v, &p, &len)) return -1;
        break;
      case AVRO_FIXED:
        if (avro_value_get_fixed(&v, &p, &len)) return -1;
        break;
      default: return -1;
    }
    pv->value = wr_malloc(len ? len : 1);
    if (len) memcpy(pv->value, p, len);
    pv->len = len;
  }
  return 0;
}

static int cmp_stats(const void *a, const void *b) {
  int32_t x = ((const iceberg_column_stats *)a)->field_id;
  int32_t y = ((const iceberg_column_stats *)b)->field_id;
  return (x > y) - (x < y);
}

/* The entries of an open manifest; closes the reader. `path` names it in messages (and
 * outlives the reader). */
static int manifest_read(iceberg_avro_reader *r, const char *path, bool live_only, iceberg_data_file **files,
                         size_t *n, iceberg_entry_meta **meta, weir_error *err) {
  int rc = WEIR_OK;
  const char *content = iceberg_avro_reader_meta(r, "content");
  if (content && strcmp(content, "data") != 0) {
    /* The message first: `content` lives in the reader's header, which close frees. */
    rc = wr_seterr(err, WEIR_EINPUT, "%s: a manifest of %s files; weir reads tables without delete files",
                     path, content);
    iceberg_avro_reader_close(r);
    return rc;
  }
  const char *spec_text = iceberg_avro_reader_meta(r, "partition-spec-id");
  int32_t spec_id = spec_text ? (int32_t)strtol(spec_text, NULL, 10) : 0;
  for (;;) {
    avro_value_t *rec;
    rc = iceberg_avro_reader_next(r, &rec, err);
    if (rc != WEIR_OK || !rec) break;
    int64_t status, df_content = 0;
    avro_value_t df;
    if (!iceberg_avro_get_long(rec, "status", &status) ||
        !iceberg_avro_field(rec, "data_file", &df)) {
      rc = wr_seterr(err, WEIR_EINPUT, "%s: manifest entry %lld has no status or data_file", path,
                       (long long)r->records_read);
      break;
    }
    if (live_only && status == ICEBERG_STATUS_DELETED) continue;
    iceberg_avro_get_long(&df, "content", &df_content);
    if (df_content != ICEBERG_CONTENT_DATA) {
      rc = wr_seterr(err, WEIR_EINPUT,
                       "%s: entry %lld is a delete file; weir reads tables without delete files", path,
                       (long long)r->records_read);
      break;
    }
    const char *fpath = NULL, *format = NULL;
    iceberg_data_file f = {0};
    if (!iceberg_avro_get_string(&df, "file_path", &fpath) ||
        !iceberg_avro_get_long(&df, "record_count", &f.record_count) ||
        !iceberg_avro_get_long(&df, "file_size_in_bytes", &f.file_size)) {
      rc = wr_seterr(err, WEIR_EINPUT, "%s: entry %lld lacks file_path, record_count or file_size_in_bytes",
                       path, (long long)r->records_read);
      break;
    }
    if (iceberg_avro_get_string(&df, "file_format", &format) && strcasecmp(format, "parquet") != 0) {
      rc = wr_seterr(err, WEIR_EINPUT, "%s: data file %s is %s; weir reads Parquet data files",
                       path, fpath, format);
      break;
    }
    f.path = wr_location_from_uri(fpath);
    f.spec_id = spec_id;
    if (read_partition(&df, &f) != 0) {
      rc = wr_seterr(err, WEIR_EINPUT, "%s: entry %lld has a malformed partition tuple", path,
                     (long long)r->records_read);
      iceberg_data_file_clear(&f);
      break;
    }
    static const struct {
      const char *name;
      enum stat_kind k;
    } maps[] = {{"column_sizes", K_SIZE},       {"value_counts", K_VALUES},
                {"null_value_counts", K_NULLS}, {"nan_value_counts", K_NANS},
                {"lower_bounds", K_LOWER},      {"upper_bounds", K_UPPER}};
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++) {
      if (read_stat_map(&df, maps[m].name, &f, maps[m].k) != 0) {
        rc = wr_seterr(err, WEIR_EINPUT, "%s: entry %lld has a malformed %s map", path,
                         (long long)r->records_read, maps[m].name);
        break;
      }
    }
    if (rc != WEIR_OK) {
      iceberg_data_file_clear(&f);
      break;
    }
    if (f.n_stats > 1) qsort(f.stats, f.n_stats, sizeof *f.stats, cmp_stats);
    if (meta) {
      iceberg_entry_meta e = {(int)status, -1, -1, -1};
      iceberg_avro_get_long(rec, "snapshot_id", &e.snapshot_id);
      iceberg_avro_get_long(rec, "sequence_number", &e.sequence_number);
      iceberg_avro_get_long(rec, "file_sequence_number", &e.file_sequence_number);
      *meta = grow(*meta, *n, sizeof **meta);
      (*meta)[*n] = e;
    }
    *files = grow(*files, *n, sizeof **files);
    (*files)[(*n)++] = f;
  }
  iceberg_avro_reader_close(r);
  return rc;
}

static int manifest_read_unlocked(const char *path, bool live_only, iceberg_data_file **files, size_t *n,
                          iceberg_entry_meta **meta, weir_error *err) {
  iceberg_avro_reader r;
  int rc = iceberg_avro_reader_open(&r, path, err);
  if (rc != WEIR_OK) return rc;
  return manifest_read(&r, path, live_only, files, n, meta, err);
}

static int manifest_read_mem_unlocked(const void *data, size_t len, const char *origin, bool live_only,
                              iceberg_data_file **files, size_t *n, iceberg_entry_meta **meta,
                              weir_error *err) {
  iceberg_avro_reader r;
  int rc = iceberg_avro_reader_open_mem(&r, data, len, origin, err);
  if (rc != WEIR_OK) return rc;
  return manifest_read(&r, origin ? origin : "<manifest>", live_only, files, n, meta, err);
}

/* ---- manifest lists ---------------------------------------------------------------- */

static int manifest_list_encode_unlocked(const iceberg_manifest_list_info *info,
                                 const iceberg_manifest_file *m, size_t n, wr_buf *out,
                                 weir_error *err) {
  iceberg_avro_writer w;
  bool v3 = info->format_version >= 3;
  char *schema_v3 = v3 ? manifest_list_schema_v3() : NULL;
  int st = iceberg_avro_writer_init(&w, v3 ? schema_v3 : ICEBERG_MANIFEST_LIST_SCHEMA, err);
  free(schema_v3);
  if (st != WEIR_OK) return st;
  for (size_t i = 0; i < n; i++) {
    int rc = 0;
    avro_value_t *rec = iceberg_avro_writer_record(&w);
    char *uri = wr_location_to_uri(m[i].path);
    set_string(rec, "manifest_path", uri, &rc);
    free(uri);
    set_long(rec, "manifest_length", m[i].length, &rc);
    set_int(rec, "partition_spec_id", m[i].spec_id, &rc);
    set_int(rec, "content", m[i].content, &rc);
    set_long(rec, "sequence_number", m[i].sequence_number, &rc);
    set_long(rec, "min_sequence_number", m[i].min_sequence_number, &rc);
    set_long(rec, "added_snapshot_id", m[i].added_snapshot_id, &rc);
    set_int(rec, "added_files_count", m[i].added_files, &rc);
    set_int(rec, "existing_files_count", m[i].existing_files, &rc);
    set_int(rec, "deleted_files_count", m[i].deleted_files, &rc);
    set_long(rec, "added_rows_count", m[i].added_rows, &rc);
    set_long(rec, "existing_rows_count", m[i].existing_rows, &rc);
    set_long(rec, "deleted_rows_count", m[i].deleted_rows, &rc);
    if (m[i].has_partitions) {
      avro_value_t arr = set_some(rec, "partitions", &rc);
      for (size_t j = 0; j < m[i].n_partitions && !rc; j++) {
        const iceberg_partition_summary *p = &m[i].partitions[j];
        avro_value_t el, v;
        rc |= avro_value_append(&arr, &el, NULL);
        if (rc) break;
        v = field(&el, "contains_null", &rc);
        if (!rc) rc |= avro_value_set_boolean(&v, p->contains_null);
        if (p->contains_nan < 0) {
          set_null(&el, "contains_nan", &rc);
        } else {
          avro_value_t b = set_some(&el, "contains_nan", &rc);
          if (!rc) rc |= avro_value_set_boolean(&b, p->contains_nan);
        }
        set_opt_bytes(&el, "lower_bound", p->has_lower ? (const void *)p->lower : NULL,
                      p->lower_len, &rc);
        set_opt_bytes(&el, "upper_bound", p->has_upper ? (const void *)p->upper : NULL,
                      p->upper_len, &rc);
      }
    } else {
      set_null(rec, "partitions", &rc);
    }
    set_opt_bytes(rec, "key_metadata", m[i].key_metadata, m[i].key_metadata_len, &rc);
    if (v3) {
      if (m[i].first_row_id < 0) {
        set_null(rec, "first_row_id", &rc);
      } else {
        avro_value_t fr = set_some(rec, "first_row_id", &rc);
        if (!rc) rc |= avro_value_set_long(&fr, m[i].first_row_id);
      }
    }
    if (rc) {
      iceberg_avro_writer_free(&w);
      return wr_seterr(err, WEIR_EGENERIC, "manifest list entry for %s: %s", m[i].path,
                         avro_strerror());
    }
    st = iceberg_avro_writer_append(&w, err);
    if (st != WEIR_OK) {
      iceberg_avro_writer_free(&w);
      return st;
    }
  }
  char snap[32], parent[32], seq[32];
  snprintf(snap, sizeof snap, "%lld", (long long)info->snapshot_id);
  if (info->parent_snapshot_id >= 0)
    snprintf(parent, sizeof parent, "%lld", (long long)info->parent_snapshot_id);
  else
    snprintf(parent, sizeof parent, "null");
  snprintf(seq, sizeof seq, "%lld", (long long)info->sequence_number);
  const iceberg_avro_meta meta[] = {
      {"snapshot-id", snap},
      {"parent-snapshot-id", parent},
      {"sequence-number", seq},
      {"format-version", v3 ? "3" : "2"},
  };
  iceberg_avro_writer_finish(&w, meta, sizeof meta / sizeof meta[0], out);
  iceberg_avro_writer_free(&w);
  return WEIR_OK;
}

int iceberg_manifest_list_write(const char *path, const iceberg_manifest_list_info *info,
                                const iceberg_manifest_file *m, size_t n, weir_error *err) {
  wr_buf b = WEIR_BUF_INIT;
  int rc = iceberg_manifest_list_encode(info, m, n, &b, err);
  if (rc == WEIR_OK) rc = wr_storage_write(path, b.data, b.len, true, err);
  wr_buf_free(&b);
  return rc;
}

static uint8_t *copy_bytes(const void *p, size_t n) {
  uint8_t *b = wr_malloc(n ? n : 1);
  if (n) memcpy(b, p, n);
  return b;
}

static int read_partitions(avro_value_t *rec, iceberg_manifest_file *mf) {
  avro_value_t arr;
  if (!iceberg_avro_field(rec, "partitions", &arr)) return 0;
  if (avro_value_get_type(&arr) != AVRO_ARRAY) return -1;
  size_t n = 0;
  if (avro_value_get_size(&arr, &n) != 0) return -1;
  mf->has_partitions = true;
  if (n) mf->partitions = wr_calloc(n, sizeof *mf->partitions);
  for (size_t i = 0; i < n; i++) {
    avro_value_t el;
    iceberg_partition_summary *p = &mf->partitions[mf->n_partitions++];
    if (avro_value_get_by_index(&arr, i, &el, NULL) != 0) return -1;
    bool b;
    if (!iceberg_avro_get_bool(&el, "contains_null", &p->contains_null)) return -1;
    p->contains_nan = iceberg_avro_get_bool(&el, "contains_nan", &b) ? b : -1;
    const void *d;
    size_t len;
    if (iceberg_avro_get_bytes(&el, "lower_bound", &d, &len)) {
      p->lower = copy_bytes(d, len), p->lower_len = len, p->has_lower = true;
    }
    if (iceberg_avro_get_bytes(&el, "upper_bound", &d, &len)) {
      p->upper = copy_bytes(d, len), p->upper_len = len, p->has_upper = true;
    }
  }
  return 0;
}

/* The entries of an open manifest list; closes the reader. */
static int manifest_list_read(iceberg_avro_reader *r, const char *path, iceberg_manifest_file **out,
                              size_t *n, weir_error *err) {
  int rc = WEIR_OK;
  iceberg_manifest_file *v = NULL;
  size_t count = 0;
  for (;;) {
    avro_value_t *rec;
    rc = iceberg_avro_reader_next(r, &rec, err);
    if (rc != WEIR_OK || !rec) break;
    v = grow(v, count, sizeof *v);
    iceberg_manifest_file *mf = &v[count++];
    memset(mf, 0, sizeof *mf);
    const char *mpath;
    int64_t x;
    if (!iceberg_avro_get_string(rec, "manifest_path", &mpath) ||
        !iceberg_avro_get_long(rec, "manifest_length", &mf->length) ||
        !iceberg_avro_get_long(rec, "added_snapshot_id", &mf->added_snapshot_id)) {
      rc = wr_seterr(err, WEIR_EINPUT,
                       "%s: manifest list entry %zu lacks manifest_path, manifest_length or "
                       "added_snapshot_id",
                       path, count);
      break;
    }
    mf->path = wr_location_from_uri(mpath);
    /* Fields v1 lists lack default as the spec says (Appendix E). */
    mf->spec_id = iceberg_avro_get_long(rec, "partition_spec_id", &x) ? (int32_t)x : 0;
    mf->content = iceberg_avro_get_long(rec, "content", &x) ? (int32_t)x : 0;
    mf->sequence_number = iceberg_avro_get_long(rec, "sequence_number", &x) ? x : 0;
    mf->min_sequence_number = iceberg_avro_get_long(rec, "min_sequence_number", &x) ? x : 0;
    mf->added_files = iceberg_avro_get_long(rec, "added_files_count", &x) ? (int32_t)x : 0;
    mf->existing_files = iceberg_avro_get_long(rec, "existing_files_count", &x) ? (int32_t)x : 0;
    mf->deleted_files = iceberg_avro_get_long(rec, "deleted_files_count", &x) ? (int32_t)x : 0;
    mf->added_rows = iceberg_avro_get_long(rec, "added_rows_count", &x) ? x : 0;
    mf->existing_rows = iceberg_avro_get_long(rec, "existing_rows_count", &x) ? x : 0;
    mf->deleted_rows = iceberg_avro_get_long(rec, "deleted_rows_count", &x) ? x : 0;
    mf->first_row_id = iceberg_avro_get_long(rec, "first_row_id", &x) ? x : -1;
    const void *km;
    size_t kml;
    if (iceberg_avro_get_bytes(rec, "key_metadata", &km, &kml)) {
      mf->key_metadata = copy_bytes(km, kml);
      mf->key_metadata_len = kml;
    }
    if (read_partitions(rec, mf) != 0) {
      rc = wr_seterr(err, WEIR_EINPUT, "%s: manifest list entry %zu has malformed partitions",
                       path, count);
      break;
    }
  }
  iceberg_avro_reader_close(r);
  if (rc != WEIR_OK) {
    iceberg_manifest_files_free(v, count);
    return rc;
  }
  *out = v;
  *n = count;
  return WEIR_OK;
}

static int manifest_list_read_unlocked(const char *path, iceberg_manifest_file **out, size_t *n, weir_error *err) {
  *out = NULL;
  *n = 0;
  iceberg_avro_reader r;
  int rc = iceberg_avro_reader_open(&r, path, err);
  if (rc != WEIR_OK) return rc;
  return manifest_list_read(&r, path, out, n, err);
}

static int manifest_list_read_mem_unlocked(const void *data, size_t len, const char *origin,
                                   iceberg_manifest_file **out, size_t *n, weir_error *err) {
  *out = NULL;
  *n = 0;
  iceberg_avro_reader r;
  int rc = iceberg_avro_reader_open_mem(&r, data, len, origin, err);
  if (rc != WEIR_OK) return rc;
  return manifest_list_read(&r, origin ? origin : "<manifest list>", out, n, err);
}

/* ---- the public entry points: one avro-c user at a time (iceberg_avro_lock) ------- */

int iceberg_manifest_encode(const iceberg_manifest_info *info, const iceberg_data_file *files,
                            size_t n_files, wr_buf *out, weir_error *err) {
  iceberg_avro_lock();
  int rc = manifest_encode_unlocked(info, files, n_files, out, err);
  iceberg_avro_unlock();
  return rc;
}

int iceberg_manifest_read(const char *path, bool live_only, iceberg_data_file **files, size_t *n,
                          iceberg_entry_meta **meta, weir_error *err) {
  iceberg_avro_lock();
  int rc = manifest_read_unlocked(path, live_only, files, n, meta, err);
  iceberg_avro_unlock();
  return rc;
}

int iceberg_manifest_read_mem(const void *data, size_t len, const char *origin, bool live_only,
                              iceberg_data_file **files, size_t *n, iceberg_entry_meta **meta,
                              weir_error *err) {
  iceberg_avro_lock();
  int rc = manifest_read_mem_unlocked(data, len, origin, live_only, files, n, meta, err);
  iceberg_avro_unlock();
  return rc;
}

int iceberg_manifest_list_encode(const iceberg_manifest_list_info *info,
                                 const iceberg_manifest_file *m, size_t n, wr_buf *out,
                                 weir_error *err) {
  iceberg_avro_lock();
  int rc = manifest_list_encode_unlocked(info, m, n, out, err);
  iceberg_avro_unlock();
  return rc;
}

int iceberg_manifest_list_read(const char *path, iceberg_manifest_file **out, size_t *n, weir_error *err) {
  iceberg_avro_lock();
  int rc = manifest_list_read_unlocked(path, out, n, err);
  iceberg_avro_unlock();
  return rc;
}

int iceberg_manifest_list_read_mem(const void *data, size_t len, const char *origin,
                                   iceberg_manifest_file **out, size_t *n, weir_error *err) {
  iceberg_avro_lock();
  int rc = manifest_list_read_mem_unlocked(data, len, origin, out, n, err);
  iceberg_avro_unlock();
  return rc;
}
