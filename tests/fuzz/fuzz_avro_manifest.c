/*
 * fuzz_avro_manifest.c -- Avro object containers (src/iceberg/avro_container.c) and the
 * Iceberg manifests and manifest lists in them (src/iceberg/manifest.c), read from memory.
 *
 * Every input goes through the three readers weir has: the bare container (every record
 * decoded), a manifest (all entries, with their status and sequence numbers) and a
 * manifest list. Promises checked: errors name the file and are valid UTF-8; what a
 * reader returns on success is whole (paths set, counts consistent).
 */
#include "fuzz.h"

#include "iceberg/iceberg_internal.h"

#define ORIGIN "fuzz.avro"

static void container(const uint8_t *data, size_t size) {
  iceberg_avro_reader r;
  weir_error err = {0};
  int rc = iceberg_avro_reader_open_mem(&r, data, size, ORIGIN, &err);
  if (rc != WEIR_OK) {
    fuzz_check_error(rc, &err, ORIGIN);
    weir_error_clear(&err);
    return;
  }
  (void)iceberg_avro_reader_meta(&r, "schema");
  for (;;) {
    avro_value_t *rec;
    rc = iceberg_avro_reader_next(&r, &rec, &err);
    if (rc != WEIR_OK) {
      fuzz_check_error(rc, &err, ORIGIN);
      weir_error_clear(&err);
      break;
    }
    if (!rec) break;
    int64_t l;
    const char *s;
    (void)iceberg_avro_get_long(rec, "status", &l);
    (void)iceberg_avro_get_string(rec, "manifest_path", &s);
  }
  iceberg_avro_reader_close(&r);
}

static void manifest(const uint8_t *data, size_t size) {
  iceberg_data_file *files = NULL;
  iceberg_entry_meta *meta = NULL;
  size_t n = 0;
  weir_error err = {0};
  int rc = iceberg_manifest_read_mem(data, size, ORIGIN, false, &files, &n, &meta, &err);
  if (rc != WEIR_OK) {
    fuzz_check_error(rc, &err, ORIGIN);
    weir_error_clear(&err);
  }
  for (size_t i = 0; i < n; i++) {
    if (!files[i].path) fuzz_fail("data file %zu has no path", i);
    for (size_t k = 1; k < files[i].n_stats; k++)
      if (files[i].stats[k - 1].field_id >= files[i].stats[k].field_id)
        fuzz_fail("stats not sorted by field id");
  }
  iceberg_data_files_free(files, n);
  free(meta);
}

static void manifest_list(const uint8_t *data, size_t size) {
  iceberg_manifest_file *m = NULL;
  size_t n = 0;
  weir_error err = {0};
  int rc = iceberg_manifest_list_read_mem(data, size, ORIGIN, &m, &n, &err);
  if (rc != WEIR_OK) {
    fuzz_check_error(rc, &err, ORIGIN);
    weir_error_clear(&err);
    if (m || n) fuzz_fail("an error left entries");
    return;
  }
  for (size_t i = 0; i < n; i++) {
    if (!m[i].path) fuzz_fail("manifest %zu has no path", i);
    if (m[i].n_partitions && !m[i].partitions) fuzz_fail("partitions counted but missing");
  }
  iceberg_manifest_files_free(m, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  container(data, size);
  manifest(data, size);
  manifest_list(data, size);
  return 0;
}
