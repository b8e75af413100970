/*
 * manifest_merge.c -- keeping the number of manifests of a table bounded.
 *
 * Every append adds one manifest and carries the previous ones forward, so after N appends
 * a read opens N manifests. Like Java's MergingSnapshotProducer, when the data manifests
 * of an append reach commit.manifest.min-count-to-merge (default 100), the carried ones
 * are rewritten into a single manifest whose entries are EXISTING, each with the snapshot
 * id and the data/file sequence numbers it had (made explicit, since an EXISTING entry
 * cannot inherit them from the new manifest). Deleted entries are dropped; delete
 * manifests and manifests of another partition spec are left as they are. Setting
 * commit.manifest-merge.enabled to "false" turns merging off.
 */
#include "iceberg/iceberg_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/fs.h"
#include "util/uuid.h"

#define DEFAULT_MIN_COUNT_TO_MERGE 100
#define PROP_MERGE_ENABLED "commit.manifest-merge.enabled"
#define PROP_MIN_COUNT "commit.manifest.min-count-to-merge"

/* Only manifests of the spec the new files are written with are merged (into one of that
 * spec, whose partition tuples the entries keep). */
static bool mergeable(const iceberg_manifest_file *m, int32_t spec_id) {
  return m->content == ICEBERG_CONTENT_DATA && m->spec_id == spec_id;
}

int iceberg_manifests_merge(const char *meta_dir, const json_t *properties,
                            const iceberg_manifest_info *info, iceberg_manifest_file **list,
                            size_t *n, char **written, weir_error *err) {
  *written = NULL;
  const char *enabled = json_string_value(json_object_get(properties, PROP_MERGE_ENABLED));
  if (enabled && strcmp(enabled, "false") == 0) return WEIR_OK;
  int64_t min_count = DEFAULT_MIN_COUNT_TO_MERGE;
  int64_t v;
  if (iceberg_summary_int(properties, PROP_MIN_COUNT, &v) && v >= 2) min_count = v;
  size_t count = 0;
  for (size_t i = 0; i < *n; i++) count += mergeable(&(*list)[i], info->spec ? info->spec->spec_id : 0);
  /* The append adds one more manifest; merge when the total would reach the limit. */
  if ((int64_t)count + 1 < min_count || count < 2) return WEIR_OK;

  iceberg_data_file *files = NULL;
  iceberg_entry_meta *meta = NULL;
  size_t nf = 0;
  int rc = WEIR_OK;
  for (size_t i = 0; i < *n && rc == WEIR_OK; i++) {
    const iceberg_manifest_file *m = &(*list)[i];
    if (!mergeable(m, info->spec ? info->spec->spec_id : 0)) continue;
    size_t first = nf;
    rc = iceberg_manifest_read(m->path, true, &files, &nf, &meta, err);
    /* Make inherited values explicit: null ids and numbers come from the manifest (an
     * entry without a sequence number that is not ADDED was written by format v1: 0). */
    for (size_t k = first; k < nf && rc == WEIR_OK; k++) {
      iceberg_entry_meta *e = &meta[k];
      if (e->snapshot_id < 0) e->snapshot_id = m->added_snapshot_id;
      if (e->sequence_number < 0)
        e->sequence_number = e->status == ICEBERG_STATUS_ADDED ? m->sequence_number : 0;
      if (e->file_sequence_number < 0)
        e->file_sequence_number = e->status == ICEBERG_STATUS_ADDED ? m->sequence_number : 0;
      e->status = ICEBERG_STATUS_EXISTING;
    }
  }
  char *path = NULL;
  iceberg_manifest_file merged;
  memset(&merged, 0, sizeof merged);
  if (rc == WEIR_OK) {
    char uuid[WEIR_UUID_STR_LEN + 1];
    wr_uuid4(uuid);
    char *name = wr_asprintf("%s-m1.avro", uuid);
    path = wr_location_join(meta_dir, name);
    free(name);
    iceberg_manifest_info minfo = *info;
    minfo.entries = meta;
    rc = iceberg_manifest_write(path, &minfo, files, nf, &merged, err);
  }
  iceberg_data_files_free(files, nf);
  free(meta);
  if (rc != WEIR_OK) {
    free(path);
    return rc;
  }
  /* The new list: manifests left alone, in their order, then the merged one. */
  iceberg_manifest_file *out = wr_calloc(*n - count + 1, sizeof *out);
  size_t k = 0;
  for (size_t i = 0; i < *n; i++) {
    if (mergeable(&(*list)[i], info->spec ? info->spec->spec_id : 0))
      iceberg_manifest_files_free_one(&(*list)[i]);
    else
      out[k++] = (*list)[i];
  }
  out[k++] = merged;
  free(*list);
  *list = out;
  *n = k;
  *written = path;
  return WEIR_OK;
}
