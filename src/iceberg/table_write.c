/*
 * table_write.c -- writing a table version: manifest, manifest list, metadata file.
 *
 * Each version is one Iceberg snapshot committed by one new metadata file; nothing of the
 * previous version is touched. How weir's operations map to Iceberg:
 *
 *   create     first metadata file: schema 0, unpartitioned spec 0, unsorted order 0, one
 *              snapshot whose manifest list holds one manifest of the new files
 *   append     new snapshot, parent = previous current snapshot; its manifest list lists
 *              the previous manifests unchanged (their files stay where they are) and one
 *              new manifest of the added files; operation "append". When the data
 *              manifests reach commit.manifest.min-count-to-merge (100), the carried ones
 *              are merged into one first (manifest_merge.c)
 *   overwrite  new snapshot whose manifest list has only the new manifest: the previous
 *              files are no longer live (they stay on disk for older versions); operation
 *              "overwrite" (or "append" when nothing was live, "delete" when nothing is
 *              added); the summary counts what was removed
 *
 * The newest previous snapshots stay in "snapshots" (time travel inside Iceberg works
 * too), with their snapshot-log entries; the metadata-log grows by one entry. Both are
 * capped: the metadata-log at write.metadata.previous-versions-max entries (Java's
 * property and default, 100), the snapshots at weir.metadata.snapshots-max (default
 * 100). Without the second cap every write would parse and rewrite every snapshot the
 * table ever had: at 1,000 snapshots a 100-row append cost 404 M instructions, two
 * thirds of them in the metadata JSON (bench/README.md, place 1). Older snapshots are
 * not lost: each metadata file stays as written, and weir's commits pin the file of
 * their version, so time travel by commit reaches every version; only Iceberg-level
 * time travel inside the newest file is limited to the snapshots it lists (readers that
 * want older ones open an older metadata file, listed in the metadata-log). A schema that
 * differs from every schema the table had gets the next schema id (one equal to an older
 * schema reuses that schema's id, as Java does).
 */
#include "iceberg/iceberg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/failpoint.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/uuid.h"

/* Java's default for write.metadata.previous-versions-max. */
#define DEFAULT_PREVIOUS_VERSIONS_MAX 100
#define PROP_PREVIOUS_VERSIONS_MAX "write.metadata.previous-versions-max"
#define PROP_GC_ENABLED "gc.enabled"
/* How many snapshots (the current one included) a new metadata file lists. */
#define DEFAULT_SNAPSHOTS_MAX 100
#define PROP_SNAPSHOTS_MAX "weir.metadata.snapshots-max"

/* ---- checks ------------------------------------------------------------------------ */

static int check_request(const iceberg_write_request *req, weir_error *err) {
  if (!req->table_location || (req->table_location[0] != '/' && !wr_location_is_remote(req->table_location)))
    return wr_seterr(err, WEIR_EINVALIDARG, "Iceberg write: the table location \"%s\" is neither "
                       "an absolute path nor an s3:// URI", req->table_location ? req->table_location : "");
  if (req->op == ICEBERG_OP_REPLACE && (!req->prev || req->n_removed == 0 || req->n_files == 0))
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "Iceberg write to %s: a replace needs a previous version, files to remove and files to add",
                     req->table_location);
  if (req->op == ICEBERG_OP_DELETE && (!req->prev || req->n_removed == 0))
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "Iceberg write to %s: a row delete needs a previous version and files to remove",
                     req->table_location);
  if (req->op != ICEBERG_OP_APPEND && req->op != ICEBERG_OP_OVERWRITE && req->op != ICEBERG_OP_REPLACE &&
      req->op != ICEBERG_OP_DELETE)
    return wr_seterr(err, WEIR_EINVALIDARG, "Iceberg write to %s: unknown operation %d",
                       req->table_location, (int)req->op);
  const wr_schema *s = req->schema;
  if (!s || s->n_fields == 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "Iceberg write to %s: the schema has no columns",
                       req->table_location);
  for (size_t i = 0; i < s->n_fields; i++) {
    const wr_field *f = &s->fields[i];
    if (!f->name || !*f->name)
      return wr_seterr(err, WEIR_EINVALIDARG, "Iceberg write to %s: column %zu has no name",
                         req->table_location, i + 1);
    if (f->field_id <= 0)
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "Iceberg write to %s: column \"%s\" has no field id (call "
                         "iceberg_assign_field_ids first)",
                         req->table_location, f->name);
    for (size_t j = 0; j < i; j++) {
      if (strcmp(s->fields[j].name, f->name) == 0)
        return wr_seterr(err, WEIR_EINVALIDARG, "Iceberg write to %s: two columns are named \"%s\"",
                           req->table_location, f->name);
      if (s->fields[j].field_id == f->field_id)
        return wr_seterr(err, WEIR_EINVALIDARG,
                           "Iceberg write to %s: columns \"%s\" and \"%s\" share field id %d",
                           req->table_location, s->fields[j].name, f->name, f->field_id);
    }
  }
  for (size_t i = 0; i < req->n_files; i++) {
    const iceberg_data_file *f = &req->files[i];
    if (!f->path || !*f->path || f->record_count < 0 || f->file_size < 0)
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "Iceberg write to %s: data file %zu (%s) needs a path, a record count "
                         "and a size",
                         req->table_location, i + 1, f->path ? f->path : "no path");
    /* Readers open data files by the path in the manifest, from anywhere. */
    if (f->path[0] != '/' && !strstr(f->path, "://"))
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "Iceberg write to %s: data file path \"%s\" is neither absolute nor a URI",
                         req->table_location, f->path);
    for (size_t k = 0; k < f->n_stats; k++) {
      bool known = false;
      for (size_t c = 0; c < s->n_fields && !known; c++)
        known = s->fields[c].field_id == f->stats[k].field_id;
      if (!known)
        return wr_seterr(err, WEIR_EINVALIDARG,
                           "Iceberg write to %s: data file %s has statistics for field id %d, "
                           "which is not a column of the schema",
                           req->table_location, f->path, f->stats[k].field_id);
    }
  }
  size_t n_part = req->spec ? req->spec->n_fields : 0;
  for (size_t i = 0; i < req->n_files; i++)
    if (req->files[i].n_partition != n_part)
      return wr_seterr(err, WEIR_EINVALIDARG,
                       "Iceberg write to %s: data file %s has %zu partition values; the spec has %zu fields",
                       req->table_location, req->files[i].path, req->files[i].n_partition, n_part);
  for (size_t i = 0; i < n_part; i++) {
    const iceberg_partition_field *pf = &req->spec->fields[i];
    bool found = false;
    for (size_t c = 0; c < s->n_fields && !found; c++) found = s->fields[c].field_id == pf->source_id;
    if (!found)
      return wr_seterr(err, WEIR_EINVALIDARG,
                       "Iceberg write to %s: partition field %s has source field id %d, which is not a column",
                       req->table_location, pf->name ? pf->name : "?", (int)pf->source_id);
  }
  return WEIR_OK;
}

/* ---- pieces of the metadata -------------------------------------------------------- */

/* The format version a table version is written in: 3 when its schema has a nanosecond
 * timestamp (timestamp_ns and timestamptz_ns exist only in v3), or when the previous
 * version already was v3 (a table never goes back to an older format); else 2. */
static int format_version_of(const iceberg_write_request *req) {
  if (req->prev && wr_json_int(req->prev->json, "format-version", 2) >= 3) return 3;
  for (size_t i = 0; i < req->schema->n_fields; i++) {
    wr_type_id t = req->schema->fields[i].type.id;
    if (t == WEIR_TYPE_TS_NS || t == WEIR_TYPE_TS_NS_UTC) return 3;
  }
  return 2;
}

static bool snapshot_exists(const json_t *meta, int64_t id) {
  size_t i;
  const json_t *s;
  json_array_foreach(json_object_get(meta, "snapshots"), i, s) {
    if (json_integer_value(json_object_get(s, "snapshot-id")) == id) return true;
  }
  return false;
}

/* Keeps the newest snapshots (weir.metadata.snapshots-max, at least 1: the current one,
 * appended last) and the snapshot-log entries of those kept. Snapshots are listed oldest
 * first, as weir writes them. */
static json_t *array_at(json_t *o, const char *key);

static void trim_snapshots(json_t *meta, const json_t *props) {
  int64_t keep = DEFAULT_SNAPSHOTS_MAX;
  int64_t v;
  if (iceberg_summary_int(props, PROP_SNAPSHOTS_MAX, &v) && v >= 1) keep = v;
  json_t *snaps = array_at(meta, "snapshots");
  if ((int64_t)json_array_size(snaps) <= keep) return;
  while ((int64_t)json_array_size(snaps) > keep) json_array_remove(snaps, 0);
  json_t *log = array_at(meta, "snapshot-log");
  for (size_t i = json_array_size(log); i-- > 0;) {
    int64_t id = json_integer_value(json_object_get(json_array_get(log, i), "snapshot-id"));
    if (!snapshot_exists(meta, id)) json_array_remove(log, i);
  }
}

/* The id of a schema of `meta` with exactly these fields, or -1. Also the highest id. */
static int64_t find_schema(const json_t *meta, const json_t *fields, int64_t *max_id) {
  *max_id = -1;
  int64_t found = -1;
  size_t i;
  const json_t *s;
  json_array_foreach(json_object_get(meta, "schemas"), i, s) {
    int64_t id = json_integer_value(json_object_get(s, "schema-id"));
    if (id > *max_id) *max_id = id;
    if (found < 0 && json_equal(json_object_get(s, "fields"), (json_t *)fields)) found = id;
  }
  return found;
}

/* A JSON value as an Iceberg string value (properties and summaries hold strings only). */
static json_t *as_string(const json_t *v) {
  if (json_is_string(v)) return json_string(json_string_value(v));
  char *s = wr_json_compact(v);
  json_t *r = json_string(s);
  free(s);
  return r;
}

static void apply_properties(json_t *props, const json_t *changes) {
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)changes, k, v) {
    if (json_is_null(v))
      json_object_del(props, k);
    else
      json_object_set_new(props, k, as_string(v));
  }
}

/* The version number of a metadata file name: "00003-<uuid>.metadata.json" or
 * "v3.metadata.json" give 3; -1 otherwise. */
static int64_t metadata_version(const char *path) {
  const char *b = wr_path_basename(path);
  if (*b == 'v') b++;
  int64_t v = 0;
  int nd = 0;
  while (*b >= '0' && *b <= '9' && nd < 18) v = v * 10 + (*b++ - '0'), nd++;
  if (nd == 0 || (*b != '-' && *b != '.')) return -1;
  return v;
}

static void set_str(json_t *o, const char *k, const char *v) { json_object_set_new(o, k, json_string(v)); }

/* A location, as the full URI the spec asks for (storage/location.h). */
static void set_uri(json_t *o, const char *k, const char *loc) {
  char *uri = wr_location_to_uri(loc);
  set_str(o, k, uri);
  free(uri);
}

static void set_num(json_t *o, const char *k, int64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  json_object_set_new(o, k, json_string(buf));
}

typedef struct totals {
  int64_t files, records, size;
  int64_t delete_files, position_deletes, equality_deletes;
} totals;

/* What the previous version holds, from its summary or, when a total is missing, from
 * its manifests. */
static int prev_totals(const iceberg_table *prev, totals *t, weir_error *err) {
  memset(t, 0, sizeof *t);
  if (!prev || prev->current_snapshot_id < 0) return WEIR_OK;
  const json_t *s = prev->summary;
  if (s && iceberg_summary_int(s, "total-data-files", &t->files) &&
      iceberg_summary_int(s, "total-records", &t->records) &&
      iceberg_summary_int(s, "total-files-size", &t->size)) {
    iceberg_summary_int(s, "total-delete-files", &t->delete_files);
    iceberg_summary_int(s, "total-position-deletes", &t->position_deletes);
    iceberg_summary_int(s, "total-equality-deletes", &t->equality_deletes);
    return WEIR_OK;
  }
  iceberg_data_file *files;
  size_t n;
  int rc = iceberg_table_data_files(prev, &files, &n, err);
  if (rc != WEIR_OK) return rc;
  t->files = (int64_t)n;
  for (size_t i = 0; i < n; i++) t->records += files[i].record_count, t->size += files[i].file_size;
  iceberg_data_files_free(files, n);
  return WEIR_OK;
}

static json_t *new_metadata(const iceberg_write_request *req, int format_version) {
  char uuid[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(uuid);
  json_t *m = json_object();
  json_object_set_new(m, "format-version", json_integer(format_version));
  set_str(m, "table-uuid", uuid);
  set_uri(m, "location", req->table_location);
  json_object_set_new(m, "last-sequence-number", json_integer(0));
  json_object_set_new(m, "last-updated-ms", json_integer(0));
  json_object_set_new(m, "last-column-id", json_integer(0));
  json_object_set_new(m, "current-schema-id", json_integer(0));
  json_object_set_new(m, "schemas", json_array());
  json_object_set_new(m, "default-spec-id", json_integer(0));
  json_t *spec = json_object();
  json_object_set_new(spec, "spec-id", json_integer(0));
  json_object_set_new(spec, "fields", json_array());
  json_t *specs = json_array();
  json_array_append_new(specs, spec);
  json_object_set_new(m, "partition-specs", specs);
  /* Partition field ids start at 1000; an unpartitioned table's last is 999 (as Java). */
  json_object_set_new(m, "last-partition-id", json_integer(999));
  json_object_set_new(m, "default-sort-order-id", json_integer(0));
  json_t *order = json_object();
  json_object_set_new(order, "order-id", json_integer(0));
  json_object_set_new(order, "fields", json_array());
  json_t *orders = json_array();
  json_array_append_new(orders, order);
  json_object_set_new(m, "sort-orders", orders);
  json_object_set_new(m, "properties", json_object());
  json_object_set_new(m, "current-snapshot-id", json_integer(-1));
  json_object_set_new(m, "refs", json_object());
  json_object_set_new(m, "snapshots", json_array());
  json_object_set_new(m, "statistics", json_array());
  json_object_set_new(m, "partition-statistics", json_array());
  json_object_set_new(m, "snapshot-log", json_array());
  json_object_set_new(m, "metadata-log", json_array());
  return m;
}

/* The array under `key`, created when missing. */
static json_t *array_at(json_t *o, const char *key) {
  json_t *a = json_object_get(o, key);
  if (!json_is_array(a)) {
    a = json_array();
    json_object_set_new(o, key, a);
  }
  return a;
}

static json_t *object_at(json_t *o, const char *key) {
  json_t *a = json_object_get(o, key);
  if (!json_is_object(a)) {
    a = json_object();
    json_object_set_new(o, key, a);
  }
  return a;
}

/* ---- partition specs ------------------------------------------------------------------ */

/* The spec the new files are written with, as a spec of the table: an equal spec already
 * in prev's "partition-specs" (same source ids, transforms and parameters) keeps its id and
 * field ids; another one gets the next spec id, and field ids after last-partition-id,
 * except that a field equal to one of an older spec keeps that field's id (as Java assigns
 * them, so that a field means one thing across the table's specs). Old files keep the spec
 * they were written with: partition evolution never rewrites data. */
static int resolve_spec(const iceberg_write_request *req, iceberg_partition_spec *out, bool *is_new,
                        int32_t *last_partition_id, weir_error *err) {
  memset(out, 0, sizeof *out);
  *is_new = true;
  *last_partition_id = 999;
  iceberg_partition_spec want = {0};
  size_t n = req->spec ? req->spec->n_fields : 0;
  want.fields = wr_calloc(n ? n : 1, sizeof *want.fields);
  for (size_t i = 0; i < n; i++) {
    const iceberg_partition_field *f = &req->spec->fields[i];
    iceberg_partition_field *g = &want.fields[want.n_fields++];
    *g = *f;
    g->source = wr_strdup(f->source);
    g->name = wr_strdup(f->name);
  }
  int32_t max_spec = -1;
  if (req->prev) {
    *last_partition_id = (int32_t)wr_json_int(req->prev->json, "last-partition-id", 999);
    size_t i;
    const json_t *sp;
    json_array_foreach(json_object_get(req->prev->json, "partition-specs"), i, sp) {
      int32_t id = (int32_t)json_integer_value(json_object_get(sp, "spec-id"));
      if (id > max_spec) max_spec = id;
      iceberg_partition_spec have;
      weir_error ignore = {0};
      /* A spec of a column since dropped cannot be bound; it is not the one we want. */
      if (iceberg_partition_spec_from_json(sp, req->schema, &have, &ignore) != WEIR_OK) {
        weir_error_clear(&ignore);
        continue;
      }
      for (size_t k = 0; k < want.n_fields; k++)
        for (size_t h = 0; h < have.n_fields; h++)
          if (!want.fields[k].field_id && have.fields[h].source_id == want.fields[k].source_id &&
              have.fields[h].kind == want.fields[k].kind && have.fields[h].param == want.fields[k].param) {
            want.fields[k].field_id = have.fields[h].field_id;
            free(want.fields[k].name);
            want.fields[k].name = wr_strdup(have.fields[h].name);
          }
      if (*is_new && iceberg_partition_spec_same(&have, &want)) {
        *is_new = false;
        iceberg_partition_spec_clear(&want);
        *out = have;
        continue;
      }
      iceberg_partition_spec_clear(&have);
    }
  }
  if (!*is_new) return WEIR_OK;
  want.spec_id = max_spec + 1;
  for (size_t k = 0; k < want.n_fields; k++)
    if (!want.fields[k].field_id) want.fields[k].field_id = ++*last_partition_id;
  for (size_t k = 0; k < want.n_fields; k++)
    for (size_t h = 0; h < k; h++)
      if (!strcmp(want.fields[k].name, want.fields[h].name)) {
        int rc = wr_seterr(err, WEIR_EINVALIDARG, "Iceberg write to %s: two partition fields are named \"%s\"",
                           req->table_location, want.fields[k].name);
        iceberg_partition_spec_clear(&want);
        return rc;
      }
  *out = want;
  return WEIR_OK;
}

/* How many distinct partition tuples the files have (the summary's changed-partition-count). */
static int64_t count_partitions(const iceberg_data_file *files, size_t n) {
  int64_t count = 0;
  for (size_t i = 0; i < n; i++) {
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) {
      if (files[j].n_partition != files[i].n_partition) continue;
      bool same = true;
      for (size_t k = 0; k < files[i].n_partition && same; k++) {
        const iceberg_partition_value *a = &files[i].partition[k], *b = &files[j].partition[k];
        same = a->is_null == b->is_null && a->len == b->len && (!a->len || !memcmp(a->value, b->value, a->len));
      }
      seen = same;
    }
    count += !seen;
  }
  return count;
}

/* ---- the write --------------------------------------------------------------------- */

/* Sets what every metadata file weir writes carries, then writes `meta` as the next
 * version after `prev` (or version 1) in `meta_dir`: `prev` joins the metadata log
 * (capped), `gc.enabled` is "false" (only weir's collector may delete files: engines
 * then refuse expire_snapshots and remove_orphan_files, which would delete files other
 * branches' versions still read). The file is written atomically and exclusively, under a
 * name no other writer can pick (a random UUID). */
int iceberg_metadata_write(const char *meta_dir, const iceberg_table *prev, json_t *meta, char **out_location,
                           weir_error *err) {
  *out_location = NULL;
  json_t *props = object_at(meta, "properties");
  json_object_set_new(props, PROP_GC_ENABLED, json_string("false"));
  json_t *mlog = array_at(meta, "metadata-log");
  int64_t version = 1;
  if (prev) {
    json_t *e = json_object();
    json_object_set_new(e, "timestamp-ms", json_integer(wr_json_int(prev->json, "last-updated-ms", 0)));
    set_uri(e, "metadata-file", prev->metadata_location);
    json_array_append_new(mlog, e);
    int64_t keep = DEFAULT_PREVIOUS_VERSIONS_MAX;
    int64_t pv;
    if (iceberg_summary_int(props, PROP_PREVIOUS_VERSIONS_MAX, &pv) && pv >= 1) keep = pv;
    while ((int64_t)json_array_size(mlog) > keep) json_array_remove(mlog, 0);
    int64_t pn = metadata_version(prev->metadata_location);
    version = pn >= 0 ? pn + 1 : (int64_t)json_array_size(mlog) + 1;
  }
  /* The number also goes past every version already in the folder: the table's other
   * branches (and versions a revert left behind) write here too, and numbering from
   * `prev` alone gave two branches, or a write after a revert, the same number. The
   * name is unique by its UUID either way; the number keeps "the highest version" one
   * file (two writers racing may still pick one number, each with its own UUID). */
  char **names = NULL;
  size_t n_names = 0;
  weir_error ignore = {0};
  if (wr_storage_list(meta_dir, &names, &n_names, &ignore) == WEIR_OK) {
    for (size_t i = 0; i < n_names; i++) {
      const char *b = wr_path_basename(names[i]);
      size_t bl = strlen(b);
      if (bl < 14 || strcmp(b + bl - 14, ".metadata.json") != 0) continue;
      int64_t v = metadata_version(names[i]);
      if (v >= version) version = v + 1;
    }
    wr_storage_list_free(names, n_names);
  }
  weir_error_clear(&ignore);
  char uuid[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(uuid);
  char *name = wr_asprintf("%05lld-%s.metadata.json", (long long)version, uuid);
  char *path = wr_location_join(meta_dir, name);
  free(name);
  char *text = wr_json_compact(meta); /* compact: the file holds every snapshot, read on every write */
  /* Metadata built by code that does not check every json_* call: a key lost to OOM
   * anywhere in this call would be written for good (util/error.h). */
  int rc = wr_json_failed_since_mark() ? wr_oom(err) : wr_storage_write(path, text, strlen(text), true, err);
  free(text);
  if (rc) {
    free(path);
    return rc;
  }
  *out_location = path;
  return WEIR_OK;
}

int iceberg_write_version(const iceberg_write_request *req, iceberg_write_result *out,
                          weir_error *err) {
  memset(out, 0, sizeof *out);
  int rc = check_request(req, err);
  if (rc != WEIR_OK) return rc;
  const iceberg_table *prev = req->prev;

  char *meta_dir = wr_location_join(req->table_location, "metadata");
  char *manifest_path = NULL, *list_path = NULL, *metadata_path = NULL, *merged_path = NULL;
  char *rewritten_path = NULL;
  int64_t removed_records = 0, removed_bytes = 0;
  int64_t first_row_id = 0, assigned_rows = 0; /* v3 row lineage */
  bool wrote_manifest = false, wrote_list = false;
  json_t *schema_json = NULL, *meta = NULL;
  iceberg_manifest_file *list = NULL;
  size_t n_list = 0;
  totals before;
  iceberg_partition_spec spec = {0};
  bool new_spec = false;
  int32_t last_partition_id = 999;

  rc = resolve_spec(req, &spec, &new_spec, &last_partition_id, err);
  if (rc != WEIR_OK) goto done;
  rc = wr_storage_mkdirs(meta_dir, err);
  if (rc != WEIR_OK) goto done;
  rc = prev_totals(prev, &before, err);
  if (rc != WEIR_OK) goto done;

  int64_t now = req->time_ms > 0 ? req->time_ms : wr_now_us() / 1000;
  int64_t seq = (prev ? prev->last_sequence_number : 0) + 1;
  int64_t parent = prev ? prev->current_snapshot_id : -1;
  int64_t snapshot_id;
  do snapshot_id = wr_random_i63();
  while (snapshot_id <= 0 || (prev && snapshot_exists(prev->json, snapshot_id)));

  /* Schema: reuse the id of an equal schema, else the next one. */
  const json_t *prev_schema = prev ? iceberg_metadata_schema(prev->json, prev->current_schema_id) : NULL;
  rc = iceberg_schema_json_build(req->schema, 0, prev_schema, &schema_json, err);
  if (rc != WEIR_OK) {
    wr_error_prefix(err, "Iceberg write to %s", req->table_location);
    goto done;
  }
  int64_t max_schema_id = -1, schema_id = -1;
  if (prev) schema_id = find_schema(prev->json, json_object_get(schema_json, "fields"), &max_schema_id);
  bool new_schema = schema_id < 0;
  if (new_schema) schema_id = max_schema_id + 1;
  json_object_set_new(schema_json, "schema-id", json_integer(schema_id));
  int32_t last_column_id = prev ? prev->last_column_id : 0;
  for (size_t i = 0; i < req->schema->n_fields; i++)
    if (req->schema->fields[i].field_id > last_column_id) last_column_id = req->schema->fields[i].field_id;

  int format_version = format_version_of(req);
  /* Manifests: the previous ones carried forward on append, then the new one. */
  bool carries = req->op == ICEBERG_OP_APPEND || req->op == ICEBERG_OP_REPLACE || req->op == ICEBERG_OP_DELETE;
  if (carries && prev && prev->manifest_list) {
    rc = iceberg_manifest_list_read(prev->manifest_list, &list, &n_list, err);
    if (rc != WEIR_OK) goto done;
  }
  if ((rc = WEIR_FAILPOINT("iceberg.manifest.before", err))) goto done;
  int64_t added_records = 0, added_size = 0;
  for (size_t i = 0; i < req->n_files; i++)
    added_records += req->files[i].record_count, added_size += req->files[i].file_size;
  {
    char *schema_text = wr_json_compact(schema_json);
    iceberg_manifest_info info = {schema_text, (int32_t)schema_id, snapshot_id, seq, NULL, format_version, &spec};
    if (req->op == ICEBERG_OP_REPLACE || req->op == ICEBERG_OP_DELETE) {
      rc = iceberg_manifests_remove(meta_dir, &info, &list, &n_list, req->removed, req->n_removed,
                                    &removed_records, &removed_bytes, &rewritten_path, err);
      /* A row delete rewrites files without some of their rows: never more rows. */
      if (rc == WEIR_OK && req->op == ICEBERG_OP_DELETE && added_records >= removed_records)
        rc = wr_seterr(err, WEIR_EINVALIDARG,
                       "Iceberg row delete of %s: the new files hold %lld rows, the files they replace %lld; "
                       "a delete removes rows",
                       req->table_location, (long long)added_records, (long long)removed_records);
      if (rc == WEIR_OK && req->op == ICEBERG_OP_REPLACE && removed_records != added_records)
        rc = wr_seterr(err, WEIR_EINVALIDARG,
                       "Iceberg replace of %s: the new files hold %lld rows but the files they replace %lld; "
                       "a replace changes no row",
                       req->table_location, (long long)added_records, (long long)removed_records);
    } else if (n_list > 0 && req->n_files > 0)
      rc = iceberg_manifests_merge(meta_dir, prev->properties, &info, &list, &n_list,
                                   &merged_path, err);
    if (rc == WEIR_OK && req->n_files > 0) {
      char uuid[WEIR_UUID_STR_LEN + 1];
      wr_uuid4(uuid);
      char *name = wr_asprintf("%s-m0.avro", uuid);
      manifest_path = wr_location_join(meta_dir, name);
      free(name);
      list = wr_realloc(list, (n_list + 1) * sizeof *list);
      rc = iceberg_manifest_write(manifest_path, &info, req->files, req->n_files, &list[n_list],
                                  err);
      if (rc == WEIR_OK) n_list++, wrote_manifest = true;
    }
    free(schema_text);
    if (rc != WEIR_OK) goto done;
  }
  {
    char uuid[WEIR_UUID_STR_LEN + 1];
    wr_uuid4(uuid);
    char *name = wr_asprintf("snap-%lld-1-%s.avro", (long long)snapshot_id, uuid);
    list_path = wr_location_join(meta_dir, name);
    free(name);
    /* v3 row lineage: every data manifest without a first_row_id (the new ones, and a v2
     * table's carried ones on its first v3 write) gets the next range of row ids, room for
     * its added and existing rows; carried v3 manifests keep theirs. The snapshot's
     * first-row-id is the table's next-row-id, its added-rows the ids handed out. */
    if (format_version >= 3) {
      first_row_id = prev ? wr_json_int(prev->json, "next-row-id", 0) : 0;
      for (size_t i = 0; i < n_list; i++) {
        if (list[i].content != ICEBERG_CONTENT_DATA || list[i].first_row_id >= 0) continue;
        list[i].first_row_id = first_row_id + assigned_rows;
        assigned_rows += list[i].added_rows + list[i].existing_rows;
      }
    }
    iceberg_manifest_list_info info = {snapshot_id, parent, seq, format_version};
    rc = iceberg_manifest_list_write(list_path, &info, list, n_list, err);
    if (rc != WEIR_OK) goto done;
    wrote_list = true;
  }
  if ((rc = WEIR_FAILPOINT("iceberg.manifest.after", err))) goto done;

  /* Summary. */
  bool overwrite = req->op == ICEBERG_OP_OVERWRITE;
  totals after = before;
  int64_t deleted_files = 0, deleted_records = 0, removed_size = 0;
  if (overwrite) {
    deleted_files = before.files, deleted_records = before.records, removed_size = before.size;
    memset(&after, 0, sizeof after);
  } else if (req->op == ICEBERG_OP_REPLACE || req->op == ICEBERG_OP_DELETE) {
    deleted_files = (int64_t)req->n_removed, deleted_records = removed_records, removed_size = removed_bytes;
    after.files -= deleted_files, after.records -= deleted_records, after.size -= removed_size;
  }
  after.files += (int64_t)req->n_files;
  after.records += added_records;
  after.size += added_size;
  const char *operation = "append";
  if (overwrite && deleted_files > 0) operation = req->n_files > 0 ? "overwrite" : "delete";
  if (req->op == ICEBERG_OP_REPLACE) operation = "replace";
  /* Rows removed: "overwrite" when files were rewritten without them, "delete" when whole
   * files went (the spec's operations). */
  if (req->op == ICEBERG_OP_DELETE) operation = req->n_files > 0 ? "overwrite" : "delete";
  json_t *summary = json_object();
  set_str(summary, "operation", operation);
  set_num(summary, "added-data-files", (int64_t)req->n_files);
  set_num(summary, "added-records", added_records);
  set_num(summary, "added-files-size", added_size);
  set_num(summary, "deleted-data-files", deleted_files);
  set_num(summary, "deleted-records", deleted_records);
  set_num(summary, "removed-files-size", removed_size);
  int64_t changed = spec.n_fields ? count_partitions(req->files, req->n_files)
                                  : (req->n_files > 0 || deleted_files > 0) ? 1 : 0;
  set_num(summary, "changed-partition-count", changed);
  set_num(summary, "total-records", after.records);
  set_num(summary, "total-files-size", after.size);
  set_num(summary, "total-data-files", after.files);
  set_num(summary, "total-delete-files", after.delete_files);
  set_num(summary, "total-position-deletes", after.position_deletes);
  set_num(summary, "total-equality-deletes", after.equality_deletes);
  if (req->summary) {
    const char *k;
    json_t *v;
    json_object_foreach(req->summary, k, v) {
      /* The counts above are facts about the files; a request cannot restate them. */
      if (!json_object_get(summary, k) && !json_is_null(v)) json_object_set_new(summary, k, as_string(v));
    }
  }

  json_t *snap = json_object();
  json_object_set_new(snap, "snapshot-id", json_integer(snapshot_id));
  if (parent >= 0) json_object_set_new(snap, "parent-snapshot-id", json_integer(parent));
  json_object_set_new(snap, "sequence-number", json_integer(seq));
  json_object_set_new(snap, "timestamp-ms", json_integer(now));
  set_uri(snap, "manifest-list", list_path);
  json_object_set_new(snap, "summary", summary);
  json_object_set_new(snap, "schema-id", json_integer(schema_id));
  if (format_version >= 3) {
    json_object_set_new(snap, "first-row-id", json_integer(first_row_id));
    json_object_set_new(snap, "added-rows", json_integer(assigned_rows));
  }

  /* The metadata document: the previous one with this version's changes, or a new one. */
  meta = prev ? json_deep_copy(prev->json) : new_metadata(req, format_version);
  json_object_set_new(meta, "format-version", json_integer(format_version));
  if (format_version >= 3) json_object_set_new(meta, "next-row-id", json_integer(first_row_id + assigned_rows));
  set_uri(meta, "location", req->table_location);
  json_object_set_new(meta, "last-sequence-number", json_integer(seq));
  json_object_set_new(meta, "last-updated-ms", json_integer(now));
  json_object_set_new(meta, "last-column-id", json_integer(last_column_id));
  if (new_schema) json_array_append(array_at(meta, "schemas"), schema_json);
  json_object_set_new(meta, "current-schema-id", json_integer(schema_id));
  if (!prev) {
    /* A new table's first spec is spec 0, partitioned or not. */
    json_object_set_new(meta, "partition-specs", json_array());
    spec.spec_id = 0;
    new_spec = true;
  }
  if (new_spec) json_array_append_new(array_at(meta, "partition-specs"), iceberg_partition_spec_to_json(&spec));
  /* A replace rewrites files without changing the table's layout. */
  if (req->op != ICEBERG_OP_REPLACE || !prev) json_object_set_new(meta, "default-spec-id", json_integer(spec.spec_id));
  json_object_set_new(meta, "last-partition-id", json_integer(last_partition_id));
  json_t *props = object_at(meta, "properties");
  if (req->properties) apply_properties(props, req->properties);
  json_object_set_new(meta, "current-snapshot-id", json_integer(snapshot_id));
  json_t *ref = json_object();
  json_object_set_new(ref, "snapshot-id", json_integer(snapshot_id));
  set_str(ref, "type", "branch");
  json_object_set_new(object_at(meta, "refs"), "main", ref);
  json_array_append_new(array_at(meta, "snapshots"), snap);
  json_t *slog = json_object();
  json_object_set_new(slog, "timestamp-ms", json_integer(now));
  json_object_set_new(slog, "snapshot-id", json_integer(snapshot_id));
  json_array_append_new(array_at(meta, "snapshot-log"), slog);
  trim_snapshots(meta, props);
  rc = WEIR_FAILPOINT("iceberg.metadata.before", err);
  if (rc == WEIR_OK) rc = iceberg_metadata_write(meta_dir, prev, meta, &metadata_path, err);
  if (rc == WEIR_OK) rc = WEIR_FAILPOINT("iceberg.metadata.after", err);
  if (rc != WEIR_OK) goto done;
  out->metadata_location = metadata_path;
  metadata_path = NULL;
  out->snapshot_id = snapshot_id;
  out->record_count = after.records;

done:
  if (rc != WEIR_OK) {
    /* Only files this call created; the previous version's files are never touched. */
    weir_error ignore = {0};
    if (wrote_list) wr_storage_delete(list_path, &ignore);
    if (wrote_manifest) wr_storage_delete(manifest_path, &ignore);
    if (merged_path) wr_storage_delete(merged_path, &ignore);
    if (rewritten_path) wr_storage_delete(rewritten_path, &ignore);
    weir_error_clear(&ignore);
  }
  iceberg_manifest_files_free(list, n_list);
  iceberg_partition_spec_clear(&spec);
  json_decref(schema_json);
  json_decref(meta);
  free(meta_dir);
  free(manifest_path);
  free(merged_path);
  free(rewritten_path);
  free(list_path);
  free(metadata_path);
  return rc;
}

/* ---- schema-only versions (weir alter) ------------------------------------------------
 *
 * Iceberg's UpdateSchema commits a new metadata file and no snapshot: the data did not
 * change, only how it is read. The snapshots keep the schema-id they were written with;
 * the table's current-schema-id moves to the new schema, which every reader then applies
 * to every data file by field id (a renamed column is found under its new name, a dropped
 * one is not read, an added one reads as null in older files, a promoted one is widened on
 * read). Older schemas stay in `schemas`, so the history remains readable. */
int iceberg_write_schema_change(const char *table_location, const iceberg_table *prev, const wr_schema *schema,
                                int32_t last_column_id, json_t *properties, iceberg_write_result *out,
                                weir_error *err) {
  memset(out, 0, sizeof *out);
  if (!prev) return wr_seterr(err, WEIR_EINVALIDARG, "Iceberg schema change of %s: the table has no version", table_location);
  if (schema->n_fields == 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "Iceberg schema change of %s: the schema has no columns", table_location);
  if (last_column_id < prev->last_column_id) last_column_id = prev->last_column_id;
  for (size_t i = 0; i < schema->n_fields; i++) {
    int32_t id = schema->fields[i].field_id;
    if (id <= 0)
      return wr_seterr(err, WEIR_EINVALIDARG, "Iceberg schema change of %s: column \"%s\" has no field id",
                       table_location, schema->fields[i].name);
    if (id > last_column_id) last_column_id = id;
  }
  json_t *schema_json = NULL;
  const json_t *prev_schema = iceberg_metadata_schema(prev->json, prev->current_schema_id);
  int rc = iceberg_schema_json_build(schema, 0, prev_schema, &schema_json, err);
  if (rc != WEIR_OK) {
    wr_error_prefix(err, "Iceberg schema change of %s", table_location);
    return rc;
  }
  int64_t max_schema_id = -1;
  int64_t schema_id = find_schema(prev->json, json_object_get(schema_json, "fields"), &max_schema_id);
  bool new_schema = schema_id < 0;
  if (new_schema) schema_id = max_schema_id + 1;
  json_object_set_new(schema_json, "schema-id", json_integer(schema_id));

  json_t *meta = json_deep_copy(prev->json);
  json_object_set_new(meta, "last-updated-ms", json_integer(wr_now_us() / 1000));
  json_object_set_new(meta, "last-column-id", json_integer(last_column_id));
  if (new_schema) json_array_append(array_at(meta, "schemas"), schema_json);
  json_object_set_new(meta, "current-schema-id", json_integer(schema_id));
  if (properties) apply_properties(object_at(meta, "properties"), properties);
  char *meta_dir = wr_location_join(table_location, "metadata");
  char *path = NULL;
  rc = WEIR_FAILPOINT("iceberg.metadata.before", err);
  if (rc == WEIR_OK) rc = iceberg_metadata_write(meta_dir, prev, meta, &path, err);
  if (rc == WEIR_OK) {
    out->metadata_location = path;
    out->snapshot_id = prev->current_snapshot_id;
    out->record_count = prev->record_count;
  }
  json_decref(meta);
  json_decref(schema_json);
  free(meta_dir);
  return rc;
}
