/*
 * merge_appends.c -- the append-aware merge (docs/versioning.md, "Merge"): a table that
 * both sides of a merge changed since the merge base is not a conflict when both sides
 * only appended to it. The merge then writes one new Iceberg version of the table: the
 * target's version (the base's files plus the target's appends, its manifests carried
 * forward as they are) plus one manifest of the files the source appended since the base.
 *
 * "Only appended" is read from the Iceberg metadata, never guessed from the files:
 *   - the three versions are one table (same table-uuid) with the same schema (names,
 *     types, nullability, field ids), partition spec, stored contract and every other
 *     table property (a comment or lineage changed on one side is a change of the table,
 *     so it stays a conflict);
 *   - from each side's current snapshot, the parent-snapshot-id chain reaches the base's
 *     current snapshot through snapshots whose operation is "append" only (a replace is an
 *     "overwrite"; weir writes "append" for a replace only when nothing was live, which
 *     removes nothing), or through a snapshot an earlier append-aware merge wrote, whose
 *     source version (summary weir.merged-from) reaches it so. A chain that leaves the
 *     snapshots the metadata still lists (weir.metadata.snapshots-max) cannot be proven
 *     and stays a conflict;
 *   - every data file of the base is still live on each side (belt and braces: an append
 *     never removes one), except on the target when it was compacted since the base: a
 *     compaction's "replace" (weir.operation "compact") in the target's chain rewrote files
 *     without changing a row, so the target still holds base + its appends. The source
 *     must have appended only (its added files are then exactly its new rows).
 * Rows are therefore exactly base + target's appends + source's appends, each validated
 * against the same contract when it was written; the combination needs no validation.
 * The new version's files are immutable and written before the merge's commit: a merge
 * that loses its compare-and-swap leaves them as orphans, like any write.
 */
#include <stdlib.h>
#include <string.h>

#include "lake/lake.h"
#include "lake/merge_appends.h"
#include "lake/serial.h"
#include "util/json.h"

/* The snapshot `id` of a metadata document, or NULL when it no longer lists it. */
static const json_t *snapshot_of(const iceberg_table *t, int64_t id) {
  size_t i;
  const json_t *s;
  json_array_foreach(json_object_get(t->json, "snapshots"), i, s)
      if (wr_json_int(s, "snapshot-id", -2) == id) return s;
  return NULL;
}

/* True when `side` descends from `base` through appends only: its snapshot chain reaches
 * the base's current snapshot (or its start, when the base had none) through snapshots
 * whose operation is "append". A snapshot this merge wrote (summary weir.merged-from: the
 * source version it took files from) holds that version's files plus appends to its
 * parent, so reaching the base through the source version counts too: merging the same
 * branches again combines again. `depth` bounds that recursion. */
static bool appended_only(weir_lake *lake, const iceberg_table *base, const iceberg_table *side, int depth,
                          bool *compacted) {
  int64_t at = side->current_snapshot_id;
  /* Each step moves to a parent; the chain is no longer than the snapshots listed. */
  size_t bound = json_array_size(json_object_get(side->json, "snapshots")) + 1;
  while (bound-- > 0) {
    if (at == base->current_snapshot_id) return true;
    if (at < 0) return false; /* started before the base's snapshot: not a descendant */
    const json_t *s = snapshot_of(side, at);
    if (!s) return false;
    const json_t *summary = json_object_get(s, "summary");
    bool compaction = strcmp(wr_json_str(summary, "operation", ""), "replace") == 0 &&
                      strcmp(wr_json_str(summary, "weir.operation", ""), "compact") == 0;
    if (compaction && compacted) *compacted = true;
    else if (strcmp(wr_json_str(summary, "operation", ""), "append") != 0) return false;
    const char *from = wr_json_str(summary, "weir.merged-from", NULL);
    if (from && depth > 0) {
      iceberg_table *src = NULL;
      weir_error ignore = {0};
      bool via = lake_metadata(lake, from, &src, &ignore) == WEIR_OK && appended_only(lake, base, src, depth - 1, compacted);
      iceberg_table_free(src);
      weir_error_clear(&ignore);
      if (via) return true;
    }
    json_t *parent = json_object_get(s, "parent-snapshot-id");
    at = json_is_integer(parent) ? json_integer_value(parent) : -1;
  }
  return false;
}

/* A snapshot of `side` since `base`'s current one is a weir row delete. */
static bool deleted_rows_since(const iceberg_table *base, const iceberg_table *side) {
  int64_t at = side->current_snapshot_id;
  for (int steps = 0; at >= 0 && at != base->current_snapshot_id && steps < 1000; steps++) {
    const json_t *s = snapshot_of(side, at);
    if (!s) return false;
    if (strcmp(wr_json_str(json_object_get(s, "summary"), "weir.operation", ""), "delete") == 0) return true;
    const json_t *parent = json_object_get(s, "parent-snapshot-id");
    at = json_is_integer(parent) ? json_integer_value(parent) : -1;
  }
  return false;
}

/* Equal table properties, the name mapping aside: a side that registered files without
 * field ids added names to it, and the merged version carries both sides' names
 * (name_mapping.c never removes one, so the union is what each side's files need). */
static bool same_props(const iceberg_table *a, const iceberg_table *b) {
  json_t *x = a->properties ? json_copy(a->properties) : json_object();
  json_t *y = b->properties ? json_copy(b->properties) : json_object();
  json_object_del(x, LAKE_PROP_NAME_MAPPING);
  json_object_del(y, LAKE_PROP_NAME_MAPPING);
  bool same = json_equal(x, y);
  json_decref(x);
  json_decref(y);
  return same;
}

static bool same_json_spec(const iceberg_table *a, const iceberg_table *b) {
  const json_t *x = json_object_get(a->json, "default-spec-id"), *y = json_object_get(b->json, "default-spec-id");
  if (!x || json_is_null(x)) return !y || json_is_null(y);
  return y && json_equal(x, y);
}

static int cmp_path(const void *a, const void *b) {
  return strcmp(((const iceberg_data_file *)a)->path, ((const iceberg_data_file *)b)->path);
}

static bool has_path(const iceberg_data_file *sorted, size_t n, const char *path) {
  iceberg_data_file key = {.path = (char *)path};
  return bsearch(&key, sorted, n, sizeof key, cmp_path) != NULL;
}

/* Files of `side` not in the base (sorted by path), or *ok false when a base file is not
 * live on the side. */
static int added_files(const iceberg_data_file *base, size_t nb, const iceberg_table *side, iceberg_data_file **out,
                       size_t *n_out, bool *ok, weir_error *err) {
  *out = NULL;
  *n_out = 0;
  iceberg_data_file *files = NULL;
  size_t n = 0;
  int rc = iceberg_table_data_files(side, &files, &n, err);
  if (rc) return rc;
  qsort(files, n, sizeof *files, cmp_path);
  size_t live = 0;
  for (size_t i = 0; i < nb; i++) live += has_path(files, n, base[i].path);
  *ok = live == nb;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (*ok && !has_path(base, nb, files[i].path)) files[k++] = files[i];
    else iceberg_data_file_clear(&files[i]);
  }
  *out = files;
  *n_out = k;
  return WEIR_OK;
}

/* `evolved`'s schema reads every data file written under `base`'s by field id: each of
 * its columns is either a column of the base (same id) of the same type or one Iceberg
 * promotes to, or a new id that is optional (older files read it as null). A column the
 * base had and `evolved` dropped is simply not read. */
static bool reads_by_field_id(const iceberg_table *base, const iceberg_table *evolved) {
  for (size_t i = 0; i < evolved->schema.n_fields; i++) {
    const wr_field *f = &evolved->schema.fields[i];
    const wr_field *bf = NULL;
    for (size_t j = 0; j < base->schema.n_fields && !bf; j++)
      if (base->schema.fields[j].field_id == f->field_id) bf = &base->schema.fields[j];
    if (!bf) {
      if (f->required) return false;
    } else if (!wr_type_equal(bf->type, f->type) && !iceberg_type_promotion(bf->type, f->type)) {
      return false;
    } else if (f->required && !bf->required) {
      return false;
    }
  }
  return true;
}

/* Table properties equal but for the ones a schema change moves with the schema. */
static bool same_props_but_contract(const iceberg_table *a, const iceberg_table *b) {
  json_t *x = a->properties ? json_deep_copy(a->properties) : json_object();
  json_t *y = b->properties ? json_deep_copy(b->properties) : json_object();
  const char *moved[] = {"weir.contract", "weir.lineage"};
  for (size_t i = 0; i < 2; i++) {
    json_object_del(x, moved[i]);
    json_object_del(y, moved[i]);
  }
  bool eq = json_equal(x, y);
  json_decref(x);
  json_decref(y);
  return eq;
}

/* One side changed the table's schema (weir alter: schemas, no data; and possibly appends
 * under the new schema), the other only appended under the base's schema: the merged
 * version is the evolved side's plus the other side's appended files, which its schema
 * reads by field id. When the data side holds files the evolved schema cannot read so
 * (none an alter can make; a column made required, say), it stays a conflict. Sets
 * *combined; nothing written otherwise. */
static int merge_schema_and_appends(weir_lake *lake, const char *table, const iceberg_table *b,
                                    const iceberg_table *o, const iceberg_table *t, wr_table_change *out,
                                    bool *combined, weir_error *err) {
  bool o_evolved = !lake_same_write_context(b, o), t_evolved = !lake_same_write_context(b, t);
  if (o_evolved == t_evolved) return WEIR_OK; /* neither (not this case) or both: a conflict */
  const iceberg_table *ev = o_evolved ? o : t, *data = o_evolved ? t : o;
  if (!same_props(b, data) || !same_props_but_contract(b, ev)) return WEIR_OK;
  if (!same_json_spec(b, ev) || !reads_by_field_id(b, ev)) return WEIR_OK;
  if (!appended_only(lake, b, ev, 16, NULL) || !appended_only(lake, b, data, 16, NULL)) return WEIR_OK;
  iceberg_data_file *bf = NULL, *df = NULL;
  size_t nb = 0, nd = 0;
  bool ok = false;
  int rc = iceberg_table_data_files(b, &bf, &nb, err);
  if (rc == WEIR_OK) {
    qsort(bf, nb, sizeof *bf, cmp_path);
    rc = added_files(bf, nb, data, &df, &nd, &ok, err);
  }
  if (rc == WEIR_OK && ok) {
    json_t *summary = json_pack("{s:s,s:s}", "weir.merged", "appends", "weir.merged-from", data->metadata_location);
    iceberg_write_request w = {0};
    w.table_location = ev->location;
    w.prev = ev;
    w.op = ICEBERG_OP_APPEND;
    w.schema = &ev->schema;
    w.files = df;
    w.n_files = nd;
    w.summary = summary;
    iceberg_write_result r = {0};
    rc = iceberg_write_version(&w, &r, err);
    json_decref(summary);
    if (rc) {
      wr_error_prefix(err, "merging the schema change and the appends of %s", table);
    } else {
      out->table = wr_strdup(table);
      out->metadata_location = r.metadata_location;
      out->snapshot_id = r.snapshot_id;
      out->record_count = r.record_count;
      *combined = true;
    }
  }
  iceberg_data_files_free(bf, nb);
  iceberg_data_files_free(df, nd);
  return rc;
}

int lake_merge_appends(const char *table, const wr_table_entry *base, const wr_table_entry *ours,
                       const wr_table_entry *theirs, void *ctx, wr_table_change *out, bool *combined, char **why,
                       weir_error *err) {
  weir_lake *lake = ctx;
  *combined = false;
  *why = NULL;
  memset(out, 0, sizeof *out);
  iceberg_table *b = NULL, *o = NULL, *t = NULL;
  iceberg_data_file *bf = NULL, *tf = NULL, *of = NULL;
  size_t nb = 0, nt = 0, no = 0;
  int rc;
  if ((rc = lake_metadata(lake, base->metadata_location, &b, err)) ||
      (rc = lake_metadata(lake, ours->metadata_location, &o, err)) ||
      (rc = lake_metadata(lake, theirs->metadata_location, &t, err)))
    goto done;
  if (!b->table_uuid || !o->table_uuid || !t->table_uuid || strcmp(b->table_uuid, o->table_uuid) != 0 ||
      strcmp(b->table_uuid, t->table_uuid) != 0)
    goto done;
  if (!lake_same_write_context(b, o) || !lake_same_write_context(b, t)) {
    rc = merge_schema_and_appends(lake, table, b, o, t, out, combined, err);
    goto done;
  }
  if (!same_props(b, o) || !same_props(b, t)) goto done;
  /* The target may also have been compacted since the base (same rows, other files): its
   * version still holds the base's rows and its appends, and the source's appended files
   * go on top of it. The source must have only appended, so that the files it added are
   * exactly its new rows. */
  bool o_compacted = false;
  if (!appended_only(lake, b, o, 16, &o_compacted) || !appended_only(lake, b, t, 16, NULL)) {
    /* A row delete rewrote files on one side: the other side's appends were never
     * checked against its predicate, and its rewrites replace files the other side
     * kept. Neither order of the two is what both sides saw, so it stays a conflict. */
    bool del_o = deleted_rows_since(b, o), del_t = deleted_rows_since(b, t);
    if (del_o || del_t)
      *why = wr_asprintf("%s deleted rows from it (weir delete) and %s changed it too; a delete does not merge with "
                         "other changes of its table: merge first and delete after, or choose a side with --strategy",
                         del_o && del_t ? "each side" : del_t ? "the source" : "the target",
                         del_o && del_t ? "both" : del_t ? "the target" : "the source");
    goto done;
  }
  if ((rc = iceberg_table_data_files(b, &bf, &nb, err))) goto done;
  qsort(bf, nb, sizeof *bf, cmp_path);
  bool ok_o = false, ok_t = false;
  if ((rc = added_files(bf, nb, o, &of, &no, &ok_o, err)) || (rc = added_files(bf, nb, t, &tf, &nt, &ok_t, err)))
    goto done;
  if ((!ok_o && !o_compacted) || !ok_t) goto done;
  /* The target's version already holds base + its appends; one more append snapshot adds
   * the source's files. The summary says where they came from, for people and readers. */
  /* The source's files keep their partition spec (the table's spec on both sides: a
   * change of spec is not an append-only history). Files of several specs are not
   * combined here. */
  iceberg_partition_spec spec = {0};
  for (size_t i = 1; i < nt; i++)
    if (tf[i].spec_id != tf[0].spec_id) goto done;
  if (nt > 0 && (rc = iceberg_table_spec(t, tf[0].spec_id, &spec, err))) goto done;
  json_t *summary = json_pack("{s:s,s:s}", "weir.merged", "appends", "weir.merged-from", t->metadata_location);
  iceberg_write_request w = {0};
  w.spec = &spec;
  w.table_location = o->location;
  w.prev = o;
  w.op = ICEBERG_OP_APPEND;
  w.schema = &o->schema;
  w.files = tf;
  w.n_files = nt;
  w.summary = summary;
  json_t *props = NULL;
  const char *mo = wr_json_str(o->properties, LAKE_PROP_NAME_MAPPING, NULL);
  const char *mt = wr_json_str(t->properties, LAKE_PROP_NAME_MAPPING, NULL);
  if (mt && (!mo || strcmp(mo, mt) != 0)) {
    char *u = lake_name_mapping_union(mo, mt);
    props = json_pack("{s:s}", LAKE_PROP_NAME_MAPPING, u);
    free(u);
    w.properties = props;
  }
  iceberg_write_result r = {0};
  rc = iceberg_write_version(&w, &r, err);
  json_decref(summary);
  json_decref(props);
  iceberg_partition_spec_clear(&spec);
  if (rc) {
    wr_error_prefix(err, "merging the appends to %s", table);
    goto done;
  }
  out->table = wr_strdup(table);
  out->metadata_location = r.metadata_location; /* ownership moves to the merge plan */
  out->snapshot_id = r.snapshot_id;
  out->record_count = r.record_count;
  *combined = true;
done:
  iceberg_data_files_free(bf, nb);
  iceberg_data_files_free(of, no);
  iceberg_data_files_free(tf, nt);
  iceberg_table_free(b);
  iceberg_table_free(o);
  iceberg_table_free(t);
  return rc;
}
