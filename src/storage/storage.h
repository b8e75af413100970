/*
 * storage.h -- reading and writing warehouse objects wherever the warehouse is: a local
 * folder or an S3 bucket. src/iceberg and src/lake use these functions, never file IO,
 * for anything in the warehouse (metadata files, manifests, manifest lists). Parquet data
 * files are read and written by DuckDB itself (its httpfs extension for s3://), configured
 * with the credentials resolved here (wr_s3_duckdb_secret_sql).
 *
 * Every function takes a location (location.h): an absolute path or "s3://bucket/key".
 *
 * Objects are immutable once written. A write is atomic: locally a temporary file,
 * fsync'ed and renamed; on S3 one PUT (an object appears whole or not at all). An
 * exclusive write must not clobber: locally the rename is a link that fails if the name
 * exists; on S3 the PUT carries `If-None-Match: *` and the server's 412 is WEIR_EEXISTS.
 * A server that ignores the condition (found once per lake at init, recorded in lake.json
 * as "conditional_put": false, see docs/storage.md) gets a HEAD before the PUT instead:
 * names carry random UUIDs and the catalog transaction is the commit point, so the check
 * guards against a bug, not against a race weir relies on.
 *
 * S3 requests are signed with libcurl's SigV4 (CURLOPT_AWS_SIGV4); 5xx answers (503
 * SlowDown included) and timeouts are retried with exponential backoff; errors name the
 * operation, the bucket and key, the HTTP status and S3's error code.
 *
 * Thread-safety: every function may be called from any thread. The S3 configuration is
 * process-wide, resolved from the environment and profile files at the first S3 request
 * and again after wr_storage_reconfigure (called when a lake is opened).
 */
#ifndef WEIR_STORAGE_STORAGE_H
#define WEIR_STORAGE_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/error.h"

/* Reads a whole object; *out is NUL-terminated (not counted in *len, which may be NULL)
 * and owned by the caller. Errors: WEIR_ENOTFOUND (no such file or object, or no such
 * bucket), WEIR_EIO (denied, server errors after retries, timeouts), WEIR_EINVALIDARG (a
 * location weir cannot open). */
int wr_storage_read(const char *loc, char **out, size_t *len, weir_error *err);

/* Writes an object atomically. `exclusive`: fail with WEIR_EEXISTS if it exists. */
int wr_storage_write(const char *loc, const void *data, size_t len, bool exclusive, weir_error *err);

/* Whether an object exists (*out). Errors as wr_storage_read, except that a missing
 * object is *out = false. */
int wr_storage_exists(const char *loc, bool *out, weir_error *err);

/* Deletes an object; a missing one is not an error. */
int wr_storage_delete(const char *loc, weir_error *err);

/* The locations of every object under `prefix` (a folder or key prefix; for S3 every key
 * starting with prefix + "/"), sorted. Caller frees with wr_storage_list_free. */
int wr_storage_list(const char *prefix, char ***out, size_t *n, weir_error *err);
void wr_storage_list_free(char **v, size_t n);

/* One object of a listing: its location, size in bytes and last modification time (UTC
 * microseconds: the file's mtime locally, S3's LastModified; INT64_MAX when the server gave
 * no time that parses, so an object of unknown age is never taken as old). */
typedef struct wr_storage_object {
  char *location;
  int64_t size;
  int64_t mtime_us;
} wr_storage_object;

/* wr_storage_list with each object's size and modification time (what gc's grace period
 * is measured on), sorted by location. Locally, files that vanish while the folder is read
 * are left out. Caller frees with wr_storage_objects_free. Errors as wr_storage_list. */
int wr_storage_list_objects(const char *prefix, wr_storage_object **out, size_t *n, weir_error *err);
void wr_storage_objects_free(wr_storage_object *v, size_t n);

/* Makes a folder (and its parents) locally; nothing on S3, whose prefixes need none. */
int wr_storage_mkdirs(const char *loc, weir_error *err);

/* Forgets the resolved S3 configuration, so the next request reads the environment and
 * profile files again (a new lake handle sees new credentials). */
void wr_storage_reconfigure(void);

/* Declares whether S3 servers honour If-None-Match on PUT (lake.json, found at init).
 * Default true. Process-wide. */
void wr_storage_set_conditional_put(bool honoured);

/* Asks the server whether it honours `If-None-Match: *`: writes a probe object under
 * `prefix` twice and deletes it. *honoured is false when the second PUT succeeded.
 * Errors (no bucket, denied, ...) as wr_storage_write, naming the probe's key. */
int wr_storage_probe_conditional_put(const char *prefix, bool *honoured, weir_error *err);

/* The DuckDB statements that let its httpfs extension reach the warehouse `prefix` with
 * the same resolved endpoint, region and credentials: one `CREATE SECRET (TYPE s3, ...,
 * SCOPE prefix)`. Caller frees. Contains credentials: never log it. */
int wr_storage_duckdb_secret_sql(const char *prefix, char **out, weir_error *err);

/* The S3 client settings weir resolved (the table under "S3 setup" in docs/storage.md),
 * for handing to engines that read the warehouse themselves (weir serve's FileIO
 * config). endpoint is NULL for AWS itself (a custom endpoint is addressed path-style);
 * the credentials are NULL when none were found, session_token also when there is none.
 * Strings are owned by *out: free with wr_storage_s3_settings_clear. Contains
 * credentials: never log it. Errors: those of resolving the configuration (as at the
 * first S3 request); missing credentials are NULL, not an error. Thread-safety: any thread. */
typedef struct wr_storage_s3_settings {
  char *endpoint;
  char *region;
  char *access_key;
  char *secret_key;
  char *session_token;
} wr_storage_s3_settings;

int wr_storage_s3_settings_get(wr_storage_s3_settings *out, weir_error *err);
void wr_storage_s3_settings_clear(wr_storage_s3_settings *s);

#endif
