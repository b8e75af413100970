/*
 * iceberg.h -- Apache Iceberg v2 table metadata: metadata.json files, Avro manifest
 * lists and manifests, column statistics and bounds.
 *
 * weir writes every table as a real Iceberg table that any Iceberg reader (pyiceberg's
 * StaticTable.from_metadata, DuckDB's iceberg extension, Spark) can read from its
 * metadata file alone. Files are immutable once written: a new table version is a new
 * metadata file (plus a new manifest list and manifests) that points back to the files
 * of earlier versions it keeps. Where the new version's files go:
 *
 *   <table_location>/data/<uuid>.parquet                      (written by the engine)
 *   <table_location>/metadata/<uuid>-m0.avro                  manifest (-m1: merged manifest)
 *   <table_location>/metadata/snap-<snapshot-id>-1-<uuid>.avro manifest list
 *   <table_location>/metadata/<version:05d>-<uuid>.metadata.json
 *
 * Avro: records are encoded with avro-c; the object container header is written by
 * weir itself, because avro-c drops the field-id/doc/default attributes of the schema it
 * writes into a file header and cannot add the metadata keys Iceberg requires (schema,
 * partition-spec, partition-spec-id, format-version, content).
 */
#ifndef WEIR_ICEBERG_ICEBERG_H
#define WEIR_ICEBERG_ICEBERG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "types/schema.h"
#include "util/error.h"

/* Per-column statistics of one data file, keyed by Iceberg field id. Bounds are in
 * Iceberg's single-value binary serialisation (little-endian numbers, UTF-8 strings,
 * ...); has_* false when unknown. */
typedef struct iceberg_column_stats {
  int32_t field_id;
  int64_t value_count;   /* values including nulls; -1 unknown */
  int64_t null_count;    /* -1 unknown */
  int64_t nan_count;     /* -1 unknown (floating point columns only) */
  int64_t column_size;   /* bytes on disk; -1 unknown */
  uint8_t *lower;        /* owned; NULL when unknown */
  size_t lower_len;
  uint8_t *upper;        /* owned; NULL when unknown */
  size_t upper_len;
} iceberg_column_stats;

/* One value of a data file's partition tuple: null, or the value in Iceberg's
 * single-value binary serialisation of the partition field's result type. */
typedef struct iceberg_partition_value {
  bool is_null;
  uint8_t *value;        /* owned; NULL when is_null */
  size_t len;
} iceberg_partition_value;

/* A Parquet data file of a table version. */
typedef struct iceberg_data_file {
  char *path;            /* absolute */
  int64_t record_count;
  int64_t file_size;     /* bytes */
  iceberg_column_stats *stats;
  size_t n_stats;
  int32_t spec_id;       /* the partition spec it was written with (0 when unpartitioned) */
  iceberg_partition_value *partition; /* one per field of that spec, in its order; owned */
  size_t n_partition;
} iceberg_data_file;

void iceberg_data_file_clear(iceberg_data_file *f);
void iceberg_data_files_free(iceberg_data_file *v, size_t n);

/*
 * Encodes a bound given as text (as DuckDB's Parquet writer reports min/max: "42",
 * "0.42", "A10", "2024-01-31", "2024-01-31 12:00:00", "12.50") into Iceberg's binary
 * single-value form for a column of weir type `t`. Strings longer than 16 code points
 * (bytes for Binary, which DuckDB reports as hex) are truncated for lower bounds and
 * truncated-and-incremented for upper bounds (as Java and pyiceberg do: they count code
 * points); returns false (no bound, *out NULL) when the text cannot be encoded exactly.
 * The rules per type are in docs/iceberg.md.
 */
bool iceberg_bound_from_text(weir_type t, const char *text, bool upper, uint8_t **out,
                             size_t *len);
/* The reverse, for describe/tests: renders a binary bound as text. Caller frees. */
char *iceberg_bound_to_text(weir_type t, const uint8_t *data, size_t len);

/* One column's statistics as DuckDB's Parquet writer reports them (COPY ... (FORMAT
 * parquet, RETURN_STATS true) gives, per column, "min", "max", "null_count", "num_values",
 * "column_size_bytes" and, for floating point columns, "has_nan"); any may be NULL. */
typedef struct iceberg_stats_text {
  const char *min;
  const char *max;
  const char *null_count;
  const char *num_values;
  const char *column_size;
  const char *has_nan;
} iceberg_stats_text;

/* Fills `out` (field id, counts, bounds via iceberg_bound_from_text) for column `field`.
 * Unknown or unparsable values stay unknown (-1 / NULL); the NaN count is 0 only when
 * has_nan is "false" (DuckDB reports no count). Caller clears `out` with the data file. */
void iceberg_column_stats_from_text(const wr_field *field, const iceberg_stats_text *text,
                                    iceberg_column_stats *out);

/* A parsed metadata file: the table version weir reads and extends. */
typedef struct iceberg_table {
  json_t *json;               /* the whole metadata document (owned) */
  char *metadata_location;    /* absolute path it was read from */
  char *location;             /* table location (folder) */
  char *table_uuid;
  int64_t last_sequence_number;
  int32_t last_column_id;
  int32_t current_schema_id;
  wr_schema schema;         /* current schema: names, types, required, doc, field ids */
  int64_t current_snapshot_id;/* -1 when the table has no snapshot */
  char *manifest_list;        /* of the current snapshot; NULL when none */
  int64_t record_count;       /* total-records of the current snapshot; 0 when none */
  json_t *properties;         /* borrowed from json; object of strings */
  json_t *summary;            /* borrowed: current snapshot's summary, or NULL */
  int refs;                   /* reference count (metadata files are immutable, so a
                                 parsed table can be shared by a cache and its users) */
} iceberg_table;

/* Reads and checks a metadata file (format-version 2; schema types weir knows; a column
 * of another Iceberg type is loaded as Any). Errors: WEIR_ENOTFOUND, WEIR_EINPUT naming
 * the file and what is wrong. */
int iceberg_table_load(const char *metadata_location, iceberg_table **out, weir_error *err);
/* The same over the file's text in memory (`len` bytes, NUL not needed); `location` is
 * where it was read from (messages, metadata_location). */
int iceberg_table_parse(const char *text, size_t len, const char *location, iceberg_table **out,
                        weir_error *err);
/* Drops a reference; the last one frees the table. NULL-safe. */
void iceberg_table_free(iceberg_table *t);
/* Takes another reference (released with iceberg_table_free). Not thread-safe. */
iceberg_table *iceberg_table_ref(iceberg_table *t);

/* The data files live in the current snapshot (manifest list -> manifests -> entries
 * with status ADDED or EXISTING), in manifest order. */
int iceberg_table_data_files(const iceberg_table *t, iceberg_data_file **out, size_t *n,
                             weir_error *err);

/* What iceberg_table_reach reports a file as. */
enum { ICEBERG_REACH_MANIFEST_LIST = 0, ICEBERG_REACH_MANIFEST = 1, ICEBERG_REACH_DATA = 2 };
/* Called with each file reached (a location as the metadata writes it: a URI or a path)
 * and what it is; returns true to read it and report what it reaches in turn (manifest
 * lists and manifests; a caller returns false for one it has already read), ignored for
 * data files. */
typedef bool (*iceberg_reach_fn)(const char *location, int kind, void *ctx);
/* Every file any snapshot of `t` reaches: manifest lists, their manifests, and every data
 * or delete file entry of those (all statuses), plus statistics files. Errors: those of
 * reading a manifest list or manifest (WEIR_ENOTFOUND, WEIR_EINPUT). */
int iceberg_table_reach(const iceberg_table *t, iceberg_reach_fn fn, void *ctx, weir_error *err);

/*
 * Gives every column of `schema` a field id: a column whose name the previous version
 * `prev` has keeps that column's id (so readers track it across versions) when its type
 * is the same or an Iceberg promotion of it (int -> long, float -> double, decimal
 * precision widening) and no other column of `schema` already holds that id; any other
 * column gets the next id after max(prev->last_column_id, ids used), because reusing an
 * id for an incompatible type would make older data files unreadable. Columns that
 * already carry an id > 0 keep it. Sets *last_column_id to the highest id in use.
 */
void iceberg_assign_field_ids(const iceberg_table *prev, wr_schema *schema,
                              int32_t *last_column_id);

typedef enum iceberg_op {
  ICEBERG_OP_APPEND = 0,    /* the new snapshot keeps prev's data files and adds files */
  ICEBERG_OP_OVERWRITE = 1, /* the new snapshot has only `files` (prev's are removed) */
  ICEBERG_OP_REPLACE = 2,   /* a rewrite that changes no row (compaction): prev's files
                               minus `removed`, plus `files`; operation "replace" */
  ICEBERG_OP_DELETE = 3     /* a row delete (copy-on-write): prev's files minus `removed`
                               plus `files`, the removed files' rows less the deleted ones
                               (fewer rows, checked); operation "overwrite", or "delete"
                               when no file is added */
} iceberg_op;

typedef struct iceberg_write_request {
  const char *table_location;       /* absolute folder of the table */
  const iceberg_table *prev;        /* previous version, or NULL for a new table */
  iceberg_op op;
  const wr_schema *schema;        /* the version's schema, field ids assigned */
  const iceberg_data_file *files;   /* new data files (may be 0: an empty snapshot) */
  size_t n_files;
  json_t *properties;               /* borrowed; keys set on the table (comment,
                                       weir.contract, weir.lineage, ...); a JSON null
                                       value removes a key */
  json_t *summary;                  /* borrowed; extra snapshot summary entries (strings) */
  int64_t time_ms;                  /* 0 = now */
  const char *const *removed;       /* ICEBERG_OP_REPLACE, ICEBERG_OP_DELETE: paths of prev's data files the
                                       new files replace (each must be live in prev, else
                                       WEIR_ECONCURRENT); their rows must equal the new
                                       files' (checked: the record counts) */
  size_t n_removed;
  const struct iceberg_partition_spec *spec; /* the partitioning of `files` (each file's
                                       partition tuple in its order); NULL or no fields:
                                       unpartitioned. Its spec_id and field ids are ignored:
                                       an equal spec of prev keeps its id, another one gets
                                       the next id, and becomes the table's default spec */
} iceberg_write_request;

typedef struct iceberg_write_result {
  char *metadata_location;          /* the new metadata file (caller frees) */
  int64_t snapshot_id;
  int64_t record_count;             /* total-records of the new snapshot */
} iceberg_write_result;

/* Writes a new table version: manifest(s), manifest list and metadata file, each
 * atomically (temp file + rename), without touching prev's files. The metadata carries
 * the schema (field ids, required flags, docs), the snapshot with its summary
 * (operation, added/deleted/total records and files, plus request->summary), the
 * snapshot log, the metadata log, refs {main}, and properties. */
int iceberg_write_version(const iceberg_write_request *req, iceberg_write_result *out,
                          weir_error *err);

/* Writes the metadata document `meta` (modified: property gc.enabled set to "false", so
 * that Iceberg engines refuse expire_snapshots and remove_orphan_files on weir's tables;
 * `prev`, when not NULL, appended to its metadata-log) as the next version's file in
 * `meta_dir` (<version:05d>-<uuid>.metadata.json), atomically. *out_location: the new
 * file's path (caller frees). Used by iceberg_write_version and by `weir serve` when it
 * adopts a commit an engine made. */
int iceberg_metadata_write(const char *meta_dir, const iceberg_table *prev, json_t *meta, char **out_location,
                           weir_error *err);

/* A version that changes only the schema and properties (weir alter; Iceberg's
 * UpdateSchema): `prev`'s metadata with `schema` (every field id assigned: kept ids for
 * kept columns, new ids above prev->last_column_id for added ones) as the current schema
 * (a new schema-id, or the id of an equal schema the table had), last-column-id raised to
 * at least `last_column_id`, `properties` applied (a JSON null removes a key), and no new
 * snapshot: out->snapshot_id and record_count are prev's. Older schemas stay in
 * `schemas`. Errors: WEIR_EINVALIDARG (no columns, a column without an id), those of
 * writing the metadata file. */
int iceberg_write_schema_change(const char *table_location, const iceberg_table *prev, const wr_schema *schema,
                                int32_t last_column_id, json_t *properties, iceberg_write_result *out,
                                weir_error *err);

/* Iceberg's type promotions (format v2): int -> long, float -> double, decimal(P, S) ->
 * decimal(P', S) with P' > P. Only these keep every older data file readable, by every
 * engine, under the new type (weir's own widening casts allow more, e.g. Int32 ->
 * Float64, which other engines would not read from older files). */
bool iceberg_type_promotion(weir_type from, weir_type to);

/* The Iceberg schema JSON ({"type":"struct","schema-id":N,"fields":[...]}) of a weir schema;
 * new reference. */
json_t *iceberg_schema_to_json(const wr_schema *s, int32_t schema_id);
/* Reads an Iceberg schema JSON into a weir schema. */
int iceberg_schema_from_json(const json_t *j, wr_schema *out, weir_error *err);

/* ---- Partitioning (partition.c) -------------------------------------------------------
 * Iceberg partition specs: fields that are transforms of a source column. See the table of
 * transforms, source and result types in partition.c and docs/partitioning.md. */

typedef enum iceberg_transform_kind {
  ICEBERG_XF_IDENTITY = 0,
  ICEBERG_XF_YEAR,
  ICEBERG_XF_MONTH,
  ICEBERG_XF_DAY,
  ICEBERG_XF_HOUR,
  ICEBERG_XF_BUCKET,   /* param: the number of buckets N > 0 */
  ICEBERG_XF_TRUNCATE, /* param: the width W > 0 */
  ICEBERG_XF_VOID
} iceberg_transform_kind;

typedef struct iceberg_partition_field {
  iceberg_transform_kind kind;
  int32_t param;          /* N of bucket, W of truncate; 0 otherwise */
  char *source;           /* source column name (owned) */
  int32_t source_id;      /* its field id (0 until known) */
  int32_t field_id;       /* the partition field's id, from 1000 (0 until assigned) */
  char *name;             /* partition field name: "ts_day", "id_bucket" (owned; set by bind) */
  weir_type source_type;  /* set by bind */
  weir_type result_type;  /* set by bind */
} iceberg_partition_field;

typedef struct iceberg_partition_spec {
  int32_t spec_id;
  iceberg_partition_field *fields; /* owned */
  size_t n_fields;
} iceberg_partition_spec;

const char *iceberg_transform_kind_name(iceberg_transform_kind k);
/* Parses "day(ts)", "bucket(16, id)", "truncate(4, name)", "identity(x)", or a bare
 * column name (identity). False with the reason in `why` for an unknown transform, a
 * bucket count or width that is not a positive integer, a missing column. */
bool iceberg_partition_field_parse(const char *text, iceberg_partition_field *out, char *why, size_t why_n);
/* Checks the source column's type against the transform (the spec's table) and sets the
 * source and result types and the field name; false with the reason in `why`. */
bool iceberg_partition_field_bind(iceberg_partition_field *f, weir_type source, char *why, size_t why_n);
/* The Iceberg transform string: "day", "bucket[16]", "truncate[4]". */
void iceberg_partition_field_transform(const iceberg_partition_field *f, char *out, size_t n);
/* weir's declaration text: "day(ts)", "bucket(16, id)". Caller frees. */
char *iceberg_partition_field_text(const iceberg_partition_field *f);
void iceberg_partition_field_clear(iceberg_partition_field *f);
void iceberg_partition_spec_clear(iceberg_partition_spec *s);
/* {"spec-id", "fields": [{"source-id", "field-id", "name", "transform"}]}; new reference. */
json_t *iceberg_partition_spec_to_json(const iceberg_partition_spec *s);
/* The reverse, bound against `schema` (source ids -> columns). Errors: WEIR_EINPUT. */
int iceberg_partition_spec_from_json(const json_t *j, const wr_schema *schema, iceberg_partition_spec *out,
                                     weir_error *err);
/* The spec `spec_id` of table `t`, bound to its current schema (spec 0 of a table without
 * specs is unpartitioned). Errors: WEIR_EINPUT. */
int iceberg_table_spec(const iceberg_table *t, int32_t spec_id, iceberg_partition_spec *out, weir_error *err);
/* Same fields (source ids, transforms, parameters), in the same order. */
bool iceberg_partition_spec_same(const iceberg_partition_spec *a, const iceberg_partition_spec *b);
/* The DuckDB SQL computing the field's value from the SQL expression `e` of its source
 * column (the result type's DuckDB type; bucket calls the engine's weir_bucket). Caller
 * frees. */
char *iceberg_partition_field_sql(const iceberg_partition_field *f, const char *e);
/* SQL rendering a partition value expression as the text iceberg_partition_value_from_text
 * reads. Caller frees. */
char *iceberg_partition_value_sql_text(const iceberg_partition_field *f, const char *value_expr);
/* A partition value of type `t` from that text, exactly (strings are not truncated, binary
 * is hex); false when it cannot be encoded. *out owned by the caller. */
bool iceberg_partition_value_from_text(weir_type t, const char *text, uint8_t **out, size_t *len);
/* Orders two single-value binaries of type `t` (-1, 0, 1) as Iceberg orders the values. */
int iceberg_value_compare(weir_type t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* The bucket hash itself (Murmur3, Appendix B) is util/murmur3.h. */

#endif
