/*
 * manifest_remove.c -- the manifests of a `replace` snapshot (a compaction): the previous
 * version's data files minus the ones it rewrote.
 *
 * A manifest that tracks none of the removed files is carried forward unchanged (its
 * entries keep their status and numbers). The entries of the manifests that do track one
 * are written into one new manifest: each removed file as DELETED by the new snapshot
 * (so that an engine's incremental read and expire_snapshots see what left, as Java's
 * RewriteFiles writes it), every other live file as EXISTING with the snapshot id and
 * data/file sequence numbers it had, made explicit (an EXISTING entry cannot inherit them
 * from the new manifest). Entries already DELETED by an earlier snapshot are dropped.
 *
 * Every removed file must be live in the previous version exactly once: a file that is not
 * was replaced or deleted by another writer, and rewriting it again would bring back rows
 * that writer removed. That is WEIR_ECONCURRENT, and nothing is written.
 */
#include "iceberg/iceberg_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/uuid.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Index in the sorted `keys` of `path`, or -1. */
static ptrdiff_t find(const char **keys, size_t n, const char *path) {
  const char **hit = bsearch(&path, keys, n, sizeof *keys, cmp_str);
  return hit ? hit - keys : -1;
}

int iceberg_manifests_remove(const char *meta_dir, const iceberg_manifest_info *info,
                             iceberg_manifest_file **list, size_t *n, const char *const *removed,
                             size_t n_removed, int64_t *removed_records, int64_t *removed_size,
                             char **written, weir_error *err) {
  *written = NULL;
  *removed_records = 0;
  *removed_size = 0;
  const char **keys = wr_calloc(n_removed ? n_removed : 1, sizeof *keys);
  bool *found = wr_calloc(n_removed ? n_removed : 1, sizeof *found);
  bool *rewrite = wr_calloc(*n ? *n : 1, sizeof *rewrite);
  memcpy(keys, removed, n_removed * sizeof *keys);
  qsort(keys, n_removed, sizeof *keys, cmp_str);
  iceberg_data_file *files = NULL; /* entries of the manifests that are rewritten */
  iceberg_entry_meta *meta = NULL;
  size_t nf = 0;
  int rc = WEIR_OK;
  for (size_t i = 1; i < n_removed && rc == WEIR_OK; i++)
    if (strcmp(keys[i - 1], keys[i]) == 0)
      rc = wr_seterr(err, WEIR_EINVALIDARG, "Iceberg replace: data file %s is removed twice", keys[i]);

  for (size_t i = 0; i < *n && rc == WEIR_OK; i++) {
    const iceberg_manifest_file *m = &(*list)[i];
    if (m->content != ICEBERG_CONTENT_DATA || (m->added_files == 0 && m->existing_files == 0)) continue;
    iceberg_data_file *mf = NULL;
    iceberg_entry_meta *mm = NULL;
    size_t nmf = 0;
    if ((rc = iceberg_manifest_read(m->path, true, &mf, &nmf, &mm, err))) break;
    bool hit = false;
    for (size_t k = 0; k < nmf && !hit; k++) hit = find(keys, n_removed, mf[k].path) >= 0;
    if (hit) {
      rewrite[i] = true;
      for (size_t k = 0; k < nmf && rc == WEIR_OK; k++) {
        iceberg_entry_meta e = mm[k];
        if (e.snapshot_id < 0) e.snapshot_id = m->added_snapshot_id;
        if (e.sequence_number < 0) e.sequence_number = e.status == ICEBERG_STATUS_ADDED ? m->sequence_number : 0;
        if (e.file_sequence_number < 0)
          e.file_sequence_number = e.status == ICEBERG_STATUS_ADDED ? m->sequence_number : 0;
        ptrdiff_t at = find(keys, n_removed, mf[k].path);
        if (at >= 0) {
          if (found[at]) {
            rc = wr_seterr(err, WEIR_EINPUT, "Iceberg replace: data file %s is live twice in the table", mf[k].path);
            break;
          }
          found[at] = true;
          e.status = ICEBERG_STATUS_DELETED;
          e.snapshot_id = info->snapshot_id;
          *removed_records += mf[k].record_count;
          *removed_size += mf[k].file_size;
        } else {
          e.status = ICEBERG_STATUS_EXISTING;
        }
        if (nf % 64 == 0) {
          files = wr_realloc(files, (nf + 64) * sizeof *files);
          meta = wr_realloc(meta, (nf + 64) * sizeof *meta);
        }
        files[nf] = mf[k];
        memset(&mf[k], 0, sizeof mf[k]); /* moved */
        meta[nf++] = e;
      }
    }
    iceberg_data_files_free(mf, nmf);
    free(mm);
  }
  for (size_t i = 0; i < n_removed && rc == WEIR_OK; i++)
    if (!found[i])
      rc = wr_seterr(err, WEIR_ECONCURRENT,
                     "data file %s is no longer in the table (another write replaced or deleted it); "
                     "nothing was committed",
                     keys[i]);

  char *path = NULL;
  iceberg_manifest_file merged;
  memset(&merged, 0, sizeof merged);
  if (rc == WEIR_OK) {
    char uuid[WEIR_UUID_STR_LEN + 1];
    wr_uuid4(uuid);
    char *name = wr_asprintf("%s-m2.avro", uuid);
    path = wr_location_join(meta_dir, name);
    free(name);
    iceberg_manifest_info minfo = *info;
    minfo.entries = meta;
    rc = iceberg_manifest_write(path, &minfo, files, nf, &merged, err);
  }
  iceberg_data_files_free(files, nf);
  free(meta);
  if (rc == WEIR_OK) {
    /* The new list: manifests left alone, in their order, then the rewritten one. */
    iceberg_manifest_file *out = wr_calloc(*n + 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
      if (rewrite[i]) iceberg_manifest_files_free_one(&(*list)[i]);
      else out[k++] = (*list)[i];
    }
    out[k++] = merged;
    free(*list);
    *list = out;
    *n = k;
    *written = path;
    path = NULL;
  }
  free(path);
  free(keys);
  free(found);
  free(rewrite);
  return rc;
}
