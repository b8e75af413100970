/*
 * data_files.c -- the data files live in a table version: manifest list -> data manifests
 * -> entries whose status is ADDED or EXISTING, in manifest order.
 */
#include "iceberg/iceberg_internal.h"

#include <stdlib.h>
#include <string.h>

void iceberg_data_file_clear(iceberg_data_file *f) {
  if (!f) return;
  free(f->path);
  for (size_t i = 0; i < f->n_stats; i++) {
    free(f->stats[i].lower);
    free(f->stats[i].upper);
  }
  free(f->stats);
  for (size_t i = 0; i < f->n_partition; i++) free(f->partition[i].value);
  free(f->partition);
  memset(f, 0, sizeof *f);
}

void iceberg_data_files_free(iceberg_data_file *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) iceberg_data_file_clear(&v[i]);
  free(v);
}

int iceberg_table_data_files(const iceberg_table *t, iceberg_data_file **out, size_t *n,
                             weir_error *err) {
  *out = NULL;
  *n = 0;
  if (t->current_snapshot_id < 0 || !t->manifest_list) return WEIR_OK;
  iceberg_manifest_file *m;
  size_t nm;
  int rc = iceberg_manifest_list_read(t->manifest_list, &m, &nm, err);
  if (rc != WEIR_OK) return rc;
  iceberg_data_file *files = NULL;
  size_t count = 0;
  for (size_t i = 0; i < nm && rc == WEIR_OK; i++) {
    if (m[i].content != ICEBERG_CONTENT_DATA) {
      /* A delete manifest that still tracks files would change what rows are live. */
      if (m[i].added_files + m[i].existing_files > 0)
        rc = wr_seterr(err, WEIR_EINPUT,
                         "%s: the table has delete files (manifest %s); weir reads tables "
                         "without row-level deletes",
                         t->metadata_location, m[i].path);
      continue;
    }
    /* A manifest whose files were all deleted contributes nothing: skip reading it. */
    if (m[i].added_files == 0 && m[i].existing_files == 0 && m[i].deleted_files > 0) continue;
    rc = iceberg_manifest_read(m[i].path, true, &files, &count, NULL, err);
  }
  iceberg_manifest_files_free(m, nm);
  if (rc != WEIR_OK) {
    iceberg_data_files_free(files, count);
    return rc;
  }
  *out = files;
  *n = count;
  return WEIR_OK;
}
