/*
 * metadata.c -- reading a table version: the metadata.json file (spec, "Table Metadata"
 * and Appendix C), checked and digested into an iceberg_table.
 *
 * weir reads format-versions 2 and 3 (what it writes: 3 for tables with nanosecond
 * timestamps, docs/iceberg.md). The whole document is kept
 * (iceberg_table.json) so that a new version can be written as a copy of this one with
 * weir's changes applied: fields weir does not manage (other refs, statistics files,
 * sort orders, properties set by other tools) survive weir's writes.
 */
#include "iceberg/iceberg_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/fs.h"
#include "util/json.h"

iceberg_table *iceberg_table_ref(iceberg_table *t) {
  if (t) t->refs++;
  return t;
}

void iceberg_table_free(iceberg_table *t) {
  if (!t) return;
  if (--t->refs > 0) return;
  json_decref(t->json);
  free(t->metadata_location);
  free(t->location);
  free(t->table_uuid);
  wr_schema_clear(&t->schema);
  free(t->manifest_list);
  free(t);
}

static int bad(const char *path, weir_error *err, const char *what) {
  return wr_seterr(err, WEIR_EINPUT, "%s: not a valid Iceberg metadata file: %s", path, what);
}

static bool get_int(const json_t *o, const char *key, int64_t *out) {
  const json_t *v = json_object_get(o, key);
  if (!json_is_integer(v)) return false;
  *out = (int64_t)json_integer_value(v);
  return true;
}

bool iceberg_summary_int(const json_t *summary, const char *key, int64_t *out) {
  const char *s = json_string_value(json_object_get(summary, key));
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

static int parse(iceberg_table *t, const char *path, weir_error *err) {
  json_t *j = t->json;
  if (!json_is_object(j)) return bad(path, err, "expected a JSON object");
  int64_t fv, x;
  if (!get_int(j, "format-version", &fv)) return bad(path, err, "no \"format-version\"");
  if (fv != 2 && fv != 3)
    return wr_seterr(err, WEIR_EINPUT,
                       "%s: the table has Iceberg format-version %lld; weir reads and writes "
                       "format-version 2 (and 3, for tables with nanosecond timestamps)",
                       path, (long long)fv);
  /* v3 requires the row-lineage counter; weir's next write continues it. */
  if (fv == 3 && (!get_int(j, "next-row-id", &x) || x < 0))
    return bad(path, err, "format-version 3 without a valid \"next-row-id\"");
  const char *uuid = wr_json_str(j, "table-uuid", NULL);
  const char *loc = wr_json_str(j, "location", NULL);
  if (!uuid) return bad(path, err, "no \"table-uuid\"");
  if (!loc) return bad(path, err, "no \"location\"");
  t->table_uuid = wr_strdup(uuid);
  if (!t->table_uuid) return wr_oom(err);
  t->location = wr_location_from_uri(loc);
  if (!get_int(j, "last-sequence-number", &t->last_sequence_number))
    return bad(path, err, "no \"last-sequence-number\"");
  if (!get_int(j, "last-column-id", &x) || x < 0 || x > INT32_MAX)
    return bad(path, err, "no valid \"last-column-id\"");
  t->last_column_id = (int32_t)x;
  if (!get_int(j, "current-schema-id", &x)) return bad(path, err, "no \"current-schema-id\"");
  t->current_schema_id = (int32_t)x;
  if (!json_is_array(json_object_get(j, "schemas"))) return bad(path, err, "no \"schemas\" list");
  const json_t *schema = iceberg_metadata_schema(j, t->current_schema_id);
  if (!schema)
    return wr_seterr(err, WEIR_EINPUT, "%s: current-schema-id %d is not in \"schemas\"", path,
                       t->current_schema_id);
  int rc = iceberg_schema_from_json(schema, &t->schema, err);
  if (rc != WEIR_OK) {
    wr_error_prefix(err, "%s", path);
    return rc;
  }
  json_t *props = json_object_get(j, "properties");
  if (!props) {
    props = json_object();
    if (json_object_set_new(j, "properties", props)) return wr_oom(err);
  }
  if (!json_is_object(props)) return bad(path, err, "\"properties\" is not an object");
  t->properties = props;

  t->current_snapshot_id = -1;
  const json_t *cur = json_object_get(j, "current-snapshot-id");
  if (json_is_integer(cur) && json_integer_value(cur) >= 0)
    t->current_snapshot_id = (int64_t)json_integer_value(cur);
  const json_t *snaps = json_object_get(j, "snapshots");
  if (snaps && !json_is_array(snaps)) return bad(path, err, "\"snapshots\" is not a list");
  if (t->current_snapshot_id < 0) return WEIR_OK;

  size_t i;
  json_t *s, *found = NULL;
  json_array_foreach(snaps, i, s) {
    if (get_int(s, "snapshot-id", &x) && x == t->current_snapshot_id) found = s;
  }
  if (!found)
    return wr_seterr(err, WEIR_EINPUT, "%s: current snapshot %lld is not in \"snapshots\"",
                       path, (long long)t->current_snapshot_id);
  const char *ml = wr_json_str(found, "manifest-list", NULL);
  if (!ml)
    return wr_seterr(err, WEIR_EINPUT, "%s: snapshot %lld has no \"manifest-list\"", path,
                       (long long)t->current_snapshot_id);
  t->manifest_list = wr_location_from_uri(ml);
  json_t *summary = json_object_get(found, "summary");
  t->summary = json_is_object(summary) ? summary : NULL;
  if (t->summary && iceberg_summary_int(t->summary, "total-records", &x)) {
    t->record_count = x;
  } else {
    /* Not every writer records totals: count the live rows of the manifest list. */
    iceberg_manifest_file *m;
    size_t n;
    rc = iceberg_manifest_list_read(t->manifest_list, &m, &n, err);
    if (rc != WEIR_OK) {
      wr_error_prefix(err, "%s: counting the rows of snapshot %lld", path,
                        (long long)t->current_snapshot_id);
      return rc;
    }
    for (size_t k = 0; k < n; k++)
      if (m[k].content == ICEBERG_CONTENT_DATA) t->record_count += m[k].added_rows + m[k].existing_rows;
    iceberg_manifest_files_free(m, n);
  }
  return WEIR_OK;
}

int iceberg_table_parse(const char *text, size_t len, const char *location, iceberg_table **out,
                        weir_error *err) {
  *out = NULL;
  char *path = wr_location_from_uri(location);
  iceberg_table *t = wr_calloc(1, sizeof *t);
  if (!t) {
    free(path);
    return wr_oom(err);
  }
  t->refs = 1;
  t->metadata_location = wr_location_is_remote(path) ? wr_strdup(path) : wr_path_absolute(path);
  int rc = t->metadata_location ? wr_json_parse_len(text, len, path, &t->json, err) : wr_oom(err);
  if (rc == WEIR_OK) rc = parse(t, path, err);
  free(path);
  if (rc != WEIR_OK) {
    iceberg_table_free(t);
    return rc;
  }
  *out = t;
  return WEIR_OK;
}

int iceberg_table_load(const char *metadata_location, iceberg_table **out, weir_error *err) {
  *out = NULL;
  char *path = wr_location_from_uri(metadata_location);
  char *text = NULL;
  size_t len = 0;
  int rc = wr_storage_read(path, &text, &len, err);
  if (rc == WEIR_OK) rc = iceberg_table_parse(text, len, path, out, err);
  free(text);
  free(path);
  return rc;
}
