/*
 * reach.c -- every file a metadata file reaches, for garbage collection: all its
 * snapshots (not only the current one: an engine may time-travel to any of them), their
 * manifest lists, the manifests those list, and every data or delete file in them.
 */
#include "iceberg/iceberg.h"
#include "iceberg/iceberg_internal.h"

static int reach_manifest(const char *uri, iceberg_reach_fn fn, void *ctx, weir_error *err) {
  iceberg_data_file *files = NULL;
  size_t n = 0;
  /* Every entry, DELETED ones too: keeping a deleted entry's file costs little, and an
   * older snapshot that still has it live is reached anyway. */
  int rc = iceberg_manifest_read(uri, false, &files, &n, NULL, err);
  for (size_t i = 0; rc == WEIR_OK && i < n; i++) fn(files[i].path, ICEBERG_REACH_DATA, ctx);
  iceberg_data_files_free(files, n);
  return rc;
}

static int reach_manifest_list(const char *uri, iceberg_reach_fn fn, void *ctx, weir_error *err) {
  iceberg_manifest_file *m = NULL;
  size_t n = 0;
  int rc = iceberg_manifest_list_read(uri, &m, &n, err);
  for (size_t i = 0; rc == WEIR_OK && i < n; i++)
    if (fn(m[i].path, ICEBERG_REACH_MANIFEST, ctx)) rc = reach_manifest(m[i].path, fn, ctx, err);
  iceberg_manifest_files_free(m, n);
  return rc;
}

int iceberg_table_reach(const iceberg_table *t, iceberg_reach_fn fn, void *ctx, weir_error *err) {
  int rc = WEIR_OK;
  size_t i;
  json_t *snap;
  json_array_foreach(json_object_get(t->json, "snapshots"), i, snap) {
    const char *ml = json_string_value(json_object_get(snap, "manifest-list"));
    if (ml && fn(ml, ICEBERG_REACH_MANIFEST_LIST, ctx)) rc = reach_manifest_list(ml, fn, ctx, err);
    if (rc) return rc;
  }
  /* Statistics files (Puffin) other engines may have attached. */
  static const char *const keys[] = {"statistics", "partition-statistics"};
  for (size_t k = 0; k < 2; k++) {
    json_t *st;
    json_array_foreach(json_object_get(t->json, keys[k]), i, st) {
      const char *p = json_string_value(json_object_get(st, "statistics-path"));
      if (p) fn(p, ICEBERG_REACH_DATA, ctx);
    }
  }
  return WEIR_OK;
}
