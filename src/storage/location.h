/*
 * location.h -- the one place that knows what a warehouse location is: parsing, joining,
 * turning locations into the URIs Iceberg metadata holds and back.
 *
 * Inside weir a *location* is either an absolute local path ("/lake/warehouse/db/t") or
 * an object-store URI ("s3://bucket/prefix/db/t"). The catalog records metadata files by
 * location; the engine opens data files by location. In Iceberg metadata, manifest lists
 * and manifests every location is a full URI, as the spec asks ("file:///lake/...",
 * "s3://bucket/..."): wr_location_to_uri on the way in, wr_location_from_uri on the way
 * out. Nothing else in weir builds or parses a location.
 *
 * File URIs, and why they are not percent-encoded: every Iceberg reader measured here
 * takes the path part of a file URI literally -- pyiceberg's PyArrowFileIO (urlparse,
 * no unquoting), DuckDB's iceberg extension, Java's Hadoop Path -- so "file:///a%20b"
 * names a folder called "a%20b" for them, while "file:///a b" names "a b". Java Iceberg
 * itself writes spaces unencoded. So weir writes the path verbatim after "file://" and
 * refuses, where a lake or warehouse is made, the characters a URI parser would read as
 * syntax ('?', '#'), the escape character '%' (a reader that does decode would then read
 * a different path than one that does not), and control characters: within what remains
 * the literal and the decoded reading are the same path. When reading, "file:" URIs are
 * percent-decoded (RFC 8089), so URIs another writer encoded properly are read as meant;
 * for weir's own URIs that is the identity. Plain absolute paths (what weir wrote before
 * 0.x, "old lakes") are read literally.
 *
 * S3 URIs: "s3://bucket/key", with "s3a://" and "s3n://" (Hadoop's spellings) read as
 * "s3://". Keys are literal (no decoding): S3 keys are strings, and pyiceberg/DuckDB
 * take them so. Bucket names follow S3's rules (3-63 of a-z 0-9 . -).
 *
 * Thread-safety: pure functions.
 */
#ifndef WEIR_STORAGE_LOCATION_H
#define WEIR_STORAGE_LOCATION_H

#include <stdbool.h>
#include <stddef.h>
#include "util/error.h"

typedef enum wr_location_kind {
  WR_LOCATION_LOCAL = 0, /* an absolute local path */
  WR_LOCATION_S3 = 1     /* s3://bucket/key */
} wr_location_kind;

/* A parsed location. For LOCAL, `path` is the absolute path and bucket/key are NULL; for
 * S3, bucket and key (without a leading '/', may be "") are set and path is NULL. */
typedef struct wr_location {
  wr_location_kind kind;
  char *path;
  char *bucket;
  char *key;
} wr_location;

void wr_location_clear(wr_location *l);

/* Parses a location or a location URI: "/abs", "file:/abs", "file:///abs",
 * "file://localhost/abs" (decoded), "s3://b/k" (also s3a, s3n). Errors: WEIR_EINVALIDARG
 * naming the text, for a relative path, another scheme, a file URI with a remote host, a
 * bad percent escape, or a bad bucket name. */
int wr_location_parse(const char *text, wr_location *out, weir_error *err);

/* True when `loc` is an object-store location (s3://...). */
bool wr_location_is_remote(const char *loc);

/* The location weir keeps for a URI read from Iceberg metadata: the local path of a file
 * URI (or of a plain absolute path), the normalised "s3://b/k" of an S3 URI; other text
 * is returned unchanged (opening it then fails with a clear error). Caller frees. */
char *wr_location_from_uri(const char *uri);

/* The full URI of a location, as written into Iceberg metadata: "file://" + path for a
 * local path, the URI itself for s3://. Caller frees. */
char *wr_location_to_uri(const char *loc);

/* `base` + "/" + `name` (one slash between them), for paths and URIs alike. Caller frees. */
char *wr_location_join(const char *base, const char *name);

/* The parent of a location ("s3://b/a/c" -> "s3://b/a", "/x/y" -> "/x"). Caller frees. */
char *wr_location_dirname(const char *loc);

/* Checks that a local folder path or an S3 prefix can be written into Iceberg metadata
 * and read back as the same place by every reader (see above): no '?', '#', '%' or
 * control character. `what` names it in the message ("the lake path"). Errors:
 * WEIR_EINVALIDARG naming the character and its position. */
int wr_location_check_safe(const char *loc, const char *what, weir_error *err);

#endif
