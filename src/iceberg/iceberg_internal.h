/*
 * iceberg_internal.h -- what the files of the iceberg module share with each other (and
 * with the module's tests): the Avro object container writer/reader, the manifest and
 * manifest list codecs, and the schema JSON helper that keeps types weir cannot name.
 *
 * Not part of libweir's interface: other modules use iceberg.h only.
 */
#ifndef WEIR_ICEBERG_INTERNAL_H
#define WEIR_ICEBERG_INTERNAL_H

#include <avro.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iceberg/iceberg.h"
#include "storage/location.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/error.h"

/* ---- Avro object container (avro_container.c) -------------------------------------- */

/* avro-c keeps its last error message in one process-wide buffer (Debian's libavro is
 * built without thread-local errors) and writes it on ordinary paths too, not only when a
 * call fails to the caller: two threads using avro-c at once race on it (found by the
 * ThreadSanitizer run, tests/c/api/test_parallel.c). So avro-c has one user at a time in
 * the process: every entry point of manifest.c holds this lock (recursive) around all of
 * its avro-c calls. Manifests are small; the serialisation costs little. */
void iceberg_avro_lock(void);
void iceberg_avro_unlock(void);

#define ICEBERG_AVRO_MAGIC "Obj\x01"
#define ICEBERG_AVRO_SYNC_SIZE 16

/* One header metadata entry to write (value is a UTF-8 string, as Iceberg's are). */
typedef struct iceberg_avro_meta {
  const char *key;
  const char *value;
} iceberg_avro_meta;

/*
 * Writes records of one schema into an Avro object container held in memory. The records
 * are built as avro-c generic values and encoded by avro-c; the container (magic, header
 * metadata map with the schema JSON exactly as given, codec "null", sync marker, blocks)
 * is framed here, because avro-c rewrites the schema without field-id/doc/default and
 * cannot add Iceberg's header keys.
 */
typedef struct iceberg_avro_writer {
  char *schema_json;           /* written verbatim as avro.schema */
  avro_schema_t schema;
  avro_value_iface_t *iface;
  avro_value_t value;          /* the record being built */
  wr_buf block;              /* encoded records of the open block */
  int64_t block_count;         /* records in `block` */
  wr_buf body;               /* finished blocks (count, size, data, sync) */
  int64_t count;               /* records written in all */
  uint8_t sync[ICEBERG_AVRO_SYNC_SIZE];
} iceberg_avro_writer;

/* Parses schema_json with avro-c (errors: WEIR_EGENERIC naming the schema's record). */
int iceberg_avro_writer_init(iceberg_avro_writer *w, const char *schema_json, weir_error *err);
/* The record to fill for the next append; reset to defaults (zero/empty/first branch). */
avro_value_t *iceberg_avro_writer_record(iceberg_avro_writer *w);
/* Encodes the current record and appends it. */
int iceberg_avro_writer_append(iceberg_avro_writer *w, weir_error *err);
/* The whole file: header with avro.schema, avro.codec and `meta`, then every block. */
void iceberg_avro_writer_finish(iceberg_avro_writer *w, const iceberg_avro_meta *meta,
                                size_t n_meta, wr_buf *out);
void iceberg_avro_writer_free(iceberg_avro_writer *w);

/*
 * Reads an Avro object container. The header is parsed here (so its metadata, including
 * Iceberg's keys, can be inspected); records of "null"-codec files (what weir writes) and
 * "deflate" ones (Java, pyiceberg) are decoded by avro-c from the blocks framed (and
 * inflated) here, against the writer schema of the header, once each block is known to
 * hold exactly its records. Files with another codec are handed whole to avro-c's own
 * file reader, which implements the codecs; the header is still parsed here.
 */
typedef struct iceberg_avro_reader {
  char *origin;                /* file name, for messages */
  char *data;                  /* the whole file (owned) */
  size_t len;
  size_t pos;                  /* next byte of the body */
  json_t *meta;                /* header metadata: key -> string (bytes as written) */
  uint8_t sync[ICEBERG_AVRO_SYNC_SIZE];
  const char *codec;           /* borrowed from meta; "null" when absent */
  avro_schema_t schema;        /* writer schema */
  avro_value_iface_t *iface;
  avro_value_t value;          /* the current record */
  avro_reader_t block_reader;  /* over the current block (null and deflate codecs) */
  wr_buf plain;              /* the current block inflated (deflate codec) */
  int64_t block_left;          /* records left in the current block */
  avro_file_reader_t file_reader; /* other codecs */
  int64_t records_read;
} iceberg_avro_reader;

/* Reads and parses the file at `path`. Errors: WEIR_ENOTFOUND, WEIR_EIO, WEIR_EINPUT
 * naming the file and what is wrong with it. */
int iceberg_avro_reader_open(iceberg_avro_reader *r, const char *path, weir_error *err);
/* The same over bytes in memory (copied); `origin` names them in messages. */
int iceberg_avro_reader_open_mem(iceberg_avro_reader *r, const void *data, size_t len,
                                 const char *origin, weir_error *err);
/* Reads the next record into *rec (owned by the reader, valid until the next call);
 * *rec is NULL at the end of the file. Errors: WEIR_EINPUT naming the file. */
int iceberg_avro_reader_next(iceberg_avro_reader *r, avro_value_t **rec, weir_error *err);
/* A header metadata value, or NULL. */
const char *iceberg_avro_reader_meta(const iceberg_avro_reader *r, const char *key);
void iceberg_avro_reader_close(iceberg_avro_reader *r);

/* Typed access to a record's fields by name; a union is resolved to its branch. False
 * when the field is missing, null, or of another type. */
bool iceberg_avro_field(avro_value_t *rec, const char *name, avro_value_t *out);
bool iceberg_avro_get_long(avro_value_t *rec, const char *name, int64_t *out);
bool iceberg_avro_get_string(avro_value_t *rec, const char *name, const char **out);
bool iceberg_avro_get_bytes(avro_value_t *rec, const char *name, const void **out, size_t *len);
bool iceberg_avro_get_bool(avro_value_t *rec, const char *name, bool *out);

/* ---- Manifests and manifest lists (manifest.c) ------------------------------------- */

/* The Avro schemas weir writes (v2 manifest_entry for unpartitioned tables, v2
 * manifest_file), with Iceberg's field ids and docs. */
extern const char ICEBERG_MANIFEST_ENTRY_SCHEMA[];
extern const char ICEBERG_MANIFEST_LIST_SCHEMA[];

enum { ICEBERG_STATUS_EXISTING = 0, ICEBERG_STATUS_ADDED = 1, ICEBERG_STATUS_DELETED = 2 };
enum { ICEBERG_CONTENT_DATA = 0, ICEBERG_CONTENT_DELETES = 1 };

/* A partition field summary of a manifest list entry (kept to carry manifests written by
 * other tools forward unchanged). */
typedef struct iceberg_partition_summary {
  bool contains_null;
  int contains_nan;            /* -1 unknown, 0, 1 */
  uint8_t *lower;
  size_t lower_len;
  uint8_t *upper;
  size_t upper_len;
  bool has_lower, has_upper;
} iceberg_partition_summary;

/* One entry of a manifest list. */
typedef struct iceberg_manifest_file {
  char *path;
  int64_t length;
  int32_t spec_id;
  int32_t content;
  int64_t sequence_number;
  int64_t min_sequence_number;
  int64_t added_snapshot_id;
  int32_t added_files, existing_files, deleted_files;
  int64_t added_rows, existing_rows, deleted_rows;
  bool has_partitions;         /* false: the field was null */
  iceberg_partition_summary *partitions;
  size_t n_partitions;
  uint8_t *key_metadata;
  size_t key_metadata_len;
  int64_t first_row_id;        /* v3 row lineage: the first row id of its rows; -1 null
                                  (a v2 list, or not assigned yet) */
} iceberg_manifest_file;

void iceberg_manifest_files_free(iceberg_manifest_file *v, size_t n);
/* Frees what one entry owns (not the entry itself). */
void iceberg_manifest_files_free_one(iceberg_manifest_file *m);

/* Where a manifest entry stands: its status, and the snapshot id and sequence numbers it
 * carries; -1 where the entry leaves them null, to be inherited from its manifest. */
typedef struct iceberg_entry_meta {
  int status;
  int64_t snapshot_id;
  int64_t sequence_number;
  int64_t file_sequence_number;
} iceberg_entry_meta;

/* What goes into a manifest: its header keys besides the Avro ones, and its entries'
 * status and numbers. */
typedef struct iceberg_manifest_info {
  const char *schema_json;     /* the table schema (Iceberg JSON) */
  int32_t schema_id;
  int64_t snapshot_id;         /* the snapshot that writes the manifest */
  int64_t sequence_number;     /* that snapshot's sequence number */
  const iceberg_entry_meta *entries; /* one per file; NULL: every file ADDED by snapshot_id,
                                        sequence numbers null (inherited) */
  int format_version;          /* of the table: 3 writes "format-version": "3" in the
                                  header; 0 or 2: "2" */
  const iceberg_partition_spec *spec; /* the files' partition spec; NULL: unpartitioned
                                        spec 0. Each file's partition tuple has one value
                                        per field (checked) */
} iceberg_manifest_info;

/* Writes a manifest of `files` to `path` atomically, and fills `entry` (its manifest list
 * record, with counts by status and the lowest data sequence number; caller frees it with
 * iceberg_manifest_files_free). */
int iceberg_manifest_write(const char *path, const iceberg_manifest_info *info,
                           const iceberg_data_file *files, size_t n_files,
                           iceberg_manifest_file *entry, weir_error *err);
/* The manifest's bytes without writing them (tests inspect them). */
int iceberg_manifest_encode(const iceberg_manifest_info *info, const iceberg_data_file *files,
                            size_t n_files, wr_buf *out, weir_error *err);

/* Reads a manifest's entries: data files whose status is ADDED or EXISTING (all of them
 * when `live_only` is false), appended to *files and *n (which may already hold some,
 * grown by this module's power-of-two rule, i.e. start from NULL and 0). `meta`, when not
 * NULL, receives each appended entry's status and numbers as written (-1 when null). */
int iceberg_manifest_read(const char *path, bool live_only, iceberg_data_file **files,
                          size_t *n, iceberg_entry_meta **meta, weir_error *err);
/* The same over a manifest's bytes in memory; `origin` names them in messages. */
int iceberg_manifest_read_mem(const void *data, size_t len, const char *origin, bool live_only,
                              iceberg_data_file **files, size_t *n, iceberg_entry_meta **meta,
                              weir_error *err);

/* Manifest merging (manifest_merge.c): when an append would leave at least
 * `commit.manifest.min-count-to-merge` (default 100, as Java) data manifests, the carried
 * ones are rewritten into one manifest of EXISTING entries with explicit sequence numbers,
 * so reads never open an ever-growing number of manifests. `properties` are the table's;
 * `list` is the carried manifest list, replaced in place; *written is the new manifest's
 * path (NULL when nothing was merged; caller frees). */
int iceberg_manifests_merge(const char *meta_dir, const json_t *properties,
                            const iceberg_manifest_info *info, iceberg_manifest_file **list,
                            size_t *n, char **written, weir_error *err);

/* For a replace snapshot (manifest_remove.c): turns the files `removed` of the manifests
 * in *list (the previous version's) into DELETED entries of a new manifest written in
 * meta_dir for snapshot info->snapshot_id, carrying the other files of those manifests as
 * EXISTING; manifests without a removed file stay as they are. *removed_records and
 * *removed_size: what the removed files held. *written: the new manifest's path (caller
 * frees; delete it if the write fails later). WEIR_ECONCURRENT when a removed file is not
 * live in the list (another writer replaced or deleted it): nothing is written. */
int iceberg_manifests_remove(const char *meta_dir, const iceberg_manifest_info *info,
                             iceberg_manifest_file **list, size_t *n, const char *const *removed,
                             size_t n_removed, int64_t *removed_records, int64_t *removed_size,
                             char **written, weir_error *err);

typedef struct iceberg_manifest_list_info {
  int64_t snapshot_id;
  int64_t parent_snapshot_id;  /* -1 when none */
  int64_t sequence_number;
  int format_version;          /* 3: the v3 schema (first_row_id) and header; else v2 */
} iceberg_manifest_list_info;

int iceberg_manifest_list_encode(const iceberg_manifest_list_info *info,
                                 const iceberg_manifest_file *m, size_t n, wr_buf *out,
                                 weir_error *err);
int iceberg_manifest_list_write(const char *path, const iceberg_manifest_list_info *info,
                                const iceberg_manifest_file *m, size_t n, weir_error *err);
int iceberg_manifest_list_read(const char *path, iceberg_manifest_file **out, size_t *n,
                               weir_error *err);
/* The same over a manifest list's bytes in memory; `origin` names them in messages. */
int iceberg_manifest_list_read_mem(const void *data, size_t len, const char *origin,
                                   iceberg_manifest_file **out, size_t *n, weir_error *err);

/* ---- Schema JSON (schema_json.c) ---------------------------------------------------- */

/* Like iceberg_schema_to_json, but a column whose weir type has no Iceberg type (Any, from
 * a column of another Iceberg type; Date64) takes the "type" of the field with the same
 * id in `prev_schema` (an Iceberg schema JSON, may be NULL). Without one, fails with
 * WEIR_EINVALIDARG naming the column. */
int iceberg_schema_json_build(const wr_schema *s, int32_t schema_id,
                              const json_t *prev_schema, json_t **out, weir_error *err);

/* The schema object of `schema_id` in a metadata document's "schemas", or NULL. */
const json_t *iceberg_metadata_schema(const json_t *metadata, int64_t schema_id);

/* ---- Metadata (metadata.c) ---------------------------------------------------------- */

/* A snapshot summary value ("891") as a number; false when absent or not an integer. */
bool iceberg_summary_int(const json_t *summary, const char *key, int64_t *out);

/* Locations: weir's locations (paths, s3:// URIs) become full URIs in what this module
 * writes and come back from what it reads only through src/storage/location.h
 * (wr_location_to_uri, wr_location_from_uri); files are read and written through
 * src/storage/storage.h. */

#endif
